"""The executor (gradcli/cli/executor.py, issue 22 item 3): one source run under options, its outcome
returned as data; `run`, `gradcli test` and the REPL consume it. Pure: it writes nothing to the
process's streams, whatever the script does; its outcome crosses a process wall as it is."""
from __future__ import annotations

import marshal

import pytest

from gradcli.cli import executor
from gradcli.lang.runner import RunOptions, Session
from gradcli.testing import golden

PRINTS = "import torch\nx = torch.ones(2, requires_grad=True)\nprint(x)\n(x * 3).sum().backward()\nprint(x.grad)\n"


def test_held_outputs_and_nothing_written(capfd):
    outcome = executor.execute(PRINTS, RunOptions(seed=0), name="a.grad")
    assert capfd.readouterr() == ("", "")
    assert outcome.kind == "ok" and outcome.exit_code == 0 and outcome.error is None
    assert outcome.outputs == [("tensor([1., 1.], requires_grad=True)\n", 3), ("tensor([3., 3.])\n", 5)]
    assert "x" in outcome.variables and outcome.variables["x"].shape == (2,)
    assert outcome.seconds > 0


def test_streamed_outputs_are_not_held():
    seen = []
    outcome = executor.execute(PRINTS, RunOptions(), write=lambda text, line: seen.append((text, line)))
    assert outcome.outputs == [] and [line for _, line in seen] == [3, 5]


def test_the_error_is_data_and_renders_as_run_shows_it(capfd):
    outcome = executor.execute("print(1)\ny = 1 / 0\n", RunOptions(), name="e.grad")
    assert capfd.readouterr() == ("", "")
    assert outcome.kind == "script" and outcome.exit_code == 1
    assert outcome.error["type"] == "ZeroDivisionError" and outcome.error["line"] == 2
    assert outcome.error["file"] == "e.grad" and outcome.error["column"] == 5
    located = executor.Located.from_json(outcome.error)
    assert (located.type_name, located.line, located.end_column) == ("ZeroDivisionError", 2, 10)
    actual = golden.actual_from_outcome(outcome)
    assert actual.stdout == "1\n" and actual.error == "ZeroDivisionError: division by zero" and actual.error_line == 2


def test_warnings_are_dicts_held_or_streamed():
    src = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.grad)\n"
    held = executor.execute(src, RunOptions())
    assert [w["category"] for w in held.warnings] == ["UserWarning"] and held.warnings[0]["line"] == 4
    sent = []
    streamed = executor.execute(src, RunOptions(), warn=sent.append)
    assert streamed.warnings == [] and sent == held.warnings


def test_outcome_crosses_a_process_wall_as_plain_data():
    outcome = executor.execute("import torch\nx = torch.ones(2)\nprint(x)\nz = x.foo\n", RunOptions(), name="m.grad",
                               tensors=True)
    data = marshal.loads(marshal.dumps(outcome.data()))
    assert "variables" not in data and data["tensors"]["x"]["shape"] == [2]
    again = executor.Executed(**data)
    assert again.kind == "script" and again.error == outcome.error and again.outputs == outcome.outputs


def test_internal_error_raised_out_of_the_run_is_returned(monkeypatch):
    def broken(self, source, filename="<string>"):
        raise ValueError("boom")
    monkeypatch.setattr(Session, "run", broken)
    outcome = executor.execute("print(1)\n", RunOptions(), name="i.grad")
    assert outcome.kind == "internal" and outcome.exit_code == 3 and outcome.raised
    assert outcome.internal_text == "ValueError: boom" and "ValueError: boom" in outcome.traceback
    assert golden.actual_from_outcome(outcome).failure == "internal error: ValueError: boom"
    with pytest.raises(ValueError):
        executor.execute("print(1)\n", RunOptions(), debug=True)


def test_keyboard_interrupt_is_never_swallowed(monkeypatch):
    def interrupted(self, source, filename="<string>"):
        raise KeyboardInterrupt
    monkeypatch.setattr(Session, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        executor.execute("print(1)\n", RunOptions())


def test_a_session_carries_names_across_sources():
    session = Session(RunOptions())
    session.keep_outputs = False
    assert executor.execute("a = 3\n", RunOptions(), session=session).kind == "ok"
    outcome = executor.execute("b = a * 2\n", RunOptions(), session=session)
    assert outcome.kind == "ok" and outcome.variables["b"] == 6


def test_held_output_past_the_limit_stops_the_script():
    outcome = executor.execute("while True:\n    print('x' * 100)\n", RunOptions(timeout=10), hold_limit=1000)
    assert outcome.kind == "script" and outcome.error["type"] == "MemoryError" and outcome.error["line"] == 2
    assert sum(len(t) for t, _ in outcome.outputs) <= 1000


def test_watch_brackets_the_run():
    events = []

    def watch(session):
        events.append(("start", session.rt is not None))
        return lambda: events.append(("stop",))
    executor.execute("print(1)\n", RunOptions(), watch=watch)
    assert events == [("start", True), ("stop",)]
