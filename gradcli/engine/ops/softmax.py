"""softmax, log_softmax and logsumexp (torch.special's too), with their nodes and declarations (OPS): a
family of the core (methods.py derives its tables), next to ops/reduction.py.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from ...backend import vml
from .. import dtypes, errors, numerics
from ..device import asarray as _asarray
from ..function import Function, out_variant, record
from ..softmax_kernel import log_softmax_lastdim, softmax_lastdim
from ..tensor import wrap, wrap_dim
from . import replays, words
from . import backward_ops as B
from .reduction import c10, reduction_dims, unsqueeze_reduced
from .registry import Sample, op

# ---------------------------------------------------------------------------- softmax family

class SoftmaxBackward0(Function):
    __slots__ = ()
    save_output = True
    explain = staticmethod(words.fixed("softmax Jacobian: y * (grad - (grad * y).sum(dim))"))
    replay = staticmethod(replays.softmax)

    def backward(self, g):
        (out,) = self.saved[-1:]
        return (B.softmax_backward_data(g, out, self._kw["dim"]),)


class LogSoftmaxBackward0(Function):
    __slots__ = ()
    save_output = True
    explain = staticmethod(words.fixed("log_softmax Jacobian: grad - exp(y) * grad.sum(dim)"))
    replay = staticmethod(replays.log_softmax)

    def backward(self, g):
        (out,) = self.saved[-1:]
        return (B.log_softmax_backward_data(g, out, self._kw["dim"]),)


def _half_in_float(data):
    """ATen's softmax kernels take float16 in float (load, compute, round at the stores)."""
    return data.astype(np.float32) if data.dtype == np.float16 and type(data) is np.ndarray else data


def _half_softmax(data, d, log):
    """The float16 kernels' own stores, measured against torch (0 differing elements): softmax over
    another dim than the last keeps exp(x - max) in the half output before dividing by the float sum;
    log_softmax over the last dim keeps the sum, then its log, in half."""
    x = data.astype(np.float32)
    m = x.max(axis=d, keepdims=True)
    e, acc = _ordered_exp_sum(x - m, d)
    if log:
        log_sum = np.log(acc.astype(np.float16).astype(np.float64)).astype(np.float32)
        return x - m - log_sum.astype(np.float16).astype(np.float32)
    # _vec_softmax walks the (outer, inner) positions of each thread's range: a whole Vectorized<Half>
    # of inner positions inside the range is computed in float buffers (no half store of the exps)
    outer, inner = math.prod(x.shape[:d]), math.prod(x.shape[d + 1:])
    from ..rng_math import capability  # noqa: PLC0415
    lanes = 32 if capability() == "avx512" else 16
    vec = np.zeros(outer * inner, bool)
    if inner >= lanes:
        for begin, end in numerics.omp_ranges(0, outer * inner, 0):
            idx = begin
            while idx < end:
                if idx % inner + lanes <= inner and idx + lanes <= end:
                    vec[idx:idx + lanes] = True
                    idx += lanes
                else:
                    idx += 1
    scalar = e.astype(np.float16).astype(np.float32) / acc
    if not vec.any():
        return scalar
    vec = vec.reshape(outer, 1, inner)
    return np.where(vec, (e / acc).reshape(outer, -1, inner), scalar.reshape(outer, -1, inner)).reshape(x.shape)


def _softmax_input(input, dim, dtype, name="softmax"):
    dt = dtype or input.dtype
    if dim is None:
        raise errors.type_error(f"{name}() missing 1 required positional arguments: \"dim\"")
    d = wrap_dim(dim, input._data.ndim) if input._data.ndim else wrap_dim(dim, 0)
    if not dt.is_floating_point:
        kernel = f"{name}_lastdim_kernel_impl" if d == builtins.max(input._data.ndim - 1, 0) else f"{name}_kernel_impl"
        e = NotImplementedError(f'"{kernel}" not implemented for \'{c10(dt)}\'')
        e.gradcli_hint = "float_dtype"
        raise e
    data = input._data.astype(dt.np, copy=False)
    return data, d, dt


def _ordered_exp_sum(s, d):
    """float32 exp(s) rounded once (for SLEEF's 1-ulp exp) and its sum along d added in order."""
    e = np.exp(s.astype(np.float64)).astype(np.float32)
    acc = e.take([0], axis=d)
    for i in range(1, s.shape[d]):
        acc = acc + e.take([i], axis=d)
    return e, acc


