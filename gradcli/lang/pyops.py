"""Python's operators, unpacking and ranges in the sandbox: the operators whose result may grow
without bound (int ``**``, ``<<``, ``*`` and ``+`` of sequences) refuse it before it is computed
(integer and sequence sizes, the ``MAX_*`` limits), unpacking gives CPython's texts, and a long
``range`` iterates through a step-counted wrapper (``BigRange``)."""
from __future__ import annotations

import collections
import math
import operator
from collections.abc import Sequence

from .runtime import LimitError, user_raiser
from .strguard import extend_checked, g_mod, size_check

MAX_INT_BITS = 100_000          # a Python int result larger than this is refused before it is computed
BIG_RANGE = 100_000             # ranges longer than this iterate through a step-counted wrapper


# ----------------------------------------------------------------------------- guarded operators

_SEQS = frozenset((str, list, tuple, bytes, collections.deque))


def _int_too_big():
    return LimitError("OverflowError", f"integer result would have more than {MAX_INT_BITS} bits (GradScript limit)")


def _check_pow(a, b):
    if b > 0 and (a > 1 or a < -1) and (b > MAX_INT_BITS or b * math.log2(abs(a)) > MAX_INT_BITS):
        raise _int_too_big()


def check_mul(a, b):
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if a.bit_length() + b.bit_length() > MAX_INT_BITS:
            raise _int_too_big()
    elif ta in _SEQS and (tb is int or tb is bool):
        size_check(len(a) * b)
    elif tb in _SEQS and (ta is int or ta is bool):
        size_check(len(b) * a)


INT_NEAR_LIMIT = 1 << (MAX_INT_BITS - 1)


def check_add(a, b):
    ta = type(a)
    if ta in _SEQS and type(b) is ta:
        size_check(len(a) + len(b))
    elif ta is int and type(b) is int and max(a.bit_length(), b.bit_length()) >= MAX_INT_BITS:
        raise _int_too_big()


def _check_lshift(a, b):
    if type(a) is int and type(b) is int and a and b > 0 and a.bit_length() + b > MAX_INT_BITS:
        raise _int_too_big()


@user_raiser
def g_add(a, b):
    ta = type(a)
    if ta in _SEQS or (ta is int and (a > INT_NEAR_LIMIT or a < -INT_NEAR_LIMIT)):
        check_add(a, b)
    return a + b


@user_raiser
def g_mul(a, b):
    if type(a) in _GUARD_MUL or type(b) in _GUARD_MUL:
        check_mul(a, b)
    return a * b


_GUARD_MUL = frozenset((int, str, list, tuple, bytes, collections.deque))


@user_raiser
def g_pow(a, b):
    if type(a) is int and type(b) is int:
        _check_pow(a, b)
    return a ** b


@user_raiser
def g_lshift(a, b):
    _check_lshift(a, b)
    return a << b


@user_raiser
def g_iadd(a, b):
    if type(a) is int and (a > INT_NEAR_LIMIT or a < -INT_NEAR_LIMIT):
        check_add(a, b)
    if type(a) in _SEQS:
        check_add(a, b)
        if type(a) is list and type(b) is not list:  # l += iter(l) never ended: l.extend's check
            extend_checked(a, b)
            return a
    return operator.iadd(a, b)


@user_raiser
def g_imul(a, b):
    if type(a) in _GUARD_MUL or type(b) in _GUARD_MUL:
        check_mul(a, b)
    return operator.imul(a, b)


@user_raiser
def g_ipow(a, b):
    if type(a) is int and type(b) is int:
        _check_pow(a, b)
    return operator.ipow(a, b)


@user_raiser
def g_ilshift(a, b):
    _check_lshift(a, b)
    return operator.ilshift(a, b)


@user_raiser
def g_pow3(base, exp, mod=None):
    if mod is None:
        if type(base) is int and type(exp) is int:
            _check_pow(base, exp)
    elif isinstance(base, int) and isinstance(exp, int) and isinstance(mod, int):
        _check_pow_mod(exp, mod)
    return pow(base, exp, mod)


# pow(a, b, m) squares and multiplies modulo m once or twice per bit of b, each a product of m-sized
# numbers (Karatsuba: about (limbs of m) ** 1.585 limb operations): the work this allows takes about a
# second (4096-bit RSA, an exponent and a modulus of 4096 bits, is a third of it); a 20,000-bit one took
# a minute and a 100,000-bit one about an hour, in one C call that only --timeout's kill ended
MAX_POW_MOD_WORK = 1 << 25


def _check_pow_mod(exp, mod):
    limbs = mod.bit_length() // 30 + 1
    if limbs > 8 and exp.bit_length() * limbs ** 1.585 > MAX_POW_MOD_WORK:
        raise LimitError("OverflowError", f"pow() with a {exp.bit_length()}-bit exponent modulo a "
                         f"{mod.bit_length()}-bit number exceeds GradScript's limit on the work of one "
                         "integer operation")


