"""Constructors: tensor() with PyTorch's dtype inference, ones/zeros/full/arange/..., their
_like forms, from_numpy; the random constructors come from rng_ops.py (PyTorch's own stream)."""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from . import dtypes, errors
from .arange_kernel import arange_values
from .limits import LIMITS as _limits
from .limits import check_numel
from .device import DEFAULT_DEVICE, canonical, cupy, to_device
from .size import Size
from .argcheck import check_int_list, int64_args, is_scalar, typename
from .tensor import Tensor, wrap

# ---------------------------------------------------------------------------- inference


def _infer_dtype(data):
    """PyTorch's scalar-type inference over nested Python data."""
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, np.ndarray):
        return dtypes.from_numpy_dtype(data.dtype)
    if isinstance(data, np.generic):
        return dtypes.from_numpy_dtype(data.dtype)
    if isinstance(data, builtins.bool):
        return dtypes.bool_
    if isinstance(data, builtins.int):
        return dtypes.int64
    if isinstance(data, builtins.float):
        return dtypes.defaults.float
    if isinstance(data, (list, tuple)):
        best = None
        for item in data:
            d = _infer_dtype(item)
            best = d if best is None else dtypes.promote_types(best, d)
        return best or dtypes.defaults.float
    if isinstance(data, complex):
        raise errors.type_error("complex tensors are not supported by gradcli")
    raise errors.runtime(f"Could not infer dtype of {type(data).__name__}")


def _item_of(t, d):
    """A tensor inside torch.tensor's nested data is one number, read as the result's dtype d takes one
    (store_scalar): a float through __float__, an integer or bool through __index__, whose errors differ."""
    if t.numel() != 1:
        if d is not None and not d.is_floating_point:
            raise errors.type_error("only integer tensors of a single element can be converted to an index")
        raise errors.value("only one element tensors can be converted to Python scalars")
    return t._data.reshape(-1)[0].item() if type(t._data) is np.ndarray else t.item()


def _to_nested(data, d=None):
    """Nested Python/NumPy/Tensor data as plain nested lists of numbers (checking the shape); d: the
    result's dtype."""
    if isinstance(data, Tensor):
        return data._data.tolist() if type(data._data) is np.ndarray else data.tolist()
    if isinstance(data, (list, tuple)):
        items = [_item_of(x, d) if isinstance(x, Tensor) else _to_nested(x, d) for x in data]
        shapes = {np.shape(x) for x in items}
        if len(shapes) > 1:
            first = np.shape(items[0])
            for i, x in enumerate(items):
                if np.shape(x) != first:
                    dim = 1
                    raise errors.value(f"expected sequence of length {first[0] if first else 0} at dim {dim} "
                                       f"(got {np.shape(x)[0] if np.shape(x) else 0})")
        return items
    if isinstance(data, np.ndarray):
        return data.tolist()
    if isinstance(data, (builtins.bool, builtins.int, builtins.float, np.generic)):
        return data
    if isinstance(data, str):
        raise errors.type_error("new(): invalid data type 'str'")
    raise errors.runtime(f"Could not infer dtype of {type(data).__name__}")


def _check_nesting(data, d):
    """torch's errors for ragged nesting: a scalar where a sequence is expected is 'not a sequence', a
    sequence where a number is expected is not a number of the tensor's dtype."""
    if not isinstance(data, (list, tuple)) or not data:
        return
    # (a tensor inside the data is one number, read with item(): never a sequence)
    seqs = [isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and np.ndim(x) > 0) for x in data]
    if seqs[0] and not all(seqs):
        raise errors.type_error("not a sequence")
    if not seqs[0] and any(seqs):
        bad = next(x for x, q in zip(data, seqs) if q)
        if not isinstance(bad, (list, tuple)):
            raise errors.type_error("not a sequence")
        kind = getattr(bad, "kind", type(bad).__name__)
        raise errors.type_error(f"must be real number, not {kind}" if d.is_floating_point
                                else f"'{kind}' object cannot be interpreted as an integer")
    for x in data:
        if isinstance(x, (list, tuple)):
            _check_nesting(x, d)


