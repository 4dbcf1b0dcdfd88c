"""The process wall (issue 15, item 2): `gradcli run` executes each input in a forked child under a
memory cap and, where available, a seccomp filter; the parent renders, ends the child at the hard
deadline (inside C calls too) and keeps everything printed before."""
from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gradcli.cli import isolate

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not isolate.available(), reason="no fork on this platform")


def env():
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT), e.get("PYTHONPATH", "")])
    return e


def strict(text):
    def refuse(token):
        raise ValueError(token)
    return json.loads(text, parse_constant=refuse)


# the command under a small Python wrapper that reports the peak memory of its descendants
# (ru_maxrss of RUSAGE_CHILDREN covers the gradcli child, waited for by the gradcli parent)
WRAPPER = """
import json, resource, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.run(sys.argv[1:], capture_output=True, stdin=subprocess.DEVNULL)
sys.stdout.write(json.dumps({"rc": p.returncode, "out": p.stdout.decode("utf-8", "replace"),
                             "err": p.stderr.decode("utf-8", "replace"), "elapsed": time.monotonic() - t0,
                             "peak_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def gradcli(*args):
    proc = subprocess.run([sys.executable, "-c", WRAPPER, sys.executable, "-m", "gradcli", *args],
                          capture_output=True, cwd=ROOT, env=env(), timeout=180)
    return json.loads(proc.stdout)


# the wrapper, streaming: also the seconds from the first line on stdout ('before', printed just before
# the long statement and streamed by the parent as it is printed) to the command's end
STREAMING = """
import json, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
first = p.stdout.readline()
t1 = time.monotonic()
out, err = p.communicate()
t2 = time.monotonic()
sys.stdout.write(json.dumps({"rc": p.returncode, "out": (first + out).decode("utf-8", "replace"),
                             "err": err.decode("utf-8", "replace"), "elapsed": t2 - t0, "after_first": t2 - t1}))
