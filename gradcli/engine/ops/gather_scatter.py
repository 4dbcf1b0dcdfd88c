"""gather, scatter (and its reduce forms), scatter_add, index_select, masked_fill, masked_select,
nonzero and argwhere, with their nodes and declarations (OPS): a family of the core (methods.py
derives its tables), next to ops/indexing.py (x[key], x[key] = v).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..device import asarray as _asarray
from ..device import check_args, xp_of
from ..device import scatter_add as _scatter_add_at
from ..function import Function, is_normal, record
from ..limits import check_numel, check_shape
from ..tensor import Tensor, wrap
from ..warnonce import warn_once
from . import replays
from .indexing import index_backward
from .registry import Sample, V, case, op
from .shape import reshape, sum_to


class IndexAddBackward0(Function):
    """index_add(self, dim, index, source, alpha) (ops/index_ops.py), also index_select's backward, torch's
    zeros.index_add_(dim, index, grad) (edges: the zeros, none, and grad)."""
    __slots__ = ()
    saves_in_kw = (1,)  # the index, for the source's gradient
    explain = ("1", "alpha at the result's rows it was added to")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [replays.index_put(xs[0], kw, xs[1], add=True)])

    def backward(self, g):
        k = self._kw
        g_src = index_select(g, k["dim"], k["index"]) if self._fns[1] is not None else None
        if g_src is not None:
            alpha = k.get("alpha", 1)
            if alpha != 1:
                g_src = g_src * alpha
            shape = k.get("src_shape")
            if shape is not None and shape != g_src._data.shape:
                g_src = reshape(g_src, shape)
        return (g if self._fns[0] is not None else None, g_src)


# ---------------------------------------------------------------------------- gather, scatter, index_select, masked ops

class GatherBackward0(Function):
    """gather(x, dim, index): one edge (the index is in kw)."""
    __slots__ = ()
    saves_in_kw = True
    explain = "1 at each gathered element of {a} (summed where gathered twice), 0 elsewhere"
    explain_factor = False
    save_inputs = True  # derivatives.yaml's gather_backward(grad, self, ...): self is saved (version-checked)
    replay = staticmethod(lambda xs, kw, outs: [np.take_along_axis(xs[0], replays.as_array(kw["index"]).astype(np.int64),
                                                                   axis=kw["dim"]).reshape(outs[0])])

    def backward(self, g):
        k = self._kw
        self.saved  # noqa: B018 - unpacking self checks its version, as torch's SavedVariable does
        from ..factory import zeros  # noqa: PLC0415
        return (scatter_add(zeros(k["in_shape"], dtype=g.dtype, device=g.device), k["dim"], k["index"], g),)


def _check_index_dtype(index, name):
    if index.dtype.name not in ("int64", "int32"):
        raise errors.runtime(f"{name}(): Expected dtype int32/int64 for index")


def _check_index_range(index, size, dim):
    idx = index._data
    if idx.size and (idx.max() >= size or idx.min() < -size):
        bad = int(idx.max()) if idx.max() >= size else int(idx.min())
        raise errors.runtime(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def gather(input, dim, index):
    from ..tensor import wrap_dim  # noqa: PLC0415
    d = wrap_dim(dim, input._data.ndim)
    if type(index._data) is not type(input._data):
        check_args("gather", (("self", input), ("index", index)))
    _check_index_dtype(index, "gather")
    data, idx = input._data, index._data
    if max(data.ndim, 1) != max(idx.ndim, 1):  # gather_shape_check (a 0-d tensor counts as 1-d)
        raise errors.runtime("Index tensor must have the same number of dimensions as input tensor")
    if data.ndim and idx.ndim:  # no dim of index larger than self's but dim
        if any(i != d and idx.shape[i] > data.shape[i] for i in range(data.ndim)):
            bad = next(i for i in range(data.ndim) if i != d and idx.shape[i] > data.shape[i])
            raise errors.runtime(f"Size does not match at dimension {bad} expected index [{', '.join(map(str, idx.shape))}] to be no larger than self "
                                 f"[{', '.join(map(str, data.shape))}] apart from dimension {d}")
    _check_index_range(index, input._data.shape[d] if input._data.ndim else 1, d)
    if input._data.ndim == 0:  # a 0-d input is one element along dim 0
        if index._data.ndim > 1:
            raise errors.runtime("Index tensor must have the same number of dimensions as input tensor")
        r = input._data.reshape(1)[index._data]
    elif idx.ndim == 0:  # a 1-d input and a 0-d index: one element
        r = np.asarray(data[idx[()]])
    else:  # positions past the index's size in the other dims are not read
        part = data[tuple(slice(None) if i == d else slice(0, idx.shape[i]) for i in range(data.ndim))]
        r = np.take_along_axis(part, idx, axis=d)
    return record(GatherBackward0, (input,), wrap(r, input.dtype),
                  {"dim": d, "index": index, "in_shape": input._data.shape}, normal=is_normal(index))


class ScatterBackward0(Function):
    """scatter(x, dim, index, src tensor): edges (x, src)."""
    __slots__ = ()
    saves_in_kw = True
    explain = ("1 where {a} was not written over, else 0", "1 at the elements of {b} written into the result")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [replays.scatter(xs[0], kw, xs[1])])

    def backward(self, g):
        k = self._kw
        idx = k["index"]
        g_self = scatter(g, k["dim"], idx, 0.0) if self.next_functions[0][0] is not None else None
        g_src = gather(g, k["dim"], idx) if self.next_functions[1][0] is not None else None
        return g_self, g_src


class ScatterBackward1(Function):
    """scatter(x, dim, index, value number): one edge."""
    __slots__ = ()
    explain = "1 where {a} was not written over, else 0"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [replays.scatter(xs[0], kw, kw["value"])])

    def backward(self, g):
        k = self._kw
        return (scatter(g, k["dim"], k["index"], 0.0),)


class ScatterAddBackward0(Function):
    __slots__ = ()
    saves_in_kw = (1,)  # the index, for the source's gradient
    explain = ("1", "1 at the elements of {b} added into the result")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [replays.scatter(xs[0], kw, xs[1], np.add.at)])

    def backward(self, g):
        k = self._kw
        g_src = gather(g, k["dim"], k["index"]) if self.next_functions[1][0] is not None else None
        return g, g_src


def _scatter_coords(index, dim):
    idx = index._data
    if idx.ndim == 0:
        return (idx,)
    coords = list(np.indices(idx.shape, sparse=True))
    coords[dim] = idx
    return tuple(coords)


def _one_dim(data):
    """A 0-d array as the 1-element dimension torch sees (a view: writing it writes data)."""
    return data.reshape(1) if data.ndim == 0 else data


def scatter(input, dim, index, src=None, value=None, reduce=None):
    from ..tensor import wrap_dim  # noqa: PLC0415
    if src is None:
        src = value
    d = wrap_dim(dim, input._data.ndim)
    if type(index._data) is not type(input._data) or isinstance(src, Tensor) and type(src._data) is not type(
            input._data):
        check_args("scatter_src" if isinstance(src, Tensor) else "scatter_value",
                   (("self", input), ("index", index), ("src", src if isinstance(src, Tensor) else None)))
    _check_index_dtype(index, "scatter")
    _check_index_range(index, input._data.shape[d] if input._data.ndim else 1, d)
    out = input._data.copy()
    coords = _scatter_coords(index, d)
    if reduce is not None:
        return _scatter_reduce_legacy(input, out, coords, src, reduce)
    if isinstance(src, Tensor):
        if src.dtype is not input.dtype:
            raise errors.runtime("scatter(): Expected self.dtype to be equal to src.dtype")
        _one_dim(out)[coords] = src._data[tuple(slice(0, s) for s in index._data.shape)]
        return record(ScatterBackward0, (input, src), wrap(out, input.dtype), {"dim": d, "index": index})
    _one_dim(out)[coords] = src
    return record(ScatterBackward1, (input,), wrap(out, input.dtype), {"dim": d, "index": index, "value": src})


def _scatter_reduce_legacy(input, out, coords, src, reduce):
    """scatter(..., reduce='add'|'multiply'): each src element (a number is first cast to the input's
    dtype) added or multiplied into its place in index order, as ATen's serial loop does; torch has
    no derivative for it (a NotImplemented node)."""
    if reduce not in ("add", "multiply"):
        raise errors.runtime("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor):
        if src.dtype is not input.dtype:
            raise errors.runtime("scatter(): Expected self.dtype to be equal to src.dtype")
        shape = np.broadcast_shapes(*(np.shape(c) for c in coords))  # the index's (coords are sparse)
        values = src._data[tuple(slice(0, s) for s in shape)] if shape else src._data
        warn_once("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                      "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                      UserWarning, stacklevel=2)
    else:
        values = np.asarray(src).astype(out.dtype)
    ufunc = np.add if reduce == "add" else np.multiply
    values = np.broadcast_to(values, np.broadcast_shapes(*(np.shape(c) for c in coords)))
    ufunc.at(_one_dim(out), coords, values)
    from .elementwise_common import not_implemented  # noqa: PLC0415
    return not_implemented(wrap(out, input.dtype), (input, src), "aten::scatter")


def scatter_add(input, dim, index, src):
    from ..tensor import wrap_dim  # noqa: PLC0415
    d = wrap_dim(dim, input._data.ndim)
    if type(index._data) is not type(input._data) or type(src._data) is not type(input._data):
        check_args("scatter_add", (("self", input), ("index", index), ("src", src)))
    _check_index_dtype(index, "scatter_add")
    _check_index_range(index, input._data.shape[d] if input._data.ndim else 1, d)
    if src.dtype is not input.dtype:
        raise errors.runtime("scatter(): Expected self.dtype to be equal to src.dtype")
    out = input._data.copy()
    _scatter_add_at(_one_dim(out), _scatter_coords(index, d), src._data[tuple(slice(0, s) for s in index._data.shape)])
    return record(ScatterAddBackward0, (input, src), wrap(out, input.dtype), {"dim": d, "index": index})


class IndexSelectBackward0(Function):
    """index_select(x, dim, index): one edge."""
    __slots__ = ()
    saves_in_kw = True
    explain = "1 at each selected element of {a} (summed where selected twice), 0 elsewhere"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.take(xs[0], replays.as_array(kw["index"]).astype(np.int64),
                                                        axis=kw["dim"]).reshape(outs[0])])

    def backward(self, g):
        k = self._kw
        if not k["in_shape"]:  # a 0-d input: its one element, as a 1-element dimension
            return (reshape(index_backward(reshape(g, (1,)), (1,), (k["index"]._data.reshape(1),)), ()),)
        key = (slice(None),) * k["dim"] + (k["index"]._data,)
        return (index_backward(g, k["in_shape"], key, IndexAddBackward0, {"dim": k["dim"], "index": k["index"]}),)


def index_select(input, dim, index):
    from ..tensor import wrap_dim  # noqa: PLC0415
    d = wrap_dim(dim, input._data.ndim)
    if type(index._data) is not type(input._data):
        check_args("_index_select", (("self", input), ("index", index)))
    if index.dtype.name not in ("int64", "int32"):
        raise errors.runtime("index_select(): Expected dtype int32 or int64 for index")
    if index._data.ndim > 1:
        raise errors.index("index_select(): Index is supposed to be a vector")
    size = input._data.shape[d] if input._data.ndim else 1
    idx = index._data
    if input._data.ndim > 1 and idx.size and input._data.size == 0:  # index_select_out_cpu_'s empty-self branch
        if size == 0:
            raise errors.runtime("index_select(): self indexing axis dim should be positive")
        bad = idx[(idx < 0) | (idx >= size)]
        if bad.size:
            raise errors.runtime(f"INDICES element is out of DATA bounds, id={int(bad[0])} axis_dim={size}")
    if idx.size and (idx.max() >= size or idx.min() < 0):  # no negative index, as index_select_out_cpu_
        if input._data.ndim > 1 and d == 1:                   # its dim-1 fast path (index_select_out_cpu_dim1_)
            bad = int(idx[(idx < 0) | (idx >= size)][0])
            raise errors.runtime(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        raise errors.index("index out of range in self")
    if input._data.ndim == 0 and idx.size != 1:
        raise errors.runtime(f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
    check_numel(input._data.size // max(1, size) * idx.size)
    r = np.take(input._data, idx, axis=d) if input._data.ndim else input._data.reshape(1)[idx].reshape(())
    return record(IndexSelectBackward0, (input,), wrap(r, input.dtype),
                  {"dim": d, "index": index, "in_shape": input._data.shape})


class MaskedFillBackward0(Function):
    """masked_fill(x, mask, number): one edge."""
    __slots__ = ()
    saves_in_kw = True
    explain = "1 where the mask is False, else 0"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.where(replays.as_array(kw["mask"]).astype(bool), kw["value"], xs[0])
                                                .reshape(outs[0])])

    def backward(self, g):
        return (sum_to(masked_fill(g, self._kw["mask"], 0), self._kw["in_shape"]),)  # torch: grad.masked_fill(mask, 0)


class MaskedFillBackward1(Function):
    """masked_fill(x, mask, 0-dim tensor): edges (x, value)."""
    __slots__ = ()
    saves_in_kw = True
    explain = ("1 where the mask is False, else 0", "1 for each masked element (the sum of grad there)")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.where(replays.as_array(kw["mask"]).astype(bool), xs[1], xs[0])
                                                .reshape(outs[0])])

    def backward(self, g):
        mask = self._kw["mask"]
        gx = sum_to(masked_fill(g, mask, 0), self._kw["in_shape"]) if self._fns[0] is not None else None
        gv = masked_select(g, mask).sum() if self._fns[1] is not None else None  # torch's masked_fill_backward
        return gx, gv


def masked_fill_checks(self, mask, value, inplace):
    """masked_fill's errors in torch's order: the out-of-place form expands (mask, self) first
    (expand_outplace); then the value's dims, the mask's dtype and, in place, (self, mask)'s shapes."""
    from .elementwise_common import broadcast_error  # noqa: PLC0415
    shapes = (self._data.shape, mask._data.shape) if isinstance(mask, Tensor) else None
    if shapes is not None and not inplace and not _broadcastable(*shapes):
        raise broadcast_error(mask._data, self._data)
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise errors.runtime(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                             f"{value._data.ndim} dimension(s).")
    if not isinstance(mask, Tensor) or mask.dtype is not dtypes.bool_:
        from .linalg import c10_low  # noqa: PLC0415
        raise errors.runtime(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                             f"{c10_low(mask.dtype) if isinstance(mask, Tensor) else type(mask).__name__}")
    if inplace and not _broadcastable(*shapes):
        raise broadcast_error(self._data, mask._data)


