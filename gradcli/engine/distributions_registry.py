"""torch.distributions' biject_to and transform_to (torch/distributions/constraint_registry.py, 2.13) with the
transforms their table needs beyond distributions_transforms.py: IndependentTransform, SoftmaxTransform,
LowerCholeskyTransform, PositiveDefiniteTransform, CatTransform, StackTransform and CorrCholeskyTransform (ported from
torch/distributions/transforms.py step for step).
The registries are looked up by the constraint's class, as torch's; scripts only call them: registering a factory
would change them for every later run in the process, so register is the engine's (a '_' name).
"""
from __future__ import annotations

import math

from . import api as torch, errors
from .distributions import is_number, lazy_property, sum_rightmost
from .distributions_constraints import (Constraint, cat, corr_cholesky, greater_than, greater_than_eq, half_open_interval, independent,
                                        interval, less_than, lower_cholesky, nonnegative, positive, positive_definite,
                                        positive_semidefinite, real, real_vector, simplex, stack)
from .distributions_transforms import (AffineTransform, ComposeTransform, ExpTransform, ParameterFreeTransform,
                                       SigmoidTransform, StickBreakingTransform, Transform)

NAMES = ("IndependentTransform", "SoftmaxTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
         "CatTransform", "StackTransform", "CorrCholeskyTransform")


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


def _dim_in_range(dim, tensor, what):
    if not (-tensor.dim() <= dim < tensor.dim()):
        raise errors.assertion(f"dim {dim} out of range for {what} with {tensor.dim()} dimensions")


def _size_is(tensor, dim, size, name, what):
    if tensor.size(dim) != size:
        raise errors.assertion(f"{name}.size({dim}) = {tensor.size(dim)} must equal {what} {size}")


def _cached_parts(tseq, cache_size):
    if not all(isinstance(t, Transform) for t in tseq):
        raise errors.assertion("All elements of tseq must be Transform instances")
    return [t.with_cache(cache_size) for t in tseq] if cache_size else tseq


class CatTransform(Transform):
    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        tseq = _cached_parts(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise errors.assertion(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _map(self, z, name, inverse):
        _dim_in_range(self.dim, z, "tensor")
        _size_is(z, self.dim, self.length, name, "length")
        slices = []
        start = 0
        for trans, length in zip(self.transforms, self.lengths):
            piece = z.narrow(self.dim, start, length)
            slices.append(trans.inv(piece) if inverse else trans(piece))
            start = start + length
        return torch.cat(slices, dim=self.dim)

    def _call(self, x):
        return self._map(x, "x", False)

    def _inverse(self, y):
        return self._map(y, "y", True)

    def log_abs_det_jacobian(self, x, y):
        for z, name in ((x, "x"), (y, "y")):
            _dim_in_range(self.dim, z, name)
            _size_is(z, self.dim, self.length, name, "length")
        logdetjacs = []
        start = 0
        for trans, length in zip(self.transforms, self.lengths):
            logdetjac = trans.log_abs_det_jacobian(x.narrow(self.dim, start, length), y.narrow(self.dim, start, length))
            if trans.event_dim < self.event_dim:
                logdetjac = sum_rightmost(logdetjac, self.event_dim - trans.event_dim)
            logdetjacs.append(logdetjac)
            start = start + length
        dim = self.dim
        if dim >= 0:
            dim = dim - x.dim()
        dim = dim + self.event_dim
        if dim < 0:
            return torch.cat(logdetjacs, dim=dim)
        return sum(logdetjacs)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):
        return cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    def __init__(self, tseq, dim=0, cache_size=0):
        tseq = _cached_parts(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _map(self, z, name, inverse):
        _dim_in_range(self.dim, z, "tensor")
        _size_is(z, self.dim, len(self.transforms), name, "len(transforms)")
        slices = [trans.inv(piece) if inverse else trans(piece) for piece, trans in zip(self._slice(z), self.transforms)]
        return torch.stack(slices, dim=self.dim)

    def _call(self, x):
        return self._map(x, "x", False)

    def _inverse(self, y):
        return self._map(y, "y", True)

    def log_abs_det_jacobian(self, x, y):
        for z, name in ((x, "x"), (y, "y")):
            _dim_in_range(self.dim, z, name)
            _size_is(z, self.dim, len(self.transforms), name, "len(transforms)")
        logdetjacs = [trans.log_abs_det_jacobian(xs, ys)
                      for xs, ys, trans in zip(self._slice(x), self._slice(y), self.transforms)]
        return torch.stack(logdetjacs, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):
        return stack([t.codomain for t in self.transforms], self.dim)


def tril_matrix_to_vec(mat, diag=0):
    """torch.distributions.utils.tril_matrix_to_vec: the lower triangle (below diag) of each matrix, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    arange = torch.arange(n, device=mat.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    return mat[..., tril_mask]


def vec_to_tril_matrix(vec, diag=0):
    """torch.distributions.utils.vec_to_tril_matrix: tril_matrix_to_vec's inverse, zeros elsewhere."""
    # +ve root of D**2 + (1+2*diag)*D - |diag| * (diag+1) - 2*vec.shape[-1] = 0
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = torch.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    arange = torch.arange(n, device=vec.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    mat[..., tril_mask] = vec
    return mat


class CorrCholeskyTransform(Transform):
    domain = real_vector
    codomain = corr_cholesky
    bijective = True

    def _call(self, x):
        x = torch.tanh(x)
        eps = torch.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        z = r ** 2
        z1m_cumprod_sqrt = (1 - z).sqrt().cumprod(-1)
        r = r + torch.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * torch.nn.functional.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - torch.cumsum(y * y, dim=-1)
        y_cumsum_shifted = torch.nn.functional.pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y):
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum_tril.log().sum(-1)
        tanh_logdet = -2 * (x + torch.nn.functional.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        N = D * (D - 1) // 2
        return shape[:-2] + (N,)


for _cls in (IndependentTransform, SoftmaxTransform, LowerCholeskyTransform, PositiveDefiniteTransform, CatTransform,
             StackTransform, CorrCholeskyTransform):
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
for _registry in (biject_to, transform_to):
    _registry._register(corr_cholesky, lambda c: CorrCholeskyTransform())
    _registry._register(cat, lambda c, r=_registry: CatTransform([r(part) for part in c.cseq], c.dim, c.lengths))
    _registry._register(stack, lambda c, r=_registry: StackTransform([r(part) for part in c.cseq], c.dim))
