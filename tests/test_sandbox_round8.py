"""Red team, eighth round (docs/robustness.md, "The sandbox"): the integers that no operator makes
(past MAX_INT_BITS, built from strings and bytes by C calls) and the C calls that ran for minutes on
them, in-place list growth from an iterator, and the surfaces new in the last session. Each attack
ends in a clean located error of the script (exit 1) or in what Python with PyTorch prints; never a
traceback, an internal error, a lost limit or a run that waits for ever."""
from __future__ import annotations

import itertools
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

run = partial(run_script, HEAD, "round8.grad")
refused = partial(refused_script, HEAD, "round8.grad")

TOO_BIG = "integer result would have more than 100000 bits (GradScript limit)"


def gradcli(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=240)


def quick_refusal(src, type_name, message):
    started = time.monotonic()
    result = refused(src, type_name, message, timeout=60)
    assert time.monotonic() - started < 30, src
    return result


# ---------------------------------------------------------------- integers built from strings and bytes

HUGE_HEX = "'f' * 1000000"  # 4,000,000 bits: one fast C call, then math.gcd on it ran for minutes


@pytest.mark.parametrize("make", [
    f"int({HUGE_HEX}, 16)", f"int({HUGE_HEX}, base=16)", "int('1' * 200000, 2)", "int('7' * 40000, 8)",
    f"int('0x' + {HUGE_HEX}, 0)", f"int(*[{HUGE_HEX}, 16])", f"int(*[{HUGE_HEX}], **{{'base': 16}})",
    f"int(({HUGE_HEX}).encode(), 16)",
    f"(lambda f: f({HUGE_HEX}, 16))(int)", f"type(5)({HUGE_HEX}, 16)", f"[int][0]({HUGE_HEX}, 16)",
    "int.from_bytes(b'\\xff' * 1000000, 'big')", "(5).from_bytes(b'\\xff' * 1000000, 'little')",
    "int.from_bytes([255] * 100000, byteorder='big')", "True.real.from_bytes(b'\\x01' * 20000, 'big')",
    "type(0).from_bytes(b'\\x80' * 20000, 'big', signed=True)",
    f"list(map(int, [{HUGE_HEX}], [16]))", f"list(itertools.starmap(int, [({HUGE_HEX}, 16)]))",
    f"list(itertools.accumulate([{HUGE_HEX}, 16], int))", f"list(itertools.accumulate([{HUGE_HEX}, 16], func=int))",
    "list(map(int.from_bytes, [b'\\xff' * 100000], ['big']))",
    f"math.gcd(int({HUGE_HEX}, 16), 3)", f"math.isqrt(int({HUGE_HEX}, 16))",
])
def test_ints_past_the_limit_are_refused_where_they_are_made(make):
    # the operators refused ints past 100,000 bits before computing them, but int(s, 16), int.from_bytes
    # (directly, aliased, through map/starmap/accumulate) made them in one fast C call; math.gcd, isqrt,
    # a division or a 3-argument pow on them then ran for minutes in C, ended only by --timeout
    quick_refusal(f"x = {make}\n", "OverflowError", TOO_BIG)


def test_ints_within_the_limit_are_made_as_python_makes_them():
    src = ("x = int('f' * 25000, 16)\nprint(x.bit_length(), x == 2 ** 100000 - 1)\n"
           "print(int.from_bytes(b'\\x01\\x00', 'big'), (7).from_bytes([1, 2], byteorder='little', signed=True))\n"
           "print(int('ff', 16), int('0b101', 0), int('z', 36), int(b'12'), int(' 7 '), int(3.9), int(True))\n"
           "print(list(map(int, ['ff', '11'], [16, 2])), list(itertools.starmap(int, [('7', 8)])))\n"
           "print(list(itertools.accumulate(['101', 2], int)), bool.from_bytes(b'\\x01' * 20000, 'big'))\n")
    one_zero, ones = bytes([1, 0]), bytes([1]) * 20000
    want = (f"100000 True\n{int.from_bytes(one_zero, 'big')} {(7).from_bytes([1, 2], byteorder='little', signed=True)}\n"
            f"{int('ff', 16)} {int('0b101', 0)} {int('z', 36)} {int(b'12')} {int(' 7 ')} {int(3.9)} {int(True)}\n"
            f"{list(map(int, ['ff', '11'], [16, 2]))} {list(itertools.starmap(int, [('7', 8)]))}\n"
            f"{list(itertools.accumulate(['101', 2], int))} {bool.from_bytes(ones, 'big')}\n")
    assert run(src).stdout == want
    printed = run("print(int.from_bytes)\nprint((3).from_bytes)\n").stdout.splitlines()
    assert all(line.startswith("<built-in method from_bytes of type object at 0x") for line in printed)


