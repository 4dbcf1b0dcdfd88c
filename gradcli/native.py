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



def describe() -> str:
    """One line for --version: which C kernels a run would use (found, not loaded)."""
    if not enabled():
        return "native: off (GRADCLI_NATIVE=0): the NumPy code"
    import importlib.machinery  # noqa: PLC0415
    here = os.path.dirname(os.path.abspath(__file__))
    names = sorted({f[len("_native_"):-len(suffix)] for f in os.listdir(here) if f.startswith("_native_")
                    for suffix in importlib.machinery.EXTENSION_SUFFIXES
                    if f.endswith(suffix) and "." not in f[len("_native_"):-len(suffix)]})  # this Python's
    if not names:
        return "native: not built (no C compiler at install): the NumPy code, the same bits"
    return f"native: C kernels ({', '.join(names)})"
