"""The one description of GradScript's statements (gradcli/lang/statements.py): every statement node
is described, and the three walkers of the statement tree (the parser's context checks, the scope
analysis, the compiler's dispatch) follow the description, so a statement added there alone is
checked, scoped and dispatched. The keyword tables (lang/keywords.py) agree with the grammar."""
from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.lang import ast as A
from gradcli.lang import grammar, keywords, parser, scopes, statements
from gradcli.lang.builder import BUILDER, install_reducers, node_reducer
from gradcli.lang.compiler import Compiler
from gradcli.lang.tokens import Token
from gradcli.lang.errors import GradScriptError
from gradcli.lang.statements import STATEMENTS, lowerings

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
    """A statement the language does not have: `again n as i: body` (for the test only)."""
    _fields = ("count", "var", "body")
    statement = A.Statement("s_test_only_repeat", rule="again_stmt", blocks=("body",), loop=True, binds=("var",))

    def __init__(self, count, var, body):
        A.Stmt.__init__(self)  # the span: 0s
        self.count, self.var, self.body = count, var, body


class ScratchCompiler(Compiler):
    def s_test_only_repeat(self, node, scope):  # pragma: no cover - only looked up
        return None


@pytest.fixture
def repeat_described(monkeypatch):
    monkeypatch.setitem(STATEMENTS, Repeat, Repeat.statement)


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


def test_descriptions_are_the_node_classes_own():
    for t, d in STATEMENTS.items():
        assert t.__dict__["statement"] is d and d.node is t
    assert Repeat.statement.node is Repeat  # (set as the class is made)


def test_the_rules_a_description_names_are_built_by_the_generic_reducer():
    text = parser.grammar_path().read_text()
    named = [d for d in STATEMENTS.values() if d.rule]
    assert {d.node for d in named} >= {A.Pass, A.Break, A.Continue, A.Assert, A.Raise, A.While}
    for d in named:
        assert re.search(r"^%s:" % d.rule, text, re.M), d.rule  # a rule of the grammar
        assert getattr(BUILDER, d.rule).__qualname__ == "node_reducer(%s)" % d.node.__name__
        assert d.rule not in type(BUILDER).__dict__  # (a reducer of its own would be a second home)
    # its node: the fields in order, keywords left out, a NAME as its identifier, spanning the children
    reduce = node_reducer(Repeat)
    tok = Token("AGAIN", "again", 0, 2, 5, 2, 10, 0)
    body = [parser.parse("pass\npass\n").body[1]]
    node = reduce([tok, A.Constant(3), Token("NAME", "i", 0, 2, 14, 2, 15, 0), body])
    assert (node.count, node.var, node.body) == (A.Constant(3), "i", body)
    assert (node.line, node.column, node.end_line, node.end_column) == (2, 5, 2, 5)
    with pytest.raises(TypeError, match="both a reducer"):
        class Twice:
            def pass_stmt(self, c):  # pragma: no cover - only looked up
                return c
        install_reducers(Twice())


def _statement_rules(text):
    """The rules the grammar lists as statements (the alternatives of small_stmt and compound_stmt)."""
    out = set()
    for head in ("?small_stmt:", "?compound_stmt:"):
        if head not in text:
            continue
        first, *rest = text.split(head, 1)[1].split("\n")
        lines = [first] + [line for line in itertools.takewhile(lambda x: x.lstrip().startswith("|"), rest)]
        out.update(re.findall(r"\w+", " ".join(lines)))
    return out


def _with_statement(rules, name="again_stmt"):
    """The grammar with ``rules`` added and the rule ``name`` one more alternative of compound_stmt."""
    lines = parser.grammar_path().read_text().split("\n")
    end = next(i for i, line in enumerate(lines) if line.startswith("?compound_stmt:")) + 1
    while lines[end].lstrip().startswith("|"):
        end += 1
    return "\n".join(lines[:end] + ["              | " + name] + lines[end:] + rules.strip().split("\n"))


