"""The `gradcli` command, driven as a subprocess: exit codes, stdin, -e, several files, --json
(validated against the published JSON Schema, also for errors and NaN), the calculator, plain
output when piped, --device cuda without CuPy, and every sample's stdout byte for byte.

The command under test is the installed one: the `gradcli` console script next to the running
Python when there is one (a `pip install .` puts it there), else `python -m gradcli`; set
GRADCLI_CMD (e.g. "gradcli" or "python -m gradcli") to choose. Subprocesses are batched (all
samples run in one invocation) to keep this file fast.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gradcli.render import jsonout

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
SAMPLE_FILES = sorted(SAMPLES.glob("*.grad"))
ERROR_SAMPLES = [p for p in SAMPLE_FILES if p.with_suffix(".err").exists()]
HAVE_RUNNER = importlib.util.find_spec("gradcli.lang.runner") is not None
HAVE_CUPY = importlib.util.find_spec("cupy") is not None
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

needs_runner = pytest.mark.skipif(not HAVE_RUNNER, reason="gradcli.lang.runner is not there yet")


def gradcli_command() -> list[str]:
    if os.environ.get("GRADCLI_CMD"):
        return shlex.split(os.environ["GRADCLI_CMD"])
    script = Path(sys.executable).parent / ("gradcli.exe" if os.name == "nt" else "gradcli")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "gradcli"]


CMD = gradcli_command()


def clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(extra)
    return env


def gradcli(*args, stdin: str | bytes | None = None, env: dict | None = None, timeout: float = 60):
    """Run the command; returns CompletedProcess with str stdout/stderr (UTF-8)."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run([*CMD, *map(str, args)], input=data if data is not None else b"",
                          capture_output=True, cwd=ROOT, env=env or clean_env(), timeout=timeout)
    proc.stdout = proc.stdout.decode("utf-8")
    proc.stderr = proc.stderr.decode("utf-8")
    return proc


def assert_no_traceback(proc):
    assert "Traceback (most recent call last)" not in proc.stderr, proc.stderr


def strict_loads(text: str):
    """json.loads that refuses NaN/Infinity tokens, as strict parsers do."""
    def refuse(token):
        raise ValueError(f"non-strict JSON constant {token}")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="session")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = jsonout.schema("gradcli/1")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate(validator, doc):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def err_lines(sample: Path) -> tuple[str, int]:
    first, second = sample.with_suffix(".err").read_text(encoding="utf-8").splitlines()[:2]
    return first, int(second.split()[1])


# --------------------------------------------------------------------------- no script needed

def test_version_and_help():
    from gradcli import __version__

    proc = gradcli("--version")
    assert proc.returncode == 0 and proc.stdout.splitlines()[0] == f"gradcli {__version__}"
    assert proc.stdout.splitlines()[1].startswith("backend: ")  # NumPy, or MKL with gradcli[mkl]
    assert proc.stdout.splitlines()[2].startswith("seccomp: ")  # the details: on, or off and why
    assert proc.stdout.splitlines()[3].startswith("native: ")  # the C kernels found, or why none run
    proc = gradcli("--help")
    assert proc.returncode == 0
    for word in ("run", "grad", "repl", "Examples", "Exit codes"):
        assert word in proc.stdout
    assert "\x1b[" not in proc.stdout


