"""Matrix products: mm, mv, dot, bmm, addmm (and F.linear's inline path, linear_2d), on NumPy's or
the MKL backend's kernels as torch's CPU build computes them; matmul's dispatch by rank, outer and
inner are matmul.py's."""
from __future__ import annotations

import sys

import numpy as np

from ... import backend
from .. import dtypes, errors, numerics, numpy_blas
from ..autograd_modes import grad_mode
from ..autograd import ZERO_NRS, SavedValue, forward_level, node_observer, saved_value, stamp
from ..saved_hooks import PackedValue
from ..function import Function, all_inference, attach, record
from . import replays, words
from .registry import Sample, V, case, op
from ..limits import LIMITS, check_broadcast, check_numel
from ..tensor import check_view_grad_fn, wrap
from ..views import view_of
from .shape import TBackward0, sum_to, t, transpose, unsqueeze
from ..device import asarray as _asarray
from ..device import check_args


def c10_low(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}[dt.name]


def _same_dtype(a, b):
    if a.dtype is not b.dtype:
        raise errors.runtime(f"expected m1 and m2 to have the same dtype, but got: {c10_low(a.dtype)} != "
                             f"{c10_low(b.dtype)}", hint="dtype_mismatch")


def _matprod(a, b):
    """a @ b. With a contraction of length 1 it is a plain product. ATen keeps its -0.0 only in a
    2-D mm (also a folded N-D @ 2-D) of more than one row and column (its outer-product path); mv,
    dot, bmm and mm with one row or column add the single product to +0.0, as BLAS does."""
    if LIMITS["max_elements"] is not None:
        if a.ndim == 2 and b.ndim == 2:
            check_numel(a.shape[0] * b.shape[1])  # --max-elements: n x m
        else:
            sa = a.shape if a.ndim > 1 else (1,) + a.shape
            sb = b.shape if b.ndim > 1 else b.shape + (1,)
            if sa and sb:
                check_broadcast(sa[:-2] + (sa[-2], 1), sb[:-2] + (1, sb[-1]))  # --max-elements: batch x n x m
    slot = _BLAS_SLOTS.get((a.ndim, b.ndim))
    if slot is not None and slot[0] is not None:
        r = slot[0](a, b)  # the optional MKL backend: torch's own BLAS calls (gemm, batched gemm, gemv, dot)
        if r is not None:
            return r
    if a.ndim == 3 and b.ndim == 3 and a.shape[2] * a.shape[1] * b.shape[2] < 400 and a.size and b.size \
            and a.dtype == b.dtype and a.dtype in _SMALL_BMM_TYPES and type(a) is np.ndarray and type(b) is np.ndarray:
        return small_bmm(a, b)  # torch's bmm below 400 multiply-adds a matrix: ATen's own loop, not BLAS
    if a.shape[-1] == 1 and a.ndim >= 1 and b.ndim >= 1:
        if b.ndim == 1:
            r = a[..., 0] * b[0]
        elif a.ndim == 1:
            r = (a[0] * b[..., 0, :])
        else:
            r = a * b[..., :1, :] if b.shape[-2] == 1 else a @ b
        outer = b.ndim == 2 and a.ndim >= 2 and b.shape[-1] > 1 and a.size > a.shape[-1]
        if not outer and r.dtype.kind == "f":
            r = r + r.dtype.type(0)  # -0.0 + 0.0 is +0.0
        return r
    if a.ndim == 2 and b.ndim == 2:
        mm = _BLAS_MM[0] if _BLAS_MM else numpy_blas.mm_kernel()
        if mm is not None and (r := mm(a, b)) is not None:  # NumPy's @ in one C call: its bits
            return r
    return a @ b


_SMALL_BMM_TYPES = (np.dtype(np.float32), np.dtype(np.float64))


def small_bmm(a, b):
    """baddbmm_cpu_kernel<scalar_t, is_bmm=true>, which bmm_out_or_baddbmm_ runs when a matrix product
    has fewer than 400 multiply-adds: acc = 0; acc += a[i,k] * b[k,j] in order, in the dtype (no FMA:
    LinearAlgebra.cpp is built for the baseline ISA)."""
    acc = np.zeros(a.shape[:2] + b.shape[2:], a.dtype)
    for kk in range(a.shape[2]):
        acc += a[:, :, kk, None] * b[:, None, kk, :]
    return acc


