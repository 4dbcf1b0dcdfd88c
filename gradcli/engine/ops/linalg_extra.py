"""Linear algebra beyond mm/bmm/addmm: einsum (torch's own pairwise reduction, so the graph and
grad_fn names are torch's), tensordot, baddbmm/addbmm/addmv/addr, trace, diag/diagonal/diag_embed,
tril/triu, det/slogdet/logdet, inv, solve, cross, kron, vdot/vecdot, matrix_power, multi_dot.

Singular matrices raise torch's `torch._C._LinAlgError` (a RuntimeError) with its text; the
index in "The diagonal element k is zero" comes from an LU factorisation with partial pivoting,
as LAPACK's getrf finds it.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..function import Function, MultiOutputFunction, record, record_multi
from ..limits import check_numel, check_shape
from ..tensor import Tensor, wrap_dim, view_of, wrap
from . import elementwise as E
from . import linalg as L
from . import reduction as R
from . import shape as S
from . import replays
from .registry import Sample, V, case, tables
from .registry import op as declare
from .reduction import return_type
from .shape import sum_to
from .special_common import warn_once
from ..device import asarray as _asarray
from ..device import xp_of
from ..device import host, like

SlogdetResult = return_type("linalg_slogdet", ("sign", "logabsdet"))
InvExResult = return_type("linalg_inv_ex", ("inverse", "info"))


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError)."""
    __gradcli_engine__ = True  # the engine's, though it has no code to say so (lang/pyvalues.py)


_LinAlgError.__module__ = "torch._C"
LinAlgError = _LinAlgError


def _linalg_error(message):
    err = _LinAlgError(message)
    err.gradcli_hint = "singular"
    return err


def _c10(dt):
    return E.c10_name(dt)


def _float_input(name, A):
    if not A.dtype.is_floating_point:
        raise errors.runtime(f"{name}: Expected a floating point or complex tensor as input. Got {_c10(A.dtype)}")


def _square(name, A):
    if A._data.ndim < 2:
        raise errors.runtime(f"{name}: The input tensor A must have at least 2 dimensions.")
    n, m = A._data.shape[-2:]
    if n != m:
        raise errors.runtime(f"{name}: A must be batches of square matrices, but they are {n} by {m} matrices")


def _first_zero_pivot(a):
    """1-based index of the first exactly-zero pivot of LU with partial pivoting (0: none)."""
    a = np.array(host(a), np.float64, copy=True)
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        if p != k:
            a[[k, p]] = a[[p, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return 0


def _lu_det(m):
    """det by LU with partial pivoting (the sign of a zero determinant as LAPACK gives it)."""
    a = np.array(host(m), np.float64, copy=True)
    n = a.shape[0]
    sign = 1.0
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if p != k:
            a[[k, p]] = a[[p, k]]
            sign = -sign
        if a[k, k] == 0:
            continue
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return sign * np.prod(np.diag(a))


def _check_singular(A, message):
    """Raise _LinAlgError when a matrix of A (a batch) is exactly singular."""
    data = A._data
    mats = host(data).reshape((-1,) + data.shape[-2:])  # an LU scan on the host
    for b, m in enumerate(mats):
        k = _first_zero_pivot(m)
        if k:
            prefix = f"(Batch element {b}): " if data.ndim > 2 else ""
            return k, prefix
    return 0, ""


def _mT(t):
    return S.transpose(t, -2, -1)


def _zeros(shape, dt):
    return wrap(np.zeros(shape, dt.np), dt)


# ---------------------------------------------------------------------------- batched products

def _baddbmm_grads(node, g, b1, b2, alpha):
    ga = L.bmm(g, S.transpose(b2, 1, 2)) if node.next_functions[1][0] is not None else None
    gb = L.bmm(S.transpose(b1, 1, 2), g) if node.next_functions[2][0] is not None else None
    if alpha != 1:
        ga = ga * alpha if ga is not None else None
        gb = gb * alpha if gb is not None else None
    return ga, gb


class BaddbmmBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.beta_alpha(np.matmul))
    explain = ("{kw[beta]}", "{kw[alpha]} * grad @ {pc}.mT", "{kw[alpha]} * {pb}.mT @ grad")
    explain_factor = False
    save_inputs = True

    def backward(self, g):
        x, b1, b2 = self.saved
        beta, alpha = self._kw["beta"], self._kw["alpha"]
        gx = sum_to(g * beta if beta != 1 else g, x.shape) if self.next_functions[0][0] is not None else None
        return (gx,) + _baddbmm_grads(self, g, b1, b2, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    prod = L.bmm(batch1.detach(), batch2.detach())._data
    try:
        r = (input._data if beta == 1 else beta * input._data) + (prod if alpha == 1 else alpha * prod)
        r = np.broadcast_to(r, prod.shape) if r.shape != prod.shape else r
    except ValueError:
        raise errors.runtime(f"The expanded size of the tensor ({prod.shape[-1]}) must match the existing size "
                             f"({input._data.shape[-1]}) at non-singleton dimension {input._data.ndim - 1}.  "
                             f"Target sizes: [{', '.join(map(str, prod.shape))}].  Tensor sizes: "
                             f"[{', '.join(map(str, input._data.shape))}]") from None
    out = wrap(xp_of(r).array(r, batch1.dtype.np), batch1.dtype)
    return record(BaddbmmBackward0, (input, batch1, batch2), out, {"beta": beta, "alpha": alpha})


class AddbmmBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.beta_alpha(lambda a, b: np.sum(a @ b, axis=0)))
    explain = ("{kw[beta]}", "{kw[alpha]} * grad @ {pc}.mT, for each batch", "{kw[alpha]} * {pb}.mT @ grad, for each batch")
    explain_factor = False
    save_inputs = True

    def backward(self, g):
        x, b1, b2 = self.saved
        beta, alpha = self._kw["beta"], self._kw["alpha"]
        gx = sum_to(g * beta if beta != 1 else g, x.shape) if self.next_functions[0][0] is not None else None
        gb = S.expand(S.unsqueeze(g, 0), (b1.shape[0],) + tuple(g.shape))
        return (gx,) + _baddbmm_grads(self, gb, b1, b2, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    prod = L.bmm(batch1.detach(), batch2.detach())._data.sum(axis=0)
    r = (input._data if beta == 1 else beta * input._data) + (prod if alpha == 1 else alpha * prod)
    out = wrap(xp_of(prod).array(np.broadcast_to(r, prod.shape), batch1.dtype.np), batch1.dtype)
    return record(AddbmmBackward0, (input, batch1, batch2), out, {"beta": beta, "alpha": alpha})


class AddmvBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.beta_alpha(np.matmul))
    explain = ("{kw[beta]}", "{kw[alpha]} * outer(grad, {c})", "{kw[alpha]} * {pb}.T @ grad")
    explain_factor = False
    save_inputs = True

    def backward(self, g):
        x, mat, vec = self.saved
        beta, alpha = self._kw["beta"], self._kw["alpha"]
        nf = self.next_functions
        gx = sum_to(g * beta if beta != 1 else g, x.shape) if nf[0][0] is not None else None
        gm = S.unsqueeze(g, 1) * S.unsqueeze(vec, 0) if nf[1][0] is not None else None
        gv = L.mv(S.t(mat), g) if nf[2][0] is not None else None
        if alpha != 1:
            gm = gm * alpha if gm is not None else None
            gv = gv * alpha if gv is not None else None
        return gx, gm, gv


def addmv(input, mat, vec, *, beta=1, alpha=1):
    prod = L.mv(mat.detach(), vec.detach())._data
    if input._data.ndim > 1 or (input._data.ndim == 1 and input._data.shape[0] not in (1, prod.shape[0])):
        n, k = mat._data.shape
        raise errors.runtime(f"size mismatch, got input ({', '.join(map(str, input._data.shape))}), mat ({n}x{k}), "
                             f"vec ({vec._data.shape[0]})")
    r = (input._data if beta == 1 else beta * input._data) + (prod if alpha == 1 else alpha * prod)
    out = wrap(xp_of(prod).array(np.broadcast_to(r, prod.shape), mat.dtype.np), mat.dtype)
    return record(AddmvBackward0, (input, mat, vec), out, {"beta": beta, "alpha": alpha})


class AddrBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.beta_alpha(np.outer))
    explain = ("{kw[beta]}", "{kw[alpha]} * grad @ {c}", "{kw[alpha]} * grad.T @ {b}")
    explain_factor = False
    save_inputs = True

    def backward(self, g):
        x, v1, v2 = self.saved
        beta, alpha = self._kw["beta"], self._kw["alpha"]
        nf = self.next_functions
        gx = sum_to(g * beta if beta != 1 else g, x.shape) if nf[0][0] is not None else None
        g1 = L.mv(g, v2) if nf[1][0] is not None else None
        g2 = L.mv(S.t(g), v1) if nf[2][0] is not None else None
        if alpha != 1:
            g1 = g1 * alpha if g1 is not None else None
            g2 = g2 * alpha if g2 is not None else None
        return gx, g1, g2


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    if vec1._data.ndim != 1 or vec2._data.ndim != 1:
        raise errors.runtime(f"addr: Expected 1-D argument vec1, but got {vec1._data.ndim}-D")
    check_numel(vec1._data.size * vec2._data.size)
    dt = dtypes.result_type((input, vec1, vec2))
    prod = np.outer(vec1._data, vec2._data).astype(dt.np)
    r = (input._data if beta == 1 else beta * input._data) + (prod if alpha == 1 else alpha * prod)
    out = wrap(xp_of(prod).array(np.broadcast_to(r, prod.shape), dt.np), dt)
    return record(AddrBackward0, (input, vec1, vec2), out, {"beta": beta, "alpha": alpha})


