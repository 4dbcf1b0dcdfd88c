"""csrc/scan.c, the C form of gradcli/lang/tokenizer.py's tokenize for long texts (tokenizer.stream): the
same tokens (class, text, type, value, the six positions) as the Python scan, the reference, over every
.grad file of the repository and over fuzzed texts, or None exactly where the Python scan raises (its
error then comes from the Python scan, in its place in the stream); used only for the grammar's own
master regex, only from tokenizer.NATIVE_FROM characters, never under GRADCLI_NATIVE=0. csrc/lalr.c, the
C form of lalr.Driver.parse's loop over such a list: a long text's tree (every span) or error is the
same with either scan and either loop, and tables of another shape are refused, not read astray."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from gradcli import native
from gradcli.lang import ast as A
from gradcli.lang import lalr, parser, tokenizer
from gradcli.lang.errors import ScriptSyntaxError
from gradcli.lang.tokenizer import ParseState, tokenize
from gradcli.lang.tokens import Token

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for folder in ("samples", "tests/golden/scripts", "tests/tutorial_corpus", "bench")
               for p in (ROOT / folder).rglob("*.grad"))
SLOTS = ("type", "value", "start_pos", "line", "column", "end_line", "end_column", "end_pos")


@pytest.fixture
def scan(native_module):
    native_module("scan")
    tables = parser.fast_parser()[1]
    found = tokenizer.native_scan(tables)
    assert found is not None, "csrc/scan.c is built but not for this grammar's master regex (tokenizer.scan_data)"
    keywords = tables.keywords.get("NAME", {})
    return lambda text, expr_mode: found(text, expr_mode, tokenizer._TOKEN_SLOTS, keywords)


def _key(tok):
    return (type(tok), str(tok), type(tok.value)) + tuple(getattr(tok, name) for name in SLOTS)


def _python(text, expr_mode):
    """The Python scan's tokens, and its error (None when it finished)."""
    out = []
    try:
        for tok in tokenize(text, ParseState(expr_mode), parser.fast_parser()[1]):
            out.append(tok)
    except Exception as exc:  # noqa: BLE001 - ScriptSyntaxError or Lark's UnexpectedCharacters
        return out, exc
    return out, None


def _same(scan, text):
    """Both modes: the C tokens are the Python ones, or C gives None where Python raises. The outcome."""
    outcomes = []
    for expr_mode in (False, True):
        got = scan(text, expr_mode)
        want, exc = _python(text, expr_mode)
        if got is None:
            assert exc is not None, (text, expr_mode, "the C scan stopped where the Python scan did not")
            outcomes.append("python")
            continue
        assert exc is None, (text, expr_mode, exc)
        assert [_key(t) for t in got] == [_key(t) for t in want], (text, expr_mode)
        outcomes.append("c")
    return outcomes


def test_every_grad_file_scans_the_same(scan):
    assert len(FILES) > 1000
    counts = {"c": 0, "python": 0}
    for path in FILES:
        for outcome in _same(scan, parser._normalize(path.read_text(encoding="utf-8"))):
            counts[outcome] += 1
    assert counts["c"] > 0.99 * 2 * len(FILES), counts  # the Python scan only for the few files that fail


PIECES = [
    "x", "abc", "_y1", "if", "else", "None", "lambda", "r", "b", "f", "rb", "Br", "u", "fR", "ur", "é", "ñame", "变量",
    "٣", "²", "x٣", "0", "1", "0x", "0x1f", "0o7", "0b1", "0b2", "1_0", "1__0", "1.", ".5", "1e5", "1e", "1e+", "1E-3",
    "3j", "1.5J", "0x_a", "0x1j", "0b1e5", "_1", "'", '"', "'''", '"""', "\\", "\\\n", "\n", "\n    ", "\n\t",
    "\n \t", "\n\f ", "\f", "\t", " ", "  ", "#", "# c\n", "(", ")", "[", "]", "{", "}", ",", ";", ":", ":=", ".", "..",
    "...", "=", "==", "!", "!=", "<", "<<", "<<=", "<=", ">", ">>=", "*", "**", "**=", "*=", "/", "//", "//=", "/=",
    "%", "%=", "@", "@=", "&", "&=", "|", "^=", "~", "-", "->", "-=", "+", "+=", "$", "?", "`", "\x00", "\u2028",
    "\u3000", "\ufeff", "'a b'", '"q\\"q"', "'''x\ny'''", "'''a''''", "f'{x}'", "r'\\'", "\\x", "'\\\n'", "def f():\n    ",
    "for i in range(3):\n", "    pass\n", "\n  ", "\n        ", "\n\t\t", "\n" + " " * 9,
]


