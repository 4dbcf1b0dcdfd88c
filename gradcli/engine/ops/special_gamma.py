"""The gamma family of the special ops: lgamma (torch.special.gammaln) and digamma (torch.special.psi),
as ATen's CPU kernels compute them: lgamma is the C library's lgamma/lgammaf per element (ATen calls
std::lgamma), digamma ATen's own calc_digamma (ATen/native/Math.h: the recurrence up to 10, then the
asymptotic series), step for step in the tensor's dtype. digamma's derivative is the trigamma function
(ATen's calc_trigamma: the reflection below 1/2, six recurrence steps, then the series); polygamma of
higher orders is not there, so digamma's gradient differentiates again through polygamma(n, x): n >= 2 is ATen's calc_polygamma, (-1)^(n+1) n!
zeta(n + 1, x) with Cephes' Hurwitz zeta as ATen's Math.h has it (in double, its first term powf for float
inputs). mvlgamma (torch.special.multigammaln) is ATen's sum of lgammas over the shifted arguments plus
p (p - 1) / 4 log(pi), MvlgammaBackward0 the sum of their digammas. torch.special.entr (-x log x, ATen's
entr kernel with the C library's log) is here too, for the C library's log it shares."""
from __future__ import annotations

import math

import numpy as np

from ..function import Function
from .elementwise_common import unary
from .registry import Sample, op, sample1
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
        return (g * polygamma(1, x),)


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042E-16


def _zeta(x, q, f32):
    """ATen's zeta(x, q) for one element, in double (acc_type); the first term std::pow(q, -x) in the
    input's type."""
    if x == 1.0:
        return math.inf
    if x < 1.0:
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    with np.errstate(all="ignore"):
        s = float(np.power(np.float32(q), np.float32(-x))) if f32 else float(np.power(q, -x))
    a, i, b = q, 0, 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = _pow(a, -x)
        s += b
        if -_MACHEP * s < b < _MACHEP * s:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a, k = 1.0, 0.0
    for coef in _ZETA_A:
        a *= x + k
        b /= w
        t = a * b / coef
        s = s + t
        t = abs(t / s) if s != 0 else math.inf
        if t < _MACHEP:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


def _pow(a, e):
    try:
        return math.pow(a, e)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def polygamma_np(n, x):
    """ATen's polygamma kernel: digamma, trigamma, else calc_polygamma per element, in x's dtype."""
    x = np.asarray(x)
    if n == 0:
        return digamma_np(x)
    if n == 1:
        return trigamma_np(x)
    t = x.dtype.type
    f32 = x.dtype == np.float32
    zeta = np.frompyfunc(lambda v: _zeta(float(n + 1), float(v), f32), 1, 1)
    z = np.asarray(zeta(x) if x.size else x, dtype=np.float64).astype(x.dtype)
    fact = _libm("exp", lgamma_np(np.asarray([n + 1], x.dtype)))[0]
    with np.errstate(all="ignore"):
        return ((t(1) if n % 2 else t(-1)) * fact * z).astype(x.dtype)


class PolygammaBackward0(Function):
    """polygamma(n, x): its derivative is polygamma(n + 1, x)."""
    __slots__ = ()
    explain = "polygamma(n + 1, {a})"
    save_inputs = True
    replay = staticmethod(lambda xs, kw, outs: [polygamma_np(kw["n"], xs[0])])

    def backward(self, g):
        (x,) = self.saved
        return (g * polygamma(self._kw["n"] + 1, x),)


def polygamma(n, input):
    """torch.polygamma(n, input) (torch.special.polygamma), and x.polygamma(n) (the tensor first: the
    arguments are taken the other way round)."""
    from ..argcheck import takes_int  # noqa: PLC0415
    from ..tensor import Tensor  # noqa: PLC0415
    if isinstance(n, Tensor) and (not isinstance(input, Tensor) or (not takes_int(n) and takes_int(input))):
        n, input = input, n  # x.polygamma(2), x.polygamma(torch.tensor(2))
    if not takes_int(n):  # the parser's rule for an int (a one-element integer Tensor is one)
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    n = int(n.item()) if isinstance(n, Tensor) else int(n)
    if not -2 ** 63 <= n < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    if not isinstance(input, Tensor):
        raise TypeError(f"polygamma(): argument 'input' (position 2) must be Tensor, not {type(input).__name__}")
    if n < 0:
        from .. import errors  # noqa: PLC0415
        raise errors.runtime("polygamma(n, x) does not support negative n.")
    x = input if input.dtype.is_floating_point else input.float()
    from ..function import record  # noqa: PLC0415
    from ..tensor import wrap  # noqa: PLC0415
    out = wrap(polygamma_np(n, x._data), x.dtype)
    return record(PolygammaBackward0, (input,), out, {"n": n})


