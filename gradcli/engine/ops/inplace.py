"""In-place ops (`add_`, `x += y`, `zero_`, `fill_`, `copy_`, `clamp_`...): computed like the
out-of-place op, written into the tensor's own memory, version bumped, and the tensor takes the
new node, exactly the observable behaviour of torch's in-place ops."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..argcheck import invalid_combination, is_scalar
from ..autograd import SavedValue, forward_level, make_node
from ..autograd_modes import grad_mode
from ..device import like, overlaps, write_alias, writeable
from ..function import Function
from ..tensor import Tensor, wrap
from ..views import live_views
from .elementwise_common import zero_grad
from .indexing import check_inplace
from .inplace_checks import (ITERATOR_INPLACE, OVERLAP_MESSAGE, OVERLAP_WRITES, PARTIAL_OVERLAP_MESSAGE, SOURCE_ARG,
                             c10, can_cast, check_iterator_output, check_iterator_overlap, check_source_overlap,
                             partial_overlap, warn_expanded_write)
from . import words
from .registry import Sample, op


def rebase(self, r, low_names=False, overlap_ok=False):
    """Make `self` hold r's value and r's place in the graph, in place (TensorIterator's checks: the
    broadcast shape first, then the cast of the result type to self's dtype). overlap_ok: an op of
    OVERLAP_WRITES, which may write an expanded `self`."""
    if r._data.shape != self._data.shape:
        raise errors.runtime(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                             f"broadcast shape [{', '.join(map(str, r._data.shape))}]")
    if r.dtype is not self.dtype:
        if not can_cast(r.dtype, self.dtype):
            if low_names:  # the clamp kernels word it with C++ type names
                from .linalg import c10_low  # noqa: PLC0415
                target = c10_low(self.dtype)
            else:
                target = c10(self.dtype)
            raise errors.runtime(f"result type {c10(r.dtype)} can't be cast to the desired output type {target}")
    data = self._data
    changed = None
    if not writeable(data):  # an expanded tensor, or a read-only view of one (diagonal)
        repeats = overlaps(data)
        alias = write_alias(data) if overlap_ok or not repeats else None
        if alias is None:
            raise errors.runtime(OVERLAP_MESSAGE)
        if repeats:
            changed = _changed(data, r._data)
        data = alias
    node = r.grad_fn
    if node is not None and node._saved:
        _keep_original(node, self)
    if changed is None:
        data[...] = r._data
    else:
        data[changed] = r._data[changed]
    self._version[0] += 1
    if node is not None and node._saved:
        _saved_result_is(node, r, self)
    if forward_level[0] is not None:  # a forward-AD level: self's tangent becomes r's
        from ..forward_ad import inplace_result  # noqa: PLC0415
        inplace_result(self, r)
    if r.grad_fn is not None:
        old, old_nr = self.grad_fn, self._output_nr
        apply_inplace_graph(self, r.grad_fn)
        if self._retains:
            move_retain(self, old, old_nr)
    return self


def _changed(old, new):
    """Where an op changed the values (NaN kept as NaN is no change): what it writes."""
    same = old == new
    if old.dtype.kind == "f":
        same |= (old != old) & (new != new)
    return ~same


def move_retain(self, old, old_nr):
    """retain_grad() follows the tensor to its new node after an in-place op."""
    import weakref  # noqa: PLC0415
    if old is not None and old._retained and old._retained.get(old_nr) is not None \
            and old._retained[old_nr]() is self:
        del old._retained[old_nr]
    node = self.grad_fn
    if node._retained is None:
        node._retained = {}
    node._retained[self._output_nr] = weakref.ref(self)


def _keep_original(node, self):
    """The node computed from `self` before it is overwritten: like torch's in-place ops, its backward
    reads the original value (a copy standing at self's old place in the graph). Only self's own slot: an
    argument that is self itself (b.mul_(b), b.addcmul_(b, c), b.div_(b)) is saved as the variable, so
    backward raises torch's version error (the node's later edges that are self's edge count them)."""
    items = [item for item in node._saved if type(item) is SavedValue and item.tensor is self]
    if items and self.grad_fn is not None and not getattr(node, "other_unsaved", False):
        edge = (self.grad_fn, self._output_nr)
        aliases = sum(1 for e in node.next_functions[1:] if e == edge)
        items = items[:max(0, len(items) - aliases)]
    for item in items:
        orig = wrap(self._data.copy(), self.dtype)
        orig._rg, orig.grad_fn, orig._output_nr = self._rg, self.grad_fn, self._output_nr
        if self.grad_fn is None and self._rg:
            orig._accum = self._edge()[0]
        item.tensor = orig
        item.version = 0


def _saved_result_is(node, r, self):
    """A saved result is the tensor modified in place (so later in-place changes of it are caught)."""
    for item in node._saved:
        if type(item) is SavedValue and item.tensor is r:
            item.tensor = self
            item.version = self._version[0]


def inplace(fn, name):
    if name.rstrip("_") in _VIEW_NODES:
        return inplace_view(fn, name)
    low = name.startswith(("clamp", "clip"))
    overlap_ok = name in OVERLAP_WRITES
    source_arg = name in SOURCE_ARG
    binary_bitwise = name.startswith("bitwise_") and name != "bitwise_not_"
    renamed = name in _NOT_IMPLEMENTED_INPLACE
    alpha_named = name in ("add_", "sub_")
    iterator = name in ITERATOR_INPLACE

    def method(self, *args, **kwargs):
        check_inplace(self)
        if not overlap_ok and overlaps(self._data):  # TensorIterator's first check, before shapes and dtypes
            raise errors.runtime(OVERLAP_MESSAGE)
        if iterator:
            check_iterator_overlap(self, args, kwargs)
        if alpha_named and "alpha" in kwargs and args:  # the parser's error names the in-place method
            from .arithmetic import alpha_number  # noqa: PLC0415 - arithmetic imports this module's users
            alpha_number(name, self, args[0], kwargs["alpha"])
        if binary_bitwise and args:  # the output's checks before the kernel's dtype error (as `a &= b`)
            check_iterator_output(self, args[0])
        if name == "masked_fill_" and len(args) == 2:  # in place: self and mask's shapes checked last
            from .gather_scatter import masked_fill_checks  # noqa: PLC0415
            masked_fill_checks(self, *args, True)
        # the clamp overload with number bounds (taken when any bound is a number) words the cast
        # error with C++ type names ("bool"); tensor bounds go through TensorIterator ("Bool")
        scalar = low and any(a is not None and not isinstance(a, Tensor) for a in (*args, *kwargs.values()))
        r = fn(self, *args, **kwargs)
        if source_arg:
            check_source_overlap(name, self, args, kwargs)
        warn_expanded_write(name, self, args, kwargs)
        out = rebase(self, r, scalar, overlap_ok)
        if renamed and getattr(self.grad_fn, "_opname", None) == f"aten::{name[:-1]}":
            self.grad_fn._opname = f"aten::{name}"  # torch's NotImplemented node names the in-place op
        return out
    method.__name__ = name
    return method


# the in-place ops without a derivative whose NotImplemented node torch names after the in-place op
# ("derivative for aten::floor_divide_ is not implemented")
_NOT_IMPLEMENTED_INPLACE = frozenset({"floor_divide_"})


def bitwise_inplace(fn):
    """`a &= b` and the like: TensorIterator's output checks, then the out-of-place op written back."""
    def op(a, b):
        check_iterator_output(a, b)
        return rebase(a, fn(a, b))
    return op


def _renamed(cls, name):
    return type(name, (cls,), {"__slots__": ()})


def _view_nodes():
    from . import shape as S  # noqa: PLC0415
    from .strided import AsStridedBackward0  # noqa: PLC0415
    return {
        AsStridedBackward0: _renamed(AsStridedBackward0, "AsStridedBackward1"),
        S.TBackward0: _renamed(S.TBackward0, "TBackward1"),
        S.TransposeBackward0: _renamed(S.TransposeBackward0, "TransposeBackward1"),
        S.UnsqueezeBackward0: _renamed(S.UnsqueezeBackward0, "UnsqueezeBackward1"),
        S.SqueezeBackward0: _renamed(S.SqueezeBackward0, "SqueezeBackward3"),
        S.SqueezeBackward1: _renamed(S.SqueezeBackward1, "SqueezeBackward4"),
        S.SqueezeBackward2: _renamed(S.SqueezeBackward2, "SqueezeBackward5"),
    }


_VIEW_NODES = ("t", "transpose", "unsqueeze", "squeeze", "swapaxes", "swapdims", "as_strided")
_VIEW_NODE_CLASSES = {}


def inplace_view(fn, name):
    """t_/transpose_/unsqueeze_/squeeze_: the tensor itself takes the view's shape (its node is the
    in-place variant, TBackward1, UnsqueezeBackward1, SqueezeBackward3/4/5...)."""
    def method(self, *args, **kwargs):
        bad = name == "t_" and self._data.ndim > 2  # (the kernel's check, named after the in-place op)
        if not bad or grad_mode.enabled:  # (under no_grad it changes nothing: no view regenerated)
            check_inplace(self)
        if bad:
            raise errors.runtime(f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
        r = fn(self, *args, **kwargs)
        self._data = r._data
        self._version[0] += 1
        node = r.grad_fn
        if node is not None:
            if not _VIEW_NODE_CLASSES:
                _VIEW_NODE_CLASSES.update(_view_nodes())
            cls = _VIEW_NODE_CLASSES.get(type(node))
            if cls is not None:
                node.__class__ = cls
            old, old_nr = self.grad_fn, self._output_nr
            self.grad_fn = node
            self._output_nr = 0
            self._rg = True
            if self._retains:
                move_retain(self, old, old_nr)
            # the version moved on: torch regenerates the other views' grad_fn when next read
            regenerate_views(self if self._base is None else self._base, self)
        return self
    method.__name__ = name
    return method


class ZeroBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.overwritten("zero_"))

    def backward(self, g):
        return (zero_grad(g),)


class FillBackward2(ZeroBackward0):
    """fill_ with a number."""
    __slots__ = ()
    explain = staticmethod(words.overwritten("fill_"))


class FillBackward3(Function):
    """fill_ with a 0-dim tensor value: the value gets the sum of the gradient."""
    __slots__ = ()
    explain = staticmethod(words.overwritten("fill_"))

    def backward(self, g):
        return (zero_grad(g), g.sum() if self.next_functions[1][0] is not None else None)


def _fill(self, value, cls):
    check_inplace(self)
    v = value._data if isinstance(value, Tensor) else dtypes.checked_scalar(value, self.dtype)
    target = write_alias(self._data)  # fill_ and zero_ write an expanded tensor too
    if target is None:
        raise errors.runtime(OVERLAP_MESSAGE)
    target[...] = v
    self._version[0] += 1
    if grad_mode.enabled and (self._rg or (isinstance(value, Tensor) and value._rg)):
        inputs = (self, value) if isinstance(value, Tensor) else (self,)
        old, old_nr = self.grad_fn, self._output_nr
        node = make_node(FillBackward3 if isinstance(value, Tensor) else cls, inputs, self.dtype)
        apply_inplace_graph(self, node)
        if self._retains:
            move_retain(self, old, old_nr)
    return self


def zero_(self):
    return _fill(self, 0, ZeroBackward0)


def _check_fill_value(value, input=None):
    """torch's TypeError for a fill value that is no Tensor or number: torch.fill_(x, v) (argcheck.as_method tells
    it as x.fill_(v)'s, with the method's signatures)."""
    if isinstance(value, Tensor) or is_scalar(value):
        return
    from ..torch_signatures import SIGNATURES  # noqa: PLC0415 - only for the error
    raise invalid_combination("fill_", SIGNATURES["fill_"], (input, value), {})


def fill_(self, value):
    _check_fill_value(value, self)
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise errors.runtime(f"fill_ only supports 0-dimension value tensor but got tensor with "
                             f"{value._data.ndim} dimensions.")
    return _fill(self, value, FillBackward2)


def torch_fill_(input, value):
    """torch.fill_(x, value): x.fill_(value), with torch's error for a value of the wrong type."""
    _check_fill_value(value, input)
    return fill_(input, value)


torch_fill_.__name__ = torch_fill_.__qualname__ = "fill_"


class CopyBackwards(Function):
    __slots__ = ()
    explain = staticmethod(words.overwritten("copy_"))

    def name(self):
        return "torch::autograd::CopyBackwards"

    def backward(self, g):
        from .shape import sum_to  # noqa: PLC0415
        k = self._kw
        gsrc = sum_to(g, k["src_shape"]).to(k["src_dtype"]) if self.next_functions[1][0] is not None else None
        return zero_grad(g), gsrc


def copy_of(g, like):
    """`empty_like(like).copy_(g)`: how AccumulateGrad stores a first gradient under create_graph
    (so x.grad shows grad_fn=<CopyBackwards>)."""
    out = wrap(g._data.astype(like.dtype.np, copy=True), like.dtype)
    node = make_node(CopyBackwards, (None, g), like.dtype, (), {"src_shape": g._data.shape, "src_dtype": g.dtype})
    out.grad_fn = node
    out._rg = True
    return out


def _copy_shape_message(dst, src):
    try:
        shape = np.broadcast_shapes(dst, src)
    except ValueError:
        return errors.broadcast_mismatch(tuple(dst), tuple(src))
    return (f"output with shape [{', '.join(map(str, dst))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, shape))}]")


def copy_(self, src, non_blocking=False):
    check_inplace(self)
    if overlaps(self._data):
        raise errors.runtime(OVERLAP_MESSAGE)
    if isinstance(src, (bool, int, float)):  # torch wraps a number as a 0-d tensor of its own dtype
        d = dtypes.scalar_dtype(src)
        src = wrap(np.asarray(src, d.np), d)
    elif not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
    elif partial_overlap(self._data, src._data):  # copy_'s TensorIterator (the same view of src returns early)
        raise errors.runtime(PARTIAL_OVERLAP_MESSAGE)
    try:
        s = src._data if type(src._data) is type(self._data) else like(self._data, src._data)  # across devices
        target = write_alias(self._data)
        if target is None:
            raise errors.runtime(OVERLAP_MESSAGE)
        np.copyto(target, np.broadcast_to(s, self._data.shape).astype(self._data.dtype, copy=False))
    except ValueError:  # TensorIterator's checks, self first: the two shapes, then the output's
        raise errors.runtime(_copy_shape_message(self._data.shape, src._data.shape)) from None
    self._version[0] += 1
    if grad_mode.enabled and (self._rg or src._rg) and self.dtype.is_floating_point:  # an integer result has no grad
        old, old_nr = self.grad_fn, self._output_nr
        node = make_node(CopyBackwards, (self, src), self.dtype, (),
                         {"src_shape": src._data.shape, "src_dtype": src.dtype})
        apply_inplace_graph(self, node)
        if self._retains:
            move_retain(self, old, old_nr)
    return self


# ---------------------------------------------------------------------------- in-place ops and views
#
# An in-place op on a tensor records the op's node (its first edge is the tensor's old place in the
# graph). On a tensor that is not a view, the tensor simply takes that node. On a view, torch hands
# the history to the view's base: the base's grad_fn becomes CopySlices (edges: the base's old place,
# then the op's other inputs), which runs the op's backward on the view's region of the gradient,
# and the view's grad_fn becomes AsStridedBackward0 of the base. Regions are flat C-order indices
# into the base, computed from the NumPy strides (so every kind of view works the same way).

class CopySlices(Function):
    __slots__ = ()

    def name(self):
        return "torch::autograd::CopySlices"

    def backward(self, g):
        from .shape import reshape  # noqa: PLC0415
        k = self._kw
        region, fn = k["region"], k["fn"]
        shape = g._data.shape
        flat = reshape(g, (-1,))
        g_view = reshape(flat[wrap(region.reshape(-1), dtypes.int64)], region.shape)
        res = fn.apply(g_view)
        n = flat._data.shape[0]
        # torch copies the op's gradient into the region of a clone of g: a select, not g * mask + put
        # (which turns -0. into 0. and an inf of g inside the region into nan)
        inside = wrap(like(g._data, outside_region(region, n, np.bool_) == 0), dtypes.bool_)
        put = region_put(res[0], region, n) if res[0] is not None else 0.
        from .clamp_where import where  # noqa: PLC0415
        g_base = where(inside, put, flat)
        return (reshape(g_base, shape),) + tuple(res[1:])


class AsStridedBackward0(Function):
    """The grad_fn of a view after an in-place op on it: its region of the base's gradient."""
    __slots__ = ()

    def backward(self, g):
        from .shape import reshape  # noqa: PLC0415
        k = self._kw
        return (reshape(region_put(g, k["region"], k["numel"]), k["base_shape"]),)


class _SetValue(Function):
    """The op inside CopySlices for `x[key] = value`: the old region gets no gradient, value the sum."""
    __slots__ = ()

    def backward(self, g):
        from .shape import sum_to  # noqa: PLC0415
        k = self._kw
        if self.next_functions[1][0] is None:
            return (None, None)
        gv = sum_to(g, k["vshape"])
        return (None, gv.to(k["vdtype"]) if gv.dtype is not k["vdtype"] else gv)


def outside_region(region, n, np_dtype):
    m = np.ones(n, np_dtype)
    m[region.reshape(-1)] = 0
    return m


def region_put(values, region, n):
    """A flat gradient of n zeros with `values` (shaped like region) at the region (differentiable)."""
    from .indexing import index_backward  # noqa: PLC0415
    from .shape import reshape  # noqa: PLC0415
    return index_backward(reshape(values, (-1,)), (n,), (region.reshape(-1),), accumulate=False)


def _ptr(a):
    if type(a) is np.ndarray:
        return a.__array_interface__["data"][0]
    return int(a.data.ptr)


def _byte_offsets(a):
    off = np.zeros(a.shape, np.int64)
    for k, (n, st) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[k] = n
        off = off + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    return off


def view_region(view_arr, root_arr):
    """Flat C-order indices into root of every element of view_arr (a view into root's memory)."""
    if view_arr is root_arr or (view_arr.shape == root_arr.shape and view_arr.strides == root_arr.strides
                                and _ptr(view_arr) == _ptr(root_arr)):
        return np.arange(root_arr.size, dtype=np.int64).reshape(root_arr.shape)
    rb = _byte_offsets(root_arr).reshape(-1)
    vb = _byte_offsets(view_arr) + (_ptr(view_arr) - _ptr(root_arr))
    order = np.argsort(rb, kind="stable")
    pos = np.searchsorted(rb[order], vb.reshape(-1))
    return order[pos].reshape(view_arr.shape)


def apply_inplace_graph(self, fn, region=None):
    """Give `self`, just modified in place by the op whose node is fn, its new place in the graph.
    region: the flat indices (into self's root) that were written, when not all of self (setitem)."""
    root = self._base
    if root is None and region is None:
        self.grad_fn = fn
        self._output_nr = 0
        self._rg = True
        regenerate_views(self, self)
        return
    if root is None:
        root = self
        view_reg = None
    else:
        view_reg = view_region(self._data, root._data)
        if region is not None:
            region = view_reg.reshape(-1)[region.reshape(-1)].reshape(region.shape)
        else:
            region = view_reg
    cs = make_node(CopySlices, (root,), root.dtype, (), {"region": region, "fn": fn})
    cs.next_functions = (cs.next_functions[0],) + tuple(fn.next_functions[1:])
    root.grad_fn = cs
    root._output_nr = 0
    root._rg = True
    if view_reg is not None:
        node = make_node(AsStridedBackward0, (root,), self.dtype, (),
                         {"region": view_reg, "numel": root._data.size, "base_shape": root._data.shape})
        self.grad_fn = node
        self._output_nr = 0
        self._rg = True
    regenerate_views(root, self)


def regenerate_views(root, changed):
    """The other views of root after an in-place op of root or of one of its views: torch
    regenerates a view's grad_fn when it next reads it (its version moved on) as AsStridedBackward0 of
    the base's new node, so what is computed from the view afterwards goes through the in-place op. A
    view made under no_grad (or of a multi-output op) keeps its CreationMeta: its error is raised there.
    Under no_grad (check_inplace) the base's node is unchanged and so is the gradient, only the name.
    A root that does not require grad (x = a.reshape(2, 3).requires_grad_(): x and its views are views of a)
    leaves the leaf views as they are and gives the others an AsStridedBackward0 without an edge, as torch's
    VariableHooks::grad_fn does (their gradient no longer reaches x)."""
    rg = root._rg
    for v in live_views(root):
        if v is changed or v._creation is not None or not (rg or v.grad_fn is not None):
            continue
        v.grad_fn = make_node(AsStridedBackward0, (root,), v.dtype, (),
                              {"region": view_region(v._data, root._data), "numel": root._data.size,
                               "base_shape": root._data.shape})
        v._output_nr = 0
        v._rg = True


def set_value_node(input, value, vshape):
    """The node of `input[key] = value` inside CopySlices: edges (region's old place, value)."""
    node = make_node(_SetValue, (None, value), input.dtype, (),
                     {"vshape": vshape, "vdtype": value.dtype if isinstance(value, Tensor) else input.dtype})
    return node


# One declaration per op (registry.py); methods.py derives the tables. Called on a copy, so that the
# gradient checks' leaves stay leaves.
OPS = [
    op("zero_", zero_, sample=Sample("unary", call=lambda torch, x: (x * 1).zero_())),
    op("fill_", fill_, torch=False, sample=Sample([((2, 3), ()), ((), ())], call=lambda torch, x, v: (x * 1).fill_(v))),
    op("fill_", torch_fill_, method=False, key="torch.fill_", no_grad="x.fill_'s gradcheck: the same function"),
    op("copy_", copy_, torch=False, sample=Sample([((2, 3), (2, 3)), ((2, 3), (3,)), ((), ())],
                                                 call=lambda torch, x, y: (x * 1).copy_(y))),
]
