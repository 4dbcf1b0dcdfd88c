"""gradcli.render in-process: colour policy, writers that never change characters, error panels
and warnings, tensor JSON (NaN/Infinity as strings), the JSON documents against the schema,
summary tables; and the calculator's helpers (NAME=VALUE parsing, Jacobian, Hessian)."""
from __future__ import annotations

import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.cli.values import ValueSyntaxError, parse_assignment, parse_value
from gradcli.render import diagnostics, jsonout, stream, style
from gradcli.render.tensors import array_json, json_number, tensor_json, tensors_json

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Err:
    """Shaped like gradcli.lang.errors.GradScriptError."""

    def __init__(self, type_name, message, line=None, column=None, end_line=None, end_column=None, hint=None,
                 filename="t.grad"):
        self.type_name, self.message, self.hint, self.filename = type_name, message, hint, filename
        self.line, self.column, self.end_line, self.end_column = line, column, end_line, end_column


class Tty(io.StringIO):
    def isatty(self):
        return True


# --------------------------------------------------------------------------- colour policy

def test_want_color(monkeypatch):
    for var in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(var, raising=False)
    assert style.want_color(Tty()) is True
    assert style.want_color(io.StringIO()) is False
    assert style.want_color(Tty(), no_color=True) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert style.want_color(Tty()) is False
    monkeypatch.setenv("NO_COLOR", "")
    assert style.want_color(Tty()) is True
    monkeypatch.setenv("TERM", "dumb")
    assert style.want_color(Tty()) is False
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert style.want_color(io.StringIO()) is True


def test_plain_rich_console_emits_no_escape_codes():
    buf = io.StringIO()
    style.rich_console(buf, False).print("[bold]x[/bold]", style="red")
    assert "\x1b" not in buf.getvalue()


# --------------------------------------------------------------------------- stdout writers

ECHO = ("(tensor(3.), tensor(4., requires_grad=True), tensor(5., requires_grad=True))\n"
        "tensor(17., grad_fn=<AddBackward0>)\ntensor([1.0000e-08,        nan,       -inf])\n"
        "<AddBackward0 object at 0x7f3a2c1d5e80>\nTrue None 数字 " + "x" * 300 + "\n")


@pytest.mark.parametrize("text", [ECHO, "a\tb\n", "no newline", "\r\n", ""])
def test_color_writer_keeps_the_characters(text):
    buf = io.StringIO()
    stream.ColorWriter(buf).write(text, 1)
    assert ANSI.sub("", buf.getvalue()) == text


def test_color_writer_colours_values_and_grad_fn():
    buf = io.StringIO()
    stream.ColorWriter(buf).write("tensor(17., grad_fn=<AddBackward0>)\n")
    out = buf.getvalue()
    assert "\x1b[" in out and re.search(r"\x1b\[[0-9;]*mAddBackward0", out)


def test_plain_writer_streams_verbatim():
    buf = io.StringIO()
    w = stream.make_writer(buf, False)
    w.write("a\n", 1)
    w.write("b", 2)
    assert buf.getvalue() == "a\nb"


# --------------------------------------------------------------------------- error panels and warnings

SOURCE = "import torch\nx = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2\ny.backward()\n"


def test_error_panel_plain():
    err = Err("RuntimeError", "grad can be implicitly created only for scalar outputs", 4, 1, 4, 13,
              "call .sum() or .mean() first, or pass gradient=torch.ones_like(y)")
    buf = io.StringIO()
    diagnostics.print_error(err, buf, False, source=SOURCE)
    assert buf.getvalue().splitlines() == [
        "t.grad:4:1",
        "  4 | y.backward()",
        "    | ^^^^^^^^^^^^",
        "RuntimeError: grad can be implicitly created only for scalar outputs",
        "hint: call .sum() or .mean() first, or pass gradient=torch.ones_like(y)",
    ]


def test_error_panel_caret_under_span_tabs_and_wide_characters():
    src = "a = 1\n\tb = '数字' + q\n"
    lines = diagnostics.error_lines("NameError", "name 'q' is not defined", "f.grad", 2, 13, 2, 14, None, src)
    code, caret = lines[1], lines[2]
    assert code == "  2 |         b = '数字' + q"
    # the caret sits under q: the tab is 8 columns, each CJK character 2
    assert caret.index("^") == code.index("q") + 2 and caret.count("^") == 1


def test_error_panel_multiline_message_empty_message_and_no_location():
    lines = diagnostics.error_lines("ValueError", "first line\nsecond line", None, None, None, None, None, None, "")
    assert lines == ["<string>", "ValueError: first line", "second line"]
    lines = diagnostics.error_lines("AssertionError", "", "f.grad", 1, 1, 1, 7, None, "assert 0\n")
    assert "AssertionError" in lines and "  1 | assert 0" in lines


