"""Breadth op cases (issue 5), run once with real PyTorch 2.13 (tools/gen_ops_goldens.py writes
tests/golden/ops_cases.json) and once with gradcli's engine (tests/test_ops_breadth.py).

Every case is a function `case_NAME(torch)` taking a torch-like module and returning a list of
observations: strings (reprs, dtype names, grad_fn names, error texts), numbers, bools, None and
nested lists of them. `run(torch, fn, *inputs)` is the usual observation of one op: the result
(repr, dtype, shape, grad_fn name, values), its gradient with respect to every input that
requires grad (from a weighted sum of the outputs, with create_graph) and the second-order
gradient (of a weighted sum of those gradients). Errors are observed as `Type: first line`.

Rules: deterministic values only; no ties where torch's choice of index is unspecified (topk,
median of equal values); torch.nn.functional is reached through `F(torch)`.
"""
from __future__ import annotations

import warnings

CASES = {}


def case(fn):
    CASES[fn.__name__[len("case_"):]] = fn
    return fn


# ---------------------------------------------------------------------------- helpers

def err(fn):
    """`Type: first line of message` of what fn raises, or 'no error'."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001 - every error type is an observation
        msg = str(e).split("\n")[0]
        return f"{type(e).__name__}: {msg}" if msg else type(e).__name__
    return "no error"


def warns(fn):
    """The messages (first lines) of the warnings fn emits, and its result's repr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = fn()
    return [[f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught], _repr(r)]


def F(torch):
    return torch.nn.functional


def _is_tensor(torch, x):
    return isinstance(x, torch.Tensor)


def _repr(x):
    return repr(x)


def vals(t):
    if t is None:
        return None
    try:
        return t.detach().tolist()
    except RuntimeError:  # torch's efficient zero tensors (the gradient of sgn, ...) have no storage
        return (t.detach() * 0).new_zeros(tuple(t.shape)).tolist()


