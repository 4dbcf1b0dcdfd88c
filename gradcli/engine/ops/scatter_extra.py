"""Ops the tutorial corpus's docstring snippets found missing (tests/tutorial_corpus, corpus6):
slice_scatter, select_scatter and diagonal_scatter (a copy of the input with one view of it replaced,
differentiable in both), adjoint (the transpose of the last two dims, a view, for real tensors),
combinations (ATen's composite: meshgrid, a triangular mask, masked_select, stack), gcd and lcm
(integer only) and histogram (ATen's linear-interpolation binning with its local search)."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors, limits
from ..device import xp_of
from ..function import Function, record
from ..tensor import Tensor, wrap, wrap_dim
from ..warnonce import warn_once
from . import gather_scatter as GS
from . import join_split as JS
from . import linalg_extra as LX
from . import shape as S
from . import shape_extra as SX
from .elementwise_common import broadcast_error, kernel_error
from .reduction import return_type
from .registry import Sample, op, tables
from .special import inplace_method
from . import index_reduce as IR


def _sizes(shape):
    return f"[{', '.join(map(str, shape))}]"


def _check_src(src, view_shape):
    if tuple(src._data.shape) != tuple(view_shape):
        raise errors.runtime(f"expected src to have a size equal to the slice of self. src size = "
                             f"{_sizes(src._data.shape)}, slice size = {_sizes(view_shape)}")


def _scattered(input, src, view):
    """A copy of input's data with view(copy) replaced by src's data."""
    out = input._data.copy()
    view(out)[...] = src._data.astype(out.dtype, copy=False)
    return wrap(out, input.dtype)


def _slice_key(ndim, dim, start, end, step):
    return (slice(None),) * dim + (slice(start, end, step),)


class SliceScatterBackward0(Function):
    __slots__ = ()
    explain = "1 outside the replaced slice (input), 1 on it (src)"
    explain_factor = False

    @staticmethod
    def forward(xp, x, src, key):
        out = x.copy()
        out[key] = src
        return out

    def backward(self, g):
        key = self._kw["key"]
        gs = g[key]
        return slice_scatter_key(g, gs.detach() * 0, key), gs


def slice_scatter_key(input, src, key):
    _check_src(src, input._data[key].shape)
    return record(SliceScatterBackward0, (input, src), _scattered(input, src, lambda a: a[key]), {"key": key})


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    d = wrap_dim(dim, input._data.ndim)
    return slice_scatter_key(input, src, _slice_key(input._data.ndim, d, start, end, step))


class SelectScatterBackward0(SliceScatterBackward0):
    __slots__ = ()
    explain = "1 outside the replaced index (input), 1 on it (src)"


def select_scatter(input, src, dim, index):
    shape = input._data.shape
    d = wrap_dim(dim, len(shape))
    if not -shape[d] <= index < shape[d]:
        raise errors.index(f"select(): index {index} out of range for tensor of size {_sizes(shape)} at dimension {d}")
    key = (slice(None),) * d + (index,)
    _check_src(src, input._data[key].shape)
    return record(SelectScatterBackward0, (input, src), _scattered(input, src, lambda a: a[key]), {"key": key})


class DiagonalScatterBackward0(Function):
    __slots__ = ()
    explain = "1 off the replaced diagonal (input), 1 on it (src)"
    explain_factor = False

    @staticmethod
    def forward(xp, x, src, offset, d1, d2):
        out = x.copy()
        LX.diagonal_view_array(out, offset, d1, d2)[...] = src
        return out

    def backward(self, g):
        k = self._kw
        gs = LX.diagonal(g, k["offset"], k["d1"], k["d2"])
        return diagonal_scatter(g, gs.detach() * 0, k["offset"], k["d1"], k["d2"]), gs


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    nd = input._data.ndim
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    _check_src(src, LX.diagonal_view_array(input._data, offset, d1, d2).shape)
    out = _scattered(input, src, lambda a: LX.diagonal_view_array(a, offset, d1, d2))
    return record(DiagonalScatterBackward0, (input, src), out, {"offset": offset, "d1": d1, "d2": d2})


def _batch_transpose(input, name, zero_d):
    """adjoint/mH (mT: shape.py): a 0-d tensor is itself, with torch's deprecation warning; 1-d is refused."""
    nd = input._data.ndim
    if nd == 0:
        warn_once(zero_d, UserWarning, stacklevel=3)
        return input
    if nd < 2:
        raise errors.runtime(f"tensor.{name} is only supported on matrices or batches of matrices. "
                             f"Got {nd}-D tensor.")
    return S.transpose(input, -2, -1)


