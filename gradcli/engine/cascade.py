"""The inner pieces of ATen's cascade_sum (aten/src/ATen/native/cpu/SumKernel.cpp) on NumPy:
multi_row_sum, row_sum and the four loop kernels (vectorised inner and outer sums, scalar inner
and outer sums) that each 2-d loop call picks from; numerics.py runs them over TensorIterator's
loop calls and threads (see its docstring)."""
from __future__ import annotations

import numpy as np

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
_LOOP_MAX = 64          # sequential sums up to this length run as a Python loop of vector adds


# building blocks (items along axis 0, any number of independent lanes after it)

def ceil_log2(x):
    return 1 if x <= 2 else int(x - 1).bit_length()


def seq(x, axis=0):
    """Left-to-right running sum along ``axis`` (the order a scalar ``acc += v`` loop adds in)."""
    n = x.shape[axis]
    if n == 0:
        return np.zeros(x.shape[:axis] + x.shape[axis + 1:], x.dtype)
    if n == 1:
        return np.array(np.take(x, 0, axis), copy=True)
    # np.add.reduce only sums pairwise when the reduced axis is its inner loop, i.e. when it has
    # the smallest stride; with a smaller-strided kept axis it adds whole slices in order
    other = [abs(st) for i, (sz, st) in enumerate(zip(x.shape, x.strides)) if i != axis and sz > 1]
    if other and min(other) < abs(x.strides[axis]):
        return np.add.reduce(x, axis=axis)
    x = np.moveaxis(x, axis, 0) if axis else x
    if n > _LOOP_MAX:
        return np.add.accumulate(x, axis=0)[-1]
    acc = np.array(x[0], copy=True)
    for i in range(1, n):
        np.add(acc, x[i], out=acc)
    return acc


def multi_level(x):
    """ATen ``multi_row_sum``: chunks of 2**p items summed in order, then chunk sums folded into
    three more levels of 2**p; returns ((tail + level1) + level2) + level3 per lane."""
    n = x.shape[0]
    lanes = x.shape[1:]
    p = max(4, ceil_log2(n) // 4)
    step = 1 << p
    nfull = n // step
    acc0 = seq(x[nfull * step:])
    if nfull == 0:
        return acc0
    b = seq(x[:nfull * step].reshape((nfull, step) + lanes), 1)
    g1n = nfull // step
    acc1 = seq(b[g1n * step:])
    r = acc0 + acc1
    if g1n == 0:
        return r
    g1 = seq(b[:g1n * step].reshape((g1n, step) + lanes), 1)
    g2n = g1n // step
    r += seq(g1[g2n * step:])
    if g2n:
        r += seq(seq(g1[:g2n * step].reshape((g2n, step) + lanes), 1))
    return r


def row_sum(x):
    """ATen ``row_sum``: four interleaved ``multi_row_sum`` accumulators, tail into the first,
    then p0 + p1 + p2 + p3."""
    n = x.shape[0]
    lanes = x.shape[1:]
    s = n // 4
    if s:
        parts = multi_level(x[:4 * s].reshape((s, 4) + lanes))
        acc = np.array(parts[0], copy=True)
    else:
        parts = None
        acc = np.zeros(lanes, x.dtype)
    for i in range(4 * s, n):
        acc += x[i]
    if parts is not None:
        acc += parts[1]
        acc += parts[2]
        acc += parts[3]
    return acc


# ------------------------------------------------------------------------------------------
# the four loop kernels of cascade_sum; ``d`` is (batch, columns, reduced) in the element dtype

class Kind:
    """A dtype's sizes as the kernels see them (vec_bytes: the SIMD width, numerics.VEC_BYTES)."""
    __slots__ = ("dt", "acc", "item", "wvec", "wacc")

    def __init__(self, dt, vec_bytes):
        self.dt = dt
        self.acc = _F32 if dt == _F16 else dt
        self.item = dt.itemsize
        self.wvec = vec_bytes // dt.itemsize            # Vectorized<scalar_t>::size()
        self.wacc = vec_bytes // self.acc.itemsize      # Vectorized<acc_t>::size()


def _vec_inner(d, k):
    nb, ncol, n = d.shape
    w = k.wvec
    nv = n // w
    rows = d.reshape(nb * ncol, n)
    v = rows[:, :nv * w]
    if k.dt == _F16:   # load_to_float(ptr, first, second); first + second
        v = v.reshape(nb * ncol, nv, 2, k.wacc).astype(_F32)
        v = v[:, :, 0] + v[:, :, 1]
    else:
        v = v.reshape(nb * ncol, nv, w)
    lanes = row_sum(np.moveaxis(v, 1, 0))                      # (rows, wacc)
    tail = rows[:, nv * w:].astype(k.acc, copy=False)
    return seq(np.concatenate([tail, lanes], axis=1), 1).reshape(nb, ncol)


def _split_cols(d, k, cut):
    """Columns [0, cut) by multi_row_sum, the rest by row_sum (items = the reduced axis)."""
    x = d.transpose(2, 0, 1).astype(k.acc, copy=False)          # (n, nb, ncol)
    if cut == 0:
        return row_sum(x)
    if cut == x.shape[2]:
        return multi_level(x)
    return np.concatenate([multi_level(x[:, :, :cut]), row_sum(x[:, :, cut:])], axis=-1)


def call_results(d, k, is0, is1):
    """Per-column sums of one batch of loop calls (reduction along the last axis of ``d``)."""
    nb, ncol, n = d.shape
    if is0 == k.item and n >= k.wvec:
        return _vec_inner(d, k)
    if is1 == k.item and ncol >= k.wvec:
        blk = 4 * k.wacc
        return _split_cols(d, k, (ncol // blk) * blk)
    if is0 < is1:
        return _split_cols(d, k, 0)
    return _split_cols(d, k, (ncol // 4) * 4)
