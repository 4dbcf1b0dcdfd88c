"""Fuzzing the whole pipeline (parser, compiler, runner, engine, JSON renderer) with hypothesis.

Inputs: random text, random token sequences, grammar-derived random programs (statements over
the GradScript grammar calling real torch functions with random arguments) and mutations
(delete, duplicate, swap, insert of characters, lines and tokens) of every sample in samples/.

Properties, in-process through the runner and the `run` command's own code (fast):
  * no internal error (exit 3 / InternalError), whatever the input;
  * every error has a line and a column inside the source (its end, when given, too);
  * the --json document of the run is strict JSON (no NaN/Infinity tokens) and validates
    against gradcli/render/schema.json.
And through the real command as a subprocess, on a smaller budget: exit code never 3, no
Python traceback on stderr, --json output strict and valid.

The examples are derandomized (the same every run) and the budgets keep this file at about
half a minute on two cores; tools/fuzz_long.py runs the same strategies for as long as asked,
with fresh random seeds (see docs/robustness.md).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gradcli.cli.common import Flags, UsageProblem  # noqa: E402
from gradcli.cli.runcmd import Source, _doc, run_one  # noqa: E402
from gradcli.lang.runner import InternalError, RunOptions, run_source  # noqa: E402
from gradcli.render import jsonout  # noqa: E402
from gradcli.render.jsonout import dumps  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "samples").glob("*.grad"))
SAMPLE_TEXTS = [p.read_text(encoding="utf-8") for p in SAMPLES]

# small limits: a fuzzed program must not be able to spend the test's time or memory
OPTIONS = dict(seed=0, max_steps=20_000, timeout=5.0, max_elements=200_000)

# the in-suite budget (tools/fuzz_long.py scales these up)
BUDGET = {"text": 60, "tokens": 80, "program": 120, "mutation": 120, "cli": 3, "escape": 150}


def fuzz_settings(kind, **extra):
    return settings(max_examples=BUDGET[kind], derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), **extra)


# ============================================================================ properties

def strict_loads(text):
    """json.loads that refuses the NaN/Infinity tokens, as strict parsers do."""
    def refuse(token):
        raise ValueError(f"non-strict JSON constant {token}")
    return json.loads(text, parse_constant=refuse)


_VALIDATOR = []


def validator():
    if not _VALIDATOR:
        try:
            import jsonschema
        except ImportError:  # the schema check needs jsonschema; the other properties do not
            _VALIDATOR.append(None)
        else:
            _VALIDATOR.append(jsonschema.Draft202012Validator(jsonout.schema("gradcli/1")))
    return _VALIDATOR[0]


def validate(doc):
    v = validator()
    if v is None:
        return
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def source_lines(source):
    """The source's lines as the runner (and Python) counts them: \n, \r\n and a lone \r end a line."""
    return re.split(r"\r\n|\r|\n", source)


def check_location(source, err, what="error"):
    """line and column inside the source (column may be one past the line's end: an EOF error);
    the end, when given, not before the start and at most one line past the last."""
    line, column = err["line"], err["column"]
    lines = source_lines(source)
    assert isinstance(line, int) and isinstance(column, int), f"{what} without a location: {err}"
    assert 1 <= line <= len(lines), f"{what} line {line} outside the {len(lines)} lines: {err}"
    assert 1 <= column <= len(lines[line - 1]) + 1, f"{what} column {column} outside line {line}: {err}"
    end_line, end_column = err.get("end_line"), err.get("end_column")
    if end_line is not None:
        assert end_column is not None and end_column >= 1, err
        assert (end_line, end_column) >= (line, column), f"{what} ends before it starts: {err}"
        assert end_line <= len(lines) + 1, f"{what} ends past the source: {err}"


def run_in_process(source, filename="fuzz.grad", **options):
    """Run source as `gradcli run --json` does (minus the process) and check every property.
    Returns the run document."""
    flags = Flags(json=True, **{k: v for k, v in {**OPTIONS, **options}.items()
                                if k in ("seed", "max_steps", "max_elements", "timeout")})
    try:
        outcome = run_one(Source(filename, source), flags, flags.run_options(), False, False)
    except UsageProblem:  # device='cuda' without CuPy: a usage error (exit 2) by design
        return None
    if outcome.exit_code == 3:
        result = run_source(source, filename, RunOptions(**{**OPTIONS, **options}))
        tb = result.error.traceback_text if isinstance(result.error, InternalError) else outcome.error
        pytest.fail(f"internal error for {source!r}:\n{tb}")
    assert outcome.exit_code in (0, 1), outcome.exit_code
    if outcome.error is not None:
        assert outcome.exit_code == 1
        check_location(source, outcome.error)
        assert outcome.error["type"] and outcome.error["message"] is not None
    for w in outcome.warnings:
        if w["line"] is not None:
            assert 1 <= w["line"] <= len(source_lines(source)), w
    text = dumps(_doc(outcome))
    doc = strict_loads(text)
    validate(doc)
    assert doc["ok"] == (outcome.exit_code == 0)
    return doc


