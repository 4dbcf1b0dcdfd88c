"""The aten ``*_backward`` functions that torch's first-order formulas call, each an op of its own.

derivatives.yaml gives tanh's derivative as ``tanh_backward(grad, result)``, relu's as
``threshold_backward(grad, result, 0)``, mse_loss's as ``mse_loss_backward(grad, self, target,
reduction)``: a kernel that computes the gradient in one go. Without create_graph only its value
matters; with it, the gradient's node is that function's own (TanhBackwardBackward0, ...), whose
edges go to the saved tensors, and its backward is derivatives.yaml's entry for the ``*_backward``
function (grad_output: the same function of the new gradient; self or output: the second derivative).

Each op below is one class: the node name, the forward on arrays (the kernel, computed as the
first-order formula always computed it: the values are bit for bit the same), the backward as
differentiable ops. The lower-case function next to it applies it (the inputs in torch's order:
grad_output first).
"""
from __future__ import annotations

import math

import numpy as np

from .. import gelu_kernel, numerics
from ..device import asarray as _asarray
from ..device import xp_of
from ..function import Function, record
from ..softmax_kernel import log_softmax_backward_lastdim, softmax_backward_lastdim
from ..tensor import wrap
from . import clamp_where as CW
from . import elementwise_common as EC
from . import unary_math as UM
from . import reduction as R
from .shape import sum_to


def _apply(cls, inputs, kw=None):
    """cls's forward on the inputs' arrays, recorded (a node only when some input requires grad
    with grad mode on, that is under create_graph). The result has grad_output's dtype."""
    dt = inputs[0].dtype
    r = cls.forward(*[t._data for t in inputs], **kw) if kw else cls.forward(*[t._data for t in inputs])
    r = _asarray(r)
    if r.dtype != dt.np:
        r = r.astype(dt.np)
    return record(cls, inputs, wrap(r, dt), kw)


def _needs(node, i):
    return node._fns[i] is not None


class _BackwardOp(Function):
    """A *_backward function: inputs (grad_output, saved tensors...), all saved."""
    __slots__ = ()
    save_inputs = True


# ---------------------------------------------------------------------------- tanh, sigmoid

class TanhBackwardBackward0(_BackwardOp):
    """tanh_backward(grad_output, output) = grad_output * (1 - output^2)."""
    __slots__ = ()

    @staticmethod
    def forward(g, y):
        if type(y) is np.ndarray and type(g) is np.ndarray and g.dtype == y.dtype:
            # torch's kernel: 1 - y * y rounded once (a fused multiply-add)
            wide = np.longdouble if y.dtype == np.float64 else np.float64
            return g * (1 - y.astype(wide) * y.astype(wide)).astype(y.dtype)
        return g * (1 - y * y)

    def backward(self, gg):
        grad_output, output = self.saved
        return (tanh_backward(gg, output) if _needs(self, 0) else None,
                gg * (-2 * output * grad_output) if _needs(self, 1) else None)


def tanh_backward(grad_output, output):
    return _apply(TanhBackwardBackward0, (grad_output, output))


class SigmoidBackwardBackward0(_BackwardOp):
    """sigmoid_backward(grad_output, output) = grad_output * (1 - output) * output."""
    __slots__ = ()

    @staticmethod
    def forward(g, y):
        return g * (1 - y) * y

    def backward(self, gg):
        grad_output, output = self.saved
        return (sigmoid_backward(gg, output) if _needs(self, 0) else None,
                gg * grad_output * (-2 * output + 1) if _needs(self, 1) else None)


def sigmoid_backward(grad_output, output):
    return _apply(SigmoidBackwardBackward0, (grad_output, output))


# ---------------------------------------------------------------------------- piecewise-linear activations

