"""Forward mode over a recorded graph: the tangents of a function's outputs pushed node by node, in the
order the nodes were recorded, as torch's forward mode computes them op by op (torch.func.jvp, jacfwd).

The function runs once under a node observer that lists the nodes it records with their outputs; each
node's output tangents come from its input tangents by the node's own Jacobian: a forward formula of
derivatives.yaml where the node class has one here (RULES: the reductions, softmaxes, products and division whose
backward-derived arithmetic rounds otherwise than torch's forward formula), else the double-vjp trick on
that node alone (J t = d/du <J^T u, t>, u a dummy cotangent), which for an elementwise node is torch's
forward formula's product. A graph holding a node the observer did not hear of (an in-place op, a custom
Function, a module's hooks: nodes attached without the recorders), or one whose backward cannot run again
(its saved values freed), is not walked: `walk` returns None and the caller differentiates the whole graph
at once (func._pushforward).
"""
from __future__ import annotations

from .autograd import AccumulateGrad, set_node_observer
from .autograd_api import grad as _autograd_grad
from .tensor import Tensor


class Recording:
    """A context that lists (node, outputs) of every node recorded inside it (the previous observer,
    the graph tools', still hears of each)."""

    def __init__(self):
        self.nodes = []
        self.prev = None

    def __enter__(self):
        prev = None

        def observe(node, inputs, outputs):
            self.nodes.append((node, inputs, outputs))
            if prev is not None:
                prev(node, inputs, outputs)
        prev = self.prev = set_node_observer(observe)
        return self

    def __exit__(self, *exc):
        set_node_observer(self.prev)
        return False


def _zeros_like(t):
    from .factory import zeros_like  # noqa: PLC0415
    return zeros_like(t)


def _key(t):
    fn, nr = t._edge()
    return None if fn is None else (id(fn), nr)


def _generic(node, outs, ins):
    """The double-vjp trick on one node: its output tangents from its input tangents."""
    us = [_zeros_like(o) for o in outs]
    for u in us:
        if u.dtype.is_floating_point:  # an integer output (sort's, max's indices) has no tangent
            u.requires_grad_(True)
    grads = node.backward(us[0] if len(us) == 1 and node.n_outputs == 1 else us)
    if isinstance(grads, Tensor) or grads is None:
        grads = (grads,)
    pairs = [(g, t) for g, t in zip(grads, ins) if t is not None and isinstance(g, Tensor) and g.requires_grad]
    if not pairs:
        return [None] * len(outs)
    diff = [u for u in us if u.requires_grad]
    res = iter(_autograd_grad([g for g, _ in pairs], diff, [t for _, t in pairs], create_graph=True,
                              allow_unused=True))
    return [next(res) if u.requires_grad else None for u in us]


def _reachable_unobserved(outputs, observed):
    """Does a node that feeds the outputs lie outside the recording?"""
    seen = set()
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            continue
        if id(node) not in observed:
            return True
        stack.extend(fn for fn in node._fns if fn is not None)
    return False


def node_tangents(node, inputs, outs, ins):
    """One node's output tangents (a list, None for a zero one) from its input tangents `ins` (one per
    input of the node, None for a zero one): its forward formula (RULES) or the double-vjp trick."""
    rule = RULES.get(type(node).__name__)
    out_t = rule(node, inputs, outs, ins) if rule is not None else None
    if out_t is None:
        out_t = _generic(node, outs, ins)
    return out_t


def walk(recording, inputs, tangents, outputs):
    """The outputs' tangents (None where an output does not depend on the inputs), or None when the graph
    cannot be walked (see the module's docstring)."""
    observed = {id(node): node for node, _, _ in recording.nodes}
    if _reachable_unobserved(outputs, observed):
        return None
    tan = {}
    for x, t in zip(inputs, tangents):
        key = _key(x)
        if key is not None:
            tan[key] = t if key not in tan else tan[key] + t
    for node, inputs, outs in recording.nodes:
        ins = [None if fn is None else tan.get((id(fn), nr)) for fn, nr in zip(node._fns, node._nrs)]
        if all(t is None for t in ins):
            continue
        try:
            out_t = node_tangents(node, inputs, outs, ins)
        except RuntimeError:  # a node whose backward cannot run again (its saved values freed by a
            return None       # backward() inside the function): the caller's whole-graph path decides
        for k, t in enumerate(out_t):
            if t is not None:
                tan[(id(node), k)] = t
    result = []
    for o in outputs:
        key = _key(o) if o.requires_grad else None
        result.append(None if key is None else tan.get(key))
    return result


