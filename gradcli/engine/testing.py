"""torch.testing.assert_close: torch/testing/_comparison.py's pairs (None, booleans, numbers, tensor-likes) over
nested sequences and mappings, with its default tolerances and its messages word for word."""
from __future__ import annotations

import cmath
import collections.abc
import contextlib

import numpy as np

from . import api as torch
from . import dtypes, errors
from .tensor import Tensor

# {dtype: (rtol, atol)}, torch's _DTYPE_PRECISIONS; any other dtype compares exactly
_DTYPE_PRECISIONS = {dtypes.float16: (0.001, 1e-5), dtypes.float32: (1.3e-6, 1e-5), dtypes.float64: (1e-7, 1e-7)}
_NUMBER_DTYPES = {int: dtypes.int64, float: dtypes.float64}
for _name, _tolerances in (("bfloat16", (0.016, 1e-5)), ("complex64", (1.3e-6, 1e-5)), ("complex128", (1e-7, 1e-7))):
    if hasattr(dtypes, _name):
        _DTYPE_PRECISIONS[getattr(dtypes, _name)] = _tolerances
if hasattr(dtypes, "complex128"):
    _NUMBER_DTYPES[complex] = dtypes.complex128


class _Unsupported(Exception):
    """This pair cannot take these inputs: the next one is tried."""


class _Refused(Exception):
    """torch's ErrorMeta raised while a pair is made (tolerances given by halves): raised before any comparison,
    without the caller's msg."""


_MAKERS = {AssertionError: errors.assertion, TypeError: errors.type_error, ValueError: errors.value}


class _Failure(Exception):
    """torch's ErrorMeta: the exception type, its message and the item path it occurred at."""

    def __init__(self, type_, msg, path=()):
        super().__init__(msg)
        self.type, self.msg, self.path = type_, msg, path

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.path:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.path)}"
            msg = msg(generated) if callable(msg) else generated
        return _MAKERS[self.type](msg)


def _tolerances(dtype_list, rtol, atol, path):
    if (rtol is None) ^ (atol is None):
        raise _Refused(_Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                            f"but got no {'rtol' if rtol is None else 'atol'}.", path))
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtype_list])
    return max(rtols), max(atols)


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        msg = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        return (msg if equality else msg + f" (up to {tol} allowed)") + "\n"
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol) + diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol, rel_diff, None,
                         rtol)


def _tensor_mismatch_msg(actual, expected, matches, rtol, atol):
    shape = tuple(matches.shape)

    def unravel(flat):
        return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()
    numel = matches.numel()
    mismatches = numel - int(torch.sum(matches))
    extra = f"Mismatched elements: {mismatches} / {numel} ({mismatches / numel:.1%})"
    actual_flat, expected_flat, matches_flat = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point and not actual.dtype.is_complex:
        actual_flat, expected_flat = actual_flat.to(dtypes.int64), expected_flat.to(dtypes.int64)
    abs_diff = torch.abs(actual_flat - expected_flat)
    abs_diff[matches_flat] = 0
    max_abs, max_abs_idx = torch.max(abs_diff, 0)
    rel_diff = abs_diff / torch.abs(expected_flat)
    rel_diff[matches_flat] = 0
    max_rel, max_rel_idx = torch.max(rel_diff, 0)
    return _mismatch_msg("Tensor-likes", extra, max_abs.item(), unravel(int(max_abs_idx)), atol, max_rel.item(),
                         unravel(int(max_rel_idx)), rtol)


def _none_pair(actual, expected, path, options):
    if not (actual is None or expected is None):
        raise _Unsupported
    if not (actual is None and expected is None):
        raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)


def _bool_pair(actual, expected, path, options):
    if not all(isinstance(v, (bool, np.bool_)) for v in (actual, expected)):
        raise _Unsupported
    actual, expected = (bool(v) for v in (actual, expected))
    if actual is not expected:
        raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", path)


def _number_pair(actual, expected, path, options):
    if not all(isinstance(v, (*_NUMBER_DTYPES, np.number)) for v in (actual, expected)):
        raise _Unsupported
    actual, expected = (v.item() if isinstance(v, np.number) else v for v in (actual, expected))
    if not all(type(v) in _NUMBER_DTYPES for v in (actual, expected)):  # a bool beside a number: torch's KeyError
        raise errors.runtime(f"Originating a NumberPair() at item {''.join(str([item]) for item in path)} with\n\n"
                             f"{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): {expected}"
                             "\n\nresulted in the unexpected exception above. If you are a user and see this message "
                             "during normal operation please file an issue at "
                             "https://github.com/pytorch/pytorch/issues. If you are a developer and working on the "
                             "comparison functions, please except the previous error and raise an expressive "
                             "`ErrorMeta` instead.")
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(v)] for v in (actual, expected)], options["rtol"], options["atol"],
                             path)
    if options["check_dtype"] and type(actual) is not type(expected):
        raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.", path)
    if actual == expected:
        return
    if options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    raise _Failure(AssertionError, _scalar_mismatch_msg(actual, expected, rtol, atol), path)


def _tensor_pair(actual, expected, path, options):
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not options["allow_subclasses"] and type(actual) is not type(expected):
        raise _Unsupported
    if not isinstance(actual, Tensor):
        try:
            actual, expected = torch.as_tensor(actual), torch.as_tensor(expected)
        except Exception:
            raise _Unsupported from None
    rtol, atol = _tolerances([actual.dtype, expected.dtype], options["rtol"], options["atol"], path)

    def mismatch(attribute, a, b):
        raise _Failure(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {b}.", path)
    if actual.shape != expected.shape:
        mismatch("shape", actual.shape, expected.shape)
    if options["check_stride"] and actual.stride() != expected.stride():
        mismatch("stride()", actual.stride(), expected.stride())
    if options["check_device"] and actual.device != expected.device:
        mismatch("device", actual.device, expected.device)
    if options["check_dtype"] and actual.dtype != expected.dtype:
        mismatch("dtype", actual.dtype, expected.dtype)
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        common = torch.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    with torch.no_grad():
        matches = torch.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
        if torch.all(matches):
            return
        if actual.shape == ():
            msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol, atol)
        else:
            msg = _tensor_mismatch_msg(actual.detach(), expected.detach(), matches, rtol, atol)
    raise _Failure(AssertionError, msg, path)


_PAIRS = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _comparisons(actual, expected, path, options):
    """torch's originate_pairs: (pair function, actual, expected, path) for each leaf of the nested inputs."""
    sequence, mapping = collections.abc.Sequence, collections.abc.Mapping
    if isinstance(actual, sequence) and not isinstance(actual, str) \
            and isinstance(expected, sequence) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError,
                           f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path)
        return [c for i in range(len(actual)) for c in _comparisons(actual[i], expected[i], (*path, i), options)]
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Failure(AssertionError, f"The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                                           f"Additional keys in the actual mapping: "
                                           f"{sorted(actual_keys - expected_keys)}", path)
        keys = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [c for k in keys for c in _comparisons(actual[k], expected[k], (*path, k), options)]
    for pair in _PAIRS:
        try:
            pair(actual, expected, path, options)
        except _Unsupported:
            continue
        except _Failure as failure:
            return [failure]
        return []
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                              f"{type(expected)}.", path)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    del check_layout  # every gradcli tensor is strided: no layouts to tell apart
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_stride=check_stride)
    try:
        failures = _comparisons(actual, expected, (), options)
    except _Failure as failure:  # the inputs' structure: raised at once, without msg
        raise failure.to_error() from None
    except _Refused as refused:
        raise refused.args[0].to_error() from None
    if failures:
        raise failures[0].to_error(msg) from None
