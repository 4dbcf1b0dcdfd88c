"""More of the coverage sweep's missing callables (docs/coverage.md), declared in misc_ops.py's family:
torch.fill (FillBackward0/FillBackward1), torch.scalar_tensor, torch.range (deprecated: torch's
UserWarning), torch.unravel_index (torch/functional.py's composition: floor_divide and remainder of
int64 tensors, unbound), Tensor.fill_diagonal_ (ATen's as_strided fills, written here as fills of
views, so that a tensor in a graph gets torch's CopySlices), Tensor.prelu and torch.get_device."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import dtypes, errors
from ..argcheck import typename
from ..device import xp_of
from ..function import Function, record
from ..limits import check_numel
from ..tensor import Tensor, wrap
from .elementwise_common import zero_grad
from .registry import Sample, op
from . import words

# ---------------------------------------------------------------------------- torch.fill


class FillBackward0(Function):
    """torch.fill(x, number): the input's gradient is zeros."""
    __slots__ = ()
    explain = staticmethod(words.fixed("0 (every element replaced by the value)"))
    replay = staticmethod(lambda xs, kw, outs: [np.full(outs[0], kw["value"], dtype=np.float64)])

    def backward(self, g):
        return (zero_grad(g),)


class FillBackward1(Function):
    """torch.fill(x, value tensor): zeros for x, the gradient's sum for the value."""
    __slots__ = ()
    explain = ("0 (every element replaced by the value)", "1 for each element it fills (summed)")
    replay = staticmethod(lambda xs, kw, outs: [np.broadcast_to(np.asarray(xs[1], np.float64), outs[0]).copy()])

    def backward(self, g):
        gv = g.sum() if self.next_functions[1][0] is not None else None
        return (zero_grad(g) if self.next_functions[0][0] is not None else None), gv


def _fill_type_error(input, value):
    from ..argcheck import invalid_combination  # noqa: PLC0415
    from ..torch_signatures import SIGNATURES  # noqa: PLC0415
    raise invalid_combination("fill", SIGNATURES["fill"], (input, value), {})


def fill(input, value):
    """torch.fill(input, value): a new tensor of input's shape and dtype, every element value."""
    if not isinstance(input, Tensor):
        raise errors.type_error(f"fill(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise errors.runtime(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                 f"{value._data.ndim} dimensions.")
        v = value._data.astype(input.dtype.np)
    elif isinstance(value, (bool, int, float)):
        v = dtypes.checked_scalar(value, input.dtype)
    else:
        _fill_type_error(input, value)
    out = wrap(xp_of(input._data).full(input._data.shape, v, dtype=input.dtype.np), input.dtype)
    if isinstance(value, Tensor):
        return record(FillBackward1, (input, value), out)
    return record(FillBackward0, (input,), out, {"value": value})


# ---------------------------------------------------------------------------- factories


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """torch.scalar_tensor(s): a 0-d tensor of s, in the default float dtype unless dtype says."""
    from .. import factory  # noqa: PLC0415
    if isinstance(s, Tensor):
        if s.numel() != 1:
            raise errors.runtime(f"a Tensor with {s.numel()} elements cannot be converted to Scalar")
        s = s.item()
    elif not isinstance(s, (bool, int, float)):
        raise errors.type_error(f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}")
    return factory.full((), s, dtype=dtype or dtypes.defaults.float, device=device, requires_grad=requires_grad)


RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                 "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                 "[start, end).")


def _c_double(v):
    """A double as C++'s ostream writes it (6 significant digits)."""
    return "inf" if v == math.inf else "-inf" if v == -math.inf else "nan" if v != v else f"{v:g}"


def range(start, end, step=1, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):  # noqa: A001
    """torch.range(start, end, step): end included, in the default float dtype; ATen's range_out
    (start + i * step in the accumulate type: double for float and double, int64 for integers)."""
    from .. import factory  # noqa: PLC0415
    vals = []
    for name, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, Tensor) and v.numel() == 1:
            v = v.item()
        if not isinstance(v, (bool, int, float)):
            pos = ("start", "end", "step").index(name) + 1
            raise errors.type_error(f"range(): argument '{name}' (position {pos}) must be Number, not "
                                    f"{type(v).__name__}")
        vals.append(v)
    warnings.warn(RANGE_WARNING, UserWarning, stacklevel=2)
    d = dtype or dtypes.defaults.float
    if d.name == "bool":
        raise NotImplementedError("\"range_cpu\" not implemented for 'Bool'")
    if d.is_floating_point:
        acc = np.float32 if d.itemsize == 2 else np.float64
        xstart, xend, xstep = (float(acc(v)) for v in vals)
    else:
        xstart, xend, xstep = (int(v) for v in vals)
    if xstep == 0:
        raise errors.runtime("step must be nonzero")
    if not (math.isfinite(xstart) and math.isfinite(xend)):
        raise errors.runtime(f"unsupported range: {_c_double(xstart)} -> {_c_double(xend)}")
    if not ((xstep > 0 and xend >= xstart) or (xstep < 0 and xend <= xstart)):
        raise errors.runtime("upper bound and lower bound inconsistent with step sign")
    if d.is_floating_point:
        n = int(float(acc((xend - xstart) / xstep)) + 1)
        check_numel(n)  # torch.range(0, 10**12) reached NumPy's allocation (--max-memory, not --max-elements)
        arr = (acc(xstart) + np.arange(n, dtype=acc) * acc(xstep)).astype(d.np)
    else:
        n = _int_div(xend - xstart, xstep) + 1
        check_numel(n)
        arr = (xstart + np.arange(n, dtype=np.int64) * xstep).astype(d.np)
    return factory.finish(arr, d, device, requires_grad)


