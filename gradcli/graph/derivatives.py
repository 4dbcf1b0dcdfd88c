"""Local derivatives in words for the chain-rule walkthrough, from the node classes' declarations
(engine/ops/registry.py): a node class's `explain` is a template (one, or one per input) or a
function of engine/ops/words.py; its `expression` writes an unnamed result from its inputs.

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

from ..engine.ops.words import p as _p
from ..engine.ops.words import ratio
from .values import num


@dataclass
class Local:
    formula: str
    value: object = None
    factor: str | None = None


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
        return Local(f, ratio(ctx, k), factor if isinstance(factor, str) else _p(f) if factor else None)
    return entry


def _coded(words):
    """A node's words made by code (engine/ops/words.py): (formula, value, factor) as a Local."""
    def entry(ctx, k):
        return Local(*words(ctx, k))
    return entry


def words_of(node) -> object:
    """The entry for a node: its class's declared words (`explain`), or None."""
    words = getattr(type(node), "explain", None)
    if words is None:
        return None
    if callable(words):
        return _coded(words)
    return _declared(words, getattr(type(node), "explain_factor", True))


def local_derivative(ctx, k) -> Local:
    node = getattr(ctx, "node", None)
    entry = None if node is None else words_of(node)
    if entry is None:
        return Local(f"local Jacobian-vector product of {ctx.name} (no formula in words)", None, None)
    try:
        return entry(ctx, k)
    except Exception:  # noqa: BLE001 - words are a nicety; an odd node gets the generic line
        return Local(f"local Jacobian-vector product of {ctx.name}", None, None)


def expression(node, args: list) -> str | None:
    """The result of `node` written from its inputs' symbols (its class's `expression`), or None."""
    template = getattr(type(node), "expression", None)
    if template is None:
        return None
    if callable(template):
        return template(args, getattr(node, "_kw", None), num)
    try:
        return template.format(*[_p(a) for a in args])
    except (IndexError, KeyError):
        return None
