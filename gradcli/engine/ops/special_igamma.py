"""The regularized incomplete gamma functions: torch.igamma / torch.special.gammainc (Tensor.igamma, igamma_)
and torch.igammac / torch.special.gammaincc (igammac, igammac_), as ATen's CPU kernel computes them
(ATen/native/Math.h: calc_igamma / calc_igammac, SciPy's and Cephes' igam/igamc with Boost's Lanczos sum: the
boundary values, the uniform asymptotic expansion for large a near x, the power series, the continued
fraction), one element at a time in the tensor's dtype as the C++ does: its double literals promote the
expressions they touch to double (rounded back to float where a float is assigned), the C library's float
functions (logf, expf, lgammaf, powf, log1pf, expm1f, erfcf) for float32, and the AVX2 build's fused
multiply-adds where GCC contracts (ratevl's Horner steps, a log(x) - x, the continued fraction's updates).
float16 and bfloat16 are computed in float32 and rounded, as ATen does. Half the elements of a large tensor
cost some tens of microseconds each (the series run in Python per element).

The gradient is torch's (derivatives.yaml): none for the first argument (torch's NotImplementedError "the
derivative for 'igamma: input' is not implemented." when a gradient reaches it), and
+-grad * exp((a - 1) log(x) - x - lgamma(a)) for the second, on Tensors, so it differentiates again.
"""
from __future__ import annotations

import ctypes
import math

import numpy as np

from .. import dtypes, errors
from ..function import Function
from ..limits import metered
from ..rng_math import fma32, fma64
from ..tensor import Tensor
from . import unary_math as UM
from .elementwise_common import binary, needs_input_grad, operand, shaped
from .registry import Sample, V, case, op
from .special_common import not_implemented
from .special_igamma_table import D as _D

_INF = math.inf
_NAN = math.nan
_C = {}


def _cfun(name, single, nargs=1):
    """The process's C library function (float or double version) as a Python callable."""
    key = (name, single)
    fn = _C.get(key)
    if fn is None:
        ct = ctypes.c_float if single else ctypes.c_double
        try:
            c = getattr(ctypes.CDLL(None), name + ("f" if single else ""))
            c.restype, c.argtypes = ct, [ct] * nargs
            fn = c
        except (OSError, AttributeError):  # no C library: Python's math (the last bit may differ)
            py = getattr(math, name)
            fn = (lambda v, py=py: float(np.float32(py(v)))) if single else py
        _C[key] = fn
    return fn


class _Float:
    """scalar_t's arithmetic: `r` rounds a double to scalar_t (float32 or double), the C library's functions
    of scalar_t, and fma as GCC's contraction computes it."""

    def __init__(self, single, contract):
        self.single = single
        self.contract = contract
        self.r = (lambda v: float(np.float32(v))) if single else float
        for name in ("log", "exp", "lgamma", "log1p", "expm1", "erfc", "sqrt"):
            setattr(self, name, self._safe(_cfun(name, single)))
        self.pow = _cfun("pow", single, 2)
        self.dexp = _cfun("exp", False)   # std::exp of a double expression
        self.dpow = _cfun("pow", False, 2)
        self.machep = 5.9604644775390625E-8 if single else 1.11022302462515654042E-16
        self.maxlog = 88.72283905206835 if single else 7.09782712893383996843E2
        self.big = 16777216.0 if single else 4.503599627370496e15
        self.biginv = 5.9604644775390625E-8 if single else 2.22044604925031308085e-16
        self.lanczos_g = self.r(6.024680040776729583740234375)
        self.exp1 = self.r(2.718281828459045)
        self.num = [self.r(v) for v in _LANCZOS_NUM]
        self.den = [self.r(v) for v in _LANCZOS_DEN]
        self.d = [[self.r(v) for v in row] for row in _D]
        self.pi = float(np.float32(math.pi))  # c10::pi<float>

    @staticmethod
    def _safe(fn):
        def call(v):
            try:
                return fn(v)
            except (OverflowError, ValueError):
                return _NAN
        return call

    def fma(self, a, b, c):
        if not self.contract:
            return self.r(self.r(a * b) + c)
        f = fma32 if self.single else fma64
        t = np.float32 if self.single else np.float64
        return float(f(np.array([a], t), np.array([b], t), np.array([c], t))[0])


