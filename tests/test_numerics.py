"""gradcli/engine/numerics.py: torch's CPU summation order, bit for bit.

Goldens (tests/golden/numerics_cases.json, from tools/gen_numerics_goldens.py) need no torch;
with torch importable, random shapes/layouts/dims are compared against it directly."""
from __future__ import annotations

import json
import pathlib
import time

import numpy as np
import pytest

from gradcli.engine import cascade as C
from gradcli.engine import numerics as N
from gradcli.engine import sum_gather
from tool_modules import load_tool

ROOT = pathlib.Path(__file__).resolve().parent.parent
GEN = load_tool("gen_numerics_goldens")
GOLDEN = json.loads((ROOT / "tests" / "golden" / "numerics_cases.json").read_text())


def bits(r):
    return GEN.to_hex(np.asarray(r))


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=[c["id"] for c in GOLDEN["cases"]])
def test_golden(case, threads):
    threads(GOLDEN["num_threads"])
    a = GEN.make_array(case)
    if GEN.input_digest(a) != case["input_sha"]:
        pytest.skip("this NumPy draws other random numbers for the seed")
    got = [bits(r) for r in GEN.run_numerics(N, case, a)]
    assert got == case["expect"]


# ---------------------------------------------------------------- without torch: the building blocks

def _ref_multi_row_sum(rows, dt):
    """A literal, scalar transcription of ATen's multi_row_sum (rows: list of lane tuples)."""
    size = len(rows)
    nl = len(rows[0]) if rows else 1
    p = max(4, C.ceil_log2(size) // 4)
    step, mask = 1 << p, (1 << p) - 1
    acc = [[dt(0)] * nl for _ in range(4)]
    i = 0
    while i + step <= size:
        for _ in range(step):
            for k in range(nl):
                acc[0][k] = dt(acc[0][k] + rows[i][k])
            i += 1
        for j in range(1, 4):
            for k in range(nl):
                acc[j][k] = dt(acc[j][k] + acc[j - 1][k])
                acc[j - 1][k] = dt(0)
            if i & (mask << (j * p)):
                break
    while i < size:
        for k in range(nl):
            acc[0][k] = dt(acc[0][k] + rows[i][k])
        i += 1
    for j in range(1, 4):
        for k in range(nl):
            acc[0][k] = dt(acc[0][k] + acc[j][k])
    return acc[0]


def _ref_row_sum(x, dt):
    n = len(x)
    s = n // 4
    parts = _ref_multi_row_sum([tuple(x[4 * i:4 * i + 4]) for i in range(s)], dt) if s else [dt(0)] * 4
    for i in range(4 * s, n):
        parts[0] = dt(parts[0] + x[i])
    for k in range(1, 4):
        parts[0] = dt(parts[0] + parts[k])
    return parts[0]


@pytest.mark.parametrize("n", [0, 1, 3, 4, 15, 16, 17, 64, 65, 255, 256, 257, 1000, 4096, 5000])
def test_row_sum_matches_a_literal_transcription(n):
    x = (np.random.default_rng(n).standard_normal(n) * 1000).astype(np.float32)
    want = _ref_row_sum(list(x), np.float32)
    got = C.row_sum(x.reshape(n, 1))[0] if n else np.float32(0)
    assert np.float32(got).tobytes() == np.float32(want).tobytes()


def test_seq_is_a_running_sum():
    x = (np.random.default_rng(0).standard_normal((300, 3, 5)) * 1e4).astype(np.float32)
    for axis in (0, 1, 2):
        xm = np.moveaxis(x, axis, 0)
        acc = xm[0].copy()
        for i in range(1, xm.shape[0]):
            acc = acc + xm[i]
        assert np.array_equal(C.seq(x, axis), acc)


def test_sum_basics():
    assert N.torch_sum(np.array([-0.0, -0.0], np.float32)).tobytes() == np.float32(0).tobytes()
    assert N.torch_sum(np.arange(10, dtype=np.int32)).dtype == np.int64
    assert N.torch_sum(np.array([True, True, False])) == 2
    assert N.torch_sum(np.ones((2, 3), np.float32), ()).shape == ()          # dim=[] reduces all
    assert N.torch_sum(np.ones((2, 3), np.float32), (1,), True).shape == (2, 1)
    assert N.torch_sum(np.zeros((0, 3), np.float32), (0,)).tolist() == [0, 0, 0]
    assert np.isnan(N.torch_mean(np.zeros(0, np.float32)))
    assert N.torch_mean(np.float16([1, 2])).dtype == np.float16


_FULL_LENGTHS = list(range(1, 70)) + [127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 2047, 2048, 2049, 4100,
                                        8191, 8192, 9000, 16384, 20000, 32767]


@pytest.fixture
def vec_bytes():
    old = N.VEC_BYTES
    yield lambda n: setattr(N, "VEC_BYTES", n)
    N.VEC_BYTES = old


@pytest.fixture(params=["c", "numpy"])
def small_sum_kernels(request, monkeypatch, native_module):
    """The small sums' two implementations: csrc/engine.c's (skipped when it cannot be built) and the
    NumPy plans."""
    monkeypatch.setattr(N, "_KERNELS", [None if request.param == "numpy" else native_module("engine")])


@pytest.mark.parametrize("width", [32, 64])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_small_full_sum_plan_matches_the_general_path(width, dt, vec_bytes, small_sum_kernels):
    """torch_sum/torch_mean of a small dense array over every dim (the loss's mean) take a plan
    per length (or csrc/engine.c's sum_all): the same bits as the iterator path for every length
    class (scalar kernel, one vector, row_sum's plan, its generic form past 255 vectors), layout and
    -0/inf/nan."""
    vec_bytes(width)
    rng = np.random.default_rng(width)
    for n in _FULL_LENGTHS:
        for kind in range(4):
            x = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6, n)
            if kind == 1:
                x = np.abs(x)
            elif kind == 2:
                x[rng.integers(0, n)] = -0.0
                x[x > 1] *= -1e-30
            elif kind == 3 and n > 2:
                x[rng.integers(0, n)] = [np.inf, -np.inf, np.nan][n % 3]
            x = x.astype(dt)
            shapes = [(n,), (1, n), (n, 1)] + ([(2, n // 2)] if n % 2 == 0 else [])
            for shape in shapes:
                for a in (x.reshape(shape), x.reshape(shape[::-1]).T):
                    want = N._sum_float(a, tuple(range(a.ndim)), False, fast=False)
                    got = N.torch_sum(a)
                    assert (got.shape, got.dtype, got.tobytes()) == (want.shape, want.dtype, want.tobytes()), (n, shape)
                    kept = N.torch_sum(a, tuple(range(a.ndim)), True)
                    assert kept.shape == (1,) * a.ndim and kept.tobytes() == want.tobytes()
                    mean = N.torch_mean(a)
                    assert mean.shape == () and mean.dtype == dt
                    assert mean.tobytes() == np.asarray(want / dt(n), dt).tobytes()
    assert N.torch_sum(np.array([-0.0], dt)).tobytes() == dt(0).tobytes()
    assert N.torch_sum(np.array(-0.0, dt)).tobytes() == dt(0).tobytes()


_SUM0_SHAPES = [(n, m) for n in (2, 3, 4, 5, 7, 15, 16, 17, 31, 32, 33, 47, 64, 100, 255)
                for m in (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 31, 32, 33, 40, 50, 64, 100)]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_small_sum0_plans_match_the_general_path(dt, small_sum_kernels):
    """torch.sum(a, 0) of a small C-contiguous (n, m) array (a Linear layer's bias gradient) takes a
    plan per shape: multi_row_sum's order for the vectorised blocks' columns, row_sum's for the rest,
    and for shapes with both (up to sum_gather.MAX_ITEMS items) sum_gather's gather plan: the same bits
    as the iterator path, with -0, inf and nan, for every shape class."""
    rng = np.random.default_rng(7)
    gathered = 0
    for n, m in _SUM0_SHAPES:
        for kind in range(4):
            a = rng.standard_normal((n, m)) * 10.0 ** rng.integers(-3, 6, (n, m))
            if kind == 1:
                a = np.abs(a)
            elif kind == 2:
                a[a > 1] *= -1e-30
                a[rng.integers(0, n), rng.integers(0, m)] = -0.0
                a[:, 0] = -0.0
            elif kind == 3:
                a[rng.integers(0, n), rng.integers(0, m)] = [np.inf, -np.inf, np.nan][(n + m) % 3]
            a = a.astype(dt)
            want = N._sum_float(a, (0,), False, fast=False)
            got = N.torch_sum(a, (0,))
            assert (got.shape, got.dtype, got.tobytes()) == (want.shape, want.dtype, want.tobytes()), (n, m, kind)
            assert N.sum_rows(a).tobytes() == want.tobytes()
        k = N._KINDS[np.dtype(dt)]
        cut = (m // (4 * k.wacc)) * 4 * k.wacc if m >= k.wvec else (m // 4) * 4
        gathered += 0 < cut < m and n * m <= sum_gather.MAX_ITEMS
    assert gathered > 20   # the gather plans were among them


def test_sum_speed():
    x = np.random.default_rng(1).standard_normal(1 << 22).astype(np.float32)
    t0 = time.perf_counter()
    N.torch_sum(x)
    assert time.perf_counter() - t0 < 2.0


# ---------------------------------------------------------------- against torch, when it is here

def _torch():
    torch = pytest.importorskip("torch")
    if torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"):
        pytest.skip("numerics models the AVX2 sum kernel torch runs on AVX2/AVX512 machines")
    return torch


def _random_spec(rng, i):
    op = str(rng.choice(["sum", "sum", "sum", "mean", "var", "std_mean"]))
    nd = int(rng.integers(0, 5))
    shape = [int(rng.choice([1, 2, 3, 4, 7, 16, 17, 33, 64, 100, 257])) for _ in range(nd)]
    while int(np.prod(shape)) > (300000 if op in ("sum", "mean") else 20000):
        shape[int(np.argmax(shape))] //= 2
    if nd and op in ("sum", "mean") and rng.random() < 0.15:
        shape[int(rng.integers(0, nd))] = int(rng.integers(3000, 40000)) // max(1, int(np.prod(shape)) // 40 + 1)
    dt = str(rng.choice(["float32", "float32", "float64", "float16"]))
    layout = []
    if nd >= 2 and rng.random() < 0.4:
        layout.append(["permute", [int(d) for d in rng.permutation(nd)]])
    if nd and rng.random() < 0.3:
        layout.append(["slice", int(rng.integers(0, nd)), int(rng.integers(0, 2)), None, int(rng.integers(1, 3))])
    if rng.random() < 0.2:
        layout.append(["expand", int(rng.integers(0, nd + 1)), int(rng.integers(2, 5))])
    ndim = nd + sum(s[0] == "expand" for s in layout)
    dims = None if not ndim or rng.random() < 0.25 else \
        sorted(int(d) for d in rng.choice(ndim, int(rng.integers(1, ndim + 1)), replace=False))
    return {"id": f"r{i}", "op": op, "seed": 1000 + i, "shape": shape, "dtype": dt, "layout": layout, "dims": dims,
            "keepdim": bool(rng.random() < 0.3), "correction": int(rng.integers(0, 2)), "offset": float(rng.standard_normal()),
            "scale": float(10 ** rng.uniform(-2, 2)) * (0.05 if dt == "float16" else 1.0)}


def test_random_reductions_against_torch(threads):
    torch = _torch()
    threads(torch.get_num_threads())
    rng = np.random.default_rng(7)
    bad = []
    for i in range(200):
        spec = _random_spec(rng, i)
        with np.errstate(all="ignore"):
            want = [GEN.to_hex(w) for w in GEN.run_torch(torch, spec)]
            got = [bits(g) for g in GEN.run_numerics(N, spec)]
        if got != want:
            bad.append(spec)
    assert not bad, bad[:3]


@pytest.mark.parametrize("name,lo,hi,floor32", [("exp", -20, 20, 97), ("log", 1e-3, 1e4, 99), ("tanh", -10, 10, 98),
                                                ("sin", -10, 10, 93), ("expm1", -5, 5, 97)])
def test_ufunc_agrees_with_torch_mostly(name, lo, hi, floor32):
    torch = _torch()
    x = np.random.default_rng(3).uniform(lo, hi, 50000).astype(np.float32)
    want = getattr(torch, name)(torch.from_numpy(x)).numpy()
    got = N.ufunc(getattr(np, name))(x)
    assert got.dtype == np.float32
    assert (got == want).mean() * 100 >= floor32


def test_sigmoid_silu_against_torch():
    torch = _torch()
    x = np.random.default_rng(4).uniform(-20, 20, 50000).astype(np.float32)
    t = torch.from_numpy(x)
    assert (N.sigmoid(x) == torch.sigmoid(t).numpy()).mean() > 0.93
    assert (N.silu(x) == torch.nn.functional.silu(t).numpy()).mean() > 0.93
    h = x.astype(np.float16)
    assert (N.sigmoid(h) == torch.sigmoid(torch.from_numpy(h)).numpy()).mean() > 0.99


@pytest.mark.parametrize("shape, dim", [((4000, 3), 1), ((4000, 7), -1), ((7, 2000), 0), ((40, 5, 30), 1)])
def test_softmax_family_order_against_torch(shape, dim):
    """float32 softmax/log_softmax over a dim ATen sums in order (a last dim under 8, any other dim):
    the exps added in that order, exp and log rounded once. What still differs is SLEEF's 1-ulp exp
    and log; NumPy's own sum and exp differed on 10-19% (log_softmax) and 33-44% (softmax)."""
    torch = pytest.importorskip("torch")
    from gradcli.engine import api
    gen = torch.Generator().manual_seed(3)
    z = torch.randn(*shape, generator=gen) * 3
    for name, limit in (("log_softmax", 0.04), ("softmax", 0.12)):
        want = getattr(torch, name)(z, dim).numpy()
        got = getattr(api, name)(api.tensor(z.numpy()), dim)._data
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert (got != want).mean() < limit, name