class ThresholdBackwardBackward0(_BackwardOp):
    """threshold_backward(grad_output, self, threshold): 0 where self <= threshold (relu: self is
    relu's result, threshold 0); a NaN self passes grad_output."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, threshold):
        return np.where(x <= threshold, 0.0, g)

    def backward(self, gg):
        _, x = self.saved
        return (threshold_backward(gg, x, self._kw["threshold"]) if _needs(self, 0) else None,
                EC.zero_grad(gg) if _needs(self, 1) else None)


def threshold_backward(grad_output, x, threshold):
    return _apply(ThresholdBackwardBackward0, (grad_output, x), {"threshold": threshold})


class HardtanhBackwardBackward0(_BackwardOp):
    """hardtanh_backward(grad_output, self, min_val, max_val): grad_output strictly inside."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, min_val, max_val):
        return np.where((x > min_val) & (x < max_val), g, 0.0)

    def backward(self, gg):
        _, x = self.saved
        k = self._kw
        return (hardtanh_backward(gg, x, k["min_val"], k["max_val"]) if _needs(self, 0) else None,
                EC.zero_grad(gg) if _needs(self, 1) else None)


def hardtanh_backward(grad_output, x, min_val, max_val):
    return _apply(HardtanhBackwardBackward0, (grad_output, x), {"min_val": min_val, "max_val": max_val})


class LeakyReluBackwardBackward0(_BackwardOp):
    """leaky_relu_backward(grad_output, self, negative_slope, self_is_result)."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, negative_slope):
        return np.where(x > 0, g, g * negative_slope)

    def backward(self, gg):
        _, x = self.saved
        return (_apply(type(self), (gg, x), self._kw) if _needs(self, 0) else None,
                EC.zero_grad(gg) if _needs(self, 1) else None)


def leaky_relu_backward(grad_output, x, negative_slope):
    return _apply(LeakyReluBackwardBackward0, (grad_output, x), {"negative_slope": negative_slope})


class RreluWithNoiseBackwardBackward0(LeakyReluBackwardBackward0):
    """rrelu_with_noise_backward outside training: leaky_relu_backward with the mean slope."""
    __slots__ = ()


def rrelu_with_noise_backward(grad_output, x, negative_slope):
    return _apply(RreluWithNoiseBackwardBackward0, (grad_output, x), {"negative_slope": negative_slope})


class SoftshrinkBackwardBackward0(_BackwardOp):
    """softshrink_backward(grad_output, self, lambd): 0 inside [-lambd, lambd]."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, lambd):
        return np.where((x >= -lambd) & (x <= lambd), 0.0, g)

    def backward(self, gg):
        _, x = self.saved
        return (_apply(type(self), (gg, x), self._kw) if _needs(self, 0) else None,
                EC.zero_grad(gg) if _needs(self, 1) else None)


class HardshrinkBackwardBackward0(SoftshrinkBackwardBackward0):
    """hardshrink_backward(grad_out, self, lambd): the same kernel as softshrink's."""
    __slots__ = ()


def softshrink_backward(grad_output, x, lambd):
    return _apply(SoftshrinkBackwardBackward0, (grad_output, x), {"lambd": lambd})


def hardshrink_backward(grad_output, x, lambd):
    return _apply(HardshrinkBackwardBackward0, (grad_output, x), {"lambd": lambd})


# ---------------------------------------------------------------------------- smooth activations

