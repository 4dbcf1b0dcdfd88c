"""NumPy's own matrix product in one C call (csrc/blas.c, gradcli._native_blas): `mm(a, b)` gives a @ b's
array with its bits, or None (then the caller runs NumPy's `@`, the reference).

NumPy's matmul ufunc spends several times a small product's arithmetic on its dispatch (a Linear layer's
backward products in the seeds' loop: 32 x 2 @ 2 x 5, 2 x 32 @ 32 x 5, 5 x 32 @ 32 x 10). csrc/blas.c makes
the cblas_?gemm call NumPy's matmul loop makes for such operands, with the very function NumPy calls: the
BLAS library NumPy's wheel bundles (scipy-openblas, numpy.libs/), looked up among the libraries already
loaded. A NumPy built with another BLAS, several candidate libraries, or a product of `mm` that differs from
`@` on the check below: no kernel, NumPy's `@` everywhere (tests/test_native_blas.py)."""
from __future__ import annotations

import os

import numpy as np

MM_KERNEL: list = []  # [mm or None], decided at the first use


def mm_kernel():
    """csrc/blas.c's mm, or None (not built, GRADCLI_NATIVE=0, NumPy's BLAS not the bundled scipy-openblas)."""
    if not MM_KERNEL:
        MM_KERNEL.append(_load())
    return MM_KERNEL[0]


def numpy_blas():
    """(the library's path, its ILP64 flag) of the scipy-openblas NumPy was built with and bundles, or None."""
    try:
        from numpy import __config__  # noqa: PLC0415  (imported by numpy itself: no cost)
        blas = __config__.CONFIG["Build Dependencies"]["blas"]
    except (ImportError, AttributeError, KeyError, TypeError):
        return None
    if blas.get("name") != "scipy-openblas" or not blas.get("found"):
        return None
    ilp64 = "USE64BITINT" in str(blas.get("openblas configuration", ""))
    stem = "libscipy_openblas64_" if ilp64 else "libscipy_openblas-"
    import glob  # noqa: PLC0415  (once, at the first product)
    found = glob.glob(os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs", stem + "*.so*"))
    if len(found) != 1:
        return None
    return os.path.realpath(found[0]), ilp64


def _load():
    from .. import native  # noqa: PLC0415  (not at start-up)
    module = native.load("blas", needs=("setup", "mm"))
    where = numpy_blas() if module is not None else None
    if where is None:
        return None
    path, ilp64 = where
    suffix = "64_" if ilp64 else ""
    if not module.setup(path, f"scipy_cblas_sgemm{suffix}", f"scipy_cblas_dgemm{suffix}", ilp64):
        return None
    return module.mm if _agrees(module.mm) else None


def _agrees(mm):
    """One product of each dtype and layout pair against NumPy's `@`, bit for bit: the function found is the
    one NumPy calls (else no kernel)."""
    rng = np.random.default_rng(21)
    for dt in (np.float32, np.float64):
        a = rng.standard_normal((7, 33)).astype(dt)
        b = rng.standard_normal((33, 5)).astype(dt)
        for x, y in ((a, b), (a.T.copy().T, b), (a, b.T.copy().T)):
            r = mm(x, y)
            if r is None or r.dtype != dt or r.shape != (7, 5) or r.tobytes() != (x @ y).tobytes():
                return False
    return True
