"""`gradcli run`: run GradScript files, stdin or -e code, each in a fresh scope."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from gradcli.render.jsonout import dumps, run_doc, simple_error  # light; here, so that a Ctrl-C while it is
#                                                                 imported is the start-up handler's (entry.py)

from .common import (EXIT_INTERNAL, EXIT_INTERRUPT, EXIT_OK, EXIT_SCRIPT, EXIT_USAGE, INTERNAL_HINT, Flags,
                     UsageProblem, check_device, decode_source, hard_deadline, internal_error, say)
from .entry import interrupt_received

STDIN_NAME = "<stdin>"
EXPR_NAME = "<string>"


@dataclass
class Source:
    name: str
    text: str | None
    decode_error: dict | None = None
    predefine: bool = False      # bind torch, np, nn, F, math before running (-e CODE)


@dataclass
class Outcome:
    """One input's run, in the shape both renderers need."""
    name: str
    exit_code: int
    outputs: list = field(default_factory=list)     # (text, line)
    warnings: list = field(default_factory=list)    # dicts: category, message, line, column
    error: dict | None = None                       # jsonout.error_json shape
    variables: dict = field(default_factory=dict)
    explain: list | None = None                     # --explain: one record per backward pass
    checks: list | None = None                      # --check: one result per backward pass


def read_sources(files, expr) -> list[Source]:
    """Every input, read up front: a missing or unreadable file is a usage error before anything runs."""
    sources = []
    if expr is not None:
        sources.append(Source(EXPR_NAME, expr, predefine=True))
    stdin_used = False
    from gradcli.lang.runner import MAX_SOURCE_CHARS, source_too_large  # noqa: PLC0415

    most = 4 * MAX_SOURCE_CHARS + 3  # bytes: more cannot be a script under the limit (/dev/zero, `yes |`)
    for name in files or ():
        if name == "-":
            if stdin_used:
                raise UsageProblem("'-' (stdin) can be given only once")
            stdin_used = True
            data = sys.stdin.buffer.read(most + 1) if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
            label = STDIN_NAME
        else:
            try:
                with open(name, "rb") as fh:
                    data = fh.read(most + 1)
            except FileNotFoundError:
                raise UsageProblem(f"cannot open '{name}': no such file") from None
            except IsADirectoryError:
                raise UsageProblem(f"cannot open '{name}': it is a directory") from None
            except OSError as exc:
                raise UsageProblem(f"cannot open '{name}': {exc.strerror or exc}") from None
            label = name
        if len(data) > most:
            big = source_too_large(label)
            sources.append(Source(label, None, {k: getattr(big, k) for k in (
                "type_name", "message", "line", "column", "end_line", "end_column", "hint")}))
            continue
        text, err = decode_source(data, label)
        sources.append(Source(label, text, err))
    return sources


def _warning_dict(*args, **kwargs) -> dict:
    w = args[0] if len(args) == 1 and not kwargs else None
    if w is None:
        data = dict(zip(("category", "message", "line", "column"), args))
        data.update(kwargs)
    else:
        data = {k: getattr(w, k, None) for k in ("category", "message", "line", "column")}
        if isinstance(w, str):
            data["message"] = w
    data["category"] = data.get("category") or "UserWarning"
    data["message"] = str(data.get("message"))
    return {k: data.get(k) for k in ("category", "message", "line", "column")}


def _is_cuda_unavailable(exc) -> bool:
    return type(exc).__name__ == "CudaUnavailable"


