"""Red team, thirteenth round (docs/robustness.md, "The sandbox"): arguments torch's parser refuses that the
implementations went on with (a result, or Python's own error). Each case runs through gradcli's runner and through
torch (tools/make_goldens.py's run_one, torch-echo's semantics; skipped without torch 2.13): stdout and the error
line must be the same. Without torch, each refused one must still end in the script's own TypeError, never a result
or an internal error."""
from __future__ import annotations

import pytest

from gradcli.lang.runner import RunOptions, run_source
from gradcli.testing.golden import error_text, normalized_error_text
from tool_modules import load_tool

PRELUDE = "import torch\nx = torch.ones(2, 3)\n"

# a float where every signature wants an int, an int list or a bool (argcheck.float_misplaced)
FLOATS = [
    "x.reshape(6.0)", "x.reshape(2.0, 3)", "x.reshape(2, 3.0)", "x.permute(0.0, 1)", "x.permute(1, 0.0)",
    "x.sum(dim=1.5)", "x.squeeze(0.0)", "x.squeeze(dim=0.0)", "x.mean(1.5)", "x.prod(1.0)", "x.topk(1, largest=1.0)",
    "x.float().round(decimals=1.0)", "x.renorm(2.0, 0.0, 1.0)", "torch.sum(x, 1.5)", "torch.mean(x, 1.5)",
    "torch.squeeze(x, 0.0)", "x.view(2, 3.0)", "x.view(2.0, 3)",
]

# floats the hidden Number overloads (or a float parameter) take, and ints where floats are refused
FLOATS_TAKEN = [
    "x.div_(2.5)", "x.clamp(0.5, 1.5)", "x.pow(2.0)", "x.masked_fill(x > 0, 2.5)", "x.lerp(x, 0.5)", "x.fill_(2.5)",
    "x.eq(1.0)", "x.add(1.0)", "x.sub(x, alpha=0.5)", "x.where(x > 0, 1.0)", "x.new_full((2,), 1.5)",
    "x.index_add(0, torch.tensor([0]), torch.ones(1, 3), alpha=0.5)", "x.norm(2.0)", "x.quantile(0.5)",
    "x.histc(4, 0.0, 1.0)", "x.renorm(2.0, 0, 1.0)", "torch.clamp(x, 0.5)", "torch.pow(x, 2.0)",
    "torch.div(x, 2.5)", "torch.add(x, 1.5)", "torch.quantile(x, 0.5)", "torch.full((2,), 1.5)",
    "torch.arange(0, 1.5, 0.5)", "torch.linspace(0, 1.0, 5)", "x.reshape(3, 2)", "x.sum(1)", "torch.sum(x, 1)",
    "x.squeeze(0)", "x.permute(1, 0)",
]

# an int list whose first item is an int and a later one fails to unpack (argcheck.unpack_error): torch's TypeError
# wrapping the unpacking's error, where the implementations raised the bare ValueError or went on
UNPACK = [
    "x.sum((0, 2**64))", "x.sum(dim=(0, 2**64))", "x.sum([2**64])", "x.mean((0, 2**64))", "x.amax((0, 2**64))",
    "torch.sum(x, (0, 2**64))", "torch.amax(x, (0, 2**64))", "x.std((0, 2**64))", "x.logsumexp((0, 2**64))",
    "x.sum((0, 2**64, 1.5))", "x.sum((0, 1.5, 2**64))", "x.nansum((0, 2**64))", "x.sum((0, 1.5))",
    "torch.sum(x, (1, 'a'))",
]

# Tensor methods without a torch.X function (torch_signatures.METHOD_ONLY_SIGNATURES, arg_single.with_method_only_check)
METHOD_ONLY = [
    "x.expand(2, 3.0)", "x.expand(2.0, 3)", "x.expand((2, 3.0))", "x.expand([2.0, 3])", "x.repeat(1.0, 2)",
    "x.repeat(1, 2.0)", "x.repeat((1.0, 2))", "x.repeat([1, 2.5])", "x.expand(2, 3, implicit=1)",
    "x.new_ones([object()])", "x.new_ones(2, 3.0)", "x.addcmul(x, x, value=[1])", "x.addcdiv(x, x, value=[1])",
    "x.addcmul_(x, x, value=[1])", "x.addcmul(x, x, value='a')", "x.add(x, alpha=[1])", "x.sum_to_size(1.0, 3)",
    "x.clone().resize_(6.0)", "x.clone().fill_diagonal_([1])", "x.clone().fill_diagonal_(1, wrap=1)",
    "x.addmm(x.t(), x, beta=0.5, alpha=[2])", "x.new_zeros(True)", "x.repeat(True, 1)",
    # torch/_tensor.py's split hands what is no int to split_with_sizes
    "x.split(1.0)", "torch.split(x, 1.0)", "x.split(object())", "x.split('a')", "x.split(None)", "x.split(1.0, 0)",
    # torch.unique hands its flags to _unique2 or unique_dim
    "x.unique(sorted=1)", "x.unique(return_inverse=2)", "x.unique(return_counts=None)", "x.unique(dim=1.0)",
    "x.unique(True, True, False, 1.0)", "x.unique(object())", "torch.unique(x, sorted=[1])", "x.unique(dim='a')",
    "x.unique(sorted=True, dim=0, return_counts=1)", "x.unique(sorted=torch.tensor(True))",
]

