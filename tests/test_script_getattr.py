"""getattr / setattr / delattr in scripts: the dotted forms' policy for a name made at run time
(gradcli/lang/dynattrs.py), and the doors they could open (names built from pieces, dunders, the
engine's '_' names, gradcli's namespaces, builtins, functions and types)."""
from __future__ import annotations

import pytest

from case_support import refused_script, run_script, seeded_error, seeded_out

HEAD = """import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from collections import Counter


class Plain:
    k = 1

    def __init__(self):
        self.b = 2
        self._p = 3

    @property
    def boom(self):
        raise ValueError("boom")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self._mine = 4

    def forward(self, x):
        return self.fc(x)


def f(x):
    return x


p, net, lin = Plain(), Net(), nn.Linear(2, 3)
x = torch.ones(2, requires_grad=True)
y = x * 2
"""

# (object, attribute): each read as `obj.attr` and as getattr(obj, 'attr'): the same value or the same error
READS = [("p", "b"), ("p", "k"), ("p", "_p"), ("p", "zz"), ("p", "boom"), ("p", "__init__"), ("p", "__len__"),
         ("p", "__dict__"), ("p", "__class__"), ("p", "__name__"), ("Plain", "__name__"), ("Plain", "_p"),
         ("net", "fc"), ("net", "_mine"), ("net", "_parameters"), ("net", "_modules"), ("net", "training"),
         ("lin", "weight"), ("lin", "_parameters"), ("lin", "in_features"), ("lin", "_version"),
         ("x", "grad"), ("x", "shape"), ("x", "_version"), ("x", "_data"), ("x", "__array_interface__"),
         ("y", "grad_fn"), ("y", "is_leaf"), ("f", "__name__"), ("f", "__globals__"), ("f", "__code__"),
         ("f", "closure"), ("print", "__self__"), ("print", "__name__"), ("torch", "__version__"),
         ("torch", "exp"), ("torch", "_C"), ("nn", "Linear"), ("F", "relu"), ("optim", "SGD"),
         ("torch.Tensor", "__subclasses__"), ("int", "__subclasses__"), ("Counter", "elements"), ("(1)", "real")]
ERRORS = "try:\n    print(repr({0}))\nexcept Exception as e:\n    print(type(e).__name__, e)\n"


def _observe(expression):
    result = run_script(HEAD, "t.grad", ERRORS.format(expression), seed=0)
    assert result.error is None, (result.error.type_name, result.error.message, result.error.line)
    return result.stdout.rstrip("\n")


def _policy_of_dotted(src):
    """What the dotted form says: a refused name is the compiler's error, so each runs on its own."""
    result = run_script(HEAD, "t.grad", ERRORS.format(src), seed=0)
    if result.error is not None:
        return f"{result.error.type_name} {result.error.message}"
    return result.stdout.rstrip("\n")


@pytest.mark.parametrize("obj, name", READS)
def test_getattr_reads_what_the_dotted_form_reads(obj, name):
    dynamic = _observe(f"getattr({obj}, {name!r})")
    dotted = _policy_of_dotted(f"{obj}.{name}")
    if " at 0x" in dotted:  # a bound method or a function: the same object's repr, another run
        dotted, dynamic = dotted.split(" at 0x")[0], dynamic.split(" at 0x")[0]
    assert dynamic == dotted


WRITES = [("p", "b"), ("p", "_q"), ("p", "__dict__"), ("p", "__class__"), ("Plain", "k"), ("Plain", "_k"),
          ("net", "fc"), ("net", "_modules"), ("net", "_parameters"), ("net", "extra"), ("lin", "_version"),
          ("x", "note"), ("x", "shape"), ("x", "grad_fn"), ("x", "_data"), ("x", "data"), ("f", "note"),
          ("f", "__name__"), ("print", "note"), ("torch", "exp"), ("nn", "Linear"), ("F", "relu"),
          ("optim", "SGD"), ("torch.Tensor", "add"), ("nn.Module", "forward"), ("int", "x"), ("(1)", "real"),
          ("torch.float32", "x")]


