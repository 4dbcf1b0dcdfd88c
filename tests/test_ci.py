"""`gradcli test` (the CI front door) and its parts: the golden comparison (gradcli.testing.golden),
the forked runs (gradcli.testing.execute), the reports (text, JSON against its schema, JUnit XML,
GitHub annotations), --update, --strict, and bad input that must give a line, never a traceback."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gradcli.render import jsonout
from gradcli.testing import execute, golden, reports

ROOT = Path(__file__).resolve().parents[1]
TIME = re.compile(r"\(\d+\.\d\d s\)|in \d+\.\d\d s")


# The endless scripts must meet --timeout, not the step limit (10M steps take ~1 s on a quiet machine).
NO_STEP_LIMIT = ("--max-steps", str(10 ** 12))


def gradcli(*args, cwd=ROOT, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "gradcli", "test", *map(str, args), *NO_STEP_LIMIT], capture_output=True,
                          cwd=cwd, env=env, timeout=timeout)
    proc.stdout, proc.stderr = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    return proc


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = jsonout.schema("gradcli-test/1")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def valid(validator, doc):
    errors = list(validator.iter_errors(doc))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    return doc


def write(folder: Path, name: str, data) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


# ------------------------------------------------------------------------------ the samples
def test_samples_pass():
    proc = gradcli("samples", "-j", "2")
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    count = len(sorted((ROOT / "samples").glob("*.grad")))
    assert sum(line.startswith("passed") for line in lines) == count
    assert lines[-1].startswith(f"{count} scripts: {count} passed, 0 failed")


# ------------------------------------------------------------------------------ golden module
def test_compare_masks_addresses_and_reports_the_first_differing_statement(tmp_path):
    script = write(tmp_path, "s.grad", "")
    write(tmp_path, "s.out", "a\n<AddBackward0 object at 0x7f00aa>\nc\n")
    expectation = golden.read_expectation(script)
    same = golden.Actual("a\n<AddBackward0 object at 0x55d1>\nc\n", [("a\n", 1), ("<AddBackward0 object at 0x55d1>\n", 2),
                                                                     ("c\n", 3)])
    assert golden.compare(expectation, same).passed
    other = golden.Actual("a\n<AddBackward0 object at 0x55d1>\nd\n", [("a\n<AddBackward0 object at 0x55d1>\n", 4),
                                                                      ("d\n", 9)])
    verdict = golden.compare(expectation, other)
    assert not verdict.passed and verdict.line == 9
    assert verdict.problems == ["stdout differs from s.out at output line 3"]
    assert "-c\n+d\n" in verdict.diff


def test_compare_errors_and_syntax_error_place(tmp_path):
    script = write(tmp_path, "s.grad", "")
    write(tmp_path, "s.out", "")
    write(tmp_path, "s.err", "SyntaxError: invalid syntax (s.grad, line 2)\nline 2\n")
    expectation = golden.read_expectation(script)
    assert expectation.error_line == 2
    ok = golden.Actual("", [], "SyntaxError", "invalid syntax", 2)
    assert golden.compare(expectation, ok).passed
    wrong_line = golden.Actual("", [], "SyntaxError", "invalid syntax", 3)
    verdict = golden.compare(expectation, wrong_line)
    assert verdict.problems == ["expected SyntaxError: invalid syntax at line 2, got SyntaxError: invalid syntax at line 3"]
    none = golden.compare(expectation, golden.Actual("", []))
    assert none.problems == ["expected SyntaxError: invalid syntax at line 2, but the script ended without an error"]
    internal = golden.Actual("", [], "InternalError", "boom", 1, failure="internal error: boom")
    assert not golden.compare(expectation, internal).passed


def test_expectation_problems(tmp_path):
    script = write(tmp_path, "s.grad", "")
    write(tmp_path, "s.out", b"\x80\n")
    assert "s.out is not UTF-8 (byte 0x80 at offset 0)" in golden.read_expectation(script).problem
    write(tmp_path, "s.out", "")
    write(tmp_path, "s.err", "ValueError: x\nline two\n")
    assert "the second line must be 'line N'" in golden.read_expectation(script).problem
    write(tmp_path, "s.err", "ValueError: x\nline 1\nmore\n")
    assert "must hold 'Type: message'" in golden.read_expectation(script).problem
    write(tmp_path, "s.err", "ValueError: x\n")  # the line is optional
    expectation = golden.read_expectation(script)
    assert expectation.problem is None and expectation.error == "ValueError: x" and expectation.error_line is None
    assert not golden.compare(expectation, golden.Actual("", [])).passed
    assert golden.compare(expectation, golden.Actual("", [], "ValueError", "x\nmore", 7)).passed


def test_diff_marks_a_missing_final_newline():
    diff = golden.unified_diff(b"a\nb", b"a\nb\n", "x.out", "x.grad")
    assert "-b\n\\ No newline at end of file\n+b\n" in diff


def test_expectation_files_round_trip(tmp_path):
    actual = golden.Actual("1\n", [("1\n", 1)], "ValueError", "bad\nvalue", 2)
    files = golden.expectation_files(actual)
    assert files == {".out": b"1\n", ".err": b"ValueError: bad\nline 2\n"}
    script = write(tmp_path, "s.grad", "")
    for suffix, data in files.items():
        script.with_suffix(suffix).write_bytes(data)
    assert golden.compare(golden.read_expectation(script), actual).passed
    assert golden.expectation_files(golden.Actual("", []))[".err"] is None


# ------------------------------------------------------------------------------ the command
@pytest.fixture
def suite(tmp_path):
    """A folder of scripts: one of each kind of outcome."""
    write(tmp_path, "a_pass.grad", "print(1)\n")
    write(tmp_path, "a_pass.out", "1\n")
    write(tmp_path, "b_diff.grad", "import torch\nprint('hi')\nx = torch.tensor([1., 2.])\nprint(x * 2)\n")
    write(tmp_path, "b_diff.out", "hi\ntensor([2., 5.])\n")
    write(tmp_path, "c_err_but_no_error.grad", "print(2)\n")
    write(tmp_path, "c_err_but_no_error.out", "2\n")
    write(tmp_path, "c_err_but_no_error.err", "ValueError: boom\nline 1\n")
    write(tmp_path, "d_none.grad", "print(3)\n")
    write(tmp_path, "e_timeout.grad", "print(1)\nwhile True:\n    pass\n")
    write(tmp_path, "e_timeout.out", "1\n")
    write(tmp_path, "f_not_utf8.grad", "print(4)\n")
    write(tmp_path, "f_not_utf8.out", b"4\xff\n")
    write(tmp_path, "sub/g_error.grad", "x = 1\nprint(x / 0)\n")
    write(tmp_path, "sub/g_error.out", "")
    write(tmp_path, "sub/g_error.err", "ZeroDivisionError: division by zero\nline 2\n")
    write(tmp_path, ".hidden/skipped.grad", "print(1)\n")
    return tmp_path


def _statuses(stdout):
    return [line.split()[:3] for line in stdout.splitlines() if line and not line[0].isspace()
            and line.split()[0] in ("passed", "FAILED", "no", "updated")]


def test_report_lines_and_exit_code(suite):
    proc = gradcli(".", "--timeout", "1", "-j", "3", cwd=suite)
    assert proc.returncode == 1
    assert _statuses(proc.stdout) == [
        ["passed", "a_pass.grad", _time(proc.stdout, "a_pass.grad")],
        ["FAILED", "b_diff.grad", _time(proc.stdout, "b_diff.grad")],
        ["FAILED", "c_err_but_no_error.grad", _time(proc.stdout, "c_err_but_no_error.grad")],
        ["no", "expectation", "d_none.grad"],
        ["FAILED", "e_timeout.grad", _time(proc.stdout, "e_timeout.grad")],
        ["FAILED", "f_not_utf8.grad", _time(proc.stdout, "f_not_utf8.grad")],
        ["passed", "sub/g_error.grad", _time(proc.stdout, "sub/g_error.grad")],
    ]
    out = proc.stdout
    assert "    stdout differs from b_diff.out at output line 2\n--- b_diff.out (expected)\n" in out
    assert "-tensor([2., 5.])\n+tensor([2., 4.])\n" in out
    assert "    expected ValueError: boom at line 1, but the script ended without an error\n" in out
    assert "    no expectation: neither d_none.out nor d_none.err (write them with --update)\n" in out
    assert "    unexpected TimeoutError: the script ran longer than 1 second (--timeout) at line 2\n" in out
    assert "    f_not_utf8.out is not UTF-8 (byte 0xff at offset 1); expectation files are UTF-8 text\n" in out
    assert out.splitlines()[-1].startswith("7 scripts: 2 passed, 4 failed, 1 without expectation in ")


def _time(stdout, name):
    return re.search(rf"  {re.escape(name)}  (\(\d+\.\d\d)", stdout).group(1)


def test_order_is_the_paths_whatever_the_jobs(suite):
    one = gradcli(".", "--timeout", "1", "-j", "1", cwd=suite)
    many = gradcli(".", "--timeout", "1", "-j", "4", cwd=suite)
    assert TIME.sub("", one.stdout) == TIME.sub("", many.stdout)


def test_strict_makes_no_expectation_a_failure(suite):
    assert gradcli("a_pass.grad", "d_none.grad", cwd=suite).returncode == 0
    proc = gradcli("a_pass.grad", "d_none.grad", "--strict", cwd=suite)
    assert proc.returncode == 1 and "FAILED          d_none.grad" in proc.stdout


def test_usage_errors(suite, validator):
    proc = gradcli("missing_folder", cwd=suite)
    assert proc.returncode == 2 and proc.stderr == "gradcli: cannot open 'missing_folder': no such file or folder\n"
    proc = gradcli(".hidden/..", "nowhere/", "--json", cwd=suite)
    assert proc.returncode == 2
    doc = valid(validator, json.loads(proc.stdout))
    assert doc["error"]["type"] == "UsageError" and doc["exit_code"] == 2 and not doc["ok"]
    empty = suite / "empty"
    empty.mkdir()
    proc = gradcli("empty", cwd=suite)
    assert proc.returncode == 2 and "no .grad scripts in 'empty'" in proc.stderr
    assert gradcli(".", "--json", "--format", "github", cwd=suite).returncode == 2
    proc = gradcli(".", "--json", "--no-such-option", cwd=suite)  # Typer's own usage error: the document too
    assert proc.returncode == 2 and "No such option: --no-such-option" in proc.stderr
    doc = valid(validator, json.loads(proc.stdout))
    assert doc["error"]["type"] == "UsageError" and "--no-such-option" in doc["error"]["message"]


def test_json_document(suite, validator):
    proc = gradcli(".", "--timeout", "1", "--json", cwd=suite)
    assert proc.returncode == 1
    doc = valid(validator, json.loads(proc.stdout))
    assert doc["summary"] | {"seconds": 0} == {"scripts": 7, "passed": 2, "failed": 4, "no_expectation": 1,
                                               "updated": 0, "seconds": 0}
    by_file = {s["file"]: s for s in doc["scripts"]}
    assert list(by_file) == sorted(by_file)
    assert by_file["b_diff.grad"]["line"] == 4 and by_file["b_diff.grad"]["diff"].startswith("--- b_diff.out")
    assert by_file["sub/g_error.grad"]["error"] == {"type": "ZeroDivisionError", "message": "division by zero",
                                                    "line": 2}
    assert by_file["d_none.grad"]["status"] == "no expectation"


def test_json_schema_is_valid():
    jsonschema = pytest.importorskip("jsonschema")
    schema = jsonout.schema("gradcli-test/1")
    jsonschema.Draft202012Validator.check_schema(schema)


def test_junit_report(suite, tmp_path):
    report = tmp_path / "out" / "junit.xml"
    report.parent.mkdir()
    write(suite, "h_control.grad", "print('a\\x01b')\n")
    write(suite, "h_control.out", "ab\n")
    proc = gradcli(".", "--timeout", "1", "--junit", report, cwd=suite)
    assert proc.returncode == 1
    root = ET.parse(report).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "8" and root.get("failures") == "5"
    (suite_el,) = root.findall("testsuite")
    assert suite_el.get("skipped") == "1" and suite_el.get("errors") == "0"
    cases = {f"{c.get('classname')}/{c.get('name')}": c for c in suite_el.findall("testcase")}
    names = [(c.get("classname"), c.get("name")) for c in suite_el.findall("testcase")]
    assert names == [(".", "a_pass.grad"), (".", "b_diff.grad"), (".", "c_err_but_no_error.grad"),
                     (".", "d_none.grad"), (".", "e_timeout.grad"), (".", "f_not_utf8.grad"),
                     (".", "h_control.grad"), ("sub", "g_error.grad")]
    failure = cases["./b_diff.grad"].find("failure")
    assert failure.get("message") == "stdout differs from b_diff.out at output line 2"
    assert "+tensor([2., 4.])" in failure.text
    assert cases["./d_none.grad"].find("skipped") is not None
    assert cases["./a_pass.grad"].find("failure") is None
    assert "\\x01" in cases["./h_control.grad"].find("system-out").text  # XML 1.0 cannot hold \x01
    for case in suite_el.findall("testcase"):
        assert float(case.get("time")) >= 0


def test_github_annotations(suite):
    proc = gradcli("b_diff.grad", "sub", "c_err_but_no_error.grad", "d_none.grad", "--format", "github", cwd=suite)
    notes = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert notes[0].startswith("::error file=b_diff.grad,line=4,title=gradcli test%3A failed::stdout differs from "
                               "b_diff.out at output line 2%0A--- b_diff.out (expected)%0A")
    assert notes[1] == ("::error file=c_err_but_no_error.grad,title=gradcli test%3A failed::expected ValueError: "
                        "boom at line 1, but the script ended without an error")
    assert notes[2].startswith("::warning file=d_none.grad,title=gradcli test%3A no expectation::")
    assert len(notes) == 3  # sub/g_error.grad passes


def test_github_annotation_at_the_error_line():
    record = reports.Record("a,b:c.grad", reports.FAILED, 0.1, ["unexpected ValueError: 100% at line 3"], line=3)
    assert reports.github_annotation(record) == ("::error file=a%2Cb%3Ac.grad,line=3,title=gradcli test%3A failed::"
                                                 "unexpected ValueError: 100%25 at line 3")


def test_update_writes_the_expectations(suite):
    write(suite, "sub/g_error.grad", "print('now')\n")  # no longer raises: its .err goes
    proc = gradcli(".", "--update", "--timeout", "1", cwd=suite)
    assert proc.returncode == 1  # the timing-out script is not updated
    assert "    not updated: TimeoutError: the script ran longer than 1 second (--timeout) at line 2" in proc.stdout
    assert (suite / "b_diff.out").read_text() == "hi\ntensor([2., 4.])\n"
    assert (suite / "d_none.out").read_text() == "3\n"
    assert (suite / "f_not_utf8.out").read_bytes() == b"4\n"
    assert not (suite / "c_err_but_no_error.err").exists()
    assert not (suite / "sub" / "g_error.err").exists() and (suite / "sub" / "g_error.out").read_text() == "now\n"
    assert [s[0] for s in _statuses(proc.stdout)] == ["passed", "updated", "updated", "updated", "FAILED", "updated",
                                                     "updated"]
    (suite / "e_timeout.grad").write_text("print(1)\n")
    again = gradcli(".", cwd=suite)
    assert again.returncode == 0 and again.stdout.splitlines()[-1].startswith("7 scripts: 7 passed, 0 failed")


def test_ctrl_c_under_json_is_one_document(suite, validator):
    import signal
    import time

    if not Path("/proc/self/task").is_dir():
        pytest.skip("needs /proc to see the children")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-m", "gradcli", "test", ".", "--json", "-j", "1", "--timeout", "60",
                             *NO_STEP_LIMIT],
                            cwd=suite, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if "e_timeout" in _running_child_script(children):  # the endless script runs: interrupt it
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.decode() == "gradcli: interrupted\n"
    doc = valid(validator, json.loads(out))
    assert doc["exit_code"] == 130 and doc["error"] == {"type": "KeyboardInterrupt", "message": "interrupted"}
    done = [s["file"] for s in doc["scripts"]]  # those before the endless script (all four, unless a slow
    order = ["a_pass.grad", "b_diff.grad", "c_err_but_no_error.grad", "d_none.grad"]  # machine fooled the wait)
    assert done == order[:len(done)]


def test_children_do_not_outlive_a_killed_command(tmp_path):
    import signal
    import time

    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    write(tmp_path, "loop.grad", "while True:\n    pass\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-m", "gradcli", "test", ".", "--timeout", "100", *NO_STEP_LIMIT], cwd=tmp_path,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    kids = []
    deadline = time.monotonic() + 60
    while not kids and time.monotonic() < deadline:
        time.sleep(0.05)
        kids = children.read_text().split()
    assert kids
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)

    def alive(pid):
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    deadline = time.monotonic() + 10
    while any(alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(k) for k in kids)


def _running_child_script(children: Path) -> str:
    """Which script the command's child runs now ('' when none): the parent's order is the paths'
    order, so a child that lives longer than a second is the endless one."""
    try:
        pids = children.read_text().split()
    except OSError:
        return ""
    for pid in pids:
        try:
            start = float(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
            uptime = float(Path("/proc/uptime").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue
        if uptime - start / os.sysconf("SC_CLK_TCK") > 1.0:
            return "e_timeout"
    return ""


# ------------------------------------------------------------------------------ the executor
def test_parent_ends_a_child_stuck_past_its_timeout(tmp_path, monkeypatch):
    """A script stuck where the runner's clock cannot reach (a long C call) is ended by the parent
    and reported as a TimeoutError at the statement it last reported, with what it printed before."""
    import time

    from gradcli.lang.runner import RunOptions

    class Node:
        line, column, end_line, end_column = 5, 1, 5, 9

    class Session:
        class rt:  # noqa: N801 - the runtime's one attribute the location watch reads
            loc = [Node()]

    def stuck(path, name, options, write=None, watch=None):
        write("before\n", 1)
        watch(Session())  # the child reports the statement it runs near its deadline
        time.sleep(60)

    monkeypatch.setattr(execute, "run_here", stuck)
    monkeypatch.setattr(execute, "TIMEOUT_GRACE", 0.1)
    monkeypatch.setattr(execute, "_warm_up", lambda options: None)
    script = write(tmp_path, "s.grad", "")
    (finished,) = execute.run_scripts([(script, "s.grad")], RunOptions(timeout=0.2), jobs=1)
    actual = finished.actual
    assert actual.error_type == "TimeoutError" and actual.error_line == 5 and actual.stdout == "before\n"
    assert actual.error_message == "the script ran longer than 0.2 seconds (--timeout)"


def test_timeout_inside_a_c_call(tmp_path):
    """The runner cannot stop a long C call (it checks between statements); the parent ends the child and
    reports the TimeoutError (at the statement the child last reported, when it could report one
    near the deadline), with what it printed."""
    # a float64 product of two 5000 x 5000 matrices: one BLAS call of 250 GFLOP, seconds on any CPU
    # (a modular pow of 100,000-bit numbers was this call until the sandbox refused such work)
    write(tmp_path, "matmul.grad", "import torch\nprint('before')\n"
                                   "a = torch.ones(5000, 5000, dtype=torch.float64)\nb = a @ a\n")
    write(tmp_path, "matmul.out", "before\n")
    proc = gradcli("matmul.grad", "--timeout", "1", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[1].startswith("    unexpected TimeoutError: the script ran longer than 1 second "
                                                  "(--timeout)")
    assert "stdout differs" not in proc.stdout


def test_max_memory_option(tmp_path):
    write(tmp_path, "big.grad", "print('before')\nl = []\nfor i in range(100):\n    l.append('x' * 10 ** 7)\n")
    write(tmp_path, "big.out", "before\n")
    proc = gradcli("big.grad", "--max-memory", "300M", cwd=tmp_path)
    assert proc.returncode == 1 and "    unexpected MemoryError" in proc.stdout and "at line 4" in proc.stdout
    proc = gradcli("big.grad", "--max-memory", "lots", cwd=tmp_path)
    assert proc.returncode == 2 and "--max-memory" in proc.stderr


def test_a_child_that_dies_is_a_failure_line(tmp_path, monkeypatch):
    from gradcli.lang.runner import RunOptions

    def dies(path, name, options, write=None, watch=None):
        os.kill(os.getpid(), 9)

    monkeypatch.setattr(execute, "run_here", dies)
    monkeypatch.setattr(execute, "_warm_up", lambda options: None)
    script = write(tmp_path, "s.grad", "")
    write(tmp_path, "s.out", "")
    finished = execute.run_scripts([(script, "s.grad"), (script, "t.grad")], RunOptions(), jobs=2)
    assert [f.index for f in finished] == [0, 1]
    assert finished[0].actual.failure == "the run ended without a result (killed by SIGKILL (out of memory?))"
    assert golden.compare(golden.read_expectation(script), finished[0].actual).problems == [
        "the run ended without a result (killed by SIGKILL (out of memory?))"]


def test_max_memory_limits_the_child(tmp_path):
    pytest.importorskip("resource")
    from gradcli.lang.runner import RunOptions

    # the sandbox's cap: the address space the child starts with plus max_memory
    script = write(tmp_path, "big.grad", "import torch\nx = torch.ones(100_000_000, dtype=torch.float64)\nprint(1)\n")
    (finished,) = execute.run_scripts([(script, "big.grad")], RunOptions(), jobs=1, max_memory=300 * 2**20)
    actual = finished.actual
    assert actual.stdout == "" and actual.error_type == "MemoryError" and actual.error_line == 2


# ------------------------------------------------------------------------------ the shared options
def test_every_command_declares_the_shared_options_once():
    import typer

    from gradcli.cli import app as cli_app

    commands = typer.main.get_command(cli_app.app).commands
    for name in ("run", "graph", "grad", "repl", "test"):
        params = [p.name for p in commands[name].params]
        expected = [n for n in cli_app.SHARED_OPTIONS if not (name == "repl" and n == "json")]
        assert params[-len(expected):] == expected, name  # after the command's own, in one order
        assert len(params) == len(set(params)), name
    timeout = next(p for p in commands["test"].params if p.name == "timeout")
    assert timeout.default == 60.0
    assert next(p for p in commands["run"].params if p.name == "timeout").default is None
