"""csrc/engine.c (gradcli._native_engine): the training step's kernels against their NumPy references,
bit for bit, on random shapes, both float dtypes and values with -0, inf and NaN; the engine's callers
with the kernels and without them (numerics._KERNELS = [None]: the NumPy paths, which stay the code
that runs without a compiler); and every argument that must be refused before memory is touched."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import numerics as N
from gradcli.engine.nn import functional_loss as FL
from gradcli.engine.ops import unary_math as UM
from gradcli.engine.ops.backward_ops import MseLossBackwardBackward0

DTYPES = (np.float32, np.float64)


@pytest.fixture
def kern(native_module):
    return native_module("engine")


@pytest.fixture
def numpy_paths(monkeypatch):
    """The engine's NumPy paths (numerics.kernels() answers None)."""
    monkeypatch.setattr(N, "_KERNELS", [None])


def _values(rng, shape, dt, kind):
    x = np.asarray(rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 6, shape))
    if x.size == 0:
        return x.astype(dt)
    if kind == 1:
        x = np.abs(x)
    elif kind == 2:  # zeros of both signs, and sums that cancel to zero
        x[x > 1] *= -1e-30
        x.flat[rng.integers(0, x.size)] = -0.0
        x.flat[:: 3] = -0.0
    elif kind == 3:
        x.flat[rng.integers(0, x.size)] = [np.inf, -np.inf, np.nan][x.size % 3]
    return x.astype(dt)


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


_LENGTHS = [*range(1, 40), 63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 1024, 1025, 4097, 32767]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("width", [32, 64])
def test_sum_all_is_the_iterator_paths_sum(kern, monkeypatch, dt, width):
    monkeypatch.setattr(N, "VEC_BYTES", width)
    rng = np.random.default_rng(width)
    for n in _LENGTHS:
        for kind in range(4):
            a = _values(rng, n, dt, kind)
            want = N._sum_float(a, (0,), False, fast=False)
            assert _same(np.asarray(kern.sum_all(a, width, False), dt), want), (n, kind)
            mean = np.asarray(want / dt(n), dt)
            assert _same(np.asarray(kern.sum_all(a, width, True), dt), mean), (n, kind)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("width", [32, 64])
def test_sum_rows_is_the_iterator_paths_sum(kern, monkeypatch, dt, width):
    """Every column kernel (multi_row_sum's blocks, row_sum's rest, the scalar outer sum's groups of
    four), the rows from 2 to past 256 (multi_row_sum's higher levels)."""
    monkeypatch.setattr(N, "VEC_BYTES", width)
    rng = np.random.default_rng(width + 1)
    for n in (2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 64, 255, 256, 257, 300, 1000, 4100):
        for m in (2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 64, 65, 100):
            if n * m >= N.GRAIN_SIZE:
                continue
            a = _values(rng, (n, m), dt, (n + m) % 4)
            want = N._sum_float(a, (0,), False, fast=False)
            out = np.full(m, 7, dt)
            kern.sum_rows(a, out, m, width)
            assert _same(out, want), (n, m)


@pytest.mark.parametrize("with_c", [True, False])
def test_numerics_callers_agree_with_and_without_c(native_module, monkeypatch, with_c):
    monkeypatch.setattr(N, "_KERNELS", [native_module("engine") if with_c else None])
    rng = np.random.default_rng(3)
    for dt in DTYPES:
        for shape in ((32, 5), (32, 2), (7, 3), (300, 4), (2, 2), (1, 5), (5, 1), (3, 0)):
            a = _values(rng, shape, dt, sum(shape) % 4)
            want = N._sum_float(a, (0,), False, fast=False)
            assert _same(N.sum_rows(a), want) and _same(N.torch_sum(a, (0,)), want), shape
            if a.size:
                full = N._sum_float(a, (0, 1), False, fast=False)
                assert _same(N.torch_sum(a), full) and _same(N.torch_sum(a.T), full)
                assert _same(N.torch_mean(a), np.asarray(full / dt(a.size), dt))
        strided = _values(rng, (8, 6), dt, 0)[:, ::2]   # not C-contiguous: the NumPy paths
        assert _same(N.sum_rows(strided), N._sum_float(strided, (0,), False, fast=False))
    half = np.arange(12, dtype=np.float16).reshape(4, 3)
    assert _same(N.sum_rows(half), N._sum_float(half, (0,), False, fast=False))


