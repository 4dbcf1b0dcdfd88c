"""F.embedding_bag, torch.embedding_bag and nn.EmbeddingBag: sums, means or maxima of bags of embedding
rows. F's Python checks as torch's (ValueErrors, the argument swap warning left out), then ATen's CPU
kernel: each bag's rows added in order (the mean divides the sum by the bag's size, padding rows left
out), the max keeps the first largest value per feature. EmbeddingBagBackward0 is ATen's dense backward
(_embedding_bag_dense_backward: each row's gradient accumulated over its uses in index order, the scale
1/bag size or the sample weight taken in double and rounded; the max's to the chosen rows) and
_embedding_bag_per_sample_weights_backward (a dot product per sample); torch does not differentiate
these gradients again, and neither does gradcli."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..device import host, like
from ..function import Function, record
from ..ops import words
from ..ops.registry import Sample, op
from ..tensor import Tensor, wrap
from . import init
from .module import Module
from .parameter import Parameter

_MODES = {"sum": 0, "mean": 1, "max": 2}


def _bags(idx, offsets, include_last_offset, n_in):
    """(start, end) of every bag."""
    offs = [int(o) for o in offsets]
    if include_last_offset:
        ends = offs[1:]
        offs = offs[:-1]
    else:
        ends = offs[1:] + [n_in]
    return [(s, min(max(e, s), n_in)) for s, e in zip(offs, ends)]


def _forward(w, idx, bags, mode, psw, padding_idx):
    dim = w.shape[1]
    out = np.zeros((len(bags), dim), w.dtype)
    max_idx = np.zeros((len(bags), dim), np.int64)
    sizes = np.zeros(len(bags), np.int64)
    for b, (s, e) in enumerate(bags):
        acc = np.zeros(dim, w.dtype)
        count = 0
        for j in range(s, e):
            k = int(idx[j])
            if k == padding_idx:
                continue
            row = w[k]
            if mode == 2:
                take = row > acc if count else np.ones(dim, bool)
                acc = np.where(take, row, acc)
                max_idx[b] = np.where(take, k, max_idx[b])
            else:
                acc = acc + (row * psw[j] if psw is not None else row)
            count += 1
        if mode == 1 and count:
            acc = acc / w.dtype.type(count)
        out[b] = acc
        sizes[b] = count
    return out, max_idx, sizes


class EmbeddingBagBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = staticmethod(words.fixed("each bag's gradient added to the rows it took (scaled by 1/size for the mean, "
                                       "by the sample weights; the max's to the chosen rows)"))
    replay = staticmethod(lambda xs, kw, outs: [_forward(xs[0], kw["idx"], kw["bags"], kw["mode"],
                                                         xs[1] if len(xs) > 1 and xs[1] is not None else None,
                                                         kw["padding_idx"])[0]])

    def backward(self, g):
        k = self._kw
        w, psw = k["weight"], k["psw"]
        gd = host(g._data)
        idx, bags, mode, pad = k["idx"], k["bags"], k["mode"], k["padding_idx"]
        gw = gp = None
        if self.next_functions[0][0] is not None:
            dt = gd.dtype.type
            acc = np.zeros(w.shape, gd.dtype)
            if mode == 2:
                for b in np.nonzero(k["sizes"])[0]:
                    for d in range(gd.shape[1]):
                        acc[k["max_idx"][b, d], d] += gd[b, d]
            else:
                bag_of = np.zeros(len(idx), np.int64)
                for b, (s, e) in enumerate(bags):
                    bag_of[s:e] = b
                order = np.argsort(idx, kind="stable")  # ATen visits each row's uses in sorted index order
                ordered = idx[order]
                counts = np.bincount(idx, minlength=1)
                group = np.cumsum(np.r_[0, ordered[1:] != ordered[:-1]]) if len(idx) else ordered
                for pos, j in enumerate(order):
                    if int(idx[j]) == pad or not any(s <= j < e for s, e in bags):
                        continue
                    b = bag_of[j]
                    scale = float(host(psw._data)[j]) if psw is not None else 1.0
                    if k["by_freq"]:  # ATen divides by the count of the row at the group's number in the sorted
                        scale /= int(counts[ordered[group[pos]]])  # indices (not the group's own row's)
                    if mode == 1 and k["sizes"][b]:
                        scale /= int(k["sizes"][b])
                    acc[int(idx[j])] += dt(scale) * gd[b]
            gw = wrap(like(g._data, acc), g.dtype)
        if psw is not None and self.next_functions[1][0] is not None:
            wd = host(w._data)
            out = np.zeros(len(idx), gd.dtype)
            for b, (s, e) in enumerate(bags):
                for j in range(s, e):
                    if int(idx[j]) != pad:
                        out[j] = np.dot(gd[b], wd[int(idx[j])])
            gp = wrap(like(g._data, out), g.dtype)
        return (gw, gp) if psw is not None else (gw,)


def _index_type(t, what="indices", n=1, fn="embedding_bag"):
    if not isinstance(t, Tensor) or t.dtype not in (dtypes.int64, dtypes.int32):
        legacy = t.dtype.legacy if isinstance(t, Tensor) else type(t).__name__
        raise errors.runtime(f"Expected tensor for argument #{n} '{what}' to have one of the following scalar types: "
                             f"Long, Int; but got torch.{legacy} instead (while checking arguments for {fn})")


def _embedding_bag(weight, indices, offsets, by_freq, mode, psw, include_last_offset, padding_idx):
    _index_type(indices)
    _index_type(offsets, "offsets", 2)
    idx = host(indices._data).astype(np.int64).reshape(-1)
    offs = host(offsets._data).astype(np.int64).reshape(-1)
    legacy = offsets.dtype.legacy
    if offs.size and offs[0] != 0:
        raise errors.runtime(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                             f"position 0. However, got {int(offs[0])}\n[ torch.{legacy}{{}} ]")
    if offs.size and offs[-1] > idx.size:
        raise errors.runtime(f"offsets[-1] can not be greater than input's length {idx.size} but got offsets[-1] of "
                             f"{int(offs[-1])}")
    n = weight.shape[0]
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        raise errors.runtime(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                             f"{int(idx[bad][0])}")
    bags = _bags(idx, offs, include_last_offset, idx.size)
    w = host(weight._data)
    p = host(psw._data).reshape(-1) if psw is not None else None
    out, max_idx, sizes = _forward(w, idx, bags, mode, p, padding_idx)
    kw = {"weight": weight, "psw": psw, "idx": idx, "bags": bags, "mode": mode, "padding_idx": padding_idx,
          "max_idx": max_idx, "sizes": sizes, "by_freq": bool(by_freq)}
    inputs = (weight, psw) if psw is not None else (weight,)
    return record(EmbeddingBagBackward0, inputs, wrap(like(weight._data, out), weight.dtype), kw)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if not isinstance(input, Tensor):
        raise errors.type_error(f"embedding_bag(): argument 'input' must be Tensor, not {type(input).__name__}")
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise errors.value(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape!r}) is not None, then it "
                           f"must have the same shape as the input ({input.shape!r})")
    if weight.dim() != 2:
        raise errors.value(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise errors.value("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                               "fixed length sequences. However, found offsets of type <class 'torch.Tensor'>")
        from ..factory import arange  # noqa: PLC0415
        offsets = arange(0, input.numel(), input.shape[1], dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise errors.value("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise errors.value("offsets has to be a 1D Tensor")
    else:
        raise errors.value(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _MODES:
        raise errors.value("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise errors.value("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise errors.value("max mode does not support sparse weights")
    if max_norm is not None:
        embedding_renorm(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    pad = -1 if padding_idx is None else padding_idx
    return _embedding_bag(weight, input, offsets, scale_grad_by_freq, _MODES[mode], per_sample_weights,
                          include_last_offset, pad)


def embedding_renorm(weight, input, max_norm, norm_type):
    """embedding_renorm_ under no_grad (F.embedding's and F.embedding_bag's first step, before their own
    checks): the rows the input takes scaled to max_norm."""
    _index_type(input, n=2, fn="embedding_renorm_")
    renorm_rows(weight, np.unique(host(input._data).astype(np.int64)), max_norm, norm_type)


def renorm_rows(weight, rows, max_norm, norm_type):
    """ATen's embedding_renorm_ (no graph): each row taken once, its norm torch's (`row.norm(p)`) read as
    a double (a float16 row's in float32, measured); a row over max_norm is multiplied by
    max_norm / (norm + 1e-7) in double, a number the multiplication rounds to the op-math dtype (float32
    for float16), so a 1-element row becomes 0.99999.. of max_norm, not max_norm."""
    from ..ops.norms import vector_norm  # noqa: PLC0415
    w = weight._data
    math = np.float32 if w.dtype == np.float16 else w.dtype.type
    math_dt = dtypes.float32 if w.dtype == np.float16 else weight.dtype
    n = w.shape[0]
    for r in rows:  # sorted: ATen takes `self[i]` for each distinct index in order, so a row before a bad
        if r < -n or r >= n:  # index is scaled, then select() raises
            weight._version[0] += 1
            raise errors.index(f"select(): index {int(r)} out of range for tensor of size "
                               f"[{', '.join(map(str, weight.shape))}] at dimension 0")
        norm = float(host(vector_norm(wrap(w[r].astype(math), math_dt), norm_type)._data))
        if norm > max_norm:
            w[r] = (w[r].astype(math) * math(max_norm / (norm + 1e-7))).astype(w.dtype)
    weight._version[0] += 1


EMBEDDING_PADDING = "Padding_idx must be within num_embeddings"  # F.embedding's and nn.Embedding's capital


def padding_index(padding_idx, num, message="padding_idx must be within num_embeddings"):
    """The range check of nn.EmbeddingBag's padding_idx, a negative one counted from the end; F.embedding's and
    nn.Embedding's is the same check, with torch's capital in the message (EMBEDDING_PADDING)."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= num:
                raise errors.assertion(message)
        elif padding_idx < 0:
            if padding_idx < -num:
                raise errors.assertion(message)
            padding_idx = num + padding_idx
    return padding_idx


class EmbeddingBag(Module):
    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        self.padding_idx = padding_index(padding_idx, num_embeddings)
        if _weight is None:
            from ..factory import empty  # noqa: PLC0415
            self.weight = Parameter(empty(num_embeddings, embedding_dim, dtype=dtype, device=device))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise errors.assertion("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                             self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        if embeddings.dim() != 2:
            raise errors.assertion("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, _weight=embeddings, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag


NAMES = ("EmbeddingBag",)
EmbeddingBag.__module__ = "torch.nn.modules.sparse"


def _bag_call(torch, w, p):
    F = torch.nn.functional
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0])
    off = torch.tensor([0, 4, 4])
    return (F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=p),
            F.embedding_bag(idx, w, off, mode="mean", padding_idx=2),
            F.embedding_bag(idx, w, off, mode="max"),
            F.embedding_bag(idx.view(2, 4), w, mode="mean"))


# F's declaration (nn/functional.py adds them to its OPS)
OPS = [
    op("embedding_bag", embedding_bag, EmbeddingBagBackward0, method=False, functional=True, key="F.embedding_bag",
       torch=False, sample=Sample([((6, 3), (8,))], call=_bag_call, second=False)),
]
