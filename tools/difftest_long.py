#!/usr/bin/env python3
"""The long, on-demand run of tests/test_differential.py: random expression graphs compared with
real PyTorch, for as long as asked, with fresh random seeds; mismatches grouped by kind.

    python tools/difftest_long.py                       # 5 minutes, a random seed
    python tools/difftest_long.py --minutes 60 --seed 7 --max-steps 6
    python tools/difftest_long.py --examples 20000 --messages   # also compare error messages
    python tools/difftest_long.py --show 3                      # print 3 graphs per kind

Needs torch and hypothesis (pip install '.[test,oracle]'). Exit status 1 when a mismatch was found.
Every kind of mismatch is printed once with its smallest graph (the fewest steps and elements);
the graph is the recipe to reproduce it in Python, and to turn into a golden script
(tests/golden/scripts/, tools/make_goldens.py) when it is not fixed at once.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load_test_module():
    spec = importlib.util.spec_from_file_location("test_differential", ROOT / "tests" / "test_differential.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kind_of(message: str) -> str:
    """Group mismatches: the first line without numbers, values and node indices."""
    first = message.splitlines()[0]
    first = re.sub(r"node\d+", "node", first)
    first = re.sub(r"leaf\d+", "leaf", first)
    first = re.sub(r"\[[^\]]*\]", "[...]", first)
    first = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", first)
    return first[:160]


def size_of(graph) -> int:
    return len(graph.steps) * 1000 + sum(graph.items[i][1].size for i in graph.leaves)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="stop after this long (default 5)")
    parser.add_argument("--examples", type=int, default=None, help="stop after this many graphs")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a random one)")
    parser.add_argument("--max-steps", type=int, default=5, help="ops per graph (default 5)")
    parser.add_argument("--messages", action="store_true", help="also compare error messages")
    parser.add_argument("--show", type=int, default=1, help="graphs shown per kind (default 1)")
    parser.add_argument("--double-backward-graph", action="store_true",
                        help="also compare grad_fn/requires_grad of gradients made with create_graph=True")
    args = parser.parse_args(argv)

    from hypothesis import HealthCheck, given, settings  # noqa: PLC0415

    T = load_test_module()
    T.STRICT_DOUBLE_BACKWARD = args.double_backward_graph
    seed = args.seed if args.seed is not None else random.randrange(2 ** 31)
    print(f"difftest_long: seed {seed}, up to {args.minutes:g} min"
          + (f" or {args.examples} graphs" if args.examples else ""), flush=True)
    found = collections.defaultdict(list)
    counts = collections.Counter()
    stop_at = time.monotonic() + args.minutes * 60
    total = [0]

    def one(graph):
        total[0] += 1
        try:
            T.compare_graph(graph, check_messages=args.messages)
        except T.Mismatch as exc:
            kind = kind_of(str(exc))
            counts[kind] += 1
            found[kind].append((size_of(graph), str(exc), repr(graph)))
            found[kind].sort(key=lambda item: item[0])
            del found[kind][args.show:]
        except Exception as exc:  # noqa: BLE001 - the comparison itself failed: report, go on
            kind = f"harness error: {type(exc).__name__}: {exc}"[:160]
            counts[kind] += 1
            found[kind].append((size_of(graph), repr(exc), repr(graph)))
            del found[kind][args.show:]

    from hypothesis import seed as hypothesis_seed  # noqa: PLC0415

    chunk = 100
    rng = random.Random(seed)
    try:  # chunks of examples, each with its own seed, until the time or the count is used up
        while time.monotonic() < stop_at and not (args.examples and total[0] >= args.examples):
            n = chunk if not args.examples else max(1, min(chunk, args.examples - total[0]))
            run = settings(max_examples=n, deadline=None, database=None, derandomize=False,
                           suppress_health_check=list(HealthCheck))(given(T.graphs(max_steps=args.max_steps))(one))
            hypothesis_seed(rng.randrange(2 ** 31))(run)()
            print(f"  {total[0]} graphs, {sum(counts.values())} mismatches", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    print(f"\n{total[0]} graphs, {sum(counts.values())} mismatches of {len(counts)} kinds\n")
    for kind, n in counts.most_common():
        print(f"=== {n} x {kind}")
        for _, message, graph in found[kind]:
            print(message)
            print("--- graph:")
            print(graph)
            print()
    return 1 if counts else 0


if __name__ == "__main__":
    sys.exit(main())
