"""var/std and var_mean/std_mean, nansum/nanmean, dist, and the norms (vector_norm, norm, torch.linalg's
norm and matrix_norm), a family next to ops/scan.py, with their declarations (OPS) and tables.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from .. import dtypes, errors, numerics, variance
from ..autograd import SavedValue
from ..autograd_modes import no_grad
from ..device import asarray as _asarray
from ..function import Function, MultiOutputFunction, out_variant, record, record_multi
from ..tensor import Tensor, wrap, wrap_dim
from . import arithmetic as AR
from . import clamp_where as CW
from . import comparison as CP
from . import unary_math as UM
from . import gather_scatter as GS
from . import reduction as R
from . import replays
from .unary_math import sgn
from .registry import Sample, V, case, op, tables
from .scan import S1
from .shape import expand, sum_to, unsqueeze
from .special_common import inplace_method

# ---------------------------------------------------------------------------- var_mean / std_mean, nan-reductions

class VarMeanBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = "2 * ({a} - mean) / (N - correction) for the variance, 1/N for the mean"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: _moments(np.var, xs[0], kw, outs))
    save_inputs = True

    def backward(self, grads):
        (x,) = self.saved
        return (_var_mean_grad(self, x, grads, None),)


class StdMeanBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = "({a} - mean) / ((N - correction) * std) for the deviation, 1/N for the mean"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: _moments(np.std, xs[0], kw, outs))
    save_inputs = True

    def backward(self, grads):
        x, std = self.saved
        return (_var_mean_grad(self, x, grads, std),)


def _var_mean_grad(node, x, grads, std):
    k = node._kw
    dims, n, c = k["dims"], k["n"], k["c"]
    g_var, g_mean = grads
    if std is None:
        g_var, g_mean = R.unsqueeze_reduced(k, x, g_var, g_mean)
    else:
        g_var, g_mean, std = R.unsqueeze_reduced(k, x, g_var, g_mean, std)
    m = R.mean(x, dim=dims, keepdim=True) if x._data.ndim else x
    denom = builtins.max(n - c, 0)
    if std is not None:  # torch's std_backward: the var gradient g / (2 std), 0 where std is 0
        g_var = CW.where(std == 0, 0.0, g_var / (std * 2))
    gx = (2.0 / denom if denom else math.inf) * g_var * (x - m)
    return gx + expand(g_mean / n, x.shape)


def _moments(fn, x, kw, outs):
    """var_mean/std_mean's replay: (fn(x), mean(x)) over the node's dims."""
    axes, keep = tuple(kw["dims"]), bool(kw["keepdim"])
    return [np.asarray(fn(x, axis=axes, ddof=kw["c"], keepdims=keep)).reshape(outs[0]),
            np.asarray(np.mean(x, axis=axes, keepdims=keep)).reshape(outs[1])]


def _var_mean(input, dim, unbiased, keepdim, correction, is_std):
    from ..autograd_modes import no_grad  # noqa: PLC0415
    if isinstance(dim, bool):  # var_mean(x, False): the legacy unbiased positional
        unbiased, dim = dim, None
    if not input.dtype.is_floating_point:
        raise errors.runtime(f"{'std' if is_std else 'var'}_mean only support floating point and complex dtypes")
    dims = R.reduction_dims(dim, input._data.ndim)
    with no_grad():
        v = (R.std if is_std else R.var)(input, dim, unbiased, keepdim, correction=correction)
        m = R.mean(input, dim=dims, keepdim=keepdim) if input._data.ndim else R.mean(input)
    n = 1
    for d in dims:
        n *= input._data.shape[d]
    vd, md = variance.torch_var(input._data, dims, R.correction_of(unbiased, correction), keepdim, is_std, True)
    v, m = wrap(vd, v.dtype), wrap(md, m.dtype)
    kw = {"dims": dims, "keepdim": keepdim, "n": n, "c": R.correction_of(unbiased, correction)}
    record_multi(StdMeanBackward0 if is_std else VarMeanBackward0, (input,), [v, m], kw)
    if is_std and v.grad_fn is not None:
        v.grad_fn._saved = v.grad_fn._saved + (SavedValue(v, True),)  # the backward reads the std
    return v, m


def _float_var(input):
    if not input.dtype.is_floating_point:
        raise errors.runtime("std and var only support floating point and complex dtypes")


def _one_pass(input, result):
    """ATen's std_var_out takes its two-pass route, whose mean calls sum's out= variant, for a result of one
    element from a non-empty float32/float64 input (out_variant)."""
    return result._data.size == 1 and input._data.size > 0 and input.dtype in (dtypes.float32, dtypes.float64)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _float_var(input)
    return R.var(input, dim, unbiased, keepdim, correction=correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _float_var(input)
    return R.std(input, dim, unbiased, keepdim, correction=correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean(input, dim, unbiased, keepdim, correction, False)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean(input, dim, unbiased, keepdim, correction, True)


class NansumBackward0(Function):
    __slots__ = ()
    explain = "1 where {a} is not NaN, else 0"
    replay = staticmethod(replays.reduce_kw(lambda x, d, k: np.nansum(x, axis=d, keepdims=k)))
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        (g,) = R.unsqueeze_reduced(self._kw, x, g)
        return (expand(g, x.shape) * CP.logical_not(CP.isnan(x)),)  # torch's nansum_backward


def _same_layout_copy(a):
    """A copy with a's strides (its gaps too: TensorIterator's loops, and so the sum's order, follow them)."""
    if a.flags.c_contiguous or not all(st > 0 for st in a.strides):
        return a.copy(order="K")
    span = sum((n - 1) * st for n, st in zip(a.shape, a.strides)) // a.itemsize + 1
    out = np.lib.stride_tricks.as_strided(np.empty(span, a.dtype), a.shape, a.strides)
    out[...] = a
    return out


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    data = input._data
    dt = dtype or R.sum_dtype(input.dtype)
    dims = R.reduction_dims(dim if not isinstance(dim, (tuple, list)) or dim else None, data.ndim)  # () or []: all
    if data.ndim and type(data) is np.ndarray:  # ATen's cascade_sum with ignore_nan: sum's order, the NaNs
        clean = _same_layout_copy(data)  # skipped (a -0. in their place adds nothing, not even to a -0.)
        if clean.dtype.kind == "f":
            clean[np.isnan(clean)] = -0.0
        r = numerics.torch_sum(clean, dims, keepdim, dt.np)
    elif data.ndim:
        r = np.nansum(data, axis=dims, keepdims=keepdim, dtype=dt.np)
    else:
        # a NaN becomes 0 (nan_to_num would also clip infinities to the largest float)
        r = np.where(np.isnan(data), data.dtype.type(0), data) if data.dtype.kind == "f" else data.copy()
    R.differentiable_out(input, dt)
    return record(NansumBackward0, (input,), wrap(_asarray(r, dt.np), dt), {"dims": dims, "keepdim": keepdim})


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not input.dtype.is_floating_point and dtype is None:
        raise errors.runtime(f"nanmean(): expected input to have floating point or complex dtype but got "
                             f"{R.c10(input.dtype)}")
    if dtype is not None and not dtype.is_floating_point:
        raise errors.runtime(f"nanmean(): could not infer output dtype. Optional dtype must be either a floating "
                             f"point or complex dtype. Got: {R.c10(dtype)}")
    not_nan = CP.logical_not(CP.isnan(input))
    return AR.div(nansum(input, dim, keepdim, dtype=dtype), R.sum(not_nan, dim=dim, keepdim=keepdim))


