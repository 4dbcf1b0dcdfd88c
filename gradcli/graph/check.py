"""`gradcli run --check`: every backward pass checked against central finite differences.

Design (see docs/graph.md):

1. A tape (tape.py). While the script runs, a node observer (``autograd.set_node_observer``) keeps, for each
   node an op records, float64 copies of the op's inputs and outputs and a *replay*: a function
   that recomputes the outputs from the inputs in float64. The replay is the node class's own
   ``forward`` (the array kernel of the op) or its declared ``replay`` (reductions, views, matrix
   products, losses, indexing: engine/ops/replays.py), and it is kept only if it reproduces the recorded outputs:
   a replay is never trusted blindly. A node without one (an in-place op, a random op such as
   dropout) is reported as not checked, never as wrong.

2. Local checks. At every node the engine runs (the backward observer's ``node`` event), the
   gradient the node sent to each input is compared with central differences of
   ``<grad_output, replay(inputs)>`` around the recorded inputs: element by element for inputs of
   at most 64 elements, along 2 random directions of the bigger inputs otherwise (all of them at
   once; one by one after a mismatch, to name the input). A mismatch is a ``GradcheckError``
   located at the script line that created the node.

3. A global check. At the end of the pass, the graph is replayed from its leaves (each replayed
   node takes its inputs' replayed values, constants are the recorded ones) and the gradient that
   reached the leaves is compared with central differences of ``<grad_tensors, roots(leaves)>``
   along a random direction of all the leaves at once (leaf by leaf after a mismatch, to name it). This checks the engine's bookkeeping too (broadcast
   reductions, accumulation of several paths, dtype casts).

Non-differentiable points (relu at 0, abs at 0, a max with ties) are recognised by one-sided
differences that disagree; the engine's value is then accepted when it lies between them.
The error measure is |numerical - analytical| / max(|numerical|, |analytical|, scale), where scale
is the sum of the absolute terms of the derivative (so that cancellation is no false alarm); the
tolerance follows the dtype the gradient was computed in (1e-3 for float32, 1e-6 for float64).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .model import is_accumulate, node_name, site_of, site_pair, source_line
from .tape import ABS_TOLERANCE, TOLERANCE, Tape, f64
from .values import num

ELEMENTWISE_MAX = 64
DIRECTIONS = 2
MAX_GLOBAL_NODES = 5000


class GradcheckError(RuntimeError):
    """A gradient that does not match finite differences (shown as 'GradcheckError: ...')."""


# ----------------------------------------------------------------------------- comparisons
@dataclass
class Result:
    """One backward pass's check."""
    index: int
    kind: str
    line: int | None
    source: str | None
    nodes_checked: int = 0
    leaves_checked: int = 0
    comparisons: int = 0
    max_error: float = 0.0
    unchecked: list = field(default_factory=list)   # [{node, line, why}]
    global_checked: bool = False
    global_why: str | None = None
    failure: str | None = None
    kinks: int = 0                 # comparisons at a non-differentiable point
    skipped: int = 0               # comparisons not made: a NaN or infinite gradient or function value
    skipped_why: str | None = None  # the first such reason

    @property
    def measured(self) -> int:
        """Comparisons that were actually made (kinks included)."""
        return self.comparisons + self.kinks

    @property
    def not_checked(self) -> bool:
        """Nothing of this pass could be compared (every difference was NaN or infinite)."""
        return self.failure is None and self.measured == 0 and (self.skipped > 0 or bool(self.unchecked))

    def to_json(self) -> dict:
        return {"pass": self.index, "kind": self.kind, "line": self.line, "source": self.source,
                "ok": self.failure is None, "nodes_checked": self.nodes_checked,
                "leaves_checked": self.leaves_checked, "comparisons": self.comparisons,
                "max_relative_error": self.max_error, "global_checked": self.global_checked,
                "global_skipped_because": self.global_why, "unchecked": list(self.unchecked),
                "kinks": self.kinks, "failure": self.failure, "skipped_comparisons": self.skipped,
                "skipped_because": self.skipped_why, "checked": not self.not_checked}

    def line_text(self) -> str:
        where = f" (line {self.line}: {self.source})" if self.line and self.source else (
            f" (line {self.line})" if self.line else "")
        if self.not_checked:
            why = self.skipped_why or (self.unchecked[0]["why"] if self.unchecked else "nothing to compare")
            return (f"check: {self.kind} pass {self.index}{where}: could not be checked: no finite difference "
                    f"could be compared ({self.skipped} skipped: {why})")
        text = (f"check: {self.kind} pass {self.index}{where}: {self.nodes_checked} node"
                f"{'s' if self.nodes_checked != 1 else ''}"
                f" and {self.leaves_checked} lea{'ves' if self.leaves_checked != 1 else 'f'} agree with central "
                f"differences in float64, largest relative error {self.max_error:.1e}")
        if self.unchecked:
            names = ", ".join(f"{u['node']}" + (f" (line {u['line']})" if u["line"] else "")
                              for u in self.unchecked[:3])
            more = f" and {len(self.unchecked) - 3} more" if len(self.unchecked) > 3 else ""
            text += f"; not checked: {names}{more} ({self.unchecked[0]['why']})"
        elif not self.global_checked and self.global_why:
            text += f"; end-to-end check skipped: {self.global_why}"
        if self.kinks:
            text += f"; {self.kinks} comparison{'s' if self.kinks != 1 else ''} at non-differentiable points"
        if self.skipped:
            text += (f"; {self.skipped} comparison{'s' if self.skipped != 1 else ''} skipped "
                     f"({self.skipped_why})")
        return text


