"""torch.nn's activation modules (torch/nn/modules/activation.py): ReLU ... GLU, each a Module whose
forward calls its torch.nn.functional function."""
from __future__ import annotations

from .. import errors
from ..argcheck import typename
from ..tensor import Tensor
from . import functional as F
from .module import Module


def _inplace_only(self):
    return "inplace=True" if self.inplace else ""


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    extra_repr = _inplace_only


class ReLU6(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = 0.0, 6.0, inplace

    def forward(self, input):
        return F.hardtanh(input, 0.0, 6.0, self.inplace)

    extra_repr = _inplace_only


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if max_val <= min_val:
            raise errors.assertion(f"max_val ({max_val}) must be greater than min_val ({min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    extra_repr = _inplace_only


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    extra_repr = _inplace_only


class Mish(SiLU):
    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class Hardshrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    def forward(self, input):
        return F.softshrink(input, self.lambd)


def _simple(name, fname, torch_level=False):
    """A module whose forward is F.<fname>(input) (torch_level: torch.<fname>(input), whose
    error for a non-Tensor input names the argument)."""
    def forward(self, input):
        if torch_level and not isinstance(input, Tensor):
            raise errors.type_error(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                                    f"{typename(input)}")
        return getattr(F, fname)(input)

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if "inplace" in kwargs or args:
            self.inplace = kwargs.get("inplace", args[0] if args else False)

    return type(name, (Module,), {"forward": forward, "__init__": __init__, "__module__": __name__})


Sigmoid = _simple("Sigmoid", "sigmoid", torch_level=True)
Tanh = _simple("Tanh", "tanh", torch_level=True)
LogSigmoid = _simple("LogSigmoid", "logsigmoid")
Softsign = _simple("Softsign", "softsign")
Tanhshrink = _simple("Tanhshrink", "tanhshrink")
Hardsigmoid = _simple("Hardsigmoid", "hardsigmoid")
Hardswish = _simple("Hardswish", "hardswish")


class _SoftmaxBase(Module):
    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return getattr(F, type(self)._fn)(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    _fn = "softmax"


class LogSoftmax(_SoftmaxBase):
    _fn = "log_softmax"


class Softmin(_SoftmaxBase):
    _fn = "softmin"


class GLU(_SoftmaxBase):
    def __init__(self, dim=-1):
        super().__init__(dim)

    def forward(self, input):
        return F.glu(input, self.dim)


NAMES = ("ReLU", "ReLU6", "Hardtanh", "LeakyReLU", "RReLU", "ELU", "CELU", "SELU", "GELU", "SiLU", "Mish", "Softplus",
         "Threshold", "Hardshrink", "Softshrink", "Sigmoid", "Tanh", "LogSigmoid", "Softsign", "Tanhshrink",
         "Hardsigmoid", "Hardswish", "Softmax", "LogSoftmax", "Softmin", "GLU")

# torch's module path, so type(m) prints like PyTorch's (<class 'torch.nn.modules.activation.ReLU'>)
for _n in NAMES:
    globals()[_n].__module__ = "torch.nn.modules.activation"
