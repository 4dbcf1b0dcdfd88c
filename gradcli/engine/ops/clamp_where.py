"""maximum, minimum, where and clamp (clip, clamp_min, clamp_max). One class per PyTorch node: its
forward on arrays and its backward on Tensors."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..autograd import forward_level
from ..autograd_modes import grad_mode
from ..device import asarray as _asarray
from ..device import check_same
from ..function import Function, is_normal, record
from ..limits import LIMITS as _LIMITS
from ..limits import check_broadcast
from ..tensor import Tensor, wrap
from . import replays
from .elementwise_common import (binary, binary_operands, broadcast_error, c10_name, kernel_error,
                                 needs_input_grad, operand, scalar_tensor, shaped)
from .registry import V, case, op, sample1, sample2
from .shape import sum_to


def zero_ties(x, y, r, vectorised):
    """r (np.maximum/minimum/fmax/fmin of x and y) with torch's pick between +0. and -0. where x and y
    are zeros of opposite signs: Vectorized<T>::maximum/minimum (``_mm256_max_ps(a, b)`` and the like,
    the generic vector's ``a > b ? a : b``) give b, the scalar lambdas (``std::max(a, b)``,
    ``std::fmax``) give a. ``vectorised``: the op runs cpu_kernel_vec (maximum, minimum: which elements
    its vector body computes is pow_kernel.vector_mask's loop shape); else cpu_kernel (fmax, fmin)."""
    if r.__class__ is not np.ndarray or r.dtype.kind != "f" or x.__class__ is not np.ndarray:
        return r
    if not (r == 0).any():
        return r
    xb, yb = np.broadcast_arrays(x, y)
    tie = (xb == 0) & (yb == 0) & (np.signbit(xb) != np.signbit(yb))
    if not tie.any():
        return r
    if vectorised:
        from ..pow_kernel import vector_mask  # noqa: PLC0415
        take_b = tie & vector_mask(x, y)
        return np.where(take_b, yb, np.where(tie, xb, r)).astype(r.dtype, copy=False)
    return np.where(tie, xb, r).astype(r.dtype, copy=False)


def _maximum(x, y):
    return zero_ties(x, y, np.maximum(x, y), True)


def _minimum(x, y):
    return zero_ties(x, y, np.minimum(x, y), True)


class MaximumBackward0(Function):
    __slots__ = ()
    explain = ("1 where {a} > {b} (1/2 where equal), else 0", "1 where {b} > {a} (1/2 where equal), else 0")
    save_inputs = True
    forward = staticmethod(_maximum)

    def backward(self, g):
        a, b = self.saved
        # ties split the gradient in half, as torch does; the strictly smaller side gets exactly 0
        # (masked, even where g is inf or NaN); where a NaN takes part both get all of it
        tie = where(a == b, g * 0.5, g)
        return shaped(where(a < b, 0.0, tie), a), shaped(where(b < a, 0.0, tie), b)


class MinimumBackward0(Function):
    __slots__ = ()
    explain = ("1 where {a} < {b} (1/2 where equal), else 0", "1 where {b} < {a} (1/2 where equal), else 0")
    save_inputs = True
    forward = staticmethod(_minimum)

    def backward(self, g):
        a, b = self.saved
        tie = where(a == b, g * 0.5, g)
        return shaped(where(a > b, 0.0, tie), a), shaped(where(b > a, 0.0, tie), b)


def maximum(input, other):
    return binary(MaximumBackward0, input, operand(other))


def minimum(input, other):
    return binary(MinimumBackward0, input, operand(other))


class WhereBackward0(Function):
    """where(cond, a, b): edges a and b (a number is an edge (None, 0)); cond is in kw."""
    __slots__ = ()
    saves_in_kw = True
    explain = ("1 where the condition holds, else 0", "1 where the condition does not hold, else 0")
    replay = staticmethod(lambda xs, kw, outs: [np.broadcast_to(np.where(replays.as_array(kw["cond"]).astype(bool), xs[0], xs[1]),
                                                                 outs[0]).copy()])

    @staticmethod
    def forward(cond, a, b):
        return np.where(cond, a, b)

    def backward(self, g):
        cond = self._kw["cond"]
        a_shape, b_shape = self._kw["shapes"]
        za = sum_to(where(cond, g, 0.0), a_shape) if needs_input_grad(self, 0) else None
        zb = sum_to(where(cond, 0.0, g), b_shape) if needs_input_grad(self, 1) else None
        return za, zb


def where(condition, input=None, other=None):
    if input is None and other is None:
        from .gather_scatter import nonzero  # noqa: PLC0415
        return nonzero(condition, as_tuple=True)
    input, other = operand(input), operand(other)
    dt = dtypes.result_type([x for x in (input, other)])
    x, y = binary_operands(input, other, dt)
    c = condition._data if isinstance(condition, Tensor) else condition
    if isinstance(condition, Tensor) and condition.dtype is not dtypes.bool_:
        raise errors.runtime(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                             f"{c10_name(condition.dtype)}")
    if not (type(c) is type(x) is type(y)):
        ts = [t for t in (condition, input, other) if isinstance(t, Tensor)]
        if len({type(t._data) for t in ts}) > 1:
            check_same(ts)  # CPU 0-d tensors may join cuda ones, as scalars
            c, x, y = (v[()] if type(v) is np.ndarray and v.ndim == 0 else v for v in (c, x, y))
    if _LIMITS["max_elements"] is not None:
        check_broadcast(*(s for s in (np.shape(c), np.shape(x), np.shape(y)) if s))
    try:
        r = np.where(c, x, y)
    except ValueError:  # TensorIterator broadcasts condition, self, other in that order
        raise errors.runtime(errors.broadcast_fold_mismatch([tuple(np.shape(v)) for v in (c, x, y)]),
                             hint="broadcast") from None
    out = wrap(_asarray(r).astype(dt.np, copy=False), dt)
    if (not grad_mode.enabled or not (getattr(input, "_rg", False) or getattr(other, "_rg", False))) \
            and forward_level[0] is None:
        return out
    shapes = (tuple(getattr(input, "shape", ())), tuple(getattr(other, "shape", ())))
    return record(WhereBackward0, (input, other), out, {"cond": condition, "shapes": shapes},
                  normal=is_normal(condition))


def _clamp_forward(x, lo, hi):
    # torch's clamp keeps x where it equals the bound (std::max(x, lo): -0. stays -0. under min=0);
    # NumPy's maximum may return the bound's zero. NaN (of x or of a bound) propagates in both.
    if lo is not None:
        r = np.maximum(x, lo)
        x = np.where(r == x, x, r)
    if hi is not None:
        r = np.minimum(x, hi)
        x = np.where(r == x, x, r)
    return x


class ClampBackward1(Function):
    """clamp with number bounds (in kw): one edge."""
    __slots__ = ()
    explain = "1 where {a} is inside the bounds, else 0"
    save_inputs = True

    @staticmethod
    def forward(x, bounds):
        return _clamp_forward(x, *bounds)

    def backward(self, g):
        (x,) = self.saved
        lo, hi = self._kw["bounds"]
        if lo is None:
            mask = x <= hi
        elif hi is None:
            mask = x >= lo
        else:
            mask = (x >= lo) & (x <= hi)
        return (where(mask, g, 0.0),)


class ClampMinBackward0(ClampBackward1):
    __slots__ = ()
    explain = "1 where {a} is above the bound, else 0"


class ClampMaxBackward0(ClampBackward1):
    __slots__ = ()
    explain = "1 where {a} is below the bound, else 0"


class ClampBackward0(Function):
    """clamp with tensor bounds: edges (self, min, max), a missing bound is (None, 0)."""
    __slots__ = ()
    explain = ("1 where {a} is inside the bounds, else 0", "1 where the lower bound is taken, else 0",
               "1 where the upper bound is taken, else 0")
    save_inputs = True

    @staticmethod
    def forward(x, lo, hi):
        return _clamp_forward(x, lo, hi)

    def backward(self, g):
        x, lo, hi = self.saved
        glo = ghi = None
        if lo is not None and hi is not None:
            gx = where((x >= lo) & (x <= hi), g, 0.0)
            if needs_input_grad(self, 1):
                glo = shaped(where((x < lo) & (lo < hi), g, 0.0), lo)
            if needs_input_grad(self, 2):
                ghi = shaped(where((x > hi) | (hi < lo), g, 0.0), hi)
        elif lo is not None:
            mask = x >= lo
            gx = where(mask, g, 0.0)
            if needs_input_grad(self, 1):
                glo = shaped(where(mask, 0.0, g), lo)
        else:
            mask = x <= hi
            gx = where(mask, g, 0.0)
            if needs_input_grad(self, 2):
                ghi = shaped(where(mask, 0.0, g), hi)
        return (shaped(gx, x), glo, ghi)


class ClampMinBackward1(Function):
    """clamp_min(x, tensor)."""
    __slots__ = ()
    explain = ("1 where {a} >= {b}, else 0", "1 where {b} > {a}, else 0")
    save_inputs = True

    @staticmethod
    def forward(x, lo):
        return np.maximum(x, lo)

    def backward(self, g):
        x, lo = self.saved
        mask = x >= lo
        return (shaped(where(mask, g, 0.0), x),
                shaped(where(mask, 0.0, g), lo) if needs_input_grad(self, 1) else None)


class ClampMaxBackward1(Function):
    """clamp_max(x, tensor)."""
    __slots__ = ()
    explain = ("1 where {a} <= {b}, else 0", "1 where {b} < {a}, else 0")
    save_inputs = True

    @staticmethod
    def forward(x, hi):
        return np.minimum(x, hi)

    def backward(self, g):
        x, hi = self.saved
        mask = x <= hi
        return (shaped(where(mask, g, 0.0), x),
                shaped(where(mask, 0.0, g), hi) if needs_input_grad(self, 1) else None)


def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise errors.runtime("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        min = _as_bound(min, input)
        max = _as_bound(max, input)
        dt = dtypes.result_type([t for t in (input, min, max) if t is not None])
        if dt is dtypes.bool_ and min is not None and max is not None:
            raise kernel_error("clamp_cpu", dt)  # one bound alone goes through clamp_min/max, which take Bool
        data = input._data.astype(dt.np, copy=False)
        lo = min._data if min is not None else None
        hi = max._data if max is not None else None
        check_broadcast(*(np.shape(a) for a in (data, lo, hi) if a is not None))
        try:
            r = _clamp_forward(data, lo, hi)
        except ValueError:
            raise broadcast_error(input, min, max) from None
        out = wrap(_asarray(r).astype(dt.np, copy=False), dt)
        return record(ClampBackward0, (input, min, max), out)
    dt = dtypes.result_type([t for t in (input, min, max) if t is not None])
    _check_scalar_clamp(dt, min, max)
    data = input._data.astype(dt.np, copy=False)
    out = wrap(_asarray(_clamp_forward(data, min, max)).astype(dt.np, copy=False), dt)
    return record(ClampBackward1, (input,), out, {"bounds": (min, max)})


def _check_scalar_clamp(dt, lo, hi):
    """ATen's clamp kernels with number bounds take every type but Bool (the result type: bool bounds
    of a bool tensor); the kernel's name says which bounds were given."""
    if dt is dtypes.bool_:
        which = "clamp" if lo is not None and hi is not None else "clamp_min" if lo is not None else "clamp_max"
        raise kernel_error(f"{which}_scalar_cpu", dt)


def _as_bound(b, like):
    if b is None or isinstance(b, Tensor):
        return b
    return scalar_tensor(b, like)


clip = clamp


def clamp_min(input, min):
    if isinstance(min, Tensor):
        return binary(ClampMinBackward1, input, min)
    dt = dtypes.result_type((input, min))
    _check_scalar_clamp(dt, min, None)
    data = input._data.astype(dt.np, copy=False)
    out = wrap(_asarray(_clamp_forward(data, min, None)).astype(dt.np, copy=False), dt)
    return record(ClampMinBackward0, (input,), out, {"bounds": (min, None)})


def clamp_max(input, max):
    if isinstance(max, Tensor):
        return binary(ClampMaxBackward1, input, max)
    dt = dtypes.result_type((input, max))
    _check_scalar_clamp(dt, None, max)
    data = input._data.astype(dt.np, copy=False)
    out = wrap(_asarray(_clamp_forward(data, None, max)).astype(dt.np, copy=False), dt)
    return record(ClampMaxBackward0, (input,), out, {"bounds": (None, max)})


# ---------------------------------------------------------------------------- declarations

_tip = {"inplace": True, "torch_inplace": True}
# One declaration per op (registry.py), as arithmetic.py's
OPS = [
    op("clamp", clamp, ClampBackward0, ClampBackward1, sample=sample1("any", -1.0, 1.0), **_tip,
       cases={"clamp_tensor": case(lambda torch, x0, x1, x2: torch.clamp(x0, x1, x2), V.A, [0.0] * 5, [0.5] * 5)}),
    op("clip", clamp, ClampBackward0, ClampBackward1, sample=sample2(call=lambda torch, x, y: torch.clip(x, min=y)),
       **_tip),
    op("clamp_min", clamp_min, ClampMinBackward0, ClampMinBackward1, sample=sample2(), **_tip),
    op("clamp_max", clamp_max, ClampMaxBackward0, ClampMaxBackward1, sample=sample1("any", 0.5), **_tip),
    op("maximum", maximum, MaximumBackward0, sample=sample2()),
    op("minimum", minimum, MinimumBackward0, sample=sample2()),
    # x.where(cond, y), and torch.where(cond, x, y): two functions of one name (the condition comes first in torch's)
    op("where", lambda self, cond, other: where(cond, self, other), WhereBackward0, torch=False,
       sample=sample2(call=lambda torch, x, y: x.where(x > y, y))),
    op("where", where, WhereBackward0, method=False, key="torch.where",
       sample=sample2(call=lambda torch, x, y: torch.where(x > y, x, y)),
       cases={"where_scalar": case(lambda torch, x: torch.where(x > 0, x, 0.5), V.M23)}),
]