# ---------------------------------------------------------------------------- torch.linalg norms

class LinalgVectorNormBackward0(Function):
    """torch's norm_backward, with Tensor ops (so it differentiates again)."""
    __slots__ = ()
    explain = "sign({a}) * |{a}|**(p - 1) / norm**(p - 1) (the p-norm's gradient)"
    explain_factor = False
    replay = staticmethod(replays.vector_norm)
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, norm = self.saved
        k = self._kw
        return (_norm_backward(g, x, norm, k["p"], k["dims"], k["keepdim"]),)


class NormBackward1(LinalgVectorNormBackward0):
    """at::norm(self, p, dim, keepdim), the node of the ATen functions that call it (F.pairwise_distance)."""
    __slots__ = ()


def aten_norm(x, p, dim, keepdim=False):
    """at::norm(x, p, dim, keepdim): vector_norm's value, recorded as NormBackward1."""
    r = vector_norm(x, p, dim, keepdim)
    if type(r.grad_fn) is LinalgVectorNormBackward0:
        r.grad_fn.__class__ = NormBackward1
    return r


def _norm_backward(g, x, norm, p, dims, keepdim):
    """torch's norm_backward(grad, self, p, norm, dims, keepdim), with Tensor ops."""
    if not keepdim and x._data.ndim:
        for d in dims:
            g = unsqueeze(g, d)
            norm = unsqueeze(norm, d)
    if p == 0.0:
        return None
    if p == 1.0:
        return sgn(x) * g
    if p == 2.0:  # torch: grad * (self / norm).masked_fill_(norm == 0, 0), in this order
        return g * GS.masked_fill(x / norm, norm == 0, 0)
    if math.isinf(p):
        mask = UM.abs(x) == norm
        count = R.sum(mask, dim=dims, keepdim=True)
        return sgn(x) * (mask * (g / count))
    ax = UM.abs(x)
    if p < 1.0:
        scaled = sgn(x) * GS.masked_fill(ax ** (p - 1), x == 0, 0)
        return scaled * g * norm ** (1 - p)
    scale = GS.masked_fill(g / norm ** (p - 1), norm == 0, 0)
    if p < 2.0:
        return sgn(x) * ax ** (p - 1) * scale
    return x * ax ** (p - 2) * scale


