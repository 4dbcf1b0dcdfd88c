"""Reductions (sum, mean, prod, max/min, amax/amin, argmax/argmin, all/any, var/std) and the (values,
indices) results torch returns as named tuples. (softmax, log_softmax, logsumexp: ops/softmax.py;
norm: ops/norms.py.)"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import dtypes, errors, numerics, reduce_vec, variance
from ..autograd_modes import grad_mode
from ..device import asarray as _asarray
from ..function import Function, out_variant, record
from ..tensor import Tensor, wrap, wrap_dim
from . import replays, words
from .elementwise_common import div_scalar, mul_scalar
from .registry import Sample, op
from .shape import expand, reshape, unsqueeze


class ReturnType(tuple):
    """torch.return_types.max(values=..., indices=...)."""
    _fields = ()
    _name = ""

    def __new__(cls, values):
        return tuple.__new__(cls, values)

    def __getattr__(self, item):
        try:
            return self[self._fields.index(item)]
        except ValueError:
            raise AttributeError(f"'torch.return_types.{self._name}' object has no attribute '{item}'") from None

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{self._name}(\n{body})"

    __str__ = __repr__

    def __format__(self, spec):  # object.__format__, with the structseq's full tp_name in its message
        if spec:
            raise TypeError(f"unsupported format string passed to torch.return_types.{self._name}.__format__")
        return str(self)


def return_type(name, fields=("values", "indices")):
    cls = type(name, (ReturnType,), {"_fields": fields, "_name": name, "__module__": "torch.return_types"})
    # the structseq's tp_name, as Python's and torch's messages name it ("unsupported operand type(s) for ^:
    # 'torch.return_types.max' and 'Tensor'"); a script's type(r).__name__ is the last part (pyvalues.name_of)
    cls.__name__ = f"torch.return_types.{name}"
    return cls


RETURN_TYPES = {n: return_type(n) for n in ("max", "min", "sort", "topk", "median", "nanmedian", "mode", "kthvalue",
                                                "cummax", "cummin", "aminmax")}


def reduction_dims(dim, ndim):
    """Normalise dim (int, tuple, list or None) to a sorted tuple of non-negative axes. A 0-d
    tensor takes dim 0 and -1 (as torch does) and has no axis to reduce: ()."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        ds = tuple(wrap_dim(d, ndim) for d in dim)
        if len(set(ds)) != len(ds):
            raise errors.runtime(f"dim {ds[0]} appears multiple times in the list of dims")
        return tuple(sorted(ds)) if ndim else ()
    d = wrap_dim(dim, ndim)
    return (d,) if ndim else ()


def _regrow(g, in_shape, dims, keepdim):
    """Undo a reduction's shape: unsqueeze the reduced dims (if not kept) and expand."""
    if not keepdim and len(in_shape):
        for d in sorted(dims):
            g = unsqueeze(g, d)
    return expand(g, in_shape)


def sum_dtype(dt):
    return dtypes.int64 if dt.category != dtypes.FLOAT else dt


def differentiable_out(input, out_dt):
    """torch's set_history: an op with a derivative formula whose dtype= makes an integer or bool result
    of an input that requires grad (x.sum(dtype=torch.int64), cumsum, prod, nansum) raises after the kernel
    in grad mode."""
    if grad_mode.enabled and out_dt.category != dtypes.FLOAT and getattr(input, "_rg", False):
        raise errors.runtime(f"Autograd not support dtype: {c10(out_dt)}")


class SumBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.summed)
    expression = "{0}.sum()"
    replay = staticmethod(replays.reduce_all(lambda x, d, k: np.sum(x, axis=d, keepdims=k)))

    def backward(self, g):
        return (expand(g, self._kw["in_shape"]),)


