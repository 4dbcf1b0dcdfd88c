"""nn.Parameter and nn.Buffer (torch/nn/parameter.py): the tensor types a Module registers."""
from __future__ import annotations

from .. import errors
from ..autograd_modes import REQUIRES_GRAD_INFERENCE, grad_mode, inference_alias_version
from ..tensor import Tensor, init_from


class Parameter(Tensor):
    """torch.nn.Parameter: a leaf Tensor that a Module registers; prints as 'Parameter containing:'."""
    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        from ..factory import empty  # noqa: PLC0415
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise errors.type_error(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        v = data._version
        if v.__class__ is not list:  # an inference tensor: _make_subclass detaches it, then sets requires_grad
            v = inference_alias_version()
            if requires_grad and not grad_mode.inference:
                raise errors.runtime(REQUIRES_GRAD_INFERENCE, hint="inference")
        if requires_grad and not data.dtype.is_floating_point:
            raise errors.runtime(errors.FLOAT_ONLY_CTOR)
        p = Tensor.__new__(cls)
        init_from(p, data._data, data.dtype)
        p._version = v
        p._rg = bool(requires_grad)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self, *, tensor_contents=None):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        from ..tensor import detached_copy  # noqa: PLC0415
        return Parameter(detached_copy(self), self._rg)

    def __reduce_ex__(self, protocol):
        raise errors.type_error("cannot pickle 'Parameter' object")


class Buffer(Tensor):
    """torch.nn.Buffer: marks a tensor to be registered as a buffer when assigned to a Module."""
    __slots__ = ()

    def __new__(cls, data=None, *, persistent=True):
        from ..factory import empty  # noqa: PLC0415
        if data is None:
            data = empty(0)
        t = Tensor.__new__(Tensor)
        init_from(t, data._data, data.dtype)
        t._rg = data._rg
        return BufferMark(t, persistent)


class BufferMark:
    """What assigning a Buffer to a Module attribute hands Module.__setattr__: the tensor and its persistence."""
    __slots__ = ("tensor", "persistent")

    def __init__(self, tensor, persistent):
        self.tensor = tensor
        self.persistent = persistent


Parameter.__module__ = "torch.nn.parameter"
Buffer.__module__ = "torch.nn.parameter"
