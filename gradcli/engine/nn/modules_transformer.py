"""nn.MultiheadAttention (torch/nn/modules/activation.py), on F.multi_head_attention_forward
(functional_mha.py): torch's parameters in torch's order of registration and initialisation (the out-projection's
Linear draws first, then xavier_uniform_ of the in-projection, the biases zeroed, xavier_normal_ of bias_k/bias_v),
its checks, batch_first, kdim/vdim, and the fast path's choice (eval mode, no grad, self-attention, batch_first,
an even number of heads, ...): torch's _native_multi_head_attention there runs the same arithmetic as the
slow path's (docs/numerics.md, "Attention"), the weights averaged over the heads as its sum / num_heads."""
from __future__ import annotations

from .. import errors
from ..autograd_modes import grad_mode
from . import init
from .functional_mha import canonical_mask, multi_head_attention_forward, none_or_dtype
from .module import Module
from .modules_layers import Linear
from .parameter import Parameter


def _empty(*shape, dtype=None, device=None):
    from ..factory import empty  # noqa: PLC0415
    return empty(*shape, dtype=dtype, device=device)


class NonDynamicallyQuantizableLinear(Linear):
    """torch.nn.modules.linear.NonDynamicallyQuantizableLinear: a Linear under another name (MHA's out_proj)."""


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise errors.value(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                               f"num_heads={num_heads} instead")
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise errors.assertion("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_empty(embed_dim, embed_dim, **kw))
            self.k_proj_weight = Parameter(_empty(embed_dim, self.kdim, **kw))
            self.v_proj_weight = Parameter(_empty(embed_dim, self.vdim, **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_empty(3 * embed_dim, embed_dim, **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(_empty(1, 1, embed_dim, **kw))
            self.bias_v = Parameter(_empty(1, 1, embed_dim, **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def _fast_path_refusal(self, query, key, value):
        """Why torch's forward would not take _native_multi_head_attention ("" when it would)."""
        why = ""
        if query.dim() != 3:
            why = f"input not batched; expected query.dim() of 3 but got {query.dim()}"
        elif query is not key or key is not value:
            why = "non-self attention was used (query, key, and value are not the same Tensor)"
        elif self.in_proj_bias is not None and query.dtype is not self.in_proj_bias.dtype:
            why = f"dtypes of query ({query.dtype}) and self.in_proj_bias ({self.in_proj_bias.dtype}) don't match"
        elif self.in_proj_weight is None:
            why = "in_proj_weight was None"
        elif query.dtype is not self.in_proj_weight.dtype:
            why = f"dtypes of query ({query.dtype}) and self.in_proj_weight ({self.in_proj_weight.dtype}) don't match"
        elif self.training:
            why = "training is enabled"
        elif self.num_heads % 2:
            why = "self.num_heads is not even"
        elif not self.batch_first:
            why = "batch_first was not True"
        elif self.bias_k is not None:
            why = "self.bias_k was not None"
        elif self.bias_v is not None:
            why = "self.bias_v was not None"
        elif self.add_zero_attn:
            why = "add_zero_attn was enabled"
        elif not self._qkv_same_embed_dim:
            why = "_qkv_same_embed_dim was not True"
        if not why and grad_mode.enabled and any(
                t is not None and t.requires_grad for t in (query, self.in_proj_weight, self.in_proj_bias,
                                                           self.out_proj.weight, self.out_proj.bias)):
            why = "grad is enabled and at least one of query or the input/output projection weights or biases " \
                  "requires_grad"
        return why

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        is_batched = query.dim() == 3
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", none_or_dtype(attn_mask), "attn_mask",
                                          query.dtype)
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        fast = not self._fast_path_refusal(query, key, value) and self.in_proj_bias is not None
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights or fast,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights and not fast, is_causal=is_causal, **separate)
        if fast and weights is not None:
            # _native_multi_head_attention: the weights summed over the heads, divided by their number
            weights = (weights.sum(1) / self.num_heads if average_attn_weights else weights) if need_weights else None
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        mask_type = merged = None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            merged = expanded
            if key_padding_mask is not None:
                merged = expanded + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
        return merged, mask_type


NAMES = ("MultiheadAttention",)
MultiheadAttention.__module__ = "torch.nn.modules.activation"
NonDynamicallyQuantizableLinear.__module__ = "torch.nn.modules.linear"


# ---------------------------------------------------------------------------- the transformer layers

def generate_square_subsequent_mask(sz, device=None, dtype=None):
    """torch.nn.Transformer.generate_square_subsequent_mask: -inf above the diagonal, 0 elsewhere."""
    from ..factory import full  # noqa: PLC0415
    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def _seq_len(src, batch_first):
    size = src.shape
    return size[0] if len(size) == 2 else size[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        causal = generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        make_causal = tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())
    return make_causal


def _clones(module, n):
    import copy  # noqa: PLC0415
    from .containers import ModuleList  # noqa: PLC0415
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _activation(activation):
    from . import functional as F  # noqa: PLC0415
    if activation is None:
        return F.relu
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise errors.runtime(f"activation should be relu/gelu, not {activation}")
    return activation


def _layers(d_model, dim_feedforward, dropout, layer_norm_eps, bias, kw, norms):
    from .modules_layers import Dropout, LayerNorm  # noqa: PLC0415
    parts = {"linear1": Linear(d_model, dim_feedforward, bias=bias, **kw), "dropout": Dropout(dropout),
             "linear2": Linear(dim_feedforward, d_model, bias=bias, **kw)}
    return parts, [LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw) for _ in range(norms)], \
        [Dropout(dropout) for _ in range(norms)]


class TransformerEncoderLayer(Module):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        from . import functional as F  # noqa: PLC0415
        from .modules_activation import GELU, ReLU  # noqa: PLC0415
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw)
        parts, norms, drops = _layers(d_model, dim_feedforward, dropout, layer_norm_eps, bias, kw, 2)
        self.linear1, self.dropout, self.linear2 = parts["linear1"], parts["dropout"], parts["linear2"]
        self.norm_first = norm_first
        self.norm1, self.norm2 = norms
        self.dropout1, self.dropout2 = drops
        activation = _activation(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = canonical_mask(src_key_padding_mask, "src_key_padding_mask", none_or_dtype(src_mask),
                                              "src_mask", src.dtype)
        src_mask = canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _encoder_refusal(layer):
    """Why TransformerEncoder's nested-tensor fast path is off for this layer ("" when it is on)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


_NESTED_WARNING = ("The PyTorch API of nested tensors is in prototype stage and will change in the near future. We "
                   "recommend specifying layout=torch.jagged when constructing a nested tensor, as this layout "
                   "receives active development, has better operator coverage, and works with torch.compile. "
                   "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/NestedTensorImpl.cpp:177.)")


class TransformerEncoder(Module):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        import warnings  # noqa: PLC0415
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _encoder_refusal(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                          UserWarning, stacklevel=2)
            self.use_nested_tensor = False

    def _nested(self, src, key_padding_mask, mask):
        """Whether torch would run the layers on a nested tensor (padding left out, zeros after)."""
        first = self.layers[0]
        if not self.use_nested_tensor or first.training or src.dim() != 3 or key_padding_mask is None:
            return False
        if mask is not None:
            return False
        if self.mask_check:
            import numpy as np  # noqa: PLC0415
            from ..device import host  # noqa: PLC0415
            keep = ~host(key_padding_mask._data).astype(bool) if key_padding_mask.dtype.name == "bool" else \
                host(key_padding_mask._data) == 0
            if not (np.diff(keep.astype(np.int8), axis=-1) <= 0).all():  # not left aligned
                return False
        args = (src, first.self_attn.in_proj_weight, first.self_attn.in_proj_bias, first.self_attn.out_proj.weight,
                first.self_attn.out_proj.bias, first.norm1.weight, first.norm1.bias, first.norm2.weight,
                first.norm2.bias, first.linear1.weight, first.linear1.bias, first.linear2.weight, first.linear2.bias)
        return not (grad_mode.enabled and any(t is not None and t.requires_grad for t in args))

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        raw_padding = src_key_padding_mask
        src_key_padding_mask = canonical_mask(src_key_padding_mask, "src_key_padding_mask", none_or_dtype(mask),
                                              "mask", src.dtype)
        mask = canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        nested = self._nested(src, src_key_padding_mask, mask)
        batch_first = self.layers[0].self_attn.batch_first
        is_causal = _detect_is_causal_mask(mask, is_causal, _seq_len(src, batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if nested:  # to_padded_tensor(0.0): the padded positions come back as zeros
            from ..ops.special_common import warn_once  # noqa: PLC0415
            warn_once(_NESTED_WARNING)
            pad = raw_padding if raw_padding.dtype.name == "bool" else raw_padding != 0
            output = output.masked_fill(pad.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoderLayer(Module):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 **kw)
        parts, norms, drops = _layers(d_model, dim_feedforward, dropout, layer_norm_eps, bias, kw, 3)
        self.linear1, self.dropout, self.linear2 = parts["linear1"], parts["dropout"], parts["linear2"]
        self.norm_first = norm_first
        self.norm1, self.norm2, self.norm3 = norms
        self.dropout1, self.dropout2, self.dropout3 = drops
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal,
                                               _seq_len(tgt, self.layers[0].self_attn.batch_first))
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=None, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        from .modules_layers import LayerNorm  # noqa: PLC0415
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        is_batched = src.dim() == 3
        if is_batched and src.shape[0 if self.batch_first else 1] != tgt.shape[0 if self.batch_first else 1]:
            raise errors.runtime("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise errors.runtime("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)


NAMES += ("TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder",
          "Transformer")
for _cls in (TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer, TransformerDecoder, Transformer):
    _cls.__module__ = "torch.nn.modules.transformer"
