"""torch.nn.functional over gradcli's engine. The ops live in functional_loss.py and
functional_nll.py (losses), functional_conv.py (convolution, pooling), functional_norm.py
(layer/batch norm) and, for the activations, the ops package (ops/special.py FUNCTIONAL); this
module adds linear, dropout, pad, embedding and softmax, and lists the names the `F` namespace
exposes."""
from __future__ import annotations

import warnings

import numpy as np

from .. import errors
from ..argcheck import check_int_list, typename
from ..limits import check_shape
from ..function import Function, record
from ..ops import arithmetic as AR
from ..ops import elementwise_common as EC
from ..ops import unary_math as UM
from ..ops import replays, words
from ..ops import linalg as L
from ..ops.matmul import matmul
from ..ops import norms as _norms
from ..ops import softmax as SM
from ..ops import shape as S
from ..tensor import Tensor, wrap
from ..device import check_args, scatter_add as _scatter_add_at, xp_of
from ..ops import special as _special
from ..ops.registry import Sample, op, sample1, tables
from . import functional_conv as _conv
from . import functional_conv_transpose as _convt
from . import functional_grid as _grid
from . import functional_pool3d as _pool3d
from . import functional_group_norm as _gn
from . import functional_upsample as _up
from . import functional_loss as _loss
from . import functional_loss_more as _loss_more
from . import functional_nll as _nll
from . import functional_margin as _margin
from . import functional_multimargin as _multimargin
from . import functional_norm as _norm
from . import functional_pool as _pool
from . import functional_shuffle as _shuffle
from . import functional_prelu as _prelu
from . import functional_unpool as _unpool
from . import functional_attention as _attention
from . import functional_embedding_bag as _bag
from . import functional_mha as _mha
from . import functional_aten as _aten_forms
from .functional_conv import flat_ext, scatter_spatial

# ---------------------------------------------------------------------------- linear


def linear(input, weight, bias=None):
    if bias is not None and isinstance(input, Tensor) and isinstance(weight, Tensor) and isinstance(bias, Tensor):
        out = L.linear_2d(input, weight, bias)  # a batch through a Linear layer: addmm's work inline
        if out is not None:
            return out
    if not isinstance(input, Tensor):
        raise errors.type_error(f"linear(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    wt = S.t(weight) if weight.dim() == 2 else weight
    nd = input._data.ndim
    if bias is None:
        return matmul(input, wt)
    if input.dtype is not weight.dtype:
        raise errors.runtime(f"mat1 and mat2 must have the same dtype, but got {EC.c10_name(input.dtype)} and "
                             f"{EC.c10_name(weight.dtype)}")
    if nd == 2:
        _check_bias(bias, input._data.shape[0], wt._data.shape[-1])
        return L.addmm(bias, input, wt)
    if nd == 0:
        raise errors.runtime("both arguments to linear need to be at least 1D, but they are 0D and 2D")
    if nd == 1 or input.is_contiguous():
        k = input.shape[-1]
        flat = S.view(input, (-1, k)) if nd != 1 else S.view(input, (1, k))
        _check_mm(flat, wt)
        _check_bias(bias, flat.shape[0], wt.shape[-1])
        out = L.addmm(bias, flat, wt)
        shape = tuple(input.shape[:-1]) + (wt.shape[-1],)
        return S.view(out, shape)
    return AR.add(matmul(input, wt), bias)


def _check_bias(bias, n, m):
    """addmm's expand of the bias to (n, m), with torch's error when it does not fit (the expand is
    only done when it fails: a bias of (m,), (1, m), (n, 1), ... fits)."""
    if not isinstance(bias, Tensor):
        if tuple(bias.shape) != (n, m):
            S.expand(bias.detach(), (n, m))
        return
    bs = bias._data.shape
    if len(bs) == 1:
        if bs[0] == m or bs[0] == 1:
            return
    elif len(bs) == 2:
        if (bs[0] == n or bs[0] == 1) and (bs[1] == m or bs[1] == 1):
            return
    elif len(bs) == 0:
        return
    S.expand(bias.detach(), (n, m))


def _check_mm(a, b):
    (n, k), (k2, m) = a.shape, b.shape
    if k != k2:
        raise errors.runtime(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})", hint="matmul_shape")


# ---------------------------------------------------------------------------- softmax family

