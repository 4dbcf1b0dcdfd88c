"""The REPL's views of the session: `:vars` (a table of the tensors in scope) and `:graph NAME`
(the backward graph of a tensor as a tree).  Rich renderables, built from the engine's objects
by reading attributes only."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # Rich is imported where a view is built (the REPL's start-up does not need it)
    from rich.table import Table
    from rich.text import Text
    from rich.tree import Tree


__all__ = ["is_tensor", "vars_table", "graph_tree", "tensor_names", "shape_text"]

MAX_GRAPH_NODES = 400


def _tensor_type():
    try:
        from ..engine.tensor import Tensor  # noqa: PLC0415
    except Exception:  # pragma: no cover
        return ()
    return Tensor


def is_tensor(value: Any) -> bool:
    t = _tensor_type()
    return bool(t) and isinstance(value, t)


def shape_text(t: Any) -> str:
    try:
        return "[" + ", ".join(str(int(d)) for d in t.shape) + "]"
    except Exception:
        return "?"


def _grad_fn_name(t: Any) -> str | None:
    fn = getattr(t, "grad_fn", None)
    if fn is None:
        return None
    try:
        return fn.name()
    except Exception:
        return type(fn).__name__


def _named_parameters(value: Any):
    """(qualified suffix, tensor) for a module's parameters (model.fc1.weight), if it has any."""
    method = getattr(type(value), "named_parameters", None)
    if method is None or is_tensor(value):
        return []
    try:
        return list(value.named_parameters())
    except Exception:
        return []


def tensor_names(scope: Mapping[str, Any]) -> dict[int, list[str]]:
    """id(tensor) -> the names that hold it: variables, and a module's parameters as
    `model.fc1.weight`."""
    names: dict[int, list[str]] = {}
    for name, value in scope.items():
        if name.startswith("_"):
            continue
        if is_tensor(value):
            names.setdefault(id(value), []).append(name)
        else:
            for pname, p in _named_parameters(value):
                if is_tensor(p):
                    names.setdefault(id(p), []).append(f"{name}.{pname}")
    return names


def _grad_of(t: Any) -> Any:
    """t.grad, read without the non-leaf warning that the public attribute may emit."""
    if hasattr(t, "_grad"):
        return t._grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return t.grad
        except Exception:
            return None


def vars_table(scope: Mapping[str, Any]) -> Table | None:
    """A table of the tensors in scope (None when there are none)."""
    rows = [(name, value) for name, value in scope.items() if not name.startswith("_") and is_tensor(value)]
    if not rows:
        return None
    from rich.table import Table  # noqa: PLC0415

    table = Table(title="Tensors in scope", title_justify="left", header_style="bold")
    table.add_column("name", style="bold cyan", no_wrap=True)
    table.add_column("shape", no_wrap=True)
    table.add_column("dtype", no_wrap=True)
    table.add_column("device", no_wrap=True)
    table.add_column("requires_grad", no_wrap=True)
    table.add_column("is_leaf", no_wrap=True)
    table.add_column("grad_fn", style="magenta", no_wrap=True)
    table.add_column("grad", no_wrap=True)
    for name, t in rows:
        grad = _grad_of(t)
        grad_text = "set " + shape_text(grad) if grad is not None else "-"
        table.add_row(
            name,
            shape_text(t),
            str(getattr(t, "dtype", "?")),
            str(getattr(t, "device", "?")),
            str(bool(getattr(t, "requires_grad", False))),
            str(bool(getattr(t, "is_leaf", True))),
            _grad_fn_name(t) or "-",
            grad_text,
        )
    return table


def _site_text(node: Any) -> str:
    site = getattr(node, "_site", None)
    if site is None:
        return ""
    line = site if isinstance(site, int) else getattr(site, "line", None)
    if line is None and isinstance(site, tuple) and site:
        line = site[-2] if len(site) >= 2 and isinstance(site[-2], int) else site[0]
    return f"line {line}" if isinstance(line, int) else ""


def _edges(node: Any) -> list[Any]:
    edges = []
    for edge in getattr(node, "next_functions", ()) or ():
        edges.append(edge[0] if isinstance(edge, tuple) else edge)
    return edges


def graph_tree(name: str, tensor: Any, scope: Mapping[str, Any], show_sites: bool = True) -> Tree | str:
    """The backward graph of ``tensor`` (held by ``name``) as a Rich tree, or a sentence saying
    why there is none.  ``show_sites`` adds the source line that created each node."""
    root = getattr(tensor, "grad_fn", None)
    if root is None:
        if getattr(tensor, "requires_grad", False):
            return (f"{name} is a leaf tensor (requires_grad=True, shape {shape_text(tensor)}): its gradient is "
                    f"accumulated into {name}.grad; it has no grad_fn, so no graph behind it.")
        return (f"{name} has no backward graph: it does not require grad (requires_grad=False, "
                f"grad_fn=None).")
    from rich.text import Text  # noqa: PLC0415
    from rich.tree import Tree  # noqa: PLC0415

    held = tensor_names(scope)
    node_owner: dict[int, tuple[str, Any]] = {}    # id(grad_fn) -> (name, tensor) for named non-leaves
    for value_name, value in scope.items():
        if is_tensor(value) and getattr(value, "grad_fn", None) is not None:
            node_owner.setdefault(id(value.grad_fn), (value_name, value))
    node_owner[id(root)] = (name, tensor)

    def label(node: Any) -> Text:
        text = Text()
        node_name = node.name() if hasattr(node, "name") else type(node).__name__
        if type(node).__name__ == "AccumulateGrad" or node_name.endswith("AccumulateGrad"):
            variable = getattr(node, "variable", None)
            text.append("AccumulateGrad", style="green")
            names = held.get(id(variable), []) if variable is not None else []
            if names:
                text.append("  " + ", ".join(names), style="bold cyan")
            else:
                text.append("  (unnamed leaf)", style="dim")
            if variable is not None:
                text.append(f"  {shape_text(variable)}", style="yellow")
                text.append("  leaf", style="dim")
            return text
        text.append(node_name, style="magenta")
        owner = node_owner.get(id(node))
        if owner is not None:
            text.append(f"  {owner[0]}", style="bold cyan")
            text.append(f"  {shape_text(owner[1])}", style="yellow")
        site = _site_text(node) if show_sites else ""
        if site:
            text.append(f"  ({site})", style="dim")
        return text

    tree = Tree(label(root))
    seen: set[int] = {id(root)}
    truncated = False
    # pre-order, so the first place a shared node is printed is where it is expanded
    stack: list[tuple[Any, Tree]] = [(edge, tree) for edge in reversed(_edges(root))]
    while stack:
        node, parent = stack.pop()
        if node is None:
            parent.add(Text("None  (input that does not require grad)", style="dim"))
            continue
        if id(node) in seen:
            note = Text("  (shared: expanded above)", style="dim") if _edges(node) else Text("")
            parent.add(label(node) + note)
            continue
        if len(seen) >= MAX_GRAPH_NODES:
            truncated = True
            continue
        seen.add(id(node))
        branch = parent.add(label(node))
        stack.extend((edge, branch) for edge in reversed(_edges(node)))
    if truncated:
        tree.add(Text(f"... (graph truncated at {MAX_GRAPH_NODES} nodes)", style="dim"))
    return tree
