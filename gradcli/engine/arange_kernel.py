"""torch.arange's floating-point values as ATen's CPU kernel computes them (RangeFactoriesKernel.cpp).

The kernel fills the output in at::parallel_for ranges (grain 32768); in each, cpu_serial_kernel_vec
writes blocks of 2 * V elements (V = the SIMD width in elements: 32 bytes, 64 on AVX512) with the
vectorised op and the rest with the scalar one. The scalar op is `start + step * idx` in the
accumulate type (double for float32/float64, float for float16), then rounded to the output dtype;
the vectorised op rounds `start + step * idx` of the block's first index to the output dtype (base)
and returns base + k * step for k < V. The AVX2/AVX512 builds contract `start + step * idx` into a
fused multiply-add, and `base + k * step` too where base is a double (float64 output); the DEFAULT
build rounds every product. So torch.arange(-3, 3.1, 0.1)[30] is -2.3842e-08 (the block from 24:
float(-0.6) + 6 * 0.1), not 0. Integer outputs are exact and are NumPy's arange."""
from __future__ import annotations

import numpy as np

from . import numerics
from .rng_math import capability, fma32, fma64

GRAIN_SIZE = 32768


def _fused(a, b, c, acc):
    """a * b + c in the accumulate type, one rounding (FMA)."""
    if acc is np.float64:
        return fma64(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))
    return fma32(np.asarray(a, np.float32), np.asarray(b, np.float32), np.asarray(c, np.float32))


def arange_values(start, step, n, np_dtype):
    """The n values of torch.arange(start, start + n * step, step) in a floating np_dtype."""
    out_t = np.dtype(np_dtype).type
    acc = np.float32 if np.dtype(np_dtype).itemsize == 2 else np.float64
    cap = capability()
    fma = cap != "default"
    width = 64 if cap == "avx512" else 32
    vec = width // np.dtype(np_dtype).itemsize
    s, st = acc(start), acc(step)
    idx = np.arange(n, dtype=acc)

    def first(i):  # the scalar op: start + step * idx in acc, rounded to the output type
        return (_fused(st, i, s, acc) if fma else (s + st * i).astype(acc)).astype(out_t)

    out = first(idx)
    k = np.arange(vec, dtype=acc)
    for b, e in numerics.omp_ranges(0, n, GRAIN_SIZE):
        blocks = (e - b) // (2 * vec) * 2
        if not blocks:
            continue
        heads = b + np.arange(blocks, dtype=np.int64) * vec
        base = first(heads.astype(acc)).astype(acc)[:, None]
        if fma and acc is np.float64 and out_t is np.float64:
            vals = _fused(np.broadcast_to(k, (blocks, vec)), st, np.broadcast_to(base, (blocks, vec)), acc)
        else:
            vals = base + k * st
        out[b:b + blocks * vec] = vals.astype(out_t).reshape(-1)
    return out
