"""What the commands share: exit codes, flags, usage and internal errors, reading sources.

Kept light: importing this module loads nothing heavy (no engine, no Lark, no Rich).
"""
from __future__ import annotations

import os
import sys

from gradcli.records import record

EXIT_OK = 0            # success
EXIT_SCRIPT = 1        # the script raised (syntax, runtime, failed assert)
EXIT_USAGE = 2         # bad option, missing file, bad NAME=VALUE, cuda without CuPy/GPU
EXIT_INTERNAL = 3      # a bug in gradcli
EXIT_INTERRUPT = 130   # Ctrl-C

INTERNAL_HINT = "(run with --debug for the traceback)"


class UsageProblem(Exception):
    """A usage error found by a command (exit 2); message says what is wrong and what is expected."""


@record  # a dataclass, made for less start-up time (gradcli/records.py)
class Flags:
    """The options common to `run` and `grad`."""
    device: str = "cpu"
    dtype: str = "float32"
    seed: int | None = None
    json: bool = False
    no_color: bool = False
    summary: bool = False
    max_elements: int = 100_000_000
    max_steps: int = 10_000_000
    timeout: float | None = None
    debug: bool = False
    explain: bool = False          # run: the chain-rule walkthrough of every backward pass (stderr)
    check: bool = False            # run: every backward pass checked by finite differences
    detect_anomaly: bool = False   # run: torch.autograd.set_detect_anomaly(True) for the whole run
    max_memory: int | None = None  # run: bytes the run may allocate (None: isolate.default_max_memory())
    isolate: bool = False          # run: each input in a child process (run_command decides)
    no_seccomp: bool = False       # run: the child without its seccomp filter (GRADCLI_NO_SECCOMP)
    several: bool = False          # run: more than one input (the --summary titles)

    def max_memory_bytes(self) -> int:
        if self.max_memory is not None:
            return self.max_memory
        from .isolate import default_max_memory  # noqa: PLC0415

        return default_max_memory()

    def color_out(self) -> bool:
        from gradcli.render.style import want_color  # noqa: PLC0415

        return not self.json and want_color(sys.stdout, self.no_color)

    def color_err(self) -> bool:
        from gradcli.render.style import want_color  # noqa: PLC0415

        return want_color(sys.stderr, self.no_color)

    def run_options(self):
        from gradcli.lang.options import RunOptions  # noqa: PLC0415 - light: no engine, no language

        return RunOptions(dtype=self.dtype, device=self.device, seed=self.seed, max_steps=self.max_steps,
                          max_elements=self.max_elements, timeout=self.timeout, explain=bool(self.explain),
                          check=bool(self.check), detect_anomaly=bool(self.detect_anomaly))


def parse_count(text) -> int:
    """A positive count: 100000000, 1e8 or 100_000_000."""
    if isinstance(text, int):
        return text
    s = str(text).strip().replace("_", "")
    try:
        value = int(s)
    except ValueError:
        try:
            f = float(s)
        except ValueError:
            raise ValueError(f"{text!r} is not a count (e.g. 1000000 or 1e6)") from None
        if f != f or f in (float("inf"), float("-inf")) or f != int(f):
            raise ValueError(f"{text!r} is not a whole number") from None
        value = int(f)
    if value <= 0:
        raise ValueError(f"{text!r} must be positive")
    return value


def parse_seed(text) -> int:
    """--seed: a whole number from 0 to 2**64 - 1 (what torch.manual_seed keeps)."""
    s = str(text).strip()
    digits = s[1:] if s[:1] in "+-" else s
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"{text!r} is not a whole number")
    value = int(s)
    if not 0 <= value < 1 << 64:
        raise ValueError(f"{text!r} is out of range (0 to 2**64 - 1)")
    return value


