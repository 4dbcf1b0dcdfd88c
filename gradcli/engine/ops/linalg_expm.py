"""The matrix exponential: torch.linalg.matrix_exp, torch.matrix_exp and Tensor.matrix_exp.

torch's own algorithm (ATen's LinearAlgebra.cpp, after Bader, Blanes and Casas, "Computing the Matrix
Exponential with an Optimized Taylor Polynomial Approximation", 2019): a single matrix takes the Taylor
polynomial of degree 1, 2, 4, 8, 12 or 18 that its 1-norm allows (the dtype's thresholds), a batch of
several always degree 18 with scaling and squaring; the same coefficients in the dtype, the same
products in the same order (NumPy's matmul: the last bits of a product may differ, docs/numerics.md).
The backward is torch's linalg_matrix_exp_differential: exp of the block matrix [[A^T, G], [0, A^T]],
whose upper-right block is the gradient, on Tensors, so it differentiates again.
"""
from __future__ import annotations

import numpy as np

from .. import errors
from ..device import host, like
from ..function import Function, record
from ..tensor import wrap
from . import linalg_extra as LX
from . import shape as S
from .join_split import cat, narrow
from .linalg import small_bmm
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare

_THETAS = {
    np.dtype(np.float32): (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                           5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00),
    np.dtype(np.float64): (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                           4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00),
}
_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))
_B18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.),
        (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
         -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


def _mm(a, b):
    """at::matmul of two stacks (B, n, n): bmm, whose products below 400 multiply-adds a matrix are ATen's
    own loop (linalg.small_bmm), BLAS's above."""
    n = a.shape[-1]
    if n * n * n < 400 and a.size:
        return small_bmm(a, b)
    return a @ b


def _powers(a, k):
    """[I, A, A^2, A^3, A^6][:k] (torch's _fill_matrix_powers)."""
    n = a.shape[-1]
    out = [np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape).copy(), a]
    if k > 2:
        out.append(_mm(a, a))
    if k > 3:
        out.append(_mm(a, out[2]))
    if k > 4:
        out.append(_mm(out[3], out[3]))
    return out


def _lincomb(mats, coeffs, dt):
    """sum_j c_j M_j, the coefficients in the dtype, accumulated in order (_compute_linear_combination)."""
    out = np.zeros_like(mats[0])
    for c, m in zip(coeffs, mats):
        out = out + dt.type(c) * m
    return out


def _t1(a):
    i, a1 = _powers(a, 2)
    return i + a1


def _t2(a):
    i, a1, a2 = _powers(a, 3)
    return i + a1 + a2 / a.dtype.type(2)


def _t4(a):
    dt = a.dtype
    p = _powers(a, 3)
    p.append(_mm(p[2], _lincomb(p, (1 / 2.0, 1 / 6.0, 1 / 24.0), dt)))
    return _lincomb(p, (1.0, 1.0, 0.0, 1.0), dt)


def _t8(a):
    dt = a.dtype.type
    s177 = float(dt(0.1330413469565007072504e+2))
    x3 = float(dt(2. / 3.))
    x1, x2 = x3 * ((1. + s177) / 88.), x3 * ((1. + s177) / 352.)
    x4, x5 = (-271. + 29. * s177) / (315. * x3), (-11. + 11. * s177) / (1260. * x3)
    x6, x7 = (-99. + 11. * s177) / (5040. * x3), (89. - s177) / (5040. * x3)
    y2 = (857. - 58. * s177) / 630.
    p = _powers(a, 3)
    p.append(_mm(p[2], _lincomb(p[1:3], (x1, x2), a.dtype)))
    p.append(_mm(_lincomb(p[2:4], (x3, 1.0), a.dtype), _lincomb(p[0:4], (x4, x5, x6, x7), a.dtype)))
    return _lincomb(p, (1.0, 1.0, y2, 0.0, 1.0), a.dtype)


def _t12(a):
    p = _powers(a, 4)
    b = [_lincomb(p, row, a.dtype) for row in _B12]
    b[2] = b[2] + _mm(b[3], b[3])
    b[1] = b[1] + b[2]
    return b[0] + _mm(b[1], b[2])


def _t18(a):
    p = _powers(a, 5)
    b = [_lincomb(p, row, a.dtype) for row in _B18]
    b[3] = b[3] + _mm(b[0], b[4])
    b[2] = b[2] + b[3]
    return b[1] + _mm(b[2], b[3])