# ---------------------------------------------------------------- derivatives.yaml's forward formulas
# Each takes (node, inputs, outputs, input tangents: None for a zero one) and gives the output tangents
# (a list), or None to leave the node to the double-vjp trick. A zero tangent is left out of a sum, as
# torch's ZeroTensor adds nothing.

def _sum_terms(terms):
    total = None
    for t in terms:
        if t is not None:
            total = t if total is None else total + t
    return total


def logsumexp_jvp(p, t, dims, keepdim):
    """FunctionsManual's logsumexp_jvp: sum(exp(p - amax(p)) * t) / sum(exp(p - amax(p)))."""
    e = (p - p.amax(dims, keepdim=True)).exp() if p.numel() > 0 else p.exp()
    sumexp_p = e.sum(dims, keepdim=keepdim)
    return (e * t).sum(dims, keepdim=keepdim) / sumexp_p


def _mean(node, inputs, outs, ins):
    (t,) = ins
    k = node._kw
    if "dims" in k:
        return [t.mean(tuple(k["dims"]), keepdim=k["keepdim"])]
    return [t.mean()]


def _softmax(node, inputs, outs, ins):
    (t,) = ins
    d = node._kw["dim"]
    return [outs[0] * (t - logsumexp_jvp(inputs[0], t, (d,), True))]


def _log_softmax(node, inputs, outs, ins):
    (t,) = ins
    return [t - logsumexp_jvp(inputs[0], t, (node._kw["dim"],), True)]


def _logsumexp(node, inputs, outs, ins):
    (t,) = ins
    k = node._kw
    return [logsumexp_jvp(inputs[0], t, tuple(k["dims"]), k["keepdim"])]


def _mm(node, inputs, outs, ins):
    a, b = inputs
    ta, tb = ins
    return [_sum_terms([None if ta is None else ta.mm(b), None if tb is None else a.mm(tb)])]


def _div(node, inputs, outs, ins):
    """div.Tensor: (self_t - other_t * result) / other_p, where both tangents are there."""
    ta, tb = ins
    b = inputs[1]
    if ta is None or tb is None or not isinstance(b, Tensor):
        return None
    return [(ta - tb * outs[0]) / b]


def _vector_norm(node, inputs, outs, ins):
    """norm_jvp for p = 2: sum(p * t) / norm, 0 where the norm is 0; other orders: the double-vjp trick."""
    (t,) = ins
    k = node._kw
    if k.get("p") != 2:
        return None
    dims = k.get("dims")
    dims = tuple(dims) if dims else tuple(range(inputs[0].dim()))
    norm = outs[0]
    r = (inputs[0] * t).sum(dims, keepdim=k["keepdim"]) / norm
    return [r.masked_fill(norm == 0, 0)]


def _elementwise(node, inputs, outs, ins):
    """A unary elementwise node: its Jacobian is diagonal, so J t is the backward formula applied to t, which is
    what derivatives.yaml's auto_element_wise makes of it (the factors in the backward's order)."""
    (t,) = ins
    if tuple(t.shape) != tuple(outs[0].shape):
        return None
    g = node.backward(t)
    return [g[0] if isinstance(g, (tuple, list)) else g]


def _elementwise_nodes():
    from .function import Function  # noqa: PLC0415
    from .ops import activations, activations_smooth, special_unary, unary_math  # noqa: PLC0415
    names = set()
    for module in (unary_math, special_unary, activations, activations_smooth):
        for name, obj in vars(module).items():
            if isinstance(obj, type) and issubclass(obj, Function) and obj.__module__ == module.__name__ \
                    and not name.startswith("_") and name != "GluBackward0":
                names.add(name)
    return names


RULES = {"MeanBackward0": _mean, "MeanBackward1": _mean, "SoftmaxBackward0": _softmax,
         "LogSoftmaxBackward0": _log_softmax, "LogsumexpBackward0": _logsumexp, "MmBackward0": _mm,
         "LinalgVectorNormBackward0": _vector_norm, "NormBackward1": _vector_norm, "DivBackward0": _div}
RULES.update(dict.fromkeys(_elementwise_nodes(), _elementwise))
