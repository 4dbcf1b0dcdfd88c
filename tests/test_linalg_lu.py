"""LU with partial pivoting (gradcli/engine/ops/linalg_lu.py): LAPACK's getf2 and getrs conventions without
torch (pivots, info, the partial factor of a singular matrix, the permutation), and, where torch is installed,
the bits of the factors and solves against torch's MKL on the sizes measured (docs/numerics.md, "LU"),
the gradients against torch's, and the argument doors of a script against torch's messages."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as torch_like
from gradcli.engine.ops import linalg_lu as LL
from gradcli.lang.runner import run_source


def test_getf2_pivots_info_and_factors():
    a = np.array([[2., 1., 1.], [4., -6., 0.], [-2., 7., 2.]])
    lu, piv, info = LL.getrf(a)
    assert piv.tolist() == [2, 2, 3] and info == 0  # a tie (|4| and |4|): the first row
    L, U = LL.unpack_arrays(lu)
    P = LL.permutation(piv, 3, a.dtype)
    np.testing.assert_allclose(P @ L @ U, a, rtol=1e-15, atol=1e-15)
    assert np.all(np.abs(np.tril(L, -1)) <= 1)  # partial pivoting: multipliers at most 1 in size


def test_getf2_singular_info_and_continues():
    a = np.array([[0., 1.], [0., 3.]])  # a zero column: no swap, no scaling, info names it, the rest factored
    lu, piv, info = LL.getrf(a)
    assert info == 1 and piv.tolist() == [1, 2]
    assert lu.tolist() == [[0., 1.], [0., 3.]]
    _, _, info = LL.getrf(np.stack([np.eye(2), np.zeros((2, 2))]))
    assert info.tolist() == [0, 1]


def test_idamax_nan_rules():
    assert LL.getrf(np.array([[np.nan, 1.], [2., 3.]]))[1].tolist() == [1, 2]  # a NaN first wins
    assert LL.getrf(np.array([[1., 1.], [np.nan, 3.]]))[1].tolist() == [1, 2]  # a NaN later is never larger


@pytest.mark.parametrize("m,n", [(3, 2), (2, 3), (4, 4), (1, 3)])
def test_permutation_and_unpack_shapes(m, n):
    rng = np.random.default_rng(m * 10 + n)
    a = rng.standard_normal((2, m, n))
    lu, piv, _ = LL.getrf(a)
    L, U = LL.unpack_arrays(lu)
    P = LL.permutation(piv, m, a.dtype)
    assert L.shape == (2, m, min(m, n)) and U.shape == (2, min(m, n), n) and P.shape == (2, m, m)
    np.testing.assert_allclose(P @ L @ U, a, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("left,adjoint", [(True, False), (True, True), (False, False), (False, True)])
def test_lu_solve_arrays_solves(left, adjoint):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 5, 5)) + 3 * np.eye(5)
    b = rng.standard_normal((2, 5, 3)) if left else rng.standard_normal((2, 3, 5))
    lu, piv, _ = LL.getrf(a)
    x = LL.lu_solve_arrays(lu, piv, b, left, adjoint)
    op = np.swapaxes(a, -1, -2) if adjoint else a
    np.testing.assert_allclose(op @ x if left else x @ op, b, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------- against torch

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_factors_bit_equal_to_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    for _ in range(400):  # square up to 12 (MKL's small kernels included), wide and tall, batches
        m, n = (int(v) for v in rng.integers(1, 13, 2))
        if rng.random() < 0.5:
            m = n
        a = rng.standard_normal((2, m, n)).astype(dtype)
        LU, piv = torch.linalg.lu_factor(torch.from_numpy(a))
        lu, mp, info = LL.getrf(a)
        assert np.array_equal(lu, LU.numpy()), (m, n)
        assert np.array_equal(mp, piv.numpy()) and not info.any()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("left,adjoint,exact_to", [(True, False, 7), (False, True, 7), (True, True, 4),
                                                   (False, False, 4)])
def test_solves_against_torch(dtype, left, adjoint, exact_to):
    """Bit-equal on the sizes whose order was measured (getrs without transpose up to 7 by 7, with it up to 4
    by 4); beyond them MKL blocks and unrolls otherwise: close, not equal (docs/numerics.md)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    for _ in range(120):
        n, k = int(rng.integers(1, 10)), int(rng.integers(1, 4))
        a = rng.standard_normal((2, n, n)).astype(dtype) + 2 * np.eye(n, dtype=dtype)
        b = rng.standard_normal((2, n, k) if left else (2, k, n)).astype(dtype)
        LU, piv = torch.linalg.lu_factor(torch.from_numpy(a))
        want = torch.linalg.lu_solve(LU, piv, torch.from_numpy(b), left=left, adjoint=adjoint).numpy()
        got = LL.lu_solve_arrays(LU.numpy(), piv.numpy(), b, left, adjoint)
        if n <= exact_to:
            assert np.array_equal(got, want), n
        else:
            np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == "float32" else 1e-12, atol=1e-5)


