"""torch.nn.utils.prune (engine/nn/prune.py): masks (random draws, l1's ties), the recomputed weight and its
gradient against torch, and the doors a script opens with it (names, amounts, objects that are no modules). The
script-level golden is tests/golden/scripts/nn_prune.grad, the corpus snippet pt_pruning_random_unstructured.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from case_support import refused_script


def _run(lib):
    lib.manual_seed(4)
    conv = lib.nn.Conv2d(2, 3, 3).double()  # float64: float32 convolutions round in another order (docs/numerics.md)
    prune = lib.nn.utils.prune
    prune.random_unstructured(conv, "weight", amount=0.4)
    prune.l1_unstructured(conv, "weight", amount=0.2)
    prune.random_unstructured(conv, "weight", amount=5)
    with lib.no_grad():
        conv.bias.copy_(lib.tensor([0.5, -0.5, 0.25], dtype=lib.float64))
    prune.l1_unstructured(conv, "bias", amount=2)
    out = conv(lib.randn(1, 2, 5, 5, dtype=lib.float64))
    out.pow(2).sum().backward()
    result = (conv.weight_mask.tolist(), conv.bias_mask.tolist(), out.tolist(), conv.weight_orig.grad.tolist(),
              sorted(conv.state_dict()), prune.is_pruned(conv))
    prune.remove(conv, "weight")
    return result + (conv.weight.tolist(), [n for n, _ in conv.named_parameters()])


def test_masks_values_and_gradients_are_torchs():
    pytest.importorskip("torch")
    import torch.nn.utils.prune  # noqa: PLC0415 - torch's submodule is not imported with torch itself
    ours, theirs = _run(engine_torch), _run(torch)
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if i in (2, 3):  # the convolution's output and gradient: its sums' order may differ in the last bit
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        else:
            assert a == b


HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.utils.prune as prune\nlin = nn.Linear(2, 2)\n"
DOORS = [
    ("prune.random_unstructured(print, 'weight', 0.5)", "AttributeError", None),
    ("prune.random_unstructured(lin, '__class__', 0.5)", "KeyError", "starts with '_'"),
    ("prune.random_unstructured(lin, '_parameters', 0.5)", None, None),
    ("prune.l1_unstructured(lin, 'forward', 0.5)", "TypeError", None),
    ("prune.l1_unstructured(lin, 'weight', print)", "TypeError", "Invalid type for amount"),
    ("prune.l1_unstructured(lin, 'weight', 0.5, importance_scores=print)", "AttributeError", None),
    ("prune.remove(lin, '__dict__')", "ValueError", "has to be pruned"),
    ("prune.is_pruned(print)", None, None),
    ("prune.random_unstructured(lin, 'weight', 10**30)", "ValueError", "should be smaller"),
]


@pytest.mark.parametrize("src, type_name, message", DOORS)
def test_script_objects_are_refused(src, type_name, message):
    refused_script(HEAD, "<prune>", src + "\n", type_name, message)
