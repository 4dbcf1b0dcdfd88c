"""torch's TORCH_WARN_ONCE: a warning given the first time only, per process. gradcli's session is torch's
process (lang/runner.Session starts afresh, as a new Python with torch would: a `gradcli run`, each
in-process run_source; a REPL keeps its session), so a warning torch gives once per process is given once
whatever the script's warnings filters say (under torch-echo's "always" too)."""
from __future__ import annotations

import warnings

_WARNED = set()


def warn_once(message, category=UserWarning, stacklevel=3):
    if message in _WARNED:
        return
    _WARNED.add(message)
    warnings.warn(message, category, stacklevel=stacklevel)


def reset_warn_once():
    _WARNED.clear()


__all__ = ["warn_once", "reset_warn_once"]
