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
from .ops.elementwise_common import broadcast_error, c10_name, kernel_error, not_implemented
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



# ---------------------------------------------------------------------------- the standard Gamma

_F1_3 = float(np.float32(1.0) / np.float32(3.0))  # C's 1.0f / 3.0f, a float constant
_F0331 = float(np.float32(0.0331))
_F08, _F09, _F11, _F1E17 = (float(np.float32(v)) for v in (0.8, 0.9, 1.1, 1.0e17))


class _Normals:
    """at::normal_distribution<double>(0, 1) on _Uniforms: Box-Muller of two doubles, r*cos returned and
    r*sin kept for the next draw, in the generator's cache (written back by finish())."""
    __slots__ = ("uniform", "cached")

    def __init__(self, uniform, cached):
        self.uniform = uniform
        self.cached = cached

    def __call__(self):
        if self.cached is not None:
            z, self.cached = self.cached, None
            return z
        u1 = self.uniform()
        u2 = self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2)) if u2 < 1.0 else math.inf
        theta = 2.0 * math.pi * u1
        self.cached = r * math.sin(theta)
        return r * math.cos(theta)


def sample_gamma(alpha, single, uniform, normal):
    """ATen's sample_gamma<scalar_t, double> (Marsaglia and Tsang, alpha < 1 boosted); `single`: scalar_t is
    float, whose alpha arithmetic rounds to float where the C code's stays in scalar_t."""
    f = np.float32 if single else float
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        scale *= math.pow(1 - uniform(), float(f(1.0) / f(alpha)) if single else 1.0 / alpha)
        alpha = float(f(alpha) + f(1.0))
    d = float(f(alpha) - f(_F1_3))
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = normal()
            y = 1.0 + c * x
            if not y <= 0:
                break
        v = y * y * y
        u = 1 - uniform()
        xx = x * x
        if u < 1.0 - _F0331 * xx * xx:
            return scale * d * v
        if _log(u) < 0.5 * xx + d * (1.0 - v + _log(v)):
            return scale * d * v


def standard_gamma_values(alphas, np_dtype, g):
    """torch._standard_gamma's values: one sample_gamma per element in order, at least the dtype's smallest
    normal number, drawing from the generator as the C loop does."""
    single = np_dtype == np.float32
    tiny = float(np.finfo(np_dtype).tiny)
    cached = g.normal_double
    uniform = _Uniforms(g, alphas.size * 3 + 16)
    normal = _Normals(uniform, cached)
    try:
        out = [max(tiny, float(np_dtype(sample_gamma(float(a), single, uniform, normal)))) for a in alphas]
    finally:
        uniform.finish()
        g.normal_double = normal.cached
    return np.array(out, np_dtype)


def _polevl(z, coefs):
    ans = coefs[0]
    for c in coefs[1:]:
        ans = ans * z + c
    return ans


_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


_PI_F = float(np.float32(math.pi))


def _same(x):
    return x


def digamma_one(x, s=None):
    """ATen's digamma_one<scalar_t, double> (Cephes): double's when s is None, otherwise scalar_t's steps
    rounded by s (rng_dirichlet's float32 kernel: x, 1 / x, logf(x), 0.5f / x in float; the sums in double)."""
    f, log = (s.f, s.log) if s is not None else (_same, _log)
    if x == 0:
        return math.inf
    additional = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        if s is None:
            additional = -math.pi / math.tan(math.pi * x)
        else:
            pi = _PI_F if s.single else math.pi
            additional = f(-pi / s.tan(f(pi * x)))
        x = f(1 - x)
    result = 0.0
    while x < 10:
        result -= f(1 / x)
        x = f(x + 1)
    if x == 10:
        return f(result + 2.25175258906672110764 + additional)
    y = 0.0
    if x < _F1E17:  # 1.0e17f
        z = 1.0 / f(x * x)
        y = z * _polevl(z, _PSI_A)
    return f(result + log(x) - f(0.5 / x) - y + additional)


