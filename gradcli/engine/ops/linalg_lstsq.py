"""Least squares and the solvers that report instead of raising: torch.linalg.lstsq (drivers gels, gelsy,
gelsd, gelss) and torch.linalg.solve_ex.

lstsq gives torch's four outputs as a CPU build gives them for each driver: the solution; the residuals
(the squared norms of the rows n..m that LAPACK leaves below the solution) only when m > n and, for
gelsd/gelss, every matrix has full rank, never for gelsy; the rank (int64, of A's own batch shape) except for
gels; the singular values (of A's batch shape) for gelsd/gelss only. The factorisations go through NumPy's
LAPACK (OpenBLAS's reference code; torch calls MKL): gelsd/gelss take NumPy's gelsd (in float64, rounded to
float32 for a float32 input), gels a QR (LQ when m < n) and gelsy the SVD's minimum-norm solution and rank,
which is what gelsy's complete orthogonal factorisation computes; the last bits differ from MKL's, and gelsy's
rank comes from the singular values where LAPACK estimates the condition of the pivoted R (they differ only on
matrices whose rank is within rounding of the cut-off). docs/numerics.md says so.

The backward is torch's linalg_lstsq_backward: the solution's gradient through the pseudo-inverse
(pinv_backward), the residuals' through |AX - B|^2 at the optimum; on Tensors, so it differentiates again.
solve_ex is linalg.solve with an info tensor: a singular matrix of the batch gets LAPACK's getrf/getrs result
(inf and NaN) and its first zero pivot in info, or torch's LinAlgError with check_errors=True.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes, errors
from ..argcheck import typename, wrong_type
from ..autograd import SavedValue
from ..device import host, like
from ..function import MultiOutputFunction, record, record_multi
from ..tensor import Tensor, wrap
from . import linalg_extra as LX
from . import shape as S
from .linalg_lu import getrf, lu_solve_arrays
from .linalg_svd import linalg_pinv, pinv_backward
from .matmul import matmul
from .reduction import return_type
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare
from .shape import sum_to

LstsqResult = return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
SolveExResult = return_type("linalg_solve_ex", ("result", "info"))
InvExResult = return_type("linalg_inv_ex", ("inverse", "info"))
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
_MISSING = object()


def _mT(t):
    return S.transpose(t, -2, -1)


def _need_bool(fname, pname, value):
    if not isinstance(value, (bool, np.bool_)):
        raise errors.type_error(f"{fname}(): argument '{pname}' must be bool, not {typename(value)}")


# ---------------------------------------------------------------------------- solve_ex

def _infos(A):
    """getrf's info of each matrix (0, or the first zero pivot, 1-based)."""
    a = host(A._data)
    if not a.size:
        return np.zeros(a.shape[:-2], np.int32)
    return getrf(a)[2]


def _int32(A, info):
    return wrap(like(A._data, np.array(info, np.int32), np.int32), dtypes.int32)


def _singular_error(info, ndim, message):
    bad = int(np.flatnonzero(info.reshape(-1))[0])
    prefix = f"(Batch element {bad}): " if ndim > 2 else ""
    return LX.LinAlgError(message.format(prefix=prefix, k=int(info.reshape(-1)[bad])))


def linalg_solve_ex(A, B=_MISSING, *extra, left=True, check_errors=False):
    if extra:
        raise errors.type_error(f"linalg_solve_ex() takes 2 positional arguments but {2 + len(extra)} were given")
    if B is _MISSING:
        raise errors.type_error('linalg_solve_ex() missing 1 required positional arguments: "B"')
    if not isinstance(B, Tensor):
        raise wrong_type("linalg_solve_ex", "B", 2, "Tensor", B)
    _need_bool("linalg_solve_ex", "left", left)
    _need_bool("linalg_solve_ex", "check_errors", check_errors)
    LX.solve_checks(A, B, left)
    info = _infos(A)
    if not info.any():
        return SolveExResult((LX.solve(A, B, left=left), _int32(A, info)))
    if check_errors:
        raise _singular_error(info, A._data.ndim, "torch.linalg.solve_ex: {prefix}The solver failed because the "
                                                  "input matrix is singular.")
    return SolveExResult((_singular_solve(A, B, left), _int32(A, info)))


