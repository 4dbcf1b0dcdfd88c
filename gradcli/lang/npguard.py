"""The wall between script values and NumPy's protocol lookups.

NumPy looks up ``__array__``, ``__array_interface__``, ``__array_struct__`` (on the instance),
``__index__``, ``__float__``, ... on whatever object it is given, and an object-dtype array holds
arbitrary Python objects and runs Python's operators on them without GradScript's guards. So every
NumPy function and array method a script can call goes through ``guarded``: its arguments must be
plain data (numbers, strings, None, slices, ranges, lists and tuples of such, arrays and dtypes
without objects, NumPy scalar types, gradcli tensors), and a result holding Python objects
(``dtype=object``) is refused. gradcli's own types (``Tensor.__array__``) are the only protocol
implementations NumPy ever meets.
"""
from __future__ import annotations

import functools
import re

import numpy as np

from .runtime import LimitError, user_raiser

# One item of a dtype a script names ('V1000000000', 'U300', ('f8', (10**4, 10**4))) is at most this
# many bytes: the element limits count items, and `np.zeros(3, dtype='V1000000000')` is 3 GB in three
# of them. (Numbers are at most 16 bytes; a 'U16384' string item is 64 KiB.)
MAX_ITEM_BYTES = 1 << 16
_SIZED_CODE = re.compile(r"[<>=|]?[A-Za-z]\d{4,}")  # the dtype strings that can name a big item

_PLAIN = frozenset((int, float, bool, complex, str, bytes, type(None), slice, type(Ellipsis), range))
_PLAIN_TYPES = frozenset((int, float, bool, complex, str, bytes))
_engine_ok = {}


def _engine_value(t):
    ok = _engine_ok.get(t)
    if ok is None:
        from ..engine.tensor import Tensor
        from .pyops import BigRange
        ok = _engine_ok[t] = issubclass(t, (Tensor, BigRange))
    return ok


def object_error():
    return TypeError("arrays of Python objects (dtype=object) are not available in GradScript")


def item_bytes(spec) -> int:
    """The size of one item of the dtype ``spec`` names (0 when it names none)."""
    if isinstance(spec, np.dtype):
        return spec.itemsize
    import warnings  # noqa: PLC0415 - only for a spec that may name a big item
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy 2's deprecated aliases ('a5')
            return np.dtype(spec).itemsize
    except Exception:  # noqa: BLE001 - not a dtype: NumPy's own call says what it is
        return 0


def check_item(spec) -> None:
    size = item_bytes(spec)
    if size > MAX_ITEM_BYTES:
        raise LimitError("MemoryError", f"a NumPy dtype of {size} bytes per item exceeds the limit of "
                                        f"{MAX_ITEM_BYTES} bytes (GradScript limit)")


def check_plain(value, what):
    """Raises TypeError unless ``value`` (walked through lists and tuples) is plain data, and the
    MemoryError of the limit on one item's size for a dtype it names."""
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t in _PLAIN:
            if t is str and len(v) > 4 and _SIZED_CODE.fullmatch(v):
                check_item(v)
            continue
        if t is list or t is tuple:
            if t is tuple and len(v) == 2 and isinstance(v[1], (int, tuple)) and isinstance(v[0], (str, np.dtype, type)):
                check_item(v)  # a sub-array dtype: ('f8', (10**4, 10**4)) is 800 MB an item
            elif t is list and v and type(v[0]) is tuple and len(v[0]) in (2, 3) and isinstance(v[0][0], str):
                check_item(v)  # a structured dtype: [('a', 'f8', (10**3, 10**3))] is 8 MB an item, and
                # [('a', 'U16384'), ('b', 'U16384'), ...] many fields each under the limit
            stack.extend(v)
            continue
        if isinstance(v, np.ndarray):
            if v.dtype.hasobject:
                raise object_error()
            continue
        if isinstance(v, np.generic):
            if isinstance(v, np.void) or isinstance(v, np.object_):
                raise object_error()
            continue
        if isinstance(v, np.dtype):
            if v.hasobject:
                raise object_error()
            check_item(v)
            continue
        if isinstance(v, type) and (v in _PLAIN_TYPES or (issubclass(v, np.generic) and v is not np.object_)):
            continue
        if _engine_value(t):
            continue
        raise TypeError(f"{what} got a '{t.__name__}' object: NumPy functions take numbers, strings, lists, "
                        "tuples, arrays and tensors in GradScript")


def check_result(result):
    if isinstance(result, np.ndarray):
        if result.dtype.hasobject:
            raise object_error()
    elif isinstance(result, (tuple, list)):
        for r in result:
            if isinstance(r, np.ndarray) and r.dtype.hasobject:
                raise object_error()
    elif isinstance(result, np.dtype) and result.hasobject:
        raise object_error()
    return result


def guarded(fn, name=None):
    """``fn`` (a NumPy function or bound array method) with its arguments and result checked."""
    what = f"numpy.{name or getattr(fn, '__name__', 'function')}()"

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if args:
            check_plain(args, what)
        if kwargs:
            check_plain(tuple(kwargs.values()), what)
        return check_result(fn(*args, **kwargs))
    return user_raiser(call)
