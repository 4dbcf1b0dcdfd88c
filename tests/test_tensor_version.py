"""Tensor._version, the one engine '_' name a script reads (lang/private.get_private; what it prints is the golden
tensor_version_counter.grad's): it cannot be written, and no other engine '_' name opens with it."""
from __future__ import annotations

from functools import partial

import pytest
from case_support import refused_script, run_script

HEAD = "import torch\nx = torch.ones(2)\n"
run = partial(run_script, HEAD, "version.grad")
refused = partial(refused_script, HEAD, "version.grad")


def test_version_is_an_int_that_counts_in_place_changes():
    assert run("y = x.add_(1)\nx[0] = 2\nprint(x._version, type(x._version))\n").stdout == "2 <class 'int'>\n"


@pytest.mark.parametrize("src", ["x._version = 3\n", "del x._version\n", "x._version += 1\n"])
def test_version_cannot_be_written(src):
    refused(src, "AttributeError")


@pytest.mark.parametrize("name", ["_base", "_data", "_rg", "_grad", "_versions", "_version_counter"])
def test_other_engine_names_stay_out(name):
    refused(f"x.{name}\n", "AttributeError")
