"""Cholesky and triangular systems: torch.linalg.cholesky / cholesky_ex, torch.cholesky, cholesky_solve,
cholesky_inverse, torch.linalg.solve_triangular and torch.triangular_solve (their Tensor methods too).
QR is linalg_qr.py's.

The factorisation is LAPACK's potrf through NumPy (OpenBLAS's; torch links MKL's: the last bits may
differ, docs/numerics.md). Where potrf stops at a leading minor that is not positive-definite, the
unblocked potf2 below says where and leaves what LAPACK leaves (cholesky_ex's L, its info). Triangular
systems are solved by substitution (reference BLAS trsm's order): a zero on the diagonal gives inf/nan,
as torch's trsm does, never an error. The backward formulas are torch's (FunctionsManual.cpp:
cholesky_backward, cholesky_solve_backward, cholesky_inverse_backward, linalg_solve_triangular_backward,
triangular_solve_backward), on Tensors, so they differentiate again.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..device import host, like
from ..function import Function, MultiOutputFunction, record, record_multi
from ..limits import check_broadcast
from ..tensor import wrap
from . import linalg_extra as LX
from . import shape as S
from .matmul import matmul
from .reduction import return_type
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare
from .shape import sum_to
from .special_common import not_implemented, warn_once

CholeskyExResult = return_type("linalg_cholesky_ex", ("L", "info"))
TriangularSolveResult = return_type("triangular_solve", ("solution", "cloned_coefficient"))

_CHOLESKY_WARNING = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
    "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
    "U = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
    "This transform will produce equivalent results for all valid (symmetric positive definite) inputs. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)")
_TRIANGULAR_SOLVE_WARNING = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
    "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a "
    "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
    "X = torch.linalg.solve_triangular(A, B). (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2273.)")
_LAPACK_TYPES = (dtypes.float32, dtypes.float64)


def linalg_error(message):
    """torch.linalg.LinAlgError (a RuntimeError) with its text."""
    err = LX.LinAlgError(message)
    err.gradcli_hint = "singular"
    return err


def _mT(t):
    return S.transpose(t, -2, -1)


def _at_least_2d(name, what, t):
    if t._data.ndim < 2:
        raise errors.runtime(f"{name}: The input tensor {what} must have at least 2 dimensions.")


def _square(name, A):
    n, m = A._data.shape[-2:]
    if n != m:
        prefix = f"{name}: " if name else ""
        raise errors.runtime(f"{prefix}A must be batches of square matrices, but they are {n} by {m} matrices")


def _lapack_dtype(kernel, t):
    if t.dtype not in _LAPACK_TYPES:
        raise not_implemented(kernel, t.dtype)


def _batch(sa, sb):
    """The broadcast batch shape of two stacks of matrices (torch's message where they do not broadcast)."""
    try:
        batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise errors.runtime(errors.broadcast_mismatch(tuple(sa[:-2]), tuple(sb[:-2])), hint="broadcast") from None
    check_broadcast(batch + sa[-2:], batch + sb[-2:])
    return batch


def _out(A, r):
    return wrap(like(A._data, np.ascontiguousarray(r, A.dtype.np), A.dtype.np), A.dtype)


# ---------------------------------------------------------------------------- kernels (arrays)

def potf2(a):
    """LAPACK's unblocked lower Cholesky (dpotf2) of one matrix, reading its lower triangle: (L, info).
    info > 0: the leading minor of that order is not positive-definite; L then holds what potf2 leaves
    (the columns before it factored, its diagonal element the non-positive pivot, the rest A's own)."""
    n = a.shape[-1]
    L = np.tril(a).astype(a.dtype, copy=True)
    for j in range(n):
        ajj = L[j, j] - L[j, :j] @ L[j, :j]
        if not ajj > 0:  # <= 0 or NaN
            L[j, j] = ajj
            return L, j + 1
        ajj = np.sqrt(ajj)
        L[j, j] = ajj
        if j + 1 < n:
            col = L[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]
            L[j + 1:, j] = col * (a.dtype.type(1) / ajj)
    return L, 0


def cholesky_arrays(a, upper):
    """(factor, info per matrix) of a stack of matrices (host arrays), lower or upper."""
    src = np.swapaxes(a, -1, -2) if upper else a
    info = np.zeros(a.shape[:-2], np.int32)
    try:
        with np.errstate(all="ignore"):
            L = np.linalg.cholesky(src)
        if not np.isfinite(L).all():  # NumPy's potrf lets a NaN pass where LAPACK's check stops (potf2 below)
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        flat = src.reshape((-1,) + src.shape[-2:])
        L = np.empty_like(flat)
        fi = info.reshape(-1)
        with np.errstate(all="ignore"):
            for b, m in enumerate(flat):
                try:
                    L[b] = np.linalg.cholesky(m)
                    if not np.isfinite(L[b]).all():
                        raise np.linalg.LinAlgError
                except np.linalg.LinAlgError:
                    L[b], fi[b] = potf2(m)
        L = L.reshape(src.shape)
    return (np.swapaxes(L, -1, -2) if upper else L), info


def tri_solve(a, b, upper, left=True, unit=False):
    """X with A X = B (left) or X A = B, A triangular (only that triangle read; unit: ones on its diagonal
    assumed), batches broadcast: substitution in reference trsm's order (a zero pivot gives inf/nan)."""
    if not left:
        return np.swapaxes(tri_solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper, True, unit), -1, -2)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    dt = np.result_type(a.dtype, b.dtype)
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), dt, copy=True)
    a = np.broadcast_to(a, batch + a.shape[-2:])
    n = a.shape[-1]
    with np.errstate(all="ignore"):
        for k in (range(n - 1, -1, -1) if upper else range(n)):
            if not unit:
                x[..., k, :] /= a[..., k, k, None]
            xk = x[..., k:k + 1, :]
            if upper:
                x[..., :k, :] -= a[..., :k, k:k + 1] * xk
            else:
                x[..., k + 1:, :] -= a[..., k + 1:, k:k + 1] * xk
    return x


