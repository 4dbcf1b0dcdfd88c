"""The in-parser transformer: one method per grammar rule or alias of
grammar/gradscript.lark, children in, ``gradcli.lang.ast`` node out (spans from the tokens),
with CPython's errors for what the grammar lets through (bad targets: ``targets.py``, argument
order, ...); the rules a statement's description names get one generic reducer (``node_reducer``).
Operator sequences, which the grammar reads flat, get Python's precedence in ``precedence.py``."""

from __future__ import annotations

import unicodedata
from typing import Any

from .tokens import Token

from . import ast
from .literals import ident, new_node, number_constant, set_span, string_constant
from .precedence import operators
from .signatures import Params, SignatureReducers
from .statements import STATEMENTS
from .targets import (SIMPLE_TARGETS, check_not_starred, check_target, expr_name, unsupported_error,
                      walrus_target_error)
from .tokenizer import error_at as _error_at

# ============================================================================ transformer


def _flatten(items: list) -> list:
    out = []
    for item in items:
        if type(item) is list:
            out.extend(item)
        else:
            out.append(item)
    return out


def _comprehensions(c: list) -> list:
    """[FOR, target, iter, (FOR, target, iter | IF, cond)*] -> [Comprehension]."""
    gens = []
    i, n = 0, len(c)
    while i < n:
        kw = c[i]
        if kw.type == "FOR":
            target, it = c[i + 1], c[i + 2]
            check_target(target)
            gens.append(set_span(ast.Comprehension(target, it, []), kw, it))
            i += 3
        else:
            cond = c[i + 1]
            gen = gens[-1]
            gen.ifs.append(cond)
            gen.end_line, gen.end_column = cond.end_line, cond.end_column
            i += 2
    return gens


