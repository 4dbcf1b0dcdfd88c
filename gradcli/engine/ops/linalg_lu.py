"""LU factorisation with partial pivoting: torch.linalg.lu_factor / lu_factor_ex / lu / lu_solve,
torch.lu, torch.lu_unpack, torch.lu_solve (and the Tensor methods lu, lu_solve).

The factorisation is LAPACK's unblocked getf2 (column by column: idamax's pivot, the row swap, the
column scaled by the reciprocal of its pivot, the rank-1 update of the rest), which is what torch's
MKL getrf computes, bit for bit, on the small matrices measured (docs/numerics.md, "LU"); one rule of
MKL's own: on a square matrix of order 4 at most, the last multiplier (one element below its pivot) is
divided by the pivot, not multiplied by its reciprocal. Larger matrices (from about 16 by 16) go through
MKL's blocked kernels, whose last bits may differ. The solves are getrs: the row swaps, then the two
triangular systems (linalg_factor.tri_solve, reference trsm's order). The backward formulas are torch's
(FunctionsManual.cpp: lu_factor_ex_backward, linalg_lu_backward, linalg_lu_solve_LU,
lu_unpack_backward) on Tensors, so they differentiate again.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..argcheck import typename
from ..device import host, like
from ..limits import check_broadcast, check_shape, metered
from ..function import Function, MultiOutputFunction, record, record_multi
from ..tensor import Tensor, wrap
from . import linalg_extra as LX
from . import shape as S
from .join_split import cat, narrow
from .linalg_factor import solve_triangular
from .matmul import matmul
from .reduction import return_type
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare
from .shape import sum_to
from .special_common import not_implemented, warn_once

LuFactorResult = return_type("linalg_lu_factor", ("LU", "pivots"))
LuFactorExResult = return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
LuWithInfoResult = return_type("_lu_with_info", ("LU", "pivots", "info"))
LuResult = return_type("linalg_lu", ("P", "L", "U"))
LuUnpackResult = return_type("lu_unpack", ("P", "L", "U"))

_LU_WARNING = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in "
    "a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
    "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
    "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots) (Triggered "
    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)")
_LU_SOLVE_WARNING = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
    "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\n"
    "should be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)")
_LAPACK_TYPES = (dtypes.float32, dtypes.float64)


def _mT(t):
    return S.transpose(t, -2, -1)


def _need_tensor(fname, pname, position, value):
    """PyTorch's argument parser on a non-Tensor where a Tensor goes."""
    if not isinstance(value, Tensor):
        where = f" (position {position})" if position else ""
        raise errors.type_error(f"{fname}(): argument '{pname}'{where} must be Tensor, not {typename(value)}")


def _need_bool(fname, pname, value):
    if not isinstance(value, bool):
        raise errors.type_error(f"{fname}(): argument '{pname}' must be bool, not {typename(value)}")


# ---------------------------------------------------------------------------- kernels (arrays)

def _idamax(col):
    """BLAS idamax: the first largest |x| (a NaN first wins; a NaN later is never larger)."""
    a = np.abs(col)
    if np.isnan(a[0]):
        return 0
    return int(np.argmax(np.where(np.isnan(a), -1, a)))


def getf2(a):
    """LAPACK's dgetf2 on one matrix, in place: (pivots, 1-based; info)."""
    m, n = a.shape
    k = min(m, n)
    piv = np.zeros(k, np.int32)
    info = 0
    one = a.dtype.type(1)
    tiny = np.finfo(a.dtype).tiny
    small = m == n and n <= 4  # MKL's small kernels divide the last multiplier
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + _idamax(a[j:, j])
            piv[j] = p + 1
            if a[p, j] != 0:
                if p != j:
                    a[[j, p]] = a[[p, j]]
                if j + 1 < m:
                    if abs(a[j, j]) < tiny or (small and m - j == 2):
                        a[j + 1:, j] /= a[j, j]
                    else:
                        a[j + 1:, j] *= one / a[j, j]
            elif info == 0:
                info = j + 1
            if j + 1 < k:
                a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return piv, info


