"""torch.finfo and torch.iinfo: the limits of a dtype, with torch's attributes and reprs
(finfo(resolution=1e-06, min=-3.40282e+38, ..., dtype=float32))."""
from __future__ import annotations

import numpy as np

from . import dtypes, errors


class finfo:  # noqa: N801 - torch's name
    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):  # noqa: A002 - torch's parameter name
        dt = dtypes.get_default_dtype() if type is None else type
        if not isinstance(dt, dtypes.dtype) or not dt.is_floating_point:
            raise errors.type_error("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                                    "'torch.finfo'")
        info = np.finfo(dt.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = float(info.resolution)
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
        if not isinstance(type, dtypes.dtype) or type.is_floating_point or type is dtypes.bool_:
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
