"""torch.nn's lazy modules: UninitializedParameter, LazyLinear, LazyConv1d and LazyConv2d (Dive into Deep
Learning builds its models with them). As in torch, a LazyLinear holds UninitializedParameters (no random draws
at construction) and a forward pre-hook, registered first, that on the first call sets in_features
from the input's last dimension, materialises weight and bias, initialises them as Linear does and
turns the module into a plain Linear (its class changes: `type(m) == nn.Linear` after that)."""
from __future__ import annotations

from .. import errors
from ..autograd_modes import no_grad
from ..tensor import Tensor, init_from
from .parameter import Parameter
from .modules_layers import BatchNorm1d, BatchNorm2d, Conv1d, Conv2d, Linear

_NO_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
             "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
             "`forward` to initialize the parameters before accessing their attributes.")


class UninitializedParameter(Parameter):
    """torch.nn.parameter.UninitializedParameter: a Parameter whose shape is not known yet; prints as
    `<UninitializedParameter>` and becomes a Parameter when `materialize(shape)` is called."""
    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ..factory import empty  # noqa: PLC0415
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def materialize(self, shape, device=None, dtype=None):
        from ..factory import empty  # noqa: PLC0415
        new = empty(shape, device=device if device is not None else self.device,
                    dtype=dtype if dtype is not None else self.dtype)
        rg = self.requires_grad
        init_from(self, new._data, new.dtype)
        self._rg = rg
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise errors.runtime(_NO_SHAPE)

    def size(self, dim=None):
        raise errors.runtime(_NO_SHAPE)

    def __repr__(self, *, tensor_contents=None):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        return UninitializedParameter(self.requires_grad, dtype=self.dtype)


class UninitializedBuffer(Tensor):
    """torch.nn.parameter.UninitializedBuffer (a LazyBatchNorm's running statistics before its first call):
    prints as `<UninitializedBuffer>` and becomes a plain Tensor when `materialize(shape)` is called."""
    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        from ..factory import empty  # noqa: PLC0415
        t = Tensor.__new__(cls)
        new = empty(0, device=device, dtype=dtype)
        init_from(t, new._data, new.dtype)
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass

    materialize = UninitializedParameter.materialize
    shape = UninitializedParameter.shape
    size = UninitializedParameter.size

    def __repr__(self, *, tensor_contents=None):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        return UninitializedBuffer(dtype=self.dtype)


def is_lazy(value):
    return isinstance(value, (UninitializedParameter, UninitializedBuffer))


class LazyModuleMixin:
    """The part of torch's LazyModuleMixin that a script sees: has_uninitialized_params(),
    initialize_parameters(), and the class change on the first forward."""
    cls_to_become = None

    def _lazy_setup(self):
        handle = self.register_forward_pre_hook(_infer_parameters)
        self.__dict__["_lazy_initialize_hook"] = handle

    def has_uninitialized_params(self):
        d = self.__dict__
        return any(is_lazy(v) for v in (*d["_parameters"].values(), *d["_buffers"].values()))


def _infer_parameters(module, args):
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise errors.runtime(f"module {type(module).__name__} has not been fully initialized")
    module.__dict__.pop("_lazy_initialize_hook").remove()
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """torch.nn.LazyLinear(out_features, bias=True): a Linear whose in_features comes from the first input."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Linear.__init__(self, 0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        self._lazy_setup()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            Linear.reset_parameters(self)

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            if not isinstance(input, Tensor):
                raise AttributeError(f"'{type(input).__name__}' object has no attribute 'shape'")
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    """torch's LazyConv1d/2d: in_channels from the first input's channel dimension (dim 1 of a batch,
    dim 0 of an unbatched input), then weight and bias made and initialised as the Conv's."""

    def _lazy_conv_init(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        self._lazy_setup()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            nd = self._nd + 1  # channels and the spatial dims
            if not isinstance(input, Tensor):
                raise AttributeError(f"'{type(input).__name__}' object has no attribute 'dim'")
            if input.dim() not in (nd, nd + 1):
                raise errors.runtime(f"Expected {nd}D (unbatched) or {nd + 1}D (batched) input to "
                                     f"{type(self).__name__}, but got input of size: {input.shape}")
            self.in_channels = input.shape[1] if input.dim() == nd + 1 else input.shape[0]
            if self.in_channels % self.groups != 0:
                raise errors.value("in_channels must be divisible by groups")
            with no_grad():
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    cls_to_become = Conv1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        Conv1d.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_conv_init(out_channels, bias, device, dtype)


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    cls_to_become = Conv2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        Conv2d.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_conv_init(out_channels, bias, device, dtype)


class _LazyNormBase(LazyModuleMixin):
    """torch's LazyBatchNorm1d/2d: num_features from the first input's dimension 1, then weight, bias and the
    running statistics made and initialised as the BatchNorm's (num_batches_tracked exists from the start)."""

    def _lazy_norm_init(self, affine, track_running_stats, device, dtype):
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            from .. import dtypes  # noqa: PLC0415
            from ..factory import tensor  # noqa: PLC0415
            self.register_buffer("running_mean", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("running_var", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=dtypes.int64, device=device))
        self._lazy_setup()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    cls_to_become = BatchNorm1d

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        BatchNorm1d.__init__(self, 0, eps, momentum, False, False, device, dtype)
        self._lazy_norm_init(affine, track_running_stats, device, dtype)


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    cls_to_become = BatchNorm2d

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        BatchNorm2d.__init__(self, 0, eps, momentum, False, False, device, dtype)
        self._lazy_norm_init(affine, track_running_stats, device, dtype)


NAMES = ("LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d")
__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyModuleMixin",
           "UninitializedParameter", "UninitializedBuffer", "is_lazy"]
UninitializedBuffer.__module__ = "torch.nn.parameter"
LazyBatchNorm1d.__module__ = LazyBatchNorm2d.__module__ = "torch.nn.modules.batchnorm"

UninitializedParameter.__module__ = "torch.nn.parameter"
LazyLinear.__module__ = "torch.nn.modules.linear"
LazyConv1d.__module__ = LazyConv2d.__module__ = "torch.nn.modules.conv"
LazyModuleMixin.__module__ = "torch.nn.modules.lazy"
