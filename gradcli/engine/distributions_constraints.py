"""torch.distributions.constraints (2.13), ported from torch/distributions/constraints.py step for step: each
constraint a class named as torch's (its repr the class name without the leading underscore, with its bounds), its
check() torch's expression (so the validation messages and the boolean tensors agree), is_discrete and event_dim;
the public names are torch's instances (real, positive, simplex, ...) and classes (interval, greater_than,
independent, ...). biject_to and transform_to are distributions_registry.py's.
"""
from __future__ import annotations

from . import api as torch, errors

NAMES = ("Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property", "greater_than",
         "greater_than_eq", "independent", "integer_interval", "interval", "half_open_interval", "is_dependent",
         "less_than", "lower_cholesky", "lower_triangular", "MixtureSameFamilyConstraint", "multinomial",
         "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_semidefinite", "positive_definite",
         "positive_integer", "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval")


class Constraint:
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property on an instance, a dependent constraint on its class (a family's support of its parameters)."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _OfBase(Constraint):
    """A constraint made of another (independent, MixtureSameFamilyConstraint), discrete as that one."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise errors.assertion(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete


class _IndependentConstraint(_OfBase):
    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        super().__init__(base_constraint)
        if not isinstance(reinterpreted_batch_ndims, int):
            raise errors.assertion("reinterpreted_batch_ndims must be an int, got "
                                 f"{type(reinterpreted_batch_ndims).__name__}")
        if reinterpreted_batch_ndims < 0:
            raise errors.assertion(f"reinterpreted_batch_ndims must be >= 0, got {reinterpreted_batch_ndims}")
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(tuple(result.shape[:result.dim() - self.reinterpreted_batch_ndims]) + (-1,))
        return result.all(-1)

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(_OfBase):
    """The component's support with the mixture's rightmost batch dimension added back before its check."""

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        unsqueezed_value = value.unsqueeze(-1 - self.event_dim)
        result = self.base_constraint.check(unsqueezed_value)
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        num_dim_to_keep = value.dim() - self.event_dim
        result = result.reshape(tuple(result.shape[:num_dim_to_keep]) + (-1,))
        return result.all(-1)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_constraint!r})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        is_normalized = value.sum(-1).eq(1)
        return is_boolean.all(-1) & is_normalized


class _Bounded(Constraint):
    """The constraints of a lower and/or an upper bound: torch's repr of each names the bounds it has."""

    def __init__(self, lower_bound=None, upper_bound=None):
        if lower_bound is not None:
            self.lower_bound = lower_bound
        if upper_bound is not None:
            self.upper_bound = upper_bound
        super().__init__()

    def __repr__(self):
        bounds = [f"{name}={self.__dict__[name]}" for name in ("lower_bound", "upper_bound") if name in self.__dict__]
        return f"{self.__class__.__name__[1:]}({', '.join(bounds)})"


class _IntegerInterval(_Bounded):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        super().__init__(lower_bound, upper_bound)

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerLessThan(_Bounded):
    is_discrete = True

    def __init__(self, upper_bound):
        super().__init__(upper_bound=upper_bound)

    def check(self, value):
        return (value % 1 == 0) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounded):
    is_discrete = True

    def __init__(self, lower_bound):
        super().__init__(lower_bound)

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    def check(self, value):
        return value == value  # False for NaNs


class _GreaterThan(_Bounded):
    def __init__(self, lower_bound):
        super().__init__(lower_bound)

    def check(self, value):
        return self.lower_bound < value


class _GreaterThanEq(_Bounded):
    def __init__(self, lower_bound):
        super().__init__(lower_bound)

    def check(self, value):
        return self.lower_bound <= value


class _LessThan(_Bounded):
    def __init__(self, upper_bound):
        super().__init__(upper_bound=upper_bound)

    def check(self, value):
        return value < self.upper_bound


class _Interval(_Bounded):
    def __init__(self, lower_bound, upper_bound):
        super().__init__(lower_bound, upper_bound)

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Bounded):
    def __init__(self, lower_bound, upper_bound):
        super().__init__(lower_bound, upper_bound)

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return torch.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


def _lower_triangular_check(value):
    value_tril = value.tril()
    return (value_tril == value).view(tuple(value.shape[:-2]) + (-1,)).min(-1)[0]


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _lower_triangular_check(value)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]
        return _lower_triangular_check(value) & positive_diagonal


class _CorrCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        tol = torch.finfo(value.dtype).eps * value.size(-1) * 10  # 10 is torch's fudge factor
        row_norm = torch.linalg.norm(value.detach(), dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return torch.full(size=tuple(value.shape[:-2]), fill_value=(value.shape[-2] == value.shape[-1]),
                          dtype=torch.bool, device=value.device)


class _Symmetric(_Square):
    def check(self, value):
        square_check = super().check(value)
        if not square_check.all():
            return square_check
        return torch.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        sym_check = super().check(value)
        if not sym_check.all():
            return sym_check
        return torch.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        sym_check = super().check(value)
        if not sym_check.all():
            return sym_check
        return torch.linalg.cholesky_ex(value).info.eq(0)


class _Cat(Constraint):
    def __init__(self, cseq, dim=0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise errors.assertion("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        if lengths is None:
            lengths = [1] * len(self.cseq)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise errors.assertion(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        if not (-value.dim() <= self.dim < value.dim()):
            raise errors.assertion(f"dim {self.dim} out of range for value with {value.dim()} dimensions")
        checks = []
        start = 0
        for constr, length in zip(self.cseq, self.lengths):
            checks.append(constr.check(value.narrow(self.dim, start, length)))
            start = start + length
        return torch.cat(checks, self.dim)


class _Stack(Constraint):
    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise errors.assertion("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value):
        if not (-value.dim() <= self.dim < value.dim()):
            raise errors.assertion(f"dim {self.dim} out of range for value with {value.dim()} dimensions")
        vs = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return torch.stack([constr.check(v) for v, constr in zip(vs, self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack

for _cls in (Constraint, _Dependent, _DependentProperty, _OfBase, _Bounded, _IndependentConstraint,
             MixtureSameFamilyConstraint, _Boolean, _OneHot, _IntegerInterval, _IntegerLessThan, _IntegerGreaterThan,
             _Real, _GreaterThan, _GreaterThanEq, _LessThan, _Interval, _HalfOpenInterval, _Simplex, _Multinomial,
             _LowerTriangular, _LowerCholesky, _CorrCholesky, _Square, _Symmetric, _PositiveSemidefinite,
             _PositiveDefinite, _Cat, _Stack):
    _cls.__module__ = "torch.distributions.constraints"
