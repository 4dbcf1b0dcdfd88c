"""Red team, twelfth round (docs/robustness.md, "The sandbox"): arguments of torch.nn.functional that the
implementations went on with (a result, or Python's own error of the implementation) where torch's parser
refuses them. Each case runs through gradcli's runner and through torch (tools/make_goldens.py's run_one,
torch-echo's semantics; skipped without torch 2.13): stdout and the error line must be the same. Without torch,
each must still end in the script's own TypeError, never a result or an internal error."""
from __future__ import annotations

import pytest

from gradcli.lang.runner import RunOptions, run_source
from gradcli.testing.golden import error_text, normalized_error_text
from tool_modules import load_tool

PRELUDE = "import torch\nimport torch.nn.functional as F\nx = torch.ones(2, 3)\nx3 = x.view(1, 2, 3)\n"

# F.X whose binding's parser (torch_signatures.FUNCTIONAL_PARSED) refuses the argument: torch's TypeError
FUNCTIONAL = [
    "F.pad(x, (1, object()))", "F.pad(x, (1.5, 1))", "F.pad(x, 1)", "F.pad(x, [1, 2.0])", "F.pad(x, pad=1)",
    "F.layer_norm(x, 3)", "F.layer_norm(x, (3.0,))", "F.layer_norm(x, [object()])", "F.layer_norm(x, (3,), eps=[1])",
    "F.max_pool1d(x, 1.5)", "F.max_pool1d(x, [object()])", "F.max_pool1d(x, 2, stride=1.5)",
    "F.max_pool1d(x, 2, padding=0.5)", "F.max_pool1d(x, 2, ceil_mode=1)", "F.avg_pool1d(x, 1.5)",
    "F.avg_pool1d(x, 2, stride=[1.0])", "F.avg_pool1d(x, [1.0])", "F.avg_pool1d(x, 2, (1, 1.0))",
    "F.max_pool2d(x3, 1.5)", "F.avg_pool2d(x3, (1, 1.5))", "F.avg_pool2d(x3, 1, divisor_override=1.5)",
    "F.adaptive_avg_pool1d(x, 1.5)", "F.adaptive_max_pool1d(x, object())", "F.adaptive_max_pool1d(x, [1.0])",
    "F.leaky_relu(x, [0.1])", "F.leaky_relu(x, object())", "F.leaky_relu(x, 'a')", "F.leaky_relu(x, [0.1], True)",
    "F.elu(x, [1.0])", "F.elu(x, object())", "F.elu(x, alpha='a')", "F.softplus(x, [1])", "F.softplus(x, beta=object())",
    "F.softplus(x, 1, [20])", "F.threshold(x, [1], 2)", "F.threshold(x, 1, object())", "F.celu(x, [1.0])",
    "F.cosine_similarity(x, x, eps=[1e-8])", "F.cosine_similarity(x, x, eps=object())",
    "F.cosine_similarity(x, x, 1.5)", "F.one_hot(torch.tensor([1]), num_classes=2.0)",
    "F.one_hot(torch.tensor([1]), num_classes=object())", "F.one_hot(torch.tensor([1]), num_classes=[2])",
    "F.one_hot(torch.tensor([1]), 2.0)", "F.softshrink(x, [0.5])", "F.hardshrink(x, lambd='a')",
]

# the same functions given what torch takes: the checks refuse nothing more
TAKEN = [
    "F.pad(x, (1, 1), value=2)", "F.pad(x, [1, 0, 1, 0], 'constant', 0.5)", "F.layer_norm(x, (3,), eps=1e-3)",
    "F.layer_norm(x, [3], None, None, 1e-5)", "F.max_pool1d(x, 2, 1, 0, 1, False)", "F.max_pool1d(x, (2,), stride=[1])",
    "F.max_pool1d(x, 2, return_indices=True)", "F.avg_pool1d(x, 2, stride=1)", "F.avg_pool2d(x3, 1, divisor_override=2)",
    "F.adaptive_avg_pool1d(x, 2)", "F.adaptive_max_pool1d(x, [2])", "F.leaky_relu(x.clone() - 2, 0.2, True)",
    "F.leaky_relu(x, torch.tensor(0.5))", "F.elu(x - 2, alpha=2)", "F.softplus(x, 2, 10)",
    "F.threshold(x, 0.5, 2.0)", "F.celu(x - 2, 0.5)", "F.cosine_similarity(x, x, 1, 1e-6)",
    "F.one_hot(torch.tensor([1]), num_classes=torch.tensor(3))", "F.softshrink(x, 0.25)", "F.max_pool1d(x, True)",
]


