"""torch.autograd.graph.Node: an abstract class every grad_fn is an instance of (the engine's nodes register)."""
from __future__ import annotations

import abc

from . import autograd


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
