"""The value-selecting reductions, a family next to ops/scan.py (whose helpers it uses): sort, argsort,
msort, topk, kthvalue, median, mode, cummax/cummin, aminmax, count_nonzero, with their declarations
(OPS) and tables. (values, indices) results are torch.return_types named tuples; the gradient of a
selecting op goes to the selected places.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import dtypes, errors
from ..device import asarray as _asarray
from ..device import host, like, xp_of
from ..function import Function, MultiOutputFunction, out_variant, record, record_multi
from ..argcheck import int64_args
from ..tensor import Tensor, wrap
from . import comparison as CP
from . import gather_scatter as GS
from . import reduction as R
from . import replays
from .reduction import RETURN_TYPES
from .registry import Sample, V, case, op, tables
from .scan import INT_RESULT, S1, AminmaxResult, dim_of, zeros_of
from .shape import unsqueeze
from .special_common import inplace_method

# ---------------------------------------------------------------------------- value-selecting reductions

def _select_grad(g, dim, indices, in_shape, keepdim):
    """The gradient of values picked at `indices` along dim: scattered into zeros."""
    if len(in_shape) == 0:
        return g
    if not keepdim:
        g = unsqueeze(g, dim)
        indices = unsqueeze(indices, dim)
    return GS.scatter(zeros_of(in_shape, g.dtype, g._data), dim, indices, g)


class _SelectMultiBackward(MultiOutputFunction):
    """The (values, indices) node: only the values output is differentiable."""
    __slots__ = ()
    saves_in_kw = True
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
        return (GS.scatter_add(zeros_of(k["in_shape"], g.dtype, g._data), k["dim"], k["indices"], g),)


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
    d = dim_of(input, dim)
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


# torch.sort's two signatures, (*, bool stable, int dim, bool descending) and (int dim, bool descending): a
# positional dim (or descending) with stable=, or an argument of another type, fits neither: python_arg_parser's
# error (arg_parser.parser_error; stable may be None: its '?' is not in the signature's text)
def _sort_takes(args, kwargs, method):
    if "axis" in kwargs and "dim" not in kwargs:  # python_arg_parser's numpy alias (x.sort(axis=0))
        kwargs["dim"] = kwargs.pop("axis")
    if len(args) > 2 or (args and "stable" in kwargs):
        return False
    for key in kwargs:
        if key not in ("dim", "descending", "stable") and (method or key != "out"):
            return False
    dim = args[0] if args else kwargs.get("dim", -1)
    descending = args[1] if len(args) > 1 else kwargs.get("descending", False)
    stable = kwargs.get("stable")
    return ((isinstance(dim, (int, np.integer)) and not isinstance(dim, (bool, np.bool_))
             or isinstance(dim, Tensor) and dim._data.ndim == 0 and not dim.dtype.is_floating_point)
            and isinstance(descending, (bool, np.bool_)) and (stable is None or isinstance(stable, (bool, np.bool_))))


def _sort_arguments_error(input, args, kwargs, method):
    from ..arg_parser import parser_error  # noqa: PLC0415 - only for the error
    from ..torch_signatures import METHOD_SIGNATURES, SIGNATURES  # noqa: PLC0415
    if method:
        return parser_error("sort", METHOD_SIGNATURES["sort"], args, kwargs, nullable=("stable",))
    return parser_error("sort", SIGNATURES["sort"], (input, *args), kwargs, nullable=("stable",))


@functools.wraps(sort)
def sort_method(input, *args, **kwargs):
    """Tensor.sort: sort, with torch's TypeError for arguments neither signature takes."""
    if (args or kwargs) and not _sort_takes(args, kwargs, True):
        raise _sort_arguments_error(input, args, kwargs, True)
    return sort(input, *args, **kwargs)


@functools.wraps(sort)
def torch_sort(input, *args, **kwargs):
    """torch.sort: sort, with torch's TypeError for arguments neither signature takes."""
    if (args or kwargs) and not _sort_takes(args, kwargs, False):
        raise _sort_arguments_error(input, args, kwargs, False)
    return sort(input, *args, **kwargs)


def argsort(input, dim=-1, descending=False, stable=False):
    data = input._data
    d = dim_of(input, dim)
    idx = _argsort(data, d, descending) if data.ndim else xp_of(data).zeros((), np.int64)
    if data.ndim and not stable:
        idx = _unstable_sort(data, idx, d, descending)
    return wrap(_asarray(idx, np.int64), dtypes.int64)


def msort(input):
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):
    int64_args(k, dim)
    if input.dtype is dtypes.bool_:
        raise errors.runtime("topk does not support bool dtypes on CPU")
    data = input._data
    d = dim_of(input, dim)
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


