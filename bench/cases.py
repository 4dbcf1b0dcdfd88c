"""The seven cases of issue 9. Each `caseN(cfg)` returns table rows (see harness.make_row).

Contenders: "gradcli" (this checkout's engine, language or CLI), "torch" (PyTorch, where it
imports; otherwise skipped with a note) and "numpy" (a hand-written NumPy forward and backward,
the practical floor) or, for parsing, "lark" (Lark's stock Python grammar) and "ast"
(CPython's ast.parse, the floor).
"""
from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import harness as H
from . import scripts as S
from . import workloads as W

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "seed00_linear_backward.grad"
OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


@dataclasses.dataclass
class Config:
    quick: bool = False
    in_worker: bool = False
    no_torch: bool = False
    gradcli_cmd: list | None = None
    repeat_scale: float = 1.0
    lark_100k: bool = False

    def reps(self, full, quick=1):
        if self.quick:
            return quick
        return max(1, round(full * self.repeat_scale))

    @property
    def warmup(self):
        return 0 if self.quick else 1


def torch_available(cfg):
    if cfg.no_torch:
        return False, "torch rows skipped (--no-torch)"
    if importlib.util.find_spec("torch") is None:
        return False, "torch is not installed here (pip install torch==2.13.0 to compare)"
    return True, ""


def _torch(cfg):
    ok, why = torch_available(cfg)
    if not ok:
        raise H.Skip(why)
    import torch  # noqa: PLC0415

    return torch


def _skipper(reason):
    def run():
        raise H.Skip(reason)
    return run


def _gradcli_command(cfg):
    """How to start gradcli: --gradcli-cmd, else the `gradcli` script on PATH, else
    `python -m gradcli` from this checkout; None when neither exists yet."""
    if cfg.gradcli_cmd:
        return list(cfg.gradcli_cmd)
    script = shutil.which("gradcli")
    if script:
        return [script]
    if importlib.util.find_spec("gradcli") is not None and (ROOT / "gradcli" / "__main__.py").exists():
        return [sys.executable, "-m", "gradcli"]
    return None


def _children_cpu():
    try:
        import resource  # noqa: PLC0415

        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime
    except (ImportError, OSError):
        return None


def _run_process(cmd, timeout=600, env=None):
    """(wall seconds, CPU seconds or None, CompletedProcess) of one whole process, cwd = the
    repository root. CPU: the child's user + system time (all its threads), from getrusage."""
    c0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    wall = time.perf_counter() - t0
    c1 = _children_cpu()
    return wall, (c1 - c0 if c0 is not None and c1 is not None else None), proc


