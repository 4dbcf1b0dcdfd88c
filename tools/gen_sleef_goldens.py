"""Goldens for the SLEEF-based kernels (gradcli/engine/pow_kernel.py, softmax_kernel.py): torch's float32/
float64 pow and float32 softmax/log_softmax/sigmoid/silu bits, per CPU capability.

    python3 tools/gen_sleef_goldens.py          (a Python with torch==2.13.0)

writes tests/golden/sleef_cases.json. Each case builds its inputs as tools/gen_numerics_goldens.py does
(seeded values, then permute/slice/expand views) and runs tensor ** tensor, tensor ** number,
number ** tensor, the in-place x.pow_(number), softmax or log_softmax, some with a backward pass (the
gradient of pow's base uses pow again). torch runs once per CPU capability this machine offers
(ATEN_CPU_CAPABILITY=default, avx2, avx512; each in its own process, since ATen reads it once) and the
sha256 of each result's bytes is recorded per capability; tests/test_sleef_kernels.py replays every case
under each recorded capability (rng_math.set_capability) without torch. The pow shapes cross the
2 * Vectorized<T>::size() blocks of the vectorised loop (16/32 floats, 8/16 doubles), broadcast inner
sizes 1..40, transposed and strided inputs, the 32768-element grain where the work is split between
threads (torch.get_num_threads() is recorded), negative bases, 0, inf and nan; the softmax rows cross
the 8/16-lane accumulators, forward and backward; sigmoid and silu share pow's loop shapes.
"""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "sleef_cases.json"
sys.path.insert(0, str(ROOT / "tools"))
import gen_numerics_goldens as G  # noqa: E402

CAPS = ("default", "avx2", "avx512")


def digest(r):
    r = np.ascontiguousarray(r)
    return hashlib.sha256(r.tobytes() + f"{r.dtype}{r.shape}".encode()).hexdigest()[:24]


def input_digests(case):
    """The inputs' digests: the test skips a case whose seeded values this NumPy draws otherwise."""
    return [G.input_digest(G.make_array(s)) for s in (case["x"], case["y"]) if isinstance(s, dict)]


