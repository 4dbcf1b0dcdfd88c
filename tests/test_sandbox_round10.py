"""Red team, tenth round (docs/robustness.md, "The sandbox"): the surfaces new in session 13
(distributions, dataclasses, asarray, the LU/lstsq family, torch.utils.data's submodules), Python
ints past 64 bits where torch takes an int, script sequences as indices, and what the calculator
echoes of its expression. Each attack ends in a clean located error of the script (exit 1) or in
what Python with PyTorch prints; never a traceback, an internal error, a hang or a raw control
character on the user's terminal."""
from __future__ import annotations

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from case_support import refused_script, run_script

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import torch\nimport itertools\nimport math\nimport numpy as np\n"

run = partial(run_script, HEAD, "round10.grad")
refused = partial(refused_script, HEAD, "round10.grad")


def gradcli(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=240)


# ---------------------------------------------------------------- the calculator's echo of EXPR

@pytest.mark.parametrize("order", ["1", "2"])
def test_the_calculator_shows_control_characters_of_its_expression_escaped(order):
    # a raw ESC/BEL inside a string literal (or a comment) of EXPR is valid source: the header line, the
    # table's column title, the Hessian's heading and the note echoed it to the terminal (OSC 0 sets the
    # window title, OSC 52 the clipboard)
    expr = "x*x + len('\x1b]52;c;aGk=\x07') + 0*y.detach()"
    proc = gradcli("grad", "--order", order, expr, "x=1", "y=2")
    assert proc.returncode == 0, proc.stderr
    for stream in (proc.stdout, proc.stderr):
        assert "\x1b" not in stream and "\x07" not in stream
    assert "x*x + len('\\x1b]52;c;aGk=\\x07') + 0*y.detach() = tensor(13.)" in proc.stdout
    assert "d(x*x + len('\\x1b]52;c;aGk=\\x07')" in proc.stdout
    assert "note: x*x + len('\\x1b]52;c;aGk=\\x07')" in proc.stderr


def test_the_calculator_keeps_its_expression_whole_in_json():
    expr = "x + len('\x1b]0;t\x07')"
    proc = gradcli("grad", "--json", expr, "x=1")
    assert proc.returncode == 0, proc.stderr
    import json  # noqa: PLC0415
    assert json.loads(proc.stdout)["calculator"]["expr"] == expr


# ---------------------------------------------------------------- a script's objects as indices

SELF_SIMILAR = """
class O:
    def __len__(self):
        return 3
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError
        return O()
x = torch.ones(3)
"""


@pytest.mark.parametrize("use", ["x[O()]", "x[O()] = 1", "x[0, O()]"])
def test_a_sequence_whose_items_are_sequences_is_too_many_indices_at_once(use):
    # NumPy took the object as a nested sequence and probed it 32 levels deep (3**32 calls of the
    # script's __getitem__): a run to --timeout; torch counts the tuple's items first
    result = refused(SELF_SIMILAR + use + "\n", "IndexError", "too many indices for tensor of dimension 1",
                     max_steps=100_000)
    assert result.error.line == HEAD.count("\n") + SELF_SIMILAR.count("\n") + 1


def test_a_long_sequence_as_an_index_is_held_to_the_element_limit():
    src = ("class L:\n    def __len__(self):\n        return 10**18\n    def __getitem__(self, i):\n"
           "        return 1\nprint(torch.ones(3)[L()])\n")
    refused(src, "RuntimeError", "exceeds the limit of 100000000 elements (--max-elements)")


