"""erf, erfc and erfinv over NumPy arrays (no SciPy), as near torch's CPU results as known.

torch computes float32/float64 erf, erfc and erfinv through MKL VML (docs/numerics.md), whose results
are within about half an ulp of the exact value. Measured against torch 2.13 on AVX2 (100K inputs): the
correctly rounded erf agrees on 99.6% of float64 inputs, erfinv on 99.98%, erfc on 99.2% of x >= 0, and
for x < 0 VML's erfc is `2 - erfc(-x)` (99.98%; float32: `2f - float(erfc(-x))`, 99.9%). So the
functions are computed in x87 extended precision (NumPy's longdouble, 64 significant bits) and rounded
once: erf by its everywhere-positive series erf(a) = 2/sqrt(pi) e^{-a^2} sum 2^n a^(2n+1) / (2n+1)!!
for |x| < 2, erfc by its continued fraction (evaluated backward, the term count per range checked
against 3,000 terms) for |x| >= 2, the other as 1 minus it (erfc at 0.5 <= |x| < 2 loses up to 8 of
the 11 extra bits there: the fraction would need ~1,000 terms); e^{-x^2} from an exact split of x*x.
float32 takes Cody's double-precision values, which round to float32 as the exact ones do.
erfinv takes four Newton steps in extended precision (on log erfc for |y| > 0.5, where 1 - |y| is exact)
from W. J. Cody's and M. Giles' double-precision estimate. Where longdouble is plain double (other
platforms) Cody's CALERF (Math. Comp. 1969) in double is used, as before.
"""
from __future__ import annotations

import numpy as np

_L = np.longdouble
EXTENDED = np.finfo(_L).nmant >= 63
_TWO_RSQRTPI = _L("1.12837916709551257389615890312154517")
_RSQRTPI = _L("0.564189583547756286948079451560772586")
# (upper bound of |x|, continued-fraction terms) for erfc at |x| >= 2 (checked against 3,000 terms)
_CF_TERMS = ((4.0, 90), (np.inf, 45))
_SERIES_TERMS = ((0.5, 22), (1.0, 32), (2.0, 60))   # (upper bound of |x|, terms): the last below 2**-70
_WIDE = (np.float64,)   # float32 rounds Cody's double-precision values correctly (the same 98.7% agreement)


# ---------------------------------------------------------------------------- extended precision

def _exp_neg_square(a):
    """e^{-a*a} in extended precision for float64 a >= 0: a = h + l with h of 26 bits, so h*h is exact."""
    c = a * 134217729.0
    h = c - (c - a)
    hl, ll = h.astype(_L), (a - h).astype(_L)
    return np.exp(-(hl * hl)) * np.exp(-(_L(2) * hl * ll + ll * ll))


def _series(al, e2):
    out = np.empty_like(al)
    lo = -1.0
    for hi, terms in _SERIES_TERMS:
        sel = (al >= lo) & (al < hi)
        lo = hi
        if not sel.any():
            continue
        a = al[sel]
        t = a.copy()
        s = a.copy()
        q = _L(2) * a * a
        for n in range(1, terms):
            t = t * q / _L(2 * n + 1)
            s = s + t
        out[sel] = _TWO_RSQRTPI * e2[sel] * s
    return out


def _fraction(al, e2):
    out = np.empty_like(al)
    lo = -1.0
    for hi, terms in _CF_TERMS:
        sel = (al >= lo) & (al < hi) if np.isfinite(hi) else al >= lo
        lo = hi
        if not sel.any():
            continue
        a = al[sel]
        f = a.copy()
        for k in range(terms, 0, -1):
            f = a + _L(k) / _L(2) / f
        out[sel] = e2[sel] * _RSQRTPI / f
    return out


def _erf_erfc_abs(al, e2):
    """(erf(a), erfc(a)) in extended precision for a = |x| (longdouble) with e2 = e^{-a*a}."""
    erf = np.empty_like(al)
    erfc = np.empty_like(al)
    with np.errstate(all="ignore"):
        small = al < 2
        if small.any():
            erf[small] = _series(al[small], e2[small])
        big = ~(al < 2) & ~np.isnan(al)
        if big.any():
            erfc[big] = _fraction(al[big], e2[big])
        near = small & ~big
        erfc[near] = _L(1) - erf[near]
        far = big & ~small
        erf[far] = _L(1) - erfc[far]
        inf = np.isinf(al)
        erf[inf], erfc[inf] = 1, 0
        nan = np.isnan(al)
        erf[nan] = erfc[nan] = np.nan
    return erf, erfc


