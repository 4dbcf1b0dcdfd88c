"""layer_norm (NativeLayerNormBackward0) and batch_norm (NativeBatchNormBackward0): forward on
arrays; the first-order backward of float32 inputs by ATen's kernels (layer_norm_kernel.py,
batch_norm_kernel.py, batch_norm_planes.py), else (create_graph, other dtypes) with Tensor ops that
recompute the statistics from the saved input, so the gradient differentiates again."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..function import Function, record
from ..ops import arithmetic as AR
from ..ops import unary_math as UM
from ..ops import replays, words
from ..ops import reduction as R
from ..ops import shape as S
from ..tensor import wrap
from ..device import asarray as _asarray
from ..autograd_modes import is_grad_enabled
from . import batch_norm_kernel as BN
from . import batch_norm_planes as BNP
from .layer_norm_kernel import layer_norm_backward_f32, layer_norm_f32


def _needs(node, i):
    return node.next_functions[i][0] is not None


def _norm_grad(g, x, w_b, dims, eps):
    """d/dx of (x - mean) * rstd (times w) over `dims`, as Tensor ops; also returns xhat."""
    mean = R.mean(x, dims, keepdim=True)
    xc = x - mean
    var = R.mean(xc * xc, dims, keepdim=True)
    rstd = UM.rsqrt(var + eps)
    xhat = xc * rstd
    gw = g * w_b if w_b is not None else g
    gx = rstd * (gw - R.mean(gw, dims, keepdim=True) - xhat * R.mean(gw * xhat, dims, keepdim=True))
    return gx, xhat


class NativeLayerNormBackward0(Function):
    __slots__ = ()
    save_inputs = True
    replay = staticmethod(replays.layer_norm)
    explain = staticmethod(words.fixed("layer norm's Jacobian: (grad - mean(grad) - x_hat * mean(grad * x_hat)) / std"))

    def backward(self, g):
        x, w, b = self.saved
        k = self._kw
        nd = k["nd"]
        if "stats" in k and not is_grad_enabled() and type(g._data) is np.ndarray and g._data.dtype == np.float32:
            cols = int(np.prod(x.shape[x.ndim - nd:]))
            mean, rstd = k["stats"]
            dx, dw, db = layer_norm_backward_f32(g._data, x._data, cols, mean, rstd,
                                                 None if w is None else w._data.reshape(cols), _needs(self, 0),
                                                 w is not None and _needs(self, 1), b is not None and _needs(self, 2))
            return (None if dx is None else wrap(dx, x.dtype),
                    None if dw is None else wrap(dw.reshape(w.shape), w.dtype),
                    None if db is None else wrap(db.reshape(b.shape), b.dtype))
        dims = tuple(range(x.ndim - nd, x.ndim))
        lead = tuple(range(x.ndim - nd))
        gx, xhat = _norm_grad(g, x, w, dims, k["eps"])
        gw = gb = None
        if w is not None and _needs(self, 1):
            gw = R.sum(g * xhat, lead) if lead else g * xhat
        if b is not None and _needs(self, 2):
            gb = R.sum(g, lead) if lead else g
        return (gx if _needs(self, 0) else None), gw, gb


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    ns = tuple(int(s) for s in normalized_shape)
    nd = len(ns)
    shape = tuple(input.shape)
    if nd == 0 or input.dim() < nd or shape[-nd:] != ns:
        raise errors.runtime(f"Given normalized_shape=[{', '.join(map(str, ns))}], expected input with shape "
                             f"[*, {', '.join(map(str, ns))}], but got input of size{list(shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != ns:
            raise errors.runtime(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                                 f"[{', '.join(map(str, t.shape))}] and normalized_shape = "
                                 f"[{', '.join(map(str, ns))}]")
    dt = input.dtype
    x = input._data
    if type(x) is np.ndarray and x.dtype == np.float32 and x.size and all(
            t is None or (type(t._data) is np.ndarray and t._data.dtype == np.float32) for t in (weight, bias)):
        cols = int(np.prod(ns))
        w, b = (None if t is None else t._data.reshape(cols) for t in (weight, bias))
        out, mean, rstd = layer_norm_f32(x, cols, w, b, eps)
        return record(NativeLayerNormBackward0, (input, weight, bias), wrap(out, dt),
                      {"nd": nd, "eps": eps, "stats": (mean, rstd)})
    if not x.size:  # nothing to normalize: torch's empty result (NumPy's mean warned 'Mean of empty slice')
        return record(NativeLayerNormBackward0, (input, weight, bias), wrap(_asarray(np.empty(x.shape, dt.np), dt.np), dt),
                      {"nd": nd, "eps": eps})
    axes = tuple(range(x.ndim - nd, x.ndim))
    mean = x.mean(axis=axes, keepdims=True, dtype=dt.np)
    xc = x - mean
    var = (xc * xc).mean(axis=axes, keepdims=True, dtype=dt.np)
    rstd = 1 / np.sqrt(var + dt.np.type(eps))
    out = xc * rstd
    if weight is not None:
        out = out * weight._data
    if bias is not None:
        out = out + bias._data
    return record(NativeLayerNormBackward0, (input, weight, bias), wrap(_asarray(out, dt.np), dt),
                  {"nd": nd, "eps": eps})



def rms_norm(input, normalized_shape, weight=None, eps=None):
    """ATen's composite rms_norm: x * rsqrt(mean(x**2 over the last dims, keepdim) + eps), times weight,
    in the op-math dtype (float16 upcast to float32 and back); eps None is the dtype's machine epsilon.
    Its graph is those ops' (MulBackward0, RsqrtBackward0, AddBackward1, MeanBackward1, PowBackward0)."""
    from .. import dtypes  # noqa: PLC0415
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    ns = tuple(int(s) for s in normalized_shape)
    nd = len(ns)
    shape = tuple(input.shape)
    if nd == 0:
        raise errors.runtime("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
                             "one element, but got normalized_shape = []")
    if input.dim() < nd or shape[-nd:] != ns:  # ATen's rms_norm writes "[*3, 4]" where layer_norm has "[*, 3, 4]"
        raise errors.runtime(f"Given normalized_shape=[{', '.join(map(str, ns))}], expected input with shape "
                             f"[*{', '.join(map(str, ns))}], but got input of size{list(shape)}")
    if weight is not None and tuple(weight.shape) != ns:
        raise errors.runtime(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                             f"[{', '.join(map(str, weight.shape))}] and normalized_shape = "
                             f"[{', '.join(map(str, ns))}]")
    dt = input.dtype
    math_dt = dtypes.float32 if dt is dtypes.float16 else dt
    x = input.to(math_dt)
    if eps is None:
        eps = float(np.finfo(math_dt.np).eps)
    dims = tuple(range(input.dim() - nd, input.dim()))
    r = UM.rsqrt(R.mean(AR.pow(x, 2), dims, keepdim=True).add_(eps))
    out = AR.mul(x, r).type_as(input)
    return AR.mul(out, weight) if weight is not None else out

