"""gradcli/engine/pow_kernel.py, softmax_kernel.py and sleef.py: ATen's pow and softmax, bit for bit, per CPU capability.

Goldens (tests/golden/sleef_cases.json, from tools/gen_sleef_goldens.py) hold the sha256 of torch's result
bytes under each capability; every case is replayed here under each one (rng_math.set_capability: the
SLEEF arithmetic is emulated, so all run on any machine) with no torch. With torch importable, random
shapes and layouts are compared against it directly."""
from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest

from gradcli.engine import api, pow_kernel, rng_math, sleef
from tool_modules import load_tool

ROOT = pathlib.Path(__file__).resolve().parent.parent
GEN = load_tool("gen_sleef_goldens")
GOLDEN = json.loads((ROOT / "tests" / "golden" / "sleef_cases.json").read_text())


@pytest.fixture
def engine_setting(threads):
    """conftest's thread-count setter; the CPU capability a test selects is reset after it too."""
    yield threads
    rng_math.set_capability(None)


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=[c["id"] for c in GOLDEN["cases"]])
def test_golden(case, engine_setting):
    engine_setting(GOLDEN["num_threads"])
    if GEN.input_digests(case) != case["input_sha"]:
        pytest.skip("this NumPy draws other random numbers for the seed")
    for cap in GOLDEN["capabilities"]:
        rng_math.set_capability(cap)
        got = [GEN.digest(r) for r in GEN._torch_run(api, case)]
        assert got == case["expect"][cap], f"{case['id']} under {cap}: results (out, grads) equal: " \
            f"{[g == w for g, w in zip(got, case['expect'][cap])]}"


def test_goldens_cover_every_capability_and_differ_between_them():
    assert GOLDEN["capabilities"] == ["default", "avx2", "avx512"]
    differ = [c for c in GOLDEN["cases"] if c["expect"]["avx2"] != c["expect"]["default"]]
    assert len(differ) > 50   # DEFAULT maps glibc's powf over the vector body; AVX2/AVX512 run SLEEF


# ---------------------------------------------------------------- without torch: the pieces

@pytest.mark.parametrize("cap,n,vec", [("avx512", 40, 32), ("avx2", 40, 32), ("avx2", 47, 32), ("avx2", 48, 48),
                                       ("avx512", 31, 0), ("default", 100, 96)])
def test_vector_body_of_a_contiguous_run(cap, n, vec, engine_setting):
    rng_math.set_capability(cap)
    _, mask = pow_kernel.vector_plan((n,), [[1], [1]], 4)
    assert mask.sum() == vec and mask[:vec].all()


def test_the_tutorial_broadcast_is_all_scalar(engine_setting):
    """(2000, 1) ** (3,): inner runs of 3 elements, all in vectorized_loop's scalar remainder."""
    rng_math.set_capability("avx512")
    perm, mask = pow_kernel.vector_plan((2000, 3), [[1, 0], [0, 1]], 4)
    assert perm == [1, 0] and not mask.any()
    _, mask = pow_kernel.vector_plan((3, 2000), [[0, 1], [1, 0]], 4)   # (3, 1) ** (2000,): runs of 2000
    assert mask.reshape(3, 2000)[:, :1984].all() and not mask.reshape(3, 2000)[:, 1984:].any()


def test_strided_inner_dim_is_all_scalar(engine_setting):
    rng_math.set_capability("avx2")
    _, mask = pow_kernel.vector_plan((100,), [[2], [1]], 4)
    assert not mask.any()


