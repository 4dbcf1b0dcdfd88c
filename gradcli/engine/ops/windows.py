"""The window functions: torch.hann_window, hamming_window, blackman_window, bartlett_window and kaiser_window,
as ATen's TensorFactories.cpp builds them: an arange in the result's dtype, then its in-place ops one by one (each
rounded to the dtype, a Python number taken in that dtype), so the cosines are gradcli's torch.cos and the bits
torch's wherever those are; kaiser_window is UnaryOpsKernel.cpp's kaiser_window_kernel element by element in the
op-math type (float for float32 and float16) with Math.h's calc_i0 (special_bessel.py's i0). periodic=True builds
window_length + 1 points and drops the last. The results are leaves (requires_grad= as any constructor).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..autograd_modes import no_grad
from ..device import canonical, host
from .registry import lazy_inplace, op, tables

# caffe2's TypeMeta names, as TensorOptions prints them
_CXX_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _checks(name, window_length, dtype, device):
    """ATen's window_function_checks: a floating dtype, a non-negative length. Returns the dtype."""
    d = dtype or dtypes.defaults.float
    if not d.is_floating_point:
        dev = canonical(device)
        dev = "cpu" if dev.type == "cpu" else f"{dev.type}:{dev.index or 0}"
        raise errors.runtime(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                             f"{_CXX_NAMES.get(d.name, d.name)}, device={dev}, layout=Strided (default), "
                             "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")
    if window_length < 0:
        raise errors.runtime(f"{name} requires non-negative window_length, got window_length={window_length}")
    return d


_UNSET = object()


def _typed(key, value):
    if key == "periodic":
        return isinstance(value, bool)
    if key == "window_length":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, (int, float))  # a float parameter takes a bool as torch's parser does


def _overloads(name, window_length, params, extra):
    """torch's overloads take periodic, alpha, beta positionally in that order (each needs the ones before):
    their parser's TypeError for a later one given without an earlier. Returns the values, unset ones None."""
    seen_gap = False
    for key, value in params:
        if value is _UNSET:
            seen_gap = True
        elif seen_gap or not _typed(key, value) or not _typed("window_length", window_length):
            from ..arg_parser import parser_error  # noqa: PLC0415 - only for the error
            from ..torch_signatures import SIGNATURES  # noqa: PLC0415
            kwargs = {k: v for k, v in params if v is not _UNSET}
            kwargs.update({k: v for k, v in extra.items() if v is not None and v is not False})
            raise parser_error(name, SIGNATURES[name], (window_length,), kwargs)
    return [None if v is _UNSET else v for _, v in params]


def _window(name, window_length, periodic, dtype, device, requires_grad, body):
    """The shared frame: the checks, the empty and one-point windows, periodic's extra point."""
    from .. import factory  # noqa: PLC0415 - the constructors (factory imports the ops)
    d = _checks(name, window_length, dtype, device)
    if window_length <= 1:
        return factory.full((window_length,), 1.0, dtype=d, device=device, requires_grad=requires_grad)
    n = window_length + 1 if periodic else window_length
    # ATen's native in-place ops take a Python number in the tensor's dtype (float16 too: measured, every
    # float16 window of 2-200 points bit for bit so), then compute in the op-math type
    sc = (lambda v: float(np.float16(v))) if d is dtypes.float16 else float
    with no_grad():
        w = body(factory.arange(n, dtype=d), n, sc)
    arr = np.ascontiguousarray(host(w._data)[:n - 1] if periodic else host(w._data))
    return factory.finish(arr, d, device, requires_grad)


def hamming_window(window_length, periodic=_UNSET, alpha=_UNSET, beta=_UNSET, *, dtype=None, layout=None,
                   device=None, requires_grad=False, pin_memory=False):
    periodic, alpha, beta = _overloads("hamming_window", window_length, (("periodic", periodic), ("alpha", alpha),
                                       ("beta", beta)), {"dtype": dtype, "requires_grad": requires_grad})
    periodic = True if periodic is None else periodic
    alpha = 0.54 if alpha is None else float(alpha)
    beta = 0.46 if beta is None else float(beta)
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda x, n, sc: x.mul(sc(math.pi * 2.0 / (n - 1))).cos().mul(sc(-beta)).add(sc(alpha)))


