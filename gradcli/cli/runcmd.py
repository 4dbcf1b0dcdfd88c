"""`gradcli run`: run GradScript files, stdin or -e code, each in a fresh scope."""
from __future__ import annotations

import sys
from dataclasses import field

from gradcli import gcpolicy
from gradcli.lang.options import load_language
from gradcli.records import record
from gradcli.render.jsonout import dumps, run_doc, simple_error  # light; here, so that a Ctrl-C while it is
#                                                                 imported is the start-up handler's (entry.py)

from . import executor
from .common import (EXIT_INTERNAL, EXIT_OK, EXIT_SCRIPT, EXIT_USAGE, INTERNAL_HINT, Flags,
                     TIMEOUT_GRACE, UsageProblem, check_device, decode_source, env_flag, hard_deadline,
                     cap_memory_error, say, say_usage, size_text, usage_hint)
from .entry import interrupt_received, interruption

STDIN_NAME = "<stdin>"
EXPR_NAME = "<string>"


@record  # a dataclass, made for less start-up time (gradcli/records.py)
class Source:
    name: str
    text: str | None
    decode_error: dict | None = None
    predefine: bool = False      # bind torch, np, nn, F, math before running (-e CODE)


@record  # a dataclass, made for less start-up time (gradcli/records.py)
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
    tensors: dict | None = None                     # --json: the tensors among the variables (as JSON)


def read_sources(files, expr) -> list[Source]:
    """Every input, read up front: a missing or unreadable file is a usage error before anything runs."""
    sources = []
    if expr is not None:  # one -e CODE, or several (-e A -e B): run in order as one script
        sources.append(Source(EXPR_NAME, expr if isinstance(expr, str) else "\n".join(expr), predefine=True))
    stdin_used = False
    from gradcli.lang.options import MAX_SOURCE_CHARS  # noqa: PLC0415

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
            from gradcli.lang.runner import source_too_large  # noqa: PLC0415

            big = source_too_large(label)
            sources.append(Source(label, None, {k: getattr(big, k) for k in (
                "type_name", "message", "line", "column", "end_line", "end_column", "hint")}))
            continue
        text, err = decode_source(data, label)
        sources.append(Source(label, text, err))
    return sources


def run_one(src: Source, flags: Flags, options, color_out: bool, color_err: bool, previous=(),
            started=None) -> Outcome:
    """Run one input; stream its output unless --json; render its error and warnings on stderr.
    ``previous``: the outcomes of the inputs before it (for the JSON document of a hard timeout).
    With ``flags.isolate`` the run executes in a child process (cli/isolate.py): this process
    renders what the child streams, and ends the child at the hard deadline."""
    from gradcli.render.diagnostics import WarningPrinter, print_error  # noqa: PLC0415
    from gradcli.render.jsonout import error_json  # noqa: PLC0415

    outcome = Outcome(src.name, EXIT_OK)
    if started is not None:
        started[1] = outcome  # what it printed, if an interrupt ends it
    if src.decode_error is not None:
        err = executor.Located(filename=src.name, **src.decode_error)
        outcome.error, outcome.exit_code = error_json(err, src.name), EXIT_SCRIPT
        if not flags.json:
            print_error(err, sys.stderr, color_err, source=None, filename=src.name)
        return outcome

    writer = None
    if not flags.json:
        from gradcli.render.stream import make_writer  # noqa: PLC0415

        writer = make_writer(sys.stdout, color_out)
    printer = None if flags.json else WarningPrinter(sys.stderr, color_err, src.name)
    crash = []
    location = [None]  # the statement the child runs, as it reports it near the deadline

    def on_message(message):
        kind = message[0]
        if kind == "out":
            if writer is not None:  # text: streamed, never held (a run may print gigabytes)
                writer.write(message[1], message[2])
            else:
                outcome.outputs.append((message[1], message[2]))
        elif kind == "warn":
            w = message[1]
            outcome.warnings.append(w)
            if printer is not None:
                printer.show(w["category"], w["message"], w["line"], w["column"])
        elif kind == "stderr":
            sys.stdout.flush()
            sys.stderr.write(message[1])
            sys.stderr.flush()
        elif kind == "sandbox":
            if flags.debug:
                say(f"debug: the run's process: seccomp {'off: ' + message[1] if message[1] else 'filter on'}, "
                    f"memory cap {size_text(flags.max_memory_bytes())}")
        elif kind == "crash":
            crash.append(message)
        elif kind == "loc":
            location[0] = message[1:]

    if flags.isolate:
        from . import isolate  # noqa: PLC0415

        def body(channel):
            watch = None
            if options.timeout is not None:
                def watch(session):
                    return isolate.watch_location(channel, session.rt, options.timeout)
            channel.send("done", execute(src, flags, options, color_err, channel.send, watch=watch))
        try:
            data = isolate.run(body, on_message, timeout=options.timeout, grace=TIMEOUT_GRACE,
                               max_memory=flags.max_memory_bytes(), seccomp=not flags.no_seccomp,
                               setup=load_language)[1]
        except isolate.Ended as ended:
            data = _ended(ended.reason, crash, options, src, location)
    else:
        def send(*message):
            on_message(message)
        data = execute(src, flags, options, color_err, send,
                       expire=lambda session: _hard_timeout(src, flags, session, outcome, previous, color_err))
    return _finish(outcome, data, src, flags, color_err)


