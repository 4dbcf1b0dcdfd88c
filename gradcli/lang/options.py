"""A run's options and the size limit of a script: what a command reads before the engine and the
language load (`gradcli run` forks its run's child first; the child imports them)."""
from __future__ import annotations

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
