"""Eigendecompositions: torch.linalg.eigh and torch.linalg.eigvalsh (symmetric matrices), and
torch.linalg.eig / eigvals, whose complex results gradcli cannot hold (a rendered error says so).

The factorisation is LAPACK's syevd, as torch calls it on the CPU, through NumPy (OpenBLAS's
reference LAPACK; torch links MKL's). The eigenvalues agree to a few ulps; the signs of the
eigenvectors are LAPACK's choice and MKL's differs from the reference's on most matrices larger than
2x2 (docs/numerics.md, "Symmetric eigendecomposition"). The backward is torch's linalg_eig_backward
(FunctionsManual.cpp, the hermitian branch), on Tensors, so it differentiates again.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..autograd import SavedValue
from ..autograd_modes import grad_mode
from ..device import host, like
from ..function import MultiOutputFunction, record_multi
from ..tensor import wrap
from . import linalg_extra as LX
from . import shape as S
from .matmul import matmul
from .reduction import return_type
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare
from .special_common import not_implemented

EighResult = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))


def _mT(t):
    return S.transpose(t, -2, -1)


def _checks(A, UPLO, name="linalg.eigh"):
    """ATen's order: squareCheckInputs, checkUplo, then the kernel's dtype dispatch."""
    if A._data.ndim < 2:
        raise errors.runtime(f"{name}: The input tensor A must have at least 2 dimensions.")
    n, m = A._data.shape[-2:]
    if n != m:
        raise errors.runtime(f"{name}: A must be batches of square matrices, but they are {n} by {m} matrices")
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise errors.runtime(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if A.dtype not in (dtypes.float32, dtypes.float64):
        raise not_implemented("linalg_eigh_cpu", A.dtype)
    return UPLO.upper()


def eigh_arrays(a, uplo, compute_v=True):
    """(eigenvalues, eigenvectors or None) of a stack of symmetric matrices on the host, only the `uplo`
    triangle read (syevd's). A matrix with a non-finite value in that triangle gives NaNs, as torch's."""
    n = a.shape[-1]
    tri = np.tril(np.ones((n, n), bool)) if uplo == "L" else np.triu(np.ones((n, n), bool))
    bad = ~np.where(tri, np.isfinite(a), True).all(axis=(-2, -1))
    if bad.any():
        a = np.where(bad[..., None, None], 0, a)
    if a.size == 0:
        w = np.zeros(a.shape[:-1], a.dtype)
        v = np.zeros(a.shape, a.dtype) if compute_v else None
    elif compute_v:
        w, v = np.linalg.eigh(a, UPLO=uplo)
    else:
        w, v = np.linalg.eigvalsh(a, UPLO=uplo), None
    if bad.any():
        w[bad] = np.nan
        if v is not None:
            v[bad] = np.nan
    return w, v


def eigh_backward(gL, gV, L, V):
    """torch's linalg_eig_backward with is_hermitian (real case), op for op."""
    if gL is None and gV is None:
        return None
    if gV is None:  # linalg.eigvalsh's shortcut
        return matmul(V * S.unsqueeze(gL, -2), _mT(V))
    VhgV = matmul(_mT(V), gV)
    VhgV = 0.5 * (VhgV - _mT(VhgV))  # onto the skew-symmetric matrices: the diagonal is exactly zero
    d = L.shape[-1]
    eye = wrap(like(L._data, np.eye(d), L.dtype.np), L.dtype)
    Econj = S.unsqueeze(L, -2) - S.unsqueeze(L, -1) + eye  # torch fills the (zero) diagonal with 1
    gA = VhgV / Econj
    if gL is not None:  # torch copies gL into the zero diagonal
        gA = gA + LX.diag_embed(gL)
    return matmul(V, matmul(gA, _mT(V)))


class LinalgEighBackward0(MultiOutputFunction):
    __slots__ = ()
    explain = "V (diag(grad_L) + skew(V^H grad_V) / (L_j - L_i)) V^H: torch's linalg_eig_backward"
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [r.reshape(o) for r, o in zip(eigh_arrays(xs[0], kw["uplo"]), outs)]
                          if len(outs) == 2 else [eigh_arrays(xs[0], kw["uplo"])[0].reshape(outs[0])])

    def materialize(self, grads):
        return list(grads)  # torch's formula tells a missing gradient from a zero one

    def backward(self, grads):
        L, Vecs = self.saved[-2:]
        gL, gV = (list(grads) + [None])[:2]
        return (eigh_backward(gL, gV, L, Vecs),)


