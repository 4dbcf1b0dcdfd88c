"""The float32 Box-Muller of ATen's AVX2/AVX512 normal kernel (normal_fill_16_AVX2), fast and bit for bit.

Same arithmetic as rng_math.log256 / sincos256 (the readable reference, which tools/check_rng_math.py
compares this with over all 2**24 inputs of each function), reorganised for speed; every step below
was proved on that whole domain by the same check:

* the work runs over cache-sized chunks (_CHUNK values) in buffers kept between calls (fresh memory
  costs a page fault per 4 KiB here, about as much as ten passes over it; a call takes them out of
  the cache while it runs, so threads never share them), with `out=` everywhere;
* a fused multiply-add whose product is exact in float64 (two float32) is one float64 multiply and
  add, then the rounding to float32 done in place on the float64's bits: add half a float32 ulp to
  the magnitude and clear the 29 low bits (round half away from zero: the exact sums of these steps
  never land on a tie), two integer passes instead of a cast to float32 and back;
* a step whose results all lie in one binade [2**e, 2**(e+1)) rounds by adding and subtracting
  C = 1.5 * 2**(e + 29), whose float64 ulp is the float32 ulp of that binade: the addition, folded
  into the coefficient's (c + C is exact), rounds the exact sum once to the float32 grid (ties to
  even, as the FMA), so the step is three float64 passes (multiply, add, subtract): the cosine's
  and sine's first two Horner steps, the log's last;
* steps whose product is exact in float32 are plain float32 operations: sincos's first two range
  reduction steps (`j` has at most 4 bits, DP1/DP2 8 and 11), log's final `e*q2 + x` (`e` has at most
  5 bits, q2 9), the scaling by a power-of-two std;
* the octant `j` of theta = float32(2 pi) * k 2**-24 is 2 * ((k + 2**21) >> 22) (integer arithmetic;
  equal to the float32 computation for every k), and log256's exponent and mantissa split comes
  from the bits of float32(2**24 - k) in four integer passes;
* selections and sign flips are integer operations on the bits (np.where on a random mask costs
  ~10 ns an element here, 30 plain passes).
"""
from __future__ import annotations

import math

import numpy as np

from . import rng_math as M

_F32, _F64 = np.float32, np.float64
_CHUNK = 1 << 15  # values per chunk: 16,384 u1 and 16,384 u2 (measured against 2**14, 2**16, 2**17: fastest)


def _i(v):  # constants as 0-d arrays: a ufunc takes them ~150 ns faster than Python or NumPy scalars
    return np.array(v, np.int32)


def _s(v):
    return np.array(v, _F32)


def _d(v):
    return np.array(v, _F64)


def _magic(coeff, e):
    """(c + C, C) for a Horner step whose float32 results lie in [2**e, 2**(e + 1)): C = 1.5 * 2**(e + 29)
    has float64 ulp 2**(e - 23), that binade's float32 ulp; c lies in the same binade, so c + C is exact."""
    big = 1.5 * 2.0 ** (e + 29)
    c = float(coeff)
    assert c + big - big == c and 2.0 ** e <= abs(c) < 2.0 ** (e + 1)
    return _d(c + big), _d(big)


