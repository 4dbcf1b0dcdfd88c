"""The start-up path (gradcli/cli/entry.py): `gradcli run` command lines with plain options are
read without Typer, and they must mean exactly what Typer reads from them; every other command
line goes to Typer."""
from __future__ import annotations

import pytest

from gradcli.cli import entry

PLAIN = [
    ["run", "a.grad"],
    ["run", "a.grad", "b.grad", "--summary"],
    ["run", "-e", "x = 1"],
    ["run", "--expr=print(1)", "a.grad"],
    ["run", "--expr="],
    ["run", "-e", "-x"],
    ["run", "-", "--json"],
    ["run", ""],
    ["run"],
    ["run", "--seed", "3", "a.grad"],
    ["run", "--seed=+3", "a.grad"],
    ["run", "--seed", "1", "--seed", "2", "a.grad"],
    ["run", "--device", "cpu", "--dtype", "float64", "a.grad"],
    ["run", "--device=cuda", "--dtype=float32", "a.grad"],
    ["run", "--max-elements", "1e6", "--max-steps", "1_000", "a.grad"],
    ["run", "--max-elements=5", "a.grad"],
    ["run", "--timeout", "2.5", "a.grad"],
    ["run", "--timeout=0.001", "a.grad"],
    ["run", "a.grad", "--no-color", "--debug", "--explain", "--check", "--detect-anomaly", "--json"],
]

TO_TYPER = [
    [], ["--version"], ["-h"], ["grad", "x", "x=1"], ["graph", "a.grad", "--var", "y"], ["repl"],
    ["run", "-h"], ["run", "--help"], ["run", "a.grad", "--help"], ["run", "--json=1"], ["run", "--", "a.grad"],
    ["run", "--seed", "x"], ["run", "--seed", "-3"], ["run", "--seed=18446744073709551616"], ["run", "--seed"], ["run", "-e"], ["run", "-eprint(1)"],
    ["run", "-e=1"], ["run", "--device", "CPU"], ["run", "--device", "tpu"], ["run", "--dtype", "half"],
    ["run", "--max-elements", "0"], ["run", "--max-steps", "x"], ["run", "--timeout", "0"],
    ["run", "--timeout", "nan"], ["run", "--timeout", "inf"], ["run", "--timeout", "x"],
    ["run", "--jso", "a.grad"], ["run", "-x"], ["run", "-1"], ["RUN", "a.grad"],
]


def _captured(monkeypatch, call):
    """The (files, expr, Flags) that run_command gets from one command line, and the exit code."""
    import gradcli.cli.runcmd as runcmd

    seen = []

    def fake_run_command(files, expr, flags):
        seen.append((list(files or []), expr, flags))
        return 7

    monkeypatch.setattr(runcmd, "run_command", fake_run_command)
    with pytest.raises(SystemExit) as exc:
        call()
    assert exc.value.code == 7
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize("args", PLAIN, ids=" ".join)
def test_plain_run_reads_what_typer_reads(monkeypatch, args):
    from gradcli.cli import app as app_module

    monkeypatch.setattr(app_module, "_default_sigpipe", lambda: None)
    monkeypatch.setattr(entry, "default_sigpipe", lambda: None)
    assert entry.plain_run(args) is not None
    fast = _captured(monkeypatch, lambda: entry.main(list(args)))
    typer = _captured(monkeypatch, lambda: app_module.main(list(args)))
    assert fast == typer


@pytest.mark.parametrize("args", TO_TYPER, ids=lambda a: " ".join(a) or "(none)")
def test_other_command_lines_go_to_typer(args):
    assert entry.plain_run(args) is None


# --------------------------------------------------------------------------- loaded on first use

