"""F.affine_grid (2-d and 3-d) and F.grid_sample (2-d: bilinear and nearest; padding zeros, border, reflection)
as ATen's CPU kernels compute them (GridSamplerKernel.cpp, AffineGridGenerator.cpp). affine_grid is the base grid of
linspace(-1, 1) coordinates (scaled by (n - 1) / n without align_corners) times theta^T, one batched product
(AffineGridGeneratorBackward0: base^T @ grad). grid_sample unnormalises each grid coordinate, clips or
reflects it as the padding mode says, and reads the input there (GridSampler2DBackward0: the input's gradient
scattered to the corners, the grid's from the corners' differences; its own gradient, torch's
GridSampler2DBackwardBackward0, is not carried: the gradients come back without a graph)."""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes, errors
from ..autograd_modes import no_grad
from ..function import Function, record
from ..limits import check_shape
from ..ops import elementwise_common as EC
from ..ops import words
from ..ops.linalg import bmm
from ..ops import shape as S
from ..tensor import Tensor, wrap

__all__ = ["affine_grid", "grid_sample", "AffineGridGeneratorBackward0", "GridSampler2DBackward0"]

_DEFAULT_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                    "grid_sample for details.")


# ---------------------------------------------------------------------------- affine_grid

def _linspace(n, dt, align_corners):
    """ATen's linspace_from_neg_one: linspace(-1, 1, n), times (n - 1) then divided by n without align_corners."""
    from ..factory import linspace  # noqa: PLC0415
    if n <= 1:
        return np.zeros(1, dt.np)
    r = linspace(-1, 1, n, dtype=dt)._data
    if not align_corners:
        r = (r * dt.np.type(n - 1)) / dt.np.type(n)
    return r


def _base_grid(n, spatial, dt, align_corners):
    """make_base_grid_4D/5D: (N, *spatial, nd + 1), the coordinates x (the last dim), y, (z), then 1."""
    nd = len(spatial)
    base = np.empty((n,) + tuple(spatial) + (nd + 1,), dt.np)
    for i, size in enumerate(reversed(spatial)):
        base[..., i] = _linspace(size, dt, align_corners).reshape((-1,) + (1,) * i)
    base[..., nd] = 1
    return base


class AffineGridGeneratorBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = staticmethod(words.fixed("the base grid's coordinates (x, y, 1) times the incoming gradient"))
    replay = staticmethod(lambda xs, kw, outs: [
        np.matmul(kw["base"].astype(np.float64).reshape(xs[0].shape[0], -1, xs[0].shape[2]),
                  np.swapaxes(xs[0], 1, 2)).reshape(outs[0])])

    def backward(self, g):
        base = self._kw["base"]
        n, k = base.shape[0], base.shape[-1]
        b = wrap(np.ascontiguousarray(base.reshape(n, -1, k).transpose(0, 2, 1)), g.dtype)
        return (S.transpose(bmm(b, S.reshape(g, (n, -1, k - 1))), 1, 2),)


