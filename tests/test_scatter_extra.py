"""engine/ops/scatter_extra.py against PyTorch: the values, dtypes and errors of slice_scatter,
select_scatter, diagonal_scatter, adjoint/mH/H, conj & co. of real tensors, combinations, gcd/lcm and
histogram (the gradients are the declared samples' checks, tests/test_gradcheck.py)."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as G

torch = pytest.importorskip("torch")

CALLS = [
    lambda t, x: t.slice_scatter(x, t.ones(2, 3), start=1, end=4, step=2),
    lambda t, x: t.slice_scatter(x, t.ones(4, 1), dim=-1, start=-1),
    lambda t, x: x.select_scatter(t.full((3,), 7.), 0, -2),
    lambda t, x: t.diagonal_scatter(x, t.ones(3), -1),
    lambda t, x: t.diagonal_scatter(x.t(), t.ones(3), 1),
    lambda t, x: (x.adjoint(), x.mH, x.H, t.adjoint(x.reshape(2, 2, 3))),
    lambda t, x: t.combinations(x[0]),
    lambda t, x: t.combinations(x[:, 0], 3, with_replacement=True),
    lambda t, x: t.combinations(x[1], 1),
    lambda t, x: (t.conj(x), x.resolve_conj(), t.resolve_neg(x), x.conj_physical(), x.is_conj(), t.is_neg(x)),
    lambda t, x: (t.gcd(t.tensor([-4, 0, 0, 12]), t.tensor([6, 0, -3, 18])),
                  t.lcm(t.tensor([-4, 0, 3, 12]), t.tensor([6, 5, -3, 18])),
                  t.lcm(t.tensor([100], dtype=t.int8), t.tensor([3], dtype=t.int8)),
                  t.gcd(t.tensor([[4], [6]], dtype=t.int16), t.tensor([8, 9]))),
    lambda t, x: t.histogram(x, bins=5),
    lambda t, x: t.histogram(x.double(), bins=3, range=(-1., 1.), weight=x.double().abs(), density=True),
    lambda t, x: t.histogram(x, t.tensor([-1., 0., 0.5, 2.])),
    lambda t, x: t.histogram(t.tensor([1., 1.]), 4),
]

ERRORS = [
    lambda t, x: t.slice_scatter(x, t.ones(2, 3)),
    lambda t, x: t.select_scatter(x, t.ones(2), 1, 0),
    lambda t, x: x[0].adjoint(),
    lambda t, x: x.reshape(2, 2, 3).H,
    lambda t, x: t.combinations(x),
    lambda t, x: t.gcd(t.tensor([1.]), t.tensor([2.])),
    lambda t, x: t.histogram(t.tensor([1, 2]), bins=2),
    lambda t, x: t.histogram(x, bins=2, range=(1., 0.)),
]


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert type(b) is not list and len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
        return
    if isinstance(a, bool):
        assert a is b
        return
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.numpy(), b.detach().numpy())


def _x(t):
    return t.tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3) / 7 - 0.5)


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_values_agree_with_torch(i):
    _same(CALLS[i](G, _x(G)), CALLS[i](torch, _x(torch)))


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_agree_with_torch(i):
    with pytest.raises(Exception) as expected:
        ERRORS[i](torch, _x(torch))
    with pytest.raises(type(expected.value)) as got:
        ERRORS[i](G, _x(G))
    assert str(got.value).split("\n")[0] == str(expected.value).split("\n")[0]


def test_histogram_prints_as_torch_return_type():
    r = G.histogram(G.tensor([1., 2, 1]), bins=4, range=(0., 3.), weight=G.tensor([1., 2., 4.]))
    e = torch.histogram(torch.tensor([1., 2, 1]), bins=4, range=(0., 3.), weight=torch.tensor([1., 2., 4.]))
    assert repr(r) == repr(e) and repr(r.hist) == repr(e.hist) and repr(r.bin_edges) == repr(e.bin_edges)


def test_gcd_in_place_forms():
    a, b = G.tensor([4, 9]), torch.tensor([4, 9])
    G.gcd_(a, G.tensor([6, 3]))
    b.lcm_(torch.tensor([6, 3]))
    assert a.tolist() == [2, 3] and b.tolist() == [12, 9]
    c = G.tensor([4, 9])
    c.lcm_(G.tensor([6, 3]))
    assert c.tolist() == [12, 9]
