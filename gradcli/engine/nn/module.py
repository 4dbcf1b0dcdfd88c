"""nn.Module: a port of the parts of torch/nn/modules/module.py that scripts observe: registration
order, attribute lookup, calls with hooks, parameters()/named_parameters()/children()/modules(),
train()/eval(), zero_grad(), to()/double()/float(), state_dict(), and the repr PyTorch prints
(nn.Parameter and nn.Buffer: parameter.py)."""
from __future__ import annotations

import itertools

from .. import errors
from ..argcheck import torch_typename as typename
from ..autograd import RemovableHandle
from ..autograd_modes import no_grad
from ...pycompat import OrderedDict  # (printed as Python 3.11 prints it, on 3.12+ too)
from ..tensor import Tensor
from ..private_names import claim, keeps, opens, script_owns
from . import module_state
from .parameter import BufferMark, Parameter


# ---------------------------------------------------------------------------- private names

def refuse_private(name, what, owner=None):
    """A script may give the engine names that become attributes or ``__dict__`` entries (a
    ParameterDict key, add_module, register_buffer, a scheduler's state_dict): one that starts
    with '_' would reach the object's internals or plant a protocol such as NumPy's
    ``__array_interface__``, so it is refused (a KeyError, as torch's own name checks raise); but
    a module of the script's own class (``owner``) takes the '_names' that are not the engine's
    (engine/private_names.py), as its attributes do."""
    if isinstance(name, str) and name.startswith("_") and not (owner is not None and claim(owner, name)):
        raise KeyError(f"{what} '{name}' starts with '_': such names are not available in GradScript")


# ---------------------------------------------------------------------------- repr helpers

def addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


# ---------------------------------------------------------------------------- Module

@keeps("_parameters", "_buffers", "_non_persistent_buffers_set", "_modules", "_forward_hooks", "_forward_pre_hooks",
       "_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs", "_backward_hooks", "_backward_pre_hooks",
       "_non_full_backward_hooks", "_lazy_initialize_hook")
