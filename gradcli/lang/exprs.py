"""Lowering of GradScript expressions to Python closures ``f(frame) -> value``.

Each closure that performs an operation which can fail catches the exception only to tag it
with its node (runtime.tag: the innermost node wins) and re-raises it unchanged, so Python's
and the engine's exception types and texts reach the user as they are.
"""
from __future__ import annotations

import operator

from . import ast as A
from . import fastops
from .dunders import PROTOCOL_NAMES, dunder_load
from .private import private_load, set_private
from .pyitertools import metered_elements
from .pyops import BINOPS, UNARYOPS, unpack
from .pyvalues import get_attr, name_of, read_attribute, version_of
from .strguard import GROWING_NAMES, check_spec
from .runtime import tag

MAX_NESTING = 1000  # expressions and blocks nested deeper than this are refused (CPython: about 1000 too)


def _contains(a, b):
    return a in b


def _not_contains(a, b):
    return a not in b


COMPARE = {"<": operator.lt, ">": operator.gt, "==": operator.eq, ">=": operator.ge, "<=": operator.le,
           "!=": operator.ne, "in": _contains, "not in": _not_contains, "is": operator.is_,
           "is not": operator.is_not}



def _not_global(builtins, name, node):
    """A name read that is neither global nor builtin so far: a torch function whose op family loads on
    first use (`builtins` is a namespaces.OnDemand: reading it loads the family), else Python's NameError."""
    try:
        return builtins[name]
    except KeyError:
        pass
    err = NameError(f"name '{name}' is not defined")
    tag(err, node)
    raise err


def _is_const(node):
    return type(node) is A.Constant


