"""stdout writers. The text is always exactly what Python with PyTorch prints; on a terminal the
same characters may be coloured (tensor values, ``grad_fn`` names), never changed."""
from __future__ import annotations

import re

# What gets a colour in echo output: grad_fn node names, requires_grad/dtype/device suffixes,
# numbers, nan/inf. The characters themselves are never touched. Compiled by the first ColorWriter
# (plain output, the usual case when piped, needs none of them: start-up time).
_PATTERNS = {
    "grad_fn": r"(?<=grad_fn=<)\w+(?=>)|(?<=<)\w+Backward\d*(?= object at)",
    "suffix": r"\b(?:requires_grad|dtype|device|grad_fn)=",
    "number": r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?|nan|inf)(?![\w])",
    "keyword": r"\b(?:True|False|None)\b",
    # Characters that Rich would strip or reinterpret: write those chunks raw.
    "raw_only": r"[\x00-\x08\x0b-\x1f\x7f\t]",
}
_COMPILED = {}


def _re(name):
    pattern = _COMPILED.get(name)
    if pattern is None:
        pattern = _COMPILED[name] = re.compile(_PATTERNS[name])
    return pattern


class PlainWriter:
    """Writes each chunk as it streams, flushing so output interleaves correctly with stderr."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str, line=None) -> None:  # noqa: ARG002 - the runner passes the source line
        self.stream.write(text)
        self.stream.flush()

    def flush(self) -> None:
        self.stream.flush()


class ColorWriter(PlainWriter):
    """Colours tensor values and grad_fn names with Rich; the characters stay the same."""

    def __init__(self, stream):
        super().__init__(stream)
        self.console = None  # Rich's, made at the first coloured write (importing Rich costs start-up time)

    def write(self, text: str, line=None) -> None:
        if not text:
            return
        if _re("raw_only").search(text):
            super().write(text)
            return
        if self.console is None:
            from .style import rich_console  # noqa: PLC0415

            self.console = rich_console(self.stream, True, soft_wrap=True)
        self.console.print(highlight(text), end="", soft_wrap=True)
        self.stream.flush()


def highlight(text: str):
    """A Rich Text of exactly `text` with styles on the parts worth colouring."""
    from rich.text import Text  # noqa: PLC0415

    t = Text(text, end="")
    t.highlight_regex(_re("number"), "cyan")
    t.highlight_regex(_re("keyword"), "magenta")
    t.highlight_regex(_re("suffix"), "dim")
    t.highlight_regex(_re("grad_fn"), "bold yellow")
    return t


def make_writer(stream, color: bool):
    return ColorWriter(stream) if color else PlainWriter(stream)
