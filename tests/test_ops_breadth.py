"""The breadth ops (issue 5) behave as PyTorch 2.13's: the cases of tests/ops_cases.py run with
gradcli's engine must observe what real torch observed (tests/golden/ops_cases.json, written by
tools/gen_ops_goldens.py), and every differentiable op passes float64 central-difference gradient
checks of first and second order. No torch needed.
"""
from __future__ import annotations

import functools
import json
import math
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine.ops import registry
from gradcli.engine import dtypes

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import ops_cases  # noqa: E402

GOLDEN = ROOT / "golden" / "ops_cases.json"
_GOLD = json.loads(GOLDEN.read_text())["cases"]


def _functional():
    """torch.nn.functional of the engine, or (before the nn package binds it) the ops' own activations."""
    from gradcli.engine.ops import special
    nn = getattr(api, "nn", None)
    functional = getattr(nn, "functional", None)
    members = dict(special.FUNCTIONAL)
    for name in ("relu", "sigmoid", "tanh"):
        members.setdefault(name, getattr(api, name))
    if functional is not None:
        members.update({k: getattr(functional, k) for k in dir(functional) if not k.startswith("_")})
    return types.SimpleNamespace(**members)


class _Torch(types.ModuleType):
    """gradcli's api module, with torch.nn.functional reachable as in torch."""

    def __init__(self):
        super().__init__("torch")
        self.nn = types.SimpleNamespace(functional=_functional())

    def __getattr__(self, name):
        return getattr(api, name)


TORCH = _Torch()


@pytest.fixture(autouse=True)
def _defaults():
    from gradcli.engine.ops import special
    special.reset_warn_once()  # every case starts as a fresh process with torch does
    dtypes.set_default_dtype(dtypes.float32)
    api.manual_seed(0)
    yield
    dtypes.set_default_dtype(dtypes.float32)


def _same(want, got, path="", rel=1e-5, abs_=1e-6):
    if isinstance(want, bool) or isinstance(got, bool) or not (
            isinstance(want, (int, float)) and isinstance(got, (int, float))):
        if isinstance(want, list) and isinstance(got, (list, tuple)):
            assert len(want) == len(got), f"{path}: length {len(got)} != {len(want)}\n got {got}\nwant {want}"
            for i, (w, g) in enumerate(zip(want, got)):
                _same(w, g, f"{path}[{i}]", rel, abs_)
            return
        assert want == got, f"{path}:\n got {got!r}\nwant {want!r}"
        return
    if isinstance(want, float) and math.isnan(want):
        assert isinstance(got, float) and math.isnan(got), f"{path}: {got} != nan"
        return
    assert math.isclose(want, got, rel_tol=rel, abs_tol=abs_) or want == got, f"{path}: {got} != {want}"


@pytest.mark.parametrize("name", sorted(ops_cases.CASES))
def test_case_matches_torch(name):
    assert name in _GOLD, f"no golden for {name}: run tools/gen_ops_goldens.py"
    try:
        got = ops_cases.CASES[name](TORCH)
    except Exception as e:  # noqa: BLE001
        got = f"raised: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    _same(_GOLD[name], json.loads(json.dumps(got)), name)


def test_every_golden_has_a_case():
    assert set(_GOLD) == set(ops_cases.CASES)


# ---------------------------------------------------------------------------- gradient checks

def _leaf(a):
    return api.tensor(np.asarray(a, np.float64), dtype=api.float64, requires_grad=True)


def _outputs(out):
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o for o in outs if isinstance(o, api.Tensor) and o.dtype.is_floating_point]


def _weights(shape, salt):
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float64) * 0.37 + 0.5 + salt).reshape(shape)


def _scalar(fn, arrays, need_graph):
    xs = [_leaf(a) for a in arrays]
    with api.enable_grad() if need_graph else api.no_grad():
        outs = _outputs(fn(*xs))
        s = None
        for k, o in enumerate(outs):
            term = (o * api.tensor(_weights(o.shape, k), dtype=api.float64)).sum()
            s = term if s is None else s + term
    return xs, s


def _first(fn, arrays, create_graph):
    xs, s = _scalar(fn, arrays, True)
    gs = api.autograd.grad(s, xs, create_graph=create_graph, allow_unused=True)
    return xs, [g if g is not None else api.zeros(x.shape, dtype=api.float64) for g, x in zip(gs, xs)]


