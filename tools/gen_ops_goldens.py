"""Generate tests/golden/ops_cases.json: the breadth op cases of tests/ops_cases.py run with
real PyTorch 2.13.

    /tmp/oracle/bin/python tools/gen_ops_goldens.py           # (re)write the file
    /tmp/oracle/bin/python tools/gen_ops_goldens.py --check   # exit 1 if the file is stale
    /tmp/oracle/bin/python tools/gen_ops_goldens.py NAME ...  # print some cases' observations

Every case runs in a forked process of its own, with torch's default dtype float32 and
torch.manual_seed(0).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import ops_cases  # noqa: E402

OUT = ROOT / "tests" / "golden" / "ops_cases.json"


def _observe_here(name):
    torch.set_default_dtype(torch.float32)
    torch.manual_seed(0)
    try:
        return ops_cases.CASES[name](torch)
    except Exception as e:  # noqa: BLE001 - a case that raises is an observation too
        msg = str(e).split("\n")[0]
        return f"raised: {type(e).__name__}: {msg}"


def observe(name):
    """One case in a forked child: a fresh process state (torch's warn-once warnings) for every case."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        data = json.dumps(_observe_here(name)).encode()
        with os.fdopen(write, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def build():
    return {"torch_version": torch.__version__, "cases": {name: observe(name) for name in ops_cases.CASES}}


def dump(data):
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def main(argv):
    if not torch.__version__.startswith("2.13."):
        print(f"goldens come from torch 2.13, this is torch {torch.__version__}", file=sys.stderr)
        return 2
    names = [a for a in argv if not a.startswith("-")]
    if names:
        for n in names:
            print(n, json.dumps(observe(n), indent=1))
        return 0
    text = dump(build())
    if "--check" in argv:
        if not OUT.is_file() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run tools/gen_ops_goldens.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)} ({len(ops_cases.CASES)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
