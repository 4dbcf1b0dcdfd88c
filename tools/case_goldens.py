"""The shared driver of the case-suite golden generators (gen_engine_goldens.py, gen_nn_goldens.py):
run every case function of a suite module in tests/ with real PyTorch 2.13 and write, check or
print its observations as strict JSON under tests/golden/."""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def generate(suite, torch, names=None):
    result = {}
    for name, fn in suite.all_cases().items():
        if names is not None and not any(k in name for k in names):
            continue
        result[name] = suite.run_case(torch, fn)
    return result


def dump(cases, torch, generator):
    doc = {"generator": generator, "torch_version": torch.__version__.split("+")[0], "cases": cases}
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def main(suite_name, out_name, label, description, argv=None):
    """suite_name: the module in tests/ with all_cases() and run_case(); out_name: the JSON file."""
    out = ROOT / "tests" / "golden" / out_name
    generator = f"tools/gen_{label}_goldens.py"
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true", help="exit 1 if the golden file differs from a fresh run")
    ap.add_argument("-k", action="append", help="only cases whose name contains this (prints them)")
    args = ap.parse_args(argv)
    import torch  # noqa: PLC0415 - only the generators need it

    suite = importlib.import_module(suite_name)
    torch.set_num_threads(1)
    if args.k:
        for name, obs in generate(suite, torch, args.k).items():
            print(name)
            for o in obs:
                print("   ", json.dumps(o, ensure_ascii=False))
        return 0
    text = dump(generate(suite, torch), torch, generator)
    if args.check:
        if not out.exists() or out.read_text() != text:
            print(f"{out.relative_to(ROOT)} is stale: rerun {generator}", file=sys.stderr)
            return 1
        print(f"{label} goldens are fresh")
        return 0
    out.write_text(text)
    print(f"wrote {len(json.loads(text)['cases'])} cases to {out.relative_to(ROOT)}")
    return 0