def test_error_panel_multi_line_span_underlines_to_the_end_of_the_line():
    lines = diagnostics.error_lines("SyntaxError", "'(' was never closed", "f.grad", 1, 5, 3, 2, None,
                                    "x = (1,\n  2,\n")
    assert lines[2] == "    |     ^^^"


def test_error_panel_colour_on_a_terminal_has_the_same_words():
    err = Err("RuntimeError", "boom", 4, 1, 4, 13, "a hint")
    buf = io.StringIO()
    diagnostics.print_error(err, buf, True, source=SOURCE)
    text = ANSI.sub("", buf.getvalue())
    for part in ("t.grad:4:1", "y.backward()", "^^^^^^^^^^^^", "RuntimeError: boom", "hint: a hint"):
        assert part in text


def test_warnings_printed_as_given():
    """The printer shows every warning it is handed: the filters and the repeat cap are the session's
    (lang/runner.Session._show_warning), as Python's showwarning under torch-echo's "always"."""
    buf = io.StringIO()
    printer = diagnostics.WarningPrinter(buf, False, "w.grad")
    printer("UserWarning", "careful", 3, 5)
    printer("UserWarning", "careful", 3, 5)
    printer("UserWarning", "careful", 4, 5)

    class W:
        category, message, line, column = "UserWarning", "object form", 7, None

    printer(W())
    assert buf.getvalue().splitlines() == ["w.grad:3:5: UserWarning: careful", "w.grad:3:5: UserWarning: careful",
                                           "w.grad:4:5: UserWarning: careful", "w.grad:7: UserWarning: object form"]


# --------------------------------------------------------------------------- tensors and JSON

def test_json_number():
    assert json_number(math.nan) == "NaN" and json_number(math.inf) == "Infinity"
    assert json_number(-math.inf) == "-Infinity" and json_number(1.5) == 1.5 and json_number(3) == 3


def test_array_json_shapes_dtypes_and_shortest_float32():
    np = pytest.importorskip("numpy")
    assert array_json(np.array(0.1, dtype=np.float32)) == 0.1
    assert array_json(np.array([[1, 2], [3, 4]], dtype=np.int64)) == [[1, 2], [3, 4]]
    assert array_json(np.array([True, False])) == [True, False]
    assert array_json(np.zeros((2, 0), dtype=np.float32)) == [[], []]
    assert array_json(np.array([np.nan, np.inf, -np.inf, 2.5], dtype=np.float64)) == \
        ["NaN", "Infinity", "-Infinity", 2.5]


def test_tensor_json_reads_grad_without_warning_and_is_strict_json(recwarn):
    from gradcli.engine import api as torch

    x = torch.tensor([1.0, float("nan")], requires_grad=True)
    y = x * 2
    y.sum().backward()
    d = tensors_json({"x": x, "y": y, "n": 3})
    assert list(d) == ["x", "y"]
    assert d["x"] == {"shape": [2], "dtype": "float32", "device": "cpu", "requires_grad": True, "is_leaf": True,
                      "grad_fn": None, "value": [1.0, "NaN"], "grad": [2.0, 2.0]}
    assert d["y"]["grad_fn"] == "MulBackward0" and d["y"]["grad"] is None and not d["y"]["is_leaf"]
    json.dumps(d, allow_nan=False)
    assert not [w for w in recwarn.list if "non-leaf" in str(w.message) or "not a leaf" in str(w.message)]


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = jsonout.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_documents_validate(validator):
    from gradcli.engine import api as torch

    x = torch.tensor(float("inf"), requires_grad=True)
    ok = jsonout.run_doc(filename="a.grad", outputs=[{"text": "x\n", "line": 1}], tensors={"x": tensor_json(x)})
    bad = jsonout.run_doc(filename="b.grad", exit_code=1,
                          error=jsonout.error_json(Err("RuntimeError", "boom", 2, 1, 2, 5, "h"), "b.grad"),
                          warnings=[{"category": "UserWarning", "message": "w", "file": "b.grad", "line": 1,
                                     "column": None}])
    usage = jsonout.run_doc(exit_code=2, error=jsonout.simple_error("UsageError", "no"))
    multi = jsonout.multi_doc([ok, bad], 1)
    for doc in (ok, bad, usage, multi):
        text = jsonout.dumps(doc)
        parsed = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict {c}"))
        assert not list(validator.iter_errors(parsed)), list(validator.iter_errors(parsed))[:1]
    assert json.loads(jsonout.dumps(ok))["tensors"]["x"]["value"] == "Infinity"
    # ok and error must agree
    assert list(validator.iter_errors({**ok, "ok": False}))
    assert list(validator.iter_errors({**bad, "error": None}))


