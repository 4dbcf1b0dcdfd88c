"""One declaration per op (issue 22, engine/ops/registry.py): every declared op has what the
engine, the graph tools and the tests need, and the tables derived from the declarations bind the
same functions the hand-written tables did (tests/op_tables_before.json, recorded from those tables
before they were replaced)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gradcli.engine import api, methods  # noqa: F401 - binds every family (and registers its ops)
from gradcli.engine.function import Function
from gradcli.engine.ops import registry
from gradcli.graph import check, derivatives
from gradcli.graph.model import node_name

BEFORE = json.loads((Path(__file__).resolve().parent / "op_tables_before.json").read_text())
FAMILIES = sorted(k for k in BEFORE if not k.startswith("_"))


def _declared_families():
    import importlib  # noqa: PLC0415
    out = {}
    for name in FAMILIES:
        module = importlib.import_module(f"gradcli.engine.ops.{name}" if name != "methods" else "gradcli.engine.methods")
        if getattr(module, "OPS", None) is not None:
            out[name] = module
    return out


DECLARED = _declared_families()
NODES = sorted(registry.nodes().items(), key=lambda item: item[0].__name__)


def test_some_families_are_declared():
    assert "special" in DECLARED
    assert len(registry.REGISTRY) >= 60


@pytest.mark.parametrize("cls,spec", NODES, ids=[c.__name__ for c, _ in NODES])
def test_every_declared_node_has_its_name_words_and_replay(cls, spec):
    assert issubclass(cls, Function)
    assert re.fullmatch(r"[A-Z][A-Za-z0-9]*Backward[0-9]|NotImplemented", cls.__name__), cls.__name__
    node = object.__new__(cls)
    assert node_name(node) == cls.__name__          # its grad_fn name
    words = derivatives.words_of(node)
    assert words is not None, f"{cls.__name__}: no --explain words (its class's `explain`)"
    declared = getattr(cls, "explain", None)
    if isinstance(declared, tuple):
        assert all(isinstance(w, str) and w for w in declared)
    assert check.candidates(node) or getattr(cls, "no_replay", ""), \
        f"{cls.__name__}: no --check replay (`forward` or `replay`), nor why not (`no_replay`)"


@pytest.mark.parametrize("name", sorted(registry.REGISTRY))
def test_every_declared_op_is_gradchecked_or_says_why_not(name):
    spec = registry.REGISTRY[name]
    assert (spec.sample is None) != (not spec.no_grad), f"{name}: a Sample or a no_grad reason, not both"
    if spec.sample is not None:
        import test_gradcheck  # noqa: PLC0415 - the gradcheck list is derived from the registry
        assert name in test_gradcheck.TABLE and name not in test_gradcheck.HAND
    assert spec.method or spec.torch or spec.special or spec.linalg or spec.functional, f"{name} is bound nowhere"


def _ident(f):
    return f"{getattr(f, '__module__', None)}:{getattr(f, '__qualname__', type(f).__name__)}:{getattr(f, '__name__', None)}"


def _bindings(tables, ident):
    """What a family's tables bind: Tensor.X, torch.X, torch.special.X, torch.linalg.X, F.X."""
    methods_, only = tables.get("METHODS", {}), set(tables.get("METHOD_ONLY", ()))
    return {
        "Tensor": {k: ident(v) for k, v in {**methods_, **tables.get("INPLACE", {})}.items()},
        "torch": {k: ident(v) for k, v in {**methods_, **tables.get("TORCH", {})}.items() if k not in only},
        "special": {k: ident(v) for k, v in tables.get("SPECIAL", {}).items()},
        "linalg": {k: ident(v) for k, v in tables.get("LINALG", {}).items()},
        "functional": {k: ident(v) for k, v in tables.get("FUNCTIONAL", {}).items()},
    }


@pytest.mark.parametrize("family", sorted(DECLARED))
def test_derived_tables_bind_what_the_hand_tables_bound(family):
    module = DECLARED[family]
    old = _bindings(BEFORE[family], lambda v: v)
    new = _bindings({t: getattr(module, t) for t in ("METHODS", "INPLACE", "TORCH", "SPECIAL", "LINALG",
                                                     "FUNCTIONAL", "METHOD_ONLY") if hasattr(module, t)}, _ident)
    for where in old:
        assert {k: new[where].get(k) for k in old[where]} == old[where], where
        added = set(new[where]) - set(old[where])
        undeclared = sorted(n for n in added if n.rstrip("_") not in registry.REGISTRY)
        assert not undeclared, f"{where}: bound but neither in the old tables nor declared: {undeclared}"


def test_declared_names_are_bound():
    """Every name of a declaration is reachable where it says."""
    tensor = api.Tensor
    for name, spec in registry.REGISTRY.items():
        if spec.method:
            assert getattr(tensor, name) is not None
        if spec.method or spec.torch:
            assert hasattr(api, name), name
        for s in spec.special:
            assert hasattr(api.special, s), s
        for s in spec.linalg:
            assert hasattr(api.linalg, s), s
        if spec.functional:
            assert hasattr(api.nn.functional, name), name
        if spec.inplace and spec.method:
            assert hasattr(tensor, name + "_"), name
        if spec.torch_inplace:
            assert hasattr(api, name + "_"), name


def test_a_sample_or_a_reason_is_required():
    with pytest.raises(ValueError, match="needs a gradient-check sample"):
        registry.op("nothing", lambda x: x, derivatives.Local)
