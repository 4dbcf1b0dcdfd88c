"""torch.distributions.kl.kl_divergence for the same-family pairs of the families gradcli has, ported
from torch/distributions/kl.py (2.13) formula for formula, so that values, the infinities torch
writes in place and the grad_fn names agree. A pair is looked up along both classes' MROs (Chi2 is
a Gamma, as torch's dispatch finds); a pair without a formula raises torch's NotImplementedError.
"""
from __future__ import annotations

import math

from . import api as torch
from .distributions import Bernoulli, Categorical, Normal
from .distributions_cauchy import Cauchy, HalfNormal
from .distributions_gamma import Gamma
from .distributions_more import (Exponential, Geometric, Independent, Laplace, LogNormal, OneHotCategorical,
                                 Poisson, Uniform, sum_rightmost)
from .distributions_mvn import MultivariateNormal, batch_mahalanobis

_INF = math.inf


def _normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


def _bernoulli(p, q):
    softplus = torch.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1[q.probs == 0] = _INF
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2[q.probs == 1] = _INF
    t2[p.probs == 1] = 0
    return t1 + t2


def _categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = _INF
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


def _onehot(p, q):
    return _categorical(p._categorical, q._categorical)


def _exponential(p, q):
    rate_ratio = q.rate / p.rate
    t1 = -rate_ratio.log()
    return t1 + rate_ratio - 1


def _gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = torch.lgamma(q.concentration) - torch.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * torch.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


def _geometric(p, q):
    return -p.entropy() - torch.log1p(-q.probs) / p.probs - q.logits


def _laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * torch.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


def _poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


def _uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = _INF
    return result


def _cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


def _halfnormal(p, q):
    return _normal(p.base_dist, q.base_dist)


def _lognormal(p, q):
    # torch's TransformedDistribution pair: equal transforms (both one ExpTransform), the bases' KL
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


def _independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


def _mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with                          "
                         "different event shapes cannot be computed")
    half_term1 = (q._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    combined = torch.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2], p._unbroadcasted_scale_tril.shape[:-2])
    n = p.event_shape[0]
    q_scale_tril = q._unbroadcasted_scale_tril.expand(combined + (n, n))
    p_scale_tril = p._unbroadcasted_scale_tril.expand(combined + (n, n))
    solved = torch.linalg.solve_triangular(q_scale_tril, p_scale_tril, upper=False)
    m, k = solved.size(-2), solved.size(-1)
    term2 = solved.reshape(-1, m * k).pow(2).sum(-1).reshape(solved.shape[:-2])
    term3 = batch_mahalanobis(q._unbroadcasted_scale_tril, (q.loc - p.loc))
    return half_term1 + 0.5 * (term2 + term3 - n)


_REGISTRY = {(Normal, Normal): _normal, (Bernoulli, Bernoulli): _bernoulli,
             (Categorical, Categorical): _categorical, (OneHotCategorical, OneHotCategorical): _onehot,
             (Exponential, Exponential): _exponential, (Gamma, Gamma): _gamma, (Geometric, Geometric): _geometric,
             (Laplace, Laplace): _laplace, (Poisson, Poisson): _poisson, (Uniform, Uniform): _uniform,
             (LogNormal, LogNormal): _lognormal, (Independent, Independent): _independent,
             (MultivariateNormal, MultivariateNormal): _mvn, (Cauchy, Cauchy): _cauchy,
             (HalfNormal, HalfNormal): _halfnormal}


def kl_divergence(p, q):
    """KL(p || q) of a batch, torch.distributions.kl.kl_divergence's value for the registered pairs."""
    for type_p in type(p).__mro__:
        for type_q in type(q).__mro__:
            fun = _REGISTRY.get((type_p, type_q))
            if fun is not None:
                return fun(p, q)
    raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} "
                              f"and q type {q.__class__.__name__}")
