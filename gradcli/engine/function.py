"""How an op is declared and applied.

An op is one `Function` subclass named by its PyTorch node name (`MulBackward0`). It holds the
forward (on arrays: NumPy or CuPy) and the backward (on Tensors, so the same formula differentiates
again under create_graph), and says what the backward needs saved:

    class ExpBackward0(UnaryFunction):
        save_output = True
        forward = staticmethod(lambda xp, x: xp.exp(x))
        def backward(self, g):
            (result,) = self.saved
            return (g * result,)

`apply` runs the forward and, when grad mode is on and an input requires grad, records the node.
"""
from __future__ import annotations

import functools

import numpy as np

from . import dtypes, errors
from .autograd import (ZERO_NRS, Node, forward_level, node_observer, SavedShapes, SavedValue, make_node, saved_value,
                       stamp)
from .autograd_modes import grad_mode
from .dtypes import FLOAT
from .tensor import Tensor, check_view_grad_fn, wrap


class Function(Node):
    __slots__ = ()
    save_inputs = False   # the backward reads the tensor inputs (checked against their versions)
    save_output = False   # the backward reads the result
    # Optional, with save_inputs: for each input, the inputs whose gradient needs it. Like torch, an
    # input is then saved only when one of those requires grad (`y[0] * 10` does not save y[0], so a
    # later in-place change of y is no error); an input not saved is kept as its shape.
    save_when = None
    # float16 with a one-element second operand (mul, true division): the ufunc that ATen's kernel applies in
    # float32 to the operand's original value before rounding to half (elementwise_common.binary)
    half_scalar = None
    # The op function completes the node's kw after recording it (function.complete_kw): a forward-AD
    # tangent of this node is computed then, not at recording time (forward_ad.py)
    kw_completed_later = False
    # torch's node saves a tensor that this one keeps in its kw (indices, a mask, the input of a pool whose
    # backward needs only shapes): once a backward pass has freed the graph, running the node again raises
    # torch's "backward through the graph a second time" error, as reading self.saved does. A tuple of input
    # positions: torch saves it only when one of those inputs requires grad (index_add's index, for source)
    saves_in_kw = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.saves_in_kw and cls.save_when is not None:  # a node that saved no input would keep its kw's tensor
            raise TypeError(f"{cls.__name__}: saves_in_kw and save_when do not combine (SavedShapes)")
        bw = cls.__dict__.get("backward")
        if cls.saves_in_kw and bw is not None:
            when = cls.saves_in_kw

            def backward(self, g, _bw=bw, _when=when):
                if self._saved is None and (_when is True or any(self._fns[i] is not None for i in _when)):
                    self.saved  # noqa: B018 - raises the freed-graph error
                return _bw(self, g)
            backward.__doc__ = bw.__doc__
            cls.backward = backward

    @staticmethod
    def forward(xp, *arrays, **kw):
        raise NotImplementedError

    def backward(self, grad):
        raise NotImplementedError

    @property
    def kw(self):
        return self._kw

    def materialize(self, grads):
        """Multi-output nodes: outputs that got no gradient contribute zeros."""
        return grads


def record(cls, inputs, out, kw=None, normal=False):
    """Attach cls's node to `out` if grad mode is on and some Tensor input requires grad. Inside a
    forward-AD level (forward_ad.py) `out` gets its tangent: from the level's node observer where a node
    is recorded, from the level's push where none is (the recorders' early returns).
    normal: torch's op has a normal tensor among its inputs that is no edge here (a mask, an index, a
    condition): then an inference leaf that requires grad is recorded (all_inference)."""
    if not grad_mode.enabled:
        if forward_level[0] is not None:
            forward_level[0].push(cls, inputs, (out,), kw)
        return out
    if len(inputs) == 1:
        return record1(cls, inputs, out, kw, normal)
    for t in inputs:
        if getattr(t, "_rg", False):
            break
    else:
        if forward_level[0] is not None:
            forward_level[0].push(cls, inputs, (out,), kw)
        return out
    if out.dtype.category != FLOAT:  # integer and bool results are never differentiable
        return out
    if t.grad_fn is None and t._version.__class__ is not list and not normal and all_inference(inputs):
        return out
    saved = ()
    if cls.save_inputs:
        sw = cls.save_when
        if sw is None:
            saved = tuple([SavedValue(t) if hasattr(t, "_rg") else t for t in inputs])
        else:
            saved = _select_saved(inputs, sw)
    node = make_node(cls, inputs, out.dtype, saved, kw)
    if cls.save_output:
        node._saved = saved + (SavedValue(out, True),)
    return attach(node, out, inputs)


