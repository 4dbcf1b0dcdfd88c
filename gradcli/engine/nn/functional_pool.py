"""Adaptive average pooling and the 1-d pools as ATen builds them: adaptive_avg_pool2d is a mean over the
last two dims for a 1x1 output (MeanBackward1) and otherwise ATen's kernel (AdaptiveAvgPool2DBackward0):
windows from floor(i*in/out) to ceil((i+1)*in/out), each summed in order in the input's dtype and divided
by its height, then its width; the backward adds grad/kh/kw into each window in output order, and its
own derivative (AdaptiveAvgPool2DBackwardBackward0) pools the incoming gradient again.
adaptive_avg_pool1d and avg_pool1d are the 2-d ops on input.unsqueeze(-2), squeezed (SqueezeBackward1)."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..function import Function, record
from ..limits import check_shape
from ..ops import reduction as R
from ..ops import shape as S
from ..ops import words
from ..tensor import wrap
from ..device import xp_of


def _bounds(n_out, n_in):
    i = np.arange(n_out)
    return (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)


def _pool_array(x, oh, ow):
    """ATen's cpu_adaptive_avg_pool on an array (..., H, W)."""
    xp = xp_of(x)
    H, W = x.shape[-2:]
    hs, he = _bounds(oh, H)
    ws, we = _bounds(ow, W)
    lead = x.shape[:-2]
    out = xp.empty(lead + (oh, ow), dtype=x.dtype)
    t = x.dtype.type
    for i in range(oh):
        for j in range(ow):
            win = x[..., hs[i]:he[i], ws[j]:we[j]].reshape(lead + (-1,))
            total = xp.cumsum(win, axis=-1, dtype=x.dtype)[..., -1]  # `sum += v` in order
            out[..., i, j] = total / t(he[i] - hs[i]) / t(we[j] - ws[j])
    return out


def _unpool_array(g, in_hw):
    """ATen's cpu_adaptive_avg_pool_backward: grad / kh / kw added into each window, in output order."""
    xp = xp_of(g)
    oh, ow = g.shape[-2:]
    H, W = in_hw
    hs, he = _bounds(oh, H)
    ws, we = _bounds(ow, W)
    out = xp.zeros(g.shape[:-2] + (H, W), dtype=g.dtype)
    t = g.dtype.type
    for i in range(oh):
        for j in range(ow):
            delta = g[..., i, j] / t(he[i] - hs[i]) / t(we[j] - ws[j])
            out[..., hs[i]:he[i], ws[j]:we[j]] += delta[..., None, None]
    return out


def _replay_pool(xs, kw, outs):
    return [_pool_array(np.asarray(xs[0], dtype=np.float64), *outs[0][-2:])]


class AdaptiveAvgPool2DBackward0(Function):
    __slots__ = ()
    save_inputs = True  # torch saves self for _adaptive_avg_pool2d_backward
    replay = staticmethod(_replay_pool)
    explain = staticmethod(words.fixed("1 / (the window's height * width) at each element of its windows"))

    def backward(self, g):
        return (_adaptive_backward(g, self._kw["in_shape"], self.saved[0]),)


class AdaptiveAvgPool2DBackwardBackward0(Function):
    """The gradient of adaptive_avg_pool2d's backward: the incoming gradient pooled again (for
    grad_output), zeros for the input (torch's derivatives.yaml)."""
    __slots__ = ()
    explain = staticmethod(words.fixed("the adaptive average pool of the incoming gradient"))
    replay = staticmethod(lambda xs, kw, outs: [_unpool_array(np.asarray(xs[0], dtype=np.float64),
                                                              kw["in_shape"][-2:])])

    def backward(self, gg):
        g_out = adaptive_avg_pool2d(gg, tuple(self._kw["out_hw"])) if self.next_functions[0][0] else None
        from ..factory import zeros  # noqa: PLC0415
        g_self = zeros(self._kw["in_shape"], dtype=gg.dtype, device=gg.device) if self.next_functions[1][0] else None
        return g_out, g_self


def _adaptive_backward(g, in_shape, x):
    arr = _unpool_array(g._data, in_shape[-2:])
    return record(AdaptiveAvgPool2DBackwardBackward0, (g, x), wrap(arr, g.dtype),
                  {"in_shape": in_shape, "out_hw": tuple(g.shape[-2:])})


def _output_size(input, output_size, n):
    """F's _list_with_default: an int stays, a sequence's None takes the input's size there."""
    if isinstance(output_size, int):
        return (output_size,) * n
    out = tuple(output_size)
    if input.dim() <= len(out):
        raise errors.value(f"Input dimension should be at least {len(out) + 1}")
    return tuple(d if v is None else v for v, d in zip(out, tuple(input.shape)[-len(out):]))


