"""Lowering of class statements and of decorators.

A class statement builds a real Python class with ``type(name, (base,), namespace)`` whose methods
are user functions. Its base is one of: nothing (or ``object``): a plain class, as d2l's
``Accumulator``; another of the script's classes; ``nn.Module``, so the engine's
``nn.Module.__call__`` runs ``forward`` and its ``__setattr__`` registers sub-modules and
parameters; ``torch.autograd.Function``, whose ``apply`` calls the static
``forward``/``setup_context``/``backward`` (gradcli/engine/custom_function.py);
``torch.utils.data.Dataset``; or one of Python's exception classes.

A class is a door into Python's protocols, so the names a script may define are closed:
methods and class attributes named ``__x__`` are refused except the protocol methods of
``PROTOCOL_METHODS``, which Python calls only where the language reaches them (``len(x)``,
``x[k]``, ``for``, ``str``/``repr``/``print``/f-strings, ``x(...)``, ``==``, ``with``) or where the
script reads them by name on its own objects (``self.__getitem__(k)``: dunders.py); a script still
cannot read any other dunder attribute (``obj.__dict__``, ``obj.__class__``). Names with one leading
``_`` (``_init_weights``, ``_count``; ``__x``, mangled to ``_Cls__x`` as Python does) are the
script's own unless its engine base defines them or gradcli reserves them (private.py), which the
class statement checks when it runs.

Decorators are any expression, as in Python (PEP 614): their values are evaluated top-down before the
definition runs and applied bottom-up, the result bound to the name. ``@staticmethod``, ``@classmethod``,
``@property`` and ``@NAME.setter`` / ``.getter`` / ``.deleter`` of a property defined above are
markers of a class body (those builtins are no values a script may read); the grad-mode classes
``@torch.no_grad`` (``enable_grad``, ``inference_mode``) are instantiated as torch's decorators are;
``@dataclass`` applies Python's dataclasses to a plain class only; any other value is called with the
function (or class) as ``f = deco(f)`` would call it: a script's own decorators (d2l's ``add_to_class``, a
timing wrapper), ``@once_differentiable``, ``@torch.no_grad()``, with their errors at the decorator.
"""
from __future__ import annotations

from . import ast as A
from .private import class_text, engine_owner, is_private, mangle
from .runtime import Frame, tag
from .scopes import Scope, child_qualname

# the protocol methods a script's class may define (with __init__); Python's other hooks stay closed
PROTOCOL_METHODS = ("__init__", "__len__", "__getitem__", "__iter__", "__next__", "__call__", "__repr__",
                    "__str__", "__eq__", "__enter__", "__exit__")
PROTOCOL_TEXT = ", ".join(PROTOCOL_METHODS)
BASES_TEXT = ("object (or no base), another class of the script, nn.Module, torch.autograd.Function, "
              "torch.utils.data.Dataset or an exception class such as Exception")
_STATIC = object()  # the compiled @staticmethod
_CLASSMETHOD = object()
_PROPERTY = object()
_ACCESSORS = ("setter", "getter", "deleter")
_VALUE = object()  # a decorator's evaluated value, in decorate()
_LOCAL = object()  # a decorator named by a name of the class body (read from its namespace so far)


class _Dataclass:
    """`dataclasses.dataclass` as a script sees it: the one class decorator GradScript accepts. The
    class statement gives the class its fields' annotations (in order) and applies Python's own
    dataclasses.dataclass to it, which generates __init__, __repr__ and __eq__ from those names (the
    script's identifiers, none starting with '_'); a script cannot call it on anything else."""

    __slots__ = ()

    def __repr__(self):
        return f"<function dataclass at {id(self):#x}>"

    def __call__(self, *args, **kwargs):
        err = TypeError("dataclass() is supported as a class decorator only in GradScript (@dataclass "
                        "above a class statement, without arguments)")
        err._gs_user = True
        raise err


DATACLASS = _Dataclass()


