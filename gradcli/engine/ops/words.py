"""The words of `gradcli run --explain` that need code rather than a template, which node classes
name as their `explain` (engine/ops/registry.py); a template (`"1 / (1 + {a})"`) is the rest's.

An entry is explain(w, k) -> (formula, value, factor) for input k of a node: the local derivative in
symbols, its numeric value when it is an elementwise factor (else None), and the factor written in
the chain under each leaf (None when the step is not an elementwise product). `w` is the
walkthrough's view of the node (graph/explain.py): w.sym(i) the symbol of input i, w.val(i) its
value, w.kw the node's kw, w.in_grad(k) / w.grad_in(i) the gradients, w.num(x) a number as a person
writes it. A node's `expression` (a template over its inputs' symbols, "{0} + {1}", or a function
expression(args, kw, num)) writes an unnamed result from its inputs."""
from __future__ import annotations

import numpy as np


def p(sym: str) -> str:
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


def ratio(w, k):
    """The elementwise factor in_grad / grad (exact for elementwise unary ops where grad != 0)."""
    gi, go = w.in_grad(k), w.grad_in(0)
    if gi is None or go is None or gi.shape != go.shape or go.size == 0:
        return None
    with np.errstate(all="ignore"):
        if np.all(go != 0):
            return gi / go
    return None


def _same(f, value=None):
    return (f, value, f)


def _alpha(kw):
    """add/sub's alpha: the operators' kw is (shape of a, shape of b, alpha), the functions' a dict."""
    if isinstance(kw, tuple) and len(kw) == 3:
        return kw[2]
    return (kw or {}).get("alpha", 1) if isinstance(kw, dict) else 1


def add(w, k):
    alpha = _alpha(w.kw)
    if k == 0 or alpha == 1:
        return _same("1", 1)
    return _same(w.num(alpha), alpha)


def sub(w, k):
    alpha = _alpha(w.kw)
    if k == 0:
        return _same("1", 1)
    return _same("-1" if alpha == 1 else w.num(-alpha), -alpha)


def rsub1(w, k):
    alpha = (w.kw or {}).get("alpha", 1) if isinstance(w.kw, dict) else 1
    return _same("-1" if alpha == 1 else w.num(-alpha), -alpha)


def rsub0(w, k):
    return _same("-1", -1) if k == 0 else _same("1", 1)


def mul(w, k):
    """a * b (and dot): the other input."""
    other = 1 - k
    return (w.sym(other), w.val(other), p(w.sym(other)))


def div(w, k):
    a, b = w.sym(0), w.sym(1)
    va, vb = w.val(0), w.val(1)
    if k == 0:
        v = None if vb is None else 1 / np.asarray(vb, dtype=np.float64)
        f = f"1 / {p(b)}"
        return (f, v, f)
    v = None if va is None or vb is None else -np.asarray(va, np.float64) / np.asarray(vb, np.float64) ** 2
    f = f"-{p(a)} / {p(b)}**2"
    return (f, v, f"({f})")


def neg(w, k):
    return _same("-1", -1)


def pow0(w, k):
    e = (w.kw or {}).get("exponent") if isinstance(w.kw, dict) else None
    a = p(w.sym(0))
    if e is None:
        return (f"d/d{a} of {a}**p", ratio(w, 0), None)
    va = w.val(0)
    if e == 2:
        f = f"2 * {a}"
    elif e == 1:
        f = "1"
    else:
        f = f"{w.num(e)} * {a}**{w.num(e - 1) if e - 1 >= 0 else '(' + w.num(e - 1) + ')'}"
    v = None
    if va is not None:
        with np.errstate(all="ignore"):
            v = e * np.asarray(va, np.float64) ** (e - 1)
    return (f, v if v is not None else ratio(w, 0), f if e in (1, 2) else f"({f})")


def pow_expression(args, kw, num):
    """x ** 2 written as such (PowBackward0's result)."""
    if isinstance(kw, dict) and "exponent" in kw and args:
        return f"{p(args[0])}**{num(kw['exponent'])}"
    return None


def pow1(w, k):
    a, b = p(w.sym(0)), p(w.sym(1))
    f = f"{b} * {a}**({b} - 1)" if k == 0 else f"{a}**{b} * log({a})"
    return (f, None, f"({f})")


def pow2(w, k):
    base = (w.kw or {}).get("base") if isinstance(w.kw, dict) else None
    y = p(w.sym(0))
    f = f"{w.num(base)}**{y} * log({w.num(base)})" if base is not None else f"base**{y} * log(base)"
    return (f, ratio(w, 0), f"({f})")


def summed(w, k):
    return (f"1 for every element of {p(w.sym(0))}", 1, "1")


def mean(w, k):
    kw = w.kw if isinstance(w.kw, dict) else {}
    shape = kw.get("in_shape") or ()
    n = 1
    if "dims" in kw and kw.get("dims") is not None:
        for d in kw["dims"]:
            n *= shape[d] if shape else 1
    else:
        for s in shape:
            n *= s
    return (f"1/{n} for every element of {p(w.sym(0))}", 1 / n if n else None, f"1/{n}")


def same_values(what):
    """A view or copy: the gradient passes back as it is (or reshaped)."""
    def entry(w, k):
        return (f"1 ({what}: the gradient is passed back {'reshaped' if 'shape' in what else 'as it is'})", None, "1")
    return entry


def moves(what):
    """A view that moves elements: each gradient element goes back to its element's old place."""
    def entry(w, k):
        return (f"1 at each element's new position ({what})", None, None)
    return entry


def mm(w, k):
    a, b = p(w.sym(0)), p(w.sym(1))
    return (f"grad @ {b}.T" if k == 0 else f"{a}.T @ grad", None, None)


def addmm(w, k):
    m1, m2 = p(w.sym(1)), p(w.sym(2))
    if k == 0:
        return ("1, summed over the rows (bias)", None, None)
    return (f"grad @ {m2}.T" if k == 1 else f"{m1}.T @ grad", None, None)


def mv(w, k):
    a, b = p(w.sym(0)), p(w.sym(1))
    return (f"outer(grad, {b})" if k == 0 else f"{a}.T @ grad", None, None)


def mse(w, k):
    kw = w.kw if isinstance(w.kw, dict) else {}
    a, b = p(w.sym(0)), p(w.sym(1))
    n = ""
    if kw.get("reduction", "mean") == "mean":
        gi = w.in_grad(k)
        n = f" / {gi.size}" if gi is not None else " / N"
    return (f"2 * ({a} - {b}){n}" if k == 0 else f"-2 * ({a} - {b}){n}", None, None)


SELECTED = "1 at the selected elements, 0 elsewhere"  # select, slice, index


def fixed(text):
    """Words that do not depend on the node (a selection, softmax's Jacobian): not an elementwise factor."""
    def entry(w, k):
        return (text, None, None)
    return entry


def overwritten(what):
    """An in-place overwrite (zero_, fill_, copy_): the old values get no gradient; the tensor it wrote
    (fill_'s 0-dim value, copy_'s source) gets the gradient of every element it wrote."""
    def entry(w, k):
        if k == 0:
            return (f"0 ({what} overwrote every element)", 0, "0")
        return (f"1 for every element it wrote ({what}), summed to its shape", None, None)
    return entry


def cat(w, k):
    return (f"1 on input {k}'s slice of the result", None, None)
