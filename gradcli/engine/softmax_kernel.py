"""ATen's float32 softmax and log_softmax over the last dim (``_vec_softmax_lastdim`` and
``_vec_log_softmax_lastdim`` of aten/src/ATen/native/cpu/SoftMaxKernel.cpp), bit for bit, per CPU capability.

Per row: the max (``vec::reduce_all`` of ``maximum``); ``exp(x - max)`` through ``Vectorized<float>::exp``
(SLEEF's ``expf`` u10 on AVX2/AVX512, glibc's ``expf`` lane by lane in the DEFAULT build); their sum by
``vec::reduce_all``: V-lane accumulators over the full vectors, the tail added into its first lanes, then
the lanes folded in halves (AVX2: V = 8, AVX512: V = 16; DEFAULT and rows shorter than V: in order);
softmax multiplies by ``1 / sum``, log_softmax computes ``x - max - log(sum)`` with ``Vectorized::log``
(SLEEF's ``logf`` u10). Rows are independent, so threads and chunks change nothing. The backward kernels
(``_vec_host_softmax_backward_lastdim``) use the same sums and exp.
"""
from __future__ import annotations

import numpy as np

from . import sleef
from .rng_math import capability, fma32, libm_f32

_F32 = np.float32


def _lanes():
    return 16 if capability() == "avx512" else 8


def _exp(d):
    if capability() == "default":
        return libm_f32("expf", d.reshape(-1)).reshape(d.shape)
    return sleef.expf(d)


def _log(d):
    cap = capability()
    if cap == "default":
        return libm_f32("logf", d.reshape(-1)).reshape(d.shape)
    return sleef.logf(d, cap == "avx512")


def _reduce_sum(e, lanes, in_order):
    """vec::reduce_all(x + y) along the last axis."""
    n = e.shape[-1]
    if n < lanes:
        acc = e[..., 0].copy()
        for i in range(1, n):
            acc += e[..., i]
        return acc
    acc = e[..., :lanes].copy()
    d = lanes
    while d + lanes <= n:
        acc += e[..., d:d + lanes]
        d += lanes
    if d < n:
        acc[..., :n - d] += e[..., d:]
    if in_order:                 # the generic vec_reduce_all: lane by lane
        out = acc[..., 0].copy()
        for i in range(1, lanes):
            out += acc[..., i]
        return out
    while acc.shape[-1] > 1:     # the shuffle-and-add tree of the AVX2/AVX512 specialisations
        h = acc.shape[-1] // 2
        acc = acc[..., :h] + acc[..., h:]
    return acc[..., 0]


def _exp_sum(x):
    m = x.max(axis=-1, keepdims=True)
    if capability() != "default":   # vec::maximum's NaN: the compare mask, all bits set
        m = np.where(np.isnan(m), np.full(m.shape, -1, np.int32).view(_F32), m)
    with np.errstate(all="ignore"):
        e = _exp(x - m)
    return m, e, _reduce_sum(e, _lanes(), capability() == "default")


def softmax_lastdim(x):
    """softmax of a float32 array (ndim >= 1, no empty dims) over its last axis."""
    x = np.ascontiguousarray(x, _F32)
    _, e, s = _exp_sum(x)
    with np.errstate(all="ignore"):
        inv = (_F32(1) / s)[..., None]
        return np.where(np.isnan(inv), inv, e * inv)   # a NaN sum's bits win over a NaN exp's (measured)


def log_softmax_lastdim(x):
    """log_softmax of a float32 array (ndim >= 1, no empty dims) over its last axis."""
    x = np.ascontiguousarray(x, _F32)
    m, _, s = _exp_sum(x)
    with np.errstate(all="ignore"):
        return (x - m) - _log(s)[..., None]


def _prod_sum(g, y, lanes, in_order):
    """vec::map2_reduce_all(x * y, x + y) along the last axis: each product rounded, then summed as
    reduce_all sums; torch's AVX2/AVX512 build fuses the tail's products into their sums when the
    tensor is a single row (measured: 0 differing rows either way over 1,500 random rows)."""
    n = g.shape[-1]
    if in_order or n < lanes or n % lanes == 0 or g.size != n:
        return _reduce_sum(g * y, lanes, in_order)
    d = n - n % lanes
    acc = g[..., :lanes] * y[..., :lanes]
    for k in range(lanes, d, lanes):
        acc += g[..., k:k + lanes] * y[..., k:k + lanes]
    acc[..., :n - d] = fma32(g[..., d:], y[..., d:], acc[..., :n - d])
    return _reduce_sum(acc, lanes, False)


def softmax_backward_lastdim(g, y):
    """_softmax_backward_data over the last axis (float32): (g - sum(g * y)) * y."""
    g, y = np.ascontiguousarray(g, _F32), np.ascontiguousarray(y, _F32)
    with np.errstate(all="ignore"):
        s = _prod_sum(g, y, _lanes(), capability() == "default")
        return (g - s[..., None]) * y


def log_softmax_backward_lastdim(g, y):
    """_log_softmax_backward_data over the last axis (float32): g - exp(y) * sum(g), the product and
    difference fused on AVX2/AVX512 (the compiler contracts them), rounded apart under DEFAULT."""
    g, y = np.ascontiguousarray(g, _F32), np.ascontiguousarray(y, _F32)
    default = capability() == "default"
    with np.errstate(all="ignore"):
        s = np.broadcast_to(_reduce_sum(g, _lanes(), default)[..., None], g.shape)
        e = _exp(y)
        if default:
            return g - e * s
        return np.where(np.isnan(e), e, fma32(-e, s, g))   # vfnmadd passes a NaN operand on unnegated
