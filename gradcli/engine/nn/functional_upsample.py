"""F.interpolate and nn.Upsample / UpsamplingNearest2d / UpsamplingBilinear2d over 1 or 2 spatial
dims, modes nearest, nearest-exact, linear and bilinear, following ATen's CPU kernels
(aten/src/ATen/native/UpSample.h, UpSampleKernel.cpp): the source index of each output position
(and its two linear weights) computed in the op-math type as ATen does, the forward
((x00*w0 + x01*w1)*h0 + (x10*w0 + x11*w1)*h1, each step rounded), the backward adding each output's
gradient (times its weights) into the input in output order. The backward of the backward is the
forward again, so gradients differentiate again."""
from __future__ import annotations

import math

import numpy as np

from .. import errors
from ..function import Function, record
from ..limits import check_shape
from ..ops import words
from ..tensor import Tensor, wrap
from ..device import like, scatter_add as _scatter_add_at, xp_of
from .module import Module

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "Upsample", "UpsamplingNearest2d",
           "UpsamplingBilinear2d", "NAMES"]

_MODES = ("nearest", "nearest-exact", "linear", "bilinear")


def _not_implemented(message):
    err = NotImplementedError(message)
    err.gradcli_hint = None
    return err


def _mul_add(a, b, c):
    """a * b + c as ATen's compiled code computes it: fused (one rounding) in the AVX2/AVX-512 builds,
    two roundings in the default one (engine/rng_math.py: the capability and exact FMAs)."""
    from .. import rng_math  # noqa: PLC0415
    if not rng_math.fused():
        return a * b + c
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    if a.dtype == np.float32:
        return rng_math.fma32(a, b, c)
    return rng_math.fma64(np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1),
                          np.ascontiguousarray(c).reshape(-1)).reshape(a.shape)


def _scale_value(scale, in_size, out_size, t):
    """ATen's compute_scales_value: 1 / scale when one was given, else in / out (in op-math type t)."""
    if scale is not None and scale > 0:
        return t(1.0 / scale)
    return t(t(in_size) / t(out_size))


def _nearest_index(in_size, out_size, scale, exact):
    o = np.arange(out_size)
    if not exact and out_size == in_size:
        return o
    if not exact and out_size == 2 * in_size:
        return o >> 1
    s = _scale_value(scale, in_size, out_size, np.float32)
    src = (o + 0.5) * np.float64(s) if exact else o.astype(np.float32) * s
    return np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), in_size - 1)


def _linear_weights(in_size, out_size, scale, align_corners, t):
    """compute_source_index_and_lambda for every output position: (i0, i1, lambda0, lambda1)."""
    o = np.arange(out_size)
    if out_size == in_size:
        return o, o, np.ones(out_size, t), np.zeros(out_size, t)
    if align_corners:
        ratio = t(t(in_size - 1) / t(out_size - 1)) if out_size > 1 else t(0)
        real = ratio * o.astype(t)
    else:
        ratio = _scale_value(scale, in_size, out_size, t)
        # scale * (dst + 0.5) - 0.5: one fused multiply-add in ATen's vectorised builds
        real = np.maximum(_mul_add(np.full(out_size, ratio, t), o.astype(t) + t(0.5), np.full(out_size, t(-0.5), t)),
                          t(0))
    i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    l1 = np.minimum(np.maximum(real - i0.astype(t), t(0)), t(1)).astype(t)
    i1 = i0 + (i0 < in_size - 1)
    return i0, i1, (t(1) - l1).astype(t), l1


def _plan(kw, in_sp, t):
    """Per spatial dim: its taps as (index array, weight array or None), ATen's order."""
    out = []
    for d in range(len(in_sp)):
        scale = kw["scales"][d]
        if kw["mode"] in ("nearest", "nearest-exact"):
            out.append([(_nearest_index(in_sp[d], kw["out_sp"][d], scale, kw["mode"] == "nearest-exact"), None)])
        else:
            i0, i1, l0, l1 = _linear_weights(in_sp[d], kw["out_sp"][d], scale, kw["align_corners"], t)
            out.append([(i0, l0), (i1, l1)])
    return out


