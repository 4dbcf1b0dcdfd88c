"""torch's float32 and float16 GELU (approximate='none') on the CPU, forward and backward, bit for bit.

torch takes one of two kernels (aten/src/ATen/native/Activation.cpp, `use_mkldnn`): a contiguous
float32 input of more than one element goes to oneDNN's eltwise `gelu_erf` (JIT code, chosen by
oneDNN's own ISA detection, not ATEN_CPU_CAPABILITY: the hardware's), anything else to ATen's
GeluKernelImpl/GeluBackwardKernelImpl (aten/src/ATen/native/cpu/Activation.cpp) through
cpu_kernel_vec: `Vectorized<float>::erf` (Abramowitz-Stegun 7.1.26 with SLEEF's expf) on the vector
body, glibc's erff/expf on the scalar tail, glibc everywhere under DEFAULT.

oneDNN 3.12 (jit_uni_eltwise_injector.cpp): below AVX-512 the same Abramowitz-Stegun form with
oneDNN's own exp polynomial, its multiply-adds fused from AVX2 up; on avx512_core a piecewise minimax
polynomial in |x| (25 pieces picked by the exponent and two mantissa bits). Its backward is the
Abramowitz-Stegun form on every ISA, times the incoming gradient. The constants below are oneDNN's
and ATen's bit patterns. Measured against torch 2.13 on AVX2 (tests/test_gelu_kernel.py); the
AVX-512 minimax path follows the source unmeasured.
"""
from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

from . import pow_kernel, sleef
from .rng_libm import libm_f32
from .rng_math import capability, detected, fma32

_F32 = np.float32


def _h(*bits):
    return np.array(bits, np.uint32).view(_F32)


_ONE, _HALF, _TWO = _F32(1), _F32(0.5), _F32(2)
_LN_MIN, _LN_MAX, _LOG2E, _LN2 = _h(0xC2AEAC50, 0x42B17218, 0x3FB8AA3B, 0x3F317218)
_EXP_POL = _h(0x3F7FFFFB, 0x3EFFFEE3, 0x3E2AAD40, 0x3D2B9D0D, 0x3C07CFCE)   # p1 .. p5
_AS_POL = _h(0x3E827906, 0xBE91A98E, 0x3FB5F0E3, 0xBFBA00E3, 0x3F87DC22)    # Abramowitz-Stegun p1 .. p5
_AS_P, _RSQRT2, _RSQRTPI = _h(0x3EA7BA05, 0x3F3504F3, 0x3F106EBA)
# the minimax pieces: _MINIMAX[d][i] is the degree-d coefficient of piece i
_MINIMAX = np.array([
    [0xa6f2cb94, 0x32827792, 0x3381cc0c, 0x34523d4a, 0x351ac44d, 0x35f36d88, 0x36ee8229, 0x37b8a3bb,
     0x3867a213, 0x3940033b, 0x3a2a5a1d, 0x3ae35863, 0x3b7828f2, 0x3c08b14b, 0x3c515ed3, 0xbb503236,
     0xbd8d8e5e, 0xbe8abcd9, 0xbf0c19a2, 0xbeccb328, 0x3e176ced, 0x3f470d99, 0x3f7abb28, 0x3f800000, 0],
    [0x3f4c422a, 0x3f4c421f, 0x3f4c4207, 0x3f4c41cb, 0x3f4c413b, 0x3f4c3fad, 0x3f4c3a2f, 0x3f4c2d40,
     0x3f4c146a, 0x3f4bc341, 0x3f4ad08c, 0x3f48f8cf, 0x3f45fac7, 0x3f404e07, 0x3f3b980f, 0x3f48dff3,
     0x3f78b21b, 0x3fbb0704, 0x40019c32, 0x3fe536d6, 0x3f81331e, 0x3e6c8684, 0x3c98f936, 0, 0x3f800000],
    [0xb62173f4, 0x3735e4cf, 0x37f2ff89, 0x388c23be, 0x3917535c, 0x39ab2ab0, 0x3a60fadb, 0x3af9b960,
     0x3b6e5491, 0x3c0a4ec5, 0x3ca5aa8c, 0x3d2138d9, 0x3d8737d4, 0x3ddfb660, 0x3e0f27ab, 0x3d94004b,
     0xbe0efdeb, 0xbf1d96c3, 0xbf89db58, 0xbf6d9897, 0xbef69fb8, 0xbdc4f8a8, 0xbbde6422, 0, 0],
    [0xbe081a19, 0xbe084570, 0xbe08639b, 0xbe089837, 0xbe08f409, 0xbe09ab95, 0xbe0b66d0, 0xbe0e400a,
     0xbe124df8, 0xbe1bde02, 0xbe2f19c9, 0xbe4931bf, 0xbe685fbc, 0xbe89c95f, 0xbe96cbca, 0xbe8044aa,
     0xbe0550f2, 0x3dcfd6a1, 0x3e94c826, 0x3e79345f, 0x3decec91, 0x3ca46568, 0x3aa1e00a, 0, 0],
    [0xba3d61db, 0x39f097a3, 0x3a5845dc, 0x3ab1fa35, 0x3b0cefb8, 0x3b653ab6, 0x3bcae527, 0x3c221712,
     0x3c6c5840, 0x3cc0a703, 0x3d1dcc19, 0x3d63656d, 0x3d955907, 0x3dbf9910, 0x3dd53f69, 0x3db7dcef,
     0x3d639ebe, 0xba6ede48, 0xbd22be69, 0xbd041cf1, 0xbc64f5ab, 0xbb097a32, 0xb8ebf380, 0, 0],
    [0x3cb7d80c, 0x3c9b6050, 0x3c978d11, 0x3c92e850, 0x3c8d058b, 0x3c848454, 0x3c6cd623, 0x3c4c824b,
     0x3c2a7935, 0x3be0b390, 0x3b0651ac, 0xbb232f53, 0xbbd42fa0, 0xbc2c5366, 0xbc492c9e, 0xbc2a7aa6,
     0xbbd55d04, 0xba823a76, 0x3b102aa8, 0x3ae25a7e, 0x3a31f792, 0x38b84375, 0x3689bb5a, 0, 0],
], np.uint32).view(_F32)
_MINIMAX_BIAS, _MINIMAX_RBOUND = np.int32(-0x3DE00001), _h(0x40B15CEE)[0]   # 0xc21fffff as int32