class EluBackwardBackward0(_BackwardOp):
    """elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result) (elu, selu,
    celu; is_result for the in-place forms, which save the result)."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, alpha, scale, input_scale, is_result):
        # torch's kernel: x <= 0 ? the negative side : grad * scale (a NaN x takes grad * scale)
        if is_result:
            return np.where(x <= 0, g * input_scale * (x + alpha * scale), g * scale)
        coef = input_scale * alpha * scale
        with np.errstate(over="ignore", invalid="ignore"):
            neg = g * coef * UM.ExpBackward0.forward(x * input_scale)
        return np.where(x <= 0, neg, g * scale)

    def backward(self, gg):
        grad_output, x = self.saved
        k = self._kw
        g_self = None
        if _needs(self, 1):  # elu_double_backward: only the negative side curves (0 at 0)
            scaled = gg * grad_output * k["input_scale"]
            g_self = (scaled if k["is_result"] else _apply(EluBackwardBackward0, (scaled, x), k)) * (x < 0)
        return (_apply(EluBackwardBackward0, (gg, x), k) if _needs(self, 0) else None, g_self)


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    return _apply(EluBackwardBackward0, (grad_output, self_or_result),
                  {"alpha": alpha, "scale": scale, "input_scale": input_scale, "is_result": is_result})


GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5
GELU_KAPPA = 0.044715
_GELU_ALPHA = (2.0 / math.sqrt(math.pi)) * math.sqrt(0.5) * 0.5


class GeluBackwardBackward0(_BackwardOp):
    """gelu_backward(grad_output, self, approximate): torch's formulas, in its order of operations."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, approximate):
        if approximate == "tanh":
            x_sq = x * x
            x_cube = x_sq * x
            inner = GELU_BETA * (x + GELU_KAPPA * x_cube)
            t = UM.TanhBackward0.forward(inner)
            left = 0.5 * x
            right = 1 + t
            left_derivative = 0.5 * right
            right_derivative = left * (1 - t * t) * (GELU_BETA * (1 + 3 * GELU_KAPPA * x_sq))
            return g * (left_derivative + right_derivative)
        if x.dtype in (np.float32, np.float16) and type(x) is np.ndarray and type(g) is np.ndarray:
            # oneDNN's or ATen's kernel: torch's bits
            return (gelu_kernel.gelu_backward32 if x.dtype == np.float32 else gelu_kernel.gelu_backward16)(g, x)
        from .special_unary import ErfBackward0  # noqa: PLC0415 - special applies this module's ops
        cdf = 0.5 * (1 + ErfBackward0.forward(x * math.sqrt(0.5)))
        pdf = _GELU_ALPHA * UM.ExpBackward0.forward(x * x * -0.5)
        return g * (cdf + x * pdf)

    def backward(self, gg):
        grad_output, x = self.saved
        approximate = self._kw["approximate"]
        g_self = None
        if _needs(self, 1):  # gelu_double_backward
            if approximate == "tanh":
                from .special_unary import cosh  # noqa: PLC0415 - special applies this module's ops
                inner = GELU_BETA * (x + GELU_KAPPA * x * x * x)
                t = UM.tanh(inner)
                sech = 1 / cosh(inner)
                f = 0.5 * x
                gt = 1 - t * t
                h = GELU_BETA * (1 + 3 * GELU_KAPPA * x * x)
                f_prime_gh = 0.5 * gt * h
                g_prime_fh = f * h * ((2 * sech) * (-sech * t) * h)
                h_prime_fg = f * gt * (6 * GELU_KAPPA * x * GELU_BETA)
                g_self = gg * grad_output * (f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg)
            else:
                x_sq = x * x
                pdf = _GELU_ALPHA * UM.exp(-0.5 * x_sq)
                g_self = gg * grad_output * (2 * pdf - x_sq * pdf)
        return (gelu_backward(gg, x, approximate) if _needs(self, 0) else None, g_self)


def gelu_backward(grad_output, x, approximate):
    return _apply(GeluBackwardBackward0, (grad_output, x), {"approximate": approximate})


