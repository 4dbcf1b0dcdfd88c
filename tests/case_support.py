"""What the golden case suites share (tests/engine_cases.py, tests/nn_cases.py): observing a
tensor, running one case in a clean state, normalising observations to strict JSON, and
comparing a golden observation with gradcli's. Also what the sandbox rounds share
(tests/test_sandbox_round*.py): running a script after a head and asserting a clean refusal; and what
the float64 case tables share (tests/test_distributions.py, tests/test_losses_composite.py): gradcheck
of a case and its comparison with torch.

The suites run once with real PyTorch (tools/case_goldens.py writes the goldens) and once with
gradcli's engine (tests/test_engine_goldens.py, tests/test_nn.py, tests/test_optim.py).
"""
from __future__ import annotations

import math
import re
import warnings

import numpy as np


def err(fn):
    """`Type: first line of message` of what fn raises, or 'no error'."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - every error type is an observation
        msg = str(e).split("\n")[0]
        return f"{type(e).__name__}: {msg}" if msg else type(e).__name__
    return "no error"


def fname(t):
    fn = t.grad_fn
    return None if fn is None else fn.name()


def vals(t):
    if t is None:
        return None
    return t.detach().clone().tolist()  # clone: torch's lazy zero tensors refuse tolist()


def info(t):
    """Everything a user sees of a tensor: repr, dtype, shape, flags, grad_fn name, exact values."""
    if t is None:
        return None
    return [repr(t), str(t.dtype), list(t.shape), t.requires_grad, t.is_leaf, fname(t), vals(t)]


def graph(fn, depth=6, short_names=False):
    """A grad_fn and its next_functions, recursively: 'MulBackward0(AccumulateGrad:0, None:0)'.
    short_names drops the 'torch::autograd::' of AccumulateGrad's name."""
    if fn is None:
        return "None"
    name = fn.name()
    if short_names:
        name = name.replace("torch::autograd::", "")
    if depth == 0:
        return name
    parts = [f"{graph(nf, depth - 1, short_names)}:{i}" for nf, i in fn.next_functions]
    return f"{name}({', '.join(parts)})" if parts else name


