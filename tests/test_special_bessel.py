"""torch.i0 / torch.special.i0e, i1, i1e (gradcli/engine/ops/special_bessel.py): the Cephes expansions' identities
without torch, and bit for bit against torch's ATen kernels where torch is installed (docs/numerics.md)."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as torch_like
from gradcli.engine.ops import special_bessel as SB


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_symmetry_and_scaling(dtype):
    v = np.linspace(0, 20, 201).astype(dtype)
    x = np.concatenate([-v[:0:-1], v])  # exactly symmetric
    i0, i0e, i1, i1e = SB.i0_np(x), SB.i0e_np(x), SB.i1_np(x), SB.i1e_np(x)
    assert abs(SB.i0_np(np.array([0.0], dtype))[0] - 1) <= np.finfo(dtype).eps  # float32: 0.99999994, as torch
    assert SB.i1_np(np.array([0.0], dtype))[0] == 0
    assert np.array_equal(i0, i0[::-1]) and np.array_equal(i1, -i1[::-1])  # even and odd
    rtol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(i0e, np.exp(-np.abs(x.astype(np.float64))) * i0, rtol=rtol)
    np.testing.assert_allclose(i1e, np.exp(-np.abs(x.astype(np.float64))) * i1, rtol=rtol)
    # the Wronskian-like identity of the series: I0'(x) = I1(x), checked by central differences in float64
    if dtype == np.float64:
        h = 1e-6
        np.testing.assert_allclose((SB.i0_np(x + h) - SB.i0_np(x - h)) / (2 * h), i1, rtol=1e-6, atol=1e-8)


def test_edges():
    x = np.array([np.inf, -np.inf, np.nan, 720.0], np.float64)
    # ATen's formula at infinity: exp(inf) * c / sqrt(inf) is nan (as torch prints), past exp's overflow inf
    assert np.isnan(SB.i0_np(x)[:3]).all() and np.isnan(SB.i1_np(x)[:3]).all()
    assert SB.i0_np(x)[3] == np.inf and SB.i1_np(x)[3] == np.inf
    assert SB.i0e_np(x)[:2].tolist() == [0, 0] and np.signbit(SB.i1e_np(x)[1]) and np.isnan(SB.i0e_np(x)[2])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_bit_equal_to_torch(name, dtype):
    torch = pytest.importorskip("torch")
    x = np.concatenate([np.linspace(-30, 30, 40001), [0.0, -0.0, 1e-30, np.inf, -np.inf, np.nan, 88.0, 89.0, 700.0,
                                                      720.0]]).astype(dtype)
    fn = torch.i0 if name == "i0" else getattr(torch.special, name)
    want = fn(torch.from_numpy(x)).numpy()
    got = getattr(SB, name + "_np")(x)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    assert same.all(), x[~same][:5]


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_gradients_bit_equal_to_torch(name):
    torch = pytest.importorskip("torch")
    vals = [-9.5, -3.2, -0.4, 0.0, 1e-9, 0.7, 2.5, 8.0, 12.0]
    out = []
    for lib in (torch, torch_like):
        x = lib.tensor(vals, requires_grad=True)
        fn = lib.i0 if name == "i0" else getattr(lib.special, name)
        (g,) = lib.autograd.grad(fn(x).sum(), x, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x)
        out.append((g.tolist(), g2.tolist(), type(fn(x).grad_fn).__name__))
    assert out[0] == out[1]
