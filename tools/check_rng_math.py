"""Exhaustive checks of the AVX2/AVX512 float32 Box-Muller emulation, over every float32 input it can
see (u1 = 1 - k*2**-24 for log256, theta = float32(2*pi) * k*2**-24 for sincos256, k < 2**24):

1. rng_math's reference log256/sincos256 with the polynomial steps untied (fma32_untied) give the same
   bits as with the exact fma32 (the tie check cannot fire there);
2. rng_avx's fast kernel (log_radius, sincos) gives the same bits as that reference:
   sqrt(-2 * log256(u1)) and sincos256(theta);
3. the C kernel (csrc/rng.c normal_fill_f32; skipped, with a line saying so, where it is not built) in
   each of its kinds: the fused one (AVX2 intrinsics where the CPU has them) and its lane-by-lane fmaf
   form against that reference, the DEFAULT one against rng_math's DEFAULT Box-Muller (rng_libm's
   logf, sinf, cosf): every u1 with theta = 0 (the value is the radius itself), then every theta with
   u1 running through all 2**24 values in another order (the values r cos theta and r sin theta).

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


def _native():
    from gradcli import native  # noqa: PLC0415
    return native.load("rng")


def _block_words(k1, k2):
    """uint32 words of blocks whose u1 lanes are k1 and u2 lanes k2 (both 8 a block)."""
    w = np.empty((k1.size // 8, 2, 8), np.uint32)
    w[:, 0] = k1.reshape(-1, 8)
    w[:, 1] = k2.reshape(-1, 8)
    return w.reshape(-1)


def _check_native(C, k):
    """None, or what differs for these k: the radius (theta = 0) and the values (u1 through k * 7919)."""
    other = (k.astype(np.int64) * 7919 % (1 << 24)).astype(np.int32)
    for label, w in (("radius", _block_words(k, np.zeros_like(k))), ("values", _block_words(other, k))):
        d = (w.astype(np.int32) & 0xFFFFFF).astype(np.float32) * np.float32(2.0 ** -24)
        for kind, cap in ((1, "avx2"), (2, "avx2"), (0, "default")):
            M.set_capability(cap)
            M.fast_avx[0] = False
            try:
                want = M.box_muller_blocks(d, 0.0, 1.0, np.float32)
            finally:
                M.fast_avx[0] = True
                M.set_capability(None)
            got = np.empty(w.size, np.float32)
            C.normal_fill_f32(w, got, 0.0, 1.0, False, kind)
            if not _same(got, want):
                return f"{label}, kind {kind}"
    return None


def main():
    C = _native()
    if C is None:
        print("the C kernel (gradcli._native_rng) is not built here (tools/build_native.py): not checked")
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
        wrong = C is not None and _check_native(C, k)
        if wrong:
            print(f"the C kernel differs near k={start}: {wrong}")
            return 1
    print("log256 and sincos256: the untied polynomial steps are exact on all 2**24 inputs, and rng_avx's "
          "kernel gives the same bits" + ("" if C is None else f"; so does the C kernel (fused: {C.fused_path()} "
                                          "and lane by lane; DEFAULT: the C library's logf, sinf, cosf)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
