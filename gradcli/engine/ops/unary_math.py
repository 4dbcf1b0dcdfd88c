"""Unary math and rounding: exp, log, sqrt, trig, tanh, sigmoid, relu, abs, reciprocal, sign, floor,
ceil, round, trunc. One class per PyTorch node: its forward on arrays and its backward on Tensors."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors, numerics
from ...backend import vml
from ..autograd import SavedValue, forward_level
from ..autograd_modes import grad_mode
from ..function import Function, out_variant, record
from ..tensor import Tensor, wrap
from .elementwise_common import add_scalar, kernel_error, mul_scalar, unary, zero_grad
from .registry import op, sample1

_FLOAT = dtypes.FLOAT


def _positive_nan(fn):
    """fn (a function undefined below 0: sqrt, log), giving torch's NaN there: NumPy's is the CPU's
    default NaN, whose sign bit is set on x86; torch's kernels give +NaN (signbit and copysign see it)."""
    def run(x):
        r = fn(x)
        if r.dtype.kind == "f":
            negative = x < 0
            if negative.any():
                r = np.where(negative, np.abs(r), r)
        return r
    return run


class ExpBackward0(Function):
    __slots__ = ()
    expression = "exp({0})"
    explain = "exp({a})"
    save_output = True
    forward = staticmethod(vml("exp", numerics.ufunc(np.exp)))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (g * result,)


class LogBackward0(Function):
    __slots__ = ()
    expression = "log({0})"
    explain = "1 / {pa}"
    save_inputs = True
    forward = staticmethod(vml("log", _positive_nan(numerics.ufunc(np.log))))

    def backward(self, g):
        (x,) = self.saved
        return (g / x,)


class Log2Backward0(Function):
    __slots__ = ()
    explain = "1 / ({pa} * ln 2)"
    save_inputs = True
    forward = staticmethod(vml("log2", _positive_nan(numerics.ufunc(np.log2))))

    def backward(self, g):
        (x,) = self.saved
        return (g / mul_scalar(x, 0.6931471805599453),)


class Log10Backward0(Function):
    __slots__ = ()
    explain = "1 / ({pa} * ln 10)"
    save_inputs = True
    forward = staticmethod(vml("log10", _positive_nan(numerics.ufunc(np.log10))))

    def backward(self, g):
        (x,) = self.saved
        return (g / mul_scalar(x, 2.302585092994046),)


class SqrtBackward0(Function):
    __slots__ = ()
    expression = "sqrt({0})"
    explain = "1 / (2 * sqrt({a}))"
    save_output = True
    forward = staticmethod(vml("sqrt", _positive_nan(np.sqrt)))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (g / mul_scalar(result, 2),)


class RsqrtBackward0(Function):
    __slots__ = ()
    explain = "-0.5 * {pa}**(-1.5)"
    save_output = True

    @staticmethod
    def forward(x):
        return 1 / np.sqrt(x)

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (mul_scalar(g, -0.5) * result ** 3,)


class SinBackward0(Function):
    __slots__ = ()
    expression = "sin({0})"
    explain = "cos({a})"
    save_inputs = True
    forward = staticmethod(vml("sin", numerics.ufunc(np.sin)))

    def backward(self, g):
        (x,) = self.saved
        return (g * cos(x),)


class CosBackward0(Function):
    __slots__ = ()
    expression = "cos({0})"
    explain = "-sin({a})"
    save_inputs = True
    forward = staticmethod(vml("cos", numerics.ufunc(np.cos)))

    def backward(self, g):
        (x,) = self.saved
        return (g * -sin(x),)


class TanBackward0(Function):
    __slots__ = ()
    explain = "1 + tan({a})**2"
    save_output = True
    forward = staticmethod(vml("tan", numerics.ufunc(np.tan)))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (g * add_scalar(result ** 2, 1),)  # torch: grad * (1 + result.pow(2))


class TanhBackward0(Function):
    __slots__ = ()
    expression = "tanh({0})"
    explain = "1 - tanh({a})**2"
    save_output = True
    forward = staticmethod(vml("tanh", numerics.ufunc(np.tanh)))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (B.tanh_backward(g, result),)


class SigmoidBackward0(Function):
    __slots__ = ()
    expression = "sigmoid({0})"
    explain = "sigmoid({a}) * (1 - sigmoid({a}))"
    save_output = True

    @staticmethod
    def forward(x):
        return numerics.sigmoid(x)  # ATen's 1 / (1 + exp(-x))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (B.sigmoid_backward(g, result),)


