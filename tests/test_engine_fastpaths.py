"""The engine's fast paths against its general ones, in the same process.

`loss.backward()` runs autograd_engine.run_plain (the general engine is autograd_engine.run_general), F.linear of a
2-D batch builds its nodes in linalg.linear_2d (the general path is addmm(bias, x, w.t())), and a
leaf keeps a gradient nothing else holds instead of copying it. Each fast path must give the
same graph, the same bits and the same order as the path it shortcuts.
"""
from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest

from gradcli.engine import api as torch
from gradcli.engine import autograd_engine, autograd_modes
from gradcli.engine import tensor as tensor_module
from gradcli.engine.ops import linalg

nn, F = torch.nn, torch.nn.functional
ROOT = pathlib.Path(__file__).resolve().parent.parent


def _mlp(seed, sizes=(10, 5, 2), batch=32):
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        lin = nn.Linear(fan_in, fan_out)
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(rng.standard_normal((fan_out, fan_in)).astype(np.float32)))
            lin.bias.copy_(torch.from_numpy(rng.standard_normal(fan_out).astype(np.float32)))
        layers.append(lin)
    x = torch.from_numpy(rng.standard_normal((batch, sizes[0])).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal((batch, sizes[-1])).astype(np.float32))
    return layers, x, y


def _loss(layers, x, y):
    h = x
    for i, lin in enumerate(layers):
        h = lin(h)
        if i < len(layers) - 1:
            h = torch.relu(h)
    return F.mse_loss(h, y)


def _bits(t):
    return t._data.view(np.uint8).tobytes()


def _names(node, seen=None):
    """The graph below node as nested (name, children) tuples."""
    return (node.name(), tuple(_names(n) if n is not None else None for n, _ in node.next_functions))


@pytest.mark.parametrize("seed,sizes,batch", [(0, (10, 5, 2), 32), (1, (7, 9, 3), 5), (2, (3, 40, 4, 1), 300)])
def test_run_plain_matches_the_general_engine(seed, sizes, batch):
    layers, x, y = _mlp(seed, sizes, batch)
    params = [p for lin in layers for p in lin.parameters()]
    plain, general = _plain_and_general(lambda: _loss(layers, x, y), params)
    assert plain == general


def test_post_accumulate_hooks_take_the_general_engine(monkeypatch):
    """A leaf with a post-accumulate hook makes the leaves' order observable: run_plain leaves the
    pass to the general engine, whose ready queue orders leaves made ready at once as torch's does
    (stack's four inputs: a, d, c, e; golden post_accumulate_hooks_order)."""
    leaves = [torch.tensor([1.0, 2.0], requires_grad=True) for _ in range(4)]
    order = []
    for i, p in enumerate(leaves):
        p.register_post_accumulate_grad_hook(lambda t, i=i: order.append(i))
    plain_calls = []
    real = autograd_engine.run_plain
    monkeypatch.setattr(tensor_module, "run_plain", lambda *a: plain_calls.append(real(*a)) or plain_calls[-1])
    (torch.stack(leaves) * 2).sum().backward()
    assert plain_calls == [False] and order == [0, 2, 1, 3]


def _plain_and_general(build, leaves):
    """The leaves' gradient bits from loss.backward() (run_plain) and from the general engine, for
    the graph build() makes (built afresh for each)."""
    results = []
    for general in (False, True):
        for p in leaves:
            p.grad = None
        loss = build()
        if general:
            prev = autograd_modes.grad_mode.enabled
            autograd_modes.grad_mode.enabled = False
            try:
                autograd_engine.run_general((loss,), (torch.ones_like(loss),), False, False, None, True, True)
            finally:
                autograd_modes.grad_mode.enabled = prev
        else:
            loss.backward()
        results.append([_bits(p.grad) for p in leaves])
    return results


def _count_fused(monkeypatch):
    calls = []
    real = linalg.AddmmBackward0.fused_backward
    monkeypatch.setattr(linalg.AddmmBackward0, "fused_backward",
                        lambda self, g, child: calls.append(real(self, g, child) is not None) or real(self, g, child))
    return calls


