"""F.grid_sample / F.affine_grid: float32 results bit for bit against torch over random grids (every mode and
padding that gradcli implements), and the script-sized doors: a size or a grid too large is refused by the
element limit before anything is allocated; mode strings outside torch's sets are torch's ValueError."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as G
from gradcli.engine.limits import LIMITS

F = G.nn.functional


def test_grid_sample_float32_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    grid = (rng.random((2, 4, 7, 2)) * 2.6 - 1.3).astype(np.float32)
    g = rng.standard_normal((2, 3, 4, 7)).astype(np.float32)
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                tx, tg = torch.from_numpy(x).requires_grad_(), torch.from_numpy(grid).requires_grad_()
                ty = torch.nn.functional.grid_sample(tx, tg, mode, pad, ac)
                ty.backward(torch.from_numpy(g))
                gx, gg = G.tensor(x, requires_grad=True), G.tensor(grid, requires_grad=True)
                gy = F.grid_sample(gx, gg, mode, pad, ac)
                gy.backward(G.tensor(g))
                assert np.array_equal(ty.detach().numpy(), gy.detach().numpy()), (mode, pad, ac)
                np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
                np.testing.assert_allclose(gg.grad.numpy(), tg.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_affine_grid_float32_matches_torch():
    torch = pytest.importorskip("torch")
    theta = np.random.default_rng(2).standard_normal((2, 2, 3)).astype(np.float32)
    for ac in (False, True):
        want = torch.nn.functional.affine_grid(torch.from_numpy(theta), (2, 1, 5, 7), align_corners=ac).numpy()
        got = F.affine_grid(G.tensor(theta), (2, 1, 5, 7), align_corners=ac).numpy()
        assert np.array_equal(want, got)


def test_sizes_from_the_script_meet_the_element_limit(monkeypatch):
    monkeypatch.setitem(LIMITS, "max_elements", 10_000)
    with pytest.raises(RuntimeError, match="exceeds the limit of 10000 elements"):
        F.affine_grid(G.zeros(1, 2, 3), (1, 1, 10**6, 10**6), align_corners=False)
    with pytest.raises(RuntimeError, match="exceeds the limit of 10000 elements"):
        F.grid_sample(G.zeros(1, 100, 2, 2), G.zeros(1, 50, 50, 2), align_corners=False)


def test_mode_strings_are_checked_against_torch_sets():
    x, grid = G.zeros(1, 1, 2, 2), G.zeros(1, 1, 1, 2)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '__class__'"):
        F.grid_sample(x, grid, mode="__class__", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or 'reflection'"):
        F.grid_sample(x, grid, padding_mode="zeros ", align_corners=False)