def getrf(a):
    """(LU, pivots int32, info int32) of a stack of matrices (host arrays)."""
    m, n = a.shape[-2:]
    flat = np.array(a.reshape((math.prod(a.shape[:-2]), m, n)), copy=True)  # -1: no empty matrix
    piv = np.zeros((flat.shape[0], min(m, n)), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    for b in metered(range(flat.shape[0])):  # a Python loop per matrix: each a step (1e7 1x1 matrices ran uncounted)
        piv[b], info[b] = getf2(flat[b])
    batch = a.shape[:-2]
    return flat.reshape(a.shape), piv.reshape(batch + (min(m, n),)), info.reshape(batch)


def permutation(piv, m, dt):
    """P (m by m, in dt) with A = P L U from LAPACK's 1-based row interchanges (a stack)."""
    batch = piv.shape[:-1]
    check_shape(batch + (m, m))  # m by m from m pivots: lu of a 100,000 by 1 matrix asked for 40 GB
    flat = piv.reshape(math.prod(batch), piv.shape[-1])
    P = np.zeros((flat.shape[0], m, m), dt)
    for b, row in enumerate(flat):
        perm = np.arange(m)
        for i, p in enumerate(row):
            perm[i], perm[p - 1] = perm[p - 1], perm[i]
        P[b, perm, np.arange(m)] = 1
    return P.reshape(batch + (m, m))


def unpack_arrays(lu):
    """(L, U) of packed factors (unit diagonal of L put back)."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    U = np.triu(lu[..., :k, :])
    return L, U


def _swap_rows(x, piv, reverse=False):
    """LAPACK's laswp on a stack x (..., n, k) with pivots (..., n) of the same batch."""
    order = range(piv.shape[-1] - 1, -1, -1) if reverse else range(piv.shape[-1])
    flat_x = x.reshape((math.prod(x.shape[:-2]),) + x.shape[-2:])
    flat_p = piv.reshape(math.prod(piv.shape[:-1]), piv.shape[-1])
    for b in range(flat_x.shape[0]):
        for i in order:
            p = flat_p[b, i] - 1
            if p != i:
                flat_x[b, [i, p]] = flat_x[b, [p, i]]
    return flat_x.reshape(x.shape)


def _dot_solve(t, x, lower, unit):
    """x <- T^-1 x for a triangular T (a stack; only its triangle read), row by row: each row's products
    summed first, from the far end of the row towards the diagonal, no FMA, then subtracted from the
    right-hand side and multiplied by the pivot's reciprocal: MKL's getrs order on small matrices
    (docs/numerics.md)."""
    n = t.shape[-1]
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        for i in (range(n) if lower else range(n - 1, -1, -1)):
            js = list(range(i)) if lower else list(range(n - 1, i, -1))
            if js:
                s = t[..., i, js[0], None] * x[..., js[0], :]
                for j in js[1:]:
                    s = s + t[..., i, j, None] * x[..., j, :]
                x[..., i, :] = x[..., i, :] - s
            if not unit:
                x[..., i, :] = x[..., i, :] * (one / t[..., i, i, None])
    return x


def lu_solve_arrays(lu, piv, b, left=True, adjoint=False):
    """getrs: X with A X = B (adjoint: A^H X = B; not left: X A = B, X A^H = B), A = P L U packed in lu."""
    if not left:
        return np.swapaxes(lu_solve_arrays(lu, piv, np.swapaxes(b, -1, -2), True, not adjoint), -1, -2)
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    lu = np.broadcast_to(lu, batch + lu.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:])
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), lu.dtype, copy=True)
    if not adjoint:  # L y = P^T b, then U x = y (measured equal to torch up to 7 by 7)
        x = _dot_solve(lu, _swap_rows(x, piv), True, True)
        return _dot_solve(lu, x, False, False)
    luT = np.swapaxes(lu, -1, -2)  # U^T y = b, L^T z = y, x = P z (measured equal up to 4 by 4)
    x = _dot_solve(luT, x, True, False)
    x = _dot_solve(luT, x, False, True)
    return _swap_rows(x, piv, reverse=True)


# ---------------------------------------------------------------------------- checks

