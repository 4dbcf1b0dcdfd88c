"""gradcli's random numbers are PyTorch's, bit for bit, under every CPU capability.

tests/random_cases.py holds the cases; tests/golden/random_cases.json what torch 2.13 drew for
each under ATEN_CPU_CAPABILITY=default/avx2/avx512 (tools/gen_random_goldens.py). Each case runs
here under the engine's matching capability (rng_math.set_capability: the arithmetic is
emulated, so every path runs on any machine) and must give the same bytes, state included."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import random_cases
from gradcli.engine import api as engine_torch
from gradcli.engine import rng_math

GOLDEN = json.loads((Path(__file__).parent / "golden" / "random_cases.json").read_text())
_CASES = random_cases.all_cases()


def _want(cap, name):
    return GOLDEN["differ"].get(cap, {}).get(name, GOLDEN["cases"][name])


@pytest.fixture
def capability(request):
    rng_math.set_capability(request.param)
    yield request.param
    rng_math.set_capability(None)


def test_every_case_has_a_golden():
    assert sorted(_CASES) == sorted(GOLDEN["cases"]), "run tools/gen_random_goldens.py"


def test_capabilities_recorded():
    assert GOLDEN["capabilities"][0] == "default" and len(GOLDEN["capabilities"]) >= 2
    # the float32 Box-Muller of 16-element blocks really differs between the default and the FMA builds
    assert "randn_float32_16" in GOLDEN["differ"]["default"]


@pytest.mark.parametrize("capability", GOLDEN["capabilities"], indirect=True)
@pytest.mark.parametrize("name", list(_CASES))
def test_case(name, capability):
    tolerant = name in random_cases.TOLERANT
    got = random_cases.run_case(engine_torch, _CASES[name], tolerant)
    want = _want(capability, name)
    for i, (w, g) in enumerate(zip(want, got)):
        if tolerant and w[0] == "torch.float32":
            assert g[:2] == w[:2]
            np.testing.assert_allclose(np.frombuffer(bytes.fromhex(g[3]), np.float32),
                                       np.frombuffer(bytes.fromhex(w[3]), np.float32), rtol=1e-5, atol=1e-6)
            continue
        assert g == w, f"{name} under {capability}: value {i} differs: want {w}, got {g}"
    assert len(got) == len(want)
