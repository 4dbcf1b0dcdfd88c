"""The Tensor's Python operators, derived from the op declarations: an op declared with
`operator="+"` (ops/registry.py) is `x + y`, and, by the rules below (how torch's Tensor answers
each kind of operator), `y + x` (`__radd__`) and `x += y` (`__iadd__`).

The rules, by kind of operator:
- arithmetic (+ - * / // % **): `x OP y` takes a Tensor or a number (a NumPy array or scalar
  becomes one); anything else is NotImplemented (Python then asks the other operand). `y OP x`
  refuses a NumPy array on the left (NotImplemented, as torch's reflected operators do), except
  `/`, whose reflected form torch defines as `reciprocal() * other`; it is the declaration's
  `reflected` function, or the op itself when it commutes (`reflected=True`), else the op with
  its operands swapped. `x OP= y` is the in-place method `x.NAME_(y)` (a NumPy array: NotImplemented,
  so Python computes `x = x OP array`). `+ - * /` of 0-d operands take the engine's scalar path
  (`elementwise_common.scalar_operator`).
- `@`: Tensors only, both ways; `x @= y` writes the product back into x.
- bitwise (& | ^ << >>): `x OP y` is the op itself; `y OP x` as arithmetic's; `x OP= y` checks the
  output as TensorIterator does, then writes the op's result back (an operand of another type:
  NotImplemented).
- comparisons (== != < <= > >=): the op itself; all but `==` refuse a NumPy array. Python reflects
  them by itself (`y < x` is `x > y`).
- unary (`-x`, `+x`, `abs(x)`, `~x`): the op itself; `~` of a bool tensor is `logical_not`, of a
  float tensor torch's TypeError.
- indexing (`x[k]`: "[]", `x[k] = v`: "[]="): the op itself.
"""
from __future__ import annotations

import operator as _py

import numpy as np

from .autograd import forward_level
from .function import complete_kw
from .ops import elementwise_common as EC
from .ops import inplace as P
from .ops import registry
from .tensor import Tensor

ARITHMETIC = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow"}
BITWISE = {"&": "and", "|": "or", "^": "xor", "<<": "lshift", ">>": "rshift"}
COMPARISON = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
UNARY = {"-x": "neg", "+x": "pos", "abs": "abs", "~": "invert"}
ITEM = {"[]": "getitem", "[]=": "setitem"}
SYMBOLS = frozenset({*ARITHMETIC, *BITWISE, *COMPARISON, *UNARY, *ITEM, "@"})

# the scalar path's Python operator, and its node's kw for a number / a 0-d tensor operand (the
# alpha ops keep (shape of x, shape of y or None for a number, alpha))
_SCALAR = {"+": (_py.add, ((), None, 1), ((), (), 1)), "-": (_py.sub, ((), None, 1), ((), (), 1)),
           "*": (_py.mul, None, None), "/": (_py.truediv, None, None)}


def forms(spec):
    """The Tensor dunders of the declared op `spec` (its `operator`): name -> function."""
    sym, fn = spec.operator, spec.fn
    if sym in ITEM:
        return {f"__{ITEM[sym]}__": fn}
    if sym in UNARY:
        return {f"__{UNARY[sym]}__": _invert(fn) if sym == "~" else fn}
    if sym in COMPARISON:
        return {f"__{COMPARISON[sym]}__": _operands_only(fn) if sym == "==" else _refusing_arrays(_operands_only(fn))}
    reflected = fn if spec.reflected is True else spec.reflected or (lambda x, y: fn(y, x))
    if sym == "@":
        # no __imatmul__, as torch's Tensor has none: x @= y is x = x @ y (a new tensor; for a y that is no
        # Tensor, Python's '@=' TypeError)
        return {"__matmul__": _binop(fn, tensors_only=True), "__rmatmul__": _rop(reflected, tensors_only=True)}
    if sym in BITWISE:
        stem = BITWISE[sym]
        return {f"__{stem}__": _operands_only(fn), f"__r{stem}__": _rop(reflected),
                f"__i{stem}__": _refusing_others(P.bitwise_inplace(fn))}
    stem = ARITHMETIC[sym]
    forward = _scalar_operator(sym, spec) if sym in _SCALAR else _binop(fn, power=sym == "**")
    if spec.reflected is True:  # it commutes: y OP x is x OP y (with its scalar path)
        back = _refusing_arrays(forward)
    else:
        back = _rop(reflected, ndarray_ok=sym == "/")
    return {f"__{stem}__": forward, f"__r{stem}__": back, f"__i{stem}__": _iop(spec.name + "_")}


