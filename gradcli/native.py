"""The optional compiled kernels: csrc/NAME.c, built at install (setup.py) or in place for development
(tools/build_native.py) as the extension module gradcli._native_NAME.

`load(NAME)` returns that module, or None when it is not built (no compiler at install), the environment
says GRADCLI_NATIVE=0, or the module found is not the one this code needs: a `.so` without its
SOURCE_DIGEST, without a kernel the caller names, or, in a development checkout (csrc/ beside the
package), built from other sources than the checkout's (a build left from before a rebase: the tests
rebuild it, `python -m gradcli` would have loaded it as it was); every caller then runs its NumPy
reference, which computes the same bits (tests/test_native.py compares the two), and `gradcli --version`
names the module refused. Imported only where a kernel may run (never at start-up:
tests/test_startup.py)."""
from __future__ import annotations

import importlib
import os

_loaded: dict = {}
_HERE = os.path.dirname(os.path.abspath(__file__))
_CSRC = os.path.join(os.path.dirname(_HERE), "csrc")


def enabled() -> bool:
    return os.environ.get("GRADCLI_NATIVE", "1").strip() != "0"


def source_digest(name: str):
    """setup.py's SOURCE_DIGEST of csrc/NAME.c and csrc/*.h (the sha256, in name order) when this is a
    development checkout holding that source (setup.py beside csrc/), else None (an installed copy: its
    modules were built with it)."""
    root = os.path.dirname(_CSRC)
    source = os.path.join(_CSRC, f"{name}.c")
    if not (os.path.isfile(source) and os.path.isfile(os.path.join(root, "setup.py"))):
        return None
    import hashlib  # noqa: PLC0415

    h = hashlib.sha256()
    headers = sorted(f for f in os.listdir(_CSRC) if f.endswith(".h"))
    for path in [source, *(os.path.join(_CSRC, f) for f in headers)]:
        with open(path, "rb") as fh:
            h.update(os.path.basename(path).encode() + b"\0" + fh.read() + b"\0")
    return h.hexdigest()


def stale_reason(name: str, module, needs=()):
    """Why the loaded module gradcli._native_NAME cannot serve (no SOURCE_DIGEST, a kernel in needs
    missing, built from other sources than this checkout's), or None when it can."""
    digest = getattr(module, "SOURCE_DIGEST", None)
    if not isinstance(digest, str):
        return "no SOURCE_DIGEST (built before the digest existed)"
    missing = [k for k in needs if not callable(getattr(module, k, None))]
    if missing:
        return f"no {', '.join(missing)}"
    want = source_digest(name)
    if want is not None and digest != want:
        return "built from other sources than csrc/ (rebuild: python3 tools/build_native.py)"
    return None


def load(name: str, needs=()):
    """The module gradcli._native_NAME, or None (not built, GRADCLI_NATIVE=0, or stale: stale_reason);
    looked up once. needs: the kernels the caller will call."""
    if name not in _loaded:
        module = None
        if enabled():
            try:
                module = importlib.import_module(f"gradcli._native_{name}")
            except ImportError:
                module = None
            if module is not None and stale_reason(name, module, needs) is not None:
                module = None
        _loaded[name] = module
    return _loaded[name]



def describe() -> str:
    """One line for --version: which C kernels a run would use (found, not loaded; in a development
    checkout, a module whose file lacks its sources' digest is named as stale: its NumPy code runs)."""
    if not enabled():
        return "native: off (GRADCLI_NATIVE=0): the NumPy code"
    import importlib.machinery  # noqa: PLC0415
    found = {}
    for f in os.listdir(_HERE):
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            name = f[len("_native_"):-len(suffix)]
            if f.startswith("_native_") and f.endswith(suffix) and "." not in name:  # this Python's
                found[name] = os.path.join(_HERE, f)
    if not found:
        return "native: not built (no C compiler at install): the NumPy code, the same bits"
    fresh, stale = [], []
    for name in sorted(found):
        want = source_digest(name)
        if want is not None:
            with open(found[name], "rb") as fh:
                if want.encode() not in fh.read():
                    stale.append(name)
                    continue
        fresh.append(name)
    line = f"native: C kernels ({', '.join(fresh)})" if fresh else "native: no usable C kernels"
    if stale:
        line += (f"; stale, built from other sources than csrc/ ({', '.join(stale)}): their NumPy code runs "
                 "(python3 tools/build_native.py rebuilds them)")
    return line
