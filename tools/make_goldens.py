#!/usr/bin/env python3
"""Generate (or check) the golden outputs of .grad scripts with real PyTorch.

    pip install '.[oracle]'                      # torch==2.13.0 (CPU is enough)
    python tools/make_goldens.py                 # regenerate samples/ and tests/golden/scripts/
    python tools/make_goldens.py --check         # exit 1 if a committed golden is stale
    python tools/make_goldens.py tests/golden/scripts/NAME.grad   # one new script only
    python tools/make_goldens.py samples/ tests/golden/scripts   # whole folders (a folder means every
                                                 # script in it: never on a CPU other than the goldens')

For every ``NAME.grad`` found (folders are searched for ``*.grad``, not recursively;
files are taken as given) the script is run exactly as ``shared/tools/torch-echo`` runs it:

* its top-level statements run one by one in one namespace
  (``{"__name__": "__main__", "__builtins__": builtins}``), each compiled in Python's
  interactive ``'single'`` mode, so a bare expression statement whose value is not None
  writes ``repr(value) + "\\n"`` to stdout, also inside a top-level for/while/if/with
  block, never inside a def;
* warnings are always shown, on stderr, as ``warning: Category: message``;
* the first exception stops the script.

Before each script ``torch.manual_seed(0)`` is called, in a fresh process (a fork of
this one after ``import torch`` where the OS has fork, else a new interpreter), so
no state leaks from one script into the next.

It writes, next to the script:

* ``NAME.out``: the exact stdout bytes (UTF-8), always, even when empty;
* ``NAME.err``, only when the script raised, two lines::

      Type: message      (the message's first line; just "Type" when it is empty,
                          exactly the line torch-echo writes to stderr)
      line N             (1-based line in the script of the statement or expression
                          that raised: the innermost traceback frame in the script,
                          or the SyntaxError's own line)

  A stale ``NAME.err`` is removed when the script no longer raises.

Warnings are not recorded; they are shown on this tool's stderr, prefixed with the
script's name.

``--check`` writes nothing: it runs every script and exits 1, naming the files, when a
committed ``.out``/``.err`` is missing, differs, or a ``.err`` exists that should not.  A golden
marked CPU-dependent (below) is compared exactly on the CPU it came from and within its stated
ulp tolerance on any other (``gradcli.testing.cpu.compare_with_golden``).

CPU-dependent goldens: PyTorch's last digits can depend on the CPU (MKL's VML and GEMM kernels,
ATen's vectorised loops).  When writing, the tool also runs every script under the CPU variants
of ``CPU_VARIANTS`` (``ATEN_CPU_CAPABILITY`` and ``MKL_ENABLE_INSTRUCTIONS`` set in a fresh
interpreter) and writes ``NAME.cpu`` next to every golden whose output differs under one of them:
the CPU it was made on, the tolerance in ulps that covers the measured differences (with a
margin), and the variants that differ; it removes a stale ``NAME.cpu``.  ``--no-cpu-variants``
skips that (existing ``.cpu`` files stay); ``--check --cpu-variants`` also checks the markings
(``--variant NAME`` picks some variants only).

This tool runs only the project's own committed scripts under real Python for the
oracle; it is a development tool and never part of the gradcli package.
"""
from __future__ import annotations

import argparse
import ast
import builtins
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIRS = [ROOT / "samples", ROOT / "tests" / "golden" / "scripts"]
sys.path.insert(0, str(ROOT))
from gradcli.testing import cpu  # noqa: E402  (the CPU markings and their comparison, as the tests use them)

# name -> the capability of the machines it stands for (machine_cpu's second word)
VARIANT_CAPABILITY = {"default": "DEFAULT", "avx2": "AVX2", "avx2-mkl-avx2": "AVX2", "mkl-avx2": "AVX512"}
# name -> environment: the CPUs other than this one that PyTorch's kernels are run for
CPU_VARIANTS = {
    "default": {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2"},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2"},
    "avx2-mkl-avx2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},  # AMD AVX2
    "mkl-avx2": {"MKL_ENABLE_INSTRUCTIONS": "AVX2"},  # AVX-512 without MKL's AVX-512 kernels (AMD Zen 4)
}
MIN_ULP = 8


@dataclass
class Result:
    out: bytes
    err: str | None  # the .err text, or None when the script did not raise
    stderr: str  # warnings and anything else the script wrote to stderr


# --------------------------------------------------------------------------- running

