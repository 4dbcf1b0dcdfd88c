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
from .functional_conv import max_double_backward
from ..tensor import wrap
from ..device import xp_of


def _bounds(n_out, n_in):
    i = np.arange(n_out)
    return (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)


def _window(bounds, pos):
    """The slices of the window at output position pos (one per spatial dim) and its sizes."""
    sl = tuple(slice(int(b[0][i]), int(b[1][i])) for b, i in zip(bounds, pos))
    return sl, tuple(s.stop - s.start for s in sl)


def _pool_array(x, out_sp):
    """ATen's cpu_adaptive_avg_pool(2d/3d) on an array (..., *spatial): each window summed in order, then
    divided by its size in each dim in turn."""
    xp = xp_of(x)
    nd = len(out_sp)
    bounds = [_bounds(o, n) for o, n in zip(out_sp, x.shape[-nd:])]
    lead = x.shape[:-nd]
    out = xp.empty(lead + tuple(out_sp), dtype=x.dtype)
    t = x.dtype.type
    for pos in np.ndindex(*out_sp):
        sl, ks = _window(bounds, pos)
        win = x[(Ellipsis,) + sl].reshape(lead + (-1,))
        v = xp.cumsum(win, axis=-1, dtype=x.dtype)[..., -1]  # `sum += v` in order
        for k in ks:
            v = v / t(k)
        out[(Ellipsis,) + pos] = v
    return out


def _unpool_array(g, in_sp):
    """ATen's cpu_adaptive_avg_pool(2d/3d)_backward: grad / kd / kh / kw added into each window, in output
    order."""
    xp = xp_of(g)
    nd = len(in_sp)
    out_sp = g.shape[-nd:]
    bounds = [_bounds(o, n) for o, n in zip(out_sp, in_sp)]
    out = xp.zeros(g.shape[:-nd] + tuple(in_sp), dtype=g.dtype)
    t = g.dtype.type
    for pos in np.ndindex(*out_sp):
        sl, ks = _window(bounds, pos)
        delta = g[(Ellipsis,) + pos]
        for k in ks:
            delta = delta / t(k)
        out[(Ellipsis,) + sl] += delta[(Ellipsis,) + (None,) * nd]
    return out


def _replay_pool(nd):
    return lambda xs, kw, outs: [_pool_array(np.asarray(xs[0], dtype=np.float64), outs[0][-nd:])]


class AdaptiveAvgPool2DBackward0(Function):
    __slots__ = ()
    save_inputs = True  # torch saves self for _adaptive_avg_pool2d_backward
    replay = staticmethod(_replay_pool(2))
    explain = staticmethod(words.fixed("1 / (the window's height * width) at each element of its windows"))
    nd = 2  # the spatial dims (AdaptiveAvgPool3DBackward0: 3)

    def backward(self, g):
        return (_adaptive_backward(g, self._kw["in_shape"], self.saved[0], self.nd),)


class AdaptiveAvgPool2DBackwardBackward0(Function):
    """The gradient of adaptive_avg_pool2d's backward: the incoming gradient pooled again (for
    grad_output), zeros for the input (torch's derivatives.yaml)."""
    __slots__ = ()
    explain = staticmethod(words.fixed("the adaptive average pool of the incoming gradient"))
    replay = staticmethod(lambda xs, kw, outs: [_unpool_array(np.asarray(xs[0], dtype=np.float64),
                                                              kw["in_shape"][-len(kw["out_hw"]):])])

    def backward(self, gg):
        out = tuple(self._kw["out_hw"])
        g_out = (adaptive_avg_pool_nd(gg, out, f"adaptive_avg_pool{len(out)}d") if self.next_functions[0][0]
                 else None)
        from ..factory import zeros  # noqa: PLC0415
        g_self = zeros(self._kw["in_shape"], dtype=gg.dtype, device=gg.device) if self.next_functions[1][0] else None
        return g_out, g_self


class AdaptiveAvgPool3DBackward0(AdaptiveAvgPool2DBackward0):
    __slots__ = ()
    explain = staticmethod(words.fixed("1 / (the window's depth * height * width) at each element of its windows"))
    replay = staticmethod(_replay_pool(3))
    nd = 3


