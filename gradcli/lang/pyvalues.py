"""The sandbox around Python values: checked attribute access, safe str.format, and the module
facades (``Namespace``) that stand for torch, numpy and math (the guarded operators, unpacking
and ranges: ``pyops.py``).

Every attribute read or write of a script goes through ``get_attr``/``set_attr``: only public
attributes of allowed types are reachable (tensors and other engine objects, Python scalars and
containers, NumPy arrays through a whitelist, module facades, user classes and instances).
Exceptions expose ``args``, generators ``close``; functions, methods, iterators, modules and
everything else expose nothing.
"""
from __future__ import annotations

import collections
import os
import sys
import functools
import types

import numpy as np

from ..engine.tensor import Tensor, check_view_grad_fn
from ..pycompat import OrderedDict
from .private import has_private, is_private
from .pyops import BigRange
from .runtime import function, user_raiser
from .strguard import GROWING_NAMES, STR_SPECIAL, growing_method, safe_format, safe_format_map, unbound_method




class Namespace:
    """A read-only facade for a module (torch, torch.nn, numpy, math, ...)."""

    __slots__ = ("_name", "_members", "_flags")

    def __init__(self, name, members):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_members", dict(members))
        object.__setattr__(self, "_flags", None)

    def allow_flags(self, flags):
        """Let a script set these members to a bool (torch.backends.cudnn.deterministic = True): ``flags``
        maps each to the name of torch's setter, which words the error of another value; each run starts
        from the values they have now (``reset_flags``)."""
        object.__setattr__(self, "_flags", {k: (setter, self._members[k]) for k, setter in flags.items()})

    def reset_flags(self):
        if self._flags:
            self._members.update((k, default) for k, (_, default) in self._flags.items())

    def __getattr__(self, name):
        try:
            return self._members[name]
        except KeyError:
            raise AttributeError(f"module '{self._name}' has no attribute '{name}'") from None

    def __setattr__(self, name, value):
        if self._flags and name in self._flags:
            if type(value) is not bool:
                raise RuntimeError(f"{self._flags[name][0]} expects a bool, but got {type(value).__name__}")
            self._members[name] = value
            return
        raise AttributeError(f"cannot assign to attribute '{name}' of module '{self._name}' in GradScript")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete attribute '{name}' of module '{self._name}' in GradScript")

    def __repr__(self):
        return f"<module '{self._name}'>"

    def __dir__(self):
        return sorted(self._members)


for _method in (Namespace.__getattr__, Namespace.__setattr__, Namespace.__delattr__):
    user_raiser(_method)
# Python's own messages name the type of a module facade as they name a module's ("unsupported operand type(s)
# for +: 'module' and 'int'", "'module' object is not callable"), and so do torch's (argcheck.typename)
Namespace.__name__ = Namespace.__qualname__ = "module"

# ----------------------------------------------------------------------------- attribute policy

_ENGINE_PREFIX = "gradcli.engine"
_FULL_PY = (int, float, bool, complex, list, tuple, dict, set, frozenset, range, slice, bytes, type(None),
            collections.OrderedDict, OrderedDict, collections.defaultdict,  # state_dict(), optimizer.state
            collections.deque, collections.Counter)

NP_ARRAY_ATTRS = frozenset("""T all any argmax argmin argsort astype clip conj conjugate copy cumprod cumsum
diagonal dot dtype fill flatten imag item itemsize max mean min nbytes ndim nonzero prod ravel real
reshape round shape size sort squeeze std sum swapaxes take tolist trace transpose var mT is_integer""".split())
NP_DTYPE_ATTRS = frozenset("name kind itemsize char str num byteorder ndim shape".split())
NP_FINFO_ATTRS = frozenset("bits eps epsneg max min tiny resolution precision smallest_normal dtype kind".split())
# an exception object: its arguments only (never its traceback, context or frames)
EXCEPTION_ATTRS = frozenset(("args",))

_policy_cache = {}
_setattr_ok_cache = {}


_ENGINE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine")
_engine_type_cache = {}


def _code_in_engine(fn):
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename.startswith(_ENGINE_DIR)


