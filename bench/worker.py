"""One contender in a process of its own (memory cases, and a case that needs another environment).

    python -m bench.worker chain CONTENDER N
    python -m bench.worker elementwise CONTENDER N_ELEMENTS
    python -m bench.worker serve CASE CONTENDER QUICK(0|1) PARAM_JSON

prints one JSON line (the last line of stdout); `serve` keeps one contender of an in-process case
(2, 3, 4, 7) alive and runs it once per "run" line on stdin (harness.alternate_isolated). Memory is the kernel's resident set size: the
start is VmRSS after the imports and the inputs exist; the peak is VmHWM, reset just before the
measured work through /proc/self/clear_refs, so both are this process's own numbers (NumPy's and
torch's allocations alike; tracemalloc would miss torch's). `lifetime_peak` is the larger of VmHWM
before the reset and after the work: the process's whole peak, imports included (the kind of number
the issue's "1.1 GB for torch" is). getrusage's ru_maxrss is recorded too but not used: a child
started by fork inherits the parent's resident size in it.
"""
from __future__ import annotations

import gc
import json
import os
import resource
import sys
import time


def _status_kb(field):
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak():
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _module(contender):
    if contender == "torch":
        import torch  # noqa: PLC0415

        return torch
    if contender == "gradcli":
        from bench.workloads import gradcli_api  # noqa: PLC0415

        return gradcli_api()
    return None


def _measure(setup, work):
    """setup() -> state (not measured); work(state) -> dict of timings."""
    state = setup()
    start = _status_kb("VmRSS")
    setup_peak = _status_kb("VmHWM")
    reset = _reset_peak()
    t0 = time.perf_counter()
    timings = work(state) or {}
    wall = time.perf_counter() - t0
    peak = _status_kb("VmHWM") if reset else None
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    lifetime = max(setup_peak, peak) if (peak is not None and setup_peak is not None) else None
    out = {"wall": wall, "start_kb": start, "peak_kb": peak, "maxrss_kb": maxrss, "lifetime_peak_kb": lifetime,
           "extra_kb": (peak - start) if (peak is not None and start is not None) else None,
           "peak_method": "VmHWM after clear_refs" if reset else "ru_maxrss only (no clear_refs)"}
    out.update(timings)
    return out


def serve(case, name, quick, param):
    """Set up one contender of an in-process case, then run it once per 'run' line on stdin,
    answering one JSON line each on the original stdout (the contender's own prints go to stderr)."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from bench import cases  # noqa: PLC0415
    from bench import harness as H  # noqa: PLC0415

    def say(doc):
        proto.write(json.dumps(doc) + "\n")
        proto.flush()

    cfg = cases.Config(quick=quick, in_worker=True)
    try:
        fn, info = cases.FACTORIES[case](name, cfg, param)
    except Exception as exc:  # noqa: BLE001 - reported to the parent as skip or error
        status, reason = H.describe_error(exc)
        say({"status": status, "reason": reason})
        return
    say({"ready": True, "info": info})
    for line in sys.stdin:
        if line.strip() != "run":
            break
        gc.collect()
        try:
            say({"measures": fn()})
        except Exception as exc:  # noqa: BLE001
            status, reason = H.describe_error(exc)
            say({"status": status, "reason": reason})
            return


def main(argv):
    if argv[0] == "serve":
        serve(int(argv[1]), argv[2], argv[3] == "1", json.loads(argv[4]))
        return
    task, arg1, arg2 = argv[0], argv[1], argv[2]
    from bench import workloads as W  # noqa: PLC0415

    if task == "chain":
        contender, n = arg1, int(arg2)
        T = _module(contender)
        if T is None:
            result = _measure(lambda: None, lambda _: W.numpy_chain(n))
        else:
            result = _measure(lambda: None, lambda _: W.chain(T, n))
    elif task == "elementwise":
        contender, n = arg1, int(arg2)
        import numpy as np  # noqa: PLC0415

        T = _module(contender)

        def setup():
            data = np.random.default_rng(0).standard_normal(n).astype(np.float32)
            if T is None:
                return data
            return T.from_numpy(data).requires_grad_(True)

        def work(x):
            if T is None:
                W.numpy_elementwise50(x)
            else:
                W.elementwise50(T, x)
                if x.grad is None:
                    raise RuntimeError("no gradient reached the leaf")
            return {}

        result = _measure(setup, work)
    else:
        raise SystemExit(f"unknown task {task!r}")
    sys.stdout.write("\n" + json.dumps(result) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