def _last_line(text):
    lines = [ln for ln in (text or "").strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def _json_tail(stdout):
    """The JSON document a worker prints as its last line."""
    return json.loads(stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- 1 start-up

TORCH_DRIVER = """\
import ast, sys
path = sys.argv[1]
ns = {"__name__": "__main__"}
sys.displayhook = lambda v: None if v is None else sys.stdout.write(repr(v) + "\\n")
for st in ast.parse(open(path, encoding="utf-8").read(), filename=path).body:
    exec(compile(ast.Interactive(body=[st]), path, "single"), ns)
"""


def case1(cfg):
    golden = SAMPLE.with_suffix(".out").read_text(encoding="utf-8") if SAMPLE.with_suffix(".out").exists() else None
    notes = []
    checks = {}

    def process(name, cmd):
        def run():
            seconds, cpu, proc = _run_process(cmd, timeout=120)
            if proc.returncode != 0:
                raise RuntimeError(f"exit {proc.returncode}: {_last_line(proc.stderr)}")
            if golden is not None:
                checks[name] = proc.stdout == golden
            return {"wall": seconds, **({"cpu": cpu} if cpu is not None else {})}
        return run

    contenders = {}
    cmd = _gradcli_command(cfg)
    if cmd is None:
        contenders["gradcli"] = _skipper("the gradcli CLI is not there yet (no `gradcli` on PATH, no gradcli/__main__.py)")
    else:
        if cmd[1:] == ["-m", "gradcli"] and not cfg.gradcli_cmd:
            # An installed gradcli has its bytecode compiled by pip; a checkout run with
            # PYTHONDONTWRITEBYTECODE=1 would compile ~0.9 MB of source on every start instead.
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "gradcli")], cwd=ROOT,
                           capture_output=True, check=False)
            notes.append("gradcli's bytecode compiled first (python -m compileall gradcli), as pip install does")
        contenders["gradcli"] = process("gradcli", cmd + ["run", str(SAMPLE)])
        notes.append("gradcli command: " + " ".join(Path(c).name if i == 0 else c for i, c in enumerate(cmd)) + " run FILE")
    ok, why = torch_available(cfg)
    contenders["torch"] = process("torch", [sys.executable, "-c", TORCH_DRIVER, str(SAMPLE)]) if ok else _skipper(why)
    contenders["numpy"] = process("numpy", [sys.executable, "-c", "import numpy"])
    results = H.alternate(contenders, cfg.reps(5), cfg.warmup)
    notes.append("numpy column: `python -c 'import numpy'`, the floor of any NumPy-based tool")
    notes.append("torch column: `python` running the same file statement by statement (interactive echo, "
                 "as shared/tools/torch-echo does)")
    for name in ("gradcli", "torch"):
        if name in checks:
            notes.append(f"{name} stdout {'matches' if checks[name] else 'DIFFERS from'} {SAMPLE.stem}.out")
    return [H.make_row("1", "1", "start-up: whole process, seed00_linear_backward.grad", "ms", results, "wall",
                       scale=1e3, target={"kind": "ratio", "vs": "torch", "max": 0.15},
                       target_text="<= 0.15x torch", notes=notes, cpu_measure="cpu"), _child_cost_row(cfg),
            *_numpy_floor_rows(cfg, cmd)]


GRAD_ARGS = ["grad", "w*x + b", "w=4", "x=3", "b=5"]


def _numpy_floor_rows(cfg, cmd):
    """Issue 21's start-up anchors, judged on CPU time against `python -c "import numpy"`, the floor
    of any NumPy tool: `gradcli run` of the seed sample <= 1.3x, `gradcli grad` <= 1.5x, and the
    REPL's first prompt on a terminal <= 2x (bench/prompt.py)."""
    if cmd is None:
        return []
    numpy = [sys.executable, "-c", "import numpy"]

    def process(argv):
        def run():
            seconds, cpu, proc = _run_process(argv, timeout=120)
            if proc.returncode != 0:
                raise RuntimeError(f"exit {proc.returncode}: {_last_line(proc.stderr)}")
            return {"wall": seconds, **({"cpu": cpu} if cpu is not None else {})}
        return run
    rows = []
    for key, title, argv, most in (("1r", "start-up vs the NumPy import: gradcli run seed00_linear_backward.grad",
                                    cmd + ["run", str(SAMPLE)], 1.3),
                                   ("1g", 'start-up vs the NumPy import: gradcli grad "w*x + b" w=4 x=3 b=5',
                                    cmd + GRAD_ARGS, 1.5)):
        results = H.alternate({"gradcli": process(argv), "numpy": process(numpy)}, cfg.reps(9), cfg.warmup)
        rows.append(H.make_row("1", key, title, "ms", results, "cpu", scale=1e3,
                               target={"kind": "ratio", "vs": "numpy", "max": most},
                               target_text=f"<= {most}x numpy (CPU)", cpu_measure="cpu",
                               notes=["measured in CPU seconds (user + system, the child included): other "
                                      "load on the machine moves wall time, not this"]))
    rows.append(_first_prompt_row(cfg, cmd, process(numpy)))
    return rows


def _first_prompt_row(cfg, cmd, numpy):
    from . import prompt  # noqa: PLC0415

    ok, why = prompt.available()
    repl = (lambda: prompt.first_prompt(cmd + ["repl"], cwd=ROOT)) if ok else _skipper(why)
    results = H.alternate({"gradcli": repl, "numpy": numpy}, cfg.reps(9), cfg.warmup)
    return H.make_row("1", "1p", "start-up vs the NumPy import: gradcli repl, until its first prompt", "ms",
                      results, "cpu", scale=1e3, target={"kind": "ratio", "vs": "numpy", "max": 2.0},
                      target_text="<= 2.0x numpy (CPU)", cpu_measure="cpu",
                      notes=["on a pseudo-terminal (TERM=xterm: the prompt_toolkit editor), CPU seconds of the "
                             "process tree from its start until the prompt is drawn (/proc schedstat), then "
                             "killed"])


