"""The terminal REPL: prompt_toolkit line editing over a :class:`gradcli.repl.core.Repl`.

Imported only when stdin is a terminal (prompt_toolkit is the `repl` extra).  One prompt edits a
whole statement: Enter runs it when it is complete (see ``source.is_complete``) and otherwise
opens a `... ` line, indented after a block header; a blank line ends a block.
"""
from __future__ import annotations

import os
import sys
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.filters import Condition, completion_is_selected
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.lexers import Lexer, PygmentsLexer
from prompt_toolkit.output.color_depth import ColorDepth

from .completion import make_completer
from .core import banner_text
from .source import is_complete, next_indent

__all__ = ["history_path", "make_history", "interact"]

PROMPT = ">>> "
CONTINUATION = "... "


def history_path() -> str:
    """``$XDG_STATE_HOME/gradcli/history``, else ``~/.local/state/gradcli/history``."""
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "gradcli", "history")


class _SafeFileHistory(FileHistory):
    """FileHistory that never fails the REPL: unreadable or unwritable files are ignored."""

    def load_history_strings(self):
        try:
            yield from super().load_history_strings()
        except (OSError, UnicodeDecodeError):
            return

    def store_string(self, string: str) -> None:
        try:
            super().store_string(string)
        except OSError:
            pass


def make_history():
    """A persistent history when its directory can be made, an in-memory one otherwise."""
    path = history_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "ab"):
            pass
    except OSError:
        return InMemoryHistory()
    return _SafeFileHistory(path)


def _key_bindings() -> KeyBindings:
    kb = KeyBindings()

    @kb.add("enter", filter=completion_is_selected)
    def _accept_completion(event) -> None:
        buf = event.current_buffer
        buf.apply_completion(buf.complete_state.current_completion)

    @kb.add("enter", filter=~completion_is_selected)
    def _enter(event) -> None:
        buf = event.current_buffer
        buf.cancel_completion()
        doc = buf.document
        # a one-line input runs wherever the cursor is; in a block, Enter before the end splits the line
        at_end = "\n" not in doc.text or not doc.text_after_cursor.strip()
        if at_end and is_complete(doc.text):
            buf.text = doc.text.rstrip() if doc.text.strip() else ""
            buf.validate_and_handle()
            return
        buf.insert_text("\n" + next_indent(doc.text_before_cursor))

    @kb.add("tab", filter=Condition(lambda: _only_indent_before_cursor()))
    def _indent(event) -> None:
        event.current_buffer.insert_text("    ")

    return kb


def _only_indent_before_cursor() -> bool:
    from prompt_toolkit.application.current import get_app  # noqa: PLC0415
    line = get_app().current_buffer.document.current_line_before_cursor
    return not line.strip()


class HighlightLexer(Lexer):
    """prompt_toolkit's PygmentsLexer over gradcli.lang.lexer.GradScriptLexer, made when there is
    text to colour: Pygments is not imported before the first prompt (start-up time), whose line
    is empty."""

    def __init__(self) -> None:
        self.lexer = None

    def lex_document(self, document):
        if self.lexer is None:
            if not document.text:
                return lambda lineno: []
            from ..lang.lexer import GradScriptLexer  # noqa: PLC0415

            self.lexer = PygmentsLexer(GradScriptLexer)
        return self.lexer.lex_document(document)


def interact(repl: Any, *, history: Any = None, banner: bool = True) -> int:
    """The read-eval-print loop on the terminal. Returns the exit status (0)."""
    color = repl.color
    session: PromptSession = PromptSession(
        message=PROMPT,
        multiline=True,
        prompt_continuation=lambda width, line_number, is_soft_wrap: CONTINUATION,
        history=history if history is not None else make_history(),
        lexer=HighlightLexer() if color else None,
        completer=make_completer(repl.scope, repl.session_complete, repl.complete),
        complete_while_typing=False,
        key_bindings=_key_bindings(),
        color_depth=None if color else ColorDepth.DEPTH_1_BIT,
        include_default_pygments_style=True,
        enable_history_search=False,
        mouse_support=False,
    )
    if banner:
        repl.message(banner_text())
    while True:
        try:
            text = session.prompt()
        except KeyboardInterrupt:
            repl.message("KeyboardInterrupt", error=True)
            continue
        except EOFError:
            break
        if not repl.handle_typed(text):
            break
    sys.stdout.flush()
    return 0