def _t18_scale_square(a, norm, theta):
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.maximum(np.ceil(np.log2(norm / a.dtype.type(theta))), 0)
    pow2s = np.power(a.dtype.type(2), -s).astype(a.dtype)
    r = _t18(a * pow2s[:, None, None])
    out = np.empty_like(r)
    for i in range(a.shape[0]):
        m = r[i:i + 1]
        steps = int(s[i]) if np.isfinite(s[i]) else 0
        for _ in range(steps):
            m = _mm(m, m)
        out[i] = m
    return out


def matrix_exp_array(a):
    """exp of a stack of square matrices (any batch shape), as torch's mexp computes it."""
    n = a.shape[-1]
    if n == 0:
        return a.copy()
    if n == 1:
        from .unary_math import ExpBackward0  # noqa: PLC0415 - torch.exp's kernel (its float32 bits)
        return ExpBackward0.forward(np.ascontiguousarray(a))
    a3 = a.reshape((-1, n, n))
    norm = np.abs(a3).sum(-2).max(-1)  # operator_1_norm
    thetas = _THETAS[a.dtype]
    if a3.shape[0] > 1:
        return _t18_scale_square(a3, norm, thetas[5]).reshape(a.shape)
    res = np.full_like(a3, np.nan)
    lower = -1.0
    for theta, fn in zip(thetas[:5], (_t1, _t2, _t4, _t8, _t12)):
        pick = (lower < norm) & (norm <= a.dtype.type(theta))
        if pick.any():
            res[pick] = fn(a3[pick])
        lower = a.dtype.type(theta)
    big = norm >= a.dtype.type(thetas[4])
    if big.any():
        res[big] = _t18_scale_square(a3[big], norm[big], thetas[5])
    return res.reshape(a.shape)


class LinalgMatrixExpBackward0(Function):
    __slots__ = ()
    explain = "the upper-right block of exp([[{a}^T, grad], [0, {a}^T]])"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [matrix_exp_array(np.asarray(xs[0])).reshape(outs[0])])
    save_inputs = True

    def backward(self, g):
        (A,) = self.saved
        return (matrix_exp_differential(A, g),)


def matrix_exp_differential(A, g):
    """torch's linalg_matrix_exp_differential (adjoint): the upper-right n x n block of exp([[A^H, G], [0, A^H]])."""
    At = S.transpose(A, -2, -1)
    n = At.shape[-1]
    zeros = wrap(like(At._data, np.zeros(At.shape), At.dtype.np), At.dtype)
    buffer = cat([cat([At, g], -1), cat([zeros, At], -1)], -2)
    return narrow(narrow(linalg_matrix_exp(buffer), -2, 0, n), -1, n, n)


def linalg_matrix_exp(A):
    name = "linalg.matrix_exp"
    if A._data.ndim < 2:
        raise errors.runtime(f"{name}: The input tensor A must have at least 2 dimensions.")
    n, m = A._data.shape[-2:]
    if n != m:
        raise errors.runtime(f"{name}: A must be batches of square matrices, but they are {n} by {m} matrices")
    if not A.dtype.is_floating_point:
        raise errors.runtime(f"{name}: Expected a floating point or complex tensor as input. Got {LX.c10(A.dtype)}")
    a = host(A._data)
    if a.dtype not in _THETAS:  # float16, bfloat16: ATen computes in float32 and rounds back
        r = matrix_exp_array(a.astype(np.float32)).astype(a.dtype)
    else:
        r = matrix_exp_array(a)
    out = wrap(like(A._data, np.ascontiguousarray(r), A.dtype.np), A.dtype)
    return record(LinalgMatrixExpBackward0, (A,), out)


# ---------------------------------------------------------------------------- declarations

OPS = [
    declare("matrix_exp", linalg_matrix_exp, LinalgMatrixExpBackward0, linalg=True, sample=Sample(
        [((2, 2),), ((3, 3),), ((2, 3, 3),), ((1, 1),)], ("unit",)),
        cases={"matrix_exp": case(lambda torch, a: torch.linalg.matrix_exp(a), V.M33),
               "matrix_exp_small": case(lambda torch, a: torch.matrix_exp(a * 0.01), V.M33)}),
]


_TABLES = tables(OPS, lazy_inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
