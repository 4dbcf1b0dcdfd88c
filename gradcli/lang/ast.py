"""The GradScript abstract syntax tree: small typed classes with source spans, declared as dataclasses;
each statement class carries its description (``statement``, a :class:`Statement`).

``gradcli.lang.parser.parse()`` turns source text into a :class:`Module`.  Nothing here
depends on Lark; downstream code (compiler, engine, renderer) sees only these classes.  This module
declares the statements and has every node class: the expressions are declared in ``expr_nodes.py``,
the base classes, spans (see there) and ``walk``/``iter_child_nodes`` in ``nodes.py``.

The ordinary statements (``// @statement`` in grammar/gradscript.lark: While, Assert, Raise, Pass,
Break, Continue, Import, Global, Nonlocal, and any statement added since) are declared in the grammar, on the line above their
rule, and made here from it (``declared_class``; grammar.py reads the lines): their fields are the
rule's children in order. The classes below are the statements that need a reducer or logic of their
own (CPython's errors on what the grammar lets through, clauses, parameters).

Node set (field names in constructor order; ``[]`` lists, ``?`` optional (None))
--------------------------------------------------------------------------------
Module(body: [Stmt])

Statements (subclasses of Stmt)
  Import(names: [Alias])                     import torch.nn as nn, numpy as np  (the grammar's)
  ImportFrom(module: str, names: [Alias])    from torch import nn, optim; names [Alias("*")] for *
  Assign(targets: [Expr], value: Expr)       a = b = 1 -> targets [a, b]; a, b = t -> [Tuple]
  AugAssign(target: Expr, op: str, value)    op is the binary symbol: '+' for +=, '//' for //= ...
  AnnAssign(target: Expr, annotation: Expr, value: Expr?)    x: int = 3
  ExprStmt(value: Expr)
  For(target: Expr, iter: Expr, body: [Stmt], orelse: [Stmt])
  While(test: Expr, body: [Stmt], orelse: [Stmt])           (the grammar's)
  If(test: Expr, body: [Stmt], orelse: [Stmt])           elif -> a single nested If in orelse
  With(items: [WithItem], body: [Stmt])
  FunctionDef(name: str, params: [str], defaults: [Expr], vararg: str?, kwarg: str?,
              body: [Stmt], kwonly: [str], kw_defaults: [Expr?], decorators: [Expr],
              returns: Expr?, annotations: {str: Expr})
        defaults belong to the last len(defaults) params (as in Python's ast);
        kw_defaults is parallel to kwonly (None = required); annotations maps a
        parameter name to its annotation (only annotated ones).
  ClassDef(name: str, bases: [Expr], body: [Stmt], keywords: [Keyword], decorators: [Expr])
  Return(value: Expr?)          Assert(test: Expr, msg: Expr?)  (the grammar's)
  Delete(targets: [Expr])       Global(names: [str])        Nonlocal(names: [str])  (the grammar's)
  Pass()  Break()  Continue()   (the grammar's)
  Try(body: [Stmt], handlers: [ExceptHandler], orelse: [Stmt], finalbody: [Stmt])
  Raise(exc: Expr?, cause: Expr?)            raise / raise X / raise X from Y  (the grammar's)
  Yield(value: Expr?, is_from: bool)         the statements `yield x` and `yield from x`

Helpers (subclasses of Node only)
  Alias(name: str, asname: str?)             name may be dotted: 'torch.nn'
  WithItem(context_expr: Expr, optional_vars: Expr?)
  ExceptHandler(type: Expr?, name: str?, body: [Stmt])   except (A, B) as name:

Expressions: see ``expr_nodes.py``.

A statement's ``statement`` says what it holds, binds and may be, and how it is built and lowered:
the parser's checks, the scopes and the compiler read it (through ``statements.STATEMENTS``), and the
builder makes the node of a rule it names.
"""

from __future__ import annotations

from dataclasses import field
from operator import attrgetter
from typing import Optional

from .expr_nodes import (Attribute, BinOp, BoolOp, Call, Compare, Comprehension, Constant, Dict, DictComp,
                         FormattedValue, GeneratorExp, IfExp, JoinedStr, Keyword, Lambda, List, ListComp,
                         Name, NamedExpr, Set, SetComp, Slice, Starred, Subscript, Tuple, UnaryOp)
from . import grammar
from .nodes import Expr, Node, NodeType, Stmt, iter_child_nodes, walk

__all__ = [
    "Node", "Stmt", "Expr", "Module", "Statement", "target_names", "declared_class",
    "ImportFrom", "Alias", "Assign", "AugAssign", "AnnAssign", "ExprStmt",
    "For", "If", "With", "WithItem", "FunctionDef", "ClassDef", "Return",
    "Delete", "Try", "ExceptHandler", "Yield",
    "Name", "Constant", "JoinedStr", "FormattedValue", "List", "Tuple", "Set", "Dict",
    "ListComp", "SetComp", "GeneratorExp", "DictComp", "Comprehension",
    "BinOp", "UnaryOp", "BoolOp", "Compare", "IfExp", "Lambda", "Call", "Keyword",
    "Starred", "Attribute", "Subscript", "Slice", "NamedExpr",
    "walk", "iter_child_nodes",
]