class ExprCompiler:
    """Mixin of Compiler: expression lowering. Needs self.rt, self.G, self.B, self.error()."""

    def expr(self, node, scope):
        depth = self.nesting = self.nesting + 1
        if depth > MAX_NESTING:
            raise self.error(node, "RecursionError",
                             "maximum recursion depth exceeded during compilation (source nested too deeply)")
        try:
            method = self._dispatch[type(node)]
        except KeyError:
            raise self.error(node, "SyntaxError", f"{type(node).__name__} is not supported in GradScript") from None
        except AttributeError:
            self._dispatch = {cls: getattr(self, name) for cls, name in EXPR_METHODS.items()}
            method = self._dispatch[type(node)]
        result = method(node, scope)
        self.nesting = depth - 1
        return result

    # ------------------------------------------------------------------ leaves
    def e_constant(self, node, scope):
        value = node.value
        return lambda frame: value

    def e_name(self, node, scope):
        name = node.id
        self.check_name(name, node, load=True)
        kind, depth = scope.resolve(name)
        if kind == "local":
            def load_local(frame):
                try:
                    return frame[name]
                except KeyError:
                    err = UnboundLocalError(f"cannot access local variable '{name}' where it is not associated "
                                            "with a value")
                    tag(err, node)
                    raise err from None
            load_local.gs_name = (True, name)  # fastcalls reads it inline
            return load_local
        if kind == "free":
            def load_free(frame):
                f = frame
                for _ in range(depth):
                    f = f.parent
                try:
                    return f[name]
                except KeyError:
                    err = NameError(f"cannot access free variable '{name}' where it is not associated with a "
                                    "value in enclosing scope")
                    tag(err, node)
                    raise err from None
            return load_free
        G, B = self.G, self.B
        if kind == "class":
            def load_class(frame):
                if name in frame:
                    return frame[name]
                if name in G:
                    return G[name]
                if name in B:
                    return B[name]
                return _not_global(B, name, node)
            return load_class

        def load_global(frame):
            if name in G:
                return G[name]
            if name in B:
                return B[name]
            return _not_global(B, name, node)
        load_global.gs_name = (False, name)
        return load_global

    # ------------------------------------------------------------------ operators
    def e_binop(self, node, scope):
        op = BINOPS.get(node.op)
        if op is None:
            raise self.error(node, "SyntaxError", f"operator {node.op} is not supported")
        left = self.expr(node.left, scope)
        if _is_const(node.right):
            c = node.right.value
            fast = fastops.binop_const(node.op, left, c, node)
            if fast is not None:
                return fast

            def binop_const(frame):
                a = left(frame)
                try:
                    return op(a, c)
                except Exception as e:
                    tag(e, node)
                    raise
            return binop_const
        right = self.expr(node.right, scope)
        fast = fastops.binop(node.op, left, right, node)
        if fast is not None:
            return fast

        def binop(frame):
            a = left(frame)
            b = right(frame)
            try:
                return op(a, b)
            except Exception as e:
                tag(e, node)
                raise
        return binop

    def e_unaryop(self, node, scope):
        op = UNARYOPS[node.op]
        if node.op in ("-", "+") and _is_const(node.operand) and type(node.operand.value) in (int, float, complex):
            value = op(node.operand.value)
            return lambda frame: value
        operand = self.expr(node.operand, scope)

        def unary(frame):
            v = operand(frame)
            try:
                return op(v)
            except Exception as e:
                tag(e, node)
                raise
        return unary

    def e_boolop(self, node, scope):
        parts = [self.expr(v, scope) for v in node.values]
        head, last = parts[:-1], parts[-1]
        if node.op == "and":
            def and_(frame):
                try:
                    for part in head:
                        v = part(frame)
                        if not v:
                            return v
                except Exception as e:
                    tag(e, node)
                    raise
                return last(frame)
            return and_

        def or_(frame):
            try:
                for part in head:
                    v = part(frame)
                    if v:
                        return v
            except Exception as e:
                tag(e, node)
                raise
            return last(frame)
        return or_

    def e_compare(self, node, scope):
        left = self.expr(node.left, scope)
        ops = [COMPARE[o] for o in node.ops]
        rights = [self.expr(c, scope) for c in node.comparators]
        if len(ops) == 1:
            fast = fastops.compare(node.ops[0], left, rights[0], node)
            if fast is not None:
                return fast
            op, right = ops[0], rights[0]

            def compare1(frame):
                a = left(frame)
                b = right(frame)
                try:
                    return op(a, b)
                except Exception as e:
                    tag(e, node)
                    raise
            return compare1
        pairs = list(zip(ops, rights))

        def compare(frame):
            a = left(frame)
            try:
                for op, right in pairs:
                    b = right(frame)
                    r = op(a, b)
                    if not r:
                        return r
                    a = b
                return r
            except Exception as e:
                tag(e, node)
                raise
        return compare

    def e_ifexp(self, node, scope):
        test, body, orelse = (self.expr(n, scope) for n in (node.test, node.body, node.orelse))

        def ifexp(frame):
            t = test(frame)
            try:
                t = True if t else False
            except Exception as e:
                tag(e, node.test)
                raise
            return body(frame) if t else orelse(frame)
        return ifexp

    # ------------------------------------------------------------------ access
    def name_attribute(self, node, scope):
        """x.__name__ and x.__class__.__name__ (the weights_init idiom `m.__class__.__name__`): the
        name of a class or function, a string (pyvalues.name_of); x.__version__ (`print(torch.__version__)`,
        a tutorial's first cell): a module's version string (pyvalues.version_of). The only reads of '_'
        attributes besides super().__init__ (`x.__class__` alone stays refused)."""
        inner = node.value
        of_class = type(inner) is A.Attribute and inner.attr == "__class__"
        value = self.expr(inner.value if of_class else inner, scope)
        read = name_of if node.attr == "__name__" else version_of

        def attr_name(frame):
            obj = value(frame)
            try:
                return read(type(obj) if of_class else obj)
            except Exception as e:
                tag(e, node)
                raise
        return attr_name

    def e_attribute(self, node, scope):
        name = node.attr
        if name in ("__name__", "__version__"):
            return self.name_attribute(node, scope)
        value = self.expr(node.value, scope)
        if name in PROTOCOL_NAMES and not (name == "__init__" and type(node.value) is A.Call
                                           and type(node.value.func) is A.Name and node.value.func.id == "super"):
            return dunder_load(value, name, node)  # self.__getitem__(k): the script's own objects only
        name, private = self.check_attr(node, scope)
        if private:  # a '_' name: the script's own classes only, never fused into a call
            return private_load(value, name, node)
        if name in GROWING_NAMES or name == "grad_fn":  # methods that can build big objects: get_attr binds
            # them checked; a tensor's grad_fn may raise (a view made under no_grad, changed in place since)
            def attr_growing(frame):
                obj = value(frame)
                try:
                    return get_attr(obj, name)
                except Exception as e:
                    tag(e, node)
                    raise
            return attr_growing
        if name == "elements":  # Counter.elements(): an iterator of sum(counts) items that C loops consume
            rt = self.rt

            def attr_elements(frame):
                obj = value(frame)
                try:
                    return metered_elements(get_attr(obj, name), obj, rt)
                except Exception as e:
                    tag(e, node)
                    raise
            return attr_elements
        if name == "grad":
            rt = self.rt

            def attr_grad(frame):
                obj = value(frame)
                rt.site = node
                try:
                    return get_attr(obj, name)
                except Exception as e:
                    tag(e, node)
                    raise
                finally:
                    rt.site = None
            return attr_grad

        def attr(frame):
            obj = value(frame)
            try:
                return read_attribute(obj, name)
            except Exception as e:
                tag(e, node)
                raise
        attr.gs_method = (value, name)  # e_call fuses obj.name(...) into one closure
        return attr

    def index(self, node, scope):
        """The key of a subscript: slices and tuples of them."""
        if type(node) is A.Slice:
            parts = [node.lower, node.upper, node.step]
            if all(p is None or _is_const(p) for p in parts):
                value = slice(*(None if p is None else p.value for p in parts))
                return lambda frame: value
            lo, hi, st = (self.expr(p, scope) if p is not None else (lambda frame: None) for p in parts)
            return lambda frame: slice(lo(frame), hi(frame), st(frame))
        if type(node) is A.Tuple and any(type(e) is A.Slice for e in node.elts):
            items = [self.index(e, scope) for e in node.elts]
            return lambda frame: tuple([item(frame) for item in items])
        return self.expr(node, scope)

    def e_subscript(self, node, scope):
        value = self.expr(node.value, scope)
        if _is_const(node.index):
            key = node.index.value

            def subscript_const(frame):
                obj = value(frame)
                try:
                    return obj[key]
                except Exception as e:
                    tag(e, node)
                    raise
            return subscript_const
        index = self.index(node.index, scope)

        def subscript(frame):
            obj = value(frame)
            k = index(frame)
            try:
                return obj[k]
            except Exception as e:
                tag(e, node)
                raise
        return subscript

    def e_slice(self, node, scope):
        return self.index(node, scope)

    # ------------------------------------------------------------------ displays
    def _elements(self, elts, scope):
        if all(type(e) is not A.Starred for e in elts):
            parts = [self.expr(e, scope) for e in elts]
            return lambda frame: [p(frame) for p in parts]
        parts = [(type(e) is A.Starred, self.expr(e.value if type(e) is A.Starred else e, scope)) for e in elts]

        def items(frame):
            out = []
            for star, p in parts:
                if star:
                    out.extend(p(frame))
                else:
                    out.append(p(frame))
            return out
        return items

    def _located(self, fn, node):
        def located(frame):
            try:
                return fn(frame)
            except Exception as e:
                tag(e, node)
                raise
        return located

    def e_list(self, node, scope):
        return self._located(self._elements(node.elts, scope), node)

    def e_tuple(self, node, scope):
        if all(_is_const(e) for e in node.elts):
            value = tuple(e.value for e in node.elts)
            return lambda frame: value
        items = self._elements(node.elts, scope)
        return self._located(lambda frame: tuple(items(frame)), node)

    def e_set(self, node, scope):
        items = self._elements(node.elts, scope)
        return self._located(lambda frame: set(items(frame)), node)

    def e_dict(self, node, scope):
        parts = [(None if k is None else self.expr(k, scope), self.expr(v, scope))
                 for k, v in zip(node.keys, node.values)]

        def dict_(frame):
            out = {}
            for k, v in parts:
                if k is None:
                    mapping = v(frame)
                    if not hasattr(type(mapping), "keys"):
                        raise TypeError(f"'{type(mapping).__name__}' object is not a mapping")
                    out.update(mapping)
                else:
                    key = k(frame)
                    out[key] = v(frame)
            return out
        return self._located(dict_, node)

    def e_joinedstr(self, node, scope):
        parts = []
        for v in node.values:
            if type(v) is A.Constant:
                parts.append(lambda frame, s=v.value: s)
            else:
                parts.append(self.e_formattedvalue(v, scope))
        return lambda frame: "".join([p(frame) for p in parts])

    def e_formattedvalue(self, node, scope):
        value = self.expr(node.value, scope)
        conv = {"r": repr, "s": str, "a": ascii}.get(node.conversion)
        spec = self.e_joinedstr(node.format_spec, scope) if node.format_spec is not None else None

        def fmt(frame):
            v = value(frame)
            try:
                if conv is not None:
                    v = conv(v)
                if spec is None:
                    return format(v, "")
                text = spec(frame)
                check_spec(text)
                return format(v, text)
            except Exception as e:
                tag(e, node)
                raise
        return fmt

    def e_starred(self, node, scope):
        raise self.error(node, "SyntaxError", "can't use starred expression here")

    def e_namedexpr(self, node, scope):
        """`(name := value)`: stores and gives the value. Inside a comprehension the name binds in the
        nearest enclosing scope that is not a comprehension (PEP 572), with CPython's errors for what
        that forbids."""
        target = node.target
        name = target.id
        value = self.expr(node.value, scope)
        outer = scope
        while outer.kind == "comprehension":
            if name in outer.locals:
                raise self.error(target, "SyntaxError",
                                 f"assignment expression cannot rebind comprehension iteration variable '{name}'")
            outer = outer.parent
        if outer is scope:
            store = self.name_store(target, scope)
        elif outer.kind == "class":
            raise self.error(target, "SyntaxError",
                             "assignment expression within a comprehension cannot be used in a class body")
        else:
            self.check_name(name, target)
            kind, depth = scope.resolve(name)  # "global", or "free" at the depth of the scope binding it
            if kind == "global":
                G = self.G

                def store(frame, v):
                    G[name] = v
            else:
                def store(frame, v):
                    f = frame
                    for _ in range(depth):
                        f = f.parent
                    f[name] = v

        def named(frame):
            v = value(frame)
            store(frame, v)
            return v
        return named

    # ------------------------------------------------------------------ assignment targets
    def target(self, node, scope):
        """A closure store(frame, value) for an assignment target."""
        t = type(node)
        if t is A.Name:
            return self.name_store(node, scope)
        if t is A.Tuple or t is A.List:
            stars = [i for i, e in enumerate(node.elts) if type(e) is A.Starred]
            if len(stars) > 1:
                raise self.error(node, "SyntaxError", "multiple starred expressions in assignment")
            star = stars[0] if stars else None
            stores = [self.target(e.value if type(e) is A.Starred else e, scope) for e in node.elts]
            n = len(stores)

            def store_unpack(frame, value):
                try:
                    items = unpack(value, n, star)
                except Exception as e:
                    tag(e, node)
                    raise
                for s, v in zip(stores, items):
                    s(frame, v)
            return store_unpack
        if t is A.Attribute:
            name, private = self.check_attr(node, scope)
            obj = self.expr(node.value, scope)
            from .pyvalues import set_attr
            store = set_private if private else set_attr

            def store_attr(frame, value):
                o = obj(frame)
                try:
                    store(o, name, value)
                except Exception as e:
                    tag(e, node)
                    raise
            return store_attr
        if t is A.Subscript:
            obj, index = self.expr(node.value, scope), self.index(node.index, scope)

            def store_item(frame, value):
                o = obj(frame)
                k = index(frame)
                try:
                    o[k] = value
                except Exception as e:
                    tag(e, node)
                    raise
            return store_item
        raise self.error(node, "SyntaxError", f"cannot assign to {type(node).__name__.lower()}")

    def name_store(self, node, scope):
        name = node.id if type(node) is A.Name else node
        where = node if type(node) is A.Name else None
        self.check_name(name, where)
        if scope.kind == "module" or name in scope.globals:
            G = self.G

            def store_global(frame, value):
                G[name] = value
            return store_global
        if name in scope.nonlocals:
            _, depth = scope.resolve(name)

            def store_nonlocal(frame, value):
                f = frame
                for _ in range(depth):
                    f = f.parent
                f[name] = value
            return store_nonlocal

        def store_local(frame, value):
            frame[name] = value
        return store_local


EXPR_METHODS = {
    A.Constant: "e_constant",
    A.Name: "e_name",
    A.BinOp: "e_binop",
    A.UnaryOp: "e_unaryop",
    A.BoolOp: "e_boolop",
    A.Compare: "e_compare",
    A.IfExp: "e_ifexp",
    A.Attribute: "e_attribute",
    A.Subscript: "e_subscript",
    A.Slice: "e_slice",
    A.Call: "e_call",
    A.List: "e_list",
    A.Tuple: "e_tuple",
    A.Set: "e_set",
    A.Dict: "e_dict",
    A.JoinedStr: "e_joinedstr",
    A.FormattedValue: "e_formattedvalue",
    A.Lambda: "e_lambda",
    A.ListComp: "e_listcomp",
    A.SetComp: "e_setcomp",
    A.DictComp: "e_dictcomp",
    A.GeneratorExp: "e_generatorexp",
    A.Starred: "e_starred",
    A.NamedExpr: "e_namedexpr",
}

__all__ = ["ExprCompiler", "EXPR_METHODS", "MAX_NESTING"]
