"""ATen's CPU batch norm backward for a float32 N x C x spatial input (batch_norm_kernel.cpp's
batch_norm_cpu_backward_contiguous_impl, and batch_norm.cpp's reference loop for a grad_output that is
not contiguous), on NumPy arrays viewed as (N, C, S).

Contiguous kernel, per channel: for each sample, sum(dy) by vec::reduce_all and sum((x - mean) * dy) by
vec::map2_reduce_all over the plane's S elements (V-lane float accumulators over whole vectors, the tail
added into the first lanes, the lanes folded in halves; V = 8, 16 under AVX512; rows shorter than V and
the DEFAULT build add in order), each plane's float result added to a double; then, in float,
k = dotp * invstd * invstd / N, grad_mean = sum / N (in double, rounded), and
dx = (dy - grad_mean - (x - mean) * k) * invstd * w; grad_weight = dotp * invstd (double), grad_bias = sum.
Evaluation: invstd = 1 / sqrt(running_var + eps) in double, rounded, dx = dy * invstd * w.

Reference loop (a grad_output that is not contiguous, as the expanded grad of `y.sum()`): sum = torch.sum of
the grad over every dim but 1 (cascade_sum, numerics.torch_sum), grad_mean = sum / N in float; per channel
dotp in double over the elements in order (each product rounded to float); (x - mean) * k stored, then
(dy - grad_mean - that) * invstd * w.

Which operations the AVX2/AVX512 build fuses was measured against torch (see docs/numerics.md)."""
from __future__ import annotations

import numpy as np

from ..numerics import torch_sum
from ..rng_math import capability, fma32

_F = np.float32



def lanes():
    return 16 if capability() == "avx512" else 8


def _fold(acc, in_order):
    """vec_reduce_all of (rows, V) lane accumulators: in halves (AVX2/AVX512), else lane by lane."""
    if in_order:
        out = acc[:, 0].copy()
        for i in range(1, acc.shape[1]):
            out += acc[:, i]
        return out
    while acc.shape[1] > 1:
        h = acc.shape[1] // 2
        acc = acc[:, :h] + acc[:, h:]
    return acc[:, 0]


def plane_sums(a, b=None, mean=None, body_fused=False, tail_fused=True):
    """vec::reduce_all(a) (b None) or vec::map2_reduce_all((a - mean) * b) of each row of (R, S) float32
    arrays; mean is a per-row (R, 1) float32 array or None. Which products the build fuses into the
    accumulators (AVX2/AVX512; never under DEFAULT) differs between ATen's kernels: measured per caller."""
    v = lanes()
    cap = capability()
    in_order = cap == "default"
    body_fused = body_fused and not in_order
    tail_fused = tail_fused and not in_order
    rows, s = a.shape
    with np.errstate(all="ignore"):
        if b is None:
            terms = a
        else:
            centred = a if mean is None else (a - mean).astype(_F)
        if s < v:  # vec_reduce_all over `size` lanes: in order
            if b is not None:
                terms = (centred * b).astype(_F)
            out = terms[:, 0].copy()
            for i in range(1, s):
                out += terms[:, i]
            return out
        full = s - s % v
        if b is not None and body_fused and full > v:
            acc = (centred[:, :v] * b[:, :v]).astype(_F)
            for d in range(v, full, v):
                acc = fma32(centred[:, d:d + v], b[:, d:d + v], acc)
        else:
            body = a[:, :full] if b is None else (centred[:, :full] * b[:, :full]).astype(_F)
            # the whole vectors added one after another in float (accumulate adds in order, never pairwise)
            acc = np.add.accumulate(body.reshape(rows, -1, v), axis=1)[:, -1].copy()
        if b is None:
            if full < s:
                acc[:, :s - full] += a[:, full:]
            return _fold(acc, in_order)
        if full < s:
            r = s - full
            if tail_fused:
                acc[:, :r] = fma32(centred[:, full:], b[:, full:], acc[:, :r])
            else:
                acc[:, :r] += (centred[:, full:] * b[:, full:]).astype(_F)
        return _fold(acc, in_order)


def _seq_double(parts):
    """Sequential double sum over axis 0 of float values (N, C): the kernels' `accscalar_t += ...`."""
    return np.add.accumulate(parts.astype(np.float64), axis=0)[-1]


def backward(grad, x, mean, invstd, weight, train, contiguous):
    """(dx as x's shape, grad_weight, grad_bias) of ATen's batch norm backward over float32 N x C x ...
    arrays; mean and invstd float32 (C,): the saved statistics (training) or the running mean and ATen's
    invstd. `contiguous`: ATen's all_contiguous (input and grad_output), else its reference loop."""
    n_batch, c = x.shape[0], x.shape[1]
    g = np.ascontiguousarray(grad).reshape(n_batch, c, -1)
    x = np.ascontiguousarray(x).reshape(n_batch, c, -1)
    s = x.shape[2]
    n = n_batch * s
    w = weight if weight is not None else np.ones(c, _F)
    m3 = mean.reshape(1, c, 1)
    with np.errstate(all="ignore"):
        if contiguous:
            rows_x = x.reshape(-1, s)
            rows_g = g.reshape(-1, s)
            sums = plane_sums(rows_g).reshape(n_batch, c)
            dots = plane_sums(rows_x, rows_g, np.broadcast_to(m3, (n_batch, c, 1)).reshape(-1, 1)).reshape(n_batch, c)
            total = _seq_double(sums)
            dotp = _seq_double(dots)
        else:  # the reference loop: sum = torch.sum(grad, all dims but 1), dotp in double in order
            xc = np.moveaxis(x, 1, 0).reshape(c, -1)
            gc = np.moveaxis(g, 1, 0).reshape(c, -1)
            prods = ((xc - mean[:, None]).astype(_F) * gc).astype(_F)
            total = torch_sum(grad, (0,) + tuple(range(2, grad.ndim))).astype(_F)
            dotp = np.add.accumulate(prods.astype(np.float64), axis=1)[:, -1]
        w3 = w.reshape(1, c, 1)
        i3 = invstd.reshape(1, c, 1)
        if train:
            k = (dotp.astype(_F) * invstd * invstd / _F(n)).astype(_F)
            # sum / N: in double from the kernel's double sum, in float from the reference's float one
            grad_mean = (total / (n if contiguous else _F(n))).astype(_F).reshape(1, c, 1)
            centred = (x - m3).astype(_F)
            k3 = k.reshape(1, c, 1)
            if contiguous and capability() != "default":  # `- (x - mean) * k` fused, tail included (measured)
                dx = fma32(-centred, k3, (g - grad_mean).astype(_F))
            else:
                dx = (g - grad_mean - (centred * k3).astype(_F)).astype(_F)
            dx = ((dx * i3).astype(_F) * w3).astype(_F)
        else:
            dx = ((g * i3).astype(_F) * w3).astype(_F)
        return dx.reshape(grad.shape), (dotp * invstd).astype(_F), total.astype(_F)


def fma_chain(a, b):
    """acc = fma(a[i], b[i], acc) for i in order over axis 0, from acc = 0 (float32 arrays of one shape):
    each step's sum in double (the product is exact), rounded to float; a step whose double lands on a
    float tie goes through fma32 (exact)."""
    prods = np.multiply(a, b, dtype=np.float64)
    acc = np.zeros(a.shape[1:], _F)
    for i in range(a.shape[0]):
        s = prods[i] + acc
        if ((s.view(np.int64) & 0x1FFFFFFF) == 0x10000000).any():
            acc = fma32(a[i], b[i], acc)
        else:
            acc = s.astype(_F)
    return acc
