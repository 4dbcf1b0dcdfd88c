"""pixel_shuffle, pixel_unshuffle and channel_shuffle (F. and torch.) with their modules, and the small
modules over existing functions (Softmax2d, PairwiseDistance). The shuffles are permutations of the
elements, each its own node as in torch (PixelShuffleBackward0, PixelUnshuffleBackward0,
ChannelShuffleBackward0) whose backward is the inverse shuffle, so gradients differentiate again."""
from __future__ import annotations

from .. import errors
from ..function import Function, record
from ..ops import words
from ..tensor import wrap
from ..device import xp_of
from .module import Module


def _shuffled(x, shape1, axes, shape2):
    xp = xp_of(x)
    return xp.ascontiguousarray(xp.transpose(x.reshape(shape1), axes)).reshape(shape2)


def _pixel_check(input, factor, name, what):
    if factor <= 0:
        raise errors.runtime(f"{name} expects a positive {what}, but got {factor}")
    if input.dim() < 3:
        raise errors.runtime(f"{name} expects input to have at least 3 dimensions, but got input with "
                             f"{input.dim()} dimension(s)")


def _pixel_shuffle_array(x, r):
    *lead, c, h, w = x.shape
    n = len(lead)
    axes = tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2)
    return _shuffled(x, (*lead, c // (r * r), r, r, h, w), axes, (*lead, c // (r * r), h * r, w * r))


def _pixel_unshuffle_array(x, r):
    *lead, c, h, w = x.shape
    n = len(lead)
    axes = tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3)
    return _shuffled(x, (*lead, c, h // r, r, w // r, r), axes, (*lead, c * r * r, h // r, w // r))


class PixelShuffleBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed("1 at the element's new place (a permutation)"))
    replay = staticmethod(lambda xs, kw, outs: [_pixel_shuffle_array(xs[0], kw["r"])])

    def backward(self, g):
        return (pixel_unshuffle(g, self._kw["r"]),)


class PixelUnshuffleBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed("1 at the element's new place (a permutation)"))
    replay = staticmethod(lambda xs, kw, outs: [_pixel_unshuffle_array(xs[0], kw["r"])])

    def backward(self, g):
        return (pixel_shuffle(g, self._kw["r"]),)


def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    _pixel_check(input, r, "pixel_shuffle", "upscale_factor")
    c = input.shape[-3]
    if c % (r * r):
        raise errors.runtime(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                             f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    return record(PixelShuffleBackward0, (input,), wrap(_pixel_shuffle_array(input._data, r), input.dtype), {"r": r})


def pixel_unshuffle(input, downscale_factor):
    r = int(downscale_factor)
    _pixel_check(input, r, "pixel_unshuffle", "downscale_factor")
    h, w = input.shape[-2:]
    if h % r:
        raise errors.runtime(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                             f"input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise errors.runtime(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                             f"input.size(-1)={w} is not divisible by {r}")
    return record(PixelUnshuffleBackward0, (input,), wrap(_pixel_unshuffle_array(input._data, r), input.dtype),
                  {"r": r})


def _channel_shuffle_array(x, groups):
    n, c, *rest = x.shape
    return _shuffled(x, (n, groups, c // groups, *rest), (0, 2, 1) + tuple(range(3, 3 + len(rest))), x.shape)


class ChannelShuffleBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.fixed("1 at the element's new place (a permutation of the channels)"))
    replay = staticmethod(lambda xs, kw, outs: [_channel_shuffle_array(xs[0], kw["groups"])])

    def backward(self, g):
        return (channel_shuffle(g, g.shape[1] // self._kw["groups"]),)


def channel_shuffle(input, groups):
    groups = int(groups)
    if groups <= 0:
        raise errors.runtime(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.dim() <= 2:
        raise errors.runtime(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                             f"{list(input.shape)}")
    c = input.shape[1]
    if c % groups:
        raise errors.runtime(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return record(ChannelShuffleBackward0, (input,), wrap(_channel_shuffle_array(input._data, groups), input.dtype),
                  {"groups": groups})


class PixelShuffle(Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class Softmax2d(Module):
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise errors.value(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        from .functional import softmax  # noqa: PLC0415 - functional imports this module
        return softmax(input, -3)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        from .functional_loss import pairwise_distance  # noqa: PLC0415
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


NAMES = ("PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Softmax2d", "PairwiseDistance")
_PATHS = {"PixelShuffle": "pixelshuffle", "PixelUnshuffle": "pixelshuffle", "ChannelShuffle": "channelshuffle",
          "Softmax2d": "activation", "PairwiseDistance": "distance"}
for _n in NAMES:
    globals()[_n].__module__ = "torch.nn.modules." + _PATHS[_n]
