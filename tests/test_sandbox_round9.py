"""Red team, ninth round (docs/robustness.md, "The sandbox"): the builtin iterations a script drives
that no step counted (``map``/``filter``/``zip``/``enumerate`` over C methods, consumed in C by ``list``,
``any``, ``sum``, ``deque``, ... ), and the surfaces new in the last session. Each attack ends in a clean
located error of the script (exit 1) or in what Python with PyTorch prints; never a traceback, an
internal error, a lost limit or a run that waits for ever."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest
from case_support import refused_script, run_script

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import torch\nimport itertools\nimport math\nimport collections\nimport numpy as np\n"

run = partial(run_script, HEAD, "round9.grad")
refused = partial(refused_script, HEAD, "round9.grad")

STEP_LIMIT = "step limit of 100000 exceeded (--max-steps)"


def gradcli(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=240)


def quick_step_limit(src, max_steps=100_000):
    started = time.monotonic()
    result = refused(src, "RuntimeError", f"step limit of {max_steps} exceeded (--max-steps)", max_steps=max_steps,
                     timeout=60)
    assert time.monotonic() - started < 30, src
    return result


# ---------------------------------------------------------------- builtin iterators consumed in C

GROWING = "l = [1]\ns = set()\nd = {}\n"


@pytest.mark.parametrize("consume", [
    # the list grows by one item per item consumed, each append a C call: no statement, no call of the
    # script's, so no step; only --max-memory (or --timeout) ended these
    "any(map(l.append, l))", "list(filter(None, map(l.append, l)))", "list(filter(l.append, l))",
    "collections.deque(map(l.append, l), maxlen=0)", "collections.Counter(map(l.append, l))",
    "set(map(l.append, l))", "sum(filter(l.append, l))", "max(filter(l.append, l), default=0)",
    "sorted(filter(l.append, l))", "dict(zip(l, map(l.append, l)))", "list(enumerate(map(l.append, l)))",
    "tuple(zip(map(l.append, l)))", "frozenset(map(l.append, l))", "all(x is None for x in map(l.append, l))",
    "s.update(map(l.append, l))", "d.update(enumerate(map(l.append, l)))", "l2 = []\nl2.extend(map(l.append, l))",
    "l[:] = map(l.append, l)", "''.join(map(str, map(l.append, l)))", "math.fsum(map(bool, map(l.append, l)))",
    "dict.fromkeys(map(l.append, l))", "any(map(l.extend, map(list, zip(l))))",
    "min(map(l.append, l), key=id)", "any(map(s.add, itertools.count()))", "any(map(d.setdefault, map(id, l), map(l.append, l)))",
    "list(zip(enumerate(filter(None, [1] * 10**7))))", "list(filter(None, [0] * 10**7))",
])
def test_builtin_iterators_count_their_items_as_steps(consume):
    result = quick_step_limit(GROWING + consume + "\n")
    assert result.error.line == HEAD.count("\n") + GROWING.count("\n") + consume.count("\n") + 1


def test_the_step_limit_holds_under_gradcli_run_with_the_default_limits():
    # 10,000,000 steps: the list holds 10 million items when the limit ends it, a few seconds and ~100 MB
    path = ROOT / "build" / "round9_map_append.grad"
    path.parent.mkdir(exist_ok=True)
    path.write_text("l = [1]\nprint('start')\nprint(any(map(l.append, l)))\n")
    started = time.monotonic()
    proc = gradcli("run", "--max-memory", "1G", str(path))
    assert time.monotonic() - started < 120
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == "start\n"
    assert "RuntimeError: step limit of 10000000 exceeded (--max-steps)" in proc.stderr
    assert "Traceback" not in proc.stderr and ":3:" in proc.stderr


def test_metered_builtins_stay_pythons():
    src = ("m, z, e, f = map(abs, [-1, 2]), zip([1, 2], 'ab'), enumerate('xy', 1), filter(None, [0, 1, 2])\n"
           "print(type(m) is map, type(z) is zip, type(e) is enumerate, type(f) is filter)\n"
           "print(isinstance(z, zip), isinstance(e, enumerate), isinstance(f, filter), zip, enumerate, filter)\n"
           "print(list(m), list(z), list(e), list(f), list(zip()), list(enumerate([], start=5)))\n"
           "print(str(zip([]))[:14], str(enumerate([]))[:20], str(filter(None, []))[:17], type(zip()))\n"
           "print(list(zip([1], [2, 3])), list(map(pow, [2, 3], [3, 2])), next(enumerate('q')))\n"
           "print(list(filter(lambda v: v > 1, [1, 2, 3])), list(filter(None, 'a')), type(filter(None, [])))\n")
    want = (f"True True True True\nTrue True True {zip} {enumerate} {filter}\n"
            f"{list(map(abs, [-1, 2]))} {list(zip([1, 2], 'ab'))} {list(enumerate('xy', 1))} "
            f"{list(filter(None, [0, 1, 2]))} [] []\n"
            f"{str(zip([]))[:14]} {str(enumerate([]))[:20]} {str(filter(None, []))[:17]} {type(zip())}\n"
            f"{list(zip([1], [2, 3]))} {list(map(pow, [2, 3], [3, 2]))} {next(enumerate('q'))}\n"
            f"{list(filter(lambda v: v > 1, [1, 2, 3]))} {list(filter(None, 'a'))} {type(filter(None, []))}\n")
    assert run(src).stdout == want


@pytest.mark.parametrize(("src", "python"), [
    ("list(zip([1], [2, 3], strict=True))", lambda: list(zip([1], [2, 3], strict=True))),
    ("list(map(int, ['1', 'x']))", lambda: list(map(int, ["1", "x"]))),
    ("list(enumerate([], start='a'))", lambda: list(enumerate([], start="a"))),
    ("list(filter(len, [1]))", lambda: list(filter(len, [1]))),
    ("d = {}\nlist(map(d.pop, ['a']))", lambda: list(map({}.pop, ["a"]))),
    ("filter(None, 5)", lambda: filter(None, 5)), ("filter(None)", lambda: filter(None)),  # noqa: PLW0108
    ("filter(None, [], x=1)", lambda: filter(None, [], x=1)), ("zip(5)", lambda: zip(5)),
    # a subclass of enumerate is made by its tp_new, whose parser words these otherwise
    ("enumerate()", lambda: enumerate()), ("enumerate([], iterable=[])", lambda: enumerate([], iterable=[])),  # noqa: PLW0108
    ("enumerate([], 1, 2)", lambda: enumerate([], 1, 2)), ("enumerate(x=1, y=2, z=3)", lambda: enumerate(x=1, y=2, z=3)),
    ("enumerate(start=1, x=2)", lambda: enumerate(start=1, x=2)), ("enumerate(x=[])", lambda: enumerate(x=[])),
])
def test_the_metered_builtins_keep_pythons_errors(src, python):
    with pytest.raises(Exception) as caught:  # noqa: PT011 - Python's own error is the expectation
        python()
    result = refused(src + "\n", type(caught.value).__name__)
    assert result.error.message == str(caught.value)


# ---------------------------------------------------------------- the engine's loops of a script's length

@pytest.mark.parametrize("consume", [
    # a sampler's length is the script's number: its indices came from a loop of the engine's, consumed in C
    # by max()/any()/sum(), for ever (only --timeout, which has no default, ended them)
    "any(tud.RandomSampler([0], replacement=True, num_samples=10**15))",
    "any(tud.RandomSampler([0], num_samples=10**15))",
    "max(tud.SequentialSampler(range(10**15)))",
    "all(map(bool, tud.BatchSampler(range(10**15), 3, True)))",
    "any(map(sum, tud.BatchSampler(tud.RandomSampler([0], True, 10**15), 7, False)))",
    "max(tud.DataLoader(range(10**15), batch_size=None))",
    "collections.deque(tud.DataLoader(range(10**15), batch_size=1000), maxlen=1)",
])
def test_samplers_count_their_indices_as_steps(consume):
    result = quick_step_limit("import torch.utils.data as tud\n" + consume + "\n", max_steps=20_000)
    assert result.error.line == HEAD.count("\n") + 2


def test_samplers_stay_torchs():
    # the metered indices are the same stream: the shuffled loader of test_data's goldens, drawn twice
    src = ("import torch.utils.data as tud\ngen = torch.manual_seed(0)\n"
           "print(list(tud.DataLoader(range(10), batch_size=4, shuffle=True)))\n"
           "print(list(tud.RandomSampler(range(5), replacement=True, num_samples=7)), list(tud.SequentialSampler('abc')))\n"
           "print(list(tud.RandomSampler(range(3), num_samples=5)), list(tud.BatchSampler(range(5), 2, True)))\n")
    plain = run(src, max_steps=10**9)
    assert plain.error is None, plain.error
    lines = plain.stdout.splitlines()
    assert lines[1].endswith("[0, 1, 2]") and lines[2].endswith("[[0, 1], [2, 3]]")
    tight = run(src, max_steps=200)  # about a hundred steps: the same output, the steps counted
    assert tight.stdout == plain.stdout and tight.error is None
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    tud = torch.utils.data
    want = (f"{list(tud.DataLoader(range(10), batch_size=4, shuffle=True))}\n"
            f"{list(tud.RandomSampler(range(5), replacement=True, num_samples=7))} "
            f"{list(tud.SequentialSampler('abc'))}\n"
            f"{list(tud.RandomSampler(range(3), num_samples=5))} {list(tud.BatchSampler(range(5), 2, True))}\n")
    assert plain.stdout == want


# ---------------------------------------------------------------- the LU family (new last session)

@pytest.mark.parametrize("call", [
    # P is m by m for m pivots' rows: a 100,000 by 1 matrix (100,000 numbers) asked NumPy for 40 GB, which
    # only --max-memory stopped (torch's own allocator fails: "can't allocate memory")
    "torch.linalg.lu(torch.randn(10**5, 1))",
    "torch.lu_unpack(torch.randn(10**5, 1), torch.ones(1, dtype=torch.int32))",
    "torch.linalg.lu(torch.randn(10**4, 10**4, 0))",
    "torch.lu_unpack(*torch.linalg.lu_factor(torch.randn(100, 2000, 1)))",
])
def test_lu_permutations_are_held_to_the_element_limit(call):
    started = time.monotonic()
    result = refused(f"x = {call}\n", "RuntimeError", "exceeds the limit of 100000000 elements (--max-elements)")
    assert time.monotonic() - started < 30
    assert result.error.hint is not None and "--max-elements" in result.error.hint


def test_lu_of_empty_stacks_is_no_reshape_error():
    # the golden sandbox9_linalg_empty_matrices holds torch's output; here: no NumPy text reaches the script
    result = run("A = torch.zeros(10**4, 10**4, 0)\nprint([t.shape for t in torch.linalg.lu_factor(A)])\n"
                 "print(torch.linalg.det(torch.zeros(2, 0, 0)), torch.linalg.inv(torch.zeros(0, 0)).shape)\n")
    assert result.error is None, result.error
    assert result.stdout == ("[torch.Size([10000, 10000, 0]), torch.Size([10000, 0])]\n"
                             "tensor([1., 1.]) torch.Size([0, 0])\n")


PIVOTS = "A = torch.randn(3, 3)\nLU, piv = torch.linalg.lu_factor(A)\n"
UNPACK_RANGE = "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."


@pytest.mark.parametrize(("call", "message"), [
    # pivots a script makes itself: out of range either way, past int32's positive range, of the wrong dtype or count
    ("torch.lu_unpack(LU, torch.tensor([5, 1, 2], dtype=torch.int32))", UNPACK_RANGE),
    ("torch.lu_unpack(LU, torch.tensor([-7, 1, 2], dtype=torch.int32))", UNPACK_RANGE),
    ("torch.lu_unpack(LU, torch.tensor([0, 1, 2], dtype=torch.int32))", UNPACK_RANGE),
    ("torch.lu_unpack(LU, torch.tensor([2**31 - 1, 1, 2], dtype=torch.int32))", UNPACK_RANGE),
    ("torch.lu_unpack(LU, piv.long())", "LU_pivots is expected to be a contiguous tensor of torch.int32 dtype"),
    ("torch.linalg.lu_solve(LU, torch.tensor([9, 1, 2], dtype=torch.int32), torch.randn(3, 1))",
     "Pivots given to lu_solve must all be smaller or equal to LU.size(-2)."),
    ("torch.linalg.lu_solve(LU, torch.tensor([0, -1, 2], dtype=torch.int32), torch.randn(3, 1))",
     "Pivots given to lu_solve must all be greater or equal to 1."),
    ("torch.linalg.lu_solve(LU, piv.float(), torch.randn(3, 1))",
     "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32"),
    ("torch.linalg.lu_solve(LU, piv[:2], torch.randn(3, 1))",
     "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix"),
])
def test_hostile_pivots_are_torchs_errors(call, message):
    # never an index past the matrix (NumPy's negative indices would have swapped rows from the end)
    result = refused(PIVOTS + f"x = {call}\n", "RuntimeError", message)
    assert result.error.line == HEAD.count("\n") + 3


@pytest.mark.parametrize("use", ["print(R())", "print(f'{R()!r}')", "print([R()])", "assert False, R()",
                                 "raise ValueError(R())", "x = str({1: R()})", "x = '%r' % (R(),)"])
def test_recursive_repr_ends_in_recursion_error_at_its_line(use):
    started = time.monotonic()
    result = refused("class R:\n    def __repr__(self):\n        return repr([self])\n" + use + "\n", "RecursionError",
                     "maximum recursion depth exceeded")
    assert time.monotonic() - started < 30
    assert result.error.line in (HEAD.count("\n") + 3, HEAD.count("\n") + 4)
