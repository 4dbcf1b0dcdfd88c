"""The REPL behind the process wall: the session lives in a child process (cli/isolate.Worker);
this process keeps the terminal (the line editor, the history, :save) and prints what the child
streams.

Each input goes to the child, which runs it in its :class:`gradcli.repl.core.Repl` (the session,
the meta-commands and their rendering) and sends back whether the REPL goes on and how many inputs
failed. Tab completion asks the child (it holds the values). When the child dies (a signal, a
crash, --timeout inside one long C call, a Ctrl-C it does not answer) one line says so and the
next input runs in a fresh child: earlier names are gone.
"""
from __future__ import annotations

from typing import Any, TextIO

from .core import Repl, save_inputs

__all__ = ["ChildRepl", "ended_text"]


def ended_text(reason: str, timeout: float | None) -> str:
    """The one line that says the session's process is gone."""
    import signal  # noqa: PLC0415

    if reason == "timeout":
        why = f"the input ran past --timeout {timeout:g} s inside one long operation and was ended"
    elif reason == "interrupted":
        why = "the input did not stop at Ctrl-C and was ended"
    elif reason.startswith("signal "):
        number = int(reason.split()[1])
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        why = f"killed by {name}"
        if number in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS):
            why += "; --max-memory caps its memory"
    else:
        why = reason
    return f"gradcli: the session's process ended ({why}); starting a fresh one: earlier names are gone"


class _ChildSide(Repl):
    """The Repl in the child: a MemoryError under the memory cap names --max-memory, as in `run`."""

    max_memory: int | None = None

    def show_error(self, error: Any, source: str | None = None, filename: str | None = None) -> None:
        from ..cli.common import cap_memory_error  # noqa: PLC0415

        text = cap_memory_error(error.type_name, str(error.message), self.max_memory,
                                getattr(error, "raised_by_script", False))
        if text is not None:
            import copy  # noqa: PLC0415

            error = copy.copy(error)
            error.message, error.hint = text
        super().show_error(error, source, filename)


class ChildRepl:
    """What the front ends (terminal.interact, plain_interact, run_stdin) drive, as a Repl, with
    the session in a child process."""

    handle_typed = Repl.handle_typed
    message = Repl.message

    def __init__(self, options: Any, *, out: TextIO, err: TextIO, color: bool, filename: str = "<stdin>",
                 max_memory: int | None = None, seccomp: bool = True, grace: float = 1.0) -> None:
        from ..cli.isolate import Worker  # noqa: PLC0415
        from ..lang import runner  # noqa: PLC0415,F401 - imported once, before the forks
        from ..render import diagnostics, stream  # noqa: PLC0415,F401
        from . import completion, views  # noqa: PLC0415,F401

        self.options, self.out, self.err, self.color, self.filename = options, out, err, color, filename
        self.grace = grace
        self.errors = 0
        self.next_line = 1
        self.names: list[str] = []
        self._child_errors = 0
        self._crash: list = []
        self.worker = Worker(self._serve, max_memory=max_memory, seccomp=seccomp)
        self.worker.prepare = self._prepare
        self.worker.start()

    # ---------------------------------------------------------------- the child's side
    def _prepare(self, channel) -> None:
        from ..lang.runner import Session  # noqa: PLC0415

        # a first run's lazy imports, in a throwaway session, before a request starts the --timeout clock
        Session(self.options, write=_ignore, warn=_ignore).run("x = (torch.ones(1) + 1).sum()\n", "<warm-up>")
        from ..cli.isolate import ChannelStream  # noqa: PLC0415

        self._repl = _ChildSide(self.options, out=ChannelStream(channel, "out", self.out),
                                err=ChannelStream(channel, "err", self.err), color=self.color, filename=self.filename)
        self._repl.max_memory = self.worker.max_memory

    def _serve(self, channel, request) -> tuple:
        repl = self._repl
        if request[0] == "input":
            keep = repl.handle(request[1], request[2])
            return (keep, repl.errors, sorted(str(k) for k in repl.scope()))
        if request[0] == "complete":
            from .completion import complete  # noqa: PLC0415

            return complete(request[1], repl.scope(), repl.session_complete())
        if request[0] == "accepted":
            return list(repl.accepted)
        raise ValueError(f"unknown request {request[0]!r}")

    # ---------------------------------------------------------------- this process's side
    def _on_message(self, message) -> None:
        kind = message[0]
        if kind == "out":
            self.out.write(message[1])
            self.out.flush()
        elif kind == "err":
            self.out.flush()
            self.err.write(message[1])
            self.err.flush()
        elif kind == "crash":
            self._crash.append(message[1])

    def _ask(self, request, timeout=None):
        from ..cli.isolate import Ended  # noqa: PLC0415

        self._crash = []
        gone = self.worker.gone()
        if gone is not None:  # it died while the REPL waited: this input runs in a fresh one
            self._restart(gone)
        try:
            return self.worker.ask(request, self._on_message, timeout=timeout, grace=self.grace)
        except Ended as ended:
            reason = ended.reason
            if self._crash:
                reason = f"{reason}: {self._crash[0]}"
            self._restart(reason)
            return None

    def _restart(self, reason: str) -> None:
        self.message(ended_text(reason, self.options.timeout), error=True)
        self.errors += 1
        self._child_errors = 0
        self.names = []
        self.worker.start()

    def handle(self, text: str, first_line: int = 1) -> bool:
        if not text.strip():
            return True
        stripped = text.strip()
        if stripped.startswith(":save"):  # the child may not write files: this process does
            accepted = self._ask(("accepted",))
            save_inputs(accepted or [], stripped.split()[1:], self.message)
            return True
        reply = self._ask(("input", text, first_line), timeout=self.options.timeout)
        if reply is None:
            return True
        if reply[0] == "interrupted":  # a Ctrl-C between the child's statements
            self.message("KeyboardInterrupt", error=True)
            self.errors += 1
            return True
        keep, errors, self.names = reply
        self.errors += errors - self._child_errors
        self._child_errors = errors
        return bool(keep)

    def scope(self) -> dict:
        return dict.fromkeys(self.names)

    def session_complete(self):
        return None

    def complete(self, text: str):
        """(partial, words) for the end of ``text``, from the child's values."""
        reply = self._ask(("complete", text))
        if reply is None:
            from .completion import complete  # noqa: PLC0415

            return complete(text, self.scope(), None)
        return reply[0], list(reply[1])

    def close(self) -> None:
        self.worker.stop()


def _ignore(*args: Any, **kwargs: Any) -> None:
    pass
