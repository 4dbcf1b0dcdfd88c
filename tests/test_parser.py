"""The GradScript front end: grammar, parser, AST shapes and spans, syntax errors.

CPython 3.11 is the reference for shapes, spans and error texts: the tests convert the
output of Python's own ``ast`` module (on test strings only) into gradcli's nodes and compare.
"""

from __future__ import annotations

import ast as pyast
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli.lang import ast as A
from gradcli.lang import parser as P
from gradcli.lang.errors import GradScriptError, ScriptSyntaxError
from gradcli.lang.parser import parse, parse_expression

ROOT = Path(__file__).resolve().parent.parent


def stmt(src: str) -> A.Stmt:
    body = parse(src).body
    assert len(body) == 1, body
    return body[0]


def expr(src: str) -> A.Expr:
    s = stmt(src)
    assert type(s) is A.ExprStmt
    return s.value


def error(src: str) -> ScriptSyntaxError:
    with pytest.raises(ScriptSyntaxError) as info:
        parse(src, "t.grad")
    return info.value


def segment(src: str, node: A.Node) -> str:
    lines = src.split("\n")
    if node.line == node.end_line:
        return lines[node.line - 1][node.column - 1:node.end_column - 1]
    parts = [lines[node.line - 1][node.column - 1:]] + lines[node.line:node.end_line - 1]
    return "\n".join(parts + [lines[node.end_line - 1][:node.end_column - 1]])


N, C = A.Name, A.Constant


# =============================================================================== CPython as oracle

_BINOPS = {pyast.Add: "+", pyast.Sub: "-", pyast.Mult: "*", pyast.Div: "/", pyast.FloorDiv: "//",
           pyast.Mod: "%", pyast.Pow: "**", pyast.MatMult: "@", pyast.LShift: "<<",
           pyast.RShift: ">>", pyast.BitOr: "|", pyast.BitXor: "^", pyast.BitAnd: "&"}
_UNOPS = {pyast.USub: "-", pyast.UAdd: "+", pyast.Invert: "~", pyast.Not: "not"}
_CMPOPS = {pyast.Lt: "<", pyast.Gt: ">", pyast.Eq: "==", pyast.GtE: ">=", pyast.LtE: "<=",
           pyast.NotEq: "!=", pyast.In: "in", pyast.NotIn: "not in", pyast.Is: "is",
           pyast.IsNot: "is not"}
_CONVERSIONS = {-1: None, 115: "s", 114: "r", 97: "a"}


class FromCPython:
    """Python's ast (of a test string) -> gradcli.lang.ast, with spans in characters."""

    def __init__(self, src: str) -> None:
        self.lines = src.split("\n")

    def col(self, line: int, byte_offset: int) -> int:
        raw = self.lines[line - 1].encode("utf-8")[:byte_offset]
        return len(raw.decode("utf-8")) + 1

    def span(self, new: A.Node, old) -> A.Node:
        if getattr(old, "lineno", None) is not None:
            new.line, new.column = old.lineno, self.col(old.lineno, old.col_offset)
            new.end_line = old.end_lineno
            new.end_column = self.col(old.end_lineno, old.end_col_offset)
        return new

    def many(self, nodes):
        return [self(n) for n in nodes]

    def opt(self, node):
        return None if node is None else self(node)

    def args(self, a):
        annotations = {x.arg: self(x.annotation)
                       for x in a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                       if x is not None and x.annotation is not None}
        return dict(params=[x.arg for x in a.args], defaults=self.many(a.defaults),
                    vararg=a.vararg.arg if a.vararg else None,
                    kwarg=a.kwarg.arg if a.kwarg else None,
                    kwonly=[x.arg for x in a.kwonlyargs],
                    kw_defaults=[self.opt(d) for d in a.kw_defaults]), annotations

    def comps(self, gens):
        return [A.Comprehension(self(g.target), self(g.iter), self.many(g.ifs)) for g in gens]

    def __call__(self, n):  # noqa: C901 - one branch per node type
        s, t = self.span, type(n)
        if t is pyast.Module:
            return A.Module(self.many(n.body))
        if t is pyast.Import:
            return s(A.Import([s(A.Alias(x.name, x.asname), x) for x in n.names]), n)
        if t is pyast.ImportFrom:
            return s(A.ImportFrom(n.module, [s(A.Alias(x.name, x.asname), x) for x in n.names]), n)
        if t is pyast.Assign:
            return s(A.Assign(self.many(n.targets), self(n.value)), n)
        if t is pyast.AugAssign:
            return s(A.AugAssign(self(n.target), _BINOPS[type(n.op)], self(n.value)), n)
        if t is pyast.AnnAssign:
            return s(A.AnnAssign(self(n.target), self(n.annotation), self.opt(n.value)), n)
        if t is pyast.Expr:
            return s(A.ExprStmt(self(n.value)), n)
        if t is pyast.For:
            return s(A.For(self(n.target), self(n.iter), self.many(n.body), self.many(n.orelse)), n)
        if t is pyast.While:
            return s(A.While(self(n.test), self.many(n.body), self.many(n.orelse)), n)
        if t is pyast.If:
            return s(A.If(self(n.test), self.many(n.body), self.many(n.orelse)), n)
        if t is pyast.With:
            items = [A.WithItem(self(i.context_expr), self.opt(i.optional_vars)) for i in n.items]
            return s(A.With(items, self.many(n.body)), n)
        if t is pyast.FunctionDef:
            kw, annotations = self.args(n.args)
            return s(A.FunctionDef(n.name, kw["params"], kw["defaults"], kw["vararg"], kw["kwarg"],
                                   self.many(n.body), kw["kwonly"], kw["kw_defaults"],
                                   self.many(n.decorator_list), self.opt(n.returns), annotations), n)
        if t is pyast.Lambda:
            kw, _ = self.args(n.args)
            return s(A.Lambda(kw["params"], kw["defaults"], kw["vararg"], kw["kwarg"], self(n.body),
                              kw["kwonly"], kw["kw_defaults"]), n)
        if t is pyast.ClassDef:
            keywords = [s(A.Keyword(k.arg, self(k.value)), k) for k in n.keywords]
            return s(A.ClassDef(n.name, self.many(n.bases), self.many(n.body), keywords,
                                self.many(n.decorator_list)), n)
        simple = {pyast.Pass: A.Pass, pyast.Break: A.Break, pyast.Continue: A.Continue}
        if t in simple:
            return s(simple[t](), n)
        if t is pyast.Return:
            return s(A.Return(self.opt(n.value)), n)
        if t is pyast.Assert:
            return s(A.Assert(self(n.test), self.opt(n.msg)), n)
        if t is pyast.Delete:
            return s(A.Delete(self.many(n.targets)), n)
        if t is pyast.Global:
            return s(A.Global(list(n.names)), n)
        if t is pyast.Nonlocal:
            return s(A.Nonlocal(list(n.names)), n)
        if t is pyast.Name:
            return s(A.Name(n.id), n)
        if t is pyast.Constant:
            return s(A.Constant(n.value), n)
        if t is pyast.JoinedStr:  # (CPython 3.12 adds an empty Constant after a nested field of a format spec,
            # where 3.11, whose tree GradScript's is, has nothing)
            values = [v for v in n.values if not (type(v) is pyast.Constant and v.value == "")]
            return s(A.JoinedStr(self.many(values)), n)
        if t is pyast.FormattedValue:
            return s(A.FormattedValue(self(n.value), _CONVERSIONS[n.conversion],
                                      self.opt(n.format_spec)), n)
        displays = {pyast.List: A.List, pyast.Tuple: A.Tuple, pyast.Set: A.Set}
        if t in displays:
            return s(displays[t](self.many(n.elts)), n)
        if t is pyast.Dict:
            return s(A.Dict([self.opt(k) for k in n.keys], self.many(n.values)), n)
        comps = {pyast.ListComp: A.ListComp, pyast.SetComp: A.SetComp,
                 pyast.GeneratorExp: A.GeneratorExp}
        if t in comps:
            return s(comps[t](self(n.elt), self.comps(n.generators)), n)
        if t is pyast.DictComp:
            return s(A.DictComp(self(n.key), self(n.value), self.comps(n.generators)), n)
        if t is pyast.BinOp:
            return s(A.BinOp(_BINOPS[type(n.op)], self(n.left), self(n.right)), n)
        if t is pyast.UnaryOp:
            return s(A.UnaryOp(_UNOPS[type(n.op)], self(n.operand)), n)
        if t is pyast.BoolOp:
            return s(A.BoolOp("and" if type(n.op) is pyast.And else "or", self.many(n.values)), n)
        if t is pyast.Compare:
            return s(A.Compare(self(n.left), [_CMPOPS[type(o)] for o in n.ops],
                               self.many(n.comparators)), n)
        if t is pyast.IfExp:
            return s(A.IfExp(self(n.test), self(n.body), self(n.orelse)), n)
        if t is pyast.Call:
            keywords = [s(A.Keyword(k.arg, self(k.value)), k) for k in n.keywords]
            return s(A.Call(self(n.func), self.many(n.args), keywords), n)
        if t is pyast.Starred:
            return s(A.Starred(self(n.value)), n)
        if t is pyast.Attribute:
            return s(A.Attribute(self(n.value), n.attr), n)
        if t is pyast.Subscript:
            return s(A.Subscript(self(n.value), self(n.slice)), n)
        if t is pyast.Slice:
            return s(A.Slice(self.opt(n.lower), self.opt(n.upper), self.opt(n.step)), n)
        raise NotImplementedError(t.__name__)


