"""The `out=` argument of torch functions (`torch.add(a, b, out=c)`): computed as usual, then
written into `out` with torch's checks (no autograd, castable dtype, resize with its warning)."""
from __future__ import annotations

import functools
import warnings


from . import dtypes, errors
from .autograd_modes import grad_mode
from .tensor import Tensor
from .device import like, xp_of

_C10 = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
        "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
_RESIZE = ("An output with one or more elements was resized since it had shape [{}], which does not match the "
           "required output shape [{}]. This behavior is deprecated, and in a future PyTorch release outputs "
           "will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by "
           "resizing it, inplace, to zero elements with t.resize_(0). (Triggered internally at "
           "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")


def _write(name, out, result):
    if not isinstance(out, Tensor):
        raise errors.type_error(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    rd, od = result.dtype, out.dtype
    if rd is not od and dtypes.promote_types(rd, od) is not od and rd.category > od.category:
        raise errors.runtime(f"result type {_C10[rd.name]} can't be cast to the desired output type {_C10[od.name]}")
    shape = result._data.shape
    if out._data.shape != shape:
        if out._data.size:
            warnings.warn(_RESIZE.format(", ".join(map(str, out._data.shape)), ", ".join(map(str, shape))),
                          UserWarning, stacklevel=3)
        out._data = xp_of(out._data).empty(shape, od.np)
    out._data[...] = result._data if type(result._data) is type(out._data) else like(out._data, result._data)
    out._version[0] += 1
    return out


_CLAMPS = ("clamp", "clip", "clamp_min", "clamp_max")


def _check_clamp_out(name, args, kwargs, out, result):
    """The meta functions of clamp with number bounds: out=input of another dtype than the result is
    refused in C++ type names ("long int"); clamp and clip also want any other out of the result's
    dtype (their unary TensorIterator)."""
    bounds = [*args[1:], *(v for k, v in kwargs.items() if k != "input")]
    if not isinstance(out, Tensor) or out.dtype is result.dtype or \
            not any(b is not None and not isinstance(b, Tensor) for b in bounds):
        return
    if out is (args[0] if args else kwargs.get("input")):
        from .ops.linalg import c10_low  # noqa: PLC0415
        raise errors.runtime(f"result type {_C10[result.dtype.name]} can't be cast to the desired output type "
                             f"{c10_low(out.dtype)}")
    if name in ("clamp", "clip"):
        raise errors.runtime(f"Found dtype {_C10[out.dtype.name]} but expected {_C10[result.dtype.name]}")


def with_out(fn, name):
    """fn accepting out=...; the unwrapped function stays the fast path when out is not given."""
    @functools.wraps(fn)
    def call(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if grad_mode.enabled and (getattr(out, "_rg", False) or any(
                getattr(a, "_rg", False) for a in args if isinstance(a, Tensor))):
            raise errors.runtime(f"{name}(): functions with out=... arguments don't support automatic "
                                 "differentiation, but one of the arguments requires grad.")
        with_grad = grad_mode.enabled
        grad_mode.enabled = False
        try:
            result = fn(*args, **kwargs)
        finally:
            grad_mode.enabled = with_grad
        if isinstance(result, tuple):
            if not isinstance(out, (tuple, list)) or len(out) != len(result):
                raise errors.type_error(f"{name}(): argument 'out' must be tuple of Tensors")
            for o, r in zip(out, result):
                _write(name, o, r)
            return type(result)(tuple(out)) if hasattr(result, "_fields") else tuple(out)
        if name in _CLAMPS:
            _check_clamp_out(name, args, kwargs, out, result)
        return _write(name, out, result)
    return call
