"""The builder's reducers of the two lists in parentheses: a def's or lambda's parameters and a call's
arguments, with CPython's errors on their order (``parameters``, ``arguments``). A mixin of
``builder._Builder``: the rules and aliases of grammar/gradscript.lark it reduces are its methods'
names (param, param_default, ..., kwarg, star_arg, dstar_arg)."""

from __future__ import annotations

from typing import Optional

from . import ast
from .literals import ident, set_span
from .targets import check_not_starred
from .tokenizer import error_at as _error_at
from .tokens import Token

__all__ = ["Params", "Args", "SignatureReducers"]


class Params:
    """Parameters of a def or lambda while they are being parsed."""

    __slots__ = ("params", "defaults", "vararg", "kwarg", "kwonly", "kw_defaults", "annotations")

    def __init__(self) -> None:
        self.params: list[str] = []
        self.defaults: list = []
        self.vararg: Optional[str] = None
        self.kwarg: Optional[str] = None
        self.kwonly: list[str] = []
        self.kw_defaults: list = []
        self.annotations: dict = {}


class Args:
    """The arguments of a call while they are being parsed."""

    __slots__ = ("args", "keywords")

    def __init__(self, args: list, keywords: list) -> None:
        self.args = args
        self.keywords = keywords


class SignatureReducers:
    """The parameter and argument lists' reducers (see the module docstring)."""

    def parameters(self, c: list) -> Params:
        p = Params()
        seen: set = set()
        after_star = False
        bare_star: Optional[Token] = None
        for kind, tok, annotation, default in c:
            if p.kwarg is not None:
                raise _error_at("arguments cannot follow var-keyword argument", tok)
            if kind == "*":
                if after_star:
                    raise _error_at("* argument may appear only once", tok)
                after_star = True
                if tok.type == "STAR":
                    bare_star = tok
                    continue
            name = ident(tok)
            if name in seen:
                raise _error_at("duplicate argument '%s' in function definition" % name, tok)
            seen.add(name)
            if annotation is not None:
                p.annotations[name] = annotation
            if kind == "*":
                p.vararg = name
            elif kind == "**":
                if bare_star is not None and not p.kwonly:
                    raise _error_at("named arguments must follow bare *", bare_star)
                p.kwarg = name
            elif after_star:
                p.kwonly.append(name)
                p.kw_defaults.append(default)
            else:
                if default is None and p.defaults:
                    raise _error_at("non-default argument follows default argument", tok)
                p.params.append(name)
                if default is not None:
                    p.defaults.append(default)
        if bare_star is not None and not p.kwonly:
            raise _error_at("named arguments must follow bare *", bare_star)
        return p

    lambda_params = parameters

    def param(self, c: list) -> tuple:
        return ("", c[0], None, None)

    def param_default(self, c: list) -> tuple:
        return ("", c[0], None, c[1])

    def param_ann(self, c: list) -> tuple:
        return ("", c[0], c[1], None)

    def param_ann_default(self, c: list) -> tuple:
        return ("", c[0], c[1], c[2])

    def star_param(self, c: list) -> tuple:
        if len(c) == 1:
            return ("*", c[0], None, None)
        return ("*", c[1], c[2] if len(c) > 2 else None, None)

    def kw_param(self, c: list) -> tuple:
        return ("**", c[1], c[2] if len(c) > 2 else None, None)

    def arguments(self, c: list) -> Args:
        args: list = []
        keywords: list = []
        seen: set = set()
        dstar = False
        for item in c:
            t = type(item)
            if t is ast.Keyword:
                if item.arg is None:
                    dstar = True
                else:
                    if item.arg in seen:
                        raise _error_at("keyword argument repeated: %s" % item.arg, item)
                    seen.add(item.arg)
                keywords.append(item)
            elif t is ast.Starred:
                if dstar:
                    raise _error_at("iterable argument unpacking follows keyword argument "
                                    "unpacking", item)
                args.append(item)
            else:
                if dstar:
                    raise _error_at("positional argument follows keyword argument unpacking",
                                    item)
                if keywords:
                    raise _error_at("positional argument follows keyword argument", item,
                                    hint="put positional arguments before name=value ones")
                args.append(item)
        return Args(args, keywords)

    def genexp_arg(self, c: list) -> Args:
        check_not_starred(c[0])
        gens = c[1]
        return Args([set_span(ast.GeneratorExp(c[0], gens), c[0], gens[-1])], [])

    def kwarg(self, c: list) -> ast.Keyword:
        return set_span(ast.Keyword(ident(c[0]), c[1]), c[0], c[1])

    def star_arg(self, c: list) -> ast.Starred:
        return set_span(ast.Starred(c[1]), c[0], c[1])

    def dstar_arg(self, c: list) -> ast.Keyword:
        return set_span(ast.Keyword(None, c[1]), c[0], c[1])
