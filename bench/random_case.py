"""Case 9: random numbers (issue 18). gradcli draws PyTorch's own stream with NumPy (MT19937 words in
bulk, the float32 Box-Muller in C where gradcli's extension is built (csrc/rng.c), else emulated with
exact fused multiply-adds, glibc's double log/sin/cos in NumPy's element loop), so its cost is measured against torch's: `torch.randn(1000, 1000)` in float32
(this machine's capability: the AVX2/AVX512 kernel) and float64, `rand`, `normal_`, `uniform_` of the
same size, and the construction of `nn.Linear(4096, 4096)` (16.8M kaiming-uniform draws and the bias),
each contender in its own process; then the float32 `randn` and `normal_` again with both contenders
under ATEN_CPU_CAPABILITY=default (glibc's logf/sinf/cosf: called from C, or vectorised in NumPy)."""
from __future__ import annotations

import os
import time

from . import harness as H
from . import workloads as W


def _workloads(T, n, width, default=False):
    x = T.empty(n, n)
    if default:
        return (("randn", lambda: T.randn(n, n)), ("normal_", lambda: x.normal_(0.5, 2.0)))
    return (
        ("randn", lambda: T.randn(n, n)),
        ("randn64", lambda: T.randn(n, n, dtype=T.float64)),
        ("rand", lambda: T.rand(n, n)),
        ("normal_", lambda: x.normal_(0.5, 2.0)),
        ("uniform_", lambda: x.uniform_(-0.3, 0.7)),
        ("linear", lambda: T.nn.Linear(width, width)),
    )


def factory9(name, cfg, param):
    from .cases import _torch  # noqa: PLC0415 - cases imports this module
    T = _torch(cfg) if name == "torch" else W.gradcli_api()
    n = 200 if cfg.quick else 1000
    width = 512 if cfg.quick else 4096
    work = _workloads(T, n, width, default=param == "default")

    def run():
        T.manual_seed(0)
        out = {}
        for key, fn in work:
            c0 = time.process_time()
            t0 = time.perf_counter()
            fn()
            out[key] = time.perf_counter() - t0
            out[key + "_cpu"] = time.process_time() - c0
        return out
    return run, {}


_ROWS = (
    ("randn", "9 randn", "torch.randn({n}, {n}), float32"),
    ("randn64", "9 randn64", "torch.randn({n}, {n}, dtype=float64)"),
    ("rand", "9 rand", "torch.rand({n}, {n})"),
    ("normal_", "9 normal_", "x.normal_(0.5, 2.0), {n}x{n} float32"),
    ("uniform_", "9 uniform_", "x.uniform_(-0.3, 0.7), {n}x{n} float32"),
    ("linear", "9 linear", "nn.Linear({w}, {w}) construction"),
)
_DEFAULT_ROWS = (
    ("randn", "9 randn dflt", "torch.randn({n}, {n}), float32, ATEN_CPU_CAPABILITY=default"),
    ("normal_", "9 normal_ dflt", "x.normal_(0.5, 2.0), {n}x{n} float32, ATEN_CPU_CAPABILITY=default"),
)


def case9(cfg):
    from .cases import ISOLATION_NOTE, _isolated  # noqa: PLC0415
    n = 200 if cfg.quick else 1000
    width = 512 if cfg.quick else 4096
    results, _ = _isolated(9, ["gradcli", "torch"], cfg, cfg.reps(7, 2))
    note = ("float32 on this machine's CPU capability (the AVX2/AVX512 path: log256/sincos256 in C, csrc/rng.c, "
            "where the extension is built, else emulated with exact FMAs in NumPy); float64 calls glibc's log/sin/cos in NumPy's element loop; the "
            "same seed gives torch's bits; " + ISOLATION_NOTE)
    rows = []
    for i, (measure, key, title) in enumerate(_ROWS):
        rows.append(H.make_row("9", key, title.format(n=n, w=width), "ms", results, measure, scale=1e3,
                               target={"kind": "ratio", "vs": "torch", "max": 3.0}, target_text="<= 3x torch",
                               notes=[note] if i == 0 else [], cpu_measure=measure + "_cpu"))
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    results, _ = _isolated(9, ["gradcli", "torch"], cfg, cfg.reps(7, 2), param="default", env=env)
    note = ("the DEFAULT build's kernels on both sides: glibc's logf/sinf/cosf per element in torch, and in "
            "gradcli's C extension where it is built (else their algorithm vectorised in NumPy, the C function "
            "itself near float32 rounding midpoints)")
    for i, (measure, key, title) in enumerate(_DEFAULT_ROWS):
        rows.append(H.make_row("9", key, title.format(n=n), "ms", results, measure, scale=1e3,
                               target={"kind": "ratio", "vs": "torch", "max": 3.0}, target_text="<= 3x torch",
                               notes=[note] if i == 0 else [], cpu_measure=measure + "_cpu"))
    return rows
