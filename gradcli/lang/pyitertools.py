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

import collections
import itertools as _itertools
import operator
import time as _time

from .pyops import g_add, int_checked_callable
from .pyvalues import Namespace
from .runtime import user_raiser
from .strguard import MAX_SEQUENCE, size_check

_ITERATORS = ("accumulate", "chain", "combinations", "combinations_with_replacement", "compress", "count",
              "cycle", "dropwhile", "filterfalse", "groupby", "islice", "pairwise", "permutations", "product",
              "repeat", "starmap", "takewhile", "zip_longest")
_CLOCKS = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
           "process_time_ns")


class MeteredIterator:
    """One of itertools' iterators; each item counts as a step of the run. Made as the class named as the
    iterator's own (_named): type(itertools.repeat(1)) is <class 'itertools.repeat'>, and Python's and torch's
    messages name it 'itertools.repeat'."""

    __slots__ = ("it", "rt")

    def __new__(cls, it, rt):
        return object.__new__(_NAMED.get(type(it)) or _named(type(it)))

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


_NAMED = {}  # the metered iterator's class -> MeteredIterator's subclass of that name


def _named(kind):
    """MeteredIterator under the names of the class `kind` (a C type's tp_name, which messages show, is
    'itertools.repeat'; a builtins one's 'callable_iterator')."""
    module = kind.__module__
    cls = type(kind.__name__, (MeteredIterator,), {"__slots__": ()})
    cls.__module__, cls.__qualname__ = module, kind.__qualname__
    cls.__name__ = kind.__name__ if module == "builtins" else f"{module}.{kind.__name__}"
    _NAMED[kind] = cls
    return cls


class MeteredCall:
    """A method that returns an iterator of as many items as the script's numbers say
    (``Counter.elements``: ``Counter(a=10**12).elements()``), called: its iterator, metered. ``max()``,
    ``deque(it, maxlen=1)`` or ``''.join`` consumed it in C, counted by no step, for hours."""

    __slots__ = ("fn", "rt")

    def __init__(self, fn, rt):
        self.fn = fn
        self.rt = rt

    def __call__(self, *args, **kwargs):
        return MeteredIterator(self.fn(*args, **kwargs), self.rt)

    def __repr__(self):
        return repr(self.fn)


user_raiser(MeteredCall.__call__)


def metered_elements(value, obj, rt):
    """``obj.elements`` for a script: metered when obj is a Counter or the Counter class."""
    if isinstance(obj, collections.Counter) or (isinstance(obj, type) and issubclass(obj, collections.Counter)):
        return MeteredCall(value, rt)
    return value


# the classes that copy their iterables into tuples when they are made (CPython: ``tuple(pool)`` for each,
# ``repeat`` times for product) and allocate their index arrays (``r`` and ``n`` long): in one C call,
# which no step counts (``combinations(range(10**9), 2)``, ``product(range(2), repeat=10**9)``,
# ``tee(it, 10**9)`` filled the memory before their first item)
_POOLED = ("product", "combinations", "combinations_with_replacement", "permutations")


def pool(iterable, rt):
    """``tuple(iterable)`` as the script's own loop would make it: a sized one checked against the
    sequence limit first, any other consumed item by item, each a step, up to the limit."""
    if isinstance(iterable, (tuple, list, str, bytes, range, dict)):
        size_check(len(iterable))
        return tuple(iterable)
    items = []
    for item in iter(iterable):
        rt.budget -= 1
        if rt.budget < 0:
            rt.refill()
        items.append(item)
        if len(items) > MAX_SEQUENCE:
            size_check(len(items))
    return tuple(items)


def _check_pooled(name, args, kwargs, rt):
    """The arguments of a pooled class with its iterables made tuples, after the limits of what it
    will build: pools and index arrays of at most MAX_SEQUENCE items, as a script's tuple."""
    if name == "product":
        pools = tuple(pool(a, rt) for a in args)
        repeat = kwargs.get("repeat", 1)
        if type(repeat) is int and repeat > 0:
            size_check(len(pools) * repeat)  # the pools repeated, and each item a tuple that long
        return pools, kwargs
    if not args:
        return args, kwargs  # Python's own TypeError
    first = pool(args[0], rt)
    r = args[1] if len(args) > 1 else kwargs.get("r")
    if type(r) is int:
        size_check(r)  # the indices (and cycles) arrays, allocated before any item
    return (first, *args[1:]), kwargs