def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return SM.softmax(input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return SM.log_softmax(input, dim)


# ---------------------------------------------------------------------------- dropout (functional_dropout.py)

from .functional_dropout import (alpha_dropout, dropout, dropout1d, dropout2d, dropout3d,  # noqa: E402, F401 - F.X
                                 feature_alpha_dropout, gumbel_softmax)


def torch_dropout(input, p, train):
    """torch.dropout(input, p, train): the ATen signature (all positional)."""
    return dropout(input, p, train)


def torch_dropout_(input, p, train):
    return dropout(input, p, train, inplace=True)


# ---------------------------------------------------------------------------- pad

class ConstantPadNdBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed("1 at the element's place in the padded result"))

    @staticmethod
    def replay(xs, kw, outs):
        from .. import api  # noqa: PLC0415 - the op itself, on the float64 input
        return [constant_pad_nd(api.tensor(xs[0]), kw["pad"], kw.get("value", 0))._data.reshape(outs[0])]

    def backward(self, g):
        return (constant_pad_nd(g, [-p for p in self._kw["pad"]]),)


def constant_pad_nd(input, pad, value=0):
    pad = [int(p) for p in pad]
    nd = input.dim()
    if len(pad) % 2:
        raise errors.runtime("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > nd:
        raise errors.runtime(f"Length of pad should be no more than twice the number of dimensions of the input. "
                             f"Pad length is {len(pad)} while the input has {nd} dimensions.")
    x = input._data
    shape = list(x.shape)
    src = [slice(None)] * nd
    dst = [slice(None)] * nd
    for i in range(len(pad) // 2):
        d = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        new = shape[d] + lo + hi
        if new < 0:
            raise errors.runtime(f"The input size {shape[d]}, plus negative padding {lo} and {hi} resulted in a "
                                 f"negative output size, which is invalid. Check dimension {d} of your input.")
        s0, s1 = max(-lo, 0), shape[d] - max(-hi, 0)
        d0 = max(lo, 0)
        src[d] = slice(s0, max(s1, s0))
        dst[d] = slice(d0, d0 + max(s1 - s0, 0))
        shape[d] = new
    out = xp_of(x).full(shape, value, dtype=x.dtype)
    out[tuple(dst)] = x[tuple(src)]
    return record(ConstantPadNdBackward0, (input,), wrap(out, input.dtype), {"pad": pad, "value": value})


def _pad_index(n, lo, hi, mode):
    pos = np.arange(-lo, n + hi)
    if mode == "reflect":
        period = 2 * (n - 1)
        r = np.mod(pos, period) if period else np.zeros_like(pos)
        return np.where(r >= n, period - r, r)
    if mode == "replicate":
        return np.clip(pos, 0, n - 1)
    return np.mod(pos, n)  # circular


_PAD_NODES = {}


def _pad_node(mode, k):
    name = {"reflect": f"ReflectionPad{k}DBackward0", "replicate": f"ReplicationPad{k}DBackward0",
            "circular": "CopySlices"}[mode]
    cls = _PAD_NODES.get(name)
    if cls is None:
        def backward(self, g):
            kw = self._kw
            return (scatter_spatial(g, kw["idx"], kw["spatial"]),)
        ns = {"__slots__": (), "backward": backward, "replay": staticmethod(_conv.gather_replay), "saves_in_kw": True,
              "explain": staticmethod(words.fixed("1 at the element's places in the padded result (summed back)"))}
        if mode == "circular":
            ns["name"] = lambda self: "torch::autograd::CopySlices"
        cls = _PAD_NODES[name] = type(name, (Function,), ns)
    return cls


def _index_pad(input, pad, mode):
    k = len(pad) // 2
    if input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    spatial = tuple(input.shape[-k:])
    per = []
    for i in range(k):
        d = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = input.shape[d]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise errors.runtime(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                                 f"but got: padding ({lo}, {hi}) at dimension {d} of input "
                                 f"[{', '.join(map(str, input.shape))}]")
        if mode == "circular" and (lo > n or hi > n):
            raise errors.runtime("Padding value causes wrapping around more than once.")
        per.append(_pad_index(n, lo, hi, mode))
    per = per[::-1]  # first spatial dim first
    idx = per[0]
    for j in range(1, k):
        idx = idx[..., None] * spatial[j] + per[j]
    x = flat_ext(input._data, k)
    out = x[..., idx]
    cls = _pad_node(mode, k)
    return record(cls, (input,), wrap(xp_of(out).ascontiguousarray(out), input.dtype), {"idx": idx, "spatial": spatial})


def pad(input, pad, mode="constant", value=None):
    if not isinstance(mode, str):  # torch._C._nn.pad's parser (its message gives the position for a keyword too)
        raise errors.type_error(f"pad(): argument 'mode' (position 3) must be str, not {typename(mode)}")
    if isinstance(pad, (list, tuple)):
        check_int_list("pad", "pad", pad)
    if len(pad) % 2:
        raise errors.runtime("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise errors.runtime(f"Padding length should be less than or equal to two times the input dimension but "
                             f"got padding length {len(pad)} and input of dimension {input.dim()}")
    shape = list(input.shape)
    for i in range(len(pad) // 2):  # pairs from the last dimension backwards
        shape[-1 - i] = max(0, shape[-1 - i] + int(pad[2 * i]) + int(pad[2 * i + 1]))
    check_shape(shape)
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise errors.runtime(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "circular" and len(pad) // 2 > 3:
        raise errors.runtime("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
    return _index_pad(input, [int(p) for p in pad], mode)


# ---------------------------------------------------------------------------- embedding

class EmbeddingBackward0(Function):
    __slots__ = ()
    saves_in_kw = True
    explain = staticmethod(words.fixed("1 at each looked-up row of the weight (summed over repeats), 0 elsewhere"))
    replay = staticmethod(replays.embedding)

    def backward(self, g):
        k = self._kw
        return (_embedding_grad(g, k["indices"], k["num"], k["padding_idx"]),)


class EmbeddingDenseBackward0(Function):
    __slots__ = ()

    def backward(self, gg):
        k = self._kw
        return (_gather_rows(gg, k["indices"], k["padding_idx"]),)


def _embedding_grad(g, indices, num, padding_idx):
    d = g._data
    dim = d.shape[-1]
    flat_i = indices.reshape(-1)
    acc = xp_of(d).zeros((num, dim), dtype=d.dtype)
    _scatter_add_at(acc, flat_i, d.reshape(-1, dim))
    if padding_idx is not None and padding_idx >= 0:
        acc[padding_idx] = 0
    return record(EmbeddingDenseBackward0, (g,), wrap(acc, g.dtype),
                  {"indices": indices, "padding_idx": padding_idx})


def _gather_rows(w, indices, padding_idx):
    out = w._data[indices]
    if padding_idx is not None and padding_idx >= 0:
        out = np.where((indices == padding_idx)[..., None], out.dtype.type(0), out)
    return record(EmbeddingBackward0, (w,), wrap(xp_of(out).ascontiguousarray(out), w.dtype),
                  {"indices": indices, "num": w.shape[0], "padding_idx": padding_idx})


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    padding_idx = _bag.padding_index(padding_idx, weight.shape[0], _bag.EMBEDDING_PADDING)
    if max_norm is not None:  # F.embedding renorms the rows first (embedding_renorm_'s checks and bounds)
        from ..autograd_modes import no_grad  # noqa: PLC0415
        with no_grad():
            _bag.embedding_renorm(weight, input, max_norm, norm_type)
    if not isinstance(input, Tensor) or input.dtype.name not in ("int64", "int32"):
        legacy = input.dtype.legacy if isinstance(input, Tensor) else type(input).__name__
        raise errors.runtime(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                             f"Long, Int; but got torch.{legacy} instead (while checking arguments for embedding)")
    if type(input._data) is not type(weight._data):
        check_args("_index_select", (("self", weight), ("index", input)))
    check_shape(tuple(input.shape) + tuple(weight.shape[1:]))
    idx = input._data.astype(np.int64)
    n = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise errors.index("index out of range in self")
    out = weight._data[idx]
    return record(EmbeddingBackward0, (weight,), wrap(xp_of(out).ascontiguousarray(out), weight.dtype),
                  {"indices": idx, "num": n, "padding_idx": padding_idx})


def torch_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding(weight, indices): ATen's argument order."""
    return embedding(indices, weight, None if padding_idx == -1 else padding_idx)


# ---------------------------------------------------------------------------- ATen-signature wrappers

def torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    return _norm.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


_ENUM = {0: "none", 1: "mean", 2: "sum"}


def torch_kl_div(input, target, reduction=0, *, log_target=False):  # (torch 2.13 parses ATen's Mean default as 0)
    return _loss.kl_div_core(input, target, _ENUM[reduction], log_target)


def torch_bce_with_logits(input, target, weight=None, pos_weight=None, reduction=0):  # (the same)
    return _loss.binary_cross_entropy_with_logits(input, target, weight, reduction=_ENUM[reduction],
                                                  pos_weight=pos_weight)


# ---------------------------------------------------------------------------- re-exports

def relu(input, inplace=False):
    if inplace:
        return input.relu_()
    return UM.relu(input)


def relu_(input):
    return input.relu_()


def sigmoid(input):
    return UM.sigmoid(input)


def tanh(input):
    return UM.tanh(input)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return SM.softmax(-input, dim)


# ---------------------------------------------------------------------------- declarations

def _target(*values):
    """A gradient check's call with a constant target: F.name(x, target) (target in x's dtype)."""
    def call(torch, x, name):
        return getattr(torch.nn.functional, name)(x, torch.tensor(values, dtype=x.dtype))
    return call


def _fop(name, fn, *nodes, call=None, **kw):
    """F.name's declaration (engine/ops/registry.py): a torch.nn.functional function only, registered
    as "F.name" (torch.relu and F.relu are two functions); call(torch, *inputs, name): its gradient
    check's call."""
    if call is not None:
        kw["sample"] = Sample(kw.pop("shapes"), kw.pop("domain", ("any",)), second=kw.pop("second", True),
                              call=lambda torch, *xs: call(torch, *xs, name))
    kw.setdefault("torch", False)  # torch=True: also torch.name, the same function (torch.conv2d)
    return op(name, fn, *nodes, method=False, functional=True, key="F." + name, **kw)


def _aten(name, fn, *nodes, **kw):
    """torch.name, the form of an F function with ATen's signature (torch.dropout(input, p, train)),
    registered as "torch.name"."""
    return op(name, fn, *nodes, method=False, key="torch." + name, **kw)


_RANDOM = "a random mask: each call draws another (tests/test_dropout*.py, goldens)"
_M = [((2, 3),)]     # a batch of 2 rows of 3 classes or features
_M2 = [((2, 3), (2, 3))]
_IMG = [((1, 2, 4, 4),)]
# F's own functions (the activations of ops/activations.py are declared there): one declaration each, in
# the order F lists them; FUNCTIONAL (F.X) is derived from them
OPS = [
    _fop("linear", linear, sample=Sample([((2, 3), (4, 3), (4,)), ((3,), (2, 3))])),
    _fop("relu", relu, sample=sample1()),
    _fop("relu_", relu_, shapes="unary", call=lambda torch, x, name: torch.nn.functional.relu_(x * 1)),
    _fop("sigmoid", sigmoid, sample=sample1()),
    _fop("tanh", tanh, sample=sample1()),
    _fop("softmax", softmax, sample=Sample("reduce", kwargs={"dim": -1})),
    _fop("log_softmax", log_softmax, sample=Sample("reduce", kwargs={"dim": -1})),
    _fop("softmin", softmin, sample=Sample("reduce", kwargs={"dim": 0})),
    _fop("dropout", dropout, no_grad=_RANDOM),
    _fop("alpha_dropout", alpha_dropout, no_grad=_RANDOM),
    _fop("feature_alpha_dropout", feature_alpha_dropout, no_grad=_RANDOM),
    _fop("dropout1d", dropout1d, no_grad=_RANDOM),
    _fop("dropout2d", dropout2d, no_grad=_RANDOM),
    _fop("dropout3d", dropout3d, no_grad=_RANDOM),
    _fop("gumbel_softmax", gumbel_softmax, no_grad="random noise: each call draws another (its nodes are the ops it "
         "composes: softmax, sub, add; tests/golden/scripts/nn_fold_gumbel.grad)"),
    _fop("pad", pad, ConstantPadNdBackward0, *[_pad_node(m, k) for m in ("reflect", "replicate") for k in (1, 2, 3)],
         shapes=[((2, 3),), ((1, 2, 3),)],
         call=lambda torch, x, name: (torch.nn.functional.pad(x, (1, 2)),
                                      torch.nn.functional.pad(x, (2, 1), mode="replicate"))),
    _fop("embedding", embedding, EmbeddingBackward0, shapes=[((3, 4),)],
         call=lambda torch, w, name: torch.nn.functional.embedding(torch.tensor([[0, 2], [1, 0]]), w)),
    _fop("one_hot", _loss.one_hot, no_grad="an integer result"),
    _fop("normalize", _loss.normalize, sample=Sample(_M + [((2, 2, 2),)])),
    _fop("cosine_similarity", _loss.cosine_similarity, sample=Sample(_M2), torch=True),
    _fop("pairwise_distance", _loss.pairwise_distance, _norms.NormBackward1, sample=Sample(_M2), torch=True),
    _fop("mse_loss", _loss.mse_loss, _loss.MseLossBackward0, sample=Sample(_M2 + [((3,), (3,))])),
    _fop("l1_loss", _loss.l1_loss, sample=Sample(_M2, second=False)),  # sign(x - y): no second order
    _fop("smooth_l1_loss", _loss.smooth_l1_loss, _loss.SmoothL1LossBackward0, sample=Sample(_M2)),
    _fop("huber_loss", _loss.huber_loss, _loss.HuberLossBackward0, sample=Sample(_M2)),
    _fop("binary_cross_entropy", _loss.binary_cross_entropy, _loss.BinaryCrossEntropyBackward0, shapes=_M, domain=("prob",),
         call=_target([0.2, 0.7, 1.0], [0.0, 0.4, 0.9])),
    _fop("binary_cross_entropy_with_logits", _loss.binary_cross_entropy_with_logits,
         _loss.BinaryCrossEntropyWithLogitsBackward0, shapes=_M,
         call=_target([0.2, 0.7, 1.0], [0.0, 0.4, 0.9])),
    _fop("nll_loss", _nll.nll_loss, _nll.NllLossBackward0, _nll.NllLoss2DBackward0, shapes=_M,
         call=lambda torch, x, name: torch.nn.functional.nll_loss(x, torch.tensor([0, 2]))),
    _fop("cross_entropy", _nll.cross_entropy, shapes=_M,
         call=lambda torch, x, name: torch.nn.functional.cross_entropy(x, torch.tensor([0, 2]))),
    _fop("kl_div", _loss.kl_div, sample=Sample(_M2, ("any", "prob"), kwargs={"reduction": "batchmean"})),
    _fop("multi_margin_loss", _multimargin.multi_margin_loss, _multimargin.MultiMarginLossBackward0, shapes=_M,
         second=False, call=lambda torch, x, name: torch.nn.functional.multi_margin_loss(x, torch.tensor([0, 2]), p=2)),
    _fop("multilabel_margin_loss", _multimargin.multilabel_margin_loss, _multimargin.MultilabelMarginLossBackward0,
         shapes=_M, second=False, call=lambda torch, x, name: torch.nn.functional.multilabel_margin_loss(
             x, torch.tensor([[0, 2, -1], [1, -1, 0]]))),
    _fop("soft_margin_loss", _margin.soft_margin_loss, _margin.SoftMarginLossBackward0, shapes=_M, call=_target([1.0, -1.0, 1.0], [-1.0, -1.0, 1.0])),
    # the losses ATen composes from other ops (functional_loss_more.py): their nodes are those ops'
    _fop("margin_ranking_loss", _loss_more.margin_ranking_loss, shapes=[((3,), (3,))], call=lambda torch, a, b, name: (
        torch.nn.functional.margin_ranking_loss(a, b, torch.tensor([1.0, -1.0, 1.0], dtype=a.dtype)))),
    _fop("hinge_embedding_loss", _loss_more.hinge_embedding_loss, shapes=_M, call=_target([1.0, -1.0, 1.0],
                                                                                          [-1.0, -1.0, 1.0])),
    _fop("cosine_embedding_loss", _loss_more.cosine_embedding_loss, shapes=_M2, call=lambda torch, a, b, name: (
        torch.nn.functional.cosine_embedding_loss(a, b, torch.tensor([1.0, -1.0], dtype=a.dtype)))),
    _fop("triplet_margin_loss", _loss_more.triplet_margin_loss, sample=Sample([((2, 3), (2, 3), (2, 3))])),
    _fop("triplet_margin_with_distance_loss", _loss_more.triplet_margin_with_distance_loss,
         sample=Sample([((2, 3), (2, 3), (2, 3))])),
    _fop("poisson_nll_loss", _loss_more.poisson_nll_loss, sample=Sample(_M2, ("any", "pos"))),
    _fop("gaussian_nll_loss", _loss_more.gaussian_nll_loss, sample=Sample([((2, 3), (2, 3), (2, 3))],
                                                                          ("any", "any", "pos"))),
    _fop("multilabel_soft_margin_loss", _loss_more.multilabel_soft_margin_loss, shapes=_M,
         call=_target([1.0, 0.0, 1.0], [0.0, 0.0, 1.0])),
    _fop("conv1d", _conv.conv1d, _conv.ConvolutionBackward0, sample=Sample([((1, 2, 5), (3, 2, 2), (3,))]), torch=True),
    _fop("conv2d", _conv.conv2d, _conv.ConvolutionBackward0, sample=Sample([((1, 2, 4, 4), (3, 2, 2, 2), (3,))],
                                                                           kwargs={"padding": 1}), torch=True),
    _fop("conv3d", _conv.conv3d, _conv.ConvolutionBackward0, torch=True, sample=Sample(
        [((1, 2, 3, 4, 3), (2, 1, 2, 2, 1), (2,))], kwargs={"padding": (1, 0, 1), "stride": (2, 1, 1), "groups": 2})),
    _fop("conv_transpose1d", _convt.conv_transpose1d, _convt.ConvolutionBackward0, torch=True,
         sample=Sample([((1, 2, 4), (2, 3, 3), (3,))], kwargs={"stride": 2, "padding": 1, "output_padding": 1})),
    _fop("conv_transpose2d", _convt.conv_transpose2d, _convt.ConvolutionBackward0, torch=True,
         sample=Sample([((1, 4, 3, 3), (4, 1, 2, 3), (2,))], kwargs={"stride": 2, "groups": 2, "dilation": (1, 2)})),
    _fop("conv_transpose3d", _convt.conv_transpose3d, _convt.ConvolutionBackward0, torch=True, sample=Sample(
        [((1, 4, 2, 3, 2), (4, 1, 2, 1, 2), (2,))],
        kwargs={"stride": (2, 1, 2), "padding": (0, 1, 1), "output_padding": (1, 0, 0), "groups": 2,
                "dilation": (1, 1, 2)})),
    _fop("affine_grid", _grid.affine_grid, _grid.AffineGridGeneratorBackward0, sample=Sample(
        [((2, 2, 3),), ((1, 3, 4),)], call=lambda torch, t: torch.nn.functional.affine_grid(
            t, (t.shape[0], 1, 3, 4) if t.shape[1] == 2 else (1, 1, 2, 3, 2), align_corners=t.shape[0] == 1))),
    _fop("grid_sample", _grid.grid_sample, _grid.GridSampler2DBackward0, sample=Sample(
        [((1, 2, 3, 4), (1, 2, 3, 2))], ("any", "unit"), second=False, call=lambda torch, x, g: tuple(
            torch.nn.functional.grid_sample(x, g * 0.9, mode, pad, align_corners=ac)
            for mode in ("bilinear", "nearest") for pad in ("zeros", "border", "reflection") for ac in (False, True)))),
    _fop("interpolate", _up.interpolate, *[n for pair in _up.NODES.values() for n in pair],
         sample=Sample([((1, 2, 3, 4),), ((1, 2, 5),)], call=lambda torch, x: (
             torch.nn.functional.interpolate(x, scale_factor=1.7, mode="bilinear" if x.dim() == 4 else "linear"),
             torch.nn.functional.interpolate(x, size=(5, 3) if x.dim() == 4 else 7, mode="nearest"),
             torch.nn.functional.interpolate(x, scale_factor=2, mode="bilinear" if x.dim() == 4 else "linear",
                                             align_corners=True)))),
    _fop("upsample", _up.upsample, shapes=_IMG, call=lambda torch, x, name: torch.nn.functional.upsample(x, size=5)),
    _fop("upsample_nearest", _up.upsample_nearest, shapes=_IMG,
         call=lambda torch, x, name: torch.nn.functional.upsample_nearest(x, scale_factor=2)),
    _fop("upsample_bilinear", _up.upsample_bilinear, shapes=_IMG,
         call=lambda torch, x, name: torch.nn.functional.upsample_bilinear(x, scale_factor=2)),
    _fop("fold", _conv.fold, shapes=[((1, 8, 6),)],
         call=lambda torch, x, name: torch.nn.functional.fold(x, (3, 4), 2)),
    _fop("unfold", _conv.unfold, _conv.Im2ColBackward0, shapes=_IMG, call=lambda torch, x, name: torch.nn.functional.unfold(x, 2)),
    _fop("max_pool1d", _conv.max_pool1d, _conv.MaxPool2DWithIndicesBackward0, shapes=[((1, 2, 4),)],
         call=lambda torch, x, name: torch.nn.functional.max_pool1d(x, 2), torch=True),
    _fop("max_pool2d", _conv.max_pool2d, _conv.MaxPool2DWithIndicesBackward0, shapes=_IMG,
         call=lambda torch, x, name: torch.nn.functional.max_pool2d(x, 2), torch=True),
    _fop("max_pool3d", _pool3d.max_pool3d, _pool3d.MaxPool3DWithIndicesBackward0, torch=True, sample=Sample(
        [((1, 2, 3, 4, 3),)], call=lambda torch, x: torch.nn.functional.max_pool3d(x, (2, 2, 1), padding=(1, 0, 0)))),
    _fop("avg_pool3d", _pool3d.avg_pool3d, _pool3d.AvgPool3DBackward0, sample=Sample(
        [((1, 2, 3, 4, 3),)], call=lambda torch, x: torch.nn.functional.avg_pool3d(x, 2, stride=1, padding=1,
                                                                                    count_include_pad=False))),
    _fop("avg_pool2d", _conv.avg_pool2d, _conv.AvgPool2DBackward0, shapes=_IMG, call=lambda torch, x, name: torch.nn.functional.avg_pool2d(x, 2)),
    _fop("adaptive_avg_pool2d", _pool.adaptive_avg_pool2d, _pool.AdaptiveAvgPool2DBackward0,
         _pool.AdaptiveAvgPool2DBackwardBackward0, shapes=[((1, 2, 5, 4),)],
         call=lambda torch, x, name: torch.nn.functional.adaptive_avg_pool2d(x, (3, 3))),
    _fop("adaptive_max_pool2d", _pool.adaptive_max_pool2d, _pool.AdaptiveMaxPool2DBackward0,
         _pool.AdaptiveMaxPool2DBackwardBackward0, shapes=[((1, 2, 5, 4),)],
         call=lambda torch, x, name: torch.nn.functional.adaptive_max_pool2d(x, (3, 3))),
    _fop("adaptive_avg_pool3d", _pool3d.adaptive_avg_pool3d, _pool.AdaptiveAvgPool3DBackward0,
         _pool.AdaptiveAvgPool3DBackwardBackward0, shapes=[((1, 2, 5, 4, 3),), ((2, 3, 4, 2),)],
         call=lambda torch, x, name: torch.nn.functional.adaptive_avg_pool3d(x, (3, None, 2))),
    _fop("adaptive_max_pool3d", _pool3d.adaptive_max_pool3d, _pool.AdaptiveMaxPool3DBackward0,
         _pool.AdaptiveMaxPool3DBackwardBackward0, shapes=[((1, 2, 5, 4, 3),), ((2, 3, 4, 2),)],
         call=lambda torch, x, name: torch.nn.functional.adaptive_max_pool3d(x, (3, 2, 2))),
    _fop("adaptive_max_pool1d", _pool.adaptive_max_pool1d, shapes=[((1, 2, 5),)],
         call=lambda torch, x, name: torch.nn.functional.adaptive_max_pool1d(x, 3)),
    _fop("lp_pool2d", _pool.lp_pool2d, shapes=[((1, 2, 4, 4),)], domain=("pos",),
         call=lambda torch, x, name: torch.nn.functional.lp_pool2d(x, 2, 2)),
    _fop("lp_pool1d", _pool.lp_pool1d, shapes=[((1, 2, 6),)], domain=("pos",),
         call=lambda torch, x, name: torch.nn.functional.lp_pool1d(x, 3, 2, 1)),
    _fop("local_response_norm", _pool.local_response_norm, shapes=[((1, 4, 3),), ((1, 4, 2, 3),)],
         call=lambda torch, x, name: torch.nn.functional.local_response_norm(x, 3, alpha=0.5)),
    _fop("adaptive_avg_pool1d", _pool.adaptive_avg_pool1d, shapes=[((1, 2, 5),)],
         call=lambda torch, x, name: torch.nn.functional.adaptive_avg_pool1d(x, 3), torch=True),
    _fop("avg_pool1d", _pool.avg_pool1d, shapes=[((1, 2, 5),)],
         call=lambda torch, x, name: torch.nn.functional.avg_pool1d(x, 2, 1, 1, True, False), torch=True),
    _fop("prelu", _prelu.prelu, _prelu.PreluKernelBackward0, shapes=[((2, 3, 2), (3,))],
         call=lambda torch, x, w, name: torch.nn.functional.prelu(x, w), torch=True),
    _fop("pixel_shuffle", _shuffle.pixel_shuffle, _shuffle.PixelShuffleBackward0, shapes=[((1, 8, 2, 3),)],
         call=lambda torch, x, name: torch.nn.functional.pixel_shuffle(x, 2), torch=True),
    _fop("pixel_unshuffle", _shuffle.pixel_unshuffle, _shuffle.PixelUnshuffleBackward0, shapes=[((1, 2, 4, 6),)],
         call=lambda torch, x, name: torch.nn.functional.pixel_unshuffle(x, 2), torch=True),
    _fop("channel_shuffle", _shuffle.channel_shuffle, _shuffle.ChannelShuffleBackward0, shapes=[((1, 6, 2),)],
         call=lambda torch, x, name: torch.nn.functional.channel_shuffle(x, 3), torch=True),
    _fop("layer_norm", _norm.layer_norm, _norm.NativeLayerNormBackward0, shapes=[((2, 3), (3,), (3,))],
         call=lambda torch, x, w, b, name: torch.nn.functional.layer_norm(x, (3,), w, b)),
    _fop("group_norm", _gn.group_norm, _gn.NativeGroupNormBackward0, shapes=[((2, 4, 3), (4,), (4,))],
         call=lambda torch, x, w, b, name: torch.nn.functional.group_norm(x, 2, w, b)),
    _fop("instance_norm", _norm.instance_norm, shapes=[((2, 3, 4), (3,), (3,))],
         call=lambda torch, x, w, b, name: torch.nn.functional.instance_norm(x, weight=w, bias=b)),
    _fop("rms_norm", _norm.rms_norm, shapes=[((2, 3), (3,))],
         call=lambda torch, x, w, name: torch.nn.functional.rms_norm(x, (3,), w, 1e-6), torch=True),
    _fop("batch_norm", _norm.batch_norm, _norm.NativeBatchNormBackward0, shapes=[((4, 3), (3,), (3,))],
         call=lambda torch, x, w, b, name: torch.nn.functional.batch_norm(x, None, None, w, b, training=True)),
    # torch.X forms with ATen's signatures (nn/functional.py's own functions: torch binds them at the top level)
    _aten("dropout", torch_dropout, no_grad=_RANDOM),
    _aten("dropout_", torch_dropout_, no_grad=_RANDOM),
    _aten("layer_norm", torch_layer_norm, _norm.NativeLayerNormBackward0, sample=Sample(
        [((2, 3), (3,), (3,))], call=lambda torch, x, w, b: torch.layer_norm(x, (3,), w, b))),
    _aten("batch_norm", torch_batch_norm, _norm.NativeBatchNormBackward0, sample=Sample(
        [((4, 3), (3,), (3,))], call=lambda torch, x, w, b: torch.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False))),
    _aten("embedding", torch_embedding, EmbeddingBackward0, sample=Sample(
        [((3, 4),)], call=lambda torch, w: torch.embedding(w, torch.tensor([[0, 2], [1, 0]])))),
    _aten("binary_cross_entropy_with_logits", torch_bce_with_logits, _loss.BinaryCrossEntropyWithLogitsBackward0,
          sample=Sample(_M, call=lambda torch, x: torch.binary_cross_entropy_with_logits(
              x, torch.tensor([[0.2, 0.7, 1.0], [0.0, 0.4, 0.9]], dtype=x.dtype)))),
    _aten("kl_div", torch_kl_div, sample=Sample(_M2, ("any", "prob"), call=lambda torch, x, y: torch.kl_div(x, y, 2))),
    _aten("constant_pad_nd", constant_pad_nd, ConstantPadNdBackward0,
          sample=Sample([((2, 3),), ((1, 2, 3),)], call=lambda torch, x: torch.constant_pad_nd(x, (1, 2), 0.5))),
] + _unpool.OPS + _bag.OPS + _attention.OPS + _mha.OPS + _aten_forms.OPS  # the families in their own modules
_TABLES = tables(OPS, None)
FUNCTIONAL = _TABLES["FUNCTIONAL"]  # F's own functions, derived from OPS

# F.X: the activations the ops package implements (ops/special.py) and F's own
globals().update(_special.FUNCTIONAL)
globals().update(FUNCTIONAL)

# the members of `torch.nn.functional` (F.<name>)
NAMES = tuple(_special.FUNCTIONAL) + tuple(FUNCTIONAL)

# torch.<name> functions that also live at the top level of torch (ATen signatures where they differ), derived from
# OPS; api.py's stand-ins for them (made before torch.nn is loaded) are torch_nn_names.py, generated from this table
TORCH_NAMES = _TABLES["TORCH"]
