"""torch.distributions.kl.kl_divergence for the same-family pairs of the families gradcli has, ported
from torch/distributions/kl.py (2.13) formula for formula, so that values, the infinities torch
writes in place and the grad_fn names agree. A pair is found as torch's _dispatch_kl finds it: the most
specific registered pair read left-first and right-first, torch's RuntimeWarning when they disagree (Chi2 is a
Gamma); a pair without a formula raises torch's NotImplementedError. The Gumbel and Pareto pairs are
distributions_kl_more.py's.
"""
from __future__ import annotations

import math
import warnings

from . import api as torch
from .distributions import Bernoulli, Categorical, ExponentialFamily, Normal, sum_rightmost
from .distributions_beta import Beta, Binomial, Dirichlet
from .distributions_cauchy import Cauchy, HalfNormal
from .distributions_gamma import Gamma
from .distributions_more import (Exponential, Geometric, Independent, Laplace, LogNormal, OneHotCategorical,
                                 Poisson, Uniform)
from .distributions_kl_cross import CROSS_PAIRS
from .distributions_kl_more import PAIRS, infinite_like, x_log_x
from .distributions_mvn import MultivariateNormal, batch_mahalanobis
from .distributions_transformed import TransformedDistribution

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


def _beta(p, q):
    sum_params_p = p.concentration1 + p.concentration0
    sum_params_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + (sum_params_p).lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + (sum_params_q).lgamma()
    t3 = (p.concentration1 - q.concentration1) * torch.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * torch.digamma(p.concentration0)
    t5 = (sum_params_q - sum_params_p) * torch.digamma(sum_params_p)
    return t1 - t2 + t3 + t4 + t5


def _binomial(p, q):
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    inf_idxs = p.total_count > q.total_count
    kl[inf_idxs] = infinite_like(kl[inf_idxs])
    return kl


def _dirichlet(p, q):
    sum_p_concentration = p.concentration.sum(-1)
    sum_q_concentration = q.concentration.sum(-1)
    t1 = sum_p_concentration.lgamma() - sum_q_concentration.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p_concentration.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


def _beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0))


def _beta_gamma(p, q):
    t1 = -p.entropy()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma())
    t4 = q.rate * p.concentration1 / (p.concentration1 + p.concentration0)
    return t1 + t2 - t3 + t4


def _beta_normal(p, q):
    e_beta = p.concentration1 / (p.concentration1 + p.concentration0)
    var_normal = q.scale.pow(2)
    t1 = -p.entropy()
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (e_beta * (1 - e_beta) / (p.concentration1 + p.concentration0 + 1) + e_beta.pow(2)) * 0.5
    t4 = q.loc * e_beta
    t5 = q.loc.pow(2) * 0.5
    return t1 + t2 + (t3 - t4 + t5) / var_normal


def _beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    result[(q.low > 0.0) | (q.high < 1.0)] = _INF  # Beta's support: lower_bound 0.0, upper_bound 1.0
    return result


def _uniform_beta(p, q):
    common_term = p.high - p.low
    t1 = torch.log(common_term)
    t2 = (q.concentration1 - 1) * (x_log_x(p.high) - x_log_x(p.low) - common_term) / common_term
    t3 = (q.concentration0 - 1) * (x_log_x(1 - p.high) - x_log_x(1 - p.low) + common_term) / common_term
    t4 = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    result = t3 + t4 - t1 - t2
    result[(p.high > 1.0) | (p.low < 0.0)] = _INF
    return result


def _expfamily(p, q):
    """torch's Bregman pair: every family here has its own same-family pair, which dispatch prefers, so what it
    answers is torch's error for two different exponential families."""
    raise NotImplementedError("The cross KL-divergence between different exponential families cannot "
                              "                            be computed using Bregman divergences")


def _transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


# torch's pairs of another family with Beta or Binomial whose KL is infinite everywhere: the parameter it fills
_INFINITE = {(Exponential, Beta): "rate", (Gamma, Beta): "concentration", (Laplace, Beta): "loc",
             (Normal, Beta): "loc", (Poisson, Binomial): "rate", (Exponential, Uniform): "rate",
             (Gamma, Uniform): "concentration", (Laplace, Uniform): "loc", (Normal, Uniform): "loc"}


def _infinity(name):
    return lambda p, q: infinite_like(getattr(p, name))


REGISTRY = {(Normal, Normal): _normal, (Bernoulli, Bernoulli): _bernoulli,
             (Categorical, Categorical): _categorical, (OneHotCategorical, OneHotCategorical): _onehot,
             (Exponential, Exponential): _exponential, (Gamma, Gamma): _gamma, (Geometric, Geometric): _geometric,
             (Laplace, Laplace): _laplace, (Poisson, Poisson): _poisson, (Uniform, Uniform): _uniform,
             (LogNormal, LogNormal): _lognormal, (Independent, Independent): _independent,
             (MultivariateNormal, MultivariateNormal): _mvn, (Cauchy, Cauchy): _cauchy,
             (HalfNormal, HalfNormal): _halfnormal, (Beta, Beta): _beta, (Binomial, Binomial): _binomial,
             (Dirichlet, Dirichlet): _dirichlet, (Beta, Exponential): _beta_exponential, (Beta, Gamma): _beta_gamma,
             (Beta, Normal): _beta_normal, (Beta, Uniform): _beta_uniform, (Uniform, Beta): _uniform_beta,
             (TransformedDistribution, TransformedDistribution): _transformed,
             (ExponentialFamily, ExponentialFamily): _expfamily,
             **{pair: _infinity(name) for pair, name in _INFINITE.items()}, **PAIRS, **CROSS_PAIRS}


def _at_least_as_specific(types, others):
    """torch's _Match.__le__: lexicographic, each place a subclass of the other's until the first that differs."""
    for x, y in zip(types, others):
        if not issubclass(x, y):
            return False
        if x is not y:
            break
    return True


def _most_specific(pairs):
    """min() over torch's total_ordering _Match (a < b: a <= b and a != b; the pairs are distinct), which keeps
    the earlier of two incomparable pairs."""
    best = pairs[0]
    for pair in pairs[1:]:
        if _at_least_as_specific(pair, best):
            best = pair
    return best


def _dispatch(type_p, type_q):
    """torch's _dispatch_kl: the most specific registered pair, read left-first and right-first; when the two
    differ, the left one with torch's RuntimeWarning."""
    matches = [(sp, sq) for sp, sq in REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return None
    left_p, left_q = _most_specific(matches)
    right_q, right_p = _most_specific([(sq, sp) for sp, sq in matches])
    left_fun = REGISTRY[left_p, left_q]
    if left_fun is not REGISTRY[right_p, right_q]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=3)
    return left_fun


def kl_divergence(p, q):
    """KL(p || q) of a batch, torch.distributions.kl.kl_divergence's value for the registered pairs."""
    fun = _dispatch(type(p), type(q))
    if fun is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} "
                                  f"and q type {q.__class__.__name__}")
    return fun(p, q)
