"""torch's argument parser for a function or Tensor method with one signature (torch_signatures'
SINGLE_SIGNATURES, SINGLE_METHOD_SIGNATURES): a signature's text compiled once into its parameters' types, the
arguments checked against it (takes_all, quick for the common case), arg_parser.parse_error's message when they
do not fit; and the keyword moves of with_keywords (torch.dot(x, tensor=y): a keyword naming the next positional
parameter of a signature goes there). argcheck checks the first argument of functions with several signatures.
"""
from __future__ import annotations

import functools

import numpy as np

from . import errors
from .argcheck import is_scalar, takes_int, typename
from .tensor import Tensor


@functools.cache
def signature_params(text):
    """The parameters of a signature's text: (type, name, has_default, default_is_none, keyword_only)."""
    params = []
    keyword_only = False
    for item in text[1:-1].split(", "):
        if item == "*":
            keyword_only = True
            continue
        if not item:
            continue
        head, eq, default = item.partition(" = ")
        kind, _, name = head.rpartition(" ")
        params.append((kind, name, bool(eq), default == "None", keyword_only))
    return params


def takes(kind, value):
    """Does the parser take value for a parameter of this type? (types it does not know: yes)"""
    if kind == "Tensor":
        return isinstance(value, Tensor)
    if kind == "int":
        return takes_int(value)
    if kind == "bool":
        return isinstance(value, (bool, np.bool_))
    if kind in ("float", "Number"):
        return is_scalar(value) or (isinstance(value, Tensor) and value._data.ndim == 0 and not value.requires_grad)
    if kind == "str":
        return isinstance(value, str)
    if kind in ("torch.dtype", "torch.memory_format"):
        return typename(value) == kind
    if kind in ("tuple of Scalars", "tuple of Tensors"):
        item = is_scalar if kind == "tuple of Scalars" else (lambda v: isinstance(v, Tensor))
        return isinstance(value, (list, tuple)) and all(item(v) for v in value)
    if kind == "tuple of ints":  # a 0-d integer Tensor too, as the list or an item (torch.amax(x, torch.tensor(0)))
        return takes_int(value) or (isinstance(value, (list, tuple)) and all(takes_int(v) for v in value))
    return True


# the types whose values takes() tells apart cheaply and for sure (a list of Tensors may hold None where torch's
# parameter is a list of optional Tensors, which the signature's text does not say)
_QUICK_KINDS = frozenset({"Tensor", "int", "bool", "float", "Number", "str", "torch.dtype", "torch.memory_format",
                          "tuple of ints"})


def compile_signature(text, nullable):
    """A signature's text for takes_all: the positional parameters' types (None: not checked here), whether each
    takes None, each name's (position or None, type, takes None), how many positional parameters are required;
    and the text and nullable themselves."""
    params = signature_params(text)
    positional = [p for p in params if not p[4]]
    kinds = tuple(p[0] if p[0] in _QUICK_KINDS else None for p in positional)
    names = {p[1]: (i if not p[4] else None, p[0] if p[0] in _QUICK_KINDS else None, p[3] or p[1] in nullable)
             for i, p in enumerate(params)}
    none_ok = tuple(p[3] or p[1] in nullable for p in positional)
    tensors_only = all(k == "Tensor" for k in kinds) and not any(none_ok)
    return kinds, none_ok, names, sum(1 for p in positional if not p[2]), text, nullable, tensors_only


def takes_all(compiled, args, kwargs, start=0):
    """Does the signature (compile_signature's) surely take these arguments (from args[start] on: those before
    are checked already)? False sends the call to arg_parser.parse_error, which says why, or finds that it does."""
    kinds, none_ok, names, required = compiled[:4]
    if len(args) > len(kinds) or len(args) < required:
        return False
    if compiled[6]:  # x.matmul(y), torch.exp(x): the common case, quickly
        for value in args[start:]:
            if not isinstance(value, Tensor):
                return False
        return not kwargs or _takes_keywords(names, args, kwargs)
    for i in range(start, len(args)):
        kind, value = kinds[i], args[i]
        if kind == "Tensor":
            if not isinstance(value, Tensor) and not (value is None and none_ok[i]):
                return False
        elif kind is not None and not takes(kind, value) and not (value is None and none_ok[i]):
            return False
    return not kwargs or _takes_keywords(names, args, kwargs)


def _takes_keywords(names, args, kwargs):
    for key, value in kwargs.items():
        found = names.get(key)
        if found is None or (found[0] is not None and found[0] < len(args)):
            return False
        if found[1] is not None and not takes(found[1], value) and not (found[2] and value is None):
            return False
    return True


