"""The backward graph: grad mode, graph nodes (PyTorch's `grad_fn` objects), and the engine
that walks the graph in reverse.

A node is created by an op when grad mode is on and an input requires grad. It keeps the
edges to its inputs' nodes (`next_functions`, leaves end in `AccumulateGrad`), the tensors its
backward formula needs (checked against version counters when unpacked, freed after a pass
unless `retain_graph`), and its non-tensor arguments. The traversal is iterative and ordered
like PyTorch's: ready nodes run highest sequence number first, `AccumulateGrad` before all.
"""
from __future__ import annotations

import functools
import heapq
import itertools
import operator
from sys import getrefcount as _getrefcount

from ..gcpolicy import collect_less_often
from . import errors
from .saved_hooks import PackedValue, unpack_saved

collect_less_often()  # a long graph's nodes would set off full collections again and again (gcpolicy.py)


class _GradMode:
    __slots__ = ("enabled",)

    def __init__(self):
        self.enabled = True


grad_mode = _GradMode()


def is_grad_enabled():
    return grad_mode.enabled


class _GradModeContext:
    """Base of no_grad / enable_grad / set_grad_enabled: a context manager and a decorator."""

    _target = True

    def __enter__(self):
        self._prev = grad_mode.enabled
        grad_mode.enabled = self._target
        return None

    def __exit__(self, *exc):
        grad_mode.enabled = self._prev
        return False

    def __call__(self, fn):
        target = self._target

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            prev = grad_mode.enabled
            grad_mode.enabled = target
            try:
                return fn(*args, **kwargs)
            finally:
                grad_mode.enabled = prev

        return wrapped


GradModeDecorator = _GradModeContext  # what a decorator of grad mode is (the language checks decorators)


class no_grad(_GradModeContext):
    _target = False

    def __repr__(self):
        return f"<torch.autograd.grad_mode.no_grad object at {hex(id(self))}>"


class enable_grad(_GradModeContext):
    _target = True

    def __repr__(self):
        return f"<torch.autograd.grad_mode.enable_grad object at {hex(id(self))}>"


class set_grad_enabled(_GradModeContext):
    def __init__(self, mode):
        if type(mode) is not bool:  # torch takes exactly a bool (not 1, None or a tensor)
            from .argcheck import typename  # noqa: PLC0415
            raise errors.type_error(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                                    f"not {typename(mode)}")
        self._target = mode
        # like torch, the call itself already switches the mode (usable as a plain function)
        self._prev = grad_mode.enabled
        grad_mode.enabled = self._target

    def __enter__(self):
        return None

    def __call__(self, fn):
        grad_mode.enabled = self._prev  # as a decorator: the mode comes back, the function gets it
        return super().__call__(fn)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self._target})"


for _cls in (no_grad, enable_grad, set_grad_enabled):  # <class 'torch.autograd.grad_mode.no_grad'>
    _cls.__module__ = "torch.autograd.grad_mode"

_inference_mode = [False]


def is_inference_mode_enabled():
    return _inference_mode[0]


class inference_mode(no_grad):
    def __init__(self, mode=True):
        self._target = not mode
        self._mode = bool(mode)

    def __enter__(self):
        self._prev_inference = _inference_mode[0]
        _inference_mode[0] = self._mode
        return super().__enter__()

    def __exit__(self, *exc):
        _inference_mode[0] = self._prev_inference
        return super().__exit__(*exc)

    def __call__(self, fn):
        mode, target = self._mode, self._target

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            prev, prev_inference = grad_mode.enabled, _inference_mode[0]
            grad_mode.enabled, _inference_mode[0] = target, mode
            try:
                return fn(*args, **kwargs)
            finally:
                grad_mode.enabled, _inference_mode[0] = prev, prev_inference

        return wrapped

    def __repr__(self):
        return f"<torch.autograd.grad_mode.inference_mode object at {hex(id(self))}>"


