"""torch.nn.functional's nll_loss and cross_entropy: the NllLossBackward0/NllLoss2DBackward0 nodes
(ATen's summation order for a batch: nll_loss_out_frame's cascade) and the compositions cross_entropy
records (log_softmax then nll_loss; class probabilities and label smoothing from ordinary ops)."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..device import asarray as _asarray
from ..device import check_args, xp_of
from ..function import Function, record
from ..ops import arithmetic as AR
from ..ops import comparison as CP
from ..ops import elementwise_common as EC
from ..ops import reduction as R
from ..ops import softmax as SM
from ..ops import replays, words
from ..ops import shape as S
from ..ops.backward_ops import nll_loss_backward
from ..ops.elementwise_common import c10_name
from ..tensor import wrap
from .functional_loss import reduction_of


class NllLossBackward0(Function):
    """The gradient is a constant coefficient array times the output gradient: torch's nll_loss_backward,
    an op of its own (NllLossBackwardBackward0 under create_graph), which takes self (saved, as torch)."""
    __slots__ = ()
    save_inputs = True
    explain = staticmethod(words.fixed("-1 at each row's target class (divided by the batch size for mean), 0 elsewhere"))
    replay = staticmethod(replays.nll)

    def backward(self, g):
        (x,) = self.saved
        k = self._kw
        return (nll_loss_backward(g, x, k["coef"], k["reduction"], k["class_dim"], k.get("at")),)


class NllLoss2DBackward0(NllLossBackward0):
    __slots__ = ()
    replay = staticmethod(replays.nll)


def _check_target_dtype(target):
    if target.dtype.name not in ("int64", "uint8"):
        raise errors.runtime(f"expected target dtype to be Long or Byte, but got {c10_name(target.dtype)}")


def _nll_core(cls, input, target, weight, reduction, ignore_index):
    """input (N, C, *) or (C,); target (N, *) or (). Forward on arrays, constant-coefficient backward."""
    if type(input._data) is not type(target._data) or weight is not None and type(weight._data) is not type(
            input._data):
        check_args("nll_loss_forward" if cls is NllLossBackward0 else "_nll_loss2d_forward",
                   (("self", input), ("target", target), ("weight", weight)))
    x = input._data
    dt = input.dtype
    C = x.shape[1] if x.ndim >= 2 else x.shape[0]
    if weight is not None and (weight._data.ndim != 1 or weight._data.size != C):
        raise errors.runtime(f"weight tensor should be defined either for all {C} classes or no classes but got "
                             f"weight tensor of shape: [{', '.join(map(str, weight.shape))}]")
    if weight is not None and weight.dtype is not dt:
        raise errors.runtime(f"expected scalar type {c10_name(dt)} but found {c10_name(weight.dtype)}")
    t = target._data.astype(np.int64)
    w_all = weight._data.astype(dt.np) if weight is not None else xp_of(x).ones(C, dt.np)
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= C))
    if bad.any():
        raise errors.index(f"Target {int(t[bad].flat[0])} is out of bounds.")
    ts = np.where(valid, t, 0)
    w = np.where(valid, w_all[ts], 0).astype(dt.np)
    if x.ndim == 1:
        picked = x[ts]
        cls_dim = 0
    else:
        picked = np.take_along_axis(x, np.expand_dims(ts, 1), axis=1).squeeze(1)
        cls_dim = 1
    losses = (-picked * w).astype(dt.np)
    if not valid.all():  # an ignored sample's loss is +0. (nll_loss_out_frame writes 0)
        losses = np.where(valid, losses, 0).astype(dt.np)
    coef = np.zeros_like(x)
    at = xp_of(x).zeros(x.shape, bool)  # where nll_loss_backward writes (-w * grad): the valid samples' targets
    if reduction == "none":
        out = losses
        scale = -w
    elif reduction == "sum":
        if _cascade_case(x, dt):
            out = _asarray(_nll_cascade(picked.astype(dt.np), w if weight is not None else None, valid)[1], dt.np)
        else:
            out = _asarray(losses.sum(dtype=dt.np), dt.np)
        scale = -w
    else:
        if _cascade_case(x, dt):
            total, loss_sum = _nll_cascade(picked.astype(dt.np), w if weight is not None else None, valid)
            if weight is None:
                total = dt.np.type(int(valid.sum()))
        else:
            total, loss_sum = w.sum(dtype=dt.np), losses.sum(dtype=dt.np)
        out = _asarray(loss_sum / total, dt.np)
        scale = -w / total
    if x.ndim == 1:
        coef[ts] = scale
        at[ts] = valid
    else:
        np.put_along_axis(coef, np.expand_dims(ts, 1), np.expand_dims(_asarray(scale, dt.np), 1), axis=1)
        np.put_along_axis(at, np.expand_dims(ts, 1), np.expand_dims(valid, 1), axis=1)
    kw = {"coef": coef.astype(dt.np), "dtype": dt, "reduction": reduction, "class_dim": cls_dim,
          "at": None if at.sum() == x.size else at}
    return record(cls, (input,), wrap(_asarray(out, dt.np), dt), kw)


def _cascade_case(x, dt):
    return x.ndim == 2 and type(x) is np.ndarray and dt.np in (np.float32, np.float64)


def _nll_cascade(picked, w, valid):
    """nll_loss_out_frame's sums over a batch (aten/src/ATen/native/LossNLL.cpp): 8 levels of partial
    sums in the dtype; each sample's -x (or -x * w) goes into level 0, which is folded upwards while the
    sample's index has zero bits at that level (4 bits a level); ignored samples are skipped without a
    fold; the result adds the levels from 0 up.  Returns (total weight, loss sum)."""
    f = picked.dtype.type
    lw = [f(0)] * 8
    ll = [f(0)] * 8
    ok = valid.tolist()
    xs = picked.tolist()
    ws = w.tolist() if w is not None else None
    for b in range(len(xs)):
        if not ok[b]:
            continue
        if ws is None:
            ll[0] = f(ll[0] - f(xs[b]))
        else:
            wv = f(ws[b])
            ll[0] = f(ll[0] - f(xs[b]) * wv)
            lw[0] = f(lw[0] + wv)
        for j in range(7):
            if b & (15 << (4 * j)):
                break
            lw[j + 1] = f(lw[j + 1] + lw[j])
            ll[j + 1] = f(ll[j + 1] + ll[j])
            lw[j] = ll[j] = f(0)
    tw = tl = f(0)
    for j in range(8):
        tw = f(tw + lw[j])
        tl = f(tl + ll[j])
    return tw, tl


def nll_loss_nd(input, target, weight=None, reduction="mean", ignore_index=-100):
    if input.dim() < 1:
        raise errors.value(f"Expected 1 or more dimensions (got {input.dim()})")
    target_batch = target.shape[0] if target.dim() else 0  # torch's message says 0 for a 0-d target
    if input.dim() != 1 and input.shape[0] != target_batch:
        raise errors.value(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                           f"({target_batch}).")
    _check_target_dtype(target)
    nd = input.dim()
    if nd <= 2:
        if target.dim() > 1:
            raise errors.runtime("0D or 1D target tensor expected, multi-target not supported")
        if nd == 1 and target.dim() == 1 and target.shape[0] != 1:
            raise errors.value(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
        return _nll_core(NllLossBackward0, input, target, weight, reduction, ignore_index)
    n, c = input.shape[0], input.shape[1]
    if nd == 4:
        if tuple(target.shape) != (n,) + tuple(input.shape[2:]):
            raise errors.runtime(_size_mismatch(input, target))
        return _nll_core(NllLoss2DBackward0, input, target, weight, reduction, ignore_index)
    out_size = (n,) + tuple(input.shape[2:])
    if tuple(target.shape) != out_size:
        raise errors.runtime(f"Expected target size {list(out_size)}, got {list(target.shape)}".replace(
            "[", "[").replace("]", "]"))
    if nd == 3:
        inp = S.view(input, (n, c, input.shape[2], 1))
        tgt = target.view(n, target.shape[1], 1)
    else:
        inp = S.view(input.contiguous(), (n, c, 1, -1))
        tgt = target.contiguous().view(n, 1, -1)
    r = _nll_core(NllLoss2DBackward0, inp, tgt, weight, reduction, ignore_index)
    if reduction == "none":
        return S.view(r, out_size)
    return r


def _size_mismatch(input, target):
    return (f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
            f"{target.dim()}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = reduction_of(reduction, size_average, reduce)
    return nll_loss_nd(input, target, weight, reduction, ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    reduction = reduction_of(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise errors.runtime(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    class_dim = 0 if input.dim() == 1 else 1
    n_classes = input.shape[class_dim] if input.dim() else 1
    if tuple(input.shape) == tuple(target.shape):  # torch: same shapes are class probabilities
        if not target.dtype.is_floating_point:
            raise errors.runtime(f"Expected floating point type for target with class probabilities, got "
                                 f"{c10_name(target.dtype)}")
        if ignore_index != -100:
            raise errors.runtime("ignore_index is not supported for floating point target")
        if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
            raise errors.runtime(f"cross_entropy: weight tensor should be defined either for all {n_classes} "
                                 f"classes or no classes but got weight tensor of shape: "
                                 f"[{', '.join(map(str, weight.shape))}]")
        logp = SM.log_softmax(input, class_dim, dtype=input.dtype)
        tgt = target
        if label_smoothing > 0.0:
            tgt = tgt * (1 - label_smoothing) + (label_smoothing / n_classes)
        prod = logp * tgt
        if weight is not None:
            shape = [1] * input.dim()
            shape[class_dim] = n_classes
            prod = prod * weight.view(shape)
        if reduction == "mean":
            if input.numel() == 0:
                return -R.sum(prod) * float("nan")
            return EC.div_scalar(-R.sum(prod), input.numel() // n_classes)
        if reduction == "sum":
            return -R.sum(prod)
        return -R.sum(prod, class_dim)
    logp = SM.log_softmax(input, class_dim, dtype=input.dtype)
    if label_smoothing > 0.0:
        _check_target_dtype(target)
        nll = nll_loss_nd(logp, target, weight, reduction, ignore_index)
        ignore_mask = CP.eq(target, ignore_index)
        if weight is not None:
            shape = [1] * input.dim()
            shape[class_dim] = n_classes
            smooth = -R.sum(logp * weight.view(shape), class_dim)
        else:
            smooth = -R.sum(logp, class_dim)
        smooth = smooth.masked_fill(ignore_mask, 0.0)
        if reduction == "mean":
            if weight is not None:
                keep = CP.logical_not(ignore_mask)
                sel = target[keep].flatten()
                ret = R.sum(smooth) / R.sum(weight.gather(0, sel))
            else:
                ret = R.sum(smooth) / R.sum(CP.logical_not(ignore_mask))
        elif reduction == "sum":
            ret = R.sum(smooth)
        else:
            ret = smooth
        return AR.add(EC.mul_scalar(nll, 1 - label_smoothing), EC.mul_scalar(ret, label_smoothing / n_classes))
    return nll_loss_nd(logp, target, weight, reduction, ignore_index)
