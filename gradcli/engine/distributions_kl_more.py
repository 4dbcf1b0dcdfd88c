"""torch.distributions.kl's pairs that involve Gumbel or Pareto (torch/distributions/kl.py, 2.13, formula for
formula, the infinities written in place as torch's), registered in distributions_kl.py's table.
"""
from __future__ import annotations

import math

from . import api as torch
from .distributions import Normal
from .distributions_beta import Beta
from .distributions_gamma import Gamma
from .distributions_more import Exponential, Laplace, Uniform
from .distributions_transformed import EULER_CONSTANT, Gumbel, Pareto

_INF = math.inf


def infinite_like(tensor):
    """torch's _infinite_like: inf of tensor's shape, dtype and device."""
    return torch.full_like(tensor, _INF)


def x_log_x(tensor):
    return torch.special.xlogy(tensor, tensor)


def _gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * EULER_CONSTANT
    t3 = torch.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + EULER_CONSTANT)


def _pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    t1 = q.alpha * scale_ratio.log()
    t2 = -alpha_ratio.log()
    result = t1 + t2 + alpha_ratio - 1
    result[p.support.lower_bound < q.support.lower_bound] = _INF
    return result


def _exponential_gumbel(p, q):
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = torch.exp(loc_scale_ratio) * scale_rate_prod / (scale_rate_prod + 1)
    t3 = scale_rate_prod.reciprocal()
    return t1 - loc_scale_ratio + t2 + t3


def _gamma_gumbel(p, q):
    beta_scale_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = (p.concentration - 1) * p.concentration.digamma() - p.concentration.lgamma() - p.concentration
    t2 = beta_scale_prod.log() + p.concentration / beta_scale_prod
    t3 = torch.exp(loc_scale_ratio) * (1 + beta_scale_prod.reciprocal()).pow(-p.concentration) - loc_scale_ratio
    return t1 + t2 + t3


def _gumbel_normal(p, q):
    param_ratio = p.scale / q.scale
    t1 = (param_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * param_ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * EULER_CONSTANT - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (EULER_CONSTANT + 1)


def _normal_gumbel(p, q):
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale).pow(2)
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = torch.exp(-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio)
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


def _pareto_exponential(p, q):
    scale_rate_prod = p.scale * q.rate
    t1 = (p.alpha / scale_rate_prod).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * scale_rate_prod / (p.alpha - 1)
    result = t1 - t2 + t3 - 1
    result[p.alpha <= 1] = _INF
    return result


def _pareto_gamma(p, q):
    common_term = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common_term
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common_term
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    result = t1 + t2 + t3 + t4 - 1
    result[p.alpha <= 1] = _INF
    return result


def _pareto_normal(p, q):
    var_normal = 2 * q.scale.pow(2)
    common_term = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * common_term.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common_term - q.loc).pow(2)
    result = t1 - t2 + (t3 + t4) / var_normal - 1
    result[p.alpha <= 2] = _INF
    return result


def _uniform_gumbel(p, q):
    common_term = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common_term.log() + 0.5 * (high_loc_diff + low_loc_diff)
    t2 = common_term * (torch.exp(-high_loc_diff) - torch.exp(-low_loc_diff))
    return t1 - t2


def _uniform_pareto(p, q):
    support_uniform = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * (support_uniform)).log()
    t2 = (x_log_x(p.high) - x_log_x(p.low) - support_uniform) / support_uniform
    result = t2 * (q.alpha + 1) - t1
    result[p.low < q.support.lower_bound] = _INF
    return result


def _infinity(name):
    return lambda p, q: infinite_like(getattr(p, name))


# the pairs whose KL torch fills with inf everywhere: the parameter whose shape it takes
_INFINITE = {(Exponential, Pareto): "rate", (Gamma, Pareto): "concentration", (Gumbel, Beta): "loc",
             (Gumbel, Exponential): "loc", (Gumbel, Gamma): "loc", (Gumbel, Pareto): "loc", (Gumbel, Uniform): "loc",
             (Laplace, Pareto): "loc", (Normal, Pareto): "loc", (Pareto, Beta): "scale", (Pareto, Uniform): "scale"}

PAIRS = {(Gumbel, Gumbel): _gumbel, (Pareto, Pareto): _pareto, (Exponential, Gumbel): _exponential_gumbel,
         (Gamma, Gumbel): _gamma_gumbel, (Gumbel, Normal): _gumbel_normal, (Normal, Gumbel): _normal_gumbel,
         (Pareto, Exponential): _pareto_exponential, (Pareto, Gamma): _pareto_gamma, (Pareto, Normal): _pareto_normal,
         (Uniform, Gumbel): _uniform_gumbel, (Uniform, Pareto): _uniform_pareto,
         **{pair: _infinity(name) for pair, name in _INFINITE.items()}}
