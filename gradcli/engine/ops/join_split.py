"""repeat and tile, cat/concat/concatenate, stack, hstack, vstack, narrow, split, chunk and unbind,
with their nodes and declarations (OPS): a family of the core (methods.py derives its tables),
next to ops/shape.py (views, expand, transpose, squeeze, flip, clone).
"""
from __future__ import annotations

import numpy as np

from .. import errors
from ..device import check_args
from ..function import Function, MultiOutputFunction, record, record_multi
from ..limits import check_numel, check_shape
from ..argcheck import check_int_list, int64_args, takes_int, typename
from ..tensor import Tensor, wrap, wrap_dim
from ..views import view_of
from . import replays, words
from .registry import Sample, op
from .shape import REDUCE, S1, reshape, shape_arg, unsqueeze

# ---------------------------------------------------------------------------- repeat, cat/stack, narrow, split/chunk/unbind

class RepeatBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.tile(xs[0], kw["reps"]).reshape(outs[0])])
    explain = "1 for each copy of {a} (the gradient is summed over the repeats)"
    explain_factor = False

    def backward(self, g):
        """torch's repeat_backward: the new leading dims summed one by one, then every repeated dim split
        into (repeat, size) and the repeat axes summed in one go (nothing to do where all repeats are 1)."""
        reps, in_shape = self._kw["reps"], self._kw["in_shape"]
        if 0 in reps:
            from ..factory import zeros  # noqa: PLC0415
            return (zeros(in_shape, dtype=g.dtype, device=g.device),)
        from .reduction import sum as _sum  # noqa: PLC0415
        lead = len(reps) - len(in_shape)
        for _ in range(lead):
            g = _sum(g, 0)
        grad_size, sum_dims = [], []
        for d, size in enumerate(in_shape):
            if reps[d + lead] != 1:
                grad_size.append(reps[d + lead])
                sum_dims.append(len(grad_size) - 1)
            grad_size.append(size)
        if sum_dims:
            g = _sum(reshape(g, tuple(grad_size)), tuple(sum_dims))
        return (g,)


def repeat(input, *reps):
    if not reps:
        raise errors.missing_arguments("repeat", "repeats")
    check_int_list("repeat", "repeats", reps)
    reps = shape_arg(reps)
    if len(reps) < input._data.ndim:
        raise errors.runtime("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                             "of tensor")
    lead = (1,) * (len(reps) - input._data.ndim) + input._data.shape
    check_shape([r * s for r, s in zip(reps, lead)])
    arr = np.tile(input._data, reps)
    return record(RepeatBackward0, (input,), wrap(arr, input.dtype), {"reps": reps, "in_shape": input._data.shape})


def tile(input, dims=None):
    if dims is None:
        raise errors.missing_arguments("tile", "dims")
    dims = (dims,) if takes_int(dims) else tuple(dims)  # an int list parameter takes one int
    check_int_list("tile", "dims", dims)
    if len(dims) < input._data.ndim:
        dims = (1,) * (input._data.ndim - len(dims)) + dims
    return repeat(input, dims)


class CatBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.cat)
    replay = staticmethod(replays.cat)

    def backward(self, g):
        dim, sizes = self._kw["dim"], self._kw["sizes"]
        out, start = [], 0
        for n, shape in zip(sizes, self._kw["shapes"]):
            if shape == (0,):  # a skipped 1-D empty tensor: an empty gradient (torch's cat_tensors_backward)
                from ..factory import zeros  # noqa: PLC0415
                out.append(zeros((0,), dtype=g.dtype, device=g.device))
                continue
            out.append(narrow(g, dim, start, n) if n is not None else None)
            start += n or 0
        return tuple(out)