# ---------------------------------------------------------------------------- diagonals and triangles

def _diag_view_array(a, offset, d1, d2):
    """A writable strided view of a's diagonal (last axis), as torch.diagonal returns."""
    if offset >= 0:
        sub = a[(slice(None),) * d2 + (slice(offset, None),)]
    else:
        sub = a[(slice(None),) * d1 + (slice(-offset, None),)]
    n = max(min(sub.shape[d1], sub.shape[d2]), 0)
    keep = [i for i in range(a.ndim) if i not in (d1, d2)]
    shape = tuple(sub.shape[i] for i in keep) + (n,)
    strides = tuple(sub.strides[i] for i in keep) + (sub.strides[d1] + sub.strides[d2],)
    if type(a) is np.ndarray:
        return np.lib.stride_tricks.as_strided(sub, shape, strides, writeable=a.flags.writeable)
    return np.diagonal(a, offset, d1, d2)  # CuPy: its own diagonal view


class DiagonalBackward0(Function):
    __slots__ = ()
    explain = "1 on the chosen diagonal of {a}, 0 elsewhere"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.diagonal(xs[0], kw["offset"], kw["d1"], kw["d2"]).reshape(outs[0])])

    def backward(self, g):
        k = self._kw
        return (_diagonal_scatter(g, k["in_shape"], k["offset"], k["d1"], k["d2"]),)


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801 - torch's own name for torch.diag of a matrix
    __slots__ = ()


class DiagonalBackwardBackward0(Function):
    """zeros with g on a diagonal: the (differentiable) backward of diagonal."""
    __slots__ = ()

    def backward(self, g):
        k = self._kw
        return (diagonal(g, k["offset"], k["d1"], k["d2"]),)


def _diagonal_scatter(g, in_shape, offset, d1, d2):
    data = xp_of(g._data).zeros(in_shape, g._data.dtype)
    _diag_view_array(data, offset, d1, d2)[...] = g._data
    return record(DiagonalBackwardBackward0, (g,), wrap(data, g.dtype), {"offset": offset, "d1": d1, "d2": d2})