class MvlgammaBackward0(Function):
    """mvlgamma(x, p): the sum over the p shifted arguments of their digammas."""
    __slots__ = ()
    explain = "the sum of digamma({a} - j / 2) over j < p"
    save_inputs = True
    replay = staticmethod(lambda xs, kw, outs: [_mvlgamma_np(xs[0], kw["p"])])

    def backward(self, g):
        (x,) = self.saved
        return (g * digamma(_mvlgamma_args(x, self._kw["p"])).sum(-1),)


def _mvlgamma_args(x, p):
    from ..factory import arange  # noqa: PLC0415
    return arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=x.dtype, device=x.device) + x.unsqueeze(-1)


def _mvlgamma_np(x, p):
    args = (np.arange(-p * 0.5 + 0.5, 0.5, 0.5) + x[..., None]).astype(x.dtype)
    return (lgamma_np(args).sum(-1) + p * (p - 1) * math.log(math.pi) * 0.25).astype(x.dtype)


def mvlgamma(input, p):
    """ATen's mvlgamma: arange(-p/2 + 1/2, 1/2, 1/2) + x.unsqueeze(-1), lgamma, summed over the last dim, plus
    p (p - 1) log(pi) / 4 (integer inputs in the default float dtype)."""
    from .. import errors  # noqa: PLC0415
    from ..autograd_modes import no_grad  # noqa: PLC0415
    from ..function import record  # noqa: PLC0415
    from ..tensor import wrap  # noqa: PLC0415
    from ..argcheck import takes_int  # noqa: PLC0415
    if not takes_int(p):  # an int, or a 0-d integer Tensor as torch's parser takes it
        from ..argcheck import wrong_type  # noqa: PLC0415
        raise wrong_type("mvlgamma", "p", 2, "int", p)  # (x.mvlgamma's position 1: argcheck.as_method)
    p = int(p.item()) if hasattr(p, "item") else int(p)
    if p < 1:
        raise errors.runtime("p has to be greater than or equal to 1")
    x = input
    if not x.dtype.is_floating_point:
        from .. import dtypes  # noqa: PLC0415
        x = x.to(dtypes.defaults.float)
    with no_grad():
        out = lgamma(_mvlgamma_args(x.detach(), p)).sum(-1)
        out = out + p * (p - 1) * math.log(math.pi) * 0.25
    return record(MvlgammaBackward0, (input,), wrap(out._data, x.dtype), {"p": p})


def lgamma(input):
    return unary(LgammaBackward0, input)


def digamma(input):
    return unary(DigammaBackward0, input)


def _entr_np(x):
    x = np.asarray(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        pos = np.where(x > 0, x, t(1))
        out = np.where(x > 0, -x * _libm("log", pos), np.where(x == 0, t(0), t(-np.inf)))
        return np.where(np.isnan(x), x, out).astype(x.dtype)


class SpecialEntrBackward0(Function):
    """entr: its derivative is -(1 + log(x))."""
    __slots__ = ()
    explain = "-(1 + log({a}))"
    save_inputs = True

    @staticmethod
    def forward(x):
        return _entr_np(x)

    def backward(self, g):
        from . import arithmetic as AR  # noqa: PLC0415
        from . import unary_math as UM  # noqa: PLC0415
        (x,) = self.saved
        return (g * AR.neg(AR.add(UM.log(x), 1)),)


def entr(input):
    """torch.special.entr: -x log x for x > 0, 0 at 0, -inf below (integers promoted to float)."""
    return unary(SpecialEntrBackward0, input)


OPS = [
    op("entr", entr, SpecialEntrBackward0, method=False, torch=False, special=True, sample=sample1("pos")),
    op("lgamma", lgamma, LgammaBackward0, special=("gammaln",), sample=sample1("pos"), **IP),
    op("digamma", digamma, DigammaBackward0, special=("digamma", "psi"), sample=sample1("pos"), **IP),
    op("polygamma", polygamma, PolygammaBackward0, special=True, inplace="copy", sample=Sample(
        "unary", ("pos",), call=lambda torch, x: (torch.polygamma(2, x), torch.special.polygamma(3, x * 2),
                                                  torch.polygamma(1, x), x.polygamma(2)))),
    op("mvlgamma", mvlgamma, MvlgammaBackward0, special=("multigammaln",), inplace="copy", sample=Sample(
        "unary", ("gt1",), call=lambda torch, x: (torch.mvlgamma(x + 1, 2), torch.special.multigammaln(x + 1, 3)))),
]