def typed(node):
    """A comparable form that also tells 1, 1.0 and True apart."""
    if isinstance(node, A.Node):
        return (type(node).__name__,) + tuple(typed(getattr(node, f)) for f in node._fields)
    if isinstance(node, list):
        return [typed(x) for x in node]
    if isinstance(node, dict):
        return {k: typed(v) for k, v in node.items()}
    return (type(node).__name__, node)


def span_mismatches(src: str, mine, ref, out: list) -> None:
    """Spans that differ from CPython's, except where gradcli's rule differs on purpose
    (a parenthesised expression includes its parentheses; a generator that is a call's
    only argument does not include the call's; a trailing ',' or ';')."""
    if isinstance(mine, A.Node):
        if ref.line and type(mine) not in (A.Module, A.Comprehension, A.WithItem):
            if (mine.line, mine.column, mine.end_line, mine.end_column) != \
                    (ref.line, ref.column, ref.end_line, ref.end_column):
                a, b = segment(src, mine), segment(src, ref)
                if not ((a.startswith("(") and b in a) or (b.startswith("(") and a in b)
                        or b.rstrip(",;") == a):
                    out.append((type(mine).__name__, a, b))
        if type(mine) is A.JoinedStr:  # CPython 3.11's spans inside f-strings are not useful
            return
        for name in mine._fields:
            span_mismatches(src, getattr(mine, name), getattr(ref, name), out)
    elif isinstance(mine, list):
        for x, y in zip(mine, ref):
            span_mismatches(src, x, y, out)
    elif isinstance(mine, dict):
        for key in mine:
            span_mismatches(src, mine[key], ref[key], out)


def assert_like_cpython(src: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = FromCPython(src)(pyast.parse(src))
    mine = parse(src)
    assert typed(mine) == typed(ref), f"{src!r}\n mine: {mine}\n  ref: {ref}"
    bad: list = []
    span_mismatches(src, mine, ref, bad)
    assert not bad, f"{src!r}: spans differ: {bad[:3]}"


# =============================================================================== statements

def test_imports():
    assert stmt("import torch") == A.Import([A.Alias("torch")])
    assert stmt("import numpy as np") == A.Import([A.Alias("numpy", "np")])
    assert stmt("import torch.nn as nn") == A.Import([A.Alias("torch.nn", "nn")])
    assert stmt("import torch.nn.functional as F, math") == \
        A.Import([A.Alias("torch.nn.functional", "F"), A.Alias("math")])
    assert stmt("from torch import nn, optim") == \
        A.ImportFrom("torch", [A.Alias("nn"), A.Alias("optim")])
    assert stmt("from torch.autograd.functional import jacobian as J") == \
        A.ImportFrom("torch.autograd.functional", [A.Alias("jacobian", "J")])
    assert stmt("from torch import (nn,\n    optim,)") == \
        A.ImportFrom("torch", [A.Alias("nn"), A.Alias("optim")])
    assert stmt("from torch import *") == A.ImportFrom("torch", [A.Alias("*")])


def test_assignments():
    assert stmt("x = 1") == A.Assign([N("x")], C(1))
    assert stmt("a = b = 1") == A.Assign([N("a"), N("b")], C(1))
    assert stmt("a, b = 1, 2") == A.Assign([A.Tuple([N("a"), N("b")])], A.Tuple([C(1), C(2)]))
    assert stmt("(a, b), c = t") == \
        A.Assign([A.Tuple([A.Tuple([N("a"), N("b")]), N("c")])], N("t"))
    assert stmt("[a, *b] = t") == A.Assign([A.List([N("a"), A.Starred(N("b"))])], N("t"))
    assert stmt("x.requires_grad = True") == \
        A.Assign([A.Attribute(N("x"), "requires_grad")], C(True))
    assert stmt("x.grad = None") == A.Assign([A.Attribute(N("x"), "grad")], C(None))
    assert stmt("x[0] = 1.") == A.Assign([A.Subscript(N("x"), C(0))], C(1.0))
    assert stmt("x: int = 3") == A.AnnAssign(N("x"), N("int"), C(3))
    assert stmt("x: torch.Tensor") == A.AnnAssign(N("x"), A.Attribute(N("torch"), "Tensor"))


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^",
                                "<<", ">>"])