def _cholesky_solve_arrays(b, u, upper):
    """potrs: (U^H U)^-1 B or (L L^H)^-1 B."""
    y = tri_solve(u, b, upper, True, False) if not upper else tri_solve(np.swapaxes(u, -1, -2), b, False)
    return tri_solve(np.swapaxes(u, -1, -2), y, True) if not upper else tri_solve(u, y, True)


def _first_zero_diagonal(u):
    """(batch element, 1-based index) of the first zero on a stack's diagonals, or None."""
    d = np.diagonal(u, 0, -2, -1).reshape(-1, u.shape[-1])
    for b, row in enumerate(d):
        zero = np.flatnonzero(row == 0)
        if zero.size:
            return b, int(zero[0]) + 1
    return None


# ---------------------------------------------------------------------------- cholesky

def _cholesky_backward(gL, upper, L):
    """torch's cholesky_backward (real case), op for op."""
    L_ = _mT(L) if upper else L
    gL_ = _mT(gL) if upper else gL
    gA = LX.tril(matmul(_mT(L_), gL_))
    gA = 0.5 * (gA + _mT(LX.tril(gA, -1)))
    gA = solve_triangular(_mT(L_), gA, upper=True, left=True)
    return solve_triangular(L_, gA, upper=False, left=False)


class LinalgCholeskyExBackward0(Function):
    __slots__ = ()
    explain = "L^-H sym(tril(L^H grad)) L^-1: torch's cholesky_backward"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [cholesky_arrays(xs[0], kw["upper"])[0].reshape(outs[0])])
    save_output = True

    def backward(self, g):
        (L,) = self.saved[-1:]
        return (_cholesky_backward(g, self._kw["upper"], L),)


class CholeskyBackward0(LinalgCholeskyExBackward0):
    __slots__ = ()


