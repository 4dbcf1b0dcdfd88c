"""The language wall at its root (issue 15): no engine API turns a script's string into an attribute
or ``__dict__`` entry whose name starts with '_', no script value reaches NumPy's protocol lookups,
no object-dtype array is made from script values. Each attack below worked before the wall was
closed (it read ``__dict__``, replaced ``__class__``, or planted ``__array_interface__`` to read
process memory)."""
from __future__ import annotations

import os

import pytest

from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions, run_source

HEAD = "import torch\nimport torch.nn as nn\nimport numpy as np\n"


def run(src):
    return run_source(HEAD + src, "wall.grad", RunOptions(timeout=10))


def refused(src, type_name=None, message=None):
    result = run(src)
    error = result.error
    assert error is not None, f"not refused: {src!r} printed {result.stdout!r}"
    assert isinstance(error, GradScriptError) and not isinstance(error, InternalError), error.traceback_text
    assert error.line is not None and error.line > 3
    if type_name is not None:
        assert error.type_name == type_name, (error.type_name, error.message)
    if message is not None:
        assert message in error.message, error.message
    return error


PRIVATE = "such names are not available in GradScript"

ATTACKS = [
    # ParameterDict's string keys were getattr/setattr/delattr on the module
    ('pd = nn.ParameterDict()\nprint(pd["__init__"])', "KeyError", PRIVATE),
    ('pd = nn.ParameterDict()\nd = pd["__dict__"]\nprint(d)', "KeyError", PRIVATE),
    ('pd = nn.ParameterDict()\npd["__class__"] = nn.Linear\nprint(type(pd))', "KeyError", PRIVATE),
    ('pd = nn.ParameterDict()\nprint(pd["_parameters"])', "KeyError", PRIVATE),
    ('pd = nn.ParameterDict()\npd["_keys"] = 1', "KeyError", PRIVATE),
    ('pd = nn.ParameterDict()\ndel pd["__class__"]', "KeyError", None),
    ('pd = nn.ParameterDict({"__array_interface__": {"shape": (1,), "typestr": "|O", "data": (8, False)}})',
     "KeyError", PRIVATE),
    ('pd = nn.ParameterDict()\npd.update({"__array__": 1})', "KeyError", PRIVATE),
    ('pd = nn.ParameterDict()\npd.setdefault("__dict__", 1)', "KeyError", PRIVATE),
    ('pd = nn.ParameterDict()\npd["__array_interface__"] = {"shape": (1,), "typestr": "|O", '
     '"data": (8, False), "version": 3}\nprint(np.asarray(pd))', "KeyError", PRIVATE),
    # ModuleDict, add_module, register_*: torch's KeyError for names the object has, ours otherwise
    ('md = nn.ModuleDict()\nmd["__class__"] = nn.Linear(1, 1)', "KeyError", "attribute '__class__' already exists"),
    ('md = nn.ModuleDict()\nmd["__array_interface__"] = nn.Linear(1, 1)', "KeyError", PRIVATE),
    ('md = nn.ModuleDict({"_modules": nn.Linear(1, 1)})', "KeyError", "attribute '_modules' already exists"),
    ('m = nn.Linear(1, 1)\nm.add_module("__array_struct__", nn.Linear(1, 1))', "KeyError", PRIVATE),
    ('m = nn.Linear(1, 1)\nm.register_module("_secret", nn.Linear(1, 1))', "KeyError", PRIVATE),
    ('m = nn.Linear(1, 1)\nm.register_buffer("__array_interface__", torch.ones(1))', "KeyError", PRIVATE),
    ('m = nn.Linear(1, 1)\nm.register_buffer("__class__", torch.ones(1))', "KeyError",
     "attribute '__class__' already exists"),
    ('m = nn.Linear(1, 1)\nm.register_parameter("__array__", nn.Parameter(torch.ones(1)))', "KeyError", PRIVATE),
    ('m = nn.Linear(1, 1)\nm.register_parameter("__dict__", nn.Parameter(torch.ones(1)))', "KeyError",
     "attribute '__dict__' already exists"),
    ('m = nn.Sequential(nn.Linear(1, 1))\nprint(m.get_submodule("__class__"))', "AttributeError", "has no attribute"),
    ('m = nn.Linear(1, 1)\nprint(m.get_parameter("_parameters"))', "AttributeError", "has no attribute"),
    # schedulers' load_state_dict updates their __dict__
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\ns = torch.optim.lr_scheduler.StepLR(opt, 1)\n'
     's.load_state_dict({"__class__": 1})', "KeyError", "state_dict key '__class__'"),
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\ns = torch.optim.lr_scheduler.StepLR(opt, 1)\n'
     's.load_state_dict({"__array_interface__": {"shape": (1,), "typestr": "|O", "data": (8, False)}})\n'
     'print(np.asarray(s))', "KeyError", "state_dict key '__array_interface__'"),
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\ns = torch.optim.lr_scheduler.StepLR(opt, 1)\n'
     's.load_state_dict({"_new_private": 1})', "KeyError", None),
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\n'
     's = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)\ns.load_state_dict({"__dict__": {}})', "KeyError", None),
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\ns = torch.optim.lr_scheduler.LambdaLR(opt, '
     'lambda e: 1)\ns.load_state_dict({"__class__": 1, "lr_lambdas": [None]})', "KeyError", "'__class__'"),
    # CyclicLR: a script's scale_fn is never state; its load_state_dict is the checked __dict__ update
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1, momentum=0.9)\n'
     's = torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, scale_fn=lambda x: 1.0)\n'
     's.load_state_dict({"__class__": 1, "_scale_fn_custom": None})', "KeyError", "'__class__'"),
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1, momentum=0.9)\n'
     's = torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, scale_fn=lambda x: x.__class__)\ns.step()',
     "AttributeError", "not accessible"),
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\nL = torch.optim.lr_scheduler\n'
     's = L.SequentialLR(opt, [L.StepLR(opt, 1)], [])\ns.load_state_dict({"__class__": 1, "_schedulers": []})',
     "KeyError", "'__class__'"),
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\nm = nn.Linear(1, 1)\nm.optimizer = opt\n'
     's = torch.optim.lr_scheduler.ChainedScheduler([m])', "TypeError", "should have `optimizer`"),
    # format fields and format_map reaching attributes or items named '_...'
    ('pd = nn.ParameterDict()\nprint("{__class__}".format_map(pd))', "ValueError", "format field"),
    ('print("{_x}".format_map({"_x": 1}))', "ValueError", "format field"),
    ('print(str.format_map("{__dict__}", nn.ParameterDict()))', "ValueError", "format field"),
    ('print("{0:{__class__}}".format(1, __class__=2))', None, None),
    ('print("{:{0.__class__}}".format(1))', "ValueError", "format field"),
    ('print(f"{1:{\'{0.__class__}\'}}")', "ValueError", None),
    # dynamic keyword names reach functions' private parameters
    ('print(torch.ones(1, **{"_stacklevel": 2}))', "TypeError", "'_stacklevel'"),
    ('def f(**kw):\n    return kw\nprint(f(**{"__class__": 1}))', "TypeError", "'__class__'"),
    # NumPy's protocol lookups on script values, object-dtype arrays
    ('print(np.asarray(nn.Linear(1, 1)))', "TypeError", "got a 'Linear' object"),
    ('class A(nn.Module):\n    def __init__(self):\n        super().__init__()\nprint(np.array([A(), A()]))',
     "TypeError", "got a 'A' object"),
    ('def f():\n    return 1\nprint(np.asarray(f))', "TypeError", "got a 'function' object"),
    ('print(np.asarray([print, len]))', "TypeError", None),
    ('print(np.asarray(x for x in [1, 2]))', "TypeError", "'generator' object"),
    ('print(np.array({1: 2}))', "TypeError", "'dict' object"),
    ('print(np.zeros(3, dtype="O"))', "TypeError", "dtype=object"),
    ('print(np.zeros(3, "O"))', "TypeError", "dtype=object"),
    ('print(np.ones(2).astype("O"))', "TypeError", "dtype=object"),
    ('print(np.array([1, 2], dtype=np.dtype("O")))', "TypeError", "dtype=object"),
    ('print(np.full(2, nn.Linear(1, 1)))', "TypeError", "got a 'Linear' object"),
    ('class A(nn.Module):\n    __array_interface__ = {"shape": (1,), "typestr": "|O", "data": (8, False)}\n'
     'print(np.asarray(A()))', None, None),
    ('class A(nn.Module):\n    def __index__(self):\n        return 0\nprint(torch.ones(2)[A()])', None, None),
    ('class A(nn.Module):\n    def __format__(self, spec):\n        return spec\nprint(f"{A():x}")', None, None),
    ('class A(nn.Module):\n    def __init__(self):\n        super().__init__()\nprint(f"{A():>10}")', "TypeError",
     "unsupported format string"),
    ('print(np.ndarray((2,), dtype="O"))', "TypeError", "cannot create 'ndarray' instances"),
    ('print(np.ndarray((8,), np.uint8, b"abcdefgh"))', "TypeError", "cannot create"),
    ('print(np.ones(2).dot(nn.Linear(1, 1)))', "TypeError", "got a 'Linear' object"),
    ('print(np.linalg.norm(nn.Linear(1, 1)))', "TypeError", "got a 'Linear' object"),
    ('print(np.random.choice([nn.Linear(1, 1)]))', "TypeError", "got a 'Linear' object"),
    ('print(np.concatenate([np.ones(1), [nn.Linear(1, 1)]]))', "TypeError", "got a 'Linear' object"),
]


