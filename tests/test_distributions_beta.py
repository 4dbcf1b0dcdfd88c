"""torch.distributions Dirichlet, Beta and Binomial (engine/distributions_beta.py), their samplers
(engine/rng_dirichlet.py: ATen's _sample_dirichlet and dirichlet_grad_one; engine/rng_samplers.py: ATen's
sample_binomial) and their kl_divergence pairs: log_prob, entropy, moments and the KL formulas against float64
central differences and torch; the samples, the stream after them and _DirichletBackward's gradients bit for bit
against torch over every branch (the Taylor series near 0 and 1, Rice's saddle point, the rational correction;
BTRS and the inversion, float32 and float64); reprs, validation messages and the script doors. The script-level
golden is tests/golden/scripts/distributions_beta.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from gradcli.engine.rng_dirichlet import dirichlet_grad, sample_dirichlet
from case_support import case_table_tests, assert_same_value_error, refused_script

_RNG = np.random.default_rng(71)
C1 = _RNG.uniform(0.3, 6.0, 4).tolist()
C0 = _RNG.uniform(0.3, 6.0, 4).tolist()
V = _RNG.uniform(0.05, 0.95, 4).tolist()
SIMPLEX = (np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])).tolist()
CONC = _RNG.uniform(0.5, 4.0, (2, 3)).tolist()
PROBS = _RNG.uniform(0.1, 0.9, 4).tolist()
D = "distributions"


def _beta(t, a, b):
    return getattr(t, D).Beta(a, b)


def _f64(t, v):
    return t.tensor(v, dtype=t.float64)


def _bin(t, p):
    return getattr(t, D).Binomial(t.tensor([6.0, 6.0, 6.0, 6.0], dtype=t.float64), p)


CASES = {
    "beta_log_prob": (lambda t, a, b, x: _beta(t, a, b).log_prob(x), [C1, C0], [V]),
    "beta_entropy_moments": (lambda t, a, b: _beta(t, a, b).entropy() + _beta(t, a, b).mean
                             + _beta(t, a, b).variance + _beta(t, a, b).mode, [C1, C0], []),
    "dirichlet_log_prob": (lambda t, c, x: getattr(t, D).Dirichlet(c).log_prob(x), [CONC], [SIMPLEX]),
    "dirichlet_entropy_moments": (lambda t, c: getattr(t, D).Dirichlet(c).entropy().unsqueeze(-1)
                                  + getattr(t, D).Dirichlet(c).mean + getattr(t, D).Dirichlet(c).variance,
                                  [CONC], []),
    "binomial_log_prob": (lambda t, p: _bin(t, p).log_prob(t.tensor([0.0, 2.0, 5.0, 6.0], dtype=t.float64)),
                          [PROBS], []),
    "binomial_logits_entropy": (lambda t, lg: getattr(t, D).Binomial(t.tensor(5.0, dtype=t.float64),
                                                                      logits=lg).entropy(), [V], []),
    "binomial_moments": (lambda t, p: _bin(t, p).mean + _bin(t, p).variance, [PROBS], []),
    "kl_beta_beta": (lambda t, a, b: getattr(t, D).kl_divergence(_beta(t, a, b), _beta(t, b, a)), [C1, C0], []),
    "kl_dirichlet": (lambda t, c: getattr(t, D).kl_divergence(getattr(t, D).Dirichlet(c),
                                                              getattr(t, D).Dirichlet(c.flip(-1) + 0.5)), [CONC], []),
    "kl_binomial": (lambda t, p: getattr(t, D).kl_divergence(_bin(t, p), _bin(t, p.flip(0))), [PROBS], []),
    "kl_beta_normal_gamma_exponential": (
        lambda t, a, b: (getattr(t, D).kl_divergence(_beta(t, a, b), getattr(t, D).Normal(0.3, _f64(t, 2.0)))
                         + getattr(t, D).kl_divergence(_beta(t, a, b), getattr(t, D).Gamma(2.0, _f64(t, 3.0)))
                         + getattr(t, D).kl_divergence(_beta(t, a, b), getattr(t, D).Exponential(_f64(t, 1.5)))),
        [C1, C0], []),
    "kl_uniform_beta": (lambda t, a, b: getattr(t, D).kl_divergence(getattr(t, D).Uniform(0.1, 0.7), _beta(t, a, b)),
                        [C1, C0], []),
}


test_gradcheck, test_matches_torch = case_table_tests(CASES)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_samples_and_stream_are_torchs(dtype):
    torch = pytest.importorskip("torch")
    counts = np.concatenate([_RNG.integers(0, 60, 150), _RNG.integers(100, 5000, 50), [0, 1, 10, 20, 1e6]])
    probs = np.concatenate([_RNG.uniform(0, 1, 200), [0.0, 1.0, 0.5, 0.05, 1e-7]])
    got = []
    for lib in (engine_torch, torch):
        lib.manual_seed(4)
        lib.randn(1)
        out = lib.binomial(lib.tensor(counts.tolist(), dtype=getattr(lib, dtype)),
                           lib.tensor(probs.tolist(), dtype=getattr(lib, dtype)))
        got.append((out.tolist(), lib.randn(3).tolist(), lib.rand(3).tolist()))
    assert got[0] == got[1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_samples_and_gradients_are_torchs(dtype):
    torch = pytest.importorskip("torch")
    conc = np.concatenate([_RNG.uniform(0.01, 1, (20, 3)), _RNG.uniform(0.5, 30, (20, 3))]).tolist()
    n = 1500
    xs = np.concatenate([_RNG.uniform(0, 1, n), _RNG.uniform(0, 0.05, n), _RNG.uniform(0.95, 1, n)]).tolist()
    alphas = _RNG.uniform(0.01, 20, 3 * n)
    totals = (alphas + _RNG.uniform(0.01, 20, 3 * n)).tolist()
    got = []
    for lib, sample, grad in ((engine_torch, sample_dirichlet, dirichlet_grad),
                              (torch, torch._sample_dirichlet, torch._dirichlet_grad)):
        dt = getattr(lib, dtype)
        lib.manual_seed(9)
        lib.randn(1)
        x = sample(lib.tensor(conc, dtype=dt))
        g = grad(lib.tensor(xs, dtype=dt), lib.tensor(alphas.tolist(), dtype=dt), lib.tensor(totals, dtype=dt))
        got.append((x.tolist(), lib.randn(3).tolist(), np.nan_to_num(np.array(g.tolist()), nan=-7.0).tolist()))
    assert got[0] == got[1]


def test_rsample_gradients_reprs_and_kl_are_torchs():
    torch = pytest.importorskip("torch")
    got = []
    for lib in (engine_torch, torch):
        lib.manual_seed(8)
        c = lib.tensor([[0.5, 2.0, 9.0], [7.0, 8.0, 0.2]], requires_grad=True)
        d = lib.distributions.Dirichlet(c)
        x = d.rsample((3,))
        (x * x).sum().backward()
        a = lib.tensor([0.7, 4.0], dtype=lib.float64, requires_grad=True)
        b = lib.distributions.Beta(a, 2.5)
        y = b.rsample((2,))
        y.sum().backward()
        n = lib.distributions.Binomial(lib.tensor([3.0, 40.0]), logits=lib.tensor([0.2, -1.0]))
        got.append((x.tolist(), type(x.grad_fn).__name__, c.grad.tolist(), y.tolist(), y.grad_fn.name(),
                    a.grad.tolist(), repr(d), repr(b), repr(n), repr(n.support), n.sample((2,)).tolist(),
                    d.mode.tolist(), b.expand((3, 2)).sample().tolist(),
                    lib.distributions.kl_divergence(lib.distributions.Poisson(lib.tensor([2.0, 1.0])), n).tolist(),
                    lib.distributions.kl_divergence(lib.distributions.Gamma(2.0, 1.0), b).tolist()))
    assert got[0] == got[1]


BAD = [lambda d, t: d.Beta(t.tensor([-1.0]), 1.0),
       lambda d, t: d.Dirichlet(t.tensor([0.5, 0.0])),
       lambda d, t: d.Dirichlet(t.tensor(2.0)),
       lambda d, t: d.Binomial(2.5, t.tensor(0.5)),
       lambda d, t: d.Binomial(3, t.tensor([0.5, 1.5])),
       lambda d, t: d.Binomial(3),
       lambda d, t: d.Beta(2.0, 3.0).log_prob(t.tensor(1.5)),
       lambda d, t: d.Binomial(t.tensor([4.0, 4.0]), t.tensor([0.3, 0.9])).log_prob(t.tensor([5.0, 1.0])),
       lambda d, t: d.Dirichlet(t.tensor([0.5, 0.5])).log_prob(t.tensor([0.5, 0.6]))]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_validation_messages_are_torchs(index):
    assert_same_value_error(engine_torch, pytest.importorskip("torch"), BAD[index])


def test_binomial_argument_errors_are_torchs():
    torch = pytest.importorskip("torch")
    calls = [lambda t: t.binomial(t.tensor([5]), t.tensor([0.5])),
             lambda t: t.binomial(t.tensor([5.0]), t.tensor([1])),
             lambda t: t.binomial(t.tensor([5.0]), t.tensor([0.5], dtype=t.float64)),
             lambda t: t.binomial(t.tensor([5.0], dtype=t.float16), t.tensor([0.5], dtype=t.float16)),
             lambda t: t.binomial(t.ones(2), t.ones(3) * 0.5),
             lambda t: t.binomial(t.tensor([3.0], requires_grad=True), t.tensor([0.5])).sum().backward(),
             lambda t: t.distributions.Binomial(t.tensor([3.0, 4.0]), t.tensor([0.5, 0.5])).entropy(),
             lambda t: t.distributions.kl_divergence(t.distributions.Binomial(t.tensor(3.0), t.tensor(0.5)),
                                                     t.distributions.Binomial(t.tensor(4.0), t.tensor(0.5)))]
    for call in calls:
        seen = []
        for lib in (engine_torch, torch):
            with pytest.raises(Exception) as info:
                call(lib)
            seen.append((type(info.value).__name__, str(info.value)))
        assert seen[0] == seen[1]


DOORS = [
    ("torch.distributions.Beta(1., 1.).sample((10**9, 10**9))", "RuntimeError", "--max-elements"),
    ("torch.distributions.Dirichlet(torch.ones(2)).expand((10**9, 10**9)).rsample()", "RuntimeError",
     "--max-elements"),
    ("torch.distributions.Binomial(5, torch.tensor(0.5)).sample((10**9, 10**9))", "RuntimeError", "--max-elements"),
    ("torch.binomial(torch.ones(10**5).expand(10**9, 10**5), torch.ones(1))", "RuntimeError", "--max-elements"),
    ("torch.distributions.Beta(print, 1.)", "ValueError", "Input arguments must all be instances"),
    ("torch.distributions.Binomial(print, torch.tensor(0.5))", "ValueError", "Input arguments must all be instances"),
    ("torch.distributions.Dirichlet('abc')", None, None),
    ("torch.distributions.Dirichlet(print)", None, None),
    ("torch.binomial(print, torch.ones(1))", "TypeError", "argument 'count'"),
    ("torch.binomial(torch.ones(1), torch.ones(1), generator=print)", "TypeError", "generator"),
    ("torch._sample_dirichlet(torch.ones(2))", None, None),
]


@pytest.mark.parametrize("src, type_name, message", DOORS)
def test_script_objects_and_sizes_are_refused(src, type_name, message):
    refused_script("import torch\n", "<dist>", src + "\n", type_name, message)
