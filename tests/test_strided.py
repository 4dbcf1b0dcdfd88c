"""torch.as_strided and Tensor.resize_ (gradcli/engine/ops/strided.py): both take sizes from a script, so
both are allocation doors (--max-elements applies before anything is made) and as_strided must never
reach memory outside the input's storage."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as torch
from gradcli.engine.limits import LIMITS


@pytest.fixture
def limit():
    old = LIMITS["max_elements"]
    LIMITS["max_elements"] = 1000
    yield
    LIMITS["max_elements"] = old


@pytest.mark.parametrize("size", [(10 ** 6,), (10 ** 4, 10 ** 4), (2 ** 62,)])
def test_huge_as_strided_is_a_clean_limit_error(limit, size):
    with pytest.raises(RuntimeError, match="--max-elements"):
        torch.as_strided(torch.ones(4), size, (0,) * len(size))


def test_int64_overflowing_sizes_are_torchs_error():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        torch.as_strided(torch.ones(4), (10 ** 12, 10 ** 12), (0, 0))


def test_huge_resize_is_a_clean_limit_error(limit):
    x = torch.ones(3)
    with pytest.raises(RuntimeError, match="--max-elements"):
        x.resize_(10 ** 7)
    assert x.shape == (3,)


@pytest.mark.parametrize("size,stride,offset", [((2, 2), (1, 2), 7), ((5,), (1,), 0), ((2,), (10 ** 15,), 0),
                                                ((1,), (1,), 2 ** 40)])
def test_as_strided_stays_inside_the_storage(size, stride, offset):
    x = torch.arange(4.)
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        torch.as_strided(x, size, stride, offset)


def test_a_view_of_a_slice_sees_the_whole_root_storage_and_writes_through():
    x = torch.arange(6.)
    v = x[2:].as_strided((2, 2), (1, 2), 0)
    assert v.tolist() == [[0.0, 2.0], [1.0, 3.0]]
    v.mul_(10)
    assert x.tolist() == [0.0, 10.0, 20.0, 30.0, 4.0, 5.0]


@pytest.mark.parametrize("bad", ["2", 2.5, [1, "x"], None, True])
def test_sizes_must_be_ints(bad):
    with pytest.raises(TypeError, match="must be tuple of ints"):
        torch.as_strided(torch.ones(4), bad, (1,))


def test_overlapping_view_gradient_accumulates():
    y = torch.tensor([1., 2., 3., 4.], requires_grad=True)
    z = y.as_strided((3, 2), (1, 1))
    (z * torch.tensor([[1., 2.], [3., 4.], [5., 6.]])).sum().backward()
    assert y.grad.tolist() == [1.0, 5.0, 9.0, 6.0]


def test_resize_keeps_the_memory_when_it_fits():
    x = torch.arange(1., 7.)
    y = x.view(2, 3)
    x.resize_(2, 2)
    x.fill_(0.)
    assert np.array_equal(y._data, [[0., 0., 0.], [0., 5., 6.]])
