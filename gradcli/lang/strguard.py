"""Size guards of the strings, bytes and lists a script builds by methods and formatting: every
route that can build a big object checks its size first (``MAX_SEQUENCE`` items): ``str.format`` and
``format_map`` (refusing fields that name something starting with '_'; attributes in fields are
read through the attribute policy), format specs in f-strings and
``format()``, ``%``, ``join``, ``translate``, ``replace``, ``expandtabs``, the width methods,
``list.extend`` and ``int.to_bytes``. pyvalues' attribute policy binds these methods through
``STR_SPECIAL`` and ``growing_method``.
"""
from __future__ import annotations

import re

from .runtime import LimitError, user_raiser

MAX_SEQUENCE = 10_000_000       # items of a str/list/tuple built by repetition or concatenation



def _fields(fmt):
    """string.Formatter().parse(fmt); the string module is loaded on first use (start-up time)."""
    from string import Formatter  # noqa: PLC0415

    return Formatter().parse(fmt)


def _field_parts(field):
    """(first, [(is_attribute, key), ...]) of a replacement field, as str.format splits it."""
    from _string import formatter_field_name_split  # noqa: PLC0415 - the C splitter of str.format

    first, rest = formatter_field_name_split(field)
    return first, list(rest)


def _check_format(fmt, depth=0):
    """Refuses fields that name something starting with '_' (a keyword, an attribute, an item key)
    and spec sizes above the limit. Returns (nested, walk): nested when a spec takes a nested field
    ('{0:{1}}'), whose value the caller checks; walk when a field reads an attribute or an item
    ('{0.real}', '{0[1]}'), which only ``_walk_format`` may do (attributes through the policy)."""
    if not isinstance(fmt, str):
        return False, False
    nested = walk = False
    for _literal, field, spec, _conv in _fields(fmt):
        if field is None:
            continue
        if "." in field or "[" in field:
            first, rest = _field_parts(field)
            walk = True
        else:
            first, rest = field, ()
        if (isinstance(first, str) and first.startswith("_")) or any(
                isinstance(key, str) and key.startswith("_") for _, key in rest):
            raise ValueError(f"format field '{{{field}}}' is not allowed in GradScript: names starting with '_' "
                             "(keywords, attributes, item keys) are private")
        if spec and depth < 3:
            _, inner_walk = _check_format(spec, depth + 1)
            check_spec(spec)
            nested = nested or "{" in spec
            walk = walk or inner_walk
    return nested, walk


_INIT, _AUTO, _MANUAL = 0, 1, 2
_CONVERSIONS = {"r": repr, "s": str, "a": ascii}


def _walk_format(fmt, args, kwargs, mapping=None):
    """str.format (or format_map, when ``mapping`` is given) of a string whose fields read
    attributes or items: the same algorithm and errors as CPython's, each attribute read through
    the script's attribute policy (get_attr), each spec's size checked before it is applied."""
    from .pyvalues import get_attr  # noqa: PLC0415 - pyvalues imports this module

    state = [_INIT, 0]  # numbering mode, next automatic index

    @user_raiser  # its KeyError/IndexError is the script's (as are render's)
    def lookup(first):
        if isinstance(first, str) and first:
            return kwargs[first] if mapping is None else mapping[first]
        if mapping is not None:
            raise ValueError("Format string contains positional fields")
        if first == "":
            if state[0] == _MANUAL:
                raise ValueError("cannot switch from manual field specification to automatic field numbering")
            state[0] = _AUTO
            first = state[1]
            state[1] += 1
        else:
            if state[0] == _AUTO:
                raise ValueError("cannot switch from automatic field numbering to manual field specification")
            state[0] = _MANUAL
        if first >= len(args):
            raise IndexError(f"Replacement index {first} out of range for positional args tuple")
        return args[first]

    @user_raiser
    def render(text, depth):
        if depth == 0:
            raise ValueError("Max string recursion exceeded")
        out = []
        for literal, field, spec, conv in _fields(text):
            out.append(literal)
            if field is None:
                continue
            first, rest = _field_parts(field)
            value = lookup(first)
            for is_attribute, key in rest:
                value = get_attr(value, key) if is_attribute else value[key]
            if conv:
                if conv not in _CONVERSIONS:
                    raise ValueError(f"Unknown conversion specifier {conv}")
                value = _CONVERSIONS[conv](value)
            if spec and "{" in spec:
                spec = render(spec, depth - 1)
                check_spec(spec)
            out.append(format(value, spec))
            size_check(sum(map(len, out)))
        return "".join(out)
    return render(fmt, 2)


