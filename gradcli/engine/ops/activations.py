"""The piecewise activation functions (elu/selu/celu, leaky_relu, rrelu, hardtanh/relu6,
hardsigmoid, hardswish, threshold, soft/hardshrink), with how an activation runs in place or
refuses a double backward: plain functions with torch.nn.functional's signatures, so that
`torch.nn.functional` binds them (the special family's FUNCTIONAL), and their declarations (OPS).
The smooth ones (softplus, gelu, silu, mish, ..., glu) are activations_smooth.py's.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors, numerics
from ..autograd import NotImplementedNode, make_node
from ..function import Function, record
from ..tensor import wrap
from . import backward_ops as B
from .clamp_where import where
from .registry import V, case, op, sample1
from .special_common import (
    SELU_ALPHA,
    SELU_SCALE,
    inplace_call,
    inplace_method,
    maybe_inplace,
    need_float,
    not_implemented,
    wrap_as,
)

# ---------------------------------------------------------------------------- activations

class _BackwardNotDifferentiable(NotImplementedNode):
    """The node of a gradient torch cannot differentiate again (its backward kernel has no formula)."""
    __slots__ = ()

    def backward(self, grad):
        raise errors.runtime(f"derivative for {self._opname} is not implemented")


def _no_double_backward(opname, inputs, compute):
    """compute() without a graph; under create_graph the result gets a node that refuses to go on."""
    from ..autograd_modes import grad_mode  # noqa: PLC0415
    if not grad_mode.enabled or not any(t._rg for t in inputs):
        return compute()
    grad_mode.enabled = False
    try:
        r = compute()
    finally:
        grad_mode.enabled = True
    node = make_node(_BackwardNotDifferentiable, inputs, r.dtype)
    node._opname = opname
    r._rg = True
    r.grad_fn = node
    return r


def _inplace_node(input, compute, cls, kw):
    """An activation applied in place: the node (cls, e.g. EluBackward1) reads the result."""
    from .indexing import check_inplace  # noqa: PLC0415
    check_inplace(input)
    r = compute(input._data)
    input._data[...] = r
    input._version[0] += 1
    out = wrap(input._data, input.dtype)
    out._version = input._version
    record(cls, (input,), out, kw)
    if out.grad_fn is not None:
        input.grad_fn = out.grad_fn
        input._output_nr = 0
        input._rg = True
        # the node reads the result: the tensor itself, at its new version
        from ..autograd import SavedValue  # noqa: PLC0415
        input.grad_fn._saved = (SavedValue(input, True),)
    return input


class EluBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} > 0, else elu({a}) + alpha"
    replay = staticmethod(lambda xs, kw, outs: [_elu_np(xs[0], kw["alpha"], kw["scale"], kw["input_scale"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        k = self._kw
        return (B.elu_backward(g, k["alpha"], k["scale"], k["input_scale"], False, x),)


class EluBackward1(Function):
    """elu in place: the formula reads the result."""
    __slots__ = ()
    explain = "1 where {a} > 0, else elu({a}) + alpha"
    replay = staticmethod(lambda xs, kw, outs: [_elu_np(xs[0], kw["alpha"], kw["scale"], kw["input_scale"])])
    save_output = True

    def backward(self, g):
        (result,) = self.saved[-1:]
        k = self._kw
        return (B.elu_backward(g, k["alpha"], k["scale"], k["input_scale"], True, result),)


class CeluBackward0(EluBackward0):
    __slots__ = ()
    explain = "1 where {a} > 0, else exp({pa} / alpha)"


class CeluBackward1(EluBackward1):
    __slots__ = ()
    explain = "1 where {a} > 0, else exp({pa} / alpha)"


def _elu_np(x, alpha, scale, input_scale):
    if x.dtype == np.float16:  # ATen's elu kernel computes a Half in float
        return _elu_np(x.astype(np.float32), alpha, scale, input_scale).astype(np.float16)
    with np.errstate(all="ignore"):
        neg = numerics.ufunc(np.expm1)(x * input_scale) * (alpha * scale)
    return np.where(x > 0, x * scale, neg)


def _elu(input, alpha, scale, input_scale, inplace, classes):
    need_float(input, "elu_cpu")
    kw = {"alpha": alpha, "scale": scale, "input_scale": input_scale}
    if inplace:
        return _inplace_node(input, lambda a: _elu_np(a, alpha, scale, input_scale), classes[1], kw)
    r = _elu_np(input._data, alpha, scale, input_scale)
    return record(classes[0], (input,), wrap_as(r, input.dtype), kw)


def elu(input, alpha=1.0, inplace=False):
    return _elu(input, alpha, 1.0, 1.0, inplace, (EluBackward0, EluBackward1))


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    return _elu(input, SELU_ALPHA, SELU_SCALE, 1.0, inplace, (EluBackward0, EluBackward1))


def selu_(input):
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise errors.runtime("ZeroDivisionError")
    return _elu(input, alpha, 1.0, 1.0 / alpha, inplace, (CeluBackward0, CeluBackward1))


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


class LeakyReluBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} > 0, else the negative slope"
    replay = staticmethod(lambda xs, kw, outs: [_leaky_np(xs[0], kw["negative_slope"])])
    save_inputs = True
    kernel = staticmethod(B.leaky_relu_backward)

    def backward(self, g):
        (x,) = self.saved
        return (self.kernel(g, x, self._kw["negative_slope"]),)


class LeakyReluBackward1(Function):
    __slots__ = ()
    explain = "1 where {a} > 0, else the negative slope"
    replay = staticmethod(lambda xs, kw, outs: [_leaky_np(xs[0], kw["negative_slope"])])
    save_output = True
    kernel = staticmethod(B.leaky_relu_backward)

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (self.kernel(g, result, self._kw["negative_slope"]),)


def _leaky_np(x, slope):
    return np.where(x > 0, x, x * slope)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    need_float(input, "leaky_relu_cpu")
    kw = {"negative_slope": negative_slope}
    if inplace:
        return _inplace_node(input, lambda a: _leaky_np(a, negative_slope), LeakyReluBackward1, kw)
    return record(LeakyReluBackward0, (input,), wrap_as(_leaky_np(input._data, negative_slope), input.dtype), kw)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


class RreluWithNoiseBackward0(LeakyReluBackward0):
    """rrelu outside training: a leaky relu with the mean slope."""
    __slots__ = ()
    kernel = staticmethod(B.rrelu_with_noise_backward)


class RreluWithNoiseBackward1(LeakyReluBackward1):
    __slots__ = ()
    kernel = staticmethod(B.rrelu_with_noise_backward)


def _rrelu_noise(input, lower, upper):
    """rrelu_with_noise's training kernel: for each element <= 0 in order, one
    uniform_real_distribution<double>(lower, upper) draw of the default generator (random64's 53 bits
    * 2**-53 * (upper - lower) + lower), rounded to the input's type; 1 elsewhere."""
    from ..device import host, like  # noqa: PLC0415
    from ..rng_ops import gen_for, uniform53  # noqa: PLC0415
    if float(lower) > float(upper):
        raise errors.runtime("Lower bound should be less than or equal to the upper bound")
    x = np.ascontiguousarray(host(input._data))
    neg = (x <= 0).reshape(-1)
    r = uniform53(gen_for(None, input.device), int(neg.sum()))
    r *= float(upper) - float(lower)
    r += float(lower)
    noise = np.ones(x.size, x.dtype)
    noise[neg] = r.astype(x.dtype)
    return like(input._data, noise.reshape(x.shape), x.dtype)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    need_float(input, "leaky_relu_cpu")
    # in training the slope is the drawn noise (an array): the same nodes, whose backward is grad * noise
    slope = _rrelu_noise(input, lower, upper) if training else (lower + upper) / 2
    kw = {"negative_slope": slope}
    if inplace:
        return _inplace_node(input, lambda a: _leaky_np(a, slope), RreluWithNoiseBackward1, kw)
    return record(RreluWithNoiseBackward0, (input,), wrap_as(_leaky_np(input._data, slope), input.dtype), kw)