@pytest.mark.parametrize("dt", DTYPES)
def test_mse_kernels_are_the_numpy_formulas(kern, dt):
    rng = np.random.default_rng(5)
    for shape in ((32, 2), (1,), (3, 7), (5, 1, 9), (), (1000,), (64, 64)):
        for kind in range(4):
            x, t = _values(rng, shape, dt, kind), _values(rng, shape, dt, 0)
            d = x - t
            d *= d
            want = np.asarray(N._sum_float(d.reshape(-1), (0,), False, fast=False) / dt(d.size), dt)
            with np.errstate(all="ignore"):
                assert _same(np.asarray(kern.mse_mean(x, t, N.VEC_BYTES), dt), want), (shape, kind)
                for reduction in ("mean", "sum"):
                    g = np.asarray(rng.standard_normal(), dt)
                    want = MseLossBackwardBackward0.forward(g, x, t, reduction)
                    out = np.empty(x.shape, dt)
                    norm = 2.0 / x.size if reduction == "mean" else 2.0
                    kern.mse_backward(x, t, norm, float(g), out)
                    assert _same(out, want), (shape, kind, reduction)


@pytest.mark.parametrize("dt", DTYPES)
def test_relu_kernels_are_clamp_min_and_its_backward(kern, dt):
    rng = np.random.default_rng(6)
    for shape in ((32, 5), (1,), (7, 3, 2), (4099,), ()):
        for kind in range(4):
            x = _values(rng, shape, dt, kind)
            want = UM._zero_where(x, x < 0)
            out = np.empty(x.shape, dt)
            kern.relu(x, out)
            assert _same(out, want)
            r = want
            g = _values(rng, shape, dt, (kind + 1) % 4)
            want = UM._zero_where(g, r <= 0)
            kern.relu_backward(g, r, out)
            assert _same(out, want)


def test_sgd_and_bias_add_are_numpys_arithmetic(kern):
    rng = np.random.default_rng(8)
    for shape in ((5, 10), (5,), (2, 5), (1,), (300, 7)):
        for lr in (0.01, 0.1, 1e-7, 3.0):
            for kind in range(4):
                p, g = _values(rng, shape, np.float32, kind), _values(rng, shape, np.float32, (kind + 2) % 4)
                c = np.float64(np.float32(-lr))
                want = (p.astype(np.float64) + g.astype(np.float64) * c).astype(np.float32)
                got = p.copy()
                kern.sgd(got, g, float(c))
                assert _same(got, want)
    for dt in DTYPES:
        for n, m in ((32, 5), (32, 2), (1, 1), (3, 17)):
            r, b = _values(rng, (n, m), dt, 0), _values(rng, m, dt, 3)
            want = r + b
            kern.bias_add(r, b)
            assert _same(r, want)


def test_kernels_refuse_what_could_reach_memory(kern):
    f32 = np.arange(12, dtype=np.float32)
    out2 = np.zeros(2, np.float32)
    ro = np.zeros(12, np.float32)
    ro.flags.writeable = False
    strided = np.arange(24, dtype=np.float32)[::2]
    bad = [
        (kern.sum_all, (f32.astype(np.float16), 32, False)), (kern.sum_all, (f32.astype(np.int32), 32, False)),
        (kern.sum_all, (strided, 32, False)), (kern.sum_all, (np.zeros(0, np.float32), 32, False)),
        (kern.sum_all, (f32, 48, False)), (kern.sum_all, (b"abcd", 32, False)), (kern.sum_all, ("x", 32, False)),
        (kern.sum_all, (f32.astype(">f4"), 32, False)),
        (kern.sum_rows, (f32, np.zeros(5, np.float32), 5, 32)),          # 12 items are no (n, 5)
        (kern.sum_rows, (f32, np.zeros(3, np.float32), 4, 32)),          # out shorter than m
        (kern.sum_rows, (f32, np.zeros(12, np.float32), 12, 32)),        # one row
        (kern.sum_rows, (f32, np.zeros(2, np.float64), 2, 32)),          # dtypes differ
        (kern.sum_rows, (f32, ro[:6], 6, 32)), (kern.sum_rows, (f32, out2, -2, 32)),
        (kern.sum_rows, (strided, np.zeros(2, np.float32), 2, 32)),
        (kern.mse_mean, (f32, f32[:6], 32)), (kern.mse_mean, (f32, f32.astype(np.float64), 32)),
        (kern.mse_backward, (f32, f32, 1.0, 1.0, np.zeros(11, np.float32))),
        (kern.mse_backward, (f32, f32, 1.0, 1.0, ro)),
        (kern.sgd, (ro, f32, -0.1)), (kern.sgd, (f32.astype(np.float64), f32.astype(np.float64), -0.1)),
        (kern.sgd, (np.zeros(12, np.float32), f32[:11], -0.1)), (kern.sgd, (strided.copy(), strided, -0.1)),
        (kern.bias_add, (ro, f32[:3])), (kern.bias_add, (np.zeros(12, np.float32), f32[:5])),
        (kern.bias_add, (np.zeros(12, np.float32), f32[:0])),
        (kern.relu, (f32, ro)), (kern.relu, (f32, np.zeros(11, np.float32))), (kern.relu, (f32, out2.astype(np.float64))),
        (kern.relu_backward, (f32, f32[:11], np.zeros(12, np.float32))),
        (kern.relu_backward, (f32, f32, ro)),
    ]
    for fn, args in bad:
        outs = [a.copy() for a in args if isinstance(a, np.ndarray)]
        with pytest.raises((ValueError, TypeError)):
            fn(*args)
        assert all(_same(a, b) for a, b in zip([a for a in args if isinstance(a, np.ndarray)], outs)), fn
    for fn, n in ((kern.sum_all, 3), (kern.sum_rows, 4), (kern.mse_mean, 3), (kern.mse_backward, 5),
                  (kern.sgd, 3), (kern.bias_add, 2), (kern.relu, 2), (kern.relu_backward, 3)):
        with pytest.raises(TypeError):
            fn(*([f32] * (n - 1)))



