"""The breadth op families load on first use (issue 21, start-up time; engine/methods.py load_family,
engine/op_names.py): whichever way a script first reaches one of their names (a Tensor method or
operator, the Tensor class's attribute, torch.X, torch.linalg.X, torch.special.X, torch.functional.X,
a bare name, an import, hasattr, an unknown name's error), it gets what it got when every family was
bound at start-up. Each snippet runs in a fresh child (a family, once loaded, stays), once lazily and
once after methods.load_all(); the two outputs must be the same."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SETUP = "import torch\nx = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)\nm = torch.tensor([[2., 1.], [1., 3.]])\n"
SNIPPETS = {
    "operator": "print(+x)",
    "method": "print(x.cumsum(0), x.cumsum)",
    "inplace": "y = x.detach().clone()\ny.erfinv_()\nprint(y)",
    "class attribute": "print(torch.Tensor.cummax(x, 0))\nprint(torch.Tensor.cummax)",
    "torch function": "print(torch.logcumsumexp(x, 0), torch.logcumsumexp)",
    "torch.linalg": "print(torch.linalg.svdvals(m), torch.linalg.matrix_norm(m))",
    "torch.special": "print(torch.special.sinc(x), torch.special.logit(torch.tensor([0.25])))",
    "torch.functional": "print(torch.functional.einsum('i,i->', x, x), torch.functional.norm(x))",
    "bare name": "print(kron(x, x))",
    "bare name defined by the script": "def kron(a, b):\n    return 'mine'\nprint(kron(x, x))",
    "import from": "from torch import cdist\nprint(cdist(m, m))",
    "hasattr": "print(hasattr(x, 'trace'), hasattr(torch, 'trace'), hasattr(torch.linalg, 'det'), "
               "hasattr(torch, 'nosuch'), hasattr(x, 'nosuch'))",
    "unknown torch name": "torch.nosuch",
    "unknown method": "x.nosuch",
    "unknown bare name": "nosuch",
    "unknown torch.linalg name": "torch.linalg.nosuch",
    "unknown torch.special name": "torch.special.nosuch",
    "python-level method": "x.unflatten(0)",
    "torch.sort's own error": "torch.sort(3)",
    "backward through a lazy op": "y = (x.cumprod(0) * torch.special.expit(x)).sum()\ny.backward()\nprint(x.grad)",
    "LinAlgError": "try:\n    torch.linalg.inv(torch.zeros(2, 2))\nexcept torch.linalg.LinAlgError as e:\n"
                   "    print(type(e) is torch.linalg.LinAlgError, e)",
    "type of a lazy function": "print(type(torch.trace), type(torch.logdet))",
    "explain": "y = torch.logaddexp(x, x).sum()\ny.backward()\nprint(y.grad_fn.next_functions)",
}

# type(v) asks whether a script can name v's class: it walks every namespace (pybuiltins.TypeBuiltin), so all load
LOADS_ALL = {"LinAlgError", "type of a lazy function"}

PROBE = """
import json, os, sys
from gradcli.engine import methods
from gradcli.engine.op_names import FAMILIES
from gradcli.lang.runner import RunOptions, Session
snippets, setup = json.loads(sys.argv[1]), sys.argv[2]
out = {}
for eager in (False, True):
    for name, text in snippets.items():
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            if eager:
                methods.load_all()
            printed = []
            result = Session(RunOptions(), write=lambda text, *a: printed.append(text)).run(setup + text, "<t>")
            error = result.error
            err = None if error is None else [error.type_name, error.message, error.line]
            loaded = [f for f in FAMILIES if "gradcli.engine.ops." + f in sys.modules]
            os.write(w, json.dumps(["".join(printed), err, loaded]).encode())
            os._exit(0)
        os.close(w)
        with os.fdopen(r) as f:
            out[f"{eager}:{name}"] = json.loads(f.read() or "null")
        os.waitpid(pid, 0)
print(json.dumps(out))
"""


def _no_address(text):
    return re.sub(r" at 0x[0-9a-f]+", " at 0x...", text)


def _run_probe():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(SNIPPETS), SETUP], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_lazy_family_answers_as_the_eagerly_bound_one():
    out = _run_probe()
    from gradcli.engine.op_names import FAMILIES
    for name in SNIPPETS:
        lazy, eager = out[f"False:{name}"], out[f"True:{name}"]
        assert lazy is not None and eager is not None, name
        assert [_no_address(lazy[0]), lazy[1]] == [_no_address(eager[0]), eager[1]], name
        assert eager[2] == list(FAMILIES)
        if name not in LOADS_ALL:
            assert len(lazy[2]) < len(FAMILIES), (name, lazy[2])  # it loaded what it used, not everything
    # what they print (spot checks: the comparison above holds them to the eager binding)
    assert out["False:unknown torch name"][1][:2] == ["AttributeError", "module 'torch' has no attribute 'nosuch'"]
    assert out["False:unknown method"][1][:2] == ["AttributeError", "'Tensor' object has no attribute 'nosuch'"]
    assert out["False:unknown bare name"][1][:2] == ["NameError", "name 'nosuch' is not defined"]
    assert out["False:bare name defined by the script"][0] == "mine\n"
    assert out["False:hasattr"][0] == "True True True False False\n"
    assert out["False:LinAlgError"][0].startswith("True ")
    assert out["False:python-level method"][1][1].startswith("Tensor.unflatten()")
    assert out["False:operator"][2] == ["special"] and out["False:method"][2] == ["scan"]
    assert out["False:unknown torch name"][2] == []  # an unknown name loads nothing


def test_the_python_namespaces_list_the_lazy_names_before_loading_them():
    """dir(torch), dir(torch.linalg) and dir(x) list the names of the families not loaded yet (completion)."""
    code = """
import json, sys
from gradcli.engine import api
from gradcli.engine.op_names import FAMILIES
x = api.tensor([1.])
before = ["cumsum" in dir(api), "svdvals" in dir(api.linalg), "sinc" in dir(api.special), "cumsum" in dir(x),
          [f for f in FAMILIES if "gradcli.engine.ops." + f in sys.modules]]
from gradcli.lang.runner import RunOptions, Session
s = Session(RunOptions())
s.run("import torch\\nx = torch.tensor([1.])", "<t>")
print(json.dumps([before, s.complete("torch.cumsu"), s.complete("x.cumsu"), s.complete("cumsu")]))
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, torch_names, method_names, bare = json.loads(proc.stdout.strip().splitlines()[-1])
    assert before == [True, True, True, True, []]
    assert torch_names == ["torch.cumsum"] and method_names == ["x.cumsum", "x.cumsum_"] and bare == ["cumsum"]
