"""torch.nn.functional losses: the nodes torch records (MseLossBackward0, BinaryCrossEntropyBackward0,
...) and the composites torch builds from ordinary ops (l1_loss, kl_div); nll_loss and cross_entropy
are functional_nll.py's."""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes, errors, numerics, rng_math
from ..argcheck import int64_args
from ..autograd import SavedValue, forward_level
from ..autograd_modes import grad_mode, no_grad
from ..function import Function, record, record2
from ..ops import arithmetic as AR
from ..ops import clamp_where as CW
from ..ops import elementwise_common as EC
from ..ops import unary_math as UM
from ..ops import replays, words
from ..ops import reduction as R
from ..ops import shape as S
from ..tensor import Tensor, wrap
from ..ops.backward_ops import MseLossBackwardBackward0, huber_loss_backward, mse_loss_backward, smooth_l1_loss_backward
from ..ops.norms import norm, vector_norm
from ..ops.activations_smooth import logsigmoid
from ..ops.special_xlog import xlogy
from ..device import asarray as _asarray
from ..device import check_same, xp_of

# ---------------------------------------------------------------------------- reduction plumbing

_REDUCTIONS = ("none", "mean", "sum")


def reduction_of(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        sa = True if size_average is None else size_average
        rd = True if reduce is None else reduce
        reduction = "mean" if (sa and rd) else ("sum" if rd else "none")
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      "instead.", UserWarning, stacklevel=3)
    # torch's _Reduction.get_enum, its comparisons in its order (an object equal to every string is 'none')
    if reduction == "none":
        return "none"
    if reduction == "mean":
        return "mean"
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      UserWarning, stacklevel=3)
        return "mean"
    if reduction == "sum":
        return "sum"
    raise errors.value(f"{reduction} is not a valid value for reduction")


_MEAN = {"reduction": "mean"}  # the kw of a 'mean' loss's node (shared: a node's kw is never changed)


def _reduce_array(loss, reduction, dt):
    if reduction == "none":
        return _asarray(loss, dt.np)
    if reduction == "sum":
        if type(loss) is np.ndarray:  # torch's sum (cascade order), not NumPy's pairwise one
            return _asarray(numerics.torch_sum(loss), dt.np)
        return _asarray(loss.sum(dtype=dt.np), dt.np)
    if loss.size == 0:
        return xp_of(loss).full((), np.nan, dt.np)
    if type(loss) is np.ndarray:
        # torch's loss.mean(): its sum in the cascade order (not NumPy's pairwise one, which differs
        # in the last bit for some lengths, e.g. mse_loss of 8 values), divided by the count
        return numerics.torch_mean(loss if loss.dtype == dt.np else loss.astype(dt.np))
    return _asarray(loss.mean(dtype=dt.np), dt.np)


def _grad_scale(g, shape, reduction):
    """The output gradient spread over the elementwise loss (divided by n for 'mean')."""
    if reduction == "none":
        return g
    g = S.expand(g, shape)
    if reduction == "mean":
        n = int(np.prod(shape)) if len(shape) else 1
        return g / n
    return g


def _size_warning(input, target):
    if (target._data.shape != input._data.shape if type(target) is Tensor and type(input) is Tensor
            else tuple(target.shape) != tuple(input.shape)):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", UserWarning, stacklevel=3)


def broadcast_shapes(*shapes):
    """torch.broadcast_shapes (torch._refs._broadcast_shapes), with its error text."""
    from ..size import Size  # noqa: PLC0415
    common = [1] * max(len(s) for s in shapes)
    for arg_idx, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common[idx]:
                continue
            if common[idx] == 1:
                common[idx] = shape[idx]
            elif shape[idx] != 1:
                raise errors.runtime(f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! "
                                     f"Mismatching argument at index {arg_idx} had {Size(shape)}; but expected "
                                     f"shape should be broadcastable to {common}")
    return tuple(common)


def broadcast_pair(a, b):
    """torch.broadcast_tensors for two tensors: expand (ExpandBackward0) only where shapes differ."""
    if type(a) is Tensor and type(b) is Tensor and a._data.shape == b._data.shape:
        return a, b
    try:
        shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        raise EC.broadcast_error(a, b) from None
    if tuple(a.shape) != shape:
        a = S.expand(a, shape)
    if tuple(b.shape) != shape:
        b = S.expand(b, shape)
    return a, b


