"""Views and resizes by explicit geometry: torch.as_strided / Tensor.as_strided (a view of the input's
storage with the given sizes, strides and storage offset; AsStridedBackward0) and Tensor.resize_.

A tensor's storage is its root's memory (the tensor a view chain starts from): the elements between
the lowest and the highest address of the root's array. Both are allocation doors: the sizes a script
gives go through the --max-elements check (limits.py) before anything is made, and as_strided's
geometry must stay inside the storage (torch's setStorage error otherwise), so no view ever reaches
memory outside it.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..argcheck import typename
from ..function import Function, record
from ..limits import check_shape
from ..tensor import wrap
from ..views import view_of
from .registry import Sample, lazy_inplace, tables
from .registry import op as declare

_INT64_MAX = 2 ** 63 - 1


def _ints(name, value, what):
    """A size or stride list from the script: ints (or a torch.Size/tuple/list of them)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        raise errors.type_error(f"{name}(): argument '{what}' must be tuple of ints, not {typename(value)}")
    return tuple(int(v) for v in value)


def _storage(t):
    """(flat view of t's storage, t's storage offset): the root's memory from its lowest address."""
    root = t._base if t._base is not None else t
    r = root._data
    if type(r) is not np.ndarray or type(t._data) is not np.ndarray:
        raise errors.runtime("as_strided: only CPU tensors are supported by gradcli")
    item = r.itemsize
    if r.size == 0:
        return np.zeros(0, r.dtype), 0
    low, high = np.lib.array_utils.byte_bounds(r)
    if r.__array_interface__["data"][0] != low:  # a root with a negative stride (never made by the engine)
        raise errors.runtime("as_strided: the input's storage has negative strides")
    base = np.lib.stride_tricks.as_strided(r, ((high - low) // item,), (item,), writeable=r.flags.writeable)
    off = (t._data.__array_interface__["data"][0] - low) // item if t._data.size else 0
    return base, off


def _needed(sizes, strides, offset):
    if any(s == 0 for s in sizes):
        return 0
    return offset + sum((s - 1) * st for s, st in zip(sizes, strides)) + 1


class AsStridedBackward0(Function):
    __slots__ = ()
    explain = "grad added into a zero storage at the view's positions, read back at {a}'s"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [_replay(xs[0], kw).reshape(outs[0])])

    def backward(self, g):
        from .gather_scatter import index_select  # noqa: PLC0415
        from .index_ops import index_add  # noqa: PLC0415
        k = self._kw
        out_pos = wrap(_positions(k["out"]).reshape(-1), dtypes.int64)
        in_pos = wrap(_positions(k["in"]).reshape(-1), dtypes.int64)
        zeros = wrap(np.zeros(k["storage"], g.dtype.np), g.dtype)
        gs = index_add(zeros, 0, out_pos, g.reshape(-1))
        return (index_select(gs, 0, in_pos).reshape(k["in"][0]),)


def _positions(geometry):
    """Storage positions of every element of a (sizes, strides, offset) geometry, as an int64 array."""
    sizes, strides, offset = geometry
    pos = np.full(sizes, offset, np.int64)
    for d, (s, st) in enumerate(zip(sizes, strides)):
        shape = [1] * len(sizes)
        shape[d] = s
        pos = pos + (np.arange(s, dtype=np.int64) * st).reshape(shape)
    return pos


def _replay(x, kw):
    """--check's replay: the view's elements, read from x laid out at its own storage positions."""
    storage = np.zeros(kw["storage"], x.dtype)
    storage[_positions(kw["in"]).reshape(-1)] = np.asarray(x).reshape(-1)
    return storage[_positions(kw["out"])]


def as_strided(input, size, stride, storage_offset=None):
    sizes = _ints("as_strided", size, "size")
    strides = _ints("as_strided", stride, "stride")
    if len(sizes) != len(strides):
        raise errors.runtime("mismatch in length of strides and shape")
    if any(s < 0 for s in sizes):
        raise errors.runtime(f"Storage size calculation overflowed with sizes={list(sizes)} and strides="
                             f"{list(strides)}")
    if any(st < 0 for st in strides):
        raise errors.runtime(f"as_strided: Negative strides are not supported at the moment, got strides: "
                             f"{list(strides)}")
    n = 1
    for s in sizes:
        n *= s
    if n > _INT64_MAX:
        raise errors.runtime("numel: integer multiplication overflow")
    check_shape(sizes)
    storage, own = _storage(input)
    offset = own if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise errors.runtime(f"Tensor: invalid storage offset {offset}")
    item = input.dtype.itemsize
    need = _needed(sizes, strides, offset)
    if need * item > _INT64_MAX:  # ATen's computeStorageNbytes, before setStorage's bounds
        raise errors.runtime(f"Storage size calculation overflowed with sizes={list(sizes)} and strides="
                             f"{list(strides)}")
    if need > storage.size:
        raise errors.runtime(f"setStorage: sizes {list(sizes)}, strides {list(strides)}, storage offset {offset}, and "
                             f"itemsize {item} requiring a storage size of {need * item} are out of bounds for "
                             f"storage of size {storage.size * item}")
    start = storage[offset:] if need else storage[:0]
    arr = np.lib.stride_tricks.as_strided(start, sizes, tuple(st * item for st in strides),
                                          writeable=storage.flags.writeable)
    out = view_of(input, arr)
    in_geom = (tuple(input._data.shape), tuple(input.stride()), own)
    return record(AsStridedBackward0, (input,), out,
                  {"in": in_geom, "out": (sizes, strides, offset), "storage": storage.size})


def resize_(self, *sizes, memory_format=None):
    """Tensor.resize_: the tensor takes the new sizes, contiguous over its memory (what fits of its old
    elements first; new elements are zeros, where torch's are whatever the new memory held)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    sizes = _ints("resize_", tuple(sizes), "size")
    if self._rg:
        raise errors.runtime("cannot resize variables that require grad")
    if any(s < 0 for s in sizes):
        raise errors.runtime("numel: integer multiplication overflow")  # (torch's message for a negative size)
    n = 1
    for s in sizes:
        n *= s
    if n > _INT64_MAX:  # torch checks the product before the allocation (our limit) is asked for
        raise errors.runtime("numel: integer multiplication overflow")
    check_shape(sizes)
    d = self._data
    if type(d) is np.ndarray and d.flags.c_contiguous and n <= d.size:
        self._data = d.reshape(-1)[:n].reshape(sizes)
    else:
        new = np.zeros(n, d.dtype)
        flat = np.asarray(d).reshape(-1)
        m = min(n, flat.size)
        new[:m] = flat[:m]
        self._data = new.reshape(sizes)
    return self


# ---------------------------------------------------------------------------- declarations

OPS = [
    declare("as_strided", as_strided, AsStridedBackward0, inplace=True, torch_inplace=True, sample=Sample(
        [((4,),), ((3, 3),)], ("any",), call=lambda torch, x: torch.as_strided(x, (2, 2), (1, 1), 1))),
    declare("resize_", resize_, torch=False, no_grad="a tensor that requires grad cannot be resized"),
]


def _inplace(fn, name, node):
    """x.as_strided_(): the tensor itself takes the view's geometry (ops/inplace.inplace_view, AsStridedBackward1);
    resize_ has no in-place variant of its own."""
    if name == "as_strided_":
        from .inplace import inplace_view  # noqa: PLC0415 - inplace imports the families at its import
        return inplace_view(fn, name)
    return lazy_inplace(fn, name, node)


_TABLES = tables(OPS, _inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>, but for METHOD_ONLY's)
METHOD_ONLY = tuple(_TABLES["METHOD_ONLY"])  # x.resize_(): no torch.resize_
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
