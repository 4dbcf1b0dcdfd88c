"""Elementwise extras: log1p/expm1/exp2, erf family, inverse and hyperbolic trig, atan2, hypot,
lerp, logaddexp, xlogy, fmod, copysign, nan_to_num, logit, and the activation functions
(softplus, gelu, silu, mish, elu/selu/celu, leaky_relu, hardtanh/relu6, hardsigmoid, hardswish,
logsigmoid, softsign, tanhshrink, threshold, soft/hardshrink, glu).

One Function subclass per PyTorch node (forward on arrays, backward with Tensor ops, so the
gradient differentiates again). The activations are plain functions with torch.nn.functional's
signatures, so `torch.nn.functional` can import them from here.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import dtypes, errors, numerics
from ...backend import vml
from ..device import CPU, to_device, xp_of
from ..device import device as _device
from ..autograd import NotImplementedNode, make_node
from ..function import Function, record
from ..tensor import Tensor, wrap_dim, wrap
from . import elementwise as E
from .elementwise import coerce, needs_input_grad, shaped, binary, sgn, unary, where
from .shape import sum_to
from ..device import asarray as _asarray
from . import backward_ops as B
from .backward_ops import GELU_BETA, GELU_KAPPA
from .registry import Sample, V, case, op, sample1, sample2, tables

_SQRT_PI = math.sqrt(math.pi)
_LN2 = math.log(2.0)
_SQRT1_2 = math.sqrt(0.5)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# ---------------------------------------------------------------------------- helpers

def _c10(dt):
    return E.c10_name(dt)


def not_implemented(kernel, dt):
    err = NotImplementedError(f'"{kernel}" not implemented for \'{_c10(dt)}\'')
    err.gradcli_hint = "float_dtype"
    return err


def _need_float(x, kernel):
    if not x.dtype.is_floating_point:
        raise not_implemented(kernel, x.dtype)


def _host(fn):
    """Run a NumPy-only kernel (math.erf, ...) on any device's array."""
    def run(a):
        if xp_of(a) is np:
            return fn(a)
        return to_device(fn(to_device(a, CPU)), _device("cuda", 0))
    return run


def _out(arr, dt):
    return wrap(_asarray(arr).astype(dt.np, copy=False), dt)


def _tensors(*xs):
    return tuple(x for x in xs if isinstance(x, Tensor))


_WARNED = set()


def warn_once(message, category=UserWarning, stacklevel=3):
    """torch's TORCH_WARN_ONCE: a warning given the first time only, per process (reset_warn_once for a
    fresh start, as a new Python process with torch would have)."""
    if message in _WARNED:
        return
    _WARNED.add(message)
    warnings.warn(message, category, stacklevel=stacklevel)


def reset_warn_once():
    _WARNED.clear()


def _twin(t):
    """A copy of t that takes t's place in the graph: what an in-place op's node saves as `self`
    (torch saves the original value; t itself is about to be overwritten)."""
    c = wrap(t._data.copy(), t.dtype)
    c.grad_fn = t.grad_fn
    c._output_nr = t._output_nr
    c._rg = t._rg
    return c


def inplace_method(fn, name, inplace_node=None):
    """x.name_(...): fn computed on the original value, written back into x (version bumped, x
    takes the new node). inplace_node: a node class replacing fn's node (AcoshBackward1...)."""
    from .indexing import check_inplace  # noqa: PLC0415
    from .inplace import OVERLAP_WRITES, rebase  # noqa: PLC0415
    overlap_ok = name in OVERLAP_WRITES

    def method(self, *args, **kwargs):
        check_inplace(self)
        r = fn(_twin(self) if self._rg else self, *args, **kwargs)
        if inplace_node is not None and r.grad_fn is not None:
            old = r.grad_fn
            node = make_node(inplace_node, (self,), r.dtype, old._saved, old._kw)
            node.next_functions = old.next_functions
            r.grad_fn = node
        return rebase(self, r, overlap_ok=overlap_ok)
    method.__name__ = name
    return method


class _InplaceNotImplemented(Function):
    __slots__ = ()
    _op = ""

    def backward(self, g):
        raise NotImplementedError(f"the derivative for 'inplace version of {self._op}' is not implemented.")


class AcoshBackward1(_InplaceNotImplemented):
    __slots__ = ()
    explain = "none: torch has no derivative for acosh_ in place"
    replay = staticmethod(lambda xs, kw, outs: [np.arccosh(xs[0])])
    _op = "acosh"


class AsinhBackward1(_InplaceNotImplemented):
    __slots__ = ()
    explain = "none: torch has no derivative for asinh_ in place"
    replay = staticmethod(lambda xs, kw, outs: [np.arcsinh(xs[0])])
    _op = "asinh"


class AtanhBackward1(_InplaceNotImplemented):
    __slots__ = ()
    explain = "none: torch has no derivative for atanh_ in place"
    replay = staticmethod(lambda xs, kw, outs: [np.arctanh(xs[0])])
    _op = "atanh"


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


def _erf_np(a):
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
            d = (2.0 / _SQRT_PI) * np.exp(-x * x)
            step = (_calerf(x)[0] - y) / d
            x = np.where((d > 0) & np.isfinite(step), x - step, x)
        x = np.where(y == 1.0, np.inf, np.where(y == -1.0, -np.inf, x))
        x = np.where(np.isnan(y) | (np.abs(y) > 1.0), np.nan, x)
    return np.asarray(x).astype(a.dtype, copy=False)


class ErfBackward0(Function):
    __slots__ = ()
    explain = "2 / sqrt(pi) * exp(-{pa}**2)"
    save_inputs = True
    forward = staticmethod(vml("erf", _host(_erf_np)))

    def backward(self, g):
        (x,) = self.saved
        return (E.mul_scalar(E.exp(-(x ** 2)), 2.0 / _SQRT_PI) * g,)


class ErfcBackward0(Function):
    __slots__ = ()
    explain = "-2 / sqrt(pi) * exp(-{pa}**2)"
    save_inputs = True
    forward = staticmethod(vml("erfc", _host(_erfc_np)))

    def backward(self, g):
        (x,) = self.saved
        return (E.mul_scalar(E.exp(-(x ** 2)), -2.0 / _SQRT_PI) * g,)


class ErfinvBackward0(Function):
    __slots__ = ()
    explain = "sqrt(pi) / 2 * exp(erfinv({a})**2)"
    save_inputs = True
    forward = staticmethod(vml("erfinv", _host(_erfinv_np)))

    def backward(self, g):
        (x,) = self.saved
        return (E.mul_scalar(E.exp(erfinv(x) ** 2), 0.5 * _SQRT_PI) * g,)


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
        return (g * E.add_scalar(result, 1),)


class Exp2Backward0(Function):
    __slots__ = ()
    explain = "2**{pa} * ln 2"
    save_output = True
    forward = staticmethod(numerics.ufunc(np.exp2))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (E.mul_scalar(g * result, _LN2),)


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
        return (g * E.rsqrt(-x * x + 1),)


class AcosBackward0(Function):
    __slots__ = ()
    explain = "-1 / sqrt(1 - {pa}**2)"
    save_inputs = True
    forward = staticmethod(vml("acos", numerics.ufunc(np.arccos)))

    def backward(self, g):
        (x,) = self.saved
        return (g * -E.rsqrt(-x * x + 1),)


class AtanBackward0(Function):
    __slots__ = ()
    explain = "1 / (1 + {pa}**2)"
    save_inputs = True
    forward = staticmethod(vml("atan", numerics.ufunc(np.arctan)))

    def backward(self, g):
        (x,) = self.saved
        return (g / E.add_scalar(x * x, 1),)


class SinhBackward0(Function):
    __slots__ = ()
    explain = "cosh({a})"
    save_inputs = True
    forward = staticmethod(numerics.ufunc(np.sinh))

    def backward(self, g):
        (x,) = self.saved
        return (g * cosh(x),)


class CoshBackward0(Function):
    __slots__ = ()
    explain = "sinh({a})"
    save_inputs = True
    forward = staticmethod(numerics.ufunc(np.cosh))

    def backward(self, g):
        (x,) = self.saved
        return (g * sinh(x),)