"""


def gradcli_streaming(*args):
    proc = subprocess.run([sys.executable, "-c", STREAMING, sys.executable, "-m", "gradcli", *args],
                          capture_output=True, cwd=ROOT, env=env(), timeout=180)
    return json.loads(proc.stdout)


# one statement that stays inside C calls holding the GIL for many seconds or minutes (no thread of the
# child's could interrupt it; one statement, so that no statement boundary before it meets the deadline
# on a busy machine and ends the run before the call begins): sorting two lists of ten million floats
# (11 CPU seconds, more on a busy machine), a float64 product of two 5000 x 5000 matrices (250 GFLOP: one
# BLAS call of seconds; a modular power of big integers was this call until the sandbox refused such work)
C_CALLS = {
    "sort": "import numpy as np\nprint('before')\n"
            "l = [sorted(np.random.rand(10 ** 7).tolist()), sorted(np.random.rand(10 ** 7).tolist())]\nprint('after')",
    "matmul": "import torch\nprint('before')\n"
              "x = torch.ones(5000, 5000, dtype=torch.float64) @ torch.ones(5000, 5000, dtype=torch.float64)\n"
              "print('after')",
}


@pytest.mark.parametrize("name", sorted(C_CALLS))
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_timeout_holds_inside_a_c_call(name, as_json):
    """The parent ends the child 1 s after the 1 s deadline, inside the call, which alone needs far longer.
    Timed without the start-up (a busy machine's imports took seconds more than a start-up measured
    apart, and a bound on the whole run failed): text from the moment 'before' is streamed, which the
    deadline follows by at most 1 s; --json (nothing streamed) against a start-up measured just before."""
    args = ("--timeout", "1", "--max-memory", "1G", "-e", C_CALLS[name])
    if as_json:
        start_up = gradcli("run", "--json", "-e", "print('before')")["elapsed"]
        r = gradcli("run", "--json", *args)
        assert r["elapsed"] < start_up + 1 + 1 + 6, (r["elapsed"], start_up)  # the sort alone needs 11 s
    else:
        r = gradcli_streaming("run", *args)
        assert r["after_first"] < 1 + 1 + 3, r  # deadline + 1 s grace (+ a busy machine); the sort needs 11 s
    assert r["rc"] == 1, r["err"]
    if as_json:
        doc = strict(r["out"])  # exactly one document
        assert doc["error"]["type"] == "TimeoutError" and [o["text"] for o in doc["outputs"]] == ["before\n"]
        assert r["err"] == ""
    else:
        assert r["out"] == "before\n"
        assert r["err"].count("TimeoutError") == 1 and "Traceback" not in r["err"], r["err"]


def test_memory_cap_is_a_clear_error_and_holds():
    r = gradcli("run", "--max-memory", "300M", "-e", "print('before')\nl = []\nfor i in range(100):\n"
                                                       "    l.append('x' * 10 ** 7)")
    assert r["rc"] == 1 and r["out"] == "before\n"
    assert "MemoryError: the run needs more memory than --max-memory allows (300 MiB)" in r["err"], r["err"]
    assert "--max-memory" in r["err"].splitlines()[-1]  # the hint names the option
    assert r["peak_kib"] < (300 + 250) * 1024, r["peak_kib"]  # the cap on top of what the child had


def test_the_cap_memory_words_come_from_one_helper():
    """run, grad and the REPL's child word a capped MemoryError through common.cap_memory_error: only a
    MemoryError of an allocation (not gradcli's own '... the limit of N ...'), only under a cap."""
    from gradcli.cli.common import cap_memory_error

    message, hint = cap_memory_error("MemoryError", "", 300 << 20)
    assert message == "the run needs more memory than --max-memory allows (300 MiB)"
    assert "--max-memory SIZE" in hint
    assert cap_memory_error("MemoryError", "a result of 9 items exceeds the limit of 8 items", 300 << 20) is None
    assert cap_memory_error("ValueError", "", 300 << 20) is None
    assert cap_memory_error("MemoryError", "", None) is None and cap_memory_error("MemoryError", "", 0) is None


def test_many_tensors_under_the_element_limit_meet_the_memory_cap():
    code = "xs = []\nfor i in range(100):\n    xs.append(torch.ones(10 ** 7))\n    print(i)"
    r = gradcli("run", "--json", "--max-memory", "400M", "-e", code)
    doc = strict(r["out"])
    assert r["rc"] == 1 and doc["error"]["type"] == "MemoryError" and "--max-memory" in doc["error"]["message"]
    assert doc["outputs"] and doc["outputs"][0] == {"text": "0\n", "line": 4}  # what printed before is kept
    assert r["peak_kib"] < (400 + 250) * 1024, r["peak_kib"]


def test_max_memory_option_is_checked():
    r = gradcli("run", "--max-memory", "lots", "-e", "pass")
    assert r["rc"] == 2 and "--max-memory" in r["err"] and "Traceback" not in r["err"]


def test_debug_and_version_say_whether_seccomp_is_on():
    r = gradcli("run", "--debug", "-e", "print(1)")
    assert r["rc"] == 0 and r["out"] == "1\n"
    assert "seccomp" in r["err"] and "memory cap" in r["err"]
    r = gradcli("--version")
    assert any(line.startswith("seccomp: ") for line in r["out"].splitlines()[1:])


# ---------------------------------------------------------------- the child, directly

def _collect(body, **kw):
    messages = []
    done = isolate.run(body, messages.append, **kw)
    return messages, done


def test_child_streams_messages_in_order_and_returns_the_outcome():
    def body(channel):
        for i in range(1000):
            channel.send("out", "x" * 100 + str(i), i)
        channel.send("done", {"kind": "ok"})
    messages, done = _collect(body, seccomp=False)
    outs = [m for m in messages if m[0] == "out"]
    assert [m[2] for m in outs] == list(range(1000)) and done == ("done", {"kind": "ok"})


def test_a_child_that_dies_is_reported_with_what_it_sent():
    import signal

    def body(channel):
        import faulthandler
        faulthandler.disable()  # pytest's would print the child's stack
        channel.send("out", "before", 1)
        os.kill(os.getpid(), signal.SIGSEGV)
    messages = []
    with pytest.raises(isolate.Ended, match="signal 11"):
        isolate.run(body, messages.append, seccomp=False)
    assert ("out", "before", 1) in messages

    def failing(channel):
        raise ValueError("boom")
    messages = []
    with pytest.raises(isolate.Ended, match="exit 3"):
        isolate.run(failing, messages.append, seccomp=False)
    assert any(m[0] == "crash" and "boom" in m[1] for m in messages)


def test_child_is_ended_at_the_deadline():
    def body(channel):
        channel.send("out", "started", 1)
        x = 3
        while True:
            x = pow(x, 10 ** 9, 10 ** 20000 + 1)  # one C call of minutes, holding the GIL
    t0 = time.monotonic()
    messages = []
    with pytest.raises(isolate.Ended, match="timeout"):
        isolate.run(body, messages.append, timeout=0.3, grace=0.2, seccomp=False)
    assert time.monotonic() - t0 < 3
    assert ("out", "started", 1) in messages


def test_setup_runs_in_the_child_before_the_wall_and_outside_the_timeout():
    """run(setup=...): the child's set-up (a run's imports) comes before its memory cap and before
    the --timeout clock starts; the body after it is still ended at the deadline."""
    def setup():
        import resource
        time.sleep(0.6)  # longer than timeout + grace: not counted
        os.environ["GRADCLI_TEST_SETUP"] = str(resource.getrlimit(resource.RLIMIT_AS)[0])

    def body(channel):
        channel.send("done", {"setup": os.environ.get("GRADCLI_TEST_SETUP"), "pid": os.getpid()})
    import resource
    before = resource.getrlimit(resource.RLIMIT_AS)[0]
    messages, done = _collect(body, timeout=0.3, grace=0.2, max_memory=1 << 30, seccomp=False, setup=setup)
    assert done[1]["setup"] == str(before)  # not capped yet when setup ran
    assert done[1]["pid"] != os.getpid() and "GRADCLI_TEST_SETUP" not in os.environ
    assert [m[0] for m in messages] == ["sandbox"]

    def slow(channel):
        time.sleep(30)
    t0 = time.monotonic()
    with pytest.raises(isolate.Ended, match="timeout"):
        isolate.run(slow, lambda m: None, timeout=0.3, grace=0.2, seccomp=False, setup=setup)
    assert 0.6 + 0.5 <= time.monotonic() - t0 < 5


def test_memory_cap_applies_to_the_child():
    def body(channel):
        try:
            b = bytearray(600 << 20)
            channel.send("done", {"allocated": len(b)})
        except MemoryError:
            channel.send("done", {"memory_error": True})
    _, done = _collect(body, max_memory=200 << 20, seccomp=False)
    assert done[1] == {"memory_error": True}
    _, done = _collect(body, max_memory=2 << 30, seccomp=False)
    assert done[1] == {"allocated": 600 << 20}


def test_seccomp_refuses_processes_sockets_and_writing(tmp_path):
    binding, why = isolate.seccomp_binding()
    if binding is None:
        pytest.skip(why)
    target = tmp_path / "written"

    def attempt(fn):
        try:
            fn()
        except PermissionError:
            return "refused"
        except OSError as exc:
            return f"OSError {exc.errno}"
        return "allowed"

    def body(channel):
        results = {
            "open_write": attempt(lambda: os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o600))),
            "open_append": attempt(lambda: open(ROOT / "README.md", "a").close()),
            "socket": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
            "unix_socket": attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
            "exec": attempt(lambda: os.execv("/bin/true", ["/bin/true"])),
            "fork": attempt(os.fork),
            "subprocess": attempt(lambda: subprocess.run(["/bin/true"])),
            "unlink": attempt(lambda: os.unlink(ROOT / "README.md")),
            "read": attempt(lambda: open(ROOT / "README.md", "rb").read(10)),
        }
        import threading
        t = threading.Thread(target=lambda: None)
        results["thread"] = attempt(lambda: (t.start(), t.join()))
        channel.send("done", results)
    messages, done = _collect(body, seccomp=True)
    sandbox = [m for m in messages if m[0] == "sandbox"]
    if sandbox and sandbox[0][1]:
        pytest.skip(sandbox[0][1])  # the kernel or container refuses filters
    results = done[1]
    for name in ("open_write", "open_append", "socket", "unix_socket", "exec", "fork", "subprocess", "unlink"):
        assert results[name] == "refused", (name, results)
    assert results["read"] == "allowed" and results["thread"] == "allowed"  # reading and threads still work
    assert not target.exists() and (ROOT / "README.md").exists()


