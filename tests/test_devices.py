"""Devices (issue 10): the same ops on the CPU (NumPy) and on an NVIDIA GPU (CuPy).

Three devices run the op suite below:
- "cpu": NumPy;
- "simgpu": cuda through tests/cupy_sim.py, a CPU stand-in for CuPy that refuses host arrays and
  NumPy calls the way CuPy 14 does (so device bugs in op code show on every machine, CI included);
- "cuda": the real GPU, through CuPy; skipped where CuPy or a GPU is missing (tools/gpu_check.sh
  runs it on a lent GPU machine: `pytest tests/test_devices.py -k cuda`).

On top of that suite, every engine, breadth-op and nn case (tests/*_cases.py) runs with cuda as the
default device and must observe what PyTorch observed on the CPU, device suffixes aside. The error
paths (no CuPy, no GPU, two devices in one op) are checked on the CPU.
"""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import textwrap
try:
    import tomllib  # noqa: TID251 - with its fallback below
except ModuleNotFoundError:  # Python 3.10: tomllib is new in 3.11; tomli is the same parser
    import tomli as tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest

import cupy_sim
from gradcli.engine import api as torch
from gradcli.engine import device as D

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def _real_cuda():
    try:
        return D.cuda_is_available()
    except Exception:  # noqa: BLE001 - a broken CuPy install is "no GPU" here
        return False


HAVE_CUDA = _real_cuda()
requires_cuda = pytest.mark.skipif(not HAVE_CUDA, reason="needs CuPy and an NVIDIA GPU (tools/gpu_check.sh)")

DEVICES = ["cpu", "simgpu", pytest.param("cuda", marks=requires_cuda)]
GPUS = ["simgpu", pytest.param("cuda", marks=requires_cuda)]


@pytest.fixture
def dev(request):
    """The device string a test puts its tensors on ('cpu' or 'cuda'); simgpu installs the simulator."""
    name = request.param
    undo = cupy_sim.install(D) if name == "simgpu" else None
    torch.manual_seed(0)
    try:
        yield "cpu" if name == "cpu" else "cuda"
    finally:
        D.set_default_device(None)
        if undo is not None:
            undo()


def on(devices):
    return pytest.mark.parametrize("dev", devices, indirect=True)


@pytest.fixture
def gpu(request):
    """A cuda device (simulated or real) for tests that need two devices."""
    name = request.param
    undo = cupy_sim.install(D) if name == "simgpu" else None
    torch.manual_seed(0)
    try:
        yield "cuda"
    finally:
        D.set_default_device(None)
        if undo is not None:
            undo()


def on_gpu(devices=GPUS):
    return pytest.mark.parametrize("gpu", devices, indirect=True)


_SUFFIX = re.compile(r",\s*device='cuda:0'")


def plain(text):
    """A repr as the CPU prints it: the device suffix dropped, line breaks as spaces."""
    return re.sub(r"\s+", " ", _SUFFIX.sub("", text))


def vals(t):
    return None if t is None else t.detach().cpu().tolist()


def close(a, b, rel=1e-5, abs_=1e-6):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=rel, atol=abs_, equal_nan=True)


def check_device(t, dev):
    assert t.device.type == dev, f"{t!r} is on {t.device}, not {dev}"
    assert t.is_cuda == (dev == "cuda")


# ---------------------------------------------------------------------------- the op suite

M = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.5]]
V = [0.3, -0.7, 1.2]


