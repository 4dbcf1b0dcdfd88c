"""Start-up (issue 21): what a plain `gradcli run` / `gradcli grad` loads, and the members loaded on
first use behaving as if they had been there from the start. Each check runs a fresh process: the
engine's namespace facades are cached for the life of a process."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def fresh(code: str) -> dict:
    """Run code (it prints one JSON document) in a fresh interpreter; the document and the modules loaded."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    wrapped = code + "\nimport sys as _s\nprint(json.dumps(sorted(_s.modules)))\n"
    proc = subprocess.run([sys.executable, "-c", "import json\n" + wrapped], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc, modules = proc.stdout.strip().splitlines()[-2:]
    return {"doc": json.loads(doc), "modules": set(json.loads(modules))}


# `F` (torch.nn.functional) is handed out before torch.nn is loaded; its first read loads torch.nn
F_SCRIPTS = {
    "F first": "import torch\nimport torch.nn.functional as F\nimport torch.nn as nn\n"
               "a = F.relu(torch.tensor([-1., 2.]))\nout = [F is nn.functional, str(a), str(nn.Linear)]",
    "nn first": "import torch\nimport torch.nn.functional as F\nimport torch.nn as nn\n"
                "l = nn.Linear(2, 1)\nout = [F is nn.functional, str(F.relu(torch.tensor([-1., 2.]))), str(nn.Linear)]",
    "from import": "import torch\nfrom torch.nn import functional as F\nfrom torch.nn.functional import relu\n"
                   "import torch.nn as nn\nout = [F is nn.functional, str(relu(torch.tensor([-1., 2.]))), str(nn.Linear)]",
}


@pytest.mark.parametrize("name", sorted(F_SCRIPTS))
def test_functional_facade_is_nn_functional_whichever_is_read_first(name):
    r = fresh(f"""
from gradcli.lang.runner import Session, RunOptions
s = Session(RunOptions())
s.run({F_SCRIPTS[name]!r}, "<t>")
print(json.dumps(s.globals["out"]))
""")
    assert r["doc"] == [True, "tensor([0., 2.])", "<class 'torch.nn.modules.linear.Linear'>"]


def test_predefined_f_loads_torch_nn_only_when_read():
    """The calculator and the REPL predefine torch, np, nn, F and math: an expression that reads
    none of nn and F loads no torch.nn; one that reads F gets the loaded module, as nn.functional."""
    r = fresh("""
import sys
from gradcli.lang.runner import Session, RunOptions
s = Session(RunOptions())
s.predefine_modules()
before = "gradcli.engine.nn" in sys.modules
v = str(s.evaluate("torch.sin(torch.tensor(0.))"))
still = "gradcli.engine.nn" in sys.modules
w = str(s.evaluate("F.softplus(torch.tensor(0.))"))
print(json.dumps([before, still, v, w, s.evaluate("F is nn.functional"), sorted(s.variables())]))
""")
    assert r["doc"] == [False, False, "tensor(0.)", "tensor(0.6931)", True, []]
    assert "gradcli.engine.nn" in r["modules"]


def test_plain_grad_and_run_load_no_rich_nn_or_hashlib(tmp_path):
    """The start-up test of issue 21: a plain `gradcli grad` loads no Rich (its plain table is drawn by
    render/table.py), no torch.nn (F is lazy), no hashlib (OpenSSL's start), no subprocess, no C extension
    (gradcli/native.py: loaded at a script's first random draw); a plain
    run of a script that uses no nn loads none of them either. The parser's table cache is a folder of
    the test's own, warmed by a first run (a shared ~/.cache may hold another checkout's tables)."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")

    def loaded(*args):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradcli", *args], capture_output=True,
                              text=True, cwd=ROOT, timeout=120, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    loaded("run", "samples/seed00_linear_forward.grad")  # warms the table cache
    unwanted = ("rich", "typer", "click", "lark", "hashlib", "_hashlib", "subprocess", "locale", "gradcli.engine.nn",
                "gradcli.engine.optim", "prompt_toolkit", "pygments", "gradcli.native")
    from gradcli.engine.op_names import FAMILIES  # the op families that load on first use: these use none
    unwanted += tuple(f"gradcli.engine.ops.{family}" for family in FAMILIES)
    for args in (["grad", "w*x + b", "w=4", "x=3", "b=5"], ["run", "samples/seed00_linear_forward.grad"]):
        mods = loaded(*args)
        assert "gradcli.engine.api" in mods
        bad = {m for m in mods if any(m == u or m.startswith(u + ".") for u in unwanted)}
        assert not bad, (args, sorted(bad))


FAMILY_PROBE = """
import json, os, sys
from pathlib import Path
from gradcli.engine import op_names
from gradcli.lang.runner import RunOptions, Session


def nn_alone():
    from gradcli.engine import api
    api.nn


out = {}
jobs = [(path.name, lambda path=path: Session(RunOptions(), write=lambda *a: None).run(path.read_text(), str(path)))
        for path in sorted(Path("samples").glob("seed*.grad"))]
for name, job in [("<torch.nn>", nn_alone), *jobs]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # each one in a child of its own: a family, once loaded, stays
        os.close(r)
        job()
        loaded = sorted(f for f in op_names.FAMILIES if "gradcli.engine.ops." + f in sys.modules)
        os.write(w, json.dumps([loaded, "gradcli.engine.nn" in sys.modules]).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        out[name] = json.loads(f.read() or "null")
    os.waitpid(pid, 0)
print(json.dumps(out))
"""


def test_a_seed_sample_loads_only_the_op_families_it_names():
    """The breadth op families load on first use (engine/op_names.py, issue 21): a run of each seed
    sample loads only the families that bind a name the script spells (a Tensor method, torch.X,
    torch.linalg.X or torch.special.X; most seeds: none), and those torch.nn imports when it uses nn."""
    from gradcli.engine import op_names
    tables = (op_names.TENSOR, op_names.TORCH, op_names.LINALG, op_names.SPECIAL)
    doc = fresh(FAMILY_PROBE)["doc"]
    nn_families = set(doc.pop("<torch.nn>")[0])
    assert len(doc) >= 10 and None not in doc.values()
    plain = 0
    for name, (loaded, nn) in doc.items():
        words = set(re.findall(r"[A-Za-z_]\w*", (ROOT / "samples" / name).read_text()))
        named = {t[w] for t in tables for w in words if w in t} | (nn_families if nn else set())
        assert set(loaded) <= named, (name, sorted(set(loaded) - named))
        plain += not loaded
    assert plain >= 5  # (seed00_*: tensors, arithmetic, backward)


def test_the_record_inits_are_compiled_with_the_package():
    """gradcli/record_inits.py holds the __init__ of every record and syntax-tree class, as
    records.init_source writes it (tools/gen_record_inits.py): current, made from every module that
    defines such classes, and what the seed samples' runs take (they compile none)."""
    tool = ROOT / "tools" / "gen_record_inits.py"
    proc = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert proc.returncode == 0, "gradcli/record_inits.py is stale: run tools/gen_record_inits.py\n" + proc.stderr
    listed = re.search(r"MODULES = \((.*?)\)\n", tool.read_text(), re.S).group(1)
    for path in (ROOT / "gradcli").rglob("*.py"):
        text = path.read_text()
        syntax_tree = path.parent.name == "lang" and re.search(r"^class \w+\((A\.)?(Node|Expr|Stmt)\b", text, re.M)
        if "@record" in text or syntax_tree:
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            assert f'"{name}"' in listed, f"{name} defines record classes: add it to gen_record_inits.MODULES"
    r = fresh("""
from pathlib import Path
from gradcli import records
compiled = []
records.compile = lambda source, name, mode: compiled.append(name) or compile(source, name, mode)
from gradcli.lang.runner import RunOptions, Session
for path in sorted(Path("samples").glob("seed*.grad")):
    Session(RunOptions(), write=lambda *a: None).run(path.read_text(), str(path))
print(json.dumps(compiled))
""")
    assert r["doc"] == []


def test_the_op_family_table_is_current():
    """engine/op_names.py (which family binds each name loaded on first use) is what
    tools/gen_op_names.py writes from the families' declarations now; run it after adding an op."""
    tool = ROOT / "tools" / "gen_op_names.py"
    proc = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert proc.returncode == 0, "engine/op_names.py is stale: run tools/gen_op_names.py\n" + proc.stderr[-2000:]


def test_ast_node_inits_are_the_dataclass_ones():
    """lang/ast.py compiles each node class's __init__ at its first use instead of dataclass's
    machinery at import (start-up time): the same parameters, kinds and defaults as
    dataclass(slots=True) made from the same declarations, a fresh list per default factory,
    spans keyword-only and out of ==."""
    import dataclasses
    import inspect

    from gradcli.lang import ast
    from gradcli.records import REQUIRED

    classes, todo = [], [ast.Node]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if getattr(ast, cls.__name__, None) is cls:  # (not a test's subclass)
            classes.append(cls)
    assert len(classes) > 50
    for cls in classes:
        fields = []
        for name, default, factory, kw_only in cls._specs:
            extra = {"default_factory": factory} if factory else {} if default is REQUIRED else {"default": default}
            fields.append((name, object, dataclasses.field(kw_only=kw_only, **extra)))
        reference = dataclasses.make_dataclass(cls.__name__, fields)
        required = [None] * sum(1 for p in inspect.signature(reference).parameters.values()
                                if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD)
        node = cls(*required)  # compiles the class's __init__
        ours, theirs = inspect.signature(cls.__init__), inspect.signature(reference.__init__)
        assert [(p.name, p.kind, p.default is p.empty) for p in ours.parameters.values()] == \
            [(p.name, p.kind, p.default is p.empty) for p in theirs.parameters.values()], cls
        inherited = {n for n, *_ in getattr(cls.__bases__[0], "_specs", ())}
        assert cls.__slots__ == tuple(n for n, *_ in cls._specs if n not in inherited), cls
        for name, default, factory, _ in cls._specs:
            if factory is not None:
                assert getattr(node, name) == factory() and getattr(node, name) is not getattr(cls(*required), name)
            elif default is not REQUIRED:
                assert getattr(node, name) == default
        with pytest.raises(AttributeError):
            node.not_a_field = 1
        assert node == cls(*required, line=7, end_column=3) and cls(*required, line=7).line == 7
    with pytest.raises(TypeError, match="positional"):
        ast.Name("x", 1)


GC_PROBE = """
import gc, sys
from gradcli.cli import calc, entry
from gradcli.lang import runner
run, calculate = runner.Session.run, calc.calculate
# what the collector's state is when the script (the expression) runs, in the script's own output
runner.Session.run = lambda self, source, *a, **k: run(self, "print(%r)\\n" % gc.isenabled() + source, *a, **k)
calc.calculate = lambda expr, *a, **k: calculate("%s + %d" % (expr, 1000 * gc.isenabled()), *a, **k)
sys.argv[0] = "gradcli"
try:
    entry.main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("after", gc.isenabled())
"""
GC_IMPORT = "import gc, gradcli.cli.entry, gradcli.cli.runcmd; print(gc.isenabled())"


@pytest.mark.parametrize("in_process", [False, True])
def test_the_collector_paused_at_start_up_runs_under_scripts_and_calculations(in_process):
    """entry.py pauses the garbage collector while gradcli imports (start-up time); a script and the
    calculator's expression run with it on again, in the run's child and in process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("GRADCLI_IN_PROCESS", None)
    if in_process:
        env["GRADCLI_IN_PROCESS"] = "1"

    def probe(*args):
        proc = subprocess.run([sys.executable, "-c", GC_PROBE, *args], capture_output=True, text=True, cwd=ROOT,
                              env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout
    assert probe("run", "-e", "x = 1") == "True\nafter True\n"
    assert probe("grad", "x * 2", "x=1").startswith("x * 2 + 1000 = tensor(1002.)\n")
    assert probe("--version").endswith("after True\n")
    assert probe("run", "-e", "x = 1/0") == "True\nafter True\n"  # (an error ends the command)
    imported = subprocess.run([sys.executable, "-c", GC_IMPORT], capture_output=True, text=True, cwd=ROOT, env=env)
    assert imported.stdout == "True\n", imported.stderr  # importing the command line pauses nothing


def test_plain_commands_end_without_finalisation_yet_flush_everything(tmp_path):
    """A plain run or grad ends with os._exit once its output is flushed (entry._exit_at_once; the
    interpreter's teardown cost start-up time): every line reaches a pipe and a file, stderr too,
    and the exit code is the command's."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}

    def gradcli(*args, **kwargs):
        streams = kwargs or {"capture_output": True}
        return subprocess.run([sys.executable, "-m", "gradcli", *args], text=True, cwd=ROOT, env=env, timeout=120,
                              **streams)
    many = gradcli("run", "-e", "for i in range(200000): print(i)")
    assert many.returncode == 0 and many.stdout == "".join(f"{i}\n" for i in range(200000))
    failed = gradcli("run", "-e", "print('before')\nx = 1/0")
    assert failed.returncode == 1 and failed.stdout == "before\n" and "ZeroDivisionError" in failed.stderr
    doc = gradcli("run", "--json", "-e", "print(2)")
    assert doc.returncode == 0 and json.loads(doc.stdout)["outputs"][0]["text"] == "2\n"
    assert gradcli("run", "missing.grad").returncode == 2
    calc = gradcli("grad", "x*2", "x=1")
    assert calc.returncode == 0 and calc.stdout.endswith("┘\n")
    with open(tmp_path / "out.txt", "w") as fh:
        assert gradcli("run", "-e", "for i in range(50000): print(i)", stdout=fh, stderr=subprocess.DEVNULL).returncode == 0
    assert (tmp_path / "out.txt").read_text().count("\n") == 50000


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize("args", [["repl"], []])
def test_repl_on_a_terminal_starts_without_typer_or_rich(args, tmp_path):
    """`gradcli repl` and `gradcli` alone on a terminal start the REPL directly (entry.plain_repl):
    until the first prompt no Typer, Click or Rich is imported; the session then works."""
    import select
    import signal

    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm", XDG_STATE_HOME=str(tmp_path))  # (the history file goes there)
    with open(tmp_path / "imports.txt", "w") as err:
        proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "gradcli", *args], stdin=slave,
                                stdout=slave, stderr=err, cwd=ROOT, env=env, start_new_session=True)
    os.close(slave)

    def read_until(marker, seen=b""):
        while marker not in seen:
            ready, _, _ = select.select([master], [], [], 60)
            assert ready, seen[-300:]
            chunk = os.read(master, 1 << 16)
            assert chunk, seen[-300:]
            if b"\x1b[6n" in chunk:
                os.write(master, b"\x1b[1;1R")  # the cursor position a terminal would answer
            seen += chunk
        return seen
    try:
        shown = read_until(b">>>")
        loaded = {line.rsplit("|", 1)[-1].strip() for line in (tmp_path / "imports.txt").read_text().splitlines()
                  if line.startswith("import time:")}
        assert {"prompt_toolkit", "gradcli.repl.terminal"} <= loaded, shown
        assert not {m for m in loaded if m.split(".")[0] in ("typer", "click", "rich")}, sorted(loaded)
        os.write(master, b"6 * 7\r")
        read_until(b"42")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)