class ClassCompiler:
    """Mixin of Compiler: class statements and the decorators of def and methods."""

    def decorators(self, node, scope, in_class):
        """The compiled decorators of a def: _STATIC, _CLASSMETHOD, _PROPERTY, (accessor, property
        name) or (closure giving the decorator's value, its node)."""
        out = []
        for d in node.decorators:
            marker = {"staticmethod": _STATIC, "classmethod": _CLASSMETHOD, "property": _PROPERTY}.get(
                d.id if type(d) is A.Name else None)
            if marker is not None and d.id not in self.G:
                if not in_class:
                    raise self.error(d, "SyntaxError", f"@{d.id} decorates a method: put the def in a class "
                                     "body (class Name: ...)")
                out.append(marker)
                continue
            if (in_class and type(d) is A.Attribute and d.attr in _ACCESSORS and type(d.value) is A.Name
                    and d.value.id in scope.locals):
                out.append((d.attr, d.value.id))  # @area.setter: the property `area` of this class body
                continue
            if in_class and type(d) is A.Name and d.id in scope.locals:
                out.append((_LOCAL, (d.id, self.expr(d, scope)), d))  # a function defined above in this class body
                continue
            out.append((self.expr(d, scope), d))
        return out

    def check_class_walrus(self, value):
        """A class attribute's value is lowered in the enclosing scope: an assignment expression there
        (which Python binds in the class namespace) is refused; inside a comprehension it is CPython's
        SyntaxError."""
        if not A.NamedExpr.parsed:
            return
        todo = [(value, False)]
        while todo:
            node, in_comp = todo.pop()
            t = type(node)
            if t is A.NamedExpr:
                if in_comp:
                    raise self.error(node.target, "SyntaxError",
                                     "assignment expression within a comprehension cannot be used in a class body")
                raise self.error(node, "SyntaxError", "assignment expressions in a class body are not supported in "
                                 "GradScript", hint="assign the value first: NAME = value")
            if t is A.Lambda:
                continue
            inner = in_comp or t in (A.ListComp, A.SetComp, A.DictComp, A.GeneratorExp)
            todo.extend((child, inner) for child in A.iter_child_nodes(node))

    def check_class_attr_name(self, t, class_name, private):
        """A class attribute's name: a '_name' of the script's (private.py) or a public one; dunders are
        Python's protocols and the engine's slots."""
        name = mangle(t.id, class_name)
        if name.startswith("_") and not is_private(name):
            raise self.error(t, "NameError", f"class attribute name '{t.id}' is not allowed: class "
                             "attributes starting and ending with '__' are reserved in GradScript")
        self.check_name(t.id, t, what="class attribute name")
        if is_private(name):
            private.append((name, t))

    def s_classdef(self, node, scope):
        self.check_name(node.name, node, what="class name")
        if len(node.bases) > 1 or node.keywords:
            raise self.error(node, "SyntaxError", "GradScript classes derive from at most one base, with no "
                             "keywords (metaclass=...)",
                             hint=f"derive from one of: {BASES_TEXT}")
        class_decorators = [(self.expr(d, scope), d) for d in node.decorators]
        base = self.expr(node.bases[0], scope) if node.bases else None
        cscope = Scope("class", scope, qualname=child_qualname(scope, node.name))
        cscope.super_cell = cell = [None]
        methods = []
        fields = []  # NAME: annotation [= value], in order (a dataclass's fields)
        protocols = []  # the protocol methods it defines (an exception class may not)
        private = []  # its '_name' methods and attributes, checked against the base's names when it runs
        for s in node.body:
            if type(s) is A.FunctionDef:
                mname = mangle(s.name, node.name)
                if mname.startswith("_") and not is_private(mname) and mname not in PROTOCOL_METHODS:
                    raise self.error(s, "NameError", f"method name '{s.name}' is not allowed: names starting "
                                     "and ending with '__' are reserved in GradScript (a class may define these "
                                     f"Python protocols only: {PROTOCOL_TEXT})")
                if mname in PROTOCOL_METHODS and mname != "__init__":
                    protocols.append((s.name, s))
                if is_private(mname):
                    private.append((mname, s))
                cscope.locals.add(s.name)
                methods.append((mname, self.s_functiondef(s, cscope, in_class=True)))
            elif type(s) is A.Pass or (type(s) is A.ExprStmt and type(s.value) is A.Constant):
                continue
            elif type(s) is A.Assign and all(type(t) is A.Name for t in s.targets):
                # class attributes (generate_vmap_rule = True, a constant of a module)
                for t in s.targets:
                    self.check_class_attr_name(t, node.name, private)
                    cscope.locals.add(t.id)
                self.check_class_walrus(s.value)
                methods.append(([mangle(t.id, node.name) for t in s.targets], self.expr(s.value, scope)))
            elif type(s) is A.AnnAssign and type(s.target) is A.Name:
                # an annotated class attribute (block_size: int = 1024): the annotation is evaluated,
                # as Python does, and kept for @dataclass; the value, when given, is the attribute's
                t = s.target
                self.check_class_attr_name(t, node.name, private)
                fields.append((mangle(t.id, node.name), self.expr(s.annotation, scope)))
                if s.value is not None:
                    cscope.locals.add(t.id)
                    self.check_class_walrus(s.value)
                    methods.append(([mangle(t.id, node.name)], self.expr(s.value, scope)))
            else:
                raise self.error(s, "SyntaxError", "a class body may only define methods (def ...) and assign "
                                 "names (NAME = value) in GradScript")
        store = self.name_store(node.name, scope)
        name, bnode, qualname = node.name, (node.bases[0] if node.bases else node), cscope.qualname

        def class_(frame):
            decorators = [(value_of(frame), d) for value_of, d in class_decorators]  # Python's order: first
            b = object if base is None else base(frame)
            try:
                check_base(b)
            except Exception as e:
                tag(e, bnode)
                raise
            if protocols and issubclass(b, BaseException):
                refuse_exception_protocol(*protocols[0])
            for pname, pnode in private:
                refuse_engine_name(b, pname, pnode)
            cframe = Frame()
            cframe.parent = frame
            namespace = {"__module__": "__main__", "__qualname__": qualname, "_gradscript_class": True}
            if fields:
                # a string annotation is kept as `object`: dataclasses reads a string's module prefix
                # ("typing.ClassVar[...]") through sys.modules, which is no business of the script's
                namespace["__annotations__"] = {fname: _annotation(annotation(frame)) for fname, annotation in fields}
            for mname, define in methods:
                if type(mname) is list:  # NAME = value: evaluated where the class statement runs
                    value = define(frame)
                    for n in mname:
                        namespace[n] = value
                else:
                    namespace[mname] = define(cframe, namespace)
            try:
                cls = type(name, (b,), namespace)
            except Exception as e:
                tag(e, bnode)
                raise
            cell[0] = cls  # super() and __class__ name the class the statement made, not what decorators return
            for value, dnode in reversed(decorators):
                cls = _decorate_class(cls, value, dnode)
            store(frame, cls)
        return class_


