"""The C library's own math functions over NumPy arrays, in a C loop where NumPy offers one.

PyTorch's scalar random kernels call glibc's `log`, `log1p`, `sin`, `cos`, `exp`, `tan` (double) and
`logf`, `cosf`, `sinf`, `log1pf` (float). NumPy's own SIMD loops for several of these are not glibc's
(float64 `log` differs in 0.35% of inputs here, `log1p` 7%, `exp` 5%). Its ufunc loops fall back to
the plain element loop, which calls the C library's function (`npy_log` is `log`), when the input
runs backwards in memory: `np.log(x[::-1])` is glibc's `log` at C speed (6 ns an element, against
120 ns through Python's `math`). That is NumPy's behaviour, not its promise, so each function is
checked once per process against the per-element call (`math.<name>`, or the C float function via
ctypes) on 4,096 probe values before the fast loop is trusted; where they differ (another NumPy,
another CPU) the per-element call is used. tools/check_rng_libm.py sweeps millions of inputs, and
tests/test_random_live.py compares whole draws with torch."""
from __future__ import annotations

import math

import numpy as np

_F32 = np.float32
_F64 = np.float64

# where each function's probes lie: the ranges the random kernels and the losses feed them
_DOMAIN = {"log": (2.0 ** -60, 4.0), "log1p": (-1.0 + 2.0 ** -40, 3.0), "sin": (-7.0, 7.0),
           "cos": (-7.0, 7.0), "tan": (-1.6, 1.6), "exp": (-40.0, 40.0),
           # and the float32 hyperbolic functions ATen's scalar loops call (ops/special_unary.py)
           "sinh": (-12.0, 12.0), "cosh": (-12.0, 12.0), "asinh": (-100.0, 100.0), "acosh": (1.0, 100.0),
           "atanh": (-0.999, 0.999)}
_PROBES = 4096
_fast_ok = {}
_slow = {}


def _probe_values(name, dtype):
    lo, hi = _DOMAIN[name]
    frac = (np.arange(1, _PROBES + 1, dtype=_F64) * 0.6180339887498949) % 1.0  # spread, deterministic
    x = lo + (hi - lo) * frac ** 3 if name in ("log", "log1p") else lo + (hi - lo) * frac
    return x.astype(dtype)


def _reversed_call(name, x):
    """np.<name> over x (contiguous, 1-D) read backwards: NumPy's element loop, i.e. the C function."""
    with np.errstate(all="ignore"):
        return getattr(np, name)(x[::-1])[::-1]


def _slow_fn(name, dtype):
    key = (name, dtype)
    f = _slow.get(key)
    if f is None:
        if dtype == _F64:
            f = np.frompyfunc(getattr(math, name), 1, 1)
        else:
            f = _c_float_function(name + "f")
            if f is None:  # no C library to call: the double function, rounded
                f = np.frompyfunc(getattr(math, name), 1, 1)
        _slow[key] = f
    return f


def _fast(name, dtype):
    key = (name, dtype)
    ok = _fast_ok.get(key)
    if ok is None and not hasattr(np, name):  # no NumPy loop to borrow (erf): the per-element call
        ok = _fast_ok[key] = False
    if ok is None:
        probe = _probe_values(name, dtype)
        want = np.asarray(_slow_fn(name, dtype)(probe.astype(_F64)), _F64).astype(dtype)
        got = _reversed_call(name, probe)
        ok = _fast_ok[key] = bool(np.array_equal(want.view(f"u{want.itemsize}"), got.view(f"u{got.itemsize}")))
    return ok


def libm(name, x):
    """The C library's double `name` over an array, as the C code calls it per element. Inputs must lie
    in the function's domain where the per-element fallback (Python's math) is used."""
    x = np.asarray(x, _F64)
    if x.size == 0:
        return x.copy()
    if _fast(name, _F64):
        flat = np.ascontiguousarray(x).reshape(-1)
        return _reversed_call(name, flat).reshape(x.shape)
    return _slow_fn(name, _F64)(x).astype(_F64)


def libm_f32(name, x):
    """The C library's float `name` (logf, log1pf, ...) over a float32 array, as ATen's scalar loops
    call std::log(float): glibc's float functions are not always correctly rounded, so the double
    function rounded to float differs on some inputs (0.7% for logf, 7% for log1pf). NumPy's element
    loop calls them for log1pf; logf, sinf and cosf are glibc's own algorithm vectorised (see
    `logf`, `sincosf`); the rest go through ctypes per element (about 0.3 us each)."""
    base = name[:-1]
    x = np.asarray(x, _F32)
    if x.size == 0:
        return x.copy()
    if name == "logf" and _glibc_float_ok("logf"):
        return logf(x).reshape(x.shape)  # ascontiguousarray makes a 0-d array 1-d
    if name in ("sinf", "cosf") and _glibc_float_ok("sincosf"):
        return sincosf(x)[name == "cosf"].reshape(x.shape)
    if _fast(base, _F32):
        flat = np.ascontiguousarray(x).reshape(-1)
        return _reversed_call(base, flat).reshape(x.shape)
    return _call_f32(name, x)


