"""Red-team doors of the sandbox (docs/robustness.md): the routes by which a script hands gradcli a
string, a callable or an object that gradcli then uses (format fields, generators closed by the
collector, user classes' methods, keys, callbacks). Each attack ends in a clean located error of the
script (never a traceback, an internal error, a lost limit or a side effect), and each harmless use of
the same door prints what Python with PyTorch prints (the expected outputs come from torch-echo)."""
from __future__ import annotations

from functools import partial
import os
import sys

import pytest

from gradcli.lang.runner import InternalError, RunOptions

from case_support import refused_script, run_script

run = partial(run_script, "", "door.grad")
refused = partial(refused_script, "", "door.grad")


@pytest.fixture
def no_unraisable(monkeypatch):
    """Fails a test in which an exception was 'ignored' (printed by Python with its traceback)."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    yield
    assert not seen, [str(u.exc_value) for u in seen]


# ---------------------------------------------------------------- generators closed by the collector

ENDLESS_FINALLY = """def g():
    try:
        while True:
            yield 1
    finally:
        while True:
            pass
for v in g():
    break
print("after")
"""


def test_limit_in_a_collected_generators_finally_stops_the_run(no_unraisable):
    # Python hangs in the finally block as the loop drops the generator: gradcli's step limit must
    # end the run there, not be swallowed as an "Exception ignored" traceback on stderr
    result = refused(ENDLESS_FINALLY, "RuntimeError", "step limit of 20000 exceeded", max_steps=20_000)
    assert result.stdout == "" and result.error.line == 6


def test_deep_recursion_in_a_collected_generators_finally(no_unraisable):
    # Python reports the RecursionError as "Exception ignored" (stderr) and goes on
    src = ("def f(n):\n    return f(n + 1)\ndef g():\n    try:\n        yield 1\n    finally:\n        f(0)\n"
           "x = g()\nnext(x)\nx = None\nprint('after')\n")
    result = run(src)
    assert result.error is None and result.stdout == "1\nafter\n"


def test_generator_finally_that_ends_still_runs_quietly(no_unraisable):
    src = ("def g():\n    try:\n        yield 1\n    finally:\n        print('closed')\n"
           "for v in g():\n    break\nprint('after')\n")
    result = run(src)
    assert result.error is None and result.stdout == "closed\nafter\n"


@pytest.mark.parametrize("src", [
    "def g():\n    try:\n        yield 1\n    finally:\n        raise ValueError('x')\nfor v in g():\n    break\nprint('ok')\n",
    "def g():\n    try:\n        yield 1\n    finally:\n        yield 2\nfor v in g():\n    break\nprint('ok')\n",
])
def test_errors_of_a_collected_generator_are_ignored_as_python_does(src):
    # Python prints "Exception ignored in: <generator ...>" on stderr and goes on; stdout is the same
    result = run(src)
    assert result.error is None and result.stdout == "ok\n"


def test_no_file_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused(ENDLESS_FINALLY, max_steps=5_000)
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- str.format fields that read attributes and items

# (format string, arguments as a Python literal: a tuple of positionals, or a dict for format_map)
FORMAT_CASES = [
    ("{.real}", "(1,)"), ("{} {.real}", "(1, 2)"), ("{0} {.real}", "(1, 2)"), ("{.real} {0}", "(1, 2)"),
    ("{0[1]}", "([5, 6],)"), ("{0[a][0]}", "({'a': [7]},)"), ("{0.real:>{1}}", "(3, 5)"),
    ("{0:>{1.real}}", "(3, 5)"), ("{0[5]}", "([1],)"), ("{0.nope}", "(1,)"), ("{1.real}", "(1,)"),
    ("{0[}", "(1,)"), ("{0.}", "(1,)"), ("{0[0]x}", "([1],)"), ("{0.real!r:>4}", "(2,)"), ("{0.real!z}", "(2,)"),
    ("{0[-1]}", "([1, 2],)"), ("{0[ 1]}", "({' 1': 3},)"), ("{0:{1.real:{2}}}", "(1, 2, 3)"),
    ("{0.imag:x} {9}", "(1,)"), ("{[0]}{}", "([4], 5)"), ("{0.real}}", "(1,)"), ("{{{0.real}}}", "(1,)"),
    ("{0.imag.real:{1[0]}{1[1]}}", "(2.5, ['>', 6])"), ("{0.count}", "([],)"),
    ("{a.real} {a.imag:+}", "{'a': 4}"), ("{0.real}", "{}"), ("{a[x]}", "{'a': {'x': 'y'}}"),
]


@pytest.mark.parametrize("fmt, args", FORMAT_CASES)
def test_format_fields_read_attributes_and_items_as_python_does(fmt, args):
    import ast
    values = ast.literal_eval(args)
    call = f"{fmt!r}.format_map({args})" if isinstance(values, dict) else f"{fmt!r}.format(*{args})"
    try:
        text = fmt.format_map(values) if isinstance(values, dict) else fmt.format(*values)
        expected = (text if "<built-in" not in text else text.split(" at 0x")[0]) + "\n", None
    except Exception as e:  # noqa: BLE001 - Python's own error is what the script must get
        expected = "", (type(e).__name__, str(e).strip("'"))
    result = run(f"print({call})")
    if expected[1] is None:
        assert result.error is None, result.error.message
        assert result.stdout.split(" at 0x")[0].rstrip("\n>") + "\n" == expected[0].rstrip("\n>") + "\n"
    else:
        assert result.error is not None and not isinstance(result.error, InternalError)
        assert (result.error.type_name, result.error.message.strip("'")) == expected[1]


@pytest.mark.parametrize("src", [
    "'{0.__class__}'.format(1)", "'{0.real.__class__}'.format(1)", "'{0[0].__dict__}'.format([1])",
    "'{0._x}'.format(1)", "'{x.__class__}'.format_map({'x': 1})", "'{0:{1.__class__}}'.format(1, 2)",
    "'{0.grad_fn.__class__}'.format(torch.ones(1))", "'{0.rt}'.format(print)", "'{0.closure}'.format(lambda: 1)",
    "'{0[__class__]}'.format({'__class__': 1})", "'{0.real:{1}}'.format(1, 10 ** 9)",
    "'{0.real:>{1.real}}'.format(1, 10 ** 9)", "'{0[0]:{0[1]}}'.format([1, 10 ** 9])",
])
def test_format_fields_reach_nothing_private(src):
    refused("import torch\n" + src)


def test_format_fields_through_engine_objects():
    src = ("import torch\nimport torch.nn as nn\nm = nn.Linear(2, 3)\nx = torch.ones(2, requires_grad=True)\n"
           "print('{0.weight.shape} {0.in_features} {1.requires_grad} {1.grad} {1.dtype.is_floating_point}'"
           ".format(m, x))\nprint('{m.bias.shape[0]:>3}|{t.T.shape}'.format(m=m, t=torch.ones(2, 1)))\n")
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == "torch.Size([3, 2]) 2 True None True\n  3|torch.Size([1, 2])\n"


# ---------------------------------------------------------------- script objects where the engine expects tensors

# one value of every kind of object the language makes (its own classes: builtins, functions,
# generators, long ranges, type() results, module facades, classes and instances, exceptions)
ODD_VALUES = ["print", "len", "range(10 ** 6)", "uf", "(lambda: 1)", "gen()", "type(t)", "type(None)", "torch",
              "nn", "M", "M()", "ValueError('x')", "t.grad_fn", "t.dtype", "t.device", "t.shape", "np.ones(2)",
              "'abc'", "None", "[print]", "{'a': print}", "1e308", "2 ** 70", "..."]
ENGINE_CALLS = ["torch.mm(t, {v})", "torch.tanh_({v})", "torch.norm({v})", "F.relu({v})", "t.add({v})",
                "torch.cat([t, {v}])", "torch.stack([{v}])", "t[{v}]", "t.view({v})", "torch.ones({v})",
                "nn.Linear({v}, 1)", "torch.tensor({v})", "{v} + t", "t @ {v}", "torch.where({v}, t, t)",
                "torch.autograd.grad(t.sum(), {v})", "t.sum().backward(inputs={v})", "torch.optim.SGD({v})",
                "torch.promote_types({v}, t.dtype)", "torch.softmax({v}, 0)", "t.to({v})", "t.expand({v})",
                "torch.ones(2).copy_({v})", "nn.Sequential({v})", "F.mse_loss(t, {v})", "torch.as_tensor({v})",
                "torch.from_numpy({v})", "t.masked_fill({v}, 0)", "torch.manual_seed({v})", "np.asarray({v})"]
ODD_HEAD = """import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np
def uf(*a, **k):
    return a