def _pair_dtype(a, b):
    dt = getattr(a, "dtype", None)
    if dt is getattr(b, "dtype", None) and isinstance(dt, dtypes.dtype) and dt.category == dtypes.FLOAT:
        return dt
    dt = dtypes.result_type((a, b))
    if not dt.is_floating_point:
        dt = dtypes.defaults.float
    return dt


def _arr(t, dt):
    return t._data if t.dtype is dt else t._data.astype(dt.np)


def _needs(node, i):
    return node._fns[i] is not None  # next_functions[i][0], without building the pairs


# ---------------------------------------------------------------------------- regression losses

class _PairLoss(Function):
    """A loss of (input, target) with a reduction: subclasses give the elementwise loss (on arrays);
    their backward is the loss's aten *_backward op (ops/backward_ops.py), for the input and the target."""
    __slots__ = ()
    save_inputs = True


class MseLossBackward0(_PairLoss):
    __slots__ = ()
    explain = staticmethod(words.mse)

    def backward(self, g):
        # torch's formulas: self: mse_loss_backward(grad, self, target), target: mse_loss_backward(grad, target,
        # self), each the op of its own: its kernel on the arrays (MseLossBackwardBackward0 under create_graph)
        saved = self._saved
        if saved is not None and len(saved) == 2:  # self.saved's checks, inline
            x, t = saved
            if x.__class__ is SavedValue and x.tensor._version[0] == x.version \
                    and t.__class__ is SavedValue and t.tensor._version[0] == t.version:
                x, t = x.tensor, t.tensor
            else:
                x, t = self.saved  # (raises: modified in place; or unpacks what saved tensors' hooks packed)
        else:
            x, t = self.saved  # (raises: freed)
        reduction = self._kw["reduction"]
        G, X, T = g._data, x._data, t._data
        if not grad_mode.enabled and type(G) is np.ndarray and type(X) is np.ndarray and type(T) is np.ndarray \
                and X.dtype == T.dtype == G.dtype:
            # no graph to build: the kernel on the arrays (what mse_loss_backward's op computes)
            fwd, dt = _mse_backward, g.dtype
            nf = self._fns
            return (wrap(fwd(G, X, T, reduction), dt) if nf[0] is not None else None,
                    wrap(fwd(G, T, X, reduction), dt) if nf[1] is not None else None)
        return (mse_loss_backward(g, x, t, reduction) if _needs(self, 0) else None,
                mse_loss_backward(g, t, x, reduction) if _needs(self, 1) else None)

    @staticmethod
    def elementwise(x, t, k):
        d = x - t
        d *= d  # into the fresh difference: the same product, one array less
        return d


def _mse_backward(G, X, T, reduction):
    """MseLossBackwardBackward0.forward(G, X, T, reduction) for arrays of one dtype: csrc/engine.c's
    mse_backward for a 0-d G and C-contiguous float32/float64 X and T (one call), else that forward."""
    kern = numerics.kernels() if G.ndim == 0 and X.size else None
    if kern is not None:
        out = np.empty(X.shape, X.dtype)
        norm = 2.0 / X.size if reduction == "mean" else 2.0
        try:
            kern.mse_backward(X, T, norm, float(G), out)
            return out
        except ValueError:  # not C-contiguous, or float16
            pass
    return MseLossBackwardBackward0.forward(G, X, T, reduction)


class SmoothL1LossBackward0(_PairLoss):
    __slots__ = ()
    explain = staticmethod(words.fixed("(x - y) / beta where |x - y| < beta, else sign(x - y) (over N for mean); the opposite for the target"))

    @staticmethod
    def elementwise(x, t, k):
        beta = k["beta"]
        z = np.abs(x - t)
        return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)

    def backward(self, g):  # torch: self: smooth_l1_loss_backward(grad, self, target), target: (grad, target, self)
        x, t = self.saved
        k = self._kw
        return (smooth_l1_loss_backward(g, x, t, k["reduction"], k["beta"]) if _needs(self, 0) else None,
                smooth_l1_loss_backward(g, t, x, k["reduction"], k["beta"]) if _needs(self, 1) else None)


