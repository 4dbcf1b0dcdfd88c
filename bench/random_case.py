"""Case 9: random numbers (issue 18). gradcli draws PyTorch's own stream with NumPy (MT19937 words in
bulk, the float32 Box-Muller emulated with exact fused multiply-adds), so its cost is measured
against torch's: `torch.randn(1000, 1000)` and the construction of `nn.Linear(4096, 4096)` (16.8M
kaiming-uniform draws and the bias), each contender in its own process."""
from __future__ import annotations

import time

from . import harness as H
from . import workloads as W


def factory9(name, cfg, param):
    from .cases import _torch  # noqa: PLC0415 - cases imports this module
    T = _torch(cfg) if name == "torch" else W.gradcli_api()
    n = 200 if cfg.quick else 1000
    width = 512 if cfg.quick else 4096

    def run():
        T.manual_seed(0)
        c0 = time.process_time()
        t0 = time.perf_counter()
        T.randn(n, n)
        t1 = time.perf_counter()
        c1 = time.process_time()
        T.nn.Linear(width, width)
        t2 = time.perf_counter()
        return {"randn": t1 - t0, "linear": t2 - t1, "randn_cpu": c1 - c0, "linear_cpu": time.process_time() - c1}
    return run, {}


def case9(cfg):
    from .cases import ISOLATION_NOTE, _isolated  # noqa: PLC0415
    n = 200 if cfg.quick else 1000
    width = 512 if cfg.quick else 4096
    results, _ = _isolated(9, ["gradcli", "torch"], cfg, cfg.reps(7, 2))
    note = ("float32 on this machine's CPU capability (the AVX2/AVX512 path: log256/sincos256 emulated with "
            "exact FMAs); the same seed gives torch's bits; " + ISOLATION_NOTE)
    return [
        H.make_row("9", "9 randn", f"torch.randn({n}, {n})", "ms", results, "randn", scale=1e3,
                   target={"kind": "ratio", "vs": "torch", "max": 3.0}, target_text="<= 3x torch", notes=[note],
                   cpu_measure="randn_cpu"),
        H.make_row("9", "9 linear", f"nn.Linear({width}, {width}) construction", "ms", results, "linear",
                   scale=1e3, target={"kind": "ratio", "vs": "torch", "max": 3.0}, target_text="<= 3x torch",
                   cpu_measure="linear_cpu"),
    ]
