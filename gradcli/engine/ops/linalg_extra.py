"""Linear algebra beyond mm/bmm/addmm: trace, diag/diagonal/diag_embed, tril/triu,
det/slogdet/logdet, inv, solve, matrix_power, and the helpers its sibling families share:
linalg_products.py (baddbmm/addbmm/addmv/addr, cross, kron, vdot/vecdot, multi_dot, tensordot)
and einsum.py (einsum: torch's own pairwise reduction, so the graph and grad_fn names are
torch's; cdist), each with its declarations and tables.

Singular matrices raise torch's `torch._C._LinAlgError` (a RuntimeError) with its text; the
index in "The diagonal element k is zero" comes from an LU factorisation with partial pivoting,
as LAPACK's getrf finds it.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..device import asarray as _asarray
from ..device import host, like, xp_of
from ..function import Function, MultiOutputFunction, record, record_multi
from ..limits import check_numel, check_shape
from ..argcheck import int64_args
from ..tensor import wrap, wrap_dim
from ..views import view_of
from . import clamp_where as CW
from . import elementwise_common as EC
from .matmul import matmul
from . import reduction as R
from . import shape as S
from .reduction import return_type
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare
from .shape import sum_to

SlogdetResult = return_type("linalg_slogdet", ("sign", "logabsdet"))


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError)."""
    __gradcli_engine__ = True  # the engine's, though it has no code to say so (lang/pyvalues.py)


_LinAlgError.__module__ = "torch._C"
LinAlgError = _LinAlgError


def _linalg_error(message):
    err = _LinAlgError(message)
    err.gradcli_hint = "singular"
    return err


def c10(dt):
    return EC.c10_name(dt)


def _float_input(name, A):
    if not A.dtype.is_floating_point:
        raise errors.runtime(f"{name}: Expected a floating point or complex tensor as input. Got {c10(A.dtype)}")


def _square(name, A):
    if A._data.ndim < 2:
        raise errors.runtime(f"{name}: The input tensor A must have at least 2 dimensions.")
    n, m = A._data.shape[-2:]
    if n != m:
        raise errors.runtime(f"{name}: A must be batches of square matrices, but they are {n} by {m} matrices")


def float_square(name, A):
    """inv's first checks, in ATen's order: square matrices, then a floating tensor."""
    _square(name, A)
    _float_input(name, A)


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
    if data.size == 0:
        return 0, ""
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


diagonal_view_array = _diag_view_array  # (ops/scatter_extra.py's diagonal_scatter)


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
    int64_args(offset, dim1, dim2)
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
    int64_args(diagonal)
    return _tri(input, diagonal, True)


