"""Generate tests/golden/nn_cases.json: what real PyTorch 2.13 observes for every case in
tests/nn_cases.py (values, dtypes, grads, grad_fn names, reprs, error texts, warnings).

Run with the oracle interpreter (torch==2.13.0, e.g. `pip install '.[oracle]'`):

    python tools/gen_nn_goldens.py            # (re)write the golden file
    python tools/gen_nn_goldens.py --check    # write nothing; exit 1 if the file is stale
    python tools/gen_nn_goldens.py -k index   # print the observations of matching cases

The output is strict JSON (nan/inf are tagged strings, addresses are masked as 0x?), one
entry per case name in definition order. tests/test_nn.py and tests/test_optim.py replay every
case with gradcli's engine, without torch, and compare. After adding or changing a case, rerun this
script and commit the case with the regenerated JSON.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "nn_cases.json"
sys.path.insert(0, str(ROOT / "tests"))

import nn_cases  # noqa: E402


def generate(torch, names=None):
    cases = nn_cases.all_cases()
    result = {}
    for name, fn in cases.items():
        if names is not None and not any(k in name for k in names):
            continue
        result[name] = nn_cases.run_case(torch, fn)
    return result


def dump(cases, torch):
    doc = {"generator": "tools/gen_nn_goldens.py", "torch_version": torch.__version__.split("+")[0],
           "cases": cases}
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the golden file differs from a fresh run")
    ap.add_argument("-k", action="append", help="only cases whose name contains this (prints them)")
    args = ap.parse_args(argv)
    import torch  # noqa: PLC0415 - only the generator needs it

    torch.set_num_threads(1)
    if args.k:
        for name, obs in generate(torch, args.k).items():
            print(name)
            for o in obs:
                print("   ", json.dumps(o, ensure_ascii=False))
        return 0
    text = dump(generate(torch), torch)
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: rerun tools/gen_nn_goldens.py", file=sys.stderr)
            return 1
        print("nn goldens are fresh")
        return 0
    OUT.write_text(text)
    print(f"wrote {len(json.loads(text)['cases'])} cases to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
