"""Indexing: x[key] (select/slice/unsqueeze views, advanced index copies) and x[key] = v
(CopySlices). (scatter/gather/index_select and the masked ops: ops/gather_scatter.py.)"""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..argcheck import is_scalar, typename
from ..autograd import forward_level, make_node
from ..autograd_modes import INPLACE_INFERENCE, InferenceCounter, grad_mode
from ..device import asarray as _asarray
from ..device import like, overlaps, write_alias, writeable, xp_of
from ..device import scatter_add as _scatter_add_at
from ..function import Function, inference_leaf, record
from ..tensor import Tensor, wrap
from ..views import view_of, view_rebase_message
from . import replays, words
from .index_key import check_bounds, check_ellipses, in_range_key, is_advanced, normalize
from .shape import AliasBackward0, sum_to
from .join_split import SliceBackward0
from .registry import Sample, op


class SelectBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed(words.SELECTED))
    replay = staticmethod(replays.index)

    def backward(self, g):
        return (slice_backward(g, self._kw["in_shape"], self._kw["key"]),)


class IndexBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = staticmethod(words.fixed(words.SELECTED))
    replay = staticmethod(replays.index)

    def backward(self, g):
        return (index_backward(g, self._kw["in_shape"], self._kw["key"]),)


class IndexPutImplBackward0(Function):
    """torch's index_backward: zeros.index_put_(indices, grad, accumulate=True), the differentiable
    scatter-add that is the backward of an advanced index. Edges: the zeros (none), the values."""
    __slots__ = ()

    def backward(self, g):
        return (None, getitem(g, self._kw["key"]))


class SliceBackwardBackward0(Function):
    """torch's slice_backward: zeros with g written at a basic key of slices (the backward of a slice)."""
    __slots__ = ()

    def backward(self, g):
        return (getitem(g, self._kw["key"]),)


class SelectBackwardBackward0(SliceBackwardBackward0):
    """torch's select_backward: the same with an integer in the key (the backward of select)."""
    __slots__ = ()


def slice_backward(g, in_shape, key):
    data = np.zeros(in_shape, g._data.dtype) if type(g._data) is np.ndarray else \
        xp_of(g._data).zeros(in_shape, g._data.dtype)
    data[key] = g._data
    select = any(k.__class__ is not slice for k in key)
    return record(SelectBackwardBackward0 if select else SliceBackwardBackward0, (g,), wrap(data, g.dtype),
                  {"key": key})


def index_backward(g, in_shape, key, cls=IndexPutImplBackward0, kw=None, accumulate=True):
    """zeros of in_shape with g added at key (differentiable; cls and kw: the node, for index_select's);
    accumulate=False puts g there (positions that do not repeat: a -0. stays -0.)."""
    data = xp_of(g._data).zeros(in_shape, g._data.dtype)
    if accumulate:
        _scatter_add_at(data, key, g._data)  # np.add.at, or cupy.add.at on the GPU
    else:
        data[key] = g._data
    if not (grad_mode.enabled and g._rg):
        return wrap(data, g.dtype)
    from ..factory import zeros  # noqa: PLC0415
    return record(cls, (zeros(in_shape, dtype=g.dtype, device=g.device), g), wrap(data, g.dtype),
                  {"key": key} if kw is None else kw)


def _normal_key(key):
    """The index tensors torch makes of key are normal tensors (not all of its tensors are inference
    tensors, or it holds a list or a bool): an inference leaf's index is then recorded (function.record)."""
    for k in key if key.__class__ is tuple else (key,):
        if isinstance(k, Tensor) and k._version.__class__ is list or isinstance(k, (list, bool, np.ndarray)):
            return True
    return False