_LOG_P = [_d(v) for v in M.LOG_P]
_LOG_P8 = _magic(M.LOG_P[8], -2)
_LOG_P27 = tuple(_LOG_P[2:8])
# the cosine's and sine's Horner steps side by side (rows 0 and 1 of one array): both one binade a step
_CS_P0 = np.array([[M.COS_P[0]], [M.SIN_P[0]]], _F64)
_CS_P1 = [np.array([[a], [b]]) for a, b in zip(_magic(M.COS_P[1], -10), _magic(M.SIN_P[1], -7))]
_CS_P2 = [np.array([[a], [b]]) for a, b in zip(_magic(M.COS_P[2], -5), _magic(M.SIN_P[2], -3))]
_Q1, _Q2 = _s(M.LOG_Q1), _s(M.LOG_Q2)
_2DP0, _2DP1, _2DP2 = _s(2 * M.DP[0]), _s(2 * M.DP[1]), _d(2 * float(M.DP[2]))  # j * dp = q * (2 dp): exact
_TWO_PI_2M24 = _s(_F32(2.0 * math.pi) * _F32(2.0 ** -24))
_SQHF_BITS = int(np.array(M.SQRTHF, _F32).view(np.int32))
_SQ24 = _i(_SQHF_BITS + (24 << 23))       # float32(K) is u1 * 2**24: the exponent 24 higher
_SQHF = _i(_SQHF_BITS)
_ONE, _M_HALF, _M_TWO, _M_HALF_D = _s(1), _s(-0.5), _s(-2), _d(-0.5)
_I1, _I2, _I22, _I23, _I30, _2P21, _2P24, _MANT = (_i(v) for v in (1, 2, 22, 23, 30, 1 << 21, 1 << 24, 0x7FFFFF))
_HALF_ULP = np.array(1 << 28, np.int64)   # half a float32 ulp, in float64 bits
_CLEAR = np.array(~((1 << 29) - 1), np.int64)
_U32 = np.array(32, np.uint64)
_TIE_LOW = np.iinfo(np.int64).min         # bits << 35 of a float64 exactly on a float32 tie


class Buffers:
    """The scratch of one chunk (m values of u1, m of u2), named by what the kernels keep in them."""
    __slots__ = ("m", "k1", "k2", "ia", "ib", "ic", "x", "z", "y", "a", "e", "radius", "sc", "xd", "yd", "csd",
                 "yb", "csb", "sc64", "xd64")

    def __init__(self, m):
        self.m = m
        self.k1, self.k2, self.ia, self.ib, self.ic = (np.empty(m, np.int32) for _ in range(5))
        self.x, self.z, self.y, self.a, self.e, self.radius = (np.empty(m, _F32) for _ in range(6))
        self.sc = np.empty((2, m), _F32)       # rows: sin, cos (then r sin, r cos)
        self.xd, self.yd = np.empty(m, _F64), np.empty(m, _F64)
        self.csd = np.empty((2, m), _F64)      # rows: the cosine and the sine polynomial
        self.yb, self.csb = self.yd.view(np.int64), self.csd.view(np.int64)  # their bits, for _round32
        self.sc64, self.xd64 = self.sc.reshape(-1).view(np.uint64), self.xd.view(np.uint64)  # pair rotation


_kept = {}


def _take(m):
    """Buffers for m values: the ones kept from an earlier call of that size when there are (taken out of
    the cache while in use, so a second thread drawing at the same time gets its own), else new."""
    B = _kept.pop(m, None)
    return B if B is not None else Buffers(m)


def _give_back(B):
    if len(_kept) >= 2:  # the last two sizes (a draw's whole chunks and its ragged 16)
        _kept.clear()
    _kept[B.m] = B


def _round32(b):
    """Round the float64 whose bits are the int64 array b, in place, to float32 precision (half away
    from zero; see the module's note)."""
    b += _HALF_ULP
    b &= _CLEAR


def log_radius(k1, radius, B):
    """radius = sqrt(-2 * log256(u1)) for u1 = 1 - k1 2**-24 (k1 int32 below 2**24; float32 out)."""
    x32, z32, y32, a32, e32, ei = B.x, B.z, B.y, B.a, B.e, B.ia
    xd, yd, yb = B.xd, B.yd, B.yb
    np.subtract(_2P24, k1, out=ei)                      # K = 2**24 - k: u1 = K 2**-24
    np.copyto(a32, ei, casting="unsafe")                # exact
    bits = a32.view(np.int32)
    bits -= _SQ24                                       # D = bits(u1) - bits(sqrt(1/2)) (positive floats order as ints)
    np.right_shift(bits, _I23, out=ei)                  # e = floor(D / 2**23): exponent + 1 - (m < sqrt(1/2))
    np.copyto(e32, ei, casting="unsafe")
    bits &= _MANT
    bits += _SQHF                                       # m' = m, or 2m where m < sqrt(1/2): in [sqrt(1/2), sqrt(2))
    np.subtract(a32, _ONE, out=x32)                     # x = m' - 1, exact
    np.multiply(x32, x32, out=z32)                      # z = x * x
    np.copyto(xd, x32)
    np.multiply(xd, _LOG_P[0], out=yd)                  # y = fma(...fma(fma(p0, x, p1), x, p2)..., x, p8)
    yd += _LOG_P[1]
    _round32(yb)
    for c in _LOG_P27:
        yd *= xd
        yd += c
        _round32(yb)
    yd *= xd
    yd += _LOG_P8[0]                                    # the last step's results lie in [1/4, 1/2)
    yd -= _LOG_P8[1]
    np.copyto(y32, yd, casting="unsafe")                # exact: a float32 value
    y32 *= x32                                          # y = y * x: in float32 (x may have few bits: ties)
    np.copyto(yd, y32)
    yd *= z32                                           # y = fma(y, z, e * q1): the product exact in float64
    np.multiply(e32, _Q1, out=a32)
    yd += a32
    np.copyto(y32, yd, casting="unsafe")
    np.multiply(z32, _M_HALF, out=a32)
    y32 += a32                                          # y = y - z * 0.5
    x32 += y32                                          # x = x + y
    e32 *= _Q2                                          # fma(e, q2, x): e * q2 is exact in float32
    x32 += e32
    x32 *= _M_TWO
    np.sqrt(x32, out=radius)


