"""Shape ops: views (sharing data and version counter, as torch's views do), expand, transpose,
permute, squeeze/unsqueeze, flip, clone, movedim, and sum_to, the reduction that undoes
broadcasting in backward formulas. (repeat, cat/stack, split/chunk/unbind: ops/join_split.py.)"""
from __future__ import annotations

import numpy as np

from .. import errors, layouts, numerics
from ..argcheck import check_int_list
from ..autograd_modes import grad_mode
from ..device import xp_of
from ..function import Function, record
from ..limits import check_shape
from ..size import Size
from ..tensor import wrap, wrap_dim
from ..warnonce import warn_once
from ..views import view_of
from . import replays, words
from .registry import Sample, op


def shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _infer(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise errors.runtime("only one dimension can be inferred")
    known = 1
    for i, s in enumerate(shape):
        if s != -1:
            if s < 0:
                raise errors.runtime(f"invalid shape dimension {s} at index {i} of shape "
                                     f"[{', '.join(map(str, shape))}]")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise errors.runtime(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise errors.runtime(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return tuple(shape)


class ViewBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.same_values("a view with another shape"))
    replay = staticmethod(replays.reshape)

    @staticmethod
    def forward(x, shape):
        return x.reshape(shape)

    def backward(self, g):
        return (reshape(g, self._kw["in_shape"]),)


# reshape(copy=False) is NumPy 2.1's way to reshape without copying; setting .shape, the way before,
# is deprecated from NumPy 2.5 (the warning would reach scripts), which Python 3.12+ installs get.
_RESHAPE_HAS_COPY = np.lib.NumpyVersion(np.__version__) >= "2.1.0"


def _view_array(arr, shape):
    """arr reshaped without copying, or None when the strides do not allow it (torch's view rule)."""
    if arr.flags.c_contiguous:
        return arr.reshape(shape)
    if type(arr) is not np.ndarray:
        r = arr.reshape(shape)
        return r if r.data.ptr == arr.data.ptr and not r.flags.owndata else None
    if _RESHAPE_HAS_COPY:
        try:
            return np.reshape(arr, shape, copy=False)
        except ValueError:  # the strides need a copy
            return None
    v = arr.view()  # NumPy < 2.1 (no copy argument): setting the shape never copies
    try:
        v.shape = shape
    except AttributeError:
        return None
    return v


def _view_error(shape, kwargs):
    """x.view's argument parser's error for arguments neither (torch.dtype dtype) nor (tuple of ints size) takes."""
    from ..argcheck import typename  # noqa: PLC0415 - only for the error
    items = shape[0] if len(shape) == 1 and isinstance(shape[0], (list, tuple)) else shape
    if not kwargs and ((len(shape) > 1 and _int_like(shape[0])) or items is not shape):
        for pos, s in enumerate(items, 1):  # the int list (varargs from an int on): its first element that is no int
            if not _int_like(s):
                return errors.type_error(f"view(): argument 'size' failed to unpack the object at pos {pos} with error "
                                         f"\"type must be tuple of ints,but got {typename(s)}\"")
    from ..arg_parser import parser_error  # noqa: PLC0415
    from ..torch_signatures import METHOD_SIGNATURES  # noqa: PLC0415
    return parser_error("view", METHOD_SIGNATURES["view"], shape, kwargs)


def _is_dtype(value):
    from .. import dtypes  # noqa: PLC0415 - (as view_dtype)
    return isinstance(value, dtypes.dtype)


def _int_like(s):
    return (isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_))) or (
        type(s).__name__ == "Tensor" and s._data.ndim == 0 and s.dtype.is_floating_point is False
        and s.dtype.name != "bool")