@opens("_save_to_state_dict", "_load_from_state_dict", "_get_name", "_version")  # what torch calls on self
class Module:
    """torch.nn.Module. Subclasses (also the ones a GradScript `class Net(nn.Module)` creates) call
    `super().__init__()` and define `forward`."""

    training: bool
    _version = 1
    dump_patches = False
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            if kwargs:
                key = next(iter(kwargs))
                raise errors.type_error(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                                        f"'{key}'")
            raise errors.type_error(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                                    f"{len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = {}
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()

    # --------------------------------------------------------------- forward and call
    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        # csrc/lang.c's forward_of makes this test for a script's module call (and then runs forward itself):
        # a new kind of hook goes in both
        if not (d.get("_forward_pre_hooks") or d.get("_forward_hooks") or "_backward_hooks" in d
                or "_backward_pre_hooks" in d or "_non_full_backward_hooks" in d):
            return self.forward(*args, **kwargs)  # no hooks (nearly always)
        pre = d.get("_forward_pre_hooks")
        if pre:
            pre_kwargs = d.get("_forward_pre_hooks_with_kwargs", ())
            for key, hook in list(pre.items()):
                if key in pre_kwargs:  # hook(module, args, kwargs) -> None or (new_args, new_kwargs)
                    r = hook(self, args, kwargs)
                    if r is not None:
                        if not (isinstance(r, tuple) and len(r) == 2):
                            raise errors.runtime(f"forward pre-hook must return None or a tuple of (new_args, "
                                                 f"new_kwargs), but got {r}.")
                        args, kwargs = r
                    continue
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        bw_hook = None
        if d.get("_backward_hooks") or d.get("_backward_pre_hooks"):
            from .hooks import BackwardHook  # noqa: PLC0415
            bw_hook = BackwardHook(self, list(d.get("_backward_hooks", {}).values()),
                                   list(d.get("_backward_pre_hooks", {}).values()))
            args = bw_hook.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        hooks = d.get("_forward_hooks")
        if hooks:
            with_kwargs = d.get("_forward_hooks_with_kwargs", ())
            for key, hook in list(hooks.items()):
                r = hook(self, args, kwargs, result) if key in with_kwargs else hook(self, args, result)
                if r is not None:
                    result = r
        if bw_hook is not None:
            result = bw_hook.setup_output_hook(result)
        old_style = d.get("_non_full_backward_hooks")
        if old_style:
            from .hooks import register_non_full_backward_hooks  # noqa: PLC0415
            register_non_full_backward_hooks(self, list(old_style.values()), result)
        return result

    _hook_ids = itertools.count()

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output), or hook(module, args, kwargs, output) with_kwargs; prepend runs
        it before the others. (always_call, for a forward that raises, is accepted and not needed:
        no hook runs after an error here.)"""
        return self._add_hook("_forward_hooks", hook, prepend, with_kwargs)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return self._add_hook("_forward_pre_hooks", hook, prepend, with_kwargs)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output), as torch's BackwardHook calls it."""
        return self._add_hook("_backward_hooks", hook)

    def register_backward_hook(self, hook):
        """The deprecated form: hook(module, grad_input, grad_output) on the node of the first output
        tensor (the last op of forward), as torch's Module._call_impl registers it."""
        return self._add_hook("_non_full_backward_hooks", hook)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output), which may return new output gradients."""
        return self._add_hook("_backward_pre_hooks", hook)

    def _add_hook(self, where, hook, prepend=False, with_kwargs=False):
        hooks = self.__dict__.setdefault(where, OrderedDict())
        key = next(Module._hook_ids)
        hooks[key] = hook
        if prepend:
            hooks.move_to_end(key, last=False)
        if with_kwargs:
            self.__dict__.setdefault(where + "_with_kwargs", set()).add(key)
        return _DictHandle(hooks, key)

    # --------------------------------------------------------------- registration
    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, d, d["_buffers"], d["_modules"])
            d["_non_persistent_buffers_set"].discard(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise errors.type_error(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                        "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                self._remove_from(name, d, d["_parameters"], d["_buffers"])
                d["_non_persistent_buffers_set"].discard(name)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise errors.type_error(f"cannot assign '{typename(value)}' as child module '{name}' "
                                            "(torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, BufferMark):
                    self.register_buffer(name, value.tensor, value.persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise errors.type_error(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                                "(torch.nn.Buffer, torch.Tensor or None expected)")
                    buffers[name] = value
                else:
                    object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name, *dicts):
        for dd in dicts:
            if name in dd:
                del dd[name]

    def __getattr__(self, name):
        d = self.__dict__
        if name[:2] == "__":  # protocols (__array_interface__, ...) are never a registered name
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        store = d.get("_parameters")  # the three stores in this order, unrolled (self.fc1 in a forward)
        if store is not None and name in store:
            return store[name]
        store = d.get("_buffers")
        if store is not None and name in store:
            return store[name]
        store = d.get("_modules")
        if store is not None and name in store:
            return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for where in ("_parameters", "_buffers", "_modules"):
            if name in d.get(where, ()):
                del d[where][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def _check_name(self, name, kind):
        if not isinstance(name, str):
            raise errors.type_error(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name, param):
        d = self.__dict__
        if "_parameters" not in d:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        taken = hasattr(type(self), name) or name in d or name in d["_buffers"] or name in d["_modules"]
        if taken and name not in d["_parameters"]:  # torch's hasattr(self, name): a buffer or submodule too
            raise KeyError(f"attribute '{name}' already exists")
        refuse_private(name, "parameter name", self)
        if param is None:
            d["_parameters"][name] = None
            return
        if not isinstance(param, Parameter):
            raise errors.type_error(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                                    "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise errors.value(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                               "created explicitly. To express '" + name + "' as a function of another Tensor, "
                               "compute the value in the forward() method.")
        d["_parameters"][name] = param

    def register_buffer(self, name, tensor, persistent=True):
        d = self.__dict__
        if "_buffers" not in d:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise errors.type_error(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        taken = hasattr(type(self), name) or name in d or name in d["_parameters"] or name in d["_modules"]
        if taken and name not in d["_buffers"]:  # torch's hasattr(self, name): a parameter or submodule too
            raise KeyError(f"attribute '{name}' already exists")
        refuse_private(name, "buffer name", self)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise errors.type_error(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                                    "(torch Tensor or None required)")
        d["_buffers"][name] = tensor
        if persistent:
            d["_non_persistent_buffers_set"].discard(name)
        else:
            d["_non_persistent_buffers_set"].add(name)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise errors.type_error(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise errors.type_error(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self.__dict__["_modules"]:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        refuse_private(name, "module name", self)
        self.__dict__["_modules"][name] = module

    register_module = add_module

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if (item.startswith("_") and not script_owns(mod, item)) or not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name.startswith("_") or not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    # --------------------------------------------------------------- iteration
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m.__dict__["_parameters"].items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m.__dict__["_buffers"].items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        memo = set()
        for name, module in self.__dict__["_modules"].items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self.__dict__["_modules"].items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    # --------------------------------------------------------------- modes and grads
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.__dict__["training"] = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p._grad = None
                else:
                    g = p._grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn):
        for module in self.children():
            module._apply(fn)
        d = self.__dict__
        for key, param in d["_parameters"].items():
            if param is None:
                continue
            with no_grad():
                new = fn(param)
            param.data = new  # as torch's param.data = ...: drops an accumulator of the old dtype
            if param._grad is not None:
                with no_grad():
                    g = fn(param._grad)
                param._grad._data = g._data
                param._grad.dtype = g.dtype
        for key, buf in d["_buffers"].items():
            if buf is not None:
                d["_buffers"][key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        from ..ops.conversion import parse_to_args  # noqa: PLC0415
        dtype, device = _to_target(args, kwargs, parse_to_args)
        if dtype is not None and not dtype.is_floating_point:
            raise errors.type_error(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                    f"dtype={dtype}")

        fmt = kwargs.get("memory_format")

        def convert(t):
            if dtype is not None and t.dtype.is_floating_point:
                t = t.to(dtype=dtype, device=device) if device is not None else t.to(dtype)
            elif device is not None:
                t = t.to(device)
            if fmt is not None and t.dim() in (4, 5):  # torch converts only the 4-d and 5-d ones
                t = t.to(memory_format=fmt)
            return t
        return self._apply(convert)

    def float(self):
        return self._apply(lambda t: t.float() if t.dtype.is_floating_point else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.dtype.is_floating_point else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.dtype.is_floating_point else t)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    # --------------------------------------------------------------- state
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        return module_state.state_dict(self, destination, prefix, keep_vars)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        module_state.save_to_state_dict(self, Module, destination, prefix, keep_vars)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        return module_state.load_state_dict(self, state_dict, strict, assign)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        module_state.load_from_state_dict(self, Module, state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)

    def get_extra_state(self):
        raise errors.runtime("Reached a code path in Module.get_extra_state() that should never be called. Please "
                             "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                             "to report this bug.")

    def set_extra_state(self, state):
        raise errors.runtime("Reached a code path in Module.set_extra_state() that should never be called. Please "
                             "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                             "to report this bug.")

    def get_buffer(self, target):
        return module_state.get_buffer(self, target)

    # --------------------------------------------------------------- repr
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self.__dict__["_modules"].items():
            mod_str = addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    def __dir__(self):
        keys = list(dir(type(self))) + list(self.__dict__) + list(self.__dict__.get("_parameters", ())) + \
            list(self.__dict__.get("_modules", ())) + list(self.__dict__.get("_buffers", ()))
        return sorted(k for k in set(keys) if not k[0].isdigit())


class _DictHandle(RemovableHandle):
    __slots__ = ()

    def remove(self):
        self._list.pop(self._item, None)


def _to_target(args, kwargs, parse):
    """(dtype, device) of Module.to(...): a dtype, a device (or string), a tensor, or keywords."""
    from .. import dtypes  # noqa: PLC0415
    from ..device import device as _device  # noqa: PLC0415
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    for a in args:
        if isinstance(a, dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, _device)):
            device = a
    return dtype, device


Module.__module__ = "torch.nn.modules.module"
