"""F.scaled_dot_product_attention as ATen's CPU dispatch runs it (attention.cpp, sdp_utils_cpp.cpp).

The flash path (sdp::SDPBackend::flash_attention): 4-d float32/float64 query, key and value with the same
batch and heads, equal head sizes, no dropout, a mask (if any) of 2 or 4 dimensions that needs no gradient
and broadcasts as the kernel's reshape_attn_mask_to_4d takes it, non-empty sequences: one node,
ScaledDotProductFlashAttentionForCpuBackward0, forward and backward in FlashAttentionKernel.cpp's order
(kv blocks of 512 with the online softmax; per row: the scaled q @ k.T, the mask added, the row's maximum,
exp(x - max) by Vectorized's exp_u20 over whole vectors and expf over the tail, the lanes summed as
VecReduceAllSIMD does, the sum and the output rescaled by exp(old max - max), the output times 1/sum).
The products are float32/float64 matrix products (MKL's sgemm order is not emulated: see docs/numerics.md).
Everything else takes the math path (_scaled_dot_product_attention_math): query * sqrt(scale), key.T *
sqrt(scale), their matmul, the mask added (a bool mask as 0/-inf; is_causal's tril), _safe_softmax (a row
that is all -inf gives zeros: SafeSoftmaxBackward0), dropout as at::dropout (torch's stream), matmul with value;
its graph is made of the ordinary nodes, as torch's is."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..autograd_modes import no_grad
from ..device import host, like
from ..function import Function, record
from ..ops import backward_ops as B
from ..ops import elementwise_common as EC
from ..ops import shape as S
from ..ops import softmax as SM
from ..ops import words
from ..ops.linalg import c10_low
from ..ops.matmul import matmul
from ..ops.reduction import c10
from ..ops.registry import Sample, op
from ..tensor import Tensor, wrap

_KV_SPLIT = 512  # cpu_flash_attention's kv_split_size (the q split does not change a row's arithmetic)


# ---------------------------------------------------------------------------- _safe_softmax

class SafeSoftmaxBackward0(Function):
    __slots__ = ()
    save_output = True
    explain = staticmethod(words.fixed("softmax Jacobian: y * (grad - (grad * y).sum(dim)) (rows that were all -inf "
                                       "are zeros)"))
    replay = staticmethod(lambda xs, kw, outs: [_safe_softmax_array(xs[0], kw["dim"])])

    def backward(self, g):
        (out,) = self.saved[-1:]
        return (B.softmax_backward_data(g, out, self._kw["dim"]),)


def _safe_softmax_array(data, dim):
    """_safe_softmax's values for an array."""
    with no_grad(), np.errstate(invalid="ignore"):
        r = SM.softmax(wrap(data, dtypes.from_numpy_dtype(data.dtype)), dim)._data
    dead = np.all(host(data) == -np.inf, axis=dim, keepdims=True)
    return np.where(dead, r.dtype.type(0), r) if dead.any() else r


def safe_softmax(input, dim):
    """at::_safe_softmax: softmax, with zeros where the whole row is -inf."""
    d = dim % input.dim()
    r = _safe_softmax_array(input._data, d)
    return record(SafeSoftmaxBackward0, (input,), wrap(like(input._data, np.ascontiguousarray(r)), input.dtype),
                  {"dim": d})


# ---------------------------------------------------------------------------- the flash kernel's arithmetic

def _lanes(dt):
    from ..rng_math import capability  # noqa: PLC0415
    width = 64 if capability() == "avx512" else 32
    return width // dt.itemsize


def _exp_u20(x):
    """Vectorized<float>::exp_u20 (vec256/vec512_float.h), lane by lane: a degree-5 polynomial of
    x - n*ln2 in FMAs, times 2**(n-1) times 2."""
    from ..rng_math import fma32  # noqa: PLC0415
    f32 = np.float32
    lo, hi = np.array(0xC2AEAC50, np.uint32).view(f32), np.array(0x42B17218, np.uint32).view(f32)
    log2e, ln2 = np.array(0x3FB8AA3B, np.uint32).view(f32), np.array(0x3F317218, np.uint32).view(f32)
    small = x < lo
    src = np.maximum(np.minimum(x, hi), lo)
    fx = np.floor(fma32(src, log2e, f32(0.5)))
    poly = fma32(-fx, ln2, src)
    res = fma32(poly, f32(0.00828929059), f32(0.0418978221))
    for c in (0.166676521, 0.499991506, 0.999999701, 1.0):
        res = fma32(poly, res, f32(c))
    n = (fx - f32(1)).astype(np.int32)
    two_n = ((n + 127) << 23).astype(np.int32).view(f32)
    two_n = np.where(small, f32(0), two_n)
    return (res * two_n) * f32(2)


