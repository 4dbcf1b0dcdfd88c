"""engine/gemm_avx2.py: MKL's AVX2 sgemm order for small float32 products (docs/numerics.md).

Without torch: the kernel against a per-element reference (one exact fma32 chain per element, or plain
float32 products and sums), the C kernel (csrc/gemm.c) against the NumPy one bit for bit over random
shapes and layouts, both of its paths (AVX2+FMA, element by element), what it refuses, the NumPy code
that runs without it, and what it leaves to NumPy. With torch on an AVX2 machine without AVX-512
(where the engine uses it): random products of the domain against torch.mm bit for bit, and F.linear
through the engine against torch's.
"""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import gemm_avx2, gemm_dot, rng_math

F32 = np.float32


def _reference(a, b, fused_rows, halves):
    m, k = a.shape
    n = b.shape[1]
    out = np.empty((m, n), F32)
    for i in range(m):
        for j in range(n):
            parts = []
            for lo, hi in halves:
                acc = F32(0)
                for kk in range(lo, hi):
                    if i < fused_rows:
                        acc = F32(rng_math.fma32(a[i, kk], b[kk, j], acc))
                    else:
                        acc = F32(acc + F32(a[i, kk] * b[kk, j]))
                parts.append(acc)
            out[i, j] = parts[0] if len(parts) == 1 else F32(parts[0] + parts[1])
    return out


@pytest.mark.parametrize("m, k, n, fused_rows, halves", [
    (4, 7, 16, 4, ((0, 7),)),        # one group of four rows: fused chains
    (13, 3, 17, 13, ((0, 3),)),      # m >= 12: every row fused
    (4, 196, 16, 4, ((0, 98), (98, 196))),  # 192 < k <= 384: two halves, added
])
@pytest.mark.parametrize("with_c", [False, True])
def test_kernel_is_its_reference(m, k, n, fused_rows, halves, with_c, monkeypatch, request):
    if with_c:
        request.getfixturevalue("native_module")("gemm")
    else:
        monkeypatch.setattr(gemm_avx2, "_module", [None])   # no C extension: the NumPy chains
    rng = np.random.default_rng(m * 1000 + k)
    a = rng.standard_normal((m, k)).astype(F32)
    b = rng.standard_normal((k, n)).astype(F32)
    got = gemm_avx2.sgemm(a, b)
    want = _reference(a, b, fused_rows, halves)
    assert got.view(np.int32).tolist() == want.view(np.int32).tolist()
    # a product of exact halves and quarters: sums that land on float32 ties take the exact fma's rounding
    a2, b2 = np.round(a * 4) / 4, np.round(b * 2) / 2
    got = gemm_avx2.sgemm(a2.astype(F32), b2.astype(F32))
    assert got.view(np.int32).tolist() == _reference(a2.astype(F32), b2.astype(F32), fused_rows, halves).view(np.int32).tolist()


def _operand(rng, rows, cols, transposed, kind):
    """A float32 (rows, cols) matrix, row-major or a transposed row-major one; kind "ties": multiples of
    1/4 and 1/2 (sums that land on float32 ties), "wide": magnitudes from 2**-75 to 2**66 (subnormal
    products, overflow to inf)."""
    if kind == "ties":
        x = np.round(rng.standard_normal((rows, cols)) * 4) / 4
    elif kind == "wide":
        x = rng.standard_normal((rows, cols)) * 2.0 ** rng.integers(-75, 67, (rows, cols))
    else:
        x = rng.standard_normal((rows, cols))
    x = x.astype(F32)
    return np.ascontiguousarray(x.T).T if transposed else x