class NativeBatchNormBackward0(Function):
    __slots__ = ()
    save_inputs = True
    replay = staticmethod(replays.batch_norm)
    explain = staticmethod(words.fixed("batch norm's Jacobian: (grad - mean(grad) - x_hat * mean(grad * x_hat)) / std, "
                                       "over the batch"))

    def backward(self, g):
        x, w, b = self.saved
        k = self._kw
        if k.get("rows") and not is_grad_enabled() and type(g._data) is np.ndarray and g.dtype == x.dtype:
            return self._rows_backward(g, x, w, b)
        if (not is_grad_enabled() and x.ndim > 2 and type(g._data) is np.ndarray and g.dtype == x.dtype
                and x._data.dtype == np.float32 and type(x._data) is np.ndarray and x._data.size):
            return self._planes_backward(g, x, w, b)
        dims = (0,) + tuple(range(2, x.ndim))
        cshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        wb = S.reshape(w, cshape) if w is not None else None
        if k["training"]:
            gx, xhat = _norm_grad(g, x, wb, dims, k["eps"])
        else:
            mean = wrap(k["mean"].reshape(cshape), x.dtype)
            rstd = wrap(k["rstd"].reshape(cshape), x.dtype)
            xhat = (x - mean) * rstd
            gx = g * rstd * wb if wb is not None else g * rstd
        gw = R.sum(g * xhat, dims) if w is not None and _needs(self, 1) else None
        gb = R.sum(g, dims) if b is not None and _needs(self, 2) else None
        return (gx if _needs(self, 0) else None), gw, gb


    def _planes_backward(self, g, x, w, b):
        """First-order backward of an N x C x spatial float32 input: ATen's contiguous kernel or its
        reference loop (batch_norm_planes.py)."""
        k = self._kw
        gd, xd = g._data, x._data
        contiguous = gd.flags.c_contiguous and xd.flags.c_contiguous  # torch's is_contiguous (size-1 dims free)
        mean, invstd = self._saved_stats()
        dx, dw, db = BNP.backward(gd, xd, mean, invstd, None if w is None else w._data.astype(np.float32),
                                  k["training"], contiguous)
        return ((wrap(dx, x.dtype) if _needs(self, 0) else None),
                (wrap(dw, w.dtype) if w is not None and _needs(self, 1) else None),
                (wrap(db, b.dtype) if b is not None and _needs(self, 2) else None))

    def _saved_stats(self):
        """(mean, invstd) as ATen's backward kernels take them: the saved ones (training), else the
        running mean and 1 / sqrt(running_var + eps) in double, rounded to float."""
        k = self._kw
        if k["training"]:
            return k["save"]
        return k["mean"], (1.0 / np.sqrt(k["running_var"].astype(np.float64) + k["eps"])).astype(np.float32)

    def _rows_backward(self, g, x, w, b):
        """First-order backward of an N x C float32 input: ATen's channels-last kernel (batch_norm_kernel.py)."""
        k = self._kw
        c = x.shape[1]
        gd = g._data
        contiguous = gd.flags.c_contiguous  # torch's is_contiguous (size-1 dims free)
        mean, invstd = self._saved_stats()
        if not contiguous:  # the reference loop, as for N x C x spatial
            dx, dw, db = BNP.backward(gd, x._data, mean, invstd, None if w is None else w._data.astype(np.float32),
                                      k["training"], False)
            return ((wrap(dx, x.dtype) if _needs(self, 0) else None),
                    (wrap(dw, w.dtype) if w is not None and _needs(self, 1) else None),
                    (wrap(db, b.dtype) if b is not None and _needs(self, 2) else None))
        dx, dw, db = BN.channels_last_backward(np.ascontiguousarray(gd).reshape(-1, c), x._data.reshape(-1, c), mean,
                                               invstd, None if w is None else w._data.astype(np.float32),
                                               k["training"], contiguous)
        return ((wrap(dx.reshape(x.shape), x.dtype) if _needs(self, 0) else None),
                (wrap(dw, w.dtype) if w is not None and _needs(self, 1) else None),
                (wrap(db, b.dtype) if b is not None and _needs(self, 2) else None))


