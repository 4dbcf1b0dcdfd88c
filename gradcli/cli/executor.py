"""The executor: one source run under options, its outcome returned as data. Every front end that
runs scripts consumes it: `run` (text and --json, in its child or in process: cli/runcmd.py),
`gradcli test` (in process and in each forked child: testing/execute.py) and the REPL
(repl/core.py, in its child or in process).

Pure: it prints nothing, decides no colour and ends no process. What the script prints and warns
goes to the caller's callbacks as it happens (``write(text, line)``, ``warn(dict)``), or is held in
the outcome when the caller gives none; a backward pass under --explain/--check goes to
``on_pass(kind, record)``; ``watch(session)`` starts what guards the run from outside (the child's
location reports, the hard deadline of a run in process) and returns its stop(). The outcome,
:class:`Executed`, is plain data (:meth:`Executed.data` crosses a process wall as it is):

- ``kind``: ``"ok"``, ``"script"`` (the script raised: ``error``), ``"internal"`` (gradcli's own
  failure: ``error``, ``internal_text``, ``traceback``), ``"cuda"`` (--device cuda unavailable:
  ``message``) or ``"interrupted"`` (Ctrl-C reached the script);
- ``error``: the error as the JSON documents hold it (render.jsonout.error_json), None when ok;
- ``outputs``/``warnings``: what was printed and warned, when not streamed;
- ``variables`` (this process only), ``tensors`` (the variables' tensors as JSON, asked with
  ``tensors=True``), ``summary`` (``summary(variables)``: the caller's renderer), ``explain``,
  ``checks`` (the passes' records as JSON), ``seconds`` (the run's wall time).

Light: it imports the language only when it runs (the plain `gradcli run` path loads no Rich,
Typer or Lark through it: tests/test_startup.py).
"""
from __future__ import annotations

import time
from dataclasses import field

from gradcli.records import record

from .common import EXIT_INTERNAL, EXIT_INTERRUPT, EXIT_OK, EXIT_SCRIPT, EXIT_USAGE

EXIT_CODES = {"ok": EXIT_OK, "script": EXIT_SCRIPT, "internal": EXIT_INTERNAL, "cuda": EXIT_USAGE,
              "interrupted": EXIT_INTERRUPT}


@record  # a dataclass, made for less start-up time (gradcli/records.py)
class Executed:
    """One source's run as data (see the module's text)."""
    name: str
    kind: str = "ok"
    error: dict | None = None
    internal_text: str | None = None
    traceback: str | None = None
    message: str | None = None                      # kind "cuda": why CUDA is unavailable
    raised: bool = False                            # gradcli's failure raised out of the run: no result
    script_raised: bool = False                     # the script's own `raise` (its MemoryError is not the cap's)
    outputs: list = field(default_factory=list)     # (text, line), when no write callback streamed them
    warnings: list = field(default_factory=list)    # dicts, when no warn callback streamed them
    variables: dict = field(default_factory=dict)   # the script's names (this process only: not in data())
    tensors: dict | None = None
    summary: str | None = None
    explain: list | None = None
    checks: list | None = None
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.kind]

    def data(self) -> dict:
        """The outcome as plain data (what marshal sends over a child's channel): every field but
        the variables (``Executed(**data)`` makes it again)."""
        return {name: getattr(self, name) for name in self._fields if name != "variables"}


def warning_dict(*args, **kwargs) -> dict:
    """A warning (the runner's Warning, a message, or category, message, line, column) as a dict."""
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


def is_cuda_unavailable(exc) -> bool:
    return type(exc).__name__ == "CudaUnavailable"


