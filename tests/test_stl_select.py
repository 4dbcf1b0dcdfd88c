"""gradcli/engine/stl_select.py: libstdc++'s selection and sorting moves, as torch.topk runs them.

Without torch: every result is a valid top-k (the right values, each position once, sorted when
asked). With torch: the very positions torch.topk returns, ties and NaN included, on random rows
that reach every branch (partial_sort when k * 64 <= n, nth_element then sort, the insertion sort of
short ranges, the introsort's heap fallback is not reached at these sizes)."""
from __future__ import annotations

import math
import random

import pytest

from gradcli.engine.stl_select import kth_row, sort_row, topk_row


def _cases(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.choice([1, 2, 3, 4, 5, 7, 16, 17, 20, 33, 64, 65, 130, 300])
        k = rng.randint(1, n) if rng.random() < 0.7 or n < 64 else rng.randint(1, max(1, n // 64))
        vals = [float(rng.randrange(rng.choice([2, 3, 10]))) for _ in range(n)]
        if rng.random() < 0.15:
            vals[rng.randrange(n)] = math.nan
        yield vals, k, rng.random() < 0.7, rng.random() < 0.85


def _key(v, largest):
    if v != v:
        return (0, 0.0)  # NaN counts as the largest
    return (1, -v) if largest else (0, v)


@pytest.mark.parametrize("seed", range(3))
def test_topk_row_is_a_top_k(seed):
    for vals, k, largest, sorted_ in _cases(seed, 300):
        got = topk_row(vals, k, largest, sorted_)
        assert len(set(got)) == k
        want = sorted(vals, key=lambda v: _key(v, largest) if largest else (v != v, v))[:k]
        chosen = [vals[i] for i in got]
        assert sorted(map(repr, chosen)) == sorted(map(repr, want))
        if sorted_:
            keys = [_key(v, largest) if largest else (v != v, v) for v in chosen]
            assert keys == sorted(keys)


def test_topk_row_against_torch():
    torch = pytest.importorskip("torch")
    for vals, k, largest, sorted_ in _cases(7, 1500):
        want = torch.topk(torch.tensor(vals), k, largest=largest, sorted=sorted_).indices.tolist()
        assert topk_row(vals, k, largest, sorted_) == want, (vals, k, largest, sorted_)


def test_sort_and_kth_rows_against_torch():
    torch = pytest.importorskip("torch")
    for vals, k, largest, _ in _cases(11, 1500):
        t = torch.tensor(vals)
        assert sort_row(vals, largest) == t.sort(descending=largest).indices.tolist(), (vals, largest)
        assert kth_row(vals, k - 1) == t.kthvalue(k, 0).indices.item(), (vals, k)


def test_sort_and_kth_rows_are_orders():
    for vals, k, largest, _ in _cases(12, 300):
        q = sort_row(vals, largest)
        assert sorted(q) == list(range(len(vals)))
        keys = [_key(vals[i], largest) if largest else (vals[i] != vals[i], vals[i]) for i in q]
        assert keys == sorted(keys)
        assert repr(vals[kth_row(vals, k - 1)]) == repr(vals[sort_row(vals, False)[k - 1]])
