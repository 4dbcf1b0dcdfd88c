"""Generate tests/golden/format_cases.json: tensor reprs printed by real PyTorch.

Run with the oracle interpreter (torch==2.13.0):

    /tmp/oracle/bin/python tools/gen_format_goldens.py

Each case stores what is needed to rebuild the tensor WITHOUT torch (numpy dtype,
shape, flat values with nan/inf as strings, complex as [re, im] pairs), the
torch dtype name, the default dtype, device, requires_grad, grad_fn name and the
print options in force, plus the expected ``repr`` from torch.  Everything is
deterministic (fixed seeds and explicit values).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "format_cases.json"

NP_DTYPE = {
    torch.float16: "float16",
    torch.bfloat16: "float32",  # numpy has no bfloat16: values are exact in float32
    torch.float32: "float32",
    torch.float64: "float64",
    torch.int8: "int8",
    torch.int16: "int16",
    torch.int32: "int32",
    torch.int64: "int64",
    torch.uint8: "uint8",
    torch.bool: "bool",
    torch.complex64: "complex64",
    torch.complex128: "complex128",
}


def dtype_name(dt: torch.dtype) -> str:
    return str(dt).replace("torch.", "")


def encode_float(v: float, np_dtype: str = "float64"):
    """JSON-safe float; float32/float16 values use their shortest round-trip repr."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if np_dtype in ("float32", "float16", "complex64"):
        narrow = np.float16 if np_dtype == "float16" else np.float32
        return float(str(narrow(v)))
    return v


def encode_values(t: torch.Tensor) -> list:
    flat = t.detach().reshape(-1)
    npd = NP_DTYPE[t.dtype]
    if t.dtype.is_complex:
        return [[encode_float(z.real, npd), encode_float(z.imag, npd)] for z in flat.tolist()]
    if t.dtype.is_floating_point:
        return [encode_float(v, npd) for v in flat.double().tolist()]
    return flat.tolist()


def record(cases, name, t, *, default="float32", opts=None):
    """Add one case; ``t`` is a torch tensor built under ``default`` and ``opts``."""
    grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    cases.append(
        {
            "id": f"{len(cases):04d}-{name}",
            "np_dtype": NP_DTYPE[t.dtype],
            "shape": list(t.shape),
            "values": encode_values(t),
            "dtype_name": dtype_name(t.dtype),
            "default_dtype": default,
            "device": str(t.device),
            "requires_grad": bool(t.requires_grad),
            "grad_fn_name": grad_fn,
            "is_leaf": bool(t.is_leaf),
            "printoptions": opts,
            "expected": repr(t),
        }
    )