@pytest.mark.parametrize("obj, name", WRITES)
def test_setattr_and_delattr_write_what_the_dotted_forms_write(obj, name):
    value = "nn.Linear(1, 1)" if name == "fc" else "7"
    dynamic_set = _observe(f"setattr({obj}, {name!r}, {value})")
    dotted_set = _policy_of_assignment(f"{obj}.{name} = {value}")
    assert dynamic_set == dotted_set
    assert _observe(f"delattr({obj}, {name!r})") == _policy_of_assignment(f"del {obj}.{name}")


def _policy_of_assignment(stmt):
    src = f"try:\n    {stmt}\n    print(repr(None))\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
    result = run_script(HEAD, "t.grad", src)
    if result.error is not None:
        return f"{result.error.type_name} {result.error.message}"
    return result.stdout.rstrip("\n")


@pytest.mark.parametrize("src, type_name, message", [
    ("getattr(p, '_' + '_class__')", "AttributeError", "attribute '__class__' is not accessible"),
    ("getattr(getattr(p, '__init__'), '__globals__')", "AttributeError", "not accessible"),
    ("getattr(f, '__glob' + 'als__')", "AttributeError", "not accessible"),
    ("getattr(print, '__self__')", "AttributeError", "not accessible"),
    ("getattr(torch, '_' + 'C')", "AttributeError", "not accessible"),
    ("getattr(Plain, '__mro__')", "AttributeError", "not accessible"),
    ("getattr(getattr(y, 'grad_fn'), '_saved_self')", "AttributeError", "not accessible"),
    ("setattr(net, '_' + 'rg', 1)", "AttributeError", "gradcli's engine reserves"),
    ("setattr(net, '_parameters', {})", "AttributeError", "belongs to nn.Module"),
    ("setattr(Plain, '__getattr__', f)", "AttributeError", "not accessible"),
    ("setattr(Plain, '__init_subclass__', f)", "AttributeError", "not accessible"),
    ("setattr(print, 'x', 1)", "AttributeError", "cannot set attribute 'x'"),
    ("setattr(f, 'x', 1)", "AttributeError", "cannot set attribute 'x'"),
    ("setattr(torch, 'exp', f)", "AttributeError", "cannot assign to attribute 'exp' of module 'torch'"),
    ("setattr(nn, 'Linear', f)", "AttributeError", "cannot assign"),
    ("setattr(F, 'relu', f)", "AttributeError", "cannot assign"),
    ("setattr(optim, 'SGD', f)", "AttributeError", "cannot assign"),
    ("setattr(nn.Module, 'forward', f)", "AttributeError", "cannot set attribute 'forward'"),
    ("setattr(torch.Tensor, 'add', f)", "AttributeError", "cannot set attribute 'add'"),
    ("delattr(torch.Tensor, 'add')", "AttributeError", "cannot delete attribute 'add'"),
    ("delattr(torch, 'exp')", "AttributeError", "cannot delete attribute 'exp' of a 'module' object"),
    ("setattr(int, 'x', 1)", "AttributeError", "cannot set attribute 'x'"),
    ("setattr(x, 'grad_fn', None)", "AttributeError", "attribute 'grad_fn' of 'torch._C.TensorBase' objects"),
    ("getattr(p, 1)", "TypeError", "attribute name must be string, not 'int'"),
    ("setattr(p, None, 1)", "TypeError", "attribute name must be string, not 'NoneType'"),
    ("delattr(p, b'b')", "TypeError", "attribute name must be string, not 'bytes'"),
    ("getattr(p)", "TypeError", "getattr expected at least 2 arguments, got 1"),
    ("getattr(p, 'b', 1, 2)", "TypeError", "getattr expected at most 3 arguments, got 4"),
    ("getattr(p, 'b', default=1)", "TypeError", "getattr() takes no keyword arguments"),
    ("setattr(p, 'b')", "TypeError", "setattr expected 3 arguments, got 2"),
    ("delattr(p)", "TypeError", "delattr expected 2 arguments, got 1"),
    ("getattr(p, 'a\\x00b')", "AttributeError", "'Plain' object has no attribute 'a\x00b'"),
    ("getattr(p, '\\uff3f\\uff3fclass\\uff3f\\uff3f')", "AttributeError", "has no attribute"),  # no NFKC: not __class__
])
def test_doors_stay_shut(src, type_name, message):
    refused_script(HEAD, "t.grad", src + "\n", type_name, message)


