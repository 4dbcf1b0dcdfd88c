"""The REPL without a terminal: one :class:`gradcli.lang.runner.Session`, the meta-commands, and
how results, errors and warnings are shown.  The terminal front end (``terminal.py``) and the
stdin mode (``run_stdin`` below) both drive a :class:`Repl`; neither imports prompt_toolkit here.
"""
from __future__ import annotations

import os
import shlex
import sys
from typing import Any, Callable, Iterable, TextIO

from .source import StatementReader, is_complete, is_meta

__all__ = ["Repl", "save_inputs", "run_stdin", "plain_interact", "banner_text", "HELP", "PREDEFINED"]

PREDEFINED = "torch, np, nn, F and math"

HELP = """\
Type GradScript statements as in `gradcli run` (PyTorch-flavoured Python); torch, np, nn, F and
math are ready without imports. An expression's value is echoed; an open bracket or a block header (for/if/while/with/def/class ...:) continues on a `...`
line and a blank line ends a block. Tab completes names, torch./nn./F. members and tensor methods.
Up/down walk the history (kept across sessions). Ctrl-C cancels the input or interrupts a running
statement; Ctrl-D (or :quit) leaves.

Meta-commands:
  :help            this text
  :vars            a table of the tensors in scope (shape, dtype, requires_grad, is_leaf, grad_fn, grad)
  :graph NAME      the backward graph of a tensor as a tree (grad_fn nodes, AccumulateGrad leaves)
  :explain         toggle the chain-rule walkthrough for later backward() calls
  :reset           forget every variable and start a fresh session
  :load FILE.grad  run a script in this session (its variables stay)
  :save FILE.grad  write the statements accepted so far as a script
  :device cpu|cuda  the default device of new tensors
  :quit            leave (also :exit, Ctrl-D)"""


class _Quit(Exception):
    pass