def test_kernels_refuse_an_output_that_overlaps_an_input(kern):
    """A kernel reads its inputs while it writes its output, where the NumPy path it must match never
    sees a half-written input: an output sharing bytes with an input is refused (check_disjoint of
    csrc/native_buffer.h), memory untouched. The in-place kernels (sgd, bias_add) included."""
    base = np.arange(1, 25, dtype=np.float32) - 12
    cases = [
        (kern.sgd, lambda b: (b[:12], b[6:18], -0.1)),                # the gradient inside the parameter
        (kern.sgd, lambda b: (b[:12], b[:12], -0.1)),                 # the same buffer (exact alias)
        (kern.bias_add, lambda b: (b[:12], b[3:6])),                  # the bias inside the rows
        (kern.bias_add, lambda b: (b[2:14], b[:4])),                  # the rows begin inside the bias
        (kern.relu_backward, lambda b: (b[:12], b[12:], b[6:18])),     # out over g's end
        (kern.relu_backward, lambda b: (b[:12], b[12:], b[12:])),      # out is r
        (kern.relu, lambda b: (b[:12], b[1:13])),
        (kern.mse_backward, lambda b: (b[:12], b[12:], 1.0, 1.0, b[:12])),
        (kern.sum_rows, lambda b: (b[:12], b[10:12], 2, 32)),
    ]
    for fn, make in cases:
        b = base.copy()
        with pytest.raises(ValueError, match="overlap"):
            fn(*make(b))
        assert _same(b, base), fn
    b = base.copy()  # side by side in one buffer is no overlap
    kern.relu_backward(b[:6], b[6:12], b[12:18])
    assert _same(b[12:18], np.where(base[6:12] <= 0, np.float32(0), base[:6]))


def test_kernels_read_an_array_the_same_with_or_without_numpys_format_string(kern, native_module):
    """native_buffer.h's known_kind: an ndarray whose dtype object is NumPy's own float32/float64 descriptor is
    taken without the buffer's format string; any other float32 descriptor instance, a subclass or a
    non-ndarray buffer goes through the format check as before. Both give the same bits; what is no native
    float32/float64 is refused either way (memory untouched), also by gemm.c's sgemm_auto."""
    for dt in DTYPES:
        canonical = np.dtype(dt)
        other = canonical.newbyteorder("=")  # native order, but a descriptor object of its own
        assert other is not canonical and other == canonical
        x = (np.arange(12) - 5.5).astype(dt)
        for make in (lambda a: a, lambda a: a.astype(other), lambda a: a.view(np.ma.MaskedArray)):
            xa, out = make(x.copy()), make(np.full(12, 7, dt))
            kern.relu(xa, out)
            assert _same(np.asarray(out), np.where(x < 0, dt(0), x))
            assert kern.sum_all(xa, 32, False) == kern.sum_all(x, 32, False)
    f32 = np.arange(12, dtype=np.float32)
    for bad in (f32.view(np.int32), f32.astype(">f4"), f32.astype(np.float16), f32.view(np.uint8)):
        out = np.zeros(bad.size, np.float32)
        with pytest.raises(ValueError):
            kern.relu(bad, out)
        assert not out.any()
    gemm = native_module("gemm")
    a, w = np.arange(24, dtype=np.float32).reshape(4, 6) / 7, np.arange(18, dtype=np.float32).reshape(3, 6) / 5
    want = gemm.sgemm_auto(a, w.T, None)
    assert want is not None
    other = np.dtype(np.float32).newbyteorder("=")
    assert _same(gemm.sgemm_auto(a.astype(other), w.astype(other).T, None), want)
    assert gemm.sgemm_auto(a.view(np.int32), w.T, None) is None