def _int_div(a, b):
    """C++'s integer division (towards zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# ---------------------------------------------------------------------------- unravel_index


def unravel_index(indices, shape):
    """torch.unravel_index (torch/functional.py): indices.unsqueeze(-1).floor_divide(coefs) % shape,
    unbound along the last dimension."""
    from .. import factory  # noqa: PLC0415
    from .arithmetic import floor_divide, remainder  # noqa: PLC0415
    from .join_split import unbind  # noqa: PLC0415
    from .shape import unsqueeze  # noqa: PLC0415
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices.dtype.is_floating_point or indices.dtype.name == "bool":
        raise errors.type_error(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int):
        shape = (shape,)
    elif isinstance(shape, (list, tuple)):
        for dim in shape:
            if not isinstance(dim, int):
                raise errors.type_error(f"expected 'shape' sequence to only contain ints, but got {type(dim)}")
        shape = tuple(shape)
    else:
        raise errors.type_error(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(dim < 0 for dim in shape):
        raise errors.value(f"'shape' cannot have negative values, but got {tuple(int(d) for d in shape)}")
    coefs, acc = [], 1
    for dim in reversed(shape[1:] + (1,)):
        acc *= dim
        coefs.append(acc)
    coefs.reverse()
    dev = indices.device
    q = floor_divide(unsqueeze(indices, -1), factory.tensor(coefs, dtype=dtypes.int64, device=dev))
    return unbind(remainder(q, factory.tensor(list(shape), dtype=dtypes.int64, device=dev)), -1)


# ---------------------------------------------------------------------------- fill_diagonal_


def fill_diagonal_(input, fill_value, wrap=False):
    """x.fill_diagonal_(value, wrap=False): ATen fills as_strided views of x (the main diagonal, and for
    a tall matrix with wrap the diagonal that starts again every width + 1 rows); here the same
    elements through views of x (a flat view's slice where x is contiguous, else diagonals), so that a
    tensor of a graph gets CopySlices as in torch."""
    if not isinstance(wrap, bool):  # torch's argument parser: wrap='yes' filled as True
        raise errors.type_error(f"fill_diagonal_(): argument 'wrap' must be bool, not {typename(wrap)}")
    nd = input.dim()
    if nd < 2:
        raise errors.runtime("dimensions must larger than 1")
    shape = tuple(input.shape)
    if nd > 2 and any(s != shape[0] for s in shape[1:]):
        raise errors.runtime("all dimensions of input must be of equal length")
    height, width = shape[0], shape[1]
    size = min(height, width)
    if input.is_contiguous():
        step = sum(input.stride())
        flat = input.view(-1)
        flat[0:size * step:step].fill_(fill_value) if size else flat[0:0].fill_(fill_value)
        if wrap and nd == 2 and height > width + 1:
            step = width + 1
            wrap_size = (input.numel() + step - 1) // step - size
            start = width * (width + 1)
            flat[start:start + wrap_size * step:step].fill_(fill_value)
        return input
    view = input
    while view.dim() > 1:
        view = view.diagonal(0, 0, -1)
    view.fill_(fill_value)
    return input


# ---------------------------------------------------------------------------- put


class PutBackward0(Function):
    """put: the input's gradient where nothing was put (all of it with accumulate), the source's taken from
    the places it went to."""
    __slots__ = ()
    saves_in_kw = True
    explain = ("1 where no element was put (everywhere with accumulate)", "1 at the place each element went to")
    replay = staticmethod(lambda xs, kw, outs: [_put_array(xs[0], kw["index"]._data, xs[1], kw["accumulate"])])

    def backward(self, g):
        from ..factory import zeros  # noqa: PLC0415
        k = self._kw
        index, accumulate, src_shape = k["index"], k["accumulate"], k["src_shape"]
        g_self = g_src = None
        if self.next_functions[0][0] is not None:
            g_self = put(g, index, zeros(src_shape, dtype=g.dtype, device=g.device), accumulate)
        if self.next_functions[1][0] is not None:
            g_src = g.take(index).reshape(src_shape)
        return g_self, g_src


def _put_array(x, idx, src, accumulate):
    out = x.copy()
    flat = out.reshape(-1)
    idx = idx.reshape(-1)
    idx = np.where(idx < 0, idx + flat.size, idx)
    vals = src.reshape(-1)
    if accumulate:
        np.add.at(flat, idx, vals)
    else:
        for i, v in zip(idx.tolist(), vals):  # one at a time, in the index's order: the last one stays
            flat[i] = v
    return out


def put(input, index, source, accumulate=False):
    """torch.put / x.put(index, source, accumulate=False): source's elements written (or added) at the flat
    indices of a copy of input (ATen's put_ checks, in its order)."""
    for pos, (name, value) in enumerate((("index", index), ("source", source)), 1):
        if not isinstance(value, Tensor):
            raise errors.type_error(f"put(): argument '{name}' (position {pos}) must be Tensor, not "
                                    f"{type(value).__name__}")
    from .elementwise_common import c10_name  # noqa: PLC0415
    if index.dtype is not dtypes.int64:
        raise errors.runtime(f"put_(): Expected a long tensor for index, but got {c10_name(index.dtype)}")
    if source.dtype is not input.dtype:
        raise errors.runtime(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                             f"{c10_name(input.dtype)} and source.dtype = {c10_name(source.dtype)}")
    if source.numel() != index.numel():
        raise errors.index(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    if n == 0 and index.numel() != 0:
        raise errors.index("put_(): Tried to put elements into an empty tensor")
    from ..device import host  # noqa: PLC0415
    idx = host(index._data).reshape(-1)
    for i in idx.tolist():
        if not -n <= i < n:
            raise errors.index(f"out of range: tried to access index {i} on a tensor of {n} elements.")
    x = input._data
    xp = xp_of(x)
    out = wrap(xp.asarray(_put_array(host(x), idx, host(source._data), bool(accumulate))), input.dtype)
    return record(PutBackward0, (input, source), out, {"index": index, "accumulate": bool(accumulate),
                                                       "src_shape": tuple(source.shape)})


# ---------------------------------------------------------------------------- Tensor.prelu, torch.get_device


def prelu(input, weight):
    """Tensor.prelu(weight): torch.nn.functional.prelu's function (ATen's prelu)."""
    from ..nn.functional_prelu import prelu as _prelu  # noqa: PLC0415 - nn's function, loaded when used
    return _prelu(input, weight)


def get_device(input):
    if not isinstance(input, Tensor):
        raise errors.type_error(f"get_device(): argument 'input' (position 1) must be Tensor, not "
                                f"{type(input).__name__}")
    return input.get_device()


_FACTORY = "a constructor: its result is a leaf"
OPS = [
    op("fill", fill, FillBackward0, FillBackward1, method=False, sample=Sample(
        [((2, 3), ()), ((), ())], call=lambda torch, x, v: (torch.fill(x, v), torch.fill(x, 0.5) * x))),
    op("scalar_tensor", scalar_tensor, method=False, no_grad=_FACTORY),
    op("range", range, method=False, no_grad=_FACTORY),
    op("unravel_index", unravel_index, method=False, no_grad="integer results"),
    op("fill_diagonal_", fill_diagonal_, torch=False, sample=Sample(
        [((3, 3),), ((5, 2),)], call=lambda torch, x: (x * 1).fill_diagonal_(0.5, wrap=True) * x)),
    op("prelu", prelu, torch=False, sample=Sample(
        [((2, 3, 2), (3,))], call=lambda torch, x, w: x.prelu(w))),
    op("get_device", get_device, method=False, no_grad="an int"),
    op("put", put, PutBackward0, inplace="copy", sample=Sample([((2, 3), (3,))], call=lambda torch, x, s: (
        x.put(torch.tensor([4, 0, -1]), s), torch.put(x, torch.tensor([[1], [1], [5]]), s, accumulate=True)))),
]
