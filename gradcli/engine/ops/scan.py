"""Scans and selecting reductions: cumsum, cumprod, logcumsumexp, cummax/cummin, sort/argsort/msort,
topk, kthvalue, median, mode, aminmax, count_nonzero, var_mean/std_mean, nansum/nanmean, and
torch.linalg.norm / matrix_norm over the vector norm of reduction.py.

The (values, indices) results are torch.return_types named tuples; the gradient of a selecting
reduction goes to the selected index (scatter), of median/aminmax without dim evenly to the ties.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from .. import dtypes, errors, numerics, variance
from ..limits import check_numel
from ..autograd import SavedValue, no_grad
from ..function import Function, MultiOutputFunction, record, record_multi
from ..tensor import Tensor, wrap_dim, wrap
from . import elementwise as E
from . import indexing as I
from . import reduction as R
from . import replays
from .reduction import RETURN_TYPES, return_type
from .registry import Sample, V, case, op, tables
from .special import inplace_method
from .elementwise import sgn
from .shape import expand, flip, sum_to, unsqueeze
from ..device import asarray as _asarray
from ..device import xp_of
from ..device import host, like, on_host

AminmaxResult = return_type("aminmax", ("min", "max"))
SlogdetResult = return_type("linalg_slogdet", ("sign", "logabsdet"))


def _missing(name, arg):
    return errors.type_error(f'{name}() missing 1 required positional arguments: "{arg}"')


def _zeros(shape, dt, ref):
    return wrap(xp_of(ref).zeros(shape, dt.np), dt)


def _dim_of(input, dim):
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
    """The accumulation type of torch's CPU scans (at::acc_type): double for float and half."""
    return np.float64 if dt.is_floating_point else dt.np


def cumsum(input, dim=None, *, dtype=None):
    if dim is None:
        raise _missing("cumsum", "dim")
    dt = _int_result(input.dtype, dtype)
    d = _dim_of(input, dim)
    data = input._data
    if data.ndim:
        r = np.cumsum(data, axis=d, dtype=_acc(dt)).astype(dt.np, copy=False)
        if r.dtype.kind == "f":
            r += 0.0  # torch's scan starts from +0.: a -0. comes out as 0.
    else:
        r = data.astype(dt.np, copy=True)  # a 0-d tensor is copied as it is
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
        # with zeros: grad_i = sum_{j>=i} g_j * prod_{k<=j, k!=i} x_k, built from Tensor ops
        n = x._data.shape[d]
        total = None
        for i in range(n):
            shape = [1] * x._data.ndim
            shape[d] = n
            at_i = np.zeros(shape, bool)
            at_i.reshape(-1)[i] = True
            after = np.zeros(shape, bool)
            after.reshape(-1)[i:] = True
            at_i, after = like(x._data, at_i), like(x._data, after)
            xi = E.where(wrap(at_i, dtypes.bool_), 1.0, x)
            term = E.where(wrap(after, dtypes.bool_), g * cumprod(xi, d), 0.0)
            part = E.where(wrap(at_i, dtypes.bool_), R.sum(term, dim=d, keepdim=True), 0.0)
            total = part if total is None else total + part
        return (total,)


def cumprod(input, dim=None, *, dtype=None):
    if dim is None:
        raise _missing("cumprod", "dim")
    dt = _int_result(input.dtype, dtype)
    d = _dim_of(input, dim)
    data = input._data
    if data.ndim:
        r = np.cumprod(data, axis=d, dtype=_acc(dt)).astype(dt.np, copy=False)
    else:
        r = data.astype(dt.np, copy=True)
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
        log_abs = E.log(E.abs(g))
        parts = []
        for mask in (E.gt(g, 0), E.lt(g, 0)):
            t = E.where(mask, log_abs, lowest) - out
            parts.append(E.exp(flip(logcumsumexp(flip(t, [d]), d), [d]) + x))
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
    d = _dim_of(input, dim)
    data = input._data
    # CuPy has no logaddexp.accumulate: on the GPU it runs on the host
    r = on_host(lambda a: _logcumsumexp_array(a, d), data) if data.ndim else data.copy()
    return record(LogcumsumexpBackward0, (input,), wrap(_asarray(r), input.dtype), {"dim": d})


# ---------------------------------------------------------------------------- value-selecting reductions

def _select_grad(g, dim, indices, in_shape, keepdim):
    """The gradient of values picked at `indices` along dim: scattered into zeros."""
    if len(in_shape) == 0:
        return g
    if not keepdim:
        g = unsqueeze(g, dim)
        indices = unsqueeze(indices, dim)
    return I.scatter(_zeros(in_shape, g.dtype, g._data), dim, indices, g)


class _SelectMultiBackward(MultiOutputFunction):
    """The (values, indices) node: only the values output is differentiable."""
    __slots__ = ()
    explain = "1 at the selected elements of {a} (the indices), 0 elsewhere"
    explain_factor = False
    replay = staticmethod(replays.by_indices)

    def backward(self, grads):
        k = self._kw
        return (_select_grad(grads[0], k["dim"], k["indices"], k["in_shape"], k["keepdim"]),)


class SortBackward0(_SelectMultiBackward):
    __slots__ = ()