def _error_line(error: BaseException, filename: str) -> int | None:
    """1-based line of the innermost traceback frame that belongs to the script."""
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    if line is None and isinstance(error, SyntaxError) and error.filename == filename:
        line = error.lineno
    return line


def _run_script(filename: str) -> dict:
    """Run one script in this process, torch-echo style. Writes to sys.stdout/stderr.

    Returns {"error": "Type: message", "line": N} or {"error": None}.
    """
    import torch

    torch.manual_seed(0)
    with open(filename, encoding="utf-8") as fh:
        source = fh.read()
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    sys.displayhook = lambda value: None if value is None else sys.stdout.write(repr(value) + "\n")
    warnings.simplefilter("always")
    warnings.showwarning = lambda message, category, *rest: print(
        f"warning: {category.__name__}: {message}", file=sys.stderr)
    try:
        module = ast.parse(source, filename=filename)
        for statement in module.body:
            single = ast.Interactive(body=[statement])
            # dont_inherit: this module's own `from __future__ import annotations` must not reach the
            # script (torch-echo's has none: a class body's annotations are evaluated there)
            exec(compile(single, filename, "single", dont_inherit=True), namespace)
    except Exception as error:  # the script's own error, reported as torch-echo does
        sys.stdout.flush()
        text = str(error).splitlines()[0] if str(error) else ""
        return {"error": f"{type(error).__name__}: {text}" if text else type(error).__name__,
                "line": _error_line(error, filename)}
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return {"error": None}


def _child_main(script: str, report: str) -> None:
    """Entry point of a worker (fork or subprocess): run, then write the report as JSON."""
    try:
        info = _run_script(script)
    except BaseException as error:  # SystemExit, KeyboardInterrupt, GeneratorExit...: still a report
        sys.stdout.flush()
        text = str(error).splitlines()[0] if str(error) else ""
        info = {"error": f"{type(error).__name__}: {text}" if text else type(error).__name__,
                "line": _error_line(error, script)}
    with open(report, "w", encoding="utf-8") as fh:
        json.dump(info, fh)


def _collect(out_path: str, err_path: str, report_path: str, script: Path) -> Result:
    out = Path(out_path).read_bytes()
    stderr = Path(err_path).read_text(encoding="utf-8", errors="replace")
    try:
        info = json.loads(Path(report_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise SystemExit(f"make_goldens: running {script} crashed the worker:\n{stderr}")
    err = None
    if info["error"] is not None:
        line = info.get("line")
        err = f"{info['error']}\nline {line if line is not None else '?'}\n"
    return Result(out=out, err=err, stderr=stderr)


def run_one(script: Path) -> Result:
    """Run one script in a fresh process, capturing stdout bytes and the error."""
    filename = str(script)
    with tempfile.TemporaryDirectory(prefix="make_goldens_") as tmp:
        out_path, err_path, report_path = (os.path.join(tmp, n) for n in ("out", "err", "report"))
        if hasattr(os, "fork"):
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # child
                code = 0
                try:
                    out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    err_fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    os.dup2(out_fd, 1)
                    os.dup2(err_fd, 2)
                    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace",
                                      newline="\n", closefd=False)
                    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace",
                                      newline="\n", closefd=False)
                    _child_main(filename, report_path)
                    sys.stdout.flush()
                    sys.stderr.flush()
                except BaseException:
                    code = 3
                finally:
                    os._exit(code)
            os.waitpid(pid, 0)
        else:
            env = dict(os.environ, PYTHONIOENCODING="utf-8")
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                subprocess.run([sys.executable, __file__, "--run-one", filename, report_path],
                               stdout=out, stderr=err, env=env, check=False)
        return _collect(out_path, err_path, report_path, script)


# --------------------------------------------------------------------------- driver

_ADDRESS = re.compile(rb" object at 0x[0-9a-f]+>")


def mask_addresses(text: bytes) -> bytes:
    """An object's address (<AddBackward0 object at 0x7f...>) differs from run to run."""
    return _ADDRESS.sub(b" object at 0x...>", text)


# --------------------------------------------------------------------------- CPU variants

