"""The chain-rule walkthrough (run --explain, the REPL's :explain), the finite-difference check of
every backward pass (run --check, with a test-only op whose backward is deliberately wrong), and
anomaly mode (--detect-anomaly, torch.autograd.detect_anomaly / set_detect_anomaly)."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from gradcli.engine import autograd, autograd_modes
from gradcli.graph import explain as EX
from gradcli.lang import runner
from gradcli.render import jsonout

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
CHAIN = SAMPLES / "seed00_two_layer_backward.grad"

BROADCAST = """import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
b = torch.tensor(2., requires_grad=True)
y = (x * b).sum()
y.backward()
W = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
z = (W + x).mean()
z.backward()
print(x.grad, b.grad)
"""

NAN_SCRIPT = """import torch
x = torch.tensor([4., -1.], requires_grad=True)
y = torch.sqrt(x)
s = y.sum()
s.backward()
print(x.grad)
"""


OVERWRITES = """import torch
w = torch.tensor([1., 2.], requires_grad=True)
v = torch.tensor(5., requires_grad=True)
y = w * 3
y.zero_()
u = w * 2
u.fill_(v)
s = w * 1
s.copy_(w * 4)
z = (y + u + s).sum()
z.backward()
"""


def run(source, filename="<test>", **options):
    records = []
    session = runner.Session(runner.RunOptions(**options))
    session.on_pass = lambda kind, rec: records.append((kind, rec))
    result = session.run(source, filename)
    return result, records


def chain_source():
    return CHAIN.read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def engine_left_clean():
    yield
    assert autograd.backward_observer[0] is None and autograd.node_observer[0] is None
    assert not autograd_modes.anomaly_mode.enabled


# ----------------------------------------------------------------------------- the walkthrough
def test_chain_example_numbers():
    result, records = run(chain_source(), str(CHAIN), explain=True)
    assert result.ok and len(result.explain) == 1
    rec = result.explain[0]
    assert rec.kind == "backward" and rec.line == 24 and rec.roots[0]["name"] == "L"
    leaves = {lf["name"]: lf["text"] for lf in rec.leaves}
    assert leaves["x1"].startswith("dL/dx1 = -1 * w2 * w1 = -30")
    assert leaves["w1"].startswith("dL/dw1 = -1 * w2 * x1 = -12")
    assert leaves["w2"].startswith("dL/dw2 = -1 * x2 = -10")
    # the engine's order: L's node, y's node, w2's leaf, x2's node, then the leaves x1 and w1 (any order)
    order = [s.leaf or s.node for s in rec.steps]
    assert order[:4] == ["SubBackward0", "MulBackward0", "w2", "MulBackward0"] and set(order[4:]) == {"x1", "w1"}
    x2 = rec.steps[3]
    assert x2.line == 11 and x2.source == "x2 = x1 * w1" and x2.output == "x2"
    locals_ = [r["local"] for r in x2.rows]
    assert "d(x2)/d(x1) = w1 = 5" in locals_ and "d(x2)/d(w1) = x1 = 2" in locals_
    assert x2.grad_in_text.startswith("dL/dx2 = -1 * w2 = -6")
    sub = rec.steps[0]
    assert sub.rows[0]["to"] is None and "Y needs no gradient" in sub.rows[0]["text"]
    assert sub.rows[1]["local"] == "d(L)/d(y) = -1"
    x1 = next(s for s in rec.steps if s.leaf == "x1")
    assert x1.grad_before is None and np.array_equal(x1.grad_after, np.full((2, 2), -30.0))
    assert [k for k, _ in records] == ["explain"]


def test_chain_example_rendered_on_stderr_stdout_unchanged(capfd, monkeypatch):
    from gradcli.cli import app as app_module

    monkeypatch.setattr(app_module, "_default_sigpipe", lambda: None)
    monkeypatch.setenv("COLUMNS", "160")
    with pytest.raises(SystemExit) as exc:
        app_module.main(["run", str(CHAIN), "--explain", "--no-color"])
    assert exc.value.code == 0
    out, err = capfd.readouterr()
    assert out == CHAIN.with_suffix(".out").read_text(encoding="utf-8")
    assert "chain rule, backward pass 1 of L at line 24" in err
    for text in ("dL/dx1 = -1 * w2 * w1 = -30", "dL/dw1 = -1 * w2 * x1 = -12", "dL/dw2 = -1 * x2 = -10",
                 "d(x2)/d(x1) = w1 = 5", "line 11: x2 = x1 * w1"):
        assert text in err, text


def test_broadcasting_example():
    result, _ = run(BROADCAST, explain=True)
    assert result.ok and len(result.explain) == 2
    first, second = result.explain
    leaves = {lf["name"]: lf["text"] for lf in first.leaves}
    assert leaves["x"] == "dy/dx = b = 2 (all 3 elements)"
    assert leaves["b"] == "dy/db = sum(x) = 6"
    mul = next(s for s in first.steps if s.node == "MulBackward0")
    rows = {r["name"]: r for r in mul.rows}
    assert rows["b"]["note"] == "summed over the broadcast dimensions: (3,) -> ()"
    assert rows["b"]["local"] == "d(x * b)/d(b) = x = [1, 2, 3]"
    leaves = {lf["name"]: lf for lf in second.leaves}
    assert leaves["W"]["text"] == "dz/dW = 1/6 = 0.1667 (all 6 elements)"
    assert leaves["x"]["text"] == "dz/dx = sum(1/6) = 0.3333 (all 3 elements)"
    assert np.allclose(leaves["x"]["grad_after"], 2 + 1 / 3)          # accumulated on the first pass's 2
    acc = next(s for s in second.steps if s.leaf == "x")
    assert np.array_equal(acc.grad_before, [2, 2, 2])


def test_in_place_overwrites_have_words():
    result, _ = run(OVERWRITES, explain=True)
    assert result.ok and len(result.explain) == 1
    locals_ = {s.node: [r["local"] for r in s.rows] for s in result.explain[0].steps if s.node}
    assert locals_["ZeroBackward0"] == ["d(y)/d(w * 3) = 0 (zero_ overwrote every element)"]
    assert locals_["FillBackward3"] == ["d(u)/d(w * 2) = 0 (fill_ overwrote every element)",
                                        "d(u)/d(v) = 1 for every element it wrote (fill_), summed to its shape"]
    assert locals_["torch::autograd::CopyBackwards"][0] == "d(s)/d(w * 1) = 0 (copy_ overwrote every element)"
    leaves = {lf["name"]: lf["text"] for lf in result.explain[0].leaves}
    assert leaves["v"] == "dz/dv = 2"


def test_big_tensors_are_summarised_and_unknown_ops_get_the_generic_line(monkeypatch):
    from gradcli.engine.ops.shape_extra import RollBackward0
    monkeypatch.delattr(RollBackward0, "explain")  # a node without words
    src = ("import torch\ntorch.manual_seed(0)\nx = torch.randn(50, 4, requires_grad=True)\n"
           "y = torch.roll(torch.cumsum(x, 0), 1, 0).sum()\ny.backward()\n")
    result, _ = run(src, explain=True)
    assert result.ok
    rec = result.explain[0]
    roll = next(s for s in rec.steps if s.node == "RollBackward0")
    assert roll.rows[0]["local"].startswith("d(")
    assert "local Jacobian-vector product of RollBackward0" in roll.rows[0]["local"]
    leaf = rec.leaves[0]
    assert re.match(r"dy/dx = \(50, 4\): mean [-\d.]+, min \d+, max \d+$", leaf["text"]), leaf["text"]


def test_autograd_grad_is_explained_without_touching_grad():
    src = ("import torch\nx = torch.tensor(2., requires_grad=True)\n"
           "g, = torch.autograd.grad(torch.sin(x) * x, x)\n")
    result, _ = run(src, explain=True)
    rec = result.explain[0]
    assert rec.kind == "autograd.grad"
    acc = rec.steps[-1]
    assert acc.leaf == "x" and not acc.accumulated
    assert rec.leaves[0]["text"] == "dL/dx = sin(x) + x * cos(x) = 0.077"


def test_json_explain_and_checks_validate(capfd, monkeypatch):
    jsonschema = pytest.importorskip("jsonschema")
    from gradcli.cli import app as app_module

    monkeypatch.setattr(app_module, "_default_sigpipe", lambda: None)
    with pytest.raises(SystemExit) as exc:
        app_module.main(["run", str(CHAIN), "--json", "--explain", "--check"])
    assert exc.value.code == 0
    out, err = capfd.readouterr()
    assert err == ""
    doc = json.loads(out)
    schema = jsonout.schema("gradcli/1")
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    assert not errors, [e.message for e in errors[:3]]
    texts = [lf["text"] for lf in doc["explain"][0]["leaves"]]
    assert "dL/dx1 = -1 * w2 * w1 = -30 (all 4 elements)" in texts
    assert doc["checks"][0]["ok"] and doc["checks"][0]["max_relative_error"] < 1e-3


def test_repl_explain_toggle():
    from gradcli.repl.core import Repl

    out, err = io.StringIO(), io.StringIO()
    repl = Repl(out=out, err=err)
    assert repl.handle("import torch")
    assert repl.handle("x = torch.tensor(3., requires_grad=True)")
    repl.handle(":explain")
    assert "walkthrough on" in out.getvalue() and "no walkthrough yet" not in out.getvalue()
    repl.handle("y = x ** 2")
    repl.handle("y.backward()")
    assert "dy/dx = 2 * x = 6" in err.getvalue()
    repl.handle(":explain off")
    before = err.getvalue()
    repl.handle("z = x * 3")
    repl.handle("z.backward()")
    assert err.getvalue() == before


# ----------------------------------------------------------------------------- --check
def _bad_square_op():
    """A test-only op x*x whose backward forgets the factor 2."""
    from gradcli.engine.function import Function
    from gradcli.engine.ops.elementwise_common import unary

    class BadSquareBackward0(Function):
        __slots__ = ()
        save_inputs = True
        forward = staticmethod(lambda x: x * x)

        def backward(self, g):
            (x,) = self.saved
            return (g * x,)

    def bad_square(x):
        return unary(BadSquareBackward0, x)

    bad_square.__module__ = "gradcli.engine.testing"
    return bad_square


BAD = """import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
h = x * 2
y = bad_square(h)
L = y.sum()
L.backward()
print(x.grad)
"""


def test_check_catches_a_wrong_backward():
    fn = _bad_square_op()
    plain = runner.Session(runner.RunOptions())
    plain.globals["bad_square"] = fn
    result = plain.run(BAD, "bad.grad")
    assert result.ok and result.stdout == "tensor([ 4.,  8., 12.])\n"      # wrong, silently
    checked = runner.Session(runner.RunOptions(check=True))
    checked.globals["bad_square"] = fn
    result = checked.run(BAD, "bad.grad")
    err = result.error
    assert not result.ok and err.type_name == "GradcheckError"
    assert (err.line, err.column) == (4, 1)                             # the line that created the node
    assert "BadSquareBackward0" in err.message and "analytical 2, numerical 4" in err.message
    assert "backward was called at line 6" in err.hint
    assert result.stdout == ""


def test_check_catches_a_wrong_backward_on_a_big_input():
    src = ("import torch\ntorch.manual_seed(0)\nw = torch.randn(10, 20, requires_grad=True)\n"
           "y = bad_square(w + 1)\ny.mean().backward()\n")
    checked = runner.Session(runner.RunOptions(check=True))
    checked.globals["bad_square"] = _bad_square_op()
    result = checked.run(src, "big.grad")
    assert result.error.type_name == "GradcheckError" and result.error.line == 4
    assert "at a random direction" in result.error.message and "its input 0" in result.error.message


def test_end_to_end_check_names_the_leaf(monkeypatch):
    """A pass whose nodes are right but whose leaf gradient is not (as if the engine summed two paths
    wrongly) fails the end-to-end check, which names the leaf."""
    from gradcli.graph import check as CK

    original = CK.Checker.leaf

    def doubled(self, node, grad, accumulate):
        original(self, node, grad * 2 if self._leaf_names().get(id(node.variable)) == "w" else grad, accumulate)

    monkeypatch.setattr(CK.Checker, "leaf", doubled)
    src = ("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\nw = torch.tensor(3., requires_grad=True)\n"
           "L = (x * w).sum()\nL.backward()\n")
    result, _ = run(src, check=True)
    err = result.error
    assert err.type_name == "GradcheckError" and err.message.startswith("the gradient of w from this backward pass")
    assert "accumulation" in err.hint and err.line == 5


def test_check_mismatch_is_exit_1_on_the_command_line(capfd, monkeypatch, tmp_path):
    from gradcli.cli import app as app_module
    from gradcli.engine import api
    from gradcli.lang import namespaces

    monkeypatch.setattr(app_module, "_default_sigpipe", lambda: None)
    monkeypatch.setattr(api, "bad_square", _bad_square_op(), raising=False)
    monkeypatch.setattr(namespaces, "_engine_cache", {})
    script = tmp_path / "bad.grad"
    script.write_text(BAD.replace("bad_square(h)", "torch.bad_square(h)"), encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        app_module.main(["run", str(script), "--check", "--no-color"])
    out, err = capfd.readouterr()
    assert exc.value.code == 1 and out == ""
    assert f"{script}:4:1" in err and "  4 | y = torch.bad_square(h)" in err
    assert "GradcheckError: the gradient that BadSquareBackward0" in err
    with pytest.raises(SystemExit) as exc:
        app_module.main(["run", str(script), "--no-color"])
    assert exc.value.code == 0


def test_check_passes_on_the_samples():
    for path in sorted(SAMPLES.glob("*.grad")):
        source = path.read_text(encoding="utf-8")
        plain = runner.Session(runner.RunOptions()).run(source, str(path))
        result, records = run(source, str(path), check=True)
        assert result.stdout == plain.stdout, path
        assert (result.error is None) == (plain.error is None), (path, result.error)
        for res in result.checks:
            assert res.failure is None and res.max_error < 1e-3, (path, res.line_text())
            assert res.nodes_checked >= 1 and not res.unchecked, (path, res.line_text())
    # the chain example: one line per pass, with the largest relative error
    result, records = run(chain_source(), str(CHAIN), check=True)
    (kind, res), = records
    assert kind == "check" and res.global_checked and res.leaves_checked == 3
    assert re.fullmatch(r"check: backward pass 1 \(line 24: L\.backward\(torch\.ones\(2, 2, dtype=torch\.float\)\)\): "
                        r"3 nodes and 3 leaves agree with central differences in float64, largest relative error "
                        r"\d\.\de-\d\d", res.line_text()), res.line_text()


def test_check_accepts_kinks_and_reports_unreplayable_nodes():
    src = ("import torch\nx = torch.tensor([0., 1., -2.], requires_grad=True)\n"
           "y = (torch.relu(x) + x.abs()).sum()\ny.backward()\n"
           "w = torch.tensor([1., 2.], requires_grad=True)\nv = w * 1\nv[0] = 5.\n(v * v).sum().backward()\n")
    result, _ = run(src, check=True)
    assert result.ok, result.error
    first, second = result.checks
    assert first.failure is None and first.global_checked
    assert second.failure is None and second.unchecked and not second.global_checked
    assert "not checked" in second.line_text()
    # kinks along random directions (100+ elements, exact -1, 0 and 1): inconclusive, not failures
    src = ("import torch\nx = (torch.arange(-50, 51) / 10.).requires_grad_()\n"
           "y = (torch.nn.functional.hardtanh(x) * torch.arange(101.)).sum() + torch.relu(x).sum()\ny.backward()\n")
    result, _ = run(src, check=True)
    assert result.ok, result.error
    assert result.checks[0].kinks >= 1 and "non-differentiable" in result.checks[0].line_text()


# ----------------------------------------------------------------------------- anomaly mode
def _run_nan_script(capfd, monkeypatch, tmp_path, *options):
    """`gradcli run nan.grad OPTIONS` in this process: (script, exit code, stdout, stderr)."""
    from gradcli.cli import app as app_module

    monkeypatch.setattr(app_module, "_default_sigpipe", lambda: None)
    script = tmp_path / "nan.grad"
    script.write_text(NAN_SCRIPT, encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        app_module.main(["run", str(script), *options])
    out, err = capfd.readouterr()
    return script, exc.value.code, out, err


def test_detect_anomaly_flag_points_at_the_line_that_made_the_node(capfd, monkeypatch, tmp_path):
    from gradcli.cli import app as app_module

    script, code, out, err = _run_nan_script(capfd, monkeypatch, tmp_path, "--detect-anomaly", "--no-color")
    assert code == 1 and out == ""
    assert "RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output." in err
    assert f"{script}:3:1" in err and "  3 | y = torch.sqrt(x)" in err and "^^^^^^^^^^^^^^^^^" in err
    with pytest.raises(SystemExit) as exc:
        app_module.main(["run", str(script), "--no-color"])
    out, _ = capfd.readouterr()
    assert exc.value.code == 0 and out == "tensor([0.2500,    nan])\n"


def test_anomaly_mode_from_the_script():
    src = ("import torch\nw = torch.tensor(0., requires_grad=True)\nprint(torch.is_anomaly_enabled())\n"
           "with torch.autograd.set_detect_anomaly(True):\n    q = w / w\n    print(torch.is_anomaly_enabled())\n"
           "print(torch.is_anomaly_enabled())\nwith torch.autograd.detect_anomaly():\n    r = w / w\n"
           "    r.backward()\n")
    result, _ = run(src)
    assert result.stdout == "False\nTrue\nFalse\n"
    err = result.error
    assert err.message == "Function 'DivBackward0' returned nan values in its 1th output."
    assert err.line == 9 and "backward was called at line 10" in err.hint
    assert [w.message for w in result.warnings] == [autograd_modes.ANOMALY_WARNING]
    src2 = ("import torch\ntorch.autograd.set_detect_anomaly(True)\nx = torch.tensor(-1., requires_grad=True)\n"
            "y = x.sqrt()\ny.backward()\n")
    result, _ = run(src2)
    assert result.error.line == 4 and "SqrtBackward0" in result.error.message


def test_explain_shows_the_steps_up_to_an_anomaly():
    result, records = run(NAN_SCRIPT, explain=True, detect_anomaly=True)
    assert result.error is not None and result.error.line == 3
    (kind, rec), = records
    assert rec.error.startswith("RuntimeError: Function 'SqrtBackward0'")
    assert [s.node for s in rec.steps] == ["SumBackward0", "SqrtBackward0"]
    buf = io.StringIO()
    EX.render(rec, buf)
    assert "the pass stopped: RuntimeError" in buf.getvalue()


def test_check_never_reports_agreement_it_did_not_measure(capfd, monkeypatch, tmp_path):
    """sqrt at -1: every difference is NaN, so nothing is compared; the text and the JSON both say
    so (no "agree", no error 0.0e+00) and the run exits 1 with CheckNotRun."""
    result, records = run(NAN_SCRIPT, check=True)
    (res,) = result.checks
    assert res.comparisons == 0 and res.skipped > 0 and res.not_checked
    assert "agree" not in res.line_text() and "could not be checked" in res.line_text()
    assert "not finite" in res.line_text()
    doc = res.to_json()
    assert doc["checked"] is False and doc["comparisons"] == 0 and doc["skipped_comparisons"] == res.skipped
    assert doc["nodes_checked"] == 0 and doc["leaves_checked"] == 0 and not doc["global_checked"]

    _, code, out, err = _run_nan_script(capfd, monkeypatch, tmp_path, "--check", "--no-color")
    assert code == 1 and out == "tensor([0.2500,    nan])\n"
    assert "could not be checked" in err and "agree" not in err and "--check could not check 1 of 1" in err
    _, code, out, err = _run_nan_script(capfd, monkeypatch, tmp_path, "--check", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["exit_code"] == 1 and not doc["ok"]
    assert doc["error"]["type"] == "CheckNotRun" and doc["checks"][0]["checked"] is False
    jsonschema = pytest.importorskip("jsonschema")
    schema = jsonout.schema("gradcli/1")
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(doc))


def test_check_counts_only_measured_nodes_when_some_are_skipped():
    """One node measurable, one whose differences are all NaN: the first counts, the second is
    listed as not checked with the reason, and the pass still counts as checked."""
    src = ("import torch\nx = torch.tensor([4., 9.], requires_grad=True)\nw = torch.tensor([-1.], requires_grad=True)\n"
           "y = (x * 2).sum() + torch.sqrt(w).sum()\ny.backward()\n")
    result, _ = run(src, check=True)
    (res,) = result.checks
    assert res.skipped > 0 and res.measured > 0 and not res.not_checked
    assert any("no finite comparison" in u["why"] for u in res.unchecked), res.unchecked
    assert "skipped" in res.line_text() or "not checked" in res.line_text()


def test_check_replays_the_nn_functional_nodes():
    """Convolution, pooling, unfold, the pads, soft margin and embedding nodes declare their replay: a
    pass through all of them is checked node by node and end to end (none is left unchecked)."""
    path = ROOT / "tests" / "golden" / "scripts" / "nn_functional_check.grad"
    result, _ = run(path.read_text(encoding="utf-8"), str(path), check=True)
    assert result.ok, result.error
    (res,) = result.checks
    assert res.failure is None and not res.unchecked and res.global_checked, res.line_text()
    assert res.nodes_checked >= 40 and res.leaves_checked == 3