def check_all(name, compiled, args, kwargs, start=0):
    """Raise torch's parser error for arguments its only signature (compile_signature's) does not take."""
    if not takes_all(compiled, args, kwargs, start):
        from .arg_parser import parse_error  # noqa: PLC0415 - it builds on this module; only for a refusal
        err = parse_error(name, compiled[4], args, kwargs, compiled[5])
        if err is not None:
            raise err


def with_method_check(fn, name, entry):
    """The Tensor method fn, its arguments after self checked as its only signature's (torch_signatures'
    SINGLE_METHOD_SIGNATURES entry: text and nullable): x.diagonal_scatter(1) names 'src' as torch does."""
    compiled = None  # on the first call: compiling every method's signature would cost start-up time

    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        nonlocal compiled
        if compiled is None:
            compiled = compile_signature(*entry)
        if not takes_all(compiled, args, kwargs):
            check_all(name, compiled, args, kwargs)
        return fn(self, *args, **kwargs)
    return method


def with_method_only_check(fn, name, entry):
    """The Tensor method fn whose one signature (torch_signatures' METHOD_ONLY_SIGNATURES entry: text and nullable)
    no torch.X gives: an int list's signature checks every argument (x.expand(2, 3.0), x.repeat(1.0, 2),
    x.new_ones([obj]): the varargs rule as torch's parser's), one with Tensors checks its keyword-only Numbers
    alone (x.addcmul(y, z, value=[1]); its positions have hidden overloads: x.addcmul(0.5, y, z), x.add(2))."""
    plan = None  # on the first call: compiling every method's signature would cost start-up time

    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        nonlocal plan
        if plan is None:
            params = signature_params(entry[0])
            positional = [p for p in params if not p[4]]
            full = not any(p[0] == "Tensor" for p in positional)
            varargs = full and len(positional) == 1 and positional[0][0] == "tuple of ints"
            plan = (compile_signature(*entry) if full else None, varargs,
                    {p[1]: (p[0], p[3] or p[1] in entry[1]) for p in params if p[4]})
        compiled, varargs, keyword_only = plan
        if compiled is not None:
            given = (args,) if varargs and args and takes_int(args[0]) else args
            if not takes_all(compiled, given, kwargs):
                check_all(name, compiled, given, kwargs)
        elif kwargs:
            for key, value in kwargs.items():
                found = keyword_only.get(key)
                if found is not None and not takes(found[0], value) and not (value is None and found[1]):
                    raise errors.type_error(f"{name}(): argument '{key}' must be {found[0]}, not {typename(value)}")
        return fn(self, *args, **kwargs)
    return method


def with_keywords(fn, texts, method=False):
    """fn taking torch's keyword names (texts: torch_signatures.KEYWORDS', without self for a method) where its own
    differ: a keyword naming the next positional parameter of a signature goes there (torch.dot(x, tensor=y),
    x.where(condition=c, other=y), torch.linalg.norm(input=x)); one given as its torch default is dropped
    (gather's sparse_grad=False)."""
    plan = None  # on the first call with keywords: inspect costs start-up time

    @functools.wraps(fn)
    def call(*args, **kwargs):
        nonlocal plan
        if kwargs:
            if plan is None:
                plan = _keyword_plan(fn, texts)
            if not plan[0].issuperset(kwargs):
                args, kwargs = _translated(plan, args, kwargs, 1 if method else 0)
        return fn(*args, **kwargs)
    return call


_DEFAULTS = {"True": True, "False": False, "None": None}


def _keyword_plan(fn, texts):
    """(the keywords fn takes, each signature's positional names, the literal torch defaults by name)."""
    import inspect  # noqa: PLC0415 - once per function, at its first call with keywords
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    params = inspect.signature(fn).parameters.values()
    accepted = frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    positions = [tuple(p[1] for p in signature_params(text) if not p[4]) for text in texts]
    defaults = {}
    for text in texts:
        for item in text[1:-1].split(", "):
            head, _, default = item.partition(" = ")
            if default in _DEFAULTS:
                defaults[head.rpartition(" ")[2]] = _DEFAULTS[default]
    return accepted, positions, defaults


def _translated(plan, args, kwargs, offset):
    accepted, positions, defaults = plan
    args, kwargs = list(args), dict(kwargs)
    moved = True
    while moved:  # promote_types(type2=b, type1=a): each goes once the one before it is placed
        moved = False
        for key in [k for k in kwargs if k not in accepted]:
            at = len(args) - offset
            if any(at < len(names) and names[at] == key for names in positions):
                args.append(kwargs.pop(key))
                moved = True
    for key in [k for k in kwargs if k not in accepted and k in defaults]:
        if kwargs[key] is defaults[key]:
            del kwargs[key]
    return tuple(args), kwargs
