"""torch.distributions.kl's cross-family pairs beyond distributions_kl.py and distributions_kl_more.py
(torch/distributions/kl.py, 2.13, formula for formula): ContinuousBernoulli with itself and the other families,
LowRankMultivariateNormal with itself and MultivariateNormal, Bernoulli x Poisson, Exponential/Gamma/Laplace/Normal/
Uniform across each other, and the pairs torch fills with inf; registered in distributions_kl.py's table.
"""
from __future__ import annotations

import math

from . import api as torch
from .distributions import Bernoulli, Normal
from .distributions_beta import Beta
from .distributions_cbernoulli import ContinuousBernoulli
from .distributions_gamma import Gamma
from .distributions_kl_more import infinite_like, x_log_x
from .distributions_mixture import LowRankMultivariateNormal, batch_lowrank_logdet, batch_lowrank_mahalanobis
from .distributions_more import Exponential, Laplace, Poisson, Uniform
from .distributions_mvn import MultivariateNormal, batch_mahalanobis
from .distributions_transformed import EULER_CONSTANT, Gumbel, Pareto

_INF = math.inf


def batch_trace_XXT(bmat):
    """The trace of bmat @ bmat.mT over the batch, as torch's _batch_trace_XXT."""
    n = bmat.size(-1)
    m = bmat.size(-2)
    flat_trace = bmat.reshape(-1, m * n).pow(2).sum(-1)
    return flat_trace.reshape(bmat.shape[:-2])


def _event_shapes_agree(p, q, what):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with                          "
                         "different event shapes cannot be computed")


def _lowrank_logdet(d):
    return batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril)


def _lowrank_A(q):
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return torch.linalg.solve_triangular(q._capacitance_tril, qWt_qDinv, upper=False)


def _lowrank_term3(p, q):
    return batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q.loc - p.loc,
                                     q._capacitance_tril)


def _lowrank_lowrank(p, q):
    _event_shapes_agree(p, q, "Low Rank Multivariate Normals")
    term1 = _lowrank_logdet(q) - _lowrank_logdet(p)
    term3 = _lowrank_term3(p, q)
    A = _lowrank_A(q)
    term21 = (p._unbroadcasted_cov_diag / q._unbroadcasted_cov_diag).sum(-1)
    term22 = batch_trace_XXT(p._unbroadcasted_cov_factor * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term23 = batch_trace_XXT(A * p._unbroadcasted_cov_diag.sqrt().unsqueeze(-2))
    term24 = batch_trace_XXT(A.matmul(p._unbroadcasted_cov_factor))
    term2 = term21 + term22 - term23 - term24
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


def _mvn_lowrank(p, q):
    _event_shapes_agree(p, q, "(Low Rank) Multivariate Normals")
    term1 = _lowrank_logdet(q) - 2 * p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term3 = _lowrank_term3(p, q)
    A = _lowrank_A(q)
    term21 = batch_trace_XXT(p._unbroadcasted_scale_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = batch_trace_XXT(A.matmul(p._unbroadcasted_scale_tril))
    term2 = term21 - term22
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


def _lowrank_mvn(p, q):
    _event_shapes_agree(p, q, "(Low Rank) Multivariate Normals")
    term1 = 2 * q._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _lowrank_logdet(p)
    term3 = batch_mahalanobis(q._unbroadcasted_scale_tril, (q.loc - p.loc))
    combined_batch_shape = torch.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2],
                                                  p._unbroadcasted_cov_factor.shape[:-2])
    n = p.event_shape[0]
    q_scale_tril = q._unbroadcasted_scale_tril.expand(tuple(combined_batch_shape) + (n, n))
    p_cov_factor = p._unbroadcasted_cov_factor.expand(tuple(combined_batch_shape) + (n, p.cov_factor.size(-1)))
    p_cov_diag = torch.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(tuple(combined_batch_shape) + (n, n))
    term21 = batch_trace_XXT(torch.linalg.solve_triangular(q_scale_tril, p_cov_factor, upper=False))
    term22 = batch_trace_XXT(torch.linalg.solve_triangular(q_scale_tril, p_cov_diag, upper=False))
    term2 = term21 + term22
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


def _cbernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + torch.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - torch.log1p(-q.probs)
    return t1 + t2 + t3


def _bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _to_cbernoulli(p, q):
    """Beta's and Uniform's KL against a ContinuousBernoulli, before Uniform's bounds."""
    return -p.entropy() - p.mean * q.logits - torch.log1p(-q.probs) - q._cont_bern_log_norm()


def _cbernoulli_exponential(p, q):
    return -p.entropy() - torch.log(q.rate) + q.rate * p.mean


