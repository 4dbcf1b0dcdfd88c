"""Lowering of calls, functions (def, lambda) and comprehensions (classes and decorators: classes.py).

A user function is a ``runtime.function`` whose body is a compiled block.
"""
from __future__ import annotations

from types import MethodType

from . import ast as A
from ..engine.private_names import is_script_class
from .pyops import checked_int
from .classes import decorate
from .fastcalls import call_positional, method_call
from .runtime import Frame, Function, tag
from .scopes import Scope, child_qualname, function_scope, walrus_targets
from .statements import contains_yield


# python_arg_parser.cpp's numpy_compatibility_arg_names: the C++-bound Tensor methods take axis= for dim=
# and keepdims= for keepdim= (x.sum(axis=0)). Compiled in only for calls that pass these keywords.
_NUMPY_KEYWORDS = {"axis": "dim", "keepdims": "keepdim"}


def _numpy_keywords_renamed(f, kw, error):
    """kw with axis/keepdims renamed, when f is a Tensor method torch's argument parser binds and the
    TypeError is the call's own 'unexpected keyword argument'; else None."""
    from ..engine.tensor import Tensor  # noqa: PLC0415 - the engine loads after the language
    from ..engine.torch_signatures import SIGNATURES  # noqa: PLC0415
    from ..engine.ops.registry import python_methods  # noqa: PLC0415
    owner = getattr(f, "__self__", None)
    name = getattr(f, "__name__", "")
    # torch/_tensor.py's Python methods (x.unflatten) get no axis=/keepdims= aliases
    if not isinstance(owner, Tensor) or name not in SIGNATURES or name in python_methods():
        return None
    text = str(error)
    bad = [k for k in kw if k in _NUMPY_KEYWORDS and f"unexpected keyword argument '{k}'" in text]
    if not bad:
        return None
    renamed = dict(kw)
    for k in kw:
        if k in _NUMPY_KEYWORDS and _NUMPY_KEYWORDS[k] not in kw:
            renamed[_NUMPY_KEYWORDS[k]] = renamed.pop(k)
    return renamed