class SortBackward1(_SelectMultiBackward):
    __slots__ = ()


class TopkBackward0(_SelectMultiBackward):
    __slots__ = ()


class KthvalueBackward0(_SelectMultiBackward):
    __slots__ = ()


class MedianBackward1(_SelectMultiBackward):
    __slots__ = ()


class ModeBackward0(_SelectMultiBackward):
    __slots__ = ()


class CummaxBackward0(_SelectMultiBackward):
    __slots__ = ()
    explain = "1 at the position of each running extreme of {a} (summed), 0 elsewhere"

    def backward(self, grads):
        k = self._kw
        g = grads[0]
        if len(k["in_shape"]) == 0:
            return (g,)
        return (I.scatter_add(_zeros(k["in_shape"], g.dtype, g._data), k["dim"], k["indices"], g),)


class CumminBackward0(CummaxBackward0):
    __slots__ = ()


def _pair(name, cls, input, values, indices, kw):
    vals = wrap(like(input._data, values), input.dtype)
    idx = wrap(like(input._data, indices, np.int64), dtypes.int64)
    kw = dict(kw, indices=idx, in_shape=input._data.shape)
    if input.dtype.is_floating_point:
        record_multi(cls, (input,), [vals, idx], kw)
    return RETURN_TYPES[name]((vals, idx))


def _sort_key(data, descending):
    """An array whose stable ascending argsort is torch's (stable) order: NaN greatest."""
    if data.dtype == np.bool_ or data.dtype.kind in "ui":
        key = data.astype(np.int64)
        return -key if descending else key
    if descending:
        key = -data
        return np.where(np.isnan(data), -np.inf, key), np.isnan(data)
    return data


def _argsort(data, axis, descending):
    if data.dtype.kind == "f" and descending:
        key, nan = _sort_key(data, True)
        # NaN first, then descending values (stable within ties)
        primary = np.where(nan, 0, 1)
        idx = np.argsort(key, axis=axis, kind="stable")
        pk = np.take_along_axis(primary, idx, axis=axis)
        idx = np.take_along_axis(idx, np.argsort(pk, axis=axis, kind="stable"), axis=axis)
        return idx
    return np.argsort(_sort_key(data, descending), axis=axis, kind="stable")


def sort(input, dim=-1, descending=False, stable=None):
    if isinstance(dim, bool):
        raise errors.type_error("sort(): argument 'dim' must be int, not bool")
    data = input._data
    d = _dim_of(input, dim)
    if data.ndim == 0:
        idx = np.zeros((), np.int64)
        values = data.copy()
    else:
        idx = _argsort(data, d, descending)
        if not stable:
            idx = _unstable_sort(data, idx, d, descending)
        values = np.take_along_axis(data, idx, axis=d)
    cls = SortBackward0 if stable is None else SortBackward1
    return _pair("sort", cls, input, values, idx, {"dim": d, "keepdim": True})


def _unstable_sort(data, idx, d, descending):
    """torch.sort without stable=True is std::sort: above 16 elements its order among equal values
    (and NaN) is introsort's (stl_select.sort_row); up to 16 its insertion sort is stable."""
    if type(data) is not np.ndarray or data.shape[d] <= 16 or not data.size:
        return idx
    from ..stl_select import sort_row  # noqa: PLC0415
    return _fix_open_rows(data, idx, d, lambda row: sort_row(row, descending))


def argsort(input, dim=-1, descending=False, stable=False):
    data = input._data
    d = _dim_of(input, dim)
    idx = _argsort(data, d, descending) if data.ndim else xp_of(data).zeros((), np.int64)
    if data.ndim and not stable:
        idx = _unstable_sort(data, idx, d, descending)
    return wrap(_asarray(idx, np.int64), dtypes.int64)


def msort(input):
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):
    if input.dtype is dtypes.bool_:
        raise errors.runtime("topk does not support bool dtypes on CPU")
    data = input._data
    d = _dim_of(input, dim)
    n = data.shape[d] if data.ndim else 1
    if not 0 <= k <= n:
        raise errors.runtime("selected index k out of range")
    if data.ndim == 0:
        return _pair("topk", TopkBackward0, input, data.copy(), np.zeros((), np.int64), {"dim": d, "keepdim": True})
    idx = _argsort(data, d, largest)
    idx = np.take(idx, xp_of(idx).arange(k), axis=d)
    if type(data) is np.ndarray and k and data.size:
        idx = _topk_ties(data, idx, d, k, largest, sorted)
    values = np.take_along_axis(data, idx, axis=d)
    return _pair("topk", TopkBackward0, input, values, idx, {"dim": d, "keepdim": True})


def _topk_ties(data, idx, d, k, largest, sorted_):
    """Rows whose order the sort leaves open (equal values, NaN, or sorted=False) take the positions of
    torch's kernel: libstdc++'s nth_element/sort/partial_sort, emulated step for step (stl_select)."""
    from ..stl_select import topk_row  # noqa: PLC0415
    return _fix_open_rows(data, idx, d, lambda row: topk_row(row, k, largest, sorted_), every=not sorted_)


