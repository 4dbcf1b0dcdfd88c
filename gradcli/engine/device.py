"""The device layer: which array library holds a tensor's data. CPU is NumPy; CUDA is CuPy,
imported only when a cuda tensor is first asked for (never on the CPU path)."""
from __future__ import annotations

import builtins

import numpy as np

from . import errors


def _arg_type(value):
    """How torch's argument parser names the type of a value it refused (`list of [int]`)."""
    name = builtins.type(value).__name__
    if isinstance(value, (list, tuple)):
        return f"{name} of [{', '.join(dict.fromkeys(builtins.type(v).__name__ for v in value))}]"
    return name


# the device types torch.device accepts (c10's parser); gradcli's tensors live on cpu or cuda only
_TYPES = frozenset("cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu mtia "
                   "privateuseone".split())


class device:
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool) and index is None:
            # torch.device(1): that index of the current accelerator, which a CPU-only build has not
            if not cuda_is_available():
                from .autograd_graph import NO_ACCELERATOR  # noqa: PLC0415 - (autograd_graph imports this module)
                raise errors.runtime(NO_ACCELERATOR)
            type, index = "cuda", type
        elif not isinstance(type, str) and not (isinstance(type, int) and not isinstance(type, bool)):
            # a script's object whose __eq__ answers True was 'cuda' (its `in` test and `== "cuda"`)
            raise errors.type_error(
                f"device() received an invalid combination of arguments - got ({_arg_type(type)}), but expected "
                f"one of:\n * (torch.device device)\n      didn't match because some of the arguments have invalid "
                f"types: (!{_arg_type(type)}!)\n * (str type, int index = -1)\n")
        elif isinstance(type, str) and ":" in type:
            type, _, idx = type.partition(":")
            if not (idx.isascii() and idx.isdigit()) or (len(idx) > 1 and idx[0] == "0"):
                raise errors.runtime(f"Invalid device string: '{type}:{idx}'")
            if len(idx) > 10 or int(idx) > 2 ** 31 - 1:  # std::stoi (and no int() of thousands of digits)
                raise errors.runtime(f"Could not parse device index '{idx}' in device string '{type}:{idx}'")
            index = _device_index(int(idx))
        elif index is not None:
            if isinstance(index, int) and not -2 ** 63 <= index < 2 ** 63:
                raise errors.value("Overflow when unpacking long long")
            if isinstance(index, int) and index < 0:
                raise errors.runtime("Device index must not be negative")
            index = _device_index(index)
        if type not in _TYPES:
            raise errors.runtime(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                f"lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}")
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index & 0xFFFF})"  # torch prints it as uint16_t

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):  # a device equals devices only: torch.device('cpu') == 'cpu' is False, as in torch
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):  # `with torch.device(d):` makes d the default device of constructors inside
        _ENTERED.append(DEFAULT_DEVICE[0])
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        DEFAULT_DEVICE[0] = _ENTERED.pop()
        return False


def _device_index(n):
    """c10::DeviceIndex is an int8_t: the index wraps to [-128, 127], and -1 is "no index"."""
    if not isinstance(n, int):
        return n
    n = (n + 128) % 256 - 128
    return None if n == -1 else n


CPU = device("cpu")
CUDA0 = device("cuda", 0)
_cuda_state = {}
DEFAULT_DEVICE = [None]  # torch.set_default_device: None is cpu
_ENTERED = []  # the default devices that `with torch.device(...)` blocks replaced, innermost last


class CudaUnavailable(Exception):
    """Asked for cuda where CuPy or a GPU is missing: a usage problem, not a script error."""


INSTALL_HINT = "pip install 'gradcli[cuda]'"


def cupy():
    """CuPy, imported on first use; CudaUnavailable says what is missing and how to install it."""
    if "cupy" not in _cuda_state:
        try:
            import cupy as cp  # noqa: PLC0415 - optional and heavy, so only here
        except Exception as exc:  # ImportError, or a broken install (missing CUDA libraries)
            _cuda_state["cupy"] = None
            why = "" if isinstance(exc, ModuleNotFoundError) else f" (importing it failed: {exc})"
            _cuda_state["why"] = (f"CUDA was requested but CuPy is not installed{why}. Install the GPU extra: "
                                  f"{INSTALL_HINT}")
        else:
            try:
                n = cp.cuda.runtime.getDeviceCount()
                err = None
            except Exception as exc:  # CUDARuntimeError: no driver, no device
                n, err = 0, exc
            if n == 0:
                _cuda_state["cupy"] = None
                detail = f": {err}" if err is not None else ""
                _cuda_state["why"] = ("CUDA was requested but no usable NVIDIA GPU was found (CuPy is installed"
                                      f"{detail}). Check the NVIDIA driver with nvidia-smi, and that the CuPy "
                                      f"package matches its CUDA version ({INSTALL_HINT} installs the one "
                                      "for CUDA 12).")
            else:
                _cuda_state["cupy"] = cp
    if _cuda_state["cupy"] is None:
        raise CudaUnavailable(_cuda_state["why"])
    return _cuda_state["cupy"]


