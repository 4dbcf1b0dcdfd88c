"""Goldens for gradcli/engine/numerics.py: torch's CPU sum/mean/var/std bits on many layouts.

    /tmp/oracle/bin/python tools/gen_numerics_goldens.py     (a Python with torch==2.13.0)

writes tests/golden/numerics_cases.json.  Each case names how to build its input with NumPy
(seeded data, then permute/slice/expand views), the reduction, and torch's result as the hex
of its bytes; tests/test_numerics.py rebuilds the input (checking its sha256) and compares
numerics' result bit for bit, with no torch needed.  Sizes reach past the 32768-element
grain so the two-pass and dim-split threading paths are covered (torch.get_num_threads() is
recorded: the goldens hold for that thread count).
"""
from __future__ import annotations

import hashlib
import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "numerics_cases.json"


def values(spec):
    """A case's seeded float64 values before the layout steps (rounded, made positive, special
    values placed where the spec says)."""
    rng = np.random.default_rng(spec["seed"])
    x = rng.standard_normal(tuple(spec["shape"])) * spec.get("scale", 1.0) + spec.get("offset", 0.0)
    if spec.get("round"):
        x = np.round(x)
    if spec.get("abs"):
        x = np.abs(x)
    for pos, val in spec.get("special", []):
        x.reshape(-1)[pos] = float(val)
    return x


def make_array(spec):
    """The NumPy input of a case: seeded values, then the layout steps as views."""
    x = values(spec)
    a = np.ascontiguousarray(x.astype(spec["dtype"]))
    for step in spec.get("layout", []):
        kind = step[0]
        if kind == "permute":
            a = a.transpose(step[1])
        elif kind == "slice":
            _, d, start, stop, stride = step
            sl = [slice(None)] * a.ndim
            sl[d] = slice(start, stop, stride)
            a = a[tuple(sl)]
        elif kind == "expand":
            _, d, n = step
            a = np.expand_dims(a, d)
            shp = list(a.shape)
            shp[d] = n
            a = np.broadcast_to(a, shp)
        elif kind == "channels_last":
            a = np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    return a


def input_digest(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes() + str(a.shape).encode()).hexdigest()[:16]


def to_hex(r):
    r = np.ascontiguousarray(r)
    return {"dtype": str(r.dtype), "shape": list(r.shape), "hex": r.tobytes().hex()}


def make_tensor(torch, spec):
    x = values(spec)
    t = torch.from_numpy(np.ascontiguousarray(x.astype(spec["dtype"])))
    for step in spec.get("layout", []):
        kind = step[0]
        if kind == "permute":
            t = t.permute(*step[1])
        elif kind == "slice":
            _, d, start, stop, stride = step
            sl = [slice(None)] * t.dim()
            sl[d] = slice(start, stop, stride)
            t = t[tuple(sl)]
        elif kind == "expand":
            _, d, n = step
            t = t.unsqueeze(d)
            shp = list(t.shape)
            shp[d] = n
            t = t.expand(*shp)
        elif kind == "channels_last":
            t = t.contiguous(memory_format=torch.channels_last)
    return t


def run_torch(torch, spec):
    t = make_tensor(torch, spec)
    op, dims, keep = spec["op"], spec.get("dims"), spec.get("keepdim", False)
    kw = {} if dims is None else {"dim": dims, "keepdim": keep}
    if op in ("sum", "mean"):
        if spec.get("dtype_arg"):
            kw["dtype"] = getattr(torch, spec["dtype_arg"])
        return [getattr(t, op)(**kw).numpy()]
    corr = spec.get("correction", 1)
    if op in ("var", "std"):
        return [getattr(t, op)(correction=corr, **kw).numpy()]
    fn = torch.var_mean if op == "var_mean" else torch.std_mean
    return [r.numpy() for r in fn(t, correction=corr, **kw)]


def run_numerics(numerics, spec, a=None):
    a = make_array(spec) if a is None else a
    op, dims, keep = spec["op"], spec.get("dims"), spec.get("keepdim", False)
    dims = None if dims is None else tuple(dims)
    keep = keep if dims is not None else False
    if op == "sum":
        return [numerics.torch_sum(a, dims, keep, spec.get("dtype_arg"))]
    if op == "mean":
        return [numerics.torch_mean(a, dims, keep, spec.get("dtype_arg"))]
    from gradcli.engine import variance  # noqa: PLC0415 - var/std live beside numerics

    corr = spec.get("correction", 1)
    if op in ("var", "std"):
        return [variance.torch_var(a, dims, corr, keep, op == "std")]
    return list(variance.torch_var(a, dims, corr, keep, op == "std_mean", True))


