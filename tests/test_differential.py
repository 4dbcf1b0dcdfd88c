"""Differential testing of gradcli's engine against real PyTorch 2.13 (skipped without torch).

Random expression graphs: leaves of random shapes (0-d, empty, broadcastable) and dtypes
(float32, float64, int64, bool), then a few ops drawn from a table (binary arithmetic and Python
operators with tensors and Python numbers, unary math, reductions with dims, matmul, shape ops,
indexing). Each graph is built while it is drawn, in torch, so that the ops' arguments (dims,
sizes, indices) mostly fit; it is then run again from scratch in torch and in
``gradcli.engine.api``, and compared node by node:

  * an op that raises in torch raises the same exception type in gradcli (and the reverse);
  * dtype, shape, requires_grad, is_leaf exactly; the grad_fn name exactly;
  * values: integers and bools exactly, floats with allclose at tight tolerances (NaN where
    torch has NaN). The last float32 ulp of transcendental functions may differ (torch uses
    SLEEF/MKL kernels), so floats are never compared bit for bit;
  * the repr string exactly, where the values are exactly equal;
  * first- and second-order gradients of a weighted sum of the last float node with respect
    to every float leaf (torch.autograd.grad with create_graph=True, allow_unused=True): None
    where torch has None, dtype, shape and values as above.

The examples are derandomized; tools/difftest_long.py runs the same generator for as long as
asked. A mismatch that is not fixed at once is written down as a golden script
(tests/golden/scripts/) and listed in KNOWN below, so the suite stays green and the gap tracked.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gradcli.engine import api  # noqa: E402



@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Deterministic reductions and no thread start-up per op, for this module only: later tests
    compare gradcli's 2-thread splits with torch's bits."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


BUDGET = {"graphs": 400, "operators": 200}


def diff_settings(kind):
    return settings(max_examples=BUDGET[kind], derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


# ============================================================================ the op table
#
# Each op: name -> (arity, kinds of its inputs, fn(T, *inputs, **params), params(draw, *metas)).
# `T` is the torch module or gradcli.engine.api; the same lambda runs on both. A meta is
# (shape, dtype name) of an input. "any" inputs take every dtype, "float" only floating ones,
# "num" ints and floats, "int" integers and bools.

FLOAT = ("float32", "float64")
NUM = FLOAT + ("int64",)
ALL = NUM + ("bool",)


def _dim(draw, shape, allow_none=False):
    """A valid dim of a tensor of this shape (a 0-d tensor takes 0 and -1), or None."""
    n = max(len(shape), 1)
    return draw(st.sampled_from(list(range(-n, n)) + ([None] if allow_none else [])))


def _no_params(draw, *metas):
    return {}


def _reduce_params(draw, meta):
    shape = meta[0]
    d = _dim(draw, shape, allow_none=True)
    if d is None:
        return {}
    return {"dim": d, "keepdim": draw(st.booleans())}


def _dim_param(draw, meta):
    return {"dim": _dim(draw, meta[0])}


def _scalar(draw, meta=None):
    return draw(st.sampled_from([2, -1, 0, 3, 0.5, -2.5, 1.0, 2.0, 1e-3, True, False]))


def _clamp_params(draw, meta):
    lo = draw(st.sampled_from([None, -1.0, 0.0, 0.5, -1]))
    hi = draw(st.sampled_from([None, 1.0, 2.0, 0.25]))
    if lo is None and hi is None:
        hi = 1.0
    return {"min": lo, "max": hi}


def _reshape_params(draw, meta):
    shape = meta[0]
    n = math.prod(shape)
    options = [(-1,), (n,), (1, n), (n, 1)] if n else [(-1,), (0,), (0, 1), (2, 0)]
    if n and n % 2 == 0:
        options += [(2, -1), (-1, 2)]
    return {"shape": draw(st.sampled_from(options))}


def _permute_params(draw, meta):
    return {"dims": tuple(draw(st.permutations(list(range(len(meta[0])))))) or (0,)}


def _transpose_params(draw, meta):
    shape = meta[0]
    if not shape:
        return {"d0": 0, "d1": -1}
    return {"d0": _dim(draw, shape), "d1": _dim(draw, shape)}


def _unsqueeze_params(draw, meta):
    n = len(meta[0]) + 1
    return {"dim": draw(st.integers(-n, n - 1))}


def _expand_params(draw, meta):
    shape = meta[0]
    new = [draw(st.sampled_from([s, 3])) if s == 1 else (-1 if draw(st.booleans()) else s) for s in shape]
    lead = draw(st.sampled_from([[], [2]])) if new else [2]
    return {"sizes": tuple(lead + new)}


def _repeat_params(draw, meta):
    n = len(meta[0])
    return {"reps": tuple(draw(st.integers(1, 2)) for _ in range(max(1, n + draw(st.integers(0, 1)))))}


def _index_params(draw, meta):
    shape = meta[0]
    if not shape:
        return {"index": draw(st.sampled_from([None, Ellipsis, ()]))}
    size = shape[0]
    choices = [slice(None, None, 2), slice(1, None), slice(None, -1), Ellipsis, None, (Ellipsis, None)]
    if size:
        choices += [0, -1, [0], [size - 1, 0], slice(size - 1, None)]
    if len(shape) >= 2 and shape[1]:
        choices += [(slice(None), 0), (Ellipsis, -1), (0, slice(None, None, 2))]
    return {"index": draw(st.sampled_from(choices))}


def _narrow_params(draw, meta):
    shape = meta[0]
    if not shape:
        return {"dim": 0, "start": 0, "length": 1}
    d = _dim(draw, shape)
    size = shape[d]
    start = draw(st.integers(0, size)) if size else 0
    return {"dim": d, "start": start, "length": draw(st.integers(0, size - start))}


def _pow_exponent(draw, meta):
    return {"e": draw(st.sampled_from([2, 3, 0.5, -1, 2.0, 0, 1, -0.5, 1.5]))}


def _cat_params(draw, *metas):
    return {"dim": _dim(draw, metas[0][0]) if metas[0][0] else 0}


OPS = {
    # binary, tensor (x) tensor with broadcasting
    "add": (2, ("any", "any"), lambda T, a, b: T.add(a, b), _no_params),
    "add_alpha": (2, ("num", "num"), lambda T, a, b: T.add(a, b, alpha=2), _no_params),
    "sub": (2, ("num", "num"), lambda T, a, b: T.sub(a, b), _no_params),
    "mul": (2, ("any", "any"), lambda T, a, b: T.mul(a, b), _no_params),
    "div": (2, ("any", "any"), lambda T, a, b: T.div(a, b), _no_params),
    "div_floor": (2, ("num", "num"), lambda T, a, b: T.div(a, b, rounding_mode="floor"), _no_params),
    "div_trunc": (2, ("num", "num"), lambda T, a, b: T.div(a, b, rounding_mode="trunc"), _no_params),
    "pow": (2, ("float", "float"), lambda T, a, b: T.pow(a.abs() + 0.5, b), _no_params),
    "maximum": (2, ("num", "num"), lambda T, a, b: T.maximum(a, b), _no_params),
    "minimum": (2, ("num", "num"), lambda T, a, b: T.minimum(a, b), _no_params),
    "atan2": (2, ("float", "float"), lambda T, a, b: T.atan2(a, b), _no_params),
    "remainder": (2, ("num", "num"), lambda T, a, b: T.remainder(a, b), _no_params),
    "fmod": (2, ("num", "num"), lambda T, a, b: T.fmod(a, b), _no_params),
    "eq": (2, ("any", "any"), lambda T, a, b: T.eq(a, b), _no_params),
    "lt": (2, ("num", "num"), lambda T, a, b: a < b, _no_params),
    "ge": (2, ("num", "num"), lambda T, a, b: a >= b, _no_params),
    "logical_and": (2, ("any", "any"), lambda T, a, b: T.logical_and(a, b), _no_params),
    "where": (2, ("any", "any"), lambda T, a, b: T.where(a > 0 if a.dtype != T.bool else a, a, b), _no_params),
    "hypot": (2, ("float", "float"), lambda T, a, b: T.hypot(a, b), _no_params),
    "xlogy": (2, ("float", "float"), lambda T, a, b: T.xlogy(a, b.abs()), _no_params),
    "lerp": (2, ("float", "float"), lambda T, a, b: T.lerp(a, b, 0.25), _no_params),
    # Python operators, also with Python numbers on either side
    "op_add": (2, ("any", "any"), lambda T, a, b: a + b, _no_params),
    "op_sub": (2, ("num", "num"), lambda T, a, b: a - b, _no_params),
    "op_mul": (2, ("any", "any"), lambda T, a, b: a * b, _no_params),
    "op_div": (2, ("any", "any"), lambda T, a, b: a / b, _no_params),
    "op_floordiv": (2, ("num", "num"), lambda T, a, b: a // b, _no_params),
    "op_mod": (2, ("num", "num"), lambda T, a, b: a % b, _no_params),
    "op_pow": (1, ("float",), lambda T, a, e: a ** e, _pow_exponent),
    "op_rpow": (1, ("float",), lambda T, a: 2 ** a, _no_params),
    "op_radd": (1, ("any",), lambda T, a, s: s + a, lambda draw, m: {"s": _scalar(draw)}),
    "op_rsub": (1, ("num",), lambda T, a, s: s - a, lambda draw, m: {"s": _scalar(draw)}),
    "op_rmul": (1, ("any",), lambda T, a, s: s * a, lambda draw, m: {"s": _scalar(draw)}),
    "op_rdiv": (1, ("any",), lambda T, a, s: s / a, lambda draw, m: {"s": _scalar(draw)}),
    "op_scalar_add": (1, ("any",), lambda T, a, s: a + s, lambda draw, m: {"s": _scalar(draw)}),
    "op_scalar_mul": (1, ("any",), lambda T, a, s: a * s, lambda draw, m: {"s": _scalar(draw)}),
    "op_scalar_div": (1, ("any",), lambda T, a, s: a / s, lambda draw, m: {"s": _scalar(draw)}),
    "op_neg": (1, ("num",), lambda T, a: -a, _no_params),
    "op_invert": (1, ("int",), lambda T, a: ~a, _no_params),
    "op_and": (2, ("int", "int"), lambda T, a, b: a & b, _no_params),
    "op_matmul": (2, ("num", "num"), lambda T, a, b: a @ b, _no_params),
    "matmul": (2, ("float", "float"), lambda T, a, b: T.matmul(a, b), _no_params),
    "mm_t": (1, ("float",), lambda T, a: T.mm(a, a.t()) if a.dim() == 2 else T.mm(a.reshape(1, -1), a.reshape(-1, 1)),
             _no_params),
    "outer": (2, ("num", "num"), lambda T, a, b: T.outer(a.flatten(), b.flatten()), _no_params),
    "dot": (2, ("float", "float"), lambda T, a, b: T.dot(a.flatten(), a.flatten() * 2), _no_params),
    # unary math
    **{name: (1, ("float",), (lambda n: lambda T, a: getattr(T, n)(a))(name), _no_params) for name in (
        "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid",
        "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "erf", "erfc", "reciprocal", "square",
        "floor", "ceil", "round", "trunc", "frac", "sign", "relu", "abs", "neg", "exp2", "sinc", "logit",
        "deg2rad", "sgn", "erfinv", "expm1", "nan_to_num", "signbit", "isnan", "isfinite")},
    "abs_int": (1, ("num",), lambda T, a: T.abs(a), _no_params),
    "clamp": (1, ("num",), lambda T, a, min, max: T.clamp(a, min=min, max=max), _clamp_params),
    "round_decimals": (1, ("float",), lambda T, a: T.round(a, decimals=2), _no_params),
    "logical_not": (1, ("any",), lambda T, a: T.logical_not(a), _no_params),
    "log_abs": (1, ("float",), lambda T, a: T.log(a.abs() + 1), _no_params),
    "sqrt_abs": (1, ("float",), lambda T, a: T.sqrt(a.abs() + 0.25), _no_params),
    "float": (1, ("any",), lambda T, a: a.float(), _no_params),
    "double": (1, ("any",), lambda T, a: a.double(), _no_params),
    "long": (1, ("any",), lambda T, a: a.long(), _no_params),
    "bool": (1, ("any",), lambda T, a: a.bool(), _no_params),
    # reductions
    **{name: (1, ("float",), (lambda n: lambda T, a, **kw: getattr(T, n)(a, **kw))(name), _reduce_params) for name in (
        "sum", "mean", "amax", "amin", "std", "var", "nansum", "prod")},
    "logsumexp": (1, ("float",), lambda T, a, dim, keepdim: T.logsumexp(a, dim, keepdim),
                  lambda draw, m: {"dim": _dim(draw, m[0]), "keepdim": draw(st.booleans())}),
    "sum_int": (1, ("any",), lambda T, a, **kw: T.sum(a, **kw), _reduce_params),
    "max_dim": (1, ("num",), lambda T, a, dim: T.max(a, dim=dim)[0], _dim_param),
    "min_dim_indices": (1, ("num",), lambda T, a, dim: T.min(a, dim=dim)[1], _dim_param),
    "max_all": (1, ("num",), lambda T, a: T.max(a), _no_params),
    "argmax": (1, ("num",), lambda T, a, **kw: T.argmax(a, **kw), _reduce_params),
    "norm": (1, ("float",), lambda T, a: T.norm(a), _no_params),
    "softmax": (1, ("float",), lambda T, a, dim: T.softmax(a, dim), _dim_param),
    "log_softmax": (1, ("float",), lambda T, a, dim: T.log_softmax(a, dim), _dim_param),
    "cumsum": (1, ("num",), lambda T, a, dim: T.cumsum(a, dim), _dim_param),
    "cumprod": (1, ("float",), lambda T, a, dim: T.cumprod(a, dim), _dim_param),
    "all": (1, ("any",), lambda T, a: T.all(a), _no_params),
    "any_dim": (1, ("any",), lambda T, a, dim: T.any(a, dim), _dim_param),
    "mean_int": (1, ("num",), lambda T, a: T.mean(a), _no_params),
    # shape ops
    "reshape": (1, ("any",), lambda T, a, shape: a.reshape(shape), _reshape_params),
    "view": (1, ("any",), lambda T, a, shape: a.view(shape), _reshape_params),
    "flatten": (1, ("any",), lambda T, a: a.flatten(), _no_params),
    "t": (1, ("any",), lambda T, a: a.t(), _no_params),
    "T": (1, ("any",), lambda T, a: a.mT if a.dim() >= 2 else a, _no_params),
    "transpose": (1, ("any",), lambda T, a, d0, d1: a.transpose(d0, d1), _transpose_params),
    "permute": (1, ("any",), lambda T, a, dims: a.permute(*dims), _permute_params),
    "unsqueeze": (1, ("any",), lambda T, a, dim: a.unsqueeze(dim), _unsqueeze_params),
    "squeeze": (1, ("any",), lambda T, a: a.squeeze(), _no_params),
    "squeeze_dim": (1, ("any",), lambda T, a, dim: a.squeeze(dim), _dim_param),
    "expand": (1, ("any",), lambda T, a, sizes: a.expand(*sizes), _expand_params),
    "repeat": (1, ("any",), lambda T, a, reps: a.repeat(*reps), _repeat_params),
    "flip": (1, ("any",), lambda T, a, dim: a.flip(dim), _dim_param),
    "narrow": (1, ("any",), lambda T, a, dim, start, length: a.narrow(dim, start, length), _narrow_params),
    "contiguous_clone": (1, ("any",), lambda T, a: a.clone().contiguous(), _no_params),
    "detach": (1, ("any",), lambda T, a: a.detach(), _no_params),
    "cat": (2, ("any", "any"), lambda T, a, b, dim: T.cat([a, b], dim), _cat_params),
    "stack": (2, ("any", "any"), lambda T, a, b, dim: T.stack([a, b], dim), _cat_params),
    "cat_self": (1, ("any",), lambda T, a, dim: T.cat([a, a * 2], dim), _cat_params),
    "stack_self": (1, ("any",), lambda T, a, dim: T.stack([a, a], dim), _cat_params),
    # indexing
    "index": (1, ("any",), lambda T, a, index: a[index], _index_params),
    "mask": (1, ("num",), lambda T, a: a[a > 0], _no_params),
    "index_tensor": (1, ("any",), lambda T, a: a[T.tensor([0, -1])] if a.dim() else a, _no_params),
    "gather": (1, ("num",), lambda T, a: T.gather(a, -1, T.zeros(a.shape, dtype=T.int64)) if a.dim() else a,
               _no_params),
    "masked_fill": (1, ("num",), lambda T, a: a.masked_fill(a < 0, 0.5), _no_params),
    "diagonal": (1, ("any",), lambda T, a: a.diagonal() if a.dim() >= 2 else a, _no_params),
    "tril": (1, ("num",), lambda T, a: a.tril() if a.dim() >= 2 else a, _no_params),
}

KIND_DTYPES = {"any": ALL, "float": FLOAT, "num": NUM, "int": ("int64", "bool")}

# Mismatches found by this test that are not fixed yet, each tracked by a golden script in
# tests/golden/scripts/ (xfail in tests/test_samples.py's ENGINE_GAPS): (golden, rule), where
# rule(op, metas, params) says whether a step runs into it (metas: (shape, dtype) of its inputs).
# A graph with such a step is drawn but not compared.
KNOWN = [
    ("sgn_nan_efficient_zero", lambda op, metas, params: op == "sgn"),
    ("negative_zero_selection (the sign bit of NaN)", lambda op, metas, params: op == "signbit"),
    ("matmul_empty_mixed_dtype", lambda op, metas, params: "matmul" in op and len(metas) == 2 and
     metas[0][1] != metas[1][1] and any(0 in m[0] for m in metas)),
]

# Ops whose result jumps (floor, truncation to an integer, comparisons): when their input differs
# from torch's in the last bits (allowed: float32 transcendental functions), their result may
# differ by a whole step. Such a graph is inconclusive from there on, not a mismatch.
DISCONTINUOUS = {"floor", "ceil", "round", "trunc", "frac", "sign", "sgn", "long", "bool", "div_floor", "div_trunc",
                 "op_floordiv", "remainder", "fmod", "op_mod", "eq", "lt", "ge", "where", "mask", "masked_fill",
                 "signbit", "isfinite", "isnan", "round_decimals", "max_dim", "min_dim_indices", "argmax",
                 "max_all", "amax", "amin", "maximum", "minimum", "relu", "clamp", "abs", "abs_int", "logical_not",
                 "logical_and", "all", "any_dim", "sum_int", "op_invert", "op_and", "nan_to_num"}
# grad_fn names that differ for a known reason (none at present)
SAME_NODE = set()


# ============================================================================ leaves and graphs

def _np_dtype(name):
    return {"float32": np.float32, "float64": np.float64, "int64": np.int64, "bool": np.bool_}[name]


def _values(rng, shape, dtype):
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype == "int64":
        return np.asarray(rng.integers(-4, 5, size=shape), dtype=np.int64)
    kind = rng.integers(0, 4)
    if kind == 0:  # small integers as floats: exact arithmetic, exact reprs
        arr = rng.integers(-3, 4, size=shape).astype(np.float64)
    elif kind == 1:
        arr = rng.uniform(-0.9, 0.9, size=shape)
    else:
        arr = rng.uniform(-3, 3, size=shape)
    return np.asarray(arr, dtype=_np_dtype(dtype))


@st.composite
def shapes(draw, ndim=None):
    n = draw(st.integers(0, 3)) if ndim is None else ndim
    return tuple(draw(st.sampled_from([1, 2, 3, 4, 0] if draw(st.integers(0, 9)) == 0 else [1, 2, 3, 4]))
                 for _ in range(n))


def _broadcast_partner(draw, shape):
    """A shape that broadcasts with `shape` (sometimes one that does not)."""
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return draw(shapes())  # anything: may not broadcast
    if kind == 1:
        return ()
    out = [draw(st.sampled_from([s, 1])) for s in shape]
    cut = draw(st.integers(0, len(out)))
    return tuple(out[cut:])


def _matmul_partner(draw, shape):
    if not shape:
        return draw(shapes())
    k = shape[-1]
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return (k,)
    if kind == 1:
        return (k, draw(st.integers(1, 3)))
    if kind == 2 and len(shape) >= 2:
        return shape[:-2] + (k, draw(st.integers(1, 3)))
    return (k + 1, 2)  # mismatch


class Graph:
    """Nodes in order: leaves ("leaf", numpy array, requires_grad) and steps ("op", name, input
    node indices, params)."""

    def __init__(self):
        self.items = []

    @property
    def leaves(self):
        return [i for i, item in enumerate(self.items) if item[0] == "leaf"]

    @property
    def steps(self):
        return [item[1:] for item in self.items if item[0] == "op"]

    def op_name(self, i):
        return self.items[i][1] if self.items[i][0] == "op" else "leaf"

    def __repr__(self):
        lines = []
        for i, item in enumerate(self.items):
            if item[0] == "leaf":
                a, rg = item[1], item[2]
                lines.append(f"node{i} = leaf {a.dtype}{list(a.shape)} requires_grad={rg} {a.tolist()!r}")
            else:
                _, op, ins, params = item
                lines.append(f"node{i} = {op}({', '.join(f'node{j}' for j in ins)}, {params})")
        return "\n".join(lines)

    def build(self, T):
        """Run in T (torch or api): (nodes, error) with error = (node index, exception) or None."""
        nodes = []
        for i, item in enumerate(self.items):
            if item[0] == "leaf":
                t = T.from_numpy(item[1].copy())
                if item[2]:
                    t.requires_grad_(True)
                nodes.append(t)
                continue
            _, op, ins, params = item
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    nodes.append(OPS[op][2](T, *[nodes[j] for j in ins], **params))
            except Exception as exc:  # noqa: BLE001 - compared with the other side's
                return nodes, (i, exc)
        return nodes, None


def _meta(t):
    return tuple(t.shape), str(t.dtype).replace("torch.", "")


@st.composite
def graphs(draw, max_steps=4):
    """A Graph, built in torch while drawn (shapes and dtypes of the nodes are known)."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    g = Graph()
    nodes = []

    def add_leaf(shape, dtype):
        arr = _values(rng, shape, dtype)
        rg = dtype in FLOAT and draw(st.integers(0, 3)) > 0
        g.items.append(("leaf", arr, rg))
        t = torch.from_numpy(arr.copy())
        if rg:
            t.requires_grad_(True)
        nodes.append(t)
        return len(nodes) - 1

    add_leaf(draw(shapes()), draw(st.sampled_from(ALL + FLOAT * 2)))
    for _ in range(draw(st.integers(1, max_steps))):
        op = draw(st.sampled_from(sorted(OPS)))
        arity, kinds, fn, params_fn = OPS[op]
        first = draw(st.sampled_from(range(len(nodes))))
        if _meta(nodes[first])[1] not in KIND_DTYPES[kinds[0]]:
            first = add_leaf(draw(shapes()), draw(st.sampled_from(KIND_DTYPES[kinds[0]])))
        ins = [first]
        if arity == 2:
            shape0 = tuple(nodes[first].shape)
            partner = _matmul_partner(draw, shape0) if "matmul" in op else _broadcast_partner(draw, shape0)
            if op in ("cat", "stack"):
                partner = shape0 if draw(st.integers(0, 4)) else draw(shapes())
            candidates = [i for i, t in enumerate(nodes) if i != first and tuple(t.shape) == partner
                          and _meta(t)[1] in KIND_DTYPES[kinds[1]]]
            if candidates and draw(st.booleans()):
                ins.append(draw(st.sampled_from(candidates)))
            else:
                ins.append(add_leaf(partner, draw(st.sampled_from(KIND_DTYPES[kinds[1]]))))
        params = params_fn(draw, *[_meta(nodes[i]) for i in ins])
        g.items.append(("op", op, ins, params))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                nodes.append(fn(torch, *[nodes[i] for i in ins], **params))
        except Exception:  # noqa: BLE001 - an error is a result too: it ends the graph
            break
        if not isinstance(nodes[-1], torch.Tensor):
            g.items.pop()
            nodes.pop()
            break
    return g


