"""x * log(y) and x * log1p(y): torch.xlogy and torch.special.xlog1py, 0 where x is 0 (NaN where y
is NaN), for tensors and numbers on either side, and their declarations (OPS), joined into the
special family by special.py. Both share the kernel's shape (`_xlog`) and their nodes' backward
(`_XlogBackward0/1`: the number-operand forms).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors, numerics
from ..device import asarray as _asarray
from ..device import xp_of
from ..function import Function, inference_leaf, record, wrapped_number
from ..tensor import Tensor, wrap
from . import elementwise_common as EC
from . import unary_math as UM
from .clamp_where import where
from .elementwise_common import needs_input_grad, operand, shaped
from .registry import V, case, op, sample2
from .special_common import TIP, wrap_as


def _xlogy_np(x, y):
    with np.errstate(all="ignore"):
        r = x * np.log(y)
    r = np.where(np.equal(x, 0), np.where(np.isnan(y), np.nan, 0.0)[()], r)  # [()]: a number stays a number
    return _asarray(r)


def _xlogy_grad(g, other):
    """at::xlogy(grad, other): g * log(other), 0 where g == 0 (differentiable in g and other)."""
    return where(g == 0, 0.0, g * UM.log(other))


class _XlogBackward0(Function):
    """xlogy (shift 0) and xlog1py (shift 1) of two tensors. torch: self: at::xlogy(grad, other)
    .masked_fill((self == 0.) & (other <= 0.), 0.) (xlog1py: other <= -1.); other: grad * self / other
    (xlog1py: other + 1)."""
    __slots__ = ()
    save_inputs = True
    shift = 0

    def backward(self, g):
        x, y = self.saved
        gx = gy = None
        if needs_input_grad(self, 0):
            from .gather_scatter import masked_fill  # noqa: PLC0415 - indexing is imported after this module
            gx = masked_fill(self.op(g, y), (x == 0.0) & (y <= -self.shift), 0)
        if needs_input_grad(self, 1):
            gy = g * x / (y + self.shift if self.shift else y)
        return shaped(gx, x), shaped(gy, y)


class _XlogBackward1(Function):
    """xlogy and xlog1py of (number, tensor): grad * self / other (xlog1py: other + 1)."""
    __slots__ = ()
    save_inputs = True
    shift = 0

    def backward(self, g):
        (y,) = self.saved
        return (g * self._kw["self"] / (y + self.shift if self.shift else y),)


class XlogyBackward0(_XlogBackward0):
    __slots__ = ()
    explain = ("log({b})", "{pa} / {pb}")
    forward = staticmethod(_xlogy_np)
    op = staticmethod(lambda g, y: xlogy(g, y))


class XlogyBackward1(_XlogBackward1):
    """xlogy(number, tensor)."""
    __slots__ = ()
    explain = "{kw[self]} / {pa}"
    replay = staticmethod(lambda xs, kw, outs: [_xlogy_np(kw["self"], xs[0])])


class XlogyBackward2(Function):
    """xlogy(tensor, number)."""
    __slots__ = ()
    explain = "log({kw[other]}) (0 where {a} == 0)"
    replay = staticmethod(lambda xs, kw, outs: [_xlogy_np(xs[0], kw["other"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        other = self._kw["other"]
        gx = _xlogy_grad(g, _full_like(x, other))
        if not other > 0.0:
            gx = where(x == 0.0, 0.0, gx)
        return (gx,)


def _full_like(t, value):
    return wrap(xp_of(t._data).full(t._data.shape, value, t._data.dtype), t.dtype)


def xlogy(input, other):
    other = operand(other)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise errors.type_error("xlogy() received an invalid combination of arguments")
    return _xlog(input, other, _xlogy_np, (XlogyBackward0, XlogyBackward1, XlogyBackward2))


def _xlog(input, other, kernel, nodes):
    """xlogy and xlog1py: kernel(input, other) in the float dtype of the two; nodes: the node of
    (tensor, tensor), (number, tensor) and (tensor, number)."""
    dt = EC.float_division(dtypes.result_type((input, other)))
    x, y = EC.binary_operands(input, other, dt)
    if dt is dtypes.float16:  # torch's Half kernel: a number made Half too, each step rounded to Half
        x, y = np.asarray(x, np.float16), np.asarray(y, np.float16)
    try:
        r = kernel(x, y)
    except ValueError:
        raise EC.broadcast_error(input, other) from None
    out = wrap_as(r, dt)
    # the Scalar overloads' kernels wrap the number in a normal tensor: an inference leaf is recorded
    if not isinstance(input, Tensor):
        if inference_leaf(other):
            return record(nodes[0], (wrapped_number(input), other), out)
        return record(nodes[1], (other,), out, {"self": input})
    if not isinstance(other, Tensor):
        if inference_leaf(input):
            return record(nodes[0], (input, wrapped_number(other)), out)
        return record(nodes[2], (input,), out, {"other": other})
    return record(nodes[0], (input, other), out)


def _xlog1py_np(x, y):
    with np.errstate(all="ignore"):
        r = x * numerics.ufunc(np.log1p)(y)
    r = np.where(np.equal(x, 0), np.where(np.isnan(y), np.nan, 0.0)[()], r)  # [()]: a number stays a number
    return _asarray(r)


class SpecialXlog1PyBackward0(_XlogBackward0):
    __slots__ = ()
    explain = ("log1p({b})", "{pa} / ({b} + 1)")
    forward = staticmethod(_xlog1py_np)
    op = staticmethod(lambda g, y: xlog1py(g, y))
    shift = 1


class SpecialXlog1PyBackward1(_XlogBackward1):
    """xlog1py(number, tensor)."""
    __slots__ = ()
    explain = "{kw[self]} / ({a} + 1)"
    replay = staticmethod(lambda xs, kw, outs: [_xlog1py_np(kw["self"], xs[0])])
    shift = 1


class SpecialXlog1PyBackward2(Function):
    """xlog1py(tensor, number)."""
    __slots__ = ()
    explain = "log1p({kw[other]}) (0 where {a} == 0 and the number <= -1)"
    replay = staticmethod(lambda xs, kw, outs: [_xlog1py_np(xs[0], kw["other"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        other = self._kw["other"]
        gx = xlog1py(g, other)  # torch: other > -1 ? xlog1py(grad, other) : ... .masked_fill(self == 0., 0.)
        if not other > -1.0:
            gx = where(x == 0.0, 0.0, gx)
        return (gx,)


def xlog1py(input, other):
    """torch.special.xlog1py: input * log1p(other), 0 where input is 0 (NaN where other is NaN)."""
    if isinstance(other, (Tensor, int, float)):
        other = operand(other)
    if not (isinstance(input, Tensor) and isinstance(other, (Tensor, int, float))
            or isinstance(other, Tensor) and isinstance(input, (int, float))):
        from ..argcheck import typename  # noqa: PLC0415
        raise errors.type_error(
            f"special_xlog1py() received an invalid combination of arguments - got ({typename(input)}, "
            f"{typename(other)}), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n")
    return _xlog(input, other, _xlog1py_np, (SpecialXlog1PyBackward0, SpecialXlog1PyBackward1,
                                             SpecialXlog1PyBackward2))


# ---------------------------------------------------------------------------- declarations

# One declaration per op (registry.py), joined into the special family's by special.py
OPS = [
    op("xlogy", xlogy, XlogyBackward0, XlogyBackward1, XlogyBackward2, special=True,
       sample=sample2("any", "pos"), **TIP,
       cases={"xlogy": case(lambda torch, x0, x1: torch.xlogy(x0, x1), V.A, V.P),
              "xlogy_scalar": case(lambda torch, x: torch.xlogy(x, 2.5), V.A),
              "xlogy_number_self": case(lambda torch, y: torch.xlogy(1.5, y), V.P)}),
    op("xlog1py", xlog1py, SpecialXlog1PyBackward0, SpecialXlog1PyBackward1, SpecialXlog1PyBackward2, method=False,
       torch=False, special=True, sample=sample2("any", "pos")),
]