@pytest.mark.parametrize("call,python", [
    ("int('12', 1)", lambda: int("12", 1)), ("int(5, 16)", lambda: int(5, 16)), ("int('g', 16)", lambda: int("g", 16)),
    ("int.from_bytes('ab', 'big')", lambda: int.from_bytes("ab", "big")),
    ("int.from_bytes(b'a', 'middle')", lambda: int.from_bytes(b"a", "middle")),
    ("int('1' * 5000)", lambda: int("1" * 5000)), ("map(int, 'f', 16)", lambda: list(map(int, "f", 16))),
    ("map()", lambda: map()), ("map(abs, [1], x=1)", lambda: map(abs, [1], x=1)),  # noqa: PLW0108
])
def test_the_checked_conversions_keep_pythons_errors(call, python):
    with pytest.raises(Exception) as caught:  # noqa: PT011 - Python's own error is the expectation
        python()
    refused(f"x = {call}\n", type(caught.value).__name__, str(caught.value))


def test_map_stays_pythons_map_for_a_script():
    src = ("m = map(abs, [-1, 2])\nprint(type(m), type(m) is map, isinstance(m, map), map, list(m))\n"
           "print(str(map(abs, []))[:14], list(map(pow, [2, 3], [3, 2])))\n")
    m = map(abs, [-1, 2])
    want = f"{type(m)} True True {map} {list(m)}\n<map object at {list(map(pow, [2, 3], [3, 2]))}\n"
    assert run(src).stdout == want


@pytest.mark.parametrize("literal", ["0x" + "f" * 30000, "0b" + "1" * 100001, "0o" + "7" * 40000,
                                     "0x" + "_".join(["ffff"] * 7000)])
def test_integer_literals_past_the_limit_are_refused_when_parsed(literal):
    # CPython refuses decimal literals past 4300 digits as a SyntaxError; a hexadecimal one of 2 MB of
    # source made an 8,000,000-bit int that no operator could
    result = quick_refusal(f"x = 1\ny = {literal}\n", "SyntaxError", "exceeds the limit of 100000 bits")
    assert result.stdout == ""  # refused before the script runs, as CPython's decimal limit is
    assert run(f"print({'0x' + 'f' * 25000} == 2 ** 100000 - 1)\n").stdout == "True\n"


# ---------------------------------------------------------------- pow with a modulus

@pytest.mark.parametrize("call", ["pow(3, 2 ** 20000 - 1, 2 ** 20000 - 3)", "pow(3, -(2 ** 30000), 2 ** 30000 - 1)",
                                  "pow(True, 2 ** 99999, 2 ** 99999 + 1)"])
def test_pow_with_a_huge_modulus_is_refused_before_the_c_call(call):
    # every operand within 100,000 bits, but pow(a, b, m) squares b's bits times modulo m in one C call:
    # 20,000 bits took a minute, 100,000 about an hour, ended only by --timeout's kill
    quick_refusal(f"x = {call}\n", "OverflowError", "exceeds GradScript's limit on the work of one integer operation")


def test_pow_with_a_modulus_within_the_limit_is_pythons():
    calls = ["pow(3, 2 ** 4096 - 1, 2 ** 4096 - 3)", "pow(2, -1, 7)", "pow(2, 10 ** 6, 97)",
             "pow(7, 2 ** 100000 - 1, 2 ** 61 - 1)", "pow(2, 3, -5)"]
    want = "\n".join(str(eval(c)) for c in calls) + "\n"  # noqa: S307 - the test's own literals
    assert run("".join(f"print({c})\n" for c in calls)).stdout == want
    refused("pow(2, 3, 0)\n", "ValueError", "pow() 3rd argument cannot be 0")


