"""torch.linalg.lstsq (its four drivers), torch.linalg.solve_ex and torch.linalg.inv_ex's reports, torch.igamma /
igammac (torch.special.gammainc / gammaincc, the Tensor methods and in-place forms) (helper missing9):
results, shapes, dtypes, grad_fn names and argument errors compared with PyTorch where it is installed, the
gradients (first and second order, every driver, with and without the residuals) compared with torch's, and the
doors they open to a script (rcond, driver, check_errors) tried with what a script could hand them."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from gradcli.engine import api as gc
from gradcli.engine import methods
from tests.case_support import refused_script

methods.load_all()

CALLS = [
    "torch.linalg.lstsq(torch.tensor([[1.,2],[3,4],[5,7]]), torch.tensor([[1.],[0],[2]]))",
    "torch.linalg.lstsq(torch.tensor([[1.,2],[3,4],[5,7]]), torch.tensor([[1.],[0],[2]]), driver='gels')",
    "torch.linalg.lstsq(torch.tensor([[1.,2],[3,4],[5,7]]), torch.tensor([[1.],[0],[2]]), driver='gelsd')",
    "torch.linalg.lstsq(torch.tensor([[1.,2],[3,4],[5,7]]).double(), torch.tensor([1.,0,2]).double(), driver='gelss')",
    "torch.linalg.lstsq(torch.tensor([[1.,2,3],[3,4,1]]), torch.tensor([1.,0]), driver='gels')",
    "torch.linalg.lstsq(torch.tensor([[1.,2,3],[3,4,1]]), torch.tensor([1.,0]), driver='gelsd')",
    "torch.linalg.lstsq(torch.tensor([[1.,2,3],[2,4,6],[1,0,1],[0,1,1]]), torch.tensor([[1.],[2],[3],[4]]), driver='gelsd')",
    "torch.linalg.lstsq(torch.tensor([[1.,2,3],[2,4,6],[1,0,1],[0,1,1]]), torch.tensor([[1.],[2],[3],[4]]))",
    "torch.linalg.lstsq(torch.arange(24.).reshape(2,4,3).sin(), torch.arange(8.).reshape(2,4).cos(), driver='gelsd')",
    "torch.linalg.lstsq(torch.arange(12.).reshape(1,4,3).sin(), torch.arange(16.).reshape(2,4,2).cos(), driver='gelsd')",
    "torch.linalg.lstsq(torch.arange(24.).reshape(2,4,3).sin(), torch.arange(8.).reshape(1,4,2).cos(), driver='gelss')",
    "torch.linalg.lstsq(torch.zeros(3,2), torch.ones(3,1), driver='gels')",
    "torch.linalg.lstsq(torch.zeros(3,2), torch.ones(3,1))",
    "torch.linalg.lstsq(torch.zeros(0,2), torch.ones(0,1))",
    "torch.linalg.lstsq(torch.zeros(3,0), torch.ones(3,1), driver='gelsd')",
    "torch.linalg.lstsq(torch.ones(3,2), torch.ones(3,1), rcond=0.5, driver='gelsd')",
    "torch.linalg.lstsq(torch.ones(3,2), torch.ones(3,1), torch.tensor(1.), driver='gelsd')",
    "torch.linalg.lstsq(torch.ones(3,2), torch.ones(3,1), True, driver='gelsd')",
    "torch.linalg.lstsq(torch.ones(3,2), torch.ones(3,1), 'x')",
    "torch.linalg.lstsq(torch.ones(3,2), torch.ones(3,1), driver=3)",
    "torch.linalg.lstsq(torch.ones(3,2), torch.ones(3,1), driver='__class__')",
    "torch.linalg.lstsq(torch.ones(3,2), torch.ones(3,1), None, None)",
    "torch.linalg.lstsq(torch.ones(3,2), torch.ones(3,1), foo=1)",
    "torch.linalg.lstsq(torch.ones(3,2))",
    "torch.linalg.lstsq(torch.ones(3,2), [1,2,3])",
    "torch.linalg.lstsq([1,2], torch.ones(3,1))",
    "torch.linalg.lstsq(torch.tensor([[1.,0],[0,0],[0,0]]), torch.ones(3,1), driver='gels')",
    "torch.linalg.lstsq(torch.ones(2,4,3), torch.ones(3,2))",
    "torch.linalg.lstsq(torch.ones(2,4,3), torch.ones(4))",
    "torch.linalg.lstsq(torch.ones(2,4,3).int(), torch.ones(2,4,2))",
    "torch.linalg.lstsq(torch.ones(2,4,3).int(), torch.ones(2,4,2).int())",
    "torch.linalg.lstsq(torch.ones(2,4,3), torch.ones(2,4,2).double())",
    "torch.linalg.lstsq(torch.ones(3), torch.ones(3,2))",
    "torch.linalg.lstsq(torch.ones(2,4,3).half(), torch.ones(2,4,2).half())",
    "torch.linalg.lstsq(torch.ones(3,4,3), torch.ones(2,4,2))",
    "torch.linalg.lstsq(torch.ones(2,3,2), torch.ones(3,1), driver='gels')",
    "torch.linalg.solve_ex(torch.tensor([[1.,2],[3,4]]), torch.tensor([1.,2]))",
    "torch.linalg.solve_ex(torch.tensor([[1.,2],[2,4]]), torch.tensor([1.,2]))",
    "torch.linalg.solve_ex(torch.tensor([[[1.,2],[3,4]],[[1.,2],[2,4]]]), torch.tensor([1.,2]))",
    "torch.linalg.solve_ex(torch.tensor([[[1.,2],[3,4]],[[1.,2],[2,4]]]), torch.tensor([[1.,2],[0,1]]), left=False)",
    "torch.linalg.solve_ex(torch.tensor([[1.,2],[2,4]]), torch.tensor([1.,2]), check_errors=True)",
    "torch.linalg.solve_ex(torch.tensor([[[1.,2],[3,4]],[[1.,2],[2,4]]]), torch.tensor([1.,2]), check_errors=True)",
    "torch.linalg.solve_ex(torch.tensor([[1.,2],[3,4]]), torch.tensor([1.,2]), check_errors=1)",
    "torch.linalg.solve_ex(torch.tensor([[1.,2],[3,4]]), torch.tensor([1.,2]), left=None)",
    "torch.linalg.solve_ex(torch.tensor([[1.,2],[3,4]]), torch.tensor([1.,2]), 'x')",
    "torch.linalg.solve_ex(torch.tensor([[1.,2],[3,4]]))",
    "torch.linalg.solve_ex(torch.tensor([[1.,2],[3,4]]), 3)",
    "torch.linalg.solve_ex(torch.ones(2,3), torch.ones(2))",
    "torch.linalg.solve_ex(torch.ones(2,2).int(), torch.ones(2))",
    "torch.linalg.solve_ex(torch.ones(3,3), torch.ones(2))",
    "torch.linalg.solve_ex(torch.zeros(0,0), torch.ones(0))",
    "torch.linalg.inv_ex(torch.tensor([[1.,2],[2,4]]))",
    "torch.linalg.inv_ex(torch.tensor([[[1.,2],[3,4]],[[1.,2],[2,4]]]))",
    "torch.linalg.inv_ex(torch.tensor([[1.,2],[2,4]]), check_errors=True)",
    "torch.linalg.inv_ex(torch.tensor([[[1.,2],[3,4]],[[1.,2],[2,4]]]), check_errors=True)",
    "torch.linalg.inv_ex(torch.tensor([[1.,2],[2,4]]), check_errors=1)",
    "torch.linalg.inv_ex(torch.ones(2,3))",
    "torch.linalg.inv_ex(torch.ones(3))",
    "torch.linalg.inv_ex(torch.ones(2,2).long())",
    "torch.linalg.inv_ex(torch.zeros(0,0))",
    "torch.linalg.inv_ex(torch.eye(2), True)",
    "torch.linalg.solve(torch.zeros(0, 0), torch.ones(0))",
    "torch.linalg.solve(torch.ones(1,1), torch.ones(1), left=False)",
    "torch.linalg.solve_ex(torch.ones(2,1,1), torch.ones(2,1), left=False)",
    "torch.linalg.solve(torch.eye(2), torch.ones(2,2), left=False)",
    "torch.linalg.solve_ex(torch.eye(2), torch.ones(2,2), True)",
    "torch.linalg.solve_ex(torch.eye(2), torch.ones(2,2), True, 1, 2)",
    "torch.linalg.inv_ex(torch.tensor([[2.,1],[1,3]], requires_grad=True))",
    "torch.linalg.solve_ex(torch.tensor([[2.,1],[1,3]], requires_grad=True), torch.ones(2))",
    "torch.linalg.lstsq(torch.tensor([[2.,1],[1,3],[0,1]], requires_grad=True), torch.ones(3))",
    "torch.linalg.lstsq(torch.tensor([[2.,1],[1,3],[0,1]], requires_grad=True), torch.ones(3), driver='gelsd')",
]

IGAMMA_CALLS = [
    "torch.igamma(torch.tensor([0.5, 2., 3., 0., 1.]), torch.tensor([1., 2., 0.5, 1., 0.]))",
    "torch.igammac(torch.tensor([0.5, 2., 3., 0., 1.]), torch.tensor([1., 2., 0.5, 1., 0.]))",
    "torch.special.gammainc(torch.tensor([0.5, 25., -1.]), torch.tensor([[1.], [24.]]))",
    "torch.special.gammaincc(torch.tensor([0.5, 250., float('inf')]).double(), torch.tensor([1., 251., 3.]).double())",
    "torch.tensor([1.5, 2.5]).igamma(torch.tensor([1., 3.]))",
    "torch.tensor([1.5, 2.5]).igammac(torch.tensor([1., 3.]))",
    "torch.tensor([1.5, 2.5]).igamma_(torch.tensor([1., 3.]))",
    "torch.tensor([1.5, 2.5]).igammac_(torch.tensor([1., 3.]))",
    "torch.igamma(torch.tensor([1, 2]), torch.tensor([1, 2]))",
    "torch.igammac(torch.tensor([1, 2]), torch.tensor([1., 2]))",
    "torch.igamma(torch.tensor([1., 2]), 2.)",
    "torch.special.gammainc(torch.tensor([1., 2]), 2.)",
    "torch.igamma(2., torch.tensor([1., 2]))",
    "torch.igamma(torch.tensor([1., 2]), torch.tensor(2., dtype=torch.float64))",
    "torch.igamma(torch.tensor([1., 2]).half(), torch.tensor([1., 2]).half())",
    "torch.igamma(torch.tensor([1., 2]).half(), torch.tensor([1., 2]))",
    "torch.tensor([1, 2]).igamma_(torch.tensor([1., 2]))",
    "torch.tensor([1., 2]).igamma_(torch.tensor([[1., 2]]))",
    "torch.igamma(torch.tensor([1., 2.], requires_grad=True), torch.tensor([1., 3.]))",
    "torch.igamma(torch.tensor([1., 2.]), torch.tensor([1., 3.], requires_grad=True))",
    "torch.igammac(torch.tensor([1., 2.]), torch.tensor([1., 3.], requires_grad=True))",
    "torch.special.gammaincc(torch.tensor([1., 2.]), torch.tensor([1., 3.], requires_grad=True))",
    "torch.autograd.grad(torch.igamma(torch.tensor([1., 2.5, 30.]), x := torch.tensor([1., 3., 29.], requires_grad=True)).sum(), x)",
    "torch.autograd.grad(torch.igammac(torch.tensor([1., 2.5, 30.]).double(), x := torch.tensor([1., 3., 29.], dtype=torch.float64, requires_grad=True)).sum(), x)",
    "torch.autograd.grad(torch.igamma(a := torch.tensor([1., 2.5], requires_grad=True), torch.tensor([1., 3.])).sum(), a)",
    "torch.autograd.grad(torch.igammac(a := torch.tensor([1., 2.5], requires_grad=True), torch.tensor([1., 3.])).sum(), a)",
    "torch.autograd.grad(torch.special.gammaincc(a := torch.tensor([1., 2.5], requires_grad=True), torch.tensor([1., 3.])).sum(), a)",
]


def _show(value):
    if isinstance(value, tuple):
        return tuple(_show(v) for v in value)
    if hasattr(value, "grad_fn"):
        fn = value.grad_fn
        values = np.round(np.asarray(value.detach().tolist(), dtype=float), 4)
        return (str(value.dtype), tuple(value.shape), None if fn is None else type(fn).__name__,
                str(values.tolist()))  # (as text: NaN equals NaN)
    return value


def _outcome(torch, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _show(eval(expr, {"torch": torch}))  # noqa: S307 - the test's own expressions
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            return type(e).__name__, str(e).split("\n")[0]


@pytest.mark.parametrize("expr", CALLS + IGAMMA_CALLS)
def test_against_torch(expr):
    torch = pytest.importorskip("torch")
    assert _outcome(gc, expr) == _outcome(torch, expr)


def _grads(T, a, b, driver, use_res):
    A = T.tensor(a, requires_grad=True)
    B = T.tensor(b, requires_grad=True)
    r = T.linalg.lstsq(A, B, driver=driver)
    weights = np.linspace(-1, 1, r.solution.numel()).reshape(tuple(r.solution.shape))
    loss = (r.solution * T.tensor(weights)).sum()
    if use_res and r.residuals.numel():
        loss = loss + (r.residuals * 0.7).sum()
    gA, gB = T.autograd.grad(loss, [A, B], create_graph=True)
    g2 = T.autograd.grad((gA ** 2).sum() + (gB ** 3).sum(), [A, B])
    return [np.asarray(g.tolist()) for g in (gA, gB, *g2)]


@pytest.mark.parametrize("shapes", [((4, 3), (4, 2)), ((3, 5), (3, 2)), ((2, 4, 3), (2, 4)), ((5, 2), (5,))])
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_gradients_match_torch(shapes, driver):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shapes[0]) * 10 + len(driver))
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    for use_res in (False, True):
        for mine, theirs in zip(_grads(gc, a, b, driver, use_res), _grads(torch, a, b, driver, use_res)):
            np.testing.assert_allclose(mine, theirs, rtol=1e-7, atol=1e-9)


def test_lstsq_residual_gradient_by_finite_differences():
    """The residuals' own gradient (X held at its optimum): central differences in float64."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((5, 2)), rng.standard_normal((5, 2))

    def res(a_, b_):
        return float(gc.linalg.lstsq(gc.tensor(a_), gc.tensor(b_), driver="gelsd").residuals.sum().item())

    A, B = gc.tensor(a, requires_grad=True), gc.tensor(b, requires_grad=True)
    gA, gB = gc.autograd.grad(gc.linalg.lstsq(A, B, driver="gelsd").residuals.sum(), [A, B])
    for arr, g, which in ((a, gA, 0), (b, gB, 1)):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            hi, lo = arr.copy(), arr.copy()
            hi[idx] += 1e-6
            lo[idx] -= 1e-6
            args_hi = (hi, b) if which == 0 else (a, hi)
            args_lo = (lo, b) if which == 0 else (a, lo)
            num[idx] = (res(*args_hi) - res(*args_lo)) / 2e-6
        np.testing.assert_allclose(np.asarray(g.tolist()), num, rtol=1e-5, atol=1e-7)


