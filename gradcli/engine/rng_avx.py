"""The float32 Box-Muller of ATen's AVX2/AVX512 normal kernel (normal_fill_16_AVX2), fast and bit for bit.

Same arithmetic as rng_math.log256 / sincos256 (the readable reference, which tools/check_rng_math.py
compares this with over all 2**24 inputs of each function), reorganised for speed:

* the work runs over cache-sized chunks (_CHUNK values) in preallocated buffers with `out=`, so every
  pass over the data stays in L1/L2;
* the fused multiply-adds that must be exact go through float64 (the product of two float32 is exact
  there, and the sum of these polynomial steps is too: see rng_math.fma32_untied), four passes each;
* the ones whose product is exact in float32 are plain float32 adds: sincos's first two range
  reduction steps (`j` has at most 3 bits, DP1/DP2 8 and 11) and log's final `e*q2 + x` (`e` has at
  most 5 bits, q2 9);
* the log's input is never 0 (u1 = 1 - k 2**-24 >= 2**-24), so its clamp to FLT_MIN is dropped; the
  selections and sign flips are integer operations on the bits (np.where and masked ufuncs cost
  10-15 ns an element on random masks, 30 times a plain pass).
"""
from __future__ import annotations

import math

import numpy as np

from . import rng_math as M

_F32, _F64 = np.float32, np.float64
_CHUNK = 1 << 15  # values per chunk: 16,384 u1 and 16,384 u2; the ~20 buffers of that stay in L2


def _i(v):  # constants as 0-d arrays: a ufunc takes them ~150 ns faster than Python or NumPy scalars
    return np.array(v, np.int32)


def _s(v):
    return np.array(v, _F32)


def _d(v):
    return np.array(v, _F64)


_LOG_P = [_d(v) for v in M.LOG_P]
_COS_P = [_d(v) for v in M.COS_P]
_SIN_P = [_d(v) for v in M.SIN_P]
_Q1, _Q2 = _s(M.LOG_Q1), _s(M.LOG_Q2)
_DP0, _DP1, _DP2 = _s(M.DP[0]), _s(M.DP[1]), _d(M.DP[2])
_TWO_PI_2M24 = _s(_F32(2.0 * math.pi) * _F32(2.0 ** -24))
_SQRTHF_BITS = _i(np.array(M.SQRTHF, _F32).view(np.int32))
_ONE, _HALF, _M_HALF, _M_TWO, _2M24 = _s(1), _s(0.5), _s(-0.5), _s(-2), _s(2.0 ** -24)
_I1, _I2, _I4, _I23, _I29, _I31, _I126, _NOT1 = (_i(v) for v in (1, 2, 4, 23, 29, 31, 126, ~1))
_MANT, _HALF_EXP, _2P24 = _i(0x007FFFFF), _i(0x3F000000), _i(1 << 24)
_LOW29, _TIE = np.array(0x1FFFFFFF, np.int64), np.array(0x10000000, np.int64)  # float64 bits below float32's


class Buffers:
    __slots__ = ("f32", "f64", "i32")

    def __init__(self, m):
        self.f32 = [np.empty(m, _F32) for _ in range(8)]
        self.f64 = [np.empty(m, _F64) for _ in range(4)]
        self.i32 = [np.empty(m, np.int32) for _ in range(3)]


def _horner(y32, yd, xd, coeffs):
    """y = fma(...fma(fma(c0, x, c1), x, c2)..., x, cn) in float32 with exact fused steps, in place in
    yd (float64; touching fewer buffers is ~20% faster than a separate product); result in y32."""
    np.multiply(xd, coeffs[0], out=yd)
    yd += coeffs[1]
    for c in coeffs[2:]:
        np.copyto(y32, yd, casting="unsafe")             # rounded to float32
        np.copyto(yd, y32)
        yd *= xd
        yd += c
    np.copyto(y32, yd, casting="unsafe")


