"""torch.matmul as ATen's _matmul_impl dispatches it (dot, mv, mm, a folded mm/mv or bmm over the
broadcast batch, so the recorded graph is torch's), and the products made of the others: outer
(ger) and inner; with their declarations (OPS). The products themselves are linalg.py's.
"""
from __future__ import annotations

import numpy as np

from .. import errors
from ..function import Function, record
from ..tensor import Tensor
from ..views import view_of
from . import replays
from .linalg import BmmBackward0, DotBackward0, MmBackward0, MvBackward0, bmm, dot, mm, mv
from .registry import Sample, V, case, op
from .shape import contiguous, expand, reshape, squeeze, t, transpose, unsafe_view, unsqueeze


class SqueezeBackward4(Function):
    __slots__ = ()
    replay = staticmethod(replays.reshape)
    explain = "1 (a squeeze of the shape: the gradient is passed back reshaped)"
    explain_factor = "1"

    def backward(self, g):
        return (unsqueeze(g, self._kw["dim"]),)


def _should_fold(t1, t2):
    """ATen's should_fold: can the larger operand be folded into a matrix for mm/mv instead of bmm?"""
    larger = t1._data.ndim >= t2._data.ndim
    big = t1._data if larger else np.swapaxes(t2._data, -1, -2)
    dim_small = t2._data.ndim if larger else t1._data.ndim
    if not (big.ndim >= 3 and dim_small <= 2):
        return False
    if (t2 if larger else t1)._rg:  # the smaller operand requires grad
        return True
    if t1._data.ndim == 2:
        return False
    if big.size == 0:
        return True
    item = big.itemsize
    st = [x // item for x in big.strides]
    for i in range(big.ndim - 2):
        if st[i] != st[i + 1] * big.shape[i + 1]:
            return False
    return True


def matmul(input, other):
    """torch.matmul, dispatched exactly as ATen's _matmul_impl (so the recorded graph is torch's)."""
    if not isinstance(input, Tensor):
        raise errors.type_error(f"matmul(): argument 'input' (position 1) must be Tensor, not "
                                f"{type(input).__name__}")
    if not isinstance(other, Tensor):
        raise errors.type_error(f"matmul(): argument 'other' (position 2) must be Tensor, not "
                                f"{type(other).__name__}")
    d1, d2 = input._data.ndim, other._data.ndim
    if d1 == 0 or d2 == 0:
        raise errors.runtime(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return dot(input, other)
    if d1 == 2 and d2 == 1:
        return mv(input, other)
    if d1 == 1 and d2 == 2:
        if input._data.shape[0] != other._data.shape[0]:
            raise errors.runtime(f"mat1 and mat2 shapes cannot be multiplied (1x{input._data.shape[0]} and "
                                 f"{other._data.shape[0]}x{other._data.shape[1]})", hint="matmul_shape")
        r = mm(unsqueeze(input, 0), other)
        return record(SqueezeBackward4, (r,), view_of(r, r._data.reshape(r._data.shape[1:])), {"dim": 0})
    if d1 == 2 and d2 == 2:
        return mm(input, other)
    if d1 == 3 and d2 == 3:
        # 3-D @ 3-D where one operand's batch is 1 and the other's is not: torch squeezes the batch-1
        # operand when it requires grad (no expand to sum back in its backward), then folds as 2-D @ 3-D
        b1, b2 = input._data.shape[0], other._data.shape[0]
        if b1 == 1 and b2 != 1 and input._rg:
            input, d1 = squeeze(input, 0), 2
        elif b2 == 1 and b1 != 1 and other._rg:
            other, d2 = squeeze(other, 0), 2
    # no dtype check here: the mm/mv/bmm below check (after their shapes), as torch's do
    if _should_fold(input, other):
        transpose_ = d2 > d1
        t1 = transpose(other, -2, -1) if transpose_ else input
        t2 = (t(input) if d1 == 2 else input) if transpose_ else other
        sizes1 = t1._data.shape
        out_shape = sizes1[:-1]
        folded = int(np.prod(out_shape))
        if t2._data.ndim == 2:
            out_shape = out_shape + (t2._data.shape[1],)
        if t2._data.shape[0] != sizes1[-1]:
            if t2._data.ndim == 1:
                raise errors.runtime(f"size mismatch, got input ({folded}), mat ({folded}x{sizes1[-1]}), vec "
                                     f"({t2._data.shape[0]})")
            raise errors.runtime(f"mat1 and mat2 shapes cannot be multiplied ({folded}x{sizes1[-1]} and "
                                 f"{t2._data.shape[0]}x{t2._data.shape[1]})", hint="matmul_shape")
        t1f = reshape(t1, (folded, sizes1[-1]))
        if t2._data.ndim == 2:
            out = unsafe_view(mm(t1f, t2), out_shape)
            return contiguous(transpose(out, -2, -1)) if transpose_ else out
        return unsafe_view(mv(t1f, t2), out_shape)
    s1, s2 = input._data.shape, other._data.shape
    n = s1[-2] if d1 > 1 else 1
    m1 = s1[-1]
    m2 = s2[-2] if d2 > 1 else s2[0]
    p = s2[-1] if d2 > 1 else 1
    try:
        batch = tuple(np.broadcast_shapes(s1[:max(d1 - 2, 0)], s2[:max(d2 - 2, 0)]))
    except ValueError:
        raise errors.runtime(errors.broadcast_mismatch(s1[:max(d1 - 2, 0)], s2[:max(d2 - 2, 0)])) from None
    bp = int(np.prod(batch))
    if m1 != m2:
        raise errors.runtime(f"Expected size for first two dimensions of batch2 tensor to be: [{bp}, {m1}] but got: "
                             f"[{bp}, {m2}].")
    a = reshape(expand(input, batch + (n, m1)), (bp, n, m1))
    if d2 == 1:
        b = unsqueeze(reshape(expand(other, batch + (m2,)), (bp, m2)), 2)
    else:
        b = reshape(expand(other, batch + (m2, p)), (bp, m2, p))
    out_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    r = bmm(a, b)
    if d2 == 1:
        r = squeeze(r, -1)
    return unsafe_view(r, out_shape)


def outer(input, vec2):
    """torch.outer: input.reshape(n, 1) * vec2 (MulBackward0 of ViewBackward0, as torch records it)."""
    if input._data.ndim != 1 or vec2._data.ndim != 1:
        raise errors.runtime(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D"
                             if input._data.ndim != 1 else
                             f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    from .arithmetic import mul  # noqa: PLC0415
    return mul(reshape(input, (input._data.shape[0], 1)), vec2)


ger = outer


def inner(input, other):
    """torch.inner: a tensordot over the last dims (1-D: ViewBackward0 of DotBackward0 of permutes)."""
    from .arithmetic import mul  # noqa: PLC0415
    from .shape import permute  # noqa: PLC0415
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        return mul(input, other)
    ka, kb = input._data.shape[-1], other._data.shape[-1]
    if ka != kb:
        raise errors.runtime(f"inner() the last dimension must match on both input tensors but got shapes "
                             f"[{', '.join(map(str, input._data.shape))}] and [{', '.join(map(str, other._data.shape))}]")
    if input.dtype is not other.dtype:  # ATen's inner is tensordot(-1, -1), which checks the dtypes first
        raise errors.runtime("both inputs should have same dtype")
    if da == 1 and db == 1:
        r = dot(permute(input, (0,)), permute(other, (0,)))
        return reshape(r, ())
    a = reshape(input, (-1, ka))
    b = reshape(permute(other, (db - 1,) + tuple(range(db - 1))), (kb, -1))
    return reshape(mm(a, b), input._data.shape[:-1] + other._data.shape[:-1])


# ---------------------------------------------------------------------------- declarations

# One declaration per op (registry.py); methods.py derives the tables
OPS = [
    op("inner", inner, DotBackward0, MmBackward0, sample=Sample([((3,), (3,)), ((2, 3), (3,))])),
    op("matmul", matmul, MmBackward0, MvBackward0, DotBackward0, BmmBackward0, linalg=True, operator="@", sample=Sample(
        [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 2)), ((2, 2, 3), (3, 2)), ((3,), (2, 3, 2)),
         ((2, 1, 2, 3), (2, 3, 1))])),
    op("outer", outer, aliases=("ger",), sample=Sample([((3,), (2,))]),
       cases={"outer": case(lambda torch, x0, x1: torch.outer(x0, x1), V.A, V.B)}),  # mul's and unsqueeze's nodes
]