class HuberLossBackward0(_PairLoss):
    __slots__ = ()
    explain = staticmethod(words.fixed("x - y where |x - y| < delta, else delta * sign(x - y) (over N for mean); the opposite for the target"))

    @staticmethod
    def elementwise(x, t, k):
        delta = k["delta"]
        z = np.abs(x - t)
        return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))

    def backward(self, g):  # torch: self: huber_loss_backward(grad, self, target), target: (grad, target, self)
        x, t = self.saved
        k = self._kw
        return (huber_loss_backward(g, x, t, k["reduction"], k["delta"]) if _needs(self, 0) else None,
                huber_loss_backward(g, t, x, k["reduction"], k["delta"]) if _needs(self, 1) else None)


def _pair_loss(cls, input, target, reduction, **extra):
    if type(input._data) is not type(target._data):
        check_same((input, target))  # TensorIterator's rule and message
        target = target.to(input.device) if input.is_cuda else target
        input = input.to(target.device)
    input, target = broadcast_pair(input, target)
    dt = _pair_dtype(input, target)
    kw = {"reduction": reduction, **extra}
    loss = cls.elementwise(_arr(input, dt), _arr(target, dt), kw)
    return record(cls, (input, target), wrap(_reduce_array(loss, reduction, dt), dt), kw)


