"""The `functools` door (lang/pyitertools.functools_module): reduce's items count as steps, partial shows only
func/args/keywords, and nothing else of the module is there. What they print is the golden
functools_reduce_partial.grad's."""
from __future__ import annotations

from functools import partial

import pytest
from case_support import refused_script, run_script

HEAD = "import torch\nimport functools\nimport itertools\n"
run = partial(run_script, HEAD, "functools_door.grad")
refused = partial(refused_script, HEAD, "functools_door.grad")


def test_reduce_over_an_endless_iterator_ends_at_the_step_limit():
    refused("functools.reduce(max, itertools.count())\n", "RuntimeError", "step limit of 20000 exceeded",
            max_steps=20_000)
    refused("functools.reduce(lambda a, b: a, itertools.repeat(1))\n", "RuntimeError",
            "step limit of 20000 exceeded", max_steps=20_000)


@pytest.mark.parametrize("attr", ["__dict__", "__reduce__", "__setstate__", "__call__", "__class__"])
def test_partials_internals_stay_out(attr):
    refused(f"p = functools.partial(print, 1)\np.{attr}\n", "AttributeError", "private in GradScript")


def test_partial_has_only_its_three_fields():
    assert run("p = functools.partial(torch.add, alpha=2)\nprint(p.func is torch.add, p.args, p.keywords)\n"
               ).stdout == "True () {'alpha': 2}\n"
    refused("p = functools.partial(print)\np.foo = 1\n", "AttributeError")


@pytest.mark.parametrize("name", ["lru_cache", "cache", "cached_property",
                                  "singledispatch", "partialmethod", "cmp_to_key", "total_ordering"])
def test_the_rest_of_functools_is_not_there(name):
    refused(f"functools.{name}\n", "AttributeError", f"module 'functools' has no attribute '{name}'")
