"""torch.testing.assert_close (engine/testing.py) against torch's own on random tensors: which pairs pass, and the
exact message of those that do not (the golden testing_assert_close.grad holds the API's other forms)."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine


def _outcome(lib, actual, expected, **kw):
    try:
        lib.testing.assert_close(actual, expected, **kw)
    except (AssertionError, TypeError, ValueError) as e:
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("seed", range(40))
def test_random_pairs_match_torch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(0, 3)))
    dtype = ["float32", "float64", "int64", "float16"][seed % 4]
    base = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 3)
    noise = rng.standard_normal(shape) * 10.0 ** rng.integers(-7, 1) * (rng.random(shape) < 0.5)
    if dtype == "int64":
        base, noise = np.round(base * 100), np.round(noise * 1000)
    kw = {} if seed % 3 else {"rtol": float(10.0 ** -rng.integers(1, 7)), "atol": float(10.0 ** -rng.integers(1, 7))}
    outcomes = []
    for lib in (engine, torch):
        make = lambda a: lib.tensor(a.astype(dtype))  # noqa: E731
        outcomes.append(_outcome(lib, make(base + noise), make(base), **kw))
    assert outcomes[0] == outcomes[1]


def test_msg_callable_gets_the_message_and_construction_errors_ignore_msg():
    seen = []
    with pytest.raises(AssertionError, match="^wrapped$"):
        engine.testing.assert_close(engine.ones(2), engine.zeros(2), msg=lambda m: seen.append(m) or "wrapped")
    assert seen and seen[0].startswith("Tensor-likes are not close!")
    with pytest.raises(ValueError, match="got no atol"):
        engine.testing.assert_close(engine.ones(2), engine.zeros(2), rtol=0.1, msg="not this")