def _aten_batch_norm(x, c, axes, cshape, running_mean, running_var, weight, bias, training, momentum, eps,
                     stats=None):
    """ATen's CPU batch norm on a NumPy array of N x C x spatial (ATen's contiguous kernels; an N x C input
    takes its channels-last ones, whose float sums are not reproduced), rounding as its kernels do
    (batch_norm_kernel.cpp): per channel
    the sum in double and mean = float(sum / N), var_sum = the double sum of the float (x - mean)**2, stored
    in the input's dtype, invstd = 1 / sqrt(var_sum / N + eps) in double (training) or in the dtype
    (evaluation, from running_var); then alpha = invstd * weight, beta = bias - mean * alpha and
    out = x * alpha + beta, the last two fused multiply-adds where the CPU capability fuses them (not
    under ATEN_CPU_CAPABILITY=default). Running mean: momentum * mean + (1 - momentum) * running in the dtype
    (torch's bits); running var: the same from var_sum / (N - 1) in double (its last bit is torch's on about
    two channels in three)."""
    from ..rng_math import fma32, fused  # noqa: PLC0415
    ft = x.dtype.type
    n = x.size // c if c else 0
    if training:
        if stats is not None:  # the channels-last kernels' (batch_norm_kernel.py)
            mean, var_sum = stats
        else:
            planes = np.moveaxis(x, 1, 0).reshape(c, -1)  # each channel's elements in ATen's order
            mean = (np.add.accumulate(planes, axis=1, dtype=np.float64)[:, -1] / n).astype(ft)
            d = planes - mean[:, None]
            var_sum = np.add.accumulate(d * d, axis=1, dtype=np.float64)[:, -1].astype(ft)
        invstd = (1.0 / np.sqrt((var_sum / ft(n)).astype(np.float64) + eps)).astype(ft)
        if running_mean is not None:
            rm = running_mean._data
            rm[...] = ft(momentum) * mean + (ft(1) - ft(momentum)) * rm.astype(ft)  # in the dtype, as torch rounds it
            running_mean._version[0] += 1
        if running_var is not None:
            rv = running_var._data
            # float momentum_ * double(var_sum / (n - 1)) + double((1 - momentum_) * running_var in float)
            m = ft(momentum)
            unbiased = (var_sum / ft(n - 1)).astype(np.float64)
            rv[...] = np.float64(m) * unbiased + ((ft(1) - m) * rv.astype(ft)).astype(np.float64)
            running_var._version[0] += 1
        kw = {"training": True, "eps": eps, "save": (mean, invstd)}
    else:
        mean = running_mean._data.astype(ft)
        invstd = (ft(1) / np.sqrt(running_var._data.astype(ft) + ft(eps))).astype(ft)
        kw = {"training": False, "eps": eps, "mean": mean.copy(), "rstd": invstd,
              "running_var": running_var._data.copy()}
    w = weight._data.astype(ft) if weight is not None else np.ones(c, ft)
    b = bias._data.astype(ft) if bias is not None else np.zeros(c, ft)
    alpha = (invstd * w).astype(ft)
    if ft is np.float32 and fused():
        beta = fma32(-mean, alpha, b)
        out = fma32(x, alpha.reshape(cshape), beta.reshape(cshape))
    else:
        beta = (b - mean * alpha).astype(ft)
        out = (x * alpha.reshape(cshape) + beta.reshape(cshape)).astype(ft)
    return np.ascontiguousarray(out), kw


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        size = tuple(input.shape)
        n = 1
        for i, s in enumerate(size):
            if i != 1:
                n *= s
        if n == 1:
            from ..size import Size  # noqa: PLC0415
            raise errors.value(f"Expected more than 1 value per channel when training, got input size {Size(size)}")
    if input.dim() < 2:
        raise errors.runtime(f"batch_norm(): Expected input to have at least 2 dims, but got {input.dim()}")
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != c:
            raise errors.runtime(f"{name} should contain {c} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise errors.runtime("running_mean must be defined in evaluation mode" if running_mean is None else
                             "running_var must be defined in evaluation mode")
    dt = input.dtype
    x = input._data
    axes = (0,) + tuple(range(2, x.ndim))
    cshape = (1, c) + (1,) * (x.ndim - 2)
    if type(x) is np.ndarray and x.dtype in (np.float32, np.float64) and x.ndim > 2 and x.size > x.shape[0] * c:
        out, kw = _aten_batch_norm(x, c, axes, cshape, running_mean, running_var, weight, bias, training, momentum,
                                   eps)
        return record(NativeBatchNormBackward0, (input, weight, bias), wrap(out, dt), kw)
    if type(x) is np.ndarray and x.dtype == np.float32 and x.size and x.size == x.shape[0] * c and (
            training or running_mean._data.dtype == np.float32):
        rows = np.ascontiguousarray(x).reshape(-1, c)  # N x C (x 1 ...): the channels-last kernels
        stats = BN.channels_last_stats(rows) if training else None
        out, kw = _aten_batch_norm(rows, c, (0,), (1, c), running_mean, running_var, weight, bias, training, momentum,
                                   eps, stats)
        kw["rows"] = True
        return record(NativeBatchNormBackward0, (input, weight, bias), wrap(out.reshape(x.shape), dt), kw)
    if training:
        mean = x.mean(axis=axes, dtype=dt.np)
        var = ((x - mean.reshape(cshape)) ** 2).mean(axis=axes, dtype=dt.np)
        cnt = x.size // c
        if running_mean is not None:
            running_mean._data[...] = (1 - momentum) * running_mean._data + momentum * mean
            running_mean._version[0] += 1
        if running_var is not None:
            unbiased = var * (cnt / (cnt - 1)) if cnt > 1 else var
            running_var._data[...] = (1 - momentum) * running_var._data + momentum * unbiased
            running_var._version[0] += 1
    else:
        mean = running_mean._data.astype(dt.np)
        var = running_var._data.astype(dt.np)
    rstd = (1 / np.sqrt(var + dt.np.type(eps))).astype(dt.np)
    out = (x - mean.reshape(cshape)) * rstd.reshape(cshape)
    if weight is not None:
        out = out * weight._data.reshape(cshape)
    if bias is not None:
        out = out + bias._data.reshape(cshape)
    kw = {"training": bool(training), "eps": eps}
    if not training:
        kw["mean"] = mean.copy()
        kw["rstd"] = rstd
    return record(NativeBatchNormBackward0, (input, weight, bias), wrap(_asarray(out, dt.np), dt), kw)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """ATen's instance_norm: batch_norm over the input viewed as (1, N*C, ...) with weight, bias and the running
    stats repeated N times, the running stats then set to the mean of the N copies, the result viewed back
    (ViewBackward0 over NativeBatchNormBackward0, RepeatBackward0 for weight and bias)."""
    from ..autograd_modes import no_grad  # noqa: PLC0415
    from ..ops.join_split import repeat  # noqa: PLC0415
    shape = tuple(input.shape)
    if use_input_stats:
        n = 1
        for s in shape[2:]:
            n *= s
        if n == 1:
            raise errors.value(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    elif running_mean is None or running_var is None:
        raise errors.runtime("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = shape[0], shape[1]

    def rep(t):
        return repeat(t, b) if t is not None else None
    running_mean_, running_var_ = rep(running_mean), rep(running_var)
    x = S.reshape(input.contiguous(), (1, b * c) + shape[2:])
    out = batch_norm(x, running_mean_, running_var_, rep(weight), rep(bias), use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(R.mean(S.reshape(running_mean_, (b, c)), 0))
        if running_var is not None:
            running_var.copy_(R.mean(S.reshape(running_var_, (b, c)), 0))
    return S.reshape(out, shape)
