"""torch functions the tutorial corpus found missing (docs/coverage.md's "not implemented yet"):
trapezoid / trapz / cumulative_trapezoid (aten/src/ATen/native/Integration.cpp), vander, cov and
corrcoef (Correlation.cpp), block_diag, chain_matmul, frexp, ldexp and nextafter.

The composite ones are written with the same tensor operations, in the same order, as their ATen
source, so their graphs (grad_fn names, next_functions) and float rounding are torch's; block_diag,
frexp, ldexp and nextafter have nodes of their own, as in torch (derivatives.yaml)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import dtypes, errors
from ..argcheck import invalid_combination, is_scalar
from ..device import xp_of
from ..function import Function, out_variant, record
from ..limits import check_shape
from ..tensor import Tensor, wrap, wrap_dim
from . import arithmetic as AR
from . import elementwise_common as EC
from . import words
from .clamp_where import where
from .registry import Sample, V, case, op, tables
from .reduction import return_type
from .special_common import inplace_method
from .special_common import not_implemented

FrexpResult = return_type("frexp", ("mantissa", "exponent"))


def _mul_s(t, s):
    """at::mul(Tensor, Scalar) as ATen's C++ writes `t * s`: MulBackward1 (integer tensors promote)."""
    return EC.mul_scalar(t, s) if t.dtype.is_floating_point else t * s


def _div_s(t, s):
    return EC.div_scalar(t, s) if t.dtype.is_floating_point else t / s


def _dim_tensor(fn, name, value, pos):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(value).__name__}")
    return value


# ---------------------------------------------------------------------------- trapezoid rule

def _trapezoid_signature_error(fn, y, x, dx):
    """torch's argument parser's error (told again with the arguments as given by the binding)."""
    from ..arg_parser import parser_error  # noqa: PLC0415 - only for the error
    from ..torch_signatures import SIGNATURES  # noqa: PLC0415
    return parser_error(fn, SIGNATURES[fn], (y,) if x is None else (y, x), {} if dx is None else {"dx": dx})


def _x_slices(fn, y, x, dim):
    """dx = x_right - x_left, x viewed to y's rank first (1-D: along dim; fewer dims: ones in front)."""
    if x.dtype is dtypes.bool_ or y.dtype is dtypes.bool_:
        raise errors.runtime(f"{fn}: received a bool input for `x` or `y`, but bool is not supported")
    nd = y._data.ndim
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[dim]:
            raise errors.runtime(f"{fn}: There must be one `x` value for each sample point")
        sizes = [1] * nd
        sizes[dim] = x._data.shape[0]
        xv = x.view(sizes)
    elif x._data.ndim < nd:
        xv = x.view([1] * (nd - x._data.ndim) + list(x._data.shape))
    else:
        xv = x
    return _halves(xv, dim)[1] - _halves(xv, dim)[0]


def _halves(t, dim):
    """t.slice(dim, 0, -1) and t.slice(dim, 1), clamped as slice clamps (a size-0 dim gives two empty ones)."""
    n = t._data.shape[dim]
    return t.narrow(dim, 0, max(n - 1, 0)), t.narrow(dim, min(1, n), max(n - 1, 0))