class _Builder(SignatureReducers):
    """In-parser callbacks: one method per grammar rule or alias, children in, node out (the parameter
    and argument lists': ``signatures.SignatureReducers``)."""

    # ---------------------------------------------------------------- module & statements

    def module(self, c: list) -> ast.Module:
        return ast.Module(_flatten(c))

    def eval_input(self, c: list) -> Any:
        check_not_starred(c[0])
        return c[0]

    def simple_stmt(self, c: list) -> list:
        return c

    def suite(self, c: list) -> list:
        if len(c) == 1 and type(c[0]) is list:
            return c[0]
        return _flatten(c)

    def expr_stmt(self, c: list) -> ast.ExprStmt:
        value = c[0]
        check_not_starred(value)
        return set_span(ast.ExprStmt(value), value, value)

    def assign(self, c: list) -> ast.Assign:
        value = c[-1]
        targets = c[:-1]
        single = len(targets) == 1
        for target in targets:
            check_target(target, hint_eq=single)
        check_not_starred(value)
        return set_span(ast.Assign(targets, value), targets[0], value)

    def augassign(self, c: list) -> ast.AugAssign:
        target, op, value = c
        if type(target) not in SIMPLE_TARGETS:
            raise _error_at("'%s' is an illegal expression for augmented assignment"
                            % expr_name(target), target,
                            hint="only a name, an attribute or an item can be updated in place")
        return set_span(ast.AugAssign(target, op.value[:-1], value), target, value)

    def annassign(self, c: list) -> ast.AnnAssign:
        target, annotation = c[0], c[1]
        value = c[2] if len(c) > 2 else None
        t = type(target)
        if t is ast.Tuple or t is ast.List:
            raise _error_at("only single target (not %s) can be annotated"
                            % ("tuple" if t is ast.Tuple else "list"), target)
        if t not in SIMPLE_TARGETS:
            raise _error_at("illegal target for annotation", target)
        if value is not None:
            check_not_starred(value)
        return set_span(ast.AnnAssign(target, annotation, value), target,
                     value if value is not None else annotation)

    def return_stmt(self, c: list) -> ast.Return:
        if len(c) == 1:
            return set_span(ast.Return(None), c[0], c[0])
        check_not_starred(c[1])
        return set_span(ast.Return(c[1]), c[0], c[1])

    def del_stmt(self, c: list) -> ast.Delete:
        target = c[1]
        # an unparenthesised `del a, b` deletes each; `del (a, b)` keeps the tuple
        if type(target) is ast.Tuple and target.elts and \
                (target.line, target.column) == (target.elts[0].line, target.elts[0].column):
            targets = target.elts
        else:
            targets = [target]
        for t in targets:
            check_target(t, "delete")
        return set_span(ast.Delete(targets), c[0], c[1])


    def yield_stmt(self, c: list) -> ast.Yield:
        if len(c) == 1:
            return set_span(ast.Yield(), c[0], c[0])
        if len(c) == 3:  # yield from x
            return set_span(ast.Yield(c[2], True), c[0], c[2])
        check_not_starred(c[1])
        return set_span(ast.Yield(c[1]), c[0], c[1])

    def dotted_name(self, c: list) -> list:
        return c

    def dotted_as_name(self, c: list) -> ast.Alias:
        names = c[0]
        dotted = ".".join(ident(t) for t in names)
        if len(c) > 1:
            return set_span(ast.Alias(dotted, ident(c[1])), names[0], c[1])
        return set_span(ast.Alias(dotted, None), names[0], names[-1])

    def import_as_names(self, c: list) -> list:
        return c

    def import_as_name(self, c: list) -> ast.Alias:
        asname = ident(c[1]) if len(c) > 1 else None
        return set_span(ast.Alias(ident(c[0]), asname), c[0], c[-1])

    def from_stmt(self, c: list) -> ast.ImportFrom:
        names_tok = c[1]
        module = ".".join(ident(t) for t in names_tok)
        what = c[2]
        if type(what) is Token:  # STAR
            names = [set_span(ast.Alias("*", None), what, what)]
            end = what
        else:
            names = [n for n in what if type(n) is ast.Alias]
            end = c[3] if len(c) > 3 else names[-1]
            if type(what[-1]) is Token and len(c) == 3:
                raise _error_at("trailing comma not allowed without surrounding parentheses",
                                what[-1], hint="remove the ',' or put the names in parentheses")
        return set_span(ast.ImportFrom(module, names), c[0], end)

    # ---------------------------------------------------------------- compound statements

    def if_stmt(self, c: list) -> ast.If:
        node = ast.If(c[1], c[2], [])
        set_span(node, c[0], c[2][-1])
        last = node
        for item in c[3:]:
            if type(item) is list:      # else
                last.orelse = item
            else:                       # elif
                last.orelse = [item]
                last = item
        end = last.orelse[-1] if last.orelse else last.body[-1]
        current = node
        while True:  # every If in the chain ends where the whole statement ends
            current.end_line, current.end_column = end.end_line, end.end_column
            if len(current.orelse) == 1 and type(current.orelse[0]) is ast.If and \
                    current.orelse[0] is not end:
                current = current.orelse[0]
            else:
                break
        return node

    def elif_clause(self, c: list) -> ast.If:
        return set_span(ast.If(c[1], c[2], []), c[0], c[2][-1])

    def else_clause(self, c: list) -> list:
        return c[0]


    def for_stmt(self, c: list) -> ast.For:
        target = c[1]
        check_target(target)
        orelse = c[4] if len(c) > 4 else []
        return set_span(ast.For(target, c[2], c[3], orelse), c[0], (orelse or c[3])[-1])

    def with_stmt(self, c: list) -> ast.With:
        body = c[-1]
        return set_span(ast.With(c[1:-1], body), c[0], body[-1])

    def with_item(self, c: list) -> ast.WithItem:
        if len(c) == 1:
            return set_span(ast.WithItem(c[0], None), c[0], c[0])
        check_target(c[1])
        return set_span(ast.WithItem(c[0], c[1]), c[0], c[1])

    def try_stmt(self, c: list) -> ast.Try:
        node = ast.Try(c[1])
        last = c[1][-1]
        for item in c[2:]:
            if type(item) is ast.ExceptHandler:
                node.handlers.append(item)
                last = item
            elif type(item) is tuple:   # finally
                node.finalbody = item[1]
                last = item[1][-1]
            else:                       # else
                node.orelse = item
                last = item[-1]
        for handler in node.handlers[:-1]:
            if handler.type is None:
                raise _error_at("default 'except:' must be last", handler,
                                hint="a bare 'except:' catches everything: put it after the others")
        return set_span(node, c[0], last)

    def except_clause(self, c: list) -> ast.ExceptHandler:
        body = c[-1]
        node = ast.ExceptHandler(c[1] if len(c) > 2 else None, ident(c[2]) if len(c) > 3 else None, body)
        return set_span(node, c[0], body[-1])

    def finally_clause(self, c: list) -> tuple:
        return (c[0], c[1])

    def funcdef(self, c: list) -> ast.FunctionDef:
        i = 2
        params = Params()
        if type(c[i]) is Params:
            params = c[i]
            i += 1
        returns = None
        if type(c[i]) is Token:  # RARROW
            returns = c[i + 1]
            i += 2
        body = c[i]
        node = ast.FunctionDef(ident(c[1]), params.params, params.defaults, params.vararg,
                               params.kwarg, body, params.kwonly, params.kw_defaults, [],
                               returns, params.annotations)
        return set_span(node, c[0], body[-1])

    def classdef(self, c: list) -> ast.ClassDef:
        body = c[-1]
        bases, keywords = ([], [])
        if len(c) > 3:
            bases, keywords = c[2].args, c[2].keywords
        return set_span(ast.ClassDef(ident(c[1]), bases, body, keywords, []), c[0], body[-1])

    def decorated(self, c: list) -> Any:
        node = c[-1]
        node.decorators = [d[1] for d in c[:-1]]  # the node keeps its own span, as in CPython
        return node

    def decorator(self, c: list) -> tuple:
        return (c[0], c[1])

    # ---------------------------------------------------------------- expressions

    def tuple(self, c: list) -> ast.Tuple:
        return set_span(ast.Tuple(c), c[0], c[-1])

    def star_expr(self, c: list) -> ast.Starred:
        return set_span(ast.Starred(c[1]), c[0], c[1])

    def ifexp(self, c: list) -> ast.IfExp:
        body, test, orelse = c
        return set_span(ast.IfExp(test, body, orelse), body, orelse)

    def walrus(self, c: list) -> ast.NamedExpr:
        target, value = c[0], c[2]
        error = walrus_target_error(target)
        if error is not None:
            raise error
        ast.NamedExpr.parsed = True
        return set_span(ast.NamedExpr(target, value), target, value)

    def lambdef(self, c: list) -> ast.Lambda:
        body = c[-1]
        p = c[1] if len(c) > 2 else Params()
        node = ast.Lambda(p.params, p.defaults, p.vararg, p.kwarg, body, p.kwonly, p.kw_defaults)
        return set_span(node, c[0], body)

    def or_test(self, c: list) -> Any:
        return operators(c)

    test = expr = or_test

    def name(self, c: list) -> ast.Name:
        # the most common node: made without __init__ (every slot is set here)
        t = c[0]
        node = new_node(ast.Name)
        value = t.value
        node.id = value if value.isascii() else unicodedata.normalize("NFKC", value)
        node.line = t.line
        node.column = t.column
        node.end_line = t.end_line
        node.end_column = t.end_column
        return node

    def number(self, c: list) -> ast.Constant:
        t = c[0]
        node = new_node(ast.Constant)
        node.value = number_constant(t)
        node.line = t.line
        node.column = t.column
        node.end_line = t.end_line
        node.end_column = t.end_column
        return node

    def ellipsis(self, c: list) -> ast.Constant:
        return set_span(ast.Constant(Ellipsis), c[0], c[0])

    def const_none(self, c: list) -> ast.Constant:
        return set_span(ast.Constant(None), c[0], c[0])

    def const_true(self, c: list) -> ast.Constant:
        return set_span(ast.Constant(True), c[0], c[0])

    def const_false(self, c: list) -> ast.Constant:
        return set_span(ast.Constant(False), c[0], c[0])

    def reserved(self, c: list) -> Any:
        raise unsupported_error(c[0])

    def string(self, c: list) -> Any:
        return string_constant(c)

    def tuple_display(self, c: list) -> ast.Tuple:
        return set_span(ast.Tuple([]), c[0], c[-1])

    def paren(self, c: list) -> Any:
        inner = c[1]
        if type(inner) is ast.Starred:
            raise _error_at("cannot use starred expression here", inner)
        return set_span(inner, c[0], c[2])

    def genexp(self, c: list) -> ast.GeneratorExp:
        check_not_starred(c[1])
        return set_span(ast.GeneratorExp(c[1], c[2]), c[0], c[-1])

    def list_display(self, c: list) -> ast.List:
        return set_span(ast.List(c[1:-1]), c[0], c[-1])

    def listcomp(self, c: list) -> ast.ListComp:
        check_not_starred(c[1])
        return set_span(ast.ListComp(c[1], c[2]), c[0], c[-1])

    def dict_display(self, c: list) -> ast.Dict:
        keys, values = [], []
        i, n = 1, len(c) - 1
        while i < n:
            item = c[i]
            if type(item) is Token:  # ** mapping
                keys.append(None)
            else:
                keys.append(item)
            values.append(c[i + 1])
            i += 2
        return set_span(ast.Dict(keys, values), c[0], c[-1])

    def dictcomp(self, c: list) -> ast.DictComp:
        return set_span(ast.DictComp(c[1], c[2], c[3]), c[0], c[-1])

    def set_display(self, c: list) -> ast.Set:
        return set_span(ast.Set(c[1:-1]), c[0], c[-1])

    def setcomp(self, c: list) -> ast.SetComp:
        check_not_starred(c[1])
        return set_span(ast.SetComp(c[1], c[2]), c[0], c[-1])

    def getattr(self, c: list) -> ast.Attribute:
        value, attr = c
        node = new_node(ast.Attribute)
        node.value = value
        name = attr.value
        node.attr = name if name.isascii() else unicodedata.normalize("NFKC", name)
        node.line = value.line
        node.column = value.column
        node.end_line = attr.end_line
        node.end_column = attr.end_column
        return node

    def call(self, c: list) -> ast.Call:
        func = c[0]
        node = new_node(ast.Call)
        node.func = func
        if len(c) == 2:
            node.args, node.keywords = [], []
            end = c[1]
        else:
            args = c[1]
            node.args, node.keywords = args.args, args.keywords
            end = c[2]
        node.line = func.line
        node.column = func.column
        node.end_line = end.end_line
        node.end_column = end.end_column
        return node

    def getitem(self, c: list) -> ast.Subscript:
        return set_span(ast.Subscript(c[0], c[1]), c[0], c[2])

    def getitem_tuple(self, c: list) -> ast.Subscript:
        index = set_span(ast.Tuple(c[1:-1]), c[1], c[-2])
        return set_span(ast.Subscript(c[0], index), c[0], c[-1])

    def comp_for(self, c: list) -> list:
        return _comprehensions(c)

    def slice(self, c: list) -> ast.Slice:
        parts: list = [None, None, None]
        k = 0
        for item in c:
            if type(item) is Token:
                k += 1
            else:
                parts[k] = item
        return set_span(ast.Slice(*parts), c[0], c[-1])


