"""TensorIterator's geometry, as the CPU kernels see it: the order of the dims (reorder_dimensions),
their coalescing, a reduction's output strides, and the 2-d loop calls (DimCounter) over a range of
the iteration space. numerics.py (sums, means) and variance.py (var/std) run their kernels on these,
pow_kernel.py its split between SLEEF and glibc."""
from __future__ import annotations

import numpy as np


def contig_strides(shape):
    """torch's contiguous strides (a dim of size 0 steps as one of size 1)."""
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= max(s, 1)
    return st[::-1]


def iter_permutation(shape, operands, reduction=False):
    """TensorIterator's reorder_dimensions: an insertion sort of the dims by the operands' strides with
    ambiguous comparisons; ``operands`` are (strides, is_output). Returns perm, fastest dim first."""
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))

    def should_swap(d0, d1):
        for strides, is_out in operands:
            s0, s1 = strides[d0], strides[d1]
            if reduction and is_out and ((s0 == 0) != (s1 == 0)):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, nd):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            c = should_swap(perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    return perm


def coalesce_dims(sh, ops):
    """TensorIterator's coalesce_dimensions over permuted sizes ``sh`` and per-operand strides ``ops``."""
    sh, ops = list(sh), [list(st) for st in ops]
    nd = len(sh)
    if nd > 1:
        prev = 0
        for dim in range(1, nd):
            s0, s1 = sh[prev], sh[dim]
            if s0 == 1 or s1 == 1 or all(s0 * st[prev] == st[dim] for st in ops):
                if sh[prev] == 1:
                    for st in ops:
                        st[prev] = st[dim]
                sh[prev] *= sh[dim]
            else:
                prev += 1
                if prev != dim:
                    for st in ops:
                        st[prev] = st[dim]
                    sh[prev] = sh[dim]
        sh = sh[:prev + 1]
        ops = [st[:prev + 1] for st in ops]
    return sh, ops


def reorder_coalesce(shape, operands, reduction):
    """reorder_dimensions then coalesce_dimensions; ``operands`` are (byte strides, is_output).
    Fastest dim first."""
    perm = iter_permutation(shape, operands, reduction)
    return coalesce_dims([shape[p] for p in perm], [[st[p] for p in perm] for st, _ in operands])


def geometry(shape, istrides, mask, out_item, keepdim_like):
    """The reduction iterator: (shape_, input byte strides, output element strides); the
    output is a fresh contiguous tensor whose reduced dims have stride 0."""
    nd = len(shape)
    kshape = [1 if mask[i] else shape[i] for i in range(nd)]
    cst = contig_strides(kshape)
    ost = [0 if mask[i] and (shape[i] != 1 or not keepdim_like) else cst[i] for i in range(nd)]
    sh, (ob, ib) = reorder_coalesce(shape, [([s * out_item for s in ost], True), (list(istrides), False)], True)
    return sh, ib, [s // out_item for s in ob]


def loop_calls(shape, begin, end):
    """DimCounter over [begin, end): yields (outer, count, v1, n1, v0, n0); runs of whole 2-d
    blocks come as one item with count > 1."""
    s0, s1 = shape[0], shape[1]
    blk = s0 * s1
    off = begin
    while off < end:
        outer, rem = divmod(off, blk)
        v1, v0 = divmod(rem, s0)
        if v0 == 0 and v1 == 0 and end - off >= blk:
            cnt = (end - off) // blk
            yield outer, cnt, 0, s1, 0, s0
            off += cnt * blk
            continue
        n0 = min(s0 - v0, end - off)
        n1 = 1
        if n0 == s0:
            n1 = min(s1 - v1, (end - off) // s0)
        yield outer, 1, v1, n1, v0, n0
        off += n0 * n1


class Plan:
    """The iterator's 2-d view of one input: data as (outer, dim1, dim0), strides, out offsets."""

    def __init__(self, a, sh, ist, ost):
        nd = len(sh)
        if nd == 0:
            sh, ist, ost = [1], [0], [0]
            nd = 1
        if nd == 1:
            sh, ist, ost = sh + [1], ist + [0], ost + [0]
        self.shape = sh
        self.is0, self.is1 = ist[0], ist[1]
        self.os0, self.os1 = ost[0], ost[1]
        view = np.lib.stride_tricks.as_strided(a, shape=tuple(reversed(sh)), strides=tuple(reversed(ist)),
                                               writeable=False)
        self.outer_n = int(np.prod(sh[2:], dtype=np.int64)) if len(sh) > 2 else 1
        self.data = view.reshape(self.outer_n, sh[1], sh[0])
        base = np.zeros(1, np.int64)
        for size, st in zip(sh[2:], ost[2:]):       # dim 2 fastest
            base = (base[None, :] + (np.arange(size, dtype=np.int64) * st)[:, None]).reshape(-1)
        self.base = base
        self.numel = int(np.prod(sh, dtype=np.int64))
