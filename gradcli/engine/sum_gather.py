"""torch.sum(a, 0) of a small (n, m) float32/float64 array whose columns take two orders, as a
gather plan.

numerics' plan for a bias gradient sums the columns of cascade_sum's vectorised blocks in
multi_row_sum's order and the rest in row_sum's, each through reshaped views: about a dozen NumPy
calls for a (32, 5) sum, and each call costs more than its additions. Here the same order is written
down once per shape as a tree of in-order sums (a tuple of trees is ((t0 + t1) + t2) ...; an int is
an item's flat index) and computed level by level: each level gathers its operands into a
(depth, lanes) array with one `take` and adds its rows with one `np.add.reduce` over axis 0 (NumPy
adds whole rows into two or more lanes in order). A shorter sum is padded with +0 after its operands
and an operand of a lower level is lifted by adding +0: x + 0 is x except that -0 becomes +0, and the
sum's final `+ 0` (cascade_sum's result starts at +0) turns every zero into +0 anyway. Seven NumPy
calls for any such shape; tests/test_numerics.py compares the plans with the iterator path.
"""
from __future__ import annotations

import numpy as np

MAX_ITEMS = 4096   # larger sums keep the view plans (the index arrays grow with the data)


def _seq(items):
    """The in-order sum of items (one item is itself)."""
    return items[0] if len(items) == 1 else tuple(items)


def _multi_level(rows):
    """numerics._multi_level_plan's order: chunks of 16 rows summed in order, the chunk sums in order,
    then the tail's sum + that."""
    n = len(rows)
    nfull, t = n >> 4, n & 15
    if nfull == 0:
        return _seq(rows)
    chunks = _seq([_seq(rows[c << 4:(c + 1) << 4]) for c in range(nfull)])
    if t == 0:
        return chunks
    return (_seq(rows[nfull << 4:]), chunks)


def _row_sum(items):
    """numerics._row_sum_plan's order: four interleaved multi-level sums, the tail items added into
    the first, then ((p0 + p1) + p2) + p3."""
    n = len(items)
    s = n >> 2
    if s == 0:
        return _seq(items)
    p = [_multi_level([items[4 * i + j] for i in range(s)]) for j in range(4)]
    return _seq([p[0], *items[s << 2:], p[1], p[2], p[3]])


def _level(tree):
    return 0 if isinstance(tree, int) else 1 + max(_level(c) for c in tree)


def _lift(tree, lv):
    while _level(tree) < lv:
        tree = (tree,)
    return tree


def compile_levels(trees, n_items):
    """The trees' gathers, level by level from the items up: index arrays (depth, lanes). Level 1
    indexes the items, n_items standing for a zero appended after them; each later level indexes the
    lanes of the one below, whose extra last lane (when this level reads a zero) sums zeros only. A
    level of one node gets that zero lane too (NumPy adds in order into two lanes or more); the top
    level's lanes are the trees' sums, in order."""
    top = max(1, max(_level(t) for t in trees))
    kids = []   # kids[i]: for each node of level top - i, its children lifted to the level below
    nodes = [_lift(t, top) for t in trees]
    for lv in range(top, 0, -1):
        groups = [[_lift(k, lv - 1) for k in node] for node in nodes]
        kids.append(groups)
        nodes = [k for group in groups for k in group]
    kids.reverse()   # kids[0]: level 1
    depth = [max(len(g) for g in groups) for groups in kids]
    zero_lane = [False] * top
    reads_zero = [False] * top
    for i in range(top - 1, -1, -1):
        zero_lane[i] = len(kids[i]) == 1 or (i + 1 < top and reads_zero[i + 1])
        reads_zero[i] = zero_lane[i] or any(len(g) < depth[i] for g in kids[i])
    levels = []
    for i, groups in enumerate(kids):
        zero = n_items if i == 0 else len(kids[i - 1])
        idx = np.full((depth[i], len(groups) + zero_lane[i]), zero, np.intp)
        lane = 0
        for j, group in enumerate(groups):
            for r, k in enumerate(group):
                if i == 0:
                    idx[r, j] = k
                else:   # the level below lists these children in this order
                    idx[r, j] = lane
                    lane += 1
        levels.append(idx)
    return levels


def sum0_plan(n, m, cut, dt):
    """a -> torch.sum(a, 0) + 0 for a C-contiguous (n, m) array of dtype dt whose first `cut` columns
    take multi_row_sum's order and the others row_sum's (numerics._sum0_plan's split)."""
    trees = [(_multi_level if c < cut else _row_sum)([i * m + c for i in range(n)]) for c in range(m)]
    first, *rest = compile_levels(trees, n * m)
    zero = np.zeros((), dt)
    z1 = np.zeros(1, dt)
    reduce, concat = np.add.reduce, np.concatenate

    def plan(a):
        r = reduce(concat((a, z1), axis=None).take(first), 0)   # (axis=None: a flattened, the zero after it)
        for idx in rest:
            r = reduce(r.take(idx), 0)
        r += zero
        return r
    return plan
