#!/usr/bin/env python3
"""Golden outputs of tests/golden/mkl/*.grad from real PyTorch, with their CPU markings.

    pip install '.[oracle]'                 # torch==2.13.0 (its MKL is inside libtorch_cpu)
    python tools/gen_mkl_goldens.py         # writes NAME.out and NAME.cpu (tools/make_goldens.py)
    python tools/gen_mkl_goldens.py --check # exit 1 if a golden or its marking is stale

The scripts print every digit of results that torch computes with MKL (VML's transcendental
functions, gemm's matrix products). MKL picks its kernels by CPU (AVX-512 or AVX2, Intel or AMD),
so every one of these goldens differs under some CPU variant and carries the project's one CPU
marking, ``NAME.cpu`` (gradcli/testing/cpu.py): tests/test_mkl_backend.py compares gradcli with
the mkl extra byte for byte on the CPU the golden came from and within the marking's ulps
elsewhere, and compares with torch itself wherever torch is installed.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "tests" / "golden" / "mkl"


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = ["--check", "--cpu-variants"] if "--check" in args else []
    return subprocess.call([sys.executable, str(ROOT / "tools" / "make_goldens.py"), *check, str(FOLDER)], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
