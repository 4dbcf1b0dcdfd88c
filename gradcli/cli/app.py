"""The `gradcli` command (Typer): :func:`main`, for every command line that entry.main (the
console script's entry point) does not run itself.

Start-up time is part of the product, so this module imports Typer and nothing else heavy:
the engine, Lark and Rich are loaded inside the commands, only when they are needed.

Exit codes: 0 success; 1 the script raised (syntax, runtime, failed assert); 2 usage error
(bad option, missing file, bad NAME=VALUE, cuda without CuPy or a GPU); 3 internal error;
130 interrupted (Ctrl-C).
"""
from __future__ import annotations

import sys

# first thing: importing entry installs the Ctrl-C handler for the start-up (see entry.py)
from .entry import commands_own_interrupts as _commands_own_interrupts
from .entry import default_sigpipe as _default_sigpipe
from .entry import guarded as _guarded

from enum import Enum  # noqa: E402, I001
from typing import Annotated, List, Optional  # noqa: E402

import typer  # noqa: E402

from gradcli import __version__  # noqa: E402

from . import options  # noqa: E402
from .common import EXIT_USAGE, PARSERS, Flags, say, say_usage, usage_hint  # noqa: E402
from .replcmd import repl_command  # noqa: E402

# --help is gradcli's own text (helptext.render, shown by main before Typer runs, laid out from
# these commands' docstrings and options' help)
app = typer.Typer(
    name="gradcli",
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
    no_args_is_help=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class Device(str, Enum):
    cpu = "cpu"
    cuda = "cuda"


class DType(str, Enum):
    float32 = "float32"
    float64 = "float64"


def _version(value: bool) -> None:
    if value:
        from gradcli.backend import describe  # noqa: PLC0415 - light: no NumPy, no library
        from gradcli.cli.isolate import seccomp_status  # noqa: PLC0415
        from gradcli.native import describe as native  # noqa: PLC0415 - light: finds, loads nothing

        sys.stdout.write(f"gradcli {__version__}\n{describe()}\n{seccomp_status()}\n{native()}\n")
        raise typer.Exit(0)


def _typer_parser(reader: str):
    """common.parse_<reader> for Typer: its ValueError is Typer's BadParameter (a usage error)."""
    parse = PARSERS[reader]

    def parser(text):
        try:
            return parse(text)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
    parser.__name__ = f"_{reader}"
    return parser


_CHOICES = {"device": Device, "dtype": DType}
_TYPES = {"count": int, "seed": Optional[int], "timeout": Optional[float], "size": Optional[int]}


def typer_option(opt: options.Opt):
    """The Typer parameter type of a declared option (options.py), and its default."""
    kw = {"help": opt.help}
    if opt.metavar is not None:
        kw["metavar"] = opt.metavar
    if not opt.show_default:
        kw["show_default"] = False
    if opt.reader is None:
        annotation, default = bool, opt.default
    elif opt.reader == "choice":
        annotation, default = _CHOICES[opt.field], _CHOICES[opt.field](opt.default)
        kw["case_sensitive"] = False
    elif opt.reader == "text":
        annotation, default = (Optional[List[str]] if opt.repeat else Optional[str]), opt.default
    else:
        annotation, default = _TYPES[opt.reader], opt.default
        kw["parser"] = _typer_parser(opt.reader)
    return Annotated[annotation, typer.Option(*opt.names, **kw)], default


# --------------------------------------------------------------------------- common options
# every command's shared options (options.SHARED): the name (a Flags field) -> (option, default)
SHARED_OPTIONS = {opt.field: typer_option(opt) for opt in options.SHARED}
MaxMemoryOpt = typer_option(options.MAX_MEMORY)[0]
_RUN = {opt.field: typer_option(opt)[0] for opt in options.RUN}  # run's own (its signature names them)
ExprOpt, SummaryOpt, ExplainOpt = _RUN["expr"], _RUN["summary"], _RUN["explain"]
CheckOpt, DetectAnomalyOpt = _RUN["check"], _RUN["detect_anomaly"]


def shared_options(without=(), **defaults):
    """Decorator for a command: its signature (what Typer reads) gets the SHARED_OPTIONS after its
    own parameters, less ``without``, with ``defaults`` where the command's default differs; the
    command itself receives them as one ``flags: Flags`` keyword argument (its other Flags fields
    are the command's to set)."""
    import functools  # noqa: PLC0415
    import inspect  # noqa: PLC0415

    names = [name for name in SHARED_OPTIONS if name not in without]

    def decorate(command):
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "flags"]
        shared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=SHARED_OPTIONS[name][0],
                                    default=defaults.get(name, SHARED_OPTIONS[name][1])) for name in names]

        @functools.wraps(command)
        def with_flags(*args, **kwargs):
            values = {name: kwargs.pop(name) for name in names}
            for name in ("device", "dtype"):
                if isinstance(values.get(name), Enum):
                    values[name] = values[name].value
            return command(*args, **kwargs, flags=Flags(**values))

        parameters = own + shared
        with_flags.__signature__ = inspect.Signature(parameters)
        with_flags.__annotations__ = {p.name: p.annotation for p in parameters}
        return with_flags
    return decorate


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", "-V", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
) -> None:
    """gradcli: a gradient calculator and GradScript, a PyTorch-flavoured language for autograd.

    It prints exactly what Python with PyTorch 2.13 would print, without PyTorch.
    With no command: the REPL when stdin is a terminal, otherwise the script on stdin is run.
    """
    if ctx.invoked_subcommand is not None:
        return
    stdin = sys.stdin
    if stdin is not None and stdin.isatty():
        _commands_own_interrupts()
        raise typer.Exit(repl_command(Flags()))
    from .runcmd import run_command  # noqa: PLC0415

    _commands_own_interrupts()
    raise typer.Exit(run_command(["-"], None, Flags()))


