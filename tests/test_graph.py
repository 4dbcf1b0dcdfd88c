"""`gradcli graph`: the backward graph as data (gradcli.graph.model) and its writers: the Rich tree,
DOT (parsed by Graphviz when its `dot` program is installed), Mermaid, JSON (validated against
gradcli/render/schema.json's gradcli-graph-1), SVG/PNG through Graphviz, and the message when it is missing."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.graph import model, writers
from gradcli.lang import runner
from gradcli.render import jsonout

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
CHAIN = SAMPLES / "seed00_two_layer_backward.grad"
TRAIN = SAMPLES / "train_two_layer_sgd.grad"
HAVE_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz's dot program is not installed")


def run_script(path_or_text, filename=None, **options):
    if isinstance(path_or_text, Path):
        source, filename = path_or_text.read_text(encoding="utf-8"), str(path_or_text)
    else:
        source, filename = path_or_text, filename or "<test>"
    prev = __import__("gradcli.engine.autograd", fromlist=["x"]).set_node_observer(model.record_meta)
    try:
        result = runner.Session(runner.RunOptions(**options)).run(source, filename)
    finally:
        __import__("gradcli.engine.autograd", fromlist=["x"]).set_node_observer(prev)
    assert result.ok, result.error
    return source, result


def gradcli(*args, env=None, timeout=60):
    proc = subprocess.run([sys.executable, "-m", "gradcli", *map(str, args)], capture_output=True, cwd=ROOT,
                          env=env or {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR",)},
                          timeout=timeout)
    return proc


class Proc:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def cli(capfdbinary, monkeypatch):
    """The gradcli command in this process (faster than a subprocess): cli(*args) -> Proc (bytes)."""
    from gradcli.cli import app as app_module

    monkeypatch.setattr(app_module, "_default_sigpipe", lambda: None)

    def call(*args):
        capfdbinary.readouterr()
        try:
            app_module.main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        sys.stdout.flush()
        sys.stderr.flush()
        out, err = capfdbinary.readouterr()
        return Proc(code, out, err)
    return call


@pytest.fixture(scope="module")
def chain_graph():
    source, result = run_script(CHAIN)
    return model.build_graph(result.variables["L"], "L", result.variables, source)


@pytest.fixture(scope="module")
def graph_validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = jsonout.schema("graph")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("name", [None, "gradcli/1", "graph"])
def test_shipped_schemas_are_json_schema_2020_12(name):
    """The schemas' one home is gradcli/render/schema.json (no docs/ copy: tests/test_render checks that)."""
    doc = jsonout.schema(name)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def validate(validator, doc):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


# ----------------------------------------------------------------------------- the model
def test_chain_graph_nodes_edges_names_and_lines(chain_graph):
    g = chain_graph
    ops = {tuple(n.variables): n for n in g.nodes if n.kind == "grad_fn"}
    assert set(ops) == {("L",), ("y",), ("x2",)}
    assert ops[("L",)].name == "SubBackward0" and ops[("L",)].line == 22 and ops[("L",)].source == "L = Y - y"
    assert ops[("y",)].name == "MulBackward0" and ops[("y",)].line == 17
    assert ops[("x2",)].name == "MulBackward0" and ops[("x2",)].source == "x2 = x1 * w1"
    assert ops[("L",)].no_grad_inputs == [0]            # Y does not require grad
    leaves = {n.variables[0]: n for n in g.nodes if n.kind == "leaf"}
    assert set(leaves) == {"x1", "w1", "w2"}
    for leaf in leaves.values():
        assert leaf.name == "AccumulateGrad" and leaf.shape == [2, 2] and leaf.dtype == "float32"
        assert leaf.requires_grad and leaf.has_grad
    for n in g.nodes:
        assert n.shape == [2, 2]
    by_id = {n.id: n for n in g.nodes}
    edges = {(tuple(by_id[e.source].variables), tuple(by_id[e.target].variables), e.input) for e in g.edges}
    assert edges == {(("y",), ("L",), 1), (("x2",), ("y",), 0), (("w2",), ("y",), 1),
                     (("x1",), ("x2",), 0), (("w1",), ("x2",), 1)}
    assert g.root == "n0" and by_id["n0"].is_output


