"""The GradScript abstract syntax tree: small typed classes with source spans, declared as dataclasses.

``gradcli.lang.parser.parse()`` turns source text into a :class:`Module`.  Nothing here
depends on Lark; downstream code (compiler, engine, renderer) sees only these classes.

Spans
-----
Every node has ``line``, ``column``, ``end_line``, ``end_column`` (keyword-only fields,
left out of ``==`` and ``repr``).  Lines and columns are 1-based and count characters
(code points), as Lark and CPython's ``SyntaxError.offset`` do; ``end_column`` is one past
the last character, so a name ``x`` in column 1 spans columns 1..2.  Spans are CPython's
(``lineno``, ``col_offset + 1``, ...) except that a parenthesised expression's span
includes its parentheses, a generator that is a call's only argument does not include the
call's, and the Constant parts of an f-string span the whole literal.  A def or class starts
at ``def``/``class`` (not at its decorators); a compound statement ends where its last body
statement ends.  Equality ignores spans, so tests can compare shapes:
``parse("x = 1").body[0] == Assign([Name("x")], Constant(1))``.

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
  Try(body: [Stmt], handlers: [ExceptHandler], orelse: [Stmt], finalbody: [Stmt])
  Raise(exc: Expr?, cause: Expr?)            raise / raise X / raise X from Y
  Yield(value: Expr?, is_from: bool)         the statements `yield x` and `yield from x`

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
  Alias(name: str, asname: str?)             name may be dotted: 'torch.nn'
  Keyword(arg: str?, value: Expr)            arg None for **kwargs
  WithItem(context_expr: Expr, optional_vars: Expr?)
  Comprehension(target: Expr, iter: Expr, ifs: [Expr])
  ExceptHandler(type: Expr?, name: str?, body: [Stmt])   except (A, B) as name:

What each statement holds, binds and may be, and how it is lowered, is described once in
``statements.py`` (``STATEMENTS``), which the parser's checks, the scopes and the compiler read.

Every class has ``_fields``: the names of its non-span fields, in order.
``walk(node)`` yields a node and all nodes below it; ``iter_child_nodes(node)`` the direct ones.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Iterator, Optional

from ..records import field_specs, first_init

__all__ = [
    "Node", "Stmt", "Expr", "Module",
    "Import", "ImportFrom", "Alias", "Assign", "AugAssign", "AnnAssign", "ExprStmt",
    "For", "While", "If", "With", "WithItem", "FunctionDef", "ClassDef", "Return",
    "Assert", "Delete", "Global", "Nonlocal", "Pass", "Break", "Continue",
    "Try", "ExceptHandler", "Raise", "Yield",
    "Name", "Constant", "JoinedStr", "FormattedValue", "List", "Tuple", "Set", "Dict",
    "ListComp", "SetComp", "GeneratorExp", "DictComp", "Comprehension",
    "BinOp", "UnaryOp", "BoolOp", "Compare", "IfExp", "Lambda", "Call", "Keyword",
    "Starred", "Attribute", "Subscript", "Slice", "NamedExpr",
    "walk", "iter_child_nodes",
]


def _span_field() -> Any:
    return field(default=0, kw_only=True)


# The node classes are declared as dataclasses are, but made by _NodeType, not by
# dataclass(slots=True, eq=False, repr=False): importing this module is part of every start-up, and
# dataclass's machinery (each class made twice, a compiled __init__ per class) cost ~10 ms for these
# ~55 classes. _NodeType gives each class of this module __slots__ for its own fields as it makes it
# and records them (_specs); a class's __init__, as dataclass writes it, is compiled at its first
# instantiation (gradcli/records.py), so a run compiles only the ones its script uses. == and repr
# come from Node (by `_fields`, so spans take no part in them). @_node marks a declaration.


class _NodeType(type):
    def __new__(mcls, name, bases, namespace):
        if namespace.get("__module__") != __name__:  # a subclass elsewhere (a test's) keeps its __dict__
            return super().__new__(mcls, name, bases, namespace)
        specs = field_specs(namespace, pop=True)
        namespace["__slots__"] = tuple(spec[0] for spec in specs)
        cls = super().__new__(mcls, name, bases, namespace)
        cls._specs = tuple(getattr(bases[0], "_specs", ()) if bases else ()) + tuple(specs)
        cls.__init__ = first_init(cls)
        return cls


def _node(cls):
    """The mark of a node class's declaration (_NodeType has made it)."""
    return cls


