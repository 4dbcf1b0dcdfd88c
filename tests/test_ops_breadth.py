"""The breadth ops (issue 5) behave as PyTorch 2.13's: the cases of tests/ops_cases.py run with
gradcli's engine must observe what real torch observed (tests/golden/ops_cases.json, written by
tools/gen_ops_goldens.py), and every differentiable op passes float64 central-difference gradient
checks of first and second order: the regression cases at fixed inputs that the ops' declarations
carry (OpSpec.cases, engine/ops/registry.py). No torch needed.
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
from gradcli.engine import methods
from gradcli.engine.ops import registry
from gradcli.engine import dtypes

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import ops_cases  # noqa: E402

methods.load_all()  # REGISTRY's every op (the breadth families load on first use)

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
    from gradcli.engine.ops import special_common
    special_common.reset_warn_once()  # every case starts as a fresh process with torch does
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


# the regression gradchecks the op declarations carry (OpSpec.cases, engine/ops/registry.py):
# name -> (fn of the input tensors, the inputs, second order too)
GRADCHECKS = {name: (functools.partial(c.call, TORCH), list(c.inputs), c.second) for name, c in registry.CASES.items()}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    spec = GRADCHECKS[name]
    fn, arrays = spec[0], spec[1]
    second = spec[2] if len(spec) > 2 else True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gradcheck(fn, *arrays, second=second)
