"""Binds the ops to Tensor as methods and Python operators, so `torch.f(x, ...)` and `x.f(...)`
are one function. Importing this module completes the Tensor class."""
from __future__ import annotations

import numpy as np

from .ops import conversion as C
from .ops import elementwise as E
from .ops import indexing as I
from .ops import inplace as P
from .ops import linalg as L
from .ops import reduction as R
from .ops import shape as S
from .tensor import Tensor
from . import rng_factory as _rng_factory  # noqa: I001

from operator import add as _op_add, mul as _op_mul, sub as _op_sub, truediv as _op_truediv  # noqa: E402,I001

from .ops import registry  # noqa: E402

# the ops of elementwise.py, reduction.py, shape.py, linalg.py, indexing.py and conversion.py, derived from their
# declarations (ops/registry.py), with inplace.py's in-place wrappers
_DECLARED = [registry.tables(m.OPS, lambda fn, name, node: P.inplace(fn, name)) for m in (E, R, S, L, I, C)]
TORCH = {k: v for t in _DECLARED for k, v in t["TORCH"].items()}          # torch.X_ of some of them
SPECIAL = {k: v for t in _DECLARED for k, v in t["SPECIAL"].items()}      # torch.special.X
METHOD_ONLY = frozenset(n for t in _DECLARED for n in t["METHOD_ONLY"])  # Tensor methods that are no torch.X

# name -> function taking the tensor first; the same objects are torch.<name>
METHODS = {k: v for t in _DECLARED for k, v in t["METHODS"].items()}


# the breadth ops (issue 5): each of these modules lists its own Tensor methods and in-place forms
from .ops import linalg_extra as _LX  # noqa: E402
from .ops import scan as _SC  # noqa: E402
from .ops import index_ops as _IX  # noqa: E402
from .ops import misc_ops as _MX  # noqa: E402
from .ops import shape_extra as _SX  # noqa: E402
from .ops import special as _SP  # noqa: E402

for _m in (_SP, _SC, _LX, _SX, _IX, _MX):
    METHODS.update(_m.METHODS)
_BREADTH_INPLACE = {name: fn for _m in (_SP, _SC, _LX, _SX, _IX, _MX) for name, fn in _m.INPLACE.items()}


def _install():
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, fn in (item for t in _DECLARED for item in t["INPLACE"].items()):  # x.name_()
        setattr(Tensor, name, fn)
    Tensor.zero_ = P.zero_
    Tensor.fill_ = P.fill_
    Tensor.copy_ = P.copy_
    Tensor.T = property(S.T)
    Tensor.mT = property(S.mT)
    Tensor.__getitem__ = I.getitem
    Tensor.__setitem__ = I.setitem
    Tensor.new_tensor = _new("tensor")
    Tensor.new_zeros = _new("zeros")
    Tensor.new_ones = _new("ones")
    Tensor.new_empty = _new("empty")
    Tensor.new_full = _new_full

    ops = {
        "__add__": _add_op, "__radd__": _radd_op,
        "__sub__": _sub_op, "__rsub__": lambda a, b: _rop(E.rsub, a, b),
        "__mul__": _mul_op, "__rmul__": _rmul_op,
        "__truediv__": _div_op,
        "__rtruediv__": lambda a, b: _rop(lambda x, y: E.mul(E.reciprocal(x), y), a, b, ndarray_ok=True),
        "__floordiv__": lambda a, b: _binop(E.floor_divide, a, b),
        "__rfloordiv__": lambda a, b: _rop(lambda x, y: E.floor_divide(y, x), a, b),
        "__mod__": lambda a, b: _binop(E.remainder, a, b),
        "__rmod__": lambda a, b: _rop(lambda x, y: E.remainder(y, x), a, b),
        "__pow__": lambda a, b, m=None: _binop(E.pow, a, b),
        "__rpow__": lambda a, b: _rop(lambda x, y: E.pow(y, x), a, b),
        "__matmul__": lambda a, b: _binop(L.matmul, a, b, tensors_only=True),
        "__rmatmul__": lambda a, b: _rop(lambda x, y: L.matmul(y, x), a, b, tensors_only=True),
        "__neg__": E.neg, "__pos__": lambda a: a, "__abs__": E.abs, "__invert__": _invert,
        "__eq__": lambda a, b: E.eq(a, b), "__ne__": lambda a, b: _cmp(E.ne, a, b),
        "__lt__": lambda a, b: _cmp(E.lt, a, b), "__le__": lambda a, b: _cmp(E.le, a, b),
        "__gt__": lambda a, b: _cmp(E.gt, a, b), "__ge__": lambda a, b: _cmp(E.ge, a, b),
        "__and__": lambda a, b: E.bitwise_and(a, b), "__rand__": lambda a, b: _rop(E.bitwise_and, a, b),
        "__or__": lambda a, b: E.bitwise_or(a, b), "__ror__": lambda a, b: _rop(E.bitwise_or, a, b),
        "__xor__": lambda a, b: E.bitwise_xor(a, b), "__rxor__": lambda a, b: _rop(E.bitwise_xor, a, b),
        "__lshift__": lambda a, b: E.bitwise_left_shift(a, b),
        "__rlshift__": lambda a, b: _rop(lambda x, y: E.bitwise_left_shift(y, x), a, b),
        "__rshift__": lambda a, b: E.bitwise_right_shift(a, b),
        "__rrshift__": lambda a, b: _rop(lambda x, y: E.bitwise_right_shift(y, x), a, b),
    }
    for name, fn in ops.items():
        setattr(Tensor, name, fn)
    for name, method in (("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"),
                         ("__itruediv__", "div_"), ("__ifloordiv__", "floor_divide_"), ("__imod__", "remainder_"),
                         ("__ipow__", "pow_")):
        setattr(Tensor, name, _iop(method))
    Tensor.__iand__ = P.bitwise_inplace(E.bitwise_and)
    Tensor.__ior__ = P.bitwise_inplace(E.bitwise_or)
    Tensor.__ixor__ = P.bitwise_inplace(E.bitwise_xor)
    Tensor.__ilshift__ = P.bitwise_inplace(E.bitwise_left_shift)
    Tensor.__irshift__ = P.bitwise_inplace(E.bitwise_right_shift)
    Tensor.__imatmul__ = lambda a, b: P.rebase(a, L.matmul(a, b))


