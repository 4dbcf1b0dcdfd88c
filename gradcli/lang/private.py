"""Names with one leading '_' on the script's own classes (nanoGPT's ``self._init_weights``, UvA's
``self._reset_parameters()``, ``self._cache = {}``, ``Counter._count += 1``).

Python lets any code read any ``_`` name; GradScript lets a script reach only what it made itself. A
``_name`` (not a dunder: those keep the protocol rules of classes.py) read, written, deleted or
called through ``obj._name`` is allowed when

- ``obj`` is an instance of a class the script defined (plain, an ``nn.Module``, a ``Dataset``, an
  exception class, a subclass of one of those), a class the script defined, or ``super()`` inside
  one of its methods, and
- the name is not the engine's: no class of the object's MRO that is not the script's (nn.Module,
  Dataset, Function, BaseException, object) defines it (``self._apply``, ``self._version``) or keeps
  it in its instances (engine/private_names.keeps: ``self._parameters``, ``self._modules``), it is
  none of engine/private_names.ENGINE_PRIVATE, the names gradcli looks for on any object it is given
  (``_rg``), nor starts with gradcli's own prefixes (``_gs_``, ``_gradcli``, ``_gradscript``).

An instance also keeps what an engine base stored in it: a '_name' it holds that the script did not
give it (engine/private_names.claim records those it did) is its engine base's (nn.RNN's
``_flat_weights_names``). What passes these checks can only be what the script itself defined or
stored, so Python's own
lookup then answers (a method, a property of the script, a value, a sub-module registered by
``nn.Module.__setattr__`` under that name), with Python's and torch's errors for a missing one. A
class body may define such methods and class attributes under the same rule (classes.py checks it
when the class statement runs). ``self.__x`` in a class body is mangled to ``self._Cls__x`` as
Python mangles it (``mangle``). Engine objects (tensors, torch's modules seen from outside a
script class, namespaces, a Function's ctx) still refuse every ``_`` name.
"""
from __future__ import annotations

import types
import weakref

from ..engine.autograd_modes import version_count
from ..engine.private_names import RECORD, claim, engine_holds, engine_owner, is_script_class, opened
from ..engine.tensor import Tensor
from .runtime import tag, user_raiser

_PRIVATE_TEXT = "attributes starting with '_' are private in GradScript"
# nn.Module's stores that torch code reads directly, and the public methods that give the same
PUBLIC_ROUTES = {"_modules": "; its public form is self.named_children()",
                 "_parameters": "; its public form is self.named_parameters(recurse=False)",
                 "_buffers": "; its public form is self.named_buffers(recurse=False)"}


REFUSED_HINT = ("only public attributes (no leading underscore) can be used; a script's own class may use '_name' "
                "attributes it defines (not __dunder__ ones)")


def refused_text(name):
    """Why ``obj.__name__`` (a dunder that is no protocol method, ``__dict__``, ``__class__``) is refused: the
    compiler's words for the dotted form and getattr's for a name made at run time (dynattrs.py)."""
    return f"attribute '{name}' is not accessible: {_PRIVATE_TEXT}"


def is_private(name):
    """A '_' name a script's own class may use: one leading underscore, or a mangled-style '__x'; not
    a dunder (those keep the protocol rules)."""
    return name[:1] == "_" and not (name[:2] == "__" and name[-2:] == "__")


def mangle(name, class_name):
    """Python's private name mangling: ``__x`` written in the body of class ``Cls`` is ``_Cls__x``."""
    if class_name is None or name[:2] != "__" or name[-2:] == "__":
        return name
    stripped = class_name.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def enclosing_class(scope):
    """The name of the class whose body (methods, nested functions) holds a compile-time scope, or None."""
    while scope is not None:
        if scope.kind == "class":
            return scope.qualname.rpartition(".")[2]
        scope = scope.parent
    return None


def _refused(obj, name, owner=None):
    if owner is True:
        text = (f"attribute '{name}' is not accessible: gradcli's engine reserves this name (it keeps or looks "
                "for it on objects); choose another name")
    elif owner is not None:
        text = (f"attribute '{name}' is not accessible: {_PRIVATE_TEXT} ('{name}' belongs to "
                f"{class_text(owner)}, not to the script's class{PUBLIC_ROUTES.get(name, '')})")
    else:
        text = f"attribute '{name}' is not accessible: {_PRIVATE_TEXT}"
    err = AttributeError(text)
    err._gs_user = True
    return err


def class_text(cls):
    """nn.Module, torch.utils.data.Dataset, torch.autograd.Function, object: how a script names the class."""
    module = getattr(cls, "__module__", "") or ""
    for prefix, shown in (("torch.nn.", "nn."), ("torch.utils.data", "torch.utils.data."),
                          ("torch.autograd", "torch.autograd.")):
        if module.startswith(prefix):
            return shown + cls.__name__
    return cls.__name__


