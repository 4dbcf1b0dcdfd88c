"""The QR decomposition: torch.linalg.qr (modes reduced, complete, r), torch.qr and Tensor.qr.

The factorisation is LAPACK's geqrf + orgqr (Householder) through NumPy, as torch calls them on the
CPU (MKL there, OpenBLAS's LAPACK here: the same sign convention, the last bits may differ,
docs/numerics.md). The backward is torch's linalg_qr_backward (FunctionsManual.cpp), on Tensors, so it
differentiates again; mode='r', and mode='complete' of a matrix with more rows than columns, raise
torch's errors when a gradient reaches them.
"""
from __future__ import annotations

import numpy as np

from .. import errors
from ..argcheck import typename
from ..autograd import SavedValue
from ..device import host, like
from ..function import MultiOutputFunction, record_multi
from ..tensor import wrap
from . import linalg_extra as LX
from . import shape as S
from .join_split import cat, narrow
from .linalg_factor import solve_triangular
from .matmul import matmul
from .reduction import return_type
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare
from .special_common import not_implemented, warn_once

QrResult = return_type("linalg_qr", ("Q", "R"))
TorchQrResult = return_type("qr", ("Q", "R"))
_MODES = ("reduced", "complete", "r")
_QR_WARNING = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
    "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\n"
    "should be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete') (Triggered internally "
    "at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2505.)")


def _mT(t):
    return S.transpose(t, -2, -1)


def qr_arrays(a, mode):
    """(Q, R) of a stack of matrices on the host (Q None for mode 'r')."""
    if mode == "r":
        return None, np.linalg.qr(a, mode="r")
    q, r = np.linalg.qr(a, mode=mode)
    return q, r


def qr_backward(gQ, gR, Q, R, mode):
    """torch's linalg_qr_backward (real case), op for op."""
    if mode == "r":
        raise errors.runtime("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                             "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode != "reduced" and m > n:
        raise errors.runtime("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if gQ is None and gR is None:
        return None
    if gQ is not None:
        gA = matmul(gR, _mT(R)) - matmul(_mT(Q), gQ) if gR is not None else -matmul(_mT(Q), gQ)
    else:
        gA = matmul(gR, _mT(R))
    if m >= n:
        sym = LX.triu(gA)
        sym = sym + _mT(sym)
        k = sym.shape[-1]
        half = np.ones((k, k)) - 0.5 * np.eye(k)  # torch halves the diagonal in place: exact, signs of zero kept
        sym = sym * wrap(like(sym._data, half, sym.dtype.np), sym.dtype)
        gA = matmul(Q, sym)
        if gQ is not None:
            gA = gA + gQ
        return solve_triangular(_mT(R), gA, upper=False, left=False)
    X = -gA
    skew = LX.tril(X - _mT(X))
    gA = matmul(Q, skew)
    gA = solve_triangular(_mT(narrow(R, -1, 0, m)), gA, upper=False, left=False)
    shape = tuple(R.shape[:-1]) + (n - m,)
    gA = cat([gA, wrap(like(gA._data, np.zeros(shape), gA.dtype.np), gA.dtype)], -1)
    if gR is not None:
        gA = gA + matmul(Q, gR)
    return gA


class LinalgQrBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = "Q and R's gradients pulled back through A = QR: torch's linalg_qr_backward"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [
        np.asarray(x).reshape(o) for x, o in zip(
            qr_arrays(xs[0], kw["mode"]) if kw["mode"] != "r" else (np.zeros(0), qr_arrays(xs[0], "r")[1]), outs)])

    def materialize(self, grads):
        return list(grads)  # torch's formula tells a missing gradient from a zero one

    def backward(self, grads):
        gQ, gR = (list(grads) + [None])[:2]
        Q, R = self.saved[-2:]
        return (qr_backward(gQ, gR, Q, R, self._kw["mode"]),)


def _qr(A, mode):
    if not isinstance(mode, str):
        raise errors.type_error(f"linalg_qr(): argument 'mode' must be str, not {typename(mode)}")
    if A._data.ndim < 2:
        raise errors.runtime("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if not A.dtype.is_floating_point:
        raise errors.runtime(f"linalg.qr: Expected a floating point or complex tensor as input. Got {LX.c10(A.dtype)}")
    if mode not in _MODES:
        raise errors.runtime(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                             "or 'complete'")
    if A.dtype.np not in (np.float32, np.float64):
        raise not_implemented("geqrf_cpu", A.dtype)
    q, r = qr_arrays(host(A._data), mode)
    dt = A.dtype.np
    if q is None:
        q = np.zeros(0, dt)
    outs = [wrap(like(A._data, np.ascontiguousarray(x, dt), dt), A.dtype) for x in (q, r)]
    record_multi(LinalgQrBackward0, (A,), outs, {"mode": mode})
    node = outs[1].grad_fn
    if node is not None:  # the backward reads Q and R (saved as outputs: freed after a backward)
        node._saved = tuple(SavedValue(o, True) for o in outs)
    return outs


def linalg_qr(A, mode="reduced"):
    return QrResult(tuple(_qr(A, mode)))


def qr(input, some=True):
    warn_once(_QR_WARNING)
    return TorchQrResult(tuple(_qr(input, "reduced" if some else "complete")))


# ---------------------------------------------------------------------------- declarations

_QR_SHAPES = [((3, 2),), ((2, 3),), ((3, 3),), ((2, 3, 2),)]
OPS = [
    declare("linalg_qr", linalg_qr, LinalgQrBackward0, method=False, torch=False, linalg="qr",
            sample=Sample(_QR_SHAPES, ("any",), call=lambda torch, a: tuple(torch.linalg.qr(a))),
            cases={"linalg_qr_r": case(lambda torch, a: torch.linalg.qr(a.mT).R, V.M23),
                   "linalg_qr_q": case(lambda torch, a: torch.linalg.qr(a).Q, V.M23),
                   "linalg_qr_complete": case(lambda torch, a: tuple(torch.linalg.qr(a, mode="complete")), V.M23)}),
    declare("qr", qr, LinalgQrBackward0, sample=Sample(
        [((3, 2),), ((2, 3),)], ("any",), call=lambda torch, a: tuple(torch.qr(a))),
        cases={"qr": case(lambda torch, a: torch.qr(a).Q, V.M33)}),
]


_TABLES = tables(OPS, lazy_inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