def _cholesky(A, upper, name, node, check=True):
    a = host(A._data)
    L, info = cholesky_arrays(a, upper)
    if check and info.any():
        b = int(np.flatnonzero(info.reshape(-1))[0])
        prefix = f"(Batch element {b}): " if a.ndim > 2 else ""
        raise linalg_error(f"{name}: {prefix}The factorization could not be completed because the input is not "
                               f"positive-definite (the leading minor of order {int(info.reshape(-1)[b])} is not "
                               "positive-definite).")
    return record(node, (A,), _out(A, L), {"upper": bool(upper)}), info


def _linalg_cholesky_checks(A, name):
    if not A.dtype.is_floating_point:
        raise errors.runtime(f"{name}: Expected a floating point or complex tensor as input. Got {LX.c10(A.dtype)}")
    _at_least_2d(name, "A", A)
    _square(name, A)
    _lapack_dtype("cholesky_cpu", A)


def linalg_cholesky(A, *, upper=False):
    _linalg_cholesky_checks(A, "linalg.cholesky")
    return _cholesky(A, upper, "linalg.cholesky", LinalgCholeskyExBackward0)[0]


def cholesky_ex(A, *, upper=False, check_errors=False):
    _linalg_cholesky_checks(A, "linalg.cholesky")  # (torch's checks name linalg.cholesky here)
    L, info = _cholesky(A, upper, "linalg.cholesky_ex", LinalgCholeskyExBackward0, check_errors)
    return CholeskyExResult((L, wrap(like(A._data, info, np.int32), dtypes.int32)))


def cholesky(input, upper=False):
    warn_once(_CHOLESKY_WARNING)
    _at_least_2d("cholesky", "A", input)
    _square("cholesky", input)
    _lapack_dtype("cholesky_cpu", input)
    return _cholesky(input, upper, "cholesky", CholeskyBackward0)[0]