def _tree_sum(acc):
    """VecReduceAllSIMD<float>: lane i added to lane i ^ half, then i ^ quarter, ... (lane 0's value)."""
    step = acc.shape[-1] // 2
    while step:
        acc = acc[..., :step] + acc[..., step:2 * step]
        step //= 2
    return acc[..., 0]


def _exp_sum(x, vmax):
    """_exp_reduce_sum_fusion_kernel over the last axis: (exp(x - max), its sum)."""
    dt = x.dtype
    lanes = _lanes(dt)
    size = x.shape[-1]
    full = lanes * (size // lanes)
    d = x - vmax[..., None]
    e = np.empty_like(d)
    with np.errstate(over="ignore", invalid="ignore"):
        if full:
            e[..., :full] = _exp_u20(d[..., :full]) if dt == np.float32 else np.exp(d[..., :full])
        e[..., full:] = np.exp(d[..., full:].astype(np.float64)).astype(dt)
    if full:
        acc = e[..., :lanes].copy()
        for i in range(lanes, full, lanes):
            acc += e[..., i:i + lanes]
        if dt == np.float32:
            total = _tree_sum(acc)
        else:  # the generic vec_reduce_all: lane 0 plus each lane in turn
            total = acc[..., 0]
            for i in range(1, lanes):
                total = total + acc[..., i]
    else:
        total = np.zeros(x.shape[:-1], dt)
    for i in range(full, size):
        total = total + e[..., i]
    return e, total


def _product(a, b):
    """a @ b over the last two axes. float32 on an AVX2 CPU without AVX-512: one chain of fused multiply-adds
    in k's order per element, as MKL's AVX2 sgemm runs the products it was measured on (engine/gemm_avx2.py)."""
    if a.dtype != np.float32 or not _chained():
        return (a @ b).astype(a.dtype)
    from ..rng_math import fma32  # noqa: PLC0415
    acc = np.zeros(np.broadcast_shapes(a.shape[:-1] + (1,), b.shape[:-2] + (1, b.shape[-1])), np.float32)
    for kk in range(a.shape[-1]):
        acc = fma32(a[..., kk:kk + 1], b[..., kk:kk + 1, :], acc)
    return acc


def _chained():
    from .. import gemm_avx2  # noqa: PLC0415
    return gemm_avx2.active()


def _flash_forward(q, k, v, mask, causal, scale):
    """cpu_flash_attention on (B, H, L, E) arrays: (output, logsumexp). float16 in float (the kernel's accum_t),
    the probabilities stored in half for their product with v (its qk_reduced_data), the output rounded to half."""
    if q.dtype == np.float16:
        out, lse = _flash_forward_accum(*(a.astype(np.float32) for a in (q, k, v)), mask, causal, scale, half=True)
        return out.astype(np.float16), lse
    return _flash_forward_accum(q, k, v, mask, causal, scale)


def _flash_forward_accum(q, k, v, mask, causal, scale, half=False):
    dt = q.dtype.type
    L, Skv = q.shape[-2], k.shape[-2]
    sf = dt(scale)
    out_acc = np.zeros(q.shape[:-1] + (v.shape[-1],), q.dtype)
    qmax = np.full(q.shape[:-1], -np.inf, q.dtype)
    qsum = np.zeros(q.shape[:-1], q.dtype)
    rows = np.arange(L)[:, None]
    for n in range(0, Skv, _KV_SPLIT):
        kb, vb = k[..., n:n + _KV_SPLIT, :], v[..., n:n + _KV_SPLIT, :]
        qk = _product(q, np.swapaxes(kb, -1, -2))
        if causal:
            cols = n + np.arange(kb.shape[-2])[None, :]
            qk = np.where(cols > rows, dt(-np.inf), qk)
        with np.errstate(invalid="ignore", over="ignore"):
            qk = qk * sf
            if mask is not None:
                qk = qk + mask[..., n:n + _KV_SPLIT].astype(q.dtype)
        tmax = np.maximum(qmax, qk.max(-1))
        dead = tmax == -np.inf
        with np.errstate(invalid="ignore", over="ignore"):
            p, tsum = _exp_sum(qk, np.where(dead, dt(0), tmax))
            rescale = np.exp((qmax - tmax).astype(np.float64)).astype(q.dtype)
        p = np.where(dead[..., None], dt(0), p)
        if half:
            p = p.astype(np.float16).astype(dt)
        new_sum = tsum + rescale * qsum
        qsum = np.where(dead, qsum, new_sum)
        if n > 0:
            out_acc = np.where(dead[..., None], out_acc, out_acc * rescale[..., None])
        qmax = np.where(dead, qmax, tmax)
        out_acc = _product(p, vb) + (out_acc if n > 0 else dt(0))
    qmax = np.where(qmax == -np.inf, dt(0), qmax)
    qsum = np.where(qsum == 0, dt(1), qsum)
    out = out_acc * (dt(1) / qsum)[..., None]
    lse = qmax + np.log(qsum.astype(np.float64)).astype(q.dtype)
    return out.astype(q.dtype), lse


def _row_dot(a, b):
    """vec::map2_reduce_all(x * y, +) over the last axis: lane sums of whole vectors (the tail in the first
    lanes), then the lanes reduced as VecReduceAllSIMD does (float32) or in turn (float64)."""
    lanes = _lanes(a.dtype)
    prod = a * b
    size = prod.shape[-1]
    if size < lanes:
        total = prod[..., 0]
        for i in range(1, size):
            total = total + prod[..., i]
        return total
    acc = prod[..., :lanes].copy()
    full = lanes * (size // lanes)
    for i in range(lanes, full, lanes):
        acc += prod[..., i:i + lanes]
    if full < size:
        acc[..., :size - full] += prod[..., full:]
    if a.dtype == np.float32:
        return _tree_sum(acc)
    total = acc[..., 0]
    for i in range(1, lanes):
        total = total + acc[..., i]
    return total


def _flash_backward(g, q, k, v, out, lse, mask, causal, scale, half=False):
    """cpu_flash_attention_backward (one block of kv: the shapes gradcli takes to this path are small); a
    product's alpha (the scale) multiplies its column-major first operand, as MKL applies it."""
    dt = q.dtype.type
    sf = dt(scale)
    T = np.swapaxes
    dsum = _row_dot(g, out)
    attn = _product(q, T(k * sf, -1, -2))
    if mask is not None:
        attn = attn + mask.astype(q.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        x = attn - lse[..., None]
        if q.dtype == np.float32:  # Vectorized<float>::exp: SLEEF's expf8_u10
            from ..sleef import expf  # noqa: PLC0415
            attn = expf(x).astype(np.float32)
        else:
            attn = np.exp(x)
    if causal:
        L, Skv = q.shape[-2], k.shape[-2]
        attn = np.where(np.arange(Skv)[None, :] > np.arange(L)[:, None], dt(0), attn)
    reduced = attn.astype(np.float16).astype(attn.dtype) if half else attn
    gv = _product(T(reduced, -1, -2), g)
    gattn = attn * (_product(g, T(v, -1, -2)) - dsum[..., None])
    if half:
        gattn = gattn.astype(np.float16).astype(gattn.dtype)
    gq = _product(gattn, k * sf)
    gk = _product(T(gattn, -1, -2), q * sf)
    return gq, gk, gv


class ScaledDotProductFlashAttentionForCpuBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_output = True
    explain = staticmethod(words.fixed("flash attention's backward: softmax(q k.T * scale + mask) rebuilt from the "
                                       "saved logsumexp, its Jacobian through both products"))
    replay = staticmethod(lambda xs, kw, outs: [_flash_forward(xs[0], xs[1], xs[2], kw["mask"], kw["causal"],
                                                               kw["scale"])[0]])

    def backward(self, g):
        q, k, v, out = (s for s in self.saved)
        kw = self._kw
        arrays = [host(t._data) for t in (g, q, k, v, out)]
        half = arrays[0].dtype == np.float16
        if half:  # in float, the probabilities and their gradients stored in half for the products
            arrays = [a.astype(np.float32) for a in arrays]
        grads = _flash_backward(*arrays, kw["lse"], kw["mask"], kw["causal"], kw["scale"], half)
        # each gradient in its input's layout, as ATen's kernel fills empty_like(q), (k), (v)
        return tuple(wrap(like(g._data, _laid_out_like(x, a.astype(g.dtype.np))), g.dtype)
                     for x, a in zip(arrays[1:4], grads))


# ---------------------------------------------------------------------------- the dispatch

def _check(query, key, value, attn_mask):
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise errors.type_error(f"scaled_dot_product_attention(): argument '{name}' (position "
                                    f"{('query', 'key', 'value').index(name) + 1}) must be Tensor, not "
                                    f"{type(t).__name__}")
    if not (query.dtype is key.dtype is value.dtype):
        raise errors.runtime(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                             f"{c10_low(query.dtype)} key.dtype: {c10_low(key.dtype)} and value.dtype: "
                             f"{c10_low(value.dtype)} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise errors.runtime(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                             f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype not in (dtypes.bool_, dtypes.float32, query.dtype):
        raise errors.runtime(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                             f"attn_mask.dtype: {c10_low(attn_mask.dtype)} and  query.dtype: "
                             f"{c10_low(query.dtype)} instead.")


def _flash_ok(query, key, value, mask, dropout_p):
    """sdp_utils_cpp's use_flash_attention_cpp."""
    if dropout_p > 0.0 or query.dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
        return False
    if not (query.dim() == key.dim() == value.dim() == 4):
        return False
    if not (query.shape[0] == key.shape[0] == value.shape[0] and query.shape[1] == key.shape[1] == value.shape[1]):
        return False
    if mask is not None:
        if mask.requires_grad:
            return False
        ms = tuple(mask.shape)
        if ms[-2] not in (query.shape[2], 1) or ms[-1] not in (key.shape[2], 1):
            return False
        if len(ms) == 4:
            if ms[0] not in (1, query.shape[0]) or ms[1] not in (1, query.shape[1]):
                return False
        elif len(ms) != 2:
            return False
    if not (query.shape[3] == key.shape[3] == value.shape[3]):
        return False
    return query.shape[2] > 0 and key.shape[2] > 0  # check_nonzero_sequence_lengths_dense


def _mask_array(mask, query):
    """convert_boolean_attn_mask: a bool mask as 0 where True, -inf where False, in query's dtype."""
    m = host(mask._data)
    if m.dtype == np.bool_:
        return np.where(m, query.dtype.np.type(0), query.dtype.np.type(-np.inf))
    return m


def _laid_out_like(ref, values):
    """``values`` (ref's shape) in a new array laid out as ATen's flash kernel lays out its output, which it
    writes into empty_like(query): ref's strides when ref is dense and non-overlapping (a (B, L, H, E)
    buffer viewed and transposed to (B, H, L, E) stays one), else dense strides in ref's order of strides
    (a chunk of a wider projection, as the SDPA tutorial's q, k, v); C order when ref's last stride is not
    1 (ATen made that input contiguous first)."""
    if ref.ndim == 0 or (ref.shape[-1] != 1 and ref.strides[-1] != ref.itemsize):
        return np.ascontiguousarray(values)
    dims = sorted((d for d in range(ref.ndim) if ref.shape[d] != 1), key=lambda d: -ref.strides[d])
    step, dense = ref.itemsize, True
    for d in reversed(dims):
        dense = dense and ref.strides[d] == step
        step *= ref.shape[d]
    if dense:
        dst = np.lib.stride_tricks.as_strided(np.empty(ref.size, values.dtype), ref.shape,
                                              tuple(st // ref.itemsize * values.itemsize for st in ref.strides))
    else:
        order = sorted(range(ref.ndim), key=lambda d: -ref.strides[d])
        dst = np.empty([ref.shape[d] for d in order], values.dtype).transpose(np.argsort(order))
    dst[...] = values
    return dst


def _flash(query, key, value, mask, is_causal, scale):
    L, E = query.shape[2], query.shape[3]
    sc = 1.0 / math.sqrt(E) if scale is None else float(scale)
    m = None
    if mask is not None:
        m = _mask_array(mask, query)
        m4 = m.reshape((1, 1) + m.shape) if m.ndim == 2 else m
        m = np.broadcast_to(m4, m4.shape[:2] + (L, key.shape[2]))
    q, k, v = (host(t._data) for t in (query, key, value))
    if q.size == 0:
        out, lse = np.zeros(q.shape[:-1] + (v.shape[-1],), q.dtype), np.zeros(q.shape[:-1], q.dtype)
    else:
        out, lse = _flash_forward(q, k, v, m, bool(is_causal), sc)
    # ATen's flash kernel writes into empty_like(query): the output keeps the query's layout, so the
    # (B, L, H, E) buffer a model viewed and transposed stays one, and y.transpose(1, 2).view(B, L, H * E) works
    res = wrap(like(query._data, _laid_out_like(q, out)), query.dtype)
    return record(ScaledDotProductFlashAttentionForCpuBackward0, (query, key, value), res,
                  {"lse": lse, "mask": m, "causal": bool(is_causal), "scale": sc})


def _gqa(query, key, value, enable_gqa):
    """pre_process_group_query_attention_input: key and value's heads repeated to the query's."""
    if not enable_gqa or query.dim() < 3:
        return key, value
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hq == hk and hq == hv:
        return key, value
    if hq % hk or hq % hv:
        raise errors.runtime("Number of heads in key and value must divide the number of heads in ")
    return key.repeat_interleave(hq // hk, -3), value.repeat_interleave(hq // hv, -3)


def _math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa):
    if query.dtype is dtypes.float16:  # ATen keeps half's query, key and value in float, the result back in half
        out = _math(*(t.to(dtypes.float32) for t in (query, key, value)), mask, dropout_p, is_causal, scale,
                    enable_gqa)
        return out.to(dtypes.float16)
    E = query.shape[-1]
    negative = scale is not None and scale < 0
    sf = math.sqrt(1.0 / math.sqrt(E) if scale is None else abs(float(scale)))
    if not query.dtype.is_floating_point:
        raise errors.runtime(f"expected scalar type Float but found {c10(query.dtype)}")
    q = EC.mul_scalar(query, (0.0 - sf) if negative else sf)
    if is_causal:
        if mask is not None:
            raise errors.runtime("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                                 "is_causal=True")
        L, Skv = query.shape[-2], key.shape[-2]
        m = np.tril(np.ones((L, Skv), bool))
        mask = wrap(like(query._data, np.where(m, query.dtype.np.type(0), query.dtype.np.type(-np.inf))), query.dtype)
    elif mask is not None and mask.dtype is dtypes.bool_:
        mask = wrap(like(query._data, _mask_array(mask, query)), query.dtype)
    k, v = _gqa(query, key, value, enable_gqa)
    attn = matmul(q, EC.mul_scalar(S.transpose(k, -2, -1), sf))
    if mask is not None:
        attn = attn.add_(mask)  # in place, as ATen (a mask that broadcasts past attn is its error)
    attn = safe_softmax(attn, -1)
    if dropout_p > 0.0:
        from .functional_dropout import dropout_impl  # noqa: PLC0415
        attn = dropout_impl(attn, dropout_p, True)
    return matmul(attn, v)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    _check(query, key, value, attn_mask)
    if _flash_ok(query, key, value, attn_mask, dropout_p):
        if dropout_p != 0.0:
            raise errors.runtime("scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0")
        return _flash(query, key, value, attn_mask, is_causal, scale)
    return _math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _sdpa_call(torch, q, k, v):
    F = torch.nn.functional
    mask = torch.tensor([[True, False, True, True, False], [True, True, True, False, True],
                         [False, True, True, True, True]])
    return (F.scaled_dot_product_attention(q, k, v),
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
            F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.7),
            F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=mask),
            F.scaled_dot_product_attention(q[0], k[0], v[0], is_causal=True))


OPS = [
    op("scaled_dot_product_attention", scaled_dot_product_attention, ScaledDotProductFlashAttentionForCpuBackward0,
       SafeSoftmaxBackward0, method=False, functional=True, key="F.scaled_dot_product_attention", torch=False,
       sample=Sample([((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4))], call=_sdpa_call, second=False)),
]
