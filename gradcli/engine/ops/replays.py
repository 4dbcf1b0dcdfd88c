"""Float64 recomputations of nodes' outputs, the replays of `gradcli run --check` (graph/check.py)
that node classes name as their `replay` (engine/ops/registry.py) and check.REPLAY shares: each is
replay(xs, kw, outs) -> the outputs, from the inputs as float64 arrays, the node's kw and the
outputs' shapes. Check keeps a replay only where it reproduces the recorded outputs."""
from __future__ import annotations

import numpy as np

from ..device import host
from ..tensor import Tensor


def as_array(x):
    """A Tensor's (or array's) values as a NumPy array."""
    return host(x._data if isinstance(x, Tensor) else x)


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


# ----------------------------------------------------------------------------- reductions, views, products
def reduce_all(fn):
    """sum/mean (over kw's dims, or all): fn(x, axis, keepdims)."""
    def replay(xs, kw, outs):
        x = xs[0]
        dims = kw.get("dims") if isinstance(kw, dict) else None
        if dims is None:
            return [np.asarray(fn(x, None, False)).reshape(outs[0])]
        return [np.asarray(fn(x, tuple(dims), bool(kw.get("keepdim", False)))).reshape(outs[0])]
    return replay


def reshape(xs, kw, outs):
    return [np.reshape(xs[0], outs[0])]


def expand(xs, kw, outs):
    return [np.broadcast_to(xs[0], outs[0])]


def transpose(xs, kw, outs):
    x = xs[0]
    if x.ndim < 2:
        return [x.reshape(outs[0])]
    if isinstance(kw, dict):
        if "dims" in kw and kw["dims"] is not None and len(kw["dims"]) == x.ndim:
            return [np.transpose(x, kw["dims"])]
        for a, b in (("dim0", "dim1"), ("d0", "d1")):
            if a in kw and b in kw:
                return [np.swapaxes(x, kw[a], kw[b])]
    return [x.T]


def _key(key):
    def part(k):
        return as_array(k) if isinstance(k, Tensor) else k
    return tuple(part(k) for k in key) if isinstance(key, tuple) else part(key)


def index(xs, kw, outs):
    """select/slice/index: x[kw's key]."""
    return [np.asarray(xs[0][_key(kw["key"])]).reshape(outs[0])]


def addmm(xs, kw, outs):
    kw = kw if isinstance(kw, dict) else {}
    beta, alpha = kw.get("beta", 1), kw.get("alpha", 1)
    return [(beta * xs[0] + alpha * (xs[1] @ xs[2])).reshape(outs[0])]


def matmul(xs, kw, outs):
    return [np.asarray(xs[0] @ xs[1]).reshape(outs[0])]


def cat(xs, kw, outs):
    arrays = [x for x in xs if isinstance(x, np.ndarray)]
    dim = kw.get("dim", 0) if isinstance(kw, dict) else 0
    try:
        return [np.concatenate(arrays, axis=dim).reshape(outs[0])]
    except ValueError:
        return [np.concatenate([a for a in arrays if a.size], axis=dim).reshape(outs[0])]


def stack(xs, kw, outs):
    return [np.stack([x for x in xs if isinstance(x, np.ndarray)], axis=kw.get("dim", 0)).reshape(outs[0])]


def unbind(xs, kw, outs):
    dim = kw.get("dim", 0)
    return [np.take(xs[0], i, axis=dim) for i in range(len(outs))]


def lstm_layer(xs, kw, outs):
    """One LSTM layer and direction (input (T, B, I), weights, hx, cx): (output, hy, cy)."""
    x, w_ih, w_hh, b_ih, b_hh, h, c = xs
    steps = x @ w_ih.T + b_ih
    out = np.empty(outs[0])
    for t in (range(len(steps) - 1, -1, -1) if kw["reverse"] else range(len(steps))):
        i, f, g, o = np.split(h @ w_hh.T + b_hh + steps[t], 4, axis=-1)
        c = c / (1 + np.exp(-f)) + np.tanh(g) / (1 + np.exp(-i))
        h = np.tanh(c) / (1 + np.exp(-o))
        out[t] = h
    return [out, h.reshape(outs[1]), c.reshape(outs[2])]


def log_softmax(xs, kw, outs):
    x, d = xs[0], kw.get("dim", -1)
    m = np.max(x, axis=d, keepdims=True)
    return [x - m - np.log(np.sum(np.exp(x - m), axis=d, keepdims=True))]


def softmax(xs, kw, outs):
    x, d = xs[0], kw.get("dim", -1)
    e = np.exp(x - np.max(x, axis=d, keepdims=True))
    return [e / np.sum(e, axis=d, keepdims=True)]


def logsumexp(x, d, k):
    m = np.max(x, axis=d, keepdims=True)
    r = np.log(np.sum(np.exp(x - m), axis=d, keepdims=True)) + m
    return r if k else np.squeeze(r, axis=d)