def test_schema_is_valid():
    jsonschema = pytest.importorskip("jsonschema")
    schema = jsonout.schema("gradcli/1")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("args, needle", [
    (["run", "--no-such-option", "x.grad"], "No such option"),
    (["run", "samples/does_not_exist.grad"], "cannot open 'samples/does_not_exist.grad'"),
    (["run", "--dtype", "int8", "-e", "1"], "int8"),
    (["grad", "x*y", "x=1", "y=[1,2"], "expected NAME=VALUE"),
    (["grad", "x*y", "x=1", "y"], "expected NAME=VALUE"),
    (["grad", "x*y", "x=1", "y=abc"], "nested list of numbers"),
    (["grad", "x", "x=[[1,2],[3]]"], "not rectangular"),
    (["grad", "x", "x=1", "--wrt", "z"], "not a variable"),
    (["grad", "x", "x=1", "--order", "3"], "--order"),
])
def test_usage_errors_exit_2(args, needle):
    proc = gradcli(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert needle in ANSI.sub("", proc.stderr)
    assert proc.stdout == ""
    assert_no_traceback(proc)


@pytest.mark.skipif(HAVE_CUPY, reason="CuPy is installed here: cuda may well be available")
def test_device_cuda_without_cupy_is_a_clear_usage_error(validator):
    proc = gradcli("run", "--device", "cuda", "samples/seed00_linear_forward.grad")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "CuPy" in proc.stderr and "pip install 'gradcli[cuda]'" in proc.stderr
    assert_no_traceback(proc)
    proc = gradcli("grad", "x*2", "x=1", "--device", "cuda", "--json")
    assert proc.returncode == 2
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert doc["error"]["type"] == "UsageError" and "gradcli[cuda]" in doc["error"]["message"]


def test_usage_error_under_json_is_a_document(validator):
    proc = gradcli("run", "--json", "samples/nope.grad")
    assert proc.returncode == 2
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert doc["ok"] is False and doc["exit_code"] == 2 and doc["error"]["type"] == "UsageError"


# --------------------------------------------------------------------------- samples

@pytest.fixture(scope="session")
def samples_plain():
    return gradcli("run", *[p.relative_to(ROOT) for p in SAMPLE_FILES], timeout=120)


@pytest.fixture(scope="session")
def samples_json():
    return gradcli("run", "--json", *[p.relative_to(ROOT) for p in SAMPLE_FILES], timeout=120)


@needs_runner
def test_all_samples_stdout_byte_for_byte(samples_plain):
    """Every sample in one invocation: stdout is exactly the .out files one after another."""
    expected = b"".join(p.with_suffix(".out").read_bytes() for p in SAMPLE_FILES).decode("utf-8")
    proc = samples_plain
    assert_no_traceback(proc)
    assert proc.returncode == (1 if ERROR_SAMPLES else 0), proc.stderr
    assert "\x1b[" not in proc.stdout and "\x1b[" not in proc.stderr, "escape codes in piped output"
    if proc.stdout != expected:  # name the first sample that differs
        pos = 0
        for p in SAMPLE_FILES:
            want = p.with_suffix(".out").read_text(encoding="utf-8")
            got = proc.stdout[pos:pos + len(want)]
            assert got == want, f"{p.name}: stdout differs from {p.with_suffix('.out').name}"
            pos += len(want)
    assert proc.stdout == expected


@needs_runner
def test_error_samples_report_type_and_message_on_stderr(samples_plain):
    stderr_lines = samples_plain.stderr.splitlines()
    for sample in ERROR_SAMPLES:
        headline, line = err_lines(sample)
        assert headline in stderr_lines, f"{sample.name}: {headline!r} not on stderr"
        assert f"{sample.relative_to(ROOT).as_posix()}:{line}:" in samples_plain.stderr


@needs_runner
@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.name)
def test_each_sample_in_json(samples_json, validator, sample):
    doc = strict_loads(samples_json.stdout)
    validate(validator, doc)
    runs = {run["file"]: run for run in doc["runs"]}
    run = runs[sample.relative_to(ROOT).as_posix()]
    assert "".join(o["text"] for o in run["outputs"]) == sample.with_suffix(".out").read_text(encoding="utf-8")
    if sample in ERROR_SAMPLES:
        headline, line = err_lines(sample)
        assert run["ok"] is False and run["exit_code"] == 1
        assert f"{run['error']['type']}: {run['error']['message']}".split("\n")[0] == headline
        assert run["error"]["line"] == line
    else:
        assert run["ok"] is True and run["error"] is None and run["exit_code"] == 0


