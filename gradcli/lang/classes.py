"""Lowering of the two class forms and of decorators.

``class Net(nn.Module):`` and ``class MyFn(torch.autograd.Function):`` (or a class derived from
one of them) build a real Python class with ``type(name, (base,), namespace)`` whose methods are
user functions, so the engine's ``nn.Module.__call__`` runs ``forward`` and its ``__setattr__``
registers sub-modules and parameters, and the engine's ``Function.apply`` calls the static
``forward``/``setup_context``/``backward`` (gradcli/engine/custom_function.py).

Decorators are a closed list: ``@staticmethod`` (on a method), ``@once_differentiable`` and the
grad-mode decorators ``@torch.no_grad()``, ``@torch.enable_grad()``, ``@torch.inference_mode()``
(with or without the call parentheses) and ``@torch.set_grad_enabled(flag)``. The compiler accepts
names, attribute chains and calls of them as decorator expressions; what they evaluate to is checked
when the definition runs (a script may alias ``once_differentiable``), anything else is refused.
"""
from __future__ import annotations

from . import ast as A
from .runtime import Frame, tag
from .scopes import Scope, child_qualname

DECORATORS_TEXT = ("@staticmethod, @once_differentiable, @torch.no_grad(), @torch.enable_grad(), "
                   "@torch.inference_mode() and @torch.set_grad_enabled(mode)")
_STATIC = object()  # the compiled @staticmethod


def _is_chain(node):
    while type(node) is A.Attribute:
        node = node.value
    return type(node) is A.Name


class ClassCompiler:
    """Mixin of Compiler: class statements and the decorators of def and methods."""

    def decorators(self, node, scope, in_class):
        """The compiled decorators of a def: _STATIC or closures giving the decorator's value."""
        out = []
        for d in node.decorators:
            if type(d) is A.Name and d.id == "staticmethod" and "staticmethod" not in self.G:
                if not in_class:
                    raise self.error(d, "SyntaxError", "@staticmethod decorates a method: put the def in a class "
                                     "body (class Name(torch.autograd.Function): ...)")
                out.append(_STATIC)
                continue
            if not (_is_chain(d) or (type(d) is A.Call and _is_chain(d.func))):
                raise self.error(d, "SyntaxError", f"GradScript supports these decorators only: {DECORATORS_TEXT}")
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

    def s_classdef(self, node, scope):
        self.check_name(node.name, node, what="class name")
        if len(node.bases) != 1 or node.keywords or node.decorators:
            raise self.error(node, "SyntaxError", "GradScript supports two class forms: class Name(nn.Module): ... "
                             "and class Name(torch.autograd.Function): ...",
                             hint="derive from exactly one base: nn.Module, torch.autograd.Function or a class "
                             "derived from one of them; no class decorators")
        base = self.expr(node.bases[0], scope)
        cscope = Scope("class", scope, qualname=child_qualname(scope, node.name))
        cscope.super_cell = cell = [None]
        methods = []
        for s in node.body:
            if type(s) is A.FunctionDef:
                if s.name.startswith("_") and s.name != "__init__":
                    raise self.error(s, "NameError", f"method name '{s.name}' is not allowed: names starting "
                                     "with '_' are reserved in GradScript (only __init__ may be defined)")
                cscope.locals.add(s.name)
                methods.append((s.name, self.s_functiondef(s, cscope, in_class=True)))
            elif type(s) is A.Pass or (type(s) is A.ExprStmt and type(s.value) is A.Constant):
                continue
            elif type(s) is A.Assign and all(type(t) is A.Name for t in s.targets):
                # class attributes (generate_vmap_rule = True, a constant of a module)
                for t in s.targets:
                    if t.id.startswith("_"):  # Python's protocols (__repr__, __del__, ...) and the engine's slots
                        raise self.error(t, "NameError", f"class attribute name '{t.id}' is not allowed: class "
                                         "attributes starting with '_' are reserved in GradScript")
                    self.check_name(t.id, t, what="class attribute name")
                    cscope.locals.add(t.id)
                self.check_class_walrus(s.value)
                methods.append(([t.id for t in s.targets], self.expr(s.value, scope)))
            else:
                raise self.error(s, "SyntaxError", "a class body may only define methods (def ...) and assign "
                                 "names (NAME = value) in GradScript")
        store = self.name_store(node.name, scope)
        name, bnode, qualname = node.name, node.bases[0], cscope.qualname

        def class_(frame):
            b = base(frame)
            try:
                check_base(b)
            except Exception as e:
                tag(e, bnode)
                raise
            cframe = Frame()
            cframe.parent = frame
            namespace = {"__module__": "__main__", "__qualname__": qualname, "_gradscript_class": True}
            for mname, define in methods:
                if type(mname) is list:  # NAME = value: evaluated where the class statement runs
                    value = define(frame)
                    for n in mname:
                        namespace[n] = value
                else:
                    namespace[mname] = define(cframe)
            try:
                cls = type(name, (b,), namespace)
            except Exception as e:
                tag(e, bnode)
                raise
            cell[0] = cls
            store(frame, cls)
        return class_


def decorate(fn, decorators, frame):
    """Apply compiled decorators (innermost first), checking each value against the closed list."""
    for dec in reversed(decorators):
        if dec is _STATIC:
            fn = staticmethod(fn)
            continue
        value_of, dnode = dec
        value = value_of(frame)
        try:
            fn = _allowed(value)(fn)
        except Exception as e:
            tag(e, dnode)
            raise
    return fn


def _allowed(value):
    from ..engine import autograd_modes as modes
    from ..engine.custom_function import once_differentiable
    if value is once_differentiable or isinstance(value, modes.GradModeDecorator):
        return value
    if value in (modes.no_grad, modes.enable_grad, modes.inference_mode):
        return value()
    what = getattr(value, "__qualname__", None) or type(value).__name__
    err = TypeError(f"'{what}' is not a decorator GradScript supports: only {DECORATORS_TEXT}")
    err._gs_user = True
    raise err


def _module_base():
    from ..engine import api
    nn = getattr(api, "nn", None)
    return getattr(nn, "Module", None)


def _is_script_exception(cls):
    return issubclass(cls, BaseException) and "_gradscript_class" in cls.__dict__


def check_base(base):
    from ..engine.custom_function import Function

    from .handlers import EXCEPTION_NAMES
    if isinstance(base, type) and issubclass(base, Function):
        return
    if isinstance(base, type) and issubclass(base, BaseException) and (  # class MyError(Exception)
            (base.__module__ == "builtins" and base.__name__ in EXCEPTION_NAMES) or _is_script_exception(base)):
        return
    module_cls = _module_base()
    if not isinstance(base, type) or module_cls is None or not issubclass(base, module_cls):
        what = getattr(base, "__name__", type(base).__name__)
        raise TypeError(f"GradScript classes must derive from nn.Module, torch.autograd.Function or an exception "
                        f"class such as Exception (got {what})")
