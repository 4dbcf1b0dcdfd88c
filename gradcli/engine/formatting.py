"""Tensor printing, a faithful port of PyTorch 2.13's ``torch/_tensor_str.py``.

Pure formatting on NumPy arrays: no engine imports.  ``format_tensor`` returns
exactly what ``repr(tensor)`` / ``str(tensor)`` prints in PyTorch for a plain,
strided, dense tensor (the sparse, quantized, nested, meta and functorch
branches of the original have no counterpart here).

The comments "torch:" name the function of the original each piece mirrors.
All number formatting goes through Python's ``format`` on Python floats/ints,
as PyTorch does (``Tensor.__format__`` formats ``tensor.item()``).
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Iterator

import numpy as np

from ..records import record

__all__ = [
    "format_tensor",
    "set_printoptions",
    "get_printoptions",
    "printoptions",
    "dtype_repr",
    "device_repr",
    "size_repr",
]


# ---------------------------------------------------------------------------
# print options (torch: __PrinterOptions, set_printoptions, get_printoptions)
# ---------------------------------------------------------------------------


@record  # a dataclass, made for less start-up time (gradcli/records.py)
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
) -> None:
    """Same semantics as ``torch.set_printoptions``.

    Like PyTorch, ``sci_mode`` is always assigned (so any call without it resets
    it to ``None``), and ``profile`` is applied before the explicit options.
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
        elif profile == "short":
            PRINT_OPTS.precision = 2
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 2
            PRINT_OPTS.linewidth = 80
        elif profile == "full":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = math.inf
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80

    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as a dict that can be passed to ``set_printoptions``. torch's
    ``dataclasses.asdict`` deep-copies the values; a script's value here may be one of its functions
    (``sci_mode=f``), whose deep copy would be a copy of the run's interpreter state: copied shallowly."""
    return {name: getattr(PRINT_OPTS, name) for name in PRINT_OPTS._fields}


