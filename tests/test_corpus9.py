"""Fixes the tutorial corpus's ninth round of snippets asked for (corpus9: Zero to Mastery's "Learn PyTorch for
Deep Learning", the UvA Deep Learning notebooks, nanoGPT and minGPT model pieces, forum and Stack Overflow
questions): `@dataclass` configuration classes (nanoGPT's GPTConfig) with annotated class attributes. Each
checked against what Python itself prints for the same script (the scripts use no torch), and the new door
(dataclasses.dataclass) against abuse."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gradcli.lang.runner import InternalError, RunOptions, run_source


def run(src):
    return run_source(src, "t.grad", RunOptions(seed=0))


def python_prints(src):
    """What CPython prints for a script that only prints (no echo of bare expressions)."""
    proc = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, timeout=60)
    last = proc.stderr.strip().splitlines()[-1] if proc.returncode else None
    return proc.stdout, last


def agrees_with_python(src):
    result = run(src)
    stdout, last = python_prints(src)
    assert result.stdout == stdout
    if last is None:
        assert result.error is None, f"{result.error.type_name}: {result.error.message}"
    else:
        assert result.error is not None and not isinstance(result.error, InternalError)
        assert f"{result.error.type_name}: {result.error.message}" == last


CONFIG = """from dataclasses import dataclass
@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304 # padded up to nearest multiple of 64
    n_layer: int = 12
    dropout: float = 0.0
    bias: bool = True
