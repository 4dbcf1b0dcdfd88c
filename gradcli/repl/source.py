"""When is a piece of REPL input a complete statement?  The continuation rule, shared by the
terminal REPL (the Enter key) and by the non-terminal mode (statements read from stdin).

The rule is Python's interactive one:
- an open bracket, an unterminated triple-quoted string or a trailing backslash continues;
- a block statement (a header such as ``for ...:``, ``if ...:``, ``with ...:``, ``def ...:``,
  ``class ...:``, a decorator, or a one-line ``for i in x: print(i)``) continues until a blank
  line;
- anything else is complete after its line.

No Python parser is used (and certainly no ``eval``/``exec``): a small scanner knows strings,
comments and brackets, which is all the rule needs.  Whether the statement is *valid* is the
GradScript parser's business.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from ..lang.keywords import PYTHON_ONLY

__all__ = ["Scan", "scan", "is_complete", "needs_blank_line", "is_meta", "next_indent", "StatementReader"]

_PATTERNS: list = []


def _patterns() -> tuple:
    """(block start, block continuation): the regexes of a line that starts a block statement (a
    block header of the grammar, Python's other block openers, whose errors the parser then gives,
    or a decorator), and of one that continues the block statement above it (else, except, ...)."""
    if not _PATTERNS:
        from ..lang.parser import keyword_tables  # noqa: PLC0415 - the parse tables, at the first line

        kw = keyword_tables()
        # Python's other openers (match, async) only as a header: `match = 1` is a name's assignment
        _PATTERNS.append(re.compile(r"(?:%s)\b|@|(?:%s)\b.*:$" % ("|".join(kw.block_headers), "|".join(PYTHON_ONLY))))
        _PATTERNS.append(re.compile(r"(?:%s)\b" % "|".join(kw.continuation_headers)))
    return _PATTERNS[0], _PATTERNS[1]


@dataclass
class Scan:
    """What the scanner learnt about a piece of source."""
    depth: int = 0                 # open brackets at the end (negative: too many closers)
    in_string: bool = False        # inside a triple-quoted string at the end
    backslash: bool = False        # the last line ends with a line-continuation backslash
    ends_with_colon: bool = False  # ... and it ends with ':' outside brackets (a block header)
    first_code: str = ""           # the first non-blank, non-comment line, stripped


def scan(text: str) -> Scan:
    """Scan ``text`` (one or more lines) for brackets, strings, comments and continuations."""
    result = Scan()
    depth = 0
    quote = None        # the open string's delimiter: ', ", ''' or """
    i, n = 0, len(text)
    line_code: list[str] = []   # code of the current physical line, comments and strings removed
    logical: list[str] = []     # code of the current logical line
    colon_at_depth0 = False

    def end_line(at_end: bool) -> None:
        nonlocal colon_at_depth0
        code = "".join(line_code).rstrip()
        line_code.clear()
        logical.append(code)
        continued = depth > 0 or quote is not None or code.endswith("\\")
        if not continued or at_end:
            whole = " ".join(part.strip() for part in logical).strip()
            if whole:
                if not result.first_code:
                    result.first_code = whole
                result.ends_with_colon = whole.endswith(":") and colon_at_depth0
            if not continued:
                logical.clear()
                colon_at_depth0 = False

    while i < n:
        ch = text[i]
        if quote is not None:
            if ch == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = None
                line_code.append("''")
                continue
            if ch == "\n":
                if len(quote) == 1:      # an unterminated one-line string ends at the line end
                    quote = None
                    end_line(False)
                else:
                    pass                 # inside a triple-quoted string: no logical line end
            i += 1
            continue
        if ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch in "'\"":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            i += len(quote)
            continue
        if ch == "\n":
            end_line(False)
            i += 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth <= 0:
            colon_at_depth0 = True
        line_code.append(ch)
        i += 1
    if quote is not None and len(quote) == 1:
        quote = None
    end_line(True)
    result.depth = depth
    result.in_string = quote is not None
    last_line = text.rsplit("\n", 1)[-1]
    result.backslash = _strip_comment(last_line).endswith("\\") and quote is None
    return result