@pytest.mark.parametrize("src, type_name, message", ATTACKS)
def test_attack_is_refused(src, type_name, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused(src, type_name, message)
    assert os.listdir(tmp_path) == []


WORKS = [
    ('pd = nn.ParameterDict({"a": nn.Parameter(torch.ones(1))})\npd["b"] = torch.zeros(2)\n'
     'print(list(pd.keys()), pd["b"].requires_grad, pd.get("__dict__"), "__class__" in pd)',
     "['a', 'b'] True None False\n"),
    ('md = nn.ModuleDict({"lin": nn.Linear(1, 1)})\nprint(list(md))', "['lin']\n"),
    ('m = nn.Linear(1, 1)\nm.register_buffer("running", torch.zeros(1))\nprint(m.running)', "tensor([0.])\n"),
    ('opt = torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\ns = torch.optim.lr_scheduler.StepLR(opt, 1)\n'
     'opt.step()\ns.step()\nsd = s.state_dict()\ns2 = torch.optim.lr_scheduler.StepLR(opt, 1)\n'
     's2.load_state_dict(sd)\nprint(s2.last_epoch, s2.get_last_lr())', "1 [0.010000000000000002]\n"),
    ('print("{a}-{0}".format_map({"a": 1}) if False else "{a}".format_map({"a": 1}))', "1\n"),
    ('print(np.asarray(torch.ones(2)), np.array(range(3)), np.array([[1, 2], (3, 4)]).dtype)',
     "[1. 1.] [0 1 2] int64\n"),
    ('print(np.zeros(2, dtype=np.float32).dtype, np.ones(2).astype(int), np.array(["a", "b"]))',
     "float32 [1 1] ['a' 'b']\n"),
    ('a = np.ones(2)\nprint(isinstance(a, np.ndarray), type(a) == np.ndarray, np.ndarray)',
     "True True <class 'numpy.ndarray'>\n"),
    ('def f(**kw):\n    return kw\nprint(f(**{"a": 1}))', "{'a': 1}\n"),
]


@pytest.mark.parametrize("src, out", WORKS)
def test_plain_uses_still_work(src, out):
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == out
