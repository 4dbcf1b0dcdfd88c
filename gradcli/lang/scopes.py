"""Compile-time scopes: which names a function binds (its locals), which it declares global or
nonlocal, and how a name used in a scope resolves (local, free at depth d, class, global)."""
from __future__ import annotations

from . import ast as A
from .ast import target_names
from .statements import STATEMENTS


class Scope:
    """One scope while compiling. kind: 'module', 'function', 'class' or 'comprehension'."""

    __slots__ = ("kind", "parent", "locals", "globals", "nonlocals", "qualname", "echo", "super_cell",
                 "first_param", "is_method")

    def __init__(self, kind, parent=None, local_names=(), qualname="", echo=False):
        self.kind = kind
        self.parent = parent
        self.locals = set(local_names)
        self.globals = set()
        self.nonlocals = set()
        self.qualname = qualname
        self.echo = echo
        self.super_cell = None      # [cls] for methods of a class statement (zero-argument super())
        self.first_param = None
        self.is_method = False

    def resolve(self, name):
        """('global'|'local'|'class', 0) or ('free', depth) for a name read in this scope."""
        if self.kind == "module":
            return "global", 0
        if name in self.globals:
            return "global", 0
        if self.kind == "class":
            return ("class", 0) if name in self.locals else self._enclosing(name)
        if name in self.nonlocals:
            return self._enclosing(name)
        if name in self.locals:
            return "local", 0
        return self._enclosing(name)

    def _enclosing(self, name):
        """Search the enclosing function scopes (class scopes are skipped, as in Python)."""
        scope = self.parent
        depth = 1
        while scope is not None and scope.kind != "module":
            if scope.kind == "class":
                scope = scope.parent
                continue
            if name in scope.globals:
                return "global", 0
            if name in scope.locals and name not in scope.nonlocals:
                return "free", depth
            depth += 1
            scope = scope.parent
        return "global", 0


def bound_names(body, out=None, globals_=None, nonlocals=None):
    """Names bound by statements of one scope (not descending into nested scopes), and the names it
    declares global and nonlocal: what each statement binds and declares is its description's
    (statements.STATEMENTS); the targets of assignment expressions in its expressions are bound too
    (walrus_targets)."""
    out = set() if out is None else out
    globals_ = set() if globals_ is None else globals_
    nonlocals = set() if nonlocals is None else nonlocals
    declared = {"global": globals_, "nonlocal": nonlocals}
    walrus = A.NamedExpr.parsed
    todo = list(body)
    while todo:
        node = todo.pop()
        d = STATEMENTS[type(node)]
        if d.get_binds:
            d.bind(node, out)
        if walrus:
            walrus_targets(node, out)
        if d.declares is not None:
            declared[d.declares].update(node.names)
        if d.get_blocks:
            for block in d.sub_blocks(node):
                todo.extend(block)
    return out, globals_, nonlocals


def walrus_targets(node, out):
    """Add to ``out`` the names that assignment expressions (``x := v``) in ``node`` bind in the scope
    ``node`` stands in: ``node`` is an expression or a statement (its own expressions, not the
    statements it holds). Those inside comprehensions count (they bind in the enclosing scope, PEP
    572); those in a lambda's body or a nested def's or class's body do not."""
    todo = [node]
    while todo:
        n = todo.pop()
        t = type(n)
        if t is list:
            todo.extend(n)
            continue
        if not isinstance(n, A.Node) or (n is not node and isinstance(n, A.Stmt)):
            continue
        if t is A.NamedExpr:
            out.add(n.target.id)
        for name in n._fields:
            if t is A.Lambda and name == "body":
                continue
            value = getattr(n, name)
            if type(value) is list or isinstance(value, A.Node):
                todo.append(value)
    return out


def names_bound_anywhere(module):
    """Every name the program binds in any scope: assignments and other targets, parameters,
    def and class names, imports, comprehension variables."""
    out = set()
    todo = [module]
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            todo.extend(node)
            continue
        if not isinstance(node, A.Node):
            continue
        t = type(node)
        if t is A.FunctionDef or t is A.Lambda:
            out.update(node.params)
            out.update(node.kwonly)
            out.update(p for p in (node.vararg, node.kwarg) if p)
        elif t is A.Comprehension:
            target_names(node.target, out)
        elif t is A.NamedExpr:
            out.add(node.target.id)
        body = getattr(node, "body", None)
        if isinstance(body, list):
            bound_names(body, out)
        for name in node._fields:  # spans are ints: no need to look at them
            value = getattr(node, name, None)
            if isinstance(value, (list, A.Node)):
                todo.append(value)
            elif isinstance(value, dict):
                todo.extend(v for v in value.values() if isinstance(v, A.Node))
    return out


def function_scope(parent, params, body, qualname):
    names, globals_, nonlocals = bound_names(body)
    scope = Scope("function", parent, qualname=qualname)
    scope.locals = (names | set(params)) - globals_ - nonlocals
    scope.globals = globals_
    scope.nonlocals = nonlocals
    return scope


def child_qualname(scope, name):
    if scope.kind == "module":
        return name
    if scope.kind == "class":
        return f"{scope.qualname}.{name}"
    return f"{scope.qualname}.<locals>.{name}"
