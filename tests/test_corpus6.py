"""Fixes the tutorial corpus's snippets asked for (corpus6), each against PyTorch: torch.tensor of a list
holding tensors reads each tensor as one number (item()), as torch does (Stack Overflow's "list of
tensors to tensor"); torch.optim.LBFGS (engine/optim_lbfgs.py, torch's own code on gradcli's tensors)."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as G

torch = pytest.importorskip("torch")

DATA = [
    lambda t: [t.ones(2)], lambda t: [t.ones(1), t.ones(1)], lambda t: [[t.tensor(1.)], [t.ones(2)]],
    lambda t: [t.ones(1, 1)], lambda t: (t.ones(2),), lambda t: [t.ones(0)],
    lambda t: [t.tensor(1), t.tensor(2.5)], lambda t: [t.tensor(True)], lambda t: [t.tensor(3, dtype=t.int8)],
    lambda t: [[t.tensor(1.), 2], [3, t.tensor([4])]],
]


@pytest.mark.parametrize("i", range(len(DATA)))
def test_tensor_of_a_list_of_tensors(i):
    try:
        expected = repr(torch.tensor(DATA[i](torch)))
    except Exception as e:  # noqa: BLE001 - torch's error is the expectation
        with pytest.raises(type(e)) as got:
            G.tensor(DATA[i](G))
        assert str(got.value) == str(e)
        return
    assert repr(G.tensor(DATA[i](G))) == expected


def _lbfgs_run(t, dtype, **kw):
    """Rosenbrock's function of a 4-vector (elementwise ops only, so that only LBFGS's own steps are compared:
    a model's matrix products would bring BLAS's last bits in)."""
    x = t.tensor([-1.2, 1.0, 0.5, -0.3], dtype=getattr(t, dtype), requires_grad=True)
    opt = t.optim.LBFGS([x], **kw)
    losses = []

    def closure():
        opt.zero_grad()
        loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        loss.backward()
        return loss
    for _ in range(4):
        losses.append(opt.step(closure).item())
    state = opt.state[x]
    return losses, x.tolist(), state["n_iter"], state["func_evals"], repr(opt)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [{}, {"line_search_fn": "strong_wolfe"}, {"lr": 0.5, "max_iter": 4, "history_size": 2}])
def test_lbfgs_steps_as_torch(kw, dtype):
    """optim_lbfgs.py is torch's lbfgs.py on gradcli's tensors: the same counters and repr, and the same losses
    and parameters up to the last bits of its dot products (Tensor.dot is NumPy's BLAS, torch's is MKL's ddot/sdot,
    whose order differs from the 4th element on: docs/numerics.md)."""
    ours, theirs = _lbfgs_run(G, dtype, **kw), _lbfgs_run(torch, dtype, **kw)
    assert ours[2:] == theirs[2:]
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ours[0], theirs[0], rtol=tol)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=tol)


def test_lbfgs_keeps_its_internals_out_of_reach():
    from gradcli.lang.runner import RunOptions, run_source
    for attr in ("_params", "_gather_flat_grad", "_directional_evaluate", "__init__"):
        src = f"import torch\nw = torch.zeros(2, requires_grad=True)\nopt = torch.optim.LBFGS([w])\nopt.{attr}\nprint('x')\n"
        r = run_source(src, "t.grad", RunOptions())
        assert not r.ok and r.error.type_name == "AttributeError" and "x" not in r.stdout


def _gamma_inputs(dtype):
    rng = np.random.default_rng(1)
    v = np.concatenate([rng.uniform(-20, 20, 2000), rng.uniform(0, 3, 2000), rng.uniform(10, 1e6, 300),
                        np.arange(-5, 30, 0.5), [0., -0.0, 10., np.inf, -np.inf, np.nan, 1e18, 1e-30]])
    return v.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_digamma_is_atens_calc_digamma(dtype):
    """digamma (special_gamma.py) is ATen's calc_digamma step for step: torch's bits, poles and signs included;
    its gradient (trigamma) too in float64."""
    a = _gamma_inputs(dtype)
    np.testing.assert_array_equal(G.digamma(G.tensor(a)).numpy(), torch.digamma(torch.tensor(a)).numpy())
    np.testing.assert_array_equal(G.special.psi(G.tensor(a)).numpy(), torch.special.psi(torch.tensor(a)).numpy())
    if dtype == "float64":
        keep = a[np.isfinite(a) & (np.abs(a) < 100)]
        x, gx = torch.tensor(keep, requires_grad=True), G.tensor(keep, requires_grad=True)
        torch.digamma(x).sum().backward()
        G.digamma(gx).sum().backward()
        np.testing.assert_array_equal(gx.grad.numpy(), x.grad.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lgamma_within_a_few_ulps(dtype):
    """lgamma is the C library's; torch's vectorised kernel is SLEEF's lgamma (1-ulp bound): a few ulps apart
    (docs/numerics.md), the same infinities and NaNs."""
    a = _gamma_inputs(dtype)
    ours, theirs = G.lgamma(G.tensor(a)).numpy(), torch.lgamma(torch.tensor(a)).numpy()
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(theirs))
    far = np.abs(theirs) > 0.1  # (relative error is unbounded at lgamma's roots 1 and 2)
    np.testing.assert_allclose(ours[far], theirs[far], rtol=2e-6 if dtype == "float32" else 1e-14)
    np.testing.assert_array_equal(G.special.gammaln(G.tensor(a)).numpy(), ours)
