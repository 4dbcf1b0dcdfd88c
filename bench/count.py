"""Instructions per step of the seeds' loop (case 3), counted by callgrind: independent of the
machine's load, where the bench's times are not (docs/benchmarks.md, "The engine's step").

    python -m bench.count api                # the engine API's loop: (t(250 steps) - t(50)) / 200
    python -m bench.count script             # the same loop as the seed's .grad script (run_source)
    python -m bench.count engine             # the script's step without the interpreter (below)
    python -m bench.count api --steps 50 450 --native 0     # GRADCLI_NATIVE=0: the NumPy paths

`engine` runs the seed script's set-up (its Net's layers, optimizer, loss and data made by the script), then the
step's engine calls from Python, inside the runner's engine settings (the site hook, --max-elements, ...): the
layers' forwards, relu, the loss's forward, backward, step. `script` minus `engine` is the interpreter's share.

Each count runs `valgrind --tool=callgrind` on a fresh interpreter (PYTHONHASHSEED=0, one OpenBLAS thread, the parser's
tables from a cache folder of the count's own) that imports
the engine, runs 20 steps untimed, then N steps; the difference of two N cancels imports and set-up.
Needs valgrind on PATH; takes a few minutes (valgrind runs Python ~50x slower).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def target(kind, steps):
    """The counted process: the loop through the API or through a script, `steps` steps after 20."""
    sys.path.insert(0, str(ROOT))
    if kind == "api":
        from bench import workloads as W  # noqa: PLC0415
        api = W.gradcli_api()
        x_np, y_np = W.make_data(32, 10, 2)
        model = W.Model(api, [10, 5, 2])
        x, y = api.from_numpy(x_np), api.from_numpy(y_np)
        model.train(x, y, 20)
        model.train(x, y, steps)
        return
    from bench import scripts as S  # noqa: PLC0415
    from gradcli.lang import runner  # noqa: PLC0415
    template = S.TRAIN_SCRIPTS[0][1]
    if kind == "engine":
        _engine_loop(runner, template.split("for step in")[0], steps)
        return
    for n in (20, steps):
        result = runner.run_source(S.train_script(template, n), "<count>", runner.RunOptions(),
                                   write=lambda *a, **k: None)
        if not result.ok:
            raise SystemExit(f"the script failed: {result.error}")


def _engine_loop(runner, prelude, steps):
    """The seed's step as the script runs it (Net's forward: fc1, relu, fc2; the loss module's forward; backward;
    step) called from Python on the objects the script's prelude made, in the runner's engine settings."""
    session = runner.Session(runner.RunOptions())
    result = session.run(prelude, "<count>")
    if not result.ok:
        raise SystemExit(f"the script failed: {result.error}")
    g = session.globals
    model, optimizer, loss_function, x, y = (g[k] for k in ("model", "optimizer", "loss_function", "inputs",
                                                            "labels"))
    fc1, fc2 = model.fc1, model.fc2
    linear, loss_forward, relu = type(fc1).forward, type(loss_function).forward, g["torch"].relu
    with session.engine_settings("<count>"):
        for n in (20, steps):
            for _ in range(n):
                optimizer.zero_grad()
                loss = loss_forward(loss_function, linear(fc2, relu(linear(fc1, x))), y)
                loss.backward()
                optimizer.step()


def instructions(kind, steps, native, cache):
    """callgrind's total instruction count of one process running `steps` steps, the parser's tables read from
    the folder `cache` (XDG_CACHE_HOME)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        # one OpenBLAS thread: its idle worker threads add ~800 instructions of noise a step under valgrind
        # (the loop's small products run on one thread either way)
        env = dict(os.environ, PYTHONHASHSEED="0", GRADCLI_NATIVE=native, OPENBLAS_NUM_THREADS="1",
                   XDG_CACHE_HOME=cache)
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-m", "bench.count",
               "--target", kind, str(steps)]
        subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        m = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
        return int(m.group(1))


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.count")
    p.add_argument("kind", choices=("api", "script", "engine"))
    p.add_argument("n", nargs="?", type=int, help=argparse.SUPPRESS)
    p.add_argument("--steps", nargs=2, type=int, default=(50, 250), metavar=("N1", "N2"))
    p.add_argument("--native", default=os.environ.get("GRADCLI_NATIVE", "1"), help="GRADCLI_NATIVE for the runs")
    p.add_argument("--target", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.target:
        target(args.kind, args.n)
        return
    n1, n2 = args.steps
    # the parser's table cache of a folder of its own, filled before the counted runs: the user's cache is shared
    # with every checkout, and one whose tables differ rewrites it, so the next run rebuilds them (~100K
    # instructions a step of a script count spoiled that way)
    with tempfile.TemporaryDirectory() as cache:
        if args.kind != "api":  # (the API loop parses nothing)
            subprocess.run([sys.executable, "-m", "bench.count", "--target", "script", "0"], cwd=ROOT, check=True,
                           env=dict(os.environ, XDG_CACHE_HOME=cache, GRADCLI_NATIVE=args.native),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        a, b = instructions(args.kind, n1, args.native, cache), instructions(args.kind, n2, args.native, cache)
    print(f"{args.kind}: {(b - a) / (n2 - n1) / 1000:.1f}K instructions a step "
          f"((t({n2}) - t({n1})) / {n2 - n1}; GRADCLI_NATIVE={args.native})")


if __name__ == "__main__":
    main()
