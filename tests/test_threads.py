"""torch.get_num_threads / set_num_threads (gradcli/engine/threads.py): torch's default count from
the environment, and a script's set_num_threads kept within its run (the REPL, `gradcli test` and
the tests run many scripts in one process)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.engine import numerics, threads
from gradcli.lang.runner import RunOptions, Session, run_source

ROOT = Path(__file__).resolve().parent.parent
HAVE_TORCH = importlib.util.find_spec("torch") is not None
ENV_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_DYNAMIC")
CORES = threads.physical_cores()

# (environment, expected count as a function of the physical cores): ATen's init_num_threads takes
# mkl_get_max_threads(): MKL_NUM_THREADS, else OMP_NUM_THREADS's first entry, else the cores, capped
# at the cores unless MKL_DYNAMIC=false; a value that is not a positive integer is ignored
RULES = [({}, lambda c: c), ({"OMP_NUM_THREADS": "1"}, lambda c: 1),
         ({"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "1"}, lambda c: 1),
         ({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "64"}, lambda c: min(64, c)),
         ({"OMP_NUM_THREADS": "64"}, lambda c: min(64, c)),
         ({"OMP_NUM_THREADS": "5", "MKL_DYNAMIC": "FALSE"}, lambda c: 5),
         ({"OMP_NUM_THREADS": "5", "MKL_DYNAMIC": "0"}, lambda c: min(5, c)),
         ({"OMP_NUM_THREADS": "0"}, lambda c: c), ({"OMP_NUM_THREADS": "two"}, lambda c: c),
         ({"OMP_NUM_THREADS": "1,2"}, lambda c: 1), ({"MKL_NUM_THREADS": "x", "OMP_NUM_THREADS": "1"}, lambda c: 1)]
IDS = [",".join(f"{k}={v}" for k, v in env.items()) or "unset" for env, _ in RULES]


def _env(extra):
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    env.update(extra)
    return env


def _python(code, extra):
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=_env(extra),
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


@pytest.mark.parametrize("extra, expected", RULES, ids=IDS)
def test_default_rule(extra, expected):
    assert threads.default_num_threads(extra) == expected(CORES)


def test_physical_cores_are_within_the_cpus_we_may_use():
    assert 1 <= CORES <= len(os.sched_getaffinity(0))


@pytest.mark.parametrize("extra", [{"OMP_NUM_THREADS": "1"}, {"MKL_NUM_THREADS": "1"}, {}], ids=["omp1", "mkl1", "unset"])
def test_environment_sets_num_threads_at_import(extra):
    got = _python("from gradcli.engine import numerics\nprint(numerics.NUM_THREADS)", extra)
    assert int(got) == (1 if extra else CORES)
    out = _python("from gradcli.lang.runner import run_source\n"
                  "print(run_source('import torch\\nprint(torch.get_num_threads())').stdout, end='')", extra)
    assert int(out) == (1 if extra else CORES)


@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")
@pytest.mark.parametrize("extra", [RULES[i][0] for i in (0, 1, 3, 5, 7)], ids=[IDS[i] for i in (0, 1, 3, 5, 7)])
def test_default_is_torchs(extra):
    theirs = _python("import torch\nprint(torch.get_num_threads())", extra)
    ours = _python("from gradcli.engine import threads\nprint(threads.default_num_threads())", extra)
    assert ours == theirs


def _out(source, session=None):
    result = (session.run(source, "t.grad") if session is not None
              else run_source(source, "t.grad", RunOptions(seed=0)))
    assert result.error is None, result.error.message
    return result.stdout


SUM = "x = torch.arange(100003, dtype=torch.float32).sin()\nprint(f'{x.sum().item():.10f}')\n"


def test_set_num_threads_changes_the_split_and_does_not_leak_into_the_next_run():
    before = threads.snapshot()
    n = threads.DEFAULT
    other = 1 if n != 1 else 3
    default_sum = _out("import torch\n" + SUM)
    out = _out(f"import torch\ntorch.set_num_threads({other})\nprint(torch.get_num_threads())\n" + SUM)
    assert out.split("\n")[0] == str(other)
    assert out.split("\n")[1] != default_sum.strip()  # the sum's bits depend on the split
    assert threads.snapshot() == before and numerics.NUM_THREADS == n
    assert _out("import torch\nprint(torch.get_num_threads())\n" + SUM) == f"{n}\n{default_sum}"
    # a run that fails after set_num_threads leaves nothing behind either
    failed = run_source(f"import torch\ntorch.set_num_threads({other})\n1 / 0\n", "t.grad")
    assert failed.error is not None and threads.snapshot() == before


def test_set_num_threads_lasts_for_a_repl_session_only():
    session = Session(RunOptions(seed=0))
    _out("import torch\ntorch.set_num_threads(7)", session)
    assert threads.get_num_threads() == threads.DEFAULT
    assert _out("print(torch.get_num_threads())", session) == "7\n"
    assert _out("import torch\nprint(torch.get_num_threads())") == f"{threads.DEFAULT}\n"


def test_outer_setting_of_tests_is_kept_around_a_run():
    old = numerics.NUM_THREADS
    numerics.NUM_THREADS = 5
    try:
        assert _out("import torch\nprint(torch.get_num_threads())") == f"{threads.DEFAULT}\n"
        assert numerics.NUM_THREADS == 5
    finally:
        numerics.NUM_THREADS = old


BAD_CALLS = [("torch.set_num_threads(0)", "RuntimeError: set_num_threads expects a positive integer"),
             ("torch.set_num_threads(-3)", "RuntimeError: set_num_threads expects a positive integer"),
             ("torch.set_num_threads(True)", "RuntimeError: set_num_threads expects an int, but got bool"),
             ("torch.set_num_threads(2.0)", "RuntimeError: set_num_threads expects an int, but got float"),
             ("torch.set_num_threads('4')", "RuntimeError: set_num_threads expects an int, but got str"),
             ("torch.set_num_threads(torch.tensor(2))", "RuntimeError: set_num_threads expects an int, but got Tensor"),
             ("torch.set_num_threads(2**31)", "ValueError: Overflow when unpacking long"),
             ("torch.set_num_threads(-2**40)", "ValueError: Overflow when unpacking long"),
             ("torch.set_num_threads()", "TypeError: torch.set_num_threads() takes exactly one argument (0 given)"),
             ("torch.set_num_threads(1, 2)", "TypeError: torch.set_num_threads() takes exactly one argument (2 given)"),
             ("torch.set_num_threads(n=3)", "TypeError: torch.set_num_threads() takes no keyword arguments"),
             ("torch.get_num_threads(1)", "TypeError: torch.get_num_threads() takes no arguments (1 given)"),
             ("torch.get_num_threads(n=1)", "TypeError: torch.get_num_threads() takes no keyword arguments")]


@pytest.mark.parametrize("call, message", BAD_CALLS)
def test_bad_calls_are_refused_as_torch_refuses_them(call, message):
    result = run_source(f"import torch\n{call}\n", "t.grad")
    assert f"{result.error.type_name}: {result.error.message}" == message
    assert threads.get_num_threads() == threads.DEFAULT


def test_a_huge_count_is_answered_but_splits_and_mkl_stay_bounded():
    out = _out("import torch\ntorch.set_num_threads(2**31 - 1)\nprint(torch.get_num_threads())\n"
               "print(torch.ones(100000).sum(), torch.ones(70000).var())\n"
               "a = torch.ones(300, 300)\nprint((a @ a)[0, 0])\n")
    assert out == "2147483647\ntensor(100000.) tensor(0.)\ntensor(300.)\n"


def test_numpy_integers_are_counts():
    assert _out("import torch\nimport numpy as np\ntorch.set_num_threads(np.int64(3))\n"
                "print(torch.get_num_threads())") == "3\n"
