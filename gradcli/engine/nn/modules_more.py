"""torch.nn layers beyond modules_layers.py: the padding modules (torch/nn/modules/padding.py:
ConstantPad, ZeroPad, ReflectionPad, ReplicationPad, CircularPad in 1-d, 2-d and 3-d), AvgPool1d,
AdaptiveAvgPool1d and RMSNorm, each torch's class over its F function, with its repr."""
from __future__ import annotations

import warnings

from .. import errors
from . import functional as F
from . import init
from .module import Module
from .modules_layers import AdaptiveAvgPool2d, _BatchNorm
from .parameter import Parameter


def _ntuple(value, n):
    """torch.nn.modules.utils._ntuple(n): an iterable as a tuple (any length), else value repeated n times."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


# ---------------------------------------------------------------------------- padding

class _ConstantPadNd(Module):
    _n = 2

    def __init__(self, padding, value):
        super().__init__()
        self.value = value
        self.padding = _ntuple(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _n = 2


class ConstantPad2d(_ConstantPadNd):
    _n = 4


class ConstantPad3d(_ConstantPadNd):
    _n = 6


def _padding_only(self):
    return f"{self.padding}"


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    extra_repr = _padding_only


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    extra_repr = _padding_only


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    extra_repr = _padding_only


class _ModePadNd(Module):
    """Reflection/Replication/Circular padding: F.pad with the class's mode."""
    _n = 2
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    extra_repr = _padding_only


def _pad_class(name, n, mode):
    return type(name, (_ModePadNd,), {"_n": n, "_mode": mode})


ReflectionPad1d = _pad_class("ReflectionPad1d", 2, "reflect")
ReflectionPad2d = _pad_class("ReflectionPad2d", 4, "reflect")
ReflectionPad3d = _pad_class("ReflectionPad3d", 6, "reflect")
ReplicationPad1d = _pad_class("ReplicationPad1d", 2, "replicate")
ReplicationPad2d = _pad_class("ReplicationPad2d", 4, "replicate")
ReplicationPad3d = _pad_class("ReplicationPad3d", 6, "replicate")


class _CircularPadNd(_ModePadNd):
    _mode = "circular"

    def forward(self, input):
        k = self._n // 2  # CircularPadKd takes (k+1)-d or (k+2)-d input
        if input.dim() not in (k + 1, k + 2):
            raise errors.value(f"expected {k + 1}D or {k + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


CircularPad1d = type("CircularPad1d", (_CircularPadNd,), {"_n": 2})
CircularPad2d = type("CircularPad2d", (_CircularPadNd,), {"_n": 4})
CircularPad3d = type("CircularPad3d", (_CircularPadNd,), {"_n": 6})


# ---------------------------------------------------------------------------- 1-d pooling

class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """AdaptiveAvgPool2d's attributes and repr, over F.adaptive_avg_pool1d."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Module):
    _fn = "adaptive_max_pool2d"

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return getattr(F, self._fn)(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    _fn = "adaptive_max_pool3d"


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """AdaptiveAvgPool2d's attributes and repr, over F.adaptive_avg_pool3d."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class LPPool1d(Module):
    _fn = "lp_pool1d"

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return getattr(F, self._fn)(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool2d(LPPool1d):
    _fn = "lp_pool2d"


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# ---------------------------------------------------------------------------- instance norm

class _InstanceNorm(_BatchNorm):
    _no_batch_dim = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def _check_input_dim(self, input):
        d = self._no_batch_dim
        if input.dim() not in (d, d + 1):
            raise errors.value(f"expected {d}D or {d + 1}D input (got {input.dim()}D input)")

    def _apply(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise errors.value(f"expected input's size at dim={feature_dim} to match num_features "
                                   f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          f"warning by not passing in num_features, which is not used because affine=False",
                          UserWarning, stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply(input.unsqueeze(0)).squeeze(0)
        return self._apply(input)


class InstanceNorm1d(_InstanceNorm):
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    _no_batch_dim = 3


# ---------------------------------------------------------------------------- RMSNorm

class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            from ..factory import empty  # noqa: PLC0415
            self.weight = Parameter(empty(*self.normalized_shape, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class Fold(Module):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


NAMES = ("Fold", "Unfold", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
         "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
         "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "RMSNorm", "AvgPool1d",
         "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "InstanceNorm1d", "InstanceNorm2d",
         "LPPool1d", "LPPool2d", "LocalResponseNorm")

for _n in NAMES:  # torch's module paths, so type(m) prints like PyTorch's
    globals()[_n].__module__ = "torch.nn.modules." + (
        "fold" if _n in ("Fold", "Unfold") else "normalization" if _n in ("RMSNorm", "LocalResponseNorm") else "pooling" if "Pool" in _n else "instancenorm" if "Instance" in _n
        else "padding")
    globals()[_n].__qualname__ = _n
