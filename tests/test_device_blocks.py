"""`with torch.device(d):` (torch's device context manager: the default device of the constructors inside the
block, restored after it, also when the block raises) and the 'meta' device, which gradcli does not have: a
torch.device("meta") object prints and compares, a tensor created there is a RuntimeError of the script that
says so (it was the command's 'CUDA was requested' usage error). The corpus snippet
pt_recipe_reasoning_about_shapes.grad is the recipe that uses both."""
from __future__ import annotations

from gradcli.lang.runner import RunOptions, run_source


def run(src):
    return run_source(src, "<test>", RunOptions(seed=0))


def test_device_block_sets_and_restores_the_default_device():
    src = ("import torch\nwith torch.device('cpu') as d:\n    x = torch.ones(2)\n    print(d, torch.get_default_device())\n"
           "try:\n    with torch.device('meta'):\n        y = torch.zeros(1)\nexcept RuntimeError as e:\n"
           "    print('meta:', e)\nprint(torch.zeros(1).device, x)\n")
    result = run(src)
    assert result.error is None, result.error.message
    assert result.stdout == ("cpu cpu\nmeta: gradcli has no 'meta' device (tensors with a shape and no data): "
                             "its tensors are on cpu or cuda\ncpu tensor([1., 1.])\n")


def test_meta_tensor_is_a_script_error():
    result = run("import torch\nprint(torch.device('meta'))\nt = torch.rand(2, 3, device='meta')\n")
    assert result.stdout == "meta\n"
    assert result.error.type_name == "RuntimeError" and "no 'meta' device" in result.error.message