def _second_scalar(gs):
    s = None
    for k, g in enumerate(gs):
        term = (g * api.tensor(_weights(g.shape, 10 + k), dtype=api.float64)).sum()
        s = term if s is None else s + term
    return s


def _numeric(f, arrays, eps):
    out = []
    for i, a in enumerate(arrays):
        a = np.asarray(a, np.float64)
        d = np.zeros_like(a)
        for j in range(a.size):
            plus = [np.array(b, np.float64, copy=True) for b in arrays]
            minus = [np.array(b, np.float64, copy=True) for b in arrays]
            plus[i].reshape(-1)[j] += eps
            minus[i].reshape(-1)[j] -= eps
            d.reshape(-1)[j] = (f(plus) - f(minus)) / (2 * eps)
        out.append(d)
    return out


def gradcheck(fn, *arrays, eps=1e-6, atol=1e-5, rtol=1e-4, second=True):
    arrays = [np.asarray(a, np.float64) for a in arrays]
    _, gs = _first(fn, arrays, create_graph=False)
    num = _numeric(lambda arrs: _scalar(fn, arrs, False)[1].item(), arrays, eps)
    for i, (g, n) in enumerate(zip(gs, num)):
        np.testing.assert_allclose(g.numpy(), n, atol=atol, rtol=rtol, err_msg=f"first order, input {i}")
    if not second:
        return
    xs, gs = _first(fn, arrays, create_graph=True)
    s2 = _second_scalar(gs)
    if s2.requires_grad:
        ggs = api.autograd.grad(s2, xs, allow_unused=True)
        ggs = [g.numpy() if g is not None else np.zeros(x.shape) for g, x in zip(ggs, xs)]
    else:
        ggs = [np.zeros(x.shape) for x in xs]

    def h(arrs):
        _, g1 = _first(fn, arrs, create_graph=False)
        return _second_scalar(g1).item()
    num2 = _numeric(h, arrays, eps)
    for i, (g, n) in enumerate(zip(ggs, num2)):
        np.testing.assert_allclose(g, n, atol=atol * 10, rtol=rtol * 10, err_msg=f"second order, input {i}")


T = TORCH
F_ = TORCH.nn.functional
A = [0.3, -0.7, 1.2, -1.9, 0.45]
B = [0.9, 0.4, -0.6, 1.5, -0.2]
P = [0.15, 0.45, 0.6, 0.85, 0.3]
Q = [0.3, -0.7, 0.9, -0.05, 0.5]
M23 = [[0.3, -0.7, 1.2], [-1.9, 0.45, 0.8]]
M33 = [[2.0, 0.5, -0.3], [0.4, 1.5, 0.2], [-0.1, 0.3, 1.8]]
W = [1.3, 2.7, 1.05, 4.0]
WIDE = [-3.5, -2.2, -0.8, 0.4, 1.7, 2.6, 3.9]