def parse_timeout(text) -> float:
    """--timeout: a finite number of seconds, at least 0.001 (not 0, inf or nan)."""
    try:
        value = float(str(text).strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a number of seconds") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{text!r} is not a finite number of seconds")
    if value < 0.001 or value > 1e9:
        raise ValueError(f"{text!r} is out of range (0.001 to 1e9 seconds)")
    return value


_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
          "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30, "T": 1 << 40, "TB": 1 << 40, "TIB": 1 << 40}


def parse_size(text) -> int:
    """A memory size: 4G, 512M, 1.5GiB, 1e9 (bytes); at least 64 MiB, below 2**62."""
    s = str(text).strip().replace("_", "").upper()
    number = s.rstrip("KMGTIB")
    unit = s[len(number):]
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"{text!r} is not a size (e.g. 4G, 512M or 1e9 bytes)") from None
    if unit not in _UNITS or value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{text!r} is not a size (e.g. 4G, 512M or 1e9 bytes)")
    size = int(value * _UNITS[unit])
    if size < 64 << 20 or size >= 1 << 62:
        raise ValueError(f"{text!r} is out of range (64M to 4096P)")
    return size


# the parsers of the declared options (cli/options.py: an Opt's reader names one)
PARSERS = {"count": parse_count, "seed": parse_seed, "timeout": parse_timeout, "size": parse_size}


def say(message: str, color: bool | None = None) -> None:
    """One line on stderr, prefixed 'gradcli: '."""
    sys.stdout.flush()
    if color is None:
        from gradcli.render.style import want_color  # noqa: PLC0415

        color = want_color(sys.stderr)
    if color:
        sys.stderr.write(f"\x1b[1;31mgradcli:\x1b[0m {message}\n")
    else:
        sys.stderr.write(f"gradcli: {message}\n")
    sys.stderr.flush()


def say_usage(message: str, command: str | None, color: bool | None = None) -> None:
    """A usage error: `gradcli: error: MESSAGE` (one line: a message's own lines are joined with '; ')
    and `Try 'gradcli COMMAND --help'` on stderr."""
    say("error: " + "; ".join(part.strip() for part in message.splitlines() if part.strip()), color)
    sys.stderr.write(usage_hint(command) + "\n")
    sys.stderr.flush()


def usage_hint(command: str | None) -> str:
    return f"Try 'gradcli {command} --help'" if command else "Try 'gradcli --help'"


def check_device(device: str) -> None:
    """--device cuda needs CuPy and a GPU: find out before anything runs (UsageProblem if not)."""
    if device != "cuda":
        return
    from gradcli.engine.device import CudaUnavailable, cupy  # noqa: PLC0415

    try:
        cupy()
    except CudaUnavailable as exc:
        raise UsageProblem(str(exc)) from None


def _declared_encoding(data: bytes):
    """(name as Python normalises it, line) of a PEP 263 declaration (``# -*- coding: latin-1 -*-``) on
    the first line, or the second after a blank or comment-only first line; else None."""
    import re  # noqa: PLC0415

    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    first, second = (data.split(b"\n", 2) + [b"", b""])[:2]
    for number, line in ((1, first), (2, second)):
        match = re.match(rb"[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", line)
        if match:
            name = match.group(1).decode("ascii", "replace")
            low = name[:12].lower().replace("_", "-")  # CPython's get_normal_name
            if low == "utf-8" or low.startswith("utf-8-"):
                return "utf-8", number
            if any(low == n or low.startswith(n + "-") for n in ("latin-1", "iso-8859-1", "iso-latin-1")):
                return "iso-8859-1", number
            return name, number
        if number == 1 and not re.match(rb"[ \t\f]*(#|\r?$)", line):
            return None
    return None