@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_texts_scan_the_same(scan, seed):
    """Random runs of pieces (most fail somewhere: the C scan must stop exactly then) and random edits of
    the samples (most still scan: the C tokens must be the Python ones)."""
    rng = random.Random(seed)
    outcomes = {"c": 0, "python": 0}
    for _ in range(1500):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 30)))
        if rng.random() < 0.3:
            text = "".join(chr(rng.choice([rng.randint(0, 127), rng.randint(0, 0x3000)]))
                           for _ in range(rng.randint(1, 20))) + text
        for outcome in _same(scan, parser._normalize(text)):
            outcomes[outcome] += 1
    samples = [p.read_text(encoding="utf-8") for p in FILES if p.parent.name == "samples"]
    for _ in range(500):
        text = rng.choice(samples)
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(text))
            if rng.random() < 0.6:
                text = text[:at] + rng.choice(PIECES) + text[at:]
            else:
                text = text[:at] + text[at + rng.randint(1, 5):]
        for outcome in _same(scan, parser._normalize(text)):
            outcomes[outcome] += 1
    assert min(outcomes.values()) > 300, outcomes


def test_indentation_limits_and_tabs(scan):
    deep = "".join("%sif x:\n" % ("  " * i) for i in range(99)) + "  " * 99 + "pass\n"
    nested = "x = " + "(" * 200 + ")" * 200 + "\n"
    for text in (deep, deep.replace("  pass", "pass"), nested, "x = " + "(" * 201 + ")" * 201 + "\n",
                 "if x:\n\tif y:\n        pass\n", "if x:\n        if y:\n\t\t\tpass\n", "if x:\n\ty\n  \tz\n",
                 "if x:\n    y\n  z\n", "x = (1,\n", "x = 1)\n", "x = (1]\n", "x = 1 \\\n"):
        _same(scan, text)


def _long(text_end: str) -> str:
    body = "".join("x%d = (w * %d + b) ** 2  # a comment\n" % (i, i) for i in range(600))
    text = body + text_end
    assert len(text) >= tokenizer.NATIVE_FROM
    return text


def _spans_dump(node):
    """The tree with every span (== leaves spans out)."""
    if isinstance(node, A.Node):
        return (type(node).__name__,) + tuple((name, _spans_dump(getattr(node, name, None))) for name, *_ in node._specs)
    if isinstance(node, list):
        return [_spans_dump(v) for v in node]
    return node


@pytest.mark.parametrize("end", ["print(x1)\n", "x = (1,\n", "if x:\n  y = 1\n z = 2\n", "x = 1 +\n",
                                 "x = 'abc\n", "def f(:\n    pass\n", "x = $\n", "for i in y:\npass\n", "y = 1 \\\n",
                                 "(a, b) += 1\n", "f(x for x in y, 1)\n", "def g():\n    return\nreturn 1\n",
                                 "s = f'{x.y(1):>{w}} {a + b!r}'\nclass C(nn.Module):\n    def f(self, *a, k=1, **kw):\n"
                                 "        return [i for i in a if i] or {k: v for k, v in kw.items()}\n"])
def test_a_long_parse_is_the_same_with_either_scan_and_loop(scan, native_module, monkeypatch, end):
    """The tree (with every span) or the error of a long text: the same with the Python scan and loop,
    the C scan and the Python loop, the C scan and loop (csrc/lalr.c)."""
    native_module("lalr")
    text = _long(end)

    def parse():
        try:
            return _spans_dump(parser.parse(text, "<long>"))
        except ScriptSyntaxError as exc:
            return ("error", exc.message, exc.type_name, exc.line, exc.column, exc.end_line, exc.end_column)

    real_scan, real_drive = tokenizer.native_scan, lalr._native_drive
    assert real_drive() is not None
    calls = []
    monkeypatch.setattr(tokenizer, "native_scan", lambda tables: calls.append(1) or real_scan(tables))
    monkeypatch.setattr(lalr, "_native_drive", lambda: calls.append(2) or real_drive())
    with_c = parse()
    scanned_in_c = isinstance(tokenizer.stream(text, ParseState(), parser.fast_parser()[1]), list)
    assert 1 in calls and (2 in calls) == scanned_in_c  # (a tokenizer error: the Python scan and loop)
    monkeypatch.setattr(lalr, "_native_drive", lambda: None)
    assert parse() == with_c
    monkeypatch.setattr(tokenizer, "native_scan", lambda tables: None)
    assert parse() == with_c


