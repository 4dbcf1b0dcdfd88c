"""SLEEF's vectorised pow (``Sleef_powf8_u10``/``Sleef_powf16_u10``, ``Sleef_powd4_u10``/``Sleef_powd8_u10``),
emulated bit for bit in NumPy.

ATen's ``Vectorized<float>::pow`` and ``Vectorized<double>::pow`` call these (AVX2: 8 floats / 4 doubles,
AVX512: 16 / 8). SLEEF computes ``exp(y * log|x|)`` in double-float (double-double) arithmetic built
from fused multiply-adds (``ENABLE_FMA_SP``/``ENABLE_FMA_DP`` in both builds; SLEEF compiles with
``-ffp-contract=off``, so every other product and sum is rounded on its own). The code below follows
``xpowf``/``logkf``/``expkf`` of src/libm/sleefsimdsp.c and ``xpow``/``logk``/``expk`` of sleefsimddp.c,
with df.h/dd.h's FMA variants; the AVX512 build takes log's exponent and mantissa from ``getexp`` /
``getmant`` instead of bit manipulation. A fused multiply-add is emulated exactly
(``rng_math.fma32``/``fma64``). Each function takes arrays of one shape and returns a new array.
"""
from __future__ import annotations

import numpy as np

from .rng_math import fma32, fma64

_F32, _F64 = np.float32, np.float64
_I32, _I64 = np.int32, np.int64


def _c(v):
    return _F32(v)


# ---------------------------------------------------------------------------- double-float / double-double
# helpers (df.h / dd.h with ENABLE_FMA_SP / ENABLE_FMA_DP): the same code serves float32 and float64

def _fma(a, b, c):
    """fma(a, b, c) in the operands' precision (float32 or float64), exactly."""
    if np.result_type(a, b, c) == _F32:
        return fma32(a, b, c)
    r = fma64(a, b, c)
    nan = np.isnan(r)
    if not nan.any():
        return r
    plain = a * b + c   # where Dekker's split overflows (a factor above 2**996): the product is 0 or inf
    return np.where(nan & ~np.isnan(plain), plain, r)


def _fms(a, b, c):           # vfmapn: a*b - c, fused
    return _fma(a, b, -c)


def _fnma(a, b, c):          # vfmanp: -a*b + c, fused
    return _fma(-a, b, c)


def _df_add2_ff(x, y):
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _df_add2_f2f(xx, xy, y):
    s = xx + y
    v = s - xx
    t = (xx - (s - v)) + (y - v)
    return s, t + xy


def _df_add2_f2f2(xx, xy, yx, yy):
    s = xx + yx
    v = s - xx
    t = (xx - (s - v)) + (yx - v)
    return s, t + (xy + yy)


def _df_add_f2f2(xx, xy, yx, yy):
    s = xx + yx
    return s, (((xx - s) + yx) + xy) + yy


def _df_add_ff2(x, yx, yy):
    s = x + yx
    return s, ((x - s) + yx) + yy


def _df_mul_f2f(xx, xy, y):
    s = xx * y
    return s, _fma(xy, y, _fms(xx, y, s))


def _df_mul_f2f2(xx, xy, yx, yy):
    s = xx * yx
    return s, _fma(xx, yy, _fma(xy, yx, _fms(xx, yx, s)))


def _df_squ(xx, xy):
    s = xx * xx
    return s, _fma(xx + xx, xy, _fms(xx, xx, s))


def _df_div(nx, ny, dx, dy):
    one = dx.dtype.type(1)
    t = one / dx
    s = nx * t
    u = _fms(t, nx, s)
    v = _fnma(dy, t, _fnma(dx, t, one))
    return s, _fma(s, v, _fma(ny, t, u))


# ---------------------------------------------------------------------------- float32 integer helpers

