"""The Python builtins GradScript implements itself (print, range, pow, hasattr, format, iter, super:
``BuiltinFunction``, printed and checked like Python's), the plain ones it passes through, and
``type()`` over the script's values (``TypeBuiltin``, ``ScriptType``): a part of the built-in
namespaces (``namespaces.Namespaces`` puts them in a session's builtins)."""
from __future__ import annotations

import builtins
import types

from . import pyops, pyvalues, strguard
from .pyitertools import MeteredIterator
from .pyvalues import Namespace
from .runtime import user_raiser

__all__ = ["BuiltinFunction", "python_builtins", "ScriptMap", "ScriptType", "TypeBuiltin"]


# ----------------------------------------------------------------------------- builtins

_PLAIN_BUILTINS = """len zip enumerate list tuple dict set frozenset min max abs round float int bool str
sorted reversed any all isinstance issubclass map filter divmod repr callable chr ord slice ascii bin hex oct
format hash complex next id object""".split()


class BuiltinFunction:
    """A builtin that GradScript implements itself (print, range, pow, ...): called like it, printed
    like Python's (<built-in function print>, <class 'range'>), usable in isinstance when Python's is a
    class (isinstance(r, range))."""

    __slots__ = ("fn", "name", "cls")

    def __init__(self, fn, name, cls=None):
        self.fn = fn
        self.name = name
        self.cls = cls  # the Python class it stands for (range, super), or None for a function

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __getattr__(self, name):  # __qualname__ / __name__: how call errors name it, print()
        if name in ("__qualname__", "__name__"):
            return self.name
        raise AttributeError(f"'builtin_function_or_method' object has no attribute '{name}'")

    def __repr__(self):
        return f"<class '{self.name}'>" if self.cls is not None else f"<built-in function {self.name}>"

    def __instancecheck__(self, obj):
        if self.cls is None:
            raise TypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")
        return isinstance(obj, self.cls)


# Python's name for the type of print, len, ...: what C-level messages and torch's texts show
# ("'builtin_function_or_method' object is not iterable")
BuiltinFunction.__name__ = BuiltinFunction.__qualname__ = "builtin_function_or_method"
BuiltinFunction.__module__ = "builtins"
# the engine reads attributes of what it is given (t._data of a tensor argument): for a builtin passed
# where a tensor goes, that AttributeError is the script's mistake, not a bug of gradcli
user_raiser(BuiltinFunction.__getattr__)


def sum_(iterable, /, start=0):
    """Python's ``sum``; with a list or tuple to start from (``sum(lists, [])``) each ``+`` is the
    script's own, under the sequence limit: Python's C loop concatenated past it unchecked."""
    if type(start) is list or type(start) is tuple:
        result = start
        for item in iterable:
            result = pyops.g_add(result, item)
        return result
    return sum(iterable, start)


user_raiser(sum_)


class ScriptMap(builtins.map):
    """``map`` for a script: Python's, but ``int`` as its function converts under the integer limit
    (``map(int, ['f' * 10**6], [16])`` made the 4,000,000-bit int that ``int(s, 16)`` refuses). A
    subclass, so that ``type(m) is map`` and ``isinstance(m, map)`` hold and it prints as Python's.
    A run's ``map`` is a subclass of this one that counts each item as a step (``metered_class``)."""

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        if args:
            args = (pyops.int_checked_callable(args[0]), *args[1:])
        return builtins.map.__new__(cls, *args, **kwargs)


ScriptMap.__name__ = ScriptMap.__qualname__ = "map"
ScriptMap.__module__ = "builtins"
user_raiser(ScriptMap.__new__)

# the builtin iterators whose items C code hands out one by one, calling the script's callable (or a C
# method: ``map(l.append, l)``) for each: ``list``, ``any``, ``sum``, ``sorted``, ``deque``, ... consume them
# in C, where no step of the script's is counted (``any(map(l.append, l))`` grew the list until
# --max-memory, ``list(filter(None, map(sum, rows)))`` ran for hours)
_METERED = ("zip", "enumerate")


