"""csrc/lang.c (gradcli._native_lang): read_attr(obj, name) is getattr(obj, name), value or error, for nn.Module
instances (their parameters, buffers and submodules read from the stores directly) and everything else; the
script interpreter's CHECKED reads take it once a Module type was read from."""
from __future__ import annotations

from collections import OrderedDict

import pytest

from gradcli.engine import api as torch
from gradcli.engine.nn.module import Module
from gradcli.lang import pyvalues

nn = torch.nn


@pytest.fixture
def read_attr(native_module):
    module = native_module("lang")
    module.setup(Module.__getattr__, object.__getattribute__)
    return module.read_attr


def _outcome(f, obj, name):
    try:
        return ("value", f(obj, name))
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return ("error", type(e), str(e))


class Net(nn.Module):
    scale = 3  # a class value: found before the stores

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 2)
        self.register_buffer("running", torch.zeros(2))
        self.plain = 5

    @property
    def doubled(self):
        return self.plain * 2


class Hooked(Net):
    def __getattr__(self, name):  # a script class's own hook: Python's lookup, not the stores
        return ("own", name)


class Looked(Net):
    def __getattribute__(self, name):
        return object.__getattribute__(self, name)


def _objects():
    net, hooked, looked = Net(), Hooked(), Looked()
    shadow = Net()
    shadow.__dict__["fc1"] = "instance value"  # the instance's dict before the stores
    odd = Net()
    odd.__dict__["_modules"] = OrderedDict(odd.__dict__["_modules"])  # a store of another class
    gone = Net()
    del gone.fc1
    bare = Net.__new__(Net)  # no stores at all
    lin = nn.Linear(3, 1)
    return [net, hooked, looked, shadow, odd, gone, bare, lin, torch.ones(2), [1, 2], torch.optim.SGD(lin.parameters(), lr=0.1)]


NAMES = ["fc1", "running", "plain", "doubled", "scale", "weight", "bias", "training", "forward", "missing", "__x",
         "__class__", "_parameters", "zero_grad", "shape", "append", "fc1 "]


def test_read_attr_is_getattr(read_attr):
    for obj in _objects():
        for name in NAMES:
            assert _outcome(read_attr, obj, name) == _outcome(getattr, obj, name), (type(obj).__name__, name)
    net = Net()
    assert read_attr(net, "fc1") is net._modules["fc1"] and read_attr(net, "running") is net._buffers["running"]
    class Name(str):
        pass
    assert read_attr(net, Name("fc1")) is net.fc1
    with pytest.raises(TypeError):
        read_attr(net, 3)
    with pytest.raises(TypeError):
        read_attr(net)


def test_a_class_value_set_later_wins(read_attr):
    class Late(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(1, 1)
    m = Late()
    assert read_attr(m, "fc") is m._modules["fc"]
    Late.fc = "class value"  # now the type's lookup finds it, as Python's does
    assert read_attr(m, "fc") == "class value" == getattr(m, "fc")


def test_scripts_read_modules_through_it(native_module):
    native_module("lang")
    from gradcli.lang import runner
    before, pyvalues.CHECKED_READ[0] = pyvalues.CHECKED_READ[0], getattr  # as before any Module type was read from
    source = '''import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc1(x)

net = Net()
print(net.fc1.weight.shape, net(torch.ones(1, 3)).shape)
print(net.fc9)
'''
    out = []
    result = runner.run_source(source, "<t>", runner.RunOptions(), write=lambda s, *a, **k: out.append(s))
    assert "torch.Size([2, 3]) torch.Size([1, 2])" in "".join(out)
    assert not result.ok and "'Net' object has no attribute 'fc9'" in str(result.error)
    read, pyvalues.CHECKED_READ[0] = pyvalues.CHECKED_READ[0], before
    assert read is not getattr and read.__name__ == "read_attr"
