"""The checks an in-place op makes before it writes (TensorIterator's and the kernels' own): memory overlap
of the written-to tensor with itself and with its inputs, the output's broadcast shape and dtype cast,
and the deprecation warnings of writes into an expanded tensor. inplace.py's wrappers call them."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..tensor import Tensor
from .indexing import expanded, warn_expanded


def c10(dt):
    from .elementwise_common import c10_name  # noqa: PLC0415
    return c10_name(dt)


OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                   "memory location. Please clone() the tensor before performing the operation.")
# the in-place ops torch lets write an expanded tensor (with a deprecation warning): each position they
# change is written, so the last write to a repeated element wins
OVERLAP_WRITES = frozenset({"masked_fill_", "index_fill_", "index_put_"})


# the in-place ops whose kernel asserts that the source does not overlap self (at::assert_no_overlap,
# after the meta checks): the source's argument position
SOURCE_ARG = {"scatter_": 2, "scatter_add_": 2, "scatter_reduce_": 2, "index_add_": 2, "index_copy_": 2,
               "index_put_": 1}
SOURCE_KW = ("src", "source", "values")


# the in-place ops that are TensorIterator loops: their tensor arguments may not partially overlap self
ITERATOR_INPLACE = frozenset({
    "add_", "sub_", "subtract_", "mul_", "multiply_", "div_", "divide_", "true_divide_", "floor_divide_",
    "remainder_", "fmod_", "pow_", "float_power_", "lerp_", "addcmul_", "addcdiv_", "atan2_", "arctan2_",
    "copysign_", "hypot_", "xlogy_", "nextafter_", "ldexp_", "heaviside_", "logical_and_", "logical_or_",
    "logical_xor_", "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_", "bitwise_right_shift_",
    "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_", "not_equal_",
    "clamp_", "clip_", "clamp_min_", "clamp_max_"})
PARTIAL_OVERLAP_MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor "
                           "refer to a single memory location. Please clone() the tensor before performing the "
                           "operation.")


def _dense(a):
    """c10's is_non_overlapping_and_dense: the elements fill one block of memory, in some dim order."""
    expected = a.itemsize
    for st, n in sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def partial_overlap(a, b):
    """at::get_overlap_status(a, b) == Partial: two dense arrays on one block that are not the same elements
    in the same layout (non-dense ones are 'too hard', which torch lets through)."""
    if a is b or not a.size or not b.size or type(a) is not np.ndarray or type(b) is not np.ndarray:
        return False
    if not np.may_share_memory(a, b) or not (_dense(a) and _dense(b)):
        return False
    lo_a, hi_a = _bounds(a)
    lo_b, hi_b = _bounds(b)
    if lo_a == lo_b and hi_a == hi_b:
        return a.strides != b.strides  # (torch compares the stride lists: of another length, Partial)
    return lo_a < hi_b and lo_b < hi_a


def _bounds(a):
    lo = a.__array_interface__["data"][0] + sum(st * (n - 1) for st, n in zip(a.strides, a.shape) if st < 0)
    return lo, lo + a.size * a.itemsize


def check_iterator_overlap(self, args, kwargs):
    """TensorIterator's compute_mem_overlaps, its first check after the output's: an input that partially
    overlaps the written-to tensor (x[0].add_(x), x[1:].mul_(x[:-1])) is refused before shapes and dtypes."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor) and partial_overlap(self._data, a._data):
            raise errors.runtime(PARTIAL_OVERLAP_MESSAGE)


def check_source_overlap(name, self, args, kwargs):
    """x.scatter_(d, i, x) and the like: torch's error when the source shares memory with x."""
    pos = SOURCE_ARG.get(name)
    if pos is None:
        return
    src = args[pos] if len(args) > pos else next((kwargs[k] for k in SOURCE_KW if k in kwargs), None)
    if not isinstance(src, Tensor) or type(src._data) is not np.ndarray or type(self._data) is not np.ndarray:
        return
    try:
        shared = np.shares_memory(self._data, src._data, max_work=10_000)
    except np.exceptions.TooHardError:
        shared = np.may_share_memory(self._data, src._data)
    if shared:
        raise errors.runtime(PARTIAL_OVERLAP_MESSAGE)


def can_cast(src, dst):
    from .. import dtypes  # noqa: PLC0415
    return dtypes.promote_types(src, dst) is dst or src.category <= dst.category


def warn_expanded_write(name, self, args, kwargs):
    """masked_fill_ and index_put_ on an expanded tensor: torch's deprecation warnings (index_put_ that
    canDispatchToMaskedFill warns for both)."""
    if name not in ("masked_fill_", "index_put_") or not expanded(self._data):
        return
    warn_expanded(name)
    if name == "index_put_":
        indices = args[0] if args else kwargs.get("indices", ())
        values = args[1] if len(args) > 1 else kwargs.get("values")
        accumulate = args[2] if len(args) > 2 else kwargs.get("accumulate", False)
        masks = [i for i in indices if isinstance(i, Tensor) and i.dtype in (dtypes.bool_, dtypes.uint8)]
        if (not accumulate and isinstance(values, Tensor) and values._data.size == 1 and len(masks) == 1
                and all(isinstance(i, Tensor) or i is None for i in indices) and len(masks) == sum(
                    isinstance(i, Tensor) for i in indices)):
            warn_expanded("masked_fill_")


def check_iterator_output(self, other):
    """TensorIterator's checks of an in-place op's output before its kernel runs (whose dtype errors,
    such as bitwise on floats, come after): the broadcast shape, then the result type's cast."""
    if not isinstance(other, (Tensor, bool, int, float)):
        return
    so = tuple(other._data.shape) if isinstance(other, Tensor) else ()
    try:
        shape = tuple(np.broadcast_shapes(self._data.shape, so))
    except ValueError:
        return  # the op's own broadcast error
    if shape != self._data.shape:
        raise errors.runtime(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                             f"broadcast shape [{', '.join(map(str, shape))}]")
    dt = dtypes.result_type((self, other))
    if dt is not self.dtype and not can_cast(dt, self.dtype):
        raise errors.runtime(f"result type {c10(dt)} can't be cast to the desired output type {c10(self.dtype)}")