def _annotation(value):
    return object if isinstance(value, str) else value


def _decorate_class(cls, value, dnode):
    """One class decorator: @dataclass on a script's class is Python's dataclasses.dataclass (its errors, a
    mutable default's ValueError, are the script's own); another value is called with the class."""
    if value is not DATACLASS:
        try:
            return value(cls)
        except Exception as e:
            tag(e, dnode)
            raise
    import dataclasses
    try:
        if not isinstance(cls, type) or "_gradscript_class" not in cls.__dict__:
            err = TypeError("@dataclass decorates a class statement of the script in GradScript (here the "
                            f"decorator below it gave a '{type(cls).__name__}' object)")
            err._gs_user = True
            raise err
        if issubclass(cls, BaseException) or _module_base() is not None and issubclass(cls, _module_base()):
            err = TypeError("@dataclass decorates a plain class of the script (class Config: ...) in GradScript, "
                            "not an nn.Module, a Function, a Dataset or an exception class")
            err._gs_user = True
            raise err
        return dataclasses.dataclass(cls)
    except Exception as e:
        if type(e) is ValueError or type(e) is TypeError:
            e._gs_user = True
        tag(e, dnode)
        raise


def refuse_engine_name(base, name, node):
    """A script's class may not define a '_name' its base outside the script defines (nn.Module's
    _apply, _version) or one gradcli reserves (engine/private_names.ENGINE_PRIVATE): the engine would take it
    for its own."""
    owner = engine_owner(base, name)
    if owner is None:
        return
    whose = "gradcli's engine reserves it" if owner is True else f"{class_text(owner)} defines it"
    err = NameError(f"name '{name}' is not allowed in a class of the script: {whose} (choose another name)")
    err._gs_user = True
    tag(err, node)
    raise err


