"""torch's checks of what a backward hook returns (torch/csrc/autograd/python_hook.cpp: ``_call_hooks``,
``check_result``, ``check_single_result``; ``check_variable_result`` in function_hook.cpp).

A tensor hook (``x.register_hook``, a node's pre-hook on one output) returns None or a tensor of
the gradient's dtype, device and size; a node's pre-hook (``grad_fn.register_prehook``) and post-hook
(``grad_fn.register_hook``, which the full backward hooks of modules use) return None or a tuple of as
many values as it was given, each None or such a tensor. Anything else is torch's error: before these
checks a hook could hand the engine a string or a gradient of another dtype or shape.
"""
from __future__ import annotations

from . import errors


def _hook_name(hook):
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _typename(value):
    from .argcheck import typename  # noqa: PLC0415 - argcheck imports the tensor module
    return typename(value)


def check_single(original, result, hook):
    """``result`` of a hook given ``original`` (a gradient or None), when it is not None."""
    from .tensor import Tensor  # noqa: PLC0415 - the tensor module imports the autograd engine
    if original is None:
        raise errors.runtime("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise errors.type_error(f"expected Variable, but hook returned '{_typename(result)}'")
    if result.dtype is not original.dtype or result.device.type != original.device.type:
        raise errors.runtime(f"hook '{_hook_name(hook)}' has changed the type of value (was {original.type()} got "
                             f"{result.type()})")
    if tuple(result.shape) != tuple(original.shape):
        raise errors.runtime(f"hook '{_hook_name(hook)}' has changed the size of value")


def tensor_hook_result(original, result, hook):
    """The gradient after a tensor hook returned ``result``."""
    if result is None or result is original:
        return original
    check_single(original, result, hook)
    return result


def tuple_hook_result(originals, result, hook):
    """The gradients (a tuple) after a node's pre- or post-hook returned ``result``."""
    if result is None or result is originals:
        return originals
    if not isinstance(result, tuple):
        raise errors.type_error(f"expected tuple, but hook returned '{_typename(result)}'")
    if len(result) != len(originals):
        raise errors.runtime(f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got {len(result)}, "
                             f"but expected {len(originals)})")
    for original, value in zip(originals, result):
        if value is not None:
            check_single(original, value, hook)
    return result
