"""torch.autograd's entry points: backward() and grad(), checking their arguments as torch does."""
from __future__ import annotations

from . import errors
from .autograd_engine import run_backward
from .tensor import Tensor


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs, grads, is_grads_batched=False):
    if grads is None:
        grads = (None,) * len(outputs)
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if not isinstance(out, Tensor):
            raise errors.assertion("Expected output to be a torch.Tensor")
        if g is None:
            if out._rg:
                if out._data.size != 1:
                    raise errors.runtime(errors.NOT_SCALAR, hint="non_scalar")
                from .factory import ones_like  # noqa: PLC0415
                g = ones_like(out)
        else:
            if not isinstance(g, Tensor):
                raise errors.type_error("gradients can be either Tensors or None, but got " + type(g).__name__)
            if is_grads_batched:  # (torch names the shape of grad[0] without its first dim, as written)
                if tuple(g[0].shape) != tuple(out.shape):
                    raise errors.runtime(
                        "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
                        "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
                        f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                        f"{g[0].shape[1:]} and output[{i}] has a shape of {out.shape}. If you only want some tensors in "
                        "`grad_output` to be considered batched, consider using vmap.")
            elif tuple(g.shape) != tuple(out.shape):
                raise errors.runtime(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                                     f"has a shape of {out.shape}.")
            if g.dtype is not out.dtype:
                g = g.to(out.dtype)  # the engine casts a root gradient to its output's dtype
            if type(g._data) is not type(out._data):  # the engine's validate_outputs
                if g._data.ndim == 0:
                    g = g.to(out.device)
                else:
                    raise errors.runtime(f"invalid gradient at index {i} - expected device {out.device} but got "
                                         f"{g.device}")
        result.append(g)
    if len(grads) != len(outputs):
        raise errors.runtime(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return result


def _check_requires_grad(outputs):
    for i, out in enumerate(outputs):
        if not out._rg:
            raise errors.runtime(errors.NO_GRAD_FN.format(i), hint="no_grad_fn")


def _check_input(t):
    if not isinstance(t, Tensor):
        from .argcheck import typename  # noqa: PLC0415
        raise errors.runtime(f"all inputs have to be Tensors or GradientEdges, but got {typename(t)}")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    grad_tensors = _as_tuple(grad_tensors)
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise errors.runtime("`inputs` argument to `backward()` cannot be empty.")
    grads = _make_grads(tensors, grad_tensors)
    _check_requires_grad(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        for t in inputs:
            _check_input(t)
            if not t._rg:
                raise errors.runtime("can't retain_grad on Tensor that has requires_grad=False")
    if create_graph and inputs is None:
        import warnings  # noqa: PLC0415
        warnings.warn("Using backward() with create_graph=True will create a reference cycle between the parameter "
                      "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
                      "creating the graph to avoid this. If you have to use this function, make sure to reset the "
                      ".grad fields of your parameters to None after use to break the cycle and avoid the leak.",
                      UserWarning, stacklevel=3)
    if inputs is not None:
        # backward(inputs=...) accumulates into exactly those tensors, leaves or not: a non-leaf one
        # retains its grad from now on, as autograd.cpp's run_backward makes it
        for t in inputs:
            if t.grad_fn is not None:
                t.retain_grad()
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True, allow_unused=True)
    return None


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    if materialize_grads and allow_unused is False:
        raise errors.value("Expected allow_unused to be True or not passed when materialize_grads=True, "
                           "but got: allow_unused=False.")
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise errors.runtime("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    grads = _make_grads(outputs, _as_tuple(grad_outputs), is_grads_batched)
    _check_requires_grad(outputs)
    for t in inputs:
        _check_input(t)
        if not t._rg:
            raise errors.runtime(errors.DOES_NOT_REQUIRE_GRAD_INPUT)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        results = _batched_grad(outputs, grads, inputs, retain_graph, create_graph, allow_unused)
    else:
        results = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, accumulate=False,
                               allow_unused=allow_unused)
    if materialize_grads:
        from .factory import zeros_like  # noqa: PLC0415
        results = [r if r is not None else zeros_like(t, requires_grad=create_graph)
                   for r, t in zip(results, inputs)]
    return tuple(results)


def _batched_grad(outputs, grads, inputs, retain_graph, create_graph, allow_unused):
    """grad(..., is_grads_batched=True): torch vmaps one backward over the first dim of every grad_output;
    here one backward per batch entry (the graph kept until the last), the results stacked."""
    from .ops.join_split import stack  # noqa: PLC0415
    sizes = {g.shape[0] if g.dim() else None for g in grads}
    if len(sizes) != 1 or None in sizes:
        raise errors.value("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                           f"{[g.shape[0] if g.dim() else None for g in grads]} for the mapped dimension")
    (batch,) = sizes
    per_input = [[] for _ in inputs]
    for b in range(batch):
        keep = retain_graph if b == batch - 1 else True
        res = run_backward(outputs, [g[b] for g in grads], keep, create_graph, inputs=inputs, accumulate=False,
                           allow_unused=allow_unused)
        for acc, r in zip(per_input, res):
            acc.append(r)
    return [None if any(r is None for r in acc) else stack(acc) for acc in per_input]