STACK_OVERFLOW = ("maximum recursion depth exceeded: the interpreter's stack overflowed (the run's process "
                  "crashed with SIGSEGV), e.g. on a value nested too deeply")
STACK_OVERFLOW_HINT = "values nested thousands of levels deep (a tuple in a tuple in ...) overflow it: use flatter data"


def _ended(reason, crash, options, src, location) -> dict:
    """The outcome of a child that ended without one."""
    from gradcli.lang.runner import hint_text  # noqa: PLC0415
    from gradcli.lang.runtime import timeout_text  # noqa: PLC0415
    from gradcli.render.jsonout import simple_error  # noqa: PLC0415

    if reason == "timeout":
        error = simple_error("TimeoutError", timeout_text(options.timeout), src.name, hint_text("timeout"))
        if location[0] is not None:
            error.update(zip(("line", "column", "end_line", "end_column"), location[0]))
        return {"kind": "script", "error": error}
    if crash:
        return {"kind": "internal", "internal_text": crash[0][1], "traceback": crash[0][2],
                "error": simple_error("InternalError", crash[0][1], src.name)}
    if reason == "signal 11":
        # SIGSEGV: the C stack overflowed in one of Python's unguarded recursions (hash() of a tuple
        # nested 100,000 deep, ...), on which Python itself crashes: the script's limit, not a bug
        error = simple_error("RecursionError", STACK_OVERFLOW, src.name, STACK_OVERFLOW_HINT)
        if location[0] is not None:
            error.update(zip(("line", "column", "end_line", "end_column"), location[0]))
        return {"kind": "script", "error": error}
    text = f"the run's process ended unexpectedly ({reason})"
    return {"kind": "internal", "internal_text": text, "traceback": "",
            "error": simple_error("InternalError", text, src.name)}


MAX_JSON_OUTPUT = 1 << 28  # characters a run may print under --json (the parent keeps them for the document)


def execute(src: Source, flags: Flags, options, color_err: bool, send, expire=None, watch=None) -> dict:
    """`run`'s part of a run (in its child, or in this process without isolation): the executor
    (cli/executor.py) with what `run`'s flags ask of it; ``send(kind, ...)`` streams what it prints
    and warns, the walkthrough's text and the --summary table; returns its outcome as plain data
    (Executed.data) for _finish. ``expire(session)``: reports a hard timeout when run in this
    process; ``watch(session)``: starts the child's location reports, returns their stop()."""
    if expire is not None:
        def watch(session):
            deadline = hard_deadline(options.timeout, lambda: expire(session))
            deadline.__enter__()
            return lambda: deadline.__exit__(None, None, None)

    def write(text, line=None):
        send("out", text, line)

    def warn(item):
        send("warn", item)

    summary = None
    if flags.summary and not flags.json:
        def summary(variables):
            return _summary_text(variables, flags.color_out(), src.name, flags.several)
    outcome = executor.execute(
        src.text, options, name=src.name, predefine=src.predefine, write=write, warn=warn, watch=watch,
        on_pass=_pass_printer(color_err, src.name, send) if (flags.explain or flags.check) and not flags.json else None,
        hold_limit=MAX_JSON_OUTPUT if flags.json else None, passes=True, tensors=flags.json, summary=summary,
        debug=flags.debug and expire is not None)
    if outcome.kind == "interrupted":
        raise KeyboardInterrupt
    return outcome.data()