def _check_widths(values):
    """The values a nested spec field may take: an int above the limit is a width too large."""
    for v in values:
        if type(v) is int and v > MAX_SEQUENCE:
            size_check(v)


def size_check(n):
    if n > MAX_SEQUENCE:
        raise LimitError("MemoryError", f"a result of {n} items exceeds the limit of {MAX_SEQUENCE} items")


@user_raiser
def safe_format(fmt, *args, **kwargs):
    if not isinstance(fmt, str):
        raise TypeError(f"descriptor 'format' for 'str' objects doesn't apply to a '{type(fmt).__name__}' object")
    nested, walk = _check_format(fmt)
    if walk:
        return _walk_format(fmt, args, kwargs)
    if nested:
        _check_widths(args)
        _check_widths(kwargs.values())
    return str.format(fmt, *args, **kwargs)


@user_raiser
def safe_format_map(fmt, mapping):
    nested, walk = _check_format(fmt)
    if walk and isinstance(fmt, str):
        return _walk_format(fmt, (), None, mapping)
    if nested and isinstance(mapping, dict):
        _check_widths(mapping.values())
    return str.format_map(fmt, mapping)


def _width_method(name):
    def make(s):
        method = getattr(type(s), name)

        def bound(width, *rest):
            if isinstance(width, int):
                size_check(width)
            return method(s, width, *rest)
        return bound
    return make


def _replace(s):
    def bound(old, new, count=-1):
        if isinstance(old, (str, bytes)) and isinstance(new, (str, bytes)) and len(new) > len(old):
            size_check(len(s) + (len(s) + 1) * (len(new) - len(old)))
        return s.replace(old, new, count)
    return bound


def _expandtabs(s):
    def bound(tabsize=8):
        if isinstance(tabsize, int):
            size_check(s.count("\t" if type(s) is str else b"\t") * tabsize + len(s))
        return s.expandtabs(tabsize)
    return bound


def check_spec(spec):
    """A format spec's width or precision above the sequence limit (f'{x:{10**9}}') is refused
    before Python builds the string."""
    if isinstance(spec, str) and spec:
        digits = "".join(c if c.isdigit() else " " for c in spec).split()
        for d in digits:
            d = d.lstrip("0") or "0"  # f'{1:{"0" * 100}}': the 0 flag and a width of 0, as Python reads it
            if len(d) > 8 or int(d) > MAX_SEQUENCE:
                size_check(int(d) if len(d) < 30 else MAX_SEQUENCE + 1)


@user_raiser
def safe_builtin_format(value, spec=""):
    """The builtin format(), with the spec's sizes checked."""
    check_spec(spec)
    return format(value, spec)


def _join(s):
    def bound(items):
        if type(items) is not list and type(items) is not tuple:
            items = list(items)
        total = len(s) * max(0, len(items) - 1)
        for x in items:
            if isinstance(x, (str, bytes)):
                total += len(x)
        size_check(total)
        return s.join(items)
    return bound


def _translate(s):
    def bound(table):
        if isinstance(table, dict) and table:
            longest = max((len(v) for v in table.values() if isinstance(v, (str, bytes))), default=1)
            size_check(len(s) * longest)
        return s.translate(table)
    return bound


def extend_checked(lst, items):
    """``lst.extend(items)`` (and ``lst += items``) under the sequence limit."""
    if hasattr(type(items), "__len__"):
        size_check(len(lst) + len(items))
        lst.extend(items)
    else:  # an iterator (l.extend(iter(l)) would never end): counted as it is consumed
        room = MAX_SEQUENCE - len(lst)

        def bounded():
            n = 0
            for item in items:
                n += 1
                if n > room:
                    size_check(len(lst) + n)
                yield item
        lst.extend(bounded())


