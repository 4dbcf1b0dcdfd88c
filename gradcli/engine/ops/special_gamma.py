"""The gamma family of the special ops: lgamma (torch.special.gammaln) and digamma (torch.special.psi),
as ATen's CPU kernels compute them: lgamma is the C library's lgamma/lgammaf per element (ATen calls
std::lgamma), digamma ATen's own calc_digamma (ATen/native/Math.h: the recurrence up to 10, then the
asymptotic series), step for step in the tensor's dtype. digamma's derivative is the trigamma function
(ATen's calc_trigamma: the reflection below 1/2, six recurrence steps, then the series); polygamma of
higher orders is not there, so digamma's gradient does not differentiate again."""
from __future__ import annotations

import math

import numpy as np

from ..function import Function
from .elementwise_common import unary
from .registry import op, sample1
from .special_common import IP

_LIBM = {}


def _c_function(name, ctype):
    """The process's C library function `name` (double or float) as a NumPy element loop, else None."""
    key = (name, ctype)
    if key not in _LIBM:
        try:
            import ctypes  # noqa: PLC0415
            fn = getattr(ctypes.CDLL(None), name)
            fn.restype, fn.argtypes = getattr(ctypes, ctype), [getattr(ctypes, ctype)]
            _LIBM[key] = np.frompyfunc(fn, 1, 1)
        except (OSError, AttributeError, ImportError):
            _LIBM[key] = None
    return _LIBM[key]


def lgamma_np(x):
    x = np.asarray(x)
    f32 = x.dtype == np.float32
    fn = _c_function("lgammaf" if f32 else "lgamma", "c_float" if f32 else "c_double")
    if fn is None:  # no C library: Python's lgamma (Lanczos), correctly rounded to the last bit or two
        fn = np.frompyfunc(lambda v: math.lgamma(v) if not (v <= 0 and v == math.floor(v)) else math.inf, 1, 1)
    if not x.size:
        return x.copy()
    return np.asarray(fn(x), dtype=np.float64).astype(x.dtype)


_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


def _libm(name, x):
    from .. import rng_libm  # noqa: PLC0415
    return rng_libm.libm_f32(name + "f", x) if x.dtype == np.float32 else rng_libm.libm(name, x)


def digamma_np(x):
    """ATen's calc_digamma over an array, in its dtype (float32 or float64)."""
    x = np.asarray(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        out = np.empty_like(x)
        neg = x < 0
        integer = x == np.trunc(x)
        # x < 0: digamma(1 - x) - pi / tan(pi * r), r the fractional part (in double, rounded once for float)
        r = np.modf(x.astype(np.float64))[0]
        reflect = (np.pi / np.tan(np.pi * r)).astype(x.dtype)
        y = np.where(neg, t(1) - x, x)
        result = np.zeros_like(x)
        for _ in range(11):  # push y up to >= 10 (the C loop; at most 10 steps from y > 0)
            low = y < 10
            if not low.any():
                break
            result = np.where(low, result - t(1) / y, result)
            y = np.where(low, y + t(1), y)
        z = t(1) / (y * y)
        poly = np.zeros_like(x)
        for a in _PSI_A:
            poly = poly * z + t(a)
        series = np.where(y < t(1.0e17), z * poly, t(0))
        far = result + _libm("log", np.where(y > 0, y, t(1))) - t(0.5) / y - series
        out = np.where(y == 10, result + t(2.25175258906672110764), far)
        out = np.where(neg, out - reflect, out)
        out = np.where(neg & integer, t(np.nan), out)
        out = np.where(x == 0, np.copysign(t(np.inf), -x), out)
        out = np.where(np.isnan(x), x, out)
    return out.astype(x.dtype)


def trigamma_np(x):
    """ATen's calc_trigamma over an array, in its dtype."""
    x = np.asarray(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        low = x < t(0.5)
        sin_pi_x = _libm("sin", t(np.pi) * x)
        result = np.where(low, t(0) - (t(np.pi) * t(np.pi)) / (sin_pi_x * sin_pi_x), t(0))
        sign = np.where(low, t(-1), t(1))
        y = np.where(low, t(1) - x, x)
        for _ in range(6):
            result = result + t(1) / (y * y)
            y = y + t(1)
        ixx = t(1) / (y * y)
        one = t(1)
        result = result + (one + one / (t(2) * y) + ixx * (one / t(6) - ixx * (one / t(30) - ixx * (one / t(42))))) / y
    return (sign * result).astype(x.dtype)


class LgammaBackward0(Function):
    __slots__ = ()
    explain = "digamma({a})"
    save_inputs = True

    @staticmethod
    def forward(x):
        return lgamma_np(x)

    def backward(self, g):
        (x,) = self.saved
        return (g * digamma(x),)


class DigammaBackward0(Function):
    __slots__ = ()
    explain = "trigamma({a}) (polygamma(1, {a}))"
    save_inputs = True

    @staticmethod
    def forward(x):
        return digamma_np(x)

    def backward(self, g):
        (x,) = self.saved
        return (g * unary(PolygammaBackward0, x.detach()),)


class PolygammaBackward0(Function):
    """trigamma as digamma's derivative: a value, whose own derivative (polygamma(2)) gradcli lacks."""
    __slots__ = ()
    explain = "polygamma(2, {a})"

    @staticmethod
    def forward(x):
        return trigamma_np(x)

    def backward(self, g):
        raise NotImplementedError("polygamma(n, x) for n >= 2 is not implemented in gradcli (the derivative of "
                                  "digamma's gradient)")


def lgamma(input):
    return unary(LgammaBackward0, input)


def digamma(input):
    return unary(DigammaBackward0, input)


OPS = [
    op("lgamma", lgamma, LgammaBackward0, special=("gammaln",), sample=sample1("pos"), **IP),
    op("digamma", digamma, DigammaBackward0, special=("digamma", "psi"), sample=sample1("pos", second=False), **IP),
]
