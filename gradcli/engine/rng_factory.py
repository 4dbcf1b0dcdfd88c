"""torch's random constructors on the kernels of rng_ops.py: rand, randn, randint, randperm, normal (all
overloads), bernoulli, multinomial and the _like forms, drawing from the same stream in torch's order.
randperm's swaps are sequential in torch and here (a Python loop over n - 1 words)."""
from __future__ import annotations

import builtins

import numpy as np

from . import dtypes, errors
from .autograd import make_node
from .autograd_modes import grad_mode
from .device import host, like
from .function import Function
from .limits import check_numel
from .ops.elementwise_common import c10_name
from .rng import Generator
from .rng_ops import (bernoulli_, cauchy_, check_std, default_generator, exponential_, exponential_values, gen_for,
                      geometric_, get_rng_state, initial_seed, log_normal_, manual_seed, node_class, normal_,
                      random_, seed, set_rng_state, uniform53, uniform_)
from .argcheck import int64_args
from .tensor import Tensor, wrap

_F64 = np.float64


class _NormalTensorBackward(Function):
    """torch.normal with tensor mean/std: zero gradients of their shapes."""
    __slots__ = ()

    def backward(self, g):
        from .factory import zeros  # noqa: PLC0415
        return tuple(zeros(shape, dtype=g.dtype) for shape in self._kw["shapes"])


# ---------------------------------------------------------------------------- constructors

def _empty(size, d, device, name):
    from .factory import uninitialized  # noqa: PLC0415
    return uninitialized(size, d, device)


def _float_dtype(dtype, name):
    from .factory import resolve_dtype  # noqa: PLC0415
    d = resolve_dtype(dtype) or dtypes.defaults.float
    if not d.is_floating_point:
        from .ops.elementwise_common import kernel_error  # noqa: PLC0415
        raise kernel_error(name, d)
    return d


def _sizes(size_args, size, name):
    from .factory import check_size  # noqa: PLC0415
    return check_size(size_args if size is None else (size,), name)


def _done(t, requires_grad):
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise errors.runtime(errors.FLOAT_ONLY_CTOR, hint="float_dtype")
        t._rg = True
    return t


def _fresh(size, d, device, generator, fill, requires_grad, like=None):
    """A new tensor filled by fill(t, generator); like=(input, memory_format): laid out as torch lays out a
    tensor made like input first (the fill runs in memory order: which element gets which draw follows)."""
    with _no_grad():
        t = _empty(size, d, device, "")
        if like is not None:
            from .factory import laid_out  # noqa: PLC0415
            t = laid_out(t, *like)
        fill(t, gen_for(generator, t.device))
    t._version[0] = 0  # torch fills it below the autograd layer: a new tensor is at version 0
    return _done(t, requires_grad)


def _no_grad():
    from .autograd_modes import no_grad  # noqa: PLC0415
    return no_grad()


def randn(*size_args, size=None, generator=None, dtype=None, device=None, requires_grad=False, layout=None,
          out=None, pin_memory=False):
    size = _sizes(size_args, size, "randn")
    d = _float_dtype(dtype, "normal_kernel_cpu")
    return _fresh(size, d, device, generator, lambda t, g: normal_(t, generator=g), requires_grad)