_GEMM = backend.slot("gemm")
_BMM = backend.slot("bmm")
_BLAS_SLOTS = {(2, 2): _GEMM, (3, 3): _BMM, (2, 1): backend.slot("mv"), (1, 1): backend.slot("dot")}
_EVERY_WIDTH = sys.maxsize
_BLAS_MM = numpy_blas.MM_KERNEL  # [csrc/blas.c's mm or None] once decided: NumPy's @ of two float matrices, its bits


def numpy_columns(kernel):
    """The gemm slot's kernel (_GEMM[0]) leaves every 2-D product of fewer columns than this to NumPy's
    @ (it answers None for them, and _matprod/_addmm_arrays then run NumPy's code): all of them without
    a kernel, none before the slot is decided or with MKL's, the AVX2 emulation's narrow products
    (engine/gemm_avx2.py: its gemm.numpy_below). The fast paths below use it to skip the slot."""
    return _EVERY_WIDTH if kernel is None else getattr(kernel, "numpy_below", 0)


def _refused(a, b):
    """Whether the gemm slot's kernel (set, not MKL's) is known to leave a @ b to NumPy by the operands'
    shapes and layouts alone (engine/gemm_avx2.py: gemm.refuses): the fast paths below then skip the slot."""
    kernel = _GEMM[0]
    if kernel is not _REFUSES[0]:
        _see(kernel)
    refuses = _REFUSES[1]
    return refuses is not None and refuses(a, b)


def _never(a, b):
    return False


def _see(kernel):
    _REFUSES[:] = kernel, getattr(kernel, "refuses", None), getattr(kernel, "direct", None)


# the gemm slot's kernel last seen, its refuses and its direct (engine/gemm_avx2.py: gemm.direct, a Linear
# layer's product in one call or None), looked up once per kernel
_REFUSES = [None, None, None]


def _broadcasts_to(shape, target):
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _addmm_arrays(bias, a, b, beta=1, alpha=1):
    """addmm's array: bias + a @ b (scaled), or with MKL the gemm that adds the bias itself
    (beta = 1), as torch's addmm does; its bits differ from adding afterwards."""
    kernel = _GEMM[0]
    if kernel is not None and a.ndim == 2 and b.ndim == 2 and bias.ndim <= 2 \
            and (bias.shape == b.shape[1:] or _broadcasts_to(bias.shape, (a.shape[0], b.shape[1]))):
        if LIMITS["max_elements"] is not None:
            check_numel(a.shape[0] * b.shape[1])  # --max-elements: n x m, as _matprod
        r = kernel(a, b, bias, beta, alpha)
        if r is not None:
            return r
    prod = _matprod(a, b)
    if beta == 1 and alpha == 1 and type(prod) is np.ndarray and bias.dtype == prod.dtype \
            and (bias.shape == prod.shape or bias.shape == prod.shape[1:]):
        return np.add(prod, bias, out=prod)  # input + prod, added into the fresh product (same bits)
    return (bias if beta == 1 else beta * bias) + (prod if alpha == 1 else alpha * prod)


class MmBackward0(Function):
    __slots__ = ()
    saved_order = (1, 0)  # torch's node saves (and unpacks) its second input first: saved tensors' hooks see it
    save_inputs = True
    save_when = ((1,), (0,))
    explain = staticmethod(words.mm)
    expression = "{0} @ {1}"
    replay = staticmethod(replays.matmul)

    @staticmethod
    def forward(a, b):
        return a @ b

    def backward(self, g):
        a, b = self.saved
        c1, c2 = (self._kw or _NO_KW).get("col_major", _ROW_MAJOR)
        ga = _mat1_grad(g, b, c1) if self.next_functions[0][0] is not None else None
        gb = _mat2_grad(g, a, c2) if self.next_functions[1][0] is not None else None
        return ga, gb


_NO_KW = {}
_ROW_MAJOR = (False, False)