def _check_list(tensors, name):
    if isinstance(tensors, Tensor):
        raise errors.type_error(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    if not tensors:
        if name == "stack":
            raise errors.runtime("stack expects a non-empty TensorList")
        raise errors.value(f"torch.{name}(): expected a non-empty list of Tensors")


def cat(tensors, dim=0):
    _check_list(tensors, "cat")
    tensors = list(tensors)
    check_numel(sum(t._data.size for t in tensors if isinstance(t, Tensor)))
    if len({type(t._data) for t in tensors}) > 1:
        check_args("cat", (("tensors", tensors),))
    for i, t in enumerate(tensors):  # torch's first check (cat_check_no_zero_dim)
        if t._data.ndim == 0:
            raise errors.runtime(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    from .. import dtypes  # noqa: PLC0415
    dt = dtypes.result_type(tensors)
    # legacy rule: 1-D empty tensors are skipped whatever the other shapes
    keep = [not (t._data.ndim == 1 and t._data.size == 0) for t in tensors]
    nonempty = [t for t, k in zip(tensors, keep) if k]
    ref = nonempty[0] if nonempty else tensors[0]
    nd = ref._data.ndim
    d = wrap_dim(dim, nd)
    for i, (t, k) in enumerate(zip(tensors, keep)):
        if not k:
            continue
        if t._data.ndim != nd:
            raise errors.runtime(f"Tensors must have same number of dimensions: got {nd} and {t._data.ndim}")
        for j in range(nd):
            if j != d and t._data.shape[j] != ref._data.shape[j]:
                raise errors.runtime(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                     f"{ref._data.shape[j]} but got size {t._data.shape[j]} for tensor number "
                                     f"{i} in the list.")
    arrays = [t._data.astype(dt.np, copy=False) for t in nonempty] or [tensors[0]._data.astype(dt.np)]
    arr = np.concatenate(arrays, axis=d)
    sizes = [t._data.shape[d] if k else 0 for t, k in zip(tensors, keep)]
    return record(CatBackward0, tuple(tensors), wrap(arr, dt), {"dim": d, "sizes": sizes,
                                                               "shapes": [t._data.shape for t in tensors]})


concat = concatenate = cat


class StackBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.cat)
    replay = staticmethod(replays.stack)

    def backward(self, g):
        # torch's stack_tensors_backward: one select per input (SelectBackward0), not unbind
        from .indexing import getitem  # noqa: PLC0415 - indexing imports this module
        lead = (slice(None),) * self._kw["dim"]
        return tuple(getitem(g, lead + (i,)) for i in range(g._data.shape[self._kw["dim"]]))


def stack(tensors, dim=0):
    _check_list(tensors, "stack")
    tensors = list(tensors)
    check_numel(sum(t._data.size for t in tensors if isinstance(t, Tensor)))
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise errors.runtime(f"stack expects each tensor to be equal size, but got "
                                 f"[{', '.join(map(str, shape))}] at entry 0 and "
                                 f"[{', '.join(map(str, t._data.shape))}] at entry {i}")
    if len({type(t._data) for t in tensors}) > 1:
        check_args("cat", (("tensors", tensors),))  # torch.stack is a cat of unsqueezed tensors
    from .. import dtypes  # noqa: PLC0415
    dt = dtypes.result_type(tensors)
    d = wrap_dim(dim, len(shape) + 1)
    arr = np.stack([t._data.astype(dt.np, copy=False) for t in tensors], axis=d)
    return record(StackBackward0, tuple(tensors), wrap(arr, dt), {"dim": d})


def hstack(tensors):
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    """cat of atleast_2d: 0-d and 1-d tensors become rows (UnsqueezeBackward0 views, as torch)."""
    rows = []
    for t in tensors:
        if t._data.ndim == 0:
            t = unsqueeze(unsqueeze(t, 0), 0)
        elif t._data.ndim == 1:
            t = unsqueeze(t, 0)
        rows.append(t)
    return cat(rows, 0)


class SliceBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed(words.SELECTED))
    replay = staticmethod(replays.index)

    def backward(self, g):
        from .indexing import slice_backward  # noqa: PLC0415
        return (slice_backward(g, self._kw["in_shape"], self._kw["key"]),)


