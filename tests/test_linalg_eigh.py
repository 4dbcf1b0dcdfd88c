"""torch.linalg.eigh / eigvalsh (gradcli/engine/ops/linalg_eigh.py): syevd's triangle and NaN conventions, the
backward against finite differences and torch on sign-independent losses, and eig/eigvals' rendered error
(gradcli has no complex dtype)."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as torch_like
from gradcli.engine.ops import linalg_eigh as LE
from gradcli.lang.runner import run_source


def test_only_the_uplo_triangle_is_read():
    a = np.array([[2.0, 99.0], [1.0, 3.0]])
    w_l, _ = LE.eigh_arrays(a, "L")
    w_u, _ = LE.eigh_arrays(a.T, "U")
    np.testing.assert_array_equal(w_l, w_u)
    np.testing.assert_allclose(w_l, np.linalg.eigvalsh(np.array([[2.0, 1.0], [1.0, 3.0]])))


def test_non_finite_in_the_triangle_gives_nans_per_matrix():
    a = np.stack([np.array([[1.0, 0.0], [np.inf, 1.0]]), np.diag([1.0, 2.0])])
    w, v = LE.eigh_arrays(a, "L")
    assert np.isnan(w[0]).all() and np.isnan(v[0]).all()
    assert w[1].tolist() == [1.0, 2.0]
    w, _ = LE.eigh_arrays(a, "U")  # the inf is outside the upper triangle
    assert np.isfinite(w).all()


def _loss(mod, x, wl, wv):
    L, Q = mod.linalg.eigh(x)
    return (L * wl).sum() + ((Q * Q) * wv).sum() + ((Q[:, 0] * wl).sum()) ** 2


def test_backward_against_finite_differences():
    rng = np.random.default_rng(5)
    b = rng.standard_normal((4, 4))
    a = b + b.T
    wl = torch_like.tensor(rng.standard_normal(4).tolist(), dtype=torch_like.float64)
    wv = torch_like.tensor(rng.standard_normal((4, 4)).tolist(), dtype=torch_like.float64)
    x = torch_like.tensor(a.tolist(), dtype=torch_like.float64, requires_grad=True)
    _loss(torch_like, x, wl, wv).backward()
    eps = 1e-6
    num = np.zeros((4, 4))
    for i in range(4):
        for j in range(i + 1):  # only the lower triangle is read: perturb A[i, j] (A[j, i] is ignored)
            d = np.zeros((4, 4))
            d[i, j] = eps
            f = [float(_loss(torch_like, torch_like.tensor((a + s * d).tolist(), dtype=torch_like.float64), wl, wv))
                 for s in (1, -1)]
            num[i, j] = (f[0] - f[1]) / (2 * eps)
    g = x.grad._data
    # torch's gradient is the symmetric one: the derivative along A[i, j] of the lower-triangle function is
    # g[i, j] + g[j, i] off the diagonal
    sym = np.tril(g + g.T, -1) + np.diag(np.diag(g))
    np.testing.assert_allclose(sym, num, rtol=1e-6, atol=1e-6)


def test_against_torch_sign_independent():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    b = rng.standard_normal((2, 5, 5))
    a = b + np.swapaxes(b, -1, -2)
    wl = rng.standard_normal(5)
    for mod in (torch, torch_like):
        x = mod.tensor(a.tolist(), dtype=mod.float64, requires_grad=True)
        L, Q = mod.linalg.eigh(x, UPLO="U")
        ((L * mod.tensor(wl.tolist(), dtype=mod.float64)).sum() + (Q[..., 1, :] ** 2).sum()
         + mod.linalg.eigvalsh(x).pow(2).sum()).backward()
        if mod is torch:
            want = (L.detach().numpy(), (Q * Q).detach().numpy(), x.grad.numpy())
        else:
            got = (L._data, (Q * Q)._data, x.grad._data)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_eig_is_a_rendered_error_naming_the_limitation(name):
    r = run_source(f"import torch\ntorch.linalg.{name}(torch.ones(2, 2))\n")
    assert not r.ok
    assert "gradcli has no complex dtype" in str(r.error) and "torch.linalg.eigh" in str(r.error)
    assert "Traceback" not in str(r.error)


@pytest.mark.parametrize("uplo", ["__class__", "l ", "", "LL", 1, None])
def test_uplo_is_a_closed_choice(uplo):
    r = run_source(f"import torch\ntorch.linalg.eigh(torch.eye(2), UPLO={uplo!r})\n")
    assert not r.ok and "Traceback" not in str(r.error)