def _layout_kw(mat1, mat2, kw=None):
    """The node's kw plus which operands were column-major at forward (torch saves their strides),
    or kw itself when neither was. Column-major is torch's test in mm_mat1_backward/mm_mat2_backward:
    strides[0] == 1 and strides[1] == sizes[0] (a transposed matrix, such as Linear's weight.t())."""
    a, b = mat1._data, mat2._data
    st, i = a.strides, a.itemsize
    c1 = st[0] == i and st[1] == a.shape[0] * i
    st, i = b.strides, b.itemsize
    c2 = st[0] == i and st[1] == b.shape[0] * i
    if not (c1 or c2):
        return kw
    if not kw:
        return _LAYOUT_KWS[c1, c2]  # shared: a node's kw is never changed
    kw = dict(kw)
    kw["col_major"] = (c1, c2)
    return kw


_new_node = object.__new__
_ZERO_NRS1, _ZERO_NRS3 = ZERO_NRS[(0,)], ZERO_NRS[(0, 0, 0)]
_LAYOUT_KWS = {(c1, c2): {"col_major": (c1, c2)} for c1 in (False, True) for c2 in (False, True)}


def _mat1_grad(g, mat2, col_major):
    """torch's mm_mat1_backward: a column-major mat1 gets its gradient column-major, mm(mat2, g.t()).t()."""
    return t(mm(mat2, t(g))) if col_major else mm(g, t(mat2))


def _mat2_grad(g, mat1, col_major):
    """torch's mm_mat2_backward: a column-major mat2 (Linear's weight.t()) gets its gradient
    column-major, mm(g.t(), mat1).t(), so the weight's own gradient comes out contiguous."""
    return t(mm(t(g), mat1)) if col_major else mm(t(mat1), g)


def mm(input, mat2):
    try:
        data2 = mat2._data
    except AttributeError:
        from ..argcheck import wrong_type  # noqa: PLC0415 - only for the error
        raise wrong_type("mm", "mat2", 2, "Tensor", mat2) from None  # x.mm(3): position 1 (argcheck.as_method)
    if type(input._data) is not type(data2):
        check_args("mm", (("self", input), ("mat2", mat2)))
    if input._data.ndim != 2:
        raise errors.runtime("self must be a matrix")
    if mat2._data.ndim != 2:
        raise errors.runtime("mat2 must be a matrix")
    (n, k), (k2, m) = input._data.shape, mat2._data.shape
    if k != k2:
        raise errors.runtime(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})",
                             hint="matmul_shape")
    _same_dtype(input, mat2)  # after the shapes, as torch
    out = wrap(_matprod(input._data, mat2._data), input.dtype)
    if not grad_mode.enabled and forward_level[0] is None:
        return out
    return record(MmBackward0, (input, mat2), out, _layout_kw(input, mat2))


class MvBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((1,), (0,))
    explain = staticmethod(words.mv)
    expression = "{0} @ {1}"
    replay = staticmethod(replays.matmul)

    def backward(self, g):
        a, v = self.saved
        ga = unsqueeze(g, 1) * unsqueeze(v, 0) if self.next_functions[0][0] is not None else None
        gv = mv(t(a), g) if self.next_functions[1][0] is not None else None
        return ga, gv


