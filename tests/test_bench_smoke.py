"""Smoke test of the benchmark suite (issue 9): `python -m bench --quick` runs every case end to end
and prints its tables. It never asserts a timing or a ratio; those live in docs/benchmarks.md."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_quick_runs_and_prints_the_table(tmp_path):
    data = tmp_path / "bench.json"
    # --no-torch keeps it short and the same with or without torch installed (the torch rows
    # are then skipped with a note, as they are where torch is missing)
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--no-torch", "--json", str(data)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,  # a hang guard, not a speed test
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "| case" in out and "gradcli/torch" in out and "gradcli/numpy" in out, out
    assert "gradcli/lark" in out, out  # the parse table
    assert "cpu:" in out and "numpy:" in out, out  # the machine description
    doc = json.loads(data.read_text())
    rows = {row["key"]: row for row in doc["rows"]}
    assert {"1", "2", "3 api", "3 .grad", "4", "5 time", "6", "7 500", "9 randn", "9 linear"} <= set(rows), sorted(rows)
    # the engine API itself is measured (a number, whatever it is), and torch is reported as skipped
    assert "gradcli" in rows["2"]["values"], rows["2"]
    assert rows["2"]["missing"]["torch"]["status"] == "skip"
    assert "numpy" in rows["3 api"]["values"]


def test_matmul_table_runs():
    """bench.matmuls (case 4's products one by one, NumPy's BLAS against torch's): a quick run
    prints every product of the step and the total."""
    proc = subprocess.run([sys.executable, "-m", "bench.matmuls", "--quick", "--no-torch"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("| L") or ln.startswith("| all")]
    assert len(lines) == 9, proc.stdout
    assert "L2 input    g @ W" in proc.stdout and "64 x 256 x 256" in proc.stdout, proc.stdout


def test_mkl_backend_table_runs():
    """bench.mkl (NumPy against the MKL backend, each in its own process): a quick run prints every
    row; without the mkl extra the MKL column is '-'."""
    proc = subprocess.run([sys.executable, "-m", "bench.mkl", "--quick"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [ln for ln in proc.stdout.splitlines() if ln.startswith("| ") and not ln.startswith("| measure")]
    assert len(rows) == 8, proc.stdout
    for measure in ("case 2: 0-d mul/add chain", "seeds' loop, engine API", "seeds' loop, .grad script", "sin, 0-d",
                    "exp+tanh+sin", "mm "):
        assert any(measure in ln for ln in rows), (measure, proc.stdout)
    assert proc.stdout.startswith("NumPy: backend: NumPy (GRADCLI_MKL=0)")


def test_opcount_attributes_the_step_to_functions():
    """bench.opcount: the script's step runs the interpreter's closures (gradcli/lang) and the engine's; the
    `engine` loop (bench.count's, no interpreter) runs none of gradcli/lang and fewer bytecodes a step."""
    def run(kind):
        proc = subprocess.run([sys.executable, "-m", "bench.opcount", kind, "--steps", "1", "3", "--top", "200"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        total, lang = proc.stdout.splitlines()[-1].split(" bytecodes a step, ")
        return proc.stdout, float(total), float(lang.split()[0])
    out, total, lang = run("script")
    assert "lang/fastcalls.py:mcall0" in out and "engine/optim.py:step" in out, out
    assert lang > 0
    out, engine_total, engine_lang = run("engine")
    assert engine_lang == 0 and "engine/optim.py:step" in out, out
    assert engine_total < total
