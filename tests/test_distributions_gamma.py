"""torch.distributions Gamma and Chi2 (engine/distributions_gamma.py) and the standard Gamma sampler with its
reparameterised gradient (engine/rng_samplers.py: ATen's sample_gamma and standard_gamma_grad_one): log_prob,
entropy and the moments against float64 central differences and torch; the samples, the stream after them (the
Box-Muller cache included) and StandardGammaBackward0's gradients bit for bit against torch._standard_gamma over
every branch (alpha below 1, the Taylor series below x = 0.8, Rice's saddle point past alpha = 8, the rational
approximation); reprs and validation messages; the script-level golden is
tests/golden/scripts/distributions_gamma.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from gradcli.engine.rng_samplers import digamma_one, standard_gamma
from case_support import case_table_tests, assert_same_value_error, refused_script

_RNG = np.random.default_rng(53)
CONC = _RNG.uniform(0.3, 5.0, 5).tolist()
RATE = _RNG.uniform(0.5, 3.0, 5).tolist()
X = _RNG.uniform(0.1, 4.0, 5).tolist()

CASES = {
    "gamma_log_prob": (lambda t, c, r, x: t.distributions.Gamma(c, r).log_prob(x), [CONC, RATE], [X]),
    "gamma_entropy_moments": (lambda t, c, r: t.distributions.Gamma(c, r).entropy() + t.distributions.Gamma(c, r).mean
                              + t.distributions.Gamma(c, r).variance + t.distributions.Gamma(c, r).mode,
                              [CONC, RATE], []),
    "chi2_log_prob_entropy": (lambda t, k, x: t.distributions.Chi2(k).log_prob(x) + t.distributions.Chi2(k).entropy(),
                              [CONC], [X]),
}


test_gradcheck, test_matches_torch = case_table_tests(CASES)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_samples_gradients_and_stream_are_torchs(dtype):
    torch = pytest.importorskip("torch")
    alphas = np.concatenate([_RNG.uniform(0, 3, 200), _RNG.exponential(20, 60),
                             [0.0, 1e-3, 1.0, 8.0, 8.5, 100.0, 1e4]]).tolist()
    got = []
    for lib, fn in ((engine_torch, standard_gamma), (torch, torch._standard_gamma)):
        lib.manual_seed(6)
        lib.randn(1)  # a cached Box-Muller value to start from
        a = lib.tensor(alphas, dtype=getattr(lib, dtype), requires_grad=True)
        sample = fn(a)
        sample.backward(lib.ones_like(sample))
        got.append((sample.tolist(), a.grad.tolist(), sample.grad_fn.name(), lib.randn(3).tolist(),
                    lib.rand(3).tolist()))
    assert got[0] == got[1]


def test_gamma_rsample_is_torchs():
    torch = pytest.importorskip("torch")
    got = []
    for lib in (engine_torch, torch):
        lib.manual_seed(8)
        c = lib.tensor([0.5, 2.0, 9.0], dtype=lib.float64, requires_grad=True)
        r = lib.tensor([1.0, 0.25, 4.0], dtype=lib.float64, requires_grad=True)
        g = lib.distributions.Gamma(c, r)
        x = g.rsample((4,))
        (x * x).sum().backward()
        d = lib.distributions.Chi2(lib.tensor([1.0, 3.0]))
        got.append((x.tolist(), x.grad_fn.name(), c.grad.tolist(), r.grad.tolist(), repr(g), repr(d),
                    d.sample((3,)).tolist(), d.expand((2, 2)).sample().tolist(), repr(g.support)))
    assert got[0] == got[1]


def test_digamma_one_is_the_cephes_series():
    """The asymptotic series at its own points (exact at 10, the reflection below 0, the poles)."""
    assert digamma_one(0.0) == digamma_one(-2.0) == float("inf")
    assert digamma_one(1.0) == pytest.approx(-0.5772156649015329, rel=1e-15)
    assert digamma_one(10.0) == pytest.approx(2.251752589066721, rel=1e-15)
    assert digamma_one(-0.5) == pytest.approx(0.03648997397857652, rel=1e-14)


BAD = [lambda d, t: d.Gamma(t.tensor([-1.0]), 1.0),
       lambda d, t: d.Gamma(1.0, 0.0),
       lambda d, t: d.Chi2(t.tensor([0.0, 1.0])),
       lambda d, t: d.Gamma(1.0, 1.0).log_prob(t.tensor(-0.5)),
       lambda d, t: d.Chi2(2.0).log_prob(t.tensor([1.0, -1.0]))]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_validation_messages_are_torchs(index):
    assert_same_value_error(engine_torch, pytest.importorskip("torch"), BAD[index])


DOORS = [
    ("torch.distributions.Gamma(1., 1.).sample((10**9, 10**9))", "RuntimeError", "--max-elements"),
    ("torch.distributions.Gamma(torch.ones(2), 1.).expand((10**9, 2)).rsample()", "RuntimeError", "--max-elements"),
    ("torch.distributions.Gamma(print, 1.)", "ValueError", "Input arguments must all be instances"),
    ("torch.distributions.Chi2('abc')", None, None),
    ("torch._standard_gamma(torch.ones(2))", None, None),
]


@pytest.mark.parametrize("src, type_name, message", DOORS)
def test_script_objects_and_sizes_are_refused(src, type_name, message):
    refused_script("import torch\n", "<dist>", src + "\n", type_name, message)
