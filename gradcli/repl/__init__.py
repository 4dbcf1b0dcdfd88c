"""`gradcli repl`: an interactive GradScript session.

On a terminal it is a prompt_toolkit line editor (history, multi-line input, highlighting, tab
completion, meta-commands such as `:vars` and `:graph y`); with stdin not a terminal it reads
statements from stdin with the same semantics and no prompts.  prompt_toolkit is imported only
for the terminal mode.

Entry points for the CLI: ``run_repl(options, color)`` (and its alias ``main``), returning the
exit status.
"""
from __future__ import annotations

import os
import sys
from typing import Any, TextIO

__all__ = ["run_repl", "main"]


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
             stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the REPL and return its exit status.

    ``options`` is a :class:`gradcli.lang.runner.RunOptions` (defaults if None); ``color`` None
    means "colour if stdout is a terminal and NO_COLOR is unset".  With stdin a terminal, the
    interactive editor runs (exit 0 on Ctrl-D or :quit); otherwise statements are read from stdin
    (exit 1 if any of them failed, 0 otherwise).
    """
    from .core import Repl, run_stdin  # noqa: PLC0415

    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    if color is None:
        color = _want_color(stdout)
    try:
        interactive = stdin.isatty() and stdout.isatty()
    except Exception:
        interactive = False
    if not interactive:
        repl = Repl(options, out=stdout, err=stderr, color=color, filename="<stdin>")
        return run_stdin(repl, stdin)
    try:
        from .terminal import interact  # noqa: PLC0415
    except ImportError as exc:
        stderr.write(f"gradcli repl: the interactive editor needs prompt_toolkit ({exc}). "
                     "Install it with: pip install 'gradcli[repl]'\n")
        return 2
    repl = Repl(options, out=stdout, err=stderr, color=color, filename="<stdin>")
    return interact(repl)


def main(options: Any = None, color: bool | None = None) -> int:
    """Alias of :func:`run_repl` (the name the CLI may call)."""
    return run_repl(options, color)
