"""ATen's binary_kernel_reduce_vec (aten/src/ATen/native/cpu/Reduce.h) for float arrays, as prod
and amax/amin run it on the CPU: the TensorIterator's loop calls (tensoriter.py), and in each call
either vectorized_inner_reduction (a contiguous reduced dim 0: four vectors of lanes over blocks
of 4 * Vec::size() elements, folded pairwise, then lane by lane, then the tail one by one),
vectorized_outer_reduction (a contiguous kept dim 0 over a reduced dim 1: columns in blocks of
4 * Vec::size(), each lane down its column, the remaining columns one by one) or the plain loop.

Where the order shows: a float16 (or float32) product's roundings and its overflow (inf * 0 is
nan only in the order that meets them), and which of +0 and -0 amax/amin return (the vector
max/min hand back their second operand on a tie, std::max/min their first). Vec::size() is
numerics.VEC_BYTES wide (the AVX2 kernels torch runs on the reference machine). Inputs of a
GRAIN_SIZE or more elements (split among threads) are left to the caller's NumPy result."""
from __future__ import annotations

import numpy as np

from .numerics import GRAIN_SIZE, VEC_BYTES, layout_ok
from .tensoriter import Plan, geometry, loop_calls


def _nan_or(r, a, b):
    bad = np.isnan(a) | np.isnan(b)
    return np.where(bad, np.asarray(np.nan, r.dtype), r) if bad.any() else r


class Max:
    """max_values_kernel_impl: maximum() on vectors (_mm256_max_ps: b on a tie, nan propagated),
    max_impl on scalars (std::max: a on a tie, nan propagated); identity -inf."""
    ident = -np.inf

    @staticmethod
    def vop(a, b):
        return _nan_or(np.where(a > b, a, b), a, b)

    @staticmethod
    def sop(a, b):
        return _nan_or(np.where(a < b, b, a), a, b)


class Min:
    """min_values_kernel_impl: minimum() (b on a tie) and min_impl (std::min: a on a tie); +inf."""
    ident = np.inf

    @staticmethod
    def vop(a, b):
        return _nan_or(np.where(a < b, a, b), a, b)

    @staticmethod
    def sop(a, b):
        return _nan_or(np.where(b < a, b, a), a, b)


class Prod:
    """prod_kernel_impl: a * b on vectors and scalars, rounded to the dtype at each step; identity 1."""
    ident = 1.0

    @staticmethod
    def vop(a, b):
        return a * b

    sop = vop


def reduce(a, dims, keepdims, kind):
    """The kernel's result for float array ``a`` reduced over ``dims`` (a tuple), or None where the
    threads would split it (GRAIN_SIZE elements or more) or it is empty."""
    if a.size == 0 or a.size >= GRAIN_SIZE or a.dtype.kind != "f":
        return None
    if not layout_ok(a):
        a = np.ascontiguousarray(a)
    nd = a.ndim
    mask = [i in dims for i in range(nd)]
    kshape = tuple(1 if mask[i] else a.shape[i] for i in range(nd))
    rshape = kshape if keepdims else tuple(a.shape[i] for i in range(nd) if not mask[i])
    out = np.full(int(np.prod(kshape, dtype=np.int64)), kind.ident, a.dtype)
    if nd == 0:
        return kind.sop(out, a.reshape(1)).reshape(rshape)
    sh, ist, ost = geometry(a.shape, a.strides, mask, a.itemsize, keepdims)
    plan = Plan(a, sh, ist, ost)
    item = a.itemsize
    lanes = VEC_BYTES // item
    with np.errstate(all="ignore"):
        for outer, cnt, v1, n1, v0, n0 in loop_calls(plan.shape, 0, a.size):
            for o in range(outer, outer + cnt):
                d = plan.data[o, v1:v1 + n1, v0:v0 + n0]
                base = int(plan.base[o])
                if plan.os0 == 0 and plan.os1 == 1 and plan.is1 == item and plan.is0 != item:
                    # is_outer_reduction: dim 0 reduced, dim 1 contiguous in and out
                    offs = base + np.arange(v1, v1 + n1, dtype=np.int64)
                    out[offs] = _outer(d.T, out[offs], kind, lanes)
                elif plan.os0 == 0:
                    offs = base + np.arange(v1, v1 + n1, dtype=np.int64) * plan.os1
                    contiguous = plan.is0 == item
                    if plan.os1 != 0:   # every row its own output: all rows at once
                        out[offs] = _inner(d, out[offs], kind, lanes, contiguous)
                    else:
                        for r in range(n1):
                            out[offs[r:r + 1]] = _inner(d[r:r + 1], out[offs[r:r + 1]], kind, lanes, contiguous)
                else:                   # the plain loop: dim 0 element by element, rows in order
                    offs = base + np.arange(v0, v0 + n0, dtype=np.int64) * plan.os0
                    if plan.os1 == 0:
                        out[offs] = _outer(d, out[offs], kind, 0)
                    else:
                        offs = offs[None, :] + np.arange(v1, v1 + n1, dtype=np.int64)[:, None] * plan.os1
                        out[offs] = kind.sop(out[offs], d)
    return out.reshape(rshape)


def _inner(rows, dst, kind, lanes, contiguous):
    """Each row reduced into its dst: vectorized_inner_reduction when contiguous, else basic_loop."""
    n = rows.shape[1]
    start = 0
    if contiguous:
        block = 4 * lanes
        count = n // block
        if count:
            v = rows[:, :count * block].reshape(rows.shape[0], count, 4, lanes)
            acc = v[:, 0]
            for i in range(1, count):
                acc = kind.vop(acc, v[:, i])
            acc0 = kind.vop(kind.vop(acc[:, 0], acc[:, 1]), kind.vop(acc[:, 2], acc[:, 3]))
            b = acc0[:, 0]
            for j in range(1, lanes):
                b = kind.sop(b, acc0[:, j])
            dst = kind.sop(dst, b)
            start = count * block
    for k in range(start, n):
        dst = kind.sop(dst, rows[:, k])
    return dst


def _outer(d, dst, kind, lanes):
    """d (rows, columns): each column reduced down the rows into its dst: vectorized_outer_reduction's
    blocks of 4 * lanes columns (lanes 0: none, the plain loop), then the remaining columns row by row."""
    n1, n0 = d.shape
    done = 0
    if lanes:
        block = 4 * lanes
        done = n0 // block * block
        if done:
            acc = d[0, :done]
            for i in range(1, n1):
                acc = kind.vop(acc, d[i, :done])
            dst = dst.copy()
            dst[:done] = kind.vop(acc, dst[:done])
    if done < n0:
        dst = dst.copy()
        for i in range(n1):
            dst[done:] = kind.sop(dst[done:], d[i, done:])
    return dst
