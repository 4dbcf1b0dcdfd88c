"""Float64 recomputations of nodes' outputs, the replays of `gradcli run --check` (graph/check.py)
that node classes name as their `replay` (engine/ops/registry.py) and check.REPLAY shares: each is
replay(xs, kw, outs) -> the outputs, from the inputs as float64 arrays, the node's kw and the
outputs' shapes. Check keeps a replay only where it reproduces the recorded outputs."""
from __future__ import annotations

import numpy as np

from ..device import host


def as_array(x):
    """A Tensor's (or array's) values as a NumPy array."""
    return host(getattr(x, "_data", x))


def dims_of(kw, x):
    d = kw.get("dims") if isinstance(kw, dict) else None
    if d is None and isinstance(kw, dict) and "dim" in kw:
        d = kw["dim"]
    if d is None:
        return None
    return tuple(d) if isinstance(d, (tuple, list)) else (d,)


def by_indices(xs, kw, outs):
    """Selections (max/min/sort/topk/kthvalue/median/mode/cummax along a dim): the values at the
    recorded indices, which stay put under a small perturbation (ties aside)."""
    x = xs[0]
    idx = as_array(kw["indices"]).astype(np.int64)
    if x.ndim == 0:
        vals = x.reshape(outs[0])
    else:
        d = kw.get("dim", 0) % x.ndim
        ii = idx if idx.ndim == x.ndim else np.expand_dims(idx, d)
        vals = np.take_along_axis(x, ii, axis=d).reshape(outs[0])
    res = [vals]
    if len(outs) > 1:
        res.append(idx.astype(np.float64).reshape(outs[1]))
    return res


def reduce_kw(fn):
    def replay(xs, kw, outs):
        dims = dims_of(kw, xs[0])
        keep = bool(kw.get("keepdim", False)) if isinstance(kw, dict) else False
        return [np.asarray(fn(xs[0], dims, keep)).reshape(outs[0])]
    return replay


def std_var(fn):
    def replay(xs, kw, outs):
        dims = dims_of(kw, xs[0])
        return [np.asarray(fn(xs[0], axis=dims, ddof=kw.get("c", 1), keepdims=bool(kw.get("keepdim")))).reshape(outs[0])]
    return replay


def vector_norm(xs, kw, outs):
    x, p = np.abs(xs[0]), kw.get("p", 2)
    dims, keep = dims_of(kw, x), bool(kw.get("keepdim"))
    if p == float("inf"):
        r = np.max(x, axis=dims, keepdims=keep)
    elif p == float("-inf"):
        r = np.min(x, axis=dims, keepdims=keep)
    elif p == 0:
        r = np.sum(x != 0, axis=dims, keepdims=keep).astype(np.float64)
    else:
        r = np.sum(x ** p, axis=dims, keepdims=keep) ** (1.0 / p)
    return [np.asarray(r).reshape(outs[0])]


def scatter(x, kw, values, put=None):
    """scatter/scatter_add: values (an array cut to the index's shape, or a number) written (put:
    added, np.add.at) into a copy of x at the index along kw's dim."""
    idx = as_array(kw["index"]).astype(np.int64)
    out = np.array(x, copy=True)
    coords = list(np.indices(idx.shape))
    coords[kw["dim"] % max(out.ndim, 1)] = idx
    if isinstance(values, np.ndarray):
        values = values[tuple(slice(0, s) for s in idx.shape)]
    if put is None:
        out[tuple(coords)] = values
    else:
        put(out, tuple(coords), values)
    return out


def index_put(x, kw, values, add=False):
    """index_copy/index_fill (add: index_add, times kw's alpha): values (an array, or a number) put
    into a copy of x at kw's index along kw's dim."""
    idx = as_array(kw["index"]).astype(np.int64).reshape(-1)
    out = np.array(x, copy=True)
    view = out.reshape(1) if out.ndim == 0 else out
    key = (slice(None),) * kw["dim"] + (idx,)
    if add:
        np.add.at(view, key, (np.reshape(values, (1,)) if np.ndim(values) == 0 else values) * kw.get("alpha", 1))
    else:
        view[key] = values[()] if isinstance(values, np.ndarray) and values.ndim == 0 else values
    return out
