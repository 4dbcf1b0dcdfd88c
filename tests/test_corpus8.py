"""Fixes the tutorial corpus's eighth round of snippets asked for (corpus8: Karpathy's GPT lecture, Deep Learning
with PyTorch, Raschka's books, Aladdin Persson's and Patrick Loeber's tutorials, fast.ai part 2, forum posts):
a one-element integer tensor as a slice bound (data[i:i + block_size] with i from torch.randint),
Tensor.storage_offset, torch.arange's float values as ATen's vectorised kernel computes them,
binary_cross_entropy_with_logits's errors for a weight or pos_weight of the wrong shape, torch.nn.utils.clip_grad
and convert_parameters, torch.backends (mps, cudnn) as a CPU build answers it, torch.Tensor() and torch.tensor()
without data, and the goldens' masking of a generator's address. Each checked against PyTorch where it runs, and
by the values PyTorch 2.13 gives where it does not."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gradcli.engine import api as G
from gradcli.engine import rng_math
from gradcli.engine.arange_kernel import arange_values
from case_support import seeded_error, seeded_out, seeded_run

from gradcli.testing.golden import mask_addresses


run, out, err = seeded_run, seeded_out, seeded_error


# ---------------------------------------------------------------- slice bounds from tensors

def test_tensor_slice_bounds_as_python_takes_them():
    src = ("import torch\ndata = torch.arange(10)\ni = torch.tensor(2)\n"
           "print(data[i:i + 3], data[torch.tensor([1]):4], data[::torch.tensor(2)], data[:i])\n"
           "x = torch.zeros(5)\nx[i:i + 2] = 1\nprint(x)\n")
    assert out(src) == ("tensor([2, 3, 4]) tensor([1, 2, 3]) tensor([0, 2, 4, 6, 8]) tensor([0, 1])\n"
                        "tensor([0., 0., 1., 1., 0.])\n")


@pytest.mark.parametrize("bound, message", [
    ("torch.tensor(2.5)", "only integer tensors of a single element can be converted to an index"),
    ("torch.tensor([1, 2])", "only integer tensors of a single element can be converted to an index"),
    ("1.5", "slice indices must be integers or None or have an __index__ method"),
    ("'a'", "slice indices must be integers or None or have an __index__ method"),
])
def test_bad_slice_bounds_raise_torchs_type_error(bound, message):
    e = err(f"import torch\ndata = torch.arange(10)\ndata[1:{bound}]\n")
    assert (e.type_name, e.message, e.line) == ("TypeError", message, 3)


# ---------------------------------------------------------------- storage_offset

def test_storage_offset_of_views():
    x = G.zeros(3, 2)
    y = G.arange(24).reshape(2, 3, 4)
    got = [x[1].storage_offset(), x[:, 1].storage_offset(), x.t().storage_offset(), x.storage_offset(),
           x[1][1:].storage_offset(), x.view(6)[3:].storage_offset(), x[1].clone().storage_offset(),
           y[1, 1:, 2:].storage_offset(), y.transpose(0, 2)[1].storage_offset(), y.narrow(2, 1, 2).storage_offset(),
           y.select(1, 2).storage_offset(), y.unbind(1)[2].storage_offset(), y.chunk(2, dim=2)[1].storage_offset()]
    # PyTorch 2.13's answers for the same views
    assert got == [2, 1, 0, 0, 3, 3, 0, 18, 1, 1, 8, 8, 2]


# ---------------------------------------------------------------- arange

def test_arange_float_values_are_the_vectorised_kernels():
    """torch.arange(-3, 3.1, 0.1)[30] is float(-0.6) + 6 * 0.1 (the 8-wide block from 24), not 0."""
    saved = rng_math.capability()
    try:
        rng_math.set_capability("avx2")
        x = G.arange(-3, 3.1, 0.1)
        assert x.shape == (61,) and x[30].item() == np.float32(-2.384185791015625e-08)
        assert float(x[48]) == float(np.float32(-3 + 0.1 * 48))  # past the last full 16-block: the scalar op
        rng_math.set_capability("default")
        assert G.arange(-3, 3.1, 0.1)[30].item() == np.float32(-2.384185791015625e-08)
    finally:
        rng_math.set_capability(None if saved == rng_math.detected() else saved)


def test_arange_integer_and_exact_values_unchanged():
    assert G.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert G.arange(0, 10, 2.5).tolist() == [0.0, 2.5, 5.0, 7.5]
    assert G.arange(0, 5, dtype=G.float64).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


CASES = [(-3, 3.1, 0.1), (-8.0, 8.0, 0.1), (0, 1, 0.01), (0.1, 5.3, 0.07), (-1, 1, 1 / 3), (1, 100, 0.37),
         (-5, 5, 0.013), (0, 100000, 0.7), (-50.5, 20.25, 0.003)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_arange_as_torch(case, dtype):
    torch = pytest.importorskip("torch")
    if dtype == "float16" and max(abs(case[0]), abs(case[1])) > 60:
        pytest.skip("beyond half's integers")
    if rng_math.capability() != rng_math.detected():
        pytest.skip("torch runs this CPU's kernels")
    expected = torch.arange(*case, dtype=getattr(torch, dtype)).numpy()
    n = math.ceil((case[1] - case[0]) / case[2])
    np.testing.assert_array_equal(arange_values(case[0], case[2], n, np.dtype(dtype)), expected)
    np.testing.assert_array_equal(G.arange(*case, dtype=getattr(G, dtype)).numpy(), expected)


# ---------------------------------------------------------------- BCE with logits

@pytest.mark.parametrize("kw, message", [
    ("pos_weight=torch.ones(3)", "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                                 "dimension 1"),
    ("weight=torch.ones(3)", "The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
                             "dimension 1"),
    ("weight=torch.ones(2, 5, 4)", "output with shape [5, 4] doesn't match the broadcast shape [2, 5, 4]"),
    ("pos_weight=torch.ones(2, 5, 4)", "output with shape [5, 4] doesn't match the broadcast shape [2, 5, 4]"),
])
def test_bce_with_logits_weight_shapes_raise_atens_errors(kw, message):
    e = err("import torch\nimport torch.nn.functional as F\nx = torch.zeros(5, 4)\nt = torch.ones(5, 4)\n"
            f"F.binary_cross_entropy_with_logits(x, t, {kw})\n")
    assert (e.type_name, e.message, e.line) == ("RuntimeError", message, 5)


def test_bce_with_logits_broadcast_weights_still_work():
    x = G.zeros(5, 4, requires_grad=True)
    loss = G.nn.functional.binary_cross_entropy_with_logits(x, G.ones(5, 4), weight=G.ones(5, 1),
                                                            pos_weight=G.full((4,), 2.0))
    loss.backward()
    assert abs(loss.item() - 2 * math.log(2)) < 1e-6 and x.grad.shape == (5, 4)


# ---------------------------------------------------------------- namespaces

def test_nn_utils_clip_grad_and_convert_parameters_modules():
    src = ("import torch\nfrom torch.nn.utils.clip_grad import clip_grad_norm_\n"
           "from torch.nn.utils.convert_parameters import parameters_to_vector\n"
           "print(torch.nn.utils.clip_grad, clip_grad_norm_ is torch.nn.utils.clip_grad_norm_)\n"
           "print(torch.nn.utils.clip_grad.clip_grad_value_ is torch.nn.utils.clip_grad_value_)\n"
           "m = torch.nn.Linear(2, 1)\nprint(parameters_to_vector(m.parameters()).shape)\n")
    assert out(src) == "<module 'torch.nn.utils.clip_grad'> True\nTrue\ntorch.Size([3])\n"


def test_backends_as_a_cpu_build_answers():
    src = ('import torch\ndevice = "mps" if torch.backends.mps.is_available() else "cuda" if '
           'torch.cuda.is_available() else "cpu"\n'
           "print(device, torch.backends.mps.is_built(), torch.backends.cudnn.is_available(), "
           "torch.backends.cudnn.enabled, torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)\n")
    assert out(src).startswith("c")  # cpu, or cuda where CuPy has a GPU
    assert out(src).split()[1:] == ["False", "False", "True", "False", "False"]


def test_backends_stay_read_only():
    e = err("import torch\ntorch.backends.mps.is_available = lambda: True\n")
    assert e.type_name == "AttributeError" and "cannot assign" in e.message


# ---------------------------------------------------------------- constructors

def test_legacy_tensor_without_arguments_is_empty():
    assert repr(G.Tensor()) == "tensor([])" and G.Tensor().shape == (0,) and G.FloatTensor().shape == (0,)


def test_tensor_without_data_words_torchs_type_error():
    e = err("import torch\ntorch.tensor()\n")
    assert (e.type_name, e.message) == ("TypeError", 'tensor() missing 1 required positional arguments: "data"')


# ---------------------------------------------------------------- goldens

def test_generator_addresses_are_masked():
    a = b"<generator object Module.parameters at 0x7fc8cdcc5b60>\n<AddBackward0 object at 0x7f12>\n"
    b = b"<generator object Module.parameters at 0x7f1338012a40>\n<AddBackward0 object at 0x7f99>\n"
    assert mask_addresses(a) == mask_addresses(b)
    assert mask_addresses(b"<generator object f at 0x1>") != mask_addresses(b"<generator object g at 0x1>")


# ---------------------------------------------------------------- register_buffer / register_parameter

@pytest.mark.parametrize("src", [
    "m = torch.nn.Linear(2, 2)\nm.register_buffer('weight', torch.zeros(1))\n",
    "m = torch.nn.Sequential(torch.nn.ReLU())\nm.register_buffer('0', torch.zeros(1))\n",
    "m = torch.nn.Linear(2, 2)\nm.register_buffer('b2', torch.zeros(1))\n"
    "m.register_parameter('b2', torch.nn.Parameter(torch.zeros(1)))\n",
    "m = torch.nn.Sequential(torch.nn.ReLU())\nm.register_parameter('0', None)\n",
])
def test_registering_a_name_a_parameter_buffer_or_module_has_is_torchs_key_error(src):
    e = err("import torch\n" + src)
    name = src.split("('")[-1].split("'")[0]
    assert (e.type_name, e.message) == ("KeyError", f"\"attribute '{name}' already exists\"")


def test_registering_again_under_the_same_kind_replaces():
    assert out("import torch\nm = torch.nn.Linear(2, 2)\nm.register_buffer('b', torch.zeros(1))\n"
               "m.register_buffer('b', torch.ones(1))\nm.register_parameter('bias', None)\nprint(m.b, m.bias)\n") \
        == "tensor([1.]) None\n"


# ---------------------------------------------------------------- torch.device

def test_device_objects_of_other_backends_print_and_refuse_tensors():
    assert out("import torch\nd = torch.device('mps')\nprint(repr(d), d.type, d == torch.device('mps:0'), "
               "torch.device('xpu', 1))\n") == "device(type='mps') mps False xpu:1\n"
    e = err("import torch\ntorch.zeros(1).to('mps')\n")
    assert (e.type_name, e.message) == ("RuntimeError", "PyTorch is not linked with support for mps devices")
    e = err("import torch\ntorch.device('foo')\n")
    assert e.type_name == "RuntimeError" and e.message.endswith("device type at start of device string: foo")


def test_device_of_an_integer_is_the_accelerators():
    if G.cuda.is_available():
        assert repr(G.device(0)) == "device(type='cuda', index=0)"
        return
    e = err("import torch\ntorch.device(1)\n")
    assert (e.type_name, e.message) == ("RuntimeError", "Cannot access accelerator device when none is available.")
