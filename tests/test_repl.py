"""The REPL (issue 8): the continuation rule, completion, the lexer, the `:vars`/`:graph` views,
stdin mode, and the interactive editor driven in a real pseudo-terminal with pexpect."""
from __future__ import annotations

import importlib.util
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gradcli.repl.completion import complete, split_prefix
from gradcli.repl.source import StatementReader, is_complete, next_indent

ROOT = Path(__file__).resolve().parents[1]
HAVE_RUNNER = importlib.util.find_spec("gradcli.lang.runner") is not None
HAVE_PTK = importlib.util.find_spec("prompt_toolkit") is not None
HAVE_PEXPECT = importlib.util.find_spec("pexpect") is not None and sys.platform != "win32"
needs_runner = pytest.mark.skipif(not HAVE_RUNNER, reason="gradcli.lang.runner is not there yet")


def repl_command() -> list[str]:
    """`python -m gradcli repl` once the CLI routes it, else the REPL package itself."""
    app = ROOT / "gradcli" / "cli" / "app.py"
    if (ROOT / "gradcli" / "__main__.py").exists() and app.exists() and "repl" in app.read_text():
        return [sys.executable, "-m", "gradcli", "repl"]
    return [sys.executable, "-m", "gradcli.repl"]


def repl_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"), NO_COLOR="1",
               TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="120", LINES="40")
    env.pop("FORCE_COLOR", None)
    # the parse tables' cache stays the user's (the in-process tests have filled it): a fresh HOME
    # would rebuild them with Lark in every REPL started here, seconds each on a loaded machine
    env.setdefault("XDG_CACHE_HOME", str(Path.home() / ".cache"))
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


# --------------------------------------------------------------------------- the continuation rule

@pytest.mark.parametrize("text, complete_", [
    ("x = 1", True),
    ("x = torch.tensor([1., 2.],", False),
    ("x = torch.tensor([1., 2.],\n    requires_grad=True)", True),
    ("for i in range(3):", False),
    ("for i in range(3):\n    print(i)", False),
    ("for i in range(3):\n    print(i)\n", True),
    ("for i in range(3):\n    print(i)\n    ", True),
    ("for i in range(3): print(i)", False),
    ("with torch.no_grad():", False),
    ("def f(a,\n      b):", False),
    ("class Net(nn.Module):", False),
    ("if x:  # a comment:", False),
    ("d = {'a': 1}", True),
    ("f = lambda t: t * 2", True),
    ("y = x[1:]", True),
    ('s = """one', False),
    ('s = """one\ntwo"""', True),
    ("x = 1 + \\", False),
    ("x = '('  # (", True),
    ("# just a comment", True),
    (":vars", True),
    ("", True),
    ("try:", False),
    ("try:\n    x = 1\nexcept ValueError as e:", False),
    ("try:\n    x = 1\nfinally:\n    pass\n", True),
    ("raise ValueError('x')", True),
    ("def g():\n    yield 1", False),
    # Python's block openers that GradScript lacks: read as a block (the parser says what is wrong) when
    # they are a header, as names otherwise (soft keywords)
    ("match x:\n    case 1:\n        pass", False),
    ("match x:\n    case 1:\n        pass\n", True),
    ("match = 1", True),
    ("match(x)", True),
    ("await x", True),
])
def test_is_complete(text, complete_):
    assert is_complete(text) is complete_


def test_next_indent():
    assert next_indent("for i in range(3):") == "    "
    assert next_indent("for i in range(3):\n    y = i") == "    "
    assert next_indent("for i in x:\n    if i:") == "        "
    assert next_indent("def f(a,\n      b):") == "    "
    assert next_indent("x = (1,") == ""


