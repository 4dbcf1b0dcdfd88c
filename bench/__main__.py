"""python -m bench [--quick] [--json FILE] [--markdown FILE] [--cases 1,2,...] [--no-torch] [--gradcli-cmd CMD]"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
import time

from . import harness as H
from . import machine, report


def _parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--quick", action="store_true", help="every case, briefly: a smoke run (the numbers mean nothing)")
    p.add_argument("--json", metavar="FILE", help="also write machine, rows and samples as JSON ('-' for stdout)")
    p.add_argument("--cases", default="1,2,3,4,5,6,7,8,9", help="comma-separated case numbers (default: all)")
    p.add_argument("--no-torch", action="store_true", help="skip the torch contenders")
    p.add_argument("--gradcli-cmd", help="how to start gradcli for cases 1 and 3 (default: `gradcli` on PATH, "
                                         "else `python -m gradcli`)")
    p.add_argument("--markdown", metavar="FILE", help="write the report into FILE between its bench:begin/end "
                                                       "markers (docs/benchmarks.md)")
    p.add_argument("--from-json", metavar="FILE", help="no run: report a run saved by --json (with --markdown, "
                                                        "regenerate the docs from it)")
    p.add_argument("--lark-100k", action="store_true", help="case 7: also run Lark's Python grammar on the "
                                                           "100,000-statement script (minutes)")
    p.add_argument("--repeat-scale", type=float, default=1.0, help="multiply the full run's repeat counts")
    return p.parse_args(argv)


TITLES = {1: "start-up", 2: "per-op overhead", 3: "seeds' training loop", 4: "large step", 5: "deep chain",
          6: "memory of 50 elementwise ops", 7: "parse and compile", 8: "gradcli test -j N",
          9: "random numbers"}


def _save(doc, args):
    if args.json:
        text = json.dumps(doc, indent=1)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
    if args.markdown:
        report.write_markdown(args.markdown, doc)


def main(argv=None):
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    from . import cases as C  # noqa: PLC0415 - after argparse, so --help is instant

    cfg = C.Config(quick=args.quick, no_torch=args.no_torch,
                   gradcli_cmd=shlex.split(args.gradcli_cmd) if args.gradcli_cmd else None,
                   repeat_scale=args.repeat_scale, lark_100k=args.lark_100k)
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as fh:
            doc = json.load(fh)
        print(machine.render(doc["machine"]) + "\n", file=sys.stdout)
        print(report.text(doc), file=sys.stdout)
        _save(doc, args)
        return 0
    wanted = [int(c) for c in args.cases.split(",") if c.strip()]
    out = sys.stdout
    mode = "QUICK run: a smoke test, the numbers mean nothing" if args.quick else "full run"
    print(f"gradcli benchmarks (issue 9), {mode}", file=out)
    info = machine.describe()
    print(machine.render(info), file=out)
    print(file=out, flush=True)

    rows = []
    started = time.perf_counter()
    for number in wanted:
        t0 = time.perf_counter()
        print(f"[case {number}] {TITLES[number]} ...", file=sys.stderr, flush=True)
        try:
            case_rows = C.CASES[number](cfg)
        except Exception as exc:  # noqa: BLE001 - one broken case must not hide the others
            status, reason = H.describe_error(exc)
            case_rows = [{"case": str(number), "key": str(number), "title": TITLES[number], "unit": "",
                          "values": {}, "samples": {}, "missing": {"gradcli": {"status": status, "reason": reason}},
                          "ref": "torch", "floor": "numpy", "target": None, "target_text": "",
                          "higher_is_better": False, "notes": [f"the case failed: {reason}"]}]
        print(f"[case {number}] done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        rows.extend(case_rows)
    total = time.perf_counter() - started
    info["loadavg_end"] = machine.load_average()

    doc = {"suite": "gradcli bench (issue 9)", "quick": args.quick, "machine": info, "rows": rows,
           "total_s": total}
    print(report.text(doc), file=out, flush=True)
    _save(doc, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