class SumBackward1(Function):
    __slots__ = ()
    explain = staticmethod(words.summed)
    expression = "{0}.sum(dim)"
    replay = staticmethod(replays.sum_to_shape)

    def backward(self, g):
        k = self._kw
        return (_regrow(g, k["in_shape"], k["dims"], k["keepdim"]),)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    out_dt = dtype or sum_dtype(input.dtype)
    data = input._data
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0 and False):
        r = numerics.torch_sum(data, None, False, out_dt.np)
        if dtype is not None:
            differentiable_out(input, out_dt)
        return record(SumBackward0, (input,), wrap(r, out_dt), {"in_shape": data.shape})
    dims = reduction_dims(dim, data.ndim)
    r = numerics.torch_sum(data, dims, keepdim, out_dt.np)
    if dtype is not None:
        differentiable_out(input, out_dt)
    return record(SumBackward1, (input,), wrap(r, out_dt), {"in_shape": data.shape, "dims": dims,
                                                          "keepdim": keepdim})


def _mean_check(input, dtype, name="mean"):
    dt = dtype or input.dtype
    if not dt.is_floating_point:
        which = "Input" if dtype is None else "Optional"
        raise errors.runtime(f"{name}(): could not infer output dtype. {which} dtype must be either a floating point "
                             f"or complex dtype. Got: {c10(dt)}")
    return dt


def c10(dt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}[dt.name]


# mean's backward is torch's expand(grad) / n (a Scalar division: DivBackward1), the nodes create_graph
# shows; without a graph, g / n is expanded instead (the same values, divided once)
class MeanBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.mean)
    expression = "{0}.mean()"
    replay = staticmethod(replays.reduce_all(lambda x, d, k: np.mean(x, axis=d, keepdims=k)))

    def backward(self, g):
        shape = self._kw["in_shape"]
        n = int(np.prod(shape)) if shape else 1
        if grad_mode.enabled:
            return (div_scalar(expand(g, shape), n),)
        return (expand(g / n, shape),)


class MeanBackward1(Function):
    __slots__ = ()
    explain = staticmethod(words.mean)
    expression = "{0}.mean(dim)"
    replay = staticmethod(replays.reduce_all(lambda x, d, k: np.mean(x, axis=d, keepdims=k)))

    def backward(self, g):
        k = self._kw
        n = 1
        for d in k["dims"]:
            n *= k["in_shape"][d]
        if grad_mode.enabled:
            return (div_scalar(_regrow(g, k["in_shape"], k["dims"], k["keepdim"]), n),)
        return (_regrow(g / n, k["in_shape"], k["dims"], k["keepdim"]),)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    dt = _mean_check(input, dtype)
    data = input._data
    if dim is None:
        r = numerics.torch_mean(data, None, False, dt.np)
        return record(MeanBackward0, (input,), wrap(_asarray(r, dt.np), dt), {"in_shape": data.shape})
    dims = reduction_dims(dim, data.ndim)
    r = numerics.torch_mean(data, dims, keepdim, dt.np)
    return record(MeanBackward1, (input,), wrap(_asarray(r, dt.np), dt),
                  {"in_shape": data.shape, "dims": dims, "keepdim": keepdim})


class ProdBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(np.prod(xs[0])).reshape(outs[0])])
    explain = "the product of the other elements of {a}"
    explain_factor = False
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, out = self.saved
        if x._data.ndim == 0:
            return (g,)
        if x.dtype is not g.dtype:  # prod(dtype=): derivatives.yaml's self.to(grad.scalar_type())
            x = x.to(g.dtype)
        nz = int((x._data == 0).sum())
        if nz == 0:
            return (g * (out / x),)
        if nz > 1 and not grad_mode.enabled:
            from ..factory import zeros_like  # noqa: PLC0415
            return (zeros_like(x),)
        return (reshape(_safe_zeros_backward(g, reshape(x, (-1,)), 0), x.shape),)  # view_as: ViewBackward0


