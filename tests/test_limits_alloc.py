"""Every allocation a script can trigger is limited before it happens (issue 15, item 3): strings,
bytes, lists and integers built by any method, tensors from every op whose result outgrows its
inputs, NumPy constructors with keyword shapes, the calculator's Jacobian and Hessian. Each case
runs in a forked child (gradcli/cli/isolate.py, under a 1 GiB cap as a safety net) that reports its
peak memory: the refusal must come before the memory is used."""
from __future__ import annotations

import resource

import pytest

from gradcli.cli import isolate

pytestmark = pytest.mark.skipif(not isolate.available(), reason="needs fork")

HEAD = "import torch\nimport torch.nn.functional as F\nimport numpy as np\n"
ITEMS = "MemoryError", "exceeds the limit of 10000000 items"
ELEMENTS = "RuntimeError", "exceeds the limit of 100000000 elements (--max-elements)"
ARRAY = "RuntimeError", "array of"

CASES = [
    # strings, bytes, lists by any method
    ("s = ''.join(['x' * 10 ** 6] * 10 ** 4)", ITEMS),
    ("s = '-'.join(str(i) for i in range(10))\nt = s.join(['a' * 10 ** 6] * 20)", ITEMS),
    ("s = f'{1:{10 ** 9}}'", ITEMS),
    ("s = f'{1.5:.{10 ** 9}f}'", ITEMS),
    ("w = 10 ** 9\ns = f'{1:>{w}}'", ITEMS),
    ("s = format(1, '10000000000')", ITEMS),
    ("s = '{:10000000000}'.format(1)", ITEMS),
    ("s = '{0:{1}}'.format(1, 10 ** 9)", ITEMS),
    ("s = '%*d' % (10 ** 9, 1)", ITEMS),
    ("s = '%10000000000d' % 1", ITEMS),
    ("x = 1.5\ns = '%.900000000f' % x", ITEMS),
    ("b = (1).to_bytes(10 ** 10, 'big')", ITEMS),
    ("l = [0] * 10 ** 6\nfor _ in range(30):\n    l.extend(l)", ITEMS),
    ("l = [1]\nl.extend(iter(l))", ITEMS),
    ("s = ('a' * 10 ** 6).translate({97: 'b' * 10 ** 6})", ITEMS),
    ("b = b'x'.ljust(10 ** 10)", ITEMS),
    ("b = b' '.join([b'x' * 10 ** 6] * 10 ** 4)", ITEMS),
    ("b = (b'\\t' * 10 ** 6).expandtabs(10 ** 4)", ITEMS),
    ("b = (b'a' * 10 ** 6).replace(b'a', b'b' * 10 ** 3)", ITEMS),
    # tensors: every op checked before it allocates
    ("y = F.pad(torch.ones(1), (10 ** 9, 0))", ELEMENTS),
    ("y = F.pad(torch.ones(2, 2), (10 ** 5, 10 ** 5, 10 ** 5, 10 ** 5))", ELEMENTS),
    ("y = F.pad(torch.ones(1, 2, 2), (10 ** 5, 10 ** 5, 10 ** 5, 10 ** 5), mode='replicate')", ELEMENTS),
    ("y = torch.bincount(torch.tensor([10 ** 9]))", ELEMENTS),
    ("y = torch.bincount(torch.tensor([0]), minlength=10 ** 9)", ELEMENTS),
    ("y = torch.repeat_interleave(torch.tensor([10 ** 9]))", ELEMENTS),
    ("y = torch.ones(2, 3).repeat_interleave(torch.tensor([10 ** 8, 10 ** 8]), dim=0)", ELEMENTS),
    ("y = torch.multinomial(torch.ones(2), 10 ** 9, replacement=True)", ELEMENTS),
    ("y = torch.addr(torch.zeros(1), torch.ones(10 ** 5), torch.ones(10 ** 5))", ELEMENTS),
    ("y = torch.randperm(10 ** 10)", ELEMENTS),
    ("y = F.unfold(torch.ones(1, 1, 300, 300), kernel_size=100)", ELEMENTS),
    ("y = torch.ones(10 ** 5, 1).index_select(1, torch.zeros(10 ** 5, dtype=torch.long))", ELEMENTS),
    ("y = np.ones(shape=(10 ** 5, 10 ** 5))", ARRAY),
    ("y = np.zeros(shape=10 ** 10)", ARRAY),
    ("y = np.full(shape=(10 ** 5, 10 ** 5), fill_value=1)", ARRAY),
    ("y = np.eye(N=10 ** 5)", ARRAY),
    ("y = np.outer(np.ones(10 ** 5), np.ones(10 ** 5))", ARRAY),
    ("a, b = np.meshgrid(np.arange(10 ** 5), np.arange(10 ** 5))", ARRAY),
]


def _run(src):
    def body(channel):
        from gradcli.lang.runner import RunOptions, run_source

        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result = run_source(HEAD + src, "limit.grad", RunOptions(timeout=60))
        err = result.error
        channel.send("done", {"type": err.type_name if err else None, "message": err.message if err else None,
                              "line": err.line if err else None, "before": before,
                              "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss})
    return isolate.run(body, lambda m: None, timeout=120, max_memory=1 << 30, seccomp=False)[1]


@pytest.mark.parametrize("src, expected", CASES, ids=[c[0].splitlines()[-1][:60] for c in CASES])
def test_allocation_is_refused_before_it_happens(src, expected):
    out = _run(src)
    type_name, needle = expected
    assert out["type"] == type_name and needle in out["message"], out
    assert out["line"] is not None and out["line"] > 3
    # the refused object was never built: the child grew by far less than it would be
    assert out["peak"] - out["before"] < 200 * 1024, out  # KiB


def test_plain_uses_are_untouched():
    src = ("print(f'{3:>10}|{2.5:.3f}', format(2.5, '8.2f'), '%5.2f|%-4d|' % (1.5, 7), ', '.join(['a', 'b']), "
           "(5).to_bytes(2, 'big'), 'Epoch 100000000000: %d' % 3)\n"
           "l = [1, 2]\nl.extend([3])\nl.extend(x for x in range(3))\nprint(l, 'ab'.translate({97: 'xy'}))\n"
           "print(F.pad(torch.ones(2), (1, 1)), torch.bincount(torch.tensor([1, 1, 3])), np.ones(shape=(2,)))")
    out = _run(src)
    assert out["type"] is None, out


def test_calculator_hessian_size_is_checked_before_computing():
    from gradcli.cli.calc import CalcError, calculate
    from gradcli.lang.runner import RunOptions

    with pytest.raises(CalcError, match="Hessian block of 400000000 elements exceeds the limit"):
        calculate("x.sum() ** 2", [("x", [1.0] * 20000)], None, 2, RunOptions())
    small = calculate("(x ** 2).sum()", [("x", [1.0, 2.0])], None, 2, RunOptions(max_elements=4))
    assert small.hessian["x"]["x"].tolist() == [[2.0, 0.0], [0.0, 2.0]]
    with pytest.raises(CalcError, match="Jacobian of 9 elements"):
        calculate("x * 2", [("x", [1.0, 2.0, 3.0])], None, 1, RunOptions(max_elements=5))