def finish(arr, dtype, device, requires_grad):
    if device is None:
        device = DEFAULT_DEVICE[0]  # torch.set_default_device (--device)
    if device is not None:
        dev = canonical(device)
        if dev.type != "cpu":
            arr = to_device(arr, dev)
    t = wrap(arr, dtype)
    if requires_grad:
        if not dtype.is_floating_point:
            # torch 2.13: every factory function says "Only Tensors ..." (capital O), full/zeros/arange included
            raise errors.runtime(errors.FLOAT_ONLY_CTOR, hint="float_dtype")
        t._rg = True
    return t


def _resolve(dtype):
    if dtype is None:
        return None
    if isinstance(dtype, dtypes.dtype):
        return dtype
    if isinstance(dtype, type) and issubclass(dtype, (np.generic,)) or isinstance(dtype, np.dtype):
        return dtypes.from_numpy_dtype(dtype)
    if dtype is builtins.float:
        return dtypes.float64
    if dtype is builtins.int:
        return dtypes.int64
    if dtype is builtins.bool:
        return dtypes.bool_
    raise errors.type_error(f"dtype must be torch.dtype, not {type(dtype).__name__}")


_NO_DATA = object()  # torch.tensor() without data: torch's argument parser words the TypeError


def tensor(data=_NO_DATA, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if data is _NO_DATA:
        raise errors.missing_arguments("tensor", "data")
    dtype = _resolve(dtype)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                      "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
        d = dtype or data.dtype
        return finish(data._data.astype(d.np, copy=True), d, device or data.device, requires_grad)
    if isinstance(data, np.ndarray):
        d = dtype or dtypes.from_numpy_dtype(data.dtype)
        return finish(np.array(data, dtype=d.np, copy=True), d, device, requires_grad)
    if isinstance(data, str):
        raise errors.type_error("new(): invalid data type 'str'")
    _check_depth(data)  # torch's compute_sizes, down the first items, before anything else
    data = _read_sequences(data, [0], 0)  # torch takes any sequence: range(5), [range(2), range(2)], ...
    if isinstance(data, (list, tuple)):
        _check_str(data)
    d = dtype or _infer_dtype(data)
    if isinstance(data, (list, tuple)):
        _check_nesting(data, d)
    nested = _to_nested(data, d)
    if d.category == dtypes.INT:
        nested = _checked_ints(nested, d)
    try:
        arr = np.array(nested, dtype=d.np)
    except OverflowError:
        raise errors.runtime(f"value cannot be converted to type {d.name} without overflow") from None
    except (ValueError, TypeError) as e:
        raise errors.value(str(e)) from None
    return finish(arr, d, device, requires_grad)


def _checked_ints(nested, d):
    """torch.tensor's conversion of each number into an integer dtype (c10::checked_convert, which
    names the dtype): a Python int past 64 bits is CPython's overflow, one out of the dtype's range an
    error (a uint8 takes -255..255, the negatives wrapping), a float is truncated where it fits."""
    info = np.iinfo(d.np)
    low = int(info.min) if d.is_signed else -int(info.max)
    wrap_at = None if d.is_signed else 1 << (8 * d.itemsize)

    def convert(v):
        if isinstance(v, list):
            return [convert(x) for x in v]
        if isinstance(v, builtins.bool) or not isinstance(v, (builtins.int, builtins.float)):
            return v
        if isinstance(v, builtins.int):
            if not -(1 << 63) <= v < (1 << 63):
                raise errors.value("Overflow when unpacking long long")
            bad = not low <= v <= info.max
        else:
            bad = v != v or not info.min <= v <= info.max
        if bad:
            raise errors.runtime(f"value cannot be converted to type {d.name} without overflow")
        v = int(v)
        return v + wrap_at if v < 0 and wrap_at else v
    return convert(nested)


def _check_depth(data):
    """torch's compute_sizes: down the first items, at most 128 nested sequences (MAX_DIMS)."""
    depth = 0
    while isinstance(data, (list, tuple)) or is_sequence(data):
        depth += 1
        if depth > 128:
            raise errors.value(f"too many dimensions '{type(data).__name__}'")
        if not len(data):
            return
        data = data[0]


def _check_str(data):
    for x in data:
        if isinstance(x, str):
            raise errors.type_error("new(): invalid data type 'str'")
        if isinstance(x, (list, tuple)):
            _check_str(x)


class _Items(list):
    """A sequence that is no list or tuple, read into a list; ``kind`` is its type's name (torch's
    messages name it)."""

    __slots__ = ("kind",)


_SCALARS = (builtins.int, builtins.float, builtins.bool, builtins.complex, builtins.str, builtins.bytes, np.generic)


def is_sequence(data) -> bool:
    """CPython's PySequence_Check, which torch.tensor asks of what it is given: a range (or the
    language's stand-in for a long one), an object whose class has __getitem__ (no dict)."""
    if isinstance(data, (list, tuple, Tensor, np.ndarray, dict) + _SCALARS):
        return False
    return isinstance(data, range) or type(data).__name__ == "BigRange" or hasattr(type(data), "__getitem__")


def _read_sequences(data, count, depth):
    """``data`` with every sequence that is no list or tuple (a range, a class's object with
    ``__len__`` and ``__getitem__``) read as torch reads one: its length, then its items by index
    (internal_new_from_data's infer_scalar_type); ``data`` itself where there is none. The items read
    are counted against --max-elements before they are made (a long range), the nesting against
    torch's 128 dims (an object whose items are objects without end)."""
    if depth > 128:
        raise errors.value(f"too many dimensions '{type(data).__name__}'")
    t = type(data)
    if t is list or t is tuple or (isinstance(data, (list, tuple)) and not isinstance(data, _Items)):
        out = None
        for i, x in enumerate(data):
            if type(x) in _FAST_ITEMS:
                continue
            y = _read_sequences(x, count, depth + 1)
            if y is not x:
                if out is None:
                    out = list(data)
                out[i] = y
        if out is None:
            return data
        return out
    if not is_sequence(data):
        return data
    n = len(data)
    count[0] += n
    check_numel(count[0])
    items = _Items()
    items.kind = type(data).__name__
    for i in range(n):
        x = data[i]
        if x is data:
            raise errors.type_error("new(): self-referential lists are incompatible")
        items.append(_read_sequences(x, count, depth + 1))
    return items


_FAST_ITEMS = frozenset((builtins.int, builtins.float, builtins.bool))


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device) if dtype or device else data
    if isinstance(data, np.ndarray) and dtype is None and device is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """torch.asarray: a tensor shares obj's memory (and its autograd history) unless copy=True (a clone)
    or dtype/device ask for a conversion; requires_grad=False given explicitly detaches the result, left
    out it follows obj (torch 2.13's default)."""
    for pname, value in (("copy", copy), ("requires_grad", requires_grad)):
        if value is not None and value.__class__ is not builtins.bool:  # torch's parser: no NumPy bool, no Tensor
            raise errors.type_error(f"asarray(): argument '{pname}' must be bool, not {typename(value)}")
    t = as_tensor(obj, dtype=_resolve(dtype), device=device)
    if copy and t is obj:
        t = t.clone()
    if requires_grad is False and t.requires_grad:
        t = t.detach()
    elif requires_grad:
        t.requires_grad_(True)
    return t


