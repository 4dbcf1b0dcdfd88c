"""index_copy, index_add, index_fill (and their in-place forms): the ops that write slices of a
tensor along one dim, chosen by a 1-d index, as torch's IndexCopyBackward0 / IndexAddBackward0 /
IndexFillBackward0-1 nodes. Backward formulas are torch's derivatives.yaml ones, in Tensor ops so
that they differentiate again: index_fill(grad, 0) for the overwritten input, index_select for the
source (times alpha for index_add), its sum for a tensor fill value."""
from __future__ import annotations

from .. import dtypes, errors
from ..device import scatter_add, xp_of
from ..function import Function, record
from ..tensor import Tensor, wrap_dim, wrap
from . import indexing as I
from .elementwise import c10_name
from . import replays
from .registry import Sample, op, tables
from .special import inplace_method


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
    explain = ("1 where {a} was not copied over, else 0", "1 at the result's rows it was copied to")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [replays.index_put(xs[0], kw, xs[1])])

    def backward(self, g):
        k = self._kw
        dim, index = k["dim"], k["index"]
        g_self = index_fill(g, dim, index, 0) if self._fns[0] is not None else None
        g_src = None
        if self._fns[1] is not None:
            g_src = I.index_select(g, dim, index)
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
    _check_bounds(idx, _sizes(input, d), d, "index_copy_(): ")
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
    _check_bounds(idx, _sizes(input, d), d, kind=errors.runtime)
    out = input._data.copy()
    add = src if alpha == 1 else src * xp_of(out).asarray(alpha, dtype=out.dtype)
    scatter_add(_as_dim(out), _key(out.ndim, d, idx), add)  # np.add.at, or cupy's on the GPU
    return record(I.IndexAddBackward0, (input, source), wrap(out, input.dtype),
                  {"dim": d, "index": index, "alpha": alpha, "src_shape": source._data.shape})


# ---------------------------------------------------------------------------- index_fill

class IndexFillBackward0(Function):
    __slots__ = ()
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
        g_value = I.index_select(g, k["dim"], k["index"]).sum() if self._fns[1] is not None else None
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


# ---------------------------------------------------------------------------- declarations

# One declaration per op (registry.py): its names, in-place form, nodes and gradient-check sample
OPS = [
    op("index_copy", index_copy, IndexCopyBackward0, inplace=True, sample=Sample(
        [((2, 3), (2, 2))], call=lambda torch, x, y: torch.index_copy(x, 1, torch.tensor([2, 0]), y))),
    op("index_add", index_add, I.IndexAddBackward0, inplace=True, sample=Sample(
        [((2, 3), (2, 3))], call=lambda torch, x, y: (torch.index_add(x, 1, torch.tensor([2, 0, 2]), y),
                                                      x.index_add(0, torch.tensor([1]), y[:1, :3] * 1, alpha=2.5)))),
    op("index_fill", index_fill, IndexFillBackward0, IndexFillBackward1, inplace=True, sample=Sample(
        [((2, 3), (2,))], call=lambda torch, x, y: (x.index_fill(1, torch.tensor([2, 0]), 0.5),
                                                    torch.index_fill(x, 0, torch.tensor([1]), y.sum())))),
]
_TABLES = tables(OPS, inplace_method)
METHODS = _TABLES["METHODS"]  # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]  # x.name_()
METHOD_ONLY = ()
TORCH = {}
