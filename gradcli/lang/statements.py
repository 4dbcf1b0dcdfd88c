"""GradScript's statements, described once.

``STATEMENTS`` holds one :class:`Statement` per statement node of ``ast.py``: the blocks it holds,
the names it binds, where it may stand, and the compiler methods that lower it. Every walker of the
statement tree reads it and nothing else:

- the parser's compile-time checks (``parser.check_statement_context``: ``return`` outside a def,
  ``break`` outside a loop, ...) read ``only_in``, ``scope``, ``loop`` and the blocks;
- the scope analysis (``scopes.bound_names``: a function's locals, its global and nonlocal
  declarations) reads ``binds``, ``declares`` and the blocks;
- the compiler's dispatch (``Compiler._STMT``, and ``_GEN_STMT`` for the statements that may hold a
  ``yield`` of a generator function) is ``{node class: method named by lower / gen}``.

Adding a statement: its grammar rule (``grammar/gradscript.lark``, its reducer in ``builder.py``, its
node in ``ast.py``), its entry here, and its lowering method in the compiler.
"""
from __future__ import annotations

from operator import attrgetter

from . import ast as A

__all__ = ["Statement", "STATEMENTS", "sub_blocks", "contains_yield", "target_names",
           "lowerings"]


def target_names(target, out: set) -> None:
    """Add the names an assignment target binds (x, (a, *b), [c, d]) to ``out``."""
    t = type(target)
    if t is A.Name:
        out.add(target.id)
    elif t is A.Tuple or t is A.List:
        for elt in target.elts:
            target_names(elt, out)
    elif t is A.Starred:
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
    elif t is A.Alias:
        if value.name != "*":  # from m import * binds no name the compiler knows
            out.add(value.asname or value.name.split(".")[0])  # import torch.nn binds torch
    else:
        target_names(value, out)


def _getter(path: str):
    """A function of a node giving the value at ``path``: 'body', or 'handlers.body' for the body of
    each item of the list 'handlers' (a list of values then)."""
    head, _, rest = path.partition(".")
    first = attrgetter(head)
    if not rest:
        return first
    inner = _getter(rest)
    return lambda node: [inner(item) for item in first(node)]


class Statement:
    """The description of one statement.

    blocks:   the fields that hold statement lists run in this statement's scope, in source order;
              'handlers.body' is the body of each item of ``handlers``
    loop:     its ``body`` (not its ``else``) is a loop body (break and continue may stand there)
    scope:    'function' or 'class': its ``body`` is a new scope (not one of its blocks)
    only_in:  ('function' | 'loop', message, hint): where the statement may stand, and CPython's
              SyntaxError when it stands elsewhere
    binds:    the fields whose values it binds in its scope (targets, names, import aliases)
    declares: 'global' or 'nonlocal': its ``names`` are declared so in its scope
    lower:    the compiler's method that lowers it (None: only a generator body holds it)
    gen:      the compiler's method that lowers it to a generator closure when a yield is inside
    """

    __slots__ = ("node", "blocks", "loop", "scope", "only_in", "binds", "declares", "lower", "gen",
                 "get_blocks", "get_binds", "checked")

    def __init__(self, node, lower, *, blocks=(), loop=False, scope=None, only_in=None, binds=(),
                 declares=None, gen=None):
        self.node, self.lower, self.gen = node, lower, gen
        self.blocks, self.loop, self.scope, self.only_in = tuple(blocks), loop, scope, only_in
        self.binds, self.declares = tuple(binds), declares
        self.get_blocks = [(_getter(b), "." in b) for b in self.blocks]
        self.get_binds = [_getter(b) for b in self.binds]
        # whether the context checks look at it (the others hold no statements and may stand anywhere)
        self.checked = bool(only_in or blocks or scope)

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
        return f"Statement({self.node.__name__})"


_OUTSIDE_DEF = "can only be used in the body of a def"
_OUTSIDE_LOOP = "can only be used in the body of a for or while loop"

STATEMENTS = {d.node: d for d in (
    Statement(A.ExprStmt, "s_expr"),
    Statement(A.Assign, "s_assign", binds=("targets",)),
    Statement(A.AnnAssign, "s_annassign", binds=("target",)),
    Statement(A.AugAssign, "s_augassign", binds=("target",)),
    Statement(A.Pass, "s_pass"),
    Statement(A.Break, "s_break", only_in=("loop", "'break' outside loop", "break " + _OUTSIDE_LOOP)),
    Statement(A.Continue, "s_continue",
              only_in=("loop", "'continue' not properly in loop", "continue " + _OUTSIDE_LOOP)),
    Statement(A.Return, "s_return", only_in=("function", "'return' outside function", "return " + _OUTSIDE_DEF)),
    Statement(A.Assert, "s_assert"),
    Statement(A.Delete, "s_delete", binds=("targets",)),
    Statement(A.Global, "s_global", declares="global"),
    Statement(A.Nonlocal, "s_nonlocal", declares="nonlocal",
              only_in=("function", "nonlocal declaration not allowed at module level", None)),
    Statement(A.Import, "s_import", binds=("names",)),
    Statement(A.ImportFrom, "s_importfrom", binds=("names",)),
    Statement(A.If, "s_if", blocks=("body", "orelse"), gen="g_if"),
    Statement(A.While, "s_while", blocks=("body", "orelse"), loop=True, gen="g_while"),
    Statement(A.For, "s_for", blocks=("body", "orelse"), loop=True, binds=("target",), gen="g_for"),
    Statement(A.With, "s_with", blocks=("body",), binds=("items.optional_vars",), gen="g_with"),
    Statement(A.FunctionDef, "s_functiondef", scope="function", binds=("name",)),
    Statement(A.ClassDef, "s_classdef", scope="class", binds=("name",)),
    Statement(A.Try, "s_try", blocks=("body", "handlers.body", "orelse", "finalbody"),
              binds=("handlers.name",), gen="g_try"),
    Statement(A.Raise, "s_raise"),
    Statement(A.Yield, None, gen="g_yield",
              only_in=("function", "'yield' outside function", "yield makes the def it is in a generator function")),
)}


def sub_blocks(stmt) -> list:
    """The statement lists directly inside ``stmt`` that share its scope ([] for the others)."""
    return STATEMENTS[type(stmt)].sub_blocks(stmt)


def contains_yield(body: list) -> bool:
    """Whether a `yield` is among these statements or their sub-blocks (not in nested defs)."""
    todo = list(body)
    while todo:
        stmt = todo.pop()
        t = type(stmt)
        if t is A.Yield:
            return True
        d = STATEMENTS[t]
        if d.get_blocks:
            todo.extend(s for block in d.sub_blocks(stmt) for s in block)
    return False


def lowerings(cls, attr: str) -> dict:
    """The dispatch table {node class: method of ``cls``} of the methods the descriptions name in
    ``attr`` ('lower' or 'gen'); a described statement whose method is missing fails here, at import."""
    return {t: getattr(cls, getattr(d, attr)) for t, d in STATEMENTS.items() if getattr(d, attr)}
