"""Matrix products: mm, mv, dot, bmm, addmm, matmul (torch's dispatch by rank), outer."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..function import Function, record
from ..tensor import Tensor, wrap
from .shape import expand, reshape, squeeze, sum_to, t, transpose, unsqueeze


def _c10_low(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}[dt.name]


def _same_dtype(a, b):
    if a.dtype is not b.dtype:
        raise errors.runtime(f"expected m1 and m2 to have the same dtype, but got: {_c10_low(a.dtype)} != "
                             f"{_c10_low(b.dtype)}", hint="dtype_mismatch")


class MmBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((1,), (0,))

    @staticmethod
    def forward(a, b):
        return a @ b

    def backward(self, g):
        a, b = self.saved
        ga = mm(g, t(b)) if self.next_functions[0][0] is not None else None
        gb = mm(t(a), g) if self.next_functions[1][0] is not None else None
        return ga, gb


def mm(input, mat2):
    if input._data.ndim != 2:
        raise errors.runtime("self must be a matrix")
    if mat2._data.ndim != 2:
        raise errors.runtime("mat2 must be a matrix")
    _same_dtype(input, mat2)
    (n, k), (k2, m) = input._data.shape, mat2._data.shape
    if k != k2:
        raise errors.runtime(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})",
                             hint="matmul_shape")
    return record(MmBackward0, (input, mat2), wrap(input._data @ mat2._data, input.dtype))


class MvBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((1,), (0,))

    def backward(self, g):
        a, v = self.saved
        ga = unsqueeze(g, 1) * unsqueeze(v, 0) if self.next_functions[0][0] is not None else None
        gv = mv(t(a), g) if self.next_functions[1][0] is not None else None
        return ga, gv


def mv(input, vec):
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise errors.runtime(f"vector + matrix @ vector expected, got {vec._data.ndim}, {input._data.ndim}, "
                             f"{vec._data.ndim}")
    _same_dtype(input, vec)
    if input._data.shape[1] != vec._data.shape[0]:
        n, k = input._data.shape
        raise errors.runtime(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({vec._data.shape[0]})")
    return record(MvBackward0, (input, vec), wrap(input._data @ vec._data, input.dtype))


class DotBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((1,), (0,))

    def backward(self, g):
        a, b = self.saved
        return (g * b if self.next_functions[0][0] is not None else None,
                g * a if self.next_functions[1][0] is not None else None)


def dot(input, other):
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise errors.runtime(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input.dtype is not other.dtype:
        from .elementwise import _c10_name  # noqa: PLC0415
        raise errors.runtime(f"dot : expected both vectors to have same dtype, but found {_c10_name(input.dtype)} "
                             f"and {_c10_name(other.dtype)}")
    n, m = input._data.shape[0], other._data.shape[0]
    if n != m:
        raise errors.runtime(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                             f"number of elements, but got {n} and {m} elements respectively")
    return record(DotBackward0, (input, other), wrap(np.asarray(np.dot(input._data, other._data)), input.dtype))


inner = dot
vdot = dot


class BmmBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((1,), (0,))

    def backward(self, g):
        a, b = self.saved
        ga = bmm(g, transpose(b, 1, 2)) if self.next_functions[0][0] is not None else None
        gb = bmm(transpose(a, 1, 2), g) if self.next_functions[1][0] is not None else None
        return ga, gb


def bmm(input, mat2):
    if input._data.ndim != 3:
        raise errors.runtime("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise errors.runtime("batch2 must be a 3D tensor")
    _same_dtype(input, mat2)
    (b, n, k), (b2, k2, m) = input._data.shape, mat2._data.shape
    if b != b2 or k != k2:
        raise errors.runtime(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
                             f"[{b2}, {k2}].")
    return record(BmmBackward0, (input, mat2), wrap(np.matmul(input._data, mat2._data), input.dtype))


class AddmmBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((), (2,), (1,))

    def backward(self, g):
        bias, a, b = self.saved
        k = self._kw or {}
        beta, alpha = k.get("beta", 1), k.get("alpha", 1)
        gbias = sum_to(g * beta if beta != 1 else g, bias) if self.next_functions[0][0] is not None else None
        ga = mm(g, t(b)) if self.next_functions[1][0] is not None else None
        gb = mm(t(a), g) if self.next_functions[2][0] is not None else None
        if alpha != 1:
            ga = ga * alpha if ga is not None else None
            gb = gb * alpha if gb is not None else None
        return gbias, ga, gb


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    _same_dtype(mat1, mat2)
    (n, k), (k2, m) = mat1._data.shape, mat2._data.shape
    if k != k2:
        raise errors.runtime(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})",
                             hint="matmul_shape")
    prod = mat1._data @ mat2._data
    r = (input._data if beta == 1 else beta * input._data) + (prod if alpha == 1 else alpha * prod)
    kw = None if beta == 1 and alpha == 1 else {"beta": beta, "alpha": alpha}
    return record(AddmmBackward0, (input, mat1, mat2), wrap(np.asarray(r, mat1.dtype.np), mat1.dtype), kw)


class SqueezeBackward4(Function):
    __slots__ = ()

    def backward(self, g):
        return (unsqueeze(g, self._kw["dim"]),)


class UnsafeViewBackward0(Function):
    __slots__ = ()

    def backward(self, g):
        return (reshape(g, self._kw["in_shape"]),)


def _unsafe_view(x, shape):
    return record(UnsafeViewBackward0, (x,), wrap(x._data.reshape(shape), x.dtype), {"in_shape": x._data.shape})


def matmul(input, other):
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise errors.type_error(f"matmul(): argument 'other' (position 1) must be Tensor, not "
                                f"{type(other).__name__}")
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise errors.runtime(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        _same_dtype(input, other)
        if input._data.shape[0] != other._data.shape[0]:
            raise errors.runtime(f"mat1 and mat2 shapes cannot be multiplied (1x{input._data.shape[0]} and "
                                 f"{other._data.shape[0]}x{other._data.shape[1]})", hint="matmul_shape")
        r = mm(unsqueeze(input, 0), other)
        return record(SqueezeBackward4, (r,), wrap(r._data.reshape(r._data.shape[1:]), r.dtype), {"dim": 0})
    if da == 2 and db == 2:
        return mm(input, other)
    _same_dtype(input, other)
    if da >= 3 and db <= 2:
        # fold the batch into the rows: one mm, as torch does
        k = input._data.shape[-1]
        if db == 1:
            if other._data.shape[0] != k:
                raise errors.runtime(f"size mismatch, got input ({int(np.prod(input._data.shape[:-1]))}), "
                                     f"mat ({int(np.prod(input._data.shape[:-1]))}x{k}), vec "
                                     f"({other._data.shape[0]})")
            r = mv(reshape(input, (-1, k)), other)
            return _unsafe_view(r, input._data.shape[:-1])
        if other._data.shape[0] != k:
            rows = int(np.prod(input._data.shape[:-1]))
            raise errors.runtime(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
                                 f"{other._data.shape[0]}x{other._data.shape[1]})", hint="matmul_shape")
        r = mm(reshape(input, (-1, k)), other)
        return _unsafe_view(r, input._data.shape[:-1] + (other._data.shape[-1],))
    a = unsqueeze(input, 0) if da == 1 else input
    b = unsqueeze(other, -1) if db == 1 else other
    batch = np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2]) if True else None
    n, k = a._data.shape[-2:]
    k2, m = b._data.shape[-2:]
    if k != k2:
        raise errors.runtime(f"Expected size for first two dimensions of batch2 tensor to be: "
                             f"[{int(np.prod(batch))}, {k}] but got: [{int(np.prod(batch))}, {k2}].")
    a3 = reshape(expand(a, batch + (n, k)), (-1, n, k))
    b3 = reshape(expand(b, batch + (k, m)), (-1, k, m))
    r = bmm(a3, b3)
    shape = batch + (n, m)
    if da == 1:
        shape = batch + (m,)
    if db == 1:
        shape = batch + (n,)
    return _unsafe_view(r, shape)


def outer(input, vec2):
    return unsqueeze(input, 1) * unsqueeze(vec2, 0)


ger = outer