def _rint_i32_f(u):
    """cvtps2dq: round to nearest even; out of range or NaN gives INT_MIN."""
    ok = (u >= -2.0 ** 31) & (u < 2.0 ** 31)
    return np.where(ok, np.rint(np.where(ok, u, 0)), -2.0 ** 31).astype(_I32)


def _bits_f(v):
    return v.view(_I32)


def _from_bits_f(b):
    return np.asarray(b, _I32).view(_F32)


def _mulsign_f(a, b):
    """vmulsign: a with its sign bit xor-ed with b's."""
    return _from_bits_f(_bits_f(np.asarray(a, _F32)) ^ (_bits_f(np.asarray(b, _F32)) & _I32(-2 ** 31)))


def _ldexp_f(x, q):
    """vldexp_vf_vf_vi2: x * 2**q in steps, as sleefsimdsp.c does (int32 wrap-around)."""
    q = q.astype(_I32)
    m = q >> 31
    m = (((m + q) >> 6) - m) << 4
    q = q - (m << 2)
    m = m + 127
    m = np.where(m > 0, m, 0).astype(_I32)
    m = np.where(m > 255, 255, m).astype(_I32)
    u = _from_bits_f(m << 23)
    x = ((x * u) * u) * u * u
    u = _from_bits_f((q + 127) << 23)
    return x * u


def _exp_mant_f(d, avx512):
    """log's split of d > 0 into 2**e * m, m in [0.75, 1.5): (e as float32, m)."""
    if avx512:
        p = d * _c(1.0 / 0.75)
        _, ex = np.frexp(p)
        e = np.where(p == 0, -np.inf, (ex - 1).astype(_F32)).astype(_F32)
        e = np.where(np.isinf(p), _F32(128), np.where(np.isnan(p), p, e)).astype(_F32)
        mant, _ = np.frexp(d)                      # getmant, interval [0.75, 1.5)
        s = mant * _F32(2)
        m = np.where(s >= _F32(1.5), mant, s).astype(_F32)
    else:
        o = d < _c(np.finfo(_F32).tiny)
        d = np.where(o, d * _c(2.0 ** 64), d).astype(_F32)
        ei = ((_bits_f(d * _c(1.0 / 0.75)) >> 23) & 0xFF) - 0x7F
        m = _from_bits_f(_bits_f(d) + ((-ei) << 23))
        e = np.where(o, ei - 64, ei).astype(_I32).astype(_F32)
    return e, m


def _logkf(d, avx512):
    e, m = _exp_mant_f(d, avx512)
    x = _df_div(*_df_add2_ff(_F32(-1), m), *_df_add2_ff(_F32(1), m))
    x2 = _df_squ(*x)
    t = fma32(_c(0.240320354700088500976562), x2[0], _c(0.285112679004669189453125))
    t = fma32(t, x2[0], _c(0.400007992982864379882812))
    s = _df_mul_f2f(_c(0.69314718246459960938), _c(-1.904654323148236017e-09), e)
    s = _df_add_f2f2(*s, x[0] * _F32(2), x[1] * _F32(2))
    a = _df_mul_f2f2(*x2, *x)
    b = _df_add2_f2f2(*_df_mul_f2f(*x2, t), _c(0.66666662693023681640625), _c(3.69183861259614332084311e-09))
    return _df_add_f2f2(*s, *_df_mul_f2f2(*a, *b))


_L2Uf, _L2Lf = _c(0.693145751953125), _c(1.428606765330187045e-06)
_R_LN2f = _c(1.442695040888963407359924681001892137426645954152985934135449406931)


