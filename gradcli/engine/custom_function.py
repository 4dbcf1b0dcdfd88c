"""torch.autograd.Function: user-defined ops with their own backward (custom autograd functions).

A subclass defines ``forward(ctx, *args)`` (or ``forward(*args)`` with ``setup_context(ctx, inputs,
output)``) and ``backward(ctx, *grads)``; ``Sub.apply(*args)`` runs the forward without recording a
graph and, when an input requires grad and grad mode is on, gives the outputs one node of a class
made for the subclass, ``SubBackward`` (its name in ``grad_fn=<SubBackward>``). The node is also
the ``ctx`` that forward and backward see (as in torch: ``y.grad_fn is ctx``), so values stored on
ctx are attributes of the node. Its backward calls the subclass's ``backward`` (any Python callable:
the language hands its own functions) and checks what comes back as torch does (the number of
gradients, their types and shapes). The engine knows nothing of where the callables come from;
a callable that has ``bind_positional(args, kwargs)`` binds ``apply``'s arguments with its defaults
(the setup_context form passes every parameter to setup_context, defaults included, as torch does).
"""
from __future__ import annotations

import warnings

from . import errors
from .autograd import Node, forward_level, node_observer, SavedValue, stamp
from .autograd_modes import grad_mode
from .dtypes import FLOAT
from .private_names import keeps
from .tensor import Tensor
from .views import view_of


