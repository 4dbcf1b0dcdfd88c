#!/usr/bin/env python3
"""The long, on-demand run of tests/test_fuzz.py: the same strategies (random text, token
sequences, grammar-derived programs, mutations of the samples, composed escape chains) for as
long as asked, with fresh random seeds; failures of the properties grouped by kind.

    python tools/fuzz_long.py                          # 10 minutes, every strategy, a random seed
    python tools/fuzz_long.py --minutes 60 --seed 3 --only program mutation
    python tools/fuzz_long.py --cli                    # also batches through the `gradcli` command
    python tools/fuzz_long.py --vs-torch --minutes 30  # programs run by real PyTorch too: stdout and
                                                       # the error (type, message, line) must agree

Needs hypothesis and jsonschema (pip install '.[test]'); --vs-torch needs torch ('.[oracle]') and
runs the generated programs in real Python (a fork per program, as tools/make_goldens.py does), so
run it only on a development machine. Exit status 1 when something failed. Every kind of failure
is printed once with its shortest input; turn it into a test or a golden script
(tests/golden/scripts/, tools/make_goldens.py) when it is not fixed at once.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def kind_of(text: str) -> str:
    """Group failures: the last line of the assertion or traceback, without numbers and quotes."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    key = lines[-1] if lines else text
    for line in lines:  # an internal error: its exception line is the better key
        if re.match(r"^\w+(Error|Exception): ", line) and "AssertionError" not in line:
            key = line
    key = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", key)
    key = re.sub(r"\d+", "N", key)
    return key[:160]


ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def vs_torch(F, MG, source: str) -> str | None:
    """None if gradcli and torch agree on the program's stdout and error, else what differs."""
    from gradcli.lang.runner import RunOptions, run_source  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="fuzz_vs_torch_") as folder:
        script = Path(folder) / "p.grad"
        script.write_text(source, encoding="utf-8")
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            ref = MG.run_one(script)
        finally:
            os.chdir(cwd)
    ours = run_source(source, str(script), RunOptions(seed=0, max_steps=200_000, timeout=20))
    ref_out = ADDRESS.sub(" at 0x…", ref.out.decode("utf-8", "replace"))
    our_out = ADDRESS.sub(" at 0x…", ours.stdout)
    ref_err = ref.err.splitlines()[:2] if ref.err else None
    our_err = None
    if ours.error is not None:
        first = ours.error.message.splitlines()[0] if ours.error.message else ""
        our_err = [f"{ours.error.type_name}: {first}" if first else ours.error.type_name, f"line {ours.error.line}"]
    if ref_err is not None:  # Python's SyntaxError text ends with '(file, line N)'
        ref_err[0] = re.sub(r" \([^()]*, line \d+\)$", "", ref_err[0])
    if ref_err and ref_err[0].startswith(("SyntaxError", "IndentationError")):
        return None  # the generator's own slips; syntax errors are the parser tests' business
    if our_out != ref_out:
        a, b = our_out.splitlines(), ref_out.splitlines()
        i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
        return (f"stdout differs at line {i + 1}: gradcli {a[i] if i < len(a) else '<end>'!r}, "
                f"torch {b[i] if i < len(b) else '<end>'!r}")
    if our_err != ref_err:
        return f"error: gradcli {our_err}, torch {ref_err}"
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="stop after this long (default 10)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a random one)")
    parser.add_argument("--only", nargs="+", default=None,
                        choices=["text", "tokens", "program", "mutation", "escape"], help="these strategies only")
    parser.add_argument("--cli", action="store_true", help="also run batches through the command")
    parser.add_argument("--vs-torch", action="store_true",
                        help="grammar-derived programs (without random numbers) compared with real PyTorch")
    parser.add_argument("--chunk", type=int, default=100, help="examples per seed (default 100)")
    args = parser.parse_args(argv)

    from hypothesis import HealthCheck, given, settings  # noqa: PLC0415
    from hypothesis import seed as hypothesis_seed  # noqa: PLC0415

    F = load(ROOT / "tests" / "test_fuzz.py", "test_fuzz")
    MG = None
    if args.vs_torch:
        import torch  # noqa: F401,PLC0415 - once here, so that every forked run has it
        MG = load(ROOT / "tools" / "make_goldens.py", "make_goldens")
    seed = args.seed if args.seed is not None else random.randrange(2 ** 31)
    rng = random.Random(seed)
    print(f"fuzz_long: seed {seed}, {args.minutes:g} min", flush=True)
    stop_at = time.monotonic() + args.minutes * 60

    def in_process(source):
        F.run_in_process(source)

    def escape(source):
        F.test_composed_escape_chains_reach_nothing.hypothesis.inner_test(source)

    strategies = {
        "text": (F.random_text, in_process),
        "tokens": (F.token_sequences(), in_process),
        "program": (F.programs(), in_process),
        "mutation": (F.mutations(), in_process),
        "escape": (F.escape_chains(), escape),
    }
    if args.only:
        strategies = {k: v for k, v in strategies.items() if k in args.only}
    if args.vs_torch:
        strategies = {"vs-torch": (F.programs(deterministic=True), None)}

    failures = collections.defaultdict(list)
    counts = collections.Counter()
    total = collections.Counter()

    def record(name, source, text):
        kind = f"{name}: {kind_of(text) if name != 'vs-torch' else re.sub(r'[0-9]+', 'N', text)[:200]}"
        counts[kind] += 1
        failures[kind].append((len(source), source, text))
        failures[kind].sort(key=lambda item: item[0])
        del failures[kind][1:]

    def check(name, run):
        def test(source):
            total[name] += 1
            try:
                if run is None:
                    diff = vs_torch(F, MG, source)
                    if diff:
                        record(name, source, diff)
                else:
                    run(source)
            except BaseException as exc:  # noqa: BLE001 - a failed property: recorded, the run goes on
                if isinstance(exc, KeyboardInterrupt):
                    raise
                import traceback  # noqa: PLC0415
                record(name, source, "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
        return test

    try:
        while time.monotonic() < stop_at:
            for name, (strategy, run) in strategies.items():
                if time.monotonic() >= stop_at:
                    break
                test = settings(max_examples=args.chunk, deadline=None, database=None, derandomize=False,
                                suppress_health_check=list(HealthCheck))(given(strategy)(check(name, run)))
                hypothesis_seed(rng.randrange(2 ** 31))(test)()
            if args.cli and time.monotonic() < stop_at:
                cli_batch(F, rng, record, total)
            print("  " + ", ".join(f"{k} {v}" for k, v in total.items()) + f"; {sum(counts.values())} failures",
                  flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)

    print(f"\n{sum(total.values())} inputs, {sum(counts.values())} failures of {len(counts)} kinds\n")
    for kind, n in counts.most_common():
        print(f"=== {n} x {kind}")
        for _, source, text in failures[kind]:
            print(text.rstrip()[-3000:])
            print("--- input:")
            shown = source if len(source) < 4000 else source[:4000] + "\n[...]"
            printable = all(c.isprintable() or c in "\n\t" for c in shown)
            print(shown if printable else repr(shown))
            print()
    return 1 if counts else 0


def cli_batch(F, rng, record, total):
    """Ten fuzzed scripts through `gradcli run --json` and the plain command."""
    from hypothesis import HealthCheck, given, settings  # noqa: PLC0415
    from hypothesis import seed as hypothesis_seed  # noqa: PLC0415
    from hypothesis import strategies as st  # noqa: PLC0415

    class Factory:
        def mktemp(self, name):
            return Path(tempfile.mkdtemp(prefix=f"fuzz_{name}_"))

    strategy = st.lists(st.one_of(F.programs(), F.mutations(), F.token_sequences(), F.random_text),
                        min_size=8, max_size=12)

    def test(sources):
        total["cli"] += 1
        try:
            F.test_through_the_command.hypothesis.inner_test(Factory(), sources)
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            record("cli", "\n# ---- next file ----\n".join(sources), f"{type(exc).__name__}: {exc}")

    run = settings(max_examples=2, deadline=None, database=None, suppress_health_check=list(HealthCheck))(
        given(strategy)(test))
    hypothesis_seed(rng.randrange(2 ** 31))(run)()


if __name__ == "__main__":
    sys.exit(main())
