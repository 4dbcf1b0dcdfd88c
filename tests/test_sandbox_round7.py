"""Red team, seventh round (docs/robustness.md, "The sandbox"): the surfaces added since round 6
(itertools, the time module, torch.func, script classes' protocol methods, NumPy's dtypes) and the
builtins whose C loops build what the script's own operators check. Each attack ends in a clean
located error of the script (exit 1) or in what Python with PyTorch prints; never a traceback, an
internal error, a lost limit or a run that waits for ever."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest
from case_support import refused_script, run_script

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import torch\nimport itertools\nimport time\nimport numpy as np\n"

run = partial(run_script, HEAD, "round7.grad")
refused = partial(refused_script, HEAD, "round7.grad")


def gradcli(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=240)


def python_error(value):
    """What Python's own time.sleep raises for ``value`` (each fails before sleeping)."""
    try:
        time.sleep(value)
    except Exception as exc:  # noqa: BLE001 - the error is the expectation
        return type(exc).__name__, str(exc)
    raise AssertionError(f"time.sleep({value!r}) slept")


# ---------------------------------------------------------------- time.sleep

@pytest.mark.parametrize("value", ["float('inf')", "float('-inf')", "float('nan')", "10**400", "10**10",
                                   "9.3e9", "'1'", "None", "[]", "-1", "-0.5"])
def test_sleep_converts_its_argument_as_python_does(value):
    # gradcli compared the value with 0 and slept in slices until end = now + value: inf slept for ever
    # (until --timeout, which has no default), '1' was a comparison TypeError, 10**400 float()'s error
    want = python_error(eval(value))  # noqa: S307 - the test's own literal, never a script's text
    started = time.monotonic()
    result = refused(f"time.sleep({value})\n", *want, timeout=30)
    assert result.error.message == want[1]
    assert time.monotonic() - started < 20


def test_sleep_of_a_float_tensor_is_torchs_index_error():
    torch = pytest.importorskip("torch")
    want = python_error(torch.tensor(0.01))
    result = refused("time.sleep(torch.tensor(0.01))\n", *want)
    assert result.error.message == want[1]
    assert run("time.sleep(torch.tensor(0))\ntime.sleep(0.0)\ntime.sleep(True)\nprint('slept')\n").stdout == "slept\n"


# ---------------------------------------------------------------- builtins and itertools past the size limit

@pytest.mark.parametrize("src", [
    "x = sum([[0] * 10**6] * 30, [])",
    "x = sum([(0,) * 10**6] * 30, ())",
    "x = list(itertools.accumulate(['x' * 10**6] * 30))",
    "x = list(itertools.accumulate([[0] * 10**6] * 30, None))",
    "x = list(itertools.accumulate([(0,) * 10**6] * 30, initial=()))",
])
def test_sums_of_sequences_keep_the_sequence_limit(src):
    # sum(lists, []) and accumulate's default add concatenate in C (PyNumber_Add): lists and strings
    # grew past the 10,000,000 items that `a + b` allows, until --max-memory (quadratic time first)
    refused(src + "\n", "MemoryError", "exceeds the limit of 10000000 items")


def test_sum_and_accumulate_still_add_as_python():
    src = ("print(sum([[1], [2]], []), sum([(1,), (2,)], ()), sum([1, 2]), sum([1.5], 2), sum(range(5), start=3))\n"
           "print(list(itertools.accumulate([1, 2, 3])), list(itertools.accumulate([[1], [2]])))\n"
           "print(list(itertools.accumulate([1, 2], initial=5)), list(itertools.accumulate([3, 1, 2], max)))\n"
           "print(sum)\n")
    want = (f"{sum([[1], [2]], [])} {sum([(1,), (2,)], ())} {sum([1, 2])} {sum([1.5], 2)} {sum(range(5), start=3)}\n"
            f"{[1, 3, 6]} {[[1], [1, 2]]}\n{[5, 6, 8]} {[3, 3, 3]}\n<built-in function sum>\n")
    assert run(src).stdout == want
    refused("sum([1], [])\n", "TypeError", 'can only concatenate list (not "int") to list')
    refused("sum(['a'], '')\n", "TypeError", "sum() can't sum strings")


# ---------------------------------------------------------------- NumPy dtypes

@pytest.mark.parametrize("dtype", ["[('a', 'f8', (10**3, 10**3))]",
                                   "[('f%d' % i, 'U16000') for i in range(100)]"])
def test_a_structured_dtype_given_as_a_list_keeps_the_item_limit(dtype):
    # the item limit looked at dtype strings and ('f8', shape) pairs, never at a list of fields: ten
    # items of 8 MB each were made (and their print ran for minutes)
    refused(f"z = np.zeros(10**4, dtype={dtype})\n", "MemoryError", "bytes per item exceeds the limit of 65536")
    refused(f"z = np.array([1], dtype={dtype})\n", "MemoryError", "bytes per item exceeds the limit of 65536")


