"""torch.optim over gradcli's engine must update parameters exactly as PyTorch 2.13 does, step
for step, and print the same reprs: the `optim_*` cases of tests/nn_cases.py, compared against
tests/golden/nn_cases.json (made with real torch by tools/gen_nn_goldens.py). No torch needed."""
from __future__ import annotations

import pytest

import nn_cases
from gradcli.engine import api as engine_torch
from test_nn import _GOLDEN, diff

_CASES = {k: v for k, v in nn_cases.all_cases().items() if k.startswith("optim_")}


@pytest.mark.parametrize("name", list(_CASES))
def test_case(name):
    if name not in _GOLDEN:
        pytest.skip("no golden yet: run tools/gen_nn_goldens.py")
    got = nn_cases.run_case(engine_torch, _CASES[name])
    d = diff(_GOLDEN[name], got)
    assert d is None, d


def test_updates_are_in_place_and_bump_versions():
    w = engine_torch.tensor([1.0, 2.0], requires_grad=True)
    opt = engine_torch.optim.SGD([w], lr=0.5)
    data = w.data
    v0 = w._version[0]
    (w * w).sum().backward()
    opt.step()
    assert w.tolist() == [0.0, 0.0]
    assert data.tolist() == [0.0, 0.0]
    assert w._version[0] > v0
    assert w.grad_fn is None and w.is_leaf