def _strip_comment(line: str) -> str:
    """The line without a trailing comment (a rough cut that is right outside strings)."""
    quote = None
    for k, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:k].rstrip()
    return line.rstrip()


def is_meta(text: str) -> bool:
    """A meta-command (``:vars``, ``:graph y``, ...): one line starting with ':'."""
    stripped = text.strip()
    return stripped.startswith(":") and "\n" not in stripped


def needs_blank_line(text: str) -> bool:
    """Whether ``text`` is (the start of) a block statement, which a blank line ends."""
    s = scan(text)
    return bool(s.first_code) and (bool(_patterns()[0].match(s.first_code)) or s.ends_with_colon)


def is_complete(text: str) -> bool:
    """Whether the REPL should run ``text`` now (True) or read another line (False)."""
    if not text.strip() or is_meta(text):
        return True
    s = scan(text)
    if s.in_string or s.backslash or s.depth > 0:
        return False
    if s.ends_with_colon:
        return False
    if not s.first_code:        # only comments
        return True
    if _patterns()[0].match(s.first_code):
        last = text.rsplit("\n", 1)
        return len(last) == 2 and not last[1].strip()
    return True


def next_indent(text: str) -> str:
    """The indentation for the line after ``text``: that of the last logical line's first
    physical line, one level deeper after a block header; none inside open brackets."""
    lines = text.split("\n")
    s = scan(text)
    if s.depth > 0 or s.in_string:
        return ""
    start = None
    for k in range(len(lines)):     # the last line that starts a logical line with code
        before = scan("\n".join(lines[:k])) if k else Scan()
        if lines[k].strip() and before.depth <= 0 and not before.in_string and not before.backslash:
            start = k
    if start is None:
        return ""
    line = lines[start]
    indent = line[: len(line) - len(line.lstrip())]
    if s.ends_with_colon:
        indent += "    "
    return indent


class StatementReader:
    """Cuts a stream of lines (stdin that is not a terminal) into complete statements.

    Statements are what the terminal REPL would run: the same continuation rule.  As a
    convenience for piped scripts, a block statement also ends where a new statement starts at
    column 0 (not only at a blank line), so an ordinary ``.grad`` file can be piped in.  A
    meta-command (``:vars``) is one line starting with ':' between statements.
    Yields ``(first_line_number, text)``; line numbers are 1-based.
    """

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._start = 0

    def feed(self, lineno: int, line: str) -> Iterator[tuple[int, str]]:
        line = line.rstrip("\r\n")
        if not self._lines:
            if not line.strip() or line.lstrip().startswith("#"):
                return
            self._start = lineno
            self._lines.append(line)
            if is_complete(line):
                yield self._flush()
            return
        pending = "\n".join(self._lines)
        if (line.strip() and not line[0].isspace() and not _patterns()[1].match(line)
                and not line.startswith("#") and self._open_block(pending)):
            yield self._flush()
            yield from self.feed(lineno, line)
            return
        self._lines.append(line)
        if is_complete("\n".join(self._lines)):
            yield self._flush()

    @staticmethod
    def _open_block(pending: str) -> bool:
        s = scan(pending)
        if s.in_string or s.backslash or s.depth > 0:
            return False
        return needs_blank_line(pending) and not s.ends_with_colon

    def close(self) -> Iterator[tuple[int, str]]:
        if self._lines and "\n".join(self._lines).strip():
            yield self._flush()
        self._lines = []

    def _flush(self) -> tuple[int, str]:
        text = "\n".join(self._lines).rstrip()
        self._lines = []
        return self._start, text

    def read(self, lines: Iterable[str]) -> Iterator[tuple[int, str]]:
        """All statements of an iterable of lines, the last one at its end."""
        for k, line in enumerate(lines, 1):
            yield from self.feed(k, line)
        yield from self.close()
