"""Running scripts for `gradcli test`: each in its own child process, up to ``jobs`` at a time.

The parent loads the engine once, then forks one child per script (a fork after the imports costs
about a millisecond): a script cannot disturb another or the report, whatever it does. Each child
is the sandbox's (gradcli.cli.isolate): it dies with the parent, runs under RLIMIT_AS
(``max_memory`` above the address space it starts with) and, where available, the seccomp filter;
it streams every printed piece to the parent as soon as it is printed (isolate.Channel), and near
its --timeout the statement it runs; the parent ends a child still running ``TIMEOUT_GRACE``
seconds after its --timeout (the runner's own clock cannot interrupt a long C call), keeping what
it printed and reporting the TimeoutError at that statement. Results come back in the scripts'
order, whatever the scheduling.

Where there is no fork (Windows), the scripts run one after another in this process.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import asdict, dataclass

from .golden import Actual, outside

TIMEOUT_GRACE = 1.0          # seconds after --timeout before the parent ends the child
_READ = 65536
# the characters of a script's output the parent holds to compare (its expectation file holds at most
# golden.MAX_EXPECTATION_BYTES): a script printing without end in its --timeout (60 s by default, a
# gigabyte a second) grew the parent, which no --max-memory caps, until the CI machine ran out
MAX_TEST_OUTPUT = 64 * 1024 * 1024


@dataclass
class Finished:
    """One script's run."""
    index: int
    actual: Actual
    seconds: float


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def run_scripts(scripts, options, jobs: int = 1, max_memory: int | None = None, seccomp: bool = True,
                on_result=None) -> list:
    """Run every (path, name) of ``scripts`` with RunOptions ``options``; return their
    :class:`Finished` in order. ``max_memory``: bytes each child may add to its address space;
    ``seccomp``: the sandbox's filter in each child (where the binding and the kernel allow it).
    ``on_result(finished)`` is called in the scripts' order as soon as a script and all those
    before it are done (for a report that streams in a stable order)."""
    _warm_up(options)
    results: dict[int, Finished] = {}
    shown = [0]

    def done(finished: Finished):
        results[finished.index] = finished
        while shown[0] in results:
            if on_result is not None:
                on_result(results[shown[0]])
            shown[0] += 1

    if hasattr(os, "fork"):
        _run_forked(list(scripts), options, max(1, jobs), (max_memory, seccomp), done)
    else:  # pragma: no cover - Windows
        for index, (path, name, *_) in enumerate(scripts):
            start = time.monotonic()
            done(Finished(index, run_here(path, name, options), time.monotonic() - start))
    return [results[i] for i in range(len(results))]


def _warm_up(options) -> None:
    """Load the engine and the language in the parent, so that no child loads them again (on the
    CPU always: a CUDA context does not survive a fork, each child makes its own)."""
    import signal  # noqa: F401, PLC0415 - what every child uses (an import in each child costs ~10 ms)

    from gradcli.cli import common, isolate  # noqa: F401, PLC0415
    from gradcli.lang.runner import RunOptions, run_source  # noqa: PLC0415

    if sys.platform.startswith("linux"):
        import ctypes  # noqa: F401, PLC0415 - isolate.end_with_parent

    run_source("import torch\nx = torch.ones(2, requires_grad=True)\n(x * x).sum().backward()\nstr(x.grad)\n",
               "<warm-up>", RunOptions(seed=0, dtype=options.dtype))


def read_script(path, name):
    """(text, None) or (None, error dict) for the script file (the limits and messages of `run`)."""
    from gradcli.cli.common import decode_source  # noqa: PLC0415
    from gradcli.lang.runner import MAX_SOURCE_CHARS, source_too_large  # noqa: PLC0415

    from .golden import pseudo_file  # noqa: PLC0415

    if pseudo_file(path):
        return None, {"type_name": "OSError", "line": None,
                      "message": f"cannot read {name}: it is a link to {pseudo_file(path)}, not a script"}
    most = 4 * MAX_SOURCE_CHARS + 3
    try:
        with open(path, "rb") as fh:
            data = fh.read(most + 1)
    except OSError as exc:
        return None, {"type_name": "OSError", "message": f"cannot read {name}: {exc.strerror or exc}", "line": None}
    if len(data) > most:
        big = source_too_large(name)
        return None, {"type_name": big.type_name, "message": big.message, "line": big.line}
    return decode_source(data, name)


def run_here(path, name, options, write=None, watch=None) -> Actual:
    """Run one script in this process (the child's work; never raises): the executor
    (gradcli.cli.executor), its outcome as the comparison needs it. ``write(text, line)`` streams
    what it prints (else held); ``watch(session)`` starts the child's location reports and returns
    their stop()."""
    try:
        text, problem = read_script(path, name)
        if problem is not None:
            return Actual("", [], problem["type_name"], problem["message"], problem.get("line"))
        from gradcli.cli.executor import execute  # noqa: PLC0415

        from .golden import actual_from_outcome  # noqa: PLC0415

        return actual_from_outcome(execute(text, options, name=name, write=write, watch=watch))
    except Exception as exc:  # noqa: BLE001 - a report line, never a traceback
        return Actual("", [], failure=f"internal error: {type(exc).__name__}: {exc}")


