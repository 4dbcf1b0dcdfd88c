"""Sweeps behind rng_libm.py and the fast random kernels.

1. Without torch: every C function rng_libm runs in NumPy's element loop (where its per-process check
   passed) against the per-element call (Python's math, or ctypes for the float functions) over
   --n inputs each, drawn as the random kernels draw them (1 - k 2**-53, -u, 2 pi u) and spread over
   the probe domain.
   Then rng_libm's vectorised glibc logf/sinf/cosf against the C functions (ctypes, per element) on
   --n / 4 inputs each spread over their whole domain (positive floats from 2**-149 up; angles to
   +-300 and beyond), and with --exhaustive on every input the float32 Box-Muller of the DEFAULT
   build feeds them: all 2**24 values of u1 = 1 - k 2**-24 (logf) and of float32(2 pi k 2**-24)
   (sinf, cosf), about three minutes.
2. With torch (--torch): whole draws against torch 2.13 under this machine's capability (run it again
   with ATEN_CPU_CAPABILITY=default and =avx2: torch and gradcli both follow the variable), for
   several seeds: randn and normal_(mean, std) in float32 (std a power of two and not) and float64, exponential_, log_normal_,
   cauchy_, geometric_ (double, through log/log1p/exp/tan), bytes and generator state compared.

    python3 tools/check_rng_libm.py [--n 2000000] [--exhaustive] [--torch] [--seeds 5] [--size 4000000]
Exits 1 on the first difference.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from gradcli.engine import rng_libm as L  # noqa: E402


def _inputs(name, n, rng):
    lo, hi = L._DOMAIN[name]
    u = rng.integers(0, 1 << 53, n, dtype=np.int64).astype(np.float64) * 2.0 ** -53
    spread = lo + (hi - lo) * rng.random(n)
    kernel = {"log": 1 - u, "log1p": -u, "sin": 2 * math.pi * u, "cos": 2 * math.pi * u,
              "tan": math.pi * (u - 0.5), "exp": rng.standard_normal(n) * 3}.get(name)
    # the hyperbolic functions (ops/special_unary.py's float32 loops) have no random kernel's inputs
    return spread if kernel is None else np.concatenate([kernel, spread])


def sweep_libm(n):
    rng = np.random.default_rng(20261202)
    for (name, dtype), fast in ((k, L._fast(*k)) for k in ((nm, dt) for nm in L._DOMAIN
                                                             for dt in (np.float64, np.float32))):
        if not fast:
            print(f"{name}{'f' if dtype == np.float32 else ''}: per-element call here (the check failed)")
            continue
        x = _inputs(name, n if dtype == np.float64 else n // 20, rng).astype(dtype)
        got = L._reversed_call(name, x)
        want = np.asarray(L._slow_fn(name, dtype)(x.astype(np.float64)), np.float64).astype(dtype)
        bad = np.flatnonzero(got.view(f"u{x.itemsize}") != want.view(f"u{x.itemsize}"))
        label = f"{name}{'f' if dtype == np.float32 else ''}"
        print(f"{label}: {x.size:,} inputs, {bad.size} differ")
        if bad.size:
            return 1
    return 0


def _same_f32(label, got, want, x):
    bad = np.flatnonzero(got.view(np.int32) != want.view(np.int32))
    print(f"{label}: {x.size:,} inputs, {bad.size} differ" + (f" (first at {x[bad[0]]!r})" if bad.size else ""))
    return bad.size == 0


def sweep_glibc_float(n, exhaustive):
    """rng_libm.logf / sincosf (glibc's algorithm, vectorised) against the C functions themselves."""
    if not (L._glibc_float_ok("logf") and L._glibc_float_ok("sincosf")):
        print("logf/sinf/cosf: the vectorised glibc algorithm is not this C library's (per-element call here)")
        return 0
    rng = np.random.default_rng(20261203)
    pos = rng.integers(1, 0x7F800000, n // 4, dtype=np.uint32).view(np.float32)
    ang = np.concatenate([(rng.random(n // 8) * 600 - 300), rng.standard_normal(n // 8) * 1e3]).astype(np.float32)
    ok = _same_f32("logf (whole domain)", L.logf(pos), L._call_f32("logf", pos), pos)
    s, c = L.sincosf(ang)
    ok = ok and _same_f32("sinf (|x| to 300 and beyond)", s, L._call_f32("sinf", ang), ang)
    ok = ok and _same_f32("cosf (|x| to 300 and beyond)", c, L._call_f32("cosf", ang), ang)
    if ok and exhaustive:
        for start in range(0, 1 << 24, 1 << 22):
            k = np.arange(start, start + (1 << 22), dtype=np.int64)
            u1 = (np.float32(1) - k.astype(np.float32) * np.float32(2.0 ** -24)).astype(np.float32)
            theta = (2.0 * math.pi * (k.astype(np.float32) * np.float32(2.0 ** -24)).astype(np.float64)).astype(
                np.float32)
            s, c = L.sincosf(theta)
            ok = (_same_f32(f"logf, Box-Muller u1, k from {start:,}", L.logf(u1), L._call_f32("logf", u1), u1)
                  and _same_f32(f"sinf, Box-Muller theta, k from {start:,}", s, L._call_f32("sinf", theta), theta)
                  and _same_f32(f"cosf, Box-Muller theta, k from {start:,}", c, L._call_f32("cosf", theta), theta))
            if not ok:
                break
    return 0 if ok else 1


def sweep_torch(seeds, size):
    import torch  # noqa: PLC0415

    from gradcli.engine import api as G  # noqa: PLC0415
    draws = (
        ("randn float32", lambda T: T.randn(size)),
        ("randn float64", lambda T: T.randn(size, dtype=T.float64)),
        ("normal_(0.5, 2.0) float32", lambda T: T.empty(size).normal_(0.5, 2.0)),
        ("normal_(0.3, 0.02) float32", lambda T: T.empty(size // 2).normal_(0.3, 0.02)),
        ("normal_(-1.0, 3.0) float64", lambda T: T.empty(size, dtype=T.float64).normal_(-1.0, 3.0)),
        ("exponential_(1.5) float64", lambda T: T.empty(size // 4, dtype=T.float64).exponential_(1.5)),
        ("log_normal_ float64", lambda T: T.empty(size // 4, dtype=T.float64).log_normal_(0.1, 0.5)),
        ("cauchy_ float64", lambda T: T.empty(size // 4, dtype=T.float64).cauchy_(0.0, 1.0)),
        ("geometric_(0.3) float64", lambda T: T.empty(size // 4, dtype=T.float64).geometric_(0.3)),
    )
    total = 0
    for seed in range(seeds):
        s = 1000003 * seed + 7
        for label, fn in draws:
            torch.manual_seed(s)
            G.manual_seed(s)
            want, got = fn(torch).numpy().tobytes(), fn(G).numpy().tobytes()
            if want != got or torch.get_rng_state().numpy().tobytes() != G.get_rng_state().numpy().tobytes():
                print(f"seed {s}: {label} differs from torch")
                return 1
            total += len(want) // (8 if "float64" in label else 4)
    print(f"torch {torch.__version__} ({torch.backends.cpu.get_cpu_capability()}): {total:,} values over "
          f"{seeds} seeds, bit for bit, generator states equal")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--exhaustive", action="store_true")
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--size", type=int, default=4_000_000)
    args = ap.parse_args(argv)
    rc = sweep_libm(args.n) or sweep_glibc_float(args.n, args.exhaustive)
    if rc == 0 and args.torch:
        rc = sweep_torch(args.seeds, args.size)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
