"""What torch's argument parser (python_arg_parser.cpp) raises for a call that no signature takes, from the
signatures' texts (torch_signatures.py): print_error picks the signatures plausible by the number of arguments;
with one, FunctionSignature::parse names what it refuses (too many positionals, a missing argument, an argument
of the wrong type, an unknown keyword); with several, format_invalid_args lists them all (invalid_args). Only for
calls already known to fail: the implementations check their arguments themselves and call parser_error on
the way out, so a call that succeeds costs nothing.
"""
from __future__ import annotations

import numpy as np

from . import errors
from .arg_single import signature_params, takes
from .argcheck import again_parsed, invalid_combination, takes_int, typename
from .tensor import Tensor


def parse_error(name, text, args, kwargs, nullable=()):
    """FunctionSignature::parse(raise_exception=true) for this signature: its TypeError, or None when it takes
    the arguments. nullable: the parameters that take None beyond those whose default is None (torch's
    signature text drops the '?' of an optional bool or int)."""
    params = signature_params(text)
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
    unpack = None  # an int list's later item that is no int: told only once every argument has parsed
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
        if kind == "tuple of ints" and isinstance(value, (list, tuple)) and value:
            err = _int_list_error(name, pname, where, value)
            if err is not None and err[0]:
                return err[1]
            unpack = unpack or (err and err[1])
        elif kind == "tuple of Tensors" and isinstance(value, (list, tuple)) and not all(
                isinstance(v, Tensor) for v in value):
            # is_tensor_list_and_append_overloaded(throw_error=true): thrown at once, whichever signature it is
            bad = next(j for j, v in enumerate(value) if not isinstance(v, Tensor))
            err = errors.type_error(f"expected Tensor as element {bad} in argument {i}, but got "
                                    f"{typename(value[bad])}")
            err.gradcli_thrown = True
            return err
        elif not takes(kind, value):
            return errors.type_error(f"{name}(): argument '{pname}'{where} must be {kind}, not {typename(value)}")
    for key in kwargs:
        if key not in used:
            if any(p[1] == key for p in positional[:len(args)]):
                return errors.type_error(f"{name}() got multiple values for argument '{key}'")
            return errors.type_error(f"{name}() got an unexpected keyword argument '{key}'")
    return unpack


def _int_list_error(name, pname, where, items):
    """An int list's items as the parser reads them: only the first decides whether the list is taken
    (is_int_or_symint_list: "found element of type bool at pos 0"); a later one fails when it is unpacked, after
    the other arguments parsed (THPUtils_unpackIndex's error, its position 1-based). (first?, error) or None."""
    first = items[0]
    if not (takes_int(first) or (isinstance(first, Tensor) and first._data.ndim == 0
                                 and not first.dtype.is_floating_point)):
        if not where:  # a keyword's refusal names only the type (python_arg_parser.cpp's parse: no failed_idx)
            return True, errors.type_error(f"{name}(): argument '{pname}' must be tuple of ints, not "
                                           f"{typename(items)}")
        return True, errors.type_error(f"{name}(): argument '{pname}'{where} must be tuple of ints, but found element "
                                       f"of type {typename(first)} at pos 0")
    for pos, item in enumerate(items[1:], 2):
        if not takes_int(item) and not isinstance(item, (bool, np.bool_, Tensor)):
            return False, errors.type_error(f"{name}(): argument '{pname}' failed to unpack the object at pos {pos} "
                                            f"with error \"type must be tuple of ints,but got {typename(item)}\"")
    return None


def parser_error(name, signatures, args, kwargs, nullable=()):
    """print_error: the TypeError torch raises for these arguments (signatures: torch_signatures' entries, with
    their texts), which no signature takes."""
    for s in signatures:  # raw_parse tries them in order: a Tensor list's bad element ends the search there
        if s[4]:
            err = parse_error(name, s[4], args, kwargs, nullable)
            if getattr(err, "gradcli_thrown", False):
                return err
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