def _tolerance(dtype_name):
    return TOLERANCE.get(dtype_name, 1e-3)


class _Compare:
    """Compares directional derivatives; keeps the largest error."""

    def __init__(self, result: Result):
        self.result = result

    def one(self, analytical, d_plus, d_minus, h, scale, tol, atol=0.0, single=True):
        """(ok, error, numerical) for an analytical directional derivative, given the changes of
        <grad, outputs> over the steps +h and -h (d_plus = F(x+hv) - F(x), d_minus = F(x) - F(x-hv),
        each computed element by element before the sum, so that big unrelated terms do not
        cancel); updates max_error."""
        numerical = (d_plus + d_minus) / (2 * h)
        if not (math.isfinite(numerical) and math.isfinite(analytical)):
            # infinities and NaN are anomaly mode's business, not ours: not compared, and said so
            self.result.skipped += 1
            if self.result.skipped_why is None:
                self.result.skipped_why = (
                    "the gradient is NaN there" if math.isnan(analytical) else
                    "the function is not finite next to the point (outside its domain?)"
                    if not math.isfinite(numerical) else "the gradient is infinite there")
            return True, 0.0, numerical
        denom = max(abs(numerical), abs(analytical), scale, 1e-12)
        err = abs(numerical - analytical) / denom
        if err > tol and abs(numerical - analytical) > atol:
            fwd, bwd = d_plus / h, d_minus / h
            if math.isfinite(fwd) and math.isfinite(bwd) and abs(fwd - bwd) > tol * denom:
                # a point where the function is not differentiable (relu at 0): along one element any
                # value between the one-sided derivatives is a valid choice (torch takes one of them,
                # or 0); along a direction that moves several elements, the kinks' intervals add up
                # in ways one pair of differences cannot separate: inconclusive, not wrong
                self.result.kinks += 1
                if not single:
                    return True, 0.0, numerical
                margin = tol * denom + 1e-3 * abs(fwd - bwd)
                lo, hi = min(fwd, bwd), max(fwd, bwd)
                if lo - margin <= analytical <= hi + margin:
                    return True, 0.0, numerical
            self.result.comparisons += 1
            self.result.max_error = max(self.result.max_error, err)
            return False, err, numerical
        self.result.comparisons += 1
        self.result.max_error = max(self.result.max_error, err)
        return True, err, numerical


