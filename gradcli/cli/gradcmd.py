"""`gradcli grad EXPR NAME=VALUE ...`: the calculator's command-line face."""
from __future__ import annotations

import sys

from gradcli import gcpolicy

from .common import (EXIT_INTERNAL, EXIT_INTERRUPT, EXIT_OK, EXIT_SCRIPT, EXIT_USAGE, INTERNAL_HINT, Flags,
                     TIMEOUT_GRACE, UsageProblem, check_device, env_flag, internal_error, say, say_usage,
                     usage_hint)
from .values import EXPECTED_FORM, ValueSyntaxError, parse_assignment

EXPR_NAME = "<expr>"


def parse_arguments(args, wrt_text):
    """[(name, value)], [wrt names]; UsageProblem (with the expected form) on bad text."""
    assignments, names = [], set()
    for arg in args or ():
        if arg.startswith("--"):
            raise UsageProblem(f"no such option: {arg.split('=')[0]} (try 'gradcli grad --help')")
        try:
            name, value = parse_assignment(arg)
        except ValueSyntaxError as exc:
            raise UsageProblem(f"bad variable {arg!r}: {exc}\n  {EXPECTED_FORM}") from None
        if name in names:
            raise UsageProblem(f"variable {name!r} is given twice")
        if _is_empty(value):
            raise UsageProblem(f"{arg} is empty: an empty value has no gradient; give at least one number, "
                               f"e.g. {name}=[1,2,3]")
        names.add(name)
        assignments.append((name, value))
    wrt = None
    if wrt_text:
        wrt = [w.strip() for w in wrt_text.split(",") if w.strip()]
        unknown = [w for w in wrt if w not in names]
        if unknown:
            known = ", ".join(n for n, _ in assignments) or "none"
            raise UsageProblem(f"--wrt names {', '.join(unknown)}, which is not a variable "
                               f"(variables: {known}); give it as NAME=VALUE")
        if len(set(wrt)) != len(wrt):
            raise UsageProblem("--wrt names a variable twice")
    return assignments, wrt


def _is_empty(value) -> bool:
    """A nested list without a single number ([] or [[], []])."""
    return isinstance(value, list) and all(_is_empty(v) for v in value)


def _calc_json(calc):
    from gradcli.render.tensors import tensor_json  # noqa: PLC0415

    return {
        "expr": calc.expr,
        "variables": list(calc.names),
        "wrt": list(calc.wrt),
        "order": calc.order,
        "kind": "gradient" if calc.scalar else "jacobian",
        "value": tensor_json(calc.value),
        "gradients": {n: tensor_json(g) for n, g in calc.gradients.items()},
        "hessian": None if calc.hessian is None else
        {a: {b: tensor_json(h) for b, h in row.items()} for a, row in calc.hessian.items()},
        "independent_of": list(calc.independent),
        "notes": calc.notes(),
    }


def _variables_json(calc):
    """The variables as tensors; a scalar EXPR's gradient is their grad (as after EXPR.backward())."""
    from gradcli.render.tensors import array_json, tensor_json, host  # noqa: PLC0415

    out = {}
    for name in calc.names:
        d = tensor_json(calc.variables[name])
        g = calc.gradients.get(name)
        if calc.scalar and g is not None:
            d["grad"] = array_json(host(g))
        out[name] = d
    return out


def _print_result(calc, color: bool) -> None:
    from gradcli.render.diagnostics import visible  # noqa: PLC0415
    from gradcli.render.summary import calculator_tables, print_renderable  # noqa: PLC0415

    value = repr(calc.value.detach())
    head = f"{visible(calc.expr)} ="
    if "\n" in value:
        sys.stdout.write(f"{head}\n{value}\n")
    else:
        sys.stdout.write(f"{head} {value}\n")
    sys.stdout.flush()
    for part in calculator_tables(calc, color):
        if isinstance(part, str):
            sys.stdout.write(part + "\n")
        else:
            print_renderable(part, sys.stdout, color)
    for note in calc.notes():
        say(f"note: {visible(note)}", color and sys.stderr.isatty())


