"""The parser's token and tree types, without importing Lark.

A start-up that finds the parse tables cached (parser.py) runs the tokenizer and the LALR driver
on plain data, so it need not pay for importing Lark (a large package: its grammar loader, regex
and pickle support). The tokens and the trees of inlined rules it makes are these two classes,
which behave as Lark's ``Token`` and ``Tree`` do where gradcli uses them. Lark itself is imported
only where it is needed: to build the tables (a cold cache), and for its exception types, which a
syntax error uses (:func:`lark_errors`).
"""
from __future__ import annotations

from typing import Any, Optional

__all__ = ["Token", "Tree", "lark_errors"]


class Token(str):
    """A string with its terminal's name and position: Lark's ``Token`` (lark/lexer.py), as the
    tokenizer and the driver use it (same constructor, attributes, equality and repr)."""

    __slots__ = ("type", "start_pos", "value", "line", "column", "end_line", "end_column", "end_pos")
    __match_args__ = ("type", "value")

    def __new__(cls, type: str, value: Any, start_pos: Optional[int] = None,  # noqa: A002 - Lark's name
                line: Optional[int] = None, column: Optional[int] = None, end_line: Optional[int] = None,
                end_column: Optional[int] = None, end_pos: Optional[int] = None) -> "Token":
        inst = super().__new__(cls, value)
        inst.type = type
        inst.start_pos = start_pos
        inst.value = value
        inst.line = line
        inst.column = column
        inst.end_line = end_line
        inst.end_column = end_column
        inst.end_pos = end_pos
        return inst

    def update(self, type: Optional[str] = None, value: Any = None) -> "Token":  # noqa: A002
        return Token.new_borrow_pos(type if type is not None else self.type,
                                    value if value is not None else self.value, self)

    @classmethod
    def new_borrow_pos(cls, type_: str, value: Any, borrow_t: "Token") -> "Token":
        return cls(type_, value, borrow_t.start_pos, borrow_t.line, borrow_t.column, borrow_t.end_line,
                   borrow_t.end_column, borrow_t.end_pos)

    def __reduce__(self):
        return (self.__class__, (self.type, self.value, self.start_pos, self.line, self.column))

    def __repr__(self) -> str:
        return "Token(%r, %r)" % (self.type, self.value)

    def __deepcopy__(self, memo: Any) -> "Token":
        return Token(self.type, self.value, self.start_pos, self.line, self.column)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Token) and self.type != other.type:
            return False
        return str.__eq__(self, other)

    __hash__ = str.__hash__


class Tree:
    """The value of a grammar rule that has no builder method (``_items`` repetitions, inlined
    into their parent): Lark's ``Tree`` as far as the driver uses it (data, children)."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list) -> None:
        self.data = data
        self.children = children

    def __repr__(self) -> str:
        return "Tree(%r, %r)" % (self.data, self.children)

    def __eq__(self, other: object) -> bool:
        try:
            return self.data == other.data and self.children == other.children  # type: ignore[attr-defined]
        except AttributeError:
            return False

    def __hash__(self) -> int:
        return hash((self.data, tuple(self.children)))


def lark_errors() -> Any:
    """``lark.exceptions`` (imported on first use: a syntax error, or a cold table cache)."""
    import lark.exceptions  # noqa: PLC0415

    return lark.exceptions
