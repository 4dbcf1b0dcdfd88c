"""torch.finfo and torch.iinfo: the limits of a dtype, with torch's attributes and reprs
(finfo(resolution=1e-06, min=-3.40282e+38, ..., dtype=float32))."""
from __future__ import annotations

import numpy as np

from . import dtypes, errors


def _dtype_arg(name, value):
    """torch's parser for finfo/iinfo's `type`: a torch.dtype, or a Python type (int: int64, float: float64,
    bool; complex: complex128, whose limits are float64's), else its TypeError."""
    if isinstance(value, dtypes.dtype):
        return value
    found = {int: dtypes.int64, float: dtypes.float64, complex: dtypes.float64, bool: dtypes.bool_}.get(value) if isinstance(value, type) \
        else None
    if found is None:
        from .argcheck import typename  # noqa: PLC0415 - only for the error
        raise errors.type_error(f"{name}(): argument 'type' (position 1) must be torch.dtype, not {typename(value)}")
    return found


_DEFAULT = object()  # finfo() without an argument (finfo(None) is torch's TypeError)


class finfo:  # noqa: N801 - torch's name
    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=_DEFAULT):  # noqa: A002 - torch's parameter name
        dt = dtypes.get_default_dtype() if type is _DEFAULT else _dtype_arg("finfo", type)
        if not dt.is_floating_point:
            raise errors.type_error("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                                    "'torch.finfo'")
        info = np.finfo(dt.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)  # c10: a double (float16: 0.001, not half(0.001))
        self.dtype = dt.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:  # noqa: N801 - torch's name
    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type):  # noqa: A002 - torch's parameter name
        type = _dtype_arg("iinfo", type)  # noqa: A001
        if type.is_floating_point:
            raise errors.type_error("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                                    "'torch.iinfo'")
        if type is dtypes.bool_:
            raise errors.type_error(f"{type} is not supported by torch.iinfo")
        info = np.iinfo(type.np)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"

    __str__ = __repr__


finfo.__module__ = iinfo.__module__ = "torch"