def cuda_is_available():
    try:
        cupy()
        return True
    except CudaUnavailable:
        return False


def cuda_device_count():
    return int(cupy().cuda.runtime.getDeviceCount()) if cuda_is_available() else 0


def canonical(dev):
    """A device object from a str/device/int/None; cuda gets index 0 and checks CuPy is usable."""
    if dev is None:
        return CPU
    if dev is CPU or dev is CUDA0:
        if dev is CUDA0:
            cupy()
        return dev
    if isinstance(dev, int) and not isinstance(dev, bool):
        dev = device("cuda", dev)
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cuda":
        cupy()
        if d.index not in (None, 0):
            if d.index >= cuda_device_count():
                raise errors.runtime("CUDA error: invalid device ordinal\nCUDA kernel errors might be "
                                     "asynchronously reported at some other API call, so the stacktrace below "
                                     "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1"
                                     "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
            raise errors.runtime(f"gradcli runs on one GPU, cuda:0 (asked for {d})")
        return CUDA0
    if d.type not in ("cpu", "cuda", "meta"):  # torch.device("mps") prints and compares, as in a CPU build
        raise errors.runtime(f"PyTorch is not linked with support for {d.type} devices")
    if d.type == "meta":  # torch.device("meta") prints and compares; no tensor lives there
        raise errors.runtime("gradcli has no 'meta' device (tensors with a shape and no data): its tensors are on "
                             "cpu or cuda", hint="create the tensor on the cpu; its .shape is the same")
    return CPU if d.type == "cpu" else d


# ---------------------------------------------------------------------------- default device

def set_default_device(dev):
    """torch.set_default_device: the device of constructors given no device= (checked when used)."""
    if dev is not None and not isinstance(dev, (str, device, int)):
        raise errors.type_error(f"set_default_device(): argument 'device' must be torch.device, not "
                                f"{type(dev).__name__}")
    if isinstance(dev, str):
        device(dev)  # a bad string fails now, as in torch
    DEFAULT_DEVICE[0] = None if dev is None or str(dev) == "cpu" else dev


def leave_device_blocks():
    """The end of a run: `with torch.device(...)` blocks it did not leave (a limit, a suspended generator)."""
    _ENTERED.clear()


def get_default_device():
    """torch.get_default_device()."""
    return CPU if DEFAULT_DEVICE[0] is None else canonical(DEFAULT_DEVICE[0])


# ---------------------------------------------------------------------------- arrays

def is_device_array(a):
    """Is `a` a GPU (CuPy) array? Never imports CuPy."""
    cp = _cuda_state.get("cupy")
    return cp is not None and isinstance(a, cp.ndarray)


def xp_of(array):
    """The array module (numpy or cupy) that owns this array (numpy for scalars and lists)."""
    if type(array) is np.ndarray:
        return np
    cp = _cuda_state.get("cupy")
    return cp if cp is not None and isinstance(array, cp.ndarray) else np


def asarray(a, dtype=None):
    """np.asarray that leaves a GPU array on the GPU (CuPy refuses implicit copies to the host):
    for results that may be a NumPy scalar, a host array or a device array."""
    if type(a) is np.ndarray:
        return a if dtype is None or a.dtype == dtype else a.astype(dtype)
    cp = _cuda_state.get("cupy")
    if cp is not None and isinstance(a, cp.ndarray):
        return a if dtype is None or a.dtype == dtype else a.astype(dtype)
    return np.asarray(a, dtype)


def is_host(array):
    """Not a GPU array: NumPy data, or a Python number or list."""
    return not is_device_array(array)


def to_device(array, dev):
    if dev.type == "cuda":
        return cupy().asarray(array)
    return host(array)


def host(array):
    """The array as a NumPy array (a copy from the GPU; the array itself on the CPU)."""
    if type(array) is np.ndarray:
        return array
    if is_device_array(array):
        return cupy().asnumpy(array)
    return np.asarray(array)


def like(ref, data, dtype=None):
    """`data` (host values: an array, a list or a number) as an array on ref's device: np.asarray
    for CPU arrays, a copy to the GPU for CuPy ones (a GPU array stays as it is)."""
    if type(ref) is np.ndarray or not is_device_array(ref):
        return np.asarray(host(data), dtype)
    if is_device_array(data):
        return data if dtype is None or data.dtype == dtype else data.astype(dtype)
    return cupy().asarray(np.asarray(data, dtype))


def device_of(array):
    if type(array) is np.ndarray or not is_device_array(array):
        return CPU
    return CUDA0


def overlaps(a):
    """Does a (written-to) array repeat an element: a stride-0 dimension of more than one element (an
    expanded view)? torch refuses most in-place ops there ("more than one element of the written-to
    tensor refers to a single memory location")."""
    return a.size > 1 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape))