def diagonal(input, offset=0, dim1=0, dim2=1):
    nd = input._data.ndim
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise errors.runtime(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    arr = _diag_view_array(input._data, offset, d1, d2)
    return record(DiagonalBackward0, (input,), view_of(input, arr),
                  {"in_shape": input._data.shape, "offset": offset, "d1": d1, "d2": d2})


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return diagonal(A, offset, dim1, dim2)


class DiagEmbedBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.diag(xs[0], kw["offset"]).reshape(outs[0])])
    explain = "1 for each element placed on the diagonal"
    explain_factor = False

    def backward(self, g):
        k = self._kw
        return (diagonal(g, k["offset"], k["d1"], k["d2"]),)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    nd = input._data.ndim + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise errors.runtime(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input._data.shape[-1] + abs(offset) if input._data.ndim else 1 + abs(offset)
    batch = list(input._data.shape[:-1])
    shape = []
    it = iter(batch)
    for i in range(nd):
        shape.append(n if i in (d1, d2) else next(it))
    check_shape(shape)
    data = xp_of(input._data).zeros(shape, input._data.dtype)
    _diag_view_array(data, offset, d1, d2)[...] = input._data
    return record(DiagEmbedBackward0, (input,), wrap(data, input.dtype), {"offset": offset, "d1": d1, "d2": d2})


def diag(input, diagonal=0):
    nd = input._data.ndim
    if nd == 1:
        return diag_embed(input, diagonal, 0, 1)
    if nd != 2:
        raise errors.runtime(f"diag(): Supports 1D or 2D tensors. Got {nd}D")
    arr = _diag_view_array(input._data, diagonal, 0, 1).copy()
    return record(DiagonalBackward0_copy, (input,), wrap(arr, input.dtype),
                  {"in_shape": input._data.shape, "offset": diagonal, "d1": 0, "d2": 1})


def diagflat(input, offset=0):
    return diag_embed(S.reshape(input, (-1,)), offset, 0, 1)


class TraceBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(np.trace(xs[0])).reshape(outs[0])])
    explain = "1 on the diagonal of {a}, 0 elsewhere"
    explain_factor = False

    def backward(self, g):
        n, m = self._kw["in_shape"]
        return (g * wrap(xp_of(g._data).eye(n, m, dtype=g._data.dtype), g.dtype),)


def trace(input):
    if input._data.ndim != 2:
        raise errors.runtime(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    if input.dtype is dtypes.bool_:
        from .special_common import not_implemented  # noqa: PLC0415
        raise not_implemented("trace", input.dtype)
    dt = R.sum_dtype(input.dtype)
    r = np.trace(input._data, dtype=dt.np)
    return record(TraceBackward0, (input,), wrap(_asarray(r, dt.np), dt), {"in_shape": input._data.shape})


class TrilBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.tril(xs[0], kw["k"])])
    explain = "1 on and below the k-th diagonal, 0 above"
    explain_factor = False

    def backward(self, g):
        return (tril(g, self._kw["k"]),)


class TriuBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.triu(xs[0], kw["k"])])
    explain = "1 on and above the k-th diagonal, 0 below"
    explain_factor = False

    def backward(self, g):
        return (triu(g, self._kw["k"]),)


def _tri(input, k, lower):
    if input._data.ndim < 2:
        raise errors.runtime(f"{'tril' if lower else 'triu'}: input tensor must have at least 2 dimensions")
    r = np.tril(input._data, k) if lower else np.triu(input._data, k)
    return record(TrilBackward0 if lower else TriuBackward0, (input,), wrap(_asarray(r), input.dtype), {"k": k})


def tril(input, diagonal=0):
    return _tri(input, diagonal, True)


def triu(input, diagonal=0):
    return _tri(input, diagonal, False)


def _tri_indices(row, col, offset, lower, dtype=None, device=None):
    from ..factory import finish  # noqa: PLC0415
    rows = np.arange(max(int(row), 0)) + offset
    count = np.clip(rows + 1 if lower else col - rows, 0, max(int(col), 0)).sum()
    check_numel(2 * int(count))
    r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    dt = dtype or dtypes.int64
    return finish(np.stack([r, c]).astype(dt.np), dt, device, False)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(row, col, offset, True, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(row, col, offset, False, dtype, device)


# ---------------------------------------------------------------------------- det, slogdet, inv, solve

class LinalgDetBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(np.linalg.det(xs[0])).reshape(outs[0])])
    explain = "det({a}) * inverse({a}).mT"
    explain_factor = False
    save_inputs = True
    save_output = True

    def backward(self, g):
        A, det = self.saved
        return (S.unsqueeze(S.unsqueeze(g * det, -1), -1) * _mT(inv(A)),)


def det(A):
    _float_input("linalg.det", A)
    _square("linalg.det", A)
    data = A._data
    mats = host(data).reshape((-1,) + data.shape[-2:])  # LU on the host (LAPACK's sign for det 0)
    r = np.array([_lu_det(m) for m in mats], np.float64).reshape(data.shape[:-2])
    return record(LinalgDetBackward0, (A,), wrap(like(data, r, A.dtype.np), A.dtype))


class LinalgSlogdetBackward0(MultiOutputFunction):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(r).reshape(o) for r, o in zip(np.linalg.slogdet(xs[0]), outs)])
    explain = "inverse({a}).mT (for the log of the absolute determinant)"
    explain_factor = False
    save_inputs = True

    def backward(self, grads):
        (A,) = self.saved
        g = grads[1]
        return (S.unsqueeze(S.unsqueeze(g, -1), -1) * _mT(inv(A)),)


def slogdet(A):
    _float_input("linalg.slogdet", A)
    _square("linalg.slogdet", A)
    sign, logabs = np.linalg.slogdet(A._data)
    s = wrap(_asarray(sign, A.dtype.np), A.dtype)
    la = wrap(_asarray(logabs, A.dtype.np), A.dtype)
    record_multi(LinalgSlogdetBackward0, (A,), [s, la])
    return SlogdetResult((s, la))


def logdet(input):
    sign, logabs = slogdet(input)
    return E.where(sign == -1.0, float("nan"), logabs)


class LinalgInvExBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.linalg.inv(xs[0])] + [np.zeros(o) for o in outs[1:]])
    explain = "-inverse({a}).mT @ grad @ inverse({a}).mT"
    explain_factor = False
    save_output = True

    def backward(self, g):
        (inverse,) = self.saved[-1:]
        return (-L.matmul(_mT(inverse), L.matmul(g, _mT(inverse))),)


