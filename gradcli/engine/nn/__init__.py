"""torch.nn over gradcli's engine: Module (module.py), Parameter and Buffer (parameter.py),
Sequential/ModuleList/ModuleDict (containers.py), layers (modules_layers.py, modules_activation.py,
modules_more.py), recurrent layers (rnn.py, rnn_ops.py, rnn_packed.py: also torch.nn.utils.rnn), losses
(loss.py), torch.nn.functional (functional*.py), torch.nn.init (init.py) and torch.nn.utils (utils.py).

`build(namespace_class)` returns the `torch.nn` namespace that api.py exposes: only the listed
members are reachable (no Python internals)."""
from __future__ import annotations

from . import (functional, functional_embedding_bag, functional_group_norm, functional_margin, functional_upsample,
               functional_multimargin, functional_prelu, functional_shuffle, functional_unpool, init, lazy, loss, modules_activation, modules_layers, modules_more, modules_transformer, rnn, rnn_packed,
               utils)
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .module import Module
from .parameter import Buffer, Parameter


def _check_functional_arguments():
    """torch's errors for a non-Tensor input or target of F.X (and so of the modules that call it), and for
    arguments the parser of the binding it calls refuses (functional_args)."""
    from ..argcheck import with_functional_check
    from ..functional_args import with_parsed_check
    from ..torch_signatures import FUNCTIONAL, FUNCTIONAL_PARSED
    for name, entry in FUNCTIONAL_PARSED.items():  # inside the input check below: torch checks the input first
        setattr(functional, name, with_parsed_check(getattr(functional, name), entry))
    for name, entry in FUNCTIONAL.items():
        fn = getattr(functional, name, None)
        if fn is not None:
            setattr(functional, name, with_functional_check(fn, name, entry))


_check_functional_arguments()


def classes():
    """name -> class of every nn.<Module> this package provides."""
    out = {"Module": Module, "Parameter": Parameter, "Buffer": Buffer, "Sequential": Sequential,
           "ModuleList": ModuleList, "ModuleDict": ModuleDict, "ParameterList": ParameterList,
           "ParameterDict": ParameterDict}
    out.update({name: getattr(modules_layers, name) for name in modules_layers.NAMES})
    out.update({name: getattr(modules_activation, name) for name in modules_activation.NAMES})
    out.update({name: getattr(modules_more, name) for name in modules_more.NAMES})
    out.update({name: getattr(loss, name) for name in loss.NAMES})
    out["SoftMarginLoss"] = functional_margin.SoftMarginLoss
    out["MultiMarginLoss"] = functional_multimargin.MultiMarginLoss
    out["MultiLabelMarginLoss"] = functional_multimargin.MultiLabelMarginLoss
    out.update({name: getattr(functional_shuffle, name) for name in functional_shuffle.NAMES})
    out.update({name: getattr(functional_unpool, name) for name in functional_unpool.NAMES})
    out["EmbeddingBag"] = functional_embedding_bag.EmbeddingBag
    out["PReLU"] = functional_prelu.PReLU
    out["GroupNorm"] = functional_group_norm.GroupNorm
    out.update({name: getattr(functional_upsample, name) for name in functional_upsample.NAMES})
    out.update({name: getattr(lazy, name) for name in lazy.NAMES})
    out.update({name: getattr(rnn, name) for name in rnn.NAMES})
    out.update({name: getattr(modules_transformer, name) for name in modules_transformer.NAMES})
    out["UninitializedParameter"] = lazy.UninitializedParameter
    out["UninitializedBuffer"] = lazy.UninitializedBuffer
    return out


def _load_parametrize(namespace):
    from . import parametrize  # noqa: PLC0415 - torch.nn.utils.parametrize loads on first use
    return namespace("torch.nn.utils.parametrize", **{n: getattr(parametrize, n) for n in parametrize.NAMES})


def _load_parametrizations(namespace):
    from . import weight_norm  # noqa: PLC0415 - torch.nn.utils.parametrizations loads on first use
    return namespace("torch.nn.utils.parametrizations", **{n: getattr(weight_norm, n) for n in weight_norm.NAMES})


def _load_prune(namespace):
    from . import prune  # noqa: PLC0415 - torch.nn.utils.prune loads on first use
    return namespace("torch.nn.utils.prune", **{n: getattr(prune, n) for n in prune.NAMES})


def build(namespace):
    """The torch.nn namespace, made with `namespace(name, **members)` (api.py's module-like class)."""
    F = namespace("torch.nn.functional", **{n: getattr(functional, n) for n in functional.NAMES})
    I = namespace("torch.nn.init", **{n: getattr(init, n) for n in init.NAMES})
    P = namespace("torch.nn.parameter", Parameter=Parameter, Buffer=Buffer,
                  UninitializedParameter=lazy.UninitializedParameter, UninitializedBuffer=lazy.UninitializedBuffer)
    R = namespace("torch.nn.utils.rnn", **{n: getattr(rnn_packed, n) for n in rnn_packed.NAMES})
    C = namespace("torch.nn.utils.clip_grad", **{n: getattr(utils, n) for n in utils.CLIP_GRAD_NAMES})
    V = namespace("torch.nn.utils.convert_parameters",
                  **{n: getattr(utils, n) for n in utils.NAMES if n not in utils.CLIP_GRAD_NAMES})
    U = namespace("torch.nn.utils", rnn=R, clip_grad=C, convert_parameters=V,
                  _lazy={"parametrize": lambda: _load_parametrize(namespace),
                         "parametrizations": lambda: _load_parametrizations(namespace),
                         "prune": lambda: _load_prune(namespace)},
                  **{n: getattr(utils, n) for n in utils.NAMES})
    members = classes()
    return namespace("torch.nn", functional=F, init=I, parameter=P, utils=U, **members)


__all__ = ["Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "build", "classes"]
