"""The one door to '_' attributes beyond super().__init__: `x.__name__` and `x.__class__.__name__`
(the weights_init idiom of PyTorch's DCGAN tutorial and many others: `m.__class__.__name__`).
They give a class's or a function's name, a string, and nothing else: `__class__` alone, anything
read from it but `__name__`, an assignment and the dynamic routes stay refused (the sandbox)."""
from __future__ import annotations

import pytest

from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions, run_source


def run(src):
    return run_source(src, "door.grad", RunOptions(timeout=10))


def test_names_print_what_python_prints():
    # expected: what torch-echo prints for the same lines (Python 3.11, torch 2.13)
    result = run("""import torch
from torch import nn
x = torch.ones(2)
def f(a): return a
g = lambda a: a
class Foo(nn.Module):
    pass
print(f.__name__, g.__name__, print.__name__, torch.relu.__name__, nn.Linear.__name__, x.__class__.__name__)
print(nn.Linear(1, 1).__class__.__name__, (3).__class__.__name__, type(iter([])).__name__, type(None).__name__)
print(type(Foo()).__name__, Foo.__name__, Foo().__class__.__name__, range.__name__, type.__name__)
def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Linear') != -1:
        print('init', classname)
nn.Sequential(nn.Linear(1, 2), nn.ReLU()).apply(weights_init)
""")
    assert result.error is None, result.error
    assert result.stdout.splitlines()[:4] == [
        "f <lambda> print relu Linear Tensor",
        "Linear int list_iterator NoneType",
        "Foo Foo Foo range type",
        "init Linear",
    ]


@pytest.mark.parametrize("src,message", [
    ("import torch\ntorch.ones(1).__name__", "'Tensor' object has no attribute '__name__'"),
    ("from torch import nn\nnn.Linear(1, 1).__name__", "'Linear' object has no attribute '__name__'"),
    ("x = 3\nx.__name__", "'int' object has no attribute '__name__'"),
])
def test_objects_without_a_name_raise_pythons_error(src, message):
    error = run(src).error
    assert isinstance(error, GradScriptError) and not isinstance(error, InternalError)
    assert error.type_name == "AttributeError" and error.message == message


@pytest.mark.parametrize("src", [
    "x = 1\nx.__class__",
    "x = 1\nc = x.__class__\n",
    "x = 1\nx.__class__.__bases__",
    "x = 1\nx.__class__.__subclasses__()",
    "x = 1\nx.__class__.__name__.__class__",
    "x = 1\ntype(x).__dict__",
    "def f(): pass\nf.__globals__",
    "def f(): pass\nf.__name__.__class__",
    "def f(): pass\nf.__name__ = 'g'",
    "from torch import nn\nclass A(nn.Module):\n    pass\nA.__name__ = 'B'",
    "x = 1\ngetattr(x, '__class__')",
    "def f(): pass\ngetattr(f, '__globals__')",
    "def f(): pass\nsetattr(f, '__name__', 'g')",
])
def test_everything_else_private_stays_refused(src):
    result = run(src)
    error = result.error
    assert error is not None, f"not refused: {src!r} printed {result.stdout!r}"
    assert isinstance(error, GradScriptError) and not isinstance(error, InternalError), error
    assert error.type_name in ("AttributeError", "NameError"), (error.type_name, error.message)
    assert "GradScript" in error.message, error.message  # the sandbox's refusal, not a Python error
    assert result.stdout == ""


def test_a_name_is_a_plain_string():
    result = run("def f(): pass\nn = f.__name__\nprint(type(n), n.upper(), len(n))")
    assert result.error is None and result.stdout == "<class 'str'> F 1\n"
