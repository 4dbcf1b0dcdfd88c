"""Tensor descriptions for JSON and tables, read without side effects (no non-leaf ``.grad``
warning, no graph change). NaN and infinities become the strings "NaN", "Infinity",
"-Infinity", so that strict JSON parsers accept every document."""
from __future__ import annotations

import math

NAN, POS_INF, NEG_INF = "NaN", "Infinity", "-Infinity"


def is_tensor(obj) -> bool:
    from gradcli.engine.tensor import Tensor  # noqa: PLC0415 - the engine is loaded by then

    return isinstance(obj, Tensor)


def json_number(x):
    """A JSON-safe Python number: floats that are not finite become strings."""
    if isinstance(x, float) and not math.isfinite(x):
        return NAN if math.isnan(x) else (POS_INF if x > 0 else NEG_INF)
    return x


def host(t):
    import numpy as np  # noqa: PLC0415

    from gradcli.engine.tensor import to_host  # noqa: PLC0415

    return np.asarray(to_host(t._data))


def _float_items(arr):
    """Floats with the shortest text that round-trips in the tensor's own precision
    (float32 0.1 is 0.1, not 0.10000000149011612)."""
    import numpy as np  # noqa: PLC0415

    flat = arr.ravel()
    if arr.dtype == np.float64:
        return [json_number(v) for v in flat.tolist()]
    out = []
    for v in flat:
        f = float(v)
        if math.isfinite(f):
            f = float(str(v))  # NumPy's str of a float32/float16 scalar is its shortest round-trip text
        out.append(json_number(f))
    return out


def array_json(arr):
    """A nested list (a scalar for 0-d) of JSON-safe values."""
    if arr.dtype.kind == "f":
        flat = _float_items(arr)
    elif arr.dtype.kind == "c":
        flat = [[json_number(float(v.real)), json_number(float(v.imag))] for v in arr.ravel()]
    else:
        flat = arr.ravel().tolist()
    return _nest(flat, arr.shape)


def _nest(flat, shape):
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def tensor_json(t) -> dict:
    """{shape, dtype, device, requires_grad, is_leaf, grad_fn, value, grad} of a tensor."""
    grad = t._grad
    return {
        "shape": [int(s) for s in t.shape],
        "dtype": t.dtype.name,
        "device": str(t.device),
        "requires_grad": bool(t.requires_grad),
        "is_leaf": bool(t.is_leaf),
        "grad_fn": t.grad_fn.name() if t.grad_fn is not None else None,
        "value": array_json(host(t)),
        "grad": array_json(host(grad)) if grad is not None else None,
    }


# the numbers --json writes for a run's tensors (values and grads), at most: a list of Python floats per
# element was built, 75 s and more than the 4 GiB --max-memory for a 9e7-element tensor (an internal error)
MAX_JSON_ELEMENTS = 10_000_000


def tensors_json(variables: dict, skipped: list | None = None) -> dict:
    """Every tensor among a run's top-level names, in definition order, while their values and grads
    stay within MAX_JSON_ELEMENTS numbers; the names of those left out go to ``skipped``."""
    out, total = {}, 0
    for name, v in (variables or {}).items():
        if not is_tensor(v):
            continue
        n = _numel(v) + (_numel(v._grad) if v._grad is not None else 0)
        if total + n > MAX_JSON_ELEMENTS:
            if skipped is not None:
                skipped.append(name)
            continue
        total += n
        out[name] = tensor_json(v)
    return out


def _numel(t) -> int:
    n = 1
    for s in t.shape:
        n *= int(s)
    return n


def value_repr(t, limit: int = 100) -> str:
    """The data of a tensor as PyTorch prints it (without the autograd suffixes), for a table
    cell; big tensors are summarised by their size."""
    if t is None:
        return "None"
    n = 1
    for s in t.shape:
        n *= int(s)
    if n > limit:
        return f"<{n} elements>"
    return repr(t.detach())


def shape_text(t) -> str:
    return "[" + ", ".join(str(int(s)) for s in t.shape) + "]"
