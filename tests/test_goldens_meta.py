"""Meta-tests of the golden files: they exist, are well formed, and (with torch) are fresh.

The torch tests skip cleanly where torch is not installed (`pip install '.[oracle]'`).
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SCRIPTS = ROOT / "tests" / "golden" / "scripts"
TOOL = ROOT / "tools" / "make_goldens.py"

SAMPLE_FILES = sorted(SAMPLES.glob("*.grad"))
SCRIPT_FILES = sorted(SCRIPTS.glob("*.grad"))


def _torch_oracle():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13."):
        pytest.skip(f"goldens come from torch 2.13, this is torch {torch.__version__}")
    return torch


# ---------------------------------------------------------------- no torch needed

def test_there_are_samples_and_scripts():
    assert len(SAMPLE_FILES) >= 10
    assert len(SCRIPT_FILES) >= 30


@pytest.mark.parametrize("script", SAMPLE_FILES, ids=lambda p: p.name)
def test_every_sample_has_an_out(script):
    assert script.with_suffix(".out").is_file(), f"{script.name} has no .out: run tools/make_goldens.py"


@pytest.mark.parametrize("script", SCRIPT_FILES, ids=lambda p: p.name)
def test_every_golden_script_has_an_out(script):
    assert script.with_suffix(".out").is_file(), f"{script.name} has no .out: run tools/make_goldens.py"


@pytest.mark.parametrize("err", sorted(SAMPLES.glob("*.err")) + sorted(SCRIPTS.glob("*.err")),
                         ids=lambda p: p.name)
def test_err_files_are_well_formed(err):
    assert err.with_suffix(".grad").is_file(), f"{err.name} has no script"
    lines = err.read_text(encoding="utf-8").split("\n")
    assert len(lines) == 3 and lines[2] == "", f"{err.name}: want exactly two lines"
    assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(: .*)?", lines[0]), lines[0]
    match = re.fullmatch(r"line (\d+)", lines[1])
    assert match, lines[1]
    n_lines = len(err.with_suffix(".grad").read_text(encoding="utf-8").splitlines())
    assert 1 <= int(match.group(1)) <= n_lines


def test_error_samples_from_the_tutorials_raise():
    for name in ("seed02_non_scalar_backward_error", "seed02_second_backward_error"):
        assert (SAMPLES / f"{name}.err").is_file(), name


# ---------------------------------------------------------------- torch: goldens are fresh

@pytest.mark.parametrize("folder", [SAMPLES, SCRIPTS], ids=["samples", "golden-scripts"])
def test_committed_goldens_equal_fresh_torch_output(folder):
    _torch_oracle()
    proc = subprocess.run([sys.executable, str(TOOL), "--check", "--quiet", str(folder)],
                          capture_output=True, text=True, cwd=ROOT)
    stale = [line for line in proc.stderr.splitlines() if ": warning: " not in line]
    assert proc.returncode == 0, "\n".join(stale)


def test_generator_writes_out_err_and_removes_stale_err(tmp_path):
    _torch_oracle()
    ok = tmp_path / "ok.grad"
    ok.write_text("import torch\nx = torch.tensor(2., requires_grad=True)\n(x * x).backward()\nx.grad\n"
                  "for i in range(2):\n    i\n", encoding="utf-8")
    bad = tmp_path / "bad.grad"
    bad.write_text("def f(t):\n    return t / 0\n\nprint('before')\nf(1)\n", encoding="utf-8")
    (tmp_path / "ok.err").write_text("stale\n", encoding="utf-8")

    run = subprocess.run([sys.executable, str(TOOL), str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "ok.out").read_bytes() == b"tensor(4.)\n0\n1\n"
    assert not (tmp_path / "ok.err").exists()
    assert (tmp_path / "bad.out").read_bytes() == b"before\n"
    assert (tmp_path / "bad.err").read_text(encoding="utf-8") == "ZeroDivisionError: division by zero\nline 2\n"

    check = subprocess.run([sys.executable, str(TOOL), "--check", str(tmp_path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    (tmp_path / "ok.out").write_text("tensor(5.)\n0\n1\n", encoding="utf-8")
    check = subprocess.run([sys.executable, str(TOOL), "--check", str(bad), str(ok)],
                           capture_output=True, text=True)
    assert check.returncode == 1
    assert "ok.out" in check.stderr
    assert (tmp_path / "ok.out").read_text(encoding="utf-8") == "tensor(5.)\n0\n1\n"  # --check writes nothing
