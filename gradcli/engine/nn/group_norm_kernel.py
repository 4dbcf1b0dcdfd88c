"""ATen's CPU group norm kernels for a contiguous float32 input (group_norm_kernel.cpp), on NumPy arrays
viewed as (N, C, HxW).

Forward (GroupNormKernelImplInternal): per sample and group, the moments of its D * HxW elements by
RowwiseMoments (layer_norm_kernel.rowwise_moments), rstd = 1 / sqrt(max(var, 0) + eps) in double, rounded;
without weight and bias y = (x - mean) * rstd, else per channel scale = rstd * weight, bias = -scale * mean +
beta, y = scale * x + bias.

Backward (GroupNormBackwardKernelImplInternal): per sample and channel ds = sum(dy * x) by
vec::map2_reduce_all and db = sum(dy) by vec::reduce_all (batch_norm_planes.plane_sums); per sample and
group (GroupNormInputBackward) ds and db weighted by gamma over the group's channels in 8-lane vectors (16
under AVX512) added lane by lane (std::accumulate), the channels past the last whole vector one by one;
c2 = (db * mean - ds) * rstd * rstd * rstd * s, c3 = -c2 * mean - db * rstd * s with s = 1 / (D * HxW),
dx = c1 * dy + c2 * x + c3 with c1 = rstd * gamma; dgamma = sum over samples of (ds - db * mean) * rstd,
dbeta = sum over samples of db, in float in sample order.

Which multiply-adds the AVX2/AVX512 build fuses was measured against torch (every choice tried, AVX2):
the output's two, the weighted group sums (vectors and tail), c2's `db * mean - ds`, c3's `- (db * rstd) * s`,
dx's `c1 * dy` (then `+ c3` rounded apart), both of dgamma's; not the products of ds = sum(dy * x). Nothing
under ATEN_CPU_CAPABILITY=default (measured too). Not reproduced: rstd's last bit on rows of two
RowwiseMoments chunks or more (as layer norm), and one sample of one group of 4+ channels, where
at::parallel_for over one item runs the kernel's serial copy, compiled with other contractions."""
from __future__ import annotations

import numpy as np

from ..rng_math import capability, fma32
from .batch_norm_planes import lanes, plane_sums
from .layer_norm_kernel import rowwise_moments

_F = np.float32

def _fused():
    return capability() != "default"


def _madd(a, b, c):
    """a * b + c, fused by the AVX2/AVX512 build, rounded twice under DEFAULT."""
    return fma32(a, b, c) if _fused() else (a * b + c).astype(_F)


def forward(x, groups, weight, bias, eps):
    """(y as x's shape, mean (N, G), rstd (N, G)) of a float32 N x C x ... array."""
    n, c = x.shape[0], x.shape[1]
    rows = np.ascontiguousarray(x).reshape(n * groups, -1)
    with np.errstate(all="ignore"):
        mean, var = rowwise_moments(rows)
        rstd = (1.0 / np.sqrt(np.maximum(var, _F(0)).astype(np.float64) + eps)).astype(_F)
        d = c // groups
        if weight is None and bias is None:
            y = ((rows - mean[:, None]).astype(_F) * rstd[:, None]).astype(_F)
            return y.reshape(x.shape), mean.reshape(n, groups), rstd.reshape(n, groups)
        planes = rows.reshape(n, c, -1)
        rstd_c = np.repeat(rstd.reshape(n, groups), d, axis=1)
        mean_c = np.repeat(mean.reshape(n, groups), d, axis=1)
        scale = (rstd_c * (weight if weight is not None else _F(1))).astype(_F)
        beta = bias if bias is not None else np.zeros(c, _F)
        shift = _madd(-scale, mean_c, np.broadcast_to(beta, (n, c)).astype(_F))
        y = _madd(scale[:, :, None], planes, shift[:, :, None])
        return y.reshape(x.shape), mean.reshape(n, groups), rstd.reshape(n, groups)


