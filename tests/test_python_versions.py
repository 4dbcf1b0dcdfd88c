"""Every Python the package claims: each module imports on the running Python (a module-level use of
a newer standard-library API fails here; .ci/run runs this file on every claimed CPython), and the
claim is written consistently in pyproject.toml's requires-python and classifiers and .ci/run."""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import gradcli

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(info.name for info in pkgutil.walk_packages(gradcli.__path__, "gradcli.")
                 if not info.name.endswith(".__main__"))  # (importing a __main__ runs the command)


def test_the_walk_finds_every_subpackage():
    subpackages = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    assert {"cli", "engine", "graph", "lang", "render", "repl"} <= subpackages, subpackages


@pytest.mark.parametrize("name", MODULES)
def test_every_module_imports(name):
    assert importlib.import_module(name).__name__ == name


def _claimed():
    text = (ROOT / "pyproject.toml").read_text()
    minimum = re.search(r'^requires-python = ">=3\.(\d+)"$', text, re.M)
    classifiers = re.findall(r'"Programming Language :: Python :: 3\.(\d+)"', text)
    return int(minimum.group(1)), sorted(int(minor) for minor in classifiers)


def test_classifiers_start_at_requires_python_and_have_no_gaps():
    minimum, minors = _claimed()
    assert minors == list(range(minimum, minors[-1] + 1)), (minimum, minors)


def test_ci_checks_every_claimed_python():
    _, minors = _claimed()
    run = (ROOT / ".ci" / "run").read_text()
    others = re.search(r"^OTHER_PYTHONS=\(([^)]*)\)$", run, re.M).group(1).split()
    # the system python3 (3.11 on the CI machine) runs the whole suite; the others the fast subset
    assert sorted({int(v.split(".")[1]) for v in others} | {11}) == minors, (others, minors)