class M(nn.Module):
    def __init__(self):
        super().__init__()
def gen():
    yield 1
t = torch.ones(2, 2, requires_grad=True)
"""


@pytest.mark.parametrize("call", ENGINE_CALLS)
def test_script_objects_where_tensors_go_are_the_scripts_errors(call):
    # an engine function reads t._data, t.dtype, ... of what it is given: for a value of the
    # language's own classes that AttributeError is the script's mistake (exit 1), not gradcli's
    from gradcli.lang.runner import Session
    session = Session(RunOptions(seed=0, timeout=10, max_steps=20_000, max_elements=100_000))
    assert session.run(ODD_HEAD, "head.grad").error is None
    for value in ODD_VALUES:
        result = session.run("v = " + call.format(v=value) + "\n", "odd.grad")
        error = result.error
        assert not isinstance(error, InternalError), (call.format(v=value), error.traceback_text)
        assert error is None or error.line == 1


# ---------------------------------------------------------------- classes a script reaches through type()

@pytest.mark.parametrize("src", [
    "torch.dtype('float32', 'O', 2, 5, 'FloatTensor')",
    "type(torch.float32)('evil', 'O', 2, 5, 'x')",
    "type(torch.ones(1).dtype)()",
    "torch.layout('strided')",
    "type(torch.ones(1).layout)('x')",
])
def test_dtype_and_layout_cannot_be_made(src):
    # torch: "cannot create 'torch.dtype' instances"; a dtype over NumPy's object type would have put
    # Python objects in a tensor's array
    result = refused("import torch\n" + src, "TypeError")
    assert "cannot create 'torch." in result.error.message


# ---------------------------------------------------------------- a script's own generator.close()

def test_generator_close_runs_finally_blocks_as_python_does():
    src = ("def inner():\n    try:\n        yield 1\n    finally:\n        print('inner fin')\n"
           "def outer():\n    try:\n        yield from inner()\n    finally:\n        print('outer fin')\n"
           "g = outer()\nprint(next(g))\nprint(g.close(), g.close(), list(g))\n"
           "e = (i for i in range(3))\nprint(next(e), e.close(), list(e))\n")
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == "1\ninner fin\nouter fin\nNone None []\n0 None []\n"


def test_generator_close_passes_on_the_finally_blocks_error():
    src = ("def f():\n    try:\n        yield 1\n    finally:\n        raise ValueError('in finally')\n"
           "g = f()\nnext(g)\ntry:\n    g.close()\nexcept ValueError as e:\n    print('caught', e)\n")
    result = run(src)
    assert result.error is None and result.stdout == "1\ncaught in finally\n"  # next(g) echoes 1


def test_generator_close_cannot_escape_a_limit(no_unraisable):
    src = ("def f():\n    try:\n        yield 1\n    finally:\n        while True:\n            pass\n"
           "g = f()\nnext(g)\ntry:\n    g.close()\nexcept BaseException:\n    print('caught')\nprint('never')\n")
    result = refused(src, "RuntimeError", "step limit", max_steps=20_000)
    assert result.stdout == "1\n" and result.error.line == 5


@pytest.mark.parametrize("name", ["send", "throw", "gi_frame", "gi_code", "gi_yieldfrom", "__next__"])
def test_generators_expose_nothing_else(name):
    refused(f"def f():\n    yield 1\ng = f()\nv = g.{name}\n", "AttributeError")


# ---------------------------------------------------------------- collections: four container types, nothing else

@pytest.mark.parametrize("src", [
    "from collections import namedtuple\n",          # would build a class from text (namedtuple runs exec)
    "from collections import ChainMap\n",
    "import collections.abc\n",
    "import collections\nc = collections.UserDict\n",
    "from collections import OrderedDict\nv = OrderedDict.__dict__\n",
    "from collections import defaultdict\nd = defaultdict(list)\nv = d.__class__.__base__\n",
    "from collections import deque\nv = deque().__class__\n",
    "from collections import deque\nv = deque.__init__\n",
    "from collections import Counter\nv = Counter('ab').__missing__\n",
    "from collections import Counter\nv = Counter._keep_positive\n",
])
def test_collections_gives_only_its_container_types(src):
    refused(src)


@pytest.mark.parametrize("src", [
    "from collections import deque\nd = deque([1, 2])\nv = d * 10**12\n",
    "from collections import deque\nd = deque([1, 2])\nd *= 10**12\n",
])
def test_deque_repetition_is_size_checked(src):
    refused(src, "MemoryError")


def test_deque_and_counter_work_as_in_python():
    src = ("from collections import deque, Counter\nd = deque(maxlen=2)\nd.append(1); d.appendleft(0); d.append(5)\n"
           "c = Counter('abca')\nprint(d, list(d), c.most_common(1), c['z'])\n")
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == "deque([1, 5], maxlen=2) [1, 5] [('a', 2)] 0\n"


# ---------------------------------------------------------------- np.finfo / np.iinfo: number types only

@pytest.mark.parametrize("src", [
    "import numpy as np\nclass A:\n    dtype = 'float32'\nv = np.finfo(A())\n",   # np.dtype(obj) reads obj.dtype
    "import numpy as np\nv = np.iinfo([1, 2])\n",
    "import numpy as np\nv = np.finfo(np.float32).__class__\n",
    "import numpy as np\nv = np.finfo(np.float32)._str_eps\n",
    "import numpy as np\nv = np.finfo(np.float32).machar\n",
])
def test_np_finfo_takes_number_types_and_shows_its_numbers_only(src):
    refused(src)


def test_np_finfo_gives_numpys_numbers():
    result = run("import numpy as np\nprint(np.finfo(np.float32).eps.item(), np.iinfo(np.int8).max, "
                 "np.finfo('float64').bits, np.finfo(np.zeros(2)).tiny)\n")
    assert result.error is None, result.error.message
    assert result.stdout == "1.1920928955078125e-07 127 64 2.2250738585072014e-308\n"


def test_hasattr_answers_for_protocol_names_only():
    src = ("import torch\nclass V:\n    def __len__(self):\n        return 3\n"
           "print(hasattr(torch.ones(2), '__len__'), hasattr(5, '__len__'), hasattr(V(), '__len__'),"
           " hasattr([1], '__iter__'), hasattr(len, '__call__'), hasattr(V(), '__class__'),"
           " hasattr(torch.ones(2), '__dict__'), hasattr(V(), '_x'))\n")
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == "True False True True True False False False\n"
