"""Unary elementwise extras of the special family: the erf family (no SciPy), log1p/expm1/exp2 and
the other exp/log variants, inverse and hyperbolic trig, sign and rounding. One Function subclass
per PyTorch node (forward on arrays, backward with Tensor ops, so the gradient differentiates
again); each op's declaration is in this module's OPS.
"""
from __future__ import annotations

import math

import numpy as np

from ...backend import vml
from .. import dtypes, errors, numerics
from ..device import asarray as _asarray
from ..device import xp_of
from ..function import Function, out_variant
from ..tensor import wrap
from . import elementwise_common as EC
from . import special_erf
from . import unary_math as UM
from .clamp_where import where
from .elementwise_common import unary
from .unary_math import sgn
from .registry import V, case, op, sample1
from .special_common import (
    BOOL_RESULT,
    IP,
    LN2,
    SQRT_PI,
    TIP,
    AcoshBackward1,
    AsinhBackward1,
    AtanhBackward1,
    host_kernel,
    need_float,
)

# ---------------------------------------------------------------------------- erf family (no SciPy)

# the numerics are special_erf.py's (extended precision, rounded once: torch's MKL results nearly always)

def erf_np(a):
    return special_erf.erf(a)


def _erfc_np(a):
    return special_erf.erfc(a)


def _erfinv_np(a):
    return special_erf.erfinv(a)


class ErfBackward0(Function):
    __slots__ = ()
    explain = "2 / sqrt(pi) * exp(-{pa}**2)"
    save_inputs = True
    forward = staticmethod(vml("erf", host_kernel(erf_np)))

    def backward(self, g):
        (x,) = self.saved
        return (EC.mul_scalar(UM.exp(-(x ** 2)), 2.0 / SQRT_PI) * g,)


class ErfcBackward0(Function):
    __slots__ = ()
    explain = "-2 / sqrt(pi) * exp(-{pa}**2)"
    save_inputs = True
    forward = staticmethod(vml("erfc", host_kernel(_erfc_np)))

    def backward(self, g):
        (x,) = self.saved
        return (EC.mul_scalar(UM.exp(-(x ** 2)), -2.0 / SQRT_PI) * g,)


class ErfinvBackward0(Function):
    __slots__ = ()
    explain = "sqrt(pi) / 2 * exp(erfinv({a})**2)"
    save_inputs = True
    forward = staticmethod(vml("erfinv", host_kernel(_erfinv_np)))

    def backward(self, g):
        (x,) = self.saved
        return (EC.mul_scalar(UM.exp(erfinv(x) ** 2), 0.5 * SQRT_PI) * g,)


def erf(input):
    return unary(ErfBackward0, input)


def erfc(input):
    return unary(ErfcBackward0, input)


def erfinv(input):
    return unary(ErfinvBackward0, input)


# ---------------------------------------------------------------------------- exp/log variants

class Log1PBackward0(Function):
    __slots__ = ()
    explain = "1 / (1 + {a})"
    save_inputs = True
    forward = staticmethod(numerics.ufunc(np.log1p))

    def backward(self, g):
        (x,) = self.saved
        return (g / (x + 1),)


class Expm1Backward0(Function):
    __slots__ = ()
    explain = "exp({a})"
    save_output = True
    forward = staticmethod(numerics.ufunc(np.expm1))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (g * EC.add_scalar(result, 1),)


class Exp2Backward0(Function):
    __slots__ = ()
    explain = "2**{pa} * ln 2"
    save_output = True
    forward = staticmethod(numerics.ufunc(np.exp2))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (EC.mul_scalar(g * result, LN2),)


def log1p(input):
    return unary(Log1PBackward0, input)


def expm1(input):
    return unary(Expm1Backward0, input)


def exp2(input):
    return unary(Exp2Backward0, input)


# ---------------------------------------------------------------------------- trig and hyperbolic

class AsinBackward0(Function):
    __slots__ = ()
    explain = "1 / sqrt(1 - {pa}**2)"
    save_inputs = True
    forward = staticmethod(vml("asin", numerics.ufunc(np.arcsin)))

    def backward(self, g):
        (x,) = self.saved
        return (g * UM.rsqrt(-x * x + 1),)