inference_mode.__module__ = "torch.autograd.grad_mode"


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
                    raise errors.runtime(errors.modified_inplace(t, item.version, item.is_output and self),
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


class SavedValue:
    __slots__ = ("tensor", "version", "is_output")

    def __init__(self, tensor, is_output=False):
        self.tensor = tensor
        self.version = tensor._version[0]
        self.is_output = is_output


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


# ----------------------------------------------------------------------------- anomaly mode
class _AnomalyMode:
    __slots__ = ("enabled", "check_nan")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


anomaly_mode = _AnomalyMode()

ANOMALY_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                   "enabled for debugging.")


def is_anomaly_enabled():
    return anomaly_mode.enabled


def is_anomaly_check_nan_enabled():
    return anomaly_mode.check_nan


class detect_anomaly:
    """torch.autograd.detect_anomaly(check_nan=True): a context manager (and decorator) under which a
    backward function that returns NaN raises "Function 'XBackward0' returned nan values in its 0th output."."""

    def __init__(self, check_nan=True):
        import warnings  # noqa: PLC0415

        self.prev = anomaly_mode.enabled
        self.check_nan = bool(check_nan)
        self.prev_check_nan = anomaly_mode.check_nan
        warnings.warn(ANOMALY_WARNING, UserWarning, stacklevel=2)

    def __enter__(self):
        anomaly_mode.enabled, anomaly_mode.check_nan = True, self.check_nan
        return None

    def __exit__(self, *exc):
        anomaly_mode.enabled, anomaly_mode.check_nan = self.prev, self.prev_check_nan
        return False

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapped

    def __repr__(self):
        return f"<torch.autograd.anomaly_mode.detect_anomaly object at {hex(id(self))}>"


