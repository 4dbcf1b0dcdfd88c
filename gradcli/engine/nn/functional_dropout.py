"""The dropouts of torch.nn.functional, as ATen's _dropout_impl on the CPU: noise =
empty_like(input) (or the feature noise (N, C, 1, ...)) .bernoulli_(1 - p), i.e. 53-bit double
uniforms < 1 - p drawn in the noise's memory order from the default generator; then noise / (1 - p)
(half: in float), or for the alpha forms b = (noise - 1) * (alpha * a) + alpha * a * p and
noise * a; the result input * noise (+ b)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import errors
from ..device import host, like, xp_of
from ..ops import arithmetic as AR
from ..tensor import wrap

_ALPHA = 1.7580993408473766


def check_p(p):
    if p < 0.0 or p > 1.0:
        raise errors.value(f"dropout probability has to be between 0 and 1, but got {p}")


def _bernoulli_noise(input, p, feature):
    from ..rng_ops import bernoulli_values, fill_in_order, gen_for  # noqa: PLC0415
    dt = input.dtype.np
    if feature:
        if input.dim() < 2:
            raise errors.runtime("Feature dropout requires at least 2 dimensions in the input")
        noise = np.empty(tuple(input.shape[:2]) + (1,) * (input.dim() - 2), dt)
    else:
        noise = np.empty_like(host(input._data), dtype=dt)
    fill_in_order(noise, bernoulli_values(gen_for(None, input.device), noise.size, 1 - p).astype(dt))
    return noise


def _t(input, arr):
    return wrap(like(input._data, arr.astype(input.dtype.np, copy=False)), input.dtype)


def dropout_impl(input, p, train, feature=False, alpha=False, inplace=False):
    check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = wrap(xp_of(input._data).zeros((), input.dtype.np), input.dtype)
        return input.mul_(zero) if inplace else AR.mul(input, zero)
    noise = _bernoulli_noise(input, p, feature)
    dt = input.dtype.np
    op = np.float32 if dt == np.float16 else dt  # half: computed in float, rounded back
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = ((noise - dt.type(1)).astype(dt) * dt.type(_ALPHA * a)).astype(dt) + dt.type(_ALPHA * a * p)
        noise = noise * dt.type(a)
        out = input.mul_(_t(input, noise)) if inplace else AR.mul(input, _t(input, noise))
        return out.add_(_t(input, b.astype(dt)))
    noise = noise.astype(op) / np.asarray(1 - p, op)
    return input.mul_(_t(input, noise)) if inplace else AR.mul(input, _t(input, noise))


def dropout(input, p=0.5, training=True, inplace=False):
    return dropout_impl(input, p, training, inplace=inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return dropout_impl(input, p, training, alpha=True, inplace=inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return dropout_impl(input, p, training, feature=True, alpha=True, inplace=inplace)


def _batched(input, dims, inplace, fn):
    """Run fn on input with a batch dimension added when it has `dims` dimensions (unbatched)."""
    if input.dim() != dims:
        return fn(input)
    x = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    r = fn(x)
    return r.squeeze_(0) if inplace else r.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    check_p(p)
    d = input.dim()
    if d not in (2, 3):
        raise errors.runtime(f"dropout1d: Expected 2D or 3D input, but received a {d}D input. Note that dropout1d "
                             "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                             "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _batched(input, 2, inplace, lambda x: dropout_impl(x, p, training, feature=True, inplace=inplace))


def dropout2d(input, p=0.5, training=True, inplace=False):
    check_p(p)
    d = input.dim()
    if d not in (3, 4):
        warnings.warn(f"dropout2d: Received a {d}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if d == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=2)
    return dropout_impl(input, p, training, feature=True, inplace=inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    check_p(p)
    d = input.dim()
    if d not in (4, 5):
        warnings.warn(f"dropout3d: Received a {d}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    if d == 5:
        return dropout_impl(input, p, training, feature=True, inplace=inplace)
    return _batched(input, d, inplace, lambda x: dropout_impl(x, p, training, feature=True, inplace=inplace))


NAMES = ("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d")


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """torch's composite: softmax((logits - log(Exp(1) draws)) / tau), straight-through one-hot when hard."""
    from ..factory import empty_like, zeros_like  # noqa: PLC0415
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", UserWarning, stacklevel=2)
    gumbels = -empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft
