"""torch.autograd.gradcheck / gradgradcheck for gradcli's engine.

gradcheck compares the engine's backward (the analytical Jacobian, one backward pass per output
element, or one vector-Jacobian product in fast mode) with float64 central differences (the
numerical Jacobian), for every input that requires grad and every floating output. gradgradcheck
does the same for the function that maps (inputs, grad_outputs) to the first-order gradients,
built with create_graph=True: it checks the second-order graph the backward formulas record.

Like torch's, they return True, or raise RuntimeError ("Jacobian mismatch for output 0 with
respect to input 0,\\nnumerical:...\\nanalytical:...") unless raise_exception=False (then False).
"""
from __future__ import annotations

import warnings

import numpy as np

from . import dtypes, errors
from .autograd_modes import grad_mode
from .autograd_api import grad as _grad
from .device import host, is_host, like
from .tensor import Tensor, wrap

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """torch.autograd.gradcheck.GradcheckError (a RuntimeError)."""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_diff(t):
    return isinstance(t, Tensor) and t._rg and t.dtype.is_floating_point


def _outputs(func, inputs):
    with _grad_enabled(True):
        out = func(*inputs)
    for o in out if isinstance(out, (tuple, list)) else (out,):
        if not _tensors(o):  # torch reads o.requires_grad of each output (None, a number: no tensor)
            from .argcheck import typename  # noqa: PLC0415
            raise AttributeError(f"'{typename(o)}' object has no attribute 'requires_grad'")
    return tuple(_tensors(out))