def refuse_exception_protocol(name, node):
    """An exception class keeps Python's own protocols: gradcli renders an uncaught exception after the
    script's run, where no code of the script may run (its str() included)."""
    err = NameError(f"method name '{name}' is not allowed in an exception class: it may define __init__ and "
                    "methods whose names do not start with '_' (gradcli prints the exception itself)")
    err._gs_user = True
    tag(err, node)
    raise err


def decorate(define, decorators, frame, namespace=None):
    """Evaluate the decorators' values (top-down, before the def runs, as Python does), make the function
    (``define(frame)``) and apply them innermost first; ``namespace`` is the class body's so far, for a
    property's @NAME.setter."""
    values = [dec if dec is _STATIC or dec is _CLASSMETHOD or dec is _PROPERTY or type(dec[0]) is str
              else (_VALUE, _class_local(namespace, dec[1], frame), dec[2]) if dec[0] is _LOCAL
              else (_VALUE, dec[0](frame), dec[1]) for dec in decorators]
    fn = define(frame)
    for dec in reversed(values):
        if dec is _STATIC:
            fn = staticmethod(fn)
            continue
        if dec is _CLASSMETHOD:
            fn = classmethod(fn)
            continue
        if dec is _PROPERTY:
            fn = property(fn)
            continue
        if type(dec[0]) is str:  # (accessor, property name)
            accessor, pname = dec
            fn = _accessor(namespace, pname, accessor)(fn)
            continue
        _, value, dnode = dec
        try:
            fn = _decorator(value)(fn)  # a value that is no callable: Python's TypeError, here
        except Exception as e:
            tag(e, dnode)
            raise
    return fn


def _class_local(namespace, local, frame):
    """A decorator's name as a class body looks it up: its namespace so far, else the enclosing scopes."""
    name, value_of = local
    return namespace[name] if name in namespace else value_of(frame)


def _accessor(namespace, pname, accessor):
    """`@area.setter` in a class body: the setter of the property `area` defined above, with
    Python's errors when there is none."""
    if pname not in namespace:
        err = NameError(f"name '{pname}' is not defined")
    elif not isinstance(namespace[pname], property):
        err = AttributeError(f"'{_type_name(namespace[pname])}' object has no attribute '{accessor}'")
    else:
        return getattr(namespace[pname], accessor)
    err._gs_user = True
    raise err


def _type_name(value):
    if isinstance(value, (staticmethod, classmethod)):
        return type(value).__name__
    return "function" if callable(value) else type(value).__name__


def _decorator(value):
    """What a def's decorator value calls: torch's grad-mode classes are instantiated first (torch's
    _NoParamDecoratorContextManager: `@torch.no_grad` as `@torch.no_grad()`); dataclass decorates classes."""
    from ..engine import autograd_modes as modes
    if value is modes.no_grad or value is modes.enable_grad or value is modes.inference_mode:
        return value()
    if value is DATACLASS:
        err = TypeError("@dataclass decorates a class statement (class Config: ...) in GradScript, not a def")
        err._gs_user = True
        raise err
    return value


def _module_base():
    from ..engine import api
    nn = getattr(api, "nn", None)
    return getattr(nn, "Module", None)


def _is_script_exception(cls):
    return issubclass(cls, BaseException) and "_gradscript_class" in cls.__dict__


def check_base(base):
    from ..engine.custom_function import Function
    from ..engine.data import Dataset

    from .handlers import EXCEPTION_NAMES
    if base is object or (isinstance(base, type) and issubclass(base, (Function, Dataset))):
        return
    if isinstance(base, type) and issubclass(base, BaseException):  # class MyError(Exception)
        if (base.__module__ == "builtins" and base.__name__ in EXCEPTION_NAMES) or _is_script_exception(base):
            return
    elif isinstance(base, type) and "_gradscript_class" in base.__dict__:  # another class of the script
        return
    module_cls = _module_base()
    if not isinstance(base, type) or module_cls is None or not issubclass(base, module_cls):
        from .pybuiltins import TypeBuiltin  # noqa: PLC0415 - pybuiltins imports the handlers, which import this
        what = "type" if isinstance(base, TypeBuiltin) else getattr(base, "__name__", type(base).__name__)
        raise TypeError(f"GradScript classes must derive from {BASES_TEXT} (got {what})")
