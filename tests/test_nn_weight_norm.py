"""torch.nn.utils.parametrizations.weight_norm (engine/nn/weight_norm.py): torch._weight_norm's fused kernels
(WeightNormInterfaceBackward0 over dim 0 and the last dim) and its composite for other dims, against float64
central differences (gradcheck, gradgradcheck: the create_graph backward) and bit for bit against torch's values
and gradients in float32 and float64; the script doors. The script-level golden is
tests/golden/scripts/nn_weight_norm.grad, the corpus snippet docs_weight_norm_parametrization.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from gradcli.engine.gradcheck import gradcheck
from gradcli.engine.nn.weight_norm import weight_norm_op
from case_support import refused_script

_RNG = np.random.default_rng(5)
SHAPES = [((5, 3), 0), ((7, 13), 0), ((30, 40), 0), ((4, 20), 1), ((50, 9), 1), ((3, 4, 5), 0), ((3, 4, 5), 2),
          ((3, 4, 5), 1), ((6,), 0), ((3, 4), -1)]


def _inputs(shape, dim):
    gshape = [1] * len(shape)
    if dim >= 0:
        gshape[dim] = shape[dim]
    return _RNG.standard_normal(shape).tolist(), _RNG.standard_normal(gshape).tolist(), \
        _RNG.standard_normal(shape).tolist()


@pytest.mark.parametrize("shape, dim", SHAPES[:3] + SHAPES[5:])
def test_gradients_are_the_finite_differences(shape, dim):
    v, g, _ = _inputs(shape, dim)
    args = (engine_torch.tensor(v, dtype=engine_torch.float64, requires_grad=True),
            engine_torch.tensor(g, dtype=engine_torch.float64, requires_grad=True))
    assert gradcheck(lambda a, b: weight_norm_op(a, b, dim), args)


@pytest.mark.parametrize("shape, dim", [((5, 3), 0), ((4, 20), 1), ((3, 4, 5), 2)])
def test_create_graph_backward_is_torchs(shape, dim):
    """torch's _weight_norm_differentiable_backward keeps the saved norms constant, so its second derivative is
    no finite difference (torch's own gradgradcheck fails): it is compared with torch's."""
    torch = pytest.importorskip("torch")
    v, g, gw = _inputs(shape, dim)
    got = []
    for lib, fn in ((engine_torch, weight_norm_op), (torch, torch._weight_norm)):
        vt = lib.tensor(v, dtype=lib.float64, requires_grad=True)
        gt = lib.tensor(g, dtype=lib.float64, requires_grad=True)
        w = fn(vt, gt, dim)
        dv, dg = lib.autograd.grad(w, (vt, gt), lib.tensor(gw, dtype=lib.float64), create_graph=True)
        (dv.pow(2).sum() + dg.pow(3).sum()).backward()
        got.append((dv.tolist(), dg.tolist(), vt.grad.tolist(), gt.grad.tolist()))
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_are_torchs_bit_for_bit(dtype):
    torch = pytest.importorskip("torch")
    for shape, dim in SHAPES:
        if dtype == "float32" and dim not in (0, len(shape) - 1, -1):
            continue  # the composite's float32 norm over a transposed view: engine/ops' norm, not this kernel
        v, g, gw = _inputs(shape, dim)
        got = []
        for lib, fn in ((engine_torch, weight_norm_op), (torch, torch._weight_norm)):
            dt = getattr(lib, dtype)
            vt = lib.tensor(v, dtype=dt, requires_grad=True)
            gt = lib.tensor(g, dtype=dt, requires_grad=True)
            w = fn(vt, gt, dim)
            w.backward(lib.tensor(gw, dtype=dt))
            got.append((w.tolist(), vt.grad.tolist(), gt.grad.tolist(), w.grad_fn.name()))
        assert got[0] == got[1], (shape, dim)


HEAD = "import torch\nimport torch.nn as nn\nfrom torch.nn.utils.parametrizations import weight_norm\n"
DOORS = [
    ("weight_norm(print)", "AttributeError", "has no attribute 'training'"),
    ("weight_norm(nn.Linear(2, 2), name='__class__')", "ValueError", "does not have a parameter"),
    ("weight_norm(nn.Linear(2, 2), name=print)", "ValueError", "does not have a parameter"),
    ("weight_norm(nn.Linear(2, 2), dim='x')", None, None),
    ("weight_norm(nn.Linear(2, 2), dim=print)", None, None),
]


@pytest.mark.parametrize("src, type_name, message", DOORS)
def test_script_objects_are_refused(src, type_name, message):
    refused_script(HEAD, "<weight_norm>", src + "\n", type_name, message)