def cases():
    out = []
    rng = np.random.default_rng(20261202)

    def arr(shape, dt, **kw):
        return {"shape": list(shape), "dtype": dt, "seed": 1000 + len(out) * 7 + len(kw), **kw}

    def add(kind, dt, x, y, grad=False):
        spec = {"id": f"{kind}_{dt[5:]}_{len(out):03d}", "kind": kind, "dtype": dt, "x": x, "y": y, "grad": grad}
        if isinstance(x, dict):
            x["seed"] = 10 * len(out) + 1
        if isinstance(y, dict):
            y["seed"] = 10 * len(out) + 2
        out.append(spec)

    for dt in ("float32", "float64"):
        # the tutorial's form: (n, 1) ** (3,) and its contiguous twin
        add("tt", dt, arr([2000, 1], dt, scale=1.8), arr([3], dt, round=True, abs=True, offset=2.0))
        add("tt", dt, arr([2000], dt, scale=1.8), arr([2000], dt, scale=0.0, offset=3.0))
        # contiguous sizes around the vector blocks
        for n in (1, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 100, 1000):
            add("tt", dt, arr([n], dt, abs=True, scale=3.0), arr([n], dt, scale=2.0))
        # broadcast inner sizes 1..40 (a stride-0 base or exponent row)
        for k in range(1, 41):
            add("tt", dt, arr([5, 1], dt, scale=2.0), arr([k], dt, round=bool(k % 2), scale=3.0))
        for k in (1, 8, 16, 17, 32, 33, 40):
            add("tt", dt, arr([k], dt, abs=True, scale=2.0), arr([3, 1], dt, scale=2.0))
            add("tt", dt, arr([k, 6], dt, abs=True, scale=2.0), arr([], dt, offset=2.5))
            add("tt", dt, arr([], dt, offset=1.5), arr([6, k], dt, scale=2.0))
        # transposed, strided, expanded
        add("tt", dt, arr([40, 33], dt, abs=True, layout=[["permute", [1, 0]]]), arr([33, 40], dt))
        add("tt", dt, arr([40, 70], dt, abs=True, layout=[["slice", 1, 1, None, 2]]), arr([40, 35], dt))
        add("tt", dt, arr([17, 50], dt, abs=True, layout=[["permute", [1, 0]]]),
            arr([17, 50], dt, layout=[["permute", [1, 0]]]))
        add("tt", dt, arr([64, 3], dt, abs=True, layout=[["expand", 0, 5]]), arr([5, 64, 3], dt, round=True))
        add("tt", dt, arr([4, 9, 35], dt, abs=True, layout=[["permute", [2, 0, 1]]]), arr([35, 4, 9], dt))
        # threads: above the 32768-element grain the range is split in two
        for n in (32768, 32769, 40001, 70000):
            add("tt", dt, arr([n], dt, abs=True, scale=2.0), arr([n], dt, scale=2.0))
        add("tt", dt, arr([300, 133], dt, abs=True, scale=2.0), arr([133], dt, scale=2.0))
        # negative bases with integer and fractional exponents, and the special values
        add("tt", dt, arr([333], dt, scale=3.0), arr([333], dt, round=True, scale=4.0))
        special = [[i * 3, v] for i, v in enumerate(["0.0", "-0.0", "inf", "-inf", "nan", "1.0", "-1.0"])]
        add("tt", dt, arr([96], dt, scale=3.0, special=special),
            arr([96], dt, round=True, scale=3.0, special=[[i * 5 + 1, v] for i, v in
                                                          enumerate(["0.0", "inf", "-inf", "nan", "-0.0"])]))
        add("tt", dt, arr([96], dt, scale=30.0), arr([96], dt, scale=8.0))
        # tensor ** number: ATen's special exponents and std::pow / SLEEF otherwise
        for p in (2.5, -1.5, 4, 7, 1 / 3, 0.25, -3, 1.0000001, 10.5):
            for n in (31, 32, 33, 1000):
                add("ts", dt, arr([n], dt, abs=(p != int(p)), scale=2.0), p)
        for p in (0, 1, 2, 3, -0.5, -1, -2):  # (0.5 is sqrt: MKL's VML in torch, see docs/numerics.md)
            add("ts", dt, arr([100], dt, abs=(p in (0.5, -0.5)), scale=2.0), p)
        add("ts", dt, arr([40, 50], dt, abs=True, layout=[["permute", [1, 0]]]), 2.5)
        add("ts", dt, arr([40, 50], dt, abs=True, layout=[["slice", 1, 0, None, 3]]), 2.5)
        add("ts", dt, arr([40001], dt, abs=True), 1.7)
        add("ts", dt, arr([96], dt, scale=3.0, special=special), 3.5)
        add("ts", dt, arr([96], dt, scale=3.0, special=special), -2.0000001)
        # number ** tensor (a wrapped scalar base, a new contiguous output)
        for b in (2, 0.5, 2.718281828459045, -2, 0, 10):
            for n in (17, 32, 100):
                add("st", dt, b, arr([n], dt, round=(b <= 0), scale=3.0))
        add("st", dt, 3.0, arr([30, 40], dt, layout=[["permute", [1, 0]]]))
        # in-place
        add("inplace", dt, arr([77], dt, abs=True, scale=2.0), 2.5)
        # backward: d/dx uses pow(x, y - 1) (tensor or number exponent)
        add("tt", dt, arr([2000, 1], dt, scale=1.8), arr([3], dt, round=True, abs=True, offset=2.0), grad=True)
        add("tt", dt, arr([50], dt, abs=True, scale=2.0), arr([50], dt, scale=2.0), grad=True)
        add("ts", dt, arr([50], dt, abs=True, scale=2.0), 2.5, grad=True)
        add("ts", dt, arr([2000], dt, scale=1.8), 4, grad=True)
        add("st", dt, 2, arr([50], dt, scale=2.0), grad=True)
    # softmax / log_softmax over the last dim (float32: SLEEF's exp and log, lane-wise sums)
    for kind in ("softmax", "log_softmax"):
        for n in (1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 64, 100, 1000):
            add(kind, "float32", arr([20, n], "float32", scale=3.0), -1)
        add(kind, "float32", arr([3, 4, 40], "float32", scale=30.0), -1)
        add(kind, "float32", arr([40, 30], "float32", layout=[["permute", [1, 0]]]), -1)
        add(kind, "float32", arr([4, 50], "float32", scale=3.0, special=[[3, "-inf"], [60, "inf"], [120, "nan"]]), -1)
        # the backward (_vec_host_softmax_backward_lastdim); a single row fuses the tail's products
        for shape in ([5], [19], [43], [1, 27], [20, 5], [20, 19], [20, 43], [3, 4, 100]):
            add(kind, "float32", arr(shape, "float32", scale=3.0), -1, grad=True)
    # sigmoid / silu (float32): SLEEF's exp on the vector body of cpu_kernel_vec, glibc's expf on the tail
    for kind in ("sigmoid", "silu"):
        for n in (7, 31, 32, 33, 100, 40001):
            add(kind, "float32", arr([n], "float32", scale=8.0), None)
        add(kind, "float32", arr([40, 33], "float32", scale=8.0, layout=[["permute", [1, 0]]]), None)
        add(kind, "float32", arr([40, 66], "float32", scale=8.0, layout=[["slice", 1, 0, None, 2]]), None)
        add(kind, "float32", arr([50], "float32", scale=200.0, special=[[1, "inf"], [2, "-inf"], [3, "nan"]]), None)
    del rng
    return out