@on(DEVICES)
def test_arithmetic_values_grads_reprs(dev):
    a = torch.tensor(M, device=dev, requires_grad=True)
    b = torch.tensor(V, device=dev, requires_grad=True)
    y = (a * b + a / 2 - b ** 2) * 3.0 - 1
    check_device(y, dev)
    assert plain(repr(y)) == "tensor([[-0.0700, -1.7200, 4.8800], [ 2.3300, -2.9200, -7.8700]], grad_fn=<SubBackward0>)"
    if dev == "cuda":  # torch's suffix layout: the device first, then the rest, wrapped at 80 columns
        assert repr(y) == ("tensor([[-0.0700, -1.7200,  4.8800],\n        [ 2.3300, -2.9200, -7.8700]], "
                           "device='cuda:0', grad_fn=<SubBackward0>)")
    y.sum().backward()
    check_device(a.grad, dev)
    check_device(b.grad, dev)
    assert close(vals(a.grad), [[2.4, -0.6, 5.1], [2.4, -0.6, 5.1]])
    assert close(vals(b.grad), [2.4, 6.9, -9.9])
    i = torch.tensor([1, 2, 3], device=dev)
    assert vals(i // 2) == [0, 1, 1] and vals(i % 2) == [1, 0, 1] and vals(i * 2.5) == [2.5, 5.0, 7.5]
    assert vals(torch.where(i > 1, i, -i)) == [-1, 2, 3]
    assert (a > 0).dtype is torch.bool and vals(a > 0) == [[True, False, True], [True, True, False]]


@on(DEVICES)
def test_unary_and_dtype_promotion(dev):
    x = torch.tensor(V, device=dev, requires_grad=True)
    ys = [x.exp(), x.tanh(), x.sigmoid(), x.abs(), x.relu(), x.clamp(-0.5, 0.5), x.sin(), x.erf(), x.pow(3)]
    for y in ys:
        check_device(y, dev)
    cpu = [f(torch.tensor(V)) for f in (torch.exp, torch.tanh, torch.sigmoid, torch.abs, torch.relu,
                                         lambda t: t.clamp(-0.5, 0.5), torch.sin, torch.erf, lambda t: t.pow(3))]
    for y, c in zip(ys, cpu):
        assert close(vals(y), vals(c))
    sum(y.sum() for y in ys).backward()
    check_device(x.grad, dev)
    h = torch.tensor([1.0, 2.0], device=dev, dtype=torch.float16)
    assert (h + 1).dtype is torch.float16 and (h + torch.tensor([1.0], device=dev)).dtype is torch.float32
    assert (torch.tensor([1, 2], device=dev) / 2).dtype is torch.float32


@on(DEVICES)
def test_reductions(dev):
    x = torch.tensor(M, device=dev, requires_grad=True)
    outs = [x.sum(), x.mean(), x.sum(dim=1), x.mean(dim=0, keepdim=True), x.var(), x.std(dim=1), x.amax(dim=1),
            x.max(), x.min(dim=0).values, x.logsumexp(dim=1), x.norm(), x.prod(dim=1), x.cumsum(dim=1)]
    ref_x = torch.tensor(M)
    refs = [ref_x.sum(), ref_x.mean(), ref_x.sum(dim=1), ref_x.mean(dim=0, keepdim=True), ref_x.var(), ref_x.std(dim=1),
            ref_x.amax(dim=1), ref_x.max(), ref_x.min(dim=0).values, ref_x.logsumexp(dim=1), ref_x.norm(),
            ref_x.prod(dim=1), ref_x.cumsum(dim=1)]
    for o, r in zip(outs, refs):
        check_device(o, dev)
        assert close(vals(o), vals(r)), (o, r)
    assert plain(repr(x.sum())) == "tensor(3., grad_fn=<SumBackward0>)"
    mx = x.max(dim=1)
    check_device(mx.indices, dev)
    assert vals(mx.indices) == [2, 0] and vals(x.argmax()) == 2
    sum(o.sum() for o in outs).backward()
    check_device(x.grad, dev)
    xr = torch.tensor(M, requires_grad=True)
    sum(o.sum() for o in [xr.sum(), xr.mean(), xr.sum(dim=1), xr.mean(dim=0, keepdim=True), xr.var(), xr.std(dim=1),
                          xr.amax(dim=1), xr.max(), xr.min(dim=0).values, xr.logsumexp(dim=1), xr.norm(),
                          xr.prod(dim=1), xr.cumsum(dim=1)]).backward()
    assert close(vals(x.grad), vals(xr.grad), rel=1e-4)
    assert vals(torch.tensor([True, False, True], device=dev).sum()) == 2
    assert vals(torch.tensor([[1, 2], [3, 4]], device=dev).sum(dim=0)) == [4, 6]


@on(DEVICES)
def test_matmul_family(dev):
    a = torch.tensor(M, device=dev, requires_grad=True)
    w = torch.tensor([[1.0, 0.5], [-0.5, 2.0], [0.25, -1.0]], device=dev, requires_grad=True)
    v = torch.tensor(V, device=dev, requires_grad=True)
    out = [a @ w, a @ v, v @ v, torch.mm(a, w), torch.matmul(a.unsqueeze(0).expand(2, 2, 3), w),
           torch.bmm(a.unsqueeze(0), w.unsqueeze(0)), torch.addmm(torch.ones(2, device=dev), a, w), torch.outer(v, v)]
    for o in out:
        check_device(o, dev)
    assert close(vals(out[0]), [[1.625, -4.25], [1.0, 2.75]])
    assert plain(repr(out[0])) == "tensor([[ 1.6250, -4.2500], [ 1.0000, 2.7500]], grad_fn=<MmBackward0>)"
    assert close(vals(out[2]), 0.09 + 0.49 + 1.44)
    sum(o.sum() for o in out).backward()
    for t in (a, w, v):
        check_device(t.grad, dev)
    ac, wc, vc = (torch.tensor(t, requires_grad=True) for t in (M, [[1.0, 0.5], [-0.5, 2.0], [0.25, -1.0]], V))
    sum(o.sum() for o in [ac @ wc, ac @ vc, vc @ vc, torch.mm(ac, wc), torch.matmul(ac.unsqueeze(0).expand(2, 2, 3), wc),
                          torch.bmm(ac.unsqueeze(0), wc.unsqueeze(0)), torch.addmm(torch.ones(2), ac, wc),
                          torch.outer(vc, vc)]).backward()
    for t, c in ((a, ac), (w, wc), (v, vc)):
        assert close(vals(t.grad), vals(c.grad))


@on(DEVICES)
def test_indexing_and_index_backward_scatter_adds(dev):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], device=dev, requires_grad=True)
    assert vals(x[1]) == [4.0, 5.0, 6.0] and vals(x[:, 1]) == [2.0, 5.0, 8.0] and vals(x[1:, ::2]) == [[4, 6], [7, 9]]
    idx = torch.tensor([0, 2, 0, 0], device=dev)
    rows = x[idx]  # repeated rows: the backward adds (np.add.at / cupy.add.at)
    check_device(rows, dev)
    assert repr(x[idx, 1]) == ("tensor([2., 8., 2., 2.], device='cuda:0', grad_fn=<IndexBackward0>)" if dev == "cuda"
                               else "tensor([2., 8., 2., 2.], grad_fn=<IndexBackward0>)")
    masked = x[x > 4.5]
    assert vals(masked) == [5.0, 6.0, 7.0, 8.0, 9.0]
    cpu_idx = x[torch.tensor([2, 2])]  # a CPU index tensor may index a cuda tensor, as in torch
    check_device(cpu_idx, dev)
    (rows.sum() + masked.sum() + cpu_idx.sum()).backward()
    check_device(x.grad, dev)
    assert vals(x.grad) == [[3.0, 3.0, 3.0], [0.0, 1.0, 1.0], [4.0, 4.0, 4.0]]
    g = torch.gather(x.detach(), 1, torch.tensor([[2], [0], [1]], device=dev))
    assert vals(g) == [[3.0], [4.0], [8.0]]
    w = torch.zeros(5, device=dev, requires_grad=True)
    w.take(torch.tensor([1, 1, 3], device=dev)).sum().backward()  # take's backward adds into repeated places
    assert vals(w.grad) == [0.0, 2.0, 0.0, 1.0, 0.0]
    check_device(torch.tril_indices(3, 3, device=dev), dev)
    sa = torch.zeros(4, device=dev).scatter_add(0, torch.tensor([0, 0, 2], device=dev), torch.ones(3, device=dev))
    assert vals(sa) == [2.0, 0.0, 1.0, 0.0]
    y = torch.zeros(3, device=dev)
    y[torch.tensor([0, 2], device=dev)] = 5.0
    y[1:2] = torch.tensor([7.0])  # a CPU value copied into a cuda slice, as copy_ does
    assert vals(y) == [5.0, 7.0, 5.0]
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[torch.tensor([5], device=dev)]


