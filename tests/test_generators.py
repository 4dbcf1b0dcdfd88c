"""Generator functions: limits hold inside them, and a generator object exposes nothing (no frame,
no code, no send/throw). Their printed behaviour is checked against Python by the goldens
(tests/golden/scripts/generator_*)."""
from __future__ import annotations

import pytest

from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions, run_source


def run(src, **options):
    return run_source(src, "t.grad", RunOptions(**options))


@pytest.mark.parametrize("consumer", ["for x in g():\n    pass", "list(g())", "sum(g())", "max(g())",
                                      "x = [v for v in g()]", "it = g()\nwhile True:\n    next(it)"])
def test_step_limit_holds_for_an_endless_generator(consumer):
    r = run("def g():\n    while True:\n        yield 1\n" + consumer + "\n", max_steps=20000)
    assert not r.ok and "step limit of 20000 exceeded" in r.error.message


def test_step_limit_inside_a_generator_body_that_never_yields():
    r = run("def g():\n    while True:\n        pass\n    yield 1\nnext(g())\n", max_steps=20000)
    assert not r.ok and "step limit" in r.error.message


@pytest.mark.parametrize("body", ["yield from g(n + 1)", "for v in g(n + 1):\n        yield v",
                                  "yield next(g(n + 1))"])
def test_recursion_through_generators_hits_the_depth_limit(body):
    r = run(f"def g(n):\n    {body}\nlist(g(0))\n")
    assert not r.ok
    assert (r.error.type_name, r.error.message) == ("RecursionError", "maximum recursion depth exceeded")


def test_generator_repr_and_type():
    r = run("def data_iter():\n    yield 1\ng = data_iter()\nprint(repr(g).startswith('<generator object "
            "data_iter at 0x'), type(g))\ndef outer():\n    def inner():\n        yield\n    return inner()\n"
            "print(repr(outer()).split(' at ')[0])\n")
    assert r.stdout == "True <class 'generator'>\n<generator object outer.<locals>.inner\n", r.error


def test_the_consumer_location_comes_back_after_a_yield():
    # the error is the consumer's statement, not the generator's last line
    r = run("def g():\n    yield 1\n    yield 2\nfor v in g():\n    pass\nundefined_name\n")
    assert r.error.type_name == "NameError" and r.error.line == 6


@pytest.mark.parametrize("attr", ["gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "gi_suspended", "send",
                                  "throw", "__next__", "__class__", "__reduce__"])
def test_generator_objects_expose_nothing_but_close(attr):  # close(): tests/test_sandbox_doors.py
    r = run(f"def g():\n    yield 1\nx = g()\nv = x.{attr}\nprint('reached')\n")
    assert not r.ok and "reached" not in r.stdout
    assert isinstance(r.error, GradScriptError) and not isinstance(r.error, InternalError)


@pytest.mark.parametrize("src", [
    "import random\nrandom.Random", "import random\nrandom.SystemRandom", "import random\nrandom.getstate()",
    "import random\nrandom.setstate", "import random\nrandom._inst", "import random\nf = random.random\nf.__self__",
    "import random\nf = random.shuffle\nf.__func__", "import random\nrandom.seed.im_self",
    "from random import Random", "from random import _inst",
    "import random\nrandom.choices([1], k=10 ** 9)", "import random\nrandom.sample(range(10 ** 12), 10 ** 9)",
    "import random\nrandom.getrandbits(10 ** 7)", "import random\nrandom.randbytes(10 ** 9)",
    "import random\nrandom.seed = 3", "import random\nrandom.shuffle.x = 3",
])
def test_random_module_gives_only_its_functions(src):
    r = run(src + "\nprint('reached')\n")
    assert not r.ok and "reached" not in r.stdout
    assert isinstance(r.error, GradScriptError) and not isinstance(r.error, InternalError), r.error


def test_random_state_is_the_sessions_own():
    src = "import random\nrandom.seed(5)\nprint(random.random())\n"
    first, second = run(src), run(src)
    import random
    expected = random.Random(5).random()
    assert first.stdout == second.stdout == f"{expected}\n"
    random.seed(1)
    run("import random\nrandom.seed(99)\n")
    assert random.random() == random.Random(1).random()  # the process's own random is untouched