def narrow(input, dim, start, length):
    int64_args(dim, start, length)
    if input._data.ndim == 0:
        raise errors.runtime("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= start <= size:
        raise errors.index(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start % size if start < 0 else start
    if start + length > size:
        raise errors.runtime(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    key = (slice(None),) * d + (slice(start, start + length),)
    arr = input._data[key]
    return record(SliceBackward0, (input,), view_of(input, arr), {"in_shape": input._data.shape, "key": key})


class SplitBackward0(MultiOutputFunction):
    __slots__ = ()
    replay = staticmethod(replays.split)
    explain = "1 on each piece's part of {a}"
    explain_factor = False

    def backward(self, grads):
        return (cat(grads, self._kw["dim"]),)


class SplitWithSizesBackward0(SplitBackward0):
    __slots__ = ()


class UnbindBackward0(MultiOutputFunction):
    __slots__ = ()
    replay = staticmethod(replays.unbind)
    explain = "1 on each piece's part of {a}"
    explain_factor = False

    def backward(self, grads):
        return (stack(grads, self._kw["dim"]),)


def split(tensor, split_size_or_sections, dim=0):
    if not isinstance(split_size_or_sections, (int, np.integer, list, tuple, Tensor)):
        # torch/_tensor.py's split passes what is no int to split_with_sizes, whose parser refuses it (x.split(1.0))
        raise errors.type_error("split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
                                f"{typename(split_size_or_sections)}")
    if isinstance(split_size_or_sections, Tensor) and takes_int(split_size_or_sections):
        split_size_or_sections = int(split_size_or_sections.item())  # the parser reads a 0-d integer Tensor as an int
    int64_args(split_size_or_sections, dim)
    if tensor._data.ndim == 0:
        raise errors.runtime("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, tensor._data.ndim)
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        sizes = [min(size, n - s) for s in range(0, n, size)] if size > 0 and n else [n]  # a size-0 dim: one piece
        cls = SplitBackward0
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise errors.runtime(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                                 f"at dimension {d}), but got split_sizes=[{', '.join(map(str, sizes))}]")
        cls = SplitWithSizesBackward0
    outs, start = [], 0
    for s in sizes:
        key = (slice(None),) * d + (slice(start, start + s),)
        outs.append(view_of(tensor, tensor._data[key]))
        start += s
    return tuple(record_multi(cls, (tensor,), outs, {"dim": d}))


def chunk(input, chunks, dim=0):
    int64_args(chunks, dim)
    if input._data.ndim == 0:
        raise errors.runtime("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise errors.runtime(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if n == 0:  # ATen's chunk: split_with_sizes into `chunks` empty pieces
        return split(input, [0] * chunks, d)
    size = -(-n // chunks) if chunks else n
    return split(input, max(size, 1), d)


def unbind(input, dim=0):
    d = wrap_dim(dim, input._data.ndim)
    if input._data.ndim == 0:
        raise errors.index(f"Dimension specified as {d} but tensor has no dimensions")
    arr = input._data
    outs = [view_of(input, arr[(slice(None),) * d + (i,)]) for i in range(arr.shape[d])]
    return tuple(record_multi(UnbindBackward0, (input,), outs, {"dim": d}))


# ---------------------------------------------------------------------------- declarations

OPS = [
    op("repeat", repeat, RepeatBackward0, torch=False,
       sample=Sample([((),), ((3,),), ((2, 3),)], call=lambda torch, x: x.repeat(2, *([1] * x.dim())))),
    op("tile", tile, RepeatBackward0, sample=Sample(REDUCE, args=((2,),))),
    op("narrow", narrow, SliceBackward0, sample=Sample(S1, call=lambda torch, x: x.narrow(-1, 1, 2))),
    op("split", split, SplitBackward0, SplitWithSizesBackward0, python_method=True,
       sample=Sample(S1, call=lambda torch, x: x.split(2, dim=-1))),
    op("chunk", chunk, SplitBackward0, sample=Sample([((3,),), ((4, 2),)], args=(2, 0))),
    op("unbind", unbind, UnbindBackward0, sample=Sample(REDUCE, args=(0,))),
    # torch.cat & co. (no Tensor methods): a list of tensors first
    op("cat", cat, CatBackward0, method=False, aliases=("concat", "concatenate"), sample=Sample(
        [((2, 3), (1, 3)), ((3,), (2,))], call=lambda torch, x, y: torch.cat([x, y]))),
    op("stack", stack, StackBackward0, method=False,
       sample=Sample([((2, 3), (2, 3)), ((), ())], call=lambda torch, x, y: torch.stack([x, y], -1))),
    op("hstack", hstack, CatBackward0, method=False,
       sample=Sample([((2, 3), (2, 1)), ((3,), (2,))], call=lambda torch, x, y: torch.hstack([x, y]))),
    op("vstack", vstack, CatBackward0, method=False,
       sample=Sample([((2, 3), (1, 3)), ((3,), (3,))], call=lambda torch, x, y: torch.vstack([x, y]))),
]

