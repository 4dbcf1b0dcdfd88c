"""The chain-rule walkthrough (`gradcli run --explain`, the REPL's `:explain`).

An :class:`Explainer` is a backward observer of the engine (``autograd.set_backward_observer``):
the engine calls it once per node, in the order it runs them, with the gradient that flowed in
and the gradients the node sent to its inputs, and once per leaf before the gradient is added to
``.grad``. For each backward pass (``backward()`` or ``torch.autograd.grad``) it builds a record:

- one step per node: the ``grad_fn`` name and the script line that created it, the gradient
  flowing in (dL/dy), the local derivative of each input in words with the script's numbers
  (``d(x2)/d(x1) = w1 = 5``, from :mod:`gradcli.graph.derivatives`), the gradient flowing out
  to each input, and for a leaf the accumulation into ``.grad``;
- one line per leaf with the whole chain: ``dL/dx1 = -1 * w2 * w1 = -30``.

The record is plain data (``to_json``: the ``explain`` list of ``gradcli run --json``) and is
rendered as a Rich table by :func:`render`. The walkthrough is written to stderr, so that stdout
stays exactly what PyTorch prints.

The explainer also observes node creation (``autograd.set_node_observer``) to remember each
node's inputs (a weak reference to a tensor, or the number), so that constants that the node did
not save (``x + 2``) still get their value in the words.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from . import values as V
from .derivatives import expression, local_derivative
from .model import (is_accumulate, is_tensor, node_name, node_owners, site_of, site_pair, source_line,
                    tensor_names)

MAX_CHAIN = 90        # longer chains are shown by their value only
MAX_TERMS = 6
MAX_STEPS = 400       # steps kept per pass (a long training graph is summarised)


class _Inputs:
    """node -> its inputs at creation: ("t", weakref) for tensors, ("n", value) for numbers."""

    def __init__(self):
        self.by_node = weakref.WeakKeyDictionary()

    def __call__(self, node, inputs, outputs):
        items = []
        for x in inputs:
            if is_tensor(x):
                try:
                    items.append(("t", weakref.ref(x)))
                except TypeError:
                    items.append(("?", None))
            elif isinstance(x, (int, float, bool)):
                items.append(("n", x))
            else:
                items.append(("?", None))
        try:
            self.by_node[node] = items
        except TypeError:
            pass


@dataclass
class Step:
    index: int
    node: str
    line: int | None
    source: str | None
    output: str                      # the symbol of what the node computed (x2, or x1 * w1)
    grad_in: object = None           # array (None: no gradient)
    grad_in_text: str = ""
    rows: list = field(default_factory=list)   # one per input, dicts (see to_json)
    leaf: str | None = None          # for AccumulateGrad: the leaf's name
    grad_before: object = None
    grad_after: object = None
    accumulated: bool = True

    def to_json(self) -> dict:
        return {
            "step": self.index, "node": self.node, "line": self.line, "source": self.source, "output": self.output,
            "grad_in": V.to_json(self.grad_in), "grad_in_text": self.grad_in_text,
            "inputs": [{k: (V.to_json(v) if k in ("grad_out", "local_value") else v) for k, v in r.items()}
                       for r in self.rows],
            "leaf": self.leaf,
            "grad_before": V.to_json(self.grad_before) if self.leaf else None,
            "grad_after": V.to_json(self.grad_after) if self.leaf else None,
            "accumulated": self.accumulated if self.leaf else None,
        }


@dataclass
class Pass:
    index: int
    kind: str                          # "backward" or "autograd.grad"
    line: int | None
    source: str | None
    roots: list = field(default_factory=list)      # [{name, node, shape, grad}]
    steps: list = field(default_factory=list)
    leaves: list = field(default_factory=list)     # [{name, shape, grad, chain, text, grad_after}]
    omitted: int = 0
    error: str | None = None

    def to_json(self) -> dict:
        return {
            "pass": self.index, "kind": self.kind, "line": self.line, "source": self.source,
            "roots": [{"name": r["name"], "node": r["node"], "shape": r["shape"], "grad": V.to_json(r["grad"])}
                      for r in self.roots],
            "steps": [s.to_json() for s in self.steps],
            "leaves": [{"name": lf["name"], "shape": lf["shape"], "grad": V.to_json(lf["grad"]),
                        "chain": lf["chain"], "text": lf["text"], "grad_after": V.to_json(lf["grad_after"])}
                       for lf in self.leaves],
            "omitted_steps": self.omitted, "error": self.error,
        }


def _arr(t):
    return None if t is None else V.host(t).astype(np.float64) if V.host(t).dtype.kind in "fiub" else V.host(t)


def _ident(sym: str) -> bool:
    return sym.replace("_", "a").isalnum() and not sym[:1].isdigit()


def d_of(root: str, what: str) -> str:
    """dL/dx1, or d(x * b).sum()/d(model.fc1.weight) written with parentheses."""
    r = root if _ident(root) else f"({root})"
    w = what if _ident(what) else f"({what})"
    return f"d{r}/d{w}"


class _Ctx:
    """What a derivative entry may read about one node (see derivatives.py)."""

    def __init__(self, ex, node, grads, in_grads):
        self.ex, self.node, self.name = ex, node, node_name(node)
        self.kw = getattr(node, "_kw", None)
        self.grads, self.in_grads = grads, in_grads

    num = staticmethod(V.num)  # a number as a person writes it (for the words of engine/ops/words.py)

    def sym(self, k):
        return self.ex.input_symbol(self.node, k)

    def val(self, k):
        return self.ex.input_value(self.node, k)

    def in_grad(self, k):
        g = self.in_grads[k] if k < len(self.in_grads) else None
        return None if g is None else _arr(g)

    def grad_in(self, i):
        g = self.grads[i] if i < len(self.grads) else None
        return None if g is None else _arr(g)


class Explainer:
    """A backward observer that writes the walkthrough of every pass (see module docstring).

    scope: a callable returning the script's variables now; lines: the source lines;
    site: a callable returning the current statement's (line, column); sink(Pass): called at the
    end of every pass."""

    def __init__(self, scope=None, lines=None, site=None, sink=None):
        self.scope = scope or (lambda: {})
        self.lines = lines or []
        self.site = site or (lambda: None)
        self.sink = sink
        self.inputs = _Inputs()
        self.passes: list = []
        self._stack: list = []          # nested passes (a backward inside a hook): innermost last

    # ------------------------------------------------------------------ naming
    def input_symbol(self, node, k) -> str:
        st = self._state()
        edges = getattr(node, "next_functions", ()) or ()
        if k < len(edges) and edges[k][0] is not None:
            return st.node_symbol(edges[k][0], edges[k][1])
        rec = self.inputs.by_node.get(node)
        if rec is not None and k < len(rec):
            kind, item = rec[k]
            if kind == "n":
                return V.num(item)
            if kind == "t":
                t = item()
                if t is not None:
                    names = st.names.get(id(t))
                    if names:
                        return names[0]
                    a = V.host(t)
                    if a.size == 1 or (a.size <= V.SMALL and V.uniform(a)):
                        return V.scalar_text(a)
        saved = self._saved_input(node, k)
        if isinstance(saved, (int, float)):
            return V.num(saved)
        if is_tensor(saved):
            names = st.names.get(id(saved))
            if names:
                return names[0]
            a = V.host(saved)
            if a.size == 1 or V.uniform(a):
                return V.scalar_text(a)
        return "c"

    def input_value(self, node, k):
        saved = self._saved_input(node, k)
        if isinstance(saved, (int, float)):
            return saved
        if is_tensor(saved):
            return _arr(saved)
        rec = self.inputs.by_node.get(node)
        if rec is not None and k < len(rec):
            kind, item = rec[k]
            if kind == "n":
                return item
            if kind == "t" and item() is not None:
                return _arr(item())
        return None

    @staticmethod
    def _saved_input(node, k):
        from ..engine.autograd import SavedValue  # noqa: PLC0415

        if not getattr(type(node), "save_inputs", False):
            return None
        saved = getattr(node, "_saved", None)
        if not saved or k >= len(saved):
            return None
        item = saved[k]
        if type(item) is SavedValue:
            return None if item.is_output else item.tensor
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            return item
        return None

    # ------------------------------------------------------------------ observer protocol
    def _state(self):
        return self._stack[-1] if self._stack else _PassState(self, None)

    def begin(self, tensors, grad_tensors, inputs, accumulate, retain_graph=False, create_graph=False):
        site = None
        try:
            site = self.site()
        except Exception:  # noqa: BLE001
            pass
        pair = site_pair(site)
        line = pair[0] if pair is not None else None
        rec = Pass(len(self.passes) + 1, "backward" if accumulate else "autograd.grad", line,
                   source_line(self.lines, line))
        st = _PassState(self, rec)
        self._stack.append(st)
        st.start(tensors, grad_tensors, inputs)

    def node(self, node, grads, in_grads):
        if self._stack:
            self._stack[-1].on_node(node, grads, in_grads)

    def leaf(self, node, grad, accumulate):
        if self._stack:
            self._stack[-1].on_leaf(node, grad, accumulate)

    def end(self, results, error):
        if not self._stack:
            return
        st = self._stack.pop()
        st.finish(results, error)
        self.passes.append(st.rec)
        if self.sink is not None:
            self.sink(st.rec)


class _PassState:
    def __init__(self, ex: Explainer, rec: Pass | None):
        self.ex, self.rec = ex, rec
        scope = {}
        try:
            scope = ex.scope() or {}
        except Exception:  # noqa: BLE001
            pass
        self.names = tensor_names(scope)
        self.owners = node_owners(scope)
        self.symbols: dict = {}          # id(node) -> symbol of its output
        self.terms: dict = {}            # id(node) -> list of chains (lists of factors); None: unknown
        self.leaf_rows: dict = {}        # id(AccumulateGrad) -> leaf dict
        self.root_symbol = "L"
        self.input_nodes: dict = {}      # autograd.grad: id(node) -> [(output_nr, input index)]
        self.count = 0

    # ------------------------------------------------------------------ symbols
    def node_symbol(self, node, nr=0, depth=0) -> str:
        key = (id(node), nr)
        if key in self.symbols:
            return self.symbols[key]
        if is_accumulate(node):
            names = self.names.get(id(node.variable))
            sym = names[0] if names else f"leaf{V.shape_text(node.variable._data.shape)}"
        else:
            owned = [n for n, t in self.owners.get(id(node), ()) if getattr(t, "_output_nr", 0) == nr]
            if owned:
                sym = owned[0]
            else:
                sym = None
                if depth < 4:
                    edges = getattr(node, "next_functions", ()) or ()
                    args = []
                    for k in range(len(edges)):
                        if edges[k][0] is not None:
                            args.append(self.node_symbol(edges[k][0], edges[k][1], depth + 1))
                        else:
                            args.append(self.ex.input_symbol(node, k))
                    sym = expression(node, args)
                if sym is None or len(sym) > 40:
                    sym = f"{node_name(node)} output" + (f" {nr}" if getattr(node, "n_outputs", 1) > 1 else "")
        self.symbols[key] = sym
        return sym

    # ------------------------------------------------------------------ events
    def start(self, tensors, grad_tensors, inputs):
        rec = self.rec
        for t, g in zip(tensors, grad_tensors):
            node, nr = t._edge()
            names = self.names.get(id(t))
            sym = names[0] if names else (self.node_symbol(node, nr) if node is not None else "output")
            self.symbols[(id(node), nr)] = sym
            rec.roots.append({"name": sym, "node": node_name(node) if node is not None else None,
                              "shape": [int(s) for s in t._data.shape], "grad": _arr(g)})
            a = _arr(g)
            if a is not None and V.uniform(a) and a.size and float(a.reshape(-1)[0]) == 1.0:
                chain = [[]]
            else:
                chain = [[f"grad_output({V.scalar_text(a)})" if a is not None and V.uniform(a) else "grad_output"]]
            self.terms.setdefault(id(node), [])
            if self.terms[id(node)] is not None:
                self.terms[id(node)] = self.terms[id(node)] + chain
        first = rec.roots[0]["name"] if rec.roots else "L"
        # an unnamed root (`(x * w).sum().backward()`) or several roots are called L in the equations
        self.root_symbol = first if len(rec.roots) == 1 and _ident(first) else "L"
        if inputs is not None:
            for i, t in enumerate(inputs):
                node, nr = t._edge()
                self.input_nodes.setdefault(id(node), []).append((nr, i, t))

    def _new_step(self, node, grads) -> Step:
        self.count += 1
        x = getattr(node, "_x", None)
        hooked = x is not None and bool(x.pre_hooks)
        if hooked:      # register_hook changed the gradient: the chain no longer says what it is
            self.terms[id(node)] = None
        line, _ = site_of(node)
        g0 = grads[0] if grads else None
        nr_sym = self.node_symbol(node, 0)
        step = Step(self.count, node_name(node), line, source_line(self.ex.lines, line), nr_sym,
                    _arr(g0) if g0 is not None else None)
        step.grad_in_text = self._equation(nr_sym, self.terms.get(id(node)), step.grad_in)
        if hooked:
            step.grad_in_text += " (after its hooks)"
        if self.rec is not None:
            if len(self.rec.steps) < MAX_STEPS:
                self.rec.steps.append(step)
            else:
                self.rec.omitted += 1
        return step

    def on_node(self, node, grads, in_grads):
        grads = list(grads) if grads is not None else []
        in_grads = tuple(in_grads or ())
        step = self._new_step(node, grads)
        ctx = _Ctx(self.ex, node, grads, in_grads)
        out_sym = step.output
        my_terms = self.terms.get(id(node))
        for k, (nxt, nr) in enumerate(getattr(node, "next_functions", ()) or ()):
            in_sym = self.ex.input_symbol(node, k)
            if nxt is None:
                step.rows.append({"input": k, "name": in_sym, "to": None, "local": None, "local_value": None,
                                  "grad_out": None, "text": f"{in_sym} needs no gradient", "note": None})
                continue
            g = in_grads[k] if k < len(in_grads) else None
            loc = local_derivative(ctx, k)
            local_text = f"d({out_sym})/d({in_sym}) = {loc.formula}"
            lv = loc.value
            lv_text = None
            if lv is not None:
                lv_text = V.scalar_text(np.asarray(lv, dtype=np.float64))
                if lv_text != loc.formula and loc.formula.split(" ")[0] != lv_text:
                    local_text += f" = {lv_text}"
            note = None
            gshape = tuple(V.host(g).shape) if g is not None else None
            oshape = tuple(V.host(grads[0]).shape) if grads and grads[0] is not None else None
            reduced = gshape is not None and oshape is not None and gshape != oshape and \
                loc.factor is not None and node_name(node) not in ("SumBackward0", "SumBackward1",
                                                                   "MeanBackward0", "MeanBackward1")
            if reduced:
                note = f"summed over the broadcast dimensions: {V.shape_text(oshape)} -> {V.shape_text(gshape)}"
            # the chain of the gradient sent to this input
            if g is None:
                child_terms = None
            elif my_terms is None or loc.factor is None:
                child_terms = None
            else:
                child_terms = [t + ([loc.factor] if loc.factor not in ("1",) else []) for t in my_terms]
                if reduced:
                    child_terms = [[f"sum({self._term_text(t)})"] for t in child_terms]
            key = id(nxt)
            if g is not None:
                if key in self.terms:
                    if self.terms[key] is not None and child_terms is not None:
                        self.terms[key] = self.terms[key] + child_terms
                    else:
                        self.terms[key] = None
                else:
                    self.terms[key] = child_terms
            target = self.node_symbol(nxt, nr)
            out_text = self._equation(target, child_terms, _arr(g), short=True) if g is not None else \
                f"no gradient for {target}"
            step.rows.append({"input": k, "name": target, "to": node_name(nxt), "local": local_text,
                              "local_value": lv if lv is not None else None,
                              "grad_out": _arr(g) if g is not None else None, "text": out_text, "note": note})

    def on_leaf(self, node, grad, accumulate):
        step = self._new_step(node, [grad])
        var = node.variable
        names = self.names.get(id(var))
        name = names[0] if names else step.output
        step.leaf = name
        step.output = name
        step.accumulated = bool(accumulate)
        before = var._grad
        step.grad_before = _arr(before) if before is not None else None
        a = _arr(grad)
        if accumulate:
            step.grad_after = a if before is None else (step.grad_before + a if step.grad_before is not None and
                                                        step.grad_before.shape == a.shape else None)
        chain = self._chain_text(self.terms.get(id(node)))
        total = self._equation(name, self.terms.get(id(node)), a)
        if getattr(node, "_x", None) is not None and node._x.pre_hooks:
            total += " (after its hooks)"
        self.leaf_rows[id(node)] = {"name": name, "shape": [int(s) for s in var._data.shape], "grad": a,
                                    "chain": chain, "text": total, "grad_after": None, "node": node,
                                    "accumulate": accumulate}

    def finish(self, results, error):
        rec = self.rec
        if rec is None:
            return
        if error is not None:
            rec.error = f"{type(error).__name__}: {error}"
        for row in self.leaf_rows.values():
            var = row["node"].variable
            if row["accumulate"] and var._grad is not None:
                row["grad_after"] = _arr(var._grad)
            row.pop("node")
            row.pop("accumulate")
            rec.leaves.append(row)
        # autograd.grad: the gradients returned for inputs that are not leaves
        if results:
            for key, items in self.input_nodes.items():
                for nr, i, t in items:
                    if i < len(results) and results[i] is not None and key not in self.leaf_rows:
                        names = self.names.get(id(t))
                        name = names[0] if names else f"inputs[{i}]"
                        a = _arr(results[i])
                        rec.leaves.append({"name": name, "shape": [int(s) for s in t._data.shape], "grad": a,
                                           "chain": self._chain_text(self.terms.get(key)), "grad_after": None,
                                           "text": self._equation(name, self.terms.get(key), a)})

    # ------------------------------------------------------------------ chains
    def _equation(self, what, terms, value, short=False) -> str:
        """dL/dx1 = -1 * w2 * w1 = -30 (all 4 elements): the chain only when it says more than the value;
        short: without the "(all 4 elements)" of a tensor whose elements are equal."""
        head = f"{d_of(self.root_symbol, what)} = "
        if value is None:
            return head + "None"
        text = V.scalar_text(value) if short else V.text(value)
        chain = self._chain_text(terms)
        if chain and chain not in (V.scalar_text(value), V.text(value)):
            return head + f"{chain} = {text}"
        return head + text

    @staticmethod
    def _term_text(term) -> str:
        factors = [f for f in term if f != "1"]
        return " * ".join(factors) if factors else "1"

    def _chain_text(self, terms) -> str | None:
        if not terms or len(terms) > MAX_TERMS:
            return None
        text = " + ".join(self._term_text(t) for t in terms)
        return text if len(text) <= MAX_CHAIN else None


# ----------------------------------------------------------------------------- rendering
def render(rec: Pass, stream, color: bool = False, filename: str | None = None) -> None:
    """The walkthrough of one pass as a Rich table, then one line per leaf with its chain."""
    from rich.table import Table  # noqa: PLC0415
    from rich.text import Text  # noqa: PLC0415

    from ..render.style import rich_console  # noqa: PLC0415

    console = rich_console(stream, color, width=None if color else max(100, _width()))
    where = f" at line {rec.line}" if rec.line else ""
    src = f": {rec.source}" if rec.source else ""
    roots = ", ".join(r["name"] for r in rec.roots)
    called = "" if len(rec.roots) == 1 and _ident(rec.roots[0]["name"]) else (
        " (L below)" if len(rec.roots) == 1 else " (L below is their sum, each weighted by its gradient)")
    title = f"chain rule, {rec.kind} pass {rec.index} of {roots}{called}{where}{src}"
    table = Table(title=title, title_justify="left", header_style="bold", show_lines=True, expand=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("node (line that created it)", overflow="fold")
    table.add_column("gradient in", overflow="fold")
    table.add_column("local derivative", overflow="fold")
    table.add_column("gradient out", overflow="fold")
    for s in rec.steps:
        node = Text(s.node if not s.leaf else f"AccumulateGrad {s.leaf}", style="magenta" if not s.leaf else "cyan")
        if s.line is not None:
            node.append(f"\nline {s.line}" + (f": {s.source}" if s.source else ""), style="dim")
        if s.leaf:
            before = V.scalar_text(s.grad_before) if s.grad_before is not None else "None"
            if s.accumulated:
                after = V.scalar_text(s.grad_after) if s.grad_after is not None else "?"
                local = Text(f"{s.leaf}.grad += gradient")
                out = Text(f"{s.leaf}.grad: {before} -> {after}")
            else:
                local = Text("returned by autograd.grad (.grad unchanged)")
                out = Text(f"{s.leaf}.grad stays {before}")
            table.add_row(str(s.index), node, s.grad_in_text, local, out)
            continue
        local, out = Text(), Text()
        for j, r in enumerate(s.rows):
            sep = "\n" if j else ""
            if r["to"] is None:
                local.append(sep + r["text"], style="dim")
                out.append(sep + "-", style="dim")
                continue
            local.append(sep + r["local"])
            out.append(sep + r["text"])
            if r["note"]:
                out.append(f" ({r['note']})", style="dim")
        table.add_row(str(s.index), node, s.grad_in_text, local, out)
    if rec.omitted:
        table.add_row("...", f"{rec.omitted} more steps not shown", "", "", "")
    console.print(table)
    for lf in rec.leaves:
        line = Text(lf["text"], style="bold")
        after = lf.get("grad_after")
        if after is not None and not (after.shape == lf["grad"].shape and np.array_equal(after, lf["grad"])):
            line.append(f"   ({lf['name']}.grad is now {V.text(lf['grad_after'])})", style="dim")
        console.print(line)
    if rec.error:
        console.print(Text(f"the pass stopped: {rec.error}", style="red"))
    stream.flush()


def _width() -> int:
    import os  # noqa: PLC0415

    cols = os.environ.get("COLUMNS", "")
    # ASCII digits only ('²'.isdigit() is true, int('²') fails), and not past int()'s 4300 digits
    return int(cols) if cols.isascii() and cols.isdigit() and len(cols) <= 5 else 140
