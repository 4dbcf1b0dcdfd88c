"""torch.utils.data (engine/data.py): what the goldens (tests/golden/scripts/data_*.grad) do not
show: the APIs that take a script's callables and objects (collate_fn, datasets, samplers) stay
inside the sandbox, and sizes stay under gradcli's limits."""
from __future__ import annotations

import pytest

from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions, run_source

HEAD = "import torch\nimport torch.nn as nn\nfrom torch.utils.data import *\n"


def run(src):
    return run_source(HEAD + src, "data.grad", RunOptions(timeout=20, seed=0))


@pytest.mark.parametrize("src, type_name, message", [
    # a collate_fn runs as the script's own code: the sandbox's rules hold inside it
    ("def c(batch):\n    return batch[0].__class__\nnext(iter(DataLoader([torch.ones(1)], collate_fn=c)))",
     "AttributeError", "not accessible"),
    ("next(iter(DataLoader([1, 2], collate_fn=lambda b: b.__len__)))", "AttributeError", "not accessible"),
    # the loader's iterator and the sampler's generator show nothing of Python's frames
    ("it = iter(DataLoader([1, 2]))\nprint(it._loader)", "AttributeError", "not accessible"),
    ("g = iter(RandomSampler(range(3)))\nprint(g.gi_frame)", "AttributeError", None),
    ("print(DataLoader([1])._auto_collation)", "AttributeError", "not accessible"),
    # dict keys are collated as keys, never set as attributes
    ("b = next(iter(DataLoader([{'__class__': 1}], batch_size=1)))\nprint(b['__class__'].__class__)",
     "AttributeError", "not accessible"),
    # sizes: randperm and the tensors of a batch go through the element limit
    ("random_split(range(10 ** 12), [0.5, 0.5])", "RuntimeError", "--max-elements"),
    ("list(RandomSampler(range(3), replacement=True, num_samples=10 ** 12))", "MemoryError", None),
])
def test_script_objects_stay_in_the_sandbox(src, type_name, message):
    error = run(src).error
    assert error is not None, src
    assert isinstance(error, GradScriptError) and not isinstance(error, InternalError), error.traceback_text
    assert error.type_name == type_name, (error.type_name, error.message)
    if message is not None:
        assert message in error.message, error.message


def test_collate_fn_and_dataset_of_script_values():
    result = run("def c(batch):\n    return [len(batch), batch]\n"
                 "for b in DataLoader(['a', 'b', 'c'], batch_size=2, collate_fn=c):\n    print(b)\n"
                 "print(list(DataLoader(nn.Sequential(nn.Identity(), nn.ReLU()), batch_size=None)))\n")
    assert result.error is None, result.error
    assert result.stdout == "[2, ['a', 'b']]\n[1, ['c']]\n[Identity(), ReLU()]\n"


def test_every_iteration_draws_from_the_default_generator():
    # torch's _BaseDataLoaderIter draws its _base_seed even without shuffling: the stream moves on
    plain = run("print(torch.rand(1).item())").stdout
    after = run("it = iter(DataLoader([1, 2]))\nprint(torch.rand(1).item())").stdout
    own = run("it = iter(DataLoader([1, 2], generator=torch.Generator()))\nprint(torch.rand(1).item())").stdout
    assert plain != after and plain == own