def _emit(flags: Flags, code, error=None, calc=None):
    """--json: the one document (the child's, when the calculation ran in one)."""
    if flags.json:
        from gradcli.render.jsonout import dumps, run_doc  # noqa: PLC0415

        extra = {"calculator": _calc_json(calc) if calc is not None else None}
        doc = run_doc(command="grad", filename=EXPR_NAME, exit_code=code, error=error,
                      tensors=_variables_json(calc) if calc is not None else {}, extra=extra)
        sys.stdout.write(dumps(doc) + "\n")
        sys.stdout.flush()
    return code


def grad_command(expr: str, args, wrt_text, order: int, flags: Flags) -> int:
    """The command: its arguments checked here, the calculation (and its printing) in a child
    process where forking is available (the process wall: --timeout and --max-memory hold inside
    C calls), else in this process (GRADCLI_IN_PROCESS=1, --device cuda)."""
    from gradcli.render.jsonout import simple_error  # noqa: PLC0415

    try:
        if order not in (1, 2):
            raise UsageProblem(f"--order must be 1 (gradient/Jacobian) or 2 (Hessian), not {order}")
        if expr.startswith("--"):
            raise UsageProblem(f"no such option: {expr.split('=')[0]} (try 'gradcli grad --help')")
        assignments, wrt = parse_arguments(args, wrt_text)
        check_device(flags.device)
        from . import isolate  # noqa: PLC0415

        if not (isolate.available() and flags.device != "cuda" and not env_flag("GRADCLI_IN_PROCESS")):
            _load_calculator()
            gcpolicy.resume()  # paused while gradcli started (entry.py)
            return _calculate(expr, assignments, wrt, order, flags)
        gcpolicy.resume()  # paused while gradcli started (entry.py); on in the child that calculates

        def body(channel):
            flags.isolate = True
            sys.stdout = isolate.ChannelStream(channel, "out", sys.stdout)
            sys.stderr = isolate.ChannelStream(channel, "stderr", sys.stderr)
            channel.send("done", _guarded(expr, assignments, wrt, order, flags))

        def on_message(message):
            stream = sys.stdout if message[0] == "out" else sys.stderr
            if message[0] == "stderr":
                sys.stdout.flush()
            if message[0] in ("out", "stderr"):
                stream.write(message[1])
                stream.flush()

        options = flags.run_options()
        try:
            return isolate.run(body, on_message, timeout=options.timeout, grace=TIMEOUT_GRACE,
                               max_memory=flags.max_memory_bytes(),
                               seccomp=not (flags.no_seccomp or env_flag("GRADCLI_NO_SECCOMP")),
                               setup=_load_calculator)[1]
        except isolate.Ended as ended:
            if ended.reason == "timeout":
                from gradcli.lang.runner import hint_text  # noqa: PLC0415
                from gradcli.lang.runtime import timeout_text  # noqa: PLC0415

                message = timeout_text(options.timeout)
                if not flags.json:
                    say(f"TimeoutError: {message}", flags.color_err())
                return _emit(flags, EXIT_SCRIPT, simple_error("TimeoutError", message, EXPR_NAME,
                                                              hint_text("timeout")))
            message = f"the calculation's process ended unexpectedly ({ended.reason})"
            if not flags.json:
                say(f"internal error: {message} {INTERNAL_HINT}", flags.color_err())
            return _emit(flags, EXIT_INTERNAL, simple_error("InternalError", f"{message} {INTERNAL_HINT}",
                                                            EXPR_NAME))
    except UsageProblem as exc:
        return _usage(exc, flags)
    except KeyboardInterrupt:
        return _interrupted(flags)


def _load_calculator() -> None:
    """The calculation's imports, made before its child is walled in (forked first, as `run`'s) or in
    this process before the collector resumes (lang/options.py, load_language)."""
    from gradcli.lang.options import load_language  # noqa: PLC0415

    with gcpolicy.paused():
        from . import calc  # noqa: PLC0415,F401
    load_language()


def _usage(exc, flags: Flags) -> int:
    from gradcli.render.jsonout import simple_error  # noqa: PLC0415

    say_usage(str(exc), "grad", flags.color_err())
    return _emit(flags, EXIT_USAGE, simple_error("UsageError", str(exc), hint=usage_hint("grad")))


