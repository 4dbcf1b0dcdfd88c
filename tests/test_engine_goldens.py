"""gradcli's engine must observe what PyTorch 2.13 observes, case by case.

The cases live in tests/engine_cases.py; tests/golden/engine_cases.json holds what real torch
returned for each (made by tools/gen_engine_goldens.py). No torch is needed here. Strings
(reprs, dtypes, grad_fn names, error texts) must match exactly; floats within a small
relative tolerance (NumPy and ATen may round the last bit differently).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import engine_cases
from gradcli.engine import api as engine_torch

GOLDEN = Path(__file__).parent / "golden" / "engine_cases.json"
_GOLDEN = json.loads(GOLDEN.read_text())["cases"]
_CASES = engine_cases.all_cases()

REL, ABS = 2e-4, 1e-5


def _diff(want, got, path="obs"):
    """The first difference between two normalised observations, as text (None when equal)."""
    if isinstance(want, float) or (isinstance(want, int) and not isinstance(want, bool) and isinstance(got, float)):
        if isinstance(got, (int, float)) and not isinstance(got, bool):
            if math.isclose(want, got, rel_tol=REL, abs_tol=ABS):
                return None
        return f"{path}: expected {want!r}, got {got!r}"
    if isinstance(want, list):
        if not isinstance(got, list):
            return f"{path}: expected a list {want!r}, got {got!r}"
        if len(want) != len(got):
            return f"{path}: expected {len(want)} items, got {len(got)}\n  expected {want!r}\n  got      {got!r}"
        for i, (w, g) in enumerate(zip(want, got)):
            d = _diff(w, g, f"{path}[{i}]")
            if d:
                return d
        return None
    if type(want) is not type(got) or want != got:
        return f"{path}:\n  expected {want!r}\n  got      {got!r}"
    return None


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
