"""autograd_engine: a training loop's backward walks its graph in C (csrc/chain.c's collect_plain) once the
process has run LOOP_BACKWARDS plain backward calls; before that (a short script) no C module is loaded for
it. The C walk's answers are the Python walk's (tests/test_engine_fastpaths.py compares them)."""
from __future__ import annotations

from gradcli.engine import api as torch
from gradcli.engine import autograd_engine as AE


def test_the_walk_goes_native_after_a_loops_worth_of_backwards(native_module, monkeypatch):
    collect = native_module("chain").collect_plain
    monkeypatch.setattr(AE, "native_collect", [None])
    monkeypatch.setattr(AE, "_plain_calls", [0])
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, -4.0]])
    grads = []
    for i in range(AE.LOOP_BACKWARDS + 2):
        w.grad = None
        ((x @ w).relu() * 3).sum().backward()
        grads.append(w.grad.numpy().tobytes())
        if i < AE.LOOP_BACKWARDS - 1:
            assert AE.native_collect[0] is None, i
    assert AE.native_collect[0] is collect
    assert len(set(grads)) == 1  # the same gradient by either walk