class Repl:
    """The state of one REPL: the session, the accepted input, the flags.

    ``out``/``err`` are text streams; ``color`` says whether Rich may colour them.
    """

    # the completion the session's process answers (ChildRepl's, over its channel); here the
    # terminal completes from scope() and session_complete() in this process
    complete = None

    def __init__(self, options: Any = None, *, out: TextIO | None = None, err: TextIO | None = None,
                 color: bool = False, filename: str = "<stdin>") -> None:
        if options is None:
            from ..lang.runner import RunOptions  # noqa: PLC0415
            options = RunOptions()
        self.options = options
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.color = color
        self.filename = filename
        self.accepted: list[str] = []        # sources that ran without error, for :save
        self.variables: dict[str, Any] = {}  # the session's names after the last run
        self.errors = 0
        self.next_line = 1                   # the line number of the next typed input
        self.explain = bool(options.explain)
        # `:graph` names the line that created each node (the terminal numbers its inputs on)
        self.show_sites = True
        self._warning_printer: Any = None
        self._current_filename = filename
        self._writer = self._make_writer()
        self.session = self._new_session()

    def close(self) -> None:
        """Nothing to end: the session runs in this process (ChildRepl ends its child)."""

    # ------------------------------------------------------------------ plumbing
    def _make_writer(self):
        from ..render.stream import make_writer  # noqa: PLC0415
        return make_writer(self.out, self.color)

    def _new_session(self):
        from ..lang.runner import Session  # noqa: PLC0415
        session = Session(self.options, write=self._write, warn=self._warn)
        session.keep_outputs = False  # _write shows each line as it comes: an input may print gigabytes
        session.on_pass = self._on_pass
        session.predefine_modules()  # torch, np, nn, F, math without imports, as `run -e` has them
        return session

    def _on_pass(self, kind: str, record: Any) -> None:
        """A backward pass under :explain (or --check): the walkthrough table on the error stream."""
        self.out.flush()
        try:
            if kind == "explain":
                from ..graph.explain import render  # noqa: PLC0415
                render(record, self.err, self.color)
            else:
                self.err.write(record.line_text() + "\n")
                self.err.flush()
        except Exception as exc:  # noqa: BLE001 - the walkthrough must never break the session
            self.message(f"(the walkthrough failed: {type(exc).__name__}: {exc})", error=True)

    def console(self, stream: TextIO | None = None):
        """A Rich console on ``stream`` (stdout by default), coloured only if allowed."""
        from ..render.style import rich_console  # noqa: PLC0415
        return rich_console(stream if stream is not None else self.out, self.color)

    def _write(self, text: str, line: int | None = None, *rest: Any) -> None:
        self._writer.write(text, line)

    def _warn(self, *args: Any, **kwargs: Any) -> None:
        self.show_warning(*args, **kwargs)

    def show_warning(self, *args: Any, **kwargs: Any) -> None:
        """A warning as `gradcli run` shows it (``file:line:col: UserWarning: message``), once per
        site within one input."""
        if self._warning_printer is None:
            from ..render.diagnostics import WarningPrinter  # noqa: PLC0415
            self._warning_printer = WarningPrinter(self.err, self.color, self._current_filename)
        self._warning_printer(*args, **kwargs)

    def show_error(self, error: Any, source: str | None = None, filename: str | None = None) -> None:
        """An error as `gradcli run` shows it (the renderer's panel)."""
        from ..render.diagnostics import print_error  # noqa: PLC0415

        self.out.flush()
        print_error(error, self.err, self.color, source=source, filename=filename or self.filename)

    def message(self, text: str, *, error: bool = False) -> None:
        """A line from the REPL itself (not program output)."""
        stream = self.err if error else self.out
        stream.write(text.rstrip("\n") + "\n")
        stream.flush()

    # ------------------------------------------------------------------ running code
    def run_source(self, source: str, filename: str | None = None, record: bool = True,
                   first_line: int = 1) -> bool:
        """Run GradScript in the session; show its output, warnings and error. True if it ran
        without error.  KeyboardInterrupt while it runs is shown and swallowed.  ``first_line``
        numbers the source's lines (statements read from stdin keep their line numbers)."""
        filename = filename or self.filename
        self._current_filename = filename
        self._warning_printer = None
        text = "\n" * max(0, first_line - 1) + source.rstrip() + "\n"
        from ..cli.executor import Located, execute  # noqa: PLC0415

        try:  # the session's own callbacks (_write, _warn, _on_pass) show what it prints as it runs
            outcome = execute(text, self.options, name=filename, session=self.session)
        except KeyboardInterrupt:
            self._refresh_variables()
            self.out.flush()
            self.message("\nKeyboardInterrupt", error=True)
            self.errors += 1
            return False
        self._refresh_variables()
        error = outcome.error
        if outcome.kind == "interrupted":
            self.out.flush()
            self.message("KeyboardInterrupt", error=True)
            self.errors += 1
            return False
        if outcome.kind != "ok":
            self.errors += 1
            if outcome.raised and outcome.kind != "script":
                what = outcome.internal_text or f"CudaUnavailable: {outcome.message}"
                self.message(f"gradcli: internal error: {what} (the session goes on)", error=True)
            elif error["type"] == "InternalError":
                # gradcli's own failure, not the input's: one line, as `run` says it
                self.message(f"gradcli: {error['message']} (the session goes on)", error=True)
            else:
                located = Located.from_json(error)
                located.raised_by_script = outcome.script_raised  # its own MemoryError is not the cap's
                self.show_error(located, text, filename)
            return False
        if record:
            self.accepted.append(source.rstrip())
        return True

    def _refresh_variables(self) -> None:
        variables = self.session.variables()
        self.variables = {k: v for k, v in variables.items() if not str(k).startswith("_")}

    def scope(self) -> dict[str, Any]:
        """The names in scope, for completion and the meta-commands."""
        if not self.variables:
            self._refresh_variables()
        return self.variables

    def session_complete(self) -> Callable[[str], Iterable[str]] | None:
        return self.session.complete

    # ------------------------------------------------------------------ one input
    def handle(self, text: str, first_line: int = 1) -> bool:
        """Run one complete input (code or a meta-command). False when the REPL should end."""
        if not text.strip():
            return True
        if is_meta(text):
            try:
                self.meta(text.strip())
            except _Quit:
                return False
            except KeyboardInterrupt:
                self.message("KeyboardInterrupt", error=True)
            return True
        self.run_source(text, first_line=first_line)
        return True

    def handle_typed(self, text: str) -> bool:
        """One input typed at a prompt: inputs are numbered on through the session (a meta-command
        takes no line), so :explain, :graph and errors name each statement's own line; Ctrl-C
        while it runs is shown. False when the REPL should end."""
        if not text.strip():
            return True
        first_line = self.next_line
        if not is_meta(text):
            self.next_line += text.count("\n") + 1
        try:
            return self.handle(text, first_line)
        except KeyboardInterrupt:
            self.message("KeyboardInterrupt", error=True)
            return True

    # ------------------------------------------------------------------ meta-commands
    def meta(self, line: str) -> None:
        try:
            parts = shlex.split(line[1:])
        except ValueError:
            parts = line[1:].split()
        if not parts:
            self.message("Type :help for the meta-commands.")
            return
        command, args = parts[0].lower(), parts[1:]
        handler = {
            "help": self.cmd_help, "h": self.cmd_help, "?": self.cmd_help,
            "vars": self.cmd_vars, "graph": self.cmd_graph, "explain": self.cmd_explain,
            "reset": self.cmd_reset, "load": self.cmd_load, "save": self.cmd_save,
            "device": self.cmd_device, "quit": self.cmd_quit, "exit": self.cmd_quit, "q": self.cmd_quit,
        }.get(command)
        if handler is None:
            self.message(f"Unknown command :{command}. Type :help for the meta-commands.", error=True)
            return
        handler(args)

    def cmd_help(self, args: list[str]) -> None:
        self.message(HELP)

    def cmd_quit(self, args: list[str]) -> None:
        raise _Quit

    def cmd_vars(self, args: list[str]) -> None:
        from .views import vars_table  # noqa: PLC0415
        table = vars_table(self.scope())
        if table is None:
            self.message("No tensors in scope.")
            return
        self.console().print(table)
        self.out.flush()

    def cmd_graph(self, args: list[str]) -> None:
        from .views import graph_tree, is_tensor  # noqa: PLC0415
        if len(args) != 1:
            self.message("usage: :graph NAME   (the backward graph of the tensor NAME)", error=True)
            return
        name = args[0]
        scope = self.scope()
        value = scope.get(name)
        if name not in scope:
            self.message(f"NameError: name '{name}' is not defined", error=True)
            return
        if not is_tensor(value):
            self.message(f"{name} is not a tensor (it is a {type(value).__name__}); :graph shows a tensor's "
                         f"backward graph.", error=True)
            return
        tree = graph_tree(name, value, scope, show_sites=self.show_sites)
        if isinstance(tree, str):
            self.message(tree)
        else:
            self.console().print(tree)
            self.out.flush()

    def cmd_explain(self, args: list[str]) -> None:
        if args and args[0].lower() in ("on", "off"):
            self.explain = args[0].lower() == "on"
        else:
            self.explain = not self.explain
        self.options.explain = self.explain  # the session's own options: its next run reads them
        state = "on" if self.explain else "off"
        if self.explain:
            self.message(f"Chain-rule walkthrough {state}: it applies to later backward() and "
                         f"torch.autograd.grad() calls.")
        else:
            self.message(f"Chain-rule walkthrough {state}.")

    def cmd_reset(self, args: list[str]) -> None:
        self.session = self._new_session()
        self.accepted.clear()
        self.variables = {}
        self.message("Session reset: every variable is gone.")

    def cmd_load(self, args: list[str]) -> None:
        if len(args) != 1:
            self.message("usage: :load FILE.grad", error=True)
            return
        path = os.path.expanduser(args[0])
        from ..lang.options import MAX_SOURCE_CHARS  # noqa: PLC0415
        try:
            with open(path, encoding="utf-8") as fh:
                source = fh.read(MAX_SOURCE_CHARS + 1)  # no more than a script may hold (/dev/zero)
        except OSError as exc:
            self.message(f"cannot load {args[0]}: {exc.strerror or exc}", error=True)
            return
        except UnicodeDecodeError:
            self.message(f"cannot load {args[0]}: not UTF-8 text", error=True)
            return
        if len(source) > MAX_SOURCE_CHARS:
            self.message(f"cannot load {args[0]}: it is larger than the limit of {MAX_SOURCE_CHARS:,} characters",
                         error=True)
            return
        if self.run_source(source, filename=args[0], record=False):
            self.accepted.append(source.rstrip())

    def cmd_save(self, args: list[str]) -> None:
        save_inputs(self.accepted, args, self.message)

    def cmd_device(self, args: list[str]) -> None:
        current = str(self.options.device)
        if not args:
            self.message(f"Default device: {current}")
            return
        if len(args) != 1 or args[0].split(":")[0] not in ("cpu", "cuda"):
            self.message("usage: :device cpu|cuda", error=True)
            return
        wanted = args[0]
        if wanted.startswith("cuda"):
            try:
                from ..engine import device as engine_device  # noqa: PLC0415
                engine_device.cupy()
            except Exception as exc:  # CudaUnavailable, or anything CuPy raises
                self.message(f"cuda is not available: {exc} The default device stays {current}.", error=True)
                return
        try:
            self.session.set_device(wanted)
        except Exception as exc:  # noqa: BLE001 - the session keeps its device
            self.message(f"cannot switch to {wanted}: {exc}", error=True)
            return
        self.message(f"Default device: {wanted} (new tensors; existing ones stay where they are)")