def _graphs(dtype):
    """(name, build, leaves, fused calls expected): Linear layers the plain engine runs with their t()
    (AddmmBackward0.fused_backward), and graphs where it must not."""
    rng = np.random.default_rng(11)
    def param(*shape):
        return torch.from_numpy(rng.standard_normal(shape).astype(dtype)).requires_grad_(True)
    x, x2 = torch.from_numpy(rng.standard_normal((6, 4)).astype(dtype)), param(6, 4)
    w, b, w2, b2, v = param(3, 4), param(3), param(4, 3), param(4), param(4, 3)

    def mlp():
        return F.mse_loss(F.linear(torch.relu(F.linear(x2, w, b)), w2, b2), x)
    def shared():  # one weight in two layers: its AccumulateGrad gets two gradients, in order
        return (F.linear(torch.tanh(F.linear(x, w, b)), w.t(), b2) ** 2).sum()
    def non_leaf_weight():  # weight = w * 2 (a MulBackward0 after t()), and a transposed (not C-contiguous) one
        return (F.linear(x, w * 2, b).sum() + F.linear(x, v.t(), b * 1).sum()) * 1.5
    def t_used_twice():  # t()'s output also used elsewhere: not fused
        wt = w.t()
        return torch.addmm(b, x2, wt).sum() + (wt * wt).sum()
    def scaled():  # addmm with beta/alpha: the general backward
        return torch.addmm(b, x2, w.t(), beta=0.5, alpha=2.0).sum()
    return [("mlp", mlp, [x2, w, b, w2, b2], [True, True]), ("shared", shared, [w, b, b2], [True, True]),
            ("non_leaf_weight", non_leaf_weight, [w, b, v], [True, True]),
            ("t_used_twice", t_used_twice, [x2, w, b], []), ("scaled", scaled, [x2, w, b], [False])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_linear_backward_matches_the_general_engine(monkeypatch, dtype):
    """run_plain runs a Linear layer's AddmmBackward0 and TBackward0 at once (one product for the
    weight's gradient, in the weight's layout): the same bits as the general engine, and the
    separate nodes wherever the t() node has another consumer or addmm is scaled."""
    for name, build, leaves, expected in _graphs(dtype):
        calls = _count_fused(monkeypatch)
        plain, general = _plain_and_general(build, leaves)
        assert plain == general, name
        assert calls[:len(expected)] == expected, name
        monkeypatch.undo()


def test_linear_fast_paths_run_under_a_max_elements_limit(monkeypatch):
    """A script's run sets --max-elements: linear_2d's product and the fused backward's products still
    take their fast paths (the limit checked inline, as _matprod checks it), with the same bits; a
    product past the limit raises _matprod's error."""
    from gradcli.engine.limits import LIMITS
    # NumPy's products (the paths of a machine without a gemm kernel: no mkl extra, not engine/gemm_avx2's AVX2
    # CPU, whose kernel runs through _matprod)
    monkeypatch.setattr(linalg, "_GEMM", [None])
    monkeypatch.setitem(linalg._BLAS_SLOTS, (2, 2), linalg._GEMM)
    layers, x, y = _mlp(3, (6, 4, 3), 8)
    params = [p for lin in layers for p in lin.parameters()]
    free = _plain_and_general(lambda: _loss(layers, x, y), params)
    monkeypatch.setitem(LIMITS, "max_elements", 10_000)
    calls = _count_fused(monkeypatch)
    matprods = []
    real = linalg._matprod
    monkeypatch.setattr(linalg, "_matprod", lambda a, b: matprods.append(1) or real(a, b))
    limited = _plain_and_general(lambda: _loss(layers, x, y), params)
    assert limited == free and calls[:2] == [True, True]
    assert matprods == []  # neither the forward (addmm's _addmm_arrays) nor the fused backward took _matprod
    monkeypatch.setitem(LIMITS, "max_elements", 8 * 4 - 1)  # the first layer's output: 8 x 4
    for build in (lambda: F.linear(x, layers[0].weight, layers[0].bias),
                  lambda: torch.addmm(layers[0].bias, x, layers[0].weight.t())):
        with pytest.raises(RuntimeError, match=r"tensor of 32 elements exceeds the limit of 31 elements"):
            build()


def test_linear_fast_paths_skip_a_gemm_kernel_only_for_the_products_it_leaves_to_numpy(monkeypatch):
    """engine/gemm_avx2.py's kernel (the gemm slot on an AVX2 CPU without the mkl extra) answers None
    for a product of fewer than gemm.numpy_below columns: linear_2d and the fused backward run those
    as NumPy's @ without calling it (the seeds' loop: every product); a wider product, and every
    product of a kernel without numpy_below (MKL's), still goes to the kernel. Same bits either way."""
    from gradcli.engine import gemm_avx2
    from gradcli.engine.limits import LIMITS
    monkeypatch.setitem(LIMITS, "max_elements", 10_000_000)  # as a script's run
    for sizes, batch in (((10, 5, 2), 32), ((20, 24, 3), 16)):
        layers, x, y = _mlp(4, sizes, batch)
        params = [p for lin in layers for p in lin.parameters()]
        monkeypatch.setattr(linalg, "_GEMM", [None])
        monkeypatch.setitem(linalg._BLAS_SLOTS, (2, 2), linalg._GEMM)
        want = _plain_and_general(lambda: _loss(layers, x, y), params)
        for below in (gemm_avx2.MIN_COLUMNS, None):
            seen = []

            def kernel(a, b, bias=None, beta=1, alpha=1):
                seen.append(b.shape[1])
                return None  # NumPy's product, as gemm_avx2.gemm outside its domain

            if below is not None:
                kernel.numpy_below = below
            monkeypatch.setattr(linalg, "_GEMM", [kernel])
            monkeypatch.setitem(linalg._BLAS_SLOTS, (2, 2), linalg._GEMM)
            assert _plain_and_general(lambda: _loss(layers, x, y), params) == want
            if below is None:
                assert seen and min(seen) < 16, (sizes, seen)  # every product asks MKL's kernel
            elif sizes[1] < below:
                assert seen == [], (sizes, seen)
            else:
                assert seen and min(seen) >= below, (sizes, seen)  # only the wide ones (24 and 20 columns)
    # the AVX2 emulation leaves no product to NumPy by its width alone (its narrow products follow MKL's dot
    # kernel since 0314a4d): it says by shape and layout which ones it refuses (gemm.refuses), and means it
    assert gemm_avx2.gemm.numpy_below == 1
    a = np.ones((32, 10), np.float32)
    refused, taken = np.ones((10, 11), np.float32), np.ones((10, 12), np.float32)
    assert gemm_avx2.gemm.refuses(a, refused) and gemm_avx2.sgemm(a, refused) is None
    assert not gemm_avx2.gemm.refuses(a, taken) and gemm_avx2.sgemm(a, taken) is not None


def test_fused_linear_keeps_graph_errors():
    """The fused path leaves the freed-graph and in-place errors to the node's own backward."""
    lin = nn.Linear(4, 3)
    x = torch.ones(2, 4)
    loss = lin(x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()
    x2 = torch.ones(2, 4, requires_grad=True)
    loss = lin(x2).sum()
    with torch.no_grad():
        lin.weight.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_run_plain_falls_back_for_hooks_and_retained_grads():
    layers, x, y = _mlp(3)
    seen = []
    h = layers[0](x)
    h.retain_grad()
    h.register_hook(lambda g: seen.append(g.shape))
    loss = F.mse_loss(layers[1](torch.relu(h)), y)
    loss.backward()
    assert seen == [torch.Size([32, 5])]
    assert h.grad is not None and h.grad.shape == torch.Size([32, 5])


def test_run_plain_accumulates_several_contributions_in_order():
    x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    y = (x * x + x.exp() * x + x.sin()).sum()
    y.backward()
    plain = _bits(x.grad)
    x.grad = None
    y = (x * x + x.exp() * x + x.sin()).sum()
    torch.autograd.backward(y, inputs=[x])  # the general engine (inputs given)
    assert plain == _bits(x.grad)


def test_linear_2d_builds_the_general_graph():
    layers, x, y = _mlp(4)
    lin = layers[0]
    xr = x.detach().requires_grad_(True)
    fast = F.linear(xr, lin.weight, lin.bias)
    general = torch.addmm(lin.bias, xr, lin.weight.t())
    assert linalg.linear_2d(xr, lin.weight, lin.bias) is not None  # the fast path applies here
    assert _bits(fast) == _bits(general)
    assert _names(fast.grad_fn) == _names(general.grad_fn) == (
        "AddmmBackward0", (("torch::autograd::AccumulateGrad", ()), ("torch::autograd::AccumulateGrad", ()),
                           ("TBackward0", (("torch::autograd::AccumulateGrad", ()),))))
    assert fast.grad_fn._seq > fast.grad_fn.next_functions[2][0]._seq  # t() was recorded first
    g = torch.from_numpy(np.random.default_rng(5).standard_normal((32, 5)).astype(np.float32))
    grads_fast = torch.autograd.grad(fast, [xr, lin.weight, lin.bias], g)
    grads_general = torch.autograd.grad(general, [xr, lin.weight, lin.bias], g)
    assert [_bits(a) for a in grads_fast] == [_bits(b) for b in grads_general]


def test_linear_2d_saves_versioned_tensors():
    lin = nn.Linear(4, 3)
    x = torch.ones(2, 4, requires_grad=True)
    out = F.linear(x, lin.weight, lin.bias)
    with torch.no_grad():
        lin.weight.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_linear_2d_leaves_errors_to_the_general_path():
    lin = nn.Linear(4, 3)
    assert linalg.linear_2d(torch.ones(2, 5), lin.weight, lin.bias) is None
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x5 and 4x3\)"):
        F.linear(torch.ones(2, 5), lin.weight, lin.bias)
    assert linalg.linear_2d(torch.ones(2, 4, dtype=torch.float64), lin.weight, lin.bias) is None


def test_first_gradient_of_a_leaf_is_kept_not_copied(monkeypatch):
    copies = []
    real = tensor_module.detached_copy
    monkeypatch.setattr(tensor_module, "detached_copy", lambda t: copies.append(t.shape) or real(t))
    layers, x, y = _mlp(6)
    _loss(layers, x, y).backward()
    assert copies == []                     # the weights' and biases' gradients are the engine's own arrays
    for lin in layers:
        assert lin.weight.grad.is_contiguous() and lin.weight.grad.shape == lin.weight.shape
    g = torch.ones(32, 5)
    out = layers[0](x)
    out.backward(g)                         # g is the caller's: the bias gradient is a new array, g untouched
    assert float(g.sum()) == 160.0


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 100, 2049, 5000])
def test_relu_fast_paths_keep_clamp_min_bits(dtype, n):
    """relu(x) is x where not x < 0, else +0 (NaN and -0. kept), and its gradient where(result <= 0,
    0, g), whichever loop computes them (np.maximum where it is exact, the bit masks elsewhere)."""
    kinds = np.array([-0.0, np.nan, -1.0, 2.0, 0.0, -np.inf, np.inf, 1e-30, -3.5], dtype=np.float64)
    data = kinds[np.arange(n) % len(kinds)].astype(dtype)
    for x_np in (data, data[::2]):
        x = torch.from_numpy(x_np.copy()).requires_grad_(True)
        out = torch.relu(x)
        want = np.where(x_np < 0, dtype(0), x_np)
        assert out._data.view(np.uint8).tobytes() == want.view(np.uint8).tobytes()
        g_np = np.random.default_rng(n).standard_normal(x_np.shape).astype(dtype)
        g_np[::3] = np.nan
        out.backward(torch.from_numpy(g_np))
        want_g = np.where(want <= 0, dtype(0), g_np)
        assert x.grad._data.view(np.uint8).tobytes() == want_g.view(np.uint8).tobytes()