def complete_kw(out, cls, kw):
    """An op function that completes its node's kw after recording it (a node class with
    kw_completed_later): out's node of class cls, and inside a forward-AD level the shadow node its tangent
    waits for (forward_ad.py), get kw (a function of the node's kw); then the tangent is computed."""
    node = out.grad_fn
    if node is not None and type(node) is cls:
        node._kw = kw(node._kw)
    if forward_level[0] is not None:
        from .forward_ad import settle, shadow_nodes  # noqa: PLC0415 - only inside a forward-AD level
        for node in shadow_nodes(out):
            if type(node) is cls:
                node._kw = kw(node._kw)
        settle(out)


def attach(node, out, inputs):
    """out becomes node's output (and the graph tools' observer hears of it)."""
    out._rg = True
    out.grad_fn = node
    if node_observer[0] is not None:
        node_observer[0](node, inputs, (out,))
    return out


def record1(cls, inputs, out, kw, normal=False):
    """record() for one input (unary ops, views: t() twice per Linear step), make_node's work inline."""
    t = inputs[0]
    if not getattr(t, "_rg", False) or out.dtype.category != FLOAT:
        if forward_level[0] is not None:
            forward_level[0].push(cls, inputs, (out,), kw)
        return out
    fn = t.grad_fn
    if fn is None:
        if t._version.__class__ is not list and not normal:  # an inference leaf alone: no Autograd key, nothing recorded
            return out
        fn = t._edge()[0]  # the leaf's AccumulateGrad (output number 0)
        nrs = _ZERO_NRS1
    else:
        if t._creation is not None:
            check_view_grad_fn(t)  # torch's gradient_edge reads grad_fn(): a stale view raises
        nr = t._output_nr
        nrs = _ZERO_NRS1 if nr == 0 else (nr,)
    if cls.save_inputs:
        saved = (saved_value(t),) if cls.save_when is None else _select_saved(inputs, cls.save_when)
    else:
        saved = ()
    node = _new(cls)
    node._fns = (fn,)
    node._nrs = nrs
    node._saved = saved + (saved_value(out, True),) if cls.save_output else saved
    stamp(node, out.dtype, kw)
    return attach(node, out, inputs)


