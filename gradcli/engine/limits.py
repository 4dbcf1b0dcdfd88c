"""--max-elements: the most elements one tensor may have. Constructors check the size they are
asked for; the ops whose result can be much larger than their inputs (broadcasting, expand,
repeat/tile, matmul/outer/kron, cat/stack, diag, one_hot, ...) check the result's size from the
shapes, before any work or allocation. None (the default outside the runner) means no limit."""
from __future__ import annotations

from . import errors

LIMITS = {"max_elements": None}
# the runner's step counter (``set_step_hook``): called once for each item that an engine loop whose
# length a script chooses hands out (a sampler's indices: ``RandomSampler(ds, True, num_samples=10**15)``
# consumed by ``max()`` or ``any()`` in C, where no statement of the script's counts a step); None (the
# default outside the runner) counts nothing
STEP_HOOK = [None]


def set_step_hook(fn):
    STEP_HOOK[0] = fn


def metered(iterable):
    """An iterator over ``iterable`` whose every item is a step of the run (``STEP_HOOK``)."""
    step = STEP_HOOK[0]
    if step is None:
        return iter(iterable)
    return _metered(iter(iterable), step)


def _metered(it, step):
    for item in it:
        step()
        yield item


def check_numel(n, what="tensor"):
    limit = LIMITS["max_elements"]
    if limit is not None and n > limit:
        raise errors.runtime(f"{what} of {n} elements exceeds the limit of {limit} elements (--max-elements)",
                             hint="max_elements")


def check_shape(shape, what="tensor"):
    if LIMITS["max_elements"] is None:
        return
    n = 1
    for s in shape:
        n *= int(s)
    check_numel(n, what)


def check_broadcast(*shapes):
    """The broadcast result of these shapes; shapes that do not broadcast are left to the op."""
    if LIMITS["max_elements"] is None or not shapes:
        return
    ndim = max(len(s) for s in shapes)
    n = 1
    for i in range(1, ndim + 1):
        sizes = {int(s[-i]) for s in shapes if len(s) >= i} - {1}
        if len(sizes) > 1:
            return
        n *= sizes.pop() if sizes else 1
    check_numel(n)