class AdaptiveAvgPool3DBackwardBackward0(AdaptiveAvgPool2DBackwardBackward0):
    __slots__ = ()


_AVG_BACKWARD = {2: AdaptiveAvgPool2DBackwardBackward0, 3: AdaptiveAvgPool3DBackwardBackward0}


def _adaptive_backward(g, in_shape, x, nd):
    arr = _unpool_array(g._data, in_shape[-nd:])
    return record(_AVG_BACKWARD[nd], (g, x), wrap(arr, g.dtype),
                  {"in_shape": in_shape, "out_hw": tuple(g.shape[-nd:])})


def _output_size(input, output_size, n):
    """F's _list_with_default: an int stays, a sequence's None takes the input's size there."""
    if isinstance(output_size, int):
        return (output_size,) * n
    out = tuple(output_size)
    if input.dim() <= len(out):
        raise errors.value(f"Input dimension should be at least {len(out) + 1}")
    return tuple(d if v is None else v for v, d in zip(out, tuple(input.shape)[-len(out):]))


def _adaptive_checks(input, out, name, nd, got):
    """The checks of ATen's adaptive_{avg,max}_pool{2,3}d, in its order and words (got: how the max pools
    write the input's sizes)."""
    if input.dim() not in (nd + 1, nd + 2):
        raise errors.runtime(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got{got} {list(input.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise errors.runtime(f"{name}(): Expected input to have non-zero size for non-batch "
                                 f"dimensions, but input has sizes {list(input.shape)} with dimension {d} being empty")
    check_shape(tuple(input.shape[:-nd]) + tuple(out))


def adaptive_avg_pool_nd(input, output_size, name):
    """adaptive_avg_pool2d/3d: the mean over the spatial dims for an output of ones (ATen's shortcut, its
    MeanBackward1), else ATen's kernel."""
    nd = int(name[-2])
    out = _output_size(input, output_size, nd)
    if len(out) != nd:
        raise errors.runtime(f"{name}: output_size must be {nd}")
    _adaptive_checks(input, out, name, nd, "")
    if all(v == 1 for v in out):
        return R.mean(input, tuple(range(-1, -nd - 1, -1)), keepdim=True)
    arr = _pool_array(input._data, tuple(int(v) for v in out))
    node = AdaptiveAvgPool2DBackward0 if nd == 2 else AdaptiveAvgPool3DBackward0
    return record(node, (input,), wrap(arr, input.dtype), {"in_shape": tuple(input.shape)})


def adaptive_avg_pool2d(input, output_size):
    return adaptive_avg_pool_nd(input, output_size, "adaptive_avg_pool2d")


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

def _max_pool_arrays(x, out_sp):
    """ATen's cpu_adaptive_max_pool(2d/3d) on (..., *spatial): each window's max and its flat index in the
    spatial dims; scanning the window in order, a larger value or any NaN takes the place (so ties keep
    the first, and the last NaN wins)."""
    xp = xp_of(x)
    nd = len(out_sp)
    in_sp = x.shape[-nd:]
    bounds = [_bounds(o, n) for o, n in zip(out_sp, in_sp)]
    lead = x.shape[:-nd]
    out = xp.empty(lead + tuple(out_sp), dtype=x.dtype)
    idx = xp.empty(lead + tuple(out_sp), dtype=xp.int64)
    for pos in np.ndindex(*out_sp):
        sl, ks = _window(bounds, pos)
        win = x[(Ellipsis,) + sl].reshape(lead + (-1,))
        k = win.shape[-1]
        nan = xp.isnan(win)
        last_nan = (k - 1) - xp.argmax(nan[..., ::-1], axis=-1)
        first_max = xp.argmax(xp.where(nan, -xp.inf, win), axis=-1)
        pick = xp.where(nan.any(axis=-1), last_nan, first_max)
        flat, rest = 0, pick
        for d in reversed(range(nd)):  # the window's coordinates, row-major, to the input's flat index
            flat = flat + (sl[d].start + rest % ks[d]) * int(np.prod(in_sp[d + 1:]))
            rest = rest // ks[d]
        idx[(Ellipsis,) + pos] = flat
        out[(Ellipsis,) + pos] = xp.take_along_axis(win, pick[..., None], axis=-1)[..., 0]
    return out, idx


def _scatter_max(g, idx, in_sp):
    """max pooling's backward: each output's gradient added at its input's index, in output order."""
    xp = xp_of(g)
    nd = len(in_sp)
    lead = g.shape[:-nd]
    rows = int(np.prod(lead)) if lead else 1
    flat_g = g.reshape(rows, -1)
    flat_i = idx.reshape(rows, -1)
    out = xp.zeros((rows, int(np.prod(in_sp))), dtype=g.dtype)
    for r in range(rows):
        xp.add.at(out[r], flat_i[r], flat_g[r])
    return out.reshape(lead + tuple(in_sp))


def _replay_max(nd):
    return lambda xs, kw, outs: [_max_pool_arrays(np.asarray(xs[0], dtype=np.float64), outs[0][-nd:])[0]]


def _replay_scatter_max(nd):
    return lambda xs, kw, outs: [_scatter_max(np.asarray(xs[0], dtype=np.float64), kw["indices"],
                                              kw["in_shape"][-nd:])]


class AdaptiveMaxPool2DBackward0(Function):
    __slots__ = ()
    save_inputs = True  # torch saves self (the edge of its backward's own node)
    saves_in_kw = True
    explain = staticmethod(words.fixed("1 at each window's maximum (summed where windows share it), else 0"))
    replay = staticmethod(_replay_max(2))
    nd = 2

    def backward(self, g):
        k = self._kw
        arr = _scatter_max(g._data, k["indices"], k["in_shape"][-self.nd:])
        node = AdaptiveMaxPool2DBackwardBackward0 if self.nd == 2 else AdaptiveMaxPool3DBackwardBackward0
        return (record(node, (g, self.saved[0]), wrap(arr, g.dtype),
                       {"indices": k["indices"], "in_shape": k["in_shape"]}),)


class AdaptiveMaxPool2DBackwardBackward0(Function):
    """The gradient of adaptive max pooling's backward: the incoming gradient read at the indices (for
    grad_output), zeros for the input (torch's derivatives.yaml)."""
    __slots__ = ()
    explain = staticmethod(words.fixed("the incoming gradient at each window's maximum"))
    replay = staticmethod(_replay_scatter_max(2))
    nd = 2

    def backward(self, gg):
        k = self._kw
        g_out = max_double_backward(gg, k["indices"], self.nd) if self.next_functions[0][0] else None
        from ..factory import zeros  # noqa: PLC0415
        g_self = zeros(k["in_shape"], dtype=gg.dtype, device=gg.device) if self.next_functions[1][0] else None
        return g_out, g_self


class AdaptiveMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):
    __slots__ = ()
    replay = staticmethod(_replay_max(3))
    nd = 3


class AdaptiveMaxPool3DBackwardBackward0(AdaptiveMaxPool2DBackwardBackward0):
    __slots__ = ()
    replay = staticmethod(_replay_scatter_max(3))
    nd = 3


def adaptive_max_pool_nd(input, output_size, return_indices, name):
    nd = int(name[-2])
    out = _output_size(input, output_size, nd)
    if len(out) != nd:
        raise errors.runtime(f"{name}(): internal error: output_size.size() must be {nd}" if nd == 3 else
                             f"{name}: internal error: output_size.size() must be {nd}")
    _adaptive_checks(input, out, name, nd, ":")
    arr, idx = _max_pool_arrays(input._data, tuple(int(v) for v in out))
    node = AdaptiveMaxPool2DBackward0 if nd == 2 else AdaptiveMaxPool3DBackward0
    result = record(node, (input,), wrap(arr, input.dtype), {"indices": idx, "in_shape": tuple(input.shape)})
    if return_indices:
        from .. import dtypes  # noqa: PLC0415
        return result, wrap(idx, dtypes.int64)
    return result


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool_nd(input, output_size, return_indices, "adaptive_max_pool2d")


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
