"""Comparison and logic: eq ... ge, the logical and bitwise ops (shifts included), isnan, isinf,
isfinite, equal, allclose, isclose. No gradient: their results are bool (or integer) tensors."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..device import asarray as _asarray
from ..tensor import Tensor, wrap
from .elementwise_common import (binary_operands, broadcast_error, c10_name, check_devices, check_size, coerce,
                                 kernel_error, on_one_device, operand)
from .registry import op


def _compare(ufunc, a, b):
    b = operand(b)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        check_devices(a, b)
    dt = dtypes.result_type((a, b))
    x, y = binary_operands(a, b, dt)
    if type(x) is not type(y):
        x, y = on_one_device(x, y)
    check_size(x, y)
    try:
        r = ufunc(x, y)
    except ValueError:
        raise broadcast_error(a, b) from None
    return wrap(r, dtypes.bool_)


def eq(input, other):
    return _compare(np.equal, input, other)


def ne(input, other):
    return _compare(np.not_equal, input, other)


def lt(input, other):
    return _compare(np.less, input, other)


def le(input, other):
    return _compare(np.less_equal, input, other)


def gt(input, other):
    return _compare(np.greater, input, other)


def ge(input, other):
    return _compare(np.greater_equal, input, other)


less, less_equal, greater, greater_equal, not_equal = lt, le, gt, ge, ne


def _bitwise(ufunc, a, b, name):
    b = operand(b)
    dt = dtypes.result_type((a, b))
    if dt.is_floating_point:
        try:  # TensorIterator's broadcast comes before the kernel's dtype error
            np.broadcast_shapes(np.shape(a._data if isinstance(a, Tensor) else a),
                               np.shape(b._data if isinstance(b, Tensor) else b))
        except ValueError:
            raise broadcast_error(a, b) from None
        raise kernel_error(f"{name}_cpu", dt)
    x, y = binary_operands(a, b, dt)
    check_size(x, y)
    try:
        r = ufunc(x, y)
    except ValueError:
        raise broadcast_error(a, b) from None
    return wrap(_asarray(r).astype(dt.np, copy=False), dt)


def bitwise_and(input, other):
    return _bitwise(np.bitwise_and, input, other, "bitwise_and")


def bitwise_or(input, other):
    return _bitwise(np.bitwise_or, input, other, "bitwise_or")


def bitwise_xor(input, other):
    return _bitwise(np.bitwise_xor, input, other, "bitwise_xor")


def _shift(a, b, name, left):
    """torch's << and >> on integer tensors: a count outside [0, bits) gives 0 (<<) or the sign (>>)."""
    b = operand(b)
    dt = dtypes.result_type((a, b))
    x, y = binary_operands(a, b, dt)
    try:  # TensorIterator's broadcast first, then the kernel's dtype
        np.broadcast_shapes(np.shape(x), np.shape(y))
    except ValueError:
        raise broadcast_error(a, b) from None
    if dt.is_floating_point or dt is dtypes.bool_:
        raise kernel_error(name, dt)
    check_size(x, y)
    out_of_range = (y < 0) | (y >= dt.np.itemsize * 8)
    count = np.where(out_of_range, 0, y).astype(dt.np, copy=False)
    if left:
        r = np.where(out_of_range, 0, np.left_shift(x, count))
    else:
        r = np.where(out_of_range, np.where(x < 0, -1, 0), np.right_shift(x, count))
    return wrap(_asarray(r).astype(dt.np, copy=False), dt)


def bitwise_left_shift(input, other):
    return _shift(input, other, "lshift_cpu", True)


def bitwise_right_shift(input, other):
    return _shift(input, other, "rshift_cpu", False)


def bitwise_not(input):
    if input.dtype.is_floating_point:
        raise kernel_error("bitwise_not_cpu", input.dtype)
    return wrap(_asarray(np.invert(input._data)), input.dtype)


def logical_not(input):
    return wrap(_asarray(np.logical_not(input._data)), dtypes.bool_)