def _broadcastable(a, b):
    return all(x == y or x == 1 or y == 1 for x, y in zip(a[::-1], b[::-1]))


def masked_fill(input, mask, value):
    masked_fill_checks(input, mask, value, False)
    kw = {"mask": mask, "in_shape": input._data.shape}
    if isinstance(value, Tensor):
        v = value._data.astype(input._data.dtype)
        if type(v) is not type(input._data) and v.ndim == 0:  # a CPU 0-d value with a cuda input
            v = v[()]
        r = np.where(mask._data, v, input._data)
        return record(MaskedFillBackward1, (input, value), wrap(_asarray(r), input.dtype), kw, normal=is_normal(mask))
    value = dtypes.checked_scalar(value, input.dtype)
    r = np.where(mask._data, np.asarray(value).astype(input._data.dtype)[()], input._data)
    return record(MaskedFillBackward0, (input,), wrap(_asarray(r), input.dtype), dict(kw, value=value),
                  normal=is_normal(mask))


class MaskedSelectBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = "1 at the selected elements of {a}, 0 elsewhere"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [xs[0][np.broadcast_to(replays.as_array(kw["mask"]).astype(bool),
                                                                      xs[0].shape)].reshape(outs[0])])

    def backward(self, g):
        k = self._kw
        return (sum_to(index_backward(g, k["shape"], (k["mask"],)), k["in_shape"]),)