class ProdBackward1(Function):
    __slots__ = ()
    replay = staticmethod(replays.reduce_kw(lambda x, d, k: np.prod(x, axis=d, keepdims=k)))
    explain = "the product of the other elements of {a} along dim"
    explain_factor = False
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, out = self.saved
        k = self._kw
        if x._data.ndim == 0:
            return (g,)
        if x.dtype is not g.dtype:
            x = x.to(g.dtype)
        if not k["keepdim"]:
            g = unsqueeze(g, k["dim"])
            out = unsqueeze(out, k["dim"])
        if not (x._data == 0).any():
            return (g * (out / x),)
        return (_safe_zeros_backward(g, x, k["dim"]),)


def _safe_zeros_backward(g, x, dim):
    """torch's prod_safe_zeros_backward: g times, at every position along dim, the exclusive
    cumulative products from the left and from the right (exact where zeros sit, -0. included)."""
    from ..factory import ones  # noqa: PLC0415
    from .scan import cumprod  # noqa: PLC0415
    from .join_split import cat, narrow
    from .shape import flip  # noqa: PLC0415
    n = x.shape[dim]
    if x._data.size == 0:
        return g.expand_as(x)
    size = list(x.shape)
    size[dim] = 1
    one = ones(size, dtype=g.dtype, device=g.device)
    left = cumprod(cat([one, narrow(x, dim, 0, n - 1)], dim), dim)
    right = flip(cumprod(cat([one, flip(narrow(x, dim, 1, n - 1), (dim,))], dim), dim), (dim,))
    return g * (left * right)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    out_dt = dtype or sum_dtype(input.dtype)
    data = input._data
    if dim is None:
        r = _kernel_order(data.astype(out_dt.np, copy=False), tuple(range(data.ndim)), False, reduce_vec.Prod)
        differentiable_out(input, out_dt)
        return record(ProdBackward0, (input,), wrap(data.prod(dtype=out_dt.np) if r is None else r, out_dt))
    d = wrap_dim(dim, data.ndim)
    r = _kernel_order(data.astype(out_dt.np, copy=False), (d,), keepdim, reduce_vec.Prod) if data.ndim else None
    if r is None:
        r = data.prod(axis=d, keepdims=keepdim, dtype=out_dt.np) if data.ndim else data.astype(out_dt.np)  # a copy
    differentiable_out(input, out_dt)
    return record(ProdBackward1, (input,), wrap(r, out_dt), {"dim": d, "keepdim": keepdim})


def _kernel_order(data, dims, keepdim, kind):
    """A float reduction in the order of torch's kernel (reduce_vec), or None (NumPy's will do)."""
    if data.dtype.kind != "f" or not isinstance(data, np.ndarray):
        return None
    return reduce_vec.reduce(data, dims, keepdim, kind)


# ---------------------------------------------------------------------------- max / min

class MaxBackward1(Function):
    """Full max/min/amax/amin: the gradient is shared evenly among the tied extremes."""
    __slots__ = ()
    replay = staticmethod(replays.max_all)
    explain = "1 / count at the maximal elements of {a}, 0 elsewhere"
    explain_factor = False
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, out = self.saved
        mask = x.isnan() if out.isnan().item() else x == out  # a NaN extreme: the NaNs share it (torch's CPU rule)
        return (evenly_distribute(g, x, mask),)


def evenly_distribute(g, x, mask):
    """torch's evenly_distribute_backward on the CPU: zeros, masked_fill_(mask, grad / mask.sum()) (the
    others +0, whatever the gradient's sign)."""
    from ..factory import zeros  # noqa: PLC0415
    from .gather_scatter import masked_fill  # noqa: PLC0415
    return masked_fill(zeros(x.shape, dtype=g.dtype, device=g.device), mask, g / sum(mask))


class MinBackward1(MaxBackward1):
    __slots__ = ()
    replay = staticmethod(replays.min_all)
    explain = "1 / count at the minimal elements of {a}, 0 elsewhere"


