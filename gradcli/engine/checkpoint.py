"""torch.utils.checkpoint.checkpoint and checkpoint_sequential (torch/utils/checkpoint.py, 2.13). use_reentrant=False records
the function's own graph (torch's saved-tensor hooks recompute the same values under the same
random state, so what a script sees is the plain call's: grad_fn names, values, gradients);
use_reentrant=True (and the default, with torch's warning) is torch's CheckpointFunction: forward
without a graph, its backward runs the function again from the saved inputs and random state.
"""
from __future__ import annotations

import warnings

from . import api as torch
from .custom_function import Function
from .nn.containers import Sequential
from .rng_ops import get_rng_state, set_rng_state
from .tensor import Tensor

NAMES = ("checkpoint", "checkpoint_sequential")


def _detach_inputs(inputs):
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        else:
            out.append(inp)
    return tuple(out)


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with torch.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *args):
        inputs = list(ctx.inputs)
        for i, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = tensor
        detached = _detach_inputs(inputs)
        outer_state = get_rng_state()
        if ctx.rng_state is not None:
            set_rng_state(ctx.rng_state)
        try:
            with torch.enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            set_rng_state(outer_state)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, args) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    """torch.utils.checkpoint.checkpoint: the function's outputs, their activations recomputed in backward."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
                      "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    if not use_reentrant:
        if determinism_check not in ("default", "none"):
            raise ValueError("determinism_check should be one of ['default', 'none'], but got "
                             f"{determinism_check}")
        return function(*args, **kwargs)
    if context_fn is not None or debug:
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    return CheckpointFunction.apply(function, preserve_rng_state, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):  # noqa: A002 - torch's name
    """torch.utils.checkpoint.checkpoint_sequential: the functions (a Sequential's children) in `segments`
    chunks, each but the last run through checkpoint, as torch's loop splits them."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):  # noqa: A002 - torch's name
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1  # the last chunk runs outside checkpoint (its output needs its graph)
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)


CheckpointFunction.__module__ = "torch.utils.checkpoint"