def metered_class(base, rt):
    """``base`` (map, zip, enumerate) for the run of ``rt``: a subclass whose every item counts as a
    step, as a loop's iteration does; it prints and compares as Python's (``type(m) is map``)."""
    base_next = base.__next__

    def __next__(self):
        rt.budget -= 1
        if rt.budget < 0:
            rt.refill()
        return base_next(self)
    namespace = {"__slots__": (), "__next__": __next__, "__module__": "builtins"}
    if base is builtins.enumerate:
        namespace["__new__"] = _enumerate_new
    cls = type(base.__name__, (base,), namespace)
    cls.__qualname__ = base.__qualname__
    user_raiser(__next__)  # the function's own errors (a bad item for int) are the script's
    return cls


def _enumerate_keyword(name, want):
    if name != want:
        raise TypeError(f"'{name}' is an invalid keyword argument for enumerate()")


def _enumerate_new(cls, *args, **kwargs):
    """The arguments checked as CPython's ``enumerate(...)`` checks them (``enum_vectorcall``): a
    subclass is made by ``tp_new``, whose parser words two of the errors otherwise."""
    given = len(args) + len(kwargs)
    names = list(kwargs)
    if given == 2 and len(names) == 1:
        _enumerate_keyword(names[0], "start")
    elif given == 2 and len(names) == 2:
        if names[0] == "start":
            _enumerate_keyword(names[1], "iterable")
        else:
            _enumerate_keyword(names[0], "iterable")
            _enumerate_keyword(names[1], "start")
    elif given == 1 and names:
        _enumerate_keyword(names[0], "iterable")
    elif given != 1 and given != 2:
        if not args:
            raise TypeError("enumerate() missing required argument 'iterable'")
        raise TypeError(f"enumerate() takes at most 2 arguments ({given} given)")
    return builtins.enumerate.__new__(cls, *args, **kwargs)


user_raiser(_enumerate_new)


def metered_filter(rt):
    """``filter`` for the run of ``rt``: each item of its iterable counts as a step. Its ``__next__`` loops
    in C over the items its function refuses (``filter(l.append, l)``: for ever in one call), so the
    steps are counted where it takes its items."""
    base_new = builtins.filter.__new__

    def __new__(cls, *args, **kwargs):
        if len(args) == 2 and not kwargs:
            args = (args[0], MeteredIterator(iter(args[1]), rt))
        return base_new(cls, *args, **kwargs)
    cls = type("filter", (builtins.filter,), {"__slots__": (), "__new__": __new__, "__module__": "builtins"})
    user_raiser(__new__)  # filter(None, 5): Python's TypeError, the script's
    return cls


def python_builtins(rt):
    names = {name: getattr(builtins, name) for name in _PLAIN_BUILTINS}
    names["map"] = metered_class(ScriptMap, rt)
    for name in _METERED:
        names[name] = metered_class(getattr(builtins, name), rt)
    names["filter"] = metered_filter(rt)
    names["print"] = BuiltinFunction(rt.print, "print")
    names["range"] = BuiltinFunction(pyops.make_range(rt), "range", (range, pyops.BigRange))
    names["pow"] = BuiltinFunction(pyops.g_pow3, "pow")
    names["hasattr"] = BuiltinFunction(pyvalues.has_attr, "hasattr")
    from .dynattrs import builtins_for  # noqa: PLC0415 - dynattrs imports the classes, which import this module
    names.update((name, BuiltinFunction(fn, name)) for name, fn in builtins_for(rt).items())
    names["format"] = BuiltinFunction(strguard.safe_builtin_format, "format")
    names["sum"] = BuiltinFunction(sum_, "sum")

    def iter_(obj, *sentinel):
        if not sentinel:
            return iter(obj)
        if len(sentinel) > 1:
            raise TypeError(f"iter expected at most 2 arguments, got {1 + len(sentinel)}")
        # iter(callable, sentinel): each call an item, metered (list(iter(int, 1)) loops in C for ever)
        return MeteredIterator(iter(obj, sentinel[0]), rt)
    names["iter"] = BuiltinFunction(iter_, "iter")

    def super_(*args):
        if not args:
            raise RuntimeError("super(): no arguments")
        return super(*args)
    names["super"] = BuiltinFunction(super_, "super", super)
    names["Ellipsis"] = Ellipsis
    names["__name__"] = "__main__"  # a script is the main module: `if __name__ == "__main__":`
    from .handlers import exception_builtins  # noqa: PLC0415 - handlers imports this module
    names.update(exception_builtins())
    return names


# ----------------------------------------------------------------------------- type()

