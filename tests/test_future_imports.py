"""`from __future__ import ...` (lang/future.py) as torch-echo runs a script: each top-level statement is
compiled on its own in Python's 'single' mode, so the import is valid anywhere at the top level and carries
nothing over to the next statements (not even `annotations`); nested in a def or block it is a SyntaxError.
Each case is compared with Python run that way."""
from __future__ import annotations

import ast
import contextlib
import io
import sys

import pytest

from gradcli.lang.runner import run_source

CASES = [
    "from __future__ import print_function, division\nprint(7 / 2)\n",
    "from __future__ import (absolute_import, division,\n    print_function, unicode_literals)\nprint('x')\n",
    '"""A docstring."""\nimport math\nfrom __future__ import generator_stop\nprint(math.pi > 3)\n',
    "from __future__ import annotations\nclass Node:\n    nxt: Node = None\nprint(Node.nxt)\n",
    "print(1)\ndef f():\n    from __future__ import division\n    return 2\nprint(f())\n",
    "x = 1\nif x:\n    from __future__ import division\n",
    "from __future__ import braces\n",
    "from __future__ import nope\n",
    "from __future__ import *\n",
]


def _torch_echo(src):
    """What torch-echo prints: the statements one by one in 'single' mode, stopping at the first error."""
    out, namespace = io.StringIO(), {"__name__": "__main__"}
    hook = sys.displayhook
    sys.displayhook = lambda value: None if value is None else out.write(repr(value) + "\n")
    try:
        with contextlib.redirect_stdout(out):
            for statement in ast.parse(src).body:
                # the test's own cases, compiled as torch-echo compiles a script (not a user's text)
                code = compile(ast.Interactive(body=[statement]), "<case>", "single", dont_inherit=True)
                exec(code, namespace)
    except Exception as e:  # noqa: BLE001 - the case's error is what is compared
        return out.getvalue(), (type(e).__name__, e.msg if isinstance(e, SyntaxError) else str(e))
    finally:
        sys.displayhook = hook
    return out.getvalue(), None


@pytest.mark.parametrize("src", CASES)
def test_future_import_as_torch_echo(src):
    r = run_source(src)
    got_err = None if r.error is None else (r.error.type_name, r.error.message)
    assert (r.stdout, got_err) == _torch_echo(src)


def test_barry_as_flufl_is_refused_by_name():
    r = run_source("from __future__ import barry_as_FLUFL\n")
    assert r.error.type_name == "SyntaxError" and "barry_as_FLUFL" in r.error.message
