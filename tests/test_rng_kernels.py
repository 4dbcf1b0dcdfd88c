"""The fast paths of the random kernels against their plain references, without torch:

* rng_libm: NumPy's element loop (an input read backwards) is the C library's function, checked per
  process on probes; here over many more inputs, and the check must catch a loop that differs;
* rng_avx: the chunked float32 AVX2 Box-Muller against rng_math's readable emulation (which the
  goldens of tests/test_random.py pin to torch), for sizes around the chunk size, edge integers and
  (mean, std) pairs whose fused multiply-add lands on float32 ties;
* rng_math.uniform_transform against u * width + start computed the plain way;
* the C kernel (csrc/rng.c normal_fill_f32, gradcli/native.py) against the NumPy references, per
  capability (AVX2 intrinsics, the same lane by lane with fmaf, the DEFAULT build's libm calls), and
  whole draws through rng_ops.normal_fill with and without it.
tools/check_rng_math.py covers all 2**24 inputs of the AVX2 log and sincos, the C kernel's included."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gradcli.engine import rng_avx, rng_libm, rng_math


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.itemsize}")


def _reference(name, x, dtype):
    if dtype == np.float64:
        return np.array([getattr(math, name)(float(v)) for v in x])
    f = rng_libm._c_float_function(name + "f")
    if f is None:
        pytest.skip("no C library reachable through ctypes")
    return np.asarray(f(x.astype(np.float64)), np.float64).astype(np.float32)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", ["log", "log1p", "sin", "cos", "tan", "exp"])
def test_libm_is_the_c_function(name, dtype):
    lo, hi = rng_libm._DOMAIN[name]
    rng = np.random.default_rng(hash((name, dtype().itemsize)) & 0xFFFF)
    n = 60_000 if dtype == np.float64 else 6_000
    x = (lo + (hi - lo) * rng.random(n)).astype(dtype)
    if name in ("log", "log1p"):  # and the inputs the random kernels feed them: 1 - k 2**-53 and -u
        u = rng.integers(0, 1 << 53, n, dtype=np.int64).astype(np.float64) * 2.0 ** -53
        x = np.concatenate([x, (1 - u if name == "log" else -u).astype(dtype)])
    fn = rng_libm.libm if dtype == np.float64 else rng_libm.libm_f32
    got = fn(name if dtype == np.float64 else name + "f", x)
    assert got.dtype == dtype and got.shape == x.shape
    assert np.array_equal(_bits(got), _bits(_reference(name, x, dtype)))


def test_libm_shapes_and_empty():
    x = np.linspace(0.1, 2.0, 12).reshape(3, 4)
    got = rng_libm.libm("log", x)
    assert got.shape == (3, 4) and np.array_equal(got, np.array([math.log(v) for v in x.ravel()]).reshape(3, 4))
    assert rng_libm.libm("sin", np.zeros(0)).shape == (0,)
    assert rng_libm.libm("cos", x.T).shape == (4, 3)  # a non-contiguous input


def test_libm_check_catches_a_loop_that_differs(monkeypatch):
    real = rng_libm._reversed_call

    def off_by_one_ulp(name, x):
        out = np.array(real(name, x))
        out[len(out) // 3] = np.nextafter(out[len(out) // 3], np.inf)
        return out
    monkeypatch.setattr(rng_libm, "_fast_ok", {})
    monkeypatch.setattr(rng_libm, "_reversed_call", off_by_one_ulp)
    assert rng_libm.fast_loops()["log"] is False
    x = np.linspace(0.01, 3.0, 999)
    assert np.array_equal(rng_libm.libm("log", x), np.array([math.log(v) for v in x]))  # the per-element call


@pytest.fixture
def avx2():
    rng_math.set_capability("avx2")
    yield
    rng_math.set_capability(None)
    rng_math.fast_avx[0] = True


def _glibc(name, x):
    f = rng_libm._c_float_function(name)
    if f is None or not rng_libm._glibc_float_ok("logf" if name == "logf" else "sincosf"):
        pytest.skip("no glibc 2.28+ float functions reachable through ctypes")
    return np.asarray(f(x.astype(np.float64)), np.float64).astype(np.float32)


def test_glibc_logf_vectorised():
    """rng_libm.logf (glibc's e_logf.c in NumPy) against the C function: random floats over the whole
    positive range, the kernels' u1 = 1 - k 2**-24, and what falls back (0, negatives, subnormals,
    inf, nan); tools/check_rng_libm.py --exhaustive covers every u1."""
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.integers(1, 0x7F800000, 40000, dtype=np.uint32).view(np.float32),
                        np.float32(1) - rng.integers(0, 1 << 24, 40000).astype(np.float32) * np.float32(2.0 ** -24),
                        np.array([1.0, 0.0, -0.0, -1.0, 1e-45, 1e-40, np.finfo(np.float32).tiny, np.inf, -np.inf,
                                  np.nan, np.finfo(np.float32).max, 0.99999994, 1.0000001], np.float32)])
    with np.errstate(all="ignore"):
        assert np.array_equal(_bits(rng_libm.logf(x)), _bits(_glibc("logf", x)))


def test_glibc_sincosf_vectorised():
    rng = np.random.default_rng(12)
    theta = (2.0 * math.pi * (rng.integers(0, 1 << 24, 40000).astype(np.float32) * np.float32(2.0 ** -24))
             .astype(np.float64)).astype(np.float32)
    x = np.concatenate([theta, (rng.random(20000) * 260 - 130).astype(np.float32),
                        (rng.standard_normal(4000) * 1e4).astype(np.float32),
                        np.array([0.0, -0.0, 1e-40, -1e-8, 2.0 ** -12, -(2.0 ** -12), 0.74999994, 0.75, np.pi / 4,
                                  np.pi / 2, np.pi, 2 * np.pi, 119.99999, 120.0, -120.0, np.inf, -np.inf, np.nan],
                                 np.float32)])
    with np.errstate(all="ignore"):
        sin, cos = rng_libm.sincosf(x)
        assert np.array_equal(_bits(sin), _bits(_glibc("sinf", x)))
        assert np.array_equal(_bits(cos), _bits(_glibc("cosf", x)))
        assert np.array_equal(_bits(rng_libm.libm_f32("cosf", x)), _bits(cos))


def test_glibc_float_check_catches_another_algorithm(monkeypatch):
    """The once-per-process probe check refuses a vectorised logf that is not the C library's (glibc
    2.41's correctly rounded logf, say): then every call is the per-element C function."""
    if rng_libm._c_float_function("logf") is None:
        pytest.skip("no C library reachable through ctypes")
    real = rng_libm.logf

    def rounded_double_log(x):
        out = real(x)
        out[::97] = np.log(x[::97].astype(np.float64)).astype(np.float32)  # correctly rounded: 0.7% differ
        out[5] = np.nextafter(out[5], np.float32(np.inf))
        return out
    monkeypatch.setattr(rng_libm, "_glibc_checked", {})
    monkeypatch.setattr(rng_libm, "logf", rounded_double_log)
    assert rng_libm._glibc_float_ok("logf") is False
    x = np.linspace(0.01, 3.0, 999).astype(np.float32)
    assert np.array_equal(_bits(rng_libm.libm_f32("logf", x)), _bits(rng_libm._call_f32("logf", x)))


