"""Gradient checks of every declared op (engine/ops/registry.py): the engine's METHODS and the rest.

Each op's declaration carries its Sample: how to call it (on the torch-like module and the input
tensors, so the same call runs on real torch), the input shapes of a few variants (including
broadcasting and 0-dim) and the domain of its inputs; TABLE is made from them. Every variant is
checked with the project's float64 gradcheck (first order, central differences) and
gradgradcheck (second order, through the graphs the backward formulas record). When torch is
importable, the engine's first- and second-order vector-Jacobian products are also compared with
torch's.

A new op in METHODS must be declared with a Sample, or with why it has none (no_grad):
test_every_method_has_an_entry fails until it is.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from gradcli.engine import methods
from gradcli.engine.gradcheck import GradcheckError, gradcheck, gradgradcheck
from gradcli.engine.nn import functional  # noqa: F401 - declares F's own ops (registry)
from gradcli.engine.ops import registry

methods.load_all()  # every family's ops (the breadth ones load on first use)


@dataclass
class Op:
    fn: object                     # fn(torch, *tensors) -> tensor or tuple
    shapes: list                   # variants: one tuple of input shapes each
    domain: tuple = ("any",)       # per input (the last one repeats)
    eps: float = 1e-6
    atol: float = 1e-5
    rtol: float = 1e-3
    second: bool = True            # also gradgradcheck
    dtype: str = "float64"
    notes: str = field(default="")


# ---------------------------------------------------------------------------- input data

def _values(rng, shape, kind):
    n = int(np.prod(shape)) if shape else 1
    if kind == "any":
        v = rng.uniform(0.25, 2.0, n) * rng.choice([-1.0, 1.0], n)
    elif kind == "pos":
        v = rng.uniform(0.5, 2.0, n)
    elif kind == "unit":
        v = rng.uniform(0.1, 0.8, n) * rng.choice([-1.0, 1.0], n)
    elif kind == "gt1":
        v = rng.uniform(1.2, 3.0, n)
    elif kind == "prob":
        v = rng.uniform(0.15, 0.85, n)
    elif kind == "mat":  # well-conditioned square matrices (batched)
        a = rng.uniform(-0.5, 0.5, shape) + 2.0 * np.eye(shape[-1])
        return a
    elif kind == "spd":  # symmetric positive definite (positive determinant)
        b = rng.uniform(-0.5, 0.5, shape)
        return b @ np.swapaxes(b, -1, -2) + np.eye(shape[-1])
    else:
        raise ValueError(kind)
    return v.reshape(shape)


def make_inputs(torch, op, variant, seed=0):
    rng = np.random.default_rng(seed + 7919 * variant)
    shapes = op.shapes[variant]
    out = []
    for i, shape in enumerate(shapes):
        kind = op.domain[min(i, len(op.domain) - 1)]
        arr = _values(rng, shape, kind)
        dt = getattr(torch, op.dtype)
        out.append(torch.tensor(arr.tolist() if shape else float(arr), dtype=dt, requires_grad=True))
    return tuple(out)


# ---------------------------------------------------------------------------- the table

def _declared(name, spec):
    s = spec.sample
    return Op(lambda t, *xs: spec.call(t, xs, name), s.shapes, s.domain, s.eps, s.atol, s.rtol, s.second)


TABLE = {name: _declared(name, spec) for name, spec in registry.REGISTRY.items() if spec.sample is not None}
NOT_DIFFERENTIABLE = {name for name, spec in registry.REGISTRY.items() if spec.no_grad}

CASES = [(name, k) for name, op in TABLE.items() for k in range(len(op.shapes))]


def _ids():
    return [f"{name}-{k}" for name, k in CASES]


def test_every_method_has_an_entry():
    missing = sorted(n for n in methods.METHODS if n not in TABLE and n not in NOT_DIFFERENTIABLE)
    assert not missing, f"differentiable ops without a gradcheck entry in tests/test_gradcheck.py: {missing}"


def test_every_method_is_declared():
    undeclared = sorted(n for n in methods.METHODS if n not in registry.REGISTRY)
    assert not undeclared, f"Tensor methods not declared in engine/ops/registry.py's sense: {undeclared}"


def _check(op, variant):
    inputs = make_inputs(engine_torch, op, variant)

    def f(*xs):
        return op.fn(engine_torch, *xs)

    assert gradcheck(f, inputs, eps=op.eps, atol=op.atol, rtol=op.rtol)
    if op.second:
        n = sum(x.numel() for x in inputs)
        assert gradgradcheck(f, inputs, eps=op.eps, atol=op.atol, rtol=op.rtol, fast_mode=n > 6)


@pytest.mark.parametrize("name,variant", CASES, ids=_ids())
def test_gradcheck(name, variant):
    _check(TABLE[name], variant)


# ---------------------------------------------------------------------------- against torch

def _flatten(outs):
    """The tensors of an op's result (nested tuples and named tuples flattened)."""
    if isinstance(outs, tuple):
        return [t for o in outs for t in _flatten(o)]
    return [outs]