def test_statement_reader_cuts_piped_scripts():
    src = """import torch
x = torch.ones(2,
    requires_grad=True)

for i in range(2):
    print(i)
else:
    print(9)
y = x * 2
:vars
if y is None:
    pass
# between
elif True:
    z = 1

s = \"\"\"a
b\"\"\"
"""
    got = list(StatementReader().read(src.split("\n")))
    assert got == [
        (1, "import torch"),
        (2, "x = torch.ones(2,\n    requires_grad=True)"),
        (5, "for i in range(2):\n    print(i)\nelse:\n    print(9)"),
        (9, "y = x * 2"),
        (10, ":vars"),
        (11, "if y is None:\n    pass\n# between\nelif True:\n    z = 1"),
        (17, 's = """a\nb"""'),
    ]


# --------------------------------------------------------------------------- completion, lexer, views

def _scope():
    from gradcli.engine import api as torch
    x = torch.ones(2, requires_grad=True)
    w = torch.tensor(3., requires_grad=True)
    a = x * w
    y = (a + x).sum() * 2
    return {"x": x, "w": w, "a": a, "y": y, "c": torch.zeros(3), "lr": 0.1}


def test_split_prefix():
    assert split_prefix("y = x.grad.ze") == (["x", "grad"], "ze")
    assert split_prefix("print(x") == ([], "x")
    assert split_prefix("torch.") == (["torch"], "")


def test_completion_of_tensor_methods_names_and_namespaces():
    scope = _scope()
    assert complete("x.requ", scope)[1] == ["requires_grad", "requires_grad_"]
    assert "backward" in complete("y.back", scope)[1]
    assert complete("y.grad_fn.ne", scope)[1] == ["next_functions"]
    assert set(complete("torch.zer", scope)[1]) >= {"zeros", "zeros_like"}
    assert "lr" in complete("l", scope)[1]
    assert "print" in complete("pri", scope)[1]
    assert "for" in complete("fo", scope)[1]
    # only public names, and nothing after a call (that would need running it)
    assert not [n for n in complete("x.", scope)[1] if n.startswith("_")]
    assert not [n for n in complete("torch.", scope)[1] if n.startswith("_") or n in ("types", "annotations")]
    assert complete("x.sum().re", scope)[1] == []
    # a script's names that start with '_' are offered once the prefix does (never attributes)
    scope["_grad_out"] = 1
    assert "_grad_out" in complete("_gr", scope)[1] and "_grad_out" not in complete("", scope)[1]
    assert "try" in complete("tr", scope)[1] and "yield" in complete("yie", scope)[1]


def test_completion_uses_session_complete():
    partial, words = complete("x.fancy_", {}, lambda prefix: ["x.fancy_thing", "x._hidden"])
    assert partial == "fancy_" and words == ["fancy_thing"]


def test_lexer_tokens():
    from pygments import lex
    from pygments.token import Keyword, Name, Number, String

    from gradcli.lang.lexer import GradScriptLexer
    toks = [(t, v) for t, v in lex('for i in range(3):\n    y = x.grad * 2.5  # c\nprint("s")\n',
                                   GradScriptLexer()) if v.strip()]
    assert (Keyword, "for") in toks
    assert (Name.Builtin, "range") in toks
    assert (Name.Attribute, "grad") in toks
    assert (Number, "2.5") in toks
    assert (String.Double, '"s"') in toks


