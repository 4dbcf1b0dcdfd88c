"""Local derivatives in words, keyed by node name, for the chain-rule walkthrough.

Each entry gives, for input k of a node, what the node multiplies the incoming gradient by,
written with the script's names and numbers: for ``x2 = x1 * w1`` the MulBackward0 entry says
``d(x2)/d(x1) = w1 = 5``. An entry returns a :class:`Local`:

- ``formula``: the derivative in symbols (``w1``, ``2 * x``, ``grad @ w.T``);
- ``value``: its numeric value when it is an elementwise factor (an array or a number), else None;
- ``factor``: the symbolic factor for the chain written under each leaf (``-1 * w2 * w1``), or None
  when the step is not an elementwise product (a matrix product, a softmax): the chain is then
  shown by its numbers only.

Nodes without an entry get the generic line "local Jacobian-vector product of XBackward0".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .values import num


@dataclass
class Local:
    formula: str
    value: object = None
    factor: str | None = None


def _p(sym: str) -> str:
    """sym in parentheses when it is more than a name or a number."""
    s = sym.strip()
    if not s or s.replace(".", "").replace("_", "").replace("[", "").replace("]", "").replace("'", "").isalnum():
        return s
    if s.startswith("-") and s[1:].replace(".", "").isalnum():
        return s
    depth = 0
    for i, c in enumerate(s):
        depth += c in "([" and 1 or (-1 if c in ")]" else 0)
        if depth == 0 and c in " +-*/@" and i > 0:
            return f"({s})"
    return s


def _same(f, value=None):
    return Local(f, value, f)


def _ratio(ctx, k):
    """The elementwise factor in_grad / grad (exact for elementwise unary ops where grad != 0)."""
    gi, go = ctx.in_grad(k), ctx.grad_in(0)
    if gi is None or go is None or gi.shape != go.shape or go.size == 0:
        return None
    with np.errstate(all="ignore"):
        if np.all(go != 0):
            return gi / go
    return None


# ----------------------------------------------------------------------------- entries
def _add(ctx, k):
    kw = ctx.kw
    alpha = kw[2] if isinstance(kw, tuple) and len(kw) == 3 else (kw or {}).get("alpha", 1) if isinstance(kw, dict) else 1
    if k == 0 or alpha == 1:
        return _same("1", 1)
    return _same(num(alpha), alpha)


def _sub(ctx, k):
    kw = ctx.kw
    alpha = kw[2] if isinstance(kw, tuple) and len(kw) == 3 else (kw or {}).get("alpha", 1) if isinstance(kw, dict) else 1
    if k == 0:
        return _same("1", 1)
    return _same("-1" if alpha == 1 else num(-alpha), -alpha)


def _rsub1(ctx, k):
    alpha = (ctx.kw or {}).get("alpha", 1) if isinstance(ctx.kw, dict) else 1
    return _same("-1" if alpha == 1 else num(-alpha), -alpha)


def _rsub0(ctx, k):
    return _same("-1", -1) if k == 0 else _same("1", 1)


def _mul(ctx, k):
    other = 1 - k
    return Local(ctx.sym(other), ctx.val(other), _p(ctx.sym(other)))


def _div(ctx, k):
    a, b = ctx.sym(0), ctx.sym(1)
    va, vb = ctx.val(0), ctx.val(1)
    if k == 0:
        v = None if vb is None else 1 / np.asarray(vb, dtype=np.float64)
        f = f"1 / {_p(b)}"
        return Local(f, v, f)
    v = None if va is None or vb is None else -np.asarray(va, np.float64) / np.asarray(vb, np.float64) ** 2
    f = f"-{_p(a)} / {_p(b)}**2"
    return Local(f, v, f"({f})")


def _neg(ctx, k):
    return _same("-1", -1)


def _pow0(ctx, k):
    p = (ctx.kw or {}).get("exponent") if isinstance(ctx.kw, dict) else None
    a = _p(ctx.sym(0))
    if p is None:
        return Local(f"d/d{a} of {a}**p", _ratio(ctx, 0))
    va = ctx.val(0)
    if p == 2:
        f = f"2 * {a}"
    elif p == 1:
        f = "1"
    else:
        f = f"{num(p)} * {a}**{num(p - 1) if p - 1 >= 0 else '(' + num(p - 1) + ')'}"
    v = None
    if va is not None:
        with np.errstate(all="ignore"):
            v = p * np.asarray(va, np.float64) ** (p - 1)
    return Local(f, v if v is not None else _ratio(ctx, 0), f if p in (1, 2) else f"({f})")


def _pow1(ctx, k):
    a, b = _p(ctx.sym(0)), _p(ctx.sym(1))
    if k == 0:
        f = f"{b} * {a}**({b} - 1)"
    else:
        f = f"{a}**{b} * log({a})"
    return Local(f, None, f"({f})")


def _pow2(ctx, k):
    base = (ctx.kw or {}).get("base") if isinstance(ctx.kw, dict) else None
    y = _p(ctx.sym(0))
    f = f"{num(base)}**{y} * log({num(base)})" if base is not None else f"base**{y} * log(base)"
    return Local(f, _ratio(ctx, 0), f"({f})")


def _declared(words, factor):
    """The words a node class declares (`explain`: one template, or one per input), written with the
    symbols of its inputs ({a}, {b}, {c}; {pa}: in parentheses when needed) and its keyword values
    ({kw[name]}). factor (`explain_factor`): the words are the chain's factor (True), a factor of
    their own (a string), or none (False: not an elementwise product)."""
    def entry(ctx, k):
        template = words[k] if isinstance(words, tuple) else words
        syms = {}
        for i, letter in enumerate("abc"):
            if "{" + letter in template or "{p" + letter in template:
                syms[letter] = ctx.sym(i)
                syms["p" + letter] = _p(syms[letter])
        kw = {key: num(v) if isinstance(v, (int, float)) else v for key, v in (ctx.kw or {}).items()} \
            if isinstance(ctx.kw, dict) else {}
        f = template.format(kw=kw, **syms)
        return Local(f, _ratio(ctx, k), factor if isinstance(factor, str) else _p(f) if factor else None)
    return entry


def _sum(ctx, k):
    return Local(f"1 for every element of {_p(ctx.sym(0))}", 1, "1")


def _mean(ctx, k):
    kw = ctx.kw if isinstance(ctx.kw, dict) else {}
    shape = kw.get("in_shape") or ()
    n = 1
    if "dims" in kw and kw.get("dims") is not None:
        for d in kw["dims"]:
            n *= shape[d] if shape else 1
    else:
        for s in shape:
            n *= s
    return Local(f"1/{n} for every element of {_p(ctx.sym(0))}", 1 / n if n else None, f"1/{n}")


def _same_values(what):
    def entry(ctx, k):
        return Local(f"1 ({what}: the gradient is passed back {'reshaped' if 'shape' in what else 'as it is'})",
                     None, "1")
    return entry


def _moves(what):
    def entry(ctx, k):
        return Local(f"1 at each element's new position ({what})", None, None)
    return entry


def _mm(ctx, k):
    a, b = _p(ctx.sym(0)), _p(ctx.sym(1))
    return Local(f"grad @ {b}.T" if k == 0 else f"{a}.T @ grad", None, None)


def _addmm(ctx, k):
    m1, m2 = _p(ctx.sym(1)), _p(ctx.sym(2))
    if k == 0:
        return Local("1, summed over the rows (bias)", None, None)
    return Local(f"grad @ {m2}.T" if k == 1 else f"{m1}.T @ grad", None, None)


def _mv(ctx, k):
    a, b = _p(ctx.sym(0)), _p(ctx.sym(1))
    return Local(f"outer(grad, {b})" if k == 0 else f"{a}.T @ grad", None, None)


def _dot(ctx, k):
    other = 1 - k
    return Local(ctx.sym(other), ctx.val(other), _p(ctx.sym(other)))


def _mse(ctx, k):
    kw = ctx.kw if isinstance(ctx.kw, dict) else {}
    red = kw.get("reduction", "mean")
    a, b = _p(ctx.sym(0)), _p(ctx.sym(1))
    n = ""
    if red == "mean":
        gi = ctx.in_grad(k)
        n = f" / {gi.size}" if gi is not None else " / N"
    f = f"2 * ({a} - {b}){n}" if k == 0 else f"-2 * ({a} - {b}){n}"
    return Local(f, None, None)


def _select(ctx, k):
    return Local("1 at the selected elements, 0 elsewhere", None, None)


def _softmax(ctx, k):
    return Local("softmax Jacobian: y * (grad - (grad * y).sum(dim))", None, None)


def _log_softmax(ctx, k):
    return Local("log_softmax Jacobian: grad - exp(y) * grad.sum(dim)", None, None)


def _nll(ctx, k):
    return Local("-1 at each row's target class (divided by the batch size for mean), 0 elsewhere", None, None)


def _cat(ctx, k):
    return Local(f"1 on input {k}'s slice of the result", None, None)


TABLE = {
    "AddBackward0": _add, "SubBackward0": _sub, "RsubBackward1": _rsub1, "RsubBackward0": _rsub0,
    "MulBackward0": _mul, "DivBackward0": _div, "NegBackward0": _neg,
    "PowBackward0": _pow0, "PowBackward1": _pow1, "PowBackward2": _pow2,
    "SumBackward0": _sum, "SumBackward1": _sum, "MeanBackward0": _mean, "MeanBackward1": _mean,
    "ViewBackward0": _same_values("a view with another shape"),
    "UnsafeViewBackward0": _same_values("a reshape"), "CloneBackward0": _same_values("a copy"),
    "ToCopyBackward0": _same_values("a copy to another dtype or device"), "AliasBackward0": _same_values("an alias"),
    "SqueezeBackward0": _same_values("a squeeze of the shape"), "SqueezeBackward1": _same_values("a squeeze of the shape"),
    "UnsqueezeBackward0": _same_values("an unsqueeze of the shape"),
    "ExpandBackward0": _moves("an expand: the gradient is summed over the repeated elements"),
    "TBackward0": _moves("a transpose"), "TransposeBackward0": _moves("a transpose"),
    "PermuteBackward0": _moves("a permutation of the dimensions"),
    "MmBackward0": _mm, "AddmmBackward0": _addmm, "MvBackward0": _mv, "DotBackward0": _dot,
    "MseLossBackward0": _mse, "SelectBackward0": _select, "SliceBackward0": _select, "IndexBackward0": _select,
    "SoftmaxBackward0": _softmax, "LogSoftmaxBackward0": _log_softmax, "NllLossBackward0": _nll,
    "CatBackward0": _cat, "StackBackward0": _cat,
}

# How an unnamed result is written from its inputs' symbols (for the walkthrough's d(...)/d(...)).
EXPR = {
    "AddBackward0": "{0} + {1}", "SubBackward0": "{0} - {1}", "MulBackward0": "{0} * {1}",
    "DivBackward0": "{0} / {1}", "NegBackward0": "-{0}", "RsubBackward1": "c - {0}",
    "ExpBackward0": "exp({0})", "LogBackward0": "log({0})", "SinBackward0": "sin({0})",
    "CosBackward0": "cos({0})", "TanhBackward0": "tanh({0})", "SigmoidBackward0": "sigmoid({0})",
    "ReluBackward0": "relu({0})", "SqrtBackward0": "sqrt({0})", "AbsBackward0": "abs({0})",
    "SumBackward0": "{0}.sum()", "SumBackward1": "{0}.sum(dim)", "MeanBackward0": "{0}.mean()",
    "MeanBackward1": "{0}.mean(dim)", "MmBackward0": "{0} @ {1}", "TBackward0": "{0}.T",
    "DotBackward0": "{0}.dot({1})", "MvBackward0": "{0} @ {1}", "AddmmBackward0": "{1} @ {2} + {0}",
}


def words_of(node) -> object:
    """The entry for a node: its class's declared words (`explain`), else this module's TABLE."""
    words = getattr(type(node), "explain", None)
    if words is not None:
        return _declared(words, getattr(type(node), "explain_factor", True))
    return TABLE.get(type(node).__name__)


def local_derivative(ctx, k) -> Local:
    node = getattr(ctx, "node", None)
    entry = TABLE.get(ctx.name) if node is None else words_of(node)
    if entry is None:
        return Local(f"local Jacobian-vector product of {ctx.name} (no formula in words)", None, None)
    try:
        return entry(ctx, k)
    except Exception:  # noqa: BLE001 - words are a nicety; an odd node gets the generic line
        return Local(f"local Jacobian-vector product of {ctx.name}", None, None)


def expression(name: str, args: list, kw=None) -> str | None:
    """The result of node `name` written from its inputs' symbols, or None."""
    if name == "PowBackward0" and isinstance(kw, dict) and "exponent" in kw and args:
        return f"{_p(args[0])}**{num(kw['exponent'])}"
    template = EXPR.get(name)
    if template is None:
        return None
    try:
        return template.format(*[_p(a) for a in args])
    except (IndexError, KeyError):
        return None
