"""F.prelu / torch.prelu and nn.PReLU as ATen builds them: the weight reshaped to broadcast over the input
(a view: ViewBackward0) when the input has more dimensions, then _prelu_kernel (PreluKernelBackward0):
x where x > 0, else weight * x. Its backward is the kernel's (weight * grad where x <= 0; x * grad for the
weight, summed to the weight's shape), written with the engine's ops so that it differentiates again."""
from __future__ import annotations

from .. import errors
from ..function import Function, record
from ..ops import arithmetic as AR
from ..ops import clamp_where as CW
from ..ops import comparison as CP
from ..ops import elementwise_common as EC
from ..ops import shape as S
from ..tensor import wrap
from ..device import xp_of
from .module import Module
from .parameter import Parameter


def _prelu_array(x, w):
    return xp_of(x).where(x > 0, x, w * x)


class PreluKernelBackward0(Function):
    __slots__ = ()
    save_inputs = True
    explain = ("1 where x > 0, else the weight", "x where x <= 0, else 0 (summed over the broadcast)")
    replay = staticmethod(lambda xs, kw, outs: [_prelu_array(xs[0], xs[1])])

    def backward(self, g):
        x, w = self.saved
        positive = CP.gt(x, 0)
        gx = CW.where(positive, g, w * g) if self.next_functions[0][0] is not None else None
        gw = None
        if self.next_functions[1][0] is not None:
            gw = S.sum_to(CW.where(positive, AR.mul(x, 0), x * g), tuple(w.shape))
        return gx, gw


def prelu(input, weight):
    if input.dtype is not weight.dtype:
        raise errors.runtime(f"prelu: Type promoting not supported. Got {EC.c10_name(input.dtype)} and "
                             f"{EC.c10_name(weight.dtype)}")
    n = weight.numel()
    if n != 1:
        if input.dim() == 0:
            raise errors.runtime("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != n:
            raise errors.runtime(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                                 f"{n} and channel size = {channels}.")
    if weight.dim() > 1:
        raise errors.runtime(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    w = weight
    if input.dim() != weight.dim():
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = n
        w = S.reshape(weight, tuple(shape))
    return record(PreluKernelBackward0, (input, w), wrap(_prelu_array(input._data, w._data), input.dtype))


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        from ..factory import empty  # noqa: PLC0415
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        from . import init  # noqa: PLC0415
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


PReLU.__module__ = "torch.nn.modules.activation"
