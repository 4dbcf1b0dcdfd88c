"""F.scaled_dot_product_attention (engine/nn/functional_attention.py): which path runs (torch's grad_fn
names), the flash kernel's arithmetic against the math path and against torch, _safe_softmax's rows."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gradcli.engine import api as G
from gradcli.engine.nn import functional_attention as FA

F = G.nn.functional


def _qkv(shape_q, shape_k, dtype=G.float32, seed=0):
    rng = np.random.default_rng(seed)
    return [G.tensor(rng.standard_normal(s).tolist(), dtype=dtype, requires_grad=True)
            for s in (shape_q, shape_k, shape_k)]


@pytest.mark.parametrize("shapes, kw, name", [
    (((2, 2, 3, 4), (2, 2, 5, 4)), {}, "ScaledDotProductFlashAttentionForCpuBackward0"),
    (((2, 2, 3, 4), (2, 2, 5, 4)), {"is_causal": True}, "ScaledDotProductFlashAttentionForCpuBackward0"),
    (((2, 2, 3, 4), (2, 2, 5, 4)), {"dropout_p": 0.3}, "UnsafeViewBackward0"),
    (((2, 3, 4), (2, 5, 4)), {}, "UnsafeViewBackward0"),
    (((2, 3, 4), (2, 5, 4)), {"dtype": "float16"}, "ToCopyBackward0"),  # the math path upcasts half
    (((2, 2, 3, 4), (2, 2, 5, 4)), {"attn_mask": G.zeros(2, 3, 5)}, "UnsafeViewBackward0"),  # a 3-d mask
])
def test_path_chosen_as_torch_does(shapes, kw, name):
    kw = dict(kw)
    q, k, v = _qkv(*shapes, dtype=getattr(G, kw.pop("dtype", "float32")))
    assert F.scaled_dot_product_attention(q, k, v, **kw).grad_fn.name() == name


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 0.3},
                                {"attn_mask": "bool"}, {"attn_mask": "float"}])
def test_flash_agrees_with_math_in_float64(kw):
    q, k, v = _qkv((2, 3, 4, 8), (2, 3, 6, 8), G.float64)
    if kw.get("attn_mask") == "bool":
        kw = {"attn_mask": G.tensor(np.random.default_rng(1).random((4, 6)) > 0.4)}
    elif kw.get("attn_mask") == "float":
        kw = {"attn_mask": G.tensor(np.random.default_rng(1).standard_normal((2, 1, 4, 6)))}
    flash = F.scaled_dot_product_attention(q, k, v, **kw)
    assert flash.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    qm, km, vm = (t.reshape(6, *t.shape[2:]) for t in (q, k, v))
    mask = kw.get("attn_mask")
    if mask is not None and mask.dim() == 4:
        mask = mask.expand(2, 3, 4, 6).reshape(6, 4, 6)
    math_kw = dict(kw, **({"attn_mask": mask} if mask is not None else {}))
    ref = F.scaled_dot_product_attention(qm, km, vm, **math_kw)
    assert ref.grad_fn.name() == "UnsafeViewBackward0"
    np.testing.assert_allclose(flash._data.reshape(6, 4, 8), ref._data, rtol=0, atol=1e-12)
    g = np.random.default_rng(2).standard_normal(flash.shape)
    grads = G.autograd.grad(flash, (q, k, v), G.tensor(g))
    ref_grads = G.autograd.grad(ref, (q, k, v), G.tensor(g.reshape(6, 4, 8)))
    for a, b in zip(grads, ref_grads):
        np.testing.assert_allclose(a._data, b._data, rtol=0, atol=1e-12)


def test_fully_masked_rows_are_zero_on_both_paths():
    q, k, v = _qkv((1, 1, 2, 4), (1, 1, 3, 4))
    mask = G.tensor([[True, False, True], [False, False, False]])
    for out in (F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=mask)):
        assert not np.isnan(out._data).any()
        assert (out._data[..., 1, :] == 0).all() and (out._data[..., 0, :] != 0).all()
    s = FA.safe_softmax(G.tensor([[-math.inf, -math.inf], [0.0, 1.0]], requires_grad=True), -1)
    assert s.grad_fn.name() == "SafeSoftmaxBackward0"
    assert s._data[0].tolist() == [0.0, 0.0]


def test_exp_u20_is_close_to_exp():
    x = np.linspace(-87, 0, 100001, dtype=np.float32)
    got = FA._exp_u20(x).astype(np.float64)
    want = np.exp(x.astype(np.float64))
    ulp = np.spacing(want.astype(np.float32)).astype(np.float64)
    assert np.abs(got - want).max() / ulp.max() < 64
    assert (np.abs(got - want) <= 20 * ulp).mean() > 0.99  # "ULP=20", its comment says
    assert FA._exp_u20(np.float32([0.0, -100.0]))[1] == 0


@pytest.mark.parametrize("dtype, ulps", [("float32", 4), ("float64", 4)])
def test_flash_close_to_torch(dtype, ulps):
    """The flash path's values within a few ulps of torch's (of the largest value, for the gradients' sums that
    cancel) (MKL's product order is not emulated: the rate of
    equal bits is in docs/numerics.md)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s).astype(dtype) for s in ((2, 2, 6, 8), (2, 2, 9, 8), (2, 2, 9, 8))]
    mask = rng.random((6, 9)) > 0.3
    tq = [torch.tensor(a, requires_grad=True) for a in arrays]
    gq = [G.tensor(a.tolist(), dtype=getattr(G, dtype), requires_grad=True) for a in arrays]
    want = torch.nn.functional.scaled_dot_product_attention(*tq, attn_mask=torch.tensor(mask))
    got = F.scaled_dot_product_attention(*gq, attn_mask=G.tensor(mask.tolist()))
    g = rng.standard_normal(want.shape).astype(dtype)
    want.backward(torch.tensor(g))
    got.backward(G.tensor(g.tolist(), dtype=getattr(G, dtype)))
    eps = np.finfo(dtype).eps
    for a, b in [(want.detach().numpy(), got._data)] + [(t.grad.numpy(), x.grad._data) for t, x in zip(tq, gq)]:
        np.testing.assert_allclose(b, a, rtol=ulps * eps, atol=ulps * eps * np.abs(a).max())  # sums that cancel