class AcosBackward0(Function):
    __slots__ = ()
    explain = "-1 / sqrt(1 - {pa}**2)"
    save_inputs = True
    forward = staticmethod(vml("acos", numerics.ufunc(np.arccos)))

    def backward(self, g):
        (x,) = self.saved
        return (g * -UM.rsqrt(-x * x + 1),)


class AtanBackward0(Function):
    __slots__ = ()
    explain = "1 / (1 + {pa}**2)"
    save_inputs = True
    forward = staticmethod(vml("atan", numerics.ufunc(np.arctan)))

    def backward(self, g):
        (x,) = self.saved
        return (g / EC.add_scalar(x * x, 1),)


def _c_float(np_fn, cname, vector=True):
    """A float32 op as ATen's cpu_kernel_vec runs it: the vector body (SLEEF's u10 function: the float64
    result rounded agrees on ~99.9%) and the C library's float function on the scalar tail, or on every
    element when the op has no vector form (vector=False: asinh, acosh); other dtypes as numerics.ufunc
    (float64: NumPy's loop, glibc's function, as ATen's tail). glibc's sinhf/coshf/atanhf/asinhf/acoshf
    are not correctly rounded (the float64 rounding missed 20-25% of a short tensor's elements)."""
    f64 = numerics.ufunc(np_fn)

    def fn(x):
        if getattr(x, "dtype", None) != np.float32 or type(x) is not np.ndarray or not x.size:
            return f64(x)
        from .. import rng_libm  # noqa: PLC0415

        def scalar(v):
            return rng_libm.libm_f32(cname, v)
        if not vector:
            return scalar(x)
        from ..pow_kernel import unary_kernel  # noqa: PLC0415
        return unary_kernel(x, f64, scalar)
    return fn


class SinhBackward0(Function):
    __slots__ = ()
    explain = "cosh({a})"
    save_inputs = True
    forward = staticmethod(_c_float(np.sinh, "sinhf"))

    def backward(self, g):
        (x,) = self.saved
        return (g * cosh(x),)


class CoshBackward0(Function):
    __slots__ = ()
    explain = "sinh({a})"
    save_inputs = True
    forward = staticmethod(_c_float(np.cosh, "coshf"))

    def backward(self, g):
        (x,) = self.saved
        return (g * sinh(x),)


class AsinhBackward0(Function):
    __slots__ = ()
    explain = "1 / sqrt({pa}**2 + 1)"
    save_inputs = True
    forward = staticmethod(_c_float(np.arcsinh, "asinhf", vector=False))

    def backward(self, g):
        (x,) = self.saved
        return (g * UM.rsqrt(EC.add_scalar(x ** 2, 1)),)


class AcoshBackward0(Function):
    __slots__ = ()
    explain = "1 / sqrt({pa}**2 - 1)"
    save_inputs = True
    forward = staticmethod(_c_float(np.arccosh, "acoshf", vector=False))

    def backward(self, g):
        (x,) = self.saved
        return (g * UM.rsqrt(x ** 2 - 1),)


class AtanhBackward0(Function):
    __slots__ = ()
    explain = "1 / (1 - {pa}**2)"
    save_inputs = True
    forward = staticmethod(_c_float(np.arctanh, "atanhf"))

    def backward(self, g):
        (x,) = self.saved
        return (EC.mul_scalar(g, 1) / (1 - x ** 2),)


class SincBackward0(Function):
    __slots__ = ()
    explain = "(cos(pi * {a}) * pi * {a} - sin(pi * {a})) / (pi * {pa}**2)"
    save_inputs = True

    @staticmethod
    def forward(x):
        if x.dtype == np.float16:  # ATen's sinc computes a Half in its opmath type, float: sin(pi x) / (pi x)
            return np.sinc(x.astype(np.float32)).astype(np.float16)
        return np.sinc(x)

    def backward(self, g):
        (x,) = self.saved
        # torch's sinc_backward: grad * ((x_pi * x_pi.cos() - x_pi.sin()) / x2_pi), with sin made before cos
        # (C++ evaluates those operands right to left): the order decides how float32 gradients add up
        x_pi = x * math.pi
        x2_pi = x * x * math.pi
        sin = UM.sin(x_pi)
        out = g * (((x_pi * UM.cos(x_pi)) - sin) / x2_pi)
        return (where(x2_pi == 0.0, 0.0, out),)