def view(input, *shape, dtype=None, size=None, **unknown):
    if unknown:  # the parser's error: keywords neither signature has
        given = {k: v for k, v in (("dtype", dtype), ("size", size)) if v is not None}
        raise _view_error(shape, {**given, **unknown})
    if size is not None and not shape and dtype is None:
        shape, size = (size,), None
    if not shape or dtype is not None or size is not None:
        if dtype is not None and not shape and size is None and _is_dtype(dtype):
            return view_dtype(input, dtype)
        raise _view_error(shape, {k: v for k, v in (("dtype", dtype), ("size", size)) if v is not None})
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, Size, int)):
        if _is_dtype(shape[0]):
            return view_dtype(input, shape[0])
        if not _int_like(shape[0]):
            raise _view_error(shape, {})
    elif not all(type(s) is int for s in shape) and not (
            len(shape) == 1 and all(_int_like(s) for s in shape[0])) and not all(_int_like(s) for s in shape):
        raise _view_error(shape if len(shape) > 1 else (shape[0],), {})
    check_int_list("view", "size", shape)
    shape = _infer(shape_arg(shape), input._data.size)
    arr = _view_array(input._data, shape)
    if arr is None:
        raise errors.runtime(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.")
    return record(ViewBackward0, (input,), view_of(input, arr), {"in_shape": input._data.shape})


def view_dtype(input, dtype):
    """x.view(dtype): the same bytes read as another dtype (ATen's view.dtype), a view sharing x's memory
    and version counter that never requires grad (derivatives.yaml: not differentiable). Between element
    sizes the last dim must be contiguous and its bytes divide evenly, as torch checks."""
    from .. import dtypes  # noqa: PLC0415
    from .elementwise_common import c10_name  # noqa: PLC0415
    if not isinstance(dtype, dtypes.dtype):
        raise errors.type_error(f"view(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    arr = input._data
    src, dst = input.dtype.np.itemsize, dtype.np.itemsize
    if src != dst:
        what = f"to view {c10_name(input.dtype)} as {c10_name(dtype)} (different element sizes)"
        if arr.ndim == 0:
            raise errors.runtime(f"self.dim() cannot be 0 {what}")
        if arr.shape[-1] != 1 and arr.strides[-1] != src:
            raise errors.runtime(f"self.stride(-1) must be 1 {what}, but got {arr.strides[-1] // src}")
        if dst > src:
            k = dst // src
            if arr.shape[-1] % k:
                raise errors.runtime(f"self.size(-1) must be divisible by {k} {what}, but got {arr.shape[-1]}")
            for i in range(arr.ndim - 1):
                if (arr.strides[i] // src) % k:
                    raise errors.runtime(f"self.stride({i}) must be divisible by {k} {what}, but got "
                                         f"{arr.strides[i] // src}")
        if arr.shape[-1] == 1 and arr.strides[-1] != src:  # a size-1 last dim: any stride is contiguous
            arr = np.lib.stride_tricks.as_strided(arr, strides=arr.strides[:-1] + (src,))
    out = wrap(arr.view(dtype.np), dtype)
    out._version = input._version
    out._base = input if input._base is None else input._base
    return out


class ReshapeAliasBackward0(ViewBackward0):
    """torch's _reshape_alias: reshape's view of a tensor that is not contiguous (its backward: a reshape)."""
    __slots__ = ()
    explain = "1 (a reshape: the gradient is passed back reshaped)"
    explain_factor = "1"


def reshape(input, *shape):
    """As torch: a view when the strides allow it (ViewBackward0 of a contiguous tensor,
    ReshapeAliasBackward0 of another); otherwise a contiguous clone viewed to the shape
    (UnsafeViewBackward0 of CloneBackward0)."""
    if not shape:
        raise errors.missing_arguments("reshape", "shape")
    check_int_list("reshape", "shape", shape)
    shape = _infer(shape_arg(shape), input._data.size)
    data = input._data
    arr = _view_array(data, shape)
    if arr is not None:
        cls = ViewBackward0 if data.flags.c_contiguous else ReshapeAliasBackward0
        return record(cls, (input,), view_of(input, arr), {"in_shape": data.shape})
    return unsafe_view(clone(input, memory_format=layouts.contiguous_format), shape)


class UnsafeViewBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.same_values("a reshape"))
    replay = staticmethod(replays.reshape)

    def backward(self, g):
        return (reshape(g, self._kw["in_shape"]),)


def unsafe_view(x, shape):
    """torch's _unsafe_view: a reshape of a fresh (contiguous) tensor, recorded as UnsafeViewBackward0."""
    return record(UnsafeViewBackward0, (x,), wrap(x._data.reshape(shape), x.dtype), {"in_shape": x._data.shape})


def flatten(input, start_dim=0, end_dim=-1):
    nd = input._data.ndim
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if nd == 0:
        return reshape(input, (1,))
    if s > e:
        raise errors.runtime("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._data.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(input, shape[:s] + (n,) + shape[e + 1:])


def ravel(input):
    return reshape(input, (-1,))


class ExpandBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.moves("an expand: the gradient is summed over the repeated elements"))
    replay = staticmethod(replays.expand)

    def backward(self, g):
        return (sum_to(g, self._kw["in_shape"]),)


def expand(input, *sizes, implicit=False):
    del implicit  # a tracing flag of torch's (x.expand(2, 3, implicit=True)): no effect on the result
    if not sizes:
        raise errors.missing_arguments("expand", "size")
    check_int_list("expand", "size", sizes)
    sizes = shape_arg(sizes)
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise errors.runtime(f"expand({errors.type_string(input)}{{[{', '.join(map(str, shape))}]}}, "
                             f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided ({len(sizes)}) "
                             f"must be greater or equal to the number of dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    target = []
    for i in range(len(sizes) - 1, -1, -1):  # infer_expand_geometry checks from the last dim
        s = sizes[i]
        cur = shape[i - lead] if i >= lead else None
        if s == -1:
            if cur is None:
                raise errors.runtime(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                     f"non-existing dimension {i}")
            s = cur
        elif cur is not None and cur != 1 and cur != s:
            raise errors.runtime(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                                 f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                                 f"Tensor sizes: [{', '.join(map(str, shape))}]")
        target.append(s)
    target.reverse()
    check_shape(target)  # a view, but one that later ops would materialise (or iterate over)
    data = input._data
    if type(data) is np.ndarray:
        arr = np.lib.stride_tricks.as_strided(data, tuple(target), _expanded_strides(data, target), writeable=False)
    else:
        arr = xp_of(data).broadcast_to(data, tuple(target))
    out = view_of(input, arr)
    return record(ExpandBackward0, (input,), out, {"in_shape": shape})


def _expanded_strides(data, target):
    """ATen's inferExpandGeometry: an expanded dim steps 0, a kept one (size 1 too) keeps its stride, a new
    leading dim of size 1 steps over the dims after it (NumPy's broadcast_to zeroes every size-1 dim)."""
    strides = [0] * len(target)
    lead = len(target) - data.ndim
    for i in range(len(target) - 1, -1, -1):
        if i >= lead:
            size, stride = data.shape[i - lead], data.strides[i - lead]
        else:
            size, stride = 1, (target[i + 1] * strides[i + 1] if i + 1 < len(target) else 0)
        strides[i] = stride if size == target[i] else 0
    return tuple(strides)


def expand_as(input, other):
    return expand(input, other.shape)


def broadcast_to(input, shape):
    return expand(input, shape)


def sum_to(g, shape):
    """Sum g over the broadcast dimensions so it has `shape` (torch's at::sum_to: sum() to a 0-d shape,
    else sum(dims, keepdim=True), viewed to the shape when leading dims went; differentiable)."""
    gshape = g._data.shape
    if gshape == shape:
        return g
    shape = tuple(shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if grad_mode.enabled and g._rg:  # a graph to build: torch's ops, whose nodes create_graph shows
        from .reduction import sum as _sum  # noqa: PLC0415 - reduction imports this module
        if not shape:
            return _sum(g)
        if axes:
            g = _sum(g, axes, True)
        return view(g, shape) if lead else g
    arr = numerics.torch_sum(g._data, axes, True, g._data.dtype) if axes else g._data
    return wrap(arr.reshape(shape), g.dtype)


def sum_to_size(input, *size):
    size = shape_arg(size)
    shape = input._data.shape
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != d for s, d in zip(size, shape[lead:])):
        raise errors.runtime(f"size {{[{', '.join(map(str, size))}]}} is not expandable to size "
                             f"{{[{', '.join(map(str, shape))}]}}.")
    return sum_to(input, size)


class TBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.moves("a transpose"))
    expression = "{0}.T"
    replay = staticmethod(replays.transpose)

    def backward(self, g):
        if not grad_mode.enabled and g._data.ndim == 2:  # no node to record: t()'s view alone
            return (view_of(g, g._data.T),)
        return (t(g),)


def t(input):
    nd = input._data.ndim
    if nd > 2:
        raise errors.runtime(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return record(TBackward0, (input,), view_of(input, input._data.T))


class TransposeBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.moves("a transpose"))
    replay = staticmethod(replays.transpose)

    def backward(self, g):
        return (transpose(g, self._kw["d0"], self._kw["d1"]),)


def transpose(input, dim0, dim1):
    nd = input._data.ndim
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    arr = input._data.swapaxes(d0, d1) if nd else input._data
    return record(TransposeBackward0, (input,), view_of(input, arr), {"d0": d0, "d1": d1})


swapaxes = swapdims = transpose


class PermuteBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.moves("a permutation of the dimensions"))
    replay = staticmethod(replays.transpose)

    def backward(self, g):
        inv = np.argsort(self._kw["dims"]).tolist()
        return (permute(g, inv),)


def permute(input, *dims):
    if not dims:
        raise errors.missing_arguments("permute", "dims")
    check_int_list("permute", "dims", dims)  # an int past int64: the parser's error, before the dims' checks
    dims = shape_arg(dims)
    nd = input._data.ndim
    if len(dims) != nd:
        raise errors.runtime(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                             f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to "
                             f"len(dims) = {len(dims)}")
    dims = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != len(dims):
        raise errors.runtime("permute(): duplicate dims are not allowed.")
    return record(PermuteBackward0, (input,), view_of(input, input._data.transpose(dims)), {"dims": dims})


def T(input):
    nd = input._data.ndim
    if nd != 2:
        warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases." if nd == 0
                      else "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                      "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                      "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                      "dimensions of a tensor.", UserWarning, stacklevel=3)
    return permute(input, tuple(range(nd - 1, -1, -1)))


def mT(input):
    nd = input._data.ndim
    if nd == 0:
        warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning, stacklevel=2)
        return input
    if nd < 2:
        raise errors.runtime(f"tensor.mT is only supported on matrices or batches of matrices. Got {nd}-D tensor.")
    return transpose(input, -2, -1)


class UnsqueezeBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.same_values("an unsqueeze of the shape"))
    replay = staticmethod(replays.reshape)

    def backward(self, g):
        return (squeeze(g, self._kw["dim"]),)


def unsqueeze(input, dim):
    d = wrap_dim(dim, input._data.ndim + 1)
    arr = np.expand_dims(input._data, d)
    return record(UnsqueezeBackward0, (input,), view_of(input, arr), {"dim": d})


class SqueezeBackward0(Function):
    """torch's unsqueeze_to: the squeezed dims (of size 1) come back one unsqueeze at a time."""
    __slots__ = ()
    explain = staticmethod(words.same_values("a squeeze of the shape"))
    replay = staticmethod(replays.reshape)

    def backward(self, g):
        dims = self._kw["dims"]
        for d, n in enumerate(self._kw["in_shape"]):
            if n == 1 and (dims is None or d in dims):
                g = unsqueeze(g, d)
        return (g,)


class SqueezeBackward1(SqueezeBackward0):
    __slots__ = ()
    explain = staticmethod(words.same_values("a squeeze of the shape"))
    replay = staticmethod(replays.reshape)


class SqueezeBackward2(SqueezeBackward0):
    __slots__ = ()
    explain = "1 (a squeeze of the shape: the gradient is passed back reshaped)"
    explain_factor = "1"


