"""Convolution and pooling on NumPy: every window op is a gather of the input through an index
map (im2col; out-of-range positions read a zero "sentinel" slot), so padding, stride and dilation
are just index arithmetic, and every backward is the matching scatter (col2im) written as a
differentiable Tensor op, so gradients differentiate again."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..limits import check_numel, check_shape
from ..autograd_modes import grad_mode
from ..function import Function, record
from ..ops import elementwise_common as EC
from ..ops import words
from ..ops.matmul import matmul
from ..ops import reduction as R
from ..ops import shape as S
from ..tensor import Tensor, wrap
from ..device import like, scatter_add as _scatter_add_at, xp_of
from . import window_checks


def _contig(a, dtype=None):
    """np.ascontiguousarray on either device."""
    return xp_of(a).ascontiguousarray(a, dtype)

# ---------------------------------------------------------------------------- gather / scatter


def flat_ext(x, nsp, fill=0):
    """x (B..., *spatial) -> (B..., S + 1): flattened spatial dims plus one sentinel slot."""
    lead = x.shape[:x.ndim - nsp]
    s = int(np.prod(x.shape[x.ndim - nsp:])) if nsp else 1
    flat = x.reshape(lead + (s,))
    pad = xp_of(x).full(lead + (1,), fill, dtype=x.dtype)
    return np.concatenate([flat, pad], axis=-1)


def gather_replay(xs, kw, outs):
    """--check's replay of a node that gathers through an index map (im2col, padding): the input's
    flattened spatial values (and a 0 sentinel) at kw's idx."""
    return [np.asarray(flat_ext(xs[0], len(kw["spatial"]))[..., kw["idx"]]).reshape(outs[0])]


class Im2ColBackward0(Function):
    """out = x_flat_ext[..., idx] (then reshaped to out_shape); the index map is shared by every
    batch/channel."""
    __slots__ = ()
    explain = staticmethod(words.fixed("1 at each of the element's places in the unfolded blocks (summed back)"))
    replay = staticmethod(gather_replay)

    def backward(self, g):
        k = self._kw
        return (scatter_spatial(g, k["idx"], k["spatial"], k["gshape"]),)


class Col2ImBackward0(Function):
    """out[..., idx] += g (into zeros of the spatial shape); the sentinel slot is dropped."""
    __slots__ = ()

    def backward(self, g):
        k = self._kw
        return (gather_spatial(g, k["idx"], len(k["spatial"]), k["gshape"]),)


def gather_spatial(x, idx, nsp, out_shape=None):
    ext = flat_ext(x._data, nsp)
    out = ext[..., idx]
    gshape = out.shape
    if out_shape is not None:
        out = out.reshape(out_shape)
    return record(Im2ColBackward0, (x,), wrap(_contig(out), x.dtype),
                  {"idx": idx, "spatial": tuple(x.shape[x.ndim - nsp:]), "gshape": gshape})


def scatter_spatial(g, idx, spatial, g_shape=None):
    """Col2Im: g (shape lead + idx.shape, or any shape with that many elements given g_shape) is
    added into zeros of lead + spatial at the positions idx names."""
    d = g._data
    gshape = d.shape
    if g_shape is not None:
        d = d.reshape(g_shape)
    lead = d.shape[:d.ndim - idx.ndim]
    s = int(np.prod(spatial)) if spatial else 1
    bn = int(np.prod(lead)) if lead else 1
    acc = xp_of(d).zeros((s + 1, bn), dtype=d.dtype)
    _scatter_add_at(acc, idx.reshape(-1), d.reshape(bn, -1).T)
    out = acc[:s].T.reshape(lead + tuple(spatial))
    return record(Col2ImBackward0, (g,), wrap(_contig(out), g.dtype),
                  {"idx": idx, "spatial": tuple(spatial), "gshape": gshape})


# ---------------------------------------------------------------------------- argument helpers

def _tuple(v, n, name="kernel_size"):
    if isinstance(v, (tuple, list)):
        v = tuple(int(a) for a in v)
        if len(v) == 1 and n > 1:
            return v * n
        return v
    return (int(v),) * n