@pytest.mark.parametrize("shapes, kw", [
    (((2, 3, 7, 16), (2, 3, 20, 16)), {}),
    (((2, 2, 13, 32), (2, 2, 16, 32)), {"scale": 0.3}),
    (((1, 2, 9, 16), (1, 2, 12, 16)), {"is_causal": True}),
    (((1, 2, 9, 16), (1, 2, 12, 16)), {"attn_mask": "bool"}),
])
def test_flash_bit_for_bit_on_avx2(shapes, kw):
    """On an AVX2 CPU without AVX-512, with 12 keys or more and heads of 16 or more, the flash kernel's float32
    forward and backward are torch's bits: its products as MKL's AVX2 chains (alpha on the first column-major
    operand), exp_u20 and SLEEF's expf where the kernel takes them, the lane sums."""
    torch = pytest.importorskip("torch")
    from gradcli.engine import gemm_avx2
    if not gemm_avx2.active():
        pytest.skip("MKL's AVX2 order is emulated on an AVX2 CPU without AVX-512 only")
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (shapes[0], shapes[1], shapes[1])]
    tkw, gkw = dict(kw), dict(kw)
    if kw.get("attn_mask") == "bool":
        m = rng.random((shapes[0][2], shapes[1][2])) > 0.3
        tkw["attn_mask"], gkw["attn_mask"] = torch.tensor(m), G.tensor(m.tolist())
    tq = [torch.tensor(a, requires_grad=True) for a in arrays]
    gq = [G.tensor(a.tolist(), dtype=G.float32, requires_grad=True) for a in arrays]
    want = torch.nn.functional.scaled_dot_product_attention(*tq, **tkw)
    got = F.scaled_dot_product_attention(*gq, **gkw)
    g = rng.standard_normal(want.shape).astype(np.float32)
    want.backward(torch.tensor(g))
    got.backward(G.tensor(g.tolist()))
    assert np.array_equal(got._data, want.detach().numpy())
    for t, x in zip(tq, gq):
        assert np.array_equal(x.grad._data, t.grad.numpy())


def test_float16_takes_the_flash_kernel_in_float():
    """float16 inputs run the flash kernel as torch's does (in float, the probabilities stored in half)."""
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s).astype(np.float16) for s in ((2, 2, 3, 8), (2, 2, 5, 8), (2, 2, 5, 8))]
    q, k, v = (G.tensor(a.astype(np.float32).tolist(), dtype=G.float16, requires_grad=True) for a in arrays)
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0" and out.dtype is G.float16
    ref = F.scaled_dot_product_attention(*(t.detach().double() for t in (q, k, v)))
    np.testing.assert_allclose(out._data.astype(np.float64), ref._data, rtol=0, atol=2e-3)
    out.sum().backward()
    assert q.grad.dtype is G.float16 and np.isfinite(q.grad._data).all()


def test_float16_bits_close_to_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s).astype(np.float16) for s in ((2, 2, 3, 8), (2, 2, 5, 8), (2, 2, 5, 8))]
    want = torch.nn.functional.scaled_dot_product_attention(*(torch.tensor(a) for a in arrays))
    got = F.scaled_dot_product_attention(*(G.tensor(a.astype(np.float32).tolist(), dtype=G.float16)
                                           for a in arrays))
    np.testing.assert_allclose(got._data.astype(np.float32), want.numpy().astype(np.float32), rtol=0, atol=1e-3)


def _layouts(t, F_):
    """The output strides of the flash path for query layouts a model makes, and the tutorial's .view."""
    B, H, L, D = 2, 2, 5, 8
    out = []
    k = t.randn(B, H, L, D)
    proj = t.randn(B, L, 3 * H * D)
    q3, k3, v3 = (c.view(B, -1, H, D).transpose(1, 2) for c in proj.chunk(3, -1))   # the SDPA tutorial's
    cases = [(t.randn(B, L, H, D).transpose(1, 2), k, k),          # a transposed (B, L, H, D) buffer
             (k, t.randn(B, L, H, D).transpose(1, 2), k),          # only key transposed: the query's layout
             (t.randn(H, B, L, D).transpose(0, 1), k, k),
             (t.randn(B, H, D, L).transpose(2, 3), k, k),          # last stride not 1: made contiguous
             (t.randn(B, L, H, D).transpose(1, 2).double(), k.double(), k.double()),
             (q3, k3, v3)]
    for q, kk, v in cases:
        out.append(F_.scaled_dot_product_attention(q, kk, v).stride())
    y = F_.scaled_dot_product_attention(q3, k3, v3)
    out.append(tuple(y.transpose(1, 2).view(B, L, H * D).shape))
    return out


def test_flash_output_keeps_the_query_layout_as_torch():
    """ATen's CPU flash kernel writes into empty_like(query): y.transpose(1, 2).view(B, L, H * D) works on a
    query made by view + transpose (it raised gradcli's view error before)."""
    torch = pytest.importorskip("torch")
    assert _layouts(G, F) == _layouts(torch, torch.nn.functional)