def _defined_in_engine(t):
    if t.__dict__.get("__gradcli_engine__"):  # a class without code of its own (torch._C._LinAlgError)
        return True
    for c in t.__mro__:
        if c is object:
            continue
        for value in c.__dict__.values():
            if isinstance(value, property):
                value = value.fget
            elif isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if _code_in_engine(value):
                return True
    return False


def is_engine_type(t):
    """A class of the engine (its __module__ may be torch's, so that reprs match PyTorch)."""
    r = _engine_type_cache.get(t)
    if r is None:
        module = getattr(t, "__module__", None) or ""
        r = module.startswith(_ENGINE_PREFIX) or (module.startswith("torch") and _defined_in_engine(t))
        _engine_type_cache[t] = r
    return r


def is_engine_function(fn):
    module = getattr(fn, "__module__", None) or ""
    return module.startswith(_ENGINE_PREFIX) or _code_in_engine(fn)


_is_engine_type = is_engine_type


def _is_user_class(cls):
    return "_gradscript_class" in getattr(cls, "__dict__", {})


def _is_user_class_or_base(cls):
    return any(_is_user_class(c) for c in cls.__mro__)


def _compute_policy(t):
    """True: every public attribute; 'checked': public, result must not be a module;
    a frozenset: only those names; None: nothing."""
    if issubclass(t, Tensor):
        return True
    if t in _FULL_PY:
        return True
    if t is str:
        return "str"
    if t is Namespace:
        return "namespace"
    if t is super:
        return "checked"
    if t is BigRange:
        return frozenset(("start", "stop", "step", "index", "count"))
    from .pyitertools import MeteredType  # noqa: PLC0415 - pyitertools imports this module
    if t is MeteredType:
        return frozenset(("from_iterable",))  # itertools.chain.from_iterable
    if t is functools.partial:
        return frozenset(("func", "args", "keywords"))
    if t is types.GeneratorType:
        return "generator"  # close() only (send/throw and the gi_* internals stay out)
    if issubclass(t, np.ndarray) or issubclass(t, np.generic):
        return NP_ARRAY_ATTRS
    if issubclass(t, np.dtype):
        return NP_DTYPE_ATTRS
    if t is np.finfo or t is np.iinfo:
        return NP_FINFO_ATTRS
    named = t.__dict__.get("__gradscript_attrs__")
    if type(named) is frozenset:  # a language class that shows these attributes only (pywarnings.WarningMessage)
        return named
    if issubclass(t, BaseException):  # before the engine's classes: its errors are exceptions too
        if any(_is_user_class(c) for c in t.__mro__):  # class MyErr(Exception): args, what the script set
            return "user_exception"
        return EXCEPTION_ATTRS
    if _is_engine_type(t) or any(_is_user_class(c) for c in t.__mro__):
        return "checked"
    if isinstance(t, type) and issubclass(t, tuple) and _is_engine_type(t):
        return True
    return None


def _refuse(obj, name):
    what = type(obj).__name__
    err = AttributeError(f"'{what}' object attribute '{name}' is not available in GradScript")
    err._gs_user = True
    return err


def _class_attr(cls, name):
    """Attribute of a class object: its own (MRO) namespace only, never type's or object's."""
    if not (_is_user_class(cls) or _is_engine_type(cls) or cls in _FULL_PY or cls is str
            or any(_is_user_class(c) for c in cls.__mro__)):
        return _refuse(cls, name)
    if cls is str and name in ("format", "format_map"):
        return safe_format if name == "format" else safe_format_map
    checked = unbound_method(cls, name)
    if checked is not None:
        return checked
    for c in cls.__mro__:
        if c is object or c is type or (c.__module__ == "builtins" and issubclass(c, BaseException)):
            continue  # a script's exception class: its own names only (not with_traceback, add_note)
        if name in c.__dict__:
            value = getattr(cls, name)
            if isinstance(value, types.ModuleType):
                return _refuse(cls, name)
            return value
    err = AttributeError(f"type object '{cls.__name__}' has no attribute '{name}'")
    err._gs_user = True
    return err