# ATen's constants: float(M_SQRT1_2) and float(M_2_SQRTPI * M_SQRT1_2 * 0.5)
_ATEN_ALPHA = _F32(math.sqrt(0.5))
_ATEN_BETA = _F32(2.0 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5)
# GeluKernelImpl's GELU_MIN_ELEMENTS_FOR_MULTI_THREADING: above it the forward's grain is numel / threads
_GELU_MT_MIN = 16384


def uses_onednn(x) -> bool:
    """torch's use_mkldnn for gelu/gelu_backward: a C-contiguous (size-1 dims aside) float32 array of
    more than one element."""
    if x.dtype != _F32 or x.size <= 1:
        return False
    expect = x.itemsize
    for n, st in zip(reversed(x.shape), reversed(x.strides)):
        if n != 1 and st != expect:
            return False
        expect *= n
    return True


def _fma(fused):
    return fma32 if fused else (lambda a, b, c: (a * b + c).astype(_F32))


def _dnnl_exp(v, fma):
    """oneDNN's exp_compute_vector_fwd: clamp, 2**(n-1) * p(r) * 2, zero below log(FLT_MIN)."""
    under = v < _LN_MIN
    v = np.where(v < _LN_MAX, v, _LN_MAX)        # vminps/vmaxps: a NaN takes the bound
    v = np.where(v > _LN_MIN, v, _LN_MIN)
    n = np.floor(v * _LOG2E + _HALF).astype(_F32)
    r = fma(-n, _LN2, v)
    p2 = (((n - _ONE).astype(np.int32) + 127) << 23).view(_F32)
    p2 = np.where(under, _F32(0), p2)
    y = _EXP_POL[4]
    for c in (_EXP_POL[3], _EXP_POL[2], _EXP_POL[1], _EXP_POL[0], _ONE):
        y = fma(y, r, c)
    return ((y * p2) * _TWO).astype(_F32)


def _as_erf(x, neg_exp, fma):
    """sign(x) * (1 - r(t) * t * exp(-x*x)), t = 1 / (p|x| + 1), given -exp(-x*x) (oneDNN's order)."""
    t = _ONE / fma(_AS_P, np.abs(x), _ONE)
    e = neg_exp * t
    r = _AS_POL[4]
    for c in (_AS_POL[3], _AS_POL[2], _AS_POL[1], _AS_POL[0]):
        r = fma(r, t, c)
    erf = fma(e, r, _ONE)
    return np.where(np.signbit(x), -erf, erf).astype(_F32)


def _dnnl_forward(s):
    isa = detected()
    if isa == "avx512":
        return _minimax_forward(s)
    fma = _fma(isa != "default")
    x = s * _RSQRT2
    erf = _as_erf(x, -_dnnl_exp(-(x * x), fma), fma)
    half = s * _HALF
    return fma(erf, half, half)


def _minimax_forward(s):
    pos = np.abs(s)
    idx = (pos.view(np.int32) + _MINIMAX_BIAS) >> 21
    idx = np.clip(idx, 1, 24)
    idx = np.where(_MINIMAX_RBOUND < pos, 23, idx)
    pol = _MINIMAX[5][idx]
    for d in range(4, -1, -1):
        pol = fma32(pol, pos, _MINIMAX[d][idx])
    pol = np.where(np.signbit(s), -pol, pol).astype(_F32)
    return ((s * (pol + _ONE)) * _HALF).astype(_F32)