def test_module_parameters_named_and_unnamed_nodes_get_shapes():
    source, result = run_script(TRAIN)
    g = model.build_graph(result.variables["loss"], "loss", result.variables, source)
    names = {v for n in g.nodes if n.kind == "leaf" for v in n.variables}
    assert {"model.fc1.weight", "model.fc1.bias", "model.fc2.weight", "model.fc2.bias"} <= names
    relu = next(n for n in g.nodes if n.name == "ReluBackward0")
    assert relu.shape == [8, 5] and relu.variables == [] and relu.source == "x = F.relu(self.fc1(x))"


def test_leaf_and_constant_and_saved_tensors():
    src = ("import torch\nw = torch.tensor([1., 2.], requires_grad=True)\nc = torch.tensor(3.)\n"
           "y = (w * w).sum()\ny.backward(retain_graph=True)\n")
    source, result = run_script(src)
    v = result.variables
    leaf = model.build_graph(v["w"], "w", v, source)
    assert leaf.root == "n0" and len(leaf.nodes) == 1 and leaf.nodes[0].kind == "leaf"
    const = model.build_graph(v["c"], "c", v, source)
    assert const.root is None and const.nodes == []
    g = model.build_graph(v["y"], "y", v, source, saved=True)
    mul = next(n for n in g.nodes if n.name == "MulBackward0")
    assert [s.variables for s in mul.saved] == [["w"], ["w"]] and not mul.saved_freed
    freed_src = src.replace("retain_graph=True", "")
    source, result = run_script(freed_src)
    g = model.build_graph(result.variables["y"], "y", result.variables, source, saved=True)
    assert next(n for n in g.nodes if n.name == "MulBackward0").saved_freed


def test_shared_node_drawn_once_in_tree():
    src = "import torch\nx = torch.tensor(2., requires_grad=True)\nh = x * 3\nz = h * h + h\n"
    source, result = run_script(src)
    g = model.build_graph(result.variables["z"], "z", result.variables, source)
    assert [n.name for n in g.nodes].count("MulBackward0") == 2     # h = x * 3 and h * h
    text = _plain(writers.to_tree(g))
    assert text.count("shown above") >= 1 and "line 3: h = x * 3" in text


def _plain(renderable) -> str:
    import io

    from gradcli.render.style import rich_console

    buf = io.StringIO()
    rich_console(buf, False, width=200).print(renderable)
    return buf.getvalue()


# ----------------------------------------------------------------------------- writers
def test_tree(chain_graph):
    text = _plain(writers.to_tree(chain_graph))
    lines = text.splitlines()
    assert lines[0].startswith("L  (2, 2) float32")
    assert "SubBackward0  L  (2, 2) float32  line 22: L = Y - y" in text
    assert "[0] None  (an input that needs no gradient)" in text
    assert re.search(r"\[0\] x1  \(2, 2\) float32  AccumulateGrad  leaf, requires_grad", text)


def test_dot_text_shape(chain_graph):
    dot = writers.to_dot(chain_graph)
    assert dot.startswith('digraph "grad_fn graph of L" {') and dot.rstrip().endswith("}")
    assert "fillcolor=lightblue" in dot and "fillcolor=lightgrey" in dot and "fillcolor=darkolivegreen1" in dot
    assert 'n0 [label="SubBackward0\\nL  (2, 2) float32\\nline 22: L = Y - y"' in dot
    ids = set(re.findall(r"^  (n\d+) \[label=", dot, re.M))
    assert len(ids) == len(chain_graph.nodes)
    edges = re.findall(r"^  (n\d+) -> (n\d+|out)", dot, re.M)
    assert len(edges) == len(chain_graph.edges) + 1
    assert all(a in ids and (b in ids or b == "out") for a, b in edges)