def test_nn_stand_ins_match_nn_functional():
    """engine/api.py's stand-ins for the torch.X functions of nn.functional (torch.conv2d, ...)
    cover its TORCH_NAMES (derived from its declarations: `torch=True`, or a "torch.X" one) and are named as the
    functions they stand for; their table, engine/torch_nn_names.py, is what tools/gen_torch_nn_names.py writes."""
    import subprocess
    import sys
    from pathlib import Path

    from gradcli.engine import api
    from gradcli.engine.nn import functional

    tool = Path(__file__).resolve().parent.parent / "tools" / "gen_torch_nn_names.py"
    assert subprocess.run([sys.executable, str(tool), "--check"]).returncode == 0, f"run {tool.name}"
    assert {"conv2d", "dropout", "constant_pad_nd"} <= set(functional.TORCH_NAMES)
    assert functional.TORCH_NAMES["dropout"] is functional.torch_dropout

    assert set(api._NN_TORCH_FUNCTIONS) == set(functional.TORCH_NAMES)
    for name, fn in functional.TORCH_NAMES.items():
        stand_in = getattr(api, name)
        assert (stand_in.__module__, stand_in.__qualname__) == (fn.__module__, fn.__qualname__), name
    assert api.nn.functional.conv2d is functional.conv2d  # loading torch.nn makes the real ones
    assert set(api._NN_FUNCTIONS) == set(functional.TORCH_NAMES)


def test_a_plain_script_loads_no_nn_or_optim():
    import subprocess
    import sys

    code = ("import sys\nfrom gradcli.lang.runner import run_source\n"
            "r = run_source('import torch\\nx = torch.ones(2, requires_grad=True)\\n(x * 2).sum().backward()\\n"
            "print(x.grad)\\n')\nassert r.ok, r.error\nprint(r.stdout, end='')\n"
            "print(sorted(m for m in sys.modules if m.startswith(('gradcli.engine.nn', 'gradcli.engine.optim',"
            " 'gradcli.engine.autograd_functional', 'numpy.random'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "tensor([2., 2.])\n[]\n"


def test_lazy_namespaces_in_scripts():
    from gradcli.lang.runner import run_source

    src = """import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.optim import SGD
from torch.autograd.functional import jacobian
L = torch.nn.Linear
model = nn.Linear(2, 1)
opt = SGD(model.parameters(), lr=0.1)
print(F.relu(torch.tensor([-1., 2.])), torch.conv2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2)))
print(type(model) is nn.Linear, L is nn.Linear, torch.nn is nn)
x = torch.ones(2)
"""
    r = run_source(src)
    assert r.ok, r.error
    assert r.stdout == "tensor([0., 2.]) tensor([[[[4.]]]])\nTrue True True\n"
    assert sorted(r.variables) == ["model", "opt", "x"]  # names bound to torch's own values are left out


def test_no_command_with_a_script_on_stdin(monkeypatch):
    """`cat a.grad | gradcli`: both paths run stdin with the default flags."""
    import io

    from gradcli.cli import app as app_module

    monkeypatch.setattr(app_module, "_default_sigpipe", lambda: None)
    monkeypatch.setattr(entry, "default_sigpipe", lambda: None)
    monkeypatch.setattr("sys.stdin", io.StringIO("print(1)\n"))
    fast = _captured(monkeypatch, lambda: entry.main([]))
    typer = _captured(monkeypatch, lambda: app_module.main([]))
    assert fast == typer == (["-"], None, fast[2])


@pytest.mark.parametrize("command", ["run", "grad"])
def test_the_early_interrupt_document_is_the_run_document(command):
    """entry.py's Ctrl-C handler writes its document without importing anything: it must be what
    render.jsonout makes of an interrupted run."""
    from gradcli.render.jsonout import dumps, run_doc, simple_error  # noqa: PLC0415

    want = dumps(run_doc(command=command, exit_code=130, error=simple_error("KeyboardInterrupt", "interrupted")))
    assert entry.INTERRUPTED_DOC.replace("@COMMAND@", command) == want + "\n"


def test_run_options_are_declared_once():
    """`gradcli run`'s options (cli/options.py) are what the Typer command takes and what the fast
    path reads: one declaration, two readers."""
    import typer.main  # noqa: PLC0415

    from gradcli.cli import app as app_module  # noqa: PLC0415
    from gradcli.cli import options  # noqa: PLC0415

    declared = {name for opt in options.RUN_ALL for name in opt.names}
    command = typer.main.get_command(app_module.app).commands["run"]
    assert {name for p in command.params for name in p.opts if name.startswith("-")} == declared
    assert set(entry._RUN_FLAGS) | set(entry._RUN_VALUES) == declared
    by_name = {p.name: p for p in command.params}
    for opt in options.RUN_ALL:
        assert by_name[opt.field].help == opt.help
