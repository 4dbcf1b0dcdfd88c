"""torch._sample_dirichlet and torch._dirichlet_grad, ATen's CPU kernels (aten/src/ATen/native/Distributions.cpp,
_s_dirichlet_cpu and _dirichlet_grad_cpu; Distributions.h's dirichlet_grad_one) element by element: the sample is
one sample_gamma<double> per element (engine/rng_samplers.py: torch's stream, at least DBL_MIN) divided by the sum
of its last dimension (in double, torch's order), cast to the dtype and kept within [FLT_MIN, 1 - ulp]; the
gradient is dirichlet_grad_one<scalar_t, double>, whose scalar_t steps round to float32 for a float kernel (the
Taylor series near 0 and 1 and digamma's float path: logf, powf), its accscalar_t ones in double.
torch.distributions.Dirichlet's rsample is _Dirichlet (a custom Function: grad_fn _DirichletBackward)."""
from __future__ import annotations

import math

import numpy as np

from . import api as torch
from .custom_function import Function, once_differentiable
from .device import host, like
from .limits import check_numel
from .ops.elementwise_common import kernel_error, not_implemented
from .rng_ops import gen_for
from .rng_samplers import digamma_one, libm_float, rounder, standard_gamma_values
from .tensor import wrap

def _log(x):
    return math.log(x) if 0 < x < math.inf else -math.inf if x == 0 else x if x == math.inf else math.nan


class _Scalar:
    """scalar_t's arithmetic: f rounds a result to scalar_t, log/pow/tan are the C library's for its type."""
    __slots__ = ("f", "log", "pow", "single")

    def __init__(self, single):
        self.single = single
        self.f = rounder(single)
        if single:
            logf, powf = libm_float("logf"), libm_float("powf")
            self.log = lambda x: logf(x) if x == x else x
            self.pow = powf
        else:
            self.log = _log
            self.pow = _pow

    def tan(self, x):
        return self.f(math.tan(x))


def _pow(x, y):
    try:
        return math.pow(x, y)
    except (OverflowError, ValueError):
        return math.inf if x == 0 and y < 0 else math.nan


def _div(x, y):
    if y:
        return x / y
    return math.nan if x == 0 or x != x else math.copysign(math.inf, x) * math.copysign(1.0, y)


def _grad_alpha_small(x, alpha, beta, s):
    f = s.f
    factor = f(f(digamma_one(alpha, s) - digamma_one(f(alpha + beta), s)) - s.log(x))
    numer = 1.0
    series = f(f(numer / alpha) * f(factor + f(_div(1, alpha))))
    for i in range(1, 11):
        numer = f(numer * f(f(f(i - beta) * x) / i))
        denom = f(alpha + i)
        series = f(series + f(f(numer / denom) * f(factor + f(1 / denom))))
    result = f(f(x * s.pow(f(1 - x), -beta)) * series)
    return 0.0 if result != result else result


def _grad_beta_small(x, alpha, beta, s):
    f = s.f
    factor = f(digamma_one(f(alpha + beta), s) - digamma_one(beta, s))
    numer, betas, dbetas = 1.0, 1.0, 0.0
    series = f(factor / alpha)
    for i in range(1, 9):
        numer = f(numer * f(-x / i))
        dbetas = f(f(dbetas * f(beta - i)) + betas)
        betas = f(betas * f(beta - i))
        series = f(series + f(f(numer / f(alpha + i)) * f(dbetas + f(factor * betas))))
    result = -f(s.pow(f(1 - x), f(1 - beta)) * series)
    return 0.0 if result != result else result