@_node
class Node(metaclass=_NodeType):
    """Base of every node: the source span (see the module docstring)."""

    line: int = _span_field()
    column: int = _span_field()
    end_line: int = _span_field()
    end_column: int = _span_field()

    _fields = ()  # filled in below for every concrete class

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value, like a dataclass

    def __repr__(self) -> str:
        args = ", ".join("%s=%r" % (f, getattr(self, f)) for f in self._fields)
        return "%s(%s)" % (type(self).__name__, args)


@_node
class Stmt(Node):
    """Base of statements."""


@_node
class Expr(Node):
    """Base of expressions."""


# ----------------------------------------------------------------------------- module


@_node
class Module(Node):
    """A whole script."""

    body: list[Stmt]


# ----------------------------------------------------------------------------- statements


@_node
class Alias(Node):
    """`name as asname` in an import."""

    name: str
    asname: Optional[str] = None


@_node
class Import(Stmt):
    """`import a.b as c, d`."""

    names: list[Alias]


@_node
class ImportFrom(Stmt):
    """`from module import a as b, c` (or `*`)."""

    module: str
    names: list[Alias]


@_node
class Assign(Stmt):
    """`t1 = t2 = value`."""

    targets: list[Expr]
    value: Expr


@_node
class AugAssign(Stmt):
    """`target op= value`; op is the binary operator (`+` for `+=`)."""

    target: Expr
    op: str
    value: Expr


@_node
class AnnAssign(Stmt):
    """`target: annotation = value`."""

    target: Expr
    annotation: Expr
    value: Optional[Expr] = None


@_node
class ExprStmt(Stmt):
    """An expression used as a statement."""

    value: Expr


@_node
class For(Stmt):
    """`for target in iter: body else: orelse`."""

    target: Expr
    iter: Expr
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)


@_node
class While(Stmt):
    """`while test: body else: orelse`."""

    test: Expr
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)


@_node
class If(Stmt):
    """`if test: body else: orelse` (elif nests an If)."""

    test: Expr
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)


@_node
class WithItem(Node):
    """`context_expr as optional_vars` in a with statement."""

    context_expr: Expr
    optional_vars: Optional[Expr] = None


@_node
class With(Stmt):
    """`with item, item: body`."""

    items: list[WithItem]
    body: list[Stmt]


@_node
class FunctionDef(Stmt):
    """`def name(params): body` (see the module docstring for the parameter fields)."""

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


@_node
class Keyword(Node):
    """`arg=value` in a call or class header; arg None for `**value`."""

    arg: Optional[str]
    value: Expr


@_node
class ClassDef(Stmt):
    """`class name(bases, keywords): body`."""

    name: str
    bases: list[Expr]
    body: list[Stmt]
    keywords: list[Keyword] = field(default_factory=list)
    decorators: list[Expr] = field(default_factory=list)


@_node
class Return(Stmt):
    """`return value`."""

    value: Optional[Expr] = None


@_node
class Assert(Stmt):
    """`assert test, msg`."""

    test: Expr
    msg: Optional[Expr] = None


@_node
class Delete(Stmt):
    """`del t1, t2`."""

    targets: list[Expr]


@_node
class Global(Stmt):
    """`global a, b`."""

    names: list[str]


@_node
class Nonlocal(Stmt):
    """`nonlocal a, b`."""

    names: list[str]


@_node
class Pass(Stmt):
    """`pass`."""


@_node
class Break(Stmt):
    """`break`."""


@_node
class Continue(Stmt):
    """`continue`."""


@_node
class ExceptHandler(Node):
    """`except type as name: body` (type None for a bare `except:`)."""

    type: Optional[Expr]
    name: Optional[str]
    body: list[Stmt]


@_node
class Try(Stmt):
    """`try: body` with `except` handlers, `else: orelse` and `finally: finalbody`."""

    body: list[Stmt]
    handlers: list[ExceptHandler] = field(default_factory=list)
    orelse: list[Stmt] = field(default_factory=list)
    finalbody: list[Stmt] = field(default_factory=list)