_GRADCHECKS_BEFORE = {
    # elementwise
    "log1p": (T.log1p, [P]), "expm1": (T.expm1, [A]), "exp2": (T.exp2, [A]), "erf": (T.erf, [A]),
    "erfc": (T.erfc, [A]), "erfinv": (T.erfinv, [Q]), "asin": (T.asin, [Q]), "acos": (T.acos, [Q]),
    "atan": (T.atan, [A]), "sinh": (T.sinh, [A]), "cosh": (T.cosh, [A]), "asinh": (T.asinh, [A]),
    "acosh": (T.acosh, [W]), "atanh": (T.atanh, [Q]), "sinc": (T.sinc, [A]), "deg2rad": (T.deg2rad, [A]),
    "rad2deg": (T.rad2deg, [A]), "frac": (T.frac, [[0.25, 1.7, -2.4]]), "logit": (T.logit, [P]),
    "logit_eps": (lambda x: T.logit(x, eps=0.2), [P]), "nan_to_num": (T.nan_to_num, [A]),
    "atan2": (T.atan2, [A, B]), "hypot": (T.hypot, [A, B]), "logaddexp": (T.logaddexp, [A, B]),
    "logaddexp2": (T.logaddexp2, [A, B]), "xlogy": (T.xlogy, [A, P]), "xlogy_scalar": (lambda x: T.xlogy(x, 2.5), [A]),
    "xlogy_number_self": (lambda y: T.xlogy(1.5, y), [P]), "fmod": (T.fmod, [[5.5, -5.3, 3.2], [2.0, 2.1, -1.5]]),
    "fmod_scalar": (lambda x: T.fmod(x, 1.5), [[5.5, -5.3, 3.2]]), "copysign": (T.copysign, [A, B]),
    "fmax": (T.fmax, [A, B]), "fmin": (T.fmin, [A, B]), "lerp": (lambda a, b: T.lerp(a, b, 0.3), [A, B]),
    "lerp_tensor": (T.lerp, [A, B, P]), "addcmul": (lambda a, b, c: T.addcmul(a, b, c, value=0.5), [A, B, P]),
    "addcdiv": (lambda a, b, c: T.addcdiv(a, b, c, value=2.0), [A, B, P]),
    "pow_tensor": (T.pow, [P, B]), "float_power": (lambda x: T.float_power(x, 3), [A]),
    # activations
    "softplus": (F_.softplus, [WIDE]), "softplus_beta": (lambda x: F_.softplus(x, 2.0, 3.0), [WIDE]),
    "gelu": (F_.gelu, [WIDE]), "gelu_tanh": (lambda x: F_.gelu(x, approximate="tanh"), [WIDE]),
    "silu": (F_.silu, [WIDE]), "mish": (F_.mish, [WIDE]), "elu": (F_.elu, [WIDE]), "selu": (F_.selu, [WIDE]),
    "celu": (lambda x: F_.celu(x, 2.0), [WIDE]), "leaky_relu": (lambda x: F_.leaky_relu(x, 0.2), [WIDE]),
    "relu6": (F_.relu6, [[-1.0, 2.5, 6.5]]), "hardtanh": (F_.hardtanh, [WIDE]),
    "hardsigmoid": (F_.hardsigmoid, [WIDE], False), "hardswish": (F_.hardswish, [WIDE]),
    "logsigmoid": (F_.logsigmoid, [WIDE]), "softsign": (F_.softsign, [WIDE]), "tanhshrink": (F_.tanhshrink, [WIDE]),
    "threshold": (lambda x: F_.threshold(x, 0.1, 2.0), [WIDE]), "softshrink": (F_.softshrink, [WIDE]),
    "hardshrink": (F_.hardshrink, [WIDE]), "glu": (F_.glu, [[A[:4], B[:4]]]),
    "elu_inplace": (lambda x: F_.elu(x * 1, inplace=True), [WIDE]),
    "leaky_relu_inplace": (lambda x: F_.leaky_relu(x * 1, 0.1, inplace=True), [WIDE]),
    "celu_inplace": (lambda x: T.celu_(x * 1), [WIDE]),

    # reductions and scans
    "cumsum": (lambda x: T.cumsum(x, 1), [M23]), "cumprod": (lambda x: T.cumprod(x, 1), [M23]),
    "cumprod_zeros": (lambda x: T.cumprod(x, 1), [[[1.0, 0.0, 2.0, 0.5], [0.0, 0.0, 3.0, -1.0]]]),
    "logcumsumexp": (lambda x: T.logcumsumexp(x, 1), [M23]), "cummax": (lambda x: T.cummax(x, 1), [M23]),
    "cummin": (lambda x: T.cummin(x, 0), [M23]), "sort": (lambda x: T.sort(x, 1, descending=True), [M23]),
    "topk": (lambda x: T.topk(x, 2), [M23]), "kthvalue": (lambda x: T.kthvalue(x, 2, 1), [M23]),
    "median": (T.median, [M23]), "median_dim": (lambda x: T.median(x, 1), [M23]),
    "mode": (lambda x: T.mode(x, 1), [M23]), "aminmax": (lambda x: T.aminmax(x, dim=1), [M23]),
    "aminmax_all": (T.aminmax, [M23]), "var_mean": (lambda x: T.var_mean(x, 1), [M23]),
    "std_mean": (T.std_mean, [M23]), "nansum": (T.nansum, [M23]), "nanmean": (lambda x: T.nanmean(x, 0), [M23]),
    "vector_norm_3": (lambda x: T.linalg.vector_norm(x, 3), [A]), "vector_norm_half": (lambda x: T.linalg.vector_norm(x, 0.5), [A]),
    "vector_norm_inf": (lambda x: T.linalg.vector_norm(x, float("inf"), dim=1), [M23]),
    "vector_norm_1": (lambda x: T.linalg.vector_norm(x, 1), [A]), "norm_2": (lambda x: T.norm(x, dim=0), [M23]),
    "matrix_norm_fro": (T.linalg.matrix_norm, [M23]), "matrix_norm_1": (lambda x: T.linalg.matrix_norm(x, 1), [M23]),
    "matrix_norm_inf": (lambda x: T.linalg.matrix_norm(x, float("inf")), [M23]),
    # linear algebra
    "einsum_mm": (lambda a, b: T.einsum("ij,jk->ik", a, b), [M23, M33]),
    "einsum_trace": (lambda a: T.einsum("ii", a), [M33]), "einsum_diag": (lambda a: T.einsum("ii->i", a), [M33]),
    "einsum_dot": (lambda a: T.einsum("i,i->", a, a), [A]), "einsum_outer": (lambda a, b: T.einsum("i,j->ij", a, b), [A, B]),
    "einsum_three": (lambda a, b: T.einsum("ij,jk,kl->il", a, b, b), [M23, M33]),
    "einsum_ellipsis": (lambda a, b: T.einsum("...j,jk->...k", a, b), [M23, M33]),
    "tensordot": (lambda a, b: T.tensordot(a, b, dims=1), [M23, M33]),
    "baddbmm": (lambda x, a, b: T.baddbmm(x, a, b, beta=0.5, alpha=2.0), [[[[0.5, 1.0], [2.0, -1.0]]] * 2,
                [[[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]]] * 2, [[[1.0, 0.5], [0.0, -1.0], [2.0, 0.25]]] * 2]),
    "addbmm": (T.addbmm, [[[0.5, 1.0], [2.0, -1.0]], [[[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]]] * 2,
                         [[[1.0, 0.5], [0.0, -1.0], [2.0, 0.25]]] * 2]),
    "addmv": (lambda x, m, v: T.addmv(x, m, v, beta=0.5, alpha=2.0), [A[:2], M23, B[:3]]),
    "addr": (T.addr, [M23, A[:2], B[:3]]), "trace": (T.trace, [M33]), "diag": (lambda a: T.diag(a, 1), [M33]),
    "diag_vec": (lambda v: T.diag(v, -1), [A]), "diagonal": (lambda a: T.diagonal(a, 0, 1, 0), [M23]),
    "diag_embed": (lambda a: T.diag_embed(a, 1), [M23]), "tril": (lambda a: T.tril(a, -1), [M33]),
    "triu": (T.triu, [M33]), "det": (T.det, [M33]), "slogdet": (T.linalg.slogdet, [M33]),
    "logdet": (T.logdet, [M33]), "inv": (T.linalg.inv, [M33]), "solve_vec": (T.linalg.solve, [M33, A[:3]]),
    "solve_mat": (T.linalg.solve, [M33, [[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]]]),
    "solve_right": (lambda a, b: T.linalg.solve(a, b, left=False), [M33, M23]),
    "cross": (T.linalg.cross, [M33, [[1.0, 0.5, -0.5], [0.25, 2.0, 1.0], [0.0, -1.0, 1.5]]]),
    "kron": (T.kron, [M23, [[1.0, -0.5], [2.0, 0.25]]]), "matrix_power": (lambda a: T.linalg.matrix_power(a, 3), [M33]),
    "matrix_power_neg": (lambda a: T.linalg.matrix_power(a, -2), [M33]),
    "multi_dot": (lambda a, b: T.linalg.multi_dot([a, b, b]), [M23, M33]), "vdot": (T.vdot, [A, B]),
    # shape ops
    "roll": (lambda x: T.roll(x, (1, -1), (0, 1)), [M23]), "roll_flat": (lambda x: T.roll(x, 2), [M23]),
    "rot90": (lambda x: T.rot90(x, 1), [M23]), "rot90_back": (lambda x: T.rot90(x, -1, (1, 0)), [M23]),
    "flipud": (T.flipud, [M23]), "fliplr": (T.fliplr, [M23]), "diff": (lambda x: T.diff(x, n=2), [M23]),
    "diff_prepend": (lambda x, p: T.diff(x, dim=0, prepend=p), [M23, [[1.0, 2.0, 3.0]]]),
    "unflatten": (lambda x: T.unflatten(x, 1, (3, 1)), [M23]), "atleast_3d": (T.atleast_3d, [A]),
    "repeat_interleave": (lambda x: T.repeat_interleave(x, 2, dim=1), [M23]),
    "repeat_interleave_tensor": (lambda x: T.repeat_interleave(x, T.tensor([2, 0, 1, 1, 3])), [A]),
    "take": (lambda x: T.take(x, T.tensor([[0, 4], [4, -1]])), [M23]),
    "take_along_dim": (lambda x: T.take_along_dim(x, T.tensor([[0, 2]]), dim=1), [M23]),
    "gather": (lambda x: T.gather(x, 1, T.tensor([[0, 2], [1, 1]])), [M23]),
    "scatter_value": (lambda x: T.scatter(x, 1, T.tensor([[0], [2]]), 5.0), [M23]),
    "scatter_src": (lambda x, s: T.scatter(x, 1, T.tensor([[0], [2]]), s), [M23, [[1.0], [2.0]]]),
    "scatter_add": (lambda x, s: T.scatter_add(x, 1, T.tensor([[0, 0], [2, 1]]), s), [M23, [[1.0, 2.0], [3.0, 4.0]]]),
    "index_select": (lambda x: T.index_select(x, 1, T.tensor([2, 0, 2])), [M23]),
    "masked_select": (lambda x: T.masked_select(x, T.tensor([True, False, True])), [M23]),
    "meshgrid": (lambda a, b: T.meshgrid(a, b, indexing="xy"), [A[:3], B[:2]]),
    "cartesian_prod": (T.cartesian_prod, [A[:3], B[:2]]), "tensor_split": (lambda x: T.tensor_split(x, [1], dim=1), [M23]),
    "unfold": (lambda x: x.unfold(1, 2, 1), [M23]), "dstack": (lambda a, b: T.dstack([a, b]), [M23, M23]),
    "column_stack": (lambda a, b: T.column_stack([a, b]), [A, B]), "broadcast_tensors": (T.broadcast_tensors, [M23, A[:3]]),
    "where_scalar": (lambda x: T.where(x > 0, x, 0.5), [M23]), "clamp_tensor": (T.clamp, [A, [0.0] * 5, [0.5] * 5]),
    "masked_fill": (lambda x: x.masked_fill(T.tensor([True, False, True]), 2.0), [M23]),
    "rrelu_eval": (lambda x: F_.rrelu(x, training=False), [WIDE]), "sign_zero": (T.sgn, [A]),
    "round_decimals": (lambda x: T.round(x, decimals=1), [[0.32, -0.71, 1.18]]), "inv_ex": (lambda a: T.linalg.inv_ex(a).inverse, [M33]),
    "diagflat": (T.diagflat, [M23]), "addmm": (lambda x, a, b: T.addmm(x, a, b, beta=0.5, alpha=2.0), [M23, M23, M33]),
    "outer": (T.outer, [A, B]), "vecdot": (T.linalg.vecdot, [M23, M23]), "flip_varargs": (lambda x: x.flip(0, 1), [M23]),
    "msort": (T.msort, [M23]), "logaddexp_bcast": (T.logaddexp, [M23, A[:3]]),}