class Deg2RadBackward0(Function):
    __slots__ = ()
    explain = "pi / 180"

    @staticmethod
    def forward(x):
        if x.dtype == np.float16:  # ATen's mul of a Half by a wrapped number computes in float
            return (x.astype(np.float32) * np.float32(math.pi / 180.0)).astype(np.float16)
        return x * x.dtype.type(math.pi / 180.0)

    def backward(self, g):
        return (EC.mul_scalar(g, math.pi / 180.0),)


class Rad2DegBackward0(Function):
    __slots__ = ()
    explain = "180 / pi"

    @staticmethod
    def forward(x):
        if x.dtype == np.float16:  # ATen's mul of a Half by a wrapped number computes in float
            return (x.astype(np.float32) * np.float32(180.0 / math.pi)).astype(np.float16)
        return x * x.dtype.type(180.0 / math.pi)

    def backward(self, g):
        return (EC.mul_scalar(g, 180.0 / math.pi),)


def asin(input):
    return unary(AsinBackward0, input)


def acos(input):
    return unary(AcosBackward0, input)


def atan(input):
    return unary(AtanBackward0, input)


def sinh(input):
    return unary(SinhBackward0, input)


def cosh(input):
    return unary(CoshBackward0, input)


def asinh(input):
    return unary(AsinhBackward0, input)


def acosh(input):
    return unary(AcoshBackward0, input)


def atanh(input):
    return unary(AtanhBackward0, input)


def sinc(input):
    return unary(SincBackward0, input)


def deg2rad(input):
    return unary(Deg2RadBackward0, input)


def rad2deg(input):
    return unary(Rad2DegBackward0, input)


arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh


# ---------------------------------------------------------------------------- sign and rounding

class FracBackward0(Function):
    __slots__ = ()
    explain = "1"

    @staticmethod
    def forward(x):
        return x - np.trunc(x)

    def backward(self, g):
        return (g,)


class RoundBackward1(Function):
    """round(x, decimals=d)."""
    __slots__ = ()
    explain = "0 (rounding is flat between its steps)"

    @staticmethod
    def forward(x, decimals):
        return np.round(x, decimals)

    def backward(self, g):
        return (EC.zero_grad(g),)


def frac(input):
    need_float(input, "frac_cpu")
    return unary(FracBackward0, input)


def round(input, *, decimals=0):
    if decimals == 0:
        return UM.round(input)
    need_float(input, "round_cpu")
    return unary(RoundBackward1, input, kw={"decimals": int(decimals)})


def fix(input):
    return UM.trunc(input)


def signbit(input):
    return wrap(_asarray(np.signbit(input._data)), dtypes.bool_)


def isposinf(input):
    return wrap(_asarray(np.isposinf(input._data)), dtypes.bool_)


def isneginf(input):
    return wrap(_asarray(np.isneginf(input._data)), dtypes.bool_)


def isreal(input):
    return wrap(xp_of(input._data).ones(input._data.shape, bool), dtypes.bool_)


def positive(input):
    if input.dtype is dtypes.bool_:
        raise errors.runtime("The `+` operator, on a bool tensor is not supported.")
    return input


# ---------------------------------------------------------------------------- declarations