class AsinhBackward0(Function):
    __slots__ = ()
    explain = "1 / sqrt({pa}**2 + 1)"
    save_inputs = True
    forward = staticmethod(numerics.ufunc(np.arcsinh))

    def backward(self, g):
        (x,) = self.saved
        return (g * E.rsqrt(E.add_scalar(x ** 2, 1)),)


class AcoshBackward0(Function):
    __slots__ = ()
    explain = "1 / sqrt({pa}**2 - 1)"
    save_inputs = True
    forward = staticmethod(numerics.ufunc(np.arccosh))

    def backward(self, g):
        (x,) = self.saved
        return (g * E.rsqrt(x ** 2 - 1),)


class AtanhBackward0(Function):
    __slots__ = ()
    explain = "1 / (1 - {pa}**2)"
    save_inputs = True
    forward = staticmethod(numerics.ufunc(np.arctanh))

    def backward(self, g):
        (x,) = self.saved
        return (E.mul_scalar(g, 1) / (1 - x ** 2),)


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
        sin = E.sin(x_pi)
        out = g * (((x_pi * E.cos(x_pi)) - sin) / x2_pi)
        return (where(x2_pi == 0.0, 0.0, out),)


class Deg2RadBackward0(Function):
    __slots__ = ()
    explain = "pi / 180"

    @staticmethod
    def forward(x):
        return x * x.dtype.type(math.pi / 180.0)

    def backward(self, g):
        return (E.mul_scalar(g, math.pi / 180.0),)


class Rad2DegBackward0(Function):
    __slots__ = ()
    explain = "180 / pi"

    @staticmethod
    def forward(x):
        return x * x.dtype.type(180.0 / math.pi)

    def backward(self, g):
        return (E.mul_scalar(g, 180.0 / math.pi),)


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
        return (E.zero_grad(g),)


def frac(input):
    _need_float(input, "frac_cpu")
    return unary(FracBackward0, input)


def round(input, *, decimals=0):
    if decimals == 0:
        return E.round(input)
    _need_float(input, "round_cpu")
    return unary(RoundBackward1, input, kw={"decimals": int(decimals)})


def fix(input):
    return E.trunc(input)


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


# ---------------------------------------------------------------------------- binary

class Atan2Backward0(Function):
    __slots__ = ()
    explain = ("{b} / ({pa}**2 + {pb}**2)", "-{pa} / ({pa}**2 + {pb}**2)")
    save_inputs = True
    forward = staticmethod(np.arctan2)

    def backward(self, g):
        a, b = self.saved
        recip = E.reciprocal(a * a + b * b)
        from .indexing import masked_fill  # noqa: PLC0415 - indexing is imported after this module
        recip = masked_fill(recip, E.isinf(recip), 0)  # torch masks the origin: gradients 0 (and -0.) there, not NaN
        ga = g * b * recip if needs_input_grad(self, 0) else None
        gb = g * -a * recip if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


