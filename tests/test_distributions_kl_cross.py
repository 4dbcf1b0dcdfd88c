"""torch.distributions.kl's cross-family pairs of engine/distributions_kl_cross.py: ContinuousBernoulli with itself
and the other families, LowRankMultivariateNormal with itself and MultivariateNormal, Bernoulli x Poisson, the
Exponential/Gamma/Laplace/Normal/Uniform pairs and the infinite ones: values, grad_fn names and gradients against
torch's, the finite ones against float64 central differences (gradcheck, gradgradcheck); the registry holds every
pair torch 2.13 registers; the script-level golden is tests/golden/scripts/distributions_kl_cross.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from case_support import assert_same_value_error, case_table_tests

P01 = [0.2, 0.45, 0.7]
POS = [0.7, 1.3, 2.5]
POS2 = [1.1, 0.4, 3.0]
LOC = [-0.5, 0.3, 1.2]
W = [[0.5, -0.2], [0.1, 0.3], [-0.4, 0.6]]
D3 = [0.8, 1.2, 0.5]
L3 = [[1.1, 0.0, 0.0], [0.3, 0.9, 0.0], [-0.2, 0.4, 1.3]]


def _kl(t, p, q):
    return t.distributions.kl_divergence(p, q)


def _d(t):
    return t.distributions


CASES = {
    "cbernoulli_cbernoulli": (lambda t, a, b: _kl(t, _d(t).ContinuousBernoulli(a), _d(t).ContinuousBernoulli(b)),
                              [P01, [0.6, 0.3, 0.5004]], []),
    "beta_cbernoulli": (lambda t, a, b, c: _kl(t, _d(t).Beta(a, b), _d(t).ContinuousBernoulli(c)), [POS, POS2, P01],
                        []),
    "cbernoulli_exponential": (lambda t, a, r: _kl(t, _d(t).ContinuousBernoulli(a), _d(t).Exponential(r)),
                               [P01, POS], []),
    "cbernoulli_normal": (lambda t, a, m, s: _kl(t, _d(t).ContinuousBernoulli(a), _d(t).Normal(m, s)),
                          [P01, LOC, POS], []),
    "cbernoulli_uniform": (lambda t, a, lo: _kl(t, _d(t).ContinuousBernoulli(a), _d(t).Uniform(lo - 1.5, lo + 2.0)),
                           [P01, LOC], []),
    "uniform_cbernoulli": (lambda t, lo, c: _kl(t, _d(t).Uniform(lo * 0.1 + 0.3, lo * 0.1 + 0.6),
                                                _d(t).ContinuousBernoulli(c)), [LOC, P01], []),
    "bernoulli_poisson": (lambda t, a, r: _kl(t, _d(t).Bernoulli(a), _d(t).Poisson(r)), [P01, POS], []),
    "exponential_gamma": (lambda t, r, a, b: _kl(t, _d(t).Exponential(r), _d(t).Gamma(a, b)), [POS, POS2, POS], []),
    "exponential_normal": (lambda t, r, m, s: _kl(t, _d(t).Exponential(r), _d(t).Normal(m, s)), [POS, LOC, POS2],
                           []),
    "gamma_exponential": (lambda t, a, b, r: _kl(t, _d(t).Gamma(a, b), _d(t).Exponential(r)), [POS, POS2, POS], []),
    "gamma_normal": (lambda t, a, b, m, s: _kl(t, _d(t).Gamma(a, b), _d(t).Normal(m, s)), [POS, POS2, LOC, POS],
                     []),
    "laplace_normal": (lambda t, m, s, m2, s2: _kl(t, _d(t).Laplace(m, s), _d(t).Normal(m2, s2)),
                       [LOC, POS, POS2, POS], []),
    "normal_laplace": (lambda t, m, s, m2, s2: _kl(t, _d(t).Normal(m, s), _d(t).Laplace(m2, s2)),
                       [LOC, POS, POS2, POS], []),
    "uniform_exponential": (lambda t, lo, r: _kl(t, _d(t).Uniform(lo, lo + 1.5), _d(t).Exponential(r)),
                            [POS, POS2], []),
    "uniform_gamma": (lambda t, lo, a, b: _kl(t, _d(t).Uniform(lo, lo + 1.5), _d(t).Gamma(a, b)), [POS, POS2, POS],
                      []),
    "uniform_normal": (lambda t, lo, m, s: _kl(t, _d(t).Uniform(lo, lo + 1.5), _d(t).Normal(m, s)), [LOC, POS, POS2],
                       []),
    "lowrank_lowrank": (lambda t, m, w, d: _kl(t, _d(t).LowRankMultivariateNormal(m, w, d),
                                               _d(t).LowRankMultivariateNormal(m * 0.5, w.flip(0), d + 0.3)),
                        [LOC, W, D3], []),
    "mvn_lowrank": (lambda t, m, l, w, d: _kl(t, _d(t).MultivariateNormal(m, scale_tril=l.tril()),
                                              _d(t).LowRankMultivariateNormal(m * 0.5, w, d)), [LOC, L3, W, D3], []),
    "lowrank_mvn": (lambda t, m, w, d, l: _kl(t, _d(t).LowRankMultivariateNormal(m, w, d),
                                              _d(t).MultivariateNormal(m * 0.5, scale_tril=l.tril())),
                    [LOC, W, D3, L3], []),
}

test_gradcheck, test_matches_torch = case_table_tests(CASES)


def _edges(lib):
    """The infinite pairs and the partly infinite Uniform ones (values only: inf has no finite difference)."""
    d = lib.distributions
    t = lib.tensor
    cb, ex, ga = d.ContinuousBernoulli(t([0.3, 0.6])), d.Exponential(t([1.0, 2.0])), d.Gamma(t([2.0]), t([1.5]))
    pairs = [(d.Beta(t([2.0]), t([3.0])), d.Pareto(1.0, 2.0)), (cb, d.Pareto(1.0, 2.0)), (ex, cb), (ga, cb),
             (d.Gumbel(t([0.1]), 1.0), cb), (d.Laplace(t([0.1]), 1.0), cb), (d.Laplace(t([0.1]), 1.0), ex),
             (d.Laplace(t([0.1]), 1.0), ga), (d.Normal(t([0.1, 0.2]), 1.0), cb), (d.Normal(t([0.1]), 1.0), ex),
             (d.Normal(t([0.1]), 1.0), ga), (d.Pareto(t([1.0]), 2.0), cb), (d.Poisson(t([1.5, 2.0])), d.Bernoulli(0.3)),
             (d.Uniform(t([-1.0, 0.5]), t([1.0, 1.0])), ex), (d.Uniform(t([-1.0, 0.5]), t([1.0, 1.0])), ga),
             (d.Uniform(t([0.0, 0.2]), t([0.5, 1.0])), cb), (cb, d.Uniform(t([-1.0, 0.0]), t([2.0, 2.0]))),
             (d.MultivariateNormal(lib.zeros(2), lib.eye(2)), d.LowRankMultivariateNormal(lib.zeros(2),
                                                                                          lib.ones(2, 1), lib.ones(2)))]
    return [d.kl_divergence(p, q).tolist() for p, q in pairs]


def test_edges_are_torchs():
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(_edges(engine_torch), _edges(torch), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


BAD = [lambda d, t: d.kl_divergence(d.LowRankMultivariateNormal(t.zeros(2), t.ones(2, 1), t.ones(2)),
                                    d.LowRankMultivariateNormal(t.zeros(3), t.ones(3, 1), t.ones(3))),
       lambda d, t: d.kl_divergence(d.MultivariateNormal(t.zeros(2), t.eye(2)),
                                    d.LowRankMultivariateNormal(t.zeros(3), t.ones(3, 1), t.ones(3))),
       lambda d, t: d.kl_divergence(d.LowRankMultivariateNormal(t.zeros(3), t.ones(3, 1), t.ones(3)),
                                    d.MultivariateNormal(t.zeros(2), t.eye(2)))]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_event_shape_messages_are_torchs(index):
    assert_same_value_error(engine_torch, pytest.importorskip("torch"), BAD[index])


def test_registry_holds_torchs_pairs():
    """Every pair torch registers; LogNormal's own pair is gradcli's (torch reaches the same value through
    TransformedDistribution's)."""
    kl = pytest.importorskip("torch.distributions.kl")
    from gradcli.engine import distributions_kl
    ours = {(p.__name__, q.__name__) for p, q in distributions_kl.REGISTRY}
    theirs = {(p.__name__, q.__name__) for p, q in kl._KL_REGISTRY}
    assert theirs - ours == set()
    assert ours - theirs == {("LogNormal", "LogNormal")}


def _exp_family_facts(lib):
    d = lib.distributions
    t = lib.tensor
    out = [isinstance(x, d.ExponentialFamily) for x in (d.Normal(0.0, 1.0), d.Bernoulli(0.3), d.Beta(1.0, 2.0),
                                                         d.Dirichlet(t([1.0, 2.0])), d.Exponential(1.0),
                                                         d.Gamma(1.0, 2.0), d.Chi2(2.0), d.Poisson(1.0),
                                                         d.ContinuousBernoulli(0.3), d.Laplace(0.0, 1.0),
                                                         d.Cauchy(0.0, 1.0), d.Categorical(t([0.5, 0.5])))]
    for p, q in ((d.Bernoulli(0.3), d.Normal(0.0, 1.0)), (d.Beta(1.0, 2.0), d.Dirichlet(t([1.0, 2.0]))),
                 (d.Poisson(1.0), d.Gamma(1.0, 2.0)), (d.Chi2(2.0), d.Exponential(1.0)),
                 (d.Exponential(1.0), d.Chi2(2.0)), (d.Chi2(2.0), d.Chi2(3.0))):
        try:
            out.append(round(d.kl_divergence(p, q).item(), 6))
        except NotImplementedError as err:
            out.append(str(err))
    try:
        d.Poisson(1.0).entropy()
    except NotImplementedError as err:
        out.append(("NotImplementedError", str(err)))
    return out


def test_exponential_family_is_torchs():
    torch = pytest.importorskip("torch")
    assert _exp_family_facts(engine_torch) == _exp_family_facts(torch)