@app.command()
@shared_options()
def run(
    files: Annotated[Optional[List[str]], typer.Argument(metavar="FILE.grad ...", show_default=False,
                                                         help="Scripts to run, one after another, each in a "
                                                              "fresh scope; '-' reads stdin.")] = None,
    expr: ExprOpt = None,
    summary: SummaryOpt = False,
    explain: ExplainOpt = False,
    check: CheckOpt = False,
    detect_anomaly: DetectAnomalyOpt = False,
    max_memory: MaxMemoryOpt = None,
    flags: Flags = None,
) -> None:
    """Run GradScript files (.grad), stdin or -e CODE, printing what Python with PyTorch prints.

    Errors go to stderr with the line, a caret and a hint; the exit code is the worst of the files.
    """
    from .runcmd import run_command  # noqa: PLC0415

    flags.summary, flags.explain, flags.check, flags.detect_anomaly = summary, explain, check, detect_anomaly
    flags.max_memory = max_memory
    _commands_own_interrupts()
    raise typer.Exit(run_command(files, expr, flags))


class GraphFormat(str, Enum):
    tree = "tree"
    dot = "dot"
    mermaid = "mermaid"
    svg = "svg"
    png = "png"
    json = "json"


@app.command()
@shared_options()
def graph(
    file: Annotated[str, typer.Argument(metavar="FILE.grad", show_default=False,
                                        help="The script to run ('-' reads stdin).")],
    var: Annotated[str, typer.Option("--var", "-v", metavar="NAME", show_default=False,
                                     help="The tensor whose backward graph to draw (a top-level name).")],
    fmt: Annotated[GraphFormat, typer.Option("--format", "-f", case_sensitive=False,
                                             help="tree (the terminal), dot (Graphviz text), mermaid, svg or png "
                                                  "(need Graphviz's dot program), json.")] = GraphFormat.tree,
    output: Annotated[Optional[str], typer.Option("-o", "--output", metavar="OUT", show_default=False,
                                                  help="Write the graph to this file instead of stdout.")] = None,
    saved: Annotated[bool, typer.Option("--saved", help="Show the tensors each node saved for its backward "
                                                        "(freed ones are marked).")] = False,
    show_output: Annotated[bool, typer.Option("--show-output", help="Also show what the script prints, and its "
                                                                    "warnings, on stderr (hidden by default, so "
                                                                    "that the output is the graph only).")] = False,
    flags: Flags = None,
) -> None:
    """Run a script, then draw the backward (grad_fn) graph of the tensor NAME as PyTorch built it.

    grad_fn nodes carry the line that created them; AccumulateGrad leaves carry the script's names.
    The output is the graph only: what the script prints is shown (on stderr) with --show-output.
    """
    from .graphcmd import graph_command  # noqa: PLC0415

    _commands_own_interrupts()
    raise typer.Exit(graph_command(file, var, "json" if flags.json else fmt.value, output, saved, flags,
                                   show_output))


