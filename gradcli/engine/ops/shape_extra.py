"""Shape ops beyond views/cat/stack: roll, rot90, diff, unflatten, atleast_1d/2d/3d,
repeat_interleave, take, take_along_dim, meshgrid, cartesian_prod, flipud/fliplr, tensor_split and
h/v/dsplit, dstack/column_stack/row_stack, broadcast_tensors, unfold. (masked_select and scatter
are the core's, ops/indexing.py.)

Composite ops are built from the engine's primitives in torch's own order, so their grad_fn names
are torch's (`diff` is SubBackward0, `repeat_interleave` ViewBackward0, `meshgrid` ExpandBackward0).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..limits import check_numel, check_shape, metered
from ..function import Function, record
from ..size import Size
from ..argcheck import check_int_list, int64_args
from ..tensor import Tensor, wrap_dim, wrap
from ..views import view_of
from . import arithmetic as AR
from . import comparison as CP
from . import elementwise_common as EC
from . import indexing as I
from . import gather_scatter as GS
from . import shape as S
from . import join_split as JS
from . import replays
from .registry import Sample, V, case, op, tables
from .special_common import warn_once
from ..device import asarray as _asarray
from ..device import on_host, scatter_add as _scatter_add_at, xp_of


def _ints(seq):
    if isinstance(seq, (int, np.integer)):
        return (int(seq),)
    return tuple(int(s) for s in seq)


# ---------------------------------------------------------------------------- roll, rot90, flips

class RollBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.roll(xs[0], kw["shifts"], axis=kw["dims"]).reshape(outs[0])])
    explain = "1 at each element's rolled position (a roll)"
    explain_factor = False

    def backward(self, g):
        k = self._kw
        return (roll(g, tuple(-s for s in k["shifts"]), k["dims"]),)


def roll(input, shifts, dims=None):
    shifts = _ints(shifts)
    int64_args(*shifts, *(_ints(dims) if dims is not None else ()))
    data = input._data
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        if len(shifts) != 1:
            raise errors.runtime(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        r = np.roll(data.reshape(-1), shifts[0]).reshape(data.shape)
        return record(RollBackward0, (input,), wrap(r, input.dtype), {"shifts": shifts, "dims": None})
    dims = _ints(dims)
    if data.ndim == 0 and dims:  # maybe_wrap_dim without wrap_scalar
        raise errors.index(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    if len(shifts) != len(dims):
        raise errors.runtime(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(wrap_dim(d, data.ndim) for d in dims)
    r = np.roll(data, shifts, dims) if data.size else data.copy()
    return record(RollBackward0, (input,), wrap(xp_of(r).ascontiguousarray(r), input.dtype),
                  {"shifts": shifts, "dims": dims})


class Rot90Backward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.rot90(xs[0], kw["k"], axes=tuple(kw["dims"]))])
    explain = "1 at each element's rotated position (a rotation by 90 degrees)"
    explain_factor = False

    def backward(self, g):
        k = self._kw
        return (rot90(g, -k["k"], k["dims"]),)


def rot90(input, k=1, dims=(0, 1)):
    dims = _ints(dims)
    int64_args(k, *dims)  # rot90(2**64) rotated by 2**64 % 4
    nd = input._data.ndim
    if len(dims) != 2:
        raise errors.runtime(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise errors.runtime(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = (wrap_dim(d, nd) for d in dims)
    if d0 == d1:
        raise errors.runtime(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    r = xp_of(input._data).ascontiguousarray(np.rot90(input._data, k, (d0, d1)))
    return record(Rot90Backward0, (input,), wrap(r, input.dtype), {"k": k, "dims": (d0, d1)})


def flip(input, *dims):
    if not dims:
        raise errors.missing_arguments("flip", "dims")
    check_int_list("flip", "dims", dims)  # an int past int64: the parser's error, before the dims' checks
    if len(dims) == 1 and isinstance(dims[0], (list, tuple, Size)):
        dims = tuple(dims[0])
    return S.flip(input, dims[0] if len(dims) == 1 else dims)


def flipud(input):
    if input._data.ndim < 1:
        raise errors.runtime("Input must be >= 1-d.")
    return S.flip(input, (0,))


def fliplr(input):
    if input._data.ndim < 2:
        raise errors.runtime("Input must be >= 2-d.")
    return S.flip(input, (1,))


# ---------------------------------------------------------------------------- diff, unflatten, atleast

def diff(input, n=1, dim=-1, prepend=None, append=None):
    int64_args(n, dim)
    if input._data.ndim == 0:
        raise errors.runtime("diff expects input to be at least one-dimensional")
    if n < 0:
        raise errors.runtime(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input._data.ndim)
    x = input
    if prepend is not None or append is not None:
        parts = []
        if prepend is not None:
            parts.append(prepend if isinstance(prepend, Tensor) else _scalar_like(prepend, x, d))
        parts.append(x)
        if append is not None:
            parts.append(append if isinstance(append, Tensor) else _scalar_like(append, x, d))
        x = JS.cat(parts, d)
    if n == 0:
        from ..factory import empty_like  # noqa: PLC0415
        return empty_like(x).copy_(x)
    for _ in range(n):
        length = x._data.shape[d]
        if length == 0:
            break
        hi = JS.narrow(x, d, 1, length - 1)
        lo = JS.narrow(x, d, 0, length - 1)
        x = CP.logical_xor(hi, lo) if x.dtype is dtypes.bool_ else AR.sub(hi, lo)
    return x


def _scalar_like(value, like, d):
    shape = list(like._data.shape)
    shape[d] = 1
    return wrap(xp_of(like._data).full(shape, value, like._data.dtype), like.dtype)


def unflatten(input, dim, sizes):
    d = wrap_dim(dim, input._data.ndim)
    sizes = _ints(sizes)
    n = input._data.shape[d]
    if sum(1 for s in sizes if s == -1) > 1:
        raise errors.runtime("only one dimension can be inferred")
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes:
        if known == 0 or n % known:
            raise errors.runtime(f"unflatten: Provided sizes [{', '.join(map(str, sizes))}] don't multiply up to the "
                                 f"size of dim {dim} ({n}) in the input tensor")
        sizes = tuple(n // known if s == -1 else s for s in sizes)
    elif known != n:
        raise errors.runtime(f"unflatten: Provided sizes [{', '.join(map(str, sizes))}] don't multiply up to the "
                             f"size of dim {dim} ({n}) in the input tensor")
    shape = input._data.shape
    return S.view(input, shape[:d] + sizes + shape[d + 1:])


def _atleast(tensors, fix):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(fix(t) for t in tensors[0])
    if len(tensors) == 1:
        return fix(tensors[0])
    return tuple(fix(t) for t in tensors)


def _fix1(t):
    return S.reshape(t, (1,)) if t._data.ndim == 0 else t


def _fix2(t):
    if t._data.ndim == 0:
        return S.reshape(t, (1, 1))
    if t._data.ndim == 1:
        return S.unsqueeze(t, 0)
    return t


def _fix3(t):
    nd = t._data.ndim
    if nd == 0:
        return S.reshape(t, (1, 1, 1))
    if nd == 1:
        return S.unsqueeze(S.unsqueeze(t, 0), -1)
    if nd == 2:
        return S.unsqueeze(t, -1)
    return t


def atleast_1d(*tensors):
    return _atleast(tensors, _fix1)


def atleast_2d(*tensors):
    return _atleast(tensors, _fix2)


def atleast_3d(*tensors):
    return _atleast(tensors, _fix3)


# ---------------------------------------------------------------------------- repeat_interleave, take

def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    int64_args(repeats, dim, output_size)  # the parser's ints: 2**64 is its ValueError, not the element limit's
    if repeats is None:  # torch.repeat_interleave(repeats): the indices each position repeats
        counts = input._data  # CuPy's repeat takes no array of counts: the index is made on the host
        if counts.size:
            check_numel(int(counts.sum()))
        return wrap(on_host(lambda c: np.repeat(np.arange(c.shape[0]), c).astype(np.int64), counts), dtypes.int64)
    x = input
    if dim is None:
        x = S.flatten(x)
        d = 0
    else:
        d = wrap_dim(dim, x._data.ndim)
    if isinstance(repeats, Tensor) and repeats._data.ndim > 0 and repeats._data.size != 1:
        reps = repeats._data
        if (reps < 0).any():
            raise errors.runtime("repeats can not be negative")
        if reps.shape[0] != x._data.shape[d]:
            raise errors.runtime(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                                 f"{reps.shape[0]} and input.size({d}) = {x._data.shape[d]}")
        check_numel(int(reps.sum()) * (x._data.size // max(1, x._data.shape[d])))
        idx = wrap(on_host(lambda c: np.repeat(np.arange(c.shape[0]), c).astype(np.int64), reps), dtypes.int64)
        return GS.index_select(x, d, idx)
    r = int(repeats.item() if isinstance(repeats, Tensor) else repeats)
    if r < 0:
        raise errors.runtime("Repeats must be non-negative")
    if x._data.ndim == 0:
        x = S.reshape(x, (1,))
    shape = x._data.shape
    u = S.unsqueeze(x, d + 1)
    e = S.expand(u, shape[:d + 1] + (r,) + shape[d + 1:])
    c = S.clone(e)
    return S.reshape(c, shape[:d] + (shape[d] * r,) + shape[d + 1:])


class TakeBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    replay = staticmethod(lambda xs, kw, outs: [np.take(xs[0].reshape(-1), np.asarray(xs[1], np.int64)).reshape(outs[0])])
    explain = ("1 at each taken element of {a} (summed where taken twice), 0 elsewhere", "0")
    explain_factor = False

    def backward(self, g):
        k = self._kw
        return (_take_scatter(g, k["index"], k["in_shape"]), None)


class _TakeScatter(Function):
    """zeros with g added at the flat indices (the backward of take; its backward is take)."""
    __slots__ = ()

    def backward(self, g):
        return (take(g, self._kw["index"]),)

    def name(self):
        return "PutBackward0"


def _take_scatter(g, index, in_shape):
    flat = xp_of(g._data).zeros(int(np.prod(in_shape)) if in_shape else 1, g._data.dtype)
    idx = index._data.reshape(-1)
    idx = np.where(idx < 0, idx + flat.size, idx)
    _scatter_add_at(flat, idx, g._data.reshape(-1))
    return record(_TakeScatter, (g,), wrap(flat.reshape(in_shape), g.dtype), {"index": index})


def take(input, index):
    if index.dtype.is_floating_point or index.dtype is dtypes.bool_:
        raise errors.runtime(f"take(): Expected a long tensor for index, but got {EC.c10_name(index.dtype)}")
    n = input._data.size
    idx = index._data
    bad = idx[(idx >= n) | (idx < -n)] if idx.size else idx[:0]
    if bad.size:
        raise errors.index(f"out of range: tried to access index {int(bad.reshape(-1)[0])} on a tensor of {n} "
                           "elements.")
    r = input._data.reshape(-1)[idx]
    return record(TakeBackward0, (input, index), wrap(_asarray(r), input.dtype),
                  {"index": index, "in_shape": input._data.shape})


def take_along_dim(input, indices, dim=None):
    if dim is None:
        return GS.gather(S.view(input, (-1,)), 0, S.view(indices, (-1,)))
    nd = input._data.ndim
    d = wrap_dim(dim, nd)
    if indices._data.ndim != nd:
        raise errors.runtime(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                             f"but got {nd} dimensions for input, and {indices._data.ndim} dimensions for indices")
    a = list(input._data.shape)
    b = list(indices._data.shape)
    a[d] = b[d] = 1
    try:
        bshape = list(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise EC.broadcast_error(input, indices) from None
    in_shape = list(bshape)
    in_shape[d] = input._data.shape[d]
    check_shape(in_shape)  # (the input broadcast to it, and the result:)
    check_shape(bshape[:d] + [indices._data.shape[d]] + bshape[d + 1:])
    idx_shape = list(bshape)
    idx_shape[d] = indices._data.shape[d]
    x = S.expand(input, tuple(in_shape))
    idx = wrap(xp_of(indices._data).ascontiguousarray(np.broadcast_to(indices._data, tuple(idx_shape))),
               indices.dtype)
    return GS.gather(x, d, idx)


# ---------------------------------------------------------------------------- meshgrid, cartesian_prod

_MESHGRID_WARNING = ("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. "
                     "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)")


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warn_once(_MESHGRID_WARNING)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise errors.runtime(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise errors.runtime("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._data.ndim > 1:
            raise errors.runtime("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                                 f"{' '.join(str(v) for v in t._data.reshape(-1)[:4].tolist())}")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise errors.runtime("meshgrid expects all tensors to have the same dtype")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(int(t._data.size) for t in ts)
    outs = []
    for i, t in enumerate(ts):
        view_shape = [1] * len(ts)
        view_shape[i] = -1
        outs.append(S.expand(S.view(t, tuple(view_shape)), shape))
    if swap:  # 'xy': the grids of the swapped inputs, given back in the callers' order
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


def cartesian_prod(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        if t._data.ndim != 1:
            raise errors.runtime(f"Expect a 1D vector, but got shape [{', '.join(map(str, t._data.shape))}]")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return JS.stack([S.flatten(g) for g in grids], 1)


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    try:
        shape = np.broadcast_shapes(*[t._data.shape for t in tensors])
    except ValueError:
        raise EC.broadcast_error(tensors[0], tensors[-1]) from None
    return tuple(t if t._data.shape == shape else S.expand(t, shape) for t in tensors)


def broadcast_shapes(*shapes):
    try:
        return Size(np.broadcast_shapes(*[_ints(s) for s in shapes]))
    except ValueError:
        raise errors.runtime("shape mismatch: objects cannot be broadcast to a single shape") from None


# ---------------------------------------------------------------------------- splits and stacks

def tensor_split(input, indices_or_sections, dim=0):
    if input._data.ndim == 0:
        raise errors.runtime("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        int64_args(sections)
        if sections <= 0:
            raise errors.runtime(f"number of sections must be larger than 0, got {sections}")
        size, extra = divmod(n, sections)
        bounds, start = [], 0
        for i in metered(range(sections)):  # the script's number of pieces: each a step (10**12 ran for ever)
            length = size + (1 if i < extra else 0)
            bounds.append((start, length))
            start += length
    else:
        cuts = [0] + [min(max(int(i) if i >= 0 else n + int(i), 0), n) for i in indices_or_sections] + [n]
        bounds = [(a, max(b - a, 0)) for a, b in zip(cuts[:-1], cuts[1:])]
        bounds = [(min(a, n), length) for a, length in bounds]
    return tuple(JS.narrow(input, d, a, length) for a, length in bounds)


def _split_named(input, sections, dim, name, min_dim):
    nd = input._data.ndim
    if nd < min_dim:
        raise errors.runtime(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                             f"with {nd} dimensions!")
    if isinstance(sections, int):
        size = input._data.shape[dim]
        if sections == 0 or size % sections:
            raise errors.runtime(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                                 f"dimension {size} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    return _split_named(input, indices_or_sections, 1 if input._data.ndim > 1 else 0, "hsplit", 1)


def vsplit(input, indices_or_sections):
    return _split_named(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    return _split_named(input, indices_or_sections, 2, "dsplit", 3)


def dstack(tensors):
    return JS.cat(list(atleast_3d(tuple(tensors))), 2)


def column_stack(tensors):
    parts = [S.reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in tensors]
    return JS.cat(parts, 1)


def row_stack(tensors):
    return JS.cat(list(atleast_2d(tuple(tensors))), 0)


# ---------------------------------------------------------------------------- unfold

class UnfoldBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.unfold)
    explain = "1 for each window an element of {a} is in (summed over the windows)"
    explain_factor = False

    def backward(self, g):
        k = self._kw
        return (_unfold_backward(g, k["in_shape"], k["dim"], k["size"], k["step"]),)


class UnfoldBackwardBackward0(Function):
    __slots__ = ()

    def backward(self, g):
        k = self._kw
        return (unfold(g, k["dim"], k["size"], k["step"]),)


def _windows(data, d, size, step):
    n = (data.shape[d] - size) // step + 1 if data.ndim else 1
    shape = data.shape[:d] + (n,) + data.shape[d + 1:] + (size,)
    strides = data.strides[:d] + (data.strides[d] * step,) + data.strides[d + 1:] + (data.strides[d],)
    if type(data) is not np.ndarray:  # CuPy's as_strided has no writeable flag
        return xp_of(data).lib.stride_tricks.as_strided(data, shape, strides)
    return np.lib.stride_tricks.as_strided(data, shape, strides, writeable=False)


def _unfold_backward(g, in_shape, d, size, step):
    out = xp_of(g._data).zeros(in_shape, g._data.dtype)
    n = g._data.shape[d]
    for i in range(n):
        sl = [slice(None)] * len(in_shape)
        sl[d] = slice(i * step, i * step + size)
        window = np.take(g._data, i, axis=d)  # (..., size) with dim d removed
        out[tuple(sl)] += np.moveaxis(window, -1, d)
    return record(UnfoldBackwardBackward0, (g,), wrap(out, g.dtype), {"dim": d, "size": size, "step": step})


def unfold(input, dimension, size, step):
    int64_args(dimension, size, step)
    data = input._data
    d = wrap_dim(dimension, data.ndim) if data.ndim else 0
    length = data.shape[d] if data.ndim else 1
    if size > length:
        raise errors.runtime(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise errors.runtime(f"step is {step} but must be > 0")
    windows = (length - size) // step + 1
    check_shape(data.shape[:d] + (windows,) + data.shape[d + 1:] + (size,))  # a view, as expand's: later ops copy it
    arr = _windows(data if data.ndim else data.reshape(1), d, size, step)
    return record(UnfoldBackward0, (input,), view_of(input, arr),
                  {"in_shape": data.shape, "dim": d, "size": size, "step": step})


# ---------------------------------------------------------------------------- select

def select(input, dim, index):
    """x.select(dim, index): x[..., index] at dim, a view (SelectBackward0) as indexing makes it."""
    int64_args(dim, index)
    shape = input._data.shape
    if not shape:
        raise errors.index("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, len(shape))
    index = int(index)
    if not -shape[d] <= index < shape[d]:
        raise errors.index(f"select(): index {index} out of range for tensor of size [{', '.join(map(str, shape))}] "
                           f"at dimension {d}")
    return I.getitem(input, (slice(None),) * d + (index,))


# ---------------------------------------------------------------------------- registration

_R = "reduce"
_S1 = [((3,),), ((2, 3),)]
_SHAPE = "a shape (torch.Size), no tensor"
# One declaration per op (registry.py): its names, nodes and gradient-check sample
OPS = [
    op("roll", roll, RollBackward0, sample=Sample(_R, args=(1, 0)),
       cases={"roll": case(lambda torch, x: torch.roll(x, (1, -1), (0, 1)), V.M23),
              "roll_flat": case(lambda torch, x: torch.roll(x, 2), V.M23)}),
    op("rot90", rot90, Rot90Backward0, sample=Sample([((2, 3),), ((2, 2, 2),)]),
       cases={"rot90": case(lambda torch, x: torch.rot90(x, 1), V.M23),
              "rot90_back": case(lambda torch, x: torch.rot90(x, -1, (1, 0)), V.M23)}),
    op("flip", flip, S.FlipBackward0, sample=Sample(_R, call=lambda torch, x: x.flip(0)),
       cases={"flip_varargs": case(lambda torch, x: x.flip(0, 1), V.M23)}),
    op("fliplr", fliplr, S.FlipBackward0, sample=Sample([((2, 3),)]),
       cases={"fliplr": case(lambda torch, x0: torch.fliplr(x0), V.M23)}),
    op("flipud", flipud, S.FlipBackward0, sample=Sample([((2, 3),)]),
       cases={"flipud": case(lambda torch, x0: torch.flipud(x0), V.M23)}),
    op("diff", diff, sample=Sample(_R),
       cases={"diff": case(lambda torch, x: torch.diff(x, n=2), V.M23),
              "diff_prepend": case(lambda torch, x, p: torch.diff(x, dim=0, prepend=p), V.M23, [[1.0, 2.0, 3.0]])}),  # slices' and sub's nodes
    op("unflatten", unflatten, S.ViewBackward0, python_method=True, sample=Sample(_R, call=lambda torch, x: x.unflatten(0, (1, x.shape[0]))),
       cases={"unflatten": case(lambda torch, x: torch.unflatten(x, 1, (3, 1)), V.M23)}),
    op("repeat_interleave", repeat_interleave, sample=Sample(_R, call=lambda torch, x: x.repeat_interleave(2, dim=0)),
       cases={"repeat_interleave": case(lambda torch, x: torch.repeat_interleave(x, 2, dim=1), V.M23),
              "repeat_interleave_tensor": case(lambda torch, x: torch.repeat_interleave(x, torch.tensor([2, 0, 1, 1, 3])), V.A)}),
    op("take", take, TakeBackward0, sample=Sample([((2, 3),), ((5,),)], call=lambda torch, x: torch.take(
        x, torch.tensor([0, 4, 4, 1]))),
       cases={"take": case(lambda torch, x: torch.take(x, torch.tensor([[0, 4], [4, -1]])), V.M23)}),
    op("take_along_dim", take_along_dim, GS.GatherBackward0, sample=Sample([((2, 3),)], call=lambda torch, x: (
        torch.take_along_dim(x, torch.tensor([[2, 0], [1, 1]]), dim=1))),
       cases={"take_along_dim": case(lambda torch, x: torch.take_along_dim(x, torch.tensor([[0, 2]]), dim=1), V.M23)}),
    op("tensor_split", tensor_split, sample=Sample(_R, args=(2,)),
       cases={"tensor_split": case(lambda torch, x: torch.tensor_split(x, [1], dim=1), V.M23)}),  # slices' nodes
    op("hsplit", hsplit, sample=Sample([((4,),), ((2, 4),)], args=(2,))),
    op("vsplit", vsplit, sample=Sample([((2, 3),)], args=(2,))),
    op("dsplit", dsplit, sample=Sample([((1, 2, 4),)], args=(2,))),
    op("unfold", unfold, UnfoldBackward0, torch=False, sample=Sample(_R, call=lambda torch, x: x.unfold(0, 2, 1)),
       cases={"unfold": case(lambda torch, x: x.unfold(1, 2, 1), V.M23)}),
    op("select", select, sample=Sample(_S1, call=lambda torch, x: x.select(-1, 1))),  # SelectBackward0
    # torch.X only
    op("atleast_1d", atleast_1d, method=False, sample=Sample([((),), ((3,),)])),
    op("atleast_2d", atleast_2d, method=False, sample=Sample([((),), ((3,),)])),
    op("atleast_3d", atleast_3d, method=False, sample=Sample([((3,),), ((2, 3),)]),
       cases={"atleast_3d": case(lambda torch, x0: torch.atleast_3d(x0), V.A)}),
    op("meshgrid", meshgrid, method=False, sample=Sample([((3,), (2,))], kwargs={"indexing": "xy"}),
       cases={"meshgrid": case(lambda torch, a, b: torch.meshgrid(a, b, indexing='xy'), V.A[:3], V.B[:2])}),
    op("cartesian_prod", cartesian_prod, method=False, sample=Sample([((3,), (2,))]),
       cases={"cartesian_prod": case(lambda torch, x0, x1: torch.cartesian_prod(x0, x1), V.A[:3], V.B[:2])}),
    op("broadcast_tensors", broadcast_tensors, method=False, sample=Sample([((2, 3), (3,))]),
       cases={"broadcast_tensors": case(lambda torch, x0, x1: torch.broadcast_tensors(x0, x1), V.M23, V.A[:3])}),
    op("broadcast_shapes", broadcast_shapes, method=False, no_grad=_SHAPE),
    op("dstack", dstack, method=False, sample=Sample([((2, 3), (2, 3))], call=lambda torch, x, y: torch.dstack([x, y])),
       cases={"dstack": case(lambda torch, a, b: torch.dstack([a, b]), V.M23, V.M23)}),
    op("column_stack", column_stack, method=False,
       sample=Sample([((3,), (3,))], call=lambda torch, x, y: torch.column_stack([x, y])),
       cases={"column_stack": case(lambda torch, a, b: torch.column_stack([a, b]), V.A, V.B)}),
    op("row_stack", row_stack, method=False,
       sample=Sample([((3,), (2, 3))], call=lambda torch, x, y: torch.row_stack([x, y]))),
]
_TABLES = tables(OPS, None)
METHODS = _TABLES["METHODS"]                  # Tensor methods (and torch.<name>, but for METHOD_ONLY's)
METHOD_ONLY = tuple(_TABLES["METHOD_ONLY"])   # Tensor methods that are not torch.<name> functions
TORCH = _TABLES["TORCH"]                      # torch.<name> only
INPLACE = _TABLES["INPLACE"]                  # x.name_() (none yet)