def _eigh(A, uplo):
    w, v = eigh_arrays(host(A._data), uplo)
    dt = A.dtype.np
    outs = [wrap(like(A._data, np.ascontiguousarray(x, dt), dt), A.dtype) for x in (w, v)]
    record_multi(LinalgEighBackward0, (A,), outs, {"uplo": uplo})
    node = outs[0].grad_fn
    if node is not None:  # the backward reads L and V (saved as outputs: freed after a backward)
        node._saved = tuple(SavedValue(o, True) for o in outs)
    return outs


def linalg_eigh(A, UPLO="L"):
    return EighResult(tuple(_eigh(A, _checks(A, UPLO))))


def eigvalsh(A, UPLO="L"):
    uplo = _checks(A, UPLO)
    if grad_mode.enabled and A.requires_grad:  # torch computes the eigenvectors for the backward then
        return _eigh(A, uplo)[0]
    w, _ = eigh_arrays(host(A._data), uplo, compute_v=False)
    return wrap(like(A._data, np.ascontiguousarray(w), A.dtype.np), A.dtype)


def _no_complex(name):
    def eig(A):
        if A._data.ndim < 2:
            raise errors.runtime("linalg.eig: The input tensor A must have at least 2 dimensions.")
        raise errors.runtime(f"torch.linalg.{name} returns complex tensors, and gradcli has no complex dtype: for a "
                             "symmetric matrix, torch.linalg.eigh or torch.linalg.eigvalsh give the same real "
                             "eigenvalues (in ascending order)")
    eig.__name__ = name
    return eig


# ---------------------------------------------------------------------------- declarations

def _gauge_free(torch, a):
    """What the checks take of an eigendecomposition: the eigenvalues and products whose value does not
    depend on the signs LAPACK picks for the eigenvectors (torch's and NumPy's LAPACK pick differently)."""
    L, Q = torch.linalg.eigh(a + a.mT)
    return L, Q * Q, (Q * L.unsqueeze(-2)) @ Q.mT


_SQUARE = [((2, 2),), ((3, 3),), ((2, 4, 4),)]
OPS = [
    declare("linalg_eigh", linalg_eigh, LinalgEighBackward0, method=False, torch=False, linalg="eigh",
            sample=Sample(_SQUARE, ("any",), call=_gauge_free),
            cases={"linalg_eigh": case(lambda torch, a: _gauge_free(torch, a), V.M33),
                   "linalg_eigh_upper": case(lambda torch, a: (lambda r: (r.eigenvalues, r.eigenvectors ** 2))(
                       torch.linalg.eigh(a + a.mT, UPLO="U")), V.M33)}),
    declare("eigvalsh", eigvalsh, LinalgEighBackward0, method=False, torch=False, linalg=True,
            sample=Sample(_SQUARE, ("any",), call=lambda torch, a: torch.linalg.eigvalsh(a + a.mT)),
            # symmetric inputs: of a non-symmetric one only the triangle read moves the result, while torch's
            # backward (and so gradcli's) gives the symmetric gradient, which finite differences do not see
            cases={"eigvalsh": case(lambda torch, a: torch.linalg.eigvalsh(a + a.mT, "U"), V.M33)}),
    declare("linalg_eig", _no_complex("eig"), method=False, torch=False, linalg="eig",
            no_grad="complex results, which gradcli cannot hold: an error"),
    declare("eigvals", _no_complex("eigvals"), method=False, torch=False, linalg=True,
            no_grad="complex results, which gradcli cannot hold: an error"),
]


_TABLES = tables(OPS, lazy_inplace)
METHODS = _TABLES["METHODS"]   # Tensor methods (and torch.<name>)
INPLACE = _TABLES["INPLACE"]   # x.name_()
TORCH = _TABLES["TORCH"]       # torch.<name> only
LINALG = _TABLES["LINALG"]     # torch.linalg.<name>