_CALLS = {
    "lu_factor": lambda t, a, b: t.linalg.lu_factor(a).LU,
    "lu_factor_wide": lambda t, a, b: t.linalg.lu_factor(a[:2]).LU,
    "linalg_lu": lambda t, a, b: t.linalg.lu(a)[1:],
    "linalg_lu_tall": lambda t, a, b: t.linalg.lu(a[:, :2])[1:],
    "linalg_lu_only_L": lambda t, a, b: t.linalg.lu(a).L,
    "lu_unpack": lambda t, a, b: t.lu_unpack(a, t.linalg.lu_factor(a.detach()).pivots)[1:],
    "lu_unpack_wide_U": lambda t, a, b: t.lu_unpack(a[:2], t.linalg.lu_factor(a[:2].detach()).pivots).U,
    "lu_solve": lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b),
    "lu_solve_adjoint": lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b, adjoint=True),
    "lu_solve_right": lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b.mT, left=False),
    "torch_lu_solve": lambda t, a, b: t.lu_solve(b, *t.lu(a)),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(_CALLS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_match_torch(name, dtype):
    """Forward and gradients against torch: the backward's products and triangular solves are MKL's gemm and
    trsm in torch, whose orders gradcli follows only in part, hence a tolerance (float32: 1e-5 relative)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(name))
    a = rng.standard_normal((3, 3)) + 2 * np.eye(3)
    b = rng.standard_normal((3, 2))
    w = rng.uniform(-2, 2, 64)
    results = []
    for lib in (torch, torch_like):
        dt = getattr(lib, dtype)
        ta = lib.tensor(a.tolist(), dtype=dt, requires_grad=True)
        tb = lib.tensor(b.tolist(), dtype=dt, requires_grad=True)
        outs = _CALLS[name](lib, ta, tb)
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        loss = sum((o * lib.tensor(w[:o.numel()].reshape(tuple(o.shape)).tolist(), dtype=dt)).sum() for o in outs)
        loss.backward()
        names = [type(o.grad_fn).__name__ for o in outs]
        grads = [np.array(t.grad.tolist()) if t.grad is not None else None for t in (ta, tb)]
        results.append(([np.array(o.detach().tolist()) for o in outs], grads, names))
    (tv, tg, tn), (gv, gg, gn) = results
    assert gn == tn
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-12}
    for x, y in zip(gv, tv):
        np.testing.assert_allclose(x, y, **tol)
    for x, y in zip(gg, tg):
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_allclose(x, y, **tol)


_DOORS = [
    "torch.linalg.lu_factor(print)", "torch.linalg.lu_factor(lambda: 1)", "torch.linalg.lu_factor([[1.0]])",
    "torch.linalg.lu_factor(A, pivot='yes')", "torch.linalg.lu_factor(A, pivot=print)",
    "torch.linalg.lu_factor_ex(A, check_errors='no')", "torch.linalg.lu(object())", "torch.linalg.lu(A, pivot=1)",
    "torch.lu('A')", "torch.lu(A, pivot=str)", "A.lu(pivot='x')", "torch.lu_unpack(LU, 'p')",
    "torch.lu_unpack(print, piv)", "torch.lu_unpack(LU, piv, unpack_data='x')",
    "torch.linalg.lu_solve(LU, piv, 'B')", "torch.linalg.lu_solve(LU, [1, 2], B)", "torch.linalg.lu_solve(str, piv, B)",
    "torch.linalg.lu_solve(LU, piv, B, left='no')", "torch.linalg.lu_solve(LU, piv, B, adjoint=len)",
    "torch.lu_solve(B, 'LU', piv)", "torch.lu_solve(lambda x: x, LU, piv)", "B.lu_solve('LU', piv)",
    "B.lu_solve(LU, print)",
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("call", _DOORS)
def test_argument_doors_give_torchs_type_errors(call):
    """Strings, builtins, lambdas, lists and objects where a Tensor or a bool goes: torch's TypeError, located,
    never an internal error."""
    torch = pytest.importorskip("torch")
    setup = ("import torch\nA = torch.tensor([[2.0, 1.0], [4.0, 3.0]])\nLU, piv = torch.linalg.lu_factor(A)\n"
             "B = torch.ones(2, 1)\n")
    namespace = {"torch": torch}
    exec(setup.replace("import torch\n", ""), namespace)  # noqa: S102 - the test's own fixed text, under real torch
    try:
        eval(call, namespace)  # noqa: S307 - the test's own fixed text, under real torch
    except Exception as e:  # noqa: BLE001 - whatever torch raises is the expectation
        want = f"{type(e).__name__}: {e}"
    else:
        pytest.fail(f"torch accepted {call}")
    result = run_source(setup + call + "\n")
    assert result.error is not None and result.error.line == 5
    assert f"{result.error.type_name}: {result.error.message}" == want