def rand(*size_args, size=None, generator=None, dtype=None, device=None, requires_grad=False, layout=None,
         out=None, pin_memory=False):
    size = _sizes(size_args, size, "rand")
    d = _float_dtype(dtype, "check_uniform_bounds")
    return _fresh(size, d, device, generator, lambda t, g: uniform_(t, generator=g), requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False,
            layout=None, out=None, pin_memory=False):
    from .factory import resolve_dtype  # noqa: PLC0415
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    int64_args(low, high)
    if not isinstance(size, (tuple, list)) and not hasattr(size, "__len__"):
        got = ", ".join(type(v).__name__ for v in (low, high, size))
        raise errors.type_error(f"randint() received an invalid combination of arguments - got ({got}), but "
                                "expected one of:\n * (int high, tuple of ints size, *, torch.Generator generator, "
                                "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
                                "torch.device device = None, bool pin_memory = False, bool requires_grad = False)")
    size = _sizes((size,), None, "randint")
    d = resolve_dtype(dtype) or dtypes.int64
    return _fresh(size, d, device, generator, lambda t, g: random_(t, low, high, generator=g), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, layout=None, out=None,
             pin_memory=False):
    from .factory import resolve_dtype  # noqa: PLC0415
    int64_args(n)  # the parser's int: 2**64 is its ValueError, not the element limit's
    n = builtins.int(n)
    if n < 0:
        raise errors.runtime(f"Trying to create tensor with negative dimension {n}: [{n}]")
    check_numel(n)
    d = resolve_dtype(dtype) or dtypes.int64
    g = gen_for(generator, device)
    perm = np.arange(n, dtype=np.int64)
    if n > 1:
        # sequential in torch too: swap i with i + random() % (n - i). The targets are computed at once,
        # the swaps (each depends on the ones before) in C, else in a Python loop (~0.13 us a swap)
        z = (g.words(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).view(np.int64)
        z += np.arange(n - 1)
        randperm_swaps(perm, z)
    from .factory import finish  # noqa: PLC0415
    return finish(perm.astype(d.np, copy=False), d, device, requires_grad)


def randperm_swaps(perm, targets):
    """For i in order: swap perm[i] and perm[targets[i]] (int64 arrays; targets[i] in [i, len(perm))), in
    place: csrc/rng.c's loop when built (gradcli/native.py), else this one, its reference."""
    from .. import native  # noqa: PLC0415
    mod = native.load("rng")
    if mod is not None:
        mod.randperm_swaps(perm, targets)
        return
    p = perm.tolist()
    for i, j in enumerate(targets.tolist()):
        p[i], p[j] = p[j], p[i]
    perm[:] = p


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False,
           layout=None, out=None, pin_memory=False):
    from .ops import arithmetic as AR  # noqa: PLC0415
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if mt or st:
        ref = mean if mt else std
        shape = np.broadcast_shapes(tuple(mean.shape) if mt else (), tuple(std.shape) if st else ())
        if not st:
            check_std(std)
        elif not bool(np.all(host(std._data) >= 0)):
            raise errors.runtime("normal expects all elements of std >= 0.0")
        g = gen_for(generator, ref.device)
        with _no_grad():
            t = _empty(shape, ref.dtype, ref.device, "normal")
            if mt and not st:  # normal_(0, std) then + mean
                normal_(t, 0.0, float(std), generator=g)
                out = AR.add(t, mean.detach())
            else:
                normal_(t, generator=g)
                out = AR.add(AR.mul(t, std.detach()), mean.detach() if mt else float(mean))
        inputs = tuple(x for x in (mean, std) if isinstance(x, Tensor))
        if grad_mode.enabled and any(x.requires_grad for x in inputs):  # zero gradients, as torch's
            name = "NormalBackward3" if mt and st else "NormalBackward1" if mt else "NormalBackward2"
            out.grad_fn = make_node(node_class(name, _NormalTensorBackward), inputs, out.dtype, (), {"shapes": [x.shape for x in inputs]})
            out._rg = True
        return out
    if size is None:
        raise errors.type_error("normal() received an invalid combination of arguments")
    check_std(std)
    size = _sizes((size,), None, "normal")
    d = _float_dtype(dtype, "normal_kernel_cpu")
    return _fresh(size, d, device, generator, lambda t, g: normal_(t, mean, std, generator=g), requires_grad)


def _like_dtype(input, dtype):
    from .factory import resolve_dtype  # noqa: PLC0415
    return resolve_dtype(dtype) or input.dtype


def randn_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None,
               generator=None):
    d = _float_dtype(_like_dtype(input, dtype), "normal_kernel_cpu")
    return _fresh(tuple(input.shape), d, device or input.device, generator, lambda t, g: normal_(t, generator=g),
                  requires_grad, like=(input, memory_format))


def rand_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None,
              generator=None):
    d = _float_dtype(_like_dtype(input, dtype), "check_uniform_bounds")
    return _fresh(tuple(input.shape), d, device or input.device, generator, lambda t, g: uniform_(t, generator=g),
                  requires_grad, like=(input, memory_format))


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False, layout=None,
                 memory_format=None, generator=None):
    if high is None:
        low, high = 0, low
    int64_args(low, high)
    return _fresh(tuple(input.shape), _like_dtype(input, dtype), device or input.device, generator,
                  lambda t, g: random_(t, low, high, generator=g), requires_grad, like=(input, memory_format))


