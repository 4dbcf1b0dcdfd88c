"""The Tensor's Python operators (`+`, `x += y`, `y - x`, `~x`, ...) are derived from the op declarations
(`operator=` on an op, engine/operators.py) instead of methods.py's hand table: every operator dunder
answers every kind of operand as the hand-written table did (tests/operator_forms_before.json, recorded
from that table by `python3 tests/test_operator_forms.py --record` before it was replaced): the same
result (dtype, values, grad_fn name), the same NotImplemented, the same error type and text."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gradcli.engine import api as torch
from gradcli.engine import operators
from gradcli.engine import methods
from gradcli.engine.ops import registry

methods.load_all()  # REGISTRY's every op (the breadth families load on first use)
BEFORE = Path(__file__).resolve().parent / "operator_forms_before.json"

BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "eq", "ne", "lt", "le", "gt", "ge",
          "and", "or", "xor", "lshift", "rshift"]
REFLECTED = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
             "rshift"]
# (no __imatmul__: torch's Tensor has none, x @= y is x = x @ y; the hand table's answers for it are left out below)
INPLACE = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift", "rshift"]
UNARY = ["neg", "pos", "abs", "invert"]


def _selves():
    return {
        "f32 0-d grad": lambda: torch.tensor(1.5, requires_grad=True) * 1,
        "f64 0-d": lambda: torch.tensor(-2.0, dtype=torch.float64),
        "f32 (2,) grad": lambda: torch.tensor([1.5, -2.0], requires_grad=True) * 1,
        "f32 (2,2)": lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
        "i64 (2,)": lambda: torch.tensor([3, -4]),
        "u8 (2,)": lambda: torch.tensor([3, 4], dtype=torch.uint8),
        "bool (2,)": lambda: torch.tensor([True, False]),
    }


def _others():
    return {
        "int": lambda: 2, "negint": lambda: -3, "float": lambda: 0.5, "zero": lambda: 0.0, "bool": lambda: True,
        "f32 0-d": lambda: torch.tensor(2.0), "f64 0-d": lambda: torch.tensor(3.0, dtype=torch.float64),
        "f32 (2,) grad": lambda: torch.tensor([0.5, 2.0], requires_grad=True) * 1,
        "f32 (2,2)": lambda: torch.tensor([[1.0, 0.0], [0.0, 2.0]]),
        "i64 (2,)": lambda: torch.tensor([1, 2]), "bool (2,)": lambda: torch.tensor([False, True]),
        "ndarray": lambda: np.array([1.0, 2.0]), "ndarray int": lambda: np.array([1, 2]),
        "np.float64": lambda: np.float64(1.5), "np.int64": lambda: np.int64(2),
        "list": lambda: [1.0, 2.0], "None": lambda: None, "str": lambda: "s", "complex": lambda: 1j,
    }


def _show(r):
    if r is NotImplemented:
        return "NotImplemented"
    if isinstance(r, torch.Tensor):
        fn = r.grad_fn
        return f"{r.dtype} {r.tolist()} {type(fn).__name__ if fn is not None else None}"
    return f"{type(r).__name__} {r!r}"


def _call(fn, *args):
    try:
        return _show(fn(*args))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return f"{type(e).__name__}: {e}"


def behaviour():
    """Every operator dunder on every (self, other) pair: what it answers (for an in-place one, also self after)."""
    out = {}
    for sname, self in _selves().items():
        for name in UNARY:
            out[f"__{name}__ {sname}"] = _call(getattr(torch.Tensor, f"__{name}__"), self())
        for oname, other in _others().items():
            for prefix, names in (("", BINARY), ("r", REFLECTED)):
                for name in names:
                    dunder = f"__{prefix}{name}__"
                    out[f"{dunder} {sname} {oname}"] = _call(getattr(torch.Tensor, dunder), self(), other())
            for name in INPLACE:
                x = self()
                if x.requires_grad:
                    x = x.detach()
                r = _call(getattr(torch.Tensor, f"__i{name}__"), x, other())
                out[f"__i{name}__ {sname} {oname}"] = f"{r} | self {_show(x)}"
    return out


# what the hand table answered wrong, now as torch 2.13 answers (+x is torch.positive, declared with operator="+x")
# (number ** integer tensor: ATen's powi since c96000e; the table leaked NumPy's ValueError)
FIXED = {"__pos__ bool (2,)": "RuntimeError: The `+` operator, on a bool tensor is not supported.",
         "__rpow__ i64 (2,) bool": "torch.int64 [1, 1] None", "__rpow__ i64 (2,) int": "torch.int64 [8, 0] None",
         "__rpow__ i64 (2,) negint": "torch.int64 [-27, 0] None",
         "__rpow__ i64 (2,) np.int64": "torch.int64 [8, 0] None",
         # bool ** bool is torch's NotImplementedError (b015317); the hand table computed it
         "__pow__ bool (2,) bool (2,)": "NotImplementedError: \"pow\" not implemented for 'Bool'",
         "__rpow__ bool (2,) bool (2,)": "NotImplementedError: \"pow\" not implemented for 'Bool'",
         "__ipow__ bool (2,) bool (2,)": "NotImplementedError: \"pow\" not implemented for 'Bool' | self torch.bool "
                                        "[True, False] None"}


# torch's sub check of bool operands reaches the reflected form too (2d252a6; the hand table let NumPy's TypeError
# out): checked against torch itself
_SUB_BOOL = 'RuntimeError: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.'
FIXED.update({key: _SUB_BOOL for key in (
    '__rsub__ bool (2,) f32 (2,) grad',
    '__rsub__ bool (2,) f32 (2,2)',
    '__rsub__ bool (2,) f32 0-d',
    '__rsub__ bool (2,) f64 0-d',
    '__rsub__ bool (2,) i64 (2,)',
    '__rsub__ f32 (2,) grad bool (2,)',
    '__rsub__ f32 (2,2) bool (2,)',
    '__rsub__ f32 0-d grad bool (2,)',
    '__rsub__ f64 0-d bool (2,)',
    '__rsub__ i64 (2,) bool (2,)',
    '__rsub__ u8 (2,) bool (2,)',
)})
FIXED["__rsub__ bool (2,) bool (2,)"] = 'RuntimeError: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.'


# x &= None (and the other bitwise in-place forms with a list, str, ...): the table let an AttributeError
# out; now NotImplemented, so Python raises torch's TypeError (golden bitwise_inplace_refused)
_LEAKED = "AttributeError: 'NotImplementedType' object has no attribute '_data' | "


def _refused(before):
    return "NotImplemented | " + before[len(_LEAKED):]


def test_every_operator_answers_as_the_hand_table_did():
    before = {k: v for k, v in json.loads(BEFORE.read_text()).items() if not k.startswith("__imatmul__ ")}
    assert not hasattr(torch.Tensor, "__imatmul__")
    now = behaviour()
    assert set(now) == set(before)
    fixed = {**FIXED, **{k: _refused(v) for k, v in before.items() if v.startswith(_LEAKED)}}
    assert len(fixed) > 100
    changed = {k: (before[k], now[k]) for k in before if before[k] != now[k] and k not in fixed}
    assert {k: now[k] for k in fixed} == fixed
    assert not changed, f"{len(changed)} differ, e.g. {sorted(changed.items())[:5]}"


def test_the_snapshot_covers_errors_and_refusals():
    before = json.loads(BEFORE.read_text())
    values = list(before.values())
    assert sum(v.startswith("NotImplemented") for v in values) > 100
    assert any(v.startswith("TypeError") for v in values) and any(v.startswith("RuntimeError") for v in values)
    assert any("AddBackward0" in v for v in values) and any("RsubBackward1" in v for v in values)


def test_every_python_operator_is_declared_once():
    declared = [spec for spec in {id(s): s for s in registry.REGISTRY.values()}.values() if spec.operator]
    assert sorted(spec.operator for spec in declared) == sorted(operators.SYMBOLS)
    by_symbol = {spec.operator: spec.name for spec in declared}
    assert by_symbol["+"] == "add" and by_symbol["@"] == "matmul" and by_symbol["~"] == "bitwise_not"
    assert torch.Tensor.__add__.__name__ == "__add__" and torch.Tensor.__neg__ is registry.REGISTRY["neg"].fn


def test_a_wrong_operator_declaration_binds_nothing():
    add = registry.REGISTRY["add"]
    before = torch.Tensor.__add__
    with pytest.raises(ValueError, match="no Python operator '\\+='"):
        operators.install([registry.op("plus", add.fn, no_grad="-", operator="+=")])
    with pytest.raises(ValueError, match="operator \\+ declared by add and plus"):
        operators.install([add, registry.op("plus", add.fn, no_grad="-", operator="+")])
    assert torch.Tensor.__add__ is before


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    BEFORE.write_text(json.dumps(behaviour(), indent=0, sort_keys=True) + "\n")