METHOD_ONLY_TAKEN = [
    "x.add(2)", "x.add(x, alpha=2)", "x.sub(1, alpha=2)", "x.expand(2, 3)", "x.expand(torch.Size([2, 3]))",
    "x.expand(-1, 3)", "x.repeat(2, 1)", "x.repeat([2, 1])", "x.new_zeros(2, 3, dtype=torch.float64)",
    "x.new_zeros(size=(2, 3))", "x.new_full((2,), 1.5, requires_grad=True)", "x.new_ones(())",
    "x.new_ones(2, dtype=None)", "x.sum_to_size(1, 3)", "x.clone().resize_(6)", "x.expand(torch.tensor(2), 3)",
    "x.repeat(torch.tensor(2), 1)", "x.new_ones(torch.tensor(2))", "x.new_zeros(2, torch.tensor(3))",
    "x.expand(2, 3, implicit=True)", "x.expand((2, 3), implicit=False)",
    "x.addcmul(x, x, value=0.5)", "x.addcmul(x, x, value=torch.tensor(2.0))",
    "torch.addcmul(x, x, x, value=torch.tensor(2))", "x.addcdiv(x, x, value=torch.tensor(0.5))",
    "x.split(torch.tensor(1))", "x.split([1, 1])", "x.unique(sorted=False)", "x.unique(dim=0, return_counts=True)",
    "torch.unique(x, dim=torch.tensor(1))",
]

# an int for an int list of no fixed size (torch_signatures.SINGLE_UNSIZED): refused; int[1] dims take it
UNSIZED = [
    "torch.flip(x, 0)", "torch.flip(x, dims=0)", "torch.permute(x, 0)", "torch.reshape(x, 6)", "torch.tile(x, 2)",
    "torch.rot90(x, 1, 0)", "torch.broadcast_to(x, 3)", "torch.full(2, 1.0)", "torch.unflatten(x, 1, 3)",
    "torch.layer_norm(x, 3)",
]
UNSIZED_TAKEN = [
    "torch.flip(x, (0,))", "torch.ones(2)", "torch.zeros(2, 3)", "torch.full((2,), 1.0)", "torch.reshape(x, (6,))",
    "torch.rot90(x)", "torch.sum(x, 1)", "torch.amax(x, 1)", "torch.roll(x, 1, 0)", "x.flip(0)", "x.permute(1, 0)",
]


def _run(code):
    result = run_source(PRELUDE + code + "\n", "round13.grad", RunOptions(seed=0))
    assert result.error is None or result.error.type_name != "InternalError", result.error.traceback_text
    return result


@pytest.mark.parametrize("code", FLOATS)
def test_floats_refused(code):
    result = _run(code)
    assert result.error is not None and result.error.type_name == "TypeError", result.stdout


@pytest.mark.parametrize("code", UNPACK)
def test_unpack_refused(code):
    result = _run(code)
    assert result.error is not None and result.error.type_name == "TypeError", result.stdout


@pytest.mark.parametrize("code", METHOD_ONLY)
def test_method_only_refused(code):
    result = _run(code)
    assert result.error is not None and result.error.type_name == "TypeError", result.stdout


@pytest.mark.parametrize("code", METHOD_ONLY_TAKEN)
def test_method_only_taken(code):
    result = _run(code)
    assert result.error is None, result.error.message


@pytest.mark.parametrize("code", UNSIZED)
def test_unsized_refused(code):
    result = _run(code)
    assert result.error is not None and result.error.type_name == "TypeError", result.stdout


@pytest.mark.parametrize("code", UNSIZED_TAKEN)
def test_unsized_taken(code):
    result = _run(code)
    assert result.error is None, result.error.message


@pytest.mark.parametrize("code", FLOATS_TAKEN)
def test_floats_taken(code):
    result = _run(code)
    assert result.error is None, result.error.message


@pytest.fixture(scope="module")
def make_goldens():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13."):
        pytest.skip(f"the oracle is torch 2.13, this is {torch.__version__}")
    return load_tool("make_goldens")


@pytest.mark.parametrize("code", FLOATS + FLOATS_TAKEN + UNPACK + METHOD_ONLY + METHOD_ONLY_TAKEN + UNSIZED + UNSIZED_TAKEN)
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


def test_float_verdicts_are_bounded():
    """float_misplaced remembers its verdicts by the arguments' classes: ever new calls add no key past 4,096."""
    from gradcli.engine import api as torch  # noqa: PLC0415
    from gradcli.engine import argcheck  # noqa: PLC0415
    x = torch.ones(2, 3)
    for _ in range(3):
        with pytest.raises(TypeError, match="invalid combination"):
            x.sum(dim=1.5)
    assert len(argcheck._FLOATS) <= 4096
    key = ("sum", 1, (type(x),), ("dim",))
    assert argcheck._FLOATS.get(key) is True


@pytest.mark.parametrize("build", ["torch.tensor(l)", "torch.as_tensor(l)"])
def test_nested_list_past_64_dims_is_the_limit(build):
    """torch.tensor of a list nested 65 deep (torch takes it): NumPy's ValueError ("setting an array element with a
    sequence. The requested array would exceed ...") reached the script, which could catch it; it is gradcli's
    64-dimension limit, as for torch.zeros([1] * 65)."""
    from gradcli.lang.runtime import MAX_DIMS_MESSAGE  # noqa: PLC0415
    code = f"l = [1.0]\nfor i in range(100):\n    l = [l]\ntry:\n    {build}\nexcept ValueError:\n    print('caught')\n"
    result = _run(code)
    assert result.stdout == ""
    assert result.error is not None and result.error.type_name == "RuntimeError"
    assert result.error.message == MAX_DIMS_MESSAGE
