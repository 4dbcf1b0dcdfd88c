"""A run's options and the size limit of a script: what a command reads before the engine and the
language load (`gradcli run` and `grad` fork their child first; the child imports them:
load_language)."""
from __future__ import annotations

from .. import gcpolicy
from ..records import record

# The largest script (characters) the parser is given: tutorial scripts are a few KB, and parsing
# runs at about 100,000 characters a second (memory about 50 bytes a character), uninterruptibly.
MAX_SOURCE_CHARS = 2_000_000


@record  # a dataclass, made for less start-up time (gradcli/records.py)
class RunOptions:
    dtype: str = "float32"            # default float dtype
    device: str = "cpu"               # default device for constructors
    seed: int | None = None           # torch.manual_seed before the run
    max_steps: int = 10_000_000       # loop iterations + calls
    max_elements: int = 100_000_000   # per tensor
    max_depth: int = 200              # call depth (RecursionError text)
    timeout: float | None = None      # wall-clock seconds
    explain: bool = False             # chain-rule walkthrough of every backward pass (gradcli.graph.explain)
    check: bool = False               # finite-difference check of every backward pass (gradcli.graph.check)
    detect_anomaly: bool = False      # torch.autograd.set_detect_anomaly(True) for the whole run


def load_language() -> None:
    """Import the engine and the language, and load the parse tables (building and caching them
    when they are not cached yet), with the collector paused. The child of `gradcli run` or `grad`
    calls it before it is walled in (it may write the tables' cache then, and its imports do not
    count in --timeout): the command forks first, so that the child makes these imports itself; a
    child forked after them wrote (and so copied) pages of the parent's all over the imported
    objects (refcounts) while it ran. `run` with several inputs calls it once in the parent, before
    the first fork; a command without the wall, in its own process. What it made goes to the
    permanent generation (gcpolicy.freeze): imported with the collector paused, it would all be
    young, and the script's first collection would walk all of it (tens of milliseconds)."""
    with gcpolicy.paused():
        from ..engine import api  # noqa: PLC0415,F401
        from . import runner  # noqa: PLC0415,F401
        from .parser import prepare  # noqa: PLC0415

        prepare()
    gcpolicy.freeze()
