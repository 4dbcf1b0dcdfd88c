"""csrc/record.c (gradcli._native_record) in place of the engine's smallest hot helpers: tensor.wrap,
autograd.stamp, autograd.saved_value and function.attach, called several times by every op (a Python call costs more than
their few stores). The Python functions stay the reference: the C ones call them for anything they do not
take, and they are what runs under GRADCLI_NATIVE=0 and until install() (autograd_engine installs the C
ones with its other compiled helpers once the process has run a training loop's worth of backward passes).

install(module) rebinds every name, in every module of gradcli loaded, that holds one of the Python functions
to its C form (`from ..tensor import wrap` made each module a name of its own); install(None) rebinds them
back (tests/test_native_record.py compares the two)."""
from __future__ import annotations

import sys

import numpy as np

from . import autograd, autograd_modes, function, tensor
from .autograd import Node, SavedValue

PYTHON = {"wrap": tensor.wrap, "stamp": autograd.stamp, "saved_value": autograd.saved_value,
          "attach": function.attach}
installed = [None]  # the module installed, or None


def load():
    """Install gradcli._native_record's helpers if built (and GRADCLI_NATIVE allows); returns the module or None."""
    if installed[0] is None:
        from .. import native  # noqa: PLC0415 - a training loop's, never at start-up

        module = native.load("record", needs=tuple(PYTHON) + ("setup",))
        if module is not None:
            install(module)
    return installed[0]


def install(module):
    """module's helpers in place of the Python ones (None: the Python ones back)."""
    prev = installed[0]
    if prev is not None:  # (back to the Python functions first)
        _rebind({id(getattr(prev, name)): fn for name, fn in PYTHON.items()})
        installed[0] = None
    if module is None:
        return
    T, mode = tensor.Tensor, autograd_modes.grad_mode
    module.setup(T, tuple(T.__dict__[n] for n in ("_data", "dtype", "_rg", "grad_fn", "_version", "_base")),
                 np.ndarray, mode, type(mode).__dict__["inference"], autograd_modes.NO_VERSION,
                 Node, tuple(Node.__dict__[n] for n in ("_kw", "_seq", "_out_dtype", "_x", "_site")),
                 autograd.sequence_numbers, autograd.site_hook,
                 SavedValue, tuple(SavedValue.__dict__[n] for n in ("tensor", "version", "is_output", "shape")),
                 tuple(PYTHON.values()), autograd.node_observer)
    _rebind({id(fn): getattr(module, name) for name, fn in PYTHON.items()})
    installed[0] = module


def _rebind(table):
    """Every global of a gradcli module that is a key's object (by id) now names the value."""
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == "gradcli" or name.startswith("gradcli.")):
            continue
        d = vars(mod)
        for key, value in list(d.items()):
            new = table.get(id(value))
            if new is not None:
                d[key] = new
