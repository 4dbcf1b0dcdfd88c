"""Dataclass-like classes that cost little to define: start-up time is part of the product.

``@dataclass`` compiles an ``__init__``, an ``__eq__`` and a ``__repr__`` for every class as its
module is imported (~0.4 ms a class here); the classes every `gradcli run` defines (the options,
outputs and results of a run, the syntax tree's ~55 node classes) cost several milliseconds that
way. Declared the same way (annotated fields, defaults, ``field(default_factory=...)``,
``field(kw_only=True)``), a class made by :func:`record` (or by the syntax tree's metaclass, with
:func:`field_specs` and :func:`first_init`) gets the same ``__init__`` as dataclass would write it,
compiled at the class's first instantiation, from its declaration only (never from a script's
text), and ``==``/``repr`` that read its fields (``_fields``) instead of compiled ones.
"""
from __future__ import annotations

from dataclasses import MISSING, Field, FrozenInstanceError


class _Required:
    """The default of a field that has none (and the marker of one with a default factory)."""

    def __repr__(self) -> str:
        return "<required>"


REQUIRED = _Required()


def field_specs(namespace: dict, pop: bool = False) -> list:
    """(name, default or REQUIRED, default factory or None, keyword-only) for each field a class
    body declares (its annotations, in order); pop: take the defaults out of the namespace."""
    specs = []
    for name in namespace.get("__annotations__", {}):
        value = namespace.pop(name, REQUIRED) if pop else namespace.get(name, REQUIRED)
        if isinstance(value, Field):
            factory = value.default_factory if callable(value.default_factory) else None
            default = value.default if factory is None and value.default is not MISSING else REQUIRED
            specs.append((name, default, factory, value.kw_only is True))
        else:
            specs.append((name, value, None, False))
    return specs


def first_init(cls):
    """cls's __init__ until its first call, which compiles the real one (compile_init), puts it in
    its place and runs it (also when a subclass's own __init__ calls cls.__init__)."""
    def __init__(self, *args, **kwargs):
        init = cls.__init__ = compile_init(cls)
        init(self, *args, **kwargs)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def compile_init(cls):
    """cls's __init__ as dataclass writes it, from ``cls._specs``: the fields in order (defaults,
    default factories), the keyword-only ones after a `*`. A frozen class's fields go straight into
    its __dict__ (its __setattr__ refuses them)."""
    scope = {"_REQUIRED": REQUIRED}
    frozen = getattr(cls, "_frozen", False)
    params, keyword, lines = ["self"], [], ["    _fields = self.__dict__"] if frozen else []
    for name, default, factory, kw_only in cls._specs:
        target = f"_fields[{name!r}]" if frozen else f"self.{name}"
        if factory is not None:
            scope[f"_factory_{name}"] = factory
            lines.append(f"    {target} = _factory_{name}() if {name} is _REQUIRED else {name}")
            param = f"{name}=_REQUIRED"
        else:
            lines.append(f"    {target} = {name}")
            if default is REQUIRED:
                param = name
            else:
                scope[f"_default_{name}"] = default
                param = f"{name}=_default_{name}"
        (keyword if kw_only else params).append(param)
    if keyword:
        params += ["*", *keyword]
    source = "def __init__(%s):\n%s\n" % (", ".join(params), "\n".join(lines) or "    pass")
    # the source is made from the class's own declarations above, never from a script's text
    exec(compile(source, f"<{cls.__module__} {cls.__qualname__}.__init__>", "exec"), scope)  # noqa: S102
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return all(getattr(self, f) == getattr(other, f) for f in self._fields)


def _repr(self):
    return "%s(%s)" % (type(self).__qualname__, ", ".join("%s=%r" % (f, getattr(self, f)) for f in self._fields))


def _frozen_setattr(self, name, value):
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name):
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _hash(self):
    return hash(tuple(getattr(self, f) for f in self._fields))


def record(cls=None, *, frozen: bool = False):
    """The class as ``@dataclass`` (``@dataclass(frozen=True)``) would make it: ``__init__``, ``==``,
    ``repr``, unhashable (frozen: immutable and hashed by its fields), for less start-up time (see
    the module's text). No ``dataclasses.fields``/``asdict``/``replace``."""
    if cls is None:
        return lambda c: _record(c, frozen)
    return _record(cls, frozen)


def _record(cls, frozen):
    specs = field_specs(cls.__dict__)
    for name, default, _, _ in specs:  # (the class attributes stay the defaults, as dataclass leaves them)
        if isinstance(cls.__dict__.get(name), Field):
            if default is REQUIRED:
                delattr(cls, name)
            else:
                setattr(cls, name, default)
    cls._specs = tuple(specs)
    cls._fields = tuple(spec[0] for spec in specs)
    cls.__init__ = first_init(cls)
    cls.__eq__ = _eq
    cls.__hash__ = _hash if frozen else None
    if frozen:
        cls._frozen = True
        cls.__setattr__, cls.__delattr__ = _frozen_setattr, _frozen_delattr
    if "__repr__" not in cls.__dict__:
        cls.__repr__ = _repr
    return cls