def _unbuilt_rules(text):
    """The statement rules of a grammar that nothing builds: no reducer of the builder is named after
    them and no `// @statement` line of the grammar declares them."""
    declared = {d.rule for d in grammar.declarations(text)}
    return sorted(r for r in _statement_rules(text) if not hasattr(BUILDER, r) and r not in declared)


def test_every_statement_rule_has_a_builder():
    """A statement rule is built by a reducer named after it or by the node class whose description
    names it (else Lark's default would put a parse tree in the statement list)."""
    rules = _statement_rules(parser.grammar_path().read_text())
    assert {"pass_stmt", "while_stmt", "if_stmt", "decorated", "yield_stmt", "expr_stmt"} <= rules
    assert not [r for r in rules if not hasattr(BUILDER, r)]
    assert _unbuilt_rules(parser.grammar_path().read_text()) == []
    assert "again_stmt" in _statement_rules(_with_statement(SCRATCH_STATEMENT)) and not hasattr(BUILDER, "again_stmt")


SCRATCH_STATEMENT = """
again_stmt: AGAIN test "as" NAME ":" suite
AGAIN: "again"
"""


def test_a_statement_is_a_grammar_rule_and_a_described_node(repeat_described):
    """The statement recipe's first two stages, for real: the grammar's rule and terminal, and the node
    class whose description names the rule, parse `again 3 as i:` into the node (with no reducer
    written), its keyword in the keyword tables; the parser's checks and scopes follow the description."""
    lark = pytest.importorskip("lark")
    from gradcli.lang.lalr import Driver, table_data
    from gradcli.lang.tokenizer import ParseState, ScanTables, scan_data, tokenize

    builder = type(BUILDER)()
    install_reducers(builder)  # (BUILDER got its reducers when Repeat was not described yet)
    built = lark.Lark(_with_statement(SCRATCH_STATEMENT), parser="lalr", lexer=parser.GradLexer,
                      postlex=parser.GradIndenter(), transformer=builder, start=["module", "eval_input"],
                      maybe_placeholders=False)
    scan = ScanTables(scan_data(built.parser.lexer.lexer))
    driver = Driver(table_data(built.parser.parser.parser, builder), builder)
    source = "x = 0\nagain 3 as i:\n    x += i\n    break\n"
    module = driver.parse(tokenize(source, ParseState(), scan), "module")
    node = module.body[1]
    assert type(node) is Repeat and (node.count, node.var) == (A.Constant(3), "i") and len(node.body) == 2
    assert (node.line, node.column, node.end_line, node.end_column) == (2, 1, 4, 10)
    assert "again" in scan.keywords["NAME"]
    parser.check_statement_context(node)  # break stands in its (loop) body
    assert scopes.bound_names(module.body)[0] == {"x", "i"}


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
    """The keywords the grammar's text spells: named terminals (IF: "if") and words quoted in rules."""
    text = (ROOT / "grammar" / "gradscript.lark").read_text()
    named = set(re.findall(r'^[A-Z]+: "([A-Za-z]+)"$', text, re.M))
    quoted = set(re.findall(r'"([A-Za-z]+)"', text))
    return named, quoted


def _statement_keywords(kw):
    return {w for w, t in kw.words.items() if t in kw.statement_start}


def test_keyword_tables_are_the_grammars():
    kw = parser.keyword_tables()
    named, quoted = _grammar_keywords()
    text = parser.grammar_path().read_text()
    assert set(kw.words) == named | quoted
    assert all(kw.words[w] == w.upper() for w in named)
    assert set(kw.keywords) | set(kw.reserved) | set(kw.constants) == set(kw.words)
    # what the rules say of them (the header rules hold a suite; the clauses are not statements): the
    # language's own, and any statement added since (the grammar's lines of a rule with a suite)
    with_suite = {w for w in kw.words if re.search(r'^\w+: (?:%s\b|"%s").*\bsuite\b' % (w.upper(), w), text, re.M)}
    assert set(kw.block_headers) == with_suite >= {"if", "elif", "else", "while", "for", "with", "def", "class",
                                                   "try", "except", "finally"}
    assert set(kw.continuation_headers) == {"elif", "else", "except", "finally"}
    assert _statement_keywords(kw) >= {"if", "for", "while", "with", "def", "class", "try", "return", "pass",
                                       "break", "continue", "import", "from", "assert", "del", "global",
                                       "nonlocal", "raise", "yield"}
    assert not _statement_keywords(kw) & {"else", "in", "as", "not", "lambda", "None"}
    assert kw.statement_start == kw.terminals(_statement_keywords(kw)) | {"AT"}
    assert kw.expression_start >= {"NAME", "NUMBER", "STRING", "LPAR", "LSQB", "LBRACE", "MINUS", "PLUS", "TILDE",
                                   "NOT", "LAMBDA", "NONE", "TRUE", "FALSE", "ELLIPSIS"}
    assert not kw.expression_start & (kw.statement_start | kw.terminals(kw.reserved) | {"STAR", "IF", "ELSE"})
    assert set(kw.reserved) == {"async", "await"} and set(kw.reserved) <= set(keywords.PYTHON_ONLY)
    assert kw.constants == ("False", "None", "True")


