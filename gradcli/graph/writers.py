"""Writers of a :class:`~gradcli.graph.model.Graph`: a Rich tree, Graphviz DOT, Mermaid, JSON,
and SVG/PNG through Graphviz's ``dot`` program.

The DOT picture follows torchviz's ``make_dot`` so that it looks familiar: grey boxes for the
``grad_fn`` nodes, light blue boxes for the leaves that require grad, a green box for the tensor
whose graph it is, orange boxes for saved tensors, arrows in the direction values flow in the
forward pass (from the leaves down to the output). Unlike make_dot it names the leaves with the
script's variables and puts the line that created each node under its name.
"""
from __future__ import annotations

import shutil
import subprocess

from .model import Graph, GNode

GRAPHVIZ_HINT = ("install Graphviz, which provides it (Debian/Ubuntu: sudo apt-get install graphviz; Fedora: sudo "
                 "dnf install graphviz; macOS: brew install graphviz), or use --format dot and render the text "
                 "elsewhere")

LEAF_FILL = "lightblue"
OP_FILL = "lightgrey"
OUT_FILL = "darkolivegreen1"
SAVED_FILL = "orange"


class DotMissing(RuntimeError):
    """Graphviz's dot program is not installed."""


def _shape_dtype(n: GNode) -> str:
    parts = [p for p in (n.shape_text(), n.dtype or "") if p]
    return " ".join(parts)


def _short(text: str | None, limit: int = 48) -> str:
    if not text:
        return ""
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ----------------------------------------------------------------------------- labels
def node_lines(n: GNode, detail: bool = True) -> list:
    """The lines of a node's box: leaf names (or the grad_fn name), shape and dtype, the site."""
    if n.kind == "leaf":
        lines = [n.title(), _shape_dtype(n)]
        if detail:
            lines.append("AccumulateGrad" + (" (.grad set)" if n.has_grad else ""))
        return [x for x in lines if x]
    lines = [n.name]
    if n.variables:
        lines.append(" = ".join(n.variables[:3]) + ("  " + _shape_dtype(n) if _shape_dtype(n) else ""))
    elif _shape_dtype(n):
        lines.append(_shape_dtype(n))
    if detail and n.line is not None:
        lines.append(_short(n.site_text()))
    return lines


# ----------------------------------------------------------------------------- DOT
def _dot_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: Graph) -> str:
    out = [f"digraph {_dot_str('grad_fn graph of ' + graph.var)} {{",
           '  graph [rankdir=TB, ranksep="0.25", nodesep="0.3", fontname="monospace", fontsize="10"];',
           '  node [style=filled, shape=box, align=left, fontsize="10", height="0.2", fontname="monospace", '
           f'fillcolor={OP_FILL}];',
           '  edge [fontname="monospace", fontsize="8"];']
    if graph.root is None:
        out.append(f'  out [label={_dot_str(graph.var + chr(10) + "does not require grad")}, fillcolor=white];')
        out.append("}")
        return "\n".join(out) + "\n"
    root = graph.node(graph.root)
    out_label = f"{graph.var}\n({', '.join(map(str, graph.shape))}{',' if len(graph.shape) == 1 else ''}) " \
                f"{graph.dtype}"
    out.append(f"  out [label={_dot_str(out_label)}, fillcolor={OUT_FILL}];")
    for n in graph.nodes:
        label = "\n".join(node_lines(n))
        if n.kind == "leaf":
            attrs = f"fillcolor={LEAF_FILL}, penwidth=2" if n.requires_grad else "fillcolor=white"
        else:
            attrs = f"fillcolor={OP_FILL}"
        out.append(f"  {n.id} [label={_dot_str(label)}, {attrs}];")
        if n.saved:
            for j, s in enumerate(n.saved):
                sid = f"{n.id}_s{j}"
                desc = [s.label + (" = " + ", ".join(s.variables) if s.variables else "")]
                if s.shape is not None:
                    desc.append(f"({', '.join(map(str, s.shape))}) {s.dtype}")
                if s.value is not None:
                    desc.append(s.value)
                out.append(f"  {sid} [label={_dot_str(chr(10).join(desc))}, fillcolor={SAVED_FILL}];")
                out.append(f"  {sid} -> {n.id} [dir=none, style=dashed];")
    for e in graph.edges:
        target = graph.node(e.target)
        label = f' [label="{e.input}"]' if target.inputs > 1 else ""
        out.append(f"  {e.source} -> {e.target}{label};")
    if root.kind == "leaf":
        out.append(f"  {root.id} -> out [style=dotted];")
    else:
        out.append(f"  {root.id} -> out;")
    if graph.truncated:
        out.append('  truncated [label="... (graph truncated)", shape=plaintext, style=""];')
    out.append("}")
    return "\n".join(out) + "\n"


def dot_program() -> str | None:
    return shutil.which("dot")