def getitem(input, key):
    """x[key], applied as torch applies it: basic components left to right (select, slice, unsqueeze:
    each a view with its own node; full slices are skipped), then one advanced index (a copy)."""
    data = input._data
    given = key
    single_slice = key.__class__ is slice  # x[a:b] alone is always a slice in torch, even a full one
    if data.ndim == 0:
        _zero_dim_key(key)
    key = normalize(key, data)
    if len(key) > 2 and sum(k is Ellipsis for k in key) > 1:
        key = check_ellipses(data.shape, key)
    check_bounds(data.shape, key)
    if len(key) == 1 and key[0].__class__ is int:  # the common x[i]
        k = key[0]
        arr = data[k, ...]
        return record(SelectBackward0, (input,), view_of(input, arr), {"in_shape": data.shape, "key": (k,)})
    consumed = 0
    for k in key:
        if k is None or k is Ellipsis or (isinstance(k, np.ndarray) and k.dtype == bool and k.ndim == 0):
            continue
        consumed += k.ndim if isinstance(k, np.ndarray) and k.dtype == bool else 1
    cur, d, adv, steps = input, 0, [], 0
    for k in key:
        if k is Ellipsis:
            n = data.ndim - consumed
            adv += [slice(None)] * n
            d += n
        elif k is None:
            cur = _unsqueeze(cur, d)
            adv.append(slice(None))
            d += 1
            steps += 1
        elif isinstance(k, slice):
            size = cur._data.shape[d]
            start, stop, step = k.indices(size)
            if single_slice or not (start == 0 and stop >= size and step == 1):
                sub = (slice(None),) * d + (k,)
                cur = record(SliceBackward0, (cur,), view_of(cur, cur._data[sub]),
                             {"in_shape": cur._data.shape, "key": sub})
                steps += 1
            adv.append(slice(None))
            d += 1
        elif isinstance(k, np.ndarray) or hasattr(k, "__cuda_array_interface__"):
            if k.dtype == bool and k.ndim == 0:  # x[True]: unsqueeze, then index by [0] (or by [])
                cur = _unsqueeze(cur, d)
                steps += 1
                k = np.zeros(1 if bool(k) else 0, np.int64)
            adv.append(k)
            d += k.ndim if k.dtype == bool else 1
        else:
            sub = (slice(None),) * d + (k, Ellipsis)
            cur = record(SelectBackward0, (cur,), view_of(cur, cur._data[sub]),
                         {"in_shape": cur._data.shape, "key": sub[:-1]})
            steps += 1
    if any(isinstance(k, np.ndarray) or hasattr(k, "__cuda_array_interface__") for k in adv):
        while adv and isinstance(adv[-1], slice):
            adv.pop()
        akey = tuple(adv)
        try:
            arr = cur._data[akey]
        except IndexError as e:
            # check_bounds let it through: the result is empty, and torch's index kernel walks no element
            safe = in_range_key(akey)
            arr = cur._data[safe]
            if arr.size:
                raise errors.index(str(e).replace("axis", "dimension")) from None
            akey = safe
        return record(IndexBackward0, (cur,), wrap(_asarray(arr), input.dtype),
                      {"in_shape": cur._data.shape, "key": akey}, normal=inference_leaf(cur) and _normal_key(given))
    if steps == 0:
        out = view_of(input, data[...])
        return out if not input._rg and forward_level[0] is None else record(AliasBackward0, (input,), out)
    return cur