# Tensor methods and torch.X with several signatures given a list or tuple the implementation went on with
# (argcheck._fits_known checks those against the signatures first)
DOUBTFUL = [
    "x.clamp(min=[1])", "x.clamp([1])", "torch.clamp(x, max=[1])", "x.clip(min=[1])", "x.masked_fill(x > 0, [1])",
    "x.index_fill(0, torch.tensor([0]), [1])", "x.nan_to_num([1])", "x.nan_to_num(posinf=[1])", "x.reshape([6.0])",
    "x.view([6.0])", "x.fill_([1])", "x.pow([2])", "x.lerp(x, [0.5])", "x.clamp(min=(1,))", "x.clamp(0.5, [1])",
    # x.new_zeros & co: the factory's error under the method's name
    "x.new_zeros(1.5)", "x.new_full(1.5, 2)", "x.new_empty(1.5)", "x.new_ones(2, 1.5)",
]

# and given what torch takes, the verdict remembered by classes
DOUBTFUL_TAKEN = [
    "x.clamp(min=0.5)", "x.clamp(0.5, 1.0)", "torch.clamp(x, max=0.5)", "x.reshape([6])", "x.reshape((3, 2))",
    "x.view(3, 2)", "x.view([3, 2])", "x.sum((0, 1))", "torch.sum(x, [0])", "x.masked_fill(x > 0, 2.5)",
    "x.nan_to_num(0.5)", "x.permute([1, 0])", "x.clamp(min=torch.tensor(0.5))", "x.pow(2.0)",
    "x.clamp(min=0.5)\nx.clamp(min=0.5)\nx.clamp(min=[1])", "x.view(2, 3.0)", "x.view([1, 'a'])", "x.div_(2.5)",
    "torch.ones(2, dtype=torch.int32).div_(2.5)",
]


@pytest.mark.parametrize("code", DOUBTFUL)
def test_doubtful_refused(code):
    result = _run(code)
    assert result.error is not None and result.error.type_name == "TypeError", result.stdout


@pytest.fixture(scope="module")
def make_goldens():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13."):
        pytest.skip(f"the oracle is torch 2.13, this is {torch.__version__}")
    return load_tool("make_goldens")


def _run(code):
    src = PRELUDE + code + "\n"
    result = run_source(src, "round12.grad", RunOptions(seed=0))
    assert result.error is None or result.error.type_name != "InternalError", result.error.traceback_text
    return result


@pytest.mark.parametrize("code", FUNCTIONAL)
def test_functional_refused(code):
    result = _run(code)
    assert result.error is not None and result.error.type_name == "TypeError", result.stdout


@pytest.mark.parametrize("code", FUNCTIONAL + TAKEN + DOUBTFUL + DOUBTFUL_TAKEN)
def test_as_torch(code, make_goldens, tmp_path):
    script = tmp_path / "case.grad"
    script.write_text(PRELUDE + code + "\n", encoding="utf-8")
    oracle = make_goldens.run_one(script)
    result = _run(code)
    assert result.stdout.encode("utf-8") == oracle.out
    if oracle.err is None:
        assert result.error is None, result.error.message
    else:
        assert result.error is not None, f"torch raised {oracle.err.splitlines()[0]}"
        assert error_text(result.error.type_name, result.error.message) == \
            normalized_error_text(oracle.err.splitlines()[0])


def test_long_lists_are_not_remembered_by_the_argument_cache():
    """argcheck._fits_known remembers a call's argument classes (a list's item by item): lists of ever new
    lengths (x.clamp(min=[1] * n)) must not pile up keys of n item classes each."""
    from gradcli.engine import api as torch  # noqa: PLC0415
    from gradcli.engine import argcheck  # noqa: PLC0415
    x = torch.ones(3)
    before = len(argcheck._FITS)
    for n in range(40, 60):
        with pytest.raises(TypeError, match="invalid combination"):
            x.clamp(min=[1] * n)
    assert len(argcheck._FITS) == before
    for _ in range(2):  # a short one may be remembered (once), and is still refused
        with pytest.raises(TypeError, match="invalid combination"):
            x.clamp(min=[1])
    assert len(argcheck._FITS) <= before + 1
