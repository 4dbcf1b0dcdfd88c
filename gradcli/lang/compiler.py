"""The GradScript compiler: checks names against the sandbox, resolves them against the scopes
and the built-in namespaces, and lowers statements to Python closures.

A statement closure ``s(frame)`` returns None to go on, BREAK / CONTINUE, or a 1-tuple
``(value,)`` for a ``return``. ``compile_module`` gives one closure per top-level statement,
so a runner can execute (and report) them one at a time, as Python's interactive mode does.
"""
from __future__ import annotations


from ..gcpolicy import paused
from . import ast as A
from . import fastops
from .errors import GradScriptError
from .fastcalls import Sink
from .callables import CallableCompiler
from .classes import ClassCompiler
from .exprs import MAX_NESTING, ExprCompiler
from .generators import GeneratorCompiler
from .handlers import TryCompiler
from .loops import LoopCompiler
from .namespaces import FORBIDDEN_NAMES, SUPPORTED_IMPORTS
from .future import check_future
from .parser import check_statement_context
from .pyops import INPLACE_OPS
from .private import (REFUSED_HINT, del_private, enclosing_class, get_private, is_private, mangle, refused_text,
                      set_private)
from .pyvalues import del_attr, get_attr, set_attr
from .runtime import BREAK, CONTINUE, enter_context, exit_context, tag
from .scopes import Scope, bound_names, names_bound_anywhere
from .statements import lowerings

_RETURN_NONE = (None,)
_FORBIDDEN_HINTS = {
    "dir": "the REPL completes names and attributes with Tab",
    "open": "scripts have no file access; print the values you need",
    "input": "scripts read no input; set the values in the script",
}


