"""The fused statement `name = other op c` (fastops.assign_op_float: the assignment, the operator and the
name's load as one closure, for a float constant c) behaves as the general closures do: the same values
and the same errors, located the same, where the constant is a variable instead (the general path)."""
from __future__ import annotations

import pytest

from gradcli.lang import fastops
from gradcli.lang.runner import InternalError, RunOptions, run_source

VALUES = ("2", "-3", "True", "0.5", "-0.0", "float('nan')", "float('inf')", "1e308",
          "torch.tensor(1.5)", "torch.tensor(-0.0, dtype=torch.float64)", "torch.tensor(3)",
          "torch.tensor(True)", "torch.tensor([1.0, -2.0])", "torch.tensor(0.75, requires_grad=True)",
          "torch.tensor(2.5, dtype=torch.float64, requires_grad=True)")
CONSTANTS = ("2.5", "0.1", "0.0", "1e-300", "1e300")  # (-0.0 is a unary minus: no constant)
OPS = ("+", "-", "*", "/")


def result(src):
    r = run_source(src, "t.grad", RunOptions(seed=0))
    if r.error is not None:
        assert not isinstance(r.error, InternalError), r.error.traceback_text
        e = r.error
        return r.stdout, (e.type_name, e.message, e.line, e.column, e.end_line, e.end_column)
    return r.stdout, None


def general(src, c):
    """src with the constant c read from a variable of a name as long (the same columns), set on the first
    line (the same lines): the general closures (no fused statement)."""
    name = "c" + "_" * (len(c) - 1)
    return f"{name} = {c}; " + src.replace(f" {c}\n", f" {name}\n")


def fused_count(monkeypatch):
    made = []
    real = fastops.assign_op_float

    def counting(name, G, value):
        f = real(name, G, value)
        if f is not None:
            made.append(name)
        return f
    monkeypatch.setattr(fastops, "assign_op_float", counting)
    return made


@pytest.mark.parametrize("op", OPS)
def test_module_and_function_statements_match_the_general_path(op, monkeypatch):
    made = fused_count(monkeypatch)
    for v in VALUES:
        for c in CONSTANTS:
            src = (f"import torch\ny = {v}\ny = y {op} {c}\nprint(y)\n"
                   f"def f(y):\n    z = y {op} {c}\n    z = z {op} {c}\n    return z\nprint(f({v}))\n")
            assert result(src) == result(general(src, c)), (v, op, c)
    assert len(made) == len(VALUES) * len(CONSTANTS) * 3  # y (module), z twice (a local from a local)


@pytest.mark.parametrize("src, expected", [
    ("y = y * 2.5\n", ("NameError", "name 'y' is not defined", 1, 5, 1, 6)),
    ("def f():\n    w = w + 2.5\nf()\n",
     ("UnboundLocalError", "cannot access local variable 'w' where it is not associated with a value", 2, 9, 2, 10)),
    ("y = 'ab'\ny = y * 2.5\n", ("TypeError", "can't multiply sequence by non-int of type 'float'", 2, 5, 2, 12)),
    ("y = [1]\ny = y + 2.5\n", ("TypeError", 'can only concatenate list (not "float") to list', 2, 5, 2, 12)),
    ("y = 1.0\ny = y / 0.0\n", ("ZeroDivisionError", "float division by zero", 2, 5, 2, 12)),
    ("y = 10 ** 400\ny = y - 0.5\n", ("OverflowError", "int too large to convert to float", 2, 5, 2, 12)),
    ("y = None\ny = y - 0.5\n",
     ("TypeError", "unsupported operand type(s) for -: 'NoneType' and 'float'", 2, 5, 2, 12)),
])
def test_errors_match_the_general_path(src, expected, monkeypatch):
    made = fused_count(monkeypatch)
    src = "import math\n" + src  # line 1 takes general()'s constant
    t, m, line, col, end_line, end_col = expected
    expected = (t, m, line + 1, col, end_line + 1, end_col)
    assert result(src) == ("", expected)
    assert made
    assert result(general(src, "2.5" if "2.5" in src else "0.5" if "0.5" in src else "0.0")) == ("", expected)


def test_a_global_declared_in_a_function_and_a_len_builtin_take_the_general_path(monkeypatch):
    made = fused_count(monkeypatch)
    src = "y = 1.0\ndef f():\n    global y\n    y = y * 2.5\nf()\nprint(y)\nlen = len * 2.5\n"
    assert result(src) == ("2.5\n", ("TypeError", "unsupported operand type(s) for *: 'builtin_function_or_method' "
                                                  "and 'float'", 7, 7, 7, 16))
    assert made == ["len"]  # a builtin read by its load closure, stored as a global; f's y is no local