# ============================================================================ generators

# ---------------------------------------------------------------- random token sequences

KEYWORDS = ["if", "elif", "else", "for", "in", "while", "def", "return", "lambda", "class", "with", "as",
            "import", "from", "pass", "break", "continue", "assert", "del", "global", "nonlocal", "not",
            "and", "or", "is", "None", "True", "False", "try", "except", "raise", "yield", "async", "await"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "~", "<<", ">>", "<", ">", "<=",
             ">=", "==", "!=", "=", "+=", "-=", "*=", "/=", "@=", "**=", "->", ":", ",", ";", ".", "...",
             "(", ")", "[", "]", "{", "}", "\\"]
NAMES = ["x", "y", "w", "b", "z", "f", "i", "self", "torch", "nn", "F", "np", "math", "print", "range",
         "len", "tensor", "grad", "backward", "requires_grad", "sum", "mean", "item", "shape", "dtype",
         "float32", "float64", "int64", "bool", "T", "no_grad", "autograd", "_x", "__class__",
         "__init__", "super", "Module", "Linear", "zeros", "ones", "randn", "eval", "open", "os"]
LITERALS = ["0", "1", "2", "3.", "1e-3", "1e308", "1e309", "0x1F", "0b101", "1_000", "1j", "10**10",
            "'s'", '"t"', "'''u'''", "f'{x}'", "f'{x!r:>4}'", "b'x'", "r'\\d'", "'\\n'", "'\\x00'",
            "float('nan')", "float('inf')", "-0."]
LAYOUT = ["\n", "\n    ", "\n        ", " ", "  ", "\t", "#c\n", "\n\n", "\r\n"]
TOKENS = KEYWORDS + OPERATORS + NAMES + LITERALS + LAYOUT


@st.composite
def token_sequences(draw):
    tokens = draw(st.lists(st.sampled_from(TOKENS), max_size=40))
    out = []
    for tok in tokens:
        out.append(tok)
        if tok not in LAYOUT and draw(st.booleans()):
            out.append(" ")
    return "".join(out)


# ---------------------------------------------------------------- random text

random_text = st.one_of(
    st.text(max_size=80),  # any code points
    st.text(alphabet=st.sampled_from(list("abcxyz019_ ()[]{}:.,;=+-*/%@&|^~<>!'\"#\\\n\t")), max_size=80),
    st.binary(max_size=60).map(lambda b: b.decode("utf-8", errors="replace")),
)


# ---------------------------------------------------------------- grammar-derived programs

# real torch functions by how they are called (names in the engine's op tables)
UNARY = ["abs", "neg", "exp", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu",
         "sign", "floor", "ceil", "round", "trunc", "reciprocal", "square", "erf", "expm1", "asin", "acos",
         "atan", "sinh", "cosh", "asinh", "atanh", "frac", "logit", "sinc", "deg2rad", "isnan", "isinf",
         "isfinite", "logical_not", "clone", "detach", "t", "flatten", "ravel", "msort", "nan_to_num",
         "atleast_2d", "diag", "trace", "tril", "triu", "signbit", "exp2", "log2", "log10", "erfinv",
         "count_nonzero", "argsort", "positive", "bitwise_not", "fix", "numel", "is_floating_point"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "remainder", "fmod",
          "floor_divide", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "matmul", "mm", "mv", "dot", "outer", "inner",
          "hypot", "copysign", "xlogy", "logaddexp", "fmax", "fmin", "float_power", "isclose", "allclose",
          "equal", "kron", "cross", "vdot", "lerp", "where", "masked_fill",
          "broadcast_tensors", "cartesian_prod", "take", "tensordot", "rsub", "true_divide"]
REDUCE = ["sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "std", "var",
          "norm", "logsumexp", "softmax", "log_softmax", "cumsum", "cumprod", "median", "mode", "nansum",
          "nanmean", "sort", "topk", "kthvalue", "cummax", "cummin", "logcumsumexp", "std_mean", "var_mean",
          "aminmax", "count_nonzero", "unbind", "squeeze", "unsqueeze", "flip", "roll", "diff", "chunk",
          "split", "narrow", "movedim", "transpose", "repeat_interleave", "diagonal"]