def test_solve_ex_singular_batch_keeps_gradient_of_the_rest():
    A = gc.tensor([[[2.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 4.0]]], requires_grad=True)
    r = gc.linalg.solve_ex(A, gc.tensor([1.0, 2.0]))
    assert r.info.tolist() == [0, 2] and type(r.result.grad_fn).__name__ == "LinalgSolveExBackward0"
    assert np.isnan(np.asarray(r.result.tolist())[1]).all()


HEAD = "import torch\nA = torch.tensor([[2., 1.], [1., 3.], [0., 1.]])\nb = torch.ones(3)\n"


@pytest.mark.parametrize("src, type_name", [
    ("torch.linalg.lstsq(A, b, print)\n", "TypeError"),
    ("torch.linalg.lstsq(A, b, driver=print)\n", "TypeError"),
    ("torch.linalg.lstsq(A, b, driver='__class__')\n", "RuntimeError"),
    ("torch.linalg.lstsq(A, b, driver='gelsd\\x00')\n", "RuntimeError"),
    ("torch.linalg.lstsq(A, b, rcond=torch.ones(2))\n", "TypeError"),
    ("torch.linalg.lstsq(A, b, rcond=10 ** 400)\n", None),
    ("torch.linalg.lstsq(A, [1, 2, 3])\n", "TypeError"),
    ("torch.linalg.lstsq(print, b)\n", "TypeError"),
    ("torch.linalg.solve_ex(A[:2], b[:2], check_errors=print)\n", "TypeError"),
    ("torch.linalg.solve_ex(A[:2], b[:2], left='no')\n", "TypeError"),
    ("torch.linalg.solve_ex(A[:2], print)\n", "TypeError"),
    ("torch.linalg.inv_ex(A[:2], check_errors=[True])\n", "TypeError"),
    ("torch.linalg.inv_ex(print)\n", "TypeError"),
])
def test_doors_refuse(src, type_name):
    refused_script(HEAD, "door.grad", src, type_name)


