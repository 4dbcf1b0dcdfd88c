"""Errors that GradScript reports with a source location."""

from __future__ import annotations

import sys
from typing import Any, Optional


class GradScriptError(Exception):
    """An error in a GradScript program, located in its source.

    ``type_name`` is the Python/PyTorch exception name shown to the user ("SyntaxError",
    "IndentationError", "TabError", "RuntimeError", ...), ``message`` its text.  Lines and
    columns are 1-based; ``end_column`` is one past the last character (so a one-character
    error at column 5 has ``end_column`` 6).  ``hint`` is an optional sentence that says what
    was expected or how to fix it.
    """

    default_type_name = "Error"

    def __init__(
        self,
        message: str,
        *,
        type_name: Optional[str] = None,
        filename: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        end_line: Optional[int] = None,
        end_column: Optional[int] = None,
        hint: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.type_name = type_name or self.default_type_name
        self.message = message
        self.filename = filename
        self.line = line
        self.column = column
        self.end_line = end_line if end_line is not None else line
        if end_column is None and column is not None:
            end_column = column + 1
        self.end_column = end_column
        self.hint = hint

    def __str__(self) -> str:
        where = self.filename or "<string>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        text = f"{where}: {self.type_name}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.message!r}, type_name={self.type_name!r}, "
                f"line={self.line!r}, column={self.column!r})")

    def to_dict(self) -> dict[str, Any]:
        """The error as plain JSON-able data (for ``--json``)."""
        return {
            "type": self.type_name,
            "message": self.message,
            "filename": self.filename,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "hint": self.hint,
        }

    def __reduce__(self):  # keyword-only constructor: keep pickling (multiprocessing) working
        return (_rebuild, (type(self), self.to_dict()))


def _rebuild(cls: type, data: dict[str, Any]) -> GradScriptError:
    data = dict(data)
    message = data.pop("message")
    data["type_name"] = data.pop("type")
    return cls(message, **data)


def python_message(exc: BaseException) -> str:
    """str(exc) as Python 3.11 and later word it, on every Python gradcli runs on: CPython 3.10 names
    the integer string conversion limit "(4300)" where 3.11+ (the oracle's Python) say "(4300 digits)"."""
    message = str(exc)
    if sys.version_info < (3, 11) and message.startswith("Exceeds the limit ("):
        message = message.replace(") for integer string conversion", " digits) for integer string conversion", 1)
    return message


class ScriptSyntaxError(GradScriptError):
    """A SyntaxError, IndentationError or TabError found while parsing GradScript."""

    default_type_name = "SyntaxError"