def _blocks(fast, d, mean, std):
    rng_math.fast_avx[0] = fast
    try:
        return rng_math.box_muller_blocks(d, mean, std, np.float32)
    finally:
        rng_math.fast_avx[0] = True


@pytest.mark.parametrize("n", [16, 32, 16384, 16400, 40000])
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (-0.0, 1.0), (0.5, 2.0), (-1e-3, 0.02), (3.0, 0.1)])
def test_avx_blocks_match_the_reference(avx2, n, mean, std):
    rng = np.random.default_rng(n)
    k = rng.integers(0, 1 << 24, n).astype(np.int32)
    k[:8] = 0                      # u1 = 1: radius -0, the -0 + 0 of the fused multiply-add
    k[8:16] = (1 << 24) - 1        # u2 just below 1: theta just below 2 pi
    if n >= 32:
        k[16:24] = (1 << 24) - 1   # u1 = 2**-24, the smallest the log sees
        k[24:32] = 1 << 23         # theta = pi
    if n >= 48:
        k[32:40] = (1 << 24) - 11  # u1 = 11 2**-24: x = 3/8 in the log, y * x lands exactly on a float32 tie
        k[40:48] = 3 << 21         # theta = 3 pi / 4: the octant's edge
    d = k.astype(np.float32) * np.float32(2.0 ** -24)
    want = _blocks(False, d, mean, std)
    got = _blocks(True, d, mean, std)
    assert np.array_equal(_bits(got), _bits(want))