def test_stream_uses_the_c_scan_only_for_long_texts(scan, monkeypatch):
    tables = parser.fast_parser()[1]
    short = "x = 1\n"
    assert not isinstance(tokenizer.stream(short, ParseState(), tables), list)
    long_text = _long("")
    got = tokenizer.stream(long_text, ParseState(), tables)
    assert isinstance(got, list) and [_key(t) for t in got] == [_key(t) for t in _python(long_text, False)[0]]
    monkeypatch.setattr(tokenizer, "_NATIVE", [])
    monkeypatch.setenv("GRADCLI_NATIVE", "0")
    monkeypatch.setattr(native, "_loaded", {})
    assert tokenizer.native_scan(tables) is None
    assert not isinstance(tokenizer.stream(long_text, ParseState(), tables), list)


def test_another_master_regex_is_not_scanned_in_c(scan):
    tables = parser.fast_parser()[1]
    data = {"pattern": tables.match.__self__.pattern.replace("TILDE>\\~", "TILDE>\\~|\\?"), "flags": 0,
            "types": tables.types, "punctuation": tables.punctuation, "keywords": tables.keywords,
            "ignore": sorted(tables.ignore), "multiline": sorted(tables.multiline), "allowed": sorted(tables.allowed),
            "literals": tables.literals}
    assert tokenizer.native_scan(tokenizer.ScanTables(data)) is None


def test_scan_refuses_what_is_not_a_token_class(native_module):
    module = native_module("scan")
    good = tokenizer._TOKEN_SLOTS
    for args in [("x\n", False, good), ("x\n", False, good, []), (b"x\n", False, good, {}),
                 ("x\n", False, good[:7], {}), ("x\n", False, (1,) * 8, {}),
                 ("x\n", False, good[:7] + (ParseState.__dict__["brackets"],), {})]:
        with pytest.raises(TypeError):
            module.scan(*args)

    class Plain:
        __slots__ = SLOTS
    with pytest.raises(TypeError):  # slots of a class that is no str: refused, no memory written
        module.scan("x\n", False, tuple(Plain.__dict__[n] for n in SLOTS), {})
    assert isinstance(module.scan("x\n", False, good, {}), list)
    assert [str(t) for t in module.scan("if\n", False, good, {"if": "IF"})] == ["if", "\n"]
    assert isinstance(module.scan("if\n", False, good, {"if": "IF"})[0], Token)


def test_drive_refuses_tables_of_another_shape(native_module):
    drive = native_module("lalr").drive
    tok = Token("NAME", "x", 0, 1, 1, 1, 2, 1)
    for args in [([tok], [{}], [], 0, 1), ((tok,), [{}], [], 0), ([tok], ({},), [], 0), ([tok], [{}], (), 0),
                 ([tok], [{}], [], "0"), ([tok], [[]], [], 0), ([tok], [{"NAME": "1"}], [], 0),
                 ([tok], [{"NAME": -1}], [(1, "a")], 0), ([tok], [{"NAME": -1}], [("1", "a", None)], 0)]:
        with pytest.raises(TypeError):
            drive(*args)
    for args in [([tok], [{}], [], 5), ([tok], [{}], [], -1), ([tok], [{"NAME": 7}], [], 0),
                 ([tok], [{"NAME": -2}], [(1, "a", None)], 0), ([tok], [{"NAME": -1}], [(3, "a", list)], 0),
                 ([tok], [{"NAME": -1}], [(0, "a", list)], 0), ([tok], [{"NAME": -1}], [(-1, "a", list)], 0)]:
        with pytest.raises(ValueError):  # a state, rule or goto out of the tables, a reduction too deep
            drive(*args)
    assert drive([tok], [{"NAME": 1}, {}], [], 0) == ([0, 1], [tok], 1)
    assert drive([tok, tok], [{"NAME": 1}, {}], [], 0) == ([0, 1], [tok], 1)  # stopped at the second

    def boom(children):
        raise KeyError("reducer")
    with pytest.raises(KeyError):  # a reducer's exception passes through
        drive([tok], [{"NAME": -1, "r": 1}, {}], [(0, "r", boom)], 0)