def inv_ex(A, *extra, check_errors=False):
    if extra:
        raise errors.type_error(f"linalg_inv_ex() takes 1 positional argument but {1 + len(extra)} were given")
    _need_bool("linalg_inv_ex", "check_errors", check_errors)
    LX.float_square("linalg.inv", A)
    info = _infos(A)
    if not info.any():
        return InvExResult((LX.inv_checked(A, "linalg.inv_ex"), _int32(A, info)))
    if check_errors:
        raise _singular_error(info, A._data.ndim, "linalg.inv_ex: {prefix}The diagonal element {k} is zero, the "
                                                  "inversion could not be completed because the input matrix is "
                                                  "singular.")
    a = host(A._data)
    lu, piv, _ = getrf(a)
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    r = lu_solve_arrays(lu, piv, eye)
    out = wrap(like(A._data, np.array(r, A.dtype.np), A.dtype.np), A.dtype)
    return InvExResult((record(LX.LinalgInvExBackward0, (A,), out), _int32(A, info)))


def _singular_solve(A, B, left):
    """LAPACK's getrf + getrs on a batch with singular matrices (what torch returns there: inf and NaN)."""
    a, b = host(A._data), host(B._data)
    vector = left and (b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]))
    bm = b[..., None] if vector else b
    if left:
        batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
        lu, piv, _ = getrf(np.broadcast_to(a, batch + a.shape[-2:]))
        x = lu_solve_arrays(lu, piv, np.broadcast_to(bm, batch + bm.shape[-2:]))
    else:
        at = np.swapaxes(a, -1, -2)
        bt = np.swapaxes(bm, -1, -2)
        batch = np.broadcast_shapes(at.shape[:-2], bt.shape[:-2])
        lu, piv, _ = getrf(np.broadcast_to(at, batch + at.shape[-2:]))
        x = np.swapaxes(lu_solve_arrays(lu, piv, np.broadcast_to(bt, batch + bt.shape[-2:])), -1, -2)
    if vector:
        x = x[..., 0]
    out = wrap(like(A._data, np.array(x, A.dtype.np), A.dtype.np), A.dtype)
    return record(LX.LinalgSolveExBackward0, (A, B), out, {"left": left, "vector": vector})


# ---------------------------------------------------------------------------- lstsq kernels (host arrays)

def _gels(a, b):
    """LAPACK's gels on one matrix: (solution rows padded to max(m, n), as LAPACK leaves B; None when R has
    an exactly zero diagonal element: its 1-based index)."""
    m, n = a.shape
    k = b.shape[1]
    out = np.zeros((max(m, n), k), np.float64)
    if not np.any(a):  # dgels: a zero matrix gives a zero B
        return out, None
    if m >= n:
        q, r = np.linalg.qr(a, mode="complete")
        d = np.diagonal(r[:n])
        if np.any(d == 0):
            return None, int(np.flatnonzero(d == 0)[0]) + 1
        qtb = q.T @ b
        out[:n] = np.linalg.solve(np.triu(r[:n]), qtb[:n])
        out[n:] = qtb[n:]
        return out, None
    q, r = np.linalg.qr(a.T)  # A = R^T Q^T: x = Q R^-T b, the minimum-norm solution
    d = np.diagonal(r)
    if np.any(d == 0):
        return None, int(np.flatnonzero(d == 0)[0]) + 1
    out[:n] = q @ np.linalg.solve(np.triu(r).T, b)
    return out, None