def bernoulli(input, p=None, *, generator=None, out=None):
    with _no_grad():
        t = _empty(tuple(input.shape), input.dtype, input.device, "bernoulli")
        bernoulli_(t, input if p is None else p, generator=generator)
    t._version[0] = 0  # as _fresh
    return t


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    int64_args(num_samples)
    data = host(input._data)
    if input.dim() not in (1, 2):
        raise errors.runtime("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise errors.runtime(f"multinomial only supports floating-point dtypes for input, got: {c10_name(input.dtype)}")
    n_cat = data.shape[-1]
    if num_samples <= 0:
        raise errors.runtime("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n_cat:
        raise errors.runtime("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    check_numel((data.size // max(1, n_cat)) * int(num_samples))
    g = gen_for(generator, input.device, "multinomial")
    rows = data.reshape(-1, n_cat)
    if not replacement or num_samples == 1:
        if not (np.all(rows < np.inf) and np.all(rows >= 0)):
            raise errors.runtime("probability tensor contains either `inf`, `nan` or element < 0")
        if np.any(rows.sum(axis=-1) == 0):
            raise errors.runtime("invalid multinomial distribution (sum of probabilities <= 0)")
        q = exponential_values(g, rows.size, 1.0).astype(rows.dtype).reshape(rows.shape)
        ratio = rows / q
        if num_samples == 1:
            res = np.argmax(ratio, axis=-1)[:, None]
        else:
            res = np.argsort(-ratio, axis=-1, kind="stable")[:, :num_samples]
    else:
        res = _with_replacement(g, rows, num_samples)
    res = res.reshape(data.shape[:-1] + (num_samples,)).astype(np.int64)
    return wrap(like(input._data, res), dtypes.int64)


def _with_replacement(g, rows, num_samples):
    """multinomial_with_replacement, all rows at once: each row's cumulative sum in the probs' dtype
    over its total, the last entry 1; row by row, num_samples 53-bit uniforms each (so all of them in
    one draw, row-major) and the left searchsorted. The rows' searches are one search in
    (row, cumulative) pairs, as complex numbers (NumPy orders those by real part, then imaginary).
    A bad row raises after the rows before it have drawn, as the row loop does."""
    n_rows, n_cat = rows.shape
    invalid = np.any(rows < 0, axis=1) | ~np.all(np.isfinite(rows), axis=1)
    with np.errstate(all="ignore"):
        cum = np.cumsum(rows.astype(_F64), axis=1).astype(rows.dtype)
    total = cum[:, -1]
    bad = np.flatnonzero(invalid | ~(total > 0))
    good = bad[0] if bad.size else n_rows
    u = uniform53(g, good * num_samples)
    if bad.size:
        if invalid[good]:
            raise errors.runtime("invalid multinomial distribution (encountering probability entry < 0)")
        raise errors.runtime("invalid multinomial distribution (sum of probabilities <= 0)")
    cum = (cum / total[:, None]).astype(rows.dtype)
    cum[:, -1] = 1
    row = np.arange(n_rows, dtype=_F64)
    hay = np.empty((n_rows, n_cat), np.complex128)
    hay.real = row[:, None]
    hay.imag = cum
    needles = np.empty(n_rows * num_samples, np.complex128)
    needles.real = np.repeat(row, num_samples)
    needles.imag = u
    idx = np.searchsorted(hay.reshape(-1), needles, side="left") - np.repeat(np.arange(n_rows) * n_cat, num_samples)
    return idx.reshape(n_rows, num_samples)


# the Tensor methods of the random kernels (methods.py installs them)
TENSOR_METHODS = {"uniform_": uniform_, "normal_": normal_, "random_": random_, "exponential_": exponential_,
                  "bernoulli_": bernoulli_, "geometric_": geometric_, "log_normal_": log_normal_,
                  "cauchy_": cauchy_, "bernoulli": bernoulli, "multinomial": multinomial}
# torch.X
TORCH = {"manual_seed": manual_seed, "seed": seed, "initial_seed": initial_seed, "get_rng_state": get_rng_state,
         "set_rng_state": set_rng_state, "randn": randn, "rand": rand, "randint": randint, "randperm": randperm,
         "normal": normal, "randn_like": randn_like, "rand_like": rand_like, "randint_like": randint_like,
         "bernoulli": bernoulli, "multinomial": multinomial, "Generator": Generator,
         "default_generator": default_generator}