def _dims(name, A):
    if A._data.ndim < 2:
        raise errors.runtime(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                             f"[{', '.join(map(str, A._data.shape))}] instead")


def _factor_checks(A, pivot, dims_name):
    _dims(dims_name, A)
    if A.dtype not in _LAPACK_TYPES:
        raise not_implemented("lu_cpu", A.dtype)
    if not pivot:
        raise errors.runtime("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _out(A, r, dt=None):
    dt = dt or A.dtype
    return wrap(like(A._data, np.array(r, dt.np, order="C"), dt.np), dt)


# ---------------------------------------------------------------------------- the backward formulas (Tensors)

def _unpack_tensors(LU, pivots, unpack_pivots=True):
    """at::lu_unpack in a backward: (P or None, L, U), recorded (LuUnpackBackward0) as torch records it."""
    P, L, U = lu_unpack(LU, pivots, True, unpack_pivots)
    return (P if unpack_pivots else None), L, U


def lu_backward(gL, gU, P, L, U, pivot=True):
    """torch's linalg_lu_backward (real case), op for op: None where a gradient is undefined."""
    if gL is None and gU is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        gA = LX.tril(matmul(_mT(L), gL), -1) if gL is not None else None
        if gU is not None:
            t = LX.triu(matmul(gU, _mT(U)))
            gA = t if gA is None else gA + t
        gA = solve_triangular(_mT(U), gA, upper=False, left=False)
        gA = solve_triangular(_mT(L), gA, upper=True, left=True, unitriangular=True)
        return matmul(P, gA) if pivot else gA
    if m < n:
        U1 = U if n == k else narrow(U, -1, 0, k)
        gA = matmul(_mT(L), gL) if gL is not None else None
        if gU is not None:
            t = matmul(LX.triu(gU), _mT(U))
            gA = -t if gA is None else gA - t
        gA = solve_triangular(_mT(U1), LX.tril(gA, -1), upper=False, left=False)
        if gU is not None:
            gU1 = gU if n == k else narrow(gU, -1, 0, k)
            gA = cat([gA + LX.triu(gU1), narrow(gU, -1, k, n - k)], -1)
        gA = solve_triangular(_mT(L), gA, upper=True, left=True, unitriangular=True)
        if gU is None:
            gA = cat([gA, _out(U, np.zeros(U.shape[:-1] + (n - k,), U.dtype.np))], -1)
        return matmul(P, gA) if pivot else gA
    L1 = L if m == k else narrow(L, -2, 0, k)
    gA = matmul(gU, _mT(U)) if gU is not None else None
    if gL is not None:
        t = matmul(_mT(L), LX.tril(gL, -1))
        gA = -t if gA is None else gA - t
    gA = solve_triangular(_mT(L1), LX.triu(gA), upper=True, left=True, unitriangular=True)
    if gL is not None:
        gL1 = gL if m == k else narrow(gL, -2, 0, k)
        gA = cat([gA + LX.tril(gL1, -1), narrow(gL, -2, k, m - k)], -2)
    gA = solve_triangular(_mT(U), gA, upper=False, left=False)
    if gL is None:
        gA = cat([gA, _out(L, np.zeros(L.shape[:-2] + (m - k, L.shape[-1]), L.dtype.np))], -2)
    return matmul(P, gA) if pivot else gA


class LinalgLuFactorExBackward0(Function):
    __slots__ = ()
    explain = "P L^-H (L^H tril(grad) + triu(grad) U^H) U^-H: torch's lu_factor_ex_backward"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [getrf(xs[0])[0].reshape(outs[0])])
    save_output = True

    def backward(self, g):
        (LU,) = self.saved[-1:]
        pivots = self._kw["pivots"]
        P, L, U = _unpack_tensors(LU, pivots, True)
        m, n = LU.shape[-2:]
        k = min(m, n)
        return (lu_backward(narrow(g, -1, 0, k), narrow(g, -2, 0, k), P, L, U, True),)


class LinalgLuBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = "P L^-H (L^H grad_L o 1_L + grad_U U^H o 1_U) U^-H: torch's linalg_lu_backward"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [r.reshape(o) for r, o in zip(unpack_arrays(getrf(xs[0])[0]), outs)])

    def materialize(self, grads):
        return list(grads)

    def backward(self, grads):
        gL, gU = (list(grads) + [None, None])[:2]
        L, U = self.saved[-2:]
        return (lu_backward(gL, gU, self._kw["P"], L, U, True),)


class LuUnpackBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = "tril(grad_L, -1) + triu(grad_U): the packed factors' places"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [r.reshape(o) for r, o in zip(unpack_arrays(xs[0]), outs)])

    def materialize(self, grads):
        return list(grads)

    def backward(self, grads):
        gL, gU = (list(grads) + [None, None])[:2]
        m, n = self._kw["m"], self._kw["n"]
        return (lu_unpack_backward(gL, gU, m, n),)


def lu_unpack_backward(gL, gU, m, n):
    """torch's lu_unpack_backward."""
    if gL is None and gU is None:
        return None
    k = min(m, n)
    if gL is not None and gU is not None:
        if m == n:
            return LX.tril(gL, -1) + LX.triu(gU)
        gL1 = LX.tril(gL if m == k else narrow(gL, -2, 0, k), -1)
        gU1 = LX.triu(gU if n == k else narrow(gU, -1, 0, k))
        A2 = narrow(gL, -2, k, m - k) if m > n else narrow(gU, -1, k, n - k)
        return cat([gL1 + gU1, A2], -2 if m > n else -1)
    if gL is not None:
        if m >= n:
            return LX.tril(gL, -1)
        return cat([LX.tril(gL, -1), _out(gL, np.zeros(gL.shape[:-1] + (n - m,), gL.dtype.np))], -1)
    if n >= m:
        return LX.triu(gU)
    return cat([LX.triu(gU), _out(gU, np.zeros(gU.shape[:-2] + (m - n, gU.shape[-1]), gU.dtype.np))], -2)