class Compiler(ExprCompiler, CallableCompiler, ClassCompiler, LoopCompiler, TryCompiler, GeneratorCompiler):
    def __init__(self, rt, namespaces, globals_, filename="<string>"):
        self.rt = rt
        self.ns = namespaces
        self.G = globals_
        self.B = namespaces.builtins
        self.filename = filename
        self.nesting = 0
        self._module = None  # compile_module's module, for `bound`
        self._bound = None

    @property
    def bound(self):
        """The names the program binds anywhere (see check_name). Computed on first use: only a
        read of a forbidden builtin's name needs it, and walking a big module costs ~0.2 us a node."""
        if self._bound is None:
            self._bound = frozenset() if self._module is None else frozenset(names_bound_anywhere(self._module))
        return self._bound

    # ------------------------------------------------------------------ errors and checks
    def error(self, node, type_name, message, hint=None):
        kw = {}
        if node is not None:
            kw = dict(line=node.line, column=node.column, end_line=node.end_line, end_column=node.end_column)
        return GradScriptError(message, type_name=type_name, filename=self.filename, hint=hint, **kw)

    def check_name(self, name, node, what="name", load=False):
        # a builtin that scripts cannot use (input, eval, open, ...) is refused where the script reads it
        # without binding that name itself; binding it (def forward(self, input), input = ...) is harmless
        if name in FORBIDDEN_NAMES and (name.startswith("_") or (load and name not in self.bound
                                                                 and name not in self.G)):
            raise self.error(node, "NameError", f"'{name}' is not available in GradScript (sandbox)",
                             hint=_FORBIDDEN_HINTS.get(name, "GradScript scripts can only compute: no eval, "
                                                       "files or introspection"))

    def check_private(self, name, node, what):
        """A name that stands for an attribute (a module path's part, a name imported from a module):
        one that starts with '_' is refused, as attributes are."""
        if name.startswith("_"):
            raise self.error(node, "NameError",
                             f"{what} '{name}' is not allowed: names starting with '_' are private in GradScript",
                             hint="only public names (no leading underscore) of a module can be used")

    def check_attr(self, node, scope):
        """The attribute's name as Python looks it up (``__x`` in a class body mangled to ``_Cls__x``) and
        whether it is a '_' name that private.py checks when it runs; a dunder is refused here."""
        name = node.attr
        if not name.startswith("_"):
            return name, False
        value = node.value
        if name == "__init__" and type(value) is A.Call and type(value.func) is A.Name and value.func.id == "super":
            return name, False
        name = mangle(name, enclosing_class(scope))
        if is_private(name):
            return name, True
        raise self.error(node, "AttributeError", refused_text(name), hint=REFUSED_HINT)

    def check_params(self, node):
        for p in list(node.params) + list(node.kwonly) + [node.vararg, node.kwarg]:
            if p is not None:
                self.check_name(p, node, what="parameter")

    # ------------------------------------------------------------------ blocks
    def stmt(self, node, scope):
        method = self._STMT.get(type(node))
        if method is None:
            raise self.error(node, "SyntaxError", f"{type(node).__name__} statements are not supported in GradScript")
        return method(self, node, scope)

    def block(self, body, scope):
        self.nesting += 1
        try:
            if self.nesting > MAX_NESTING:
                raise self.error(body[0] if body else None, "RecursionError",
                                 "maximum recursion depth exceeded during compilation (source nested too deeply)")
            pairs = [(s, self._stmt_or_refusal(s, scope)) for s in body]
        finally:
            self.nesting -= 1
        pairs = [(s, f) for s, f in pairs if f is not None]
        run = self._block_runner(pairs)
        run.gs_pairs = pairs  # s_for runs a loop body's statements itself
        return run

    def _stmt_or_refusal(self, node, scope):
        """A nested statement's closure; a sandbox refusal in it (not a SyntaxError, which Python reports
        for the whole top-level statement) is raised when the statement runs, so that what runs before it
        (earlier statements of a function body, a loop's first iterations) prints as in Python."""
        try:
            return self.stmt(node, scope)
        except GradScriptError as e:
            if e.type_name == "SyntaxError" or e.type_name == "RecursionError":
                raise
            return _raiser(e)

    def _block_runner(self, pairs):
        """The closure that runs a block's (statement, closure) pairs in order."""
        loc = self.rt.loc
        if not pairs:
            return lambda frame: None
        if len(pairs) == 1:
            (node, f), = pairs
            ret = getattr(f, "gs_return", None)
            if ret is not None:
                def run1_return(frame):  # a body that is one `return value`: run1 without the return's closure
                    loc[0] = node
                    try:
                        return (ret(frame),)
                    except Exception as e:
                        tag(e, node)
                        raise
                return run1_return

            def run1(frame):
                loc[0] = node
                try:
                    return f(frame)
                except Exception as e:
                    tag(e, node)
                    raise
            return run1

        last, ret = pairs[-1], getattr(pairs[-1][1], "gs_return", None)
        if ret is not None:
            pairs = pairs[:-1]
            last = last[0]

            def run_return(frame):  # a body that ends in `return value`: that closure inline
                for node, f in pairs:
                    loc[0] = node
                    try:
                        r = f(frame)
                    except Exception as e:
                        tag(e, node)
                        raise
                    if r is not None:
                        return r
                loc[0] = last
                try:
                    return (ret(frame),)
                except Exception as e:
                    tag(e, last)
                    raise
            return run_return

        def run(frame):
            for node, f in pairs:
                loc[0] = node
                try:
                    r = f(frame)
                except Exception as e:
                    tag(e, node)
                    raise
                if r is not None:
                    return r
            return None
        return run

    def compile_module(self, module):
        """[(statement node, closure)] for the top-level statements (echo on)."""
        # Lowering makes many long-lived objects (closures, cells): with the collector on, each
        # collection rescans them and the AST, which tripled the compile time of a 10k-line script.
        with paused():
            return self._compile_module(module)

    def _compile_module(self, module):
        scope = Scope("module", echo=True)
        self._module, self._bound = module, None
        compiled = []
        for s in module.body:
            self.nesting = 0
            try:
                check_statement_context(s, self.filename)
                f = self.stmt(s, scope)
            except GradScriptError as e:
                # Python compiles statement by statement: earlier ones still run and print. A sandbox
                # refusal (x._version, eval, import torch._C) stops the script where that statement runs,
                # as Python's own error would; its closure does nothing else.
                f = _raiser(e)
            if f is not None:
                compiled.append((s, f))
        return compiled

    def compile_expression(self, node):
        return self.expr(node, Scope("module"))

    # ------------------------------------------------------------------ simple statements
    def s_expr(self, node, scope):
        if type(node.value) is A.Call:  # obj.method(): the call's closure is the statement's (fastcalls.Sink)
            value = self.e_call(node.value, scope, Sink(echo=self.rt.echo if scope.echo else None))
            if getattr(value, "gs_statement", False):
                return value
        else:
            value = self.expr(node.value, scope)
        if not scope.echo:
            def expr_stmt(frame):
                value(frame)
            return expr_stmt
        echo = self.rt.echo

        def expr_echo(frame):
            v = value(frame)
            if v is not None:
                echo(v)
        return expr_echo

    def s_assign(self, node, scope):
        target = node.targets[0]
        plain_name = len(node.targets) == 1 and type(target) is A.Name and (scope.kind == "module" or (
            target.id in scope.locals and target.id not in scope.globals and target.id not in scope.nonlocals))
        if plain_name and type(node.value) is A.Call:  # name = f(x): the call stores the result itself
            value = self.e_call(node.value, scope, Sink(store=(scope.kind != "module", target.id)))
            if getattr(value, "gs_statement", False):
                self.target(target, scope)  # the name's checks
                return value
        else:
            value = self.expr(node.value, scope)
        stores = [self.target(t, scope) for t in node.targets]
        if len(stores) == 1:
            store = stores[0]
            if plain_name:
                name = target.id
                fused = fastops.assign_op_float(name, self.G if scope.kind == "module" else None, value)
                if fused is not None:
                    return fused
                if scope.kind == "module":
                    G = self.G

                    def assign_global(frame):
                        G[name] = value(frame)
                    return assign_global

                def assign_local(frame):
                    frame[name] = value(frame)
                return assign_local

            def assign(frame):
                store(frame, value(frame))
            return assign

        def assign_many(frame):
            v = value(frame)
            for store in stores:
                store(frame, v)
        return assign_many

    def s_annassign(self, node, scope):
        self.expr(node.annotation, scope)  # checked, not evaluated
        if node.value is None:
            return None
        return self.s_assign(A.Assign([node.target], node.value, line=node.line, column=node.column,
                                      end_line=node.end_line, end_column=node.end_column), scope)

    def s_augassign(self, node, scope):
        op = INPLACE_OPS.get(node.op)
        if op is None:
            raise self.error(node, "SyntaxError", f"operator {node.op}= is not supported")
        rhs = self.expr(node.value, scope)
        target = node.target
        t = type(target)
        if t is A.Name:
            load = self.expr(target, scope)
            store = self.name_store(target, scope)
            name = target.id
            if scope.kind == "module" or (name in scope.locals and name not in scope.globals
                                          and name not in scope.nonlocals):
                fast = fastops.augassign_name(node.op, name, load, rhs, node)
                if fast is not None:
                    return fast

                def aug_fast(frame):
                    try:
                        a = frame[name]
                    except KeyError:
                        a = load(frame)  # raises the NameError / UnboundLocalError
                    b = rhs(frame)
                    try:
                        frame[name] = op(a, b)
                    except Exception as e:
                        tag(e, node)
                        raise
                return aug_fast

            def aug_name(frame):
                a = load(frame)
                b = rhs(frame)
                try:
                    r = op(a, b)
                except Exception as e:
                    tag(e, node)
                    raise
                store(frame, r)
            return aug_name
        if t is A.Attribute:
            name, private = self.check_attr(target, scope)
            obj = self.expr(target.value, scope)
            get_a, set_a = (get_private, set_private) if private else (get_attr, set_attr)

            def aug_attr(frame):
                o = obj(frame)
                try:
                    a = get_a(o, name)
                except Exception as e:
                    tag(e, target)
                    raise
                b = rhs(frame)
                try:
                    set_a(o, name, op(a, b))
                except Exception as e:
                    tag(e, node)
                    raise
            return aug_attr
        if t is A.Subscript:
            obj, index = self.expr(target.value, scope), self.index(target.index, scope)

            def aug_item(frame):
                o = obj(frame)
                k = index(frame)
                try:
                    a = o[k]
                except Exception as e:
                    tag(e, target)
                    raise
                b = rhs(frame)
                try:
                    o[k] = op(a, b)
                except Exception as e:
                    tag(e, node)
                    raise
            return aug_item
        raise self.error(node, "SyntaxError", "illegal expression for augmented assignment")

    def s_pass(self, node, scope):
        return None

    def s_break(self, node, scope):
        return lambda frame: BREAK

    def s_continue(self, node, scope):
        return lambda frame: CONTINUE

    def s_return(self, node, scope):
        if scope.kind != "function":
            raise self.error(node, "SyntaxError", "'return' outside function")
        if node.value is None:
            return lambda frame: _RETURN_NONE
        value = self.expr(node.value, scope)

        def return_(frame):
            return (value(frame),)
        return_.gs_return = value  # block() inlines a final return
        return return_

    def s_assert(self, node, scope):
        test = self.expr(node.test, scope)
        msg = self.expr(node.msg, scope) if node.msg is not None else None

        def assert_(frame):
            if not test(frame):
                err = AssertionError(msg(frame)) if msg is not None else AssertionError()
                tag(err, node)
                raise err
        return assert_

    def s_delete(self, node, scope):
        parts = []
        for target in node.targets:
            parts.extend(self._delete_target(target, scope))

        def delete(frame):
            for part in parts:
                part(frame)
        return delete

    def _delete_target(self, target, scope):
        t = type(target)
        if t is A.Tuple or t is A.List:
            return [p for e in target.elts for p in self._delete_target(e, scope)]
        if t is A.Name:
            self.check_name(target.id, target)
            return [self.delete_name(target.id, target, scope)]
        if t is A.Attribute:
            name, private = self.check_attr(target, scope)
            obj = self.expr(target.value, scope)
            delete_attr = del_private if private else del_attr

            def del_a(frame):
                o = obj(frame)
                try:
                    delete_attr(o, name)
                except Exception as e:
                    tag(e, target)
                    raise
            return [del_a]
        if t is A.Subscript:
            obj, index = self.expr(target.value, scope), self.index(target.index, scope)

            def del_item(frame):
                o = obj(frame)
                k = index(frame)
                try:
                    del o[k]
                except Exception as e:
                    tag(e, target)
                    raise
            return [del_item]
        raise self.error(target, "SyntaxError", "cannot delete this expression")

    def delete_name(self, name, node, scope):
        """The closure of `del name` (NameError when it is not bound)."""
        kind, depth = scope.resolve(name)
        G = self.G

        def del_name(frame):
            d = G if kind == "global" else frame
            for _ in range(depth):
                d = d.parent
            if name not in d:
                err = NameError(f"name '{name}' is not defined")
                tag(err, node)
                raise err
            del d[name]
        return del_name

    def s_global(self, node, scope):
        for name in node.names:
            self.check_name(name, node)
        if scope.kind == "module":
            return None
        return None

    def s_nonlocal(self, node, scope):
        for name in node.names:
            self.check_name(name, node)
            if scope.kind == "module":
                raise self.error(node, "SyntaxError", "nonlocal declaration not allowed at module level")
            if scope._enclosing(name)[0] != "free":
                raise self.error(node, "SyntaxError", f"no binding for nonlocal '{name}' found")
        return None

    # ------------------------------------------------------------------ imports
    def _import_error(self, node, path):
        return self.error(node, "ImportError",
                          f"cannot import '{path}': GradScript supports only {SUPPORTED_IMPORTS}",
                          hint="gradcli runs PyTorch-style scripts on its own engine; other modules are unavailable")

    def s_import(self, node, scope):
        binds = []
        for alias in node.names:
            for part in alias.name.split("."):
                self.check_private(part, alias, "module name")
            ns = self.ns.module(alias.name)
            if ns is None:
                raise self._import_error(alias, alias.name)
            if alias.asname:
                self.check_name(alias.asname, alias)
                binds.append((self.name_store(alias.asname, scope), ns))
            else:
                top = alias.name.split(".")[0]
                binds.append((self.name_store(top, scope), self.ns.module(top)))

        def import_(frame):
            for store, value in binds:
                store(frame, value)
        return import_

    def s_importfrom(self, node, scope):
        if node.module == "__future__":
            return check_future(self, node, scope)
        if self.ns.module(node.module) is None:
            raise self._import_error(node, node.module)
        binds = []
        for alias in node.names:
            if alias.name == "*":
                if scope.kind != "module":
                    raise self.error(node, "SyntaxError", "import * only allowed at module level")
                members = self.ns.module(node.module)._members
                for name, value in members.items():
                    binds.append((self.name_store(name, scope), value))
                continue
            self.check_private(alias.name, alias, "imported name")
            value = self.ns.import_from(node.module, alias.name)
            if value is None:
                raise self.error(alias, "ImportError", f"cannot import name '{alias.name}' from '{node.module}'")
            if alias.asname:
                self.check_name(alias.asname, alias)
            binds.append((self.name_store(alias.asname or alias.name, scope), value))

        def import_from(frame):
            for store, value in binds:
                store(frame, value)
        return import_from

    # ------------------------------------------------------------------ compound statements
    def s_if(self, node, scope):
        test = self.expr(node.test, scope)
        body = self.block(node.body, scope)
        orelse = self.block(node.orelse, scope) if node.orelse else None
        tnode = node.test

        if orelse is None:
            def if_only(frame):
                try:
                    if not test(frame):
                        return None
                except Exception as e:
                    tag(e, tnode)
                    raise
                return body(frame)
            return if_only

        def if_(frame):
            try:
                if test(frame):
                    v = True
                else:
                    v = False
            except Exception as e:
                tag(e, tnode)
                raise
            if v:
                return body(frame)
            return orelse(frame)
        return if_

    def s_with(self, node, scope):
        body = self.block(node.body, scope)
        for item in reversed(node.items):
            body = self._with_item(item, body, scope)
        return body

    def _with_item(self, item, body, scope):
        ctx = self.expr(item.context_expr, scope)
        store = self.target(item.optional_vars, scope) if item.optional_vars is not None else None
        cnode = item.context_expr

        def with_(frame):
            mgr = ctx(frame)
            value, exit_ = enter_context(mgr, cnode)
            try:
                if store is not None:
                    store(frame, value)
                r = body(frame)
            except BaseException as e:
                if not exit_context(mgr, exit_, e):
                    raise
                return None
            exit_(mgr, None, None, None)
            return r
        return with_

def _raiser(error):
    def raise_(frame):
        raise error
    return raise_


# the dispatch on statement types: the methods the statements' descriptions name (statements.py)
Compiler._STMT = lowerings(Compiler, "lower")
Compiler._GEN_STMT = lowerings(Compiler, "gen")

__all__ = ["Compiler", "bound_names"]
