"""nn.Module's state: state_dict() and load_state_dict() as torch's module.py runs them, through the
extension points a subclass may override (a script's module too, engine/private_names.opens):
``_save_to_state_dict(destination, prefix, keep_vars)``, ``_load_from_state_dict(state_dict, prefix,
local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``, ``get_extra_state()`` /
``set_extra_state(state)`` (saved under ``prefix + '_extra_state'`` when the class overrides them) and
the class's ``_version``, which state_dict() records in ``destination._metadata`` and load_state_dict()
hands back as ``local_metadata['version']`` (versioned state, as BatchNorm's num_batches_tracked)."""
from __future__ import annotations

import itertools

from .. import errors
from ..autograd_modes import no_grad
from ..tensor import Tensor
from ...pycompat import OrderedDict
from .parameter import Parameter

EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(tuple):
    def __new__(cls, missing_keys, unexpected_keys):
        return tuple.__new__(cls, (missing_keys, unexpected_keys))

    @property
    def missing_keys(self):
        return self[0]

    @property
    def unexpected_keys(self):
        return self[1]

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"

    __str__ = __repr__


IncompatibleKeys = _IncompatibleKeys


def _overrides(module, name, base):
    return getattr(type(module), name, None) is not getattr(base, name)


def save_to_state_dict(module, base, destination, prefix, keep_vars):
    """torch's Module._save_to_state_dict (``base`` is nn.Module: whether the class overrides get_extra_state)."""
    from .lazy import is_lazy  # noqa: PLC0415 (lazy.py builds on module.py)
    d = module.__dict__
    for name, param in d["_parameters"].items():
        if param is not None:  # an UninitializedParameter is kept as it is, as torch's LazyModuleMixin does
            destination[prefix + name] = param if keep_vars or is_lazy(param) else param.detach()
    for name, buf in d["_buffers"].items():
        if buf is not None and name not in d["_non_persistent_buffers_set"]:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    if _overrides(module, "get_extra_state", base):
        destination[prefix + EXTRA_STATE_KEY_SUFFIX] = module.get_extra_state()


def state_dict(module, destination, prefix, keep_vars):
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": module._version}
    metadata = getattr(destination, "_metadata", None) if isinstance(destination, OrderedDict) else None
    if metadata is not None:
        metadata[prefix[:-1]] = local_metadata
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module.__dict__["_modules"].items():
        if child is not None:
            child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
    return destination


def _load_one(module, name, param, key, input_param, assign, error_msgs):
    from .lazy import is_lazy  # noqa: PLC0415
    if not isinstance(input_param, Tensor):
        error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                          f"object from checkpoint but received {type(input_param)}")
        return
    lazy = is_lazy(param)
    if not lazy and len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
        input_param = input_param[0]  # a 1-element tensor of a 0.3 checkpoint into a 0-d one
    if not lazy and input_param.shape != param.shape:
        error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                          f"checkpoint, the shape in current model is {param.shape}.")
        return
    try:
        with no_grad():
            if assign:
                if isinstance(param, Parameter):
                    if not isinstance(input_param, Parameter):
                        input_param = Parameter(input_param, requires_grad=param.requires_grad)
                    else:
                        input_param.requires_grad_(param.requires_grad)
                setattr(module, name, input_param)
            else:
                param.copy_(input_param)
    except Exception as ex:  # noqa: BLE001 - torch reports every copy error in the message list
        error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                          f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
                          f"an exception occurred : {ex.args}.")


def load_from_state_dict(module, base, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                         error_msgs):
    """torch's Module._load_from_state_dict."""
    d = module.__dict__
    persistent = {k: v for k, v in d["_buffers"].items() if k not in d["_non_persistent_buffers_set"]}
    local_state = {k: v for k, v in itertools.chain(d["_parameters"].items(), persistent.items()) if v is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key in state_dict:
            _load_one(module, name, param, key, state_dict[key], assign, error_msgs)
        elif strict:
            missing_keys.append(key)
    extra_key = prefix + EXTRA_STATE_KEY_SUFFIX
    if _overrides(module, "set_extra_state", base):
        if extra_key in state_dict:
            module.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                input_name = key[len(prefix):].split(".", 1)
                if len(input_name) > 1:
                    if input_name[0] not in d["_modules"]:
                        unexpected_keys.append(key)
                elif input_name[0] not in local_state:
                    unexpected_keys.append(key)


def load_state_dict(module, state_dict, strict, assign):
    """torch's Module.load_state_dict: each module's _load_from_state_dict with its part of the dict."""
    if not isinstance(state_dict, dict):
        raise errors.type_error(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys, unexpected_keys, error_msgs = [], [], []
    metadata = getattr(state_dict, "_metadata", None) if isinstance(state_dict, OrderedDict) else None
    state_dict = OrderedDict(state_dict)

    def load(mod, local_state_dict, prefix=""):
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        mod._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys,
                                  error_msgs)
        for name, child in mod.__dict__["_modules"].items():
            if child is not None:
                child_prefix = prefix + name + "."
                load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}, child_prefix)

    load(module, state_dict)
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys)))
    if error_msgs:
        raise errors.runtime("Error(s) in loading state_dict for {}:\n\t{}".format(
            type(module).__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)


def get_buffer(module, target):
    """torch's Module.get_buffer."""
    module_path, _, buffer_name = target.rpartition(".")
    mod = module.get_submodule(module_path)
    if buffer_name.startswith("_") and buffer_name not in mod.__dict__["_buffers"] or not hasattr(mod, buffer_name):
        raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
    buffer = getattr(mod, buffer_name)
    if buffer_name not in mod.__dict__["_buffers"]:
        raise AttributeError("`" + buffer_name + "` is not a buffer")
    return buffer


__all__ = ["EXTRA_STATE_KEY_SUFFIX", "IncompatibleKeys", "save_to_state_dict", "state_dict", "load_from_state_dict",
           "load_state_dict", "get_buffer"]
