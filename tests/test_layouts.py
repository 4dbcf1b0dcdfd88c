"""Layouts of new tensors made from others (engine/layouts.py): clone(), *_like, to(), contiguous() give the
strides torch gives, over random views (permutes, steps, expands, size-1 dims); and every torch.X name a script
can reach is one torch has."""
from __future__ import annotations

import random

import numpy as np
import pytest

from gradcli.engine import api as G
from gradcli.engine.layouts import dense_strides


def _views(seed, count):
    """(shape, ops) of random views: a permutation, steps, an expand of a size-1 dim."""
    rng = random.Random(seed)
    for _ in range(count):
        ndim = rng.randint(1, 5)
        shape = [rng.choice([1, 2, 3, 4]) for _ in range(ndim)]
        perm = list(range(ndim))
        rng.shuffle(perm)
        steps = [rng.choice([1, 1, 2]) for _ in range(ndim)]
        expand = rng.randrange(ndim) if rng.random() < 0.3 else None
        yield shape, perm, steps, expand


def _make(lib, shape, perm, steps, expand):
    x = lib.arange(float(np.prod(shape))).reshape(*shape)
    if expand is not None:
        x = x.narrow(expand, 0, 1)
        sizes = list(x.shape)
        sizes[expand] = 3
        x = x.expand(*sizes)
    x = x[tuple(slice(None, None, s) for s in steps)]
    return x.permute(*perm)


@pytest.mark.parametrize("seed", range(4))
def test_new_tensors_take_torch_strides(seed):
    torch = pytest.importorskip("torch")
    for case in _views(seed, 60):
        t, g = _make(torch, *case), _make(G, *case)
        assert g.stride() == t.stride(), case
        for name, make in (("clone", lambda m, x: x.clone()), ("empty_like", lambda m, x: m.empty_like(x)),
                           ("zeros_like", lambda m, x: m.zeros_like(x, dtype=m.float64)),
                           ("double", lambda m, x: x.double()), ("contiguous", lambda m, x: x.contiguous()),
                           ("to_copy", lambda m, x: x.to(copy=True))):
            tt, gg = make(torch, t), make(G, g)
            assert gg.stride() == tt.stride(), (name, case)
            assert gg.is_contiguous() == tt.is_contiguous(), (name, case)
            if name != "empty_like":  # (torch's holds whatever the memory held)
                assert np.array_equal(gg.numpy(), tt.numpy()), (name, case)


def test_dense_strides_examples_from_aten():
    # ATen's own comments: size/stride (6, 5, 4, 3, 2)/(6, 0, 120, 0, 1) sorts its perm to (4, 3, 0, 1, 2)
    assert dense_strides((6, 5, 4, 3, 2), (6, 0, 120, 0, 1)) == (6, 36, 180, 2, 1)
    assert dense_strides((3,), (5,)) == (1,)
    assert dense_strides((), ()) == ()


def test_channels_last_round_trip_values():
    x = G.arange(120.).reshape(2, 3, 4, 5)
    y = x.contiguous(memory_format=G.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert y.is_contiguous(memory_format=G.channels_last) and not y.is_contiguous()
    assert np.array_equal(y.numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        y.view(-1)


def test_memory_format_objects_are_sealed():
    with pytest.raises(TypeError, match="cannot create 'torch.memory_format' instances"):
        type(G.channels_last)("anything")
    assert repr(G.preserve_format) == "torch.preserve_format"


def test_script_torch_names_exist_in_torch():
    """A name gradcli's facade shows as torch.X is one torch has (torch.view, torch.expand, torch.contiguous
    were reachable though torch has no such function)."""
    torch = pytest.importorskip("torch")
    from gradcli.engine import op_names
    from gradcli.lang.namespaces import engine_modules
    members = engine_modules()["torch"]._members
    names = set(members) | set(op_names.TORCH)
    missing = sorted(n for n in names if not hasattr(torch, n))
    assert missing == []
