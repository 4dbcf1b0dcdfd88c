"""The losses composed from other ops (engine/nn/functional_loss_more.py): gradcheck and gradgradcheck of
each against float64 central differences, and, where torch is installed, values and gradients against
torch's (the golden script tests/golden/scripts/nn_losses_composite.grad compares the printed text)."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from case_support import case_table_tests

_RNG = np.random.default_rng(7)
A, B, C = (_RNG.standard_normal((4, 3)).tolist() for _ in range(3))
SIGN = [1.0, -1.0, 1.0, -1.0]
POS = _RNG.uniform(0.5, 2.0, (4, 3)).tolist()
COUNTS = _RNG.integers(0, 4, (4, 3)).astype(float).tolist()
LABELS = _RNG.integers(0, 2, (4, 3)).astype(float).tolist()

# name -> (function of (torch, *inputs), the inputs that get gradients, the constant inputs)
CASES = {
    "margin_ranking_loss": (lambda t, a, b, y: t.nn.functional.margin_ranking_loss(a, b, y, margin=0.3),
                            [A[0], B[0]], [SIGN[:3]]),
    "hinge_embedding_loss": (lambda t, a, y: t.nn.functional.hinge_embedding_loss(a, y, margin=0.5), [A],
                             [[SIGN[:3]] * 4]),
    "cosine_embedding_loss": (lambda t, a, b, y: t.nn.functional.cosine_embedding_loss(a, b, y, margin=0.2),
                              [A, B], [SIGN]),
    "triplet_margin_loss": (lambda t, a, b, c: t.nn.functional.triplet_margin_loss(a, b, c, margin=2.0, swap=True),
                            [A, B, C], []),
    "poisson_nll_loss": (lambda t, x, y: t.nn.functional.poisson_nll_loss(x, y, log_input=False, full=True),
                         [POS], [COUNTS]),
    "gaussian_nll_loss": (lambda t, x, v, y: t.nn.functional.gaussian_nll_loss(x, y, v, full=True), [A, POS], [B]),
    "multilabel_soft_margin_loss": (lambda t, x, y: t.nn.functional.multilabel_soft_margin_loss(x, y), [A],
                                    [LABELS]),
}


test_gradcheck, test_matches_torch = case_table_tests(CASES)


def test_distance_function_from_the_script_is_called_as_given():
    F = engine_torch.nn.functional
    a = engine_torch.tensor(A, dtype=engine_torch.float64)
    calls = []

    def dist(x, y):
        calls.append((tuple(x.shape), tuple(y.shape)))
        return (x - y).abs().sum(1)

    out = engine_torch.nn.TripletMarginWithDistanceLoss(distance_function=dist, swap=True)(a, a + 1, a + 0.75)
    assert calls == [((4, 3), (4, 3))] * 3  # anchor-positive, anchor-negative, positive-negative (swap)
    assert out.item() == pytest.approx(1.0 + 3.0 - 0.75)  # margin + d(a, p) - min(d(a, n), d(p, n))
    assert F.triplet_margin_with_distance_loss(a, a + 1, a - 2, distance_function=dist).item() == 0.0