class CallableCompiler:
    """Mixin of Compiler: calls, functions, classes, comprehensions."""

    # ------------------------------------------------------------------ calls
    def e_call(self, node, scope, sink=None):
        """A call's closure; with a fastcalls.Sink, the statement's closure where fastcalls fuses the call (its
        `gs_statement` set), else the call's."""
        func_node = node.func
        if type(func_node) is A.Name and func_node.id == "super" and not node.args and not node.keywords:
            return self.zero_arg_super(node, scope)
        func = self.expr(func_node, scope)
        simple = all(type(a) is not A.Starred for a in node.args) and all(k.arg is not None for k in node.keywords)
        args = [self.expr(a.value if type(a) is A.Starred else a, scope) for a in node.args]
        for k in node.keywords:
            if k.arg is not None:
                self.check_name(k.arg, k, what="keyword argument")
        private = [k.arg for k in node.keywords if k.arg is not None and k.arg.startswith("_")]
        if private:  # `_x=` binds a parameter of the script's own function, never one of gradcli's
            func = _script_callee(func, private[0], node)
        kws = [(k.arg, self.expr(k.value, scope)) for k in node.keywords]
        if simple and not kws:
            method = getattr(func, "gs_method", None)
            if method is not None and len(args) <= 1:
                return method_call(method, args, func_node, node, self.G, sink)
            if len(args) == 0:
                def call0(frame):
                    f = func(frame)
                    try:
                        return f()
                    except Exception as e:
                        tag(e, node)
                        raise
                return call0
            fused = call_positional(func, args, node, self.G, sink)
            if fused is not None:
                return fused

            def calln(frame):
                f = func(frame)
                xs = [a(frame) for a in args]
                if f is int:
                    f = checked_int
                try:
                    return f(*xs)
                except Exception as e:
                    tag(e, node)
                    raise
            return calln
        if simple and any(name in _NUMPY_KEYWORDS for name, _ in kws):
            def callk_numpy(frame):
                f = func(frame)
                if f is int:
                    f = checked_int
                xs = [a(frame) for a in args]
                kw = {name: v(frame) for name, v in kws}
                try:
                    try:
                        return f(*xs, **kw)
                    except TypeError as e:
                        renamed = _numpy_keywords_renamed(f, kw, e)
                        if renamed is None:
                            raise
                    return f(*xs, **renamed)
                except Exception as e:
                    tag(e, node)
                    raise
            return callk_numpy
        if simple:
            def callk(frame):
                f = func(frame)
                if f is int:  # int(s, base=16)
                    f = checked_int
                xs = [a(frame) for a in args]
                kw = {name: v(frame) for name, v in kws}
                try:
                    return f(*xs, **kw)
                except Exception as e:
                    tag(e, node)
                    raise
            return callk
        stars = [type(a) is A.Starred for a in node.args]
        arg_parts = list(zip(stars, args))

        def call_general(frame):
            f = func(frame)
            try:
                xs = []
                for star, a in arg_parts:
                    if star:
                        v = a(frame)
                        if not (hasattr(type(v), "__iter__") or hasattr(type(v), "__getitem__")):
                            raise TypeError(f"{function_str(f)} argument after * must be an iterable, not "
                                            f"{type(v).__name__}")
                        xs.extend(v)
                    else:
                        xs.append(a(frame))
                kw = {}
                for name, v in kws:
                    if name is None:
                        mapping = v(frame)
                        if not hasattr(type(mapping), "keys"):
                            raise TypeError(f"{function_str(f)} argument after ** must be a mapping, not "
                                            f"{type(mapping).__name__}")
                        for key in mapping.keys():
                            if type(key) is str and key.startswith("_"):  # as the compiler refuses f(_k=1)
                                raise TypeError(f"{function_str(f)}: keyword argument '{key}' is not "
                                                "available in GradScript (names starting with '_')")
                            if key in kw:
                                raise TypeError(f"{function_str(f)} got multiple values for keyword argument '{key}'")
                            kw[key] = mapping[key]
                    else:
                        if name in kw:
                            raise TypeError(f"{function_str(f)} got multiple values for keyword argument '{name}'")
                        kw[name] = v(frame)
                if f is int:  # int(*parts)
                    f = checked_int
                return f(*xs, **kw)
            except Exception as e:
                tag(e, node)
                raise
        return call_general

    def zero_arg_super(self, node, scope):
        s = scope
        while s is not None and s.kind == "comprehension":
            s = s.parent
        if s is None or not s.is_method or s.first_param is None:
            def no_super(frame):
                err = RuntimeError("super(): no arguments")
                tag(err, node)
                raise err
            return no_super
        if s is not scope:  # Python 3.11: a comprehension is a function whose first argument is its iterator
            def comprehension_super(frame):
                err = TypeError("super(type, obj): obj must be an instance or subtype of type")
                tag(err, node)
                raise err
            return comprehension_super
        cell, first = s.super_cell, s.first_param
        hops = 0
        t = scope
        while t is not s:
            hops += 1
            t = t.parent

        def zsuper(frame):
            f = frame
            for _ in range(hops):
                f = f.parent
            try:
                if first not in f:
                    raise RuntimeError("super(): arg[0] deleted")
                return super(cell[0], f[first])
            except Exception as e:
                tag(e, node)
                raise
        return zsuper

    # ------------------------------------------------------------------ functions and comprehensions
    def e_lambda(self, node, scope):
        self.check_params(node)
        params = list(node.params) + ([node.vararg] if node.vararg else []) + \
            ([node.kwarg] if node.kwarg else []) + list(node.kwonly)
        inner = function_scope(scope, params, [], child_qualname(scope, "<lambda>"))
        inner.locals.update(walrus_targets(node.body, set()))  # (x := v) in a lambda binds in it
        body = self.expr(node.body, inner)
        return self.make_function(node, scope, "<lambda>", inner.qualname, body, True)

    def make_function(self, node, scope, name, qualname, body, is_lambda):
        defaults = [self.expr(d, scope) for d in node.defaults]
        kw_defaults = [(k, self.expr(d, scope)) for k, d in zip(node.kwonly, node.kw_defaults) if d is not None]
        rt = self.rt
        params, vararg, kwarg, kwonly = node.params, node.vararg, node.kwarg, node.kwonly
        in_class = scope.kind == "class"

        def define(frame):
            closure = frame.parent if in_class else frame
            fn = Function(rt, name, qualname, params, [d(frame) for d in defaults], vararg, kwarg, kwonly,
                          [(k, d(frame)) for k, d in kw_defaults], body, closure, is_lambda)
            return fn
        return define

    def comprehension(self, node, scope, kind):
        names = set()
        for gen in node.generators:
            A.target_names(gen.target, names)
        inner = Scope("comprehension", scope, names, qualname=scope.qualname)
        for gen in node.generators if A.NamedExpr.parsed else ():
            for n in A.walk(gen.iter):
                if type(n) is A.NamedExpr:
                    raise self.error(n.target, "SyntaxError",
                                     "assignment expression cannot be used in a comprehension iterable expression")
        first_iter = self.expr(node.generators[0].iter, scope)
        levels = []
        for i, gen in enumerate(node.generators):
            it = None if i == 0 else self.expr(gen.iter, inner)
            store = self.target(gen.target, inner)
            ifs = [self.expr(c, inner) for c in gen.ifs]
            levels.append((it, store, ifs))
        if kind == "dict":
            key, value = self.expr(node.key, inner), self.expr(node.value, inner)

            def produce(f):
                return key(f), value(f)
        else:
            produce = self.expr(node.elt, inner)
        rt = self.rt
        nlevels = len(levels)

        def run(f, level, iterator):
            _, store, ifs = levels[level]
            last = level == nlevels - 1
            for item in iterator:
                rt.budget -= 1
                if rt.budget < 0:
                    rt.refill()
                store(f, item)
                ok = True
                for cond in ifs:
                    if not cond(f):
                        ok = False
                        break
                if not ok:
                    continue
                if last:
                    yield produce(f)
                else:
                    yield from run(f, level + 1, iter(levels[level + 1][0](f)))

        parent_is_module = scope.kind == "module"

        def generator(frame):
            try:
                iterator = iter(first_iter(frame))
            except Exception as e:
                tag(e, node.generators[0].iter)
                raise
            f = Frame()
            f.parent = None if parent_is_module else (frame.parent if scope.kind == "class" else frame)
            gen = run(f, 0, iterator)
            gen.__qualname__ = gen.__name__ = {"gen": "<genexpr>", "list": "<listcomp>", "set": "<setcomp>",
                                               "dict": "<dictcomp>"}[kind]
            return gen
        if kind == "gen":
            return generator
        build = {"list": list, "set": set, "dict": dict}[kind]
        return lambda frame: build(generator(frame))

    def e_listcomp(self, node, scope):
        return self.comprehension(node, scope, "list")

    def e_setcomp(self, node, scope):
        return self.comprehension(node, scope, "set")

    def e_dictcomp(self, node, scope):
        return self.comprehension(node, scope, "dict")

    def e_generatorexp(self, node, scope):
        return self.comprehension(node, scope, "gen")

    def s_functiondef(self, node, scope, in_class=False):
        self.check_params(node)
        if not (in_class and node.name == "__init__"):
            self.check_name(node.name, node, what="function name")
        params = list(node.params) + [p for p in (node.vararg, node.kwarg) if p] + list(node.kwonly)
        qualname = child_qualname(scope, node.name)
        inner = function_scope(scope, params, node.body, qualname)
        if in_class:
            inner.is_method = True
            inner.super_cell = scope.super_cell
            inner.first_param = node.params[0] if node.params else None
        for ann in list(node.annotations.values()) + ([node.returns] if node.returns is not None else []):
            self.expr(ann, scope)
        if contains_yield(node.body):  # a generator function
            body = self.generator_body(node, inner)
        else:
            body = self.block(node.body, inner)
        define = self.make_function(node, scope, node.name, qualname, body, False)
        decorators = self.decorators(node, scope, in_class)
        if in_class:  # called with the class body's namespace so far (a property's @NAME.setter reads it)
            if not decorators:
                return lambda frame, namespace: define(frame)
            return lambda frame, namespace: decorate(define, decorators, frame, namespace)
        store = self.name_store(node.name, scope)
        if not decorators:
            return lambda frame: store(frame, define(frame))

        def def_(frame):
            store(frame, decorate(define, decorators, frame))
        return def_


def _script_callee(func, keyword, node):
    def callee(frame):
        f = func(frame)
        target = f.__func__ if type(f) is MethodType else f
        if not isinstance(target, Function) and not (isinstance(target, type) and _script_init(target)):
            err = TypeError(f"keyword argument '{keyword}' is not allowed: names starting with '_' are private "
                            "in GradScript (only the script's own functions take them)")
            tag(err, node)
            raise err
        return f
    return callee


def _script_init(cls):
    """Whether calling the class runs an __init__ of the script's (its own or @dataclass's, whose fields
    may be '_names': lang/private.py), which takes '_' keywords as the script's functions do."""
    owner = next((c for c in cls.__mro__ if "__init__" in c.__dict__), object)
    return is_script_class(owner)


def function_str(f):
    """How CPython names a callable in call errors: '__main__.f()', 'print()', 'list.append()'."""
    if isinstance(f, Function):
        return f"__main__.{f.qualname}()"
    qualname = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    if not isinstance(qualname, str):
        return f"{type(f).__name__} object"
    module = getattr(f, "__module__", None)
    if isinstance(module, str) and module != "builtins":
        return f"{module}.{qualname}()"
    return f"{qualname}()"
