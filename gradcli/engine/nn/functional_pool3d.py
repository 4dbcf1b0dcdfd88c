"""3-d pooling: F.max_pool3d and F.avg_pool3d (and their torch.X), on the window pooling of
functional_conv.py (the index map over three spatial dims), with ATen's pool3d_shape_check and
pooling_output_shape checks in their order and words. The nodes are torch's MaxPool3DWithIndicesBackward0
and AvgPool3DBackward0 (the 2-d nodes' backward: the scatter of the gradient at the argmax, or over each
window divided by its divisor). F.adaptive_avg_pool3d/adaptive_max_pool3d are functional_pool.py's N-d
adaptive pools (AdaptiveAvgPool3DBackward0, AdaptiveMaxPool3DBackward0)."""
from __future__ import annotations

from .. import dtypes, errors
from ..ops.elementwise_common import kernel_error
from . import functional_conv as FC
from . import functional_pool as _pool
from . import window_checks


class MaxPool3DWithIndicesBackwardBackward0(FC.MaxPool2DWithIndicesBackwardBackward0):
    __slots__ = ()


class MaxPool3DWithIndicesBackward0(FC.MaxPool2DWithIndicesBackward0):
    __slots__ = ()
    double = MaxPool3DWithIndicesBackwardBackward0


class AvgPool3DBackwardBackward0(FC.AvgPool2DBackwardBackward0):
    __slots__ = ()


class AvgPool3DBackward0(FC.AvgPool2DBackward0):
    __slots__ = ()
    double = AvgPool3DBackwardBackward0


AvgPool3DBackwardBackward0.pool = AvgPool3DBackward0


def _args(input, kernel_size, stride, padding, dilation):
    """The window's arguments as torch reads them, then pooling_output_shape's and pool3d_shape_check's
    checks of the window (before the output size's)."""
    if input.dim() not in (4, 5):
        raise errors.runtime("non-empty 4D or 5D (batch mode) tensor expected for input")
    k = FC.ntuple(kernel_size, 3)
    s = FC.ntuple(stride, 3) if stride is not None and stride != [] and stride != () else k
    p = FC.ntuple(padding, 3)
    d = FC.ntuple(dilation, 3)
    window_checks.pool_output(k, s, p, d)
    if min(k) <= 0:
        raise errors.runtime(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise errors.runtime(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if min(d) <= 0:
        raise errors.runtime(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                             f"dilationW: {d[2]}")
    return k, s, p, d


def _out(input, k, s, p, d, ceil_mode):
    spatial = tuple(input.shape[-3:])
    out_sp = tuple(FC.out_size(spatial[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(3))
    if min(out_sp) < 1:
        c = input.shape[-4]
        raise errors.runtime(f"Given input size: ({'x'.join(map(str, (c,) + spatial))}). Calculated output size: "
                             f"({'x'.join(map(str, (c,) + out_sp))}). Output size is too small")
    return out_sp


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    k, s, p, d = _args(input, kernel_size, stride, padding, dilation)
    out_sp = _out(input, k, s, p, d, ceil_mode)
    return FC.max_pool_windows(input, k, s, p, d, out_sp, return_indices, MaxPool3DWithIndicesBackward0)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    k, s, p, d = _args(input, kernel_size, stride, padding, 1)
    spatial = tuple(input.shape[-3:])
    if any(spatial[i] + 2 * p[i] < k[i] for i in range(3)):  # avg_pool3d's own check, before the output's
        raise errors.runtime(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel "
                             f"size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    out_sp = _out(input, k, s, p, d, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise errors.runtime("divisor must be not zero")
    if input.dtype is dtypes.float16:  # ATen's avg_pool3d kernel has no Half
        raise kernel_error("avg_pool3d_out_frame", input.dtype)
    return FC.avg_pool_windows(input, k, s, p, out_sp, count_include_pad, divisor_override, AvgPool3DBackward0)


def adaptive_avg_pool3d(input, output_size):
    return _pool.adaptive_avg_pool_nd(input, output_size, "adaptive_avg_pool3d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _pool.adaptive_max_pool_nd(input, output_size, return_indices, "adaptive_max_pool3d")