def atan2(input, other):
    if not isinstance(other, Tensor):
        raise errors.type_error(f"atan2(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return binary(Atan2Backward0, input, other, compute_dtype=E.float_division)


arctan2 = atan2


class HypotBackward0(Function):
    __slots__ = ()
    explain = ("{pa} / hypot({a}, {b})", "{pb} / hypot({a}, {b})")
    save_inputs = True
    save_output = True
    forward = staticmethod(np.hypot)

    def backward(self, g):
        a, b, result = self.saved
        ga = g * a / result if needs_input_grad(self, 0) else None
        gb = g * b / result if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


def _binary_float_only(cls, input, other, kernel):
    other = coerce(other)
    dt = dtypes.result_type((input, other))
    if not dt.is_floating_point:
        raise not_implemented(kernel, dt)
    return binary(cls, input, other)


def hypot(input, other):
    if not isinstance(other, Tensor):
        raise errors.type_error(f"hypot(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _binary_float_only(HypotBackward0, input, other, "hypot_cpu")


class LogaddexpBackward0(Function):
    __slots__ = ()
    explain = ("1 / (1 + exp({pb} - {pa}))", "1 / (1 + exp({pa} - {pb}))")
    save_inputs = True
    forward = staticmethod(np.logaddexp)

    def backward(self, g):
        a, b = self.saved
        ga = g / E.add_scalar(E.exp(b - a), 1) if needs_input_grad(self, 0) else None
        gb = g / E.add_scalar(E.exp(a - b), 1) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


class Logaddexp2Backward0(Function):
    __slots__ = ()
    explain = ("1 / (1 + 2**({pb} - {pa}))", "1 / (1 + 2**({pa} - {pb}))")
    save_inputs = True
    forward = staticmethod(np.logaddexp2)

    def backward(self, g):
        a, b = self.saved
        ga = g / (1 + E.pow(2, b - a)) if needs_input_grad(self, 0) else None
        gb = g / (1 + E.pow(2, a - b)) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


def logaddexp(input, other):
    if not isinstance(other, Tensor):
        raise errors.type_error(f"logaddexp(): argument 'other' (position 2) must be Tensor, not "
                                f"{type(other).__name__}")
    return _binary_float_only(LogaddexpBackward0, input, other, "logaddexp_cpu")


def logaddexp2(input, other):
    if not isinstance(other, Tensor):
        raise errors.type_error(f"logaddexp2(): argument 'other' (position 2) must be Tensor, not "
                                f"{type(other).__name__}")
    return _binary_float_only(Logaddexp2Backward0, input, other, "logaddexp2_cpu")


def _xlogy_np(x, y):
    with np.errstate(all="ignore"):
        r = x * np.log(y)
    r = np.where(np.equal(x, 0), np.where(np.isnan(y), np.nan, 0.0)[()], r)  # [()]: a number stays a number
    return _asarray(r)


def _xlogy_grad(g, other):
    """at::xlogy(grad, other): g * log(other), 0 where g == 0 (differentiable in g and other)."""
    return where(g == 0, 0.0, g * E.log(other))


class _XlogBackward0(Function):
    """xlogy (shift 0) and xlog1py (shift 1) of two tensors. torch: self: at::xlogy(grad, other)
    .masked_fill((self == 0.) & (other <= 0.), 0.) (xlog1py: other <= -1.); other: grad * self / other
    (xlog1py: other + 1)."""
    __slots__ = ()
    save_inputs = True
    shift = 0

    def backward(self, g):
        x, y = self.saved
        gx = gy = None
        if needs_input_grad(self, 0):
            from .indexing import masked_fill  # noqa: PLC0415 - indexing is imported after this module
            gx = masked_fill(self.op(g, y), (x == 0.0) & (y <= -self.shift), 0)
        if needs_input_grad(self, 1):
            gy = g * x / (y + self.shift if self.shift else y)
        return shaped(gx, x), shaped(gy, y)


class _XlogBackward1(Function):
    """xlogy and xlog1py of (number, tensor): grad * self / other (xlog1py: other + 1)."""
    __slots__ = ()
    save_inputs = True
    shift = 0

    def backward(self, g):
        (y,) = self.saved
        return (g * self._kw["self"] / (y + self.shift if self.shift else y),)


class XlogyBackward0(_XlogBackward0):
    __slots__ = ()
    explain = ("log({b})", "{pa} / {pb}")
    forward = staticmethod(_xlogy_np)
    op = staticmethod(lambda g, y: xlogy(g, y))


class XlogyBackward1(_XlogBackward1):
    """xlogy(number, tensor)."""
    __slots__ = ()
    explain = "{kw[self]} / {pa}"
    replay = staticmethod(lambda xs, kw, outs: [_xlogy_np(kw["self"], xs[0])])


class XlogyBackward2(Function):
    """xlogy(tensor, number)."""
    __slots__ = ()
    explain = "log({kw[other]}) (0 where {a} == 0)"
    replay = staticmethod(lambda xs, kw, outs: [_xlogy_np(xs[0], kw["other"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        other = self._kw["other"]
        gx = _xlogy_grad(g, _full_like(x, other))
        if not other > 0.0:
            gx = where(x == 0.0, 0.0, gx)
        return (gx,)


def _full_like(t, value):
    return wrap(xp_of(t._data).full(t._data.shape, value, t._data.dtype), t.dtype)


def xlogy(input, other):
    other = coerce(other)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise errors.type_error("xlogy() received an invalid combination of arguments")
    return _xlog(input, other, _xlogy_np, (XlogyBackward0, XlogyBackward1, XlogyBackward2))


def _xlog(input, other, kernel, nodes):
    """xlogy and xlog1py: kernel(input, other) in the float dtype of the two; nodes: the node of
    (tensor, tensor), (number, tensor) and (tensor, number)."""
    dt = E.float_division(dtypes.result_type((input, other)))
    x, y = E.binary_operands(input, other, dt)
    if dt is dtypes.float16:  # torch's Half kernel: a number made Half too, each step rounded to Half
        x, y = np.asarray(x, np.float16), np.asarray(y, np.float16)
    try:
        r = kernel(x, y)
    except ValueError:
        raise E.broadcast_error(input, other) from None
    out = _out(r, dt)
    if not isinstance(input, Tensor):
        return record(nodes[1], (other,), out, {"self": input})
    if not isinstance(other, Tensor):
        return record(nodes[2], (input,), out, {"other": other})
    return record(nodes[0], (input, other), out)


def _xlog1py_np(x, y):
    with np.errstate(all="ignore"):
        r = x * numerics.ufunc(np.log1p)(y)
    r = np.where(np.equal(x, 0), np.where(np.isnan(y), np.nan, 0.0)[()], r)  # [()]: a number stays a number
    return _asarray(r)


class SpecialXlog1PyBackward0(_XlogBackward0):
    __slots__ = ()
    explain = ("log1p({b})", "{pa} / ({b} + 1)")
    forward = staticmethod(_xlog1py_np)
    op = staticmethod(lambda g, y: xlog1py(g, y))
    shift = 1


class SpecialXlog1PyBackward1(_XlogBackward1):
    """xlog1py(number, tensor)."""
    __slots__ = ()
    explain = "{kw[self]} / ({a} + 1)"
    replay = staticmethod(lambda xs, kw, outs: [_xlog1py_np(kw["self"], xs[0])])
    shift = 1


class SpecialXlog1PyBackward2(Function):
    """xlog1py(tensor, number)."""
    __slots__ = ()
    explain = "log1p({kw[other]}) (0 where {a} == 0 and the number <= -1)"
    replay = staticmethod(lambda xs, kw, outs: [_xlog1py_np(xs[0], kw["other"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        other = self._kw["other"]
        gx = xlog1py(g, other)  # torch: other > -1 ? xlog1py(grad, other) : ... .masked_fill(self == 0., 0.)
        if not other > -1.0:
            gx = where(x == 0.0, 0.0, gx)
        return (gx,)


def xlog1py(input, other):
    """torch.special.xlog1py: input * log1p(other), 0 where input is 0 (NaN where other is NaN)."""
    if isinstance(other, (Tensor, int, float)):
        other = coerce(other)
    if not (isinstance(input, Tensor) and isinstance(other, (Tensor, int, float))
            or isinstance(other, Tensor) and isinstance(input, (int, float))):
        from ..argcheck import typename  # noqa: PLC0415
        raise errors.type_error(
            f"special_xlog1py() received an invalid combination of arguments - got ({typename(input)}, "
            f"{typename(other)}), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n")
    return _xlog(input, other, _xlog1py_np, (SpecialXlog1PyBackward0, SpecialXlog1PyBackward1,
                                             SpecialXlog1PyBackward2))


class FmodBackward0(Function):
    """fmod(tensor, number)."""
    __slots__ = ()
    explain = "1"
    replay = staticmethod(lambda xs, kw, outs: [np.fmod(xs[0], kw["other"])])

    def backward(self, g):
        return (g,)


class FmodBackward1(Function):
    __slots__ = ()
    explain = ("1", "-trunc({pa} / {pb})")
    replay = staticmethod(lambda xs, kw, outs: [np.fmod(xs[0], xs[1])])
    save_inputs = True

    def backward(self, g):
        a, b = self.saved
        gb = -g * E.div(a, b, rounding_mode="trunc") if needs_input_grad(self, 1) else None
        return sum_to(g, a.shape), shaped(gb, b)


def _fmod_np(a, b):
    return np.fmod(a, b)


def fmod(input, other):
    other = coerce(other)
    dt = dtypes.result_type((input, other))
    x, y = E.binary_operands(input, other, dt)
    if not dt.is_floating_point and np.any(np.equal(y, 0)):
        raise errors.runtime("ZeroDivisionError")
    try:
        r = _fmod_np(x, y)
    except ValueError:
        raise E.broadcast_error(input, other) from None
    out = _out(r, dt)
    if not isinstance(other, Tensor):
        return record(FmodBackward0, (input,), out, {"other": other})
    return record(FmodBackward1, (input, other), out)


class CopysignBackward0(Function):
    __slots__ = ()
    explain = ("sign({a}) * sign({b}) (0 where {a} == 0)", "0")
    replay = staticmethod(lambda xs, kw, outs: [np.copysign(xs[0], xs[1])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        a, b, result = self.saved
        ga = _copysign_grad(g, a, result) if needs_input_grad(self, 0) else None
        gb = E.mul(b, 0.0) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


class CopysignBackward1(Function):
    __slots__ = ()
    explain = "sign({a}) * sign({kw[other]}) (0 where {a} == 0)"
    replay = staticmethod(lambda xs, kw, outs: [np.copysign(xs[0], kw["other"])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        a, result = self.saved
        return (_copysign_grad(g, a, result),)


def _copysign_grad(g, a, result):
    ratio = where(a == 0, 0.0, result / a)
    return g * ratio


def copysign(input, other):
    other = coerce(other)
    dt = E.float_division(dtypes.result_type((input, other)))
    x, y = E.binary_operands(input, other, dt)
    try:
        r = np.copysign(x, y)
    except ValueError:
        raise E.broadcast_error(input, other) from None
    out = _out(r, dt)
    if not isinstance(other, Tensor):
        return record(CopysignBackward1, (input,), out, {"other": other})
    return record(CopysignBackward0, (input, other), out)


class FmaxBackward0(Function):
    __slots__ = ()
    explain = ("1 where {a} >= {b} or {b} is NaN, else 0", "1 where {a} < {b} or {a} is NaN, else 0")
    save_inputs = True
    forward = staticmethod(np.fmax)

    def backward(self, g):
        a, b = self.saved
        keep_a = (a >= b) | E.isnan(b)
        ga = where(keep_a, g, 0.0) if needs_input_grad(self, 0) else None
        gb = where(keep_a, 0.0, g) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


class FminBackward0(Function):
    __slots__ = ()
    explain = ("1 where {a} <= {b} or {b} is NaN, else 0", "1 where {a} > {b} or {a} is NaN, else 0")
    save_inputs = True
    forward = staticmethod(np.fmin)

    def backward(self, g):
        a, b = self.saved
        keep_a = (a <= b) | E.isnan(b)
        ga = where(keep_a, g, 0.0) if needs_input_grad(self, 0) else None
        gb = where(keep_a, 0.0, g) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


def fmax(input, other):
    return binary(FmaxBackward0, input, other)


def fmin(input, other):
    return binary(FminBackward0, input, other)


def float_power(input, exponent):
    if isinstance(input, Tensor):
        input = input.to(dtypes.float64)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(dtypes.float64)
    return E.pow(input, exponent)


# ---------------------------------------------------------------------------- lerp, addcmul, addcdiv

class LerpBackward0(Function):
    """lerp(start, end, number)."""
    __slots__ = ()
    explain = ("1 - {kw[weight]}", "{kw[weight]}")
    replay = staticmethod(lambda xs, kw, outs: [xs[0] + kw["weight"] * (xs[1] - xs[0])])

    def backward(self, g):
        w = self._kw["weight"]
        s_shape, e_shape = self._kw["shapes"]
        gs = sum_to(E.mul_scalar(g, 1 - w), s_shape) if needs_input_grad(self, 0) else None  # torch: grad * (1 - weight)
        ge = sum_to(E.mul_scalar(g, w), e_shape) if needs_input_grad(self, 1) else None
        return gs, ge


class LerpBackward1(Function):
    """lerp(start, end, weight tensor)."""
    __slots__ = ()
    explain = ("1 - {pc}", "{c}", "{pb} - {pa}")
    replay = staticmethod(lambda xs, kw, outs: [xs[0] + xs[2] * (xs[1] - xs[0])])
    save_inputs = True

    def backward(self, g):
        s, e, w = self.saved
        gs = shaped(g * (1 - w), s) if needs_input_grad(self, 0) else None
        ge = shaped(g * w, e) if needs_input_grad(self, 1) else None
        gw = shaped(g * (e - s), w) if needs_input_grad(self, 2) else None
        return gs, ge, gw


def lerp(input, end, weight):
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype is not input.dtype:
            raise errors.runtime(f"expected dtype {_low(input.dtype)} for `{name}` but got dtype {_low(t.dtype)}")
    if not input.dtype.is_floating_point:
        raise not_implemented("lerp_kernel_scalar" if not isinstance(weight, Tensor) else "lerp_kernel_tensor",
                              input.dtype)
    dt = input.dtype
    s, e = input._data, end._data
    try:
        if isinstance(weight, Tensor):
            w = weight._data
            r = np.where(np.abs(w) < 0.5, s + w * (e - s), e - (e - s) * (1 - w))
        else:
            w = weight
            r = s + w * (e - s) if abs(w) < 0.5 else e - (e - s) * (1 - w)
    except ValueError:
        raise E.broadcast_error(input, end) from None
    out = _out(r, dt)
    if isinstance(weight, Tensor):
        return record(LerpBackward1, (input, end, weight), out)
    return record(LerpBackward0, (input, end), out, {"weight": weight, "shapes": (input._data.shape, e.shape)})


def _low(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}[dt.name]


class AddcmulBackward0(Function):
    __slots__ = ()
    explain = ("1", "{kw[value]} * {pc}", "{kw[value]} * {pb}")
    replay = staticmethod(lambda xs, kw, outs: [xs[0] + kw.get("value", 1) * xs[1] * xs[2]])
    save_inputs = True

    def backward(self, g):
        x, t1, t2 = self.saved
        v = self._kw["value"]
        gx = shaped(g, x) if needs_input_grad(self, 0) else None
        g1 = shaped(g * t2 * v, t1) if needs_input_grad(self, 1) else None
        g2 = shaped(g * t1 * v, t2) if needs_input_grad(self, 2) else None
        return gx, g1, g2


class AddcdivBackward0(Function):
    __slots__ = ()
    explain = ("1", "{kw[value]} / {pc}", "-{kw[value]} * {pb} / {pc}**2")
    replay = staticmethod(lambda xs, kw, outs: [xs[0] + kw.get("value", 1) * xs[1] / xs[2]])
    save_inputs = True

    def backward(self, g):
        x, t1, t2 = self.saved
        v = self._kw["value"]
        gx = shaped(g, x) if needs_input_grad(self, 0) else None
        # torch: grad * (value / tensor2), -grad * (value * tensor1 / (tensor2 * tensor2))
        g1 = shaped(g * (v / t2), t1) if needs_input_grad(self, 1) else None
        g2 = shaped(-g * (v * t1 / (t2 * t2)), t2) if needs_input_grad(self, 2) else None
        return gx, g1, g2


def _ternary(input, t1, t2, fn):
    dt = dtypes.result_type((input, t1, t2))
    arrays = [t._data.astype(dt.np, copy=False) for t in (input, t1, t2)]
    try:
        r = fn(*arrays)
        np.broadcast_shapes(r.shape, input._data.shape)
    except ValueError:
        raise E.broadcast_error(t1, t2) from None
    return _out(r, dt), dt


def addcmul(input, tensor1, tensor2, *, value=1):
    if input.dtype is dtypes.bool_:
        raise not_implemented("addcmul_cpu_out", input.dtype)
    out, _ = _ternary(input, tensor1, tensor2, lambda a, b, c: a + value * b * c)
    return record(AddcmulBackward0, (input, tensor1, tensor2), out, {"value": value})


def addcdiv(input, tensor1, tensor2, *, value=1):
    if not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
        raise errors.runtime(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    out, _ = _ternary(input, tensor1, tensor2, lambda a, b, c: a + value * (b / c))
    return record(AddcdivBackward0, (input, tensor1, tensor2), out, {"value": value})


# ---------------------------------------------------------------------------- nan_to_num, logit

class NanToNumBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} is finite, else 0"
    replay = staticmethod(lambda xs, kw, outs: [np.nan_to_num(xs[0])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (g * E.isfinite(x),)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    data = input._data
    if not input.dtype.is_floating_point:
        return wrap(data.copy(), input.dtype)
    info = np.finfo(data.dtype)
    r = np.where(np.isnan(data), nan, data)
    r = np.where(np.isposinf(data), info.max if posinf is None else posinf, r)
    r = np.where(np.isneginf(data), info.min if neginf is None else neginf, r)
    return record(NanToNumBackward0, (input,), _out(r, input.dtype))


class LogitBackward0(Function):
    __slots__ = ()
    explain = "1 / ({pa} * (1 - {pa}))"
    replay = staticmethod(lambda xs, kw, outs: [np.log(xs[0] / (1 - xs[0]))])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        eps = self._kw["eps"] if self._kw else None
        grad = g / (x * (1 - x))
        if eps is None:
            return (where((x < 0.0) | (x > 1.0), math.nan, grad),)
        return (where((x < eps) | (x > 1.0 - eps), 0.0, grad),)


def logit(input, eps=None):
    dt = input.dtype if input.dtype.is_floating_point else dtypes.defaults.float
    z = input._data.astype(dt.np, copy=False)
    if eps is not None:
        z = np.clip(z, eps, 1.0 - eps)
    r = np.log(z / (1 - z))
    return record(LogitBackward0, (input,), _out(r, dt), {"eps": eps} if eps is not None else None)


# ---------------------------------------------------------------------------- activations

class SoftplusBackward0(Function):
    __slots__ = ()
    explain = "sigmoid({a})"
    replay = staticmethod(lambda xs, kw, outs: [_softplus_np(xs[0], kw["beta"], kw["threshold"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.softplus_backward(g, x, self._kw["beta"], self._kw["threshold"]),)


def _softplus_np(x, beta, threshold):
    xb = x * beta
    with np.errstate(all="ignore"):
        soft = numerics.ufunc(np.log1p)(numerics.exp(xb)) / beta
    return np.where(xb > threshold, x, soft)


def softplus(input, beta=1.0, threshold=20.0):
    _need_float(input, "softplus_cpu")
    r = _softplus_np(input._data, beta, threshold)
    return record(SoftplusBackward0, (input,), _out(r, input.dtype), {"beta": beta, "threshold": threshold})


class GeluBackward0(Function):
    __slots__ = ()
    explain = "gelu'({a})"
    replay = staticmethod(lambda xs, kw, outs: [_gelu_np(xs[0], kw["approximate"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.gelu_backward(g, x, self._kw["approximate"]),)


def _gelu_np(x, approximate):
    if approximate == "tanh":
        x_cube = x * x * x
        return 0.5 * x * (1 + np.tanh(GELU_BETA * (x + GELU_KAPPA * x_cube)))
    return x * 0.5 * (1 + _host(_erf_np)(x * _SQRT1_2))


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise errors.runtime("approximate argument must be either none or tanh.")
    _need_float(input, "GeluKernelImpl")
    r = _gelu_np(input._data, approximate)
    return record(GeluBackward0, (input,), _out(r, input.dtype), {"approximate": approximate})


class SiluBackward0(Function):
    __slots__ = ()
    explain = "silu'({a})"
    replay = staticmethod(lambda xs, kw, outs: [xs[0] / (1 + np.exp(-xs[0]))])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        s = E.sigmoid(x)
        return (g * s * E.add_scalar(x * (1 - s), 1),)  # torch: grad * sigmoid * (1.0 + input * (1.0 - sigmoid))


def silu(input, inplace=False):
    return _maybe_inplace(_silu, input, inplace)


def _silu(input):
    _need_float(input, "silu_cpu")
    x = input._data
    r = numerics.silu(x)
    return record(SiluBackward0, (input,), _out(r, input.dtype))


class MishBackward0(Function):
    __slots__ = ()
    explain = "mish'({a})"
    replay = staticmethod(lambda xs, kw, outs: [xs[0] * np.tanh(_softplus_np(xs[0], 1.0, 20.0))])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        s = E.sigmoid(x)
        tsp = E.tanh(softplus(x))
        return (g * (tsp + x * s * (1 - tsp * tsp)),)


def mish(input, inplace=False):
    return _maybe_inplace(_mish, input, inplace)


def _mish(input):
    _need_float(input, "mish_cpu")
    x = input._data
    r = x * np.tanh(_softplus_np(x, 1.0, 20.0))
    return record(MishBackward0, (input,), _out(r, input.dtype))


class _BackwardNotDifferentiable(NotImplementedNode):
    """The node of a gradient torch cannot differentiate again (its backward kernel has no formula)."""
    __slots__ = ()

    def backward(self, grad):
        raise errors.runtime(f"derivative for {self._opname} is not implemented")


def _no_double_backward(opname, inputs, compute):
    """compute() without a graph; under create_graph the result gets a node that refuses to go on."""
    from ..autograd import grad_mode  # noqa: PLC0415
    if not grad_mode.enabled or not any(t._rg for t in inputs):
        return compute()
    grad_mode.enabled = False
    try:
        r = compute()
    finally:
        grad_mode.enabled = True
    node = make_node(_BackwardNotDifferentiable, inputs, r.dtype)
    node._opname = opname
    r._rg = True
    r.grad_fn = node
    return r


def _maybe_inplace(fn, input, inplace, *args):
    """fn(input, *args), or its in-place form (same node, saving the original value)."""
    if inplace:
        return inplace_method(fn, fn.__name__ + "_")(input, *args)
    return fn(input, *args)


def _inplace_node(input, compute, cls, kw):
    """An activation applied in place: the node (cls, e.g. EluBackward1) reads the result."""
    from .indexing import check_inplace  # noqa: PLC0415
    check_inplace(input)
    r = compute(input._data)
    input._data[...] = r
    input._version[0] += 1
    out = wrap(input._data, input.dtype)
    out._version = input._version
    record(cls, (input,), out, kw)
    if out.grad_fn is not None:
        input.grad_fn = out.grad_fn
        input._output_nr = 0
        input._rg = True
        # the node reads the result: the tensor itself, at its new version
        from ..autograd import SavedValue  # noqa: PLC0415
        input.grad_fn._saved = (SavedValue(input, True),)
    return input


class EluBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} > 0, else elu({a}) + alpha"
    replay = staticmethod(lambda xs, kw, outs: [_elu_np(xs[0], kw["alpha"], kw["scale"], kw["input_scale"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        k = self._kw
        return (B.elu_backward(g, k["alpha"], k["scale"], k["input_scale"], False, x),)


class EluBackward1(Function):
    """elu in place: the formula reads the result."""
    __slots__ = ()
    explain = "1 where {a} > 0, else elu({a}) + alpha"
    replay = staticmethod(lambda xs, kw, outs: [_elu_np(xs[0], kw["alpha"], kw["scale"], kw["input_scale"])])
    save_output = True

    def backward(self, g):
        (result,) = self.saved[-1:]
        k = self._kw
        return (B.elu_backward(g, k["alpha"], k["scale"], k["input_scale"], True, result),)


class CeluBackward0(EluBackward0):
    __slots__ = ()
    explain = "1 where {a} > 0, else exp({pa} / alpha)"


class CeluBackward1(EluBackward1):
    __slots__ = ()
    explain = "1 where {a} > 0, else exp({pa} / alpha)"


def _elu_np(x, alpha, scale, input_scale):
    with np.errstate(all="ignore"):
        neg = numerics.ufunc(np.expm1)(x * input_scale) * (alpha * scale)
    return np.where(x > 0, x * scale, neg)


def _elu(input, alpha, scale, input_scale, inplace, classes):
    _need_float(input, "elu_cpu")
    kw = {"alpha": alpha, "scale": scale, "input_scale": input_scale}
    if inplace:
        return _inplace_node(input, lambda a: _elu_np(a, alpha, scale, input_scale), classes[1], kw)
    r = _elu_np(input._data, alpha, scale, input_scale)
    return record(classes[0], (input,), _out(r, input.dtype), kw)


def elu(input, alpha=1.0, inplace=False):
    return _elu(input, alpha, 1.0, 1.0, inplace, (EluBackward0, EluBackward1))


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace, (EluBackward0, EluBackward1))


def selu_(input):
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise errors.runtime("ZeroDivisionError")
    return _elu(input, alpha, 1.0, 1.0 / alpha, inplace, (CeluBackward0, CeluBackward1))


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


class LeakyReluBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} > 0, else the negative slope"
    replay = staticmethod(lambda xs, kw, outs: [_leaky_np(xs[0], kw["negative_slope"])])
    save_inputs = True
    kernel = staticmethod(B.leaky_relu_backward)

    def backward(self, g):
        (x,) = self.saved
        return (self.kernel(g, x, self._kw["negative_slope"]),)


class LeakyReluBackward1(Function):
    __slots__ = ()
    explain = "1 where {a} > 0, else the negative slope"
    replay = staticmethod(lambda xs, kw, outs: [_leaky_np(xs[0], kw["negative_slope"])])
    save_output = True
    kernel = staticmethod(B.leaky_relu_backward)

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (self.kernel(g, result, self._kw["negative_slope"]),)


def _leaky_np(x, slope):
    return np.where(x > 0, x, x * slope)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _need_float(input, "leaky_relu_cpu")
    kw = {"negative_slope": negative_slope}
    if inplace:
        return _inplace_node(input, lambda a: _leaky_np(a, negative_slope), LeakyReluBackward1, kw)
    return record(LeakyReluBackward0, (input,), _out(_leaky_np(input._data, negative_slope), input.dtype), kw)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


class RreluWithNoiseBackward0(LeakyReluBackward0):
    """rrelu outside training: a leaky relu with the mean slope."""
    __slots__ = ()
    kernel = staticmethod(B.rrelu_with_noise_backward)


class RreluWithNoiseBackward1(LeakyReluBackward1):
    __slots__ = ()
    kernel = staticmethod(B.rrelu_with_noise_backward)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if training:
        raise errors.runtime("rrelu with training=True is not supported by gradcli")
    _need_float(input, "leaky_relu_cpu")
    slope = (lower + upper) / 2
    kw = {"negative_slope": slope}
    if inplace:
        return _inplace_node(input, lambda a: _leaky_np(a, slope), RreluWithNoiseBackward1, kw)
    return record(RreluWithNoiseBackward0, (input,), _out(_leaky_np(input._data, slope), input.dtype), kw)


class HardtanhBackward0(Function):
    __slots__ = ()
    explain = "1 inside [min, max], else 0"
    replay = staticmethod(lambda xs, kw, outs: [np.clip(xs[0], kw["min_val"], kw["max_val"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.hardtanh_backward(g, x, self._kw["min_val"], self._kw["max_val"]),)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _maybe_inplace(_hardtanh, input, inplace, min_val, max_val)


def _hardtanh(input, min_val, max_val):
    if input.dtype is dtypes.bool_:
        raise errors.runtime("Bool inputs not supported for hardtanh")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    r = np.minimum(np.maximum(input._data, min_val), max_val)
    out = _out(r, input.dtype)
    if input.dtype.is_floating_point:
        out = record(HardtanhBackward0, (input,), out, {"min_val": min_val, "max_val": max_val})
    return out


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


class HardsigmoidBackward0(Function):
    __slots__ = ()
    explain = "1/6 where -3 < {a} < 3, else 0"
    replay = staticmethod(lambda xs, kw, outs: [np.clip(xs[0] / 6 + 0.5, 0, 1)])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (_no_double_backward("aten::hardsigmoid_backward", (g, x),
                                    lambda: where((x > -3.0) & (x < 3.0), g * (1.0 / 6.0), 0.0)),)


def hardsigmoid(input, inplace=False):
    return _maybe_inplace(_hardsigmoid, input, inplace)


def _hardsigmoid(input):
    _need_float(input, "hardsigmoid_cpu")
    x = input._data
    r = np.minimum(np.maximum(x + 3, 0), 6) / 6
    return record(HardsigmoidBackward0, (input,), _out(r, input.dtype))


class HardswishBackward0(Function):
    __slots__ = ()
    explain = "(2 * {a} + 3) / 6 where -3 < {a} < 3, 1 above, 0 below"
    replay = staticmethod(lambda xs, kw, outs: [xs[0] * np.clip(xs[0] + 3, 0, 6) / 6])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.hardswish_backward(g, x),)


def hardswish(input, inplace=False):
    return _maybe_inplace(_hardswish, input, inplace)


def _hardswish(input):
    _need_float(input, "hardswish_cpu")
    x = input._data
    r = x * np.minimum(np.maximum(x + 3, 0), 6) / 6
    return record(HardswishBackward0, (input,), _out(r, input.dtype))


class LogSigmoidBackward0(Function):
    __slots__ = ()
    explain = "1 - sigmoid({a})"
    replay = staticmethod(lambda xs, kw, outs: [-np.logaddexp(0.0, -xs[0])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.log_sigmoid_backward(g, x),)


def logsigmoid(input):
    _need_float(input, "log_sigmoid_cpu")
    x = input._data
    r = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    return record(LogSigmoidBackward0, (input,), _out(r, input.dtype))


def softsign(input):
    if input.dtype is dtypes.bool_:
        raise not_implemented("abs_cpu", input.dtype)
    return E.div(input, E.add(E.abs(input), 1))


def tanhshrink(input):
    return E.sub(input, E.tanh(input))


class ThresholdBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} > threshold, else 0"
    replay = staticmethod(lambda xs, kw, outs: [np.where(xs[0] <= kw["threshold"], kw["value"], xs[0])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.threshold_backward(g, x, self._kw["threshold"]),)


class ThresholdBackward1(ThresholdBackward0):
    """threshold_ (in place): the same formula on the original input."""
    __slots__ = ()


def threshold(input, threshold, value, inplace=False):
    if inplace:
        return inplace_method(_threshold, "threshold_", ThresholdBackward1)(input, threshold, value)
    return _threshold(input, threshold, value)


def _threshold(input, threshold, value):
    if input.dtype is dtypes.bool_:
        raise not_implemented("threshold_cpu", input.dtype)
    out = _out(np.where(input._data <= threshold, np.asarray(value).astype(input._data.dtype)[()], input._data),
               input.dtype)
    if input.dtype.is_floating_point:
        out = record(ThresholdBackward0, (input,), out, {"threshold": threshold, "value": value})
    return out


def threshold_(input, threshold_value, value):
    return threshold(input, threshold_value, value, inplace=True)


class SoftshrinkBackward0(Function):
    __slots__ = ()
    explain = "1 where |{a}| > lambd, else 0"
    replay = staticmethod(lambda xs, kw, outs: [_softshrink_np(xs[0], kw["lambd"])])
    save_inputs = True
    kernel = staticmethod(B.softshrink_backward)

    def backward(self, g):
        (x,) = self.saved
        return (self.kernel(g, x, self._kw["lambd"]),)


class HardshrinkBackward0(SoftshrinkBackward0):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.where(np.abs(xs[0]) > kw["lambd"], xs[0], 0.0)])
    kernel = staticmethod(B.hardshrink_backward)


def _softshrink_np(x, lambd):
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0))


def softshrink(input, lambd=0.5):
    _need_float(input, "softshrink_check")
    if lambd < 0:
        raise errors.runtime(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    r = _softshrink_np(input._data, lambd)
    return record(SoftshrinkBackward0, (input,), _out(r, input.dtype), {"lambd": lambd})


def hardshrink(input, lambd=0.5):
    _need_float(input, "hardshrink_cpu")
    x = input._data
    r = np.where((x >= -lambd) & (x <= lambd), 0, x)
    return record(HardshrinkBackward0, (input,), _out(r, input.dtype), {"lambd": lambd})


class GluBackward0(Function):
    __slots__ = ()
    explain = "the glu Jacobian: sigmoid(b) on the first half, a * sigmoid(b) * (1 - sigmoid(b)) on the second"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [_glu_np(xs[0], kw["dim"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        d = self._kw["dim"]
        return (B.glu_backward(g, x, d),)


def glu(input, dim=-1):
    _need_float(input, "glu_cpu")
    if input.ndim == 0:
        raise errors.runtime("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if n % 2:
        raise errors.runtime(f"Halving dimension must be even, but dimension {d} is size {n}")
    return record(GluBackward0, (input,), _out(_glu_np(input._data, d), input.dtype), {"dim": d})


def _glu_np(x, d):
    """ATen's glu kernel: a * (1 / (1 + exp(-b))), in float for float16 (one rounding at the end); b is
    passed as the strided view the kernel reads, so the sigmoid's vector body and tail fall as in torch."""
    n = x.shape[d] // 2
    lead = (slice(None),) * d
    a = x[lead + (slice(0, n),)]
    b = x[lead + (slice(n, 2 * n),)]
    if x.dtype == np.float16:
        return (a.astype(np.float32) * numerics.sigmoid(b.astype(np.float32))).astype(np.float16)
    return a * numerics.sigmoid(b)


# ---------------------------------------------------------------------------- in-place comparisons

class _CompareInplace(Function):
    """x.eq_(y) and friends: x gets 0/1 in its own dtype; the gradient is zero."""
    __slots__ = ()

    def backward(self, g):
        return tuple(E.zero_grad(g) if nf is not None else None for nf, _ in self.next_functions)


def _compare_classes(stem):
    zero = type(f"{stem}Backward0", (_CompareInplace,), {"__slots__": ()})
    one = type(f"{stem}Backward1", (_CompareInplace,), {"__slots__": ()})
    return zero, one


_COMPARE = {}
for _stem, _names in (("Eq", ("eq",)), ("Ne", ("ne", "not_equal")), ("Lt", ("lt", "less")),
                      ("Le", ("le", "less_equal")), ("Gt", ("gt", "greater")), ("Ge", ("ge", "greater_equal"))):
    _classes = _compare_classes(_stem)
    for _n in _names:
        _COMPARE[_n] = _classes


def compare_inplace(compare, name, node=None):
    """x.eq_(y), x.lt_(y) ... (declared inplace="compare" in elementwise.py): x gets 0/1 in its own dtype
    and, a float x, the comparison's node (EqBackward0 for a number, EqBackward1 for a tensor)."""
    from .indexing import check_inplace  # noqa: PLC0415
    from .inplace import rebase  # noqa: PLC0415
    zero, one = _COMPARE[name[:-1]]

    def method(self, other):
        check_inplace(self)
        other = coerce(other)
        r = compare(self, other)
        out = wrap(_asarray(r._data).astype(self._data.dtype), self.dtype)
        if self.dtype.is_floating_point:
            if isinstance(other, Tensor):
                record(one, (self, other), out)
            else:
                record(zero, (self,), out)
        return rebase(self, out)
    method.__name__ = name
    return method


def logical_inplace(fn, name, node=None):
    """x.logical_and_(y) ... (declared inplace="logical" in elementwise.py): x gets 0/1 in its own dtype;
    as in torch, no node is recorded (x keeps its grad_fn)."""
    from .indexing import check_inplace  # noqa: PLC0415

    def method(self, *other):
        check_inplace(self)
        r = fn(self, *other)
        if r._data.shape != self._data.shape:
            raise errors.runtime(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                                 f"broadcast shape [{', '.join(map(str, r._data.shape))}]")
        self._data[...] = r._data.astype(self._data.dtype)
        self._version[0] += 1
        return self
    method.__name__ = name
    return method


# ---------------------------------------------------------------------------- declarations

def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def _inplace_call(name, namespace=""):
    """The gradient checks' call of an in-place activation: on a copy of the leaf."""
    def call(torch, x):
        return getattr(torch.nn.functional if namespace == "F" else torch, name)(x * 1)
    return call


# One declaration per op (registry.py): its names, in-place forms, nodes and gradient-check sample.
# ip: x.name_() (in place); tip: also torch.name_(x)
_BOOL = "a bool result"
_ip = {"inplace": True}
_tip = {"inplace": True, "torch_inplace": True}
OPS = [
    # exp/log variants and the erf family
    op("log1p", log1p, Log1PBackward0, special=True, sample=sample1("pos"), **_tip,
       cases={"log1p": case(lambda torch, x0: torch.log1p(x0), V.P)}),
    op("expm1", expm1, Expm1Backward0, special=True, sample=sample1(), **_tip,
       cases={"expm1": case(lambda torch, x0: torch.expm1(x0), V.A)}),
    op("exp2", exp2, Exp2Backward0, special=True, sample=sample1(), **_tip,
       cases={"exp2": case(lambda torch, x0: torch.exp2(x0), V.A)}),
    op("erf", erf, ErfBackward0, special=True, sample=sample1(), **_tip,
       cases={"erf": case(lambda torch, x0: torch.erf(x0), V.A)}),
    op("erfc", erfc, ErfcBackward0, special=True, sample=sample1(), **_tip,
       cases={"erfc": case(lambda torch, x0: torch.erfc(x0), V.A)}),
    op("erfinv", erfinv, ErfinvBackward0, special=True, sample=sample1("unit"), **_ip,
       cases={"erfinv": case(lambda torch, x0: torch.erfinv(x0), V.Q)}),
    op("xlogy", xlogy, XlogyBackward0, XlogyBackward1, XlogyBackward2, special=True,
       sample=sample2("any", "pos"), **_tip,
       cases={"xlogy": case(lambda torch, x0, x1: torch.xlogy(x0, x1), V.A, V.P),
              "xlogy_scalar": case(lambda torch, x: torch.xlogy(x, 2.5), V.A),
              "xlogy_number_self": case(lambda torch, y: torch.xlogy(1.5, y), V.P)}),
    op("xlog1py", xlog1py, SpecialXlog1PyBackward0, SpecialXlog1PyBackward1, SpecialXlog1PyBackward2, method=False,
       torch=False, special=True, sample=sample2("any", "pos")),
    op("logit", logit, LogitBackward0, special=True, sample=sample1("prob"), **_tip,
       cases={"logit": case(lambda torch, x0: torch.logit(x0), V.P),
              "logit_eps": case(lambda torch, x: torch.logit(x, eps=0.2), V.P)}),
    op("expit", E.sigmoid, E.SigmoidBackward0, method=False, torch=False, special=True, sample=sample1()),
    # trigonometric and hyperbolic
    op("asin", asin, AsinBackward0, aliases=("arcsin",), sample=sample1("unit"), **_tip,
       cases={"asin": case(lambda torch, x0: torch.asin(x0), V.Q)}),
    op("acos", acos, AcosBackward0, aliases=("arccos",), sample=sample1("unit"), **_tip,
       cases={"acos": case(lambda torch, x0: torch.acos(x0), V.Q)}),
    op("atan", atan, AtanBackward0, aliases=("arctan",), sample=sample1(), **_tip,
       cases={"atan": case(lambda torch, x0: torch.atan(x0), V.A)}),
    op("sinh", sinh, SinhBackward0, sample=sample1(), **_tip,
       cases={"sinh": case(lambda torch, x0: torch.sinh(x0), V.A)}),
    op("cosh", cosh, CoshBackward0, sample=sample1(), **_tip,
       cases={"cosh": case(lambda torch, x0: torch.cosh(x0), V.A)}),
    op("asinh", asinh, AsinhBackward0, aliases=("arcsinh",), inplace_node=AsinhBackward1, sample=sample1(), **_tip,
       cases={"asinh": case(lambda torch, x0: torch.asinh(x0), V.A)}),
    op("acosh", acosh, AcoshBackward0, aliases=("arccosh",), inplace_node=AcoshBackward1, sample=sample1("gt1"),
       **_tip,
       cases={"acosh": case(lambda torch, x0: torch.acosh(x0), V.W)}),
    op("atanh", atanh, AtanhBackward0, aliases=("arctanh",), inplace_node=AtanhBackward1, sample=sample1("unit"),
       **_tip,
       cases={"atanh": case(lambda torch, x0: torch.atanh(x0), V.Q)}),
    op("sinc", sinc, SincBackward0, special=True, sample=sample1(), **_tip,
       cases={"sinc": case(lambda torch, x0: torch.sinc(x0), V.A)}),
    op("deg2rad", deg2rad, Deg2RadBackward0, sample=sample1(), **_tip,
       cases={"deg2rad": case(lambda torch, x0: torch.deg2rad(x0), V.A)}),
    op("rad2deg", rad2deg, Rad2DegBackward0, sample=sample1(), **_tip,
       cases={"rad2deg": case(lambda torch, x0: torch.rad2deg(x0), V.A)}),
    # sign and rounding
    op("sgn", sgn, E.SgnBackward0, sample=sample1(), **_ip,
       cases={"sign_zero": case(lambda torch, x0: torch.sgn(x0), V.A)}),
    op("frac", frac, FracBackward0, sample=sample1(), **_tip,
       cases={"frac": case(lambda torch, x0: torch.frac(x0), [0.25, 1.7, -2.4])}),
    op("fix", fix, E.TruncBackward0, sample=sample1(), **_tip),
    op("round", round, E.RoundBackward0, RoundBackward1, special=True, sample=sample1(), **_tip,
       cases={"round_decimals": case(lambda torch, x: torch.round(x, decimals=1), [0.32, -0.71, 1.18])}),
    op("signbit", signbit, no_grad=_BOOL),
    op("isposinf", isposinf, no_grad=_BOOL),
    op("isneginf", isneginf, no_grad=_BOOL),
    op("isreal", isreal, no_grad=_BOOL),
    op("positive", positive, sample=sample1(call=lambda torch, x: x.positive() * 1), operator="+x"),
    # binary
    op("atan2", atan2, Atan2Backward0, aliases=("arctan2",), sample=sample2(), **_ip,
       cases={"atan2": case(lambda torch, x0, x1: torch.atan2(x0, x1), V.A, V.B)}),
    op("hypot", hypot, HypotBackward0, sample=sample2(), **_ip,
       cases={"hypot": case(lambda torch, x0, x1: torch.hypot(x0, x1), V.A, V.B)}),
    op("logaddexp", logaddexp, LogaddexpBackward0, sample=sample2(),
       cases={"logaddexp": case(lambda torch, x0, x1: torch.logaddexp(x0, x1), V.A, V.B),
              "logaddexp_bcast": case(lambda torch, x0, x1: torch.logaddexp(x0, x1), V.M23, V.A[:3])}),
    op("logaddexp2", logaddexp2, Logaddexp2Backward0, sample=sample2(),
       cases={"logaddexp2": case(lambda torch, x0, x1: torch.logaddexp2(x0, x1), V.A, V.B)}),
    op("fmod", fmod, FmodBackward0, FmodBackward1, sample=sample2("any", "pos"), **_ip,
       cases={"fmod": case(lambda torch, x0, x1: torch.fmod(x0, x1), [5.5, -5.3, 3.2], [2.0, 2.1, -1.5]),
              "fmod_scalar": case(lambda torch, x: torch.fmod(x, 1.5), [5.5, -5.3, 3.2])}),
    op("copysign", copysign, CopysignBackward0, CopysignBackward1, sample=sample2(), **_ip,
       cases={"copysign": case(lambda torch, x0, x1: torch.copysign(x0, x1), V.A, V.B)}),
    op("fmax", fmax, FmaxBackward0, sample=sample2(),
       cases={"fmax": case(lambda torch, x0, x1: torch.fmax(x0, x1), V.A, V.B)}),
    op("fmin", fmin, FminBackward0, sample=sample2(),
       cases={"fmin": case(lambda torch, x0, x1: torch.fmin(x0, x1), V.A, V.B)}),
    op("float_power", float_power, sample=sample2("pos", "any"), **_ip,
       cases={"float_power": case(lambda torch, x: torch.float_power(x, 3), V.A)}),  # pow's nodes, in float64
    # lerp, addcmul, addcdiv, nan_to_num
    op("lerp", lerp, LerpBackward0, LerpBackward1, sample=Sample([((2, 3), (2, 3), (2, 3)), ((3,), (2, 3), ())],
                                                                   ("any", "any", "prob")), **_ip,
       cases={"lerp": case(lambda torch, a, b: torch.lerp(a, b, 0.3), V.A, V.B),
              "lerp_tensor": case(lambda torch, x0, x1, x2: torch.lerp(x0, x1, x2), V.A, V.B, V.P)}),
    op("addcmul", addcmul, AddcmulBackward0, sample=Sample([((2, 3), (2, 3), (3,)), ((), (2,), (2,))],
                                                           kwargs={"value": 0.5}), **_ip,
       cases={"addcmul": case(lambda torch, a, b, c: torch.addcmul(a, b, c, value=0.5), V.A, V.B, V.P)}),
    op("addcdiv", addcdiv, AddcdivBackward0, sample=Sample([((2, 3), (2, 3), (3,)), ((), (2,), (2,))],
                                                           ("any", "any", "pos"), kwargs={"value": 2}), **_ip,
       cases={"addcdiv": case(lambda torch, a, b, c: torch.addcdiv(a, b, c, value=2.0), V.A, V.B, V.P)}),
    op("nan_to_num", nan_to_num, NanToNumBackward0, sample=sample1(), **_tip,
       cases={"nan_to_num": case(lambda torch, x0: torch.nan_to_num(x0), V.A)}),
    # activations
    op("hardshrink", hardshrink, HardshrinkBackward0, functional=True, sample=sample1("any", 0.2),
       cases={"hardshrink": case(lambda torch, x0: torch.nn.functional.hardshrink(x0), V.WIDE)}),
    op("softshrink", softshrink, SoftshrinkBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"softshrink": case(lambda torch, x0: torch.nn.functional.softshrink(x0), V.WIDE)}),
    op("softplus", softplus, SoftplusBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"softplus": case(lambda torch, x0: torch.nn.functional.softplus(x0), V.WIDE),
              "softplus_beta": case(lambda torch, x: torch.nn.functional.softplus(x, 2.0, 3.0), V.WIDE)}),
    op("gelu", gelu, GeluBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"gelu": case(lambda torch, x0: torch.nn.functional.gelu(x0), V.WIDE),
              "gelu_tanh": case(lambda torch, x: torch.nn.functional.gelu(x, approximate='tanh'), V.WIDE)}),
    op("silu", silu, SiluBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"silu": case(lambda torch, x0: torch.nn.functional.silu(x0), V.WIDE)}),
    op("mish", mish, MishBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"mish": case(lambda torch, x0: torch.nn.functional.mish(x0), V.WIDE)}),
    op("elu", elu, EluBackward0, EluBackward1, method=False, torch=False, functional=True, sample=sample1(),
       cases={"elu": case(lambda torch, x0: torch.nn.functional.elu(x0), V.WIDE),
              "elu_inplace": case(lambda torch, x: torch.nn.functional.elu(x * 1, inplace=True), V.WIDE)}),
    op("elu_", elu_, EluBackward1, method=False, torch=False, functional=True, sample=sample1(
        call=_inplace_call("elu_", "F"))),
    op("selu", selu, EluBackward0, EluBackward1, method=False, functional=True, sample=sample1(),
       cases={"selu": case(lambda torch, x0: torch.nn.functional.selu(x0), V.WIDE)}),
    op("selu_", selu_, EluBackward1, method=False, sample=sample1(call=_inplace_call("selu_"))),
    op("celu", celu, CeluBackward0, CeluBackward1, method=False, functional=True, sample=sample1(),
       cases={"celu": case(lambda torch, x: torch.nn.functional.celu(x, 2.0), V.WIDE)}),
    op("celu_", celu_, CeluBackward1, method=False, sample=sample1(call=_inplace_call("celu_")),
       cases={"celu_inplace": case(lambda torch, x: torch.celu_(x * 1), V.WIDE)}),
    op("leaky_relu", leaky_relu, LeakyReluBackward0, LeakyReluBackward1, method=False, torch=False,
       functional=True, sample=sample1("any", 0.2),
       cases={"leaky_relu": case(lambda torch, x: torch.nn.functional.leaky_relu(x, 0.2), V.WIDE),
              "leaky_relu_inplace": case(lambda torch, x: torch.nn.functional.leaky_relu(x * 1, 0.1, inplace=True), V.WIDE)}),
    op("leaky_relu_", leaky_relu_, LeakyReluBackward1, method=False, torch=False, functional=True,
       sample=sample1(call=_inplace_call("leaky_relu_", "F"))),
    op("rrelu", rrelu, RreluWithNoiseBackward0, RreluWithNoiseBackward1, method=False, functional=True,
       sample=sample1(),
       cases={"rrelu_eval": case(lambda torch, x: torch.nn.functional.rrelu(x, training=False), V.WIDE)}),
    op("rrelu_", rrelu_, RreluWithNoiseBackward1, method=False, sample=sample1(call=_inplace_call("rrelu_"))),
    op("hardtanh", hardtanh, HardtanhBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"hardtanh": case(lambda torch, x0: torch.nn.functional.hardtanh(x0), V.WIDE)}),
    op("hardtanh_", hardtanh_, HardtanhBackward0, method=False, torch=False, functional=True,
       sample=sample1(call=_inplace_call("hardtanh_", "F"))),
    op("relu6", relu6, HardtanhBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"relu6": case(lambda torch, x0: torch.nn.functional.relu6(x0), [-1.0, 2.5, 6.5])}),
    op("hardsigmoid", hardsigmoid, HardsigmoidBackward0, method=False, torch=False, functional=True,
       sample=sample1(second=False),
       cases={"hardsigmoid": case(lambda torch, x0: torch.nn.functional.hardsigmoid(x0), V.WIDE, second=False)}),  # torch's hardsigmoid_backward has no derivative
    op("hardswish", hardswish, HardswishBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"hardswish": case(lambda torch, x0: torch.nn.functional.hardswish(x0), V.WIDE)}),
    op("logsigmoid", logsigmoid, LogSigmoidBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"logsigmoid": case(lambda torch, x0: torch.nn.functional.logsigmoid(x0), V.WIDE)}),
    op("softsign", softsign, method=False, torch=False, functional=True, sample=sample1(),
       cases={"softsign": case(lambda torch, x0: torch.nn.functional.softsign(x0), V.WIDE)}),  # div's and abs's nodes
    op("tanhshrink", tanhshrink, method=False, torch=False, functional=True, sample=sample1(),
       cases={"tanhshrink": case(lambda torch, x0: torch.nn.functional.tanhshrink(x0), V.WIDE)}),  # sub's and tanh's
    op("threshold", threshold, ThresholdBackward0, method=False, functional=True, sample=sample1("any", 0.1, 2.0),
       cases={"threshold": case(lambda torch, x: torch.nn.functional.threshold(x, 0.1, 2.0), V.WIDE)}),
    op("threshold_", threshold_, ThresholdBackward1, method=False, functional=True,
       sample=sample1(call=lambda torch, x: torch.threshold_(x * 1, 0.1, 2.0))),
    op("glu", glu, GluBackward0, method=False, torch=False, functional=True,
       sample=Sample([((4,),), ((2, 4),)]),
       cases={"glu": case(lambda torch, x0: torch.nn.functional.glu(x0), [V.A[:4], V.B[:4]])}),
]
_TABLES = tables(OPS, inplace_method)
METHODS = _TABLES["METHODS"]     # Tensor methods (and torch.<name>): name -> function taking the tensor first
INPLACE = _TABLES["INPLACE"]     # x.name_() (the out-of-place op on x's original value, written back into x)
TORCH = _TABLES["TORCH"]         # torch.<name> only (not Tensor methods); torch.name_(x, ...) is x.name_(...)
FUNCTIONAL = _TABLES["FUNCTIONAL"]  # torch.nn.functional.<name>, for the nn package to bind (it owns F)
SPECIAL = _TABLES["SPECIAL"]     # torch.special.<name>