def _forward_array(x, kw):
    nd = len(kw["out_sp"])
    in_sp = x.shape[x.ndim - nd:]
    plan = _plan(kw, in_sp, x.dtype.type)
    if kw["mode"] in ("nearest", "nearest-exact"):
        if nd == 1:
            return x[..., like(x, plan[0][0][0])]
        return x[..., like(x, plan[0][0][0])[:, None], like(x, plan[1][0][0])[None, :]]

    if nd == 1:  # Interpolate<1, ..., 2>: t0 * w0 + t1 * w1
        (a, la), (b, lb) = plan[0]
        return _mul_add(x[..., like(x, a)], like(x, la), x[..., like(x, b)] * like(x, lb))
    (h0, hl0), (h1, hl1) = plan[0]
    (w0, wl0), (w1, wl1) = plan[1]
    xp = xp_of(x)
    p00, p01 = x[..., h0[:, None], w0[None, :]], x[..., h0[:, None], w1[None, :]]
    p10, p11 = x[..., h1[:, None], w0[None, :]], x[..., h1[:, None], w1[None, :]]
    out_h, out_w = kw["out_sp"]
    c = x.shape[1] if x.ndim == 4 else 1
    from ..threads import get_num_threads  # noqa: PLC0415
    if out_h + out_w > 128 and not (get_num_threads() == 1 and c == 3):
        # the generic kernel: rows first, t0 * w0 + t1 * w1 at each level
        r0 = _mul_add(p00, wl0[None, :], p01 * wl1[None, :])
        r1 = _mul_add(p10, wl0[None, :], p11 * wl1[None, :])
        return _mul_add(r0, hl0[:, None], r1 * hl1[:, None])
    # the channels-last kernel (every float bilinear with out_h + out_w <= 128): four weights per output
    w = [(hl[:, None] * wl[None, :]).astype(x.dtype) for hl in (hl0, hl1) for wl in (wl0, wl1)]
    out = _mul_add(p11, w[3], _mul_add(p10, w[2], _mul_add(p00, w[0], p01 * w[1])))
    from .. import rng_math  # noqa: PLC0415
    vec = (16 if rng_math.capability() == "avx512" else 8) * 4 // x.dtype.itemsize
    full = c - c % vec
    if full and x.ndim == 4:  # its vectorised part: m00 + (m01 + (m10 + m11)), fused as GCC does
        out = xp.array(out)
        out[:, :full] = _mul_add(p00, w[0], _mul_add(p01, w[1], _mul_add(p11, w[3], p10 * w[2])))[:, :full]
    return out


def _backward_array(g, kw, in_sp):
    """The input's gradient: each output position's gradient times its weights, added into the input in
    output order (ATen's loop, and its order of the taps)."""
    nd = len(in_sp)
    t = g.dtype.type
    plan = _plan(kw, in_sp, t)
    lead = g.shape[:g.ndim - nd]
    out_sp = g.shape[g.ndim - nd:]
    if nd == 1:
        idx = np.stack([a for a, _ in plan[0]], -1)  # (O, taps)
        coef = None if plan[0][0][1] is None else np.stack([w for _, w in plan[0]], -1)
    else:
        idx = np.stack([hi[:, None] * in_sp[1] + wi[None, :] for hi, _ in plan[0] for wi, _ in plan[1]], -1)
        coef = None if plan[0][0][1] is None else np.stack(
            [(hw[:, None] * ww[None, :]).astype(t) for _, hw in plan[0] for _, ww in plan[1]], -1)  # (OH, OW, taps)
    taps = idx.shape[-1]
    gl = g.reshape((-1,) + tuple(out_sp))  # (L, *out)
    s = int(np.prod(in_sp))
    acc = xp_of(g).zeros((s, gl.shape[0]), dtype=g.dtype)
    if coef is None:  # nearest: acc += g
        vals = np.broadcast_to(gl[..., None], gl.shape + (taps,)).reshape(gl.shape[0], -1).T
        _scatter_add_at(acc, idx.reshape(-1), vals)
        return acc.T.reshape(tuple(lead) + tuple(in_sp))
    # linear: acc = acc + coef * g, one rounding (fused) in output order; the contributions are applied in
    # rounds, each target at most once per round, so a target's additions keep their order
    flat = idx.reshape(-1)
    coefs = coef.reshape(-1).astype(g.dtype)
    gv = np.broadcast_to(gl.reshape(gl.shape[0], -1)[..., None], (gl.shape[0], flat.size // taps, taps)).reshape(
        gl.shape[0], -1).T  # (K, L) in ATen's order
    order = np.argsort(flat, kind="stable")
    sorted_t = flat[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_t)) + 1]
    rank = np.empty(flat.size, np.int64)
    rank[order] = np.arange(flat.size) - np.repeat(starts, np.diff(np.r_[starts, flat.size]))
    for r in range(int(rank.max()) + 1 if flat.size else 0):
        k = np.flatnonzero(rank == r)
        tgt = flat[k]
        acc[tgt] = _mul_add(np.broadcast_to(coefs[k][:, None], (k.size, gl.shape[0])), gv[k], acc[tgt])
    return acc.T.reshape(tuple(lead) + tuple(in_sp))


def _node_name(mode, nd):
    kind = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear", "bilinear": "Bilinear"}[mode]
    return f"Upsample{kind}{nd}DBackward0"


def _fwd_replay(xs, kw, outs):
    return [_forward_array(xs[0], kw)]


