"""The GPU checks of issue 10 that are not pytest tests (tools/gpu_check.sh runs them all).

    python tools/gpu_check.py info                 # the machine: GPU, driver, CuPy, NumPy, torch
    python tools/gpu_check.py samples [--json F]   # every sample with --device cuda against its .out
    python tools/gpu_check.py bench [--json F]     # the large MLP step on the GPU: gradcli vs PyTorch CUDA

`samples` runs `python -m gradcli run --device cuda` on each samples/*.grad and compares its stdout
with the sample's .out, device suffixes aside (`, device='cuda:0'`, ` (cuda:0)`, `torch.cuda.`),
whitespace-insensitively (a suffix moves torch's line breaks). Samples listed in
SAMPLES_DIFFERENT_ON_CUDA differ for a reason PyTorch shares (say so in the report, not a failure).
Exit status: 0 when every other sample matches.

`bench` times bench/'s case 4 (an MLP 1024 -> 2048 -> 2048 -> 10, batch 512, float32, MSE, forward +
backward) and a wider one, on the GPU through gradcli (CuPy) and through PyTorch CUDA when the
machine's torch has CUDA, with gradcli on the CPU for scale: medians of synchronized steps after
warm-up steps (CuPy compiles its kernels on first use).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SAMPLES_DIFFERENT_ON_CUDA = {
    # torch.from_numpy makes CPU tensors in torch too; torch.ones(...) follows the default device, so
    # L.backward(torch.ones(2, 2)) gets a cuda gradient for a CPU output: torch's own error
    "seed00_grad_accumulation": "L.backward(torch.ones(2, 2)) of from_numpy tensors: 'invalid gradient at "
                                "index 0 - expected device cpu but got cuda:0', as in torch",
    "seed00_two_layer_backward": "y.backward(torch.ones(...)) of from_numpy tensors: 'invalid gradient at "
                                 "index 0 - expected device cpu but got cuda:0', as in torch",
    # torch's LSTM is oneDNN's on the CPU (MkldnnRnnLayerBackward0) and cuDNN's on cuda (CudnnRnnBackward0):
    # the printed grad_fn differs between the devices in torch too; gradcli's cuda LSTM is the composite
    # (StackBackward0), not cuDNN's single node (docs/gpu.md)
    "lstm_pos_tagger": "an LSTM output's grad_fn names the device's kernel (oneDNN on the CPU, cuDNN on cuda)",
}

_SUFFIX = re.compile(r",\s*device='cuda:0'")


def normalise(text):
    """Output as the CPU prints it: device suffixes dropped, whitespace runs as one space."""
    text = _SUFFIX.sub("", text).replace(" (cuda:0)", "").replace("torch.cuda.", "torch.")
    text = text.replace("device(type='cuda', index=0)", "device(type='cpu')")
    return re.sub(r"\s+", " ", text).strip()


# ----------------------------------------------------------------------------- info

def info():
    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    try:
        out["nvidia-smi"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                                            "--format=csv,noheader"], capture_output=True, text=True,
                                           timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        out["nvidia-smi"] = f"unavailable: {exc}"
    import numpy
    out["numpy"] = numpy.__version__
    try:
        import cupy
        out["cupy"] = cupy.__version__
        out["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
        out["cuda_driver"] = cupy.cuda.runtime.driverGetVersion()
        props = cupy.cuda.runtime.getDeviceProperties(0)
        out["gpu"] = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    except Exception as exc:  # noqa: BLE001 - report, do not fail
        out["cupy"] = f"unavailable: {type(exc).__name__}: {exc}"
    try:
        import torch
        out["torch"] = torch.__version__
        out["torch_cuda"] = torch.cuda.is_available() and torch.version.cuda
    except Exception as exc:  # noqa: BLE001
        out["torch"] = f"unavailable: {type(exc).__name__}: {exc}"
    from gradcli.engine import api
    out["gradcli_cuda_is_available"] = api.cuda.is_available()
    out["gradcli_cuda_device_count"] = api.cuda.device_count()
    if out["gradcli_cuda_is_available"]:
        out["gradcli_device_name"] = api.cuda.get_device_name(0)
    return out


# ----------------------------------------------------------------------------- samples

_SIMULATE = ("import sys; sys.path[:0] = [{tests!r}, {root!r}]; import cupy_sim; "
             "from gradcli.engine import device; cupy_sim.install(device); "
             "from gradcli.cli.app import main; sys.argv = ['gradcli'] + sys.argv[1:]; main()")


def run_samples(timeout=120, simulate=False):
    rows = []
    start = ([sys.executable, "-c", _SIMULATE.format(tests=str(ROOT / "tests"), root=str(ROOT))] if simulate
             else [sys.executable, "-m", "gradcli"])
    for script in sorted((ROOT / "samples").glob("*.grad")):
        want = script.with_suffix(".out").read_text(encoding="utf-8")
        err_file = script.with_suffix(".err")
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(start + ["run", "--device", "cuda", "--no-color", str(script.relative_to(ROOT))], capture_output=True, text=True, cwd=ROOT,
                                  timeout=timeout, env=dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep
                                                            + os.environ.get("PYTHONPATH", "")))
            stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired:
            stdout, stderr, code = "", f"timed out after {timeout} s", None
        seconds = time.perf_counter() - t0
        ok = normalise(stdout) == normalise(want) and code == (1 if err_file.is_file() else 0)
        if ok:
            status = "ok"
        elif script.stem in SAMPLES_DIFFERENT_ON_CUDA:
            status = "differs as expected: " + SAMPLES_DIFFERENT_ON_CUDA[script.stem]
        else:
            status = "DIFFERS"
        row = {"sample": script.name, "status": status, "exit_code": code, "seconds": round(seconds, 2)}
        if status != "ok":
            a, b = normalise(want), normalise(stdout)
            i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
            row["want"] = a[max(0, i - 80):i + 160]
            row["got"] = b[max(0, i - 80):i + 160]
            row["stderr"] = stderr[-600:]
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- bench

def _sync_gradcli():
    from gradcli.engine import api
    api.cuda.synchronize()


def _time_steps(step, sync, warmup, reps):
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times


def _mlp(T, sizes, batch, device, set_default):
    from bench import workloads as W
    x_np, y_np = W.make_data(batch, sizes[0], sizes[-1])
    set_default(device)
    try:
        model = W.Model(T, sizes, kind="nn")
    finally:
        set_default("cpu")
    x, y = T.from_numpy(x_np).to(device), T.from_numpy(y_np).to(device)
    return model, x, y


def bench(quick=False):
    from bench import workloads as W
    configs = [([1024, 2048, 2048, 10], 512), ([4096, 8192, 8192, 10], 2048)]
    if quick:
        configs = [([128, 256, 256, 10], 64)]
    rows = []
    gradcli = W.gradcli_api()
    try:
        import torch
        torch_cuda = torch.cuda.is_available()
    except Exception:  # noqa: BLE001
        torch, torch_cuda = None, False
    for sizes, batch in configs:
        flops = W.mlp_flops(sizes, batch)
        arch = " -> ".join(map(str, sizes))
        contenders = [("gradcli cuda", gradcli, "cuda", _sync_gradcli, gradcli.set_default_device)]
        if torch_cuda:
            contenders.append(("torch cuda", torch, "cuda", torch.cuda.synchronize, torch.set_default_device))
        if sizes[1] <= 2048:
            contenders.append(("gradcli cpu", gradcli, "cpu", lambda: None, gradcli.set_default_device))
        row = {"mlp": arch, "batch": batch, "gflop_per_step": flops / 1e9, "results": {}}
        for name, T, device, sync, set_default in contenders:
            try:
                model, x, y = _mlp(T, sizes, batch, device, set_default)
                loss = model.fwd_bwd(x, y)
                first = float(loss.item())
                reps = 3 if device == "cpu" else (5 if quick else 20)
                times = _time_steps(lambda: model.fwd_bwd(x, y), sync, 1 if device == "cpu" else 3, reps)
                med = times[len(times) // 2]
                row["results"][name] = {"median_ms": med * 1e3, "min_ms": times[0] * 1e3,
                                        "gflops": flops / med / 1e9, "first_loss": first, "reps": reps}
            except Exception as exc:  # noqa: BLE001 - one contender must not hide the others
                row["results"][name] = {"error": f"{type(exc).__name__}: {exc}"}
        g, t = row["results"].get("gradcli cuda", {}), row["results"].get("torch cuda", {})
        if "median_ms" in g and "median_ms" in t:
            row["gradcli_over_torch"] = g["median_ms"] / t["median_ms"]
            row["same_first_loss"] = abs(g["first_loss"] - t["first_loss"]) <= 1e-4 * max(1.0, abs(t["first_loss"]))
        rows.append(row)
    if not torch_cuda:
        rows.append({"note": "torch with CUDA is not installed here: no PyTorch CUDA column"})
    return rows


def render_bench(rows):
    lines = []
    for row in rows:
        if "note" in row:
            lines.append(row["note"])
            continue
        lines.append(f"MLP {row['mlp']}, batch {row['batch']}, float32, forward + backward "
                     f"({row['gflop_per_step']:.2f} GFLOP of matmul per step)")
        for name, r in row["results"].items():
            if "error" in r:
                lines.append(f"  {name:14s} error: {r['error']}")
            else:
                lines.append(f"  {name:14s} {r['median_ms']:9.2f} ms (min {r['min_ms']:.2f}, {r['reps']} steps)  "
                             f"{r['gflops']:8.1f} GFLOP/s  first loss {r['first_loss']:.6f}")
        if "gradcli_over_torch" in row:
            lines.append(f"  gradcli / torch on the GPU: {row['gradcli_over_torch']:.2f}x; same first loss: "
                         f"{row['same_first_loss']}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- main

def main(argv=None):
    p = argparse.ArgumentParser(prog="python tools/gpu_check.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    sub.add_parser("info", help="the machine: GPU, driver, CuPy, NumPy, torch")
    s = sub.add_parser("samples", help="every sample with --device cuda against its .out")
    s.add_argument("--json", metavar="FILE")
    s.add_argument("--simulate", action="store_true", help="cuda through tests/cupy_sim.py (CuPy's stand-in on the "
                                                           "CPU): checks this tool and the CLI path without a GPU")
    b = sub.add_parser("bench", help="the large MLP step on the GPU: gradcli vs PyTorch CUDA")
    b.add_argument("--json", metavar="FILE")
    b.add_argument("--quick", action="store_true", help="a small MLP only (a smoke run)")
    args = p.parse_args(argv)
    if args.what == "info":
        print(json.dumps(info(), indent=1))
        return 0
    if args.what == "samples":
        rows = run_samples(simulate=args.simulate)
        for r in rows:
            print(f"{r['status'][:60]:60s} {r['seconds']:6.2f} s  {r['sample']}")
            if r["status"] == "DIFFERS":
                print(f"    want: ...{r['want']}...\n    got:  ...{r['got']}...\n    stderr: {r['stderr']!r}")
        bad = [r for r in rows if r["status"] == "DIFFERS"]
        print(f"{len(rows)} samples: {sum(r['status'] == 'ok' for r in rows)} same, "
              f"{sum(r['status'].startswith('differs as expected') for r in rows)} differ as expected, "
              f"{len(bad)} differ")
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
        return 1 if bad else 0
    rows = bench(quick=args.quick)
    print(render_bench(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": info(), "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
