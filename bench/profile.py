"""Where gradcli's time goes in a case: cProfile of gradcli's own contender.

    python -m bench.profile 2          # the 10,000-op chain (per-op overhead)
    python -m bench.profile 3          # the seeds' loop, 1,000 steps, through the engine API
    python -m bench.profile 3 --top 30 --sort cumulative

cProfile's own overhead inflates small functions (every call is counted), so read the ranking,
not the absolute times; time the case with `python -m bench --cases N`.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats

from . import workloads as W


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.profile")
    p.add_argument("case", type=int, choices=(2, 3))
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--sort", default="tottime", choices=("tottime", "cumulative", "ncalls"))
    args = p.parse_args(argv)
    api = W.gradcli_api()
    if args.case == 2:
        def work():
            W.chain(api, 10_000)
    else:
        model = W.Model(api, [10, 5, 2])
        x_np, y_np = W.make_data(32, 10, 2)
        x, y = api.from_numpy(x_np), api.from_numpy(y_np)
        print(f"model: {model.kind}")

        def work():
            model.train(x, y, 1000)
    work()  # warm-up
    prof = cProfile.Profile()
    prof.runcall(work)
    pstats.Stats(prof).strip_dirs().sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
