"""ATen's CPU layer_norm forward for float32 (layer_norm_kernel.cpp's LayerNormKernelImplInternal), step
for step over NumPy rows: the statistics are moments_utils.h's RowwiseMoments (Welford over vectors of
8 lanes, 16 under AVX512: per chunk of 16 vectors a lane-wise Welford, chunks merged by AddMomentsVec in
a cascade, the elements past the last whole vector by the scalar Welford, then the lanes folded in by
AddMoments), rstd = 1 / sqrt(var + eps) in float, and out = ((x - mean) * rstd) * gamma + beta.

Which multiply-adds the AVX2/AVX512 build contracts into fused ones was measured against torch (every
choice tried on thousands of rows): the lane-wise Welford's two updates, AddMoments' m1 and m2 (the
scalar fold), and the output's `* gamma + beta` (`(x - mean) * rstd + beta` without gamma) are fused; AddMomentsVec's m1 and the scalar tail's m2
are not. With these the mean, rstd and output are torch's bits for rows of up to 135 elements (one
chunk); longer rows (two chunks or more) keep the mean, but rstd's last bit differs on about one row
in eight (the chunks' merge; not found). Under ATEN_CPU_CAPABILITY=default nothing is fused (not
measured)."""
from __future__ import annotations

import numpy as np

from .. import numerics
from ..rng_math import capability, fma32
from .batch_norm_planes import fma_chain, plane_sums

_F = np.float32
_CHUNK = 16


def _ceil_log2(x):
    return 1 if x <= 2 else int(x - 1).bit_length()


