"""torch.distributions (engine/distributions.py): log_prob, entropy, rsample and kl_divergence of Categorical,
Normal and Bernoulli checked against float64 central differences (gradcheck, gradgradcheck), and, where torch
is installed, their values, gradients and samples (after the same seed) against torch's; the script-level
goldens are tests/tutorial_corpus/docs_distributions_*.grad and examples_reinforce_policy.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from case_support import case_table_tests, refused_script

_RNG = np.random.default_rng(11)
LOGITS = _RNG.standard_normal((3, 4)).tolist()
PROBS = _RNG.uniform(0.1, 1.0, (3, 4)).tolist()
LOC = _RNG.standard_normal(5).tolist()
SCALE = _RNG.uniform(0.5, 2.0, 5).tolist()
X = _RNG.standard_normal(5).tolist()
P01 = _RNG.uniform(0.1, 0.9, 5).tolist()
BITS = [1.0, 0.0, 1.0, 1.0, 0.0]
IDX = [3, 0, 2]

# name -> (function of (torch module, *inputs) giving a tensor, the inputs that get gradients, the constants)
CASES = {
    "categorical_logits_log_prob": (lambda t, lg, i: t.distributions.Categorical(logits=lg).log_prob(i),
                                    [LOGITS], [IDX]),
    "categorical_probs_log_prob": (lambda t, p, i: t.distributions.Categorical(probs=p).log_prob(i), [PROBS], [IDX]),
    "categorical_entropy": (lambda t, lg: t.distributions.Categorical(logits=lg).entropy(), [LOGITS], []),
    "normal_log_prob": (lambda t, m, s, x: t.distributions.Normal(m, s).log_prob(x), [LOC, SCALE], [X]),
    "normal_entropy_cdf": (lambda t, m, s, x: t.distributions.Normal(m, s).entropy()
                           + t.distributions.Normal(m, s).cdf(x), [LOC, SCALE], [X]),
    "normal_kl": (lambda t, m, s: t.distributions.kl_divergence(t.distributions.Normal(m, s),
                                                                t.distributions.Normal(s, m.exp())), [LOC, SCALE], []),
    "bernoulli_log_prob": (lambda t, p, b: t.distributions.Bernoulli(probs=p).log_prob(b), [P01], [BITS]),
    "bernoulli_logits_entropy": (lambda t, lg: t.distributions.Bernoulli(logits=lg).entropy(), [LOC], []),
}


test_gradcheck, test_matches_torch = case_table_tests(CASES)


def test_samples_follow_torchs_stream():
    torch = pytest.importorskip("torch")
    drawn = []
    for lib in (engine_torch, torch):
        lib.manual_seed(5)
        d = lib.distributions
        c = d.Categorical(probs=lib.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))
        n = d.Normal(lib.tensor([0.0, 2.0]), lib.tensor([1.0, 0.1]))
        b = d.Bernoulli(probs=lib.tensor([0.3, 0.6, 0.9]))
        drawn.append((c.sample((6,)).tolist(), n.sample((3,)).tolist(), n.rsample().tolist(),
                      b.sample((2,)).tolist(), repr(c), repr(n), repr(d.Normal(0.0, 1.0))))
    assert drawn[0] == drawn[1]


def test_validation_messages_are_torchs():
    torch = pytest.importorskip("torch")
    bad = [lambda lib: lib.distributions.Normal(lib.tensor([0.0]), lib.tensor([0.0])),
           lambda lib: lib.distributions.Categorical(probs=lib.tensor([0.5, -0.5, 1.0])),
           lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([1.5])),
           lambda lib: lib.distributions.Categorical(logits=lib.tensor([0.0, 1.0])).log_prob(lib.tensor([2])),
           lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.5])).log_prob(lib.tensor([0.5])),
           lambda lib: lib.distributions.Categorical(),
           lambda lib: lib.distributions.Categorical(probs=lib.tensor(1.0))]
    for make in bad:
        messages = []
        for lib in (engine_torch, torch):
            with pytest.raises(ValueError) as info:
                make(lib)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


DOORS = [  # what a script hands torch.distributions: sample shapes are allocations, the parameters any object
    ("torch.distributions.Normal(torch.zeros(2), torch.ones(2)).sample((10**9, 10**9))", "RuntimeError",
     "--max-elements"),
    ("torch.distributions.Categorical(probs=torch.ones(3)).sample((10**12,))", "RuntimeError", "--max-elements"),
    ("torch.distributions.Bernoulli(probs=torch.ones(2)).rsample((10**5, 10**5))", None, None),
    ("torch.distributions.Normal('a', print)", "ValueError", None),
    ("torch.distributions.Categorical(logits=lambda: 1)", "AttributeError", None),
    ("torch.distributions.kl_divergence(torch.distributions.Normal(0., 1.), print)", "NotImplementedError", None),
]


@pytest.mark.parametrize("src, type_name, message", DOORS)
def test_script_objects_and_sizes_are_refused(src, type_name, message):
    """Huge sample shapes end in the allocation limit before anything is made; strings, builtins and lambdas as
    parameters end in torch's own error types, located in the script (never an internal error)."""
    refused_script("import torch\n", "<dist>", src + "\n", type_name, message)
