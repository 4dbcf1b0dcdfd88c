"""``import random``: Python's own random module for scripts (d2l's ``random.shuffle(indices)``,
the dynamic net's ``random.randint(0, 3)``), as a facade over one ``random.Random`` of the
session, so the numbers after ``random.seed(n)`` are Python's. Only the drawing functions are
there: no ``Random``/``SystemRandom`` classes, no state objects; the sizes a call may build
(``choices``/``sample``'s k, ``getrandbits``, ``randbytes``) are limited like every other
sequence and integer of a script."""
from __future__ import annotations

import random as _random

from .pyops import MAX_INT_BITS
from .pyvalues import Namespace
from .strguard import MAX_SEQUENCE
from .random311 import Random
from .runtime import LimitError, user_raiser

# the module's functions that are methods of its hidden Random instance, taken from a session's own
_METHODS = ("seed", "random", "uniform", "triangular", "randint", "randrange", "choice", "shuffle", "gauss",
            "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate", "betavariate",
            "paretovariate", "weibullvariate")
_CONSTANTS = ("BPF", "LOG4", "NV_MAGICCONST", "RECIP_BPF", "SG_MAGICCONST", "TWOPI")


def _check_count(k, limit, what):
    if isinstance(k, int) and k > limit:
        raise LimitError("MemoryError", f"{what} of {k} exceeds the limit of {limit} (GradScript limit)")


def random_module():
    rng = Random()  # (Python 3.11's methods, on 3.10 and 3.12+ too)
    members = {name: getattr(rng, name) for name in _METHODS}
    members.update({name: getattr(_random, name) for name in _CONSTANTS})

    def sample(*args, **kwargs):
        _check_count(kwargs.get("k", args[1] if len(args) > 1 else None), MAX_SEQUENCE, "a sample")
        return rng.sample(*args, **kwargs)

    def choices(*args, **kwargs):
        _check_count(kwargs.get("k"), MAX_SEQUENCE, "a list of choices")
        return rng.choices(*args, **kwargs)

    def getrandbits(*args, **kwargs):
        _check_count(args[0] if args else None, MAX_INT_BITS, "an integer of bits")
        return rng.getrandbits(*args, **kwargs)

    def randbytes(*args, **kwargs):
        _check_count(args[0] if args else kwargs.get("n"), MAX_SEQUENCE, "a bytes object")
        return rng.randbytes(*args, **kwargs)

    # the method itself raises (with Python's words) on bad arguments: the script's error
    for fn in (sample, choices, getrandbits, randbytes):
        members[fn.__name__] = user_raiser(fn)
    return {"random": Namespace("random", members)}


__all__ = ["random_module"]