def test_augmented_assignment(op):
    assert stmt(f"x {op}= y") == A.AugAssign(N("x"), op, N("y"))
    assert stmt(f"w.grad {op}= 2") == A.AugAssign(A.Attribute(N("w"), "grad"), op, C(2))


def test_simple_statements():
    assert parse("pass; break_ = 1;").body == [A.Pass(), A.Assign([N("break_")], C(1))]
    assert stmt("assert x > 0, 'positive'") == \
        A.Assert(A.Compare(N("x"), [">"], [C(0)]), C("positive"))
    assert stmt("assert ok") == A.Assert(N("ok"))
    assert stmt("del x, y[0]") == A.Delete([N("x"), A.Subscript(N("y"), C(0))])
    assert stmt("del (a, b)") == A.Delete([A.Tuple([N("a"), N("b")])])
    assert stmt("global a, b") == A.Global(["a", "b"])
    body = parse("def f():\n    nonlocal q\n    return\n").body[0].body
    assert body == [A.Nonlocal(["q"]), A.Return(None)]


def test_compound_statements():
    src = ("for i, (x, y) in enumerate(zip(a, b)):\n"
           "    if i > 2:\n        break\n"
           "    elif i == 1:\n        continue\n"
           "    else:\n        pass\n"
           "else:\n    done = True\n")
    loop = stmt(src)
    assert loop.target == A.Tuple([N("i"), A.Tuple([N("x"), N("y")])])
    assert loop.iter == A.Call(N("enumerate"), [A.Call(N("zip"), [N("a"), N("b")], [])], [])
    branch = loop.body[0]
    assert branch.body == [A.Break()]
    assert branch.orelse == [A.If(A.Compare(N("i"), ["=="], [C(1)]), [A.Continue()], [A.Pass()])]
    assert loop.orelse == [A.Assign([N("done")], C(True))]

    assert stmt("while x < 3:\n    x += 1\n") == \
        A.While(A.Compare(N("x"), ["<"], [C(3)]), [A.AugAssign(N("x"), "+", C(1))])
    assert stmt("with torch.no_grad():\n    y = x * 2\n") == A.With(
        [A.WithItem(A.Call(A.Attribute(N("torch"), "no_grad"), [], []))],
        [A.Assign([N("y")], A.BinOp("*", N("x"), C(2)))])
    w = stmt("with torch.set_grad_enabled(False) as g, torch.enable_grad(): pass")
    assert [i.optional_vars for i in w.items] == [N("g"), None]
    assert stmt("if x: y = 1; z = 2") == \
        A.If(N("x"), [A.Assign([N("y")], C(1)), A.Assign([N("z")], C(2))])


def test_function_definitions():
    f = stmt("def f(a, b=1, *args, c, d=2, **kwargs):\n    return a + b\n")
    assert f == A.FunctionDef("f", ["a", "b"], [C(1)], "args", "kwargs",
                              [A.Return(A.BinOp("+", N("a"), N("b")))],
                              kwonly=["c", "d"], kw_defaults=[None, C(2)])
    g = stmt("@torch.no_grad()\ndef g(x: torch.Tensor, *, k=3) -> float:\n    '''doc'''\n")
    assert g.decorators == [A.Call(A.Attribute(N("torch"), "no_grad"), [], [])]
    assert g.kwonly == ["k"] and g.vararg is None
    assert g.annotations == {"x": A.Attribute(N("torch"), "Tensor")}
    assert g.returns == N("float")
    assert g.body == [A.ExprStmt(C("doc"))]
    assert stmt("def h(): pass") == A.FunctionDef("h", [], [], None, None, [A.Pass()])


def test_lambda():
    assert expr("lambda: 0") == A.Lambda([], [], None, None, C(0))
    assert expr("lambda a, b=2: a * b") == \
        A.Lambda(["a", "b"], [C(2)], None, None, A.BinOp("*", N("a"), N("b")))
    assert expr("lambda *a, k=1, **kw: k") == \
        A.Lambda([], [], "a", "kw", N("k"), ["k"], [C(1)])
    assert expr("f(lambda x: x ** 2, x)").args[0].body == A.BinOp("**", N("x"), C(2))


def test_the_one_class_form():
    src = ("class Net(nn.Module):\n"
           "    \"\"\"A two-layer net.\"\"\"\n"
           "    def __init__(self, n_in=10):\n"
           "        super(Net, self).__init__()\n"
           "        self.fc1 = nn.Linear(n_in, 5)\n"
           "\n"
           "    def forward(self, x):\n"
           "        return self.fc1(x)\n")
    cls = stmt(src)
    assert type(cls) is A.ClassDef and cls.name == "Net"
    assert cls.bases == [A.Attribute(N("nn"), "Module")] and cls.keywords == []
    assert [type(s).__name__ for s in cls.body] == ["ExprStmt", "FunctionDef", "FunctionDef"]
    init = cls.body[1]
    assert init.params == ["self", "n_in"] and init.defaults == [C(10)]
    assert init.body[0] == A.ExprStmt(A.Call(A.Attribute(
        A.Call(N("super"), [N("Net"), N("self")], []), "__init__"), [], []))
    assert stmt("class A: pass") == A.ClassDef("A", [], [A.Pass()])


# =============================================================================== expressions

def test_literals():
    assert expr("42") == C(42) and type(expr("42").value) is int
    assert expr("0x1F") == C(31) and expr("0o17") == C(15) and expr("0b101") == C(5)
    assert expr("1_000_000") == C(1000000)
    for text, value in [("1e-3", 1e-3), ("3.", 3.0), (".5", 0.5), ("2.5E+10", 2.5e10),
                        ("1_0.5", 10.5)]:
        assert type(expr(text).value) is float and expr(text).value == value
    assert expr("True").value is True and expr("False").value is False
    assert expr("None").value is None
    assert expr("...").value is Ellipsis
    assert expr("'a' \"b\" '''c\nd'''") == C("abc\nd")
    assert expr(r"'\n\t\x41\u00e9\N{GREEK SMALL LETTER ALPHA}\101\q'") == \
        C("\n\tAé\u03b1A\\q")
    assert expr(r"r'\d\n'") == C("\\d\\n")
    assert expr("b'x\\x00y' rb'\\z'") == C(b"x\x00y\\z")
    assert expr("'line\\\ncontinued'") == C("linecontinued")


