"""Matrix products beyond ops/linalg.py, a family next to ops/linalg_extra.py (whose helpers it uses):
baddbmm, addbmm, addmv, addr, torch.linalg.cross / cross, kron, vdot, vecdot, multi_dot and
tensordot, with their declarations (OPS) and tables.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..device import asarray as _asarray
from ..device import xp_of
from ..function import Function, record
from ..limits import check_broadcast, check_numel
from ..tensor import Tensor, wrap, wrap_dim
from . import elementwise_common as EC
from . import linalg as L
from . import reduction as R
from . import replays
from . import shape as S
from .linalg_extra import IP
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare
from .shape import sum_to
from .special_common import warn_once

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


def _baddbmm_target(input, batch1, batch2):
    """at::baddbmm expands self to {batch1.size(0), batch1.size(1), batch2.size(2)} before bmm's checks:
    those sizes' dim errors, then expand's, come first."""
    target = []
    for t, d in ((batch1, 0), (batch1, 1), (batch2, 2)):
        nd = t._data.ndim
        if nd == 0:
            raise errors.index(f"Dimension specified as {d} but tensor has no dimensions")
        if d >= nd:
            raise errors.index(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
        target.append(t._data.shape[d])
    S.expand(input.detach(), target)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _baddbmm_target(input, batch1, batch2)
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
    save_when = ((), (2,), (1,))  # derivatives.yaml: self is not saved, mat for vec's gradient, vec for mat's

    def backward(self, g):
        x, mat, vec = self.saved
        beta, alpha = self._kw["beta"], self._kw["alpha"]
        nf = self.next_functions
        gx = EC.shaped(g * beta if beta != 1 else g, x) if nf[0][0] is not None else None
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
    check_broadcast(a.shape, b.shape)
    try:
        r = np.cross(a.astype(dt.np, copy=False), b.astype(dt.np, copy=False), axis=d)
    except ValueError:
        raise EC.broadcast_error(input, other) from None
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
    prod = S.unsafe_view(a, tuple(ia)) * S.unsafe_view(b, tuple(ib))
    return S.unsafe_view(prod, tuple(x * y for x, y in zip(sa, sb)))


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
    if a.dtype is not b.dtype:  # ATen's tensordot checks this itself, before the sizes
        raise errors.runtime("both inputs should have same dtype")
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


# ---------------------------------------------------------------------------- declarations

OPS = [
    declare("baddbmm", baddbmm, BaddbmmBackward0, sample=Sample([((2, 2, 2), (2, 2, 3), (2, 3, 2))]), **IP,
       cases={"baddbmm": case(lambda torch, x, a, b: torch.baddbmm(x, a, b, beta=0.5, alpha=2.0), [[[0.5, 1.0], [2.0, -1.0]]] * 2, [[[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]]] * 2, [[[1.0, 0.5], [0.0, -1.0], [2.0, 0.25]]] * 2)}),
    declare("addbmm", addbmm, AddbmmBackward0, sample=Sample([((2, 2), (2, 2, 3), (2, 3, 2))]), **IP,
       cases={"addbmm": case(lambda torch, x0, x1, x2: torch.addbmm(x0, x1, x2), [[0.5, 1.0], [2.0, -1.0]], [[[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]]] * 2, [[[1.0, 0.5], [0.0, -1.0], [2.0, 0.25]]] * 2)}),
    declare("addmv", addmv, AddmvBackward0, sample=Sample([((2,), (2, 3), (3,))]), torch_inplace=True, **IP,
       cases={"addmv": case(lambda torch, x, m, v: torch.addmv(x, m, v, beta=0.5, alpha=2.0), V.A[:2], V.M23, V.B[:3])}),
    declare("addr", addr, AddrBackward0, sample=Sample([((3, 2), (3,), (2,))]), **IP,
       cases={"addr": case(lambda torch, x0, x1, x2: torch.addr(x0, x1, x2), V.M23, V.A[:2], V.B[:3])}),
    declare("cross", cross, LinalgCrossBackward0, sample=Sample([((3,), (3,)), ((2, 3), (2, 3))], kwargs={"dim": -1})),
    declare("kron", kron, sample=Sample([((2, 2), (2, 1)), ((3,), (2,))]),
       cases={"kron": case(lambda torch, x0, x1: torch.kron(x0, x1), V.M23, [[1.0, -0.5], [2.0, 0.25]])}),  # mul's and view's nodes
    declare("vdot", vdot, VdotBackward0, sample=Sample([((3,), (3,))]),
       cases={"vdot": case(lambda torch, x0, x1: torch.vdot(x0, x1), V.A, V.B)}),
    declare("tensordot", tensordot, method=False, sample=Sample([((2, 3), (3, 3))], kwargs={"dims": 1}),
       cases={"tensordot": case(lambda torch, a, b: torch.tensordot(a, b, dims=1), V.M23, V.M33)}),
    declare("linalg_cross", linalg_cross, LinalgCrossBackward0, method=False, torch=False, linalg="cross",
       sample=Sample([((3,), (3,)), ((2, 3), (2, 3))]),
       cases={"cross": case(lambda torch, x0, x1: torch.linalg.cross(x0, x1), V.M33, [[1.0, 0.5, -0.5], [0.25, 2.0, 1.0], [0.0, -1.0, 1.5]])}),
    declare("multi_dot", multi_dot, method=False, torch=False, linalg=True, sample=Sample(
        [((2, 3), (3, 3))], call=lambda torch, x, y: torch.linalg.multi_dot([x, y, y])),
       cases={"multi_dot": case(lambda torch, a, b: torch.linalg.multi_dot([a, b, b]), V.M23, V.M33)}),
    declare("vecdot", vecdot, method=False, torch=False, linalg=True, sample=Sample([((2, 3), (2, 3))]),
       cases={"vecdot": case(lambda torch, x0, x1: torch.linalg.vecdot(x0, x1), V.M23, V.M23)}),
]

_TABLES = tables(OPS, lazy_inplace)  # its tables (registry.tables): Tensor methods, x.name_(), torch.<name> only, ...
METHODS, INPLACE, TORCH, LINALG = (_TABLES[k] for k in ("METHODS", "INPLACE", "TORCH", "LINALG"))
