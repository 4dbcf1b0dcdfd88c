"""Which backend computes the ops PyTorch sends to Intel MKL: NumPy (the default) or MKL itself.

PyTorch 2.13 on the CPU computes float32/float64 sin cos tan exp log log10 log2 tanh erf erfc
erfinv sqrt asin acos atan with MKL's vector math library (VML) and its matrix products with
MKL's gemm; NumPy's loops and OpenBLAS round some results differently in the last bit. With the
optional extra installed (``pip install 'gradcli[mkl]'``, the ``mkl==2024.2.*`` wheel: the
version torch 2.13 was built with) those ops call MKL the way ATen does, and their bits are
torch's (docs/numerics.md). ``GRADCLI_MKL=0`` keeps NumPy.

Nothing is loaded at start-up: this module imports neither NumPy nor ctypes (``gradcli
--version`` reads it without the engine). The engine's
covered ops hold a :func:`slot` each; its first call decides (environment, library present),
imports :mod:`gradcli.engine.mkl_backend` and loads ``libmkl_rt`` only when MKL is to be used,
and from then on the slot holds MKL's kernel, or None for NumPy's.
"""
from __future__ import annotations

import os
import sys

ENV = "GRADCLI_MKL"
WANTED = "2024.2"          # the MKL of torch 2.13 ("Intel oneAPI MKL 2024.2, Build 20240605")
LIBRARY = "libmkl_rt.so.2"

_state = {"loaded": None, "why": None}   # loaded: the mkl_backend module once it runs; why: why not
_slots = []


def disabled_by_env() -> bool:
    return os.environ.get(ENV, "").strip().lower() in ("0", "off", "false", "no")


def library_path():
    """Where the `mkl` wheel put libmkl_rt (its data files go to <prefix>/lib), or None."""
    if not sys.platform.startswith("linux"):
        return None
    prefixes = [sys.prefix, getattr(sys, "base_prefix", sys.prefix)]
    try:
        import site  # noqa: PLC0415 - only on the first use of a covered op, or --version

        prefixes.append(site.getuserbase())
    except (ImportError, AttributeError):
        pass
    for prefix in prefixes:
        path = os.path.join(prefix, "lib", LIBRARY)
        if os.path.isfile(path):
            return path
    return None


def installed_version():
    """The `mkl` distribution's version (from its metadata, without loading the library), or None."""
    try:
        from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

        try:
            return version("mkl")
        except PackageNotFoundError:
            return None
    except ImportError:
        return None


def _decide():
    """The mkl_backend module when MKL is to run (loading it on the way), else None."""
    if _state["loaded"] is not None or _state["why"] is not None:
        return _state["loaded"]
    if disabled_by_env():
        _state["why"] = f"{ENV}=0"
        return None
    path = library_path()
    if path is None:
        _state["why"] = "the mkl extra is not installed"
        return None
    try:
        from .engine import mkl_backend  # noqa: PLC0415 - optional, loaded at first use

        mkl_backend.load(path)
    except (OSError, ImportError, AttributeError, ValueError) as exc:
        _state["why"] = f"{LIBRARY} did not load: {exc}"
        return None
    _state["loaded"] = mkl_backend
    return mkl_backend


def slot(kind, *args):
    """A one-element list for an engine call site: [kernel] with kernel(...) MKL's implementation,
    or [None] for NumPy's. A kernel returns None for what it does not take (another dtype, a CuPy
    array): the call site then runs NumPy's code. Until the first call the slot holds a loader
    that decides, fills the slot and runs. ``kind`` names the mkl_backend factory ("vml" with the
    op's name, "gemm", "bmm")."""
    cell = [None]

    def first(*call_args):
        module = _decide()
        kernel = getattr(module, kind)(*args) if module is not None else _emulated(kind)
        cell[0] = kernel
        if kernel is None:
            return None
        return kernel(*call_args)

    cell[0] = first
    _slots.append((cell, first))
    return cell


def _emulated(kind):
    """Without MKL: the engine's emulation of MKL's kernel where this CPU's order is known (the gemm
    bmm, mv and dot slots on an AVX2 machine: engine/gemm_avx2.py), else None (NumPy's)."""
    if kind not in ("gemm", "bmm", "dot", "mv"):
        return None
    from .engine import gemm_avx2  # noqa: PLC0415 - NumPy's side, loaded at the first product

    return gemm_avx2.kernel(kind)


def vml(name, fallback):
    """fallback (NumPy's float kernel of torch.<name>) or, with MKL, VML's: the array function an
    op's forward runs."""
    cell = slot("vml", name)

    def run(x):
        kernel = cell[0]
        if kernel is not None:
            r = kernel(x)
            if r is not None:
                return r
        return fallback(x)

    run.__name__ = getattr(fallback, "__name__", name)
    return run


def reset():
    """Forget the decision (tests switch GRADCLI_MKL within one process): every slot decides again."""
    _state["loaded"] = _state["why"] = None
    for cell, first in _slots:
        cell[0] = first


def active() -> bool:
    return _decide() is not None


def describe(load=False) -> str:
    """One line for --version and --debug: which backend computes the MKL ops. Without load, what
    a run would use (no library is loaded for it); with load, after deciding."""
    module = _state["loaded"]
    if module is None and load:
        module = _decide()
    if module is not None:
        return f"backend: MKL {module.version()} (VML and gemm, {module.threads()} threads) + NumPy"
    why = _state["why"]
    if why is None:
        if disabled_by_env():
            why = f"{ENV}=0"
        elif library_path() is None:
            why = "the mkl extra is not installed"
        else:
            found = installed_version()
            if found is not None and not found.startswith(WANTED):
                why = f"MKL {found} is installed; torch 2.13's bits need {WANTED}.x"
            else:
                return f"backend: MKL {found or WANTED} (VML and gemm, loaded at the first op that uses them) + NumPy"
    return f"backend: NumPy ({why})"
