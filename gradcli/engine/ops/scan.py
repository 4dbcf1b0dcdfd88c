"""Scans (cumsum, cumprod, logcumsumexp), unique, unique_consecutive, isin, bincount, searchsorted,
bucketize, and the helpers of its sibling families: selection.py (sort/argsort/msort,
topk, kthvalue, median, mode, cummax/cummin, aminmax, count_nonzero: the value-selecting
reductions) and norms.py (var/std, var_mean/std_mean, nansum/nanmean, dist, torch.linalg.norm /
matrix_norm over the vector norm of reduction.py), each with its declarations and tables.

The (values, indices) results are torch.return_types named tuples; the gradient of a selecting
reduction goes to the selected index (scatter), of median/aminmax without dim evenly to the ties.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..argcheck import int64_args, takes_int, typename
from ..device import asarray as _asarray
from ..device import host, like, on_host, xp_of
from ..function import Function, record
from ..limits import check_numel
from ..tensor import Tensor, wrap, wrap_dim
from . import clamp_where as CW
from . import comparison as CP
from . import unary_math as UM
from . import reduction as R
from .reduction import return_type
from .registry import Sample, V, case, op, tables
from .shape import flip
from .elementwise_common import kernel_error
from .special_common import inplace_method

AminmaxResult = return_type("aminmax", ("min", "max"))
SlogdetResult = return_type("linalg_slogdet", ("sign", "logabsdet"))


def _missing(name, arg):
    return errors.type_error(f'{name}() missing 1 required positional arguments: "{arg}"')


def zeros_of(shape, dt, ref):
    return wrap(xp_of(ref).zeros(shape, dt.np), dt)


def dim_of(input, dim):
    """dim wrapped for input (a 0-d tensor accepts 0 and -1)."""
    return wrap_dim(dim, input._data.ndim)


def _int_result(dt, dtype):
    if dtype is not None:
        return dtype
    return dtypes.int64 if not dt.is_floating_point else dt


def _rev_cumsum(g, d):
    return flip(cumsum(flip(g, d), d), d)


# ---------------------------------------------------------------------------- cumsum / cumprod

class CumsumBackward0(Function):
    __slots__ = ()
    explain = "1 for {a}'s element and every later one along dim (grad summed in reverse)"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.cumsum(xs[0], axis=kw["dim"]).reshape(outs[0])])

    def backward(self, g):
        d = self._kw["dim"]
        if g._data.size <= 1 or g._data.shape[d] == 1:  # torch's cumsum_backward: the trivial case
            return (g,)
        return (_rev_cumsum(g, d),)


def _acc(dt):
    """The accumulation type of torch's CPU scans (at::acc_type<T, false>): double for float and
    double, float for half (a float16 product that overflows float is inf, and inf * 0 nan)."""
    if dt.is_floating_point:
        return np.float32 if dt.np == np.float16 else np.float64
    return dt.np


def cumsum(input, dim=None, *, dtype=None):
    if dim is None:
        raise _missing("cumsum", "dim")
    dt = _int_result(input.dtype, dtype)
    d = dim_of(input, dim)
    data = input._data
    if data.ndim:
        r = np.cumsum(data, axis=d, dtype=_acc(dt)).astype(dt.np, copy=False)
        if r.dtype.kind == "f":
            r += 0.0  # torch's scan starts from +0.: a -0. comes out as 0.
    else:
        r = data.astype(dt.np, copy=True)  # a 0-d tensor is copied as it is
    R.differentiable_out(input, dt)
    return record(CumsumBackward0, (input,), wrap(_asarray(r), dt), {"dim": d})


class CumprodBackward0(Function):
    __slots__ = ()
    explain = "the product of the other elements up to each position (the cumprod Jacobian)"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.cumprod(xs[0], axis=kw["dim"]).reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, out = self.saved
        d = self._kw["dim"]
        if x._data.size <= 1 or x._data.shape[d] == 1:  # torch's cumprod_backward: the trivial cases
            return (g,)
        if not bool((x._data == 0).any()):
            return (_rev_cumsum(g * out, d) / x,)
        from ..autograd_modes import grad_mode  # noqa: PLC0415
        if grad_mode.enabled:
            return (_cumprod_backward_graph(g, x, d),)
        return (_cumprod_backward_zeros(g, x, out, d),)


def _cumprod_backward_zeros(g, x, out, d):
    """torch's cumprod_backward with zeros outside grad mode (O(n), mask gymnastics): before the first
    zero the reversed cumsum of out * g over x, at the first zero the products up to the second."""
    from ..factory import zeros_like  # noqa: PLC0415
    from .gather_scatter import gather  # noqa: PLC0415
    w = out * g
    grad_input = zeros_like(x, dtype=g.dtype)
    csum = cumsum((x == 0), d)
    mask = csum == 0
    grad_input.masked_scatter_(mask, (_rev_cumsum(w.masked_fill(~mask, 0.0), d) / x).masked_select(mask))
    mask = csum == 1
    first = mask.max(d, keepdim=True).indices
    first_mask = zeros_like(mask).scatter_(d, first, True).logical_and_(mask)
    mask = mask & ~first_mask
    before = gather(out, d, (first - 1).relu()).masked_fill(first == 0, 1.0)
    at_zero = (cumprod(x.masked_fill(~mask, 1.0), d) * g.masked_fill(csum != 1, 0.0)).sum(d, keepdim=True) * before
    grad_input.masked_scatter_(first_mask, at_zero.masked_select(first_mask))
    return grad_input


def _cumprod_backward_graph(g, x, d):
    """torch's cumprod_backward with zeros in grad mode (O(n^2), differentiable): for each k, the sum of
    g over j >= k times the products omitting x_k, copied into zeros' slice k (a CopySlices node)."""
    from ..factory import ones, zeros  # noqa: PLC0415
    from .join_split import cat, narrow  # noqa: PLC0415
    n = x._data.shape[d]
    grad_input = zeros(x._data.shape, dtype=g.dtype, device=g.device)
    size = list(x._data.shape)
    size[d] = 1
    one = ones(size, dtype=g.dtype, device=g.device)
    for k in range(n):
        if k == 0:
            omitted = cat([one, cumprod(narrow(x, d, 1, n - 1), d)], d)
        elif k == n - 1:
            omitted = R.prod(narrow(x, d, 0, k), d, True)
        else:
            until = R.prod(narrow(x, d, 0, k), d, True)
            after = cumprod(narrow(x, d, k + 1, n - k - 1), d)
            omitted = cat([until, until.expand_as(after) * after], d)
        grad_input.select(d, k).copy_(R.sum(narrow(g, d, k, n - k) * omitted, dim=d))
    return grad_input