@app.command(context_settings={"ignore_unknown_options": True})
@shared_options()
def grad(
    expr: Annotated[str, typer.Argument(metavar="EXPR", show_default=False,
                                        help="A GradScript expression, e.g. 'w*x + b' or 'torch.sin(x).sum()'.")],
    variables: Annotated[Optional[List[str]], typer.Argument(
        metavar="NAME=VALUE ...", show_default=False,
        help="Variables: a number (x=3, x=-1.5, x=1e-3) or a nested list (x=[1,2,3], x=[[1,2],[3,4]]); "
             "each becomes a leaf tensor with requires_grad.")] = None,
    wrt: Annotated[Optional[str], typer.Option("--wrt", metavar="NAME,...", show_default=False,
                                               help="Differentiate only with respect to these variables.")] = None,
    order: Annotated[int, typer.Option("--order", min=1, max=2,
                                       help="1: gradient (Jacobian for a non-scalar EXPR); 2: also the Hessian.")] = 1,
    max_memory: MaxMemoryOpt = None,
    flags: Flags = None,
) -> None:
    """The gradient calculator: the value of EXPR and its derivative with respect to every variable.

    A non-scalar EXPR gives its Jacobian; --order 2 gives the Hessian. An EXPR that starts with '-'
    works as it is (gradcli grad -x**2 x=3).
    """
    from .gradcmd import grad_command  # noqa: PLC0415

    flags.max_memory = max_memory
    _commands_own_interrupts()
    raise typer.Exit(grad_command(expr, variables, wrt, order, flags))


@app.command()
@shared_options(without=("json",))
def repl(
    explain: Annotated[bool, typer.Option("--explain", help="Start with the chain-rule walkthrough on "
                                                            "(:explain toggles it).")] = False,
    max_memory: MaxMemoryOpt = None,
    flags: Flags = None,
) -> None:
    """An interactive GradScript session (statements from stdin when it is not a terminal).

    The session runs in a sandboxed child process (--max-memory, --timeout per input); when that
    process dies, a fresh one takes over.
    """
    flags.explain = explain
    flags.max_memory = max_memory
    _commands_own_interrupts()
    raise typer.Exit(repl_command(flags))


class ReportFormat(str, Enum):
    text = "text"
    github = "github"