def fname(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def info(torch, t):
    if not _is_tensor(torch, t):
        return ["not a tensor", repr(t)]
    return [repr(t), str(t.dtype), list(t.shape), t.requires_grad, fname(t), vals(t)]


def weights(torch, t):
    """Fixed, distinct weights shaped like t (so gradients are not all ones)."""
    n = t.numel()
    return (torch.arange(n, dtype=t.dtype) * 0.25 + 1.0).reshape(t.shape)


def _zeros_like_list(torch, x):
    return torch.zeros(tuple(x.shape), dtype=x.dtype).tolist()


def _raised(e):
    msg = str(e).split("\n")[0]
    return f"raised: {type(e).__name__}: {msg}"


def grads(torch, outs, leaves):
    """First- and second-order gradients of weighted sums, as values (zeros where none flows)."""
    diff = [o for o in outs if _is_tensor(torch, o) and o.requires_grad]
    if not diff or not leaves:
        return ["no grad"]
    try:
        s = None
        for o in diff:
            term = (o * weights(torch, o)).sum()
            s = term if s is None else s + term
        gs = torch.autograd.grad(s, leaves, create_graph=True, allow_unused=True)
    except Exception as e:  # noqa: BLE001
        return [_raised(e)]
    first = [vals(g) if g is not None else _zeros_like_list(torch, x) for g, x in zip(gs, leaves)]
    try:
        s2 = None
        for g in gs:
            if g is not None and g.requires_grad:
                term = (g * weights(torch, g)).sum()
                s2 = term if s2 is None else s2 + term
        if s2 is None:
            second = [_zeros_like_list(torch, x) for x in leaves]
        else:
            ggs = torch.autograd.grad(s2, leaves, allow_unused=True)
            second = [vals(g) if g is not None else _zeros_like_list(torch, x) for g, x in zip(ggs, leaves)]
    except Exception as e:  # noqa: BLE001
        second = _raised(e)
    return [first, second]


def run(torch, fn, *inputs):
    """Observe fn(*inputs): the result(s) and the first- and second-order gradients."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn(*inputs)
    except Exception as e:  # noqa: BLE001
        msg = str(e).split("\n")[0]
        return [f"raised: {type(e).__name__}: {msg}"]
    obs = [[f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught]]
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if isinstance(out, tuple) and type(out) is not tuple:
        obs.append(repr(out))  # a torch.return_types named tuple
    obs += [info(torch, o) for o in outs]
    leaves = [x for x in inputs if _is_tensor(torch, x) and x.requires_grad]
    obs.append(grads(torch, outs, leaves))
    return obs


def t64(torch, data, rg=True):
    return torch.tensor(data, dtype=torch.float64, requires_grad=rg)


def t32(torch, data, rg=True):
    return torch.tensor(data, requires_grad=rg)


# the standard inputs: distinct values, no ties, away from kinks
V = [0.3, -0.7, 1.2, -1.9, 0.05]
U = [0.9, 0.4, -0.6, 1.5, -0.2]
P = [0.15, 0.45, 0.6, 0.85, 0.3]          # in (0, 1)
M = [[0.3, -0.7, 1.2], [-1.9, 0.05, 0.8]]
N = [[0.9, 0.4, -0.6], [1.5, -0.2, 0.35]]
BIG = [-25.0, -4.0, -2.5, 0.0, 2.5, 4.0, 25.0]


# ---------------------------------------------------------------------------- elementwise unary

def _unary_family(name, data=V, method=True, inplace=True):
    def fam(torch):
        fn = getattr(torch, name)
        obs = [run(torch, fn, t64(torch, data)),
               run(torch, fn, t32(torch, data)),
               run(torch, fn, torch.tensor([1, 2, 0]))]
        if method:
            obs.append(run(torch, lambda x: getattr(x, name)(), t64(torch, data)))
        if inplace:
            obs.append(run(torch, lambda x: getattr(x * 1, name + "_")(), t64(torch, data)))
            obs.append(err(lambda: getattr(t64(torch, data), name + "_")()))
        return obs
    fam.__name__ = "case_" + name
    return case(fam)


for _name in ("log1p", "expm1", "exp2", "erf", "erfc", "atan", "sinh", "cosh", "asinh", "sinc", "deg2rad",
              "rad2deg", "sgn", "sign", "floor", "ceil", "trunc", "fix"):
    _unary_family(_name)
for _name in ("erfinv", "asin", "acos", "atanh", "arcsin", "arccos", "arctanh", "logit"):
    _unary_family(_name, data=[0.3, -0.7, 0.9, -0.05, 0.5] if _name != "logit" else P)
_unary_family("acosh", data=[1.3, 2.7, 1.05, 4.0])
_unary_family("arccosh", data=[1.3, 2.7, 1.05, 4.0])
_unary_family("arcsinh")
_unary_family("arctan")


@case
def case_frac(torch):
    x = t64(torch, [1.25, -2.75, 0.5, 3.0])
    return [run(torch, torch.frac, x), run(torch, lambda a: a.frac(), x), err(lambda: torch.frac(torch.tensor([1, 2])))]


@case
def case_round_decimals(torch):
    x = t64(torch, [1.2345, -2.7551, 0.5, 123.456])
    return [run(torch, lambda a: torch.round(a, decimals=2), x), run(torch, lambda a: a.round(decimals=-1), x),
            run(torch, torch.round, x), run(torch, lambda a: (a * 1).round_(decimals=1), x),
            err(lambda: torch.round(torch.tensor([1, 2]), decimals=1))]


@case
def case_erf_values(torch):
    x = torch.tensor([-3.0, -1.0, -0.1, 0.0, 1e-8, 0.5, 2.0, 6.0], dtype=torch.float64)
    p = torch.tensor([-1.0, -0.999, -0.5, 0.0, 0.25, 0.9999, 1.0, 1.5], dtype=torch.float64)
    return [vals(torch.erf(x)), vals(torch.erfc(x)), vals(torch.erfinv(p)), repr(torch.erfinv(p.float())),
            repr(torch.special.erf(x)), repr(torch.special.erfinv(p))]


@case
def case_special_namespace(torch):
    x = t64(torch, P)
    s = torch.special
    return [run(torch, s.expit, x), run(torch, s.logit, x), run(torch, s.expm1, x), run(torch, s.exp2, x),
            run(torch, s.log1p, x), run(torch, s.erfc, x), run(torch, lambda a: s.xlogy(a, 2.0), x),
            run(torch, lambda a: s.logsumexp(a, 0), x), run(torch, s.sinc, x)]


# ---------------------------------------------------------------------------- elementwise binary

@case
def case_atan2(torch):
    return [run(torch, torch.atan2, t64(torch, V), t64(torch, U)),
            run(torch, lambda a, b: a.atan2(b), t64(torch, M), t64(torch, [0.5, -1.0, 2.0])),
            run(torch, torch.arctan2, torch.tensor([1, -2]), torch.tensor([3, 4])),
            run(torch, lambda a, b: (a * 1).atan2_(b), t64(torch, V), t64(torch, U)),
            err(lambda: torch.atan2(t64(torch, V), 2.0))]


@case
def case_hypot(torch):
    return [run(torch, torch.hypot, t64(torch, V), t64(torch, U)),
            run(torch, torch.hypot, t32(torch, M), t32(torch, [[0.5], [2.0]])),
            err(lambda: torch.hypot(torch.tensor([1]), torch.tensor([2])))]


@case
def case_lerp(torch):
    return [run(torch, lambda a, b: torch.lerp(a, b, 0.3), t64(torch, V), t64(torch, U)),
            run(torch, lambda a, b: torch.lerp(a, b, 0.8), t64(torch, V), t64(torch, U)),
            run(torch, torch.lerp, t64(torch, V), t64(torch, U), t64(torch, P)),
            run(torch, lambda a, b, w: a.lerp(b, w), t64(torch, M), t64(torch, [1.0, 2.0, 3.0]),
                torch.tensor(0.25, dtype=torch.float64, requires_grad=True)),
            err(lambda: torch.lerp(torch.ones(2), torch.ones(2, dtype=torch.float64), 0.5)),
            err(lambda: torch.lerp(torch.tensor([1, 2]), torch.tensor([3, 4]), 0.5))]


@case
def case_logaddexp(torch):
    return [run(torch, torch.logaddexp, t64(torch, V), t64(torch, U)),
            run(torch, torch.logaddexp2, t64(torch, V), t64(torch, U)),
            run(torch, torch.logaddexp, t32(torch, [100.0, -100.0]), t32(torch, [100.0, 3.0])),
            err(lambda: torch.logaddexp(torch.tensor([1]), torch.tensor([2])))]


@case
def case_xlogy(torch):
    x = t64(torch, [0.0, 0.5, 2.0, 0.0, 1.5])
    y = t64(torch, [0.0, 3.0, 0.25, 2.0, 1.0])
    return [run(torch, torch.xlogy, x, y), run(torch, lambda a: torch.xlogy(a, 3.0), x),
            run(torch, lambda b: torch.xlogy(2, b), y), run(torch, lambda a: torch.xlogy(a, 0.0), x),
            run(torch, torch.xlogy, torch.tensor([0, 1, 2]), torch.tensor([0, 3, 4])),
            run(torch, lambda a: (a * 1).xlogy_(2.0), x)]


@case
def case_fmod_remainder(torch):
    a = t64(torch, [5.5, -5.5, 3.25, -1.0])
    b = t64(torch, [2.0, 2.0, -1.5, 0.75])
    return [run(torch, lambda x: torch.fmod(x, 1.5), a), run(torch, torch.fmod, a, b),
            run(torch, lambda x: torch.remainder(x, 1.5), a), run(torch, torch.remainder, a, b),
            run(torch, lambda x: x.fmod(-2), torch.tensor([5, -5, 7])),
            run(torch, lambda x: x.remainder(-2), torch.tensor([5, -5, 7])),
            run(torch, lambda x: (x * 1).fmod_(0.5), a), run(torch, lambda x: x % 1.5, a)]


@case
def case_copysign_fmax(torch):
    a = t64(torch, V)
    b = t64(torch, U)
    return [run(torch, torch.copysign, a, b), run(torch, lambda x: torch.copysign(x, -1.0), a),
            run(torch, torch.fmax, a, b), run(torch, torch.fmin, a, b),
            run(torch, torch.fmax, torch.tensor([1.0, float("nan"), 2.0]), torch.tensor([float("nan"), 3.0, 1.0])),
            run(torch, lambda x: torch.float_power(x, 2), t32(torch, V)),
            run(torch, torch.float_power, torch.tensor([2, 3]), torch.tensor([2, -1]))]


@case
def case_pow_tensor_exponent(torch):
    a = t64(torch, [0.5, 1.5, 2.0, 3.0])
    b = t64(torch, [2.0, -1.0, 0.5, 0.0])
    return [run(torch, torch.pow, a, b), run(torch, lambda x, y: x ** y, a, b),
            run(torch, lambda y: 2.0 ** y, b), run(torch, lambda x: x.pow(torch.tensor(2.0, dtype=torch.float64)), a),
            run(torch, torch.pow, torch.tensor([2, 3]), torch.tensor([3, 2]))]


@case
def case_addcmul_addcdiv(torch):
    x, a, b = t64(torch, V), t64(torch, U), t64(torch, [1.5, -2.0, 0.5, 3.0, -0.75])
    return [run(torch, lambda p, q, r: torch.addcmul(p, q, r, value=0.5), x, a, b),
            run(torch, lambda p, q, r: torch.addcdiv(p, q, r, value=2), x, a, b),
            run(torch, torch.addcmul, t64(torch, M), t64(torch, [1.0, 2.0, 3.0]), t64(torch, [[2.0], [0.5]])),
            run(torch, lambda p, q, r: (p * 1).addcdiv_(q, r), x, a, b),
            err(lambda: torch.addcdiv(torch.tensor([1]), torch.tensor([1]), torch.tensor([2])))]


@case
def case_nan_to_num(torch):
    x = t64(torch, [float("nan"), float("inf"), -float("inf"), 1.5])
    return [run(torch, torch.nan_to_num, x), run(torch, lambda a: a.nan_to_num(nan=2.0, posinf=9.0, neginf=-9.0), x),
            repr(torch.nan_to_num(torch.tensor([float("nan"), float("inf")]))),
            run(torch, torch.nan_to_num, torch.tensor([1, 2])),
            repr(torch.isnan(x)), repr(torch.isinf(x)), repr(torch.isfinite(x)), repr(torch.isposinf(x)),
            repr(torch.isneginf(x)), repr(torch.signbit(t64(torch, [-0.0, 0.0, -2.0], rg=False)))]


@case
def case_logit_eps(torch):
    x = t64(torch, [0.05, 0.3, 0.97, 0.5])
    return [run(torch, lambda a: torch.logit(a, eps=0.1), x), run(torch, lambda a: a.logit(0.2), x),
            run(torch, torch.logit, t64(torch, [-0.5, 0.5, 1.5])), run(torch, torch.sigmoid, x),
            run(torch, lambda a: (a * 1).logit_(), x)]


@case
def case_clamp_tensor_bounds(torch):
    x = t64(torch, V)
    lo = t64(torch, [0.0, -0.5, 0.5, -1.0, 0.1])
    hi = t64(torch, [0.2, 0.0, 1.0, 1.0, 0.5])
    return [run(torch, lambda a, l: torch.clamp(a, min=l), x, lo), run(torch, lambda a, h: a.clamp(max=h), x, hi),
            run(torch, torch.clamp, x, lo, hi), run(torch, lambda a: a.clamp(-0.5, 0.5), x),
            run(torch, lambda a: a.clip(min=0.0), x)]


@case
def case_masked_fill_where(torch):
    x = t64(torch, M)
    mask = torch.tensor([[True, False, True], [False, False, True]])
    return [run(torch, lambda a: a.masked_fill(mask, 0.5), x),
            run(torch, lambda a: a.masked_fill(torch.tensor([True, False, False]), -1.0), x),
            run(torch, lambda a: torch.where(a > 0, a, 0.0), x),
            run(torch, lambda a: torch.where(a > 0, 1.0, a * 2), x),
            run(torch, lambda a, b: torch.where(a > b, a, b), x, t64(torch, N)),
            run(torch, lambda a: (a * 1).masked_fill_(mask, 2.0), x),
            repr(torch.where(torch.tensor([True, False]), 1, 2.5)), repr(torch.where(torch.tensor([True, False]), 1, 2))]


@case
def case_comparisons_logical(torch):
    a = torch.tensor([1.0, 2.0, 3.0])
    b = torch.tensor([3.0, 2.0, 1.0], requires_grad=True)
    i = torch.tensor([1, 0, 2])
    return [repr(a < b), repr(a <= b), repr(a == b), repr(a != b), repr(a > 2), repr(b >= 2.0), repr(torch.eq(a, b)),
            repr(torch.gt(i, 0)), repr(torch.logical_and(a > 1, b > 1)), repr(torch.logical_or(i, a > 2)),
            repr(torch.logical_xor(i, b)), repr(torch.logical_not(i)), repr((a > 1) & (b > 1)), repr(~(a > 1)),
            repr((a > 1) | (b > 2)), repr((a > 1) ^ (b > 2)), fname(b > 1), (b > 1).requires_grad,
            repr(a.lt(b)), repr(a.ge(b)), repr(a.ne(2.0)), repr(torch.maximum(a, b)), repr(torch.minimum(a, b))]


# ---------------------------------------------------------------------------- activations

@case
def case_activations(torch):
    f = F(torch)
    x = t64(torch, BIG)
    y = t32(torch, V)
    obs = []
    for name, fn in (("softplus", f.softplus), ("gelu", f.gelu), ("gelu_tanh", lambda a: f.gelu(a, approximate="tanh")),
                     ("silu", f.silu), ("mish", f.mish), ("elu", f.elu), ("selu", f.selu), ("celu", f.celu),
                     ("leaky_relu", f.leaky_relu), ("relu6", f.relu6), ("hardtanh", f.hardtanh),
                     ("hardsigmoid", f.hardsigmoid), ("hardswish", f.hardswish), ("logsigmoid", f.logsigmoid),
                     ("softsign", f.softsign), ("tanhshrink", f.tanhshrink), ("softshrink", f.softshrink),
                     ("hardshrink", f.hardshrink), ("sigmoid", torch.sigmoid), ("tanh", torch.tanh),
                     ("relu", torch.relu)):
        obs.append([name, run(torch, fn, x), run(torch, fn, y), err(lambda: fn(torch.tensor([1, 2])))])
    return obs


@case
def case_activation_params(torch):
    f = F(torch)
    x = t64(torch, V)
    return [run(torch, lambda a: f.softplus(a, beta=2.0, threshold=1.0), x),
            run(torch, lambda a: f.elu(a, alpha=0.5), x), run(torch, lambda a: f.celu(a, alpha=2.0), x),
            run(torch, lambda a: f.leaky_relu(a, 0.2), x), run(torch, lambda a: f.hardtanh(a, -0.5, 0.25), x),
            run(torch, lambda a: f.threshold(a, 0.1, 20.0), x), run(torch, lambda a: f.softshrink(a, 0.4), x),
            run(torch, lambda a: f.hardshrink(a, 0.4), x), run(torch, torch.selu, x), run(torch, torch.celu, x),
            run(torch, lambda a: f.rrelu(a, training=False), x), run(torch, lambda a: f.glu(a), t64(torch, [V[:4], U[:4]])),
            run(torch, lambda a: f.glu(a, 0), t64(torch, [V[:4], U[:4]])),
            err(lambda: f.gelu(x, approximate="foo")), err(lambda: f.glu(t64(torch, V)))]


@case
def case_activation_inplace(torch):
    f = F(torch)
    x = t64(torch, V)
    return [run(torch, lambda a: f.elu(a * 1, inplace=True), x), run(torch, lambda a: f.leaky_relu(a * 1, 0.1, True), x),
            run(torch, lambda a: f.hardtanh(a * 1, inplace=True), x), run(torch, lambda a: f.relu6(a * 3, inplace=True), x),
            run(torch, lambda a: torch.selu_(a * 1), x), run(torch, lambda a: torch.celu_(a * 1), x),
            run(torch, lambda a: f.threshold(a * 1, 0.1, 2.0, inplace=True), x),
            run(torch, lambda a: f.silu(a * 1, inplace=True), x), run(torch, lambda a: f.hardswish(a * 1, inplace=True), x),
            run(torch, lambda a: f.mish(a * 1, inplace=True), x),
            err(lambda: f.elu(t64(torch, V), inplace=True))]


@case
def case_activation_ints(torch):
    f = F(torch)
    i = torch.tensor([1, -2, 3])
    b = torch.tensor([True, False])
    return [repr(f.relu6(i)), repr(f.hardtanh(i)), repr(f.threshold(i, 1, 0)), err(lambda: f.hardtanh(b)),
            err(lambda: f.softsign(b)), repr(f.softsign(i)), repr(f.tanhshrink(i)), err(lambda: f.silu(i))]


# ---------------------------------------------------------------------------- reductions and scans

@case
def case_cumsum_cumprod(torch):
    x = t64(torch, M)
    z = t64(torch, [[1.0, 0.0, 2.0, 0.5], [0.0, 0.0, 3.0, -1.0]])
    return [run(torch, lambda a: a.cumsum(1), x), run(torch, lambda a: torch.cumsum(a, dim=0), x),
            run(torch, lambda a: a.cumsum(-1, dtype=torch.float32), x), run(torch, lambda a: a.cumprod(1), x),
            run(torch, lambda a: torch.cumprod(a, 0), x), run(torch, lambda a: a.cumprod(1), z),
            run(torch, lambda a: a.cumsum(0), torch.tensor([1, 2, 3], dtype=torch.int32)),
            run(torch, lambda a: a.cumprod(0), torch.tensor([True, True, False])),
            run(torch, lambda a: a.cumsum(0), t64(torch, 2.5)), run(torch, lambda a: (a * 1).cumsum_(1), x),
            err(lambda: torch.cumsum(x)), err(lambda: x.cumsum(2))]


@case
def case_logcumsumexp(torch):
    return [run(torch, lambda a: a.logcumsumexp(1), t64(torch, M)),
            run(torch, lambda a: torch.logcumsumexp(a, 0), t32(torch, V)),
            err(lambda: torch.logcumsumexp(torch.tensor([1, 2]), 0))]


@case
def case_cummax_cummin(torch):
    x = t64(torch, [[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, -1.0, 2.0]])
    return [run(torch, lambda a: a.cummax(1), x), run(torch, lambda a: torch.cummin(a, 1), x),
            run(torch, lambda a: a.cummax(0), x), run(torch, lambda a: a.cummin(0), torch.tensor([3, 1, 2]))]


@case
def case_sort_argsort(torch):
    x = t64(torch, [[0.3, -0.7, 1.2, 0.3], [-1.9, 0.05, 0.8, 2.0]])
    return [run(torch, lambda a: a.sort(), x), run(torch, lambda a: torch.sort(a, 0, descending=True), x),
            run(torch, lambda a: a.sort(dim=1, stable=True), x), run(torch, lambda a: a.sort(descending=True).values, x),
            repr(x.argsort()), repr(torch.argsort(x, dim=0, descending=True)), repr(x.argsort(dim=1, stable=True)),
            run(torch, torch.msort, x),
            repr(torch.tensor([1.0, float("nan"), 0.5, -float("inf")]).sort()),
            repr(torch.tensor([1.0, float("nan"), 0.5, -float("inf")]).sort(descending=True)),
            repr(torch.tensor([3, 1, 2]).sort()), repr(torch.tensor([True, False, True]).sort(descending=True)),
            err(lambda: x.sort(dim=2))]


@case
def case_topk_kthvalue(torch):
    x = t64(torch, [[0.3, -0.7, 1.2, 0.4], [-1.9, 0.05, 0.8, 2.0]])
    return [run(torch, lambda a: a.topk(2), x), run(torch, lambda a: torch.topk(a, 1, dim=0, largest=False), x),
            run(torch, lambda a: a.topk(3, sorted=True).values, x), run(torch, lambda a: a.kthvalue(2), x),
            run(torch, lambda a: torch.kthvalue(a, 1, 0, keepdim=True), x),
            repr(torch.tensor([5, 1, 4]).topk(2)), err(lambda: x.topk(5)), err(lambda: x.kthvalue(5)),
            err(lambda: torch.tensor([True]).topk(1))]


@case
def case_median_mode(torch):
    x = t64(torch, [[0.3, -0.7, 1.2, 0.4], [-1.9, 0.05, 0.8, 2.0]])
    ties = t64(torch, [[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, -1.0, 2.0]])
    return [run(torch, torch.median, x), run(torch, lambda a: a.median(1), x),
            run(torch, lambda a: a.median(0, keepdim=True), x), run(torch, torch.median, ties),
            run(torch, lambda a: a.mode(1), ties), run(torch, lambda a: torch.mode(a, 0), x),
            repr(torch.tensor([1.0, float("nan"), 3.0]).median()), repr(torch.tensor([3, 1, 2, 5]).median()),
            repr(torch.tensor([[2.0, 1.0], [1.0, 1.0]]).median(0))]


@case
def case_aminmax(torch):
    x = t64(torch, [[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, -1.0, 2.0]])
    return [run(torch, torch.aminmax, x), run(torch, lambda a: torch.aminmax(a, dim=1), x),
            run(torch, lambda a: a.aminmax(dim=0, keepdim=True), x), repr(torch.aminmax(torch.tensor([3, 1, 2]))),
            err(lambda: torch.aminmax(torch.ones(0)))]


@case
def case_count_nonzero_argmax(torch):
    x = torch.tensor([[0.0, 1.5, 0.0], [2.0, -1.0, 0.0]])
    return [repr(torch.count_nonzero(x)), repr(x.count_nonzero(dim=1)), repr(torch.count_nonzero(x, dim=(0, 1))),
            repr(x.argmax()), repr(x.argmax(dim=1)), repr(x.argmin(0, keepdim=True)), repr(x.all()),
            repr(x.any(1)), repr(torch.all(x > -2, dim=0)), repr(torch.any(x > 1.9))]


@case
def case_var_std(torch):
    x = t64(torch, [[0.3, -0.7, 1.2, 0.4], [-1.9, 0.05, 0.8, 2.0]])
    return [run(torch, torch.var, x), run(torch, lambda a: a.var(1), x), run(torch, lambda a: a.var(1, correction=0), x),
            run(torch, lambda a: a.var(0, unbiased=False, keepdim=True), x), run(torch, torch.std, x),
            run(torch, lambda a: a.std(dim=(0, 1), correction=2), x), run(torch, lambda a: a.std(1, keepdim=True), x),
            run(torch, lambda a: torch.var_mean(a, 1), x), run(torch, lambda a: torch.std_mean(a), x),
            run(torch, lambda a: torch.var_mean(a, dim=0, correction=0), x),
            err(lambda: torch.var(torch.tensor([1, 2]))), err(lambda: torch.var_mean(torch.tensor([1, 2])))]


@case
def case_norms(torch):
    x = t64(torch, [[0.3, -0.7, 1.2], [-1.9, 0.05, 0.8]])
    v = t64(torch, V)
    la = torch.linalg
    return [run(torch, lambda a: a.norm(), x), run(torch, lambda a: a.norm(p=1), x),
            run(torch, lambda a: a.norm(dim=1), x), run(torch, lambda a: torch.norm(a, p=3, dim=0), x),
            run(torch, lambda a: a.norm(p=float("inf")), x), run(torch, lambda a: torch.norm(a, dim=1, keepdim=True), x),
            run(torch, lambda a: torch.norm(a, p="fro"), x),
            run(torch, la.norm, x), run(torch, la.norm, v), run(torch, lambda a: la.norm(a, ord=1), x),
            run(torch, lambda a: la.norm(a, ord=float("inf")), x), run(torch, lambda a: la.norm(a, dim=1), x),
            run(torch, lambda a: la.norm(a, ord=3), v), run(torch, lambda a: la.vector_norm(a), x),
            run(torch, lambda a: la.vector_norm(a, ord=1, dim=0), x), run(torch, lambda a: la.vector_norm(a, 0.5), v),
            run(torch, lambda a: la.vector_norm(a, float("-inf")), v), run(torch, lambda a: la.vector_norm(a, 0), v),
            run(torch, lambda a: la.matrix_norm(a), x), run(torch, lambda a: la.matrix_norm(a, ord=1), x),
            run(torch, lambda a: la.matrix_norm(a, ord=-1), x), run(torch, lambda a: la.matrix_norm(a, float("-inf")), x),
            run(torch, lambda a: la.matrix_norm(a, "fro", keepdim=True), x),
            err(lambda: la.vector_norm(torch.tensor([1, 2]))), err(lambda: la.matrix_norm(v)),
            run(torch, lambda a, b: torch.dist(a, b), x, t64(torch, [0.5, -0.2, 1.0])),
            run(torch, lambda a, b: a.dist(b, 3), x, t64(torch, [[0.5], [-1.0]])),
            run(torch, lambda a, b: torch.dist(a, b, p=1), t64(torch, [0.5, -0.2, 1.0]), x),
            run(torch, lambda a, b: a.dist(b, float("inf")), x, t64(torch, [0.5, -0.2, 1.0], rg=False)),
            run(torch, lambda a: torch.dist(a, torch.zeros(3), 0.5), x),
            err(lambda: torch.dist(torch.tensor([1, 2]), torch.tensor([0, 0]))),
            err(lambda: torch.dist(x, 2.0)), err(lambda: torch.dist(x, torch.ones(2)))]


@case
def case_logsumexp_nansum(torch):
    x = t64(torch, [[0.3, -0.7, 1.2], [-1.9, 0.05, 0.8]])
    n = t64(torch, [1.0, float("nan"), 2.5, -0.5])
    return [run(torch, lambda a: a.logsumexp(1), x), run(torch, lambda a: torch.logsumexp(a, (0, 1)), x),
            run(torch, lambda a: a.logsumexp(0, keepdim=True), x), run(torch, lambda a: a.logsumexp(0), torch.tensor([1, 2])),
            run(torch, torch.nansum, n), run(torch, torch.nanmean, n), run(torch, lambda a: a.nansum(0), x)]


# ---------------------------------------------------------------------------- linear algebra

A3 = [[2.0, 0.5, -0.3], [0.4, 1.5, 0.2], [-0.1, 0.3, 1.8]]
B3 = [[1.0, -0.5, 0.25], [0.0, 2.0, 0.5], [0.75, 0.1, -1.0]]


@case
def case_einsum(torch):
    x, a, v = t64(torch, M), t64(torch, A3), t64(torch, [0.5, -1.5, 2.0])
    b = t64(torch, [[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]])
    e = torch.einsum
    return [run(torch, lambda p, q: e("ij,jk->ik", p, q), x, a), run(torch, lambda p: e("ij->ji", p), x),
            run(torch, lambda p: e("ii->i", p), a), run(torch, lambda p: e("ii", p), a),
            run(torch, lambda p: e("ij->j", p), x), run(torch, lambda p, q: e("ij,j->i", p, q), x, v),
            run(torch, lambda p: e("i,i->", p, p), v), run(torch, lambda p, q: e("i,j->ij", p, q), v, v),
            run(torch, lambda p, q: e("ij,ij->ij", p, q), x, x), run(torch, lambda p, q: e("ij,j->j", p, q), x, v),
            run(torch, lambda p, q: e("bij,jk->bik", p, q), b, t64(torch, [[1.0, 2.0], [-1.0, 0.5]])),
            run(torch, lambda p, q: e("bjk,bkl->bjl", p, q), b, t64(torch, [[[1.0, 0.0, 2.0], [0.5, -1.0, 1.0]]] * 2)),
            run(torch, lambda p, q, r: e("ij,jk,kl->il", p, q, r), x, a, a),
            run(torch, lambda p, q: e("...j,jk->...k", p, q), x, a), run(torch, lambda p, q: e("ij,kj", p, q), x, x),
            run(torch, lambda p, q: e("ij,jk->ik", [p, q]), x, a),
            run(torch, lambda p, q: e("ij, jk -> ki", p, q), x, a),
            repr(e("ij,jk->ik", torch.tensor([[1, 2]]), torch.tensor([[3], [4]]))),
            err(lambda: e("ij,jk->ik", x, x)), err(lambda: e("ij", v)), err(lambda: e("ij->k", x)),
            err(lambda: e("ij,jk", x)), err(lambda: e("i->ii", v)), err(lambda: e("i.j", x)),
            err(lambda: e("ii->i", x)), err(lambda: e("i1", x)), err(lambda: e("ij,jk->ik", x, a.float()))]


@case
def case_tensordot_outer(torch):
    x, a, v = t64(torch, M), t64(torch, A3), t64(torch, [0.5, -1.5, 2.0])
    return [run(torch, lambda p, q: torch.tensordot(p, q, dims=1), x, a),
            run(torch, lambda p, q: torch.tensordot(p, q, dims=([0, 1], [1, 0])), a, a),
            run(torch, lambda p, q: torch.tensordot(p, q, dims=0), v, v),
            run(torch, lambda p, q: torch.tensordot(p, q, dims=([1], [0])), x, a),
            run(torch, torch.outer, v, v), run(torch, lambda p, q: p.outer(q), v, t64(torch, [1.0, 2.0])),
            repr(torch.outer(torch.tensor([1, 2]), torch.tensor([3, 4]))),
            err(lambda: torch.tensordot(x, x, dims=1)), err(lambda: torch.tensordot(x, a, dims=3))]


@case
def case_addmm_family(torch):
    a = t64(torch, A3)
    x = t64(torch, M)
    v = t64(torch, [0.5, -1.5, 2.0])
    b1 = t64(torch, [[[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]], [[0.7, 0.8, -0.9], [1.0, 1.1, 1.2]]])
    b2 = t64(torch, [[[1.0, 0.5], [0.0, -1.0], [2.0, 0.25]], [[0.3, 0.6], [-0.9, 1.2], [1.5, 1.8]]])
    z = t64(torch, [[[0.5, -0.5], [1.0, 2.0]]] * 2)
    return [run(torch, torch.addmm, a, a, a), run(torch, lambda p, q, r: torch.addmm(p, q, r, beta=0.5, alpha=2), v, a, a),
            run(torch, torch.baddbmm, z, b1, b2), run(torch, lambda p, q, r: p.baddbmm(q, r, beta=2, alpha=0.5), z, b1, b2),
            run(torch, torch.addbmm, t64(torch, [[0.5, -0.5], [1.0, 2.0]]), b1, b2),
            run(torch, torch.addmv, v, a, v), run(torch, lambda p, q, r: torch.addmv(p, q, r, beta=0.5, alpha=2), v, x, v),
            run(torch, torch.addr, x, t64(torch, [1.0, -2.0]), v), run(torch, lambda p: p.addmv_(a.detach(), v.detach()), t64(torch, [1.0, 2.0, 3.0], rg=False)),
            err(lambda: torch.baddbmm(torch.ones(2, 2, 2), torch.ones(2, 2, 3), torch.ones(2, 2, 2))),
            err(lambda: torch.addmv(torch.ones(2), torch.ones(2, 2), torch.ones(3)))]


@case
def case_trace_diag(torch):
    a = t64(torch, A3)
    x = t64(torch, M)
    v = t64(torch, [0.5, -1.5, 2.0])
    return [run(torch, torch.trace, a), run(torch, lambda p: p.trace(), x), repr(torch.tensor([[1, 2], [3, 4]]).trace()),
            run(torch, torch.diag, a), run(torch, lambda p: p.diag(1), a), run(torch, lambda p: torch.diag(p, -1), x),
            run(torch, torch.diag, v), run(torch, lambda p: p.diag(-1), v), run(torch, torch.diagonal, a),
            run(torch, lambda p: p.diagonal(1), x), run(torch, lambda p: p.diagonal(0, 1, 0), x),
            run(torch, lambda p: torch.linalg.diagonal(p), a), run(torch, torch.diag_embed, x),
            run(torch, lambda p: torch.diag_embed(p, 1), v), run(torch, lambda p: p.diag_embed(0, 0, 2), x),
            run(torch, torch.diagflat, x), err(lambda: torch.trace(torch.ones(2))), err(lambda: torch.diag(torch.ones(2, 2, 2))),
            err(lambda: torch.diagonal(torch.ones(2))), err(lambda: torch.diag_embed(torch.ones(2), dim1=0, dim2=0))]


@case
def case_tril_triu(torch):
    a = t64(torch, A3)
    x = t64(torch, M)
    return [run(torch, torch.tril, a), run(torch, lambda p: p.triu(1), a), run(torch, lambda p: p.tril(-1), x),
            run(torch, lambda p: torch.triu(p, -1), x), run(torch, lambda p: (p * 1).tril_(), a),
            repr(torch.tril(torch.ones(2, 2, dtype=torch.int64), 5)), repr(torch.triu_indices(3, 3, 1)),
            repr(torch.tril_indices(3, 2)), err(lambda: torch.tril(torch.ones(3)))]


@case
def case_det_inv_solve(torch):
    a = t64(torch, A3)
    b = t64(torch, B3)
    v = t64(torch, [0.5, -1.5, 2.0])
    la = torch.linalg
    batch = t64(torch, [A3, B3])
    return [run(torch, torch.det, a), run(torch, la.det, b), run(torch, lambda p: p.det(), batch),
            run(torch, la.inv, a), run(torch, torch.inverse, b), run(torch, lambda p: p.inverse(), batch),
            run(torch, la.solve, a, v), run(torch, la.solve, a, b), run(torch, la.solve, batch, t64(torch, [[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]])),
            run(torch, lambda p, q: la.solve(p, q, left=False), a, t64(torch, M)),
            run(torch, la.slogdet, b), run(torch, torch.logdet, a), run(torch, torch.logdet, b),
            run(torch, lambda p: la.matrix_power(p, 3), a), run(torch, lambda p: la.matrix_power(p, 1), a),
            run(torch, lambda p: la.matrix_power(p, -2), a), run(torch, lambda p: torch.matrix_power(p, 2), b),
            run(torch, lambda p: la.matrix_power(p, 0), a),
            repr(torch.det(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))),
            err(lambda: la.inv(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))), err(lambda: la.inv(torch.zeros(3, 3))),
            err(lambda: la.inv(torch.ones(2, 3))), err(lambda: la.det(torch.ones(2, 3))),
            err(lambda: la.solve(torch.zeros(2, 2), torch.ones(2))), err(lambda: la.inv(torch.ones(2, 2, dtype=torch.int64))),
            err(lambda: la.solve(torch.eye(2), torch.ones(2, dtype=torch.float64))),
            err(lambda: la.solve(torch.eye(2), torch.ones(3))),
            err(lambda: la.inv(torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]]))),
            repr(la.inv(torch.tensor([[0.0, 1.0], [1.0, 0.0]]))), type(la.slogdet(a.detach())).__qualname__]


@case
def case_cross_kron_vdot(torch):
    a = t64(torch, A3)
    b = t64(torch, B3)
    v = t64(torch, [0.5, -1.5, 2.0])
    la = torch.linalg
    return [run(torch, lambda p, q: torch.cross(p, q, dim=1), a, b), run(torch, la.cross, a, b),
            run(torch, la.cross, v, t64(torch, [1.0, 0.25, -0.5])), run(torch, lambda p, q: p.cross(q, dim=0), a, b),
            run(torch, la.cross, a, v), warns(lambda: torch.cross(torch.eye(3), torch.ones(3, 3))),
            err(lambda: torch.cross(torch.ones(2, 2), torch.ones(2, 2))), err(lambda: la.cross(torch.ones(2), torch.ones(2))),
            run(torch, torch.kron, a, t64(torch, M)), run(torch, torch.kron, v, t64(torch, [1.0, 2.0])),
            run(torch, torch.vdot, v, t64(torch, [1.0, 0.25, -0.5])), run(torch, la.vecdot, a, b),
            run(torch, lambda p, q: la.multi_dot([p, q, p]), a, b), run(torch, lambda p, q: la.multi_dot([q[0], p, q[:, 1]]), a, b),
            run(torch, lambda p, q: la.multi_dot([p, q]), a, b)]


# ---------------------------------------------------------------------------- shape ops

@case
def case_roll_rot90_flip(torch):
    x = t64(torch, M)
    return [run(torch, lambda a: a.roll(1, 1), x), run(torch, lambda a: torch.roll(a, 1), x),
            run(torch, lambda a: a.roll((1, -1), (0, 1)), x), run(torch, lambda a: a.roll(-4, 1), x),
            run(torch, torch.rot90, x), run(torch, lambda a: a.rot90(2), x), run(torch, lambda a: torch.rot90(a, -1, [0, 1]), x),
            run(torch, lambda a: a.rot90(3, (1, 0)), x), run(torch, torch.flipud, x), run(torch, torch.fliplr, x),
            run(torch, lambda a: a.flip(0, 1), x), run(torch, lambda a: torch.flip(a, [1]), x),
            err(lambda: torch.roll(x, (1, 1), 0)), err(lambda: torch.rot90(x, 1, (0, 0))), err(lambda: torch.rot90(t64(torch, V), 1)),
            err(lambda: torch.rot90(x, 1, [0, 1, 2])), err(lambda: torch.fliplr(t64(torch, V))), err(lambda: torch.flipud(torch.tensor(1.0)))]


@case
def case_diff(torch):
    x = t64(torch, [[0.3, -0.7, 1.2, 2.0], [-1.9, 0.05, 0.8, -0.4]])
    return [run(torch, torch.diff, x), run(torch, lambda a: a.diff(dim=0), x), run(torch, lambda a: a.diff(n=2), x),
            run(torch, lambda a: a.diff(n=3, dim=1), x), run(torch, lambda a, p: torch.diff(a, prepend=p), x, t64(torch, [[1.0], [2.0]])),
            run(torch, lambda a, p: a.diff(dim=0, append=p), x, t64(torch, [[1.0, 2.0, 3.0, 4.0]])),
            run(torch, lambda a: a.diff(n=0), x), repr(torch.tensor([1, 4, 9, 16]).diff()),
            repr(torch.tensor([True, False, False]).diff()), err(lambda: torch.diff(torch.tensor(1.0))),
            err(lambda: torch.diff(x, n=-1))]


@case
def case_unflatten_atleast(torch):
    x = t64(torch, M)
    v = t64(torch, [0.5, -1.5, 2.0, 1.0])
    s = t64(torch, 2.5)
    return [run(torch, lambda a: a.unflatten(0, (2, 2)), v), run(torch, lambda a: torch.unflatten(a, 1, (3, 1)), x),
            run(torch, lambda a: a.unflatten(-1, (-1, 1)), x), err(lambda: v.unflatten(0, (3, 2))),
            run(torch, torch.atleast_1d, s), run(torch, torch.atleast_2d, v), run(torch, torch.atleast_3d, x),
            run(torch, torch.atleast_3d, v), run(torch, torch.atleast_3d, s), run(torch, torch.atleast_2d, s),
            run(torch, lambda a, b: torch.atleast_2d(a, b), v, x), run(torch, lambda a, b: torch.atleast_1d([a, b]), s, v),
            repr(torch.atleast_1d(v) is v)]


@case
def case_repeat_interleave_tile(torch):
    x = t64(torch, M)
    v = t64(torch, [0.5, -1.5, 2.0])
    return [run(torch, lambda a: a.repeat_interleave(2), v), run(torch, lambda a: a.repeat_interleave(2), x),
            run(torch, lambda a: a.repeat_interleave(2, dim=0), x), run(torch, lambda a: torch.repeat_interleave(a, 3, 1), x),
            run(torch, lambda a: a.repeat_interleave(torch.tensor([1, 2, 0])), v),
            run(torch, lambda a: a.repeat_interleave(torch.tensor([2, 1]), dim=0), x),
            repr(torch.repeat_interleave(torch.tensor([1, 2, 3]))), repr(torch.tensor([1, 2]).repeat_interleave(2)),
            err(lambda: torch.repeat_interleave(v, torch.tensor([1, 2]))), err(lambda: v.repeat_interleave(-1)),
            run(torch, lambda a: a.tile((2,)), x), run(torch, lambda a: a.tile((2, 1, 2)), x), run(torch, lambda a: a.repeat(2, 1), x),
            run(torch, lambda a: a.broadcast_to((2, 3)), v), run(torch, lambda a: torch.broadcast_to(a, (2, 2, 3)), x),
            run(torch, lambda a, b: torch.broadcast_tensors(a, b), x, v), repr(torch.broadcast_shapes((2, 1), (3,)))]


@case
def case_take_gather(torch):
    x = t64(torch, M)
    idx = torch.tensor([[0, 2], [1, 0]])
    return [run(torch, lambda a: a.take(torch.tensor([0, 4, 4, -1])), x), run(torch, lambda a: torch.take(a, idx), x),
            run(torch, lambda a: a.take_along_dim(torch.tensor([[0, 2]]), dim=1), x),
            run(torch, lambda a: torch.take_along_dim(a, torch.tensor([0, 5])), x),
            run(torch, lambda a: torch.take_along_dim(a, torch.tensor([[1], [0]]), 1), x),
            run(torch, lambda a: a.gather(1, idx), x), run(torch, lambda a: torch.gather(a, 0, torch.tensor([[1, 0, 1]])), x),
            run(torch, lambda a: a.index_select(1, torch.tensor([2, 0, 2])), x),
            run(torch, lambda a: torch.index_select(a, 0, torch.tensor([1])), x),
            err(lambda: x.take(torch.tensor([6]))), err(lambda: x.gather(1, torch.tensor([[3]]))),
            err(lambda: x.index_select(0, torch.tensor([2])))]


@case
def case_index_copy_add_fill(torch):
    x = t64(torch, M)
    src = t64(torch, [[10.0, 20.0], [30.0, 40.0]])
    idx = torch.tensor([2, 0])
    return [run(torch, lambda a, s: a.index_copy(1, idx, s), x, src),
            run(torch, lambda a, s: torch.index_copy(a, 0, torch.tensor([1]), s[:1, :1].expand(1, 3)), x, src),
            run(torch, lambda a, s: a.index_add(1, idx, s), x, src),
            run(torch, lambda a, s: a.index_add(1, torch.tensor([1, 1]), s, alpha=-1.5), x, src),
            run(torch, lambda a: a.index_fill(1, idx, -1.0), x),
            run(torch, lambda a, v: a.index_fill(0, torch.tensor([1]), v), x, t64(torch, 2.5)),
            run(torch, lambda a, s: (a * 1).index_copy_(1, idx, s), x, src),
            run(torch, lambda a, s: (a * 1).index_add_(1, idx, s, alpha=2), x, src),
            run(torch, lambda a: (a * 1).index_fill_(1, idx, 3), x),
            run(torch, lambda a, s: a.index_copy(0, torch.tensor([0]), s), t64(torch, 5.0), t64(torch, 7.0)),
            run(torch, lambda a, s: a.index_add(0, torch.tensor([0]), s), t64(torch, 5.0), t64(torch, 7.0)),
            repr(torch.ones(3, dtype=torch.long).index_add(0, torch.tensor([0, 0]), torch.ones(2, dtype=torch.long),
                                                          alpha=2)),
            err(lambda: x.index_copy(1, idx.float(), src)), err(lambda: x.index_copy(1, torch.tensor([5, 0]), src)),
            err(lambda: x.index_copy(1, idx, src.float())), err(lambda: x.index_copy(1, idx, torch.ones(2, 3))),
            err(lambda: x.index_copy(1, torch.tensor([[0]]), src)), err(lambda: x.index_add(1, idx, torch.ones(2, 3))),
            err(lambda: x.index_add(1, torch.tensor([5, 0]), src)), err(lambda: x.index_add(1, idx, src.float())),
            err(lambda: x.index_fill(1, torch.tensor([5]), 1.0)), err(lambda: x.index_fill(1, idx.float(), 1.0)),
            err(lambda: x.index_fill(1, idx, torch.tensor([1.0, 2.0])))]


@case
def case_as_same_size_signed_heaviside(torch):
    x = t64(torch, M)
    a = torch.tensor([-1.0, 0.0, 2.0])
    return [run(torch, lambda t: t.view_as(torch.zeros(3, 2)), x), run(torch, lambda t: t.reshape_as(torch.zeros(6)), x),
            run(torch, lambda t: t.t().reshape_as(torch.zeros(6)), x),
            err(lambda: x.view_as(torch.zeros(4))), err(lambda: x.t().view_as(torch.zeros(6))),
            err(lambda: x.view_as(3)), err(lambda: x.is_same_size(3)),
            x.is_same_size(torch.zeros(2, 3)), x.is_same_size(torch.zeros(3, 2)),
            [torch.ones(1, dtype=d).is_signed() for d in (torch.float32, torch.int64, torch.uint8, torch.bool, torch.int8)],
            torch.tensor([1.0]).is_nonzero(), torch.tensor(0).is_nonzero(), err(lambda: torch.ones(2).is_nonzero()),
            err(lambda: torch.ones(0).is_nonzero()), torch.is_complex(x),
            repr(torch.heaviside(a, torch.tensor([0.5]))), repr(a.heaviside(torch.tensor(7.0))),
            repr(torch.heaviside(torch.tensor([-2, 0, 3]), torch.tensor([9]))),
            err(lambda: torch.heaviside(a, torch.tensor([1]))),
            err(lambda: torch.heaviside(x, torch.tensor(0.5, dtype=torch.float64)).sum().backward()),
            run(torch, lambda t: t.split_with_sizes([1, 2], dim=1), x),
            run(torch, lambda t: torch.split_with_sizes(t, [2, 0]), x),
            err(lambda: x.split_with_sizes([2, 3])), err(lambda: x.split_with_sizes(2))]


@case
def case_scatter_masked(torch):
    x = t64(torch, M)
    src = t64(torch, [[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
    idx = torch.tensor([[0], [2]])
    mask = torch.tensor([[True, False, True], [False, True, True]])
    return [run(torch, lambda a: a.scatter(1, idx, 5.0), x),
            run(torch, lambda a, s: a.scatter(1, idx, s), x, t64(torch, [[10.0], [20.0]])),
            run(torch, lambda a, s: torch.scatter_add(a, 1, torch.tensor([[0, 0], [2, 1]]), s), x, t64(torch, [[1.0, 2.0], [3.0, 4.0]])),
            run(torch, lambda a, s: a.scatter_add(0, torch.tensor([[1, 0, 1], [1, 1, 0]]), s), x, src),
            run(torch, lambda a: a.masked_select(mask), x), run(torch, lambda a: torch.masked_select(a, mask[0]), x),
            run(torch, lambda a: (a * 1).scatter_(1, idx, 2.0), x),
            repr(torch.tensor([[1, 2], [3, 4]]).masked_select(torch.tensor([True, False])))]


@case
def case_views_and_splits(torch):
    x = t64(torch, [[0.3, -0.7, 1.2, 0.4], [-1.9, 0.05, 0.8, 2.0]])
    v = t64(torch, [0.5, -1.5, 2.0])
    return [run(torch, lambda a: a.narrow(1, 1, 2), x), run(torch, lambda a: torch.narrow(a, -1, 0, 3), x),
            run(torch, lambda a: a.unbind(1), x), run(torch, torch.unbind, x), run(torch, lambda a: a.movedim(0, 1), x),
            run(torch, lambda a: torch.movedim(a, (0, 1), (1, 0)), x), run(torch, lambda a: a.moveaxis(-1, 0), x),
            run(torch, lambda a: a.tensor_split(3, dim=1), x), run(torch, lambda a: torch.tensor_split(a, [1, 3], dim=1), x),
            run(torch, lambda a: a.hsplit(2), x), run(torch, lambda a: torch.vsplit(a, [1]), x), run(torch, lambda a: a.hsplit(3), v),
            run(torch, lambda a: a.chunk(2, 1), x), run(torch, lambda a: a.split([1, 3], 1), x),
            run(torch, lambda a: a.unfold(1, 2, 1), x), run(torch, lambda a: a.unfold(0, 2, 2), t64(torch, V)),
            run(torch, lambda a: torch.dstack([a, a]), x), run(torch, lambda a: torch.column_stack([a, a * 2]), v),
            run(torch, lambda a: torch.row_stack([a, a]), v), run(torch, lambda a: torch.hstack([a, a]), v),
            run(torch, lambda a: torch.vstack([a, a]), v), run(torch, lambda a: a.swapdims(0, 1), x),
            err(lambda: torch.hsplit(x, 3)), err(lambda: torch.vsplit(v, 1)), err(lambda: torch.tensor_split(v, 0))]


@case
def case_meshgrid_cartesian(torch):
    a = t64(torch, [0.5, -1.5, 2.0])
    b = t64(torch, [1.0, 3.0])
    return [run(torch, lambda p, q: torch.meshgrid(p, q, indexing="ij"), a, b),
            run(torch, lambda p, q: torch.meshgrid(p, q, indexing="xy"), a, b),
            run(torch, lambda p, q: torch.meshgrid([p, q], indexing="ij"), a, b),
            run(torch, lambda p, q: torch.meshgrid(p, q), a, b),
            warns(lambda: torch.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5]))),
            run(torch, lambda p, q: torch.meshgrid(p, q, p, indexing="xy"), a, b),
            run(torch, torch.cartesian_prod, a, b), run(torch, torch.cartesian_prod, a),
            repr(torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([5]))),
            err(lambda: torch.meshgrid(a, b, indexing="foo")), err(lambda: torch.cartesian_prod(torch.ones(2, 2)))]


@case
def case_inplace_comparisons_and_torch_underscore(torch):
    x = t64(torch, [1.0, 2.0, 3.0])
    i = torch.tensor([1, 2, 3])
    return [run(torch, lambda a: (a * 1).eq_(2.0), x), run(torch, lambda a: (a * 1).lt_(a * 0 + 2), x),
            run(torch, lambda a: (a * 1).greater_equal_(2.0), x), repr(i.clone().lt_(2)), repr(i.clone().ne_(i)),
            run(torch, lambda a: (a * 1).logical_and_(a * 0), x), run(torch, lambda a: (a * 1).logical_not_(), x),
            repr(torch.tensor([1.0, 0.0]).logical_not_()), err(lambda: t64(torch, [1.0]).eq_(1.0)),
            run(torch, lambda a: torch.log1p_(a * 1), x), run(torch, lambda a: torch.relu_(a * 1 - 2), x),
            run(torch, lambda a: torch.floor_(a * 0.5), x), run(torch, lambda a: torch.erf_(a * 1), x),
            run(torch, lambda a: (a * 1).clip_(1.5, 2.5), x),
            run(torch, lambda a: (a * 1).addmv_(torch.eye(3, dtype=torch.float64), a), x)]
