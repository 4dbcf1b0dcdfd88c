"""Errors and warnings on stderr.

An error is a compact panel::

    samples/seed02_non_scalar_backward_error.grad:7:1
      7 | z.backward()
        | ^^^^^^^^^^^^
    RuntimeError: grad can be implicitly created only for scalar outputs
    hint: call .sum() or .mean() first, or pass gradient=torch.ones_like(z)

``Type: message`` is always one line of its own, verbatim (the message's first line; any
further lines follow as they are), except for control characters: whatever a script put in a
message, a source line or a file name, ESC, BEL, CR, C1's CSI... are shown as Python's escapes
(``\x1b``), so no script can send the user's terminal a sequence (clear the screen, set the window
title or the clipboard, hide a line) through gradcli's own diagnostics (``visible``); Unicode's
bidirectional controls (U+202E, ...) likewise, so none reorders what a diagnostic shows. What the
script prints on stdout stays byte for byte what Python prints. On a terminal the same lines sit in a Rich panel with the
location as its title; piped, they are plain text. A warning is one line,
``file:line:col: UserWarning: message``.
"""
from __future__ import annotations

import re
import unicodedata

# C0 controls but for tab and newline, DEL, and the C1 controls (U+0080-U+009F: a terminal may take
# U+009B as CSI): what a terminal acts on instead of showing; and Unicode's bidirectional controls
# (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069: "Trojan Source", a message or source line shown in
# another order than it holds) and line and paragraph separators (U+2028, U+2029)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _escape(match) -> str:
    return repr(match.group())[1:-1]  # '\x1b', '\r', '\x9b': as Python's repr of the string shows it


def visible(text):
    """``text`` with the control characters a terminal would act on written as Python's escapes."""
    if not text or not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_escape, text)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else (0 if unicodedata.combining(c) else 1)
               for c in text)


def location(filename, line, column) -> str:
    where = visible(filename) or "<string>"
    if line is not None:
        where += f":{line}"
        if column is not None:
            where += f":{column}"
    return where


def headline(type_name: str, message: str) -> list[str]:
    """['Type: first line', further lines...] ('Type' alone for an empty message, as Python)."""
    message = "" if message is None else visible(str(message))
    if not message:
        return [type_name]
    first, *rest = message.split("\n")
    return [f"{type_name}: {first}", *rest]


def source_lines(source: str) -> list[str]:
    """The source's lines as the tokenizer numbers them: split at newlines only. ``str.splitlines``
    also splits at U+2028, U+2029, U+0085, form feed, \\x1c-\\x1e..., which a comment or a string may
    hold: the excerpt under an error then showed another, innocent-looking line of the script."""
    if "\r" in source:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    lines = source.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def source_excerpt(source: str | None, line, column, end_line, end_column):
    """(gutter, code, caret) strings for the failing line, or None when there is nothing to show."""
    if source is None or not line:
        return None
    lines = source_lines(source)
    if not 1 <= line <= len(lines):
        return None
    raw = lines[line - 1]
    code = visible(raw.expandtabs(8).rstrip())
    if not code.strip():
        return None
    gutter = str(line)
    caret = ""
    if column:
        start = max(column - 1, 0)
        if end_line is not None and end_line == line and end_column and end_column > column:
            stop = end_column - 1
        elif end_line is not None and end_line > line:
            stop = len(raw.rstrip())
        else:
            stop = start + 1
        stop = max(min(stop, len(raw.rstrip())), start + 1)
        if len(code) > LONG_LINE:
            return (gutter, *_window(raw, start, stop))
        pad = _width(visible(raw[:start].expandtabs(8)))
        length = max(_width(visible(raw[start:stop].expandtabs(8))), 1)
        caret = " " * pad + "^" * length
    elif len(code) > LONG_LINE:
        code = code[:WINDOW] + "..."
    return gutter, code, caret


LONG_LINE = 120   # a source line longer than this is shown as a window around the error
WINDOW = 100      # columns of it shown
MARK = "..."      # where the window cuts the line


