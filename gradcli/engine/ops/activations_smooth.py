"""The smooth activation functions (softplus, gelu, silu, mish, logsigmoid, softsign, tanhshrink,
glu): plain functions with torch.nn.functional's signatures and their declarations (OPS), joined
into the special family by special.py. The piecewise ones (elu, leaky_relu, hardtanh, the shrinks,
threshold, ...) are activations.py's; backward_ops.py has the same two groups of backward kernels.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors, gelu_kernel, numerics
from ..argcheck import typename
from ..function import Function, record
from ..tensor import wrap_dim
from . import backward_ops as B
from . import arithmetic as AR
from . import elementwise_common as EC
from . import unary_math as UM
from .backward_ops import GELU_BETA, GELU_KAPPA
from .registry import Sample, V, case, op, sample1
from .special_common import SQRT1_2, host_kernel, maybe_inplace, need_float, not_implemented, wrap_as
from .special_unary import erf_np


class SoftplusBackward0(Function):
    __slots__ = ()
    explain = "sigmoid({a})"
    replay = staticmethod(lambda xs, kw, outs: [_softplus_np(xs[0], kw["beta"], kw["threshold"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.softplus_backward(g, x, self._kw["beta"], self._kw["threshold"]),)


def _softplus_np(x, beta, threshold):
    xb = x * beta
    with np.errstate(all="ignore"):
        soft = numerics.ufunc(np.log1p)(numerics.exp(xb)) / beta
    return np.where(xb > threshold, x, soft)


def softplus(input, beta=1.0, threshold=20.0):
    need_float(input, "softplus_cpu")
    r = _softplus_np(input._data, beta, threshold)
    return record(SoftplusBackward0, (input,), wrap_as(r, input.dtype), {"beta": beta, "threshold": threshold})


class GeluBackward0(Function):
    __slots__ = ()
    explain = "gelu'({a})"
    replay = staticmethod(lambda xs, kw, outs: [_gelu_np(xs[0], kw["approximate"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.gelu_backward(g, x, self._kw["approximate"]),)


def _gelu_np(x, approximate):
    if approximate == "none" and x.dtype in (np.float32, np.float16) and type(x) is np.ndarray:
        # oneDNN's or ATen's kernel, as torch picks: torch's bits
        return gelu_kernel.gelu32(x) if x.dtype == np.float32 else gelu_kernel.gelu16(x)
    if approximate == "tanh":
        x_cube = x * x * x
        return 0.5 * x * (1 + np.tanh(GELU_BETA * (x + GELU_KAPPA * x_cube)))
    return x * 0.5 * (1 + host_kernel(erf_np)(x * SQRT1_2))


def gelu(input, approximate="none"):
    if not isinstance(approximate, str):  # the parser's (keyword-only: no position)
        raise errors.type_error(f"gelu(): argument 'approximate' must be str, not {typename(approximate)}")
    if approximate not in ("none", "tanh"):
        raise errors.runtime("approximate argument must be either none or tanh.")
    need_float(input, "GeluKernelImpl")
    r = _gelu_np(input._data, approximate)
    return record(GeluBackward0, (input,), wrap_as(r, input.dtype), {"approximate": approximate})


class SiluBackward0(Function):
    __slots__ = ()
    explain = "silu'({a})"
    replay = staticmethod(lambda xs, kw, outs: [xs[0] / (1 + np.exp(-xs[0]))])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        s = UM.sigmoid(x)
        return (g * s * EC.add_scalar(x * (1 - s), 1),)  # torch: grad * sigmoid * (1.0 + input * (1.0 - sigmoid))


def silu(input, inplace=False):
    return maybe_inplace(_silu, input, inplace)


def _silu(input):
    need_float(input, "silu_cpu")
    x = input._data
    r = numerics.silu(x)
    return record(SiluBackward0, (input,), wrap_as(r, input.dtype))


class MishBackward0(Function):
    __slots__ = ()
    explain = "mish'({a})"
    replay = staticmethod(lambda xs, kw, outs: [xs[0] * np.tanh(_softplus_np(xs[0], 1.0, 20.0))])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        s = UM.sigmoid(x)
        tsp = UM.tanh(softplus(x))
        return (g * (tsp + x * s * (1 - tsp * tsp)),)


def mish(input, inplace=False):
    return maybe_inplace(_mish, input, inplace)


def _mish(input):
    need_float(input, "mish_cpu")
    x = input._data
    r = x * np.tanh(_softplus_np(x, 1.0, 20.0))
    return record(MishBackward0, (input,), wrap_as(r, input.dtype))


class LogSigmoidBackward0(Function):
    __slots__ = ()
    explain = "1 - sigmoid({a})"
    replay = staticmethod(lambda xs, kw, outs: [-np.logaddexp(0.0, -xs[0])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        return (B.log_sigmoid_backward(g, x),)


def logsigmoid(input):
    need_float(input, "log_sigmoid_cpu")
    x = input._data
    r = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    return record(LogSigmoidBackward0, (input,), wrap_as(r, input.dtype))


def softsign(input):
    if input.dtype is dtypes.bool_:
        raise not_implemented("abs_cpu", input.dtype)
    return AR.div(input, AR.add(UM.abs(input), 1))


def tanhshrink(input):
    return AR.sub(input, UM.tanh(input))


class GluBackward0(Function):
    __slots__ = ()
    explain = "the glu Jacobian: sigmoid(b) on the first half, a * sigmoid(b) * (1 - sigmoid(b)) on the second"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [_glu_np(xs[0], kw["dim"])])
    save_inputs = True

    def backward(self, g):
        (x,) = self.saved
        d = self._kw["dim"]
        return (B.glu_backward(g, x, d),)


def glu(input, dim=-1):
    need_float(input, "glu_cpu")
    if input.ndim == 0:
        raise errors.runtime("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if n % 2:
        raise errors.runtime(f"Halving dimension must be even, but dimension {d} is size {n}")
    return record(GluBackward0, (input,), wrap_as(_glu_np(input._data, d), input.dtype), {"dim": d})


def _glu_np(x, d):
    """ATen's glu kernel: a * (1 / (1 + exp(-b))), in float for float16 (one rounding at the end); b is
    passed as the strided view the kernel reads, so the sigmoid's vector body and tail fall as in torch."""
    n = x.shape[d] // 2
    lead = (slice(None),) * d
    a = x[lead + (slice(0, n),)]
    b = x[lead + (slice(n, 2 * n),)]
    if x.dtype == np.float16:
        return (a.astype(np.float32) * numerics.sigmoid(b.astype(np.float32))).astype(np.float16)
    return a * numerics.sigmoid(b)