def grad_of(x):
    """x.grad without the non-leaf warning noise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return x.grad


def collect_cases(namespace, registered):
    """name -> function, in definition order: the `case_NAME` functions of a suite module's
    namespace, then the generated families it registered."""
    out = {name[5:]: obj for name, obj in namespace.items() if name.startswith("case_") and callable(obj)}
    out.update(registered)
    return out


_ADDR = re.compile(r"0x[0-9a-fA-F]+")
_TRIGGERED = re.compile(r" \(Triggered internally at .*\)$")


def normalise(v):
    """Observations as strict-JSON values: addresses masked, nan/inf as tagged strings."""
    if v is None or isinstance(v, (bool, int)):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "float:nan"
        if math.isinf(v):
            return "float:inf" if v > 0 else "float:-inf"
        return v
    if isinstance(v, str):
        return _TRIGGERED.sub("", _ADDR.sub("0x?", v))
    if isinstance(v, (list, tuple)):
        return [normalise(x) for x in v]
    if isinstance(v, np.generic):
        return normalise(v.item())
    if isinstance(v, np.ndarray):
        return ["ndarray", str(v.dtype), normalise(v.tolist())]
    return normalise(repr(v))


def reset(torch):
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.set_printoptions(profile="default")
    torch.manual_seed(0)


def run_case(torch, fn):
    """Run one case in a clean state; returns its normalised observations (warnings appended)."""
    reset(torch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            obs = list(fn(torch))
        except Exception as e:  # noqa: BLE001
            msg = str(e).split("\n")[0]
            obs = [f"raised: {type(e).__name__}: {msg}"]
        finally:
            reset(torch)
    for w in caught:
        msg = str(w.message).splitlines()[0] if str(w.message) else ""
        obs.append(f"warning: {w.category.__name__}: {msg}")
    return normalise(obs)


# ---------------------------------------------------------------------------- comparison

_NUM = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")


def close_text(want, got, rel):
    """Two printed texts that differ only in the last printed digit of some numbers (float32
    kernels round the last bit differently: ATen's vectorized sqrt/erf/FMA versus NumPy's)."""
    if not (isinstance(want, str) and isinstance(got, str)) or _NUM.sub("#", want) != _NUM.sub("#", got):
        return False
    for a, b in zip(_NUM.findall(want), _NUM.findall(got)):
        if a == b:
            continue
        mant = a.split("e")[0]
        decimals = len(mant.split(".")[1]) if "." in mant else 0
        unit = 10.0 ** -decimals * (10.0 ** int(a.split("e")[1]) if "e" in a else 1.0)
        x, y = float(a), float(b)
        if abs(x - y) > max(1.5 * unit, rel * max(abs(x), abs(y))):
            return False
    return True


def first_difference(want, got, rel, abs_tol, last_digit_texts=False, path="obs"):
    """The first difference between two normalised observations, as text (None when equal).
    Strings must match exactly (or, with last_digit_texts, up to close_text); floats within
    rel/abs_tol."""
    if isinstance(want, float) or (isinstance(want, int) and not isinstance(want, bool) and isinstance(got, float)):
        if isinstance(got, (int, float)) and not isinstance(got, bool):
            if math.isclose(want, got, rel_tol=rel, abs_tol=abs_tol):
                return None
        return f"{path}: expected {want!r}, got {got!r}"
    if isinstance(want, list):
        if not isinstance(got, list):
            return f"{path}: expected a list {want!r}, got {got!r}"
        if len(want) != len(got):
            return f"{path}: expected {len(want)} items, got {len(got)}\n  expected {want!r}\n  got      {got!r}"
        for i, (w, g) in enumerate(zip(want, got)):
            d = first_difference(w, g, rel, abs_tol, last_digit_texts, f"{path}[{i}]")
            if d:
                return d
        return None
    if type(want) is not type(got) or want != got:
        if last_digit_texts and close_text(want, got, rel):
            return None
        return f"{path}:\n  expected {want!r}\n  got      {got!r}"
    return None


# ---------------------------------------------------------------------------- float64 case tables
# A case is (function of (torch module, *inputs) giving a tensor, the inputs that get gradients, the
# constant inputs), each input a nested list; integer constants become int64, the rest float64.

def float64_inputs(torch, case):
    fn, variables, constants = case
    xs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in variables]
    cs = [torch.tensor(c, dtype=torch.int64 if isinstance(c[0], int) else torch.float64) for c in constants]
    return fn, xs, cs


def assert_gradchecks(engine, case):
    """gradcheck and gradgradcheck of the case against float64 central differences."""
    from gradcli.engine.gradcheck import gradcheck, gradgradcheck

    fn, xs, cs = float64_inputs(engine, case)
    assert gradcheck(lambda *v: fn(engine, *v, *cs), tuple(xs))
    assert gradgradcheck(lambda *v: fn(engine, *v, *cs), tuple(xs))


def assert_matches_torch(engine, torch, case):
    """The case's grad_fn name, values and gradients (of the sum) in gradcli and in torch."""
    results = []
    for lib in (engine, torch):
        fn, xs, cs = float64_inputs(lib, case)
        out = fn(lib, *xs, *cs)
        grads = lib.autograd.grad(out.sum(), xs)
        results.append((out.grad_fn.name(), out.tolist(), [g.tolist() for g in grads]))
    (ours_fn, ours, ours_g), (theirs_fn, theirs, theirs_g) = results
    assert ours_fn == theirs_fn
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
    for a, b in zip(ours_g, theirs_g, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def case_table_tests(cases):
    """The two tests of a table of cases (name -> (fn, variables, constants)), for a test module to bind:
    ``test_gradcheck, test_matches_torch = case_table_tests(CASES)``."""
    import pytest  # noqa: PLC0415 - a test-time helper; the module's other users need no pytest

    from gradcli.engine import api as engine  # noqa: PLC0415

    @pytest.mark.parametrize("name", sorted(cases))
    def test_gradcheck(name):
        assert_gradchecks(engine, cases[name])

    @pytest.mark.parametrize("name", sorted(cases))
    def test_matches_torch(name):
        assert_matches_torch(engine, pytest.importorskip("torch"), cases[name])

    return test_gradcheck, test_matches_torch


# ---------------------------------------------------------------------------- sandbox rounds

def run_script(head, filename, src, **options):
    """Run head + src in-process (the sandbox rounds' scripts), a 10 s timeout unless told."""
    from gradcli.lang.runner import RunOptions, run_source

    options.setdefault("timeout", 10)
    return run_source(head + src, filename, RunOptions(**options))


def refused_script(head, filename, src, type_name=None, message=None, **options):
    """Run head + src and assert that it ended in the script's own located error (never an
    internal one), after the head's lines, of that type and with that text in its message."""
    from gradcli.lang.errors import GradScriptError
    from gradcli.lang.runner import InternalError

    result = run_script(head, filename, src, **options)
    error = result.error
    assert error is not None, f"not refused: {src!r} printed {result.stdout!r}"
    assert isinstance(error, GradScriptError) and not isinstance(error, InternalError), error.traceback_text
    assert error.line is not None and error.line > head.count("\n")
    if type_name is not None:
        assert error.type_name == type_name, (error.type_name, error.message)
    if message is not None:
        assert message in error.message, error.message
    return result


# ---------------------------------------------------------------------------- script fixtures

def seeded_run(src, filename="t.grad"):
    """Run src in-process with seed 0 (what a test of one construct needs)."""
    from gradcli.lang.runner import RunOptions, run_source

    return run_source(src, filename, RunOptions(seed=0))


def seeded_out(src):
    """What src printed; fails with the script's located error if it raised one."""
    result = seeded_run(src)
    assert result.error is None, f"{result.error.type_name}: {result.error.message} (line {result.error.line})"
    return result.stdout


def seeded_error(src):
    """The script's own error (never an internal one) that src ended in."""
    from gradcli.lang.runner import InternalError

    result = seeded_run(src)
    assert result.error is not None, "expected an error"
    assert not isinstance(result.error, InternalError), result.error.traceback_text
    return result.error


def assert_same_value_error(engine, torch, make):
    """make(distributions, lib) raises ValueError with the same text on the engine as on torch."""
    import pytest

    messages = []
    for lib in (engine, torch):
        with pytest.raises(ValueError) as info:
            make(lib.distributions, lib)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