def cumprod(input, dim=None, *, dtype=None):
    if dim is None:
        raise _missing("cumprod", "dim")
    dt = _int_result(input.dtype, dtype)
    d = dim_of(input, dim)
    data = input._data
    if data.ndim:
        r = np.cumprod(data, axis=d, dtype=_acc(dt)).astype(dt.np, copy=False)
    else:
        r = data.astype(dt.np, copy=True)
    R.differentiable_out(input, dt)
    return record(CumprodBackward0, (input,), wrap(_asarray(r), dt), {"dim": d})


class LogcumsumexpBackward0(Function):
    __slots__ = ()
    explain = "exp({a} - result) for each later result along dim (the prefix softmax)"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.logaddexp.accumulate(xs[0], axis=kw["dim"]).reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        """logcumsumexp_backward (FunctionsManual.cpp): the positive and negative parts of g in log
        space, each through a reversed logcumsumexp, so that large inputs give finite gradients."""
        x, out = self.saved
        d = self._kw["dim"]
        if g._data.ndim == 0 or g._data.size == 0:
            return (g,)
        lowest = float(np.finfo(g._data.dtype).min)
        log_abs = UM.log(UM.abs(g))
        parts = []
        for mask in (CP.gt(g, 0), CP.lt(g, 0)):
            t = CW.where(mask, log_abs, lowest) - out
            parts.append(UM.exp(flip(logcumsumexp(flip(t, [d]), d), [d]) + x))
        return (parts[0] - parts[1],)