# type -> how compiled attribute sites may answer without calling get_attr (exprs/callables inline
# it): FULL every public attribute, CHECKED the same but a module value is refused (modules,
# optimizers, user instances; never a metaclass), NAMESPACE a module facade; absent: get_attr.
FULL, CHECKED, NAMESPACE = 1, 2, 3
fast_kind = {}
# [getattr, or csrc/lang.c's read_attr once an nn.Module type has been classified]: the CHECKED sites' read,
# the same value or error as getattr (a Module's parameters, buffers and submodules without the failed
# lookup that precedes Module.__getattr__: ~11K instructions a read on Python 3.11)
CHECKED_READ = [getattr]
# [None, or csrc/lang.c's forward_of once an nn.Module type has been classified]: a call site's module call
# runs forward_of(module) as forward(module, *args) where it answers (Module.__call__ without hooks), without
# Module.__call__'s frame and the bound method (a script forward's descriptor frame)
FORWARD_OF = [None]


@user_raiser
def get_attr(obj, name):
    """``obj.name`` for a script (the compiler refuses names starting with '_', except
    super().__init__; this refuses them too, so no dynamic route gets one through)."""
    if name[:1] == "_" and not (name == "__init__" and type(obj) is super):
        raise _refuse(obj, name)
    if name in GROWING_NAMES:
        bound = growing_method(obj, name)
        if bound is not None:
            return bound
    if name == "grad_fn" and isinstance(obj, Tensor) and getattr(obj, "_creation", None) is not None:
        check_view_grad_fn(obj)  # a view made under no_grad, ...
    return read_attribute(obj, name)


@user_raiser
def read_attribute(obj, name):
    """``obj.name`` for a name get_attr's own checks pass (public, no growing method, no grad_fn): the one
    source of the attribute-read policy, which get_attr and the compiled sites (exprs.e_attribute's,
    fastcalls' obj.name(...)) all run: the fast kinds answered here, the others by the type's policy."""
    kind = fast_kind.get(type(obj))
    if kind == FULL:
        try:
            return getattr(obj, name)
        except AttributeError as e:
            e._gs_user = True
            raise
    if kind == CHECKED:
        try:
            value = CHECKED_READ[0](obj, name)
        except AttributeError as e:
            e._gs_user = True
            raise
        if isinstance(value, types.ModuleType):
            raise _refuse(obj, name)
        return value
    if kind == NAMESPACE:
        members = obj._members
        if name in members:
            return members[name]
    return _get_attr_slow(obj, name)


def name_of(obj):
    """obj.__name__ for a script: a class's name (a ScriptType's: its class's), a function's or a
    builtin's; anything else has none (Python's instances have none either)."""
    from .pybuiltins import ScriptType, TypeBuiltin  # noqa: PLC0415 - pybuiltins imports this module
    if isinstance(obj, ScriptType):
        obj = obj.cls
    if isinstance(obj, TypeBuiltin):
        return "type"
    if isinstance(obj, type) or callable(obj):
        name = getattr(obj, "__name__", None)
        if isinstance(name, str):
            # the engine's classes named by their tp_name (torch.Size, torch.device, torch.return_types.max):
            # Python's __name__ is its last part
            return name.rpartition(".")[2] if isinstance(obj, type) and name.startswith("torch.") else name
    err = AttributeError(f"'{type(obj).__name__}' object has no attribute '__name__'")
    err._gs_user = True
    raise err


def version_of(obj):
    """obj.__version__ for a script: torch's and numpy's facades have one (what PyTorch's CPU wheel and the
    NumPy that runs print); nothing else has."""
    if isinstance(obj, Namespace):
        version = _module_versions().get(obj._name)
        if version is not None:
            return version
        err = AttributeError(f"module '{obj._name}' has no attribute '__version__'")
    else:
        err = AttributeError(f"'{type(obj).__name__}' object has no attribute '__version__'")
    err._gs_user = True
    raise err


def _module_versions():
    from ..engine.api import __version__ as torch_version  # noqa: PLC0415 - read on use, as the facades load
    return {"torch": torch_version, "numpy": np.__version__}