def softmax(input, dim=None, dtype=None, _stacklevel=3):
    data, d, dt = _softmax_input(input, dim, dtype)
    if data.dtype == np.float16 and data.ndim and d != data.ndim - 1 and data.size and type(data) is np.ndarray:
        return record(SoftmaxBackward0, (input,), wrap(_half_softmax(data, d, False).astype(np.float16), dt),
                      {"dim": d})
    data = _half_in_float(data)
    if data.ndim == 0:
        r = data - data + 1  # exp(x - x) / exp(x - x): 1, or NaN for a NaN or infinite x
    elif data.size == 0:
        r = data.copy()
    elif data.dtype == np.float32 and type(data) is np.ndarray and d == data.ndim - 1:
        r = softmax_lastdim(data)  # ATen's _vec_softmax_lastdim: SLEEF's exp, lane-wise sums
    elif data.dtype == np.float32 and type(data) is np.ndarray:
        # ATen's order, as log_softmax's below: the exps summed in order along dim, then divided by the sum
        e, acc = _ordered_exp_sum(data - data.max(axis=d, keepdims=True), d)
        r = e / acc
    else:
        e = np.exp(data - data.max(axis=d, keepdims=True))
        r = e / e.sum(axis=d, keepdims=True)
    return record(SoftmaxBackward0, (input,), wrap(_asarray(r, dt.np), dt), {"dim": d})


def log_softmax(input, dim=None, dtype=None, _stacklevel=3):
    data, d, dt = _softmax_input(input, dim, dtype, "log_softmax")
    if data.dtype == np.float16 and data.ndim and d == data.ndim - 1 and data.size and type(data) is np.ndarray:
        return record(LogSoftmaxBackward0, (input,), wrap(_half_softmax(data, d, True).astype(np.float16), dt),
                      {"dim": d})
    data = _half_in_float(data)
    if data.ndim == 0:
        r = data - data  # (x - x) - log(exp(x - x)): 0, or NaN for a NaN or infinite x
    elif data.size == 0:
        r = data.copy()
    elif data.dtype == np.float32 and type(data) is np.ndarray and d == data.ndim - 1:
        r = log_softmax_lastdim(data)  # ATen's _vec_log_softmax_lastdim: SLEEF's exp and log
    else:
        m = data.max(axis=d, keepdims=True)
        s = data - m
        if data.dtype == np.float32 and type(data) is np.ndarray:
            # ATen's kernel here: exp of x - max, accumulated across dim in order, then log; exp and
            # log (SLEEF, 1 ulp) are taken as correctly rounded
            acc = _ordered_exp_sum(s, d)[1]
            r = s - np.log(acc.astype(np.float64)).astype(np.float32)
        else:
            r = s - np.log(np.exp(s).sum(axis=d, keepdims=True))
    return record(LogSoftmaxBackward0, (input,), wrap(_asarray(r, dt.np), dt), {"dim": d})


class LogsumexpBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.reduce_kw(replays.logsumexp))
    explain = "softmax({a}) along dim"
    explain_factor = False
    save_inputs = True
    save_output = True

    def backward(self, g):
        x, out = self.saved
        g, out = unsqueeze_reduced(self._kw, x, g, out)
        from .unary_math import exp  # noqa: PLC0415
        return (g * exp(x - out),)


_EXP = vml("exp", numerics.exp)
_LOG = vml("log", numerics.ufunc(np.log))


def logsumexp(input, dim, keepdim=False):
    data = input._data
    dt = input.dtype if input.dtype.is_floating_point else dtypes.defaults.float
    data = data.astype(dt.np, copy=False)
    if isinstance(dim, (tuple, list)) and not dim and data.ndim:
        # ATen's logsumexp over dim=() reduces every dim into a kept shape, then fails to copy it into
        # the output without keepdim (torch's own error)
        if not keepdim:
            raise errors.runtime(f"output with shape [] doesn't match the broadcast shape "
                                 f"[{', '.join(['1'] * data.ndim)}]")
        dim = None
    dims = reduction_dims(dim, data.ndim)
    if data.size == 0:  # the log of an empty sum: -inf (an empty result where other dims are empty)
        with np.errstate(divide="ignore"):
            r = np.log(np.exp(data).sum(axis=dims, keepdims=keepdim))
    elif data.ndim:
        m = data.max(axis=dims, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        # ATen's composite: sum((self - maxes).exp_()).log_() + maxes (exp_ and log_ are MKL's with gradcli[mkl])
        r = _LOG(numerics.torch_sum(_EXP(data - m), dims, True)) + m
        if not keepdim:
            r = r.reshape([s for i, s in enumerate(data.shape) if i not in dims])
    else:
        r = data.copy()
    return record(LogsumexpBackward0, (input,), wrap(_asarray(r, dt.np), dt), {"dims": dims, "keepdim": keepdim})


# ---------------------------------------------------------------------------- declarations

OPS = [
    op("softmax", softmax, SoftmaxBackward0, special=True, sample=Sample("reduce", args=(-1,))),
    op("log_softmax", log_softmax, LogSoftmaxBackward0, special=True, sample=Sample("reduce", args=(0,))),
    op("logsumexp", out_variant("logsumexp", logsumexp), LogsumexpBackward0, special=True, sample=Sample("reduce", args=(-1,))),
]