def test_displays():
    assert expr("[1, 2, 3]") == A.List([C(1), C(2), C(3)])
    assert expr("[]") == A.List([]) and expr("()") == A.Tuple([])
    assert expr("(1,)") == A.Tuple([C(1)]) and expr("(1)") == C(1)
    assert expr("1, 2,") == A.Tuple([C(1), C(2)])
    assert expr("{}") == A.Dict([], [])
    assert expr("{'lr': 0.1, **extra}") == A.Dict([C("lr"), None], [C(0.1), N("extra")])
    assert expr("{1, *s}") == A.Set([C(1), A.Starred(N("s"))])
    assert expr("[*a, 1]") == A.List([A.Starred(N("a")), C(1)])


def test_comprehensions():
    assert expr("[x*2 for x in xs if c]") == A.ListComp(
        A.BinOp("*", N("x"), C(2)), [A.Comprehension(N("x"), N("xs"), [N("c")])])
    assert expr("sum(x for x in xs)") == A.Call(N("sum"), [A.GeneratorExp(
        N("x"), [A.Comprehension(N("x"), N("xs"))])], [])
    nested = expr("[(i, j) for i in range(3) if i for j in range(i) if j if j > 1]")
    assert [len(g.ifs) for g in nested.generators] == [1, 2]
    assert expr("{k: v for k, v in d.items()}") == A.DictComp(N("k"), N("v"), [A.Comprehension(
        A.Tuple([N("k"), N("v")]), A.Call(A.Attribute(N("d"), "items"), [], []))])
    assert type(expr("{x for x in s}")) is A.SetComp
    assert type(expr("(x for x in s)")) is A.GeneratorExp


def test_calls_attributes_and_subscripts():
    assert expr("torch.tensor(3., requires_grad=True)") == A.Call(
        A.Attribute(N("torch"), "tensor"), [C(3.0)], [A.Keyword("requires_grad", C(True))])
    assert expr("f(*args, **kwargs, k=1)") == A.Call(
        N("f"), [A.Starred(N("args"))], [A.Keyword(None, N("kwargs")), A.Keyword("k", C(1))])
    assert expr("x[:, 1]") == A.Subscript(N("x"), A.Tuple([A.Slice(), C(1)]))
    assert expr("x[..., None]") == A.Subscript(N("x"), A.Tuple([C(Ellipsis), C(None)]))
    assert expr("x[1:3, ::2]") == A.Subscript(
        N("x"), A.Tuple([A.Slice(C(1), C(3)), A.Slice(None, None, C(2))]))
    assert expr("x[::2]") == A.Subscript(N("x"), A.Slice(step=C(2)))
    assert expr("x[1:]") == A.Subscript(N("x"), A.Slice(C(1)))
    assert expr("x[:-1]") == A.Subscript(N("x"), A.Slice(upper=A.UnaryOp("-", C(1))))
    assert expr("x[i,]") == A.Subscript(N("x"), A.Tuple([N("i")]))
    assert expr("x[mask]") == A.Subscript(N("x"), N("mask"))
    assert expr("a.b.c(1)[0].d") == A.Attribute(A.Subscript(A.Call(
        A.Attribute(A.Attribute(N("a"), "b"), "c"), [C(1)], []), C(0)), "d")


@pytest.mark.parametrize("src", [
    "-2**2", "2**-1", "2**-1*3", "-x**-y**z", "a * -b ** c", "~x + +y - -z",
    "a + b * c - d / e // f % g @ h", "a << b >> c | d ^ e & f",
    "not a == b", "not a < b < c", "a < b < c", "a < b == c in d not in e is f is not g",
    "(a < b) < c", "a or b or c", "a and b or c and d", "a or b and c or d",
    "not a and not b or not not c", "a if b else c if d else e", "lambda: a if b else c",
    "x if y else lambda: z", "a is not None", "a not in b", "- - -x", "(-2) ** 2",
    "w * x + b", "((y_pred - y) ** 2).mean()", "x @ w.T + b[:, None]",
    "1 if x else 2, 3", "f(x)(y)[z].w", "a == -b", "a ** b ** c", "a - b - c", "a / b / c",
    "a < b and c < d or e", "-a.b ** 2", "not -x", "x == y == z == w",
])
def test_precedence_like_cpython(src):
    assert_like_cpython(src + "\n")


TUTORIAL = '''\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

x = torch.tensor(3., requires_grad=True)
w = torch.tensor(4., requires_grad=True)
b = torch.tensor(5., requires_grad=True)
x, w, b
y = w * x + b
y.backward()
print('dy/dx:', x.grad)

class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(10, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        return self.fc2(x)

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(10):
    for inputs, labels in data_loader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = ((outputs - labels) ** 2).mean() + 1e-3 * sum(p.pow(2).sum() for p in model.parameters())
        loss.backward()
        optimizer.step()
    if epoch % 2 == 0 and not loss.item() > 1.:
        print(f"epoch {epoch}: loss {loss.item():.4f} {loss=}", sep=' ', end='\\n')
with torch.no_grad():
    for p in model.parameters():
        p -= 0.01 * p.grad
        p.grad = None
z = x[1:3, ::2] if x.dim() > 1 else x[..., None]
grads = {name: p.grad for name, p in model.named_parameters() if p.requires_grad}
f = lambda t, k=2: t ** k
assert z is not None, "z is None"
a = b = c = -2 ** 2
del a, b
'''


def test_a_tutorial_program_like_cpython():
    assert_like_cpython(TUTORIAL)


@pytest.mark.parametrize("src", [
    "x = 1\n", "a, *rest = [1, 2, 3]\n", "x[0] = y[1:2] = z\n", "print(*args, sep='')\n",
    "f(a)(b=1)[2]\n", "x = {}\ny = {1: 2}\nz = {1, 2}\n", "assert x, 'm'\n",
    "if a:\n    pass\nelif b:\n    pass\nelif c:\n    x = 1\nelse:\n    y = 2\n",
    "while x:\n    break\nelse:\n    pass\n", "for x in 1, 2, 3:\n    print(x)\n",
    "def f(*, a, b=2, **k): return a\n", "@d1\n@d2(x)\nclass A(B, metaclass=M): pass\n",
    "x = (1) if False else 2\n",
    "x = f'{a!r:>{w}} and {b:.3f} and {{c}} {d=}'\n", "x = f'{a}' 'b' f'{c}'\n",
    "s = '''\nmulti\nline'''\nt = 1\n", "x = [\n    1,\n    2,\n]\n", "x = 1 + \\\n    2\n",
    "x = 'é'; é = 2; ψ = é * 2\n", "if x:\n\n    # comment\n\n    y = 1\n# c\nz = 2\n",
    "x = a if b else c\n", "x = [i for i in range(10) if i % 2 if i > 3]\n",
    "x = t[1:2, ::3, ...]\n", "del x[0], y.z\n", "x = not a\n", "x = a is not b\n",
])
def test_programs_like_cpython(src):
    assert_like_cpython(src)


