"""torch.memory_format and the strides PyTorch gives a tensor made from another: clone(), empty_like() & co,
the random *_like fills, to(memory_format=). torch.preserve_format (the default) keeps a non-overlapping dense
tensor's strides as they are and lays any other out densely in its strides' order (ATen's
infer_dense_strides); contiguous_format, channels_last (4-d) and channels_last_3d (5-d) are fixed orders.
The values never depend on it; what a script sees is stride(), is_contiguous(), view()'s errors and, for the
random fills, which element gets which draw (a fill runs in memory order)."""
from __future__ import annotations

import numpy as np

from . import errors
from .dtypes import TorchConstant, sealed
from .numerics import non_overlapping_dense
from .tensoriter import contig_strides, iter_permutation


class memory_format(TorchConstant):  # noqa: N801 - torch's name
    __slots__ = ()

    def __reduce__(self):
        return (_format_by_name, (self.name,))


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
FORMATS = {f.name: f for f in (contiguous_format, preserve_format, channels_last, channels_last_3d)}


def _format_by_name(name):
    return FORMATS[name]


memory_format.__module__ = "torch"
memory_format.__name__ = "torch.memory_format"


sealed(memory_format)  # a fixed set, as torch's dtypes and layouts


def check_format(name, value, args=()):
    """torch's parser for a method whose one parameter is `*, torch.memory_format memory_format` (None: the
    default), given args positionally and value."""
    if args:
        n = len(args)
        raise errors.type_error(f"{name}() takes 0 positional arguments but {n} {'was' if n == 1 else 'were'} given")
    if value is not None and not isinstance(value, memory_format):
        from .argcheck import typename  # noqa: PLC0415
        raise errors.type_error(f"{name}(): argument 'memory_format' must be torch.memory_format, "
                                f"not {typename(value)}")


def element_strides(a):
    item = a.itemsize
    st = tuple(s // item for s in a.strides)
    if not a.size and st and not any(st):  # NumPy zeroes an empty array's strides: torch's are contiguous ones
        return tuple(contig_strides(a.shape))
    return st


def dense_strides(sizes, strides):
    """ATen's infer_dense_strides: the dims in TensorIterator's order (iter_permutation of the one operand: a
    0 stride compares as equal to any, equal strides put the smaller size first), laid out densely so."""
    ndim = len(sizes)
    if ndim <= 1:
        return (1,) * ndim
    out = [0] * ndim
    step = 1
    for idx in iter_permutation(sizes, [(strides, False)]):
        out[idx] = step
        if sizes[idx] > 1:
            step *= sizes[idx]
    return tuple(out)


def _channels_last_strides(sizes, fmt):
    rank = 4 if fmt is channels_last else 5
    if len(sizes) != rank:
        raise errors.runtime(f"required rank {rank} tensor to use {fmt.name} format")
    st = [0] * rank
    st[1] = 1
    st[rank - 1] = sizes[1]
    for d in range(rank - 2, 1, -1):
        st[d] = st[d + 1] * sizes[d + 1]
    st[0] = st[2] * sizes[2]
    return tuple(st)


def strides_for(a, fmt):
    """The element strides of a new tensor laid out as fmt (None: preserve) asks from the array a; None where
    that is the C order NumPy makes anyway."""
    if fmt is None or fmt is preserve_format:
        if a.ndim == 0:
            return None
        st = element_strides(a)
        if a.size and not non_overlapping_dense(a):  # (an empty tensor counts as dense: its strides stay)
            st = dense_strides(a.shape, st)
    elif fmt is contiguous_format:
        return None
    else:
        st = _channels_last_strides(a.shape, fmt)
    return None if st == tuple(contig_strides(a.shape)) else st


def empty_strided(shape, strides, dt):
    """An uninitialised ndarray of shape with these element strides (dense: one block, no overlap)."""
    dt = np.dtype(dt)
    span = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    buf = np.empty(span, dt)
    return np.lib.stride_tricks.as_strided(buf, shape=shape, strides=tuple(s * dt.itemsize for s in strides))


def empty_as(a, dt, fmt=None):
    """An uninitialised array of a's shape and dtype dt, laid out as fmt asks of a."""
    st = strides_for(a, fmt) if type(a) is np.ndarray else None
    if st is None:
        return np.empty(a.shape, dt) if type(a) is np.ndarray else type(a)(a.shape, dt)
    return empty_strided(a.shape, st, dt)


def copy_as(a, fmt=None, dt=None):
    """A copy of the array a (cast to dt), laid out as fmt asks of a."""
    st = strides_for(a, fmt) if type(a) is np.ndarray else None
    if st is None:
        return a.astype(dt, order="C") if dt is not None else a.copy(order="C")
    out = empty_strided(a.shape, st, a.dtype if dt is None else dt)
    out[...] = a
    return out


def laid_out_as(a, fmt):
    """torch.empty(..., memory_format=fmt): a new array's values in fmt's fixed order (preserve has none)."""
    if fmt is preserve_format:
        raise errors.runtime("unsupported memory format Preserve")
    return copy_as(a, fmt)


def is_contiguous_as(a, fmt):
    """Tensor.is_contiguous(memory_format): channels_last asks for the NHWC order, dims of size 1 skipped."""
    if fmt is channels_last or fmt is channels_last_3d:
        if a.ndim != (4 if fmt is channels_last else 5):
            return False
        if not a.size:
            return True
        expected, st = 1, element_strides(a)
        for d in (1, *range(a.ndim - 1, 1, -1), 0):
            if a.shape[d] != 1:
                if st[d] != expected:
                    return False
                expected *= a.shape[d]
        return True
    return bool(a.flags.c_contiguous) if hasattr(a, "flags") else True


def _strides_like_channels_last(sizes, strides, order):
    """c10's is_channels_last_strides_2d/3d: the strides of dims `order` (C, W, H, [D,] N) grow, with the
    ambiguous cases (N111, a trivial C, 1C1W permutations) counted as contiguous."""
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * sizes[d] if sizes[d] > 1 else strides[d]
    return True


def suggest_format(a):
    """Tensor.suggest_memory_format(): channels_last(_3d) where a 4-d (5-d) array's strides look like it."""
    if type(a) is np.ndarray and a.ndim in (4, 5):
        order = (1, 3, 2, 0) if a.ndim == 4 else (1, 4, 3, 2, 0)
        if _strides_like_channels_last(a.shape, element_strides(a), order):
            return channels_last if a.ndim == 4 else channels_last_3d
    return contiguous_format