def _inv(A, name):
    _float_input(name, A)
    _square(name, A)
    k, prefix = _check_singular(A, name)
    if k:
        raise _linalg_error(f"{name}: {prefix}The diagonal element {k} is zero, the inversion could not be "
                            "completed because the input matrix is singular.")
    r = np.linalg.inv(A._data)
    return record(LinalgInvExBackward0, (A,), wrap(_asarray(r, A.dtype.np), A.dtype))


def inv(A):
    return _inv(A, "linalg.inv")


def inverse(input):
    return _inv(input, "linalg.inv")


def inv_ex(A, *, check_errors=False):
    r = _inv(A, "linalg.inv_ex")
    return InvExResult((r, wrap(xp_of(A._data).zeros(A._data.shape[:-2], np.int32), dtypes.int32)))


class LinalgSolveExBackward0(Function):
    __slots__ = ()
    explain = ("-solve({pa}.mT, grad) @ X.mT (X: the solution)", "solve({pa}.mT, grad)")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [_solve_np(xs[0], xs[1], kw).reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        A, B, X = self.saved
        k = self._kw
        nf = self.next_functions
        if k["left"]:
            if k["vector"]:
                gB = solve(_mT(A), g)
                gA = -(S.unsqueeze(gB, -1) * S.unsqueeze(X, -2)) if nf[0][0] is not None else None
            else:
                gB = solve(_mT(A), g)
                gA = -L.matmul(gB, _mT(X)) if nf[0][0] is not None else None
        else:
            gB = _mT(solve(A, _mT(g)))
            gA = -L.matmul(_mT(X), gB) if nf[0][0] is not None else None
        gA = sum_to(gA, A.shape) if gA is not None else None
        gB = sum_to(gB, B.shape) if nf[1][0] is not None else None
        return gA, gB


def solve(A, B, *, left=True):
    _float_input("linalg.solve", A)
    if A.dtype is not B.dtype:
        raise errors.runtime(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                             f"{_c10(A.dtype)} and B of type {_c10(B.dtype)} instead")
    _square("linalg.solve", A)
    a, b = A._data, B._data
    n = a.shape[-1]
    vector = left and (b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]))
    bm = b[..., None] if vector else b
    rows = bm.shape[-2] if left else bm.shape[-1]
    if bm.ndim < 2 or rows != n:
        eq = "AX = B" if left else "XA = B"
        shp = "x".join(map(str, bm.shape[-2:])) if bm.ndim >= 2 else f"{bm.shape[0]}x1"
        raise errors.runtime(f"linalg.solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                             f"{shp})")
    k, prefix = _check_singular(A, "torch.linalg.solve")
    if k:
        raise _linalg_error(f"torch.linalg.solve: {prefix}The solver failed because the input matrix is singular.")
    if left:
        batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
        x = np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(bm, batch + bm.shape[-2:]))
        if vector:
            x = x[..., 0]
    else:
        at = np.swapaxes(a, -1, -2)
        bt = np.swapaxes(bm, -1, -2)
        batch = np.broadcast_shapes(at.shape[:-2], bt.shape[:-2])
        x = np.swapaxes(np.linalg.solve(np.broadcast_to(at, batch + at.shape[-2:]),
                                        np.broadcast_to(bt, batch + bt.shape[-2:])), -1, -2)
    return record(LinalgSolveExBackward0, (A, B), wrap(xp_of(x).array(x, A.dtype.np), A.dtype),
                  {"left": left, "vector": vector})


def matrix_power(A, n):
    if A._data.ndim < 2 or A._data.shape[-1] != A._data.shape[-2]:
        _square("linalg.matrix_power", A)
    if n == 0:
        eye = np.broadcast_to(xp_of(A._data).eye(A._data.shape[-1], dtype=A._data.dtype), A._data.shape)
        return S.clone(A).copy_(wrap(xp_of(eye).array(eye), A.dtype))
    if n == 1:
        return S.clone(A)
    a = A
    if n < 0:
        a = inv(A)
        n = -n
    z = result = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = a if z is None else L.matmul(z, z)
        if bit == 1:
            result = z if result is None else L.matmul(result, z)
    return result


# ---------------------------------------------------------------------------- cross, kron, vdot, multi_dot

class LinalgCrossBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.cross(xs[0], xs[1], axis=kw.get("dim", -1))])
    explain = ("cross({b}, grad)", "cross(grad, {a})")
    explain_factor = False
    save_inputs = True

    def backward(self, g):
        a, b = self.saved
        d = self._kw["dim"]
        nf = self.next_functions
        ga = sum_to(linalg_cross(b, g, dim=d), a.shape) if nf[0][0] is not None else None
        gb = sum_to(linalg_cross(g, a, dim=d), b.shape) if nf[1][0] is not None else None
        return ga, gb


def linalg_cross(input, other, *, dim=-1):
    a, b = input._data, other._data
    if a.ndim != b.ndim:
        raise errors.runtime("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, a.ndim)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise errors.runtime(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
                             f"{b.shape[d]}")
    dt = dtypes.result_type((input, other))
    try:
        r = np.cross(a.astype(dt.np, copy=False), b.astype(dt.np, copy=False), axis=d)
    except ValueError:
        raise E.broadcast_error(input, other) from None
    return record(LinalgCrossBackward0, (input, other), wrap(_asarray(r, dt.np), dt), {"dim": d})


_CROSS_WARNING = ("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                  "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                  "with that of linalg.cross in a future release. (Triggered internally at "
                  "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)")


def cross(input, other, dim=None):
    if dim is None:
        warn_once(_CROSS_WARNING)
        sizes = input._data.shape
        dims = [i for i, s in enumerate(sizes) if s == 3]
        if not dims:
            raise errors.runtime("no dimension of size 3 in input")
        dim = dims[0]
    return linalg_cross(input, other, dim=dim)