def write_alias(a):
    """a writable array on a's memory, for the writes torch allows into an expanded tensor (fill_,
    zero_, masked_fill_, index_put_, a setitem whose destination repeats no element): NumPy marks
    broadcast views read-only, so the alias is made on the buffer of the array they view. None when
    that memory is read-only itself (an array torch would not write either)."""
    if type(a) is not np.ndarray or a.flags.writeable:
        return a
    root = a
    while True:  # the arrays it views (as_strided's go through a holder object with a .base)
        base = root.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
        if not isinstance(base, np.ndarray):
            break
        root = base
    if not root.flags.writeable:
        return None
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(a.shape, a.dtype, buffer=root, offset=offset, strides=a.strides)


def writeable(a):
    """May a be written in place? NumPy marks broadcast views read-only; CuPy has no such flag, so an
    array whose stride-0 dimension repeats an element (an expanded view) counts as read-only."""
    if type(a) is np.ndarray:
        return a.flags.writeable
    return not any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape))


def on_host(fn, *arrays):
    """fn (a NumPy-only kernel) applied to arrays of either device: GPU arrays make a round trip
    through the host, and the result goes back to the GPU."""
    if not any(is_device_array(a) for a in arrays):
        return fn(*arrays)
    r = fn(*(host(a) for a in arrays))
    cp = cupy()
    return tuple(cp.asarray(x) for x in r) if isinstance(r, tuple) else cp.asarray(r)


def scatter_add(target, key, values):
    """target[key] += values with repeated indices adding up (np.add.at); on CuPy, cupy.add.at
    (atomic adds), except for the dtypes CUDA has no atomicAdd for (int64, int16, int8, uint8, bool),
    which make a round trip through the host. `key` may hold host index arrays."""
    return ufunc_at("add", target, key, values)


_ATOMIC = frozenset("iILQefdFD")  # the dtypes cupy.add.at / maximum.at / minimum.at take (int32, uint32,
                                   # uint64, float16/32/64, complex64/128)


def ufunc_at(ufunc_name, target, key, values):
    """np.<ufunc>.at for add/subtract/maximum/minimum on either device (CuPy has these .at)."""
    if is_host(target):
        getattr(np, ufunc_name).at(target, key, values)
        return target
    cp = cupy()
    if target.dtype.char not in _ATOMIC:
        t = host(target)
        getattr(np, ufunc_name).at(t, _key_on_host(key), host(values))
        target[...] = cp.asarray(t)
        return target
    if is_host(values):
        values = cp.asarray(values) if np.ndim(values) else np.asarray(values, target.dtype)[()]
    getattr(cp, ufunc_name).at(target, _key_on_device(key, cp), values)
    return target


def _key_on_host(key):
    if isinstance(key, tuple):
        return tuple(_key_on_host(k) for k in key)
    return host(key) if is_device_array(key) else key


def _key_on_device(key, cp):
    if isinstance(key, tuple):
        return tuple(_key_on_device(k, cp) for k in key)
    if isinstance(key, (np.ndarray, list)):
        return cp.asarray(key)
    return key


# ---------------------------------------------------------------------------- same-device checks

def _first_non_cpu(devs):
    for d in devs:
        if d.type != "cpu":
            return d
    return devs[0]


def check_same(tensors):
    """TensorIterator's check (elementwise ops): CPU 0-d tensors ride along with cuda ones, any other
    mix fails with PyTorch's message, naming the first non-CPU device first."""
    devs = [t.device for t in tensors]
    first = devs[0]
    if all(d == first for d in devs):
        return first
    common = _first_non_cpu(devs)
    for t, d in zip(tensors, devs):
        if d != common and not (d.type == "cpu" and t._data.ndim == 0):
            raise errors.runtime("Expected all tensors to be on the same device, but found at least two devices, "
                                 f"{common} and {d}!", hint="device")
    return common


def check_args(method, named):
    """The device check of PyTorch's generated wrappers (mm, addmm, cat, ...): the first tensor's
    device is the common one; `named` is [(argument name, tensor or list of tensors)]."""
    common = None
    for name, ts in named:
        for t in (ts if isinstance(ts, (list, tuple)) else (ts,)):
            if t is None:
                continue
            d = t.device
            if common is None:
                common = d
            elif d != common:
                raise errors.runtime(f"Expected all tensors to be on the same device, but got {name} is on {d}, "
                                     f"different from other tensors on {common} (when checking argument in method "
                                     f"wrapper_{'CUDA' if 'cuda' in (d.type, common.type) else 'CPU'}_{method})",
                                     hint="device")
    return common


device.__module__ = "torch"  # <class 'torch.device'>, as PyTorch prints it
device.__name__ = "torch.device"  # as Python's messages name it: 'torch.device' object has no attribute