_INT_OF_SIZE = {2: np.int16, 4: np.int32, 8: np.int64}


_ZERO_OF = {}  # dtype -> its 0-d zero (where() takes a 0-d array faster than a scalar)


def _zero_where(x, mask):
    """np.where(mask, +0.0, x) for a float array x (new array, x's dtype), without where's branch per
    element (slow on a random mask): x's bits ANDed with 0 where mask holds, all ones elsewhere."""
    if x.size <= 2048:  # where's branch per element costs less than two more ufunc calls here
        zero = _ZERO_OF.get(x.dtype)
        if zero is None:
            zero = _ZERO_OF[x.dtype] = np.zeros((), x.dtype)
        return np.where(mask, zero, x)
    it = _INT_OF_SIZE[x.dtype.itemsize]
    keep = np.subtract(mask, 1, dtype=it)  # True -> 0, False -> -1 (all bits set)
    return np.bitwise_and(x.view(it), keep, out=keep).view(x.dtype)


def _maximum_is_clamp_min(dt):
    """Does np.maximum(0, x) give exactly torch's clamp_min(x, 0) (x where not x < 0, else +0: NaN
    and -0. kept) for arrays of dtype dt? It does where NumPy's SIMD loop computes max(a, b) as
    a > b ? a : b (x86's max_ps), not where a scalar loop returns +0 for max(0, -0) (float16, and
    other builds): probed once per dtype on every value kind at every offset of a vector and tail."""
    zero = np.zeros((), dt)
    kinds = np.array([-0.0, np.nan, -1.0, 2.0, 0.0, -np.inf, np.inf, -np.nan, 1e-40, -1e-40, -2.5]).astype(dt)
    for n in (*range(1, 18), 31, 32, 33, 63, 64, 65, 4099):
        for off in (0, 5):
            x = kinds[(np.arange(n) + off) % len(kinds)]
            for probe in (x, x[::2]):
                if not np.array_equal(np.maximum(zero, probe).view(np.uint8), _zero_where(probe, probe < 0).view(np.uint8)):
                    return False
    return True


_MAX_OK = {}   # dtype -> _maximum_is_clamp_min(dtype)


# csrc/engine.c's relu and relu_backward branch per element: on mixed signs past a few thousand elements
# NumPy's vector loops are faster (1M float32: 5.7 ms against 0.5, bench case 4's four calls a step), so
# larger arrays take the NumPy code (the same bits: tests/test_native_engine.py)
C_RELU_MAX = 4096


def relu_array(x):
    """torch's relu (clamp_min(x, 0)) of a float NumPy array: csrc/engine.c's relu (C-contiguous float32
    and float64, up to C_RELU_MAX elements), else one np.maximum where it is exact, else _zero_where."""
    kern = numerics.kernels() if x.size <= C_RELU_MAX else None
    if kern is not None:
        out = np.empty(x.shape, x.dtype)
        try:
            kern.relu(x, out)
            return out
        except ValueError:  # float16, or not C-contiguous
            pass
    ok = _MAX_OK.get(x.dtype)
    if ok is None:
        ok = _MAX_OK[x.dtype] = _maximum_is_clamp_min(x.dtype)
    if ok:
        zero = _ZERO_OF.get(x.dtype)
        if zero is None:
            zero = _ZERO_OF[x.dtype] = np.zeros((), x.dtype)
        return np.maximum(zero, x)
    return _zero_where(x, x < 0)


