"""torch.nn.functional.multi_margin_loss and multilabel_margin_loss, with nn.MultiMarginLoss and
nn.MultiLabelMarginLoss: ATen's CPU kernels (LossMultiMargin.cpp, LossMultiLabelMargin.cpp) loop for
loop, so the sums round as torch's do: per sample in the input's dtype (multi-margin) or its
accumulation type (multilabel: float64 for float32), over samples in the accumulation type. One node
each (MultiMarginLossBackward0, MultilabelMarginLossBackward0) whose gradient is computed as ATen's
backward kernel does; torch has no derivative of those backward kernels, so under create_graph the
gradient carries torch's NotImplemented node."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..function import Function, record
from ..ops import words
from ..ops.elementwise_common import not_implemented
from ..tensor import wrap
from .functional_loss import reduction_of
from .module import Module


def _reduction(reduction, size_average, reduce):
    """The reduction a loss function runs: the legacy size_average/reduce pair mapped as torch maps it."""
    if size_average is not None or reduce is not None:
        reduction = reduction_of(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise errors.value(f"{reduction} is not a valid value for reduction")
    return reduction


def _seq_sum(values, dtype):
    """values summed one after another (a C loop's `sum += v`) in dtype, from 0."""
    if len(values) == 0:
        return dtype.type(0)
    return np.cumsum(np.asarray(values, dtype=dtype))[-1]


def _frames(input):
    """(input as nframe x dim, nframe, dim) as ATen's shape checks see it (a 0-d input is one class)."""
    x = input._data
    if not (x.ndim == 2 and x.shape[1] != 0 or x.ndim == 1 and x.shape[0] != 0 or x.ndim == 0):
        raise errors.runtime(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                             f"[{', '.join(map(str, x.shape))}]")
    nframe, dim = (x.shape[0], x.shape[1]) if x.ndim == 2 else (1, x.shape[0] if x.ndim else 1)
    return x.reshape(nframe, dim), nframe, dim


def _finish(g, grad_output, reduction, shape):
    """ATen multiplies the gradient by grad_output: one number, or one per sample (reduction none)."""
    go = grad_output._data
    if reduction != "none" or go.ndim == 0:
        return (g * go.reshape(())).reshape(shape)
    return (g * go.reshape(-1, 1)).reshape(shape)


def _backward_result(node, g_arr, grad_output, opname):
    x = node.saved[0]
    return not_implemented(wrap(g_arr, x.dtype), (grad_output, x), opname)


# ---------------------------------------------------------------------------- multi-margin

def _reduce(loss, reduction, outs):
    r = loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()
    return [np.asarray(r).reshape(outs[0])]


def _multi_margin_replay(xs, kw, outs):
    """The loss recomputed from the node's inputs (graph --check), in float64."""
    x, t, w = xs[0], xs[1], xs[2] if len(xs) > 2 else None
    x2 = x.reshape(-1, x.shape[-1] if x.ndim else 1)
    t = np.asarray(t).reshape(-1).astype(np.int64)
    rows = np.arange(len(t))
    z = np.maximum(kw["margin"] - x2[rows, t][:, None] + x2, 0) ** kw["p"]
    z[rows, t] = 0
    if w is not None:
        z = z * np.asarray(w)[t][:, None]
    return _reduce(z.sum(axis=1) / x2.shape[1], kw["reduction"], outs)


def _multilabel_margin_replay(xs, kw, outs):
    x, t = xs[0], np.asarray(xs[1]).astype(np.int64)
    x2 = x.reshape(-1, x.shape[-1] if x.ndim else 1)
    t2 = t.reshape(x2.shape)
    losses = []
    for row, trow in zip(x2, t2):
        targets = _targets(trow)
        others = ~_is_target(trow, len(row))
        losses.append(sum(np.maximum(1 - row[j] + row[others], 0).sum() for j in targets) / len(row))
    return _reduce(np.asarray(losses), kw["reduction"], outs)


class MultiMarginLossBackward0(Function):
    __slots__ = ()
    save_inputs = True
    replay = staticmethod(_multi_margin_replay)
    explain = staticmethod(words.fixed("p * margin-violation^(p-1) / dim for every class that beats the target's "
                                       "score by less than the margin, minus their sum at the target"))

    def backward(self, grad):
        x, target, weight = self.saved
        k = self._kw
        xs, nframe, dim = _frames(x)
        dt = xs.dtype
        t = target._data.reshape(-1).astype(np.int64)
        p, margin = k["p"], dt.type(k["margin"])
        g = dt.type(1.0 / (nframe * dim) if k["reduction"] == "mean" else 1.0 / dim)
        w = weight._data if weight is not None else None
        out = np.zeros_like(xs)
        for i in range(nframe):
            ti = t[i]
            z = (margin - xs[i, ti]) + xs[i]
            h = np.full(dim, g, dtype=dt) if p == 1 else dt.type(2) * g * z
            if w is not None:
                h = h * w[ti]
            h = np.where(z > 0, h, dt.type(0)).astype(dt)
            h[ti] = 0
            out[i] = h
            out[i, ti] = -_seq_sum(h[np.arange(dim) != ti][z[np.arange(dim) != ti] > 0], dt) if dim > 1 else 0
        arr = _finish(out, grad, k["reduction"], x._data.shape)
        return _backward_result(self, arr.astype(dt), grad, "aten::multi_margin_loss_backward"), None, None


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    if p != 1 and p != 2:
        raise errors.value("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise errors.value("weight must be one-dimensional")
    reduction = _reduction(reduction, size_average, reduce)
    xs, nframe, dim = _frames(input)
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise errors.runtime(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                             f"samples (batch size). Expected target size [{nframe}], but got "
                             f"[{', '.join(map(str, target.shape))}]. Input has shape "
                             f"[{', '.join(map(str, input.shape))}].")
    if weight is not None and weight.numel() != dim:
        raise errors.runtime(f"inconsistent weight size, expected {dim} but got "
                             f"[{', '.join(map(str, weight.shape))}]")
    dt = xs.dtype
    t = target._data.reshape(-1).astype(np.int64)
    if np.any((t < 0) | (t >= dim)):
        raise errors.runtime("target out of range")
    margin_t = dt.type(margin)
    w = weight._data.astype(dt) if weight is not None else None
    sums = np.empty(nframe, dtype=dt)
    for i in range(nframe):
        ti = t[i]
        z = (margin_t - xs[i, ti]) + xs[i]
        keep = (z > 0) & (np.arange(dim) != ti)
        h = z[keep] if p == 1 else z[keep] * z[keep]
        if w is not None:
            h = h * w[ti]
        sums[i] = _seq_sum(h, dt) / dt.type(dim)
    if reduction == "none" and target.dim() > 0:
        out = sums
    else:
        acc = _seq_sum(sums.astype(np.float64), np.dtype(np.float64))
        if reduction == "mean":
            acc = acc / nframe
        out = np.asarray(acc if reduction != "none" else sums[0]).astype(dt)
    return record(MultiMarginLossBackward0, (input, target, weight), wrap(out, input.dtype),
                  {"p": p, "margin": margin, "reduction": reduction})


# ---------------------------------------------------------------------------- multilabel margin

def _is_target(t_row, dim):
    is_target = np.zeros(dim, dtype=bool)
    for idx in t_row:
        if idx < 0:
            break
        is_target[idx] = True
    return is_target


def _targets(t_row):
    out = []
    for idx in t_row:
        if idx < 0:
            break
        out.append(int(idx))
    return out


class MultilabelMarginLossBackward0(Function):
    __slots__ = ()
    save_inputs = True
    replay = staticmethod(_multilabel_margin_replay)
    explain = staticmethod(words.fixed("1/dim for every non-target class within the margin of a target's score, "
                                       "minus 1/dim at that target, per pair"))

    def backward(self, grad):
        x, target = self.saved
        k = self._kw
        xs, nframe, dim = _frames(x)
        dt = xs.dtype
        ts = target._data.reshape(nframe, dim).astype(np.int64)
        g = dt.type(1.0 / (nframe * dim) if k["reduction"] == "mean" else 1.0 / dim)
        out = np.zeros_like(xs)
        for i in range(nframe):
            is_target = _is_target(ts[i], dim)
            row = out[i]
            for ti in _targets(ts[i]):
                z = (dt.type(1) - xs[i, ti]) + xs[i]
                hit = (~is_target) & (z > 0)
                for d in np.nonzero(hit)[0]:  # ATen's order: the target's -= g and d's += g alternate
                    row[ti] = row[ti] - g
                    row[d] = row[d] + g
        arr = _finish(out, grad, k["reduction"], x._data.shape)
        return _backward_result(self, arr.astype(dt), grad, "aten::multilabel_margin_loss_backward"), None


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    xs, nframe, dim = _frames(input)
    ok = target.dim() <= 1 and target.numel() == dim if input.dim() <= 1 else (
        target.dim() == 2 and tuple(target.shape) == (nframe, dim))
    if not ok:
        raise errors.runtime(f"inconsistent target size: [{', '.join(map(str, target.shape))}] for input of size: "
                             f"[{', '.join(map(str, input.shape))}]")
    dt = xs.dtype
    f64 = np.dtype(np.float64)
    ts = target._data.reshape(nframe, dim).astype(np.int64)
    if ts.size and (ts.min() < -1 or ts.max() >= dim):
        raise errors.runtime("argument #2 'target' is out of range")
    sums = []  # each sample's sum: accumulated in float64, returned in the input's dtype (ATen's inner sum)
    for i in range(nframe):
        is_target = _is_target(ts[i], dim)
        terms = []
        for ti in _targets(ts[i]):
            z = (dt.type(1) - xs[i, ti]) + xs[i]
            terms.extend(z[(~is_target) & (z > 0)].tolist())
        sums.append(dt.type(_seq_sum(terms, f64)))
    if reduction != "none" or target.dim() <= 1:
        total = _seq_sum(sums, f64) / dim
        if reduction == "mean":
            total = total / nframe
        out = np.asarray(total).astype(dt)
    else:
        out = np.asarray([s / dt.type(dim) for s in sums], dtype=dt)
    return record(MultilabelMarginLossBackward0, (input, target), wrap(out, input.dtype), {"reduction": reduction})


# ---------------------------------------------------------------------------- modules

class MultiMarginLoss(Module):
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = reduction_of(reduction, size_average, reduce)
        self.reduction = reduction
        self.register_buffer("weight", weight)
        if p != 1 and p != 2:
            raise errors.value("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise errors.value(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                               f"{weight.dim()}D instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                 reduction=self.reduction)


class MultiLabelMarginLoss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = reduction_of(reduction, size_average, reduce)
        self.reduction = reduction

    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


MultiMarginLoss.__module__ = MultiLabelMarginLoss.__module__ = "torch.nn.modules.loss"