def _extend(lst):
    def bound(items):
        extend_checked(lst, items)
    return bound


def _to_bytes(n):
    def bound(length=1, byteorder="big", *, signed=False):
        if isinstance(length, int):
            size_check(length)
        return n.to_bytes(length, byteorder, signed=signed)
    return bound


def _from_bytes(n):
    from .pyops import IntChecked  # noqa: PLC0415 - pyops imports this module
    return IntChecked(type(n).from_bytes)


# (type, name) -> how a script's obj.name is bound when the method can build a big object
_GROWING = {(list, "extend"): _extend, (int, "to_bytes"): _to_bytes, (bool, "to_bytes"): _to_bytes,
            (int, "from_bytes"): _from_bytes, (bytes, "join"): _join, (bytes, "translate"): _translate}
GROWING_NAMES = frozenset(name for _, name in _GROWING) | {"join", "translate", "ljust", "rjust", "center", "zfill",
                                                           "replace", "expandtabs"}


def growing_method(obj, name):
    """obj.name bound with a size check, or None when it needs none (exprs/callables call get_attr
    for every attribute named in GROWING_NAMES)."""
    make = _GROWING.get((type(obj), name))
    if make is None and type(obj) is bytes and name in STR_SPECIAL:
        make = STR_SPECIAL[name]
    return make(obj) if make is not None else None


class UnboundChecked:
    """``str.ljust``, ``list.extend``, ``int.to_bytes``, ... read from the class (called as
    ``str.ljust('x', n)``, or handed to ``map``): the bound form's size check for an instance of the
    class, the method itself (and its TypeError) for anything else."""

    __slots__ = ("cls", "name", "raw")

    def __init__(self, cls, name):
        self.cls, self.name, self.raw = cls, name, getattr(cls, name)

    def __call__(self, *args, **kwargs):
        if args and isinstance(args[0], self.cls):
            obj = args[0]
            make = STR_SPECIAL.get(self.name) if type(obj) is str else None
            bound = make(obj) if make is not None else growing_method(obj, self.name)
            if bound is not None:
                return bound(*args[1:], **kwargs)
        return self.raw(*args, **kwargs)

    def __repr__(self):
        return repr(self.raw)


user_raiser(UnboundChecked.__call__)


def unbound_method(cls, name):
    """cls.name for a script, size-checked where the method can build a big object, else None."""
    if name == "from_bytes" and cls is int:  # a class method: int.from_bytes(data, 'big')
        from .pyops import IntChecked  # noqa: PLC0415 - pyops imports this module
        return IntChecked(int.from_bytes)
    if name in GROWING_NAMES and cls in (str, bytes, list, int, bool):
        return UnboundChecked(cls, name)
    return None


STR_SPECIAL = {
    "format": lambda s: lambda *a, **k: safe_format(s, *a, **k),
    "format_map": lambda s: lambda mapping: safe_format_map(s, mapping),
    "ljust": _width_method("ljust"), "rjust": _width_method("rjust"), "center": _width_method("center"),
    "zfill": _width_method("zfill"), "replace": _replace, "expandtabs": _expandtabs,
    "join": _join, "translate": _translate,
}



@user_raiser
def g_mod(a, b):
    """``fmt % args`` builds a string as wide as its '*' arguments and digits say: checked first."""
    if (type(a) is str or type(a) is bytes) and (b"%" in a if type(a) is bytes else "%" in a):
        text = a if type(a) is str else a.decode("latin-1")
        for width, precision in _PERCENT.findall(text):
            for d in (width, precision):
                if d.isdigit():
                    size_check(int(d) if len(d) < 30 else MAX_SEQUENCE + 1)
        if "*" in text:
            for x in (b if type(b) is tuple else (b,)):
                if type(x) is int and x > MAX_SEQUENCE:
                    size_check(x)
    return a % b


_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")