def _tensors(out):
    """The Tensors of a result: nested tuples and lists (named tuples included) flattened."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return [out] if isinstance(out, Tensor) else []


class _grad_enabled:
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = grad_mode.enabled
        grad_mode.enabled = self.mode

    def __exit__(self, *exc):
        grad_mode.enabled = self.prev
        return False


def _flat_values(outs):
    """Every floating output flattened to float64 (non-floating outputs are not differentiated)."""
    return [np.asarray(host(o._data), dtype=np.float64).reshape(-1).copy() if o.dtype.is_floating_point else None
            for o in outs]


def _numerical_jacobian(func, inputs, eps):
    """J[o][i] of shape (numel(out o), numel(in i)) by central differences, perturbing in place."""
    outs0 = _outputs(func, inputs)
    jac = [[None] * len(inputs) for _ in outs0]
    for i, x in enumerate(inputs):
        if not _is_diff(x):
            continue
        flat = x._data.reshape(-1)  # a view: the perturbation is seen by func
        if not (np.shares_memory(flat, x._data) if is_host(flat) else x._data.flags.c_contiguous):
            raise GradcheckError(f"gradcheck needs input {i} to be contiguous")
        n = flat.size
        cols = [np.zeros((0 if o0 is None else o0.size, n)) for o0 in _flat_values(outs0)]
        for j in range(n):
            orig = flat[j].item()
            flat[j] = orig + eps
            plus = _flat_values(_outputs(func, inputs))
            flat[j] = orig - eps
            minus = _flat_values(_outputs(func, inputs))
            flat[j] = orig
            for o, (p, m) in enumerate(zip(plus, minus)):
                if p is not None:
                    cols[o][:, j] = (p - m) / (2 * eps)
        for o in range(len(outs0)):
            jac[o][i] = cols[o]
    return outs0, jac


def _analytical_jacobian(outs, inputs):
    """J[o][i] from the engine: one backward pass per output element (grad_outputs one-hot)."""
    diff = [i for i, x in enumerate(inputs) if _is_diff(x)]
    jac = [[None] * len(inputs) for _ in outs]
    for o, out in enumerate(outs):
        m = out._data.size if out.dtype.is_floating_point else 0
        for i in diff:
            jac[o][i] = np.zeros((m, inputs[i]._data.size))
        if m == 0 or not out._rg:
            continue
        for k in range(m):
            onehot = np.zeros(m, dtype=out.dtype.np)
            onehot[k] = 1
            gs = _grad(out, [inputs[i] for i in diff],
                       grad_outputs=wrap(like(out._data, onehot.reshape(out._data.shape)), out.dtype),
                       retain_graph=True, allow_unused=True)
            for i, g in zip(diff, gs):
                if g is None:
                    continue
                if tuple(g.shape) != tuple(inputs[i].shape):
                    raise GradcheckError(f"Gradient has shape mismatch for input {i}: expected "
                                         f"{inputs[i].shape}, got {g.shape}")
                if g.dtype is not inputs[i].dtype:
                    raise GradcheckError(f"Gradient has dtype mismatch for input {i}: expected "
                                         f"{inputs[i].dtype}, got {g.dtype}")
                jac[o][i][k, :] = np.asarray(host(g._data), np.float64).reshape(-1)
    return jac


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _check_inputs(inputs):
    if not any(_is_diff(x) for x in inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for i, x in enumerate(inputs):
        if _is_diff(x) and x.dtype is not dtypes.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", UserWarning, stacklevel=3)


def _fmt(a):
    return repr(wrap(np.asarray(a, np.float64), dtypes.float64))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None, seed=0):
    """True when the engine's gradients of func at inputs match float64 central differences."""
    if not (check_forward_ad or check_backward_ad):
        raise errors.assertion("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise errors.assertion("Setting check_batched_grad=True requires check_backward_ad to be True")
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    if fast_mode and check_backward_ad:
        return _fast_gradcheck(func, inputs, eps, atol, rtol, raise_exception, seed, check_undefined_grad,
                               nondet_tol)
    outs, numerical = _numerical_jacobian(func, inputs, eps)
    if check_forward_ad and not _forward_ad_matches(func, inputs, numerical, atol, rtol, raise_exception):
        return False
    if not check_backward_ad:
        return True
    if not any(o._rg for o in outs if o.dtype.is_floating_point):
        for o, row in enumerate(numerical):
            for i, n in enumerate(row):
                if n is not None and not np.allclose(n, 0.0, rtol=rtol, atol=atol):
                    return _fail("Numerical gradient for function expected to be zero", raise_exception)
        return True
    analytical = _analytical_jacobian(outs, inputs)
    for o, (nrow, arow) in enumerate(zip(numerical, analytical)):
        for i, (n, a) in enumerate(zip(nrow, arow)):
            if n is None:
                continue
            if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
                return _fail(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                             f"numerical:{_fmt(n)}\nanalytical:{_fmt(a)}\n", raise_exception)
    again = _analytical_jacobian(outs, inputs)
    for o, (arow, brow) in enumerate(zip(analytical, again)):
        for i, (a, b) in enumerate(zip(arow, brow)):
            if a is not None and not np.allclose(a, b, rtol=0.0, atol=nondet_tol, equal_nan=True):
                return _fail(_NOT_REENTRANT.format(nondet_tol), raise_exception)
    return _zero_grad_checks(func, inputs, outs, check_undefined_grad, raise_exception)


_NOT_REENTRANT = ("Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                  "gives different values, although analytical gradient matches numerical gradient.The tolerance "
                  "for nondeterminism was {}.")
_UNDEFINED_NOTE = 'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'


def _zero_grad_checks(func, inputs, outs, check_undefined_grad, raise_exception):
    """torch's last two backward checks, each a backward pass a custom Function's backward sees:
    _test_backward_mul_by_grad_output (zero grad_outputs give zero or no input gradients, of the inputs'
    dtypes and sizes) and _test_undefined_backward_mode (func called again, its outputs' grads undefined,
    which reach a backward materialized as zeros; once more per output when there are several)."""
    diff = [x for x in inputs if _is_diff(x)]
    outs = [o for o in outs if o.dtype.is_floating_point and o._rg]
    if not outs or not diff:
        return True
    gs = _grad(outs, diff, grad_outputs=_zeros_for(outs), allow_unused=True)
    for gi, di in zip(gs, diff):
        if gi is None:
            continue
        if not bool((host(gi._data) == 0).all()):
            return _fail("backward not multiplied by grad_output", raise_exception)
        if gi.dtype is not di.dtype:
            return _fail("grad is incorrect type", raise_exception)
        if tuple(gi.shape) != tuple(di.shape):
            return _fail("grad is incorrect size", raise_exception)
    if not check_undefined_grad:
        return True
    for _ in range(1 + (len(outs) if len(outs) > 1 else 0)):
        fresh = [o for o in _outputs(func, inputs) if o.dtype.is_floating_point and o._rg]
        try:
            gs = _grad(fresh, diff, grad_outputs=_zeros_for(fresh), allow_unused=True)
        except RuntimeError:
            _warn_undefined_bc()
            return _fail(f"Expected backward function to handle undefined output grads. {_UNDEFINED_NOTE}",
                         raise_exception)
        if any(g is not None and not bool((host(g._data) == 0).all()) for g in gs):
            _warn_undefined_bc()
            return _fail("Expected all input grads to be undefined or zero when all output grads are undefined or "
                         f"zero. {_UNDEFINED_NOTE}", raise_exception)
    return True


def _zeros_for(outs):
    return [wrap(like(o._data, np.zeros(o._data.shape, o.dtype.np)), o.dtype) for o in outs]


def _warn_undefined_bc():
    warnings.warn("Backwards compatibility: New undefined gradient support checking feature is enabled by default, "
                  "but it may break existing callers of this function. If this is true for you, you can call this "
                  'function with "check_undefined_grad=False" to disable the feature', UserWarning, stacklevel=4)


def _forward_ad_matches(func, inputs, numerical, atol, rtol, raise_exception):
    """check_forward_ad: J[o][i] from forward AD (one dual-level call per input element, a one-hot tangent:
    torch's _get_analytical_jacobian_forward_ad) against the numerical one."""
    from . import forward_ad as fw  # noqa: PLC0415
    for i, x in enumerate(inputs):
        if not _is_diff(x):
            continue
        n = x._data.size
        cols = [None if row[i] is None else np.zeros(row[i].shape) for row in numerical]
        for j in range(n):
            onehot = np.zeros(n, dtype=x.dtype.np)
            onehot[j] = 1
            with fw.dual_level():
                args = list(inputs)
                args[i] = fw.make_dual(x, wrap(like(x._data, onehot.reshape(x._data.shape)), x.dtype))
                outs = _outputs(func, args)
                tangents = [fw.unpack_dual(o).tangent for o in outs]
            for o, t in enumerate(tangents):
                if cols[o] is not None and t is not None:
                    cols[o][:, j] = np.asarray(host(t._data), np.float64).reshape(-1)
        for o, (row, a) in enumerate(zip(numerical, cols)):
            if a is not None and not np.allclose(a, row[i], rtol=rtol, atol=atol, equal_nan=True):
                return _fail(f"Jacobian computed with forward mode mismatch for output {o} with respect to input "
                             f"{i},\nnumerical:{_fmt(row[i])}\nanalytical:{_fmt(a)}\n", raise_exception)
    return True


def _fast_gradcheck(func, inputs, eps, atol, rtol, raise_exception, seed, check_undefined_grad, nondet_tol):
    """torch's fast mode: compare v^T (J u) by central differences along u with (v^T J) u from a
    backward pass per output (run twice: torch's reentrancy check), for random u (per input) and v (per
    output); the differences first, then the backward passes, as torch orders them."""
    rng = np.random.default_rng(seed)
    outs = _outputs(func, inputs)
    diff = [i for i, x in enumerate(inputs) if _is_diff(x)]
    us = {i: rng.uniform(-1, 1, inputs[i]._data.shape) for i in diff}
    vs = [rng.uniform(-1, 1, o._data.shape) if o.dtype.is_floating_point else None for o in outs]
    numerical = {}
    for i in diff:
        x = inputs[i]
        orig = x._data.copy()
        x._data[...] = orig + like(orig, eps * us[i])
        plus = _flat_values(_outputs(func, inputs))
        x._data[...] = orig - like(orig, eps * us[i])
        minus = _flat_values(_outputs(func, inputs))
        x._data[...] = orig
        for o in range(len(outs)):
            if vs[o] is not None:
                numerical[o, i] = float(np.dot(vs[o].reshape(-1), (plus[o] - minus[o]) / (2 * eps)))
    analytical = {}
    xs = [inputs[i] for i in diff]
    for o, out in enumerate(outs):
        if vs[o] is None:
            continue
        gs = [None] * len(diff)
        if out._rg:
            go = wrap(like(out._data, vs[o].astype(out.dtype.np)), out.dtype)
            gs = _grad(out, xs, grad_outputs=go, retain_graph=True, allow_unused=True)
            again = _grad(out, xs, grad_outputs=go, retain_graph=True, allow_unused=True)
            for g, h in zip(gs, again):
                if g is not None and h is not None and not np.allclose(host(g._data), host(h._data), rtol=0.0,
                                                                       atol=nondet_tol, equal_nan=True):
                    return _fail(_NOT_REENTRANT.format(nondet_tol), raise_exception)
        for i, g in zip(diff, gs):
            analytical[o, i] = 0.0 if g is None else float(
                np.dot(np.asarray(host(g._data), np.float64).reshape(-1), us[i].reshape(-1)))
    for i in diff:
        for o in range(len(outs)):
            if (o, i) not in numerical:
                continue
            n, a = numerical[o, i], analytical[o, i]
            if not np.isclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
                return _fail(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                             f"numerical:{_fmt(n)}\nanalytical:{_fmt(a)}\n", raise_exception)
    return _zero_grad_checks(func, inputs, outs, check_undefined_grad, raise_exception)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False, seed=0):
    """gradcheck of (inputs, grad_outputs) -> the first-order gradients built with create_graph=True."""
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    diff = [x for x in inputs if _is_diff(x)]
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        outs = _outputs(func, inputs)
        grad_outputs = tuple(
            _leaf(like(o._data, rng.uniform(-1, 1, o._data.shape).astype(o.dtype.np)), o.dtype)
            for o in outs if o.dtype.is_floating_point and o._rg)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_order(*args):
        xs, gos = args[:n_in], args[n_in:]
        outs = [o for o in _outputs(func, xs) if o.dtype.is_floating_point and o._rg]
        if not outs:
            return ()
        gs = _grad(outs, [x for x in xs if _is_diff(x)], grad_outputs=list(gos[:len(outs)]), create_graph=True,
                   allow_unused=True)
        return tuple(g for g in gs if g is not None)

    if not diff:
        return True
    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     fast_mode=fast_mode, seed=seed)


def _leaf(array, dtype):
    t = wrap(array, dtype)
    t._rg = True
    return t