class ReluBackward0(Function):
    __slots__ = ()
    expression = "relu({0})"
    explain = "1 where {a} > 0, else 0"
    save_output = True

    @staticmethod
    def forward(x):
        # torch's clamp_min(x, 0): NaN stays NaN, -0. stays -0. (only x < 0 becomes 0)
        if x.dtype.kind != "f":
            return np.maximum(x, 0)
        if type(x) is np.ndarray and x.ndim:
            return relu_array(x)
        return np.where(x < 0, x.dtype.type(0), x)

    def backward(self, g):
        saved = self._saved
        sv = saved[-1] if saved else None
        if sv.__class__ is SavedValue and sv.tensor._version[0] == sv.version:
            result = sv.tensor  # self.saved's check, inline
        else:
            result = self.saved[-1]  # (raises: freed, or modified in place)
        G, R = g._data, result._data
        if not grad_mode.enabled and type(G) is np.ndarray and type(R) is np.ndarray and g.dtype.category == _FLOAT:
            # no graph to build: where(result <= 0, 0.0, g) on the arrays, as where() computes it
            if G.ndim and G.shape == R.shape and G.dtype.kind == "f":
                kern = numerics.kernels() if G.size <= C_RELU_MAX else None
                if kern is not None:
                    out = np.empty(G.shape, G.dtype)
                    try:
                        kern.relu_backward(G, R, out)  # csrc/engine.c: _zero_where(G, R <= 0), one call
                        return (wrap(out, g.dtype),)
                    except ValueError:  # float16, another dtype for R, or not C-contiguous
                        pass
                if G.size > 2048 and R.dtype == G.dtype:
                    # R is relu's result (never negative), so R <= 0 is R == 0: G's bits times R != 0
                    it = _INT_OF_SIZE[G.dtype.itemsize]
                    return (wrap(np.multiply(G.view(it), R != 0, dtype=it).view(G.dtype), g.dtype),)
                return (wrap(_zero_where(G, R <= 0), g.dtype),)
            r = np.where(R <= 0, 0.0, G)
            return (wrap(r if r.dtype == g.dtype.np else r.astype(g.dtype.np), g.dtype),)
        return (B.threshold_backward(g, result, 0),)  # +0 where the input was <= 0 (NaN passes g)


class AbsBackward0(Function):
    __slots__ = ()
    expression = "abs({0})"
    explain = "sign({a})"
    save_inputs = True
    forward = staticmethod(np.abs)

    def backward(self, g):
        (x,) = self.saved
        return (g * sgn(x),)


class ReciprocalBackward0(Function):
    __slots__ = ()
    explain = "-1 / {pa}**2"
    save_output = True

    @staticmethod
    def forward(x):
        return 1 / x

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (-g * (result * result),)  # torch: -grad * (result * result)


def _sign(x):
    """torch.sign: 0 for NaN (NumPy gives NaN); a bool tensor is its own sign."""
    if x.dtype.kind == "b":
        return x.copy()
    r = np.sign(x)
    return np.where(np.isnan(x), r.dtype.type(0), r) if x.dtype.kind == "f" else r


class SignBackward0(Function):
    __slots__ = ()
    explain = "0 (the function is flat between its steps)"
    forward = staticmethod(_sign)

    def backward(self, g):
        return (zero_grad(g),)


class SgnBackward0(SignBackward0):
    """sgn of a real tensor: sign (0 for NaN); its gradient is zero (torch's abs and norm formulas use it):
    torch's efficient zero tensor, which adds to another gradient as nothing (a -0. there stays -0.)."""
    __slots__ = ()

    def backward(self, g):
        z = zero_grad(g)
        z.__dict__["efficient_zero"] = True  # autograd_engine.sum_grads skips it
        return (z,)


def exp(input):
    return unary(ExpBackward0, input)


def log(input):
    return unary(LogBackward0, input)


def log2(input):
    return unary(Log2Backward0, input)


def log10(input):
    return unary(Log10Backward0, input)


def sqrt(input):
    return unary(SqrtBackward0, input)


def rsqrt(input):
    return unary(RsqrtBackward0, input)


def sin(input):
    return unary(SinBackward0, input)


def cos(input):
    return unary(CosBackward0, input)


def tan(input):
    return unary(TanBackward0, input)


def tanh(input):
    return unary(TanhBackward0, input)


def sigmoid(input):
    return unary(SigmoidBackward0, input)


def relu(input):
    x = input._data if isinstance(input, Tensor) else None
    if type(x) is np.ndarray and x.ndim and x.dtype.kind == "f":  # unary()'s work for a float array, inline
        out = wrap(relu_array(x), input.dtype)
        if (input._rg and grad_mode.enabled) or forward_level[0] is not None:
            record(ReluBackward0, (input,), out, None)
        return out
    if input.dtype is dtypes.bool_:
        raise errors.runtime("Boolean inputs not supported for relu")
    return unary(ReluBackward0, input, float_only=False)


def abs(input):
    if input.dtype is dtypes.bool_:
        raise kernel_error("abs_cpu", input.dtype)
    return unary(AbsBackward0, input, float_only=False)


absolute = abs


def reciprocal(input):
    return unary(ReciprocalBackward0, input)