@on(DEVICES)
def test_linear_mse_sgd_step(dev):
    def step(device):
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 2, device=device)
        with torch.no_grad():
            model.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
            model.bias.fill_(0.05)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = torch.tensor(M, device=device)
        target = torch.tensor([[1.0, 0.0], [0.0, 1.0]], device=device)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return model, loss, losses

    model, loss, losses = step(dev)
    ref_model, ref_loss, ref_losses = step("cpu")
    check_device(model.weight, dev)
    check_device(model.weight.grad, dev)
    check_device(loss, dev)
    assert plain(repr(loss)) == plain(repr(ref_loss))
    assert close(losses, ref_losses)
    assert close(vals(model.weight), vals(ref_model.weight)) and close(vals(model.bias), vals(ref_model.bias))
    r = repr(model.weight)
    assert r.startswith("Parameter containing:\ntensor(") and ("device='cuda:0'" in r) == (dev == "cuda")


@on(DEVICES)
def test_softmax_cross_entropy(dev):
    logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], device=dev, requires_grad=True)
    target = torch.tensor([0, 1], device=dev)
    sm = torch.softmax(logits, dim=1)
    lsm = torch.log_softmax(logits, dim=1)
    ce = torch.nn.functional.cross_entropy(logits, target)
    nll = torch.nn.functional.nll_loss(lsm, target, reduction="sum")
    for t in (sm, lsm, ce, nll):
        check_device(t, dev)
    assert close(vals(sm.sum(dim=1)), [1.0, 1.0])
    assert plain(repr(ce)) == "tensor(0.3185, grad_fn=<NllLossBackward0>)"
    (ce + nll + sm[:, 0].sum()).backward()
    check_device(logits.grad, dev)
    lc = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], requires_grad=True)
    tc = torch.tensor([0, 1])
    (torch.nn.functional.cross_entropy(lc, tc) + torch.nn.functional.nll_loss(torch.log_softmax(lc, 1), tc,
                                                                              reduction="sum")
     + torch.softmax(lc, 1)[:, 0].sum()).backward()
    assert close(vals(logits.grad), vals(lc.grad))


