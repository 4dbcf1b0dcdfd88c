"""The process wall: a run executes in a forked child; the parent keeps the terminal.

The parent (already past its imports) forks; the child lowers its limits (RLIMIT_AS: the address
space it had plus --max-memory), installs a seccomp filter where the optional ``pyseccomp`` binding
and the kernel allow it (no execve, no new processes, no sockets, no open for writing, no file
removal or renaming), ignores Ctrl-C (the parent answers it) and runs the executor, which streams
every message (printed text, warnings, the final outcome) to the parent through a pipe as it
happens: nothing printed is lost when the child is ended, crashes or runs out of memory. The parent
enforces --timeout by ending the child TIMEOUT_GRACE seconds after the deadline, so the limit holds
inside any long C call (a big-integer ``%``, ``l.extend(iter(l))``), which no thread of the child's
could interrupt.

Messages are tuples of plain data, sent with ``marshal`` (length-prefixed), never pickles.
Kept light: nothing here imports the engine.
"""
from __future__ import annotations

import marshal
import os
import sys

from gradcli import gcpolicy

_LEN = 4
DEFAULT_MEMORY_CAP = 4 << 30


def available() -> bool:
    return hasattr(os, "fork") and sys.platform != "win32"


def default_max_memory() -> int:
    """The smaller of 4 GiB and half the machine's memory."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return DEFAULT_MEMORY_CAP
    return min(DEFAULT_MEMORY_CAP, total // 2) if total > 0 else DEFAULT_MEMORY_CAP


# ------------------------------------------------------------------------------------ seccomp

_SECCOMP = []  # [(module or None, reason)] once looked up


def seccomp_binding():
    """(pyseccomp module, None) or (None, why not), looked up once (in the child: its import runs
    ``ldconfig`` only when the libraries are not where they usually are)."""
    if not _SECCOMP:
        if not sys.platform.startswith("linux"):
            _SECCOMP.append((None, "seccomp is Linux only"))
        else:
            try:
                _SECCOMP.append((_import_pyseccomp(), None))
            except ImportError:
                _SECCOMP.append((None, "the seccomp filter needs pyseccomp: pip install 'gradcli[seccomp]'"))
            except Exception as exc:  # noqa: BLE001 - libseccomp missing or unusable
                _SECCOMP.append((None, f"the seccomp filter is unavailable ({type(exc).__name__}: {exc})"))
    return _SECCOMP[0]


def _import_pyseccomp():
    """Import pyseccomp, which looks its libraries up with ctypes.util.find_library at import: that
    module imports subprocess (and locale, selectors, ...), and find_library runs ``ldconfig``, a
    process. The usual names are tried first through a stand-in module (a few ms of every run's
    child); the real find_library answers only for a name that does not load."""
    import ctypes  # noqa: PLC0415 - NumPy has loaded it

    usual = {"c": "libc.so.6", "seccomp": "libseccomp.so.2"}
    real = sys.modules.get("ctypes.util")
    saved = real.find_library if real is not None else None

    def find_library(name):
        lib = usual.get(name)
        if lib is not None:
            try:
                ctypes.CDLL(lib)
                return lib
            except OSError:
                pass
        if saved is not None:
            return saved(name)
        if sys.modules.get("ctypes.util") is stand_in:
            del sys.modules["ctypes.util"]  # the real module from here on (its import sets ctypes.util)
        import importlib  # noqa: PLC0415

        return importlib.import_module("ctypes.util").find_library(name)
    if real is not None:
        stand_in = real
        real.find_library = find_library
    else:
        import types  # noqa: PLC0415

        stand_in = types.ModuleType("ctypes.util")
        stand_in.find_library = find_library
        sys.modules["ctypes.util"] = stand_in
        ctypes.util = stand_in
    try:
        import pyseccomp  # noqa: PLC0415
    finally:
        if real is not None:
            real.find_library = saved
        else:
            if sys.modules.get("ctypes.util") is stand_in:
                del sys.modules["ctypes.util"]
            if getattr(ctypes, "util", None) is stand_in:
                del ctypes.util
    return pyseccomp


def seccomp_status() -> str:
    """One line for `gradcli --version` and --debug."""
    binding, why = seccomp_binding()
    if binding is None:
        return f"seccomp: off ({why})"
    return "seccomp: on (pyseccomp)"


_DENIED = ("execve", "execveat", "fork", "vfork", "socket", "socketpair", "connect", "bind", "listen", "accept",
           "accept4", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir",
           "truncate", "ftruncate", "link", "linkat", "symlink", "symlinkat", "chmod", "fchmodat", "chown",
           "fchownat", "ptrace", "creat", "mknod", "mknodat", "memfd_create")


def install_seccomp():
    """The child's filter; returns None when installed, else why not (the child runs anyway)."""
    sc, why = seccomp_binding()
    if sc is None:
        return why
    import errno  # noqa: PLC0415

    try:
        f = sc.SyscallFilter(defaction=sc.ALLOW)
        deny = sc.ERRNO(errno.EPERM)
        for name in _DENIED:
            try:
                f.add_rule(deny, name)
            except Exception:  # noqa: BLE001,S112 - a syscall this architecture lacks
                continue
        clone_thread = 0x00010000
        f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, clone_thread, 0))  # a process, not a thread
        f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")  # its flags are out of reach: libc falls back to clone
        for flag in (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND):
            f.add_rule(deny, "openat", sc.Arg(2, sc.MASKED_EQ, flag, flag))
            f.add_rule(deny, "open", sc.Arg(1, sc.MASKED_EQ, flag, flag))
        try:
            f.add_rule(sc.ERRNO(errno.ENOSYS), "openat2")  # its flags sit in a struct: libc falls back
        except Exception:  # noqa: BLE001
            pass
        f.load()
    except Exception as exc:  # noqa: BLE001 - an old kernel, a container that forbids it
        return f"the seccomp filter could not be installed ({type(exc).__name__}: {exc})"
    return None