class set_detect_anomaly:
    """torch.autograd.set_detect_anomaly(mode, check_nan=True): sets the mode at once; as a context
    manager, the previous mode comes back at the end of the block."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = anomaly_mode.enabled, anomaly_mode.check_nan
        anomaly_mode.enabled, anomaly_mode.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        anomaly_mode.enabled, anomaly_mode.check_nan = self.prev, self.prev_check_nan
        return False

    def __repr__(self):
        return f"<torch.autograd.anomaly_mode.set_detect_anomaly object at {hex(id(self))}>"


def _watch(node, obs, nan_check, grads, in_grads):
    """The observer and anomaly mode's NaN check, after a node's backward ran."""
    if obs is not None:
        obs.node(node, grads, in_grads)
    if nan_check:
        for i, g in enumerate(in_grads):
            if g is not None and g.dtype.is_floating_point:
                d = g._data
                if bool((d != d).any()):
                    err = errors.runtime(f"Function '{node.name()}' returned nan values in its {i}th output.")
                    err.gradcli_site = node._site   # the script line that created the node
                    err.gradcli_node = node.name()
                    raise err


def _observed(obs, tensors, grad_tensors, retain_graph, create_graph, inputs, accumulate, allow_unused):
    obs.begin(tensors, grad_tensors, inputs, accumulate, retain_graph, create_graph)
    prev_mode = grad_mode.enabled
    prev_pass = current_pass[0]
    grad_mode.enabled = bool(create_graph)
    results = error = None
    try:
        results = run_general(tensors, grad_tensors, retain_graph, create_graph, inputs, accumulate, allow_unused)
        return results
    except BaseException as e:
        error = e
        raise
    finally:
        grad_mode.enabled = prev_mode
        current_pass[0] = prev_pass
        obs.end(results, error)


# ----------------------------------------------------------------------------- the engine

def _add(a, b):
    return b if a is None else sum_grads(a, b)


def sum_grads(a, b):
    """Two gradients of one input added, as torch's InputBuffer adds them: an efficient zero tensor
    (the gradient of sgn, marked by SgnBackward0) adds as nothing."""
    if "efficient_zero" in b.__dict__:
        return a
    if "efficient_zero" in a.__dict__:
        return b
    return a + b


def _collect(roots):
    """Count, for every node reachable from roots, how many edges point at it."""
    deps = dict.fromkeys([n for n in roots if n is not None], 0)  # a node may be the root twice
    stack = list(deps)
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        while node is not None:
            # the walk goes on with the first new node directly, the others wait on the stack: a chain
            # then never touches the stack (a push and a pop per node, the list resized each time)
            fns = node._fns
            node = None
            for nxt in fns:
                if nxt is not None:
                    if nxt in deps:
                        deps[nxt] += 1
                    else:
                        deps[nxt] = 1
                        if node is None:
                            node = nxt
                        else:
                            push(nxt)
    return deps


def _needed(deps, targets):
    """The nodes from which some target node can be reached (targets included)."""
    needed = set(targets)
    # reverse topological order: process children before parents using an explicit post-order
    order = []
    visited = set()
    for root in deps:
        if root in visited:
            continue
        stack = [(root, iter(root._fns))]
        visited.add(root)
        while stack:
            node, it = stack[-1]
            for nxt in it:
                if nxt is not None and nxt not in visited:
                    visited.add(nxt)
                    stack.append((nxt, iter(nxt._fns)))
                    break
            else:
                stack.pop()
                order.append(node)
    for node in order:
        if node not in needed:
            for nxt in node._fns:
                if nxt is not None and nxt in needed:
                    needed.add(node)
                    break
    return needed


# The pass _run is in: (id, the nodes reached, the nodes needed or None, backward rather than grad), for hooks that ask whether
# a node will run in it (torch._C._current_graph_task_id / _will_engine_execute_node:
# torch.autograd.graph.register_multi_grad_hook); None outside a pass.
current_pass = [None]
_pass_ids = itertools.count()


def current_graph_task_id():
    p = current_pass[0]
    return -1 if p is None else p[0]


def will_engine_execute_node(node):
    p = current_pass[0]
    if p is None:
        raise errors.runtime("_will_engine_execute_node should only be called during the backward pass")
    if not p[3] and isinstance(node, AccumulateGrad):
        raise errors.runtime("A leaf node was passed to _will_engine_execute_node but we are currently running "
                             "autograd.grad(). This is currently not supported.")
    return node is not None and node in p[1] and (p[2] is None or node in p[2])


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=None, accumulate=True,
                 allow_unused=False):
    """The engine. With accumulate, leaves' .grad get the gradients (backward); without, the
    gradients reaching `inputs` are returned (autograd.grad)."""
    obs = backward_observer[0]
    if obs is not None:
        return _observed(obs, tensors, grad_tensors, retain_graph, create_graph, inputs, accumulate, allow_unused)
    prev_mode = grad_mode.enabled
    prev_pass = current_pass[0]
    grad_mode.enabled = bool(create_graph)
    try:
        return run_general(tensors, grad_tensors, retain_graph, create_graph, inputs, accumulate, allow_unused)
    finally:
        grad_mode.enabled = prev_mode
        current_pass[0] = prev_pass


def run_general(tensors, grad_tensors, retain_graph, create_graph, inputs, accumulate, allow_unused):
    roots = []
    buffers = {}
    for t, g in zip(tensors, grad_tensors):
        node, nr = t._edge()
        roots.append(node)
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.n_outputs
        buf[nr] = _add(buf[nr], g)
    deps = _collect(roots)

    # where the requested inputs' gradients are found: (node, output_nr)
    captures = None
    if inputs is not None:
        captures = {}
        for i, t in enumerate(inputs):
            node, nr = t._edge()
            if node is None:
                raise errors.runtime(errors.DOES_NOT_REQUIRE_GRAD_INPUT)
            captures.setdefault(node, []).append((nr, i))
        needed = _needed(deps, [n for n in captures if n in deps])
    else:
        needed = None
    current_pass[0] = (next(_pass_ids), deps, needed, accumulate)  # (run_backward puts the previous one back)
    results = [None] * (len(inputs) if inputs is not None else 0)

    # Ready nodes run highest sequence number first (AccumulateGrad, -inf, before all). Ties (only
    # AccumulateGrads have equal numbers) fall where torch's ready queue, a std::priority_queue that
    # compares sequence numbers only, puts them: heapq's sift algorithms are libstdc++'s, the nodes
    # compare as unordered (Node.__lt__), and nodes are pushed in the order torch pushes them.
    # A buffer holds a single-output node's gradient itself, a multi-output node's list of them.
    # A node made ready while no other node is (a chain: the common case) skips the heap, and its
    # gradient, when single-output, goes to it directly instead of through the buffers ("carry").
    push, pop = heapq.heappush, heapq.heappop
    ready = []
    for node, d in deps.items():
        if d == 0:
            push(ready, (-node._seq, node))
    free = not retain_graph
    obs = backward_observer[0]
    nan_check = anomaly_mode.enabled and anomaly_mode.check_nan
    watch = obs is not None or nan_check
    for node, buf in list(buffers.items()):
        if node.n_outputs == 1:
            buffers[node] = buf[0]
    carry = carry_g = None
    while True:
        if carry is not None:
            node = carry
            carry = None
        elif ready:
            node = pop(ready)[1]
        else:
            break
        if needed is not None and node not in needed:
            carry_g = None
            continue
        single = node.n_outputs == 1
        if single:
            if carry_g is not None:
                g = carry_g
                carry_g = None
            else:
                g = buffers.pop(node, None)
        else:
            grads = buffers.pop(node, None) or [None] * node.n_outputs
        x = node._x
        if x is not None or captures is not None:
            if single:
                grads = [g]
            if x is not None:
                if x.pre_hooks:
                    grads = _run_pre_hooks(node, grads)
                if x.retained:
                    for nr, ref in list(x.retained.items()):
                        t = ref()
                        if t is not None and grads[nr] is not None:
                            t._retain_accumulate(grads[nr], create_graph)
            if captures is not None and node in captures:
                for nr, i in captures[node]:
                    results[i] = _add(results[i], grads[nr])
            if single:
                g = grads[0]
        if node.__class__ is AccumulateGrad:
            if watch and obs is not None and g is not None:
                obs.leaf(node, g, accumulate and (captures is None or node in captures))
            if accumulate and g is not None and (captures is None or node in captures):
                in_grads = gk = None  # the last node's references: g's refcount then says if anything else holds g
                sole = _getrefcount(g) == 2  # g and the argument: nothing else holds it (torch's use_count 1)
                node.variable._accumulate(g, create_graph, sole)
            continue
        if single:
            in_grads = node.backward(g) if g is not None else None
        elif all(v is None for v in grads):
            in_grads = None
        else:
            in_grads = node.backward(node.materialize(grads))
        if watch and in_grads is not None:
            _watch(node, obs, nan_check, grads if not single else [g], in_grads)
        if in_grads is None:
            in_grads = ()
        elif x is not None and x.hooks:
            from .hook_results import tuple_hook_result  # noqa: PLC0415 - hooks are rare
            outs = tuple(grads) if not single else (g,)
            for hook in list(x.hooks):  # torch: a post hook's result replaces the node's input gradients
                before = tuple(in_grads)
                in_grads = tuple_hook_result(before, hook(before, outs), hook)
        if free:
            node._saved = None  # saved tensors are released once the node and its post hooks have run
        n_in = len(in_grads)
        k = -1
        for nxt in node._fns:
            k += 1
            if nxt is None:
                continue
            d = deps[nxt] - 1
            deps[nxt] = d
            gk = in_grads[k] if k < n_in else None
            if gk is not None:
                if gk.dtype is not nxt._out_dtype:
                    gk = gk.to(nxt._out_dtype)
                if nxt.n_outputs == 1:
                    if d == 0 and carry is None and not ready:  # the next node to run: hand the grad over
                        prev = buffers.pop(nxt, None) if buffers else None  # (in a chain, buffers is empty)
                        carry_g = gk if prev is None else sum_grads(prev, gk)
                    else:
                        prev = buffers.get(nxt)
                        buffers[nxt] = gk if prev is None else sum_grads(prev, gk)
                else:
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * nxt.n_outputs
                    nr = node._nrs[k]
                    buf[nr] = gk if buf[nr] is None else sum_grads(buf[nr], gk)
            if d == 0:
                if carry is None and not ready:
                    carry = nxt
                else:
                    if carry is not None:  # another node is ready too: the heap decides, carry pushed first
                        if carry_g is not None:
                            buffers[carry] = carry_g
                            carry_g = None
                        push(ready, (-carry._seq, carry))
                        carry = None
                    push(ready, (-nxt._seq, nxt))
    if inputs is not None and not allow_unused:
        for i, r in enumerate(results):
            if r is None:
                raise errors.runtime(errors.unused_input(i), hint="allow_unused")
    return results


def _collect_plain(root):
    """_collect for run_plain, or None where the graph needs _run: a node with hooks or a retained
    grad (in its _x), one of several outputs, or a leaf with post-accumulate hooks (which would see
    the leaves' order). _collect's walk from one root, kept apart: merged
    (a flag, the roots' list and stack set-up) it cost 1% of the seeds' loop step. A leaf's
    AccumulateGrad is checked when first found, never walked (it has no edges). Returns (deps, the
    function nodes in the order found)."""
    deps = {root: 0}
    stack = []
    push, pop = stack.append, stack.pop
    functions = []  # the function nodes, as found
    add = functions.append
    node = root
    if node.__class__ is AccumulateGrad:
        x = node._x
        if (x is not None and (x.pre_hooks or x.retained or x.hooks)) or node.variable._post_acc_hooks:
            return None
        return deps, functions
    while True:
        x = node._x
        if (x is not None and (x.pre_hooks or x.retained or x.hooks)) or node.n_outputs != 1:
            return None
        add(node)
        nxt_node = None
        for nxt in node._fns:
            if nxt is not None:
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                    if nxt.__class__ is AccumulateGrad:
                        # the leaves' order is observable with a post-accumulate hook: _run's ready queue decides it
                        x = nxt._x
                        if nxt.variable._post_acc_hooks or (x is not None and (x.pre_hooks or x.retained or x.hooks)):
                            return None
                    elif nxt_node is None:
                        nxt_node = nxt
                    else:
                        push(nxt)
        if nxt_node is not None:
            node = nxt_node
        elif stack:
            node = pop()
        else:
            return deps, functions


def run_plain(root, g, retain_graph):
    """_run for the common `loss.backward()` (one root, leaves' .grad accumulated, no graph built,
    no observer or anomaly mode), when no node has hooks, a retained grad or several outputs; the
    same order and results with less work per node. Returns False (nothing done) otherwise.

    _run's order is: ready nodes by highest sequence number, AccumulateGrad first of all. The
    unprocessed node of highest sequence number is always ready (its consumers were created after
    it, so they ran before it), so the function nodes simply run by decreasing sequence number; a
    leaf's AccumulateGrad runs as soon as its last consumer has and only those need counting. Several
    leaves made ready by one node run in the order of its edges: _run's ready queue puts them in
    torch's order, which nothing observes here (no leaf has a post-accumulate hook).

    A node whose class names an edge it fuses (`Node.fuses`) runs together with that child when the
    child is the next node to run and only this node feeds it: `fused_backward` gives the node's input
    gradients and the one the child would pass on; the child is then done in the same step (its saved
    values freed, its edge counted after the node's own), not run again."""
    if anomaly_mode.enabled or backward_observer[0] is not None:
        return False
    found = _collect_plain(root)
    if found is None:
        return False
    if root.__class__ is AccumulateGrad:   # backward() of a leaf
        root.variable._accumulate(g, False, False)
        return True
    deps, order = found
    if len(order) > 1:
        order.sort(key=_seq_of, reverse=True)
    free = not retain_graph
    buffers = {root: g}
    g = None
    nodes = iter(order)
    for node in nodes:
        g = buffers.pop(node, None)
        ch = None
        if g is None:
            in_grads = None
        else:
            fz = node.fuses
            if fz is not None:
                ch = node._fns[fz[0]]
                # ch fused: the next node to run (the next sequence number: order is sorted by it) and
                # fed by this node alone
                if ch is not None and ch.__class__ is fz[1] and ch._seq == node._seq - 1 and deps[ch] == 1:
                    fused = node.fused_backward(g, ch)
                    if fused is not None:
                        in_grads, gt = fused
                        fused = None
                        next(nodes)  # ch: done in this step
                    else:
                        ch = None
                        in_grads = node.backward(g)
                else:
                    ch = None
                    in_grads = node.backward(g)
            else:
                in_grads = node.backward(g)
        if free:
            node._saved = None
        # _route's work inline (a call per node is a tenth of a long chain's backward): each input
        # gradient to its edge's buffer, the leaves counted down
        done = None  # the leaves whose last gradient this node gave
        n_in = len(in_grads) if in_grads is not None else 0
        k = -1
        for nxt in node._fns:
            k += 1
            if nxt is None:
                continue
            if k < n_in:
                gk = in_grads[k]
                if gk is not None:
                    if gk.dtype is not nxt._out_dtype:
                        gk = gk.to(nxt._out_dtype)
                    prev = buffers.get(nxt)
                    buffers[nxt] = gk if prev is None else sum_grads(prev, gk)
                    prev = gk = None
            if nxt.__class__ is AccumulateGrad:
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    if done is None:
                        done = [nxt]
                    else:
                        done.append(nxt)
        if ch is not None:  # the fused child's step: its gradient to its edge
            if free:
                ch._saved = None
            gk = gt
            gt = None
            if gk is not None and gk.dtype is not ch._out_dtype:  # (the edge's dtype, as _route converts)
                gk = gk.to(ch._out_dtype)
            in_grads = None
            more = _route(ch, (gk,) if gk is not None else None, buffers, deps)
            gk = None
            if more is not None:
                done = more if done is None else done + more
        if done is not None:
            in_grads = g = None  # the gradients' refcounts then say if anything else holds them
            for leaf in done:
                g = buffers.pop(leaf, None)
                if g is not None:
                    sole = _getrefcount(g) == 2  # g and the argument (before g is also a call's argument)
                    leaf.variable._accumulate(g, False, sole)
                    g = None
    return True


def _route(node, in_grads, buffers, deps):
    """run_plain's step after a fused child ran (the same as its loop's, inline there): each input
    gradient (converted to its edge's dtype) added to its edge's buffer, the leaves' AccumulateGrad
    counted down; the leaves now complete, as a list (None when none)."""
    done = None
    if in_grads is None:
        for nxt in node._fns:
            if nxt is not None and nxt.__class__ is AccumulateGrad:
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    if done is None:
                        done = [nxt]
                    else:
                        done.append(nxt)
        return done
    n_in = len(in_grads)
    k = -1
    for nxt in node._fns:
        k += 1
        if nxt is None:
            continue
        if k < n_in:
            gk = in_grads[k]
            if gk is not None:
                if gk.dtype is not nxt._out_dtype:
                    gk = gk.to(nxt._out_dtype)
                prev = buffers.get(nxt)
                buffers[nxt] = gk if prev is None else sum_grads(prev, gk)
                prev = gk = None
        if nxt.__class__ is AccumulateGrad:
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                if done is None:
                    done = [nxt]
                else:
                    done.append(nxt)
    return done


_seq_of = operator.attrgetter("_seq")


def _run_pre_hooks(node, grads):
    from .hook_results import tensor_hook_result, tuple_hook_result  # noqa: PLC0415 - hooks are rare
    grads = list(grads)
    for nr, hooks in node._pre_hooks.items():
        for hook in list(hooks):
            if nr is None:
                before = tuple(grads)
                grads = list(tuple_hook_result(before, hook(before), hook))
            elif grads[nr] is not None:
                grads[nr] = tensor_hook_result(grads[nr], hook(grads[nr]), hook)
    return grads
