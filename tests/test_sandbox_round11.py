"""Red team, eleventh round (docs/robustness.md, "The sandbox"): the argument doors left open by round 10
(binary ops given objects, script sequences reaching NumPy's conversion, ints past int64 in int lists, the
names of the engine's iterators) and the surfaces new in session 14. Each attack ends in a clean located
error of the script (exit 1) or in what Python with PyTorch prints; never a traceback, an internal error,
a hang, NotImplemented or a Python-internal name."""
from __future__ import annotations

from functools import partial

import pytest
from case_support import refused_script, run_script

HEAD = "import torch\nimport numpy as np\nclass O:\n    pass\nx = torch.tensor([1., 2., 3.])\n"

run = partial(run_script, HEAD, "round11.grad")
refused = partial(refused_script, HEAD, "round11.grad")


# ---------------------------------------------------------------- binary ops given no Tensor or number

@pytest.mark.parametrize("src, message", [
    ("x.add_(torch.device('cpu'))", "add_(): argument 'other' (position 1) must be Tensor, not torch.device"),
    ("x.eq(O())", "eq() received an invalid combination of arguments - got (O), but expected one of:"),
    ("torch.add(x, (1, 2))", "add(): argument 'other' (position 2) must be Tensor, not tuple"),
    ("torch.maximum(x, [1])", "maximum(): argument 'other' (position 2) must be Tensor, not list"),
    ("x.copy_(O())", "copy_(): argument 'other' (position 1) must be Tensor, not O"),
    ("x.lt_(None)", "lt_() received an invalid combination of arguments - got (NoneType)"),
    ("torch.mul(O(), x)", "mul(): argument 'input' (position 1) must be Tensor, not O"),
    ("x.sub(other=O())", "sub(): argument 'other' must be Tensor, not O"),
    ("x.remainder(O())", "remainder() received an invalid combination of arguments - got (O)"),
    ("x.where(x > 1, O())", "where() received an invalid combination of arguments - got (Tensor, O)"),
])
def test_a_binary_op_refuses_an_object_as_torch_parser_does(src, message):
    result = refused(src + "\n", "TypeError", message)
    assert "NotImplemented" not in result.error.message and "float" not in result.error.message


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "bitwise_and", "greater"])
def test_a_comparison_method_never_returns_not_implemented(name):
    # the comparison ops returned NotImplemented (for the operators' sake) to x.eq(obj) and torch.eq(x, obj)
    src = f"t = torch.tensor([1, 2])\nr = t.{name}(O())\nprint(r)\n"
    refused(src, "TypeError", f"{name}() received an invalid combination of arguments")
    refused(src.replace(f"t.{name}(O())", f"torch.{name}(t, O())"), "TypeError", f"{name}()")


def test_the_operators_still_let_python_answer():
    # x == obj and x != obj are Python's identity answers, x < obj and x & obj Python's TypeError
    out = run("print(x == 'a', x != None, torch.tensor([1]) == O())\n")
    assert out.error is None and out.stdout == "False True False\n"
    refused("x < 'a'\n", "TypeError", "'<' not supported between instances of 'Tensor' and 'str'")
    refused("torch.tensor([1]) & O()\n", "TypeError", "unsupported operand type(s) for &: 'Tensor' and 'O'")
    refused("y = x.clone()\ny += O()\n", "TypeError", "unsupported operand type(s) for +=: 'Tensor' and 'O'")


# ---------------------------------------------------------------- a script's objects where a method takes ints

SEQUENCE = "class L:\n    def __len__(self):\n        return 10**9\n    def __getitem__(self, i):\n        return 0\n"


@pytest.mark.parametrize("call, message", [
    ("x.flip(L())", "flip(): argument 'dims' (position 1) must be tuple of ints, not L"),
    ("x.reshape(L())", "reshape(): argument 'shape' (position 1) must be tuple of ints, not L"),
    ("x.permute([O()])", "permute(): argument 'dims' (position 1) must be tuple of ints, but found element of type O"),
    ("x.softmax(O())", "softmax(): argument 'dim' (position 1) must be int, not O"),
    ("x.sum([O()])", "sum() received an invalid combination of arguments - got (list)"),
    ("x.topk(L())", "topk(): argument 'k' (position 1) must be int, not L"),
])
def test_a_method_refuses_a_script_object_as_its_signature_does(call, message):
    # the implementations let Python's own text out ("'<=' not supported between instances of 'int' and 'O'",
    # "int() argument must be ...", "'L' object is not iterable")
    result = refused(SEQUENCE + call + "\n", "TypeError", message)
    assert "not supported between" not in result.error.message


# ---------------------------------------------------------------- the metered iterators' names, iter(f, sentinel)

def test_the_metered_iterators_carry_python_names():
    out = run("import itertools\nprint(type(itertools.repeat(1)), type(itertools.chain([1])), type(iter(abs, 1)))\n")
    assert out.error is None, out.error.message
    assert out.stdout == "<class 'itertools.repeat'> <class 'itertools.chain'> <class 'callable_iterator'>\n"
    refused("import itertools\nlen(itertools.repeat(1))\n", "TypeError", "object of type 'itertools.repeat' has no len()")
    refused("import itertools\ntorch.tensor(itertools.count())\n", "RuntimeError",
            "Could not infer dtype of itertools.count")


def test_iter_of_a_callable_and_a_sentinel_is_metered():
    out = run("n = [0]\ndef f():\n    n[0] += 1\n    return n[0]\nprint(list(iter(f, 4)))\n")
    assert out.error is None and out.stdout == "[1, 2, 3]\n"
    refused("list(iter(int, 1))\n", "RuntimeError", "step limit", max_steps=10000)  # int() in C: each item a step
    refused("iter(5, 1)\n", "TypeError", "iter(v, w): v must be callable")
    refused("iter([1], 1, 2)\n", "TypeError", "iter expected at most 2 arguments, got 3")
