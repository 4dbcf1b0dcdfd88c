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
from ..function import Function
from ..tensor import wrap
from . import elementwise_common as EC
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

# W. J. Cody's rational Chebyshev approximations (CALERF, Math. Comp. 1969): erf/erfc to double precision,
# vectorised (NumPy has no erf and gradcli does not depend on SciPy).
_CA = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
       1.85777706184603153e-1)
_CB = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_CC = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
       8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
       2.15311535474403846e-8)
_CD = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
       3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_CP = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
       6.58749161529837803e-4, 1.63153871373020978e-2)
_CQ = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
       2.33520497626869185e-3)
_SQRPI = 5.6418958354775628695e-1


def _calerf(x):
    """(erf(x), erfc(x)) in float64, elementwise; each range computed on its own elements only."""
    x = np.asarray(x, np.float64)
    shape = x.shape
    x = x.reshape(-1)
    y = np.abs(x)
    erf = np.empty_like(x)
    erfc = np.empty_like(x)
    with np.errstate(all="ignore"):
        small = y <= 0.46875
        if small.any():  # erf by a rational function of x^2
            xs = x[small]
            ysq = np.where(y[small] > 1.11e-16, xs * xs, 0.0)
            num = _CA[4] * ysq
            den = ysq
            for i in range(3):
                num = (num + _CA[i]) * ysq
                den = (den + _CB[i]) * ysq
            e = xs * (num + _CA[3]) / (den + _CB[3])
            erf[small] = e
            erfc[small] = 1.0 - e
        large = ~small & ~np.isnan(x)
        if large.any():  # erfc(|x|) = exp(-x^2) * R(|x|)
            ya = y[large]
            r = np.zeros_like(ya)
            mid = ya <= 4.0
            if mid.any():
                ym = ya[mid]
                num = _CC[8] * ym
                den = ym
                for i in range(7):
                    num = (num + _CC[i]) * ym
                    den = (den + _CD[i]) * ym
                r[mid] = (num + _CC[7]) / (den + _CD[7])
            far = ~mid & (ya < 26.543)
            if far.any():  # the asymptotic form in 1/x^2
                yf = ya[far]
                inv = 1.0 / (yf * yf)
                num = _CP[5] * inv
                den = inv
                for i in range(4):
                    num = (num + _CP[i]) * inv
                    den = (den + _CQ[i]) * inv
                r[far] = (_SQRPI - inv * (num + _CP[4]) / (den + _CQ[4])) / yf
            y16 = np.trunc(ya * 16.0) / 16.0
            delta = (ya - y16) * (ya + y16)
            ec = np.exp(-y16 * y16) * np.exp(-delta) * r
            ec[~mid & ~far] = 0.0  # |x| >= 26.543: erfc underflows (and inf - inf must not make a nan)
            neg = x[large] < 0
            e = (0.5 - ec) + 0.5
            erf[large] = np.where(neg, -e, e)
            erfc[large] = np.where(neg, 2.0 - ec, ec)
        nan = np.isnan(x)
        erf[nan] = np.nan
        erfc[nan] = np.nan
    return erf.reshape(shape), erfc.reshape(shape)


def erf_np(a):
    return _calerf(a)[0].astype(a.dtype, copy=False)


def _erfc_np(a):
    return _calerf(a)[1].astype(a.dtype, copy=False)


_GILES_SMALL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                -0.00417768164, 0.246640727, 1.50140941)
_GILES_LARGE = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                0.00943887047, 1.00167406, 2.83297682)


def _erfinv_np(a):
    """M. Giles' approximation, then Newton steps on the double-precision erf."""
    y = np.asarray(a, np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        ws = w - 2.5
        wl = np.sqrt(w) - 3.0
        ps = np.full_like(y, _GILES_SMALL[0])
        pl = np.full_like(y, _GILES_LARGE[0])
        for cs, cl in zip(_GILES_SMALL[1:], _GILES_LARGE[1:]):
            ps = cs + ps * ws
            pl = cl + pl * wl
        x = np.where(w < 5.0, ps, pl) * y
        for _ in range(3):
            d = (2.0 / SQRT_PI) * np.exp(-x * x)
            step = (_calerf(x)[0] - y) / d
            x = np.where((d > 0) & np.isfinite(step), x - step, x)
        x = np.where(y == 1.0, np.inf, np.where(y == -1.0, -np.inf, x))
        x = np.where(np.isnan(y) | (np.abs(y) > 1.0), np.nan, x)
    return np.asarray(x).astype(a.dtype, copy=False)


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
        return x * x.dtype.type(math.pi / 180.0)

    def backward(self, g):
        return (EC.mul_scalar(g, math.pi / 180.0),)


class Rad2DegBackward0(Function):
    __slots__ = ()
    explain = "180 / pi"

    @staticmethod
    def forward(x):
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
    op("deg2rad", deg2rad, Deg2RadBackward0, sample=sample1(), **TIP,
       cases={"deg2rad": case(lambda torch, x0: torch.deg2rad(x0), V.A)}),
    op("rad2deg", rad2deg, Rad2DegBackward0, sample=sample1(), **TIP,
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
