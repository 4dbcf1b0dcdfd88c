"""``import itertools`` and ``import time``: the Python modules that scripts mix into their training
loops (a grid of settings with ``itertools.product``, one optimizer over ``itertools.chain`` of two
models' parameters, a loop timed with ``time.time()``).

itertools: Python's own iterators, each wrapped so that every item it hands out counts as a step of
the run (``--max-steps``), as a loop's iteration does: ``list(itertools.count())`` or a product of
many long lists ends with the step limit, never a run that fills the memory in one C call. The
wrappers print as Python's classes and iterators do (``<class 'itertools.chain'>``, ``count(5)``).

time: the clocks (``time``, ``perf_counter``, ``monotonic``, ``process_time`` and their ``_ns``
forms) and ``sleep``, which sleeps within the run's ``--timeout``. Their values are the machine's,
so no output that prints them can equal another run's (PyTorch's included).
"""
from __future__ import annotations

import itertools as _itertools
import time as _time

from .pyvalues import Namespace
from .runtime import user_raiser

_ITERATORS = ("accumulate", "chain", "combinations", "combinations_with_replacement", "compress", "count",
              "cycle", "dropwhile", "filterfalse", "groupby", "islice", "pairwise", "permutations", "product",
              "repeat", "starmap", "takewhile", "zip_longest")
_CLOCKS = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
           "process_time_ns")


class MeteredIterator:
    """One of itertools' iterators; each item counts as a step of the run."""

    __slots__ = ("it", "rt")

    def __init__(self, it, rt):
        self.it = it
        self.rt = rt

    def __iter__(self):
        return self

    def __next__(self):
        rt = self.rt
        rt.budget -= 1
        if rt.budget < 0:
            rt.refill()
        return next(self.it)

    def __repr__(self):  # count(5), repeat(7, 3), <itertools.chain object at 0x...>
        return repr(self.it)


class MeteredType:
    """An itertools class as a script sees it: called, it gives a metered iterator of the real one."""

    __slots__ = ("cls", "rt")

    def __init__(self, cls, rt):
        self.cls = cls
        self.rt = rt

    def __call__(self, *args, **kwargs):
        return MeteredIterator(self.cls(*args, **kwargs), self.rt)

    def __repr__(self):
        return repr(self.cls)  # <class 'itertools.product'>

    def from_iterable(self, iterable):  # itertools.chain.from_iterable
        if self.cls is not _itertools.chain:
            raise AttributeError(f"type object 'itertools.{self.cls.__name__}' has no attribute 'from_iterable'")
        return MeteredIterator(_itertools.chain.from_iterable(iterable), self.rt)


# Python's own errors (a bad argument, an iterable that is not one) are the script's
user_raiser(MeteredIterator.__next__)
user_raiser(MeteredType.__call__)
user_raiser(MeteredType.from_iterable)


def itertools_module(rt):
    members = {name: MeteredType(getattr(_itertools, name), rt) for name in _ITERATORS}

    def tee(iterable, n=2):
        return tuple(MeteredIterator(it, rt) for it in _itertools.tee(iterable, n))
    members["tee"] = user_raiser(tee)
    return {"itertools": Namespace("itertools", members)}


def time_module(rt):
    members = {name: getattr(_time, name) for name in _CLOCKS}

    def sleep(secs):
        if secs < 0:
            raise ValueError("sleep length must be non-negative")
        end = _time.monotonic() + secs
        while True:  # in slices, so that the run's --timeout holds during a long sleep
            rt.check_time()
            left = end - _time.monotonic()
            if left <= 0:
                return None
            _time.sleep(min(left, 0.05))
    members["sleep"] = user_raiser(sleep)
    return {"time": Namespace("time", members)}


__all__ = ["MeteredIterator", "MeteredType", "itertools_module", "time_module"]
