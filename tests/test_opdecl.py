"""One declaration per op (issue 22, engine/ops/registry.py): every declared op has what the
engine, the graph tools and the tests need, and the tables derived from the declarations bind the
same functions the hand-written tables did (tests/op_bindings_before.json, recorded from the namespaces
before they were replaced)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gradcli.engine import api, methods, operators  # noqa: F401
from gradcli.engine.nn import functional  # noqa: F401 - declares F's own ops
from gradcli.engine.function import Function
from gradcli.engine.ops import registry
from gradcli.graph import derivatives, tape
from gradcli.graph.model import node_name

methods.load_all()  # binds every family (the breadth ones load on first use) and registers its ops

BEFORE = json.loads((Path(__file__).resolve().parent / "op_bindings_before.json").read_text())
NODES = sorted(registry.nodes().items(), key=lambda item: item[0].__name__)


def test_some_families_are_declared():
    from gradcli.engine.ops import arithmetic, clamp_where, comparison, scan, special, unary_math  # noqa: PLC0415
    for family in (arithmetic, unary_math, clamp_where, comparison, scan, special):
        assert all(registry.REGISTRY[spec.key or spec.name] is spec for spec in family.OPS)
    assert len(registry.REGISTRY) >= 150


@pytest.mark.parametrize("cls,spec", NODES, ids=[c.__name__ for c, _ in NODES])
def test_every_declared_node_has_its_name_words_and_replay(cls, spec):
    assert issubclass(cls, Function)
    assert re.fullmatch(r"[A-Z][A-Za-z0-9]*Backward[0-9](_copy)?|NotImplemented", cls.__name__), cls.__name__
    node = object.__new__(cls)
    assert node_name(node) == cls.__name__          # its grad_fn name
    words = derivatives.words_of(node)
    assert words is not None, f"{cls.__name__}: no --explain words (its class's `explain`)"
    declared = getattr(cls, "explain", None)
    if isinstance(declared, tuple):
        assert all(isinstance(w, str) and w for w in declared)
    assert tape.candidates(node) or getattr(cls, "no_replay", ""), \
        f"{cls.__name__}: no --check replay (`forward` or `replay`), nor why not (`no_replay`)"


@pytest.mark.parametrize("name", sorted(registry.REGISTRY))
def test_every_declared_op_is_gradchecked_or_says_why_not(name):
    spec = registry.REGISTRY[name]
    assert (spec.sample is None) != (not spec.no_grad), f"{name}: a Sample or a no_grad reason, not both"
    if spec.sample is not None:
        import test_gradcheck  # noqa: PLC0415 - the gradcheck list is derived from the registry
        assert name in test_gradcheck.TABLE
    assert spec.method or spec.torch or spec.special or spec.linalg or spec.functional or spec.operator, \
        f"{name} is bound nowhere"


def _ident(f):
    if isinstance(f, property):
        f = f.fget
    return f"{getattr(f, '__module__', None)}:{getattr(f, '__qualname__', type(f).__name__)}:{getattr(f, '__name__', None)}"


def _live():
    """What the namespaces bind now, as BEFORE records it."""
    return {
        "Tensor": {k: _ident(v) for k, v in vars(api.Tensor).items() if callable(v) or isinstance(v, property)},
        "torch": {k: _ident(v) for k, v in vars(api).items() if callable(v)},
        "torch.special": {k: _ident(v) for k, v in vars(api.special).items() if not k.startswith("_")},
        "torch.linalg": {k: _ident(v) for k, v in vars(api.linalg).items() if not k.startswith("_")},
        "F": {k: _ident(getattr(api.nn.functional, k)) for k in dir(api.nn.functional) if not k.startswith("_")},
    }


# the family modules split by theme since (issue 22: modules under ~600 lines): old module -> its theme modules
SPLIT = {
    "gradcli.engine.ops.special": {"gradcli.engine.ops." + m for m in (
        "special_common", "special_unary", "special_binary", "special_xlog", "activations", "activations_smooth")},
    "gradcli.engine.ops.scan": {"gradcli.engine.ops.selection", "gradcli.engine.ops.norms"},
    # inv_ex joined solve_ex and lstsq (its singular matrices reported in info, LAPACK's getrs result)
    "gradcli.engine.ops.linalg_extra": {"gradcli.engine.ops.linalg_products", "gradcli.engine.ops.einsum",
                                        "gradcli.engine.ops.linalg_lstsq"},
    # adaptive_avg_pool2d left the convolution module for the pooling one (ATen's kernel, not avg_pool2d's)
    "gradcli.engine.nn.functional_conv": {"gradcli.engine.nn.functional_pool"},
    "gradcli.engine.ops.reduction": {"gradcli.engine.ops.softmax"},
    "gradcli.engine.ops.shape": {"gradcli.engine.ops.join_split"},
    "gradcli.engine.ops.elementwise": {"gradcli.engine.ops." + m for m in (
        "elementwise_common", "arithmetic", "power", "unary_math", "clamp_where", "comparison")},
    "gradcli.engine.ops.indexing": {"gradcli.engine.ops.gather_scatter"},
    "gradcli.engine.ops.linalg": {"gradcli.engine.ops.matmul"},
    # F.bilinear left functional.py for functional_aten.py (ATen's bilinear: TrilinearBackward0)
    "gradcli.engine.nn.functional": {"gradcli.engine.nn.functional_aten"},
}


def _moved(before, now):
    """The same function, moved to a theme module of its family."""
    (old, *rest), (new, *rest_now) = before.split(":"), now.split(":")
    return rest == rest_now and new in SPLIT.get(old, ())


# what the declarations bind differently from the hand tables, on purpose
def _changed_on_purpose(where, name, before, now):
    if _moved(before, now):
        return True
    if where == "torch" and name in ("clone", "is_nonzero") and before == f"gradcli.engine.api:{name}:{name}":
        return True  # api.py's hand-written forms gave way to the declared op (is_nonzero of no values: torch's text)
    if where == "torch" and name.endswith("_") and now == f"gradcli.engine.ops.registry:{name}:{name}":
        return True  # torch.X_ of a declared op: registry's form, which takes input= as torch does
    if where == "Tensor" and name in _HAND_INPLACE:  # a hand-written in-place form, now the declared one's
        return before == _HAND_INPLACE[name][0] and now == _HAND_INPLACE[name][1]
    if (where, name) in _HAND_BOUND:  # bound by hand in methods._install and api.py, now declared
        return (before, now) == _HAND_BOUND[where, name]
    return where == "Tensor" and name == "where" and now.endswith(":<lambda>:<lambda>")  # moved to its declaration


# x.name_() bound by hand across families before (shape_extra.py's lambdas calling transpose_/clamp_, special.py's
# comparison wrappers), now derived from the op's declaration (inplace=True, "compare", "logical"); the same
# behaviour (tests/golden/scripts/inplace_cross_family.grad, tests/ops_cases.py)
_SX = "gradcli.engine.ops.shape_extra:_inplace.<locals>.<lambda>:<lambda>"
_HAND_INPLACE = {
    "swapaxes_": (_SX, "gradcli.engine.ops.inplace:inplace_view.<locals>.method:swapaxes_"),
    "swapdims_": (_SX, "gradcli.engine.ops.inplace:inplace_view.<locals>.method:swapdims_"),
    "clip_": (_SX, "gradcli.engine.ops.inplace:inplace.<locals>.method:clip_"),
    **{n + "_": (f"gradcli.engine.ops.special:_compare_inplace.<locals>.method:{n}_",
                 f"gradcli.engine.ops.inplace_kinds:compare_inplace.<locals>.method:{n}_")
       for n in ("eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge", "greater_equal")},
    **{n + "_": (f"gradcli.engine.ops.special:_logical_inplace.<locals>.method:{n}_",
                 f"gradcli.engine.ops.inplace_kinds:logical_inplace.<locals>.method:{n}_")
       for n in ("logical_and", "logical_or", "logical_xor", "logical_not")},
}


# the last names bound by hand (methods._install, api.py), now declared in conversion.py; the same behaviour
# (tests/test_binding_forms.py)
_CV = "gradcli.engine.ops.conversion"
_HAND_BOUND = {
    **{("Tensor", f"new_{k}"): (f"gradcli.engine.methods:_new.<locals>.new:new_{k}", f"{_CV}:new_{k}:new_{k}")
       for k in ("tensor", "zeros", "ones", "empty")},
    ("Tensor", "new_full"): ("gradcli.engine.methods:_new_full:_new_full", f"{_CV}:new_full:new_full"),
    ("torch", "detach"): ("gradcli.engine.api:detach:detach", f"{_CV}:detach:detach"),
    ("torch", "numel"): ("gradcli.engine.api:numel:numel", f"{_CV}:numel:numel"),
    ("torch", "detach_"): ("gradcli.engine.tensor:Tensor.detach_:detach_", f"{_CV}:detach_:detach_"),
}


# Tensor methods once bound as torch.X too, though torch has no such function (a script's torch.view(x, -1) is
# torch's AttributeError): declared torch=False since
_NOT_TORCH = frozenset({"contiguous", "view", "expand", "expand_as", "repeat", "sum_to_size", "resize_"})


def _declared_names():
    out = set()
    for spec in registry.REGISTRY.values():
        out.update(spec.names)
        out.update(spec.special)
        out.update(spec.linalg)
    return out


def test_declared_ops_bind_what_the_hand_tables_bound():
    names = _declared_names()
    live = _live()
    for where, before in BEFORE.items():
        if where.startswith("_"):
            continue
        for name, ident in before.items():
            if name not in names and name.rstrip("_") not in names:
                continue
            if where == "torch" and name in _NOT_TORCH:
                assert name not in live[where], f"torch.{name} is bound again: torch has no such function"
                continue
            assert name in live[where], f"{where}.{name} is no longer bound"
            now = live[where][name]
            assert now == ident or _changed_on_purpose(where, name, ident, now), f"{where}.{name}: {ident} -> {now}"
    unchecked = {"gradcli.engine.ops.reduction", "gradcli.engine.ops.softmax"}
    families = {spec.fn.__module__ for spec in registry.REGISTRY.values()} - unchecked
    families |= {old for old, themes in SPLIT.items() if themes & families} - unchecked
    for where, before in BEFORE.items():
        if where.startswith("_"):
            continue
        lost = sorted(n for n, ident in before.items() if ident.split(":")[0] in families and n not in live[where]
                      and not (where == "torch" and n in _NOT_TORCH))
        assert not lost, f"{where}: no longer bound: {lost}"


def test_declared_names_are_bound():
    """Every name of a declaration is reachable where it says."""
    tensor = api.Tensor
    for key, spec in registry.REGISTRY.items():
        name = key if key in spec.names else spec.name  # (the key of F's own ops is "F.name")
        if spec.method:
            assert getattr(tensor, name) is not None
            assert isinstance(vars(tensor)[name], property) == spec.prop, name  # x.T: a property
        if spec.operator in operators.ITEM:  # x[k], x[k] = v: the op itself
            assert getattr(tensor, f"__{operators.ITEM[spec.operator]}__") is spec.fn, name
        if spec.torch:
            assert hasattr(api, name), name
        else:  # (torch.float is a dtype, torch.where where itself)
            assert getattr(api, name, None) is not spec.fn, name
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


def test_a_sample_names_known_shapes():
    spec = registry.op("nothing", lambda x: x, sample=registry.sample1())
    assert spec.sample.shapes == registry.SHAPES["unary"]
    with pytest.raises(ValueError, match="no input shapes named 'unray'"):
        registry.op("nothing", lambda x: x, sample=registry.Sample("unray"))


TABLES_BEFORE = json.loads((Path(__file__).resolve().parent / "node_tables_before.json").read_text())


def _node_classes():
    """Every node class the engine defines (nn's too), by grad_fn name."""
    from gradcli.engine import nn  # noqa: F401, PLC0415 - its losses' and norms' nodes
    from gradcli.engine.nn import functional_loss, functional_nll, functional_norm  # noqa: F401, PLC0415
    out, todo = {}, [Function]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            out.setdefault(sub.__name__, []).append(sub)
    return out


@pytest.mark.parametrize("what", ["words", "expression", "replay"])
def test_the_node_tables_graph_kept_by_name_are_the_node_classes_now(what):
    """graph/derivatives.TABLE and EXPR and graph/check.REPLAY keyed node names by hand; every node class of
    those names now declares the same (tests/node_tables_before.json): its explain words, expression, replay."""
    classes = _node_classes()
    for name in TABLES_BEFORE[what]:
        found = classes.get(name, [])
        assert found or name == "SqueezeBackward3", f"no node class {name}"  # (made by x.squeeze_())
        for cls in found:
            node = object.__new__(cls)
            if what == "words":
                assert callable(getattr(cls, "explain", None)) and derivatives.words_of(node) is not None, name
            elif what == "expression":
                assert getattr(cls, "expression", None) is not None, name
            else:
                assert getattr(cls, "replay", None) is not None, name
                assert tape.candidates(node)[0] is cls.replay, name


def test_code_built_words_and_expressions():
    class W:  # the walkthrough's view of a node (graph/explain.py's _Ctx)
        kw = {"alpha": 2}
        num = staticmethod(str)

        def sym(self, i):
            return ("x", "w + 1")[i]

        def val(self, i):
            return (3.0, 5.0)[i]

    from gradcli.engine.ops import arithmetic as E  # noqa: PLC0415
    assert E.MulBackward0.explain(W(), 0) == ("w + 1", 5.0, "(w + 1)")
    assert E.SubBackward0.explain(W(), 1) == ("-2", -2, "-2")
    assert derivatives.expression(object.__new__(E.DivBackward0), ["a", "b + c"]) == "a / (b + c)"
    node = object.__new__(E.PowBackward0)
    node._kw = {"exponent": 2}
    assert derivatives.expression(node, ["x"]) == "x**2"


def test_a_case_name_is_declared_once():
    c = registry.case(lambda torch, x: x, [1.0])
    spec = registry.op("nothing", lambda x: x, no_grad="a test", cases={"nothing_case": c})
    assert spec.cases == (("nothing_case", c),)
    other = registry.op("nothing2", lambda x: x, no_grad="a test", cases={"logit_eps": c})
    with pytest.raises(ValueError, match="case logit_eps declared twice"):
        registry.tables([other], None)
    assert "nothing2" in registry.REGISTRY  # (registered before its case was refused)
    del registry.REGISTRY["nothing2"]


def test_in_place_views_have_their_views_words():
    """x.t_(), x.transpose_(), x.squeeze_() ... record their view's node class renamed (TBackward1, ...): a
    subclass, so it has the view's words and replay (before, a name-keyed table gave it neither)."""
    x = api.ones(2, 3, requires_grad=True) * 1
    x.transpose_(0, 1)
    node = x.grad_fn
    assert type(node).__name__ == "TransposeBackward1"
    assert derivatives.words_of(node) is not None and tape.candidates(node)
