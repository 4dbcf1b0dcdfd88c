"""Transposed convolution (F.conv_transpose1d/2d/3d, nn.ConvTranspose1d/2d/3d: DCGAN's generator) on
functional_conv.py's index maps: the output is the col2im of weight^T @ input (the gradient of a
convolution with respect to its input), so its backward is a convolution (the im2col gather of the
gradient, then one product per group) and the weight's gradient is the input times those columns.
torch names the node ConvolutionBackward0, as for a plain convolution."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..function import Function, record
from ..limits import check_shape
from ..ops import elementwise_common as EC
from ..ops.matmul import matmul
from ..ops import reduction as R
from ..ops import shape as S
from ..ops import words
from ..tensor import wrap
from ..device import xp_of
from . import window_checks
from .functional_conv import conv_saved, conv_unbatched, gather_spatial, ntuple, window_index

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "ConvolutionBackward0", "output_size_for"]


def _forward_arrays(x, w, idx, groups, out_sp):
    """x (n, c_in, *in_sp), w (c_in, c_out/groups, *k) -> (n, c_out, *out_sp): for each group and kernel tap,
    one product (input positions x batch, c_in/groups) @ (c_in/groups, c_out/groups), added into the output
    positions that tap reaches (a tap's positions are distinct, but for the padding's sentinel slot)."""
    n, c = x.shape[0], x.shape[1]
    og = w.shape[1]
    cg = c // groups
    kk, lsz = idx.shape
    xp = xp_of(x)
    s = int(np.prod(out_sp))
    acc = xp.zeros((s + 1, n, groups, og), dtype=x.dtype)
    xg = x.reshape(n, groups, cg, lsz)
    for g in range(groups):
        xl = xp.ascontiguousarray(xg[:, g].transpose(2, 0, 1)).reshape(lsz * n, cg)
        wg = w[g * cg:(g + 1) * cg].reshape(cg, og, kk)
        for k in range(kk):
            acc[idx[k], :, g, :] += (xl @ wg[:, :, k]).reshape(lsz, n, og)
    return acc[:s].reshape(s, n, groups * og).transpose(1, 2, 0).reshape((n, groups * og) + tuple(out_sp))


def _replay(xs, kw, outs):
    x, w = xs[0], xs[1]
    b = xs[2] if len(xs) > 2 and isinstance(xs[2], np.ndarray) else None
    out = _forward_arrays(x, w, kw["idx"], kw["groups"], kw["out_sp"])
    return [out if b is None else out + b.reshape((1, -1) + (1,) * kw["nd"])]


class ConvolutionBackward0(Function):
    """A transposed convolution's node (torch's name for every convolution's)."""
    __slots__ = ()
    save_inputs = True
    explain = staticmethod(words.fixed("the transposed convolution's Jacobian: grad convolved with the weight "
                                       "(input), correlated with the input (weight), summed (bias)"))
    replay = staticmethod(_replay)

    def backward(self, g):
        x, w, b, idx, groups, nd, n, c, cg, kk, lsz = conv_saved(self)
        og = w.shape[1]
        gx = gw = gb = None
        if self.next_functions[0][0] is not None or self.next_functions[1][0] is not None:
            gcols = S.reshape(gather_spatial(g, idx, nd), (n, groups, og * kk, lsz))
            if self.next_functions[0][0] is not None:
                gx = S.reshape(matmul(S.reshape(w, (groups, cg, og * kk)), gcols), tuple(x.shape))
            if self.next_functions[1][0] is not None:
                xm = S.reshape(x, (n, groups, cg, lsz))
                gw = S.reshape(R.sum(matmul(xm, S.transpose(gcols, -1, -2)), 0), tuple(w.shape))
        if b is not None and self.next_functions[2][0] is not None:
            gb = R.sum(g, (0,) + tuple(range(2, g.ndim)))
        return gx, gw, gb


