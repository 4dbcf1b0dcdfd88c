"""Sweeps behind rng_libm.py and the fast random kernels.

1. Without torch: every C function rng_libm runs in NumPy's element loop (where its per-process check
   passed) against the per-element call (Python's math, or ctypes for the float functions) over
   --n inputs each, drawn as the random kernels draw them (1 - k 2**-53, -u, 2 pi u) and spread over
   the probe domain.
2. With torch (--torch): whole draws against torch 2.13 under this machine's capability, for
   several seeds: randn and normal_(mean, std) in float32 and float64, exponential_, log_normal_,
   cauchy_, geometric_ (double, through log/log1p/exp/tan), bytes and generator state compared.

    python3 tools/check_rng_libm.py [--n 2000000] [--torch] [--seeds 5] [--size 4000000]
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
              "tan": math.pi * (u - 0.5), "exp": rng.standard_normal(n) * 3}[name]
    return np.concatenate([kernel, spread])


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


def sweep_torch(seeds, size):
    import torch  # noqa: PLC0415

    from gradcli.engine import api as G  # noqa: PLC0415
    draws = (
        ("randn float32", lambda T: T.randn(size)),
        ("randn float64", lambda T: T.randn(size, dtype=T.float64)),
        ("normal_(0.5, 2.0) float32", lambda T: T.empty(size).normal_(0.5, 2.0)),
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
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--size", type=int, default=4_000_000)
    args = ap.parse_args(argv)
    rc = sweep_libm(args.n)
    if rc == 0 and args.torch:
        rc = sweep_torch(args.seeds, args.size)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