def record2(cls, a, b, out, kw=None):
    """record() unrolled for the two inputs of a binary op (the hot path of arithmetic)."""
    if not grad_mode.enabled:
        if forward_level[0] is not None:
            forward_level[0].push(cls, (a, b), (out,), kw)
        return out
    ra = getattr(a, "_rg", False)
    rb = getattr(b, "_rg", False)
    if not (ra or rb) or out.dtype.category != FLOAT:
        if forward_level[0] is not None:
            forward_level[0].push(cls, (a, b), (out,), kw)
        return out
    node = _new(cls)
    fa = fb = None
    na = nb = 0
    if ra:
        fa = a.grad_fn
        if fa is not None:
            if a._creation is not None:
                check_view_grad_fn(a)
            na = a._output_nr
        else:
            if a._version.__class__ is not list and all_inference((a, b)):
                return out
            fa, na = a._edge()
    if rb:
        fb = b.grad_fn
        if fb is not None:
            if b._creation is not None:
                check_view_grad_fn(b)
            nb = b._output_nr
        else:
            if b._version.__class__ is not list and all_inference((a, b)):
                return out
            fb, nb = b._edge()
    node._fns = (fa, fb)
    node._nrs = _ZERO_NRS2 if na == 0 and nb == 0 else (na, nb)
    if cls.save_inputs:
        sw = cls.save_when
        if sw is None:
            sa = saved_value(a) if isinstance(a, Tensor) else a
            sb = saved_value(b) if isinstance(b, Tensor) else b
        else:
            ua, ub = sw
            keep_a = (ra and 0 in ua) or (rb and 1 in ua)
            keep_b = (ra and 0 in ub) or (rb and 1 in ub)
            sa = (saved_value(a) if keep_a else a._data.shape) if isinstance(a, Tensor) else a
            sb = (saved_value(b) if keep_b else b._data.shape) if isinstance(b, Tensor) else b
            if cls.save_output:
                node._saved = (sa, sb, saved_value(out, True))
            elif keep_a or keep_b:  # (a number kept: torch saves it as a wrapped-number tensor, freed too)
                node._saved = (sa, sb)
            else:
                node._saved = SavedShapes((sa, sb))
            stamp(node, out.dtype, kw)
            return attach(node, out, (a, b))
        node._saved = (sa, sb, saved_value(out, True)) if cls.save_output else (sa, sb)
    else:
        node._saved = (saved_value(out, True),) if cls.save_output else ()
    stamp(node, out.dtype, kw)
    return attach(node, out, (a, b))


def all_inference(inputs):
    """No input is a normal tensor or a number (torch wraps a number in a normal tensor): the inputs are
    inference tensors, which have no Autograd dispatch key, so torch records no node for the op even
    when one of them requires grad (made so inside inference mode). The recorders ask only for a leaf
    that requires grad and is an inference tensor."""
    for t in inputs:
        if isinstance(t, Tensor):
            if t._version.__class__ is list:
                return False
        elif isinstance(t, (int, float)):
            return False
    return True


def is_normal(t):
    """t is a tensor of torch's autograd (no inference tensor): as a mask, index or condition it makes
    torch record an op of inference leaves (record's `normal`)."""
    return isinstance(t, Tensor) and t._version.__class__ is list


def inference_leaf(t):
    """t is an inference leaf that requires grad, in grad mode: torch records nothing for an op of it alone,
    but an op whose kernel wraps a Python number in a (normal) tensor and calls the op of two tensors
    (`1 - q`, `q % 2`, `torch.fmod(q, 2)`) records that op's node."""
    return grad_mode.enabled and t._rg and t.grad_fn is None and t._version.__class__ is not list


def out_variant_refusal(name):
    """torch's CPU kernel of some ops (abs, mean's and std's sum, logsumexp, cummax, kthvalue, nan_to_num,
    deg2rad, frexp, pow of a number, ...) calls the op's out= variant with a fresh, normal result tensor: for
    an inference leaf that requires grad, whose op skipped autograd, that call reaches the out= variant's
    autograd kernel, which refuses any input that requires grad (the error, or None)."""
    return errors.runtime(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                          "but one of the arguments requires grad.")


# the code of wrappers that pass their arguments on unchanged (out_variant's): a caller that rewords a
# TypeError of the wrapped function's arity (lang/method_arity.py) looks through their frames
FORWARDER_CODES = set()


def out_variant(name, fn, after=None):
    """fn (an op of one tensor input, its first) as torch binds it when its kernel calls `name`'s out=
    variant: an inference leaf that requires grad is refused (out_variant_refusal) before anything else,
    or, with `after` (a test of the input and fn's result), after fn's own checks where after says the
    kernel takes that route. The declaration binds this; the engine's own calls of fn go on unchecked."""
    @functools.wraps(fn)
    def checked(input, *args, **kwargs):
        if isinstance(input, Tensor) and inference_leaf(input):
            if after is None:
                raise out_variant_refusal(name)
            r = fn(input, *args, **kwargs)
            if after is True or after(input, r):
                raise out_variant_refusal(name)
            return r
        return fn(input, *args, **kwargs)
    FORWARDER_CODES.add(checked.__code__)
    return checked


