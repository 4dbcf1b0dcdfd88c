"""Python's operator precedence over the flat operand/operator sequences the grammar reads (`test`,
`or_test`, `expr`: see the grammar's header), as a shunting-yard without recursion; and the error of
an unparenthesised walrus statement, whose target the parser left flat on its stack."""

from __future__ import annotations

from typing import Any, Optional

from . import ast
from .errors import ScriptSyntaxError
from .literals import new_node, set_span
from .targets import walrus_target_error
from .tokens import Token

__all__ = ["operators", "walrus_statement_error", "OPERATOR_TERMINALS", "FLAT_OPERATORS"]

_CMP_PREC = 4
_PREC = {
    "or": 1, "and": 2,
    "<": 4, ">": 4, "==": 4, ">=": 4, "<=": 4, "!=": 4, "in": 4, "not in": 4, "is": 4,
    "is not": 4,
    "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8, "+": 9, "-": 9,
    "*": 10, "/": 10, "//": 10, "%": 10, "@": 10, "**": 12,
}
_UNARY_PREC = 11
_NOT_PREC = 3


def _apply_binary(op: str, prec: int, out: list, open_nodes: set) -> None:
    right = out.pop()
    left = out[-1]
    if prec == _CMP_PREC:
        if id(left) in open_nodes and type(left) is ast.Compare:
            left.ops.append(op)
            left.comparators.append(right)
            left.end_line = right.end_line
            left.end_column = right.end_column
            return
        node = ast.Compare(left, [op], [right])
    elif prec <= 2:
        if id(left) in open_nodes and type(left) is ast.BoolOp and left.op == op:
            left.values.append(right)
            left.end_line = right.end_line
            left.end_column = right.end_column
            return
        node = ast.BoolOp(op, [left, right])
    else:
        node = ast.BinOp(op, left, right)
        out[-1] = set_span(node, left, right)
        return
    open_nodes.add(id(node))
    out[-1] = set_span(node, left, right)


_BINARY_OPS = frozenset(("+", "-", "*", "/", "@", "//", "%", "**", "|", "&", "^", "<<", ">>"))


def operators(c: list) -> Any:
    """Build the tree of a flat operand/operator sequence (shunting-yard, no recursion)."""
    n = len(c)
    if n == 3 and type(c[1]) is Token and type(c[0]) is not Token:
        # `a OP b`: the common case
        op_tok = c[1]
        op = op_tok.value
        left, right = c[0], c[2]
        if op in _BINARY_OPS:
            node = new_node(ast.BinOp)
            node.op, node.left, node.right = op, left, right
            node.line, node.column = left.line, left.column
            node.end_line, node.end_column = right.end_line, right.end_column
            return node
        if op in ("and", "or"):
            return set_span(ast.BoolOp(op, [left, right]), left, right)
        return set_span(ast.Compare(left, [op], [right]), left, right)
    ops: list = []     # (prec, op, token or None for binary)
    out: list = []
    open_nodes: set = set()
    i = 0
    expect_operand = True
    while i < n:
        item = c[i]
        if expect_operand:
            if type(item) is Token:
                if item.type == "NOT":
                    ops.append((_NOT_PREC, "not", item))
                else:
                    ops.append((_UNARY_PREC, item.value, item))
            else:
                out.append(item)
                expect_operand = False
            i += 1
            continue
        ttype = item.type
        if ttype == "NOT":          # NOT IN
            op = "not in"
            i += 2
        elif ttype == "IS" and i + 1 < n and type(c[i + 1]) is Token and c[i + 1].type == "NOT":
            op = "is not"
            i += 2
        else:
            op = item.value
            i += 1
        prec = _PREC[op]
        right_assoc = prec == 12
        while ops:
            top = ops[-1]
            if top[0] > prec or (top[0] == prec and not right_assoc):
                ops.pop()
                if top[2] is None:
                    _apply_binary(top[1], top[0], out, open_nodes)
                else:
                    operand = out[-1]
                    out[-1] = set_span(ast.UnaryOp(top[1], operand), top[2], operand)
            else:
                break
        ops.append((prec, op, None))
        expect_operand = True
    while ops:
        top = ops.pop()
        if top[2] is None:
            _apply_binary(top[1], top[0], out, open_nodes)
        else:
            operand = out[-1]
            out[-1] = set_span(ast.UnaryOp(top[1], operand), top[2], operand)
    return out[0]


def walrus_statement_error(items: list) -> Optional[ScriptSyntaxError]:
    """The error for `target := value` standing unparenthesised as a statement, where the parser
    stopped at ':=' with ``items`` (the operands and operators of `target`, flat) on its stack:
    CPython's "cannot use assignment expressions with ..." for a target that is not a name (None:
    plain "invalid syntax")."""
    if not items or any(type(x) is Token and x.type not in FLAT_OPERATORS for x in items):
        return None
    target = operators(items) if len(items) > 1 else items[0]
    return None if type(target) is ast.Name else walrus_target_error(target)


# the operator terminals between two operands of a flat sequence, and with the prefix ones
OPERATOR_TERMINALS = frozenset({"BINOP", "PLUS", "MINUS", "STAR", "POW", "AT", "IN", "NOT", "IS", "AND", "OR"})
FLAT_OPERATORS = OPERATOR_TERMINALS | {"TILDE"}