def _svd_solve(a, b, driver, rcond, eps):
    """gelsd's minimum-norm solution, rows padded as LAPACK leaves B (below the solution: U^T B's rows, whose
    squared norms are the residuals)."""
    m, n = a.shape
    k = b.shape[1]
    out = np.zeros((max(m, n), k), np.float64)
    if m == 0 or n == 0:
        out[n:m] = b  # (n = 0: all of B is residual)
        return out
    u, s, vh = np.linalg.svd(a, full_matrices=True)
    keep = _keep(s, driver, rcond, eps)
    utb = u.T @ b
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(keep, 1 / np.where(keep, s, 1), 0)
    out[:n] = vh[:len(s)].T @ (inv[:, None] * utb[:len(s)])
    if m > n:
        out[n:] = utb[n:]  # rotated by U: the same squared norm as LAPACK's rows
    return out


def _lstsq_arrays(a, b, batch, driver, rcond, eps):
    """LAPACK's B after the solve (max(m, n) rows per matrix) over the batch (host float64)."""
    m, n = a.shape[-2:]
    k = b.shape[-1]
    count = int(np.prod(batch, dtype=np.int64))
    A = np.broadcast_to(a, batch + (m, n)).reshape((count, m, n))
    Bm = np.broadcast_to(b, batch + (m, k)).reshape((count, m, k))
    raw = np.zeros((count, max(m, n), k))
    for i in range(count):
        if driver == "gels":
            out, bad = _gels(A[i], Bm[i])
            if out is None:
                raise LX.LinAlgError("torch.linalg.lstsq: The least squares solution could not be computed because "
                                     f"the input matrix does not have full rank (error code: {bad}).")
            raw[i] = out
        else:
            raw[i] = _svd_solve(A[i], Bm[i], driver, rcond, eps)
    return raw.reshape(batch + raw.shape[1:])


def _cut(driver, rcond, eps):
    """(relative cut, absolute floor) of each driver's rank decision: gelsd's dlalsd takes eps outside (0, 1),
    gelss's max(rcond s1, sfmin) (eps s1 for a negative rcond); gelsy's condition estimate, taken here as the
    singular values' ratio, keeps at least the first column."""
    if driver == "gelsd":
        return (rcond if 0 < rcond < 1 else eps), 0.0
    if driver == "gelss":
        return (rcond if rcond >= 0 else eps), np.finfo(np.float64).tiny
    return max(rcond, 0.0), 0.0


def _keep(s, driver, rcond, eps):
    """Which singular values (descending, last axis) count toward the rank."""
    rel, floor = _cut(driver, rcond, eps)
    keep = s > np.maximum(rel * s[..., :1], floor)
    if driver == "gelsy" and keep.shape[-1]:
        keep[..., 0] |= s[..., 0] > 0
    return keep


def _rank_values(a, driver, rcond, eps):
    """(rank, singular values) of each matrix of A (its own batch)."""
    m, n = a.shape[-2:]
    if a.size == 0:
        return np.zeros(a.shape[:-2], np.int64), np.zeros(a.shape[:-2] + (min(m, n),))
    s = np.linalg.svd(a, compute_uv=False)
    return np.asarray(_keep(s, driver, rcond, eps).sum(-1), np.int64), s


# ---------------------------------------------------------------------------- lstsq

class LinalgLstsqBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = ("pinv_backward(grad @ B.mT) + 2 (AX - B) gL X.mT", "pinv(A).mT @ grad - 2 (AX - B) gL")
    explain_factor = False
    save_inputs = True
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(x).reshape(o) for x, o in zip(
        _replay(xs, kw), outs)])

    def materialize(self, grads):
        return list(grads)  # torch's formula tells a missing gradient from a zero one

    def backward(self, grads):
        gX, gL = (list(grads) + [None])[:2]
        A, B, X = self.saved[0], self.saved[1], self.saved[2]
        nf = self.next_functions
        gA, gB = lstsq_backward(gX, gL, A, B, X, self._kw["vector"], nf[0][0] is not None, nf[1][0] is not None)
        return (sum_to(gA, A.shape) if gA is not None else None, sum_to(gB, B.shape) if gB is not None else None)


