"""nn.Sequential, nn.ModuleList, nn.ModuleDict, nn.ParameterList and nn.ParameterDict, as
torch/nn/modules/container.py defines them (indexing, slicing, len, iteration, append/extend/insert,
ModuleList's grouped repr, the parameter containers' "Parameter containing: [...]" lines)."""
from __future__ import annotations

import itertools
from collections import OrderedDict

from .. import errors
from ..tensor import Tensor
from ..argcheck import torch_typename as typename
from ..private_names import keeps
from .module import Module, addindent, refuse_private
from .parameter import Parameter


class Sequential(Module):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator, idx):
        size = len(self)
        idx = idx.__index__()
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        idx %= size
        return next(itertools.islice(iterator, idx, None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(iter(self._modules.values()), idx)

    def __setitem__(self, idx, module):
        key = self._get_item_by_idx(iter(self._modules.keys()), idx)
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            key = self._get_item_by_idx(iter(self._modules.keys()), idx)
            delattr(self, key)
        str_indices = [str(i) for i in range(len(self._modules))]
        self.__dict__["_modules"] = dict(zip(str_indices, self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise errors.assertion(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        mods = list(self._modules.values())
        mods.insert(index, module)
        self.__dict__["_modules"] = {str(i): m for i, m in enumerate(mods)}
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _get_abs_string_index(self, idx):
        idx = idx.__index__()
        if not (-len(self) <= idx < len(self)):
            raise IndexError(f"index {idx} is out of range")
        if idx < 0:
            idx += len(self)
        return str(idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._get_abs_string_index(idx)]

    def __setitem__(self, idx, module):
        idx = self._get_abs_string_index(idx)
        setattr(self, str(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._get_abs_string_index(idx))
        str_indices = [str(i) for i in range(len(self._modules))]
        self.__dict__["_modules"] = dict(zip(str_indices, self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(itertools.chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self):
        # torch groups runs of identical reprs: "(0-2): 3 x Linear(...)"
        lines = _grouped(self._modules)
        if not lines:
            return self._get_name() + "()"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def forward(self, *args):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _grouped(modules):
    """ModuleList's repr: consecutive children with the same repr print once, as '(a-b): n x repr'."""
    items = list(modules.items())
    if not items:
        return []
    reprs = [repr(m) for _, m in items]
    lines = []
    start = 0
    for i in range(1, len(items) + 1):
        if i < len(items) and reprs[i] == reprs[start]:
            continue
        if i - start > 1:
            lines.append(f"({items[start][0]}-{items[i - 1][0]}): {i - start} x " + addindent(reprs[start], 2))
        else:
            lines.append(f"({items[start][0]}): " + addindent(reprs[start], 2))
        start = i
    return lines


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        items = modules.items() if isinstance(modules, dict) or isinstance(modules, ModuleDict) else modules
        for k, m in items:
            self[k] = m

    def forward(self, *args):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _parameter_line(key, p, dtype_text):
    if isinstance(p, Tensor):
        size_str = "x".join(str(size) for size in p.size())
        device_str = f" ({p.device})" if p.device.type == "cuda" else ""
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{dtype_text(p)} of size {size_str}{device_str}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


@keeps("_size")
class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        self.__dict__["_size"] = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx):
        idx = idx.__index__()
        if not (-len(self) <= idx < len(self)):
            raise IndexError(f"index {idx} is out of range")
        if idx < 0:
            idx += len(self)
        return str(idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            out = self.__class__()
            for i in range(start, stop, step):
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx, param):
        idx = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        return setattr(self, str(idx), param)

    def __len__(self):
        return self.__dict__["_size"]

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        new_idx = len(self)
        self.__dict__["_size"] += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        if not hasattr(values, "__iter__") or isinstance(values, Tensor):
            raise errors.type_error("ParameterList.extend should be called with an iterable, but got "
                                    + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_parameter_line(k, p, lambda t: str(t.dtype)) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise errors.runtime("ParameterList should not be called.")


@keeps("_keys")
class ParameterDict(Module):
    def __init__(self, parameters=None):
        super().__init__()
        self.__dict__["_keys"] = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise errors.type_error("Index given to ParameterDict cannot be used as a key as it is not a string "
                                    f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                                    "non-string keys.")
        refuse_private(key, "ParameterDict key")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        refuse_private(key, "ParameterDict key")
        self.__dict__["_keys"][key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self.__dict__["_keys"][key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self.__dict__["_keys"])

    def __iter__(self):
        return iter(self.__dict__["_keys"])

    def __reversed__(self):
        return reversed(list(self.__dict__["_keys"]))

    def __contains__(self, key):
        return key in self.__dict__["_keys"]

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self.__dict__["_keys"]))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in list(self.__dict__["_keys"]):
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k, _ = self.__dict__["_keys"].popitem()
        self.__dict__["_keys"][k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key, default=None):
        return self[key] if key in self else default

    def keys(self):
        return self.__dict__["_keys"].keys()

    def items(self):
        return ((k, self[k]) for k in self.__dict__["_keys"])

    def values(self):
        return (self[k] for k in self.__dict__["_keys"])

    def update(self, parameters):
        if not hasattr(parameters, "__iter__"):
            raise errors.type_error("ParametersDict.update should be called with an iterable of key/value pairs, "
                                    "but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, dict):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, p in enumerate(parameters):
                if not hasattr(p, "__iter__"):
                    raise errors.type_error("ParameterDict update sequence element #" + str(j)
                                            + " should be Iterable; is" + type(p).__name__)
                if not len(p) == 2:
                    raise errors.value("ParameterDict update sequence element #" + str(j) + " has length "
                                       + str(len(p)) + "; 2 is required")
                self[p[0]] = p[1]

    def extra_repr(self):
        return "\n".join(_parameter_line(k, p, typename) for k, p in self.items())

    def __call__(self, input):
        raise errors.runtime("ParameterDict should not be called.")


for _c in (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict):
    _c.__module__ = "torch.nn.modules.container"