def build(cases):
    g = torch.Generator().manual_seed(1234)
    rng = np.random.default_rng(42)

    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)

    # ---- explicit small values, every dtype, 0-dim to 2-d -----------------------
    explicit = [
        [1.0, 2.0],
        [1.5, 2.25, -3.125],
        [0.1, 0.2, 0.3],
        [3.0],
        [-0.0, 0.0, 1.0],
        [-0.0],
        [0.0, 0.0],
        [float("nan")],
        [float("inf"), -float("inf")],
        [float("nan"), 1.0, float("inf")],
        [float("nan"), 1.5, -float("inf")],
        [1e-5, 1.0],
        [1e8, 1.0],
        [1e9, 2.0],
        [123456789.0],
        [1e-4, 1.0, 2.0],
        [0.001, 1.0],
        [0.0009, 1.0],
        [1e-10, 1e10],
        [1e30, -1e-30, 0.0],
        [1234.5678, 0.5],
        [999.9999, 1000.0],
        [100000.0, 2.5],
        [-1.0, -2.0, -3.0],
        [1.0 / 3, 2.0 / 3, -1.0 / 7],
        [0.00012345, 0.5],
        [65504.0, -65504.0],
        [6e-8, 1.0],
        [12345678.0, 1.0],
        [2.5, float("nan"), -0.0],
        [0.5, 0.25, 0.125, 0.0625],
        [0.99995, 0.00005],
        [1.00005, 2.00015],
    ]
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        for vals in explicit:
            record(cases, f"explicit-{dtype_name(dt)}", torch.tensor(vals, dtype=dt))
    for dt in (torch.float32, torch.float64, torch.float16):
        for v in (3.0, -0.0, 0.0, 17.0, 2.5, 1e-7, 1e12, float("nan"), float("inf"), 0.1):
            record(cases, f"scalar-{dtype_name(dt)}", torch.tensor(v, dtype=dt))

    int_vals = [[1, 2, 3], [0], [-5, 100, 7], [127, -128, 0]]
    for dt in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
        for vals in int_vals:
            if dt == torch.uint8:
                vals = [abs(v) % 256 for v in vals]
            record(cases, f"int-{dtype_name(dt)}", torch.tensor(vals, dtype=dt))
        record(cases, f"int-scalar-{dtype_name(dt)}", torch.tensor(7, dtype=dt))
    record(cases, "int64-big", torch.tensor([2**62, -(2**63), 1]))
    record(cases, "int32-big", torch.tensor([2**31 - 1, -(2**31)], dtype=torch.int32))
    record(cases, "int-2d", torch.arange(12).reshape(3, 4))
    record(cases, "int-3d", torch.arange(-12, 12, dtype=torch.int32).reshape(2, 3, 4))
    for vals in ([True, False], [True], [False, False], [[True, False], [False, True]]):
        record(cases, "bool", torch.tensor(vals))
    record(cases, "bool-scalar", torch.tensor(True))
    record(cases, "bool-many", torch.tensor(rng.random(200) > 0.5))

    # ---- empty tensors -------------------------------------------------------
    for shape in ((0,), (0, 3), (2, 0), (0, 0, 1), (3, 0, 2)):
        for dt in (torch.float32, torch.float64, torch.int64, torch.int32, torch.bool,
                   torch.float16):
            record(cases, f"empty-{dtype_name(dt)}", torch.zeros(shape, dtype=dt))
    record(cases, "empty-grad", torch.zeros(0, 3, requires_grad=True))

    # ---- random float matrices ----------------------------------------------
    for dt in (torch.float32, torch.float64, torch.float16):
        for shape in ((5,), (3, 4), (2, 3, 4), (2, 2, 2, 3), (1, 1), (4, 1), (1, 6)):
            record(cases, f"randn-{dtype_name(dt)}", randn(*shape, dtype=dt))
    for scale in (1e-6, 1e-3, 1.0, 10.0, 1e3, 1e5, 1e9, 1e20):
        record(cases, f"scaled-{scale:g}", randn(3, 3) * scale)
        record(cases, f"scaled64-{scale:g}", randn(2, 4, dtype=torch.float64) * scale)
    record(cases, "mixed-magnitudes", torch.tensor([[1e-8, 1.0], [1e5, -3e7]]))
    record(cases, "exp-spread", torch.exp(torch.linspace(-20, 20, 9)))
    record(cases, "linspace", torch.linspace(0, 1, 11))
    record(cases, "arange-float", torch.arange(0.0, 10.0))
    record(cases, "ints-as-float-big", torch.tensor([1e8, 2.0]))
    record(cases, "ints-as-float-huge", torch.tensor([1e15, -3.0, 0.0]))
    record(cases, "nan-matrix", torch.tensor([[float("nan"), 1.25], [-float("inf"), 0.0]]))
    record(cases, "all-nan", torch.full((2, 2), float("nan")))
    record(cases, "zeros", torch.zeros(2, 3))
    record(cases, "neg-zeros", -torch.zeros(2, 2))
    record(cases, "ones-3d", torch.ones(2, 2, 2))
    record(cases, "f64-thirds", torch.tensor([1 / 3, 1e-300, 1e300], dtype=torch.float64))
    record(cases, "f16-subnormal", torch.tensor([6e-8, 1e-5, 0.5], dtype=torch.float16))

    # ---- wide rows that wrap -------------------------------------------------
    record(cases, "wide-1d", randn(40))
    record(cases, "wide-1d-int", torch.arange(100))
    record(cases, "wide-1d-bigint", torch.arange(100) * 1000003)
    record(cases, "wide-2d", randn(3, 25))
    record(cases, "wide-3d", randn(2, 2, 20, dtype=torch.float64))
    record(cases, "wide-sci", randn(30) * 1e-6)
    record(cases, "wide-bool", torch.tensor(rng.random(50) > 0.3))
    record(cases, "wide-intfloat", torch.arange(60.0))
    record(cases, "wide-f16", randn(30, dtype=torch.float16))
    record(cases, "wide-grad", randn(17).requires_grad_())
    record(cases, "wide-int32", torch.arange(30, dtype=torch.int32))
    for n in (8, 9, 10, 11, 12, 13):
        record(cases, f"edge-wrap-{n}", torch.full((n,), -1.2345))
        record(cases, f"edge-wrap-f64-{n}", torch.full((n,), 1.5, dtype=torch.float64,
                                                        requires_grad=True))

    # ---- summarisation (> 1000 elements) ------------------------------------
    record(cases, "big-1d", randn(2000))
    record(cases, "big-1d-int", torch.arange(5000))
    record(cases, "big-1d-1001", torch.arange(1001.0))
    record(cases, "big-2d", randn(50, 50))
    record(cases, "big-2d-thin", randn(2, 1000))
    record(cases, "big-2d-tall", randn(1000, 2))
    record(cases, "big-3d", randn(12, 12, 12))
    record(cases, "big-4d", randn(5, 6, 7, 8))
    record(cases, "big-int32", torch.arange(1500, dtype=torch.int32).reshape(30, 50))
    record(cases, "big-bool", torch.tensor(rng.random((40, 40)) > 0.5))
    record(cases, "big-f64-grad", randn(1200, dtype=torch.float64).requires_grad_())
    big_special = randn(30, 40)
    big_special[0, 0] = float("nan")
    big_special[-1, -1] = float("inf")
    big_special[15, 15] = 1e10  # hidden in the middle: must not affect format
    record(cases, "big-special", big_special)
    exactly = torch.arange(1000.0)
    record(cases, "exactly-1000", exactly)

    # ---- grad_fn / requires_grad suffixes -----------------------------------
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    record(cases, "leaf-grad", x)
    record(cases, "mul", x * 2)
    record(cases, "add", x + 1)
    record(cases, "sum", x.sum())
    record(cases, "mean", x.mean())
    record(cases, "pow", x ** 2)
    record(cases, "rsub", 1 - x)
    record(cases, "div", 2 / x)
    record(cases, "exp", x.exp())
    record(cases, "neg", -x)
    record(cases, "relu", torch.relu(x - 2))
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    record(cases, "mm", x.unsqueeze(0) @ w)
    record(cases, "view", w.view(6))
    record(cases, "transpose", w.t())
    record(cases, "scalar-leaf-grad", torch.tensor(17.0, requires_grad=True))
    record(cases, "scalar-add", torch.tensor(8.5, requires_grad=True) + 8.5)
    xd = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True)
    record(cases, "f64-grad", xd)
    record(cases, "f64-mul", xd * 3)
    xh = torch.tensor([0.5, -1.5], dtype=torch.float16, requires_grad=True)
    record(cases, "f16-grad", xh)
    record(cases, "detach", (x * 2).detach())
    lin = torch.nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]]))
        lin.bias.copy_(torch.tensor([0.01, -0.02]))
    record(cases, "linear", lin(x.unsqueeze(0)))
    long_row = torch.full((9,), -1.23456, requires_grad=True)
    record(cases, "suffix-wrap", long_row * 1)
    record(cases, "suffix-wrap-f64", torch.full((8,), -1.23456, dtype=torch.float64) * 1)
    record(cases, "suffix-wrap-f16-grad",
           torch.full((8,), -1.5, dtype=torch.float16, requires_grad=True))

    # ---- default dtype float64 ----------------------------------------------
    torch.set_default_dtype(torch.float64)
    try:
        for name, t in [
            ("d64-f64", torch.tensor([1.0, 2.5])),
            ("d64-f32", torch.tensor([1.0, 2.5], dtype=torch.float32)),
            ("d64-f16", torch.tensor([1.0, 2.5], dtype=torch.float16)),
            ("d64-int", torch.tensor([1, 2])),
            ("d64-bool", torch.tensor([True])),
            ("d64-empty", torch.zeros(0)),
            ("d64-empty-f32", torch.zeros(0, 2, dtype=torch.float32)),
            ("d64-scalar", torch.tensor(3.0)),
            ("d64-grad", torch.tensor([0.1, 0.2], requires_grad=True) * 2),
            ("d64-c128", torch.tensor([1 + 2j])),
            ("d64-c64", torch.tensor([1 + 2j], dtype=torch.complex64)),
            ("d64-randn", randn(3, 3, dtype=torch.float64)),
        ]:
            record(cases, name, t, default="float64")
    finally:
        torch.set_default_dtype(torch.float32)

    # ---- complex --------------------------------------------------------------
    record(cases, "c64", torch.tensor([1 + 2j, -3.5 - 0.5j]))
    record(cases, "c64-negzero", torch.tensor([complex(1.0, -0.0), complex(-0.0, 0.0)]))
    record(cases, "c128", torch.tensor([[1e-5 + 1j, 2 + 3j]], dtype=torch.complex128))
    record(cases, "c64-scalar", torch.tensor(2 - 1j))
    record(cases, "c64-nan", torch.tensor([complex(float("nan"), 1), complex(1, float("inf"))]))
    record(cases, "c64-empty", torch.zeros(0, dtype=torch.complex64))
    record(cases, "c64-big", torch.complex(randn(1100), randn(1100)))

    # ---- print options --------------------------------------------------------
    opt_sets = [
        {"precision": 2},
        {"precision": 8},
        {"precision": 0},
        {"threshold": 5},
        {"threshold": 5, "edgeitems": 1},
        {"threshold": 5, "edgeitems": 0},
        {"edgeitems": 0, "threshold": 10},
        {"linewidth": 40},
        {"linewidth": 120},
        {"linewidth": 10},
        {"sci_mode": True},
        {"sci_mode": False},
        {"profile": "short"},
        {"profile": "full"},
        {"profile": "short", "precision": 6},
        {"precision": 3, "sci_mode": True, "linewidth": 50},
    ]
    opt_tensors = [
        ("vec", torch.tensor([1.123456789, -2.5, 3e-3, 400.0])),
        ("ints-float", torch.tensor([1.0, 200.0, -3.0])),
        ("arange", torch.arange(10)),
        ("mat", randn(4, 5)),
        ("mat64", randn(3, 3, dtype=torch.float64) * 1e-5),
        ("big", randn(1100)),
        ("big3d", randn(11, 11, 11)),
        ("nanvec", torch.tensor([float("nan"), 0.5, -0.0])),
        ("grad", (randn(6).requires_grad_() * 2)),
        ("bool", torch.tensor([True, False] * 5)),
        ("scalar", torch.tensor(0.123456789)),
        ("huge", torch.tensor([1e20, 1.0])),
    ]
    for opts in opt_sets:
        torch.set_printoptions(**opts)
        try:
            for name, t in opt_tensors:
                record(cases, f"opts-{name}", t, opts=opts)
        finally:
            torch.set_printoptions(profile="default")

    # ---- random sweep (seeded) ---------------------------------------------------
    for i in range(60):
        ndim = int(rng.integers(0, 5))
        shape = tuple(int(s) for s in rng.integers(1, 6, size=ndim))
        kind = int(rng.integers(0, 6))
        a = rng.standard_normal(shape)
        if kind == 1:
            a = a * 10.0 ** rng.integers(-9, 12)
        elif kind == 2:
            a = np.round(a * 100)
        elif kind == 3:
            a = a * 10.0 ** rng.integers(-6, 8, size=shape)
        elif kind == 4:
            mask = rng.random(shape) < 0.3
            a = np.where(mask, np.nan, a)
        dt = [torch.float32, torch.float64, torch.float16][i % 3]
        t = torch.from_numpy(np.asarray(a, dtype=np.float64)).to(dt)
        if i % 4 == 0:
            t.requires_grad_()
        if i % 7 == 0:
            t = t.requires_grad_() * 1 if t.is_leaf else t * 1
        record(cases, f"sweep-{i}", t)


def main() -> int:
    torch.set_printoptions(profile="default")
    cases: list[dict] = []
    build(cases)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ",\n".join(json.dumps(c, allow_nan=False, separators=(",", ":")) for c in cases)
    head = json.dumps(torch.__version__)
    OUT.write_text('{"torch_version":' + head + ',"cases":[\n' + lines + "\n]}\n")
    print(f"wrote {len(cases)} cases to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
