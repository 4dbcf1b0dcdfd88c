"""Random numbers against real PyTorch 2.13 where it is installed (skipped otherwise): hypothesis
draws seeds, sizes, dtypes, layouts and call sequences; gradcli must give torch's bytes, and the
same generator state bytes afterwards. Runs under this machine's capability (both detect it the
same way and honour ATEN_CPU_CAPABILITY)."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gradcli.engine import api as G  # noqa: E402

if not torch.__version__.startswith("2.13."):
    pytest.skip(f"the oracle is torch 2.13, this is {torch.__version__}", allow_module_level=True)

DTYPES = ("float32", "float64", "float16")


def _draw(T, op, n, dtype, layout, a, b):
    d = getattr(T, dtype)
    if layout == "contig":
        x = T.zeros(n, dtype=d)
    elif layout == "transposed":
        x = T.zeros(2, n, dtype=d).t()
    else:
        x = T.zeros(2, n, dtype=d)[:, ::2]
    lo, hi = min(a, b), max(a, b) + 0.5
    if op == "randn":
        return T.randn(n, dtype=d)
    if op == "rand":
        return T.rand(n, dtype=d)
    if op == "normal_":
        return x.normal_(a, abs(b))
    if op == "uniform_":
        return x.uniform_(lo, hi)
    if op == "randint":
        return T.randint(int(lo * 1000) - 1, int(hi * 1000) + 1, (n,))
    if op == "randperm":
        return T.randperm(n)
    if op == "bernoulli":
        return T.bernoulli(T.rand(n, dtype=d))
    if op == "dropout":
        return T.nn.functional.dropout(T.ones(n, dtype=d), min(abs(a), 0.9))
    if op == "exponential_":
        return x.exponential_(abs(b) + 0.1)
    if op == "linear":
        return T.nn.Linear(max(n, 1), 3).weight.detach()
    raise AssertionError(op)


OPS = ("randn", "rand", "normal_", "uniform_", "randint", "randperm", "bernoulli", "dropout", "exponential_",
       "linear")
STEP = st.tuples(st.sampled_from(OPS), st.integers(0, 70), st.sampled_from(DTYPES),
                 st.sampled_from(("contig", "transposed", "strided")),
                 st.floats(-3, 3, allow_nan=False), st.floats(-3, 3, allow_nan=False))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(-(1 << 63), (1 << 64) - 1), steps=st.lists(STEP, min_size=1, max_size=5))
def test_sequences_match_torch(seed, steps):
    torch.manual_seed(seed)
    G.manual_seed(seed)
    for step in steps:
        want = _draw(torch, *step).contiguous().numpy().tobytes()
        got = _draw(G, *step).contiguous().numpy().tobytes()
        assert got == want, step
    assert G.get_rng_state().numpy().tobytes() == torch.get_rng_state().numpy().tobytes()
