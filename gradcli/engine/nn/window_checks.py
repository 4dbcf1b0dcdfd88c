"""ATen's checks of the window arguments (stride, padding, dilation, kernel size) of convolutions, pools,
unfold and fold, with its messages and in its order: gradcli divided by a zero stride (Python's
ZeroDivisionError at the script's line), read a negative padding as NumPy's negative indices (a result
torch never gives) and slid windows a dilation of 0 apart.

Convolutions (``_convolution``'s check_shape_forward): groups, then negative padding, negative
output_padding, non-positive stride and negative dilation, before the shapes; a dilation of 0 after the
shapes (``dilation should be greater than zero, but got [0, 0]``; the transposed kernels' own words).
Pools (pooling_output_shape, then pool2d_shape_check); max_pool1d's own checks where ATen takes its
own kernel; unfold (im2col_shape_check) and fold (col2im_shape_check)."""
from __future__ import annotations

from .. import errors


def conv_params(padding, stride, dilation, output_padding=None):
    """check_shape_forward's checks before the shapes."""
    if any(p < 0 for p in padding):
        raise errors.runtime("negative padding is not supported")
    if output_padding is not None and any(p < 0 for p in output_padding):
        raise errors.runtime("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise errors.runtime("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise errors.runtime("dilation should be greater than zero")


def conv_dilation(dilation, nd):
    """A dilation of 0, after the shapes: conv1d is ATen's conv2d of height 1 (``[1, 0]``)."""
    if any(d <= 0 for d in dilation):
        shown = (1, *dilation) if nd == 1 else tuple(dilation)
        raise errors.runtime(f"dilation should be greater than zero, but got [{', '.join(map(str, shown))}]")


def conv_transpose_dilation(dilation, nd):
    """slow_conv_transpose{2,3}d_shape_check's dilation (conv_transpose1d is the 2-d kernel's)."""
    if any(d <= 0 for d in dilation):
        shown = (1, *dilation) if nd == 1 else tuple(dilation)
        names = ("depth", "height", "width")[-len(shown):]
        got = ", ".join(f"dilation_{n}: {d}" for n, d in zip(names, shown))
        raise errors.runtime(f"dilation should be greater than zero, but got {got}")


def pool_output(kernel, stride, padding, dilation):
    """pooling_output_shape's checks, height then width."""
    for k, s, p, d in zip(kernel, stride, padding, dilation):
        if s == 0:
            raise errors.runtime("stride should not be zero")
        if p < 0:
            raise errors.runtime(f"pad must be non-negative, but got pad: {p}")
        if p > (d * (k - 1) + 1) // 2:
            raise errors.runtime(f"pad should be at most half of effective kernel size, but got pad={p}, "
                                 f"kernel_size={k} and dilation={d}")


def pool_shape(kernel, stride, dilation):
    """pool2d_shape_check's checks of the window (before the output size's)."""
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise errors.runtime(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if stride[0] <= 0 or stride[1] <= 0:
        raise errors.runtime(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if dilation[0] <= 0 or dilation[1] <= 0:
        raise errors.runtime(f"dilation should be greater than zero, but got dilationH: {dilation[0]} "
                             f"dilationW: {dilation[1]}")


def max_pool1d(kernel, stride, padding, dilation):
    """ATen's check_max_pool1d (its own kernel: no gradient wanted, no indices)."""
    if kernel <= 0:
        raise errors.runtime(f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    if stride <= 0:
        raise errors.runtime(f"max_pool1d() stride must be greater than zero, but got {stride}")
    if padding < 0:
        raise errors.runtime(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise errors.runtime(f"max_pool1d() padding should be at most half of kernel size, but got "
                             f"padding={padding} and kernel_size={kernel}")
    if dilation <= 0:
        raise errors.runtime(f"max_pool1d() dilation must be greater than zero, but got {dilation}")


def _hw(name, pair):
    return f"{name}_height: {pair[0]} {name}_width: {pair[1]}"


# im2col_shape_check and col2im_shape_check test the same four things in two orders.
_WINDOW_CHECKS = {
    "kernel": (1, "kernel size should be greater than zero", "kernel"),
    "dilation": (1, "dilation should be greater than zero", "dilation"),
    "padding": (0, "padding should be non-negative", "pad"),
    "stride": (1, "stride should be greater than zero", "stride"),
}


def _window_checks(order, values):
    for name in order:
        least, message, label = _WINDOW_CHECKS[name]
        pair = values[name]
        if pair[0] < least or pair[1] < least:
            raise errors.runtime(f"{message}, but got {_hw(label, pair)}")


def im2col(kernel, dilation, padding, stride):
    """unfold: im2col_shape_check."""
    _window_checks(("kernel", "dilation", "padding", "stride"),
                   {"kernel": kernel, "dilation": dilation, "padding": padding, "stride": stride})


def col2im(kernel, dilation, padding, stride):
    """fold: col2im_shape_check (stride before dilation before padding)."""
    _window_checks(("kernel", "stride", "dilation", "padding"),
                   {"kernel": kernel, "dilation": dilation, "padding": padding, "stride": stride})


__all__ = ["col2im", "conv_dilation", "conv_params", "conv_transpose_dilation", "im2col", "max_pool1d",
           "pool_output", "pool_shape"]