# ============================================================================ comparison

TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-10, atol=1e-12),
       "float16": dict(rtol=2e-3, atol=1e-3)}
# second derivatives pass through more roundings (and formulas that cancel differently)
TOL2 = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-8, atol=1e-10),
        "float16": dict(rtol=1e-2, atol=1e-2)}

# The graph of a gradient made with create_graph=True (its grad_fn and requires_grad): gradcli
# builds backward formulas from its ordinary ops, so the names differ from torch's
# (MulBackward0 where torch has TanhBackwardBackward0). Visible when a script prints such a
# gradient; tracked by the golden scripts double_backward_*.grad. Off in the suite, on with
# tools/difftest_long.py --double-backward-graph.
STRICT_DOUBLE_BACKWARD = False


class Mismatch(AssertionError):
    pass


def _array(t):
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t._is_zerotensor():  # some double-backward grads; numpy(force=True) of one can crash torch
            return np.zeros(tuple(t.shape), dtype=_np_dtype(str(t.dtype).replace("torch.", "")))
        return np.array(t.numpy(), copy=True)
    return np.asarray(t.detach().numpy())


def _grad_fn_name(t):
    fn = t.grad_fn
    return None if fn is None else fn.name()


PRECISION = {"float16": 0, "float32": 1, "float64": 2}