def _expkf(dx, dy):
    u = (dx + dy) * _R_LN2f
    q = _rint_i32_f(u)
    qf = q.astype(_F32)
    s = _df_add2_f2f(dx, dy, qf * -_L2Uf)
    s = _df_add2_f2f(*s, qf * -_L2Lf)
    sx = s[0] + s[1]
    s = sx, (s[0] - sx) + s[1]
    u = _c(0.00136324646882712841033936)
    for k in (0.00836596917361021041870117, 0.0416710823774337768554688, 0.166665524244308471679688,
              0.499999850988388061523438):
        u = fma32(u, s[0], _c(k))
    t = _df_add_f2f2(*s, *_df_mul_f2f(*_df_squ(*s), u))
    t = _df_add_ff2(_F32(1), *t)
    u = _ldexp_f(t[0] + t[1], q)
    return np.where(dx < _F32(-104), _F32(0), u).astype(_F32)


_BLOCK = 8192   # elements per pass: the emulations' many temporaries stay in the CPU's cache


def _blocked(fn, x, y, dt, avx512):
    """fn over x, y (broadcast, flattened) in cache-sized blocks, in x's and y's common shape."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    x = np.broadcast_to(np.asarray(x, dt), shape).reshape(-1)
    y = np.broadcast_to(np.asarray(y, dt), shape).reshape(-1)
    if x.size <= _BLOCK:
        return fn(x, y, avx512).reshape(shape)
    out = np.empty(x.size, dt)
    for i in range(0, x.size, _BLOCK):
        out[i:i + _BLOCK] = fn(x[i:i + _BLOCK], y[i:i + _BLOCK], avx512)
    return out.reshape(shape)


def powf(x, y, avx512):
    """Sleef_powf16_u10 (avx512=True) or Sleef_powf8_u10 (AVX2) of float32 arrays x, y (one shape)."""
    return _blocked(_powf, x, y, _F32, avx512)


def _powf(x, y, avx512):
    with np.errstate(all="ignore"):
        ay = np.abs(y)
        yisint = (np.trunc(y) == y) | (ay > _F32(1 << 24))
        yt = np.where(ay < _F32(2.0 ** 31), y, 0).astype(_I32)   # cvttps2dq (out of range: INT_MIN, even)
        yisodd = ((yt & 1) == 1) & yisint & (ay < _F32(1 << 24))
        lx = _logkf(np.abs(x), avx512)
        result = _expkf(*_df_mul_f2f(*lx, y))
        result = np.where(np.isnan(result), _F32(np.inf), result).astype(_F32)
        sign = np.where(x > 0, _F32(1), np.where(yisint, np.where(yisodd, _F32(-1), _F32(1)), _F32(np.nan)))
        result = (result * sign.astype(_F32)).astype(_F32)
        efx = _mulsign_f(np.abs(x) - _F32(1), y)
        yinf = np.where(efx < 0, _F32(0), np.where(efx == 0, _F32(1), _F32(np.inf))).astype(_F32)
        result = np.where(np.isinf(y), yinf, result).astype(_F32)
        xz = x == 0
        base = np.where(np.signbit(y) ^ xz, _F32(0), _F32(np.inf)).astype(_F32)
        xsel = np.where(yisodd, x, _F32(1)).astype(_F32)
        result = np.where(np.isinf(x) | xz, _mulsign_f(base, xsel), result).astype(_F32)
        result = np.where(np.isnan(x) | np.isnan(y), _from_bits_f(np.full(result.shape, -1, _I32)), result)
        return np.where((y == 0) | (x == 1), _F32(1), result).astype(_F32)


def expf(d):
    """Sleef_expf8_u10 / Sleef_expf16_u10 (xexpf; the AVX2 and AVX512 builds compute the same)."""
    d = np.asarray(d, _F32)
    if d.ndim != 1:
        return expf(d.reshape(-1)).reshape(d.shape)
    with np.errstate(all="ignore"):
        q = _rint_i32_f((d * _R_LN2f).astype(_F32))
        qf = q.astype(_F32)
        s = fma32(qf, -_L2Uf, d)
        s = fma32(qf, -_L2Lf, s)
        u = _c(0.000198527617612853646278381)
        for k in (0.00139304355252534151077271, 0.00833336077630519866943359, 0.0416664853692054748535156,
                  0.166666671633720397949219, 0.5):
            u = fma32(u, s, _c(k))
        u = _F32(1) + fma32(s * s, u, s)
        h = q >> 1                                    # vldexp2: two exact powers of two
        u = (u * _from_bits_f((h + 127) << 23)) * _from_bits_f((q - h + 127) << 23)
        u = np.where(d < _F32(-104), _F32(0), u)
        return np.where(_F32(100) < d, _F32(np.inf), u).astype(_F32)


def logf(d, avx512):
    """Sleef_logf8_u10 (AVX2) / Sleef_logf16_u10 (AVX512): xlogf_u1."""
    d = np.asarray(d, _F32)
    if d.ndim != 1:
        return logf(d.reshape(-1), avx512).reshape(d.shape)
    with np.errstate(all="ignore"):
        e, m = _exp_mant_f(d, avx512)
        s = _df_mul_f2f(_c(0.69314718246459960938), _c(-1.904654323148236017e-09), e)
        x = _df_div(*_df_add2_ff(_F32(-1), m), *_df_add2_ff(_F32(1), m))
        x2 = x[0] * x[0]
        t = fma32(_c(0.3027294874), x2, _c(0.3996108174))
        t = fma32(t, x2, _c(0.6666694880))
        s = _df_add_f2f2(*s, x[0] * _F32(2), x[1] * _F32(2))
        v = (x2 * x[0]) * t
        sx = s[0] + v
        r = sx + (((s[0] - sx) + v) + s[1])
        r = np.where(d == np.inf, _F32(np.inf), r)
        if avx512:   # vfixupimm: a NaN stays itself (quieted), a negative number gives the default NaN
            r = np.where(np.isnan(d), _from_bits_f(_bits_f(d) | 0x400000), r)
            r = np.where(d < 0, _from_bits_f(np.full(r.shape, -0x400000, _I32)), r)
        else:        # SLEEF_NANf
            r = np.where((d < 0) | np.isnan(d), _F32(np.nan), r)
        return np.where(d == 0, _F32(-np.inf), r).astype(_F32)


# ---------------------------------------------------------------------------- float64 (double-double)

def _poly4(x, x2, c3, c2, c1, c0):
    return _fma(x2, _fma(x, c3, c2), _fma(x, c1, c0))


def _poly8(x, x2, x4, c):
    return _fma(x4, _poly4(x, x2, *c[:4]), _poly4(x, x2, *c[4:]))


_LOG_C = (0.116255524079935043668677, 0.103239680901072952701192, 0.117754809412463995466069,
          0.13332981086846273921509, 0.153846227114512262845736, 0.181818180850050775676507,
          0.222222222230083560345903, 0.285714285714249172087875, 0.400000000000000077715612)
_EXP_C = (2.51069683420950419527139e-08, 2.76286166770270649116855e-07, 2.75572496725023574143864e-06,
          2.48014973989819794114153e-05, 0.000198412698809069797676111, 0.0013888888939977128960529,
          0.00833333333332371417601081, 0.0416666666665409524128449, 0.166666666666666740681535,
          0.500000000000000999200722)
_L2U, _L2L = .69314718055966295651160180568695068359375, .28235290563031577122588448175013436025525412068e-12
_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_LOG_DBL_MAX = float.fromhex("0x1.62e42fefa39efp+9")


def _logk(d, avx512):
    if avx512:
        p = d * (1.0 / 0.75)
        _, ex = np.frexp(p)
        e = np.where(p == 0, -np.inf, (ex - 1).astype(_F64))
        e = np.where(np.isinf(p), 1024.0, np.where(np.isnan(p), p, e))
        mant, _ = np.frexp(d)
        s = mant * 2.0
        m = np.where(s >= 1.5, mant, s)
    else:
        o = d < np.finfo(_F64).tiny
        d = np.where(o, d * 2.0 ** 64, d)
        ei = ((((d * (1.0 / 0.75)).view(_I64) >> 52) & 0x7FF) - 0x3FF).astype(_I64)
        m = (d.view(_I64) + ((-ei) << 52)).view(_F64)
        e = np.where(o, ei - 64, ei).astype(_F64)
    x = _df_div(*_df_add2_ff(-1.0, m), *_df_add2_ff(1.0, m))
    x2 = _df_squ(*x)
    x4 = x2[0] * x2[0]
    x8 = x4 * x4
    x16 = x8 * x8
    t = _fma(x16, _LOG_C[0], _poly8(x2[0], x4, x8, _LOG_C[1:]))
    s = _df_mul_f2f(0.693147180559945286226764, 2.319046813846299558417771e-17, e)
    s = _df_add_f2f2(*s, x[0] * 2.0, x[1] * 2.0)
    x = _df_mul_f2f2(*x2, *x)
    s = _df_add_f2f2(*s, *_df_mul_f2f2(*x, 0.666666666666666629659233, 3.80554962542412056336616e-17))
    x = _df_mul_f2f2(*x2, *x)
    return _df_add_f2f2(*s, *_df_mul_f2f(*x, t))


def _pow2i(k):
    return np.ldexp(1.0, np.clip(k, -1022, 1023).astype(np.int32))


def _expk(dx, dy):
    u = (dx + dy) * _R_LN2
    dq = np.rint(u)
    q = np.where(np.abs(dq) < 2.0 ** 31, dq, -2.0 ** 31).astype(_I64)
    s = _df_add2_f2f(dx, dy, dq * -_L2U)
    s = _df_add2_f2f(*s, dq * -_L2L)
    sx = s[0] + s[1]
    s = sx, (s[0] - sx) + s[1]
    s2 = s[0] * s[0]
    s4 = s2 * s2
    s8 = s4 * s4
    u = _fma(s8, _fma(s[0], _EXP_C[0], _EXP_C[1]), _poly8(s[0], s2, s4, _EXP_C[2:]))
    t = _df_add_ff2(1.0, *s)
    t = _df_add_f2f2(*t, *_df_mul_f2f(*_df_squ(*s), u))
    u = t[0] + t[1]
    h = q >> 1
    u = (u * _pow2i(h)) * _pow2i(q - h)
    return np.where(dx < -1000, 0.0, u)


def _mulsign_d(a, b):
    return (np.asarray(a, _F64).view(_I64) ^ (np.asarray(b, _F64).view(_I64) & _I64(-2 ** 63))).view(_F64)


def powd(x, y, avx512):
    """Sleef_powd8_u10 (avx512=True) or Sleef_powd4_u10 (AVX2) of float64 arrays x, y."""
    return _blocked(_powd, x, y, _F64, avx512)


def _powd(x, y, avx512):
    with np.errstate(all="ignore"):
        yisint = np.rint(y) == y
        yh = y * 0.5
        yisodd = (np.rint(yh) != yh) & yisint
        dx, dy = _df_mul_f2f(*_logk(np.abs(x), avx512), y)
        result = _expk(dx, dy)
        result = np.where(dx > _LOG_DBL_MAX, np.inf, result)
        sign = np.where(x > 0, 1.0, np.where(yisint, np.where(yisodd, -1.0, 1.0), np.nan))
        result = result * sign
        efx = _mulsign_d(np.abs(x) - 1.0, y)
        yinf = np.where(efx < 0, 0.0, np.where(efx == 0, 1.0, np.inf))
        result = np.where(np.isinf(y), yinf, result)
        xz = x == 0
        base = np.where(np.signbit(y) ^ xz, 0.0, np.inf)
        result = np.where(np.isinf(x) | xz, _mulsign_d(base, np.where(yisodd, x, 1.0)), result)
        result = np.where(np.isnan(x) | np.isnan(y), np.full(result.shape, -1, _I64).view(_F64), result)
        return np.where((y == 0) | (x == 1), 1.0, result)
