"""Module full backward hooks (register_full_backward_hook, register_full_backward_pre_hook), a port
of torch/utils/hooks.py's BackwardHook: the module's tensor inputs and outputs pass through an
identity (BackwardHookFunctionBackward nodes, as torch shows them in grad_fn), whose node hooks call
the user hooks with the gradients for the inputs and the outputs."""
from __future__ import annotations

import warnings

from .. import errors
from ..autograd import make_node
from ..autograd_modes import grad_mode
from ..function import MultiOutputFunction
from ..tensor import Tensor
from ..views import view_of


class BackwardHookFunctionBackward(MultiOutputFunction):
    """torch.nn.modules._functions.BackwardHookFunction's node: the identity on several tensors."""
    __slots__ = ()

    def __repr__(self):
        return f"<torch.autograd.function.BackwardHookFunctionBackward object at {hex(id(self))}>"

    def backward(self, grads):
        return tuple(grads)  # one gradient per output (MultiOutputFunction makes a lone one a list)


def _backward_hook_function(*tensors):
    """Aliases of the tensors; those that require grad get one BackwardHookFunctionBackward node."""
    outs = tuple(view_of(t, t._data) for t in tensors)
    if not (grad_mode.enabled and any(t._rg for t in tensors)):
        return outs
    node = make_node(BackwardHookFunctionBackward, tensors, tensors[0].dtype)
    node.n_outputs = len(outs)
    node._out_meta = [(o.shape, o.dtype, o.device) for o in outs]
    for i, (t, o) in enumerate(zip(tensors, outs)):
        if t._rg:
            o._rg = True
            o.grad_fn = node
            o._output_nr = i
        else:  # ctx.mark_non_differentiable in torch's forward
            o._rg = False
    return outs


class BackwardHook:
    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                return None  # the gradient reached the input without passing through the output
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise errors.runtime("Backward hook returned an invalid number of grad_input, got "
                                         f"{len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)
        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx = []
        tensors = []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and grad_mode.enabled):
            return args, None
        new_tensors = _backward_hook_function(*tensors)
        if len(new_tensors) == 0:
            raise errors.runtime("Cannot set Module backward hook for a Module with no input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = len(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise errors.runtime("Backward pre hook returned an invalid number of grad_output, "
                                                 f"got {actual_len}, but expected {expected_len}")
                        self.grad_outputs = hook_grad_outputs
                if self.input_tensors_index is None:  # no input requires grad: the hooks run now
                    warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                                  "outputs since no inputs require gradients. See https://docs.pytorch.org/docs/"
                                  "main/generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook"
                                  " for more details.", UserWarning, stacklevel=5)
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                            raise errors.runtime("Backward hook for Modules where no input requires gradient "
                                                 "should always return None or None for all gradients.")
                    self.grad_outputs = None
                if self.grad_outputs is not None:
                    return tuple(self.grad_outputs[i] for i in self.output_tensors_index)
                return None
            grad_fn.register_hook(hook)

        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        if not is_tuple:
            res = res[0]
        return res


def register_non_full_backward_hooks(module, hooks, result):
    """Module.register_backward_hook (the deprecated form), as torch's _call_impl does it: each
    hook(module, grad_input, grad_output) becomes a hook of the grad_fn of the first tensor of the
    result (the last op of forward), so grad_input holds that node's input gradients only."""
    var = result
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(_wrapped(module, hook))


def _wrapped(module, hook):
    def node_hook(grad_input, grad_output):
        return hook(module, grad_input, grad_output)
    return node_hook
