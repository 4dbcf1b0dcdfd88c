"""When gradcli colours its output."""
from __future__ import annotations

import os


def want_color(stream, no_color: bool = False) -> bool:
    """Colour only on a terminal, never with --no-color, NO_COLOR (non-empty) or TERM=dumb;
    FORCE_COLOR (non-empty) forces it on a non-terminal."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def rich_console(stream, color: bool, **kwargs):
    """A Rich console writing to stream; without colour it emits no escape codes at all."""
    from rich.console import Console  # noqa: PLC0415 - rich is imported only when rendering needs it

    kwargs.setdefault("_environ", _rich_environ())
    if color:
        return Console(file=stream, force_terminal=True, highlight=False, markup=False, emoji=False,
                       soft_wrap=kwargs.pop("soft_wrap", False), **kwargs)
    return Console(file=stream, force_terminal=False, color_system=None, no_color=True, highlight=False,
                   markup=False, emoji=False, width=kwargs.pop("width", None) or _plain_width(stream), **kwargs)


def _size_variable(value: str) -> bool:
    """Whether a COLUMNS/LINES value is a size: ASCII digits that int() reads ('²'.isdigit() is true,
    and int() refuses past 4300 digits: Rich's Console.size called int() on what isdigit() let by)."""
    return value.isascii() and value.isdigit() and len(value) <= 5


def _rich_environ() -> dict:
    """The environment Rich reads, without a COLUMNS or LINES that is not a size."""
    env = dict(os.environ)
    for name in ("COLUMNS", "LINES"):
        if name in env and not _size_variable(env[name]):
            del env[name]
    return env


def _plain_width(stream) -> int:
    cols = os.environ.get("COLUMNS", "")
    if _size_variable(cols) and int(cols) > 20:
        return int(cols)
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        pass
    return 100