def _logcumsumexp_array(a, d):
    """ATen's cpu_cum_base_kernel with _log_add_exp_helper: along dim, cum = log1p(exp(min - max)) + max
    of the element and the running value (from -inf), in double (the CPU acc_type of float), glibc's
    exp and log1p; where both are the same infinity the element itself."""
    from ..rng_libm import libm  # noqa: PLC0415
    x = np.moveaxis(a, d, 0).astype(np.float64)
    out = np.empty_like(x)
    cum = np.full(x.shape[1:], -np.inf)
    with np.errstate(all="ignore"):
        for i in range(x.shape[0]):
            xi = x[i]
            nan_y = np.isnan(cum)
            lo = np.where(nan_y, cum, np.minimum(xi, cum))
            hi = np.where(nan_y, cum, np.maximum(xi, cum))
            v = libm("log1p", libm("exp", lo - hi)) + hi
            cum = np.where((lo != hi) | np.isfinite(lo), v, xi)
            out[i] = cum
    return np.moveaxis(out, 0, d).astype(a.dtype)


def logcumsumexp(input, dim=None):
    if dim is None:
        raise _missing("logcumsumexp", "dim")
    if not input.dtype.is_floating_point:
        from .special_common import not_implemented  # noqa: PLC0415
        raise not_implemented("logcumsumexp_out_cpu", input.dtype)
    d = dim_of(input, dim)
    data = input._data
    # CuPy has no logaddexp.accumulate: on the GPU it runs on the host
    r = on_host(lambda a: _logcumsumexp_array(a, d), data) if data.ndim else data.copy()
    return record(LogcumsumexpBackward0, (input,), wrap(_asarray(r), input.dtype), {"dim": d})


# ---------------------------------------------------------------------------- unique

class Unique2Backward0(Function):
    """torch.unique's node (aten::_unique2): torch has no derivative for it."""
    __slots__ = ()
    explain = "none: torch has no derivative for unique"
    no_replay = "its backward raises, as torch's does"
    _op = "_unique2"

    def backward(self, g):
        raise NotImplementedError(f"the derivative for '{self._op}' is not implemented.")


class UniqueDimBackward0(Unique2Backward0):
    __slots__ = ()
    _op = "unique_dim"


class UniqueConsecutiveBackward0(Unique2Backward0):
    __slots__ = ()
    _op = "unique_consecutive"


def _unique_result(cls, input, values, inverse, counts, return_inverse, return_counts):
    values = record(cls, (input,), wrap(like(input._data, values), input.dtype))
    out = (values,)
    if return_inverse:
        out += (wrap(like(input._data, np.asarray(inverse, np.int64)), dtypes.int64),)
    if return_counts:
        out += (wrap(like(input._data, np.asarray(counts, np.int64)), dtypes.int64),)
    return out[0] if len(out) == 1 else out