# =============================================================================== spans

def test_spans_of_an_assignment():
    src = "y = w * x + b\n"
    s = stmt(src)
    assert (s.line, s.column, s.end_line, s.end_column) == (1, 1, 1, 14)
    assert segment(src, s.targets[0]) == "y"
    assert segment(src, s.value) == "w * x + b"
    assert segment(src, s.value.left) == "w * x"
    assert segment(src, s.value.right) == "b"


def test_spans_of_calls_subscripts_and_blocks():
    src = ("for i in range(3):\n"
           "    z = torch.tensor([1., 2.], requires_grad=True)[i:]\n"
           "    if z.sum() > 0:\n"
           "        print(z)\n")
    loop = stmt(src)
    assert (loop.line, loop.column, loop.end_line, loop.end_column) == (1, 1, 4, 17)
    assign = loop.body[0]
    call = assign.value.value
    assert segment(src, call) == "torch.tensor([1., 2.], requires_grad=True)"
    assert segment(src, call.keywords[0]) == "requires_grad=True"
    assert segment(src, assign.value) == "torch.tensor([1., 2.], requires_grad=True)[i:]"
    assert segment(src, assign.value.index) == "i:"
    branch = loop.body[1]
    assert (branch.line, branch.end_line) == (3, 4)
    assert segment(src, branch.test) == "z.sum() > 0"


def test_parenthesised_spans_include_the_parentheses():
    src = "y = (a + b) * c\n"
    value = stmt(src).value
    assert segment(src, value) == "(a + b) * c"
    assert segment(src, value.left) == "(a + b)"


def test_spans_count_characters_not_bytes():
    src = "é = 'ü' + ψ\n"
    s = stmt(src)
    assert segment(src, s.value.right) == "ψ"
    assert (s.value.right.column, s.value.right.end_column) == (11, 12)


def test_every_node_has_a_span_inside_the_source():
    module = parse(TUTORIAL)
    lines = TUTORIAL.split("\n")
    for node in A.walk(module):
        assert node.line >= 1 and node.column >= 1, node
        assert (node.end_line, node.end_column) >= (node.line, node.column), node
        assert node.end_line <= len(lines), node
        assert node.end_column <= len(lines[node.end_line - 1]) + 1, node


def test_no_lark_objects_reach_the_ast():
    from lark import Token as LarkToken, Tree as LarkTree

    from gradcli.lang.tokens import Token as GradToken, Tree as GradTree

    Token, Tree = (LarkToken, GradToken), (LarkTree, GradTree)
    allowed = (A.Node, str, int, float, bool, bytes, type(None), type(Ellipsis), list, dict)
    for node in A.walk(parse(TUTORIAL)):
        for name in node._fields:
            value = getattr(node, name)
            items = value if isinstance(value, list) else list(value.values()) \
                if isinstance(value, dict) else [value]
            for item in items:
                assert isinstance(item, allowed) and not isinstance(item, (Token, Tree)), \
                    (node, name, item)
                if isinstance(item, str):
                    assert type(item) is str, (node, name, type(item))


def test_module_span_and_walk():
    module = parse("x = 1\ny = 2")
    assert (module.line, module.column, module.end_line) == (1, 1, 2)
    kinds = [type(n).__name__ for n in A.walk(module)]
    assert kinds == ["Module", "Assign", "Name", "Constant", "Assign", "Name", "Constant"]
    assert A.Assign._fields == ("targets", "value")


# =============================================================================== f-strings

def test_f_strings():
    v = expr("f'a{x}b{y!r:>{w}}{{c}}{z=}'")
    assert v == A.JoinedStr([C("a"), A.FormattedValue(N("x")), C("b"),
                             A.FormattedValue(N("y"), "r", A.JoinedStr([
                                 C(">"), A.FormattedValue(N("w"))])),
                             C("{c}z="), A.FormattedValue(N("z"), "r")])
    src = 'print(f"loss {loss.item():.4f}")\n'
    call = expr(src)
    field = call.args[0].values[1]
    assert segment(src, field.value) == "loss.item()"
    assert field.format_spec == A.JoinedStr([C(".4f")])
    assert expr("f'{d[\"k\"]}' 'tail'") == A.JoinedStr([
        A.FormattedValue(A.Subscript(N("d"), C("k"))), C("tail")])
    assert expr("f'plain'") == C("plain")


@pytest.mark.parametrize("src, message, column", [
    ("f'{'\n", "f-string: expecting '}'", 4),
    ("f'{}'\n", "f-string: empty expression not allowed", 4),
    ("f'}'\n", "f-string: single '}' is not allowed", 3),
    ("f'{x!z}'\n", "f-string: invalid conversion character: expected 's', 'r', or 'a'", 6),
    ("f'{a b}'\n", "f-string: invalid syntax. Perhaps you forgot a comma?", 4),
    ("f'{x:{y:{z}}}'\n", "f-string: expressions nested too deeply", 9),
    ("f'{#}'\n", "f-string expression part cannot include '#'", 4),
])
def test_f_string_errors(src, message, column):
    e = error(src)
    assert (e.type_name, e.message, e.line, e.column) == ("SyntaxError", message, 1, column)


# =============================================================================== errors

