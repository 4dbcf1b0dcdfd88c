"""The backward graph's parts: graph nodes (PyTorch's `grad_fn` objects, `Node`; a leaf's
`AccumulateGrad`), saved values, hook handles, how an op records its node (`make_node`, `stamp`), the
source location of each node (the site hook) and the optional observers of the tools that watch the
engine. The modes are autograd_modes.py's, the backward engine that walks the graph autograd_engine.py's.

A node is created by an op when grad mode is on and an input requires grad. It keeps the
edges to its inputs' nodes (`next_functions`, leaves end in `AccumulateGrad`), the tensors its
backward formula needs (checked against version counters when unpacked, freed after a pass
unless `retain_graph`), and its non-tensor arguments.
"""
from __future__ import annotations

import itertools

from ..gcpolicy import collect_less_often
from . import errors
from .autograd_modes import SAVED_INFERENCE
from .saved_hooks import PackedValue, unpack_saved

collect_less_often()  # a long graph's nodes would set off full collections again and again (gcpolicy.py)


sequence_numbers = itertools.count()
_ACCUMULATE_PRIORITY = float("inf")


class _Extra:
    """A node's rarely used state, allocated on first use (keeps node creation cheap)."""
    __slots__ = ("retained", "pre_hooks", "hooks", "metadata")

    def __init__(self):
        self.retained = self.pre_hooks = self.hooks = self.metadata = None


def _extra_property(field, doc):
    def get(self):
        x = self._x
        return None if x is None else getattr(x, field)

    def set_(self, value):
        x = self._x
        if x is None:
            x = self._x = _Extra()
        setattr(x, field, value)
    return property(get, set_, doc=doc)


def _nrs_of(nrs):
    """The output numbers of a node's edges, as a shared tuple when all are 0 (nearly always)."""
    nrs = tuple(nrs)
    return ZERO_NRS.get(nrs, nrs)


ZERO_NRS = {(0,) * n: (0,) * n for n in range(9)}
_ZERO_BY_LEN = list(ZERO_NRS.values())  # by length: make_node's edges all numbered 0


class Node:
    """A `grad_fn`. Subclasses are the ops (see ops/); the class name is PyTorch's node name.

    The edges (`next_functions`, pairs (node, output_nr)) are kept as two tuples: `_fns`, the nodes (None:
    no gradient flows there), and `_nrs`, their output numbers (a shared tuple of zeros nearly always).
    A graph of n nodes then holds n + 1 container objects instead of one pair per edge plus a tuple:
    fewer objects for the garbage collector to walk (its full passes over a long graph cost more than
    building it) and for the engine to unpack. `next_functions` builds torch's tuple of pairs on demand."""

    # _site: where the node was created, what the language's site hook returned (site_pair reads it), or None
    __slots__ = ("_fns", "_nrs", "_saved", "_kw", "_seq", "_out_dtype", "_x", "_site", "__weakref__")
    n_outputs = 1
    # (edge index, node class): run_plain may run the node of that class on that edge together with
    # this one (fused_backward(g, child)) when only this node feeds it and it is the next to run
    fuses = None

    def __lt__(self, other):  # the backward ready queue: nodes of equal sequence number are unordered
        return False

    @property
    def next_functions(self):
        fns = self._fns
        nrs = self._nrs
        if len(fns) == 2:  # a binary op's (formulas ask `next_functions[i][0] is not None`): no zip object
            return ((fns[0], nrs[0]), (fns[1], nrs[1]))
        return tuple(zip(fns, nrs))

    @next_functions.setter
    def next_functions(self, edges):
        self._fns = tuple([fn for fn, _ in edges])
        self._nrs = _nrs_of([nr for _, nr in edges])

    _retained = _extra_property("retained", "output_nr -> weakref of a tensor that retains its grad")
    _pre_hooks = _extra_property("pre_hooks", "output_nr (None: all) -> hooks run on the incoming grads")
    _hooks = _extra_property("hooks", "hooks(grad_inputs, grad_outputs) run after the node")

    @property
    def metadata(self):
        x = self._x
        if x is None:
            x = self._x = _Extra()
        if x.metadata is None:
            x.metadata = {}
        return x.metadata

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def register_hook(self, hook):
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return RemovableHandle(self._hooks, hook)

    def register_prehook(self, hook):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        self._pre_hooks.setdefault(None, []).append(hook)
        return RemovableHandle(self._pre_hooks[None], hook)

    # The saved tensors, checked: freed after a pass, or modified in place since they were saved.
    @property
    def saved(self):
        saved = self._saved
        if saved is None:
            raise errors.runtime(errors.FREED_GRAPH, hint="retain_graph")
        values = []
        for item in saved:
            if type(item) is SavedValue:
                t = item.tensor
                if t._version[0] != item.version:
                    raise errors.runtime(errors.modified_inplace(t, item.version, item.is_output and self, item.shape),
                                         hint="inplace")
                values.append(t)
            elif type(item) is PackedValue:  # packed by saved_tensors_hooks: unpacked in torch's order
                return unpack_saved(self, saved)
            else:
                values.append(item)
        return values

    def apply(self, grads):
        """Input gradients from output gradients (a Tensor, or a list for multi-output nodes)."""
        return self.backward(grads)

    def __call__(self, *grads):
        return self.apply(grads[0] if len(grads) == 1 else list(grads))


