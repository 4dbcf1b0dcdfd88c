"""The tape of `gradcli run --check` (check.py's step 1): while the script runs, a node observer keeps,
for each node an op records, float64 copies of its inputs and outputs and a replay that recomputes the
outputs from the inputs, kept only if it reproduces the recorded outputs."""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from .model import is_tensor, node_name
from .values import host

# the check's relative tolerance by the dtype a gradient was computed in (a replay must agree with
# the recorded outputs within ten times it)
TOLERANCE = {"float64": 1e-6, "float32": 1e-3, "float16": 3e-2, "bfloat16": 5e-2}
# and an absolute tolerance, times |grad_output| |direction|: a derivative that is tiny next to the
# numbers it is computed from (tanh' = 1 - tanh**2 where tanh is near 1) has only absolute precision
ABS_TOLERANCE = {"float64": 1e-9, "float32": 1e-5, "float16": 1e-2, "bfloat16": 1e-2}


# ----------------------------------------------------------------------------- replays
def _pair_loss(cls):
    elementwise = getattr(cls, "elementwise", None)
    if elementwise is None:
        return None

    def replay(xs, kw, outs):
        e = elementwise(xs[0], xs[1], kw)
        red = kw.get("reduction", "mean") if isinstance(kw, dict) else "mean"
        r = e if red == "none" else (np.sum(e) if red == "sum" else np.mean(e))
        return [np.asarray(r).reshape(outs[0])]
    return replay


def _class_forward(cls):
    from ..engine.function import Function  # noqa: PLC0415

    f = getattr(cls, "forward", None)
    if f is None or f is Function.forward:
        return None

    def replay(xs, kw, outs, _f=f):
        args = [x for x in xs]
        if isinstance(kw, dict) and kw:
            try:
                r = _f(*args, **{k: v for k, v in kw.items() if not k.startswith("_")})
            except TypeError:
                r = _f(*args, *[v for k, v in kw.items() if not k.startswith("_")])
        else:
            r = _f(*args)
        rs = list(r) if isinstance(r, (tuple, list)) else [r]
        return [np.asarray(x) for x in rs]
    return replay


def candidates(node):
    cands = []
    declared = getattr(type(node), "replay", None)  # the node class's own (engine/ops/registry.py)
    if declared is not None:
        cands.append(declared)
    pair = _pair_loss(type(node))
    if pair is not None:
        cands.append(pair)
    f = _class_forward(type(node))
    if f is not None:
        cands.append(f)
    return cands


# ----------------------------------------------------------------------------- the tape
@dataclass
class Entry:
    name: str
    xs: list                    # inputs: float64 arrays (float tensors), arrays (other tensors), numbers, None
    kinds: list                 # "f" float tensor, "t" other tensor, "v" a value
    outs: list                  # recorded outputs, float64
    out_dtype: str
    replay: object = None
    why: str | None = None      # why there is no replay
    kw: object = None

    def run(self, xs):
        return self.replay(xs, self.kw, [o.shape for o in self.outs])


def f64(t):
    """A tensor's values as a float64 array (other dtypes' as they are, for a non-float tensor)."""
    a = host(t)
    return np.array(a, dtype=np.float64) if a.dtype.kind in "fiub" and t.dtype.is_floating_point else np.array(a)


def _close(a, b, dtype) -> bool:
    if a.shape != b.shape:
        return False
    tol = max(TOLERANCE.get(dtype, 1e-3), 1e-9) * 10
    scale = float(np.nanmax(np.abs(b))) if b.size and np.isfinite(b).any() else 1.0
    with np.errstate(all="ignore"):
        return bool(np.allclose(a, b, rtol=tol, atol=tol * max(scale, 1e-30) * 1e-2 + 1e-12, equal_nan=True))


class Tape:
    """The node observer of --check (see the module docstring)."""

    def __init__(self):
        self.entries = weakref.WeakKeyDictionary()

    def __call__(self, node, inputs, outputs):
        try:
            self._record(node, inputs, outputs)
        except Exception:  # noqa: BLE001 - a node that cannot be taped is simply not checked
            pass

    def _record(self, node, inputs, outputs):
        xs, kinds = [], []
        for x in inputs:
            if is_tensor(x):
                if x.dtype.is_floating_point:
                    xs.append(f64(x))
                    kinds.append("f")
                else:
                    xs.append(np.array(host(x)))
                    kinds.append("t")
            else:
                xs.append(x)
                kinds.append("v")
        outs = [f64(o) for o in outputs]
        kw = getattr(node, "_kw", None)
        if isinstance(kw, dict):
            kw = dict(kw)
            if kw.get("padding_idx") is not None and xs and isinstance(xs[0], np.ndarray) and xs[0].ndim == 2:
                kw["_pad_row"] = xs[0][kw["padding_idx"]].copy()
        entry = Entry(node_name(node), xs, kinds, outs, outputs[0].dtype.name, kw=kw)
        for cand in candidates(node):
            try:
                with np.errstate(all="ignore"):
                    got = cand([x.copy() if isinstance(x, np.ndarray) else x for x in xs], kw, [o.shape for o in outs])
                got = [np.asarray(g, dtype=np.float64) for g in got]
            except Exception:  # noqa: BLE001 - this candidate does not fit the node
                continue
            if len(got) == len(outs) and all(_close(g, o, entry.out_dtype) for g, o in zip(got, outs)):
                entry.replay = cand
                break
        if entry.replay is None:  # a node class may say why it has none (engine/ops/registry.py)
            entry.why = getattr(type(node), "no_replay", None) or "no replay of its forward"
        self.entries[node] = entry

    def get(self, node):
        return self.entries.get(node)
