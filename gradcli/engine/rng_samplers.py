"""torch.poisson: ATen's CPU sampler (aten/src/ATen/native/Distributions.cpp, sample_poisson, NumPy's
algorithm) element by element in the output's order, each element drawing 53-bit double uniforms from the
generator as it needs them: for a rate of 10 or more Hoermann's transformed rejection (two uniforms a try),
below it the product of uniforms until it falls to exp(-rate) or under. The doubles go through the C library's
`log`, `exp`, `sqrt` and `lgamma` (Python's math calls the first three; lgamma is reached through ctypes, as
CPython's math.lgamma is its own). A rate that is negative or NaN raises torch's error when its element is reached
(the elements before it have drawn), and a draw past int64's range becomes int64's minimum, as the x86 conversion
of the C code makes it (torch.poisson(inf) is -9.2234e+18 there too)."""
from __future__ import annotations

import math

import numpy as np

from . import errors
from .autograd import make_node
from .autograd_modes import grad_mode
from .device import host, like
from .function import Function
from .limits import check_numel
from .ops.elementwise_common import kernel_error
from .rng_ops import gen_for, node_class, uniform53
from .tensor import Tensor, wrap

_INT64_MIN = -(1 << 63)
_lgamma = []


def _c_lgamma(x):
    if not _lgamma:
        try:
            import ctypes  # noqa: PLC0415

            fn = ctypes.CDLL(None).lgamma
            fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
        except (OSError, AttributeError):  # no C library to call: Python's own
            fn = math.lgamma
        _lgamma.append(fn)
    return _lgamma[0](x)


def _div(x, y):
    """x / y as C divides doubles (y == 0 gives an infinity or NaN, no exception)."""
    if y:
        return x / y
    return math.nan if x == 0 or x != x else math.copysign(math.inf, x) * math.copysign(1.0, y)


def _log(x):
    return math.log(x) if 0 < x < math.inf else -math.inf if x == 0 else x if x == math.inf else math.nan


def _floor(x):
    return float(math.floor(x)) if math.isfinite(x) else x


def _to_int64(x):
    """(int64_t)x on x86-64: the truncation, or int64's minimum for NaN and values out of its range."""
    if x != x or not -9.223372036854775808e18 <= x < 9.223372036854775808e18:
        return _INT64_MIN
    return int(x)


class _Uniforms:
    """The generator's 53-bit doubles one at a time, as the C loop draws them, taken from blocks: finish()
    rewinds the generator to the start of the last block and draws again only what was used of it, so the
    stream ends where one-at-a-time draws leave it."""
    __slots__ = ("g", "block", "used", "start", "size")

    def __init__(self, g, size):
        self.g = g
        self.size = max(16, int(size))
        self.block = None
        self.used = 0

    def __call__(self):
        if self.block is None or self.used == len(self.block):
            self.start = self.g.get_state_bytes()
            self.block = uniform53(self.g, self.size)
            self.used = 0
        self.used += 1
        return float(self.block[self.used - 1])

    def finish(self):
        if self.block is not None and self.used < len(self.block):
            self.g.set_state_bytes(self.start)
            uniform53(self.g, self.used)


def sample_poisson(lam, uniform):
    if not lam >= 0:
        raise errors.runtime("invalid Poisson rate, expected rate to be non-negative")
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = _to_int64(_floor((_div(2 * a, us) + b) * u + lam + 0.43))
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (_log(v) + math.log(invalpha) - _log(_div(a, us * us) + b)
                    <= -lam + k * loglam - _c_lgamma(float(k) + 1)):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x = 0
    prod = 1.0
    while True:
        prod *= uniform()
        if prod > enlam:
            x += 1
        else:
            return x


class PoissonBackwardFunction(Function):
    """torch.poisson's derivative: zeros of the rate's shape."""
    __slots__ = ()

    def backward(self, g):
        return (g.new_zeros(self._kw["shape"]),)


def poisson(input, generator=None):
    if not isinstance(input, Tensor):
        raise errors.type_error(f"poisson(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not input.dtype.is_floating_point or input.dtype.is_complex:
        raise kernel_error("poisson_cpu", input.dtype)
    check_numel(input.numel())
    g = gen_for(generator, input.device, "poisson")
    rates = np.asarray(host(input._data), np.float64).reshape(-1)
    with np.errstate(invalid="ignore"):  # expected draws: rate + 1 below 10, about 2.3 above
        expected = float(np.sum(np.where(rates < 10, np.nan_to_num(rates) + 1.0, 2.5)))
    uniform = _Uniforms(g, min(expected * 1.1 + 16, 1 << 20))
    try:
        drawn = np.array([float(sample_poisson(float(lam), uniform)) for lam in rates], np.float64)
    finally:
        uniform.finish()
    np_dtype = host(input._data).dtype
    out = wrap(like(input._data, drawn.astype(np_dtype).reshape(tuple(input.shape))), input.dtype)
    if grad_mode.enabled and input.requires_grad:
        out.grad_fn = make_node(node_class("PoissonBackward0", PoissonBackwardFunction), (input,), out.dtype, (),
                                {"shape": tuple(input.shape)})
        out._rg = True
    return out