@on(DEVICES)
def test_constructors_take_device(dev):
    made = [torch.tensor([1.0]), torch.zeros(2), torch.ones(2, 2), torch.empty(3), torch.full((2,), 7.0),
            torch.eye(2), torch.arange(4), torch.linspace(0, 1, 5), torch.logspace(0, 1, 3), torch.rand(2),
            torch.randn(2), torch.randint(0, 5, (3,)), torch.randperm(4), torch.normal(0.0, 1.0, (2,)),
            torch.as_tensor([1, 2]), torch.asarray([1.0])]
    with_device = [torch.tensor([1.0], device=dev), torch.zeros(2, device=dev), torch.ones(2, 2, device=dev),
                   torch.empty(3, device=dev), torch.full((2,), 7.0, device=dev), torch.eye(2, device=dev),
                   torch.arange(4, device=dev), torch.linspace(0, 1, 5, device=dev),
                   torch.logspace(0, 1, 3, device=dev), torch.rand(2, device=dev), torch.randn(2, device=dev),
                   torch.randint(0, 5, (3,), device=dev), torch.randperm(4, device=dev),
                   torch.normal(0.0, 1.0, (2,), device=dev), torch.as_tensor([1, 2], device=dev),
                   torch.asarray([1.0], device=dev)]
    for t in made:
        check_device(t, "cpu")
    for t, c in zip(with_device, made):
        check_device(t, dev)
        assert t.dtype is c.dtype and t.shape == c.shape
    like = [torch.zeros_like(with_device[1]), torch.ones_like(with_device[1]), torch.full_like(with_device[1], 2.0),
            torch.empty_like(with_device[1]), torch.rand_like(with_device[1]), torch.randn_like(with_device[1]),
            with_device[1].new_zeros(3), with_device[1].new_ones(2), with_device[1].new_tensor([1.0])]
    for t in like:
        check_device(t, dev)
    check_device(torch.zeros_like(with_device[1], device="cpu"), "cpu")
    D.set_default_device(dev)
    check_device(torch.zeros(2), dev)
    check_device(torch.nn.Linear(2, 2).weight, dev)
    check_device(torch.from_numpy(np.ones(2)), "cpu")  # as torch: from_numpy is always on the CPU
    assert str(torch.get_default_device()) == ("cuda:0" if dev == "cuda" else "cpu")


@on(DEVICES)
def test_gradcheck_and_functional_on_the_device(dev):
    x = torch.tensor([0.3, -0.7, 1.2], dtype=torch.float64, device=dev, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: (t.sin() * t).sum(dim=0), (x,))
    assert torch.autograd.gradcheck(lambda t: t.exp() * 2, (x,), fast_mode=True)
    assert torch.autograd.gradgradcheck(lambda t: t.tanh() ** 2, (x,))
    jac = torch.autograd.functional.jacobian(lambda t: t.sin(), x)
    check_device(jac, dev)
    assert close(vals(jac), np.diag(np.cos([0.3, -0.7, 1.2])))


