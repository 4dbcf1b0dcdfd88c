"""Bit-faithful float reductions: the summation order of PyTorch's CPU kernels, on NumPy.

``torch.sum`` on the CPU does not add in NumPy's pairwise order.  ATen's ``cascade_sum``
(aten/src/ATen/native/cpu/SumKernel.cpp) runs inside TensorIterator, which first reorders
the dimensions by stride (reduced dims first), coalesces them, splits the work over threads
(``parallel_reduce``: a two-pass reduction for a single output, a split of the outermost kept
dim otherwise) and calls a 2-d loop on (dim0, dim1) blocks.  Each loop call picks one of four
kernels -- vectorised inner sum, vectorised outer sum, scalar inner sum, scalar outer sum --
whose building blocks are ``multi_row_sum`` (a running sum in chunks of ``2**level_power``
items folded into four levels) and ``row_sum`` (the same with four interleaved accumulators).
This module and its two helpers reproduce all of that with NumPy so that the
float32/float64/float16 results are the very bits torch computes (on an AVX512 machine: 16
float / 8 double lanes), with a Python loop only over levels, chunk positions and calls, never
per element: :mod:`.tensoriter` holds the iterator's geometry and loop calls, :mod:`.cascade`
the kernels and their building blocks; this module runs them (the threads' split, the stores,
the fast plans of small sums). torch.var/std are :mod:`.variance`'s.

Public entry points: :func:`torch_sum`, :func:`torch_mean`. It also holds the elementwise float
functions rounded as torch's kernels round them (:func:`ufunc`, :func:`sigmoid`, :func:`silu`).
``NUM_THREADS`` is ``torch.get_num_threads()`` (it changes how large reductions are split):
torch's default from the environment and the cores (:mod:`.threads`), changed by a script's
torch.set_num_threads; ``VEC_BYTES`` is the SIMD width (64 for AVX512, 32 for AVX2).
"""
from __future__ import annotations

import numpy as np

from .cascade import Kind, call_results, multi_level, row_sum, seq
from . import sum_gather
from .device import is_device_array
from .tensoriter import Plan, geometry, loop_calls
from .threads import DEFAULT as NUM_THREADS
GRAIN_SIZE = 32768
VEC_BYTES = 32

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


# ------------------------------------------------------------------------------------------
# execution of the loop calls

def _run(plan, k, begin, end, col_lo=0, col_hi=None):
    """Contributions (output offsets, values) of the loop calls over [begin, end), in order."""
    outs, vals = [], []
    for outer, cnt, v1, n1, v0, n0 in loop_calls(plan.shape, begin, end):
        if col_hi is not None:        # a parallel_dim_reduction slice of dim 1 (2-d iterators only)
            v1, n1 = col_lo, col_hi - col_lo
        d = plan.data[outer:outer + cnt, v1:v1 + n1, v0:v0 + n0]
        base = plan.base[outer:outer + cnt, None]
        is0, is1, os0, os1 = plan.is0, plan.is1, plan.os0, plan.os1
        c1 = np.arange(v1, v1 + n1, dtype=np.int64) * os1
        if os0 != 0:
            c0 = np.arange(v0, v0 + n0, dtype=np.int64) * os0
            if os1 != 0:              # not a reduction: out += in, element by element
                outs.append((base[:, :, None] + c1[None, :, None] + c0[None, None, :]).reshape(-1))
                vals.append(d.astype(k.acc).reshape(-1))
                continue
            d = d.transpose(0, 2, 1)  # move the reduction to dim 0
            is0, is1 = is1, is0
            c1 = c0
        outs.append((base + c1[None, :]).reshape(-1))
        vals.append(call_results(d, k, is0, is1).reshape(-1))
    if not outs:
        return np.zeros(0, np.int64), np.zeros(0, k.acc)
    return np.concatenate(outs), np.concatenate(vals)