# pyseccomp's import with ctypes.util stood in for (isolate._import_pyseccomp), a fresh process each
PYSECCOMP_PROBE = """
import ctypes, json, sys
from gradcli.cli import isolate
mode = sys.argv[1]
if mode == "real-first":
    import ctypes.util
    original = ctypes.util.find_library
load = ctypes.CDLL
def refusing(name, *args, **kwargs):  # "usual-missing": the stand-in's tries of the usual names fail
    if name in ("libc.so.6", "libseccomp.so.2") and sys._getframe(1).f_globals["__name__"] == isolate.__name__:
        raise OSError(name)
    return load(name, *args, **kwargs)
if mode == "usual-missing":
    ctypes.CDLL = refusing
binding, why = isolate.seccomp_binding()
ctypes.CDLL = load
mods = sys.modules
print(json.dumps({"binding": binding is not None, "why": why, "subprocess": "subprocess" in mods,
                  "util": "ctypes.util" in mods, "attr": getattr(ctypes, "util", None) is mods.get("ctypes.util"),
                  "restored": mode != "real-first" or ctypes.util.find_library is original}))
"""


@pytest.mark.parametrize("mode", ["plain", "real-first", "usual-missing"])
def test_pyseccomp_loads_without_ctypes_util_and_leaves_no_stand_in(mode):
    """The child imports pyseccomp without ctypes.util (which loads subprocess and runs ldconfig):
    afterwards no stand-in is left in sys.modules or on ctypes, and a usual library name that does
    not load is still looked up by the real find_library."""
    proc = subprocess.run([sys.executable, "-c", PYSECCOMP_PROBE, mode], capture_output=True, text=True,
                          cwd=ROOT, env=env(), timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    r = json.loads(proc.stdout)
    if not r["binding"] and (mode == "plain" or importlib.util.find_spec("pyseccomp") is None):
        pytest.skip(r["why"])  # no pyseccomp (CI installs '.[test]' only) or no libseccomp here
    assert r["binding"], r
    assert r["attr"] and r["restored"], r  # no stand-in left behind
    if mode == "plain":
        assert not r["util"] and not r["subprocess"], r
    if mode == "usual-missing":
        assert r["util"], r  # the real module answered