def _type_display(cls):
    """How Python + PyTorch print a class that gradcli implements under other names."""
    from ..engine.autograd import Node
    from .runtime import function
    if cls is function:
        return "<class 'function'>"
    if cls is Namespace:
        return "<class 'module'>"
    if cls is pyops.BigRange:
        return "<class 'range'>"
    if issubclass(cls, Node):
        module = cls.__module__
        if module.startswith("torch."):  # a custom Function's node: torch.autograd.function.MyFnBackward
            return f"<class '{module}.{cls.__qualname__}'>"
        return f"<class '{cls.__qualname__}'>"  # torch's node classes live in no module
    module = getattr(cls, "__module__", None) or ""
    if module.startswith("gradcli."):
        return f"<class '{cls.__qualname__}'>"
    return repr(cls)


class ScriptType:
    """What ``type(x)`` gives for a class a script cannot name otherwise (NoneType, generator,
    odict_keys, a grad_fn's class, ...): it prints, compares and checks instances like that class,
    and does nothing else: it cannot be called and has no attributes."""

    __slots__ = ("cls", "text")

    def __init__(self, cls, text=None):
        self.cls = cls
        self.text = text or _type_display(cls)

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        if isinstance(other, ScriptType):
            other = other.cls
        return self.cls is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.cls)

    def __instancecheck__(self, obj):
        return isinstance(obj, self.cls)

    def __subclasscheck__(self, other):
        if isinstance(other, ScriptType):
            other = other.cls
        return isinstance(other, type) and issubclass(other, self.cls)

    def __call__(self, *args, **kwargs):
        if self.cls is type(None) and not args and not kwargs:
            return None
        name = self.text[len("<class '"):-2].rpartition(".")[2]
        raise TypeError(f"cannot create '{name}' instances")


class TypeBuiltin:
    """The builtin ``type`` of GradScript, one-argument form only. ``type(x)`` is x's class when a
    script can already name that class (float, torch.Tensor, nn.Linear, np.ndarray, its own
    classes), so ``type(x) is float`` holds; any other class comes back as a ScriptType."""

    __slots__ = ("exposed", "wrappers", "sources", "builtin_functions")

    def __init__(self, sources, builtin_functions):
        self.sources = sources  # callables giving the namespaces' values (read when first needed)
        self.builtin_functions = builtin_functions  # print, range, ...: Python's builtin functions
        self.exposed = None
        self.wrappers = {}

    def _wrapper(self, cls, text=None):
        wrapper = self.wrappers.get((cls, text))
        if wrapper is None:
            wrapper = self.wrappers[(cls, text)] = ScriptType(cls, text)
        return wrapper

    def _exposed(self):
        if self.exposed is None:
            found = set()
            seen = set()

            def walk(values):
                for value in values:
                    if isinstance(value, Namespace):
                        if id(value) not in seen:
                            seen.add(id(value))
                            walk(value._members.values())
                    elif isinstance(value, type):
                        found.add(value)
            for source in self.sources:
                walk(source())
            found.discard(type)
            self.exposed = frozenset(found)
        return self.exposed

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError("type() takes no keyword arguments")
        if len(args) == 3:
            raise TypeError("type() with three arguments (creating a class) is not available in GradScript: "
                            "define a class with class Name(nn.Module): ...")
        if len(args) != 1:
            raise TypeError("type() takes 1 or 3 arguments")
        obj = args[0]
        if isinstance(obj, BuiltinFunction) and obj.cls is not None:
            return self  # range, super: classes in Python
        if isinstance(obj, (type, ScriptType, TypeBuiltin)):
            from ..engine.tensor import Tensor
            if isinstance(obj, type) and issubclass(obj, Tensor):
                return self._wrapper(type, "<class 'torch._C._TensorMeta'>")
            from ..engine.custom_function import Function
            if isinstance(obj, type) and issubclass(obj, Function):
                return self._wrapper(type, "<class 'torch.autograd.function.FunctionMeta'>")
            return self
        cls = type(obj)
        if cls in self._exposed() or "_gradscript_class" in cls.__dict__:
            return cls
        if any(obj is f for f in self.builtin_functions):
            return self._wrapper(types.BuiltinFunctionType)
        return self._wrapper(cls)

    def __repr__(self):
        return "<class 'type'>"

    def __instancecheck__(self, obj):
        return isinstance(obj, (type, ScriptType, TypeBuiltin))

    def __subclasscheck__(self, other):
        return other is self