def _store(out, offs, vals, k):
    """``*out += value`` for each contribution in order (CastStoreAccumulate)."""
    if offs.size == 0:
        return
    half = k.dt == _F16
    if np.bincount(offs, minlength=out.size).max() == 1:      # one contribution per output
        if half:
            out[offs] = (out[offs].astype(_F32) + vals.astype(_F16).astype(_F32)).astype(_F16)
        else:
            out[offs] = out[offs] + vals
        return
    order = np.argsort(offs, kind="stable")
    so, sv = offs[order], vals[order]
    uniq, first, counts = np.unique(so, return_index=True, return_counts=True)
    if half:
        acc = out[uniq].copy()
        rank = np.arange(so.size) - np.repeat(first, counts)
        for r in range(int(counts.max())):
            sel = rank == r
            tgt = np.searchsorted(uniq, so[sel])
            acc[tgt] = (acc[tgt].astype(_F32) + sv[sel].astype(_F16).astype(_F32)).astype(_F16)
        out[uniq] = acc
        return
    if counts.min() == counts.max():
        c = int(counts[0])
        m = sv.reshape(uniq.size, c)
        out[uniq] = seq(np.concatenate([out[uniq][:, None], m], axis=1), 1)
        return
    acc = out[uniq].copy()
    rank = np.arange(so.size) - np.repeat(first, counts)
    for r in range(int(counts.max())):
        sel = rank == r
        tgt = np.searchsorted(uniq, so[sel])
        acc[tgt] += sv[sel]
    out[uniq] = acc


