"""Red team, fourth round (docs/robustness.md, "The sandbox"): what a script can send the user's
terminal through gradcli's own diagnostics (control characters in error messages, source lines,
warnings and `gradcli test` reports), a MemoryError the script raises itself under the memory cap,
print options that make one number's text gigabytes long. Each attack ends in a clean located error
(exit 1) or in what Python with PyTorch prints, never a traceback, an internal error or a hang."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from case_support import refused_script, run_script

from gradcli.render import diagnostics
from gradcli.testing import reports

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import torch\nimport torch.nn as nn\n"

# what a terminal acts on: clear the screen, OSC 52 (write the clipboard), a window title, CSI as
# one C1 character, a carriage return that hides what came before on the line
HOSTILE = "a\x1b[2Jb\x1b]52;c;aGVsbG8=\x07c\x1b]0;title\x07d\x9b31me\rf"
SHOWN = "a\\x1b[2Jb\\x1b]52;c;aGVsbG8=\\x07c\\x1b]0;title\\x07d\\x9b31me\\rf"
CONTROLS = ("\x1b", "\x07", "\x9b", "\r")

run = partial(run_script, HEAD, "round4.grad")
refused = partial(refused_script, HEAD, "round4.grad")


def gradcli(*args, input=None, cwd=ROOT):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, cwd=cwd, env=env,
                          input=input, timeout=180)


# ---------------------------------------------------------------- control characters in diagnostics

def test_visible_escapes_what_a_terminal_acts_on_and_keeps_the_rest():
    assert diagnostics.visible(HOSTILE) == SHOWN
    text = "tab\there\nnew line, é, ∇, 日本, U+00A0:\u00a0"
    assert diagnostics.visible(text) == text
    assert diagnostics.visible("\x00\x7f\x85") == "\\x00\\x7f\\x85"


def test_an_error_message_sends_no_control_sequence_to_the_terminal():
    # Python writes a message's ESC, BEL, CR, ... as they are; gradcli's panel (plain or Rich) showed
    # them too, so `raise ValueError(...)` could clear the user's screen or set their clipboard
    result = refused(f"raise ValueError({HOSTILE!r})", "ValueError")
    assert result.error.message == HOSTILE  # the error itself (and --json's) keeps the text
    err = result.error
    plain = diagnostics.error_lines(err.type_name, err.message, err.filename, err.line, err.column,
                                    err.end_line, err.end_column, err.hint, HEAD + f"raise ValueError({HOSTILE!r})")
    assert f"ValueError: {SHOWN}" in plain
    assert not any(c in line for line in plain for c in CONTROLS)
    stream = io.StringIO()
    diagnostics.print_error(err, stream, True, source=HEAD + "raise ValueError(x)\n")
    shown = stream.getvalue()
    assert "\\x1b]52;c;aGVsbG8=" in shown
    for sequence in ("\x1b[2J", "\x1b]52", "\x1b]0;", "\x07", "\x9b", "\r"):
        assert sequence not in shown, sequence


def test_a_source_line_with_control_characters_is_shown_escaped_with_the_caret_in_place():
    src = 'x = 1\ny = "\x1b[2J\x1b]0;t\x07" + q\n'
    lines = diagnostics.error_lines("NameError", "name 'q' is not defined", "f.grad", 2, 20, 2, 21, None, src)
    code, caret = lines[1], lines[2]
    assert code == '  2 | y = "\\x1b[2J\\x1b]0;t\\x07" + q'
    assert caret.index("^") == code.index("q") and caret.count("^") == 1
    long = "y = '" + "\x1b" * 200 + "' + q\n"
    lines = diagnostics.error_lines("NameError", "m", "f.grad", 1, 210, 1, 211, None, long)
    assert "\x1b" not in "".join(lines) and lines[2].index("^") == lines[1].index("q")


def test_file_names_hints_and_warnings_are_shown_escaped():
    lines = diagnostics.error_lines("ValueError", "m", "a\x1b[2J.grad", 1, 1, 1, 2, "h\x1b]0;t\x07", "x\n")
    assert lines[0] == "a\\x1b[2J.grad:1:1" and lines[-1] == "hint: h\\x1b]0;t\\x07"
    for color in (False, True):
        stream = io.StringIO()
        diagnostics.WarningPrinter(stream, color, "w.grad").show("UserWarning", HOSTILE, 3, 1)
        assert "\x1b]52" not in stream.getvalue() and "\x1b[2J" not in stream.getvalue()
        assert "\\x1b]52;c;aGVsbG8=" in stream.getvalue()


def test_gradcli_run_writes_control_characters_of_stdout_as_python_and_escapes_them_on_stderr():
    # stdout stays byte for byte what Python prints (the script's own print); stderr is gradcli's
    proc = gradcli("run", "-e", f"print({HOSTILE!r})\nraise ValueError({HOSTILE!r})\n")
    assert proc.returncode == 1
    assert proc.stdout == (HOSTILE + "\n").encode()
    assert f"ValueError: {SHOWN}".encode() in proc.stderr
    assert not any(c.encode() in proc.stderr for c in ("\x1b", "\x07", "\r"))


def test_gradcli_test_reports_escape_a_scripts_control_characters(tmp_path):
    # the diff of a failing script's stdout and its error's message went raw to the terminal or CI log
    (tmp_path / "a.grad").write_text(f"print({HOSTILE!r})\n")
    (tmp_path / "a.out").write_text("other\n")
    (tmp_path / "b.grad").write_text(f"raise ValueError({HOSTILE!r})\n")
    (tmp_path / "b.out").write_text("")
    for fmt in ("text", "github"):
        proc = gradcli("test", ".", "--format", fmt, "-j", "1", cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        assert not any(c.encode() in proc.stdout for c in CONTROLS), proc.stdout
        assert b"\\x1b]52;c;aGVsbG8=" in proc.stdout
    record = reports.Record("a.grad", reports.FAILED, 0.1, [f"unexpected ValueError: {HOSTILE}"], diff=f"+{HOSTILE}\n")
    assert not any(c in reports.text_line(record) for c in CONTROLS)
    assert not any(c in reports.github_annotation(record) for c in CONTROLS)


# ---------------------------------------------------------------- the script's own MemoryError

@pytest.mark.parametrize("args", [(), ("--max-memory", "300M")])
def test_a_memory_error_the_script_raises_keeps_its_text(args):
    # under the memory cap every MemoryError became "the run needs more memory than --max-memory
    # allows", the script's own `raise MemoryError('...')` too; Python prints its message
    proc = gradcli("run", *args, "-e", "raise MemoryError('out of tokens')")
    assert proc.returncode == 1
    assert b"MemoryError: out of tokens\n" in proc.stderr and b"--max-memory" not in proc.stderr


def test_an_allocation_past_the_cap_still_names_the_cap():
    proc = gradcli("run", "--max-memory", "200M", "-e", "x = [[0] * (9 * 10 ** 6) for i in range(40)]")
    assert proc.returncode == 1
    assert b"MemoryError: the run needs more memory than --max-memory allows (200 MiB)" in proc.stderr


def test_the_calculator_and_repl_word_the_cap_only_for_allocations():
    from gradcli.cli.common import cap_memory_error
    assert cap_memory_error("MemoryError", "out of tokens", 300 << 20, raised=True) is None
    assert cap_memory_error("MemoryError", "", 300 << 20, raised=True) is None
    assert cap_memory_error("MemoryError", "", 300 << 20)[0].startswith("the run needs more memory")
    result = refused("raise MemoryError('x')", "MemoryError", "x")
    assert result.error.raised_by_script
    result = refused("x = 'a' * 10 ** 10", "MemoryError", "exceeds the limit")
    assert not result.error.raised_by_script


# ---------------------------------------------------------------- print options

@pytest.mark.parametrize("value", ["torch.ones(2) / 3", "torch.zeros(2)", "torch.tensor(0.5)",
                                   "torch.tensor([1e-9, 1e9])", "torch.ones(2, dtype=torch.float64)"])
def test_a_precision_whose_numbers_outgrow_the_string_limit_is_refused_at_the_print(value):
    # torch formats each float with '{:.{precision}f}': precision=10**9 made a gigabyte per number
    # inside one C call (no statement ended; only --timeout's kill stopped it, without a line)
    src = f"torch.set_printoptions(precision=10 ** 9)\nx = {value}\ntry:\n    print(x)\nexcept MemoryError:\n    print('caught')\n"
    result = refused(src, "MemoryError", "exceeds the limit of 10000000 items")
    assert result.error.line == 6 and "caught" not in result.stdout


def test_big_precisions_within_the_limit_print_as_torch_does():
    src = "torch.set_printoptions(precision=60)\nprint(torch.ones(2) / 3)\nprint(torch.tensor([1, 2]))\n"
    result = run(src)
    assert result.error is None, result.error.message
    torch = pytest.importorskip("torch")
    import contextlib
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            torch.set_printoptions(precision=60)
            print(torch.ones(2) / 3)
            print(torch.tensor([1, 2]))
    finally:
        torch.set_printoptions(profile="default")
    assert result.stdout == out.getvalue()


def test_the_repl_keeps_the_text_of_a_memory_error_its_input_raises(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", HOME=str(tmp_path), PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "gradcli", "repl", "--max-memory", "300M"],
                          input=b"raise MemoryError('out of tokens')\n1 + 1\n", capture_output=True, cwd=tmp_path,
                          env=env, timeout=180)
    assert b"MemoryError: out of tokens" in proc.stderr and b"--max-memory" not in proc.stderr, proc.stderr
    assert proc.stdout.endswith(b"2\n")


# ---------------------------------------------------------------- NumPy items of any size

@pytest.mark.parametrize("src, words", [
    ("np.zeros(3, dtype='V1000000000')", "a NumPy dtype of 1000000000 bytes per item exceeds the limit of 65536"),
    ("np.zeros(3, 'U1000000')", "a NumPy dtype of 4000000 bytes per item"),
    ("np.ones(3).astype('S100000')", "a NumPy dtype of 100000 bytes per item"),
    ("np.zeros(10, dtype=('f8', (10 ** 4, 10 ** 4)))", "a NumPy dtype of 800000000 bytes per item"),
    ("np.zeros(2, dtype=[('a', 'V2000000')])", "a NumPy dtype of 2000000 bytes per item"),
    ("np.empty(3, np.dtype('V1000000000'))", "bytes per item"),
])
def test_a_numpy_dtype_of_huge_items_is_refused_before_allocating(src, words):
    # the element limits counted items: np.zeros(3, dtype='V1000000000') was 3 GB in 3 elements
    refused("import numpy as np\nx = " + src, "MemoryError", words)


def test_numpy_items_wider_than_8_bytes_count_in_the_element_limit():
    refused("import numpy as np\nx = np.zeros(10 ** 6, 'U16384')", "RuntimeError",
            "array (in 8-byte elements) of 8192000000 elements exceeds the limit of 100000000")
    refused("import numpy as np\nx = np.full((10 ** 4, 10 ** 4), b'x', 'S9')", "RuntimeError", "(in 8-byte elements)")


def test_numpy_dtypes_of_ordinary_items_work_as_in_python():
    src = ("import numpy as np\nprint(np.array(['ab', 'c']), np.zeros(3, 'U5'), np.zeros((2, 2), np.float64).dtype, "
           "np.ones(3).astype('float32').dtype)\nprint(np.full(3, 7, 'int64'), np.eye(2, dtype='f4'), "
           "np.einsum('ij,jk->ik', np.ones((2, 2)), np.ones((2, 2))), np.zeros(2, dtype=np.dtype('U100')).shape)\n")
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == ("['ab' 'c'] ['' '' ''] float64 float32\n[7 7 7] [[1. 0.]\n [0. 1.]] [[2. 2.]\n [2. 2.]] (2,)\n")


def test_the_pytest_plugin_shows_a_failing_scripts_text_escaped(tmp_path):
    (tmp_path / "a.grad").write_text(f"print({HOSTILE!r})\nraise ValueError({HOSTILE!r})\n")
    (tmp_path / "a.out").write_text("other\n")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE", "PYTEST_ADDOPTS")}
    # -p loads the plugin; an installed gradcli's pytest11 entry point would load it a second time
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
               PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "gradcli.testing.pytest_plugin", "--gradcli", "-q",
                           "-p", "no:cacheprovider", "-o", "addopts=", str(tmp_path)],
                          capture_output=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert b"\\x1b]52;c;aGVsbG8=" in proc.stdout
    assert not any(c.encode() in proc.stdout for c in ("\x1b]", "\x1b[2J", "\x07", "\x9b")), proc.stdout[-2000:]


# ---------------------------------------------------------------- the language's long ranges into the engine

def test_tensors_of_ranges_short_and_long_as_torch_makes_them():
    # a range longer than 100,000 is the language's step-counted stand-in: torch.tensor(range(200000))
    # said 'Could not infer dtype of BigRange' (and of a plain range: 'of range'), where torch makes the tensor
    src = ("print(torch.tensor(range(5)), torch.tensor(range(2, 9, 3), dtype=torch.float32), torch.as_tensor(range(0)))\n"
           "print(torch.tensor(range(200000)).sum(), torch.as_tensor(range(200000)).shape)\n")
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == ("tensor([0, 1, 2, 3, 4]) tensor([2., 5., 8.]) tensor([])\n"
                             "tensor(19999900000) torch.Size([200000])\n")
    refused("x = torch.tensor(range(10 ** 12))", "RuntimeError", "tensor of 1000000000000 elements exceeds the limit")


def test_gradcli_graph_shows_a_source_line_with_control_characters_escaped(tmp_path):
    (tmp_path / "g.grad").write_text('import torch\nx = torch.ones(2, requires_grad=True)\n'
                                     'y = (x * 2).sum()  # \x1b]52;c;aGVsbG8=\x07\x1b[2J\n')
    proc = gradcli("graph", "g.grad", "-v", "y", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert b"# \\x1b]52;c;aGVsbG8=\\x07\\x1b[2J" in proc.stdout
    assert b"\x1b]" not in proc.stdout and b"\x07" not in proc.stdout