def test_kernels_refuse_arrays_of_two_dtypes(kern):
    f32, f64 = np.arange(12, dtype=np.float32), np.arange(12, dtype=np.float64)
    for fn, args in ((kern.bias_add, (f32.copy(), f64[:3])), (kern.sum_rows, (f32, np.zeros(2), 2, 32)),
                     (kern.relu_backward, (f32, f64, np.zeros(12, np.float32))),
                     (kern.mse_mean, (f64, f32, 32)), (kern.sgd, (f32.copy(), f64, -0.1))):
        with pytest.raises(ValueError, match="differ in dtype"):
            fn(*args)


def test_sgd_on_a_gradient_that_shares_the_parameter_takes_the_numpy_path(native_module, monkeypatch):
    """p.grad = p.detach(): one buffer for the parameter and its gradient; the kernel refuses it and
    SGD's NumPy path gives the step (the same bits as without C)."""
    from gradcli.engine import api as torch  # noqa: PLC0415
    seen = []
    for kernels in (native_module("engine"), None):
        monkeypatch.setattr(N, "_KERNELS", [kernels])
        torch.manual_seed(0)
        p = torch.randn(7, requires_grad=True)
        p.grad = p.detach()
        before = p._data.astype(np.float64)
        torch.optim.SGD([p], lr=0.25).step()
        seen.append(p._data.tobytes())
    assert seen[0] == seen[1]
    assert seen[0] == (before + before * -0.25).astype(np.float32).tobytes()


def test_sgd_params_is_the_python_loop_over_a_mixed_group(native_module, monkeypatch):
    """csrc/engine.c's sgd_params runs a group's float32 parameters in one call and stops at the first one it does
    not take (float64, float16, a gradient sharing the parameter's buffer, a transposed parameter, another
    descriptor object), which SGD's Python loop then runs: every parameter's bytes and version counter are the
    NumPy path's, step after step, whatever the first parameter that stops it."""
    from gradcli.engine import api as torch  # noqa: PLC0415
    kern = native_module("engine")

    def group(order):
        torch.manual_seed(3)
        made = {
            "f32": lambda: torch.randn(4, 3, requires_grad=True),
            "nograd": lambda: torch.randn(5, requires_grad=True),
            "f64": lambda: torch.randn(6, dtype=torch.float64, requires_grad=True),
            "f16": lambda: torch.randn(3, dtype=torch.float16, requires_grad=True),
            "shared": lambda: torch.randn(7, requires_grad=True),
            "transposed": lambda: torch.randn(3, 4).t().detach().requires_grad_(),
            "descr": lambda: torch.randn(8, requires_grad=True),
        }
        ps = [made[k]() for k in order]
        for k, p in zip(order, ps):
            if k == "shared":
                p.grad = p.detach()
            elif k == "descr":
                p._data = p._data.astype(np.dtype(np.float32).newbyteorder("="))
                p.grad = torch.randn(8)
                p.grad._data = p.grad._data.astype(p._data.dtype)
            elif k != "nograd":
                p.grad = torch.randn(*p.shape, dtype=p.dtype) * 0.5
        return ps

    orders = [["f32", "nograd", "f32"], ["f32", "f64", "f32"], ["f16", "f32"], ["f32", "shared", "f32", "f32"],
              ["f32", "f32", "transposed", "f32"], ["descr", "f32"], ["f32", "descr", "nograd", "f32"]]
    for order in orders:
        seen = []
        for kernels in (kern, None):
            monkeypatch.setattr(N, "_KERNELS", [kernels])
            ps = group(order)
            opt = torch.optim.SGD(ps, lr=0.125)
            for _ in range(3):
                opt.step()
            seen.append([(p._data.tobytes(), p._version[0]) for p in ps])
        assert seen[0] == seen[1], order
        assert [v for _, v in seen[0]] == [0 if k == "nograd" else 3 for k in order]
    f32 = np.zeros(3, np.float32)
    with pytest.raises(TypeError):
        kern.sgd_params((f32,), 0.5)  # a list only
    with pytest.raises(TypeError):
        kern.sgd_params([], 0.5, 1)
    assert kern.sgd_params([], 0.5) == 0
    assert kern.sgd_params([object()], 0.5) == 0  # no attributes: the Python loop's (which raises its error)


