"""torch.var / torch.std (and var_mean / std_mean) on arrays, in the order of PyTorch's CPU kernels:
std_var_all_cpu's two passes in double for a full float32/float64 reduction, ATen's Welford reduction
in double otherwise (element by element in the iterator's order); CuPy arrays reduce plainly (torch's
CUDA order has no CPU emulation to match). ``numerics.NUM_THREADS`` splits them as it splits sums."""
from __future__ import annotations

import numpy as np

from . import numerics
from .device import is_device_array
from .cascade import seq
from .numerics import (GRAIN_SIZE, divup, foreign, layout_ok, non_overlapping_dense, norm_dims, omp_ranges,
                       reduced_count, torch_mean)
from .tensoriter import Plan, geometry, loop_calls, reorder_coalesce

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


def _dense_memory_order(a):
    """Values of a non-overlapping dense array in memory order (the fast-setup 1-d iterator)."""
    order = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    return np.ascontiguousarray(a.transpose(order)).reshape(-1)


def _var_all(a, correction, take_sqrt):
    """std_var_all_cpu: double mean from torch.mean, then sum((x - mean)**2) in double per thread
    chunk (a running sum per loop call), chunks added in thread order."""
    mean = float(torch_mean(a))
    numel = a.size
    if non_overlapping_dense(a) or a.ndim <= 1 and layout_ok(a):
        flat = _dense_memory_order(a) if a.ndim > 1 else a
        plan = Plan(flat, [numel], [flat.strides[0] if flat.ndim else 0], [0])
    else:
        a = a if layout_ok(a) else np.ascontiguousarray(a)
        sh, (ist,) = reorder_coalesce(a.shape, [(list(a.strides), False)], False)
        plan = Plan(a, sh, ist, [0] * len(sh))
    if numel <= GRAIN_SIZE or numerics.NUM_THREADS == 1:
        ranges = [(0, numel)]
    else:
        nt = min(numerics.NUM_THREADS, divup(numel, GRAIN_SIZE))
        chunk = divup(numel, nt)
        ranges = [(t * chunk, min(numel, (t + 1) * chunk)) for t in range(nt) if t * chunk < numel]
    total = 0.0
    for b, e in ranges:
        thread = np.zeros(1, _F64)
        for outer, cnt, v1, n1, v0, n0 in loop_calls(plan.shape, b, e):
            d = plan.data[outer:outer + cnt, v1:v1 + n1, v0:v0 + n0].astype(_F64)
            dx = d - mean
            local = seq((dx * dx).reshape(cnt, n1 * n0), 1)
            thread = seq(np.concatenate([thread, local]))[None]
        total = total + float(thread[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.float64(total) / np.float64(max(0.0, numel - correction))
        r = np.sqrt(var) if take_sqrt else var
    return np.asarray(r, a.dtype)


def _welford(x):
    """WelfordOps.reduce over axis 0 (double); returns (mean, m2, n)."""
    mean = np.zeros(x.shape[1:], _F64)
    m2 = np.zeros(x.shape[1:], _F64)
    for i in range(x.shape[0]):
        xi = x[i].astype(_F64)
        delta = xi - mean
        mean = mean + delta / np.float64(i + 1)
        m2 = m2 + delta * (xi - mean)
    return mean, m2, float(x.shape[0])


def _welford_combine(a, b):
    if a[2] == 0:
        return b
    if b[2] == 0:
        return a
    delta = b[0] - a[0]
    cnt = a[2] + b[2]
    nb_over_n = np.float64(b[2] / cnt)
    return a[0] + delta * nb_over_n, a[1] + b[1] + delta * delta * np.float64(a[2]) * nb_over_n, cnt


def torch_var(array, axis=None, correction=1, keepdims=False, take_sqrt=False, with_mean=False):
    """``torch.var``/``torch.std`` (``with_mean``: ``var_mean``/``std_mean``, returns (var, mean)).

    A full float32/float64 var/std is std_var_all_cpu (two passes in double); everything else
    is ATen's Welford reduction in double, element by element in the iterator's order."""
    if is_device_array(array):
        return _gpu_var(array, axis, correction, keepdims, take_sqrt, with_mean)
    if foreign(array):
        dims = norm_dims(axis, array.ndim)
        m = array.mean(axis=dims, keepdims=True)
        n = reduced_count(array.shape, axis)
        v = ((array - m) ** 2).sum(axis=dims, keepdims=keepdims) / max(0, n - correction)
        v = v ** 0.5 if take_sqrt else v
        return (v, m if keepdims else m.reshape(v.shape)) if with_mean else v
    a = np.asarray(array)
    dt = a.dtype
    nd = a.ndim
    dims = norm_dims(axis, nd)
    mask = [i in dims for i in range(nd)]
    kshape = tuple(1 if mask[i] else a.shape[i] for i in range(nd))
    rshape = kshape if keepdims else tuple(a.shape[i] for i in range(nd) if not mask[i])
    out_n = int(np.prod(kshape, dtype=np.int64))
    if a.size == 0:
        nan = np.full(rshape, np.nan, dt)
        return (nan, nan.copy()) if with_mean else nan
    if not with_mean and out_n == 1 and dt in (_F32, _F64):
        return _var_all(a, correction, take_sqrt).reshape(rshape)
    if not layout_ok(a):
        a = np.ascontiguousarray(a)
    sh, ist, ost = geometry(a.shape, a.strides, mask, a.itemsize, keepdims)
    k = 0
    while k < len(sh) and ost[k] == 0:
        k += 1
    n_red = int(np.prod(sh[:k], dtype=np.int64))
    n_it = int(np.prod(sh[k:], dtype=np.int64))
    view = np.lib.stride_tricks.as_strided(a, shape=tuple(reversed(sh)), strides=tuple(reversed(ist)),
                                           writeable=False)
    x = view.reshape(n_it, n_red).T
    if out_n == 1 and n_red >= GRAIN_SIZE and numerics.NUM_THREADS > 1:
        acc = (np.zeros(n_it, _F64), np.zeros(n_it, _F64), 0.0)
        parts = [_welford(x[b:e]) for b, e in omp_ranges(0, n_red, GRAIN_SIZE)]
        parts += [acc] * (numerics.NUM_THREADS - len(parts))
        for p in parts:
            acc = _welford_combine(acc, p)
    else:
        acc = _welford(x)
    mean, m2, nf = acc
    divisor = nf - correction if nf > correction else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        var = m2 / np.float64(divisor)
        if take_sqrt:
            var = np.sqrt(var)
    base = np.zeros(1, np.int64)
    for size, st in zip(sh[k:], ost[k:]):
        base = (base[None, :] + (np.arange(size, dtype=np.int64) * st)[:, None]).reshape(-1)
    out_v = np.zeros(out_n, dt)
    out_m = np.zeros(out_n, dt)
    with np.errstate(over="ignore", invalid="ignore"):
        if dt == _F16:    # c10::Half converts through float
            var, mean = var.astype(_F32), mean.astype(_F32)
        out_v[base] = var.astype(dt)
        out_m[base] = mean.astype(dt)
    if with_mean:
        return out_v.reshape(rshape), out_m.reshape(rshape)
    return out_v.reshape(rshape)


# On the GPU (CuPy arrays): plain reductions, accumulated in float32 (float64 for double), as sums are

def _gpu_var(a, axis, correction, keepdims, take_sqrt, with_mean):
    dt = a.dtype
    acc = _F64 if dt == _F64 else _F32
    dims = norm_dims(axis, a.ndim)
    x = a.astype(acc)
    n = reduced_count(a.shape, axis)
    mean = x.mean(axis=dims, keepdims=True) if x.ndim else x
    d = x - mean
    m2 = (d * d).sum(axis=dims, keepdims=keepdims) if x.ndim else d * d
    with np.errstate(invalid="ignore", divide="ignore"):
        var = m2 / acc.type(max(0.0, n - correction))
        if take_sqrt:
            var = var ** acc.type(0.5)
    var = var.astype(dt)
    if with_mean:
        if not keepdims and x.ndim:
            mean = mean.reshape(var.shape)
        return var, mean.astype(dt)
    return var
