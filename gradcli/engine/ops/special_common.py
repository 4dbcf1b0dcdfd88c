"""The special family's shared parts (ops/special.py is the family): constants, the float-only check,
the host-kernel runner, warn_once, the in-place wrapper of the family (`inplace_method`) and the
declarations' shorthands (`IP`: x.name_(), `TIP`: also torch.name_(x)).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..warnonce import reset_warn_once, warn_once  # noqa: F401 - the families import them here
from ..autograd import make_node
from ..device import CPU, to_device, xp_of
from ..device import asarray as _asarray
from ..device import device as _device
from ..function import Function
from ..tensor import Tensor, wrap
from . import elementwise_common as EC

SQRT_PI = math.sqrt(math.pi)
LN2 = math.log(2.0)
SQRT1_2 = math.sqrt(0.5)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


# ---------------------------------------------------------------------------- helpers

def _c10(dt):
    return EC.c10_name(dt)


def not_implemented(kernel, dt):
    err = NotImplementedError(f'"{kernel}" not implemented for \'{_c10(dt)}\'')
    err.gradcli_hint = "float_dtype"
    return err


def need_float(x, kernel):
    if not x.dtype.is_floating_point:
        raise not_implemented(kernel, x.dtype)


def host_kernel(fn):
    """Run a NumPy-only kernel (math.erf, ...) on any device's array."""
    def run(a):
        if xp_of(a) is np:
            return fn(a)
        return to_device(fn(to_device(a, CPU)), _device("cuda", 0))
    return run


def wrap_as(arr, dt):
    return wrap(_asarray(arr).astype(dt.np, copy=False), dt)


def _tensors(*xs):
    return tuple(x for x in xs if isinstance(x, Tensor))


def _twin(t):
    """A copy of t that takes t's place in the graph: what an in-place op's node saves as `self`
    (torch saves the original value; t itself is about to be overwritten)."""
    c = wrap(t._data.copy(), t.dtype)
    c.grad_fn = t.grad_fn
    c._output_nr = t._output_nr
    c._rg = t._rg
    return c


_BAD_INPLACE_CALL = frozenset({"addmm_", "addmv_", "baddbmm_"})
# the binary in-place ops whose kernel refuses a dtype after TensorIterator's output checks (x.gcd_(floats):
# "result type Float can't be cast to ... Long", not the kernel's "gcd_cpu" error)
_ITERATOR_FIRST = frozenset({"gcd_", "lcm_"})


def inplace_method(fn, name, inplace_node=None):
    """x.name_(...): fn computed on the original value, written back into x (version bumped, x
    takes the new node). inplace_node: a node class replacing fn's node (AcoshBackward1...)."""
    from .indexing import check_inplace  # noqa: PLC0415
    from .inplace import rebase  # noqa: PLC0415
    from .inplace_checks import (ITERATOR_INPLACE, OVERLAP_WRITES, c10, check_iterator_output, check_iterator_overlap,  # noqa: PLC0415
                                 check_source_overlap, warn_expanded_write)
    overlap_ok = name in OVERLAP_WRITES
    iterator_first = name in _ITERATOR_FIRST
    iterator = name in ITERATOR_INPLACE

    def method(self, *args, **kwargs):
        if name == "float_power_" and self.dtype is not dtypes.float64:  # (composite: before autograd's checks)
            raise errors.runtime(f"the base given to float_power_ has dtype {c10(self.dtype)} but the operation's "
                                 "result requires dtype Double")
        check_inplace(self)
        if iterator:
            check_iterator_overlap(self, args, kwargs)
        if iterator_first and args:
            check_iterator_output(self, args[0])
        r = fn(_twin(self) if self._rg else self, *args, **kwargs)
        if inplace_node is not None and r.grad_fn is not None:
            old = r.grad_fn
            node = make_node(inplace_node, (self,), r.dtype, old._saved, old._kw)
            node.next_functions = old.next_functions
            r.grad_fn = node
        check_source_overlap(name, self, args, kwargs)
        warn_expanded_write(name, self, args, kwargs)
        if name in _BAD_INPLACE_CALL and r._data.shape != self._data.shape:  # the BLAS ops' own check
            raise errors.runtime(f"Bad in-place call: input tensor size [{', '.join(map(str, self._data.shape))}] "
                                 f"and output tensor size [{', '.join(map(str, r._data.shape))}] should match")
        return rebase(self, r, overlap_ok=overlap_ok)
    method.__name__ = name
    return method


class _InplaceNotImplemented(Function):
    __slots__ = ()
    _op = ""

    def backward(self, g):
        raise NotImplementedError(f"the derivative for 'inplace version of {self._op}' is not implemented.")


class AcoshBackward1(_InplaceNotImplemented):
    __slots__ = ()
    explain = "none: torch has no derivative for acosh_ in place"
    replay = staticmethod(lambda xs, kw, outs: [np.arccosh(xs[0])])
    _op = "acosh"


class AsinhBackward1(_InplaceNotImplemented):
    __slots__ = ()
    explain = "none: torch has no derivative for asinh_ in place"
    replay = staticmethod(lambda xs, kw, outs: [np.arcsinh(xs[0])])
    _op = "asinh"


class AtanhBackward1(_InplaceNotImplemented):
    __slots__ = ()
    explain = "none: torch has no derivative for atanh_ in place"
    replay = staticmethod(lambda xs, kw, outs: [np.arctanh(xs[0])])
    _op = "atanh"


def maybe_inplace(fn, input, inplace, *args):
    """fn(input, *args), or its in-place form (same node, saving the original value): an activation's
    inplace=True."""
    if inplace:
        return inplace_method(fn, fn.__name__ + "_")(input, *args)
    return fn(input, *args)


def inplace_call(name, namespace=""):
    """The gradient checks' call of an in-place activation: on a copy of the leaf."""
    def call(torch, x):
        return getattr(torch.nn.functional if namespace == "F" else torch, name)(x * 1)
    return call


# One declaration per op (registry.py): its names, in-place forms, nodes and gradient-check sample.
# ip: x.name_() (in place); tip: also torch.name_(x)
BOOL_RESULT = "a bool result"
IP = {"inplace": True}
TIP = {"inplace": True, "torch_inplace": True}

