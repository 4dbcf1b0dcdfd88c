"""torch.autograd.graph: Node (an abstract class every grad_fn is an instance of: the engine's nodes
register) and register_multi_grad_hook (a port of torch/autograd/graph.py's, over tensor hooks and the
engine's current pass)."""
from __future__ import annotations

import abc
import functools

from . import autograd, autograd_engine


class Node(abc.ABC):
    """torch.autograd.graph.Node: for isinstance(t.grad_fn, Node); the engine's nodes register."""

    @abc.abstractmethod
    def name(self):
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def next_functions(self):
        raise NotImplementedError

    @abc.abstractmethod
    def metadata(self):
        raise NotImplementedError

    @abc.abstractmethod
    def register_hook(self, fn):
        raise NotImplementedError

    @abc.abstractmethod
    def register_prehook(self, fn):
        raise NotImplementedError


Node.__module__ = "torch.autograd.graph"
Node.register(autograd.Node)

NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def _grad_fn_or_grad_acc(t):
    if not t._rg:
        return None
    return t._edge()[0]


class _MultiHandle:
    """torch.autograd.graph._MultiHandle: removes every hook register_multi_grad_hook put."""

    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __repr__(self):
        return f"<torch.autograd.graph._MultiHandle object at {hex(id(self))}>"


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode 'all': fn(grads) once per backward pass, when the gradients of every tensor that the pass
    computes are there (None for the others); mode 'any': fn(grad) with the first of them."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "all":
        count, buffer = {}, {}
        nb_calls = [None]
        grad_fns = [_grad_fn_or_grad_acc(t) for t in tensors]

        def inner_hook_for(idx):
            def inner_hook(grad):
                task = autograd_engine.current_graph_task_id()
                n = count.get(task, 0)
                count[task] = n + 1
                if task not in buffer:
                    buffer[task] = [None] * len(tensors)
                if n == 0:
                    nb_calls[0] = sum(autograd_engine.will_engine_execute_node(g) for g in grad_fns)
                buffer[task][idx] = grad
                if n == nb_calls[0] - 1:
                    grads = buffer.pop(task)
                    del count[task]
                    fn(grads)
            return inner_hook
        handles = tuple(t.register_hook(inner_hook_for(i)) for i, t in enumerate(tensors) if t.requires_grad)
    else:
        ran = {}

        @functools.wraps(fn)
        def wrapped_fn(grad):
            task = autograd_engine.current_graph_task_id()
            if ran.get(task):
                return
            ran[task] = True
            fn(grad)
        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


register_multi_grad_hook.__module__ = "torch.autograd.graph"
_MultiHandle.__module__ = "torch.autograd.graph"
