"""index_copy, index_add, index_fill (and their in-place forms): the ops that write slices of a
tensor along one dim, chosen by a 1-d index, as torch's IndexCopyBackward0 / IndexAddBackward0 /
IndexFillBackward0-1 nodes; index_put (a tuple of index tensors, as x[i, j] = v) and masked_scatter
(the source's elements, in order, where the mask is True). Backward formulas are torch's
derivatives.yaml ones, in Tensor ops so that they differentiate again: index_fill(grad, 0) for the
overwritten input, index_select for the source (times alpha for index_add), its sum for a tensor fill
value; grad.index_put(indices, 0) and grad[indices]; grad.masked_fill(mask, 0) and
masked_scatter_backward (grad.masked_select(mask), zero-padded to the source's size)."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..device import host, scatter_add, xp_of
from ..function import Function, record
from ..tensor import Tensor, wrap_dim, wrap
from . import indexing as I
from . import gather_scatter as GS
from . import shape as S
from . import join_split as JS
from .elementwise_common import c10_name
from . import replays
from .registry import Sample, op, tables
from .special_common import inplace_method


def _key(ndim, d, idx):
    return (slice(None),) * d + (idx,)


def _as_dim(data):
    """A 0-d array as the one-element dimension torch sees (a view)."""
    return data.reshape(1) if data.ndim == 0 else data


def _index_array(index, what):
    idx = index._data
    if idx.ndim > 1:
        raise errors.index(f"{what}(): Index should have dimension 1 or 0 (got {idx.ndim})")
    return idx.reshape(-1)


def _check_bounds(idx, size, dim, prefix="", kind=errors.index):
    if idx.size and (idx.max() >= size or idx.min() < -size):
        bad = int(idx.max()) if idx.max() >= size else int(idx.min())
        raise kind(f"{prefix}index {bad} is out of bounds for dimension {dim} with size {size}")


def _first_outside(idx, low, size):
    """The first index (in the index's order, as ATen's loops meet them) outside [low, size), or None."""
    bad = (idx < low) | (idx >= size)
    return int(idx[bad.argmax()]) if idx.size and bad.any() else None


def _check_index_add_bounds(input, source, index, idx, d, alpha):
    """index_add's index check, as ATen's index_add_cpu_out makes it: no negative index on any path; a tensor of
    more than one dim with dim first or last, alpha 1, int64 indices and a source the input's size apart from dim
    goes through scatter_add (its RuntimeError naming the index), any other through its own loop (an IndexError
    without the index, as for one dim, bounded there by the input's numel)."""
    shape, nd = input._data.shape, input._data.ndim
    if nd > 1 and input._data.size == 0:
        return
    size = shape[d] if nd > 1 else max(input._data.size, 1)
    bad = _first_outside(idx, 0, size)
    if bad is None:
        return
    src_shape = source._data.shape
    if nd > 1 and d in (0, nd - 1) and alpha == 1 and index.dtype.name == "int64" and len(src_shape) == nd \
            and all(a == b for i, (a, b) in enumerate(zip(shape, src_shape)) if i != d):
        raise errors.runtime(f"index {bad} is out of bounds for dimension {d} with size {size}")
    raise errors.index("index out of range in self")


def _source(input, source, d):
    """source's array as it is written into input (a 0-d source as one element), and its size along d."""
    src = source._data
    if src.ndim == 0:
        src = src.reshape(1)
    return src, src.shape[d] if src.ndim > d else 1


def _sizes(input, d):
    return input._data.shape[d] if input._data.ndim else 1


# ---------------------------------------------------------------------------- index_copy

class IndexCopyBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = ("1 where {a} was not copied over, else 0", "1 at the result's rows it was copied to")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [replays.index_put(xs[0], kw, xs[1])])

    def backward(self, g):
        k = self._kw
        dim, index = k["dim"], k["index"]
        g_self = index_fill(g, dim, index, 0) if self._fns[0] is not None else None
        g_src = None
        if self._fns[1] is not None:
            g_src = GS.index_select(g, dim, index)
            if k["src_shape"] != g_src._data.shape:
                g_src = g_src.reshape(k["src_shape"])
        return g_self, g_src


