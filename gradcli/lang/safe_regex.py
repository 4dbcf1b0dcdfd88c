"""A pattern of the script's (warnings.filterwarnings' message= and module=) matched as ``re.match``
answers whether it matches, in time linear in the text: Python's ``re`` backtracks, so ``(a+)+$``
against a long message would run for ever in C, where neither the step limit nor the timeout of the
run can stop it.

The pattern is compiled by Python's own ``re`` (its syntax, its errors, its flags) and parsed by
its own parser; the parse becomes a Thompson NFA whose states are run side by side over the text.
Each state that reads a character, and each zero-width assertion (``^ $ \\A \\Z \\b \\B``), is a
one-item pattern compiled by ``re`` itself and run at one position (``atom.match(text, i)``), so a
character class, a category, IGNORECASE and the inline flags behave exactly as in ``re``. What a
finite automaton cannot do is refused when the filter is made: backreferences, lookarounds,
conditional groups, atomic groups and possessive repeats. Each character read costs the run one
step (its --max-steps and --timeout hold).
"""
from __future__ import annotations

import re
try:  # CPython's own compiler and parser, for exactly re's semantics
    from re import _compiler as sre_compile
    from re import _parser as sre_parse
except ImportError:  # Python 3.10: the same modules under their old names
    import sre_compile
    import sre_parse

_READS = (sre_parse.LITERAL, sre_parse.NOT_LITERAL, sre_parse.ANY, sre_parse.IN)
_REPEATS = (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT)
MAX_STATES = 20_000  # an NFA past this (a{1000}{1000}) is refused: its states are built before matching
_CACHE_LIMIT = 50_000


class UnsupportedPattern(ValueError):
    """A pattern that needs backtracking (or more states than MAX_STATES)."""


class _State:
    __slots__ = ("kind", "atom", "next", "targets")

    def __init__(self, kind, atom=None, nxt=None, targets=None):
        self.kind, self.atom, self.next, self.targets = kind, atom, nxt, targets


class LinearPattern:
    """``re.compile(pattern, flags)`` whose ``match`` answers True/False in linear time."""

    def __init__(self, pattern, flags=0):
        self.compiled = re.compile(pattern, flags)  # re's own errors for a malformed pattern
        parsed = sre_parse.parse(pattern, flags)
        self._state = parsed.state
        self._flags = parsed.state.flags
        self._atoms = {}
        self._count = 0
        self._asserts = False
        self.accept = _State("accept")
        self.start = self._sequence(list(parsed), self.accept, ())
        self._cache = {}

    # ------------------------------------------------------------------ building
    def _add(self, *args, **kwargs):
        self._count += 1
        if self._count > MAX_STATES:
            raise UnsupportedPattern(f"the pattern needs more than {MAX_STATES:,} states")
        return _State(*args, **kwargs)

    def _atom(self, item, wraps):
        key = (repr(item), wraps)
        atom = self._atoms.get(key)
        if atom is None:
            sub = sre_parse.SubPattern(self._state, [item])
            for add, remove in wraps:  # the inline flags of the groups around it, innermost first
                sub = sre_parse.SubPattern(self._state, [(sre_parse.SUBPATTERN, (None, add, remove, sub))])
            atom = self._atoms[key] = sre_compile.compile(sub, self._flags)
        return atom

    def _sequence(self, items, nxt, wraps):
        for item in reversed(items):
            nxt = self._item(item, nxt, wraps)
        return nxt

    def _item(self, item, nxt, wraps):
        op, av = item
        if op in _READS:
            return self._add("read", self._atom(item, wraps), nxt)
        if op is sre_parse.AT:
            self._asserts = True
            return self._add("assert", self._atom(item, wraps), nxt)
        if op is sre_parse.BRANCH:
            return self._add("split", targets=[self._sequence(list(alt), nxt, wraps) for alt in av[1]])
        if op is sre_parse.SUBPATTERN:
            _, add, remove, sub = av
            inner = ((add, remove),) + wraps if add or remove else wraps
            return self._sequence(list(sub), nxt, inner)
        if op in _REPEATS:
            low, high, sub = av
            body = list(sub)
            if high == sre_parse.MAXREPEAT:
                loop = self._add("split", targets=[None, nxt])
                loop.targets[0] = self._sequence(body, loop, wraps)
                tail = loop
            else:
                tail = nxt
                for _ in range(high - low):
                    tail = self._add("split", targets=[self._sequence(body, tail, wraps), nxt])
            for _ in range(low):
                tail = self._sequence(body, tail, wraps)
            return tail
        raise UnsupportedPattern(f"{str(op).lower()} needs backtracking")

    # ------------------------------------------------------------------ matching
    def _closure(self, states, text, pos):
        seen, stack, reads, accept = set(), list(states), [], False
        while stack:
            s = stack.pop()
            if id(s) in seen:
                continue
            seen.add(id(s))
            kind = s.kind
            if kind == "read":
                reads.append(s)
            elif kind == "split":
                stack.extend(s.targets)
            elif kind == "assert":
                if s.atom.match(text, pos) is not None:
                    stack.append(s.next)
            else:
                accept = True
        return tuple(reads), accept

    def match(self, text, step=None):
        """Does ``re.match(pattern, text)`` find a match? ``step()`` is called once a character."""
        if not isinstance(text, str):
            self.compiled.match(text[:0] if isinstance(text, (bytes, bytearray)) else text)  # re's TypeError
            raise TypeError(f"expected string or bytes-like object, got '{type(text).__name__}'")
        reads, accept = self._closure((self.start,), text, 0)
        cache = None if self._asserts else self._cache
        for i, ch in enumerate(text):
            if accept:
                return True
            if not reads:
                return False
            if step is not None:
                step()
            key = (reads, ch)
            hit = cache.get(key) if cache is not None else None
            if hit is None:
                hit = self._closure([s.next for s in reads if s.atom.match(text, i) is not None], text, i + 1)
                if cache is not None:
                    if len(cache) > _CACHE_LIMIT:
                        cache.clear()
                    cache[key] = hit
            reads, accept = hit
        return accept


__all__ = ["LinearPattern", "UnsupportedPattern", "MAX_STATES"]