def node_reducer(cls: type):
    """The reducer of a rule that a statement's description names (``ast.Statement.rule``): the
    rule's children are the node's fields in order, its keywords and punctuation left out and a
    name (NAME) as its identifier, the children after the other fields' in a list for the last field
    when the description says so (``rest``: `global a, b`); the node spans the children (to the last
    statement of a block that ends them)."""
    if not cls._fields:  # `pass`, `break`: the keyword alone
        def reduce(c: list) -> Any:
            return set_span(cls(), c[0], c[-1])
    elif cls.statement.rest:
        fixed = len(cls._fields) - 1

        def reduce(c: list) -> Any:
            kept = [x if type(x) is not Token else ident(x) for x in c if type(x) is not Token or x.type == "NAME"]
            node = cls(*kept[:fixed], kept[fixed:])
            return set_span(node, c[0], c[-1])
    else:
        def reduce(c: list) -> Any:
            node = cls(*[x if type(x) is not Token else ident(x) for x in c
                         if type(x) is not Token or x.type == "NAME"])
            last = c[-1]
            return set_span(node, c[0], last[-1] if type(last) is list else last)
    reduce.__qualname__ = "node_reducer(%s)" % cls.__name__
    return reduce


def install_reducers(builder: Any) -> None:
    """Give ``builder`` the reducer of each rule that a statement's description names."""
    for d in STATEMENTS.values():
        if d.rule is not None:
            if hasattr(builder, d.rule):
                raise TypeError("rule %s: both a reducer and %s's description" % (d.rule, d.node.__name__))
            setattr(builder, d.rule, node_reducer(d.node))


BUILDER = _Builder()  # the one transformer: Lark's and the LALR driver's
install_reducers(BUILDER)