@on(GPUS)
def test_seeds_are_reproducible_on_the_gpu(dev):
    torch.manual_seed(3)
    a = torch.randn(4, device=dev)
    torch.manual_seed(3)
    b = torch.randn(4, device=dev)
    c = torch.randn(4)  # the CPU generator is a stream of its own
    assert vals(a) == vals(b)
    torch.manual_seed(3)
    assert vals(c) == vals(torch.randn(4))  # same seed, same numbers on both devices (drawn on the host)
    torch.cuda.manual_seed(5)
    d = torch.rand(3, device=dev)
    torch.cuda.manual_seed_all(5)
    assert vals(torch.rand(3, device=dev)) == vals(d)
    assert torch.cuda.initial_seed() == 5
    torch.manual_seed(1)
    m1 = torch.nn.Linear(3, 2, device=dev).weight
    torch.manual_seed(1)
    m2 = torch.nn.Linear(3, 2, device=dev).weight
    assert vals(m1) == vals(m2)
    torch.manual_seed(0)
    drop = torch.nn.functional.dropout(torch.ones(8, device=dev), 0.5)
    check_device(drop, dev)
    torch.manual_seed(0)
    assert vals(torch.nn.functional.dropout(torch.ones(8, device=dev), 0.5)) == vals(drop)


@on(GPUS)
def test_moving_between_devices(dev):
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    g = x.to(dev)
    check_device(g, dev)
    assert plain(repr(g)) == "tensor([ 1.5000, -2.0000], grad_fn=<ToCopyBackward0>)"
    assert "device='cuda:0'" in repr(g)
    for y in (x.cuda(), x.to("cuda"), x.to("cuda:0"), x.to(torch.device("cuda", 0)), x.to(torch.device("cuda:0")),
              x.to(0), x.to(g), x.to(dev, torch.float64), x.to(device=dev, dtype=torch.float64)):
        check_device(y, "cuda")
    assert x.to(dev, torch.float64).dtype is torch.float64 and g.to(torch.float64).is_cuda
    back = g.cpu()
    check_device(back, "cpu")
    assert g.cuda() is g and back.cpu() is back and g.to(dev) is g
    ((g * 3).sum() + back.sum()).backward()  # CPU 0-d joins cuda; the gradient comes back through ToCopyBackward0
    check_device(x.grad, "cpu")
    assert vals(x.grad) == [4.0, 4.0]
    assert g.detach().cpu().numpy().tolist() == [1.5, -2.0]
    with pytest.raises(TypeError) as e:
        g.detach().numpy()
    assert str(e.value) == ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                            "host memory first.")
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        np.asarray(g.detach())
    assert g.detach().numpy(force=True).tolist() == [1.5, -2.0]
    assert g[0].item() == 1.5 and g.tolist() == [1.5, -2.0] and float(g[1]) == -2.0 and bool(g[0] > 0)
    assert g.device == torch.device("cuda:0") == torch.device("cuda", 0) and str(g.device) == "cuda:0"
    assert repr(g.device) == "device(type='cuda', index=0)" and repr(torch.device("cuda")) == "device(type='cuda')"
    assert g.is_cuda and not g.is_cpu and g.get_device() == 0 and x.get_device() == -1
    m = torch.nn.Linear(2, 1).to(dev)
    check_device(m.weight, dev)
    check_device(m.cpu().weight, "cpu")
    check_device(m.cuda().bias, "cuda")


@on_gpu()
def test_two_devices_in_one_op_fail_as_torch(gpu):
    c = torch.ones(2, 2)
    g = torch.ones(2, 2, device=gpu)
    two = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    for f in (lambda: c + g, lambda: g + c, lambda: g * c, lambda: torch.where(c > 0, g, c), lambda: g > c,
              lambda: torch.nn.functional.mse_loss(g, c)):
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == two
    with pytest.raises(RuntimeError) as e:
        c @ g
    assert str(e.value) == ("Expected all tensors to be on the same device, but got mat2 is on cuda:0, different from "
                            "other tensors on cpu (when checking argument in method wrapper_CUDA_mm)")
    with pytest.raises(RuntimeError) as e:
        g @ c
    assert str(e.value) == ("Expected all tensors to be on the same device, but got mat2 is on cpu, different from "
                            "other tensors on cuda:0 (when checking argument in method wrapper_CUDA_mm)")
    with pytest.raises(RuntimeError) as e:
        torch.cat([g, c])
    assert str(e.value) == ("Expected all tensors to be on the same device, but got tensors is on cpu, different from "
                            "other tensors on cuda:0 (when checking argument in method wrapper_CUDA_cat)")
    with pytest.raises(RuntimeError) as e:
        torch.stack([c, g])
    assert "got tensors is on cuda:0, different from other tensors on cpu" in str(e.value)
    lin = torch.nn.Linear(2, 2)
    with pytest.raises(RuntimeError) as e:
        lin(g)
    assert str(e.value) == ("Expected all tensors to be on the same device, but got mat1 is on cuda:0, different from "
                            "other tensors on cpu (when checking argument in method wrapper_CUDA_addmm)")
    with pytest.raises(RuntimeError) as e:
        torch.nn.functional.cross_entropy(g, torch.tensor([0, 1]))
    assert "got target is on cpu, different from other tensors on cuda:0" in str(e.value)
    with pytest.raises(RuntimeError, match=r"indices should be either on cpu or on the same device as the indexed "
                                           r"tensor \(cpu\)"):
        c[torch.tensor([0], device=gpu)]
    with pytest.raises(RuntimeError, match="invalid gradient at index 0 - expected device cpu but got cuda:0"):
        torch.ones(2, requires_grad=True).mul(2).backward(torch.ones(2, device=gpu))
    # a CPU 0-d tensor joins a cuda one, as in torch; its gradient comes back to the CPU
    s = torch.tensor(2.0, requires_grad=True)
    y = g * s + s
    check_device(y, "cuda")
    y.sum().backward()
    check_device(s.grad, "cpu")
    assert s.grad.item() == 8.0


