"""Case 4's matrix products one by one: NumPy's BLAS against torch's, side by side.

    python -m bench.matmuls            # the 8 products of the large step, medians of alternated runs
    python -m bench.matmuls --quick    # smaller shapes, one round (a smoke run)

The large step (case 4) is over 90% matrix products, and gradcli makes the same BLAS calls as the
hand-written NumPy floor (same shapes, same transposes); this table shows how much of the gap to
torch is the BLAS library itself (OpenBLAS under NumPy, MKL inside torch's wheel). Each library
runs in a process of its own (torch's OpenMP threads slow NumPy's BLAS in a shared process), the
two alternate round by round, and each product's time is the median over rounds.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from .cases import ROOT


def _products(sizes, batch):
    """(name, (m, k, n), build(mm, arrays)) for each product of forward + backward."""
    out = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        out.append((f"L{i + 1} forward  x @ W.T", (batch, a, b), lambda mm, A, W, G, i=i: mm(A[i], W[i].T)))
        out.append((f"L{i + 1} weight   (g.T @ x).T", (b, batch, a), lambda mm, A, W, G, i=i: mm(G[i].T, A[i]).T))
        if i:
            out.append((f"L{i + 1} input    g @ W", (batch, b, a), lambda mm, A, W, G, i=i: mm(G[i], W[i])))
    return out


def _worker(lib, sizes, batch, reps):
    rng = np.random.default_rng(0)
    W = [rng.standard_normal((b, a)).astype(np.float32) for a, b in zip(sizes[:-1], sizes[1:])]
    A = [rng.standard_normal((batch, a)).astype(np.float32) for a in sizes[:-1]]
    G = [rng.standard_normal((batch, b)).astype(np.float32) for b in sizes[1:]]
    if lib == "torch":
        import torch  # noqa: PLC0415

        W, A, G = ([torch.from_numpy(x) for x in xs] for xs in (W, A, G))
        mm = torch.mm
    else:
        mm = np.matmul
    times = {}
    for name, _, fn in _products(sizes, batch):
        fn(mm, A, W, G)  # warm-up
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn(mm, A, W, G)
            ts.append(time.perf_counter() - t0)
        times[name] = min(ts)
    return times


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.matmuls")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    sizes, batch = ([128, 256, 256, 10], 64) if args.quick else ([1024, 2048, 2048, 10], 512)
    if args.worker:
        print(json.dumps(_worker(args.worker, sizes, batch, 1 if args.quick else 3)))
        return 0
    libs = ["numpy"]
    if not args.no_torch:
        try:
            import importlib.util  # noqa: PLC0415

            if importlib.util.find_spec("torch") is not None:
                libs.append("torch")
        except ImportError:
            pass
    rounds = 1 if args.quick else 5
    samples = {lib: [] for lib in libs}
    for r in range(rounds):
        for lib in libs[r % len(libs):] + libs[:r % len(libs)]:
            cmd = [sys.executable, "-m", "bench.matmuls", "--worker", lib] + (["--quick"] if args.quick else [])
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                print(f"{lib}: worker failed: {proc.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                return 1
            samples[lib].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"matrix products of the large step (MLP {' -> '.join(map(str, sizes))}, batch {batch}, float32): "
          f"best of {1 if args.quick else 3} calls, median of {rounds} alternated rounds, ms")
    header = f"| {'product':26s} | {'m x k x n':18s} | {'numpy':>7s} |" + (" torch   | numpy/torch |" if "torch" in libs
                                                                               else "")
    print(header)
    print("|" + "|".join("-" * (len(c) + 0) for c in header.split("|")[1:-1]) + "|")
    totals = {lib: 0.0 for lib in libs}
    for name, (m, k, n), _ in _products(sizes, batch):
        med = {lib: sorted(s[name] for s in samples[lib])[len(samples[lib]) // 2] * 1e3 for lib in libs}
        for lib in libs:
            totals[lib] += med[lib]
        row = f"| {name:26s} | {f'{m} x {k} x {n}':18s} | {med['numpy']:7.2f} |"
        if "torch" in libs:
            row += f" {med['torch']:7.2f} | {med['numpy'] / med['torch']:11.2f} |"
        print(row)
    row = f"| {'all 8':26s} | {'':18s} | {totals['numpy']:7.2f} |"
    if "torch" in libs:
        row += f" {totals['torch']:7.2f} | {totals['numpy'] / totals['torch']:11.2f} |"
    print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