class MaxBackward0(Function):
    """max/min along a dim: the gradient goes to the returned index."""
    __slots__ = ()
    saves_in_kw = True
    replay = staticmethod(replays.by_indices)
    explain = "1 at the selected elements of {a} (the indices), 0 elsewhere"
    explain_factor = False

    def backward(self, g):
        k = self._kw
        idx = k["indices"]
        if not k["keepdim"] and len(k["in_shape"]):
            g = unsqueeze(g, k["dim"])
            idx = unsqueeze(idx, k["dim"])
        from ..factory import zeros  # noqa: PLC0415
        from .gather_scatter import scatter  # noqa: PLC0415
        base = zeros(k["in_shape"], dtype=g.dtype, device=g.device)
        return (scatter(base, k["dim"], idx, g),)


class MinBackward0(MaxBackward0):
    __slots__ = ()


def unsqueeze_reduced(kw, x, *tensors):
    """A reduction's gradient (and saved output) with the reduced dims kw["dims"] put back as size 1,
    unless kw["keepdim"] kept them or x is 0-d: what broadcasts against x in a backward."""
    if kw["keepdim"] or not x._data.ndim:
        return tensors
    for d in kw["dims"]:
        tensors = tuple(unsqueeze(t, d) for t in tensors)
    return tensors


class AmaxBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.reduce_kw(lambda x, d, k: np.amax(x, axis=d, keepdims=k)))
    explain = "1 / count at the maximal elements of {a}, 0 elsewhere"
    explain_factor = False
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, out = self.saved
        k = self._kw
        g, out = unsqueeze_reduced(k, x, g, out)
        mask = x == out
        return ((g / sum(mask, dim=k["dims"], keepdim=True)) * mask,)  # torch's scale_grad_by_count


class AminBackward0(AmaxBackward0):
    __slots__ = ()
    replay = staticmethod(replays.reduce_kw(lambda x, d, k: np.amin(x, axis=d, keepdims=k)))
    explain = "1 / count at the minimal elements of {a}, 0 elsewhere"


def _extreme(input, dim, keepdim, is_max, name):
    data = input._data
    if dim is None:
        if data.size == 0:
            raise errors.runtime(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                 "Specify the reduction dim with the 'dim' argument.")
        r = data.max() if is_max else data.min()
        if data.dtype.kind == "f" and np.isnan(data).any():
            r = np.asarray(np.nan, data.dtype)
        cls = MaxBackward1 if is_max else MinBackward1
        return record(cls, (input,), wrap(_asarray(r), input.dtype))
    if isinstance(dim, Tensor):
        from .clamp_where import maximum, minimum  # noqa: PLC0415
        return maximum(input, dim) if is_max else minimum(input, dim)
    d = wrap_dim(dim, data.ndim)
    if data.ndim == 0:
        values, idx = data.copy(), np.asarray(0)
    else:
        if data.shape[d] == 0:
            raise errors.index(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        idx = data.argmax(axis=d) if is_max else data.argmin(axis=d)
        if data.dtype.kind == "f":
            nan_any = np.isnan(data).any(axis=d)
            if nan_any.any():
                idx = np.where(nan_any, np.isnan(data).argmax(axis=d), idx)
        values = np.take_along_axis(data, np.expand_dims(idx, d), axis=d)
        if not keepdim:
            values = np.squeeze(values, d)
        else:
            idx = np.expand_dims(idx, d)
    indices = wrap(_asarray(idx, np.int64), dtypes.int64)
    vals = wrap(_asarray(values), input.dtype)
    cls = MaxBackward0 if is_max else MinBackward0
    record(cls, (input,), vals, {"indices": indices, "dim": d, "keepdim": keepdim, "in_shape": data.shape})
    return RETURN_TYPES[name]((vals, indices))


def max(input, dim=None, keepdim=False):
    return _extreme(input, dim, keepdim, True, "max")


def min(input, dim=None, keepdim=False):
    return _extreme(input, dim, keepdim, False, "min")


def _amaxmin(input, dim, keepdim, is_max):
    data = input._data
    if isinstance(dim, (tuple, list)) and not dim:  # dim=() or [] reduces every dim
        dim = None
    dims = reduction_dims(dim, data.ndim)
    if not data.size and dim is not None and data.ndim:  # zero_numel_check_dims: the dim as given
        for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):
            if data.shape[wrap_dim(d, data.ndim)] == 0:
                raise errors.index(f"{'amax' if is_max else 'amin'}(): Expected reduction dim {d} to have non-zero "
                                   "size.")
    _check_nonempty(data, dims if dim is not None else None, "amax" if is_max else "amin")
    r = (data.max if is_max else data.min)(axis=dims, keepdims=keepdim) if data.ndim else data.copy()
    if data.ndim and data.dtype.kind == "f" and not np.all(r):   # which zero, +0 or -0: the kernel's
        signed = _kernel_order(data, dims, keepdim, reduce_vec.Max if is_max else reduce_vec.Min)
        r = r if signed is None else signed
    cls = AmaxBackward0 if is_max else AminBackward0
    return record(cls, (input,), wrap(_asarray(r), input.dtype), {"dims": dims, "keepdim": keepdim})