def test_lexer_imports_without_prompt_toolkit():
    code = ("import sys; sys.modules['prompt_toolkit'] = None; "
            "from gradcli.lang.lexer import GradScriptLexer; print(GradScriptLexer.name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "GradScript"


def _render(renderable) -> str:
    from rich.console import Console
    buf = io.StringIO()
    Console(file=buf, no_color=True, color_system=None, width=120).print(renderable)
    return buf.getvalue()


def test_vars_table_and_graph_tree():
    from gradcli.repl.views import graph_tree, vars_table
    scope = _scope()
    scope["y"].backward(retain_graph=True)
    table = _render(vars_table(scope))
    for word in ("name", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "grad",
                 "MulBackward0", "torch.float32", "set [2]"):
        assert word in table
    assert "lr" not in table            # tensors only
    tree = _render(graph_tree("y", scope["y"], scope))
    lines = tree.splitlines()
    assert lines[0].startswith("MulBackward0  y  []")
    assert "SumBackward0" in tree and "AddBackward0" in tree
    assert "MulBackward0  a  [2]" in tree
    assert "AccumulateGrad  x  [2]" in tree and "AccumulateGrad  w  []" in tree
    assert "None" in tree
    assert "has no backward graph" in graph_tree("c", scope["c"], scope)
    assert "leaf" in graph_tree("x", scope["x"], scope)


# --------------------------------------------------------------------------- the REPL core, in process

def _repl():
    from gradcli.repl.core import Repl
    out, err = io.StringIO(), io.StringIO()
    return Repl(out=out, err=err), out, err


@needs_runner
def test_core_interrupt_internal_error_and_explain_keep_the_session():
    repl, out, err = _repl()
    assert repl.handle("import torch\nx = torch.tensor(3., requires_grad=True)")
    real_run = repl.session.run

    def interrupted(text, filename="<string>"):
        raise KeyboardInterrupt
    repl.session.run = interrupted
    repl.handle("while True:\n    pass\n")
    assert "KeyboardInterrupt" in err.getvalue()
    from gradcli.lang.runner import InternalError, RunResult
    repl.session.run = lambda text, filename="<string>": RunResult(
        ok=False, error=InternalError("internal error: ValueError: boom"))
    repl.handle("x")
    assert "gradcli: internal error: ValueError: boom (the session goes on)" in err.getvalue()
    repl.session.run = real_run
    repl.handle("x * 2")
    assert out.getvalue().endswith("tensor(6., grad_fn=<MulBackward0>)\n")
    repl.handle(":explain")
    assert getattr(repl.options, "explain") is True and "walkthrough on" in out.getvalue()
    repl.handle(":explain")
    assert getattr(repl.options, "explain") is False
    assert repl.handle(":quit") is False


# --------------------------------------------------------------------------- stdin mode (no terminal)

def run_stdin(text: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(repl_command() + list(extra), input=text, capture_output=True, text=True,
                          env=repl_env(tmp_path), cwd=tmp_path, timeout=60)


@needs_runner
def test_stdin_mode_echo_blocks_errors_and_state(tmp_path):
    script = """import torch
x = torch.tensor([1., 2.], requires_grad=True)
x
for i in range(2):
    print(i)
y = undefined_name * 2
y = (x * x).sum()
y.backward()
x.grad
"""
    out = run_stdin(script, tmp_path)
    assert out.stdout == ("tensor([1., 2.], requires_grad=True)\n0\n1\ntensor([2., 4.])\n")
    assert ">>>" not in out.stdout and "..." not in out.stdout
    assert "NameError" in out.stderr and "undefined_name" in out.stderr
    assert ":6" in out.stderr           # the stdin line number of the failing statement
    assert "Traceback" not in out.stderr
    assert out.returncode == 1          # a statement failed; the rest still ran


@needs_runner
def test_stdin_mode_try_generators_random_and_underscore_names(tmp_path):
    script = """try:
    1 / 0
except ZeroDivisionError as e:
    print("caught", e)
else:
    print("no")
finally:
    print("fin")
def g():
    yield 1
    yield 2
list(g())
import random
random.seed(1)
random.randint(0, 9)
_x = 5
_x
"""
    out = run_stdin(script, tmp_path)
    assert out.stdout == "caught division by zero\nfin\n[1, 2]\n2\n5\n", out.stderr
    assert out.returncode == 0


@needs_runner
def test_stdin_mode_meta_commands(tmp_path):
    script = """import torch
x = torch.tensor(2., requires_grad=True)
y = x * x + 1
:vars
:graph y
:save saved.grad
:reset
:vars
:load saved.grad
y
:device cuda
:explain
:nope
:quit
print("not reached")
"""
    out = run_stdin(script, tmp_path)
    assert "Tensors in scope" in out.stdout
    assert "AddBackward0  y  []  (line 3)" in out.stdout   # stdin keeps its line numbers
    assert "AccumulateGrad  x  []" in out.stdout
    assert (tmp_path / "saved.grad").read_text() == ("import torch\nx = torch.tensor(2., requires_grad=True)\n"
                                                      "y = x * x + 1\n")
    assert "No tensors in scope." in out.stdout
    assert "tensor(5., grad_fn=<AddBackward0>)" in out.stdout
    try:
        import cupy  # noqa: F401
    except Exception:
        assert "cuda is not available" in out.stderr and "pip install 'gradcli[cuda]'" in out.stderr
    assert "Chain-rule walkthrough on" in out.stdout
    assert "Unknown command :nope" in out.stderr
    assert "not reached" not in out.stdout
    assert out.returncode == 0


# --------------------------------------------------------------------------- the terminal (pexpect)

needs_pty = pytest.mark.skipif(not (HAVE_RUNNER and HAVE_PTK and HAVE_PEXPECT),
                               reason="needs the runner, prompt_toolkit and pexpect")
PROMPT = ">>>"
MORE = re.escape("...")


# prompt_toolkit switches bracketed paste on while it reads a line and off when the line is
# accepted: those two sequences delimit the program's output reliably (the final redraw of the
# accepted input also shows ">>> ...", so the prompt text alone is not a marker).
EDIT_ON, EDIT_OFF = "\x1b[?2004h", "\x1b[?2004l"


class Term:
    """A REPL in a pseudo-terminal."""

    def __init__(self, tmp_path: Path):
        import pexpect
        cmd = repl_command()
        self.child = pexpect.spawn(cmd[0], cmd[1:], env=repl_env(tmp_path), cwd=str(tmp_path),
                                   encoding="utf-8", timeout=15, dimensions=(40, 120))
        self.banner = self.wait_prompt()

    def wait_prompt(self) -> str:
        """Wait for the next `>>>` prompt; return what was written before it (ANSI removed)."""
        self.child.expect_exact(EDIT_ON)
        before = self.child.before
        self.child.expect_exact(PROMPT)
        return _plain(before)

    def accepted(self) -> str:
        """Wait until the input is accepted, then for the next prompt; the output in between."""
        self.child.expect_exact(EDIT_OFF)
        return self.wait_prompt()

    def run(self, line: str) -> str:
        self.child.sendline(line)
        return self.accepted()

    def close(self) -> int | None:
        import pexpect
        if self.child.isalive():
            self.child.sendcontrol("d")
            self.child.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus


@pytest.fixture
def term(tmp_path):
    t = Term(tmp_path)
    yield t
    if t.child.isalive():
        t.child.terminate(force=True)


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


@needs_pty
def test_tty_session_echo_block_error_completion_vars_graph_ctrl_d(term):
    # one process for most checks: each REPL start costs seconds on a busy machine
    term.run("import torch")
    term.run("x = torch.tensor([1., 2., 3.], requires_grad=True)")
    assert term.run("x") == "tensor([1., 2., 3.], requires_grad=True)\n"
    # a multi-line for block: `...` continuation, a blank line runs it
    term.child.sendline("for i in range(3):")
    term.child.expect(MORE)
    term.child.sendline("print(i * 10)")          # auto-indented by the editor
    term.child.expect(MORE)
    term.child.sendline("")
    assert term.accepted() == "0\n10\n20\n"
    # an error (rendered as in `run`), then a statement using the earlier state
    err = term.run("z = x * not_defined")
    assert "NameError: name 'not_defined' is not defined" in err and "Traceback" not in err
    assert term.run("y = (x * x).sum()") == ""
    assert term.run("y") == "tensor(14., grad_fn=<SumBackward0>)\n"
    # tab completion of a tensor method/attribute
    term.child.send("x.requ\t")
    term.child.expect_exact("requires_grad")       # the common prefix, and a menu of the two
    term.child.send("\r")
    assert term.accepted() == "True\n"
    # :vars and :graph
    table = term.run(":vars")
    assert "Tensors in scope" in table and "SumBackward0" in table and "requires_grad" in table
    assert "torch.float32" in table
    tree = term.run(":graph y")
    assert tree.splitlines()[0].strip() == "SumBackward0  y  []  (line 7)"  # inputs are numbered on
    assert "MulBackward0" in tree and "AccumulateGrad  x  [3]" in tree
    assert term.close() == 0                       # Ctrl-D


@needs_pty
def test_tty_ctrl_c_interrupts_long_loop_and_cancels_input(term):
    term.run("import torch")
    term.run("n = 0")
    term.child.sendline("while True:")
    term.child.expect(MORE)
    term.child.sendline("n = n + 1")
    term.child.expect(MORE)
    term.child.sendline("")
    term.child.expect_exact(EDIT_OFF)              # the input is accepted: the loop runs now
    time.sleep(0.5)
    term.child.sendcontrol("c")
    term.child.expect_exact("KeyboardInterrupt", timeout=10)
    term.wait_prompt()
    assert term.run("n > 0") == "True\n"         # the session goes on, state intact
    term.child.send("x = 1 +")
    term.child.sendcontrol("c")                    # cancels the half-typed input
    term.child.expect_exact("KeyboardInterrupt")
    term.wait_prompt()
    assert "name 'x' is not defined" in term.run("x")
    assert term.close() == 0


@needs_pty
def test_tty_history_persists_across_sessions(tmp_path):
    first = Term(tmp_path)
    first.run("hist_value = 41 + 1")
    assert first.close() == 0
    history = tmp_path / "state" / "gradcli" / "history"
    assert "hist_value = 41 + 1" in history.read_text()
    second = Term(tmp_path)
    second.child.send("\x1b[A")                   # up arrow recalls the previous session's line
    second.child.expect_exact("hist_value = 41 + 1")
    second.child.send("\r")
    second.accepted()
    assert second.run("hist_value") == "42\n"
    assert second.close() == 0


@pytest.mark.skipif(not HAVE_PTK, reason="needs prompt_toolkit")
def test_history_location_and_unwritable_state_dir(tmp_path, monkeypatch):
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    from gradcli.repl.terminal import history_path, make_history
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert history_path() == str(tmp_path / "state" / "gradcli" / "history")
    assert isinstance(make_history(), FileHistory)
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert history_path() == str(tmp_path / "home" / ".local" / "state" / "gradcli" / "history")
    # a file where the directory should be: the REPL goes on with an in-memory history
    (tmp_path / "blocked").write_text("not a directory")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "blocked"))
    assert isinstance(make_history(), InMemoryHistory)


