"""Explicit reads of protocol methods on the script's own objects, as Python runs them: d2l's Vocab calls
``self.__getitem__(token)`` inside its own ``__getitem__`` and ``to_tokens``, a container returns
``self.__len__()``, an old-style constructor calls ``Base.__init__(self, ...)`` or ``nn.Module.__init__(self)``.

Only the names a script's class may define (classes.PROTOCOL_METHODS: ``__init__``, ``__len__``,
``__getitem__``, ``__iter__``, ``__next__``, ``__call__``, ``__repr__``, ``__str__``, ``__eq__``,
``__enter__``, ``__exit__``) are read here, and only

- on an instance of a class the script defined: Python's lookup answers (the script's method, or its
  engine base's, which the language already reaches through ``len(x)``, ``x[k]``, ``x(...)``, ``repr(x)``);
- on ``super()`` inside a method of the script's class (``super().__getitem__(i)``);
- on a class of the script, when a class of the script defines the method (``Base.__getitem__(self, k)``),
  or ``__init__`` of the script's class or of a base a script may derive from (``nn.Module.__init__(self)``);
  what it gives then takes only an instance of a script class derived from that class as its ``self``.

Every other dunder (``__class__``, ``__dict__``, ``__globals__``, ``__code__``, ``__subclasses__``,
``__reduce__``, ``__getattribute__``, ...) stays refused where the script is compiled, and tensors,
engine objects and Python's own values refuse these too.
"""
from __future__ import annotations

from ..engine.private_names import is_script_class
from .classes import PROTOCOL_METHODS
from .runtime import tag, user_raiser

PROTOCOL_NAMES = frozenset(PROTOCOL_METHODS)


def _refused(name):
    err = AttributeError(f"attribute '{name}' is not accessible: attributes starting with '_' are private in "
                         "GradScript (a protocol method is readable on the script's own objects only)")
    err._gs_user = True
    return err


def _scripted(cls):
    return any(is_script_class(c) for c in cls.__mro__)


def _python_lookup(obj, name):
    try:
        return getattr(obj, name)
    except AttributeError as e:
        e._gs_user = True
        raise


def _unbound(cls, name, fn):
    """A protocol method read from a class (Base.__init__, nn.Module.__init__, a @dataclass's generated
    __init__): it takes only an instance of a script class derived from ``cls``, as a method descriptor
    does (Python would run a plain function on anything; gradcli's and dataclasses' code expect their own)."""
    def method(self, *args, **kwargs):
        if not isinstance(self, cls) or not _scripted(type(self)):
            err = TypeError(f"descriptor '{name}' requires a '{cls.__name__}' object but received a "
                            f"'{type(self).__name__}'")
            err._gs_user = True
            raise err
        return fn(self, *args, **kwargs)
    method.__name__, method.__qualname__ = name, getattr(fn, "__qualname__", f"{cls.__name__}.{name}")
    return method


def _from_class(cls, name):
    owner = next((c for c in cls.__mro__ if name in c.__dict__), None)
    if owner is None and _scripted(cls):
        return _python_lookup(cls, name)  # Python's AttributeError
    if owner is not None and (is_script_class(owner) or (name == "__init__" and _may_derive(cls))):
        raw = owner.__dict__[name]
        if isinstance(raw, (staticmethod, classmethod)):  # takes no instance: Python's binding
            return _python_lookup(cls, name)
        return _unbound(cls, name, raw)
    raise _refused(name)


def _may_derive(cls):
    """A base a script's class may have (classes.check_base accepts it) or a class of the script."""
    from .classes import check_base  # noqa: PLC0415 - classes imports this module's users
    try:
        check_base(cls)
    except Exception:  # noqa: BLE001 - not a base a script may derive from
        return False
    return True


@user_raiser
def get_dunder(obj, name):
    """``obj.__name__()`` for a protocol method name (see the module's docstring)."""
    if type(obj) is super:
        if obj.__self_class__ is None or not is_script_class(obj.__thisclass__):
            raise _refused(name)
        return _python_lookup(obj, name)
    if isinstance(obj, type):
        return _from_class(obj, name)
    if not _scripted(type(obj)):
        raise _refused(name)
    return _python_lookup(obj, name)


def dunder_load(value, name, node):
    """The closure of ``EXPR.__name__`` for a protocol method name: value(frame) is EXPR's."""
    def attr_dunder(frame):
        obj = value(frame)
        try:
            return get_dunder(obj, name)
        except Exception as e:
            tag(e, node)
            raise
    return attr_dunder


__all__ = ["PROTOCOL_NAMES", "get_dunder", "dunder_load"]