def _torch_run(torch, case):
    """torch's results for a case: [out] or [out, grad of the base or exponent tensor(s)]."""
    def build(s):
        return G.make_tensor(torch, s) if isinstance(s, dict) else s

    x, y = build(case["x"]), build(case["y"])
    kind = case["kind"]
    if case["grad"]:
        leaves = [v.detach().clone().requires_grad_() if isinstance(v, torch.Tensor) else v for v in (x, y)]
        x, y = leaves
    if kind in ("softmax", "log_softmax"):
        r = getattr(torch, kind)(x, y)
    elif kind in ("sigmoid", "silu"):
        r = torch.sigmoid(x) if kind == "sigmoid" else torch.nn.functional.silu(x)
    elif kind == "tt":
        r = torch.pow(x, y)
    elif kind == "ts":
        r = x ** y
    elif kind == "st":
        r = x ** y
    else:
        r = x.clone()
        r.pow_(y)
    res = [r.detach().numpy()]
    if case["grad"]:
        g = torch.from_numpy(np.random.default_rng(7).standard_normal(tuple(r.shape)).astype(case["dtype"]))
        r.backward(g)
        res += [v.grad.numpy() for v in (x, y) if isinstance(v, torch.Tensor)]
    return res


def _one():
    import torch  # noqa: PLC0415
    out = {}
    for case in cases():
        out[case["id"]] = [digest(r) for r in _torch_run(torch, case)]
    json.dump({"reported": torch.backends.cpu.get_cpu_capability().lower(), "torch": torch.__version__,
               "num_threads": torch.get_num_threads(), "results": out}, sys.stdout)


def main():
    top = subprocess.run([sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                         capture_output=True, text=True, check=True, env={**os.environ, "ATEN_CPU_CAPABILITY": ""})
    hw = top.stdout.strip().lower()
    caps = CAPS[:CAPS.index(hw) + 1]
    runs = {}
    for cap in caps:
        env = {**os.environ, "ATEN_CPU_CAPABILITY": cap}
        r = subprocess.run([sys.executable, __file__, "--one"], capture_output=True, text=True, check=True, env=env)
        runs[cap] = json.loads(r.stdout)
        assert runs[cap]["reported"] == cap, (cap, runs[cap]["reported"])
    records = []
    for case in cases():
        rec = dict(case)
        rec["expect"] = {cap: runs[cap]["results"][case["id"]] for cap in caps}
        rec["input_sha"] = input_digests(case)
        records.append(rec)
    doc = {"torch": runs[caps[-1]]["torch"], "num_threads": runs[caps[-1]]["num_threads"],
           "capabilities": list(caps), "cases": records}
    OUT.write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n")
    differ = sum(1 for r in records if len({json.dumps(v) for v in r["expect"].values()}) > 1)
    print(f"wrote {len(records)} cases to {OUT.relative_to(ROOT)}; capabilities {list(caps)}; "
          f"{differ} differ between capabilities")


if __name__ == "__main__":
    if sys.argv[1:] == ["--one"]:
        _one()
    else:
        main()