"""


@pytest.mark.parametrize("tail", [
    "c = GPTConfig(block_size=8, n_layer=2)\nprint(c)\nprint(c.block_size, c.vocab_size, c.bias)\n",
    "print(GPTConfig() == GPTConfig(), GPTConfig(n_layer=1) == GPTConfig(), GPTConfig(1, 2, 3))\n",
    "c = GPTConfig()\nc.n_layer = 3\nprint(c, GPTConfig.n_layer, repr(c) == str(c))\n",
    "print([GPTConfig(n_layer=i).n_layer for i in range(3)])\n",
    "GPTConfig(foo=1)\n",
    "GPTConfig(1, 2, 3, 4, 5, 6)\n",
    "print({GPTConfig(): 1})\n",
])
def test_dataclass_config_as_python(tail):
    agrees_with_python(CONFIG + tail)


def test_dataclass_fields_without_defaults_methods_and_order():
    agrees_with_python("from dataclasses import dataclass\n@dataclass\nclass P:\n    x: float\n    y: float = 0.5\n"
                       "    scale = 2\n    def norm(self):\n        return (self.x ** 2 + self.y ** 2) ** 0.5\n"
                       "p = P(3.0, 4.0)\nprint(p, p.norm(), P(1.0), P.scale, P(y=1.0, x=2.0))\nP()\n")
    agrees_with_python("from dataclasses import dataclass\n@dataclass\nclass C:\n    x: int = 1\n    y: int\n")
    agrees_with_python("from dataclasses import dataclass\n@dataclass\nclass C:\n    y: list = []\n")


def test_annotated_class_attributes_without_dataclass():
    agrees_with_python("class C:\n    x: int = 3\n    y: int\n    def f(self):\n        return self.x\n"
                       "print(C().f(), C.x)\nC.y\n")


@pytest.mark.parametrize("src, kind, message", [
    ("from dataclasses import dataclass\ndataclass(int)\n", "TypeError",
     "dataclass() is supported as a class decorator only in GradScript"),
    ("from dataclasses import dataclass\n@dataclass\ndef f():\n    return 1\n", "TypeError",
     "@dataclass decorates a class statement (class Config: ...) in GradScript, not a def"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    _rg: int = 1\n", "NameError",
     "name '_rg' is not allowed in a class of the script: gradcli's engine reserves it"),  # _rg: ENGINE_PRIVATE
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    __init__: int = 1\n", "NameError",
     "class attribute name '__init__' is not allowed"),
    ("from dataclasses import dataclass\nimport torch.nn as nn\n@dataclass\nclass C(nn.Module):\n    x: int = 1\n",
     "TypeError", "@dataclass decorates a plain class of the script"),
    ("from dataclasses import dataclass\n@dataclass\nclass E(Exception):\n    x: int = 1\n",
     "TypeError", "@dataclass decorates a plain class of the script"),
    ("from dataclasses import field\n", "ImportError", "cannot import name 'field' from 'dataclasses'"),
    ("import torch\n@torch.nn\nclass C:\n    x: int = 1\n", "TypeError", "'module' object is not callable"),
    ("from dataclasses import make_dataclass\n", "ImportError", "cannot import name 'make_dataclass'"),
    ("from dataclasses import dataclass\n@dataclass(frozen=True)\nclass C:\n    x: int = 1\n", "TypeError",
     "dataclass() is supported as a class decorator only in GradScript"),
    ("from dataclasses import dataclass\ndef d(c):\n    return 4\n@dataclass\n@d\nclass C:\n    x: int = 1\n", "TypeError",
     "@dataclass decorates a class statement of the script in GradScript (here the decorator below it gave a 'int'"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    x: int = 1\nC().__dataclass_fields__\n",
     None, "__dataclass_fields__"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    x: int = 1\nC.__init__(1, 2)\n", "TypeError", "requires a 'C' object but received a 'int'"),
    ("import dataclasses\ndataclasses.fields\n", "AttributeError", "fields"),
])
def test_dataclass_door_stays_closed(src, kind, message):
    result = run(src)
    assert result.error is not None and not isinstance(result.error, InternalError), result.stdout
    if kind is not None:
        assert result.error.type_name == kind
    assert message in result.error.message


def test_string_annotation_reads_no_module():
    # dataclasses looks a string annotation's module prefix up in sys.modules: gradcli hands it `object`
    src = ("from dataclasses import dataclass\n@dataclass\nclass C:\n    x: 'typing.ClassVar[int]' = 1\n"
           "    y: 'dataclasses.InitVar[int]' = 2\nprint(C(), C(5, 6).x)\n")
    result = run(src)
    assert result.error is None and result.stdout == "C(x=1, y=2) 5\n"


# ---------------------------------------------------------------- torch.backends.cudnn's flags

def test_cudnn_flags_are_set_as_torch_sets_them_and_each_run_starts_afresh():
    src = ("import torch\ntorch.backends.cudnn.deterministic = True\ntorch.backends.cudnn.benchmark = False\n"
           "torch.backends.cudnn.enabled = False\n"
           "print(torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark, torch.backends.cudnn.enabled, "
           "torch.backends.cudnn.allow_tf32)\n")
    assert run(src).stdout == "True False False True\n"
    fresh = run("import torch\nprint(torch.backends.cudnn.deterministic, torch.backends.cudnn.enabled)\n")
    assert fresh.stdout == "False True\n"


@pytest.mark.parametrize("src, kind, message", [
    ("import torch\ntorch.backends.cudnn.benchmark = 1\n", "RuntimeError",
     "set_benchmark_cudnn expects a bool, but got int"),
    ("import torch\ntorch.backends.cudnn.deterministic = 'yes'\n", "RuntimeError",
     "set_deterministic_cudnn expects a bool, but got str"),
    ("import torch\ntorch.backends.cudnn.enabled = None\n", "RuntimeError",
     "set_enabled_cudnn expects a bool, but got NoneType"),
    ("import torch\ntorch.backends.cudnn.is_available = lambda: True\n", "AttributeError", "cannot assign"),
    ("import torch\ntorch.backends.cudnn.version = 1\n", "AttributeError", "cannot assign"),
    ("import torch\ntorch.backends.mps.deterministic = True\n", "AttributeError", "cannot assign"),
    ("import torch\ntorch.backends.deterministic = True\n", "AttributeError", "cannot assign"),
    ("import torch\ntorch.backends.cudnn._flags = None\n", None, "_flags"),
    ("import torch\ntorch.backends.cudnn.allow_flags({'is_available': 'x'})\n", "AttributeError", "allow_flags"),
    ("import torch\ntorch.backends.cudnn.reset_flags()\n", "AttributeError", "reset_flags"),
])
def test_cudnn_flags_refuse_what_torch_refuses_and_the_rest_stays_read_only(src, kind, message):
    result = run(src)
    assert result.error is not None and not isinstance(result.error, InternalError), result.stdout
    if kind is not None:
        assert result.error.type_name == kind
    assert message in result.error.message


# ---------------------------------------------------------------- torch.asarray on a tensor

ASARRAY = ("import torch\na = torch.tensor([1., 2., 3.], requires_grad=True)\nb = a + 2\n"
           "for kw in [{}, {'requires_grad': False}, {'requires_grad': True}, {'copy': True},\n"
           "           {'copy': True, 'requires_grad': False}, {'dtype': torch.float64}, {'copy': False}]:\n"
           "    r = torch.asarray(b, **kw)\n"
           "    print(type(r.grad_fn).__name__ if r.grad_fn is not None else None, r.requires_grad,\n"
           "          r.data_ptr() == b.data_ptr(), r is b)\n"
           "x = torch.tensor([1, 2, 3])\n"
           "print(torch.asarray(x, copy=True).data_ptr() == x.data_ptr(), torch.asarray(x) is x)\n"
           "r = torch.asarray(a, requires_grad=False)\nprint(r.requires_grad, r.is_leaf, torch.asarray(a) is a)\n")


def test_asarray_shares_copies_and_detaches_as_torch_does():
    torch = pytest.importorskip("torch")
    import contextlib
    import io
    import warnings
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(ASARRAY, "asarray", "exec"), {"torch": torch})  # noqa: S102 - the test's own literal
    assert run(ASARRAY).stdout == buf.getvalue()
    assert "CloneBackward0 True False False" in buf.getvalue()  # copy=True keeps the graph through a clone