SCRATCH_RULES = """
again_stmt: AGAIN test ":" suite otherwise_clause?
otherwise_clause: "otherwise" ":" suite
AGAIN: "again"
"""


def _scratch_keywords(grammar: str) -> keywords.Keywords:
    """The keyword tables derive() makes of a grammar, as the parse-table build does."""
    lark = pytest.importorskip("lark")
    built = lark.Lark(grammar, parser="lalr", lexer="basic", start=["module", "eval_input"],
                      maybe_placeholders=False)
    words = {t.pattern.value: t.name for t in built.terminals
             if t.pattern.type == "str" and re.fullmatch(r"[^\W\d]\w*", t.pattern.value)}
    rules = [(r.origin.name, [s.name for s in r.expansion], r.alias) for r in built.rules]
    return keywords.Keywords(keywords.derive(rules, words))


def test_a_statement_added_to_the_grammar_enters_the_keyword_tables():
    """The statement recipe's grammar step is the only keyword step: a rule and its terminal make
    `again` a block header, a statement keyword and a keyword (highlighting, completion), and a
    clause of it a continuation header, with nothing else to edit."""
    grammar = _with_statement(SCRATCH_RULES)
    assert "again" not in parser.keyword_tables().words
    before, after = parser.keyword_tables(), _scratch_keywords(grammar)
    assert set(after.block_headers) == set(before.block_headers) | {"again", "otherwise"}
    assert set(after.continuation_headers) == set(before.continuation_headers) | {"otherwise"}
    assert _statement_keywords(after) == _statement_keywords(before) | {"again"}
    assert set(after.keywords) == set(before.keywords) | {"again", "otherwise"}
    assert after.words["again"] == "AGAIN" and after.reserved == before.reserved


def test_the_parse_table_cache_is_keyed_by_the_code_that_derives_the_tables(monkeypatch, tmp_path):
    """The keyword tables are cached with the parse tables: the cache file's name changes with the
    code that makes them (keywords.py), as it does with the grammar, lalr.py and tokenizer.py."""
    text = parser.grammar_path().read_text()
    name = parser.tables_file(text)
    if name is None:
        pytest.skip("no writable cache folder")
    edited = tmp_path / "keywords.py"
    edited.write_text(Path(keywords.__file__).read_text() + "# edited\n")
    monkeypatch.setattr(keywords, "__file__", str(edited))
    assert parser.tables_file(text) != name


def test_the_cached_tables_bind_the_builders_reducers_by_name_when_they_load():
    """The parse-table cache holds no reducer: the table data made with the builder names each rule's
    callback, and the driver binds the callback of that name when it loads the data, so the cache
    need not change with the builder (a reducer written, a description's rule added)."""
    lark = pytest.importorskip("lark")
    from gradcli.lang.lalr import Driver, table_data
    from gradcli.lang.tokenizer import ParseState, tokenize

    built = lark.Lark(parser.grammar_path().read_text(), parser="lalr", lexer=parser.GradLexer,
                      postlex=parser.GradIndenter(), transformer=BUILDER, start=["module", "eval_input"],
                      maybe_placeholders=False)
    data = table_data(built.parser.parser.parser, BUILDER)  # what the cache holds (as plain data)
    builder = type(BUILDER)()
    install_reducers(builder)
    builder.pass_stmt = lambda c: A.Continue()  # (a reducer of this builder's own)
    module = Driver(data, builder).parse(tokenize("pass\nwhile x:\n    pass\n", ParseState(), parser.fast_parser()[1]),
                                         "module")
    assert module.body == [A.Continue(), A.While(A.Name("x"), [A.Continue()])]