def _window(raw: str, start: int, stop: int) -> tuple[str, str]:
    """(code, caret) for a very long line (a 1 MB one-line script, 5,000 nested brackets): about
    WINDOW columns around the error, '...' where the line goes on, the caret at most the window."""
    text = raw.expandtabs(8).rstrip()
    begin = len(raw[:start].expandtabs(8))
    end = max(len(raw[:stop].expandtabs(8)), begin + 1)
    lo = max(0, begin - WINDOW // 3)
    hi = min(len(text), lo + WINDOW)
    lo = max(0, min(lo, hi - WINDOW))
    left = MARK if lo > 0 else ""
    right = MARK if hi < len(text) else ""
    code = left + visible(text[lo:hi]) + right
    pad = len(left) + _width(visible(text[lo:begin]))
    caret = " " * pad + "^" * max(1, len(visible(text[begin:max(min(end, hi), begin + 1)])))
    return code, caret


def error_lines(type_name, message, filename, line, column, end_line, end_column, hint, source):
    """The panel's lines as plain text: location, source line, caret, Type: message, hint."""
    out = [location(filename, line, column)]
    ex = source_excerpt(source, line, column, end_line, end_column)
    if ex:
        gutter, code, caret = ex
        out.append(f"  {gutter} | {code}")
        if caret:
            out.append(f"  {' ' * len(gutter)} | {caret}")
    out.extend(headline(type_name, message))
    if hint:
        out.append(f"hint: {visible(hint)}")
    return out


def _fields(err):
    """A located error's fields: a GradScriptError, or one of the CLI's errors made in its shape
    (cli/calc.py CalcError, cli/runcmd.py's for a file that is not UTF-8)."""
    return (err.type_name, err.message, err.filename, err.line, err.column, err.end_line, err.end_column, err.hint)


def print_error(err, stream, color: bool, source: str | None = None, filename: str | None = None) -> None:
    """An error (a GradScriptError or an error in its shape: ``_fields``) as a panel on stream."""
    type_name, message, fname, line, column, end_line, end_column, hint = _fields(err)
    fname = fname or filename
    if not color:
        stream.write("\n".join(error_lines(type_name, message, fname, line, column, end_line, end_column,
                                           hint, source)) + "\n")
        stream.flush()
        return
    _print_error_rich(stream, type_name, message, fname, line, column, end_line, end_column, hint, source)


def _print_error_rich(stream, type_name, message, fname, line, column, end_line, end_column, hint, source):
    from rich import box  # noqa: PLC0415
    from rich.console import Group  # noqa: PLC0415
    from rich.panel import Panel  # noqa: PLC0415
    from rich.text import Text  # noqa: PLC0415

    from .style import rich_console  # noqa: PLC0415

    parts = []
    ex = source_excerpt(source, line, column, end_line, end_column)
    if ex:
        gutter, code, caret = ex
        parts.append(Text.assemble((f"{gutter} | ", "dim"), code))
        if caret:
            parts.append(Text.assemble((f"{' ' * len(gutter)} | ", "dim"), (caret, "bold red")))
    head = headline(type_name, message)
    first = Text(head[0])
    first.stylize("bold red", 0, len(type_name))
    parts.append(first)
    parts.extend(Text(extra) for extra in head[1:])
    if hint:
        parts.append(Text.assemble(("hint: ", "bold cyan"), (visible(hint), "cyan")))
    console = rich_console(stream, True, stderr=False)
    console.print(Panel(Group(*parts), title=Text(location(fname, line, column), style="bold"),
                        title_align="left", border_style="red", box=box.ROUNDED, expand=False))
    stream.flush()


def warning_line(category, message, filename, line=None, column=None) -> str:
    return f"{location(filename, line, column)}: {category or 'UserWarning'}: {visible(str(message))}"


class WarningPrinter:
    """Prints each warning it is given on stream (which the run shows is the session's to decide:
    lang/runner.Session._show_warning, after the script's warnings filters)."""

    def __init__(self, stream, color: bool, filename: str):
        self.stream, self.color, self.filename = stream, color, filename

    def __call__(self, *args, **kwargs) -> None:
        w = args[0] if len(args) == 1 and not kwargs else None
        if w is None:  # warn(category, message, line, column) as plain arguments
            names = ("category", "message", "line", "column")
            data = dict(zip(names, args))
            data.update(kwargs)
        else:
            data = {k: getattr(w, k, None) for k in ("category", "message", "line", "column")}
            if isinstance(w, str):
                data["message"] = w
        self.show(data.get("category"), data.get("message"), data.get("line"), data.get("column"))

    def show(self, category, message, line, column) -> None:
        text = warning_line(category, message, self.filename, line, column)
        if self.color:
            from rich.text import Text  # noqa: PLC0415

            from .style import rich_console  # noqa: PLC0415

            t = Text(text)
            head = len(location(self.filename, line, column)) + 2
            t.stylize("bold magenta", head, head + len(category or "UserWarning"))
            rich_console(self.stream, True, soft_wrap=True).print(t)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