def _script_defines(cls, name):
    """Whether a script class of cls's MRO defines ``name`` (a method, a class attribute, a dataclass field)."""
    return any(name in c.__dict__ or name in c.__dict__.get("__dataclass_fields__", ())
               for c in cls.__mro__ if is_script_class(c))


def _check(obj, name, write):
    """Refuse ``obj._name`` unless it is the script's (see the module's docstring)."""
    if type(obj) is super:
        start, this = obj.__self_class__, obj.__thisclass__
        if write or start is None or not is_script_class(this):
            raise _refused(obj, name)
        if engine_owner(start, name) is True:
            raise _refused(obj, name, True)
        mro = start.__mro__
        for c in mro[mro.index(this) + 1:]:
            if name in c.__dict__:
                if not is_script_class(c) and not opened(c, name):
                    raise _refused(obj, name, c)
                break
        return
    cls = obj if isinstance(obj, type) else type(obj)
    if not any(is_script_class(c) for c in cls.__mro__):
        raise _refused(obj, name)
    owner = engine_owner(cls, name)
    if owner is True and not isinstance(obj, type) and engine_holds(obj, name):
        owner = _engine_base(cls)  # self._parameters: nn.Module's
    if owner is not None:
        raise _refused(obj, name, owner)
    if not isinstance(obj, type):
        names = _CLEARED.get(cls)
        if names is None:
            names = _CLEARED[cls] = set()
        if len(names) < MAX_CLEARED:  # getattr's names are made at run time: the cache stays bounded
            names.add(name)
    if isinstance(obj, type):
        if not write and not _script_defines(cls, name) and not _opened_along(cls, name):
            err = AttributeError(f"type object '{obj.__name__}' has no attribute '{name}'")
            err._gs_user = True
            raise err
        return
    if engine_holds(obj, name) and not _script_defines(cls, name):
        # stored by the engine base (nn.RNN's _flat_weights_names): its class names it
        raise _refused(obj, name, _engine_base(cls))


def _opened_along(cls, name):
    """Whether an engine class of cls's MRO defines ``name`` as an extension point (nn.Module's _version)."""
    return any(name in c.__dict__ and opened(c, name) for c in cls.__mro__)


def _engine_base(cls):
    return next(c for c in cls.__mro__ if not is_script_class(c))


# script class -> the '_names' _check found no engine class owns (a class's MRO and the reserved names do
# not change): an instance's read then only asks whether the instance holds the name from its engine base
_CLEARED = weakref.WeakKeyDictionary()
MAX_CLEARED = 4096  # names a class's entry remembers; past it, _check runs again (the same answer, slower)


@user_raiser
def get_private(obj, name):
    """``obj._name`` in a script (and a tensor's ``_version``, the one engine '_' name torch's docs and
    tutorials read: how many in-place changes its data has had)."""
    if name == "_version" and isinstance(obj, Tensor):
        return version_count(obj)
    names = _CLEARED.get(type(obj))
    if names is None or name not in names or engine_holds(obj, name):
        _check(obj, name, False)
    try:
        value = getattr(obj, name)
    except AttributeError as e:
        e._gs_user = True
        raise
    if isinstance(value, types.ModuleType):
        raise _refused(obj, name)
    return value


def private_load(value, name, node):
    """The closure of ``EXPR._name``: value(frame) is EXPR's."""
    def attr_private(frame):
        obj = value(frame)
        try:
            return get_private(obj, name)
        except Exception as e:
            tag(e, node)
            raise
    return attr_private


@user_raiser
def set_private(obj, name, value):
    """``obj._name = value`` in a script: the script's instances and classes only; an instance records
    the name as the script's (engine/private_names.claim)."""
    from .pyvalues import set_attr
    _check(obj, name, True)
    if not isinstance(obj, type):
        claim(obj, name)
    set_attr(obj, name, value)


@user_raiser
def del_private(obj, name):
    from .pyvalues import del_attr
    _check(obj, name, True)
    del_attr(obj, name)


def private_attributes(obj):
    """The '_names' get_private would give on obj, for tab completion after ``obj._`` (it never runs the
    script's code: the names come from the script classes' namespaces and the instance's record)."""
    cls = obj if isinstance(obj, type) else type(obj)
    if type(obj) is super or not any(is_script_class(c) for c in cls.__mro__):
        return []
    names = {n for c in cls.__mro__ if is_script_class(c) for n in c.__dict__ if is_private(n)}
    if not isinstance(obj, type):
        names.update(getattr(obj, "__dict__", {}).get(RECORD, ()))
    out = []
    for name in sorted(names):
        try:
            _check(obj, name, False)
        except AttributeError:
            continue
        out.append(name)
    return out


def has_private(obj, name):
    """hasattr(obj, name) for a '_name': what get_private would give, as a bool; the engine's names are absent."""
    try:
        get_private(obj, name)
    except AttributeError:
        return False
    return True


__all__ = ["REFUSED_HINT", "refused_text", "is_private", "mangle", "engine_owner", "get_private", "private_load",
           "set_private", "del_private", "has_private", "private_attributes", "enclosing_class", "class_text"]
