"""torch.distributions Gamma and Chi2, ported from torch/distributions/gamma.py and chi2.py (2.13) step for step:
rsample is torch._standard_gamma (engine/rng_samplers.py: ATen's sample_gamma on torch's stream, its
StandardGammaBackward0 with ATen's standard_gamma_grad_one) divided by the rate, clamped in place to the dtype's
tiny as torch does; log_prob, entropy and the moments are torch's expressions. cdf calls torch.special.gammainc,
as torch, which the engine has only where that special function is implemented.
"""
from __future__ import annotations

from . import api as torch
from .distributions import EMPTY, ExponentialFamily, broadcast_all, is_number
from .distributions_constraints import nonnegative, positive
from .rng_samplers import standard_gamma
from .size import Size

NAMES = ("Gamma", "Chi2")


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": positive, "rate": positive}
    support = nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = is_number(concentration) and is_number(rate)
        super().__init__(Size() if scalar else self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Gamma, batch_shape, {"concentration": tuple, "rate": tuple}, _instance)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=EMPTY):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=torch.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        value = torch.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (torch.xlogy(self.concentration, self.rate) + torch.xlogy(self.concentration - 1, value)
                - self.rate * value - torch.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - torch.log(self.rate) + torch.lgamma(self.concentration)
                + (1.0 - self.concentration) * torch.digamma(self.concentration))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torch.special.gammainc(self.concentration, self.rate * value)


Gamma.__module__ = "torch.distributions.gamma"


class Chi2(Gamma):
    arg_constraints = {"df": positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._get_checked_instance(Chi2, _instance))

    @property
    def df(self):
        return self.concentration * 2


Chi2.__module__ = "torch.distributions.chi2"