def _check_reduced_size(input, dim, name):
    """torch's IndexError for a selection (median, nanmedian, mode, kthvalue) along a dim of size 0."""
    if dim is not None and input._data.ndim:
        d = dim_of(input, dim)
        if input._data.shape[d] == 0:
            raise errors.index(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def kthvalue(input, k, dim=-1, keepdim=False):
    int64_args(k, dim)
    if input.dtype is dtypes.bool_:
        from .special_common import not_implemented  # noqa: PLC0415
        raise not_implemented("kthvalue_cpu", input.dtype)
    _check_reduced_size(input, dim, "kthvalue")
    data = input._data
    d = dim_of(input, dim)
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
        mask = CP.isnan(x) if bool(np.isnan(out._data).any()) else (x == out)
        return (R.evenly_distribute(g, x, mask),)


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


_NAN_AS = {"bool": True, "int8": 0, "uint8": 0, "int16": 0, "int32": -2 ** 31, "int64": -2 ** 63}


def median(input, dim=None, keepdim=False):
    data = input._data
    if dim is None and data.size == 0 and data.dtype.kind != "f":  # ATen's full({}, NAN): x86's NaN to int
        return wrap(like(data, np.asarray(_NAN_AS[input.dtype.name], data.dtype), data.dtype), input.dtype)
    if input.dtype is dtypes.bool_:
        from .special_common import not_implemented  # noqa: PLC0415
        raise not_implemented("median_cpu" if dim is None else "median_out", input.dtype)
    _check_reduced_size(input, dim, "median")
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
    d = dim_of(input, dim)
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


class NanmedianBackward0(MedianBackward0):
    __slots__ = ()


class NanmedianBackward1(MedianBackward1):
    __slots__ = ()


def _c_half(n):
    """(n - 1) / 2 as C++'s integer division (toward zero: 0 for n = 0)."""
    return int((n - 1) / 2)


def nanmedian(input, dim=None, keepdim=False):
    """median without the NaNs (ATen's median_impl / median_with_indices_impl with ignore_nan): the
    lower middle of the other values, NaN where a row holds nothing else."""
    data = input._data
    if input.dtype is dtypes.bool_ and not (dim is None and data.size == 0):
        from .special_common import not_implemented  # noqa: PLC0415
        raise not_implemented("nanmedian_cpu" if dim is None else "nanmedian_out", input.dtype)
    _check_reduced_size(input, dim, "median")  # (torch's message says median() for nanmedian too)
    if data.dtype.kind != "f":
        return median(input, dim, keepdim) if dim is None else _renamed_pair(median(input, dim, keepdim))
    from .. import stl_select  # noqa: PLC0415
    if dim is None:
        flat = host(data).ravel(order="K")
        values = flat.tolist()
        n_ok = len(values) - int(np.isnan(flat).sum())
        if n_ok == 0:
            r = np.asarray(np.nan, data.dtype)
        else:
            q = list(range(len(values)))
            k = _c_half(n_ok)
            stl_select.nth_element(q, 0, k, len(q), lambda a, b: values[a] < values[b] or (
                values[b] != values[b] and values[a] == values[a]))
            r = np.asarray(values[q[k]], data.dtype)
        out = wrap(like(data, r, data.dtype), input.dtype)
        record(NanmedianBackward0, (input,), out)
        return out
    d = dim_of(input, dim)
    if data.ndim == 0:
        return _pair("nanmedian", NanmedianBackward1, input, data.copy(), np.zeros((), np.int64),
                     {"dim": d, "keepdim": keepdim})
    moved = np.moveaxis(host(data), d, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    idx = np.empty(rows.shape[0], np.int64)
    for i, row in enumerate(rows):  # std::nth_element over the positions: ties by position, NaN the greatest
        values = row.tolist()
        q = list(range(len(values)))
        k = _c_half(len(values) - int(np.isnan(row).sum()))
        stl_select.nth_element(q, 0, k, len(q), lambda a, b, v=values: v[a] < v[b] or (v[a] == v[b] and a < b) or (
            v[b] != v[b] and v[a] == v[a]))
        idx[i] = q[k]
    idx = np.moveaxis(idx.reshape(moved.shape[:-1] + (1,)), -1, d)
    values = np.take_along_axis(host(data), idx, axis=d)
    if not keepdim:
        idx, values = np.squeeze(idx, d), np.squeeze(values, d)
    return _pair("nanmedian", NanmedianBackward1, input, values, idx, {"dim": d, "keepdim": keepdim})


def _renamed_pair(pair):
    return RETURN_TYPES["nanmedian"]((pair[0], pair[1]))


def mode(input, dim=-1, keepdim=False):
    _check_reduced_size(input, dim, "mode")
    data = input._data
    d = dim_of(input, dim)
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
    name = "cummax" if is_max else "cummin"
    if data.ndim == 0 and dim not in (0, -1):
        raise errors.index(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    d = dim_of(input, dim)
    cls = CummaxBackward0 if is_max else CumminBackward0
    if data.ndim == 0:
        return _pair(name, cls, input, data.copy(), np.zeros((), np.int64), {"dim": d, "keepdim": True})
    moved = np.moveaxis(data, d, -1)
    vals = np.empty_like(moved)
    idxs = xp_of(moved).empty(moved.shape, np.int64)
    n = moved.shape[-1]
    if n == 0:  # an empty dim: empty values and indices, as torch gives
        return _pair(name, cls, input, data.copy(), xp_of(data).zeros(data.shape, np.int64), {"dim": d, "keepdim": True})
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
    dims = tuple(range(data.ndim)) if dim is None else (dim_of(input, dim),)
    if data.size == 0 and dim is not None and data.ndim and data.shape[dims[0]] == 0:
        raise errors.index(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    if data.size == 0 and (dim is None or not data.ndim):
        raise errors.runtime("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                             "identity.")
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
        # ATen's (self != 0).sum(dims): no dims (dim=()) reduces them all, as sum does
        r = np.count_nonzero(data, axis=dims) if data.ndim and len(dims) else np.count_nonzero(data)
    return wrap(_asarray(r, np.int64), dtypes.int64)


# ---------------------------------------------------------------------------- declarations

OPS = [
    op("cummax", out_variant("cummax", cummax), CummaxBackward0, sample=Sample("reduce", args=(0,)),
       cases={"cummax": case(lambda torch, x: torch.cummax(x, 1), V.M23)}),
    op("cummin", out_variant("cummin", cummin), CumminBackward0, sample=Sample("reduce", args=(-1,)),
       cases={"cummin": case(lambda torch, x: torch.cummin(x, 0), V.M23)}),
    op("sort", sort_method, SortBackward0, SortBackward1, sample=Sample("reduce", args=(-1,), kwargs={"descending": True}),
       cases={"sort": case(lambda torch, x: torch.sort(x, 1, descending=True), V.M23)}),
    op("argsort", argsort, no_grad=INT_RESULT),
    op("msort", msort, SortBackward0, sample=Sample("reduce"),
       cases={"msort": case(lambda torch, x0: torch.msort(x0), V.M23)}),
    op("topk", topk, TopkBackward0, sample=Sample(S1, args=(2,)),
       cases={"topk": case(lambda torch, x: torch.topk(x, 2), V.M23)}),
    op("kthvalue", out_variant("kthvalue", kthvalue), KthvalueBackward0, sample=Sample(S1, args=(2, -1)),
       cases={"kthvalue": case(lambda torch, x: torch.kthvalue(x, 2, 1), V.M23)}),
    op("median", median, MedianBackward0, MedianBackward1,
       sample=Sample("reduce", call=lambda torch, x: (x.median(), torch.median(x, -1))),
       cases={"median": case(lambda torch, x0: torch.median(x0), V.M23),
              "median_dim": case(lambda torch, x: torch.median(x, 1), V.M23)}),
    op("nanmedian", nanmedian, NanmedianBackward0, NanmedianBackward1,
       sample=Sample("reduce", call=lambda torch, x: (x.nanmedian(), torch.nanmedian(x, -1)))),
    op("mode", mode, ModeBackward0, sample=Sample("reduce", args=(-1,)),
       cases={"mode": case(lambda torch, x: torch.mode(x, 1), V.M23)}),
    op("aminmax", aminmax, AminmaxBackward0, sample=Sample("reduce", kwargs={"dim": -1}),
       cases={"aminmax": case(lambda torch, x: torch.aminmax(x, dim=1), V.M23),
              "aminmax_all": case(lambda torch, x0: torch.aminmax(x0), V.M23)}),
    op("count_nonzero", count_nonzero, no_grad=INT_RESULT),
]

_TABLES = tables(OPS, inplace_method)  # its tables (registry.tables): Tensor methods, x.name_(), torch.<name> only, ...
METHODS, INPLACE, TORCH, LINALG, SPECIAL = (_TABLES[k] for k in ("METHODS", "INPLACE", "TORCH", "LINALG", "SPECIAL"))
TORCH["sort"] = torch_sort  # its own error text (above); api.py binds TORCH after METHODS