class LinalgLuSolveBackward0(Function):
    __slots__ = ()
    explain = ("torch's linalg_lu_solve_LU: the gradient of the packed factors",
               "lu_solve({pa}, pivots, grad, adjoint=not adjoint)")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [lu_solve_arrays(xs[0], host(kw["pivots"]._data), xs[1], kw["left"],
                                                                kw["adjoint"]).reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        LU, B, X = self.saved
        k = self._kw
        pivots, left, adjoint = k["pivots"], k["left"], k["adjoint"]
        nf = self.next_functions
        gLU = gB = None
        if nf[0][0] is not None:
            gLU = sum_to(_lu_solve_LU(g, LU, pivots, X, left, adjoint), LU.shape)
        if nf[1][0] is not None:
            gB = sum_to(lu_solve(LU, pivots, g, left=left, adjoint=not adjoint), B.shape)
        return gLU, gB


def _lu_solve_LU(gX, LU, pivots, X, left, adjoint):
    """torch's linalg_lu_solve_LU (real case), op for op."""
    P, L, U = lu_unpack(LU, pivots, True, left == adjoint)
    if left != adjoint:
        gR = solve_triangular(_mT(U), -matmul(gX if left else _mT(gX), _mT(X) if left else X), upper=False)
        gL = LX.tril(solve_triangular(_mT(L), matmul(gR, _mT(U)), upper=True, left=True, unitriangular=True), -1)
        return gL + LX.triu(gR)
    gR = -matmul(matmul(matmul(_mT(P), X if left else _mT(X)), _mT(gX) if left else gX), P)
    gR = solve_triangular(_mT(L), gR, upper=True, left=False, unitriangular=True)
    gU = LX.triu(solve_triangular(_mT(U), matmul(_mT(L), gR), upper=False, left=False))
    return LX.tril(gR, -1) + gU


# ---------------------------------------------------------------------------- the ops

def _factor(A, name):
    lu, piv, info = getrf(host(A._data))
    LU = record(LinalgLuFactorExBackward0, (A,), _out(A, lu))
    pivots = _out(A, piv, dtypes.int32)
    if LU.grad_fn is not None:
        LU.grad_fn._kw = {"pivots": pivots}
    return LU, pivots, _out(A, info, dtypes.int32)


def _raise_singular(name, info):
    flat = info.reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        b = int(bad[0])
        prefix = f"(Batch element {b}): " if info.ndim else ""
        k = int(flat[b])
        raise errors.runtime(f"{name}: {prefix}U[{k},{k}] is zero and using it on lu_solve would result in a division "
                           "by zero. If you still want to perform the factorization, consider calling linalg.lu(A, "
                             "pivot) or linalg.lu_factor_ex(A, pivot)", hint="singular")


def lu_factor(A, *, pivot=True):
    _need_tensor("linalg_lu_factor", "A", 1, A)
    _need_bool("linalg_lu_factor", "pivot", pivot)
    _factor_checks(A, pivot, "torch.lu_factor")
    LU, pivots, info = _factor(A, "torch.linalg.lu_factor")
    _raise_singular("torch.linalg.lu_factor", host(info._data))
    return LuFactorResult((LU, pivots))


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    _need_tensor("linalg_lu_factor_ex", "A", 1, A)
    _need_bool("linalg_lu_factor_ex", "pivot", pivot)
    _need_bool("linalg_lu_factor_ex", "check_errors", check_errors)
    _factor_checks(A, pivot, "torch.lu_factor")
    LU, pivots, info = _factor(A, "torch.linalg.lu_factor_ex")
    if check_errors:
        _raise_singular("torch.linalg.lu_factor_ex", host(info._data))
    return LuFactorExResult((LU, pivots, info))


def lu(input, pivot=True, get_infos=False):
    """torch.lu / Tensor.lu (torch/functional.py: torch._lu_with_info, a deprecation warning once)."""
    _need_tensor("_lu_with_info", "input", 1, input)
    _need_bool("_lu_with_info", "pivot", pivot)
    warn_once(_LU_WARNING)
    _factor_checks(input, pivot, "torch.lu_factor")
    LU, pivots, info = _factor(input, "torch.lu")
    if get_infos:
        return LuWithInfoResult((LU, pivots, info))
    return (LU, pivots)


def _tensor_lu(self, pivot=True, get_infos=False):
    """Tensor.lu (torch/_tensor.py): torch._lu_with_info's factors as a plain tuple."""
    r = lu(self, pivot, True)
    return tuple(r) if get_infos else tuple(r[:2])


# named lu, as torch/_tensor.py's: methods.py binds it as Tensor.lu (python_method), its TypeErrors say Tensor.lu()
_tensor_lu.__name__ = _tensor_lu.__qualname__ = "lu"


def linalg_lu(A, *, pivot=True):
    _need_tensor("linalg_lu", "A", 1, A)
    _need_bool("linalg_lu", "pivot", pivot)
    _factor_checks(A, pivot, "linalg.lu")
    lu_, piv, _ = getrf(host(A._data))
    L, U = unpack_arrays(lu_)
    P = _out(A, permutation(piv, A.shape[-2], A.dtype.np))
    outs = record_multi(LinalgLuBackward0, (A,), [_out(A, L), _out(A, U)])
    node = outs[0].grad_fn
    if node is not None:
        from ..autograd import SavedValue  # noqa: PLC0415
        node._kw = {"P": P}
        node._saved = (SavedValue(outs[0], True), SavedValue(outs[1], True))
    return LuResult((P, *outs))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    _need_tensor("lu_unpack", "LU_data", 1, LU_data)
    _need_tensor("lu_unpack", "LU_pivots", 2, LU_pivots)
    _need_bool("lu_unpack", "unpack_data", unpack_data)
    _need_bool("lu_unpack", "unpack_pivots", unpack_pivots)
    _dims("torch.lu_unpack", LU_data)
    if LU_pivots.dtype is not dtypes.int32:
        raise errors.runtime("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                             "Note: this function is intended to be used with the output produced by "
                             "torch.linalg.lu_factor")
    m, n = LU_data.shape[-2:]
    empty = _out(LU_data, np.zeros((0,), LU_data.dtype.np))
    if unpack_pivots:
        piv = host(LU_pivots._data)
        if piv.size and (piv.min() < 1 or piv.max() > m):
            raise errors.runtime("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                                 "Did you properly pass the result of lu_factor?")
        P = _out(LU_data, permutation(piv, m, LU_data.dtype.np))
    else:
        P = empty
    if not unpack_data:
        return LuUnpackResult((P, empty, _out(LU_data, np.zeros((0,), LU_data.dtype.np))))
    L, U = unpack_arrays(host(LU_data._data))
    outs = record_multi(LuUnpackBackward0, (LU_data,), [_out(LU_data, L), _out(LU_data, U)], {"m": m, "n": n})
    return LuUnpackResult((P, *outs))


def _lu_solve_checks(LU, pivots, B, left):
    if not LU.dtype.is_floating_point:
        raise errors.runtime(f"torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got "
                             f"{LX.c10(LU.dtype)}")
    if LU.dtype is not B.dtype:
        raise errors.runtime(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                             f"{LX.c10(LU.dtype)} and B of type {LX.c10(B.dtype)} instead")
    if pivots.dtype is not dtypes.int32:
        raise errors.runtime("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    _square_lu(LU)
    if B._data.ndim < 2:
        raise errors.runtime("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    n = LU.shape[-1]
    rows = B.shape[-2] if left else B.shape[-1]
    if rows != n:
        eq = "AX = B" if left else "XA = B"
        raise errors.runtime(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                             f"{B.shape[-2]}x{B.shape[-1]})")
    if pivots._data.ndim == 0:
        raise errors.index("Dimension specified as -1 but tensor has no dimensions")
    if pivots.shape[-1] != n:
        raise errors.runtime("linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
                             "matrix")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise errors.runtime(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
                             f"pivots with shape [{', '.join(map(str, pivots.shape))}] instead")
    try:
        batch = np.broadcast_shapes(B.shape[:-2], LU.shape[:-2])
    except ValueError:
        raise errors.runtime(errors.broadcast_mismatch(tuple(B.shape[:-2]), tuple(LU.shape[:-2])),
                             hint="broadcast") from None
    check_broadcast(batch + tuple(LU.shape[-2:]), batch + tuple(B.shape[-2:]))


def _square_lu(LU):
    if LU._data.ndim < 2:
        raise errors.runtime("torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.")
    r, c = LU.shape[-2:]
    if r != c:
        raise errors.runtime(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are {r} by {c} "
                             "matrices")


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """torch.linalg.lu_solve (LinalgLuSolveBackward0)."""
    for pname, pos, v in (("LU", 1, LU), ("pivots", 2, pivots), ("B", 3, B)):
        _need_tensor("linalg_lu_solve", pname, pos, v)
    _need_bool("linalg_lu_solve", "left", left)
    _need_bool("linalg_lu_solve", "adjoint", adjoint)
    _lu_solve_checks(LU, pivots, B, left)
    piv = host(pivots._data)
    if piv.size and piv.min() < 1:
        raise errors.runtime("Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the "
                             "result of lu_factor?")
    if piv.size and piv.max() > LU.shape[-2]:
        raise errors.runtime("Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly "
                             "pass the result of lu_factor?")
    x = lu_solve_arrays(host(LU._data), piv, host(B._data), left, adjoint)
    return record(LinalgLuSolveBackward0, (LU, B), _out(LU, x),
                  {"pivots": pivots, "left": left, "adjoint": adjoint})


def torch_lu_solve(input, LU_data, LU_pivots):
    """torch.lu_solve(b, LU_data, LU_pivots) / b.lu_solve(...): linalg.lu_solve, with its deprecation warning."""
    for pname, pos, v in (("input", 1, input), ("LU_data", 2, LU_data), ("LU_pivots", 3, LU_pivots)):
        _need_tensor("lu_solve", pname, pos, v)
    warn_once(_LU_SOLVE_WARNING)
    return lu_solve(LU_data, LU_pivots, input)


def tensor_lu_solve(self, LU_data, LU_pivots):
    _need_tensor("lu_solve", "LU_data", 1, LU_data)
    _need_tensor("lu_solve", "LU_pivots", 2, LU_pivots)
    return torch_lu_solve(self, LU_data, LU_pivots)


# ---------------------------------------------------------------------------- declarations

def _lu_solve_call(torch, a, b):
    LU, piv = torch.linalg.lu_factor(a)
    return torch.linalg.lu_solve(LU, piv, b)


_MATS = [((3, 3),), ((2, 3, 3),)]  # square: "mat"; the wide and tall ones are cases
OPS = [
    declare("lu_factor", lu_factor, LinalgLuFactorExBackward0, LuUnpackBackward0, method=False, torch=False,
            linalg=True, sample=Sample(_MATS, ("mat",), call=lambda torch, a: torch.linalg.lu_factor(a).LU),
            cases={"lu_factor": case(lambda torch, a: torch.linalg.lu_factor(a).LU, V.M33),
                   "lu_factor_wide": case(lambda torch, a: torch.linalg.lu_factor(a).LU, V.M23)}),
    declare("lu_factor_ex", lu_factor_ex, LinalgLuFactorExBackward0, method=False, torch=False, linalg=True,
            sample=Sample(_MATS, ("mat",), call=lambda torch, a: torch.linalg.lu_factor_ex(a).LU)),
    declare("linalg_lu", linalg_lu, LinalgLuBackward0, method=False, torch=False, linalg="lu",
            sample=Sample(_MATS, ("mat",), call=lambda torch, a: torch.linalg.lu(a)[1:]),
            cases={"linalg_lu": case(lambda torch, a: torch.linalg.lu(a)[1:], V.M33),
                   "linalg_lu_tall": case(lambda torch, a: torch.linalg.lu(a.mT)[1:], V.M23),
                   "linalg_lu_u": case(lambda torch, a: torch.linalg.lu(a).U, V.M23)}),
    declare("lu", lu, LinalgLuFactorExBackward0, method=False,
            sample=Sample(_MATS[:2], ("mat",), call=lambda torch, a: torch.lu(a)[0])),
    declare("lu", _tensor_lu, LinalgLuFactorExBackward0, torch=False, key="Tensor.lu", python_method=True,
            sample=Sample(_MATS[:2], ("mat",), call=lambda torch, a: a.lu()[0])),
    declare("lu_unpack", lu_unpack, LuUnpackBackward0, method=False,
            sample=Sample(_MATS, ("mat",), call=lambda torch, a: torch.lu_unpack(a, torch.linalg.lu_factor(
                a.detach()).pivots)[1:]),
            cases={"lu_unpack_l": case(lambda torch, a: torch.lu_unpack(a, torch.linalg.lu_factor(
                a.detach()).pivots).L, V.M23)}),
    declare("linalg_lu_solve", lu_solve, LinalgLuSolveBackward0, method=False, torch=False, linalg="lu_solve",
            sample=Sample([((3, 3), (3, 2)), ((2, 3, 3), (3, 1))], ("mat", "any"), call=_lu_solve_call),
            cases={"lu_solve_adjoint": case(lambda torch, a, b: torch.linalg.lu_solve(
                *torch.linalg.lu_factor(a), b.mT, adjoint=True), V.M33, V.M23),
                   "lu_solve_right": case(lambda torch, a, b: torch.linalg.lu_solve(
                       *torch.linalg.lu_factor(a), b, left=False), V.M33, V.M23),
                   "lu_solve_right_adjoint": case(lambda torch, a, b: torch.linalg.lu_solve(
                       *torch.linalg.lu_factor(a), b, left=False, adjoint=True), V.M33, V.M23)}),
    declare("lu_solve", torch_lu_solve, LinalgLuSolveBackward0, method=False, sample=Sample(
        [((3, 2), (3, 3))], ("any", "mat"), call=lambda torch, b, a: torch.lu_solve(b, *torch.linalg.lu_factor(a)))),
    declare("lu_solve", tensor_lu_solve, LinalgLuSolveBackward0, torch=False, key="Tensor.lu_solve", sample=Sample(
        [((3, 2), (3, 3))], ("any", "mat"), call=lambda torch, b, a: b.lu_solve(*torch.linalg.lu_factor(a)))),
]


_TABLES = tables(OPS, lazy_inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