def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, UserWarning, stacklevel=3)
        align_corners = False
    if not theta.is_floating_point():
        raise errors.value(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise errors.value(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                               f"{theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise errors.value(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                               f"{theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", UserWarning, stacklevel=3)
    elif min(size) <= 0:
        raise errors.value(f"Expected non-zero, positive output size. Got {size}")
    n = int(size[0])
    spatial = tuple(int(v) for v in spatial)
    k = len(spatial) + 1
    if theta.shape[0] != n:
        raise errors.runtime(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k}] but got: "
                             f"[{theta.shape[0]}, {k}].")
    check_shape((n,) + spatial + (k,))  # the base grid's size comes from the script
    dt = theta.dtype
    base = _base_grid(n, spatial, dt, align_corners)
    with no_grad():
        out = bmm(wrap(base.reshape(n, -1, k), dt), S.transpose(theta.detach(), 1, 2))
    return record(AffineGridGeneratorBackward0, (theta,),
                  wrap(np.ascontiguousarray(out._data.reshape((n,) + spatial + (k - 1,))), dt), {"base": base})


# ---------------------------------------------------------------------------- grid_sample

def _clip(v, size):
    """clip_coordinates_set_grad: the coordinate clipped to [0, size - 1] and its derivative."""
    hi = v.dtype.type(size - 1)
    return np.where(v <= 0, 0, np.where(v >= hi, hi, v)).astype(v.dtype), ((v > 0) & (v < hi)).astype(v.dtype)


def _reflect(v, twice_low, twice_high):
    """reflect_coordinates_set_grad: the coordinate reflected into [low, high] and its derivative (+-1)."""
    t = v.dtype.type
    if twice_low == twice_high:
        return np.zeros_like(v), np.zeros_like(v)
    lo = t(twice_low / 2)
    span = t((twice_high - twice_low) / 2)
    v = v - lo
    mult = np.where(v < 0, t(-1), t(1))
    v = np.abs(v)
    extra = np.fmod(v, span)
    flips = np.floor(v / span)
    even = np.fmod(flips, 2) == 0
    return np.where(even, extra + lo, span - extra + lo).astype(v.dtype), np.where(even, mult, -mult)


def _fma(a, b, c):
    """a * b + c rounded once: GCC contracts the vectorised kernel's multiply and add into an FMA (AVX2)."""
    from ..rng_math import fma32, fma64  # noqa: PLC0415
    a, b, c = np.broadcast_arrays(a, b, c)
    return fma32(a, b, c) if a.dtype == np.float32 else fma64(a, b, c)


def _source(coord, size, padding, align_corners):
    """grid_sampler_compute_source_index_set_grad: the unnormalised coordinate and its derivative."""
    t = coord.dtype.type
    if align_corners:
        scale = t(size - 1) / t(2)
        v = (coord + t(1)) * scale
    else:
        scale = t(size) / t(2)
        v = _fma(coord + t(1), scale, t(-0.5))
    grad = np.full_like(v, scale)
    if padding == 1:
        v, d = _clip(v, size)
        grad = grad * d
    elif padding == 2:
        v, dr = _reflect(v, 0, 2 * (size - 1)) if align_corners else _reflect(v, -1, 2 * size - 1)
        v, d = _clip(v, size)
        grad = np.where(d == 0, t(0), grad * dr)  # ATen ands the clip's mask in: +0 where clipped, never -0
    return v, grad


def _corners(x, grid, padding, align_corners):
    n, c, h, w = x.shape
    ix, gxm = _source(grid[..., 0], w, padding, align_corners)
    iy, gym = _source(grid[..., 1], h, padding, align_corners)
    return ix, iy, gxm, gym


def _read(x, yy, xx):
    """x[n, :, yy, xx] for each grid point, 0 outside the input: (N, C, Ho, Wo), and the mask."""
    n, c, h, w = x.shape
    inside = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)  # (NaN: outside)
    yc = np.where(inside, yy, 0).astype(np.int64)
    xc = np.where(inside, xx, 0).astype(np.int64)
    vals = x[np.arange(n)[:, None, None], :, yc, xc]  # (N, Ho, Wo, C)
    vals = np.where(inside[..., None], vals, 0).astype(x.dtype)
    return np.moveaxis(vals, -1, 1), inside, yc, xc


def _bilinear_weights(ix, iy):
    t = ix.dtype.type
    x0, y0 = np.floor(ix), np.floor(iy)
    wx, wy = ix - x0, iy - y0
    e, s = t(1) - wx, t(1) - wy
    return x0, y0, wx, wy, e, s


def _sample(x, grid, mode, padding, align_corners):
    ix, iy, _, _ = _corners(x, grid, padding, align_corners)
    if mode == 1:
        v, _, _, _ = _read(x, np.rint(iy), np.rint(ix))
        return v
    x0, y0, wx, wy, e, s = _bilinear_weights(ix, iy)
    nw = _read(x, y0, x0)[0]
    ne = _read(x, y0, x0 + 1)[0]
    sw = _read(x, y0 + 1, x0)[0]
    se = _read(x, y0 + 1, x0 + 1)[0]
    # ((nw * w_nw + ne * w_ne) + sw * w_sw) + se * w_se, each add fused with the product after it (as GCC builds it)
    out = _fma(ne, (s * wx)[:, None], nw * (s * e)[:, None])
    out = _fma(sw, (wy * e)[:, None], out)
    return _fma(se, (wy * wx)[:, None], out)


