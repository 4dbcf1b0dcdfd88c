"""The C library's own math functions over NumPy arrays, in a C loop where NumPy offers one.

PyTorch's scalar random kernels call glibc's `log`, `log1p`, `sin`, `cos`, `exp`, `tan` (double) and
`logf`, `cosf`, `sinf`, `log1pf` (float). NumPy's own SIMD loops for several of these are not glibc's
(float64 `log` differs in 0.35% of inputs here, `log1p` 7%, `exp` 5%). Its ufunc loops fall back to
the plain element loop, which calls the C library's function (`npy_log` is `log`), when the input
runs backwards in memory: `np.log(x[::-1])` is glibc's `log` at C speed (6 ns an element, against
120 ns through Python's `math`). That is NumPy's behaviour, not its promise, so each function is
checked once per process against the per-element call (`math.<name>`, or the C float function via
ctypes) on 4,096 probe values before the fast loop is trusted; where they differ (another NumPy,
another CPU) the per-element call is used. tools/check_rng_libm.py sweeps millions of inputs, and
tests/test_random_live.py compares whole draws with torch."""
from __future__ import annotations

import math

import numpy as np

_F32 = np.float32
_F64 = np.float64

# where each function's probes lie: the ranges the random kernels and the losses feed them
_DOMAIN = {"log": (2.0 ** -60, 4.0), "log1p": (-1.0 + 2.0 ** -40, 3.0), "sin": (-7.0, 7.0),
           "cos": (-7.0, 7.0), "tan": (-1.6, 1.6), "exp": (-40.0, 40.0)}
_PROBES = 4096
_fast_ok = {}
_slow = {}


def _probe_values(name, dtype):
    lo, hi = _DOMAIN[name]
    frac = (np.arange(1, _PROBES + 1, dtype=_F64) * 0.6180339887498949) % 1.0  # spread, deterministic
    x = lo + (hi - lo) * frac ** 3 if name in ("log", "log1p") else lo + (hi - lo) * frac
    return x.astype(dtype)


def _reversed_call(name, x):
    """np.<name> over x (contiguous, 1-D) read backwards: NumPy's element loop, i.e. the C function."""
    with np.errstate(all="ignore"):
        return getattr(np, name)(x[::-1])[::-1]


def _slow_fn(name, dtype):
    key = (name, dtype)
    f = _slow.get(key)
    if f is None:
        if dtype == _F64:
            f = np.frompyfunc(getattr(math, name), 1, 1)
        else:
            f = _c_float_function(name + "f")
            if f is None:  # no C library to call: the double function, rounded
                f = np.frompyfunc(getattr(math, name), 1, 1)
        _slow[key] = f
    return f


def _fast(name, dtype):
    key = (name, dtype)
    ok = _fast_ok.get(key)
    if ok is None:
        probe = _probe_values(name, dtype)
        want = np.asarray(_slow_fn(name, dtype)(probe.astype(_F64)), _F64).astype(dtype)
        got = _reversed_call(name, probe)
        ok = _fast_ok[key] = bool(np.array_equal(want.view(f"u{want.itemsize}"), got.view(f"u{got.itemsize}")))
    return ok


def libm(name, x):
    """The C library's double `name` over an array, as the C code calls it per element. Inputs must lie
    in the function's domain where the per-element fallback (Python's math) is used."""
    x = np.asarray(x, _F64)
    if x.size == 0:
        return x.copy()
    if _fast(name, _F64):
        flat = np.ascontiguousarray(x).reshape(-1)
        return _reversed_call(name, flat).reshape(x.shape)
    return _slow_fn(name, _F64)(x).astype(_F64)


def libm_f32(name, x):
    """The C library's float `name` (logf, log1pf, ...) over a float32 array, as ATen's scalar loops
    call std::log(float): glibc's float functions are not always correctly rounded, so the double
    function rounded to float differs on some inputs (0.7% for logf, 7% for log1pf). NumPy's element
    loop calls them for log1pf; logf, cosf, sinf go through ctypes per element (about 1.5 us each)."""
    base = name[:-1]
    x = np.asarray(x, _F32)
    if x.size == 0:
        return x.copy()
    if _fast(base, _F32):
        flat = np.ascontiguousarray(x).reshape(-1)
        return _reversed_call(base, flat).reshape(x.shape)
    return np.asarray(_slow_fn(base, _F32)(x.astype(_F64)), _F64).astype(_F32)


def _c_float_function(cname):
    try:
        import ctypes  # noqa: PLC0415
        fn = getattr(ctypes.CDLL(None), cname)  # the process's own C library (Python links libm)
    except (OSError, AttributeError, ImportError):
        return None
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float]
    return np.frompyfunc(fn, 1, 1)


def fast_loops():
    """{function: True/False}: which C functions run in NumPy's element loop here (after their check)."""
    return {f"{n}{'f' if d == _F32 else ''}": _fast(n, d) for n in _DOMAIN for d in (_F64, _F32)}