def nll(xs, kw, outs):
    coef = np.asarray(as_array(kw["coef"]), np.float64)
    prod = coef * xs[0]
    if kw.get("reduction") == "none" and len(outs[0]):
        return [prod.sum(axis=kw.get("class_dim", 1)).reshape(outs[0])]
    return [np.asarray(prod.sum()).reshape(outs[0])]


def copy(xs, kw, outs):
    return [np.array(xs[0], dtype=np.float64).reshape(outs[0])]


def max_all(xs, kw, outs):
    return [np.asarray(np.max(xs[0])).reshape(outs[0])]


def min_all(xs, kw, outs):
    return [np.asarray(np.min(xs[0])).reshape(outs[0])]


def sum_to_shape(xs, kw, outs):
    if isinstance(kw, dict) and kw.get("dims") is not None:
        return [np.sum(xs[0], axis=tuple(kw["dims"]), keepdims=bool(kw.get("keepdim"))).reshape(outs[0])]
    x, shape = xs[0], tuple(outs[0])
    lead = x.ndim - len(shape)
    x = x.sum(axis=tuple(range(lead))) if lead > 0 else x
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and x.shape[i] != 1)
    return [(x.sum(axis=axes, keepdims=True) if axes else x).reshape(shape)]


def split(xs, kw, outs):
    d = kw.get("dim", 0)
    sizes = [o[d] for o in outs]
    return list(np.split(xs[0], np.cumsum(sizes)[:-1], axis=d))


def unfold(xs, kw, outs):
    from numpy.lib.stride_tricks import sliding_window_view  # noqa: PLC0415

    d = kw["dim"] % max(xs[0].ndim, 1)
    w = sliding_window_view(xs[0], kw["size"], axis=d)
    return [np.take(w, np.arange(0, w.shape[d], kw["step"]), axis=d).reshape(outs[0])]


def beta_alpha(product):
    """addmv/addr/addbmm/baddbmm: beta * input + alpha * product(m1, m2)."""
    def replay(xs, kw, outs):
        return [kw.get("beta", 1) * xs[0] + kw.get("alpha", 1) * product(xs[1], xs[2])]
    return replay


# ----------------------------------------------------------------------------- nn's losses and norms
def _reduced(loss, kw, outs):
    red = (kw or {}).get("reduction", "mean")
    r = loss if red == "none" else (np.sum(loss) if red == "sum" else np.mean(loss))
    return [np.asarray(r).reshape(outs[0])]


def bce(xs, kw, outs):
    x, t = xs[0], xs[1]
    loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    if kw.get("weight") is not None:
        loss = loss * np.asarray(as_array(kw["weight"]), np.float64)
    return _reduced(loss, kw, outs)


def bce_logits(xs, kw, outs):
    x, t = xs[0], xs[1]
    pw = kw.get("pos_weight")
    log_sig, log_sig_neg = -np.logaddexp(0.0, -x), -np.logaddexp(0.0, x)
    if pw is not None:
        loss = -(np.asarray(as_array(pw), np.float64) * t * log_sig + (1 - t) * log_sig_neg)
    else:
        loss = -(t * log_sig + (1 - t) * log_sig_neg)
    if kw.get("weight") is not None:
        loss = loss * np.asarray(as_array(kw["weight"]), np.float64)
    return _reduced(loss, kw, outs)


def embedding(xs, kw, outs):
    """The weight's rows at the indices; the padding row gets no gradient in torch: a constant here."""
    w = xs[0]
    pad = kw.get("padding_idx")
    if pad is not None and "_pad_row" in kw:
        w = np.array(w)
        w[pad] = kw["_pad_row"]
    return [w[np.asarray(as_array(kw["indices"]), np.int64)].reshape(outs[0])]


def layer_norm(xs, kw, outs):
    x = xs[0]
    axes = tuple(range(x.ndim - kw.get("nd", 1), x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + kw.get("eps", 1e-5))
    if len(xs) > 1 and isinstance(xs[1], np.ndarray):
        y = y * xs[1]
    if len(xs) > 2 and isinstance(xs[2], np.ndarray):
        y = y + xs[2]
    return [y]


def batch_norm(xs, kw, outs):
    x = xs[0]
    shape = [1] * x.ndim
    if x.ndim > 1:
        shape[1] = x.shape[1]
    axes = tuple(i for i in range(x.ndim) if i != 1)
    if kw.get("training"):
        m = x.mean(axis=axes, keepdims=True)
        rstd = 1 / np.sqrt(((x - m) ** 2).mean(axis=axes, keepdims=True) + kw.get("eps", 1e-5))
    else:
        m = np.asarray(as_array(kw["mean"]), np.float64).reshape(shape)
        rstd = np.asarray(as_array(kw["rstd"]), np.float64).reshape(shape)
    y = (x - m) * rstd
    if len(xs) > 1 and isinstance(xs[1], np.ndarray):
        y = y * xs[1].reshape(shape)
    if len(xs) > 2 and isinstance(xs[2], np.ndarray):
        y = y + xs[2].reshape(shape)
    return [y]
