"""torch.nn.utils: gradient clipping and parameters_to_vector, as torch computes them on CPU
(per-tensor vector norms, then the norm of those norms)."""
from __future__ import annotations

import warnings

from .. import errors
from ..autograd_modes import no_grad
from ..tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    params = list(parameters)
    return params, [p.grad for p in params if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    from ..factory import tensor  # noqa: PLC0415
    from ..ops.norms import vector_norm  # noqa: PLC0415
    from ..ops import join_split as JS  # noqa: PLC0415
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    with no_grad():
        norms = [vector_norm(g, norm_type) for g in tensors]
        total = vector_norm(JS.stack(norms), norm_type)
    if error_if_nonfinite and (bool(total.isnan()) or bool(total.isinf())):
        raise errors.runtime(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                             "so it cannot be clipped. To disable this error and scale the gradients by the "
                             "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    from ..ops.clamp_where import clamp  # noqa: PLC0415
    params, grads = _grads(parameters)
    if len(grads) == 0:
        return
    with no_grad():
        coef = clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    params, grads = _grads(parameters)
    if not params:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", UserWarning,
                      stacklevel=2)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    _, grads = _grads(parameters)
    clip_value = float(clip_value)
    with no_grad():
        for g in grads:
            g.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters):
    from ..ops import join_split as JS  # noqa: PLC0415
    return JS.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data if hasattr(vec, "view_as") else \
            vec[pointer:pointer + n].view(tuple(p.shape)).data
        pointer += n


NAMES = ("clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm", "parameters_to_vector",
         "vector_to_parameters")
# torch.nn.utils.clip_grad (nn.utils.clip_grad.clip_grad_norm_ in tutorials); the rest is convert_parameters
CLIP_GRAD_NAMES = ("clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm")