def adaptive_avg_pool2d(input, output_size):
    out = _output_size(input, output_size, 2)
    if len(out) != 2:
        raise errors.runtime("adaptive_avg_pool2d: output_size must be 2")
    if input.dim() not in (3, 4):
        raise errors.runtime(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise errors.runtime(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                                 f"dimensions, but input has sizes {list(input.shape)} with dimension {d} being empty")
    check_shape(tuple(input.shape[:-2]) + tuple(out))
    if out[0] == 1 and out[1] == 1:  # ATen: the mean over the last two dims
        return R.mean(input, (-1, -2), keepdim=True)
    arr = _pool_array(input._data, int(out[0]), int(out[1]))
    return record(AdaptiveAvgPool2DBackward0, (input,), wrap(arr, input.dtype),
                  {"in_shape": tuple(input.shape)})


def adaptive_avg_pool1d(input, output_size):
    out = output_size if isinstance(output_size, int) else tuple(output_size)
    if not isinstance(out, int) and len(out) != 1:
        raise errors.runtime("adaptive_avg_pool1d: output_size must be 1")
    if input.dim() not in (2, 3):
        raise errors.runtime(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                             f"'self' (while checking arguments for adaptive_avg_pool1d)")
    n = out if isinstance(out, int) else out[0]
    return S.squeeze(adaptive_avg_pool2d(S.unsqueeze(input, -2), (1, n)), -2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    from .functional_conv import avg_pool2d  # noqa: PLC0415

    def one(v, name):
        v = v if isinstance(v, int) else tuple(v)
        if not isinstance(v, int) and len(v) != 1:
            raise errors.runtime(f"avg_pool1d() argument '{name}' should contain one int (got {len(v)})")
        return v if isinstance(v, int) else v[0]
    if input.dim() not in (2, 3):
        raise errors.runtime(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                             f"'self' (while checking arguments for avg_pool1d)")
    k = one(kernel_size, "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else one(stride, "stride")
    p = one(padding, "padding")
    return S.squeeze(avg_pool2d(S.unsqueeze(input, -2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad), -2)


# ---------------------------------------------------------------------------- adaptive max pooling

def _max_pool_arrays(x, oh, ow):
    """ATen's cpu_adaptive_max_pool on (..., H, W): each window's max and its flat index in the (H, W)
    plane; scanning the window in order, a larger value or any NaN takes the place (so ties keep the
    first, and the last NaN wins)."""
    xp = xp_of(x)
    H, W = x.shape[-2:]
    hs, he = _bounds(oh, H)
    ws, we = _bounds(ow, W)
    lead = x.shape[:-2]
    out = xp.empty(lead + (oh, ow), dtype=x.dtype)
    idx = xp.empty(lead + (oh, ow), dtype=xp.int64)
    for i in range(oh):
        for j in range(ow):
            win = x[..., hs[i]:he[i], ws[j]:we[j]].reshape(lead + (-1,))
            k = win.shape[-1]
            nan = xp.isnan(win)
            last_nan = (k - 1) - xp.argmax(nan[..., ::-1], axis=-1)
            first_max = xp.argmax(xp.where(nan, -xp.inf, win), axis=-1)
            pick = xp.where(nan.any(axis=-1), last_nan, first_max)
            kw = we[j] - ws[j]
            idx[..., i, j] = (hs[i] + pick // kw) * W + ws[j] + pick % kw
            out[..., i, j] = xp.take_along_axis(win, pick[..., None], axis=-1)[..., 0]
    return out, idx


def _scatter_max(g, idx, in_hw):
    """max pooling's backward: each output's gradient added at its input's index, in output order."""
    xp = xp_of(g)
    lead = g.shape[:-2]
    rows = int(np.prod(lead)) if lead else 1
    flat_g = g.reshape(rows, -1)
    flat_i = idx.reshape(rows, -1)
    out = xp.zeros((rows, in_hw[0] * in_hw[1]), dtype=g.dtype)
    for r in range(rows):
        xp.add.at(out[r], flat_i[r], flat_g[r])
    return out.reshape(lead + tuple(in_hw))


class AdaptiveMaxPool2DBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = staticmethod(words.fixed("1 at each window's maximum (summed where windows share it), else 0"))
    replay = staticmethod(lambda xs, kw, outs: [_max_pool_arrays(np.asarray(xs[0], dtype=np.float64),
                                                                 *outs[0][-2:])[0]])

    def backward(self, g):
        k = self._kw
        arr = _scatter_max(g._data, k["indices"], k["in_shape"][-2:])
        return (record(AdaptiveMaxPool2DBackwardBackward0, (g,), wrap(arr, g.dtype),
                       {"indices": k["indices"], "in_shape": k["in_shape"]}),)


class AdaptiveMaxPool2DBackwardBackward0(Function):
    """The gradient of adaptive max pooling's backward: the incoming gradient read at the indices."""
    __slots__ = ()
    explain = staticmethod(words.fixed("the incoming gradient at each window's maximum"))
    replay = staticmethod(lambda xs, kw, outs: [_scatter_max(np.asarray(xs[0], dtype=np.float64), kw["indices"],
                                                             kw["in_shape"][-2:])])

    def backward(self, gg):
        from .. import dtypes  # noqa: PLC0415
        from ..ops.gather_scatter import gather  # noqa: PLC0415
        idx = self._kw["indices"]
        lead = tuple(gg.shape[:-2])
        flat = S.reshape(gg, lead + (-1,))
        picked = gather(flat, -1, wrap(idx.reshape(lead + (-1,)), dtypes.int64))
        return (S.reshape(picked, idx.shape),)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = _output_size(input, output_size, 2)
    if len(out) != 2:
        raise errors.runtime("adaptive_max_pool2d: internal error: output_size.size() must be 2")
    if input.dim() not in (3, 4):
        raise errors.runtime(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise errors.runtime(f"adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                                 f"dimensions, but input has sizes {list(input.shape)} with dimension {d} being empty")
    check_shape(tuple(input.shape[:-2]) + tuple(out))
    arr, idx = _max_pool_arrays(input._data, int(out[0]), int(out[1]))
    result = record(AdaptiveMaxPool2DBackward0, (input,), wrap(arr, input.dtype),
                    {"indices": idx, "in_shape": tuple(input.shape)})
    if return_indices:
        from .. import dtypes  # noqa: PLC0415
        return result, wrap(idx, dtypes.int64)
    return result


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = output_size if isinstance(output_size, int) else tuple(output_size)
    if input.dim() not in (2, 3):
        raise errors.runtime(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                             f"'self' (while checking arguments for adaptive_max_pool1d)")
    n = out if isinstance(out, int) else out[0]
    r = adaptive_max_pool2d(S.unsqueeze(input, -2), (1, n), return_indices)
    if return_indices:
        return S.squeeze(r[0], -2), S.squeeze(r[1], -2)
    return S.squeeze(r, -2)


# ---------------------------------------------------------------------------- power-average pooling

def _lp_finish(out, scale, norm_type):
    """torch's (sign(out) * relu(abs(out))).mul(k).pow(1 / p), op by op (its graph too)."""
    from ..ops import arithmetic as AR  # noqa: PLC0415
    from ..ops import unary_math as UM  # noqa: PLC0415
    from .functional import relu  # noqa: PLC0415
    return AR.pow(AR.mul(AR.mul(UM.sign(out), relu(UM.abs(out))), scale), 1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """F.lp_pool2d as torch/nn/functional.py composes it (max_pool2d of |x| for an infinite norm)."""
    from ..ops import arithmetic as AR  # noqa: PLC0415
    from ..ops import unary_math as UM  # noqa: PLC0415
    from .functional_conv import avg_pool2d, max_pool2d  # noqa: PLC0415
    kw, kh = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size, kernel_size)
    if norm_type == float("inf"):
        return max_pool2d(UM.abs(input), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return AR.neg(max_pool2d(AR.neg(UM.abs(input)), kernel_size, stride, 0, 1, ceil_mode))
    out = avg_pool2d(AR.pow(input, norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, kw * kh, norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    from ..ops import arithmetic as AR  # noqa: PLC0415
    from ..ops import unary_math as UM  # noqa: PLC0415
    from .functional_conv import max_pool1d  # noqa: PLC0415
    if norm_type == float("inf"):
        return max_pool1d(UM.abs(input), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return AR.neg(max_pool1d(AR.neg(UM.abs(input)), kernel_size, stride, 0, 1, ceil_mode))
    out = avg_pool1d(AR.pow(input, norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, kernel_size, norm_type)


# ---------------------------------------------------------------------------- local response norm

def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """F.local_response_norm as torch composes it: input / (k + alpha * mean of the squares over `size`
    neighbouring channels) ** beta. For 4-d and larger inputs torch averages with avg_pool3d over a
    (size, 1, 1) window; here avg_pool2d over a (size, 1) window of the same view gives the same sums
    (the values are torch's; the nodes under the division are AvgPool2DBackward0, not AvgPool3DBackward0)."""
    from ..ops import arithmetic as AR  # noqa: PLC0415
    from .functional import pad  # noqa: PLC0415
    from .functional_conv import avg_pool2d  # noqa: PLC0415
    dim = input.dim()
    if dim < 3:
        raise errors.value(f"Expected 3D or higher dimensionality                          input (got {dim} "
                           f"dimensions)")
    if input.numel() == 0:
        return input
    div = AR.mul(input, input)
    if dim == 3:
        div = S.unsqueeze(div, 1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = S.squeeze(avg_pool2d(div, (size, 1), stride=1), 1)
    else:
        sizes = tuple(input.shape)
        div = S.reshape(div, (sizes[0], 1, sizes[1], -1))
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = S.reshape(S.squeeze(avg_pool2d(div, (size, 1), stride=1), 1), sizes)
    div = AR.pow(AR.add(AR.mul(div, alpha), k), beta)
    return AR.div(input, div)