def sincos(k2, sin_out, cos_out, B):
    """(sin, cos) of sincos256(float32(2 pi) * u2) for u2 = k2 * 2**-24 (k2 int32 below 2**24)."""
    x32, z32, y32, a32, q, swap = B.x, B.z, B.y, B.a, B.ib, B.ic
    xd, zd, csd = B.xd, B.yd, B.csd
    cd, sd = csd
    np.add(k2, _2P21, out=q)
    q >>= _I22                                          # j = 2q: the octant, rounded up to even
    np.copyto(x32, k2, casting="unsafe")
    x32 *= _TWO_PI_2M24                                 # theta = 2 pi u2 = (2 pi 2**-24) k2: exact scaling
    np.copyto(y32, q, casting="unsafe")
    np.multiply(y32, _2DP0, out=a32)                    # exact products: plain float32 adds
    x32 += a32
    np.multiply(y32, _2DP1, out=a32)
    x32 += a32
    np.multiply(q, _2DP2, out=cd)                       # x = fma(j, dp3, x) through float64
    np.add(cd, x32, out=xd)
    np.copyto(x32, xd, casting="unsafe")
    np.copyto(xd, x32)
    np.multiply(x32, x32, out=z32)
    np.copyto(zd, z32)
    np.multiply(zd, _CS_P0, out=csd)                    # c = fma(fma(c0, z, c1), z, c2), s likewise
    csd += _CS_P1[0]
    csd -= _CS_P1[1]
    csd *= zd
    csd += _CS_P2[0]
    csd -= _CS_P2[1]
    csd *= zd                                           # c = c * z, s = s * z
    _round32(B.csb)
    sd *= xd                                            # s = fma(s, x, x)
    sd += xd
    c32, s32 = cos_out, sin_out                         # (scratch until the end)
    np.copyto(s32, sd, casting="unsafe")
    cd *= zd                                            # c = fma(c, z, -(z * 0.5)): z * 0.5 is exact
    np.multiply(zd, _M_HALF_D, out=xd)
    cd += xd
    np.copyto(c32, cd, casting="unsafe")
    c32 += _ONE
    # octant j = 2q: the sine polynomial gives sin where q is even, else cos; the polynomial that gives
    # sin is negated where j & 4 (q & 2), the one that gives cos where (j + 2) & 4 ((q + 1) & 2): the
    # cosine polynomial's sign is q & 2 wherever it goes, the sine's (q + 1) & 2. On the bits, no branches
    sb, cb, t = s32.view(np.int32), c32.view(np.int32), y32.view(np.int32)
    np.bitwise_and(q, _I2, out=t)
    t <<= _I30
    cb ^= t
    np.bitwise_and(q, _I1, out=swap)
    np.negative(swap, out=swap)                         # -1 where q is odd: sin and cos trade polynomials
    q += _I1
    q &= _I2
    q <<= _I30
    sb ^= q
    ob = a32.view(np.int32)
    np.bitwise_xor(sb, cb, out=ob)
    ob &= swap
    sb ^= ob
    cb ^= ob