def sign(input):
    return unary(SignBackward0, input, float_only=False)


def _angle(x):
    # ATen's angle_impl of a real number: NaN stays, pi below 0 (not for -0.), else 0; in x's dtype (pi in half: 3.1406)
    return np.where(np.isnan(x), x, np.where(x < 0, x.dtype.type(np.pi), x.dtype.type(0)))


class AngleBackward0(Function):
    """angle of a real tensor: 0 or pi, flat; angle_backward gives zeros_like(self)."""
    __slots__ = ()
    explain = "0 (the function is flat between its steps)"
    forward = staticmethod(_angle)

    def backward(self, g):
        return (zero_grad(g),)


def angle(input):
    return unary(AngleBackward0, input)


def sgn(input):
    return unary(SgnBackward0, input, float_only=False)


# ---------------------------------------------------------------------------- rounding (zero grad)

class FloorBackward0(Function):
    __slots__ = ()
    explain = "0 (the function is flat between its steps)"
    forward = staticmethod(np.floor)

    def backward(self, g):
        return (zero_grad(g),)


class CeilBackward0(FloorBackward0):
    __slots__ = ()
    forward = staticmethod(np.ceil)


class RoundBackward0(FloorBackward0):
    __slots__ = ()
    forward = staticmethod(np.round)


class TruncBackward0(FloorBackward0):
    __slots__ = ()
    forward = staticmethod(np.trunc)


def _no_bool(input, kernel):
    if input.dtype is dtypes.bool_:
        raise kernel_error(kernel, input.dtype)


def floor(input):
    _no_bool(input, "floor_vml_cpu")
    return unary(FloorBackward0, input, float_only=False)


def ceil(input):
    _no_bool(input, "ceil_vml_cpu")
    return unary(CeilBackward0, input, float_only=False)


def round(input, decimals=0):
    if decimals and not input.dtype.is_floating_point:
        raise kernel_error("round_cpu", input.dtype)
    _no_bool(input, "round_vml_cpu")
    if decimals:
        s = 10.0 ** decimals
        return round(input * s) / s
    return unary(RoundBackward0, input, float_only=False)


def trunc(input):
    _no_bool(input, "trunc_vml_cpu")
    return unary(TruncBackward0, input, float_only=False)


# the aten *_backward functions of tanh, sigmoid and relu's formulas (ops of their own, whose backwards use
# this module's ops: imported last, the one cycle of the elementwise families)
from . import backward_ops as B  # noqa: E402


# ---------------------------------------------------------------------------- declarations

_ip = {"inplace": True}
_tip = {"inplace": True, "torch_inplace": True}
# One declaration per op (registry.py), as arithmetic.py's
OPS = [
    op("exp", exp, ExpBackward0, sample=sample1(), **_tip),
    op("log", log, LogBackward0, sample=sample1("pos"), **_tip),
    op("log2", log2, Log2Backward0, sample=sample1("pos"), **_tip),
    op("log10", log10, Log10Backward0, sample=sample1("pos"), **_tip),
    op("sqrt", sqrt, SqrtBackward0, sample=sample1("pos"), **_tip),
    op("rsqrt", rsqrt, RsqrtBackward0, sample=sample1("pos"), **_tip),
    op("sin", sin, SinBackward0, sample=sample1(), **_tip),
    op("cos", cos, CosBackward0, sample=sample1(), **_tip),
    op("tan", tan, TanBackward0, sample=sample1("unit"), **_tip),
    op("tanh", tanh, TanhBackward0, sample=sample1(), **_tip),
    op("sigmoid", sigmoid, SigmoidBackward0, sample=sample1(), **_tip),
    op("relu", relu, ReluBackward0, sample=sample1(), **_tip),
    op("abs", out_variant("abs", abs), AbsBackward0, sample=sample1(), operator="abs", **_tip),
    op("absolute", out_variant("abs", abs), AbsBackward0, sample=sample1(), inplace=True),
    op("reciprocal", reciprocal, ReciprocalBackward0, sample=sample1("pos"), **_tip),
    op("sign", sign, SignBackward0, sample=sample1(), **_ip),
    op("angle", angle, AngleBackward0, sample=sample1()),
    op("floor", floor, FloorBackward0, sample=sample1(), **_tip),
    op("ceil", ceil, CeilBackward0, sample=sample1(), **_tip),
    op("trunc", trunc, TruncBackward0, sample=sample1(), **_tip),
]