# ------------------------------------------------------------------------------------ children
class _Child:
    def __init__(self, index, name, pid, fd, deadline):
        self.index, self.name, self.pid, self.fd, self.deadline = index, name, pid, fd, deadline
        self.start = time.monotonic()
        self.buffer = bytearray()
        self.outputs: list = []
        self.location = None     # (line, column, end line, end column) the child reported near its deadline
        self.crash = None        # gradcli's own failure in the child, in words
        self.result: dict | None = None
        self.killed = False
        self.held = 0            # characters of output held
        self.flooded = None      # (line,) of the print that went past MAX_TEST_OUTPUT

    def feed(self, data: bytes) -> None:
        from gradcli.cli.isolate import read_messages  # noqa: PLC0415

        self.buffer += data
        for message in read_messages(self.buffer):
            kind = message[0]
            if kind == "out":
                if self.flooded is not None:
                    continue
                self.held += len(message[1])
                if self.held > MAX_TEST_OUTPUT:
                    self.flooded = (message[2],)
                    continue
                self.outputs.append((message[1], message[2]))
            elif kind == "loc":
                self.location = message[1:]
            elif kind == "crash":
                self.crash = message[1]
            elif kind == "done":
                self.result = message[1]


def _run_forked(scripts, options, jobs, limits, done) -> None:
    import selectors  # noqa: PLC0415

    pending = list(enumerate(scripts))
    pending.reverse()
    running: dict[int, _Child] = {}
    selector = selectors.DefaultSelector()
    try:
        while pending or running:
            while pending and len(running) < jobs:
                index, (path, name, *root) = pending.pop()
                why = outside(path, root[0] if root else None)
                if why is not None:  # a link out of the tested tree: not read, not run
                    done(Finished(index, Actual("", [], "OSError", f"cannot read {name}: it is a link to {why}, "
                                                f"outside the folder tested ({root[0]})"), 0.0))
                    continue
                child = _fork(index, path, name, options, limits)
                running[child.fd] = child
                selector.register(child.fd, selectors.EVENT_READ)
            if not running:  # every script left was refused without a child: nothing to wait for
                continue
            deadlines = [c.deadline for c in running.values() if c.deadline is not None]
            wait = None if not deadlines else max(0.0, min(deadlines) - time.monotonic())
            for key, _ in selector.select(wait):
                child = running[key.fd]
                data = os.read(key.fd, _READ)
                if data:
                    child.feed(data)
                    if child.flooded is not None and not child.killed:
                        _kill(child.pid)
                        child.killed, child.deadline = True, None  # its pipe's end comes next
                    continue
                selector.unregister(key.fd)
                del running[key.fd]
                done(_finish(child, options))
            now = time.monotonic()
            for child in running.values():
                if child.deadline is not None and now >= child.deadline:
                    _kill(child.pid)
                    child.killed, child.deadline = True, None  # its pipe's end comes next
    finally:
        for child in running.values():  # interrupted: no child outlives the command
            _kill(child.pid)
            _reap(child.pid)
            os.close(child.fd)
        selector.close()


def _fork(index, path, name, options, limits) -> _Child:
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 0
        try:
            os.close(read_fd)
            _child_main(path, name, options, limits, write_fd)
        except BaseException:  # noqa: BLE001 - the parent reports a run without a result
            status = 3
        finally:
            os._exit(status)
    os.close(write_fd)
    deadline = None if options.timeout is None else time.monotonic() + options.timeout + TIMEOUT_GRACE
    return _Child(index, name, pid, read_fd, deadline)


def _child_main(path, name, options, limits, fd) -> None:
    import signal  # noqa: PLC0415

    from gradcli.cli import isolate  # noqa: PLC0415

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent answers Ctrl-C and SIGTERM
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # and ends its children
    isolate.end_with_parent()
    channel = isolate.Channel(fd)
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(devnull, std)
        max_memory, seccomp = limits
        if max_memory:
            isolate.limit_memory(max_memory)
        if seccomp:
            isolate.install_seccomp()  # None or why not: the run goes on without it, as `run` does
        watch = None
        if options.timeout is not None:
            def watch(session):
                return isolate.watch_location(channel, session.rt, options.timeout)
        actual = run_here(path, name, options, write=lambda text, line=None, *rest: channel.send("out", text, line),
                          watch=watch)
    except BaseException as exc:  # noqa: BLE001 - said to the parent, never a traceback
        channel.send("crash", f"internal error: {type(exc).__name__}: {exc}")
        raise
    result = asdict(actual)
    del result["outputs"], result["stdout"]  # streamed already
    channel.send("done", result)


def _kill(pid) -> None:
    import signal  # noqa: PLC0415

    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(pid) -> int | None:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return None
    return status


def _finish(child: _Child, options) -> Finished:
    os.close(child.fd)
    status = _reap(child.pid)
    seconds = time.monotonic() - child.start
    outputs = [(text, line) for text, line in child.outputs]
    actual = Actual("".join(text for text, _ in outputs), outputs)
    if child.flooded is not None:
        actual.error_type, actual.error_line = "MemoryError", child.flooded[0]
        actual.error_message = (f"the output exceeds the limit of {MAX_TEST_OUTPUT:,} characters that gradcli test "
                                "holds to compare")
    elif child.result is not None:
        for key, value in child.result.items():
            setattr(actual, key, value)
    elif child.killed:
        from gradcli.lang.runtime import timeout_text  # noqa: PLC0415

        actual.error_type, actual.error_message = "TimeoutError", timeout_text(options.timeout)
        actual.error_line = child.location[0] if child.location else None
    elif child.crash:
        actual.failure = child.crash
    else:
        actual.failure = f"the run ended without a result ({_status_text(status)})"
    return Finished(child.index, actual, seconds)


def _status_text(status) -> str:
    if status is None:
        return "its process vanished"
    if os.WIFSIGNALED(status):
        import signal  # noqa: PLC0415

        number = os.WTERMSIG(status)
        try:
            what = signal.Signals(number).name
        except ValueError:
            what = f"signal {number}"
        hint = " (out of memory?)" if number == signal.SIGKILL else ""
        return f"killed by {what}{hint}"
    return f"exit status {os.WEXITSTATUS(status)}"