def squeeze(input, dim=None):
    shape = input._data.shape
    if dim is None:
        dims = None
        new = tuple(s for s in shape if s != 1)
        cls = SqueezeBackward0
    else:
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        nd = len(shape)
        dims = {wrap_dim(d, nd) for d in dims}
        dims = dims if nd else set()
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
        cls = SqueezeBackward2 if isinstance(dim, (tuple, list)) else SqueezeBackward1
    arr = input._data.reshape(new)
    return record(cls, (input,), view_of(input, arr), {"in_shape": shape, "dims": dims})


# ---------------------------------------------------------------------------- flip, clone, movedim

class FlipBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.flip(xs[0], axis=tuple(kw["dims"]))])
    explain = "1 at each element's mirrored position (a flip)"
    explain_factor = False

    def backward(self, g):
        return (flip(g, self._kw["dims"]),)


def flip(input, dims):
    if isinstance(dims, int):
        dims = (dims,)
    dims = tuple(wrap_dim(d, input._data.ndim) for d in dims)
    seen = set()
    for d in dims:  # dim_list_to_bitset
        if d in seen:
            raise errors.runtime(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    if input._data.ndim == 0:
        dims = ()  # dim 0 of a 0-d tensor: one element, nothing to flip
    return record(FlipBackward0, (input,), wrap(np.flip(input._data, dims).copy(), input.dtype), {"dims": dims})


class CloneBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.same_values("a copy"))
    replay = staticmethod(replays.copy)

    def backward(self, g):
        return (g,)


def clone(input, *, memory_format=None):
    """A copy with torch's layout: preserve_format (the default) keeps a dense tensor's strides."""
    return record(CloneBackward0, (input,), wrap(layouts.copy_as(input._data, memory_format), input.dtype))


def contiguous(input, *args, memory_format=None):
    layouts.check_format("contiguous", memory_format, args)
    if memory_format is layouts.preserve_format:
        raise errors.runtime("preserve memory format is unsupported by the contiguous operator")
    fmt = memory_format or layouts.contiguous_format
    if layouts.is_contiguous_as(input._data, fmt):
        return input
    return clone(input, memory_format=fmt)