def render_dot(dot_text: str, fmt: str) -> bytes:
    """SVG or PNG bytes from DOT text by Graphviz (DotMissing when `dot` is not installed)."""
    exe = dot_program()
    if exe is None:
        raise DotMissing(f"the {fmt} format needs Graphviz's 'dot' program, which is not installed: {GRAPHVIZ_HINT}")
    proc = subprocess.run([exe, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True, timeout=120,
                          check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"dot failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout


# ----------------------------------------------------------------------------- Mermaid
def _mermaid_text(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "#quot;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\n", "<br/>"))


def to_mermaid(graph: Graph) -> str:
    out = ["flowchart TD"]
    if graph.root is None:
        out.append(f'  out["{_mermaid_text(graph.var + chr(10) + "does not require grad")}"]')
        return "\n".join(out) + "\n"
    shape = ", ".join(map(str, graph.shape)) + ("," if len(graph.shape) == 1 else "")
    out.append(f'  out(["{_mermaid_text(f"{graph.var}{chr(10)}({shape}) {graph.dtype}")}"])')
    for n in graph.nodes:
        label = _mermaid_text("\n".join(node_lines(n)))
        if n.kind == "leaf":
            out.append(f'  {n.id}["{label}"]')
        else:
            out.append(f'  {n.id}["{label}"]')
        if n.saved:
            for j, s in enumerate(n.saved):
                desc = s.label + (" = " + ", ".join(s.variables) if s.variables else "")
                if s.shape is not None:
                    desc += f"\n({', '.join(map(str, s.shape))}) {s.dtype}"
                if s.value is not None:
                    desc += "\n" + s.value
                out.append(f'  {n.id}_s{j}[/"{_mermaid_text(desc)}"/]')
                out.append(f"  {n.id}_s{j} -.- {n.id}")
    for e in graph.edges:
        target = graph.node(e.target)
        out.append(f"  {e.source} -->|{e.input}| {e.target}" if target.inputs > 1 else f"  {e.source} --> {e.target}")
    out.append(f"  {graph.root} --> out")
    out.append("  classDef op fill:#d3d3d3,stroke:#555,color:#000")
    out.append("  classDef leaf fill:#add8e6,stroke:#000,stroke-width:2px,color:#000")
    out.append("  classDef output fill:#caff70,stroke:#555,color:#000")
    out.append("  classDef saved fill:#ffa500,stroke:#555,color:#000")
    ops = [n.id for n in graph.nodes if n.kind != "leaf"]
    leaves = [n.id for n in graph.nodes if n.kind == "leaf"]
    saved = [f"{n.id}_s{j}" for n in graph.nodes for j in range(len(n.saved or ()))]
    if ops:
        out.append(f"  class {','.join(ops)} op")
    if leaves:
        out.append(f"  class {','.join(leaves)} leaf")
    if saved:
        out.append(f"  class {','.join(saved)} saved")
    out.append("  class out output")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- Rich tree
def to_tree(graph: Graph):
    """A Rich Tree: the output at the top, each node's inputs below it (a node reached again is
    shown once more as a reference)."""
    from rich.text import Text  # noqa: PLC0415
    from rich.tree import Tree  # noqa: PLC0415

    head = Text()
    head.append(graph.var, style="bold green")
    head.append(f"  ({', '.join(map(str, graph.shape))}{',' if len(graph.shape) == 1 else ''}) {graph.dtype}",
                style="yellow")
    if graph.root is None:
        head.append("  does not require grad: no backward graph", style="dim")
        return Tree(head)
    tree = Tree(head)

    def label(n: GNode, again: bool) -> Text:
        t = Text()
        if n.kind == "leaf":
            t.append(n.title(), style="bold cyan" if n.variables else "dim")
            if _shape_dtype(n):
                t.append("  " + _shape_dtype(n), style="yellow")
            t.append("  AccumulateGrad", style="green")
            t.append("  leaf, requires_grad" if n.requires_grad else "  leaf", style="bold blue")
            if n.has_grad:
                t.append("  .grad set", style="dim")
            return t
        t.append(n.name, style="magenta")
        if n.variables:
            t.append("  " + " = ".join(n.variables[:3]), style="bold cyan")
        if _shape_dtype(n):
            t.append("  " + _shape_dtype(n), style="yellow")
        if n.line is not None:
            t.append(f"  {n.site_text()}", style="dim")
        if again:
            t.append("  (shown above)", style="dim")
        return t

    by_id = {n.id: n for n in graph.nodes}
    inputs: dict = {}
    for e in graph.edges:
        inputs.setdefault(e.target, []).append(e)
    shown = set()
    stack: list = []   # (parent branch, node id or None for an input that needs no gradient, prefix)

    def add(parent, nid, prefix=""):
        if nid is None:
            parent.add(Text(prefix + "None  (an input that needs no gradient)", style="dim"))
            return
        n = by_id[nid]
        again = nid in shown and bool(inputs.get(nid))
        branch = parent.add(Text(prefix, style="dim") + label(n, again))
        if again:
            return
        shown.add(nid)
        if n.saved:
            for s in n.saved:
                desc = s.label + (" = " + ", ".join(s.variables) if s.variables else "")
                if s.shape is not None:
                    desc += f"  ({', '.join(map(str, s.shape))}) {s.dtype}"
                if s.value is not None:
                    desc += f"  {s.value}"
                branch.add(Text("saved: " + desc, style="dark_orange"))
        elif graph.saved_requested and n.saved_freed:
            branch.add(Text("saved: freed by backward (retain_graph=True keeps them)", style="dim"))
        slots = {e.input: e.source for e in inputs.get(nid, ())}
        children = []
        for k in range(max(n.inputs, max(slots, default=-1) + 1)):
            if k in slots or k in n.no_grad_inputs:
                children.append((branch, slots.get(k), f"[{k}] " if n.inputs > 1 else ""))
        stack.extend(reversed(children))

    # iterative pre-order (deep graphs must not hit Python's recursion limit)
    add(tree, graph.root)
    while stack:
        add(*stack.pop())
    if graph.truncated:
        tree.add(Text("... (graph truncated)", style="dim"))
    return tree


def to_json_doc(graph: Graph, *, filename=None, exit_code=0, error=None, warnings=()) -> dict:
    from ..render.jsonout import SCHEMA_VERSION  # noqa: PLC0415

    doc = {"schema": SCHEMA_VERSION, "command": "graph", "file": filename, "ok": exit_code == 0,
           "exit_code": exit_code, "graph": graph.to_json() if graph is not None else None, "error": error,
           "warnings": list(warnings)}
    return doc