def test_dumps_sanitizes_stray_non_finite_floats():
    text = jsonout.dumps({"a": [math.nan, (math.inf, 1.0)], "b": -math.inf})
    assert json.loads(text) == {"a": ["NaN", ["Infinity", 1.0]], "b": "-Infinity"}


def test_each_json_schema_has_one_home():
    """The documents' schemas (run, graph, test) live in one file, gradcli/render/schema.json (one
    $defs entry per document, each with its own $id), where the package reads them; README and docs
    link there rather than keep copies (issue 22)."""
    homes = sorted(p.name for p in (ROOT / "gradcli" / "render").glob("*schema*.json"))
    assert homes == ["schema.json"]
    whole = jsonout.schema(None)
    assert {d["$id"].rsplit("/", 1)[1] for d in whole["$defs"].values()} == {
        "gradcli-1.json", "gradcli-test-1.json", "gradcli-graph-1.json"}
    assert [jsonout.schema(name)["$id"] for name in jsonout.DOCUMENTS] == [
        whole["$defs"][key]["$id"] for key in jsonout.DOCUMENTS.values()]
    copies = [str(p.relative_to(ROOT)) for folder in ("docs", "gradcli", "tools", "bench")
              for p in (ROOT / folder).rglob("*schema*.json") if p.parent != ROOT / "gradcli" / "render"]
    assert not copies, copies
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"(gradcli/render/{name})" in readme for name in homes)


# --------------------------------------------------------------------------- tables

def test_summary_table_plain():
    from gradcli.engine import api as torch
    from gradcli.render.summary import print_renderable, summary_table

    w = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()
    loss.backward()
    buf = io.StringIO()
    print_renderable(summary_table({"w": w, "loss": loss, "k": 1}, False), buf, False)
    out = buf.getvalue()
    assert "\x1b" not in out and all(line == line.rstrip() for line in out.splitlines())
    row = next(line for line in out.splitlines() if " w " in line)
    for cell in ("[2]", "torch.float32", "True", "tensor([1., 2.])", "tensor([2., 4.])"):
        assert cell in row
    assert "SumBackward0" in out and " k " not in out
    assert summary_table({"k": 1}, False) is None


# --------------------------------------------------------------------------- the calculator's helpers

@pytest.mark.parametrize("text, value", [
    ("3", 3), ("-1.5", -1.5), ("3.", 3.0), (".5", 0.5), ("1e-3", 0.001), ("+2", 2), ("inf", math.inf),
    ("-inf", -math.inf), ("[1, 2, 3]", [1, 2, 3]), ("[[1,2],[3,4]]", [[1, 2], [3, 4]]), ("(1, 2)", [1, 2]),
    (" [ 1 , 2 , ] ", [1, 2]), ("[]", []),
])
def test_parse_value(text, value):
    assert parse_value(text) == value


@pytest.mark.parametrize("text", ["", "abc", "[1, 2", "[1,,2]", "1 2", "[1, [2]]", "__import__('os')", "1+1",
                                  "[1] [2]", "0x10"])
def test_parse_value_rejects(text):
    with pytest.raises(ValueSyntaxError):
        parse_value(text)


def test_parse_assignment():
    assert parse_assignment("x=[1,2]") == ("x", [1, 2])
    assert math.isnan(parse_assignment("y=nan")[1])
    for bad in ("x", "1x=2", "for=1", "_x=1", "=3"):
        with pytest.raises(ValueSyntaxError):
            parse_assignment(bad)


def test_jacobian_and_hessian_helpers():
    from gradcli.cli.calc import jacobian, make_variables

    v = make_variables([("x", [1.0, 2.0, 3.0]), ("w", 2)], "float32", "cpu")
    x, w = v["x"], v["w"]
    jx, jw = jacobian(x ** 2 * w, [x, w])
    assert jx.tolist() == [[4.0, 0, 0], [0, 8.0, 0], [0, 0, 12.0]] and jw.tolist() == [1.0, 4.0, 9.0]
    gx, gw = jacobian((x ** 3).sum() * w, [x, w], create_graph=True)
    hxx, hxw = jacobian(gx, [x, w])
    assert hxx.tolist() == [[12.0, 0, 0], [0, 24.0, 0], [0, 0, 36.0]] and hxw.tolist() == [3.0, 12.0, 27.0]
    (unused,) = jacobian(x.sum(), [make_variables([("z", 1)], "float32", "cpu")["z"]])
    assert unused.tolist() == 0.0