def _fix_open_rows(data, idx, d, row_fn, every=False):
    """idx (positions along dim d, for each row of data) with the rows that hold equal values or NaN
    (or every row) replaced by row_fn(the row's values as a list): positions, or one position."""
    n = data.shape[d]
    rows = np.moveaxis(data, d, -1).reshape(-1, n)
    if every:
        open_rows = np.arange(rows.shape[0])
    else:
        s = np.sort(rows, axis=1)
        tie = (s[:, 1:] == s[:, :-1]).any(axis=1)
        if rows.dtype.kind == "f":
            tie |= np.isnan(s).any(axis=1)
        open_rows = np.nonzero(tie)[0]
    if not open_rows.size:
        return idx
    moved = np.moveaxis(idx, d, -1)
    out = moved.reshape(rows.shape[0], -1).copy()
    for r in open_rows.tolist():
        out[r] = row_fn(rows[r].tolist())
    return np.moveaxis(out.reshape(moved.shape), -1, d)


def kthvalue(input, k, dim=-1, keepdim=False):
    if input.dtype is dtypes.bool_:
        from .special_common import not_implemented  # noqa: PLC0415
        raise not_implemented("kthvalue_cpu", input.dtype)
    data = input._data
    d = _dim_of(input, dim)
    n = data.shape[d] if data.ndim else 1
    if not 1 <= k <= n:
        raise errors.runtime(f"kthvalue(): selected number k out of range for dimension {d}")
    if data.ndim == 0:
        return _pair("kthvalue", KthvalueBackward0, input, data.copy(), np.zeros((), np.int64),
                     {"dim": d, "keepdim": keepdim})
    idx = np.take(_argsort(data, d, False), xp_of(data).array([k - 1]), axis=d)
    if type(data) is np.ndarray and data.size:  # among equal values: ATen's quick select's choice
        from ..stl_select import kth_row  # noqa: PLC0415
        idx = _fix_open_rows(data, idx, d, lambda row: [kth_row(row, k - 1)])
    values = np.take_along_axis(data, idx, axis=d)
    if not keepdim:
        idx, values = np.squeeze(idx, d), np.squeeze(values, d)
    return _pair("kthvalue", KthvalueBackward0, input, values, idx, {"dim": d, "keepdim": keepdim})