def _bwd_replay(xs, kw, outs):
    return [_backward_array(xs[0], kw, kw["in_sp"])]


def _backward_of(node, g):
    k = node._kw
    return (_record_backward(g, k),)


def _backward_of_backward(node, gg):
    k = node._kw
    return (_record_forward(gg, k),)


def _make_nodes():
    nodes = {}
    for mode in _MODES:
        for nd in (1, 2):
            if (mode == "linear" and nd != 1) or (mode == "bilinear" and nd != 2):
                continue
            name = _node_name(mode, nd)
            fwd = type(name, (Function,), {
                "__slots__": (), "backward": _backward_of, "replay": staticmethod(_fwd_replay),
                "explain": staticmethod(words.fixed("each output's weights (1 for nearest) at its source "
                                                    "elements, summed over the outputs that read them"))})
            bname = name.replace("Backward0", "BackwardBackward0")
            bwd = type(bname, (Function,), {
                "__slots__": (), "backward": _backward_of_backward, "replay": staticmethod(_bwd_replay),
                "explain": staticmethod(words.fixed("the upsampling itself (its gradient is linear in grad)"))})
            fwd.__module__ = bwd.__module__ = __name__
            nodes[(mode, nd)] = (fwd, bwd)
    return nodes


NODES = _make_nodes()


def _record_forward(x, k):
    out = _forward_array(x._data, k)
    return record(NODES[(k["mode"], len(k["out_sp"]))][0], (x,), wrap(xp_of(out).ascontiguousarray(out), x.dtype),
                  dict(k, in_sp=tuple(x.shape[x.ndim - len(k["out_sp"]):])))


def _record_backward(g, k):
    out = _backward_array(g._data, k, k["in_sp"])
    return record(NODES[(k["mode"], len(k["out_sp"]))][1], (g,), wrap(out, g.dtype), k)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if not isinstance(input, Tensor):
        raise errors.type_error(f"interpolate(): argument 'input' (position 1) must be Tensor, not "
                                f"{type(input).__name__}")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise errors.value("align_corners option can only be set with the interpolating modes: "
                               "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    nd = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise errors.value("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise errors.value("either size or scale_factor should be defined")
    in_sp = list(input.shape[2:])
    if size is not None:
        if isinstance(size, (list, tuple)) and len(size) != nd:
            raise errors.value(f"Input and output must have the same number of spatial dimensions, but got input with "
                               f"spatial dimensions of {in_sp} and output size of {size}. Please provide input "
                               f"tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                               f"format.")
        out_sp = [int(v) for v in (size if isinstance(size, (list, tuple)) else [size] * nd)]
        scales = [None] * nd
    else:
        if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != nd:
            raise errors.value(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                               f"input with spatial dimensions of {in_sp} and scale_factor of shape {scale_factor}. "
                               f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                               f"(s1, s2, ...,sK) format.")
        scales = [float(v) for v in (scale_factor if isinstance(scale_factor, (list, tuple)) else [scale_factor] * nd)]
        out_sp = [int(math.floor(float(in_sp[i]) * scales[i])) for i in range(nd)]
        if recompute_scale_factor:
            scales = [None] * nd
    if antialias:
        raise _not_implemented("F.interpolate(antialias=True) is not implemented in gradcli")
    if mode == "bilinear" and nd != 2:
        raise _not_implemented(f"Got {input.dim()}D input, but bilinear mode needs 4D input")
    if mode == "linear" and nd != 1:
        raise _not_implemented(f"Got {input.dim()}D input, but linear mode needs 3D input")
    if mode not in _MODES:
        if mode in ("bicubic", "trilinear", "area"):
            raise _not_implemented(f"F.interpolate(mode='{mode}') is not implemented in gradcli")
        raise _not_implemented(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
                                     f"for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                     f"nearest-exact (got {mode})")
    if nd not in (1, 2):
        raise _not_implemented(f"F.interpolate of {input.dim()}-d input is not implemented in gradcli (3-d and "
                                     f"4-d inputs are)")
    if any(v <= 0 for v in out_sp):
        raise errors.runtime(f"Input and output sizes should be greater than 0, but got input ({', '.join(f'{a}' for a in in_sp)}) and output ({', '.join(f'{a}' for a in out_sp)})")
    check_shape(tuple(input.shape[:2]) + tuple(out_sp))
    k = {"mode": mode, "out_sp": tuple(out_sp), "scales": tuple(scales), "align_corners": bool(align_corners)}
    return _record_forward(input, k)


def _deprecated(name):
    import warnings  # noqa: PLC0415
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", UserWarning,
                  stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


class Upsample(Module):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


NAMES = ("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d")
for _n in NAMES:
    globals()[_n].__module__ = "torch.nn.modules.upsampling"
