"""Specialised closures for the hot binary operators and comparisons: the operator is written
inline (Python's BINARY_OP, no call through ``operator``), with the size guards of pyops only
where they apply (``+`` on sequences, ``*`` on ints and sequences).

Each returns None when it has no specialisation for the operator; exprs.py then falls back to
the generic ``op(a, b)`` closure.
"""
from __future__ import annotations

from .pyops import INT_NEAR_LIMIT, MAX_INT_BITS, check_add, check_mul
from .strguard import extend_checked, size_check
from .strguard import g_mod
from .runtime import tag

_SEQS = frozenset((str, list, tuple, bytes))
_GUARD_MUL = frozenset((int, str, list, tuple, bytes))
_HALF = 1 << (MAX_INT_BITS // 2)


_NEAR = 1 << (MAX_INT_BITS - 64)  # an int this small times a 64-bit int stays within the limit


def binop(op, left, right, node):
    """left/right are closures."""
    if op == "+":
        def add(frame):
            a = left(frame)
            b = right(frame)
            try:
                ta = type(a)
                if ta in _SEQS or (ta is int and (a > INT_NEAR_LIMIT or a < -INT_NEAR_LIMIT)):
                    check_add(a, b)
                return a + b
            except Exception as e:
                tag(e, node)
                raise
        return add
    if op == "-":
        def sub(frame):
            a = left(frame)
            b = right(frame)
            try:
                return a - b
            except Exception as e:
                tag(e, node)
                raise
        return sub
    if op == "*":
        def mul(frame):
            a = left(frame)
            b = right(frame)
            try:
                ta = type(a)
                tb = type(b)
                if ta is int and tb is int:
                    if not (-_HALF < a < _HALF and -_HALF < b < _HALF):
                        check_mul(a, b)
                elif ta in _GUARD_MUL or tb in _GUARD_MUL:
                    check_mul(a, b)
                return a * b
            except Exception as e:
                tag(e, node)
                raise
        return mul
    if op == "/":
        def div(frame):
            a = left(frame)
            b = right(frame)
            try:
                return a / b
            except Exception as e:
                tag(e, node)
                raise
        return div
    if op == "@":
        def matmul(frame):
            a = left(frame)
            b = right(frame)
            try:
                return a @ b
            except Exception as e:
                tag(e, node)
                raise
        return matmul
    return None


def binop_const(op, left, c, node):
    """The right operand is the constant c."""
    if type(c) is float and op in _FLOAT_OPS:
        return _op_float(op, left, c, node)
    if op == "+":
        if type(c) in _SEQS:
            return None

        def add_c(frame):
            a = left(frame)
            try:
                ta = type(a)
                if ta in _SEQS or (ta is int and (a > INT_NEAR_LIMIT or a < -INT_NEAR_LIMIT)):
                    check_add(a, c)
                return a + c
            except Exception as e:
                tag(e, node)
                raise
        return add_c
    if op == "-":
        def sub_c(frame):
            a = left(frame)
            try:
                return a - c
            except Exception as e:
                tag(e, node)
                raise
        return sub_c
    if op == "*":
        if type(c) is not int or not -(1 << 63) < c < (1 << 63):
            return None

        def mul_int(frame):
            a = left(frame)
            try:
                ta = type(a)
                if ta is int:
                    if a > _NEAR or a < -_NEAR:
                        check_mul(a, c)
                elif ta in _SEQS:
                    check_mul(a, c)
                return a * c
            except Exception as e:
                tag(e, node)
                raise
        return mul_int
    if op == "/":
        def div_c(frame):
            a = left(frame)
            try:
                return a / c
            except Exception as e:
                tag(e, node)
                raise
        return div_c
    if op == "%":
        def mod_c(frame):
            a = left(frame)
            try:
                if type(a) is str or type(a) is bytes:
                    return g_mod(a, c)  # a format: its widths are checked
                return a % c
            except Exception as e:
                tag(e, node)
                raise
        return mod_c
    return None


_FLOAT_OPS = frozenset("+-*/")


def _op_float(op, left, c, node):
    """`x op c` for a float constant c: no size guard applies (a float operand makes no sequence and no
    int: check_add and check_mul pass them all). The closure keeps (left, c, node) as gs_op_float for
    assign_op_float."""
    if op == "+":
        def add_float(frame):
            a = left(frame)
            try:
                return a + c
            except Exception as e:
                tag(e, node)
                raise
        f = add_float
    elif op == "-":
        def sub_float(frame):
            a = left(frame)
            try:
                return a - c
            except Exception as e:
                tag(e, node)
                raise
        f = sub_float
    elif op == "*":
        def mul_float(frame):
            a = left(frame)
            try:
                return a * c
            except Exception as e:
                tag(e, node)
                raise
        f = mul_float
    else:
        def div_float(frame):
            a = left(frame)
            try:
                return a / c
            except Exception as e:
                tag(e, node)
                raise
        f = div_float
    f.gs_op_float = (op, left, c, node)
    return f


_MISSING = object()


def assign_op_float(name, G, value):
    """`name = other op c` (other a local or global name, c a float constant: _op_float's closure as
    value) as one closure instead of three (the assignment, the operator, the name's load): the
    statement of a scalar chain (`y = y * 1.01`). `G` is the globals the name is stored in, or None
    for a local of the frame. The name is read as fastcalls.method_call reads it (a miss runs its
    load closure for the error); None when value is not such an operator."""
    spec = getattr(value, "gs_op_float", None)
    if spec is None:
        return None
    op, left, c, node = spec
    local, src = getattr(left, "gs_name", (False, None))
    if src is None:
        return None
    glob = G is not None
    if op == "*":
        def assign_mul(frame):
            a = (frame if local else G).get(src, _MISSING)
            if a is _MISSING:
                a = left(frame)
            try:
                v = a * c
            except Exception as e:
                tag(e, node)
                raise
            if glob:
                G[name] = v
            else:
                frame[name] = v
        return assign_mul
    if op == "+":
        def assign_add(frame):
            a = (frame if local else G).get(src, _MISSING)
            if a is _MISSING:
                a = left(frame)
            try:
                v = a + c
            except Exception as e:
                tag(e, node)
                raise
            if glob:
                G[name] = v
            else:
                frame[name] = v
        return assign_add
    if op == "-":
        def assign_sub(frame):
            a = (frame if local else G).get(src, _MISSING)
            if a is _MISSING:
                a = left(frame)
            try:
                v = a - c
            except Exception as e:
                tag(e, node)
                raise
            if glob:
                G[name] = v
            else:
                frame[name] = v
        return assign_sub

    def assign_div(frame):
        a = (frame if local else G).get(src, _MISSING)
        if a is _MISSING:
            a = left(frame)
        try:
            v = a / c
        except Exception as e:
            tag(e, node)
            raise
        if glob:
            G[name] = v
        else:
            frame[name] = v
    return assign_div


def compare(op, left, right, node):
    if op == "<":
        def lt(frame):
            a = left(frame)
            b = right(frame)
            try:
                return a < b
            except Exception as e:
                tag(e, node)
                raise
        return lt
    if op == ">":
        def gt(frame):
            a = left(frame)
            b = right(frame)
            try:
                return a > b
            except Exception as e:
                tag(e, node)
                raise
        return gt
    if op == "==":
        def eq(frame):
            a = left(frame)
            b = right(frame)
            try:
                return a == b
            except Exception as e:
                tag(e, node)
                raise
        return eq
    if op == "<=":
        def le(frame):
            a = left(frame)
            b = right(frame)
            try:
                return a <= b
            except Exception as e:
                tag(e, node)
                raise
        return le
    if op == ">=":
        def ge(frame):
            a = left(frame)
            b = right(frame)
            try:
                return a >= b
            except Exception as e:
                tag(e, node)
                raise
        return ge
    if op == "!=":
        def ne(frame):
            a = left(frame)
            b = right(frame)
            try:
                return a != b
            except Exception as e:
                tag(e, node)
                raise
        return ne
    if op == "is":
        def is_(frame):
            return left(frame) is right(frame)
        return is_
    if op == "is not":
        def is_not(frame):
            return left(frame) is not right(frame)
        return is_not
    return None


def augassign_name(op, name, load, rhs, node):
    """``name op= value`` where name lives in the frame dict itself (module or function locals)."""
    if op == "+":
        def iadd(frame):
            try:
                a = frame[name]
            except KeyError:
                a = load(frame)  # raises the NameError / UnboundLocalError
            b = rhs(frame)
            try:
                ta = type(a)
                if ta in _SEQS and hasattr(b, "__len__"):
                    size_check(len(a) + len(b))
                    a += b
                elif ta is list:  # l += iter(l), which never ended: l.extend's check, as it is consumed
                    extend_checked(a, b)
                else:
                    if ta is int and (a > INT_NEAR_LIMIT or a < -INT_NEAR_LIMIT):
                        check_add(a, b)
                    a += b
            except Exception as e:
                tag(e, node)
                raise
            frame[name] = a
        return iadd
    if op == "-":
        def isub(frame):
            try:
                a = frame[name]
            except KeyError:
                a = load(frame)
            b = rhs(frame)
            try:
                a -= b
            except Exception as e:
                tag(e, node)
                raise
            frame[name] = a
        return isub
    return None
