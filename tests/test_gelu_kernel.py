"""gradcli/engine/gelu_kernel.py: torch's float32 GELU (approximate='none'), forward and backward, bit for bit:
oneDNN's eltwise kernel for contiguous inputs of two or more elements, ATen's cpu_kernel_vec elsewhere (its
vector body's polynomial erf, glibc's erff on the tail and under DEFAULT)."""
from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from gradcli.engine import api, gelu_kernel, rng_math

_F32 = np.float32
_SPECIAL = [0.0, -0.0, 1e-30, -1e-40, 50.0, -50.0, -9.0, -10.0, -13.0, -14.0, np.inf, -np.inf, np.nan,
            3e38, -3e38, 5.5, -5.5, 0.70710677, -0.70710677, 1e-3, -1e-3]


@pytest.fixture
def capability():
    yield rng_math.set_capability
    rng_math.set_capability(None)


def _inputs(seed=0):
    """about 100K float32 values: N(0, 3), wide magnitudes and the special values."""
    rng = np.random.default_rng(seed)
    wide = np.exp(rng.uniform(-20, 3, 20000)) * rng.choice([-1, 1], 20000)
    return np.concatenate([rng.standard_normal(80000) * 3, wide, _SPECIAL]).astype(_F32)


def _layouts(x):
    """(name, array) views of x: contiguous at several lengths (the vector loop's tails, the thread split
    above 16384 elements), a single element, transposed, stepped and row-sliced."""
    yield "all", x
    for n in (1, 2, 7, 15, 16, 17, 33, 1000, 20001):
        yield f"len{n}", x[:n]
    m = x[:300 * 311].reshape(300, 311)
    yield "transposed", m.T
    yield "stepped", m[:, ::2]
    yield "rows", m[::3]
    yield "column", m[:, 5]


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint32)


def test_onednn_is_taken_for_contiguous_float32_of_two_or_more():
    x = np.zeros((3, 4), _F32)
    assert gelu_kernel.uses_onednn(x) and gelu_kernel.uses_onednn(x[1:2]) and gelu_kernel.uses_onednn(x[:, None])
    assert not gelu_kernel.uses_onednn(x.T) and not gelu_kernel.uses_onednn(x[:, ::2])
    assert not gelu_kernel.uses_onednn(x[:1, :1]) and not gelu_kernel.uses_onednn(x.astype(np.float64))


@pytest.mark.parametrize("cap", ["default", "avx2", "avx512"])
def test_every_path_is_close_to_the_exact_gelu(cap, capability):
    """Each kernel's erf is an approximation evaluated in float32 (Abramowitz-Stegun: about 1e-7 absolute;
    the AVX-512 minimax pieces lose up to ~1e-6 to cancellation in their Horner steps): the results stay
    within a few float32 ulps plus 1e-6 * max(1, |x|) of x * Phi(x), the derivative within 1e-6 of
    Phi(x) + x * phi(x)."""
    capability(cap)
    x = _inputs(1)[:20000]
    x = x[np.abs(x) < 1e4]
    exact = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    dexact = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) + v * math.exp(-v * v / 2) / math.sqrt(2 * math.pi)
                       for v in x.astype(np.float64)])
    for arr in (x, x[::2]):   # oneDNN's and ATen's
        ex = exact if arr is x else exact[::2]
        dex = dexact if arr is x else dexact[::2]
        got = gelu_kernel.gelu32(arr).astype(np.float64)
        assert np.all(np.abs(got - ex) <= 4 * np.spacing(np.abs(ex).astype(_F32)) + 1e-6 * np.maximum(1, np.abs(arr)))
        d = gelu_kernel.gelu_backward32(np.ones_like(arr), arr).astype(np.float64)
        assert np.all(np.abs(d - dex) <= 1e-6)


def test_the_avx512_minimax_pieces_join_and_saturate(capability):
    """oneDNN's AVX-512 forward (25 polynomials in |x|): continuous within float32 noise across every piece
    boundary, odd in x, exactly x beyond its right bound and 0 far left."""
    capability("avx512")
    edges = np.arange(1, 25, dtype=np.int32)
    b = ((edges << 21) - np.int32(-0x3DE00001)).view(_F32)          # where the piece index steps
    b = b[np.isfinite(b) & (b > 0) & (b < 6)]
    lo = np.nextafter(b, _F32(0))
    got_lo, got_hi = gelu_kernel.gelu32(lo), gelu_kernel.gelu32(b)
    assert np.all(np.abs(got_hi - got_lo) <= 1e-6 * np.maximum(1, b))
    x = np.array([6.0, 10.0, 100.0, -6.0, -100.0], _F32)
    assert gelu_kernel.gelu32(x).tolist() == [6.0, 10.0, 100.0, -0.0, -0.0]


