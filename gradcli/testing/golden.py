"""Expectation files and the comparison of a run against them (docs/goldens.md has the format).

Beside ``NAME.grad``:

- ``NAME.out``: the exact stdout bytes (UTF-8) the script must print;
- ``NAME.err``: when the script must raise: ``Type: message`` (the message's first line; just
  ``Type`` for an empty message) and, on a second line, ``line N``: the script line that raises.

Comparison rules (the same for the project's own golden tests, `gradcli test` and the pytest
plugin): stdout byte for byte, except object addresses (``<AddBackward0 object at 0x7f...>``
differs from run to run, in PyTorch too); the error's ``Type: message`` exactly, except that a
``SyntaxError`` recorded by Python ends with ``(FILE, line N)``, which gradcli reports apart; the
error's line when the file gives one. gradcli's own failure (an internal error, a crashed or
killed run) never passes. A golden marked CPU-dependent (``NAME.cpu``, see :mod:`.cpu`) is
byte-exact on the CPU it came from; elsewhere its numbers may differ within the marking's ulp
tolerance, everything else exactly.

Light: standard library only.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

OUT_SUFFIX = ".out"
ERR_SUFFIX = ".err"

_ADDRESS = re.compile(rb"( object(?: [A-Za-z_][\w.<>]*)?) at 0x[0-9a-fA-F]+>")
_SYNTAX = ("SyntaxError:", "IndentationError:", "TabError:")
_PYTHON_PLACE = re.compile(r" \([^()]*, line \d+\)$")
_LINE = re.compile(r"line (\d+)")


def mask_addresses(data: bytes) -> bytes:
    """Object addresses masked: ``<X object at 0x7f12>`` -> ``<X object at 0x...>``, and a generator's
    ``<generator object Module.parameters at 0x7f12>`` likewise."""
    return _ADDRESS.sub(rb"\1 at 0x...>", data)


def error_text(type_name: str, message: str | None) -> str:
    """The ``Type: message`` line of an error (the message's first line; ``Type`` alone if empty)."""
    lines = (message or "").splitlines()
    first = lines[0] if lines else ""
    return f"{type_name}: {first}" if first else type_name


def normalized_error_text(text: str) -> str:
    """An expected error line as gradcli reports it: Python's str() of a SyntaxError ends with
    '(FILE, line N)', which gradcli reports apart."""
    if text.startswith(_SYNTAX):
        return _PYTHON_PLACE.sub("", text)
    return text


def stdout_bytes(text: str) -> bytes:
    """A run's stdout as the bytes gradcli writes (UTF-8; a lone surrogate escaped, never an error)."""
    return text.encode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class Expectation:
    """What ``NAME.out``/``NAME.err`` say about a script (both None: no expectation)."""
    script: Path
    out: bytes | None = None            # the expected stdout, None without NAME.out
    error: str | None = None            # the expected 'Type: message', None without NAME.err
    error_line: int | None = None       # the expected line of the error (None: not checked)
    problem: str | None = None          # an expectation file that cannot be used, in words
    marking: object = None              # NAME.cpu: a cpu.CpuMarking when the digits depend on the CPU

    @property
    def exists(self) -> bool:
        return self.out is not None or self.error is not None or self.problem is not None


def out_path(script) -> Path:
    return Path(script).with_suffix(OUT_SUFFIX)


def err_path(script) -> Path:
    return Path(script).with_suffix(ERR_SUFFIX)


def _utf8_problem(path: Path, data: bytes) -> str | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (f"{path.name} is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                "expectation files are UTF-8 text")
    return None


PSEUDO_FOLDERS = ("/proc/", "/sys/", "/dev/")


def pseudo_file(path) -> str | None:
    """Where `path` leads when that is a file of the kernel's pseudo file systems (/proc, /sys, /dev),
    else None. A script or expectation file that is a link there (`NAME.out -> /proc/self/environ`,
    committed to a repository that a course's CI tests) would show the CI's environment, its secrets
    included, in a diff or a syntax error's source line of a public log."""
    import os  # noqa: PLC0415

    real = os.path.realpath(path)
    return real if real.startswith(PSEUDO_FOLDERS) else None


def outside(path, root) -> str | None:
    """Where ``path`` leads when that is outside the folder ``root`` (the tree `gradcli test` was given),
    else None (also without a root). A repository's link out of itself (``hw.out -> ~/.aws/credentials``,
    ``hw.grad -> /etc/...``) would show another file of the CI machine in a diff or a syntax error's
    source line of a public log: `gradcli test` reads only what lies in the tree it tests."""
    if root is None:
        return None
    import os  # noqa: PLC0415

    real, top = os.path.realpath(path), os.path.realpath(root)
    return None if real == top or real.startswith(top.rstrip(os.sep) + os.sep) else real


def foreign(path, root=None) -> str | None:
    """Why `gradcli test` does not read ``path`` (a link into /proc, /sys, /dev or out of the tested
    tree), in words, or None."""
    where = pseudo_file(path)
    if where is None:
        where = outside(path, root)
        if where is not None:
            return f"it is a link to {where}, outside the folder tested ({root})"
        return None
    return f"it is a link to {where}"


# the largest expectation file read: a script's output past this never passes (MAX_TEST_OUTPUT)
MAX_EXPECTATION_BYTES = 64 * 1024 * 1024


def _read_capped(file: Path) -> bytes | None:
    """The file's bytes, None when it holds more than MAX_EXPECTATION_BYTES."""
    with open(file, "rb") as fh:
        data = fh.read(MAX_EXPECTATION_BYTES + 1)
    return None if len(data) > MAX_EXPECTATION_BYTES else data


def _too_large(script, file, out=None) -> Expectation:
    return Expectation(script, out=out, problem=(
        f"{file.name} is larger than the {MAX_EXPECTATION_BYTES // (1024 * 1024)} MiB an expectation file may hold "
        "(gradcli test holds at most that much of a script's output)"))


def read_expectation(script, root=None) -> Expectation:
    """The expectation files beside ``script`` (never raises: an unusable file is ``problem``); with
    ``root``, a file that is a link out of that folder is not read (``outside``)."""
    script = Path(script)
    out_file, err_file = out_path(script), err_path(script)
    out = error = line = None
    for file in (out_file, err_file, out_file.with_suffix(".cpu")):
        why = foreign(file, root)
        if why:
            return Expectation(script, problem=f"{file.name} is not read: {why}; expectation files are UTF-8 text "
                                               "files beside the script")
    try:
        if out_file.is_file():
            out = _read_capped(out_file)
            if out is None:
                return _too_large(script, out_file)
            problem = _utf8_problem(out_file, out)
            if problem:
                return Expectation(script, problem=problem)
        if err_file.is_file():
            data = _read_capped(err_file)
            if data is None:
                return _too_large(script, err_file, out)
            problem = _utf8_problem(err_file, data)
            if problem:
                return Expectation(script, out=out, problem=problem)
            lines = [ln for ln in data.decode("utf-8").splitlines()]
            while lines and not lines[-1].strip():
                lines.pop()
            if not lines or not lines[0].strip() or len(lines) > 2:
                return Expectation(script, out=out, problem=(
                    f"{err_file.name} must hold 'Type: message' and, on a second line, 'line N' "
                    f"(it has {len(lines)} line{'' if len(lines) == 1 else 's'})"))
            error = lines[0]
            if len(lines) == 2:
                match = _LINE.fullmatch(lines[1].strip())
                if match is None:
                    return Expectation(script, out=out, problem=(
                        f"{err_file.name}: the second line must be 'line N', not {lines[1]!r}"))
                line = int(match.group(1))
    except OSError as exc:
        return Expectation(script, problem=f"cannot read the expectation files: {exc.strerror or exc}")
    from . import cpu  # noqa: PLC0415 - only the marked goldens need it

    try:
        marking = cpu.read_marking(out_file)
    except (OSError, ValueError) as exc:
        return Expectation(script, out=out, error=error, error_line=line,
                           problem=f"{out_file.with_suffix(cpu.MARKING_SUFFIX).name} is not a CPU marking: {exc}")
    return Expectation(script, out=out, error=error, error_line=line, marking=marking)


@dataclass
class Actual:
    """What a run did, as the comparison needs it."""
    stdout: str
    outputs: list = field(default_factory=list)    # (text, line) per printed piece, in order
    error_type: str | None = None
    error_message: str | None = None
    error_line: int | None = None
    failure: str | None = None                     # gradcli's own failure (internal error, crash), in words

    @property
    def error(self) -> str | None:
        return None if self.error_type is None else error_text(self.error_type, self.error_message)

    def error_place(self) -> str:
        return f"{self.error} at line {self.error_line}" if self.error_line is not None else str(self.error)


def actual_from_result(result) -> Actual:
    """An :class:`Actual` from the runner's RunResult (gradcli.lang.runner)."""
    outputs = [(o.text, o.line) for o in result.outputs]
    actual = Actual("".join(text for text, _ in outputs), outputs)
    err = result.error
    if err is not None:
        if err.type_name == "InternalError":
            actual.failure = f"internal error: {err.message}"
        actual.error_type, actual.error_message, actual.error_line = err.type_name, err.message, err.line
    return actual


def actual_from_outcome(outcome) -> Actual:
    """An :class:`Actual` from the executor's outcome (gradcli.cli.executor.Executed), as
    :func:`actual_from_result` makes one from the runner's RunResult."""
    err = outcome.error
    if outcome.raised and outcome.kind != "script":
        # raised out of the run, no result: gradcli's own failure in words
        what = outcome.internal_text or f"CudaUnavailable: {outcome.message}"
        return Actual("", [], failure=f"internal error: {what}")
    outputs = list(outcome.outputs)
    actual = Actual("".join(text for text, _ in outputs), outputs)
    if err is not None:
        if err["type"] == "InternalError":
            actual.failure = f"internal error: {err['message']}"
        actual.error_type, actual.error_message, actual.error_line = err["type"], err["message"], err["line"]
    return actual


@dataclass
class Verdict:
    """The comparison's result: ``passed``, or what differs."""
    passed: bool
    problems: list = field(default_factory=list)   # one line each
    diff: str = ""                                  # unified diff of expected and actual stdout
    line: int | None = None                         # the script line to point at (GitHub annotations)


def compare(expectation: Expectation, actual: Actual, name: str | None = None) -> Verdict:
    """Check a run against its expectation (which must exist)."""
    name = name or expectation.script.name
    problems: list[str] = []
    diff, line = "", None
    if expectation.problem:
        problems.append(expectation.problem)
    if actual.failure:
        problems.append(actual.failure)
    if expectation.out is not None:
        want, got = mask_addresses(expectation.out), mask_addresses(stdout_bytes(actual.stdout))
        if want != got and expectation.marking is not None and _within_marking(expectation, want, got, problems):
            pass   # a CPU-dependent golden on another CPU: only digits moved, within the stated tolerance
        elif want != got:
            index = _first_different_line(want, got)
            problems.append(f"stdout differs from {out_path(expectation.script).name} at output line {index + 1}")
            diff = unified_diff(want, got, f"{out_path(name)} (expected)", f"{name} (actual stdout)")
            line = _source_line_of(actual, index)
    if expectation.error is None:
        if actual.error_type is not None and not actual.failure:
            problems.append(f"unexpected {actual.error_place()}")
            line = line or actual.error_line
    elif not expectation.problem:
        want = normalized_error_text(expectation.error)
        at = f" at line {expectation.error_line}" if expectation.error_line is not None else ""
        if actual.error_type is None:
            problems.append(f"expected {want}{at}, but the script ended without an error")
        elif actual.error != want or (expectation.error_line is not None
                                      and actual.error_line != expectation.error_line):
            problems.append(f"expected {want}{at}, got {actual.error_place()}")
            line = line or actual.error_line or expectation.error_line
    if problems and line is None:
        line = actual.error_line
    return Verdict(not problems, problems, diff, line)


def _within_marking(expectation: Expectation, want: bytes, got: bytes, problems: list) -> bool:
    """True when a marked golden's stdout differs only in digits allowed on this CPU; otherwise
    False, with what exceeds the tolerance added to ``problems`` (on the golden's own CPU: none)."""
    from . import cpu  # noqa: PLC0415

    result = cpu.compare_text(got.decode("utf-8", "backslashreplace"), want.decode("utf-8", "backslashreplace"),
                              expectation.marking)
    if not result.ok and not result.exact:
        name = out_path(expectation.script).with_suffix(cpu.MARKING_SUFFIX).name
        problems.append(f"stdout differs from {out_path(expectation.script).name} beyond {name}'s tolerance: "
                        f"{result.message}")
    return result.ok


def _split(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _first_different_line(want: bytes, got: bytes) -> int:
    a, b = _split(want), _split(got)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def _source_line_of(actual: Actual, index: int) -> int | None:
    """The statement line of the output that printed stdout line ``index`` (0-based): the output
    piece where that line starts; past the end, the error's line or the last output's."""
    start = sum(len(chunk) for chunk in actual.stdout.splitlines(keepends=True)[:index])
    offset = 0
    for text, source_line in actual.outputs:
        if offset <= start < offset + len(text):
            return source_line
        offset += len(text)
    if actual.error_line is not None:
        return actual.error_line
    lines = [ln for _, ln in actual.outputs if ln is not None]
    return lines[-1] if lines else None


# what a report's diff shows at most: lines from (just before) the first difference on, characters of a
# line (a script printing 10 MB lines, or a million lines, put them all in the CI log, and difflib's
# matching of a million lines against a million took the parent minutes)
DIFF_LINES = 1000
DIFF_LINE_CHARS = 1000
_HUNK = re.compile(r"^@@ -(\d+)((?:,\d+)?) \+(\d+)((?:,\d+)?) @@$")


def unified_diff(want: bytes, got: bytes, fromfile: str, tofile: str) -> str:
    """A unified diff of two texts (bytes that are not UTF-8 shown escaped; a missing final
    newline marked as diff(1) marks it): of at most DIFF_LINES lines of each from 3 lines before the
    first difference (the hunks' line numbers those of the whole texts), each line cut at
    DIFF_LINE_CHARS characters."""
    start = max(0, _first_different_line(want, got) - 3)

    def lines(data):
        chunks = _split(data)
        out = []
        for chunk in chunks[start:start + DIFF_LINES]:
            chunk = chunk.decode("utf-8", "backslashreplace")
            if len(chunk) > DIFF_LINE_CHARS + 1:
                cut = len(chunk.rstrip("\r\n")) - DIFF_LINE_CHARS
                chunk = chunk[:DIFF_LINE_CHARS] + f"... ({cut:,} more characters)" + ("\n" if chunk.endswith("\n") else "")
            out.append(chunk if chunk.endswith("\n") else chunk + "\n\\ No newline at end of file\n")
        if len(chunks) > start + DIFF_LINES:
            out.append(f"... ({len(chunks) - start - DIFF_LINES:,} more lines not compared)\n")
        return out

    def shifted(line):
        match = _HUNK.match(line.rstrip("\n")) if start else None
        if match is None:
            return line
        a, la, b, lb = match.groups()
        return f"@@ -{int(a) + start}{la} +{int(b) + start}{lb} @@\n"

    return "".join(shifted(line) for line in difflib.unified_diff(lines(want), lines(got), fromfile, tofile))


def expectation_files(actual: Actual) -> dict:
    """What ``--update`` writes: {suffix: bytes or None (remove the file)}."""
    err = None
    if actual.error_type is not None:
        place = f"line {actual.error_line}\n" if actual.error_line is not None else ""
        err = f"{actual.error}\n{place}".encode("utf-8", "backslashreplace")
    return {OUT_SUFFIX: stdout_bytes(actual.stdout), ERR_SUFFIX: err}