def _shape_text(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


class FunctionCtx:
    """torch.autograd.function.FunctionCtx: the methods forward and setup_context call on ctx."""
    __slots__ = ()

    def save_for_backward(self, *tensors):
        self.__dict__["_to_save"] = tensors  # checked when apply saves them (after forward), as in torch

    def mark_dirty(self, *tensors):
        self.__dict__["_dirty"] = tensors

    def mark_non_differentiable(self, *tensors):
        self.__dict__["_non_diff"] = tensors

    def set_materialize_grads(self, value):
        self.__dict__["_materialize"] = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The node (and ctx) of one call of a custom Function; a subclass per Function (SubBackward).
    Unlike the built-in nodes it has an instance dict: scripts store their own values on ctx."""

    _forward_cls = None

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def __setattr__(self, name, value):
        # a script stores its own values on ctx; what the engine reads stays the engine's
        if not name.startswith("_") and (name in _ENGINE_FIELDS or hasattr(type(self), name)):
            raise AttributeError(f"attribute '{name}' of 'torch._C._FunctionBase' objects is not writable")
        object.__setattr__(self, name, value)

    @property
    def saved_tensors(self):
        if getattr(self, "_fns", None) is None:
            return tuple(self.__dict__.get("_to_save", ()))   # before apply wrapped the outputs
        return tuple(self.saved)

    @property
    def next_functions(self):
        return Node.next_functions.fget(self)

    @next_functions.setter
    def next_functions(self, value):
        raise AttributeError("attribute 'next_functions' of 'torch._C._FunctionBase' objects is not writable")

    # ------------------------------------------------------------------ the engine's side
    def materialize(self, grads):
        if not self.__dict__.get("_materialize", True):
            return grads
        from .factory import zeros  # noqa: PLC0415 - factory imports tensor which imports this module
        return [g if g is not None or meta is None else zeros(meta[0], dtype=meta[1], device=meta[2])
                for g, meta in zip(grads, self._out_meta)]

    def backward(self, grads):
        d = self.__dict__
        if self.n_outputs == 1:
            grads = [grads]
        user_backward = self._forward_cls.backward
        result = user_backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        inputs = d["_inputs"]
        n = len(inputs)
        name = self.name()
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise errors.runtime(f"function {name} returned an incorrect number of gradients (expected {n}, "
                                     f"got {len(result)})")
        out = []
        for i, (g, meta) in enumerate(zip(result, inputs)):
            if g is None:
                out.append(None)
                continue
            if not isinstance(g, Tensor):
                raise errors.runtime(f"expected Variable or None (got {type(g).__name__})")
            if meta is None:
                raise errors.runtime(f"function {name} returned a gradient different than None at position "
                                     f"{i + 1}, but the corresponding forward input was not a Variable")
            if self._fns[i] is None:
                out.append(None)
                continue
            shape, dtype = meta
            if g._data.shape != shape:
                gshape = g._data.shape
                lead = len(gshape) - len(shape)
                if lead < 0 or any(s != 1 and s != gs for s, gs in zip(shape, gshape[lead:])):
                    raise errors.runtime(f"Function {name} returned an invalid gradient at index {i} - got "
                                         f"{_shape_text(gshape)} but expected shape compatible with "
                                         f"{_shape_text(shape)}")
                from .ops.shape import sum_to  # noqa: PLC0415
                g = sum_to(g, shape)
            if g.dtype is not dtype:
                g = g.to(dtype)
            out.append(g)
        return tuple(out)


_ENGINE_FIELDS = frozenset(("n_outputs", "needs_input_grad"))


@keeps("_backward_cls")  # the node class node_class() made, in the script's Function subclass
class Function:
    """torch.autograd.Function: subclass it with static forward/backward and call Sub.apply(...)."""

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{_class_repr(type(self))} should not be instantiated. Methods on autograd functions are "
                      "all static, so you should invoke them on the class itself. Instantiating an autograd "
                      "function will raise an error in a future version of PyTorch.", DeprecationWarning,
                      stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise errors.runtime("Legacy autograd function with non-static forward method is deprecated. Please use "
                             "new-style autograd function with static forward method. (Example: "
                             "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        return apply_function(cls, args, kwargs)


for _cls in (Function, FunctionCtx, BackwardCFunction):
    _cls.__module__ = "torch.autograd.function"


def _class_repr(cls):
    return f"<class '{cls.__module__}.{cls.__qualname__}'>"


def node_class(cls):
    """The node class of Function subclass cls (made once): SubBackward."""
    node_cls = cls.__dict__.get("_backward_cls")
    if node_cls is None:
        name = cls.__name__ + "Backward"
        node_cls = type(name, (BackwardCFunction,), {"__module__": "torch.autograd.function",
                                                     "__qualname__": name, "_forward_cls": cls})
        type.__setattr__(cls, "_backward_cls", node_cls)
    return node_cls


def _bind(fn, args, kwargs):
    import inspect  # noqa: PLC0415
    fn = inspect.unwrap(fn)
    binder = getattr(fn, "bind_positional", None)
    if binder is not None:
        return binder(args, kwargs)
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args)


def apply_function(cls, args, kwargs):
    """Sub.apply(*args, **kwargs): THPFunction_apply and torch/autograd/function.py's apply."""
    setup = cls.setup_context is not Function.setup_context
    if setup:
        args = _bind(cls.forward, args, kwargs)
        kwargs = {}
    ctx = object.__new__(node_class(cls))
    d = ctx.__dict__
    d["needs_input_grad"] = tuple(isinstance(a, Tensor) and a._rg for a in args)
    prev = grad_mode.enabled
    executable = prev and any(d["needs_input_grad"])
    grad_mode.enabled = False
    level = forward_level[0]  # a forward-AD level: the outputs' tangents are the Function's jvp's, not its ops'
    forward_level[0] = None
    try:
        if setup:
            output = cls.forward(*args)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args, **kwargs)
    finally:
        grad_mode.enabled = prev
        forward_level[0] = level
    output = _wrap_outputs(ctx, args, output, executable)
    if level is not None:
        from .forward_ad import push_custom  # noqa: PLC0415 - only inside a forward-AD level
        push_custom(cls, ctx, args, output)
    return output