@pytest.mark.parametrize("src, type_name, message, line, column", [
    ("x = 1\n    y = 2\n", "IndentationError", "unexpected indent", 2, 5),
    ("  x = 1\n", "IndentationError", "unexpected indent", 1, 3),
    ("if x:\ny = 2\n", "IndentationError",
     "expected an indented block after 'if' statement on line 1", 2, 1),
    ("x = 1\nif x:\n", "IndentationError",
     "expected an indented block after 'if' statement on line 2", 2, 6),
    ("def f():\nreturn 1\n", "IndentationError",
     "expected an indented block after function definition on line 1", 2, 1),
    ("class A:\npass\n", "IndentationError",
     "expected an indented block after class definition on line 1", 2, 1),
    ("for x in y:\nz\n", "IndentationError",
     "expected an indented block after 'for' statement on line 1", 2, 1),
    ("if a:\n    pass\nelse:\nz\n", "IndentationError",
     "expected an indented block after 'else' statement on line 3", 4, 1),
    ("with a:\n\n# c\nz\n", "IndentationError",
     "expected an indented block after 'with' statement on line 1", 4, 1),
    ("if a:\n        x\n    y\n", "IndentationError",
     "unindent does not match any outer indentation level", 3, 5),
    ("if x:\n\ty\n        z\n", "TabError",
     "inconsistent use of tabs and spaces in indentation", 3, 9),
    ("if x\n    y\n", "SyntaxError", "expected ':'", 1, 5),
    ("def f()\n", "SyntaxError", "expected ':'", 1, 8),
    ("while x < 3\n  x += 1\n", "SyntaxError", "expected ':'", 1, 12),
    ("f(1, 2\nx = 3\n", "SyntaxError", "'(' was never closed", 1, 2),
    ("x = (1,\n", "SyntaxError", "'(' was never closed", 1, 5),
    ("x = [1, 2\ny = 3\n", "SyntaxError", "'[' was never closed", 1, 5),
    ("x = 1)\n", "SyntaxError", "unmatched ')'", 1, 6),
    ("x = )\n", "SyntaxError", "unmatched ')'", 1, 5),
    ("x = [1, 2)\n", "SyntaxError",
     "closing parenthesis ')' does not match opening parenthesis '['", 1, 10),
    ("x = [1,\n 2)\n", "SyntaxError",
     "closing parenthesis ')' does not match opening parenthesis '[' on line 1", 2, 3),
    ("s = 'abc\n", "SyntaxError", "unterminated string literal (detected at line 1)", 1, 5),
    ("x = 1 2\ns = 'abc\n", "SyntaxError",
     "unterminated string literal (detected at line 2)", 2, 5),
    ("s = '''abc\n\nx\n", "SyntaxError",
     "unterminated triple-quoted string literal (detected at line 3)", 1, 5),
    ("x = = 1\n", "SyntaxError", "invalid syntax", 1, 5),
    ("x = 1 +\n", "SyntaxError", "invalid syntax", 1, 8),
    ("x = $\n", "SyntaxError", "invalid syntax", 1, 5),
    ("a = b c\n", "SyntaxError", "invalid syntax", 1, 7),
    ("print(a b)\n", "SyntaxError", "invalid syntax. Perhaps you forgot a comma?", 1, 7),
    ("x = [1, 2 3]\n", "SyntaxError", "invalid syntax. Perhaps you forgot a comma?", 1, 9),
    ("print 'hello'\n", "SyntaxError",
     "Missing parentheses in call to 'print'. Did you mean print(...)?", 1, 1),
    ("x = 3 ×\n", "SyntaxError", "invalid character '×' (U+00D7)", 1, 7),
    ("1、基础知识:\n", "SyntaxError", "invalid character '、' (U+3001)", 1, 2),
    ("x = 1\x01\n", "SyntaxError", "invalid non-printable character U+0001", 1, 6),
    ("x = 3 \\ \n", "SyntaxError", "unexpected character after line continuation character",
     1, 7),
    ("f() = 1\n", "SyntaxError",
     "cannot assign to function call here. Maybe you meant '==' instead of '='?", 1, 1),
    ("1 = x\n", "SyntaxError",
     "cannot assign to literal here. Maybe you meant '==' instead of '='?", 1, 1),
    ("a + b = 1\n", "SyntaxError",
     "cannot assign to expression here. Maybe you meant '==' instead of '='?", 1, 1),
    ("x.y = 1 = 2\n", "SyntaxError", "cannot assign to literal", 1, 7),
    ("None = 1\n", "SyntaxError", "cannot assign to None", 1, 1),
    ("a if b else c = 1\n", "SyntaxError", "cannot assign to conditional expression", 1, 1),
    ("f() += 1\n", "SyntaxError",
     "'function call' is an illegal expression for augmented assignment", 1, 1),
    ("a, b += 1\n", "SyntaxError", "'tuple' is an illegal expression for augmented assignment",
     1, 1),
    ("for f() in x: pass\n", "SyntaxError", "cannot assign to function call", 1, 5),
    ("with a as f(): pass\n", "SyntaxError", "cannot assign to function call", 1, 11),
    ("del f()\n", "SyntaxError", "cannot delete function call", 1, 5),
    ("*a = 1\n", "SyntaxError", "starred assignment target must be in a list or tuple", 1, 1),
    ("a, *b, *c = x\n", "SyntaxError", "multiple starred expressions in assignment", 1, 1),
    ("x = *a\n", "SyntaxError", "can't use starred expression here", 1, 5),
    ("f(): int\n", "SyntaxError", "illegal target for annotation", 1, 1),
    ("x, y: int\n", "SyntaxError", "only single target (not tuple) can be annotated", 1, 1),
    ("x = 007\n", "SyntaxError", "leading zeros in decimal integer literals are not permitted; "
     "use an 0o prefix for octal integers", 1, 5),
    ("x = 1_\n", "SyntaxError", "invalid decimal literal", 1, 5),
    ("x = 0x\n", "SyntaxError", "invalid hexadecimal literal", 1, 5),
    ("x = 0b12\n", "SyntaxError", "invalid digit '2' in binary literal", 1, 8),
    ("x = 1 if 2\n", "SyntaxError", "expected 'else' after 'if' expression", 1, 5),
    ("x = {1: 2, 3}\n", "SyntaxError", "':' expected after dictionary key", 1, 12),
    ("f(a for a in b, c)\n", "SyntaxError", "Generator expression must be parenthesized", 1, 3),
    ("from torch import nn,\n", "SyntaxError",
     "trailing comma not allowed without surrounding parentheses", 1, 21),
    ("def f(a=1, b): pass\n", "SyntaxError", "non-default argument follows default argument",
     1, 12),
    ("def f(x, x): pass\n", "SyntaxError", "duplicate argument 'x' in function definition",
     1, 10),
    ("def f(*): pass\n", "SyntaxError", "named arguments must follow bare *", 1, 7),
    ("def f(**k, a): pass\n", "SyntaxError", "arguments cannot follow var-keyword argument",
     1, 12),
    ("f(a=1, 2)\n", "SyntaxError", "positional argument follows keyword argument", 1, 8),
    ("f(**k, *a)\n", "SyntaxError",
     "iterable argument unpacking follows keyword argument unpacking", 1, 8),
    ("f(x=1, x=2)\n", "SyntaxError", "keyword argument repeated: x", 1, 8),
    ("x = 'a' b'c'\n", "SyntaxError", "cannot mix bytes and nonbytes literals", 1, 5),
    ("x = '\\x4'\n", "SyntaxError", "(unicode error) 'unicodeescape' codec can't decode bytes "
     "in position 0-2: truncated \\xXX escape", 1, 6),
    ("return\n", "SyntaxError", "'return' outside function", 1, 1),
    ("break\n", "SyntaxError", "'break' outside loop", 1, 1),
    ("for x in y:\n    def f():\n        continue\n", "SyntaxError",
     "'continue' not properly in loop", 3, 9),
    ("nonlocal x\n", "SyntaxError", "nonlocal declaration not allowed at module level", 1, 1),
    ("x = " + "(" * 201 + "1\n", "SyntaxError", "too many nested parentheses", 1, 205),
    ("async def f():\n    pass\n", "SyntaxError", "'async' is not supported in GradScript", 1, 1),
    ("x = await y\n", "SyntaxError", "'await' is not supported in GradScript", 1, 5),
    ("x = yield\n", "SyntaxError", "'yield' is a statement in GradScript", 1, 5),
    ("yield 1\n", "SyntaxError", "'yield' outside function", 1, 1),
    ("class A:\n    yield\n", "SyntaxError", "'yield' outside function", 2, 5),
    ("try:\n    pass\nx = 1\n", "SyntaxError", "expected 'except' or 'finally' block", 3, 1),
    ("try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n", "SyntaxError",
     "default 'except:' must be last", 3, 1),
    ("try:\n    pass\nexcept A, B:\n    pass\n", "SyntaxError",
     "multiple exception types must be parenthesized", 3, 9),
    ("for i in x:\n    try:\n        pass\n    finally:\n        def f():\n            break\n",
     "SyntaxError", "'break' outside loop", 6, 13),
    ("x = 1j\n", "SyntaxError", "imaginary numbers are not supported in GradScript", 1, 5),
    ("def f(a, /): pass\n", "SyntaxError",
     "positional-only parameters ('/') are not supported in GradScript", 1, 10),
    ("x = 1 \\", "SyntaxError", "unexpected EOF while parsing", 1, 8),
])
def test_syntax_errors(src, type_name, message, line, column):
    e = error(src)
    assert (e.type_name, e.message, e.line, e.column) == (type_name, message, line, column)
    assert e.filename == "t.grad"
    assert isinstance(e, GradScriptError)


