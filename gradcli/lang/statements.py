"""GradScript's statements: the registry of their descriptions, and the walks every stage shares.

Each statement class of ``ast.py`` (declared there, or in the grammar) carries its description (``statement``, an ``ast.Statement``:
the blocks it holds, the names it binds, where it may stand, the rule it is built from, the
compiler methods that lower it). ``STATEMENTS`` is ``{class: description}``, collected from those
classes; every walker of the statement tree reads it and nothing else:

- the parser's compile-time checks (``parser.check_statement_context``: ``return`` outside a def,
  ``break`` outside a loop, ...) read ``only_in``, ``scope``, ``loop`` and the blocks;
- the scope analysis (``scopes.bound_names``: a function's locals, its global and nonlocal
  declarations) reads ``binds``, ``declares`` and the blocks;
- the compiler's dispatch (``Compiler._STMT``, and ``_GEN_STMT`` for the statements that may hold a
  ``yield`` of a generator function) is ``{node class: method named by lower / gen}``;
- the builder makes the node of each rule a description names (``rule``) with one generic reducer.

Adding a statement: its grammar rule with its ``// @statement`` line (the node class and its
description, which ``ast.py`` makes), and its lowering methods in the compiler (docs/architecture.md,
"How to add a statement").
"""
from __future__ import annotations

from . import ast as A

__all__ = ["STATEMENTS", "contains_yield", "lowerings"]


def _described(base) -> dict:
    out, todo = {}, [base]
    while todo:
        for cls in todo.pop().__subclasses__():
            todo.append(cls)
            if "statement" in cls.__dict__ and cls.__module__ == A.__name__:  # (not a subclass's inherited one)
                out[cls] = cls.statement
    return out


STATEMENTS = _described(A.Stmt)


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
