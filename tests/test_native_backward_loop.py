"""csrc/backward.c's run_plain_loop against autograd_engine.run_plain's Python loop (its reference): on graphs of
every kind run_plain takes (a Linear network's fused nodes, scalar chains, gradients summed, converted between
dtypes, accumulated into an existing .grad, kept or copied), both give the same gradients' bits, the same
tensors kept as .grad, the leaves accumulated in the same order, the same saved values freed and the same
errors."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as torch
from gradcli.engine import autograd_engine as AE
from gradcli.engine import tensor as tensor_module
from gradcli.engine.autograd import AccumulateGrad, SavedShapes
from gradcli.engine.ops import scalar_chain

nn, F = torch.nn, torch.nn.functional


def _net(seed, dtype):
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, fan_out in ((10, 5), (5, 2)):
        lin = nn.Linear(fan_in, fan_out).to(dtype)
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(rng.standard_normal((fan_out, fan_in))))
            lin.bias.copy_(torch.from_numpy(rng.standard_normal(fan_out)))
        layers.append(lin)
    x = torch.from_numpy(rng.standard_normal((32, 10))).to(dtype)
    y = torch.from_numpy(rng.standard_normal((32, 2))).to(dtype)
    return layers, x, y


def _cases():
    """(leaves, a function making the loss): each is run twice (the second backward accumulates into .grad)."""
    for dtype in (torch.float32, torch.float64):
        (l1, l2), x, y = _net(1, dtype)
        params = [l1.weight, l1.bias, l2.weight, l2.bias]
        yield params, lambda l1=l1, l2=l2, x=x, y=y: F.mse_loss(l2(torch.relu(l1(x))), y)
        xg = x.clone().requires_grad_()  # the input needs a gradient too: t()'s view saved, mat1's gradient
        yield params + [xg], lambda l1=l1, l2=l2, xg=xg, y=y: F.mse_loss(l2(torch.relu(l1(xg))), y)
    a = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    b = torch.tensor(0.5, requires_grad=True)
    yield [a], lambda: (a * a + a.exp() * a + a.sin()).sum()  # a's gradients summed (sum_grads)
    yield [a, b], lambda: ((a * b) + (a * b) * 2 + (a * b - b).exp()).sum() * b

    def chain():
        c = b
        for _ in range(50):
            c = c * 1.01 + b
        return c
    yield [b], chain  # a scalar chain (its walker)
    d = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    yield [d, a], lambda: (d.float() * a[:2]).sum()  # a float32 gradient converted for a float64 edge
    e = torch.tensor([0.0, -1.5, 2.0], requires_grad=True)
    yield [e], lambda: (e.sgn() * e + e.sgn()).sum()  # sgn's efficient zero gradients
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    m = torch.tensor([[1.0, 2.0], [3.0, -4.0]])
    yield [w], lambda: ((m @ w).relu() * 3).sum()
    yield [w], lambda: w.t().sum()  # a t() fed by no addmm


def _run(native, monkeypatch):
    """Each case's losses backward twice with the C loop (native) or the Python one: the leaves' gradients (bits,
    kept tensors), the order of the _accumulate calls, and whether the graphs' saved values were freed."""
    loop = AE.native_loop[0] if native else None
    out = []
    calls = []
    real = tensor_module.Tensor._accumulate

    def spy(self, g, create_graph, steal=False):
        calls.append((id(self), steal))
        return real(self, g, create_graph, steal)
    with monkeypatch.context() as m:
        m.setattr(AE, "native_loop", [loop])
        m.setattr(scalar_chain, "NATIVE_FROM", 0)
        m.setattr(tensor_module.Tensor, "_accumulate", spy)
        for leaves, make in _cases():
            index = {id(t): i for i, t in enumerate(leaves)}
            for t in leaves:
                t.grad = None
            for _ in range(2):
                calls.clear()
                loss = make()
                nodes = _nodes(loss.grad_fn)
                kept = []
                loss.backward()
                for t in leaves:
                    kept.append(t.grad is not None and t.grad._data.base is None)
                out.append(([t.grad._data.tobytes() if t.grad is not None else None for t in leaves], kept,
                            [(index.get(i), s) for i, s in calls],
                            [n._saved is None or n._saved.__class__ is SavedShapes for n in nodes]))
    return out


def _nodes(node, seen=None):
    seen = set() if seen is None else seen
    out = [node]
    for nxt in node._fns:
        if nxt is not None and nxt not in seen and nxt.__class__ is not AccumulateGrad:
            seen.add(nxt)
            out += _nodes(nxt, seen)
    return out


def test_the_c_loop_is_the_python_loop(native_module, monkeypatch):
    monkeypatch.setattr(AE, "native_collect", [native_module("chain").collect_plain])
    monkeypatch.setattr(AE, "native_loop", [native_module("backward").run_plain_loop])
    with_c = _run(True, monkeypatch)
    without = _run(False, monkeypatch)
    assert len(with_c) == 22
    assert with_c == without
    assert any(any(kept) for _, kept, _, _ in with_c)  # some gradients kept as they came (stolen), not copied


def test_the_c_loop_runs_and_raises_as_python(native_module, monkeypatch):
    """The loop is the one a training loop's backward runs, and its errors are the Python loop's: a saved tensor
    changed in place, a second backward through a freed graph."""
    monkeypatch.setattr(AE, "native_collect", [native_module("chain").collect_plain])
    module = native_module("backward")
    ran = []

    def counted(*args):
        ran.append(1)
        return module.run_plain_loop(*args)
    messages = []
    for loop in (counted, None):
        monkeypatch.setattr(AE, "native_loop", [loop])
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        h = (w * 3).relu()
        loss = (h * 2).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        with pytest.raises(RuntimeError) as freed:
            loss.backward()
        h2 = (w * 3).relu()
        loss2 = h2.sum()
        with torch.no_grad():
            h2.add_(1)
        with pytest.raises(RuntimeError) as modified:
            loss2.backward()
        messages.append((str(freed.value), str(modified.value), w.grad.tolist()))
    assert len(ran) == 4 and messages[0] == messages[1]
    assert module.run_plain_loop([object()], {}, {}, True, AccumulateGrad, SavedShapes, {}, AE.sum_grads,
                                 AE._LOOP_SLOTS) is NotImplemented
    with pytest.raises(TypeError):
        module.run_plain_loop([], {}, {}, True, AccumulateGrad, SavedShapes, {}, AE.sum_grads)
    with pytest.raises(TypeError):
        module.run_plain_loop([], {}, {}, True, AccumulateGrad, SavedShapes, {}, AE.sum_grads,
                              (AE.Node.__dict__["_fns"],) * 3 + (AE.Node.name,))