def test_hints_name_the_device_mistake(monkeypatch):
    undo = cupy_sim.install(D)
    try:
        with pytest.raises(RuntimeError) as e:
            torch.ones(2) + torch.ones(2, device="cuda")
        assert getattr(e.value, "gradcli_hint", None) == "device"
    finally:
        undo()


# ---------------------------------------------------------------------------- every case, on the GPU

ENGINE_DIFFERENT_ON_CUDA = {  # cases whose torch observation depends on the device, as in torch itself
    "conversions": "x.to('cpu') of a cuda tensor is a copy (ToCopyBackward0), not x",
    "numpy_interop": ".numpy() of a cuda tensor is an error",
    "dtype_and_device_objects": "observes str(x.device)",
}
OPS_DIFFERENT_ON_CUDA = {}
NN_DIFFERENT_ON_CUDA = {}


def _normalise(v):
    if isinstance(v, str):
        return (plain(v).replace("torch.cuda.", "torch.").replace(" (cuda:0)", "")
                .replace("device(type='cuda', index=0)", "device(type='cpu')"))
    if isinstance(v, list):
        return [_normalise(x) for x in v]
    return v


def _family(name):
    sys.path.insert(0, str(TESTS))
    if name == "engine":
        import engine_cases
        import test_engine_goldens as t
        cases, golden = engine_cases.all_cases(), t._GOLDEN

        def run(fn):
            return engine_cases.run_case(torch, fn)

        def same(want, got):
            return t._diff(_normalise(want), _normalise(got)) is None
        return cases, golden, run, same, ENGINE_DIFFERENT_ON_CUDA
    if name == "ops":
        import ops_cases
        import test_ops_breadth as t

        def run(fn):
            from gradcli.engine.ops import special_common
            special_common.reset_warn_once()
            torch.set_default_dtype(torch.float32)
            torch.manual_seed(0)
            try:
                got = fn(t.TORCH)
            except Exception as e:  # noqa: BLE001
                got = f"raised: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            return json.loads(json.dumps(got))

        def same(want, got):
            try:
                t._same(_normalise(want), _normalise(got))
                return True
            except AssertionError:
                return False
        return ops_cases.CASES, t._GOLD, run, same, OPS_DIFFERENT_ON_CUDA
    import nn_cases
    import test_nn as t

    def run(fn):
        return nn_cases.run_case(torch, fn)

    def same(want, got):
        return t.diff(_normalise(want), _normalise(got)) is None
    return nn_cases.all_cases(), t._GOLDEN, run, same, NN_DIFFERENT_ON_CUDA


@pytest.fixture
def keep_warn_once():
    """The cases give torch's once-per-process warnings: leave their state as it was for later tests."""
    from gradcli.engine import warnonce
    from gradcli.engine.nn import functional_conv
    saved = set(warnonce._WARNED), list(functional_conv._WARNED_SAME)
    yield
    warnonce._WARNED.clear()
    warnonce._WARNED.update(saved[0])
    functional_conv._WARNED_SAME[:] = saved[1]


def _fresh_warn_once():
    from gradcli.engine.nn import functional_conv
    from gradcli.engine.ops import special_common
    special_common.reset_warn_once()
    functional_conv._WARNED_SAME[0] = False