def _unique_zero(flat):
    """Which of 0. and -0. torch.unique keeps: the first of the zeros after std::sort (libstdc++'s moves,
    stl_select.py; measured against torch on 400 arrays of signed zeros)."""
    signs = np.signbit(flat[flat == 0])
    if signs.all() or not signs.any():
        return flat.dtype.type(-0.0 if signs.all() else 0.0)
    from ..stl_select import sort as stl_sort  # noqa: PLC0415
    values = flat.tolist()
    q = list(range(len(values)))
    stl_sort(q, 0, len(q), lambda a, b: values[a] < values[b])
    return flat.dtype.type(next(values[i] for i in q if values[i] == 0))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique: always sorted on the CPU (sorted=False too); NaNs stay apart."""
    # torch/functional.py passes these on to _unique2 or unique_dim (dim by position, the rest by keyword): its parser's
    # errors (x.unique(sorted=obj) went on)
    parser = "_unique2" if dim is None else "unique_dim"
    if dim is not None and not takes_int(dim):
        raise errors.type_error(f"unique_dim(): argument 'dim' (position 2) must be int, not {typename(dim)}")
    for key, flag in (("sorted", sorted), ("return_inverse", return_inverse), ("return_counts", return_counts)):
        if not isinstance(flag, (bool, np.bool_)):
            raise errors.type_error(f"{parser}(): argument '{key}' must be bool, not {typename(flag)}")
    data = host(input._data)
    if dim is None:
        flat = data.reshape(-1)
        values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
        if values.dtype.kind == "f" and (values == 0).any():
            values[values == 0] = _unique_zero(flat)
        return _unique_result(Unique2Backward0, input, values, inverse.reshape(data.shape), counts,
                              return_inverse, return_counts)
    d = wrap_dim(dim, data.ndim)
    values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True, axis=d)
    return _unique_result(UniqueDimBackward0, input, values, inverse.reshape(-1), counts,
                          return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    data = host(input._data)
    if dim is None:
        moved, shape = data.reshape(-1, 1), data.shape
    else:
        d = wrap_dim(dim, data.ndim)
        moved = np.moveaxis(data, d, 0)
        moved, shape = moved.reshape(moved.shape[0], -1), (data.shape[d],)
    n = moved.shape[0]
    if n:
        change = np.concatenate(([True], np.any(moved[1:] != moved[:-1], axis=1)))
    else:
        change = np.zeros(0, bool)
    starts = np.flatnonzero(change)
    inverse = np.cumsum(change) - 1
    counts = np.diff(np.append(starts, n))
    if dim is None:
        values = data.reshape(-1)[starts]
        cls = UniqueConsecutiveBackward0
    else:
        values = np.take(data, starts, axis=d)
        cls = UniqueConsecutiveBackward0
    return _unique_result(cls, input, values, inverse.reshape(shape), counts, return_inverse, return_counts)


# ---------------------------------------------------------------------------- isin, bincount, searchsorted, bucketize

def _array_of(value):
    return host(value._data) if isinstance(value, Tensor) else np.asarray(value)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """A bool tensor of elements' shape (0-d for a number): which are in test_elements."""
    like_of = elements if isinstance(elements, Tensor) else test_elements
    result = np.isin(_array_of(elements), _array_of(test_elements).reshape(-1), invert=invert)
    return wrap(like(like_of._data, np.asarray(result)), dtypes.bool_)


class BincountNotImplemented(Function):
    """bincount's node with weights that require grad: torch names it NotImplemented."""
    __slots__ = ()
    explain = "none: torch has no derivative for bincount"
    no_replay = "its backward raises, as torch's does"

    def backward(self, g):
        raise errors.runtime("derivative for aten::bincount is not implemented")


BincountNotImplemented.__name__ = BincountNotImplemented.__qualname__ = "NotImplemented"