class HardtanhBackward0(Function):
    __slots__ = ()
    explain = "1 inside [min, max], else 0"
    replay = staticmethod(lambda xs, kw, outs: [np.clip(xs[0], kw["min_val"], kw["max_val"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.hardtanh_backward(g, x, self._kw["min_val"], self._kw["max_val"]),)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return maybe_inplace(_hardtanh, input, inplace, min_val, max_val)


def _hardtanh(input, min_val, max_val):
    if input.dtype is dtypes.bool_:
        raise errors.runtime("Bool inputs not supported for hardtanh")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    r = np.minimum(np.maximum(input._data, min_val), max_val)
    out = wrap_as(r, input.dtype)
    if input.dtype.is_floating_point:
        out = record(HardtanhBackward0, (input,), out, {"min_val": min_val, "max_val": max_val})
    return out


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


class HardsigmoidBackward0(Function):
    __slots__ = ()
    explain = "1/6 where -3 < {a} < 3, else 0"
    replay = staticmethod(lambda xs, kw, outs: [np.clip(xs[0] / 6 + 0.5, 0, 1)])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (_no_double_backward("aten::hardsigmoid_backward", (g, x),
                                    lambda: where((x > -3.0) & (x < 3.0), g * (1.0 / 6.0), 0.0)),)


def hardsigmoid(input, inplace=False):
    return maybe_inplace(_hardsigmoid, input, inplace)


def _hardsigmoid(input):
    need_float(input, "hardsigmoid_cpu")
    x = input._data
    r = np.minimum(np.maximum(x + 3, 0), 6) / 6
    return record(HardsigmoidBackward0, (input,), wrap_as(r, input.dtype))


class HardswishBackward0(Function):
    __slots__ = ()
    explain = "(2 * {a} + 3) / 6 where -3 < {a} < 3, 1 above, 0 below"
    replay = staticmethod(lambda xs, kw, outs: [xs[0] * np.clip(xs[0] + 3, 0, 6) / 6])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.hardswish_backward(g, x),)


def hardswish(input, inplace=False):
    return maybe_inplace(_hardswish, input, inplace)


def _hardswish(input):
    need_float(input, "hardswish_cpu")
    x = input._data
    if x.dtype == np.float16:  # ATen's hardswish kernel computes a Half in float
        x = x.astype(np.float32)
    r = x * np.minimum(np.maximum(x + 3, 0), 6) / 6
    return record(HardswishBackward0, (input,), wrap_as(r, input.dtype))


class ThresholdBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} > threshold, else 0"
    replay = staticmethod(lambda xs, kw, outs: [np.where(xs[0] <= kw["threshold"], kw["value"], xs[0])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.threshold_backward(g, x, self._kw["threshold"]),)


class ThresholdBackward1(ThresholdBackward0):
    """threshold_ (in place): the same formula on the original input."""
    __slots__ = ()


def threshold(input, threshold, value, inplace=False):
    if inplace:
        return inplace_method(_threshold, "threshold_", ThresholdBackward1)(input, threshold, value)
    return _threshold(input, threshold, value)


def _threshold(input, threshold, value):
    if input.dtype is dtypes.bool_:
        raise not_implemented("threshold_cpu", input.dtype)
    out = wrap_as(np.where(input._data <= threshold, np.asarray(value).astype(input._data.dtype)[()], input._data),
               input.dtype)
    if input.dtype.is_floating_point:
        out = record(ThresholdBackward0, (input,), out, {"threshold": threshold, "value": value})
    return out


def threshold_(input, threshold_value, value):
    return threshold(input, threshold_value, value, inplace=True)


class SoftshrinkBackward0(Function):
    __slots__ = ()
    explain = "1 where |{a}| > lambd, else 0"
    replay = staticmethod(lambda xs, kw, outs: [_softshrink_np(xs[0], kw["lambd"])])
    save_inputs = True
    kernel = staticmethod(B.softshrink_backward)

    def backward(self, g):
        (x,) = self.saved
        return (self.kernel(g, x, self._kw["lambd"]),)


class HardshrinkBackward0(SoftshrinkBackward0):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.where(np.abs(xs[0]) > kw["lambd"], xs[0], 0.0)])
    kernel = staticmethod(B.hardshrink_backward)