def _zero_dim_key(key):
    """torch's own errors for a lone integer or slice key of a 0-d tensor (an integer or slice inside a
    tuple is 'too many indices', index_key.check_bounds)."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        if key != 0:  # applySelect reads the size of dim 0, which a 0-d tensor lacks: 0 on CPU
            raise errors.index(f"index {int(key)} is out of bounds for dimension 0 with size 0", hint="index_range")
        raise errors.index("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                           "C++ to convert a 0-dim tensor to a number", hint="zero_dim_index")
    if isinstance(key, slice):
        raise errors.index("slice() cannot be applied to a 0-dim tensor.")


def _unsqueeze(t, d):
    from .shape import unsqueeze  # noqa: PLC0415
    return unsqueeze(t, d)


class IndexPutValueBackward(Function):
    """x[index_list] = value (torch's index_put_): the old x gets g outside the written positions,
    value the sum of g over them. Edges (x's old place, value)."""
    __slots__ = ()

    def backward(self, g):
        from .inplace import outside_region  # noqa: PLC0415
        from .shape import reshape  # noqa: PLC0415
        k = self._kw
        region = k["region"]
        n = g._data.size
        flat = reshape(g, (-1,))
        g_old = reshape(flat * wrap(like(g._data, outside_region(region, n, g._data.dtype)), g.dtype), g._data.shape)
        g_val = None
        if self.next_functions[1][0] is not None:
            g_val = sum_to(reshape(flat[wrap(region.reshape(-1), dtypes.int64)], region.shape), k["vshape"])
        return g_old, g_val


IndexPutValueBackward.__name__ = IndexPutValueBackward.__qualname__ = "IndexPutBackward0"


def check_inplace(t, as_view=False):
    """PyTorch refuses in-place changes to a leaf (or a view of one) that requires grad."""
    base = t if t._base is None else t._base
    alias = base.__dict__.get("_gs_alias")  # t is (a view of) a detach() of alias: they share the version counter
    if not grad_mode.enabled:
        root = base if alias is None else alias
        if root is not t or "_gs_views" in t.__dict__:
            # torch regenerates the views' grad_fn when next read (their version moved on)
            from .inplace import regenerate_views  # noqa: PLC0415 - inplace imports this module
            regenerate_views(root, None)
        return
    if alias is not None:  # (in grad mode, an in-place op of a view regenerates the others itself)
        from .inplace import regenerate_views  # noqa: PLC0415 - inplace imports this module
        regenerate_views(alias, None)
    if grad_mode.enabled:
        if t._creation is not None:
            raise errors.runtime(view_rebase_message(t))
        if t.grad_fn is None and t._rg:
            if as_view or t._base is not None:  # a leaf that is a view (x.view(-1).requires_grad_())
                raise errors.runtime("a view of a leaf Variable that requires grad is being used in an in-place "
                                     "operation.", hint="leaf_inplace")
            raise errors.runtime(errors.LEAF_INPLACE, hint="leaf_inplace")
        base = t._base  # check_inplace: a view that requires grad, of a base that is a leaf (even one
        # that does not require grad: x = a.reshape(3).requires_grad_(); x[0].add_(1))
        if base is not None and base.grad_fn is None and t._rg and t.grad_fn is not None:
            raise errors.runtime("a view of a leaf Variable that requires grad is being used in an in-place "
                                 "operation.", hint="leaf_inplace")


def real(input):
    """x.real: at::real, the tensor itself for the real dtypes (the only ones gradcli has)."""
    return input


def set_real(input, value):
    """x.real = v: torch's THPVariable_set_real, x.real.copy_(valueToTensor(v)) (recorded as copy_ is)."""
    if not isinstance(value, Tensor) and not is_scalar(value):
        raise errors.type_error(f"can't assign a {typename(value)} to a {errors.type_string(input)}")
    if value.__class__ is int:
        dtypes.unpack_long(value)
    from .inplace import copy_  # noqa: PLC0415 - inplace.py imports this module
    copy_(input, value)


def imag(input, value=None):
    """x.imag, and x.imag = v: at::imag refuses a real tensor (before the value is looked at)."""
    raise errors.runtime("imag is not implemented for tensors with non-complex dtypes.")


def setitem(input, key, value):
    if not isinstance(value, Tensor) and not is_scalar(value):  # torch's valueToTensor, before the index
        raise errors.type_error(f"can't assign a {typename(value)} to a {errors.type_string(input)}")
    if value.__class__ is int:
        dtypes.unpack_long(value)
    if input._data.ndim == 0:
        _zero_dim_key(key)
    if not isinstance(value, Tensor) and input.dtype.category == dtypes.INT:
        dtypes.checked_scalar(value, input.dtype)  # valueToTensor: before the key is looked at
    nkey = normalize(key, input._data)
    if len(nkey) > 2 and sum(k is Ellipsis for k in nkey) > 1:
        nkey = check_ellipses(input._data.shape, nkey)
    advanced = any(is_advanced(k) for k in nkey)
    whole = not advanced and _all_full(nkey, input._data.shape)
    step = Ellipsis
    if input._creation is not None and grad_mode.enabled and not advanced:
        step = next((k for k in reversed(nkey) if _is_view_step(k)), Ellipsis)
    if step is not Ellipsis:
        # torch takes the view input[key] (select, slice, unsqueeze: the last step that is not `:`) and
        # copies into it: that view inherits input's CreationMeta and is the one named
        name = "Select" if isinstance(step, (int, np.integer)) else "Slice" if isinstance(step, slice) else \
            "Unsqueeze" if step is None else None
        if input._creation[1] != input._version[0]:  # taking the view regenerates input's grad_fn: refused
            raise errors.runtime(view_rebase_message(input, indirect=True))
        raise errors.runtime(view_rebase_message(input, name))
    check_inplace(input, as_view=not advanced and not whole)
    data = input._data
    late = check_bounds(data.shape, nkey, defer=True)
    if isinstance(value, Tensor):
        v = value._data
        if v.ndim > 0 and v.shape[0] == 1:  # torch drops the value's leading 1s first (slicePrefix1sDims)
            v = v.reshape(_strip_leading_ones(v.shape))
        if v.dtype != data.dtype:
            if advanced and not _masked_fill_dispatch(nkey, value):
                _check_index_put_dtype(input, nkey, value)
            v = v.astype(data.dtype)
        if type(v) is not type(data):  # x[k] = y across devices copies, as torch's copy_ does
            v = like(data, v)
    else:
        v = dtypes.checked_scalar(value, input.dtype) if input.dtype.category == dtypes.INT else value
    if late is not None:  # index_put_ checks the value's shape before its kernel checks the indices' values
        if isinstance(value, Tensor):
            target = np.empty(data.shape, bool)[in_range_key(nkey)].shape
            try:
                np.broadcast_to(np.empty(_strip_leading_ones(np.shape(v)), bool), target)
            except ValueError:
                raise _setitem_shape_error(data, nkey, v, advanced, value) from None
        raise errors.index(late, hint="index_range")
    if advanced and expanded(data):
        warn_expanded("index_put_")
        if _masked_fill_dispatch(nkey, value if isinstance(value, Tensor) else None):
            warn_expanded("masked_fill_")
    if not writeable(data):  # an expanded tensor: torch writes it unless the destination repeats an element
        if not advanced and overlaps(data[nkey] if any(k is Ellipsis for k in nkey) else data[(*nkey, Ellipsis)]):
            from .inplace import OVERLAP_MESSAGE  # noqa: PLC0415 - inplace imports this module
            raise errors.runtime(OVERLAP_MESSAGE)
        data = write_alias(data)
        if data is None:
            raise errors.runtime("unsupported operation: some elements of the input tensor and the written-to "
                                 "tensor refer to a single memory location. Please clone() the tensor before "
                                 "performing the operation.")
    if not advanced and isinstance(value, Tensor) and type(data) is np.ndarray:
        from .inplace_checks import PARTIAL_OVERLAP_MESSAGE, partial_overlap  # noqa: PLC0415 - it imports this module
        if partial_overlap(data[nkey], value._data):  # x[1:] = x[:-1]: copy_ into the view x[1:]
            raise errors.runtime(PARTIAL_OVERLAP_MESSAGE)
    try:
        try:
            data[nkey] = v
        except IndexError:  # check_bounds let it through: nothing is written, index_put_'s kernel checks no value
            data[in_range_key(nkey)] = v
    except (ValueError, TypeError):  # NumPy's mask assignment takes 0-d or 1-d values only (a TypeError)
        raise _setitem_shape_error(data, nkey, v, advanced, value) from None
    except OverflowError:
        data[nkey] = np.asarray(v).astype(data.dtype)
    if input._version.__class__ is InferenceCounter and not grad_mode.inference and any(
            _is_view_step(k) or (isinstance(k, np.ndarray) and k.ndim == 0) for k in nkey):
        # an inference tensor's detach(): torch copies into a view of it (select, slice, unsqueeze), whose
        # version bump raises after the write (views.view_of); full slices and index_put_ write it itself
        raise errors.runtime(INPLACE_INFERENCE, hint="inference")
    input._version[0] += 1
    if forward_level[0] is not None:  # a forward-AD level: input's tangent gets value's at the key
        from ..forward_ad import setitem_tangent  # noqa: PLC0415
        setitem_tangent(input, nkey, value)
    if grad_mode.enabled and (input._rg or (isinstance(value, Tensor) and value._rg)) and input.dtype.is_floating_point:
        _setitem_graph(input, nkey, value, advanced, whole)  # (an integer or bool tensor never requires grad)
    return None


def _all_full(nkey, shape):
    """Every component is `...` or a slice over its whole dim: torch's setitem skips those (its
    slice optimisation) and copies into (fills) the tensor itself."""
    if not all(k is Ellipsis or isinstance(k, slice) for k in nkey):
        return False
    if sum(k is Ellipsis for k in nkey) > 1:
        return False
    cut = next((i for i, k in enumerate(nkey) if k is Ellipsis), len(nkey))
    before, after = nkey[:cut], nkey[cut + 1:]
    if len(before) + len(after) > len(shape):
        return False  # too many indices: index_key.check_bounds says so
    dims = list(zip(before, shape)) + list(zip(after, shape[len(shape) - len(after):]))
    for k, size in dims:
        start, stop, step = k.indices(size)
        if not (start == 0 and stop >= size and step == 1):
            return False
    return True


def _masked_fill_dispatch(nkey, value):
    """index_put_'s canDispatchToMaskedFill: one bool (or uint8) mask among the indices and a value of one
    element (None: a Python number); torch then fills with value.item(), whatever its dtype."""
    masks = [k for k in nkey if is_advanced(k) and k.dtype in (np.bool_, np.uint8)]
    return (value is None or value._data.size == 1) and len(masks) == 1 and sum(is_advanced(k) for k in nkey) == 1


# TensorAdvancedIndexing.cpp's TORCH_WARN when the tensor written is expanded (has_internal_overlap: a
# dim of stride 0 and more than one element); x[mask] = v is index_put_, then masked_fill_: both warn
_EXPANDED_WARNINGS = {
    "index_put_": ("tensor[indices] = tensor", 976),
    "masked_fill_": ("tensor[mask] = scalar", 2450),
}


def expanded(data):
    # (an empty array's NumPy strides are 0 where torch's are contiguous ones: not expanded)
    return data.size != 0 and any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape))


