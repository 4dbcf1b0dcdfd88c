"""Red team, third round (docs/robustness.md, "The sandbox"): script code that gradcli runs where no
statement runs (an error's text), hostile calculator arguments, and the newer doors (lazy modules,
schedulers' state, data loading, generators). Each attack ends in a clean located error of the script
(exit 1) or a usage error (exit 2), never a traceback, an internal error or a lost limit; where
Python with PyTorch runs the code fine, gradcli prints what it prints."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import partial

import pytest
from case_support import refused_script, run_script

from gradcli.cli.values import ValueSyntaxError, parse_assignment
from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions

HEAD = "import torch\nimport torch.nn as nn\n"

run = partial(run_script, HEAD, "round3.grad")
refused = partial(refused_script, HEAD, "round3.grad")


# ---------------------------------------------------------------- an error's text runs script code

EXTRA_REPR = "class M(nn.Module):\n    def extra_repr(self):\n{body}\nraise RuntimeError(M())\n"


def test_a_limit_while_an_uncaught_errors_text_is_made_is_the_runs_limit():
    # str(RuntimeError(M())) calls the module's repr, so the script's extra_repr, after the statement
    # ended: Python hangs there; gradcli's step limit stops it as a script error at the loop
    src = EXTRA_REPR.format(body="        while True:\n            pass")
    result = refused(src, "RuntimeError", "step limit of 5000 exceeded", max_steps=5000)
    assert result.error.line == 5  # the while loop


def test_recursion_while_an_uncaught_errors_text_is_made():
    src = EXTRA_REPR.format(body="        return repr(self)")
    refused(src, "RecursionError", "maximum recursion depth exceeded")


@pytest.mark.parametrize("body", ["        raise ValueError('boom')", "        return 5"])
def test_an_errors_text_that_fails_is_pythons_placeholder(body):
    # Python: "RuntimeError: <exception str() failed>"
    result = refused(EXTRA_REPR.format(body=body), "RuntimeError")
    assert result.error.message == "<exception str() failed>" and result.error.line == 6


# ---------------------------------------------------------------- the calculator's NAME=VALUE


@pytest.mark.parametrize("arg, words", [
    ("x=" + "[" * 65 + "1" + "]" * 65, "nest more than 64 deep"),
    ("x=" + "[" * 50_000 + "1" + "]" * 50_000, "nest more than 64 deep"),  # no RecursionError
    ("x=" + "9" * 4301, "more than 4300 digits"),
    ("x=-" + "9" * 5000, "more than 4300 digits"),
])
def test_calculator_values_beyond_what_a_tensor_holds_are_usage_errors(arg, words):
    with pytest.raises(ValueSyntaxError, match=words):
        parse_assignment(arg)


def test_calculator_values_at_the_limits_still_parse():
    name, value = parse_assignment("x=" + "[" * 64 + "1" + "]" * 64)
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    assert (name, depth, value) == ("x", 64, 1)
    assert parse_assignment("y=" + "9" * 4300)[1] == int("9" * 4300)


# ---------------------------------------------------------------- methods read from their class

@pytest.mark.parametrize("src", [
    "x = str.ljust('x', 10 ** 10)",
    "x = str.center('x', 10 ** 10)",
    "x = str.zfill('1', 10 ** 10)",
    "f = str.rjust\nx = f('a', 10 ** 10)",
    "x = str.join('x' * 10 ** 6, ['a'] * 10 ** 4)",
    "x = str.expandtabs('\\t' * 10 ** 6, 10 ** 6)",
    "x = type('').translate('a' * 10 ** 6, {97: 'x' * 10 ** 6})",
    "x = str.replace('ab', '', 'x' * 10 ** 7)",
    "l = [1]\nlist.extend(l, iter(l))",
    "x = int.to_bytes(1, 10 ** 10, 'big')",
    "x = list(map(str.ljust, ['x'], [10 ** 10]))",
])
def test_unbound_methods_keep_the_size_limit(src):
    # the bound forms ('x'.ljust(n)) were checked; the same methods read from the class were not
    refused(src, "MemoryError", "exceeds the limit of 10000000 items")


def test_unbound_methods_still_work_as_in_python():
    src = ('print(str.ljust, list.extend, int.to_bytes)\n'
           'print(str.ljust("a", 3) + "|", list(map(str.zfill, ["1", "22"], [3, 3])), str.join("-", ["a", "b"]))\n'
           'l = [1]\nlist.extend(l, (2, 3))\n'
           'print(l, int.to_bytes(5, 2, "big"), str.replace("aa", "a", "bb"), str.center("x", 5, "*"))\n')
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == ("<method 'ljust' of 'str' objects> <method 'extend' of 'list' objects> "
                             "<method 'to_bytes' of 'int' objects>\n"
                             "a  | ['001', '022'] a-b\n[1, 2, 3] b'\\x00\\x05' bbbb **x**\n")
    refused("str.ljust(1, 3)", "TypeError", "descriptor 'ljust' for 'str' objects doesn't apply to a 'int' object")


def test_a_device_index_of_thousands_of_digits_is_torchs_error():
    refused("torch.device('cuda:' + '9' * 5000)", "RuntimeError", "Could not parse device index '999")


# ---------------------------------------------------------------- script values in the engine's global state

@pytest.mark.parametrize("value", ["print", "f", "nn.Linear(1, 1)", "[1]"])
def test_print_options_holding_a_script_value(value):
    # torch keeps sci_mode as given (any truthy value: scientific notation); the runner saves and
    # restores the options around a run: that copy deep-copied the value (for print or a script
    # function, the run's whole interpreter state: a RecursionError, and every later run failed)
    src = f"def f():\n    pass\ntorch.set_printoptions(sci_mode={value})\nprint(torch.ones(2) / 3)\n"
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == "tensor([3.3333e-01, 3.3333e-01])\n"
    again = run("print(torch.ones(2) / 3)")
    assert again.error is None and again.stdout == "tensor([0.3333, 0.3333])\n"


# ---------------------------------------------------------------- the REPL's :load

def test_repl_load_reads_no_more_than_a_script_may_hold(tmp_path):
    # `:load /dev/zero` read until the child's memory cap ended the session; now it is refused at
    # the size limit of a script, and the session goes on
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, NO_COLOR="1", HOME=str(tmp_path), PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "gradcli", "repl"], input=":load /dev/zero\nx = 1\nx + 1\n",
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert "cannot load /dev/zero: it is larger than the limit of 2,000,000 characters" in proc.stderr
    assert "process ended" not in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout.endswith("2\n") and proc.returncode == 0


# ---------------------------------------------------------------- BaseException raised by the script

@pytest.mark.parametrize("src, type_name, message", [
    ("raise GeneratorExit", "GeneratorExit", ""),
    ("raise BaseException('q')", "BaseException", "q"),
    ("class E(BaseException):\n    pass\ndef f():\n    raise E('deep')\nf()", "E", "deep"),
    ("def g():\n    yield 1\n    raise GeneratorExit('from g')\nfor v in g():\n    pass", "GeneratorExit", "from g"),
])
def test_a_base_exception_the_script_raises_is_its_error(src, type_name, message):
    # not an Exception, so it went past the runner's handler: an internal error, exit 3
    result = refused(src, type_name)
    assert result.error.message == message


def test_an_evaluated_expression_raising_a_base_exception_is_the_scripts_error():
    from gradcli.lang.runner import Session
    session = Session(RunOptions(timeout=10))
    assert session.run("def f():\n    raise GeneratorExit('e')\n", "def.grad").error is None
    with pytest.raises(GradScriptError) as info:
        session.evaluate("f()")
    assert info.value.type_name == "GeneratorExit" and not isinstance(info.value, InternalError)


# ---------------------------------------------------------------- --json of a run's big tensors

def test_json_of_tensors_past_its_limit_is_a_clean_limit_error(tmp_path):
    # every tensor's values became a Python list of floats: a 9e7-element tensor took 75 s and more
    # memory than --max-memory, then an internal error; now the tensors past 10,000,000 numbers are
    # left out at once and the run says so (exit 1), keeping what it printed and the other tensors
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = "print('hi')\nbig = torch.zeros(10 ** 7 + 1)\nsmall = torch.ones(2)\n"
    proc = subprocess.run([sys.executable, "-m", "gradcli", "run", "--json", "-e", code], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1 and doc["exit_code"] == 1 and not doc["ok"]
    assert doc["error"]["type"] == "MemoryError"
    assert "limit of 10,000,000 numbers that --json writes" in doc["error"]["message"]
    assert "not written: big" in doc["error"]["message"]
    assert list(doc["tensors"]) == ["small"] and doc["outputs"][0]["text"] == "hi\n"


# ---------------------------------------------------------------- script values into this session's new APIs

NEW_CALLS = [
    "nn.utils.rnn.PackedSequence({v})", "nn.utils.rnn.pad_sequence([t, {v}])", "nn.utils.rnn.pack_sequence({v})",
    "torch.histc(t, bins={v})", "h = t.register_hook(lambda g: {v})\nt.sum().backward()",
    "h = lin.register_full_backward_hook(lambda m, gi, go: {v})\nlin(t).sum().backward()",
    "list(DataLoader([{v}, {v}], batch_size=2))", "list(DataLoader([1, 2], collate_fn={v}))",
    "list(DataLoader({v}))", "random_split({v}, [1, 1])", "TensorDataset(t, {v})",
    "s = torch.optim.lr_scheduler.StepLR(opt, 1)\ns.load_state_dict({v})",
    "torch.optim.lr_scheduler.LambdaLR(opt, lambda e: {v})", "nn.LazyLinear(2)({v})",
    "F.triplet_margin_with_distance_loss(t, t, t, distance_function={v})",
]


@pytest.mark.parametrize("call", NEW_CALLS)
def test_script_values_into_new_apis_are_the_scripts_errors(call):
    # nn.utils.rnn.PackedSequence(5) raised torch's AssertionError as a bare one: an internal error
    from test_sandbox_doors import ODD_HEAD, ODD_VALUES

    from gradcli.lang.runner import Session
    session = Session(RunOptions(seed=0, timeout=10, max_steps=20_000, max_elements=100_000))
    head = ODD_HEAD + ("from torch.utils.data import DataLoader, TensorDataset, random_split\n"
                       "lin = nn.Linear(2, 2)\nopt = torch.optim.SGD(lin.parameters(), lr=0.1)\n")
    assert session.run(head, "head.grad").error is None
    for value in ODD_VALUES:
        src = call.format(v=value)
        error = session.run(src + "\n", "odd.grad").error
        assert not isinstance(error, InternalError), (src, error.traceback_text)
        assert error is None or error.line is not None, src


# ---------------------------------------------------------------- output floods

def _gradcli(tmp_path, *args):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, env=env, cwd=tmp_path,
                          timeout=300)


def test_printed_text_is_streamed_not_held(tmp_path):
    # the child kept every printed line (and so did the parent): 300 MB of output under a 64 MiB
    # --max-memory was an internal error (MemoryError, exit 3); Python prints it all
    code = "s = 'x' * 10 ** 6\nfor i in range(300):\n    print(s)\nprint('end')\n"
    proc = _gradcli(tmp_path, "run", "--max-memory", "64M", "-e", code)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert len(proc.stdout) == 300 * (10 ** 6 + 1) + 4 and proc.stdout.endswith(b"end\n")


def test_json_output_past_its_limit_is_a_located_limit_error(monkeypatch):
    # under --json the parent holds every line for the document: past MAX_JSON_OUTPUT characters the
    # script stops at the print, a MemoryError that no except catches
    from gradcli.cli import runcmd
    from gradcli.cli.common import Flags
    monkeypatch.setattr(runcmd, "MAX_JSON_OUTPUT", 1000)
    sent = []
    src = runcmd.Source("flood.grad", "print('start')\ntry:\n    while True:\n        print('x' * 100)\n"
                                      "except BaseException:\n    print('caught')\n")
    data = runcmd.execute(src, Flags(json=True), RunOptions(timeout=10), False, lambda *m: sent.append(m))
    assert data["kind"] == "script" and data["error"]["type"] == "MemoryError"
    assert "limit of 1,000 characters that a --json document holds" in data["error"]["message"]
    assert data["error"]["line"] == 4
    texts = [m[1] for m in sent if m[0] == "out"]
    assert texts[0] == "start\n" and "caught\n" not in texts and sum(map(len, texts)) <= 1000


def test_calculator_json_past_its_limit_is_a_clean_limit_error(tmp_path):
    # a Jacobian of 3,200 variables (10 million numbers, within --max-elements) was written as
    # Python floats: a 9,000-variable one outgrew the run's memory (an internal error)
    values = "[" + ",".join(["1"] * 3200) + "]"
    proc = _gradcli(tmp_path, "grad", "x*1", f"x={values}", "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1 and doc["exit_code"] == 1 and doc["error"]["type"] == "MemoryError"
    assert "10,246,400 numbers: more than the limit of 10,000,000 that --json writes" in doc["error"]["message"]


def test_repl_streams_what_an_input_prints(tmp_path):
    # the REPL's session kept every line of an input too: 300 MB under a 64 MiB --max-memory was a
    # MemoryError of the input
    code = "s = 'x' * 10 ** 6\nfor i in range(300):\n    print(s)\n\nprint('end')\n"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, NO_COLOR="1", HOME=str(tmp_path), PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "gradcli", "repl", "--max-memory", "64M"], input=code.encode(),
                          capture_output=True, env=env, cwd=tmp_path, timeout=300)
    assert b"MemoryError" not in proc.stderr, proc.stderr[-500:]
    assert proc.stdout.count(b"x" * 10 ** 6 + b"\n") == 300 and proc.stdout.endswith(b"end\n")


def test_gradcli_test_streams_a_scripts_lines_to_the_parent(tmp_path):
    # `gradcli test`'s child kept every printed line besides streaming it: under a 64 MiB
    # --max-memory, 100 MB of output was an internal error instead of a comparison. 63 MB: the most
    # the parent holds to compare (execute.MAX_TEST_OUTPUT, 64 Mi characters; round 6), still more
    # than the child's 64 MiB could keep beside its own state
    (tmp_path / "flood.grad").write_text("s = 'x' * 10 ** 6\nfor i in range(63):\n    print(s)\n")
    (tmp_path / "flood.out").write_text("")
    proc = _gradcli(tmp_path, "test", str(tmp_path), "--max-memory", "64M")
    report = proc.stdout.decode(errors="replace")
    assert proc.returncode == 1 and "stdout differs from flood.out" in report
    assert "internal error" not in report and "MemoryError" not in report
