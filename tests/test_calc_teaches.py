"""The calculator teaches (issue 16): each usual slip gets a hint that says what to write."""
from __future__ import annotations

import pytest

from test_cli import ANSI, assert_no_traceback, gradcli, strict_loads


@pytest.mark.parametrize("args, code, headline, hint", [
    (["x^2", "x=3"], 1, "NotImplementedError", "^ is Python's bitwise xor; a power is written ** (x**2)"),
    (["sine(x)", "x=1"], 1, "NameError: name 'sine' is not defined", "did you mean sin?"),
    (["x.sigmod()", "x=1"], 1, "AttributeError", "did you mean .sigmoid?"),
    (["x*y", "x=1"], 1, "NameError: name 'y' is not defined", "add y=VALUE"),
    (["torch", "x=1"], 1, "TypeError: the expression must give a tensor or a number, not <module 'torch'>",
     "an expression must give a tensor"),
    (["2**3"], 1, "ValueError: there is no variable in '2**3'", "NAME=VALUE"),
])
def test_calculator_errors_teach(args, code, headline, hint):
    proc = gradcli("grad", "--no-color", *args)
    assert proc.returncode == code, proc.stderr
    assert_no_traceback(proc)
    err = ANSI.sub("", proc.stderr)
    assert headline in err and "hint: " in err and hint in err, err


def test_empty_value_has_no_gradient():
    proc = gradcli("grad", "x.sum()", "x=[]")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "an empty value has no gradient" in proc.stderr.splitlines()[0]


@pytest.mark.parametrize("expr, names", [("x.item()", ["x"]), ("x * (y > 0)", ["y"]), ("x.detach() * 2", ["x"])])
def test_no_gradient_path_is_said_not_a_silent_zero(expr, names):
    assign = ["x=2", "y=3"] if "y" in expr else ["x=2"]
    proc = gradcli("grad", "--no-color", expr, *assign)
    assert proc.returncode == 0, proc.stderr
    assert f"note: {expr} does not depend on {', '.join(names)}" in proc.stderr
    doc = strict_loads(gradcli("grad", "--json", expr, *assign).stdout)
    assert doc["calculator"]["independent_of"] == names and len(doc["calculator"]["notes"]) == 1
    # a real dependence carries no note
    proc = gradcli("grad", "x**2", "x=2")
    assert "note:" not in proc.stderr and doc["ok"]