def _scale_shift(v, std32, mean32, B):
    """v = fma(v, std, mean) in place, float32, exactly. A power-of-two std (within 2**+-60: |v| lies in
    [1e-14, 8] or is 0) scales exactly, so the FMA is one float32 add; otherwise the product is exact in
    float64 and the sum rounded once there; where that lands on a float32 tie (the bits below float32's
    are 1000...0, seen as the minimum of those bits shifted to the top), the sum's rounding error
    (TwoSum) says whether the tie is real (kept: the float32 rounding breaks it to even, as the FMA
    does) or the exact sum lies to one side of it (moved one float64 ulp that way)."""
    if std32 == 1:  # fma(v, 1, mean) is v + mean, one rounding (and -0 + 0 is +0, as there)
        v += mean32
        return
    if M.exact_scale(std32):
        v *= std32
        v += mean32
        return
    std, mean = _d(std32), _d(mean32)
    for row in v.reshape(-1, B.m):
        t, low = B.xd, B.yd.view(np.int64)
        np.copyto(t, row)
        t *= std
        t += mean
        np.left_shift(t.view(np.int64), 35, out=low)
        if low.min() == _TIE_LOW:
            np.bitwise_and(t.view(np.int64), ~_CLEAR, out=low)
            ties = np.flatnonzero(low == 1 << 28)
            st = t[ties]
            p = row[ties].astype(_F64)
            p *= std
            bb = st - p
            err = (p - (st - bb)) + (mean - bb)
            off = err != 0
            if off.any():
                t[ties[off]] = np.nextafter(st[off], np.copysign(np.inf, err[off]))
        np.copyto(row, t, casting="unsafe")


def normal_blocks(d, mean, std):
    """normal_fill_16_AVX2 over d (float32 uniforms k * 2**-24, k*16 of them, blocks of 16 in order)."""
    k = np.multiply(d, _F32(2.0 ** 24)).astype(np.int32)
    pos = [0]

    def draw(count):
        pos[0] += count
        return k[pos[0] - count:pos[0]]
    return normal_words(draw, k.size, mean, std)


def normal_words(draw, n, mean, std, out=None, swapped=False):
    """normal_fill_16_AVX2 over n uniforms (n a multiple of 16) whose 24-bit integers k (int32, u = k *
    2**-24) draw(count) returns in order, a chunk at a time: slots 0-7 of each block of 16 get
    fma(r*cos, std, mean), slots 8-15 fma(r*sin, std, mean), u1 = 1 - u[0:8], u2 = u[8:16]. Written
    into out (float32, n contiguous) when given. swapped: draw gives each pair of words in the other
    order (as the halves of 64-bit draws lie in memory, `rng_ops.words24_pairs`): every value is then
    computed in its pair's other slot, and the pairs are swapped back (a 32-bit rotation) before the
    values are written."""
    if out is None:
        out = np.empty(n, _F32)
    std32, mean32 = _F32(std), _F32(mean)
    m = 0
    held = []
    try:
        for i in range(0, n, _CHUNK):
            size = min(_CHUNK, n - i)
            if size != 2 * m:
                m = size // 2
                B = _take(m)
                held.append(B)
                k1, k2, radius, sc = B.k1, B.k2, B.radius, B.sc
            kv = draw(size).view("V32").reshape(-1, 2)  # 8 values a block half: one 32-byte item
            np.copyto(k1.view("V32"), kv[:, 0])
            np.copyto(k2.view("V32"), kv[:, 1])
            log_radius(k1, radius, B)
            sincos(k2, sc[0], sc[1], B)
            sc *= radius
            _scale_shift(sc, std32, mean32, B)
            if swapped:
                w, t = B.sc64, B.xd64
                np.right_shift(w, _U32, out=t)
                w <<= _U32
                w |= t
            res = out[i:i + size].view("V32").reshape(-1, 2)
            np.copyto(res[:, 0], sc[1].view("V32"))   # r cos to slots 0-7, r sin to 8-15
            np.copyto(res[:, 1], sc[0].view("V32"))
    finally:
        for B in held:
            _give_back(B)
    return out
