"""torch.distributions.Cauchy and HalfNormal (torch/distributions/cauchy.py, half_normal.py, 2.13):
Cauchy's samples are Tensor.cauchy_'s stream (rng_ops, torch's own), HalfNormal is torch's
TransformedDistribution of Normal(0, scale) by |x|, written out (its base_dist and transforms
attributes as torch's), so that samples, values and grad_fn names agree.
"""
from __future__ import annotations

import math

from . import api as torch
from .distributions import Distribution, EMPTY, LocScaleFamily, Normal, Size
from .distributions_constraints import nonnegative, positive
from .distributions_transforms import AbsTransform

NAMES = ("Cauchy", "HalfNormal")


class Cauchy(LocScaleFamily):
    def expand(self, batch_shape, _instance=None):
        return self._expanded(Cauchy, batch_shape, {"loc": tuple, "scale": tuple}, _instance)

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def variance(self):
        return torch.full(self._extended_shape(), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        eps = torch.empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return torch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


Cauchy.__module__ = "torch.distributions.cauchy"


class FoldedAtZero:
    """HalfNormal and HalfCauchy: |X| of a base of loc 0 and the given scale, whose log_prob, cdf, icdf and
    entropy torch writes alike in each (a mixin before their Distribution base)."""

    arg_constraints = {"scale": positive}
    support = nonnegative
    has_rsample = True

    def _as_value(self, value):
        return value

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return torch.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = self._as_value(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return torch.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(FoldedAtZero, Distribution):
    def __init__(self, scale, validate_args=None):
        self.base_dist = Normal(0, scale, validate_args=False)
        self.transforms = [AbsTransform()]
        super().__init__(self.base_dist.batch_shape, self.base_dist.event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        new.base_dist = self.base_dist.expand(batch_shape)
        new.transforms = self.transforms
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def sample(self, sample_shape=EMPTY):
        with torch.no_grad():
            return self.transforms[0](self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape=EMPTY):
        return self.transforms[0](self.base_dist.rsample(sample_shape))


HalfNormal.__module__ = "torch.distributions.half_normal"
