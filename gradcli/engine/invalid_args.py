"""The message of torch's "invalid combination of arguments" TypeError (invalid_arguments.cpp's
format_invalid_args): the arguments given, each signature, and under those whose item count fits why it did not
match. argcheck.invalid_combination raises it; arg_parser builds on it.
"""
from __future__ import annotations

from .argcheck import typename


def describe(value):
    """How torch's "invalid combination of arguments" errors describe an argument that matches no
    signature: its type name, a list or tuple with its items' (list of [float, int], tuple of (int,))."""
    if isinstance(value, list):
        return f"{typename(value)} of [{', '.join(typename(v) for v in value)}]"
    if isinstance(value, tuple):
        names = [typename(v) for v in value]
        return f"{typename(value)} of ({names[0]},)" if len(names) == 1 else \
            f"{typename(value)} of ({', '.join(names)})"
    return typename(value)


def _parse_option(text):
    """A signature's text as invalid_arguments.cpp's _parseOption reads it: its ", "-separated items as
    (type, name), the type being all before the item's last space (so "Number beta = 1" has the type
    "Number beta =", which nothing matches, and "*" is an item of its own), and whether it is variadic."""
    items = []
    for item in text[1:-1].split(", "):
        nullable = item.startswith("[")
        if nullable:
            item = item[1:-len(" or None]")]
        space = item.rfind(" ")
        end = space - 4 if "..." in item else space
        items.append((item[:end] if space >= 0 else item, item[space + 1:], nullable))
    return items, "..." in text


def _matches(kind, nullable, value):
    """_buildType's is_matching: the Python type's name (tp_name), float taking an int, int only int."""
    if nullable and value is None:
        return True
    name = typename(value)
    if kind == "float":
        return name in ("float", "int", "long")
    if kind == "int":
        return name in ("int", "long")
    return name == kind


def _kwargs_order(kwargs):
    """The keywords in the order torch walks them: it keeps them in a std::unordered_map, which lists a
    few keys (different hash buckets) last given first."""
    return list(kwargs)[::-1]


def _closed(parts, args):
    """'(' parts ')', with the ', ' torch leaves after the last part when there are no positional arguments."""
    text = ", ".join(parts)
    return f"({text}, )" if parts and not args else f"({text})"


def _got(args, kwargs):
    """_argDesc: each argument's type name, the keywords as name=type."""
    return _closed([typename(a) for a in args] + [f"{k}={typename(kwargs[k])}" for k in _kwargs_order(kwargs)], args)


def _formatted(items, variadic, args, kwargs):
    """_formattedArgDesc without a terminal: each argument (lists and tuples with their items' types), between
    '!' where it does not match the item at its position; a keyword shown by the name of that item."""
    parts = []
    for i in range(len(args) + len(kwargs)):
        keyword = i >= len(args)
        value = kwargs.get(items[i][1]) if keyword else args[i]
        if i < len(items):
            ok = _matches(items[i][0], items[i][2], value)
        else:
            ok = variadic and _matches(items[-1][0], items[-1][2], value)
        shown = (f"{items[i][1]}=" if keyword else "") + describe(value)
        parts.append(shown if ok else f"!{shown}!")
    return _closed(parts, args)


def _count_fits(items, variadic, n):
    return n == len(items) or (variadic and n > len(items))


def _unmatched_keywords(items, kwargs):
    """_tryMatchKwargs: the keywords no item among the last len(kwargs) names."""
    names = {item[1] for item in items[max(0, len(items) - len(kwargs)):]}
    return [k for k in _kwargs_order(kwargs) if k not in names]


def format_invalid_args(name, texts, args, kwargs):
    """invalid_arguments.cpp's format_invalid_args: the message of torch's "invalid combination" TypeError for
    these arguments and the signatures' texts (under each whose item count fits, why it did not match)."""
    head = f"{name}() received an invalid combination of arguments - "
    if len(texts) == 1:
        items, variadic = _parse_option(texts[0])
        unmatched = _unmatched_keywords(items, kwargs) if kwargs else []
        if unmatched:
            return head + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        fits = _count_fits(items, variadic, len(args) + len(kwargs))
        return head + f"got {_formatted(items, variadic, args, kwargs) if fits else _got(args, kwargs)}, " \
                      f"but expected {texts[0]}"
    lines = [f"{head}got {_got(args, kwargs)}, but expected one of:"]
    for text in texts:
        lines.append(f" * {text}")
        items, variadic = _parse_option(text)
        if _count_fits(items, variadic, len(args) + len(kwargs)):
            unmatched = _unmatched_keywords(items, kwargs) if kwargs else []
            if unmatched:
                lines.append(f"      didn't match because some of the keywords were incorrect: {', '.join(unmatched)}")
            else:
                lines.append("      didn't match because some of the arguments have invalid types: "
                             + _formatted(items, variadic, args, kwargs))
    return "\n".join(lines) + "\n"