def cases():
    """The case specs (deterministic)."""
    out = []
    rng = np.random.default_rng(20260601)

    def add(**spec):
        spec.setdefault("seed", len(out) + 1)
        spec["id"] = f"{spec['op']}_{len(out):03d}"
        out.append(spec)

    # the tutorial's shapes and the lane/ILP edges of the vectorised inner sum
    for n in (1, 3, 5, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 255, 257, 1000, 2000, 4099):
        add(op="sum", shape=[n], dtype="float32", scale=100.0)
    for n in (7, 33, 1000, 40000):
        add(op="sum", shape=[n], dtype="float64")
        add(op="sum", shape=[n], dtype="float16", scale=0.05)
    # two-pass (one output, numel >= 32768) and its exact-grain edge
    for n in (32768, 32769, 65537, 150001):
        add(op="sum", shape=[n], dtype="float32")
    add(op="sum", shape=[300, 150], dtype="float32", layout=[["slice", 1, 0, 140, 1]])
    add(op="sum", shape=[400, 130], dtype="float64", layout=[["permute", [1, 0]]])
    # dim-split over threads (parallel_dim_reduction, 128-byte column rounding)
    for rows, cols in ((400, 100), (700, 70), (330, 129), (1000, 33), (64, 600)):
        add(op="sum", shape=[rows, cols], dtype="float32", dims=[0])
        add(op="sum", shape=[rows, cols], dtype="float32", dims=[1])
    add(op="sum", shape=[500, 100], dtype="float16", scale=0.1, dims=[0])
    add(op="sum", shape=[100, 500], dtype="float16", scale=0.1, dims=[1])
    add(op="sum", shape=[300, 200], dtype="float64", dims=[0], keepdim=True)
    # batch-norm style and channels-last
    add(op="sum", shape=[4, 8, 16, 16], dtype="float32", dims=[0, 2, 3])
    add(op="sum", shape=[4, 8, 16, 16], dtype="float32", dims=[0, 2, 3], layout=[["channels_last"]])
    add(op="sum", shape=[4, 8, 16, 16], dtype="float16", scale=0.1, dims=[0, 2, 3])
    add(op="sum", shape=[4, 8, 16, 16], dtype="float32", dims=[1], layout=[["channels_last"]])
    # special values
    add(op="sum", shape=[2], dtype="float32", special=[[0, "-0.0"], [1, "-0.0"]])
    add(op="sum", shape=[100], dtype="float32", special=[[17, "nan"]])
    add(op="sum", shape=[100], dtype="float32", special=[[3, "inf"], [90, "-inf"]])
    add(op="sum", shape=[40000], dtype="float32", scale=1e37)
    # dtype arguments
    add(op="sum", shape=[64, 50], dtype="float16", dtype_arg="float32")
    add(op="sum", shape=[64, 50], dtype="float32", dtype_arg="float64", dims=[1])
    add(op="sum", shape=[64, 50], dtype="float32", dtype_arg="float16", dims=[0], scale=0.1)
    # random layouts and dims
    for _ in range(70):
        nd = int(rng.integers(1, 5))
        shape = [int(rng.choice([1, 2, 3, 5, 8, 13, 16, 17, 31, 40, 64, 100])) for _ in range(nd)]
        dt = str(rng.choice(["float32", "float32", "float64", "float16"]))
        layout = []
        if nd >= 2 and rng.random() < 0.4:
            layout.append(["permute", [int(i) for i in rng.permutation(nd)]])
        if rng.random() < 0.3:
            d = int(rng.integers(0, nd))
            layout.append(["slice", d, int(rng.integers(0, 2)), None, int(rng.integers(1, 3))])
        if rng.random() < 0.2:
            layout.append(["expand", int(rng.integers(0, nd + 1)), int(rng.integers(2, 5))])
        ndim_after = nd + sum(1 for s in layout if s[0] == "expand")
        dims = None if rng.random() < 0.25 else sorted(int(d) for d in rng.choice(ndim_after, int(rng.integers(1, ndim_after + 1)), replace=False))
        op = str(rng.choice(["sum", "sum", "sum", "mean"]))
        add(op=op, shape=shape, dtype=dt, layout=layout, dims=dims, keepdim=bool(rng.random() < 0.3),
            scale=float(10 ** rng.uniform(-2, 3)) * (0.05 if dt == "float16" else 1.0), offset=float(rng.standard_normal()))
    # mean
    for shape, dims, dt in (([2000], None, "float32"), ([50000], None, "float32"), ([300, 7], [0], "float64"),
                            ([64, 64], [1], "float16"), ([10, 20, 30], [0, 2], "float32")):
        add(op="mean", shape=shape, dims=dims, dtype=dt)
    add(op="mean", shape=[64, 50], dtype="float16", dtype_arg="float32", dims=[1])
    # var / std (two-pass for a whole float tensor, Welford otherwise) and var_mean / std_mean
    for op in ("var", "std", "var_mean", "std_mean"):
        for shape, dims, dt, corr in (([1000], None, "float32", 1), ([300, 40], [1], "float32", 0),
                                      ([40, 300], [0], "float64", 1), ([50, 60], None, "float64", 2),
                                      ([33, 17], [0, 1], "float16", 1), ([40000], None, "float32", 1)):
            add(op=op, shape=shape, dims=dims, dtype=dt, correction=corr, offset=3.0)
    return out


def main():
    import torch  # noqa: PLC0415
    sys.path.insert(0, str(ROOT))
    from gradcli.engine import numerics  # noqa: PLC0415

    numerics.NUM_THREADS = torch.get_num_threads()
    records, diffs = [], 0
    for spec in cases():
        a = make_array(spec)
        want = run_torch(torch, spec)
        got = run_numerics(numerics, spec, a)
        rec = dict(spec)
        rec["input_sha"] = input_digest(a)
        rec["expect"] = [to_hex(w) for w in want]
        if [to_hex(g) for g in got] != rec["expect"]:
            diffs += 1
            print("numerics differs from torch on", spec["id"], file=sys.stderr)
        records.append(rec)
    data = {"torch": torch.__version__, "num_threads": torch.get_num_threads(),
            "cpu_capability": torch.backends.cpu.get_cpu_capability(), "cases": records}
    OUT.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {len(records)} cases to {OUT.relative_to(ROOT)} ({diffs} differ from numerics today)")


if __name__ == "__main__":
    main()
