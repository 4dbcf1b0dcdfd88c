"""NAME=VALUE arguments of the calculator, parsed by a tiny tokenizer (never eval).

VALUE is a number (``3``, ``-1.5``, ``3.``, ``.5``, ``1e-3``, ``nan``, ``inf``, ``-inf``) or a
rectangular nested list of numbers in brackets (``[1, 2, 3]``, ``[[1, 2], [3, 4]]``;
parentheses work as brackets, as Python tuples would).
"""
from __future__ import annotations

import keyword
import math
import re

EXPECTED_FORM = (
    "expected NAME=VALUE, where NAME is an identifier and VALUE is a number (3, -1.5, 1e-3, nan, inf) "
    "or a nested list of numbers ([1, 2, 3] or [[1, 2], [3, 4]]), e.g. x=3 w=[1,2,3]"
)

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[+-]?(?:(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))"
    r"|(?P<punct>[\[\](),]))",
    re.IGNORECASE,
)


MAX_DEPTH = 64      # nested lists: the dimensions of a NumPy array (torch.tensor itself stops at 128)
MAX_DIGITS = 4300   # Python's own limit for int(str)


class ValueSyntaxError(ValueError):
    """A NAME=VALUE argument that is not of the expected form."""


def _number(text: str):
    low = text.lower().lstrip("+")
    if low in ("inf", "infinity"):
        return math.inf
    if low in ("-inf", "-infinity"):
        return -math.inf
    if low in ("nan", "-nan"):
        return math.nan
    clean = text.replace("_", "")
    if re.fullmatch(r"[+-]?\d+", clean):
        if len(clean.lstrip("+-")) > MAX_DIGITS:
            raise ValueSyntaxError(f"the integer {text[:10]}... has more than {MAX_DIGITS} digits")
        return int(clean)
    return float(clean)


def parse_value(text: str):
    """A Python number or nested list of numbers from VALUE text; ValueSyntaxError otherwise."""
    tokens = []
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        m = _TOKEN.match(stripped, pos)
        if not m or m.end() == pos:
            raise ValueSyntaxError(f"unexpected {stripped[pos:].strip()[:10]!r} at position {pos + 1}")
        tokens.append(("num", m.group("num")) if m.group("num") is not None else ("p", m.group("punct")))
        pos = m.end()
    if not tokens:
        raise ValueSyntaxError("the value is empty")
    value, i = _parse(tokens, 0, 0)
    if i != len(tokens):
        raise ValueSyntaxError(f"unexpected {tokens[i][1]!r} after the value")
    _check_rectangular(value)
    return value


def _parse(tokens, i, depth):
    if i >= len(tokens):
        raise ValueSyntaxError("the value ends too early (unclosed bracket?)")
    kind, tok = tokens[i]
    if kind == "num":
        return _number(tok), i + 1
    if tok not in "[(":
        raise ValueSyntaxError(f"unexpected {tok!r}")
    if depth == MAX_DEPTH:
        raise ValueSyntaxError(f"the lists nest more than {MAX_DEPTH} deep (a tensor here has at most {MAX_DEPTH} "
                               "dimensions)")
    close = "]" if tok == "[" else ")"
    items = []
    i += 1
    while True:
        if i < len(tokens) and tokens[i] == ("p", close):
            return items, i + 1
        item, i = _parse(tokens, i, depth + 1)
        items.append(item)
        if i < len(tokens) and tokens[i] == ("p", ","):
            i += 1
            continue
        if i < len(tokens) and tokens[i] == ("p", close):
            return items, i + 1
        raise ValueSyntaxError(f"expected ',' or {close!r}" + ("" if i < len(tokens) else " before the end"))


def _shape(value):
    if not isinstance(value, list):
        return ()
    if not value:
        return (0,)
    inner = [_shape(v) for v in value]
    if any(s != inner[0] for s in inner):
        raise ValueSyntaxError("the nested lists are not rectangular (rows of different lengths)")
    return (len(value),) + inner[0]


def _check_rectangular(value):
    _shape(value)


def parse_assignment(arg: str):
    """(name, value) from 'NAME=VALUE'; ValueSyntaxError with the reason otherwise."""
    name, eq, text = arg.partition("=")
    name = name.strip()
    if not eq:
        raise ValueSyntaxError(f"{arg!r} has no '='")
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueSyntaxError(f"{name!r} is not a valid variable name")
    if name.startswith("_"):
        raise ValueSyntaxError(f"{name!r}: names starting with '_' are not allowed")
    return name, parse_value(text)
