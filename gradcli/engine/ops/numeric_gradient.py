"""torch.gradient (declared in misc_ops.py's family): ATen's composite (ReduceOps.cpp's gradient_helper and
gradient_helper_float), op for op so that values and graphs are torch's: central differences inside
(slices, Sub, Div by the Scalar spacing: DivBackward1), one-sided ones of first or second order at both
ends, joined by cat (CatBackward0); with coordinate tensors, the weights of the non-uniform formula."""
from __future__ import annotations

from .. import errors
from ..tensor import Tensor, wrap_dim
from . import arithmetic as AR
from . import shape as S
from .elementwise_common import div_scalar, mul_scalar
from .indexing import getitem
from .join_split import cat
from .registry import Sample, op


def _slice(t, d, start, end=None):
    return getitem(t, (slice(None),) * d + (slice(start, end),))


def _div(t, h):
    """t / the Scalar spacing: DivBackward1 for floats; an integer tensor is divided truly (a float result)."""
    return div_scalar(t, h) if t.dtype.is_floating_point else AR.div(t, h)


def _mul(t, s):
    """t * a Python number: MulBackward1 for floats; an integer tensor times a float becomes a float."""
    return mul_scalar(t, s) if t.dtype.is_floating_point else AR.mul(t, s)


def _uniform(x, d, h, edge_order):
    center = _div(AR.sub(_slice(x, d, 2), _slice(x, d, 0, -2)), h)
    if edge_order == 1:
        prepend = _div(AR.sub(_slice(x, d, 1, 2), _slice(x, d, 0, 1)), h)
        append = _div(AR.sub(_slice(x, d, -1), _slice(x, d, -2, -1)), h)
    else:
        prepend = _div(AR.sub(AR.add(_mul(_slice(x, d, 0, 1), -1.5), _mul(_slice(x, d, 1, 2), 2)),
                                    _mul(_slice(x, d, 2, 3), 0.5)), h)
        append = _div(AR.add(AR.sub(_mul(_slice(x, d, -3, -2), 0.5), _mul(_slice(x, d, -2, -1), 2)),
                                   _mul(_slice(x, d, -1), 1.5)), h)
    return cat([prepend, _div(center, 2), append], d)


def _coordinates(x, d, coords, edge_order):
    if coords.dim() != 1:
        raise errors.runtime(f"torch.gradient expected each element of spacing to have one dimension, but got an "
                             f"element with {coords.dim()} dimensions!")
    shape = [1] * x.dim()
    shape[d] = -1
    dx = coords.diff(1, 0)
    dx1, dx2 = _slice(dx, 0, 0, -1), _slice(dx, 0, 1)
    a = S.reshape(AR.div(AR.neg(dx2), AR.mul(dx1, AR.add(dx1, dx2))), tuple(shape))
    b = S.reshape(AR.div(AR.sub(dx2, dx1), AR.mul(dx1, dx2)), tuple(shape))
    c = S.reshape(AR.div(dx1, AR.mul(dx2, AR.add(dx1, dx2))), tuple(shape))
    center = AR.add(AR.add(AR.mul(a, _slice(x, d, 0, -2)), AR.mul(b, _slice(x, d, 1, -1))), AR.mul(c, _slice(x, d, 2)))
    if edge_order == 1:
        prepend = AR.div(AR.sub(_slice(x, d, 1, 2), _slice(x, d, 0, 1)), dx[0])
        append = AR.div(AR.sub(_slice(x, d, -1), _slice(x, d, -2, -1)), dx[-1])
    else:
        first, second, last, before = dx[0], dx[1], dx[-1], dx[-2]
        a = AR.div(AR.neg(AR.add(_mul(first, 2.0), second)), AR.mul(first, AR.add(first, second)))
        b = AR.div(AR.add(first, second), AR.mul(first, second))
        c = AR.div(AR.neg(first), AR.mul(second, AR.add(first, second)))
        prepend = AR.add(AR.add(AR.mul(a, _slice(x, d, 0, 1)), AR.mul(b, _slice(x, d, 1, 2))), AR.mul(c, _slice(x, d, 2, 3)))
        a = AR.div(last, AR.mul(before, AR.add(last, before)))
        b = AR.div(AR.neg(AR.add(last, before)), AR.mul(last, before))
        c = AR.div(AR.add(_mul(last, 2), before), AR.mul(last, AR.add(last, before)))
        append = AR.add(AR.add(AR.mul(a, _slice(x, d, -3, -2)), AR.mul(b, _slice(x, d, -2, -1))), AR.mul(c, _slice(x, d, -1)))
    return cat([prepend, center, append], d)