# ----------------------------------------------------------------------------- descriptions


class Statement:
    """The description of one statement (its class's ``statement``).

    lower:    the compiler's method that lowers it (None: only a generator body holds it)
    gen:      the compiler's method that lowers it to a generator closure when a yield is inside
    rule:     the grammar rule the builder makes it from field by field: the rule's children, tokens
              left out, are the node's fields in order, and it spans them (None: builder.py has a
              reducer named after its rule)
    rest:     its last field takes the rule's children after the other fields', as a list
    blocks:   the fields that hold statement lists run in this statement's scope, in source order;
              'handlers.body' is the body of each item of ``handlers``
    loop:     its ``body`` (not its ``else``) is a loop body (break and continue may stand there)
    scope:    'function' or 'class': its ``body`` is a new scope (not one of its blocks)
    only_in:  ('function' | 'loop', message, hint): where the statement may stand, and CPython's
              SyntaxError when it stands elsewhere
    binds:    the fields whose values it binds in its scope (targets, names, import aliases)
    declares: 'global' or 'nonlocal': its ``names`` are declared so in its scope
    """

    __slots__ = ("node", "rule", "rest", "blocks", "loop", "scope", "only_in", "binds", "declares", "lower", "gen",
                 "get_blocks", "get_binds", "checked")

    def __init__(self, lower, *, gen=None, rule=None, rest=False, blocks=(), loop=False, scope=None, only_in=None,
                 binds=(), declares=None):
        self.node = None  # the class it describes (set when the class is made)
        self.lower, self.gen, self.rule, self.rest = lower, gen, rule, rest
        self.blocks, self.loop, self.scope, self.only_in = tuple(blocks), loop, scope, only_in
        self.binds, self.declares = tuple(binds), declares
        self.get_blocks = [(_getter(b), "." in b) for b in self.blocks]
        self.get_binds = [_getter(b) for b in self.binds]
        # whether the context checks look at it (the others hold no statements and may stand anywhere)
        self.checked = bool(only_in or blocks or scope)

    def __set_name__(self, owner, name) -> None:
        self.node = owner

    def sub_blocks(self, stmt) -> list:
        """The statement lists directly inside ``stmt`` that share its scope."""
        out = []
        for get, each in self.get_blocks:
            if each:
                out.extend(get(stmt))
            else:
                out.append(get(stmt))
        return out

    def bind(self, stmt, out: set) -> None:
        """Add the names ``stmt`` itself binds (not those in its blocks) to ``out``."""
        for get in self.get_binds:
            _bound(get(stmt), out)

    def __repr__(self) -> str:
        return f"Statement({getattr(self.node, '__name__', None)})"


def _getter(path: str):
    """A function of a node giving the value at ``path``: 'body', or 'handlers.body' for the body of
    each item of the list 'handlers' (a list of values then)."""
    head, _, rest = path.partition(".")
    first = attrgetter(head)
    if not rest:
        return first
    inner = _getter(rest)
    return lambda node: [inner(item) for item in first(node)]


def target_names(target, out: set) -> None:
    """Add the names an assignment target binds (x, (a, *b), [c, d]) to ``out``."""
    t = type(target)
    if t is Name:
        out.add(target.id)
    elif t is Tuple or t is List:
        for elt in target.elts:
            target_names(elt, out)
    elif t is Starred:
        target_names(target.value, out)


def _bound(value, out: set) -> None:
    """The names one field's value binds: a target expression, a name, an import's alias, or a list."""
    if value is None:
        return
    t = type(value)
    if t is str:
        out.add(value)
    elif t is list:
        for item in value:
            _bound(item, out)
    elif t is Alias:
        if value.name != "*":  # from m import * binds no name the compiler knows
            out.add(value.asname or value.name.split(".")[0])  # import torch.nn binds torch
    else:
        target_names(value, out)


_OUTSIDE_DEF = "can only be used in the body of a def"


# ----------------------------------------------------------------------------- statements


class Module(Node):
    """A whole script."""

    body: list[Stmt]


class Alias(Node):
    """`name as asname` in an import."""

    name: str
    asname: Optional[str] = None



class ImportFrom(Stmt):
    """`from module import a as b, c` (or `*`)."""

    module: str
    names: list[Alias]

    statement = Statement("s_importfrom", binds=("names",))


class Assign(Stmt):
    """`t1 = t2 = value`."""

    targets: list[Expr]
    value: Expr

    statement = Statement("s_assign", binds=("targets",))