def save_inputs(accepted: list[str], args: list[str], message: Callable[..., None]) -> None:
    """`:save FILE.grad`: the accepted inputs written as a script."""
    if len(args) != 1:
        message("usage: :save FILE.grad", error=True)
        return
    path = os.path.expanduser(args[0])
    if not path.endswith(".grad") or os.path.basename(path) == ".grad":
        # a snippet pasted into the REPL may hold a `:save ~/.bashrc` line: only a script is written
        message(f"cannot save {args[0]}: :save writes a GradScript file, whose name ends in .grad", error=True)
        return
    text = "\n".join(accepted)
    if text:
        text += "\n"
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        message(f"cannot save {args[0]}: {exc.strerror or exc}", error=True)
        return
    n = len(accepted)
    message(f"Saved {n} input{'s' if n != 1 else ''} to {args[0]}.")


def banner_text() -> str:
    from .. import __version__  # noqa: PLC0415
    return (f"gradcli {__version__} REPL (GradScript, PyTorch 2.13 semantics). {PREDEFINED} are ready "
            f"without imports.\nType :help for help, Ctrl-D to leave.")


def plain_interact(repl: Repl, stdin: TextIO, stdout: TextIO, banner: bool = True) -> int:
    """The REPL on a terminal that prompt_toolkit cannot drive (TERM=dumb, no prompt_toolkit):
    plain `>>> ` / `... ` prompts over line reads, the same continuation rule, no editing.
    Returns 0 at end of input or :quit."""

    if banner:
        repl.message(banner_text() + " (plain line input: this terminal has no line editor)")
    while True:
        lines: list[str] = []
        try:
            while True:
                stdout.write(">>> " if not lines else "... ")
                stdout.flush()
                line = stdin.readline()
                if not line:
                    if not lines:
                        stdout.write("\n")
                        return 0
                    break
                lines.append(line.rstrip("\r\n"))
                if is_complete("\n".join(lines)):
                    break
        except KeyboardInterrupt:
            repl.message("\nKeyboardInterrupt", error=True)
            continue
        if not repl.handle_typed("\n".join(lines).rstrip()):
            return 0


def run_stdin(repl: Repl, stream: TextIO) -> int:
    """Non-terminal mode: read statements from ``stream`` and run each, with no prompts.

    Exit status: 0 when every statement ran, 1 when any raised an error (the rest still ran).
    """
    reader = StatementReader()

    def statements():
        lineno = 0
        for line in stream:
            lineno += 1
            yield from reader.feed(lineno, line)
        yield from reader.close()

    try:
        for first_line, text in statements():
            if not repl.handle(text, first_line):
                break
    except KeyboardInterrupt:
        repl.message("KeyboardInterrupt", error=True)
        return 130
    repl.out.flush()
    return 1 if repl.errors else 0
