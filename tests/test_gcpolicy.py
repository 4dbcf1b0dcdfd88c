"""gcpolicy.paused: a block that made many objects hands them to the oldest (or, in a process that
froze its start-up, the permanent) generation on the way out, so no young collection walks them.
Each check runs in a fresh interpreter: freezing changes the whole process's collector."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import gc, sys
from gradcli import gcpolicy

class Box:
    pass

if sys.argv[1] == "frozen":
    early = Box()
    gc.freeze()
    frozen = gc.get_freeze_count()
with gcpolicy.paused():
    small = [Box() for _ in range(100)]
print("small young", any(o is small[0] for o in gc.get_objects(0)))
with gcpolicy.paused():
    big = [Box() for _ in range(3 * gcpolicy.PROMOTE_AFTER)]
    a, b = Box(), Box()
    a.other, b.other = b, a  # cyclic garbage made in the block
print("count", gc.get_count()[0] < 100)
if sys.argv[1] == "frozen":
    print("joined", gc.get_freeze_count() - frozen >= 3 * gcpolicy.PROMOTE_AFTER)
    print("early", not any(o is early for o in gc.get_objects()))
else:
    print("oldest", any(o is big[0] for o in gc.get_objects(2)), gc.get_freeze_count())
    del a, b
    print("collected", gc.collect() >= 2)
print("enabled", gc.isenabled())
"""


def probe(mode: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


def test_a_large_paused_block_goes_to_the_oldest_generation_and_stays_collectable():
    assert probe("plain") == ["small young True", "count True", "oldest True 0", "collected True",
                              "enabled True"]


def test_in_a_frozen_process_the_block_joins_the_permanent_generation_and_nothing_thaws():
    assert probe("frozen") == ["small young True", "count True", "joined True", "early True", "enabled True"]
