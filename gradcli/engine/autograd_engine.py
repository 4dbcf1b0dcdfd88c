"""The backward engine: walks the graph (autograd.py's nodes) in reverse, ordered like PyTorch's:
ready nodes run highest sequence number first, `AccumulateGrad` before all. `run_backward` is the
entry point (backward() and autograd.grad()); `run_general` the general loop (several roots, inputs,
hooks, retained grads, multi-output nodes, observers, anomaly mode), `run_plain` the common
`loss.backward()` without any of those, with less work per node.
"""
from __future__ import annotations

import heapq
import itertools
from itertools import islice
import operator
from sys import getrefcount as _getrefcount

from . import errors
from .autograd import AccumulateGrad, Node, SavedShapes, backward_observer
from .autograd_modes import anomaly_mode, grad_mode


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
    (the gradient of sgn, marked by SgnBackward0) adds as nothing; under create_graph (grad mode on) the
    InputBuffer still calls add, whose ZeroTensor kernel returns a copy of the other gradient, recorded as
    AddBackward0 (so a -0. stays -0. and the gradient's grad_fn is AddBackward0)."""
    zb = "efficient_zero" in b.__dict__
    za = "efficient_zero" in a.__dict__
    if not (za or zb):
        return a + b
    if za and zb:
        return a
    kept = b if za else a
    if not grad_mode.enabled:
        return kept
    out = a + b
    out._data[...] = kept._data
    return out


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
                if not accumulate and node.__class__ is not AccumulateGrad and not any(
                        n is not None and n in needed for n in node._fns):
                    # autograd.grad captures a non-leaf input's gradient without running its node (nor freeing
                    # its saved values: GraphTask's captures_); backward(inputs=) runs it (needed_)
                    continue
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
        if free and node._saved.__class__ is not SavedShapes:
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


# csrc/chain.c's collect_plain (the walk below in C, where it finds nothing for this code to decide: it
# answers NotImplemented then), set when ops/scalar_chain.py loads that module for a long chain (a short
# backward loads no C: tests/test_startup.py); None until then, when not built or under GRADCLI_NATIVE=0
native_collect = [None]
# csrc/backward.c's run_plain_loop (run_plain's loop below in C, the same calls and gradients), set with it
native_loop = [None]
_X_SLOT, _FNS_SLOT = Node.__dict__["_x"], Node.__dict__["_fns"]
_LOOP_SLOTS = tuple(Node.__dict__[name] for name in ("_fns", "_saved", "_seq", "_out_dtype"))
LOOP_BACKWARDS = 16  # plain backward calls after which the process loads that module too (a training loop's)
_plain_calls = [0]


def _load_native_collect():
    """csrc/chain.c's collect_plain into native_collect (once a script has run LOOP_BACKWARDS plain backward
    calls: a loop's; loading the module costs about a millisecond, a short script never does); None when
    it is not built or under GRADCLI_NATIVE=0."""
    from .. import native  # noqa: PLC0415 - a training loop's, never at start-up

    module = native.load("chain", needs=("scalar_walk", "collect_plain"))
    if module is not None:
        native_collect[0] = module.collect_plain
    module = native.load("backward", needs=("run_plain_loop",))
    if module is not None:
        native_loop[0] = module.run_plain_loop
    from . import native_record  # noqa: PLC0415 - with them, csrc/record.c's wrap, stamp and saved_value
    native_record.load()
    return native_collect[0]


def _collect_plain(root):
    """_collect for run_plain, or None where the graph needs _run: a node with hooks or a retained
    grad (in its _x), one of several outputs, or a leaf with post-accumulate hooks (which would see
    the leaves' order). _collect's walk from one root, kept apart: merged
    (a flag, the roots' list and stack set-up) it cost 1% of the seeds' loop step. A leaf's
    AccumulateGrad is checked when first found, never walked (it has no edges). Returns (deps, the
    function nodes in the order found)."""
    c = native_collect[0]
    if c is None:
        n = _plain_calls[0] = _plain_calls[0] + 1
        if n == LOOP_BACKWARDS:
            c = _load_native_collect()
    if c is not None:
        found = c(root, AccumulateGrad, _X_SLOT, _FNS_SLOT)
        if found is not NotImplemented:
            return found
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


# node class -> its scalar-chain walker (ops/scalar_chain.py registers them): run_plain hands it a node and
# its gradient; it runs that node and the 0-d chain below it without a Tensor or a buffer per node
scalar_walks = {}


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
    values freed, its edge counted after the node's own), not run again.

    A node whose class has a scalar-chain walker (scalar_walks: ops/scalar_chain.py) is handed to it with
    its gradient: the walker runs it and the 0-d chain below it while each next node is the next to run
    and fed by the last alone, and gives the last one's input gradient, routed here as that node's."""
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
    loop = native_loop[0]
    if loop is not None and loop(order, deps, buffers, free, AccumulateGrad, SavedShapes, scalar_walks, sum_grads,
                                 _LOOP_SLOTS) is not NotImplemented:
        return True
    nodes = iter(order)
    for node in nodes:
        g = buffers.pop(node, None)
        ch = None
        if g is None:
            in_grads = None
        elif node.__class__ in scalar_walks and (run := scalar_walks[node.__class__](node, g, free, buffers, len(order))):
            m, node, gk = run  # node: the chain's last node run, gk its first input's gradient
            run = None
            if m:
                next(islice(nodes, m, m), None)  # the nodes run: each was the next in order
            in_grads = (gk,)
            gk = None
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
        if free and node._saved.__class__ is not SavedShapes:
            node._saved = None
        # _route's work inline (a call per node is a tenth of a long chain's backward): each input
        # gradient to its edge's buffer, the leaves counted down. Kept a copy on purpose: calling
        # _route here instead (issue 22, at the autograd split) counted 25.2K instructions per op of
        # bench's 0-d chain (fwd+bwd, callgrind) against 24.7K inline, +2% on the hot path
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
            if free and ch._saved.__class__ is not SavedShapes:
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
    """run_plain's step after a fused child ran (the same as its loop's, inline there for speed): each input
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