def libm_f32_sincos(x):
    """(sinf(x), cosf(x)) of the C library over a float32 array (one reduction for both)."""
    x = np.asarray(x, _F32)
    if x.size and _glibc_float_ok("sincosf"):
        s, c = sincosf(x)
        return s.reshape(x.shape), c.reshape(x.shape)
    return libm_f32("sinf", x), libm_f32("cosf", x)


def _call_f32(name, x):
    """The per-element call of the C float function (Python's math, rounded, without a C library)."""
    return np.asarray(_slow_fn(name[:-1], _F32)(x.astype(_F64)), _F64).astype(_F32)


# ---------------------------------------------------------------------------- glibc's logf, sinf, cosf
# glibc 2.28+ (sysdeps/ieee754/flt-32: e_logf.c and e_logf_data.c, s_sinf.c, s_cosf.c, s_sincosf.h and
# s_sincosf_data.c; ARM's optimized-routines) computes these in double and rounds once to float. The
# same double arithmetic here gives the same double up to the fused multiply-adds of glibc's FMA
# build (x86-64 picks it where the CPU has FMA): a few double ulps of the result. The reduction's fused
# `x - n * pi/2`, whose error could be large relative to a tiny result, is emulated exactly. So the
# float rounding is glibc's wherever the double lies farther than _SLACK double ulps from a float32
# rounding midpoint; the rare elements closer (about 2**-16 of them) and the inputs outside the paths
# emulated (subnormal, negative, huge, not finite) are computed by the C function itself. Whether the
# C library is this algorithm at all is checked once per process on probes (_glibc_float_ok, 1,024
# inputs a function family): a libm that is not (another C library, glibc 2.41's correctly rounded
# logf) keeps the per-element call.

_SLACK = 1 << 12  # double ulps; the FMA build differs by at most ~64 (logf's z * invc - 1 for |y| >= 0.02)
_HEX = float.fromhex
_LOGF_INVC = np.array([_HEX(v) for v in (
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0", "0x1.3c995b0b80385p+0",
    "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0", "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0",
    "0x1.0953f419900a7p+0", "0x1p+0", "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1",
    "0x1.b2036576afce6p-1", "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1")])
_LOGF_LOGC = np.array([_HEX(v) for v in (
    "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2", "-0x1.b31d8a68224e9p-3",
    "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3", "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4",
    "-0x1.252f438e10c1ep-5", "0x0p+0", "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4",
    "0x1.526e57720db08p-3", "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2")])