@contextlib.contextmanager
def printoptions(**kwargs) -> Iterator[None]:
    """Temporarily change the print options (torch: ``printoptions``)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------------------
# dtype / device / size reprs
# ---------------------------------------------------------------------------

_DTYPE_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "long": "int64",
    "int": "int32",
    "short": "int16",
    "cfloat": "complex64",
    "cdouble": "complex128",
    "chalf": "complex32",
}

_FLOAT_NAMES = {
    "float16", "bfloat16", "float32", "float64",
    "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz",
    "float8_e8m0fnu",
}
_COMPLEX_NAMES = {"complex32", "complex64", "complex128"}


def _canon_dtype(name: str) -> str:
    name = str(name)
    if name.startswith("torch."):
        name = name[len("torch."):]
    return _DTYPE_ALIASES.get(name, name)


def dtype_repr(dtype_name: str) -> str:
    """``str(torch.<dtype>)``, e.g. ``'torch.int32'``."""
    return "torch." + _canon_dtype(dtype_name)


def device_repr(device: str) -> str:
    """``str(tensor.device)``: a tensor on an indexed backend always has an index."""
    device = str(device)
    if device in ("cuda", "xpu", "mps", "mtia"):
        return device + ":0"
    return device


def size_repr(shape) -> str:
    """``str(tuple(tensor.shape))``, e.g. ``'(0, 3)'`` or ``'(5,)'``."""
    return str(tuple(int(s) for s in shape))


# The longest text of one number: torch formats each float with '{:.{precision}f}', so
# set_printoptions(precision=10**9) makes a gigabyte per number (and no statement ends while Python
# builds it). Past this (the language's limit on a string, lang/strguard.MAX_SEQUENCE) a print is
# refused before any number is formatted, as f'{x:.{10**9}f}' is.
MAX_NUMBER_TEXT = 10_000_000


def check_precision(precision) -> None:
    if isinstance(precision, int) and precision > MAX_NUMBER_TEXT:
        raise MemoryError(f"a result of {precision} items exceeds the limit of {MAX_NUMBER_TEXT} items "
                          "(torch.set_printoptions(precision=...))")


# ---------------------------------------------------------------------------
# torch: _Formatter
# ---------------------------------------------------------------------------


class _Formatter:
    def __init__(self, values: np.ndarray, floating: bool):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        view = np.asarray(values).reshape(-1)

        if not self.floating_dtype:
            for value in view.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return

        check_precision(PRINT_OPTS.precision)
        nonzero_finite = view[np.isfinite(view) & (view != 0)]
        if nonzero_finite.size == 0:
            # no valid number, do nothing
            return

        # torch converts |values| to double for min / max / ratio.
        abs64 = np.abs(nonzero_finite).astype(np.float64)
        nz_min = abs64.min()
        nz_max = abs64.max()

        # value != ceil(value) for any value  (exact in every float dtype)
        if np.any(nonzero_finite != np.ceil(nonzero_finite)):
            self.int_mode = False

        if PRINT_OPTS.sci_mode is None:
            with np.errstate(over="ignore"):  # the ratio may overflow to inf, as in torch
                ratio = nz_max / nz_min
            self.sci_mode = bool(ratio > 1000.0 or nz_max > 1.0e8 or nz_min < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        prec = PRINT_OPTS.precision
        vals = nonzero_finite.tolist()  # exact Python floats, like Tensor.item()
        if self.int_mode:
            # in int_mode for floats, all numbers are integers, and a decimal point
            # is appended to finite values: add 1 to the len to account for it.
            if self.sci_mode:
                fmt = f"{{:.{prec}e}}"
                for value in vals:
                    self.max_width = max(self.max_width, len(fmt.format(value)))
            else:
                for value in vals:
                    self.max_width = max(self.max_width, len(f"{value:.0f}") + 1)
        else:
            fmt = f"{{:.{prec}e}}" if self.sci_mode else f"{{:.{prec}f}}"
            for value in vals:
                self.max_width = max(self.max_width, len(fmt.format(value)))

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{PRINT_OPTS.precision}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{{:.{PRINT_OPTS.precision}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


# ---------------------------------------------------------------------------
# torch: _scalar_str, _vector_str, _tensor_str_with_formatter
# ---------------------------------------------------------------------------


def _complex_join(real_str: str, imag_str: str) -> str:
    # handles negative numbers, +0.0, -0.0
    if imag_str[0] == "+" or imag_str[0] == "-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _scalar_str(arr: np.ndarray, formatter1: _Formatter, formatter2=None) -> str:
    if formatter2 is not None:
        real_str = _scalar_str(arr.real, formatter1)
        imag_str = (_scalar_str(arr.imag, formatter2) + "j").lstrip()
        return _complex_join(real_str, imag_str)
    return formatter1.format(arr.item())


def _vector_str(arr, indent, summarize, formatter1, formatter2=None) -> str:
    # length includes spaces and comma between elements
    element_length = formatter1.width() + 2
    if formatter2 is not None:
        # width for imag_formatter + an extra j for complex
        element_length += formatter2.width() + 1

    elements_per_line = max(
        1, math.floor((PRINT_OPTS.linewidth - indent) / element_length)
    )

    def _val_formatter(val):
        if formatter2 is not None:
            real_str = formatter1.format(val.real)
            imag_str = (formatter2.format(val.imag) + "j").lstrip()
            return _complex_join(real_str, imag_str)
        return formatter1.format(val)

    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * edge:
        data = (
            [_val_formatter(v) for v in arr[:edge].tolist()]
            + [" ..."]
            + [_val_formatter(v) for v in arr[-edge:].tolist()]
        )
    else:
        data = [_val_formatter(v) for v in arr.tolist()]

    data_lines = [
        data[i : i + elements_per_line] for i in range(0, len(data), elements_per_line)
    ]
    lines = [", ".join(line) for line in data_lines]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(arr, indent, summarize, formatter1, formatter2=None):
    dim = arr.ndim

    if dim == 0:
        return _scalar_str(arr, formatter1, formatter2)

    if dim == 1:
        return _vector_str(arr, indent, summarize, formatter1, formatter2)

    edge = PRINT_OPTS.edgeitems
    n = arr.shape[0]
    if summarize and n > 2 * edge:
        slices = (
            [
                _tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter1, formatter2)
                for i in range(edge)
            ]
            + ["..."]
            + [
                _tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter1, formatter2)
                for i in range(n - edge, n)
            ]
        )
    else:
        slices = [
            _tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter1, formatter2)
            for i in range(n)
        ]

    tensor_str = ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices)
    return "[" + tensor_str + "]"


# ---------------------------------------------------------------------------
# torch: get_summarized_data, _tensor_str, _add_suffixes
# ---------------------------------------------------------------------------


def _get_summarized_data(arr: np.ndarray) -> np.ndarray:
    dim = arr.ndim
    edge = PRINT_OPTS.edgeitems
    if dim == 0:
        return arr
    if dim == 1:
        if arr.shape[0] > 2 * edge:
            # note: with edgeitems == 0, arr[-0:] is the whole vector (as in torch)
            return np.concatenate((arr[:edge], arr[-edge:]))
        return arr
    if not edge:
        return np.empty([0] * dim, dtype=arr.dtype)
    n = arr.shape[0]
    if n > 2 * edge:
        rows = [arr[i] for i in range(edge)] + [arr[i] for i in range(n - edge, n)]
    else:
        rows = [arr[i] for i in range(n)]
    return np.stack([_get_summarized_data(x) for x in rows])


def _tensor_str(arr: np.ndarray, indent: int, floating: bool, is_complex: bool) -> str:
    if arr.size == 0:
        return "[]"

    summarize = arr.size > PRINT_OPTS.threshold
    if is_complex:
        real_formatter = _Formatter(
            _get_summarized_data(arr.real) if summarize else arr.real, True
        )
        imag_formatter = _Formatter(
            _get_summarized_data(arr.imag) if summarize else arr.imag, True
        )
        return _tensor_str_with_formatter(
            arr, indent, summarize, real_formatter, imag_formatter
        )
    formatter = _Formatter(_get_summarized_data(arr) if summarize else arr, floating)
    return _tensor_str_with_formatter(arr, indent, summarize, formatter)


def _add_suffixes(tensor_str: str, suffixes, indent: int, force_newline: bool) -> str:
    tensor_strs = [tensor_str]
    # (sic) torch's formula, including the +1 and rfind() == -1 on one line
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if force_newline or last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
            force_newline = False
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


# ---------------------------------------------------------------------------
# torch: _str_intern (dense strided tensors)
# ---------------------------------------------------------------------------


def _prepare(data, dtype_name: str, is_complex: bool) -> tuple[np.ndarray, bool, bool]:
    """Return (array, floating, complex) with the array in a kind matching the dtype."""
    arr = np.asarray(data)
    if dtype_name in _COMPLEX_NAMES or is_complex or arr.dtype.kind == "c":
        if arr.dtype.kind != "c":
            arr = arr.astype(np.complex128)
        return arr, True, True
    if dtype_name in _FLOAT_NAMES:
        if arr.dtype.kind != "f":
            arr = arr.astype(np.float64)
        return arr, True, False
    if dtype_name == "bool":
        if arr.dtype.kind != "b":
            arr = arr.astype(bool)
        return arr, False, False
    if arr.dtype.kind in "iu":
        return arr, False, False
    if arr.dtype.kind == "b":
        return arr, False, False
    if arr.dtype.kind == "f" and dtype_name.startswith(("int", "uint")):
        return arr.astype(np.int64), False, False
    return arr, arr.dtype.kind == "f", False


def format_tensor(
    data: "np.ndarray",
    *,
    dtype_name: str,
    default_dtype_name: str = "float32",
    device: str = "cpu",
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    is_leaf: bool = True,
    is_complex: bool = False,
    tangent: str | None = None,
) -> str:
    """``repr(tensor)`` / ``str(tensor)`` exactly as PyTorch 2.13 prints it.

    Examples: ``tensor([1., 2.], requires_grad=True)``,
    ``tensor(17., grad_fn=<AddBackward0>)``, ``tensor([1, 2], dtype=torch.int32)``,
    ``tensor([], size=(0, 3))``, ``tensor(3., dtype=torch.float64)``,
    ``tensor([1.], device='cuda:0')``.

    ``data`` holds the values in the tensor's dtype (float16 as numpy float16;
    bfloat16 may be given as float32 values already rounded to bfloat16).
    ``grad_fn_name`` wins over ``requires_grad`` (a non-leaf shows its grad_fn);
    ``is_leaf`` does not change the text and is accepted for convenience.
    """
    del is_leaf  # not part of the printed text
    dtype_name = _canon_dtype(dtype_name)
    default_dtype = _canon_dtype(default_dtype_name)
    arr, floating, cplx = _prepare(data, dtype_name, is_complex)

    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[str] = []

    dev = device_repr(device)
    if dev.split(":", 1)[0] != "cpu":
        suffixes.append("device='" + dev + "'")

    default_complex = "complex128" if default_dtype == "float64" else "complex64"
    has_default_dtype = dtype_name in (default_dtype, default_complex, "int64", "bool")

    if arr.size == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy behavior
        if arr.ndim != 1:
            suffixes.append("size=" + size_repr(arr.shape))
        # In an empty tensor there are no elements to infer the dtype from
        if dtype_name != default_dtype:
            suffixes.append("dtype=" + dtype_repr(dtype_name))
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + size_repr(arr.shape))
        if not has_default_dtype:
            suffixes.append("dtype=" + dtype_repr(dtype_name))
        tensor_str = _tensor_str(arr, indent, floating, cplx)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:  # a dual tensor's (forward_ad.py), as its text
        suffixes.append(f"tangent={tangent}")

    return _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)
