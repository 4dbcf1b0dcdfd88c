"""gradcli.engine.formatting must print tensors exactly as PyTorch 2.13 does.

The golden cases (tests/golden/format_cases.json, made by tools/gen_format_goldens.py
with real torch) need no torch; the live comparison is skipped when torch is absent.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from gradcli.engine import formatting
from gradcli.engine.formatting import format_tensor, get_printoptions, set_printoptions

GOLDEN = Path(__file__).parent / "golden" / "format_cases.json"
_CASES = json.loads(GOLDEN.read_text())["cases"]

_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _dec(v):
    return _SPECIAL[v] if isinstance(v, str) else v


def rebuild(case) -> np.ndarray:
    np_dtype = np.dtype(case["np_dtype"])
    if np_dtype.kind == "c":
        flat = [complex(_dec(re), _dec(im)) for re, im in case["values"]]
    else:
        flat = [_dec(v) for v in case["values"]]
    return np.array(flat, dtype=np_dtype).reshape(case["shape"])


@pytest.fixture(autouse=True)
def _default_printoptions():
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")


@pytest.mark.parametrize("case", _CASES, ids=[c["id"] for c in _CASES])
def test_golden(case):
    if case["printoptions"]:
        set_printoptions(**case["printoptions"])
    got = format_tensor(
        rebuild(case),
        dtype_name=case["dtype_name"],
        default_dtype_name=case["default_dtype"],
        device=case["device"],
        requires_grad=case["requires_grad"],
        grad_fn_name=case["grad_fn_name"],
        is_leaf=case["is_leaf"],
    )
    assert got == case["expected"]


def test_docstring_examples():
    assert format_tensor(np.array([1.0, 2.0], np.float32), dtype_name="float32",
                         requires_grad=True) == "tensor([1., 2.], requires_grad=True)"
    assert format_tensor(np.array(17.0, np.float32), dtype_name="float32",
                         requires_grad=True, grad_fn_name="AddBackward0",
                         is_leaf=False) == "tensor(17., grad_fn=<AddBackward0>)"
    assert format_tensor(np.array([1, 2], np.int32), dtype_name="int32") == \
        "tensor([1, 2], dtype=torch.int32)"
    assert format_tensor(np.zeros((0, 3), np.float32), dtype_name="float32") == \
        "tensor([], size=(0, 3))"
    assert format_tensor(np.array(3.0), dtype_name="float64") == \
        "tensor(3., dtype=torch.float64)"
    assert format_tensor(np.array(3.0), dtype_name="float64",
                         default_dtype_name="float64") == "tensor(3.)"
    assert format_tensor(np.array([1.0], np.float32), dtype_name="float32",
                         device="cuda:0") == "tensor([1.], device='cuda:0')"
    assert format_tensor(np.array([1.0], np.float32), dtype_name="float32",
                         device="cuda") == "tensor([1.], device='cuda:0')"
    assert format_tensor(np.array([True, False]), dtype_name="bool") == \
        "tensor([ True, False])"


def test_printoptions_api():
    assert get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3,
                                  "linewidth": 80, "sci_mode": None}
    set_printoptions(profile="short", sci_mode=True)
    assert get_printoptions()["precision"] == 2
    assert get_printoptions()["edgeitems"] == 2
    assert get_printoptions()["sci_mode"] is True
    set_printoptions(precision=3)  # like torch: resets sci_mode to None
    assert get_printoptions()["sci_mode"] is None
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf
    with formatting.printoptions(precision=1):
        assert format_tensor(np.array([0.25], np.float32), dtype_name="float32") == \
            "tensor([0.2])"
    assert get_printoptions()["precision"] == 4


# ---------------------------------------------------------------------------
# live comparison with torch (skipped when torch is not importable)
# ---------------------------------------------------------------------------

_LIVE_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16",
                "int8", "uint8", "bool", "complex64"]

_LIVE_OPTS = [None, None, None, {"precision": 2}, {"threshold": 20, "edgeitems": 2},
              {"linewidth": 50}, {"sci_mode": False}, {"sci_mode": True},
              {"profile": "short"}, {"edgeitems": 0, "threshold": 10}]


def _random_values(rng, shape):
    kind = int(rng.integers(0, 8))
    a = rng.standard_normal(shape)
    if kind == 1:
        a = a * 10.0 ** int(rng.integers(-12, 14))
    elif kind == 2:
        a = np.round(a * 10.0 ** int(rng.integers(0, 10)))
    elif kind == 3:
        a = a * 10.0 ** rng.integers(-8, 9, size=shape)
    elif kind == 4:
        pool = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 2.5, 1e-5, 1e9])
        a = np.where(rng.random(shape) < 0.4, rng.choice(pool, size=shape), a)
    elif kind == 5:
        a = np.round(a * 4) / 4
    elif kind == 6:
        a = np.zeros(shape) * (-1.0 if rng.random() < 0.5 else 1.0)
    return np.asarray(a, dtype=np.float64)


def test_live_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(20240613)
    mismatches = []
    try:
        for i in range(300):
            ndim = int(rng.integers(0, 5))
            if i % 25 == 0:
                shape = tuple(int(s) for s in rng.integers(8, 14, size=max(ndim, 1)))
            else:
                shape = tuple(int(s) for s in rng.integers(0 if i % 9 == 0 else 1, 7,
                                                           size=ndim))
            dname = _LIVE_DTYPES[int(rng.integers(0, len(_LIVE_DTYPES)))]
            default = "float64" if rng.random() < 0.15 else "float32"
            opts = _LIVE_OPTS[int(rng.integers(0, len(_LIVE_OPTS)))]
            vals = _random_values(rng, shape)
            base = torch.from_numpy(vals)
            if dname == "complex64":
                t = torch.complex(base, torch.from_numpy(_random_values(rng, shape)))
                t = t.to(torch.complex64)
            elif dname in ("int64", "int32", "int16", "int8", "uint8"):
                info = np.iinfo(dname)
                lo, hi = max(info.min, -(2**53)), min(info.max, 2**53)
                ints = np.clip(np.nan_to_num(np.round(vals * 50), posinf=hi, neginf=lo), lo, hi)
                t = torch.from_numpy(np.asarray(ints.astype(dname)))
            elif dname == "bool":
                t = base > 0
            else:
                t = base.to(getattr(torch, dname))
            requires_grad = grad_fn = None
            if t.is_floating_point() and rng.random() < 0.3:
                t.requires_grad_()
                if rng.random() < 0.5:
                    t = t * 1
            grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
            requires_grad = t.requires_grad

            torch.set_default_dtype(getattr(torch, default))
            torch.set_printoptions(profile="default")
            set_printoptions(profile="default")
            if opts:
                torch.set_printoptions(**opts)
                set_printoptions(**opts)
            expected = repr(t)

            flat = t.detach()
            if dname == "bfloat16":
                data = flat.float().numpy()
            else:
                data = flat.numpy()
            got = format_tensor(data, dtype_name=dname, default_dtype_name=default,
                                requires_grad=requires_grad, grad_fn_name=grad_fn)
            if got != expected:
                mismatches.append((i, dname, shape, opts, expected, got))
    finally:
        torch.set_default_dtype(torch.float32)
        torch.set_printoptions(profile="default")
    assert not mismatches, "\n\n".join(
        f"#{i} {d} {s} {o}\nexpected:\n{e}\ngot:\n{g}" for i, d, s, o, e, g in mismatches[:5]
    )