def _invalid(input, spacing, dim, edge_order):
    """torch's argument parser's error for arguments no signature takes (told again with the keywords as given
    by torch.gradient's binding: argcheck.with_input_check)."""
    from ..arg_parser import parser_error  # noqa: PLC0415 - only for the error
    from ..torch_signatures import SIGNATURES  # noqa: PLC0415
    given = {k: v for k, v, default in (("spacing", spacing, 1), ("dim", dim, None), ("edge_order", edge_order, 1))
             if v is not default}
    raise parser_error("gradient", SIGNATURES["gradient"], (input,), given)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """torch.gradient(input, *, spacing=1, dim=None, edge_order=1): a tuple, one tensor per dimension."""
    if not isinstance(input, Tensor):
        raise errors.type_error(f"gradient(): argument 'input' (position 1) must be Tensor, not "
                                f"{type(input).__name__}")
    if isinstance(dim, bool) or not (dim is None or isinstance(dim, int) or (
            isinstance(dim, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in dim))):
        _invalid(input, spacing, dim, edge_order)
    dims = None if dim is None else [dim] if isinstance(dim, int) else list(dim)
    if isinstance(spacing, (list, tuple)):
        spacing_list = list(spacing)
        given = len(spacing_list)
        if not all(isinstance(h, (bool, int, float)) for h in spacing_list):  # the parser's tuple of Tensors
            for i, h in enumerate(spacing_list):
                if not isinstance(h, Tensor):
                    raise errors.type_error(f"expected Tensor as element {i} in argument 1, but got "
                                            f"{type(h).__name__}")
    elif isinstance(spacing, (bool, int, float)) or isinstance(spacing, Tensor):
        spacing_list = None
        given = None
    else:
        _invalid(input, spacing, dim, edge_order)
    if input.dtype.name == "uint8":
        raise errors.runtime("torch.gradient does not support uint8 input.")
    nd = input.dim()
    if given is not None and dims is None and given != nd:
        raise errors.runtime(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                             f"to 'self.dim() = {nd}', since dim argument was not given, but got a list of length "
                             f"{given}")
    if given is not None and dims is not None and given != len(dims):
        raise errors.runtime(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                             f"arguments to have the same length, but got a spacing argument of length {given} and "
                             f"a dim argument of length {len(dims)}.")
    if isinstance(edge_order, bool) or not isinstance(edge_order, int):
        _invalid(input, spacing, dim, edge_order)
    if edge_order not in (1, 2):
        raise errors.runtime("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dims is not None:
        wrapped = [wrap_dim(v, nd) for v in dims]
        seen = set()
        for v in wrapped:
            if v in seen:
                raise errors.runtime(f"dim {v} appears multiple times in the list of dims")
            seen.add(v)
    else:
        wrapped = list(range(nd))
    for d in wrapped:
        if input.shape[d] < edge_order + 1:
            raise errors.runtime("torch.gradient expected each dimension size to be at least edge_order+1")
    if spacing_list is None:
        if isinstance(spacing, Tensor):
            spacing = spacing.item()
        spacing_list = [spacing] * len(wrapped)
    out = []
    for d, h in zip(wrapped, spacing_list):
        if isinstance(h, Tensor) and h.dim() == 0:  # ATen's gradient_helper: coordinates are 1-d
            raise errors.runtime("torch.gradient expected each element of spacing to have one dimension, but got "
                                 "an element with 0 dimensions!")
        if isinstance(h, Tensor):
            out.append(_coordinates(input, d, h, edge_order))
        elif isinstance(h, (bool, int, float)):
            out.append(_uniform(input, d, h, edge_order))
        else:
            _invalid(input, spacing, dim, edge_order)
    return tuple(out)


OPS = [
    op("gradient", gradient, method=False, sample=Sample([((5,),), ((3, 4),)], call=lambda torch, x: (
        torch.gradient(x), torch.gradient(x, spacing=2.0, edge_order=2),
        torch.gradient(x, spacing=(torch.tensor([0.0, 1.0, 1.5, 3.5, 4.0])[:x.shape[-1]],), dim=-1)))),
]
