"""Red team, sixth round (docs/robustness.md, "The sandbox"): a script's own code that gradcli ran
outside the script's limits (an uncaught error's ``__str__``), source text that makes a diagnostic show
another line or another order than the script holds (line separators, bidirectional controls), and
what `gradcli test` reads and holds (links out of the tested tree, huge expectation files, a flood of
output). Each attack ends in a clean located error of the script (exit 1), in a report line, or in what
Python with PyTorch prints; never a traceback, an internal error, a lost limit or an unbounded parent."""
from __future__ import annotations

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from case_support import refused_script, run_script

from gradcli.render import diagnostics

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import torch\nimport torch.nn as nn\n"

run = partial(run_script, HEAD, "round6.grad")
refused = partial(refused_script, HEAD, "round6.grad")


def gradcli(*args, input=None, cwd=ROOT, env=None):
    full = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    full.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), full.get("PYTHONPATH", "")]), **(env or {}))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, cwd=cwd, env=full,
                          input=input, timeout=240)


# ---------------------------------------------------------------- the script's code after its run

STR_LOOPS = """class Forever:
    def __str__(self):
        while True:
            pass
"""


@pytest.mark.parametrize("raising", ["raise ValueError(Forever())",
                                     "class Bad(ValueError):\n    pass\nraise Bad(Forever())"])
def test_an_uncaught_errors_str_that_never_ends_is_the_runs_step_limit(raising):
    # the check for NumPy's 64-dims error read str(exc) of every uncaught ValueError: the script's
    # __str__ ran there, outside the runner's handling, and its step limit was an internal error
    result = refused(STR_LOOPS + raising, "RuntimeError", "step limit of 100000 exceeded", max_steps=100_000)
    assert result.error.line == HEAD.count("\n") + 3  # the __str__'s loop


def test_an_uncaught_errors_str_runs_once_and_its_text_is_the_message():
    src = ("class Loud:\n    def __str__(self):\n        print('str ran')\n"
           "        return 'maximum supported dimension for an ndarray is 64, found 65'\n"
           "raise ValueError(Loud())\n")
    result = refused(src, "ValueError", "maximum supported dimension for an ndarray")
    assert result.stdout == "str ran\n"  # the message is the script's error, never gradcli's dims limit
    assert "GradScript limit" not in result.error.message


# ---------------------------------------------------------------- what a diagnostic shows

@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0c", "\x1c", "\x1d", "\x1e", "\x0b"])
def test_the_source_line_under_an_error_is_the_line_that_failed(tmp_path, separator):
    # str.splitlines() splits at U+2028, NEL, form feed, ...: a comment holding one shifted the
    # excerpt, and the error showed an innocent line of the script instead of the one that failed
    script = tmp_path / "shifted.grad"
    script.write_text(f"x = 1  # a{separator}b\ny = 2\nz = undefined_name\n", encoding="utf-8")
    result = gradcli("run", str(script))
    assert result.returncode == 1, result.stderr
    err = result.stderr.decode()
    assert "3 | z = undefined_name" in err, err
    assert "y = 2" not in err
    lines = diagnostics.source_lines("a\u2028b\nc\r\nd\re\n")
    assert lines == ["a\u2028b", "c", "d", "e"]


BIDI = "\u202e\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d\u200e\u200f\u061c\u2028\u2029"


def test_bidirectional_controls_are_shown_escaped_in_diagnostics(tmp_path):
    # "Trojan source": U+202E in a message or a source line reorders what the reader sees
    assert diagnostics.visible("abc\u202edef") == "abc\\u202edef"
    assert diagnostics.visible(BIDI) == "".join(f"\\u{ord(c):04x}" if ord(c) > 0xff else f"\\x{ord(c):02x}"
                                                for c in BIDI)
    assert diagnostics.visible("é ∇ 日本 \u00a0 \u200d") == "é ∇ 日本 \u00a0 \u200d"  # ZWJ joins emoji: kept
    script = tmp_path / "bidi.grad"
    script.write_text('s = "abc\u202edef"\nprint(s)\nx = 1 + "a"  # \u2066 hidden\n', encoding="utf-8")
    result = gradcli("run", str(script))
    assert result.returncode == 1
    assert result.stdout.decode() == "abc\u202edef\n"  # what the script prints: as Python prints it
    err = result.stderr.decode()
    assert "# \\u2066 hidden" in err and not any(c in err for c in BIDI), err
    assert "  3 | x = 1 + \"a\"" in err
