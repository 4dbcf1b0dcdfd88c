"""dtype and device conversion: to(), float()/double()/..., type_as, cpu()/cuda()."""
from __future__ import annotations

import builtins

from .. import dtypes, errors, factory, layouts
from ..device import canonical, to_device
from ..function import Function, record
from . import replays, words
from .registry import Sample, op
from ..tensor import Tensor, wrap


class ToCopyBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.same_values("a copy to another dtype or device"))
    replay = staticmethod(replays.copy)

    def backward(self, g):
        k = self._kw
        return (_convert(g, k["dtype"], k["device"], False),)


def _convert(t, dtype, dev, copy, memory_format=None):
    data = t._data
    if dev is not None and dev != t.device:
        data = to_device(data, dev)
    if dtype is not None and dtype is not t.dtype:
        data = layouts.copy_as(data, memory_format, dtype.np)
    elif copy or memory_format is not None or data is t._data:
        data = layouts.copy_as(data, memory_format) if copy or memory_format is not None else data
    out = wrap(data, dtype or t.dtype)
    return record(ToCopyBackward0, (t,), out, {"dtype": t.dtype, "device": t.device})


def parse_to_args(args, kwargs):
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    memory_format = kwargs.pop("memory_format", None)  # (its type checked by the parser's signatures)
    if kwargs:
        raise errors.type_error(f"to() received an invalid combination of arguments - got unexpected keyword "
                                f"argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, dev = a.dtype, a.device
        elif isinstance(a, builtins.bool):
            continue
        elif a is not None:
            dev = a
    return dtype, (canonical(dev) if dev is not None else None), copy, memory_format


def to(input, *args, **kwargs):
    dtype, dev, copy, fmt = parse_to_args(args, dict(kwargs))
    same_dtype = dtype is None or dtype is input.dtype
    same_dev = dev is None or dev == input.device
    if fmt is layouts.preserve_format:
        fmt = None
    if same_dtype and same_dev and not copy and (fmt is None or layouts.suggest_format(input._data) is fmt):
        return input  # torch's to_will_alias: x.T.to(memory_format=torch.contiguous_format) is x.T itself
    return _convert(input, dtype, dev if not same_dev else None, copy, fmt)


def _caster(d):
    def cast(input, memory_format=None):
        return to(input, d)
    cast.__name__ = d.name
    return cast


float = _caster(dtypes.float32)
double = _caster(dtypes.float64)
half = _caster(dtypes.float16)
long = _caster(dtypes.int64)
int = _caster(dtypes.int32)
short = _caster(dtypes.int16)
char = _caster(dtypes.int8)
byte = _caster(dtypes.uint8)
bool = _caster(dtypes.bool_)


def type_as(input, other):
    return to(input, other.dtype)


def cpu(input, memory_format=None):
    return to(input, "cpu")


def cuda(input, device=None, non_blocking=False, memory_format=None):
    return to(input, canonical("cuda" if device is None else device))


# ---------------------------------------------------------------------------- declarations

_U = "unary"
_ROUND_TRIP = {"eps": 1e-3, "atol": 1e-4, "rtol": 1e-2, "second": False}  # through float32: a coarser step
_NO = "an integer or bool result"
# One declaration per op (registry.py): Tensor methods only (torch has no torch.float, torch.to, ...)
def _renamed(err, kind):
    """The factory's argument error under the method's name, as torch's parser of x.new_zeros names it."""
    text = str(err)
    if not text.startswith(kind + "(): "):
        return err
    return errors.type_error("new_" + text)


def _new(kind):
    """x.new_zeros(...) & co: the constructor with x's dtype and device unless given (layout=, pin_memory=:
    accepted, as torch's CPU tensors have but one of each)."""
    make = getattr(factory, kind)

    def new(self, *args, dtype=None, device=None, requires_grad=False, **kw):
        if not args and "size" not in kw and "data" not in kw:
            raise errors.missing_arguments("new_" + kind, "data" if kind == "tensor" else "size")
        if kind == "tensor" and "data" in kw:
            args = (kw.pop("data"),)
        sized = {"size": kw["size"]} if "size" in kw and kind != "tensor" else {}
        try:
            return make(*args, **sized, dtype=dtype or self.dtype, device=device or self.device,
                        requires_grad=requires_grad)
        except TypeError as e:
            raise _renamed(e, kind) from None
    new.__name__ = new.__qualname__ = "new_" + kind
    return new


new_tensor, new_zeros, new_ones, new_empty = (_new(kind) for kind in ("tensor", "zeros", "ones", "empty"))


def new_full(self, size=None, fill_value=None, *, dtype=None, device=None, requires_grad=False, **kw):
    missing = [name for name, v in (("size", size), ("fill_value", fill_value)) if v is None]
    if missing:
        raise errors.missing_arguments("new_full", *missing)
    try:
        return factory.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                            requires_grad=requires_grad)
    except TypeError as e:
        raise _renamed(e, "full") from None


def detach(input):  # torch.detach (Tensor.detach is the Tensor's own)
    return input.detach()


def detach_(input):
    return input.detach_()


def numel(input):
    return input.numel()


_NEW = "a constructor: a new leaf"
OPS = [
    op("to", to, ToCopyBackward0, torch=False,
       sample=Sample(_U, call=lambda torch, x: x.to(torch.float32).to(dtype=torch.float64), **_ROUND_TRIP)),
    op("float", float, ToCopyBackward0, torch=False,
       sample=Sample(_U, call=lambda torch, x: x.float().double(), **_ROUND_TRIP)),
    op("half", half, ToCopyBackward0, torch=False, sample=Sample(
        _U, call=lambda torch, x: x.half().double(), eps=1e-2, atol=1e-2, rtol=2e-2, second=False)),
    op("double", double, ToCopyBackward0, torch=False,
       sample=Sample(_U, call=lambda torch, x: x.float().double() * 1, **_ROUND_TRIP)),
    op("type_as", type_as, ToCopyBackward0, torch=False, sample=Sample(
        _U, call=lambda torch, x: x.type_as(torch.zeros(1)).type_as(torch.zeros(1, dtype=torch.float64)),
        **_ROUND_TRIP)),
    op("cpu", cpu, ToCopyBackward0, torch=False, sample=Sample(_U, call=lambda torch, x: x.cpu() * 1)),
    op("cuda", cuda, ToCopyBackward0, torch=False, no_grad="needs a GPU; the cuda copy is the same ToCopyBackward0 as to's"),
    op("long", long, torch=False, no_grad=_NO), op("int", int, torch=False, no_grad=_NO),
    op("short", short, torch=False, no_grad=_NO), op("char", char, torch=False, no_grad=_NO),
    op("byte", byte, torch=False, no_grad=_NO), op("bool", bool, torch=False, no_grad=_NO),
    *(op(f.__name__, f, torch=False, no_grad=_NEW) for f in (new_tensor, new_zeros, new_ones, new_empty, new_full)),
    op("detach", detach, method=False, no_grad="its result is outside the graph"),
    op("detach_", detach_, method=False, no_grad="takes x out of the graph"),
    op("numel", numel, method=False, no_grad="an int"),
]