@needs_dot
@pytest.mark.parametrize("saved", [False, True])
def test_dot_parsed_by_graphviz(saved):
    src = ("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\nw = torch.tensor(2., requires_grad=True)\n"
           "y = (x * w).exp().sum()  # a \"quoted\" \\ comment {x}\ny.backward(retain_graph=True)\n")
    source, result = run_script(src)
    g = model.build_graph(result.variables["y"], "y", result.variables, source, saved=saved)
    proc = subprocess.run(["dot", "-Tcanon"], input=writers.to_dot(g).encode(), capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"ExpBackward0" in proc.stdout
    svg = writers.render_dot(writers.to_dot(g), "svg")
    assert b"<svg" in svg


def test_mermaid_text_shape(chain_graph):
    text = writers.to_mermaid(chain_graph)
    lines = text.splitlines()
    assert lines[0] == "flowchart TD"
    defined = re.findall(r'^  (n\d+|out)(?:\["|\(\[")', text, re.M)
    assert sorted(defined) == sorted([n.id for n in chain_graph.nodes] + ["out"])
    edges = [ln for ln in lines if "-->" in ln]
    assert len(edges) == len(chain_graph.edges) + 1
    for ln in edges:
        assert re.fullmatch(r"  n\d+ -->(\|\d+\|)? (n\d+|out)", ln), ln
    assert "classDef leaf" in text and re.search(r"^  class (n\d+,?)+ leaf$", text, re.M)
    assert '"' not in "".join(re.findall(r'\["(.*)"\]', text))    # quotes inside labels are escaped


def test_json_document_validates(chain_graph, graph_validator):
    doc = writers.to_json_doc(chain_graph, filename="x.grad")
    doc.update(var="L", outputs=[])
    validate(graph_validator, doc)
    assert json.loads(json.dumps(doc))["graph"]["root"] == "n0"


# ----------------------------------------------------------------------------- the command
def test_cli_formats_and_json(graph_validator, tmp_path):
    proc = gradcli("graph", CHAIN, "--var", "L")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert out.startswith("L  (2, 2) float32") and "MulBackward0  x2" in out
    assert proc.stderr == b""                           # the graph only: the script's output is not replayed
    shown = gradcli("graph", CHAIN, "--var", "L", "--show-output")
    assert shown.stdout == proc.stdout and b"x1 = tensor" in shown.stderr   # unless asked, on stderr
    proc = gradcli("graph", CHAIN, "--var", "L", "--format", "json")
    assert proc.returncode == 0
    doc = json.loads(proc.stdout)
    validate(graph_validator, doc)
    assert doc["ok"] and doc["var"] == "L" and len(doc["graph"]["nodes"]) == 6
    assert doc["outputs"] and doc["outputs"][0]["line"] == 5   # x1.requires_grad_(True) echoes


def test_cli_usage_errors_and_output_file(graph_validator, tmp_path, cli):
    proc = cli("graph", CHAIN, "--var", "nope", "--json")
    assert proc.returncode == 2 and b"no tensor named 'nope'" in proc.stderr
    validate(graph_validator, json.loads(proc.stdout))
    proc = cli("graph", CHAIN, "--var", "Y")
    assert proc.returncode == 0 and b"does not require grad" in proc.stdout + proc.stderr
    proc = cli("graph", TRAIN, "--var", "model", "--json")
    assert proc.returncode == 2 and b"not a tensor" in proc.stderr
    proc = cli("graph", TRAIN, "--var", "model.fc1.weight", "-f", "dot")
    assert proc.returncode == 0 and b"model.fc1.weight" in proc.stdout
    proc = cli("graph", CHAIN, "--var", "L", "-f", "mermaid", "-o", tmp_path / "g.mmd")
    assert proc.returncode == 0 and proc.stdout == b""
    assert (tmp_path / "g.mmd").read_text().startswith("flowchart TD")


def test_cli_script_error_is_exit_1(cli):
    proc = cli("graph", SAMPLES / "seed02_non_scalar_backward_error.grad", "--var", "z", "--json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["error"]["type"] == "RuntimeError" and doc["graph"] is None


@needs_dot
def test_cli_svg_and_png(tmp_path, cli):
    proc = cli("graph", CHAIN, "--var", "L", "-f", "svg")
    assert proc.returncode == 0 and b"<svg" in proc.stdout and b"MulBackward0" in proc.stdout
    proc = cli("graph", CHAIN, "--var", "L", "-f", "png", "-o", tmp_path / "g.png")
    assert proc.returncode == 0
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_svg_without_graphviz_says_how_to_install(tmp_path):
    env = {k: v for k, v in os.environ.items()}
    env["PATH"] = str(tmp_path)                          # no dot on this PATH
    proc = gradcli("graph", CHAIN, "--var", "L", "-f", "svg", env=env)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "Graphviz" in err and "apt-get install graphviz" in err and "Traceback" not in err


def test_docs_graph_svg_is_made_by_the_command():
    svg = ROOT / "docs" / "graph.svg"
    assert svg.exists()
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and "grad_fn graph of L" in text and "x2 = x1 * w1" in text