@pytest.mark.parametrize("before, after", [("(700, 10, 10)", "(10000, 10, 10)"), ("(2000, 10, 10)", "(10000, 10, 10)"),
                                           ("(123, 4, 5)", "(123, 4, 5)")])
def test_engine_collects_less_often_unless_the_program_chose(before, after):
    """Importing the engine raises the collector's first threshold from the interpreter's default (a
    long graph otherwise sets off full collections, each a walk of the whole graph); a program's own
    setting stays."""
    code = (f"import gc; gc.set_threshold(*{before}); import gradcli.engine.api; "
            "print(gc.get_threshold()); print(gc.isenabled())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=ROOT).stdout.split("\n")
    assert out[:2] == [after, "True"]


def test_a_kept_first_gradient_is_a_plain_fresh_tensor():
    """A first gradient nothing else holds becomes .grad as it is (the engine's own tensor when it is
    plain and fresh): no graph, version 0, and later in-place changes count from there."""
    layers, x, y = _mlp(8)
    _loss(layers, x, y).backward()
    for lin in layers:
        for p in lin.parameters():
            g = p.grad
            assert not g.requires_grad and g.grad_fn is None and g.is_leaf and g._version[0] == 0
            assert g._base is None and g.is_contiguous()
    w = layers[0].weight
    before = _bits(w.grad)
    _loss(layers, x, y).backward()          # the second pass adds in place: the version moves
    assert w.grad._version[0] == 1 and _bits(w.grad) != before


def test_a_gradient_that_requires_grad_is_detached_into_grad():
    """A custom backward may return a fresh tensor that requires grad: .grad is then a tensor of its
    own without it (torch's AccumulateGrad detaches what it keeps)."""
    class Fresh(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return torch.ones(3, requires_grad=True)

    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Fresh.apply(a).sum().backward()
    assert not a.grad.requires_grad and a.grad.grad_fn is None
    assert a.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("op", ["__add__", "__sub__", "__mul__", "__truediv__"])
def test_scalar_operator_keeps_the_bits_of_binary_when_one_number_object_meets_both_dtypes(op):
    """The 0-d operator remembers the last number object it converted (elementwise_common.scalar_operator);
    the same float object with a float32, then a float64, then a float32 tensor must each time give the
    bits of the general binary() path (numbers that round differently in float32: 0.1, 1/3, 1e-45, 3e38)."""
    from gradcli.engine.ops import arithmetic
    from gradcli.engine.ops.elementwise_common import binary
    cls = {"__add__": arithmetic.AddBackward0, "__sub__": arithmetic.SubBackward0,
           "__mul__": arithmetic.MulBackward0, "__truediv__": arithmetic.DivBackward0}[op]
    for b in (0.1, 1 / 3, 1e-45, 3e38, 7, -0.0):
        for dt in (torch.float32, torch.float64, torch.float32, torch.float64):
            a = torch.tensor(1.7, dtype=dt)
            fast = getattr(a, op)(b)
            with np.errstate(all="ignore"):
                slow = binary(cls, a, b)
            assert fast.dtype is dt and fast._data.dtype == slow._data.dtype
            assert fast._data.tobytes() == slow._data.tobytes(), (op, b, dt)


# ----------------------------------------------------------------------------- scalar chains (ops/scalar_chain.py)

_CONSTANTS = (1.000001, 1e-06, 0.1, 1 / 3, -2.5, 7, -3, 1.7, 0.9, 0.7, -1.1, 3)
# numbers that round to 0 or infinity, or are 0, inf or nan, in float32 (test_scalar_chain_walk_edges): one in 200
_RARE = (1e-45, 1e-30, 3e38, 1e20, 2 ** 70, -0.0, 0.0, float("inf"), float("nan"))


def _scalar_chain(rng, dt, n, x, w, z):
    """A random 0-d chain from leaf x: mostly `y op number` (the walk's nodes), with steps it must stop at
    (a leaf w in a product, a branch that feeds a node twice, sin, a dtype change, a grad-free tensor z)."""
    y = x
    for _ in range(n):
        c = _CONSTANTS[rng.integers(len(_CONSTANTS))] if rng.integers(200) else _RARE[rng.integers(len(_RARE))]
        k = rng.integers(12)
        if k < 3:
            y = y * c
        elif k < 5:
            y = y + c
        elif k < 6:
            y = y - c
        elif k < 7:
            y = c * y if rng.integers(2) else c + y
        elif k < 8:
            y = y + z if rng.integers(2) else y - z  # a tensor that needs no gradient: AddBackward0 passes g
        elif k < 9:
            y = y * w if rng.integers(2) else y.sin()
        elif k < 10:
            y = y * 0.5 + y * 0.25  # two gradients meet in y's node
        elif k < 11:
            y = torch.add(y, c, alpha=2) if rng.integers(2) else y.to(torch.float64 if dt is torch.float32
                                                                       else torch.float32).to(dt)
        else:
            y = y / 3.0 if rng.integers(2) else -y
    return y


def _chain_grads(seed, dt, n, monkeypatch, walks):
    from gradcli.engine import autograd_engine as AE
    with monkeypatch.context() as m:
        if not walks:
            m.setattr(AE, "scalar_walks", {})
        rng = np.random.default_rng(seed)
        x = torch.tensor(float(rng.standard_normal()), dtype=dt, requires_grad=True)
        w = torch.tensor(0.75, dtype=dt, requires_grad=True)
        z = torch.tensor(0.5, dtype=dt)
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = _scalar_chain(rng, dt, n, x, w, z)
            y.backward()
        return [x.grad._data.tobytes(), w.grad._data.tobytes() if w.grad is not None else None,
                sorted(str(c.message) for c in caught)]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(12))
def test_scalar_chain_walk_matches_the_general_step(seed, dt, monkeypatch):
    """run_plain's scalar-chain walk against its general step (the walk switched off) and the general engine
    (autograd.grad): the same gradient bits and the same NumPy warnings (float32 products that overflow)."""
    from gradcli.engine import autograd_engine as AE
    from gradcli.engine.ops import scalar_chain
    dt = getattr(torch, dt)
    runs = []
    real = scalar_chain.walk

    def counted(*args):
        r = real(*args)
        runs.append(r is not None and r[0])
        return r
    with monkeypatch.context() as m:
        m.setattr(AE, "scalar_walks", {cls: counted for cls in AE.scalar_walks})
        fast = _chain_grads(seed, dt, 60, monkeypatch, True)
    assert any(runs), "the walk never ran more than one node"
    general = _chain_grads(seed, dt, 60, monkeypatch, False)
    assert fast == general
    rng = np.random.default_rng(seed)
    x = torch.tensor(float(rng.standard_normal()), dtype=dt, requires_grad=True)
    w = torch.tensor(0.75, dtype=dt, requires_grad=True)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = _scalar_chain(rng, dt, 60, x, w, torch.tensor(0.5, dtype=dt))
        gx, = torch.autograd.grad(y, [x])
    assert gx._data.tobytes() == fast[0]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("numbers", [(1e20, 1e20, 0.5), (3e38, 2.0, 1.0), (1e-30, 1e-20, 1.0), (1e-45, 0.5, 3.0),
                                     (-0.0, 1.0, 2.0), (2 ** 63, 2 ** 63, 2 ** 63), (float("nan"), 1.0, 1.0),
                                     (float("inf"), 0.0, 1.0), (0.1, 1e-45, 1e38)])
def test_scalar_chain_walk_edges(numbers, dt, monkeypatch):
    """Products that overflow float32 (the walk stops: NumPy's cast warns in the general step), underflow to
    subnormals and zero, signed zeros, nan and inf: the general step's bits and warnings, in C and in Python."""
    import warnings
    from gradcli.engine import autograd_engine as AE
    from gradcli.engine.ops import scalar_chain
    dt = getattr(torch, dt)

    def grad(walks, native_from=0):
        with monkeypatch.context() as m:
            if not walks:
                m.setattr(AE, "scalar_walks", {})
            m.setattr(scalar_chain, "NATIVE_FROM", native_from)  # 0: the C walk where it is built
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                x = torch.tensor(1.25, dtype=dt, requires_grad=True)
                y = x
                for c in numbers:
                    y = y * c + 1.0
                    y = y - 0.5
                y.backward()
            return x.grad._data.tobytes(), [str(c.message) for c in caught]
    assert grad(True) == grad(False) == grad(True, 10 ** 9)


def test_scalar_chain_walk_bits_of_a_long_chain(monkeypatch):
    """Case 2's chain (bench): the walk runs it all in one call, with the general step's bits."""
    from gradcli.engine import autograd_engine as AE

    def grad(walks):
        with monkeypatch.context() as m:
            if not walks:
                m.setattr(AE, "scalar_walks", {})
            x = torch.tensor(1.5, requires_grad=True)
            y = x
            for _ in range(3000):
                y = y * 1.000001
                y = y + 1e-06
            y.backward()
            return x.grad._data.tobytes()
    assert grad(True) == grad(False)


def test_scalar_chain_walk_keeps_graph_errors_and_retain_graph():
    """Freed saved values raise as the general step does; adds alone save nothing (torch runs them again);
    retain_graph keeps the numbers for a second pass, which then gives the same gradient again."""
    x = torch.tensor(2.0, requires_grad=True)
    y = (x * 3.0 + 1.0) * 0.5 - 2.0
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 3.0
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    x.grad = None
    y = (x + 1.0) - 2.0
    y.backward()
    y.backward()
    assert x.grad.item() == 2.0


def test_scalar_chain_walk_gives_the_leaf_its_gradient_and_no_graph():
    """A passed-through root gradient and a scaled one both reach .grad as plain tensors, and hooks or a
    retained grad in the chain still see theirs (the general engine)."""
    x = torch.tensor(2.0, requires_grad=True)
    (x + 1.0).backward()
    assert x.grad.item() == 1.0 and x.grad.grad_fn is None and not x.grad.requires_grad
    x.grad = None
    h = x * 4.0
    h.retain_grad()
    seen = []
    h.register_hook(lambda g: seen.append(g.item()))
    (h * 0.5 + 1.0).backward()
    assert seen == [0.5] and h.grad.item() == 0.5 and x.grad.item() == 2.0


@pytest.mark.parametrize("op", ["__add__", "__sub__", "__mul__", "__truediv__", "__radd__", "__rmul__"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_scalar_operator_results_are_binary_results(op, requires_grad):
    """The 0-d operator's result array (np.array of the Python float, elementwise_common.scalar_operator) has
    the bits, dtype and flags (a fresh, writable, C-contiguous 0-d array of its own) of the general binary()
    path's, over special values of both operands (nan, infinities, -0.0, overflow, underflow), numbers of
    every Python kind (bool and int promote to the tensor's dtype) and 0-d tensors of the same dtype."""
    from gradcli.engine.ops import arithmetic
    from gradcli.engine.ops.elementwise_common import binary
    cls = {"add": arithmetic.AddBackward0, "sub": arithmetic.SubBackward0, "mul": arithmetic.MulBackward0,
           "truediv": arithmetic.DivBackward0, "radd": arithmetic.AddBackward0, "rmul": arithmetic.MulBackward0}
    name = op.strip("_")
    inf, nan = float("inf"), float("nan")
    for dt in (torch.float32, torch.float64):
        values = (1.7, -0.0, 0.0, nan, inf, -inf, 3e38, 1e-40, -2.5)
        others = (*values, 7, -3, True, False, 1e300, 1e-320,
                  *(torch.tensor(v, dtype=dt) for v in values))
        for av in values:
            for b in others:
                a = torch.tensor(av, dtype=dt, requires_grad=requires_grad)
                if op == "__sub__" and type(b) is bool:  # torch's error, from the general path
                    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
                        a - b
                    continue
                with np.errstate(all="ignore"):
                    fast = getattr(a, op)(b)
                    slow = binary(cls[name], a, b)  # __radd__ and __rmul__ commute: a + b, a * b
                r, s = fast._data, slow._data
                assert type(r) is np.ndarray and r.shape == () and r.dtype == s.dtype == dt.np, (op, av, b, dt)
                assert r.tobytes() == s.tobytes(), (op, av, b, dt)
                assert r.flags.writeable and r.flags.owndata and r.flags.c_contiguous and r.base is None
                assert fast.dtype is slow.dtype is dt and fast.requires_grad is requires_grad
                assert (fast.grad_fn is None) is (not requires_grad)
                if requires_grad:
                    assert type(fast.grad_fn) is type(slow.grad_fn)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(12))
def test_scalar_chain_walk_in_c_is_the_python_loop(seed, dt, monkeypatch, native_module):
    """csrc/chain.c's scalar_walk against scalar_chain.py's loop: the same runs (nodes run, where each stops)
    and the same gradient bits and warnings, on the random chains above and the edge numbers."""
    from gradcli.engine import autograd_engine as AE
    from gradcli.engine.ops import scalar_chain
    c_walk = native_module("chain").scalar_walk
    dt = getattr(torch, dt)
    real = scalar_chain.walk

    def run(native):
        runs = []

        def counted(*args):
            r = real(*args)
            runs.append(None if r is None else (r[0], r[1].name(), r[2]._data.tobytes()))
            return r
        with monkeypatch.context() as m:
            m.setattr(scalar_chain, "_NATIVE", [native])
            m.setattr(scalar_chain, "NATIVE_FROM", 0)
            m.setattr(AE, "scalar_walks", {cls: counted for cls in AE.scalar_walks})
            got = _chain_grads(seed, dt, 60, monkeypatch, True)
        return got, runs
    in_c, in_python = run(c_walk), run(None)
    assert any(r is not None and r[0] for r in in_c[1])
    assert in_c == in_python


def test_scalar_walk_in_c_refuses_what_is_not_a_nodes_slot(native_module):
    """scalar_walk reads memory only through Node's slots, in node classes derived from Node: anything else
    is refused before a node is looked at."""
    from gradcli.engine.autograd import Node
    from gradcli.engine.ops import arithmetic, scalar_chain
    from gradcli.engine.ops.elementwise_common import number_operand
    c_walk = native_module("chain").scalar_walk
    x = torch.tensor(1.5, requires_grad=True)
    node = (x * 2.0).grad_fn
    slots = scalar_chain._SLOTS
    good = (node, 1.0, True, torch.float32, False, {}, number_operand, slots, (arithmetic.MulBackward0,), ())
    assert scalar_chain.NATIVE_FROM <= 1000  # (case 2's chains, bench, run in C)
    assert c_walk(*good)[1] == 2.0

    class Other:
        __slots__ = ("_seq", "_out_dtype", "_fns", "_saved", "_kw")
    bad_slots = [slots[:4], list(slots), (Node.name,) + slots[1:], tuple(Other.__dict__[n] for n in Other.__slots__),
                 (slots[0], slots[1], slots[2], slots[3], Other.__dict__["_kw"])]
    for bad in bad_slots:
        with pytest.raises(TypeError):
            c_walk(*good[:7], bad, *good[8:])
    for types in [(Other,), (int,), ("MulBackward0",), [arithmetic.MulBackward0]]:
        with pytest.raises(TypeError):
            c_walk(*good[:8], types, ())
    with pytest.raises(TypeError):
        c_walk(*good[:5], [], *good[6:])
    with pytest.raises(TypeError):
        c_walk(*good[:9])


def _collect_graphs():
    """Roots of graphs of every shape _collect_plain meets, and the ones it leaves to the general engine."""
    layers, x, y = _mlp(5)
    yield _loss(layers, x, y)
    a = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    b = torch.tensor(0.5, requires_grad=True)
    yield (a * a + a.exp() * a + a.sin()).sum()
    s = a * b
    yield (s + s * 2 + (s - b).exp()).sum() * b
    c = b
    for _ in range(50):
        c = c * 1.01 + b
    yield c
    yield a.unbind(0)[1] * 2  # a node of several outputs
    h = a * 3
    h.register_hook(lambda g: g)
    yield h.sum()
    r = a * 4
    r.retain_grad()
    yield r.sum()
    d = torch.tensor(2.0, requires_grad=True)
    d.register_post_accumulate_grad_hook(lambda t: None)
    yield d * 2
    e = torch.tensor(3.0, requires_grad=True)
    e.register_post_accumulate_grad_hook(lambda t: None).remove()  # an empty list of hooks left
    yield e * e
    n = (a * 5).sum()
    _ = n.grad_fn.metadata  # _x made for metadata alone
    yield n


def test_collect_plain_in_c_is_the_python_walk(native_module, monkeypatch):
    """csrc/chain.c's collect_plain gives _collect_plain's deps (same order) and function nodes, or leaves
    the graph to the Python walk (NotImplemented) where it has something to decide."""
    from gradcli.engine import autograd_engine as AE
    from gradcli.engine.autograd import AccumulateGrad, Node
    collect = native_module("chain").collect_plain
    monkeypatch.setattr(AE, "native_collect", [None])
    answered = 0
    for root in _collect_graphs():
        node = root.grad_fn
        python = AE._collect_plain(node)
        c = collect(node, AccumulateGrad, Node.__dict__["_x"], Node.__dict__["_fns"])
        if c is NotImplemented:
            continue
        answered += 1
        assert python is not None
        assert list(c[0].items()) == list(python[0].items()) and c[1] == python[1]
    assert answered == 5
    leaf = torch.tensor(1.0, requires_grad=True)
    assert collect(leaf._edge()[0], AccumulateGrad, Node.__dict__["_x"], Node.__dict__["_fns"]) is NotImplemented
    with pytest.raises(TypeError):
        collect(node, AccumulateGrad, Node.__dict__["_x"], Node.name)
    with pytest.raises(TypeError):
        collect(node, int, Node.__dict__["_x"], Node.__dict__["_fns"])
    with pytest.raises(TypeError):
        collect(node, AccumulateGrad)


def test_backward_is_the_same_with_and_without_the_c_walks(native_module, monkeypatch):
    """loss.backward() on the graphs above with csrc/chain.c's walks and with the Python ones: the same grads."""
    from gradcli.engine import autograd_engine as AE
    from gradcli.engine.ops import scalar_chain
    monkeypatch.setattr(AE, "native_collect", [native_module("chain").collect_plain])
    monkeypatch.setattr(scalar_chain, "NATIVE_FROM", 0)

    def grads():
        leaves = []
        for root in _collect_graphs():
            root.sum().backward()
            leaves += [t for t in _leaves(root.grad_fn)]
        return [t.grad._data.tobytes() for t in leaves]
    with_c = grads()
    with monkeypatch.context() as m:
        m.setattr(AE, "native_collect", [None])
        m.setattr(scalar_chain, "_NATIVE", [None])
        without = grads()
    assert len(with_c) >= 10 and with_c == without


def _leaves(node, seen=None):
    """The leaf tensors below node, in a fixed order."""
    from gradcli.engine.autograd import AccumulateGrad
    seen = set() if seen is None else seen
    out = []
    for nxt, _ in node.next_functions:
        if nxt is None or nxt in seen:
            continue
        seen.add(nxt)
        out += [nxt.variable] if isinstance(nxt, AccumulateGrad) else _leaves(nxt, seen)
    return out


def test_one_tensor_call_skips_only_checks_that_pass(monkeypatch):
    """torch.relu(x) with one plain Tensor (a single signature of Tensor parameters) skips the parser's checks,
    which could only pass; every other call (a number, a keyword, two arguments, a Parameter) is checked as
    before, with torch's messages."""
    from gradcli.engine import arg_single, argcheck
    x = torch.tensor([-1.0, 2.0])
    assert torch.relu(x).tolist() == [0.0, 2.0]  # the first call compiles the signature
    checked = []
    real_all, real_first = arg_single.takes_all, argcheck.check_first
    monkeypatch.setattr(arg_single, "takes_all", lambda *a: checked.append("all") or real_all(*a))
    monkeypatch.setattr(argcheck, "check_first", lambda *a: checked.append("first") or real_first(*a))
    assert _bits(torch.relu(x)) == _bits(torch.clamp_min(x, 0.0)) and checked == []
    w = nn.Parameter(torch.tensor([3.0, -4.0]))
    assert torch.relu(w).tolist() == [3.0, 0.0] and checked == ["all"]
    assert torch.relu(input=x).tolist() == [0.0, 2.0] and checked == ["all", "first", "all"]
    for args, kwargs, message in [((3,), {}, "relu(): argument 'input' (position 1) must be Tensor, not int"),
                                  ((x, x), {}, "relu() takes 1 positional argument but 2 were given"),
                                  ((x,), {"inplace": True}, "relu() got an unexpected keyword argument 'inplace'")]:
        with pytest.raises(TypeError) as err:
            torch.relu(*args, **kwargs)
        assert message in str(err.value)