def _cbernoulli_normal(p, q):
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + torch.square(q.loc / q.scale)) + torch.log(q.scale)
    t3 = (p.variance + torch.square(p.mean) - 2.0 * q.loc * p.mean) / (2.0 * torch.square(q.scale))
    return t1 + t2 + t3


def _cbernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return torch.where(torch.max(torch.ge(q.low, p.support.lower_bound), torch.le(q.high, p.support.upper_bound)),
                       torch.ones_like(result) * _INF, result)


def _exponential_gamma(p, q):
    ratio = q.rate / p.rate
    t1 = -q.concentration * torch.log(ratio)
    return t1 + ratio + q.concentration.lgamma() + q.concentration * EULER_CONSTANT - (1 + EULER_CONSTANT)


def _exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * torch.log(rate_sqr * var_normal * 2 * math.pi)
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


def _gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


def _gamma_normal(p, q):
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    t1 = 0.5 * torch.log(beta_sqr * var_normal * 2 * math.pi) - p.concentration - p.concentration.lgamma()
    t2 = 0.5 * (p.concentration.pow(2) + p.concentration) / beta_sqr
    t3 = q.loc * p.concentration / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (p.concentration - 1) * p.concentration.digamma() + (t2 - t3 + t4) / var_normal


def _laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    scale_sqr_var_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * torch.log(2 * scale_sqr_var_ratio / math.pi)
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1


def _normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = torch.log(scale_ratio)
    t2 = math.sqrt(2 / math.pi) * p.scale * torch.exp(-0.5 * loc_diff_scale_ratio.pow(2))
    t3 = loc_diff * torch.erf(math.sqrt(0.5) * loc_diff_scale_ratio)
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


def _uniform_cbernoulli(p, q):
    result = _to_cbernoulli(p, q)
    return torch.where(torch.max(torch.ge(p.high, q.support.upper_bound), torch.le(p.low, q.support.lower_bound)),
                       torch.ones_like(result) * _INF, result)


def _uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    result[p.low < q.support.lower_bound] = _INF
    return result


def _uniform_gamma(p, q):
    common_term = p.high - p.low
    t1 = common_term.log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (x_log_x(p.high) - x_log_x(p.low) - common_term) / common_term
    t4 = q.rate * (p.high + p.low) / 2
    result = -t1 + t2 + t3 + t4
    result[p.low < q.support.lower_bound] = _INF
    return result


def _uniform_normal(p, q):
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = common_term.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


def _infinity(name):
    return lambda p, q: infinite_like(getattr(p, name))


# the pairs whose KL torch fills with inf everywhere: the parameter whose shape it takes
_INFINITE = {(Beta, Pareto): "concentration1", (ContinuousBernoulli, Pareto): "probs",
             (Exponential, ContinuousBernoulli): "rate", (Gamma, ContinuousBernoulli): "concentration",
             (Gumbel, ContinuousBernoulli): "loc", (Laplace, ContinuousBernoulli): "loc",
             (Laplace, Exponential): "loc", (Laplace, Gamma): "loc", (Normal, ContinuousBernoulli): "loc",
             (Normal, Exponential): "loc", (Normal, Gamma): "loc", (Pareto, ContinuousBernoulli): "scale",
             (Poisson, Bernoulli): "rate"}

CROSS_PAIRS = {(ContinuousBernoulli, ContinuousBernoulli): _cbernoulli,
               (LowRankMultivariateNormal, LowRankMultivariateNormal): _lowrank_lowrank,
               (MultivariateNormal, LowRankMultivariateNormal): _mvn_lowrank,
               (LowRankMultivariateNormal, MultivariateNormal): _lowrank_mvn,
               (Bernoulli, Poisson): _bernoulli_poisson, (Beta, ContinuousBernoulli): _to_cbernoulli,
               (ContinuousBernoulli, Exponential): _cbernoulli_exponential,
               (ContinuousBernoulli, Normal): _cbernoulli_normal, (ContinuousBernoulli, Uniform): _cbernoulli_uniform,
               (Exponential, Gamma): _exponential_gamma, (Exponential, Normal): _exponential_normal,
               (Gamma, Exponential): _gamma_exponential, (Gamma, Normal): _gamma_normal,
               (Laplace, Normal): _laplace_normal, (Normal, Laplace): _normal_laplace,
               (Uniform, ContinuousBernoulli): _uniform_cbernoulli, (Uniform, Exponential): _uniform_exponential,
               (Uniform, Gamma): _uniform_gamma, (Uniform, Normal): _uniform_normal,
               **{pair: _infinity(name) for pair, name in _INFINITE.items()}}