def test_c_kernel_is_the_numpy_reference(native_module):
    """csrc/gemm.c's sgemm_chain against gemm_avx2.chain_reference, bit for bit: random m, k, n (every
    remainder of the AVX2 code's 4-row and 16-column blocks), the three layouts, one chain and two,
    both paths of the C code."""
    module = native_module("gemm")
    rng = np.random.default_rng(11)
    shapes = [(1, 1, 1), (4, 2, 16), (5, 3, 17), (7, 9, 33), (12, 192, 16), (3, 194, 47), (16, 384, 20), (9, 1, 31)]
    shapes += [(int(rng.integers(1, 40)), int(rng.integers(1, 400)), int(rng.integers(1, 70))) for _ in range(40)]
    for i, (m, k, n) in enumerate(shapes):
        kind = ("plain", "ties", "wide")[i % 3]
        ta, tb = [(False, False), (True, False), (False, True)][i % 3 if i % 7 else 0]
        a, b = _operand(rng, m, k, ta, kind), _operand(rng, k, n, tb, kind)
        c = _operand(rng, m, n, False, kind)
        for split in sorted({k, max(1, k // 2)}):
            for cc, acc in ((None, 0), (c, 1), (c, 2)):
                want = gemm_avx2.chain_reference(a, b, split, cc, acc).view(np.int32)
                for scalar in (False, True):
                    got = gemm_avx2.chain_native(module, a, b, split, cc, scalar, acc).view(np.int32)
                    assert np.array_equal(got, want), (m, k, n, ta, tb, kind, split, scalar, acc)


def test_c_kernel_refuses_what_could_reach_memory(native_module):
    module = native_module("gemm")
    a, b, out = np.ones(8, F32), np.ones(32, F32), np.zeros(16, F32)
    module.sgemm_chain(a, b, out, 2, 4, 8, False, False, 4, False, False)
    assert out.tolist() == [4.0] * 16
    module.sgemm_chain(a, b, out, 2, 4, 8, False, False, 2, False, True)   # out's 4 added after 2 terms
    assert out.tolist() == [8.0] * 16
    bad = [
        ((a, b, out, 2, 4, 8, False, False, 5, False, False), "bad sizes"),        # split past k
        ((a, b, out, 2, 4, 8, False, False, 0, False, False), "bad sizes"),
        ((a, b, out, 2, 4, 8, False, False, 4, False, 3), "accumulate 3"),
        ((a, b, out, 0, 4, 8, False, False, 4, False, False), "bad sizes"),
        ((a, b, out, 2, -4, 8, False, False, 4, False, False), "bad sizes"),
        ((a, b, out, 2**40, 2**40, 8, False, False, 4, False, False), "bad sizes"),  # m * k would overflow
        ((a, b, out, 3, 4, 8, False, False, 4, False, False), "expected 12 items"),  # a too short
        ((a, b[:31], out, 2, 4, 8, False, False, 4, False, False), "expected 32 items"),
        ((a, b, np.zeros(17, F32), 2, 4, 8, False, False, 4, False, False), "expected 16 items"),
        ((a.astype(np.float64), b, out, 2, 4, 8, False, False, 4, False, False), "format 'f'"),
        ((a, b, out.astype(np.float64), 2, 4, 8, False, False, 4, False, False), "format 'f'"),
        ((np.ones((4, 2), F32).T, b, out, 2, 4, 8, False, False, 4, False, False), "C-contiguous"),
        ((a, b, np.zeros(32, F32)[::2], 2, 4, 8, False, False, 4, False, False), "C-contiguous"),
    ]
    ro = np.zeros(16, F32)
    ro.flags.writeable = False
    bad.append(((a, b, ro, 2, 4, 8, False, False, 4, False, False), "writable"))
    shared = np.zeros(48, F32)
    bad.append(((a, shared[:32], shared[16:32], 2, 4, 8, False, False, 4, False, False), "overlap"))
    bad.append(((shared[8:16], b, shared[:16], 2, 4, 8, False, False, 4, False, False), "overlap"))
    for args, words in bad:
        before = out.copy()
        with pytest.raises(ValueError, match=words):
            module.sgemm_chain(*args)
        assert out.tolist() == before.tolist()


def test_without_c_the_numpy_chains_run(monkeypatch):
    """No C extension (or GRADCLI_NATIVE=0): sgemm computes the same chains in NumPy, below its own
    (lower) work limit; with it, the C kernel takes products up to MAX_WORK_NATIVE."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((8, 40)).astype(F32), rng.standard_normal((40, 24)).astype(F32)
    monkeypatch.setattr(gemm_avx2, "_module", [None])
    got = gemm_avx2.sgemm(a, b)
    assert got.view(np.int32).tolist() == _reference(a, b, 8, ((0, 40),)).view(np.int32).tolist()
    big_a = np.zeros((64, 128), F32)
    big_b = np.zeros((128, 64), F32)     # 2**19 multiply-adds: past the NumPy chains' limit
    assert gemm_avx2.sgemm(big_a, big_b) is None
    calls = []

    class Fake:
        @staticmethod
        def sgemm_chain(*args):
            calls.append(args[3:9] + args[10:])

    monkeypatch.setattr(gemm_avx2, "_module", [Fake])
    assert gemm_avx2.sgemm(big_a, big_b).shape == (64, 64) and calls == [(64, 128, 64, False, False, 128, False)]
    assert gemm_avx2.sgemm(np.zeros((512, 128), F32), np.zeros((128, 512), F32)) is None  # past MAX_WORK_NATIVE


def test_what_it_leaves_to_numpy(monkeypatch):
    monkeypatch.setattr(gemm_avx2, "active", lambda: True)
    rng = np.random.default_rng(0)

    def mat(*shape, dtype=F32):
        return rng.standard_normal(shape).astype(dtype)

    assert gemm_avx2.gemm(mat(4, 8), mat(8, 11)) is None          # n < 12, row-major: another dot kernel
    assert gemm_avx2.gemm(mat(4, 6), mat(11, 6).T).shape == (4, 11)    # the dot kernel, k not a multiple of 4
    assert gemm_avx2.gemm(mat(1, 8), mat(21, 8).T).shape == (1, 21)   # one row: MKL's sgemv, past the groups too
    assert gemm_avx2.gemm(mat(5, 8), mat(1, 8).T).shape == (5, 1)      # one column: sgemv too
    assert gemm_avx2.gemm(mat(41)[1:].reshape(5, 8), mat(1, 8).T) is None  # its groups of four off 16 bytes
    assert gemm_avx2.gemm(mat(25)[1:].reshape(3, 8), mat(1, 8).T) is not None  # no group of four: any offset
    assert gemm_avx2.gemm(mat(5, 8), mat(9)[1:].reshape(8, 1)) is None  # the vector off 16 bytes
    assert gemm_avx2.gemm(mat(4, 8), mat(1, 8).T, alpha=2) is None    # sgemv's alpha: not measured
    assert gemm_avx2.gemm(mat(1, 8), mat(8, 5), mat(5)) is None   # the column-major sgemv's C: not measured
    assert gemm_avx2.gemm(mat(1, 8), mat(8, 1)) is None           # one element: not measured
    assert gemm_avx2.mv(mat(6, 8), mat(8)).shape == (6,)          # rows past the groups of four
    assert gemm_avx2.mv(mat(8, 8), mat(16)[::2]) is None          # a strided vector
    assert gemm_avx2.gemm(mat(1, 8), mat(20, 8).T).shape == (1, 20)
    assert gemm_avx2.mv(mat(8, 6), mat(6)).shape == (8,)
    assert gemm_avx2.gemm(mat(6, 20), mat(20, 21)) is None        # the rows past four, unaligned: not followed
    assert gemm_avx2.gemm(mat(6, 20), mat(20, 20), alpha=2) is None    # their alpha: not measured
    assert gemm_avx2.gemm(mat(3, 9)[:, 1:], mat(10, 8).T) is None  # rows not contiguous
    flat = mat(4 * 8 + 1)
    assert gemm_avx2.gemm(flat[1:].reshape(4, 8), mat(10, 8).T).shape == (4, 10)  # rows peeled to 16 bytes
    assert gemm_avx2.gemm(flat.view(np.uint8)[2:-2].view(F32).reshape(4, 8), mat(10, 8).T) is None  # off floats
    assert gemm_avx2.gemm(flat[:-1].reshape(4, 8), mat(10, 8).T).shape == (4, 10)
    assert gemm_avx2.dot(flat[1:9], flat[:8]) is None             # at other offsets modulo 16 bytes
    assert gemm_avx2.dot(flat[1:9], flat[9:17]) is not None       # at the same one
    assert gemm_avx2.dot(mat(8192), mat(8192)) is None            # MKL's threads split it
    assert gemm_avx2.gemm(mat(512, 2048), mat(10, 2048).T) is None  # past the dot kernel's work limits (bench case 4)
    assert gemm_avx2.dot(mat(0), mat(0)) is None
    assert gemm_avx2.dot(mat(8)[::2], mat(4)) is None             # strided
    assert gemm_avx2.dot(mat(8, dtype=np.float64), mat(8, dtype=np.float64)) is None
    assert gemm_avx2.gemm(mat(4, 1), mat(1, 16)) is None          # k = 1: ATen's own product
    assert gemm_avx2.gemm(mat(4, 193), mat(193, 16)) is None      # odd k past 192
    assert gemm_avx2.gemm(mat(4, 400), mat(400, 16)) is None      # k past 384
    assert gemm_avx2.gemm(mat(6, 8), mat(8, 21)) is None          # m < 12 and not a multiple of 4, n neither
    assert gemm_avx2.gemm(mat(2, 8), mat(8, 21)) is None
    assert gemm_avx2.gemm(mat(0, 3), mat(3, 16)) is None          # no rows (an RNN over an empty sequence)
    assert gemm_avx2.gemm(mat(8, 6).T, mat(8, 21)) is None
    assert gemm_avx2.gemm(mat(8, 4).T, mat(8, 16).T) is None      # both transposed
    assert gemm_avx2.gemm(mat(4, 8, dtype=np.float64), mat(8, 16, dtype=np.float64)) is None
    assert gemm_avx2.gemm(mat(4, 8), mat(8, 16), alpha=0) is None     # BLAS reads neither operand
    assert gemm_avx2.gemm(mat(4, 8), mat(8, 16), mat(16, dtype=np.float64)) is None
    assert gemm_avx2.gemm(mat(4, 8), mat(8, 16), mat(15)) is None     # addmm's own error path
    assert gemm_avx2.bmm(mat(2, 4, 8), mat(2, 8, 12)) is None         # < 400 multiply-adds: ATen's loop
    assert gemm_avx2.bmm(mat(2, 4, 8), mat(2, 8, 11)) is None         # n < 12, row-major
    assert gemm_avx2.bmm(mat(2, 4, 8, dtype=np.float64), mat(2, 8, 16, dtype=np.float64)) is None
    assert gemm_avx2.bmm(mat(2, 4, 8), mat(2, 8, 16)).shape == (2, 4, 16)
    out = gemm_avx2.gemm(mat(4, 8), mat(8, 16))
    assert out is not None and out.shape == (4, 16) and out.dtype == F32
    monkeypatch.setattr(gemm_avx2, "active", lambda: False)        # on another CPU: NumPy's (or MKL's) product
    assert gemm_avx2.gemm(mat(4, 8), mat(8, 16)) is None
    assert gemm_avx2.gemm(mat(4, 8), mat(10, 8).T) is None
    assert gemm_avx2.dot(mat(8), mat(8)) is None


def _mkl_avx2_torch():
    torch = pytest.importorskip("torch")
    if not gemm_avx2.active():
        pytest.skip("the emulation runs on AVX2 CPUs without AVX-512 only (MKL's AVX2 kernels)")
    return torch


def test_random_products_against_torch():
    torch = _mkl_avx2_torch()
    rng = np.random.default_rng(5)
    bad, done = [], 0
    for i in range(90):
        layout = ("NN", "NT", "TN")[i % 3]
        m = int(rng.choice([4 * rng.integers(1, 4), rng.integers(12, 48)]))
        k = int(rng.choice([rng.integers(2, 24), rng.integers(24, 300)]))
        n = int(rng.integers(16, 90))
        a = rng.standard_normal((m, k)).astype(F32)
        b = rng.standard_normal((k, n)).astype(F32)
        ta = torch.from_numpy(a) if layout != "TN" else torch.from_numpy(np.ascontiguousarray(a.T)).t()
        tb = torch.from_numpy(b) if layout != "NT" else torch.from_numpy(np.ascontiguousarray(b.T)).t()
        got = gemm_avx2.sgemm(ta.numpy(), tb.numpy())
        if got is None:
            continue
        done += 1
        want = torch.mm(ta, tb).numpy()
        if got.view(np.int32).tolist() != want.view(np.int32).tolist():
            bad.append((layout, m, k, n))
    assert done >= 30 and not bad, bad


def _assert_linear_steps_match(torch, api, rng, shapes):
    """F.linear's output and both gradients, through torch and the engine, the same bits for each
    (batch, fan_in, fan_out) of shapes (inputs drawn from rng)."""
    for batch, fan_in, fan_out in shapes:
        x = rng.standard_normal((batch, fan_in)).astype(F32)
        w = rng.standard_normal((fan_out, fan_in)).astype(F32)
        bias = rng.standard_normal(fan_out).astype(F32)
        g = rng.standard_normal((batch, fan_out)).astype(F32)
        results = []
        for lib in (torch, api):
            tx, tw = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
            y = lib.nn.functional.linear(tx, tw, lib.tensor(bias))
            y.backward(lib.tensor(g))
            results.append([np.asarray(v.detach().numpy()).view(np.int32).tolist() for v in (y, tw.grad, tx.grad)])
        assert results[0] == results[1], (batch, fan_in, fan_out)


def test_linear_layer_against_torch():
    """F.linear (addmm with the bias added to the rounded product) and its gradients, through the engine."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    # n >= 16 everywhere; fan_in past 192: the bias added between k's halves
    _assert_linear_steps_match(torch, api, np.random.default_rng(8),
                               ((4, 16, 128), (16, 32, 16), (12, 20, 24), (8, 24, 64), (16, 200, 32), (12, 380, 16)))


def test_large_products_against_torch(native_module):
    """Up to MAX_WORK_NATIVE multiply-adds (the C chains' limit), as a Linear layer's backward in bench case 4:
    (512, 10) @ (10, 2048)."""
    torch = _mkl_avx2_torch()
    native_module("gemm")
    rng = np.random.default_rng(9)
    for m, k, n, layout in ((512, 10, 2048, "NN"), (256, 300, 128, "TN"), (64, 384, 600, "NT"), (20, 191, 1500, "NN"),
                            (256, 2048, 10, "NT"), (3, 4096, 600, "NT")):  # MKL's dot-product kernel in C
        a = rng.standard_normal((m, k)).astype(F32)
        b = rng.standard_normal((k, n)).astype(F32)
        ta = torch.from_numpy(a) if layout != "TN" else torch.from_numpy(np.ascontiguousarray(a.T)).t()
        tb = torch.from_numpy(b) if layout != "NT" else torch.from_numpy(np.ascontiguousarray(b.T)).t()
        got = gemm_avx2.sgemm(ta.numpy(), tb.numpy())
        assert got is not None and np.array_equal(got.view(np.int32), torch.mm(ta, tb).numpy().view(np.int32)), (m, k, n)


def test_addmm_scales_and_batches_against_torch():
    """addmm's beta and alpha (alpha scales mat2 before the chains; beta * input is added after the first
    chain, which with k past 192 is before the second half's: the plain bias of a wide Linear too), bmm
    and matmul of batches (each matrix as mm), through the engine."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    rng = np.random.default_rng(14)
    bad, done = [], 0
    for i in range(20):
        m = int(rng.choice([4 * rng.integers(1, 5), rng.integers(12, 40)]))
        k = int(rng.choice([rng.integers(2, 150), 2 * rng.integers(97, 190)]))
        n = int(rng.integers(16, 70))
        a, b = rng.standard_normal((m, k)).astype(F32), rng.standard_normal((k, n)).astype(F32)
        c = rng.standard_normal((n,) if i % 2 else (m, n)).astype(F32)
        beta, alpha = [(0.3, 0.7), (0, 1.3), (1, -2.1), (1.7, 1), (1, 1)][i % 5]
        if beta == 0:
            c[..., 0] = np.nan  # not read
        outs = [lib.addmm(lib.tensor(c), lib.tensor(a), lib.tensor(b), beta=beta, alpha=alpha).numpy() for lib in (torch, api)]
        done += 1
        if not np.array_equal(outs[0].view(np.int32), np.asarray(outs[1]).view(np.int32)):
            bad.append(("addmm", m, k, n, beta, alpha))
    for i in range(9):
        bs, m, k, n = int(rng.integers(1, 5)), int(4 * rng.integers(1, 6)), int(rng.integers(8, 100)), int(rng.integers(16, 50))
        a, b = rng.standard_normal((bs, m, k)).astype(F32), rng.standard_normal((bs, k, n)).astype(F32)
        for name, call in (("bmm", lambda lib: lib.bmm(lib.tensor(a), lib.tensor(b))),
                           ("matmul", lambda lib: lib.matmul(lib.tensor(a), lib.tensor(b))),
                           ("bmm of a transposed batch",
                            lambda lib: lib.bmm(lib.tensor(a), lib.tensor(np.ascontiguousarray(b.transpose(0, 2, 1))).transpose(1, 2)))):
            outs = [call(lib).numpy() for lib in (torch, api)]
            done += 1
            if not np.array_equal(outs[0].view(np.int32), np.asarray(outs[1]).view(np.int32)):
                bad.append((name, bs, m, k, n))
    assert done == 47 and not bad, bad


def _conv_reference(x, w, bias, pad):
    """oneDNN's AVX2 direct convolution, element by element: from the bias, exact fma32 steps over the
    channels in blocks of eight, each block by kernel row, column, channel."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.empty((n, o, oh, ow), F32)
    for idx in np.ndindex(n, o, oh, ow):
        b, q, y, z = idx
        acc = F32(0) if bias is None else bias[q]
        for c0 in range(0, c, 8):
            for i in range(kh):
                for j in range(kw):
                    for ic in range(c0, min(c, c0 + 8)):
                        acc = F32(rng_math.fma32(w[q, ic, i, j], xp[b, ic, y + i, z + j], acc))
        out[idx] = acc
    return out


@pytest.mark.parametrize("with_c", [False, True])
def test_onednn_convolution_is_its_reference(with_c, monkeypatch, request):
    monkeypatch.setattr(gemm_avx2, "active", lambda: True)
    if with_c:
        request.getfixturevalue("native_module")("gemm")
    else:
        monkeypatch.setattr(gemm_avx2, "_module", [None])
    rng = np.random.default_rng(4)
    for n, c, h, o, k, pad, bias in ((2, 3, 5, 4, 3, 1, True), (1, 10, 4, 5, 2, 0, False), (2, 9, 4, 3, 3, 1, True)):
        x = rng.standard_normal((n, c, h, h + 1)).astype(F32)
        w = rng.standard_normal((o, c, k, k)).astype(F32)
        b = rng.standard_normal(o).astype(F32) if bias else None
        got = gemm_avx2.conv2d(x, w, b, (pad, pad), True)
        assert np.array_equal(got.view(np.int32), _conv_reference(x, w, b, pad).view(np.int32)), (n, c, h, o, k)
    assert gemm_avx2.conv2d(x, w[:, :, :1, :1], b, (0, 0), True) is None       # 1x1: another oneDNN kernel
    assert gemm_avx2.conv2d(x.astype(np.float64), w.astype(np.float64), None, (0, 0), True) is None


def _input_grad_reference(g, w, pad, size):
    """oneDNN's AVX2 backward-data order, element by element (up to 16 output channels): a chain from +0
    over blocks of eight, each by kernel row, column (ascending), channel."""
    n, o, oh, ow = g.shape
    _, c, kh, kw = w.shape
    gp = np.pad(g, ((0, 0), (0, 0), (kh - 1 - pad, kh - 1 - pad), (kw - 1 - pad, kw - 1 - pad)))
    out = np.empty((n, c) + size, F32)
    for b, ic, y, z in np.ndindex(n, c, *size):
        total = None
        for c0 in range(0, o, 32):
            acc = F32(0)
            for o0 in range(c0, min(o, c0 + 32), 8):
                for i in range(kh):
                    for j in range(kw):
                        for oc in range(o0, min(o, o0 + 8)):
                            acc = F32(rng_math.fma32(w[oc, ic, i, j], gp[b, oc, y + kh - 1 - i, z + kw - 1 - j], acc))
            total = acc if total is None else F32(total + acc)
        out[b, ic, y, z] = total
    return out


@pytest.mark.parametrize("with_c", [False, True])
def test_onednn_input_gradient_is_its_reference(with_c, monkeypatch, request):
    monkeypatch.setattr(gemm_avx2, "active", lambda: True)
    if with_c:
        request.getfixturevalue("native_module")("gemm")
    else:
        monkeypatch.setattr(gemm_avx2, "_module", [None])
    rng = np.random.default_rng(6)
    assert gemm_avx2.conv2d_input_grad(np.zeros((1, 17, 3, 3), F32), np.zeros((17, 2, 2, 2), F32), (0, 0), (4, 4)) is None
    for n, c, h, o, k, pad in ((2, 3, 4, 5, 3, 1), (1, 2, 3, 16, 2, 0), (2, 1, 4, 9, 3, 0)):
        w = rng.standard_normal((o, c, k, k)).astype(F32)
        size = (h, h + 1)
        g = rng.standard_normal((n, o, h + 2 * pad - k + 1, h + 2 + 2 * pad - k)).astype(F32)
        got = gemm_avx2.conv2d_input_grad(g, w, (pad, pad), size)
        assert np.array_equal(got.view(np.int32), _input_grad_reference(g, w, pad, size).view(np.int32)), (n, c, h, o, k)


@pytest.mark.parametrize("with_c", [False, True])
def test_onednn_weight_and_bias_gradients_are_their_reference(with_c, monkeypatch, request):
    """One chain over (image, row, column) per weight; with one block of eight input and output channels
    on two threads, the images' halves' chains added (the bias: one block of outputs)."""
    monkeypatch.setattr(gemm_avx2, "active", lambda: True)
    if with_c:
        request.getfixturevalue("native_module")("gemm")
    else:
        monkeypatch.setattr(gemm_avx2, "_module", [None])
    rng = np.random.default_rng(7)
    for n, c, o, k, pad in ((3, 2, 4, 3, 1), (2, 9, 3, 2, 0), (3, 2, 10, 3, 1)):
        x = rng.standard_normal((n, c, 4, 5)).astype(F32)
        g = rng.standard_normal((n, o, 4 + 2 * pad - k + 1, 5 + 2 * pad - k + 1)).astype(F32)
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        halves = o <= 8 and c <= 8
        cut = (n + 1) // 2 if halves else n
        want = np.empty((o, c, k, k), F32)
        for q, ic, i, j in np.ndindex(o, c, k, k):
            parts = []
            for lo, hi in ((0, cut), (cut, n)):
                acc = F32(0)
                for b, y, z in np.ndindex(hi - lo, g.shape[2], g.shape[3]):
                    acc = F32(rng_math.fma32(g[lo + b, q, y, z], xp[lo + b, ic, y + i, z + j], acc))
                parts.append(acc)
            want[q, ic, i, j] = parts[0] if cut == n else F32(parts[0] + parts[1])
        got = gemm_avx2.conv2d_weight_grad(x, g, (k, k), (pad, pad), 2)
        assert np.array_equal(got.view(np.int32), want.view(np.int32)), (n, c, o, k)
        if halves:
            assert gemm_avx2.conv2d_weight_grad(x, g, (k, k), (pad, pad), 1) is None   # not measured
        cut = (n + 1) // 2 if o <= 8 else n
        want_b = np.empty(o, F32)
        for q in range(o):
            parts = []
            for lo, hi in ((0, cut), (cut, n)):
                acc = F32(0)
                for v in g[lo:hi, q].reshape(-1):
                    acc = F32(acc + v)
                parts.append(acc)
            want_b[q] = parts[0] if cut == n else F32(parts[0] + parts[1])
        assert np.array_equal(gemm_avx2.conv2d_bias_grad(g, 2).view(np.int32), want_b.view(np.int32))


def test_conv1d_against_torch():
    """F.conv1d: ATen's conv2d of height 1 (oneDNN's for a batch, slow_conv2d's sgemm for one image)."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    rng = np.random.default_rng(12)
    for n, c, length, o, k, pad in ((33, 16, 30, 20, 5, 0), (4, 3, 20, 8, 3, 1), (2, 12, 9, 16, 2, 1), (1, 4, 25, 8, 3, 1)):
        x = rng.standard_normal((n, c, length)).astype(F32)
        w = rng.standard_normal((o, c, k)).astype(F32)
        b = rng.standard_normal(o).astype(F32)
        outs = []
        for lib in (torch, api):
            tx, tw, tb = (lib.tensor(v, requires_grad=True) for v in (x, w, b))
            y = lib.nn.functional.conv1d(tx, tw, tb, padding=pad)
            y.backward(lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(F32)))
            outs.append([np.asarray(v.numpy()).view(np.int32) for v in (y.detach(), tx.grad, tw.grad, tb.grad)])
        # oneDNN's gradients: the input's up to 16 channels, the bias's up to 8 images
        checked = [0] if n == 1 else [0, 2] if o > 16 and n > 8 else [0, 1, 2, 3]
        for i in checked:
            assert np.array_equal(outs[0][i], outs[1][i]), (n, c, length, o, k, ("output", "input", "weight", "bias")[i])


def test_convolutions_against_torch():
    """conv2d through the engine: oneDNN's direct convolution where ATen's use_mkldnn picks it (a batch,
    kernels past 3x3, large inputs), slow_conv2d's sgemm per image elsewhere (one small image), both bit
    for bit; d2l's LeNet layers among them."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    rng = np.random.default_rng(10)
    bad = []
    cases = [(8, 1, 28, 28, 6, 5, 5, 2, True), (8, 6, 14, 14, 16, 5, 5, 0, True), (1, 3, 12, 12, 8, 5, 5, 2, True),
             (2, 32, 6, 6, 16, 3, 3, 1, True), (2, 5, 9, 7, 13, 3, 5, (1, 2), True), (3, 9, 6, 8, 40, 2, 2, (0, 1), False),
             (1, 2, 120, 120, 4, 3, 3, 1, True),                                    # one image past 20480 values: oneDNN
             (1, 4, 5, 5, 8, 3, 3, 1, False), (1, 3, 10, 10, 12, 3, 3, 0, True), (1, 5, 12, 12, 16, 3, 2, 1, True)]
    cases += [(3, 9, 6, 8, 40, 2, 2, (0, 1), False), (2, 3, 5, 5, 130, 3, 3, 1, True),
              (5, 2, 4, 4, 8, 2, 2, 0, True), (7, 1, 5, 5, 4, 3, 3, 1, True), (4, 16, 5, 5, 6, 3, 3, 1, True)]  # halves
    for n, c, h, wd, o, kh, kw, pad, bias in cases:
        x = rng.standard_normal((n, c, h, wd)).astype(F32)
        w = rng.standard_normal((o, c, kh, kw)).astype(F32)
        b = rng.standard_normal(o).astype(F32) if bias else None
        outs = []
        for lib in (torch, api):
            tx, tw = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
            tb = lib.tensor(b, requires_grad=True) if b is not None else None
            y = lib.nn.functional.conv2d(tx, tw, tb, padding=pad)
            y.backward(lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(F32)))
            outs.append((y.detach().numpy(), tx.grad.numpy(), tw.grad.numpy()) + ((tb.grad.numpy(),) if b is not None else ()))
        if not np.array_equal(outs[0][0].view(np.int32), np.asarray(outs[1][0]).view(np.int32)):
            bad.append(("forward", n, c, h, wd, o, kh, kw, pad))
        onednn = n > 1 or (kh > 3 and kw > 3) or n * c * h * wd > 20480   # the gradients: oneDNN's only
        for i in range(1 if o <= 16 else 2, len(outs[0]) if onednn else 1):  # the input's: 16 channels at most
            if not np.array_equal(outs[0][i].view(np.int32), np.asarray(outs[1][i]).view(np.int32)):
                bad.append((("input", "weight", "bias")[i - 1] + " gradient", n, c, h, wd, o, kh, kw, pad))
    assert not bad, bad


def _dot_reference(a, b, first=0):
    """MKL's AVX2 dot-product kernel per element (gemm_dot's note), written out: float32 lanes from +0; a's
    first element `first` floats past 16 bytes, each row's products up to its next 16 bytes into lane 0
    first."""
    m, k = a.shape
    n = b.shape[1]
    out = np.empty((m, n), F32)
    for i in range(m):
        peel = min((4 - (first + i * k) % 4) % 4, k)
        for j in range(n):
            width = 4 if j < n - n % 4 else 8
            lanes = [F32(0)] * width
            for kk in range(peel):
                lanes[0] = F32(lanes[0] + F32(a[i, kk] * b[kk, j]))
            end = peel + (k - peel) // width * width
            for kk in range(peel, end):
                lanes[(kk - peel) % width] = F32(lanes[(kk - peel) % width] + F32(a[i, kk] * b[kk, j]))
            if width == 4:
                r = F32(F32(lanes[0] + lanes[2]) + F32(lanes[1] + lanes[3]))
            else:
                r = F32(F32(F32(lanes[0] + lanes[4]) + F32(lanes[2] + lanes[6]))
                        + F32(F32(lanes[1] + lanes[5]) + F32(lanes[3] + lanes[7])))
            for kk in range(end, k):
                r = F32(r + F32(a[i, kk] * b[kk, j]))
            out[i, j] = r
    return out


def _sdot_reference(x, y, peel):
    k = len(x)
    lanes = [F32(0)] * 16
    i = 0
    for _ in range(min(peel, k)):
        lanes[0] = F32(lanes[0] + F32(x[i] * y[i]))
        i += 1
    for width in (16,) * ((k - i) // 16) + (8, 4):
        if k - i >= width:
            for lane in range(width):
                lanes[lane] = F32(lanes[lane] + F32(x[i + lane] * y[i + lane]))
            i += width
    for j in range(i, k):
        lanes[0] = F32(lanes[0] + F32(x[j] * y[j]))
    q = [F32(F32(F32(lanes[r] + lanes[r + 4]) + lanes[r + 8]) + lanes[r + 12]) for r in range(4)]
    return F32(F32(q[0] + q[2]) + F32(q[1] + q[3]))


@pytest.mark.parametrize("m, k, n", [(2, 4, 3), (3, 12, 10), (5, 20, 7), (2, 44, 17), (7, 36, 5), (4, 8, 1 + 1),
                                     (3, 2, 5), (5, 7, 6), (6, 13, 9), (4, 30, 11), (9, 37, 4)])
def test_dot_kernel_is_its_reference(m, k, n):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    for first in range(4):  # a's rows at every offset modulo 16 bytes
        buf = (rng.standard_normal(m * k + first) * 2.0 ** rng.integers(-8, 9, m * k + first)).astype(F32)
        w = rng.standard_normal((n, k)).astype(F32)
        got = gemm_dot.dot_rows(buf[first:].reshape(m, k), w.T)
        assert got.view(np.int32).tolist() == _dot_reference(buf[first:].reshape(m, k), w.T, first).view(
            np.int32).tolist(), first
    a = (rng.standard_normal((m, k)) * 2.0 ** rng.integers(-8, 9, (m, k))).astype(F32)
    w = rng.standard_normal((n, k)).astype(F32)
    c = rng.standard_normal((m, n)).astype(F32)
    got = gemm_dot.dot_rows(a, w.T, c, 1.5)
    want = (_dot_reference(a, w.T) * F32(1.5)).astype(F32) + c
    assert got.view(np.int32).tolist() == want.view(np.int32).tolist()
    # products of -0.0 only: the lanes start from +0
    assert not np.signbit(gemm_dot.dot_rows(-np.zeros((m, k), F32), np.ones((n, k), F32).T)).any()


@pytest.mark.parametrize("k", [1, 3, 4, 7, 8, 15, 16, 17, 29, 31, 45, 100, 257])
def test_sdot_is_its_reference(k):
    rng = np.random.default_rng(k)
    for off in range(4):
        row = (k + 7) // 4 * 4   # rows of a multiple of 16 bytes: both at off * 4 bytes modulo 16
        buf = (rng.standard_normal((2, row)) * 2.0 ** rng.integers(-8, 9, (2, row))).astype(F32)
        x, y = buf[0, off:off + k], buf[1, off:off + k]
        got = gemm_dot.sdot(x, y)
        assert got.dtype == F32 and got.shape == ()
        assert got.view(np.int32) == _sdot_reference(x, y, (4 - off) % 4).view(np.int32), off


def test_dot_kernel_against_torch():
    """MKL's dot-product kernel: input @ weight.t() with n < 12 columns (every row), m = 2 or 3 rows (every
    row), the rows past the last group of four when m < 12 (the groups: the chains), addmm's beta and alpha,
    small products MKL chains entirely (gemm_dot.small_chains); k not a multiple of 4 and the input's rows at
    any offset (each row's products up to its next 16 bytes summed apart first) in the second half."""
    torch = _mkl_avx2_torch()
    rng = np.random.default_rng(21)
    bad, done = [], 0
    for i in range(240):
        kind = i % 4
        if kind == 0:
            m, n = int(rng.integers(2, 70)), int(rng.integers(2, 12))
        elif kind == 1:
            m, n = int(rng.integers(2, 4)), int(rng.integers(2, 120))
        else:
            m, n = int(rng.choice([5, 6, 7, 9, 10, 11])), int(rng.integers(12, 120))
        k = 4 * int(rng.integers(1, 5 if kind == 3 else 100))
        first = 0
        if i >= 120:
            k, first = int(rng.choice([rng.integers(2, 17), rng.integers(17, 400)])), int(rng.integers(0, 4))
        buf = (rng.standard_normal(m * k + first) * 2.0 ** rng.integers(-4, 5, m * k + first)).astype(F32)
        a = buf[first:].reshape(m, k)
        w = rng.standard_normal((n, k)).astype(F32)
        bias = rng.standard_normal(n).astype(F32)
        beta, alpha = ((1, 1), (1, 1), (0.5, 1.7), (0, 3))[i % 4 if i % 8 < 4 else 0]
        got = gemm_avx2.gemm(a, w.T, bias, beta, alpha)
        if got is None:
            continue
        done += 1
        want = torch.addmm(torch.from_numpy(bias), torch.from_numpy(buf)[first:].view(m, k), torch.from_numpy(w).t(),
                           beta=beta, alpha=alpha).numpy()
        if got.view(np.int32).tolist() != want.view(np.int32).tolist():
            bad.append((m, k, n, first, beta, alpha))
    assert done >= 200 and not bad, bad


def test_sdot_against_torch():
    """torch.dot and matmul of vectors (MKL's sdot), views at every offset, through the engine."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    rng = np.random.default_rng(22)
    bad = []
    for i in range(80):
        k = int(rng.integers(1, 80)) if i % 2 else int(rng.integers(80, 8192))
        off = int(rng.integers(0, 8))
        x = (rng.standard_normal(k + off) * 2.0 ** rng.integers(-6, 7, k + off)).astype(F32)
        y = rng.standard_normal(k + off).astype(F32)
        got = gemm_avx2.dot(x[off:], y[off:])
        want = torch.dot(torch.from_numpy(x)[off:], torch.from_numpy(y)[off:]).numpy()
        ex, ey = api.tensor(x), api.tensor(y)
        through = [api.dot(ex[off:], ey[off:]).numpy(), api.matmul(ex[off:], ey[off:]).numpy()]
        if got is None or any(v.view(np.int32) != want.view(np.int32) for v in [got] + through):
            bad.append((k, off))
    assert not bad, bad


def test_c_dot_kernel_is_the_numpy_one(native_module):
    """csrc/gemm.c's sgemm_dot against gemm_dot.dot_rows' NumPy passes, bit for bit (every remainder of n
    modulo 4 and of k modulo 8, rows at every offset, -0.0 products, with C and alpha), and what it refuses."""
    module = native_module("gemm")
    rng = np.random.default_rng(23)
    shapes = [(1, 4, 1), (2, 4, 3), (3, 8, 4), (5, 12, 5), (2, 28, 11), (7, 36, 6)]
    shapes += [(int(rng.integers(1, 30)), 4 * int(rng.integers(1, 90)), int(rng.integers(1, 40))) for _ in range(30)]
    shapes += [(int(rng.integers(1, 30)), int(rng.integers(1, 300)), int(rng.integers(1, 40))) for _ in range(30)]
    for i, (m, k, n) in enumerate(shapes):
        first = i % 4  # a's rows at every offset modulo 16 bytes (each peeled up to its next 16 bytes)
        a = (rng.standard_normal(m * k + first) * 2.0 ** rng.integers(-9, 10, m * k + first)).astype(F32)
        a = a[first:].reshape(m, k)
        w = rng.standard_normal((n, k)).astype(F32)
        if i % 5 == 0:
            a[:, : k // 2] = -0.0
        c, alpha = (rng.standard_normal((m, n)).astype(F32), 0.75) if i % 2 else (None, 1)
        want = gemm_dot.dot_rows(a, w.T, None if c is None else c.copy(), alpha)
        got = gemm_dot.dot_rows(a, w.T, None if c is None else c.copy(), alpha, module)
        assert got.view(np.int32).tolist() == want.view(np.int32).tolist(), (m, k, n)
    a, w, out = np.ones(8, F32), np.ones(12, F32), np.zeros(6, F32)
    module.sgemm_dot(a, w, out, 2, 4, 3)
    assert out.tolist() == [4.0] * 6
    shared = np.zeros(24, F32)
    for args, words in (((a, w, out, 2, 4, 3, 4), "bad sizes"), ((a, w, out, 0, 4, 3), "bad sizes"),
                        ((a, w, out, 2, 4, 3, -1), "bad sizes"), ((a, w, out, 2, 6, 3), "expected 12"),
                        ((a, w, out, 2**40, 2**40, 3), "bad sizes"), ((a, w[:11], out, 2, 4, 3), "expected 12"),
                        ((a, w, out[:5], 2, 4, 3), "expected 6"), ((a, shared[:12], shared[6:12], 2, 4, 3), "overlap"),
                        ((a.astype(np.float64), w, out, 2, 4, 3), "format 'f'")):
        before = out.copy()
        with pytest.raises(ValueError, match=words):
            module.sgemm_dot(*args)
        assert out.tolist() == before.tolist()


def test_narrow_linear_layers_against_torch():
    """F.linear's forward through the engine where MKL runs its dot-product kernel (fewer than 12 outputs,
    a batch of 2 or 3, the rows past the last group of four), bias added after the product."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    rng = np.random.default_rng(24)
    for batch, fan_in, fan_out in ((64, 16, 10), (5, 32, 10), (2, 8, 4), (3, 100, 40), (10, 64, 2), (7, 128, 20),
                                   (32, 784, 10), (9, 12, 14)):
        x = rng.standard_normal((batch, fan_in)).astype(F32)
        w = rng.standard_normal((fan_out, fan_in)).astype(F32)
        bias = rng.standard_normal(fan_out).astype(F32)
        ys = [lib.nn.functional.linear(lib.tensor(x), lib.tensor(w), lib.tensor(bias)).numpy() for lib in (torch, api)]
        assert ys[0].view(np.int32).tolist() == np.asarray(ys[1]).view(np.int32).tolist(), (batch, fan_in, fan_out)


def test_plain_rows_against_torch():
    """A row-major second operand: n < 12 or m < 4 with n a multiple of 4 (every row), the rows past the last
    group of four when m < 12 (n a multiple of 4, or one such row): plain float32 sums in k's order from MKL's
    C (addmm's beta * input); a Linear layer's gradients (grad_output.t() @ input, grad_output @ weight)."""
    torch = _mkl_avx2_torch()
    rng = np.random.default_rng(25)
    bad, done = [], 0
    for i in range(120):
        layout = ("NN", "TN")[i % 2]
        m = int(rng.choice([2, 3, 5, 6, 7, 9, 10, 11, int(rng.integers(4, 70))]))
        n = int(rng.choice([4, 8, 4 * rng.integers(3, 30), rng.integers(12, 90)]))
        k = int(rng.choice([rng.integers(2, 24), rng.integers(24, 500)]))
        a = (rng.standard_normal((m, k)) * 2.0 ** rng.integers(-4, 5, (m, k))).astype(F32)
        b = rng.standard_normal((k, n)).astype(F32)
        bias = rng.standard_normal(n).astype(F32)
        ta = torch.from_numpy(a) if layout == "NN" else torch.from_numpy(np.ascontiguousarray(a.T)).t()
        got = gemm_avx2.gemm(ta.numpy(), b, bias if i % 3 else None)
        if got is None:
            continue
        done += 1
        want = (torch.addmm(torch.from_numpy(bias), ta, torch.from_numpy(b)) if i % 3 else ta @ torch.from_numpy(b)).numpy()
        if got.view(np.int32).tolist() != want.view(np.int32).tolist():
            bad.append((layout, m, k, n))
    assert done >= 80 and not bad, bad


def test_classifier_layer_steps_against_torch():
    """A Linear(hidden, 10) layer's forward and both gradients, through the engine, where every product is
    one that this module follows (hidden a multiple of 4; batches of the three kinds)."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    _assert_linear_steps_match(torch, api, np.random.default_rng(26),
                               ((64, 32, 10), (5, 16, 10), (10, 64, 10), (3, 20, 10), (13, 100, 9), (32, 48, 8)))


def test_gemv_against_torch():
    """MKL's sgemv: torch.mv of a row-major matrix (rows in groups of four) and of a column-major one,
    Linear(k, 1) on a batch and Linear(k, n) on one sample (with their bias), a vector @ a row-major
    matrix, through the engine with the layers' gradients."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    rng = np.random.default_rng(27)
    bad, done = [], 0
    for i in range(100):
        kind = i % 5
        k = int(rng.choice([rng.integers(2, 20), rng.integers(20, 600)]))
        r = int(4 * rng.integers(1, 30))
        a = (rng.standard_normal((r, k)) * 2.0 ** rng.integers(-4, 5, (r, k))).astype(F32)
        x = rng.standard_normal(k).astype(F32)
        bias = rng.standard_normal(r).astype(F32)
        ta, tx = torch.from_numpy(a), torch.from_numpy(x)
        ea, ex = api.tensor(a), api.tensor(x)
        if kind == 0:
            want, got = torch.mv(ta, tx), api.mv(ea, ex)
        elif kind == 1:
            want, got = torch.mv(ta.t().contiguous().t(), tx), api.matmul(ea.t().contiguous().t(), ex)
        elif kind == 2:
            want = torch.nn.functional.linear(ta, tx[None], torch.from_numpy(bias[:1]))
            got = api.nn.functional.linear(ea, ex.unsqueeze(0), api.tensor(bias[:1]))
        elif kind == 3:
            want = torch.nn.functional.linear(tx[None], ta, torch.from_numpy(bias))
            got = api.nn.functional.linear(ex.unsqueeze(0), ea, api.tensor(bias))
        else:
            want, got = tx @ ta.t().contiguous(), ex @ ea.t().contiguous()
        done += 1
        if np.asarray(got.numpy()).view(np.int32).tolist() != want.numpy().view(np.int32).tolist():
            bad.append((kind, r, k))
    assert done == 100 and not bad, bad
    _assert_linear_steps_match(torch, api, rng, ((8, 3, 1), (2000, 3, 1), (20, 13, 1), (1, 16, 8), (1, 33, 12)))


@pytest.mark.parametrize("k", [2, 3, 4, 5, 8, 9, 17, 64])
def test_gemv_rows_is_its_reference(k):
    rng = np.random.default_rng(k)
    a = (rng.standard_normal((8, k)) * 2.0 ** rng.integers(-8, 9, (8, k))).astype(F32)
    x = rng.standard_normal(k).astype(F32)
    peel = k - 4 * ((k - 1) // 4)
    for i, got in enumerate(gemm_dot.gemv_rows(a, x)):
        lanes = [F32(0)] * 4
        for kk in range(peel):
            lanes[0] = F32(lanes[0] + F32(a[i, kk] * x[kk]))
        for kk in range(peel, k):
            lanes[(kk - peel) % 4] = F32(lanes[(kk - peel) % 4] + F32(a[i, kk] * x[kk]))
        assert got.view(np.int32) == F32(F32(lanes[0] + lanes[2]) + F32(lanes[1] + lanes[3])).view(np.int32)


def _gemv_tail_reference(row, x, position):
    """One row past sgemv's groups of four, element by element: the first min(k, 4) products in order from +0,
    then 8 * ((k - 4) // 8) products in eight lanes (four for the second row past the groups), the rest one
    by one."""
    k = row.shape[0]
    p = [F32(row[i] * x[i]) for i in range(k)]
    acc = F32(0)
    for i in range(min(k, 4)):
        acc = F32(acc + p[i])
    main = 8 * ((k - 4) // 8) if k >= 12 else 0
    if main:
        width = 4 if position == 1 else 8
        lanes = [acc] + [F32(0)] * (width - 1)
        for i in range(main):
            lanes[i % width] = F32(lanes[i % width] + p[4 + i])
        if width == 8:
            lanes = [F32(lanes[j] + lanes[j + 4]) for j in range(4)]
        acc = F32(F32(lanes[0] + lanes[2]) + F32(lanes[1] + lanes[3]))
    for i in range(4 + main, k):
        acc = F32(acc + p[i])
    return acc


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 11, 12, 13, 19, 20, 21, 35, 64])
def test_gemv_tail_is_its_reference(k):
    rng = np.random.default_rng(100 + k)
    a = (rng.standard_normal((3, k)) * 2.0 ** rng.integers(-8, 9, (3, k))).astype(F32)
    x = rng.standard_normal(k).astype(F32)
    a[2, :] = -0.0  # a row of -0.0 products: +0 (the sums start from +0)
    got = gemm_dot.gemv_tail(a, x)
    assert got.dtype == F32 and got.shape == (3,)
    for j in range(3):
        assert got[j].view(np.int32) == _gemv_tail_reference(a[j], x, j).view(np.int32), (k, j)
    assert got[2].view(np.int32) == 0


def test_gemv_tail_rows_against_torch():
    """MKL's sgemv for the rows past the last group of four (1 to 3 of them, the only rows of 2 or 3): torch.mv
    of row-major matrices at every offset of their rows (with groups of four, the matrix on 16 bytes: MKL
    peels otherwise, left to NumPy), d2l's linear regression from scratch (X (10, 2) @ w
    (2, 1) + b) and Linear(k, 1) on odd batches with their gradients, through the engine; a vector off 16
    bytes is left to NumPy (MKL peels it)."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    rng = np.random.default_rng(28)
    bad = []
    for i in range(150):
        k = int(rng.choice([rng.integers(1, 24), rng.integers(24, 700)]))
        m = int(4 * rng.integers(0, 8) + rng.integers(1, 4))
        off = int(rng.integers(0, 4))
        buf = (rng.standard_normal(m * k + off) * 2.0 ** rng.integers(-6, 7, m * k + off)).astype(F32)
        x = rng.standard_normal(k).astype(F32)
        want = torch.mv(torch.from_numpy(buf)[off:].view(m, k), torch.from_numpy(x)).numpy()
        got = api.mv(api.tensor(buf)[off:].view(m, k), api.tensor(x)).numpy()
        direct = gemm_avx2.mv(buf[off:].reshape(m, k), x)
        if (direct is None) != (m == 1 or k == 1 or m >= 4 and off > 0) or direct is not None and any(
                np.asarray(v).view(np.int32).tolist() != want.view(np.int32).tolist() for v in (got, direct)):
            bad.append((m, k, off))
    assert not bad, bad
    xs = rng.standard_normal(9).astype(F32)
    assert gemm_avx2.mv(rng.standard_normal((6, 8)).astype(F32), xs[1:]) is None  # x 4 bytes past 16
    assert gemm_avx2.mv(rng.standard_normal((6, 8)).astype(F32), xs[:8]) is not None
    x, w = rng.standard_normal((10, 2)).astype(F32), rng.standard_normal((2, 1)).astype(F32)
    results = []
    for lib in (torch, api):
        tw, tb = lib.tensor(w, requires_grad=True), lib.tensor([0.25], requires_grad=True)
        y = lib.matmul(lib.tensor(x), tw) + tb
        (y * y).sum().backward()
        results.append([np.asarray(v.detach().numpy()).view(np.int32).tolist() for v in (y, tw.grad, tb.grad)])
    assert results[0] == results[1]
    _assert_linear_steps_match(torch, api, rng, ((10, 2, 1), (7, 13, 1), (6, 40, 1), (3, 100, 1), (2, 12, 1)))
