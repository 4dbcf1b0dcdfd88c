"""Every module the ImportError's list names can be imported by a script (the list is the
user's only guide to what exists), and a module outside it is refused with that list."""
import re
import subprocess
import sys

import pytest

from gradcli.lang.namespaces import SUPPORTED_IMPORTS


def _named_modules():
    names = []
    for item in re.split(r",\s*(?![^()]*\))", SUPPORTED_IMPORTS):
        head, _, inner = item.partition(" (")
        names.append(head.strip())
        if inner and head.startswith("torch"):  # torch.nn.utils (rnn, prune): submodules
            names += [f"{head.strip()}.{sub.strip()}" for sub in inner.rstrip(")").split(",")]
    return names


def _run(code):
    return subprocess.run([sys.executable, "-m", "gradcli", "run", "-e", code],
                          capture_output=True, text=True, timeout=120)


def test_list_is_parsed():
    names = _named_modules()
    assert "torch.optim.swa_utils" in names and "torch.nn.utils.prune" in names and "collections" in names


def test_every_named_module_imports():
    code = "\n".join(f"import {name}" for name in _named_modules()) + "\nprint('imported')"
    done = _run(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "imported\n"


@pytest.mark.parametrize("name", ["os", "torch.cuda.nccl", "subprocess"])
def test_unnamed_module_refused_with_the_list(name):
    done = _run(f"import {name}")
    assert done.returncode != 0
    assert f"cannot import '{name}': GradScript supports only {SUPPORTED_IMPORTS}" in done.stderr
