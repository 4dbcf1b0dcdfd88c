"""csrc/blas.c (gradcli._native_blas) and engine/numpy_blas.py: mm(a, b) is NumPy's `a @ b`, bit for bit, or None
(then NumPy's `@` runs); the Linear backward's products through it give the same gradients as NumPy's `@`."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as torch
from gradcli.engine import numpy_blas
from gradcli.engine.ops import linalg

nn, F = torch.nn, torch.nn.functional


@pytest.fixture
def mm(native_module):
    module = native_module("blas")
    where = numpy_blas.numpy_blas()
    if where is None:
        pytest.skip("NumPy's BLAS is not the bundled scipy-openblas: csrc/blas.c has no library to call")
    path, ilp64 = where
    suffix = "64_" if ilp64 else ""
    assert module.setup(path, f"scipy_cblas_sgemm{suffix}", f"scipy_cblas_dgemm{suffix}", ilp64)
    return module.mm


def _same(r, want):
    return r.dtype == want.dtype and r.shape == want.shape and r.flags.c_contiguous and r.tobytes() == want.tobytes()


def _layout(rng, x):
    """x as C, F, a column or row slice of a wider array, or a transposed copy: the layouts NumPy hands to BLAS
    (or copies first)."""
    kind = rng.integers(0, 5)
    if kind == 1:
        return np.asfortranarray(x)
    if kind == 2:
        wide = np.zeros((x.shape[0], x.shape[1] + 3), x.dtype)
        wide[:, 1:1 + x.shape[1]] = x
        return wide[:, 1:1 + x.shape[1]]
    if kind == 3:
        tall = np.zeros((x.shape[0] + 2, x.shape[1]), x.dtype).T.copy().T
        tall[2:] = x
        return tall[2:]
    if kind == 4:
        return x.T.copy().T
    return x


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_mm_is_numpys_matmul(mm, dt):
    rng = np.random.default_rng(2113)
    computed = 0
    for _ in range(1500):
        m, k, p = (int(v) for v in rng.integers(1, 40, 3))
        if rng.random() < 0.1:
            m, k, p = (int(v) for v in rng.integers(1, 300, 3))
        a = _layout(rng, (rng.standard_normal((m, k)) * 10.0 ** rng.integers(-3, 4)).astype(dt))
        b = _layout(rng, rng.standard_normal((k, p)).astype(dt))
        r = mm(a, b)
        if min(m, k, p) < 2:
            assert r is None  # NumPy's gemv, dot or own loop
            continue
        assert r is not None, (a.shape, a.strides, b.shape, b.strides)
        assert _same(r, a @ b), (a.shape, a.strides, b.shape, b.strides)
        computed += 1
    assert computed > 1000


def test_mm_declines_what_numpy_does_otherwise(mm):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 6)).astype(np.float32)
    assert mm(a, a.T) is None  # a matrix times its transpose: NumPy's syrk
    assert _same(mm(a, a), a @ a)
    assert mm(a[:, ::2], a[::2]) is None  # not blasable: NumPy copies first
    assert mm(a[::-1], a) is None
    assert mm(a, a.astype(np.float64)) is None
    for other in (np.float16, np.int32, np.int64, np.complex64, ">f4"):
        x = a.astype(other)
        assert mm(x, x) is None
    assert mm(a.view(np.matrix), a) is None
    assert mm(a[None], a) is None and mm(a[0], a) is None
    assert mm(a, rng.standard_normal((5, 3)).astype(np.float32)) is None  # shapes that do not multiply: @'s error
    raw = np.zeros(6 * 6 * 4 + 1, np.uint8)[1:].view(np.float32).reshape(6, 6)  # one byte off its items
    raw[...] = a
    assert mm(raw, a) is None
    assert mm([[1.0, 2.0], [3.0, 4.0]], a[:2, :2]) is None and mm(None, 3) is None
    with pytest.raises(TypeError):
        mm(a)


def test_mm_kernel_is_decided_once_and_checked(native_module, monkeypatch):
    native_module("blas")
    monkeypatch.setattr(numpy_blas, "MM_KERNEL", [])
    kernel = numpy_blas.mm_kernel()
    if numpy_blas.numpy_blas() is None:
        assert kernel is None
        return
    assert kernel is not None and numpy_blas.MM_KERNEL == [kernel]
    assert not numpy_blas._agrees(lambda a, b: a @ b + 0 * a[:1, :1].sum() + np.float32(1e-3))
    monkeypatch.setenv("GRADCLI_NATIVE", "0")
    from gradcli import native
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.setattr(numpy_blas, "MM_KERNEL", [])
    assert numpy_blas.mm_kernel() is None


def _grads(layers, x, y):
    for lin in layers:
        lin.weight.grad = lin.bias.grad = None
    x.grad = None
    h = x
    for i, lin in enumerate(layers):
        h = lin(h)
        if i < len(layers) - 1:
            h = torch.relu(h)
    F.mse_loss(h, y).backward()
    return [t.grad._data.tobytes() for lin in layers for t in (lin.weight, lin.bias)] + [x.grad._data.tobytes()]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_backward_with_mm_is_numpys(mm, monkeypatch, dtype):
    rng = np.random.default_rng(7)
    for sizes, batch in [((10, 5, 2), 32), ((7, 9, 3), 5), ((3, 40, 4, 1), 300), ((2, 2, 2), 2), ((16, 33, 12), 64)]:
        layers = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            lin = nn.Linear(fan_in, fan_out).to(torch.float32 if dtype == np.float32 else torch.float64)
            layers.append(lin)
        x = torch.from_numpy(rng.standard_normal((batch, sizes[0])).astype(dtype)).requires_grad_(True)
        y = torch.from_numpy(rng.standard_normal((batch, sizes[-1])).astype(dtype))
        calls = []
        monkeypatch.setattr(linalg, "_BLAS_MM", [lambda a, b: calls.append(1) or mm(a, b)])
        with_mm = _grads(layers, x, y)
        monkeypatch.setattr(linalg, "_BLAS_MM", [None])
        with_numpy = _grads(layers, x, y)
        assert with_mm == with_numpy, sizes
        # the seeds' loop's products are NumPy's (narrow: the gemm slot's MKL order leaves them); float64's all are
        assert calls or (dtype == np.float32 and sizes[1] > 12), sizes
