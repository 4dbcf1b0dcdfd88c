"""Binary elementwise extras of the special family: atan2, hypot, logaddexp, fmod, copysign, ...,
lerp, addcmul, addcdiv, nan_to_num and logit, with their declarations (OPS); xlogy and xlog1py are
special_xlog.py's.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..argcheck import invalid_combination, is_scalar
from ..torch_signatures import SIGNATURES
from ..function import Function, inference_leaf, out_variant, record, wrapped_number
from ..limits import check_broadcast
from ..tensor import Tensor, wrap
from . import arithmetic as AR
from . import comparison as CP
from . import elementwise_common as EC
from . import unary_math as UM
from .clamp_where import where, zero_ties
from .elementwise_common import binary, needs_input_grad, operand, shaped
from .registry import Sample, V, case, op, sample1, sample2
from .shape import sum_to
from .special_common import IP, TIP, not_implemented, wrap_as

# ---------------------------------------------------------------------------- binary

class Atan2Backward0(Function):
    __slots__ = ()
    explain = ("{b} / ({pa}**2 + {pb}**2)", "-{pa} / ({pa}**2 + {pb}**2)")
    save_inputs = True
    forward = staticmethod(np.arctan2)

    def backward(self, g):
        a, b = self.saved
        recip = UM.reciprocal(a * a + b * b)
        from .gather_scatter import masked_fill  # noqa: PLC0415 - indexing is imported after this module
        recip = masked_fill(recip, CP.isinf(recip), 0)  # torch masks the origin: gradients 0 (and -0.) there, not NaN
        ga = g * b * recip if needs_input_grad(self, 0) else None
        gb = g * -a * recip if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


def atan2(input, other):
    if not isinstance(other, Tensor):
        raise errors.type_error(f"atan2(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return binary(Atan2Backward0, input, other, compute_dtype=EC.float_division)


arctan2 = atan2


class HypotBackward0(Function):
    __slots__ = ()
    explain = ("{pa} / hypot({a}, {b})", "{pb} / hypot({a}, {b})")
    save_inputs = True
    save_output = True
    forward = staticmethod(np.hypot)

    def backward(self, g):
        a, b, result = self.saved
        ga = g * a / result if needs_input_grad(self, 0) else None
        gb = g * b / result if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


def _binary_float_only(cls, input, other, kernel):
    other = operand(other)
    dt = dtypes.result_type((input, other))
    if not dt.is_floating_point:
        raise not_implemented(kernel, dt)
    return binary(cls, input, other)


def hypot(input, other):
    if not isinstance(other, Tensor):
        raise errors.type_error(f"hypot(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _binary_float_only(HypotBackward0, input, other, "hypot_cpu")


class LogaddexpBackward0(Function):
    __slots__ = ()
    explain = ("1 / (1 + exp({pb} - {pa}))", "1 / (1 + exp({pa} - {pb}))")
    save_inputs = True
    forward = staticmethod(np.logaddexp)

    def backward(self, g):
        a, b = self.saved
        ga = g / EC.add_scalar(UM.exp(b - a), 1) if needs_input_grad(self, 0) else None
        gb = g / EC.add_scalar(UM.exp(a - b), 1) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


class Logaddexp2Backward0(Function):
    __slots__ = ()
    explain = ("1 / (1 + 2**({pb} - {pa}))", "1 / (1 + 2**({pa} - {pb}))")
    save_inputs = True
    forward = staticmethod(np.logaddexp2)

    def backward(self, g):
        a, b = self.saved
        ga = g / (1 + AR.pow(2, b - a)) if needs_input_grad(self, 0) else None
        gb = g / (1 + AR.pow(2, a - b)) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


def logaddexp(input, other):
    if not isinstance(other, Tensor):
        raise errors.type_error(f"logaddexp(): argument 'other' (position 2) must be Tensor, not "
                                f"{type(other).__name__}")
    return _binary_float_only(LogaddexpBackward0, input, other, "logaddexp_cpu")


def logaddexp2(input, other):
    if not isinstance(other, Tensor):
        raise errors.type_error(f"logaddexp2(): argument 'other' (position 2) must be Tensor, not "
                                f"{type(other).__name__}")
    return _binary_float_only(Logaddexp2Backward0, input, other, "logaddexp2_cpu")


class FmodBackward0(Function):
    """fmod(tensor, number)."""
    __slots__ = ()
    explain = "1"
    replay = staticmethod(lambda xs, kw, outs: [np.fmod(xs[0], kw["other"])])

    def backward(self, g):
        return (g,)


class FmodBackward1(Function):
    __slots__ = ()
    explain = ("1", "-trunc({pa} / {pb})")
    replay = staticmethod(lambda xs, kw, outs: [np.fmod(xs[0], xs[1])])
    save_inputs = True
    save_when = ((1,), (1,))  # derivatives.yaml: only other's gradient reads them

    def backward(self, g):
        a, b = self.saved
        gb = -g * AR.div(a, b, rounding_mode="trunc") if needs_input_grad(self, 1) else None
        return shaped(g, a), shaped(gb, b)


def _fmod_np(a, b):
    return np.fmod(a, b)


def fmod(input, other):
    other = operand(other)
    dt = dtypes.result_type((input, other))
    if dt is dtypes.bool_:
        raise EC.bool_kernel_error("fmod_cpu", input, other)
    x, y = EC.binary_operands(input, other, dt)
    if not dt.is_floating_point and np.any(np.equal(y, 0)):
        try:
            empty = 0 in np.broadcast_shapes(np.shape(x), np.shape(y))
        except ValueError:
            raise EC.broadcast_error(input, other) from None
        if not empty:
            raise errors.runtime("ZeroDivisionError")
    try:
        r = _fmod_np(x, y)
    except ValueError:
        raise EC.broadcast_error(input, other) from None
    out = wrap_as(r, dt)
    if not isinstance(other, Tensor):
        if inference_leaf(input):  # fmod.Scalar's kernel: fmod(input, wrapped number), a normal input
            return record(FmodBackward1, (input, wrapped_number(other)), out)
        return record(FmodBackward0, (input,), out, {"other": other})
    return record(FmodBackward1, (input, other), out)


class CopysignBackward0(Function):
    __slots__ = ()
    explain = ("sign({a}) * sign({b}) (0 where {a} == 0)", "0")
    replay = staticmethod(lambda xs, kw, outs: [np.copysign(xs[0], xs[1])])
    save_inputs = True
    save_output = True
    other_unsaved = True  # torch saves only other's shape: x.copysign_(x) keeps no alias of x (inplace._keep_original)

    def backward(self, g):
        a, b, result = self.saved
        ga = _copysign_grad(g, a, result) if needs_input_grad(self, 0) else None
        gb = AR.mul(b, 0.0) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


class CopysignBackward1(Function):
    __slots__ = ()
    explain = "sign({a}) * sign({kw[other]}) (0 where {a} == 0)"
    replay = staticmethod(lambda xs, kw, outs: [np.copysign(xs[0], kw["other"])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        a, result = self.saved
        return (_copysign_grad(g, a, result),)


def _copysign_grad(g, a, result):
    ratio = where(a == 0, 0.0, result / a)
    return g * ratio


def copysign(input, other):
    other = operand(other)
    dt = EC.float_division(dtypes.result_type((input, other)))
    x, y = EC.binary_operands(input, other, dt)
    try:
        r = np.copysign(x, y)
    except ValueError:
        raise EC.broadcast_error(input, other) from None
    out = wrap_as(r, dt)
    if not isinstance(other, Tensor):
        if inference_leaf(input):  # copysign.Scalar's kernel: copysign(input, wrapped number)
            return record(CopysignBackward0, (input, wrapped_number(other)), out)
        return record(CopysignBackward1, (input,), out, {"other": other})
    return record(CopysignBackward0, (input, other), out)


class FmaxBackward0(Function):
    __slots__ = ()
    explain = ("1 where {a} >= {b} or {b} is NaN, else 0", "1 where {a} < {b} or {a} is NaN, else 0")
    save_inputs = True
    forward = staticmethod(lambda x, y: zero_ties(x, y, np.fmax(x, y), False))

    def backward(self, g):
        a, b = self.saved
        keep_a = (a >= b) | CP.isnan(b)
        ga = where(keep_a, g, 0.0) if needs_input_grad(self, 0) else None
        gb = where(keep_a, 0.0, g) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


class FminBackward0(Function):
    __slots__ = ()
    explain = ("1 where {a} <= {b} or {b} is NaN, else 0", "1 where {a} > {b} or {a} is NaN, else 0")
    save_inputs = True
    forward = staticmethod(lambda x, y: zero_ties(x, y, np.fmin(x, y), False))

    def backward(self, g):
        a, b = self.saved
        keep_a = (a <= b) | CP.isnan(b)
        ga = where(keep_a, g, 0.0) if needs_input_grad(self, 0) else None
        gb = where(keep_a, 0.0, g) if needs_input_grad(self, 1) else None
        return shaped(ga, a), shaped(gb, b)


def fmax(input, other):
    return binary(FmaxBackward0, input, other)


def fmin(input, other):
    return binary(FminBackward0, input, other)


def float_power(input, exponent):
    if isinstance(input, Tensor):
        input = input.to(dtypes.float64)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(dtypes.float64)
    return AR.pow(input, exponent)


# ---------------------------------------------------------------------------- lerp, addcmul, addcdiv

class LerpBackward0(Function):
    """lerp(start, end, number)."""
    __slots__ = ()
    explain = ("1 - {kw[weight]}", "{kw[weight]}")
    replay = staticmethod(lambda xs, kw, outs: [xs[0] + kw["weight"] * (xs[1] - xs[0])])

    def backward(self, g):
        w = self._kw["weight"]
        s_shape, e_shape = self._kw["shapes"]
        gs = sum_to(EC.mul_scalar(g, 1 - w), s_shape) if needs_input_grad(self, 0) else None  # torch: grad * (1 - weight)
        ge = sum_to(EC.mul_scalar(g, w), e_shape) if needs_input_grad(self, 1) else None
        return gs, ge


class LerpBackward1(Function):
    """lerp(start, end, weight tensor)."""
    __slots__ = ()
    explain = ("1 - {pc}", "{c}", "{pb} - {pa}")
    replay = staticmethod(lambda xs, kw, outs: [xs[0] + xs[2] * (xs[1] - xs[0])])
    save_inputs = True

    def backward(self, g):
        s, e, w = self.saved
        gs = shaped(g * (1 - w), s) if needs_input_grad(self, 0) else None
        ge = shaped(g * w, e) if needs_input_grad(self, 1) else None
        gw = shaped(g * (e - s), w) if needs_input_grad(self, 2) else None
        return gs, ge, gw


def lerp(input, end, weight):
    if not isinstance(end, Tensor) or not (isinstance(weight, Tensor) or is_scalar(weight)):
        # torch's argument parser (torch.lerp's form: the Tensor method's lists its signatures without input)
        raise invalid_combination("lerp", SIGNATURES["lerp"], (input, end, weight), {})
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype is not input.dtype:
            raise errors.runtime(f"expected dtype {_low(input.dtype)} for `{name}` but got dtype {_low(t.dtype)}")
    # the meta function's dtype checks, then the TensorIterator's broadcast, then the kernel's dtype
    check_broadcast(*(t._data.shape for t in (input, end, weight) if isinstance(t, Tensor)))
    if not input.dtype.is_floating_point:
        try:
            np.broadcast_shapes(*(t._data.shape for t in (input, end, weight) if isinstance(t, Tensor)))
        except ValueError:
            raise EC.broadcast_error(input, end, weight) from None
        raise not_implemented("lerp_kernel_scalar" if not isinstance(weight, Tensor) else "lerp_kernel_tensor",
                              input.dtype)
    dt = input.dtype
    s, e = input._data, end._data
    try:
        if isinstance(weight, Tensor):
            w = weight._data
            r = np.where(np.abs(w) < 0.5, s + w * (e - s), e - (e - s) * (1 - w))
        else:
            w = dtypes.scalar_int(weight) if weight.__class__ is int else weight
            r = s + w * (e - s) if abs(w) < 0.5 else e - (e - s) * (1 - w)
    except ValueError:
        raise EC.broadcast_error(input, end, weight) from None
    out = wrap_as(r, dt)
    if isinstance(weight, Tensor):
        return record(LerpBackward1, (input, end, weight), out)
    return record(LerpBackward0, (input, end), out, {"weight": weight, "shapes": (input._data.shape, e.shape)})


def _low(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}[dt.name]


class AddcmulBackward0(Function):
    __slots__ = ()
    explain = ("1", "{kw[value]} * {pc}", "{kw[value]} * {pb}")
    replay = staticmethod(lambda xs, kw, outs: [xs[0] + kw.get("value", 1) * xs[1] * xs[2]])
    save_inputs = True
    save_when = ((), (2,), (1,))  # derivatives.yaml: self is not saved; each tensor for the other's gradient

    def backward(self, g):
        x, t1, t2 = self.saved
        v = self._kw["value"]
        gx = shaped(g, x) if needs_input_grad(self, 0) else None
        g1 = shaped(g * t2 * v, t1) if needs_input_grad(self, 1) else None
        g2 = shaped(g * t1 * v, t2) if needs_input_grad(self, 2) else None
        return gx, g1, g2


class AddcdivBackward0(Function):
    __slots__ = ()
    explain = ("1", "{kw[value]} / {pc}", "-{kw[value]} * {pb} / {pc}**2")
    replay = staticmethod(lambda xs, kw, outs: [xs[0] + kw.get("value", 1) * xs[1] / xs[2]])
    save_inputs = True
    save_when = ((), (2,), (0, 1, 2))  # self is not saved; torch's node saves tensor2 whenever it is recorded

    def backward(self, g):
        x, t1, t2 = self.saved
        v = self._kw["value"]
        gx = shaped(g, x) if needs_input_grad(self, 0) else None
        # torch: grad * (value / tensor2), -grad * (value * tensor1 / (tensor2 * tensor2))
        g1 = shaped(g * (v / t2), t1) if needs_input_grad(self, 1) else None
        g2 = shaped(-g * (v * t1 / (t2 * t2)), t2) if needs_input_grad(self, 2) else None
        return gx, g1, g2


def _ternary(input, t1, t2, fn):
    dt = dtypes.result_type((input, t1, t2))
    check_broadcast(input._data.shape, t1._data.shape, t2._data.shape)
    arrays = [t._data.astype(dt.np, copy=False) for t in (input, t1, t2)]
    try:
        r = fn(*arrays)
        np.broadcast_shapes(r.shape, input._data.shape)
    except ValueError:
        raise EC.broadcast_error(input, t1, t2) from None
    return wrap_as(r, dt), dt


def addcmul(input, tensor1, tensor2, *, value=1):
    if isinstance(value, Tensor):  # the parser reads a 0-d Tensor for a Number as its Scalar (value=torch.tensor(2.))
        value = value.item()
    dt = dtypes.result_type((input, tensor1, tensor2))
    if dt is dtypes.bool_:
        raise not_implemented("addcmul_cpu_out", dt)
    v = value
    if dt.category == dtypes.INT:  # the kernel's value.to<scalar_t>(): 0.5 -> 0, -1 -> 255 for uint8
        v = np.array(int(value), np.int64).astype(dt.np)[()]
    out, _ = _ternary(input, tensor1, tensor2, lambda a, b, c: a + v * b * c)
    return record(AddcmulBackward0, (input, tensor1, tensor2), out, {"value": value})


def addcdiv(input, tensor1, tensor2, *, value=1):
    if isinstance(value, Tensor):  # (as addcmul's)
        value = value.item()
    if not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
        raise errors.runtime(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    out, _ = _ternary(input, tensor1, tensor2, lambda a, b, c: a + value * (b / c))
    return record(AddcdivBackward0, (input, tensor1, tensor2), out, {"value": value})


# ---------------------------------------------------------------------------- nan_to_num, logit

class NanToNumBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} is finite, else 0"
    replay = staticmethod(lambda xs, kw, outs: [np.nan_to_num(xs[0])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (g * CP.isfinite(x),)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    data = input._data
    if not input.dtype.is_floating_point:
        return wrap(data.copy(), input.dtype)
    info = np.finfo(data.dtype)
    r = np.where(np.isnan(data), nan, data)
    r = np.where(np.isposinf(data), info.max if posinf is None else posinf, r)
    r = np.where(np.isneginf(data), info.min if neginf is None else neginf, r)
    return record(NanToNumBackward0, (input,), wrap_as(r, input.dtype))


class LogitBackward0(Function):
    __slots__ = ()
    explain = "1 / ({pa} * (1 - {pa}))"
    replay = staticmethod(lambda xs, kw, outs: [np.log(xs[0] / (1 - xs[0]))])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        eps = self._kw["eps"] if self._kw else None
        grad = g / (x * (1 - x))
        if eps is None:
            return (where((x < 0.0) | (x > 1.0), math.nan, grad),)
        return (where((x < eps) | (x > 1.0 - eps), 0.0, grad),)


def logit(input, eps=None):
    dt = input.dtype if input.dtype.is_floating_point else dtypes.defaults.float
    z = input._data.astype(dt.np, copy=False)
    if eps is not None:
        z = np.clip(z, eps, 1.0 - eps)
    r = np.log(z / (1 - z))
    return record(LogitBackward0, (input,), wrap_as(r, dt), {"eps": eps} if eps is not None else None)


# ---------------------------------------------------------------------------- declarations

OPS = [
    op("logit", logit, LogitBackward0, special=True, sample=sample1("prob"), **TIP,
       cases={"logit": case(lambda torch, x0: torch.logit(x0), V.P),
              "logit_eps": case(lambda torch, x: torch.logit(x, eps=0.2), V.P)}),
    # binary
    op("atan2", atan2, Atan2Backward0, aliases=("arctan2",), sample=sample2(), **IP,
       cases={"atan2": case(lambda torch, x0, x1: torch.atan2(x0, x1), V.A, V.B)}),
    op("hypot", hypot, HypotBackward0, sample=sample2(), **IP,
       cases={"hypot": case(lambda torch, x0, x1: torch.hypot(x0, x1), V.A, V.B)}),
    op("logaddexp", logaddexp, LogaddexpBackward0, sample=sample2(),
       cases={"logaddexp": case(lambda torch, x0, x1: torch.logaddexp(x0, x1), V.A, V.B),
              "logaddexp_bcast": case(lambda torch, x0, x1: torch.logaddexp(x0, x1), V.M23, V.A[:3])}),
    op("logaddexp2", logaddexp2, Logaddexp2Backward0, sample=sample2(),
       cases={"logaddexp2": case(lambda torch, x0, x1: torch.logaddexp2(x0, x1), V.A, V.B)}),
    op("fmod", fmod, FmodBackward0, FmodBackward1, sample=sample2("any", "pos"), **IP,
       cases={"fmod": case(lambda torch, x0, x1: torch.fmod(x0, x1), [5.5, -5.3, 3.2], [2.0, 2.1, -1.5]),
              "fmod_scalar": case(lambda torch, x: torch.fmod(x, 1.5), [5.5, -5.3, 3.2])}),
    op("copysign", copysign, CopysignBackward0, CopysignBackward1, sample=sample2(), **IP,
       cases={"copysign": case(lambda torch, x0, x1: torch.copysign(x0, x1), V.A, V.B)}),
    op("fmax", fmax, FmaxBackward0, sample=sample2(),
       cases={"fmax": case(lambda torch, x0, x1: torch.fmax(x0, x1), V.A, V.B)}),
    op("fmin", fmin, FminBackward0, sample=sample2(),
       cases={"fmin": case(lambda torch, x0, x1: torch.fmin(x0, x1), V.A, V.B)}),
    op("float_power", float_power, sample=sample2("pos", "any"), **IP,
       cases={"float_power": case(lambda torch, x: torch.float_power(x, 3), V.A)}),  # pow's nodes, in float64
    # lerp, addcmul, addcdiv, nan_to_num
    op("lerp", lerp, LerpBackward0, LerpBackward1, sample=Sample([((2, 3), (2, 3), (2, 3)), ((3,), (2, 3), ())],
                                                                   ("any", "any", "prob")), **IP,
       cases={"lerp": case(lambda torch, a, b: torch.lerp(a, b, 0.3), V.A, V.B),
              "lerp_tensor": case(lambda torch, x0, x1, x2: torch.lerp(x0, x1, x2), V.A, V.B, V.P)}),
    op("addcmul", addcmul, AddcmulBackward0, sample=Sample([((2, 3), (2, 3), (3,)), ((), (2,), (2,))],
                                                           kwargs={"value": 0.5}), **IP,
       cases={"addcmul": case(lambda torch, a, b, c: torch.addcmul(a, b, c, value=0.5), V.A, V.B, V.P)}),
    op("addcdiv", addcdiv, AddcdivBackward0, sample=Sample([((2, 3), (2, 3), (3,)), ((), (2,), (2,))],
                                                           ("any", "any", "pos"), kwargs={"value": 2}), **IP,
       cases={"addcdiv": case(lambda torch, a, b, c: torch.addcdiv(a, b, c, value=2.0), V.A, V.B, V.P)}),
    op("nan_to_num", out_variant("nan_to_num", nan_to_num), NanToNumBackward0, sample=sample1(), **TIP,
       cases={"nan_to_num": case(lambda torch, x0: torch.nan_to_num(x0), V.A)}),
]