def test_no_other_copy_of_the_keyword_tables():
    """Keyword lists are spelt in the grammar only: no module of gradcli holds a literal sequence of
    three or more of the statement keywords."""
    kw = parser.keyword_tables()
    words = _statement_keywords(kw) | set(kw.block_headers)
    literal = re.compile(r'["\'](%s)["\']' % "|".join(sorted(words)))
    offenders = []
    for path in (ROOT / "gradcli").rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if len(set(literal.findall(line))) >= 3:
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


# ---------------------------------------------------------------- the statement recipe, for real

# docs/architecture.md's "How to add / A statement", made in a scratch copy of the package: a
# `repeat N:` loop. Step 1, the grammar (old text -> new text); step 2, the lowering (loops.py's mixin).
RECIPE_GRAMMAR = {
    "alternative": ("?compound_stmt: if_stmt", "?compound_stmt: repeat_stmt | if_stmt"),
    "declaration": ("\nif_stmt:", "\n// @statement Repeat(count, body) blocks=body loop\nif_stmt:"),
    "rule": ("\nif_stmt:", '\nrepeat_stmt: REPEAT test ":" suite\nif_stmt:'),
    "terminal": ('\nIF: "if"', '\nREPEAT: "repeat"\nIF: "if"'),
}
RECIPE_LOWERING = """
    def s_repeat(self, node, scope):
        count = self.expr(node.count, scope)
        body = self.block(node.body, scope)
        rt = self.rt

        def repeat_(frame):
            for _ in range(count(frame)):
                rt.budget -= 1
                if rt.budget < 0:
                    rt.refill()
                r = body(frame)
                if r is BREAK:
                    return None
                if r is not None and r is not CONTINUE:
                    return r
            return None
        return repeat_

    def g_repeat(self, node, scope):
        count = self.expr(node.count, scope)
        body = self.gen_block(node.body, scope)
        rt = self.rt

        def repeat_(frame):
            for _ in range(count(frame)):
                rt.budget -= 1
                if rt.budget < 0:
                    rt.refill()
                r = yield from body(frame)
                if r is BREAK:
                    return None
                if r is not None and r is not CONTINUE:
                    return r
            return None
        return repeat_
"""
RECIPE_FILES = ("grammar/gradscript.lark", "gradcli/lang/loops.py")


def _recipe_grammar(text, leave_out=()):
    for step, (old, new) in RECIPE_GRAMMAR.items():
        if step not in leave_out:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
    return text


def _with_lowering(text):
    head = text.index("class LoopCompiler")
    at = text.index("\n    def ", head)
    return text[:at] + "\n" + RECIPE_LOWERING.strip("\n").join(["", "\n"]) + text[at:]


def _recipe_steps():
    """docs/architecture.md's statement recipe: its numbered steps, and the files each names."""
    doc = (ROOT / "docs" / "architecture.md").read_text()
    section = doc.split("### A statement", 1)[1].split("\n### ", 1)[0]
    steps = re.findall(r"^\d+\. (.*(?:\n(?!\d+\. |\S).*)*)", section, re.M)
    return section, [re.findall(r"`((?:grammar|gradcli)/[\w/]+\.\w+)`", step) for step in steps]


def test_the_statement_recipe_is_the_documented_files():
    """The recipe in the docs is two steps of one file each (the grammar; the lowering in the compiler or
    its mixin), and the scratch statement below edits exactly those files."""
    section, files = _recipe_steps()
    assert len(files) == 2 and "two files" in section
    assert files[0] == ["grammar/gradscript.lark"]
    assert "gradcli/lang/compiler.py" in files[1] and RECIPE_FILES[1] in files[1]
    assert RECIPE_FILES[0] == files[0][0]
    for path in RECIPE_FILES:
        assert (ROOT / path).is_file()