class SoftplusBackwardBackward0(_BackwardOp):
    """softplus_backward(grad_output, self, beta, threshold): grad_output * sigmoid(beta * x), and
    grad_output itself above the threshold."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, beta, threshold):
        xb = x * beta
        with np.errstate(over="ignore", invalid="ignore"):
            z = UM.ExpBackward0.forward(xb)
            return np.where(xb > threshold, g, g * z / (z + 1))

    def backward(self, gg):
        grad_output, x = self.saved
        k = self._kw
        g_self = None
        if _needs(self, 1):  # softplus_double_backward(gg * grad_output, self, beta, threshold)
            xb = x * k["beta"]
            g_self = EC.mul_scalar(sigmoid_backward(gg * grad_output, UM.sigmoid(xb)) * (xb < k["threshold"]), k["beta"])
        return (softplus_backward(gg, x, k["beta"], k["threshold"]) if _needs(self, 0) else None, g_self)


def softplus_backward(grad_output, x, beta, threshold):
    return _apply(SoftplusBackwardBackward0, (grad_output, x), {"beta": beta, "threshold": threshold})


class LogSigmoidBackwardBackward0(_BackwardOp):
    """log_sigmoid_backward(grad_output, self, buffer) = grad_output * sigmoid(-self)."""
    __slots__ = ()

    @staticmethod
    def forward(g, x):
        return g * UM.SigmoidBackward0.forward(-x)

    def backward(self, gg):
        grad_output, x = self.saved
        g_self = None
        if _needs(self, 1):  # log_sigmoid_double_backward(gg * grad_output, self)
            z = UM.sigmoid(x)
            g_self = gg * grad_output * (z - 1) * z
        return (log_sigmoid_backward(gg, x) if _needs(self, 0) else None, g_self)


def log_sigmoid_backward(grad_output, x):
    return _apply(LogSigmoidBackwardBackward0, (grad_output, x))


class HardswishBackwardBackward0(_BackwardOp):
    """hardswish_backward(grad_output, self): 0 up to -3 included, grad_output from 3 included."""
    __slots__ = ()

    @staticmethod
    def forward(g, x):
        return np.where(x <= -3.0, 0.0, np.where(x < 3.0, g * (x / 3.0 + 0.5), g))

    def backward(self, gg):
        grad_output, x = self.saved
        g_self = None
        if _needs(self, 1):
            g_self = CW.where((x > -3.0) & (x < 3.0), gg * grad_output / 3.0, 0.0)
        return (hardswish_backward(gg, x) if _needs(self, 0) else None, g_self)


def hardswish_backward(grad_output, x):
    return _apply(HardswishBackwardBackward0, (grad_output, x))


class GluBackwardBackward0(_BackwardOp):
    """glu_backward(grad_output, self, dim): sigmoid(b) * g on the first half, (1 - s) * s * a * g on
    the second; its derivatives are torch's glu_double_backward_grad_output and glu_double_backward."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, dim):
        n = x.shape[dim] // 2
        lead = (slice(None),) * dim
        a, b = x[lead + (slice(0, n),)], x[lead + (slice(n, 2 * n),)]
        s = numerics.sigmoid(b)
        return np.concatenate([s * g, (1 - s) * s * a * g], axis=dim)

    def backward(self, gg):
        from .join_split import cat, narrow  # noqa: PLC0415
        g, x = self.saved
        d = self._kw["dim"]
        n = x.shape[d] // 2
        gg_out = gx = None
        if _needs(self, 0):
            from ..factory import ones_like  # noqa: PLC0415
            tmp = gg * glu_backward(ones_like(g), x, d)
            gg_out = narrow(tmp, d, 0, n) + narrow(tmp, d, n, n)
        if _needs(self, 1):
            a, s = narrow(x, d, 0, n), UM.sigmoid(narrow(x, d, n, n))
            one_sub = 1 - s
            sig_one_sub = s * one_sub
            gg_a, gg_b = narrow(gg, d, 0, n), narrow(gg, d, n, n)
            second_order = sig_one_sub * one_sub - s * sig_one_sub
            gx = cat([gg_b * g * sig_one_sub, gg_b * a * g * second_order + gg_a * g * sig_one_sub], d)
        return gg_out, gx


def glu_backward(grad_output, x, dim):
    return _apply(GluBackwardBackward0, (grad_output, x), {"dim": dim})


# ---------------------------------------------------------------------------- softmax, log_softmax

def _keep(dim, ndim):
    return (dim,) if ndim else ()


def _lastdim32(g, y, dim):
    """float32 over the last dim: ATen's _vec_host_softmax_backward_lastdim (softmax_kernel.py)."""
    return (type(g) is np.ndarray and type(y) is np.ndarray and g.dtype == np.float32 and y.dtype == np.float32
            and y.ndim >= 1 and dim == y.ndim - 1 and g.shape == y.shape and y.size > 0)