def run_variant(name: str, scripts: list[Path]) -> dict[str, Result]:
    """Run the scripts in a fresh interpreter with the variant's environment (ATen reads
    ATEN_CPU_CAPABILITY, MKL its MKL_ENABLE_INSTRUCTIONS, once at start-up)."""
    env = {k: v for k, v in os.environ.items() if k not in cpu.CPU_ENV_VARS}
    env.update(CPU_VARIANTS[name], PYTHONIOENCODING="utf-8")
    with tempfile.TemporaryDirectory(prefix="make_goldens_variant_") as tmp:
        dump = os.path.join(tmp, "dump.json")
        proc = subprocess.run([sys.executable, __file__, "--dump", dump, *map(str, scripts)],
                              env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"make_goldens: variant {name} failed:\n{proc.stderr[-2000:]}")
        doc = json.loads(Path(dump).read_text(encoding="utf-8"))
    return {path: Result(out=item["out"].encode("utf-8"), err=item["err"], stderr="") for path, item in doc.items()}


def _dump(path: str, scripts: list[Path]) -> int:
    doc = {}
    for script in scripts:
        result = run_one(script)
        doc[str(script)] = {"out": result.out.decode("utf-8"), "err": result.err}
    Path(path).write_text(json.dumps(doc), encoding="utf-8")
    return 0


def _significant(token: str) -> int:
    return len(token.lower().partition("e")[0].lstrip("+-").replace(".", "").lstrip("0"))


def marking_for(native: Result, variants: dict[str, Result]) -> tuple[cpu.CpuMarking | None, list[str]]:
    """The NAME.cpu marking the variants' outputs call for (None when they all print the same),
    and problems no tolerance can cover (an error or text that differs)."""
    problems = []
    worst: dict[str, dict[str, float]] = {}   # variant -> unit -> largest difference in ulps
    long_digits = True
    native_text = mask_addresses(native.out).decode("utf-8")
    for name, result in variants.items():
        text = mask_addresses(result.out).decode("utf-8")
        if text == native_text and result.err == native.err:
            continue
        worst[name] = {"float64": 0.0, "float32": 0.0}
        if result.err != native.err:
            problems.append(f"under {name} the error differs: {result.err!r} vs {native.err!r}")
        pairs = cpu.differing_numbers(text, native_text)
        if pairs is None:
            problems.append(f"under {name} more than digits differ: "
                            + cpu.compare_text(text, native_text).message)
            continue
        for unit in worst[name]:
            worst[name][unit] = max([0.0] + [cpu.needed_ulp(a, e, unit) for a, e in pairs])
        long_digits = long_digits and all(_significant(a) >= 15 or _significant(e) >= 15 for a, e in pairs)
    if not worst:
        return None, problems
    # float64 ulps only where the printed digits can tell them (a repr of 15 or more significant
    # digits); a value printed with fewer digits may be a float32 one
    unit = "float64" if long_digits and all(w["float64"] <= MIN_ULP for w in worst.values()) else "float32"
    by_capability: dict[str, int] = {}
    for name, w in worst.items():   # twice the measured difference, a power of two, at least MIN_ULP
        tolerance = max(MIN_ULP, 1 << max(0, int(2 * w[unit]) - 1).bit_length())
        capability = VARIANT_CAPABILITY[name]
        by_capability[capability] = max(by_capability.get(capability, 0), tolerance)
    return cpu.CpuMarking(cpu=cpu.machine_cpu(), ulp=max(by_capability.values()), unit=unit,
                          differs_under=tuple(worst), ulp_by_capability=tuple(sorted(by_capability.items()))), problems