def _train(steps, dtype="float32"):
    """The seeds' loop through the engine API: every loss and the parameters' bytes after each step."""
    from gradcli.engine import api as torch  # noqa: PLC0415
    torch.manual_seed(0)
    dt = getattr(torch, dtype)
    fc1, fc2 = torch.nn.Linear(10, 5).to(dt), torch.nn.Linear(5, 2).to(dt)
    params = list(fc1.parameters()) + list(fc2.parameters())
    opt = torch.optim.SGD(params, lr=0.01)
    x, y = torch.randn(32, 10, dtype=dt), torch.randn(32, 2, dtype=dt)
    seen = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(fc2(torch.relu(fc1(x))), y)
        loss.backward()
        opt.step()
        seen.append(loss._data.tobytes() + b"".join(p._data.tobytes() + p.grad._data.tobytes() for p in params))
    return seen


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_training_steps_are_the_same_bits_with_and_without_c(native_module, monkeypatch, dtype):
    monkeypatch.setattr(N, "_KERNELS", [native_module("engine")])  # (whatever GRADCLI_NATIVE says)
    with_c = _train(30, dtype)
    monkeypatch.setattr(N, "_KERNELS", [None])
    assert _train(30, dtype) == with_c


def test_mse_loss_of_a_strided_input_takes_the_numpy_path(native_module, monkeypatch):
    monkeypatch.setattr(N, "_KERNELS", [native_module("engine")])
    from gradcli.engine import api as torch  # noqa: PLC0415
    x = torch.randn(6, 8)[:, ::2].requires_grad_()
    y = torch.randn(6, 4)
    loss = torch.nn.functional.mse_loss(x, y)
    loss.backward()
    d = (x._data - y._data) ** 2
    assert _same(loss._data, N._sum_float(d, (0, 1), False, fast=False) / np.float32(d.size))
    assert _same(x.grad._data, MseLossBackwardBackward0.forward(np.float32(1), x._data, y._data, "mean"))
    assert _same(np.asarray(FL._mse_mean(x._data, y._data, x.dtype)), loss._data)


def test_large_relu_arrays_take_numpys_loops_with_the_same_bits(native_module, monkeypatch):
    """relu and its backward call csrc/engine.c's branchy loops only up to UM.C_RELU_MAX elements (past it
    NumPy's vector loops are faster on mixed signs); both sides of the cut give the C kernel's bits."""
    from gradcli.engine import api as torch  # noqa: PLC0415
    kern = native_module("engine")
    calls = []

    class Spy:
        def __getattr__(self, name):
            fn = getattr(kern, name)

            def call(*args):
                calls.append((name, args[0].size))
                return fn(*args)
            return call

    rng = np.random.default_rng(12)
    for size in (UM.C_RELU_MAX, UM.C_RELU_MAX + 1, 1 << 20):
        for dt in DTYPES:
            x0 = _values(rng, (size,), dt, 1)
            g0 = _values(rng, (size,), dt, 2)
            seen = []
            for kernels in (Spy(), None):
                monkeypatch.setattr(N, "_KERNELS", [kernels])
                calls.clear()
                x = torch.from_numpy(x0.copy()).requires_grad_()
                y = torch.relu(x)
                y.backward(torch.from_numpy(g0.copy()))
                seen.append((y._data.tobytes(), x.grad._data.tobytes()))
                if kernels is not None:
                    used = {name for name, n in calls if n == size}
                    assert used == ({"relu", "relu_backward"} if size <= UM.C_RELU_MAX else set()), (size, calls)
            out = np.empty(size, dt)
            kern.relu(x0, out)
            assert seen[0] == seen[1] and seen[0][0] == out.tobytes()
