"""A CPU stand-in for CuPy, so the engine's cuda path runs where there is no GPU (CI, laptops).

It is NumPy underneath, but it behaves towards NumPy the way CuPy 14 does, which is what catches
device bugs in op code written once for both:

- its arrays are not `numpy.ndarray` (so `device_of` says cuda:0), they refuse implicit conversion
  (`np.asarray(x)` raises CuPy's TypeError), and `.get()` / `asnumpy` copy to the host;
- `np.<ufunc>(x)` and `np.<function>(x)` dispatch to the "cupy" function of that name, as CuPy's
  `__array_ufunc__` / `__array_function__` do; a host `numpy.ndarray` among the operands is a
  TypeError (CuPy never copies host data implicitly), and a NumPy function CuPy 14.2 lacks is
  NumPy's "no implementation found" TypeError;
- ufunc methods exist only where CuPy has them (`add.at`, `maximum.at`, ...; `reduce` and
  `accumulate` for add and multiply; `reduceat` for add): others raise NotImplementedError;
- reductions and integer indexing return 0-d arrays, never NumPy scalars;
- assigning a host array into a slice is refused (`a[...] = numpy_array`).

What it cannot check: kernels, precision and speed on a real GPU, and NumPy functions that CuPy
has but implements differently. tools/gpu_check.sh runs the same tests on a real GPU.

Use: `install(device_module)` makes `gradcli.engine.device.cupy()` return this module.
"""
from __future__ import annotations

import builtins
import json
import types
from pathlib import Path

import numpy as np

__version__ = "14.2.0-sim"

# NumPy names CuPy 14.2.0 does not have (read from cupy-cuda12x 14.2.0's namespace).
_NOT_IN_CUPY = frozenset("""
False_ ScalarType True_ asmatrix block bmat busday_count busday_offset busdaycalendar bytes_ char character
clongdouble complex256 core ctypeslib datetime64 datetime_as_string datetime_data dtypes einsum_path emath
errstate f2py flexible float128 frompyfunc fromregex geomspace get_include getbufsize geterr geterrcall
histogram_bin_edges info insert is_busday isnat little_endian longdouble ma matrix matvec memmap
nanpercentile nanquantile ndenumerate nditer nested_iters object_ polyder polydiv polyint rec recarray
record sctypeDict setbufsize seterr seterrcall show_runtime spacing str_ strings test timedelta64 typecodes
unstack vecdot vecmat void""".split())
_NOT_IN_CUPY_LINALG = frozenset("diagonal matrix_norm multi_dot outer svdvals tensordot test trace vecdot "
                                "vector_norm".split())
_NOT_IN_CUPY_METHODS = frozenset("ctypes getfield resize setfield setflags to_device".split())

# ufunc methods CuPy implements (cupy/_core/_kernel.pyx); 'outer' works for every ufunc
_UFUNC_METHODS = {
    "at": {"add", "subtract", "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor"},
    "reduce": {"add", "multiply"},
    "accumulate": {"add", "multiply"},
    "reduceat": {"add"},
}

# keyword parameters of CuPy 14.2.0's Python-level functions (tests/cupy_sim_signatures.json, read from
# cupy-cuda12x 14.2.0 with inspect.signature): a keyword NumPy takes and CuPy does not is a TypeError
_SIGNATURES = json.loads((Path(__file__).with_name("cupy_sim_signatures.json")).read_text())


def _check_kwargs(name, kwargs):
    allowed = _SIGNATURES.get(name)
    if allowed is None:
        return
    for k in kwargs:
        if k not in allowed:
            raise TypeError(f"{name.rsplit('.', 1)[-1]}() got an unexpected keyword argument '{k}'")


_ATOMIC = frozenset("iILQefdFD")

_COMPARISONS = frozenset("greater greater_equal less less_equal equal not_equal".split())

# functions that take host data on purpose (explicit host-to-device copies)
_CONVERTERS = frozenset("array asarray asanyarray ascontiguousarray asfortranarray".split())

_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy "
             "array explicitly.")


def _host_error(x):
    return TypeError(f"Unsupported type {type(x)}")


def _unwrap(x, host_ok=False):
    """Inner NumPy data of (nested) sim arrays; host ndarrays are refused unless host_ok."""
    if type(x) is ndarray:
        return x._a
    if type(x) is np.ndarray:
        if not host_ok:
            raise _host_error(x)
        return x
    if type(x) in (list, tuple):
        return type(x)(_unwrap(v, host_ok) for v in x)
    return x