def run_one(src: Source, flags: Flags, options, color_out: bool, color_err: bool, previous=()) -> Outcome:
    """Run one input; stream its output unless --json; render its error and warnings on stderr.
    ``previous``: the outcomes of the inputs before it (for the JSON document of a hard timeout)."""
    from gradcli.render.diagnostics import WarningPrinter, print_error  # noqa: PLC0415
    from gradcli.render.jsonout import error_json, simple_error  # noqa: PLC0415

    outcome = Outcome(src.name, EXIT_OK)
    if src.decode_error is not None:
        err = _Located(filename=src.name, **src.decode_error)
        outcome.error, outcome.exit_code = error_json(err, src.name), EXIT_SCRIPT
        if not flags.json:
            print_error(err, sys.stderr, color_err, source=None, filename=src.name)
        return outcome

    writer = None
    if not flags.json:
        from gradcli.render.stream import make_writer  # noqa: PLC0415

        writer = make_writer(sys.stdout, color_out)
    printer = None if flags.json else WarningPrinter(sys.stderr, color_err, src.name)
    seen = set()

    def write(text, line=None, *rest):
        outcome.outputs.append((text, line))
        if writer is not None:
            writer.write(text, line)

    def warn(*args, **kwargs):
        w = _warning_dict(*args, **kwargs)
        key = (w["category"], w["message"], w["line"], w["column"])
        if key in seen:
            return
        seen.add(key)
        outcome.warnings.append(w)
        if printer is not None:
            printer.show(w["category"], w["message"], w["line"], w["column"])

    from gradcli.lang import runner  # noqa: PLC0415

    try:
        session = runner.Session(options, write=write, warn=warn)
        if src.predefine:  # -e CODE: torch, np, nn, F and math are there without imports
            session.predefine_modules()
        if (flags.explain or flags.check) and not flags.json:
            session.on_pass = _pass_printer(color_err, src.name)
        with hard_deadline(options.timeout, lambda: _hard_timeout(src, flags, session, outcome, previous,
                                                                  color_err)):
            result = session.run(src.text, src.name)
        if flags.explain:
            outcome.explain = [r.to_json() for r in getattr(result, "explain", None) or ()]
        if flags.check:
            outcome.checks = [r.to_json() for r in getattr(result, "checks", None) or ()]
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - nothing of gradcli's may escape as a traceback
        if _is_cuda_unavailable(exc):
            raise UsageProblem(str(exc)) from None
        if flags.debug:
            raise
        outcome.exit_code = EXIT_INTERNAL
        outcome.error = simple_error("InternalError", f"{type(exc).__name__}: {exc} {INTERNAL_HINT}", src.name)
        if not flags.json:
            internal_error(exc, False)
        return outcome

    for w in getattr(result, "warnings", None) or ():
        warn(w)
    if not outcome.outputs:
        outcome.outputs = [(getattr(o, "text", str(o)), getattr(o, "line", None))
                           for o in getattr(result, "outputs", None) or ()]
    outcome.variables = getattr(result, "variables", None) or {}
    err = getattr(result, "error", None)
    if err is not None:
        type_name = getattr(err, "type_name", type(err).__name__)
        if type_name == "KeyboardInterrupt":
            raise KeyboardInterrupt
        if type_name == "CudaUnavailable" or _is_cuda_unavailable(getattr(err, "original", None)):
            raise UsageProblem(str(getattr(err, "original", None) or getattr(err, "message", err)))
        if type_name == "InternalError":
            outcome.exit_code = EXIT_INTERNAL
            outcome.error = error_json(err, src.name)
            outcome.error["message"] = f"{_internal_text(err)} {INTERNAL_HINT}"
            if not flags.json or flags.debug:
                report_internal(err, flags.debug)
            return outcome
        outcome.exit_code = EXIT_SCRIPT
        outcome.error = error_json(err, src.name)
        if not flags.json:
            sys.stdout.flush()
            print_error(err, sys.stderr, color_err, source=src.text, filename=src.name)
    elif not getattr(result, "ok", True):
        outcome.exit_code = EXIT_SCRIPT
        outcome.error = simple_error("Error", "the script failed", src.name)
    return outcome


def _hard_timeout(src, flags, session, outcome, previous, color_err) -> None:
    """The script is still inside one long operation past --timeout: report the TimeoutError at
    the statement that runs (the process ends right after, see common.hard_deadline)."""
    from gradcli.lang.runner import hint_text  # noqa: PLC0415
    from gradcli.lang.runtime import timeout_text  # noqa: PLC0415
    from gradcli.render.jsonout import error_json  # noqa: PLC0415

    node = session.rt.loc[0]
    span = {k: getattr(node, k, None) for k in ("line", "column", "end_line", "end_column")}
    err = _Located("TimeoutError", timeout_text(session.rt.timeout),
                   filename=src.name, hint=hint_text("timeout"), **span)
    outcome.exit_code, outcome.error, outcome.variables = EXIT_SCRIPT, error_json(err, src.name), {}
    if flags.json:
        runs = [*previous, outcome]
        _emit_json(runs, max(o.exit_code for o in runs))
    else:
        sys.stdout.flush()
        from gradcli.render.diagnostics import print_error  # noqa: PLC0415

        print_error(err, sys.stderr, color_err, source=src.text, filename=src.name)


def _pass_printer(color: bool, name: str):
    """session.on_pass for the terminal: the walkthrough table and the check line of every backward
    pass, on stderr (stdout stays exactly what PyTorch prints), after the output printed so far."""
    def on_pass(kind, record):
        sys.stdout.flush()
        if kind == "explain":
            from gradcli.graph.explain import render  # noqa: PLC0415

            render(record, sys.stderr, color)
        else:
            text = record.line_text()
            sys.stderr.write((f"\x1b[32m{text}\x1b[0m" if color else text) + "\n")
            sys.stderr.flush()
    return on_pass


