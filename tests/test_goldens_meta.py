"""Meta-tests of the golden files: they exist, are well formed, and (with torch) are fresh.

The torch tests skip cleanly where torch is not installed (`pip install '.[oracle]'`).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SCRIPTS = ROOT / "tests" / "golden" / "scripts"
MKL_GOLDENS = ROOT / "tests" / "golden" / "mkl"  # run by tests/test_mkl_backend.py (gradcli[mkl])
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

    run = subprocess.run([sys.executable, str(TOOL), "--no-cpu-variants", str(tmp_path)],
                         capture_output=True, text=True)
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


# ---------------------------------------------------------------- goldens whose digits depend on the CPU

MARKINGS = sorted(SAMPLES.glob("*.cpu")) + sorted(SCRIPTS.glob("*.cpu")) + sorted(MKL_GOLDENS.glob("*.cpu"))
# NumPy, OpenBLAS and MKL (gradcli[mkl]) as on an AVX2 machine without AVX-512 (the names of NumPy
# 1.x and 2.x alike; NumPy ignores those it does not know): how gradcli itself computes on such a CPU
AVX2_ENV = {"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX "
                                        "AVX512_CNL AVX512_ICL AVX512_SPR",
            "OPENBLAS_CORETYPE": "Haswell", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}


def test_there_are_cpu_markings_and_they_are_well_formed():
    from gradcli.testing.cpu import read_marking

    assert MARKINGS, "no golden is marked CPU-dependent (tools/make_goldens.py found some before)"
    for path in MARKINGS:
        assert path.with_suffix(".out").is_file(), f"{path.name} marks no golden"
        marking = read_marking(path)
        assert marking.ulp >= 1 and marking.cpu and marking.differs_under, path.name
        assert path.read_text(encoding="utf-8") == marking.to_json(), f"{path.name} is not in the generator's form"


_COMPARE_ALL = """
import json, sys
from pathlib import Path
from gradcli.lang.runner import RunOptions, run_source
from gradcli.testing.golden import actual_from_result, compare, read_expectation
failed = []
for name in sys.argv[1:]:
    script = Path(name)
    result = run_source(script.read_text(encoding="utf-8"), str(script), RunOptions(seed=0))
    if not compare(read_expectation(script), actual_from_result(result)).passed:
        failed.append(script.name)
print(json.dumps(failed))
"""


def _failing_scripts(env_extra):
    env = {k: v for k, v in os.environ.items() if k != "GRADCLI_GOLDEN_CPU"}
    env.update(env_extra)
    proc = subprocess.run([sys.executable, "-c", _COMPARE_ALL, *map(str, SAMPLE_FILES + SCRIPT_FILES)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_gradcli_on_an_avx2_cpu_matches_every_golden_or_its_marking():
    """gradcli with NumPy's and OpenBLAS's AVX2 kernels (as on an AMD AVX2 machine) prints what every
    golden says: exactly where the golden is not marked, within the marking's tolerance where it is
    (tutorial_optimization_train_test_loop prints 1.872004 there, as PyTorch does on AVX2)."""
    native = _failing_scripts({})
    simulated = _failing_scripts(AVX2_ENV)
    assert simulated <= native, f"fail only with AVX2 kernels (mark them or fix them): {sorted(simulated - native)}"


@pytest.mark.parametrize("folder", [SAMPLES, SCRIPTS, MKL_GOLDENS], ids=["samples", "golden-scripts", "golden-mkl"])
def test_goldens_whose_digits_depend_on_the_cpu_are_marked(folder):
    """Reruns every script with torch under another CPU capability and fails when a golden that
    changes has no (or too tight a) NAME.cpu marking. By default the AMD-AVX2-like variant only
    (ATen AVX2 and MKL's AVX2 kernels; about a minute); GRADCLI_ALL_CPU_VARIANTS=1 runs all."""
    _torch_oracle()
    variants = [] if os.environ.get("GRADCLI_ALL_CPU_VARIANTS") else ["--variant", "avx2-mkl-avx2"]
    proc = subprocess.run([sys.executable, str(TOOL), "--check", "--cpu-variants", *variants, "--quiet",
                           str(folder)], capture_output=True, text=True, cwd=ROOT)
    stale = [line for line in proc.stderr.splitlines() if ": warning: " not in line and "Warning" not in line]
    assert proc.returncode == 0, "\n".join(stale)


def test_generator_marks_a_cpu_dependent_golden_and_check_fails_without_it(tmp_path):
    _torch_oracle()
    # ATen's scalar (default) division kernel rounds this gradient differently from its AVX2 one
    dependent = tmp_path / "dependent.grad"
    dependent.write_text("import torch\nx = torch.linspace(0.1, 3.0, 17, requires_grad=True)\n"
                         "y = torch.linspace(1.3, -2.0, 17, requires_grad=True)\n"
                         "(x / y).backward(torch.linspace(-1, 1, 17))\nprint(y.grad.tolist())\n", encoding="utf-8")
    plain = tmp_path / "plain.grad"
    plain.write_text("import torch\nprint(torch.tensor([1.5, 2.0]) * 2)\n", encoding="utf-8")
    tool = [sys.executable, str(TOOL), "--variant", "default", "--quiet"]
    run = subprocess.run([*tool, str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    from gradcli.testing.cpu import machine_cpu, read_marking

    marking = read_marking(dependent)
    assert marking is not None and marking.differs_under == ("default",) and marking.cpu == machine_cpu()
    assert not plain.with_suffix(".cpu").exists()
    check = subprocess.run([*tool, "--check", "--cpu-variants", str(tmp_path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    dependent.with_suffix(".cpu").unlink()
    check = subprocess.run([*tool, "--check", "--cpu-variants", str(tmp_path)], capture_output=True, text=True)
    assert check.returncode == 1 and "dependent.cpu (missing" in check.stderr, check.stderr
