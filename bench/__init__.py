"""gradcli's benchmark suite (issue 9): gradcli against PyTorch and a hand-written NumPy floor.

Run it from the repository root:

    python -m bench                 # the full suite (about 5-10 minutes on 2 cores)
    python -m bench --quick         # every case, briefly (a smoke run; never read its numbers)
    python -m bench --json out.json # also write the measurements as data
    python -m bench --cases 2,3     # a subset

The contenders of a case are alternated within one run (each repeat runs every contender once,
in a rotating order), the table reports medians, and the ratios are gradcli / torch and
gradcli / numpy measured side by side. See docs/benchmarks.md.
"""