def install(specs):
    """Bind the operators of every declaration in `specs` that has one to Tensor."""
    seen = {}
    for spec in specs:  # checked before anything is bound
        if not spec.operator:
            continue
        if spec.operator not in SYMBOLS:
            raise ValueError(f"op {spec.name}: no Python operator {spec.operator!r} (operators.SYMBOLS)")
        if seen.setdefault(spec.operator, spec) is not spec:
            raise ValueError(f"operator {spec.operator} declared by {seen[spec.operator].name} and {spec.name}")
    for spec in seen.values():
        for name, function in forms(spec).items():
            setattr(Tensor, name, function)


def _scalar_operator(sym, spec):
    """`x + y` & co.: 0-d scalar chains computed and recorded in one call (elementwise_common.scalar_operator),
    the rest straight to the kernel (+ and *: a number or a Tensor) or to the op."""
    op, kw_number, kw_tensor = _SCALAR[sym]
    fn, cls = spec.fn, spec.nodes[0]
    binary, coerce = EC.binary, EC.coerce
    if sym == "+":
        def slow(a, b):
            c = b.__class__
            if c is float or c is int or c is Tensor:
                r = binary(cls, a, b)
                node = r.grad_fn
                if node is not None:  # the node keeps the input shapes (to reduce a broadcast gradient)
                    node._kw = (a._data.shape, b._data.shape if c is Tensor else None, 1)
                if forward_level[0] is not None:  # and the shadow node of r's tangent (forward_ad.py)
                    kw = (a._data.shape, b._data.shape if c is Tensor else None, 1)
                    complete_kw(r, cls, lambda _: kw)
                return r
            b = coerce(b)
            return b if b is NotImplemented else fn(a, b)
    elif sym == "*":
        def slow(a, b):
            c = b.__class__
            if c is float or c is int or c is Tensor:
                return binary(cls, a, b)
            b = coerce(b)
            return b if b is NotImplemented else fn(a, b)
    else:
        def slow(a, b):
            c = b.__class__
            if c is not float and c is not int and c is not Tensor:
                b = coerce(b)
                if b is NotImplemented:
                    return b
            return fn(a, b)
    return EC.scalar_operator(f"__{ARITHMETIC[sym]}__", cls, op, slow, kw_number, kw_tensor)


def _binop(fn, tensors_only=False, power=False):
    def binop(a, b):
        b = EC.coerce(b)
        if b is NotImplemented or (tensors_only and not isinstance(b, Tensor)):
            return NotImplemented
        return fn(a, b)
    if power:  # pow(x, y, m) calls __pow__(x, y, m)
        return lambda a, b, m=None: binop(a, b)
    return binop


def _rop(fn, tensors_only=False, ndarray_ok=False):
    """b OP a, computed as fn(a, b)."""
    def rop(a, b):
        if not ndarray_ok and isinstance(b, np.ndarray):
            return NotImplemented
        b = EC.coerce(b)
        if b is NotImplemented or (tensors_only and not isinstance(b, Tensor)):
            return NotImplemented
        return fn(a, b)
    return rop


def _operands_only(fn):
    """x OP y for a comparison or bitwise op: NotImplemented for a y that is no Tensor, number or NumPy value
    (x == 'a' is False, x < 'a' Python's TypeError), which the op itself refuses as torch's parser does."""
    coerce = EC.coerce

    def op(a, b):
        c = b.__class__
        if c is not Tensor and c is not float and c is not int:
            b = coerce(b)
            if b is NotImplemented:
                return b
        return fn(a, b)
    return op


def _refusing_arrays(fn):
    def op(a, b):
        return NotImplemented if isinstance(b, np.ndarray) else fn(a, b)
    return op


def _refusing_others(inplace):
    """x OP= y for a y that is no Tensor, number or NumPy value: NotImplemented (Python then tries x OP y,
    which refuses it too, and raises its TypeError)."""
    def op(a, b):
        return NotImplemented if EC.coerce(b) is NotImplemented else inplace(a, b)
    return op


def _iop(method):
    def op(self, other):
        if isinstance(other, np.ndarray):  # torch: x += array falls back to x = x + array
            return NotImplemented
        other = EC.coerce(other)
        if other is NotImplemented:
            return NotImplemented
        return getattr(self, method)(other)
    return op


def _invert(bitwise_not):
    def invert(a):
        if a.dtype.name == "bool":
            return registry.REGISTRY["logical_not"].fn(a)
        if a.dtype.is_floating_point:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return bitwise_not(a)
    return invert