def index_copy(input, dim, index, source):
    d = wrap_dim(dim, input._data.ndim)
    if index.dtype.name != "int64":
        raise errors.runtime(f"index_copy_(): Expected a long tensor for index, but got {c10_name(index.dtype)}")
    idx = _index_array(index, "index_copy_")
    if source.dtype is not input.dtype:
        raise errors.runtime(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                             f"{c10_name(input.dtype)} and (source) {c10_name(source.dtype)}")
    src, n_src = _source(input, source, d)
    if idx.size != n_src:
        raise errors.index(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                           f"({n_src})")
    bad = _first_outside(idx, 0, _sizes(input, d))  # no negative index either (ATen's index_copy kernel)
    if bad is not None:
        raise errors.index(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {_sizes(input, d)}")
    out = input._data.copy()
    _as_dim(out)[_key(out.ndim, d, idx)] = src
    return record(IndexCopyBackward0, (input, source), wrap(out, input.dtype),
                  {"dim": d, "index": index, "src_shape": source._data.shape})


# ---------------------------------------------------------------------------- index_add

def index_add(input, dim, index, source, *, alpha=1):
    d = wrap_dim(dim, input._data.ndim)
    if index.dtype.name not in ("int64", "int32"):
        raise errors.runtime("index_add_(): Expected dtype int32/int64 for index")
    idx = _index_array(index, "index_add_")
    if source.dtype is not input.dtype:
        raise errors.runtime(f"index_add_(): self ({c10_name(input.dtype)}) and source ({c10_name(source.dtype)}) "
                             "must have the same scalar type")
    src, n_src = _source(input, source, d)
    if idx.size != n_src:
        raise errors.runtime(f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                             f"({n_src}), for dim: {d}")
    _check_index_add_bounds(input, source, index, idx, d, alpha)
    out = input._data.copy()
    if out.ndim <= 1 or out.size:  # (an empty input of more dims: ATen returns before its index checks)
        add = src if alpha == 1 else src * xp_of(out).asarray(alpha, dtype=out.dtype)
        scatter_add(_as_dim(out), _key(out.ndim, d, idx), add)  # np.add.at, or cupy's on the GPU
    return record(GS.IndexAddBackward0, (input, source), wrap(out, input.dtype),
                  {"dim": d, "index": index, "alpha": alpha, "src_shape": source._data.shape})


# ---------------------------------------------------------------------------- index_fill

class IndexFillBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = "1 where {a} was not filled, else 0"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [replays.index_put(xs[0], kw, kw["value"])])

    def backward(self, g):
        k = self._kw
        return (index_fill(g, k["dim"], k["index"], 0),)


class IndexFillBackward1(Function):
    __slots__ = ()
    explain = ("1 where {a} was not filled, else 0", "1 for each filled element (the sum of grad there)")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [replays.index_put(xs[0], kw, xs[1])])

    def backward(self, g):
        k = self._kw
        g_self = index_fill(g, k["dim"], k["index"], 0) if self._fns[0] is not None else None
        g_value = GS.index_select(g, k["dim"], k["index"]).sum() if self._fns[1] is not None else None
        return g_self, g_value