_LANCZOS_NUM = (0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
                19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
                6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
                601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
                14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
                86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
                56906521.91347156388090791033559122686859)
_LANCZOS_DEN = (1., 66., 1925., 32670., 357423., 2637558., 13339535., 45995730., 105258076., 150917976.,
                120543840., 39916800., 0.)


def _ratevl(F, x, num, den):
    """Boost's rational function in x (in 1/x beyond 1): Horner's steps fused."""
    if abs(x) > 1:
        y = F.r(1 / x)
        num, den = num[::-1], den[::-1]
    else:
        y = x
    n = num[0]
    for c in num[1:]:
        n = F.fma(n, y, c)
    d = den[0]
    for c in den[1:]:
        d = F.fma(d, y, c)
    if abs(x) > 1:
        return F.r(F.dpow(x, len(den) - len(num)) * n / d)  # std::pow(scalar_t, int64_t): in double
    return F.r(n / d)


def _fac(F, a, x):
    """x^a exp(-a) / gamma(a), as _igam_helper_fac."""
    r = F.r
    if abs(r(a - x)) > 0.4 * abs(a):
        ax = r(F.fma(a, F.log(x), -x) - F.lgamma(a))
        if ax < -F.maxlog:
            return 0.0
        return F.exp(ax)
    fac = r(r(a + F.lanczos_g) - 0.5)
    res = r(F.sqrt(r(fac / F.exp1)) / _ratevl(F, a, F.num, F.den))
    if a < 200 and x < 200:
        return r(res * r(F.exp(r(a - x)) * F.pow(r(x / fac), a)))
    num = r(r(r(x - a) - F.lanczos_g) + 0.5)
    numfac = r(num / fac)
    d = r(F.log1p(numfac) - numfac)
    tail = x * (0.5 - F.lanczos_g) / fac
    e = r(a * d) + tail if F.single else F.fma(a, d, tail)  # (a float product is not fused into a double sum)
    return r(res * F.dexp(e))


def _series(F, a, x):
    """igam by DLMF 8.11.4."""
    r = F.r
    ax = _fac(F, a, x)
    if ax == 0.0:
        return 0.0
    rr, c, ans = a, 1.0, 1.0
    for _ in range(2000):
        rr = r(rr + 1.0)
        c = r(c * r(x / rr))
        ans = r(ans + c)
        if c <= r(F.machep * ans):
            break
    return r(r(ans * ax) / a)


def _igamc_series(F, a, x):
    """igamc by DLMF 8.7.3."""
    r = F.r
    fac, total = 1.0, 0.0
    for n in range(1, 2000):
        fac = r(fac * r(-x / n))
        term = r(fac / r(a + n))
        total = r(total + term)
        if abs(term) <= r(F.machep * abs(total)):
            break
    logx = F.log(x)
    term = -F.expm1(F.fma(a, logx, -F.lgamma(r(1 + a))))
    return F.fma(-F.exp(F.fma(a, logx, -F.lgamma(a))), total, term)


