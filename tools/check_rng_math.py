"""Exhaustive checks of the AVX2/AVX512 float32 Box-Muller emulation, over every float32 input it can
see (u1 = 1 - k*2**-24 for log256, theta = float32(2*pi) * k*2**-24 for sincos256, k < 2**24):

1. rng_math's reference log256/sincos256 with the polynomial steps untied (fma32_untied) give the same
   bits as with the exact fma32 (the tie check cannot fire there);
2. rng_avx's fast kernel (log_radius, sincos) gives the same bits as that reference:
   sqrt(-2 * log256(u1)) and sincos256(theta).

No torch needed.

    python3 tools/check_rng_math.py        (a few minutes; exits 1 on the first difference)
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from gradcli.engine import rng_avx as A  # noqa: E402
from gradcli.engine import rng_math as M  # noqa: E402


def _both(fn, x):
    M._fm = M.fma32_untied
    fast = fn(x)
    M._fm = M.fma32
    try:
        exact = fn(x)
    finally:
        M._fm = M.fma32_untied
    return fast, exact


def _same(a, b):
    return np.array_equal(np.asarray(a).view(np.int32), np.asarray(b).view(np.int32))


def _fast_kernel(k):
    """rng_avx over the integers k (int32): radius of u1 = 1 - k 2**-24, (sin, cos) of theta(k)."""
    m = k.size
    B = A.Buffers(m)
    radius, sin, cos = (np.empty(m, np.float32) for _ in range(3))
    A.log_radius(k, radius, B)
    A.sincos(k, sin, cos, B)
    return radius, sin, cos


def main():
    step = 1 << 16
    for start in range(0, 1 << 24, step):
        k = np.arange(start, start + step, dtype=np.int32)
        u = k.astype(np.float32) * np.float32(2.0 ** -24)
        fast, exact = _both(M.log256, np.float32(1) - u)
        if not _same(fast, exact):
            print(f"log256 differs near k={start}")
            return 1
        theta = np.float32(2 * np.pi) * u
        (fs, fc), (es, ec) = _both(M.sincos256, theta)
        if not (_same(fs, es) and _same(fc, ec)):
            print(f"sincos256 differs near k={start}")
            return 1
        radius, sin, cos = _fast_kernel(k)
        if not _same(radius, np.sqrt(np.float32(-2) * exact)):
            print(f"rng_avx.log_radius differs near k={start}")
            return 1
        if not (_same(sin, es) and _same(cos, ec)):
            print(f"rng_avx.sincos differs near k={start}")
            return 1
    print("log256 and sincos256: the untied polynomial steps are exact on all 2**24 inputs, and rng_avx's "
          "kernel gives the same bits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
