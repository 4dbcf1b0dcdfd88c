"""csrc/record.c's wrap, stamp and saved_value (gradcli/engine/native_record.py) against the Python functions
they replace: the same objects, fields and errors, and a training loop with the same bits either way."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as torch
from gradcli.engine import autograd, autograd_modes, native_record, tensor
from gradcli.engine.autograd import SavedValue
from gradcli.engine.ops import linalg, shape


@pytest.fixture
def record(native_module):
    module = native_module("record")
    native_record.install(None)
    native_record.install(module)
    yield module
    native_record.install(None)


def _fields(obj):
    out = {}
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name in ("__dict__", "__weakref__"):
                continue
            v = getattr(obj, name, "<unset>")
            out[name] = v if not isinstance(v, list) else ("list", list(v))
    return type(obj), out, dict(getattr(obj, "__dict__", {}))


def test_the_helpers_are_the_python_ones(record):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    c, p = record.wrap(a, torch.float32), native_record.PYTHON["wrap"](a, torch.float32)
    assert _fields(c) == _fields(p) and c._data is a and c._version is not p._version
    with torch.inference_mode():
        c, p = record.wrap(a, torch.float32), native_record.PYTHON["wrap"](a, torch.float32)
        assert _fields(c) == _fields(p) and c._version is autograd_modes.NO_VERSION
    g = np.float32(2.5)  # not an ndarray: the Python wrap's (a 0-d array)
    assert _fields(record.wrap(g, torch.float32))[1]["_data"].shape == ()

    seqs = []
    for f in (record.stamp, native_record.PYTHON["stamp"]):
        node = object.__new__(shape.TBackward0)
        autograd.site_hook[0] = lambda: ("site", 3)
        try:
            assert f(node, torch.float64, {"k": 1}) is None
        finally:
            autograd.site_hook[0] = None
        seqs.append(node._seq)
        assert (node._kw, node._out_dtype, node._x, node._site) == ({"k": 1}, torch.float64, None, ("site", 3))
    assert seqs[1] == seqs[0] + 1  # one counter

    t = torch.tensor([1.0, 2.0], requires_grad=True)
    t._version[0] = 4
    for args in ((t,), (t, True)):
        c, p = record.saved_value(*args), native_record.PYTHON["saved_value"](*args)
        assert type(c) is SavedValue and _fields(c) == _fields(p) and c.version == 4
    heard = []
    for f in (record.attach, native_record.PYTHON["attach"]):
        out = tensor.wrap(np.ones(2, np.float32), torch.float32)
        node = object.__new__(shape.TBackward0)
        assert f(node, out, (t,)) is out and out._rg is True and out.grad_fn is node
        prev = autograd.set_node_observer(lambda *a: heard.append(a))
        try:
            f(node, out, (t,))
        finally:
            autograd.set_node_observer(prev)
        assert heard.pop() == (node, (t,), (out,))
    with pytest.raises(AttributeError):  # not a tensor: the Python attach's error
        record.attach(node, object(), ())
    with torch.inference_mode():
        inf = torch.ones(2)
    for f in (record.saved_value, native_record.PYTHON["saved_value"]):
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            f(inf)


def test_install_rebinds_every_module_and_back(record):
    assert tensor.wrap is record.wrap and linalg.wrap is record.wrap and autograd.stamp is record.stamp
    assert linalg.attach is record.attach
    native_record.install(None)
    assert tensor.wrap is native_record.PYTHON["wrap"] and linalg.wrap is tensor.wrap
    assert autograd.saved_value is native_record.PYTHON["saved_value"]


def test_abuse_is_refused(record):
    with pytest.raises(TypeError):
        record.wrap(np.zeros(2))
    with pytest.raises(TypeError):
        record.setup(1, 2, 3)
    with pytest.raises(TypeError):  # descriptors of another class
        record.setup(tensor.Tensor, (SavedValue.__dict__["tensor"],) * 6, np.ndarray, autograd_modes.grad_mode,
                     type(autograd_modes.grad_mode).__dict__["inference"], autograd_modes.NO_VERSION, autograd.Node,
                     (SavedValue.__dict__["tensor"],) * 5, autograd.sequence_numbers, autograd.site_hook, SavedValue,
                     (SavedValue.__dict__["tensor"],) * 4, tuple(native_record.PYTHON.values()), autograd.node_observer)
    assert tensor.wrap(np.zeros(2), torch.float32).tolist() == [0.0, 0.0]  # the setup before still serves
    stamped = object()
    with pytest.raises(AttributeError):  # not a node: the Python stamp's error
        record.stamp(stamped, torch.float32, None)
    with pytest.raises(AttributeError):  # not a tensor: the Python function's error
        record.saved_value(np.zeros(2))


def _train(steps=6):
    torch.manual_seed(0)
    nn = torch.nn
    net = nn.Sequential(nn.Linear(10, 5), nn.ReLU(), nn.Linear(5, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x, y = torch.randn(32, 10), torch.randn(32, 2)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out, [p._data.tobytes() for p in net.parameters()]


def test_a_training_loop_is_the_same_with_the_c_helpers(record):
    with_c = _train()
    native_record.install(None)
    assert with_c == _train()
