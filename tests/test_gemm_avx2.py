"""engine/gemm_avx2.py: MKL's AVX2 sgemm order for small float32 products (docs/numerics.md).

Without torch: the kernel against a per-element reference (one exact fma32 chain per element, or plain
float32 products and sums), and what it leaves to NumPy. With torch on an AVX2 machine without AVX-512
(where the engine uses it): random products of the domain against torch.mm bit for bit, and F.linear
through the engine against torch's.
"""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import gemm_avx2, rng_math

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
def test_kernel_is_its_reference(m, k, n, fused_rows, halves):
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


def test_what_it_leaves_to_numpy(monkeypatch):
    monkeypatch.setattr(gemm_avx2, "active", lambda: True)
    rng = np.random.default_rng(0)

    def mat(*shape, dtype=F32):
        return rng.standard_normal(shape).astype(dtype)

    assert gemm_avx2.gemm(mat(4, 8), mat(8, 15)) is None          # n < 16: another kernel
    assert gemm_avx2.gemm(mat(4, 1), mat(1, 16)) is None          # k = 1: ATen's own product
    assert gemm_avx2.gemm(mat(4, 193), mat(193, 16)) is None      # odd k past 192
    assert gemm_avx2.gemm(mat(4, 400), mat(400, 16)) is None      # k past 384
    assert gemm_avx2.gemm(mat(6, 8), mat(8, 20)) is None          # m < 12 and not a multiple of 4
    assert gemm_avx2.gemm(mat(2, 8), mat(8, 20)) is None
    assert gemm_avx2.gemm(mat(8, 6).T, mat(8, 20)) is None
    assert gemm_avx2.gemm(mat(8, 4).T, mat(8, 16).T) is None      # both transposed
    assert gemm_avx2.gemm(mat(4, 8, dtype=np.float64), mat(8, 16, dtype=np.float64)) is None
    assert gemm_avx2.gemm(mat(4, 8), mat(8, 16), mat(16), beta=2) is None
    assert gemm_avx2.gemm(mat(4, 8), mat(8, 16), alpha=2) is None
    out = gemm_avx2.gemm(mat(4, 8), mat(8, 16))
    assert out is not None and out.shape == (4, 16) and out.dtype == F32
    monkeypatch.setattr(gemm_avx2, "active", lambda: False)        # on another CPU: NumPy's (or MKL's) product
    assert gemm_avx2.gemm(mat(4, 8), mat(8, 16)) is None


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


def test_linear_layer_against_torch():
    """F.linear (addmm with the bias added to the rounded product) and its gradients, through the engine."""
    torch = _mkl_avx2_torch()
    from gradcli.engine import api  # noqa: PLC0415

    rng = np.random.default_rng(8)
    for batch, fan_in, fan_out in ((4, 16, 128), (16, 32, 16), (12, 20, 24), (8, 24, 64)):  # n >= 16 everywhere
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