def index_fill(input, dim, index, value):
    d = wrap_dim(dim, input._data.ndim)
    if index.dtype.name != "int64":
        raise errors.index("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor) and value._data.ndim:
        raise errors.runtime("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                             f"{value._data.ndim} dimension(s).")
    idx = _index_array(index, "index_fill_")
    _check_bounds(idx, _sizes(input, d), d)
    out = input._data.copy()
    v = value._data if isinstance(value, Tensor) else dtypes.checked_scalar(value, input.dtype)
    _as_dim(out)[_key(out.ndim, d, idx)] = v
    r = wrap(out, input.dtype)
    if isinstance(value, Tensor):
        return record(IndexFillBackward1, (input, value), r, {"dim": d, "index": index})
    return record(IndexFillBackward0, (input,), r, {"dim": d, "index": index, "value": value})


# ---------------------------------------------------------------------------- index_put

def _index_put_arrays(x, key, v, accumulate):
    out = x.copy()
    if accumulate:
        scatter_add(out, key, xp_of(out).broadcast_to(v, out[key].shape))
    else:
        out[key] = v
    return out


class IndexPutBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = ("1 where {a} was not written (1 everywhere when accumulating)", "1 at the positions it was put at")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [_index_put_arrays(xs[0], kw["key"], xs[1], kw["accumulate"])])

    def backward(self, g):
        from ..factory import zeros  # noqa: PLC0415
        k = self._kw
        g_self = g_values = None
        if self._fns[0] is not None:
            g_self = g if k["accumulate"] else index_put(g, k["indices"], zeros((), dtype=g.dtype, device=g.device))
        if self._fns[1] is not None:
            g_values = S.sum_to(I.getitem(g, tuple(k["indices"])), k["vshape"])
        return g_self, g_values


def _index_key(indices, shape):
    key = []
    for t in indices:
        if t.dtype.is_floating_point:
            raise errors.index("tensors used as indices must be long, int, byte or bool tensors")
        key.append(host(t._data).astype(bool) if t.dtype in (dtypes.bool_, dtypes.uint8) else host(t._data))
    if sum(k.ndim if k.dtype == bool else 1 for k in key) > len(shape):
        raise errors.index(f"too many indices for tensor of dimension {len(shape)} (got {len(key)})")
    return tuple(key)


def index_put(input, indices, values, accumulate=False):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if values.dtype is not input.dtype:
        raise errors.runtime(f"Index put requires the source and destination dtypes match, got "
                             f"{c10_name(input.dtype)} for the destination and {c10_name(values.dtype)} for the source.")
    data = input._data
    key = _index_key(indices, data.shape)
    probe = tuple(k if k.dtype == bool else np.zeros_like(k) for k in key)  # the shape check comes first
    try:
        target = np.empty(data.shape, bool)[probe].shape
    except IndexError as e:
        raise errors.index(str(e).replace("axis", "dimension")) from None
    try:
        np.broadcast_shapes(values._data.shape, target)
        if len(values._data.shape) > len(target) or np.broadcast_shapes(values._data.shape, target) != target:
            raise ValueError
    except ValueError:
        raise errors.runtime(f"shape mismatch: value tensor of shape [{', '.join(map(str, values._data.shape))}] "
                             f"cannot be broadcast to indexing result of shape [{', '.join(map(str, target))}]") from None
    try:
        out = _index_put_arrays(data, key, values._data, accumulate)
    except IndexError as e:
        raise errors.index(str(e).replace("axis", "dimension")) from None
    return record(IndexPutBackward0, (input, values), wrap(out, input.dtype),
                  {"key": key, "indices": tuple(indices), "accumulate": bool(accumulate),
                   "vshape": values._data.shape})


# ---------------------------------------------------------------------------- masked_scatter

def _masked_scatter_arrays(x, m, src):
    shape = np.broadcast_shapes(m.shape, x.shape)
    xp = xp_of(x)
    out = xp.broadcast_to(x, shape).copy()
    mm = xp.broadcast_to(m, shape)
    n = int(mm.sum())
    flat = src.reshape(-1)
    if n > flat.size:
        raise errors.runtime("Number of elements of source < number of ones in mask")
    out[mm] = flat[:n]
    return out


class MaskedScatterBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = ("1 where the mask is False, else 0", "1 at the masked position it was written to, in order")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [_masked_scatter_arrays(xs[0], kw["mask"]._data, xs[1])])

    def backward(self, g):
        k = self._kw
        mask = k["mask"]
        g_self = g_src = None
        if self._fns[0] is not None:
            g_self = S.sum_to(GS.masked_fill(g, mask, 0), k["in_shape"])
        if self._fns[1] is not None:  # torch's masked_scatter_backward
            picked = GS.masked_select(g, mask)
            missing = math.prod(k["src_shape"]) - picked._data.size
            if missing > 0:
                from ..factory import zeros  # noqa: PLC0415
                picked = JS.cat([picked, zeros(missing, dtype=g.dtype, device=g.device)])
            g_src = S.reshape(picked, k["src_shape"])
        return g_self, g_src