def _internal_text(err) -> str:
    """'Type: message' of the failure inside gradcli (the runner's InternalError wraps it)."""
    original = getattr(err, "original", None)
    if original is not None:
        text = str(original).strip().splitlines()
        return f"{type(original).__name__}: {text[0]}" if text else type(original).__name__
    message = str(getattr(err, "message", err))
    return message[len("internal error: "):] if message.startswith("internal error: ") else message


def report_internal(err, debug: bool) -> None:
    """One line on stderr for gradcli's own failure reported by the runner; --debug adds the traceback."""
    if debug:
        tb = getattr(err, "traceback_text", "")
        sys.stdout.flush()
        if tb:
            sys.stderr.write(tb if tb.endswith("\n") else tb + "\n")
    say(f"internal error: {_internal_text(err)} {INTERNAL_HINT}")


class _Located:
    """A located error built here (a file that is not UTF-8)."""

    def __init__(self, type_name, message, filename=None, line=None, column=None, end_line=None,
                 end_column=None, hint=None):
        self.type_name, self.message, self.filename = type_name, message, filename
        self.line, self.column, self.end_line, self.end_column, self.hint = line, column, end_line, end_column, hint


def _doc(outcome: Outcome):
    from gradcli.render.jsonout import run_doc  # noqa: PLC0415
    from gradcli.render.tensors import tensors_json  # noqa: PLC0415

    return run_doc(
        command="run", filename=outcome.name, exit_code=outcome.exit_code,
        outputs=[{"text": t, "line": ln} for t, ln in outcome.outputs],
        tensors=tensors_json(outcome.variables),
        error=outcome.error,
        warnings=[{**w, "file": outcome.name} for w in outcome.warnings],
        extra={k: v for k, v in (("explain", outcome.explain), ("checks", outcome.checks)) if v is not None},
    )


def _summary(outcome: Outcome, color: bool, several: bool) -> None:
    from gradcli.render.summary import print_renderable, summary_table  # noqa: PLC0415

    table = summary_table(outcome.variables, color, title=f"tensors of {outcome.name}" if several else "tensors")
    if table is not None:
        print_renderable(table, sys.stdout, color)


def run_command(files, expr, flags: Flags) -> int:
    """The whole `run` command: returns the exit code (the worst of the inputs)."""
    outcomes: list[Outcome] = []
    current = [None]  # the input running now (for an interrupt under --json)

    def usage(message: str) -> int:
        if flags.json:
            sys.stdout.write(dumps(run_doc(command="run", filename=None, exit_code=EXIT_USAGE,
                                           error=simple_error("UsageError", message))) + "\n")
        say(message, flags.color_err())
        return EXIT_USAGE

    try:
        if not files and expr is None:
            if sys.stdin is not None and not sys.stdin.isatty():
                files = ["-"]
            else:
                return usage("nothing to run: give FILE.grad, '-' for stdin, or -e CODE "
                             "(try 'gradcli run --help')")
        check_device(flags.device)
        sources = read_sources(files, expr)
        options = flags.run_options()
        color_out, color_err = flags.color_out(), flags.color_err()
        for src in sources:
            current[0] = src.name
            outcome = run_one(src, flags, options, color_out, color_err, previous=outcomes)
            outcomes.append(outcome)
            if flags.summary and not flags.json:
                _summary(outcome, color_out, len(sources) > 1)
    except UsageProblem as exc:
        return usage(str(exc))
    except (KeyboardInterrupt, Exception) as exc:
        if not isinstance(exc, KeyboardInterrupt) and not interrupt_received():
            raise
        # Ctrl-C (also when an import it interrupted turned it into an ImportError)
        sys.stdout.flush()
        if flags.json:
            outcomes.append(Outcome(current[0], EXIT_INTERRUPT,
                                    error=simple_error("KeyboardInterrupt", "interrupted", current[0])))
            _emit_json(outcomes, EXIT_INTERRUPT)
        say("interrupted", flags.color_err())
        return EXIT_INTERRUPT
    code = max((o.exit_code for o in outcomes), default=EXIT_OK)
    if flags.json:
        _emit_json(outcomes, code)
    if flags.debug:  # which backend computed the ops torch sends to MKL (docs/numerics.md)
        from gradcli.backend import describe  # noqa: PLC0415 - light: no NumPy, no library

        say(describe(), flags.color_err())
    return code


def _emit_json(outcomes, code) -> None:
    from gradcli.render.jsonout import dumps, multi_doc  # noqa: PLC0415

    docs = [_doc(o) for o in outcomes]
    doc = docs[0] if len(docs) == 1 else multi_doc(docs, code)
    sys.stdout.write(dumps(doc) + "\n")
    sys.stdout.flush()