def warn_expanded(name):
    import warnings  # noqa: PLC0415 - only for the warning
    example, line = _EXPANDED_WARNINGS[name]
    warnings.warn(f"Use of {name} on expanded tensors is deprecated. Please clone() the tensor before performing "
                  f"this operation. This also applies to advanced indexing e.g. {example} (Triggered internally "
                  f"at /__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:{line}.)", UserWarning, stacklevel=3)


def _check_index_put_dtype(input, nkey, value):
    """index_put_ with a value of another dtype: its shape check first, then its dtype check."""
    from .elementwise_common import c10_name  # noqa: PLC0415
    data = input._data
    target = np.empty(data.shape, bool)[in_range_key(nkey)].shape
    vshape = _strip_leading_ones(value._data.shape)
    try:
        np.broadcast_to(np.empty(vshape, bool), target)
    except ValueError:
        raise _setitem_shape_error(data, nkey, value._data, True, value) from None
    raise errors.runtime(f"Index put requires the source and destination dtypes match, got {c10_name(input.dtype)} "
                         f"for the destination and {c10_name(value.dtype)} for the source.", hint="dtype_mismatch")


def _strip_leading_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _setitem_shape_error(data, nkey, v, advanced=False, value=None):
    target = np.empty(data.shape, bool)[in_range_key(nkey)].shape
    vshape = _strip_leading_ones(np.shape(v))
    n = len(target)
    if advanced:  # index_put_'s message
        return errors.runtime(f"shape mismatch: value tensor of shape [{', '.join(map(str, vshape))}] cannot be "
                              f"broadcast to indexing result of shape [{', '.join(map(str, target))}]")
    # copy_to: the value (its leading 1s dropped) expanded to the indexed shape (expand's errors)
    if len(vshape) > n:
        legacy = value.dtype.legacy if isinstance(value, Tensor) else dtypes.defaults.float.legacy
        return errors.runtime(f"expand(torch.{legacy}{{[{', '.join(map(str, vshape))}]}}, size=[{', '.join(map(str, target))}]): "
                              f"the number of sizes provided ({n}) must be greater or equal to the number of "
                              f"dimensions in the tensor ({len(vshape)})")
    for i in range(1, len(vshape) + 1):
        if vshape[-i] != 1 and vshape[-i] != target[-i]:
            return errors.runtime(f"The expanded size of the tensor ({target[-i]}) must match the existing size "
                                  f"({vshape[-i]}) at non-singleton dimension {n - i}.  Target sizes: "
                                  f"[{', '.join(map(str, target))}].  Tensor sizes: [{', '.join(map(str, vshape))}]")
    return errors.runtime("shape mismatch")


