"""The backward graph's lifetime: saved tensors are released by a backward pass (unless
retain_graph), and deep graphs (long chains) run backward and are freed without recursion.

The timing of the 1,000,000-op chain is a benchmark (bench/, case 5), not a test.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from gradcli.engine import api as torch

ROOT = Path(__file__).resolve().parent.parent


def _nodes(t):
    """Every node of t's graph, iteratively."""
    seen, stack = set(), [t.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        stack.extend(nf for nf, _ in n.next_functions)
    return seen


def _chain(n):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([0.5, -0.5], requires_grad=True)
    y = x
    for k in range(n):
        y = (y * w).exp() if k % 3 == 0 else (y * 1.001 + w if k % 3 == 1 else y.tanh() * 2)
    return x, w, y.sum()


def test_saved_tensors_freed_after_backward():
    x, w, y = _chain(300)
    nodes = _nodes(y)
    with_saved = [n for n in nodes if n._saved]
    assert len(with_saved) > 200  # mul by a tensor, exp and tanh save tensors
    y.backward()
    assert x.grad is not None and w.grad is not None
    assert all(n._saved is None for n in nodes if n.name() != "torch::autograd::AccumulateGrad" and n in with_saved)
    assert y.grad_fn._saved is None or y.grad_fn._saved == ()


def test_saved_tensors_kept_with_retain_graph():
    x, w, y = _chain(30)
    y.backward(retain_graph=True)
    first = x.grad.clone()
    assert all(n._saved is not None for n in _nodes(y))
    y.backward()
    assert torch.allclose(x.grad, first * 2)
    assert all(n._saved is None for n in _nodes(y) if n._saved != ())


def test_autograd_grad_frees_too():
    x, w, y = _chain(30)
    torch.autograd.grad(y, [x])
    assert any(n._saved is None for n in _nodes(y))


def test_deep_chain_backward_and_free_without_recursion():
    """A 100,000-op chain (far beyond Python's recursion limit): backward, then deleting the graph,
    run in a child process so that a C-stack overflow could not take the test runner down."""
    code = textwrap.dedent("""
        import gc, sys
        sys.setrecursionlimit(1000)
        from gradcli.engine import api as torch
        x = torch.tensor(1.0, requires_grad=True)
        y = x
        for _ in range(100_000):
            y = y * 1.000001
        y.backward()
        assert abs(x.grad.item() - 1.000001 ** 100_000) < 1e-2, x.grad
        assert y.grad_fn._saved is None
        del y
        gc.collect()
        z = x
        for _ in range(100_000):
            z = (z * x).tanh()
        del z  # never differentiated: saved tensors and outputs freed with the graph
        gc.collect()
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "ok"