def kron(input, other):
    a, b = input, other
    nd = max(a._data.ndim, b._data.ndim)
    a = S.reshape(a, (1,) * (nd - a._data.ndim) + tuple(a._data.shape))
    b = S.reshape(b, (1,) * (nd - b._data.ndim) + tuple(b._data.shape))
    sa, sb = a._data.shape, b._data.shape
    ia = []
    ib = []
    for x, y in zip(sa, sb):
        ia += [x, 1]
        ib += [1, y]
    prod = L.unsafe_view(a, tuple(ia)) * L.unsafe_view(b, tuple(ib))
    return L.unsafe_view(prod, tuple(x * y for x, y in zip(sa, sb)))


class VdotBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(np.vdot(xs[0], xs[1])).reshape(outs[0])])
    explain = ("{b}", "{a}")
    save_inputs = True

    def backward(self, g):
        a, b = self.saved
        nf = self.next_functions
        return (g * b if nf[0][0] is not None else None, g * a if nf[1][0] is not None else None)


def vdot(input, other):
    L.dot(input.detach(), other.detach())  # the same checks and messages as dot
    return record(VdotBackward0, (input, other), wrap(_asarray(np.dot(input._data, other._data)), input.dtype))


def vecdot(x, y, *, dim=-1):
    if x._data.ndim == 1 and y._data.ndim == 1:
        return vdot(x, y)
    return R.sum(x * y, dim=dim)


