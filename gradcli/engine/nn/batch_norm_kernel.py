"""ATen's CPU batch norm kernels for a float32 N x C input (batch_norm_kernel.cpp: "NC11 is also channels
last", so BatchNorm1d on a batch of feature rows takes the channels-last kernels), on NumPy arrays.

Statistics (batch_norm_cpu_collect_stats_channels_last_impl): the rows split over the threads
(at::parallel_for, grain 1), each thread adding its rows into a float buffer of C, the buffers summed
in double, mean = float(sum / N); then the same for (x - mean)**2 (var_sum, stored as float).

Backward (batch_norm_cpu_backward_channels_last_impl, grad_output contiguous): per thread float buffers
of sum(dy) and sum((x - mean) * dy), added over the threads; dx = (dy - sum / N - (x - mean) * k) *
invstd * w with k = dotp * invstd * invstd / N (training) or dy * invstd * w (evaluation, invstd from the
running variance in double), grad_weight = dotp * invstd, grad_bias = sum. A grad_output that is not
contiguous (the expanded ones of `y.sum()`) takes batch_norm_backward_cpu_template's reference loop: per
channel, sum and dotp in double in the elements' order, then the same formulas in float.

Fused multiply-adds (measured against torch): the variance and dotp updates are fused by the AVX2/AVX512
build, and dx's `- (x - mean) * k` in whole vectors of channels (8, 16 under AVX512) but not in the last
partial one; nothing under ATEN_CPU_CAPABILITY=default (not measured)."""
from __future__ import annotations

import numpy as np

from .. import numerics
from ..rng_math import capability, fma32, fused

_F = np.float32


def _thread_sums(rows_fn, n, c):
    """The per-thread float buffers of at::parallel_for(0, n, 1): each thread's rows added in order."""
    parts = []
    for begin, end in numerics.omp_ranges(0, n, 1):
        acc = np.zeros(c, _F)
        for i in range(begin, end):
            acc = rows_fn(i, acc)
        parts.append(acc)
    return parts


def channels_last_stats(x):
    """(mean, var_sum) of a float32 (N, C) array, as ATen's channels-last collect_stats."""
    n, c = x.shape
    fuse = fused()
    parts = _thread_sums(lambda i, acc: acc + x[i], n, c)
    total = np.zeros(c)
    for p in parts:
        total = total + p.astype(np.float64)
    mean = (total / n).astype(_F)

    def var_row(i, acc):
        d = x[i] - mean
        return fma32(d, d, acc) if fuse else (acc + d * d).astype(_F)
    total = np.zeros(c)
    for p in _thread_sums(var_row, n, c):
        total = total + p.astype(np.float64)
    return mean, total.astype(_F)


def channels_last_backward(g, x, mean, invstd, weight, train, contiguous):
    """(dx, grad_weight, grad_bias) of ATen's batch norm backward over a float32 (N, C) input; mean and
    invstd are the saved statistics (training) or the running mean and 1 / sqrt(running_var + eps)."""
    n, c = x.shape
    fuse = fused()
    w = weight if weight is not None else np.ones(c, _F)
    if contiguous:
        def add_dy(i, acc):
            return acc + g[i]

        def add_dotp(i, acc):
            d = x[i] - mean
            return fma32(d, g[i], acc) if fuse else (acc + d * g[i]).astype(_F)
        total = np.zeros(c, _F)
        for p in _thread_sums(add_dy, n, c):
            total = total + p
        dotp = np.zeros(c, _F)
        for p in _thread_sums(add_dotp, n, c):
            dotp = dotp + p
        total = total.astype(_F)
    else:  # the reference loop: double sums in order, per channel
        d = (x - mean).astype(_F)
        total = np.zeros(c)
        dotp = np.zeros(c)
        for i in range(n):
            dotp = dotp + (d[i] * g[i]).astype(_F)
            total = total + g[i]
        total, dotp = total.astype(_F), dotp.astype(_F)
    with np.errstate(all="ignore"):
        if train:
            k = (dotp * invstd * invstd / _F(n)).astype(_F)
            grad_mean = (total / _F(n)).astype(_F)
            centred = (x - mean).astype(_F)
            dx = (g - grad_mean - (centred * k).astype(_F)).astype(_F)
            full = c - c % (16 if capability() == "avx512" else 8)
            if contiguous and fuse and full:  # whole vectors fused, the partial one (the last C % 8) not
                dx[:, :full] = fma32(-centred[:, :full], k[:full], (g[:, :full] - grad_mean[:full]).astype(_F))
            dx = (dx * invstd * w).astype(_F)
        else:
            dx = (g * invstd * w).astype(_F)
        return dx, (dotp * invstd).astype(_F), total