def _igamma_points(dt):
    rng = np.random.default_rng(7)
    a = np.concatenate([rng.uniform(0, 5, 150), rng.uniform(0, 300, 150), rng.exponential(30, 100),
                        [0, 1, 2, 25, 250, np.inf, 0.5, 1e-3, 150]]).astype(dt)
    x = np.concatenate([rng.uniform(0, 5, 150), rng.uniform(0, 300, 150), a[300:400] * rng.uniform(0.8, 1.2, 100),
                        [0, 0, np.inf, 25, 251, 3, -1, 1e-4, 149]]).astype(dt)
    return a, x


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_bits_match_torch(dt, name):
    """Every path of ATen's calc_igamma / calc_igammac (series, continued fraction, Temme's expansion, the
    boundaries), bit for bit (measured: 8,000 points each, all equal)."""
    torch = pytest.importorskip("torch")
    a, x = _igamma_points(dt)
    mine = np.asarray(getattr(gc, name)(gc.tensor(a), gc.tensor(x)).tolist(), dt)
    theirs = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(x)).numpy()
    same = (mine.view(f"u{mine.itemsize}") == theirs.view(f"u{mine.itemsize}")) | (np.isnan(mine) & np.isnan(theirs))
    assert same.all(), list(zip(a[~same], x[~same], mine[~same], theirs[~same]))[:5]


def test_igamma_complements():
    """igamma + igammac = 1 where both are defined (float64, a few ulps)."""
    a, x = _igamma_points(np.float64)
    s = gc.igamma(gc.tensor(a), gc.tensor(x)) + gc.igammac(gc.tensor(a), gc.tensor(x))
    s = np.asarray(s.tolist())
    ok = ~np.isnan(s)
    assert ok.sum() > 390
    np.testing.assert_allclose(s[ok], 1.0, atol=1e-12)


@pytest.mark.parametrize("src, type_name", [
    ("torch.igamma(torch.ones(2), print)\n", "TypeError"),
    ("torch.igamma(print, torch.ones(2))\n", "TypeError"),
    ("torch.special.gammainc(torch.ones(2), [1, 2])\n", "TypeError"),
    ("torch.ones(2).igammac_(print)\n", "TypeError"),
    ("x = torch.ones(2, requires_grad=True)\ntorch.igamma(x, torch.ones(2)).sum().backward()\n", "NotImplementedError"),
])
def test_igamma_doors_refuse(src, type_name):
    refused_script("import torch\n", "door.grad", src, type_name)