def multi_dot(tensors):
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise errors.runtime(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    mats = list(tensors)
    if first._data.ndim == 1:
        mats[0] = S.unsqueeze(first, 0)
    if last._data.ndim == 1:
        mats[-1] = S.unsqueeze(last, 1)
    out_shape = []
    if first._data.ndim == 2:
        out_shape.append(first._data.shape[0])
    if last._data.ndim == 2:
        out_shape.append(last._data.shape[1])
    if n == 2:
        r = L.mm(mats[0], mats[1])
    else:
        r = _chain(mats)
    return S.view(r, tuple(out_shape))


def _chain(mats):
    """The cheapest parenthesisation (matrix-chain order), as torch's multi_dot picks it."""
    n = len(mats)
    p = [mats[0]._data.shape[0]] + [m._data.shape[1] for m in mats]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def build(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return L.mm(build(i, k), build(k + 1, j))
    return build(0, n - 1)


# ---------------------------------------------------------------------------- tensordot

def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise errors.runtime(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a._data.ndim or dims > b._data.ndim:
            raise errors.runtime(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da = list(range(-dims, 0))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise errors.runtime("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise errors.runtime(f"expected scalar type {_c10(a.dtype)} but found {_c10(b.dtype)}")
    sa, sb = a._data.shape, b._data.shape
    csize = 1
    for x, y in zip(da, db):
        if sa[x] != sb[y]:
            raise errors.runtime(f"contracted dimensions need to match, but first has size {sa[x]} in dim {x} "
                                 f"and second has size {sb[y]} in dim {y}")
        csize *= sa[x]
    da = [wrap_dim(d, len(sa)) for d in da]
    db = [wrap_dim(d, len(sb)) for d in db]
    fa = [i for i in range(len(sa)) if i not in da]
    fb = [i for i in range(len(sb)) if i not in db]
    size1 = int(np.prod([sa[i] for i in fa])) if fa else 1
    size2 = int(np.prod([sb[i] for i in fb])) if fb else 1
    t1 = S.reshape(S.permute(a, fa + da), (size1, csize))
    t2 = S.reshape(S.permute(b, db + fb), (csize, size2))
    return S.reshape(L.mm(t1, t2), tuple(sa[i] for i in fa) + tuple(sb[i] for i in fb))


# ---------------------------------------------------------------------------- einsum (torch's algorithm)

_ELL = 52


def _subscript(ch):
    return ord(ch) - ord("A") if ch.isupper() else ord(ch) - ord("a") + 26


def _label(s):
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise errors.runtime("einsum(): must provide at least one operand")
    num_ops = len(operands)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = [[] for _ in range(num_ops)]
    ell_in_input = False
    cur = 0
    i = 0
    while i < len(lhs):
        ch = lhs[i]
        if ch == " ":
            pass
        elif ch == ".":
            if ell_in_input:
                raise errors.runtime(f"einsum(): found '.' for operand {cur} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) + 0 and lhs[i + 1:i + 3] == ".."):
                raise errors.runtime(f"einsum(): found '.' for operand {cur} that is not part of any ellipsis")
            i += 2
            op_labels[cur].append(_ELL)
            ell_in_input = True
        elif ch == ",":
            cur += 1
            if cur >= num_ops:
                raise errors.runtime("einsum(): fewer operands were provided than specified in the equation")
            ell_in_input = False
        else:
            if not (ch.isascii() and ch.isalpha()):
                raise errors.runtime(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                     "subscripts must be in [a-zA-Z]")
            op_labels[cur].append(_subscript(ch))
        i += 1
    if cur != num_ops - 1:
        raise errors.runtime("einsum(): more operands were provided than specified in the equation")

    label_count = [0] * 52
    ell_num_dim = 0
    for k, (op, labels) in enumerate(zip(operands, op_labels)):
        ndims = op._data.ndim
        nlabels = len(labels)
        has_ell = False
        for lab in labels:
            if lab == _ELL:
                nlabels -= 1
                has_ell = True
                ell_num_dim = max(ell_num_dim, ndims - nlabels)
            else:
                label_count[lab] += 1
        if (nlabels > ndims) if has_ell else (nlabels != ndims):
            raise errors.runtime(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                f"{'is more than' if has_ell else 'does not match'} the number of dimensions ({ndims}) for operand "
                f"{k}{'' if has_ell else ' and no ellipsis was given'}")

    perm_of = [-1] * 52
    perm_index = 0
    ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for lab in range(52):
            if label_count[lab] == 1:
                perm_of[lab] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            ch = rhs[i]
            if ch == " ":
                pass
            elif ch == ".":
                if ell_in_output:
                    raise errors.runtime("einsum(): found '.' for output but an ellipsis (...) was already found")
                if rhs[i + 1:i + 3] != "..":
                    raise errors.runtime("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not (ch.isascii() and ch.isalpha()):
                    raise errors.runtime(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                         "equation string, subscripts must be in [a-zA-Z]")
                lab = _subscript(ch)
                if not (label_count[lab] > 0 and perm_of[lab] == -1):
                    why = "appears more than once in the output" if perm_of[lab] > -1 else \
                        "does not appear in the equation for any input operand"
                    raise errors.runtime(f"einsum(): output subscript {ch} {why}")
                perm_of[lab] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for lab in range(52):
        if label_count[lab] > 0 and perm_of[lab] == -1:
            perm_of[lab] = perm_index
            perm_index += 1

    dt = operands[0].dtype
    for op in operands[1:]:
        if op.dtype is not dt:
            raise errors.runtime(f"expected scalar type {_c10(dt)} but found {_c10(op.dtype)}")

    label_size = [1] * 52
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for k, (op, labels) in enumerate(zip(operands, op_labels)):
        permutation = [-1] * perm_index
        dim = 0
        for lab in labels:
            if lab == _ELL:
                ndim = operands[k]._data.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op._data.shape[dim]
                    if size != 1:
                        if not (ell_sizes[j] == 1 or ell_sizes[j] == size):
                            raise errors.runtime(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {k}has size {size} which "
                                f"does not broadcast with previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_of[lab]] == -1:
                size = op._data.shape[dim]
                if size != 1:
                    if not (label_size[lab] == 1 or label_size[lab] == size):
                        raise errors.runtime(
                            f"einsum(): subscript {_label(lab)} has size {size} for operand {k} which does not "
                            f"broadcast with previously seen size {label_size[lab]}")
                    label_size[lab] = size
                    dim_counts[perm_of[lab]] += 1
                permutation[perm_of[lab]] = dim
                dim += 1
            else:
                prev = permutation[perm_of[lab]]
                if op._data.shape[dim] != op._data.shape[prev]:
                    raise errors.runtime(
                        f"einsum(): subscript {_label(lab)} is repeated for operand {k} but the sizes don't match, "
                        f"{op._data.shape[dim]} != {op._data.shape[prev]}")
                op = S.movedim(diagonal(op, 0, prev, dim), -1, prev)
        for j, val in enumerate(permutation):
            if val == -1:
                op = S.unsqueeze(op, dim)
                permutation[j] = dim
                dim += 1
        ops.append(S.permute(op, permutation))

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for dim in range(out_num_dim, perm_index):
            sa = a._data.shape[dim] != 1
            sb = b._data.shape[dim] != 1
            if sa and sb:
                if a._data.shape[dim] != b._data.shape[dim]:
                    raise errors.runtime("non-broadcast dimensions must match")
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if sa:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif sb:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = R.sum(a, dim=tuple(a_sum), keepdim=True)
        if b_sum:
            b = R.sum(b, dim=tuple(b_sum), keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    result = ops[0]
    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return S.view(result, tuple(result._data.shape[:out_num_dim]))
        return R.sum(result, dim=tuple(range(out_num_dim, perm_index)))
    return result


def _sumproduct_pair(left, right, sum_dims):
    """(left * right).sum(sum_dims, keepdim=True) by permutes and one bmm, as torch computes it."""
    if not sum_dims:
        return E.mul(left, right)
    ndim = left._data.ndim
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl = left._data.shape[i] != 1
        sr = right._data.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                sum_size *= left._data.shape[i]
            elif sl:
                left = R.sum(left, dim=i, keepdim=True)
            elif sr:
                right = R.sum(right, dim=i, keepdim=True)
        elif sl and sr:
            lro.append(i)
            lro_size *= left._data.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._data.shape[i]
        else:
            ro.append(i)
            ro_size *= right._data.shape[i]
    if lo and ro and ro[-1] < lo[0]:
        left, right = right, left
        lo, ro = ro, lo
        lo_size, ro_size = ro_size, lo_size
    out_size = [left._data.shape[d] for d in lro] + [left._data.shape[d] for d in lo] + [1] * len(sum_dims) + \
        [right._data.shape[d] for d in ro]
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    left = S.reshape(S.permute(left, lperm), (lro_size, lo_size, sum_size))
    right = S.reshape(S.permute(right, rperm), (lro_size, sum_size, ro_size))
    result = L.bmm(left, right)
    return S.permute(S.view(result, tuple(out_size)), operm)


# ---------------------------------------------------------------------------- cdist

class CdistBackward0(Function):
    """torch.cdist's direct kernel; edges (x1, x2)."""
    __slots__ = ()
    explain = ("the p-norm's gradient of each pair's difference, summed over {b}'s rows", "minus the same, summed over {a}'s rows")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.linalg.norm(xs[0][..., :, None, :] - xs[1][..., None, :, :], ord=kw["p"], axis=-1)
                                                .reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        x1, x2, dist = self.saved
        p = self._kw["p"]
        gd, a, b, d = g._data, x1._data, x2._data, dist._data
        diff = a[..., :, None, :] - b[..., None, :, :]
        dd = d[..., None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if p == 0:
                term = np.zeros_like(diff)
            elif p == 1:
                term = np.sign(diff)
            elif p == 2:
                term = np.where(dd == 0, 0, diff / dd)
            elif p == float("inf"):
                term = np.sign(diff) * (np.abs(diff) == dd)
            else:
                term = np.where(dd == 0, 0, diff * np.abs(diff) ** (p - 2) / dd ** (p - 1))
        contrib = (gd[..., None] * term).astype(a.dtype)
        g1 = wrap(like(a, contrib.sum(axis=-2)), x1.dtype)
        g2 = wrap(like(b, -contrib.sum(axis=-3)), x2.dtype)
        for r in (g1, g2):
            record(CdistBackwardBackward0, (g, x1, x2), r)
        return g1, g2


class CdistBackwardBackward0(Function):
    __slots__ = ()

    def backward(self, g):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


def _euclidean_dist(x1, x2):
    """ATen's _euclidean_dist: the matmul form torch uses for p=2 when a side has more than 25 rows."""
    from .shape import cat  # noqa: PLC0415
    x1_norm = R.sum(E.pow(x1, 2), -1, True)
    x2_norm = R.sum(E.pow(x2, 2), -1, True)
    from ..factory import ones_like  # noqa: PLC0415
    x1_ = cat([E.mul(x1, -2), x1_norm, ones_like(x1_norm)], -1)
    x2_ = cat([x2, ones_like(x2_norm), x2_norm], -1)
    result = L.matmul(x1_, S.transpose(x2_, -2, -1))
    return result.clamp_min_(1e-30).sqrt_()


def cdist(x1, x2, p=2.0, compute_mode=None):
    for name, t in (("X1", x1), ("X2", x2)):
        if t._data.ndim < 2:
            raise errors.runtime(f"cdist only supports at least 2D tensors, {name} got: {t._data.ndim}D")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise errors.runtime(f"cdist only supports floating-point dtypes, {name} got: {t.dtype.legacy[:-6]}")
    if x1.shape[-1] != x2.shape[-1]:
        raise errors.runtime(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                             f"{x2.shape[-1]}")
    if p < 0:
        raise errors.runtime("cdist only supports non-negative p values")
    rows1, rows2 = x1.shape[-2], x2.shape[-2]
    if p == 2 and (compute_mode == "use_mm_for_euclid_dist" or
                   (compute_mode in (None, "use_mm_for_euclid_dist_if_necessary") and (rows1 > 25 or rows2 > 25))):
        out = _euclidean_dist(x1, x2)
        return S.view(out, tuple(out.shape))
    a, b = x1._data, x2._data
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        d = (diff != 0).sum(-1).astype(a.dtype)
    elif p == 1:
        d = diff.sum(-1)
    elif p == 2:
        d = np.sqrt((diff * diff).sum(-1))
    elif p == float("inf"):
        d = diff.max(-1) if diff.shape[-1] else np.zeros(diff.shape[:-1], a.dtype)
    else:
        # std::pow on each float (correctly rounded: through float64), the sum in the input's type
        terms = (diff.astype(np.float64) ** p).astype(a.dtype)
        d = (terms.sum(-1).astype(np.float64) ** (1.0 / p)).astype(a.dtype)
    out = wrap(like(a, np.asarray(d, a.dtype)), x1.dtype)
    return record(CdistBackward0, (x1, x2), out, {"p": p})


# ---------------------------------------------------------------------------- declarations

def _solve_np(a, b, kw):
    """linalg.solve's replay (left=False: X A = B)."""
    if not kw.get("left", True):
        return np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    return np.linalg.solve(a, b[..., None])[..., 0] if kw.get("vector") else np.linalg.solve(a, b)


_M2 = [((2, 2),), ((3, 3),)]
_MB = [((2, 2),), ((2, 3, 3),)]
_ip = {"inplace": True}
# One declaration per op (registry.py): its names, in-place forms, nodes and gradient-check sample
OPS = [
    declare("baddbmm", baddbmm, BaddbmmBackward0, sample=Sample([((2, 2, 2), (2, 2, 3), (2, 3, 2))]), **_ip,
       cases={"baddbmm": case(lambda torch, x, a, b: torch.baddbmm(x, a, b, beta=0.5, alpha=2.0), [[[0.5, 1.0], [2.0, -1.0]]] * 2, [[[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]]] * 2, [[[1.0, 0.5], [0.0, -1.0], [2.0, 0.25]]] * 2)}),
    declare("addbmm", addbmm, AddbmmBackward0, sample=Sample([((2, 2), (2, 2, 3), (2, 3, 2))]), **_ip,
       cases={"addbmm": case(lambda torch, x0, x1, x2: torch.addbmm(x0, x1, x2), [[0.5, 1.0], [2.0, -1.0]], [[[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]]] * 2, [[[1.0, 0.5], [0.0, -1.0], [2.0, 0.25]]] * 2)}),
    declare("addmv", addmv, AddmvBackward0, sample=Sample([((2,), (2, 3), (3,))]), torch_inplace=True, **_ip,
       cases={"addmv": case(lambda torch, x, m, v: torch.addmv(x, m, v, beta=0.5, alpha=2.0), V.A[:2], V.M23, V.B[:3])}),
    declare("addr", addr, AddrBackward0, sample=Sample([((3, 2), (3,), (2,))]), **_ip,
       cases={"addr": case(lambda torch, x0, x1, x2: torch.addr(x0, x1, x2), V.M23, V.A[:2], V.B[:3])}),
    declare("trace", trace, TraceBackward0, sample=Sample([((2, 3),), ((3, 3),)]),
       cases={"trace": case(lambda torch, x0: torch.trace(x0), V.M33)}),
    declare("diag", diag, DiagonalBackward0_copy, DiagEmbedBackward0, sample=Sample([((3,),), ((2, 3),)]),
       cases={"diag": case(lambda torch, a: torch.diag(a, 1), V.M33),
              "diag_vec": case(lambda torch, v: torch.diag(v, -1), V.A)}),
    declare("diagonal", diagonal, DiagonalBackward0, sample=Sample([((2, 3),), ((2, 2, 2),)]),
       cases={"diagonal": case(lambda torch, a: torch.diagonal(a, 0, 1, 0), V.M23)}),
    declare("diag_embed", diag_embed, DiagEmbedBackward0, sample=Sample([((3,),), ((2, 3),)]),
       cases={"diag_embed": case(lambda torch, a: torch.diag_embed(a, 1), V.M23)}),
    declare("diagflat", diagflat, DiagEmbedBackward0, sample=Sample([((3,),), ((2, 2),)]),
       cases={"diagflat": case(lambda torch, x0: torch.diagflat(x0), V.M23)}),
    declare("tril", tril, TrilBackward0, sample=Sample([((3, 3),), ((2, 3),)]), **_ip,
       cases={"tril": case(lambda torch, a: torch.tril(a, -1), V.M33)}),
    declare("triu", triu, TriuBackward0, sample=Sample([((3, 3),), ((2, 3),)], args=(1,)), **_ip,
       cases={"triu": case(lambda torch, x0: torch.triu(x0), V.M33)}),
    declare("det", det, LinalgDetBackward0, linalg=True, sample=Sample(_MB, ("mat",)),
       cases={"det": case(lambda torch, x0: torch.det(x0), V.M33)}),
    declare("logdet", logdet, sample=Sample(_M2, ("spd",)),
       cases={"logdet": case(lambda torch, x0: torch.logdet(x0), V.M33)}),  # slogdet's nodes
    declare("slogdet", slogdet, LinalgSlogdetBackward0, linalg=True, sample=Sample(_M2, ("mat",)),
       cases={"slogdet": case(lambda torch, x0: torch.linalg.slogdet(x0), V.M33)}),
    declare("inverse", inverse, LinalgInvExBackward0, sample=Sample(_MB, ("mat",))),
    declare("cross", cross, LinalgCrossBackward0, sample=Sample([((3,), (3,)), ((2, 3), (2, 3))], kwargs={"dim": -1})),
    declare("kron", kron, sample=Sample([((2, 2), (2, 1)), ((3,), (2,))]),
       cases={"kron": case(lambda torch, x0, x1: torch.kron(x0, x1), V.M23, [[1.0, -0.5], [2.0, 0.25]])}),  # mul's and view's nodes
    declare("vdot", vdot, VdotBackward0, sample=Sample([((3,), (3,))]),
       cases={"vdot": case(lambda torch, x0, x1: torch.vdot(x0, x1), V.A, V.B)}),
    declare("matrix_power", matrix_power, linalg=True, sample=Sample(  # mm's and inverse's nodes
        _M2, ("mat",), call=lambda torch, x: (torch.matrix_power(x, 3), torch.matrix_power(x, -1))),
       cases={"matrix_power": case(lambda torch, a: torch.linalg.matrix_power(a, 3), V.M33),
              "matrix_power_neg": case(lambda torch, a: torch.linalg.matrix_power(a, -2), V.M33)}),
    # torch.X only
    declare("cdist", cdist, CdistBackward0, method=False, sample=Sample(  # torch's double backward raises
        [((2, 4, 3), (2, 5, 3))], second=False)),
    declare("einsum", einsum, method=False, sample=Sample(  # the nodes of the products it makes
        [((2, 3), (3, 2))], call=lambda torch, x, y: torch.einsum("ij,jk->ik", x, y)),
       cases={"einsum_mm": case(lambda torch, a, b: torch.einsum('ij,jk->ik', a, b), V.M23, V.M33),
              "einsum_trace": case(lambda torch, a: torch.einsum('ii', a), V.M33),
              "einsum_diag": case(lambda torch, a: torch.einsum('ii->i', a), V.M33),
              "einsum_dot": case(lambda torch, a: torch.einsum('i,i->', a, a), V.A),
              "einsum_outer": case(lambda torch, a, b: torch.einsum('i,j->ij', a, b), V.A, V.B),
              "einsum_three": case(lambda torch, a, b: torch.einsum('ij,jk,kl->il', a, b, b), V.M23, V.M33),
              "einsum_ellipsis": case(lambda torch, a, b: torch.einsum('...j,jk->...k', a, b), V.M23, V.M33)}),
    declare("tensordot", tensordot, method=False, sample=Sample([((2, 3), (3, 3))], kwargs={"dims": 1}),
       cases={"tensordot": case(lambda torch, a, b: torch.tensordot(a, b, dims=1), V.M23, V.M33)}),
    declare("tril_indices", tril_indices, method=False, no_grad="an integer result"),
    declare("triu_indices", triu_indices, method=False, no_grad="an integer result"),
    # torch.linalg.X only
    declare("inv", inv, LinalgInvExBackward0, method=False, torch=False, linalg=True, sample=Sample(_MB, ("mat",)),
       cases={"inv": case(lambda torch, x0: torch.linalg.inv(x0), V.M33)}),
    declare("inv_ex", inv_ex, LinalgInvExBackward0, method=False, torch=False, linalg=True,
       sample=Sample(_MB, ("mat",), call=lambda torch, x: torch.linalg.inv_ex(x).inverse),
       cases={"inv_ex": case(lambda torch, a: torch.linalg.inv_ex(a).inverse, V.M33)}),
    declare("solve", solve, LinalgSolveExBackward0, method=False, torch=False, linalg=True,
       sample=Sample([((3, 3), (3,)), ((3, 3), (3, 2))], ("mat", "any")),
       cases={"solve_vec": case(lambda torch, x0, x1: torch.linalg.solve(x0, x1), V.M33, V.A[:3]),
              "solve_mat": case(lambda torch, x0, x1: torch.linalg.solve(x0, x1), V.M33, [[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]]),
              "solve_right": case(lambda torch, a, b: torch.linalg.solve(a, b, left=False), V.M33, V.M23)}),
    declare("linalg_cross", linalg_cross, LinalgCrossBackward0, method=False, torch=False, linalg="cross",
       sample=Sample([((3,), (3,)), ((2, 3), (2, 3))]),
       cases={"cross": case(lambda torch, x0, x1: torch.linalg.cross(x0, x1), V.M33, [[1.0, 0.5, -0.5], [0.25, 2.0, 1.0], [0.0, -1.0, 1.5]])}),
    declare("linalg_diagonal", linalg_diagonal, DiagonalBackward0, method=False, torch=False, linalg="diagonal",
       sample=Sample([((2, 3),), ((2, 2, 2),)])),
    declare("multi_dot", multi_dot, method=False, torch=False, linalg=True, sample=Sample(
        [((2, 3), (3, 3))], call=lambda torch, x, y: torch.linalg.multi_dot([x, y, y])),
       cases={"multi_dot": case(lambda torch, a, b: torch.linalg.multi_dot([a, b, b]), V.M23, V.M33)}),
    declare("vecdot", vecdot, method=False, torch=False, linalg=True, sample=Sample([((2, 3), (2, 3))]),
       cases={"vecdot": case(lambda torch, x0, x1: torch.linalg.vecdot(x0, x1), V.M23, V.M23)}),
    declare("LinAlgError", LinAlgError, method=False, torch=False, linalg=True, no_grad="an exception type"),
]


def _inplace(fn, name, node):
    from .special import inplace_method  # noqa: PLC0415
    return inplace_method(fn, name, node)


_TABLES = tables(OPS, _inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only, torch.addmv_
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