def adjoint(input):
    return _batch_transpose(input, "adjoint()", "adjoint() is deprecated on 0-D tensors. Consider using x.conj().")


def matrix_mh(input):
    return _batch_transpose(input, "mH", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")


def matrix_h(input):
    nd = input._data.ndim
    if nd == 0:
        warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return input
    if nd != 2:
        raise errors.runtime(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor."
                             + (" For batches of matrices, consider using tensor.mH" if nd > 2 else ""))
    return S.transpose(input, 0, 1)


def itself(input):
    """conj, conj_physical, resolve_conj, resolve_neg of a real tensor: the tensor itself."""
    return input


def combinations(input, r=2, with_replacement=False):
    """ATen's combinations: meshgrid of r copies, the mask i < j < ... (<= with replacement),
    masked_select of each grid, stacked on dim 1 (its nodes: StackBackward0 over MaskedSelectBackward0)."""
    if input._data.ndim != 1:
        raise errors.runtime(f"Expect a 1D vector, but got shape {_sizes(input._data.shape)}")
    if r < 0:
        raise errors.runtime(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return wrap(xp_of(input._data).empty((0,), input._data.dtype), input.dtype)
    n = input._data.shape[0]
    # the grids and the mask have n**r elements (ATen's meshgrid too): --max-elements before NumPy is asked
    # (combinations(arange(100000.), 2) was NumPy's 'Unable to allocate 74.5 GiB'; an r of 10**9 a list of
    # 10**9 grids); past r = 64 a size of two or more is beyond any limit, and n**r is not computed
    limits.check_numel(max(r, n ** r if n < 2 or r <= 64 else n ** 64))  # r grids, each of n**r
    index = np.meshgrid(*([np.arange(n)] * r), indexing="ij")
    mask = np.ones((n,) * r, dtype=bool)
    for a, b in zip(index, index[1:]):
        mask &= (a <= b) if with_replacement else (a < b)
    grids = SX.meshgrid(*([input] * r), indexing="ij")
    m = wrap(xp_of(input._data).asarray(mask), dtypes.bool_)
    return JS.stack([GS.masked_select(g, m) for g in grids], 1)


def _integer_pair(name, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    dt = dtypes.result_type((input, other))  # a 0-d operand gives way to a dimensioned one of its category
    try:  # TensorIterator's broadcast comes before the kernel's dtype check
        x, y = np.broadcast_arrays(input._data, other._data)
    except ValueError:
        raise broadcast_error(input, other) from None
    if dt.category != dtypes.INT:
        raise kernel_error(f"{name}_cpu", dt)
    return x.astype(dt.np), y.astype(dt.np), dt


def gcd(input, other):
    x, y, dt = _integer_pair("gcd", input, other)
    return wrap(np.gcd(x, y).astype(dt.np), dt)


def lcm(input, other):
    x, y, dt = _integer_pair("lcm", input, other)
    with np.errstate(all="ignore"):
        g = np.gcd(x, y)
        out = np.where(g == 0, 0, np.abs(x // np.where(g == 0, 1, g) * y))
    return wrap(out.astype(dt.np), dt)


def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002 - torch's name
    from ..factory import linspace  # noqa: PLC0415
    if input.dtype.category != dtypes.FLOAT:
        raise kernel_error("histogramdd", input.dtype)
    x = input._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins.detach().contiguous()
    else:
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.size:
            lo, hi = float(x.min()), float(x.max())
        else:
            lo = hi = 0.0
        if lo > hi:
            raise errors.runtime(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} "
                                 "for dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = linspace(lo, hi, bins + 1, dtype=input.dtype)
    e = edges._data
    n = e.shape[0] - 1
    dt = x.dtype.type
    left, right = e[0], e[-1]
    keep = (x >= left) & (x <= right)
    xs = x[keep]
    w = None if weight is None else weight._data.reshape(-1)[keep]
    if isinstance(bins, Tensor):
        pos = np.searchsorted(e, xs, side="right") - 1
    else:  # (elt - leftmost) * bin_ct / (rightmost - leftmost), in the input's dtype, then the local search
        pos = ((xs - left) * dt(n) / (right - left)).astype(np.int64)
        pos = np.clip(pos, 0, n - 1)
        pos = np.where(xs < e[pos], pos - 1, np.where(xs >= e[np.minimum(pos + 1, n)], pos + 1, pos))
    pos = np.minimum(pos, n - 1)
    hist = np.zeros(n, dtype=x.dtype)
    np.add.at(hist, pos, dt(1) if w is None else w.astype(x.dtype))
    if density:
        widths = np.diff(e)
        hist = hist / (hist.sum() * widths)
    return _HISTOGRAM((wrap(hist.astype(x.dtype), input.dtype), wrap(e.copy(), input.dtype)))


_HISTOGRAM = return_type("histogram", ("hist", "bin_edges"))
_NOGRAD_INT = "integer inputs and results"
# One declaration per op (registry.py): its names, nodes and gradient-check sample
OPS = [
    op("slice_scatter", slice_scatter, SliceScatterBackward0,
       sample=Sample([((4, 3), (2, 3))], call=lambda torch, x, s: x.slice_scatter(s, start=1, end=4, step=2))),
    op("select_scatter", select_scatter, SelectScatterBackward0,
       sample=Sample([((4, 3), (3,))], call=lambda torch, x, s: torch.select_scatter(x, s, 0, -1))),
    op("diagonal_scatter", diagonal_scatter, DiagonalScatterBackward0,
       sample=Sample([((3, 4), (3,))], call=lambda torch, x, s: torch.diagonal_scatter(x, s, 1))),
    op("adjoint", adjoint, S.TransposeBackward0, sample=Sample([((2, 3),), ((2, 3, 4),)])),
    op("mH", matrix_mh, S.TransposeBackward0, torch=False, prop=True,
       sample=Sample([((2, 3),)], call=lambda torch, x: x.mH)),
    op("H", matrix_h, S.TransposeBackward0, torch=False, prop=True,
       sample=Sample([((2, 3),)], call=lambda torch, x: x.H)),
    op("conj", itself, aliases=("conj_physical", "resolve_conj", "resolve_neg"),
       no_grad="a real tensor's conjugate is the tensor itself (no node)"),
    op("is_conj", lambda input: False, no_grad="a bool answer (real tensors only)"),
    op("is_neg", lambda input: False, no_grad="a bool answer (real tensors only)"),
    op("combinations", combinations, JS.StackBackward0, GS.MaskedSelectBackward0, method=False,
       sample=Sample([((4,),)], call=lambda torch, x: (torch.combinations(x), torch.combinations(x, 3, True)))),
    op("gcd", gcd, inplace=True, torch_inplace=True, no_grad=_NOGRAD_INT),
    op("lcm", lcm, inplace=True, torch_inplace=True, no_grad=_NOGRAD_INT),
    op("histogram", histogram, no_grad="torch.histogram has no derivative (its results are counts and edges)"),
] + IR.OPS
_TABLES = tables(OPS, inplace_method)
METHODS = _TABLES["METHODS"]
INPLACE = _TABLES["INPLACE"]
METHOD_ONLY = tuple(_TABLES["METHOD_ONLY"])
TORCH = _TABLES["TORCH"]
