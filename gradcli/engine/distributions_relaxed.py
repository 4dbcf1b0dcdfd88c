"""torch.distributions RelaxedBernoulli and RelaxedOneHotCategorical with their bases LogitRelaxedBernoulli and
ExpRelaxedCategorical, ported from torch/distributions/relaxed_bernoulli.py and relaxed_categorical.py (2.13) step
for step: torch.rand clamped to (eps, 1 - eps), the logistic or Gumbel noise and the temperature as torch computes
them, then SigmoidTransform or ExpTransform, so that samples come from torch's stream and rsample's graph is torch's.
"""
from __future__ import annotations

from . import api as torch
from .distributions import EMPTY, CategoricalFamily, ProbsLogitsFamily, broadcast_all, clamp_probs
from .distributions_constraints import real, real_vector, simplex, unit_interval
from .distributions_transformed import TransformedDistribution
from .distributions_transforms import ExpTransform, SigmoidTransform

NAMES = ("LogitRelaxedBernoulli", "RelaxedBernoulli", "ExpRelaxedCategorical", "RelaxedOneHotCategorical")
SUBMODULE_ONLY = ("LogitRelaxedBernoulli", "ExpRelaxedCategorical")  # not in torch.distributions itself


class LogitRelaxedBernoulli(ProbsLogitsFamily):
    support = real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._probs_or_logits(probs, logits)
        super().__init__(self._batch_of_given(probs, logits), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LogitRelaxedBernoulli, batch_shape, {"probs": tuple, "logits": tuple}, _instance)
        new.temperature = self.temperature
        return new

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


class RelaxedFamily(TransformedDistribution):
    """RelaxedBernoulli and RelaxedOneHotCategorical: a relaxed base through one transform, whose temperature,
    logits and probs are the base's."""

    has_rsample = True

    def expand(self, batch_shape, _instance=None):
        # type(self) is the family: scripts cannot derive from the engine's distributions
        new = self._get_checked_instance(type(self), _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class RelaxedBernoulli(RelaxedFamily):
    arg_constraints = {"probs": unit_interval, "logits": real}
    support = unit_interval

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)


RelaxedBernoulli.__module__ = "torch.distributions.relaxed_bernoulli"


class ExpRelaxedCategorical(CategoricalFamily):
    support = real_vector  # the true support is a submanifold of this
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._init_categorical(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded_categorical(ExpRelaxedCategorical, batch_shape, _instance)
        new.temperature = self.temperature
        return new

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


class RelaxedOneHotCategorical(RelaxedFamily):
    arg_constraints = {"probs": simplex, "logits": real_vector}
    support = simplex

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)


RelaxedOneHotCategorical.__module__ = "torch.distributions.relaxed_categorical"