SHAPE = ["reshape", "view", "expand", "repeat", "tile", "permute", "broadcast_to", "unflatten", "sum_to_size"]
CONSTRUCT = ["zeros", "ones", "randn", "rand", "empty", "arange", "eye", "linspace", "full", "tensor",
             "randint", "randperm", "logspace", "zeros_like", "ones_like", "randn_like", "full_like"]
NN_FUNCS = ["F.relu", "F.gelu", "F.silu", "F.softplus", "F.mse_loss", "F.l1_loss", "F.cross_entropy",
            "F.softmax", "F.log_softmax", "F.normalize", "F.linear", "F.dropout", "F.leaky_relu", "F.elu",
            "F.one_hot", "F.pad", "F.binary_cross_entropy_with_logits", "F.huber_loss", "F.cosine_similarity"]
MODULES = ["nn.Linear(3, 2)", "nn.ReLU()", "nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))",
           "nn.MSELoss()", "nn.Softmax(dim=0)", "nn.LayerNorm(3)", "nn.Dropout(0.5)", "nn.Identity()",
           "nn.Embedding(5, 3)", "nn.Conv1d(1, 2, 2)", "nn.BatchNorm1d(3)", "nn.Flatten()"]
ATTRS = ["grad", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "T", "data", "device", "ndim",
         "mT", "real", "itemsize"]
METHOD_CALLS = ["item()", "tolist()", "numpy()", "size()", "dim()", "numel()", "float()", "double()",
                "long()", "int()", "bool()", "half()", "detach()", "clone()", "retain_grad()", "zero_()",
                "requires_grad_()", "backward()", "backward(retain_graph=True)", "sum()", "mean()",
                "abs_()", "add_(1)", "mul_(2)", "fill_(0.5)", "contiguous()", "stride()", "is_contiguous()",
                "element_size()", "storage_offset()", "cpu()", "to(torch.float64)", "type_as(x)",
                "new_zeros(2)", "register_hook(lambda g: g * 2)", "grad_fn.name()", "grad_fn.next_functions",
                "__class__", "_version", "data_ptr()"]
DTYPES = ["torch.float32", "torch.float64", "torch.int64", "torch.int32", "torch.bool", "torch.float16",
          "torch.uint8", "torch.int8", "torch.complex64"]
VARS = ["x", "y", "w", "z", "out", "loss"]


def _number(draw):
    return draw(st.sampled_from(["0", "1", "2", "3", "-1", "0.5", "2.", "-3.5", "1e-3", "1e3", "True", "False",
                                 "None", "float('nan')", "float('inf')", "-0.", "10", "-2", "0.1", "7"]))


def _shape(draw):
    """Sizes as call arguments: '2, 3' (or '()' for a 0-d tensor)."""
    dims = draw(st.lists(st.integers(0, 4), max_size=3))
    return ", ".join(map(str, dims)) or "()"


def _nested_list(draw, depth=0):
    n = draw(st.integers(0 if depth else 1, 3))
    if depth >= 2 or draw(st.integers(0, 2)) == 0:
        return "[" + ", ".join(_number(draw) for _ in range(n)) + "]"
    inner = [_nested_list(draw, depth + 1) for _ in range(n)]
    return "[" + ", ".join(inner) + "]"


# programs(deterministic=True) (tools/fuzz_long.py --vs-torch) leave out what differs from torch by
# design: random numbers (gradcli's stream is its own), uninitialised memory, random initial weights
_RANDOM = {"randn", "rand", "empty", "randint", "randperm", "randn_like", "F.dropout",
           # refused before the script runs (so at another line than torch's error), or an address
           "__class__", "_version", "data_ptr()", "storage_offset()"}
_DETERMINISTIC = [False]


def _pick(draw, options):
    if _DETERMINISTIC[0]:
        options = [o for o in options if o not in _RANDOM]
    return draw(st.sampled_from(options))


def _constructor(draw):
    fn = _pick(draw, CONSTRUCT)
    extra = ""
    if draw(st.booleans()):
        extra = ", requires_grad=True"
    if draw(st.integers(0, 3)) == 0:
        extra += f", dtype={draw(st.sampled_from(DTYPES))}"
    if fn == "tensor":
        return f"torch.tensor({draw(st.one_of(st.just(_nested_list(draw)), st.just(_number(draw))))}{extra})"
    if fn in ("zeros_like", "ones_like", "randn_like", "full_like"):
        tail = ", 2." if fn == "full_like" else ""
        return f"torch.{fn}({draw(st.sampled_from(VARS))}{tail}{extra})"
    if fn == "arange":
        return f"torch.arange({draw(st.integers(-2, 6))}{', 0.5' if draw(st.booleans()) else ''}{extra})"
    if fn in ("linspace", "logspace"):
        return f"torch.{fn}(0, 1, {draw(st.integers(0, 5))}{extra})"
    if fn == "eye":
        return f"torch.eye({draw(st.integers(0, 4))}{extra})"
    if fn == "full":
        return f"torch.full(({_shape(draw)},), {_number(draw)}{extra})".replace("((),)", "()")
    if fn == "randint":
        return f"torch.randint(0, 5, ({_shape(draw)},))".replace("((),)", "()")
    if fn == "randperm":
        return f"torch.randperm({draw(st.integers(0, 5))})"
    return f"torch.{fn}({_shape(draw)}{extra})"


