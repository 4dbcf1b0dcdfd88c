"""Argument errors and scalar checks against real PyTorch 2.13 (skipped without it): each case is a short
script run by gradcli's runner and by torch (tools/make_goldens.py's run_one, torch-echo's semantics), whose
stdout and error line (`Type: message`, the message's first line) must be the same.

The cases: Python ints past 64 bits as torch's Scalars ("int too big to convert"; a Scalar of 2**63 or more
is a uint64, which an int64 tensor's arithmetic wraps, while fill_/full check it), as int64 values
(x[k] = v: "Overflow when unpacking long long") and in int lists (sizes, shapes); arguments of the wrong type
where a str, a torch.dtype or nothing is taken (the parser's TypeError, not the implementation's own error)."""
from __future__ import annotations

import pytest

from gradcli.lang.runner import RunOptions, run_source
from gradcli.testing.golden import error_text, normalized_error_text
from tool_modules import load_tool

PRELUDE = "import torch\nimport torch.nn.functional as F\nx = torch.tensor([1., 2.])\nt = torch.tensor([1, 2])\n"

BIG_INTS = [
    "torch.ones(2) + 2**70", "x.clamp(max=2**64)", "x.clamp(0, 2**64)", "x.fill_(2**64)", "torch.full((2,), 2**70)",
    "x * (-2**63 - 1)", "t + 2**64", "t * 2**63", "t + 2**63", "t // 2**63", "t * -2**63",
    "torch.tensor([1, 2], dtype=torch.int32) + 2**63", "t == 2**63", "torch.tensor(3) * 2**63",
    "torch.tensor(3.) * 2**70", "x.add(1, alpha=2**64)", "torch.add(x, 2**64)", "x.masked_fill(x > 1, 2**64)",
    "x.pow(2**64)", "x == 2**64", "x.lerp(x, 2**64)", "torch.where(x > 1, x, 2**64)", "torch.full((2,), 2**63)",
    "t.fill_(2**63)", "torch.ones(2).half() * 2**64", "x += 2**64", "torch.tensor([True]) + 2**64",
    "x.new_full((2,), 2**64)", "t & 2**64", "x[0] = 2**64", "x[0] = 2**63", "t[0] = -2**63 - 1",
    "x[:] = 2**64", "x[0] = 2**63 - 1\nx", "x.real = 2**64", "torch.arange(2**64)", "torch.arange(2**63)",
    "torch.arange(0, 3, 2**64)", "torch.arange(0, 3, 2**63)", "torch.arange(0., 3, 2**63)",
    "torch.linspace(0, 2**64, 3)", "torch.ones(2**64)", "torch.zeros(2, 2**64)", "torch.ones((2, 2**63))",
    "x.view(2**64)", "x.view(1, -2**63 - 1)", "x.reshape(2**64)",
]

CHOICES = [
    "F.pad(x, (1, 1), mode=object())", "F.pad(x, (1, 1), None)", "F.pad(x, (1, 1), mode='bad')",
    "F.gelu(x, approximate=object())", "F.gelu(x, approximate=None)", "F.gelu(x, approximate='bad')",
    "torch.div(x, x, rounding_mode=object())", "torch.div(x, 2, rounding_mode=1)", "torch.div(x, x, rounding_mode='x')",
    "x.div(2, rounding_mode='x')", "torch.einsum('i', object())", "torch.einsum(1, x)", "torch.einsum('i,i', x, 1)",
    "torch.einsum('i', [x, 1])", "torch.einsum('i', (x,))", "x.view(foo=1)", "x.view(size=1, foo=2)",
    "x.view(2, foo=2)", "torch.arange(1, None)", "torch.arange(None)", "torch.arange(1, 2, None)",
    "torch.arange(None, 3)", "torch.arange(1, end=None)", "torch.arange(end=3)", "torch.arange()",
    "torch.arange(1, end=3)", "x.relu(1)", "x.relu_(1)", "torch.relu(x, True)", "F.relu(x, True)",
    "torch.iinfo(int)", "torch.iinfo(float)", "torch.iinfo(bool)", "torch.iinfo(complex)", "torch.iinfo(None)",
    "torch.iinfo(torch.float32)", "torch.iinfo(torch.bool)", "torch.iinfo(type=int)", "torch.finfo(float)",
    "torch.finfo(int)", "torch.finfo(complex)", "torch.finfo('float32')", "torch.finfo(None)", "torch.finfo()",
    "torch.finfo(torch.int32)", "torch.finfo(type=torch.float16)",
    "F.interpolate(x.reshape(1, 1, 2), mode=1, scale_factor=2)",
]

# an int parameter takes a 0-d integer Tensor (not bool), not a one-element one (argcheck.takes_int, one rule)
INT_TENSORS = [
    "torch.polygamma(torch.tensor([2]), x)", "torch.polygamma(torch.tensor(2), x)", "x.polygamma(torch.tensor([1]))",
    "torch.polygamma(torch.tensor(True), x)", "torch.polygamma(True, x)", "torch.polygamma(1.0, x)",
    "torch.polygamma(2**64, x)", "torch.mvlgamma(x + 3, torch.tensor([1]))",
]

CASES = BIG_INTS + CHOICES + INT_TENSORS


@pytest.fixture(scope="module")
def make_goldens():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13."):
        pytest.skip(f"the oracle is torch 2.13, this is {torch.__version__}")
    return load_tool("make_goldens")


@pytest.mark.parametrize("code", CASES)
def test_as_torch(code, make_goldens, tmp_path):
    script = tmp_path / "case.grad"
    script.write_text(PRELUDE + code + "\n", encoding="utf-8")
    oracle = make_goldens.run_one(script)
    result = run_source(script.read_text(encoding="utf-8"), str(script), RunOptions(seed=0))
    assert result.error is None or result.error.type_name != "InternalError", result.error.traceback_text
    assert result.stdout.encode("utf-8") == oracle.out
    if oracle.err is None:
        assert result.error is None
    else:
        assert result.error is not None, f"torch raised {oracle.err.splitlines()[0]}"
        assert error_text(result.error.type_name, result.error.message) == \
            normalized_error_text(oracle.err.splitlines()[0])