def execute(source: str, options, *, name: str = "<string>", session=None, predefine: bool = False,
            write=None, warn=None, on_pass=None, watch=None, hold_limit: int | None = None,
            passes: bool = False, tensors: bool = False, summary=None, debug: bool = False) -> Executed:
    """Run ``source`` under RunOptions ``options`` and return its :class:`Executed`.

    ``session``: an existing runner Session to run in (the REPL's: its own callbacks stream, its
    names stay); else a fresh one, with torch, np, nn, F and math bound when ``predefine`` (-e CODE).
    ``hold_limit``: characters of output the caller holds (--json): past it the script stops at the
    print, a MemoryError no handler catches. ``passes``: the --explain/--check records of the backward
    passes as JSON in the outcome. ``tensors``: the variables' tensors as JSON (--json). ``summary``:
    the caller's renderer of the variables (--summary), its text in the outcome. ``debug``: gradcli's own failure is raised, not
    returned (--debug's traceback in process). KeyboardInterrupt is never caught."""
    from gradcli.render.jsonout import error_json, simple_error  # noqa: PLC0415

    outcome = Executed(name)
    held = [0]

    def out(text, line=None, *rest):
        if hold_limit is not None:  # the caller holds every printed line until its document is written
            held[0] += len(text)
            if held[0] > hold_limit:
                from gradcli.lang.runtime import LimitError  # noqa: PLC0415
                raise LimitError("MemoryError", f"the output exceeds the limit of {hold_limit:,} characters "
                                 "that a --json document holds", hint="json_output", node=session.rt.loc[0])
        if write is None:
            outcome.outputs.append((text, line))
        else:
            write(text, line)

    def on_warn(*args, **kwargs):
        item = warning_dict(*args, **kwargs)
        if warn is None:
            outcome.warnings.append(item)
        else:
            warn(item)

    from gradcli.lang import runner  # noqa: PLC0415

    start = time.monotonic()
    try:
        if session is None:
            session = runner.Session(options, write=out, warn=on_warn)
            session.keep_outputs = False  # streamed (or held here): a run may print more than its memory holds
            if predefine:  # -e CODE: torch, np, nn, F and math are there without imports
                session.predefine_modules()
            if on_pass is not None:
                session.on_pass = on_pass
        stop = watch(session) if watch is not None else None
        try:
            result = session.run(source, name)
        finally:
            outcome.seconds = time.monotonic() - start
            if stop is not None:
                stop()
        if passes and options.explain:
            outcome.explain = [r.to_json() for r in result.explain]
        if passes and options.check:
            outcome.checks = [r.to_json() for r in result.checks]
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - nothing of gradcli's may escape as a traceback
        if is_cuda_unavailable(exc):
            outcome.kind, outcome.message, outcome.raised = "cuda", str(exc), True
            return outcome
        if debug:
            raise
        from gradcli.lang.errors import GradScriptError  # noqa: PLC0415

        outcome.raised = True
        if isinstance(exc, GradScriptError) and not isinstance(exc, runner.InternalError):
            outcome.kind, outcome.error = "script", error_json(exc, name)  # a located error raised, not returned
            return outcome
        import traceback  # noqa: PLC0415

        outcome.kind, outcome.error = "internal", simple_error("InternalError", "", name)
        outcome.internal_text = f"{type(exc).__name__}: {exc}"
        outcome.traceback = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return outcome

    variables = outcome.variables = result.variables
    err = result.error
    if tensors:
        from gradcli.render.tensors import MAX_JSON_ELEMENTS, tensors_json  # noqa: PLC0415

        skipped = []
        outcome.tensors = tensors_json(variables, skipped)
        if skipped and err is None:  # the run's limit: its tensors cannot all be written
            outcome.kind, outcome.error = "script", simple_error(
                "MemoryError", f"the tensors at the end of the run exceed the limit of {MAX_JSON_ELEMENTS:,} numbers "
                f"that --json writes (values and grads; not written: {', '.join(skipped)})", name,
                "del the large tensors at the end of the script, or print what you need of them")
            return outcome
    if summary is not None:
        outcome.summary = summary(variables)
    if err is not None:
        internal = isinstance(err, runner.InternalError)
        original = err.original if internal else None
        if err.type_name == "KeyboardInterrupt":
            outcome.kind, outcome.error = "interrupted", error_json(err, name)
            return outcome
        outcome.error = error_json(err, name)
        if err.type_name == "CudaUnavailable" or is_cuda_unavailable(original):
            outcome.kind, outcome.message = "cuda", str(original or err.message)
            return outcome
        if internal:
            outcome.kind, outcome.internal_text, outcome.traceback = "internal", internal_error_text(err), \
                err.traceback_text
        else:
            outcome.kind, outcome.script_raised = "script", bool(getattr(err, "raised_by_script", False))
    elif not result.ok:
        outcome.kind, outcome.error = "script", simple_error("Error", "the script failed", name)
    return outcome


def internal_error_text(err) -> str:
    """'Type: message' of the failure inside gradcli (err: the runner's InternalError, which wraps it)."""
    original = err.original
    if original is not None:
        text = str(original).strip().splitlines()
        return f"{type(original).__name__}: {text[0]}" if text else type(original).__name__
    message = str(err.message)
    return message[len("internal error: "):] if message.startswith("internal error: ") else message


class Located:
    """An error in the shape render.diagnostics.print_error takes (a GradScriptError's fields), made
    from an outcome's error (:meth:`from_json`) or by a front end (a file that is not UTF-8)."""

    def __init__(self, type_name, message, filename=None, line=None, column=None, end_line=None,
                 end_column=None, hint=None):
        self.type_name, self.message, self.filename = type_name, message, filename
        self.line, self.column, self.end_line, self.end_column, self.hint = line, column, end_line, end_column, hint

    @classmethod
    def from_json(cls, error: dict) -> Located:
        return cls(error["type"], error["message"], error["file"], error["line"], error["column"], error["end_line"],
                   error["end_column"], error["hint"])
