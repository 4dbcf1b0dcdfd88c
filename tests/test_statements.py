"""The one description of GradScript's statements (gradcli/lang/statements.py): every statement node
is described, and the three walkers of the statement tree (the parser's context checks, the scope
analysis, the compiler's dispatch) follow the description, so a statement added there alone is
checked, scoped and dispatched. The keyword tables (lang/keywords.py) agree with the grammar."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradcli.lang import ast as A
from gradcli.lang import keywords, parser, scopes, statements
from gradcli.lang.compiler import Compiler
from gradcli.lang.errors import GradScriptError
from gradcli.lang.statements import STATEMENTS, Statement, lowerings

ROOT = Path(__file__).resolve().parent.parent


def _subclasses(cls):
    out, todo = set(), [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__ == A.__name__:
                out.add(sub)
                todo.append(sub)
    return out


def test_every_statement_node_is_described():
    assert set(STATEMENTS) == _subclasses(A.Stmt)
    for t, d in STATEMENTS.items():
        assert d.node is t
        for path in d.blocks + d.binds:
            assert path.split(".")[0] in t._fields, (t, path)


def test_dispatch_is_the_description():
    assert Compiler._STMT == {t: getattr(Compiler, d.lower) for t, d in STATEMENTS.items() if d.lower}
    assert Compiler._GEN_STMT == {t: getattr(Compiler, d.gen) for t, d in STATEMENTS.items() if d.gen}
    # a yield may stand in any block, so a statement with blocks has a generator lowering
    assert all(d.gen for d in STATEMENTS.values() if d.blocks)
    assert A.Yield not in Compiler._STMT and A.Yield in Compiler._GEN_STMT


class Repeat(A.Stmt):
    """A statement the language does not have: `repeat n as i: body` (for the test only)."""
    _fields = ("count", "var", "body")

    def __init__(self, count, var, body):
        A.Stmt.__init__(self)  # the span: 0s
        self.count, self.var, self.body = count, var, body


class ScratchCompiler(Compiler):
    def s_test_only_repeat(self, node, scope):  # pragma: no cover - only looked up
        return None


@pytest.fixture
def repeat_described(monkeypatch):
    monkeypatch.setitem(STATEMENTS, Repeat, Statement(Repeat, "s_test_only_repeat", blocks=("body",), loop=True,
                                                      binds=("var",)))


def _repeat(*body):
    return Repeat(A.Constant(3), "i", list(body))


def test_a_described_statement_is_checked_scoped_and_dispatched(repeat_described):
    # the parser's context checks: its body is a loop body, so break stands there, return does not
    parser.check_statement_context(_repeat(A.Break()))
    with pytest.raises(GradScriptError, match="'return' outside function"):
        parser.check_statement_context(_repeat(A.Return(None)))
    # the scope analysis: it binds its variable, and the names bound in its body are the scope's
    body = [_repeat(A.Assign([A.Name("y")], A.Constant(1)), A.Global(["g"]))]
    assert scopes.bound_names(body) == ({"i", "y"}, {"g"}, set())
    assert statements.contains_yield([_repeat(A.Yield(None, False))])
    # the compiler's dispatch
    assert lowerings(ScratchCompiler, "lower")[Repeat] is ScratchCompiler.s_test_only_repeat
    with pytest.raises(AttributeError):
        lowerings(Compiler, "lower")


def test_context_checks_follow_the_description():
    def check(src):
        parser.parse(src)

    check("def f():\n    while x:\n        if y:\n            break\n    return 1\n")
    for src, message in [
        ("for i in x:\n    pass\nelse:\n    break\n", "'break' outside loop"),
        ("while x:\n    def f():\n        continue\n", "'continue' not properly in loop"),
        ("def f():\n    class C:\n        return 1\n", "'return' outside function"),
        ("try:\n    pass\nexcept E:\n    yield 1\n", "'yield' outside function"),
        ("with m:\n    nonlocal x\n", "nonlocal declaration not allowed at module level"),
    ]:
        with pytest.raises(GradScriptError, match=re.escape(message)):
            check(src)


def test_bound_names_follow_the_description():
    module = parser.parse(
        "import torch.nn as nn, numpy\nfrom m import a, b as c\nfrom n import *\nx, (y, *z) = 1\nw += 1\nv: int = 2\n"
        "for i, j in q:\n    del k\nwith m as (p, r), n:\n    pass\ntry:\n    pass\nexcept E as e:\n"
        "    global g\nelse:\n    nonlocal h\nfinally:\n    s = 1\ndef f():\n    inner = 1\nclass C:\n    pass\n",
        check_context=False)
    names, globals_, nonlocals = scopes.bound_names(module.body)
    assert names == {"nn", "numpy", "a", "c", "x", "y", "z", "w", "v", "i", "j", "k", "p", "r", "e", "s",
                     "f", "C"}
    assert (globals_, nonlocals) == ({"g"}, {"h"})


def _grammar_keywords():
    text = (ROOT / "grammar" / "gradscript.lark").read_text()
    return set(re.findall(r'^[A-Z]+: "([A-Za-z]+)"$', text, re.M)), set(re.findall(r'"([A-Za-z]+)"', text))


def test_keyword_tables_are_the_grammars():
    terminals, quoted = _grammar_keywords()
    ours = set(keywords.KEYWORDS) | set(keywords.RESERVED) | set(keywords.CONSTANTS)
    assert terminals <= ours  # every keyword terminal of the grammar is in the one table
    assert ours <= quoted  # and every word of the table is a word of the grammar
    assert set(keywords.BLOCK_HEADERS) <= quoted and set(keywords.CONTINUATION_HEADERS) <= set(keywords.BLOCK_HEADERS)


def test_no_other_copy_of_the_keyword_tables():
    """Keyword lists are spelt in lang/keywords.py only: no other module of gradcli holds a literal
    sequence of three or more of the statement keywords."""
    words = set(keywords.STATEMENT_KEYWORDS) | set(keywords.BLOCK_HEADERS)
    literal = re.compile(r'["\'](%s)["\']' % "|".join(sorted(words)))
    offenders = []
    for path in (ROOT / "gradcli").rglob("*.py"):
        if path.name == "keywords.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if len(set(literal.findall(line))) >= 3:
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