_COEF_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
             -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
             -1.5247877e-07))


def standard_gamma_grad_one(alpha, x):
    """ATen's standard_gamma_grad_one<scalar_t, double>: -(d/dalpha cdf(x; alpha)) / pdf(x; alpha)."""
    if x < _F08:
        numer, denom = 1.0, alpha
        series1, series2 = _div(numer, denom), _div(numer, denom * denom)
        for i in range(1, 6):
            numer *= -x / float(i)
            denom += 1
            series1 += _div(numer, denom)
            series2 += _div(numer, denom * denom)
        pow_x_alpha = math.pow(x, alpha)
        gamma_pdf = math.pow(x, alpha - 1) * math.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (_log(x) - digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2
        result = _div(-gamma_cdf_alpha, gamma_pdf)
        return 0.0 if result != result else result
    if alpha > 8.0:
        if _F09 * alpha <= x <= _F11 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
                       + alpha * (107 + 3600 * x))
            denom = 1244160 * (alpha * alpha) * (alpha * alpha)
            return numer_1 * numer_2 / denom
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = math.pow(x - alpha - alpha * _log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = _log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denom
    u = _log(x / alpha)
    v = _log(alpha)
    coef_v = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
    p = coef_v[0] + v * (coef_v[1] + v * (coef_v[2] + v * coef_v[3]))
    q = coef_v[4] + v * (coef_v[5] + v * (coef_v[6] + v * coef_v[7]))
    return math.exp(p / q)


class StandardGammaBackwardFunction(Function):
    """torch._standard_gamma's derivative: grad * _standard_gamma_grad(alpha, sample), element by element."""
    __slots__ = ()

    def backward(self, g):
        alpha, sample = self._kw["alpha"], self._kw["sample"]
        np_dtype = sample.dtype
        grads = np.array([float(np_dtype.type(standard_gamma_grad_one(float(a), float(x))))
                          for a, x in zip(alpha.reshape(-1), sample.reshape(-1))], np_dtype).reshape(sample.shape)
        local = wrap(like(g._data, grads), g.dtype)
        return (g * local,)


def standard_gamma(alpha, generator=None):
    """torch._standard_gamma (Gamma's and Chi2's rsample): StandardGammaBackward0 where alpha requires grad."""
    if not alpha.dtype.is_floating_point or alpha.dtype.is_complex:
        raise kernel_error("gamma_cpu", alpha.dtype)
    check_numel(alpha.numel())
    g = gen_for(generator, alpha.device, "_standard_gamma")
    data = host(alpha._data)
    values = standard_gamma_values(np.asarray(data, np.float64).reshape(-1), data.dtype.type, g)
    out = wrap(like(alpha._data, values.reshape(tuple(alpha.shape))), alpha.dtype)
    if grad_mode.enabled and alpha.requires_grad:
        out.grad_fn = make_node(node_class("StandardGammaBackward0", StandardGammaBackwardFunction), (alpha,),
                                out.dtype, (), {"alpha": np.array(data), "sample": values.reshape(data.shape)})
        out._rg = True
    return out


# ---------------------------------------------------------------------------- the binomial (torch.binomial)

_libm_float = {}


def libm_float(name):
    """glibc's float function `name` (logf, log1pf, powf...) through ctypes: ATen's float kernels call them
    where std::log & co. take a float; a correctly rounded stand-in where no C library is found."""
    fn = _libm_float.get(name)
    if fn is None:
        try:
            import ctypes  # noqa: PLC0415

            fn = getattr(ctypes.CDLL(None), name)
            fn.restype = ctypes.c_float
            fn.argtypes = [ctypes.c_float] * (2 if name == "powf" else 1)
        except (OSError, AttributeError):  # no C library to call: the double function rounded
            fn = {"logf": _log, "log1pf": lambda x: _log(1 + x) if x > -1 else _log(0.0),
                  "powf": math.pow}[name]
        _libm_float[name] = fn
    return fn


def rounder(single):
    """scalar_t's rounding of a double result: float32's for a float kernel (exact for + - * / of floats:
    a double result rounded once more gives the float operation's own result), none for double."""
    if single:
        return lambda v: float(np.float32(v))
    return float


_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509, 0.0166446911898211,
         0.0138761288230707, 0.0118967099458917, 0.0104112652619720, 0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    if k < 10:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(count, prob, uniform, f):
    geom_sum = 0.0
    num_geom = 0.0
    logprob = libm_float("log1pf")(-prob) if f is not float else math.log1p(-prob)
    while True:
        geom = math.ceil(_div(_log(uniform()), logprob))
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom += 1


def _btrs(count, prob, uniform, f):
    """ATen's btrs<scalar_t, double> (Hoermann's transformed rejection): the scalar_t products in f."""
    stddev = f(math.sqrt(f(f(count * prob) * f(1 - prob))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = f(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = f(prob / f(1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(f(f(count + 1) * prob))
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        k = f(_floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = _log(v * alpha / (a / (us * us) + b))
        upperbound = ((m + 0.5) * _log((m + 1) / (r * (count - m + 1)))
                      + f(count + 1) * _log((count - m + 1) / f(f(count - k) + 1))
                      + (k + 0.5) * _log(r * f(f(count - k) + 1) / f(k + 1))
                      + _stirling_tail(m) + _stirling_tail(count - m) - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= upperbound:
            return k


def sample_binomial(count, prob, uniform, f):
    """ATen's sample_binomial<scalar_t, double>: btrs where count * p (or its complement) reaches 10, else the
    inversion of geometric waiting times; a NaN probability gives NaN."""
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if f(count * prob) >= 10.0:
            return _btrs(count, prob, uniform, f)
        return _binomial_inversion(count, prob, uniform, f)
    if prob > 0.5:
        qprob = f(1.0 - prob)
        if f(count * qprob) >= 10.0:
            return f(count - _btrs(count, qprob, uniform, f))
        return f(count - _binomial_inversion(count, qprob, uniform, f))
    return math.nan


def binomial(count, prob, generator=None):
    """torch.binomial: sample_binomial per element of the broadcast shape in order, 53-bit double uniforms from
    the generator as the C loop draws them; a NotImplemented node where an input requires grad."""
    for name, pos, value in (("count", 1, count), ("prob", 2, prob)):
        if not isinstance(value, Tensor):
            raise errors.type_error(f"binomial(): argument '{name}' (position {pos}) must be Tensor, "
                                    f"not {type(value).__name__}")
    for name, value in (("count", count), ("prob", prob)):
        if not value.dtype.is_floating_point or value.dtype.is_complex:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: {c10_name(value.dtype)}")
    if prob.dtype != count.dtype:
        raise errors.runtime(f"Found dtype {c10_name(prob.dtype)} but expected {c10_name(count.dtype)}")
    np_dtype = host(count._data).dtype
    if np_dtype not in (np.float32, np.float64):
        raise kernel_error("binomial_cpu", count.dtype)
    try:
        shape = np.broadcast_shapes(tuple(count.shape), tuple(prob.shape))
    except ValueError:
        raise broadcast_error(count, prob) from None
    check_numel(math.prod(shape))
    g = gen_for(generator, count.device, "binomial")
    f = rounder(np_dtype == np.float32)
    counts = np.broadcast_to(np.asarray(host(count._data), np.float64), shape).reshape(-1)
    probs = np.broadcast_to(np.asarray(host(prob._data), np.float64), shape).reshape(-1)
    uniform = _Uniforms(g, min(counts.size * 4 + 16, 1 << 20))
    try:
        drawn = [sample_binomial(float(n), float(q), uniform, f) for n, q in zip(counts, probs)]
    finally:
        uniform.finish()
    out = wrap(like(count._data, np.array(drawn, np.float64).astype(np_dtype).reshape(shape)), count.dtype)
    return not_implemented(out, (count, prob), "aten::binomial")
