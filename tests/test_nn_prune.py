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


def _run_structured(lib):
    # random_structured's kthvalue draws, ln_structured on what is left (the container's structured slice),
    # custom_from_mask and global_unstructured over two modules' weights
    lib.manual_seed(2)
    conv = lib.nn.Conv2d(2, 4, 3).double()
    lin = lib.nn.Linear(6, 5).double()
    prune = lib.nn.utils.prune
    prune.random_structured(conv, "weight", amount=1, dim=0)
    prune.ln_structured(conv, "weight", amount=0.5, n=1, dim=-1)
    prune.ln_structured(lin, "weight", amount=2, n=2, dim=0, importance_scores=lin.weight.abs().flip(0))
    prune.custom_from_mask(lin, "bias", mask=lib.tensor([1.0, 0.0, 1.0, 1.0, 0.0], dtype=lib.float64))
    prune.global_unstructured([(conv, "weight"), (lin, "weight")], pruning_method=prune.L1Unstructured, amount=0.3)
    out = lin(conv(lib.randn(1, 2, 5, 5, dtype=lib.float64)).sum(dim=(2, 3)).repeat(1, 2)[:, :6])
    out.pow(2).sum().backward()
    return (conv.weight_mask.tolist(), lin.weight_mask.tolist(), lin.bias.tolist(), out.tolist(),
            lin.weight_orig.grad.tolist(), [type(h).__name__ for h in conv._forward_pre_hooks.values()],
            [type(m).__name__ for m in next(iter(conv._forward_pre_hooks.values()))])


def test_structured_and_global_masks_are_torchs():
    pytest.importorskip("torch")
    import torch.nn.utils.prune  # noqa: PLC0415 - torch's submodule is not imported with torch itself
    ours, theirs = _run_structured(engine_torch), _run_structured(torch)
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if i in (3, 4):  # the convolution's sums' order may differ in the last bit
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        else:
            assert a == b, i


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
    ("prune.ln_structured(lin, 'bias', 1, n=2, dim=0)", "ValueError", "multidimensional tensors"),
    ("prune.random_structured(lin, 'weight', 1, dim=2)", "IndexError", "Invalid index 2"),
    ("prune.random_structured(lin, 'weight', 3, dim=0)", "ValueError", "should be smaller"),
    ("prune.custom_from_mask(lin, 'weight', mask=torch.ones(3))", "AssertionError", None),
    ("prune.custom_from_mask(lin, 'weight', mask=print)", "AttributeError", None),
    ("prune.global_unstructured(print, prune.L1Unstructured, amount=1)", "TypeError", "not an Iterable"),
    ("prune.global_unstructured([(lin, 'weight')], prune.RandomStructured, amount=1)", "TypeError",
     'Only "unstructured"'),
    ("prune.global_unstructured([(lin, 'weight')], print, amount=1)", "TypeError", None),
    ("prune.global_unstructured([(print, 'weight')], prune.L1Unstructured, amount=1)", "AttributeError", None),
    ("prune.global_unstructured([(lin, 'weight')], prune.L1Unstructured, importance_scores=[], amount=1)",
     "TypeError", "must be of type dict"),
]


@pytest.mark.parametrize("src, type_name, message", DOORS)
def test_script_objects_are_refused(src, type_name, message):
    refused_script(HEAD, "<prune>", src + "\n", type_name, message)