# ---------------------------------------------------------------- lists grown in place from an iterator

@pytest.mark.parametrize("src", ["l = [1]\nl += iter(l)", "l = [[1]]\nl[0] += iter(l[0])",
                                 "class A:\n    pass\na = A()\na.l = [1]\na.l += iter(a.l)",
                                 "def f():\n    m = [1]\n    m += iter(m)\nf()"])
def test_a_list_extended_in_place_by_its_own_iterator_keeps_the_sequence_limit(src):
    # l.extend(iter(l)) was closed in round 6; l += iter(l) is the same C call and grew until --max-memory
    quick_refusal(src + "\n", "MemoryError", "exceeds the limit of 10000000 items")


def test_in_place_list_addition_still_as_python():
    src = "l = [1, 2]\nl += (3,)\nl += 'ab'\nl += iter([9])\nl += {7: 1}\nk = l\nk += [0]\nprint(l, k is l)\n"
    l = [1, 2]
    l += (3,)
    l += "ab"
    l += iter([9])
    l += {7: 1}
    l += [0]
    assert run(src).stdout == f"{l} True\n"
    refused("l = []\nl += 5\n", "TypeError", "'int' object is not iterable")


def test_a_huge_int_through_gradcli_run(tmp_path):
    script = tmp_path / "bigint.grad"
    script.write_text("import math\nx = int('f' * 2000000, 16)\nprint(math.gcd(x, 3))\n")
    started = time.monotonic()
    proc = gradcli("run", str(script))
    assert time.monotonic() - started < 60
    assert proc.returncode == 1, proc.stderr
    assert "bigint.grad:2:1" in proc.stderr and TOO_BIG in proc.stderr and "Traceback" not in proc.stderr



# ---------------------------------------------------------------- collections.Counter.elements

@pytest.mark.parametrize("use", ["max(c.elements())", "collections.deque(c.elements(), maxlen=1)",
                                 "''.join(c.elements())", "list(c.elements())", "sorted(collections.Counter.elements(c))",
                                 "max((c + c).elements())", "any(map(str.isdigit, c.elements()))",
                                 "(lambda f: max(f()))(c.elements)"])
def test_counter_elements_of_huge_counts_count_as_steps(use):
    # Counter(a=10**12).elements() is a C iterator (chain of repeat) of 10**12 items: max(), deque(maxlen=1)
    # and join consumed it in C with no step counted, for hours (or until --timeout, which has no default)
    started = time.monotonic()
    refused_script(HEAD, "round8.grad", f"c = collections.Counter(a=10**12)\nx = {use}\n", "RuntimeError",
                   "step limit of 100000 exceeded", timeout=60, max_steps=100_000)
    assert time.monotonic() - started < 30


def test_counter_elements_still_as_python():
    import collections
    c = collections.Counter(a=2, b=1, c=0)
    src = ("c = collections.Counter(a=2, b=1, c=0)\nprint(list(c.elements()), list(collections.Counter.elements(c)))\n"
           "print(c.elements)\nprint(str(c.elements())[:23], str(collections.Counter.elements)[:26])\n")
    want = (f"{list(c.elements())} {list(collections.Counter.elements(c))}\n{c.elements}\n"
            f"{str(c.elements())[:23]} {str(collections.Counter.elements)[:26]}\n")
    assert run(src).stdout == want


# ---------------------------------------------------------------- torch.range, as_strided, resize_, fill_diagonal_, gradient

@pytest.mark.parametrize("call", ["torch.range(0, 10**12)", "torch.range(0, 1, 1e-12)",
                                  "torch.range(0, 10**10, dtype=torch.int64)", "torch.range(0, 10**9, 2, dtype=torch.float64)"])
def test_torch_range_checks_the_element_limit_before_numpy_allocates(call):
    # torch.range computed its count and asked NumPy for it: 4 TB, which only --max-memory stopped
    quick_refusal(f"x = {call}\n", "RuntimeError", "exceeds the limit of 100000000 elements (--max-elements)")


