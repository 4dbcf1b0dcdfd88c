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
    ["run", "--seed=-3", "a.grad"],
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
    ["run", "--seed", "x"], ["run", "--seed", "+3"], ["run", "--seed"], ["run", "-e"], ["run", "-eprint(1)"],
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
