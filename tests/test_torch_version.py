"""torch.__version__ (engine/torch_version.py): a str that compares as a PEP 440 version, as torch's TorchVersion
does; the script-level reads `torch.__version__` and `np.__version__` (the golden torch_version.grad prints them)."""
from __future__ import annotations

import itertools

import pytest

from gradcli.engine.torch_version import TorchVersion

VERSIONS = ["2.13.0+cpu", "2.13.0", "2.13", "2.13.0+cu121", "2.13.0+cpu.1", "2.13.0+1", "2.2", "2.14.0.dev20260101",
            "2.13.0rc1", "2.13.0a0", "2.13.0b2", "2.13.0.post1", "2.13.0-1", "2.13.0.dev0", "1.9.0", "2", "2.0.0.0",
            "1!0.1", "v2.13.0", "2.13.0c1", "2.13.0.post1.dev2", "2.13.0rc1.post1", "parrot", "2.13.0+CPU", " 2.13 "]
OTHERS = VERSIONS + [(2, 13), (2, 13, 0), [1, 9], (3,), ("a",)]
OPS = ["__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"]


def _outcome(a, op, b):
    try:
        return getattr(a, op)(b)
    except TypeError as e:
        return type(e)


def test_comparisons_match_torchs_torchversion():
    torch_version = pytest.importorskip("torch.torch_version")
    for mine, theirs in (("2.13.0+cpu", "2.13.0+cpu"), ("1.10.0a", "1.10.0a"), ("2.0", "2.0")):
        for other, op in itertools.product(OTHERS, OPS):
            got = _outcome(TorchVersion(mine), op, other)
            want = _outcome(torch_version.TorchVersion(theirs), op, other)
            assert got == want, (mine, op, other)


def test_every_pair_orders_as_packaging():
    version = pytest.importorskip("torch._vendor.packaging.version")
    for a, b in itertools.product(VERSIONS, VERSIONS):
        try:
            want = version.Version(a) < version.Version(b), version.Version(a) == version.Version(b)
        except version.InvalidVersion:
            want = a < b, a == b
        assert (TorchVersion(a) < b, TorchVersion(a) == b) == want, (a, b)


def test_is_a_str_with_strs_hash_and_torchs_class_name():
    v = TorchVersion("2.13.0+cpu")
    assert isinstance(v, str) and hash(v) == hash("2.13.0+cpu") and repr(v) == "'2.13.0+cpu'"
    assert f"{type(v).__module__}.{type(v).__qualname__}" == "torch.torch_version.TorchVersion"
    assert "2.13.0+cpu" < "2.2" and v >= "2.2" and not v < "2.2"  # as a plain str 2.13 sorts before 2.2
