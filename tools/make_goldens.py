#!/usr/bin/env python3
"""Generate (or check) the golden outputs of .grad scripts with real PyTorch.

    pip install '.[oracle]'                      # torch==2.13.0 (CPU is enough)
    python tools/make_goldens.py                 # regenerate samples/ and tests/golden/scripts/
    python tools/make_goldens.py --check         # exit 1 if a committed golden is stale
    python tools/make_goldens.py samples/seed00_linear_backward.grad tests/golden/scripts

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
committed ``.out``/``.err`` is missing, differs, or a ``.err`` exists that should not.

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
            exec(compile(single, filename, "single"), namespace)
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
    except BaseException as error:  # SystemExit, KeyboardInterrupt...: still a report
        sys.stdout.flush()
        info = {"error": f"{type(error).__name__}: {error}", "line": _error_line(error, script)}
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
    stale: list[str] = []
    for script in scripts:
        result = run_one(script)
        name = _display(script)
        for line in result.stderr.splitlines():
            print(f"{name}: {line}", file=sys.stderr)
        out_file, err_file = script.with_suffix(".out"), script.with_suffix(".err")
        if args.check:
            if not out_file.is_file() or mask_addresses(out_file.read_bytes()) != mask_addresses(result.out):
                stale.append(_display(out_file))
            if result.err is None:
                if err_file.exists():
                    stale.append(_display(err_file) + " (should not exist)")
            elif not err_file.is_file() or err_file.read_text(encoding="utf-8") != result.err:
                stale.append(_display(err_file))
            continue
        out_file.write_bytes(result.out)
        if result.err is None:
            if err_file.exists():
                err_file.unlink()
        else:
            err_file.write_text(result.err, encoding="utf-8", newline="\n")
        if not args.quiet:
            tail = f"  raises {result.err.splitlines()[0]}" if result.err else ""
            print(f"wrote {_display(out_file)}{tail}")
    if args.check:
        if stale:
            print("make_goldens --check: stale goldens (run python tools/make_goldens.py):", file=sys.stderr)
            for item in stale:
                print(f"  {item}", file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"make_goldens --check: {len(scripts)} scripts, all goldens up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
