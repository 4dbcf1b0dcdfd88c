"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp, ported from
torch/autograd/functional.py (reverse mode, one output element at a time; `vectorize` and
`strategy` are accepted and ignored, as the results are the same)."""
from __future__ import annotations

from . import errors
from .autograd_modes import enable_grad, grad_mode, set_grad_enabled
from .autograd_api import grad as _grad
from .limits import check_shape
from .tensor import Tensor


def _zeros_like(t, requires_grad=False):
    from .factory import zeros_like  # noqa: PLC0415
    return zeros_like(t, requires_grad=requires_grad)


def _stack(ts, dim=0):
    from .ops.join_split import stack  # noqa: PLC0415
    return stack(ts, dim)


def _as_tuple(inp, arg_name, fn_name):
    is_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            if is_tuple:
                raise errors.type_error(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                                        f"Tensors but the value at index {i} has type {type(el)}.")
            raise errors.type_error(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                                    f"but the given {arg_name} has type {type(el)}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp) if hasattr(inp, "view_as") else inp.view(tuple(inp.shape)))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        if not create_graph:
            return tuple(inp.detach() for inp in inputs)
        return inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise errors.runtime(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise errors.runtime("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if tuple(el_v.shape) != tuple(el_other.shape):
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise errors.runtime(f"{prepend}v has invalid size: should be {el_other.shape} but got {el_v.shape}.")


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise errors.runtime(f"The output of the user-provided function is independent of input {i}. This is "
                                 "not allowed in strict mode.")
        if not inp.requires_grad:
            if input_type == "hessian":
                raise errors.runtime(
                    f"The hessian of the user-provided function with respect to input {i} is independent of the "
                    "input. This is not allowed in strict mode. You should ensure that your function is thrice "
                    "differentiable and that the hessian depends on the inputs.")
            if input_type == "jacobian":
                raise errors.runtime(
                    "While computing the hessian, found that the jacobian of the user-provided function with "
                    f"respect to input {i} is independent of the input. This is not allowed in strict mode. You "
                    "should ensure that your function is twice differentiable and that the jacobian depends on the "
                    "inputs (this would be violated by a linear function for example).")
            if input_type == "grad_inputs":
                raise errors.runtime(f"The gradient with respect to input {i} is independent of the inputs of the "
                                     "user-provided function. This is not allowed in strict mode.")
            raise errors.runtime(f"Output {i} of the user-provided function does not require gradients. The outputs "
                                 "must be computed in a differentiable manner from the input when running in strict "
                                 "mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grads = (), ()
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs += (out,)
            new_grads += (g,)
    if len(new_outputs) == 0:
        return (None,) * len(inputs)
    return _grad(new_outputs, inputs, new_grads, allow_unused=True, create_graph=create_graph,
                 retain_graph=retain_graph)


_STAGE_MSG = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = ()
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise errors.runtime(_STAGE_MSG[stage].format(i=i))
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "jacobian" if "double" not in stage else "hessian"
            raise errors.runtime(f"The {what} of the user-provided function is independent of input {i}. This is "
                                 "not allowed in strict mode when create_graph=True.")
        res += (g,)
    return res


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise errors.runtime("The vector v can only be None if the user-provided function returns a single "
                                 "Tensor with a single element.")
    with set_grad_enabled(True if create_graph else grad_mode.enabled):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise errors.runtime("The vector v can only be None if the input to the user-provided function is a "
                                 "single Tensor with a single element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(_zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else grad_mode.enabled):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    if strategy not in ("forward-mode", "reverse-mode"):
        raise errors.assertion('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        jac = ()
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in range(len(inputs)))
            flat = out.reshape(-1)
            for inp in inputs:  # --max-elements: each block of the result, before the rows are made
                check_shape(tuple(out.shape) + tuple(inp.shape))
            for j in range(out.numel()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for el_idx, (jac_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise errors.runtime("The jacobian of the user-provided function is independent of "
                                                 f"input {i}. This is not allowed in strict mode when "
                                                 "create_graph=True.")
                        jac_el.append(vj_el)
                    else:
                        if strict:
                            raise errors.runtime(f"Output {i} of the user-provided function is independent of input "
                                                 f"{el_idx}. This is not allowed in strict mode.")
                        jac_el.append(_zeros_like(inp_el))
            jac += (tuple(_stack(jac_el, 0).view(tuple(out.shape) + tuple(inputs[el_idx].shape))
                          for el_idx, jac_el in enumerate(jac_i)),)
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise errors.assertion('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise errors.runtime("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise errors.runtime("The Tensor returned by the function given to hessian should contain a single "
                                 "element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _single_output(outputs, is_outputs_tuple, name):
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise errors.runtime(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise errors.runtime(f"The Tensor returned by the function given to {name} should contain a single element")


def _hv_prologue(func, inputs, v, create_graph, strict, name):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise errors.runtime("The vector v can only be None if the input to the user-provided function is a single "
                             "Tensor with a single element.")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    _single_output(outputs, is_outputs_tuple, name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, outputs, is_outputs_tuple, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs, v, outputs, is_outputs_tuple, jac = _hv_prologue(func, inputs, v, create_graph,
                                                                                  strict, "vhp")
    with set_grad_enabled(True if create_graph else grad_mode.enabled):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs, v, outputs, is_outputs_tuple, jac = _hv_prologue(func, inputs, v, create_graph,
                                                                                  strict, "hvp")
        grad_jac = tuple(_zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else grad_mode.enabled):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


NAMES = ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp")