def check_int_result(value):
    """An int made by a builtin from a string or bytes (int(s, 16), int.from_bytes), refused past the
    integer limit as the operators refuse theirs: a C call on it (math.gcd, a division, math.isqrt)
    ran for minutes."""
    if type(value) is int and value.bit_length() > MAX_INT_BITS:
        raise _int_too_big()
    return value


@user_raiser
def checked_int(*args, **kwargs):
    """``int(...)`` for a script called with a base (the call sites and map/starmap/accumulate swap
    it in for ``int``): Python's own conversion and errors, its result held to the integer limit.
    Python limits only the decimal-like bases (4300 digits); a base 16 string of 2,000,000 digits,
    8,000,000 bits, was one fast C call."""
    return check_int_result(int(*args, **kwargs))


class IntChecked:
    """``int.from_bytes`` as a script reads it (from the class or an int): Python's method, its
    result held to the integer limit (10 MB of bytes made an 80,000,000-bit int)."""

    __slots__ = ("raw",)

    def __init__(self, raw):
        self.raw = raw

    def __call__(self, *args, **kwargs):
        return check_int_result(self.raw(*args, **kwargs))

    def __repr__(self):
        return repr(self.raw)


user_raiser(IntChecked.__call__)


def int_checked_callable(func):
    """What C code that calls ``func`` for a script (map, itertools.starmap, accumulate) should call."""
    return checked_int if func is int else func


def g_imod(a, b):
    """``a %= b``: a string format (its widths checked), else Python's in-place protocol (a tensor's
    remainder_: its dtype kept, torch's cast error)."""
    return g_mod(a, b) if type(a) is str or type(a) is bytes else operator.imod(a, b)


BINOPS = {
    "+": g_add, "-": operator.sub, "*": g_mul, "/": operator.truediv, "//": operator.floordiv,
    "%": g_mod, "**": g_pow, "@": operator.matmul, "<<": g_lshift, ">>": operator.rshift,
    "|": operator.or_, "^": operator.xor, "&": operator.and_,
}
INPLACE_OPS = {
    "+": g_iadd, "-": operator.isub, "*": g_imul, "/": operator.itruediv, "//": operator.ifloordiv,
    "%": g_imod, "**": g_ipow, "@": operator.imatmul, "<<": g_ilshift, ">>": operator.irshift,
    "|": operator.ior, "^": operator.ixor, "&": operator.iand,
}
UNARYOPS = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_}


# ----------------------------------------------------------------------------- unpacking

@user_raiser
def unpack(value, n, star=None):
    """Python's unpacking of ``value`` into n targets (``star``: index of a *target)."""
    t = type(value)
    if star is None and (t is tuple or t is list) and len(value) == n:
        return value
    if not (hasattr(t, "__iter__") or hasattr(t, "__getitem__")):
        raise TypeError(f"cannot unpack non-iterable {t.__name__} object")
    it = iter(value)
    if star is None:
        items = []
        for item in it:
            if len(items) == n:
                raise ValueError(f"too many values to unpack (expected {n})")
            items.append(item)
        if len(items) < n:
            raise ValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
        return items
    items = list(it)
    need = n - 1
    if len(items) < need:
        raise ValueError(f"not enough values to unpack (expected at least {need}, got {len(items)})")
    after = need - star
    tail = items[len(items) - after:] if after else []
    return items[:star] + [items[star:len(items) - after]] + tail


# ----------------------------------------------------------------------------- ranges

class BigRange:
    """A long range whose iteration counts steps (so C-level consumers stay bounded)."""

    __slots__ = ("r", "rt")

    def __init__(self, r, rt):
        self.r = r
        self.rt = rt

    def __iter__(self):
        rt = self.rt
        for i in self.r:
            rt.budget -= 1
            if rt.budget < 0:
                rt.refill()
            yield i

    def __reversed__(self):
        return BigRange(self.r[::-1], self.rt).__iter__()

    def __len__(self):
        return len(self.r)

    def __getitem__(self, item):
        v = self.r[item]
        return BigRange(v, self.rt) if isinstance(v, range) else v

    def __contains__(self, item):
        return item in self.r

    def __eq__(self, other):
        return self.r == (other.r if isinstance(other, BigRange) else other)

    def __hash__(self):
        return hash(self.r)

    def __repr__(self):
        return repr(self.r)

    @property
    def start(self):
        return self.r.start

    @property
    def stop(self):
        return self.r.stop

    @property
    def step(self):
        return self.r.step

    def index(self, value):
        return self.r.index(value)

    def count(self, value):
        return self.r.count(value)


# a range is a Sequence, which random.sample asks of its population (random.sample(range(10**9), 3))
Sequence.register(BigRange)


def make_range(rt):
    def range_(*args):
        r = range(*args)
        if len(r) > BIG_RANGE:
            return BigRange(r, rt)
        return r
    range_.__name__ = range_.__qualname__ = "range"
    return range_


def check_limit(n, limit, what="items"):
    if n > limit:
        raise LimitError("RuntimeError", f"{what} of {n} elements exceeds the limit of {limit} elements "
                         "(--max-elements)", hint="max_elements")
