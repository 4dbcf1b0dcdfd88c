"""The start of every `gradcli` process (the console script and `python -m gradcli`): :func:`main`.

Start-up time is part of the product. Importing Typer (and its Click) and building the command
costs more than the rest of a small run, so the commonest command line, `gradcli run FILE ...`
with options spelt the plain way (`--json`, `--seed 3`, `-e CODE`, ...), is read here by hand and
run directly; so is `gradcli grad EXPR NAME=VALUE ...` without any option. Every other command
line (--help, another command, an unknown or abbreviated option,
a value that Typer would have to check or reject) goes to the Typer app in app.py, unchanged: the
two paths give the same Flags to the same run_command, so output, exit codes and errors are the
same. This module imports nothing heavy (no Typer, engine, Lark or Rich).
"""
from __future__ import annotations

import sys

from gradcli import gcpolicy


def _interrupted_early(signum, frame):  # noqa: ARG001 - a signal handler
    """Ctrl-C while gradcli starts, before a command runs: say what an interrupted command says
    (under --json, its document), without a traceback from the middle of an import; exit 130.
    It imports nothing (the interrupted import may be half done) and writes with os.write."""
    import os  # noqa: PLC0415 - already loaded by the interpreter itself

    try:
        args = sys.argv[1:]
        if "--json" in args and args[:1] in (["run"], ["grad"]):
            os.write(1, INTERRUPTED_DOC.replace("@COMMAND@", args[0]).encode())
        os.write(2, b"gradcli: interrupted\n")
    finally:
        os._exit(130)


# what `run --json` / `grad --json` print when interrupted: render.jsonout's run_doc in its dumps form,
# written out here because the handler may import nothing (tests/test_entry.py checks it is that document)
INTERRUPTED_DOC = """{
  "schema": "gradcli/1",
  "command": "@COMMAND@",
  "file": null,
  "ok": false,
  "exit_code": 130,
  "outputs": [],
  "tensors": {},
  "error": {
    "type": "KeyboardInterrupt",
    "message": "interrupted",
    "file": null,
    "line": null,
    "column": null,
    "end_line": null,
    "end_column": null,
    "hint": null
  },
  "warnings": []
}
"""

# The collector is paused while a command starts (main; gradcli/gcpolicy.py says why): gcpolicy.resume()
# turns it back on before any script or calculation runs; the Typer path (other commands, the REPL)
# resumes first, and main() on its way out in any case. Importing this module changes nothing.


try:  # first thing, before the imports that take most of the start-up time (_signal: no enum import)
    import _signal

    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, _interrupted_early)
except (ImportError, AttributeError, ValueError, OSError):  # another Python, or not the main thread
    pass


_INTERRUPTS = []  # the Ctrl-Cs received once a command runs (see _interrupt)


def _interrupt(signum, frame):  # noqa: ARG001 - a signal handler
    """Ctrl-C once a command runs: a KeyboardInterrupt, as Python's own handler raises. Remembered:
    an extension interrupted while it is being imported (NumPy's) may turn it into an ImportError,
    which the command then reports as the interrupt (interrupt_received)."""
    _INTERRUPTS.append(signum)
    raise KeyboardInterrupt


def interrupt_received() -> bool:
    return bool(_INTERRUPTS)


SIGTERM_NUMBER = 15


def interruption():
    """(error type, message, exit status) of how the command was interrupted: Ctrl-C, or SIGTERM."""
    if _INTERRUPTS and _INTERRUPTS[-1] == SIGTERM_NUMBER:
        return "Terminated", "terminated", 128 + SIGTERM_NUMBER
    return "KeyboardInterrupt", "interrupted", 130


# (_signal, not signal: the module's enum classes cost start-up time and nothing here needs them)

def commands_own_interrupts() -> None:
    """From here on Ctrl-C is a KeyboardInterrupt, which every command reports itself."""
    import _signal  # noqa: PLC0415

    try:
        _signal.signal(_signal.SIGINT, _interrupt)
        _signal.signal(_signal.SIGTERM, _interrupt)  # SIGTERM too: the report, then exit 143
    except (ValueError, OSError):  # not the main thread (main() called from a thread)
        pass


