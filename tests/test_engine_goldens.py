"""gradcli's engine must observe what PyTorch 2.13 observes, case by case.

The cases live in tests/engine_cases.py; tests/golden/engine_cases.json holds what real torch
returned for each (made by tools/gen_engine_goldens.py). No torch is needed here. Strings
(reprs, dtypes, grad_fn names, error texts) must match exactly; floats within a small
relative tolerance (NumPy and ATen may round the last bit differently).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine_cases
from case_support import first_difference
from gradcli.engine import api as engine_torch

GOLDEN = Path(__file__).parent / "golden" / "engine_cases.json"
_GOLDEN = json.loads(GOLDEN.read_text())["cases"]
_CASES = engine_cases.all_cases()

REL, ABS = 2e-4, 1e-5


def _diff(want, got):
    """The first difference between two normalised observations, as text (None when equal)."""
    return first_difference(want, got, REL, ABS)




def test_every_case_has_a_golden():
    missing = sorted(set(_CASES) - set(_GOLDEN))
    stale = sorted(set(_GOLDEN) - set(_CASES))
    assert not missing, f"cases without goldens (run tools/gen_engine_goldens.py): {missing}"
    assert not stale, f"goldens without cases (run tools/gen_engine_goldens.py): {stale}"


@pytest.mark.parametrize("name", list(_CASES))
def test_case(name):
    if name not in _GOLDEN:
        pytest.skip("no golden yet: run tools/gen_engine_goldens.py")
    got = engine_cases.run_case(engine_torch, _CASES[name])
    d = _diff(_GOLDEN[name], got)
    assert d is None, d