# ---------------------------------------------------------------------------- declarations

# One declaration per op (registry.py), joined into the special family's by special.py
OPS = [
    op("softplus", softplus, SoftplusBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"softplus": case(lambda torch, x0: torch.nn.functional.softplus(x0), V.WIDE),
              "softplus_beta": case(lambda torch, x: torch.nn.functional.softplus(x, 2.0, 3.0), V.WIDE)}),
    op("gelu", gelu, GeluBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"gelu": case(lambda torch, x0: torch.nn.functional.gelu(x0), V.WIDE),
              "gelu_tanh": case(lambda torch, x: torch.nn.functional.gelu(x, approximate='tanh'), V.WIDE)}),
    op("silu", silu, SiluBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"silu": case(lambda torch, x0: torch.nn.functional.silu(x0), V.WIDE)}),
    op("mish", mish, MishBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"mish": case(lambda torch, x0: torch.nn.functional.mish(x0), V.WIDE)}),
    op("logsigmoid", logsigmoid, LogSigmoidBackward0, method=False, torch=False, functional=True, sample=sample1(),
       cases={"logsigmoid": case(lambda torch, x0: torch.nn.functional.logsigmoid(x0), V.WIDE)}),
    op("softsign", softsign, method=False, torch=False, functional=True, sample=sample1(),
       cases={"softsign": case(lambda torch, x0: torch.nn.functional.softsign(x0), V.WIDE)}),  # div's and abs's nodes
    op("tanhshrink", tanhshrink, method=False, torch=False, functional=True, sample=sample1(),
       cases={"tanhshrink": case(lambda torch, x0: torch.nn.functional.tanhshrink(x0), V.WIDE)}),  # sub's and tanh's
    op("glu", glu, GluBackward0, method=False, torch=False, functional=True,
       sample=Sample([((4,),), ((2, 4),)]),
       cases={"glu": case(lambda torch, x0: torch.nn.functional.glu(x0), [V.A[:4], V.B[:4]])}),
]