@pytest.mark.parametrize("family", ["engine", "ops", "nn"])
@on(GPUS)
def test_every_case_observes_the_same_on_the_gpu(dev, family, keep_warn_once):
    """Every case of tests/*_cases.py with cuda as the default device (as --device cuda runs scripts)
    observes what it observes on the CPU, device suffixes aside (the CPU's agreement with PyTorch is
    tests/test_engine_goldens.py's, test_ops_breadth.py's and test_nn.py's business)."""
    cases, golden, run, same, expected = _family(family)
    failed = []
    for name, fn in cases.items():
        if name not in golden:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _fresh_warn_once()
            on_cpu = run(fn)
            _fresh_warn_once()
            D.set_default_device(dev)
            try:
                got = run(fn)
            finally:
                D.set_default_device(None)
        if not same(on_cpu, got) and name not in expected:
            failed.append(name)
    assert not failed, f"{len(failed)} {family} cases differ on {dev}: {failed}"


# ---------------------------------------------------------------------------- samples with --device cuda

sys.path.insert(0, str(ROOT / "tools"))
import gpu_check  # noqa: E402 - tools/gpu_check.py: the samples that differ on cuda, and why

SAMPLES_DIFFERENT_ON_CUDA = gpu_check.SAMPLES_DIFFERENT_ON_CUDA


@on(GPUS)
def test_samples_with_device_cuda(dev, keep_warn_once):
    from gradcli.lang.runner import RunOptions, run_source
    differ = []
    for script in sorted((ROOT / "samples").glob("*.grad")):
        out = []
        res = run_source(script.read_text(encoding="utf-8"), str(script), RunOptions(device="cuda", seed=0),
                         write=lambda text, line=None, *rest: out.append(text))
        want = script.with_suffix(".out").read_text(encoding="utf-8")
        ok = gpu_check.normalise("".join(out)) == gpu_check.normalise(want)
        err = script.with_suffix(".err")
        if err.is_file():
            ok = ok and res.error is not None and res.error.type_name == err.read_text().split(":")[0]
        else:
            ok = ok and res.error is None
        if not ok and script.stem not in SAMPLES_DIFFERENT_ON_CUDA:
            differ.append(script.name)
    assert not differ, f"samples whose --device cuda output differs: {differ}"


# ---------------------------------------------------------------------------- without CuPy or a GPU

def _python(code, env_extra=None, cwd=ROOT):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env_extra] if env_extra else [])
                                        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120)


_NO_CUPY = "import sys; sys.modules['cupy'] = None\n"  # `import cupy` then fails as if it were not installed


def _cli(args, prelude=_NO_CUPY, env_extra=None):
    code = prelude + f"import sys; sys.argv = ['gradcli'] + {list(args)!r}\nfrom gradcli.cli.app import main\nmain()\n"
    return _python(code, env_extra)


def test_cpu_path_never_imports_cupy():
    code = textwrap.dedent("""
        import sys
        import gradcli.engine.api as torch
        from gradcli.lang.runner import RunOptions, run_source
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        torch.nn.Linear(2, 1)(x).sum().backward()
        d = torch.device("cuda:0"), torch.device("cuda", 0)
        r = run_source("import torch\\nprint(torch.ones(2).sum())\\ny = torch.tensor([3.0], device='cpu')\\n"
                       "print(torch.device('cuda', 0), y.device)", "s.grad", RunOptions(device="cpu"))
        assert r.ok, r.error
        print("cupy" in sys.modules)
    """)
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_no_cupy_is_a_clear_error():
    code = _NO_CUPY + textwrap.dedent("""
        import gradcli.engine.api as torch
        from gradcli.engine.device import CudaUnavailable
        print(torch.cuda.is_available(), torch.cuda.device_count())
        for make in (lambda: torch.tensor(1.0, device="cuda"), lambda: torch.zeros(2).cuda(),
                     lambda: torch.ones(2, device=torch.device("cuda", 0)), lambda: torch.zeros(2).to("cuda")):
            try:
                make()
            except CudaUnavailable as e:
                print(e)
    """)
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "False 0"
    msg = "CUDA was requested but CuPy is not installed. Install the GPU extra: pip install 'gradcli[cuda]'"
    assert lines[1:] == [msg] * 4


def test_cli_device_cuda_without_cupy_exits_2():
    proc = _cli(["run", "--device", "cuda", "samples/seed00_linear_forward.grad"])
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "CuPy is not installed" in proc.stderr and "pip install 'gradcli[cuda]'" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = _cli(["grad", "x*2", "x=1", "--device", "cuda"])
    assert proc.returncode == 2 and "gradcli[cuda]" in proc.stderr


