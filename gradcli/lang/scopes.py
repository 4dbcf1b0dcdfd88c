"""Compile-time scopes: which names a function binds (its locals), which it declares global or
nonlocal, and how a name used in a scope resolves (local, free at depth d, class, global)."""
from __future__ import annotations

from . import ast as A


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


def _target_names(target, out):
    if isinstance(target, A.Name):
        out.add(target.id)
    elif isinstance(target, (A.Tuple, A.List)):
        for elt in target.elts:
            _target_names(elt, out)
    elif isinstance(target, A.Starred):
        _target_names(target.value, out)


def bound_names(body, out=None, globals_=None, nonlocals=None):
    """Names bound by statements of one scope (not descending into nested scopes)."""
    out = set() if out is None else out
    globals_ = set() if globals_ is None else globals_
    nonlocals = set() if nonlocals is None else nonlocals
    todo = list(body)
    while todo:
        node = todo.pop()
        t = type(node)
        if t is A.Assign:
            for target in node.targets:
                _target_names(target, out)
        elif t is A.AugAssign or t is A.AnnAssign:
            _target_names(node.target, out)
        elif t in A.SUB_BLOCKS:
            if t is A.For:
                _target_names(node.target, out)
            elif t is A.With:
                for item in node.items:
                    if item.optional_vars is not None:
                        _target_names(item.optional_vars, out)
            elif t is A.Try:
                out.update(h.name for h in node.handlers if h.name is not None)
            for block in A.sub_blocks(node):
                todo.extend(block)
        elif t is A.FunctionDef or t is A.ClassDef:
            out.add(node.name)
        elif t is A.Import:
            for alias in node.names:
                out.add(alias.asname or alias.name.split(".")[0])
        elif t is A.ImportFrom:
            for alias in node.names:
                if alias.name != "*":
                    out.add(alias.asname or alias.name)
        elif t is A.Delete:
            for target in node.targets:
                _target_names(target, out)
        elif t is A.Global:
            globals_.update(node.names)
        elif t is A.Nonlocal:
            nonlocals.update(node.names)
    return out, globals_, nonlocals


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
            _target_names(node.target, out)
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