def loosest(dtypes):
    """The float dtype of least precision among dtypes (None if there is none)."""
    floats = [d for d in dtypes if d in PRECISION]
    return min(floats, key=PRECISION.get) if floats else None


def compare_tensor(what, ours, ref, check_repr=True, check_graph=True, table=TOL, through=None):
    """Raise Mismatch naming `what` if gradcli's tensor `ours` differs from torch's `ref`.
    Floats are compared with table's tolerance for the loosest of their dtype and `through` (the
    loosest float dtype the value was computed through: float32 rounding carries into float64)."""
    if not isinstance(ours, api.Tensor):
        raise Mismatch(f"{what}: gradcli gave {type(ours).__name__}, torch a Tensor")
    dtype = str(ref.dtype).replace("torch.", "")
    if str(ours.dtype).replace("torch.", "") != dtype:
        raise Mismatch(f"{what}: dtype {ours.dtype} != torch's {ref.dtype}")
    if tuple(ours.shape) != tuple(ref.shape):
        raise Mismatch(f"{what}: shape {tuple(ours.shape)} != torch's {tuple(ref.shape)}")
    if check_graph:
        if ours.requires_grad != ref.requires_grad:
            raise Mismatch(f"{what}: requires_grad {ours.requires_grad} != torch's {ref.requires_grad}")
        if ours.is_leaf != ref.is_leaf:
            raise Mismatch(f"{what}: is_leaf {ours.is_leaf} != torch's {ref.is_leaf}")
        if _grad_fn_name(ours) != _grad_fn_name(ref) and (_grad_fn_name(ours), _grad_fn_name(ref)) not in SAME_NODE:
            raise Mismatch(f"{what}: grad_fn {_grad_fn_name(ours)} != torch's {_grad_fn_name(ref)}")
    a, b = _array(ours), _array(ref)
    if dtype in TOL:
        tolerance = table[loosest([dtype, through or dtype])]
        # exactly equal, the signs of zeros too (which zero a selection keeps: golden negative_zero_selection)
        same = np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a), np.signbit(b))
        if table is TOL2:  # second derivatives where one is not finite: domain edges (golden boundary_second_order)
            keep = np.isfinite(b.astype(np.float64)) & np.isfinite(a.astype(np.float64))
            a, b = np.where(keep, a, 0), np.where(keep, b, 0)
        if not same and not np.allclose(a.astype(np.float64), b.astype(np.float64), equal_nan=True, **tolerance):
            bad = ~np.isclose(a.astype(np.float64), b.astype(np.float64), equal_nan=True, **tolerance)
            raise Mismatch(f"{what}: values differ at {np.argwhere(bad)[:3].tolist()}: "
                           f"{a[bad][:3].tolist()} != torch's {b[bad][:3].tolist()}")
    else:
        same = np.array_equal(a, b)
        if not same:
            raise Mismatch(f"{what}: values {a.tolist()} != torch's {b.tolist()}")
    if check_repr and same:
        ro, rr = repr(ours), repr(ref)
        if ro != rr:
            raise Mismatch(f"{what}: repr\n{ro}\n!= torch's\n{rr}")