OPS = [
    # sign and rounding
    op("sgn", sgn, UM.SgnBackward0, sample=sample1(), **IP,
       cases={"sign_zero": case(lambda torch, x0: torch.sgn(x0), V.A)}),
    # exp/log variants and the erf family
    op("log1p", log1p, Log1PBackward0, special=True, sample=sample1("pos"), **TIP,
       cases={"log1p": case(lambda torch, x0: torch.log1p(x0), V.P)}),
    op("expm1", expm1, Expm1Backward0, special=True, sample=sample1(), **TIP,
       cases={"expm1": case(lambda torch, x0: torch.expm1(x0), V.A)}),
    op("exp2", exp2, Exp2Backward0, special=True, sample=sample1(), **TIP,
       cases={"exp2": case(lambda torch, x0: torch.exp2(x0), V.A)}),
    op("erf", erf, ErfBackward0, special=True, sample=sample1(), **TIP,
       cases={"erf": case(lambda torch, x0: torch.erf(x0), V.A)}),
    op("erfc", erfc, ErfcBackward0, special=True, sample=sample1(), **TIP,
       cases={"erfc": case(lambda torch, x0: torch.erfc(x0), V.A)}),
    op("erfinv", erfinv, ErfinvBackward0, special=True, sample=sample1("unit"), **IP,
       cases={"erfinv": case(lambda torch, x0: torch.erfinv(x0), V.Q)}),
    # trigonometric and hyperbolic
    op("asin", asin, AsinBackward0, aliases=("arcsin",), sample=sample1("unit"), **TIP,
       cases={"asin": case(lambda torch, x0: torch.asin(x0), V.Q)}),
    op("acos", acos, AcosBackward0, aliases=("arccos",), sample=sample1("unit"), **TIP,
       cases={"acos": case(lambda torch, x0: torch.acos(x0), V.Q)}),
    op("atan", atan, AtanBackward0, aliases=("arctan",), sample=sample1(), **TIP,
       cases={"atan": case(lambda torch, x0: torch.atan(x0), V.A)}),
    op("sinh", sinh, SinhBackward0, sample=sample1(), **TIP,
       cases={"sinh": case(lambda torch, x0: torch.sinh(x0), V.A)}),
    op("cosh", cosh, CoshBackward0, sample=sample1(), **TIP,
       cases={"cosh": case(lambda torch, x0: torch.cosh(x0), V.A)}),
    op("asinh", asinh, AsinhBackward0, aliases=("arcsinh",), inplace_node=AsinhBackward1, sample=sample1(), **TIP,
       cases={"asinh": case(lambda torch, x0: torch.asinh(x0), V.A)}),
    op("acosh", acosh, AcoshBackward0, aliases=("arccosh",), inplace_node=AcoshBackward1, sample=sample1("gt1"),
       **TIP,
       cases={"acosh": case(lambda torch, x0: torch.acosh(x0), V.W)}),
    op("atanh", atanh, AtanhBackward0, aliases=("arctanh",), inplace_node=AtanhBackward1, sample=sample1("unit"),
       **TIP,
       cases={"atanh": case(lambda torch, x0: torch.atanh(x0), V.Q)}),
    op("sinc", sinc, SincBackward0, special=True, sample=sample1(), **TIP,
       cases={"sinc": case(lambda torch, x0: torch.sinc(x0), V.A)}),
    op("deg2rad", out_variant("deg2rad", deg2rad), Deg2RadBackward0, sample=sample1(), **TIP,
       cases={"deg2rad": case(lambda torch, x0: torch.deg2rad(x0), V.A)}),
    op("rad2deg", out_variant("rad2deg", rad2deg), Rad2DegBackward0, sample=sample1(), **TIP,
       cases={"rad2deg": case(lambda torch, x0: torch.rad2deg(x0), V.A)}),
    op("frac", frac, FracBackward0, sample=sample1(), **TIP,
       cases={"frac": case(lambda torch, x0: torch.frac(x0), [0.25, 1.7, -2.4])}),
    op("fix", fix, UM.TruncBackward0, sample=sample1(), **TIP),
    op("round", round, UM.RoundBackward0, RoundBackward1, special=True, sample=sample1(), **TIP,
       cases={"round_decimals": case(lambda torch, x: torch.round(x, decimals=1), [0.32, -0.71, 1.18])}),
    op("signbit", signbit, no_grad=BOOL_RESULT),
    op("isposinf", isposinf, no_grad=BOOL_RESULT),
    op("isneginf", isneginf, no_grad=BOOL_RESULT),
    op("isreal", isreal, no_grad=BOOL_RESULT),
    op("positive", positive, sample=sample1(call=lambda torch, x: x.positive() * 1), operator="+x"),
]
