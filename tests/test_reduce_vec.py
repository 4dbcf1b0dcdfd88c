"""engine/reduce_vec.py: prod and amax/amin in the order of ATen's binary_kernel_reduce_vec. Against
PyTorch where it is installed (the bits of products, the sign of a zero max/min), random shapes,
layouts and dims; without it, the tie rules the kernel's order implies."""
import numpy as np
import pytest

from gradcli.engine import reduce_vec as RV


def _cases(seed, count):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(rng.choice([1, 2, 3, 5, 8, 17, 33, 40, 70])) for _ in range(nd))
        if np.prod(shape) > 20000:
            continue
        dt = (np.float16, np.float32, np.float64)[trial % 3]
        which = trial % 3 if trial % 2 else (trial // 2) % 3
        if which < 2:
            x = rng.choice([0.0, -0.0, 1.0], size=shape).astype(dt)
            x = (-x if which == 0 else x).astype(dt)
        else:
            x = (rng.standard_normal(shape) * 2).astype(dt)
            if dt == np.float16 and rng.random() < 0.3:
                x = (np.round(x) * 100).astype(dt)    # overflow to inf, then * 0
        if nd >= 2 and rng.random() < 0.3:
            x = np.swapaxes(x, 0, nd - 1)
        if which == 2:
            dims = (int(rng.integers(0, nd)),) if rng.random() < 0.7 else tuple(range(nd))
        else:
            k = int(rng.integers(1, nd + 1))
            dims = tuple(sorted(rng.choice(nd, size=k, replace=False).tolist()))
        yield which, x, dims, bool(rng.random() < 0.5)


def _torch_result(torch, which, x, dims, keep):
    t = torch.from_numpy(x)
    if which == 0:
        return torch.amax(t, dims, keep).numpy()
    if which == 1:
        return torch.amin(t, dims, keep).numpy()
    if len(dims) == x.ndim and len(dims) > 1:
        return t.prod().reshape((1,) * x.ndim if keep else ()).numpy()
    return t.prod(dims[0], keepdim=keep).numpy()


def _bits(a):
    return np.atleast_1d(np.ascontiguousarray(a)).view(np.uint8)


def test_against_torch():
    torch = pytest.importorskip("torch")
    kinds = (RV.Max, RV.Min, RV.Prod)
    n = 0
    for which, x, dims, keep in _cases(7, 600):
        ref = _torch_result(torch, which, x, dims, keep)
        got = RV.reduce(x, dims, keep, kinds[which])
        assert got is not None
        assert got.shape == ref.shape and np.array_equal(_bits(got), _bits(ref)), (which, x.shape, x.strides, dims)
        n += 1
    assert n > 400


def test_tie_rules():
    # the scalar loop keeps the first of +0/-0, the vector lanes the last; 32 floats = 4 vectors of 8
    assert not np.signbit(RV.reduce(np.array([0., -0.], np.float32), (0,), False, RV.Max))
    assert np.signbit(RV.reduce(np.array([-0., 0.], np.float32), (0,), False, RV.Min))
    cols = np.zeros((3, 40), np.float32)
    cols[2] = -0.
    r = RV.reduce(cols, (0,), False, RV.Min)
    assert np.signbit(r[:32]).all() and not np.signbit(r[32:]).any()
    # float16: inf * 0 only where the order meets it
    h = np.array([300.] * 10 + [0.], np.float16)
    assert np.isnan(RV.reduce(h, (0,), False, RV.Prod))
    assert RV.reduce(h[::-1].copy(), (0,), False, RV.Prod) == 0
    assert RV.reduce(np.zeros(40000, np.float32), (0,), False, RV.Max) is None   # threads: the caller's