@user_raiser
def _get_attr_slow(obj, name):
    if isinstance(obj, type):
        value = _class_attr(obj, name)
        if isinstance(value, BaseException):
            raise value
        return value
    t = type(obj)
    try:
        policy = _policy_cache[t]
    except KeyError:
        policy = _policy_cache[t] = _compute_policy(t)
        kind = _FAST_KINDS.get(policy)
        if kind is not None:
            fast_kind[t] = kind  # t is no metaclass here (obj is not a class)
        if kind == CHECKED and CHECKED_READ[0] is getattr:
            _use_native_read(t)
    if policy is True or policy == "checked":
        return get_attr(obj, name)  # now cached: get_attr's own branch answers
    if policy == "namespace":
        try:
            return obj._members[name]
        except KeyError:
            err = AttributeError(f"module '{obj._name}' has no attribute '{name}'")
            err._gs_user = True
            raise err from None
    if policy == "str":
        if name in STR_SPECIAL:
            return STR_SPECIAL[name](obj)
        try:
            return getattr(obj, name)
        except AttributeError as e:
            e._gs_user = True
            raise
    if policy == "generator" and name == "close":
        from .generators import close_method  # noqa: PLC0415 - generators imports the compiler's helpers
        return close_method(obj)
    if policy == "user_exception":
        if name in EXCEPTION_ATTRS or (name in getattr(obj, "__dict__", {}) and not name.startswith("gradcli")) or any(
                name in c.__dict__ for c in t.__mro__ if _is_user_class(c)):
            return getattr(obj, name)
    if type(policy) is frozenset and name in policy:
        value = getattr(obj, name)
        if callable(value) and isinstance(obj, (np.ndarray, np.generic)):
            from .npguard import guarded
            return guarded(value, f"ndarray.{name}")
        return value
    try:
        exists = hasattr(obj, name)
    except Exception:  # noqa: BLE001
        exists = True
    if not exists:
        err = AttributeError(f"'{t.__name__}' object has no attribute '{name}'")
        err._gs_user = True
        raise err
    raise _refuse(obj, name)


_FAST_KINDS = {True: FULL, "checked": CHECKED, "namespace": NAMESPACE}


def _use_native_read(t):
    """CHECKED_READ becomes csrc/lang.c's read_attr at the first nn.Module type read from (not at start-up),
    where the module is built."""
    from ..engine.nn.module import Module  # noqa: PLC0415 - the engine's nn loads on first use
    if not issubclass(t, Module):
        return
    from .. import native  # noqa: PLC0415
    module = native.load("lang", needs=("setup", "read_attr", "setup_call", "forward_of"))
    if module is not None:
        module.setup(Module.__getattr__, object.__getattribute__)
        module.setup_call(Module.__call__, function)
        CHECKED_READ[0] = module.read_attr
        FORWARD_OF[0] = module.forward_of


def _is_tensor(obj):
    return isinstance(obj, Tensor)


PROTOCOL_NAMES = frozenset(("__len__", "__iter__", "__getitem__", "__contains__", "__call__", "__next__"))


def has_attr(obj, name):
    if not isinstance(name, str):
        raise TypeError("hasattr(): attribute name must be string")
    if name.startswith("_"):
        # the protocols a script may ask about (d2l's Vocab.to_tokens: hasattr(indices, '__len__')):
        # whether the object's type has them, a bool and nothing else; a '_name' the script's own
        # class defines or its instance holds as get_private answers; every other '_' name is absent
        if is_private(name):
            return has_private(obj, name)
        if name == "__name__" or name == "__version__":  # what obj.__name__ / obj.__version__ read
            try:
                (name_of if name == "__name__" else version_of)(obj)
            except AttributeError:
                return False
            return True
        return name in PROTOCOL_NAMES and any(name in c.__dict__ for c in type(obj).__mro__)
    try:
        get_attr(obj, name)
    except AttributeError:
        return False
    return True