def test_threads_split_the_range(engine_setting):
    """Above the 32768-element grain each thread's half has its own scalar tail."""
    rng_math.set_capability("avx512")
    engine_setting(2)
    n = 40001
    _, mask = pow_kernel.vector_plan((n,), [[1], [1]], 4)
    half = (n + 1) // 2
    assert mask.sum() == half // 32 * 32 + (n - half) // 32 * 32
    assert not mask[half // 32 * 32:half].any() and mask[half:half + 32].all()
    engine_setting(1)
    _, mask = pow_kernel.vector_plan((n,), [[1], [1]], 4)
    assert mask.sum() == n // 32 * 32


def _c_powf():
    import ctypes  # noqa: PLC0415
    try:
        f = ctypes.CDLL("libm.so.6").powf
    except OSError:
        pytest.skip("no glibc libm here")
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    return np.frompyfunc(f, 2, 1)


def test_powf_is_glibc_powf():
    """The NumPy first guess plus the C call near rounding boundaries gives glibc's powf exactly."""
    f = _c_powf()
    rng = np.random.default_rng(5)
    n = 60000
    x = np.concatenate([rng.uniform(0, 4, n), np.exp(rng.uniform(-80, 80, n)), rng.uniform(-3, 3, n),
                        1 + rng.uniform(-1e-3, 1e-3, n)]).astype(np.float32)
    y = np.concatenate([rng.uniform(-6, 6, n), rng.uniform(-1, 1, n), np.round(rng.uniform(-9, 9, n)),
                        rng.uniform(-3e3, 3e3, n)]).astype(np.float32)
    with np.errstate(all="ignore"):
        want = np.asarray(f(x, y), np.float32)
    got = pow_kernel.powf(x, y)
    assert got.view(np.int32).tolist() == want.view(np.int32).tolist()
    # the shortcut alone (the double power rounded) is not powf: that is why the boundaries are checked
    with np.errstate(all="ignore"):
        rounded = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    assert (rounded != want).sum() > 10


def test_expf_is_glibc_expf():
    """sigmoid's and silu's scalar tail: the float64 exp rounded, the C function near boundaries."""
    import ctypes  # noqa: PLC0415
    try:
        f = ctypes.CDLL("libm.so.6").expf
    except OSError:
        pytest.skip("no glibc libm here")
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    x = np.random.default_rng(8).uniform(-104, 89, 200000).astype(np.float32)
    want = np.asarray(np.frompyfunc(f, 1, 1)(x), np.float32)
    assert pow_kernel.expf(x).tobytes() == want.tobytes()


def test_pow32_double_is_glibc_pow_rounded():
    rng = np.random.default_rng(6)
    x = np.concatenate([rng.uniform(0, 4, 20000), rng.uniform(-3, 3, 2000)]).astype(np.float32)
    for p in (2.5, -1.5, 4.0, 1 / 3, 7.0):
        want = np.array([np.float32(math.pow(float(v), p)) if v >= 0 or p == int(p) else np.float32("nan")
                         for v in x])
        got = pow_kernel.pow32_double(x, p)
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        assert same.all(), p


def test_pow64_special_values():
    x = np.array([0.0, -0.0, -0.0, -2.0, 1e300, -1e300, np.nan, 1.0, -1.0])
    y = np.array([-1.0, -3.0, -2.0, 0.5, 3.0, 3.0, 2.0, np.nan, np.inf])
    got = pow_kernel.pow64(x, y)
    assert got[0] == np.inf and got[1] == -np.inf and got[2] == np.inf
    assert np.isnan(got[3]) and np.signbit(got[3])          # glibc's invalid result: the x86 default NaN
    assert got[4] == np.inf and got[5] == -np.inf and np.isnan(got[6]) and got[7] == 1.0 and got[8] == 1.0


def test_sleef_builds_agree_on_normal_inputs():
    """AVX2 takes log's exponent from the bits, AVX512 from getexp/getmant: the same numbers."""
    rng = np.random.default_rng(7)
    x = np.exp(rng.uniform(-80, 80, 20000)).astype(np.float32)
    y = rng.uniform(-1, 1, 20000).astype(np.float32)
    a, b = sleef.powf(x, y, True), sleef.powf(x, y, False)
    assert a.tobytes() == b.tobytes()
    xd, yd = x.astype(np.float64) ** 3, y.astype(np.float64)
    assert sleef.powd(xd, yd, True).tobytes() == sleef.powd(xd, yd, False).tobytes()


def test_sleef_powf_special_values():
    x = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1, -1, -2, 2, 0.5], np.float32)
    y = np.array([-1, -3, -2, 3, 0, np.nan, np.inf, 3, np.inf, -np.inf], np.float32)
    got = sleef.powf(x, y, True)
    want = [np.inf, -np.inf, 0, -np.inf, 1, 1, 1, -8, np.inf, np.inf]
    assert got.tolist() == want


def test_zero_dim_operands_give_zero_dim_results():
    x = api.tensor(2.5)
    assert [tuple(r.shape) for r in (x ** x, 2 ** x, x ** 1.5, api.pow(x, api.tensor([2.0])))] == [(), (), (), (1,)]
    assert (2 ** x).item() == float(np.float32(2 ** 2.5))


def test_pow_results_keep_torchs_layout():
    """A transposed base gives a transposed result, as TensorIterator allocates it."""
    x = api.from_numpy(np.arange(1, 13, dtype=np.float32).reshape(3, 4)).t()
    r = x ** 2.5
    assert r._data.strides == (4, 16) and r.tolist()[1][2] == pytest.approx(10.0 ** 2.5)