_SCRATCH_RUN = r"""
import json
from gradcli.lang import parser, ast
from gradcli.lang.runner import run_source
from gradcli.lang.errors import GradScriptError

def outcome(src):
    r = run_source(src)
    return [r.ok, "".join(o.text for o in r.outputs), r.error and r.error.message]

def error(src):
    try:
        parser.parse(src)
    except GradScriptError as e:
        return e.message

script = ("n = 0\nREPEAT 4:\n    n += 1\n    if n == 3:\n        break\n    print(n)\nprint(n)\n"
          "def g(k):\n    REPEAT k:\n        yield k\n        continue\nprint(list(g(2)))\n")
print(json.dumps({
    "repeat": outcome(script.replace("REPEAT", "repeat")),
    "for": outcome(script.replace("REPEAT 4", "for _ in range(4)").replace("REPEAT k", "for _ in range(k)")),
    "class": [ast.Repeat.__module__, ast.Repeat._fields, ast.Repeat.statement.loop],
    "header": "repeat" in parser.keyword_tables().block_headers,
    "indent": error("repeat 2:\nx = 1\n"),
    "return": error("repeat 2:\n    return 1\n"),
}))
"""


def _scratch_run(root, code):
    env = {**os.environ, "PYTHONPATH": str(root), "XDG_CACHE_HOME": str(root / "cache")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, env=env,
                          timeout=300)


def test_the_statement_recipe_for_real(tmp_path):
    """A `repeat N:` statement made by the recipe's two files in a scratch copy of the package runs as
    the same loop written with `for` does (break, continue, a yield in it), is a block header of the
    keyword tables, and the parser's checks see its body; with its lowering left out the package does not
    import, naming the method."""
    pytest.importorskip("lark")  # (the scratch grammar's parse tables are built with it)
    shutil.copytree(ROOT / "gradcli", tmp_path / "gradcli", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "grammar", tmp_path / "grammar")
    lark_file, loops_file = (tmp_path / p for p in RECIPE_FILES)
    lark_file.write_text(_recipe_grammar(lark_file.read_text()))
    loops = loops_file.read_text()
    loops_file.write_text(_with_lowering(loops))
    proc = _scratch_run(tmp_path, _SCRATCH_RUN)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = __import__("json").loads(proc.stdout.splitlines()[-1])
    assert got["repeat"] == got["for"] and got["repeat"] == [True, "1\n2\n3\n[2, 2]\n", None]
    assert got["class"] == ["gradcli.lang.ast", ["count", "body"], True]
    assert got["header"] is True
    assert got["indent"] == "expected an indented block after 'repeat' statement on line 1"
    assert got["return"] == "'return' outside function"
    loops_file.write_text(loops)  # the lowering left out
    proc = _scratch_run(tmp_path, "import gradcli.lang.compiler")
    assert proc.returncode != 0 and "s_repeat" in proc.stderr


def _scratch_rules(text):
    lark = pytest.importorskip("lark")
    return lark.Lark(text, parser="lalr", lexer="basic", start=["module", "eval_input"],
                     maybe_placeholders=False).rules


