"""The optional C extensions (csrc/NAME.c -> gradcli._native_NAME, gradcli/native.py): built from this
checkout's sources, loaded or refused as GRADCLI_NATIVE says, each kernel bit for bit with its NumPy
reference, and no argument (wrong type, size, layout, read-only memory, indices out of range) reaching
memory it was not handed. The random kernels' own comparisons are in tests/test_rng_kernels.py."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from gradcli import native
from gradcli.engine import rng_factory

ROOT = Path(__file__).resolve().parent.parent


def _setup():
    spec = importlib.util.spec_from_file_location("gradcli_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_module_is_built_from_these_sources(native_module):
    setup = _setup()
    names = setup.native_names()
    assert "rng" in names
    for name in names:
        assert native_module(name).SOURCE_DIGEST == setup.source_digest(name)


def test_load_follows_gradcli_native(native_module, monkeypatch):
    built = native_module("rng")
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.setenv("GRADCLI_NATIVE", "0")
    assert native.load("rng") is None
    native._loaded.clear()
    monkeypatch.setenv("GRADCLI_NATIVE", "1")
    assert native.load("rng") is built
    assert native.load("no_such_kernel") is None


def _reference_swaps(perm, targets):
    p = perm.tolist()
    for i, j in enumerate(targets.tolist()):
        p[i], p[j] = p[j], p[i]
    return np.array(p, np.int64)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000, 100_003])
def test_randperm_swaps_matches_the_python_loop(native_module, n):
    rng = np.random.default_rng(n)
    perm = rng.integers(-2**62, 2**62, n, dtype=np.int64)
    m = max(n - 1, 0)
    targets = np.arange(m, dtype=np.int64) + (rng.integers(0, 2**63 - 1, m, dtype=np.int64) % np.arange(n, 1, -1))
    want = _reference_swaps(perm, targets)
    got = perm.copy()
    native_module("rng").randperm_swaps(got, targets)
    assert got.tobytes() == want.tobytes()
    fallback = perm.copy()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(native, "_loaded", {"rng": None})
        rng_factory.randperm_swaps(fallback, targets)
    assert fallback.tobytes() == want.tobytes()


@pytest.mark.parametrize("native_on", [True, False])
def test_randperm_is_torchs_with_and_without_c(native_module, monkeypatch, native_on):
    torch = pytest.importorskip("torch")
    built = native_module("rng")
    monkeypatch.setattr(native, "_loaded", {"rng": built if native_on else None})
    from gradcli.engine import api
    for seed, n in ((0, 100_000), (7, 2), (123, 1000)):
        api.manual_seed(seed)
        torch.manual_seed(seed)
        assert rng_factory.randperm(n).tolist() == torch.randperm(n).tolist()
    assert (native.load("rng") is not None) == native_on


def test_randperm_swaps_refuses_what_could_reach_memory(native_module):
    swaps = native_module("rng").randperm_swaps
    perm = np.arange(5, dtype=np.int64)
    ok = np.array([1, 1, 2, 3], np.int64)
    bad = [
        (perm.astype(np.int32), ok), (perm.astype(np.float64), ok), (perm, ok.astype(np.uint32)),
        (np.arange(10, dtype=np.int64)[::2], ok),            # not contiguous
        (np.arange(5, dtype=np.int64), np.arange(8, dtype=np.int64)[::2]),
        (bytes(40), ok), ("perm", ok), (None, ok), (perm, [1, 1, 2, 3]),
        (perm, np.array([1, 1, 2, 5], np.int64)),            # out of range (past the end)
        (perm, np.array([1, 0, 2, 3], np.int64)),            # below i
        (perm, np.array([-1, 1, 2, 3], np.int64)),
        (perm, np.array([1, 1, 2, 3, 4], np.int64)),          # as many targets as values
        (perm, np.array([1, 1, 2, 2**62], np.int64)),
    ]
    ro = np.arange(5, dtype=np.int64)
    ro.flags.writeable = False
    bad.append((ro, ok))
    for p, t in bad:
        before = p.copy() if isinstance(p, np.ndarray) else None
        with pytest.raises((ValueError, TypeError)):
            swaps(p, t)
        if before is not None:
            assert p.tobytes() == before.tobytes()  # refused before any swap
    with pytest.raises(TypeError):
        swaps(perm)
    swaps(perm, ok)
    assert perm.tolist() == [1, 0, 2, 3, 4]


def test_normal_fill_refuses_what_could_reach_memory(native_module):
    fill = native_module("rng").normal_fill_f32
    w = np.arange(32, dtype=np.uint32)
    out = np.zeros(32, np.float32)
    ro = np.zeros(32, np.float32)
    ro.flags.writeable = False
    bad = [
        (w, np.zeros(16, np.float32)), (w[:16], out), (np.arange(30, dtype=np.uint32), np.zeros(30, np.float32)),
        (w.astype(np.int64), out), (w.astype(np.float32), out), (w, out.astype(np.float64)), (w, ro),
        (w, np.zeros(64, np.float32)[::2]), (np.arange(64, dtype=np.uint32)[::2], out), (b"x" * 128, out),
        (w, bytearray(128)), (None, out), (w, "out"),
    ]
    for words, o in bad:
        with pytest.raises((ValueError, TypeError)):
            fill(words, o, 0.0, 1.0, False, 1)
    for kind in (-1, 3, 1 << 40):
        with pytest.raises((ValueError, OverflowError)):
            fill(w, out, 0.0, 1.0, False, kind)
    assert not out.any()  # nothing written by a refused call
    fill(w, out, 0.0, 1.0, False, 1)
    assert np.isfinite(out).all() and out.any()
    empty = np.zeros(0, np.float32)
    fill(np.zeros(0, np.uint32), empty, 0.0, 1.0, True, 0)


def test_describe_names_the_built_kernels(native_module, monkeypatch):
    native_module("rng")
    monkeypatch.delenv("GRADCLI_NATIVE", raising=False)
    assert native.describe().startswith("native: C kernels (") and "rng" in native.describe()
    monkeypatch.setenv("GRADCLI_NATIVE", "0")
    assert native.describe() == "native: off (GRADCLI_NATIVE=0): the NumPy code"


def test_uniform_refuses_what_could_reach_memory(native_module):
    uniform = native_module("rng").uniform_f32
    w = np.arange(33, dtype=np.uint32)
    out = np.zeros(33, np.float32)
    ro = np.zeros(33, np.float32)
    ro.flags.writeable = False
    for words, o, swapped in ((w, np.zeros(32, np.float32), False), (w[:32], out, False), (w, out, True),
                              (w.astype(np.int64), out, False), (w, out.astype(np.float64), False), (w, ro, False),
                              (w, np.zeros(66, np.float32)[::2], False), (None, out, False), (w, b"x" * 132, False)):
        with pytest.raises((ValueError, TypeError)):
            uniform(words, o, 1.0, 0.0, 1.0, swapped, True)
    assert not out.any()
    uniform(w, out, 1.0, 0.0, 1.0, False, True)
    assert np.array_equal(out, np.arange(33, dtype=np.float32) * np.float32(2.0 ** -24))


def test_the_digest_is_setups(native_module):
    native_module("gemm")
    setup = _setup()
    for name in setup.native_names():
        assert native.source_digest(name) == setup.source_digest(name)


def test_a_stale_module_is_refused(native_module, monkeypatch):
    """A module without SOURCE_DIGEST, without a kernel the caller needs, or built from other sources than
    the checkout's csrc/ is not used: load gives None and the caller runs its NumPy code."""
    import types  # noqa: PLC0415

    built = native_module("gemm")
    assert native.stale_reason("gemm", built, ("sgemm_chain",)) is None
    old = types.SimpleNamespace(sgemm_chain=built.sgemm_chain)
    assert "no SOURCE_DIGEST" in native.stale_reason("gemm", old)
    other = types.SimpleNamespace(SOURCE_DIGEST="0" * 64, sgemm_chain=built.sgemm_chain)
    assert "other sources" in native.stale_reason("gemm", other, ("sgemm_chain",))
    renamed = types.SimpleNamespace(SOURCE_DIGEST=built.SOURCE_DIGEST)
    assert native.stale_reason("gemm", renamed, ("sgemm_chain",)) == "no sgemm_chain"
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.delenv("GRADCLI_NATIVE", raising=False)
    monkeypatch.setattr(native.importlib, "import_module", lambda name: other)
    assert native.load("gemm") is None


def test_a_stale_build_in_a_checkout_runs_numpy(native_module, tmp_path):
    """A checkout whose csrc/gemm.c changed after its .so was built (a rebase): `python -m gradcli` does not
    load that .so, and --version says so; the other modules stay in use."""
    import shutil  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    native_module("gemm")
    shutil.copytree(ROOT / "gradcli", tmp_path / "gradcli", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "csrc", tmp_path / "csrc")
    shutil.copyfile(ROOT / "setup.py", tmp_path / "setup.py")
    with open(tmp_path / "csrc" / "gemm.c", "a") as fh:
        fh.write("/* changed after the build */\n")
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("GRADCLI_NATIVE", "PYTHONPATH")}
    probe = ("from gradcli import native; print(native.load('gemm', needs=('sgemm_chain',)) is None, "
             "native.load('rng') is None)")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["True", "False"], out.stderr
    version = subprocess.run([sys.executable, "-m", "gradcli", "--version"], cwd=tmp_path, env=env,
                             capture_output=True, text=True)
    line = [x for x in version.stdout.splitlines() if x.startswith("native:")]
    assert line and "stale" in line[0] and "(gemm)" in line[0] and "rng" in line[0].split(";")[0], version.stdout