def _scatter(acc, vals, inside, yc, xc):
    """acc[n, :, yc, xc] += vals (N, C, Ho, Wo) where inside, in the grid's order."""
    n = acc.shape[0]
    nn_ = np.broadcast_to(np.arange(n)[:, None, None], yc.shape)[inside]
    v = np.moveaxis(vals, 1, -1)[inside]  # (K, C)
    flat = acc.transpose(0, 2, 3, 1)  # a view: (N, H, W, C)
    np.add.at(flat, (nn_, yc[inside], xc[inside]), v)


def _sample_backward(g, x, grid, mode, padding, align_corners):
    ix, iy, gxm, gym = _corners(x, grid, padding, align_corners)
    gin = np.zeros_like(x)
    if mode == 1:
        _, inside, yc, xc = _read(x, np.rint(iy), np.rint(ix))
        _scatter(gin, g, inside, yc, xc)
        return gin, np.zeros_like(grid)
    x0, y0, wx, wy, e, s = _bilinear_weights(ix, iy)
    vals = {}
    for key, dy, dx, wgt in (("nw", 0, 0, s * e), ("ne", 0, 1, s * wx), ("sw", 1, 0, wy * e), ("se", 1, 1, wy * wx)):
        v, inside, yc, xc = _read(x, y0 + dy, x0 + dx)
        vals[key] = v
        _scatter(gin, g * wgt[:, None], inside, yc, xc)
    gx = (((vals["ne"] - vals["nw"]) * s[:, None] + (vals["se"] - vals["sw"]) * wy[:, None]) * g).sum(axis=1)
    gy = (((vals["sw"] - vals["nw"]) * e[:, None] + (vals["se"] - vals["ne"]) * wx[:, None]) * g).sum(axis=1)
    return gin, np.stack([gx * gxm, gy * gym], axis=-1)


class GridSampler2DBackward0(Function):
    __slots__ = ()
    save_inputs = True
    explain = staticmethod(words.fixed("the interpolation weights at each sampled corner (input); the corners' "
                                       "differences times the unnormalising scale (grid)"))
    replay = staticmethod(lambda xs, kw, outs: [_sample(np.asarray(xs[0], np.float64), np.asarray(xs[1], np.float64),
                                                        kw["mode"], kw["padding"], kw["align_corners"])])

    def backward(self, g):
        x, grid = self.saved
        k = self._kw
        gin, ggrid = _sample_backward(g._data, x._data, grid._data, k["mode"], k["padding"], k["align_corners"])
        return (wrap(gin.astype(x.dtype.np), x.dtype) if self.next_functions[0][0] else None,
                wrap(ggrid.astype(grid.dtype.np), grid.dtype) if self.next_functions[1][0] else None)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise errors.value(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                           f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise errors.value(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                           f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, UserWarning, stacklevel=3)
        align_corners = False
    if not isinstance(input, Tensor) or not isinstance(grid, Tensor):
        raise errors.type_error("grid_sampler(): argument 'input' and 'grid' must be Tensor")
    nd = input.dim() - 2
    if grid.shape[-1] != nd:
        raise errors.runtime(f"grid_sampler(): expected grid to have size {nd} in last dimension, but got grid with "
                             f"sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise errors.runtime(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                             f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.dtype is not grid.dtype:
        raise errors.runtime(f"expected scalar type {EC.c10_name(input.dtype)} but found {EC.c10_name(grid.dtype)}")
    for d in range(2, input.dim()):
        if input.shape[d] == 0:
            raise errors.runtime(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                                 f"has sizes {list(input.shape)} with dimension {d} being empty")
    if nd != 2 or mode == "bicubic" or input.dtype not in (dtypes.float32, dtypes.float64):
        raise errors.runtime(f"gradcli: grid_sample supports 4-d float inputs with mode 'bilinear' or 'nearest' "
                             f"(got a {input.dim()}-d {input.dtype} input, mode '{mode}')")
    check_shape(tuple(input.shape[:2]) + tuple(grid.shape[1:3]))
    m = ("bilinear", "nearest").index(mode)
    p = ("zeros", "border", "reflection").index(padding_mode)
    out = _sample(input._data, grid._data, m, p, align_corners)
    return record(GridSampler2DBackward0, (input, grid), wrap(np.ascontiguousarray(out, input.dtype.np), input.dtype),
                  {"mode": m, "padding": p, "align_corners": bool(align_corners)})
