"""torch.nn.utils.parametrize (engine/nn/parametrize.py): the gradient through a parametrized weight against float64
central differences and torch, torch's errors, and the doors a script opens with it (its own parametrization
modules, names, callables that are no modules). The script-level golden is tests/golden/scripts/nn_parametrize.grad,
the corpus snippet pt_parametrizations_symmetric.grad."""
from __future__ import annotations

import pytest

from gradcli.engine import api as engine_torch
from case_support import refused_script, run_script


def _symmetric_layer(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

    lib.manual_seed(3)
    layer = lib.nn.Linear(3, 3).double()
    lib.nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric())
    return layer


def test_gradient_through_the_parametrization_is_the_finite_differences():
    layer = _symmetric_layer(engine_torch)
    original = layer.parametrizations.weight.original
    x = engine_torch.randn(4, 3, dtype=engine_torch.float64)
    layer(x).pow(2).sum().backward()
    analytic = original.grad.tolist()
    base = original.detach().clone()
    eps = 1e-6
    with engine_torch.no_grad():
        for i in range(3):
            for j in range(3):
                values = []
                for step in (eps, -eps):
                    w = base.clone()
                    w[i, j] += step
                    original.copy_(w)
                    values.append(layer(x).pow(2).sum().item())
                assert (values[0] - values[1]) / (2 * eps) == pytest.approx(analytic[i][j], rel=1e-6, abs=1e-8)


def test_values_gradients_and_names_are_torchs():
    torch = pytest.importorskip("torch")
    got = []
    for lib in (engine_torch, torch):
        layer = _symmetric_layer(lib)
        out = layer(lib.ones(2, 3, dtype=lib.float64))
        out.pow(2).sum().backward()
        p = layer.parametrizations.weight
        got.append((out.tolist(), p.original.grad.tolist(), repr(layer), list(layer.state_dict()),
                    [n for n, _ in layer.named_parameters()], type(layer).__name__,
                    lib.nn.utils.parametrize.type_before_parametrizations(layer).__name__))
    assert got[0] == got[1]


HEAD = """import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
class Bad(nn.Module):
    def forward(self, X):
        return 3
class BadInv(nn.Module):
    def forward(self, A, B):
        return A
    def right_inverse(self, X):
        return [X, print]
layer = nn.Linear(3, 3)
"""

DOORS = [
    ("P.register_parametrization(layer, 'weight', print)", "AttributeError", "has no attribute 'train'"),
    ("P.register_parametrization(layer, 'weight', lambda x: x)", "AttributeError", "has no attribute 'train'"),
    ("P.register_parametrization(print, 'weight', Sym())", "AttributeError", "has no attribute 'training'"),
    ("P.register_parametrization(layer, '__class__', Sym())", "ValueError", "does not have a parameter"),
    ("P.register_parametrization(layer, '_parameters', Sym())", "ValueError", "does not have a parameter"),
    ("P.register_parametrization(layer, 'weight', Bad())", "ValueError", "must return a tensor. Got int"),
    ("P.register_parametrization(layer, 'weight', BadInv())", "ValueError", "Got element 1 of the sequence"),
    ("P.register_parametrization(layer, 'weight', Sym())\n"
     "P.transfer_parametrizations_and_params(layer, nn.Linear(3, 3), '__dict__')", "KeyError", "__dict__"),
    ("P.register_parametrization(layer, 'weight', Sym())\nlayer.weight = print", "RuntimeError",
     "does not implement right_inverse"),
    ("P.register_parametrization(layer, 'weight', Sym())\nP.remove_parametrizations(layer, '__class__')",
     "ValueError", "does not have a parametrization on __class__"),
    ("P.type_before_parametrizations(print)", "TypeError", "takes an nn.Module"),
    ("P.register_parametrization(layer, 'weight', Sym())\nprint(type(layer).weight)", "AttributeError", "weight"),
]


@pytest.mark.parametrize("src, type_name, message", DOORS)
def test_script_objects_are_refused(src, type_name, message):
    refused_script(HEAD, "<parametrize>", src + "\n", type_name, message)


def test_a_script_parametrization_with_right_inverse_runs_both_ways():
    src = ("class Scale(nn.Module):\n    def forward(self, X):\n        return X * 2\n"
           "    def right_inverse(self, A):\n        return A / 2\n"
           "P.register_parametrization(layer, 'weight', Scale())\nlayer.weight = torch.ones(3, 3)\n"
           "print(layer.parametrizations.weight.original.sum().item(), layer.weight.sum().item())\n")
    result = run_script(HEAD, "<parametrize>", src)
    assert result.error is None, result.error
    assert result.stdout.splitlines()[-1] == "4.5 9.0"