# ------------------------------------------------------------------------------------ the child

def limit_memory(max_memory):
    """RLIMIT_AS: the address space the process has now plus ``max_memory`` bytes."""
    import resource  # noqa: PLC0415

    try:
        with open("/proc/self/statm", "rb") as fh:
            now = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        now = 0
    cap = now + max_memory
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def end_with_parent():
    """Linux: the kernel kills the child when the parent dies (SIGKILL, a crash): no orphan runs on."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import _signal  # noqa: PLC0415 - not signal: its enums cost start-up time
        import ctypes  # noqa: PLC0415

        ctypes.CDLL(None, use_errno=True).prctl(1, int(_signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Channel:
    """The child's end: send(message) writes one framed message."""

    def __init__(self, fd):
        self.fd = fd
        self.lock = None  # a threading.Lock once a second thread sends (watch_location)

    def send(self, *message):
        data = marshal.dumps(message)
        data = len(data).to_bytes(_LEN, "little") + data
        lock = self.lock
        if lock is not None:
            lock.acquire()
        try:
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
        finally:
            if lock is not None:
                lock.release()


def watch_location(channel, rt, timeout):
    """From shortly before the deadline on, a thread sends the statement being run (line, column,
    end line, end column) whenever it changes, so that the parent, ending a child stuck in one long
    operation, reports the TimeoutError at it. (A C call that holds the GIL keeps the thread from
    running: the statement it last saw, the one the call started from, is the answer.) Returns stop()."""
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    channel.lock = threading.Lock()
    done = threading.Event()
    start = time.monotonic()

    def watch():
        if done.wait(max(0.0, timeout - 0.25 - (time.monotonic() - start))):
            return
        last = None
        while True:
            node = rt.loc[0]
            span = tuple(getattr(node, k, None) for k in ("line", "column", "end_line", "end_column"))
            if span != last:
                channel.send("loc", *span)
                last = span
            if done.wait(0.02):
                return
    threading.Thread(target=watch, name="gradcli-location", daemon=True).start()
    return done.set