def bincount(input, weights=None, minlength=0):
    int64_args(minlength)  # the parser's int: 2**64 is its ValueError, not the element limit's
    if input.dtype.category != dtypes.INT:
        from .special_common import not_implemented  # noqa: PLC0415
        raise not_implemented("bincount_cpu", input.dtype)
    data = host(input._data)
    if data.ndim != 1 or (data.size and data.min() < 0):
        raise errors.runtime("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise errors.runtime("minlength should be >= 0")
    check_numel(max(int(minlength), int(data.max()) + 1 if data.size else 0))
    if weights is None:
        return wrap(like(input._data, np.bincount(data, minlength=minlength).astype(np.int64)), dtypes.int64)
    w = host(weights._data)
    if w.ndim != 1 or w.shape[0] != data.shape[0]:
        raise errors.runtime("weights should be 1-d and have the same length as input")
    dt = weights.dtype if weights.dtype in (dtypes.float32, dtypes.float64) else dtypes.float64
    counts = np.bincount(data, weights=w.astype(np.float64), minlength=minlength).astype(dt.np)
    return record(BincountNotImplemented, (weights,), wrap(like(input._data, counts), dt))


def histc(input, bins=100, min=0, max=0):
    """ATen's histogram_histc: the edges [min, max] (the input's own extremes when equal, widened by 1
    when those are equal too), each element inside them binned as int((x - min) * bins / (max - min)) in
    the input's dtype, the last bin closed; no gradient."""
    int64_args(bins)  # the parser's int: 2**64 is its ValueError, not the element limit's
    from .special_common import not_implemented  # noqa: PLC0415
    if not input.dtype.is_floating_point:
        raise not_implemented("linspace_cpu" if input.dtype is dtypes.bool_ else "histogram_cpu", input.dtype)
    if bins <= 0:
        raise errors.runtime(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    check_numel(bins)
    data = host(input._data).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise errors.runtime(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if not lo < hi:
        raise errors.runtime("torch.histc: max must be larger than min")
    t = data.dtype.type  # c10::Half's operators round every step to half (numpy's float16 does too)
    left, right = t(lo), t(hi)
    x = data[(data >= left) & (data <= right)]
    with np.errstate(over="ignore"):
        pos = ((x - left) * t(bins) / (right - left)).astype(np.int64)
    pos[pos == bins] -= 1
    counts = np.bincount(pos, minlength=bins).astype(input.dtype.np)
    return wrap(like(input._data, counts), input.dtype)


def _bool_search(boundaries, values):
    """searchsorted/bucketize of bool boundaries and values (or a bool number): no kernel for their common type."""
    if boundaries.dtype is dtypes.bool_ and (values.__class__ is bool or getattr(values, "dtype", None) is dtypes.bool_):
        raise kernel_error("searchsorted_out_cpu", dtypes.bool_)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    _bool_search(sorted_sequence, input)
    seq = host(sorted_sequence._data)
    if sorter is not None:
        seq = np.take_along_axis(seq, host(sorter._data), axis=-1)
    side = side if side is not None else ("right" if right else "left")
    values = _array_of(input)
    if seq.ndim <= 1:
        result = np.searchsorted(seq, values, side=side)
    else:
        result = np.empty(values.shape, np.int64)
        for idx in np.ndindex(*seq.shape[:-1]):
            result[idx] = np.searchsorted(seq[idx], values[idx], side=side)
    dt = dtypes.int32 if out_int32 else dtypes.int64
    return wrap(like(sorted_sequence._data, np.asarray(result, dt.np)), dt)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    _bool_search(boundaries, input)
    result = np.searchsorted(host(boundaries._data), _array_of(input), side="right" if right else "left")
    dt = dtypes.int32 if out_int32 else dtypes.int64
    return wrap(like(boundaries._data, np.asarray(result, dt.np)), dt)


# ---------------------------------------------------------------------------- declarations

S1 = [((3,),), ((2, 3),)]
INT_RESULT = "an integer or bool result"
_RAISES = "torch records a node whose backward raises (goldens torch_unique_consecutive_backward_error, ...)"
# One declaration per op (registry.py): its names, in-place forms, nodes and gradient-check sample.
OPS = [
    op("cumsum", cumsum, CumsumBackward0, inplace=True, sample=Sample("reduce", args=(0,)),
       cases={"cumsum": case(lambda torch, x: torch.cumsum(x, 1), V.M23)}),
    op("cumprod", cumprod, CumprodBackward0, inplace=True, sample=Sample("reduce", args=(-1,)),
       cases={"cumprod": case(lambda torch, x: torch.cumprod(x, 1), V.M23),
              "cumprod_zeros": case(lambda torch, x: torch.cumprod(x, 1), [[1.0, 0.0, 2.0, 0.5], [0.0, 0.0, 3.0, -1.0]])}),
    op("logcumsumexp", logcumsumexp, LogcumsumexpBackward0, sample=Sample("reduce", args=(0,)),
       cases={"logcumsumexp": case(lambda torch, x: torch.logcumsumexp(x, 1), V.M23)}),
    op("unique", unique, Unique2Backward0, UniqueDimBackward0, no_grad=_RAISES, python_method=True),
    op("unique_consecutive", unique_consecutive, UniqueConsecutiveBackward0, no_grad=_RAISES, python_method=True),
    op("bincount", bincount, BincountNotImplemented, no_grad=_RAISES),
    op("histc", histc, no_grad="torch has no derivative for histc (its result does not require grad)"),
    op("isin", isin, method=False, no_grad=INT_RESULT),
    op("searchsorted", searchsorted, method=False, no_grad=INT_RESULT),
    op("bucketize", bucketize, method=False, no_grad=INT_RESULT),
]
_TABLES = tables(OPS, inplace_method)
METHODS = _TABLES["METHODS"]    # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]    # x.name_()
TORCH = _TABLES["TORCH"]        # torch.<name> only
LINALG = _TABLES["LINALG"]      # torch.linalg.<name>
SPECIAL = _TABLES["SPECIAL"]    # torch.special.<name>