class MeteredType:
    """An itertools class as a script sees it: called, it gives a metered iterator of the real one."""

    __slots__ = ("cls", "rt")

    def __init__(self, cls, rt):
        self.cls = cls
        self.rt = rt

    def __call__(self, *args, **kwargs):
        if self.cls.__name__ in _POOLED:
            args, kwargs = _check_pooled(self.cls.__name__, args, kwargs, self.rt)
        elif self.cls is _itertools.starmap and args:  # starmap(int, [(s, 16)]): the integer limit
            args = (int_checked_callable(args[0]), *args[1:])
        elif self.cls is _itertools.accumulate:
            # its default is C's PyNumber_Add: accumulate(['x' * 10**7] * 300) built strings and lists
            # past the sequence limit; the script's own + checks them
            if len(args) == 2 and args[1] is None and "func" not in kwargs:
                args = args[:1]
            if len(args) < 2 and kwargs.get("func") is None:
                kwargs = {**kwargs, "func": g_add}
            elif len(args) >= 2:  # accumulate([s, 16], int) calls int(s, 16)
                args = (args[0], int_checked_callable(args[1]), *args[2:])
            else:
                kwargs = {**kwargs, "func": int_checked_callable(kwargs["func"])}
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
        if type(n) is int:
            size_check(n)  # n iterators, made at once
        return tuple(MeteredIterator(it, rt) for it in _itertools.tee(iterable, n))
    members["tee"] = user_raiser(tee)
    return {"itertools": Namespace("itertools", members)}


def functools_module(rt):
    """`functools`, for the folds and bound arguments of tutorial code (`reduce(operator, layers)`,
    `partial(F.cross_entropy, reduction='sum')`): Python's own, with reduce's items counted as steps as
    itertools' are (reduce(max, count()) ends at --max-steps); `wraps`/`update_wrapper` for a decorator's
    wrapper (a timing or logging decorator): the script's function takes the wrapped one's name and qualified
    name, all a script can read of what Python copies (no __dict__, __doc__ or __wrapped__ is readable). Nothing
    else of the module (lru_cache and cache keep what they are given in a cache no step limit sees)."""
    import functools  # noqa: PLC0415

    from .pyvalues import name_of  # noqa: PLC0415
    from .runtime import function  # noqa: PLC0415

    def update_wrapper(wrapper, wrapped, assigned=None, updated=None):
        if assigned is not None or updated is not None:
            raise TypeError("update_wrapper(assigned=..., updated=...) is not available in GradScript: the "
                            "wrapper takes the wrapped function's __name__ and __qualname__")
        if type(wrapper) is not function:
            raise TypeError(f"functools.wraps updates a function of the script in GradScript, not a "
                            f"'{type(wrapper).__name__}' object")
        if type(wrapped) is function:
            name, qualname = wrapped.name, wrapped.qualname
        else:
            try:
                name = qualname = name_of(wrapped)
            except AttributeError:
                return wrapper  # Python copies only what the wrapped object has
        wrapper.name = wrapper.__name__ = name
        wrapper.qualname = wrapper.__qualname__ = qualname
        return wrapper

    def wraps(wrapped, assigned=None, updated=None):
        if assigned is not None or updated is not None:
            update_wrapper(None, wrapped, assigned, updated)
        return functools.partial(update_wrapper, wrapped=wrapped)

    def reduce(function, iterable, *initial):
        if len(initial) > 1:
            raise TypeError(f"reduce expected at most 3 arguments, got {len(initial) + 2}")
        try:
            items = iter(iterable)
        except TypeError:
            raise TypeError("reduce() arg 2 must support iteration") from None
        return functools.reduce(function, MeteredIterator(items, rt), *initial)
    reduce.__module__ = "_functools"
    return {"functools": Namespace("functools", {"reduce": user_raiser(reduce), "partial": functools.partial,
                                                 "wraps": user_raiser(wraps),
                                                 "update_wrapper": user_raiser(update_wrapper)})}


_TIME_T_RANGE = 2.0 ** 63  # CPython's _PyTime_t: nanoseconds in a signed 64-bit integer


def _seconds(secs):
    """``secs`` as CPython's time.sleep converts it (_PyTime_FromSecondsObject), with its errors: a
    float NaN or past the range of nanoseconds, any other value through ``__index__`` (a float tensor
    is torch's TypeError); gradcli's sleep waited forever for ``inf`` and compared what it got."""
    if isinstance(secs, float):
        if secs != secs:
            raise ValueError("Invalid value NaN (not a number)")
        if not -_TIME_T_RANGE <= secs * 1e9 <= _TIME_T_RANGE:
            raise OverflowError("timestamp out of range for platform time_t")
        return secs
    seconds = operator.index(secs)
    if not -_TIME_T_RANGE <= seconds * 10**9 < _TIME_T_RANGE:
        raise OverflowError("timestamp too large to convert to C _PyTime_t")
    return seconds


def time_module(rt):
    members = {name: getattr(_time, name) for name in _CLOCKS}

    def sleep(secs):
        secs = _seconds(secs)
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