def _weighted(elementwise, weight, input, reduction):
    if tuple(weight.shape) != tuple(input.shape):
        raise errors.value("Weights and input must have the same size.")
    w = elementwise * weight
    if reduction == "none":
        return w
    if reduction == "sum":
        return R.sum(w)
    if reduction == "mean":
        return R.sum(w) / R.sum(weight)
    raise errors.value(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _mse_mean(x, t, dt):
    """((x - t) ** 2).mean() of two NumPy arrays of dtype dt and one shape, torch's order: csrc/engine.c's
    mse_mean for small C-contiguous float32/float64 ones (one call), else the squares and torch_mean."""
    kern = numerics.kernels() if x.size < numerics.GRAIN_SIZE else None
    if kern is not None:
        try:
            return np.asarray(kern.mse_mean(x, t, numerics.VEC_BYTES), dt.np)
        except ValueError:  # not C-contiguous, or float16
            pass
    return _reduce_array(MseLossBackward0.elementwise(x, t, None), "mean", dt)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if type(reduction) is str and reduction == "mean" and size_average is None and reduce is None and weight is None \
            and type(input) is Tensor and type(target) is Tensor:
        # the training loop's case: _pair_loss's work inline for two NumPy arrays of one float dtype and shape
        x, t, dt = input._data, target._data, input.dtype
        if type(x) is np.ndarray and type(t) is np.ndarray and x.shape == t.shape and x.size \
                and target.dtype is dt and dt.category == dtypes.FLOAT:
            out = wrap(_mse_mean(x, t, dt), dt)
            if (grad_mode.enabled and (input._rg or target._rg)) or forward_level[0] is not None:
                record2(MseLossBackward0, input, target, out, _MEAN)  # (and a forward-AD level's tangent)
            return out
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = reduction_of(reduction, size_average, reduce)
    if weight is not None:
        a, b = broadcast_pair(input, target)
        return _weighted(AR.pow(a - b, 2), weight, input, reduction)
    return _pair_loss(MseLossBackward0, input, target, reduction_of(reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = reduction_of(reduction, size_average, reduce)
    a, b = broadcast_pair(input, target)
    if weight is not None:
        return _weighted(UM.abs(a - b), weight, input, reduction)
    reduction = reduction_of(reduction)
    return _apply_reduction(UM.abs(a - b), reduction)


def _apply_reduction(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return R.sum(loss)
    return R.mean(loss)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _size_warning(input, target)
    reduction = reduction_of(reduction, size_average, reduce)
    if beta < 0:
        raise errors.runtime("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        a, b = broadcast_pair(input, target)
        return _apply_reduction(UM.abs(a - b), reduction)
    return _pair_loss(SmoothL1LossBackward0, input, target, reduction, beta=float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _size_warning(input, target)
    if delta <= 0:
        raise errors.runtime("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        un = _pair_loss(HuberLossBackward0, input, target, "none", delta=float(delta))
        if tuple(weight.shape) != tuple(input.shape):
            raise errors.value("Weights and input must have the same size.")
        wl = un * weight
        if reduction == "none":
            return wl
        if reduction == "sum":
            return R.sum(wl)
        if reduction == "mean":
            return R.mean(wl)
        raise errors.value(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return _pair_loss(HuberLossBackward0, input, target, reduction_of(reduction), delta=float(delta))


# ---------------------------------------------------------------------------- binary cross entropy

class BinaryCrossEntropyBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed("(x - y) / (x * (1 - x)) (over N for mean); log((1 - x) / x) for the target"))
    save_inputs = True
    replay = staticmethod(replays.bce)

    def backward(self, g):
        x, t = self.saved
        w = self._kw["weight"]
        red = self._kw["reduction"]
        ge = _grad_scale(g, tuple(x.shape), red)
        gi = gt = None
        if _needs(self, 0):
            # binary_cross_entropy_backward_out_cpu: the output gradient as it is, the weight, then the
            # division by numel for 'mean' (scaling the gradient first rounds differently)
            gi = _grad_scale(g, tuple(x.shape), "none" if red == "none" else "sum") * (x - t) \
                / CW.clamp((1 - x) * x, min=1e-12)
            if w is not None:
                gi = gi * w
            if red == "mean":
                gi = gi / (int(np.prod(tuple(x.shape))) if x.dim() else 1)
        if _needs(self, 1):
            gt = ge * (UM.log(1 - x) - UM.log(x))
            if w is not None:
                gt = gt * w
        return gi, gt


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = reduction_of(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise errors.value(f"Using a target size ({target.shape}) that is different to the input size "
                           f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        shape = broadcast_shapes(target.shape, weight.shape)
        weight = S.expand(weight, shape) if tuple(weight.shape) != shape else weight
    dt = input.dtype
    if target.dtype is not dt:
        raise errors.runtime(f"Found dtype {EC.c10_name(target.dtype)} but expected {EC.c10_name(dt)}")
    x = input._data
    if ((x < 0) | (x > 1)).any() or np.isnan(x).any():
        raise errors.runtime("all elements of input should be between 0 and 1")
    t = _arr(target, dt)
    if type(x) is np.ndarray and x.dtype in (np.float32, np.float64):
        # binary_cross_entropy_out_cpu's scalar loop: the C library's log1p and log (logf, log1pf in float)
        if x.dtype == np.float32:
            l1p, lg = rng_math.libm_f32("log1pf", -x), rng_math.libm_f32("logf", x)
        else:  # math.log(0) raises where C returns -inf: only inputs inside the domain go to libm
            l1p = np.where(x < 1, rng_math.libm("log1p", np.where(x < 1, -x, 0.0)), -np.inf)
            lg = np.where(x > 0, rng_math.libm("log", np.where(x > 0, x, 1.0)), -np.inf)
        loss = (t - 1) * np.maximum(l1p, x.dtype.type(-100)) - t * np.maximum(lg, x.dtype.type(-100))
    else:
        loss = (t - 1) * np.maximum(np.log1p(-x), -100) - t * np.maximum(np.log(x), -100)
    if weight is not None:
        loss = loss * _arr(weight, dt)
    out = wrap(_reduce_array(loss, reduction, dt), dt)
    return record(BinaryCrossEntropyBackward0, (input, target), out, {"reduction": reduction, "weight": weight})


class BinaryCrossEntropyWithLogitsBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed("sigmoid(x) - y (over N for mean); -x for the target"))
    save_inputs = True
    replay = staticmethod(replays.bce_logits)

    def backward(self, g):
        x, t = self.saved
        w, pw = self._kw["weight"], self._kw["pos_weight"]
        red = self._kw["reduction"]
        ge = _grad_scale(g, tuple(x.shape), red)
        gi = gt = None
        if _needs(self, 0):
            if pw is not None:
                tt = pw * t
                gi = ((tt + 1 - t) * UM.sigmoid(x) - tt) * ge
            else:
                gi = (UM.sigmoid(x) - t) * ge
            if w is not None:
                gi = gi * w
        if _needs(self, 1):
            if pw is not None:
                gt = (logsigmoid(-x) - logsigmoid(x) * pw) * ge
            else:
                gt = -x * ge
            if w is not None:
                gt = gt * w
        return gi, gt


def _bce_logits_weight_shapes(shape, weight, pos_weight):
    """ATen's errors for a weight or pos_weight that does not fit the input's shape: (pos_weight - 1) *
    target, then (1 - target).mul_(...).sub_(log_weight * log_sigmoid(input)) and loss.mul_(weight), in place
    (an operand that broadcasts to a larger shape is refused by the in-place op)."""
    for w, first in ((pos_weight, True), (weight, False)):
        if w is None:
            continue
        ws = tuple(getattr(w, "shape", ()))
        try:
            both = tuple(np.broadcast_shapes(ws, shape))
        except ValueError:
            a, b = (ws, shape) if first else (shape, ws)
            raise errors.runtime(errors.broadcast_mismatch(a, b)) from None
        if both != shape:
            raise errors.runtime(f"output with shape {list(shape)} doesn't match the broadcast shape {list(both)}")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = reduction_of(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise errors.value(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    dt = dtypes.result_type((input, target))
    if not target.dtype.is_floating_point:
        raise errors.runtime(f"result type {EC.c10_name(dt)} can't be cast to the desired output type "
                             f"{EC.c10_name(target.dtype)}")
    _bce_logits_weight_shapes(tuple(input.shape), weight, pos_weight)
    x = _arr(input, dt)
    t = _arr(target, dt)
    ls = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    if pos_weight is not None:
        ls = ls * ((_arr(pos_weight, dt) - 1) * t + 1)
    loss = (1 - t) * x - ls
    if weight is not None:
        loss = loss * _arr(weight, dt)
    out = wrap(_reduce_array(_asarray(loss, dt.np), reduction, dt), dt)
    return record(BinaryCrossEntropyWithLogitsBackward0, (input, target), out,
                  {"reduction": reduction, "weight": weight, "pos_weight": pos_weight})


# ---------------------------------------------------------------------------- kl_div

def kl_div_core(input, target, reduction, log_target):
    """torch.kl_div (ATen): the pointwise loss and a plain reduction."""
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise errors.runtime("kl_div: Integral inputs not supported.")
    if log_target:
        out = UM.exp(target) * (target - input)
    else:
        out = xlogy(target, target) - target * input
    return _apply_reduction(out, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        red = reduction_of(reduction, size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          UserWarning, stacklevel=2)
        red = "sum" if reduction == "batchmean" else reduction_of(reduction)
    out = kl_div_core(input, target, red, log_target)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.shape[0]
    return out


# ---------------------------------------------------------------------------- similarity & friends

def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    a, b = broadcast_pair(x1, x2)
    n1 = vector_norm(a, 2, dim=dim, keepdim=True).clone()
    n2 = vector_norm(b, 2, dim=dim, keepdim=True).clone()
    with no_grad():
        n1._data = np.maximum(n1._data, eps).astype(n1._data.dtype)
        n1._version[0] += 1
        n2._data = np.maximum(n2._data, eps).astype(n2._data.dtype)
        n2._version[0] += 1
    return R.sum((a / n1) * (b / n2), dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    from ..ops.norms import aten_norm  # noqa: PLC0415
    return aten_norm(x1 - x2 + eps, p, -1, keepdim)  # at::pairwise_distance: at::norm (NormBackward1)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = CW.clamp_min(norm(input, p, dim, keepdim=True), eps).expand_as(input)
    return input / denom


def one_hot(tensor, num_classes=-1):
    int64_args(num_classes)  # the parser's int: 2**64 is its ValueError, not the element limit's
    if not isinstance(tensor, Tensor) or tensor.dtype is not dtypes.int64:
        raise errors.runtime("one_hot is only applicable to index tensor of type LongTensor.")
    t = tensor._data
    if t.size == 0:
        if num_classes == -1:
            raise errors.runtime("Can not infer total number of classes from empty tensor.")
        n = num_classes
    else:
        if t.min() < 0:
            raise errors.runtime("Class values must be non-negative.")
        if num_classes == -1:
            n = int(t.max()) + 1
        else:
            if t.max() >= num_classes:
                raise errors.runtime("Class values must be smaller than num_classes.")
            n = num_classes
    from ..limits import check_numel  # noqa: PLC0415
    check_numel(t.size * n)
    out = (t[..., None] == xp_of(t).arange(n)).astype(np.int64)
    return wrap(out, dtypes.int64)
