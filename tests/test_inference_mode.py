"""torch.inference_mode and inference tensors (autograd_modes.InferenceVersion): which tensors are
inference tensors, the errors torch raises for them, the modes' nesting, and the same facts read from
PyTorch itself where it is installed. The scripts tests/golden/scripts/inference_*.grad hold the printed
forms."""
from __future__ import annotations

import pytest

from gradcli.engine import api as torch
from gradcli.engine.autograd_modes import (INPLACE_INFERENCE, NO_VERSION, REQUIRES_GRAD_INFERENCE, SAVED_INFERENCE,
                                           grad_mode)
from gradcli.lang.runner import run_source


def _facts(t):
    """The same probes, for gradcli's engine and for torch (t: the torch module)."""
    out = []
    x = t.ones(2, 3, requires_grad=True)
    n = t.arange(6.).view(2, 3)
    with t.inference_mode():
        f = t.zeros(3)
        y = x * 2
        v = n[0]
        vx = x.t()
        q = t.ones(3, requires_grad=True)
        nd, ndata = n.detach(), n.data
        out += [f.is_inference(), y.is_inference(), y.requires_grad, v.is_inference(), vx.is_inference(),
                vx.requires_grad, q.is_inference(), q.requires_grad, nd.is_inference(), ndata.is_inference(),
                t.is_grad_enabled(), t.is_inference_mode_enabled()]
        with t.enable_grad():
            out += [t.is_grad_enabled(), (q * 2).requires_grad, (x * 2).grad_fn is None]
        with t.inference_mode(False):
            out += [t.is_grad_enabled(), t.is_inference_mode_enabled(), (x * 2).is_inference()]
    out += [t.is_grad_enabled(), t.is_inference_mode_enabled()]
    out += [f.detach().is_inference(), f.data.is_inference(), f.clone().is_inference(), f.view(3, 1).is_inference(),
            (f + 1).is_inference(), f.double().is_inference(), f.float().is_inference()]
    out += [(q * 2).grad_fn is not None, q.exp().grad_fn is None, (q + q).requires_grad, q[0].requires_grad,
            (q + n[0]).requires_grad]
    for probe in (lambda: f.add_(1), lambda: f.requires_grad_(), lambda: (x[0] * f).sum(), lambda: f.detach().add_(1)):
        try:
            probe()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    out.append(f.tolist())  # add_ ran before its error (torch bumps after the kernel), then detach().add_
    return out


def test_facts_against_torch():
    real = pytest.importorskip("torch")
    assert _facts(torch) == _facts(real)


def test_facts():
    facts = _facts(torch)
    assert facts[:12] == [True, True, False, False, False, True, True, True, False, False, False, True]
    assert facts[-5:] == [INPLACE_INFERENCE, REQUIRES_GRAD_INFERENCE, SAVED_INFERENCE, "ok", [2.0, 2.0, 2.0]]
    assert not grad_mode.inference and grad_mode.enabled


def test_no_version_counts_only_inside_the_mode():
    with torch.inference_mode():
        assert NO_VERSION[0] == 0
        NO_VERSION[0] += 1  # ignored: an inference tensor has no counter
        assert NO_VERSION[0] == 0
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        NO_VERSION[0] += 1


def test_modes_come_back_after_an_error():
    with pytest.raises(ValueError):
        with torch.no_grad(), torch.inference_mode():
            raise ValueError
    assert (grad_mode.enabled, grad_mode.inference, torch.is_grad_enabled()) == (True, False, True)

    @torch.inference_mode()
    def fails():
        raise ValueError

    with pytest.raises(ValueError):
        fails()
    assert (grad_mode.enabled, grad_mode.inference) == (True, False)


def test_set_grad_enabled_inside_inference_mode_records_nothing():
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        torch.set_grad_enabled(True)
        assert torch.is_grad_enabled() and not grad_mode.enabled
        assert (x * 2).grad_fn is None
    assert torch.is_grad_enabled() and (x * 2).grad_fn is not None


def test_inference_mode_decorates_what_is_not_a_bool():
    def f(t):
        return t * 2, torch.is_inference_mode_enabled()

    r, on = torch.inference_mode(f)(torch.ones(1))
    assert on and r.is_inference() and not torch.is_inference_mode_enabled()


def test_parameter_of_an_inference_tensor():
    with torch.inference_mode():
        p = torch.zeros(2)
        w = torch.nn.Parameter(torch.ones(2))
    assert w.is_inference() and w.requires_grad
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor"):
        torch.nn.Parameter(p)
    q = torch.nn.Parameter(p, requires_grad=False)
    q.add_(1)  # its own counter (torch's _make_subclass detaches it)
    assert q.is_inference() and p.tolist() == [1.0, 1.0]


def test_script_errors_are_rendered():
    """The doors a script reaches: torch.is_inference and Tensor.is_inference with anything, and the
    errors, rendered with torch's message and the statement's line (no Python traceback)."""
    src = ("import torch\n"
           "with torch.inference_mode():\n"
           "    p = torch.zeros(2)\n"
           "def f():\n"
           "    return 1\n"
           "for a in [f, torch, torch.nn, print, 'x', None]:\n"
           "    try:\n"
           "        torch.is_inference(a)\n"
           "    except TypeError as e:\n"
           "        print(e)\n"
           "print(torch.is_inference(p), p.is_inference())\n"
           "p.add_(1)\n")
    r = run_source(src)
    assert "Traceback" not in r.stdout + (r.error.message if r.error else "")
    assert r.stdout.splitlines()[0] == "is_inference(): argument 'input' (position 1) must be Tensor, not function"
    assert r.stdout.splitlines()[-1] == "True True"
    assert r.error.type_name == "RuntimeError" and r.error.message == INPLACE_INFERENCE and r.error.line == 12


def test_custom_function_saves_nothing_when_no_backward_can_reach_it():
    """A custom Function called where no graph is recorded (inference mode, no_grad) keeps nothing saved, as
    torch drops ctx.to_save for a call that is not executable: inference tensors pass save_for_backward
    (the conv-bn fusion tutorial's test() under inference_mode), and saved_tensors is () afterwards."""
    src = ("import torch\n"
           "held = []\n"
           "class Twice(torch.autograd.Function):\n"
           "    @staticmethod\n"
           "    def forward(ctx, x):\n"
           "        ctx.save_for_backward(x)\n"
           "        held.append(ctx)\n"
           "        return x * 2\n"
           "    @staticmethod\n"
           "    def backward(ctx, g):\n"
           "        x, = ctx.saved_tensors\n"
           "        return g * x\n"
           "with torch.inference_mode():\n"
           "    y = Twice.apply(torch.ones(2))\n"
           "print(y, y.is_inference(), held[0].saved_tensors)\n"
           "with torch.no_grad():\n"
           "    z = Twice.apply(torch.ones(2, requires_grad=True))\n"
           "print(z.grad_fn, held[1].saved_tensors)\n"
           "x = torch.ones(2, requires_grad=True)\n"
           "out = Twice.apply(x * 3)\n"
           "print(len(held[2].saved_tensors))\n"
           "out.sum().backward()\n"
           "print(x.grad)\n")
    r = run_source(src)
    assert r.error is None, r.error
    assert r.stdout.splitlines() == ["tensor([2., 2.]) True ()", "None ()", "1", "tensor([9., 9.])"]
