"""Goldens for PyTorch's random numbers, per CPU capability.

    python3 tools/gen_random_goldens.py [--check]      (a Python with torch==2.13.0)

Runs every case of tests/random_cases.py with real torch once per capability this CPU offers
(`ATEN_CPU_CAPABILITY=default`, `avx2`, `avx512`: each in its own process, since ATen reads the
variable at start-up) and writes tests/golden/random_cases.json: the observations under the highest
capability, and for each other capability the cases whose observations differ from those.
tests/test_random.py checks gradcli under each recorded capability, bit for bit, with no torch.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "random_cases.json"
ORDER = ("default", "avx2", "avx512")


def _one():
    """In a child: run the cases under the capability the environment names; JSON on stdout."""
    sys.path.insert(0, str(ROOT / "tests"))
    import torch  # noqa: PLC0415

    import random_cases  # noqa: PLC0415
    cases = {name: random_cases.run_case(torch, fn, name in random_cases.TOLERANT)
             for name, fn in random_cases.all_cases().items()}
    json.dump({"reported": torch.backends.cpu.get_cpu_capability(), "torch": torch.__version__.split("+")[0],
               "cases": cases, "states": _states(torch, random_cases)}, sys.stdout)


def _states(torch, random_cases):
    """Full state bytes saved by torch (after draws that leave a cached normal and a part-used block),
    the draws torch makes after set_rng_state with them, and the state bytes after those."""
    out = []
    for seed, pre in ((0, "randn3"), (7, "rand1000"), (123, "randn3_rand700")):
        torch.manual_seed(seed)
        if pre.startswith("randn3"):
            torch.randn(3)
        if "rand" in pre.replace("randn", ""):
            torch.rand(1000 if pre == "rand1000" else 700)
        state = torch.get_rng_state()
        draws = random_cases.state_draws(torch)
        out.append({"state": state.numpy().tobytes().hex(), "draws": random_cases.observe(torch, draws),
                    "after": torch.get_rng_state().numpy().tobytes().hex()})
    return out


def _machine():
    out = subprocess.run([sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                         capture_output=True, text=True, check=True, env={**os.environ, "ATEN_CPU_CAPABILITY": ""})
    return out.stdout.strip().lower()


def build():
    top = _machine()
    caps = ORDER[:ORDER.index(top) + 1] if top in ORDER else ("default",)
    runs = {}
    for cap in caps:
        env = {**os.environ, "ATEN_CPU_CAPABILITY": cap}
        out = subprocess.run([sys.executable, __file__, "--one"], capture_output=True, text=True, check=True, env=env)
        runs[cap] = json.loads(out.stdout)
        if runs[cap]["reported"].lower() != cap:
            raise SystemExit(f"asked for {cap}, torch ran {runs[cap]['reported']}")
    base = runs[caps[-1]]["cases"]
    doc = {"generator": "tools/gen_random_goldens.py", "torch_version": runs[caps[-1]]["torch"],
           "capabilities": list(caps), "base": caps[-1], "cases": base, "states": runs[caps[-1]]["states"],
           "differ": {cap: {k: v for k, v in runs[cap]["cases"].items() if v != base[k]} for cap in caps[:-1]}}
    return json.dumps(doc, indent=0, sort_keys=False) + "\n"


def main(argv):
    if "--one" in argv:
        _one()
        return 0
    text = build()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: rerun tools/gen_random_goldens.py", file=sys.stderr)
            return 1
        print("random goldens are fresh")
        return 0
    OUT.write_text(text)
    doc = json.loads(text)
    print(f"wrote {len(doc['cases'])} cases to {OUT.relative_to(ROOT)}; capabilities {doc['capabilities']}; "
          + ", ".join(f"{c}: {len(d)} differ" for c, d in doc["differ"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