def _asymptotic(F, a, x, igam):
    """DLMF 8.12.3 / 8.12.4 (Temme's expansion) for large a near x."""
    r = F.r
    sgn = -1 if igam else 1
    lam = r(x / a)
    sigma = r(r(x - a) / a)
    if lam != 1:
        eta = F.sqrt(r(-2 * r(F.log1p(sigma) - sigma)))
        eta = eta if lam > 1 else -eta
    else:
        eta = 0.0
    res = r(0.5 * F.erfc(r(r(sgn * eta) * F.sqrt(r(a / 2)))))
    etapow = [1.0] + [0.0] * 24
    maxpow = 0
    total, afac, absold = 0.0, 1.0, _INF
    for k in range(25):
        ck = F.d[k][0]
        for n in range(1, 25):
            if n > maxpow:
                etapow[n] = r(eta * etapow[n - 1])
                maxpow += 1
            ckterm = r(F.d[k][n] * etapow[n])
            ck = r(ck + ckterm)
            if abs(ckterm) < r(F.machep * abs(ck)):
                break
        term = r(ck * afac)
        absterm = abs(term)
        if absterm > absold:
            break
        total = r(total + term)
        if absterm < r(F.machep * abs(total)):
            break
        absold = absterm
        afac = r(afac / a)
    tail = sgn * F.dexp(-0.5 * a * eta * eta) * total / F.sqrt(r(r(2 * F.pi) * a))
    return r(res + tail)


def _continued_fraction(F, a, x):
    """igamc by DLMF 8.9.2."""
    r = F.r
    ax = _fac(F, a, x)
    if ax == 0.0:
        return 0.0
    y = r(1.0 - a)
    z = r(r(x + y) + 1.0)
    c = 0.0
    pkm2, qkm2 = 1.0, x
    pkm1 = r(x + 1.0)
    qkm1 = r(z * x)
    ans = r(pkm1 / qkm1)
    for _ in range(2000):
        c = r(c + 1.0)
        y = r(y + 1.0)
        z = r(z + 2.0)
        yc = r(y * c)
        pk = F.fma(pkm1, z, -r(pkm2 * yc))
        qk = F.fma(qkm1, z, -r(qkm2 * yc))
        if qk != 0:
            rk = r(pk / qk)
            t = abs(r(r(ans - rk) / rk))
            ans = rk
        else:
            t = 1.0
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        if abs(pk) > F.big:
            pkm2, pkm1, qkm2, qkm1 = (r(v * F.biginv) for v in (pkm2, pkm1, qkm2, qkm1))
        if t <= F.machep:
            break
    return r(ans * ax)


def _boundary(a, x, lower):
    if x < 0 or a < 0 or a != a or x != x:
        return _NAN
    if a == 0:
        return (1.0 if lower else 0.0) if x > 0 else _NAN
    if x == 0:
        return 0.0 if lower else 1.0
    if math.isinf(a):
        return _NAN if math.isinf(x) else (0.0 if lower else 1.0)
    if math.isinf(x):
        return 1.0 if lower else 0.0
    return None


def _near(F, a, x):
    """The asymptotic regime: large a, x near a."""
    absxma_a = F.r(abs(F.r(x - a)) / a)
    return (20.0 < a < 200.0 and absxma_a < 0.3) or (a > 200.0 and absxma_a < F.r(4.5 / F.sqrt(a)))


def calc_igammac(F, a, x):
    b = _boundary(a, x, False)
    if b is not None:
        return b
    if _near(F, a, x):
        return _asymptotic(F, a, x, False)
    if x > 1.1:
        return F.r(1.0 - _series(F, a, x)) if x < a else _continued_fraction(F, a, x)
    if x <= 0.5:
        return F.r(1.0 - _series(F, a, x)) if -0.4 / F.log(x) < a else _igamc_series(F, a, x)
    return F.r(1.0 - _series(F, a, x)) if x * 1.1 < a else _igamc_series(F, a, x)


def calc_igamma(F, a, x):
    b = _boundary(a, x, True)
    if b is not None:
        return b
    if _near(F, a, x):
        return _asymptotic(F, a, x, True)
    if x > 1.0 and x > a:
        return F.r(1.0 - calc_igammac(F, a, x))
    return _series(F, a, x)


_FLOATS = {}