def _child_cost_row(cfg):
    """What the process wall adds to every run: fork a child of the (imported) command, cap its
    memory, install the seccomp filter, send the outcome back, wait for it (gradcli/cli/isolate.py)."""
    import time  # noqa: PLC0415

    from gradcli.cli import isolate  # noqa: PLC0415
    from gradcli.lang import runner  # noqa: F401,PLC0415 - the command forks after its imports

    def child(seccomp):
        def run():
            t0 = time.perf_counter()
            isolate.run(lambda channel: channel.send("done", 0), lambda m: None, max_memory=4 << 30,
                        seccomp=seccomp)
            return {"wall": time.perf_counter() - t0}
        return run
    contenders = {"gradcli": child(True), "no seccomp": child(False)}
    results = H.alternate(contenders, cfg.reps(20), cfg.warmup)
    bare = results.pop("no seccomp")
    bare_ms = statistics.median(bare["samples"]["wall"]) * 1e3 if "samples" in bare else None
    notes = [isolate.seccomp_status(), "fork + RLIMIT_AS + seccomp filter + one message + exit + wait" +
             (f"; without the filter {bare_ms:.1f} ms (importing its binding, pyseccomp, is most of the "
              "difference)" if bare_ms is not None else "")]
    return H.make_row("1", "1c", "start-up: the run's child process (the process wall)", "ms", results, "wall",
                      scale=1e3, notes=notes, contenders=["gradcli"])


# ----------------------------------------------------------------------------- isolation

def _isolated(case, names, cfg, repeats, warmup=None, param=None, env=None, gap=0.05):
    ok, why = torch_available(cfg)
    run = [n for n in names if ok or n != "torch"]
    results, infos = H.alternate_isolated(case, run, cfg.quick, repeats, cfg.warmup if warmup is None else warmup,
                                          param=param, env=env, cwd=ROOT, gap=gap)
    if not ok and "torch" in names:
        results["torch"] = {"status": H.SKIP, "reason": why}
    return results, infos


ISOLATION_NOTE = ("each contender runs in a process of its own, driven in turn by the parent (alternated "
                  "repeats; the process holds only that contender's library)")


# ----------------------------------------------------------------------------- 2 per-op overhead

def _chain_n(cfg):
    return 1_000 if cfg.quick else 10_000


def _with_cpu(fn):
    def run():
        c0 = time.process_time()
        measures = fn()
        measures["cpu"] = time.process_time() - c0
        return measures
    return run


def factory2(name, cfg, param):
    n = _chain_n(cfg)
    if name == "gradcli-script":
        return _chain_script_factory(cfg, n)
    if name == "numpy":
        return _with_cpu(lambda: W.numpy_chain(n)), {}
    T = _torch(cfg) if name == "torch" else W.gradcli_api()
    return _with_cpu(lambda: W.chain(T, n)), {}