def _replay(xs, kw):
    a, b = xs[0], xs[1]
    bm = b[..., None] if kw["vector"] else b
    batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    raw = _lstsq_arrays(np.asarray(a, np.float64), np.asarray(bm, np.float64), batch, kw["driver"], kw["rcond"],
                        kw["eps"])
    x = raw[..., :a.shape[-1], :]
    return [x[..., 0] if kw["vector"] else x, np.zeros(0)]


def lstsq_backward(gX, gL, A, B, X, vector, need_A, need_B):
    """torch's linalg_lstsq_backward: X = pinv(A) B; the residuals |AX - B|^2 (columns summed) add their own
    term, X's own change not counted (it is stationary there)."""
    has_gL = gL is not None and gL.numel() > 0
    if (gX is None and not has_gL) or not (need_A or need_B):
        return None, None
    Bm = S.unsqueeze(B, -1) if vector else B
    Xm = S.unsqueeze(X, -1) if vector else X
    gA = gB = None
    if gX is not None:
        gXm = S.unsqueeze(gX, -1) if vector else gX
        pinvA = linalg_pinv(A)
        if need_A:
            gA = pinv_backward(matmul(gXm, _mT(Bm)), pinvA, A)
        if need_B:
            gB = matmul(_mT(pinvA), gXm)
    if has_gL:
        R = matmul(A, Xm) - Bm
        RgL = R * S.unsqueeze(gL, -2)
        if need_A:
            tA = 2 * matmul(RgL, _mT(Xm))
            gA = tA if gA is None else gA + tA
        if need_B:
            gB = -2 * RgL if gB is None else gB - 2 * RgL
    if gB is not None and vector:
        gB = S.squeeze(gB, -1)
    return gA, gB


def _rcond_value(rcond):
    if rcond is None:
        return None
    if isinstance(rcond, Tensor):
        if rcond.numel() != 1:
            raise wrong_type("linalg_lstsq", "rcond", 3, "float", rcond)
        return float(rcond.item())
    if not isinstance(rcond, (numbers.Real, np.floating, np.integer, np.bool_)):
        raise wrong_type("linalg_lstsq", "rcond", 3, "float", rcond)
    return float(rcond)