def logical_and(input, other):
    return _compare(np.logical_and, input, other)


def logical_or(input, other):
    return _compare(np.logical_or, input, other)


def logical_xor(input, other):
    return _compare(np.logical_xor, input, other)


def isnan(input):
    return wrap(_asarray(np.isnan(input._data)), dtypes.bool_)


def isinf(input):
    return wrap(_asarray(np.isinf(input._data)), dtypes.bool_)


def isfinite(input):
    return wrap(_asarray(np.isfinite(input._data)), dtypes.bool_)


def equal(input, other):
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


def _check_close_dtypes(input, other):
    """isclose/allclose compare two tensors of one dtype (no promotion): torch's 'Float did not match Double'."""
    if isinstance(other, Tensor) and other.dtype is not input.dtype:
        raise errors.runtime(f"{c10_name(input.dtype)} did not match {c10_name(other.dtype)}")


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _check_close_dtypes(input, other)
    try:
        return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))
    except ValueError:  # isclose's `self == other`: TensorIterator's broadcast error
        raise broadcast_error(input, other) from None


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _check_close_dtypes(input, other)
    try:
        r = np.isclose(input._data, coerce(other)._data if isinstance(other, Tensor) else other,
                       rtol=rtol, atol=atol, equal_nan=equal_nan)
    except ValueError:  # `self == other`: TensorIterator's broadcast error
        raise broadcast_error(input, other) from None
    return wrap(_asarray(r), dtypes.bool_)


# ---------------------------------------------------------------------------- declarations

_BOOL = "a bool or integer result"
_ip = {"inplace": True}
# One declaration per op (registry.py), as arithmetic.py's
OPS = [
    # x.eq_(y) ...: x gets 0/1 in its own dtype (inplace_kinds.py's wrappers: registry.INPLACE_KINDS)
    op("eq", eq, no_grad=_BOOL, inplace="compare", operator="=="),
    op("ne", ne, aliases=("not_equal",), no_grad=_BOOL, inplace="compare", operator="!="),
    op("lt", lt, aliases=("less",), no_grad=_BOOL, inplace="compare", operator="<"),
    op("le", le, aliases=("less_equal",), no_grad=_BOOL, inplace="compare", operator="<="),
    op("gt", gt, aliases=("greater",), no_grad=_BOOL, inplace="compare", operator=">"),
    op("ge", ge, aliases=("greater_equal",), no_grad=_BOOL, inplace="compare", operator=">="),
    op("logical_not", logical_not, no_grad=_BOOL, inplace="logical"),
    op("logical_and", logical_and, no_grad=_BOOL, inplace="logical"),
    op("logical_or", logical_or, no_grad=_BOOL, inplace="logical"),
    op("logical_xor", logical_xor, no_grad=_BOOL, inplace="logical"),
    # x.bitwise_and_(y)...: TensorIterator's output checks first (inplace.py's wrapper), then the kernel
    op("bitwise_not", bitwise_not, no_grad=_BOOL, operator="~", **_ip),
    op("bitwise_and", bitwise_and, no_grad=_BOOL, operator="&", reflected=True, **_ip),
    op("bitwise_or", bitwise_or, no_grad=_BOOL, operator="|", reflected=True, **_ip),
    op("bitwise_xor", bitwise_xor, no_grad=_BOOL, operator="^", reflected=True, **_ip),
    op("bitwise_left_shift", bitwise_left_shift, no_grad=_BOOL, operator="<<", **_ip),
    op("bitwise_right_shift", bitwise_right_shift, no_grad=_BOOL, operator=">>", **_ip),
    op("isnan", isnan, no_grad=_BOOL), op("isinf", isinf, no_grad=_BOOL), op("isfinite", isfinite, no_grad=_BOOL),
    op("equal", equal, no_grad=_BOOL), op("allclose", allclose, no_grad=_BOOL), op("isclose", isclose, no_grad=_BOOL),
]
