"""The singular value decomposition and what rides on it: torch.linalg.svd, torch.svd (Tensor.svd),
torch.linalg.svdvals, torch.linalg.pinv (torch.pinverse) and torch.linalg.matrix_rank.

The factorisation is LAPACK's gesdd, as torch calls it on the CPU, through NumPy (OpenBLAS's
reference LAPACK; torch links MKL's). The singular values agree; the signs of singular vectors
are LAPACK's choice and MKL's differs from the reference's on some shapes (docs/numerics.md,
"Singular value decomposition": the agreement measured). The backward is torch's svd_backward
(FunctionsManual.cpp), on Tensors, so it is differentiable again; pinv's is pinv_backward.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..autograd import SavedValue
from ..autograd_modes import grad_mode
from ..device import host, like
from ..function import Function, MultiOutputFunction, record, record_multi
from ..tensor import Tensor, wrap
from . import linalg_extra as LX
from . import shape as S
from .join_split import narrow
from .matmul import matmul
from .reduction import return_type
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare

SvdResult = return_type("linalg_svd", ("U", "S", "Vh"))
TorchSvdResult = return_type("svd", ("U", "S", "V"))


def _mT(t):
    return S.transpose(t, -2, -1)


def _float_input(name, A):
    if not A.dtype.is_floating_point:
        raise errors.runtime(f"{name}: Expected a floating point or complex tensor as input. Got {LX.c10(A.dtype)}")


def _np_svd(a, full_matrices, compute_uv, name="linalg.svd"):
    """gesdd on the host, batched; torch's shapes for empty matrices; its error on non-finite input."""
    h = host(a)
    m, n = h.shape[-2:]
    k = min(m, n)
    batch = h.shape[:-2]
    bad = None
    if not np.isfinite(h).all():
        if not batch:  # a batch gets NaN matrices where its input has a non-finite value, not an error
            raise LX.LinAlgError(f"{name}: The algorithm failed to converge because the input matrix contained "
                                 "non-finite values.")
        bad = ~np.isfinite(h).all(axis=(-2, -1))
        h = np.where(bad[..., None, None], 0, h)
    if h.size == 0:
        s = np.zeros(batch + (k,), h.dtype)
        if not compute_uv:
            return None, s, None
        ur, vr = (m, n) if full_matrices else (k, k)
        u = np.broadcast_to(np.eye(m, ur, dtype=h.dtype), batch + (m, ur)).copy()
        vh = np.broadcast_to(np.eye(vr, n, dtype=h.dtype), batch + (vr, n)).copy()
        return u, s, vh
    res = np.linalg.svd(h, full_matrices=full_matrices, compute_uv=compute_uv)
    res = list(res) if compute_uv else [None, res, None]
    if bad is not None:
        for x in res:
            if x is not None:
                x[bad] = np.nan
    return tuple(res)


class LinalgSvdBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = "U (grad_S and the gauge-fixed grad_U, grad_Vh terms) Vh: torch's svd_backward"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [r.reshape(o) for r, o in
                                                zip(np.linalg.svd(xs[0], full_matrices=kw["full"]), outs)]
                          if len(outs) == 3 else [np.linalg.svd(xs[0], compute_uv=False).reshape(outs[0])])

    def materialize(self, grads):
        return list(grads)  # torch's formula tells a missing gradient from a zero one

    def backward(self, grads):
        U, Sv, Vh = self.saved[-3:]
        gU, gS, gVh = (list(grads) + [None, None])[:3] if len(grads) == 3 else (None, grads[0], None)
        if self._kw["full"]:
            k = Sv.shape[-1]
            gU = narrow(gU, -1, 0, k) if gU is not None else None
            gVh = narrow(gVh, -2, 0, k) if gVh is not None else None
            U, Vh = narrow(U, -1, 0, k), narrow(Vh, -2, 0, k)
        return (svd_backward(gU, gS, gVh, U, Sv, Vh),)