def _finish(outcome: Outcome, data: dict, src: Source, flags: Flags, color_err: bool) -> Outcome:
    """The outcome from execute's plain data: the error rendered on stderr (unless --json)."""
    from gradcli.render.diagnostics import print_error  # noqa: PLC0415

    kind = data["kind"]
    if kind == "cuda":
        raise UsageProblem(data["message"])
    outcome.tensors = data.get("tensors")
    outcome.explain, outcome.checks = data.get("explain"), data.get("checks")
    if data.get("summary"):
        sys.stdout.write(data["summary"])
        sys.stdout.flush()
    if kind == "internal":
        outcome.exit_code = EXIT_INTERNAL
        outcome.error = dict(data["error"])
        outcome.error["message"] = f"{data['internal_text']} {INTERNAL_HINT}"
        if not flags.json or flags.debug:
            if flags.debug and data.get("traceback"):
                sys.stdout.flush()
                sys.stderr.write(data["traceback"].rstrip("\n") + "\n")
            say(f"internal error: {data['internal_text']} {INTERNAL_HINT}")
    elif kind == "script":
        outcome.exit_code = EXIT_SCRIPT
        outcome.error = _memory_error(data["error"], flags, data.get("script_raised", False))
        if not flags.json:
            sys.stdout.flush()
            e = outcome.error
            located = executor.Located.from_json(e)
            print_error(located, sys.stderr, color_err, source=src.text, filename=src.name)
    elif kind == "ok" and flags.check:
        _check_not_run(outcome, src, flags)
    return outcome


def _check_not_run(outcome, src, flags) -> None:
    """--check asked for a check that could not be made on a pass with gradients (every difference
    NaN or infinite, or no node replayable): that is no agreement, so the run fails (exit 1)."""
    missed = [c for c in outcome.checks or () if not c.get("checked", True)]
    if not missed:
        return
    first = missed[0]
    where = f" (line {first['line']})" if first.get("line") else ""
    why = first.get("skipped_because") or (first["unchecked"][0]["why"] if first.get("unchecked") else "")
    message = (f"--check could not check {len(missed)} of {len(outcome.checks)} backward pass"
               f"{'es' if len(outcome.checks) != 1 else ''}: pass {first['pass']}{where}: {why}")
    outcome.exit_code = EXIT_SCRIPT
    outcome.error = simple_error("CheckNotRun", message, src.name,
                                 hint="a NaN gradient or a point outside the function's domain cannot be "
                                      "compared with finite differences; check at another point")
    if not flags.json:
        say(message)


def _memory_error(error: dict, flags: Flags, raised: bool = False) -> dict:
    """Python's MemoryError of an allocation that the run's memory cap refused says so (not one the
    script raised itself: ``raised``)."""
    text = cap_memory_error(error.get("type"), error.get("message"), flags.max_memory_bytes() if flags.isolate else None,
                            raised)
    return error if text is None else {**error, "message": text[0], "hint": text[1]}


def _hard_timeout(src, flags, session, outcome, previous, color_err) -> None:
    """The script is still inside one long operation past --timeout: report the TimeoutError at
    the statement that runs (the process ends right after, see common.hard_deadline)."""
    from gradcli.lang.runner import hint_text  # noqa: PLC0415
    from gradcli.lang.runtime import timeout_text  # noqa: PLC0415
    from gradcli.render.jsonout import error_json  # noqa: PLC0415

    node = session.rt.loc[0]
    span = {k: getattr(node, k, None) for k in ("line", "column", "end_line", "end_column")}
    err = executor.Located("TimeoutError", timeout_text(session.rt.timeout),
                   filename=src.name, hint=hint_text("timeout"), **span)
    outcome.exit_code, outcome.error, outcome.variables = EXIT_SCRIPT, error_json(err, src.name), {}
    if flags.json:
        runs = [*previous, outcome]
        _emit_json(runs, max(o.exit_code for o in runs))
    else:
        sys.stdout.flush()
        from gradcli.render.diagnostics import print_error  # noqa: PLC0415

        print_error(err, sys.stderr, color_err, source=src.text, filename=src.name)