class SavedShapes(tuple):
    """What a node with save_when keeps when torch's node saves no tensor for the inputs that require
    grad (addcmul(x, c, c) with only x: its backward needs shapes): nothing to free, so a pass keeps it
    and a second backward runs as torch's does (autograd_engine frees every other node's values). Made by function.record's save_when."""

    __slots__ = ()


class SavedValue:
    # shape: an output's shape when saved (torch saves an output's tensor_data(), whose sizes a later in-place
    # view op such as t_() leaves as they were; its version error names them), None for an input
    __slots__ = ("tensor", "version", "is_output", "shape")

    def __init__(self, tensor, is_output=False):
        self.tensor = tensor
        v = tensor._version
        if v.__class__ is not list:  # an inference tensor (autograd_modes.InferenceVersion): SavedVariable's check
            raise errors.runtime(SAVED_INFERENCE, hint="inference")
        self.version = v[0]
        self.is_output = is_output
        self.shape = tensor._data.shape if is_output else None


def saved_value(tensor, is_output=False):
    """SavedValue(tensor, is_output) without the class call's __init__ frame (the recorders' hot path)."""
    v = tensor._version
    if v.__class__ is not list:  # an inference tensor: SavedValue's check
        raise errors.runtime(SAVED_INFERENCE, hint="inference")
    s = _new_object(SavedValue)
    s.tensor = tensor
    s.version = v[0]
    s.is_output = is_output
    s.shape = tensor._data.shape if is_output else None
    return s


_new_object = object.__new__


class RemovableHandle:
    """torch.utils.hooks.RemovableHandle."""
    __slots__ = ("_list", "_item")

    def __init__(self, lst, item):
        self._list = lst
        self._item = item

    def remove(self):
        try:
            self._list.remove(self._item)
        except ValueError:
            pass

    def __repr__(self):
        return f"<torch.utils.hooks.RemovableHandle object at {hex(id(self))}>"


class AccumulateGrad(Node):
    """The sink of a leaf: adds the incoming gradient into `variable.grad`."""

    __slots__ = ("variable",)

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __init__(self, variable):
        self.variable = variable
        self._fns = self._nrs = ()
        self._saved = ()
        self._kw = None
        self._seq = _ACCUMULATE_PRIORITY
        self._out_dtype = variable.dtype
        self._x = None
        self._site = None