@app.command("test")
@shared_options(timeout=60.0)
def ci_test(
    paths: Annotated[Optional[List[str]], typer.Argument(metavar="PATH ...", show_default=False,
                                                         help="Scripts and folders (searched for *.grad); "
                                                              "default: the current folder.")] = None,
    jobs: Annotated[Optional[int], typer.Option("-j", "--jobs", metavar="N", min=1, show_default=False,
                                                help="Scripts run at once, each in its own process "
                                                     "(default: the number of cores).")] = None,
    update: Annotated[bool, typer.Option("--update", help="Write NAME.out (and NAME.err) from the current "
                                                          "output instead of failing.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="A script without NAME.out or NAME.err fails "
                                                          "(otherwise a warning).")] = False,
    junit: Annotated[Optional[str], typer.Option("--junit", metavar="FILE", show_default=False,
                                                 help="Also write a JUnit XML report to FILE.")] = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", case_sensitive=False,
                                              help="text, or github: also GitHub Actions annotations "
                                                   "(::error file=...,line=...::).")] = ReportFormat.text,
    max_memory: MaxMemoryOpt = None,
    flags: Flags = None,
) -> None:
    """Check scripts against their expected output: NAME.grad against NAME.out (stdout, byte for
    byte) and NAME.err (the error's 'Type: message' and line).

    One line per script, a diff per failure, a summary; exit 0 when all pass, 1 when any fails.
    Each script runs in its own sandboxed process after torch.manual_seed(0) (--seed N to change),
    with --timeout 60 by default and --max-memory.
    """
    from .testcmd import CIOptions, ci_command  # noqa: PLC0415

    flags.max_memory = max_memory
    opts = CIOptions(jobs=jobs, strict=strict, update=update, junit=junit, github=fmt.value == "github")
    _commands_own_interrupts()
    raise typer.Exit(ci_command(paths, opts, flags))


# --------------------------------------------------------------------------- start-up
def _install_plain_coercion() -> None:
    """Recent Typer releases coerce every parameter value through a Pydantic TypeAdapter, which
    costs a Pydantic import (100-300 ms) on every `gradcli run`. gradcli's parameters are simple
    (str, int, float, bool, an Enum, a list of str, a parser function), so they get a plain
    coercer with the same checks instead. Typer versions without that machinery are left alone,
    and a parameter of any other kind keeps Typer's own coercion."""
    try:
        from typer._coercion import RuntimeParam  # noqa: PLC0415
        from typer.core import _TyperParameter  # noqa: PLC0415
    except ImportError:
        return
    original = getattr(_TyperParameter, "get_runtime_param", None)
    if original is None or getattr(original, "_gradcli_plain", False):
        return
    plain = _plain_runtime_param_class(RuntimeParam)

    def get_runtime_param(self):
        if getattr(self, "_runtime_param", None) is None:
            desc = getattr(self, "type_descriptor", None)
            if desc is not None and plain.supports(desc.annotation, desc.parameter_info):
                try:
                    self._runtime_param = plain(parameter_info=desc.parameter_info, annotation=desc.annotation)
                except TypeError:  # a RuntimeParam with other fields: Typer's own coercion
                    pass
        return original(self)

    get_runtime_param._gradcli_plain = True
    _TyperParameter.get_runtime_param = get_runtime_param


_PLAIN_CLASS = []


def _plain_runtime_param_class(base):
    if _PLAIN_CLASS:
        return _PLAIN_CLASS[0]
    import typing  # noqa: PLC0415
    from dataclasses import dataclass  # noqa: PLC0415

    def unwrap(annotation):
        if typing.get_origin(annotation) is typing.Union:
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) == 1:
                return unwrap(args[0])
        return annotation

    def leaf_ok(annotation, info):
        if getattr(info, "parser", None) is not None:
            return True
        return annotation in (str, int, float, bool) or (isinstance(annotation, type) and issubclass(annotation, Enum))

    @dataclass(frozen=True)
    class PlainRuntimeParam(base):
        @staticmethod
        def supports(annotation, info) -> bool:
            if getattr(info, "click_type", None) is not None:
                return False
            annotation = unwrap(annotation)
            if typing.get_origin(annotation) in (list, List):
                args = typing.get_args(annotation)
                return len(args) == 1 and leaf_ok(unwrap(args[0]), info)
            return leaf_ok(annotation, info)

        def _coerce_value(self, value, param, ctx):
            annotation = unwrap(self.annotation)
            if typing.get_origin(annotation) in (list, List):
                leaf = unwrap(typing.get_args(annotation)[0])
                return [self._one(leaf, v, param, ctx) for v in value]
            return self._one(annotation, value, param, ctx)

        def _one(self, annotation, value, param, ctx):
            info = self.parameter_info
            if info.parser is not None:
                return value if not isinstance(value, str) else info.parser(value)
            if annotation is str:
                return str(value)
            if annotation is bool:
                if isinstance(value, bool):
                    return value
                text = str(value).strip().lower()
                if text in ("1", "true", "t", "yes", "y", "on"):
                    return True
                if text in ("0", "false", "f", "no", "n", "off"):
                    return False
                raise typer.BadParameter(f"{value!r} is not a valid boolean.", ctx=ctx, param=param)
            if isinstance(annotation, type) and issubclass(annotation, Enum):
                if isinstance(value, annotation):
                    return value
                text = str(value)
                for member in annotation:
                    if member.value == text or (not info.case_sensitive and member.value.lower() == text.lower()):
                        return member
                choices = ", ".join(repr(m.value) for m in annotation)
                raise typer.BadParameter(f"{text!r} is not one of {choices}.", ctx=ctx, param=param)
            kind = "integer" if annotation is int else "float"
            try:
                number = annotation(value)
            except (TypeError, ValueError):
                raise typer.BadParameter(f"{value!r} is not a valid {kind}.", ctx=ctx, param=param) from None
            if info.min is not None and number < info.min:
                raise typer.BadParameter(f"{number} is smaller than the minimum {info.min}.", ctx=ctx, param=param)
            if info.max is not None and number > info.max:
                raise typer.BadParameter(f"{number} is larger than the maximum {info.max}.", ctx=ctx, param=param)
            return number

    _PLAIN_CLASS.append(PlainRuntimeParam)
    return PlainRuntimeParam