def _weights(shape, dtype, T):
    n = math.prod(shape)
    w = (np.arange(n, dtype=np.float64).reshape(shape) % 3 + 1) / 2  # 0.5, 1, 1.5: exact in float32
    return T.from_numpy(np.asarray(w, dtype=_np_dtype(dtype)))


def compare_gradients(graph, ours_nodes, ref_nodes):
    """First- and second-order gradients of a weighted sum of the last float node that requires
    grad, with respect to every leaf that requires grad. The first-order gradients (made with
    create_graph=True) are compared with their graph too: a script that prints one shows it."""
    leaf_ids = [i for i in graph.leaves if graph.items[i][2]]
    out_ids = [i for i in range(len(ref_nodes)) if ref_nodes[i].requires_grad and ref_nodes[i].is_floating_point()
               and graph.items[i][0] == "op"]
    if not leaf_ids or not out_ids:
        return
    k = out_ids[-1]
    dtype = str(ref_nodes[k].dtype).replace("torch.", "")
    through = loosest(str(t.dtype).replace("torch.", "") for t in ref_nodes)
    results = []
    for T, nodes in ((torch, ref_nodes), (api, ours_nodes)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = (nodes[k] * _weights(tuple(nodes[k].shape), dtype, T)).sum()
                leaves = [nodes[i] for i in leaf_ids]
                g1 = T.autograd.grad(y, leaves, create_graph=True, allow_unused=True)
                z = sum((g * _weights(tuple(g.shape), str(g.dtype).replace("torch.", ""), T)).sum()
                        for g in g1 if g is not None and g.requires_grad)
                g2 = None
                if not isinstance(z, int):
                    g2 = T.autograd.grad(z, leaves, allow_unused=True)
                results.append(("ok", g1, g2))
        except Exception as exc:  # noqa: BLE001
            results.append(("error", exc, None))
    (rk, r1, r2), (ok, o1, o2) = results
    if rk == "error" or ok == "error":
        if rk != ok or type(r1).__name__ != type(o1).__name__:
            raise Mismatch(f"gradients of node{k}: torch {'raised ' + repr(r1) if rk == 'error' else 'worked'}, "
                           f"gradcli {'raised ' + repr(o1) if ok == 'error' else 'worked'}")
        return
    for leaf, r, o in zip(leaf_ids, r1, o1):
        if r is not None and o is not None and r.requires_grad != o.requires_grad and not STRICT_DOUBLE_BACKWARD:
            return  # one side's second derivative is structurally zero (None): not comparable
        if (r is None) != (o is None):
            raise Mismatch(f"first-order grad of node{k} wrt node{leaf}: torch {r!r}, gradcli {o!r}")
        if r is not None:
            compare_tensor(f"first-order grad of node{k} wrt node{leaf}", o, r, check_repr=False,
                           check_graph=STRICT_DOUBLE_BACKWARD, through=through)
    if r2 is None or o2 is None:
        return  # the first-order grads agree on requires_grad, so both are None
    for leaf, r, o in zip(leaf_ids, r2, o2):
        if r is None or o is None:
            # an unused input: torch says None where the derivative is structurally zero; zeros are fine
            zero = lambda t: t is None or not np.any(_array(t))  # noqa: E731
            if not (zero(r) and zero(o)):
                raise Mismatch(f"second-order grad of node{k} wrt node{leaf}: torch {r!r}, gradcli {o!r}")
            continue
        compare_tensor(f"second-order grad of node{k} wrt node{leaf}", o, r, check_repr=False, check_graph=False,
                       table=TOL2, through=through)


def _error_text(exc):
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def known_gap(graph, ref_nodes):
    """The golden that tracks a known mismatch this graph runs into (torch's nodes give the
    shapes and dtypes of the inputs of each step), or None."""
    for i, item in enumerate(graph.items):
        if item[0] != "op":
            continue
        _, op, ins, params = item
        if all(j < len(ref_nodes) for j in ins):
            metas = [_meta(ref_nodes[j]) for j in ins]
            for golden, rule in KNOWN:
                if rule(op, metas, params):
                    return golden
    return None


def compare_graph(graph, check_messages=False):
    """Run the graph in torch and in gradcli; raise Mismatch on the first difference."""
    ref_nodes, ref_err = graph.build(torch)
    try:
        ours_nodes, ours_err = graph.build(api)
    except Exception as exc:  # noqa: BLE001 - building the leaves failed: a bug of its own
        raise Mismatch(f"gradcli could not build the leaves: {exc!r}") from exc
    if known_gap(graph, ref_nodes):
        return
    if (ref_err is None) != (ours_err is None) or (ref_err and ref_err[0] != ours_err[0]):
        where = lambda e: "nothing" if e is None else f"node{e[0]} {graph.op_name(e[0])}: {_error_text(e[1])}"  # noqa: E731
        raise Mismatch(f"torch raised {where(ref_err)}, gradcli raised {where(ours_err)}")
    if ref_err is not None:
        r, o = ref_err[1], ours_err[1]
        if type(r).__name__ != type(o).__name__ or (check_messages and str(r) != str(o)):
            raise Mismatch(f"node{ref_err[0]} {graph.op_name(ref_err[0])}: torch raised {_error_text(r)}; "
                           f"gradcli {_error_text(o)}")
    for i, (o, r) in enumerate(zip(ours_nodes, ref_nodes)):
        through = loosest(str(t.dtype).replace("torch.", "") for t in ref_nodes[:i + 1])
        try:
            compare_tensor(f"node{i} ({graph.op_name(i)})", o, r, through=through)
        except Mismatch:
            item = graph.items[i]
            if item[0] == "op" and item[1] in DISCONTINUOUS and not all(
                    _bit_equal(ours_nodes[j], ref_nodes[j]) for j in item[2]):
                return  # a jump caused by last-bit differences of the inputs: inconclusive
            raise
    compare_gradients(graph, ours_nodes, ref_nodes)


def _bit_equal(ours, ref):
    a, b = _array(ours), _array(ref)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def check(graph, check_messages=False):
    try:
        compare_graph(graph, check_messages)
    except Mismatch as exc:
        pytest.fail(f"{exc}\n--- the graph:\n{graph!r}", pytrace=False)


# ============================================================================ the tests

@diff_settings("graphs")
@given(graphs())
def test_random_graphs_match_torch(graph):
    check(graph)


@diff_settings("operators")
@given(graphs(max_steps=1))
def test_single_ops_match_torch(graph):
    check(graph)