def wrapped_number(x):
    """torch's wrapped_scalar_tensor: a Python number as a 0-d normal tensor (double, long, bool)."""
    dt = dtypes.bool_ if x.__class__ is bool else dtypes.int64 if isinstance(x, int) else dtypes.float64
    return wrap(np.asarray(x, dt.np), dt)


_new = object.__new__
_ZERO_NRS1 = ZERO_NRS[(0,)]
_ZERO_NRS2 = ZERO_NRS[(0, 0)]


def _select_saved(inputs, save_when):
    if len(inputs) == 2:  # the hot binary case, unrolled
        a, b = inputs
        ra = getattr(a, "_rg", False)
        rb = getattr(b, "_rg", False)
        ua, ub = save_when
        keep_a = (ra and 0 in ua) or (rb and 1 in ua)
        keep_b = (ra and 0 in ub) or (rb and 1 in ub)
        if isinstance(a, Tensor):
            a = SavedValue(a) if keep_a else a._data.shape
        if isinstance(b, Tensor):
            b = SavedValue(b) if keep_b else b._data.shape
        return (a, b) if keep_a or keep_b else SavedShapes((a, b))
    out = []
    kept = False  # torch's node saves something (a number too: a wrapped-number tensor), freed by a pass
    for t, users in zip(inputs, save_when):
        keep = any(getattr(inputs[j], "_rg", False) for j in users)
        kept = kept or keep
        if t.__class__ is not Tensor and not isinstance(t, Tensor):
            out.append(t)
        else:
            out.append(SavedValue(t) if keep else t._data.shape)
    return tuple(out) if kept else SavedShapes(out)


def record_multi(cls, inputs, outs, kw=None):
    """Like record, for a node with several outputs (split, unbind, max(dim)); none (unbind of an empty
    dimension) records nothing."""
    if not outs or not grad_mode.enabled or not any(getattr(t, "_rg", False) for t in inputs):
        if forward_level[0] is not None and outs:
            forward_level[0].push(cls, inputs, tuple(outs), kw)
        return outs
    if all_inference(inputs):
        return outs
    saved = tuple(SavedValue(t) if hasattr(t, "_rg") else t for t in inputs) if cls.save_inputs else ()
    node = make_node(cls, inputs, outs[0].dtype, saved, kw)
    node.n_outputs = len(outs)
    node._out_meta = [(o.shape, o.dtype, o.device) for o in outs]
    for i, o in enumerate(outs):
        if o.dtype.is_floating_point:
            o._rg = True
            o.grad_fn = node
            o._output_nr = i
            if o._base is not None:  # split/chunk/unbind: views that may not be modified in place
                o._creation = ("multi", o._version[0])
    if node_observer[0] is not None:
        node_observer[0](node, inputs, tuple(outs))
    return outs


class MultiOutputFunction(Function):
    """A node of several outputs: backward gets one gradient per output (zeros for the missing ones,
    materialize). With one output (a split into one piece, unbind of a size-1 dim) the engine runs it as
    a single-output node, with the gradient alone: the subclasses' backward then gets it as a list."""
    __slots__ = ("n_outputs", "_out_meta")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        bw = cls.__dict__.get("backward")
        if bw is not None:
            def backward(self, grads, _bw=bw):
                return _bw(self, grads if isinstance(grads, (list, tuple)) else [grads])
            backward.__doc__ = bw.__doc__
            cls.backward = backward

    def materialize(self, grads):
        from .factory import zeros  # noqa: PLC0415 - factory imports tensor which imports this module
        return [g if g is not None else zeros(shape, dtype=dtype, device=dev)
                for g, (shape, dtype, dev) in zip(grads, self._out_meta)]