def _decode_declared(data: bytes, encoding: str, line: int):
    """The text of a source in a declared encoding other than UTF-8, or None where Python says
    'encoding problem': no such codec, one that is not a text encoding (rot13, hex), one in which the
    lines up to the declaration are not the ASCII they are (utf-16), bytes the codec refuses."""
    head = b"\n".join(data.split(b"\n", 2)[:line])
    try:
        if head.isascii() and head.decode(encoding) != head.decode("ascii"):
            return None
        return data.decode(encoding)
    except (LookupError, UnicodeError, ValueError, TypeError):
        return None


def decode_source(data: bytes, name: str):
    """(text, None) or (None, SyntaxError-like dict) for bytes that are not UTF-8, as Python says it.
    A PEP 263 declaration of another encoding is honoured as Python honours it (a script saved in
    Latin-1 with ``# -*- coding: latin-1 -*-`` runs); the codec only decodes, nothing else of it runs."""
    declared = _declared_encoding(data)
    if declared is not None and declared[0] != "utf-8":
        encoding, line = declared
        bom = data.startswith(b"\xef\xbb\xbf")
        text = None if bom else _decode_declared(data, encoding, line)
        if text is None:
            return None, {"type_name": "SyntaxError", "line": line, "column": None,
                          "message": f"encoding problem: {encoding}" + (" with BOM" if bom else ""),
                          "hint": "save the file as UTF-8 (and remove the coding declaration)"}
        data = text.encode("utf-8", "surrogatepass")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start:exc.start + 1]
        return None, {
            "type_name": "SyntaxError",
            "message": (f"Non-UTF-8 code starting with '\\x{bad[0]:02x}' in file {name} on line {line}, but no "
                        "encoding declared; see https://peps.python.org/pep-0263/ for details"),
            "line": line, "column": None, "hint": "save the file as UTF-8",
        }
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, None


def internal_error(exc: BaseException, debug: bool) -> None:
    """The one line (or, with --debug, the traceback) for a bug in gradcli."""
    if debug:
        import traceback  # noqa: PLC0415

        sys.stdout.flush()
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    what = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    say(f"internal error: {what} {INTERNAL_HINT}")


# --timeout's last resort: how long after the deadline a script stuck inside one long operation
# (a huge matmul, which the runner cannot interrupt) is stopped by ending the process
TIMEOUT_GRACE = 1.0


def size_text(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


def cap_memory_error(type_name: str, message: str, cap: int | None, raised: bool = False) -> tuple[str, str] | None:
    """The message and hint that replace Python's MemoryError of an allocation the run's memory cap
    (`cap` bytes; None or 0: no cap) refused; None for any other error, gradcli's own size limits
    included (sequence sizes, the script's size: '... the limit of N ...'), and for a MemoryError
    the script raised itself (`raised`: `raise MemoryError('...')` keeps its own text, as in Python).
    `run`, `grad` and the REPL's child all word it here."""
    if not cap or raised or type_name != "MemoryError" or "the limit of" in (message or ""):
        return None
    return (f"the run needs more memory than --max-memory allows ({size_text(cap)})",
            "raise it with --max-memory SIZE (e.g. --max-memory 8G), or make the tensors smaller")


class hard_deadline:  # noqa: N801 - used as a context manager
    """Behind the runner's own --timeout (checked between steps): if the block is still running
    TIMEOUT_GRACE seconds after the deadline, a watchdog thread calls expire() (which reports the
    TimeoutError) and ends the process with exit status 1."""

    def __init__(self, timeout, expire):
        self.timeout, self.expire = timeout, expire

    def __enter__(self):
        if self.timeout is None:
            return self
        import threading  # noqa: PLC0415

        self.done = threading.Event()
        threading.Thread(target=self._watch, name="gradcli-hard-timeout", daemon=True).start()
        return self

    def __exit__(self, *exc):
        if self.timeout is not None:
            self.done.set()
        return False

    def _watch(self):
        if self.done.wait(self.timeout + TIMEOUT_GRACE):
            return
        try:
            self.expire()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(EXIT_SCRIPT)


def env_flag(name: str) -> bool:
    return bool(os.environ.get(name))