@pytest.mark.parametrize("src, hint", [
    ("x = = 1\n", "expected an expression, found '='"),
    ("x = 1 2\n", "expected an operator, ',' or the end of the line, found the number 2"),
    ("if x y:\n  pass\n", "expected an operator or ':', found the name 'y'"),
    ("import\n", "expected a name, found the end of the line"),
    ("x = (1 +)\n", "expected an expression, found ')'"),
    ("x[1:2:3:4]\n", "expected ']' or ',', found ':'"),
    ("else:\n  pass\n", "expected a statement or the end of the line, found 'else'"),
])
def test_generic_errors_say_what_was_expected_in_words(src, hint):
    e = error(src)
    assert e.message == "invalid syntax"
    assert e.hint == hint


def test_hints_never_show_lark_terminal_names():
    sources = ["x = = 1\n", "def f(:\n", "f(a,,b)\n", "x = [1, 2 3]\n", "lambda x x: 1\n",
               "class A(:\n  pass\n", "x.\n", "for in x: pass\n", "import a.b as c.d\n",
               "with: pass\n", "x = {1: }\n", "@\ndef f(): pass\n", "assert\n", "del\n"]
    terminal_names = {"NAME", "NUMBER", "STRING", "LPAR", "RPAR", "LSQB", "RSQB", "COLON",
                      "COMMA", "BINOP", "_NEWLINE", "NEWLINE", "_INDENT", "$END", "__ANON"}
    for src in sources:
        e = error(src)
        text = f"{e.message} {e.hint or ''}"
        assert not any(name in text for name in terminal_names), (src, text)
        assert "Token(" not in text and "Expected one of" not in text


def test_error_object():
    e = error("x = (1,\n")
    assert e.to_dict() == {"type": "SyntaxError", "message": "'(' was never closed",
                           "filename": "t.grad", "line": 1, "column": 5, "end_line": 1,
                           "end_column": 6, "hint": "add the missing ')'"}
    assert str(e) == "t.grad:1:5: SyntaxError: '(' was never closed (add the missing ')')"
    import pickle

    copy = pickle.loads(pickle.dumps(e))
    assert type(copy) is ScriptSyntaxError and copy.to_dict() == e.to_dict()


def test_parse_expression():
    assert parse_expression("w*x+b") == A.BinOp("+", A.BinOp("*", N("w"), N("x")), N("b"))
    assert parse_expression("f(\n  x,\n  y)") == A.Call(N("f"), [N("x"), N("y")], [])
    assert parse_expression("x\n+ 1") == A.BinOp("+", N("x"), C(1))
    with pytest.raises(ScriptSyntaxError) as info:
        parse_expression("x = 1")
    assert info.value.message == "invalid syntax" and info.value.column == 3


# =============================================================================== seeds

SEEDS = [
    # /work/shared/seeds/000: creating leaf tensors four ways
    '''# 三种设置需要自动计算梯度的方式。
import torch
import numpy as np

# 方式一
x = torch.randn(2,2, requires_grad=True)

# 方式二
x = torch.autograd.Variable(torch.Tensor([2,3]), requires_grad=True)

#方式三
x = torch.tensor([2,3], requires_grad=True, dtype=torch.float64)

# 方式四
x = np.array([1,2,3] ,dtype=np.float64)
x = torch.from_numpy(x)
x.requires_grad = True
# 或者 x.requires_grad_(True)
''',
    # /work/shared/seeds/000: from_numpy leaves and backward with a gradient
    '''import torch
import numpy as np
 
x1 = torch.from_numpy( 2*np.ones((2, 2), dtype=np.float32) )
x1.requires_grad_(True)   #设置该tensor可被记录操作用于梯度计算
w1 = torch.from_numpy( 5*np.ones((2, 2), dtype=np.float32) )
w1.requires_grad_(True)
print("x1 =", x1)
print("w1 =", w1)
 
x2 = x1 * w1
y = x2 * w2
L = Y - y
L.backward(torch.ones(2, 2, dtype=torch.float))
print(x1.grad) # 查看L对于x1的梯度
''',
    # /work/shared/seeds/002: a loss and torch.autograd.grad
    '''import torch
import torch.nn.functional as F

x = torch.ones(1)
w = torch.full([1], 2, requires_grad=True)  # 允許求導(dǎo)
b = torch.zeros(1)
y = torch.ones(1)

mse = F.mse_loss(y, x * w + b)
torch.autograd.grad(mse, [w])
''',
    # /work/shared/seeds/003: backward with grad_tensors, second order grad, accumulation
    '''import torch 


w = torch.tensor([1.],requires_grad=True) 
x = torch.tensor([2.],requires_grad=True) 

a = torch.add(x,w)
b = torch.add(w,1)
y0 = torch.mul(a,b)
y1 = torch.add(a,b)
loss = torch.cat([y0,y1],dim=0) #[y0,y1]

grad_tensors = torch.tensor([1.,2.])
loss.backward(gradient=grad_tensors)
print('output','\\n', 'x :', x,'w :', w,'a :', a,'b :', b,'y0 :', y0,'y1 :', y1,'loss :', loss)
# 查看梯度
print('grad :', 'x :', x.grad,'w :', w.grad,'a :', a.grad,'b :', b.grad,'y0 :', y0.grad,'y1 :', y1.grad,'loss :', loss.grad)

x = torch.tensor([2.0], requires_grad = True)
y = x ** 2
grad = torch.autograd.grad(y, x,create_graph=True)
grad2 = torch.autograd.grad(grad[0],x)

for i in range(4):
    a = torch.add(x,w)
    b = torch.add(w,1)
    y = torch.mul(a,b)
    y.backward()
    print(w.grad)

    # w.grad.zero_() # 清0
    
''',
    # /work/shared/seeds/003: the model and the training loop
    '''import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(10, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        return self.fc2(x)

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

for epoch in range(10):
    for inputs, labels in data_loader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_function(outputs, labels)
        loss.backward()
        optimizer.step()
for param in model.parameters(): param.grad.zero_()
''',
]


