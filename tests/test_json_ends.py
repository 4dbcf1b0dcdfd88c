"""`run --json` prints exactly one strict document however a run ends (issue 15, item 4): an
interrupt or SIGTERM (with the lines printed so far), a timeout, a lone surrogate printed, a file
name that is not UTF-8; impossible option values are usage errors."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gradcli.lang.runner import RunOptions, run_source

ROOT = Path(__file__).resolve().parent.parent


def env(**extra):
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT), e.get("PYTHONPATH", "")])
    e.update(extra)
    return e


def strict(raw: bytes):
    text = raw.decode("utf-8")  # valid UTF-8, never a raw surrogate

    def refuse(token):
        raise ValueError(token)
    return json.loads(text, parse_constant=refuse)


def gradcli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, cwd=ROOT,
                          timeout=120, stdin=subprocess.DEVNULL, **kw)


LOOP = "for i in range(3):\n    print(i)\nwhile True:\n    pass"


def _group_cpu_seconds(sid: int) -> float:
    """CPU seconds used so far by the processes of session ``sid`` (Linux's /proc)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:  # (state, ppid, pgrp, session, ...)
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def _wait_until_busy(sid: int) -> None:
    """Until the run has started and printed: CPU time, not wall time, so a loaded machine's slow
    start does not signal it too early (start-up costs well under 2 s of CPU; the loop then spins)."""
    if not Path("/proc/self/stat").exists():
        time.sleep(4)
        return
    deadline = time.monotonic() + 60
    while _group_cpu_seconds(sid) < 2.5 and time.monotonic() < deadline:
        time.sleep(0.1)


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX signals")
@pytest.mark.parametrize("isolated", [True, False], ids=["child", "in-process"])
@pytest.mark.parametrize("signame, error, code", [("SIGINT", "KeyboardInterrupt", 130), ("SIGTERM", "Terminated", 143)])
def test_signal_gives_one_document_with_what_was_printed(signame, error, code, isolated):
    extra = {} if isolated else {"GRADCLI_IN_PROCESS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "gradcli", "run", "--json", "--max-steps", "1e12", "-e", LOOP],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env(**extra),
                            start_new_session=True)
    _wait_until_busy(proc.pid)
    os.killpg(proc.pid, getattr(signal, signame))  # the whole group, as a terminal's Ctrl-C does
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    doc = strict(out)
    assert doc["exit_code"] == code and doc["error"]["type"] == error
    assert [o["text"] for o in doc["outputs"]] == ["0\n", "1\n", "2\n"]
    assert err.decode().strip().splitlines()[-1] in ("gradcli: interrupted", "gradcli: terminated")


def test_timeout_is_one_document():
    proc = gradcli("run", "--json", "--timeout", "1", "--max-steps", "1e12", "-e", LOOP)
    assert proc.returncode == 1 and proc.stderr == b""
    doc = strict(proc.stdout)
    assert doc["error"]["type"] == "TimeoutError" and len(doc["outputs"]) == 3


def test_lone_surrogate_is_pythons_error_and_valid_json():
    src = 'print("a")\nprint("x", "\\ud800", 1)\nprint("b")\n'
    result = run_source(src, "s.grad", RunOptions())
    assert result.error.type_name == "UnicodeEncodeError" and result.error.line == 2
    assert "surrogates not allowed" in result.error.message
    assert "".join(o.text for o in result.outputs) == "a\nx "  # what Python wrote before the failing piece
    proc = gradcli("run", "--json", "-e", src)
    assert proc.returncode == 1
    doc = strict(proc.stdout)
    assert doc["error"]["type"] == "UnicodeEncodeError"
    proc = gradcli("run", "--json", "-e", 'assert False, "\\udcff"')
    assert proc.returncode == 1 and strict(proc.stdout)["error"]["message"] == "\udcff"
    assert b"\\udcff" in proc.stdout  # escaped, never raw


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file names must be UTF-8")
def test_file_name_that_is_not_utf8(tmp_path):
    name = os.fsencode(str(tmp_path)) + b"/\xff.grad"
    with open(name, "wb") as fh:
        fh.write(b"print(1)\n")
    proc = subprocess.run([os.fsencode(sys.executable), b"-m", b"gradcli", b"run", b"--json", name],
                          capture_output=True, cwd=ROOT, timeout=120, env=env())
    assert proc.returncode == 0, proc.stderr
    doc = strict(proc.stdout)
    assert doc["file"].endswith("/\udcff.grad") and b"\\udcff.grad" in proc.stdout


@pytest.mark.parametrize("args", [["--timeout", "inf"], ["--timeout", "nan"], ["--timeout", "0"],
                                  ["--timeout", "-1"], ["--seed", "-1"], ["--seed", str(2 ** 64)],
                                  ["--seed", "1e3"], ["--max-memory", "0"]])
def test_impossible_option_values_are_usage_errors(args):
    proc = gradcli("run", *args, "-e", "print(1)")
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == b"" and b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr


def test_largest_seed_is_accepted():
    proc = gradcli("run", "--seed", str(2 ** 64 - 1), "-e", "print(torch.initial_seed())")
    assert proc.returncode == 0 and proc.stdout == f"{2 ** 64 - 1}\n".encode()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("how", ["segfault", "bus", "exit"])
def test_a_child_that_dies_gives_one_document_with_what_it_printed(monkeypatch, how):
    """The run's child crashing (a signal, an exit without its outcome) is an internal error in a
    strict document that keeps the lines printed before; a SIGSEGV is the C stack's overflow (CPython's
    unguarded recursions, which crash Python too): the script's RecursionError."""
    from gradcli.cli import runcmd
    from gradcli.cli.common import Flags
    from gradcli.render.jsonout import dumps

    def dying(src, flags, options, color_err, send, expire=None, watch=None):
        import faulthandler
        faulthandler.disable()
        send("out", "before\n", 1)
        if how == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        if how == "bus":
            os.kill(os.getpid(), signal.SIGBUS)
        os._exit(5)
    monkeypatch.setattr(runcmd, "execute", dying)  # the forked child runs it
    flags = Flags(json=True, isolate=True, no_seccomp=True)
    outcome = runcmd.run_one(runcmd.Source("x.grad", "print(1)"), flags, flags.run_options(), False, False)
    doc = strict(dumps(runcmd._doc(outcome)).encode())
    if how == "segfault":
        assert doc["exit_code"] == 1 and doc["error"]["type"] == "RecursionError"
        assert "stack overflowed" in doc["error"]["message"] and "SIGSEGV" in doc["error"]["message"]
    else:
        assert doc["exit_code"] == 3 and doc["error"]["type"] == "InternalError"
        assert f"signal {int(signal.SIGBUS)}" in doc["error"]["message"] if how == "bus" else \
            "exit 5" in doc["error"]["message"]
    assert doc["outputs"] == [{"text": "before\n", "line": 1}]