@needs_runner
def test_one_error_sample_alone_exits_1_with_a_panel():
    sample = ERROR_SAMPLES[0] if ERROR_SAMPLES else pytest.skip("no error sample")
    proc = gradcli("run", sample.relative_to(ROOT))
    headline, line = err_lines(sample)
    assert proc.returncode == 1
    assert proc.stdout == sample.with_suffix(".out").read_text(encoding="utf-8")
    lines = proc.stderr.splitlines()
    assert lines[0] == f"{sample.relative_to(ROOT).as_posix()}:{line}:" + lines[0].rsplit(":", 1)[1]
    assert any(set(s.split("|")[-1].strip()) == {"^"} for s in lines), "no caret line"
    assert headline in lines
    assert_no_traceback(proc)


# --------------------------------------------------------------------------- inputs

@needs_runner
def test_stdin_dash_and_plain_gradcli_with_piped_stdin():
    code = "import torch\nx = torch.tensor(2., requires_grad=True)\ny = x ** 3\ny.backward()\nx.grad\n"
    proc = gradcli("run", "-", stdin=code)
    assert (proc.returncode, proc.stdout) == (0, "tensor(12.)\n"), proc.stderr
    proc = gradcli(stdin=code)  # no command, stdin not a terminal: run it
    assert (proc.returncode, proc.stdout) == (0, "tensor(12.)\n"), proc.stderr
    proc = gradcli("run", "-", stdin="x = 1\ny = x +\n")
    assert proc.returncode == 1 and "SyntaxError" in proc.stderr and "<stdin>:2:" in proc.stderr


@needs_runner
def test_expr_option():
    proc = gradcli("run", "-e", "x = torch.tensor([1., 2.], requires_grad=True); (x * x).sum().backward(); print(x.grad)")
    assert (proc.returncode, proc.stdout) == (0, "tensor([2., 4.])\n"), proc.stderr
    proc = gradcli("run", "-e", "assert 1 == 2, 'nope'")
    assert proc.returncode == 1 and "AssertionError: nope" in proc.stderr.splitlines()


@needs_runner
def test_several_files_fresh_scope_and_worst_exit_code(tmp_path, validator):
    (tmp_path / "a.grad").write_text("x = 1\nprint('a', x)\n")
    (tmp_path / "b.grad").write_text("print('b', x)\n")      # NameError: a's x is not visible
    (tmp_path / "c.grad").write_text("print('c')\n")          # still runs after b failed
    files = [tmp_path / n for n in ("a.grad", "b.grad", "c.grad")]
    proc = gradcli("run", *files)
    assert proc.returncode == 1
    assert proc.stdout == "a 1\nc\n"
    assert "NameError: name 'x' is not defined" in proc.stderr.splitlines()
    proc = gradcli("run", "--json", *files)
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert [r["exit_code"] for r in doc["runs"]] == [0, 1, 0] and doc["exit_code"] == 1 and not doc["ok"]
    proc = gradcli("run", files[0], files[2])
    assert (proc.returncode, proc.stdout) == (0, "a 1\nc\n")


@needs_runner
def test_non_utf8_file_is_a_syntax_error(tmp_path):
    bad = tmp_path / "bad.grad"
    bad.write_bytes(b"x = 1\ny = '\xff'\n")
    proc = gradcli("run", bad)
    assert proc.returncode == 1 and "SyntaxError: Non-UTF-8 code starting with '\\xff'" in proc.stderr
    assert_no_traceback(proc)


# --------------------------------------------------------------------------- JSON

