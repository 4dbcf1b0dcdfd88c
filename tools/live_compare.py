#!/usr/bin/env python3
"""Compare `gradcli run FILE.grad` with what real PyTorch prints for it ON THIS MACHINE, byte for byte.

    python3 tools/live_compare.py                          # samples/, tests/tutorial_corpus/, tests/golden/
    python3 tools/live_compare.py tests/golden/scripts -j 2 --report /tmp/live.json
    python3 tools/live_compare.py --rerun /tmp/live.json   # only the scripts that differed last time
    python3 tools/live_compare.py --show 3 samples/seed00_linear_backward.grad

The goldens in the repository were made on one machine (docs/goldens.md); acceptance compares with
torch on the machine at hand. For every script this runs the reference, `torch-echo`
(`/work/shared/tools/torch-echo`, or `--torch-echo PATH`: the script's statements one by one in the
interactive mode, after `torch.manual_seed(0)`: torch seeds its default generator from the OS, so
unseeded scripts that draw random numbers never agree, not even with torch), in a child forked from a
worker that imported torch once, and `python3 -m gradcli run --seed 0 FILE` (the checkout's gradcli), both
under `nice`, `-j` at a time, then compares their stdout (object addresses masked) and whether each
failed. torch's outputs are cached (`--cache`, default /tmp/live_compare/), keyed by the script's
bytes, torch-echo's and the CPU's model and flags, so a rerun only runs gradcli.

Exit status 1 when a script differs. The report groups the scripts by folder (the corpora) and
names the first differing line of each; `--report FILE` writes it as JSON for `--rerun`.
A development tool that needs torch==2.13.0; never part of the gradcli package.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PATHS = ["samples", "tests/tutorial_corpus", "tests/golden/scripts", "tests/golden/mkl"]
DEFAULT_ECHO = "/work/shared/tools/torch-echo"
TIMEOUT = 300
SEED = 0  # both sides, as the goldens (tools/make_goldens.py, gradcli test)
_ADDRESS = re.compile(rb" object at 0x[0-9a-f]+>")


def mask(text: bytes) -> bytes:
    """An object's address in a repr (<AddBackward0 object at 0x7f...>) never matches."""
    return _ADDRESS.sub(b" object at 0x...>", text)


def find_scripts(paths: list[str]) -> list[Path]:
    scripts: list[Path] = []
    for name in paths:
        path = Path(name)
        if not path.is_absolute():
            path = ROOT / path if (ROOT / path).exists() else path
        if path.is_dir():
            scripts.extend(sorted(path.rglob("*.grad")))
        elif path.suffix == ".grad" and path.is_file():
            scripts.append(path)
        else:
            raise SystemExit(f"live_compare: not a .grad file or folder: {name}")
    return scripts


