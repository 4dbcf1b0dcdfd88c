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


@pytest.mark.parametrize("index", range(len(GOLDEN["states"])))
def test_state_saved_by_torch_loads(index):
    """Bytes from torch.get_rng_state() load into gradcli, give torch's next draws, and gradcli's
    own state bytes afterwards are torch's, byte for byte (cached normal, left/next, the 624 words)."""
    rng_math.set_capability(GOLDEN["base"])
    try:
        item = GOLDEN["states"][index]
        state = engine_torch.tensor(list(bytes.fromhex(item["state"])), dtype=engine_torch.uint8)
        engine_torch.set_rng_state(state)
        assert engine_torch.get_rng_state().numpy().tobytes() == bytes.fromhex(item["state"])
        assert random_cases.observe(engine_torch, random_cases.state_draws(engine_torch)) == item["draws"]
        assert engine_torch.get_rng_state().numpy().tobytes().hex() == item["after"]
    finally:
        rng_math.set_capability(None)


def test_state_errors():
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        engine_torch.set_rng_state(engine_torch.zeros(5056))
    with pytest.raises(RuntimeError, match="of size 5056 but found the input RNG state size to be 10"):
        engine_torch.set_rng_state(engine_torch.zeros(10, dtype=engine_torch.uint8))
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        engine_torch.set_rng_state(engine_torch.zeros(5056, dtype=engine_torch.uint8))


def test_generator_seed_range():
    g = engine_torch.Generator()
    assert g.initial_seed() == 67280421310721
    assert g.manual_seed(-1).initial_seed() == (1 << 64) - 1
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        g.manual_seed(1 << 64)
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
        g.manual_seed(1.5)
    assert engine_torch.manual_seed(1.5).initial_seed() == 1  # torch.manual_seed takes int(seed) first


def test_unseeded_start_is_random():
    """Without a seed the default stream starts from 64 random bits, as torch's does."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415
    code = "from gradcli.engine import api as t; print(t.initial_seed(), t.randn(2).tolist())"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).parent.parent).stdout for _ in range(2)}
    assert len(runs) == 2


def test_cuda_stream_is_its_own_and_reproducible():
    """device='cuda' draws come from the CUDA default generator (MT19937 on the host, copied: not
    torch's Philox); CPU draws never depend on them."""
    import cupy_sim  # noqa: PLC0415 - the CPU stand-in for CuPy
    from gradcli.engine import device as D  # noqa: PLC0415
    undo = cupy_sim.install(D)
    try:
        engine_torch.manual_seed(5)
        a = engine_torch.randn(20).numpy().tobytes()
        engine_torch.manual_seed(5)
        c1 = engine_torch.randn(20, device="cuda")
        w1 = engine_torch.nn.Linear(3, 2, device="cuda").weight
        assert engine_torch.randn(20).numpy().tobytes() == a
        engine_torch.manual_seed(5)
        engine_torch.randn(7)
        c2 = engine_torch.randn(20, device="cuda")
        w2 = engine_torch.nn.Linear(3, 2, device="cuda").weight
        assert c1.device.type == "cuda"
        assert c1.cpu().numpy().tobytes() == c2.cpu().numpy().tobytes()
        assert w1.detach().cpu().numpy().tobytes() == w2.detach().cpu().numpy().tobytes()
        engine_torch.cuda.manual_seed(11)
        assert engine_torch.cuda.initial_seed() == 11 and engine_torch.initial_seed() == 5
    finally:
        undo()