def torch_error(code):
    torch = pytest.importorskip("torch")
    import numpy as np
    try:
        exec(code, {"torch": torch, "np": np})  # noqa: S102 - the test's own literal, never a script's text
    except Exception as exc:  # noqa: BLE001 - torch's error is the expectation
        return type(exc).__name__, str(exc)
    raise AssertionError(f"torch ran {code!r}")


@pytest.mark.parametrize("code", [
    "x = torch.arange(6.)\nx.as_strided((3,), (2**62,))", "x = torch.arange(6.)\nx.as_strided((3, 2), (1, 1), 2**62)",
    "x = torch.arange(6.)\nx.as_strided((3, 2), (2**61, 1), 0)",
    "x = torch.arange(6.)\nx.resize_(2**62, 2**62)", "x = torch.arange(6.)\nx.resize_(2**32, 2**31)",
    "torch.zeros(7, 2).fill_diagonal_(1, wrap='yes')", "torch.zeros(7, 2).fill_diagonal_(1, wrap=1)",
    "torch.zeros(7, 2).fill_diagonal_(1, wrap=np.bool_(True))", "torch.zeros(7, 2).fill_diagonal_(1, wrap=None)",
    "torch.gradient(torch.arange(5.), spacing=(torch.tensor(2.),))",
    "torch.gradient(torch.arange(6.).reshape(2, 3), spacing=(torch.arange(2.), torch.tensor(1.)))",
    "torch.gradient(torch.arange(6.).reshape(2, 3), spacing=(1.0, torch.tensor(2.)))",
    "torch.gradient(torch.arange(5.), spacing=[None])", "torch.gradient(torch.arange(5.), spacing=['a'])",
    "torch.gradient(torch.arange(5.), spacing=[[1, 2]])",
])
def test_hostile_geometry_and_argument_types_get_torchs_errors(code):
    # storage sizes past int64 were gradcli's setStorage bounds error with a 20-digit size where torch
    # says the calculation overflowed; resize_ asked the element limit before torch's overflow check;
    # fill_diagonal_(wrap='yes') filled as wrap=True; a 0-d tensor in gradient's spacing was taken as a
    # number and a list of non-numbers was the invalid-combination error, where torch's parser names the element
    type_name, message = torch_error(code)
    result = refused(code + "\n", type_name, message)
    assert result.error.message == message


@pytest.mark.filterwarnings("ignore:torch.range is deprecated")
def test_geometry_within_bounds_is_still_torchs():
    torch = pytest.importorskip("torch")
    x = torch.arange(6.)
    want = [x.as_strided((3,), (2,), 1), torch.zeros(7, 2).fill_diagonal_(1, wrap=True),
            torch.gradient(torch.arange(5.) ** 2, spacing=torch.tensor(2.)), torch.gradient(torch.arange(5.), spacing=[True]),
            torch.range(0, 5, 2.5)]
    src = ("x = torch.arange(6.)\nprint(x.as_strided((3,), (2,), 1))\nprint(torch.zeros(7, 2).fill_diagonal_(1, wrap=True))\n"
           "print(torch.gradient(torch.arange(5.) ** 2, spacing=torch.tensor(2.)))\n"
           "print(torch.gradient(torch.arange(5.), spacing=[True]))\nprint(torch.range(0, 5, 2.5))\n")
    assert run(src).stdout == "".join(f"{w}\n" for w in want)


# ---------------------------------------------------------------- format specs

@pytest.mark.parametrize("spec", ["0" * 100, "0" * 50 + "5", "0" * 30 + ".0" + "0" * 30 + "3f", "<0000000000012"])
def test_a_format_width_of_leading_zeros_is_its_value(spec):
    # the spec check read '000...0' (the 0 flag, then a width of 0) as a 100-digit width past the sequence limit
    want = f"{format(1.5, spec)}|{'{:' + spec + '}'}".format(1.5)
    assert run(f"print(f'{{1.5:{spec}}}|{{{{:{spec}}}}}'.format(1.5))\n").stdout == want + "\n"
    assert run(f"w = '{spec}'\nprint(f'{{1.5:{{w}}}}', format(1.5, w))\n").stdout == f"{format(1.5, spec)} {format(1.5, spec)}\n"
    refused(f"print(f'{{1:{'0' * 3 + '1' + '0' * 9}}}')\n", "MemoryError", "exceeds the limit of 10000000 items")
