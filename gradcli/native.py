"""The optional compiled kernels: csrc/NAME.c, built at install (setup.py) or in place for development
(tools/build_native.py) as the extension module gradcli._native_NAME.

`load(NAME)` returns that module, or None when it is not built (no compiler at install) or the
environment says GRADCLI_NATIVE=0; every caller then runs its NumPy reference, which computes the same
bits (tests/test_native.py compares the two). Imported only where a kernel may run (never at start-up:
tests/test_startup.py)."""
from __future__ import annotations

import importlib
import os

_loaded: dict = {}


def enabled() -> bool:
    return os.environ.get("GRADCLI_NATIVE", "1").strip() != "0"


def load(name: str):
    """The module gradcli._native_NAME, or None (not built, or GRADCLI_NATIVE=0); looked up once."""
    if name not in _loaded:
        module = None
        if enabled():
            try:
                module = importlib.import_module(f"gradcli._native_{name}")
            except ImportError:
                module = None
        _loaded[name] = module
    return _loaded[name]

