"""The special family: elementwise extras and the activations, declared in its theme modules
(`special_unary.py`: erf family, exp/log variants, trig, sign and rounding; `special_binary.py`:
atan2, hypot, lerp, addcmul, ..., nan_to_num, logit; `special_xlog.py`: xlogy, xlog1py;
`activations.py`: the piecewise ones, elu, leaky_relu, hardtanh, ..., threshold;
`activations_smooth.py`: softplus, gelu, silu, mish, ..., glu; `special_common.py`: what they share), each with its declarations (OPS). This module joins
them into the family's OPS, derives its binding tables, and holds the in-place wrappers that
declarations of other families name (`inplace="compare"`, `"logical"`: registry.INPLACE_KINDS).
"""
from __future__ import annotations

from .. import errors
from ..device import asarray as _asarray
from ..function import Function, record
from ..tensor import Tensor, wrap
from . import activations, activations_smooth, special_binary, special_unary, special_xlog
from . import elementwise_common as EC
from . import unary_math as UM
from .elementwise_common import coerce
from .registry import op, sample1, tables
from .special_common import inplace_method

# ---------------------------------------------------------------------------- in-place comparisons


class _CompareInplace(Function):
    """x.eq_(y) and friends: x gets 0/1 in its own dtype; the gradient is zero."""
    __slots__ = ()

    def backward(self, g):
        return tuple(EC.zero_grad(g) if nf is not None else None for nf, _ in self.next_functions)


def _compare_classes(stem):
    zero = type(f"{stem}Backward0", (_CompareInplace,), {"__slots__": ()})
    one = type(f"{stem}Backward1", (_CompareInplace,), {"__slots__": ()})
    return zero, one


_COMPARE = {}
for _stem, _names in (("Eq", ("eq",)), ("Ne", ("ne", "not_equal")), ("Lt", ("lt", "less")),
                      ("Le", ("le", "less_equal")), ("Gt", ("gt", "greater")), ("Ge", ("ge", "greater_equal"))):
    _classes = _compare_classes(_stem)
    for _n in _names:
        _COMPARE[_n] = _classes


def compare_inplace(compare, name, node=None):
    """x.eq_(y), x.lt_(y) ... (declared inplace="compare" in comparison.py): x gets 0/1 in its own dtype
    and, a float x, the comparison's node (EqBackward0 for a number, EqBackward1 for a tensor)."""
    from .indexing import check_inplace  # noqa: PLC0415
    from .inplace import rebase  # noqa: PLC0415
    zero, one = _COMPARE[name[:-1]]

    def method(self, other):
        check_inplace(self)
        other = coerce(other)
        r = compare(self, other)
        out = wrap(_asarray(r._data).astype(self._data.dtype), self.dtype)
        if self.dtype.is_floating_point:
            if isinstance(other, Tensor):
                record(one, (self, other), out)
            else:
                record(zero, (self,), out)
        return rebase(self, out)
    method.__name__ = name
    return method


def logical_inplace(fn, name, node=None):
    """x.logical_and_(y) ... (declared inplace="logical" in comparison.py): x gets 0/1 in its own dtype;
    as in torch, no node is recorded (x keeps its grad_fn)."""
    from .indexing import check_inplace  # noqa: PLC0415

    def method(self, *other):
        check_inplace(self)
        r = fn(self, *other)
        if r._data.shape != self._data.shape:
            raise errors.runtime(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                                 f"broadcast shape [{', '.join(map(str, r._data.shape))}]")
        self._data[...] = r._data.astype(self._data.dtype)
        self._version[0] += 1
        return self
    method.__name__ = name
    return method


# ---------------------------------------------------------------------------- declarations

# One declaration per op (registry.py), in its theme module
OPS = [
    *special_unary.OPS,
    *special_binary.OPS,
    *special_xlog.OPS,
    *activations.OPS,
    *activations_smooth.OPS,
    op("expit", UM.sigmoid, UM.SigmoidBackward0, method=False, torch=False, special=True, sample=sample1()),
]
_TABLES = tables(OPS, inplace_method)
METHODS = _TABLES["METHODS"]     # Tensor methods (and torch.<name>): name -> function taking the tensor first
INPLACE = _TABLES["INPLACE"]     # x.name_() (the out-of-place op on x's original value, written back into x)
TORCH = _TABLES["TORCH"]         # torch.<name> only (not Tensor methods); torch.name_(x, ...) is x.name_(...)
FUNCTIONAL = _TABLES["FUNCTIONAL"]  # torch.nn.functional.<name>, for the nn package to bind (it owns F)
SPECIAL = _TABLES["SPECIAL"]     # torch.special.<name>