class SoftmaxBackwardDataBackward0(_BackwardOp):
    """_softmax_backward_data(grad_output, output, dim) = output * (grad_output - sum(grad_output * output))."""
    __slots__ = ()

    @staticmethod
    def forward(g, y, dim):
        if _lastdim32(g, y, dim):
            return softmax_backward_lastdim(g, y)
        s = numerics.torch_sum(g * y, _keep(dim, y.ndim), True, y.dtype)
        return y * (g - s)

    def backward(self, gg):
        grad_output, output = self.saved
        d = self._kw["dim"]
        g_out = None
        if _needs(self, 1):  # softmax_double_backward(gg, grad_output, dim, output)
            g_out = (grad_output * gg - R.sum(output * grad_output, d, True) * gg
                     - grad_output * R.sum(output * gg, d, True))
        return (softmax_backward_data(gg, output, d) if _needs(self, 0) else None, g_out)


def softmax_backward_data(grad_output, output, dim):
    return _apply(SoftmaxBackwardDataBackward0, (grad_output, output), {"dim": dim})


class LogSoftmaxBackwardDataBackward0(_BackwardOp):
    """_log_softmax_backward_data(grad_output, output, dim) = grad_output - exp(output) * sum(grad_output)."""
    __slots__ = ()

    @staticmethod
    def forward(g, y, dim):
        if _lastdim32(g, y, dim):
            return log_softmax_backward_lastdim(g, y)
        return g - UM.ExpBackward0.forward(y) * numerics.torch_sum(g, _keep(dim, y.ndim), True, g.dtype)

    def backward(self, gg):
        grad_output, output = self.saved
        d = self._kw["dim"]
        return (gg - R.sum(gg * UM.exp(output), d, True) if _needs(self, 0) else None,
                -R.sum(grad_output, d, True) * UM.exp(output) * gg if _needs(self, 1) else None)


def log_softmax_backward_data(grad_output, output, dim):
    return _apply(LogSoftmaxBackwardDataBackward0, (grad_output, output), {"dim": dim})


# ---------------------------------------------------------------------------- losses

class MseLossBackwardBackward0(_BackwardOp):
    """mse_loss_backward(grad_output, self, target, reduction) = norm * (self - target) * grad_output,
    norm = 2 / numel for 'mean' (computed in double, rounded to the dtype), else 2: torch's kernel, in
    its order; the target's gradient is mse_loss_backward(grad, target, self, ...)."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, t, reduction):
        if x.dtype != g.dtype or t.dtype != g.dtype:
            x, t = x.astype(g.dtype, copy=False), t.astype(g.dtype, copy=False)  # the loss's dtype
        n = math.prod(x.shape)  # (an empty loss: torch's 2. / 0 is inf in double; nothing is multiplied by it)
        norm = g.dtype.type(2.0 / n if reduction == "mean" and n else 2.0)
        if type(x) is np.ndarray:  # norm as a 0-d array: the same product, without a scalar conversion per call
            return np.multiply(np.asarray(norm), x - t) * g
        return (norm * (x - t)) * g

    def backward(self, gg):
        grad_output, x, t = self.saved
        reduction = self._kw["reduction"]
        g_x = None
        if _needs(self, 1) or _needs(self, 2):  # mse_loss_double_backward(gg * grad_output, self, reduction)
            g_x = gg * grad_output * 2
            if reduction == "mean":
                g_x = g_x / math.prod(x.shape)
        # grad_output is 0-d for 'mean' and 'sum': its gradient is summed to its shape (as torch's engine does)
        g_out = sum_to(mse_loss_backward(gg, x, t, reduction), grad_output.shape) if _needs(self, 0) else None
        return (g_out, g_x if _needs(self, 1) else None, -g_x if _needs(self, 2) else None)


def mse_loss_backward(grad_output, x, target, reduction):
    return _apply(MseLossBackwardBackward0, (grad_output, x, target), {"reduction": reduction})


class NllLossBackwardBackward0(_BackwardOp):
    """nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight): the
    output gradient times nll_loss's constant coefficients (-weight / total weight at the targets, 0
    elsewhere; coef, computed by nll_loss). Its derivative in self is zero, in grad_output the sum of
    the new gradient times the coefficients over the class dim (torch: nll_loss of it)."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, coef, reduction, class_dim, at=None):
        if reduction == "none" and g.ndim:
            g = np.expand_dims(g, class_dim)
        r = coef * g
        if at is not None:  # torch writes the targets of the valid samples only: +0. elsewhere, whatever g
            r = xp_of(r).where(at, r, 0).astype(r.dtype, copy=False)
        return r

    def backward(self, gg):
        k = self._kw
        g_out = None
        if _needs(self, 0):
            coef = gg * wrap(k["coef"], gg.dtype)
            g_out = R.sum(coef, k["class_dim"]) if k["reduction"] == "none" and coef.ndim > 1 else R.sum(coef)
        return (g_out, EC.zero_grad(gg) if _needs(self, 1) else None)