_LOGF_LN2 = _HEX("0x1.62e42fefa39efp-1")
_LOGF_A = [_HEX(v) for v in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")]
_HPI_INV = _HEX("0x1.45f306dc9c883p+23")  # 2/pi * 2**24 (x86-64 has no round-to-int intrinsics there)
_HPI = _HEX("0x1.921fb54442d18p0")
_HPI_HI = _HEX("0x1.921fb54p0")          # 27 bits: n * _HPI_HI is exact, and so is x minus it (Sterbenz)
_HPI_LO = _HPI - _HPI_HI                  # exact; n * _HPI_LO exact too: x - n * hpi rounded once, as fma
_COS_C = [_HEX(v) for v in ("0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5", "-0x1.6c087e89a359dp-10",
                            "0x1.99343027bf8c3p-16")]
_SIN_S = [_HEX(v) for v in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")]


def _round_with_fallback(y, x, name, hard):
    """float32(y), with the C function `name` at x where `hard` or where y lies within _SLACK double ulps
    of a float32 rounding midpoint (the float32 rounding of glibc's double may differ there)."""
    low = y.view(np.int64) & 0x1FFFFFFF
    low -= 0x10000000 - _SLACK
    hard |= (low >= 0) & (low <= 2 * _SLACK)
    out = y.astype(_F32)
    if hard.any():
        out[hard] = _call_f32(name, x[hard])
    return out


def logf(x):
    """glibc's logf over a float32 array (e_logf.c, vectorised; see the note above)."""
    x = np.ascontiguousarray(x, _F32)
    ix = x.view(np.uint32)
    tmp = ix - np.uint32(0x00800000)
    hard = tmp >= np.uint32(0x7F800000 - 0x00800000)     # <= 0, subnormal, inf, nan: the C function
    np.subtract(ix, np.uint32(0x3F330000), out=tmp)      # x = 2**k z, z in [OFF, 2 OFF]
    i = tmp >> np.uint32(19)
    i &= np.uint32(15)
    k = tmp.view(np.int32) >> np.int32(23)
    tmp &= np.uint32(0xFF800000)
    np.subtract(ix, tmp, out=tmp)
    r = tmp.view(_F32).astype(_F64)                       # z
    t = _LOGF_INVC.take(i)
    with np.errstate(all="ignore"):
        r *= t
        r -= 1.0                                          # log(x) = log1p(z/c - 1) + log(c) + k ln2
        y0 = _LOGF_LOGC.take(i)
        np.multiply(k, _LOGF_LN2, out=t)
        y0 += t                                           # y0 = logc + k ln2
        y0 += r
        r2 = np.multiply(r, r, out=t)
        y = r * _LOGF_A[1]
        y += _LOGF_A[2]
        np.multiply(r2, _LOGF_A[0], out=r)
        y += r                                            # y = A0 r2 + (A1 r + A2)
        y *= r2
        y += y0                                           # y = y r2 + (y0 + r)
    return _round_with_fallback(y, x, "logf", hard)


def sincosf(x):
    """(glibc's sinf, glibc's cosf) over a float32 array (s_sinf.c, s_cosf.c, vectorised; see above)."""
    x = np.ascontiguousarray(x, _F32)
    top = x.view(np.uint32) >> np.uint32(20)
    top &= np.uint32(0x7FF)
    hard = top >= 0x42F                                   # |x| >= 120, inf, nan: reduce_large, the C code
    tiny = top < 0x398                                    # |x| < 2**-12: sin x = x, cos x = 1
    xd = x.astype(_F64)
    with np.errstate(all="ignore"):
        r = xd * _HPI_INV
        r[hard] = 0
        n = r.astype(np.int32)
        n += 0x800000
        n >>= 24                                          # the quadrant (0 for |x| < pi/4)
        nd = np.multiply(n, -_HPI_HI, out=r)              # reduce_fast: fma(-n, hpi, x)
        xd += nd
        np.multiply(n, _HPI_LO, out=nd)
        xd -= nd
        x2 = np.multiply(xd, xd, out=nd)
        sign = n + 1                                      # sign[n & 3] = +, -, -, +: 1 - ((n + 1) & 2)
        sign &= 2
        np.subtract(1, sign, out=sign)
        xd *= sign                                        # x * sign: the sine polynomial is odd
        x3 = xd * x2
        s1 = x2 * _SIN_S[2]
        s1 += _SIN_S[1]
        x7 = x3 * x2
        x3 *= _SIN_S[0]
        x3 += xd
        x7 *= s1
        s = np.add(x3, x7, out=xd)                        # the sine polynomial
        x4 = np.multiply(x2, x2, out=x3)
        c2 = np.multiply(x2, _COS_C[4], out=x7)
        c2 += _COS_C[3]
        c = np.multiply(x2, _COS_C[1], out=s1)
        c += _COS_C[0]
        x4 *= x2                                          # x6
        x4 *= c2
        np.multiply(x2, x2, out=c2)                       # x4 again
        c2 *= _COS_C[2]
        c += c2
        c += x4                                           # c = (c1 + x4 c2) + x6 c2'
    sign = n & 2                                          # __sincosf_table[1]: the cosine negated
    np.subtract(1, sign, out=sign)
    c *= sign
    swap = n & 1                                          # odd quadrants: sin and cos trade polynomials
    np.negative(swap, out=swap)
    sb, cb = s.view(np.int64), c.view(np.int64)
    ob = sb ^ cb
    ob &= swap
    sin_d, cos_d = (sb ^ ob).view(_F64), (cb ^ ob).view(_F64)
    sin = _round_with_fallback(sin_d, x, "sinf", hard.copy())
    cos = _round_with_fallback(cos_d, x, "cosf", hard)
    if tiny.any():
        sin[tiny] = x[tiny]
        cos[tiny] = 1
    return sin, cos


_glibc_checked = {}
_GLIBC_PROBES = 1024  # glibc 2.41's correctly rounded logf differs from this one on ~0.7% of inputs


def _glibc_float_ok(kind="logf"):
    """Whether the vectorised logf (kind "logf") or sinf/cosf ("sincosf") give the C library's bits
    here: checked once per process on probes (spread over the kernels' domains and beyond) against
    the per-element call."""
    ok = _glibc_checked.get(kind)
    if ok is None:
        ok = _c_float_function("logf") is not None
        if ok:
            frac = (np.arange(1, _GLIBC_PROBES + 1, dtype=_F64) * 0.6180339887498949) % 1.0
            if kind == "logf":
                pos = (2.0 ** (frac * 40 - 30)).astype(_F32)
                ok = np.array_equal(logf(pos).view(np.int32), _call_f32("logf", pos).view(np.int32))
            else:
                ang = ((frac - 0.5) * 200).astype(_F32)
                s, c = sincosf(ang)
                ok = np.array_equal(s.view(np.int32), _call_f32("sinf", ang).view(np.int32)) \
                    and np.array_equal(c.view(np.int32), _call_f32("cosf", ang).view(np.int32))
        ok = _glibc_checked[kind] = bool(ok)
    return ok


def _c_float_function(cname):
    try:
        import ctypes  # noqa: PLC0415
        fn = getattr(ctypes.CDLL(None), cname)  # the process's own C library (Python links libm)
    except (OSError, AttributeError, ImportError):
        return None
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float]
    return np.frompyfunc(fn, 1, 1)


def fast_loops():
    """{function: True/False}: which C functions run in NumPy's element loop here (after their check)."""
    return {f"{n}{'f' if d == _F32 else ''}": _fast(n, d) for n in _DOMAIN for d in (_F64, _F32)}