def _declared_cases():
    """The regression gradchecks the op declarations carry (OpSpec.cases, engine/ops/registry.py):
    name -> (fn of the input tensors, the inputs, second order too)."""
    out = {}
    for spec in {id(s): s for s in registry.REGISTRY.values()}.values():
        for name, c in spec.cases.items():
            assert name not in out, f"case {name} declared twice"
            out[name] = (functools.partial(c.call, TORCH), list(c.inputs), c.second)
    return out


GRADCHECKS = _declared_cases()


def _values(out):
    return [np.asarray(o._data).tolist() for o in _outputs(out)]


def test_declared_cases_are_the_hand_list():
    assert set(GRADCHECKS) == set(_GRADCHECKS_BEFORE)
    for name, spec in _GRADCHECKS_BEFORE.items():
        fn, arrays, second = spec[0], spec[1], spec[2] if len(spec) > 2 else True
        dfn, darrays, dsecond = GRADCHECKS[name]
        assert dsecond == second, name
        assert [np.asarray(a).tolist() for a in darrays] == [np.asarray(a).tolist() for a in arrays], name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert _values(dfn(*[_leaf(a) for a in darrays])) == _values(fn(*[_leaf(a) for a in arrays])), name


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    spec = GRADCHECKS[name]
    fn, arrays = spec[0], spec[1]
    second = spec[2] if len(spec) > 2 else True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gradcheck(fn, *arrays, second=second)