def _kernel(lower):
    def run(a, x):
        a, x = np.broadcast_arrays(np.asarray(a), np.asarray(x))
        dt = a.dtype
        work = np.float64 if dt == np.float64 else np.float32  # float16/bfloat16 through float32
        single = work == np.float32
        key = (single, not lower)  # igammac's kernel is built with contractions, igamma's without (measured)
        F = _FLOATS.get(key) or _FLOATS.setdefault(key, _Float(single, not lower))
        fn = calc_igamma if lower else calc_igammac
        av = a.astype(work).ravel().tolist()
        xv = x.astype(work).ravel().tolist()
        with np.errstate(all="ignore"):
            # a Python call per element (up to ~0.2 ms): each a step of the run, as the engine's other loops
            out = np.array([fn(F, ai, xi) for ai, xi in metered(zip(av, xv))], np.float64).astype(work)
        return out.reshape(a.shape).astype(dt)
    return run


igamma_np = _kernel(True)
igammac_np = _kernel(False)


# ---------------------------------------------------------------------------- the ops

def _x_grad(g, a, x):
    """d/dx of the lower function: exp((a - 1) log(x) - x - lgamma(a))."""
    from .special_gamma import lgamma  # noqa: PLC0415
    return g * UM.exp((a - 1) * UM.log(x) - x - lgamma(a))


class _IgammaBase(Function):
    __slots__ = ()
    save_inputs = True
    sign = 1
    name = "igamma"

    def backward(self, g):
        a, x = self.saved
        if needs_input_grad(self, 0):
            raise NotImplementedError(f"the derivative for '{self.name}: input' is not implemented.")
        gx = _x_grad(g, a, x) if needs_input_grad(self, 1) else None
        if gx is not None and self.sign < 0:
            gx = -gx
        return None, shaped(gx, x)


class IgammaBackward0(_IgammaBase):
    __slots__ = ()
    explain = ("(no derivative)", "exp(({a} - 1) log({b}) - {b} - lgamma({a}))")
    forward = staticmethod(igamma_np)


class IgammacBackward0(_IgammaBase):
    __slots__ = ()
    explain = ("(no derivative)", "-exp(({a} - 1) log({b}) - {b} - lgamma({a}))")
    forward = staticmethod(igammac_np)
    sign = -1
    name = "igammac"


def _igamma_op(cls, input, other, name, kernel):
    if not isinstance(other, Tensor):
        raise errors.type_error(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    other = operand(other)
    dt = dtypes.result_type((input, other))
    if not dt.is_floating_point:
        raise not_implemented(kernel, dt)
    return binary(cls, input, other)


def igamma(input, other):
    return _igamma_op(IgammaBackward0, input, other, "igamma", "igamma_cpu")


def igammac(input, other):
    return _igamma_op(IgammacBackward0, input, other, "igammac", "igammac_cpu")


def gammainc(input, other):
    return _igamma_op(IgammaBackward0, input, other, "special_gammainc", "igamma_cpu")


def gammaincc(input, other):
    return _igamma_op(IgammacBackward0, input, other, "special_gammaincc", "igammac_cpu")


def _x_only(fn):
    """The gradient checks' call: a fixed positive first argument (no derivative there), x the input."""
    return lambda torch, x: fn(torch)(torch.full_like(x, 2.5), x)


OPS = [
    op("igamma", igamma, IgammaBackward0, sample=Sample("unary", ("pos",), call=_x_only(lambda t: t.igamma)),
       inplace=True, cases={"igamma": case(lambda torch, x: torch.igamma(torch.full_like(x, 1.5), x), V.P)}),
    op("igammac", igammac, IgammacBackward0, sample=Sample("unary", ("pos",), call=_x_only(lambda t: t.igammac)),
       inplace=True, cases={"igammac": case(lambda torch, x: torch.igammac(torch.full_like(x, 3.5), x), V.W)}),
    op("gammainc", gammainc, IgammaBackward0, method=False, torch=False, special=True,
       sample=Sample("unary", ("pos",), call=_x_only(lambda t: t.special.gammainc))),
    op("gammaincc", gammaincc, IgammacBackward0, method=False, torch=False, special=True,
       sample=Sample("unary", ("pos",), call=_x_only(lambda t: t.special.gammaincc))),
]