def amax(input, dim=(), keepdim=False):
    return _amaxmin(input, dim, keepdim, True)


def amin(input, dim=(), keepdim=False):
    return _amaxmin(input, dim, keepdim, False)


def _check_nonempty(data, dims, name):
    """torch's errors for reducing an empty tensor with no identity (max, amax, argmax...)."""
    if data.size:
        return
    if dims is None:
        cls = errors.runtime if name in ("amax", "amin", "max", "min") else errors.index
        raise cls(f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
                  + (" Specify the reduction dim with the 'dim' argument." if cls is errors.runtime else ""))
    for d in dims:
        if data.shape[d] == 0:
            raise errors.index(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def argmax(input, dim=None, keepdim=False):
    data = input._data
    if input.dtype is dtypes.bool_:
        raise errors.runtime("argmax(): does not support bool input")
    _check_nonempty(data, None if dim is None else (wrap_dim(dim, data.ndim),), "argmax")
    if dim is None:
        return wrap(_asarray(data.argmax(), np.int64), dtypes.int64)
    d = wrap_dim(dim, data.ndim)
    r = data.argmax(axis=d, keepdims=keepdim) if data.ndim else np.asarray(0)
    return wrap(_asarray(r, np.int64), dtypes.int64)


def argmin(input, dim=None, keepdim=False):
    data = input._data
    if input.dtype is dtypes.bool_:
        raise errors.runtime("argmin(): does not support bool input")
    _check_nonempty(data, None if dim is None else (wrap_dim(dim, data.ndim),), "argmin")
    if dim is None:
        return wrap(_asarray(data.argmin(), np.int64), dtypes.int64)
    d = wrap_dim(dim, data.ndim)
    r = data.argmin(axis=d, keepdims=keepdim) if data.ndim else np.asarray(0)
    return wrap(_asarray(r, np.int64), dtypes.int64)


def all(input, dim=None, keepdim=False):
    data = input._data
    r = data.all() if dim is None else data.all(axis=reduction_dims(dim, data.ndim), keepdims=keepdim)
    return wrap(_asarray(r), dtypes.bool_)


def any(input, dim=None, keepdim=False):
    data = input._data
    r = data.any() if dim is None else data.any(axis=reduction_dims(dim, data.ndim), keepdims=keepdim)
    return wrap(_asarray(r), dtypes.bool_)


# ---------------------------------------------------------------------------- var / std

def correction_of(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _var_backward(g, x, k):
    """torch's var_backward (for var, and for std with grad / (2 std)): (2 / dof) * grad * (x - mean)."""
    n, c = k["n"], k["c"]
    if x._data.ndim == 0 or k["all"]:
        m = mean(x)
        if n - c <= 0:  # 2 / dof is infinite: NaN where x is its mean (inf * 0), inf elsewhere
            from .clamp_where import where  # noqa: PLC0415
            return g * where(x == m, math.nan, math.inf)
        return mul_scalar(g, 2.0 / (n - c)) * (x - m)
    if not k["keepdim"] and x._data.ndim > 1:
        for d in k["dims"]:
            g = unsqueeze(g, d)
    return mul_scalar(g, 2.0 / (n - c) if n != c else math.inf) * (x - mean(x, dim=k["dims"], keepdim=True))


class VarBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.std_var(np.var))
    explain = "2 * ({a} - mean({a})) / (N - correction)"
    explain_factor = False
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (_var_backward(g, x, self._kw),)


class StdBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.std_var(np.std))
    explain = "({a} - mean({a})) / ((N - correction) * std)"
    explain_factor = False
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, out = self.saved
        # torch's std_backward: var_backward of (grad / (result * 2)).masked_fill_(result == 0, 0)
        from .gather_scatter import masked_fill  # noqa: PLC0415
        return (_var_backward(masked_fill(g / mul_scalar(out, 2), out == 0, 0), x, self._kw),)


