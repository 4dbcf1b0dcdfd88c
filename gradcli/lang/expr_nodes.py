"""The expression nodes of the syntax tree (``ast`` has them with the statements; spans and the
node machinery: ``nodes.py``).

Node set (field names in constructor order; ``[]`` lists, ``?`` optional (None))
--------------------------------------------------------------------------------
Expressions (subclasses of Expr)
  Name(id: str)
  Constant(value)               int, float, str, bytes, bool, None or Ellipsis (for ``...``)
  JoinedStr(values: [Constant | FormattedValue])                    f'...'
  FormattedValue(value: Expr, conversion: str?, format_spec: JoinedStr?)  conversion 'r'/'s'/'a'
  List(elts: [Expr])  Tuple(elts: [Expr])  Set(elts: [Expr])        elts may hold Starred
  Dict(keys: [Expr?], values: [Expr])                               key None for **mapping
  ListComp(elt, generators: [Comprehension])  SetComp(elt, generators)
  GeneratorExp(elt, generators)  DictComp(key, value, generators)
  BinOp(op: str, left: Expr, right: Expr)   op: + - * / // % ** @ << >> | ^ &
  UnaryOp(op: str, operand: Expr)           op: - + ~ not
  BoolOp(op: str, values: [Expr])           op: and / or; a or b or c -> one BoolOp, 3 values
  Compare(left: Expr, ops: [str], comparators: [Expr])
                                            ops: < > == >= <= != in 'not in' is 'is not'
  IfExp(test: Expr, body: Expr, orelse: Expr)                 body if test else orelse
  NamedExpr(target: Name, value: Expr)      (target := value): binds in the enclosing function
                                            scope, also from inside a comprehension (PEP 572)
  Lambda(params: [str], defaults: [Expr], vararg: str?, kwarg: str?, body: Expr,
         kwonly: [str], kw_defaults: [Expr?])
  Call(func: Expr, args: [Expr | Starred], keywords: [Keyword])
  Starred(value: Expr)                       *x in calls, displays and assignment targets
  Attribute(value: Expr, attr: str)
  Subscript(value: Expr, index: Expr)        index: an Expr, a Slice, or a Tuple of them
                                             (x[:, 1] -> Tuple([Slice(), Constant(1)]))
  Slice(lower: Expr?, upper: Expr?, step: Expr?)

Helpers (subclasses of Node only)
  Keyword(arg: str?, value: Expr)            arg None for **kwargs
  Comprehension(target: Expr, iter: Expr, ifs: [Expr])
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Optional

from .nodes import Expr, Node

__all__ = [
    "Name", "Constant", "JoinedStr", "FormattedValue", "List", "Tuple", "Set", "Dict", "Comprehension",
    "ListComp", "SetComp", "GeneratorExp", "DictComp", "BinOp", "UnaryOp", "BoolOp", "Compare", "IfExp",
    "Lambda", "Keyword", "Call", "Starred", "Attribute", "Subscript", "NamedExpr", "Slice"
]


class Name(Expr):
    """A variable."""

    id: str


class Constant(Expr):
    """A literal (and `...`)."""

    value: Any


class JoinedStr(Expr):
    """An f-string: Constant and FormattedValue parts."""

    values: list[Expr]


class FormattedValue(Expr):
    """`{value!conversion:format_spec}` in an f-string."""

    value: Expr
    conversion: Optional[str] = None
    format_spec: Optional[JoinedStr] = None


class List(Expr):
    """`[elts]`."""

    elts: list[Expr]


class Tuple(Expr):
    """`(elts)` or `a, b`."""

    elts: list[Expr]


class Set(Expr):
    """`{elts}`."""

    elts: list[Expr]


class Dict(Expr):
    """`{k: v, **m}`; key None for `**m`."""

    keys: list[Optional[Expr]]
    values: list[Expr]


class Comprehension(Node):
    """`for target in iter if ifs` in a comprehension."""

    target: Expr
    iter: Expr
    ifs: list[Expr] = field(default_factory=list)


class ListComp(Expr):
    """`[elt for ...]`."""

    elt: Expr
    generators: list[Comprehension]


class SetComp(Expr):
    """`{elt for ...}`."""

    elt: Expr
    generators: list[Comprehension]


class GeneratorExp(Expr):
    """`(elt for ...)`."""

    elt: Expr
    generators: list[Comprehension]


class DictComp(Expr):
    """`{key: value for ...}`."""

    key: Expr
    value: Expr
    generators: list[Comprehension]


class BinOp(Expr):
    """`left op right`."""

    op: str
    left: Expr
    right: Expr


class UnaryOp(Expr):
    """`op operand` (`-`, `+`, `~`, `not`)."""

    op: str
    operand: Expr


class BoolOp(Expr):
    """`v1 op v2 op ...` (and/or)."""

    op: str
    values: list[Expr]


class Compare(Expr):
    """`left op1 c1 op2 c2 ...`."""

    left: Expr
    ops: list[str]
    comparators: list[Expr]


class IfExp(Expr):
    """`body if test else orelse`."""

    test: Expr
    body: Expr
    orelse: Expr


class Lambda(Expr):
    """`lambda params: body`."""

    params: list[str]
    defaults: list[Expr]
    vararg: Optional[str]
    kwarg: Optional[str]
    body: Expr
    kwonly: list[str] = field(default_factory=list)
    kw_defaults: list[Optional[Expr]] = field(default_factory=list)


class Keyword(Node):
    """`arg=value` in a call or class header; arg None for `**value`."""

    arg: Optional[str]
    value: Expr


class Call(Expr):
    """`func(args, keywords)`."""

    func: Expr
    args: list[Expr]
    keywords: list[Keyword] = field(default_factory=list)


class Starred(Expr):
    """`*value`."""

    value: Expr


class Attribute(Expr):
    """`value.attr`."""

    value: Expr
    attr: str


class Subscript(Expr):
    """`value[index]`."""

    value: Expr
    index: Expr


class NamedExpr(Expr):
    """`target := value` (an assignment expression); target is a Name."""

    target: Expr
    value: Expr
    # whether the parser has made one in this process: until then the scope analysis need not look
    # for them in expressions (scopes.walrus_targets, a walk of every expression of a function)
    parsed = False


class Slice(Expr):
    """`lower:upper:step` inside a subscript."""

    lower: Optional[Expr] = None
    upper: Optional[Expr] = None
    step: Optional[Expr] = None