def _wrap_outputs(ctx, args, output, executable):
    d = ctx.__dict__
    is_tuple = isinstance(output, tuple)
    outs = list(output) if is_tuple else [output]
    dirty = d.pop("_dirty", ())
    non_diff = d.pop("_non_diff", ())
    for t in dirty:
        if not any(o is t for o in outs):
            raise errors.runtime("Some elements marked as dirty during the forward method were not returned as "
                                 "output. The inputs that are modified inplace must all be outputs of the Function.")
    to_save = d.pop("_to_save", ())
    if not executable:
        # torch saves nothing for a call no backward can reach (python_function.cpp drops to_save when the
        # call is not executable): saved_tensors is (), and inference tensors pass (no SavedVariable check)
        ctx._saved = ()
        ctx._fns, ctx._nrs = (), ()
        return output
    fns, nrs = [], []
    inputs = []
    for a in args:
        if isinstance(a, Tensor):
            inputs.append((a._data.shape, a.dtype))
            fn, nr = a._edge()
            fns.append(fn)
            nrs.append(nr)
        else:
            inputs.append(None)
            fns.append(None)
            nrs.append(0)
    d["_inputs"] = inputs
    ctx._fns = tuple(fns)
    ctx._nrs = tuple(nrs)
    d["n_outputs"] = len(outs)
    out_dtype = next((o.dtype for o in outs if isinstance(o, Tensor) and o.dtype.category == FLOAT), None)
    stamp(ctx, out_dtype, None)
    meta = []
    arg_ids = {id(a) for a in args if isinstance(a, Tensor)}
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            meta.append(None)
            continue
        is_dirty = any(o is t for t in dirty)
        if is_dirty:
            if o.grad_fn is None and o._rg:
                raise errors.runtime("a leaf Variable that requires grad has been used in an in-place operation.")
            o._version[0] += 1  # as torch bumps a dirty input (forward may have changed it behind the counter)
        elif id(o) in arg_ids:
            o = outs[i] = view_of(o, o._data)   # an input returned as it is: an alias (torch's view_as)
        differentiable = o.dtype.category == FLOAT and not any(o is t for t in non_diff)
        meta.append((o._data.shape, o.dtype, o.device))
        if differentiable:
            if is_dirty and o._base is not None:
                from .ops.inplace import apply_inplace_graph  # noqa: PLC0415
                apply_inplace_graph(o, ctx)
            else:
                o._rg = True
                o.grad_fn = ctx
                o._output_nr = i
                if o._base is not None:  # a view (of an input, or an input returned as it is): torch's CreationMeta
                    o._creation = ("multi" if len(outs) > 1 else "custom", o._version[0])
        elif not is_dirty:
            o._rg = False
    ctx._out_meta = meta
    for i, t in enumerate(to_save):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                            f"{type(t).__name__}")
    out_ids = {id(o): i for i, o in enumerate(outs) if isinstance(o, Tensor)}
    ctx._saved = tuple(None if t is None else SavedValue(t, id(t) in out_ids) for t in to_save)
    if node_observer[0] is not None:
        node_observer[0](ctx, tuple(a for a in args if isinstance(a, Tensor)),
                          tuple(o for o in outs if isinstance(o, Tensor)))
    return tuple(outs) if is_tuple else outs[0]


# ----------------------------------------------------------------------------- once_differentiable

ONCE_DIFFERENTIABLE_ERROR = "trying to differentiate twice a function that was marked with @once_differentiable"


class DelayedError(Node):
    """The node that once_differentiable puts on a backward's results: its own backward raises."""
    __slots__ = ("n_outputs",)

    def name(self):
        return "torch::autograd::Error"

    def __repr__(self):
        return f"<Error object at {hex(id(self))}>"

    def materialize(self, grads):
        return grads

    def backward(self, grads):
        raise errors.runtime(ONCE_DIFFERENTIABLE_ERROR)


DelayedError.__name__ = DelayedError.__qualname__ = "Error"


class _OnceDifferentiable:
    """once_differentiable(fn): fn runs without a graph; when grad mode is on and one of its arguments
    requires grad, its results come out behind a DelayedError node (double backward then fails)."""

    __slots__ = ("fn", "__weakref__")

    def __init__(self, fn):
        self.fn = fn

    def __repr__(self):
        return repr(self.fn)

    def bind_positional(self, args, kwargs):
        return _bind(self.fn, args, kwargs)

    def __call__(self, ctx, *args):
        prev = grad_mode.enabled
        grad_mode.enabled = False
        try:
            outputs = self.fn(ctx, *args)
        finally:
            grad_mode.enabled = prev
        if not prev or not any(isinstance(a, Tensor) and a._rg for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        node = object.__new__(DelayedError)
        node.n_outputs = len(outs)
        fns, result = [], []
        for i, v in enumerate(outs):
            if v is None:
                fns.append(None)
                result.append(None)
                continue
            leaf = v.detach()
            leaf._rg = True
            fns.append(leaf._edge()[0])
            r = view_of(leaf, leaf._data)
            r.grad_fn = node
            r._output_nr = i
            result.append(r)
        node._fns = tuple(fns)
        node._nrs = (0,) * len(fns)
        node._saved = ()
        dtype = next((r.dtype for r in result if r is not None), None)
        stamp(node, dtype, None)
        return tuple(result)


def once_differentiable(fn):
    return _OnceDifferentiable(fn)


once_differentiable.__module__ = "torch.autograd.function"
_OnceDifferentiable.__module__ = "torch.autograd.function"

__all__ = ["BackwardCFunction", "DelayedError", "Function", "FunctionCtx", "apply_function",
           "node_class", "once_differentiable"]
