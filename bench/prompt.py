"""Case 1's row 1p: the CPU time from the start of `gradcli repl` on a terminal until its first
prompt is on the screen (issue 21: <= 2x `python -c "import numpy"`).

The command runs on a pseudo-terminal (TERM=xterm, so the prompt_toolkit editor a person gets,
answering its cursor-position request as a terminal would). When the prompt has been printed and
the REPL waits for input, the CPU time of the whole process tree is read: for every live
descendant, the time its threads have run (`/proc/PID/task/TID/schedstat`, nanoseconds; user and
system) plus what its reaped children used (`/proc/PID/stat` cutime + cstime). Nothing in gradcli
knows it is measured: it runs its real path and is killed once the prompt is there. Linux only.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import time

PROMPT = b">>>"
CURSOR_REQUEST, CURSOR_ANSWER = b"\x1b[6n", b"\x1b[1;1R"


def available() -> tuple[bool, str]:
    if not hasattr(os, "openpty") or not os.path.exists("/proc/self/task"):
        return False, "needs a pseudo-terminal and Linux's /proc"
    try:
        with open("/proc/self/schedstat") as fh:
            fh.read()
    except OSError:
        return False, "/proc/PID/schedstat is missing (a kernel without scheduler statistics)"
    return True, ""


def _children_of() -> dict:
    kids: dict = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    stat = fh.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            kids.setdefault(int(fields[1]), []).append(int(entry))
    return kids


def tree_cpu(pid: int) -> float:
    """CPU seconds of pid and its live descendants (their threads), and of their reaped children."""
    kids, todo, total = _children_of(), [pid], 0.0
    tick = os.sysconf("SC_CLK_TCK")
    while todo:
        p = todo.pop()
        todo.extend(kids.get(p, []))
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/schedstat") as fh:
                    total += int(fh.read().split()[0]) / 1e9
            with open(f"/proc/{p}/stat") as fh:
                stat = fh.read()
            fields = stat[stat.rindex(")") + 2:].split()
            total += (int(fields[13]) + int(fields[14])) / tick  # cutime, cstime
        except (OSError, ValueError, IndexError):
            continue
    return total


def first_prompt(argv, cwd=None, timeout=60.0) -> dict:
    """{"wall": seconds, "cpu": seconds} from the start of argv until its first prompt."""
    master, slave = os.openpty()
    env = {**os.environ, "TERM": "xterm"}
    for name in ("NO_COLOR", "FORCE_COLOR"):
        env.pop(name, None)
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True)
    os.close(slave)
    seen = b""
    try:
        while PROMPT not in seen:
            ready, _, _ = select.select([master], [], [], max(0.0, timeout - (time.perf_counter() - t0)))
            if not ready:
                raise RuntimeError(f"no prompt within {timeout:.0f} s: {seen[-200:]!r}")
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # the process ended (EIO on the master)
                chunk = b""
            if not chunk:
                raise RuntimeError(f"ended before its prompt: {seen[-300:]!r}")
            if CURSOR_REQUEST in chunk:
                os.write(master, CURSOR_ANSWER)
            seen += chunk
        wall = time.perf_counter() - t0
        time.sleep(0.05)  # the prompt is drawn; let the editor settle into its wait for input
        cpu = tree_cpu(proc.pid)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        os.close(master)
    return {"wall": wall, "cpu": cpu}
