"""Red team, tenth round (docs/robustness.md, "The sandbox"): the surfaces new in session 13
(distributions, dataclasses, asarray, the LU/lstsq family, torch.utils.data's submodules), Python
ints past 64 bits where torch takes an int, script sequences as indices, and what the calculator
echoes of its expression. Each attack ends in a clean located error of the script (exit 1) or in
what Python with PyTorch prints; never a traceback, an internal error, a hang or a raw control
character on the user's terminal."""
from __future__ import annotations

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from case_support import refused_script, run_script

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import torch\nimport itertools\nimport math\nimport numpy as np\n"

run = partial(run_script, HEAD, "round10.grad")
refused = partial(refused_script, HEAD, "round10.grad")


def gradcli(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=240)


# ---------------------------------------------------------------- the calculator's echo of EXPR

@pytest.mark.parametrize("order", ["1", "2"])
def test_the_calculator_shows_control_characters_of_its_expression_escaped(order):
    # a raw ESC/BEL inside a string literal (or a comment) of EXPR is valid source: the header line, the
    # table's column title, the Hessian's heading and the note echoed it to the terminal (OSC 0 sets the
    # window title, OSC 52 the clipboard)
    expr = "x*x + len('\x1b]52;c;aGk=\x07') + 0*y.detach()"
    proc = gradcli("grad", "--order", order, expr, "x=1", "y=2")
    assert proc.returncode == 0, proc.stderr
    for stream in (proc.stdout, proc.stderr):
        assert "\x1b" not in stream and "\x07" not in stream
    assert "x*x + len('\\x1b]52;c;aGk=\\x07') + 0*y.detach() = tensor(13.)" in proc.stdout
    assert "d(x*x + len('\\x1b]52;c;aGk=\\x07')" in proc.stdout
    assert "note: x*x + len('\\x1b]52;c;aGk=\\x07')" in proc.stderr


def test_the_calculator_keeps_its_expression_whole_in_json():
    expr = "x + len('\x1b]0;t\x07')"
    proc = gradcli("grad", "--json", expr, "x=1")
    assert proc.returncode == 0, proc.stderr
    import json  # noqa: PLC0415
    assert json.loads(proc.stdout)["calculator"]["expr"] == expr
