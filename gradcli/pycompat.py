"""What differs between the Pythons gradcli runs on (3.10 to 3.13) and would show in its output,
made to look as on Python 3.11, the reference run's Python. Light: imported by the engine and lang.

OrderedDict: Python 3.12 changed its repr from ``OrderedDict([('a', 1)])`` to ``OrderedDict({'a': 1})``; what
state_dict() returns prints the 3.11 way on every Python. Before 3.12 this is collections.OrderedDict
itself; from 3.12 a subclass that only changes the repr and names itself as collections' class."""
from __future__ import annotations

import collections
import reprlib
import sys

if sys.version_info >= (3, 12):
    class OrderedDict(collections.OrderedDict):
        __slots__ = ()

        @reprlib.recursive_repr()
        def __repr__(self):
            if not self:
                return f"{type(self).__name__}()"
            return f"{type(self).__name__}({list(self.items())!r})"

    OrderedDict.__module__ = "collections"
else:
    OrderedDict = collections.OrderedDict