# ---------------------------------------------------------------- with torch: random cases, this machine

def _random_cases(rng, n):
    out = []
    for i in range(n):
        dt = str(rng.choice(["float32", "float64"]))
        nd = int(rng.integers(1, 4))
        shape = [int(rng.choice([1, 2, 3, 7, 8, 16, 17, 33, 40, 64])) for _ in range(nd)]
        x = {"shape": shape, "dtype": dt, "seed": 500 + i, "scale": 2.0, "abs": bool(rng.random() < 0.5)}
        if nd >= 2 and rng.random() < 0.4:
            x["layout"] = [["permute", [int(v) for v in rng.permutation(nd)]]]
        kind = str(rng.choice(["tt", "ts", "st"]))
        if kind == "tt":
            yshape = list(shape if rng.random() < 0.5 else shape[int(rng.integers(0, nd)):])
            if yshape and rng.random() < 0.3:
                yshape[0] = 1
            y = {"shape": yshape, "dtype": dt, "seed": 900 + i, "scale": 2.0, "round": bool(rng.random() < 0.5)}
            if yshape and x.get("layout"):
                x = {k: v for k, v in x.items() if k != "layout"}
        elif kind == "ts":
            y = float(rng.choice([2.5, -1.25, 5.0, 0.3]))
        else:
            x, y = float(rng.choice([2.0, 0.7, -3.0])), {**x, "round": True}
        out.append({"id": f"r{i}", "kind": kind, "dtype": dt, "x": x, "y": y, "grad": bool(rng.random() < 0.3)})
    return out


def test_random_cases_against_torch(engine_setting, monkeypatch):
    """Bit for bit on this machine. The exponent's gradient (pow_backward_exponent: out * log(x)) also
    takes torch.log, which is MKL VML's (docs/numerics.md): its float32 results differ from gradcli's
    correctly rounded ones on ~0.01% of inputs on Intel AVX-512 but ~8% on an AMD AVX2 CPU (float64
    ~0.1%), where gradcli without the mkl extra cannot follow. A case that differs is rerun with the
    engine's log replaced by torch's own: pow's kernels must then give torch's bits, so what is left
    of the difference is VML's log alone (and with the mkl extra loaded, the first run is torch's)."""
    torch = pytest.importorskip("torch")
    from gradcli.engine.ops import unary_math  # noqa: PLC0415

    engine_setting(torch.get_num_threads())
    bad, vml_log = [], []
    for case in _random_cases(np.random.default_rng(11), 150):
        want = [GEN.digest(r) for r in GEN._torch_run(torch, case)]
        got = [GEN.digest(r) for r in GEN._torch_run(api, case)]
        if got == want:
            continue
        with monkeypatch.context() as m:
            m.setattr(unary_math.LogBackward0, "forward",
                      staticmethod(lambda a: torch.log(torch.from_numpy(np.ascontiguousarray(a))).numpy()))
            again = [GEN.digest(r) for r in GEN._torch_run(api, case)]
        if got[:-1] != want[:-1] or again != want:   # the last result is the exponent's gradient
            bad.append(case["id"])
        else:
            vml_log.append(case["id"])
    assert not bad, bad
    assert len(vml_log) < 20, vml_log   # ~8 of 150 on AMD AVX2 (float32 exponents with a gradient)


def test_softmax_lastdim_random_against_torch(engine_setting):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    bad = []
    for i in range(60):
        shape = [int(v) for v in rng.integers(1, 6, int(rng.integers(0, 3)))] + [int(rng.integers(1, 130))]
        x = (rng.standard_normal(shape) * float(rng.choice([0.5, 3.0, 40.0]))).astype(np.float32)
        if x.size > 4 and rng.random() < 0.3:
            x.reshape(-1)[int(rng.integers(0, x.size))] = float(rng.choice([np.inf, -np.inf, np.nan]))
        g = rng.standard_normal(shape).astype(np.float32)
        for name in ("softmax", "log_softmax"):
            t = torch.from_numpy(x).requires_grad_()
            want = getattr(torch, name)(t, -1)
            want.backward(torch.from_numpy(g))
            a = api.tensor(x, requires_grad=True)
            got = getattr(api, name)(a, -1)
            got.backward(api.tensor(g))
            if got._data.tobytes() != want.detach().numpy().tobytes():
                bad.append((name, shape))
            if a.grad._data.tobytes() != t.grad.numpy().tobytes():
                bad.append((name, "backward", shape))
    assert not bad, bad
