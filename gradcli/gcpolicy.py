"""The garbage collector's policy, in one place (start-up time and the engine's speed).

- :func:`collect_less_often`: the engine raises the first generation's threshold when it is
  imported. Every recorded op leaves two long-lived tracked objects (its node and its edge tuple),
  so with the interpreter's threshold (700 allocations; 2,000 from Python 3.13) a long graph sets
  off a full collection, a walk of the whole graph, again and again: 1.0 of 3.4 CPU seconds in the
  1,000,000-op chain (11 full collections; 2 at 10,000). Cyclic garbage then waits for 10,000
  allocations instead of 700; a program's own setting stays.
- :func:`pause` / :func:`resume`: a command's start (cli/entry.py) runs with the collector off:
  the imports (NumPy's, the engine's, the language's) and the parse tables allocate many objects
  that all live on, so the collections they trigger (a full one among them) find nothing to free
  and cost ~10 ms of every start. resume() turns it back on (once) before any script or
  calculation runs.
- :class:`paused`: a block that only makes long-lived objects (a parse, a compile, the imports
  of a run's child) runs with the collector off, then as it was; many objects made in it go
  straight to the oldest generation (never walked by the young collections).
- :func:`freeze`: before a fork, the objects made so far go to the permanent generation: the
  child's collector never walks them, so never writes (and copies) their pages.

Importing this module changes nothing.
"""
from __future__ import annotations

import gc

GEN0_THRESHOLD = 10_000
_DEFAULT_GEN0 = (700, 2000)


def collect_less_often() -> None:
    """The engine's threshold, unless the program set its own."""
    gen0, *older = gc.get_threshold()
    if gen0 in _DEFAULT_GEN0:
        gc.set_threshold(GEN0_THRESHOLD, *older)


_PAUSED: list = []


def pause() -> None:
    """The collector off until resume() (a command's start)."""
    _PAUSED.append(gc.isenabled())
    gc.disable()


def resume() -> None:
    """The collector back on (once), as it was when pause() was called."""
    if _PAUSED and _PAUSED.pop():
        gc.enable()


# A paused block that made more tracked objects than this: they skip the young generations.
PROMOTE_AFTER = 5 * GEN0_THRESHOLD


class paused:  # noqa: N801 - used as a function: `with paused():`
    """`with paused():` the block runs with the collector off, which is then as it was.

    A block that made many objects (a large script's parse or compile: ~260,000 nodes, then
    the closures, for 10,000 lines) moves them out of the young generations on the way out, in O(1):
    the young collections would otherwise walk them all, once in the first generation at the
    next allocation and again in the second, and find nothing to free. Freezing and unfreezing
    moves every tracked object to the oldest generation. In a process that froze its start-up
    (load_language, a fork's parent: freeze()) unfreezing would give those back to the
    collections, so the block's objects join them in the permanent generation instead (they
    live as long as the run; acyclic ones are still freed when dropped)."""

    __slots__ = ("enabled",)

    def __enter__(self):
        self.enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc):
        if gc.get_count()[0] > PROMOTE_AFTER:
            kept = gc.get_freeze_count()
            gc.freeze()
            if not kept:
                gc.unfreeze()
        if self.enabled:
            gc.enable()


def freeze() -> None:
    """Before a fork: every object so far into the permanent generation (see the module's text)."""
    gc.freeze()
