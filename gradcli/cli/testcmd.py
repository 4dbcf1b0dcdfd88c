"""`gradcli test`: run every `.grad` script of the given files and folders and check it against its
expectation files (`NAME.out`, `NAME.err`; see gradcli.testing.golden), for CI."""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .common import (EXIT_INTERRUPT, EXIT_OK, EXIT_SCRIPT, EXIT_USAGE, Flags, UsageProblem, check_device, env_flag,
                     say)

SKIPPED_DIRS = {"__pycache__", "node_modules", "venv", "site-packages"}


@dataclass
class CIOptions:
    jobs: int | None = None          # None: the number of cores
    strict: bool = False             # a script without expectation fails
    update: bool = False             # write NAME.out / NAME.err from the current output
    junit: str | None = None         # write a JUnit XML report here
    github: bool = False             # GitHub Actions annotations after the text report


def display_name(path: str) -> str:
    name = os.path.normpath(path).replace(os.sep, "/")
    return name[2:] if name.startswith("./") else name


def collect(paths) -> list[tuple[Path, str, str]]:
    """The scripts, as (path, name shown, the tree tested): given files as they are (their tree: their
    folder), folders searched for `*.grad` (hidden folders and virtual environments left out; their
    tree: the folder given); sorted by the name shown, each file once. A path that does not exist is
    a usage error. Nothing is read through a link out of its tree (golden.outside)."""
    found: dict[str, tuple[Path, str, str]] = {}
    for given in paths or ["."]:
        if os.path.isdir(given):
            for folder, dirs, files in os.walk(given):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
                for file in files:
                    if file.endswith(".grad"):
                        path = os.path.join(folder, file)
                        found.setdefault(os.path.realpath(path), (Path(path), display_name(path), given))
        elif os.path.isfile(given):
            found.setdefault(os.path.realpath(given),
                             (Path(given), display_name(given), os.path.dirname(given) or "."))
        elif os.path.exists(given):
            raise UsageProblem(f"'{given}' is neither a file nor a folder")
        else:
            raise UsageProblem(f"cannot open '{given}': no such file or folder")
    if not found:
        where = ", ".join(f"'{p}'" for p in paths or ["."])
        raise UsageProblem(f"no .grad scripts in {where}")
    return sorted(found.values(), key=lambda item: item[1])


def usage_doc(message: str) -> dict:
    """The `test --json` document of a usage error (nothing ran)."""
    from gradcli.testing import reports  # noqa: PLC0415

    return reports.json_doc([], 0.0, EXIT_USAGE, {"type": "UsageError", "message": message})