def test_the_default_answers_an_attribute_error_only():
    result = run_script(HEAD, "t.grad", "getattr(p, 'boom', None)\n")
    assert (result.error.type_name, result.error.message, result.error.line) == ("ValueError", "boom", 17)


def test_a_huge_name_is_a_plain_missing_attribute():
    result = run_script(HEAD, "t.grad", "n = 'a' * 10 ** 6\nprint(getattr(p, n, 'none'), hasattr(p, n))\n"
                                        "setattr(p, n, 5)\nprint(getattr(p, n))\ndelattr(p, n)\n"
                                        "print(getattr(p, '_' * 10 ** 5, 'refused'))\n")
    assert result.error is None and result.stdout == "none False\n5\nrefused\n"


def test_counter_elements_read_by_getattr_is_metered():
    result = run_script(HEAD, "t.grad", "list(getattr(Counter({'a': 10 ** 9}), 'elements')())\n", max_steps=10_000)
    assert result.error is not None and "steps" in result.error.message


def test_d2l_add_to_class_and_a_module_swapping_its_parameters():
    out = seeded_out(HEAD + """
def add_to_class(Class):
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper


@add_to_class(Plain)
def twice(self):
    return 2 * self.b


print(Plain().twice(), twice)
for name, q in list(lin.named_parameters()):
    delattr(lin, name)
    setattr(lin, name, torch.zeros_like(q))
print(lin(torch.ones(1, 2)), [n for n, _ in lin.named_parameters()])
setattr(net, 'head', nn.Linear(2, 1))
print([n for n, _ in net.named_parameters()])
setattr(Plain, '_count', 0)
Plain._count += 1
print(getattr(Plain, '_count'), getattr(f, '__name__'), getattr(torch, '__version__') >= '2.0')
""")
    assert out.split("\n", 1)[0].startswith("4 None")
    assert out.split("\n", 1)[1] == ("tensor([[0., 0., 0.]]) []\n['fc.weight', 'fc.bias', 'head.weight', 'head.bias']\n"
                                     "1 f True\n")


def test_getattr_setattr_delattr_are_builtins_a_script_may_shadow():
    assert seeded_out("print(getattr, setattr, delattr)\ngetattr = 1\nprint(getattr)\n") == (
        "<built-in function getattr> <built-in function setattr> <built-in function delattr>\n1\n")
    assert seeded_out("getattr = 1\ndel getattr\nprint(getattr(1, 'real'))\n") == "1\n"
    assert seeded_error("getattr(1, 'real', 2, 3)\n").message == "getattr expected at most 3 arguments, got 4"


def test_hasattr_answers_what_getattr_reads_of_names_and_versions():
    assert seeded_out("import torch\ndef f():\n    pass\nprint(hasattr(f, '__name__'), hasattr(torch, '__version__'), "
                      "hasattr(torch.ones(1), '__name__'), hasattr(len, '__name__'), hasattr(torch.nn.Linear, "
                      "'__name__'), hasattr(f, '__version__'))\n") == "True True False True True False\n"


def test_names_made_at_run_time_do_not_grow_the_private_cache():
    from gradcli.lang import private
    result = run_script(HEAD, "t.grad", "class Q:\n    pass\nq = Q()\nfor i in range(6000):\n"
                                        "    getattr(q, '_k' + str(i), None)\nsetattr(q, '_k5999', 1)\n"
                                        "print(getattr(q, '_k5999'), getattr(q, '_k0', 'none'))\n")
    assert result.error is None and result.stdout == "1 none\n"
    assert all(len(names) <= private.MAX_CLEARED for names in private._CLEARED.values())