def _expr(draw, depth=0):
    """A random expression over the variables, torch functions, operators and literals."""
    kind = draw(st.integers(0, 14 if depth < 3 else 2))
    v = draw(st.sampled_from(VARS))
    if kind == 0:
        return v
    if kind == 1:
        return _number(draw)
    if kind == 2:
        return _constructor(draw)
    sub = lambda: _expr(draw, depth + 1)  # noqa: E731
    if kind == 3:
        op = draw(st.sampled_from(["+", "-", "*", "/", "**", "@", "//", "%", "<", "==", "&", "|", "and", "or"]))
        return f"({sub()} {op} {sub()})"
    if kind == 4:
        return f"{draw(st.sampled_from(['-', '~', 'not ', '+']))}{sub()}"
    if kind == 5:
        fn = draw(st.sampled_from(UNARY))
        return f"torch.{fn}({sub()})" if draw(st.booleans()) else f"{v}.{fn}()"
    if kind == 6:
        fn = draw(st.sampled_from(BINARY))
        return f"torch.{fn}({sub()}, {sub()})" if fn != "where" else f"torch.where({sub()} > 0, {sub()}, {sub()})"
    if kind == 7:
        fn = draw(st.sampled_from(REDUCE))
        args = draw(st.sampled_from(["", "0", "-1", "dim=0", "dim=1, keepdim=True", "1, True", "2", "(0, 1)",
                                     "dim=-1", "0, 1"]))
        return f"({sub()}).{fn}({args})" if draw(st.booleans()) else f"torch.{fn}({sub()}{', ' + args if args else ''})"
    if kind == 8:
        fn = draw(st.sampled_from(SHAPE))
        return f"{v}.{fn}({_shape(draw).replace('()', '-1')})"
    if kind == 9:
        index = draw(st.sampled_from(["0", "-1", "1:", "::2", ":, 0", "..., None", "None", "[0, 1]", "x > 0",
                                      "1:3, ::-1", "True", "5", "0, 0, 0", ":", "..., 1", "torch.tensor([0])"]))
        return f"{v}[{index}]"
    if kind == 10:
        return f"{v}.{draw(st.sampled_from(ATTRS))}"
    if kind == 11:
        return f"{v}.{_pick(draw, METHOD_CALLS)}"
    if kind == 12:
        fn = _pick(draw, NN_FUNCS)
        return f"{fn}({sub()}{', ' + sub() if draw(st.booleans()) else ''})"
    if kind == 13:
        return draw(st.sampled_from([
            f"torch.autograd.grad({sub()}, {v})", f"torch.autograd.grad({v}.sum(), [{v}], create_graph=True)",
            f"torch.autograd.functional.jacobian(lambda t: t * 2, {v})", f"len({sub()})", f"list({sub()})",
            f"[t * 2 for t in {v}]", f"{v}.to({draw(st.sampled_from(DTYPES))})", f"float({sub()})",
            f"int({sub()})", f"torch.stack([{v}, {sub()}])", f"torch.cat([{v}, {sub()}], 0)",
            f"{draw(st.sampled_from(MODULES))}({sub()})" if not _DETERMINISTIC[0] else f"abs({sub()})",
            f"{v}.grad_fn.next_functions[0][0]",
            f"str({sub()})", f"repr({sub()})", f"(lambda a, b=2: a * b)({sub()})", f"{sub()} if {sub()} else {sub()}",
            f"{v}.shape[0]", f"{v}.size(-1)", "torch.no_grad()", f"np.array({_nested_list(draw)})",
            "torch.from_numpy(np.ones(2))", f"max({sub()}, {sub()})", f"sum([{sub()}, {sub()}])",
            f"'{{}}'.format({sub()})", f"f'{{{v}:.3f}}'", f"round({sub()}, 2)", f"abs({sub()})"]))
    return f"({sub()}, {sub()})"