def _is_view_step(k):
    """A key component torch applies as a view before an advanced index (int, None, x[True], a slice)."""
    if k is None or k is Ellipsis:
        return k is None
    if isinstance(k, slice):
        return not (k.start in (None, 0) and k.stop is None and k.step in (None, 1))
    if isinstance(k, np.ndarray):
        return k.dtype == bool and k.ndim == 0
    return True


def _setitem_graph(input, nkey, value, advanced, whole):
    from . import inplace as P  # noqa: PLC0415 - inplace imports this module
    old, old_nr = input.grad_fn, input._output_nr
    vshape = value._data.shape if isinstance(value, Tensor) else ()
    if whole:
        if not isinstance(value, Tensor) or value._data.ndim == 0:
            node = make_node(P.FillBackward3, (input, value), input.dtype)
        else:
            node = make_node(P.CopyBackwards, (input, value), input.dtype, (),
                             {"src_shape": vshape, "src_dtype": value.dtype})
        P.apply_inplace_graph(input, node)
    else:
        region = np.array(np.arange(input._data.size, dtype=np.int64).reshape(input._data.shape)[nkey])
        if advanced and not any(_is_view_step(k) for k in nkey):
            node = make_node(IndexPutValueBackward, (input, value), input.dtype, (),
                             {"region": region, "vshape": vshape})
            P.apply_inplace_graph(input, node)
        else:
            P.apply_inplace_graph(input, P.set_value_node(input, value, vshape), region)
    if input._retains:
        P.move_retain(input, old, old_nr)



def _setitem_call(torch, x, v):
    """x[0] = v on a copy of x (the gradient checks' call)."""
    y = x * 1
    y[0] = v
    return y


# One declaration per op (registry.py); methods.py derives the tables (operators.py the dunders)
OPS = [
    op("getitem", getitem, SelectBackward0, IndexBackward0, method=False, torch=False, operator="[]", sample=Sample(
        [((2, 3),), ((3, 2, 2),)], call=lambda torch, x: (x[0, 1:], x[..., None, [1, 0]], x[x > 0]))),
    op("setitem", setitem, method=False, torch=False, operator="[]=",
       sample=Sample([((2, 3), (3,)), ((2, 3), ()), ((3,), ())], call=_setitem_call)),
]