def divup(a, b):
    return -(-a // b)


def omp_ranges(begin, end, grain):
    """at::parallel_for's split of [begin, end) over NUM_THREADS (OpenMP backend)."""
    n = end - begin
    if not (n > grain and n > 1 and NUM_THREADS > 1):
        return [(begin, end)]
    nt = NUM_THREADS
    if grain > 0:
        nt = min(nt, divup(n, grain))
    chunk = divup(n, nt)
    out = []
    for t in range(nt):
        b = begin + t * chunk
        if b < end:
            out.append((b, min(end, b + chunk)))
    return out


# ------------------------------------------------------------------------------------------
# public API

def norm_dims(axis, nd):
    if axis is None:
        return tuple(range(nd))
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    dims = tuple(sorted({(int(d) % nd) if nd else 0 for d in axis}))
    return dims if dims else tuple(range(nd))


def non_overlapping_dense(a):
    nd = a.ndim
    sizes, strides = a.shape, [s // a.itemsize if a.itemsize else 0 for s in a.strides]
    if any(s < 0 for s in a.strides) or any(s % a.itemsize for s in a.strides):
        return False
    if nd == 0:
        return True
    if nd == 1:
        return sizes[0] < 2 or strides[0] == 1
    perm = sorted(range(nd), key=lambda i: (sizes[i] < 2, strides[i]))
    need = 1
    for i in perm:
        if sizes[i] < 2:
            return True
        if strides[i] != need:
            return False
        need *= sizes[i]
    return True


def torch_copy(a, dt):
    """``tensor.to(dtype)``: the same strides when non-overlapping and dense, else contiguous."""
    dt = np.dtype(dt)
    if a.ndim > 1 and non_overlapping_dense(a) and not a.flags.c_contiguous:
        buf = np.empty(a.size, dt)
        st = tuple((s // a.itemsize) * dt.itemsize for s in a.strides)
        out = np.lib.stride_tricks.as_strided(buf, shape=a.shape, strides=st)
        out[...] = a
        return out
    return np.array(a, dtype=dt, order="C", copy=True)


def layout_ok(a):
    return all(s >= 0 for s in a.strides)


# A C-contiguous (n, m) float32/float64 array summed over dim 0 with 1 < n < 256 (the bias gradient of
# a batch): call_results' single loop call, reduced to a few NumPy calls. The orders: columns [0, cut)
# by multi_row_sum (p = 4: chunk sums of 16 rows, the chunk sums added in order, then added to the sum
# of the tail rows), the rest by row_sum (four interleaved multi_row_sums, the tail rows into the first,
# then ((p0 + p1) + p2) + p3). A plan per (n, m, dtype) keeps the shapes computed once. Zeros may come
# out with either sign before the final `+ 0`, which makes every zero +0 as the general path does.

_reduce, _accumulate, _concat = np.add.reduce, np.add.accumulate, np.concatenate


def _seq_plan(c):
    """x -> the sequential sum of its c items along axis 0 (c >= 1; plain additions up to three).
    From four on, np.add.reduce: x has lanes of smaller stride than its items (x is (items, lanes...)
    of a C-contiguous array, never one lane), so NumPy adds whole rows in order, never pairwise."""
    if c == 1:
        return lambda x: x[0]
    if c == 2:
        return lambda x: x[0] + x[1]
    if c == 3:
        def seq3(x):
            r = x[0] + x[1]
            r += x[2]
            return r
        return seq3
    return lambda x: _reduce(x, 0)


def _multi_level_plan(n, lanes):
    """x (n items along axis 0, lane shape `lanes`, not a single lane) -> multi_level(x), for
    1 < n < 256: the tail's sum + the sum of the chunk sums (chunks of 16 rows, each summed in order:
    a reduce over the middle axis of (chunks, 16, lanes) adds its rows in order)."""
    nfull, t = n >> 4, n & 15
    if nfull == 0:
        return _seq_plan(t)
    cut16, shape, chunks = nfull << 4, (nfull, 16) + lanes, _seq_plan(nfull)
    if t == 0:
        return lambda x: chunks(_reduce(x.reshape(shape), 1))
    tail = _seq_plan(t)
    return lambda x: tail(x[cut16:]) + chunks(_reduce(x[:cut16].reshape(shape), 1))


def _row_sum_plan(n, lanes):
    """x (n, lanes) -> row_sum(x), for 1 < n < 256 (the four interleaved sums: a (s, 4, lanes) view)."""
    s, t = n >> 2, n & 3
    if s == 0:
        return _seq_plan(n)       # (0 + x0) + x1 ...: the same up to the sign of a zero
    parts, shape, cut4 = _multi_level_plan(s, (4, lanes)), (s, 4, lanes), s << 2
    if t == 0:
        return lambda x: _accumulate(parts(x.reshape(shape)), 0)[-1]   # ((p0 + p1) + p2) + p3
    def row_sum(x):
        p = parts(x[:cut4].reshape(shape))
        return _accumulate(_concat((p[:1], x[cut4:], p[1:])), 0)[-1]
    return row_sum


def _sum0_plan(n, m, k):
    if m >= k.wvec:
        blk = 4 * k.wacc
        cut = (m // blk) * blk
    else:
        cut = (m // 4) * 4
    zero = np.zeros((), k.dt)   # a 0-d array: NumPy adds it faster than a scalar
    if cut == m:
        ml = _multi_level_plan(n, (m,))
        return lambda a: ml(a) + zero
    rs = _row_sum_plan(n, m - cut)
    if cut == 0:
        return lambda a: rs(a) + zero
    if n * m <= sum_gather.MAX_ITEMS:  # both orders: seven calls of a gather plan instead of a dozen
        return sum_gather.sum0_plan(n, m, cut, k.dt)
    ml = _multi_level_plan(n, (m,))  # over every column (one reduce): a fresh array, since n > 1

    def sum0(a):
        r = ml(a)
        r[cut:] = rs(a[:, cut:])     # the columns past the vectorised blocks: row_sum's order
        r += zero
        return r
    return sum0


_SUM0_PLANS = {}


def _sum0_small(a, k):
    """torch's sum over dim 0 of a C-contiguous (n, m) float32/float64 array, 1 < n < 256, 1 < m
    (+0 added: the final result, of shape (m,))."""
    kern = _KERNELS[0] if _KERNELS else kernels()
    if kern is not None:
        out = np.empty(a.shape[1], k.dt)
        kern.sum_rows(a, out, a.shape[1], VEC_BYTES)
        return out
    key = (a.shape, k.dt)
    plan = _SUM0_PLANS.get(key)
    if plan is None:
        if len(_SUM0_PLANS) > 256:
            _SUM0_PLANS.clear()
        plan = _SUM0_PLANS[key] = _sum0_plan(a.shape[0], a.shape[1], k)
    return plan(a)


_KINDS = {_F32: Kind(_F32, VEC_BYTES), _F64: Kind(_F64, VEC_BYTES)}   # float32/float64 contiguous (n, m) sums, dim 0


# A C-contiguous float32/float64 array of 1 < n < GRAIN_SIZE items summed over every dim (a loss's
# mean): the iterator coalesces it to one dim of stride itemsize and runs one loop call, the
# vectorised inner sum when n >= wvec (row_sum over the n // wvec vectors, then the tail items and
# the wvec lanes added in order), else the scalar kernel's row_sum of the n items; then 0 + s + 0.
# A plan per (n, dtype, wvec) keeps the shapes computed once. Zeros of either sign inside the sum
# only change the sign of a zero result, and the final `+ 0` makes that +0 as the general path does.

def _sum_all_plan(n, k):
    w = k.wvec
    nv, cut = n // w, (n // w) * w
    zero = np.zeros((), k.dt)
    if n == 1:
        return lambda a: a[0] + zero
    if nv == 0:
        rs = _row_sum_plan(n, 1)
        shape = (n, 1)
        return lambda a: rs(a.reshape(shape))[0] + zero
    shape = (nv, w)
    if nv == 1:
        def lanes(v):
            return v[0]
    elif nv < 256:
        lanes = _row_sum_plan(nv, w)
    else:
        lanes = row_sum
    if cut == n:
        return lambda a: _accumulate(lanes(a.reshape(shape)), 0)[-1] + zero
    return lambda a: _accumulate(_concat((a[cut:], lanes(a[:cut].reshape(shape)))), 0)[-1] + zero


_SUM_ALL_PLANS = {}

# csrc/engine.c's kernels (gradcli/native.py), looked up at the first small sum: the same orders in C,
# one call where the plans make several NumPy calls; None when not built (or GRADCLI_NATIVE=0)
_KERNELS = []


def kernels():
    """gradcli._native_engine, or None: what the engine's hot paths try first (tests set _KERNELS to
    [None] to run the NumPy paths, which stay the reference)."""
    if not _KERNELS:
        from .. import native  # noqa: PLC0415  (not at start-up: a script that never sums loads no C)
        _KERNELS.append(native.load("engine"))
    return _KERNELS[0]


def _sum_all_small(a, k, mean=False):
    """torch's sum over every dim of a C- or F-contiguous float32/float64 ndarray of 0 < a.size <
    GRAIN_SIZE items (all of them in memory order), as a 0-d array; mean: that sum / a.size."""
    kern = _KERNELS[0] if _KERNELS else kernels()
    if kern is not None:
        return np.asarray(kern.sum_all(a if a.flags.c_contiguous else a.T, VEC_BYTES, mean), k.dt)
    if mean:
        return np.asarray(_sum_all_small(a, k) / k.dt.type(a.size), k.dt)
    key = (a.size, k.dt, VEC_BYTES)
    plan = _SUM_ALL_PLANS.get(key)
    if plan is None:
        if len(_SUM_ALL_PLANS) > 256:
            _SUM_ALL_PLANS.clear()
        plan = _SUM_ALL_PLANS[key] = _sum_all_plan(a.size, Kind(k.dt, VEC_BYTES))
    return np.asarray(plan(a.reshape(-1) if a.flags.c_contiguous else a.T.reshape(-1)))


def _sum_float(a, dims, keepdims, fast=True):
    """cascade_sum for a float16/32/64 array ``a`` already of the output dtype (``fast=False``: the
    general iterator path only, which the fast paths' tests compare with)."""
    k = Kind(a.dtype, VEC_BYTES)
    nd = a.ndim
    mask = [i in dims for i in range(nd)]
    kshape = tuple(1 if mask[i] else a.shape[i] for i in range(nd))
    rshape = kshape if keepdims else tuple(a.shape[i] for i in range(nd) if not mask[i])
    if a.size == 0:
        return np.zeros(rshape, a.dtype)
    if fast and a.dtype in _KINDS and a.size < GRAIN_SIZE and all(mask) and (a.flags.c_contiguous or a.flags.f_contiguous):
        return _sum_all_small(a, k).reshape(rshape)
    if not layout_ok(a):
        a = np.ascontiguousarray(a)
    if fast and nd == 2 and mask[0] and not mask[1] and k.dt != _F16 and 1 < a.shape[0] and 1 < a.shape[1] \
            and a.size < GRAIN_SIZE and a.strides[1] == k.item and a.strides[0] == a.shape[1] * k.item:
        # a C-contiguous (n, m) summed over dim 0 (a bias gradient): what the general path computes,
        # without its set-up: one loop call over the (kept, reduced) iterator, every output written once
        if a.shape[0] < 256:
            return _sum0_small(a, k).reshape(rshape)
        vals = call_results(a.T[None], k, a.strides[0], k.item).reshape(a.shape[1])
        return (vals + a.dtype.type(0)).reshape(rshape)   # 0 + sum, then + 0 (never a -0 sum)
    if fast and nd == 2 and mask[0] and not mask[1] and k.dt != _F16 and 1 < a.shape[0] and 1 < a.shape[1] \
            and a.strides[1] == k.item and a.strides[0] == a.shape[1] * k.item:
        return _sum0_large(a, k).reshape(rshape)
    sh, ist, ost = geometry(a.shape, a.strides, mask, a.itemsize, keepdims)
    if k.dt == _F16 and len(sh) >= 2 and ost[0] == 0 and ost[1] == 0:
        # should_use_acc_buffer: sum self.to(float), then copy into the half result
        return _sum_float(torch_copy(a, _F32), dims, keepdims).astype(_F16)
    out_n = int(np.prod(kshape, dtype=np.int64))
    out = np.zeros(out_n, a.dtype)
    numel = a.size
    if numel < GRAIN_SIZE or NUM_THREADS == 1:
        plan = Plan(a, sh, ist, ost)
        _store(out, *_run(plan, k, 0, numel), k)
    elif out_n == 1:
        # two_pass_reduction: per-thread buffers (a fresh iterator on a contiguous slice)
        sh2, ist2, ost2 = geometry(a.shape, a.strides, mask, a.itemsize, True)
        plan = Plan(a, sh2, ist2, ost2)
        bufs = np.zeros(NUM_THREADS, a.dtype)
        for t, (b, e) in enumerate(omp_ranges(0, numel, GRAIN_SIZE)):
            one = np.zeros(1, a.dtype)
            offs, vals = _run(plan, k, b, e)
            _store(one, np.zeros_like(offs), vals, k)
            bufs[t] = one[0]
        fin = row_sum(bufs.astype(k.acc))
        _store(out, np.zeros(1, np.int64), np.asarray([fin], k.acc), k)
    else:
        plan = Plan(a, sh, ist, ost)
        if len(sh) == 2:
            # parallel_dim_reduction splits dim 1 (the kept one); a split changes its columns' kernels
            cols = sh[1]
            rnd = ist[1] == a.itemsize
            for b, e in omp_ranges(0, cols, 1):
                if rnd:
                    m = 128 // a.itemsize
                    b -= b % m
                    if e != cols:
                        e -= e % m
                if b == e:
                    continue
                _store(out, *_run(plan, k, 0, sh[0] * (e - b), b, e), k)
        else:
            _store(out, *_run(plan, k, 0, numel), k)
    out = out + out.dtype.type(0)       # the output starts at +0: never a -0 sum
    return out.reshape(rshape)


def _sum0_large(a, k):
    """The general path below for a C-contiguous (n, m) float32/float64 array summed over dim 0 (the
    bias gradient of a large batch), on column slices of ``a`` directly: the iterator is (n reduced,
    m kept); parallel_dim_reduction's column split when it applies, else one loop call; in each
    call, the vectorised outer sum's columns by multi_row_sum and the rest by row_sum
    (call_results: the reduced stride is the larger one); every output written once, 0 + v, + 0."""
    n, m = a.shape
    if a.size < GRAIN_SIZE or NUM_THREADS == 1:
        spans = [(0, m)]
    else:
        spans = []
        r = 128 // a.itemsize
        for b, e in omp_ranges(0, m, 1):
            b -= b % r
            if e != m:
                e -= e % r
            if b != e:
                spans.append((b, e))
    out = np.zeros(m, a.dtype)
    for b, e in spans:
        ncol = e - b
        if ncol >= k.wvec:
            blk = 4 * k.wacc
            cut = (ncol // blk) * blk
        else:
            cut = (ncol // 4) * 4
        x = a[:, b:e].astype(k.acc, copy=False)
        if cut:
            out[b:b + cut] += multi_level(x[:, :cut])
        if cut < ncol:
            out[b + cut:e] += row_sum(x[:, cut:])
    out += a.dtype.type(0)
    return out


def sum_rows(a):
    """torch.sum(a, 0) of a 2-D array (a Linear layer's bias gradient) as an (m,) array: csrc/engine.c's
    sum_rows for a small C-contiguous one, else the plan _sum0_small made for this shape and dtype when
    there is one (only C-contiguous NumPy arrays of its size range ever get one), else torch_sum."""
    kern = _KERNELS[0] if _KERNELS else kernels()
    if kern is not None and type(a) is np.ndarray and a.size < GRAIN_SIZE:
        m = a.shape[1]
        out = np.empty(m, a.dtype)
        try:
            kern.sum_rows(a, out, m, VEC_BYTES)  # (refused: not C-contiguous, n or m < 2, another dtype)
        except ValueError:
            return torch_sum(a, (0,))
        return out
    plan = _SUM0_PLANS.get((a.shape, a.dtype))
    if plan is not None and type(a) is np.ndarray and a.flags.c_contiguous:
        return plan(a)
    return torch_sum(a, (0,))


def foreign(a):
    """A device (CuPy) array: summed by its own module, not emulated."""
    return not isinstance(a, (np.ndarray, np.generic, int, float, bool, list, tuple))


def sum_dtype(dt):
    dt = np.dtype(dt)
    return dt if dt.kind in "fc" else np.dtype(np.int64)


def torch_sum(array, axis=None, keepdims=False, dtype=None):
    """``torch.sum(array, dim=axis, keepdim=keepdims, dtype=dtype)`` with torch's CPU order.

    ``axis`` None or () reduces every dim.  Integer/bool inputs sum exactly into int64 (or
    ``dtype``); float16/32/64 follow cascade_sum bit for bit.  Returns an ndarray (0-d for a
    full reduction)."""
    if type(array) is np.ndarray and array.ndim == 2 and (axis == (0,) or axis == 0) \
            and (dtype is None or dtype == array.dtype):
        k = _KINDS.get(array.dtype)
        if k is not None and 1 < array.shape[0] < 256 and 1 < array.shape[1] and array.size < GRAIN_SIZE \
                and array.strides[1] == k.item and array.strides[0] == array.shape[1] * k.item:
            # the bias gradient's sum: _sum_float's fast path, without the general set-up
            r = _sum0_small(array, k)
            return r.reshape(1, array.shape[1]) if keepdims else r
    elif type(array) is np.ndarray and (axis is None or axis == ()) and (dtype is None or dtype == array.dtype):
        k = _KINDS.get(array.dtype)
        if k is not None and 0 < array.size < GRAIN_SIZE and (array.flags.c_contiguous or array.flags.f_contiguous):
            # a full sum of a small dense array (a loss): one loop call, a plan per length
            r = _sum_all_small(array, k)
            return r.reshape((1,) * array.ndim) if keepdims else r
    if is_device_array(array):
        return _gpu_sum(array, axis, keepdims, dtype)
    if foreign(array):
        dims = norm_dims(axis, array.ndim)
        out_dt = np.dtype(dtype) if dtype is not None else sum_dtype(array.dtype)
        return array.sum(axis=dims, keepdims=keepdims, dtype=out_dt)
    a = np.asarray(array)
    out_dt = np.dtype(dtype) if dtype is not None else sum_dtype(a.dtype)
    dims = norm_dims(axis, a.ndim)
    if out_dt.kind != "f" or out_dt not in (_F16, _F32, _F64):
        r = np.sum(a, axis=dims, keepdims=keepdims, dtype=out_dt) if a.ndim else a.astype(out_dt)
        return np.asarray(r, out_dt)
    if a.dtype != out_dt:
        a = torch_copy(a, out_dt)
    return _sum_float(a, dims, keepdims)


def reduced_count(shape, axis):
    if not len(shape):
        return 1
    dims = norm_dims(axis, len(shape))
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def torch_mean(array, axis=None, keepdims=False, dtype=None):
    """``torch.mean``: on the CPU, torch sums (in float for float16) and divides by the count."""
    if type(array) is np.ndarray and axis is None and dtype is None and not keepdims:
        k = _KINDS.get(array.dtype)
        if k is not None and 0 < array.size < GRAIN_SIZE and (array.flags.c_contiguous or array.flags.f_contiguous):
            # a loss's mean: torch_sum's small full sum over a count >= 1 (no division warning to silence)
            return _sum_all_small(array, k, True)
    if is_device_array(array):
        s = _gpu_sum(array, axis, keepdims, dtype)
        return (s / s.dtype.type(reduced_count(array.shape, axis))).astype(s.dtype)
    if foreign(array):
        out_dt = np.dtype(dtype) if dtype is not None else array.dtype
        return array.astype(out_dt).mean(axis=norm_dims(axis, array.ndim), keepdims=keepdims)
    a = np.asarray(array)
    out_dt = np.dtype(dtype) if dtype is not None else a.dtype
    n = reduced_count(a.shape, axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        if out_dt == _F16:
            s = torch_sum(a, axis, keepdims, _F32)
            return np.asarray(s / _F32.type(n)).astype(_F16)
        s = torch_sum(a, axis, keepdims, out_dt)
        return np.asarray(s / out_dt.type(n), out_dt)


# ------------------------------------------------------------------------------------------
# On the GPU (CuPy arrays) torch's CUDA kernels reduce in their own order (a tree per block), so
# bit-exact CPU emulation has no meaning there: plain reductions, accumulated in float32 for
# float16 (as torch's CUDA accumulate type) and in the output dtype otherwise.

def _gpu_sum(a, axis, keepdims, dtype):
    out_dt = np.dtype(dtype) if dtype is not None else sum_dtype(a.dtype)
    dims = norm_dims(axis, a.ndim)
    acc = _F32 if out_dt == _F16 else out_dt
    r = a.sum(axis=dims, keepdims=keepdims, dtype=acc) if a.ndim else a.astype(acc)
    return r.astype(out_dt)


# ------------------------------------------------------------------------------------------
# elementwise float functions, rounded the way torch's CPU kernels mostly round them

_LONG_DOUBLE = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant
_VIA_LONG_DOUBLE = {"tanh"}


def ufunc(f):
    """Wrap a NumPy float ufunc so float32 inputs are computed in float64 and rounded once.

    torch's float32 exp/log/sin/tanh/... go through MKL VML (high-accuracy mode) or SLEEF, which
    are correctly rounded for nearly every input; NumPy's own float32 loops are not (e.g. its
    float32 exp agrees with torch on ~62% of inputs, the float64-then-round value on ~99%).  For
    float64, ``tanh`` uses long double where the platform has it (NumPy's float64 tanh agrees
    with torch on ~80% of inputs, the long-double one on ~99%).  float16 stays as NumPy computes
    it (through float32, as torch does)."""
    name = getattr(f, "__name__", "")
    via_ld = _LONG_DOUBLE and name in _VIA_LONG_DOUBLE

    def g(x, *args, **kw):
        dt = getattr(x, "dtype", None)
        if dt == _F32:
            with np.errstate(all="ignore"):
                return f(x.astype(_F64), *args, **kw).astype(dt)
        if via_ld and dt == _F64 and type(x) is np.ndarray:
            with np.errstate(all="ignore"):
                return f(x.astype(np.longdouble), *args, **kw).astype(_F64)
        return f(x, *args, **kw)

    g.__name__ = name
    g.__doc__ = f.__doc__
    return g


exp = ufunc(np.exp)


def sigmoid(x):
    """ATen's sigmoid kernel: 1 / (1 + exp(-x)) in the input's float type (float for float16)."""
    if x.dtype == _F16:
        return sigmoid(x.astype(_F32)).astype(_F16)
    if x.dtype == _F32 and type(x) is np.ndarray:
        from .pow_kernel import sigmoid32  # noqa: PLC0415  (pow_kernel imports this module)
        return sigmoid32(x)  # SLEEF's exp on the vector body, glibc's on the tail: torch's bits
    one = x.dtype.type(1)
    with np.errstate(over="ignore"):
        return one / (one + exp(-x))


def silu(x):
    """ATen's silu kernel: x / (1 + exp(-x)) (in float for float16)."""
    if x.dtype == _F16:
        return silu(x.astype(_F32)).astype(_F16)
    if x.dtype == _F32 and type(x) is np.ndarray:
        from .pow_kernel import silu32  # noqa: PLC0415
        return silu32(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return x / (x.dtype.type(1) + exp(-x))