def test_each_step_of_the_statement_recipe_left_out_fails():
    """The recipe's grammar step in full passes the checks that the parse-table build and this file run;
    each part of it left out fails one of them: the `// @statement` line (a statement rule nothing builds),
    the rule's place among the statements (grammar.check), the rule or its terminal (Lark), a field list
    that does not fit the rule (grammar.check); the lowering left out fails the compiler's dispatch."""
    text = parser.grammar_path().read_text()
    full = _recipe_grammar(text)
    grammar.check(grammar.declarations(full), _scratch_rules(full))
    assert _unbuilt_rules(full) == []
    assert _unbuilt_rules(_recipe_grammar(text, ["declaration"])) == ["repeat_stmt"]
    no_alternative = _recipe_grammar(text, ["alternative"])
    with pytest.raises(grammar.GrammarDeclarationError, match="repeat_stmt is not a statement"):
        grammar.check(grammar.declarations(no_alternative), _scratch_rules(no_alternative))
    for step in ("rule", "terminal"):
        with pytest.raises(Exception, match="REPEAT|repeat_stmt"):
            _scratch_rules(_recipe_grammar(text, [step]))
    grammar.check(grammar.declarations(full.replace("Repeat(count, body)", "Repeat(count, *body)")), _scratch_rules(full))
    for fields in ("count", "count, body, orelse", "count=None, body", "count, body, extra, *rest"):
        bad = full.replace("Repeat(count, body)", "Repeat(%s)" % fields)
        with pytest.raises(grammar.GrammarDeclarationError, match="Repeat"):
            grammar.check(grammar.declarations(bad), _scratch_rules(bad))
    # the lowering: the description names s_repeat and g_repeat, which the compiler must have
    decl = [d for d in grammar.declarations(full) if d.name == "Repeat"]
    node = A.declared_class(decl[0])
    assert (node.statement.lower, node.statement.gen, node.statement.loop) == ("s_repeat", "g_repeat", True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(STATEMENTS, node, node.statement)
        for attr in ("lower", "gen"):
            with pytest.raises(AttributeError, match="_repeat"):
                lowerings(Compiler, attr)


def test_the_grammar_declarations_are_read_as_written():
    """The `// @statement` lines of the real grammar make the classes ast.py has (fields and defaults,
    the description's words), and a line that cannot be read is an error that names it."""
    decls = {d.name: d for d in grammar.declarations(parser.grammar_path().read_text())}
    assert set(decls) == {"Pass", "Break", "Continue", "Assert", "Raise", "While", "Import", "Global", "Nonlocal"}
    for name, d in decls.items():
        cls = getattr(A, name)
        assert cls.__module__ == A.__name__ and cls.statement.rule == d.rule and name in A.__all__
        assert cls._fields == tuple(f for f, _ in d.fields)
    assert A.While([], [A.Pass()]).orelse == [] and A.While(1, 2).orelse is not A.While(1, 2).orelse
    assert A.Raise() == A.Raise(None, None) and A.Assert(A.Name("x")).msg is None
    assert A.Break.statement.only_in == ("loop", "'break' outside loop",
                                         "break can only be used in the body of a for or while loop")
    assert A.Continue.statement.only_in[1] == "'continue' not properly in loop"
    assert A.Nonlocal.statement.only_in == ("function", "nonlocal declaration not allowed at module level", None)
    assert (A.Global._fields, A.Global.statement.rest, A.Global.statement.declares) == (("names",), True, "global")
    assert (A.Import.statement.binds, A.Import.statement.rest, A.Assert.statement.rest) == (("names",), True, False)
    assert (A.While.statement.blocks, A.While.statement.loop, A.While.statement.gen) == (("body", "orelse"), True,
                                                                                        "g_while")
    for line, message in [("Odd(a b) loop", "field"), ("Odd(a=None, b) loop", "field"), ("Odd(*a, b)", "field"),
                          ("Odd(*a=[])", "field"), ("Odd(a) sometimes", "option"),
                          ("Odd(a) only_in=loop", "error="), ('Odd(a) "x"', "quoted"), ("Odd(a) hint=\"h\"", "only_in"),
                          ("Odd(a) scope=module", "option"), ("Odd a", "cannot read")]:
        with pytest.raises(grammar.GrammarDeclarationError, match=message):
            grammar.declarations("x\n// @statement %s\nodd_stmt: ODD\n" % line)
    assert grammar.declarations("x\n// @statement Odd(a, b=None, *c)\nodd_stmt: ODD\n")[0].fields == \
        (("a", None), ("b", "None"), ("c", "*"))
    extra = grammar.declarations('x\n// @statement Odd(a, b=[]) binds=a lower=s_other declares=global only_in=function '
                                 'error="no" hint="a hint"\nodd_stmt: ODD\n')[0]
    assert (extra.rule, extra.fields) == ("odd_stmt", (("a", None), ("b", "[]")))
    assert extra.options == {"binds": ("a",), "lower": "s_other", "declares": "global",
                             "only_in": ("function", "no", "a hint")}
