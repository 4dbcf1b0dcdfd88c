"""The key of x[key] and x[key] = v as torch's applySlicing reads it (python_variable_indexing.cpp): its
components in NumPy's terms (treatSequenceAsTuple, sequenceToVariable, __index__), the walk of several `...`,
and the key's errors in torch's order (too many indices, out-of-range integers, masks, broadcast index tensors).
indexing.py does the indexing itself."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..argcheck import int64_args, typename
from ..device import host, is_device_array
from ..tensor import Tensor


def _key_part(k):
    """A key component in NumPy's terms; Tensors become arrays (bool masks stay masks)."""
    if isinstance(k, Tensor):
        if k.dtype.is_floating_point:
            raise errors.index("tensors used as indices must be long, int, byte or bool tensors")
        if k._data.ndim == 0:  # applySlicing: a 0-d integer tensor selects, a 0-d byte or bool one is x[True]
            if k.dtype in (dtypes.bool_, dtypes.uint8):
                return np.asarray(bool(k._data))
            return int(k._data)
        return host(k._data)  # index arrays live on the host (bounds checks); CuPy copies them over
    if isinstance(k, range):  # a sequence index, as torch takes it (x[range(2), target])
        return np.arange(k.start, k.stop, k.step, dtype=np.int64)
    if isinstance(k, list):
        if not k:  # x[[]]: an empty long index, as torch makes it
            return np.zeros(0, np.int64)
        return np.asarray([_key_part(v) for v in k]) if isinstance(k[0], Tensor) else np.asarray(k)
    if isinstance(k, bool):
        return np.asarray(k)
    if isinstance(k, slice):
        if not all(v is None or isinstance(v, int) for v in (k.start, k.stop, k.step)):
            k = slice(*(_slice_bound(v) for v in (k.start, k.stop, k.step)))
        if k.step == 0:
            raise errors.value("slice step cannot be zero")
        if k.step is not None and k.step < 0:
            raise errors.value("step must be greater than zero")
        return k
    if isinstance(k, str):
        _warn_sequence()
        raise errors.type_error("new(): invalid data type 'str'")
    if isinstance(k, float):
        raise errors.index("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                           "valid indices (got float)")
    if k is None or k is Ellipsis or isinstance(k, (int, np.generic, np.ndarray)) or is_device_array(k):
        return k
    return _foreign_part(k)


def _foreign_part(k):
    """A key component of no kind the engine knows (a script class's object): torch's applySlicing
    makes a sequence an index tensor (sequenceToVariable: torch.tensor's reading, long unless it reads
    bools) and an object with __index__ an integer; anything else is its IndexError. NumPy took such
    an object as a sequence itself, probing an object whose items are objects 32 levels deep (3**32
    calls of the script's __getitem__: a run to --timeout)."""
    from ..factory import is_sequence, tensor  # noqa: PLC0415 - factory imports the ops

    if is_sequence(k):
        t = tensor(k)
        if t.dtype not in (dtypes.bool_, dtypes.uint8):
            t = tensor(k, dtype=dtypes.int64)
        return _key_part(t)
    index = getattr(type(k), "__index__", None)
    if index is not None:
        return index(k)
    raise errors.index("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                       f"valid indices (got {typename(k)})")


def _slice_bound(v):
    """A slice's start, stop or step as Python takes it: None, an int, or what __index__ gives (a one-element
    integer tensor as data[i:i + block_size] with i from a tensor; Tensor.__index__ raises torch's TypeError
    for a float one)."""
    if v is None or isinstance(v, int):
        return v
    if not hasattr(type(v), "__index__"):
        raise errors.type_error("slice indices must be integers or None or have an __index__ method")
    return v.__index__()


def _warn_sequence():
    import warnings  # noqa: PLC0415
    warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
                  "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted "
                  "as tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                  "result", UserWarning, stacklevel=5)


def _sequence_as_tuple(key):
    """torch's treatSequenceAsTuple (NumPy's heuristic): a list shorter than 32 holding a tensor, a
    sequence, a slice, None or ... is the tuple of its items (with a deprecation warning)."""
    if key.__class__ is list and len(key) < 32 and any(
            isinstance(k, (Tensor, list, tuple, str, slice, range)) or k is None or k is Ellipsis for k in key):
        _warn_sequence()
        return tuple(key)
    if key.__class__ in _KNOWN_KEYS or isinstance(key, (Tensor, tuple, list, range, np.generic, np.ndarray)):
        return key
    from ..factory import is_sequence  # noqa: PLC0415 - factory imports the ops

    if is_sequence(key) and _foreign_items_as_tuple(key, is_sequence):
        _warn_sequence()
        return tuple(key)
    return key


_KNOWN_KEYS = frozenset((int, bool, slice, str, float, type(None), type(Ellipsis)))


def _foreign_items_as_tuple(key, is_sequence):
    """treatSequenceAsTuple for a sequence of the script's: its length (an error: not a tuple), then
    its items by index up to the first that is a tensor, a sequence, a slice, None or ... (an error
    reading one: not a tuple)."""
    try:
        n = len(key)
        if n >= 32:
            return False
        for i in range(n):
            k = key[i]
            if isinstance(k, (Tensor, slice, np.ndarray, list, tuple, str, range)) or k is None or k is Ellipsis \
                    or is_sequence(k):
                return True
    except Exception:  # noqa: BLE001 - torch clears the error (PyErr_Clear) and takes the key whole
        return False
    return False


def normalize(key, data=None):
    key = _sequence_as_tuple(key)
    if not isinstance(key, tuple):
        key = (key,)
    if type(data) is np.ndarray and any(isinstance(k, Tensor) and k.is_cuda for k in key):
        raise errors.runtime("indices should be either on cpu or on the same device as the indexed tensor (cpu)")
    if data is not None and not all(k.__class__ in _KNOWN_KEYS or isinstance(k, (Tensor, list, np.generic)) for k in key):
        _count_specified(key, data.ndim)
    return tuple(_key_part(k) for k in key)


def _count_specified(key, ndim):
    """torch's count_specified_dimensions, checked before any component becomes a tensor: a script's
    sequence whose items are sequences is 'too many indices', not the reading's own error."""
    n = sum(k.dim() if isinstance(k, Tensor) and k.dtype in (dtypes.bool_, dtypes.uint8) else 1
            for k in key if k is not None and k is not Ellipsis and not isinstance(k, bool))
    if n > ndim:
        raise errors.index(f"too many indices for tensor of dimension {ndim}")


def check_ellipses(shape, key):
    """torch's walk of a key with several `...` (applySlicing: each one moves the dim by ndim minus the
    specified dims, so the walk can pass the last dim), raising its errors there: a select reads a size
    past the sizes (0, as the unused slots read on CPU), a slice other than from 0 by 1 and an unsqueeze
    name the dim, index tensors past the end are "too many indices". Returns the key spelt out for
    getitem/setitem: each `...` as the full slices of the dims it skips, the slices torch skips past the
    last dim left out."""
    n_spec = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == bool else 1
                 for k in key if k is not None and k is not Ellipsis and not
                 (isinstance(k, np.ndarray) and k.dtype == bool and k.ndim == 0))
    ndim = cur = len(shape)
    dim, n_indices, out = 0, 0, []
    for pos, k in enumerate(key):
        if k is Ellipsis:
            out += [slice(None)] * max(0, min(ndim - n_spec, cur - dim))
            dim += ndim - n_spec
            continue
        if dim >= cur and isinstance(k, slice):
            if not (k.start in (None, 0) and k.step in (None, 1) and (k.stop is None or k.stop >= 0)):
                raise errors.index(f"Dimension out of range (expected to be in range of [{-cur}, {cur - 1}], but "
                                   f"got {dim})")
            dim += 1
            continue
        out.append(k)
        if k is None or (isinstance(k, np.ndarray) and k.dtype == bool and k.ndim == 0):
            if dim > cur:
                raise errors.index(f"Dimension out of range (expected to be in range of [{-cur - 1}, {cur}], but "
                                   f"got {dim})")
            cur += 1
            dim += 1
            if k is not None:
                n_indices = dim
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            if dim >= cur:
                raise errors.index(f"index {k} is out of bounds for dimension {pos} with size 0",
                                   hint="index_range")
            cur -= 1
        elif isinstance(k, slice):
            dim += 1
        else:  # an index tensor or mask: recordTensorIndex at dim
            dim += 1
            n_indices = dim
    if n_indices > cur:
        raise errors.index(f"too many indices for tensor of dimension {cur} (got {n_indices})")
    return tuple(out)


def is_advanced(k):
    return isinstance(k, np.ndarray) or hasattr(k, "__cuda_array_interface__")


def check_bounds(shape, key, defer=False):
    """Raise the key's errors in torch's order; with defer, an index tensor's bad value (the kernel's
    check, which comes after index_put_'s value checks) is returned instead of raised."""
    dim = 0
    n_spec = sum(1 for k in key if k is not None and k is not Ellipsis and not
                 (isinstance(k, np.ndarray) and k.dtype == bool))
    n_spec += sum(k.ndim for k in key if isinstance(k, np.ndarray) and k.dtype == bool)
    if n_spec > len(shape):
        raise errors.index(f"too many indices for tensor of dimension {len(shape)}")
    late = None  # an index tensor's bad value: the kernel's check, after the integers' selects; it names
    tensors = []  # (place, values, size) of each index tensor
    n_index = 0  # the index's place among the index tensors (a mask counts one per dim), not the dim
    mask_error = None
    indexed = []  # the places in sliced of the index tensors' dims
    sliced = []  # the tensor applySlicing hands the index kernel: integers selected, slices applied,
    for pos, k in enumerate(key):  # None and scalar bools unsqueezed (the mask message names its shape)
        if k is Ellipsis:
            span = len(shape) - n_spec
            sliced += shape[dim:dim + span]
            dim += span
            continue
        if k is None:
            sliced.append(1)
            continue
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            size = shape[dim]
            if not -size <= k < size:  # applySelect names the integer's place in the key (real_dim)
                int64_args(k)  # THPUtils_unpackLong's error comes first
                raise errors.index(f"index {k} is out of bounds for dimension {pos} with size {size}",
                                   hint="index_range")
            dim += 1
        elif isinstance(k, np.ndarray) and k.dtype != bool:
            size = shape[dim]
            if k.size and (k.max() >= size or k.min() < -size):
                late = True
            tensors.append((n_index, k, size))
            indexed.append(len(sliced))
            sliced.append(size)
            dim += 1
            n_index += 1
        elif isinstance(k, np.ndarray):
            n_index += max(k.ndim, 1)
            if k.ndim == 0:
                sliced.append(1)
            for j in range(k.ndim):
                if k.shape[j] != shape[dim + j] and mask_error is None:  # the index kernel's: after the selects
                    mask_error = (k.shape, j, len(sliced) + j)
            sliced += shape[dim:dim + k.ndim]
            dim += k.ndim
        else:
            sliced.append(len(range(*k.indices(shape[dim]))) if isinstance(k, slice) else shape[dim])
            dim += 1
    if mask_error is not None:
        sliced += shape[dim:]
        mask, j, at = mask_error
        raise errors.index(f"The shape of the mask [{', '.join(map(str, mask))}] at index {j} does not match the "
                           f"shape of the indexed tensor [{', '.join(map(str, sliced))}] at index {at}")
    count = _check_index_broadcast(key)
    if count == 0:  # an index that selects nothing (x[False, idx]): the kernel reads none
        late = None
    if late is not None and any(sliced[i] == 0 for i in indexed):
        # AdvancedIndex: an indexed dim of size 0 with an index shape of no 0 (no value can be in range)
        late = "index is out of bounds for dimension with size 0"
        if defer:
            return late
        raise errors.index(late, hint="index_range")
    if late is not None and 0 in [n for i, n in enumerate(sliced) if i not in indexed] + list(shape[dim:]):
        late = None  # an empty result: the index kernel walks no element, so no value is checked
    if late is not None:
        late = _first_bad(tensors)
        if defer:
            return late
        raise errors.index(late, hint="index_range")
    return None


def _first_bad(tensors):
    """The index kernel's message: it walks the broadcast indices in order, each element's index tensors in
    turn, and names the first value out of range (and its tensor's place)."""
    try:
        arrays = np.broadcast_arrays(*[k for _, k, _ in tensors])
    except ValueError:
        arrays = [k for _, k, _ in tensors]
    flags = [((a >= size) | (a < -size)).reshape(-1) for a, (_, _, size) in zip(arrays, tensors)]
    first = min((int(np.argmax(f)), j) for j, f in enumerate(flags) if f.any())
    place, _, size = tensors[first[1]]
    bad = int(arrays[first[1]].reshape(-1)[first[0]])
    return f"index {bad} is out of bounds for dimension {place} with size {size}"


def in_range_key(nkey):
    """The key with its index tensors' values replaced by 0: the indexing result's shape without its bounds."""
    return tuple(np.zeros_like(k) if is_advanced(k) and k.dtype != bool else k for k in nkey)


def _check_index_broadcast(key):
    """torch broadcasts the index tensors (a mask gives one long tensor per dim, x[True] one of [1]) before
    its kernel checks their values: a mismatch is IndexError in torch's words, not NumPy's. Returns the
    number of elements the broadcast indices select (None for fewer than two indices)."""
    shapes = []
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype == bool:
            shapes += [(int(np.count_nonzero(k)),)] * k.ndim if k.ndim else [(1 if k else 0,)]
        elif isinstance(k, np.ndarray):
            shapes.append(k.shape)
    if len(shapes) < 2:
        return None
    try:
        return int(np.prod(np.broadcast_shapes(*shapes)))
    except ValueError:
        listed = ", ".join("[" + ", ".join(map(str, sh)) + "]" for sh in shapes)
        raise errors.index(f"shape mismatch: indexing tensors could not be broadcast together with shapes {listed}") from None