def test_the_engine_op_uses_the_kernel(capability):
    capability("avx2")
    x = _inputs(2)[:4000]
    t = api.tensor(x, requires_grad=True)
    y = api.nn.functional.gelu(t)
    assert np.array_equal(_bits(y.detach().numpy()), _bits(gelu_kernel.gelu32(x)))
    g = api.tensor(np.linspace(-2, 2, x.size).astype(_F32))
    y.backward(g)
    assert np.array_equal(_bits(t.grad.numpy()), _bits(gelu_kernel.gelu_backward32(g.numpy(), x)))


# ---------------------------------------------------------------- against torch

def _torch_gelu(torch, arr, gy):
    base = np.ascontiguousarray(arr)
    # rebuild the layout in torch: the same strides decide the kernel there
    xt = torch.from_numpy(base) if arr.flags.c_contiguous else None
    if xt is None:
        full = torch.from_numpy(np.ascontiguousarray(arr.base if arr.base is not None else arr))
        off = (arr.__array_interface__["data"][0] - (arr.base if arr.base is not None else arr)
               .__array_interface__["data"][0]) // arr.itemsize
        xt = torch.as_strided(full, arr.shape, [s // arr.itemsize for s in arr.strides], off)
    xt = xt.detach().requires_grad_()
    y = torch.nn.functional.gelu(xt)
    y.backward(torch.from_numpy(gy))
    return y.detach().numpy(), xt.grad.numpy()


def _compare(torch, seed):
    rng = np.random.default_rng(seed)
    bad = []
    for name, arr in _layouts(_inputs(seed)):
        gy = rng.standard_normal(arr.shape).astype(_F32)
        want_y, want_g = _torch_gelu(torch, arr, gy)
        got_y, got_g = gelu_kernel.gelu32(arr), gelu_kernel.gelu_backward32(gy, arr)
        for what, got, want in (("forward", got_y, want_y), ("backward", got_g, want_g)):
            n = int((_bits(got) != _bits(want)).sum())
            if n:
                bad.append(f"{name} {what}: {n} of {arr.size} differ")
    return bad


def test_bit_for_bit_with_torch(threads, capability):
    torch = pytest.importorskip("torch")
    threads(torch.get_num_threads())
    capability(torch.backends.cpu.get_cpu_capability().lower())
    assert _compare(torch, 3) == []


@pytest.mark.filterwarnings("ignore::UserWarning")   # torch.backends.mkldnn.flags on a CPU build
def test_bit_for_bit_with_torch_without_onednn(threads, capability, monkeypatch):
    """torch.backends.mkldnn disabled: every input takes ATen's kernel."""
    torch = pytest.importorskip("torch")
    threads(torch.get_num_threads())
    capability(torch.backends.cpu.get_cpu_capability().lower())
    monkeypatch.setattr(gelu_kernel, "uses_onednn", lambda x: False)
    with torch.backends.mkldnn.flags(enabled=False):
        assert _compare(torch, 4) == []


def test_bit_for_bit_with_torch_under_default(tmp_path):
    """ATEN_CPU_CAPABILITY=default, in a fresh interpreter (torch reads it once): ATen's kernel maps glibc's
    erff over the vector body; oneDNN keeps its own ISA."""
    pytest.importorskip("torch")
    code = ("import sys, test_gelu_kernel as T, torch\n"
            "from gradcli.engine import numerics\n"
            "numerics.NUM_THREADS = torch.get_num_threads()\n"
            "bad = T._compare(torch, 5)\n"
            "with torch.backends.mkldnn.flags(enabled=False):\n"
            "    T.gelu_kernel.uses_onednn = lambda x: False\n"
            "    bad += T._compare(torch, 6)\n"
            "print(bad)\n")
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = os.pathsep.join([here, os.path.dirname(here), env.get("PYTHONPATH", "")])
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600,
                       check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().splitlines()[-1] == "[]"


def test_float16_bit_for_bit_with_torch(threads, capability):
    """float16 takes ATen's kernel (oneDNN's float16 needs AVX512-FP16/AMX): computed in float, rounded once,
    the vector plan the float16 array's."""
    torch = pytest.importorskip("torch")
    threads(torch.get_num_threads())
    capability(torch.backends.cpu.get_cpu_capability().lower())
    rng = np.random.default_rng(9)
    x = (rng.standard_normal(40000) * 3).astype(np.float16)
    for arr in (x, x[:1], x[:33], x[:1000], x[:2000].reshape(40, 50).T, x[::3]):
        gy = rng.standard_normal(arr.shape).astype(np.float16)
        want_y, want_g = _torch_gelu(torch, arr, gy)
        assert np.array_equal(gelu_kernel.gelu16(arr).view(np.uint16), np.ascontiguousarray(want_y).view(np.uint16))
        assert np.array_equal(gelu_kernel.gelu_backward16(gy, arr).view(np.uint16),
                              np.ascontiguousarray(want_g).view(np.uint16))