class MedianBackward0(Function):
    """median() of all elements: the gradient is shared evenly among the elements equal to it."""
    __slots__ = ()
    explain = "1 / count at the elements of {a} equal to the median, 0 elsewhere"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(np.sort(xs[0].reshape(-1))[(xs[0].size - 1) // 2])
                                                .reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, out = self.saved
        mask = E.isnan(x) if bool(np.isnan(out._data).any()) else (x == out)
        return (mask * (g / R.sum(mask)),)


def _signed_zero_median(data, r):
    """Which zero ATen's median_impl returns when 0. and -0. meet at the middle: std::nth_element over a
    clone of the input (its memory order), as libstdc++ moves the elements (stl_select.py)."""
    zeros = np.signbit(data[data == 0])
    if zeros.all() or not zeros.any():
        return r
    from .. import stl_select  # noqa: PLC0415
    values = data.ravel(order="K").tolist()
    q = list(range(len(values)))
    mid = (len(q) - 1) // 2
    stl_select.nth_element(q, 0, mid, len(q), lambda a, b: values[a] < values[b])
    return data.dtype.type(values[q[mid]])


def median(input, dim=None, keepdim=False):
    data = input._data
    if input.dtype is dtypes.bool_:
        from .special_common import not_implemented  # noqa: PLC0415
        raise not_implemented("median_cpu" if dim is None else "median_out", input.dtype)
    if dim is None:
        flat = data.reshape(-1)
        if flat.size == 0:
            r = np.asarray(np.nan, data.dtype)
        elif flat.dtype.kind == "f" and np.isnan(flat).any():
            r = np.asarray(np.nan, data.dtype)
        else:
            r = np.sort(flat, kind="stable")[(flat.size - 1) // 2]
            if r == 0 and flat.dtype.kind == "f":
                r = _signed_zero_median(host(data), r)
        out = wrap(like(data, r, data.dtype), input.dtype)
        if input.dtype.is_floating_point:
            record(MedianBackward0, (input,), out)
        return out
    d = _dim_of(input, dim)
    if data.ndim == 0:
        return _pair("median", MedianBackward1, input, data.copy(), np.zeros((), np.int64),
                     {"dim": d, "keepdim": keepdim})
    n = data.shape[d]
    order = _argsort(data, d, False)
    pos = (n - 1) // 2
    idx = np.take(order, xp_of(order).array([pos]), axis=d)
    if data.dtype.kind == "f":
        nan = np.isnan(data)
        first_nan = np.expand_dims(np.argmax(nan, axis=d), d)
        idx = np.where(np.expand_dims(nan.any(axis=d), d), first_nan, idx)
    values = np.take_along_axis(data, idx, axis=d)
    if not keepdim:
        idx, values = np.squeeze(idx, d), np.squeeze(values, d)
    return _pair("median", MedianBackward1, input, values, idx, {"dim": d, "keepdim": keepdim})


def mode(input, dim=-1, keepdim=False):
    data = input._data
    d = _dim_of(input, dim)
    if data.ndim == 0:
        return _pair("mode", ModeBackward0, input, data.copy(), np.zeros((), np.int64), {"dim": d, "keepdim": keepdim})
    moved = np.moveaxis(host(data), d, -1)  # a loop over rows: on the host
    flat = moved.reshape(-1, moved.shape[-1])
    vals = np.empty(flat.shape[0], data.dtype)
    idxs = np.empty(flat.shape[0], np.int64)
    for r, row in enumerate(flat):
        uniq, counts = np.unique(row, return_counts=True)
        v = uniq[np.argmax(counts)]  # the smallest of the most frequent values
        vals[r] = v
        idxs[r] = np.nonzero(row == v)[0][-1]  # its last occurrence
    shape = moved.shape[:-1]
    vals, idxs = vals.reshape(shape), idxs.reshape(shape)
    if keepdim:
        vals, idxs = np.expand_dims(vals, d), np.expand_dims(idxs, d)
    return _pair("mode", ModeBackward0, input, vals, idxs, {"dim": d, "keepdim": keepdim})


def _cumext(input, dim, is_max):
    data = input._data
    d = _dim_of(input, dim)
    name = "cummax" if is_max else "cummin"
    cls = CummaxBackward0 if is_max else CumminBackward0
    if data.ndim == 0:
        return _pair(name, cls, input, data.copy(), np.zeros((), np.int64), {"dim": d, "keepdim": True})
    moved = np.moveaxis(data, d, -1)
    vals = np.empty_like(moved)
    idxs = xp_of(moved).empty(moved.shape, np.int64)
    n = moved.shape[-1]
    best = moved[..., 0].copy()
    where_best = xp_of(moved).zeros(best.shape, np.int64)
    isf = data.dtype.kind == "f"
    for i in range(n):
        cur = moved[..., i]
        if i:
            better = (cur >= best) if is_max else (cur <= best)
            if isf:
                better = (better | np.isnan(cur)) & ~np.isnan(best)
            best = np.where(better, cur, best)
            where_best = np.where(better, i, where_best)
        vals[..., i] = best
        idxs[..., i] = where_best
    return _pair(name, cls, input, np.moveaxis(vals, -1, d), np.moveaxis(idxs, -1, d), {"dim": d, "keepdim": True})


def cummax(input, dim):
    return _cumext(input, dim, True)


def cummin(input, dim):
    return _cumext(input, dim, False)


class AminmaxBackward0(MultiOutputFunction):
    """(min, max): each gradient shared evenly among the tied extremes."""
    __slots__ = ()
    explain = "1 / count at the elements of {a} equal to the min (the max), 0 elsewhere"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [f(xs[0], axis=replays.dims_of(kw, xs[0]), keepdims=bool(kw.get("keepdim")))
                                                .reshape(o) for f, o in zip((np.amin, np.amax), outs)])
    save_inputs = True

    def backward(self, grads):
        (x,) = self.saved
        k = self._kw
        mn, mx = k["min"], k["max"]
        gmin, gmax = grads
        dims, keepdim = k["dims"], k["keepdim"]
        if not keepdim and x._data.ndim:
            for d in dims:
                gmin, gmax = unsqueeze(gmin, d), unsqueeze(gmax, d)
                mn, mx = unsqueeze(mn, d), unsqueeze(mx, d)
        m1 = x == mn
        m2 = x == mx
        return (m1 * (gmin / R.sum(m1, dim=dims, keepdim=True)) + m2 * (gmax / R.sum(m2, dim=dims, keepdim=True)),)


def aminmax(input, *, dim=None, keepdim=False):
    data = input._data
    if data.size == 0:
        raise errors.runtime("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                             "identity.")
    dims = tuple(range(data.ndim)) if dim is None else (_dim_of(input, dim),)
    if data.ndim:
        lo = data.min(axis=dims, keepdims=keepdim)
        hi = data.max(axis=dims, keepdims=keepdim)
        if data.dtype.kind == "f":
            nan = np.isnan(data).any(axis=dims, keepdims=keepdim)
            lo, hi = np.where(nan, np.nan, lo), np.where(nan, np.nan, hi)
    else:
        lo, hi = data.copy(), data.copy()
    mn = wrap(_asarray(lo, data.dtype), input.dtype)
    mx = wrap(_asarray(hi, data.dtype), input.dtype)
    if input.dtype.is_floating_point:
        kw = {"dims": dims, "keepdim": keepdim, "min": mn.detach(), "max": mx.detach()}
        record_multi(AminmaxBackward0, (input,), [mn, mx], kw)
    return AminmaxResult((mn, mx))


def count_nonzero(input, dim=None):
    data = input._data
    if dim is None:
        r = np.count_nonzero(data)
    else:
        dims = R.reduction_dims(dim, data.ndim)
        r = np.count_nonzero(data, axis=dims) if data.ndim else np.count_nonzero(data)
    return wrap(_asarray(r, np.int64), dtypes.int64)


# ---------------------------------------------------------------------------- var_mean / std_mean, nan-reductions

class VarMeanBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = "2 * ({a} - mean) / (N - correction) for the variance, 1/N for the mean"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: _moments(np.var, xs[0], kw, outs))
    save_inputs = True

    def backward(self, grads):
        (x,) = self.saved
        return (_var_mean_grad(self, x, grads, None),)


class StdMeanBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = "({a} - mean) / ((N - correction) * std) for the deviation, 1/N for the mean"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: _moments(np.std, xs[0], kw, outs))
    save_inputs = True

    def backward(self, grads):
        x, std = self.saved
        return (_var_mean_grad(self, x, grads, std),)


def _var_mean_grad(node, x, grads, std):
    k = node._kw
    dims, n, c, keepdim = k["dims"], k["n"], k["c"], k["keepdim"]
    g_var, g_mean = grads
    if not keepdim and x._data.ndim:
        for d in dims:
            g_var, g_mean = unsqueeze(g_var, d), unsqueeze(g_mean, d)
            if std is not None:
                std = unsqueeze(std, d)
    m = R.mean(x, dim=dims, keepdim=True) if x._data.ndim else x
    denom = builtins.max(n - c, 0)
    if std is not None:  # torch's std_backward: the var gradient g / (2 std), 0 where std is 0
        g_var = E.where(std == 0, 0.0, g_var / (std * 2))
    gx = (2.0 / denom if denom else math.inf) * g_var * (x - m)
    return gx + expand(g_mean / n, x.shape)


def _moments(fn, x, kw, outs):
    """var_mean/std_mean's replay: (fn(x), mean(x)) over the node's dims."""
    axes, keep = tuple(kw["dims"]), bool(kw["keepdim"])
    return [np.asarray(fn(x, axis=axes, ddof=kw["c"], keepdims=keep)).reshape(outs[0]),
            np.asarray(np.mean(x, axis=axes, keepdims=keep)).reshape(outs[1])]


def _var_mean(input, dim, unbiased, keepdim, correction, is_std):
    from ..autograd import no_grad  # noqa: PLC0415
    if isinstance(dim, bool):  # var_mean(x, False): the legacy unbiased positional
        unbiased, dim = dim, None
    if not input.dtype.is_floating_point:
        raise errors.runtime(f"{'std' if is_std else 'var'}_mean only support floating point and complex dtypes")
    dims = R.reduction_dims(dim, input._data.ndim)
    with no_grad():
        v = (R.std if is_std else R.var)(input, dim, unbiased, keepdim, correction=correction)
        m = R.mean(input, dim=dims, keepdim=keepdim) if input._data.ndim else R.mean(input)
    n = 1
    for d in dims:
        n *= input._data.shape[d]
    vd, md = variance.torch_var(input._data, dims, R.correction_of(unbiased, correction), keepdim, is_std, True)
    v, m = wrap(vd, v.dtype), wrap(md, m.dtype)
    kw = {"dims": dims, "keepdim": keepdim, "n": n, "c": R.correction_of(unbiased, correction)}
    record_multi(StdMeanBackward0 if is_std else VarMeanBackward0, (input,), [v, m], kw)
    if is_std and v.grad_fn is not None:
        v.grad_fn._saved = v.grad_fn._saved + (SavedValue(v, True),)  # the backward reads the std
    return v, m


def _float_var(input):
    if not input.dtype.is_floating_point:
        raise errors.runtime("std and var only support floating point and complex dtypes")


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _float_var(input)
    return R.var(input, dim, unbiased, keepdim, correction=correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _float_var(input)
    return R.std(input, dim, unbiased, keepdim, correction=correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean(input, dim, unbiased, keepdim, correction, False)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean(input, dim, unbiased, keepdim, correction, True)


class NansumBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} is not NaN, else 0"
    replay = staticmethod(replays.reduce_kw(lambda x, d, k: np.nansum(x, axis=d, keepdims=k)))
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        k = self._kw
        if not k["keepdim"] and x._data.ndim:
            for d in k["dims"]:
                g = unsqueeze(g, d)
        return (expand(g, x.shape) * E.logical_not(E.isnan(x)),)  # torch's nansum_backward


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    data = input._data
    dt = dtype or R.sum_dtype(input.dtype)
    dims = R.reduction_dims(dim, data.ndim)
    if data.ndim:
        r = np.nansum(data, axis=dims, keepdims=keepdim, dtype=dt.np)
    else:
        # a NaN becomes 0 (nan_to_num would also clip infinities to the largest float)
        r = np.where(np.isnan(data), data.dtype.type(0), data) if data.dtype.kind == "f" else data.copy()
    return record(NansumBackward0, (input,), wrap(_asarray(r, dt.np), dt), {"dims": dims, "keepdim": keepdim})


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not input.dtype.is_floating_point and dtype is None:
        raise errors.runtime(f"nanmean(): expected input to have floating point or complex dtype but got "
                             f"{R.c10(input.dtype)}")
    not_nan = E.logical_not(E.isnan(input))
    return E.div(nansum(input, dim, keepdim, dtype=dtype), R.sum(not_nan, dim=dim, keepdim=keepdim))


# ---------------------------------------------------------------------------- torch.linalg norms

class LinalgVectorNormBackward0(Function):
    """torch's norm_backward, with Tensor ops (so it differentiates again)."""
    __slots__ = ()
    explain = "sign({a}) * |{a}|**(p - 1) / norm**(p - 1) (the p-norm's gradient)"
    explain_factor = False
    replay = staticmethod(replays.vector_norm)
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, norm = self.saved
        k = self._kw
        return (_norm_backward(g, x, norm, k["p"], k["dims"], k["keepdim"]),)


def _norm_backward(g, x, norm, p, dims, keepdim):
    """torch's norm_backward(grad, self, p, norm, dims, keepdim), with Tensor ops."""
    if not keepdim and x._data.ndim:
        for d in dims:
            g = unsqueeze(g, d)
            norm = unsqueeze(norm, d)
    if p == 0.0:
        return None
    if p == 1.0:
        return sgn(x) * g
    if p == 2.0:  # torch: grad * (self / norm).masked_fill_(norm == 0, 0), in this order
        return g * I.masked_fill(x / norm, norm == 0, 0)
    if math.isinf(p):
        mask = E.abs(x) == norm
        count = R.sum(mask, dim=dims, keepdim=True)
        return sgn(x) * (mask * (g / count))
    ax = E.abs(x)
    if p < 1.0:
        scaled = sgn(x) * I.masked_fill(ax ** (p - 1), x == 0, 0)
        return scaled * g * norm ** (1 - p)
    scale = I.masked_fill(g / norm ** (p - 1), norm == 0, 0)
    if p < 2.0:
        return sgn(x) * ax ** (p - 1) * scale
    return x * ax ** (p - 2) * scale


class DistBackward0(Function):
    """torch.dist(self, other, p) = norm(self - other, p): derivatives.yaml's
    self: norm_backward(grad, self - other, p, result), other: its negation (each summed back
    to its input's shape where the subtraction broadcast)."""
    __slots__ = ()
    explain = ("the p-norm's gradient at {pa} - {pb}", "minus the p-norm's gradient at {pa} - {pb}")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: replays.vector_norm([xs[0] - xs[1]], {"p": kw["p"]}, outs))
    save_inputs = True
    save_output = True

    def backward(self, g):
        a, b, norm = self.saved
        diff = a - b
        ga = _norm_backward(g, diff, norm, self._kw["p"], tuple(range(diff._data.ndim)), False)
        if ga is None:
            return None, None
        gb = -ga
        sa, sb = a._data.shape, b._data.shape
        return (ga if ga._data.shape == sa else sum_to(ga, sa)), (gb if gb._data.shape == sb else sum_to(gb, sb))


def dist(input, other, p=2):
    """torch.dist / Tensor.dist: the p-norm of input - other (at::norm of the difference)."""
    if not isinstance(other, Tensor):
        raise errors.type_error(f"dist(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    with no_grad():
        diff = input - other
        if not diff.dtype.is_floating_point:
            raise errors.runtime(f"norm(): input dtype should be either floating point or complex. Got "
                                 f"{R.c10(diff.dtype)} instead.")
        r = vector_norm(diff, p)
    return record(DistBackward0, (input, other), wrap(r._data, r.dtype), {"p": float(p)})


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if isinstance(ord, str):
        raise errors.runtime(f"linalg.vector_norm: ord={ord!r} is not supported for vectors")
    if not x.dtype.is_floating_point:
        raise errors.runtime(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                             f"{R.c10(x.dtype)}")
    dt = dtype or x.dtype
    src = x if dt is x.dtype else x.to(dt)
    data = np.abs(src._data)
    if data.dtype == np.float16:  # ATen's norm kernels accumulate half in float (opmath), rounding once
        data = data.astype(np.float32)
    dims = R.reduction_dims(dim, data.ndim) if not (isinstance(dim, (tuple, list)) and len(dim) == 0) else \
        tuple(range(data.ndim))
    p = float(ord)
    if data.ndim == 0:
        r = data if p != 0 else (data != 0).astype(data.dtype)
    elif p == math.inf:
        r = data.max(axis=dims, keepdims=keepdim)
    elif p == -math.inf:
        r = data.min(axis=dims, keepdims=keepdim)
    elif p == 0:
        r = (data != 0).sum(axis=dims, keepdims=keepdim)
    elif p == 1:
        r = data.sum(axis=dims, keepdims=keepdim)
    elif p == 2:
        r = _norm2_lastdim(data, dims, keepdim) if dtype is None else None
        if r is None:
            r = np.sqrt((data * data).sum(axis=dims, keepdims=keepdim))
    else:
        r = (data ** p).sum(axis=dims, keepdims=keepdim) ** (1.0 / p)
    return record(LinalgVectorNormBackward0, (src,), wrap(_asarray(r, dt.np), dt),
                  {"p": p, "dims": dims, "keepdim": keepdim})


def _norm2_lastdim(data, dims, keepdim):
    """ATen's 2-norm over the innermost dim of a contiguous float tensor (all of it, or its last dim:
    norm_kernel_tensor_iterator_impl's binary_kernel_reduce_lastdim path), in its order: per row, one
    accumulator per SIMD lane adds x * x (each product rounded) chunk after chunk, the lanes are then
    added left to right, the tail one element at a time, then sqrt. None for any other case."""
    if type(data) is not np.ndarray or data.dtype not in (np.float32, np.float64) or not data.flags.c_contiguous \
            or data.size == 0:
        return None
    nd = data.ndim
    dims = tuple(sorted(d % nd for d in dims))
    if not dims or dims != tuple(range(dims[0], nd)):  # the reduced dims must coalesce into the innermost one
        return None
    rows = data.reshape(math.prod(data.shape[:dims[0]]), -1)
    lanes = numerics.VEC_BYTES // data.itemsize
    m, n = rows.shape
    nfull = n - n % lanes
    sq = rows * rows
    acc = np.zeros((m, lanes), data.dtype)
    if nfull:  # cumsum adds strictly in order: the running per-lane sums
        acc = np.cumsum(sq[:, :nfull].reshape(m, nfull // lanes, lanes), axis=1)[:, -1]
    total = np.cumsum(np.concatenate([acc, sq[:, nfull:]], axis=1), axis=1)[:, -1]
    r = np.sqrt(total)
    out_shape = tuple(1 if i in dims else d for i, d in enumerate(data.shape)) if keepdim \
        else tuple(d for i, d in enumerate(data.shape) if i not in dims)
    return r.reshape(out_shape)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    if isinstance(dim, int):
        dim = (dim,)
    if p == "fro" or p is None:
        if dim is not None and len(dim) > 2:
            raise errors.runtime(f"linalg.matrix_norm: dim must be a 2-tuple. Got {', '.join(map(str, dim))}")
        return vector_norm(input, 2, dim, keepdim, dtype=dtype)
    if p == "nuc":
        return matrix_norm(input, "nuc", dim or (-2, -1), keepdim)
    if isinstance(p, str):
        raise errors.runtime(f"norm: p={p!r} is not supported")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if not A.dtype.is_floating_point:
        raise errors.runtime(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                             f"{R.c10(A.dtype)}")
    if A._data.ndim < 2:
        raise errors.runtime("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d0, d1 = (wrap_dim(d, A._data.ndim) for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        raise errors.runtime(f"linalg.matrix_norm: ord={ord!r} needs singular values, which gradcli does not "
                             "compute")
    if ord in (1, -1, float("inf"), float("-inf")):
        # torch's order: the 1-norm along one dim, then amax/amin along the other
        if abs(ord) == float("inf"):
            d0, d1 = d1, d0
        if not keepdim and d0 < d1:
            d1 -= 1
        s = vector_norm(A, 1, d0, keepdim)
        return R.amax(s, d1, keepdim) if ord > 0 else R.amin(s, d1, keepdim)
    raise errors.runtime(f"linalg.matrix_norm: Order {ord} not supported.")


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    nd = A._data.ndim
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim)
    if ord is not None and dim is None:
        if nd == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim)
        if nd != 1:
            raise errors.runtime(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                                 f"{nd}D.")
    if isinstance(ord, str):
        raise errors.runtime(f"linalg.vector_norm: ord={ord!r} is not supported for vectors")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim)


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


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique: always sorted on the CPU (sorted=False too); NaNs stay apart."""
    data = host(input._data)
    if dim is None:
        flat = data.reshape(-1)
        values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
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
    return host(value._data) if hasattr(value, "_data") else np.asarray(value)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """A bool tensor of elements' shape (0-d for a number): which are in test_elements."""
    like_of = elements if hasattr(elements, "_data") else test_elements
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


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
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
    result = np.searchsorted(host(boundaries._data), _array_of(input), side="right" if right else "left")
    dt = dtypes.int32 if out_int32 else dtypes.int64
    return wrap(like(boundaries._data, np.asarray(result, dt.np)), dt)


# ---------------------------------------------------------------------------- declarations

_S1 = [((3,),), ((2, 3),)]
_INT = "an integer or bool result"
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
    op("cummax", cummax, CummaxBackward0, sample=Sample("reduce", args=(0,)),
       cases={"cummax": case(lambda torch, x: torch.cummax(x, 1), V.M23)}),
    op("cummin", cummin, CumminBackward0, sample=Sample("reduce", args=(-1,)),
       cases={"cummin": case(lambda torch, x: torch.cummin(x, 0), V.M23)}),
    op("sort", sort, SortBackward0, SortBackward1, sample=Sample("reduce", args=(-1,), kwargs={"descending": True}),
       cases={"sort": case(lambda torch, x: torch.sort(x, 1, descending=True), V.M23)}),
    op("argsort", argsort, no_grad=_INT),
    op("msort", msort, SortBackward0, sample=Sample("reduce"),
       cases={"msort": case(lambda torch, x0: torch.msort(x0), V.M23)}),
    op("topk", topk, TopkBackward0, sample=Sample(_S1, args=(2,)),
       cases={"topk": case(lambda torch, x: torch.topk(x, 2), V.M23)}),
    op("kthvalue", kthvalue, KthvalueBackward0, sample=Sample(_S1, args=(2, -1)),
       cases={"kthvalue": case(lambda torch, x: torch.kthvalue(x, 2, 1), V.M23)}),
    op("median", median, MedianBackward0, MedianBackward1,
       sample=Sample("reduce", call=lambda torch, x: (x.median(), torch.median(x, -1))),
       cases={"median": case(lambda torch, x0: torch.median(x0), V.M23),
              "median_dim": case(lambda torch, x: torch.median(x, 1), V.M23)}),
    op("mode", mode, ModeBackward0, sample=Sample("reduce", args=(-1,)),
       cases={"mode": case(lambda torch, x: torch.mode(x, 1), V.M23)}),
    op("aminmax", aminmax, AminmaxBackward0, sample=Sample("reduce", kwargs={"dim": -1}),
       cases={"aminmax": case(lambda torch, x: torch.aminmax(x, dim=1), V.M23),
              "aminmax_all": case(lambda torch, x0: torch.aminmax(x0), V.M23)}),
    op("count_nonzero", count_nonzero, no_grad=_INT),
    op("nansum", nansum, NansumBackward0, sample=Sample("reduce"),
       cases={"nansum": case(lambda torch, x0: torch.nansum(x0), V.M23)}),
    op("nanmean", nanmean, sample=Sample("reduce", kwargs={"dim": 0}),
       cases={"nanmean": case(lambda torch, x: torch.nanmean(x, 0), V.M23)}),  # nansum's and div's nodes
    op("norm", norm, LinalgVectorNormBackward0,
       sample=Sample("reduce", call=lambda torch, x: (x.norm(), x.norm(p=1), x.norm(dim=-1), x.norm(p=3))),
       cases={"norm_2": case(lambda torch, x: torch.norm(x, dim=0), V.M23)}),
    op("dist", dist, DistBackward0, sample=Sample([((2, 3), (3,)), ((3,), (2, 1))], call=lambda torch, x, y: (
        torch.dist(x, y), x.dist(y, 3), torch.dist(x, y, 1.5), x.dist(y, float("inf"))))),
    op("var", var, R.VarBackward0,
       sample=Sample(_S1, call=lambda torch, x: (x.var(), x.var(-1, correction=0)))),
    op("std", std, R.StdBackward0,
       sample=Sample([((3,),), ((3, 2),)], call=lambda torch, x: (x.std(), torch.std(x, 0, keepdim=True)))),
    op("var_mean", var_mean, VarMeanBackward0, method=False, sample=Sample(_S1, args=(-1,)),
       cases={"var_mean": case(lambda torch, x: torch.var_mean(x, 1), V.M23)}),
    op("std_mean", std_mean, StdMeanBackward0, method=False, sample=Sample(_S1, args=(-1,)),
       cases={"std_mean": case(lambda torch, x0: torch.std_mean(x0), V.M23)}),
    op("unique", unique, Unique2Backward0, UniqueDimBackward0, no_grad=_RAISES),
    op("unique_consecutive", unique_consecutive, UniqueConsecutiveBackward0, no_grad=_RAISES),
    op("bincount", bincount, BincountNotImplemented, no_grad=_RAISES),
    op("isin", isin, method=False, no_grad=_INT),
    op("searchsorted", searchsorted, method=False, no_grad=_INT),
    op("bucketize", bucketize, method=False, no_grad=_INT),
    # torch.linalg
    op("linalg_norm", linalg_norm, LinalgVectorNormBackward0, method=False, torch=False, linalg="norm",
       sample=Sample("reduce", call=lambda torch, x: (torch.linalg.norm(x), torch.linalg.norm(x, dim=-1)))),
    op("matrix_norm", matrix_norm, LinalgVectorNormBackward0, R.AmaxBackward0, method=False, torch=False,
       linalg=True, sample=Sample([((2, 3),), ((2, 2, 3),)], call=lambda torch, x: (
           torch.linalg.matrix_norm(x), torch.linalg.matrix_norm(x, 1), torch.linalg.matrix_norm(x, float("inf")))),
       cases={"matrix_norm_fro": case(lambda torch, x0: torch.linalg.matrix_norm(x0), V.M23),
              "matrix_norm_1": case(lambda torch, x: torch.linalg.matrix_norm(x, 1), V.M23),
              "matrix_norm_inf": case(lambda torch, x: torch.linalg.matrix_norm(x, float('inf')), V.M23)}),
    op("vector_norm", vector_norm, LinalgVectorNormBackward0, method=False, torch=False, linalg=True,
       sample=Sample("reduce", call=lambda torch, x: (torch.linalg.vector_norm(x, 3),
                                                       torch.linalg.vector_norm(x, 0.5, dim=-1))),
       cases={"vector_norm_3": case(lambda torch, x: torch.linalg.vector_norm(x, 3), V.A),
              "vector_norm_half": case(lambda torch, x: torch.linalg.vector_norm(x, 0.5), V.A),
              "vector_norm_inf": case(lambda torch, x: torch.linalg.vector_norm(x, float('inf'), dim=1), V.M23),
              "vector_norm_1": case(lambda torch, x: torch.linalg.vector_norm(x, 1), V.A)}),
]
_TABLES = tables(OPS, inplace_method)
METHODS = _TABLES["METHODS"]    # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]    # x.name_()
TORCH = _TABLES["TORCH"]        # torch.<name> only
LINALG = _TABLES["LINALG"]      # torch.linalg.<name>
SPECIAL = _TABLES["SPECIAL"]    # torch.special.<name>