def _lstsq_checks(input, b, driver):
    if driver is not None and not isinstance(driver, str):
        raise errors.type_error(f"linalg_lstsq(): argument 'driver' must be str, not {typename(driver)}")
    a_nd, b_nd = input._data.ndim, b._data.ndim
    if a_nd < 2:
        raise errors.runtime("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if input.dtype is not b.dtype:
        raise errors.runtime("torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                             f"dtype {LX.c10(input.dtype)} and other's dtype {LX.c10(b.dtype)}")
    if not 0 <= a_nd - b_nd <= 1:
        raise errors.runtime("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                             "(input.dim() - other.dim()) <= 1")
    vector = b_nd == 1 or (b_nd == a_nd - 1 and b._data.shape == input._data.shape[:-1])
    rows = b._data.shape[-1] if vector else b._data.shape[-2]
    if rows != input._data.shape[-2]:
        raise errors.runtime("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise errors.runtime("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise errors.runtime("This function doesn't handle types other than float and double")
    return vector, driver


def linalg_lstsq(input, b=_MISSING, rcond=None, *extra, driver=None):
    if extra:
        raise errors.type_error(f"linalg_lstsq() takes from 2 to 3 positional arguments but {3 + len(extra)} were "
                                "given")
    if b is _MISSING:
        raise errors.type_error('linalg_lstsq() missing 1 required positional arguments: "b"')
    if not isinstance(b, Tensor):
        raise wrong_type("linalg_lstsq", "b", 2, "Tensor", b)
    rc = _rcond_value(rcond)
    vector, driver = _lstsq_checks(input, b, driver)
    a = host(input._data)
    bh = host(b._data)
    bm = bh[..., None] if vector else bh
    m, n = a.shape[-2:]
    a_batch = a.shape[:-2]
    try:  # torch's batch: A's with as many leading dims of B
        batch = np.broadcast_shapes(a_batch, bh.shape[:len(a_batch)])
        np.broadcast_to(bm, batch + bm.shape[-2:])
    except ValueError:
        raise errors.runtime(errors.broadcast_mismatch(a_batch, bh.shape[:len(a_batch)])) from None
    dt = input.dtype.np
    if rc is None:
        rc = float(np.finfo(dt).eps) * max(m, n)
    eps = float(np.finfo(dt).eps) / 2  # LAPACK's dlamch('E'): the rounding unit
    raw = _lstsq_arrays(a.astype(np.float64), bm.astype(np.float64), batch, driver, rc, eps)
    x = raw[..., :n, :].astype(dt)
    if vector:
        x = x[..., 0]
    ranks, svals = _rank_values(a.astype(np.float64), driver, rc, eps) if driver != "gels" else (None, None)
    if m > n and driver != "gelsy" and (driver == "gels" or bool(np.all(ranks == n))):
        res = (raw[..., n:, :].astype(dt) ** 2).sum(-2, dtype=dt)
    else:
        res = np.zeros(0, dt)
    rank_out = ranks if driver != "gels" else np.zeros(0, np.int64)
    sv = svals.astype(dt) if driver in ("gelsd", "gelss") else np.zeros(0, dt)
    outs = [wrap(like(input._data, np.array(v, dt), dt), input.dtype) for v in (x, res)]
    record_multi(LinalgLstsqBackward0, (input, b), outs, {"vector": vector, "driver": driver, "rcond": rc,
                                                                "eps": eps})
    node = outs[0].grad_fn
    if node is not None:  # the backward reads the solution too (saved as an output)
        node._saved = tuple(node._saved) + (SavedValue(outs[0], True),)
    rank_t = wrap(like(input._data, np.array(rank_out, np.int64), np.int64), dtypes.int64)
    sv_t = wrap(like(input._data, np.array(sv, dt), dt), input.dtype)
    return LstsqResult((outs[0], outs[1], rank_t, sv_t))


# ---------------------------------------------------------------------------- declarations

def _lstsq_call(driver):
    return lambda torch, a, b: tuple(torch.linalg.lstsq(a, b, driver=driver)[:2])


OPS = [
    declare("linalg_lstsq", linalg_lstsq, LinalgLstsqBackward0, method=False, torch=False, linalg="lstsq",
            sample=Sample([((4, 3), (4, 2)), ((2, 4), (2,)), ((2, 4, 3), (2, 4))], ("any",),
                          call=lambda torch, a, b: torch.linalg.lstsq(a, b).solution),
            cases={"lstsq_gelsd": case(_lstsq_call("gelsd"), [list(r) for r in zip(*V.M23)], [[1.0], [2.0], [-0.5]]),
                   "lstsq_gels_wide": case(_lstsq_call("gels"), V.M23, [0.4, -1.1])}),
    declare("inv_ex", inv_ex, LX.LinalgInvExBackward0, method=False, torch=False, linalg=True,
            sample=Sample([((2, 2),), ((2, 3, 3),)], ("mat",), call=lambda torch, x: torch.linalg.inv_ex(x).inverse),
            cases={"inv_ex": case(lambda torch, a: torch.linalg.inv_ex(a).inverse, V.M33)}),
    declare("linalg_solve_ex", linalg_solve_ex, LX.LinalgSolveExBackward0, method=False, torch=False,
            linalg="solve_ex", sample=Sample([((3, 3), (3,)), ((3, 3), (3, 2))], ("mat", "any"),
                                             call=lambda torch, a, b: torch.linalg.solve_ex(a, b).result),
            cases={"solve_ex": case(lambda torch, a, b: torch.linalg.solve_ex(a, b, left=False).result,
                                    V.M33, V.M23)}),
]


_TABLES = tables(OPS, lazy_inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