def triu(input, diagonal=0):
    int64_args(diagonal)
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
    int64_args(row, col, offset)  # the parser's ints: 2**64 is its ValueError, not NumPy's size error
    return _tri_indices(row, col, offset, True, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    int64_args(row, col, offset)
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
    _square("linalg.det", A)  # ATen's order: squareCheckInputs, then checkFloatingOrComplex
    _float_input("linalg.det", A)
    data = A._data
    # LU on the host (LAPACK's sign for det 0); the batch counted, as -1 is no size for 0 by 0 matrices
    mats = host(data).reshape((math.prod(data.shape[:-2]),) + data.shape[-2:])
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


def slogdet(A, name="linalg.slogdet"):
    _square(name, A)  # ATen's order: squareCheckInputs, then checkFloatingOrComplex
    _float_input(name, A)
    sign, logabs = np.linalg.slogdet(A._data)
    s = wrap(_asarray(sign, A.dtype.np), A.dtype)
    la = wrap(_asarray(logabs, A.dtype.np), A.dtype)
    record_multi(LinalgSlogdetBackward0, (A,), [s, la])
    return SlogdetResult((s, la))


def logdet(input):
    sign, logabs = slogdet(input, "logdet")
    return CW.where(sign == -1.0, float("nan"), logabs)


class LinalgInvExBackward0(Function):
    __slots__ = ()
    replay = staticmethod(lambda xs, kw, outs: [np.linalg.inv(xs[0])] + [np.zeros(o) for o in outs[1:]])
    explain = "-inverse({a}).mT @ grad @ inverse({a}).mT"
    explain_factor = False
    save_output = True

    def backward(self, g):
        (inverse,) = self.saved[-1:]
        return (-matmul(_mT(inverse), matmul(g, _mT(inverse))),)


def inv_checked(A, name):
    _square("linalg.inv", A)  # inv_ex's too: ATen's linalg_inv_ex checks its input as linalg.inv, the shape
    _float_input("linalg.inv", A)  # first
    k, prefix = _check_singular(A, name)
    if k:
        raise _linalg_error(f"{name}: {prefix}The diagonal element {k} is zero, the inversion could not be "
                            "completed because the input matrix is singular.")
    r = np.linalg.inv(A._data)
    return record(LinalgInvExBackward0, (A,), wrap(_asarray(r, A.dtype.np), A.dtype))


def inv(A):
    return inv_checked(A, "linalg.inv")


def inverse(input):
    return inv_checked(input, "linalg.inv")


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
                gA = -matmul(gB, _mT(X)) if nf[0][0] is not None else None
        else:
            gB = _mT(solve(A, _mT(g)))
            gA = -matmul(_mT(X), gB) if nf[0][0] is not None else None
        gA = sum_to(gA, A.shape) if gA is not None else None
        gB = sum_to(gB, B.shape) if nf[1][0] is not None else None
        return gA, gB


def solve_checks(A, B, left):
    """linalg.solve's (and solve_ex's) argument errors; whether B is a vector (or a batch of them)."""
    _float_input("linalg.solve", A)
    if A.dtype is not B.dtype:
        raise errors.runtime(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                             f"{c10(A.dtype)} and B of type {c10(B.dtype)} instead")
    _square("linalg.solve", A)
    a, b = A._data, B._data
    n = a.shape[-1]
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    bm = b[..., None] if vector else b
    rows = bm.shape[-2] if left else bm.shape[-1]
    if bm.ndim < 2 or rows != n:
        eq = "AX = B" if left else "XA = B"
        shp = "x".join(map(str, bm.shape[-2:])) if bm.ndim >= 2 else f"{bm.shape[0]}x1"
        raise errors.runtime(f"linalg.solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                             f"{shp})")
    if vector and not left:
        raise errors.runtime("linalg.solve: Vector broadcasting of the left hand side is not supported for left=False. "
                             "In this case linalg.solve is equivalent to B / A.squeeze(-1)")
    return vector


def solve(A, B, *, left=True):
    vector = solve_checks(A, B, left)
    a, b = A._data, B._data
    bm = b[..., None] if vector else b
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
        z = a if z is None else matmul(z, z)
        if bit == 1:
            result = z if result is None else matmul(result, z)
    return result


# ---------------------------------------------------------------------------- declarations

def _solve_np(a, b, kw):
    """linalg.solve's replay (left=False: X A = B)."""
    if not kw.get("left", True):
        return np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    return np.linalg.solve(a, b[..., None])[..., 0] if kw.get("vector") else np.linalg.solve(a, b)


_M2 = [((2, 2),), ((3, 3),)]
_MB = [((2, 2),), ((2, 3, 3),)]
IP = {"inplace": True}
# One declaration per op (registry.py): its names, in-place forms, nodes and gradient-check sample
OPS = [
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
    declare("tril", tril, TrilBackward0, sample=Sample([((3, 3),), ((2, 3),)]), **IP,
       cases={"tril": case(lambda torch, a: torch.tril(a, -1), V.M33)}),
    declare("triu", triu, TriuBackward0, sample=Sample([((3, 3),), ((2, 3),)], args=(1,)), **IP,
       cases={"triu": case(lambda torch, x0: torch.triu(x0), V.M33)}),
    declare("det", det, LinalgDetBackward0, linalg=True, sample=Sample(_MB, ("mat",)),
       cases={"det": case(lambda torch, x0: torch.det(x0), V.M33)}),
    declare("logdet", logdet, sample=Sample(_M2, ("spd",)),
       cases={"logdet": case(lambda torch, x0: torch.logdet(x0), V.M33)}),  # slogdet's nodes
    declare("slogdet", slogdet, LinalgSlogdetBackward0, linalg=True, sample=Sample(_M2, ("mat",)),
       cases={"slogdet": case(lambda torch, x0: torch.linalg.slogdet(x0), V.M33)}),
    declare("inverse", inverse, LinalgInvExBackward0, sample=Sample(_MB, ("mat",))),
    declare("matrix_power", matrix_power, linalg=True, sample=Sample(  # mm's and inverse's nodes
        _M2, ("mat",), call=lambda torch, x: (torch.matrix_power(x, 3), torch.matrix_power(x, -1))),
       cases={"matrix_power": case(lambda torch, a: torch.linalg.matrix_power(a, 3), V.M33),
              "matrix_power_neg": case(lambda torch, a: torch.linalg.matrix_power(a, -2), V.M33)}),
    declare("tril_indices", tril_indices, method=False, no_grad="an integer result"),
    declare("triu_indices", triu_indices, method=False, no_grad="an integer result"),
    # torch.linalg.X only
    declare("inv", inv, LinalgInvExBackward0, method=False, torch=False, linalg=True, sample=Sample(_MB, ("mat",)),
       cases={"inv": case(lambda torch, x0: torch.linalg.inv(x0), V.M33)}),
    declare("solve", solve, LinalgSolveExBackward0, method=False, torch=False, linalg=True,
       sample=Sample([((3, 3), (3,)), ((3, 3), (3, 2))], ("mat", "any")),
       cases={"solve_vec": case(lambda torch, x0, x1: torch.linalg.solve(x0, x1), V.M33, V.A[:3]),
              "solve_mat": case(lambda torch, x0, x1: torch.linalg.solve(x0, x1), V.M33, [[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]]),
              "solve_right": case(lambda torch, a, b: torch.linalg.solve(a, b, left=False), V.M33, V.M23)}),
    declare("linalg_diagonal", linalg_diagonal, DiagonalBackward0, method=False, torch=False, linalg="diagonal",
       sample=Sample([((2, 3),), ((2, 2, 2),)])),
    declare("LinAlgError", LinAlgError, method=False, torch=False, linalg=True, no_grad="an exception type"),
]


_TABLES = tables(OPS, lazy_inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only, torch.addmv_
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