@_node
class Raise(Stmt):
    """`raise`, `raise exc`, `raise exc from cause`."""

    exc: Optional[Expr] = None
    cause: Optional[Expr] = None


@_node
class Yield(Stmt):
    """The statement `yield value` (value None for a bare `yield`), `yield from value` (is_from)."""

    value: Optional[Expr] = None
    is_from: bool = False


# ----------------------------------------------------------------------------- expressions


@_node
class Name(Expr):
    """A variable."""

    id: str


@_node
class Constant(Expr):
    """A literal (and `...`)."""

    value: Any


@_node
class JoinedStr(Expr):
    """An f-string: Constant and FormattedValue parts."""

    values: list[Expr]


@_node
class FormattedValue(Expr):
    """`{value!conversion:format_spec}` in an f-string."""

    value: Expr
    conversion: Optional[str] = None
    format_spec: Optional[JoinedStr] = None


@_node
class List(Expr):
    """`[elts]`."""

    elts: list[Expr]


@_node
class Tuple(Expr):
    """`(elts)` or `a, b`."""

    elts: list[Expr]


@_node
class Set(Expr):
    """`{elts}`."""

    elts: list[Expr]


@_node
class Dict(Expr):
    """`{k: v, **m}`; key None for `**m`."""

    keys: list[Optional[Expr]]
    values: list[Expr]


@_node
class Comprehension(Node):
    """`for target in iter if ifs` in a comprehension."""

    target: Expr
    iter: Expr
    ifs: list[Expr] = field(default_factory=list)


@_node
class ListComp(Expr):
    """`[elt for ...]`."""

    elt: Expr
    generators: list[Comprehension]


@_node
class SetComp(Expr):
    """`{elt for ...}`."""

    elt: Expr
    generators: list[Comprehension]


@_node
class GeneratorExp(Expr):
    """`(elt for ...)`."""

    elt: Expr
    generators: list[Comprehension]


@_node
class DictComp(Expr):
    """`{key: value for ...}`."""

    key: Expr
    value: Expr
    generators: list[Comprehension]


@_node
class BinOp(Expr):
    """`left op right`."""

    op: str
    left: Expr
    right: Expr


@_node
class UnaryOp(Expr):
    """`op operand` (`-`, `+`, `~`, `not`)."""

    op: str
    operand: Expr


@_node
class BoolOp(Expr):
    """`v1 op v2 op ...` (and/or)."""

    op: str
    values: list[Expr]


@_node
class Compare(Expr):
    """`left op1 c1 op2 c2 ...`."""

    left: Expr
    ops: list[str]
    comparators: list[Expr]


@_node
class IfExp(Expr):
    """`body if test else orelse`."""

    test: Expr
    body: Expr
    orelse: Expr


@_node
class Lambda(Expr):
    """`lambda params: body`."""

    params: list[str]
    defaults: list[Expr]
    vararg: Optional[str]
    kwarg: Optional[str]
    body: Expr
    kwonly: list[str] = field(default_factory=list)
    kw_defaults: list[Optional[Expr]] = field(default_factory=list)


@_node
class Call(Expr):
    """`func(args, keywords)`."""

    func: Expr
    args: list[Expr]
    keywords: list[Keyword] = field(default_factory=list)


@_node
class Starred(Expr):
    """`*value`."""

    value: Expr


@_node
class Attribute(Expr):
    """`value.attr`."""

    value: Expr
    attr: str


@_node
class Subscript(Expr):
    """`value[index]`."""

    value: Expr
    index: Expr


@_node
class NamedExpr(Expr):
    """`target := value` (an assignment expression); target is a Name."""

    target: Expr
    value: Expr
    # whether the parser has made one in this process: until then the scope analysis need not look
    # for them in expressions (scopes.walrus_targets, a walk of every expression of a function)
    parsed = False


@_node
class Slice(Expr):
    """`lower:upper:step` inside a subscript."""

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
    _cls._fields = tuple(spec[0] for spec in _cls._specs if spec[0] not in _SPAN_NAMES)
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