def _abs_parts(x):
    a = np.abs(np.asarray(x, np.float64).reshape(-1))
    with np.errstate(all="ignore"):
        return _erf_erfc_abs(a.astype(_L), _exp_neg_square(a))


def erf(x):
    """torch.erf of a float32/float64 array (float16: through float64)."""
    if not EXTENDED or x.dtype not in _WIDE:
        return calerf(x)[0].astype(x.dtype, copy=False)
    e, _ = _abs_parts(x)
    out = e.astype(x.dtype).reshape(x.shape)
    return np.where(np.signbit(x), -out, out)


def erfc(x):
    """torch.erfc: erfc(x) for x >= 0, 2 - erfc(-x) (in the result's type) for x < 0."""
    if x.dtype == np.float32:
        c = calerf(np.abs(x))[1].astype(x.dtype)
    elif not EXTENDED or x.dtype not in _WIDE:
        return calerf(x)[1].astype(x.dtype, copy=False)
    else:
        c = _abs_parts(x)[1].astype(x.dtype).reshape(x.shape)
    with np.errstate(all="ignore"):
        return np.where(x < 0, x.dtype.type(2) - c, c)


def erfinv(y):
    """torch.erfinv of a float array."""
    x0 = _erfinv_estimate(y)
    if not EXTENDED or y.dtype not in _WIDE:
        return x0.astype(y.dtype, copy=False)
    a = np.abs(np.asarray(y, np.float64).reshape(-1))
    x = np.abs(x0.reshape(-1)).astype(_L)
    ok = np.isfinite(x) & (a > 0) & (a < 1)
    if ok.any():
        xa, aa = x[ok], a[ok]
        upper = aa > 0.5
        rest = (1.0 - aa).astype(_L)       # exact for |y| > 0.5
        with np.errstate(all="ignore"):
            for it in range(4):   # the estimate is poor next to 1: Newton on log(erfc) there, quadratic
                sel = upper if it >= 2 else np.ones_like(upper)   # two steps finish |y| <= 0.5
                xs = xa[sel]
                e2 = np.exp(-(xs * xs))
                erf_, erfc_ = _erf_erfc_abs(xs, e2)
                slope = _TWO_RSQRTPI * e2
                step = np.where(upper[sel], (np.log(rest[sel]) - np.log(erfc_)) * erfc_,
                                erf_ - aa[sel].astype(_L)) / slope
                xa[sel] = np.where(np.isfinite(step) & (e2 > 0), xs - step, xs)
        x[ok] = xa
    out = x.astype(y.dtype).reshape(y.shape)
    return np.where(ok.reshape(y.shape), np.where(np.signbit(y), -out, out), x0.astype(y.dtype))


# ---------------------------------------------------------------------------- double precision (CALERF)

# W. J. Cody's rational Chebyshev approximations (CALERF, Math. Comp. 1969): erf/erfc to double precision.
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


def calerf(x):
    """(erf(x), erfc(x)) in float64, elementwise; each range computed on its own elements only."""
    x = np.asarray(x, np.float64)
    shape = x.shape
    x = x.reshape(-1)
    y = np.abs(x)
    erf_ = np.empty_like(x)
    erfc_ = np.empty_like(x)
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
            erf_[small] = e
            erfc_[small] = 1.0 - e
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
            erf_[large] = np.where(neg, -e, e)
            erfc_[large] = np.where(neg, 2.0 - ec, ec)
        nan = np.isnan(x)
        erf_[nan] = np.nan
        erfc_[nan] = np.nan
    return erf_.reshape(shape), erfc_.reshape(shape)


_GILES_SMALL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                -0.00417768164, 0.246640727, 1.50140941)
_GILES_LARGE = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                0.00943887047, 1.00167406, 2.83297682)


def _erfinv_estimate(a):
    """M. Giles' approximation, then Newton steps on CALERF's double-precision erf (float64)."""
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
            d = (2.0 / np.sqrt(np.pi)) * np.exp(-x * x)
            step = (calerf(x)[0] - y) / d
            x = np.where((d > 0) & np.isfinite(step), x - step, x)
        x = np.where(y == 1.0, np.inf, np.where(y == -1.0, -np.inf, x))
        x = np.where(np.isnan(y) | (np.abs(y) > 1.0), np.nan, x)
    return np.asarray(x)
