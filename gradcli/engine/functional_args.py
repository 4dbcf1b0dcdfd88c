"""torch.nn.functional.X checked as torch's argument parser reads the binding it calls (torch_signatures'
FUNCTIONAL_PARSED): F.pad(x, (1.5, 1)), F.leaky_relu(x, [0.1]), F.one_hot(t, num_classes=2.0) are torch's
TypeErrors, where the implementations went on with them (a result, or Python's own error).
"""
from __future__ import annotations

import ast
import functools
import inspect

from . import errors
from .arg_single import check_all, compile_signature, signature_params, takes_all
from .argcheck import takes_int, typename
from .tensor import Tensor

_SCALAR_KINDS = frozenset({"Number", "float", "int"})


def _default(text):
    """A signature's default as the value torch's Python wrapper passes on for an argument not given."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


def _plan(fn, entry):
    """compile_signature's, the implementation's parameter names, and for a positional wrapper the binding's
    positional parameters with their defaults."""
    parser, text, nullable, positional, _ = entry
    names = tuple(inspect.signature(fn).parameters)
    binding = None
    if positional:
        binding = [(p[1], _default(text.split(p[1] + " = ", 1)[1].split(",")[0].rstrip(")")) if p[2] else None)
                   for p in signature_params(text) if not p[4]]
    return compile_signature(text, nullable), names, binding


def _single_int(parser, unsized, text, args, kwargs):
    """torch's TypeError for an int given to an int list of no fixed size (F.pad(x, 1)), which compile_signature's
    "tuple of ints" takes (torch.sum(x, 1): its dim is int[1])."""
    positional = [p[1] for p in signature_params(text) if not p[4]]
    for pname in unsized:
        i = positional.index(pname) if pname in positional else len(args)
        value, where = (args[i], f" (position {i + 1})") if i < len(args) else (kwargs.get(pname), "")
        if value is not None and takes_int(value) and not isinstance(value, (list, tuple)):
            raise errors.type_error(f"{parser}(): argument '{pname}'{where} must be tuple of ints, not "
                                    f"{typename(value)}")


def _as_scalars(compiled, names, args, kwargs):
    """The arguments with a 0-d Tensor given for a Number, float or int parameter read as the Python number torch's
    parser makes of it (F.leaky_relu(x, torch.tensor(0.5)): the implementations compute with numbers). names: the
    implementation's parameter names (a positional wrapper's), None when positions are the binding's own."""
    if not any(v.__class__ is Tensor for v in args[1:]) and not any(v.__class__ is Tensor for v in kwargs.values()):
        return args, kwargs
    params = compiled[2]  # name -> (position, kind, takes None)

    def kind_at(i):
        if names is None:
            return compiled[0][i] if i < len(compiled[0]) else None
        found = params.get(names[i]) if i < len(names) else None
        return found and found[1]

    def kind_of(key):
        found = params.get(key)
        return found and found[1]
    args = tuple(v.item() if i and v.__class__ is Tensor and kind_at(i) in _SCALAR_KINDS else v
                 for i, v in enumerate(args))
    kwargs = {k: v.item() if v.__class__ is Tensor and kind_of(k) in _SCALAR_KINDS else v for k, v in kwargs.items()}
    return args, kwargs


def with_parsed_check(fn, entry):
    """F.name (fn) whose arguments torch's parser checks first: a Python wrapper (entry[3]) passes them on by
    position (its errors then give the binding's positions: F.max_pool1d(x, 2, stride=1.5) is "argument 'stride'
    (position 3)"), a direct binding takes them as given. inplace=True calls the binding's in-place form (name_);
    return_indices=True another binding, left to the implementation."""
    parser, unsized = entry[0], entry[4]
    plan = None  # on the first call: inspect costs start-up time

    @functools.wraps(fn)
    def call(*args, **kwargs):
        nonlocal plan
        if plan is None:
            plan = _plan(fn, entry)
        compiled, names, binding = plan
        if binding is None:
            if unsized:
                _single_int(parser, unsized, entry[1], args, kwargs)
            if not takes_all(compiled, args, kwargs):
                check_all(parser, compiled, args, kwargs)
            args, kwargs = _as_scalars(compiled, None, args, kwargs)
            return fn(*args, **kwargs)
        if len(args) > len(names) or any(k not in names for k in kwargs):
            return fn(*args, **kwargs)  # the implementation's own TypeError, as the wrapper's
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key in values:
                return fn(*args, **kwargs)
            values[key] = value
        if values.get("return_indices"):
            return fn(*args, **kwargs)
        last = max((i for i, (n, _) in enumerate(binding) if n in values), default=-1)
        given = tuple(values[n] if n in values else d for n, d in binding[:last + 1])
        if unsized:
            _single_int(parser, unsized, entry[1], given, {})
        if not takes_all(compiled, given, {}):
            check_all(parser + "_" if values.get("inplace") else parser, compiled, given, {})
        args, kwargs = _as_scalars(compiled, names, args, kwargs)
        return fn(*args, **kwargs)
    return call
