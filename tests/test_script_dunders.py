"""Explicit reads of protocol methods (gradcli/lang/dunders.py): d2l's Vocab calling self.__getitem__ inside
its own __getitem__, self.__len__(), Base.__init__(self, ...), nn.Module.__init__(self), super().__repr__()
run as Python runs them (the golden tests/golden/scripts/private_dunder_calls.grad holds torch's output);
every other dunder, and these on tensors, engine objects, Python's values and classes, stay refused."""
from __future__ import annotations

import subprocess
import sys
from functools import partial

import pytest

from case_support import refused_script, run_script

run = partial(run_script, "", "dunders.grad", timeout=20)
refused = partial(refused_script, "", "dunders.grad", timeout=20)

PLAIN = [
    "class V:\n    def __init__(self):\n        self.d = {'a': 1}\n    def __getitem__(self, k):\n"
    "        if isinstance(k, list):\n            return [self.__getitem__(x) for x in k]\n"
    "        return self.d.get(k, 0)\n    def __len__(self):\n        return len(self.d)\n"
    "    def size(self):\n        return self.__len__()\nv = V()\n"
    "print(v[['a', 'b']], v.size(), V.__getitem__(v, 'a'), V.__len__(v), v.__getitem__('a'))\n",
    "class A:\n    def __init__(self, k):\n        self.k = k\n    def __repr__(self):\n        return f'A({self.k})'\n"
    "class B(A):\n    def __init__(self):\n        A.__init__(self, 2)\n    def __repr__(self):\n"
    "        return 'B' + super().__repr__()\n    def __str__(self):\n        return self.__repr__()\n"
    "b = B()\nprint(b, b.__str__(), b.__eq__(b), b.__eq__(1), object.__init__(b))\nb.__init__()\nprint(b.k)\n"
    "try:\n    b.__len__()\nexcept AttributeError as e:\n    print(e)\n"
    "try:\n    B.__iter__\nexcept AttributeError as e:\n    print(e)\n",
    "class E(Exception):\n    def __init__(self, m):\n        Exception.__init__(self, 'E: ' + m)\n"
    "e = E('x')\nprint(e, e.args, e.__str__(), e.__repr__())\n",
]


@pytest.mark.parametrize("src", PLAIN)
def test_explicit_protocol_calls_run_as_cpython_runs_them(src, tmp_path):
    path = tmp_path / "plain.py"
    path.write_text(src, encoding="utf-8")
    python = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60, check=True)
    r = run(src)
    assert r.error is None, (r.error.type_name, r.error.message, r.error.line)
    assert r.stdout == python.stdout


MODULE = "import torch\nimport torch.nn as nn\n"
PRIVATE = "private in GradScript"
ATTACKS = [
    # engine objects and Python's values keep every dunder closed, protocol ones too
    (MODULE + "torch.ones(2).__len__()\n", "AttributeError", PRIVATE),
    (MODULE + "nn.Linear(1, 1).__call__(torch.ones(1))\n", "AttributeError", PRIVATE),
    ("[1, 2].__len__()\n", "AttributeError", PRIVATE),
    ("'ab'.__getitem__(0)\n", "AttributeError", PRIVATE),
    ("{}.__init__()\n", "AttributeError", PRIVATE),
    ("def g():\n    yield 1\ng().__next__()\n", "AttributeError", PRIVATE),
    ("(lambda: 1).__call__()\n", "AttributeError", PRIVATE),
    (MODULE + "type(torch.ones(1)).__init__\n", "AttributeError", PRIVATE),
    (MODULE + "type(torch.ones(1)).__getitem__\n", "AttributeError", PRIVATE),
    ("int.__init__\n", "AttributeError", PRIVATE),
    (MODULE + "torch.utils.data.Dataset.__getitem__\n", "AttributeError", PRIVATE),
    (MODULE + "nn.Linear.__call__\n", "AttributeError", PRIVATE),
    # an engine base's __init__ read from its class takes only the script's instances
    (MODULE + "nn.Module.__init__(torch.ones(1))\n", "TypeError", "requires a 'Module' object but received a 'Tensor'"),
    (MODULE + "nn.Module.__init__(nn.Linear(1, 1))\n", "TypeError", "but received a 'Linear'"),
    (MODULE + "class A:\n    pass\nnn.Module.__init__(A())\n", "TypeError", "but received a 'A'"),
    ("object.__init__(ValueError())\n", "TypeError", "but received a 'ValueError'"),
    (MODULE + "class N(nn.Module):\n    pass\nN.__init__(torch.ones(1))\n", "TypeError", "requires a 'N' object"),
    # a @dataclass's generated methods and the script's own, read from the class, take its instances only
    ("from dataclasses import dataclass\nimport torch\n@dataclass\nclass C:\n    x: int = 1\n"
     "C.__init__(torch.ones(1), 2)\n", "TypeError", "requires a 'C' object but received a 'Tensor'"),
    ("import torch.nn as nn\nclass A:\n    def __init__(self):\n        self.weight = 1\n"
     "A.__init__(nn.Linear(1, 1))\n", "TypeError", "requires a 'A' object but received a 'Linear'"),
    # the other dunders stay refused where the script is compiled, on the script's own objects too
    ("class A:\n    pass\nA().__class__\n", "AttributeError", PRIVATE),
    ("class A:\n    pass\nA().__dict__\n", "AttributeError", PRIVATE),
    ("class A:\n    pass\nA.__subclasses__()\n", "AttributeError", PRIVATE),
    ("class A:\n    pass\nA().__reduce__()\n", "AttributeError", PRIVATE),
    ("class A:\n    pass\nA().__getattribute__('x')\n", "AttributeError", PRIVATE),
    ("class A:\n    pass\nA.__init_subclass__()\n", "AttributeError", PRIVATE),
    ("class A:\n    pass\nA.__mro__\n", "AttributeError", PRIVATE),
    ("class A:\n    def __init__(self):\n        pass\nA.__init__.__globals__\n", "AttributeError", PRIVATE),
    ("class A:\n    def __init__(self):\n        pass\nA.__init__.__code__\n", "AttributeError", PRIVATE),
    ("class A:\n    def __len__(self):\n        return 1\nA().__len__.__func__\n", "AttributeError", PRIVATE),
    ("class A:\n    def __len__(self):\n        return 1\nA().__len__.__self__\n", "AttributeError", PRIVATE),
    ("class A:\n    def __len__(self):\n        return 1\nprint(A().__len__.im_func)\n", "AttributeError", ""),
    # the door reads; it writes and deletes nothing
    ("class A:\n    pass\na = A()\na.__len__ = lambda: 1\n", "AttributeError", PRIVATE),
    ("class A:\n    def __len__(self):\n        return 1\ndel A.__len__\n", "AttributeError", PRIVATE),
    ("class A:\n    pass\nA.__init__ = print\n", "AttributeError", PRIVATE),
    # super() outside a method of the script's class stays what it was
    ("class A:\n    def f(self):\n        return super().__len__()\nA().f()\n", "AttributeError",
     "'super' object has no attribute '__len__'"),
    # the limits hold: a protocol method that calls itself is the call-depth RecursionError
    ("class A:\n    def __len__(self):\n        return self.__len__()\nA().__len__()\n", "RecursionError", ""),
]


@pytest.mark.parametrize("src,type_name,message", ATTACKS)
def test_the_dunder_door_stays_shut_for_everything_else(src, type_name, message):
    refused(src, type_name, message)
