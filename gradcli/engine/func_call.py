"""torch.func.functional_call and stack_module_state, ported from torch/_functorch/functional_call.py,
torch/nn/utils/stateless.py and torch/nn/utils/_named_member_accessor.py: the module is called with some
of its parameters and buffers (dotted names, as named_parameters() gives them) swapped for the given
tensors, and given its own back afterwards, also when the call raises.

The names come from the script: every part of a dotted name that starts with '_' is refused (a KeyError,
nn.module.refuse_private) unless it is a '_name' of a module of the script's own class (engine/private_names:
'_fc.weight' of a script's model, as named_parameters() gives it), so a key such as '__class__' or
'a._parameters' reaches no internals; a name
that is no parameter, buffer or submodule is set as a plain attribute (as torch's setattr does) and
deleted again afterwards.
"""
from __future__ import annotations

from . import errors
from .tensor import Tensor

NAMES = ("functional_call", "stack_module_state")

_MISSING = object()


def _module_type():
    from .nn.module import Module  # noqa: PLC0415 - nn is loaded on first use
    return Module


def _check_part(part, owner=None):
    from .nn.module import refuse_private  # noqa: PLC0415
    if not isinstance(part, str):
        raise errors.type_error(f"functional_call: expected a str key, got {type(part)}")
    refuse_private(part, "functional_call: the name", owner)


def _get_submodule(module, path, memo):
    """NamedMemberAccessor.get_submodule: the submodule at a dotted path ('' is the module)."""
    if not path:
        return module
    if path in memo:
        return memo[path]
    prefix, dot, attr = path.rpartition(".")
    parent = _get_submodule(module, prefix, memo) if dot else module
    _check_part(attr, parent)
    try:
        sub = getattr(parent, attr)
    except AttributeError:
        raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from None
    if not isinstance(sub, _module_type()):
        raise errors.type_error(f"submodule `{path}`: {sub} is not an instance of torch.nn.Module")
    memo[path] = sub
    return sub


def _swap_tensor(module, name, tensor):
    """_named_member_accessor.swap_tensor with allow_missing=True: (the tensor that was there, or _MISSING)."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise errors.type_error(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    _check_part(name, module)
    d = module.__dict__
    for where in ("_parameters", "_buffers"):
        store = d[where]
        if name in store:
            orig = store[name]
            if tensor is not _MISSING:
                store[name] = tensor
            else:
                del store[name]
            return orig
    orig = getattr(module, name, _MISSING)
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise errors.type_error(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        object.__setattr__(module, name, tensor)
    elif orig is not _MISSING:
        object.__delattr__(module, name)
    return orig


def _swap_all(module, named, memo):
    """swap_tensors_dict(allow_missing=True): the originals, swapped back if a swap fails."""
    originals = {}
    try:
        for name, tensor in named.items():
            if not isinstance(name, str):
                _check_part(name)  # its TypeError; each part is checked against its module below
            prefix, _, attr = name.rpartition(".")
            originals[name] = _swap_tensor(_get_submodule(module, prefix, memo), attr, tensor)
    except Exception:
        _swap_back(module, originals, memo)
        raise
    return originals


def _swap_back(module, originals, memo):
    for name, orig in originals.items():
        prefix, _, attr = name.rpartition(".")
        _swap_tensor(_get_submodule(module, prefix, memo), attr, orig)


def _named_tensors(module):
    yield from module.named_parameters(remove_duplicate=False)
    yield from module.named_buffers(remove_duplicate=False)


def _untie(module, given):
    """stateless._untie_named_tensors_map: a value given for one of tied tensors goes to all of them."""
    names_of = {}
    tensor_of = {}
    for name, t in _named_tensors(module):
        names_of.setdefault(id(t), set()).add(name)
        tensor_of[name] = id(t)
    tied = {n: names_of[tensor_of[n]] for n in tensor_of if len(names_of[tensor_of[n]]) > 1}
    given_tied = {n for n in given if n in tied}
    for name in given_tied:
        names = tied[name]
        if len(names & given_tied) > 1 and len({id(given[n]) for n in names if n in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             "Consider using tie_weights=False")
    untied = dict(given)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = given[name]
    return untied


def _merge(dicts):
    if isinstance(dicts, dict):
        return dicts
    if isinstance(dicts, (tuple, list)):
        if not all(isinstance(d, dict) for d in dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts = {}
        for d in dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                             "ambiguous")
        return {k: v for d in dicts for k, v in d.items()}
    raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                     f"{type(dicts)}")


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """torch.func.functional_call."""
    given = _merge(parameter_and_buffer_dicts)
    if not isinstance(module, _module_type()):
        raise AttributeError(f"'{type(module).__name__}' object has no attribute 'named_parameters'")
    for name in given:
        if not isinstance(name, str):
            raise errors.type_error(f"functional_call: expected a str key, got {type(name)}")
        owner = module  # each part against the module it names a member of (a script module's own '_names')
        for part in name.split("."):
            _check_part(part, owner)
            owner = owner.__dict__.get("_modules", {}).get(part) if owner is not None else None
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    named = _untie(module, given) if tie_weights else given
    if strict:
        valid = {name for name, _ in _named_tensors(module)}
        keys = set(named)
        missing, unexpected = sorted(valid - keys), sorted(keys - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise errors.runtime("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                  "\n\t".join(msgs)))
    memo = {}
    originals = {}
    try:
        originals = _swap_all(module, named, memo)
        return module(*args, **kwargs)
    finally:
        now = {}
        for name, orig in originals.items():
            prefix, _, attr = name.rpartition(".")
            now[name] = _swap_tensor(_get_submodule(module, prefix, memo), attr, orig)
        if isinstance(parameter_and_buffer_dicts, dict):  # what the module put in place of a given tensor
            for k in parameter_and_buffer_dicts:
                if k in now and now[k] is not _MISSING:
                    parameter_and_buffer_dicts[k] = now[k]


def stack_module_state(models):
    """torch.func.stack_module_state: (params, buffers), each name's tensors of the models stacked."""
    if len(models) == 0:
        raise errors.runtime("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise errors.runtime("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise errors.runtime("stack_module_state: Expected all models to be of the same class.")
    from .ops.join_split import stack  # noqa: PLC0415

    def stacked(tensors, name):
        every = all(t.requires_grad for t in tensors)
        if not every and any(t.requires_grad for t in tensors):
            raise errors.runtime(f"Expected {name} from each model to have the same .requires_grad")
        result = stack(tuple(tensors))
        return result.detach().requires_grad_() if every else result

    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: stacked([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: stacked([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers
