"""The two backends side by side: NumPy (GRADCLI_MKL=0) against MKL (the gradcli[mkl] extra).

    python -m bench.mkl            # medians of alternated rounds, each backend in a process of its own
    python -m bench.mkl --quick    # fewer calls and one round (a smoke run; its numbers mean nothing)

Rows: case 2's per-op chain (0-d mul/add, no covered op: it must not move); case 3's seeds' loop
(Linear(10,5) -> relu -> Linear(5,2), batch 32, SGD: five small products a step, forward and
backward) through the engine API and through a .grad script; a covered op (sin) on a 0-d tensor (the
foreign call's overhead), on 1,000 and on 1,000,000 floats; exp, tanh and sin on 1,000,000; a
1024 x 1024 float32 product. Each is the best of several runs in its process (CPU time of this
thread for the small rows, wall time for the large ones, where MKL's threads work too); the table
prints the median of the rounds and mkl/numpy. Without the extra only the NumPy column is measured
(the MKL column says why).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from .cases import ROOT


def _best(fn, reps, clock=time.perf_counter):
    fn()
    ts = []
    for _ in range(reps):
        t0 = clock()
        fn()
        ts.append(clock() - t0)
    return min(ts)


def _script_step(quick, reps):
    """The seeds' loop as a .grad script, in process: (t(n2 steps) - t(n1 steps)) / (n2 - n1)."""
    from gradcli.lang.runner import RunOptions, run_source  # noqa: PLC0415

    from . import scripts as S  # noqa: PLC0415

    template = S.TRAIN_SCRIPTS[0][1]
    n1, n2 = (5, 25) if quick else (50, 350)

    def run(steps):
        result = run_source(S.train_script(template, steps), "<bench>", RunOptions(), write=lambda *a, **k: None)
        if not result.ok:
            raise RuntimeError(f"the .grad loop failed: {result.error}")

    short = _best(lambda: run(n1), reps, time.thread_time)
    long_ = _best(lambda: run(n2), reps, time.thread_time)
    return (long_ - short) / (n2 - n1)


def _worker(quick):
    from gradcli import backend  # noqa: PLC0415

    from . import workloads as W  # noqa: PLC0415

    T = W.gradcli_api()
    reps = 1 if quick else 5
    calls = 200 if quick else 5000
    cpu = time.thread_time
    out = {}
    n = 1000 if quick else 20_000
    out["case 2: 0-d mul/add chain fwd+bwd (us/op)"] = _best(lambda: W.chain(T, n), reps, cpu) / n * 1e6
    steps = 20 if quick else 300
    x, y = W.make_data(32, 10, 2)
    model = W.Model(T, [10, 5, 2])
    xt, yt = T.from_numpy(x), T.from_numpy(y)
    out["case 3: seeds' loop, engine API (us/step)"] = _best(lambda: model.train(xt, yt, steps), reps, cpu) / steps * 1e6
    out["case 3: seeds' loop, .grad script (us/step)"] = _script_step(quick, reps) * 1e6
    x0 = T.tensor(0.5)
    out["sin, 0-d float32 (us/call)"] = _best(lambda: [T.sin(x0) for _ in range(calls)], reps, cpu) / calls * 1e6
    x1 = T.linspace(-3, 3, 1000)
    out["sin, 1,000 float32 (us/call)"] = _best(lambda: [T.sin(x1) for _ in range(calls // 10)], reps, cpu) / (calls // 10) * 1e6
    big = 100_000 if quick else 1_000_000
    x2 = T.linspace(-3, 3, big)
    label = "1M" if big == 1_000_000 else f"{big:,}"
    out[f"sin, {label} float32 (ms)"] = _best(lambda: T.sin(x2), reps) * 1e3
    out[f"exp+tanh+sin, {label} float32 (ms)"] = _best(lambda: T.sin(T.tanh(T.exp(x2))), reps) * 1e3
    size = 256 if quick else 1024
    a = T.linspace(-1, 1, size * size).reshape(size, size)
    out[f"mm {size} x {size} float32 (ms)"] = _best(lambda: T.mm(a, a), reps) * 1e3
    return {"times": out, "backend": backend.describe()}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.mkl")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(args.quick)))
        return 0
    rounds = 1 if args.quick else 5
    names = ["numpy", "mkl"]
    samples = {name: [] for name in names}
    described = {}
    for r in range(rounds):
        for name in names[r % 2:] + names[:r % 2]:
            env = dict(os.environ, GRADCLI_MKL="0" if name == "numpy" else "1")
            cmd = [sys.executable, "-m", "bench.mkl", "--worker", name] + (["--quick"] if args.quick else [])
            proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
            if proc.returncode != 0:
                print(f"{name}: worker failed: {proc.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                return 1
            doc = json.loads(proc.stdout.strip().splitlines()[-1])
            described[name] = doc["backend"]
            samples[name].append(doc["times"])
    have_mkl = described["mkl"].startswith("backend: MKL")
    print(f"NumPy: {described['numpy']}")
    print(f"MKL:   {described['mkl']}")
    print(f"best of {1 if args.quick else 5} runs in each process, median of {rounds} alternated rounds")
    header = f"| {'measure':46s} | {'numpy':>9s} | {'mkl':>9s} | mkl/numpy |"
    print(header)
    print("|" + "|".join("-" * len(c) for c in header.split("|")[1:-1]) + "|")
    for key in samples["numpy"][0]:
        med = {name: sorted(s[key] for s in samples[name])[len(samples[name]) // 2] for name in names}
        if have_mkl:
            print(f"| {key:46s} | {med['numpy']:9.3f} | {med['mkl']:9.3f} | {med['mkl'] / med['numpy']:9.2f} |")
        else:
            print(f"| {key:46s} | {med['numpy']:9.3f} | {'-':>9s} | {'-':>9s} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