@pytest.mark.parametrize("index", range(len(SEEDS)))
def test_seed_code_examples(index):
    assert_like_cpython(SEEDS[index])


def test_seed_prose_is_a_located_error():
    """Tutorial prose pasted as code fails with CPython's message, not a crash."""
    text = (Path("/work/shared/seeds/000_160cdcb9db8362f9.txt").read_text(encoding="utf-8")
            if Path("/work/shared/seeds/000_160cdcb9db8362f9.txt").exists()
            else "1、基础知识:\n")
    e = error(text)
    assert (e.message, e.line, e.column) == ("invalid character '、' (U+3001)", 1, 2)


# =============================================================================== robustness

VALID = [TUTORIAL, *SEEDS, "x = f'{a!r:>{w}}'\n", "if x:\n\tpass\n", "x = [\n1,\n]\n"]
ALPHABET = list("abxy_019 \t\n\\'\"#()[]{}:;,.=+-*/%@&|^~<>!$?é、\x00\r") + [
    "if ", "else", "for ", " in ", "def ", "class ", "lambda", "not ", "is ", '"""', "'''",
    'f"{', "}", "return", "    ", "import ", "from ", "as ", "yield", "0x", "1e", ".5", "**",
    "->", "...", "with ", "while ", "elif ", "pass", "None", "True", "@", "rb'"]


def _check_any_text(text: str) -> None:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
    for fn in (parse, parse_expression):
        try:
            result = fn(text)
        except GradScriptError as e:
            assert e.line is not None and 1 <= e.line <= lines + 1, (text, e.line)
            assert e.column is not None and e.column >= 1, (text, e.column)
            assert e.message and isinstance(e.message, str)
        else:
            assert isinstance(result, A.Module if fn is parse else A.Expr)


@settings(derandomize=True, max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join) | st.text(max_size=30))
def test_any_text_gives_a_module_or_a_located_error(text):
    _check_any_text(text)


@st.composite
def mutated_programs(draw):
    text = list(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(text)))
        kind = draw(st.integers(0, 3))
        if kind == 0 and text:
            del text[min(pos, len(text) - 1)]
        elif kind == 1:
            text.insert(pos, draw(st.sampled_from(ALPHABET)))
        elif kind == 2 and text:
            text[min(pos, len(text) - 1)] = draw(st.sampled_from(ALPHABET))
        else:
            start = draw(st.integers(0, len(text)))
            text[start:start] = text[pos:pos + draw(st.integers(1, 8))]
    return "".join(text)


@settings(derandomize=True, max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(mutated_programs())
def test_mutated_programs_give_a_module_or_a_located_error(text):
    _check_any_text(text)
    # GradScript is a subset of Python: what gradcli accepts, CPython accepts, with the same tree
    try:
        mine = parse(text)
    except GradScriptError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = FromCPython(text.replace("\r\n", "\n").replace("\r", "\n"))(pyast.parse(text))
    assert typed(mine) == typed(ref)


def test_deep_nesting_does_not_crash():
    assert isinstance(parse("x = " + "-" * 5000 + "1\n"), A.Module)
    assert isinstance(parse("x = " + " + ".join(["a"] * 5000) + "\n"), A.Module)
    assert isinstance(parse("x = a" + ".b" * 5000 + "\n"), A.Module)
    assert isinstance(parse("x = 2" + " ** 2" * 3000 + "\n"), A.Module)
    assert error("x = " + "[" * 300 + "\n").message == "too many nested parentheses"


def test_line_endings_and_odd_input():
    assert parse("x = 1\r\ny = 2\r\n").body == parse("x = 1\ny = 2\n").body
    assert parse("\ufeffx = 1").body == [A.Assign([N("x")], C(1))]
    assert parse("").body == [] and parse("\n\n# only a comment").body == []
    assert parse("x = 1  # trailing comment").body == [A.Assign([N("x")], C(1))]
    assert error("x = 1\x00\n").message == "source code string cannot contain null bytes"


# =============================================================================== the parser object

def test_the_lark_parser_is_built_once_and_cached():
    assert P._lark() is P._lark()
    assert P.grammar_path().name == "gradscript.lark"
    assert P.grammar_path() == ROOT / "grammar" / "gradscript.lark" or \
        P.grammar_path().parent.name == "grammar"


def _run_fresh(code: str, env: dict) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full_env, timeout=120)


def test_start_up_uses_the_cache_and_survives_an_unwritable_cache(tmp_path):
    code = ("import sys\nfrom gradcli.lang.parser import parse\n"
            "print(parse('x = 1\\n').body[0].targets[0].id, 'lark.lark' in sys.modules)")
    cache = tmp_path / "cache"
    first = _run_fresh(code, {"XDG_CACHE_HOME": str(cache)})
    assert first.stdout.split() == ["x", "True"], first.stderr  # built with Lark
    assert list((cache / "gradcli").glob("gradscript-*-tables-*.marshal"))
    assert not list((cache / "gradcli").glob("*.cache"))  # (Lark's own cache is a pickle: never written)
    second = _run_fresh(code, {"XDG_CACHE_HOME": str(cache)})
    assert second.stdout.split() == ["x", "False"], second.stderr  # loaded, not rebuilt
    assert second.stderr == ""

    blocked = tmp_path / "blocked"
    blocked.write_text("a file where a folder should be")
    third = _run_fresh(code, {"XDG_CACHE_HOME": str(blocked), "HOME": str(blocked),
                              "TMPDIR": str(blocked)})
    assert third.returncode == 0 and third.stdout.startswith("x "), third.stderr
    assert third.stderr == ""
