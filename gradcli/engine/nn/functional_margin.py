"""torch.nn.functional.soft_margin_loss and nn.SoftMarginLoss: ATen's soft_margin_loss, one node
(SoftMarginLossBackward0) whose target is not differentiable.

ATen computes the loss as ``log1p(exp(-input * target))`` into a tensor of the input's shape and
dtype (the target is broadcast to it), then applies the reduction; its backward is
``-norm * target * z / (1 + z) * grad`` with ``z = exp(-target * input)`` and ``norm`` 1/numel for
'mean', computed in that order (soft_margin_loss_backward_out). The backward here is written with
the engine's differentiable ops, so create_graph works (its nodes are those ops', not torch's
SoftMarginLossBackwardBackward0).
"""
from __future__ import annotations

import numpy as np

from .. import errors
from ..autograd_modes import no_grad
from ..function import Function, record
from ..ops import elementwise_common as EC
from ..ops import unary_math as UM
from ..ops import words
from ..ops import reduction as R
from ..ops import shape as S
from ..ops.special_unary import log1p
from ..tensor import wrap
from .functional_loss import reduction_of
from .module import Module


class SoftMarginLossBackward0(Function):
    __slots__ = ()
    save_inputs = True
    explain = staticmethod(words.fixed("-y * sigmoid(-y * x) (over N for mean)"))

    @staticmethod
    def replay(xs, kw, outs):
        loss = np.logaddexp(0.0, -xs[1] * xs[0])
        r = kw["reduction"]
        return [np.asarray(loss if r == "none" else loss.sum() if r == "sum" else loss.mean()).reshape(outs[0])]

    def backward(self, g):
        x, t = self.saved
        reduction = self._kw["reduction"]
        if not self._fns[0]:
            return None, None
        shape = tuple(x.shape)
        if reduction != "none":
            g = S.expand(g, shape)
        z = UM.exp(-t * x)
        gi = t * z
        if reduction == "mean":
            n = int(np.prod(shape)) if shape else 1
            gi = gi * (-1.0 / n)
        else:
            gi = -gi
        return gi / (z + 1) * g, None


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = reduction_of(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise errors.value(f"{reduction} is not a valid value for reduction")
    if getattr(target, "requires_grad", False):
        raise errors.runtime("The function 'soft_margin_loss' is not differentiable with respect to argument "
                             "'target'. This input cannot have requires_grad True.")
    if not input.dtype.is_floating_point:  # ATen writes the float result into an input-typed output
        raise errors.runtime(f"result type Float can't be cast to the desired output type "
                             f"{EC.c10_name(input.dtype)}")
    with no_grad():
        t = target.to(input.dtype) if target.dtype is not input.dtype else target
        loss = log1p(UM.exp(-input * t))
        if tuple(loss.shape) != tuple(input.shape):
            raise errors.runtime(f"output with shape {list(input.shape)} doesn't match the broadcast shape "
                                 f"{list(loss.shape)}")
        if reduction == "mean":
            loss = R.mean(loss)
        elif reduction == "sum":
            loss = R.sum(loss)
    out = wrap(loss._data, input.dtype)
    return record(SoftMarginLossBackward0, (input, target), out, {"reduction": reduction})


class SoftMarginLoss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = reduction_of(reduction, size_average, reduce) \
            if size_average is not None or reduce is not None else reduction

    def forward(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


SoftMarginLoss.__module__ = "torch.nn.modules.loss"
