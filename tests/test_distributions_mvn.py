"""torch.distributions.MultivariateNormal (engine/distributions_mvn.py) by scale_tril, covariance_matrix and
precision_matrix: log_prob (batched Mahalanobis), entropy, rsample (reseeded at each evaluation), the lazy
matrices, checked against float64 central differences (gradcheck, gradgradcheck; the matrices built symmetric
inside the function, as a covariance is), and where torch is installed their values, grad_fn names, gradients,
samples after a seed, reprs and validation messages against torch's; the script-level golden is
tests/golden/scripts/distributions_mvn.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from case_support import case_table_tests, assert_same_value_error, refused_script

_RNG = np.random.default_rng(41)
LOC = _RNG.standard_normal(3).tolist()
BLOC = _RNG.standard_normal((2, 3)).tolist()
A = (_RNG.standard_normal((3, 3)) * 0.5).tolist()
BA = (_RNG.standard_normal((2, 3, 3)) * 0.5).tolist()
X = _RNG.standard_normal((4, 2, 3)).tolist()


def _spd(t, a):
    return a @ a.mT + t.eye(a.shape[-1], dtype=a.dtype)


def _tril(t, a):
    return a.tril(-1) + t.diag_embed(a.diagonal(dim1=-2, dim2=-1).exp())


def _reseeded(draw):
    def fn(t, *args):
        t.manual_seed(5)
        return draw(t, *args)
    return fn


CASES = {
    "cov_log_prob": (lambda t, m, a, x: t.distributions.MultivariateNormal(m, _spd(t, a)).log_prob(x),
                     [LOC, A], [X]),
    "batched_cov_log_prob": (lambda t, m, a, x: t.distributions.MultivariateNormal(m, _spd(t, a)).log_prob(x),
                             [BLOC, BA], [X]),
    "precision_log_prob": (lambda t, m, a, x: t.distributions.MultivariateNormal(
        m, precision_matrix=_spd(t, a)).log_prob(x), [LOC, BA], [X]),
    "scale_tril_log_prob_entropy": (lambda t, m, a, x: t.distributions.MultivariateNormal(
        m, scale_tril=_tril(t, a)).log_prob(x) + t.distributions.MultivariateNormal(
        m, scale_tril=_tril(t, a)).entropy(), [BLOC, BA], [X]),
    "rsample": (_reseeded(lambda t, m, a: t.distributions.MultivariateNormal(m, _spd(t, a)).rsample((2,))),
                [BLOC, A], []),
    "matrices": (lambda t, a: t.distributions.MultivariateNormal(t.zeros(3, dtype=a.dtype), _spd(t, a)).scale_tril
                 + t.distributions.MultivariateNormal(t.zeros(3, dtype=a.dtype), _spd(t, a)).precision_matrix
                 + t.distributions.MultivariateNormal(t.zeros(3, dtype=a.dtype),
                                                      precision_matrix=_spd(t, a)).covariance_matrix, [A], []),
    "variance": (lambda t, a: t.distributions.MultivariateNormal(t.zeros(3, dtype=a.dtype), _spd(t, a)).variance,
                 [BA], []),
}


test_gradcheck, test_matches_torch = case_table_tests(CASES)


def _draws(lib):
    lib.manual_seed(12)
    d = lib.distributions
    exact, factored = [], []
    for dtype in (lib.float32, lib.float64):
        cov = lib.tensor([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]], dtype=dtype)
        tril = lib.tensor([[1.5, 0.0, 0.0], [0.25, 1.0, 0.0], [-0.5, 0.125, 0.75]], dtype=dtype)
        for dist in (d.MultivariateNormal(lib.zeros(3, dtype=dtype), cov),
                     d.MultivariateNormal(lib.ones(2, 3, dtype=dtype), precision_matrix=cov),
                     d.MultivariateNormal(lib.zeros(1, 3, dtype=dtype), scale_tril=tril)):
            exact.append((repr(dist), tuple(dist.batch_shape), tuple(dist.event_shape), repr(dist.support)))
            drawn = (dist.sample().tolist(), dist.sample((7,)).tolist(), dist.rsample((2, 3)).tolist(),
                     dist.expand((4,) + tuple(dist.batch_shape)).sample().tolist())
            (factored if "scale_tril" not in dist.__dict__ else exact).append(drawn)
    return exact, factored


def test_samples_follow_torchs_stream():
    """Bit for bit where scale_tril is given; through a covariance or precision matrix the factor is
    OpenBLAS's potrf in gradcli, MKL's in torch (an ulp apart in most float32 matrices, docs/numerics.md),
    so those samples are compared to that factor's accuracy."""
    torch = pytest.importorskip("torch")
    (ours, ours_factored), (theirs, theirs_factored) = _draws(engine_torch), _draws(torch)
    assert ours == theirs
    for k, (a, b) in enumerate(zip(ours_factored, theirs_factored, strict=True)):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x, y, rtol=(1e-5 if k < 2 else 1e-13), atol=(1e-6 if k < 2 else 1e-14))


BAD = [lambda d, t: d.MultivariateNormal(t.zeros(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])),
       lambda d, t: d.MultivariateNormal(t.zeros(2), t.tensor([[1.0, 0.5], [0.0, 1.0]])),
       lambda d, t: d.MultivariateNormal(t.zeros(2), precision_matrix=t.ones(2, 3)),
       lambda d, t: d.MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1.0, 0.5], [0.0, 1.0]])),
       lambda d, t: d.MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[-1.0, 0.0], [0.0, 1.0]])),
       lambda d, t: d.MultivariateNormal(t.tensor(0.0), t.eye(1)),
       lambda d, t: d.MultivariateNormal(t.zeros(2)),
       lambda d, t: d.MultivariateNormal(t.zeros(2), t.eye(2), scale_tril=t.eye(2)),
       lambda d, t: d.MultivariateNormal(t.zeros(2), t.ones(2)),
       lambda d, t: d.MultivariateNormal(t.zeros(2), scale_tril=t.ones(2)),
       lambda d, t: d.MultivariateNormal(t.zeros(2), t.eye(2)).log_prob(t.zeros(3)),
       lambda d, t: d.MultivariateNormal(t.zeros(3, 2), t.eye(2)).log_prob(t.zeros(4, 2)),
       lambda d, t: d.MultivariateNormal(t.tensor([float("nan"), 0.0]), t.eye(2))]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_validation_messages_are_torchs(index):
    assert_same_value_error(engine_torch, pytest.importorskip("torch"), BAD[index])


DOORS = [
    ("torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2)).sample((10**9, 10**9))", "RuntimeError",
     "--max-elements"),
    ("torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2)).expand((10**9, 10**9)).sample()",
     "RuntimeError", "--max-elements"),
    ("torch.distributions.MultivariateNormal(print, torch.eye(2))", "AttributeError", None),
    ("torch.distributions.MultivariateNormal(torch.zeros(2), 'abc')", "AttributeError", None),
    ("torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))._unbroadcasted_scale_tril", None, None),
]


@pytest.mark.parametrize("src, type_name, message", DOORS)
def test_script_objects_and_sizes_are_refused(src, type_name, message):
    refused_script("import torch\n", "<dist>", src + "\n", type_name, message)
