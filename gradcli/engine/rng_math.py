"""The arithmetic of PyTorch's CPU random kernels, by CPU capability, emulated bit for bit in NumPy.

ATen compiles its kernels once per capability (DEFAULT, AVX2, AVX512) and picks one at run time
from cpuid, lowered by ATEN_CPU_CAPABILITY; `capability()` does the same. What differs between
them is float32 arithmetic: the AVX2/AVX512 builds contract `a*b + c` into fused multiply-adds and
run the float32 Box-Muller of 16-element blocks through the 8-wide Cephes `log256_ps` and
`sincos256_ps` of ATen/native/cpu/avx_mathfun.h (AVX512 runs the same AVX2 code: measured
identical); the DEFAULT build rounds every product and calls glibc's logf/cosf/sinf.

A float32 fused multiply-add is emulated exactly: the product of two float32 is exact in float64,
the sum is rounded once to float64 and, where that rounding lands on a float32 tie, nudged toward
the exact sum (its TwoSum error), so the final rounding to float32 is the single rounding of the FMA.
Plain float32 +, -, *, sqrt run in NumPy's float32, which is IEEE. The C library's log, sin, cos, ...
come from rng_libm.py."""
from __future__ import annotations

import math
import os

import numpy as np

from .rng_libm import libm, libm_f32, libm_f32_sincos

CAPABILITIES = ("default", "avx2", "avx512")
_override = [None]
_detected = [None]


