"""What torch's argument parser (python_arg_parser.cpp) raises for a call that no signature takes, from the
signatures' texts (torch_signatures.py): print_error picks the signatures plausible by the number of arguments;
with one, FunctionSignature::parse names what it refuses (too many positionals, a missing argument, an argument
of the wrong type, an unknown keyword); with several, format_invalid_args lists them all (argcheck). Only for
calls already known to fail: the implementations check their arguments themselves and call parser_error on
the way out, so a call that succeeds costs nothing.
"""
from __future__ import annotations

import numpy as np

from . import errors
from .argcheck import again_parsed, invalid_combination, is_scalar, takes_int, typename
from .tensor import Tensor


def _params(text):
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


def _takes(kind, value):
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
    if kind == "torch.dtype":
        return typename(value) == "torch.dtype"
    if kind in ("tuple of Scalars", "tuple of Tensors"):
        item = is_scalar if kind == "tuple of Scalars" else (lambda v: isinstance(v, Tensor))
        return isinstance(value, (list, tuple)) and all(item(v) for v in value)
    if kind == "tuple of ints":
        return isinstance(value, (int, np.integer)) or (isinstance(value, (list, tuple)) and all(
            isinstance(v, (int, np.integer)) for v in value))
    return True


def parse_error(name, text, args, kwargs, nullable=()):
    """FunctionSignature::parse(raise_exception=true) for this signature: its TypeError, or None when it takes
    the arguments. nullable: the parameters that take None beyond those whose default is None (torch's
    signature text drops the '?' of an optional bool or int)."""
    params = _params(text)
    positional = [p for p in params if not p[4]]
    if len(args) > len(positional):
        required = sum(1 for p in params if not p[2])
        if required != len(positional):
            return errors.type_error(f"{name}() takes from {required} to {len(positional)} positional arguments but "
                                     f"{len(args)} were given")
        return errors.type_error(f"{name}() takes {len(positional)} positional argument"
                                 f"{'' if len(positional) == 1 else 's'} but {len(args)} "
                                 f"{'was' if len(args) == 1 else 'were'} given")
    used = set()
    for i, (kind, pname, has_default, none_default, keyword_only) in enumerate(params):
        if not keyword_only and i < len(args):
            value, where = args[i], f" (position {i + 1})"
        elif pname in kwargs:
            value, where = kwargs[pname], ""
            used.add(pname)
        else:
            if not has_default:  # torch names every required one not given, from here on
                missing = [p[1] for j, p in enumerate(params[i:], i) if not p[2] and not (
                    (not p[4] and j < len(args)) or p[1] in kwargs)]
                return errors.missing_arguments(name, *missing)
            continue
        if value is None and (none_default or pname in nullable):
            continue
        if not _takes(kind, value):
            return errors.type_error(f"{name}(): argument '{pname}'{where} must be {kind}, not {typename(value)}")
    for key in kwargs:
        if key not in used:
            if any(p[1] == key for p in positional[:len(args)]):
                return errors.type_error(f"{name}() got multiple values for argument '{key}'")
            return errors.type_error(f"{name}() got an unexpected keyword argument '{key}'")
    return None


def parser_error(name, signatures, args, kwargs, nullable=()):
    """print_error: the TypeError torch raises for these arguments (signatures: torch_signatures' entries, with
    their texts), which no signature takes."""
    n = len(args) + len(kwargs)
    plausible = [s for s in signatures if s[0] <= n <= (s[1] if s[1] is not None else n)]
    if len(plausible) == 1 and plausible[0][4]:
        err = parse_error(name, plausible[0][4], args, kwargs, nullable)
        if err is not None:
            err.gradcli_again = (name, again_parsed(name, signatures, nullable))
            return err
    return invalid_combination(name, signatures, args, kwargs, nullable)


def fits(signatures, args, kwargs, nullable=()):
    """Does some signature take these arguments?"""
    return any(s[4] and parse_error("", s[4], args, kwargs, nullable) is None for s in signatures)