def log_radius(u1, radius, B):
    """radius = sqrt(-2 * log256(u1)) for u1 in [2**-24, 1] (float32, contiguous)."""
    x32, z32, y32, a32 = B.f32[0], B.f32[1], B.f32[2], B.f32[3]
    xd, zd, yd = B.f64[:3]
    bits, e_i, neg = B.i32
    ub = u1.view(np.int32)
    np.right_shift(ub, _I23, out=e_i)                      # biased exponent (u1 > 0)
    np.bitwise_and(ub, _MANT, out=bits)
    bits |= _HALF_EXP                                   # mantissa m in [0.5, 1), as float32 bits
    np.subtract(bits, _SQRTHF_BITS, out=neg)
    neg >>= _I31                                           # -1 where m < sqrt(1/2) (positive floats order as ints)
    e_i += neg                                           # e = exponent + 1 - (m < sqrt(1/2))
    e_i -= _I126
    np.copyto(a32, e_i, casting="unsafe")                # e, a small integer, as float32
    e32 = a32
    neg <<= _I23
    bits -= neg                                          # m doubled where m < sqrt(1/2): exact
    np.subtract(bits.view(_F32), _ONE, out=x32)       # x = m - 1 + (m if m < sqrt(1/2))
    np.multiply(x32, x32, out=z32)                       # z = x * x
    np.copyto(xd, x32)
    _horner(y32, yd, xd, _LOG_P)
    y32 *= x32                                           # y = y * x
    np.copyto(yd, y32)
    np.copyto(zd, z32)
    yd *= zd                                             # y = fma(y, z, e * q1)
    np.multiply(e32, _Q1, out=radius)                    # (radius as scratch)
    yd += radius
    np.copyto(y32, yd, casting="unsafe")
    z32 *= _HALF
    y32 -= z32                                           # y = y - z * 0.5
    x32 += y32                                           # x = x + y
    e32 *= _Q2                                           # fma(e, q2, x): e * q2 is exact in float32
    x32 += e32
    x32 *= _M_TWO
    np.sqrt(x32, out=radius)


def sincos(k2, sin_out, cos_out, B):
    """(sin, cos) of sincos256(float32(2 pi) * u2) for u2 = k2 * 2**-24 (k2 int32 below 2**24)."""
    x32, z32, c32, s32, y32, a32 = B.f32[0], B.f32[1], B.f32[2], B.f32[3], B.f32[4], B.f32[5]
    xd, zd, yd = B.f64[:3]
    j, oct_ = B.i32[0], B.i32[1]
    np.copyto(x32, k2, casting="unsafe")
    x32 *= _TWO_PI_2M24                                  # theta = 2 pi u2 = (2 pi 2**-24) k2: exact scaling
    np.multiply(x32, M.FOPI, out=y32)
    np.copyto(j, y32, casting="unsafe")                  # truncation (theta >= 0)
    j += _I1
    j &= _NOT1
    np.copyto(y32, j, casting="unsafe")                  # y = j as float
    np.multiply(y32, _DP0, out=a32)                    # exact products: plain float32 adds
    x32 += a32
    np.multiply(y32, _DP1, out=a32)
    x32 += a32
    np.multiply(y32, _DP2, out=yd)                       # x = fma(y, dp3, x) through float64
    yd += x32
    np.copyto(x32, yd, casting="unsafe")
    np.multiply(x32, x32, out=z32)
    np.copyto(zd, z32)
    _horner(c32, yd, zd, _COS_P)                      # c = fma(fma(c0, z, c1), z, c2)
    c32 *= z32
    np.copyto(yd, c32)
    yd *= zd                                             # c = fma(c, z, -(z * 0.5)): z * 0.5 is exact
    np.multiply(z32, _M_HALF, out=a32)
    yd += a32
    np.copyto(c32, yd, casting="unsafe")
    c32 += _ONE
    _horner(s32, yd, zd, _SIN_P)                      # s = fma(fma(s0, z, s1), z, s2)
    s32 *= z32
    np.copyto(yd, s32)
    np.copyto(xd, x32)
    yd *= xd                                             # s = fma(s, x, x)
    yd += xd
    np.copyto(s32, yd, casting="unsafe")
    # octant j: the sine polynomial gives sin where j & 2 == 0, else cos; sin is negated where j & 4,
    # cos where (j + 2) & 4 (j in 0, 2, 4, 6, 8). Selected and signed on the bits: exact, no branches
    sb, cb, ob = s32.view(np.int32), c32.view(np.int32), a32.view(np.int32)
    np.bitwise_and(j, _I2, out=oct_)
    oct_ >>= _I1
    oct_ -= _I1                                            # -1 where j & 2 == 0
    np.bitwise_xor(sb, cb, out=ob)
    ob &= oct_
    sin_bits, cos_bits = sin_out.view(np.int32), cos_out.view(np.int32)
    np.bitwise_xor(cb, ob, out=sin_bits)                 # s where j & 2 == 0, else c
    np.bitwise_xor(sb, ob, out=cos_bits)
    np.bitwise_and(j, _I4, out=oct_)
    oct_ <<= _I29
    sin_bits ^= oct_
    j += _I2
    j &= _I4
    j <<= _I29
    cos_bits ^= j