def _check_dx(fn, y, dx):
    if y.dtype is dtypes.bool_:
        raise errors.runtime(f"{fn}: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, bool) or not isinstance(dx, (int, float)):
        raise errors.runtime(f"{fn}: Currently, we only support dx as a real number.")
    return float(dx)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    if (x is not None and (dx is not None or not isinstance(x, Tensor))) or not (dx is None or is_scalar(dx)):
        raise _trapezoid_signature_error("trapezoid", y, x, dx)
    _dim_tensor("trapezoid", "y", y, 1)
    d = wrap_dim(dim, y._data.ndim)
    n = y._data.shape[d]
    if n == 0:  # numpy's answer: zeros (zeros_like_except)
        from ..factory import zeros  # noqa: PLC0415
        shape = y._data.shape[:d] + y._data.shape[d + 1:]
        return zeros(shape, dtype=y.dtype, device=y.device)
    if x is not None:
        dxs = _x_slices("trapezoid", y, x, d)
        left, right = _halves(y, d)
        return _div_s(((left + right) * dxs).sum(d), 2.0)
    step = _check_dx("trapezoid", y, 1 if dx is None else dx)
    return _mul_s(y.sum(d) - _mul_s(y.select(d, 0) + y.select(d, -1), 0.5), step)


def trapz(y, x=None, *, dx=None, dim=-1):
    if (x is not None and (dx is not None or not isinstance(x, Tensor))) or not (dx is None or is_scalar(dx)):
        raise _trapezoid_signature_error("trapz", y, x, dx)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    if (x is not None and (dx is not None or not isinstance(x, Tensor))) or not (dx is None or is_scalar(dx)):
        raise _trapezoid_signature_error("cumulative_trapezoid", y, x, dx)
    _dim_tensor("cumulative_trapezoid", "y", y, 1)
    d = wrap_dim(dim, y._data.ndim)
    if x is not None:
        dxs = _x_slices("cumulative_trapezoid", y, x, d)
        left, right = _halves(y, d)
        return _div_s(((left + right) * dxs).cumsum(d), 2.0)
    step = _check_dx("cumulative_trapezoid", y, 1 if dx is None else dx)
    left, right = _halves(y, d)
    return _mul_s(left + right, step / 2.0).cumsum(d)


# ---------------------------------------------------------------------------- vander, cov, corrcoef

def vander(x, N=None, increasing=False):
    _dim_tensor("vander", "x", x, 1)
    if x._data.ndim != 1:
        raise errors.runtime("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else N
    if n < 0:
        raise errors.runtime("N must be non-negative.")
    from ..factory import empty  # noqa: PLC0415
    # integer inputs give int64 (cumprod promotes them), floats keep their dtype
    dt = dtypes.promote_types(x.dtype, dtypes.int64)
    result = empty((x._data.shape[0], n), dtype=dt, device=x.device)
    if n > 0:
        result.select(1, 0).fill_(1)
    if n > 1:
        result.narrow(1, 1, n - 1).copy_(x.unsqueeze(1))
        result.narrow(1, 1, n - 1).copy_(result.narrow(1, 1, n - 1).cumprod(1))
    return result if increasing else result.flip([1])


def _c10(dt):
    return dt.legacy[:-len("Tensor")]


def _check_weights(kind, w, n, integral):
    if w._data.ndim > 1:
        raise errors.runtime(f"cov(): expected {kind} to have one or fewer dimensions but got {kind} with "
                             f"{w._data.ndim} dimensions")
    ok = w.dtype.category == dtypes.INT if integral else w.dtype.is_floating_point
    if not ok:
        raise errors.runtime(f"cov(): expected {kind} to have {'integral' if integral else 'floating point'} dtype "
                             f"but got {kind} with {_c10(w.dtype)} dtype")
    if w._data.size != n:
        raise errors.runtime(f"cov(): expected {kind} to have the same numel as there are observations in the input "
                             f"but got {w._data.size} != {n}")
    if n and not bool((w._data >= 0).all()):
        raise errors.runtime(f"cov(): {kind} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    nd = input._data.ndim
    if nd > 2:
        raise errors.runtime(f"cov(): expected input to have two or fewer dimensions but got an input with {nd} "
                             f"dimensions")
    if input.dtype is dtypes.bool_:
        raise errors.runtime("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if nd < 2 else input
    n = x._data.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, n, True)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, n, False)
        w = w * aweights if w is not None else aweights
    if w is not None:
        w_sum = w.sum()
        if not bool(w_sum._data != 0):
            raise errors.runtime("cov(): weights sum to zero, can't be normalized")
    else:
        w_sum = wrap(np.asarray(n, np.int64), dtypes.int64)
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - _mul_s((w * aweights).sum(), correction) / w_sum
    else:
        norm_factor = w_sum - correction
    if bool(norm_factor._data <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm_factor.zero_()
    x = x - avg.unsqueeze(1)
    c = x.mm((x * w if w is not None else x).t())
    return c.true_divide(norm_factor).squeeze()


def corrcoef(input):
    nd = input._data.ndim
    if nd > 2:
        raise errors.runtime(f"corrcoef(): expected input to have two or fewer dimensions but got an input with {nd} "
                             f"dimensions")
    c = cov(input)
    if c._data.ndim == 0:  # a scalar covariance: nan where it is nan, inf or 0, else 1
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)


# ---------------------------------------------------------------------------- quantile, nanquantile

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(fn, input, q, dim, keepdim, interpolation, ignore_nan):
    """ATen's quantile_compute (Sorting.cpp): sort, ranks from q, gather below/above, lerp_ in place, the
    quantiles moved to the front with in-place views (SqueezeBackward4, ...) as torch records them."""
    if not isinstance(interpolation, str):  # (an object equal to every string is no str for torch's parser)
        from ..torch_signatures import SIGNATURES  # noqa: PLC0415 - only for the error
        raise invalid_combination(fn, SIGNATURES[fn], (input, q), {"interpolation": interpolation})
    if interpolation not in _INTERPOLATIONS:
        raise errors.runtime(f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                             f"but got {interpolation}")
    if not isinstance(q, Tensor):
        if isinstance(q, bool) or not isinstance(q, (int, float)):
            from ..torch_signatures import SIGNATURES  # noqa: PLC0415 - only for the error
            raise invalid_combination(fn, SIGNATURES[fn], (input, q), {})  # (its binding tells the arguments given)
        if not 0 <= q <= 1:
            raise errors.runtime(f"quantile() q must be in the range [0, 1] but got {float(q)}")
        q = wrap(xp_of(input._data).asarray(q, dtype=input.dtype.np), input.dtype)
    if input._data.size == 0:
        raise errors.runtime("quantile() input tensor must be non-empty")
    if q._data.ndim > 1:
        raise errors.runtime("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise errors.runtime("quantile() input tensor must be either float or double dtype")
    if q.dtype is not input.dtype:
        raise errors.runtime("quantile() q tensor must be same dtype as the input tensor")
    nd = input._data.ndim
    wdim = wrap_dim(0 if dim is None else dim, nd)
    if dim is not None and nd > 0:
        out_shape = list(input._data.shape)
        if keepdim:
            out_shape[wdim] = 1
        else:
            del out_shape[wdim]
    else:
        out_shape = [1] * nd if keepdim else []
    if q._data.ndim > 0:
        out_shape.insert(0, q._data.size)
    if not bool(((q._data >= 0) & (q._data <= 1)).all()):
        raise errors.runtime("quantile() q values must be in the range [0, 1]")
    if dim is None:
        ordered = input.flatten().sort()[0]
    elif wdim == nd - 1:
        ordered = input.sort()[0]
    else:
        ordered = input.unsqueeze(-1).transpose(wdim, -1).sort()[0]
    if q._data.ndim == 0:
        out_shape.insert(0, 1)
    in_shape = out_shape[1:] + [0]
    in_shape[-1] = ordered._data.shape[-1]
    in_shape = in_shape[:len(out_shape)]
    ordered = ordered.view(in_shape)
    if ignore_nan:
        ranks = q * (ordered.isnan().logical_not_().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:
        last = ordered._data.shape[-1] - 1
        scaled, has_nan = _broadcast(q * last, ordered.isnan().any(-1, True))
        ranks = scaled.masked_fill(has_nan, last)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    ranks_below = ranks.long()
    values = ordered.gather(-1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        weights = ranks.new_full(tuple(ranks._data.shape), 0.5) if interpolation == "midpoint" else ranks - ranks_below
        ranks_above = ranks.ceil_().long()
        values.lerp_(ordered.gather(-1, ranks_above), weights)
    if q._data.ndim == 0:
        values.squeeze_(-1)
    else:
        values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values


def _broadcast(a, b):
    from .shape_extra import broadcast_tensors  # noqa: PLC0415
    return broadcast_tensors(a, b)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    if out is not None:
        raise errors.runtime("quantile(): out= is not supported by gradcli")
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    if out is not None:
        raise errors.runtime("nanquantile(): out= is not supported by gradcli")
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# ---------------------------------------------------------------------------- block_diag, chain_matmul

class BlockDiagBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed("1 on the input's block of the result's diagonal, 0 elsewhere"))

    @staticmethod
    def replay(xs, kw, outs):
        return [_block_diag_array([np.asarray(a) for a in xs], np.result_type(*xs))]

    def backward(self, g):
        out, r, c = [], 0, 0
        for shape in self._kw["shapes"]:
            if shape == (0,):
                from ..factory import zeros  # noqa: PLC0415
                out.append(zeros((0,), dtype=g.dtype, device=g.device))
                continue
            d0, d1 = _block(shape)
            piece = g.narrow(0, r, d0).narrow(1, c, d1)
            if len(shape) == 1:
                piece = piece.squeeze(-1)
                if tuple(piece.shape) != shape:
                    piece = EC.shaped(piece, shape)
            elif not shape:
                piece = piece.squeeze(-1).squeeze(-1)
            out.append(piece)
            r, c = r + d0, c + d1
        return tuple(out)


def _block(shape):
    if len(shape) == 2:
        return shape
    return (1, shape[0]) if len(shape) == 1 else (1, 1)


def _block_diag_array(arrays, np_dtype):
    blocks = [_block(a.shape) for a in arrays]
    xp = xp_of(arrays[0])
    result = xp.zeros((sum(b[0] for b in blocks), sum(b[1] for b in blocks)), dtype=np_dtype)
    r = c = 0
    for a, (d0, d1) in zip(arrays, blocks):
        result[r:r + d0, c:c + d1] = a.reshape(d0, d1) if a.ndim < 2 else a
        r, c = r + d0, c + d1
    return result


def block_diag(*tensors):
    if not tensors:
        from ..factory import empty  # noqa: PLC0415
        return empty((1, 0))
    for i, t in enumerate(tensors):
        _dim_tensor("block_diag", "tensors", t, 1)
        if t._data.ndim > 2:
            raise errors.runtime(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                                 f"{t._data.ndim} dimensions")
        if t.device != tensors[0].device:
            raise errors.runtime(f"torch.block_diag: input tensors must all be on the same device. Input 0 is on device "
                                 f"{tensors[0].device} and input {i} is on device {t.device}")
    dt = dtypes.result_type(tensors)
    blocks = [_block(t._data.shape) for t in tensors]
    check_shape((sum(b[0] for b in blocks), sum(b[1] for b in blocks)))
    arr = _block_diag_array([t._data.astype(dt.np, copy=False) for t in tensors], dt.np)
    return record(BlockDiagBackward0, tuple(tensors), wrap(arr, dt), {"shapes": [tuple(t._data.shape) for t in tensors]})


_CHAIN_WARNED = []


def chain_matmul(*matrices, out=None):
    if out is not None:
        raise errors.runtime("chain_matmul(): out= is not supported by gradcli")
    if not _CHAIN_WARNED:  # TORCH_WARN_ONCE
        _CHAIN_WARNED.append(True)
        warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                      "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                      "multiple parameters.", UserWarning, stacklevel=2)
    for m in matrices:
        _dim_tensor("chain_matmul", "matrices", m, 1)
        if m._data.ndim != 2:
            raise errors.runtime(f"Tensor dimension is {m._data.ndim}, expected 2 instead.")
    if not matrices:
        raise errors.runtime("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    from .linalg_products import multi_dot  # noqa: PLC0415
    return multi_dot(list(matrices))


# ---------------------------------------------------------------------------- frexp, ldexp, nextafter

class FrexpBackward0(Function):
    __slots__ = ()
    explain = "1 / 2**exponent"
    replay = staticmethod(lambda xs, kw, outs: [np.frexp(xs[0])[0]])

    def backward(self, g):
        return (g / self._kw["exponent"].exp2(),)


def frexp(input):
    if not input.dtype.is_floating_point:
        raise errors.runtime("torch.frexp() only supports floating-point dtypes")
    xp = xp_of(input._data)
    m, e = xp.frexp(input._data)
    exponent = wrap(e.astype(np.int32), dtypes.int32)
    mantissa = record(FrexpBackward0, (input,), wrap(m.astype(input.dtype.np, copy=False), input.dtype),
                      {"exponent": exponent})
    return FrexpResult((mantissa, exponent))


def _pow2(other):
    """at::pow(2.0, other): other's float dtype, or the default one for an integer other."""
    dt = other.dtype if other.dtype.is_floating_point else dtypes.get_default_dtype()
    return wrap(np.power(np.asarray(2.0, dt.np), other._data.astype(dt.np)).astype(dt.np, copy=False), dt)


class LdexpBackward0(Function):
    __slots__ = ()
    explain = ("2**{b}", "{a} * ln(2) * 2**{b}")
    replay = staticmethod(lambda xs, kw, outs: [xs[0] * np.power(2.0, xs[1])])
    save_inputs = True

    def backward(self, g):
        a, b = self.saved
        p = AR.pow(2, b)  # at::pow(2, other): an integer power for an integer other (0 for a negative one, as torch)
        ga = g * p if EC.needs_input_grad(self, 0) else None
        gb = _mul_s(g * a * p, math.log(2)) if EC.needs_input_grad(self, 1) else None
        return EC.shaped(ga, a), EC.shaped(gb, b)


def ldexp(input, other):
    _dim_tensor("ldexp", "other", other, 2)
    p = _pow2(other)
    dt = dtypes.result_type((input, p))
    try:
        r = input._data.astype(dt.np, copy=False) * p._data.astype(dt.np, copy=False)
    except ValueError:
        raise EC.broadcast_error(input, other) from None
    return record(LdexpBackward0, (input, other), wrap(np.asarray(r).astype(dt.np, copy=False), dt))


class NextafterBackward0(Function):
    __slots__ = ()
    explain = ("1 where {a} != {b}, else 0", "0")
    replay = staticmethod(lambda xs, kw, outs: [np.nextafter(xs[0], xs[1])])
    save_inputs = True

    def backward(self, g):
        a, b = self.saved
        ga = where(a != b, g, 0) if EC.needs_input_grad(self, 0) else None
        gb = b * 0 if EC.needs_input_grad(self, 1) else None
        return EC.shaped(ga, a), EC.shaped(gb, b)


def nextafter(input, other):
    _dim_tensor("nextafter", "other", other, 2)
    dt = dtypes.result_type((input, other))
    x, y = EC.binary_operands(input, other, dt)
    try:  # TensorIterator's broadcast first, then the kernel's dtype
        np.broadcast_shapes(np.shape(x), np.shape(y))
    except ValueError:
        raise EC.broadcast_error(input, other) from None
    if not dt.is_floating_point:
        raise not_implemented("nextafter_cpu", dt)
    try:
        r = np.nextafter(x, y)
    except ValueError:
        raise EC.broadcast_error(input, other) from None
    return record(NextafterBackward0, (input, other), wrap(np.asarray(r).astype(dt.np, copy=False), dt))


# ---------------------------------------------------------------------------- declarations

_Y = [((3,),), ((2, 4),)]
OPS = [
    op("trapezoid", trapezoid, method=False, sample=Sample(_Y, kwargs={"dx": 0.5}),
       cases={"trapezoid_x": case(lambda torch, y, x: torch.trapezoid(y, x), V.A, [0.0, 0.5, 1.5, 1.75, 3.0])}),
    op("trapz", trapz, method=False, sample=Sample(_Y, call=lambda torch, y: torch.trapz(y, dim=0))),
    op("cumulative_trapezoid", cumulative_trapezoid, method=False, sample=Sample(_Y, kwargs={"dx": 2}),
       cases={"cumulative_trapezoid_x": case(lambda torch, y, x: torch.cumulative_trapezoid(y, x), V.A,
                                             [0.0, 0.5, 1.5, 1.75, 3.0])}),
    op("vander", vander, method=False,
       no_grad="torch's own backward fails: vander's copy_ of the cumprod into the result overwrites the "
               "cumprod's saved input (the version-counter error, which gradcli gives too: golden numeric_extra)"),
    op("cov", cov, sample=Sample([((2, 4),), ((5,),)]),
       cases={"cov_weights": case(lambda torch, x, aw: torch.cov(x, fweights=torch.tensor([1, 2, 1, 3, 1]), aweights=aw),
                                  [V.A, V.B], V.P)}),
    op("corrcoef", corrcoef, sample=Sample([((3, 5),)])),
    op("quantile", quantile, sample=Sample([((5,),), ((3, 4),)], call=lambda torch, x: torch.quantile(
        x, torch.tensor([0.2, 0.7], dtype=x.dtype), dim=-1)),
       cases={"quantile_midpoint": case(lambda torch, x: torch.quantile(x, 0.4, interpolation="midpoint"), V.A)}),
    op("nanquantile", nanquantile, sample=Sample([((5,),), ((3, 4),)], call=lambda torch, x: torch.nanquantile(
        x, 0.3, dim=0, keepdim=True))),
    op("block_diag", block_diag, BlockDiagBackward0, method=False,
       sample=Sample([((2, 2), (3,), ()), ((1, 3), (2, 1))])),
    op("chain_matmul", chain_matmul, method=False, sample=Sample([((2, 3), (3, 4), (4, 2)), ((2, 3), (3, 2))])),
    op("frexp", out_variant("frexp", frexp), FrexpBackward0, sample=Sample(call=lambda torch, x: torch.frexp(x)[0]),
       cases={"frexp": case(lambda torch, x: torch.frexp(x).mantissa, V.WIDE)}),
    op("ldexp", ldexp, LdexpBackward0, inplace=True, torch_inplace=True,
       sample=Sample([((2, 3),), ((3,),)], call=lambda torch, x: torch.ldexp(x, torch.tensor([1, 0, 3]))),  # torch: 0 for a negative int exponent
       cases={"ldexp": case(lambda torch, x, e: torch.ldexp(x, e), V.A, [1.0, -2.0, 0.5, 3.0, 0.0])}),
    op("nextafter", nextafter, NextafterBackward0, inplace=True,
       sample=Sample(call=lambda torch, x: torch.nextafter(x, x + 1))),
]
_TABLES = tables(OPS, inplace_method)
METHODS = _TABLES["METHODS"]
INPLACE = _TABLES["INPLACE"]
METHOD_ONLY = tuple(_TABLES["METHOD_ONLY"])
TORCH = _TABLES["TORCH"]
