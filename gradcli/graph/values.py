"""Short texts and JSON forms of tensor values for the walkthrough and the checks: small tensors
elementwise, a tensor whose elements are all equal as that one number, big ones as a summary."""
from __future__ import annotations

import math

import numpy as np

SMALL = 12          # at most this many elements are shown one by one


def host(x):
    """A NumPy array of a Tensor, an array (NumPy or CuPy) or a number."""
    from ..engine.tensor import Tensor  # noqa: PLC0415 - the graph tools load the engine when they run
    data = x._data if isinstance(x, Tensor) else x  # (a script's object may hold a '_data' of its own)
    if hasattr(data, "get") and not isinstance(data, np.ndarray):   # CuPy
        data = data.get()
    return np.asarray(data)


def num(v) -> str:
    """A number as a person writes it: -30, 0.5, 0.3333, 1.5e-07, nan, inf."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    a = abs(v)
    if a >= 1e5 or a < 1e-4:
        m, e = f"{v:.4e}".split("e")
        m = m.rstrip("0").rstrip(".")
        return f"{m}e{int(e)}"
    text = f"{v:.4f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def shape_text(shape) -> str:
    shape = tuple(int(s) for s in shape)
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _nested(a) -> str:
    if a.ndim == 0:
        return num(a.item())
    return "[" + ", ".join(_nested(x) for x in a) + "]"


def uniform(a) -> bool:
    if a.size <= 1:
        return True
    flat = a.reshape(-1)
    first = flat[0]
    if a.dtype.kind == "f" and np.isnan(first):
        return bool(np.isnan(flat).all())
    return bool((flat == first).all())


def text(x, with_shape: bool = True) -> str:
    """-30, -30 (all 4 elements), [1, 2, 3], or "(100, 10): mean 0.01, min -2.1, max 2.3"."""
    if x is None:
        return "None"
    a = host(x)
    if a.ndim == 0:
        return num(a.item())
    if a.size == 0:
        return f"empty {shape_text(a.shape)}"
    if uniform(a):
        first = num(a.reshape(-1)[0].item())
        return f"{first} (all {a.size} elements)" if with_shape else first
    if a.size <= SMALL:
        return _nested(a)
    return summary(a)


def scalar_text(x) -> str:
    """The number alone when the value is uniform, else the elementwise or summary text."""
    return text(x, with_shape=False)


def summary(a) -> str:
    a = host(a)
    if a.dtype.kind in "fc" and a.size:
        finite = a[np.isfinite(a)] if a.dtype.kind == "f" else a
        bad = a.size - finite.size
        parts = [shape_text(a.shape) + ":"]
        if finite.size:
            parts.append(f"mean {num(finite.mean())}, min {num(finite.min())}, max {num(finite.max())}")
        if bad:
            parts.append(f"({bad} not finite)")
        return " ".join(parts)
    return f"{shape_text(a.shape)} {a.dtype}"


def to_json(x) -> dict | None:
    """{"shape", "dtype", "text", "values" (nested lists, small tensors only), "mean", "min", "max"}."""
    if x is None:
        return None
    from ..render.tensors import array_json  # noqa: PLC0415

    a = host(x)
    dtype = getattr(getattr(x, "dtype", None), "name", None) or str(a.dtype)
    doc = {"shape": [int(s) for s in a.shape], "dtype": dtype, "text": text(a), "values": None,
           "mean": None, "min": None, "max": None}
    if a.size <= SMALL or a.ndim == 0:
        doc["values"] = array_json(a)
    if a.dtype.kind == "f" and a.size:
        finite = a[np.isfinite(a)]
        if finite.size:
            doc["mean"], doc["min"], doc["max"] = float(finite.mean()), float(finite.min()), float(finite.max())
    return doc
