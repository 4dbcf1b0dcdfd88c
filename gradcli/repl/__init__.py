"""`gradcli repl`: an interactive GradScript session.

On a terminal it is a prompt_toolkit line editor (history, multi-line input, highlighting, tab
completion, meta-commands such as `:vars` and `:graph y`); where prompt_toolkit cannot drive the
terminal (TERM=dumb, or it is missing) a plain `>>> ` line reader; with stdin not a terminal it
reads statements from stdin with the same semantics and no prompts.  prompt_toolkit is imported
only for the terminal mode.  torch, np, nn, F and math are bound without imports.

Entry points for the CLI: ``run_repl(options, color)`` (and its alias ``main``), returning the
exit status.
"""
from __future__ import annotations

import os
import sys
from typing import Any, TextIO

__all__ = ["run_repl", "main", "line_editor"]


def _want_color(stream: TextIO) -> bool:
    try:
        from ..render.style import want_color  # noqa: PLC0415
        return want_color(stream)
    except Exception:
        if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
            return False
        try:
            return stream.isatty()
        except Exception:
            return False


def run_repl(options: Any = None, color: bool | None = None, *, stdin: TextIO | None = None,
             stdout: TextIO | None = None, stderr: TextIO | None = None, isolate: dict | None = None) -> int:
    """Run the REPL and return its exit status.

    ``options`` is a :class:`gradcli.lang.runner.RunOptions` (defaults if None); ``color`` None
    means "colour if stdout is a terminal and NO_COLOR is unset".  With stdin a terminal, the
    interactive editor runs (exit 0 on Ctrl-D or :quit); otherwise statements are read from stdin
    (exit 1 if any of them failed, 0 otherwise). ``isolate``: the session runs in a child process
    (repl/child.py) with these keywords (max_memory, seccomp, grace); None: in this process.
    """
    from .core import Repl  # noqa: PLC0415

    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    if color is None:
        color = _want_color(stdout)
    try:
        interactive = stdin.isatty() and stdout.isatty()
    except Exception:
        interactive = False
    if isolate is not None:
        from .child import ChildRepl  # noqa: PLC0415

        repl = ChildRepl(options, out=stdout, err=stderr, color=color, filename="<stdin>", **isolate)
    else:
        repl = Repl(options, out=stdout, err=stderr, color=color, filename="<stdin>")
    try:
        return _drive(repl, interactive, stdin, stdout)
    finally:
        repl.close()


def _drive(repl: Any, interactive: bool, stdin: TextIO, stdout: TextIO) -> int:
    from .core import run_stdin  # noqa: PLC0415

    if not interactive:
        return run_stdin(repl, stdin)
    interact = line_editor()
    if interact is None:
        from .core import plain_interact  # noqa: PLC0415
        return plain_interact(repl, stdin, stdout)
    try:
        return interact(repl)
    except _TERMINAL_FAILURES:  # prompt_toolkit could not drive this terminal: plain lines instead
        from .core import plain_interact  # noqa: PLC0415
        return plain_interact(repl, stdin, stdout)


# what prompt_toolkit raises when the terminal cannot be driven (termios refuses it, no console)
try:
    from termios import error as _termios_error
except ImportError:  # Windows
    _termios_error = OSError
_TERMINAL_FAILURES = (OSError, NotImplementedError, _termios_error)


def line_editor():
    """prompt_toolkit's interactive loop, or None where it cannot work: TERM=dumb or unset, or
    prompt_toolkit (a core dependency) missing or broken in this installation."""
    if os.environ.get("TERM", "") in ("", "dumb") and sys.platform != "win32":
        return None
    try:
        from .terminal import interact  # noqa: PLC0415
    except ImportError:
        return None
    return interact


def main(options: Any = None, color: bool | None = None) -> int:
    """Alias of :func:`run_repl` (the name the CLI may call)."""
    return run_repl(options, color)