def cpu_key() -> str:
    """The CPU's model name and flags: torch's (and MKL's) kernels follow them."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "unknown"
    keep = [line for line in text.splitlines() if line.startswith(("model name", "flags"))][:2]
    return "\n".join(keep)


def cache_key(script: Path, echo: Path, cpu: str) -> str:
    digest = hashlib.sha256()
    for part in (echo.read_bytes(), script.read_bytes(), cpu.encode(), str(SEED).encode(), os.environ.get("ATEN_CPU_CAPABILITY", "").encode(),
                 os.environ.get("OMP_NUM_THREADS", "").encode(), os.environ.get("MKL_NUM_THREADS", "").encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


# ------------------------------------------------------------------------------ the torch side

def _torch_child(echo_module, script: str, out_path: str, err_path: str) -> None:
    code = 3
    try:
        out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        err_fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", newline="\n", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", newline="\n", closefd=False)
        signal.alarm(TIMEOUT)
        import torch  # noqa: PLC0415 (imported by the worker already)

        torch.manual_seed(SEED)  # torch seeds its default generator from the OS: unseeded runs never agree
        code = echo_module.main(script)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # noqa: BLE001 (torch-echo's own crash: reported as status 3)
        code = 3
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def torch_worker(echo: str, cache: str, scripts: list[str]) -> int:
    """Import torch once, then fork a child per script that runs torch-echo's main on it."""
    import torch  # noqa: F401, PLC0415 (warm, before the forks)

    loader = importlib.machinery.SourceFileLoader("torch_echo", echo)
    spec = importlib.util.spec_from_loader("torch_echo", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    for item in scripts:
        script, key = item.split("\t")
        with tempfile.TemporaryDirectory(prefix="live_compare_") as tmp:
            out_path, err_path = os.path.join(tmp, "out"), os.path.join(tmp, "err")
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _torch_child(module, script, out_path, err_path)
            _, status = os.waitpid(pid, 0)
            rc = os.waitstatus_to_exitcode(status)
            out = Path(out_path).read_bytes() if os.path.exists(out_path) else b""
            err = Path(err_path).read_bytes() if os.path.exists(err_path) else b""
        record = {"out": out.decode("latin-1"), "err": err.decode("latin-1")[-4000:], "rc": rc}
        Path(cache, key + ".json").write_text(json.dumps(record), encoding="utf-8")
    return 0


def torch_outputs(scripts: list[Path], echo: Path, cache: Path, jobs: int, quiet: bool) -> dict[Path, dict]:
    cache.mkdir(parents=True, exist_ok=True)
    cpu = cpu_key()
    keys = {script: cache_key(script, echo, cpu) for script in scripts}
    missing = [s for s in scripts if not (cache / (keys[s] + ".json")).exists()]
    if missing:
        if not quiet:
            print(f"live_compare: running torch on {len(missing)} script(s) ({len(scripts) - len(missing)} cached)",
                  file=sys.stderr)
        shares = [missing[i::jobs] for i in range(jobs)]
        procs = [subprocess.Popen(["nice", "-n", "10", sys.executable, __file__, "--torch-worker", str(echo), str(cache),
                                   *[f"{s}\t{keys[s]}" for s in share]], cwd=ROOT)
                 for share in shares if share]
        for proc in procs:
            proc.wait()
    results = {}
    for script in scripts:
        path = cache / (keys[script] + ".json")
        if path.exists():
            record = json.loads(path.read_text(encoding="utf-8"))
            results[script] = {"out": record["out"].encode("latin-1"), "rc": record["rc"],
                               "err": record["err"].encode("latin-1")}
        else:
            results[script] = {"out": b"", "rc": None, "err": b"(torch worker wrote nothing)"}
    return results


# ------------------------------------------------------------------------------ the gradcli side

def gradcli_output(script: Path) -> dict:
    try:
        proc = subprocess.run(["nice", "-n", "10", sys.executable, "-m", "gradcli", "run", "--no-color", "--seed", str(SEED),
                               str(script)],
                              cwd=ROOT, capture_output=True, timeout=TIMEOUT, check=False,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    except subprocess.TimeoutExpired as late:
        return {"out": late.stdout or b"", "rc": None, "err": b"(timed out)"}
    return {"out": proc.stdout, "rc": proc.returncode, "err": proc.stderr[-4000:]}


def first_difference(want: bytes, got: bytes) -> str:
    w, g = want.decode("utf-8", "replace").splitlines(), got.decode("utf-8", "replace").splitlines()
    for i in range(max(len(w), len(g))):
        a = w[i] if i < len(w) else "<end>"
        b = g[i] if i < len(g) else "<end>"
        if a != b:
            return f"line {i + 1}: torch {a[:150]!r} / gradcli {b[:150]!r}"
    return "same lines (bytes differ: line ends)"


def corpus_of(path: Path) -> str:
    name = display(path)
    return name.rsplit("/", 1)[0] if "/" in name else "."


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--torch-worker"]:
        return torch_worker(argv[1], argv[2], argv[3:])
    parser = argparse.ArgumentParser(description="gradcli against torch on this machine, byte for byte.")
    parser.add_argument("paths", nargs="*", help=f"folders (their *.grad, recursively) or files; default: {DEFAULT_PATHS}")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--cache", default="/tmp/live_compare", help="torch's outputs, per script and CPU")
    parser.add_argument("--torch-echo", default=os.environ.get("TORCH_ECHO", DEFAULT_ECHO))
    parser.add_argument("--report", help="write the results as JSON here")
    parser.add_argument("--rerun", help="a report of an earlier run: compare only the scripts that differed there")
    parser.add_argument("--show", type=int, default=0, help="print the full outputs of the first N differing scripts")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args(argv)
    echo = Path(args.torch_echo)
    if not echo.is_file():
        print(f"live_compare: no torch-echo at {echo} (--torch-echo)", file=sys.stderr)
        return 2
    if args.rerun:
        earlier = json.loads(Path(args.rerun).read_text(encoding="utf-8"))
        scripts = [ROOT / name for name, item in earlier["scripts"].items() if not item["same"]]
    else:
        scripts = find_scripts(args.paths or DEFAULT_PATHS)
    want = torch_outputs(scripts, echo, Path(args.cache), max(1, args.jobs), args.quiet)
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        got = dict(zip(scripts, pool.map(gradcli_output, scripts)))
    report: dict = {"corpora": {}, "scripts": {}}
    shown = 0
    for script in scripts:
        w, g = want[script], got[script]
        same_out = mask(w["out"]) == mask(g["out"])
        same_status = (w["rc"] == 0) == (g["rc"] == 0)
        same = same_out and same_status and w["rc"] is not None and g["rc"] is not None
        why = "" if same else (first_difference(mask(w["out"]), mask(g["out"])) if not same_out
                               else f"status: torch {w['rc']}, gradcli {g['rc']}")
        name = display(script)
        report["scripts"][name] = {"same": same, "why": why, "torch_rc": w["rc"], "gradcli_rc": g["rc"]}
        counts = report["corpora"].setdefault(corpus_of(script), {"scripts": 0, "same": 0})
        counts["scripts"] += 1
        counts["same"] += same
        if not same and not args.quiet:
            print(f"DIFF {name}: {why}")
            if shown < args.show:
                shown += 1
                print("--- torch\n" + w["out"].decode("utf-8", "replace") + "--- gradcli\n"
                      + g["out"].decode("utf-8", "replace") + g["err"].decode("utf-8", "replace")[-1500:])
    total = sum(c["scripts"] for c in report["corpora"].values())
    same = sum(c["same"] for c in report["corpora"].values())
    for corpus, counts in sorted(report["corpora"].items()):
        print(f"{corpus}: {counts['same']}/{counts['scripts']} byte for byte")
    print(f"total: {same}/{total} byte for byte")
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0 if same == total else 1


if __name__ == "__main__":
    sys.exit(main())