def mv(input, vec):
    if type(input._data) is not type(vec._data):
        check_args("addmv_", (("self", input), ("vec", vec)))
    if input._data.ndim == 0:  # torch's mv sizes its result by self.size(0) first
        raise errors.index("Dimension specified as 0 but tensor has no dimensions")
    if input._data.ndim != 2 or vec._data.ndim != 1:
        # addmv_ on that 1-d result: its message counts result, mat, vec
        raise errors.runtime(f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}")
    if input._data.shape[1] != vec._data.shape[0]:
        n, k = input._data.shape
        raise errors.runtime(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({vec._data.shape[0]})")
    if input.dtype is not vec.dtype:
        # torch's mv is addmv_(empty of vec's dtype, mat, vec): addmv's message names result, mat, vec
        from .elementwise_common import c10_name  # noqa: PLC0415
        v, m = c10_name(vec.dtype), c10_name(input.dtype)
        raise errors.runtime(f"addmv input tensors must have the same dtype, but got {v}, {m}, and {v}",
                             hint="dtype_mismatch")
    return record(MvBackward0, (input, vec), wrap(_matprod(input._data, vec._data), input.dtype))


class DotBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((1,), (0,))
    explain = staticmethod(words.mul)
    expression = "{0}.dot({1})"
    replay = staticmethod(replays.matmul)

    def backward(self, g):
        a, b = self.saved
        return (g * b if self.next_functions[0][0] is not None else None,
                g * a if self.next_functions[1][0] is not None else None)


def dot(input, other):
    if type(input._data) is not type(other._data):
        check_args("_dot", (("self", input), ("tensor", other)))
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise errors.runtime(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input.dtype is not other.dtype:
        from .elementwise_common import c10_name  # noqa: PLC0415
        raise errors.runtime(f"dot : expected both vectors to have same dtype, but found {c10_name(input.dtype)} "
                             f"and {c10_name(other.dtype)}")
    n, m = input._data.shape[0], other._data.shape[0]
    if n != m:
        raise errors.runtime(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                             f"number of elements, but got {n} and {m} elements respectively")
    return record(DotBackward0, (input, other), wrap(_asarray(_matprod(input._data, other._data)), input.dtype))


vdot = dot


class BmmBackward0(Function):
    __slots__ = ()
    replay = staticmethod(replays.matmul)
    explain = ("grad @ {pb}.mT", "{pa}.mT @ grad")
    explain_factor = False
    save_inputs = True
    save_when = ((1,), (0,))

    def backward(self, g):
        a, b = self.saved
        ga = bmm(g, transpose(b, 1, 2)) if self.next_functions[0][0] is not None else None
        gb = bmm(transpose(a, 1, 2), g) if self.next_functions[1][0] is not None else None
        return ga, gb


def bmm(input, mat2):
    if type(input._data) is not type(mat2._data):
        check_args("bmm", (("self", input), ("mat2", mat2)))
    if input._data.ndim != 3:
        raise errors.runtime("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise errors.runtime("batch2 must be a 3D tensor")
    (b, n, k), (b2, k2, m) = input._data.shape, mat2._data.shape
    if b != b2 or k != k2:
        raise errors.runtime(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
                             f"[{b2}, {k2}].")
    if input.dtype is not mat2.dtype:
        # torch's bmm: the result takes batch2's dtype; an empty result, or a contraction of length 0
        # (zeros), returns before the kernel's dtype check
        if b * n * m and k:
            from .elementwise_common import c10_name  # noqa: PLC0415
            raise errors.runtime(f"expected scalar type {c10_name(input.dtype)} but found {c10_name(mat2.dtype)}",
                                 hint="dtype_mismatch")
        return record(BmmBackward0, (input, mat2),
                      wrap(_matprod(input._data.astype(mat2._data.dtype), mat2._data), mat2.dtype))
    return record(BmmBackward0, (input, mat2), wrap(_matprod(input._data, mat2._data), input.dtype))


class AddmmBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((), (2,), (1,))
    fuses = (2, TBackward0)  # a Linear layer's weight.t(): see fused_backward
    explain = staticmethod(words.addmm)
    expression = "{1} @ {2} + {0}"
    replay = staticmethod(replays.addmm)

    def backward(self, g):
        bias, a, b = self.saved
        G = g._data
        k = self._kw
        if k is None:
            k = _NO_KW
        elif "beta" in k or "alpha" in k:
            return self._scaled_backward(g, bias, a, b, k)
        if not grad_mode.enabled and type(G) is np.ndarray:
            return self._plain_grads(g, bias, a, b, k.get("col_major", _ROW_MAJOR), False)
        return self._scaled_backward(g, bias, a, b, k)

    def _plain_grads(self, g, bias, a, b, layout, for_t):
        """The gradients with no graph to build (not create_graph): _mat1_grad's and _mat2_grad's mm on
        the arrays, as mm computes them (its checks cannot fail here: forward checked the same operands),
        and the bias's sum. for_t: mat2's gradient transposed back (what t()'s node then passes on, the
        same array), for fused_backward."""
        G, dt = g._data, g.dtype
        c1, c2 = layout
        nf = self._fns  # next_functions' nodes, without building the pairs
        ga = gb = gbias = None
        kernel = _GEMM[0]  # numpy_columns' and _refused's lookups, once for both products
        if kernel is not _REFUSES[0]:
            _see(kernel)
        refuses = _REFUSES[1]
        if refuses is None:
            refuses = _never
        cut = _EVERY_WIDTH if kernel is None else getattr(kernel, "numpy_below", 0)  # narrower: NumPy's @ in _matprod
        limit = LIMITS["max_elements"]
        if limit is not None and not ((nf[1] is None or G.shape[0] * b._data.shape[0] <= limit)
                                      and (nf[2] is None or G.shape[1] * a._data.shape[1] <= limit)):
            cut = 0  # _matprod's check of each product's n x m raises (a script's run sets a limit)
        mm = _BLAS_MM[0] if _BLAS_MM else numpy_blas.mm_kernel()  # NumPy's @ in one C call, or None
        if nf[1] is not None:
            B = b._data
            if G.shape[1] != 1 and ((G.shape[0] if c1 else B.shape[0]) < cut
                                    or (cut and refuses(B, G.T) if c1 else cut and refuses(G, B.T))):
                if c1:
                    ga = wrap((B @ G.T).T, dt)
                else:
                    BT = B.T
                    r = None if mm is None else mm(G, BT)
                    ga = wrap(G @ BT if r is None else r, dt)
            else:
                ga = wrap(_matprod(B, G.T).T if c1 else _matprod(G, B.T), dt)
        if nf[2] is not None:
            A = a._data
            if c2:  # mm(g.t(), mat1).t(): the product is mat2.t()'s gradient
                GT = G.T
                if G.shape[0] != 1 and (A.shape[1] < cut or cut and refuses(GT, A)):
                    P = None if mm is None else mm(GT, A)
                    if P is None:
                        P = GT @ A
                else:
                    P = _matprod(GT, A)
                gb = wrap(P if for_t else P.T, dt)
            else:
                P = A.T @ G if G.shape[0] != 1 and (G.shape[1] < cut or cut and refuses(A.T, G)) else _matprod(A.T, G)
                gb = wrap(P.T if for_t else P, dt)
        if nf[0] is not None:
            # a Linear bias of (m,): sum_to's torch.sum(g, 0) directly
            gbias = wrap(numerics.sum_rows(G), dt) if G.ndim == 2 and bias == G.shape[1:] \
                else sum_to(g, bias)
        return (gbias, ga, gb)

    def fused_backward(self, g, child):
        """The plain engine's backward of an addmm whose mat2 is t()'s output, with that TBackward0
        node (child, which only this node feeds) done at once: ((gbias, gmat1, None), the gradient t()'s
        node would pass on), or None where backward must run as it is. The same products and bits: t()'s
        node only transposes mat2.t()'s gradient back (torch's mm_mat2_backward for a column-major
        mat2 computes mm(g.t(), mat1).t(), whose transpose is mm(g.t(), mat1) itself)."""
        k = self._kw
        saved = self._saved
        if (k is not None and ("beta" in k or "alpha" in k)) or type(g._data) is not np.ndarray \
                or len(child._fns) != 1 or child._saved is None or saved is None:
            return None
        bias, a, b = saved  # self.saved's checks inline: a changed version is backward's error
        if a.__class__ is PackedValue or b.__class__ is PackedValue:
            return None  # packed by saved tensors' hooks: backward unpacks them
        if a.__class__ is SavedValue:
            if a.tensor._version[0] != a.version:
                return None
            a = a.tensor
        if b.__class__ is SavedValue:
            if b.tensor._version[0] != b.version:
                return None
            b = b.tensor
        gbias, ga, gt = self._plain_grads(g, bias, a, b, (k or _NO_KW).get("col_major", _ROW_MAJOR), True)
        return (gbias, ga, None), gt

    def _scaled_backward(self, g, bias, a, b, k):
        beta, alpha = k.get("beta", 1), k.get("alpha", 1)
        c1, c2 = k.get("col_major", _ROW_MAJOR)
        gbias = sum_to(g * beta if beta != 1 else g, bias) if self.next_functions[0][0] is not None else None
        ga = _mat1_grad(g, b, c1) if self.next_functions[1][0] is not None else None
        gb = _mat2_grad(g, a, c2) if self.next_functions[2][0] is not None else None
        if alpha != 1:
            ga = ga * alpha if ga is not None else None
            gb = gb * alpha if gb is not None else None
        return (gbias, ga, gb)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    if not (type(input._data) is type(mat1._data) is type(mat2._data)):
        check_args("addmm", (("self", input), ("mat1", mat1), ("mat2", mat2)))
    _same_dtype(mat1, mat2)
    if input.dtype is not mat2.dtype:
        from .elementwise_common import c10_name  # noqa: PLC0415
        raise errors.runtime(f"self and mat2 must have the same dtype, but got {c10_name(input.dtype)} and "
                             f"{c10_name(mat2.dtype)}")
    (n, k), (k2, m) = mat1._data.shape, mat2._data.shape
    if k != k2:
        raise errors.runtime(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})",
                             hint="matmul_shape")
    r = _addmm_arrays(input._data, mat1._data, mat2._data, beta, alpha)
    out = wrap(_asarray(r, mat1.dtype.np), mat1.dtype)
    if not grad_mode.enabled and forward_level[0] is None:
        return out
    kw = _layout_kw(mat1, mat2, None if beta == 1 and alpha == 1 else {"beta": beta, "alpha": alpha})
    return record(AddmmBackward0, (input, mat1, mat2), out, kw)


def _edge_of(t):
    """(node, output number) of t's gradient edge; (None, 0) when it needs no gradient."""
    fn = t.grad_fn
    if fn is not None:
        if t._creation is not None:
            check_view_grad_fn(t)
        return fn, t._output_nr
    return (t._edge()[0] if t._rg else None), 0


def _push_linear(input, weight, bias, WT, out):
    """Inside a forward-AD level, where linear_2d records no node: t()'s and addmm's tangents (forward_ad.py)."""
    level = forward_level[0]
    if level is not None:
        wt = view_of(weight, WT)
        level.push(TBackward0, (weight,), (wt,), None)
        level.push(AddmmBackward0, (bias, input, wt), (out,), None)
    return out


def linear_2d(input, weight, bias):
    """F.linear's addmm(bias, input, weight.t()) for a 2-D input, a 2-D weight and a 1-D bias, NumPy
    arrays of one float dtype that fit: t() and addmm's work inline, with the same nodes (TBackward0,
    AddmmBackward0), saved tensors, sequence numbers and bits. None where the general path decides
    (other ranks, types or dtypes, shapes that raise); --max-elements is _matprod's check, as in addmm."""
    X, Wd, b = input._data, weight._data, bias._data
    dt = input.dtype
    if not (type(X) is np.ndarray and type(Wd) is np.ndarray and type(b) is np.ndarray and X.ndim == 2
            and Wd.ndim == 2 and b.ndim == 1 and weight.dtype is dt and bias.dtype is dt
            and dt.category == dtypes.FLOAT):
        return None
    m, k = Wd.shape
    if X.shape[1] != k or b.shape[0] != m:
        return None
    WT = Wd.T
    r = None
    if k != 1:  # the gemm slot's one-call answer, where it has one (gemm_avx2.gemm's, decided in C)
        kernel = _GEMM[0]
        if kernel is not _REFUSES[0]:
            _see(kernel)
        direct = _REFUSES[2]
        if direct is not None:
            limit = LIMITS["max_elements"]
            if limit is not None and X.shape[0] * m > limit:
                check_numel(X.shape[0] * m)  # --max-elements: n x m, as _matprod (called only to raise)
            r = direct(X, WT, b)
    if r is not None:
        out = wrap(r, dt)
    elif k != 1 and (m < numpy_columns(_GEMM[0]) or _refused(X, WT)):
        if LIMITS["max_elements"] is not None:
            check_numel(X.shape[0] * m)  # --max-elements: n x m, as _matprod (a script's run sets a limit)
        r = X @ WT  # _addmm_arrays' NumPy path (no MKL, no contraction of length 1)
        kern = numerics.kernels()
        if kern is None:
            np.add(r, b, out=r)
        else:
            try:
                kern.bias_add(r, b)  # csrc/engine.c: the same float additions, one call
            except ValueError:  # float16, or b not contiguous
                np.add(r, b, out=r)
        out = wrap(r, dt)
    else:
        out = wrap(_addmm_arrays(b, X, WT), dt)  # addmm's array
    if not grad_mode.enabled:
        return _push_linear(input, weight, bias, WT, out)
    rx, rw = input._rg, weight._rg
    if not (rx or rw or bias._rg):
        return _push_linear(input, weight, bias, WT, out)
    # t()'s output, weight.t(): kept only as mat2's saved tensor (when the input needs a gradient) and shown to a
    # node observer; else nothing could read it (view_of's checks fail only for a weight with a CreationMeta)
    wt = view_of(weight, WT) if rx or node_observer[0] is not None or weight._creation is not None else None
    fw = None
    fn = weight.grad_fn if rw else None
    if rw and fn is None and weight._version.__class__ is not list:
        # weight.t() of an inference weight is a view without autograd meta (views.view_of): no edge;
        # with an inference input and bias too, torch records nothing (function.all_inference)
        rw = False
        if not (rx or bias._rg) or all_inference((input, weight, bias)):
            return _push_linear(input, weight, bias, WT, out)
    if rw:  # t()'s node (_record1's work)
        fw = _new_node(TBackward0)
        if fn is None:
            acc = weight._accum if weight._creation is None else None  # _edge()'s, inline once made
            fw._fns = (acc if acc is not None else weight._edge()[0],)
            fw._nrs = _ZERO_NRS1
        else:
            if weight._creation is not None:
                check_view_grad_fn(weight)
            nr = weight._output_nr
            fw._fns = (fn,)
            fw._nrs = _ZERO_NRS1 if nr == 0 else (nr,)
        fw._saved = ()
        stamp(fw, dt, None)
        if wt is not None:
            attach(fw, wt, (weight,))
    node = _new_node(AddmmBackward0)
    # _edge_of(bias), _edge_of(input) inline unless a view's CreationMeta or a leaf's first edge needs them
    fb, fx, nb, nx = bias.grad_fn, input.grad_fn, 0, 0
    if fb is not None or bias._creation is not None or (bias._rg and bias._accum is None):
        fb, nb = _edge_of(bias)
    elif bias._rg:
        fb = bias._accum
    if input._creation is not None or (fx is None and rx and input._accum is None):
        fx, nx = _edge_of(input)
    elif fx is not None:
        nx = input._output_nr
    elif rx:
        fx = input._accum
    node._fns = (fb, fx, fw)
    node._nrs = _ZERO_NRS3 if nb == 0 and nx == 0 else (nb, nx, 0)
    # save_when ((), (2,), (1,)): mat1 when mat2 needs a gradient, mat2 when mat1 does, the bias never
    node._saved = (b.shape, saved_value(input) if rw else X.shape, saved_value(wt) if rx else WT.shape)
    # _layout_kw(input, wt): wt (Wd.T) is column-major when Wd is C-contiguous (a Linear's weight)
    i, st, ws = X.itemsize, X.strides, Wd.strides
    c1, c2 = st[0] == i and st[1] == X.shape[0] * i, ws[1] == i and ws[0] == k * i
    stamp(node, dt, _LAYOUT_KWS[c1, c2] if c1 or c2 else None)
    return attach(node, out, (bias, input, wt))


# ---------------------------------------------------------------------------- declarations

# One declaration per op (registry.py); methods.py derives the tables
OPS = [
    op("mm", mm, MmBackward0, sample=Sample([((2, 3), (3, 2)), ((1, 2), (2, 3))])),
    # torch.spmm(adj, support) of pygcn and pytorch/examples' gcn: on strided tensors it is mm (its node and errors)
    op("spmm", mm, MmBackward0, method=False, sample=Sample([((2, 3), (3, 2))])),
    op("mv", mv, MvBackward0, sample=Sample([((2, 3), (3,))])),
    op("dot", dot, DotBackward0, sample=Sample([((3,), (3,))])),
    op("bmm", bmm, BmmBackward0, sample=Sample([((2, 2, 3), (2, 3, 2))])),
    op("addmm", addmm, AddmmBackward0, inplace="copy", sample=Sample(
        [((2,), (2, 3), (3, 2)), ((2, 2), (2, 1), (1, 2))], kwargs={"beta": 0.5, "alpha": 2}),
       cases={"addmm": case(lambda torch, x, a, b: torch.addmm(x, a, b, beta=0.5, alpha=2.0), V.M23, V.M23, V.M33)}),
]
