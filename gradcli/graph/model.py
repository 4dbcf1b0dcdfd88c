"""The backward graph of a tensor as plain data, read from the engine's nodes.

`build_graph(tensor, name, scope)` walks ``tensor.grad_fn`` through ``next_functions`` as
PyTorch's autograd graph is walked, and returns a :class:`Graph`: one :class:`GNode` per
``grad_fn`` node (its name, the script line that created it from ``node._site``, the shape and
dtype of what it computed) and per ``AccumulateGrad`` leaf (labelled with the script's names that
hold the leaf tensor: top-level variables, module parameters as ``model.fc1.weight``, items of
lists/tuples/dicts as ``params[0]``), and one :class:`GEdge` per input edge, pointing the way
values flow in the forward pass (input -> the node that consumed it), as torchviz draws it.

Reading the graph changes nothing: no ``.grad`` warning, no saved tensor unpacked (their
version check would raise), no node created.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..engine.autograd import site_pair
from ..render.diagnostics import source_lines, visible

MAX_NODES = 2000

# Shapes and dtypes of what each node computed, recorded while a script runs for `gradcli graph`
# (see record_meta): node -> [(shape, dtype name), ...] per output.
node_meta: "weakref.WeakKeyDictionary[Any, list]" = weakref.WeakKeyDictionary()


def record_meta(node, inputs, outputs) -> None:
    """A node observer (engine.autograd.set_node_observer) that keeps output shapes and dtypes."""
    try:
        node_meta[node] = [(tuple(int(s) for s in o._data.shape), o.dtype.name) for o in outputs]
    except Exception:  # noqa: BLE001 - metadata is a nicety; never disturb the run
        pass


@dataclass
class Saved:
    """One item a node saved for its backward: a tensor (shape, dtype, the names that hold it) or a
    plain value (a number, or the shape kept instead of a tensor that was not needed)."""
    label: str
    shape: list | None = None
    dtype: str | None = None
    variables: list = field(default_factory=list)
    value: str | None = None

    def to_json(self) -> dict:
        return {"label": self.label, "shape": self.shape, "dtype": self.dtype, "variables": list(self.variables),
                "value": self.value}


@dataclass
class GNode:
    id: str
    kind: str                      # "grad_fn" or "leaf" (an AccumulateGrad and its tensor)
    name: str                      # MulBackward0, ..., AccumulateGrad
    variables: list = field(default_factory=list)   # script names of the tensor(s) it produced / the leaf
    shape: list | None = None
    dtype: str | None = None
    requires_grad: bool = True
    line: int | None = None
    column: int | None = None
    source: str | None = None      # the text of the line that created it
    inputs: int = 0                # number of inputs (edges), including the ones that need no grad
    no_grad_inputs: list = field(default_factory=list)  # input positions that need no gradient
    saved: list | None = None      # [Saved] with --saved; None when not asked or freed
    saved_freed: bool = False
    has_grad: bool = False         # leaf: .grad is set
    is_output: bool = False

    def title(self) -> str:
        if self.kind == "leaf":
            return ", ".join(self.variables) if self.variables else "(unnamed leaf)"
        return self.name

    def shape_text(self) -> str:
        if self.shape is None:
            return ""
        return "(" + ", ".join(str(s) for s in self.shape) + ("," if len(self.shape) == 1 else "") + ")"

    def site_text(self) -> str:
        if self.line is None:
            return ""
        # the source line as the diagnostics show it: a control character in it is escaped, not sent to the terminal
        return f"line {self.line}: {visible(self.source)}" if self.source else f"line {self.line}"

    def to_json(self) -> dict:
        return {
            "id": self.id, "kind": self.kind, "name": self.name, "variables": list(self.variables),
            "shape": self.shape, "dtype": self.dtype, "requires_grad": self.requires_grad,
            "line": self.line, "column": self.column, "source": self.source,
            "inputs": self.inputs, "no_grad_inputs": list(self.no_grad_inputs),
            "saved": None if self.saved is None else [s.to_json() for s in self.saved],
            "saved_freed": self.saved_freed, "has_grad": self.has_grad, "is_output": self.is_output,
        }


@dataclass
class GEdge:
    source: str      # the input's node (values flow source -> target in the forward pass)
    target: str      # the node that consumed it
    input: int       # which input of target
    output_nr: int   # which output of source

    def to_json(self) -> dict:
        return {"source": self.source, "target": self.target, "input": self.input, "output_nr": self.output_nr}


@dataclass
class Graph:
    var: str
    shape: list
    dtype: str
    root: str | None
    nodes: list
    edges: list
    truncated: bool = False
    saved_requested: bool = False

    def node(self, node_id: str) -> GNode:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def to_json(self) -> dict:
        return {
            "var": self.var, "shape": self.shape, "dtype": self.dtype, "root": self.root,
            "nodes": [n.to_json() for n in self.nodes], "edges": [e.to_json() for e in self.edges],
            "truncated": self.truncated,
        }


# ----------------------------------------------------------------------------- names
def is_tensor(value) -> bool:
    from ..engine.tensor import Tensor  # noqa: PLC0415

    return isinstance(value, Tensor)


def _named_parameters(value):
    method = getattr(type(value), "named_parameters", None)
    if method is None:
        return []
    try:
        return list(value.named_parameters())
    except Exception:  # noqa: BLE001
        return []


def tensor_names(scope: Mapping[str, Any]) -> dict:
    """id(tensor) -> the script's names for it: variables, module parameters (``model.fc1.weight``)
    and items of top-level lists, tuples and dicts (``params[0]``, ``d['w']``)."""
    names: dict = {}

    def add(t, label):
        lst = names.setdefault(id(t), [])
        if label not in lst:
            lst.append(label)

    for name, value in (scope or {}).items():
        if str(name).startswith("_"):
            continue
        if is_tensor(value):
            add(value, name)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value[:1000]):
                if is_tensor(item):
                    add(item, f"{name}[{i}]")
        elif isinstance(value, dict):
            for k, item in list(value.items())[:1000]:
                if is_tensor(item):
                    add(item, f"{name}[{k!r}]")
        else:
            for pname, p in _named_parameters(value):
                if is_tensor(p):
                    add(p, f"{name}.{pname}")
    return names


def node_owners(scope: Mapping[str, Any]) -> dict:
    """id(grad_fn node) -> [(name, tensor)] for the named non-leaf tensors in scope."""
    owners: dict = {}
    for name, value in (scope or {}).items():
        if str(name).startswith("_"):
            continue
        if is_tensor(value) and value.grad_fn is not None:
            owners.setdefault(id(value.grad_fn), []).append((name, value))
    return owners


# ----------------------------------------------------------------------------- sites
def site_of(node) -> tuple:
    """(line, column) where the node was created, or (None, None)."""
    site = getattr(node, "_site", None)
    if isinstance(site, int):
        return site, None
    pair = site_pair(site)
    return pair if pair is not None else (None, None)


def source_line(lines, line) -> str | None:
    """The stripped text of a 1-based source line (with ' ...' when the statement goes on)."""
    if not lines or line is None or not 1 <= line <= len(lines):
        return None
    text = lines[line - 1].strip()
    if text.endswith("\\") or text.count("(") > text.count(")") or text.count("[") > text.count("]"):
        text = text.rstrip("\\").rstrip() + " ..."
    return text


def node_name(node) -> str:
    if is_accumulate(node):
        return "AccumulateGrad"
    try:
        return node.name()
    except Exception:  # noqa: BLE001
        return type(node).__name__


def is_accumulate(node) -> bool:
    from ..engine.autograd import AccumulateGrad  # noqa: PLC0415

    return isinstance(node, AccumulateGrad)


def _shape_dtype_of(node, owners):
    meta = node_meta.get(node)
    if meta:
        shape, dtype = meta[0]
        return list(shape), dtype
    for _, t in owners.get(id(node), ()):
        return [int(s) for s in t._data.shape], t.dtype.name
    out_meta = getattr(node, "_out_meta", None)
    if out_meta:
        shape, dtype, _ = out_meta[0]
        return [int(s) for s in shape], getattr(dtype, "name", str(dtype))
    from ..engine.autograd import SavedValue  # noqa: PLC0415

    for item in getattr(node, "_saved", None) or ():
        if type(item) is SavedValue and item.is_output:
            return [int(s) for s in item.tensor._data.shape], item.tensor.dtype.name
    dt = getattr(node, "_out_dtype", None)
    return None, getattr(dt, "name", None)


def saved_items(node, names) -> tuple:
    """([Saved], freed) for a node's saved values, read without unpacking (no version check)."""
    from ..engine.autograd import SavedValue  # noqa: PLC0415

    saved = getattr(node, "_saved", None)
    if saved is None:
        return [], True
    items = []
    for i, item in enumerate(saved):
        if type(item) is SavedValue:
            t = item.tensor
            label = "result" if item.is_output else f"saved[{i}]"
            items.append(Saved(label, [int(s) for s in t._data.shape], t.dtype.name, list(names.get(id(t), []))))
        elif is_tensor(item):
            items.append(Saved(f"saved[{i}]", [int(s) for s in item._data.shape], item.dtype.name,
                               list(names.get(id(item), []))))
        elif item is None:
            continue
        elif isinstance(item, tuple) and all(isinstance(s, int) for s in item):
            items.append(Saved(f"saved[{i}]", value=f"shape ({', '.join(map(str, item))})"))
        elif isinstance(item, (int, float, bool)):
            items.append(Saved(f"saved[{i}]", value=repr(item)))
    return items, False