def _softshrink_np(x, lambd):
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0))


def softshrink(input, lambd=0.5):
    need_float(input, "softshrink_check")
    if lambd < 0:
        raise errors.runtime(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    r = _softshrink_np(input._data, lambd)
    return record(SoftshrinkBackward0, (input,), wrap_as(r, input.dtype), {"lambd": lambd})


def hardshrink(input, lambd=0.5):
    need_float(input, "hardshrink_cpu")
    x = input._data
    r = np.where((x >= -lambd) & (x <= lambd), 0, x)
    return record(HardshrinkBackward0, (input,), wrap_as(r, input.dtype), {"lambd": lambd})


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


# ---------------------------------------------------------------------------- declarations

OPS = [
    # activations
    op("hardshrink", hardshrink, HardshrinkBackward0, functional=True, sample=sample1("any", 0.2),
       cases={"hardshrink": case(lambda torch, x0: torch.nn.functional.hardshrink(x0), V.WIDE)}),
    op("softshrink", softshrink, SoftshrinkBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"softshrink": case(lambda torch, x0: torch.nn.functional.softshrink(x0), V.WIDE)}),
    op("elu", elu, EluBackward0, EluBackward1, method=False, torch=False, functional=True, sample=sample1(),
       cases={"elu": case(lambda torch, x0: torch.nn.functional.elu(x0), V.WIDE),
              "elu_inplace": case(lambda torch, x: torch.nn.functional.elu(x * 1, inplace=True), V.WIDE)}),
    op("elu_", elu_, EluBackward1, method=False, torch=False, functional=True, sample=sample1(
        call=inplace_call("elu_", "F"))),
    op("selu", selu, EluBackward0, EluBackward1, method=False, functional=True, sample=sample1(),
       cases={"selu": case(lambda torch, x0: torch.nn.functional.selu(x0), V.WIDE)}),
    op("selu_", selu_, EluBackward1, method=False, functional=True, sample=sample1(call=inplace_call("selu_"))),
    op("celu", celu, CeluBackward0, CeluBackward1, method=False, functional=True, sample=sample1(),
       cases={"celu": case(lambda torch, x: torch.nn.functional.celu(x, 2.0), V.WIDE)}),
    op("celu_", celu_, CeluBackward1, method=False, functional=True, sample=sample1(call=inplace_call("celu_")),
       cases={"celu_inplace": case(lambda torch, x: torch.celu_(x * 1), V.WIDE)}),
    op("leaky_relu", leaky_relu, LeakyReluBackward0, LeakyReluBackward1, method=False, torch=False,
       functional=True, sample=sample1("any", 0.2),
       cases={"leaky_relu": case(lambda torch, x: torch.nn.functional.leaky_relu(x, 0.2), V.WIDE),
              "leaky_relu_inplace": case(lambda torch, x: torch.nn.functional.leaky_relu(x * 1, 0.1, inplace=True), V.WIDE)}),
    op("leaky_relu_", leaky_relu_, LeakyReluBackward1, method=False, torch=False, functional=True,
       sample=sample1(call=inplace_call("leaky_relu_", "F"))),
    op("rrelu", rrelu, RreluWithNoiseBackward0, RreluWithNoiseBackward1, method=False, functional=True,
       sample=sample1(),
       cases={"rrelu_eval": case(lambda torch, x: torch.nn.functional.rrelu(x, training=False), V.WIDE)}),
    op("rrelu_", rrelu_, RreluWithNoiseBackward1, method=False, functional=True,
       sample=sample1(call=inplace_call("rrelu_"))),
    op("hardtanh", hardtanh, HardtanhBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"hardtanh": case(lambda torch, x0: torch.nn.functional.hardtanh(x0), V.WIDE)}),
    op("hardtanh_", hardtanh_, HardtanhBackward0, method=False, torch=False, functional=True,
       sample=sample1(call=inplace_call("hardtanh_", "F"))),
    op("relu6", relu6, HardtanhBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"relu6": case(lambda torch, x0: torch.nn.functional.relu6(x0), [-1.0, 2.5, 6.5])}),
    op("hardsigmoid", hardsigmoid, HardsigmoidBackward0, method=False, torch=False, functional=True,
       sample=sample1(second=False),
       cases={"hardsigmoid": case(lambda torch, x0: torch.nn.functional.hardsigmoid(x0), V.WIDE, second=False)}),  # torch's hardsigmoid_backward has no derivative
    op("hardswish", hardswish, HardswishBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"hardswish": case(lambda torch, x0: torch.nn.functional.hardswish(x0), V.WIDE)}),
    op("threshold", threshold, ThresholdBackward0, method=False, functional=True, sample=sample1("any", 0.1, 2.0),
       cases={"threshold": case(lambda torch, x: torch.nn.functional.threshold(x, 0.1, 2.0), V.WIDE)}),
    op("threshold_", threshold_, ThresholdBackward1, method=False, functional=True,
       sample=sample1(call=lambda torch, x: torch.threshold_(x * 1, 0.1, 2.0))),
]