def default_sigpipe() -> None:
    """Like any Unix filter, stop quietly when the reader goes away (gradcli run x.grad | head):
    Python's default turns that into a BrokenPipeError that the script would see."""
    import _signal  # noqa: PLC0415

    if hasattr(_signal, "SIGPIPE"):
        try:
            _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
        except (ValueError, OSError):  # not the main thread
            pass


def silence_stdout() -> None:
    """After a closed pipe (gradcli ... | head), stop Python from complaining at exit."""
    import os  # noqa: PLC0415

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def guarded(body, debug: bool) -> None:
    """Run body(); no traceback of gradcli's ever reaches the user (the last line of defence)."""
    from .common import EXIT_INTERNAL, EXIT_INTERRUPT, internal_error, say  # noqa: PLC0415

    try:
        body()
        gcpolicy.resume()
    except SystemExit:
        gcpolicy.resume()
        raise
    except KeyboardInterrupt:
        _, message, code = interruption()
        say(message)
        sys.exit(code if code != 130 else EXIT_INTERRUPT)
    except BrokenPipeError:
        silence_stdout()
        sys.exit(1)
    except BaseException as exc:  # noqa: BLE001 - the last line of defence
        internal_error(exc, debug)
        sys.exit(EXIT_INTERNAL)


# `gradcli run` options read here (declared in options.py, which the Typer app reads too): the flags,
# and the options with a value (how to read the value; a reader returns None for a value Typer must
# judge, which sends the command line to Typer)
def _plain_reader(opt):
    if opt.reader == "text":
        return str
    if opt.reader == "choice":
        return lambda text: text if text in opt.choices else None

    def read(text):
        from .common import PARSERS  # noqa: PLC0415 - Typer's parser for the option

        try:
            return PARSERS[opt.reader](text)
        except ValueError:
            return None
    return read


def _run_tables():
    from .options import RUN_ALL  # noqa: PLC0415 - imports nothing

    flags = {name: opt.field for opt in RUN_ALL if opt.reader is None for name in opt.names}
    values = {name: (opt.field, _plain_reader(opt)) for opt in RUN_ALL if opt.reader is not None
              for name in opt.names}
    return flags, values


_RUN_FLAGS, _RUN_VALUES = _run_tables()


def plain_run(args):
    """(files, expr, Flags options) when args are `run` with plain options only, else None."""
    if not args or args[0] != "run":
        return None
    files, options = [], {}
    rest = iter(args[1:])
    for arg in rest:
        if arg == "-" or not arg.startswith("-"):
            files.append(arg)
        elif arg in _RUN_FLAGS:
            options[_RUN_FLAGS[arg]] = True
        else:
            name, eq, text = arg.partition("=")
            if name not in _RUN_VALUES or (eq and not name.startswith("--")):
                return None  # an unknown option, --, -h, -eCODE, -e=CODE: Typer decides
            if not eq:
                text = next(rest, None)
                if text is None:
                    return None
            key, read = _RUN_VALUES[name]
            value = read(text)
            if value is None:
                return None
            if key == "expr":  # -e A -e B: the pieces in order, as one script
                options.setdefault("expr", []).append(value)
            else:
                options[key] = value
    expr = options.pop("expr", None)
    return files or None, expr, options


def plain_grad(args):
    """(EXPR, [NAME=VALUE, ...]) when args are `grad EXPR NAME=VALUE ...` with no option at all (no
    argument starts with '-'), else None: Typer would give grad_command the same values."""
    if len(args) < 3 or args[0] != "grad" or any(arg.startswith("-") for arg in args[1:]):
        return None
    return args[1], args[2:]


def plain_repl(args) -> bool:
    """`gradcli repl` without options, or `gradcli` alone with stdin a terminal: the REPL, as the Typer
    app's repl command and root start it (Flags() are those commands' defaults)."""
    if args == ["repl"]:
        return True
    try:
        return not args and sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


