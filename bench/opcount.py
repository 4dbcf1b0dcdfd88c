"""Bytecodes a step of the seeds' loop (case 3) runs, per Python function: where the interpreter's and the engine's
Python work goes, which callgrind cannot tell apart (all of it is one _PyEval_EvalFrameDefault).

    python -m bench.opcount script              # the .grad script's step (bench.count's script target)
    python -m bench.opcount engine --top 40     # bench.count's engine loop (no interpreter)

Exact and independent of the machine's load (sys.settrace's opcode events; the traced runs are slow, the counts
are not): (bytecodes of N2 steps - of N1 steps) / (N2 - N1) and the calls a step, per function, after an untraced
run that imports everything. Bytecodes are not instructions (a call of a C function is one), but a function's
share of them is where its Python overhead is.
"""
from __future__ import annotations

import argparse
import collections
import sys

from . import count


def _traced(kind, steps):
    """{(file, function): [bytecodes, calls]} of one target run."""
    seen = collections.defaultdict(lambda: [0, 0])

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        code = frame.f_code
        entry = seen[(code.co_filename.rpartition("gradcli/")[2], code.co_name)]
        entry[1] += 1

        def local(frame, event, arg):
            if event == "opcode":
                entry[0] += 1
            return local
        return local
    sys.settrace(tracer)
    try:
        count.target(kind, steps)
    finally:
        sys.settrace(None)
    return seen


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.opcount")
    p.add_argument("kind", choices=("api", "script", "engine"))
    p.add_argument("--steps", nargs=2, type=int, default=(10, 60), metavar=("N1", "N2"))
    p.add_argument("--top", type=int, default=30)
    args = p.parse_args(argv)
    n1, n2 = args.steps
    count.target(args.kind, 1)  # imports and first-use set-up, untraced
    a, b = _traced(args.kind, n1), _traced(args.kind, n2)
    rows = []
    for key, (ops, calls) in b.items():
        before = a.get(key, (0, 0))
        rows.append(((ops - before[0]) / (n2 - n1), (calls - before[1]) / (n2 - n1), key))
    rows = [r for r in rows if r[0] > 0]
    rows.sort(reverse=True)
    for ops, calls, (path, name) in rows[:args.top]:
        print(f"{ops:8.1f} bytecodes {calls:6.1f} calls  {path}:{name}")
    total = sum(r[0] for r in rows)
    lang = sum(r[0] for r in rows if r[2][0].startswith("lang/"))
    print(f"{total:.0f} bytecodes a step, {lang:.0f} of them in gradcli/lang ({args.kind}; steps {n1} and {n2})")


if __name__ == "__main__":
    main()
