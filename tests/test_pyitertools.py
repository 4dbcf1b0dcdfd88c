"""``import itertools`` and ``import time`` (lang/pyitertools.py): Python's results, every item
counted as a step (an endless iterator ends with the step limit), sleep within --timeout, and no
door out of the wrappers (their wrapped objects, classes and frames stay out of reach)."""
from __future__ import annotations

import itertools

import pytest

from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions, run_source


def run(src, **options):
    return run_source(src, "t.grad", RunOptions(**options))


def test_itertools_gives_pythons_results():
    src = ("import itertools\nfrom itertools import product, chain\n"
           "print(list(product([1, 2], 'ab')), list(product(range(2), repeat=2)))\n"
           "print(list(chain([1], (2, 3))), list(chain.from_iterable(['ab', 'c'])))\n"
           "print(list(itertools.islice(itertools.count(10, 5), 3)), list(itertools.accumulate([1, 2, 3])))\n"
           "print(list(itertools.combinations('abc', 2)), list(itertools.permutations([1, 2])))\n"
           "print([(k, len(list(g))) for k, g in itertools.groupby('aab')])\n"
           "print(list(itertools.zip_longest([1, 2], [3], fillvalue=0)), list(itertools.pairwise([1, 2, 3])))\n"
           "a, b = itertools.tee(iter([1, 2]))\nprint(list(a), list(b), itertools.count(5), itertools.repeat(1, 2))\n"
           "print(itertools.chain, list(itertools.starmap(max, [(1, 2), (4, 3)])))\n")
    r = run(src)
    assert r.ok, r.error
    expected = "\n".join([
        f"{list(itertools.product([1, 2], 'ab'))} {list(itertools.product(range(2), repeat=2))}",
        f"{list(itertools.chain([1], (2, 3)))} {list(itertools.chain.from_iterable(['ab', 'c']))}",
        "[10, 15, 20] [1, 3, 6]",
        f"{list(itertools.combinations('abc', 2))} {list(itertools.permutations([1, 2]))}",
        "[('a', 2), ('b', 1)]",
        "[(1, 3), (2, 0)] [(1, 2), (2, 3)]",
        "[1, 2] [1, 2] count(5) repeat(1, 2)",
        "<class 'itertools.chain'> [2, 4]"]) + "\n"
    assert r.stdout == expected


@pytest.mark.parametrize("consumer", ["list(itertools.count())", "sum(itertools.repeat(1))",
                                      "for x in itertools.cycle([1]):\n    pass",
                                      "list(itertools.product(range(100), repeat=5))",
                                      "a, b = itertools.tee(itertools.count())\nlist(a)",
                                      "try:\n    list(itertools.count())\nexcept Exception:\n    print('caught')"])
def test_every_item_is_a_step(consumer):
    r = run("import itertools\n" + consumer + "\nprint('reached')\n", max_steps=20000)
    assert not r.ok and "step limit of 20000 exceeded" in r.error.message
    assert "caught" not in r.stdout and "reached" not in r.stdout


@pytest.mark.parametrize("src", [
    "import itertools\nitertools.chain.cls", "import itertools\nitertools.count(1).it",
    "import itertools\nitertools.count(1).rt", "import itertools\nitertools.chain.__call__",
    "import itertools\nitertools.count.__class__", "import itertools\nitertools.count(1).__next__",
    "import itertools\nitertools.product.from_iterable([1])",
    "import itertools\nk, g = next(itertools.groupby('ab'))\ng.tgtkey",
    "import itertools\nitertools.tee([1])[0].it", "from itertools import _grouper",
    "import itertools\nitertools.chain.mro()", "import itertools\nitertools.count = 3",
    "import itertools\nitertools.count(1).it = 3", "import time\ntime.sleep.__self__",
    "import time\ntime.localtime()", "from time import _STRUCT_TM_ITEMS", "import time\ntime.sleep(-1)",
    "import itertools\nlist(itertools.chain(1))",
])
def test_itertools_and_time_open_no_door(src):
    r = run(src + "\nprint('reached')\n")
    assert not r.ok and "reached" not in r.stdout
    assert isinstance(r.error, GradScriptError) and not isinstance(r.error, InternalError), r.error


def test_time_gives_clocks_and_sleep_holds_the_timeout():
    r = run("import time\nt = time.perf_counter()\ntime.sleep(0.01)\n"
            "print(time.perf_counter() - t >= 0.01, type(time.time()).__name__, type(time.time_ns()).__name__)\n")
    assert r.ok and r.stdout == "True float int\n", r.error
    r = run("import time\ntry:\n    time.sleep(60)\nexcept Exception:\n    print('caught')\n", timeout=0.3)
    assert not r.ok and r.error.type_name == "TimeoutError" and "caught" not in r.stdout