def nll_loss_backward(grad_output, x, coef, reduction, class_dim, at=None):
    return _apply(NllLossBackwardBackward0, (grad_output, x),
                  {"coef": coef, "reduction": reduction, "class_dim": class_dim, "at": at})


def _loss_grad_output(g, x, t, reduction):
    """The loss's arrays in grad_output's dtype, and grad_output divided by numel for 'mean'."""
    x, t = x.astype(g.dtype, copy=False), t.astype(g.dtype, copy=False)
    if reduction == "mean":
        g = g / g.dtype.type(math.prod(x.shape))
    return g, x - t


class SmoothL1LossBackwardBackward0(_BackwardOp):
    """smooth_l1_loss_backward(grad_output, self, target, reduction, beta): grad_output times -1,
    (self - target) / beta or 1 (/ numel for 'mean'); the target's gradient swaps self and target."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, t, reduction, beta):
        g, d = _loss_grad_output(g, x, t, reduction)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(d < -beta, -1.0, np.where(d > beta, 1.0, d / beta)) * g

    def backward(self, gg):
        grad_output, x, t = self.saved
        reduction, beta = self._kw["reduction"], self._kw["beta"]
        g_x = None
        if _needs(self, 1) or _needs(self, 2):  # smooth_l1_loss_double_backward(gg * grad_output, ...)
            grad = gg * grad_output
            if beta == 0:
                g_x = EC.zero_grad(grad)
            else:
                g_x = grad * (UM.abs(x - t) < beta) / beta
                if reduction == "mean":
                    g_x = g_x / math.prod(x.shape)
        g_out = sum_to(smooth_l1_loss_backward(gg, x, t, reduction, beta), grad_output.shape) \
            if _needs(self, 0) else None
        return (g_out, g_x if _needs(self, 1) else None, -g_x if _needs(self, 2) else None)


def smooth_l1_loss_backward(grad_output, x, target, reduction, beta):
    return _apply(SmoothL1LossBackwardBackward0, (grad_output, x, target), {"reduction": reduction, "beta": beta})


class HuberLossBackwardBackward0(_BackwardOp):
    """huber_loss_backward(grad_output, self, target, reduction, delta): grad_output times -delta,
    self - target or delta (/ numel for 'mean'); the target's gradient swaps self and target."""
    __slots__ = ()

    @staticmethod
    def forward(g, x, t, reduction, delta):
        g, d = _loss_grad_output(g, x, t, reduction)
        return np.where(d < -delta, -delta, np.where(d > delta, delta, d)) * g

    def backward(self, gg):
        grad_output, x, t = self.saved
        reduction, delta = self._kw["reduction"], self._kw["delta"]
        g_x = None
        if _needs(self, 1) or _needs(self, 2):  # huber_loss_double_backward(gg * grad_output, ...)
            g_x = gg * grad_output * (UM.abs(x - t) < delta)
            if reduction == "mean":
                g_x = g_x / math.prod(x.shape)
        g_out = None
        if _needs(self, 0):  # huber_loss_double_backward_grad_output
            if reduction == "none":
                g_out = huber_loss_backward(gg, x, t, reduction, delta)
            else:
                from ..factory import ones_like  # noqa: PLC0415
                g_out = R.sum(huber_loss_backward(ones_like(grad_output), x, t, reduction, delta) * gg)
        return (g_out, g_x if _needs(self, 1) else None, -g_x if _needs(self, 2) else None)


def huber_loss_backward(grad_output, x, target, reduction, delta):
    return _apply(HuberLossBackwardBackward0, (grad_output, x, target), {"reduction": reduction, "delta": delta})
