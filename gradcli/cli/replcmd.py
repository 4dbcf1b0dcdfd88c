"""`gradcli repl` (and `gradcli` alone on a terminal): the REPL's command, without Typer.

entry.py starts it directly for `gradcli` and `gradcli repl` without options (Typer and Click
cost start-up time before the first prompt); app.py's repl command and root call it with the
options Typer read. Kept light: nothing heavy is imported before the REPL's own modules.
"""
from __future__ import annotations

import sys

from .common import EXIT_USAGE, Flags, say


def repl_command(flags: Flags) -> int:
    """The whole `repl` command (and bare `gradcli` on a terminal): returns the exit status."""
    import importlib  # noqa: PLC0415

    from .common import UsageProblem, check_device  # noqa: PLC0415

    try:
        module = importlib.import_module("gradcli.repl")
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == "gradcli.repl" or exc.name.startswith("gradcli.repl.")):
            say("the REPL is not available in this installation (gradcli.repl is missing)")
            return EXIT_USAGE
        raise
    try:
        check_device(flags.device)
    except UsageProblem as exc:
        say(str(exc))
        return EXIT_USAGE
    entry = getattr(module, "run_repl", None) or getattr(module, "main")
    from gradcli.render.style import want_color  # noqa: PLC0415

    from . import isolate  # noqa: PLC0415
    from .common import TIMEOUT_GRACE, env_flag  # noqa: PLC0415

    kwargs = {}
    if isolate.available() and flags.device != "cuda" and not env_flag("GRADCLI_IN_PROCESS"):
        # the session in a child process (the process wall); CUDA contexts do not survive a fork
        kwargs["isolate"] = {"max_memory": flags.max_memory_bytes(), "grace": TIMEOUT_GRACE,
                             "seccomp": not (flags.no_seccomp or env_flag("GRADCLI_NO_SECCOMP"))}
    return int(entry(flags.run_options(), want_color(sys.stdout, flags.no_color), **kwargs) or 0)