def test_small_structured_dtypes_still_work():
    import numpy as np
    want = np.zeros(2, dtype=[("a", "f8"), ("b", "i4", (2,))])
    assert run("print(np.zeros(2, dtype=[('a', 'f8'), ('b', 'i4', (2,))]))\n").stdout == f"{want}\n"


# ---------------------------------------------------------------- script objects where the engine expects a choice

ALWAYS_EQUAL = "class Same:\n    def __eq__(self, other):\n        return True\n"


@pytest.mark.parametrize("call", ["x.to(Same())", "torch.device(Same())", "torch.zeros(2, device=Same())",
                                  "torch.device(None)", "torch.device([1])"])
def test_a_device_that_is_no_string_is_torchs_type_error(call):
    # device() tested `type not in ("cpu", "cuda", "meta")` and `type == "cuda"`: an object equal to every
    # string was cuda, and without CuPy the run ended in the command's usage error (exit 2), not the script's
    result = refused(ALWAYS_EQUAL + f"x = torch.ones(2)\n{call}\n", "TypeError",
                     "device() received an invalid combination of arguments - got (")
    assert "(str type, int index = -1)" in result.error.message


def test_a_device_that_is_no_string_through_gradcli_run(tmp_path):
    script = tmp_path / "device.grad"
    script.write_text(HEAD + ALWAYS_EQUAL + "x = torch.ones(2)\nprint(x.to(Same()))\n")
    proc = gradcli("run", str(script))
    assert proc.returncode == 1, proc.stderr
    assert "device.grad:9:7" in proc.stderr and "CuPy" not in proc.stderr and "Traceback" not in proc.stderr


def test_devices_that_are_devices_still_work():
    src = "x = torch.ones(2)\nprint(x.to(None), x.to('cpu'), torch.device('cpu', 0), torch.zeros(1, device=None))\n"
    assert run(src).stdout == "tensor([1., 1.]) tensor([1., 1.]) cpu:0 tensor([0.])\n"


# ---------------------------------------------------------------- LBFGS closures

@pytest.mark.parametrize("value", ["5", "2.5", "torch.tensor(1.)"])
def test_an_lbfgs_closure_may_return_a_number_as_in_torch(value):
    # with no gradient on the parameters the port called p.new(n), which gradcli's tensors lack:
    # "'Parameter' object has no attribute 'new'" named gradcli's internals at the script's step()
    torch = pytest.importorskip("torch")
    w = torch.nn.Parameter(torch.ones(2))
    want = torch.optim.LBFGS([w]).step(lambda: eval(value, {"torch": torch}))  # noqa: S307 - the test's literal
    src = f"w = torch.nn.Parameter(torch.ones(2))\nprint(torch.optim.LBFGS([w]).step(lambda: {value}))\nprint(w)\n"
    assert run(src).stdout == f"{want!s}\n{w}\n"  # str(): a 0-d tensor formats as its item


# ---------------------------------------------------------------- window arguments of convolutions and pools

@pytest.mark.parametrize("call", [
    "F.conv2d(x, w, stride=0)", "F.max_pool2d(x, 2, stride=0)", "F.avg_pool2d(x, 0)", "F.unfold(x, 2, stride=0)",
    "F.fold(torch.ones(1, 4, 4), (3, 3), 2, stride=0)", "F.lp_pool2d(x, 2, 2, stride=0)",
    "F.conv2d(x, w, padding=-1)", "F.conv2d(x, w, dilation=0)", "F.max_pool2d(x, 2, padding=-1)",
    "F.conv_transpose2d(x, w, dilation=0)", "F.unfold(x, 2, dilation=0)"])
def test_window_arguments_atens_refuses_are_its_runtime_errors(call):
    # a zero stride was Python's ZeroDivisionError at the script's line; a negative padding read NumPy's
    # negative indices and a dilation of 0 slid every tap onto one element: results torch never gives.
    # The messages are torch's (goldens sandbox_window_args_*)
    refused("import torch.nn.functional as F\nx = torch.ones(1, 1, 4, 4)\nw = torch.ones(1, 1, 2, 2)\n"
            f"{call}\n", "RuntimeError")


# ---------------------------------------------------------------- long ranges

def test_random_sample_of_a_long_range_as_python():
    # gradcli's range past BIG_RANGE items (which counts its iteration as steps) was no Sequence, and
    # random.sample(range(10**9), 3), a common idiom, was "TypeError: Population must be a sequence"
    import random
    rng = random.Random()
    rng.seed(0)
    want = [rng.sample(range(10**9), 3), rng.sample(range(5, 10**8, 7), k=4)]
    src = ("import random\nrandom.seed(0)\nprint(random.sample(range(10**9), 3))\n"
           "print(random.sample(range(5, 10**8, 7), k=4))\n")
    assert run(src).stdout == f"{want[0]}\n{want[1]}\n"
    refused("import random\nx = random.sample(range(10**9), 10**8)\n", "MemoryError", "a sample of 100000000")
