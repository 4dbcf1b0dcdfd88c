"""The window functions (gradcli/engine/ops/windows.py) against torch, bit for bit where gradcli's cosine is
torch's: kaiser_window (calc_i0, the contracted 1 - r * r), bartlett_window, and every float16 window (the
Python numbers taken in float16); hann/hamming/blackman in float32/float64 take gradcli's cos, which differs from
MKL VML's in the last bit on some inputs without the mkl extra (docs/numerics.md), so they are compared to 1 ulp."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as g
from gradcli.lang.runner import run_source

_LENGTHS = list(range(0, 40)) + [64, 255, 1024]


def _pair(torch, name, n, periodic, dt, *extra):
    t = getattr(torch, name)(n, periodic, *extra, dtype=getattr(torch, dt)).numpy()
    m = np.asarray(getattr(g, name)(n, periodic, *extra, dtype=getattr(g, dt))._data)
    return t, m


@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
def test_kaiser_and_bartlett_bit_for_bit(dt):
    torch = pytest.importorskip("torch")
    for n in _LENGTHS:
        for periodic in (True, False):
            t, m = _pair(torch, "bartlett_window", n, periodic, dt)
            assert t.tobytes() == m.tobytes(), (n, periodic)
            for beta in (12.0, 0.5, 5.0, 20.0):
                t, m = _pair(torch, "kaiser_window", n, periodic, dt, beta)
                assert t.tobytes() == m.tobytes(), (n, periodic, beta)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window"])
def test_cosine_windows(name):
    torch = pytest.importorskip("torch")
    for n in _LENGTHS:
        for periodic in (True, False):
            t, m = _pair(torch, name, n, periodic, "float16")
            assert t.tobytes() == m.tobytes(), (n, periodic)
            for dt in ("float32", "float64"):
                t, m = _pair(torch, name, n, periodic, dt)
                eps = np.finfo(t.dtype).eps
                np.testing.assert_allclose(m, t, rtol=0, atol=2 * eps)


def test_windows_are_leaves_in_the_dtype_asked():
    w = g.hann_window(5, dtype=g.float64, requires_grad=True)
    assert w.is_leaf and w.requires_grad and w.dtype is g.float64
    assert g.kaiser_window(0).shape == (0,) and g.bartlett_window(1).tolist() == [1.0]


@pytest.mark.parametrize("arg", ["'8'", "8.0", "True, periodic=2", "-(10**30)", "2**62", "None", "[8]"])
def test_bad_lengths_are_rendered_errors(arg):
    r = run_source(f"import torch\ntorch.hann_window({arg})\n")
    assert not r.ok and "Traceback" not in str(r.error)
