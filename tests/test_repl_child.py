"""The REPL behind the process wall (issue 15, item 2): the session lives in one child process
across inputs; this process keeps the terminal. A child that dies (killed, a C call past
--timeout) gives one clear line and a fresh session; a memory blowup is an error, not the end."""
from __future__ import annotations

import importlib.util
import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gradcli.cli import isolate

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not isolate.available(), reason="no fork on this platform")
HAVE_PEXPECT = importlib.util.find_spec("pexpect") is not None

ENDED = "gradcli: the session's process ended ("
FRESH = "starting a fresh one: earlier names are gone"


def env(tmp_path, **extra):
    e = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE", "GRADCLI_IN_PROCESS")}
    e.update(HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"), NO_COLOR="1",
             PYTHONPATH=os.pathsep.join([str(ROOT), e.get("PYTHONPATH", "")]), **extra)
    return e


def repl_stdin(tmp_path, text, *args, **extra):
    return subprocess.run([sys.executable, "-m", "gradcli", "repl", *args], input=text, capture_output=True,
                          text=True, cwd=tmp_path, env=env(tmp_path, **extra), timeout=120)


@pytest.fixture
def child_repl():
    from gradcli.lang.runner import RunOptions
    from gradcli.repl.child import ChildRepl

    out, err = io.StringIO(), io.StringIO()
    # no step limit: an endless loop runs until the test kills its process
    repl = ChildRepl(RunOptions(max_steps=10 ** 15), out=out, err=err, color=False, max_memory=1 << 30)
    yield repl, out, err
    repl.close()


def test_state_lives_in_one_child_across_inputs(child_repl):
    repl, out, err = child_repl
    pid = repl.worker.pid
    assert pid and pid != os.getpid()
    assert repl.handle("x = torch.tensor([1., 2.], requires_grad=True)")
    assert repl.handle("y = (x * x).sum()\ny.backward()")
    assert repl.handle("print(x.grad)")
    assert out.getvalue() == "tensor([2., 4.])\n" and err.getvalue() == ""
    assert repl.worker.pid == pid and {"x", "y"} <= set(repl.scope())  # the same child; its names came back
    partial, words = repl.complete("x.gr")  # completion asks the child, which holds x
    assert partial == "gr" and {"grad", "grad_fn"} <= set(words) and all(w.startswith("gr") for w in words)
    assert repl.errors == 0


def test_a_child_killed_mid_input_gives_a_message_and_a_fresh_session(child_repl):
    repl, out, err = child_repl
    assert repl.handle("x = 5")
    pid = repl.worker.pid
    threading.Timer(1.0, os.kill, (pid, signal.SIGKILL)).start()
    assert repl.handle("while True:\n    pass\n")  # the REPL goes on
    assert err.getvalue().count(ENDED + "killed by SIGKILL") == 1 and FRESH in err.getvalue(), err.getvalue()
    assert repl.worker.pid not in (None, pid)
    assert repl.handle("print(x)")
    assert "NameError: name 'x' is not defined" in err.getvalue()
    assert repl.handle("z = 6 * 7\nprint(z)")
    assert out.getvalue() == "42\n"
    assert repl.errors == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_child_killed_between_inputs_is_noticed_at_the_next(child_repl):
    repl, out, err = child_repl
    assert repl.handle("x = 5")
    pid = repl.worker.pid
    os.kill(pid, signal.SIGKILL)
    for _ in range(500):  # dead (a zombie, not yet waited for) before the next input
        with open(f"/proc/{pid}/stat") as fh:
            if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.01)
    assert repl.handle("print(3)")  # runs in the fresh session
    assert ENDED + "killed by SIGKILL" in err.getvalue()
    assert repl.handle("print(4)")
    assert out.getvalue() == "3\n4\n"


def test_memory_blowup_is_reported_and_the_repl_continues(tmp_path):
    code = ("x = 1\nl = []\nfor i in range(100):\n    l.append('x' * 10 ** 7)\n\nprint(x)\n"
            "del l\nt = torch.ones(3)\nprint(t.sum())\n")
    r = repl_stdin(tmp_path, code, "--max-memory", "300M")
    assert r.returncode == 1
    assert "MemoryError: the run needs more memory than --max-memory allows (300 MiB)" in r.stderr, r.stderr
    assert ENDED not in r.stderr  # the same session: x is still there
    assert r.stdout == "1\ntensor(3.)\n"


def test_timeout_inside_a_c_call_ends_the_child_and_a_fresh_one_follows(tmp_path):
    # one BLAS call of 250 GFLOP (a float64 product of two 5000 x 5000 matrices): seconds on any CPU
    code = ("import torch\nx = 1\na = torch.ones(5000, 5000, dtype=torch.float64)\ny = a @ a\n"
            "print(x)\nprint(6 * 7)\n")
    r = repl_stdin(tmp_path, code, "--timeout", "1")
    assert r.returncode == 1
    assert r.stderr.count(ENDED + "the input ran past --timeout 1 s inside one long operation") == 1, r.stderr
    assert "NameError: name 'x' is not defined" in r.stderr
    assert r.stdout == "42\n"


def test_save_is_written_by_the_parent_under_seccomp(tmp_path):
    r = repl_stdin(tmp_path, "a = 2\nprint(a)\n:save out.grad\n")
    assert r.returncode == 0 and r.stdout.endswith("Saved 2 inputs to out.grad.\n"), (r.stdout, r.stderr)
    assert (tmp_path / "out.grad").read_text() == "a = 2\nprint(a)\n"


def test_in_process_escape_hatch(tmp_path):
    r = repl_stdin(tmp_path, "x = 1\nprint(x + 1)\n", GRADCLI_IN_PROCESS="1")
    assert r.returncode == 0 and r.stdout == "2\n"


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


@pytest.mark.skipif(not HAVE_PEXPECT or not sys.platform.startswith("linux"), reason="needs pexpect and /proc")
def test_tty_session_survives_its_child_being_killed(tmp_path):
    import pexpect

    child = pexpect.spawn(sys.executable, ["-m", "gradcli", "repl"], env=env(tmp_path, TERM="xterm",
                          PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="120", LINES="40"),
                          cwd=str(tmp_path), encoding="utf-8", timeout=30, dimensions=(40, 120))
    def prompt():
        child.expect_exact("\x1b[?2004h")  # the line editor takes the terminal: the prompt follows
        child.expect_exact(">>>")

    try:
        prompt()
        child.sendline("x = 5")
        child.expect_exact("\x1b[?2004l")
        prompt()
        kids = _children(child.pid)
        assert len(kids) == 1
        os.kill(kids[0], signal.SIGKILL)
        child.sendline("print(x)")
        child.expect_exact(ENDED + "killed by SIGKILL")
        child.expect_exact("NameError")
        prompt()
        child.sendline("print(6 * 7)")
        child.expect_exact("42")
        prompt()
        assert len(_children(child.pid)) == 1
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