def _child(fd, body, max_memory, seccomp, setup=None):
    import _signal  # noqa: PLC0415 - not signal: its enums cost start-up time

    channel = Channel(fd)
    code = 0
    try:
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)   # Ctrl-C and SIGTERM are the parent's to answer:
        _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)  # it ends the child and reports what was printed
        end_with_parent()
        if setup is not None:
            setup()
        if max_memory:
            limit_memory(max_memory)
        why = install_seccomp() if seccomp else "off (--no-seccomp)"
        channel.send("sandbox", why)
        body(channel)
    except BaseException as exc:  # noqa: BLE001 - the child never returns into the parent's code
        code = 3
        try:
            import traceback  # noqa: PLC0415

            channel.send("crash", f"{type(exc).__name__}: {exc}",
                         "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


class ChannelStream:
    """A text stream of the child's that sends each write to the parent as a (kind, text) message;
    isatty() and fileno() are those of ``like`` (the stream it stands for: colour, terminal width)."""

    encoding = "utf-8"

    def __init__(self, channel, kind: str, like=None) -> None:
        self.channel, self.kind = channel, kind
        try:
            self.tty = bool(like.isatty())
        except (AttributeError, ValueError, OSError):
            self.tty = False
        try:
            self.fd = like.fileno()
        except (AttributeError, ValueError, OSError):
            self.fd = None

    def write(self, text: str) -> int:
        if text:
            self.channel.send(self.kind, text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return self.tty

    def fileno(self) -> int:
        if self.fd is None:
            raise OSError("no file descriptor")
        return self.fd


# ------------------------------------------------------------------------------------ the parent

class Ended(Exception):
    """The child ended without its outcome: ``reason`` is 'timeout', 'signal N' or 'exit N'."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def run(body, on_message, timeout=None, grace=1.0, max_memory=None, seccomp=True, setup=None):
    """Run body(channel) in a child (channel.send(kind, ...) sends a message); call on_message(message) in the parent for each message, in
    order, until the child's ('done', ...) message, which is returned. Raises Ended when the child
    ends without it (killed at timeout + grace, a signal, an exit), KeyboardInterrupt on Ctrl-C (the
    child is ended first). setup(): run in the child first, before its limits and filter (the
    imports of a run the parent has not made: a child that imports them itself copies fewer of the
    parent's pages than one forked after them). The timeout counts from the child's ('sandbox', ...)
    message, once it is set up and walled in."""
    import select  # noqa: PLC0415
    import time  # noqa: PLC0415

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    gcpolicy.freeze()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(w, body, max_memory, seccomp, setup)
    os.close(w)
    deadline = None
    buf = bytearray()
    done = None
    try:
        while done is None:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([r], [], [], wait)
            if not ready:
                _kill(pid)
                raise Ended("timeout")
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            buf += chunk
            for message in read_messages(buf):
                if message[0] == "done":
                    done = message
                    break
                if message[0] == "sandbox" and timeout is not None:
                    deadline = time.monotonic() + timeout + grace
                on_message(message)
    except BaseException:
        _kill(pid)
        os.close(r)
        raise
    os.close(r)
    if done is None:
        _, status = os.waitpid(pid, 0)
        raise Ended(_status_text(status))
    os.waitpid(pid, 0)
    return done


def read_messages(buf: bytearray) -> list:
    """The whole messages (Channel.send's frames) at the start of ``buf``, taken out of it; a
    partial one stays for the next read."""
    messages = []
    while len(buf) >= _LEN:
        n = int.from_bytes(buf[:_LEN], "little")
        if len(buf) < _LEN + n:
            break
        messages.append(marshal.loads(bytes(buf[_LEN:_LEN + n])))
        del buf[:_LEN + n]
    return messages


def _kill(pid):
    import signal  # noqa: PLC0415

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (OSError, ChildProcessError):
        pass


# ------------------------------------------------------------------------------------ a lasting child

class Worker:
    """One child that lasts across requests (the REPL's session lives in it): ``serve(channel,
    request)`` runs in the child for each request and returns the reply (plain data); the parent's
    ask() streams the child's messages to on_message meanwhile. A child that dies (a signal, the
    memory cap, --timeout) raises Ended from ask(); start() makes a fresh one. In the child, Ctrl-C
    is Python's KeyboardInterrupt again (the REPL interrupts a statement, not the session)."""

    def __init__(self, serve, max_memory=None, seccomp=True):
        self.serve, self.max_memory, self.seccomp = serve, max_memory, seccomp
        self.pid = None
        self.prepare = None  # prepare(channel): run in each new child before its first request
        self._buf = bytearray()

    def start(self):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        gcpolicy.freeze()
        req_r, req_w = os.pipe()
        msg_r, msg_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(req_w)
            os.close(msg_r)
            _child(msg_w, lambda channel: self._loop(channel, req_r), self.max_memory, self.seccomp)
        os.close(req_r)
        os.close(msg_w)
        self.pid, self._req, self._msg, self._buf = pid, req_w, msg_r, bytearray()

    def _loop(self, channel, fd):
        import signal  # noqa: PLC0415

        signal.signal(signal.SIGINT, signal.default_int_handler)
        if self.prepare is not None:
            self.prepare(channel)
        buf = bytearray()
        while True:
            requests = read_messages(buf)
            if not requests:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return  # the parent is gone or done
                buf += chunk
                continue
            for request in requests:
                channel.send("begin")  # the parent's clock for --timeout starts now (not at the
                try:                   # fresh child's start-up)
                    reply = self.serve(channel, request)
                except KeyboardInterrupt:
                    reply = ("interrupted",)
                channel.send("done", reply)

    def ask(self, request, on_message, timeout=None, grace=1.0):
        """Send one request; the child's reply (Ended if it dies first or passes timeout + grace)."""
        import select  # noqa: PLC0415
        import signal  # noqa: PLC0415
        import time  # noqa: PLC0415

        if self.pid is None:
            self.start()
        data = marshal.dumps(request)
        pipe = signal.signal(signal.SIGPIPE, signal.SIG_IGN) if hasattr(signal, "SIGPIPE") else None
        try:
            os.write(self._req, len(data).to_bytes(_LEN, "little") + data)
        except OSError:
            pass  # the child is gone: its end of file below says how
        finally:
            if pipe is not None:
                signal.signal(signal.SIGPIPE, pipe)
        deadline = None  # set when the child begins the request
        nudge = give_up = None  # after a Ctrl-C in this process: when the child is told, when it is ended
        while True:
            limits = [d for d in (deadline, nudge, give_up) if d is not None]
            wait = None if not limits else max(0.0, min(limits) - time.monotonic())
            try:
                ready, _, _ = select.select([self._msg], [], [], wait)
            except KeyboardInterrupt:
                # the terminal's Ctrl-C reached the child too: it answers with its KeyboardInterrupt;
                # if it does not, it is told once more, and then ended
                if nudge is None and give_up is None:
                    nudge = time.monotonic() + 1.0
                continue
            if not ready:
                now = time.monotonic()
                if nudge is not None and now >= nudge:
                    nudge, give_up = None, now + 2.0
                    try:
                        os.kill(self.pid, signal.SIGINT)
                    except OSError:
                        pass
                    continue
                self.stop()
                raise Ended("interrupted" if give_up is not None and now >= give_up else "timeout")
            chunk = os.read(self._msg, 1 << 16)
            if not chunk:
                status = self.stop(kill=False)
                raise Ended(status)
            self._buf += chunk
            for message in read_messages(self._buf):
                if message[0] == "done":
                    return message[1]
                if message[0] == "begin":
                    if timeout is not None:
                        deadline = time.monotonic() + timeout + grace
                elif message[0] == "sandbox":  # why the seccomp filter is off: the REPL does not say
                    pass
                else:
                    on_message(message)

    def gone(self):
        """None while the child runs; else how it ended (it died between requests: killed, the
        machine's out-of-memory killer), and it is cleaned up."""
        if self.pid is None:
            return None
        done, status = os.waitpid(self.pid, os.WNOHANG)
        if not done:
            return None
        self.pid = None
        self._close()
        return _status_text(status)

    def stop(self, kill=True):
        """End the child (if it runs); returns how it ended ('signal N' or 'exit N')."""
        import signal  # noqa: PLC0415

        if self.pid is None:
            return "exit 0"
        pid, self.pid = self.pid, None
        self._close()
        if kill:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            return "exit 0"
        return _status_text(status)

    def _close(self):
        for fd in (self._req, self._msg):
            try:
                os.close(fd)
            except OSError:
                pass


def _status_text(status) -> str:
    """'signal N' or 'exit N' for a wait status."""
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit {os.WEXITSTATUS(status) if os.WIFEXITED(status) else status}"
