"""What may stand where a target stands, in CPython's words: the builder's checks of assignment,
deletion, loop and walrus targets (the grammar reads any expression there), and the error for a
Python keyword GradScript lacks."""

from __future__ import annotations

from typing import Any, Optional

from . import ast
from .errors import ScriptSyntaxError
from .keywords import PYTHON_ONLY
from .tokenizer import error_at as _error_at
from .tokens import Token

__all__ = ["expr_name", "SIMPLE_TARGETS", "check_target", "check_not_starred", "walrus_target_error",
           "unsupported_error"]

_EXPR_NAMES = {
    ast.Attribute: "attribute", ast.Subscript: "subscript", ast.Starred: "starred",
    ast.Name: "name", ast.List: "list", ast.Tuple: "tuple", ast.Lambda: "lambda",
    ast.Call: "function call", ast.BoolOp: "expression", ast.BinOp: "expression",
    ast.UnaryOp: "expression", ast.GeneratorExp: "generator expression",
    ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension", ast.Dict: "dict literal", ast.Set: "set display",
    ast.JoinedStr: "f-string expression", ast.FormattedValue: "f-string expression",
    ast.Compare: "comparison", ast.IfExp: "conditional expression", ast.Slice: "slice",
}


def expr_name(node: Any) -> str:
    if type(node) is ast.Constant:
        v = node.value
        if v is None or v is True or v is False:
            return str(v)
        if v is Ellipsis:
            return "ellipsis"
        return "literal"
    return _EXPR_NAMES.get(type(node), "expression")


SIMPLE_TARGETS = (ast.Name, ast.Attribute, ast.Subscript)


def check_target(node: Any, verb: str = "assign to", hint_eq: bool = False,
                  nested: bool = False) -> None:
    """Raise the CPython error for a node that cannot be assigned to (or deleted)."""
    t = type(node)
    if t in SIMPLE_TARGETS:
        return
    if t is ast.Tuple or t is ast.List:
        starred = 0
        for elt in node.elts:
            if type(elt) is ast.Starred:
                if verb == "delete":
                    raise _error_at("cannot delete starred", elt)
                starred += 1
                if starred > 1:
                    raise _error_at("multiple starred expressions in assignment", node)
                check_target(elt.value, verb, nested=True)
            else:
                check_target(elt, verb, nested=True)
        return
    if t is ast.Starred:
        if verb == "delete":
            raise _error_at("cannot delete starred", node)
        raise _error_at("starred assignment target must be in a list or tuple", node)
    name = expr_name(node)
    message = "cannot %s %s" % (verb, name)
    hint = None
    if hint_eq and not nested and t in (ast.Constant, ast.Call, ast.BinOp, ast.UnaryOp) \
            and name not in ("True", "False", "None"):
        message += " here. Maybe you meant '==' instead of '='?"
    elif verb == "assign to":
        hint = "only names, attributes (x.a), items (x[i]) and tuples of them can be assigned to"
    raise _error_at(message, node, hint=hint)


def check_not_starred(node: Any) -> None:
    if type(node) is ast.Starred:
        raise _error_at("can't use starred expression here", node)


def walrus_target_error(target: Any) -> Optional[ScriptSyntaxError]:
    """CPython's error for the target of `target := value` when it is not a plain name (None for a
    name). A parenthesised name's span includes its parentheses: `((a) := 1)` is an error too."""
    if type(target) is ast.Name and not (target.id.isascii() and (
            target.end_line != target.line or target.end_column - target.column != len(target.id))):
        return None
    return _error_at("cannot use assignment expressions with %s" % expr_name(target), target)


def unsupported_error(tok: Token) -> ScriptSyntaxError:
    return _error_at("'%s' is not supported in GradScript" % tok.value, tok,
                     hint="GradScript is a subset of Python without %s"
                     % PYTHON_ONLY[tok.value])
