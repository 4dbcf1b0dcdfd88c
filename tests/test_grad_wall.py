"""`gradcli grad` behind the process wall (issue 15, item 2): the calculation runs in a forked
child, so --timeout ends it inside a long C call and --max-memory caps it; the output and the
JSON document are the same as in-process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.cli import isolate

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not isolate.available(), reason="no fork on this platform")


def grad(*args, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE", "GRADCLI_IN_PROCESS")}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]), **extra)
    return subprocess.run([sys.executable, "-m", "gradcli", "grad", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)


@pytest.mark.parametrize("args", [("x**2", "x=3"), ("--json", "--order", "2", "(w*x).sum()", "w=[1,2]", "x=[3,4]"),
                                  ("y**2", "x=3")], ids=["plain", "json", "error"])
def test_same_output_as_in_process(args):
    child, here = grad(*args), grad(*args, GRADCLI_IN_PROCESS="1")
    assert (child.returncode, child.stdout, child.stderr) == (here.returncode, here.stdout, here.stderr)
    assert child.stdout or child.stderr


def test_timeout_holds_inside_a_c_call():
    r = grad("--timeout", "1", "--json", "x * len(sorted(torch.rand(10**7).tolist()))", "x=2")
    assert r.returncode == 1
    doc = json.loads(r.stdout)  # exactly one document
    assert doc["error"]["type"] == "TimeoutError" and "--timeout" in doc["error"]["message"]
    t = grad("--timeout", "1", "x * len(sorted(torch.rand(10**7).tolist()))", "x=2")
    assert t.returncode == 1 and t.stdout == "" and t.stderr.count("TimeoutError") == 1, t.stderr


def test_memory_cap_is_a_clear_error():
    r = grad("--max-memory", "200M", "torch.ones(60000000).sum()*x", "x=1")
    assert r.returncode == 1 and r.stdout == ""
    assert "MemoryError: the run needs more memory than --max-memory allows (200 MiB)" in r.stderr, r.stderr
