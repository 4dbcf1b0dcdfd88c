"""One attribute-read policy: a script's `obj.name` (exprs.e_attribute's closure), `obj.name()` and `obj.name(x)`
(fastcalls' fused method calls) all read through pyvalues.read_attribute, which get_attr runs too. Each form, for
objects of every fast kind (FULL, CHECKED, NAMESPACE) and of none, reads what get_attr reads: the same value, or the
same error and message (a module held by a script's object is refused, a missing name is the script's own
AttributeError, never an internal error)."""
from __future__ import annotations

import types

import pytest

from gradcli.lang import pyvalues, runner

SETUP = '''\
import torch
import torch.nn as nn
class Box:
    def __init__(self):
        self.size = 3
t = torch.ones(2)
lin = nn.Linear(2, 2)
box = Box()
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
words = "a b"
items = [1, 2]
f = len
'''

# (object, attribute): reads that answer and reads that fail, across the kinds
READS = [("t", "shape"), ("t", "nope"), ("lin", "weight"), ("lin", "nope"), ("box", "size"), ("box", "nope"),
         ("box", "mod"), ("opt", "param_groups"), ("opt", "nope"), ("torch", "relu"), ("torch", "nope"),
         ("words", "upper"), ("words", "nope"), ("items", "count"), ("items", "nope"), ("f", "nope"),
         ("nn", "Linear"), ("Box", "nope")]
FORMS = ("v = {o}.{a}", "v = {o}.{a}()", "v = {o}.{a}(1)", "{o}.{a}()")


def _session():
    session = runner.Session(runner.RunOptions())
    result = session.run(SETUP, "<setup>")
    assert result.ok, result.error
    # a module in a script object's dict (as a Python-side attribute could put it): refused by every read
    session.globals["box"].__dict__["mod"] = types
    return session


def _read_outcome(session, obj, name):
    """What get_attr answers: ('ok', None) or (type name, message)."""
    try:
        pyvalues.get_attr(session.globals[obj], name)
    except Exception as e:  # noqa: BLE001 - the outcome is compared
        return type(e).__name__, str(e)
    return "ok", None


@pytest.mark.parametrize("obj,name", READS)
def test_every_site_reads_as_get_attr(obj, name):
    session = _session()
    expected = _read_outcome(session, obj, name)
    for form in FORMS:
        # inside a function too: the sites that read a local name
        for source in (form.format(o=obj, a=name), f"def g({obj}):\n    {form.format(o=obj, a=name)}\ng({obj})\n"):
            result = session.run(source, "<t>")
            if expected[0] == "ok":
                # the read answered; the call may fail on its own, never with the read's errors
                assert result.ok or result.error.type_name != "AttributeError" or name not in result.error.message, \
                    (source, result.error)
            else:
                assert not result.ok, source
                assert (result.error.type_name, result.error.message) == expected, source
                assert type(result.error) is not runner.InternalError, source


def test_a_refused_module_is_refused_at_the_attribute():
    session = _session()
    result = session.run("x = 1\nbox.mod.path\n", "<t>")
    assert (result.error.type_name, result.error.message) == (
        "AttributeError", "'Box' object attribute 'mod' is not available in GradScript")
    assert (result.error.line, result.error.column) == (2, 1)