def _group_dot(v, gamma, d, k):
    """CalcDsDb and its tail: sum over a group's channels of v * gamma, (N, G, D) -> (N, G): k-lane
    accumulators over the whole vectors (fused), added lane by lane, then the rest one by one (fused)."""
    full = d - d % k
    fuse = _fused()
    acc = np.zeros(v.shape[:2] + (k,), _F)
    for j in range(0, full, k):
        acc = _madd(v[..., j:j + k], gamma[..., j:j + k], acc)
    out = np.zeros(v.shape[:2], _F)
    for i in range(k if full else 0):  # std::accumulate over the lanes
        out = (out + acc[..., i]).astype(_F)
    for j in range(full, d):
        out = fma32(v[..., j], gamma[..., j], out) if fuse else (out + v[..., j] * gamma[..., j]).astype(_F)
    return out


def backward(g, x, mean, rstd, groups, weight, need_dx, need_dw, need_db):
    """(dx, dgamma, dbeta) of ATen's group norm backward: float32 N x C x ... arrays g and x (contiguous),
    mean and rstd (N, G) float32, weight (C,) float32 or None."""
    n, c = x.shape[0], x.shape[1]
    d = c // groups
    gp = np.ascontiguousarray(g).reshape(n * c, -1)
    xp = np.ascontiguousarray(x).reshape(n * c, -1)
    hw = xp.shape[1]
    dx = dw = db_out = None
    with np.errstate(all="ignore"):
        # map2_reduce_all(dy * x): this kernel's build rounds every product, the tail's too (measured)
        ds = plane_sums(gp, xp, None, tail_fused=False).reshape(n, c)
        db = plane_sums(gp).reshape(n, c)
        fuse = _fused()
        if need_dx:
            gamma = (weight if weight is not None else np.ones(c, _F)).reshape(1, groups, d)
            gamma_b = np.broadcast_to(gamma, (n, groups, d))
            k = lanes()
            ds_val = _group_dot(ds.reshape(n, groups, d), gamma_b, d, k)
            db_val = _group_dot(db.reshape(n, groups, d), gamma_b, d, k)
            s = _F(1) / _F(d * hw)
            m, r = mean, rstd
            t = fma32(db_val, m, -ds_val) if fuse else (db_val * m - ds_val).astype(_F)
            c2 = ((((t * r).astype(_F) * r).astype(_F) * r).astype(_F) * s).astype(_F)
            dbr = (db_val * r).astype(_F)
            if fuse:  # -c2 * mean rounded, then - (db * rstd) * s fused into it
                c3 = fma32(-dbr, s, (-c2 * m).astype(_F))
            else:
                c3 = ((-c2 * m).astype(_F) - (dbr * s).astype(_F)).astype(_F)
            c1 = (np.repeat(r, d, axis=1) * gamma.reshape(1, c)).astype(_F)[:, :, None]
            c2c = np.repeat(c2, d, axis=1)[:, :, None]
            c3c = np.repeat(c3, d, axis=1)[:, :, None]
            gq, xq = gp.reshape(n, c, hw), xp.reshape(n, c, hw)
            if fuse:  # fma(c1, dy, c2 * x) + c3
                dx = (fma32(c1, gq, (c2c * xq).astype(_F)) + c3c).astype(_F)
            else:
                dx = (((c1 * gq).astype(_F) + (c2c * xq).astype(_F)).astype(_F) + c3c).astype(_F)
            dx = dx.reshape(x.shape)
        if need_dw:
            acc = np.zeros(c, _F)
            m_c = np.repeat(mean, d, axis=1)
            r_c = np.repeat(rstd, d, axis=1)
            for i in range(n):
                inner = fma32(-db[i], m_c[i], ds[i]) if fuse else (ds[i] - (db[i] * m_c[i]).astype(_F)).astype(_F)
                acc = _madd(inner, r_c[i], acc)
            dw = acc
        if need_db:
            acc = np.zeros(c, _F)
            for i in range(n):
                acc = (acc + db[i]).astype(_F)
            db_out = acc
    return dx, dw, db_out
