"""getattr, setattr and delattr: the dotted forms' policy for a name the script makes when it runs.

``getattr(obj, name)`` reads what ``obj.name`` reads, ``setattr(obj, name, v)`` writes what ``obj.name = v``
writes and ``delattr(obj, name)`` deletes what ``del obj.name`` deletes, through the same helpers
(exprs.e_attribute, compiler.check_attr and the assignment targets): ``__name__`` and ``__version__`` read
(pyvalues.name_of, version_of), the protocol methods only on the script's own objects (dunders.py), a
``_name`` only where the script's own class made it (private.py), every other dunder (``__dict__``,
``__class__``, ``__globals__``) refused, and a public name through pyvalues' checked get_attr / set_attr /
del_attr (an nn.Module registers a sub-module or parameter as torch's ``__setattr__`` does; gradcli's
namespaces, builtins, functions and engine types refuse a write). Python mangles ``__x`` in written
attributes only, so a string names the attribute as it is, and so does it here. A name that is no str is
Python's TypeError; a refused name is an AttributeError, so ``getattr(obj, '__dict__', None)`` is None, as
``hasattr`` says False.
"""
from __future__ import annotations

from .dunders import PROTOCOL_NAMES, get_dunder
from .private import REFUSED_HINT, del_private, get_private, is_private, refused_text, set_private
from .pyitertools import metered_elements
from .pyvalues import del_attr, get_attr, name_of, set_attr, version_of
from .runtime import user_raiser

_NO_DEFAULT = object()


def _refused(name):
    err = AttributeError(refused_text(name))
    err._gs_user = True
    err.gradcli_hint_text = REFUSED_HINT
    return err


@user_raiser
def _checked(fn_name, args, kwargs, least, most):
    if kwargs:
        raise TypeError(f"{fn_name}() takes no keyword arguments")
    n = len(args)
    if least == most and n != least:
        raise TypeError(f"{fn_name} expected {least} arguments, got {n}")
    if n < least:
        raise TypeError(f"{fn_name} expected at least {least} arguments, got {n}")
    if n > most:
        raise TypeError(f"{fn_name} expected at most {most} arguments, got {n}")
    name = args[1]
    if not isinstance(name, str):
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
    return str(name)  # a str subclass's own methods never run in the lookups below


def read(obj, name, rt):
    """``obj.<name>`` for a str ``name``: e_attribute's rules for the dotted form."""
    if name == "__name__":
        return name_of(obj)
    if name == "__version__":
        return version_of(obj)
    if name in PROTOCOL_NAMES:
        return get_dunder(obj, name)
    if name[:1] == "_":
        if is_private(name):
            return get_private(obj, name)
        raise _refused(name)
    value = get_attr(obj, name)
    return metered_elements(value, obj, rt) if name == "elements" else value


def builtins_for(rt):
    """The script's getattr, setattr and delattr for the run of ``rt``."""
    def getattr_(*args, **kwargs):
        name = _checked("getattr", args, kwargs, 2, 3)
        if len(args) == 2:
            return read(args[0], name, rt)
        try:
            return read(args[0], name, rt)
        except AttributeError:
            return args[2]

    def setattr_(*args, **kwargs):
        name = _checked("setattr", args, kwargs, 3, 3)
        obj, value = args[0], args[2]
        if name[:1] != "_":
            set_attr(obj, name, value)
        elif is_private(name):
            set_private(obj, name, value)
        else:
            raise _refused(name)

    def delattr_(*args, **kwargs):
        name = _checked("delattr", args, kwargs, 2, 2)
        obj = args[0]
        if name[:1] != "_":
            del_attr(obj, name)
        elif is_private(name):
            del_private(obj, name)
        else:
            raise _refused(name)
    for fn in (getattr_, setattr_, delattr_):
        user_raiser(fn)
    return {"getattr": getattr_, "setattr": setattr_, "delattr": delattr_}


__all__ = ["read", "builtins_for"]