def _var_std(input, dim, unbiased, keepdim, correction, is_std):
    if isinstance(dim, bool):  # var(x, False): the legacy unbiased positional
        unbiased, dim = dim, None
    empty = isinstance(dim, (tuple, list)) and not dim
    if empty:  # dim=() or []: the forward reduces every dim; torch's var_backward counts the (no) dims: n = 1
        dim = None
    if not input.dtype.is_floating_point:
        raise errors.runtime("std and var only support floating point and complex dtypes")
    dt = input.dtype
    data = input._data
    dims = reduction_dims(dim, data.ndim)
    c = correction_of(unbiased, correction)
    n = 1
    for d in dims:
        n *= data.shape[d]
    if n - c <= 0:
        warnings.warn(f"{'std' if is_std else 'var'}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).", UserWarning,
                      stacklevel=3)
    r = variance.torch_var(data, dims, c, keepdim, is_std)
    kw = {"dims": dims, "keepdim": keepdim, "n": 1 if empty else n, "c": c, "all": dim is None and not empty}
    return record(StdBackward0 if is_std else VarBackward0, (input,), wrap(_asarray(r, dt.np), dt), kw)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_std(input, dim, unbiased, keepdim, correction, False)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_std(input, dim, unbiased, keepdim, correction, True)


# ---------------------------------------------------------------------------- declarations

_NO = "an integer or bool result"
# One declaration per op (registry.py); methods.py derives the tables. var and std: scan.py's.
OPS = [
    op("sum", sum, SumBackward0, SumBackward1, sample=Sample("reduce", kwargs={"dim": -1})),
    op("mean", out_variant("sum", mean, after=True), MeanBackward0, MeanBackward1, sample=Sample("reduce", call=lambda torch, x: x.mean(0, keepdim=True))),
    op("prod", prod, ProdBackward0, ProdBackward1, sample=Sample("reduce", call=lambda torch, x: (x.prod(), x.prod(-1)))),
    op("max", max, MaxBackward0, MaxBackward1,
       sample=Sample("reduce", call=lambda torch, x: (x.max(), x.max(-1).values))),
    op("min", min, MinBackward0, MinBackward1,
       sample=Sample("reduce", call=lambda torch, x: (torch.min(x), torch.min(x, 0, keepdim=True).values))),
    op("amax", amax, AmaxBackward0, sample=Sample("reduce", args=(-1,))),
    op("amin", amin, AminBackward0, sample=Sample("reduce", args=(0,))),
    op("argmax", argmax, no_grad=_NO),
    op("argmin", argmin, no_grad=_NO),
    op("all", all, no_grad=_NO),
    op("any", any, no_grad=_NO),
]