def _vjp(torch, op, variant):
    """First- and second-order vector-Jacobian products of op at the variant's inputs, as float lists."""
    inputs = make_inputs(torch, op, variant)
    outs = op.fn(torch, *inputs)
    outs = [o for o in _flatten(outs) if o.dtype.is_floating_point and o.requires_grad]
    rng = np.random.default_rng(variant + 11)
    vs = [torch.tensor(rng.uniform(-1, 1, tuple(o.shape)).tolist() if o.dim() else float(rng.uniform(-1, 1)),
                       dtype=o.dtype) for o in outs]
    if not outs:
        return [], []
    gs = torch.autograd.grad(outs, inputs, grad_outputs=vs, create_graph=op.second, allow_unused=True)
    first = [None if g is None else g.detach().clone().tolist() for g in gs]  # clone: torch's lazy zeros
    second = []
    if op.second:
        total = None
        for k, g in enumerate(gs):
            if g is not None and g.requires_grad:
                w = torch.tensor(np.cos(np.arange(g.numel()) + k).reshape(tuple(g.shape)).tolist()
                                 if g.dim() else float(np.cos(k)), dtype=g.dtype)
                term = (g * w).sum()
                total = term if total is None else total + term
        if total is not None:
            ggs = torch.autograd.grad(total, inputs, allow_unused=True)
            second = [None if gg is None else gg.detach().clone().tolist() for gg in ggs]
    return first, second


def _close(a, b):
    if a is None or b is None:
        za = a is None or np.allclose(np.asarray(a, float), 0.0)
        zb = b is None or np.allclose(np.asarray(b, float), 0.0)
        return za and zb
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-6, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("name,variant", CASES, ids=_ids())
def test_matches_torch(name, variant):
    torch = pytest.importorskip("torch")
    op = TABLE[name]
    want_first, want_second = _vjp(torch, op, variant)
    got_first, got_second = _vjp(engine_torch, op, variant)
    assert len(want_first) == len(got_first)
    for i, (w, g) in enumerate(zip(want_first, got_first)):
        assert _close(w, g), f"first-order gradient of input {i}: torch {w}, gradcli {g}"
    if want_second or got_second:
        want_second = want_second or [None] * len(got_second)
        got_second = got_second or [None] * len(want_second)
        for i, (w, g) in enumerate(zip(want_second, got_second)):
            assert _close(w, g), f"second-order gradient of input {i}: torch {w}, gradcli {g}"


# ---------------------------------------------------------------------------- gradcheck itself

def test_gradcheck_reports_a_wrong_backward():
    x = engine_torch.tensor([0.5, 1.5], dtype=engine_torch.float64, requires_grad=True)

    def wrong(a):
        return a * a.detach() + 0 * a  # d/da is a, not 2a

    with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0 with respect to input 0,"):
        gradcheck(wrong, (x,))
    assert gradcheck(wrong, (x,), raise_exception=False) is False
    assert gradcheck(lambda a: a * a, (x,)) is True
    assert isinstance(GradcheckError("x"), RuntimeError)


def test_gradgradcheck_reports_a_wrong_second_order():
    x = engine_torch.tensor([0.5, 1.5], dtype=engine_torch.float64, requires_grad=True)

    def f(a):
        return (a * a.detach()).sum() * a.sum()  # the detach hides part of the second derivative

    assert gradcheck(f, (x,), raise_exception=False) is False
    assert gradgradcheck(lambda a: (a ** 3).sum(), (x,)) is True


def test_gradcheck_is_torch_api():
    assert engine_torch.autograd.gradcheck is gradcheck
    assert engine_torch.autograd.gradgradcheck is gradgradcheck


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("rows", [4, 30])  # more than 25 rows: p=2 takes ATen's matmul form
def test_cdist_gradcheck(p, rows):
    """torch.cdist (torch-level only, not a Tensor method), first order: torch's own
    CdistBackwardBackward0 has no derivative, so there is no second order to check."""
    rng = np.random.default_rng(rows)
    x1 = engine_torch.tensor(rng.standard_normal((2, rows, 3)), dtype=engine_torch.float64, requires_grad=True)
    x2 = engine_torch.tensor(rng.standard_normal((2, 5, 3)), dtype=engine_torch.float64, requires_grad=True)
    assert gradcheck(lambda a, b: engine_torch.cdist(a, b, p=p), (x1, x2), eps=1e-6, atol=1e-5, rtol=1e-3)
