"""torch.distributions beyond the three of distributions.py: Uniform, Exponential, Laplace, Geometric, LogNormal
and OneHotCategorical, ported from torch/distributions/*.py (2.13) step for step over the engine's ops, so that
samples come from the same random stream (Uniform: torch.rand; Exponential: exponential_; Laplace:
uniform_(eps - 1, 1); Geometric: uniform_(tiny, 1); LogNormal: Normal's rsample then exp; OneHotCategorical:
Categorical's multinomial then one_hot; Poisson: torch.poisson), rsample's graph is torch's (its grad_fn names), and validation raises
torch's ValueError with its message.

LogNormal is torch's TransformedDistribution(Normal(loc, scale), ExpTransform()) written out for its one
transform: the order of operations (and so every rounding and grad_fn) is TransformedDistribution's.
"""
from __future__ import annotations

import math

from . import api as torch
from .distributions import (BinaryProbsLogits, CategoricalFamily, Distribution, ExponentialFamily, LocScaleFamily,
                            Normal, EMPTY,
                            is_number, as_size, broadcast_all, sum_rightmost)
from .distributions_constraints import (greater_than, independent, interval, less_than, nonnegative,
                                        nonnegative_integer, one_hot, positive, real)
from .distributions_transforms import ExpTransform
from .size import Size

NAMES = ("Uniform", "Exponential", "Laplace", "Geometric", "LogNormal", "OneHotCategorical", "Poisson",
         "Independent")


def _batch_of(scalar, tensor):
    return Size() if scalar else tensor.size()


def _new_empty(like, shape):
    """torch's ``like.new(shape)``: an uninitialised tensor of like's dtype."""
    return torch.empty(shape, dtype=like.dtype, device=like.device)


# ---------------------------------------------------------------------------- Uniform

class Uniform(Distribution):
    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": less_than(self.high), "high": greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(_batch_of(is_number(low) and is_number(high), self.low), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Uniform, batch_shape, {"low": tuple, "high": tuple}, _instance)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    @property
    def support(self):
        return interval(self.low, self.high)

    def rsample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        rand = torch.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return torch.log(lb.mul(ub)) - torch.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return torch.log(self.high - self.low)


Uniform.__module__ = "torch.distributions.uniform"


# ---------------------------------------------------------------------------- Exponential

class Exponential(ExponentialFamily):
    arg_constraints = {"rate": positive}
    support = nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_of(is_number(rate), self.rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Exponential, batch_shape, {"rate": tuple}, _instance)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return torch.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        return _new_empty(self.rate, shape).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - torch.exp(-self.rate * value)

    def icdf(self, value):
        return -torch.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - torch.log(self.rate)


Exponential.__module__ = "torch.distributions.exponential"


# ---------------------------------------------------------------------------- Laplace

class Laplace(LocScaleFamily):
    def expand(self, batch_shape, _instance=None):
        return self._expanded(Laplace, batch_shape, {"loc": tuple, "scale": tuple}, _instance)

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    def rsample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        eps = torch.finfo(self.loc.dtype).eps
        u = _new_empty(self.loc, shape).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torch.log(2 * self.scale) - torch.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * torch.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * torch.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + torch.log(2 * self.scale)


Laplace.__module__ = "torch.distributions.laplace"


# ---------------------------------------------------------------------------- Geometric

class Geometric(BinaryProbsLogits):
    support = nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._probs_or_logits(probs, logits)
        super().__init__(self._batch_of_given(probs, logits), validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not valid.all():
                invalid_value = value.data[~valid]
                raise ValueError("Expected parameter probs "
                                 f"({type(value).__name__} of shape {tuple(value.shape)}) "
                                 f"of distribution {self!r} "
                                 f"to be positive but found invalid values:\n{invalid_value}")

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Geometric, batch_shape, {"probs": tuple, "logits": tuple}, _instance)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torch.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        tiny = torch.finfo(self.probs.dtype).tiny
        with torch.no_grad():
            u = _new_empty(self.probs, shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return torch.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                    reduction="none") / self.probs


Geometric.__module__ = "torch.distributions.geometric"


# ---------------------------------------------------------------------------- LogNormal

class LogNormal(Distribution):
    arg_constraints = {"loc": real, "scale": positive}
    support = positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        self.transforms = [ExpTransform()]
        super().__init__(self.base_dist.batch_shape, self.base_dist.event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        new.base_dist = self.base_dist.expand(batch_shape)
        new.transforms = self.transforms
        Distribution.__init__(new, as_size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    @property
    def has_enumerate_support(self):
        return self.base_dist.has_enumerate_support

    def sample(self, sample_shape=EMPTY):
        with torch.no_grad():
            return self.base_dist.sample(sample_shape).exp()

    def rsample(self, sample_shape=EMPTY):
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        transform = self.transforms[0]
        x = transform.inv(value)
        return (0.0 - transform.log_abs_det_jacobian(x, value)) + self.base_dist.log_prob(x)

    def cdf(self, value):
        value = self.transforms[0].inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self.base_dist.cdf(value)

    def icdf(self, value):
        return self.transforms[0](self.base_dist.icdf(value))

    def entropy(self):
        return self.base_dist.entropy() + self.loc


LogNormal.__module__ = "torch.distributions.log_normal"


# ---------------------------------------------------------------------------- OneHotCategorical

class OneHotCategorical(CategoricalFamily):
    support = one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._init_categorical(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded_categorical(OneHotCategorical, batch_shape, _instance)

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        mode = probs.argmax(dim=-1)
        return torch.nn.functional.one_hot(mode, num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=EMPTY):
        probs = self._categorical.probs
        indices = self._categorical.sample(as_size(sample_shape))
        return torch.nn.functional.one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = torch.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


OneHotCategorical.__module__ = "torch.distributions.one_hot_categorical"


# ---------------------------------------------------------------------------- Poisson

class Poisson(ExponentialFamily):
    arg_constraints = {"rate": nonnegative}
    support = nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_of(is_number(rate), self.rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Poisson, batch_shape, {"rate": tuple}, _instance)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()


Poisson.__module__ = "torch.distributions.poisson"


# ---------------------------------------------------------------------------- Independent

class Independent(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(Size(shape[:len(shape) - event_dim]), Size(shape[len(shape) - event_dim:]),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = as_size(batch_shape)
        new.base_dist = self.base_dist.expand(tuple(batch_shape)
                                              + tuple(self.event_shape[:self.reinterpreted_batch_ndims]))
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @property
    def support(self):
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=EMPTY):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=EMPTY):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return self.__class__.__name__ + f"({self.base_dist}, {self.reinterpreted_batch_ndims})"


Independent.__module__ = "torch.distributions.independent"