# ----------------------------------------------------------------------------- the walk
def build_graph(tensor, name: str, scope: Mapping[str, Any] | None = None, source: str | None = None,
                saved: bool = False, max_nodes: int = MAX_NODES) -> Graph:
    """The backward graph of ``tensor`` (held by ``name``). A leaf that requires grad is a graph of
    one leaf node; a tensor that does not require grad has no graph (``root`` is None)."""
    scope = scope or {}
    names = tensor_names(scope)
    owners = node_owners(scope)
    lines = source_lines(source) if source else None
    shape = [int(s) for s in tensor._data.shape]
    graph = Graph(var=name, shape=shape, dtype=tensor.dtype.name, root=None, nodes=[], edges=[],
                  saved_requested=saved)
    if tensor.grad_fn is None:
        if not tensor.requires_grad:
            return graph
        root = tensor._edge()[0]          # the leaf's AccumulateGrad
    else:
        root = tensor.grad_fn
    ids: dict = {}
    order = []

    def make(node) -> GNode:
        nid = f"n{len(order)}"
        ids[id(node)] = nid
        order.append(node)
        if is_accumulate(node):
            var = node.variable
            labels = list(names.get(id(var), []))
            g = GNode(nid, "leaf", "AccumulateGrad", labels, [int(s) for s in var._data.shape], var.dtype.name,
                      bool(var.requires_grad), has_grad=var._grad is not None)
        else:
            shp, dt = _shape_dtype_of(node, owners)
            labels = [n for n, _ in owners.get(id(node), ())]
            line, column = site_of(node)
            edges = tuple(getattr(node, "next_functions", ()) or ())
            g = GNode(nid, "grad_fn", node_name(node), labels, shp, dt, True, line, column,
                      source_line(lines, line), inputs=len(edges),
                      no_grad_inputs=[k for k, (nxt, _) in enumerate(edges) if nxt is None])
            if saved:
                g.saved, g.saved_freed = saved_items(node, names)
        graph.nodes.append(g)
        return g

    make(root).is_output = True
    if tensor.grad_fn is not None and name not in graph.nodes[0].variables:
        graph.nodes[0].variables.insert(0, name)
    graph.root = "n0"
    stack = [root]
    while stack:
        node = stack.pop()
        nid = ids[id(node)]
        for k, (nxt, nr) in enumerate(getattr(node, "next_functions", ()) or ()):
            if nxt is None:
                continue
            if id(nxt) not in ids:
                if len(order) >= max_nodes:
                    graph.truncated = True
                    continue
                make(nxt)
                stack.append(nxt)
            graph.edges.append(GEdge(ids[id(nxt)], nid, k, int(nr)))
    return graph