def _wrap(r):
    """Results as CuPy gives them: arrays stay on the device, NumPy scalars become 0-d arrays."""
    if type(r) is np.ndarray:
        return ndarray(r)
    if isinstance(r, np.generic):
        return ndarray(np.asarray(r))
    if type(r) is tuple:
        return tuple(_wrap(v) for v in r)
    if type(r) is list:
        return [_wrap(v) for v in r]
    return r


def _diagonal(a, offset=0, axis1=0, axis2=1):
    """CuPy's diagonal is a writable view (NumPy's is read-only)."""
    nd = a.ndim
    axis1, axis2 = axis1 % nd, axis2 % nd
    if offset >= 0:
        sub = a[(slice(None),) * axis2 + (slice(offset, None),)]
    else:
        sub = a[(slice(None),) * axis1 + (slice(-offset, None),)]
    n = max(min(sub.shape[axis1], sub.shape[axis2]), 0)
    keep = [i for i in range(nd) if i not in (axis1, axis2)]
    return np.lib.stride_tricks.as_strided(sub, tuple(sub.shape[i] for i in keep) + (n,),
                                           tuple(sub.strides[i] for i in keep) + (sub.strides[axis1] + sub.strides[axis2],),
                                           writeable=a.flags.writeable)


def _broadcast_to(array, shape, subok=False):
    """CuPy's broadcast_to is a writable view (NumPy's is read-only): torch writes into an expanded
    tensor (masked_fill_, index_put_), and CuPy lets the engine do it in place."""
    view = np.broadcast_to(array, shape, subok=subok)
    return np.lib.stride_tricks.as_strided(np.asarray(array), view.shape, view.strides,
                                           writeable=np.asarray(array).flags.writeable)


_VIEWS = {np.diagonal: _diagonal, np.broadcast_to: _broadcast_to}


def _as_strided(x, shape=None, strides=None):
    """cupy.lib.stride_tricks.as_strided (no writeable flag)."""
    if type(x) is not ndarray:
        raise TypeError(f"Unsupported type {type(x)}")
    return ndarray(np.lib.stride_tricks.as_strided(x._a, shape, strides))


class _MemoryPointer:
    __slots__ = ("ptr",)

    def __init__(self, ptr):
        self.ptr = ptr


class Device:
    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass


class ndarray(np.lib.mixins.NDArrayOperatorsMixin):
    """cupy.ndarray, simulated: NumPy data that refuses to mix with host arrays."""
    __slots__ = ("_a",)
    __array_priority__ = 100

    def __init__(self, a):
        if type(a) is not np.ndarray:
            raise TypeError(f"sim ndarray needs a numpy.ndarray, got {type(a)}")
        self._a = a

    # ---- the NumPy protocols, as CuPy implements them
    def __array__(self, dtype=None, copy=None):
        raise TypeError(_IMPLICIT)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = ufunc.__name__
        if name in _NOT_IN_CUPY:
            return NotImplemented
        if method != "__call__" and method != "outer":
            if method not in _UFUNC_METHODS:
                return NotImplemented
            if name not in _UFUNC_METHODS[method]:
                raise NotImplementedError(f"`cupy_{name}.{method}` is not supported yet")
        if name in _COMPARISONS:  # CuPy's workaround for numpy/numpy#12142: NumPy hands scalars over as 0-d
            inputs = tuple(x.item() if type(x) is np.ndarray and x.ndim == 0 else x for x in inputs)
        out = kwargs.get("out")
        for x in inputs + (tuple(out) if out else ()):
            if type(x) is ndarray or x is None:
                continue
            if type(x) is np.ndarray:
                raise _host_error(x)
            if not isinstance(x, (bool, int, float, complex, np.generic)):
                if method == "at" and isinstance(x, (tuple, list, slice, type(Ellipsis))):
                    continue  # an index
                return NotImplemented
        if method == "at" and inputs[0].dtype.char not in _ATOMIC:
            raise TypeError(f"`{name}.at` does not support {inputs[0].dtype}")
        args = [_unwrap(x, host_ok=(method == "at")) for x in inputs]
        if out:
            kwargs["out"] = tuple(_unwrap(o) for o in out)
        fn = ufunc if method == "__call__" else getattr(ufunc, method)
        r = fn(*args, **kwargs)
        if method == "at":
            return None
        if out:
            return out[0] if len(out) == 1 else out
        return _wrap(r)

    def __array_function__(self, func, types_, args, kwargs):
        mod = func.__module__ or "numpy"
        if mod == "numpy" and func.__name__ in _NOT_IN_CUPY:
            return NotImplemented
        if mod == "numpy.linalg" and func.__name__ in _NOT_IN_CUPY_LINALG:
            return NotImplemented
        for t in types_:
            if not issubclass(t, (ndarray, np.ndarray)):
                return NotImplemented
        _check_kwargs(("linalg." if mod == "numpy.linalg" else "") + func.__name__, kwargs)
        host_ok = func.__name__ in _CONVERTERS
        a = _unwrap(args, host_ok)
        kw = {k: _unwrap(v, host_ok) for k, v in kwargs.items()}
        out = kwargs.get("out")
        r = _VIEWS.get(func, func)(*a, **kw)
        if type(out) is ndarray:
            return out
        return _wrap(r)

    # ---- host transfers
    def get(self, stream=None, order="C", out=None, blocking=True):
        return np.array(self._a, order=order, copy=True)

    def set(self, arr, stream=None):
        if type(arr) is not np.ndarray:
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        self._a[...] = arr

    # ---- attributes CuPy has differently from NumPy
    @property
    def data(self):
        return _MemoryPointer(self._a.__array_interface__["data"][0])

    @property
    def device(self):
        return Device(0)

    @property
    def shape(self):
        return self._a.shape

    @shape.setter
    def shape(self, value):
        self._a.shape = value

    @property
    def dtype(self):
        return self._a.dtype

    @property
    def ndim(self):
        return self._a.ndim

    @property
    def size(self):
        return self._a.size

    @property
    def itemsize(self):
        return self._a.itemsize

    @property
    def nbytes(self):
        return self._a.nbytes

    @property
    def strides(self):
        return self._a.strides

    @property
    def flags(self):
        f = self._a.flags  # CuPy's Flags: no writeable (GPU arrays are never read-only)
        return types.SimpleNamespace(c_contiguous=f.c_contiguous, f_contiguous=f.f_contiguous, owndata=f.owndata)

    @property
    def T(self):
        return ndarray(self._a.T)

    @property
    def mT(self):
        return ndarray(self._a.mT)

    @property
    def base(self):
        b = self._a.base
        return ndarray(b) if type(b) is np.ndarray else None

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return ndarray(_diagonal(self._a, offset, axis1, axis2))

    def __getattr__(self, name):
        if name.startswith("_") or name in _NOT_IN_CUPY_METHODS:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
        attr = getattr(self._a, name)
        if not callable(attr):
            return _wrap(attr)

        def method(*args, **kwargs):
            out = kwargs.get("out")
            r = attr(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})
            if type(out) is ndarray:
                return out
            if name in ("tolist", "item", "tobytes"):
                return r
            return _wrap(r)
        method.__name__ = name
        return method

    # ---- indexing
    def __getitem__(self, key):
        return _wrap(self._a[_unwrap(key, host_ok=True)])

    def __setitem__(self, key, value):
        if type(value) is np.ndarray and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._a[_unwrap(key, host_ok=True)] = _unwrap(value, host_ok=True)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in builtins.range(self._a.shape[0]))

    # ---- conversions (CuPy copies to the host for these)
    def __bool__(self):
        return bool(self._a)

    def __int__(self):
        return int(self._a)

    def __float__(self):
        return float(self._a)

    def __complex__(self):
        return complex(self._a)

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec)

    def __copy__(self):
        return ndarray(self._a.copy())

    def __deepcopy__(self, memo):
        return ndarray(self._a.copy())

    def __reduce__(self):
        return (ndarray, (self._a,))


