"""The losses that ATen (or torch.nn.functional) composes from other ops: margin_ranking_loss,
hinge_embedding_loss, cosine_embedding_loss, triplet_margin_loss, triplet_margin_with_distance_loss,
poisson_nll_loss, gaussian_nll_loss and multilabel_soft_margin_loss. Each is written with the same ops in
the same order as ATen's Loss.cpp / torch/nn/functional.py, so values, rounding and the grad_fn of the
result (ClampMinBackward0, MeanBackward0, ...) are torch's, and the backward is the ops' own."""
from __future__ import annotations

import math

from .. import errors
from ..autograd_modes import no_grad
from ..ops.clamp_where import minimum, where
from ..tensor import Tensor
from .functional_loss import pairwise_distance, reduction_of


def _apply_reduction(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _size(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _tensor_args(fn, **args):
    for i, (name, value) in enumerate(args.items()):
        if not isinstance(value, Tensor):
            raise errors.type_error(f"{fn}(): argument '{name}' (position {i + 1}) must be Tensor, not "
                                    f"{type(value).__name__}")


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = reduction_of(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise errors.runtime(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                             f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    output = (-target * (input1 - input2) + margin).clamp_min_(0)
    return _apply_reduction(output, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = reduction_of(reduction, size_average, reduce)
    _tensor_args("hinge_embedding_loss", input=input, target=target)
    from ..factory import zeros_like  # noqa: PLC0415
    zeros = zeros_like(input)
    margin_clamp = (margin - input).clamp_min_(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _apply_reduction(output_margin + output_self, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = reduction_of(reduction, size_average, reduce)
    _tensor_args("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    from ..factory import zeros_like  # noqa: PLC0415
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise errors.runtime("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise errors.runtime(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                             f"{_size(input1)} and {_size(input2)}.")
    if targ_dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise errors.runtime(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                             f"{_size(input1)} and {_size(input2)}.")
    eps = 1e-12
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = (input1 * input1).sum(targ_dim) + eps
    mag_square2 = (input2 * input2).sum(targ_dim) + eps
    denom = (mag_square1 * mag_square2).sqrt_()
    cos = prod_sum / denom
    zeros = zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min_(0)
    output_pos = where(target == 1, pos, zeros)
    output_neg = where(target == -1, neg, zeros)
    return _apply_reduction(output_pos + output_neg, reduction)


def _triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise errors.runtime(f"The anchor, positive, and negative tensors are expected to have the same number of "
                             f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction = reduction_of(reduction, size_average, reduce)
    _tensor_args("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    if margin <= 0:
        raise errors.value(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
                dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = (margin + dist_pos - dist_neg).clamp_min(0)
    return _apply_reduction(output, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    if reduction not in ("none", "mean", "sum"):
        raise errors.value(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise errors.value(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                           "instead")
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p and p == n):
        raise errors.runtime(f"The anchor, positive, and negative tensors are expected to have the same number of "
                             f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")
    dist = distance_function if distance_function is not None else pairwise_distance
    dist_pos = dist(anchor, positive)
    dist_neg = dist(anchor, negative)
    if swap:
                dist_neg = minimum(dist_neg, dist(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0.0)
    return _apply_reduction(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = reduction_of(reduction, size_average, reduce)
    _tensor_args("poisson_nll_loss", input=input, target=target)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling_term = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss += stirling_term.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    from ..factory import ones_like  # noqa: PLC0415
    if isinstance(var, float):
        if var < 0:
            raise errors.value("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise errors.value("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise errors.value("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise errors.value(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    from . import functional as F  # noqa: PLC0415 (functional imports this module)
    if size_average is not None or reduce is not None:
        reduction = reduction_of(reduction, size_average, reduce)
    loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)  # noqa: N806 - torch's name
    loss = loss.sum(dim=class_dim) / C
    if reduction not in ("none", "mean", "sum"):
        raise errors.value(reduction + " is not valid")
    return _apply_reduction(loss, reduction)


NAMES = ("margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
         "triplet_margin_with_distance_loss", "poisson_nll_loss", "gaussian_nll_loss", "multilabel_soft_margin_loss")