def svd_backward(gU, gS, gVh, U, Sv, Vh):
    """torch's svd_backward (real case), op for op."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        return matmul(U, S.unsqueeze(gS, -1) * Vh) if m >= n else matmul(U * S.unsqueeze(gS, -2), Vh)
    UhgU = VhgV = None
    if gU is not None:
        t = matmul(_mT(U), gU)
        UhgU = t - _mT(t)
    if gVh is not None:
        t = matmul(Vh, _mT(gVh))
        VhgV = t - _mT(t)
    S2 = Sv * Sv
    d = S2.shape[-1]
    eye = wrap(like(S2._data, np.eye(d), S2.dtype.np), S2.dtype)
    E = S.unsqueeze(S2, -2) - S.unsqueeze(S2, -1) + eye  # torch fills the (zero) diagonal with 1
    if gU is not None and gVh is not None:
        gA = (UhgU * S.unsqueeze(Sv, -2) + S.unsqueeze(Sv, -1) * VhgV) / E
    elif gU is not None:
        gA = UhgU * (S.unsqueeze(Sv, -2) / E)
    else:
        gA = S.unsqueeze(Sv, -1) * (VhgV / E)
    if gS is not None:
        gA = gA + LX.diag_embed(gS)
    if m > n and gU is not None:
        gA = matmul(U, gA)
        gUSinv = gU / S.unsqueeze(Sv, -2)
        gA = gA + gUSinv - matmul(U, matmul(_mT(U), gUSinv))
        return matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = matmul(gA, Vh)
        SinvgVh = gVh / S.unsqueeze(Sv, -1)
        gA = gA + SinvgVh - matmul(matmul(SinvgVh, _mT(Vh)), Vh)
        return matmul(U, gA)
    return matmul(U, matmul(gA, Vh)) if m >= n else matmul(matmul(U, gA), Vh)


def _svd(A, full_matrices, name):
    _float_input(name, A)
    if A._data.ndim < 2:
        raise errors.runtime(f"{name}: The input tensor A must have at least 2 dimensions.")
    u, s, vh = _np_svd(A._data, full_matrices, True, name)
    dt = A.dtype.np
    outs = [wrap(like(A._data, np.ascontiguousarray(x), dt), A.dtype) for x in (u, s, vh)]
    record_multi(LinalgSvdBackward0, (A,), outs, {"full": full_matrices})
    node = outs[1].grad_fn
    if node is not None:  # the backward reads U, S and Vh (saved as outputs: freed after a backward)
        node._saved = tuple(SavedValue(o, True) for o in outs)
    return outs


def _check_driver(driver):
    if driver is not None:
        raise errors.runtime("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                             "cuSOLVER backend.")


def linalg_svd(A, full_matrices=True, *, driver=None):
    _check_driver(driver)
    return SvdResult(tuple(_svd(A, full_matrices, "linalg.svd")))


def svdvals(A, *, driver=None):
    _check_driver(driver)
    _float_input("linalg.svd", A)
    if A._data.ndim < 2:
        raise errors.runtime("linalg.svd: The input tensor A must have at least 2 dimensions.")
    if grad_mode.enabled and A.requires_grad:  # torch computes U and Vh for the backward then
        return _svd(A, False, "linalg.svd")[1]
    _, s, _ = _np_svd(A._data, False, False)
    return wrap(like(A._data, s, A.dtype.np), A.dtype)


def svd(input, some=True, compute_uv=True):
    if input._data.ndim < 2:
        raise errors.runtime(f"linalg.svd: input should have at least 2 dimensions, but has {input._data.ndim} "
                             "dimensions instead")
    if not compute_uv:
        s = svdvals(input)
        m, n = input._data.shape[-2:]
        batch = input._data.shape[:-2]
        z = [wrap(like(input._data, np.zeros(batch + (r, r)), input.dtype.np), input.dtype) for r in (m, n)]
        return TorchSvdResult((z[0], s, z[1]))
    U, Sv, Vh = _svd(input, not some, "linalg.svd")
    return TorchSvdResult((U, Sv, _mT(Vh)))


# ---------------------------------------------------------------------------- pinv, matrix_rank

def _tolerances(A, atol, rtol):
    """torch's get_atol_rtol: rtol defaults to eps * max(m, n) unless a positive atol is given. Returns the
    function that gives the cutoff max(atol, rtol * largest) from the largest singular (|eigen|) values."""
    def value(t):
        if t is None:
            return None
        return np.asarray(host(t._data) if isinstance(t, Tensor) else t, np.float64)
    at, rt = value(atol), value(rtol)
    m, n = A._data.shape[-2:]
    if rt is None:
        eps = float(np.finfo(A.dtype.np).eps)
        rt = np.asarray(eps * max(m, n)) if at is None or np.all(at <= 0) else np.asarray(0.0)
    at = np.asarray(0.0) if at is None else at
    return lambda largest: np.maximum(at[..., None], rt[..., None] * largest)


class LinalgPinvBackward0(Function):
    __slots__ = ()
    explain = "torch's pinv_backward (the pseudo-inverse's derivative through its products)"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.linalg.pinv(xs[0]).reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        A, P = self.saved[0], self.saved[-1]
        return (pinv_backward(g, P, A),)


def pinv_backward(grad, pinvA, A):
    m, n = A.shape[-2], A.shape[-1]
    pinvAh = _mT(pinvA)
    gradh = _mT(grad)
    if m <= n:
        K = matmul(gradh, pinvA)
        KpinvAh = matmul(K, pinvAh)
        return (-_mT(matmul(pinvA, K)) + KpinvAh - matmul(matmul(A, pinvA), KpinvAh)
                + matmul(matmul(pinvAh, pinvA), gradh - matmul(K, A)))
    K = matmul(pinvA, gradh)
    pinvAhK = matmul(pinvAh, K)
    return (-_mT(matmul(K, pinvA)) + matmul(matmul(gradh - matmul(A, K), pinvA), pinvAh) + pinvAhK
            - matmul(matmul(pinvAhK, pinvA), A))


def _pinv_check(A):
    if A._data.ndim < 2 or not A.dtype.is_floating_point or A.dtype not in (dtypes.float32, dtypes.float64):
        shape = ", ".join(map(str, A._data.shape))
        raise errors.runtime(f"linalg.pinv({LX.c10(A.dtype)}{{[{shape}]}}): expected a tensor with 2 or more "
                             "dimensions of float, double, cfloat or cdouble types")


def linalg_pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    _pinv_check(A)
    if rcond is not None:
        rtol = rcond
    cutoff = _tolerances(A, atol, rtol)
    a = host(A._data)
    m, n = a.shape[-2:]
    dt = A.dtype.np
    if a.size == 0:
        r = np.zeros(a.shape[:-2] + (n, m), dt)
    elif hermitian:
        w, v = np.linalg.eigh(a)
        wabs = np.abs(w)
        tol = cutoff(wabs.max(-1, keepdims=True))
        with np.errstate(divide="ignore"):
            winv = np.where(wabs > tol, 1 / w, 0).astype(dt)
        r = (v * winv[..., None, :]) @ np.swapaxes(v, -1, -2)
    else:
        u, s, vh = _np_svd(a, False, True, "linalg.svd")
        tol = cutoff(s[..., :1])
        with np.errstate(divide="ignore"):
            sinv = np.where(s > tol, 1 / s, 0).astype(dt)
        r = (np.swapaxes(vh, -1, -2) * sinv[..., None, :]) @ np.swapaxes(u, -1, -2)
    out = wrap(like(A._data, np.ascontiguousarray(r, dt), dt), A.dtype)
    return record(LinalgPinvBackward0, (A,), out)


def pinverse(input, rcond=1e-15):
    return linalg_pinv(input, rtol=rcond)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    if A._data.ndim < 2:
        raise errors.runtime("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if A.dtype not in (dtypes.float32, dtypes.float64):
        raise errors.runtime("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    cutoff = _tolerances(A, atol, rtol)
    a = host(A._data)
    if hermitian:
        s = np.abs(np.linalg.eigvalsh(a)) if a.size else np.zeros(a.shape[:-1], a.dtype)
        smax = s.max(-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), a.dtype)
    else:
        _, s, _ = _np_svd(a, False, False, "linalg.svd")
        smax = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), a.dtype)
    r = (s > cutoff(smax)).sum(-1).astype(np.int64)
    return wrap(like(A._data, np.asarray(r), np.int64), dtypes.int64)


# ---------------------------------------------------------------------------- declarations

def _gauge_free(torch, x):
    """What the checks take of an SVD: the singular values and products whose value does not depend on the
    signs LAPACK picks for the singular vectors (torch's and NumPy's LAPACK pick differently)."""
    U, Sv, Vh = torch.linalg.svd(x, full_matrices=False)
    return Sv, U @ Vh, U * U, Vh * Vh


_RECT = [((3, 2),), ((2, 3),), ((3, 3),), ((2, 4, 3),)]
OPS = [
    declare("linalg_svd", linalg_svd, LinalgSvdBackward0, method=False, torch=False, linalg="svd",
            sample=Sample(_RECT, ("any",), call=_gauge_free),
            cases={"linalg_svd_values": case(lambda torch, a: torch.linalg.svd(a).S, V.M23),
                   "linalg_svd_u": case(lambda torch, a: torch.linalg.svd(a, full_matrices=False).U ** 2, V.M23),
                   "linalg_svd_vh": case(lambda torch, a: torch.linalg.svd(a.t(), full_matrices=False).Vh ** 2, V.M23),
                   "linalg_svd_full": case(lambda torch, a: (lambda r: r.U[:, :2] ** 2 + r.S)(torch.linalg.svd(a.t())),
                                           V.M23)}),
    declare("svd", svd, LinalgSvdBackward0, sample=Sample(
        _RECT, ("any",), call=lambda torch, x: (lambda r: (r.S, r.U @ r.V.mT, r.V * r.V))(torch.svd(x))),
        cases={"svd": case(lambda torch, a: (lambda r: (r.S, r.U @ r.V.mT))(torch.svd(a)), V.M33)}),
    declare("svdvals", svdvals, LinalgSvdBackward0, method=False, torch=False, linalg=True,
            sample=Sample(_RECT, ("any",)),
            cases={"svdvals": case(lambda torch, a: torch.linalg.svdvals(a), V.M23)}),
    declare("linalg_pinv", linalg_pinv, LinalgPinvBackward0, method=False, torch=False, linalg="pinv",
            sample=Sample(_RECT, ("any",)),
            cases={"linalg_pinv": case(lambda torch, a: torch.linalg.pinv(a), V.M23)}),
    declare("pinverse", pinverse, LinalgPinvBackward0, sample=Sample([((3, 2),), ((2, 3),)], ("any",)),
            cases={"pinverse": case(lambda torch, a: torch.pinverse(a), V.M33)}),
    declare("matrix_rank", matrix_rank, method=False, torch=False, linalg=True, no_grad="an integer result"),
]


_TABLES = tables(OPS, lazy_inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