class NotImplementedNode(Node):
    """The node of an op that has no derivative in PyTorch (floor_divide, sign of ints, ...)."""
    __slots__ = ("_opname",)

    def name(self):
        return "torch::autograd::NotImplemented"

    def __repr__(self):
        return f"<NotImplemented object at {hex(id(self))}>"

    def backward(self, grad):
        raise errors.runtime(f"derivative for {self._opname} is not implemented")


NotImplementedNode.__name__ = NotImplementedNode.__qualname__ = "NotImplemented"  # type name torch shows


_NO_EDGE = (None, 0)


def make_node(cls, inputs, out_dtype, saved=(), kw=None):
    """Create cls's node for these inputs (Tensors, or Python scalars and None that get no edge)."""
    node = cls.__new__(cls)
    fns = []
    nrs = None  # built only when some edge's output number is not 0 (rare): else the shared zeros
    for t in inputs:
        fn = getattr(t, "grad_fn", _NO_EDGE)
        if fn is None:
            # a leaf: its AccumulateGrad (output number 0) when it requires grad
            fns.append(t._edge()[0] if t._rg else None)
        elif fn is _NO_EDGE:                    # not a Tensor
            fns.append(None)
        else:
            if t._creation is not None:  # a split/unbind output or no_grad view whose base changed in place
                from .tensor import check_view_grad_fn  # noqa: PLC0415 - tensor imports this module
                check_view_grad_fn(t)
            nr = t._output_nr
            if nr:
                if nrs is None:
                    nrs = [0] * len(inputs)
                nrs[len(fns)] = nr
            fns.append(fn)
    node._fns = tuple(fns)
    node._nrs = tuple(nrs) if nrs is not None else _ZERO_BY_LEN[len(fns)] if len(fns) < 9 else (0,) * len(fns)
    node._saved = saved
    stamp(node, out_dtype, kw)
    return node


def stamp(node, out_dtype, kw):
    """The fields every new node gets besides its edges and saved values (make_node and the
    unrolled recorders of function.py share it)."""
    node._kw = kw
    node._seq = next(sequence_numbers)
    node._out_dtype = out_dtype
    node._x = None
    hook = site_hook[0]
    node._site = hook() if hook is not None else None


# Where an op was created: the language registers a callback that returns the script's place, a
# (line, column) pair or an object with .line and .column (its syntax node, handed over as it is).
site_hook = [None]


def site_pair(site):
    """(line, column) of a node's site as the site hook gave it, or None."""
    if site is None:
        return None
    if isinstance(site, tuple):
        return (site[0], site[1] if len(site) > 1 else None) if site and isinstance(site[0], int) else None
    line = getattr(site, "line", None)
    return (line, getattr(site, "column", None)) if isinstance(line, int) else None


def set_site_hook(fn):
    site_hook[0] = fn


# ----------------------------------------------------------------------------- observers
# Optional callbacks for the tools that watch the engine (gradcli.graph: the chain-rule walkthrough,
# --check, `gradcli graph`). Unset, they cost one test per backward pass and per recorded node.
#
# A backward observer has begin(tensors, grad_tensors, inputs, accumulate, retain_graph, create_graph),
# node(node, grads, in_grads) after each grad_fn ran (before its saved tensors are freed), leaf(node, grad,
# accumulate) when a leaf's AccumulateGrad is reached (before .grad changes), end(results, error).
backward_observer = [None]
# A node observer is called as fn(node, inputs, outputs) when an op has recorded its node.
node_observer = [None]
# The live forward-AD level (forward_ad.py) while one is entered and not busy computing a tangent: the
# recorders (function.py) hand it each op whose inputs may carry tangents, before their own grad checks.
forward_level = [None]


def set_backward_observer(obs):
    """Install obs (None removes it); returns the previous observer."""
    prev = backward_observer[0]
    backward_observer[0] = obs
    return prev


def set_node_observer(fn):
    """Install fn (None removes it); returns the previous one."""
    prev = node_observer[0]
    node_observer[0] = fn
    return prev