def _masked_scatter_checks(input, mask, source):
    for name, pos, v in (("mask", 1, mask), ("source", 2, source)):
        if not isinstance(v, Tensor):
            raise TypeError(f"masked_scatter(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{type(v).__name__}")


def _masked_scatter_types(input, mask, source):
    if source.dtype is not input.dtype:
        raise errors.runtime(f"masked_scatter: expected self and source to have same dtypes but got"
                             f"{c10_name(input.dtype)} and {c10_name(source.dtype)}")
    if mask.dtype is not dtypes.bool_:
        raise errors.runtime(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                             f"{c10_name(mask.dtype)}")


def masked_scatter(input, mask, source):
    _masked_scatter_checks(input, mask, source)
    try:  # expand_outplace(mask, self), then the in-place op's checks on the copy
        np.broadcast_shapes(mask._data.shape, input._data.shape)
    except ValueError:
        from .elementwise_common import broadcast_error  # noqa: PLC0415
        raise broadcast_error(mask, input) from None
    _masked_scatter_types(input, mask, source)
    out = _masked_scatter_arrays(input._data, mask._data, source._data)
    return record(MaskedScatterBackward0, (input, source), wrap(out, input.dtype),
                  {"mask": mask, "in_shape": input._data.shape, "src_shape": source._data.shape})


def _masked_scatter_inplace(self, mask, source):
    """x.masked_scatter_(mask, source): the mask expands to x (expand's errors), x keeps its shape."""
    _masked_scatter_checks(self, mask, source)
    _masked_scatter_types(self, mask, source)
    try:
        S.expand(mask, tuple(self._data.shape))
    except RuntimeError as e:  # expand_inplace words the mask's type as CPUBoolType
        raise errors.runtime(str(e).replace("torch.cuda.BoolTensor{", "CUDABoolType{").replace(
            "torch.BoolTensor{", "CPUBoolType{")) from None
    return masked_scatter(self, mask, source)


# ---------------------------------------------------------------------------- scatter_reduce

_REDUCE_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}
_REDUCE_ALIAS = {"max": "amax", "min": "amin"}  # ATen's get_operator_enum takes these too


def scatter_reduce_arrays(x, dim, idx, src, reduce, include_self):
    """ATen's scatter_reduce on arrays: each src element (over the index's shape) reduced into its place;
    without include_self a place that receives one starts from the reduction's identity; mean divides
    by the count (self included or not; a place nobody wrote keeps its value), floor for integers."""
    out = x.copy()
    flat = _as_dim(out)
    coords = list(np.indices(idx.shape, sparse=True)) if idx.ndim else []
    if idx.ndim:
        coords[dim] = idx
    coords = tuple(coords) if idx.ndim else (idx.reshape(1),)
    vals = src[tuple(slice(0, n) for n in idx.shape)] if idx.ndim else src.reshape(1)[:1]
    if not include_self:
        if reduce in ("sum", "mean"):
            init = 0
        elif reduce == "prod":
            init = 1
        elif out.dtype.kind == "f":
            init = -np.inf if reduce == "amax" else np.inf
        else:
            info = np.iinfo(out.dtype)
            init = info.min if reduce == "amax" else info.max
        flat[coords] = init
    _REDUCE_UFUNC[reduce].at(flat, coords, vals)
    if reduce == "mean":
        count = np.full(out.shape, 1 if include_self else 0, np.int64)
        np.add.at(_as_dim(count), coords, 1)
        count[count == 0] = 1
        if out.dtype.kind == "f":
            out = (out / count).astype(out.dtype)
        else:
            out = np.floor_divide(out, count).astype(out.dtype)
    return out


