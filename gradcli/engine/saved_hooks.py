"""torch.autograd.graph's hooks for saved tensors: saved_tensors_hooks, save_on_cpu and
disable_saved_tensors_hooks (the "Hooks for saved tensors" section of torch's autograd notes).

While a pair of hooks is set, every node recorded has its saved tensors packed: pack_hook(tensor),
called with grad mode off, in the order torch's node saves them (a node class's `saved_order`, the
indices of its saved values in torch's order; else their own order), and what it returns is kept
(a PackedValue) in place of the tensor. The backward reads it through `unpack_hook(packed)` (again in
that order), whose result must be a Tensor; like torch's SavedVariable, the unpacked tensor takes the
saved tensor's place in the graph (its grad_fn, or the leaf's gradient accumulator), and no version
check is made (torch's "we can't track versions through the hooks"). The packing is a node observer
(autograd.node_observer), chained before whatever observer the graph tools set.
"""
from __future__ import annotations

from . import errors

PACK_INPLACE = ("A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please open "
                "an issue if you need to perform in-place operations on the input to a pack hook.")

# the (pack_hook, unpack_hook) pairs set, innermost last; only the innermost applies
_stack: list = []
# disable_saved_tensors_hooks's message, or None while the hooks may be set
_disabled: list = [None]
# the node observers that were set when the outermost pair of hooks was pushed
_observers: list = []


class PackedValue:
    """A saved tensor packed by a pack hook: what the hook returned, the unpack hook, and the saved
    tensor's place in the graph."""
    __slots__ = ("packed", "unpack", "grad_fn", "output_nr", "requires_grad", "accum")

    def __init__(self, tensor, pack, unpack):
        from .autograd_modes import no_grad  # noqa: PLC0415
        version = tensor._version[0]
        with no_grad():
            packed = pack(tensor)
        if tensor._version[0] != version:
            raise errors.runtime(PACK_INPLACE)
        self.packed = packed
        self.unpack = unpack
        self.grad_fn = tensor.grad_fn
        self.output_nr = tensor._output_nr
        self.requires_grad = tensor._rg
        self.accum = tensor._edge()[0] if tensor.grad_fn is None and tensor._rg else None

    def value(self):
        from .tensor import Tensor, wrap  # noqa: PLC0415
        res = self.unpack(self.packed)
        if not isinstance(res, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(res).__name__}")
        t = wrap(res._data, res.dtype)
        t._rg = self.requires_grad
        t.grad_fn = self.grad_fn
        t._output_nr = self.output_nr
        if self.accum is not None:
            t._accum = self.accum
        return t


def unpack_saved(node, saved):
    """Node.saved's values where some are packed: the unpack hooks run in torch's order."""
    from .autograd import SavedValue  # noqa: PLC0415
    values = list(saved)
    order = getattr(type(node), "saved_order", None) or range(len(saved))
    for i in order:
        item = saved[i]
        if type(item) is PackedValue:
            values[i] = item.value()
        elif type(item) is SavedValue:
            values[i] = node_value(node, item)
    return values


def node_value(node, item):
    t = item.tensor
    if t._version[0] != item.version:
        raise errors.runtime(errors.modified_inplace(t, item.version, item.is_output and node, item.shape), hint="inplace")
    return t


def _pack_node(node, inputs, outputs):
    from .autograd import SavedValue  # noqa: PLC0415
    saved = node._saved
    if saved:
        pack, unpack = _stack[-1]
        items = list(saved)
        for i in getattr(type(node), "saved_order", None) or range(len(items)):
            item = items[i]
            if type(item) is SavedValue:
                items[i] = PackedValue(item.tensor, pack, unpack)
        node._saved = saved.__class__(items)  # a SavedShapes stays one (nothing to free after a pass)
    prev = _observers[-1] if _observers else None
    if prev is not None:
        prev(node, inputs, outputs)


def push(pack_hook, unpack_hook):
    from . import autograd  # noqa: PLC0415
    if _disabled[0] is not None:
        raise errors.runtime(_disabled[0])
    if not _stack:
        _observers.append(autograd.set_node_observer(_pack_node))
    _stack.append((pack_hook, unpack_hook))


def pop():
    from . import autograd  # noqa: PLC0415
    if _stack:
        _stack.pop()
        if not _stack and _observers:
            autograd.set_node_observer(_observers.pop())


class saved_tensors_hooks:  # noqa: N801 (torch's name)
    """torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        pop()

    def __repr__(self):
        return f"<torch.autograd.graph.{type(self).__name__} object at {hex(id(self))}>"


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (torch's name)
    """torch.autograd.graph.save_on_cpu(pin_memory=False, device_type="cuda"): the saved tensors are
    kept on the CPU and moved back to their device for the backward."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        del pin_memory, device_type  # torch's: pinned memory for a CUDA device's copies; the values are the same

        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:  # noqa: N801 (torch's name)
    """torch.autograd.graph.disable_saved_tensors_hooks(error_message): setting hooks inside raises
    RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message
        self._prev = None

    def __enter__(self):
        self._prev = _disabled[0]
        _disabled[0] = self.error_message

    def __exit__(self, *args):
        _disabled[0] = self._prev

    def __repr__(self):
        return f"<contextlib._GeneratorContextManager object at {hex(id(self))}>"


def reset():
    """No hooks set and none disabled (the end of a run: a script may leave a pair pushed)."""
    from . import autograd  # noqa: PLC0415
    _stack.clear()
    _disabled[0] = None
    if _observers:
        autograd.set_node_observer(_observers[0])
        _observers.clear()
