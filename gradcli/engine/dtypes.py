"""PyTorch dtypes and PyTorch's type-promotion rules (not NumPy's).

torch promotes in three priority tiers: tensors with dimensions, zero-dim tensors, and
Python scalars ("wrapped numbers"). A lower tier only matters when it brings a higher
category (bool < integer < floating): `tensor([1, 2]) * 2.5` is float32, `int64 + float64 0-dim`
is float64, `float32 + float64 0-dim` stays float32.
"""
from __future__ import annotations

import numpy as np

BOOL, INT, FLOAT = 0, 1, 2


class dtype:
    __slots__ = ("name", "np", "category", "rank", "itemsize", "is_signed", "legacy")

    def __init__(self, name, np_dtype, category, rank, legacy):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.rank = rank
        self.itemsize = self.np.itemsize
        self.is_signed = name not in ("bool", "uint8")
        self.legacy = legacy  # the old tensor-type name used in some error messages

    @property
    def is_floating_point(self):
        return self.category == FLOAT

    @property
    def is_complex(self):
        return False

    def to_real(self):
        return self

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__

    def __reduce__(self):
        return (_by_name, (self.name,))


bool_ = dtype("bool", np.bool_, BOOL, 0, "BoolTensor")
uint8 = dtype("uint8", np.uint8, INT, 1, "ByteTensor")
int8 = dtype("int8", np.int8, INT, 1, "CharTensor")
int16 = dtype("int16", np.int16, INT, 2, "ShortTensor")
int32 = dtype("int32", np.int32, INT, 3, "IntTensor")
int64 = dtype("int64", np.int64, INT, 4, "LongTensor")
float16 = dtype("float16", np.float16, FLOAT, 5, "HalfTensor")
float32 = dtype("float32", np.float32, FLOAT, 6, "FloatTensor")
float64 = dtype("float64", np.float64, FLOAT, 7, "DoubleTensor")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_BY_NAME = {d.name: d for d in ALL}
_BY_NP = {d.np: d for d in ALL}
def _by_name(name):
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype):
    """The torch dtype for a NumPy dtype; TypeError as torch.from_numpy words it."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, "
            "uint8, and bool."
        ) from None


class _Defaults:
    __slots__ = ("float",)

    def __init__(self):
        self.float = float32


defaults = _Defaults()


def get_default_dtype():
    return defaults.float


def set_default_dtype(d):
    if not isinstance(d, dtype) or d.category != FLOAT:
        raise TypeError("only floating-point types are supported as the default type")
    defaults.float = d


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types."""
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    if {a.name, b.name} == {"uint8", "int8"}:
        return int16
    return a if a.rank >= b.rank else b


_C_NAMES = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
            "float16": "c10::Half", "float32": "float"}


_SCALAR_INT_LOW, _SCALAR_INT_END = -(1 << 63), 1 << 64


def scalar_int(v):
    """A Python int as torch's parser unpacks a Scalar argument (THPUtils_unpack...: int64, from 2**63 on
    uint64): OverflowError past 64 bits (`x + 2**64`, `x.clamp(max=2**70)`, `torch.full((2,), 2**70)`).
    The one check of the engine's paths that take a Python int as a number: result_type's weak scalars,
    elementwise_common's operands (cast_int, _scalar_array), checked_scalar."""
    if v >= _SCALAR_INT_END:
        raise OverflowError("int too big to convert")
    if v < _SCALAR_INT_LOW:
        raise OverflowError("can't convert negative int to unsigned")
    return v


def unpack_long(v):
    """A Python int as torch's THPUtils_unpackLong reads an int64_t (a tensor's value, x[k] = v): a
    ValueError outside int64."""
    if not _SCALAR_INT_LOW <= v < -_SCALAR_INT_LOW:
        from . import errors  # noqa: PLC0415
        raise errors.value("Overflow when unpacking long long")
    return v


def checked_scalar(value, d: dtype):
    """A Python number as c10's checked_convert puts it into a tensor of dtype d (fill_, full,
    masked_fill, index_fill, x[k] = v on integers): RuntimeError where it does not fit (nan or inf into
    an integer, 300 into int8, 1e10 into float16; -1 into uint8 wraps to 255), else the value to store."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, int):
        scalar_int(value)
    if d.name in ("bool", "float64"):
        return value
    if d.category == INT:
        info = np.iinfo(d.np)
        if isinstance(value, float):
            bad = value != value or not info.min <= value <= info.max
        elif d.is_signed:
            bad = not info.min <= value <= info.max
        else:
            bad = value > info.max or (value < 0 and -value > info.max)
        if bad:
            from . import errors  # noqa: PLC0415
            raise errors.runtime(f"value cannot be converted to type {_C_NAMES[d.name]} without overflow")
        v = int(value)
        return v + (1 << (8 * d.itemsize)) if v < 0 and not d.is_signed else v
    if value == value and abs(value) != float("inf") and abs(value) > float(np.finfo(d.np).max):
        from . import errors  # noqa: PLC0415
        raise errors.runtime(f"value cannot be converted to type {_C_NAMES[d.name]} without overflow")
    return value


def scalar_dtype(value) -> dtype:
    """The dtype a Python scalar stands for when it is wrapped into a tensor."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    return defaults.float


def _combine(higher, lower):
    """c10's combine_categories: a lower tier only counts when it lifts the category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == FLOAT:
        return higher
    if higher is bool_ or lower.category == FLOAT:
        return promote_types(higher, lower)
    return higher


def result_type(operands) -> dtype:
    """torch.result_type over tensors and Python scalars (anything with `.dtype`/`.ndim` is a tensor)."""
    dim = zero = wrapped = None
    for x in operands:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype):
            if x.ndim:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            if isinstance(x, bool):
                s = bool_
            elif isinstance(x, int):
                s = int64
                scalar_int(x)
            else:
                s = FLOAT_SCALAR  # resolved to the default dtype below
            wrapped = s if wrapped is None else (s if s.category > wrapped.category else wrapped)
    if wrapped is FLOAT_SCALAR:
        wrapped = defaults.float
    return _combine(dim, _combine(zero, wrapped))


FLOAT_SCALAR = dtype("float_scalar", np.float64, FLOAT, 7, "")


dtype.__module__ = "torch"  # <class 'torch.dtype'>, as PyTorch prints it
dtype.__name__ = "torch.dtype"  # as Python's messages name it: 'torch.dtype' object is not callable


class TorchConstant:
    """One of torch's named constants (a layout, a memory format): printed as torch.<name>."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__


class layout(TorchConstant):
    """torch.layout: every gradcli tensor is torch.strided (Tensor.layout)."""
    __slots__ = ()

    def __reduce__(self):
        return (_layout_by_name, (self.name,))


strided = layout("strided")
sparse_coo = layout("sparse_coo")
LAYOUTS = {"strided": strided, "sparse_coo": sparse_coo}


def _layout_by_name(name):
    return LAYOUTS[name]


layout.__module__ = "torch"
layout.__name__ = "torch.layout"


def sealed(cls):
    """torch's dtype and layout objects are a fixed set (`torch.dtype()` is a TypeError): once this
    module made its instances, calling the class refuses (a script could otherwise build a dtype
    over any NumPy type, e.g. object arrays)."""
    def __new__(_cls, *args, **kwargs):  # noqa: N807
        raise TypeError(f"cannot create '{cls.__name__}' instances")
    cls.__new__ = staticmethod(__new__)


sealed(dtype)
sealed(layout)