def masked_select(input, mask):
    try:
        shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    except ValueError:
        from .elementwise_common import broadcast_error  # noqa: PLC0415
        raise broadcast_error(input, mask) from None
    check_shape(shape)
    m = np.broadcast_to(mask._data, shape)
    r = np.broadcast_to(input._data, shape)[m]
    return record(MaskedSelectBackward0, (input,), wrap(_asarray(r), input.dtype),
                  {"mask": m, "shape": shape, "in_shape": input._data.shape})


def nonzero(input, *, as_tuple=False):
    data = input._data if input._data.ndim else input._data.reshape(1)
    nz = np.nonzero(data)
    if as_tuple:
        return tuple(wrap(_asarray(a, np.int64), dtypes.int64) for a in nz)
    if input._data.ndim == 0:
        return wrap(xp_of(data).zeros((int(data[0] != 0), 0), np.int64), dtypes.int64)
    return wrap(np.stack(nz, axis=1).astype(np.int64), dtypes.int64)


def argwhere(input):
    return nonzero(input)


# ---------------------------------------------------------------------------- declarations

def _sample_mask(torch, shape):
    """The gradient checks' mask: every third element False."""
    m = (np.arange(int(np.prod(shape))) % 3 != 1).reshape(shape)
    return torch.tensor(m.tolist() if shape else bool(m))


