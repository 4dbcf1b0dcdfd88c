"""The pools' float32 (and float16) results bit for bit against torch over random inputs: avg_pool's window
sums in ATen's order (`sum += v`, tap by tap: NumPy's pairwise .sum differed in the last bit for windows of
8 or more), the 3-d adaptive pools' windows and their backward, which share the 2-d bodies."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as G

F = G.nn.functional


def _same(want, got):
    assert want.dtype == got.dtype and want.shape == got.shape
    assert np.array_equal(want.view(np.uint8), got.view(np.uint8)), (want, got)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_avg_pool_window_sums_match_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(13)
    for trial in range(90):
        nd = trial % 3 + 1
        if nd == 3 and dtype is np.float16:  # torch's avg_pool3d has no Half kernel (its error: pool3d_errors)
            continue
        k = tuple(int(v) for v in rng.integers(1, 6, nd))
        s = tuple(int(v) for v in rng.integers(1, 4, nd))
        p = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in k)
        sp = tuple(int(kk + rng.integers(0, 5)) for kk in k)
        lead = ((1, 1), (2, 3))[trial % 2]  # a (1, 1) lead took NumPy's pairwise sum
        x = (rng.standard_normal(lead + sp) * 10.0 ** rng.integers(-2, 3)).astype(dtype)
        kw = {"stride": s, "padding": p, "ceil_mode": bool(trial % 4 < 2), "count_include_pad": bool(trial % 5 < 3)}
        want = getattr(torch.nn.functional, f"avg_pool{nd}d")(torch.from_numpy(x), k, **kw).numpy()
        _same(want, getattr(F, f"avg_pool{nd}d")(G.tensor(x), k, **kw).numpy())


def test_big_window_avg_pool3d_in_torch_order():
    """A 5x5x5 window of float32: ATen's sequential sum, not NumPy's 8-lane pairwise one (this input differs
    in the last bit between the two)."""
    x = np.random.default_rng(5).standard_normal((1, 1, 5, 5, 5)).astype(np.float32)
    seq = np.float32(0)
    for v in x.ravel():
        seq = np.float32(seq + v)
    assert seq != x.sum()  # the input tells the two orders apart
    assert F.avg_pool3d(G.tensor(x), 5).numpy().ravel()[0] == seq / np.float32(125)


@pytest.mark.parametrize("kind", ["avg", "max"])
def test_adaptive_pool3d_matches_torch(kind):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for trial in range(12):
        sp = tuple(int(v) for v in rng.integers(1, 9, 3))
        out = tuple(int(v) for v in rng.integers(1, 6, 3))
        x = rng.standard_normal((2, 3) + sp).astype(np.float32)
        g = rng.standard_normal((2, 3) + out).astype(np.float32)
        tx = torch.from_numpy(x).requires_grad_()
        gx = G.tensor(x, requires_grad=True)
        fn = f"adaptive_{kind}_pool3d"
        ty = getattr(torch.nn.functional, fn)(tx, out)
        gy = getattr(F, fn)(gx, out)
        _same(ty.detach().numpy(), gy.detach().numpy())
        ty.backward(torch.from_numpy(g))
        gy.backward(G.tensor(g))
        _same(tx.grad.numpy(), gx.grad.numpy())
        if kind == "max":
            _same(getattr(torch.nn.functional, fn)(tx, out, return_indices=True)[1].numpy(),
                  getattr(F, fn)(gx, out, return_indices=True)[1].numpy())