def hann_window(window_length, periodic=_UNSET, *, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False):
    (periodic,) = _overloads("hann_window", window_length, (("periodic", periodic),),
                             {"dtype": dtype, "requires_grad": requires_grad})
    periodic = True if periodic is None else periodic
    _checks("hann_window", window_length, dtype, device)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device, requires_grad=requires_grad)


def _blackman(x, n, sc):
    x = x.mul(sc(math.pi / (n - 1)))
    return x.mul(4).cos().mul(sc(0.08)) - x.mul(2).cos().mul(sc(0.5)) + sc(0.42)


def blackman_window(window_length, periodic=_UNSET, *, dtype=None, layout=None, device=None, requires_grad=False,
                    pin_memory=False):
    (periodic,) = _overloads("blackman_window", window_length, (("periodic", periodic),),
                             {"dtype": dtype, "requires_grad": requires_grad})
    periodic = True if periodic is None else periodic
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, _blackman)


def _bartlett(x, n, sc):
    x = x.mul(sc(2.0 / (n - 1)))
    half = ((n - 1) >> 1) + 1
    rest = x[half:].mul(-1).add(2)
    from .join_split import cat  # noqa: PLC0415
    return cat([x[:half], rest])


def bartlett_window(window_length, periodic=_UNSET, *, dtype=None, layout=None, device=None, requires_grad=False,
                    pin_memory=False):
    (periodic,) = _overloads("bartlett_window", window_length, (("periodic", periodic),),
                             {"dtype": dtype, "requires_grad": requires_grad})
    periodic = True if periodic is None else periodic
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, _bartlett)


def kaiser_arrays(n, beta, np_dtype):
    """kaiser_window_kernel over arange(n): i0(beta sqrt|1 - ((a - alpha) / alpha)^2|) / i0(beta) in the
    op-math type (float32 for float32 and float16, float64 for float64)."""
    from ..rng_math import fma32, fma64  # noqa: PLC0415
    from .special_bessel import i0_np  # noqa: PLC0415
    t = np.float64 if np_dtype == np.float64 else np.float32
    alpha = t((n - 1) / 2.0)
    b = t(beta)
    a = np.arange(n, dtype=np_dtype).astype(t)
    with np.errstate(all="ignore"):
        r = (a - alpha) / alpha
        # std::pow(r, 2.0) is r * r, and the AVX2 build contracts 1 - r * r into one fused multiply-add (measured:
        # without it the middle points differ in their last bit)
        arg = b * np.sqrt(np.abs((fma64 if t is np.float64 else fma32)(-r, r, np.ones_like(r))))
        out = i0_np(arg) / i0_np(np.full(1, b, t))[0]
    return out.astype(np_dtype)


def kaiser_window(window_length, periodic=_UNSET, beta=_UNSET, *, dtype=None, layout=None, device=None,
                  requires_grad=False, pin_memory=False):
    periodic, beta = _overloads("kaiser_window", window_length, (("periodic", periodic), ("beta", beta)),
                                {"dtype": dtype, "requires_grad": requires_grad})
    periodic = True if periodic is None else periodic
    beta = 12.0 if beta is None else float(beta)
    from .. import factory  # noqa: PLC0415
    d = _checks("kaiser_window", window_length, dtype, device)
    if window_length <= 1:
        return factory.full((window_length,), 1.0, dtype=d, device=device, requires_grad=requires_grad)
    n = window_length + 1 if periodic else window_length
    w = kaiser_arrays(n, beta, d.np)
    return factory.finish(np.ascontiguousarray(w[:n - 1] if periodic else w), d, device, requires_grad)


_FACTORY = "a constructor: its result is a leaf"
OPS = [
    op(name, fn, method=False, no_grad=_FACTORY)
    for name, fn in (("hann_window", hann_window), ("hamming_window", hamming_window),
                     ("blackman_window", blackman_window), ("bartlett_window", bartlett_window),
                     ("kaiser_window", kaiser_window))
]


_TABLES = tables(OPS, lazy_inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only