def _interrupted(flags: Flags) -> int:
    from gradcli.render.jsonout import simple_error  # noqa: PLC0415

    say("interrupted", flags.color_err())
    return _emit(flags, EXIT_INTERRUPT, simple_error("KeyboardInterrupt", "interrupted", EXPR_NAME))


def _guarded(expr, assignments, wrt, order, flags: Flags) -> int:
    """_calculate with the command's usage and interrupt endings (the child's whole part)."""
    try:
        return _calculate(expr, assignments, wrt, order, flags)
    except UsageProblem as exc:
        return _usage(exc, flags)
    except KeyboardInterrupt:
        return _interrupted(flags)


def _calculate(expr, assignments, wrt, order, flags: Flags) -> int:
    """Calculate and print (or write the JSON document); the exit code."""
    from gradcli.render.jsonout import error_json, simple_error  # noqa: PLC0415

    from .calc import CalcError, calculate, is_user_error  # noqa: PLC0415

    options = flags.run_options()
    try:
        calc = calculate(expr, assignments, wrt, order, options)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - never a traceback for the user
        if type(exc).__name__ == "CudaUnavailable":
            raise UsageProblem(str(exc)) from None
        if getattr(exc, "type_name", None) == "InternalError":
            from .executor import internal_error_text  # noqa: PLC0415
            from .runcmd import report_internal  # noqa: PLC0415

            if not flags.json or flags.debug:
                report_internal(exc, flags.debug)
            return _emit(flags, EXIT_INTERNAL, simple_error("InternalError", f"{internal_error_text(exc)} {INTERNAL_HINT}",
                                                            EXPR_NAME))
        if isinstance(exc, CalcError) or is_user_error(exc):
            err = exc if hasattr(exc, "type_name") else CalcError(
                type(exc).__name__, str(exc), hint=_hint_text(getattr(exc, "gradcli_hint", None)))
            from .common import cap_memory_error  # noqa: PLC0415

            text = cap_memory_error(err.type_name, str(err.message), flags.max_memory_bytes() if flags.isolate else None,
                                    getattr(err, "raised_by_script", False))
            if text is not None:
                err = CalcError("MemoryError", *text)
            if not flags.json:
                from gradcli.render.diagnostics import print_error  # noqa: PLC0415

                print_error(err, sys.stderr, flags.color_err(), source=expr, filename=EXPR_NAME)
            return _emit(flags, EXIT_SCRIPT, error_json(err, EXPR_NAME))
        if flags.debug:
            raise
        if not flags.json:
            internal_error(exc, False)
        return _emit(flags, EXIT_INTERNAL, simple_error("InternalError", f"{type(exc).__name__}: {exc} {INTERNAL_HINT}",
                                                        EXPR_NAME))
    if flags.json:
        from gradcli.render.tensors import MAX_JSON_ELEMENTS  # noqa: PLC0415
        numbers = _json_numbers(calc)
        if numbers > MAX_JSON_ELEMENTS:  # a Python float each: a 9000-variable Jacobian outgrew --max-memory
            return _emit(flags, EXIT_SCRIPT, simple_error(
                "MemoryError", f"the result holds {numbers:,} numbers: more than the limit of {MAX_JSON_ELEMENTS:,} "
                "that --json writes", EXPR_NAME, "ask for fewer variables (--wrt) or smaller ones"))
        return _emit(flags, EXIT_OK, calc=calc)
    _print_result(calc, flags.color_out())
    return EXIT_OK


def _json_numbers(calc) -> int:
    """The numbers _calc_json and _variables_json write (values, gradients or Jacobians, Hessian blocks)."""
    tensors = [calc.value, *calc.gradients.values(), *(calc.variables[n] for n in calc.names)]
    if calc.scalar:
        tensors.extend(calc.gradients.values())
    if calc.hessian is not None:
        tensors.extend(h for row in calc.hessian.values() for h in row.values())
    return sum(t.numel() for t in tensors)


def _hint_text(key):
    """The engine names a well-known mistake by a key; the language's table turns it into words."""
    from gradcli.lang.runner import hint_text  # noqa: PLC0415

    return hint_text(key)