def test_avx_words_draw_in_order(avx2):
    k = np.random.default_rng(7).integers(0, 1 << 24, 50000).astype(np.int32)
    k = k[:50000 - 50000 % 16]
    asked = []

    def draw(count):
        start = sum(asked)
        asked.append(count)
        return k[start:start + count]
    out = rng_avx.normal_words(draw, k.size, 0.0, 1.0)
    assert sum(asked) == k.size and max(asked) <= rng_avx._CHUNK
    want = _blocks(False, k.astype(np.float32) * np.float32(2.0 ** -24), 0.0, 1.0)
    assert np.array_equal(_bits(out), _bits(want))


def test_avx_words_swapped_pairs(avx2):
    """swapped=True: draw gives each pair of words in the other order (the halves of 64-bit draws); the
    values come out in their own slots all the same, through whole chunks and a ragged one."""
    k = np.random.default_rng(8).integers(0, 1 << 24, 2 * rng_avx._CHUNK + 16 * 41).astype(np.int32)
    k[:16] = [0, 1, (1 << 24) - 1, 11, 1 << 23, 3 << 21, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15]
    pos = [0]

    def draw(count):
        pos[0] += count
        return k[pos[0] - count:pos[0]].reshape(-1, 2)[:, ::-1].copy().reshape(-1)
    want = _blocks(False, k.astype(np.float32) * np.float32(2.0 ** -24), 0.5, 2.0)
    got = rng_avx.normal_words(draw, k.size, 0.5, 2.0, swapped=True)
    assert pos[0] == k.size
    assert np.array_equal(_bits(got), _bits(want))


def test_words24_pairs_are_words24_swapped():
    """rng_ops.words24_pairs: the same words as words24 (each pair in the other order) and the same
    generator state after, so normal_fill's 64-bit draws are torch's stream."""
    from gradcli.engine import rng, rng_ops
    a, b = rng.Generator().manual_seed(123), rng.Generator().manual_seed(123)
    for n in (16, 1000, 70000):
        want = rng_ops.words24(a, n)
        got = rng_ops.words24_pairs(b, n)
        assert np.array_equal(got.reshape(-1, 2)[:, ::-1].reshape(-1), want)
    assert a.get_state_bytes() == b.get_state_bytes()


def test_avx_kernel_threads_get_their_own_buffers(avx2):
    """The chunk buffers are kept between calls but taken out while a call runs: draws in two threads at
    once (NumPy releases the GIL in its loops) give what one thread gives."""
    import threading
    k = np.random.default_rng(9).integers(0, 1 << 24, 3 * rng_avx._CHUNK + 16 * 37).astype(np.int32)
    want = rng_avx.normal_blocks(k.astype(np.float32) * np.float32(2.0 ** -24), 0.25, 0.3)
    bad = []

    def work():
        for _ in range(6):
            got = rng_avx.normal_blocks(k.astype(np.float32) * np.float32(2.0 ** -24), 0.25, 0.3)
            bad.append(not np.array_equal(_bits(got), _bits(want)))
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(bad) == 18 and not any(bad)


@pytest.mark.parametrize("cap", ["default", "avx2"])
@pytest.mark.parametrize("start,to", [(0.0, 1.0), (0.0, 2.5), (-0.3, 0.7), (-0.41, 0.41), (2.0, 5.5),
                                      (1000.0, 1000.5), (-1e-3, 1e30), (0.0, 1e-35), (-1e-35, 1e-35)])
def test_uniform_transform(cap, start, to):
    rng_math.set_capability(cap)
    try:
        k = np.random.default_rng(1).integers(0, 1 << 24, 20000).astype(np.int32)
        k[:2] = (0, (1 << 24) - 1)
        f, t = np.float32(start), np.float32(to)
        width = t - f
        got = rng_math.uniform_transform(k, width, f, np.empty(k.size, np.float32), np.empty(k.size))
        u = k.astype(np.float32) * np.float32(2.0 ** -24)
        want = rng_math.fma32(u, width, f) if cap == "avx2" else u * width + f
        assert np.array_equal(_bits(got), _bits(want))
    finally:
        rng_math.set_capability(None)