def find_scripts(paths: list[Path]) -> list[Path]:
    scripts: list[Path] = []
    for path in paths:
        if path.is_dir():
            scripts.extend(sorted(path.glob("*.grad")))
        elif path.suffix == ".grad" and path.is_file():
            scripts.append(path)
        else:
            raise SystemExit(f"make_goldens: not a .grad file or folder: {path}")
    return scripts


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--run-one"]:  # internal: worker without fork
        _child_main(argv[1], argv[2])
        return 0
    parser = argparse.ArgumentParser(
        description="Write NAME.out / NAME.err goldens for .grad scripts by running them with PyTorch.")
    parser.add_argument("paths", nargs="*", type=Path,
                        help="folders (their *.grad) or .grad files; default: samples/ and tests/golden/scripts/")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if any committed golden differs from a fresh run")
    parser.add_argument("--cpu-variants", action="store_true",
                        help="with --check: also rerun under other CPUs and check the NAME.cpu markings")
    parser.add_argument("--no-cpu-variants", action="store_true",
                        help="when writing: do not rerun under other CPUs (NAME.cpu files stay as they are)")
    parser.add_argument("--variant", action="append", choices=sorted(CPU_VARIANTS),
                        help="only these CPU variants (repeatable; default: all)")
    parser.add_argument("--measure-here", action="store_true",
                        help="write only NAME.cpu: widen (or add) the marking of every golden that this machine's "
                             "torch prints differently (another CPU class than the golden's)")
    parser.add_argument("--dump", help=argparse.SUPPRESS)  # internal: a variant's worker
    parser.add_argument("-q", "--quiet", action="store_true", help="only report problems")
    args = parser.parse_args(argv)

    try:
        import torch  # noqa: F401  (imported once here, so that each fork starts warm)
    except ImportError:
        print("make_goldens: needs torch==2.13.0: pip install '.[oracle]'", file=sys.stderr)
        return 2
    if not torch.__version__.startswith("2.13."):
        print(f"make_goldens: warning: torch {torch.__version__} is not the oracle 2.13", file=sys.stderr)

    scripts = find_scripts(args.paths or [d for d in DEFAULT_DIRS if d.is_dir()])
    if args.dump:
        return _dump(args.dump, scripts)
    if args.measure_here:
        return measure_here(scripts, args.quiet)
    with_variants = args.cpu_variants if args.check else not args.no_cpu_variants
    variant_names = args.variant or list(CPU_VARIANTS)
    variants = {name: run_variant(name, scripts) for name in variant_names} if with_variants else {}
    stale: list[str] = []
    for script in scripts:
        result = run_one(script)
        name = _display(script)
        for line in result.stderr.splitlines():
            print(f"{name}: {line}", file=sys.stderr)
        out_file, err_file = script.with_suffix(".out"), script.with_suffix(".err")
        cpu_file = script.with_suffix(cpu.MARKING_SUFFIX)
        marking, problems = (marking_for(result, {v: variants[v][str(script)] for v in variants})
                             if variants else (None, []))
        for problem in problems:
            print(f"make_goldens: {name}: {problem}", file=sys.stderr)
        if args.check:
            if not out_file.is_file() or not cpu.compare_with_golden(result.out.decode("utf-8"), out_file).ok:
                stale.append(_display(out_file))
            if result.err is None:
                if err_file.exists():
                    stale.append(_display(err_file) + " (should not exist)")
            elif not err_file.is_file() or err_file.read_text(encoding="utf-8") != result.err:
                stale.append(_display(err_file))
            if variants:
                stale.extend(_check_marking(cpu_file, marking, variant_names) + [f"{name}: {p}" for p in problems])
            continue
        if not out_file.is_file() or mask_addresses(out_file.read_bytes()) != mask_addresses(result.out):
            out_file.write_bytes(result.out)  # (only an object's address changed: the file stays)
        if result.err is None:
            if err_file.exists():
                err_file.unlink()
        else:
            err_file.write_text(result.err, encoding="utf-8", newline="\n")
        if variants:
            _write_marking(cpu_file, marking, variant_names)
        if not args.quiet:
            tail = f"  raises {result.err.splitlines()[0]}" if result.err else ""
            mark = f"  CPU-dependent ({marking.ulp} {marking.unit} ulp)" if marking else ""
            print(f"wrote {_display(out_file)}{tail}{mark}")
    if args.check:
        if stale:
            print("make_goldens --check: stale goldens (run python tools/make_goldens.py):", file=sys.stderr)
            for item in stale:
                print(f"  {item}", file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"make_goldens --check: {len(scripts)} scripts, all goldens up to date")
    return 0


def _check_marking(cpu_file: Path, marking: cpu.CpuMarking | None, variant_names: list[str]) -> list[str]:
    """What is wrong with the committed NAME.cpu given what the variants measured."""
    committed = cpu.read_marking(cpu_file)
    if marking is None:
        if committed is not None and set(committed.differs_under) <= set(variant_names):
            return [_display(cpu_file) + " (should not exist: no CPU variant changes the output)"]
        return []
    if committed is None:
        return [_display(cpu_file) + f" (missing: the output differs under {', '.join(marking.differs_under)})"]
    have = dict(committed.ulp_by_capability)
    short = [f"{c}: {have.get(c, 0)} < {n}" for c, n in marking.ulp_by_capability if have.get(c, 0) < n]
    if committed.unit != marking.unit or short:
        return [_display(cpu_file) + f" (its tolerance is below the measured one: {committed.unit} vs "
                f"{marking.unit} ulp; {'; '.join(short) or 'unit'})"]
    return []


HOME_CPU = "GenuineIntel AVX512"   # the machine this repository's goldens come from (an unmarked one's)
MEASURED = "measured: "           # a differs_under entry for a real machine's measurement (--measure-here)


