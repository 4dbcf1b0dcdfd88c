"""torch.distributions.Multinomial (torch/distributions/multinomial.py, 2.13), as Dive into Deep
Learning's probability section draws dice rolls with it: sample is total_count Categorical draws
(the same torch.multinomial stream) counted with scatter_add_; log_prob and the entropy (with the
Binomial marginals' log_prob written out, torch's Binomial itself is not here) follow torch's code.
"""
from __future__ import annotations

import math

from . import api as torch
from .distributions import CategoricalFamily, EMPTY, as_size, broadcast_all, probs_to_logits
from .distributions_constraints import multinomial

NAMES = ("Multinomial",)


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Multinomial(CategoricalFamily):
    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._init_categorical(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded_categorical(Multinomial, batch_shape, _instance)
        new.total_count = self.total_count
        return new

    @property
    def support(self):
        return multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=EMPTY):
        sample_shape = as_size(sample_shape)
        samples = self._categorical.sample(as_size((self.total_count,) + tuple(sample_shape)))
        # (total_count, sample_shape, batch_shape) -> (sample_shape, batch_shape, total_count)
        shifted_idx = list(range(samples.dim()))
        shifted_idx.append(shifted_idx.pop(0))
        samples = samples.permute(*shifted_idx)
        counts = torch.zeros(self._extended_shape(sample_shape), dtype=samples.dtype)
        counts.scatter_add_(-1, samples, torch.ones_like(samples))
        return counts.type_as(self.probs)

    def _binomial_log_prob(self, value):
        # torch's Binomial(total_count, probs=self.probs).log_prob, its parameters broadcast as there
        total, probs = broadcast_all(self.total_count, self.probs)
        total = total.type_as(probs)
        logits = probs_to_logits(probs, is_binary=True)
        log_factorial_n = torch.lgamma(total + 1)
        log_factorial_k = torch.lgamma(value + 1)
        log_factorial_nmk = torch.lgamma(total - value + 1)
        normalize_term = (total * _clamp_by_zero(logits) + total * torch.log1p(torch.exp(-torch.abs(logits)))
                          - log_factorial_n)
        return value * logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        n = torch.tensor(self.total_count)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - torch.lgamma(n + 1)
        support = torch.arange(1 + self.total_count, dtype=self.probs.dtype)
        support = support.view((-1,) + (1,) * self.probs.dim())[1:]
        binomial_probs = torch.exp(self._binomial_log_prob(support))
        weights = torch.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = torch.lgamma(value.sum(-1) + 1)
        log_factorial_xs = torch.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -math.inf)] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers


Multinomial.__module__ = "torch.distributions.multinomial"