@pytest.mark.parametrize("key", ["R()", "print", "np.float64", "{1: 2}", "iter([1])"])
def test_an_object_that_is_no_index_is_torchs_index_error(key):
    src = f"class R:\n    def __init__(self):\n        self.a = 1\nprint(torch.ones(3)[{key}])\n"
    result = refused(src, "IndexError", "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                                        "Variables are valid indices (got ")
    assert "numpy.newaxis" not in result.error.message


# ---------------------------------------------------------------- torch.asarray's flags

@pytest.mark.parametrize("flag", ["copy", "requires_grad"])
@pytest.mark.parametrize("value, kind", [("print", "builtin_function_or_method"), ("1", "int"),
                                         ("torch.tensor(True)", "Tensor"), ("np.bool_(True)", "numpy.bool")])
def test_asarray_flags_take_only_bools(flag, value, kind):
    # a callable (or anything true) was taken as True: asarray(x, requires_grad=print) made a leaf
    refused(f"torch.asarray(torch.ones(2), {flag}={value})\n", "TypeError",
            f"asarray(): argument '{flag}' must be bool, not {kind}")


# ---------------------------------------------------------------- Python ints past int64

@pytest.mark.parametrize("call", [
    "torch.ones(3).roll(2**64)", "torch.randint(2**64, (2,))", "torch.randint(-2**64, 0, (2,))",
    "torch.ones(2, 3).chunk(2**64)", "torch.ones(2, 3).split(2**64)", "torch.ones(2, 3).diagonal(2**64)",
    "torch.ones(2, 3).diff(n=2**64)", "torch.ones(2)[2**64]", "torch.ones(2)[-2**64]", "torch.ones(2, 3).sum(2**70)",
    "torch.ones(3).tensor_split(2**64)", "torch.ones(2, 3).tril(2**64)", "torch.ones(3).topk(2**64)",
    "torch.ones(2, 3).rot90(2**64)",
])
def test_ints_past_int64_are_torchs_overflow_error(call):
    # roll, randint, chunk, split, diagonal and diff went on with the number (a result where torch refuses)
    refused(f"print({call})\n", "ValueError", "Overflow when unpacking long long")


def test_tensor_split_counts_its_sections_as_steps():
    # the loop over the script's number of sections ran uncounted: tensor_split(10**12) for ever
    refused("print(len(torch.ones(3).tensor_split(10**12)))\n", "RuntimeError",
            "step limit of 100000 exceeded (--max-steps)", max_steps=100_000)


# ---------------------------------------------------------------- alpha= given a script's object

HUGE_LEN = "class O:\n    def __len__(self):\n        return 10**12\n    def __getitem__(self, i):\n        return 1\n"


@pytest.mark.parametrize("call, message", [
    ("torch.rsub(x, x, alpha=O())", "rsub() received an invalid combination of arguments - got (Tensor, Tensor, alpha=O)"),
    ("torch.rsub(x, 3, alpha=O())", "rsub() received an invalid combination of arguments - got (Tensor, int, alpha=O)"),
    ("torch.sub(x, x, alpha=O())", "sub(): argument 'alpha' must be Number, not O"),
    ("x.add(x, alpha=O())", "add(): argument 'alpha' must be Number, not O"),
    ("x.clone().add_(x, alpha=O())", "add_(): argument 'alpha' must be Number, not O"),
    ("x.clone().sub_(x, alpha=O())", "sub_(): argument 'alpha' must be Number, not O"),
    ("torch.add(x, x, alpha=None)", "add(): argument 'alpha' must be Number, not NoneType"),
])
def test_alpha_takes_only_numbers(call, message):
    # NumPy read the object as a sequence of 10**12 items: the run's --max-memory error (sandbox9's leftover)
    refused(HUGE_LEN + f"x = torch.ones(2)\nprint({call})\n", "TypeError", message)


def test_alpha_keeps_numbers_and_zero_dim_tensors():
    result = run("x = torch.ones(2)\nprint(torch.add(x, x, alpha=torch.tensor(2.)), torch.rsub(x, 3, alpha=2.5))\n")
    assert result.error is None and result.stdout == "tensor([3., 3.]) tensor([0.5000, 0.5000])\n"


# ---------------------------------------------------------------- the engine's Python loops per item

@pytest.mark.parametrize("call", [
    "torch.linalg.lu_factor(torch.ones(10**5, 1, 1))", "torch.linalg.inv_ex(torch.zeros(10**5, 1, 1))",
    "torch.linalg.lu(torch.ones(10**5, 1, 1))", "torch.igammac(torch.full((10**5,), 1e20), torch.full((10**5,), 1e20))",
    "torch.special.gammainc(torch.full((10**5,), 3.), torch.full((10**5,), 2.))",
])
def test_per_matrix_and_per_element_loops_count_steps(call):
    # getrf's loop over the matrices of a stack and igamma's over the elements ran in Python uncounted
    # (sandbox9's leftover): 1e7 1x1 matrices or elements ran for minutes past the step limit and --timeout
    refused(f"r = {call}\n", "RuntimeError", "step limit of 2000 exceeded (--max-steps)", max_steps=2000)


def test_layer_norm_of_an_empty_input_warns_nothing():
    # NumPy's 'Mean of empty slice' RuntimeWarning reached the script's output (sandbox9's leftover)
    result = run("import torch.nn.functional as F\nprint(F.layer_norm(torch.ones(0, 0), (0,)).shape)\n")
    assert result.error is None and result.stdout == "torch.Size([0, 0])\n"
    assert not result.warnings, result.warnings


@pytest.mark.parametrize("call, name", [("torch.ones(2, 3).flip(2**64)", "flip"), ("torch.flip(torch.ones(2), [2**64])", "flip"),
                                        ("torch.ones(2, 3).permute(2**64, 0)", "permute")])
def test_dim_lists_past_int64_are_the_parsers_unpack_error(call, name):
    refused(f"print({call})\n", "TypeError", f"{name}(): argument 'dims' failed to unpack the object at pos 1 with error "
                                             "\"Overflow when unpacking long long")