def _dnnl_derivative(s):
    """gelu_erf_compute_vector_bwd: 0.5 + x/sqrt(pi) * exp(-x*x) + 0.5 * erf(x), x = s / sqrt(2)."""
    fma = _fma(detected() != "default")
    r = s * _RSQRT2
    q = _dnnl_exp(-(r * r), fma)
    t = (r * _RSQRTPI) * q
    erf = _as_erf(r, -q, fma)
    return fma(erf, _HALF, t + _HALF)


# ---------------------------------------------------------------------------- ATen's own kernel

def _vec_erf(v):
    """Vectorized<float>::erf (vec256/vec512_float.h): SLEEF's expf inside, the same on both widths."""
    t = _ONE / fma32(_AS_P, np.abs(v), _ONE)
    r = _AS_POL[4]
    for c in (_AS_POL[3], _AS_POL[2], _AS_POL[1], _AS_POL[0]):
        r = fma32(r, t, c)
    e = -sleef.expf(-(v * v))
    erf = fma32(e * t, r, _ONE)
    return np.where(np.signbit(v), -erf, erf).astype(_F32)


def _erff(v):
    return libm_f32("erff", v)


def _grain(numel):
    from .numerics import GRAIN_SIZE, NUM_THREADS  # noqa: PLC0415 - the count set_num_threads left
    return numel // NUM_THREADS if numel > _GELU_MT_MIN else GRAIN_SIZE


def _in_float(fn, dt):
    """A float16 kernel computes in float and rounds once (ATen's reduced-float branch); the vector
    plan stays the float16 array's (2 * 16 elements a block on AVX2)."""
    if dt == _F32:
        return fn
    return lambda *vs: fn(*(v.astype(_F32) for v in vs)).astype(dt)


def _aten_forward(x):
    def body(erf):
        return lambda v: (v * _HALF) * (_ONE + erf(v * _ATEN_ALPHA))
    vec = body(_erff if capability() == "default" else _vec_erf)
    return pow_kernel.unary_kernel(x, _in_float(vec, x.dtype), _in_float(body(_erff), x.dtype), grain=_grain(x.size))


def _aten_backward(g, x):
    def body(erf, exp, fma):
        def f(dy, v):
            cdf = _HALF * (_ONE + erf(v * _ATEN_ALPHA))
            pdf = _ATEN_BETA * exp((v * v) * _F32(-0.5))
            return dy * fma(v, pdf, cdf)
        return f
    # the compiler fuses the float vector body's cdf + x * pdf (measured), not the scalar lambda's nor the
    # float16 branch's (measured)
    scalar = body(_erff, pow_kernel.expf, _fma(False))
    vec = scalar if capability() == "default" else body(_vec_erf, sleef.expf, _fma(x.dtype == _F32))
    dt = x.dtype   # the backward passes no grain: GRAIN_SIZE's split
    return pow_kernel.nary_kernel((g, x), _in_float(vec, dt), _in_float(scalar, dt))


def gelu16(x):
    """gelu of a float16 array: ATen's kernel in float (oneDNN takes float16 only on CPUs with AVX512-FP16
    or AMX, which gradcli does not model)."""
    with np.errstate(all="ignore"):
        return _aten_forward(x)


def gelu_backward16(g, x):
    with np.errstate(all="ignore"):
        return _aten_backward(np.asarray(g, x.dtype), x)


def gelu32(x):
    """torch.nn.functional.gelu(x) of a float32 array (approximate='none')."""
    with np.errstate(all="ignore"):
        return _dnnl_forward(x) if uses_onednn(x) else _aten_forward(x)


_UNBATCHED_PRIMAL = [0]


@contextmanager
def batched_over_basis():
    """torch.func.jacfwd/jacrev's vmap over the basis: gelu_backward's gradient is batched, its primal
    x not, so vmap's batching rule hands ATen an expanded x (stride 0 over the batch: no oneDNN) and
    each basis vector's row is one contiguous run of ATen's kernel (measured). gradcli's loops over the
    basis compute under this context."""
    _UNBATCHED_PRIMAL[0] += 1
    try:
        yield
    finally:
        _UNBATCHED_PRIMAL[0] -= 1


def gelu_backward32(g, x):
    """gelu_backward(g, x) of float32 arrays (approximate='none'): oneDNN's derivative times g where
    torch calls oneDNN (x decides), ATen's kernel elsewhere."""
    with np.errstate(all="ignore"):
        if uses_onednn(x) and not _UNBATCHED_PRIMAL[0]:
            return (np.asarray(g, _F32) * _dnnl_derivative(x)).astype(_F32)
        return _aten_backward(np.asarray(g, _F32), x)
