"""The GradScript abstract syntax tree: small typed dataclasses with source spans.

``gradcli.lang.parser.parse()`` turns source text into a :class:`Module`.  Nothing here
depends on Lark; downstream code (compiler, engine, renderer) sees only these classes.

Spans
-----
Every node has ``line``, ``column``, ``end_line``, ``end_column`` (keyword-only fields,
left out of ``==`` and ``repr``).  Lines and columns are 1-based and count characters
(code points), as Lark and CPython's ``SyntaxError.offset`` do; ``end_column`` is one past
the last character, so a name ``x`` in column 1 spans columns 1..2.  A parenthesised
expression's span includes its parentheses.  Equality ignores spans, so tests can compare
shapes: ``parse("x = 1").body[0] == Assign([Name("x")], Constant(1))``.

Node set (field names in constructor order; ``[]`` lists, ``?`` optional (None))
--------------------------------------------------------------------------------
Module(body: [Stmt])

Statements (subclasses of Stmt)
  Import(names: [Alias])                     import torch.nn as nn, numpy as np
  ImportFrom(module: str, names: [Alias])    from torch import nn, optim; names [Alias("*")] for *
  Assign(targets: [Expr], value: Expr)       a = b = 1 -> targets [a, b]; a, b = t -> [Tuple]
  AugAssign(target: Expr, op: str, value)    op is the binary symbol: '+' for +=, '//' for //= ...
  AnnAssign(target: Expr, annotation: Expr, value: Expr?)    x: int = 3
  ExprStmt(value: Expr)
  For(target: Expr, iter: Expr, body: [Stmt], orelse: [Stmt])
  While(test: Expr, body: [Stmt], orelse: [Stmt])
  If(test: Expr, body: [Stmt], orelse: [Stmt])           elif -> a single nested If in orelse
  With(items: [WithItem], body: [Stmt])
  FunctionDef(name: str, params: [str], defaults: [Expr], vararg: str?, kwarg: str?,
              body: [Stmt], kwonly: [str], kw_defaults: [Expr?], decorators: [Expr],
              returns: Expr?, annotations: {str: Expr})
        defaults belong to the last len(defaults) params (as in Python's ast);
        kw_defaults is parallel to kwonly (None = required); annotations maps a
        parameter name to its annotation (only annotated ones).
  ClassDef(name: str, bases: [Expr], body: [Stmt], keywords: [Keyword], decorators: [Expr])
  Return(value: Expr?)          Assert(test: Expr, msg: Expr?)
  Delete(targets: [Expr])       Global(names: [str])        Nonlocal(names: [str])
  Pass()  Break()  Continue()

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
  Lambda(params: [str], defaults: [Expr], vararg: str?, kwarg: str?, body: Expr,
         kwonly: [str], kw_defaults: [Expr?])
  Call(func: Expr, args: [Expr | Starred], keywords: [Keyword])
  Starred(value: Expr)                       *x in calls, displays and assignment targets
  Attribute(value: Expr, attr: str)
  Subscript(value: Expr, index: Expr)        index: an Expr, a Slice, or a Tuple of them
                                             (x[:, 1] -> Tuple([Slice(), Constant(1)]))
  Slice(lower: Expr?, upper: Expr?, step: Expr?)

Helpers (subclasses of Node only)
  Alias(name: str, asname: str?)             name may be dotted: 'torch.nn'
  Keyword(arg: str?, value: Expr)            arg None for **kwargs
  WithItem(context_expr: Expr, optional_vars: Expr?)
  Comprehension(target: Expr, iter: Expr, ifs: [Expr])

Every class has ``_fields``: the names of its non-span fields, in order.
``walk(node)`` yields a node and all nodes below it; ``iter_child_nodes(node)`` the direct ones.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

__all__ = [
    "Node", "Stmt", "Expr", "Module",
    "Import", "ImportFrom", "Alias", "Assign", "AugAssign", "AnnAssign", "ExprStmt",
    "For", "While", "If", "With", "WithItem", "FunctionDef", "ClassDef", "Return",
    "Assert", "Delete", "Global", "Nonlocal", "Pass", "Break", "Continue",
    "Name", "Constant", "JoinedStr", "FormattedValue", "List", "Tuple", "Set", "Dict",
    "ListComp", "SetComp", "GeneratorExp", "DictComp", "Comprehension",
    "BinOp", "UnaryOp", "BoolOp", "Compare", "IfExp", "Lambda", "Call", "Keyword",
    "Starred", "Attribute", "Subscript", "Slice",
    "walk", "iter_child_nodes",
]


def _span_field() -> Any:
    return field(default=0, kw_only=True, compare=False, repr=False)


@dataclass(slots=True)
class Node:
    """Base of every node: the source span (see the module docstring)."""

    line: int = _span_field()
    column: int = _span_field()
    end_line: int = _span_field()
    end_column: int = _span_field()

    _fields = ()  # filled in below for every concrete class


@dataclass(slots=True)
class Stmt(Node):
    """Base of statements."""


@dataclass(slots=True)
class Expr(Node):
    """Base of expressions."""


# ----------------------------------------------------------------------------- module


@dataclass(slots=True)
class Module(Node):
    body: list[Stmt]


# ----------------------------------------------------------------------------- statements


@dataclass(slots=True)
class Alias(Node):
    name: str
    asname: Optional[str] = None


@dataclass(slots=True)
class Import(Stmt):
    names: list[Alias]


@dataclass(slots=True)
class ImportFrom(Stmt):
    module: str
    names: list[Alias]


@dataclass(slots=True)
class Assign(Stmt):
    targets: list[Expr]
    value: Expr


@dataclass(slots=True)
class AugAssign(Stmt):
    target: Expr
    op: str
    value: Expr


@dataclass(slots=True)
class AnnAssign(Stmt):
    target: Expr
    annotation: Expr
    value: Optional[Expr] = None


@dataclass(slots=True)
class ExprStmt(Stmt):
    value: Expr


@dataclass(slots=True)
class For(Stmt):
    target: Expr
    iter: Expr
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)


@dataclass(slots=True)
class While(Stmt):
    test: Expr
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)


@dataclass(slots=True)
class If(Stmt):
    test: Expr
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)


@dataclass(slots=True)
class WithItem(Node):
    context_expr: Expr
    optional_vars: Optional[Expr] = None


@dataclass(slots=True)
class With(Stmt):
    items: list[WithItem]
    body: list[Stmt]


@dataclass(slots=True)
class FunctionDef(Stmt):
    name: str
    params: list[str]
    defaults: list[Expr]
    vararg: Optional[str]
    kwarg: Optional[str]
    body: list[Stmt]
    kwonly: list[str] = field(default_factory=list)
    kw_defaults: list[Optional[Expr]] = field(default_factory=list)
    decorators: list[Expr] = field(default_factory=list)
    returns: Optional[Expr] = None
    annotations: dict[str, Expr] = field(default_factory=dict)


@dataclass(slots=True)
class Keyword(Node):
    arg: Optional[str]
    value: Expr


@dataclass(slots=True)
class ClassDef(Stmt):
    name: str
    bases: list[Expr]
    body: list[Stmt]
    keywords: list[Keyword] = field(default_factory=list)
    decorators: list[Expr] = field(default_factory=list)


@dataclass(slots=True)
class Return(Stmt):
    value: Optional[Expr] = None


@dataclass(slots=True)
class Assert(Stmt):
    test: Expr
    msg: Optional[Expr] = None


@dataclass(slots=True)
class Delete(Stmt):
    targets: list[Expr]


@dataclass(slots=True)
class Global(Stmt):
    names: list[str]


@dataclass(slots=True)
class Nonlocal(Stmt):
    names: list[str]


@dataclass(slots=True)
class Pass(Stmt):
    pass


@dataclass(slots=True)
class Break(Stmt):
    pass


@dataclass(slots=True)
class Continue(Stmt):
    pass


# ----------------------------------------------------------------------------- expressions


@dataclass(slots=True)
class Name(Expr):
    id: str


@dataclass(slots=True)
class Constant(Expr):
    value: Any


@dataclass(slots=True)
class JoinedStr(Expr):
    values: list[Expr]


@dataclass(slots=True)
class FormattedValue(Expr):
    value: Expr
    conversion: Optional[str] = None
    format_spec: Optional[JoinedStr] = None


@dataclass(slots=True)
class List(Expr):
    elts: list[Expr]


@dataclass(slots=True)
class Tuple(Expr):
    elts: list[Expr]


@dataclass(slots=True)
class Set(Expr):
    elts: list[Expr]


@dataclass(slots=True)
class Dict(Expr):
    keys: list[Optional[Expr]]
    values: list[Expr]


@dataclass(slots=True)
class Comprehension(Node):
    target: Expr
    iter: Expr
    ifs: list[Expr] = field(default_factory=list)


@dataclass(slots=True)
class ListComp(Expr):
    elt: Expr
    generators: list[Comprehension]


@dataclass(slots=True)
class SetComp(Expr):
    elt: Expr
    generators: list[Comprehension]


@dataclass(slots=True)
class GeneratorExp(Expr):
    elt: Expr
    generators: list[Comprehension]


@dataclass(slots=True)
class DictComp(Expr):
    key: Expr
    value: Expr
    generators: list[Comprehension]


@dataclass(slots=True)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(slots=True)
class UnaryOp(Expr):
    op: str
    operand: Expr


@dataclass(slots=True)
class BoolOp(Expr):
    op: str
    values: list[Expr]


@dataclass(slots=True)
class Compare(Expr):
    left: Expr
    ops: list[str]
    comparators: list[Expr]


@dataclass(slots=True)
class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


@dataclass(slots=True)
class Lambda(Expr):
    params: list[str]
    defaults: list[Expr]
    vararg: Optional[str]
    kwarg: Optional[str]
    body: Expr
    kwonly: list[str] = field(default_factory=list)
    kw_defaults: list[Optional[Expr]] = field(default_factory=list)


@dataclass(slots=True)
class Call(Expr):
    func: Expr
    args: list[Expr]
    keywords: list[Keyword] = field(default_factory=list)


@dataclass(slots=True)
class Starred(Expr):
    value: Expr


@dataclass(slots=True)
class Attribute(Expr):
    value: Expr
    attr: str


@dataclass(slots=True)
class Subscript(Expr):
    value: Expr
    index: Expr


@dataclass(slots=True)
class Slice(Expr):
    lower: Optional[Expr] = None
    upper: Optional[Expr] = None
    step: Optional[Expr] = None


# ----------------------------------------------------------------------------- helpers

_SPAN_NAMES = ("line", "column", "end_line", "end_column")


def _all_node_classes() -> list[type]:
    out, todo = [], [Node]
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo.extend(cls.__subclasses__())
    return out


for _cls in _all_node_classes():
    _cls._fields = tuple(f.name for f in dataclasses.fields(_cls) if f.name not in _SPAN_NAMES)
del _cls


def iter_child_nodes(node: Node) -> Iterator[Node]:
    """Yield the nodes directly below ``node``, in field order."""
    for name in node._fields:
        value = getattr(node, name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Node):
                    yield item
        elif isinstance(value, dict):
            for item in value.values():
                if isinstance(item, Node):
                    yield item


def walk(node: Node) -> Iterator[Node]:
    """Yield ``node`` and every node below it (pre-order, without recursion)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        children = list(iter_child_nodes(current))
        children.reverse()
        todo.extend(children)