def _chain_script_factory(cfg, n):
    """The chain as a .grad script loop (run_source, in process): per op = (t(n ops) - t(n / 10
    ops)) / (0.9 n), so parsing, compiling and the set-up cancel."""
    runner = _ScriptRunner(cfg)
    if runner.run is None:
        raise H.Skip("neither gradcli.lang.runner nor the gradcli CLI is there yet")
    short, long_ = S.chain_script(n // 10, W.MUL, W.ADD), S.chain_script(n, W.MUL, W.ADD)
    runner.run(short)
    ops = n - n // 10

    def run():
        w1, c1 = H.clocked(lambda: runner.run(short))
        w2, c2 = H.clocked(lambda: runner.run(long_))
        return {"total": (w2 - w1) * n / ops, "cpu": (c2 - c1) * n / ops}
    return run, {"note": f".grad script ({runner.how}); per op = (t({n:,} ops) - t({n // 10:,} ops)) / {ops:,}"}


def case2(cfg):
    n = _chain_n(cfg)
    results, infos = _isolated(2, ["gradcli", "gradcli-script", "torch", "numpy"], cfg, cfg.reps(11, 2))
    script_results = {"gradcli": results.pop("gradcli-script"), "torch": results["torch"], "numpy": results["numpy"]}
    script_notes = [v for k, v in infos.get("gradcli-script", {}).items() if k == "note"]
    per_op = 1e6 / n
    note = (f"chain of {n:,} 0-d float32 ops alternating y * {W.MUL} and y + {W.ADD} (Python float operands), "
            "then y.backward(); numpy: a minimal tape (one object and one tape entry per op); " + ISOLATION_NOTE)
    return [
        H.make_row("2", "2", f"per-op overhead, {n:,} 0-d ops fwd+bwd", "us/op", results, "total", scale=per_op,
                   target={"kind": "ratio", "vs": "torch", "max": 0.4}, target_text="<= 0.4x torch", notes=[note],
                   cpu_measure="cpu"),
        H.make_row("2", "2 fwd", "  forward part", "us/op", results, "fwd", scale=per_op),
        H.make_row("2", "2 bwd", "  backward part", "us/op", results, "bwd", scale=per_op),
        H.make_row("2", "2 .grad", "per-op overhead through a .grad script loop", "us/op", script_results, "total",
                   scale=per_op, target={"kind": "ratio", "vs": "torch", "max": 0.4}, target_text="<= 0.4x torch",
                   notes=script_notes, cpu_measure="cpu"),
    ]


# ----------------------------------------------------------------------------- 3 the seeds' loop

class _ScriptRunner:
    """Runs a .grad text with gradcli: in process through gradcli.lang.runner when it exists,
    else through the CLI (whole process; the two-length subtraction removes start-up)."""

    def __init__(self, cfg):
        self.how = None
        self.run = None
        try:
            runner = importlib.import_module("gradcli.lang.runner")
            run_source, options = runner.run_source, runner.RunOptions
        except (ImportError, AttributeError):
            runner = None
        if runner is not None:
            def run(text):
                result = run_source(text, "<bench>", options(), write=lambda *a, **k: None)
                if not result.ok:
                    err = result.error
                    raise RuntimeError(f"script failed: {getattr(err, 'type_name', '')}: "
                                       f"{getattr(err, 'message', err)} (line {getattr(err, 'line', '?')})")
            self.run, self.how = run, "in process, gradcli.lang.runner.run_source"
            return
        cmd = _gradcli_command(cfg)
        if cmd is None:
            return
        tmp = Path(tempfile.mkdtemp(prefix="gradcli-bench-"))

        def run_cli(text):
            path = tmp / "loop.grad"
            path.write_text(text, encoding="utf-8")
            proc = subprocess.run(cmd + ["run", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                raise RuntimeError(f"gradcli run exit {proc.returncode}: {_last_line(proc.stderr)}")
        self.run, self.how = run_cli, "whole process, `gradcli run`"


def _loop_steps(cfg):
    return 50 if cfg.quick else 1000


def factory3(name, cfg, param):
    steps = _loop_steps(cfg)
    sizes = [10, 5, 2]
    x_np, y_np = W.make_data(32, 10, 2)
    if name == "numpy":
        nm = W.NumpyModel(sizes)
        return _per_step(lambda: nm.train(x_np, y_np, steps), steps), {}
    if name == "gradcli-script":
        return _script_factory(cfg)
    T = _torch(cfg) if name == "torch" else W.gradcli_api()
    model = W.Model(T, sizes, kind="nn" if name == "torch" else None)
    x, y = T.from_numpy(x_np), T.from_numpy(y_np)
    return _per_step(lambda: model.train(x, y, steps), steps), {"kind": model.kind}


def _per_step(fn, steps):
    def run():
        wall, cpu = H.clocked(fn)
        return {"step": wall / steps, "cpu": cpu / steps}
    return run


def _script_factory(cfg):
    runner = _ScriptRunner(cfg)
    if runner.run is None:
        raise H.Skip("neither gradcli.lang.runner nor the gradcli CLI is there yet")
    n1, n2 = (5, 25) if cfg.quick else (100, 600)
    failures = []
    for label, template in S.TRAIN_SCRIPTS:
        try:
            runner.run(S.train_script(template, 2))
        except Exception as exc:  # noqa: BLE001 - try the next, plainer form
            failures.append(f"{label.split(' (')[0]}: {H.describe_error(exc)[1]}")
            continue
        short, long_ = S.train_script(template, n1), S.train_script(template, n2)

        def script_run():
            w1, c1 = H.clocked(lambda: runner.run(short))
            w2, c2 = H.clocked(lambda: runner.run(long_))
            return {"step": (w2 - w1) / (n2 - n1), "cpu": (c2 - c1) / (n2 - n1)}

        info = {"note": f".grad script ({runner.how}): {label}; per step = (t({n2} steps) - t({n1} steps)) / "
                        f"{n2 - n1}"}
        if failures:
            info["failed"] = "richer script forms that failed: " + " | ".join(failures)
        return script_run, info
    raise H.Skip("no form of the loop runs yet: " + " | ".join(failures))


def case3(cfg):
    steps = _loop_steps(cfg)
    names = ["gradcli", "gradcli-script", "torch", "numpy"]
    results, infos = _isolated(3, names, cfg, cfg.reps(7, 1))
    notes = []
    kind = infos.get("gradcli", {}).get("kind")
    if kind:
        notes.append("gradcli API: " + ("api.nn.Linear + api.optim.SGD + mse_loss" if kind == "nn" else
                                        "engine primitives (addmm, relu, mean of squares, SGD by add_ under "
                                        "no_grad): api.nn/api.optim are not there yet"))
    script_info = infos.get("gradcli-script", {})
    script_notes = [v for k, v in script_info.items() if k in ("note", "failed")]
    notes.append(f"Linear(10,5) -> relu -> Linear(5,2), MSE, SGD lr 0.01, batch 32, {steps} steps of zero_grad, "
                 "forward, loss, backward, step; torch: nn.Linear + optim.SGD + F.mse_loss; numpy: by hand; "
                 + ISOLATION_NOTE)
    api_results = {k: results[k] for k in ("gradcli", "torch", "numpy")}
    script_results = {"gradcli": results["gradcli-script"], "torch": results["torch"], "numpy": results["numpy"]}
    return [
        H.make_row("3", "3 api", "seeds' loop through the engine API", "ms/step", api_results, "step", scale=1e3,
                   target={"kind": "ratio", "vs": "torch", "max": 0.5}, target_text="<= 0.5x torch", notes=notes,
                   cpu_measure="cpu"),
        H.make_row("3", "3 .grad", "seeds' loop through a .grad script", "ms/step", script_results, "step",
                   scale=1e3, target={"kind": "ratio", "vs": "torch", "max": 0.35}, target_text="<= 0.35x torch",
                   notes=script_notes, cpu_measure="cpu"),
    ]


# ----------------------------------------------------------------------------- 4 the large step

def _blas_kernel():
    try:
        import threadpoolctl  # noqa: PLC0415

        for p in threadpoolctl.threadpool_info():
            if p.get("user_api") == "blas":
                return f"{p.get('internal_api')} kernel {p.get('architecture')}, {p.get('num_threads')} threads"
    except ImportError:
        pass
    return None


def _large_sizes(cfg):
    if cfg.quick:
        return [128, 256, 256, 10], 64, 256
    return [1024, 2048, 2048, 10], 512, 2048


def factory4(name, cfg, param):
    import numpy as np  # noqa: PLC0415

    sizes, batch, mm_n = _large_sizes(cfg)
    x_np, y_np = W.make_data(batch, sizes[0], sizes[-1])
    if name == "matmul":
        a = np.random.default_rng(2).standard_normal((mm_n, mm_n)).astype(np.float32)
        b = np.random.default_rng(3).standard_normal((mm_n, mm_n)).astype(np.float32)
        return (lambda: {"s": H.timed(lambda: a @ b)}), {"blas": _blas_kernel()}
    if name == "numpy":
        nm = W.NumpyModel(sizes)
        return (lambda: {"s": H.timed(lambda: nm.fwd_bwd(x_np, y_np))}), {"blas": _blas_kernel()}
    T = _torch(cfg) if name == "torch" else W.gradcli_api()
    model = W.Model(T, sizes, kind="nn" if name == "torch" else None)
    x, y = T.from_numpy(x_np), T.from_numpy(y_np)
    info = {"kind": model.kind, "blas": _blas_kernel()}
    if name == "torch":
        info["threads"] = T.get_num_threads()
    return (lambda: {"s": H.timed(lambda: model.fwd_bwd(x, y))}), info


def case4(cfg):
    sizes, batch, mm_n = _large_sizes(cfg)
    set_vars = [v for v in OPENBLAS_VARS if v in os.environ]
    env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_VARS} if set_vars else None
    # the pause lets the previous contender's BLAS/OpenMP threads stop spinning (OpenBLAS and libgomp
    # busy-wait a while after a call) before the next one starts on the same 2 cores
    results, infos = _isolated(4, ["gradcli", "torch", "numpy", "matmul"], cfg, cfg.reps(7, 2), warmup=1, env=env,
                              gap=0.05 if cfg.quick else 0.5)
    flops = W.mlp_flops(sizes, batch)
    for res in results.values():
        if "samples" in res and "s" in res["samples"]:
            res["samples"]["gflops"] = [flops / t / 1e9 for t in res["samples"]["s"]]
    mm = results["matmul"]
    mm_gflops = None
    if "samples" in mm and mm["samples"].get("s"):
        times = sorted(mm["samples"]["s"])
        mm_gflops = 2 * mm_n ** 3 / times[len(times) // 2] / 1e9
    arch = " -> ".join(map(str, sizes))
    notes = [f"MLP {arch} (relu between), batch {batch}, float32, MSE loss, forward + backward "
             f"(gradients set to None first; no optimizer step); {flops / 1e9:.2f} GFLOP of matmul per step; "
             + ISOLATION_NOTE + " (in one process, torch's OpenMP threads cut NumPy's BLAS rate several-fold)"]
    kind = infos.get("gradcli", {}).get("kind")
    if kind:
        notes.append("gradcli model: " + ("api.nn.Linear" if kind == "nn" else "engine primitives (addmm, relu, mean)"))
    if set_vars:
        notes.append(f"run with {' and '.join(OPENBLAS_VARS)} unset in the contenders' processes (set here: "
                     f"{', '.join(set_vars)}; they select a slower OpenBLAS kernel)")
    blas = infos.get("numpy", {}).get("blas")
    if blas:
        notes.append("NumPy BLAS in the contenders' processes: " + blas)
    if infos.get("torch", {}).get("threads"):
        notes.append(f"torch intra-op threads: {infos['torch']['threads']}")
    gf_notes = []
    if mm_gflops:
        gf_notes.append(f"NumPy's own {mm_n}x{mm_n} float32 matmul on this machine: {mm_gflops:.0f} GFLOP/s "
                        "(the BLAS ceiling the step is judged against)")
    rows = [
        H.make_row("4", "4", f"large step, MLP {arch}, batch {batch}", "ms", results, "s", scale=1e3,
                   target={"kind": "ratio", "vs": "torch", "max": 1.0}, target_text="<= 1.0x torch", notes=notes,
                   contenders=["gradcli", "torch", "numpy"]),
        H.make_row("4", "4 GF/s", "  matmul throughput of the step", "GFLOP/s", results, "gflops",
                   higher_is_better=True, notes=gf_notes, contenders=["gradcli", "torch", "numpy"]),
    ]
    if mm_gflops:
        rows[1]["notes"].append("share of that rate: " + ", ".join(
            f"{name} {100 * value / mm_gflops:.0f}%" for name, value in rows[1]["values"].items()))
    return rows


# ----------------------------------------------------------------------------- 5, 6: subprocesses

def _worker(task, contender, arg, cfg):
    def run():
        if contender == "torch":
            _torch(cfg)
        cmd = [sys.executable, "-m", "bench.worker", task, contender, str(arg)]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1200)
        if proc.returncode != 0:
            raise RuntimeError(f"worker exit {proc.returncode}: {_last_line(proc.stderr)}")
        out = _json_tail(proc.stdout)
        return {k: v for k, v in out.items() if isinstance(v, (int, float)) and v is not None}
    return run


def case5(cfg):
    n = 20_000 if cfg.quick else 1_000_000
    contenders = {name: _worker("chain", name, n, cfg) for name in ("gradcli", "torch", "numpy")}
    results = H.alternate(contenders, cfg.reps(2), 0)
    for res in results.values():
        s = res.get("samples", {})
        if "lifetime_peak_kb" in s:
            s["peak_mb"] = [v / 1024 for v in s["lifetime_peak_kb"]]
        if "extra_kb" in s:
            s["extra_mb"] = [v / 1024 for v in s["extra_kb"]]
    notes = [f"{n:,} 0-d ops (as case 2) forward + backward, each contender in its own process, run "
             f"{cfg.reps(2)} time(s), alternated",
             "peak: the process's whole peak RSS, imports included (VmHWM from /proc/self/status); extra: VmHWM "
             "during the chain (reset through /proc/self/clear_refs) minus VmRSS before it; resident memory, "
             "so NumPy's and torch's allocations count alike (tracemalloc would miss torch's)"]
    return [
        H.make_row("5", "5 time", f"deep chain, {n:,} ops, fwd+bwd", "s", results, "total",
                   target={"kind": "ratio", "vs": "torch", "max": 0.35}, target_text="<= 0.35x torch", notes=notes,
                   cpu_measure="cpu"),
        H.make_row("5", "5 peak", "  peak RSS of the process", "MiB", results, "peak_mb",
                   target={"kind": "ratio", "vs": "torch", "max": 0.6}, target_text="<= 0.6x torch"),
        H.make_row("5", "5 extra", "  peak RSS above the start", "MiB", results, "extra_mb"),
    ]


def case6(cfg):
    n = 1 << 17 if cfg.quick else 4 * 1024 * 1024
    contenders = {name: _worker("elementwise", name, n, cfg) for name in ("gradcli", "torch", "numpy")}
    results = H.alternate(contenders, cfg.reps(3), 0)
    for res in results.values():
        s = res.get("samples", {})
        if "extra_kb" in s:
            s["extra_mb"] = [v / 1024 for v in s["extra_kb"]]
    mb = n * 4 / 2 ** 20
    size = f"{mb:.0f} MiB" if mb >= 10 else f"{mb:.2f} MiB"
    notes = [f"50 elementwise ops (sin, *1.01, tanh, +0.1, exp, x10) on {n:,} float32 ({size}), then "
             "sum().backward(); extra = VmHWM during the ops and backward minus VmRSS before (input and "
             "imports already there); own process per contender",
             f"for scale: one tensor is {size}; keeping what the derivatives need (sin's input, tanh's and "
             f"exp's outputs: 21 tensors) is {21 * mb:.1f} MiB"]
    return [
        H.make_row("6", "6", f"memory, 50 elementwise ops on {n:,} floats", "MiB", results, "extra_mb",
                   target={"kind": "ratio", "vs": "torch", "max": 1.0}, target_text="<= 1.0x torch", notes=notes),
        H.make_row("6", "6 time", "  time of the same run", "s", results, "wall"),
    ]


# ----------------------------------------------------------------------------- 7 parse and compile

def _gradcli_parse():
    """A callable text -> None that parses and compiles (to closures, not running them) as
    `gradcli run` does, and its label; parse only while the compiler is not there."""
    try:
        parser = importlib.import_module("gradcli.lang.parser")
    except ImportError as exc:
        raise H.Skip(f"gradcli.lang.parser is not there yet ({exc})") from None
    try:
        runner = importlib.import_module("gradcli.lang.runner")
        compiler = importlib.import_module("gradcli.lang.compiler")
        session = runner.Session(runner.RunOptions())
        Compiler = compiler.Compiler
    except (ImportError, AttributeError):
        def parse_only(text):
            parser.parse(text, "<bench>")
        return parse_only, "parse only (no gradcli.lang.compiler yet)"

    def both(text):
        t0 = time.perf_counter()
        module = parser.parse(text, "<bench>")
        t1 = time.perf_counter()
        Compiler(session.rt, session.namespaces, session.globals, "<bench>").compile_module(module)
        return {"parse": t1 - t0, "compile": time.perf_counter() - t1}
    return both, "gradcli.lang.parser.parse + Compiler.compile_module (closures built, not run)"


def _lark_python():
    try:
        from lark import Lark  # noqa: PLC0415
        from lark.indenter import PythonIndenter  # noqa: PLC0415
    except ImportError:
        raise H.Skip("lark is not installed") from None
    t0 = time.perf_counter()
    parser = Lark.open_from_package("lark", "python.lark", ["grammars"], parser="lalr",
                                    postlex=PythonIndenter(), start="file_input", propagate_positions=True)
    return parser, time.perf_counter() - t0


def _parse_sizes(cfg):
    return [(500, 1)] if cfg.quick else [(10_000, 3), (100_000, 1)]


def _parse_text(count):
    """The parser engineer's generator (bench/parse_bench.py, make_script) when it is there, so the
    two benchmarks read the same text; else bench/scripts.py's."""
    try:
        from . import parse_bench  # noqa: PLC0415

        return parse_bench.make_script(count), "bench/parse_bench.py make_script (tutorial-style lines, " \
                                               "for blocks, an nn.Module class)"
    except (ImportError, AttributeError):
        return S.parse_script(count), "bench/scripts.py parse_script (tutorial-style lines)"


def factory7(name, cfg, count):
    text, _ = _parse_text(count)
    if name == "ast":
        return _wall_cpu(lambda: ast.parse(text)), {}
    if name == "lark":
        parser, build = _lark_python()
        return _wall_cpu(lambda: parser.parse(text)), {"build": build}
    gparse, how = _gradcli_parse()
    gparse("x = 1\n")  # builds the parser tables outside the measurement
    def run():
        t0, c0 = time.perf_counter(), time.process_time()
        split = gparse(text) or {}
        return {"s": time.perf_counter() - t0, "cpu": time.process_time() - c0, **split}
    return run, {"how": how}


def _wall_cpu(fn):
    def run():
        wall, cpu = H.clocked(fn)
        return {"s": wall, "cpu": cpu}
    return run


def case7(cfg):
    rows = []
    for count, reps in _parse_sizes(cfg):
        big = count > 10_000
        names = ["gradcli", "ast"] if big and not cfg.lark_100k else ["gradcli", "lark", "ast"]
        results, infos = _isolated(7, names, cfg, cfg.reps(reps), warmup=0, param=count)
        notes = []
        if "lark" not in names:
            results["lark"] = {"status": H.SKIP, "reason": "Lark at this size is left out of the default run (about "
                               "10x its 10k time, minutes here; --lark-100k runs it); its ratio at 10k stands"}
        if count == _parse_sizes(cfg)[0][0]:
            if "how" in infos.get("gradcli", {}):
                notes.append(f"gradcli: {infos['gradcli']['how']}; parser tables built before timing")
            if "build" in infos.get("lark", {}):
                notes.append("lark: stock python.lark, LALR, PythonIndenter, propagate_positions=True; building "
                             f"it ({infos['lark']['build']:.1f} s) is not counted")
            notes.append(f"ast: CPython's ast.parse (the floor); the text (GradScript that is also valid "
                         f"Python) from {_parse_text(10)[1]}; " + ISOLATION_NOTE)
        gs = results.get("gradcli", {}).get("samples", {})
        if gs.get("compile"):
            med = H.statistics.median
            notes.append(f"gradcli at {count:,}: parse {med(gs['parse']):.3g} s + compile {med(gs['compile']):.3g} s")
        first = count == _parse_sizes(cfg)[0][0]
        target = {"kind": "parse", "max_s": 2.0, "min_speedup": 4.0} if (first and not cfg.quick) else None
        text_mb = len(_parse_text(count)[0]) / 1e6
        rows.append(H.make_row("7", f"7 {count // 1000}k" if count >= 1000 else f"7 {count}",
                               f"parse+compile, {count:,} statements ({text_mb:.2f} MB)", "s", results, "s",
                               ref="lark", floor="ast", target=target,
                               target_text="<= 2 s and >= 4x faster than lark" if target else "", notes=notes,
                               cpu_measure="cpu"))
    return rows


from .citest import case8  # noqa: E402 - case 8 lives in its own module
from .random_case import case9, factory9  # noqa: E402 - and case 9

CASES = {1: case1, 2: case2, 3: case3, 4: case4, 5: case5, 6: case6, 7: case7, 8: case8, 9: case9}
FACTORIES = {2: factory2, 3: factory3, 4: factory4, 7: factory7, 9: factory9}
