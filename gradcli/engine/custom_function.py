"""torch.autograd.Function: user-defined ops with their own forward and backward.

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            x, = ctx.saved_tensors
            return 2 * x * grad_output

    y = Square.apply(x)        # y.grad_fn: <torch.autograd.function.SquareBackward object at 0x...>

As in torch, the ctx is the graph node itself (a ``<Name>Backward`` class made for each Function
subclass): forward runs without grad mode and with the node as ctx, then the node is attached to
the outputs; backward calls the class's backward with the node as ctx, one gradient per output
(missing ones are zeros, unless ctx.set_materialize_grads(False)), and expects one gradient per
forward argument (None for the ones that are not tensors or need none).
"""
from __future__ import annotations

from . import errors
from .autograd import _NO_EDGE, Node, _node_observer, _Saved, _sequence, _site_hook, grad_mode
from .tensor import Tensor, view_of


class BackwardCFunction(Node):
    """The node (and ctx) of one call of a custom Function; subclassed per Function as <Name>Backward."""

    # no __slots__: a ctx takes any attribute (ctx.constant = 2)
    _function = None  # the Function subclass

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    # ------------------------------------------------------------------ the ctx API
    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise errors.type_error("save_for_backward can only save variables, but argument "
                                        f"{tensors.index(t)} is of type {type(t).__name__}")
        self._to_save = tensors

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is None:
            raise errors.runtime(errors.FREED_GRAPH, hint="retain_graph")
        return tuple(self.saved) if saved else ()

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self._materialize = bool(value)

    # ------------------------------------------------------------------ the node
    def materialize(self, grads):
        if not self._materialize:
            return grads
        from .factory import zeros_like  # noqa: PLC0415
        return [g if g is not None or o is None else zeros_like(o) for g, o in zip(grads, self._outputs_meta)]

    def backward(self, grads):
        if self.n_outputs == 1:
            grads = [grads]
        result = self._function.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_args = len(self._arg_is_tensor)
        if len(result) != n_args:
            if len(result) > n_args and all(r is None for r in result[n_args:]):
                result = result[:n_args]
            else:
                raise errors.runtime(f"function {type(self).__name__} returned an incorrect number of gradients "
                                     f"(expected {n_args}, got {len(result)})")
        in_grads = []
        for i, (g, is_tensor) in enumerate(zip(result, self._arg_is_tensor)):
            if not is_tensor:
                continue
            if g is not None and not isinstance(g, Tensor):
                raise errors.type_error(f"expected Tensor or None (got {type(g).__name__})")
            if g is not None:
                shape = self._input_shapes[len(in_grads)]
                if g._data.shape != shape:
                    import numpy as np  # noqa: PLC0415
                    try:
                        np.broadcast_shapes(g._data.shape, shape)
                        ok = len(g._data.shape) <= len(shape) or g._data.size == int(np.prod(shape))
                    except ValueError:
                        ok = False
                    if not ok:
                        raise errors.runtime(
                            f"Function {type(self).__name__} returned an invalid gradient at index {i} - got "
                            f"[{', '.join(map(str, g._data.shape))}] but expected shape compatible with "
                            f"[{', '.join(map(str, shape))}]")
                    from .ops.shape import sum_to  # noqa: PLC0415
                    if len(g._data.shape) > len(shape):
                        g = g.reshape(shape)
                    else:
                        g = sum_to(g.expand(*shape) if g._data.shape != shape else g, shape)
            in_grads.append(g)
        return tuple(in_grads)


class _FunctionMeta(type):
    """Makes the <Name>Backward node class of each Function subclass."""

    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        node_cls = type(f"{name}Backward", (BackwardCFunction,), {"_function": cls,
                                                                  "__module__": "torch.autograd.function"})
        type.__setattr__(cls, "_backward_cls", node_cls)


class Function(metaclass=_FunctionMeta):
    """torch.autograd.Function: subclass it with static forward(ctx, ...) and backward(ctx, ...)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls is Function:
            raise errors.runtime("You must subclass Function and implement forward and backward")
        ctx = cls._backward_cls.__new__(cls._backward_cls)
        ctx._to_save = ()
        ctx._dirty = ()
        ctx._non_differentiable = ()
        ctx._materialize = True
        ctx._saved = ()
        ctx._kw = None
        ctx._x = None
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._rg for a in args)
        ctx.next_functions = ()
        enabled = grad_mode.enabled
        grad_mode.enabled = False
        try:
            outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            grad_mode.enabled = enabled
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        if not (enabled and any(a._rg for a in tensor_args)):
            return outputs
        is_tuple = isinstance(outputs, tuple)
        outs = list(outputs) if is_tuple else [outputs]
        edges = []
        for t in tensor_args:
            if t.grad_fn is not None:
                edges.append((t.grad_fn, t._output_nr))
            elif t._rg:
                edges.append(t._edge())
            else:
                edges.append(_NO_EDGE)
        ctx.next_functions = tuple(edges)
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx._input_shapes = tuple(t._data.shape for t in tensor_args)
        ctx._seq = next(_sequence)
        ctx.n_outputs = len(outs)
        if _site_hook[0] is not None:
            ctx._site = _site_hook[0]()
        dirty = ctx._dirty
        non_diff = ctx._non_differentiable
        result = []
        meta = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                result.append(o)
                meta.append(None)
                continue
            if any(o is d for d in dirty):
                if o.grad_fn is None and o._rg:
                    raise errors.runtime(errors.LEAF_INPLACE, hint="leaf_inplace")
            elif any(o is a for a in tensor_args):
                o = view_of(o, o._data)  # an input returned as it is: a new tensor that is its alias
            if o.dtype.is_floating_point and not any(o is n for n in non_diff):
                o._rg = True
                o.grad_fn = ctx
                o._output_nr = i
            result.append(o)
            meta.append(o)
        ctx._out_dtype = next((o.dtype for o in meta if o is not None), None)
        ctx._outputs_meta = [o.detach() if o is not None else None for o in meta]
        ctx._saved = tuple(_Saved(t) if t is not None else None for t in ctx._to_save)
        ctx._to_save = ()
        if _node_observer[0] is not None:
            _node_observer[0](ctx, tuple(tensor_args), tuple(o for o in meta if o is not None))
        return tuple(result) if is_tuple else result[0]


Function.__module__ = "torch.autograd.function"
BackwardCFunction.__module__ = "torch.autograd.function"
