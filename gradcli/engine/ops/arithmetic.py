"""Arithmetic: add, sub and rsub, mul, div, neg, pow, floor_divide, remainder. One class per PyTorch
node: its forward on arrays and its backward on Tensors (so it differentiates again); the shared
plumbing (operands, recording, the Scalar overloads) is elementwise_common.py's."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..argcheck import invalid_combination, is_scalar, typename
from ..autograd import SavedValue, forward_level
from ..autograd_modes import no_grad
from ..saved_hooks import PackedValue
from ..device import asarray as _asarray
from ..function import Function, complete_kw, inference_leaf, record, wrapped_number
from ..tensor import Tensor, wrap
from . import scalar_chain, words
from .elementwise_common import (binary, binary_operands, bool_kernel_error, broadcast_error, float_division,
                                 needs_input_grad, not_implemented, operand, scalar_op, scalar_tensor, shaped,
                                 unary, zero_grad, AddBackward1, DivBackward1, MulBackward1)
from .power import PowBackward0, PowBackward1, PowBackward2, pow, square
from .registry import V, case, op, sample1, sample2
from .shape import sum_to
from .unary_math import reciprocal


_F32, _F64, _F16 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)


def add_alpha(a, b, alpha):
    """ATen's add/sub with alpha (ufunc add: `vec::fmadd(other, alpha, self)`): float32 and float64 as
    one fused multiply-add (AVX2/AVX512 builds), b (a number converted to the dtype first) times alpha
    plus a; float16 with b and alpha rounded to half; integers as they are."""
    dt = getattr(a, "dtype", None)
    if type(a) is not np.ndarray or dt not in (_F32, _F64, _F16):
        return a + wrapped_alpha(alpha, a, b) * b
    bb = b if isinstance(b, np.ndarray) else np.asarray(b, dt)
    al = dt.type(alpha)
    with np.errstate(all="ignore"):
        plain = a + al * bb
        if dt == _F16:
            return plain
        from ..rng_math import capability, fma32, fma64  # noqa: PLC0415 - only alpha != 1 needs them
        if capability() == "default":  # the DEFAULT build's Vectorized fmadd is a * b + c, rounded twice
            return plain
        shape = plain.shape  # the kernels take flat arrays of one shape
        number = np.size(bb) == 1  # a number or a one-element tensor: a stride-0 operand in ATen's loop
        bb, aa = np.broadcast_to(bb, shape).reshape(-1), np.broadcast_to(a, shape).reshape(-1)
        r = np.asarray(fma32(bb, al, aa) if dt == _F32 else fma64(bb, al, aa), dt).reshape(shape)
        if number and r.size <= _GRAIN and a.shape == shape and a.flags.c_contiguous:
            unfused = _scalar_tail_unfused(r.size, dt.itemsize, capability())
            if unfused is not None:
                r.reshape(-1)[unfused] = plain.reshape(-1)[unfused]
    bad = ~np.isfinite(r)
    if bad.any():  # the exact product's splitting overflows near the range's end, or inputs are not finite
        r = np.where(bad, plain, r)
    return r


def wrapped_alpha(alpha, a, b):
    """An int alpha of an integer op converted to the result type, wrapping (the kernel's alpha.to<scalar_t>();
    _alpha_check raised torch's error for a value out of its range): NumPy refuses an out-of-range Python int."""
    dt = getattr(a, "dtype", None)
    if alpha.__class__ is not int or dt is None or dt.kind not in "iu":
        return alpha
    return np.asarray(alpha, np.int64).astype(np.result_type(a, b) if isinstance(b, np.ndarray) else dt)


_GRAIN = 32768  # at::internal::GRAIN_SIZE: one loop over the whole tensor below it


def _scalar_tail_unfused(n, itemsize, cap):
    """With a number (a stride-0 `other`) ATen's vectorized_loop fuses every 2 * Vec::size() block, and
    (AVX512 only) one more Vec; the rest goes to basic_loop, which the compiler vectorizes with
    `alpha * other` hoisted out of the loop: its first element fused, then blocks of 16 bytes rounded
    twice, the last few fused again. Measured against torch 2.13 for every tail length, AVX2 and AVX512.
    The slice of the flat result that is rounded twice, or None."""
    lanes = (64 if cap == "avx512" else 32) // itemsize
    start = n - n % (2 * lanes)
    if cap == "avx512" and n - start >= lanes:
        start += lanes
    block = 16 // itemsize
    count = (n - start - 1) // block * block
    return slice(start + 1, start + 1 + count) if count > 0 else None


class AddBackward0(Function):
    """a + alpha * b. kw is (shape of a, shape of b or None for a number, alpha)."""
    __slots__ = ()
    kw_completed_later = True  # add() completes the kw (function.complete_kw)
    explain = staticmethod(words.add)
    expression = "{0} + {1}"

    @staticmethod
    def forward(a, b, alpha=None):
        return a + b if alpha is None else add_alpha(a, b, alpha)

    def backward(self, g):
        sa, sb, alpha = self._kw
        ga = g if g._data.shape == sa else sum_to(g, sa)
        if sb is None or self._fns[1] is None:
            return ga, None
        gb = g if alpha == 1 else g * alpha
        return ga, (gb if gb._data.shape == sb else sum_to(gb, sb))


class SubBackward0(Function):
    """a - alpha * b. kw is (shape of a, shape of b or None for a number, alpha)."""
    __slots__ = ()
    kw_completed_later = True  # sub() completes the kw (function.complete_kw)
    explain = staticmethod(words.sub)
    expression = "{0} - {1}"

    @staticmethod
    def forward(a, b, alpha=None):
        return a - b if alpha is None else add_alpha(a, b, -alpha)

    def backward(self, g):
        sa, sb, alpha = self._kw
        ga = g if g._data.shape == sa else sum_to(g, sa)
        if sb is None or self._fns[1] is None:
            return ga, None
        gb = -g if alpha == 1 else g * -alpha
        return ga, (gb if gb._data.shape == sb else sum_to(gb, sb))


class RsubBackward1(Function):
    """other - alpha * self with a number other, as torch.rsub(self, other) records it (`1 - a`)."""
    __slots__ = ()
    explain = staticmethod(words.rsub1)
    expression = "c - {0}"

    @staticmethod
    def forward(a, b):
        return b - a

    def backward(self, g):  # derivatives.yaml: -grad * alpha (a second slot: the operators' recorded number)
        alpha = self._kw.get("alpha", 1) if self._kw else 1
        return (-g if alpha == 1 else -g * alpha, None)


class RsubBackward0(Function):
    """torch.rsub(self, other) with two tensors: other - alpha * self."""
    __slots__ = ()
    kw_completed_later = True  # rsub() completes the kw (function.complete_kw)
    explain = staticmethod(words.rsub0)

    @staticmethod
    def forward(a, b, alpha=None):
        return b - a if alpha is None else b - wrapped_alpha(alpha, a, b) * a

    def backward(self, g):
        a_shape, b_shape = self._kw["_shapes"]
        alpha = self._kw.get("alpha")
        return sum_to(-g if alpha is None else g * -alpha, a_shape), sum_to(g, b_shape)


_SAVED = (SavedValue, PackedValue)  # a saved tensor, packed or not (else a shape or a number)


class MulBackward0(Function):
    __slots__ = ()
    half_scalar = np.multiply
    save_inputs = True
    save_when = ((1,), (0,))
    saved_order = (1, 0)  # torch's MulBackward0 saves (and unpacks) other before self: saved tensors' hooks see it
    explain = staticmethod(words.mul)
    expression = "{0} * {1}"

    @staticmethod
    def forward(a, b):
        return a * b

    def backward(self, g):
        saved = self._saved
        if saved is None or saved[0].__class__ in _SAVED or saved[1].__class__ in _SAVED:
            a, b = self.saved  # checks the saved tensors' versions (or raises: freed)
        else:
            a, b = saved  # shapes and numbers (`y * 1.01`): nothing to check, no call (scalar chains)
        nf = self._fns
        ga = gb = None
        if nf[0] is not None:
            ga = g * b
            sa = a if a.__class__ is tuple else a._data.shape
            if ga._data.shape != sa:
                ga = sum_to(ga, sa)
        if nf[1] is not None:
            gb = g * a
            sb = b if b.__class__ is tuple else b._data.shape
            if gb._data.shape != sb:
                gb = sum_to(gb, sb)
        return ga, gb


class DivBackward0(Function):
    __slots__ = ()
    saved_order = (1, 0)  # torch's node saves (and unpacks) its second input first: saved tensors' hooks see it
    half_scalar = np.true_divide  # (and _DivModeNone, its subclass)
    save_inputs = True
    save_when = ((1,), (0, 1))
    explain = staticmethod(words.div)
    expression = "{0} / {1}"

    @staticmethod
    def forward(a, b):
        return a / b

    def backward(self, g):
        a, b = self.saved
        ga = g / b if needs_input_grad(self, 0) else None
        gb = -g * ((a / b) / b) if needs_input_grad(self, 1) else None  # torch's div_tensor_other_backward, in its order
        return shaped(ga, a), shaped(gb, b)


class DivBackward2(Function):
    """div with rounding_mode ('floor' or 'trunc'): piecewise constant, zero gradients."""
    __slots__ = ()
    kw_completed_later = True  # div(rounding_mode=) completes the kw (function.complete_kw)
    explain = ("0 (rounded division is flat between its steps)", "0")

    @staticmethod
    def forward(a, b, mode):
        if mode == "floor":
            if np.result_type(a, b).kind in "iub":
                _check_int_zero_division(a, b)
            return np.floor_divide(a, b)
        if np.result_type(a, b).kind in "iub":
            _check_int_zero_division(a, b)
            q = np.floor_divide(a, b)
            return q + ((np.remainder(a, b) != 0) & (np.less(a, 0) != np.less(b, 0)))
        return np.trunc(np.true_divide(a, b))

    def backward(self, g):
        a, b = self._kw["shapes"]
        return sum_to(zero_grad(g), a), (sum_to(zero_grad(g), b) if needs_input_grad(self, 1) else None)


def _check_int_zero_division(a, b):
    """torch's integer division by zero; shapes that do not broadcast are reported first (NumPy's
    ValueError, which the callers turn into torch's broadcast message)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    if 0 in shape:  # no element is divided: torch's kernel never looks at the divisor
        return
    if np.any(_asarray(b) == 0):
        raise errors.runtime("ZeroDivisionError")


class NegBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.neg)
    expression = "-{0}"
    forward = staticmethod(np.negative)

    def backward(self, g):
        return (-g,)


def _remainder(a, b):
    """torch's remainder: fmod, moved into the divisor's sign (so 3 % -3 is +0.0, not NumPy's -0.0)."""
    if np.result_type(a, b).kind != "f":
        return np.remainder(a, b)
    m = np.fmod(a, b)
    return np.where((m != 0) & (np.less(b, 0) != (m < 0)), m + b, m)


class RemainderBackward0(Function):
    """remainder(x, number): one edge."""
    __slots__ = ()
    explain = "1"
    forward = staticmethod(_remainder)

    def backward(self, g):
        return (g,)


class RemainderBackward1(Function):
    __slots__ = ()
    explain = ("1", "-floor({pa} / {pb})")
    save_inputs = True
    save_when = ((1,), (1,))  # derivatives.yaml: only other's gradient reads them
    forward = staticmethod(_remainder)

    def backward(self, g):
        a, b = self.saved
        gb = -g * div(a, b, rounding_mode="floor") if needs_input_grad(self, 1) else None
        return shaped(g, a), shaped(gb, b)


def alpha_number(name, input, other, alpha):
    """torch's parser reading alpha, a Number: a Python or NumPy number or a 0-d tensor. A script's object went
    on to NumPy, which read one with a huge __len__ as a sequence (the --max-memory error)."""
    if is_scalar(alpha) or (isinstance(alpha, Tensor) and alpha._data.ndim == 0):
        return
    if name == "rsub":  # two signatures: the invalid-combination list
        from ..torch_signatures import SIGNATURES  # noqa: PLC0415 - only for the error
        raise invalid_combination("rsub", SIGNATURES["rsub"], (input, other), {"alpha": alpha})
    raise errors.type_error(f"{name}(): argument 'alpha' must be Number, not {typename(alpha)}")


_C_INT = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int"}  # (AT_FORALL_SCALAR_TYPES)


def _alpha_check(a, b, alpha, negated=False):
    """ATen's alpha_check on the result dtype of add/sub/rsub with alpha; an int alpha is converted to an integer
    result type by c10::checked_convert (sub and rsub add -alpha: negated)."""
    if alpha.__class__ is int:
        dtypes.scalar_int(alpha)
    try:  # TensorIterator's shape check comes first (the op's broadcast error)
        np.broadcast_shapes(np.shape(a._data if isinstance(a, Tensor) else a),
                               np.shape(b._data if isinstance(b, Tensor) else b))
    except ValueError:
        return
    dt = dtypes.result_type((a, b))
    if alpha.__class__ is int:
        if dt.name in _C_INT:  # an unsigned type takes -max..max
            info = np.iinfo(dt.np)
            value = -alpha if negated else alpha
            if value > info.max or value < (-int(info.max) if info.min == 0 else info.min):
                raise errors.runtime(f"value cannot be converted to type {_C_INT[dt.name]} without overflow")
        return
    if isinstance(alpha, bool):
        if dt is not dtypes.bool_:
            raise errors.runtime("Boolean alpha only supported for Boolean results.")
    elif not dt.is_floating_point and isinstance(alpha, float):
        raise errors.runtime("For integral input tensors, argument alpha must not be a floating point number.")


def add(input, other, *, alpha=1, out=None):
    other = operand(other)
    if not isinstance(input, Tensor):
        input, other = other, operand(input)
    if alpha.__class__ is not int or alpha != 1:
        alpha_number("add", input, other, alpha)
        _alpha_check(input, other, alpha)
    r = binary(AddBackward0, input, other, kw=None if alpha == 1 else {"alpha": alpha})
    node = r.grad_fn
    if node is not None:
        node._kw = (input._data.shape, other._data.shape if other.__class__ is Tensor or isinstance(other, Tensor)
                    else None, alpha)
    if forward_level[0] is not None:
        _complete(r, AddBackward0, input, other, alpha)
    return r


def sub(input, other, *, alpha=1, out=None):
    other = operand(other)
    if not isinstance(input, Tensor):
        return rsub(other, input)
    if input.dtype is dtypes.bool_ or other.__class__ is bool or getattr(other, "dtype", None) is dtypes.bool_:
        _check_sub_bool(input, other)
    if alpha.__class__ is not int or alpha != 1:
        alpha_number("sub", input, other, alpha)
        _alpha_check(input, other, alpha, negated=True)
    r = binary(SubBackward0, input, other, kw=None if alpha == 1 else {"alpha": alpha})
    node = r.grad_fn
    if node is not None:
        node._kw = (input._data.shape, other._data.shape if other.__class__ is Tensor or isinstance(other, Tensor)
                    else None, alpha)
    if forward_level[0] is not None:
        _complete(r, SubBackward0, input, other, alpha)
    return r


def _complete(r, cls, input, other, alpha):
    """add/sub's kw on the shadow node of r's tangent (forward_ad.py), as on r's node above."""
    kw = (input._data.shape, other._data.shape if isinstance(other, Tensor) else None, alpha)
    complete_kw(r, cls, lambda _: kw)


subtract = sub


def _check_sub_bool(a, b):
    a_bool = getattr(a, "dtype", None) is dtypes.bool_ or isinstance(a, bool)
    b_bool = getattr(b, "dtype", None) is dtypes.bool_ or isinstance(b, bool)
    if a_bool and b_bool:
        raise errors.runtime("Subtraction, the `-` operator, with two bool tensors is not supported. "
                             "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise errors.runtime("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                             "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def rsub(input, other, alpha=1):
    """other - alpha * input; the node torch records for `number - tensor`."""
    other = operand(other)
    if input.dtype is dtypes.bool_ or other.__class__ is bool or getattr(other, "dtype", None) is dtypes.bool_:
        _check_sub_bool(other, input)  # (torch's rsub is sub(other, input): sub_check first)
    if alpha.__class__ is not int or alpha != 1:
        alpha_number("rsub", input, other, alpha)
        _alpha_check(input, other, alpha, negated=True)
    if isinstance(other, Tensor):
        try:  # torch's rsub computes other - input: TensorIterator's broadcast message names other first
            np.broadcast_shapes(other._data.shape, input._data.shape)
        except ValueError:
            raise broadcast_error(other, input) from None
        kw = None if alpha == 1 else {"alpha": alpha}
        r = binary(RsubBackward0, input, other, kw=kw)
        _keep_shapes(r, RsubBackward0, input, other)
        return r
    _check_sub_bool(input, other)
    if inference_leaf(input):  # rsub.Scalar's kernel: sub(wrapped number, input, alpha), a normal input
        with no_grad():
            r = rsub(input, other, alpha)
        return record(SubBackward0, (wrapped_number(other), input), r, ((), input._data.shape, alpha))
    if alpha == 1:  # the scalar kernel: -3 - uint8 tensor wraps (250), NumPy's other - data overflows
        return scalar_op(RsubBackward1, input, other, None)
    dt = dtypes.result_type((input, other, alpha))
    data = input._data.astype(dt.np)
    if dt.np.kind in "iu" and other.__class__ is int:  # the number converted to the type, wrapping (as torch's kernel)
        other = np.asarray(other, np.int64).astype(dt.np)
    r = wrap(_asarray(other - wrapped_alpha(alpha, data, None) * data).astype(dt.np), dt)
    return record(RsubBackward1, (input,), r, {"alpha": alpha})


def _keep_shapes(r, cls, a, b):
    shapes = (tuple(getattr(a, "shape", ())), tuple(getattr(b, "shape", ())))
    complete_kw(r, cls, lambda kw: {**(kw or {}), "_shapes": shapes})



def mul(input, other, *, out=None):
    c = other.__class__
    if c is not float and c is not int and c is not Tensor:
        other = operand(other)
    if not isinstance(input, Tensor):
        input, other = other, operand(input)
    return binary(MulBackward0, input, other)


multiply = mul


_NO_MODE = object()


class _DivModeNone(DivBackward0):
    """torch.div(a, b, rounding_mode=None) spelled out: true division, recorded as DivBackward2."""
    __slots__ = ()


_DivModeNone.__name__ = _DivModeNone.__qualname__ = "DivBackward2"


def div(input, other, *, rounding_mode=_NO_MODE, out=None):
    other = operand(other)
    if rounding_mode is None:
        if not isinstance(input, Tensor):
            input = scalar_tensor(input, other)
        return binary(_DivModeNone, input, other, compute_dtype=float_division)
    if rounding_mode is not _NO_MODE:
        if not isinstance(rounding_mode, str):  # torch's parser: the (..., *, str rounding_mode) signatures
            from ..argcheck import invalid_combination  # noqa: PLC0415 - only for the error
            from ..torch_signatures import SIGNATURES  # noqa: PLC0415
            raise invalid_combination("div", SIGNATURES["div"], (input, other), {"rounding_mode": rounding_mode})
        if rounding_mode not in ("floor", "trunc"):
            raise errors.runtime(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                               f"'{rounding_mode}'")
        if not isinstance(input, Tensor):
            input = scalar_tensor(input, other)
        if dtypes.result_type((input, other)) is dtypes.bool_:
            raise bool_kernel_error(f"div_{rounding_mode}_cpu", input, other)
        r = binary(DivBackward2, input, other, kw={"mode": rounding_mode})
        kw = {"mode": rounding_mode, "shapes": (input._data.shape, tuple(getattr(other, "shape", ())))}
        complete_kw(r, DivBackward2, lambda _: kw)
        return r
    if not isinstance(input, Tensor):
        return mul(reciprocal(other), input)
    return binary(DivBackward0, input, other, compute_dtype=float_division)


divide = true_divide = div


def neg(input):
    if input.dtype is dtypes.bool_:
        raise errors.runtime("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                             "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return unary(NegBackward0, input, float_only=False)


negative = neg


def floor_divide(input, other):
    other = operand(other)
    dt = dtypes.result_type((input, other))
    if dt is dtypes.bool_:
        raise bool_kernel_error("div_floor_cpu", input, other)
    x, y = binary_operands(input, other, dt)
    try:
        if dt.category != dtypes.FLOAT:
            _check_int_zero_division(x, y)
        r = np.floor_divide(x, y)
    except ValueError:
        raise broadcast_error(input, other) from None
    return not_implemented(wrap(_asarray(r).astype(dt.np), dt), (input, other), "aten::floor_divide")


def remainder(input, other):
    other = operand(other)
    if isinstance(other, Tensor):
        _check_remainder_int(input, other)
        if not isinstance(input, Tensor):
            dt = dtypes.result_type((input, other))
            x, y = binary_operands(input, other, dt)
            try:
                r = _remainder(x, y)
            except ValueError:
                raise broadcast_error(input, other) from None
            return not_implemented(wrap(_asarray(r).astype(dt.np), dt), (other,),
                                   "aten::remainder")
        return binary(RemainderBackward1, input, other)
    _check_remainder_int(input, other)
    if inference_leaf(input):  # remainder.Scalar's kernel: remainder(input, wrapped number), a normal input
        out = scalar_op(RemainderBackward0, input, other, None)
        return record(RemainderBackward1, (input, wrapped_number(other)), out)
    return scalar_op(RemainderBackward0, input, other, None)


def _check_remainder_int(a, b):
    dt = dtypes.result_type((a, b))
    if dt is dtypes.bool_:
        raise bool_kernel_error("remainder_cpu", a, b)
    if dt.category != dtypes.FLOAT:
        try:
            _check_int_zero_division(a._data if isinstance(a, Tensor) else a, b._data if isinstance(b, Tensor) else b)
        except ValueError:
            raise broadcast_error(a, b) from None


# ---------------------------------------------------------------------------- declarations

_ip = {"inplace": True}
_tip = {"inplace": True, "torch_inplace": True}
# One declaration per op (registry.py): its names, in-place forms, nodes and gradient-check sample. The
# in-place wrappers are inplace.py's (methods.py derives the tables: inplace.py imports this module).
OPS = [
    op("add", add, AddBackward0, AddBackward1, sample=sample2(alpha=2), operator="+", reflected=True, **_ip),
    op("sub", sub, SubBackward0, aliases=("subtract",), sample=sample2(alpha=0.5), operator="-", reflected=rsub, **_ip),
    op("mul", mul, MulBackward0, MulBackward1, aliases=("multiply",), sample=sample2(), operator="*", reflected=True,
       **_ip),
    op("div", div, DivBackward0, DivBackward1, DivBackward2, aliases=("divide", "true_divide"),
       sample=sample2("any", "pos"), operator="/", reflected=lambda x, y: mul(reciprocal(x), y), **_ip),
    op("neg", neg, NegBackward0, sample=sample1(), operator="-x", **_tip),
    op("negative", neg, NegBackward0, sample=sample1(), **_tip),
    op("pow", pow, PowBackward0, PowBackward1, PowBackward2, sample=sample2("pos", "any"), operator="**", **_ip,
       cases={"pow_tensor": case(lambda torch, x0, x1: torch.pow(x0, x1), V.P, V.B)}),
    op("square", square, PowBackward0, sample=sample1(), **_tip),
    op("floor_divide", floor_divide, no_grad="torch records NotImplemented (no derivative for floor_divide)", operator="//",
       **_ip),
    op("remainder", remainder, RemainderBackward0, RemainderBackward1, sample=sample2("any", "pos"), operator="%",
       **_ip),
    op("rsub", rsub, RsubBackward0, RsubBackward1, method=False, sample=sample2(alpha=2)),  # torch.rsub: y - alpha * x
]


# run_plain's scalar chains (scalar_chain.py): with a Python number as the second operand of a 0-d first
# input, MulBackward0.backward gives that input g * number, AddBackward0's and SubBackward0's give it g
scalar_chain.register(MulBackward0, scalar_chain.SCALE)
scalar_chain.register(AddBackward0, scalar_chain.PASS)
scalar_chain.register(SubBackward0, scalar_chain.PASS)
