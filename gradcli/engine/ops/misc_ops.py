"""Small Tensor methods the coverage sweep (tools/gen_coverage.py, docs/coverage.md) found missing:
view_as, reshape_as, is_same_size, is_signed, is_nonzero, heaviside(_) and split_with_sizes; the
unsafe_split / unsafe_chunk / unsafe_split_with_sizes that users hit; and (misc_more.py) torch.fill,
torch.scalar_tensor, torch.range, torch.unravel_index, fill_diagonal_, Tensor.prelu, torch.get_device."""
from __future__ import annotations

from .. import errors
from ..argcheck import wrong_type
from ..device import xp_of
from ..function import record_multi
from ..tensor import Tensor, wrap, wrap_dim
from . import shape as S
from . import join_split as JS
from .elementwise_common import broadcast_error, not_implemented
from .registry import Sample, op, tables
from . import misc_more as MORE
from . import numeric_gradient as NG


def _tensor_arg(fn, value, name="other"):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position 1) must be Tensor, not {type(value).__name__}")
    return value


def view_as(input, other):
    return S.view(input, tuple(_tensor_arg("view_as", other)._data.shape))


def reshape_as(input, other):
    return S.reshape(input, tuple(_tensor_arg("reshape_as", other)._data.shape))


def is_same_size(input, other):
    if not isinstance(other, Tensor):
        raise wrong_type("is_same_size", "other", 2, "Tensor", other)  # (x.is_same_size's position 1: as_method)
    return input._data.shape == other._data.shape


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
    try:  # the dtypes are checked first, then TensorIterator's broadcast
        out = wrap(xp.where(x == 0, v, (x > 0).astype(x.dtype)).astype(x.dtype), input.dtype)
    except ValueError:
        raise broadcast_error(input, values) from None
    return not_implemented(out, (input, values), "aten::heaviside")


def split_with_sizes(input, split_sizes, dim=0):
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not "
                        f"{type(split_sizes).__name__}")
    return JS.split(input, list(split_sizes), dim)


class UnsafeSplitBackward0(JS.SplitBackward0):
    __slots__ = ()


class UnsafeSplitWithSizesBackward0(JS.SplitBackward0):
    __slots__ = ()


def _unsafe(input, pieces, cls, dim):
    """split's pieces as torch's unsafe_ forms give them: tensors of their own (no view tracking: an
    in-place change of one is no error), on the input's memory, one multi-output node."""
    outs = [wrap(p._data, input.dtype) for p in pieces]
    return tuple(record_multi(cls, (input,), outs, {"dim": wrap_dim(dim, input._data.ndim)}))


def unsafe_split(input, split_size, dim=0):
    if not isinstance(split_size, int) or isinstance(split_size, bool):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 1) must be int, not "
                        f"{type(split_size).__name__}")
    return _unsafe(input, JS.split(input.detach(), split_size, dim), UnsafeSplitBackward0, dim)


def unsafe_chunk(input, chunks, dim=0):
    return _unsafe(input, JS.chunk(input.detach(), chunks, dim), UnsafeSplitBackward0, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError(f"unsafe_split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, "
                        f"not {type(split_sizes).__name__}")
    return _unsafe(input, JS.split(input.detach(), list(split_sizes), dim), UnsafeSplitWithSizesBackward0, dim)


# One declaration per op (registry.py); the is_* answer bools
_BOOL = "a bool answer"
OPS = MORE.OPS + NG.OPS + [
    op("view_as", view_as, S.ViewBackward0, torch=False,
       sample=Sample([((2, 3),)], call=lambda torch, x: x.view_as(torch.zeros(3, 2, dtype=x.dtype)))),
    op("reshape_as", reshape_as, S.ViewBackward0, S.UnsafeViewBackward0, torch=False, sample=Sample(
        [((2, 3),)], call=lambda torch, x: (x.reshape_as(torch.zeros(6, dtype=x.dtype)),
                                            x.t().reshape_as(torch.zeros(3, 2))))),
    op("is_same_size", is_same_size, no_grad=_BOOL),
    op("is_signed", is_signed, no_grad=_BOOL),
    op("is_nonzero", is_nonzero, no_grad=_BOOL),
    op("is_complex", lambda input: input.is_complex(), method=False, no_grad=_BOOL),
    op("heaviside", heaviside, no_grad="torch records NotImplemented (no derivative for heaviside)", inplace="copy"),
    op("split_with_sizes", split_with_sizes, JS.SplitWithSizesBackward0,
       sample=Sample([((3,),), ((2, 3),)], call=lambda torch, x: x.split_with_sizes([1, 2], dim=-1))),
    op("unsafe_split", unsafe_split, UnsafeSplitBackward0,
       sample=Sample([((3,),), ((2, 3),)], call=lambda torch, x: x.unsafe_split(2, dim=-1))),
    op("unsafe_chunk", unsafe_chunk, UnsafeSplitBackward0,
       sample=Sample([((3,),), ((4, 3),)], call=lambda torch, x: torch.unsafe_chunk(x, 2))),
    op("unsafe_split_with_sizes", unsafe_split_with_sizes, UnsafeSplitWithSizesBackward0,
       sample=Sample([((3,),), ((2, 3),)], call=lambda torch, x: x.unsafe_split_with_sizes([1, 2], dim=-1))),
]
_TABLES = tables(OPS, None)
METHODS = _TABLES["METHODS"]  # Tensor methods (and torch.<name>, but for METHOD_ONLY's)
INPLACE = _TABLES["INPLACE"]
METHOD_ONLY = tuple(_TABLES["METHOD_ONLY"])  # Tensor methods that are not torch.<name> functions
TORCH = _TABLES["TORCH"]
