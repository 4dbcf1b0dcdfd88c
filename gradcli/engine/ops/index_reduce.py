"""index_reduce / index_reduce_ (declared in scatter_extra.py's family): ATen's index_reduce, each row of
source along dim reduced ('prod', 'mean', 'amax', 'amin') into input's row index[i], in the index's order.
It is scatter_reduce with the index spread over source's shape, which is how it is computed here; its node,
IndexReduceBackward0, is torch's index_reduce_backward, the same formulas as scatter_reduce's. torch warns
once per process that the function is in beta."""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes, errors
from ..device import host, xp_of
from ..function import record
from ..tensor import Tensor, wrap, wrap_dim
from .elementwise_common import c10_name
from .index_ops import ScatterReduceBackward0, scatter_reduce_arrays
from .registry import Sample, op

BETA_WARNING = "index_reduce() is in beta and the API may change at any time."
_WARNED = [False]


class IndexReduceBackward0(ScatterReduceBackward0):
    """torch's index_reduce_backward: scatter_reduce's formulas over the spread index."""
    __slots__ = ()


def _sizes(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    for pos, (name, value) in enumerate((("index", index), ("source", source)), 2):
        if not isinstance(value, Tensor):
            raise errors.type_error(f"index_reduce(): argument '{name}' (position {pos}) must be Tensor, not "
                                    f"{type(value).__name__}")
    if not isinstance(reduce, str):
        raise errors.type_error(f"index_reduce(): argument 'reduce' (position 4) must be str, not "
                                f"{type(reduce).__name__}")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise errors.runtime(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                             f"{reduce}.")
    d = wrap_dim(dim, input.dim())
    if index.dim() > 1:
        raise errors.index(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                           f"{c10_name(index.dtype)} and size: {_sizes(index)}")
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise errors.runtime(f"index_reduce_(): Expected dtype int32/int64 for index but got: {c10_name(index.dtype)}")
    if source.dtype is not input.dtype:
        raise errors.runtime(f"index_reduce_(): self ({c10_name(input.dtype)}) and source ({c10_name(source.dtype)}) "
                             "must have the same scalar type")
    if not (d == 0 or d < source.dim()):
        raise errors.index(f"index_reduce_(): Indexing dim {d} is out of bounds of the source tensor with dim "
                           f"{source.dim()}")
    n = index.numel()
    along = 1 if source.dim() == 0 else source.shape[d]
    if n != along:
        raise errors.runtime(f"index_reduce_(): Number of indices ({n}) should be equal to source.size(dim): "
                             f"({along}), for dim: {d}")
    xs, ss = list(input.shape), list(source.shape)
    if source.dim() and input.dim():
        del xs[d], ss[d]
    if xs != ss:
        raise errors.runtime(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                             f"Got self.shape = {_sizes(input)} source.shape = {_sizes(source)}")
    if not _WARNED[0]:
        _WARNED[0] = True
        warnings.warn(BETA_WARNING, UserWarning, stacklevel=2)
    idx = host(index._data).reshape(-1).astype(np.int64)
    size = input.shape[d] if input.dim() else 1
    if ((idx < 0) | (idx >= size)).any():
        raise errors.index("index out of range in self")
    x, src = input._data, source._data
    if x.ndim == 0 or src.ndim == 0:  # a 0-d side: one element, one place
        x1, s1 = x.reshape(1), src.reshape(1)
        out = scatter_reduce_arrays(x1, 0, idx[:1], s1, reduce, include_self).reshape(x.shape)
        spread = idx[:1]
        dd = 0
    else:
        shape = [1] * src.ndim
        shape[d] = n
        spread = np.ascontiguousarray(np.broadcast_to(idx.reshape(shape), src.shape))
        out = scatter_reduce_arrays(x, d, spread, src, reduce, include_self)
        dd = d
    kw = {"dim": dd, "index": wrap(xp_of(x).asarray(spread), dtypes.int64), "reduce": reduce,
          "include_self": bool(include_self)}
    if (x.ndim == 0 or src.ndim == 0) and (input.requires_grad or source.requires_grad):
        raise errors.runtime("gradcli: index_reduce's gradient for a 0-d input or source is not implemented")
    return record(IndexReduceBackward0, (input, source), wrap(xp_of(x).asarray(out), input.dtype), kw)


OPS = [
    op("index_reduce", index_reduce, IndexReduceBackward0, inplace=True, sample=Sample(
        [((3, 2), (4, 2))], call=lambda torch, x, s: (
            x.index_reduce(0, torch.tensor([0, 2, 0, 0]), s, "prod"),
            x.index_reduce(0, torch.tensor([0, 2, 0, 0]), s, "mean", include_self=False),
            torch.index_reduce(x, 0, torch.tensor([1, 2, 1, 0]), s, "amax")))),
]
