"""torch.distributions.VonMises (engine/distributions_vonmises.py): log_prob and the circular variance against float64
central differences (gradcheck, gradgradcheck) and torch's values, grad_fn names and gradients; its rejection sampler's
draws after the same seed equal torch's (float32 and float64 parameters, tiny and large concentrations, which take
several rounds), with the reprs, expand and validation messages; the script-level golden is
tests/golden/scripts/distributions_vonmises.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from case_support import assert_same_value_error, case_table_tests

_RNG = np.random.default_rng(13)
LOC = _RNG.uniform(-3.0, 3.0, 4).tolist()
KAPPA = [0.3, 1.5, 3.74, 8.0]  # both sides of the Bessel approximations' 3.75
X = _RNG.uniform(-6.0, 6.0, 4).tolist()

CASES = {
    "vonmises_log_prob": (lambda t, m, k, x: t.distributions.VonMises(m, k).log_prob(x), [LOC, KAPPA], [X]),
    "vonmises_log_prob_value": (lambda t, x, m, k: t.distributions.VonMises(m, k).log_prob(x), [X], [LOC, KAPPA]),
    "vonmises_variance": (lambda t, k: t.distributions.VonMises(t.zeros_like(k), k).variance, [KAPPA], []),
}

test_gradcheck, test_matches_torch = case_table_tests(CASES)


def _draws(lib):
    d = lib.distributions
    lib.manual_seed(11)
    out = []
    for loc, kappa, dtype in (([0.5, -2.0, 3.0], [1.0, 0.01, 20.0], lib.float32),
                              ([1.0, -1.0], [1e-7, 1e-3], lib.float32),
                              ([0.25], [2.5], lib.float64)):
        vm = d.VonMises(lib.tensor(loc, dtype=dtype), lib.tensor(kappa, dtype=dtype))
        out.append((repr(vm), tuple(vm.batch_shape), repr(vm.support), str(vm.arg_constraints)))
        out.append(vm.sample((7,)).tolist())
        out.append(vm.expand((2,) + tuple(vm.batch_shape)).sample().tolist())
    out.append(d.VonMises(0.0, 1.0).sample((3,)).tolist())
    return out


def test_samples_are_torchs():
    torch = pytest.importorskip("torch")
    assert _draws(engine_torch) == _draws(torch)


BAD = [lambda d, t: d.VonMises(0.0, -1.0),
       lambda d, t: d.VonMises(t.tensor([0.0, float("nan")]), 1.0),
       lambda d, t: d.VonMises(0.0, 1.0).log_prob(t.tensor([float("nan")]))]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_validation_messages_are_torchs(index):
    assert_same_value_error(engine_torch, pytest.importorskip("torch"), BAD[index])


def test_no_rsample_cdf_entropy():
    vm = engine_torch.distributions.VonMises(0.0, 1.0)
    assert vm.has_rsample is False
    for call in (vm.rsample, vm.entropy, lambda: vm.cdf(engine_torch.tensor(0.0))):
        with pytest.raises(NotImplementedError):
            call()
