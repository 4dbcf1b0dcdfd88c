"""Small Tensor methods the coverage sweep (tools/gen_coverage.py, docs/coverage.md) found missing:
view_as, reshape_as, is_same_size, is_signed, is_nonzero, heaviside and split_with_sizes."""
from __future__ import annotations

from .. import errors
from ..device import xp_of
from ..tensor import Tensor, wrap
from . import shape as S
from .elementwise import not_implemented
from .registry import Sample, op, tables


def _tensor_arg(fn, value, name="other"):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position 1) must be Tensor, not {type(value).__name__}")
    return value


def view_as(input, other):
    return S.view(input, tuple(_tensor_arg("view_as", other)._data.shape))


def reshape_as(input, other):
    return S.reshape(input, tuple(_tensor_arg("reshape_as", other)._data.shape))


def is_same_size(input, other):
    return input._data.shape == _tensor_arg("is_same_size", other)._data.shape


def is_signed(input):
    return input.dtype.name not in ("uint8", "bool")


def is_nonzero(input):
    if input.numel() == 0:
        raise errors.runtime("Boolean value of Tensor with no values is ambiguous")
    if input.numel() != 1:
        raise errors.runtime("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0] != 0)


def heaviside(input, values):
    values = _tensor_arg("heaviside", values, "values")
    if input.dtype is not values.dtype:
        raise errors.runtime("heaviside is not yet implemented for tensors with different dtypes.")
    x, v = input._data, values._data
    xp = xp_of(x)
    out = wrap(xp.where(x == 0, v, (x > 0).astype(x.dtype)).astype(x.dtype), input.dtype)
    return not_implemented(out, (input, values), "aten::heaviside")


def split_with_sizes(input, split_sizes, dim=0):
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not "
                        f"{type(split_sizes).__name__}")
    return S.split(input, list(split_sizes), dim)


# One declaration per op (registry.py); the is_* answer bools
_BOOL = "a bool answer"
OPS = [
    op("view_as", view_as, S.ViewBackward0, torch=False,
       sample=Sample([((2, 3),)], call=lambda torch, x: x.view_as(torch.zeros(3, 2, dtype=x.dtype)))),
    op("reshape_as", reshape_as, S.ViewBackward0, S.UnsafeViewBackward0, torch=False, sample=Sample(
        [((2, 3),)], call=lambda torch, x: (x.reshape_as(torch.zeros(6, dtype=x.dtype)),
                                            x.t().reshape_as(torch.zeros(3, 2))))),
    op("is_same_size", is_same_size, torch=False, no_grad=_BOOL),
    op("is_signed", is_signed, torch=False, no_grad=_BOOL),
    op("is_nonzero", is_nonzero, no_grad=_BOOL),
    op("is_complex", lambda input: input.is_complex(), method=False, no_grad=_BOOL),
    op("heaviside", heaviside, no_grad="torch records NotImplemented (no derivative for heaviside)"),
    op("split_with_sizes", split_with_sizes, S.SplitWithSizesBackward0,
       sample=Sample([((3,),), ((2, 3),)], call=lambda torch, x: x.split_with_sizes([1, 2], dim=-1))),
]
_TABLES = tables(OPS, None)
METHODS = _TABLES["METHODS"]  # Tensor methods (and torch.<name>, but for METHOD_ONLY's)
INPLACE = _TABLES["INPLACE"]
METHOD_ONLY = tuple(_TABLES["METHOD_ONLY"])  # Tensor methods that are not torch.<name> functions
TORCH = _TABLES["TORCH"]