def rowwise_moments(x):
    """(mean, biased variance) of each row of a float32 (M, N) array, as ATen's RowwiseMoments."""
    cap = capability()
    lanes = 16 if cap == "avx512" else 8
    fused = cap != "default"

    def madd(a, b, c):
        return fma32(a, b, c) if fused else (a * b + c).astype(_F)

    rows, cols = x.shape
    n = cols // lanes
    m = -(-n // _CHUNK)
    depth = _ceil_log2(m)
    m0s = [0] * depth
    m1s = [np.zeros((rows, lanes), _F) for _ in range(depth)]
    m2s = [np.zeros((rows, lanes), _F) for _ in range(depth)]

    def add_vec(m0_add, m1_add, m2_add, k):  # AddMomentsVec into level k of the cascade
        total = m0s[k] + m0_add
        c = _F(0) if total == 0 else _F(m0_add) / _F(total)
        delta = m1_add - m1s[k]
        m1s[k] = (m1s[k] + c * delta).astype(_F)
        m2s[k] = m2s[k] + madd(delta * delta * c, _F(m0s[k]), m2_add)
        m0s[k] = total

    for i in range(m):
        count = min(_CHUNK, n - i * _CHUNK)
        m1v = np.zeros((rows, lanes), _F)
        m2v = np.zeros((rows, lanes), _F)
        for j in range(count):
            start = (i * _CHUNK + j) * lanes
            xv = x[:, start:start + lanes]
            delta = xv - m1v
            m1v = madd(delta, _F(1) / _F(j + 1), m1v)
            m2v = madd(delta, xv - m1v, m2v)
        add_vec(count, m1v, m2v, 0)
        mask, j = i + 1, 1
        while j < depth and (mask & 1) == 0:
            add_vec(m0s[j - 1], m1s[j - 1], m2s[j - 1], j)
            m0s[j - 1] = 0
            m1s[j - 1] = np.zeros((rows, lanes), _F)
            m2s[j - 1] = np.zeros((rows, lanes), _F)
            mask >>= 1
            j += 1
    for k in range(1, depth):
        add_vec(m0s[k], m1s[k], m2s[k], 0)
    m0 = 0
    m1 = np.zeros(rows, _F)
    m2 = np.zeros(rows, _F)
    for i in range(n * lanes, cols):  # the elements past the last whole vector: scalar Welford
        xs = x[:, i]
        delta = xs - m1
        m0 += 1
        m1 = m1 + delta / _F(m0)
        m2 = (m2 + delta * (xs - m1)).astype(_F)
    for lane in range(lanes):  # AddMoments of each lane's (n, m1, m2)
        total = m0 + n
        c = _F(0) if total == 0 else _F(n) / _F(total)
        delta = m1s[0][:, lane] - m1
        m1 = madd(c, delta, m1)
        m2 = m2 + madd(delta * delta * c, _F(m0), m2s[0][:, lane])
        m0 = total
    return m1, (m2 / _F(cols)).astype(_F)


def layer_norm_f32(x, cols, weight, bias, eps):
    """(out (float32, x's shape), mean, rstd (one a row)) of ATen's layer_norm of x viewed as rows of `cols`
    elements (the normalized dims): x a float32 array, weight and bias float32 arrays of `cols` elements or
    None."""
    rows = np.ascontiguousarray(x).reshape(-1, cols)
    mean, var = rowwise_moments(rows)
    with np.errstate(all="ignore"):
        rstd = (_F(1) / np.sqrt(var + _F(eps))).astype(_F)
        centred = (rows - mean[:, None]).astype(_F)
        fused = capability() != "default"
        if bias is not None and weight is None and fused:  # the compiler folds `* 1` and fuses the rest
            return fma32(centred, rstd[:, None], bias).reshape(x.shape), mean, rstd
        out = (centred * rstd[:, None]).astype(_F)
        if weight is not None and bias is not None:
            out = fma32(out, weight, bias) if fused else (out * weight + bias).astype(_F)
        elif weight is not None:
            out = (out * weight).astype(_F)
        elif bias is not None:
            out = (out + bias).astype(_F)
    return out.reshape(x.shape), mean, rstd


def layer_norm_backward_f32(g, x, cols, mean, rstd, weight, need_dx, need_dw, need_db):
    """(dx, dgamma, dbeta) of ATen's LayerNormBackwardKernelImplInternal (layer_norm_backward_frame) over
    float32 rows of `cols` elements: g and x of any shape (made contiguous), mean and rstd (rows,) float32,
    weight (cols,) or None. Per row ds = sum(dy * x * gamma) and db = sum(dy * gamma) by map3/map2_reduce_all
    (the whole vectors' products rounded, the tail's fused), b = (db * mean - ds) * rstd^3 / cols,
    c = -b * mean - db * rstd / cols, dx = rstd * dy * gamma + b * x + c; dgamma and dbeta in per-thread float
    buffers (at::parallel_for over the rows) of dy * (rstd * x - rstd * mean) and dy, then summed in float.
    Fused by the AVX2/AVX512 build (measured, every choice tried): b's `db * mean - ds`, c's `-b * mean`
    with `(db * rstd) / cols` rounded, dx's `b * x` onto the rounded `rstd * dy * gamma` (then `+ c`
    rounded), both of dgamma's; nothing under DEFAULT."""
    gr = np.ascontiguousarray(g, _F).reshape(-1, cols)
    xr = np.ascontiguousarray(x, _F).reshape(-1, cols)
    m_rows = gr.shape[0]
    fuse = capability() != "default"
    dx = dw = db_out = None
    with np.errstate(all="ignore"):
        a = rstd[:, None]
        if need_dx:
            if weight is None:
                ds = plane_sums(gr, xr)
                db = plane_sums(gr)
            else:
                wb = np.broadcast_to(weight, gr.shape)
                ds = plane_sums((gr * xr).astype(_F), wb)
                db = plane_sums(gr, wb)
            scale = _F(1) / _F(cols)
            t = fma32(db, mean, -ds) if fuse else (db * mean - ds).astype(_F)
            bb = ((((t * rstd).astype(_F) * rstd).astype(_F) * rstd).astype(_F) * scale).astype(_F)
            dba = (db * rstd).astype(_F)
            if fuse:
                cc = fma32(-bb, mean, -(dba * scale).astype(_F))
            else:
                cc = ((-bb * mean).astype(_F) - (dba * scale).astype(_F)).astype(_F)
            first = (a * gr).astype(_F)  # rstd * dy, times gamma
            if weight is not None:
                first = (first * weight).astype(_F)
            if fuse:
                dx = (fma32(bb[:, None], xr, first) + cc[:, None]).astype(_F)
            else:
                dx = ((first + (bb[:, None] * xr).astype(_F)).astype(_F) + cc[:, None]).astype(_F)
            dx = dx.reshape(np.shape(x))
        if need_dw or need_db:
            b_row = (-rstd * mean).astype(_F)[:, None]
            if need_dw:
                inner = fma32(a, xr, b_row) if fuse else (a * xr + b_row).astype(_F)
            parts_g, parts_b = [], []
            for begin, end in numerics.omp_ranges(0, m_rows, 1):  # each thread's buffer, its rows in order
                if need_dw:
                    if fuse:
                        parts_g.append(fma_chain(gr[begin:end], inner[begin:end]))
                    else:
                        terms = (gr[begin:end] * inner[begin:end]).astype(_F)
                        parts_g.append(np.add.accumulate(terms, axis=0)[-1])
                if need_db:
                    parts_b.append(np.add.accumulate(gr[begin:end], axis=0)[-1])
            if need_dw:
                dw = np.zeros(cols, _F)
                for p in parts_g:  # idle threads' zeroed buffers add nothing
                    dw = (dw + p).astype(_F)
            if need_db:
                db_out = np.zeros(cols, _F)
                for p in parts_b:
                    db_out = (db_out + p).astype(_F)
    return dx, dw, db_out
