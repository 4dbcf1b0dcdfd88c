"""csrc/lang.c's forward_of: a script's call of an nn.Module runs forward(module, *args) directly where
Module.__call__ would run nothing else (no hooks, no instance forward, the type's own __call__ is Module's);
everything else is the module's own call. The script goes through both paths and prints the same."""
from __future__ import annotations

from collections import OrderedDict

import pytest

from gradcli.engine import api as torch
from gradcli.engine.nn.module import Module
from gradcli.lang import pyvalues
from gradcli.lang.runtime import function

nn = torch.nn


@pytest.fixture
def forward_of(native_module):
    module = native_module("lang")
    module.setup(Module.__getattr__, object.__getattribute__)
    module.setup_call(Module.__call__, function)
    return module.forward_of


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        return self.fc(x)


class OwnCall(Net):
    def __call__(self, x):
        return x


class Looked(Net):
    def __getattribute__(self, name):
        return object.__getattribute__(self, name)


class Slotted(nn.Module):
    forward = staticmethod(lambda x: x)


def test_forward_of_answers_only_a_hook_free_call(forward_of):
    net = Net()
    assert forward_of(net) is Net.__dict__["forward"]
    assert forward_of(nn.Linear(2, 2)) is nn.Linear.forward
    assert forward_of(nn.MSELoss()) is type(nn.MSELoss()).forward
    for obj in (OwnCall(), Looked(), Slotted(), torch.ones(2), [1], Net, None, 3):
        assert forward_of(obj) is None, type(obj)
    own = Net()
    own.__dict__["forward"] = lambda x: x  # an instance's forward: Module.__call__'s self.forward reads it
    assert forward_of(own) is None
    for store, value in (("_forward_pre_hooks", OrderedDict(a=print)), ("_forward_hooks", OrderedDict(a=print)),
                         ("_backward_hooks", OrderedDict()), ("_backward_pre_hooks", OrderedDict()),
                         ("_non_full_backward_hooks", OrderedDict())):
        hooked = Net()
        hooked.__dict__[store] = value
        assert forward_of(hooked) is None, store
    empty = Net()  # empty forward hook dicts are no hooks (Module.__call__ tests their truth)
    empty.__dict__["_forward_hooks"] = OrderedDict()
    assert forward_of(empty) is Net.__dict__["forward"]

    class Bad:
        def __bool__(self):
            raise ValueError("no truth")
    odd = Net()
    odd.__dict__["_forward_hooks"] = Bad()  # a failing test: the module's own call meets it
    assert forward_of(odd) is None
    with pytest.raises(ValueError, match="no truth"):
        odd(torch.ones(1, 2))
    bare = Net.__new__(Net)
    assert forward_of(bare) is Net.__dict__["forward"]


def test_the_forward_it_answers_computes_the_call(forward_of):
    net = Net()
    x = torch.ones(3, 2)
    assert torch.equal(forward_of(net)(net, x), net(x))


SCRIPT = '''import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x, k=1.0):
        return self.fc(x) * k

def hook(module, args, out):
    print("hook", type(module).__name__)

net = Net()
x = torch.ones(2, 3)
loss = nn.MSELoss()
print(net(x).shape, net(x, 2.0).shape, loss(net(x), torch.zeros(2, 2)).shape)
h = net.fc.register_forward_hook(hook)
print(net(x).shape)
h.remove()
print(net(x).shape)
net.fc(x, x)
'''


def _run(source):
    from gradcli.lang import runner  # noqa: PLC0415
    out = []
    result = runner.run_source(source, "<t>", runner.RunOptions(), write=lambda s, *a, **k: out.append(s))
    return "".join(out), str(result.error)


def test_scripts_print_the_same_both_ways(forward_of):
    before = pyvalues.FORWARD_OF[0]
    try:
        pyvalues.FORWARD_OF[0] = forward_of
        fast = _run(SCRIPT)
        pyvalues.FORWARD_OF[0] = None
        plain = _run(SCRIPT)
    finally:
        pyvalues.FORWARD_OF[0] = before
    assert "hook Linear" in fast[0] and "takes 2 positional arguments but 3 were given" in fast[1]
    assert fast == plain
