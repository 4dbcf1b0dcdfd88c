"""The pytest plugin (gradcli/testing/pytest_plugin.py, entry point pytest11): off unless asked
for, then one item per .grad script with expectations, readable failure reports; importing it
loads nothing of gradcli (pytest imports it at every start-up)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "gradcli.testing.pytest_plugin"


def _plugin_args() -> list:
    """-p PLUGIN unless pytest loads it already through the installed entry point."""
    from importlib.metadata import entry_points

    installed = any(ep.value == PLUGIN for ep in entry_points(group="pytest11"))
    if installed and not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return []
    return ["-p", PLUGIN]


@pytest.fixture
def pytester(pytester, monkeypatch):
    """pytest runs in a subprocess here (pytester's in-process runs drop the modules they imported,
    and NumPy cannot load twice in a process), with this checkout importable."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return pytester


def _write(pytester, name, text):
    (pytester.path / name).write_text(text, encoding="utf-8")  # makefile() would strip the final newline


def _scripts(pytester):
    _write(pytester, "good.grad", "import torch\nx = torch.tensor(2., requires_grad=True)\n(x * x).backward()\n"
                                    "print(x.grad)\n")
    _write(pytester, "good.out", "tensor(4.)\n")
    _write(pytester, "bad.grad", "print(1)\nprint(2 + 1)\n")
    _write(pytester, "bad.out", "1\n2\n")
    _write(pytester, "raises.grad", "print(0)\nx = 1 / 0\n")
    _write(pytester, "raises.out", "0\n")
    _write(pytester, "raises.err", "ZeroDivisionError: division by zero\nline 2\n")
    _write(pytester, "loose.grad", "print('no expectation: not collected')\n")
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")


def test_off_unless_asked_for(pytester):
    _scripts(pytester)
    result = pytester.runpytest_subprocess(*_plugin_args())
    result.assert_outcomes(passed=1)


def test_option_collects_scripts_with_expectations(pytester):
    _scripts(pytester)
    result = pytester.runpytest_subprocess(*_plugin_args(), "--gradcli", "-v")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines([
        "*bad.grad::bad.grad FAILED*",
        "*good.grad::good.grad PASSED*",
        "*raises.grad::raises.grad PASSED*",
    ])
    # the failure report: what differs, where, and the diff
    result.stdout.fnmatch_lines([
        "bad.grad (line 2): stdout differs from bad.out at output line 2",
        "--- bad.out (expected)",
        "+++ bad.grad (actual stdout)",
        "-2",
        "+3",
    ])
    assert "loose.grad" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


def test_ini_option_and_timeout(pytester):
    _scripts(pytester)
    _write(pytester, "slow.grad", "print(1)\nwhile True:\n    pass\n")
    _write(pytester, "slow.out", "1\n")
    pytester.makeini("[pytest]\ngradcli = true\ngradcli_timeout = 0.5\n")
    result = pytester.runpytest_subprocess(*_plugin_args())
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(["slow.grad (line 2): unexpected TimeoutError: the script ran longer than 0.5 "
                                 "seconds (--timeout) at line 2"])


def test_importing_the_plugin_loads_nothing_of_gradcli():
    code = ("import sys; import gradcli.testing.pytest_plugin; "
            "print(sorted(m for m in sys.modules if m.startswith(('gradcli.', 'numpy', 'lark', 'rich', 'typer'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert proc.stdout.strip() == "['gradcli.testing', 'gradcli.testing.pytest_plugin']"


def test_entry_point_is_declared():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '[project.entry-points.pytest11]\n' in text
    assert f'gradcli = "{PLUGIN}"' in text