def _dot(gs, outs):
    s = 0.0
    for g, o in zip(gs, outs):
        if g is not None:
            s += float(np.sum(g * o))
    return s


def _abs_dot(gs, outs):
    s = 0.0
    for g, o in zip(gs, outs):
        if g is not None:
            s += float(np.sum(np.abs(g * o)))
    return s


def _sum_to(g, shape):
    """g reduced over broadcast dimensions to shape (as the engine's sum_to)."""
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    if lead < 0:
        return None
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g if g.shape == tuple(shape) else None


# ----------------------------------------------------------------------------- the checker
class Checker:
    """A backward observer (see the module docstring); results land in ``results`` and each pass's
    is given to ``sink(Result)``. ``tape`` must be the node observer of the same run."""

    def __init__(self, tape: Tape, lines=None, site=None, sink=None, scope=None, seed=0):
        self.tape = tape
        self.lines = lines or []
        self.site = site or (lambda: None)
        self.sink = sink
        self.scope = scope or (lambda: {})
        self.rng = np.random.default_rng(seed)
        self.results: list = []
        self._stack: list = []

    # ------------------------------------------------------------------ observer protocol
    def begin(self, tensors, grad_tensors, inputs, accumulate, retain_graph=False, create_graph=False):
        site = None
        try:
            site = self.site()
        except Exception:  # noqa: BLE001
            pass
        pair = site_pair(site)
        line = pair[0] if pair is not None else None
        res = Result(len(self.results) + len(self._stack) + 1, "backward" if accumulate else "autograd.grad", line,
                     source_line(self.lines, line))
        roots = [(t._edge(), f64(g) if g is not None else None, t) for t, g in zip(tensors, grad_tensors)]
        inputs_ = list(inputs) if inputs is not None else None
        self._stack.append({"res": res, "roots": roots, "leaves": {}, "inputs": inputs_, "seen": set()})

    def node(self, node, grads, in_grads):
        if not self._stack:
            return
        st = self._stack[-1]
        self._check_node(st, node, grads, in_grads)

    def leaf(self, node, grad, accumulate):
        if self._stack:
            st = self._stack[-1]
            st["leaves"][node] = f64(grad)

    def end(self, results, error):
        if not self._stack:
            return
        st = self._stack.pop()
        res = st["res"]
        if error is None:
            try:
                self._check_global(st, results)
            except GradcheckError as e:
                res.failure = str(e)          # reported as the run's error, not as a check line
                self.results.append(res)
                raise
        elif isinstance(error, GradcheckError):
            res.failure = str(error)
        self.results.append(res)
        if self.sink is not None and error is None:
            self.sink(res)

    # ------------------------------------------------------------------ local checks
    def _fail(self, node, message):
        err = GradcheckError(message)
        err.gradcli_site = getattr(node, "_site", None)
        err.gradcli_node = node_name(node)
        err.gradcli_hint_text = ("the engine's backward of this node disagrees with finite differences of its "
                                 "forward (run without --check to get the script's own result)")
        return err

    def _where(self, node):
        line, _ = site_of(node)
        src = source_line(self.lines, line)
        return f" (line {line}: {src})" if line and src else (f" (line {line})" if line else "")

    def _check_node(self, st, node, grads, in_grads):
        res = st["res"]
        entry = self.tape.get(node)
        if entry is None or entry.replay is None:
            line, _ = site_of(node)
            res.unchecked.append({"node": node_name(node), "line": line,
                                  "why": entry.why if entry is not None else "created outside the recorded ops"})
            return
        measured0, skipped0 = res.measured, res.skipped
        gs = []
        for i, o in enumerate(entry.outs):
            g = grads[i] if i < len(grads) else None
            gs.append(f64(g) if g is not None else np.zeros_like(o))
        tol = _tolerance(entry.out_dtype)
        cmp = _Compare(res)
        xs = entry.xs
        checkable = []          # (k, x, analytical, tolerance)
        for k, (nxt, _) in enumerate(getattr(node, "next_functions", ()) or ()):
            if nxt is None or k >= len(xs) or entry.kinds[k] != "f":
                continue
            gk = in_grads[k] if k < len(in_grads) else None
            if gk is None:
                continue
            ana = f64(gk)
            x = xs[k]
            if ana.shape != x.shape:
                red = _sum_to(ana, x.shape)
                if red is None:
                    raise self._fail(node, f"{entry.name}{self._where(node)} sent a gradient of shape "
                                           f"{tuple(ana.shape)} to its input {k} of shape {tuple(x.shape)}")
                ana = red
            gname = getattr(gk.dtype, "name", "float32")
            checkable.append((k, x, ana, max(tol, _tolerance(gname)),
                              max(ABS_TOLERANCE.get(entry.out_dtype, 1e-5), ABS_TOLERANCE.get(gname, 1e-5))))
        if not checkable:
            return

        def outs_at(changes):
            args = list(xs)
            for k, xk in changes.items():
                args[k] = xk
            with np.errstate(all="ignore"):
                return [np.asarray(o, np.float64) for o in entry.run(args)]

        outs0 = outs_at({})
        gmax = max([float(np.max(np.abs(g))) for g in gs if g.size] or [0.0])

        def compare(vs, what, h=1e-6, single=False):
            """Central difference along vs ({k: direction}) with step h; (ok, message)."""
            plus, minus = {}, {}
            a = 0.0
            tol_v = atol_v = norm2 = 0.0
            for k, x, ana, tk, atk in checkable:
                if k in vs:
                    plus[k], minus[k] = x + h * vs[k], x - h * vs[k]
                    a += float(np.sum(ana * vs[k]))
                    tol_v, atol_v = max(tol_v, tk), max(atol_v, atk)
                    norm2 += float(np.sum(vs[k] ** 2))
            p_out, m_out = outs_at(plus), outs_at(minus)
            scale = _abs_dot(gs, [(p - m) / (2 * h) for p, m in zip(p_out, m_out)])
            ok, err, numerical = cmp.one(a, _dot(gs, [p - o for p, o in zip(p_out, outs0)]),
                                         _dot(gs, [o - m for o, m in zip(outs0, m_out)]), h, scale, tol_v,
                                         atol_v * gmax * math.sqrt(norm2), single=single)
            return ok, f"at {what}, analytical {num(a)}, numerical {num(numerical)} (relative error {err:.2g})"

        def fail(k, text):
            who = self._input_name(node, k) if k is not None else ""
            target = f"its input {k}{who}" if k is not None else "its inputs"
            return self._fail(node, f"the gradient that {entry.name}{self._where(node)} sends to {target} does not "
                                    f"match central differences: {text}")

        def scaled_normal(x):
            return self.rng.standard_normal(x.shape) * max(1.0, float(np.max(np.abs(x))) if x.size else 1.0)

        # small inputs element by element (exact and precise), big ones along random directions, all at once
        big = []
        for k, x, ana, tk, atk in checkable:
            if x.size > ELEMENTWISE_MAX:
                big.append((k, x))
                continue
            scale_x = max(1.0, float(np.max(np.abs(x))) if x.size else 1.0)
            for j in range(x.size):
                v = np.zeros(x.shape)
                v.reshape(-1)[j] = 1.0
                where = [int(i) for i in np.unravel_index(j, x.shape)] if x.ndim else []
                ok, text = compare({k: v}, f"element {where}" if where else "its value", 1e-6 * scale_x, single=True)
                if not ok:
                    raise fail(k, text)
        for _ in range(DIRECTIONS if big else 0):
            ok, text = compare({k: scaled_normal(x) for k, x in big}, "a random direction")
            if not ok:
                for k, x in big:           # name the input whose gradient is wrong
                    ok_k, text_k = compare({k: scaled_normal(x)}, "a random direction")
                    if not ok_k:
                        raise fail(k, text_k)
                raise fail(None if len(big) > 1 else big[0][0], text)
        if res.measured > measured0:
            res.nodes_checked += 1
        elif res.skipped > skipped0:   # every comparison was NaN or infinite: not checked, and said so
            res.unchecked.append({"node": node_name(node), "line": site_of(node)[0],
                                  "why": f"no finite comparison: {res.skipped_why}"})

    def _input_name(self, node, k):
        from .model import tensor_names  # noqa: PLC0415

        edges = getattr(node, "next_functions", ()) or ()
        nxt = edges[k][0] if k < len(edges) else None
        if nxt is not None and is_accumulate(nxt):
            try:
                names = tensor_names(self.scope() or {}).get(id(nxt.variable))
            except Exception:  # noqa: BLE001
                names = None
            if names:
                return f" ({names[0]})"
        return ""

    # ------------------------------------------------------------------ the global check
    def _check_global(self, st, results):
        res = st["res"]
        if res.unchecked:
            res.global_why = "some nodes have no replay"
            return
        roots = st["roots"]
        inputs = st["inputs"]
        # the gradients to check: leaves (backward) or the inputs that are leaves (autograd.grad)
        targets = {}
        if inputs is None:
            for node, g in st["leaves"].items():
                targets[node] = g
        else:
            for i, t in enumerate(inputs):
                node, _ = t._edge()
                if node is None or not is_accumulate(node):
                    res.global_why = "an input given to the pass (inputs=) is not a leaf"
                    return
                if results and i < len(results) and results[i] is not None:
                    targets[node] = f64(results[i])
        if not targets:
            res.global_why = "no leaf received a gradient"
            return
        order, why = self._topo(roots)
        if order is None:
            res.global_why = why
            return
        for node in list(order) + list(targets):
            x = getattr(node, "_x", None)
            if x is not None and (x.pre_hooks or x.hooks):
                res.global_why = "hooks change the gradients (register_hook)"
                return
        leaf_values = {}
        for node in order:
            entry = self.tape.get(node)
            for k, (nxt, _) in enumerate(node.next_functions):
                if nxt is not None and is_accumulate(nxt) and k < len(entry.xs):
                    prev = leaf_values.get(nxt)
                    if prev is not None and not np.array_equal(prev, entry.xs[k]):
                        res.global_why = "a leaf changed value while the graph was built"
                        return
                    leaf_values[nxt] = entry.xs[k]
        for node in targets:
            if node not in leaf_values:
                if any(r[0][0] is node for r in roots):
                    leaf_values[node] = f64(node.variable)
                else:
                    res.global_why = "a leaf's value was not recorded"
                    return

        def F(values):
            memo = {}
            with np.errstate(all="ignore"):
                for node in order:
                    entry = self.tape.get(node)
                    args = list(entry.xs)
                    for k, (nxt, nr) in enumerate(node.next_functions):
                        if nxt is None or k >= len(args):
                            continue
                        if is_accumulate(nxt):
                            args[k] = values.get(nxt, args[k])
                        elif nxt in memo:
                            args[k] = memo[nxt][nr]
                    memo[node] = [np.asarray(o, np.float64) for o in entry.run(args)]
            return [None if g is None else (values.get(node) if is_accumulate(node) else memo[node][nr])
                    for (node, nr), g, t in roots]

        def change(new, old):
            """sum over the roots of <grad_tensor, new - old>, element by element first."""
            return sum(float(np.sum(g * (a - b))) for ((_, _), g, _), a, b in zip(roots, new, old) if g is not None)

        base = F(leaf_values)
        recorded = [None if g is None else f64(t) for (_, _), g, t in roots]
        scale_ref = sum(float(np.sum(np.abs(g * f64(t)))) for (_, _), g, t in roots if g is not None)
        if abs(change(base, recorded)) > 1e-3 * max(scale_ref, 1e-12) + 1e-9:
            res.global_why = "the replay does not reproduce the forward (in-place changes?)"
            return
        cmp = _Compare(res)
        names = self._leaf_names()
        # the loosest precision the engine computed in, anywhere in the graph (a .half() in the middle)
        graph_tol = max([_tolerance(self.tape.get(n).out_dtype) for n in order] or [0.0])
        graph_atol = max([ABS_TOLERANCE.get(self.tape.get(n).out_dtype, 1e-5) for n in order] or [0.0])
        gmax = max([float(np.max(np.abs(g))) for (_, _), g, _ in roots if g is not None and g.size] or [0.0])
        grads = {}
        for node, ana in targets.items():
            x = leaf_values[node]
            if ana.shape != x.shape:
                ana = _sum_to(ana, x.shape)
            if ana is not None:
                grads[node] = ana
        if not grads:
            res.global_why = "no leaf gradient has its leaf's shape"
            return
        roots_text = ", ".join(r[0][0].name() if r[0][0] is not None and not is_accumulate(r[0][0])
                               else "a leaf" for r in roots)

        def along(nodes, what):
            """One central difference along a random direction of the leaves `nodes`; raises on mismatch."""
            h = 1e-6
            plus, minus = dict(leaf_values), dict(leaf_values)
            a = scale = norm2 = 0.0
            tol, atol = graph_tol, graph_atol
            for node in nodes:
                x = leaf_values[node]
                v = self.rng.standard_normal(x.shape) * max(1.0, float(np.max(np.abs(x))) if x.size else 1.0)
                plus[node], minus[node] = x + h * v, x - h * v
                a += float(np.sum(grads[node] * v))
                scale += float(np.sum(np.abs(grads[node] * v)))
                norm2 += float(np.sum(v ** 2))
                tol = max(tol, _tolerance(node.variable.dtype.name))
                atol = max(atol, ABS_TOLERANCE.get(node.variable.dtype.name, 1e-5))
            fp, fm = F(plus), F(minus)
            ok, err, numerical = cmp.one(a, change(fp, base), change(base, fm), h, scale, tol,
                                         atol * gmax * math.sqrt(norm2), single=False)
            if not ok:
                err_obj = GradcheckError(
                    f"the gradient of {what} from this {res.kind} pass does not match central differences of "
                    f"{roots_text}: along a random direction, analytical {num(a)}, numerical {num(numerical)} "
                    f"(relative error {err:.2g})")
                err_obj.gradcli_hint_text = ("every node passed its own check: the engine's accumulation of the "
                                             "gradients (broadcasting, several paths) is at fault")
                raise err_obj

        measured0 = res.measured
        try:
            along(list(grads), "the leaves")         # all leaves at once: two replays of the graph
        except GradcheckError:
            for node in grads:                       # find the leaf whose gradient is wrong
                along([node], names.get(id(node.variable), "a leaf"))
            raise
        if res.measured == measured0:               # a NaN or infinite difference: nothing compared
            res.global_why = f"no finite comparison: {res.skipped_why}"
            return
        res.leaves_checked = len(grads)
        res.global_checked = True

    def _leaf_names(self):
        from .model import tensor_names  # noqa: PLC0415

        try:
            return {k: v[0] for k, v in tensor_names(self.scope() or {}).items()}
        except Exception:  # noqa: BLE001
            return {}

    def _topo(self, roots):
        """(the non-leaf nodes reachable from the roots, inputs before their users; None, why)."""
        nodes = {}
        stack = [r[0][0] for r in roots if r[0][0] is not None]
        while stack:
            node = stack.pop()
            if node in nodes or is_accumulate(node):
                continue
            nodes[node] = True
            if len(nodes) > MAX_GLOBAL_NODES:
                return None, "the graph is too big for the end-to-end check"
            for nxt, _ in node.next_functions:
                if nxt is not None:
                    stack.append(nxt)
        for node in nodes:
            entry = self.tape.get(node)
            if entry is None or entry.replay is None:
                return None, f"{node_name(node)} has no replay"
        return sorted(nodes, key=lambda n: n._seq), None