def test_huge_lines_show_a_window_around_the_error(tmp_path):
    """A 1 MB one-line script or 5,000 nested brackets: about 100 columns of the line around the
    error, '...' where it goes on, the caret under the error; stderr stays small."""
    from gradcli.lang.runner import run_source
    from gradcli.render.diagnostics import WINDOW, error_lines

    big = "x = [" + "1, " * 350_000 + "]; y = x + undefined_name\n"
    nested = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    for source in (big, nested):
        err = run_source(source, "big.grad").error
        lines = error_lines(err.type_name, err.message, "big.grad", err.line, err.column, err.end_line,
                            err.end_column, err.hint, source)
        text = "\n".join(lines)
        assert len(text) < 2000, len(text)
        code = next(line for line in lines if line.startswith("  1 | "))[6:]
        caret = next(line for line in lines if set(line.split("|")[-1].strip()) == {"^"}).split("| ", 1)[1]
        assert code.startswith("...") and len(code) <= WINDOW + 6
        # the caret points at the failing text inside the window
        marked = code[len(caret) - len(caret.lstrip()):len(caret)]
        expected = "undefined_name" if source is big else "("
        assert marked.startswith(expected[:len(marked)]) and marked, (marked, code)
    short = "y = 1 + undefined_name\n"
    err = run_source(short, "s.grad").error
    lines = error_lines(err.type_name, err.message, "s.grad", err.line, err.column, err.end_line, err.end_column,
                        err.hint, short)
    assert "  1 | y = 1 + undefined_name" in lines and "..." not in "\n".join(lines)


def _rich_plain(table):
    """What Rich draws for a plain (uncoloured) table: the drawing render/table.py reproduces."""
    from gradcli.render.style import rich_console

    buf = io.StringIO()
    rich_console(buf, False, width=100_000).print(table.rich())
    return "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines())


def _random_text(rng, lines_max=4):
    alphabet = "abcxyz0123456789 .,-+*/()[]{}:;'\"_=<>#@!?|\\~`$%^&"
    lines = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 14)))
             for _ in range(rng.randrange(1, lines_max + 1))]
    if rng.random() < 0.3:
        lines = [" " * rng.randrange(0, 6) + line for line in lines]
    return "\n".join(lines)


def test_plain_tables_are_drawn_as_rich_draws_them():
    """render/table.py draws plain tables without Rich (start-up time): byte for byte Rich's box.SQUARE
    drawing (tensor reprs on several lines, blank lines, leading and trailing spaces, markup-like and
    empty cells, titles), and leaves to Rich what it would draw differently (non-ASCII, tabs, a title
    wider than the table)."""
    import random

    from gradcli.render.summary import print_renderable
    from gradcli.render.table import Table

    rng = random.Random(21)
    drawn = 0
    for case in range(300):
        ncols = rng.randrange(1, 6)
        columns = [(_random_text(rng, 1), rng.choice([None, "cyan"]), rng.random() < 0.5) for _ in range(ncols)]
        title = rng.choice([None, "tensors", "tensors of " + _random_text(rng, 1), "x" * rng.randrange(40, 90)])
        table = Table(title, columns, False)
        for _ in range(rng.randrange(0, 5)):
            table.add_row(*[_random_text(rng) for _ in range(ncols)])
        if case % 10 == 0:
            table.add_row(*["tensor([[1., 2.],\n        [3., 4.]])"] * (ncols - 1), "[bold]x[/] :smile:")
        buf = io.StringIO()
        print_renderable(table, buf, False)
        assert buf.getvalue() == _rich_plain(table), (title, columns, table.rows)
        drawn += table.plain_text() is not None
    assert drawn > 150  # most took the path without Rich
    for odd in ("é", "变量", "a\tb", "x\r", "\x1b[1m", "a\n"):
        table = Table(None, [("name", None, True), ("value", None, False)], False)
        table.add_row(odd, "1")
        assert table.plain_text() is None
        buf = io.StringIO()
        print_renderable(table, buf, False)
        assert buf.getvalue() == _rich_plain(table)


def test_plain_calculator_run_imports_no_rich():
    """`gradcli grad` piped draws its table without importing Rich, as Rich would draw it."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradcli", "grad", "x**2 * y", "x=[1,2]", "y=3"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60,
                          env={k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "│ x    │ tensor([1., 2.]) │ [2]   │ torch.float32 │ tensor([[ 6.,  0.],          │\n" in proc.stdout
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "gradcli.render.table" in loaded and not {m for m in loaded if m.split(".")[0] == "rich"}