class AliasBackward0(Function):
    """An alias view of the whole tensor (x[...], movedim of a 0-d tensor)."""
    __slots__ = ()
    explain = staticmethod(words.same_values("an alias"))
    replay = staticmethod(replays.reshape)

    def backward(self, g):
        return (g,)


def movedim(input, source, destination):
    nd = input._data.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [wrap_dim(s, nd) for s in src]
    dst = [wrap_dim(s, nd) for s in dst]
    if nd == 0:  # ATen: a 0-d tensor's movedim is its alias
        return record(AliasBackward0, (input,), view_of(input, input._data[...]))
    order = [i for i in range(nd) if i not in src]
    perm = [None] * nd
    for s, dd in zip(src, dst):
        perm[dd] = s
    it = iter(order)
    perm = [p if p is not None else next(it) for p in perm]
    return permute(input, perm)


moveaxis = movedim


# ---------------------------------------------------------------------------- declarations

REDUCE = "reduce"
S1 = [((3,),), ((2, 3),)]
_ip = {"inplace": True}
# One declaration per op (registry.py); methods.py derives the tables. flip: shape_extra.py's.
OPS = [
    op("view", view, ViewBackward0, torch=False, sample=Sample(REDUCE, call=lambda torch, x: x.view(-1))),
    op("reshape", reshape, ViewBackward0, UnsafeViewBackward0, ReshapeAliasBackward0, sample=Sample(
        REDUCE, call=lambda torch, x: torch.reshape(x.t() if x.dim() == 2 else x, (-1,)))),
    op("flatten", flatten, ViewBackward0, UnsafeViewBackward0, sample=Sample(REDUCE)),
    op("ravel", ravel, ViewBackward0, UnsafeViewBackward0, sample=Sample(REDUCE, call=lambda torch, x: x.ravel())),
    op("expand", expand, ExpandBackward0, torch=False,
       sample=Sample(REDUCE, call=lambda torch, x: x.expand(2, *x.shape))),
    op("expand_as", expand_as, ExpandBackward0, torch=False,
       sample=Sample([((3,), (2, 3)), ((), (2,)), ((2, 1), (2, 3))], call=lambda torch, x, y: x.expand_as(y))),
    op("broadcast_to", broadcast_to, ExpandBackward0,
       sample=Sample(REDUCE, call=lambda torch, x: torch.broadcast_to(x, (2,) + tuple(x.shape)))),
    op("sum_to_size", sum_to_size, torch=False, sample=Sample(  # sum's and view's nodes
        [((2, 3),), ((3, 1),)], call=lambda torch, x: x.sum_to_size(1, x.shape[-1]))),
    op("t", t, TBackward0, sample=Sample(S1, call=lambda torch, x: x.t()), **_ip),
    op("transpose", transpose, TransposeBackward0, sample=Sample(REDUCE, args=(0, -1)), **_ip),
    op("swapaxes", transpose, TransposeBackward0, sample=Sample(REDUCE, call=lambda torch, x: x.swapaxes(0, -1)), **_ip),
    op("swapdims", transpose, TransposeBackward0, sample=Sample(REDUCE, args=(-1, 0)), **_ip),
    op("permute", permute, PermuteBackward0,
       sample=Sample(REDUCE, call=lambda torch, x: x.permute(*reversed(range(x.dim()))))),
    op("movedim", movedim, PermuteBackward0, aliases=("moveaxis",), sample=Sample(REDUCE, args=(0, -1))),
    op("unsqueeze", unsqueeze, UnsqueezeBackward0, sample=Sample([((),), ((3,),), ((2, 3),)], args=(-1,)), **_ip),
    op("squeeze", squeeze, SqueezeBackward0, SqueezeBackward1, SqueezeBackward2, sample=Sample(
        [((1, 3),), ((2, 1, 2),)], call=lambda torch, x: (x.squeeze(), x.squeeze(0))), **_ip),
    op("clone", clone, CloneBackward0, sample=Sample(REDUCE)),
    op("contiguous", contiguous, CloneBackward0, torch=False, sample=Sample(
        REDUCE, call=lambda torch, x: x.t().contiguous() if x.dim() == 2 else x.contiguous() * 1)),
    op("T", T, torch=False, prop=True, sample=Sample([((2, 3),)], call=lambda torch, x: x.T)),  # permute's node
    op("mT", mT, torch=False, prop=True, sample=Sample([((2, 3),), ((2, 2, 3),)], call=lambda torch, x: x.mT)),
]
