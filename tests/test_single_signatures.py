"""Every torch.X / torch.linalg.X / torch.special.X function and Tensor method with a single signature
(torch_signatures' SINGLE_SIGNATURES, SINGLE_METHOD_SIGNATURES) refuses an argument of the wrong type at each
checked parameter, given positionally and by keyword, with torch 2.13's own TypeError (skipped without torch).
Before, a later Tensor argument given a number leaked "'int' object has no attribute '_data'"."""
from __future__ import annotations

import warnings

import pytest

from gradcli.engine import api, methods
from gradcli.engine import torch_signatures as S
from gradcli.engine.arg_single import signature_params

torch = pytest.importorskip("torch")


class _Bad:
    """A type no parameter takes: its name shows in both messages."""


def _fillers(lib):
    return {"Tensor": lambda: lib.ones(2, 2), "int": lambda: 0, "bool": lambda: False, "float": lambda: 1.0,
            "Number": lambda: 1, "tuple of ints": lambda: (0,), "torch.dtype": lambda: lib.float32}


def _cases(text, lib):
    """(args, kwargs) with a _Bad at each parameter the parser types (every earlier one given a valid value)."""
    fill = _fillers(lib)
    params = signature_params(text)
    for k, (kind, name, _, _, keyword_only) in enumerate(params):
        if kind not in (*fill, "str"):
            continue
        before = [p for p in params if not p[4] and not p[2]] if keyword_only else [p for p in params[:k] if not p[4]]
        if any(p[0] not in fill for p in before):
            continue
        args = tuple(fill[p[0]]() for p in before)
        if not keyword_only:
            yield args + (_Bad(),), {}
        yield args, {name: _Bad()}


def _outcome(fn, args, kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type and the message are compared
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return "ok"


def _lookup(lib, name):
    owner, _, short = name.rpartition(".")
    return getattr(getattr(lib, owner) if owner else lib, short, None)


def _mismatches(table, bind):
    methods.load_all()
    found = []
    for name, (text, _) in table.items():
        ours, theirs = bind(api, name), bind(torch, name)
        if ours is None:
            continue
        for (targs, tkw), (gargs, gkw) in zip(_cases(text, torch), _cases(text, api), strict=True):
            expected = _outcome(theirs, targs, tkw)
            if expected.startswith("TypeError") and _outcome(ours, gargs, gkw) != expected:
                found.append((name, expected, _outcome(ours, gargs, gkw)))
    return found


def test_functions_refuse_each_argument_as_torch():
    assert _mismatches(S.SINGLE_SIGNATURES, _lookup) == []


def test_methods_refuse_each_argument_as_torch():
    def bind(lib, name):
        return getattr(lib.ones(2, 2), name)
    assert _mismatches(S.SINGLE_METHOD_SIGNATURES, bind) == []