def test_records_are_the_dataclasses_they_replace():
    """gradcli/records.py's @record (the run's options, outputs and results, the command's flags):
    the __init__, ==, repr and hashability that @dataclass gives the same declaration."""
    import dataclasses

    from gradcli.cli.calc import CalcResult
    from gradcli.cli.common import Flags
    from gradcli.cli.runcmd import Outcome, Source
    from gradcli.lang.runner import Output, RunOptions, RunResult, Warning
    from gradcli.records import REQUIRED

    for cls in (Flags, CalcResult, Outcome, Source, Output, RunOptions, RunResult, Warning):
        body = {"__annotations__": dict(getattr(cls, "__annotations__", {}))}
        for name, default, factory, kw_only in cls._specs:
            if factory is not None:
                body[name] = dataclasses.field(default_factory=factory)
            elif default is not REQUIRED:
                body[name] = default
        reference = dataclasses.dataclass(type(cls.__name__, (), body))
        required = {f.name: object() for f in dataclasses.fields(reference)
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
        ours, theirs = cls(*required.values()), reference(*required.values())
        assert repr(ours) == repr(theirs), cls
        assert ours == cls(**required) and not (ours != cls(**required)), cls
        assert cls.__hash__ is None and ours != theirs, cls
        for f in dataclasses.fields(reference):
            assert getattr(ours, f.name) == getattr(theirs, f.name), (cls, f.name)
            if f.default_factory is not dataclasses.MISSING:
                assert getattr(ours, f.name) is not getattr(cls(**required), f.name)  # a fresh one each
        changed = cls(**{**required, cls._fields[-1]: "changed"})
        assert changed != ours and getattr(changed, cls._fields[-1]) == "changed"
    with pytest.raises(TypeError, match="positional"):
        Flags("cpu", "float32", None, False, False, False, 1, 1, None, False, False, False, False, None, False, False,
              False, "one too many")


def test_repl_highlighting_loads_pygments_at_the_first_text():
    """The REPL's lexer (repl/terminal.HighlightLexer) colours as PygmentsLexer(GradScriptLexer) does,
    and imports Pygments only when a line has text (the first prompt's line is empty)."""
    r = fresh("""
import sys
from prompt_toolkit.document import Document
from gradcli.repl.terminal import HighlightLexer
lexer = HighlightLexer()
empty = lexer.lex_document(Document(""))(0)
before = "pygments.lexer" in sys.modules
text = "y = torch.sin(x) ** 2  # grad_fn=<PowBackward0>\\nprint(y, 'a')"
ours = [lexer.lex_document(Document(text))(i) for i in range(2)]
from prompt_toolkit.lexers import PygmentsLexer
from gradcli.lang.lexer import GradScriptLexer
theirs = [PygmentsLexer(GradScriptLexer).lex_document(Document(text))(i) for i in range(2)]
print(json.dumps([empty, before, ours == theirs, len(ours[0]) > 5]))
""")
    assert r["doc"] == [[], False, True, True]


def test_frozen_records_are_the_frozen_dataclasses_they_replace():
    """@record(frozen=True) (the op registry's OpSpec and Sample): immutable with dataclass's error,
    hashed and compared by their fields, the same repr and defaults as @dataclass(frozen=True)."""
    import dataclasses

    from gradcli.engine.ops.registry import OpSpec, Sample
    from gradcli.records import REQUIRED

    for cls, args in ((OpSpec, ("relu", len)), (Sample, ())):
        body = {"__annotations__": dict(cls.__annotations__)}
        for name, default, factory, _ in cls._specs:
            if factory is not None:
                body[name] = dataclasses.field(default_factory=factory)
            elif default is not REQUIRED:
                body[name] = default
        reference = dataclasses.dataclass(frozen=True)(type(cls.__name__, (), body))
        ours, theirs = cls(*args), reference(*args)
        assert repr(ours) == repr(theirs) and ours == cls(*args) and ours != cls(*args, **{cls._fields[-1]: 7})
        if cls is OpSpec:
            assert hash(ours) == hash(cls(*args)) == hash(theirs)
        for name in (cls._fields[0], "other"):
            with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field"):
                setattr(ours, name, 1)
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field"):
            delattr(ours, cls._fields[0])


FORK_PROBE = """
import sys
from gradcli.cli import entry, isolate
run = isolate.run
def probe(*a, **k):  # what the command has imported when it forks a run's child
    heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "lark", "pyseccomp")
                   or m.startswith(("gradcli.engine", "gradcli.lang.runner", "gradcli.lang.parser")))
    sys.__stderr__.write("fork: %d %s\\n" % (len(heavy), ",".join(heavy[:5])))
    return run(*a, **k)
isolate.run = probe
sys.argv[0] = "gradcli"
try:
    entry.main(sys.argv[1:])
except SystemExit as exc:
    sys.stdout.flush()
    sys.__stderr__.write("exit %s\\n" % exc.code)
"""


def test_one_input_forks_before_the_engine_is_imported():
    """`gradcli run FILE` and `gradcli grad`: the command forks its run's child before it imports NumPy, the engine
    and the language (the child imports them: fewer of the parent's pages copied); with several
    inputs they are imported once, before the first fork, and shared by the children. The output
    is the same either way."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("GRADCLI_IN_PROCESS", None)

    def probe(*args):
        proc = subprocess.run([sys.executable, "-c", FORK_PROBE, *args], capture_output=True, text=True, cwd=ROOT,
                              env=env, timeout=120)
        forks = [line.split()[1] for line in proc.stderr.splitlines() if line.startswith("fork: ")]
        assert proc.stderr.splitlines()[-1] == "exit 0", proc.stderr[-3000:]
        return forks, proc.stdout
    sample = "samples/seed00_linear_backward.grad"
    forks, one = probe("run", sample)
    assert forks == ["0"] and one == (ROOT / "samples" / "seed00_linear_backward.out").read_text()
    forks, two = probe("run", sample, sample)
    assert len(forks) == 2 and all(int(n) > 10 for n in forks) and two == one + one
    forks, calc = probe("grad", "w*x + b", "w=4", "x=3", "b=5")  # the calculator's child likewise
    assert forks == ["0"] and calc.startswith("w*x + b = tensor(17.)\n")


BLAS_PROBE = """
import os, sys
from gradcli.cli import entry
sys.argv[0] = "gradcli"
try:
    entry.main(["--version"])
except SystemExit:
    pass
sys.stdout.flush()
print("timeout", os.environ.get("OPENBLAS_THREAD_TIMEOUT"), "numpy" in sys.modules)
"""


@pytest.mark.parametrize("given", [None, "28"])
def test_a_command_shortens_openblas_idle_spin_before_numpy_loads(given):
    """entry.main sets OPENBLAS_THREAD_TIMEOUT (an idle BLAS worker sleeps after ~2**22 cycles instead
    of spinning ~0.1 s, CPU time a short command would burn) before anything imports NumPy; a value
    the environment gives stays."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("OPENBLAS_THREAD_TIMEOUT", None)
    if given is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    proc = subprocess.run([sys.executable, "-c", BLAS_PROBE], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    from gradcli.cli.entry import BLAS_THREAD_TIMEOUT
    assert proc.stdout.splitlines()[-1] == f"timeout {given or BLAS_THREAD_TIMEOUT} False"
    assert 4 <= int(BLAS_THREAD_TIMEOUT) < 28  # OpenBLAS's range; below its default of 28