class ScatterReduceBackward0(Function):
    """torch's scatter_reduce_backward, in Tensor ops (so it differentiates again)."""
    __slots__ = ()
    explain = ("1 where {a} is kept (the reduction's share where it took part)",
               "the reduction's share at the place each element went to")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [scatter_reduce_arrays(
        xs[0], kw["dim"], kw["index"]._data, xs[1], kw["reduce"], kw["include_self"])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        from .clamp_where import where  # noqa: PLC0415
        self_, src, result = self.saved
        k = self._kw
        dim, index, reduce, include_self = k["dim"], k["index"], k["reduce"], k["include_self"]
        if reduce == "sum":
            g_self, g_src = g, GS.gather(g, dim, index)
        elif reduce == "prod":
            masked_self = GS.masked_fill(self_, self_ == 0, 1)
            g_self = g * scatter_reduce(masked_self, dim, index, src, reduce, include_self=include_self) / masked_self
            src_zero = src == 0
            zeros = GS.scatter_add(self_.detach() * 0, dim, index, src_zero.to(self_.dtype))
            single = src_zero & (GS.gather(zeros, dim, index) == 1)
            masked_result = scatter_reduce(self_, dim, index, GS.masked_fill(src, single, 1), reduce,
                                           include_self=include_self)
            g_src = where(single, GS.gather(g * masked_result, dim, index),
                          GS.gather(g * result, dim, index) / GS.masked_fill(src, src_zero, 1))
        elif reduce == "mean":
            n = (self_.detach() * 0 + (1 if include_self else 0))
            n = GS.scatter_add(n, dim, index, src.detach() * 0 + 1)
            n = GS.masked_fill(n, n == 0, 1)
            g_self = g / n
            g_src = GS.gather(g, dim, index) / GS.gather(n, dim, index)
        else:
            value = GS.gather(result, dim, index)
            self_is = (self_ == result).to(self_.dtype)
            src_is = (src == value).to(self_.dtype)
            share = g / GS.scatter_add(self_is, dim, index, src_is)
            g_self = self_is * share
            g_src = src_is * GS.gather(share, dim, index)
        if not include_self:
            g_self = GS.scatter(g_self, dim, index, value=0)
        if g_src._data.shape != src._data.shape:  # src larger than the index: the rest gets 0
            from ..factory import zeros  # noqa: PLC0415
            full = zeros(src._data.shape, dtype=g_src.dtype, device=g_src.device)
            I.setitem(full, tuple(slice(0, n) for n in g_src._data.shape), g_src)
            g_src = full
        return (g_self if self._fns[0] is not None else None), (g_src if self._fns[1] is not None else None)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    d = wrap_dim(dim, input._data.ndim)
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    if not isinstance(reduce, str) or _REDUCE_ALIAS.get(reduce, reduce) not in _REDUCE_UFUNC:
        raise errors.runtime(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    reduce = _REDUCE_ALIAS.get(reduce, reduce)
    if index.dtype.name not in ("int64", "int32"):
        raise errors.runtime("scatter_reduce(): Expected dtype int32/int64 for index")
    if src.dtype is not input.dtype:
        raise errors.runtime("scatter(): Expected self.dtype to be equal to src.dtype")
    idx = host(index._data)
    ishape, sshape, xshape = idx.shape, src._data.shape, input._data.shape
    if idx.ndim and (len(ishape) != len(xshape) or any(
            i > n for j, (i, n) in enumerate(zip(ishape, xshape)) if j != d) or any(
            i > n for i, n in zip(ishape, sshape))):
        raise errors.runtime(f"Expected index [{', '.join(map(str, ishape))}] to be no larger than self "
                             f"[{', '.join(map(str, xshape))}] apart from dimension {d} and to be no larger size "
                             f"than src [{', '.join(map(str, sshape))}]")
    size = _sizes(input, d)
    wrong = (idx >= size) | (idx < 0)  # no negative index here
    if wrong.any():  # the first in the kernel's order
        raise errors.runtime(f"index {int(idx.reshape(-1)[np.argmax(wrong.reshape(-1))])} is out of bounds for "
                             f"dimension {d} with size {size}")
    out = scatter_reduce_arrays(input._data, d, idx, src._data, reduce, include_self)
    return record(ScatterReduceBackward0, (input, src), wrap(xp_of(input._data).asarray(out), input.dtype),
                  {"dim": d, "index": index, "reduce": reduce, "include_self": bool(include_self)})


# ---------------------------------------------------------------------------- declarations

# One declaration per op (registry.py): its names, in-place form, nodes and gradient-check sample
OPS = [
    op("index_copy", index_copy, IndexCopyBackward0, inplace=True, sample=Sample(
        [((2, 3), (2, 2))], call=lambda torch, x, y: torch.index_copy(x, 1, torch.tensor([2, 0]), y))),
    op("index_add", index_add, GS.IndexAddBackward0, inplace=True, sample=Sample(
        [((2, 3), (2, 3))], call=lambda torch, x, y: (torch.index_add(x, 1, torch.tensor([2, 0, 2]), y),
                                                      x.index_add(0, torch.tensor([1]), y[:1, :3] * 1, alpha=2.5)))),
    op("index_fill", index_fill, IndexFillBackward0, IndexFillBackward1, inplace=True, sample=Sample(
        [((2, 3), (2,))], call=lambda torch, x, y: (x.index_fill(1, torch.tensor([2, 0]), 0.5),
                                                    torch.index_fill(x, 0, torch.tensor([1]), y.sum())))),
    op("index_put", index_put, IndexPutBackward0, inplace=True, torch_inplace=True, sample=Sample(
        [((3, 2), (2, 2))], call=lambda torch, x, y: (
            x.index_put((torch.tensor([2, 0]),), y),
            torch.index_put(x, (torch.tensor([1, 1]), torch.tensor([0, 1])), y[0], accumulate=True),
            x.index_put((torch.tensor([True, False, True]),), y[1, :1])))),
    op("scatter_reduce", scatter_reduce, ScatterReduceBackward0, inplace=True, sample=Sample(
        [((2, 3), (2, 3))], call=lambda torch, x, y: (
            x.scatter_reduce(1, torch.tensor([[0, 1, 0], [2, 2, 1]]), y, "sum"),
            x.scatter_reduce(1, torch.tensor([[0, 1, 0], [2, 2, 1]]), y, "mean", include_self=False),
            x.scatter_reduce(0, torch.tensor([[1, 0, 1]]), y[:1], "prod")))),
    op("masked_scatter", masked_scatter, MaskedScatterBackward0, inplace=True, sample=Sample(
        [((2, 3), (7,))], call=lambda torch, x, y: (
            x.masked_scatter(torch.tensor([[True, False, True], [False, True, True]]), y),
            torch.masked_scatter(x, torch.tensor([True, False, True]), y[:5])))),
]


def _inplace(fn, name, node):
    return inplace_method(_masked_scatter_inplace if name == "masked_scatter_" else fn, name, node)


_TABLES = tables(OPS, _inplace)
METHODS = _TABLES["METHODS"]  # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]  # x.name_()
METHOD_ONLY = ()
TORCH = _TABLES["TORCH"]  # torch.index_put_
