"""Case 8: `gradcli test -j N` (the CI front door, issue 20): the wall time of the whole command
over the samples folder and over 200 generated scripts, for N = 1, 2, 4 and the number of cores,
and the speed-up over -j 1. Each N runs the same command line in a fresh process, alternated.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import harness as H

ROOT = Path(__file__).resolve().parent.parent

# a small training-style script: a seeded random start, a few steps, printed values and gradients
TEMPLATE = """\
import torch
torch.manual_seed({seed})
x = torch.randn({rows}, {cols})
w = torch.randn({cols}, 3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
for step in range({steps}):
    loss = torch.tanh(x @ w + b).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    w.grad.zero_()
    b.grad.zero_()
print(loss)
print(w.sum(), b)
"""


def generate(folder: Path, count: int) -> None:
    """``count`` scripts of different sizes in ``folder``; their NAME.out written by `gradcli test --update`."""
    for i in range(count):
        text = TEMPLATE.format(seed=i, rows=8 + i % 24, cols=4 + i % 7, steps=5 + i % 20)
        (folder / f"gen{i:03d}.grad").write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "gradcli", "test", str(folder), "--update"], cwd=ROOT,
                          capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0:
        raise RuntimeError(f"gradcli test --update: exit {proc.returncode}: {proc.stdout[-300:]}{proc.stderr[-300:]}")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _command(folder, jobs):
    def run():
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "gradcli", "test", str(folder), "-j", str(jobs)], cwd=ROOT,
                              capture_output=True, text=True, timeout=1200)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            last = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:]
            raise RuntimeError(f"exit {proc.returncode}: {last[0][:200] if last else 'no output'}")
        return {"wall": wall}
    return run


def case8(cfg):
    count = 8 if cfg.quick else 200
    jobs = [1, 2] if cfg.quick else sorted({1, 2, 4, _cores()})
    names = [f"-j {n}" for n in jobs]
    tmp = Path(tempfile.mkdtemp(prefix="gradcli-bench-test-"))
    rows = []
    try:
        generate(tmp, count)
        workloads = [("8 samples", f"gradcli test samples ({len(list((ROOT / 'samples').glob('*.grad')))} "
                                   "scripts)", ROOT / "samples"),
                     ("8 generated", f"gradcli test, {count} generated scripts", tmp)]
        for key, title, folder in workloads:
            contenders = {name: _command(folder, n) for name, n in zip(names, jobs)}
            results = H.alternate(contenders, cfg.reps(3), cfg.warmup)
            row = H.make_row("8", key, title, "s", results, "wall", ref=names[0], floor=names[-1],
                             contenders=names)
            base = row["values"].get(names[0])
            row["speedup"] = {n: base / v for n, v in row["values"].items() if base and v}
            row["jobs"] = names
            row["notes"] = [f"wall time of the whole command (start-up, collection, every script in its own "
                            f"forked child), medians of {cfg.reps(3)} alternated runs; speed-up over -j 1: "
                            + ", ".join(f"{n} {s:.2f}x" for n, s in row["speedup"].items()),
                            f"{_cores()} cores available to the process"]
            rows.append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def table(rows) -> str:
    """Case 8's table: a column per -j N, and the speed-up of the most jobs over -j 1."""
    names = []
    for r in rows:
        names += [n for n in r.get("jobs", ()) if n not in names]
    columns = [("case", lambda r: r["key"]), ("measure", lambda r: r["title"]), ("unit", lambda r: r["unit"])]
    columns += [(n, lambda r, n=n: H.cell(r, n)) for n in names]
    columns.append(("speed-up", lambda r: ", ".join(f"{n}: {s:.2f}x" for n, s in r.get("speedup", {}).items()
                                                    if n != names[0]) or "-"))
    return H.render_table(rows, columns)