_S1 = [((3,),), ((2, 3),)]
_NO = "an integer result"
# One declaration per op (registry.py); methods.py derives the tables
OPS = [
    op("gather", gather, GatherBackward0, sample=Sample(_S1, call=lambda torch, x: torch.gather(
        x, -1, torch.tensor([[0, 2, 0], [1, 1, 2]][:x.shape[0]] if x.dim() == 2 else [2, 0]))),
       cases={"gather": case(lambda torch, x: torch.gather(x, 1, torch.tensor([[0, 2], [1, 1]])), V.M23)}),
    op("scatter", scatter, ScatterBackward0, ScatterBackward1, inplace="copy", sample=Sample(
        [((2, 3), (1, 3))], call=lambda torch, x, y: (x.scatter(0, torch.tensor([[1, 0, 1]]), y),
                                                      torch.scatter(x, 1, torch.tensor([[0], [2]]), 0.5))),
       cases={"scatter_value": case(lambda torch, x: torch.scatter(x, 1, torch.tensor([[0], [2]]), 5.0), V.M23),
              "scatter_src": case(lambda torch, x, s: torch.scatter(x, 1, torch.tensor([[0], [2]]), s), V.M23, [[1.0], [2.0]])}),
    op("scatter_add", scatter_add, ScatterAddBackward0, inplace=True, sample=Sample(
        [((2, 3), (2, 3))], call=lambda torch, x, y: torch.scatter_add(x, 0, torch.tensor([[1, 0, 1], [1, 1, 0]]), y)),
       cases={"scatter_add": case(lambda torch, x, s: torch.scatter_add(x, 1, torch.tensor([[0, 0], [2, 1]]), s), V.M23, [[1.0, 2.0], [3.0, 4.0]])}),
    op("index_select", index_select, IndexSelectBackward0,
       sample=Sample(_S1, call=lambda torch, x: torch.index_select(x, 0, torch.tensor([1, 0, 1]))),
       cases={"index_select": case(lambda torch, x: torch.index_select(x, 1, torch.tensor([2, 0, 2])), V.M23)}),
    op("masked_fill", masked_fill, MaskedFillBackward0, MaskedFillBackward1, inplace=True, sample=Sample(
        _S1, call=lambda torch, x: (x.masked_fill(_sample_mask(torch, tuple(x.shape)), 0.5), torch.masked_fill(
            x, _sample_mask(torch, tuple(x.shape[-1:])), torch.tensor(2.0, dtype=x.dtype)))),
       cases={"masked_fill": case(lambda torch, x: x.masked_fill(torch.tensor([True, False, True]), 2.0), V.M23)}),
    op("masked_select", masked_select, MaskedSelectBackward0,
       sample=Sample(_S1, call=lambda torch, x: torch.masked_select(x, _sample_mask(torch, tuple(x.shape[-1:])))),
       cases={"masked_select": case(lambda torch, x: torch.masked_select(x, torch.tensor([True, False, True])), V.M23)}),
    op("nonzero", nonzero, no_grad=_NO),
    op("argwhere", argwhere, no_grad=_NO),
]