def _grad_alpha_mid(x, alpha, beta):
    """_beta_grad_alpha_mid<scalar_t, double>: Rice's saddle point, all in double."""
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:
        poly = (47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                        8 * (1 - x) * (135 * beta - 11))))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * _pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * _log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = beta * _log(beta / (total * (1 - x))) + alpha * _log(alpha / (total * x))
    term4 = _pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_C = (((( 1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),  # noqa: E201 - ATen's table's layout
        ( 0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),  # noqa: E201
        (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
       (( 0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),  # noqa: E201
        (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
        ( 0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),  # noqa: E201
       ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
        ( 0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),  # noqa: E201
        ( 0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),  # noqa: E201
      ((( 1, -0.02924021934, -0.04438342661, 0.007285809825),  # noqa: E201
        ( 0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),  # noqa: E201
        (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
       (( 0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),  # noqa: E201
        ( 0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),  # noqa: E201
        (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
       (( 0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),  # noqa: E201
        ( 0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),  # noqa: E201
        (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))))


def dirichlet_grad_one(x, alpha, total, s):
    """ATen's dirichlet_grad_one<scalar_t, double>: -(d/dalpha cdf(x; alpha, total - alpha)) / pdf / (1 - x)."""
    f = s.f
    beta = f(total - alpha)
    beta_ = total - alpha
    boundary = f(f(total * x) * f(1 - x))
    if x <= 0.5 and boundary < 2.5:
        return _grad_alpha_small(x, alpha, beta, s)
    if x >= 0.5 and boundary < 0.75:
        return -_grad_beta_small(f(1 - x), beta, alpha, s)
    if alpha > 6 and beta > 6:
        return f(_grad_alpha_mid(x, alpha, beta_))
    u = _log(x)
    a = _log(alpha) - u
    b = _log(total) - a
    pow_u = (1, u, u * u)
    pow_a = (1, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _C[0][i][j], _C[1][i][j]
            p += ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * f(digamma_one(f(total), s) - digamma_one(f(alpha), s)) / beta_
    return f(p / q * approx)


def _float_arrays(*tensors):
    return [np.asarray(host(t._data), np.float64) for t in tensors]


def dirichlet_grad(x, alpha, total):
    """torch._dirichlet_grad(x, alpha, total): dirichlet_grad_one element by element (broadcast)."""
    np_dtype = host(x._data).dtype
    if np_dtype not in (np.float32, np.float64):
        raise kernel_error("_dirichlet_grad_cpu", x.dtype)
    s = _Scalar(np_dtype == np.float32)
    xs, als, tots = np.broadcast_arrays(*_float_arrays(x, alpha, total))
    out = [dirichlet_grad_one(float(a), float(b), float(c), s) for a, b, c in
           zip(xs.reshape(-1), als.reshape(-1), tots.reshape(-1))]
    return wrap(like(x._data, np.array(out, np.float64).astype(np_dtype).reshape(xs.shape)), x.dtype)


def sample_dirichlet(alpha, generator=None):
    """torch._sample_dirichlet(alpha): Gamma(alpha) draws in double, normalised over the last dimension."""
    np_dtype = host(alpha._data).dtype
    if np_dtype not in (np.float32, np.float64):
        raise kernel_error("dirichlet", alpha.dtype)
    check_numel(alpha.numel())
    g = gen_for(generator, alpha.device, "_sample_dirichlet")
    alphas = np.asarray(host(alpha._data), np.float64)
    gamma = standard_gamma_values(alphas.reshape(-1), np.float64, g).reshape(alphas.shape)
    gamma_t = wrap(gamma, torch.float64)
    total = host(gamma_t.sum(-1, keepdim=True)._data) if alphas.ndim else gamma
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (gamma / total).astype(np_dtype)
    info = np.finfo(np_dtype)
    ratio = np.minimum(np.nextafter(np_dtype.type(1), np_dtype.type(0)), np.maximum(info.tiny, ratio))
    out = wrap(like(alpha._data, ratio.astype(np_dtype)), alpha.dtype)
    return not_implemented(out, (alpha,), "aten::_sample_dirichlet")


def dirichlet_backward(x, concentration, grad_output):
    """torch/distributions/dirichlet.py's _Dirichlet_backward."""
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = dirichlet_grad(x, concentration, total)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(Function):
    @staticmethod
    def forward(ctx, concentration):
        x = sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return dirichlet_backward(x, concentration, grad_output)


def dirichlet_rsample(concentration):
    """Dirichlet's rsample: a sample whose grad_fn is torch's <_DirichletBackward> (the class keeps
    torch's private name, which the node's name is made of)."""
    return _Dirichlet.apply(concentration)
