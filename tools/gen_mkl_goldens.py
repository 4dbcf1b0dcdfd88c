#!/usr/bin/env python3
"""Golden outputs of tests/golden/mkl/*.grad from real PyTorch, and the CPU they came from.

    pip install '.[oracle]'                 # torch==2.13.0 (its MKL is inside libtorch_cpu)
    python tools/gen_mkl_goldens.py         # writes NAME.out (tools/make_goldens.py) and cpu.json
    python tools/gen_mkl_goldens.py --check # exit 1 if a golden is stale (on the recorded CPU class)

The scripts print every digit of results that torch computes with MKL (VML's transcendental
functions, gemm's matrix products). MKL picks its kernels by CPU (AVX-512 or AVX2, Intel or AMD):
tests/test_mkl_backend.py checks them bit for bit only where the CPU class matches cpu.json
(vendor and torch's CPU capability), and compares with torch itself wherever torch is installed.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "tests" / "golden" / "mkl"


def cpu_class():
    """What decides MKL's code path: the vendor, torch's CPU capability, the model line."""
    import torch  # noqa: PLC0415

    vendor = model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() == "vendor_id" and not vendor:
                    vendor = value.strip()
                elif key.strip() == "model name" and not model:
                    model = value.strip()
    except OSError:
        pass
    return {"vendor": vendor, "capability": torch.backends.cpu.get_cpu_capability(), "model": model,
            "torch": torch.__version__, "torch_threads": torch.get_num_threads()}


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    cmd = [sys.executable, str(ROOT / "tools" / "make_goldens.py"), str(FOLDER)] + (["--check"] if check else [])
    code = subprocess.call(cmd, cwd=ROOT)
    if not check and code == 0:
        (FOLDER / "cpu.json").write_text(json.dumps(cpu_class(), indent=1) + "\n", encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main())