# OpenBLAS (NumPy's BLAS) starts its worker threads as NumPy is imported, and an idle worker spins
# for 2**28 clock cycles (~0.1 s) before it sleeps: in a command that lives a tenth of a second that
# is a core burnt for nothing, ~20 ms of CPU a run here (as much as all of gradcli's own imports). A
# spin of 2**22 cycles (~1.6 ms at 2.6 GHz) keeps back-to-back BLAS calls as fast (a worker sleeps only
# after that long without work) and changes no result. A value set in the environment stays; like
# KMP_BLOCKTIME for the MKL backend's OpenMP threads (engine/mkl_backend.py).
BLAS_THREAD_TIMEOUT = "22"


def quiet_blas_threads() -> None:
    """Shorten OpenBLAS's idle spin for this process (before NumPy is imported, or it has no effect)."""
    import os  # noqa: PLC0415 - already loaded by the interpreter itself

    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", BLAS_THREAD_TIMEOUT)


def main(argv=None) -> None:
    """Console-script entry point."""
    quiet_blas_threads()
    args = list(sys.argv[1:] if argv is None else argv)
    calc = plain_grad(args)
    plain = plain_run(args)
    if plain is None and not args and sys.stdin is not None and not sys.stdin.isatty():
        plain = (["-"], None, {})  # `cat a.grad | gradcli`: the script on stdin, as the Typer app's root runs it
    gcpolicy.pause()
    try:
        if calc is not None:
            default_sigpipe()
            guarded(lambda: _grad(*calc), False)
            return
        if plain is None and plain_repl(args):
            default_sigpipe()
            gcpolicy.resume()  # the REPL runs the session's statements from here on
            guarded(_repl, False)
            return
        if plain is None:
            gcpolicy.resume()  # (the REPL and the other commands run scripts from inside the Typer app)
            guarded(lambda: _typer_main(args), "--debug" in args)
            return
        default_sigpipe()
        guarded(lambda: _run(*plain), plain[2].get("debug", False))
    except SystemExit as exc:
        if exc.code in (130, 128 + SIGTERM_NUMBER):
            _exit_interrupted(exc.code)
        if argv is None and (calc is not None or plain is not None):
            _exit_at_once(exc.code)
        raise
    finally:
        gcpolicy.resume()


def _exit_at_once(code) -> None:
    """End the process of a plain `run` or `grad` (the console script, `python -m gradcli`) once its
    output is flushed, without the interpreter's finalisation: tearing down NumPy's, the engine's and
    the language's modules and objects cost ~7 ms of every start (nothing of gradcli's waits for
    it: no atexit handler, no thread, no file left open). Returns (the normal exit follows) for a
    code that is not a number or a stream that cannot be flushed."""
    import os  # noqa: PLC0415

    code = 0 if code is None else code
    if type(code) is not int:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        return
    os._exit(code)


def _exit_interrupted(code=130) -> None:
    """End an interrupted command (its report written) with status 130 now. A Ctrl-C that came while
    an extension module ran Python code of its own (during NumPy's import) can leave CPython's
    'unhandled KeyboardInterrupt' mark set although the command handled it, and the interpreter
    would then end the process by SIGINT instead."""
    import os  # noqa: PLC0415

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


def _typer_main(args) -> None:
    from .app import main as typer_main  # noqa: PLC0415

    typer_main(args)


def _grad(expr, variables) -> None:
    from .common import Flags  # noqa: PLC0415
    from .gradcmd import grad_command  # noqa: PLC0415

    flags = Flags()
    commands_own_interrupts()
    sys.exit(grad_command(expr, variables, None, 1, flags))


def _repl() -> None:
    from .common import Flags  # noqa: PLC0415
    from .replcmd import repl_command  # noqa: PLC0415

    commands_own_interrupts()
    sys.exit(repl_command(Flags()))


def _run(files, expr, options) -> None:
    from .common import Flags  # noqa: PLC0415
    from .runcmd import run_command  # noqa: PLC0415

    flags = Flags(**options)
    commands_own_interrupts()
    sys.exit(run_command(files, expr, flags))