def _detect() -> str:
    """What ATen's cpuinfo check finds: AVX512 needs avx512f/bw/vl/dq (and fma), AVX2 needs avx2+fma."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
            else:
                return "default"
    except OSError:
        return "default"
    if {"avx2", "fma"} <= flags:
        if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
            return "avx512"
        return "avx2"
    return "default"


def detected() -> str:
    if _detected[0] is None:
        _detected[0] = _detect()
    return _detected[0]


def capability() -> str:
    """The capability whose kernels run: set_capability's, else ATEN_CPU_CAPABILITY's, never above
    what the CPU has."""
    cap = _override[0] or os.environ.get("ATEN_CPU_CAPABILITY", "").strip().lower() or detected()
    if cap not in CAPABILITIES:
        cap = detected()
    hw = detected()
    return cap if CAPABILITIES.index(cap) <= CAPABILITIES.index(hw) else hw


def set_capability(cap):
    """Engine override (tests; None restores detection). May name a capability above the CPU's: the
    arithmetic is emulated, so every path runs anywhere."""
    if cap is not None and cap not in CAPABILITIES:
        raise ValueError(f"unknown CPU capability {cap!r}; expected one of {', '.join(CAPABILITIES)}")
    _override[0] = cap
    if cap is not None and CAPABILITIES.index(cap) > CAPABILITIES.index(detected()):
        _detected[0] = cap  # emulating a wider CPU: lift the ceiling for this process
    elif cap is None:
        _detected[0] = None


def fused() -> bool:
    return capability() != "default"


# ---------------------------------------------------------------------------- exact fused multiply-add

_F32 = np.float32
_F64 = np.float64


_CHUNK = 1 << 15  # elements per pass of the emulations: their float64 temporaries stay in the CPU's cache


def fma32(a, b, c):
    """float32 fma(a, b, c), exactly (see the module's note on ties); a, b, c float32 arrays or scalars."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    n = int(np.prod(shape))
    if n <= _CHUNK:
        return _fma32(a, b, c)
    a, b, c = (np.broadcast_to(v, shape).reshape(-1) for v in (a, b, c))
    out = np.empty(n, _F32)
    for i in range(0, n, _CHUNK):
        out[i:i + _CHUNK] = _fma32(a[i:i + _CHUNK], b[i:i + _CHUNK], c[i:i + _CHUNK])
    return out.reshape(shape)


def fma32_untied(a, b, c):
    """fma32 without the tie check: exact where no float64 rounding of a*b + c can land on a float32
    tie. The polynomial steps of log256/sincos256 are such (their operands are multiples of 2**-24
    with few bits: the exact sum fits in 53 bits), checked over all 2**24 inputs each by
    tools/check_rng_math.py."""
    s = np.multiply(a, b, dtype=_F64)
    s += c
    return s.astype(_F32)


def _fma32(a, b, c):
    s = np.multiply(a, b, dtype=_F64)
    s += c
    bits = s.view(np.int64) if isinstance(s, np.ndarray) else np.array(s).view(np.int64)
    low = bits & 0x1FFFFFFF
    if (low == 0x10000000).any():  # a float32 tie after the float64 rounding: round toward the exact sum
        s = np.array(s, _F64)
        idx = np.nonzero(low == 0x10000000)
        p = np.multiply(np.broadcast_to(a, s.shape)[idx], np.broadcast_to(b, s.shape)[idx], dtype=_F64)
        cs, ss = np.broadcast_to(np.asarray(c, _F64), s.shape)[idx], s[idx]
        bb = ss - p
        err = (p - (ss - bb)) + (cs - bb)
        s[idx] = np.where(err == 0, ss, np.nextafter(ss, np.where(err > 0, np.inf, -np.inf)))
    return s.astype(_F32)


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's split of a double into two 26-bit halves


def fma64(a, b, c):
    """float64 fma(a, b, c): the product split (Dekker) and summed in longdouble-free two-sum steps;
    vectorised. Scalar b and c (the random kernels' scale and shift) take _fma64_scalar: the same
    operations in the same order, over cache-sized chunks in place."""
    if np.ndim(b) == 0 and np.ndim(c) == 0 and np.ndim(a) == 1 and np.size(a) > 64:
        return _fma64_scalar(np.asarray(a, _F64), float(b), float(c))
    a = np.asarray(a, _F64)
    b = np.asarray(b, _F64)
    c = np.asarray(c, _F64)
    p = a * b
    # exact product error via Veltkamp/Dekker splitting
    ah = a * _SPLIT
    ah = ah - (ah - a)
    al = a - ah
    bh = b * _SPLIT
    bh = bh - (bh - b)
    bl = b - bh
    pe = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    se = (p - (s - bb)) + (c - bb)
    return s + _round_to_odd_sum(se, pe)


def _round_to_odd_sum(x, y):
    """x + y rounded to odd (Boldo and Melquiond): an inexact sum takes the neighbour with an odd last
    bit, so the final s + u rounds as the exact a*b + c does (a plain sum could leave a false tie, e.g.
    for a c far below the product's ulp, as `uniform_(1e-265, 1.5)` has)."""
    u = x + y
    bb = u - x
    err = (x - (u - bb)) + (y - bb)
    fix = (err != 0) & ((np.asarray(u).view(np.int64) & 1) == 0)
    if fix.any():
        u = np.where(fix, np.nextafter(u, np.where(err > 0, np.inf, -np.inf)), u)
    return u


def _fma64_scalar(a, b, c):
    bh = b * _SPLIT  # Python floats are IEEE doubles: the split of b is the array code's, done once
    bh = bh - (bh - b)
    bl = b - bh
    out = np.empty(a.size, _F64)
    m = min(_CHUNK, a.size)
    p, ah, al, t = (np.empty(m, _F64) for _ in range(4))
    for i in range(0, a.size, _CHUNK):
        x = a[i:i + _CHUNK]
        k = x.size
        if k < m:
            p, ah, al, t = p[:k], ah[:k], al[:k], t[:k]
        np.multiply(x, b, out=p)
        np.multiply(x, _SPLIT, out=ah)                   # ah = ah - (ah - x)
        np.subtract(ah, x, out=t)
        ah -= t
        np.subtract(x, ah, out=al)
        pe = out[i:i + k]                                 # pe = ((ah*bh - p) + ah*bl + al*bh) + al*bl
        np.multiply(ah, bh, out=pe)
        pe -= p
        np.multiply(ah, bl, out=t)
        pe += t
        np.multiply(al, bh, out=t)
        pe += t
        al *= bl
        pe += al
        np.add(p, c, out=ah)                              # s = p + c (in ah)
        np.subtract(ah, p, out=al)                        # bb = s - p (in al)
        np.subtract(ah, al, out=t)                        # se = (p - (s - bb)) + (c - bb)
        np.subtract(p, t, out=t)
        np.subtract(c, al, out=al)
        t += al
        out[i:i + k] = _round_to_odd_sum(t, pe)           # s + RO(se + pe)
        out[i:i + k] += ah
    return out


def exact_scale(std32):
    """Whether v * std is exact in float32 for every normal sample v: std a power of two within
    2**+-60 (|v| lies in [1e-14, 8] or is 0), so fma(v, std, mean) is a float32 multiply and add."""
    m, _ = math.frexp(float(std32))
    return m == 0.5 and 2.0 ** -60 <= float(std32) <= 2.0 ** 60


def mul_add(x, scale, shift, dtype):
    """`x * scale + shift` as the selected capability computes it: fused there, two roundings in DEFAULT."""
    if dtype == _F32:
        if fused():
            return fma32(x, _F32(scale), _F32(shift))
        return (x * _F32(scale) + _F32(shift)).astype(_F32)
    if fused():
        return fma64(x, scale, shift)
    return x * scale + shift


def uniform_transform(k, width, start, out, scratch):
    """float32 `u * width + start` of uniform_real for u = k * 2**-24 (k: int32 below 2**24), into out
    (float32); fused where the build fuses. scratch: a float64 array of k's size.

    u * width is k * (width 2**-24), the scaling exact, so it is one multiply of k. Fused: with start
    0 that is the whole FMA (one rounding); else the product is exact in float64 (24 + 24 bits) and
    the sum needs no tie check when start is within 2**-26..8 times width (then the exact sum fits in
    53 bits: u * width has at most 48 bits from 2**-47 * width up; Linear's and Conv's symmetric
    bounds are 0.5); otherwise the exact fma32. Unfused (DEFAULT): the product rounded, then the sum."""
    if width != 0 and abs(width) < 2.0 ** -100:  # width 2**-24 would lose bits: the plain way
        u = k.astype(_F32)
        u *= _F32(2.0 ** -24)
        if fused():
            out[...] = fma32(u, _F32(width), _F32(start))
        else:
            np.multiply(u, _F32(width), out=out)
            out += _F32(start)
        return out
    w = _F32(width) * _F32(2.0 ** -24)
    np.copyto(out, k, casting="unsafe")  # k < 2**24: exact as float32
    if not fused():
        out *= w
        out += _F32(start)
        return out
    if start == 0:
        out *= w
        return out
    wa, s0 = abs(float(width)), abs(float(start))
    if wa > 0 and 2.0 ** -26 * wa <= s0 <= 8 * wa:
        np.multiply(out, float(w), out=scratch, dtype=_F64)  # a Python float alone would keep float32
        scratch += float(start)
        np.copyto(out, scratch, casting="unsafe")
        return out
    out[...] = fma32(out, w, _F32(start))
    return out


# ---------------------------------------------------------------------------- avx_mathfun.h, 8-wide float32

def _c(v):
    return _F32(v)


LOG_P = [_c(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                          1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
LOG_Q1 = _c(-2.12194440e-4)
LOG_Q2 = _c(0.693359375)
SQRTHF = _c(0.707106781186547524)
FOPI = _c(1.27323954473516)
DP = [_c(-0.78515625), _c(-2.4187564849853515625e-4), _c(-3.77489497744594108e-8)]
SIN_P = [_c(-1.9515295891E-4), _c(8.3321608736E-3), _c(-1.6666654611E-1)]
COS_P = [_c(2.443315711809948E-005), _c(-1.388731625493765E-003), _c(4.166664568298827E-002)]
_HALF = _c(0.5)
_ONE = _c(1.0)


_fm = fma32_untied  # the polynomial steps (see fma32_untied); tools/check_rng_math.py sets it to fma32


def log256(x):
    """log256_ps for positive normal float32 inputs, with the FMA build's contractions."""
    x = np.maximum(x, _F32(np.finfo(_F32).tiny))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F32) + _ONE
    x = ((bits & ~0x7F800000) | 0x3F000000).view(_F32)
    mask = x < SQRTHF
    tmp = np.where(mask, x, _F32(0))
    x = x - _ONE
    e = e - np.where(mask, _ONE, _F32(0))
    x = x + tmp
    z = x * x
    y = _fm(LOG_P[0], x, LOG_P[1])
    for p in LOG_P[2:]:
        y = _fm(y, x, p)
    y = y * x
    y = _fm(y, z, e * LOG_Q1)
    y = y - z * _HALF
    x = x + y
    return _fm(e, LOG_Q2, x)


def sincos256(x):
    """sincos256_ps for non-negative float32 inputs, with the FMA build's contractions: (sin, cos)."""
    y = x * FOPI
    j = y.astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F32)
    sin_neg = (j & 4) != 0
    poly = (j & 2) == 0
    cos_neg = (~(j - 2) & 4) != 0
    for dp in DP:
        x = _fm(y, dp, x)
    z = x * x
    c = _fm(COS_P[0], z, COS_P[1])
    c = _fm(c, z, COS_P[2])
    c = c * z
    c = _fm(c, z, -(z * _HALF))
    c = c + _ONE
    s = _fm(SIN_P[0], z, SIN_P[1])
    s = _fm(s, z, SIN_P[2])
    s = s * z
    s = _fm(s, x, x)
    sin = np.where(poly, s, c)
    cos = np.where(poly, c, s)
    return np.where(sin_neg, -sin, sin), np.where(cos_neg, -cos, cos)


# ---------------------------------------------------------------------------- the 16-element normal blocks

_TWO_PI_F32 = _F32(2.0 * math.pi)


fast_avx = [True]  # the fused float32 blocks through rng_avx (False: the reference code here; the checks)


def box_muller_blocks(d, mean, std, dtype, out=None):
    """NormalFill16 over `d` (k*16 uniforms in `dtype`, blocks of 16 in order): slots 0-7 of each
    block get r*cos, slots 8-15 r*sin, with u1 = 1 - d[0:8], u2 = d[8:16]. Written into out (contiguous,
    float64 for double, else float32) when given."""
    if dtype == _F32 and fused() and fast_avx[0]:
        from .rng_avx import normal_blocks  # noqa: PLC0415 - rng_avx builds on this module
        res = normal_blocks(d, mean, std)
        if out is None:
            return res
        out[...] = res
        return out
    d = np.ascontiguousarray(d)
    if out is None:
        out = np.empty(d.size, _F64 if dtype == _F64 else _F32)
    for i in range(0, d.size, _CHUNK):
        _box_muller(d[i:i + _CHUNK], mean, std, dtype, out[i:i + _CHUNK])
    return out


def _block_halves(d):
    """(d[0:8], d[8:16]) of every block of 16, each contiguous: 8 values as one void item, so NumPy
    copies 32- or 64-byte items (a 2-D copy with rows of 8 costs ~5 times as much)."""
    v = d.view(f"V{8 * d.itemsize}").reshape(-1, 2)
    return np.ascontiguousarray(v[:, 0]).view(d.dtype), np.ascontiguousarray(v[:, 1]).view(d.dtype)


def _box_muller(d, mean, std, dtype, res):
    first, u2 = _block_halves(d)
    u1 = 1 - first
    if dtype == _F32 and fused():
        radius = np.sqrt(_F32(-2) * log256(u1))
        sin, cos = sincos256(_TWO_PI_F32 * u2)
        n1, n2 = radius * cos, radius * sin
        if _F32(std) == 1:  # fma(n, 1, mean) is n + mean, one rounding (-0 + 0 is +0, as torch's fmadd gives)
            out1, out2 = n1 + _F32(mean), n2 + _F32(mean)
        else:
            out1 = fma32(n1, _F32(std), _F32(mean))
            out2 = fma32(n2, _F32(std), _F32(mean))
    elif dtype == _F32:
        radius = libm_f32("logf", u1)
        radius *= _F32(-2)
        np.sqrt(radius, out=radius)
        theta = u2.astype(_F64)
        theta *= 2.0 * math.pi
        sin, cos = libm_f32_sincos(theta.astype(_F32))
        cos *= radius
        sin *= radius
        if _F32(std) == 1 or exact_scale(_F32(std)):  # fma(n, std, mean) is n * std + mean, one rounding
            out1, out2 = cos, sin
            for v in (cos, sin):
                if _F32(std) != 1:
                    v *= _F32(std)
                v += _F32(mean)
        else:
            out1 = fma32(cos, _F32(std), _F32(mean))
            out2 = fma32(sin, _F32(std), _F32(mean))
    else:
        u1 = u1.astype(_F64)
        radius = np.sqrt(-2 * libm("log", u1))
        theta = 2.0 * math.pi * u2.astype(_F64)
        out1, out2 = radius * libm("cos", theta), radius * libm("sin", theta)
        if std == 1:  # fma(v, 1, mean) is v + mean, one rounding
            out1 += mean
            out2 += mean
        else:
            out1, out2 = fma64(out1, std, mean), fma64(out2, std, mean)
    rv = res.view(f"V{8 * res.itemsize}").reshape(-1, 2)
    rv[:, 0] = np.ascontiguousarray(out1, res.dtype).view(rv.dtype)
    rv[:, 1] = np.ascontiguousarray(out2, res.dtype).view(rv.dtype)