def test_script_asking_for_cuda_without_cupy_exits_2(tmp_path):
    script = tmp_path / "gpu.grad"
    script.write_text("import torch\nprint('before')\nx = torch.tensor(1.0, device='cuda')\nprint('after')\n")
    proc = _cli(["run", str(script)])
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "before\n"
    assert "CuPy is not installed" in proc.stderr and "Traceback" not in proc.stderr


def test_cupy_without_a_gpu_is_a_clear_error(tmp_path):
    fake = tmp_path / "cupy"
    fake.mkdir()
    (fake / "__init__.py").write_text(textwrap.dedent("""
        class CUDARuntimeError(RuntimeError):
            pass
        class runtime:
            @staticmethod
            def getDeviceCount():
                raise CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
        class cuda:
            runtime = runtime
    """))
    proc = _cli(["run", "--device", "cuda", "samples/seed00_linear_forward.grad"], prelude="", env_extra=str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert "no usable NVIDIA GPU was found (CuPy is installed: cudaErrorNoDevice" in proc.stderr
    assert "pip install 'gradcli[cuda]'" in proc.stderr
    proc = _python("import gradcli.engine.api as torch; print(torch.cuda.is_available(), torch.cuda.device_count())",
                   env_extra=str(tmp_path))
    assert proc.stdout.strip() == "False 0", proc.stderr


def _repl():
    import io

    from gradcli.repl.core import Repl
    out, err = io.StringIO(), io.StringIO()
    return Repl(out=out, err=err), out, err


def test_repl_device_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setattr(D, "_cuda_state", {})
    repl, out, err = _repl()
    repl.handle(":device cuda")
    assert "cuda is not available: CUDA was requested but CuPy is not installed" in err.getvalue()
    assert "pip install 'gradcli[cuda]'" in err.getvalue()
    repl.handle(":device")
    assert "Default device: cpu" in out.getvalue() + err.getvalue()
    undo = cupy_sim.install(D)
    try:
        repl.handle(":device cuda")
        repl.handle("import torch\nx = torch.ones(2)\nprint(x.device, torch.nn.Linear(2, 1).weight.device)")
        assert "cuda:0 cuda:0" in out.getvalue(), err.getvalue()
        repl.handle(":device cpu")
        repl.handle("print(torch.ones(1).device)")
        assert out.getvalue().rstrip().endswith("cpu"), out.getvalue()
    finally:
        undo()


def test_pyproject_has_the_cuda_extra():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extra = meta["project"]["optional-dependencies"]["cuda"]
    assert any(req.startswith("cupy-cuda12x") for req in extra)


def test_bad_device_strings():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        torch.device("gpu")
    with pytest.raises(RuntimeError, match="Invalid device string: 'cuda:x'"):
        torch.device("cuda:x")
    # equal to devices only, as torch (torch.device("cpu") == "cpu" is False there)
    assert torch.device("cpu") == torch.device("cpu") and torch.device("cpu") != "cpu"
    assert str(torch.device("cuda", 1)) == "cuda:1"


def test_gpu_check_script_is_prepared():
    sh = (ROOT / "tools" / "gpu_check.sh").read_text()
    assert os.access(ROOT / "tools" / "gpu_check.sh", os.X_OK)
    for needle in (".whl", "pytest tests/test_devices.py", "tools/gpu_check.py", "$OUT", "cupy"):
        assert needle in sh
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "gpu_check.py"), "--help"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0 and "samples" in proc.stdout, proc.stderr


def test_math_of_the_simulator_is_numpy():
    """The simulator is only as good as its refusals: check it refuses what CuPy refuses."""
    cp = cupy_sim.module()
    a = cp.asarray(np.arange(3.0))
    with pytest.raises(TypeError, match="Unsupported type"):
        a + np.ones(3)
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(a)
    with pytest.raises(NotImplementedError, match="cupy_maximum.accumulate"):
        np.maximum.accumulate(a)
    with pytest.raises(TypeError, match="unexpected keyword argument 'device'"):
        np.eye(2, like=a)
    assert math.isclose(float((a * 2).sum()), 6.0) and type((a * 2).sum()) is cp.ndarray
    cp.add.at(a, np.array([0, 0]), 1.0)
    assert a.get().tolist() == [2.0, 1.0, 2.0]