def _out_size(size, k, s, p, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _window_index(spatial, out_sp, k, s, p, d):
    """idx[(o...), (k...)] = flat input index of kernel tap k at output o, or S for padding (any number of
    spatial dims: the outputs' dims first, then the taps', each in row-major order)."""
    nsp = len(spatial)
    S_ = int(np.prod(spatial))
    flat = np.zeros((1,) * (2 * nsp), np.int64)
    valid = np.ones((1,) * (2 * nsp), bool)
    row = 1
    for i in reversed(range(nsp)):  # per dim: positions (out, k), placed on axes i and nsp + i
        o = np.arange(out_sp[i])[:, None] * s[i] - p[i] + np.arange(k[i])[None, :] * d[i]
        shape = [1] * (2 * nsp)
        shape[i], shape[nsp + i] = out_sp[i], k[i]
        o = o.reshape(shape)
        valid = valid & (o >= 0) & (o < spatial[i])
        flat = flat + o * row
        row *= spatial[i]
    idx = np.where(valid, flat, S_)
    return idx.reshape(int(np.prod(out_sp)), int(np.prod(k)))


# the index map, argument reader and output size that functional_conv_transpose.py and functional_pool3d.py share
window_index = _window_index
ntuple = _tuple
out_size = _out_size


# ---------------------------------------------------------------------------- convolution

_WARNED_SAME = [False]


def _conv_replay(xs, kw, outs):
    x, w, b = xs[0], xs[1], xs[2] if len(xs) > 2 and isinstance(xs[2], np.ndarray) else None
    nd, groups, idx = kw["nd"], kw["groups"], kw["idx"]
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    cols = flat_ext(x, nd)[..., idx].reshape(n, groups, c // groups * idx.shape[0], idx.shape[1])
    out = np.matmul(w.reshape(groups, o // groups, -1)[None], cols).reshape(outs[0])
    return [out if b is None else out + b.reshape((1, o) + (1,) * nd)]


class ConvolutionBackward0(Function):
    __slots__ = ()
    save_inputs = True
    explain = staticmethod(words.fixed("the convolution's Jacobian: grad correlated with the weight (input), "
                                       "with the input (weight), summed (bias)"))
    replay = staticmethod(_conv_replay)

    def backward(self, g):
        x, w, b, idx, groups, nd, n, c, cg, kk, lsz = conv_saved(self)
        o = w.shape[0]
        og = o // groups
        g2 = S.reshape(g, (n, groups, og, lsz))
        gx = gw = gb = None
        pad = self._kw.get("onednn_pad")
        if pad is not None and not grad_mode.enabled and self.next_functions[0][0] is not None:
            # the forward was oneDNN's AVX2 convolution: so is torch's input gradient (engine/gemm_avx2.py)
            from .. import gemm_avx2  # noqa: PLC0415

            r = gemm_avx2.conv2d_input_grad(_as_2d(g._data), _as_2d(w._data), pad, _as_2d(x._data).shape[2:])
            if r is not None:
                gx = wrap(r.reshape(x.shape), g.dtype)
        if gx is None and self.next_functions[0][0] is not None:
            wt = S.transpose(S.reshape(w, (groups, og, cg * kk)), -1, -2)
            cols = S.reshape(matmul(wt, g2), (n, c, kk, lsz))
            gx = scatter_spatial(cols, idx, tuple(x.shape[2:]))
        if pad is not None and not grad_mode.enabled and self.next_functions[1][0] is not None:
            from .. import gemm_avx2, threads  # noqa: PLC0415

            r = gemm_avx2.conv2d_weight_grad(_as_2d(x._data), _as_2d(g._data), _as_2d(w._data).shape[2:], pad,
                                             threads.get_num_threads())
            if r is not None:
                gw = wrap(r.reshape(w.shape), g.dtype)
        if gw is None and self.next_functions[1][0] is not None:
            cols = S.reshape(gather_spatial(x, idx, nd), (n, groups, cg * kk, lsz))
            gw = S.reshape(R.sum(matmul(g2, S.transpose(cols, -1, -2)), 0), tuple(w.shape))
        if pad is not None and not grad_mode.enabled and b is not None and self.next_functions[2][0] is not None:
            from .. import gemm_avx2, threads  # noqa: PLC0415

            r = gemm_avx2.conv2d_bias_grad(_as_2d(g._data), threads.get_num_threads())
            if r is not None:
                gb = wrap(r, g.dtype)
        if gb is None and b is not None and self.next_functions[2][0] is not None:
            gb = R.sum(g, (0,) + tuple(range(2, g.ndim)))
        return gx, gw, gb


def _as_2d(a):
    """A conv1d's array as ATen's conv2d of height 1 sees it (a 4-D array stays)."""
    return a[:, :, None, :] if a.ndim == 3 else a


def conv_saved(node):
    """What a convolution's node (plain or transposed) unpacks: x, w, b, idx, groups, nd, n, c, c/groups,
    the taps and the positions."""
    x, w, b = node.saved
    k = node._kw
    idx, groups = k["idx"], k["groups"]
    n, c = x.shape[0], x.shape[1]
    return (x, w, b, idx, groups, k["nd"], n, c, c // groups) + tuple(idx.shape)


def conv_unbatched(name, input, weight, nd, stride=1):
    """The checks every convolution (plain or transposed) starts with, in torch's order: the input a
    Tensor of nd + 1 (unbatched: True, the caller adds the batch dim and checks again) or nd + 2 dims,
    then the weight's dims (ATen's words: the 1-d ones compare the input's dims with the weight's, the
    others the stride's length)."""
    if not isinstance(input, Tensor):
        raise errors.type_error(f"{name}() received an invalid combination of arguments - got "
                                f"({type(input).__name__}, ...)")
    if input.dim() not in (nd + 1, nd + 2):
        raise errors.runtime(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
                             f"input of size: [{', '.join(map(str, input.shape))}]")
    if input.dim() == nd + 1:
        return True
    if weight.dim() < 3:
        raise errors.runtime("weight should have at least three dimensions")
    if weight.dim() != nd + 2 and nd == 1:
        raise errors.runtime(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                             f"{list(weight.shape)}, but got {input.dim()}-dimensional input of size "
                             f"{list(input.shape)} instead")
    if weight.dim() != nd + 2:
        raise errors.runtime(f"expected stride to be a single integer value or a list of {weight.dim() - 2} values "
                             f"to match the convolution dimensions, but got stride={list(_tuple(stride, nd))}")
    return False


def _conv(input, weight, bias, stride, padding, dilation, groups, nd):
    if conv_unbatched(f"conv{nd}d", input, weight, nd, stride):
        out = _conv(S.unsqueeze(input, 0), weight, bias, stride, padding, dilation, groups, nd)
        return S.squeeze(out, 0)
    ks = tuple(weight.shape[2:])
    st = _tuple(stride, nd)
    dl = _tuple(dilation, nd)
    if isinstance(padding, str):
        if padding == "valid":
            pd = (0,) * nd
        elif padding == "same":
            if any(s != 1 for s in st):
                raise errors.runtime("padding='same' is not supported for strided convolutions")
            total = [dl[i] * (ks[i] - 1) for i in range(nd)]
            left = [t // 2 for t in total]
            if any(t % 2 for t in total):
                import warnings  # noqa: PLC0415
                if not _WARNED_SAME[0]:  # TORCH_WARN_ONCE: once per process
                    _WARNED_SAME[0] = True
                    warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                                  "zero-padded copy of the input be created (Triggered internally at "
                                  "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)", UserWarning,
                                  stacklevel=3)
                from .functional import pad as _pad  # noqa: PLC0415
                spec = []
                for i in reversed(range(nd)):
                    spec += [0, total[i] - 2 * left[i]]
                input = _pad(input, spec)
            pd = tuple(left)
        else:
            raise errors.runtime(f"Invalid padding string: '{padding}'")
    else:
        pd = _tuple(padding, nd)
    n, c = input.shape[0], input.shape[1]
    o = weight.shape[0]
    if groups <= 0:
        raise errors.runtime("non-positive groups is not supported")
    window_checks.conv_params(pd, st, dl)
    if o < groups:
        raise errors.runtime(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                             f"weight of size {list(weight.shape)} instead")
    if o % groups:
        raise errors.runtime(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                             f"got weight of size [[{', '.join(map(str, weight.shape))}]] instead")
    if weight.shape[1] * groups != c:
        raise errors.runtime(f"Given groups={groups}, weight of size [{', '.join(map(str, weight.shape))}], expected "
                             f"input[{', '.join(map(str, input.shape))}] to have {weight.shape[1] * groups} channels, "
                             f"but got {c} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != o):
        raise errors.runtime(f"Given weight of size [{', '.join(map(str, weight.shape))}], expected bias to be "
                             f"1-dimensional with {o} elements, but got bias of size "
                             f"[{', '.join(map(str, bias.shape))}] instead")
    if input.dtype is not weight.dtype:
        raise errors.runtime(f"expected scalar type {EC.c10_name(input.dtype)} but found "
                             f"{EC.c10_name(weight.dtype)}")
    window_checks.conv_dilation(dl, nd)
    spatial = tuple(input.shape[2:])
    padded = [spatial[i] + 2 * pd[i] for i in range(nd)]
    eff = [dl[i] * (ks[i] - 1) + 1 for i in range(nd)]
    if any(padded[i] < eff[i] for i in range(nd)):
        raise errors.runtime(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                             f"size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than actual input "
                             f"size")
    out_sp = tuple((padded[i] - eff[i]) // st[i] + 1 for i in range(nd))
    check_shape((n, c) + tuple(padded))  # (the padded input gradcli indexes)
    check_shape((n, o) + out_sp)
    idx = np.ascontiguousarray(_window_index(spatial, out_sp, ks, st, pd, dl).T)  # (K, L)
    dt = input.dtype
    cg, og = c // groups, o // groups
    kk, lsz = idx.shape
    out = onednn_pad = None
    if nd in (1, 2) and groups == 1 and set(st) == set(dl) == {1} and dt is dtypes.float32:
        # this CPU's order where engine/gemm_avx2.py knows it (None elsewhere: another CPU, a 1x1 kernel, past
        # its work limit): oneDNN's direct convolution where ATen's use_mkldnn picks it, else slow_conv2d's sgemm
        from .. import gemm_avx2  # noqa: PLC0415 - NumPy's side, loaded at the first convolution

        # (conv1d: ATen's view of it as a conv2d of height 1)
        ks2, pd2 = ((1,) + ks, (0,) + pd) if nd == 1 else (ks, pd)
        onednn = n > 1 or (ks2[0] > 3 and ks2[1] > 3) or n * c * int(np.prod(spatial)) > 20480
        out = gemm_avx2.conv2d(_as_2d(input._data), _as_2d(weight._data), None if bias is None else bias._data, pd2,
                               onednn)
        if out is not None:
            out = out.reshape((n, o) + out_sp)
        onednn_pad = pd2 if out is not None and onednn else None
    if out is None:
        cols = flat_ext(input._data, nd)[..., idx].reshape(n, groups, cg * kk, lsz)
        wm = weight._data.reshape(groups, og, cg * kk)
        out = np.matmul(wm[None], cols)  # (n, groups, og, L)
        out = out.reshape((n, o) + out_sp)
        if bias is not None:
            out = out + bias._data.reshape((1, o) + (1,) * nd)
    return record(ConvolutionBackward0, (input, weight, bias), wrap(_contig(out, dt.np), dt),
                  {"idx": idx, "groups": groups, "nd": nd} if onednn_pad is None else
                  {"idx": idx, "groups": groups, "nd": nd, "onednn_pad": onednn_pad})


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    if input.dim() not in (3, 4):
        raise errors.runtime(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    batched = input.dim() == 4
    x = input if batched else S.unsqueeze(input, 0)
    k, d, p, s = _tuple(kernel_size, 2), _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2)
    window_checks.im2col(k, d, p, s)
    spatial = tuple(x.shape[2:])
    out_sp = tuple((spatial[i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(2))
    check_numel(x.shape[0] * x.shape[1] * k[0] * k[1] * max(0, out_sp[0]) * max(0, out_sp[1]))
    idx = np.ascontiguousarray(_window_index(spatial, out_sp, k, s, p, d).T)  # (K, L)
    n, c = x.shape[0], x.shape[1]
    out = gather_spatial(x, idx, 2, (n, c * idx.shape[0], idx.shape[1]))
    return out if batched else S.squeeze(out, 0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: the blocks of (N, C * prod(kernel_size), L) summed back into (N, C, *output_size), in ATen's
    order (channel and kernel position outer, block inner); the node is Col2ImBackward0."""
    if input.dim() not in (2, 3):
        raise errors.runtime(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got "
                             f"{input.dim()}D)")
    batched = input.dim() == 3
    x = input if batched else S.unsqueeze(input, 0)
    o, k, d, p, s = (_tuple(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    window_checks.col2im(k, d, p, s)
    kk = k[0] * k[1]
    if x.shape[1] % kk:
        raise errors.runtime(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                             f"but got input.size(1)={x.shape[1]} and kernel_size=({k[0]}, {k[1]}).")
    blocks = tuple((o[i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(2))
    if blocks[0] * blocks[1] != x.shape[2]:
        raise errors.runtime(f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                             f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's "
                             f"dimension 2 to match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} "
                             f"= {blocks[0] * blocks[1]}, but got input.size(2)={x.shape[2]}.")
    idx = np.ascontiguousarray(_window_index(o, blocks, k, s, p, d).T)  # (K, L)
    n, c = x.shape[0], x.shape[1] // kk
    out = scatter_spatial(S.reshape(x, (n, c, kk, x.shape[2])), idx, o)
    return out if batched else S.squeeze(out, 0)


# ---------------------------------------------------------------------------- pooling

class MaxPool2DWithIndicesBackwardBackward0(Function):
    """The gradient of max pooling (scatter-add of g at the argmax indices) as a node of its own, for
    double backward; its backward reads the incoming gradient at the indices (grad_output) and gives zeros
    for the input (torch's derivatives.yaml)."""
    __slots__ = ()

    def backward(self, gg):
        k = self._kw
        g_out = max_double_backward(gg, k["indices"], len(k["spatial"])) if self.next_functions[0][0] else None
        from ..factory import zeros  # noqa: PLC0415
        g_self = zeros(k["in_shape"], dtype=gg.dtype, device=gg.device) if self.next_functions[1][0] else None
        return g_out, g_self


class MaxPool2DWithIndicesBackward0(Function):
    __slots__ = ()
    save_inputs = True  # torch saves self (the edge of its backward's own node)
    saves_in_kw = True
    double = MaxPool2DWithIndicesBackwardBackward0  # its backward's node (MaxPool3D...: its own)
    explain = staticmethod(words.fixed("1 at each window's maximum, 0 elsewhere"))

    @staticmethod
    def replay(xs, kw, outs):
        x, ind = xs[0], kw["indices"]
        flat = x.reshape(x.shape[:x.ndim - len(kw["spatial"])] + (-1,))
        return [np.take_along_axis(flat, ind.reshape(flat.shape[:-1] + (-1,)), axis=-1).reshape(outs[0])]

    def backward(self, g):
        k = self._kw
        return (_put_max(g, self.saved[0], k["indices"], k["spatial"], self.double),)


def max_double_backward(gg, idx, nd):
    """ATen's max_pool_double_backward: grad.view(lead + (-1,)).gather(-1, indices).view(indices' shape)."""
    from ..ops.gather_scatter import gather  # noqa: PLC0415
    lead = tuple(gg.shape[:gg.ndim - nd])
    flat = S.reshape(gg, lead + (-1,))
    picked = gather(flat, -1, wrap(idx.reshape(lead + (-1,)), dtypes.int64))
    return S.reshape(picked, idx.shape)


def _put_max(g, x, indices, spatial, node):
    d = g._data
    lead = d.shape[:d.ndim - len(spatial)]
    s = int(np.prod(spatial))
    acc = xp_of(d).zeros(lead + (s,), dtype=d.dtype)
    fi = indices.reshape(lead + (-1,))
    coords = tuple(np.indices(fi.shape, sparse=True)[:-1]) + (fi,)
    _scatter_add_at(acc, coords, d.reshape(lead + (-1,)))
    return record(node, (g, x), wrap(acc.reshape(lead + tuple(spatial)), g.dtype),
                  {"indices": indices, "spatial": spatial, "in_shape": tuple(x.shape)})


def _pool_args(input, kernel_size, stride, padding, dilation, name):
    if name == "avg_pool2d" and input.dim() < 3:  # ATen reads input.size(-3) first
        n = max(input.dim(), 1)
        raise errors.index(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got -3)")
    if name == "avg_pool2d" and input.dim() > 4:
        raise errors.runtime(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                             f"got:{list(input.shape)}")
    if input.dim() not in (3, 4):
        raise errors.runtime("non-empty 3D or 4D (batch mode) tensor expected for input")
    k = _tuple(kernel_size, 2)
    s = _tuple(stride, 2) if stride is not None and stride != [] and stride != () else k
    p = _tuple(padding, 2)
    d = _tuple(dilation, 2)
    window_checks.pool_output(k, s, p, d)
    window_checks.pool_shape(k, s, d)
    return k, s, p, d


def _check_out(input, out_sp):
    if out_sp[0] < 1 or out_sp[1] < 1:
        c = input.shape[-3]
        h, w = input.shape[-2:]
        raise errors.runtime(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out_sp[0]}x"
                             f"{out_sp[1]}). Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    k, s, p, d = _pool_args(input, kernel_size, stride, padding, dilation, "max_pool2d")
    spatial = tuple(input.shape[-2:])
    out_sp = tuple(_out_size(spatial[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(2))
    _check_out(input, out_sp)
    return max_pool_windows(input, k, s, p, d, out_sp, return_indices, MaxPool2DWithIndicesBackward0)


def max_pool_windows(input, k, s, p, d, out_sp, return_indices, node):
    """Max pooling over the last len(k) dims (the arguments checked): each window's first maximum, or its
    first NaN, and its flat index in the input's spatial dims."""
    nd = len(k)
    spatial = tuple(input.shape[-nd:])
    idx = _window_index(spatial, out_sp, k, s, p, d)  # (L, K)
    x = input._data
    vals = flat_ext(x, nd, fill=-np.inf)[..., idx]  # (..., L, K)
    am = np.argmax(vals, axis=-1)
    nan_any = np.isnan(vals).any(axis=-1)
    if nan_any.any():
        am = np.where(nan_any, np.argmax(np.isnan(vals), axis=-1), am)
    lead = x.shape[:x.ndim - nd]
    flat_idx = np.broadcast_to(like(x, idx), lead + idx.shape)
    indices = np.take_along_axis(flat_idx, am[..., None], axis=-1)[..., 0].reshape(lead + out_sp)
    out = np.take_along_axis(vals, am[..., None], axis=-1)[..., 0].reshape(lead + out_sp)
    indices = indices.astype(np.int64)
    res = record(node, (input,), wrap(_contig(out), input.dtype), {"indices": indices, "spatial": spatial})
    if return_indices:
        return res, wrap(indices, dtypes.int64)
    return res


class AvgPool2DBackwardBackward0(Function):
    """The gradient of average pooling as a node of its own (torch's, with its (grad, self) edges): its backward
    pools the incoming gradient again (grad_output) and gives zeros for the input."""
    __slots__ = ()
    explain = staticmethod(words.fixed("the average pool of the incoming gradient"))

    def backward(self, gg):
        k = self._kw
        g_out = None
        if self.next_functions[0][0]:
            arr = avg_arrays(gg._data, k["idx"], k["div"], k["inside"], len(k["spatial"]))
            g_out = record(self.pool, (gg,), wrap(_contig(arr), gg.dtype), k)
        from ..factory import zeros  # noqa: PLC0415
        g_self = zeros(k["in_shape"], dtype=gg.dtype, device=gg.device) if self.next_functions[1][0] else None
        return g_out, g_self


class AvgPool2DBackward0(Function):
    __slots__ = ()
    save_inputs = True  # torch saves self (the edge of its backward's own node)
    saves_in_kw = True
    double = AvgPool2DBackwardBackward0  # its backward's node (AvgPool3D...: its own)
    explain = staticmethod(words.fixed("1 / the window's divisor at each element of its windows"))

    @staticmethod
    def replay(xs, kw, outs):
        sums = flat_ext(xs[0], len(kw["spatial"]))[..., kw["idx"]].sum(axis=-1).reshape(outs[0])
        return [sums / kw["div"]]

    def backward(self, g):
        k = self._kw
        idx, div, spatial = k["idx"], k["div"], k["spatial"]
        d = g._data
        lead = d.shape[:d.ndim - len(spatial)]
        ge = d / like(d, div.astype(d.dtype))
        ge = xp_of(d).broadcast_to(ge.reshape(lead + (idx.shape[0], 1)), lead + idx.shape)
        s = int(np.prod(spatial))
        bn = int(np.prod(lead)) if lead else 1
        acc = xp_of(d).zeros((s + 1, bn), dtype=d.dtype)
        _scatter_add_at(acc, idx.reshape(-1), ge.reshape(bn, -1).T)  # each input's share added in output order
        out = acc[:s].T.reshape(lead + tuple(spatial))
        x = self.saved[0]
        return (record(self.double, (g, x), wrap(_contig(out), g.dtype), dict(k, in_shape=tuple(x.shape))),)


AvgPool2DBackwardBackward0.pool = AvgPool2DBackward0


def avg_arrays(x, idx, div, inside, nd):
    """The pooled array: each window's sum divided by its divisor (0 for a window wholly in the padding)."""
    sums = window_sums(flat_ext(x, nd)[..., idx]).reshape(x.shape[:x.ndim - nd] + div.shape)
    return np.where(like(x, inside > 0), sums / like(x, div.astype(sums.dtype)), 0).astype(x.dtype)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    k, s, p, _ = _pool_args(input, kernel_size, stride, padding, 1, "avg_pool2d")
    spatial = tuple(input.shape[-2:])
    out_sp = tuple(_out_size(spatial[i], k[i], s[i], p[i], 1, ceil_mode) for i in range(2))
    _check_out(input, out_sp)
    return avg_pool_windows(input, k, s, p, out_sp, count_include_pad, divisor_override, AvgPool2DBackward0)


def window_sums(vals):
    """Each window (the last axis) summed as ATen's cpu_avg_pool loops: `sum += v` from 0, tap by tap, in
    float32 for float16 (its opmath type). NumPy's .sum would add 8 lanes pairwise where the axis is
    contiguous and long enough (a 5x5x5 window of float32 then differed in the last bit from torch)."""
    acc = xp_of(vals).zeros(vals.shape[:-1], dtype=np.float32 if vals.dtype == np.float16 else vals.dtype)
    for j in range(vals.shape[-1]):
        acc += vals[..., j]
    return acc


def avg_pool_windows(input, k, s, p, out_sp, count_include_pad, divisor_override, node):
    """Average pooling over the last len(k) dims (the arguments checked), with ATen's divisor per window."""
    nd = len(k)
    spatial = tuple(input.shape[-nd:])
    idx = _window_index(spatial, out_sp, k, s, p, (1,) * nd)  # (L, K)
    pool_size = inside = np.ones((), np.int64)
    for i in range(nd):  # the divisors, an outer product over the dims
        start = np.arange(out_sp[i]) * s[i] - p[i]
        end = np.minimum(start + k[i], spatial[i] + p[i])
        cs, ce = np.maximum(start, 0), np.minimum(end, spatial[i])
        pool_size = np.multiply.outer(pool_size, end - start)
        inside = np.multiply.outer(inside, ce - cs)
    if divisor_override:
        div = np.full(out_sp, float(divisor_override))
    elif count_include_pad:
        div = pool_size.astype(np.float64)
    else:
        div = inside.astype(np.float64)
    out = avg_arrays(input._data, idx, div, inside, nd)
    return record(node, (input,), wrap(_contig(out), input.dtype),
                  {"idx": idx, "div": div, "spatial": spatial, "inside": inside})


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    no_stride = stride is None or (isinstance(stride, (list, tuple)) and not stride)
    if not return_indices and input.dim() in (2, 3):  # ATen's max_pool1d (not max_pool1d_with_indices)
        window_checks.max_pool1d(_tuple(kernel_size, 1)[0], _tuple(kernel_size if no_stride else stride, 1)[0],
                                 _tuple(padding, 1)[0], _tuple(dilation, 1)[0])
    r = max_pool2d(S.unsqueeze(input, -2), (1, _tuple(kernel_size, 1)[0]),
                   None if no_stride else (1, _tuple(stride, 1)[0]), (0, _tuple(padding, 1)[0]),
                   (1, _tuple(dilation, 1)[0]), ceil_mode, return_indices)
    if return_indices:
        return S.squeeze(r[0], -2), S.squeeze(r[1], -2)
    return S.squeeze(r, -2)