def main(argv: Optional[List[str]] = None) -> None:
    """The full command line through Typer (entry.main sends here every command line it does not
    run itself): no traceback of gradcli's ever reaches the user."""
    args = list(sys.argv[1:] if argv is None else argv)
    _default_sigpipe()
    from .helptext import help_request, render  # noqa: PLC0415

    asks, command = help_request(args)
    if asks:  # gradcli's own help text (helptext.py), not Typer's
        sys.stdout.write(render(command))
        sys.stdout.flush()
        sys.exit(0)

    # Click's exception classes, wherever this Typer keeps its Click (click, or typer._click since 0.26)
    usage_class, click_class = (next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)
                                for name in ("UsageError", "ClickException"))

    def body():
        _install_plain_coercion()
        try:
            code = app(args=args, prog_name="gradcli", standalone_mode=False)
        except usage_class as exc:
            code = usage_error(exc, args)
        except click_class as exc:  # (a file Click could not open): one line too
            say(f"error: {exc.format_message()}")
            code = exc.exit_code
        except typer.Abort:  # Ctrl-D at a Click prompt: none in gradcli, but never a traceback
            say("aborted")
            code = 1
        sys.exit(code if isinstance(code, int) else 0)

    _guarded(body, "--debug" in args)


def usage_error(exc, args: List[str]) -> int:
    """Click's and Typer's usage errors (an unknown option, a missing argument, a bad value) as one
    line, `gradcli: error: MESSAGE`, then `Try 'gradcli COMMAND --help'`; exit 2. Under --json the
    command's JSON document (run, grad, graph, test) carries the error too, alone on stdout."""
    ctx = getattr(exc, "ctx", None)
    words = (ctx.command_path if ctx is not None and ctx.command_path else "gradcli").split()
    message = " ".join(exc.format_message().split())
    command = words[1] if len(words) > 1 else None
    if "--json" in args and command in ("run", "grad", "graph", "test"):
        from gradcli.render.jsonout import dumps, run_doc, simple_error  # noqa: PLC0415

        error = simple_error("UsageError", message, hint=usage_hint(command))
        if command == "test":
            from .testcmd import usage_doc as test_usage_doc  # noqa: PLC0415

            doc = test_usage_doc(message)
        elif command == "graph":
            from .graphcmd import usage_doc  # noqa: PLC0415

            doc = usage_doc(error)
        else:
            doc = run_doc(command=command, exit_code=EXIT_USAGE, error=error)
        sys.stdout.write(dumps(doc) + "\n")
        sys.stdout.flush()
    say_usage(message, command)
    return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    main()
