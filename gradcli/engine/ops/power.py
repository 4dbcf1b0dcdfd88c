"""pow and square: x ** number, x ** tensor and number ** tensor, ATen's kernels for each (the special
exponents of pow_tensor_scalar, SLEEF's pow, powi for integers) and torch's pow_backward formulas.
Declared in arithmetic.py's OPS with the other operators."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ...backend import vml
from ..device import is_device_array, xp_of
from ..function import Function, inference_leaf, out_variant_refusal
from ..pow_kernel import pow_tensor_scalar, pow_tensor_tensor
from ..tensor import Tensor
from . import words
from .clamp_where import where
from .elementwise_common import binary, kernel_error, mul_scalar, needs_input_grad, operand, scalar_op, shaped, zero_grad
from .unary_math import log


def _pow_scalar(x, p):
    """x ** p computed as ATen does for floats: x*x, x*x*x, sqrt, rsqrt, 1/x, 1/(x*x) for those
    exponents, otherwise std::pow; float16 is powf of the exponent rounded to half, for every exponent."""
    if x.dtype.kind != "f":
        return x ** p
    if x.dtype == np.float16:  # ATen's Half branch has no special exponents: std::pow(float(x), float(Half(p)))
        with np.errstate(all="ignore"):
            return (x.astype(np.float32) ** np.float32(np.float16(p))).astype(np.float16)
    if p == 2:
        return x * x
    if p == 3:
        return x * x * x
    if p == 0.5:
        return _vml_sqrt(x)  # ATen's pow_tensor_scalar_kernel: sqrt_kernel (MKL's VML with gradcli[mkl])
    if p == -0.5:
        return 1 / np.sqrt(x)
    if p == -1:
        return 1 / x
    if p == -2:
        return 1 / (x * x)
    if p == 0:
        return np.ones_like(x)
    if p == 1:
        return x.copy()
    if type(x) is not np.ndarray or x.dtype.itemsize < 4:
        return (x.astype(np.float64) ** p).astype(x.dtype) if x.dtype.itemsize < 8 else x ** p
    return pow_tensor_scalar(x, p)  # SLEEF's pow on the vector body, the C library's on the tail


_vml_sqrt = vml("sqrt", np.sqrt)


class PowBackward0(Function):
    """x ** exponent (a Python number, in kw)."""
    __slots__ = ()
    save_inputs = True
    explain = staticmethod(words.pow0)
    expression = staticmethod(words.pow_expression)
    forward = staticmethod(_pow_scalar)

    def backward(self, g):
        (x,) = self.saved
        p = self._kw["exponent"]
        if p == 0:
            return (zero_grad(g),)
        return (g * mul_scalar(x ** (p - 1), p),)  # torch's pow_backward: grad * (exponent * self.pow(exponent - 1))


class PowBackward1(Function):
    """x ** y, both tensors."""
    __slots__ = ()
    save_inputs = True
    save_output = True
    explain = staticmethod(words.pow1)

    @staticmethod
    def forward(x, y):
        return pow_tensor_tensor(x, y)

    def backward(self, g):
        x, y, out = self.saved
        gx = gy = None
        if needs_input_grad(self, 0):
            gx = where(y == 0, 0.0, g * (y * x ** (y - 1)))  # torch: grad * (exponent * self.pow(exponent - 1))
        if needs_input_grad(self, 1):
            gy = g * where((x == 0) & (y >= 0), 0.0, out * log(x))  # torch's pow_backward_exponent
        return shaped(gx, x), shaped(gy, y)


class PowBackward2(Function):
    """number ** tensor (`2 ** a`): the input is the exponent, the base is in kw."""
    __slots__ = ()
    save_inputs = True
    save_output = True
    explain = staticmethod(words.pow2)

    @staticmethod
    def forward(y, base):
        if y.dtype.kind in "iu":  # ATen's powi: a negative exponent gives 0 but for a base of 1 or -1
            return pow_tensor_tensor(xp_of(y).asarray(base, y.dtype), y)
        if base == 1 or y.dtype.kind != "f" or is_device_array(y):  # CuPy computes its own pow
            return base ** y
        # torch.pow(number, tensor): a new contiguous output, then the tensor-tensor kernel
        return pow_tensor_tensor(np.asarray(base, y.dtype), y, contiguous_out=True)

    def backward(self, g):
        y, out = self.saved
        base = self._kw["base"]
        if base == 0:
            return (g * where(y >= 0, 0.0, mul_scalar(out, float("-inf"))),)  # torch's pow_backward_exponent
        # Scalar::log() of a negative base: NaN (the grad comes out with a clear sign bit, as measured)
        return (g * mul_scalar(out, math.log(base) if base > 0 else math.nan),)


def pow(input, exponent):
    exponent = operand(exponent)
    if not isinstance(input, Tensor):
        if isinstance(exponent, Tensor) and inference_leaf(exponent):  # pow(Scalar, Tensor)'s kernel calls pow_out
            raise out_variant_refusal("pow")
        if dtypes.result_type((exponent, input)) is dtypes.bool_:
            raise kernel_error("pow", dtypes.bool_)
        return scalar_op(PowBackward2, exponent, input, {"base": input})
    if isinstance(exponent, Tensor):
        if input.dtype is dtypes.bool_ and exponent.dtype is dtypes.bool_:  # pow_tensor_tensor has no Bool kernel
            raise kernel_error("pow", dtypes.bool_)
        return binary(PowBackward1, input, exponent)
    if (isinstance(exponent, int) and not isinstance(exponent, bool) and exponent < 0
            and not input.dtype.is_floating_point):
        raise errors.runtime("Integers to negative integer powers are not allowed.")
    return scalar_op(PowBackward0, input, exponent, {"exponent": exponent})


def square(input):
    return pow(input, 2)