class AugAssign(Stmt):
    """`target op= value`; op is the binary operator (`+` for `+=`)."""

    target: Expr
    op: str
    value: Expr

    statement = Statement("s_augassign", binds=("target",))


class AnnAssign(Stmt):
    """`target: annotation = value`."""

    target: Expr
    annotation: Expr
    value: Optional[Expr] = None

    statement = Statement("s_annassign", binds=("target",))


class ExprStmt(Stmt):
    """An expression used as a statement."""

    value: Expr

    statement = Statement("s_expr")


class For(Stmt):
    """`for target in iter: body else: orelse`."""

    target: Expr
    iter: Expr
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)

    statement = Statement("s_for", gen="g_for", blocks=("body", "orelse"), loop=True, binds=("target",))



class If(Stmt):
    """`if test: body else: orelse` (elif nests an If)."""

    test: Expr
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)

    statement = Statement("s_if", gen="g_if", blocks=("body", "orelse"))


class WithItem(Node):
    """`context_expr as optional_vars` in a with statement."""

    context_expr: Expr
    optional_vars: Optional[Expr] = None


class With(Stmt):
    """`with item, item: body`."""

    items: list[WithItem]
    body: list[Stmt]

    statement = Statement("s_with", gen="g_with", blocks=("body",), binds=("items.optional_vars",))


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

    statement = Statement("s_functiondef", scope="function", binds=("name",))


class ClassDef(Stmt):
    """`class name(bases, keywords): body`."""

    name: str
    bases: list[Expr]
    body: list[Stmt]
    keywords: list[Keyword] = field(default_factory=list)
    decorators: list[Expr] = field(default_factory=list)

    statement = Statement("s_classdef", scope="class", binds=("name",))


class Return(Stmt):
    """`return value`."""

    value: Optional[Expr] = None

    statement = Statement("s_return", only_in=("function", "'return' outside function", "return " + _OUTSIDE_DEF))



class Delete(Stmt):
    """`del t1, t2`."""

    targets: list[Expr]

    statement = Statement("s_delete", binds=("targets",))




class ExceptHandler(Node):
    """`except type as name: body` (type None for a bare `except:`)."""

    type: Optional[Expr]
    name: Optional[str]
    body: list[Stmt]


class Try(Stmt):
    """`try: body` with `except` handlers, `else: orelse` and `finally: finalbody`."""

    body: list[Stmt]
    handlers: list[ExceptHandler] = field(default_factory=list)
    orelse: list[Stmt] = field(default_factory=list)
    finalbody: list[Stmt] = field(default_factory=list)

    statement = Statement("s_try", gen="g_try", blocks=("body", "handlers.body", "orelse", "finalbody"),
                          binds=("handlers.name",))



class Yield(Stmt):
    """The statement `yield value` (value None for a bare `yield`), `yield from value` (is_from)."""

    value: Optional[Expr] = None
    is_from: bool = False

    statement = Statement(None, gen="g_yield",
                          only_in=("function", "'yield' outside function",
                                   "yield makes the def it is in a generator function"))


# ----------------------------------------------------------------------------- the grammar's statements


def declared_class(d: grammar.Declaration) -> type:
    """The node class of a statement the grammar declares (``// @statement``, grammar.py): a Stmt whose
    fields are the declaration's (a default None, or a new list for ``=[]``; ``*names``, the list of
    the rule's remaining children, is required), its description built
    from the declaration's options, its lowerings ``s_NAME`` (and ``g_NAME`` for a statement with
    blocks) unless the declaration names others."""
    annotations: dict = {}
    namespace: dict = {"__module__": __name__, "__qualname__": d.name, "__annotations__": annotations,
                       "__doc__": "`%s` of grammar/gradscript.lark: %s(%s)."
                                  % (d.rule, d.name, ", ".join(f for f, _ in d.fields))}
    for name, default in d.fields:
        annotations[name] = "Any"
        if default is not None and default != "*":
            value = grammar.DEFAULTS[default]
            namespace[name] = field(default_factory=value) if value is list else value
    options = dict(d.options)
    lower = options.pop("lower", "s_" + d.name.lower())
    gen = options.pop("gen", "g_" + d.name.lower() if options.get("blocks") else None)
    rest = bool(d.fields) and d.fields[-1][1] == "*"
    namespace["statement"] = Statement(lower, gen=gen, rule=d.rule, rest=rest, **options)
    return NodeType(d.name, (Stmt,), namespace)


def _declare(decls: list) -> None:
    for d in decls:
        if d.name in globals():
            raise grammar.GrammarDeclarationError("@statement %s: the name is taken in ast.py" % d.name)
        globals()[d.name] = declared_class(d)
        __all__.append(d.name)


_declare(grammar.declarations(grammar.text()))
