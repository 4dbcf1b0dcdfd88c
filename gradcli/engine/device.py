"""The device layer: which array library holds a tensor's data. CPU is NumPy; CUDA is CuPy,
imported only when a cuda tensor is first asked for (never on the CPU path)."""
from __future__ import annotations

import numpy as np

from . import errors


class device:
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, str) and ":" in type:
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise errors.runtime(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda", "meta"):
            raise errors.runtime(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                f"lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}")
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))


CPU = device("cpu")
_cuda_state = {}


class CudaUnavailable(Exception):
    """Asked for cuda where CuPy or a GPU is missing: a usage problem, not a script error."""


def cupy():
    """CuPy, imported on first use; CudaUnavailable says what is missing and how to install it."""
    if "cupy" not in _cuda_state:
        try:
            import cupy as cp  # noqa: PLC0415 - optional and heavy, so only here
        except Exception:
            _cuda_state["cupy"] = None
            _cuda_state["why"] = ("CUDA was requested but CuPy is not installed. Install the GPU extra: "
                                  "pip install 'gradcli[cuda]'")
        else:
            try:
                n = cp.cuda.runtime.getDeviceCount()
            except Exception:
                n = 0
            if n == 0:
                _cuda_state["cupy"] = None
                _cuda_state["why"] = "CUDA was requested but no usable NVIDIA GPU was found (CuPy is installed)."
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
    return cupy().cuda.runtime.getDeviceCount() if cuda_is_available() else 0


def canonical(dev):
    """A device object from a str/device/None; cuda gets index 0 and checks CuPy is usable."""
    if dev is None:
        return CPU
    if isinstance(dev, int):
        dev = device("cuda", dev)
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cuda":
        cupy()
        return device("cuda", d.index or 0)
    return CPU if d.type == "cpu" else d


def xp_of(array):
    """The array module (numpy or cupy) that owns this array."""
    if type(array) is np.ndarray or isinstance(array, np.generic):
        return np
    return cupy()


def to_device(array, dev):
    if dev.type == "cuda":
        return cupy().asarray(array)
    if type(array) is np.ndarray:
        return array
    if isinstance(array, np.generic):
        return np.asarray(array)
    return cupy().asnumpy(array)


def device_of(array):
    if type(array) is np.ndarray:
        return CPU
    return device("cuda", 0)


device.__module__ = "torch"  # <class 'torch.device'>, as PyTorch prints it
