"""csrc/gemm.c's sgemm_auto: gemm_avx2.gemm's decision and product for a Linear layer's layouts in one C call.

Wherever it answers an array, gemm_avx2.gemm's Python code (the general path, with sgemm_auto taken away)
answers the same bits; where it answers None, gemm runs that code. Random shapes of every class (MKL's
dot-product kernel, the chains, the chains with the last rows in the dot-product order, two halves of k,
past the limits), a's offsets from its base array, every form of bias, and the operands it must leave to
the Python code (other layouts, dtypes, classes, objects that are no arrays). No torch: the Python path's
bits are checked against torch in tests/test_gemm_avx2.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import gemm_avx2, gemm_dot

F32 = np.float32


@pytest.fixture
def auto(native_module, monkeypatch):
    """(sgemm_auto, general): the C call, and gemm_avx2.gemm without it (its Python decisions), both as if
    on an AVX2 machine."""
    module = native_module("gemm")
    monkeypatch.setattr(gemm_avx2, "active", lambda: True)
    monkeypatch.setattr(gemm_avx2, "_module", [module])

    def general(a, b, c=None):
        saved = list(gemm_avx2._auto_of)
        gemm_avx2._auto_of[:] = module, None
        try:
            return gemm_avx2.gemm(a, b, c)
        finally:
            gemm_avx2._auto_of[:] = saved
    return module.sgemm_auto, general


def _class(m, k, n):
    if n < gemm_avx2.MIN_COLUMNS or m < 4:
        return "dot"
    if m % 4 and m < 12 and not gemm_dot.small_chains(k, n):
        return "mixed"
    return "halves" if k > 192 else "chains"


def _declines(m, k, n):
    kind, work = _class(m, k, n), m * k * n
    if kind == "dot":
        return work > gemm_dot.MAX_WORK_NATIVE
    return k > 384 or (k > 192 and k % 2 == 1) or work > (gemm_dot.MAX_WORK if kind == "mixed" else gemm_avx2.MAX_WORK_NATIVE)


def _matrix(rng, rows, cols, first=0, transposed=False):
    """float32 (rows, cols): row-major starting `first` floats into a base array, or a transposed row-major
    matrix; some -0.0 and tie-prone values."""
    x = (rng.standard_normal(rows * cols + first) * 2.0 ** rng.integers(-6, 7, rows * cols + first)).astype(F32)
    if rng.random() < 0.3:
        x = (np.round(x * 4) / 4).astype(F32)
    x[rng.random(x.shape) < 0.05] = -0.0
    if transposed:
        return x[first:].reshape(cols, rows).T
    return x[first:].reshape(rows, cols)


def _same(got, want):
    return got.dtype == want.dtype and got.shape == want.shape and got.flags.c_contiguous \
        and got.view(np.int32).tolist() == want.view(np.int32).tolist()


def test_auto_is_the_general_path(auto):
    sgemm_auto, general = auto
    rng = np.random.default_rng(2026)
    shapes = [(32, 10, 5), (32, 5, 2), (2, 3, 40), (3, 17, 12), (4, 8, 12), (5, 20, 14), (9, 12, 14), (7, 36, 30),
              (6, 3, 13), (13, 7, 16), (16, 200, 12), (8, 201, 12), (4, 385, 12), (12, 384, 20), (11, 5, 100),
              (2, 2, 2), (64, 784, 10), (1000, 100, 200), (64, 700, 11), (40, 300, 12)]
    for _ in range(160):
        m = int(rng.choice([2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 32]))
        k = int(rng.choice([2, 3, 4, 5, 7, 8, 9, 10, 16, 17, 31, 64, 100, 193, 194, 256, 383, 384, 386]))
        n = int(rng.choice([2, 3, 4, 5, 7, 8, 11, 12, 13, 16, 17, 20, 33, 64, 101]))
        shapes.append((m, k, n))
    decided = {"dot": 0, "mixed": 0, "halves": 0, "chains": 0}
    for i, (m, k, n) in enumerate(shapes):
        first = i % 4
        a = _matrix(rng, m, k, first)
        b = _matrix(rng, k, n, transposed=True)  # weight.t()
        biases = [None, _matrix(rng, 1, n)[0], _matrix(rng, m, n)]
        for c in biases:
            got = sgemm_auto(a, b, c)
            want = general(a, b, None if c is None else c.copy())
            if got is not None:
                assert want is not None and _same(got, want), (m, k, n, first, None if c is None else c.shape)
                decided[_class(m, k, n)] += 1
            else:  # declined: only past a limit or outside the measured domain
                assert _declines(m, k, n), (m, k, n)
            whole = gemm_avx2.gemm(a, b, c)  # with sgemm_auto: the same answer
            assert (whole is None) == (want is None) and (whole is None or _same(whole, want))
    assert min(decided.values()) > 5, decided


def test_auto_leaves_the_rest_to_the_python_code(auto):
    sgemm_auto, general = auto
    rng = np.random.default_rng(7)
    a, b = _matrix(rng, 32, 10), _matrix(rng, 10, 5, transposed=True)
    bias = _matrix(rng, 1, 5)[0]
    assert sgemm_auto(a, b, bias) is not None
    wide = np.zeros(10, F32)
    wide[::2] = bias
    declined = [
        (np.ascontiguousarray(a.T).T, b, bias),         # a column-major
        (a, np.ascontiguousarray(b), bias),              # b row-major (plain_rows, or NumPy's)
        (a[:, ::2], b[::2], bias),                       # strided
        (a.astype(np.float64), b.astype(np.float64), bias.astype(np.float64)),
        (a.astype(">f4"), b, bias),                      # not native float32
        (a[:1], b, bias), (a, b[:, :1], bias[:1]), (a[:, :1], b[:1], bias),  # one row, column or term
        (a, b, bias[None, :]), (a, b, bias[:1]), (a, b, wide[::2]),  # a bias to broadcast, or strided
        (a, b, bias.astype(np.float64)), (a, b[:9], bias),  # mismatched shapes: addmm's own errors
        (a.tolist(), b, bias), (a, memoryview(np.ascontiguousarray(b)), bias), (a, b, bytearray(20)),
        (np.asarray(a).view(np.matrix), b, bias), (a, b, 1.5),
    ]
    for args in declined:
        assert sgemm_auto(*args) is None, [getattr(x, "shape", type(x)) for x in args]
    # a's offset from its base array: whole floats decide, and a start off 4 bytes (a bytes-backed array) too
    raw = bytearray(4 * 320 + 2)
    odd = np.frombuffer(raw, F32, 320, 2).reshape(32, 10)
    odd[...] = a
    got, want = sgemm_auto(odd, b, bias), general(odd, b, bias)
    assert want is not None and _same(got, want)
    with pytest.raises(TypeError):
        sgemm_auto(a, b)
    with pytest.raises(TypeError):
        sgemm_auto(a, b, bias, 1)


def test_auto_limits_are_the_python_ones(native_module):
    limits = native_module("gemm").auto_limits()
    assert limits == {"MIN_COLUMNS": gemm_avx2.MIN_COLUMNS, "MAX_WORK_NATIVE": gemm_avx2.MAX_WORK_NATIVE,
                      "DOT_MAX_WORK_NATIVE": gemm_dot.MAX_WORK_NATIVE, "DOT_MAX_WORK": gemm_dot.MAX_WORK}


def test_gemm_without_the_native_module_skips_auto(monkeypatch):
    monkeypatch.setattr(gemm_avx2, "active", lambda: True)
    monkeypatch.setattr(gemm_avx2, "_module", [None])
    rng = np.random.default_rng(3)
    a, b = _matrix(rng, 32, 10), _matrix(rng, 10, 5, transposed=True)
    r = gemm_avx2.gemm(a, b)  # gemm_dot's NumPy passes
    assert r is not None and gemm_avx2._auto() is None


def test_column_kernel_is_dot_kernel(native_module):
    """csrc/gemm.c's column kernel (columns_body: the dot-product order vectorised across the output's columns,
    for rows shorter than COLUMNS_MAX_K, with and without AVX's encodings) against dot_kernel, the reference
    (sgemm_dot's path 1), bit for bit: every remainder of n modulo 4 and of k modulo 8, every peel (a's start
    modulo 16 bytes), -0.0, inf and nan among the operands; and the same through sgemm_auto's bias add against
    the reference + c."""
    module = native_module("gemm")
    rng = np.random.default_rng(1212)
    shapes = [(32, 10, 5), (32, 5, 2), (1, 1, 1), (2, 3, 4), (5, 31, 9), (7, 32, 3), (3, 33, 5), (4, 64, 7)]
    shapes += [(int(rng.integers(1, 40)), int(rng.integers(1, 40)), int(rng.integers(1, 24))) for _ in range(150)]
    for i, (m, k, n) in enumerate(shapes):
        for first in range(4):
            a = _matrix(rng, m, k, first)
            w = _matrix(rng, n, k)
            if i % 7 == 3:
                a.flat[rng.integers(0, a.size)] = rng.choice([np.inf, -np.inf, np.nan])
            want = np.full((m, n), 7.0, F32)
            module.sgemm_dot(a, w, want, m, k, n, first, 1)
            for path in (0, 2):
                got = np.full((m, n), 7.0, F32)
                module.sgemm_dot(a, w, got, m, k, n, first, path)
                assert got.view(np.int32).tolist() == want.view(np.int32).tolist(), (m, k, n, first, path)
            if m < 2 or k < 2 or n < 2:
                continue
            for c in (_matrix(rng, 1, n)[0], _matrix(rng, m, n)):
                got = module.sgemm_auto(a, w.T, c)
                if got is not None and (n < gemm_avx2.MIN_COLUMNS or m < 4):  # the dot-product order, then + c
                    assert _same(got, want + c), (m, k, n)
    with pytest.raises(ValueError, match="path 3"):
        module.sgemm_dot(np.ones(4, F32), np.ones(4, F32), np.zeros(1, F32), 1, 4, 1, 0, 3)
