"""F.multi_head_attention_forward as torch/nn/functional.py writes it, step for step on gradcli's ops (so
its graph is torch's: the packed in-projection's unflatten/transpose/contiguous, baddbmm with the mask,
softmax, dropout, bmm, the out-projection, the heads' mean of the weights; without need_weights the
scaled_dot_product_attention of functional_attention.py), with torch's shape checks and messages;
_canonical_mask (a bool mask as 0/-inf, the mismatched-types warning) and nn.MultiheadAttention's
merge_masks for the fast path."""
from __future__ import annotations

import math
import warnings

from .. import dtypes, errors
from ..ops.registry import Sample, op
from ..tensor import Tensor
from .functional_attention import scaled_dot_product_attention


def _size(shape):
    return f"torch.Size([{', '.join(str(int(s)) for s in shape)}])"


def canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    if mask is not None:
        is_float = mask.dtype.is_floating_point
        if mask.dtype is not dtypes.bool_ and not is_float:
            raise errors.assertion(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None and mask.dtype is not other_type:
            warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for "
                          "both instead.", UserWarning, stacklevel=3)
        if not is_float:
            from ..factory import zeros_like  # noqa: PLC0415
            mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise errors.runtime("input to _none_or_dtype() must be None or torch.Tensor")


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise errors.assertion(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                   f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise errors.assertion(f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                   f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise errors.assertion(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                   f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise errors.assertion(f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                   f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise errors.assertion(f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                   f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise errors.assertion(f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                       f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise errors.assertion(f"Expected `attn_mask` shape to be {expected} but got "
                                           f"{_size(attn_mask.shape)}")
        return False
    raise errors.assertion(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                           "tensor")


def _linear(x, w, b):
    from . import functional as F  # noqa: PLC0415
    return F.linear(x, w, b)


def _in_projection_packed(q, k, v, w, b):
    E = q.shape[-1]
    if k is v:
        if q is k:
            proj = _linear(q, w, b).unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = _linear(q, w_q, b_q)
        kv = _linear(k, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v):
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for what, w, want in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != want:
            raise errors.assertion(f"expecting {what} weights shape of {want}, but got {_size(w.shape)}")
    for what, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise errors.assertion(f"expecting {what} bias shape of {(Eq,)}, but got {_size(b.shape)}")
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _pad_last(t):
    from . import functional as F  # noqa: PLC0415
    return F.pad(t, (0, 1))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    from ..factory import zeros  # noqa: PLC0415
    from ..ops.join_split import cat  # noqa: PLC0415
    from . import functional as F  # noqa: PLC0415
    is_batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", none_or_dtype(attn_mask), "attn_mask",
                                      query.dtype)
    if is_causal and attn_mask is None:
        raise errors.runtime("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                             "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise errors.assertion(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise errors.assertion(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise errors.assertion(f"key's sequence and batch dims {_size(key.shape[:2])} do not match value's "
                                   f"{_size(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise errors.assertion(f"key shape {_size(key.shape)} does not match value shape {_size(value.shape)}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise errors.assertion("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise errors.assertion(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise errors.runtime(f"The shape of the 2D attn_mask is {_size(attn_mask.shape)}, but should be "
                                     f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise errors.runtime(f"The shape of the 3D attn_mask is {_size(attn_mask.shape)}, but should be "
                                     f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise errors.runtime(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise errors.assertion("bias cannot be added to static key.")
        if static_v is not None:
            raise errors.assertion("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise errors.assertion("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise errors.assertion("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    for name, static in (("k", static_k), ("v", static_v)):
        if static is not None:
            if static.shape[0] != bsz * num_heads:
                raise errors.assertion(f"expecting static_{name}.size(0) of {bsz * num_heads}, but got "
                                       f"{static.shape[0]}")
            if static.shape[2] != head_dim:
                raise errors.assertion(f"expecting static_{name}.size(2) of {head_dim}, but got {static.shape[2]}")
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v
    if add_zero_attn:
        shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise errors.assertion(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                   f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise errors.assertion(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                   f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = q.shape[2]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise errors.assertion("FIXME: is_causal not implemented for need_weights")
        kt = k.transpose(-2, -1)
        weights = attn_mask.baddbmm(q_scaled, kt) if attn_mask is not None else q_scaled.bmm(kt)
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = _linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _mha_call(torch, x, w, ow):
    F = torch.nn.functional
    mask = torch.tensor([[False, True, False], [False, False, True], [False, False, False]])
    args = (4, 2, w, None, None, None, False, 0.0, ow, None)
    return (F.multi_head_attention_forward(x, x, x, *args, attn_mask=mask)
            + F.multi_head_attention_forward(x, x, x, *args, need_weights=False)[:1]
            + F.multi_head_attention_forward(x[:, 0], x[:, 0], x[:, 0], *args, average_attn_weights=False))


OPS = [
    op("multi_head_attention_forward", multi_head_attention_forward, method=False, functional=True,
       key="F.multi_head_attention_forward", torch=False,
       sample=Sample([((3, 2, 4), (12, 4), (4, 4))], call=_mha_call, second=False)),
]