# --------------------------------------------------------------------------- first run: ready to use

def _ctrl_d(child) -> int | None:
    """End a spawned REPL with Ctrl-D; its exit status."""
    import pexpect
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_predefined_modules_and_explain_lines_in_stdin_mode(tmp_path):
    """torch, np, nn, F and math need no import; :explain names each node's own line, with its text."""
    text = ("x = torch.tensor(2., requires_grad=True)\nprint(np.pi > 3, F.relu(-x), math.sqrt(4.), nn.Identity())\n"
            ":explain\ny = x * 3\nz = y * y\nz.backward()\n")
    proc = run_stdin(text, tmp_path, "--no-color")
    assert proc.returncode == 0, proc.stderr
    assert "True tensor(0., grad_fn=<ReluBackward0>) 2.0 Identity()" in proc.stdout
    assert "line 6: z.backward()" in proc.stderr
    assert "line 5: z = y * y" in proc.stderr and "line 4: y = x * 3" in proc.stderr


def test_plain_line_reader_when_prompt_toolkit_cannot_be_used(monkeypatch):
    """The import-level fallback: without prompt_toolkit (or with TERM=dumb) a terminal gets plain
    `>>> ` prompts over line reads, with the same continuation rule."""
    import gradcli.repl as repl_pkg

    monkeypatch.setitem(sys.modules, "prompt_toolkit", None)       # `import prompt_toolkit` fails
    monkeypatch.delitem(sys.modules, "gradcli.repl.terminal", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert repl_pkg.line_editor() is None
    monkeypatch.setenv("TERM", "dumb")
    assert repl_pkg.line_editor() is None

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stdin = Tty("x = torch.ones(2, requires_grad=True)\nfor i in range(2):\n    print(i)\n\n(x * x).sum()\n:quit\n")
    stdout, stderr = Tty(), Tty()
    assert repl_pkg.run_repl(None, False, stdin=stdin, stdout=stdout, stderr=stderr) == 0
    out = stdout.getvalue()
    assert "torch, np, nn, F and math are ready without imports" in out and "plain line input" in out
    assert ">>> >>> ... ... 0\n1\n>>> tensor(2., grad_fn=<SumBackward0>)\n>>> " in out
    assert "tensor(2., grad_fn=<SumBackward0>)\n" in out and stderr.getvalue() == ""


@needs_pty
def test_tty_banner_predefined_modules_and_explain_source_lines(term):
    assert "torch, np, nn, F and math are ready without imports" in term.banner
    assert term.run("a = torch.tensor(3., requires_grad=True)") == ""
    assert term.run("y = a * 2") == ""
    assert term.run("z = y * y") == ""
    assert term.run(":explain").startswith("Chain-rule walkthrough on")   # a meta-command is no line
    out = term.run("z.backward()")
    assert "line 4: z.backward()" in out
    assert "line 3: z = y * y" in out and "line 2: y = a * 2" in out
    assert term.close() == 0


@pytest.mark.skipif(not (HAVE_RUNNER and HAVE_PEXPECT), reason="needs pexpect")
def test_dumb_terminal_gets_the_plain_line_reader(tmp_path):
    import pexpect
    cmd = repl_command()
    env = repl_env(tmp_path)
    env["TERM"] = "dumb"
    child = pexpect.spawn(cmd[0], cmd[1:], env=env, cwd=str(tmp_path), encoding="utf-8", timeout=15)
    child.expect_exact("plain line input")
    child.expect_exact(">>> ")
    child.sendline("torch.tensor([1., 2.]) * 2")
    child.expect_exact("tensor([2., 4.])")
    child.expect_exact(">>> ")
    child.sendline("if True:")
    child.expect_exact("... ")
    child.sendline("    print('in block')")
    child.expect_exact("... ")
    child.sendline("")
    child.expect_exact("in block")
    child.expect_exact(">>> ")
    assert _ctrl_d(child) == 0


@pytest.mark.skipif(not os.environ.get("GRADCLI_VENV_TESTS") or not HAVE_PEXPECT,
                    reason="builds a fresh virtual environment with `pip install .`: set GRADCLI_VENV_TESTS=1")
def test_plain_install_gives_a_working_repl(tmp_path):
    """After the README's `pip install .` (no extras) `gradcli repl` on a terminal is the editor,
    with torch and friends ready."""
    import pexpect
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bindir = venv / ("Scripts" if sys.platform == "win32" else "bin")
    pip = subprocess.run([str(bindir / "python"), "-m", "pip", "install", "-q", str(ROOT)],
                         capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stderr[-3000:]
    env = repl_env(tmp_path)
    env.pop("PYTHONPATH", None)
    child = pexpect.spawn(str(bindir / "gradcli"), ["repl"], env=env, cwd=str(tmp_path), encoding="utf-8",
                          timeout=60, dimensions=(40, 120))
    child.expect_exact("torch, np, nn, F and math are ready without imports")
    child.expect_exact(EDIT_ON)                   # prompt_toolkit's editor, not the plain reader
    child.sendline("torch.ones(2) * 3")
    child.expect_exact("tensor([3., 3.])")
    assert _ctrl_d(child) == 0
