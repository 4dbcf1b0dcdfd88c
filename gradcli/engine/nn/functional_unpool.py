"""F.max_unpool1d/2d and nn.MaxUnpool1d/2d: the partial inverse of max pooling, which puts each value at
the position its index names in a zero output. As torch: F computes the output size in Python
(_unpool_output_size, its ValueErrors), then ATen's max_unpool2d (MaxUnpool2DBackward0: its backward
is max_pool_double_backward, a gather of the gradient at the indices, differentiable again); the 1-d
form is the 2-d one on an unsqueezed input (UnsqueezeBackward0 in, SqueezeBackward1 out)."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..device import host, xp_of
from ..function import Function, record
from ..limits import check_shape
from ..ops import elementwise_common as EC
from ..ops import gather_scatter as GS
from ..ops import shape as S
from ..ops import words
from ..ops.registry import Sample, op
from ..tensor import Tensor, wrap
from .functional_conv import ntuple
from .module import Module


def _unpool_arrays(x, idx, out_hw):
    """ATen's CPU kernel: each plane's values written at their indices in order (the last invalid index
    is the one reported)."""
    lead = x.shape[:-2]
    planes = int(np.prod(lead)) if lead else 1
    size = out_hw[0] * out_hw[1]
    xv = x.reshape(planes, -1)
    iv = host(idx).reshape(planes, -1)
    bad = (iv < 0) | (iv >= size)
    if bad.any():
        last = iv[bad][-1]
        raise errors.runtime(f"Found an invalid max index: {int(last)} (output volumes are of size "
                             f"{out_hw[0]}x{out_hw[1]})")
    xp = xp_of(x)
    out = xp.zeros((planes, size), x.dtype)
    rows = np.repeat(np.arange(planes), iv.shape[1])
    out[xp.asarray(rows), xp.asarray(iv.reshape(-1))] = xv.reshape(-1)
    return out.reshape(tuple(lead) + tuple(out_hw))


class MaxUnpool2DBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed("1 where the output position is the one the index names, 0 elsewhere"))
    replay = staticmethod(lambda xs, kw, outs: [_unpool_arrays(xs[0], kw["indices"]._data, kw["out_hw"])])

    def backward(self, g):
        return (max_pool_double_backward(g, self._kw["indices"], 2),)


def max_pool_double_backward(grad, indices, dim):
    """torch's max_pool_double_backward: grad.contiguous().view(lead + (-1,)).gather(-1, ...).view(indices)."""
    shape = tuple(indices.shape)
    size = shape[:len(shape) - dim] + (-1,)
    return S.view(GS.gather(S.view(S.contiguous(grad), size), -1, S.view(indices, size)), shape)


def _max_unpool2d_aten(input, indices, output_size):
    if indices.dtype is not dtypes.int64:
        raise errors.runtime(f"elements in indices should be type int64 but got: {EC.c10_name(indices.dtype)}")
    if len(output_size) != 2:
        raise errors.runtime(f"There should be exactly two elements (height, width) in output_size, but got "
                             f"{len(output_size)} elements.")
    nd = input.dim()
    if nd not in (3, 4):
        raise errors.runtime(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {nd} "
                             "dimensions.")
    shape = ", ".join(map(str, input.shape))
    if tuple(input.shape) != tuple(indices.shape):
        raise errors.runtime(f"Expected shape of indices to be same as that of the input tensor ([{shape}]) but got "
                             f"indices tensor with shape: [{', '.join(map(str, indices.shape))}]")
    for i in range(1, nd):
        if input.shape[i] <= 0:
            raise errors.runtime(f"max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for "
                                 f"non-batch dimensions, but got [{shape}] with dimension {i} being empty.")
    out_hw = (int(output_size[0]), int(output_size[1]))
    check_shape(tuple(input.shape[:-2]) + out_hw)
    out = _unpool_arrays(input._data, indices._data, out_hw)
    return record(MaxUnpool2DBackward0, (input,), wrap(out, input.dtype), {"indices": indices, "out_hw": out_hw})


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch.nn.functional._unpool_output_size, with its ValueErrors."""
    input_size = tuple(input.shape)
    n = len(kernel_size)
    default = [(input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise errors.value(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                           f"length of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise errors.value(f'invalid output_size "{output_size!r}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _check_tensor(name, input):
    if not isinstance(input, Tensor):
        raise errors.type_error(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                                f"{type(input).__name__}")


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    _check_tensor("max_unpool1d", input)
    k = ntuple(kernel_size, 1)
    st = ntuple(stride, 1) if stride is not None else k
    out = _unpool_output_size(input, k, st, ntuple(padding, 1), output_size)
    out = list(out) + [1] if isinstance(out, list) else tuple(out) + (1,)
    return S.squeeze(_max_unpool2d_aten(S.unsqueeze(input, -1), S.unsqueeze(indices, -1), out), -1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    _check_tensor("max_unpool2d", input)
    k = ntuple(kernel_size, 2)
    st = ntuple(stride, 2) if stride is not None else k
    out = _unpool_output_size(input, k, st, ntuple(padding, 2), output_size)
    return _max_unpool2d_aten(input, indices, out)


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        nd = self._nd
        self.kernel_size = ntuple(kernel_size, nd)
        self.stride = ntuple(stride if stride is not None else kernel_size, nd)
        self.padding = ntuple(padding, nd)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _nd = 1

    def forward(self, input, indices, output_size=None):
        return max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    def forward(self, input, indices, output_size=None):
        return max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


NAMES = ("MaxUnpool1d", "MaxUnpool2d")
for _n in NAMES:
    globals()[_n].__module__ = "torch.nn.modules.pooling"


def _unpool_call(nd):
    """The gradient check's call: unpool what max pooling of a fixed image picked (indices from a
    fixed input, so every variant hits the same positions)."""
    def call(torch, x):
        F = torch.nn.functional
        base = torch.tensor(np.cos(np.arange(x.numel()) * 1.7).reshape(tuple(x.shape)).tolist(), dtype=x.dtype)
        if nd == 1:
            _, idx = F.max_pool1d(base, 2, return_indices=True)
            v = x[..., ::2]
            return F.max_unpool1d(v, idx, 2), F.max_unpool1d(v, idx, 2, output_size=[x.shape[-1] + 1])
        _, idx = F.max_pool2d(base, 2, return_indices=True)
        v = x[..., ::2, ::2]
        return F.max_unpool2d(v, idx, 2), F.max_unpool2d(v, idx, (2, 2), output_size=torch.Size([5, 5]))
    return call


# F's declarations (nn/functional.py adds them to its OPS)
OPS = [
    op("max_unpool1d", max_unpool1d, MaxUnpool2DBackward0, method=False, functional=True, key="F.max_unpool1d",
       torch=False, sample=Sample([((1, 2, 6),), ((2, 4),)], call=_unpool_call(1))),
    op("max_unpool2d", max_unpool2d, MaxUnpool2DBackward0, method=False, functional=True, key="F.max_unpool2d",
       torch=False, sample=Sample([((1, 2, 4, 4),), ((2, 4, 4),)], call=_unpool_call(2))),
]