def _pass_printer(color: bool, name: str, send):
    """session.on_pass for the terminal: the walkthrough table and the check line of every backward
    pass, sent for stderr (stdout stays exactly what PyTorch prints), after the output printed so far."""
    def on_pass(kind, record):
        import io  # noqa: PLC0415

        buf = io.StringIO()
        if kind == "explain":
            from gradcli.graph.explain import render  # noqa: PLC0415

            render(record, buf, color)
        else:
            text = record.line_text()
            buf.write((f"\x1b[32m{text}\x1b[0m" if color else text) + "\n")
        send("stderr", buf.getvalue())
    return on_pass


def report_internal(err, debug: bool) -> None:
    """One line on stderr for gradcli's own failure reported by the runner (its InternalError); --debug
    adds the traceback."""
    if debug:
        tb = err.traceback_text
        sys.stdout.flush()
        if tb:
            sys.stderr.write(tb if tb.endswith("\n") else tb + "\n")
    say(f"internal error: {executor.internal_error_text(err)} {INTERNAL_HINT}")


def _doc(outcome: Outcome):
    from gradcli.render.jsonout import run_doc  # noqa: PLC0415
    from gradcli.render.tensors import tensors_json  # noqa: PLC0415

    return run_doc(
        command="run", filename=outcome.name, exit_code=outcome.exit_code,
        outputs=[{"text": t, "line": ln} for t, ln in outcome.outputs],
        tensors=outcome.tensors if outcome.tensors is not None else tensors_json(outcome.variables),
        error=outcome.error,
        warnings=[{**w, "file": outcome.name} for w in outcome.warnings],
        extra={k: v for k, v in (("explain", outcome.explain), ("checks", outcome.checks)) if v is not None},
    )


def _summary_text(variables, color: bool, name: str, several: bool) -> str:
    import io  # noqa: PLC0415

    from gradcli.render.summary import print_renderable, summary_table  # noqa: PLC0415

    table = summary_table(variables, color, title=f"tensors of {name}" if several else "tensors")
    if table is None:
        return ""
    buf = io.StringIO()
    print_renderable(table, buf, color)
    return buf.getvalue()


def run_command(files, expr, flags: Flags) -> int:
    """The whole `run` command: returns the exit code (the worst of the inputs)."""
    outcomes: list[Outcome] = []
    current = [None, None]  # the input running now and its outcome so far (for an interrupt under --json)

    def usage(message: str) -> int:
        if flags.json:
            sys.stdout.write(dumps(run_doc(command="run", filename=None, exit_code=EXIT_USAGE,
                                           error=simple_error("UsageError", message, hint=usage_hint("run"))))
                             + "\n")
        say_usage(message, "run", flags.color_err())
        return EXIT_USAGE

    try:
        if not files and expr is None:
            if sys.stdin is not None and not sys.stdin.isatty():
                files = ["-"]
            else:
                return usage("nothing to run: give FILE.grad, '-' for stdin, or -e CODE")
        check_device(flags.device)
        sources = read_sources(files, expr)
        flags.several = len(sources) > 1
        from . import isolate  # noqa: PLC0415

        # each input in a child process (the process wall); CUDA contexts do not survive a fork
        flags.isolate = isolate.available() and flags.device != "cuda" and not env_flag("GRADCLI_IN_PROCESS")
        flags.no_seccomp = flags.no_seccomp or env_flag("GRADCLI_NO_SECCOMP")
        if not flags.isolate or flags.several:
            load_language()  # in this process: for its run, or once before the forks (shared by the children)
        options = flags.run_options()
        color_out, color_err = flags.color_out(), flags.color_err()
        gcpolicy.resume()  # paused while gradcli started (entry.py); on before any script runs
        for src in sources:
            current[0], current[1] = src.name, None
            outcome = run_one(src, flags, options, color_out, color_err, previous=outcomes, started=current)
            outcomes.append(outcome)
    except UsageProblem as exc:
        return usage(str(exc))
    except (KeyboardInterrupt, Exception) as exc:
        if not isinstance(exc, KeyboardInterrupt) and not interrupt_received():
            raise
        # Ctrl-C or SIGTERM (also when an import it interrupted turned it into an ImportError): the
        # outputs printed so far are in the document (the partial input's too)
        sys.stdout.flush()
        type_name, message, code = interruption()
        if flags.json:
            partial = current[1] if current[1] is not None else Outcome(current[0], code)
            partial.exit_code, partial.error = code, simple_error(type_name, message, current[0])
            outcomes.append(partial)
            _emit_json(outcomes, code)
        say(message, flags.color_err())
        return code
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
