"""In-place ops (`add_`, `x += y`, `zero_`, `fill_`, `copy_`, `clamp_`...): computed like the
out-of-place op, written into the tensor's own memory, version bumped, and the tensor takes the
new node, exactly the observable behaviour of torch's in-place ops."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..autograd import grad_mode
from ..function import Function, record
from ..tensor import Tensor
from .indexing import check_inplace


def _c10(dt):
    from .elementwise import _c10_name  # noqa: PLC0415
    return _c10_name(dt)


def rebase(self, r):
    """Make `self` hold r's value and r's place in the graph, in place."""
    if r.dtype is not self.dtype:
        if not _can_cast(r.dtype, self.dtype):
            raise errors.runtime(f"result type {_c10(r.dtype)} can't be cast to the desired output type "
                                 f"{_c10(self.dtype)}")
    if r._data.shape != self._data.shape:
        raise errors.runtime(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                             f"broadcast shape [{', '.join(map(str, r._data.shape))}]")
    data = self._data
    if not data.flags.writeable:
        raise errors.runtime("unsupported operation: more than one element of the written-to tensor refers to a "
                             "single memory location. Please clone() the tensor before performing the operation.")
    data[...] = r._data
    self._version[0] += 1
    if r.grad_fn is not None:
        self.grad_fn = r.grad_fn
        self._output_nr = r._output_nr
        self._rg = True
        if self._retains:
            node = r.grad_fn
            if node._retained is None:
                node._retained = {}
            import weakref  # noqa: PLC0415
            node._retained[r._output_nr] = weakref.ref(self)
    return self


def _can_cast(src, dst):
    from .. import dtypes  # noqa: PLC0415
    return dtypes.promote_types(src, dst) is dst or src.category <= dst.category


def inplace(fn, name):
    def method(self, *args, **kwargs):
        check_inplace(self)
        return rebase(self, fn(self, *args, **kwargs))
    method.__name__ = name
    return method


class ZeroBackward0(Function):
    __slots__ = ()

    def backward(self, g):
        return (g * 0,)


class FillBackward0(ZeroBackward0):
    __slots__ = ()


class FillBackward1(Function):
    """fill_ with a tensor value: the value gets the sum of the gradient."""
    __slots__ = ()

    def backward(self, g):
        return (g * 0, g.sum())


def _fill(self, value, cls):
    check_inplace(self)
    v = value._data if isinstance(value, Tensor) else value
    self._data[...] = v
    self._version[0] += 1
    if grad_mode.enabled and (self._rg or (isinstance(value, Tensor) and value._rg)):
        out = Tensor.__new__(Tensor)
        from ..tensor import _init_from  # noqa: PLC0415
        _init_from(out, self._data, self.dtype)
        inputs = (self, value) if isinstance(value, Tensor) else (self,)
        record(FillBackward1 if isinstance(value, Tensor) else cls, inputs, out)
        self.grad_fn = out.grad_fn
        self._output_nr = 0
        self._rg = True
    return self


def zero_(self):
    return _fill(self, 0, ZeroBackward0)


def fill_(self, value):
    return _fill(self, value, FillBackward0)


class CopyBackwards(Function):
    __slots__ = ()

    def backward(self, g):
        from .shape import sum_to  # noqa: PLC0415
        k = self._kw
        gsrc = sum_to(g, k["src_shape"]).to(k["src_dtype"]) if self.next_functions[1][0] is not None else None
        return g * 0, gsrc


def copy_(self, src, non_blocking=False):
    check_inplace(self)
    try:
        np.copyto(self._data, np.broadcast_to(src._data, self._data.shape).astype(self._data.dtype, copy=False))
    except ValueError:
        raise errors.runtime(f"The size of tensor a ({self.shape[-1] if self.ndim else 1}) must match the size of "
                             f"tensor b ({src.shape[-1] if src.ndim else 1}) at non-singleton dimension "
                             f"{self.ndim - 1}") from None
    self._version[0] += 1
    if grad_mode.enabled and (self._rg or src._rg):
        out = Tensor.__new__(Tensor)
        from ..tensor import _init_from  # noqa: PLC0415
        _init_from(out, self._data, self.dtype)
        record(CopyBackwards, (self, src), out, {"src_shape": src._data.shape, "src_dtype": src.dtype})
        self.grad_fn = out.grad_fn
        self._output_nr = 0
        self._rg = True
    return self