def _scale_shift(v, std, mean, B):
    """v = fma(v, std, mean) in place, float32, exactly (std, mean: 0-d float64 arrays holding the
    float32 values): the product is exact in float64 and the sum rounded once there; where that lands
    on a float32 tie, the sum's rounding error (TwoSum) says whether the tie is real (kept: the
    float32 rounding breaks it to even, as the FMA does) or the exact sum lies to one side of it
    (moved one float64 ulp that way)."""
    t = B.f64[0]
    low = B.f64[1].view(np.int64)
    tie = B.f64[2].view(bool)[:v.size]
    np.copyto(t, v)
    t *= std
    t += mean
    np.bitwise_and(t.view(np.int64), _LOW29, out=low)
    np.equal(low, _TIE, out=tie)
    if tie.any():
        ties = np.flatnonzero(tie)
        st = t[ties]
        p = v[ties].astype(_F64)
        p *= std
        bb = st - p
        err = (p - (st - bb)) + (mean - bb)
        off = err != 0
        if off.any():
            t[ties[off]] = np.nextafter(st[off], np.copysign(np.inf, err[off]))
    np.copyto(v, t, casting="unsafe")


def normal_blocks(d, mean, std):
    """normal_fill_16_AVX2 over d (float32 uniforms k * 2**-24, k*16 of them, blocks of 16 in order)."""
    k = np.multiply(d, _F32(2.0 ** 24)).astype(np.int32)
    pos = [0]

    def draw(count):
        pos[0] += count
        return k[pos[0] - count:pos[0]]
    return normal_words(draw, k.size, mean, std)


def normal_words(draw, n, mean, std, out=None):
    """normal_fill_16_AVX2 over n uniforms (n a multiple of 16) whose 24-bit integers k (int32, u = k *
    2**-24) draw(count) returns in order, a chunk at a time: slots 0-7 of each block of 16 get
    fma(r*cos, std, mean), slots 8-15 fma(r*sin, std, mean), u1 = 1 - u[0:8], u2 = u[8:16]. Written
    into out (float32, n contiguous) when given."""
    if out is None:
        out = np.empty(n, _F32)
    std32, mean32 = _F32(std), _F32(mean)
    std_d, mean_d = _d(std32), _d(mean32)
    m = 0
    for i in range(0, n, _CHUNK):
        size = min(_CHUNK, n - i)
        if size != 2 * m:
            m = size // 2
            B = Buffers(m)
            k1, k2 = np.empty(m, np.int32), np.empty(m, np.int32)
            u1, radius, sin, cos = (np.empty(m, _F32) for _ in range(4))
        kv = draw(size).view("V32").reshape(-1, 2)      # 8 values a block half: one 32-byte item
        np.copyto(k1.view("V32"), kv[:, 0])
        np.copyto(k2.view("V32"), kv[:, 1])
        np.subtract(_2P24, k1, out=k1)                  # u1 = 1 - k 2**-24 = (2**24 - k) 2**-24: exact
        np.copyto(u1, k1, casting="unsafe")
        u1 *= _2M24
        log_radius(u1, radius, B)
        sincos(k2, sin, cos, B)
        cos *= radius
        sin *= radius
        for v in (cos, sin):
            if std32 == 1:  # fma(v, 1, mean) is v + mean, one rounding (and -0 + 0 is +0, as there)
                v += mean32
            else:
                _scale_shift(v, std_d, mean_d, B)
        res = out[i:i + size].view("V32").reshape(-1, 2)
        np.copyto(res[:, 0], cos.view("V32"))
        np.copyto(res[:, 1], sin.view("V32"))
    return out
