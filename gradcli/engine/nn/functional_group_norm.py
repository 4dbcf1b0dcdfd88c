"""F.group_norm (NativeGroupNormBackward0) and nn.GroupNorm: each sample's channels split into
num_groups groups, each group normalised by its own mean and variance, then a per-channel affine.
A float32 input follows ATen's CPU kernels forward and (first order) backward: group_norm_kernel.py.
Other dtypes: the group's moments in float64, then y = x * scale + shift with scale = rstd * weight[c]
and shift = bias[c] - scale * mean (one fused multiply-add). Under create_graph the backward recomputes
the statistics with Tensor ops, so the gradient differentiates again."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..function import Function, record
from ..ops import unary_math as UM
from ..ops import reduction as R
from ..ops import shape as S
from ..ops import words
from ..tensor import wrap
from ..device import asarray as _asarray, xp_of
from ..autograd_modes import is_grad_enabled
from . import group_norm_kernel as GK
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["group_norm", "GroupNorm", "NativeGroupNormBackward0", "NAMES"]


def _replay(xs, kw, outs):
    x = xs[0]
    n, c, g = x.shape[0], x.shape[1], kw["groups"]
    xg = x.reshape(n, g, -1)
    m = xg.mean(axis=-1, keepdims=True)
    v = ((xg - m) ** 2).mean(axis=-1, keepdims=True)
    y = ((xg - m) / np.sqrt(v + kw["eps"])).reshape(x.shape)
    cshape = (1, c) + (1,) * (x.ndim - 2)
    if len(xs) > 1 and isinstance(xs[1], np.ndarray):
        y = y * xs[1].reshape(cshape)
    if len(xs) > 2 and isinstance(xs[2], np.ndarray):
        y = y + xs[2].reshape(cshape)
    return [y]


class NativeGroupNormBackward0(Function):
    __slots__ = ()
    save_inputs = True
    replay = staticmethod(_replay)
    explain = staticmethod(words.fixed("group norm's Jacobian: (grad - mean(grad) - x_hat * mean(grad * x_hat)) / std, "
                                       "over each sample's group of channels"))

    def backward(self, g):
        x, w, b = self.saved
        k = self._kw
        if "stats" in k and not is_grad_enabled() and type(g._data) is np.ndarray and g._data.dtype == np.float32:
            return self._kernel_backward(g, x, w, b)
        groups, eps = k["groups"], k["eps"]
        n, c = x.shape[0], x.shape[1]
        cshape = (1, c) + (1,) * (x.ndim - 2)
        sum_dims = (0,) + tuple(range(2, x.ndim))
        gw_ = g * S.reshape(w, cshape) if w is not None else g
        xg = S.reshape(x, (n, groups, -1))
        gg = S.reshape(gw_, (n, groups, -1))
        mean = R.mean(xg, (-1,), keepdim=True)
        xc = xg - mean
        rstd = UM.rsqrt(R.mean(xc * xc, (-1,), keepdim=True) + eps)
        xhat = xc * rstd
        gx = gw = gb = None
        if self.next_functions[0][0] is not None:
            gx = rstd * (gg - R.mean(gg, (-1,), keepdim=True) - xhat * R.mean(gg * xhat, (-1,), keepdim=True))
            gx = S.reshape(gx, tuple(x.shape))
        if w is not None and self.next_functions[1][0] is not None:
            # ATen's order: ds = sum(g * x), db = sum(g) per sample and channel, then
            # dweight[c] = sum_n (ds - db * mean) * rstd
            cpg = c // groups
            spatial = tuple(range(2, x.ndim))
            ds = R.sum(g * x, spatial) if spatial else g * x
            db = R.sum(g, spatial) if spatial else g
            mean_c = S.reshape(S.expand(mean, (n, groups, cpg)), (n, c))
            rstd_c = S.reshape(S.expand(rstd, (n, groups, cpg)), (n, c))
            gw = R.sum((ds - db * mean_c) * rstd_c, (0,))
        if b is not None and self.next_functions[2][0] is not None:
            gb = R.sum(g, sum_dims)
        return gx, gw, gb


    def _kernel_backward(self, g, x, w, b):
        """First-order backward of a float32 input: ATen's kernel (group_norm_kernel.py)."""
        mean, rstd = self._kw["stats"]
        need = [self.next_functions[i][0] is not None for i in range(3)]
        dx, dw, db = GK.backward(g._data, x._data, mean, rstd, self._kw["groups"],
                                 None if w is None else w._data, need[0], w is not None and need[1],
                                 b is not None and need[2])
        return (None if dx is None else wrap(dx, x.dtype), None if dw is None else wrap(dw, w.dtype),
                None if db is None else wrap(db, b.dtype))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    if input.dim() < 2:
        raise errors.runtime(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    shape = tuple(input.shape)
    n, c = shape[0], shape[1]
    if num_groups <= 0 or c % num_groups:
        raise errors.runtime(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                             f"shape [{', '.join(map(str, shape))}] and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.shape[0] != c):
            raise errors.runtime(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                                 f"but got {name} of shape [{', '.join(map(str, t.shape))}] and input of shape "
                                 f"[{', '.join(map(str, shape))}]")
    dt = input.dtype
    x = input._data
    if type(x) is np.ndarray and x.dtype == np.float32 and x.size and all(
            t is None or (type(t._data) is np.ndarray and t._data.dtype == np.float32) for t in (weight, bias)):
        out, mean, rstd = GK.forward(x, num_groups, None if weight is None else weight._data,
                                     None if bias is None else bias._data, eps)
        return record(NativeGroupNormBackward0, (input, weight, bias), wrap(out, dt),
                      {"groups": num_groups, "eps": eps, "stats": (mean, rstd)})
    xp = xp_of(x)
    xg = x.reshape(n, num_groups, -1).astype(np.float64)
    mean = xg.mean(axis=-1, keepdims=True)
    var = np.maximum(((xg - mean) ** 2).mean(axis=-1, keepdims=True), 0)
    # ATen: the moments and rstd in the op-math type (float for float32), then scale and shift per channel
    mean = mean.astype(dt.np)
    rstd = (1 / np.sqrt(var.astype(dt.np) + dt.np.type(eps))).astype(dt.np)
    cpg = c // num_groups
    scale = xp.broadcast_to(rstd, (n, num_groups, cpg)).reshape(n, c)
    if weight is not None:
        scale = (scale * weight._data.reshape(1, c)).astype(dt.np)
    mean_c = xp.broadcast_to(mean, (n, num_groups, cpg)).reshape(n, c)
    shift = (-scale * mean_c).astype(dt.np)
    if bias is not None:
        shift = (shift + bias._data.reshape(1, c)).astype(dt.np)
    cshape = (n, c) + (1,) * (x.ndim - 2)
    # x * scale + shift, rounded once (the kernel's fused multiply-add)
    out = (x.astype(np.float64) * scale.reshape(cshape) + shift.reshape(cshape)).astype(dt.np)
    return record(NativeGroupNormBackward0, (input, weight, bias), wrap(_asarray(out, dt.np), dt),
                  {"groups": num_groups, "eps": eps})


def _empty(*shape, dtype=None, device=None):
    from ..factory import empty  # noqa: PLC0415
    return empty(*shape, dtype=dtype, device=device)


def affine_parameters(module, affine, bias, shape, dtype=None, device=None):
    """A normalisation layer's weight and bias (GroupNorm's affine, LayerNorm's elementwise_affine), made
    as torch makes them: empty Parameters of `shape`, or None registered; then reset_affine."""
    if affine:
        module.weight = Parameter(_empty(*shape, dtype=dtype, device=device))
        if bias:
            module.bias = Parameter(_empty(*shape, dtype=dtype, device=device))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)
    reset_affine(module)


def reset_affine(module):
    """reset_parameters of GroupNorm and LayerNorm: weight 1, bias 0 (where they are)."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise errors.value(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        affine_parameters(self, affine, bias, (num_channels,), dtype, device)

    def reset_parameters(self):
        reset_affine(self)

    def forward(self, input):
        from . import functional as F  # noqa: PLC0415 - functional imports this module
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


NAMES = ("GroupNorm",)
GroupNorm.__module__ = "torch.nn.modules.normalization"