def _simple_statement(draw):
    kind = draw(st.integers(0, 9))
    v = draw(st.sampled_from(VARS))
    if kind <= 2:
        return f"{v} = {_expr(draw)}"
    if kind == 3:
        return f"print({_expr(draw)})"
    if kind == 4:
        return _expr(draw)
    if kind == 5:
        return f"{v} {draw(st.sampled_from(['+=', '-=', '*=', '/=', '@=', '**=']))} {_expr(draw)}"
    if kind == 6:
        return draw(st.sampled_from([f"{v}.backward()", f"{v}.sum().backward()", f"{v}.grad = None",
                                     f"{v}.requires_grad = True", f"{v}[0] = {_number(draw)}",
                                     f"{v}.retain_grad()", f"del {v}", f"assert {_expr(draw)}, 'msg'",
                                     f"{v}, y = {_expr(draw)}, {_expr(draw)}", f"{v}.grad.zero_()"]))
    if kind == 7:
        return "pass"
    if kind == 8 or _DETERMINISTIC[0]:
        return f"{v} = {_constructor(draw)}"
    return f"{v} = {draw(st.sampled_from(MODULES))}"


def _block(draw, indent, depth):
    n = draw(st.integers(1, 3))
    return "".join(_statement(draw, indent, depth + 1) for _ in range(n))


def _statement(draw, indent="", depth=0):
    kind = draw(st.integers(0, 8 if depth < 2 else 0))
    pad = indent + "    "
    if kind <= 3:
        return indent + _simple_statement(draw) + "\n"
    if kind == 4:
        it = draw(st.sampled_from(["range(3)", "x", "[1, 2]", "zip(x, y)", "enumerate(x)", "range(-1)",
                                   "model.parameters()", "x.tolist()"]))
        target = "i, j" if it.startswith(("zip", "enumerate")) else "i"
        body = _block(draw, pad, depth)
        if draw(st.booleans()):
            body += pad + draw(st.sampled_from(["break", "continue", "pass"])) + "\n"
        return f"{indent}for {target} in {it}:\n{body}"
    if kind == 5:
        text = f"{indent}if {_expr(draw)}:\n{_block(draw, pad, depth)}"
        if draw(st.booleans()):
            text += f"{indent}elif {_expr(draw)}:\n{_block(draw, pad, depth)}"
        if draw(st.booleans()):
            text += f"{indent}else:\n{_block(draw, pad, depth)}"
        return text
    if kind == 6:
        name = draw(st.sampled_from(["f", "g"]))
        body = _block(draw, pad, depth)
        call = f"{indent}{draw(st.sampled_from(VARS))} = {name}({_expr(draw)})\n" if draw(st.booleans()) else ""
        return f"{indent}def {name}(x, y=1):\n{body}{pad}return {_expr(draw)}\n{call}"
    if kind == 7:
        ctx = draw(st.sampled_from(["torch.no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(False)"]))
        return f"{indent}with {ctx}:\n{_block(draw, pad, depth)}"
    return (f"{indent}k = 0\n{indent}while k < {draw(st.integers(0, 3))}:\n{pad}k += 1\n"
            f"{_block(draw, pad, depth)}")


PREAMBLE = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport numpy as np\n"
            "x = torch.tensor([1., -2., 3.], requires_grad=True)\ny = torch.randn(3)\n"
            "w = torch.ones(3, 3, requires_grad=True)\nz = torch.arange(6).reshape(2, 3)\n"
            "model = nn.Linear(3, 2)\nout = w @ x\nloss = out.sum()\n")
DETERMINISTIC_PREAMBLE = PREAMBLE.replace("torch.randn(3)", "torch.tensor([0.5, 0.25, -1.5])").replace(
    "nn.Linear(3, 2)", "torch.nn.Identity()")


@st.composite
def programs(draw, deterministic=False):
    _DETERMINISTIC[0] = deterministic
    try:
        body = "".join(_statement(draw) for _ in range(draw(st.integers(1, 8))))
    finally:
        _DETERMINISTIC[0] = False
    preamble = DETERMINISTIC_PREAMBLE if deterministic else PREAMBLE
    return (preamble if draw(st.integers(0, 4)) else "") + body


# ---------------------------------------------------------------- mutations of the samples

TOKEN_RE = re.compile(r"\s+|\w+|'[^'\n]*'|\"[^\"\n]*\"|\*\*|//|==|!=|<=|>=|[-+*/%@]=|.", re.S)


def _mutate_units(draw, units, pool):
    kind = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "replace"]))
    if not units:
        return [draw(st.sampled_from(pool))]
    i = draw(st.integers(0, len(units) - 1))
    j = draw(st.integers(0, len(units) - 1))
    units = list(units)
    if kind == "delete":
        del units[i:i + draw(st.integers(1, 3))]
    elif kind == "duplicate":
        units[i:i] = units[i:i + draw(st.integers(1, 3))]
    elif kind == "swap":
        units[i], units[j] = units[j], units[i]
    elif kind == "insert":
        units.insert(i, draw(st.sampled_from(pool)))
    else:
        units[i] = draw(st.sampled_from(pool))
    return units


