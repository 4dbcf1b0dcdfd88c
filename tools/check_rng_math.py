"""Exhaustive check behind rng_math.fma32_untied: over every float32 input the AVX2 Box-Muller can
see (u1 = 1 - k*2**-24 for log256, theta = float32(2*pi) * k*2**-24 for sincos256, k < 2**24), the
polynomial steps without the tie check give the same bits as the exact fma32. No torch needed.

    python3 tools/check_rng_math.py        (about a minute; exits 1 on the first difference)
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
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


def main():
    step = 1 << 20
    for start in range(0, 1 << 24, step):
        u = np.arange(start, start + step, dtype=np.float32) * np.float32(2.0 ** -24)
        fast, exact = _both(M.log256, np.float32(1) - u)
        if not np.array_equal(fast.view(np.int32), exact.view(np.int32)):
            print(f"log256 differs near k={start}")
            return 1
        theta = np.float32(2 * np.pi) * u
        (fs, fc), (es, ec) = _both(M.sincos256, theta)
        if not (np.array_equal(fs.view(np.int32), es.view(np.int32)) and
                np.array_equal(fc.view(np.int32), ec.view(np.int32))):
            print(f"sincos256 differs near k={start}")
            return 1
    print("log256 and sincos256: the untied polynomial steps are exact on all 2**24 inputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