def tolerance_for(worst_ulp: float) -> int:
    """Twice the measured difference, a power of two, at least MIN_ULP (as marking_for)."""
    return max(MIN_ULP, 1 << max(0, int(2 * worst_ulp) - 1).bit_length())


def measured_marking(committed: cpu.CpuMarking | None, here: str, golden: str, machine: str):
    """The marking that covers this machine's torch output ``here`` against the committed ``golden``
    (None: no change needed) and a problem no tolerance can cover (None if none)."""
    if cpu.compare_text(here, golden, committed, machine).ok:
        return None, None
    if committed is not None and committed.cpu == machine:
        return None, "this machine is the golden's own: regenerate it instead"
    pairs = cpu.differing_numbers(here, golden)
    if pairs is None:
        return None, "more than digits differ: " + cpu.compare_text(here, golden).message
    unit = committed.unit if committed else "float32"
    worst = max([0.0] + [cpu.needed_ulp(a, e, unit) for a, e in pairs])
    capability = machine.split()[1]
    by_capability = dict(committed.ulp_by_capability) if committed else {}
    by_capability[capability] = max(by_capability.get(capability, 0), tolerance_for(worst))
    under = tuple(sorted(set(committed.differs_under if committed else ()) | {MEASURED + machine}))
    return cpu.CpuMarking(cpu=committed.cpu if committed else HOME_CPU, ulp=max(by_capability.values()),
                          unit=unit, differs_under=under,
                          ulp_by_capability=tuple(sorted(by_capability.items()))), None


def measure_here(scripts: list[Path], quiet: bool) -> int:
    """--measure-here: run torch on this (real) machine and widen the markings it needs; the .out/.err
    files stay (they are the home machine's reference)."""
    machine = cpu.machine_cpu()
    if "(" in machine:
        print(f"make_goldens --measure-here: {machine}: kernels changed by environment variables; "
              "measure a real machine", file=sys.stderr)
        return 2
    problems = 0
    for script in scripts:
        result = run_one(script)
        out_file, cpu_file = script.with_suffix(".out"), script.with_suffix(cpu.MARKING_SUFFIX)
        if not out_file.is_file():
            continue
        golden = cpu.mask_addresses(out_file.read_text(encoding="utf-8"))
        here = cpu.mask_addresses(result.out.decode("utf-8"))
        marking, problem = measured_marking(cpu.read_marking(cpu_file), here, golden, machine)
        if problem:
            problems += 1
            print(f"make_goldens: {_display(script)}: {problem}", file=sys.stderr)
        if marking is not None:
            cpu_file.write_text(marking.to_json(), encoding="utf-8", newline="\n")
            if not quiet:
                print(f"marked {_display(cpu_file)}: {dict(marking.ulp_by_capability)} {marking.unit} ulp")
    return 1 if problems else 0


def _write_marking(cpu_file: Path, marking: cpu.CpuMarking | None, variant_names: list[str]) -> None:
    committed = cpu.read_marking(cpu_file)
    measured = [n for n in (committed.differs_under if committed else ()) if n.startswith(MEASURED)]
    if measured and marking is not None:   # a real machine's measurement outlives the variants' reruns
        merged = dict(marking.ulp_by_capability)
        for name in measured:
            capability = name.split()[-1]
            merged[capability] = max(merged.get(capability, 0), dict(committed.ulp_by_capability).get(capability, 0))
        marking = cpu.CpuMarking(cpu=marking.cpu, unit=marking.unit, ulp=max(merged.values()),
                                 differs_under=tuple(sorted(set(marking.differs_under) | set(measured))),
                                 ulp_by_capability=tuple(sorted(merged.items())))
    if marking is None:
        # a partial run (--variant) removes only a marking that it fully re-measured
        if committed is not None and set(committed.differs_under) <= set(variant_names):
            cpu_file.unlink()
        return
    if committed is not None and set(variant_names) != set(CPU_VARIANTS):
        merged = dict(committed.ulp_by_capability)
        for capability, ulp in marking.ulp_by_capability:
            merged[capability] = max(ulp, merged.get(capability, 0))
        marking = cpu.CpuMarking(
            cpu=marking.cpu, unit=marking.unit if marking.unit == committed.unit else "float32",
            ulp=max(merged.values()), ulp_by_capability=tuple(sorted(merged.items())),
            differs_under=tuple(sorted(set(marking.differs_under) | set(committed.differs_under))))
    cpu_file.write_text(marking.to_json(), encoding="utf-8", newline="\n")


if __name__ == "__main__":
    sys.exit(main())