def ci_command(paths, opts: CIOptions, flags: Flags) -> int:
    """The whole `test` command: returns the exit code (0 all passed, 1 a failure, 2 usage)."""
    from gradcli.testing import reports  # noqa: PLC0415

    start = time.monotonic()
    color = flags.color_out()
    records: list = []

    def usage(message: str) -> int:
        if flags.json:
            from gradcli.render.jsonout import dumps  # noqa: PLC0415

            sys.stdout.write(dumps(usage_doc(message)) + "\n")
        say(message, flags.color_err())
        return EXIT_USAGE

    try:
        if flags.json and opts.github:
            raise UsageProblem("--json and --format github both write stdout: choose one")
        check_device(flags.device)
        scripts = collect(paths)
        if opts.junit:
            _check_writable(opts.junit)
    except UsageProblem as exc:
        return usage(str(exc))

    from gradcli.testing.execute import default_jobs, run_scripts  # noqa: PLC0415

    options = flags.run_options()
    if options.seed is None:
        options.seed = 0  # as the goldens are made (tools/make_goldens.py: torch.manual_seed(0) first)

    def on_result(finished) -> None:
        path, name, root = scripts[finished.index]
        record = _record(path, name, finished, opts, root)
        records.append(record)
        if not flags.json:
            sys.stdout.write(reports.text_line(record, color))
            if opts.github:
                annotation = reports.github_annotation(record)
                if annotation:
                    sys.stdout.write(annotation + "\n")
            sys.stdout.flush()

    try:
        run_scripts(scripts, options, jobs=opts.jobs or default_jobs(), max_memory=flags.max_memory_bytes(),
                    seccomp=not (flags.no_seccomp or env_flag("GRADCLI_NO_SECCOMP")), on_result=on_result)
    except KeyboardInterrupt:
        if flags.json:
            from gradcli.render.jsonout import dumps  # noqa: PLC0415

            doc = reports.json_doc(records, time.monotonic() - start, EXIT_INTERRUPT,
                                   {"type": "KeyboardInterrupt", "message": "interrupted"})
            sys.stdout.write(dumps(doc) + "\n")
        sys.stdout.flush()
        say("interrupted", flags.color_err())
        return EXIT_INTERRUPT
    seconds = time.monotonic() - start
    code = EXIT_SCRIPT if any(r.failed for r in records) else EXIT_OK
    if opts.junit:
        try:
            Path(opts.junit).write_bytes(reports.junit_xml(records, seconds))
        except OSError as exc:
            say(f"cannot write the JUnit report '{opts.junit}': {exc.strerror or exc}", flags.color_err())
            code = max(code, EXIT_SCRIPT)
    if flags.json:
        from gradcli.render.jsonout import dumps  # noqa: PLC0415

        sys.stdout.write(dumps(reports.json_doc(records, seconds, code)) + "\n")
    else:
        sys.stdout.write(reports.summary_line(records, seconds) + "\n")
    return code


def _write_new(target: Path, data: bytes) -> None:
    """Write an expectation file, never through a link: `hw.out -> ~/.bashrc` committed to a student's
    repository made `gradcli test --update` write the script's output (the script's choice) there."""
    if target.is_symlink():
        raise OSError(0, f"{target.name} is a symbolic link; --update writes regular files only")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(target, flags, 0o666)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _check_writable(path: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageProblem(f"--junit {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise UsageProblem(f"--junit {path}: it is a folder")


def _record(path: Path, name: str, finished, opts: CIOptions, root=None):
    from gradcli.testing import golden, reports  # noqa: PLC0415

    actual = finished.actual
    error = None if actual.error_type is None else {
        "type": actual.error_type, "message": actual.error_message, "line": actual.error_line}
    record = reports.Record(name, reports.PASSED, finished.seconds, error=error, stdout=actual.stdout)
    expectation = golden.read_expectation(path, root)
    if expectation.exists:
        verdict = golden.compare(expectation, actual, name)
        if verdict.passed:
            return record
        record.problems, record.diff, record.line = list(verdict.problems), verdict.diff, verdict.line
    if opts.update:
        return _update(path, actual, record)
    if expectation.exists:
        record.status = reports.FAILED
    else:
        record.status = reports.FAILED if opts.strict else reports.NO_EXPECTATION
        record.problems = [f"no expectation: neither {golden.out_path(name).name} nor "
                           f"{golden.err_path(name).name} (write them with --update)"]
        record.line = None
    return record


def _update(path: Path, actual, record):
    """--update: write the expectation files from this run (not from a run that gradcli itself
    failed, nor one that timed out)."""
    from gradcli.testing import golden, reports  # noqa: PLC0415

    if actual.failure or actual.error_type == "TimeoutError":
        record.status = reports.FAILED
        record.problems = [f"not updated: {actual.failure or actual.error_place()}"]
        record.diff = ""
        return record
    try:
        for suffix, data in golden.expectation_files(actual).items():
            target = path.with_suffix(suffix)
            if data is None:
                if target.exists() or target.is_symlink():
                    target.unlink()  # a link itself, never what it leads to
            else:
                _write_new(target, data)
    except OSError as exc:
        record.status = reports.FAILED
        record.problems = [f"not updated: {exc.strerror or exc}"]
        return record
    record.status, record.problems, record.diff, record.line = reports.UPDATED, [], "", None
    return record
