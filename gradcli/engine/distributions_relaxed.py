"""torch.distributions RelaxedBernoulli and RelaxedOneHotCategorical with their bases LogitRelaxedBernoulli and
ExpRelaxedCategorical, ported from torch/distributions/relaxed_bernoulli.py and relaxed_categorical.py (2.13) step
for step: torch.rand clamped to (eps, 1 - eps), the logistic or Gumbel noise and the temperature as torch computes
them, then SigmoidTransform or ExpTransform, so that samples come from torch's stream and rsample's graph is torch's.
"""
from __future__ import annotations

from . import api as torch
from .distributions import (EMPTY, Categorical, Distribution, as_size, broadcast_all, clamp_probs, is_number,
                            lazy_property, logits_to_probs, probs_to_logits, real, real_vector, simplex,
                            unit_interval)
from .distributions_transformed import TransformedDistribution
from .distributions_transforms import ExpTransform, SigmoidTransform

NAMES = ("LogitRelaxedBernoulli", "RelaxedBernoulli", "ExpRelaxedCategorical", "RelaxedOneHotCategorical")
SUBMODULE_ONLY = ("LogitRelaxedBernoulli", "ExpRelaxedCategorical")  # not in torch.distributions itself


class LogitRelaxedBernoulli(Distribution):
    arg_constraints = {"probs": unit_interval, "logits": real}
    support = real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = is_number(probs)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = is_number(logits)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(as_size(()) if is_scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, instance)
        batch_shape = as_size(batch_shape)
        new.temperature = self.temperature
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def rsample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(torch.rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


LogitRelaxedBernoulli.__module__ = "torch.distributions.relaxed_bernoulli"


class RelaxedBernoulli(TransformedDistribution):
    arg_constraints = {"probs": unit_interval, "logits": real}
    support = unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, instance)
        return super().expand(batch_shape, instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


RelaxedBernoulli.__module__ = "torch.distributions.relaxed_bernoulli"


class ExpRelaxedCategorical(Distribution):
    arg_constraints = {"probs": simplex, "logits": real_vector}
    support = real_vector  # the true support is a submanifold of this
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, instance)
        batch_shape = as_size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(torch.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = torch.full_like(self.temperature, float(K)).lgamma() - self.temperature.log().mul(-(K - 1))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


ExpRelaxedCategorical.__module__ = "torch.distributions.relaxed_categorical"


class RelaxedOneHotCategorical(TransformedDistribution):
    arg_constraints = {"probs": simplex, "logits": real_vector}
    support = simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, instance)
        return super().expand(batch_shape, instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


RelaxedOneHotCategorical.__module__ = "torch.distributions.relaxed_categorical"