def _add_slow(a, b):
    """a + b (and b + a), straight to the kernel for numbers and Tensors; the node keeps the input
    shapes (to reduce a broadcast gradient) in its kw."""
    c = b.__class__
    if c is float or c is int or c is Tensor:
        r = E.binary(E.AddBackward0, a, b)
        node = r.grad_fn
        if node is not None:
            node._kw = (a._data.shape, b._data.shape if c is Tensor else None, 1)
        return r
    b = E.coerce(b)
    if b is NotImplemented:
        return b
    return E.add(a, b)


def _mul_slow(a, b):
    """a * b (and b * a), straight to the op's kernel for numbers and Tensors."""
    c = b.__class__
    if c is float or c is int or c is Tensor:
        return E.binary(E.MulBackward0, a, b)
    b = E.coerce(b)
    if b is NotImplemented:
        return b
    return E.mul(a, b)


def _sub_slow(a, b):
    c = b.__class__
    if c is not float and c is not int and c is not Tensor:
        b = E.coerce(b)
        if b is NotImplemented:
            return b
    return E.sub(a, b)


def _div_slow(a, b):
    c = b.__class__
    if c is not float and c is not int and c is not Tensor:
        b = E.coerce(b)
        if b is NotImplemented:
            return b
    return E.div(a, b)


# The operators: 0-d scalar chains (a 0-d float tensor with a number or a 0-d tensor) computed and
# recorded in one call (scalar_operator), the rest through the functions above. The kw are
# AddBackward0/SubBackward0's (shape of a, shape of b or None for a number, alpha) for 0-d operands.
_add_op = E.scalar_operator("_add_op", E.AddBackward0, _op_add, _add_slow, ((), None, 1), ((), (), 1))
_mul_op = E.scalar_operator("_mul_op", E.MulBackward0, _op_mul, _mul_slow)
_sub_op = E.scalar_operator("_sub_op", E.SubBackward0, _op_sub, _sub_slow, ((), None, 1), ((), (), 1))
_div_op = E.scalar_operator("_div_op", E.DivBackward0, _op_truediv, _div_slow)


def _binop(fn, a, b, tensors_only=False):
    b = E.coerce(b)
    if b is NotImplemented or (tensors_only and not isinstance(b, Tensor)):
        return NotImplemented
    return fn(a, b)


def _rop(fn, a, b, tensors_only=False, ndarray_ok=False):
    """A reflected operator (b OP a): like torch, a NumPy array on the left is refused (NotImplemented),
    except by / (torch's __rtruediv__ is reciprocal() * other)."""
    if not ndarray_ok and isinstance(b, np.ndarray):
        return NotImplemented
    b = E.coerce(b)
    if b is NotImplemented or (tensors_only and not isinstance(b, Tensor)):
        return NotImplemented
    return fn(a, b)


def _invert(a):
    if a.dtype.name == "bool":
        return E.logical_not(a)
    if a.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return E.bitwise_not(a)


def _cmp(fn, a, b):
    """< <= > >= != : torch refuses a NumPy array operand (NotImplemented; == takes it)."""
    return NotImplemented if isinstance(b, np.ndarray) else fn(a, b)


def _radd_op(a, b):
    """b + a: a NumPy array on the left is refused, as torch's reflected operators do."""
    return NotImplemented if isinstance(b, np.ndarray) else _add_op(a, b)


def _rmul_op(a, b):
    return NotImplemented if isinstance(b, np.ndarray) else _mul_op(a, b)


def _iop(method):
    def op(self, other):
        if isinstance(other, np.ndarray):  # torch: x += array falls back to x = x + array
            return NotImplemented
        other = E.coerce(other)
        if other is NotImplemented:
            return NotImplemented
        return getattr(self, method)(other)
    return op


def _new(kind):
    def new(self, *args, dtype=None, device=None, requires_grad=False, **kw):
        from . import factory  # noqa: PLC0415
        fn = getattr(factory, kind)
        return fn(*args, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)
    new.__name__ = "new_" + kind
    return new


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    from . import factory  # noqa: PLC0415
    return factory.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                        requires_grad=requires_grad)


_install()
for _name, _fn in _rng_factory.TENSOR_METHODS.items():  # x.uniform_(), x.normal_(), ...: torch's random kernels
    setattr(Tensor, _name, _fn)
for _name, _fn in _BREADTH_INPLACE.items():  # x.name_() of the breadth ops: their own in-place wrappers
    setattr(Tensor, _name, _fn)


def _python_level_methods():
    """torch/_tensor.py defines these Tensor methods in Python, so their TypeErrors name them Tensor.split()
    where torch.split's say split(). The method is a copy of the same function (same code and defaults, no
    wrapper) under that qualname."""
    import types  # noqa: PLC0415
    for name in ("norm", "split", "unflatten", "unique", "unique_consecutive"):
        fn = Tensor.__dict__.get(name)
        if isinstance(fn, types.FunctionType) and fn.__qualname__ == name:
            method = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
            method.__kwdefaults__ = fn.__kwdefaults__
            method.__dict__.update(fn.__dict__)
            method.__qualname__ = "Tensor." + name
            setattr(Tensor, name, method)


_python_level_methods()
