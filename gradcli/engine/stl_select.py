"""libstdc++'s std::nth_element, std::sort and std::partial_sort (bits/stl_algo.h, stl_heap.h), step
for step, for torch.topk's CPU kernel (ATen's TopKImpl.h: partial_sort when k * 64 <= n, else
nth_element at k - 1 then, when sorted, sort of the first k - 1) and torch.sort's unstable one
(SortingKernel.cpp: std::sort with KeyValueCompAsc/Desc); and ATen's own quick_select_template
(Sorting.cpp) for kthvalue and median along a dim. None is stable: among equal values, which index
comes first is what these exact moves give, so only an emulation reproduces torch's indices for ties.
Each works on a list of element positions `q`, compared through `less(a, b)` on the elements' values
(torch's comparator: NaN counts as the largest)."""
from __future__ import annotations

_THRESHOLD = 16  # _S_threshold


def _lg(n):
    return n.bit_length() - 1


def _insertion_sort(q, first, last, less):
    if first == last:
        return
    for i in range(first + 1, last):
        v = q[i]
        if less(v, q[first]):
            q[first + 1:i + 1] = q[first:i]
            q[first] = v
        else:
            _unguarded_linear_insert(q, i, less)


def _unguarded_linear_insert(q, last, less):
    v = q[last]
    nxt = last - 1
    while less(v, q[nxt]):
        q[last] = q[nxt]
        last = nxt
        nxt -= 1
    q[last] = v


def _move_median_to_first(q, result, a, b, c, less):
    if less(q[a], q[b]):
        if less(q[b], q[c]):
            m = b
        elif less(q[a], q[c]):
            m = c
        else:
            m = a
    elif less(q[a], q[c]):
        m = a
    elif less(q[b], q[c]):
        m = c
    else:
        m = b
    q[result], q[m] = q[m], q[result]


def _unguarded_partition(q, first, last, pivot, less):
    while True:
        while less(q[first], q[pivot]):
            first += 1
        last -= 1
        while less(q[pivot], q[last]):
            last -= 1
        if not first < last:
            return first
        q[first], q[last] = q[last], q[first]
        first += 1


def _partition_pivot(q, first, last, less):
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(q, first + 1, last, first, less)


def _adjust_heap(q, first, hole, length, value, less):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length & 1 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value


def _make_heap(q, first, last, less):
    n = last - first
    if n < 2:
        return
    parent = (n - 2) // 2
    while True:
        _adjust_heap(q, first, parent, n, q[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(q, first, last, result, less):
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value, less)


def _heap_select(q, first, middle, last, less):
    _make_heap(q, first, middle, less)
    for i in range(middle, last):
        if less(q[i], q[first]):
            _pop_heap(q, first, middle, i, less)


def partial_sort(q, first, middle, last, less):
    _heap_select(q, first, middle, last, less)
    while middle - first > 1:  # __sort_heap
        middle -= 1
        _pop_heap(q, first, middle, middle, less)


def nth_element(q, first, nth, last, less):
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, less)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, less)


def _introsort_loop(q, first, last, depth, less):
    while last - first > _THRESHOLD:
        if depth == 0:
            partial_sort(q, first, last, last, less)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, less)
        _introsort_loop(q, cut, last, depth, less)
        last = cut


def sort(q, first, last, less):
    if first == last:
        return
    _introsort_loop(q, first, last, _lg(last - first) * 2, less)
    if last - first > _THRESHOLD:
        _insertion_sort(q, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(q, i, less)
    else:
        _insertion_sort(q, first, last, less)


def topk_row(values, k, largest, sorted_):
    """The positions torch.topk's CPU kernel returns for one row (a list of Python floats or ints)."""
    n = len(values)
    q = list(range(n))
    less = _comparator(values, largest)
    if k * 64 <= n:
        partial_sort(q, 0, k, n, less)
    else:
        nth_element(q, 0, k - 1, n, less)
        if sorted_:
            sort(q, 0, k - 1, less)
    return q[:k]


def _comparator(values, largest):
    if largest:
        def less(a, b):
            x, y = values[a], values[b]
            return (x != x and y == y) or x > y
    else:
        def less(a, b):
            x, y = values[a], values[b]
            return (x == x and y != y) or x < y
    return less


def sort_row(values, descending):
    """The positions torch.sort (not stable) gives one row."""
    q = list(range(len(values)))
    sort(q, 0, len(q), _comparator(values, descending))
    return q


def kth_row(values, k):
    """The position torch.kthvalue (and median along a dim, k = (n - 1) // 2) gives the k-th smallest
    (0-based) of one row: ATen's quick_select_template, NaN the largest."""
    arr = list(values)
    pos = list(range(len(arr)))

    def gt(x, y):
        return (x != x and y == y) or x > y

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        pos[i], pos[j] = pos[j], pos[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            return pos[k]
        if hi == lo + 1:
            if gt(arr[lo], arr[hi]):
                swap(lo, hi)
            return pos[k]
        p = lo + (hi - lo) // 2
        swap(p, lo + 1)
        if gt(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if gt(arr[lo], arr[hi]):
            swap(lo, hi)
        if gt(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        piv = arr[lo]
        while True:
            i += 1
            while gt(piv, arr[i]):
                i += 1
            j -= 1
            while gt(arr[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