def _setattr_ok(obj):
    if isinstance(obj, type):
        return _is_user_class(obj)
    t = type(obj)
    ok = _setattr_ok_cache.get(t)
    if ok is None:
        from ..engine import autograd, autograd_modes, device, dtypes, factory
        if issubclass(t, BaseException):
            # an exception keeps what it was raised with (its args; gradcli's marks, names a script
            # cannot write); one of the script's own classes takes the attributes its __init__ sets
            ok = any(_is_user_class(c) for c in t.__mro__)
        elif issubclass(t, Tensor) or any(_is_user_class(c) for c in t.__mro__):
            ok = True
        elif t in _FULL_PY or t is str:
            ok = True  # immutable built-ins: Python itself refuses, with its own message
        elif _is_engine_type(t):
            from ..engine.custom_function import BackwardCFunction  # a custom Function's ctx holds the script's values
            ok = issubclass(t, BackwardCFunction) or not issubclass(
                t, (dtypes.dtype, device.device, autograd.Node, factory.Generator, autograd_modes.GradModeDecorator, tuple))
        else:
            ok = False
        _setattr_ok_cache[t] = ok
    return ok


# the attributes torch's TensorBase defines without a setter (x.shape = ... is refused with its message)
TENSOR_READONLY = frozenset("""T mT H mH device dtype grad_fn is_cpu is_cuda is_ipu is_leaf is_maia is_meta
is_mkldnn is_mps is_mtia is_nested is_quantized is_sparse is_sparse_csr is_vulkan is_xla is_xpu itemsize layout
name nbytes ndim output_nr retains_grad shape""".split())


@user_raiser
def set_attr(obj, name, value):
    if type(obj) is Namespace:
        obj.__setattr__(name, value)  # raises, but for a flag of torch.backends.cudnn
        return
    if name in TENSOR_READONLY and _is_tensor(obj):
        err = AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")
        err._gs_user = True
        raise err
    if not _setattr_ok(obj) or (name.startswith("gradcli") and isinstance(obj, BaseException)):
        err = _readonly_error(obj, name) or AttributeError(
            f"cannot set attribute '{name}' of a '{type(obj).__name__}' object in GradScript")
        err._gs_user = True
        raise err
    try:
        setattr(obj, name, value)
    except AttributeError as e:
        if sys.version_info < (3, 11) and str(e) == f"can't set attribute '{name}'":
            # a property without a setter, in the words of 3.11+ (the oracle's Python)
            e = AttributeError(f"property '{name}' of '{type(obj).__name__}' object has no setter")
            e._gs_user = True
            raise e from None
        e._gs_user = True
        raise


def _readonly_error(obj, name):
    """What Python says when a script sets an attribute of torch's C types (torch.dtype,
    torch.device, torch.Size), which have no instance dict; None for other objects."""
    from ..engine import device, dtypes
    from ..engine.size import Size
    t = type(obj)
    if not isinstance(obj, (dtypes.dtype, device.device, Size)):
        return None
    if not hasattr(obj, name):
        return AttributeError(f"'{t.__name__}' object has no attribute '{name}'")
    if callable(getattr(obj, name)):
        return AttributeError(f"'{t.__name__}' object attribute '{name}' is read-only")
    return AttributeError(f"attribute '{name}' of '{t.__name__}' objects is not writable")


@user_raiser
def del_attr(obj, name):
    if name in TENSOR_READONLY and _is_tensor(obj):
        err = AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")
        err._gs_user = True
        raise err
    if not _setattr_ok(obj):
        err = AttributeError(f"cannot delete attribute '{name}' of a '{type(obj).__name__}' object in GradScript")
        err._gs_user = True
        raise err
    try:
        delattr(obj, name)
    except AttributeError as e:
        e._gs_user = True
        raise


def public_attributes(obj):
    """Names that get_attr would give (for tab completion)."""
    names = []
    cls = type(obj)
    for name in dir(obj):
        if name.startswith("_"):
            continue
        if isinstance(getattr(cls, name, None), property) and _is_user_class_or_base(cls):
            names.append(name)  # a script's @property: completion never runs the script's code
            continue
        try:
            get_attr(obj, name)
        except Exception:  # noqa: BLE001 - completion must never fail
            continue
        names.append(name)
    return names