def output_size_for(in_sp, k, s, p, d, output_size, nd):
    """The output_padding that gives output_size (nn.ConvTranspose's forward(input, output_size)),
    with torch's ValueError for a size out of range."""
    if output_size is None:
        return None
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    shown = output_size  # torch's message shows it as given (a tuple stays a tuple)
    output_size = [int(v) for v in output_size]
    if len(output_size) != nd:
        raise errors.value(f"ConvTranspose{nd}D: for {nd + 2}D input, output_size must have {nd} or {nd + 2} "
                           f"elements (got {len(output_size)})")
    lo = [(in_sp[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + 1 for i in range(nd)]
    hi = [lo[i] + s[i] - 1 for i in range(nd)]
    for i in range(nd):
        if not lo[i] <= output_size[i] <= hi[i]:
            raise errors.value(f"requested an output size of {shown}, but valid sizes range from {lo} to "
                               f"{hi} (for an input of torch.Size([{', '.join(map(str, in_sp))}]))")
    return tuple(output_size[i] - lo[i] for i in range(nd))


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd):
    if conv_unbatched(f"conv_transpose{nd}d", input, weight, nd, stride):
        out = _conv_transpose(S.unsqueeze(input, 0), weight, bias, stride, padding, output_padding, groups,
                              dilation, nd)
        return S.squeeze(out, 0)
    k = tuple(weight.shape[2:])
    st, pd, dl = ntuple(stride, nd), ntuple(padding, nd), ntuple(dilation, nd)
    op = ntuple(output_padding, nd)
    if groups <= 0:
        raise errors.runtime("non-positive groups is not supported")
    window_checks.conv_params(pd, st, dl, op)
    c = input.shape[1]
    if weight.shape[0] < groups:
        raise errors.runtime(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                             f"weight of size {list(weight.shape)} instead")
    if weight.shape[0] % groups:
        raise errors.runtime(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                             f"got weight of size [{list(weight.shape)}] instead")
    if weight.shape[0] != c:
        raise errors.runtime(f"Given transposed=1, weight of size [{', '.join(map(str, weight.shape))}], expected "
                             f"input[{', '.join(map(str, input.shape))}] to have {weight.shape[0]} channels, but got "
                             f"{c} channels instead")
    o = weight.shape[1] * groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != o):
        raise errors.runtime(f"Given transposed=1, weight of size [{', '.join(map(str, weight.shape))}], expected "
                             f"bias to be 1-dimensional with {o} elements, but got bias of size "
                             f"[{', '.join(map(str, bias.shape))}] instead")
    window_checks.conv_transpose_dilation(dl, nd)
    if any(op[i] >= st[i] and op[i] >= dl[i] for i in range(nd)):
        axes = ("depth", "height", "width")[-nd:]
        got = " ".join(f"output_padding_{a}: {op[i]}" for i, a in enumerate(axes))
        got += " " + " ".join(f"stride_{a}: {st[i]}" for i, a in enumerate(axes))
        got += " " + " ".join(f"dilation_{a}: {dl[i]}" for i, a in enumerate(axes))
        raise errors.runtime(f"output padding must be smaller than either stride or dilation, but got {got}")
    if input.dtype is not weight.dtype:
        raise errors.runtime(f"expected scalar type {EC.c10_name(input.dtype)} but found "
                             f"{EC.c10_name(weight.dtype)}")
    in_sp = tuple(input.shape[2:])
    out_sp = tuple((in_sp[i] - 1) * st[i] - 2 * pd[i] + dl[i] * (k[i] - 1) + op[i] + 1 for i in range(nd))
    if any(v < 1 for v in out_sp):
        raise errors.runtime(f"Given input size per channel: ({' x '.join(map(str, in_sp))}). Calculated output "
                             f"size per channel: ({' x '.join(map(str, out_sp))}). Output size is too small")
    check_shape((input.shape[0], o) + out_sp)
    # the convolution over the output that this one transposes reads, for input position l, tap k:
    # output position idx[k, l] (the sentinel where it falls in the padding)
    idx = np.ascontiguousarray(window_index(out_sp, in_sp, k, st, pd, dl).T)  # (K, L)
    dt = input.dtype
    out = _forward_arrays(input._data, weight._data, idx, groups, out_sp)
    if bias is not None:
        out = out + bias._data.reshape((1, o) + (1,) * nd)
    return record(ConvolutionBackward0, (input, weight, bias),
                  wrap(xp_of(out).ascontiguousarray(out, dt.np), dt),
                  {"idx": idx, "groups": groups, "nd": nd, "out_sp": out_sp})


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)

