"""Cholesky and triangular systems (gradcli/engine/ops/linalg_factor.py): LAPACK's conventions that the
goldens reach only in part (potf2's partial factor and info, potri's signs of zero, trsm's inf on a zero
pivot), and the comparison with torch where it is installed."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as torch_like
from gradcli.engine.ops import linalg_factor as LF


def test_potf2_leaves_what_lapack_leaves():
    a = np.array([[4., 1., 1.], [1., -3., 1.], [1., 1., 5.]])
    L, info = LF.potf2(a)
    assert info == 2
    assert L[0, 0] == 2.0 and L[1, 0] == 0.5
    assert L[1, 1] == -3.0 - 0.25            # the non-positive pivot, unrooted
    assert L[2, 2] == 5.0 and L[2, 1] == 1.0  # the columns after it: A's own lower triangle
    assert np.all(np.triu(L, 1) == 0)


def test_potf2_agrees_with_numpy_on_positive_definite():
    rng = np.random.default_rng(3)
    b = rng.standard_normal((5, 5))
    a = b @ b.T + np.eye(5)
    L, info = LF.potf2(a)
    assert info == 0
    np.testing.assert_allclose(L, np.linalg.cholesky(a), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_arrays_batch_info_and_nan(upper):
    good = np.array([[4., 2.], [2., 3.]])
    bad = np.array([[1., 2.], [2., 1.]])
    nan = np.full((2, 2), np.nan)
    L, info = LF.cholesky_arrays(np.stack([good, bad, nan]), upper)
    assert info.tolist() == [0, 2, 1]
    f = L[0].T if upper else L[0]
    np.testing.assert_allclose(f @ f.T, good)


@pytest.mark.parametrize("upper,left,unit", [(u, le, un) for u in (False, True) for le in (False, True)
                                              for un in (False, True)])
def test_tri_solve_solves(upper, left, unit):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 4, 4)) + 3 * np.eye(4)
    b = rng.standard_normal((2, 4, 3)) if left else rng.standard_normal((2, 3, 4))
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        t = t - np.diagonal(t, 0, -2, -1)[..., None] * np.eye(4) + np.eye(4)
    x = LF.tri_solve(a, b, upper, left, unit)  # only the triangle (and not a unit diagonal) is read
    np.testing.assert_allclose(t @ x if left else x @ t, b, rtol=1e-12, atol=1e-12)


def test_tri_solve_zero_pivot_is_inf_not_an_error():
    x = LF.tri_solve(np.array([[0., 1.], [0., 3.]]), np.ones((2, 1)), True)
    assert np.isinf(x[0, 0]) and x[1, 0] == pytest.approx(1 / 3)


def test_cholesky_inverse_keeps_potris_negative_zeros():
    r = torch_like.cholesky_inverse(torch_like.eye(2))
    assert np.signbit(r._data[0, 1]) and np.signbit(r._data[1, 0])


def test_non_positive_definite_is_a_linalg_error():
    a = torch_like.tensor([[1., 2.], [2., 1.]])
    with pytest.raises(torch_like.linalg.LinAlgError, match=r"leading minor of order 2 is not positive-definite"):
        torch_like.linalg.cholesky(a)
    L, info = torch_like.linalg.cholesky_ex(a)
    assert int(info) == 2 and L.tolist() == [[1.0, 0.0], [2.0, -3.0]]


def test_against_torch_float32_grads():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    b = rng.standard_normal((3, 3))
    a = (b @ b.T + np.eye(3)).astype(np.float32)
    w = rng.standard_normal((3, 3)).astype(np.float32)
    for mod in (torch, torch_like):
        x = mod.tensor(a.tolist(), requires_grad=True)
        W = mod.tensor(w.tolist())
        L = mod.linalg.cholesky(x, upper=True)
        ((L * W).sum() + (mod.cholesky_inverse(L, upper=True) * W).sum()
         + (mod.linalg.solve_triangular(L, W, upper=True, left=False) * W).sum()).backward()
        if mod is torch:
            want = (L.detach().numpy(), x.grad.numpy())
        else:
            got = (L._data, x.grad._data)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["__class__", "R", "reduced ", "x" * 10000, "\x00"])
def test_qr_mode_is_a_closed_choice(mode):
    """linalg.qr's mode is a string from the script: anything but the three names is torch's error."""
    with pytest.raises(RuntimeError, match="qr received unrecognized mode"):
        torch_like.linalg.qr(torch_like.ones(2, 2), mode=mode)


@pytest.mark.parametrize("mode", [1, None, ["r"], torch_like.linalg.qr])
def test_qr_mode_must_be_a_str(mode):
    with pytest.raises(TypeError, match="argument 'mode' must be str"):
        torch_like.linalg.qr(torch_like.ones(2, 2), mode=mode)
