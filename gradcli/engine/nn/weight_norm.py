"""torch.nn.utils.parametrizations.weight_norm (torch/nn/utils/parametrizations.py, 2.13) and the op under it,
torch._weight_norm: for dim 0 or the last dim ATen's fused _weight_norm_interface (WeightNormKernel.cpp, its
node WeightNormInterfaceBackward0), else v * (g / norm_except_dim(v, 2, dim)). The fused kernels in their
order: dim 0 sums each row's squares with vec::map_reduce_all (Vec::size() lanes, the vector's tail blended in,
then float's halving tree or double's lane by lane; no fused multiply-add), the last dim sums down the columns in
at::parallel_for's row chunks with fused multiply-adds (one buffer row per thread, added in thread order); the
backward kernels likewise, grad_v = fma(-b, v, a * grad_w) with a = g / norm, b = a * grad_g / norm (the
contractions measured against torch on this AVX2 machine). Under create_graph the backward is torch's
_weight_norm_differentiable_backward (the norms as saved, constants)."""
from __future__ import annotations

import numpy as np

from .. import api as torch
from .. import numerics
from ..device import host, like
from ..function import Function, record
from ..rng_math import fma32, fma64
from ..tensor import wrap
from .module import Module


def _lanes(dtype):
    return numerics.VEC_BYTES // dtype.itemsize


def _reduce_lanes(acc, single):
    """vec_reduce_all of full vectors: float's shuffle tree (halving), double's lanes in order."""
    if single:
        while acc.shape[1] > 1:
            half = acc.shape[1] // 2
            acc = acc[:, :half] + acc[:, half:]
        return acc[:, 0]
    out = acc[:, 0].copy()
    for i in range(1, acc.shape[1]):
        out = out + acc[:, i]
    return out


def _row_sums(x, y):
    """vec::map2_reduce_all(x * y, +) of each row (map_reduce_all when y is x)."""
    n = x.shape[1]
    lanes = _lanes(x.dtype)
    prod = x * y
    if n < lanes:
        out = prod[:, 0].copy()
        for i in range(1, n):
            out = out + prod[:, i]
        return out
    acc = prod[:, :lanes].copy()
    d = lanes
    full = n - n % lanes
    while d < full:
        acc = acc + prod[:, d:d + lanes]
        d += lanes
    if d < n:
        acc[:, :n - d] = acc[:, :n - d] + prod[:, d:n]
    return _reduce_lanes(acc, x.dtype == np.float32)


def _fma(a, b, c):
    return fma32(a, b, c) if a.dtype == np.float32 else fma64(a, b, c)


def _column_sums(x, y):
    """The last-dim kernels' vertical reduction: each thread's rows summed into its buffer row (from 0) with
    fused multiply-adds (the compiler contracts `out + x * y` there), the buffer rows added in thread order."""
    m, n = x.shape
    buffers = np.zeros((numerics.NUM_THREADS, n), x.dtype)
    for tid, (begin, end) in enumerate(numerics.omp_ranges(0, m, 1)):
        for i in range(begin, end):
            buffers[tid] = _fma(x[i], y[i], buffers[tid])
    total = np.zeros(n, x.dtype)
    for row in buffers:
        total = total + row
    return total


def _fused_forward(v, g, first):
    if first:
        norms = np.sqrt(_row_sums(v, v))
        a = g.reshape(-1) / norms
        return v * a[:, None], norms
    norms = np.sqrt(_column_sums(v, v))
    return v * (g.reshape(-1) / norms)[None, :], norms


def _fused_backward(gw, v, g, norms, first):
    sums = _row_sums(gw, v) if first else _column_sums(gw, v)
    grad_g = sums / norms
    a = g.reshape(-1) / norms
    b = a * grad_g / norms
    # a * grad_w - b * v, contracted by the compiler to fma(-b, v, a * grad_w)
    a, b = (np.broadcast_to(c[:, None] if first else c[None, :], v.shape) for c in (a, b))
    return _fma(-b, v, a * gw), grad_g


class WeightNormInterfaceBackward0(Function):
    __slots__ = ()

    def backward(self, grad):
        kw = self._kw
        v, g, norms, first = kw["v"], kw["g"], kw["norms"], kw["first"]
        shape = tuple(v.shape)
        if torch.is_grad_enabled():  # create_graph: _weight_norm_differentiable_backward
            bcast = [1] * v.dim()
            bcast[0 if first else -1] = -1
            norms_t = wrap(norms, v.dtype).reshape(bcast)
            rows = (grad * v).reshape(shape[0], -1).sum(1) if first else (grad * v).reshape(-1, shape[-1]).sum(0)
            per_dim_sums = rows.reshape(norms_t.shape)
            grad_v = (g / norms_t) * (grad - v * (per_dim_sums / (norms_t * norms_t)))
            return grad_v, per_dim_sums / norms_t
        gw = np.ascontiguousarray(host(grad._data)).reshape(shape[0] if first else -1, -1 if first else shape[-1])
        vv = np.ascontiguousarray(host(v._data)).reshape(gw.shape)
        grad_v, grad_g = _fused_backward(gw, vv, host(g._data), norms, first)
        return (wrap(like(grad._data, grad_v.reshape(shape)), v.dtype),
                wrap(like(grad._data, grad_g.reshape(tuple(g.shape))), g.dtype))


def norm_except_dim(v, pow=2, dim=0):
    """ATen's norm_except_dim (a composite of views and norm)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        size = [1] * v.dim()
        size[0] = v.size(0)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(size)
    if dim == v.dim() - 1:
        size = [1] * v.dim()
        size[-1] = v.size(-1)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(size)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def weight_norm_op(v, g, dim=0):
    """torch._weight_norm(v, g, dim)."""
    v, g = v.contiguous(), g.contiguous()
    fused = v.dtype in (torch.float32, torch.float64) and g.dtype == v.dtype and dim in (0, v.dim() - 1)
    if not fused:
        return v * (g / norm_except_dim(v, 2, dim))
    first = dim == 0
    shape = tuple(v.shape)
    vv = np.ascontiguousarray(host(v._data)).reshape(shape[0] if first else -1, -1 if first else shape[-1])
    w, norms = _fused_forward(vv, np.ascontiguousarray(host(g._data)), first)
    out = wrap(like(v._data, w.reshape(shape)), v.dtype)
    return record(WeightNormInterfaceBackward0, (v, g), out,
                  {"v": v, "g": g, "norms": norms, "first": first})


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return weight_norm_op(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


_WeightNorm.__module__ = "torch.nn.utils.parametrizations"


def weight_norm(module, name="weight", dim=0):
    from .parametrize import register_parametrization  # noqa: PLC0415 - loaded with torch.nn.utils.parametrize
    register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


NAMES = ("weight_norm",)