@pytest.mark.parametrize("b, c", [(1.5, 1e-265), (1.5, -1e-300), (0.75, 2.0 ** -60), (3.0, 0.1)])
def test_fma64_rounds_as_the_exact_product_and_sum(b, c):
    """fma64 against exact rational arithmetic (float(Fraction) rounds correctly), including a c far
    below the product's ulp: a plain two-sum left a false tie there (uniform_(1e-265, 1.5) was one
    ulp off torch in ~40% of draws)."""
    from fractions import Fraction
    a = np.random.default_rng(7).random(3000)
    want = np.array([float(Fraction(x) * Fraction(b) + Fraction(c)) for x in a])
    for got in (rng_math.fma64(a, b, c), rng_math.fma64(a, np.full(a.size, b), np.full(a.size, c))):
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("cap", ["default", "avx2"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_fill_writes_into_the_tensors_memory(cap, dtype):
    """normal_fill puts its values straight into out (a contiguous tensor's memory) on every path, the
    ragged last block included: the values and the generator state are those of a draw without out."""
    from gradcli.engine import rng, rng_ops
    rng_math.set_capability(cap)
    try:
        for n in (16, 1000, 70003):
            a, b = rng.Generator().manual_seed(5), rng.Generator().manual_seed(5)
            want = rng_ops.normal_fill(a, n, 0.5, 2.0, dtype)
            buf = np.full(n, np.nan, dtype)
            got = rng_ops.normal_fill(b, n, 0.5, 2.0, dtype, out=buf)
            assert got is buf
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
            assert a.get_state_bytes() == b.get_state_bytes()
    finally:
        rng_math.set_capability(None)


def _edge_words(n, seed):
    """n random 32-bit words (uint32) whose low 24 bits include the edges test_avx_blocks_match_the_reference
    pins (u1 = 1, 2**-24, 11 2**-24; theta = 0, pi, 3 pi / 4, just below 2 pi), high bits set at random."""
    w = np.random.default_rng(seed).integers(0, 1 << 32, n, dtype=np.uint32)
    edges = [(0, 0), ((1 << 24) - 1, 1 << 23), ((1 << 24) - 11, 3 << 21), (5, 0), (1 << 23, (1 << 24) - 1)]
    for b, (k1, k2) in enumerate(edges[: n // 16]):
        w[16 * b:16 * b + 8] = (w[16 * b:16 * b + 8] & 0xFF000000) | (k1 & 0xFFFFFF)
        w[16 * b + 8:16 * b + 16] = (w[16 * b + 8:16 * b + 16] & 0xFF000000) | (k2 & 0xFFFFFF)
    return w


def _numpy_blocks(words, swapped, mean, std, cap):
    """The NumPy reference of normal_fill_f32 over words (rng_math's readable code, this capability)."""
    k = (words & 0xFFFFFF).astype(np.int32)
    if swapped:
        k = k.reshape(-1, 2)[:, ::-1].reshape(-1)
    rng_math.set_capability(cap)
    try:
        return _blocks(False, k.astype(np.float32) * np.float32(2.0 ** -24), mean, std)
    finally:
        rng_math.set_capability(None)


@pytest.mark.parametrize("kind,cap", [(1, "avx2"), (2, "avx2"), (0, "default")])
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (-0.0, 1.0), (0.5, 2.0), (-1e-3, 0.02), (3.0, 0.1),
                                      (0.25, 2.0 ** -70), (1e30, 1e-30)])
def test_native_blocks_match_the_reference(native_module, kind, cap, mean, std):
    """normal_fill_f32 of kind 1 (AVX2 intrinsics where this CPU has them), 2 (the fused arithmetic lane by
    lane with fmaf: an emulated capability) and 0 (DEFAULT: logf, sinf, cosf) against rng_math."""
    if kind == 0 and not rng_libm._glibc_float_ok("logf"):
        pytest.skip("the C library's logf is not the one rng_libm emulates here")
    C = native_module("rng")
    n = 16 * 1001
    for swapped in (False, True):
        w = _edge_words(n, 3 + swapped)
        got = np.full(n, np.nan, np.float32)
        C.normal_fill_f32(w, got, mean, std, swapped, kind)
        assert np.array_equal(_bits(got), _bits(_numpy_blocks(w, swapped, mean, std, cap)))


def test_native_fused_kinds_agree(native_module):
    """The AVX2 intrinsics and the lane-by-lane fmaf code (kind 1 where the CPU lacks AVX2) give the same
    bits; fused_path says which one kind 1 runs here."""
    C = native_module("rng")
    assert C.fused_path() in ("avx2", "scalar")
    w = _edge_words(16 * 4099, 21)
    a, b = np.empty(w.size, np.float32), np.empty(w.size, np.float32)
    C.normal_fill_f32(w, a, 0.5, 2.0, True, 1)
    C.normal_fill_f32(w, b, 0.5, 2.0, True, 2)
    assert np.array_equal(_bits(a), _bits(b))


@pytest.mark.parametrize("cap", ["default", "avx2"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_normal_fill_with_and_without_the_c_kernel(native_module, monkeypatch, cap, dtype):
    """Whole draws through rng_ops.normal_fill (sizes around the C kernel's chunk, ragged ends, into a
    tensor's memory or not): the same values and the same generator state after, C or NumPy."""
    from gradcli import native
    from gradcli.engine import rng, rng_ops
    built = native_module("rng")
    rng_math.set_capability(cap)
    try:
        for n in (16, 37, 1000, rng_ops._NATIVE_CHUNK + 16 * 3 + 5, 2 * rng_ops._NATIVE_CHUNK):
            states, values = [], []
            for on in (True, False):  # (whatever GRADCLI_NATIVE says)
                monkeypatch.setattr(native, "_loaded", {"rng": built if on else None})
                g = rng.Generator().manual_seed(n)
                out = np.full(n, np.nan, dtype) if n % 2 else None
                v = rng_ops.normal_fill(g, n, -0.25, 1.5, dtype, out=out)
                assert (native.load("rng") is not None) == on
                values.append(np.asarray(v, dtype).view(np.uint8).copy())
                states.append(g.get_state_bytes())
            assert np.array_equal(values[0], values[1]) and states[0] == states[1]
    finally:
        rng_math.set_capability(None)


@pytest.mark.parametrize("cap", ["default", "avx2"])
@pytest.mark.parametrize("start,to", [(0.0, 1.0), (0.0, 2.5), (-0.3, 0.7), (-0.41, 0.41), (2.0, 5.5), (-0.0, 0.0),
                                      (1000.0, 1000.5), (-1e-3, 1e30), (0.0, 1e-35), (-1e-35, 1e-35)])
def test_native_uniform_matches_the_reference(native_module, cap, start, to):
    """uniform_f32 (csrc/rng.c) against rng_math.uniform_transform and uniform_'s `to` -> `from`, fused and
    not, the words in order and as swapped pairs."""
    C = native_module("rng")
    w = np.random.default_rng(2).integers(0, 1 << 32, 20000, dtype=np.uint32)
    w[:2] = (0, (1 << 32) - 1)  # u = 0 and the largest u
    f, t = np.float32(start), np.float32(to)
    rng_math.set_capability(cap)
    try:
        for swapped in (False, True):
            k = (w & 0xFFFFFF).astype(np.int32)
            if swapped:
                k = k.reshape(-1, 2)[:, ::-1].reshape(-1)
            want = rng_math.uniform_transform(k, t - f, f, np.empty(k.size, np.float32), np.empty(k.size))
            want[want == t] = f
            got = np.full(w.size, np.nan, np.float32)
            C.uniform_f32(w, got, t - f, f, t, swapped, rng_math.fused())
            assert np.array_equal(_bits(got), _bits(want))
    finally:
        rng_math.set_capability(None)


@pytest.mark.parametrize("cap", ["default", "avx2"])
def test_uniform_with_and_without_the_c_kernel(native_module, monkeypatch, cap):
    """Whole uniform_ draws (float32 chunks, a ragged odd one, a tensor that is not contiguous, float16 and
    float64 untouched by the kernel): the same values and generator state, C or NumPy."""
    from gradcli import native
    from gradcli.engine import api, rng_ops
    built = native_module("rng")
    rng_math.set_capability(cap)
    try:
        for shape, dtype, a, b in (((rng_ops._CHUNK + 7,), "float32", -0.3, 0.7), ((5, 8), "float32", 2.0, 5.5),
                                   ((333,), "float16", 0.0, 1.0), ((100,), "float64", -1.0, 1.0)):
            got = []
            for on in (True, False):
                monkeypatch.setattr(native, "_loaded", {"rng": built if on else None})
                api.manual_seed(11)
                x = api.empty(*shape, dtype=getattr(api, dtype))
                if shape == (5, 8):
                    x = x.t()
                x.uniform_(a, b)
                got.append((np.asarray(x._data).tobytes(), api.get_rng_state().tolist()))
            assert got[0] == got[1]
    finally:
        rng_math.set_capability(None)
