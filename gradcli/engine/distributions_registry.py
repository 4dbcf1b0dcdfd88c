"""torch.distributions' biject_to and transform_to (torch/distributions/constraint_registry.py, 2.13) with the
transforms their table needs beyond distributions_transforms.py: IndependentTransform, SoftmaxTransform,
LowerCholeskyTransform and PositiveDefiniteTransform (ported from torch/distributions/transforms.py step for step).
The registries are looked up by the constraint's class, as torch's; scripts only call them: registering a factory
would change them for every later run in the process, so register is the engine's (a '_' name).
corr_cholesky, cat and stack have no transform here (their lookup raises torch's NotImplementedError wording).
"""
from __future__ import annotations

from . import api as torch
from .distributions import is_number, sum_rightmost
from .distributions_constraints import (Constraint, greater_than, greater_than_eq, half_open_interval, independent,
                                        interval, less_than, lower_cholesky, nonnegative, positive, positive_definite,
                                        positive_semidefinite, real, real_vector, simplex)
from .distributions_transforms import (AffineTransform, ComposeTransform, ExpTransform, ParameterFreeTransform,
                                       SigmoidTransform, StickBreakingTransform, Transform)

NAMES = ("IndependentTransform", "SoftmaxTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform")


class IndependentTransform(Transform):
    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @property
    def domain(self):
        return independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class SoftmaxTransform(ParameterFreeTransform):
    domain = real_vector
    codomain = simplex

    def _call(self, x):
        logprobs = x
        probs = (logprobs - logprobs.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        probs = y
        return probs.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


class LowerCholeskyTransform(ParameterFreeTransform):
    domain = independent(real, 2)
    codomain = lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(ParameterFreeTransform):
    domain = independent(real, 2)
    codomain = positive_definite

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        y = torch.linalg.cholesky(y)
        return LowerCholeskyTransform().inv(y)


for _cls in (IndependentTransform, SoftmaxTransform, LowerCholeskyTransform, PositiveDefiniteTransform):
    _cls.__module__ = "torch.distributions.transforms"


class ConstraintRegistry:
    """Constraint classes to transform factories; called with a constraint, the factory of its class."""

    def __init__(self):
        self._registry = {}

    def _register(self, constraint, factory):
        if isinstance(constraint, Constraint):  # a singleton instance stands for its class
            constraint = type(constraint)
        self._registry[constraint] = factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


ConstraintRegistry.__module__ = "torch.distributions.constraint_registry"
biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()
identity_transform = ComposeTransform([])


def _transform_to_interval(constraint):
    lower_is_0 = is_number(constraint.lower_bound) and constraint.lower_bound == 0
    upper_is_1 = is_number(constraint.upper_bound) and constraint.upper_bound == 1
    if lower_is_0 and upper_is_1:
        return SigmoidTransform()
    loc = constraint.lower_bound
    scale = constraint.upper_bound - constraint.lower_bound
    return ComposeTransform([SigmoidTransform(), AffineTransform(loc, scale)])


_BOTH = ((real, lambda c: identity_transform), (positive, lambda c: ExpTransform()),
         (nonnegative, lambda c: ExpTransform()),
         (greater_than, lambda c: ComposeTransform([ExpTransform(), AffineTransform(c.lower_bound, 1)])),
         (greater_than_eq, lambda c: ComposeTransform([ExpTransform(), AffineTransform(c.lower_bound, 1)])),
         (less_than, lambda c: ComposeTransform([ExpTransform(), AffineTransform(c.upper_bound, -1)])),
         (interval, _transform_to_interval), (half_open_interval, _transform_to_interval))
for _constraint, _factory in _BOTH:
    biject_to._register(_constraint, _factory)
    transform_to._register(_constraint, _factory)
biject_to._register(independent, lambda c: IndependentTransform(biject_to(c.base_constraint),
                                                                c.reinterpreted_batch_ndims))
transform_to._register(independent, lambda c: IndependentTransform(transform_to(c.base_constraint),
                                                                   c.reinterpreted_batch_ndims))
biject_to._register(simplex, lambda c: StickBreakingTransform())
transform_to._register(simplex, lambda c: SoftmaxTransform())
transform_to._register(lower_cholesky, lambda c: LowerCholeskyTransform())
transform_to._register(positive_definite, lambda c: PositiveDefiniteTransform())
transform_to._register(positive_semidefinite, lambda c: PositiveDefiniteTransform())