class _Ufunc:
    """cupy.<ufunc>: callable, with the methods CuPy implements for it."""

    def __init__(self, uf):
        self._uf = uf
        self.__name__ = uf.__name__
        self.nin, self.nout = uf.nin, uf.nout

    def __call__(self, *args, **kwargs):
        for x in args:
            if type(x) is np.ndarray:
                raise _host_error(x)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = _unwrap(out)
        r = self._uf(*_unwrap(args), **kwargs)
        return out if out is not None else _wrap(r)

    def _method(self, method):
        if self.__name__ not in _UFUNC_METHODS[method]:
            raise NotImplementedError(f"`cupy_{self.__name__}.{method}` is not supported yet")
        return getattr(self._uf, method)

    def at(self, a, indices, b=None):
        if type(a) is not ndarray:
            raise TypeError("cupy.ufunc.at needs a cupy.ndarray")
        if a.dtype.char not in _ATOMIC:  # CUDA has no atomic operation for these
            raise TypeError(f"`{self.__name__}.at` does not support {a.dtype} (CuPy's scatter ops take int32, "
                            "uint32, uint64, float16, float32, float64, complex64 and complex128)")
        if type(b) is np.ndarray:
            raise _host_error(b)
        fn = self._method("at")
        fn(a._a, _unwrap(indices, host_ok=True), *(() if b is None else (_unwrap(b),)))

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        return _wrap(self._method("reduce")(_unwrap(array), axis=axis, dtype=dtype, keepdims=keepdims))

    def accumulate(self, array, axis=0, dtype=None, out=None):
        return _wrap(self._method("accumulate")(_unwrap(array), axis=axis, dtype=dtype))

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        return _wrap(self._method("reduceat")(_unwrap(array), _unwrap(indices), axis=axis, dtype=dtype))

    def outer(self, A, B, **kwargs):
        return _wrap(self._uf.outer(_unwrap(A), _unwrap(B), **kwargs))


def _function(fn, name, qualified):
    host_ok = name in _CONVERTERS

    def call(*args, **kwargs):
        _check_kwargs(qualified, kwargs)
        out = kwargs.get("out")
        r = _VIEWS.get(fn, fn)(*_unwrap(args, host_ok), **{k: _unwrap(v, host_ok) for k, v in kwargs.items()})
        if type(out) is ndarray:
            return out
        return _wrap(r)
    call.__name__ = name
    return call


class _Namespace(types.ModuleType):
    """A module whose functions are NumPy's, wrapped to take and give sim arrays."""

    def __init__(self, name, source, missing):
        super().__init__(name)
        self._source = source
        self._missing = missing

    def __getattr__(self, name):
        if name.startswith("__") or name in self._missing:
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        value = getattr(self._source, name)
        if isinstance(value, np.ufunc):
            value = _Ufunc(value)
        elif isinstance(value, type) or not callable(value):
            pass  # dtypes, finfo/iinfo, constants
        else:
            value = _function(value, name, self.__name__[len("cupy."):] + "." + name if "." in self.__name__
                              else name)
        setattr(self, name, value)
        return value


class _Runtime:
    @staticmethod
    def getDeviceCount():
        return 1

    @staticmethod
    def getDevice():
        return 0

    @staticmethod
    def runtimeGetVersion():
        return 12080


class _Cuda(types.ModuleType):
    runtime = _Runtime()
    Device = Device

    @staticmethod
    def is_available():
        return True


class _Module(_Namespace):
    ndarray = ndarray
    cuda = _Cuda("cupy.cuda")

    def asnumpy(self, a, stream=None, order="C", out=None, blocking=True):
        if type(a) is ndarray:
            return a.get()
        return np.asarray(a, order=order)

    def get_array_module(self, *args):
        return self if any(type(a) is ndarray for a in args) else np

    def array(self, obj, dtype=None, copy=True, order="K", subok=False, ndmin=0):
        return ndarray(np.array(_unwrap(obj, True), dtype=dtype, copy=copy, order=order, ndmin=ndmin))

    def asarray(self, a, dtype=None, order=None):
        if type(a) is ndarray and (dtype is None or a.dtype == dtype):
            return a
        return ndarray(np.array(_unwrap(a, True), dtype=dtype, order=order or "K", copy=True))


_module = _Module("cupy", np, _NOT_IN_CUPY)
_module.linalg = _Namespace("cupy.linalg", np.linalg, _NOT_IN_CUPY_LINALG)
_module.fft = _Namespace("cupy.fft", np.fft, frozenset())
_module.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=_as_strided))
_module.diagonal = lambda a, offset=0, axis1=0, axis2=1: _module.asarray(a).diagonal(offset, axis1, axis2)


def module():
    """The simulated `cupy` module."""
    return _module


def install(device_module):
    """Make gradcli.engine.device.cupy() return the simulated CuPy; returns an undo function."""
    state = device_module._cuda_state
    saved = dict(state)
    state.clear()
    state["cupy"] = _module

    def undo():
        state.clear()
        state.update(saved)
    return undo
