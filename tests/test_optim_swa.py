"""torch.optim.swa_utils (engine/optim_swa.py): AveragedModel's averages (SWA, EMA, a script's avg_fn), SWALR's
schedules and update_bn against torch, and the doors a script opens with them (its callables, its models). The
script-level golden is tests/golden/scripts/optim_swa_utils.grad, the corpus snippet
docs_swa_utils_averaged_model.grad."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as engine_torch
from case_support import refused_script, run_script


def _run(lib, strategy, anneal_epochs):
    lib.manual_seed(2)
    model = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.BatchNorm1d(5), lib.nn.Linear(5, 2)).double()
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    swa_utils = lib.optim.swa_utils
    averaged = [swa_utils.AveragedModel(model),
                swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.7), use_buffers=True),
                swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_swa_multi_avg_fn()),
                swa_utils.AveragedModel(model, avg_fn=swa_utils.get_ema_avg_fn(0.6))]
    sched = swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    x = lib.randn(16, 3, dtype=lib.float64)
    lrs = []
    for _ in range(6):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        for a in averaged:
            a.update_parameters(model)
        sched.step()
        lrs.append(sched.get_last_lr())
    swa_utils.update_bn([x[:8], x[8:]], averaged[0])
    return lrs, [[p.tolist() for p in a.state_dict().values()] for a in averaged]


@pytest.mark.parametrize("strategy, anneal_epochs", [("cos", 3), ("linear", 2), ("cos", 0)])
def test_averages_and_schedules_are_torchs(strategy, anneal_epochs):
    torch = pytest.importorskip("torch")
    (lrs, ours), (lrs_torch, theirs) = _run(engine_torch, strategy, anneal_epochs), _run(torch, strategy, anneal_epochs)
    assert lrs == lrs_torch
    for a, b in zip(ours, theirs, strict=True):  # the float64 training's products may differ in their last bit
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-15)


HEAD = ("import torch\nimport torch.nn as nn\nfrom torch.optim.swa_utils import AveragedModel, SWALR, update_bn\n"
        "model = nn.Linear(2, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n")
DOORS = [
    ("AveragedModel(print)", None, None),
    ("m = AveragedModel(model, avg_fn=print)\nm.update_parameters(model)\nm.update_parameters(model)", None, None),
    ("m = AveragedModel(model, multi_avg_fn=len)\nm.update_parameters(model)\nm.update_parameters(model)",
     "TypeError", None),
    ("AveragedModel(model).update_parameters(print)", None, None),
    ("SWALR(print, 0.1)", None, None),
    ("SWALR(opt, print)\nopt.step()", None, None),
    ("update_bn(print, nn.BatchNorm1d(2))", "TypeError", None),
    ("update_bn([torch.ones(2, 2)], print)", "AttributeError", None),
    ("AveragedModel(model, avg_fn=print, multi_avg_fn=print)", "AssertionError", "Only one of avg_fn"),
]


@pytest.mark.parametrize("src, type_name, message", DOORS)
def test_script_objects_are_refused(src, type_name, message):
    refused_script(HEAD, "<swa>", src + "\n", type_name, message)


def test_a_script_model_and_avg_fn_are_copied_and_called():
    src = ("class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.fc = nn.Linear(2, 1)\n    def forward(self, x):\n        return self.fc(x) * 2\n"
           "def avg(a, b, n):\n    return a + b\n"
           "net = Net()\nm = AveragedModel(net, avg_fn=avg)\nm.update_parameters(net)\nm.update_parameters(net)\n"
           "print(type(m.module).__name__, m.module is net, torch.equal(m.module.fc.bias, 2 * net.fc.bias), "
           "m.n_averaged.item())\n")
    result = run_script(HEAD, "<swa>", src)
    assert result.error is None, result.error
    assert result.stdout.splitlines()[-1] == "Net False True 2"