class DistBackward0(Function):
    """torch.dist(self, other, p) = norm(self - other, p): derivatives.yaml's
    self: norm_backward(grad, self - other, p, result), other: its negation (each summed back
    to its input's shape where the subtraction broadcast)."""
    __slots__ = ()
    explain = ("the p-norm's gradient at {pa} - {pb}", "minus the p-norm's gradient at {pa} - {pb}")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: replays.vector_norm([xs[0] - xs[1]], {"p": kw["p"]}, outs))
    save_inputs = True
    save_output = True

    def backward(self, g):
        a, b, norm = self.saved
        diff = a - b
        ga = _norm_backward(g, diff, norm, self._kw["p"], tuple(range(diff._data.ndim)), False)
        if ga is None:
            return None, None
        gb = -ga
        sa, sb = a._data.shape, b._data.shape
        return (ga if ga._data.shape == sa else sum_to(ga, sa)), (gb if gb._data.shape == sb else sum_to(gb, sb))


def dist(input, other, p=2):
    """torch.dist / Tensor.dist: the p-norm of input - other (at::norm of the difference)."""
    if not isinstance(other, Tensor):
        raise errors.type_error(f"dist(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    with no_grad():
        diff = input - other
        if not diff.dtype.is_floating_point:
            raise errors.runtime(f"norm(): input dtype should be either floating point or complex. Got "
                                 f"{R.c10(diff.dtype)} instead.")
        r = vector_norm(diff, p)
    return record(DistBackward0, (input, other), wrap(r._data, r.dtype), {"p": float(p)})


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if isinstance(ord, str):
        raise errors.runtime(f"linalg.vector_norm: ord={ord!r} is not supported for vectors")
    if not x.dtype.is_floating_point:
        raise errors.runtime(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                             f"{R.c10(x.dtype)}")
    if dtype is not None and not dtype.is_floating_point:
        raise errors.runtime(f"linalg.vector_norm: dtype should be floating point or complex, but got {R.c10(dtype)}")
    if dtype is not None and dtype.np.itemsize < x.dtype.np.itemsize:
        raise errors.runtime(f"linalg.vector_norm: the dtype of the input ({R.c10(x.dtype)}) should be convertible "
                             f"without narrowing to the specified dtype ({R.c10(dtype)})")
    dt = dtype or x.dtype
    src = x if dt is x.dtype else x.to(dt)
    data = np.abs(src._data)
    if data.dtype == np.float16:  # ATen's norm kernels accumulate half in float (opmath), rounding once
        data = data.astype(np.float32)
    dims = R.reduction_dims(dim, data.ndim) if not (isinstance(dim, (tuple, list)) and len(dim) == 0) else \
        tuple(range(data.ndim))
    p = float(ord)
    if data.size == 0 and (p < 0 or p == math.inf):  # linalg_vector_norm's checks (no identity to start from)
        what = f"linalg.vector_norm cannot compute the {p:g} norm on "
        given = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
        if not given:
            raise errors.runtime(what + "an empty tensor because the operation does not have an identity")
        for d in given:
            if data.shape[d] == 0:
                raise errors.runtime(what + f"the dimension {d}because this dimension is empty and the operation "
                                            "does not have an identity")
    if data.ndim == 0:
        r = data if p != 0 else (data != 0).astype(data.dtype)
    elif p == math.inf:
        r = data.max(axis=dims, keepdims=keepdim)
    elif p == -math.inf:
        r = data.min(axis=dims, keepdims=keepdim)
    elif p == 0:
        r = (data != 0).sum(axis=dims, keepdims=keepdim)
    elif p == 1:
        r = data.sum(axis=dims, keepdims=keepdim)
    elif p == 2:
        r = _norm2_lastdim(data, dims, keepdim) if dtype is None else None
        if r is None:
            r = np.sqrt((data * data).sum(axis=dims, keepdims=keepdim))
    else:
        r = _pnorm_serial(data, p, dims, keepdim)
    # dtype= converts inside the op (the node's input is x; the engine casts its gradient back)
    return record(LinalgVectorNormBackward0, (x,), wrap(_asarray(r, dt.np), dt),
                  {"p": p, "dims": dims, "keepdim": keepdim})


def _pnorm_serial(data, p, dims, keepdim):
    """The p-norm for any other p, as ATen's NormOps under binary_kernel_reduce computes it on one thread:
    per output element, acc = acc + pow(|x|, p) in the opmath dtype, element after element in memory order
    (contiguous input: the reduced dims' C order), then pow(acc, 1 / p), 1 / p rounded to that dtype; over a
    single element the norm is |x| itself (what torch gives). NumPy's pairwise sum missed the last bits from
    8 elements on. Past ATen's grain size (32768 elements; a device array) the reduction splits over
    threads: NumPy's sum then."""
    if type(data) is not np.ndarray or data.size >= 32768:
        return (data ** p).sum(axis=dims, keepdims=keepdim) ** (1.0 / p)
    nd = data.ndim
    dims = tuple(sorted(d % nd for d in dims))
    kept = [d for d in range(nd) if d not in dims]
    moved = np.transpose(data, kept + list(dims))
    shape = moved.shape[:len(kept)]
    count = math.prod(moved.shape[len(kept):])
    rows = moved.reshape(shape + (count,))
    dt = data.dtype.type
    if count == 1:
        r = rows[..., 0].copy()
    elif count == 0:
        r = np.zeros(shape, data.dtype)
    else:
        r = np.cumsum(rows ** dt(p), axis=-1)[..., -1] ** (dt(1) / dt(p))
    if keepdim:
        r = r.reshape(tuple(1 if i in dims else n for i, n in enumerate(data.shape)))
    return r


def _norm2_lastdim(data, dims, keepdim):
    """ATen's 2-norm over the innermost dim of a contiguous float tensor (all of it, or its last dim:
    norm_kernel_tensor_iterator_impl's binary_kernel_reduce_lastdim path), in its order: per row, one
    accumulator per SIMD lane adds x * x (each product rounded) chunk after chunk, the lanes are then
    added left to right, the tail one element at a time, then sqrt. None for any other case."""
    if type(data) is not np.ndarray or data.dtype not in (np.float32, np.float64) or not data.flags.c_contiguous \
            or data.size == 0:
        return None
    nd = data.ndim
    dims = tuple(sorted(d % nd for d in dims))
    if not dims or dims != tuple(range(dims[0], nd)):  # the reduced dims must coalesce into the innermost one
        return None
    rows = data.reshape(math.prod(data.shape[:dims[0]]), -1)
    lanes = numerics.VEC_BYTES // data.itemsize
    m, n = rows.shape
    nfull = n - n % lanes
    sq = rows * rows
    acc = np.zeros((m, lanes), data.dtype)
    if nfull:  # cumsum adds strictly in order: the running per-lane sums
        acc = np.cumsum(sq[:, :nfull].reshape(m, nfull // lanes, lanes), axis=1)[:, -1]
    total = np.cumsum(np.concatenate([acc, sq[:, nfull:]], axis=1), axis=1)[:, -1]
    r = np.sqrt(total)
    out_shape = tuple(1 if i in dims else d for i, d in enumerate(data.shape)) if keepdim \
        else tuple(d for i, d in enumerate(data.shape) if i not in dims)
    return r.reshape(out_shape)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    if isinstance(dim, int):
        dim = (dim,)
    if p == "fro" or p is None:
        if dim is not None and len(dim) > 2:
            raise errors.runtime(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
        return vector_norm(input, 2, dim, keepdim, dtype=dtype)
    if p == "nuc":
        return matrix_norm(input, "nuc", dim or (-2, -1), keepdim)
    if isinstance(p, str):
        raise errors.runtime(f"norm: p={p!r} is not supported")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if not A.dtype.is_floating_point:
        raise errors.runtime(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                             f"{R.c10(A.dtype)}")
    if dtype is not None and not dtype.is_floating_point:
        raise errors.runtime(f"linalg.matrix_norm: dtype should be floating point or complex, but got {R.c10(dtype)}")
    if A._data.ndim < 2:
        raise errors.runtime("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d0, d1 = (wrap_dim(d, A._data.ndim) for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        return _singular_norm(A if dtype is None or dtype is A.dtype else A.to(dtype), ord, d0, d1, keepdim)
    if ord in (1, -1, float("inf"), float("-inf")):
        # torch's order: the 1-norm along one dim, then amax/amin along the other
        if abs(ord) == float("inf"):
            d0, d1 = d1, d0
        if not keepdim and d0 < d1:
            d1 -= 1
        s = vector_norm(A, 1, d0, keepdim, dtype=dtype)
        return R.amax(s, d1, keepdim) if ord > 0 else R.amin(s, d1, keepdim)
    raise errors.runtime(f"linalg.matrix_norm: Order {ord} not supported.")


def _singular_norm(A, ord, d0, d1, keepdim):
    """torch's matrix norms of the singular values: the two dims moved last (a permute, as torch's), svdvals,
    then their sum ('nuc'), amax (2) or amin (-2); keepdim puts the dims back."""
    from .linalg_svd import svdvals  # noqa: PLC0415 - linalg_svd's family imports after this one
    from .shape import permute  # noqa: PLC0415
    nd = A._data.ndim
    perm = [i for i in range(nd) if i not in (d0, d1)] + [d0, d1]
    s = svdvals(permute(A, *perm))
    if ord == "nuc":
        r = R.sum(s, -1, keepdim)
    else:
        r = R.amax(s, -1, keepdim) if ord > 0 else R.amin(s, -1, keepdim)
    if keepdim:
        rev = [perm.index(i) for i in range(nd)]
        r = permute(unsqueeze(r, -1), *rev)
    return r


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    nd = A._data.ndim
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is not None and dim is None:
        if nd == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if nd != 1:
            raise errors.runtime(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                                 f"{nd}D.")
    if isinstance(ord, str):
        raise errors.runtime(f"linalg.vector_norm: ord={ord!r} is not supported for vectors")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


# ---------------------------------------------------------------------------- declarations

# ---------------------------------------------------------------------------- renorm

def _renorm_arrays(x, p, dim, maxnorm):
    """ATen's renorm: each slice along dim whose p-norm (over the other dims, in the accumulate type:
    double for float) exceeds maxnorm is scaled by maxnorm / (norm + 1e-7), computed in that type."""
    acc = np.float32 if x.dtype == np.float16 else np.float64
    dims = tuple(i for i in range(x.ndim) if i != dim)
    a = np.abs(x.astype(acc))
    if p == math.inf:
        norm = a.max(axis=dims, keepdims=True)
    elif p == 1:
        norm = a.sum(axis=dims, keepdims=True)
    elif p == 2:
        norm = np.sqrt((a * a).sum(axis=dims, keepdims=True))
    else:
        norm = (a ** p).sum(axis=dims, keepdims=True) ** (1.0 / p)
    factor = np.where(norm > maxnorm, maxnorm / (norm + acc(1e-7)), acc(1)).astype(acc)
    return (x.astype(acc) * factor).astype(x.dtype)


class RenormBackward0(Function):
    """torch's renorm_backward, in Tensor ops (so it differentiates again)."""
    __slots__ = ()
    explain = "maxnorm / norm times grad less its share along the norm's gradient (slices over maxnorm), else 1"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [_renorm_arrays(xs[0], kw["p"], kw["dim"], kw["maxnorm"])])
    save_inputs = True

    def backward(self, g):
        from .. import dtypes  # noqa: PLC0415
        (x,) = self.saved
        k = self._kw
        p, dim, maxnorm = k["p"], k["dim"], k["maxnorm"]
        dims = tuple(i for i in range(x._data.ndim) if i != dim)
        acc = dtypes.float32 if x.dtype is dtypes.float16 else dtypes.float64
        norm = vector_norm(x, p, dims, keepdim=True, dtype=acc)
        nb = _norm_backward(R.sum(x * g, dim=dims, keepdim=True, dtype=acc), x, norm, p, dims, True)
        invnorm = UM.reciprocal(norm + 1e-7)
        factor = invnorm * maxnorm
        return (CW.where(norm > maxnorm, factor * g - factor * invnorm * nb, g),)


def renorm(input, p, dim, maxnorm):
    if not float(p) > 0:
        raise errors.runtime("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise errors.runtime(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    nd = input._data.ndim
    if nd < 2:
        raise errors.runtime(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    d = wrap_dim(dim, nd)
    if not input.dtype.is_floating_point:  # renorm's kernel takes linalg_vector_norm of the slices
        raise errors.runtime(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                             f"Got {R.c10(input.dtype)}")
    out = _renorm_arrays(input._data, float(p), d, float(maxnorm))
    return record(RenormBackward0, (input,), wrap(_asarray(out), input.dtype),
                  {"p": float(p), "dim": d, "maxnorm": float(maxnorm)})


OPS = [
    op("nansum", nansum, NansumBackward0, sample=Sample("reduce"),
       cases={"nansum": case(lambda torch, x0: torch.nansum(x0), V.M23)}),
    op("nanmean", nanmean, sample=Sample("reduce", kwargs={"dim": 0}),
       cases={"nanmean": case(lambda torch, x: torch.nanmean(x, 0), V.M23)}),  # nansum's and div's nodes
    op("renorm", renorm, RenormBackward0, inplace=True, sample=Sample(
        [((3, 4),), ((2, 3, 2),)], call=lambda torch, x: (x.renorm(2, 0, 0.5), torch.renorm(x, 1, -1, 0.3)))),
    op("norm", norm, LinalgVectorNormBackward0, python_method=True,
       sample=Sample("reduce", call=lambda torch, x: (x.norm(), x.norm(p=1), x.norm(dim=-1), x.norm(p=3))),
       cases={"norm_2": case(lambda torch, x: torch.norm(x, dim=0), V.M23)}),
    op("dist", dist, DistBackward0, sample=Sample([((2, 3), (3,)), ((3,), (2, 1))], call=lambda torch, x, y: (
        torch.dist(x, y), x.dist(y, 3), torch.dist(x, y, 1.5), x.dist(y, float("inf"))))),
    op("var", out_variant("sum", var, after=_one_pass), R.VarBackward0,
       sample=Sample(S1, call=lambda torch, x: (x.var(), x.var(-1, correction=0)))),
    op("std", out_variant("sum", std, after=_one_pass), R.StdBackward0,
       sample=Sample([((3,),), ((3, 2),)], call=lambda torch, x: (x.std(), torch.std(x, 0, keepdim=True)))),
    op("var_mean", var_mean, VarMeanBackward0, method=False, sample=Sample(S1, args=(-1,)),
       cases={"var_mean": case(lambda torch, x: torch.var_mean(x, 1), V.M23)}),
    op("std_mean", std_mean, StdMeanBackward0, method=False, sample=Sample(S1, args=(-1,)),
       cases={"std_mean": case(lambda torch, x0: torch.std_mean(x0), V.M23)}),
    # torch.linalg
    op("linalg_norm", linalg_norm, LinalgVectorNormBackward0, method=False, torch=False, linalg="norm",
       sample=Sample("reduce", call=lambda torch, x: (torch.linalg.norm(x), torch.linalg.norm(x, dim=-1)))),
    op("matrix_norm", matrix_norm, LinalgVectorNormBackward0, R.AmaxBackward0, method=False, torch=False,
       linalg=True, sample=Sample([((2, 3),), ((2, 2, 3),)], call=lambda torch, x: (
           torch.linalg.matrix_norm(x), torch.linalg.matrix_norm(x, 1), torch.linalg.matrix_norm(x, float("inf")),
           torch.linalg.matrix_norm(x, "nuc"), torch.linalg.matrix_norm(x, 2), torch.linalg.matrix_norm(x, -2))),
       cases={"matrix_norm_fro": case(lambda torch, x0: torch.linalg.matrix_norm(x0), V.M23),
              "matrix_norm_1": case(lambda torch, x: torch.linalg.matrix_norm(x, 1), V.M23),
              "matrix_norm_inf": case(lambda torch, x: torch.linalg.matrix_norm(x, float('inf')), V.M23),
              "matrix_norm_nuc": case(lambda torch, x: torch.linalg.matrix_norm(x, "nuc"), V.M23),
              "matrix_norm_2": case(lambda torch, x: torch.linalg.matrix_norm(x, 2, keepdim=True), V.M23)}),
    op("vector_norm", vector_norm, LinalgVectorNormBackward0, method=False, torch=False, linalg=True,
       sample=Sample("reduce", call=lambda torch, x: (torch.linalg.vector_norm(x, 3),
                                                       torch.linalg.vector_norm(x, 0.5, dim=-1))),
       cases={"vector_norm_3": case(lambda torch, x: torch.linalg.vector_norm(x, 3), V.A),
              "vector_norm_half": case(lambda torch, x: torch.linalg.vector_norm(x, 0.5), V.A),
              "vector_norm_inf": case(lambda torch, x: torch.linalg.vector_norm(x, float('inf'), dim=1), V.M23),
              "vector_norm_1": case(lambda torch, x: torch.linalg.vector_norm(x, 1), V.A)}),
]

_TABLES = tables(OPS, inplace_method)  # its tables (registry.tables): Tensor methods, x.name_(), torch.<name> only, ...
METHODS, INPLACE, TORCH, LINALG, SPECIAL = (_TABLES[k] for k in ("METHODS", "INPLACE", "TORCH", "LINALG", "SPECIAL"))