def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise errors.type_error(f"expected np.ndarray (got {type(ndarray).__name__})")
    d = dtypes.from_numpy_dtype(ndarray.dtype)
    return wrap(ndarray, d)  # shares memory, like torch


def tensor_from_numpy_value(a):
    return wrap(np.array(a), dtypes.from_numpy_dtype(a.dtype))


def legacy_tensor(*args, **kwargs):
    """torch.Tensor(...) / torch.FloatTensor(...): sizes or data, always float32 (the default dtype)."""
    d = dtypes.defaults.float
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not _all_ints(args[0]):
        return tensor(args[0], dtype=d)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return tensor(list(args[0]), dtype=d)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0]
    if len(args) == 1 and is_sequence(args[0]):  # torch.Tensor(range(3))
        return tensor(args[0], dtype=d)
    if not args:  # torch.Tensor(): an empty 1-d tensor, tensor([])
        return zeros(0, dtype=d)
    return zeros(*args, dtype=d)


def _all_ints(seq):
    return False


# ---------------------------------------------------------------------------- filled constructors

def _size(size, name="zeros"):
    """A size given as ints or one sequence, checked with torch's messages for `name`()."""
    if len(size) == 1 and isinstance(size[0], (list, tuple, Size)):
        size = tuple(size[0])
        packed = True
    else:
        packed = len(size) != 1
    out = []
    for pos, s in enumerate(size, 1):
        if isinstance(s, Tensor) and s._data.size == 1 and not s.dtype.is_floating_point:
            if s.dtype is dtypes.bool_:  # (Tensor.__index__ of a bool tensor: c10's TORCH_CHECK without a message)
                raise errors.runtime("Expected scalar.isIntegral( false) to be true, but got false.  (Could this error "
                                     "message be improved?  If so, please report an enhancement request to PyTorch.)")
            s = s.item()
        if not isinstance(s, (builtins.int, np.integer)) or isinstance(s, builtins.bool):
            if packed:
                raise errors.type_error(f"{name}(): argument 'size' failed to unpack the object at pos {pos} with "
                                        f"error \"type must be tuple of ints,but got {type(s).__name__}\"")
            raise errors.type_error(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                                    f"{type(s).__name__}")
        out.append(builtins.int(s))
    check_int_list(name, "size", out)
    for s in out:
        if s < 0:
            if name == "zeros":
                raise errors.runtime("zeros: Dimension size must be non-negative.")
            raise errors.runtime(f"Trying to create tensor with negative dimension {s}: "
                                 f"[{', '.join(str(x) for x in out)}]")
    size = tuple(out)
    n = 1
    for s in size:
        n *= s
    check_numel(n)
    return size


