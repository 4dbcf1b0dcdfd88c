"""torch.distributions: Categorical, Normal and Bernoulli (kl_divergence: distributions_kl.py), ported
from torch/distributions/*.py (2.13) step for step over the engine's ops, so that samples come from
the same random stream (Categorical: multinomial with replacement; Normal: torch.normal, rsample
empty().normal_(); Bernoulli: torch.bernoulli), values and grad_fn names are torch's (log_prob's
SqueezeBackward1), and argument validation (on by default, as in torch) raises torch's ValueError
with its message. The policy-gradient and VAE tutorials use these three (pytorch/examples'
reinforcement_learning, the REINFORCE and actor-critic recipes); the other families are not here.
"""
from __future__ import annotations

import math
import warnings

from . import api as torch
from .size import Size
from .tensor import Tensor
from .distributions_constraints import (boolean, integer_interval, is_dependent, positive, real, real_vector, simplex,
                                       unit_interval)

NAMES = ("Distribution", "ExponentialFamily", "Categorical", "Normal", "Bernoulli")
EMPTY = Size()


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def all_true(valid):
    return bool(valid.all().item()) if isinstance(valid, Tensor) else bool(valid)


def sum_rightmost(value, dim):
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


class lazy_property:
    """torch.distributions.utils.lazy_property: computed once (with grad enabled), then an attribute."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.name = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with torch.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.name] = value
        return value


def broadcast_all(*values):
    if not all(isinstance(v, Tensor) or is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        options = dict(dtype=torch.get_default_dtype())
        for value in values:
            if isinstance(value, Tensor):
                options = dict(dtype=value.dtype, device=value.device)
                break
        values = [v if isinstance(v, Tensor) else torch.tensor(v, **options) for v in values]
    return torch.broadcast_tensors(*values)


def clamp_probs(probs):
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log1p(-ps_clamped)
    return torch.log(ps_clamped)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return torch.sigmoid(logits)
    return torch.softmax(logits, dim=-1)


def as_size(shape):
    return shape if isinstance(shape, Size) else Size(shape)


# ---------------------------------------------------------------------------- Distribution

class Distribution:
    has_rsample = False
    has_enumerate_support = False
    arg_constraints: dict = {}
    support = None
    _default_validate_args = True

    def __init__(self, batch_shape=EMPTY, event_shape=EMPTY, validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        self._validate_args = Distribution._default_validate_args if validate_args is None else validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if is_dependent(constraint):
                    continue  # skip constraints that cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                    continue  # skip checking lazily-constructed args
                value = getattr(self, param)
                if not all_true(constraint.check(value)):
                    raise ValueError(f"Expected parameter {param} "
                                     f"({type(value).__name__} of shape {tuple(value.shape)}) "
                                     f"of distribution {self!r} "
                                     f"to satisfy the constraint {constraint!r}, "
                                     f"but found invalid values:\n{value}")

    @staticmethod
    def set_default_validate_args(value):
        if value not in [True, False]:
            raise ValueError
        Distribution._default_validate_args = value

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return type(self).__new__(type(self)) if _instance is None else _instance

    def _expanded(self, cls, batch_shape, params, _instance=None, event_shape=EMPTY):
        """torch's expand() of most families: each parameter in __dict__ expanded, validation as self's."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = as_size(batch_shape)
        for name, shape in params.items():
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(as_size(shape(batch_shape))))
        if "_param" in self.__dict__:  # the probs or logits given, expanded
            new._param = new.__dict__["logits" if "logits" in self.__dict__ else "probs"]
        Distribution.__init__(new, batch_shape, event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=EMPTY):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=EMPTY):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return torch.exp(self.entropy())

    def _extended_shape(self, sample_shape=EMPTY):
        return Size(tuple(as_size(sample_shape)) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {expected_shape}.")
        support = self.support
        if not all_true(support.check(value)):
            raise ValueError("Expected value argument "
                             f"({type(value).__name__} of shape {tuple(value.shape)}) "
                             f"to be within the support ({support!r}) "
                             f"of the distribution {self!r}, "
                             f"but found invalid values:\n{value}")

    def __repr__(self):
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"


Distribution.__module__ = "torch.distributions.distribution"


# ---------------------------------------------------------------------------- Categorical

class Categorical(Distribution):
    arg_constraints = {"probs": simplex, "logits": real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        def param_shape(b):
            return tuple(b) + (self._num_events,)

        new = self._expanded(Categorical, batch_shape, {"probs": param_shape, "logits": param_shape}, _instance)
        new._num_events = self._num_events
        return new

    @property
    def support(self):
        return integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    def sample(self, sample_shape=EMPTY):
        sample_shape = as_size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = torch.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torch.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = torch.finfo(self.logits.dtype).min
        logits = torch.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        values = torch.arange(self._num_events, dtype=torch.long, device=self._param.device)
        return enumerated(values, self._batch_shape, expand)


Categorical.__module__ = "torch.distributions.categorical"


class CategoricalFamily(Distribution):
    """A family over a Categorical of its probs or logits (OneHotCategorical, Multinomial, ExpRelaxedCategorical),
    whose parameters are the Categorical's: the block torch writes in each."""

    arg_constraints = {"probs": simplex, "logits": real_vector}

    def _init_categorical(self, probs, logits, validate_args):
        self._categorical = Categorical(probs, logits)
        Distribution.__init__(self, self._categorical.batch_shape, self._categorical.param_shape[-1:],
                              validate_args=validate_args)

    def _expanded_categorical(self, cls, batch_shape, _instance):
        new = self._get_checked_instance(cls, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, as_size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape


# ---------------------------------------------------------------------------- Normal

class LocationFamily(Distribution):
    """A family whose mean and mode are its location parameter (Normal, Laplace, MultivariateNormal)."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


class ExponentialFamily(Distribution):
    """torch's base of the exponential families (Bernoulli, Beta, ContinuousBernoulli, Dirichlet, Exponential,
    Gamma, Normal, Poisson). Each of them here has its own entropy and same-family KL, which torch reaches before
    its Bregman forms, so what the base holds is torch's: the name (isinstance, kl_divergence's cross-family error)
    and the generic entropy, whose first step (_mean_carrier_measure) Poisson lacks."""

    def entropy(self):
        raise NotImplementedError


ExponentialFamily.__module__ = "torch.distributions.exp_family"


class LocScaleFamily(LocationFamily):
    """A real family of a location and a positive scale (Normal, Laplace, Cauchy), made alike in torch."""

    arg_constraints = {"loc": real, "scale": positive}
    support = real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = Size() if is_number(loc) and is_number(scale) else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)


class Normal(LocScaleFamily, ExponentialFamily):
    def expand(self, batch_shape, _instance=None):
        return self._expanded(Normal, batch_shape, {"loc": tuple, "scale": tuple}, _instance)

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        eps = torch.empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * torch.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + torch.log(self.scale)


Normal.__module__ = "torch.distributions.normal"


# ---------------------------------------------------------------------------- Bernoulli

class BinaryProbsLogits(Distribution):
    """A family of one event's probability given as probs or logits (Bernoulli, Binomial, Geometric,
    NegativeBinomial, ContinuousBernoulli, LogitRelaxedBernoulli): the block torch writes in each."""

    arg_constraints = {"probs": unit_interval, "logits": real}

    def _probs_or_logits(self, probs, logits, *others):
        """Keeps the one given broadcast with others (in torch's order: others first) as it and _param;
        returns the broadcast others."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        *others, param = broadcast_all(*others, given)
        self.__dict__[name] = self._param = param
        return others

    def _batch_of_given(self, probs, logits):
        given = probs if probs is not None else logits
        return Size() if is_number(given) else self._param.size()

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)



class ProbsLogitsFamily(BinaryProbsLogits):
    """The BinaryProbsLogits families that show param_shape (all but Geometric, as torch)."""

    @property
    def param_shape(self):
        return self._param.size()


def enumerated(values, batch_shape, expand):
    """enumerate_support's values along a new first dim, viewed (expanded when asked) over the batch."""
    values = values.view((-1,) + (1,) * len(batch_shape))
    if expand:
        values = values.expand((-1,) + tuple(batch_shape))
    return values


class Bernoulli(ProbsLogitsFamily, ExponentialFamily):
    support = boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._probs_or_logits(probs, logits)
        super().__init__(self._batch_of_given(probs, logits), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Bernoulli, batch_shape, {"probs": tuple, "logits": tuple}, _instance)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(shape))

    def enumerate_support(self, expand=True):
        return enumerated(torch.arange(2, dtype=self._param.dtype, device=self._param.device), self._batch_shape,
                          expand)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -torch.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return torch.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


Bernoulli.__module__ = "torch.distributions.bernoulli"