class CholeskySolveBackward0(Function):
    __slots__ = ()
    explain = ("cholesky_solve(grad, {pb})", "-(G X^H + X G^H) {pb} (G: the gradient of B)")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [_cholesky_solve_arrays(xs[0], xs[1], kw["upper"]).reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        B, U, X = self.saved
        upper = self._kw["upper"]
        nf = self.next_functions
        gB = cholesky_solve(g, U, upper)
        gU = None
        if nf[1][0] is not None:
            common = matmul(gB, _mT(X))
            common = common + _mT(common)
            gU = -matmul(U, common) if upper else -matmul(common, U)
            gU = sum_to(gU, U.shape)
        return (sum_to(gB, B.shape) if nf[0][0] is not None else None), gU


def _linear_solve_checks(b, A, name):
    """ATen's linearSolveCheckInputs for b and A (cholesky_solve's, triangular_solve's): one dtype, square A,
    b's rows A's size; the broadcast batch shape (_batch's)."""
    if b.dtype is not A.dtype:
        raise errors.runtime(f"Expected b and A to have the same dtype, but found b of type {LX.c10(b.dtype)} and A "
                             f"of type {LX.c10(A.dtype)} instead.", hint="dtype_mismatch")
    _square("", A)
    n = A._data.shape[-1]
    if b._data.shape[-2] != n:
        raise errors.runtime(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b "
                             f"matrix is {b._data.shape[-2]} by {b._data.shape[-1]}")
    return _batch(b._data.shape, A._data.shape)


def cholesky_solve(input, input2, upper=False):
    B, U = input, input2
    if B._data.ndim < 2:
        raise errors.runtime(f"b should have at least 2 dimensions, but has {B._data.ndim} dimensions instead")
    if U._data.ndim < 2:
        raise errors.runtime(f"u should have at least 2 dimensions, but has {U._data.ndim} dimensions instead")
    _linear_solve_checks(B, U, "cholesky_solve")
    _lapack_dtype("cholesky_solve_cpu", B)
    x = _cholesky_solve_arrays(host(B._data), host(U._data), upper)
    return record(CholeskySolveBackward0, (B, U), _out(B, x), {"upper": bool(upper)})


class CholeskyInverseBackward0(Function):
    __slots__ = ()
    explain = "-(X (grad + grad^H) X) L (X: the inverse): torch's cholesky_inverse_backward"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [_cholesky_inverse_array(xs[0], kw["upper"]).reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        L, inverse = self.saved
        common = g + _mT(g)
        common = matmul(inverse, matmul(common, inverse))
        return (-matmul(L, common) if self._kw["upper"] else -matmul(common, L),)


def _trti2(u, upper):
    """LAPACK's unblocked triangular inverse (trti2) of a stack, column by column: its signs of zero too."""
    A = np.triu(u) if upper else np.tril(u)
    A = np.array(A, copy=True)
    n = A.shape[-1]
    one = A.dtype.type(1)
    for j in (range(n) if upper else range(n - 1, -1, -1)):
        A[..., j, j] = one / A[..., j, j]
        ajj = -A[..., j, j]
        if upper and j:
            A[..., :j, j] = (A[..., :j, :j] @ A[..., :j, j, None])[..., 0] * ajj[..., None]
        elif not upper and j + 1 < n:
            A[..., j + 1:, j] = (A[..., j + 1:, j + 1:] @ A[..., j + 1:, j, None])[..., 0] * ajj[..., None]
    return A


def _lauu2(A, upper):
    """LAPACK's lauu2: U U^H (upper) or L^H L (lower) in place of the triangle, in its order."""
    n = A.shape[-1]
    for i in range(n):
        aii = A[..., i, i].copy()
        if i + 1 < n:
            if upper:
                A[..., i, i] = (A[..., i, i:] * A[..., i, i:]).sum(-1)
                A[..., :i, i] = aii[..., None] * A[..., :i, i] + (A[..., :i, i + 1:] @ A[..., i, i + 1:, None])[..., 0]
            else:
                A[..., i, i] = (A[..., i:, i] * A[..., i:, i]).sum(-1)
                A[..., i, :i] = aii[..., None] * A[..., i, :i] + (A[..., i + 1:, i, None]
                                                                    * A[..., i + 1:, :i]).sum(-2)
        elif upper:
            A[..., :i + 1, i] *= aii[..., None]
        else:
            A[..., i, :i + 1] *= aii[..., None]
    return A


def _cholesky_inverse_array(u, upper):
    """potri (trti2, then lauu2) and torch's copy of the computed triangle into the other."""
    with np.errstate(all="ignore"):
        A = _lauu2(_trti2(u, upper), upper)
    n = A.shape[-1]
    own = np.triu(np.ones((n, n), bool)) if upper else np.tril(np.ones((n, n), bool))
    return np.where(own, A, np.swapaxes(A, -1, -2))


def cholesky_inverse(input, upper=False):
    _at_least_2d("cholesky_inverse", "A", input)
    _square("cholesky_inverse", input)
    _lapack_dtype("cholesky_inverse_out_cpu", input)
    u = host(input._data)
    zero = _first_zero_diagonal(u) if u.size else None
    if zero is not None:
        b, k = zero
        prefix = f"(Batch element {b}): " if u.ndim > 2 else ""
        raise linalg_error(f"cholesky_inverse: {prefix}The diagonal element {k} is zero, the inversion could not "
                               "be completed because the input matrix is singular.")
    return record(CholeskyInverseBackward0, (input,), _out(input, _cholesky_inverse_array(u, upper)),
                  {"upper": bool(upper)})


# ---------------------------------------------------------------------------- triangular systems

def _solve_triangular_grads(g, A, X, upper, left, unit, need_a):
    """torch's linalg_solve_triangular_backward: (gA or None, gB)."""
    gB = solve_triangular(_mT(A), g, upper=not upper, left=left, unitriangular=unit)
    if not need_a:
        return None, gB
    gA = -matmul(gB, _mT(X)) if left else -matmul(_mT(X), gB)
    gA = LX.triu(gA, int(unit)) if upper else LX.tril(gA, -int(unit))
    return gA, gB


class LinalgSolveTriangularBackward0(Function):
    __slots__ = ()
    explain = ("-(G X^H) on {pa}'s triangle (G: the gradient of B)", "solve_triangular({pa}^H, grad)")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [tri_solve(xs[0], xs[1], kw["upper"], kw["left"], kw["unit"])
                                                .reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        A, B, X = self.saved
        k = self._kw
        nf = self.next_functions
        gA, gB = _solve_triangular_grads(g, A, X, k["upper"], k["left"], k["unit"], nf[0][0] is not None)
        if nf[1][0] is not None:
            gB = sum_to(gB, B.shape)
            if B.dtype is not gB.dtype:
                gB = gB.to(B.dtype)
        return (sum_to(gA, A.shape) if gA is not None else None), (gB if nf[1][0] is not None else None)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    name = "linalg.solve_triangular"
    _at_least_2d(name, "A", A)
    _at_least_2d(name, "B", B)
    _square(name, A)
    n = A._data.shape[-1]
    rows = B._data.shape[-2] if left else B._data.shape[-1]
    if rows != n:
        eq = "AX = B" if left else "XA = B"
        raise errors.runtime(f"{name}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                             f"{B._data.shape[-2]}x{B._data.shape[-1]})")
    _batch(B._data.shape, A._data.shape)
    dt = A.dtype  # B is taken in A's dtype
    if dt not in _LAPACK_TYPES:
        raise not_implemented("triangular_solve_cpu", dt)
    a = host(A._data).astype(dt.np, copy=False)
    b = host(B._data).astype(dt.np, copy=False)
    x = tri_solve(a, b, bool(upper), bool(left), bool(unitriangular))
    out = wrap(like(A._data, np.ascontiguousarray(x), dt.np), dt)
    return record(LinalgSolveTriangularBackward0, (A, B), out,
                  {"upper": bool(upper), "left": bool(left), "unit": bool(unitriangular)})


class TriangularSolveBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = ("triangular_solve(grad, {pb}^H) (the gradient of b)", "-(G X^H) on {pb}'s triangle, plus the "
               "gradient of the cloned coefficient")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [
        tri_solve(np.swapaxes(xs[1], -1, -2) if kw["transpose"] else xs[1], xs[0],
                  kw["upper"] != kw["transpose"], True, kw["unit"]).reshape(outs[0]), np.array(xs[1]).reshape(outs[1])])
    save_inputs = True

    def materialize(self, grads):
        return list(grads)

    def backward(self, grads):
        gX, gM = (list(grads) + [None])[:2]
        b, A = self.saved[:2]
        X = self.saved[2]
        k = self._kw
        upper, trans, unit = k["upper"], k["transpose"], k["unit"]
        nf = self.next_functions
        need_b, need_a = nf[0][0] is not None, nf[1][0] is not None
        gb = ga = None
        if gX is not None:
            Aeff = _mT(A) if trans else A
            ga_eff, gb = _solve_triangular_grads(gX, Aeff, X, upper != trans, True, unit, need_a)
            if ga_eff is not None:
                ga = _mT(ga_eff) if trans else ga_eff
        if need_a and gM is not None:
            ga = gM if ga is None else ga + gM
        return (sum_to(gb, b.shape) if need_b and gb is not None else None,
                sum_to(ga, A.shape) if ga is not None else None)


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    warn_once(_TRIANGULAR_SOLVE_WARNING)
    b = input
    if b._data.ndim < 2:
        raise errors.runtime(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                             f"{b._data.ndim} dimensions instead")
    if A._data.ndim < 2:
        raise errors.runtime(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                             f"{A._data.ndim} dimensions instead")
    batch = _linear_solve_checks(b, A, "triangular_solve")
    _lapack_dtype("triangular_solve_cpu", A)
    a = host(A._data)
    aeff = np.swapaxes(a, -1, -2) if transpose else a
    x = tri_solve(aeff, host(b._data), bool(upper) != bool(transpose), True, bool(unitriangular))
    sol = _out(A, x)
    clone = _out(A, np.broadcast_to(a, batch + a.shape[-2:]))
    kw = {"upper": bool(upper), "transpose": bool(transpose), "unit": bool(unitriangular)}
    record_multi(TriangularSolveBackward0, (b, A), [sol, clone], kw)
    node = sol.grad_fn
    if node is not None:
        from ..autograd import SavedValue  # noqa: PLC0415
        node._saved = node._saved + (SavedValue(sol, True),)
    return TriangularSolveResult((sol, clone))


# ---------------------------------------------------------------------------- declarations

def _tril_mat(torch, b, a):
    return torch.cholesky_solve(b, a.tril())


_SPD = [((2, 2),), ((3, 3),), ((2, 3, 3),)]
OPS = [
    declare("linalg_cholesky", linalg_cholesky, LinalgCholeskyExBackward0, method=False, torch=False,
            linalg="cholesky", sample=Sample(_SPD, ("spd",), call=lambda torch, a: torch.linalg.cholesky(
                (a + a.mT) / 2)),
            cases={"linalg_cholesky_upper": case(lambda torch, a: torch.linalg.cholesky((a @ a.mT + 1) / 2, upper=True),
                                                 V.M33)}),
    declare("cholesky_ex", cholesky_ex, LinalgCholeskyExBackward0, method=False, torch=False, linalg=True,
            sample=Sample(_SPD, ("spd",), call=lambda torch, a: torch.linalg.cholesky_ex((a + a.mT) / 2).L)),
    declare("cholesky", cholesky, CholeskyBackward0, sample=Sample(
        _SPD, ("spd",), call=lambda torch, a: torch.cholesky((a + a.mT) / 2, upper=True)),
        cases={"cholesky": case(lambda torch, a: torch.cholesky(a @ a.mT + 1), V.M33)}),
    declare("cholesky_solve", cholesky_solve, CholeskySolveBackward0, sample=Sample(
        [((2, 1), (2, 2)), ((3, 2), (3, 3)), ((2, 3, 2), (3, 3))], ("any", "mat"), call=_tril_mat),
        cases={"cholesky_solve_upper": case(lambda torch, b, a: torch.cholesky_solve(b.mT, a.triu(), upper=True),
                                            V.M23, V.M33)}),
    declare("cholesky_inverse", cholesky_inverse, CholeskyInverseBackward0, sample=Sample(
        [((2, 2),), ((3, 3),), ((2, 3, 3),)], ("mat",), call=lambda torch, a: torch.cholesky_inverse(a.tril())),
        cases={"cholesky_inverse_upper": case(lambda torch, a: torch.cholesky_inverse(a.triu(), upper=True), V.M33)}),
    declare("solve_triangular", solve_triangular, LinalgSolveTriangularBackward0, method=False, torch=False,
            linalg=True, sample=Sample([((3, 3), (3, 2)), ((2, 3, 3), (3, 1))], ("mat", "any"),
                                       call=lambda torch, a, b: torch.linalg.solve_triangular(a, b, upper=True)),
            cases={"solve_triangular_right": case(lambda torch, a, b: torch.linalg.solve_triangular(
                a, b, upper=False, left=False), V.M33, V.M23),
                   "solve_triangular_unit": case(lambda torch, a, b: torch.linalg.solve_triangular(
                       a, b.mT, upper=True, unitriangular=True), V.M33, V.M23)}),
    declare("triangular_solve", triangular_solve, TriangularSolveBackward0, sample=Sample(
        [((3, 2), (3, 3)), ((3, 1), (2, 3, 3))], ("any", "mat"), call=lambda torch, b, a: torch.triangular_solve(b, a)),
        cases={"triangular_solve_t": case(lambda torch, b, a: torch.triangular_solve(
            b, a, upper=False, transpose=True).solution, V.M23[0:1] * 3, V.M33)}),
]


_TABLES = tables(OPS, lazy_inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