ALL_LINES = sorted({line + "\n" for text in SAMPLE_TEXTS for line in text.splitlines()})
ALL_TOKENS = sorted({t for text in SAMPLE_TEXTS for t in TOKEN_RE.findall(text)} | set(TOKENS))
CHARS = list("()[]{}:.,;=+-*/@'\"#\\ \n\t_x0") + ["\x00", "\u00e9", "\u2028", "\x0c"]


@st.composite
def mutations(draw, text=None):
    if text is None:
        text = draw(st.sampled_from(SAMPLE_TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        level = draw(st.sampled_from(["char", "line", "token"]))
        if level == "char":
            text = "".join(_mutate_units(draw, list(text), CHARS))
        elif level == "line":
            text = "".join(_mutate_units(draw, text.splitlines(keepends=True), ALL_LINES))
        else:
            text = "".join(_mutate_units(draw, TOKEN_RE.findall(text), ALL_TOKENS))
    return text


# ============================================================================ the tests

@fuzz_settings("text")
@given(random_text)
def test_random_text(source):
    run_in_process(source)


@fuzz_settings("tokens")
@given(token_sequences())
def test_random_token_sequences(source):
    run_in_process(source)


@fuzz_settings("program")
@given(programs())
def test_grammar_derived_programs(source):
    run_in_process(source)


@fuzz_settings("mutation")
@given(mutations())
def test_mutated_samples(source):
    run_in_process(source)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_every_sample_survives_its_mutations(sample):
    """A few mutations of every sample (the strategy above picks samples at random)."""
    text = sample.read_text(encoding="utf-8")

    @settings(max_examples=6, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(mutations(text))
    def check(source):
        run_in_process(source)

    check()


def test_the_samples_themselves_pass_the_properties():
    for sample, text in zip(SAMPLES, SAMPLE_TEXTS):
        doc = run_in_process(text, filename=sample.name)
        assert doc["ok"] == (not sample.with_suffix(".err").exists()), sample


# ---------------------------------------------------------------- through the command

def gradcli_command():
    if os.environ.get("GRADCLI_CMD"):
        import shlex
        return shlex.split(os.environ["GRADCLI_CMD"])
    return [sys.executable, "-m", "gradcli"]


def run_cli(args, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([*gradcli_command(), *map(str, args)], capture_output=True, cwd=ROOT, env=env,
                          timeout=timeout, stdin=subprocess.DEVNULL)


LIMIT_ARGS = ["--seed", "0", "--max-steps", "20000", "--max-elements", "200000", "--timeout", "10"]


@settings(max_examples=BUDGET["cli"], derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.one_of(programs(), mutations(), token_sequences(), random_text), min_size=4, max_size=8))
def test_through_the_command(tmp_path_factory, sources):
    """A batch of fuzzed scripts through `gradcli run` (one process for the batch): exit code
    never 3, no traceback on stderr; with --json one strict, valid document."""
    folder = tmp_path_factory.mktemp("fuzz")
    files = []
    for i, text in enumerate(sources):
        path = folder / f"f{i}.grad"
        path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
        files.append(path)
    proc = run_cli(["run", "--json", *LIMIT_ARGS, *files])
    stderr = proc.stderr.decode("utf-8", errors="replace")
    assert "Traceback (most recent call last)" not in stderr, stderr
    assert proc.returncode in (0, 1, 2), (proc.returncode, stderr)
    doc = strict_loads(proc.stdout.decode("utf-8"))
    validate(doc)
    runs = doc.get("runs", [doc])
    if proc.returncode != 2:  # a usage error (device='cuda' without CuPy) stops before the batch
        assert len(runs) == len(files)
        for run, text in zip(runs, sources):
            assert run["exit_code"] in (0, 1), run["error"]
            if run["error"] is not None:
                check_location(text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff"), run["error"])
    proc = run_cli(["run", "--no-color", *LIMIT_ARGS, *files])
    stderr = proc.stderr.decode("utf-8", errors="replace")
    assert "Traceback (most recent call last)" not in stderr, stderr
    assert proc.returncode in (0, 1, 2), (proc.returncode, stderr)


# ============================================================================ the sandbox

# Escape attempts that tests/test_sandbox.py does not try (it has the classic ones): each is refused
# with a located error (never an internal one) and writes no file.
MORE_ESCAPES = [
    "type('A', (), {})", "type('A', (object,), {'x': 1})",
    "import numpy as np\nnp.fromfile('/etc/passwd')", "import numpy as np\nnp.loadtxt('/etc/passwd')",
    "import numpy as np\nnp.genfromtxt('/etc/passwd')", "import numpy as np\nnp.savetxt('x.txt', np.ones(2))",
    "import numpy as np\nnp.savez('x.npz', a=np.ones(2))", "import numpy as np\nnp.memmap('x.bin', mode='w+', shape=(2,))",
    "import numpy as np\nnp.lib", "import numpy as np\nnp.ctypeslib", "import numpy as np\nnp.testing",
    "import numpy as np\nnp.DataSource", "import numpy as np\nnp.load.__globals__", "import numpy as np\nnp.ones(2).base",
    "import numpy as np\nnp.ones(2).__array_interface__", "import numpy as np\nnp.array([print], dtype=object)",
    "import numpy as np\nnp.vectorize(print)(np.ones(2))", "import numpy as np\nnp.frompyfunc(print, 1, 1)",
    "import numpy as np\nnp.ones(2).view(np.recarray)", "import numpy as np\nnp.info(np)", "import numpy as np\nnp.__file__",
    "import torch\ntorch.hub", "import torch\ntorch.ops", "import torch\ntorch.utils.cpp_extension", "import torch\ntorch.jit",
    "import torch\ntorch.from_file('x.bin', size=2)", "import torch\ntorch.ones(2).storage()",
    "import torch\ntorch.ones(2).untyped_storage()", "import torch\ntorch.ones(2).numpy().tofile('x.bin')",
    "import torch\ntorch.Tensor.__subclasses__()", "import torch\ntorch.__file__", "import torch\ntorch.nn.__dict__",
    "import torch\ntorch.compile", "import torch\ntorch.serialization", "import torch\ntorch.multiprocessing",
    "import torch\ntorch.distributed", "import torch\ntorch.backends.__dict__", "import torch\ntorch.library",
    "import torch\ntorch.backends.cudnn.is_available = None", "import torch\ntorch.backends.mps = None",
    "import torch\ntorch.backends.cudnn.enabled = print", "import torch\ntorch.backends.cudnn.version = 1",
    "import torch.nn as nn\nnn.Linear(1, 1).register_forward_hook(open)\nnn.Linear(1, 1)(torch.ones(1))",
    "import torch\nx = torch.ones(1, requires_grad=True)\nx.register_hook(open)\n(x * 2).sum().backward()",
    "import torch\ntorch.optim.SGD.__init__.__globals__", "import torch\ntorch.Size([1]).__class__.__mro__",
    "import math\nmath.__loader__", "import math\nmath.sys", "import torch\ntorch.nn.functional.torch",
    "f'{1 .__class__}'", "f'{(1).__class__}'", "x = 1\nf'{x!r:{\"{0.__class__}\"}}'", "'%(a)s' % {'a': ().__class__}",
    "__builtins__", "help", "exit()", "quit()", "license", "memoryview(b'x')", "bytearray(10)", "classmethod",
    "staticmethod", "property", "object.__subclasses__()", "Exception.__subclasses__()", "BaseException.mro()", "print.__call__", "len.__self__",
    "[].append.__self__", "lambda: (yield)", "def f():\n    yield 1\nf().gi_frame.f_globals", "async def f(): pass",
    "def f():\n    yield 1\ng = f()\ng.gi_code", "try:\n    1 / 0\nexcept Exception as e:\n    t = e.with_traceback(None)",
    "try:\n    1 / 0\nexcept Exception as e:\n    x = '{0.__traceback__}'.format(e)",
    "import torch\ntorch.ones(2).__deepcopy__({})", "import torch\ntorch.ones(2).new_tensor(open)",
    "import torch\ntorch.tensor([1.]).grad_fn", "import torch\n(torch.ones(1, requires_grad=True) * 2).grad_fn._saved_self",
    "import torch\n(torch.ones(1, requires_grad=True) * 2).grad_fn.next_functions[0][0].variable.__class__",
    "import torch.nn as nn\nnn.Linear(1, 1).state_dict().__class__.__init__",
    "import torch.nn as nn\nnn.Linear(1, 1)._parameters", "import torch.nn as nn\nnn.Module.__call__",
    "import torch.nn as nn\nnn.Linear(1, 1).forward.__func__", "import torch\ntorch.manual_seed(0).__class__.__init__",
]


@pytest.mark.parametrize("src", MORE_ESCAPES)
def test_more_escape_attempts_are_refused(src, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_source(src, "escape.grad", RunOptions(timeout=10))
    err = result.error
    if err is None:  # harmless ones compute something: nothing of Python's may come out
        assert not _dangerous_values(result.variables), (src, result.variables)
        assert "grad_fn" in src or src.startswith("import torch\n(torch"), f"not refused: {src!r} -> {result.stdout!r}"
    else:
        assert not isinstance(err, InternalError), err.traceback_text
        assert err.line is not None and err.column is not None
    assert os.listdir(tmp_path) == []


def _dangerous_values(variables):
    import builtins
    import types
    bad_types = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType)
    bad_builtins = {getattr(builtins, n) for n in ("open", "eval", "exec", "compile", "getattr", "setattr", "delattr",
                                                   "globals", "locals", "vars", "__import__", "input", "breakpoint")}
    found = []
    for name, value in variables.items():
        module = getattr(value, "__module__", None) if callable(value) else None
        if isinstance(value, bad_types) or any(value is b for b in bad_builtins) or \
                module in ("os", "posix", "subprocess", "sys", "io", "shutil", "pathlib", "importlib", "ctypes") or \
                (isinstance(value, dict) and "__builtins__" in value):
            found.append(name)
    return found


# Escape chains composed at random: a start (a literal, a namespace, a tensor, a module, a function,
# a generator, a format string) followed by attribute and item steps (dunders, private names and the
# public names that lead to Python internals) and calls.
ESCAPE_ROOTS = ["()", "[]", "{}", "''", "1", "1.5", "None", "True", "print", "len", "range(3)", "torch",
                "torch.ones(2)", "torch.ones(1, requires_grad=True) * 2", "nn", "nn.Linear(1, 1)", "F", "np",
                "np.ones(2)", "math", "lambda: 0", "(x for x in [1])", "iter([1])", "zip([1], [2])",
                "torch.float32", "torch.Size([2])", "torch.device('cpu')", "torch.optim", "torch.autograd",
                "torch.no_grad()", "'{0.__class__}'.format", "str.format", "type(1)", "super"]
ESCAPE_STEPS = [".__class__", ".__base__", ".__bases__", ".__mro__", ".__subclasses__()", ".__globals__",
                ".__dict__", ".__init__", ".__call__", ".__self__", ".__func__", ".__code__", ".__closure__",
                ".__builtins__", ".__module__", ".__getattribute__('x')", ".__reduce_ex__(2)", ".gi_frame",
                ".f_globals", ".f_back", ".tb_frame", ".mro()", "._data", "._version", "._modules", ".data",
                ".grad_fn", ".next_functions", "[0]", "[0][0]", ".variable", ".numpy()", ".base", ".ctypes",
                ".dtype", ".type", ".func", ".keywords", ".format", ".format_map", "('{0.__globals__}')",
                "()", "(1)", ".load", ".save", ".tofile", ".storage()", ".forward", ".apply", ".parameters()",
                ".state_dict()", ".register_hook", ".__getitem__", ".items()", ".real", ".T"]


PUBLIC_STEPS = [s for s in ESCAPE_STEPS if not s.lstrip(".").startswith("_")]


@st.composite
def escape_chains(draw):
    """Mostly public steps (they go deep), then maybe a private or dunder one."""
    chain = f"({draw(st.sampled_from(ESCAPE_ROOTS))})"
    for _ in range(draw(st.integers(0, 4))):
        chain += draw(st.sampled_from(PUBLIC_STEPS))
    if draw(st.booleans()) or chain.endswith(")"):
        chain += draw(st.sampled_from(ESCAPE_STEPS))
    return "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport numpy as np\nimport math\n" \
           f"r = {chain}\n"


@st.composite
def getattr_chains(draw):
    """The same steps read through getattr, each name put together at run time ('_' + '_class__')."""
    chain = f"({draw(st.sampled_from(ESCAPE_ROOTS))})"
    for _ in range(draw(st.integers(1, 4))):
        step = draw(st.sampled_from(ESCAPE_STEPS))
        name = step[1:]
        chain = f"getattr({chain}, {name[:1]!r} + {name[1:]!r})" if name.isidentifier() else chain + step
    return "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport numpy as np\nimport math\n" \
           f"r = {chain}\n"


@fuzz_settings("escape")
@given(st.one_of(escape_chains(), getattr_chains()))
def test_composed_escape_chains_reach_nothing(source):
    cwd = os.getcwd()
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            result = run_source(source, "escape.grad", RunOptions(timeout=10, max_steps=10_000))
            assert os.listdir(folder) == [], source
        finally:
            os.chdir(cwd)
    if result.error is not None:
        assert not isinstance(result.error, InternalError), result.error.traceback_text
        check_location(source, {"line": result.error.line, "column": result.error.column,
                                "end_line": result.error.end_line, "end_column": result.error.end_column})
    else:
        assert not _dangerous_values(result.variables), (source, result.variables)