@needs_runner
def test_json_ok_error_and_nan(validator):
    proc = gradcli("run", "--json", "samples/seed00_linear_backward.grad")
    assert proc.returncode == 0
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert doc["ok"] and doc["schema"] == "gradcli/1"
    assert doc["outputs"] and all(isinstance(o["line"], int) for o in doc["outputs"])
    assert doc["tensors"], "named tensors missing"

    code = ("import torch\nx = torch.tensor([0., 1., -1.], requires_grad=True)\n"
            "y = torch.log(x)\nz = x / 0.\nprint(y)\ny.sum().backward()\n")
    proc = gradcli("run", "--json", "-e", code)
    assert proc.returncode == 0, proc.stderr
    doc = strict_loads(proc.stdout)
    json.dumps(doc, allow_nan=False)
    validate(validator, doc)
    assert doc["tensors"]["y"]["value"][0] == "-Infinity" and doc["tensors"]["y"]["value"][2] == "NaN"
    assert doc["tensors"]["z"]["value"] == ["NaN", "Infinity", "-Infinity"]
    assert doc["tensors"]["x"]["grad"][0] == "Infinity"

    proc = gradcli("run", "--json", "-e", "import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                                          "y = x * 2\nprint('before')\ny.backward()\n")
    assert proc.returncode == 1
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    err = doc["error"]
    assert (err["type"], err["message"]) == ("RuntimeError", "grad can be implicitly created only for scalar outputs")
    assert err["line"] == 5 and err["column"] >= 1 and err["hint"]
    assert doc["outputs"] == [{"text": "before\n", "line": 4}]
    assert "Traceback" not in proc.stderr


@needs_runner
def test_json_syntax_error(validator):
    proc = gradcli("run", "--json", "-e", "x = (1,\n")
    assert proc.returncode == 1
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert doc["error"]["type"] == "SyntaxError" and doc["error"]["line"]


# --------------------------------------------------------------------------- the calculator

@needs_runner
def test_calculator_scalar_plain():
    proc = gradcli("grad", "w*x + b", "w=4", "x=3", "b=5")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "w*x + b = tensor(17.)"
    for name, grad in (("w", "tensor(3.)"), ("x", "tensor(4.)"), ("b", "tensor(1.)")):
        assert re.search(rf"\b{name}\b.*{re.escape(grad)}", proc.stdout), proc.stdout
    assert "\x1b[" not in proc.stdout


@needs_runner
def test_calculator_json_scalar_jacobian_hessian_wrt(validator):
    doc = strict_loads(gradcli("grad", "--json", "w*x + b", "w=4", "x=3", "b=5").stdout)
    validate(validator, doc)
    calc = doc["calculator"]
    assert calc["kind"] == "gradient" and calc["value"]["value"] == 17.0
    assert {n: g["value"] for n, g in calc["gradients"].items()} == {"w": 3.0, "x": 4.0, "b": 1.0}
    assert doc["tensors"]["w"]["grad"] == 3.0 and doc["tensors"]["w"]["requires_grad"]

    proc = gradcli("grad", "--json", "x**2", "x=[1,2,3]")
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert doc["calculator"]["kind"] == "jacobian"
    assert doc["calculator"]["gradients"]["x"]["value"] == [[2.0, 0, 0], [0, 4.0, 0], [0, 0, 6.0]]

    proc = gradcli("grad", "--json", "--order", "2", "x**2 * y", "x=1", "y=2")
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    h = doc["calculator"]["hessian"]
    assert [[h[a][b]["value"] for b in "xy"] for a in "xy"] == [[4.0, 2.0], [2.0, 0.0]]

    proc = gradcli("grad", "--json", "--wrt", "y", "x * y", "x=2", "y=5", "--dtype", "float64")
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert list(doc["calculator"]["gradients"]) == ["y"] and doc["calculator"]["gradients"]["y"]["value"] == 2.0
    assert doc["calculator"]["value"]["dtype"] == "float64"

    proc = gradcli("grad", "--json", "torch.log(x)", "x=[0, nan, -1]")
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert doc["calculator"]["value"]["value"] == ["-Infinity", "NaN", "NaN"]


@needs_runner
def test_calculator_plain_jacobian_and_hessian():
    proc = gradcli("grad", "x**2", "x=[1,2]")
    assert proc.returncode == 0, proc.stderr
    assert "Jacobian" in proc.stdout and "tensor([[2., 0.]," in proc.stdout
    proc = gradcli("grad", "--order", "2", "x**3", "x=2")
    assert proc.returncode == 0, proc.stderr
    assert "Hessian" in proc.stdout and "tensor(12.)" in proc.stdout
    proc = gradcli("grad", "-x**2", "x=3")  # an EXPR that starts with '-'
    assert proc.returncode == 0 and "tensor(-6.)" in proc.stdout, proc.stderr


@needs_runner
def test_calculator_expression_error_exits_1(validator):
    proc = gradcli("grad", "x +* 2", "x=1")
    assert proc.returncode == 1 and "SyntaxError" in proc.stderr and "<expr>:1:" in proc.stderr
    proc = gradcli("grad", "--json", "q * 2", "x=1")
    assert proc.returncode == 1
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert doc["error"]["type"] == "NameError"


# --------------------------------------------------------------------------- rendering

@needs_runner
def test_piped_output_is_plain_and_force_color_only_adds_colour():
    sample = SAMPLES / "seed00_linear_forward.grad"
    want = sample.with_suffix(".out").read_text(encoding="utf-8")
    proc = gradcli("run", "--summary", sample)
    assert "\x1b[" not in proc.stdout + proc.stderr
    assert proc.stdout.startswith(want)
    assert re.search(r"\bw\b.*torch\.float32.*True", proc.stdout), proc.stdout  # the summary table
    proc = gradcli("run", sample, env=clean_env(FORCE_COLOR="1"))
    assert "\x1b[" in proc.stdout and ANSI.sub("", proc.stdout) == want
    for env in (clean_env(FORCE_COLOR="1", NO_COLOR="1"), clean_env(FORCE_COLOR="1")):
        args = ("run", sample) if "NO_COLOR" in env else ("run", "--no-color", sample)
        proc = gradcli(*args, env=env)
        assert proc.stdout == want


@needs_runner
def test_warning_each_time_as_torch_echo_shows_it():
    # torch-echo's filter is "always": a warning in a loop is shown each time (two on one line twice)
    code = ("import torch\nx = torch.tensor(1., requires_grad=True)\ny = x * 2\n"
            "for i in range(3):\n    g = y.grad\nprint(torch.tensor([]).var(correction=1), torch.tensor([]).var(correction=1))\n")
    proc = gradcli("run", "-e", code)
    assert proc.returncode == 0, proc.stderr
    warnings = [s for s in proc.stderr.splitlines() if "UserWarning" in s]
    assert [w.split(": UserWarning")[0] for w in warnings] == ["<string>:5:9"] * 3 + ["<string>:6:1"] * 2, proc.stderr


@needs_runner
def test_limits_are_script_errors_not_crashes():
    proc = gradcli("run", "--max-steps", "1000", "-e", "i = 0\nwhile True:\n    i += 1\n")
    assert proc.returncode == 1 and proc.stderr, proc.stderr
    assert_no_traceback(proc)
    proc = gradcli("run", "--timeout", "0.5", "-e", "i = 0\nwhile True:\n    i += 1\n", timeout=30)
    assert proc.returncode == 1
    assert_no_traceback(proc)
    proc = gradcli("run", "--max-elements", "1e3", "-e", "x = torch.zeros(1000, 1000)")
    assert proc.returncode == 1 and "--max-elements" in proc.stderr
    assert_no_traceback(proc)


@needs_runner
@pytest.mark.skipif(os.name == "nt", reason="POSIX pipes")
def test_closed_stdout_ends_quietly():
    """gradcli run x.grad | head: no BrokenPipeError reported as the script's error."""
    proc = subprocess.Popen([*CMD, "run", "-e", "for i in range(1000000):\n    print(i)\n"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=clean_env())
    assert proc.stdout.readline() == b"0\n"
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert err == b"" and proc.returncode in (-13, 1), (proc.returncode, err)


def _broken_env(tmp_path, patch: str) -> dict:
    """An environment whose sitecustomize breaks gradcli on purpose (a simulated bug)."""
    (tmp_path / "sitecustomize.py").write_text(patch)
    paths = [str(tmp_path)] + ([str(ROOT)] if CMD[1:2] == ["-m"] else [])
    return clean_env(PYTHONPATH=os.pathsep.join(paths))


@needs_runner
@pytest.mark.parametrize("where", ["escapes", "reported"])
def test_internal_error_is_one_line_exit_3_and_debug_shows_traceback(tmp_path, validator, where):
    if where == "escapes":  # an exception escapes the runner API
        patch = ("import gradcli.lang.runner as r\n"
                 "def boom(*a, **k):\n    raise ZeroDivisionError('simulated bug')\n"
                 "r.Session.run = boom\n")
    else:  # the runner catches its own failure and reports an InternalError
        patch = ("import gradcli.lang.compiler as c\n"
                 "def boom(*a, **k):\n    raise ZeroDivisionError('simulated bug')\n"
                 "c.Compiler.compile_module = boom\n")
    env = _broken_env(tmp_path, patch)
    proc = gradcli("run", "-e", "print(1)", env=env)
    assert proc.returncode == 3
    assert proc.stderr == ("gradcli: internal error: ZeroDivisionError: simulated bug "
                           "(run with --debug for the traceback)\n")
    proc = gradcli("run", "--debug", "-e", "print(1)", env=env)
    assert proc.returncode == 3 and "Traceback (most recent call last)" in proc.stderr
    assert "simulated bug" in proc.stderr
    proc = gradcli("run", "--json", "-e", "print(1)", env=env)
    assert proc.returncode == 3
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert doc["error"]["type"] == "InternalError" and proc.stderr == ""


@needs_runner
@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_ctrl_c_exits_130_with_one_line(as_json):
    args = [*CMD, "run", *(["--json"] if as_json else []), "-e", "i = 0\nwhile True:\n    i += 1\n"]
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, env=clean_env())
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.decode().strip().splitlines() == ["gradcli: interrupted"]
    if as_json:
        doc = strict_loads(out.decode())
        assert doc["exit_code"] == 130 and doc["error"]["type"] == "KeyboardInterrupt"


# --------------------------------------------------------------------------- start-up

@needs_runner
def test_a_plain_run_imports_nothing_heavy():
    """Start-up is part of the product: a plain, piped run loads no Rich, Pydantic (recent Typer
    uses it for parameters), prompt_toolkit, CuPy or torch."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradcli", "run",
                           "samples/seed00_linear_forward.grad"], capture_output=True, cwd=ROOT,
                          env=clean_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()
              if line.startswith("import time:")}
    heavy = {m for m in loaded if m.split(".")[0] in ("rich", "pydantic", "pydantic_core", "prompt_toolkit",
                                                      "cupy", "torch", "jsonschema", "pygments")}
    assert not heavy, sorted(heavy)[:10]
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradcli", "--version"],
                          capture_output=True, cwd=ROOT, env=clean_env(), timeout=60)
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()
              if line.startswith("import time:")}
    assert not {m for m in loaded if m.split(".")[0] in ("numpy", "lark", "rich", "pydantic")}


@needs_runner
def test_a_warm_run_imports_no_lark_typer_or_click(tmp_path):
    """With the parse tables cached (parser.py), a plain run parses without Lark (its token type is
    tokens.Token; Lark's exceptions load only for a syntax error), and `run` does not go through
    Typer. The first run fills a fresh cache; the second must not import them."""
    env = {**clean_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = [sys.executable, "-X", "importtime", "-m", "gradcli", "run", "samples/seed00_linear_backward.grad"]
    first = subprocess.run(args, capture_output=True, cwd=ROOT, env=env, timeout=120)
    assert first.returncode == 0, first.stderr.decode()[-2000:]
    assert list((tmp_path / "cache" / "gradcli").glob("*-tables-*.marshal"))
    proc = subprocess.run(args, capture_output=True, cwd=ROOT, env=env, timeout=60)
    assert proc.returncode == 0 and proc.stdout == first.stdout, proc.stderr.decode()[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()
              if line.startswith("import time:")}
    assert "gradcli.lang.parser" in loaded  # (the check below looks at a run that parsed)
    unwanted = {m for m in loaded if m.split(".")[0] in ("lark", "typer", "click", "rich", "regex")}
    assert not unwanted, sorted(unwanted)[:10]
    # `grad EXPR NAME=VALUE ...` without options skips Typer too, and prints what the Typer path does
    calc = [sys.executable, "-X", "importtime", "-m", "gradcli", "grad", "w*x + b", "w=4", "x=3", "b=5"]
    fast = subprocess.run(calc, capture_output=True, cwd=ROOT, env=env, timeout=60)
    loaded = {line.rsplit("|", 1)[-1].strip() for line in fast.stderr.decode().splitlines()
              if line.startswith("import time:")}
    assert fast.returncode == 0 and "gradcli.cli.gradcmd" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("lark", "typer", "click", "regex")}
    typer_path = subprocess.run(calc + ["--order", "1"], capture_output=True, cwd=ROOT, env=env, timeout=60)
    assert typer_path.returncode == 0 and typer_path.stdout == fast.stdout and b"x" in fast.stdout
    # a syntax error still reports through Lark's error types, loaded then
    bad = subprocess.run([sys.executable, "-m", "gradcli", "run", "-e", "x = (1,"], capture_output=True,
                         cwd=ROOT, env=env, timeout=60)
    assert bad.returncode == 1 and b"SyntaxError" in bad.stderr, bad.stderr.decode()[-2000:]


# --------------------------------------------------------------------------- usage errors: one line

@pytest.mark.parametrize("args, command, needle", [
    (["run", "--no-such-option", "x.grad"], "run", "No such option: --no-such-option"),
    (["run", "--seed", "abc", "-e", "1"], "run", "Invalid value for '--seed': 'abc'"),
    (["run", "--dtype", "int8", "-e", "1"], "run", "int8"),
    (["run", "samples/does_not_exist.grad"], "run", "cannot open"),
    (["grad"], "grad", "Missing argument 'EXPR'"),
    (["grad", "x*y", "x=1", "y"], "grad", "expected NAME=VALUE"),
    (["grad", "x", "x=1", "--order", "3"], "grad", "--order"),
    (["graph", "samples/seed00_linear_backward.grad"], "graph", "Missing option '--var'"),
    (["repl", "--bogus"], "repl", "No such option: --bogus"),
    (["bogus"], None, "No such command 'bogus'"),
])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_usage_errors_are_one_line_and_a_try_line(args, command, needle, as_json, validator):
    """Typer's usage errors as gradcli's own: `gradcli: error: ...` and `Try 'gradcli CMD --help'`,
    exit 2, no boxed panel; under --json (run, grad, graph) exactly one strict JSON document."""
    proc = gradcli(*args, *(["--json"] if as_json else []))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert_no_traceback(proc)
    lines = proc.stderr.splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith("gradcli: error: ") and needle in lines[0], lines[0]
    assert lines[1] == (f"Try 'gradcli {command} --help'" if command else "Try 'gradcli --help'")
    assert "╭" not in proc.stderr and "Usage:" not in proc.stderr
    if as_json and command in ("run", "grad", "graph"):
        doc = strict_loads(proc.stdout)            # one document: json.loads refuses trailing data
        assert doc["ok"] is False and doc["exit_code"] == 2 and doc["command"] == command
        assert doc["error"]["type"] == "UsageError" and needle in doc["error"]["message"]
        assert doc["error"]["hint"] == lines[1]
        if command == "graph":
            jsonschema = pytest.importorskip("jsonschema")
            schema = jsonout.schema("graph")
            assert not list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
        else:
            validate(validator, doc)
    else:
        assert proc.stdout == ""


# --------------------------------------------------------------------------- --help

HELP_COMMANDS = [None, "run", "grad", "graph", "repl"]


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("command", HELP_COMMANDS, ids=lambda c: c or "gradcli")
def test_help_fits_the_terminal_and_shows_its_own_examples(command, columns):
    proc = gradcli(*([command] if command else []), "--help", env=clean_env(COLUMNS=str(columns)))
    assert proc.returncode == 0 and proc.stderr == ""
    text = proc.stdout
    assert "<bool>" not in text and "<str>" not in text and "<int>" not in text and "╭" not in text
    assert all(len(line) <= columns for line in text.splitlines()), max(text.splitlines(), key=len)
    assert text.startswith(f"Usage: gradcli {command + ' ' if command else ''}")
    examples = text.split("Examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    shown = [line.strip() for line in examples if line.strip().startswith(("gradcli", "cat "))]
    assert shown, text
    if command:   # each command's own examples, not the global list
        assert all(f"gradcli {command}" in line for line in shown), shown
    for line in examples:  # a comment is whole: never wrapped onto a line of its own without its '#'
        assert line.startswith("  gradcli") or line.startswith("  cat ") or line.strip().startswith("# "), line
    # no paragraph broken mid-sentence: a line that ends without punctuation continues the paragraph
    about = text.split("\n\n")[1]
    assert about.replace("\n  ", " ").strip().endswith(".")


def test_help_texts_name_every_option_in_full():
    from gradcli.cli.helptext import EXAMPLES, render

    proc = gradcli("run", "--help", env=clean_env(COLUMNS="80"))
    assert "torch.autograd.set_detect_anomaly(True)" in proc.stdout
    assert "pip install 'gradcli[cuda]'" in " ".join(proc.stdout.split())
    grad_help = render("grad", 80)
    assert "An EXPR that starts with '-' works as it is (gradcli grad -x**2 x=3)." in " ".join(
        line.strip() for line in grad_help.split("\n\n")[2].splitlines())
    repl_help = render("repl", 80)
    for meta in (":help", ":vars", ":graph NAME", ":explain", ":reset", ":load FILE.grad", ":save FILE.grad",
                 ":device cpu|cuda", ":quit"):
        assert f"  {meta}  " in repl_help, meta
    assert "gradcli repl --explain" in repl_help
    assert "--device cpu|cuda" in repl_help and "--dtype float32|float64" in repl_help
    assert set(EXAMPLES) >= {None, "run", "grad", "graph", "repl", "test"}


@pytest.mark.parametrize("args", [["run", "-h"], ["run", "a.grad", "--help"], ["grad", "x", "x=1", "-h"]])
def test_help_anywhere_on_the_line_but_not_as_a_value(args):
    proc = gradcli(*args)
    assert proc.returncode == 0 and proc.stdout.startswith(f"Usage: gradcli {args[0]} ")
    proc = gradcli("run", "-e", "print('-h')")        # '-h' inside a value is no help request
    assert proc.returncode == 0 and proc.stdout == "-h\n"


def test_several_e_options_run_in_order_as_one_script(validator):
    proc = gradcli("run", "-e", "x = torch.tensor(2., requires_grad=True)", "-e", "y = x * 3", "-e", "print(y)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "tensor(6., grad_fn=<MulBackward0>)\n"
    # through Typer too (entry.py leaves an upper-case --dtype to it)
    proc = gradcli("run", "--dtype", "FLOAT64", "-e", "a = 1", "--json", "-e", "print(a + 1)")
    doc = strict_loads(proc.stdout)
    validate(validator, doc)
    assert doc["outputs"] == [{"text": "2\n", "line": 2}]
    proc = gradcli("run", "-e", "a = 1", "-e", "b")      # an error names the line of its piece
    assert proc.returncode == 1 and "<string>:2:1" in proc.stderr


def test_help_lists_every_option_typer_knows():
    """gradcli's own --help (cli/helptext.py) must not fall behind the options a command takes."""
    typer = pytest.importorskip("typer")
    from gradcli.cli.app import app
    from gradcli.cli.helptext import render

    root = typer.main.get_command(app)
    for name, command in [(None, root), *root.commands.items()]:
        text = render(name, 120)
        for param in command.params:
            for opt in (o for o in getattr(param, "opts", ()) if o.startswith("-")):
                assert re.search(rf"(^|[ ,]){re.escape(opt)}\b", text, re.M), f"gradcli {name} --help lacks {opt}"
