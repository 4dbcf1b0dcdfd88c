"""torch.X forms of nn.functional's functions with ATen's signatures (torch.cosine_embedding_loss(input1,
input2, target, margin, reduction) with reduction an int: 0 none, 1 mean, 2 sum; torch 2.13's Python binding
takes 0 when it is left out), the same ops as F's underneath; and torch.pdist / F.pdist (ATen's
_pdist_forward: PdistBackward0, whose backward's own derivative torch does not implement).

pdist's kernel (ATen/native/cpu/DistanceOpsKernel.cpp, run_parallel_pdist) reduces each pair's row with
vec::map2_reduce_all: rows shorter than a vector (8 floats, 4 doubles on AVX2) summed lane by lane, longer
ones accumulated in vector lanes and the lanes then folded as the AVX2 shuffles do; that order is kept here
for p = 1 and 2 (0 and inf count and take maxima, which no order changes)."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..device import xp_of
from ..function import Function, record
from ..ops.registry import Sample, op
from ..tensor import Tensor, wrap
from . import functional_group_norm as _gn
from . import functional_loss_more as _loss_more
from . import functional_norm as _norm
from . import functional_pool as _pool

_ENUM = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction, fn, position):
    """ATen's apply_loss_reduction: Mean (1) and Sum (2) reduce, any other int leaves the loss as it is."""
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise errors.type_error(f"{fn}(): argument 'reduction' (position {position}) must be int, not "
                                f"{type(reduction).__name__}")
    return _ENUM.get(reduction, "none")


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _loss_more.cosine_embedding_loss(input1, input2, target, margin,
                                            reduction=_reduction(reduction, "cosine_embedding_loss", 5))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _loss_more.hinge_embedding_loss(input, target, margin,
                                           reduction=_reduction(reduction, "hinge_embedding_loss", 4))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _loss_more.margin_ranking_loss(input1, input2, target, margin,
                                          reduction=_reduction(reduction, "margin_ranking_loss", 5))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=0):
    return _loss_more.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                          reduction=_reduction(reduction, "triplet_margin_loss", 8))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _loss_more.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                       reduction=_reduction(reduction, "poisson_nll_loss", 6))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return _gn.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return _norm.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d(input, output_size): the values and their indices, always."""
    return _pool.adaptive_max_pool1d(input, output_size, return_indices=True)


# ---------------------------------------------------------------------------- pdist

_LANES = {4: 8, 8: 4}  # AVX2 vector lanes by item size (float32, float64)


def _fold_lanes(acc):
    """vec_reduce_all of an AVX2 vector of sums: for float, the shuffles' tree (lane i with i + 4, then
    i + 2, then i + 1); for double (no SIMD fold), lane by lane."""
    n = acc.shape[-1]
    if acc.dtype.itemsize == 8:
        out = acc[..., 0]
        for k in range(1, n):
            out = out + acc[..., k]
        return out
    while n > 1:
        n //= 2
        acc = acc[..., :n] + acc[..., n:2 * n]
    return acc[..., 0]


def _lane_sum(terms):
    """map2_reduce_all's sum of each row of terms (..., m) in ATen's order."""
    m = terms.shape[-1]
    lanes = _LANES.get(terms.dtype.itemsize, 8)
    if m < lanes:
        out = np.zeros(terms.shape[:-1], terms.dtype)
        for k in range(m):
            out = out + terms[..., k]
        return out
    full = m - m % lanes
    acc = terms[..., :lanes].copy()
    for d in range(lanes, full, lanes):
        acc = acc + terms[..., d:d + lanes]
    tail = m - full
    if tail:
        acc[..., :tail] = acc[..., :tail] + terms[..., full:]
    return _fold_lanes(acc)


def _pairs(n):
    i, j = np.triu_indices(n, 1)
    return i, j


def _pdist_array(x, p):
    n = x.shape[0]
    i, j = _pairs(n)
    if x.shape[1] == 0:
        return np.zeros(len(i), x.dtype)
    diff = np.abs(x[i] - x[j])
    if p == 0:
        return (diff != 0).sum(-1).astype(x.dtype)
    if p == 1:
        return _lane_sum(diff)
    if p == 2:
        return np.sqrt(_lane_sum(diff * diff))
    if p == float("inf"):
        return diff.max(-1)
    terms = (diff.astype(np.float64) ** p).astype(x.dtype)
    return (_lane_sum(terms).astype(np.float64) ** (1.0 / p)).astype(x.dtype)


class PdistBackward0(Function):
    """torch.pdist: each pair's distance's gradient, added to its first row and taken from its second."""
    __slots__ = ()
    explain = "the p-norm's gradient of each pair's difference (plus for its first row, minus for its second)"
    replay = staticmethod(lambda xs, kw, outs: [_pdist_array(xs[0], kw["p"]).reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, dist = self.saved
        p = self._kw["p"]
        a, d, gd = x._data, dist._data, g._data
        i, j = _pairs(a.shape[0])
        diff = a[i] - a[j]
        dd = d[:, None]
        from ..ops.einsum import pnorm_distance_grad  # noqa: PLC0415 - cdist's family, loaded on first use
        term = pnorm_distance_grad(diff, dd, p)
        contrib = (gd[:, None] * term).astype(a.dtype)
        out = np.zeros_like(a)
        np.add.at(out, i, contrib)
        np.add.at(out, j, -contrib)
        r = wrap(out, x.dtype)
        record(PdistBackwardBackward0, (g, x, dist), r)
        return (r,)


class PdistBackwardBackward0(Function):
    __slots__ = ()
    explain = "none: torch has no derivative for _pdist_backward"

    def backward(self, g):
        raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


def pdist(input, p=2):
    if not isinstance(input, Tensor):
        raise errors.type_error(f"pdist(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise errors.type_error(f"pdist(): argument 'p' (position 2) must be float, not {type(p).__name__}")
    if input.dim() != 2:
        raise errors.runtime(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise errors.runtime("pdist only supports floating-point dtypes")
    if p < 0:
        raise errors.runtime("pdist only supports non-negative p values")
    x = input._data
    if xp_of(x) is not np:
        raise errors.runtime("pdist: gradcli computes it on the CPU only")
    out = wrap(np.ascontiguousarray(_pdist_array(np.ascontiguousarray(x), p)), input.dtype)
    return record(PdistBackward0, (input,), out, {"p": p})


# ---------------------------------------------------------------------------- bilinear


class TrilinearBackward0(Function):
    """ATen's _trilinear as bilinear calls it: out[b, o] = sum over i, j of x1[b, i] w[o, i, j] x2[b, j]
    (edges x1, weight, x2); the gradients are einsums of the engine, so they differentiate again."""
    __slots__ = ()
    explain = ("weight and the second input contracted with the gradient", "the outer product of the two inputs "
               "times the gradient", "the first input and weight contracted with the gradient")
    replay = staticmethod(lambda xs, kw, outs: [np.einsum("bi,oij,bj->bo", xs[0], xs[1], xs[2]).reshape(outs[0])])
    save_inputs = True

    def backward(self, g):
        from ..ops.einsum import einsum  # noqa: PLC0415
        x1, w, x2 = self.saved
        need = [f is not None for f, _ in self.next_functions]
        return (einsum("bo,oij,bj->bi", g, w, x2) if need[0] else None,
                einsum("bo,bi,bj->oij", g, x1, x2) if need[1] else None,
                einsum("bo,bi,oij->bj", g, x1, w) if need[2] else None)


def bilinear(input1, input2, weight, bias=None):
    """ATen's bilinear: the inputs flattened to 2-D (views), _trilinear (one mm per output feature, then each
    row's dot product with the second input, as its sumproduct_pair calls do), the result viewed back, the
    bias added."""
    from ..autograd_modes import no_grad  # noqa: PLC0415
    from ..ops import linalg as L  # noqa: PLC0415
    from ..ops import shape as S  # noqa: PLC0415
    if input1.dim() != input2.dim():
        raise errors.runtime(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise errors.runtime(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} and "
                                 f"{input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise errors.runtime(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                             f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise errors.runtime(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                             f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise errors.runtime(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                             f"{weight.shape[0]}")
    out_shape = tuple(input1.shape[:-1]) + (weight.shape[0],)
    x1 = S.reshape(input1, (-1, input1.shape[-1]))
    x2 = S.reshape(input2, (-1, input2.shape[-1]))
    rows, n_out, n2 = x1.shape[0], weight.shape[0], x2.shape[1]
    with no_grad():
        cols = []
        for k in range(n_out):
            buf = L.mm(x1.detach(), weight.detach()[k])               # (rows, n2)
            dots = L.bmm(S.reshape(buf, (rows, 1, n2)), S.reshape(x2.detach(), (rows, n2, 1)))
            cols.append(dots._data.reshape(rows))
        data = np.stack(cols, -1) if cols else np.zeros((rows, 0), x1._data.dtype)
    out = record(TrilinearBackward0, (x1, weight, x2), wrap(np.ascontiguousarray(data), x1.dtype))
    out = S.reshape(out, out_shape)
    return out + bias if bias is not None else out


_M2 = [((2, 3), (2, 3))]


def _aten(name, fn, *nodes, **kw):
    return op(name, fn, *nodes, method=False, key="torch." + name, **kw)


# F.pdist (torch.pdist the same function) and the torch.X forms (nn/functional.py adds them to its OPS)
OPS = [
    op("pdist", pdist, PdistBackward0, method=False, functional=True, key="F.pdist",
       torch=True, sample=Sample([((4, 3),), ((3, 9),)], second=False, call=lambda torch, x: (
           torch.nn.functional.pdist(x), torch.pdist(x, 1), torch.pdist(x, 3.5)))),
    op("bilinear", bilinear, TrilinearBackward0, method=False, functional=True, key="F.bilinear", torch=True,
       sample=Sample([((2, 3), (2, 2), (4, 3, 2), (4,)), ((2, 2, 3), (2, 2, 2), (1, 3, 2))])),
    _aten("cosine_embedding_loss", cosine_embedding_loss, sample=Sample(_M2, call=lambda torch, a, b: (
        torch.cosine_embedding_loss(a, b, torch.tensor([1.0, -1.0], dtype=a.dtype), 0.1, 1)))),
    _aten("hinge_embedding_loss", hinge_embedding_loss, sample=Sample([((2, 3),)], call=lambda torch, x: (
        torch.hinge_embedding_loss(x, torch.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]], dtype=x.dtype))))),
    _aten("margin_ranking_loss", margin_ranking_loss, sample=Sample([((3,), (3,))], call=lambda torch, a, b: (
        torch.margin_ranking_loss(a, b, torch.tensor([1.0, -1.0, 1.0], dtype=a.dtype), 0.2, 2)))),
    _aten("triplet_margin_loss", triplet_margin_loss, sample=Sample([((2, 3), (2, 3), (2, 3))])),
    _aten("poisson_nll_loss", poisson_nll_loss, sample=Sample(_M2, ("any", "pos"), call=lambda torch, x, y: (
        torch.poisson_nll_loss(x, y, True, False, 1e-8, 1)))),
    _aten("group_norm", group_norm, _gn.NativeGroupNormBackward0, sample=Sample(
        [((2, 4, 3), (4,), (4,))], call=lambda torch, x, w, b: torch.group_norm(x, 2, w, b))),
    _aten("instance_norm", instance_norm, sample=Sample([((2, 3, 4), (3,), (3,))], call=lambda torch, x, w, b: (
        torch.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False)))),
    _aten("adaptive_max_pool1d", adaptive_max_pool1d, sample=Sample(
        [((1, 2, 5),)], call=lambda torch, x: torch.adaptive_max_pool1d(x, 3)[0])),
]
