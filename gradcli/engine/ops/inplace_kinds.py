"""The in-place wrappers that declarations of other families name (`inplace="compare"`, `"logical"`:
registry.INPLACE_KINDS; `"copy"` is special_common.inplace_method): x.eq_(y) ..., x.logical_and_(y) ....
A module of their own, so that the core families that name them (comparison.py) do not load the special
family at start-up (issue 21: the breadth families load on first use, methods.py)."""
from __future__ import annotations

from .. import errors
from ..device import asarray as _asarray
from ..device import overlaps, write_alias, writeable
from ..function import Function, record
from ..tensor import Tensor, wrap
from . import elementwise_common as EC
from .elementwise_common import operand

# ---------------------------------------------------------------------------- in-place comparisons


class _CompareInplace(Function):
    """x.eq_(y) and friends: x gets 0/1 in its own dtype; the gradient is zero."""
    __slots__ = ()

    def backward(self, g):
        return tuple(EC.zero_grad(g) if nf is not None else None for nf, _ in self.next_functions)


def _compare_classes(stem):
    zero = type(f"{stem}Backward0", (_CompareInplace,), {"__slots__": ()})
    one = type(f"{stem}Backward1", (_CompareInplace,), {"__slots__": ()})
    return zero, one


_COMPARE = {}
for _stem, _names in (("Eq", ("eq",)), ("Ne", ("ne", "not_equal")), ("Lt", ("lt", "less")),
                      ("Le", ("le", "less_equal")), ("Gt", ("gt", "greater")), ("Ge", ("ge", "greater_equal"))):
    _classes = _compare_classes(_stem)
    for _n in _names:
        _COMPARE[_n] = _classes


def compare_inplace(compare, name, node=None):
    """x.eq_(y), x.lt_(y) ... (declared inplace="compare" in comparison.py): x gets 0/1 in its own dtype
    and, a float x, the comparison's node (EqBackward0 for a number, EqBackward1 for a tensor)."""
    from .indexing import check_inplace  # noqa: PLC0415
    from .inplace import rebase  # noqa: PLC0415
    from .inplace_checks import check_iterator_overlap  # noqa: PLC0415
    zero, one = _COMPARE[name[:-1]]

    def method(self, other):
        check_inplace(self)
        check_iterator_overlap(self, (other,), {})
        other = operand(other)
        r = compare(self, other)
        out = wrap(_asarray(r._data).astype(self._data.dtype), self.dtype)
        if self.dtype.is_floating_point:
            if isinstance(other, Tensor):
                record(one, (self, other), out)
            else:
                record(zero, (self,), out)
        return rebase(self, out)
    method.__name__ = name
    return method


def logical_inplace(fn, name, node=None):
    """x.logical_and_(y) ... (declared inplace="logical" in comparison.py): x gets 0/1 in its own dtype;
    as in torch, no node is recorded (x keeps its grad_fn)."""
    from .indexing import check_inplace  # noqa: PLC0415

    def method(self, *other):
        check_inplace(self)
        r = fn(self, *other)
        if r._data.shape != self._data.shape:
            raise errors.runtime(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                                 f"broadcast shape [{', '.join(map(str, r._data.shape))}]")
        data = self._data
        if not writeable(data):  # a read-only view (unfold, diagonal): written through its alias, as rebase does
            if overlaps(data):  # an expanded tensor (stride 0)
                from .inplace_checks import OVERLAP_MESSAGE  # noqa: PLC0415 - it imports this module's users
                raise errors.runtime(OVERLAP_MESSAGE)
            data = write_alias(data)
        data[...] = r._data.astype(self._data.dtype)
        self._version[0] += 1
        return self
    method.__name__ = name
    return method