def set_max_elements(n):
    _limits["max_elements"] = n


def _filled(fill, size, dtype, device, requires_grad, default=None, name="zeros"):
    size = _size(size, name)
    d = _resolve(dtype) or default or dtypes.defaults.float
    if device is None:
        device = DEFAULT_DEVICE[0]
    xp = np if device is None or canonical(device).type == "cpu" else cupy()  # made on the GPU, not copied
    if fill is not None and (fill.__class__ is not int or not 0 <= fill <= 127):  # fits every dtype
        fill = dtypes.checked_scalar(fill, d)
    arr = xp.full(size, fill, dtype=d.np) if fill is not None else xp.empty(size, dtype=d.np)
    return finish(arr, d, device, requires_grad)


def zeros(*size_args, size=None, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    size = size_args if size is None else (size,)
    return _filled(0, size, dtype, device, requires_grad)


def ones(*size_args, size=None, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    size = size_args if size is None else (size,)
    return _filled(1, size, dtype, device, requires_grad, name="ones")


def empty(*size_args, size=None, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None,
          out=None):
    size = size_args if size is None else (size,)
    t = _filled(0, size, dtype, device, requires_grad, name="empty")
    if memory_format is not None and type(t._data) is np.ndarray:
        from .layouts import laid_out_as  # noqa: PLC0415
        t._data = laid_out_as(t._data, memory_format)
    return t


def uninitialized(size, dtype, device):
    """A tensor whose every element the caller writes at once (the random fills): not zeroed first."""
    return _filled(None, size, dtype, device, False, name="empty")


def _not_number(value):
    """A tensor of one or more dims, or one that requires grad, or no number: no Number for torch's argument parser
    (a 0-d tensor that does not require grad is one; None: not given)."""
    if isinstance(value, Tensor):
        return value._data.ndim != 0 or value._rg
    return not (value is None or is_scalar(value))


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    if _not_number(fill_value):
        raise errors.type_error("full(): argument 'fill_value' (position 2) must be Number, not Tensor")
    if dtype is None:
        if isinstance(fill_value, Tensor):
            fill_value = fill_value.item()
        dtype = dtypes.scalar_dtype(fill_value)
    return _filled(fill_value, (size,), dtype, device, requires_grad, name="full")


def _like(fill, input, dtype, device, requires_grad, memory_format):
    d = _resolve(dtype) or input.dtype
    t = _filled(fill, (tuple(input.shape),), d, device or input.device, requires_grad, name="ones")
    return laid_out(t, input, memory_format)


def laid_out(t, input, memory_format):
    """t (new, of input's shape) in the layout torch gives a tensor made like input (preserve_format: input's
    strides where they are dense, contiguous_format, channels_last); the values as they are."""
    arr, src = t._data, input._data
    if memory_format is None and arr.strides == src.strides and arr.itemsize == src.itemsize:
        return t  # (the common case: both C-ordered)
    if type(arr) is np.ndarray and type(src) is np.ndarray:
        from .layouts import empty_as  # noqa: PLC0415 - new layouts only
        out = empty_as(src, arr.dtype, memory_format)
        if out.strides != arr.strides:
            out[...] = arr
            t._data = out
    return t


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return _like(0, input, dtype, device, requires_grad, memory_format)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return _like(1, input, dtype, device, requires_grad, memory_format)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return _like(0, input, dtype, device, requires_grad, memory_format)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              memory_format=None):
    return _like(fill_value, input, dtype, device, requires_grad, memory_format)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, layout=None):
    int64_args(n, m)  # the parser's ints: 2**64 is its ValueError, before any size check
    d = _resolve(dtype) or dtypes.defaults.float
    if n < 0:
        raise errors.runtime(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise errors.runtime(f"m must be greater or equal to 0, got {m}")
    _size((n, m if m is not None else n), "eye")
    return finish(np.eye(n, m, dtype=d.np), d, device, requires_grad)


def _arange_type_error(start, end, step, kwargs):
    """torch's argument parser's error (told again with the arguments as given by torch.arange's binding)."""
    from .arg_parser import parser_error  # noqa: PLC0415 - only for the error
    from .torch_signatures import SIGNATURES  # noqa: PLC0415
    given = (start,) + (() if end is _NO_END else (end,)) + (() if step is _STEP_ONE else (step,))
    return parser_error("arange", SIGNATURES["arange"], given, kwargs)


_STEP_ONE = 1.0  # arange's default step (an object of its own: an explicit step=1 is shown in torch's TypeError)
_NO_END = object()  # arange(end): no end given (arange(1, None) is torch's TypeError)


def arange(start=_NO_END, end=_NO_END, step=_STEP_ONE, *, dtype=None, device=None, requires_grad=False,
           layout=None, out=None):
    if start is _NO_END:  # arange(end=3); arange(): the parser's error
        if end is _NO_END:
            from .arg_parser import parser_error  # noqa: PLC0415 - only for the error
            from .torch_signatures import SIGNATURES  # noqa: PLC0415
            raise parser_error("arange", SIGNATURES["arange"], (), {})
        start, end = end, _NO_END
    if _not_number(start) or (end is not _NO_END and _not_number(end)) or _not_number(step) or not (
            dtype is None or isinstance(dtype, dtypes.dtype)) or any(v is None for v in (start, end, step)):
        kwargs = {k: v for k, v in (("dtype", dtype), ("device", device), ("requires_grad", requires_grad or None))
                  if v is not None}
        raise _arange_type_error(start, end, step, kwargs)
    if step is _STEP_ONE:
        step = 1
    if end is _NO_END:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    for v in vals:  # the parser's Scalars
        if v.__class__ is builtins.int:
            dtypes.scalar_int(v)
    if vals[2] == 0:
        raise errors.runtime("step must be nonzero")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise errors.runtime("upper bound and lower bound inconsistent with step sign")
    d = _resolve(dtype)
    if d is None:
        d = dtypes.int64 if all(isinstance(v, builtins.int) for v in vals) else dtypes.defaults.float
    if not d.is_floating_point:  # the kernel's accumulate type (int64 for every integer dtype) takes them
        for v in vals:
            if v.__class__ is builtins.int:
                dtypes.checked_scalar(v, dtypes.int64)
    n = builtins.max(0, int(np.ceil((vals[1] - vals[0]) / vals[2])))
    _size((n,))
    arr = arange_values(vals[0], vals[2], n, d.np) if d.is_floating_point else \
        np.arange(vals[0], vals[1], vals[2]).astype(d.np)
    return finish(arr, d, device, requires_grad)


def _check_0d_ends(name, start, end):
    bad = [f"{what} with {v._data.ndim} dimension(s)" for what, v in (("start", start), ("end", end))
           if isinstance(v, Tensor) and v._data.ndim]
    if bad:
        raise errors.runtime(f"{name} only supports 0-dimensional start and end tensors, but got {' and '.join(bad)}.")


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    int64_args(steps)  # the parser's int: 2**64 is its ValueError, not the size's TypeError
    _check_0d_ends("linspace", start, end)
    for v in (start, end):  # the parser's Scalars
        if v.__class__ is builtins.int:
            dtypes.scalar_int(v)
    d = _resolve(dtype) or dtypes.defaults.float
    if steps < 0:
        raise errors.runtime("number of steps must be non-negative")
    _size((steps,), "linspace")
    if steps == 1:
        arr = np.asarray([start], np.float64)
    else:
        arr = _linspace_values(start, end, steps, d)
    return finish(arr.astype(d.np), d, device, requires_grad)


def _linspace_values(start, end, steps, d):
    """torch's linspace kernel: from both ends towards the middle, in the output dtype (doubles for
    integer outputs), each value one fused multiply-add (exact product, one rounding)."""
    idx = np.arange(steps, dtype=np.float64)
    half = steps // 2
    if not d.is_floating_point:
        step = (float(end) - float(start)) / (steps - 1)
        return np.where(idx < half, start + step * idx, end - step * (steps - idx - 1))
    f = d.np.type
    s, e = f(start), f(end)
    if d.itemsize == 2:  # c10::Half arithmetic: every operation rounds to half, integers too
        step = f(f(e - s) / f(steps - 1))
        lo = s + step * idx.astype(f)
        hi = e - step * (steps - idx - 1).astype(f)
        return np.where(idx < half, lo, hi)
    # a wider type makes the product exact, emulating the FMA (long double: 64-bit mantissa)
    wide = np.float64 if d.itemsize < 8 else np.longdouble
    step = wide(f((e - s) / f(steps - 1)))
    idx = idx.astype(wide)
    lo = (step * idx + wide(s)).astype(d.np)
    hi = (wide(e) - step * (steps - idx - 1)).astype(d.np)
    return np.where(idx < half, lo, hi)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    int64_args(steps)
    _check_0d_ends("logspace", start, end)
    lin = linspace(start, end, steps, dtype=dtypes.float64)
    d = _resolve(dtype) or dtypes.defaults.float
    return finish((base ** lin._data).astype(d.np), d, device, requires_grad)


# ---------------------------------------------------------------------------- random

# public names for rng_factory.py, which builds the random constructors on these
resolve_dtype = _resolve
check_size = _size

from .rng import DEFAULT_SEED, Generator  # noqa: E402, F401 - these and the random names: api.py binds torch.X from here
from .rng_factory import (bernoulli, multinomial, normal, rand, rand_like, randint, randint_like,  # noqa: E402, F401
                          randn, randn_like, randperm)
from .rng_ops import (cuda_generator, cuda_initial_seed, cuda_manual_seed, default_generator,  # noqa: E402, F401
                      get_rng_state, initial_seed, manual_seed, seed, set_rng_state)
