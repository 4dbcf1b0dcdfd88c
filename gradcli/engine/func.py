"""torch.func's transforms: grad, grad_and_value, vjp, jacrev, jvp, jacfwd, hessian, ported from
torch/_functorch/eager_transforms.py over the engine's reverse mode (autograd_api.grad with
create_graph, so a transform of a transform differentiates again). Where functorch wraps the inputs at
a new level, this makes them differentiable (a detached copy requiring grad, or the input itself when it
already requires grad: the transforms nest); the results are detached unless an input required grad
outside. jacrev goes one output element at a time (functorch's vmap of vjp over the standard basis:
the same products, each with one non-zero); jvp and jacfwd (one tangent per basis vector) walk the
recorded graph forward node by node (forward_walk.py: torch's forward formulas where the bits need
them); a graph the walk cannot take pushes tangents forward by the double-vjp trick (the products of
forward mode's shape: each output element's tangent, signed zeros included);
hessian is jacfwd(jacrev(f)) as functorch's. vmap is a loop over the mapped dimension (vmap.py);
functional_call and stack_module_state are func_call.py's.
"""
from __future__ import annotations

from . import errors, gelu_kernel
from .autograd_modes import enable_grad
from .autograd_api import grad as _autograd_grad
from .limits import check_numel, check_shape
from .tensor import Tensor
from .func_call import functional_call, stack_module_state  # noqa: F401 - torch.func's names (NAMES)
from .vmap import vmap  # noqa: F401
from .forward_walk import Recording, walk

NAMES = ("grad", "grad_and_value", "vjp", "jacrev", "hessian", "jvp", "jacfwd", "vmap", "functional_call",
         "stack_module_state")


def _zeros_like(t):
    from .factory import zeros_like  # noqa: PLC0415
    return zeros_like(t)


def _stack(ts, dim=0):
    from .ops.join_split import stack  # noqa: PLC0415
    return stack(ts, dim)


def _wrap_argnum(argnum, num_args):
    if type(argnum) is not int:
        raise errors.runtime(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise errors.runtime(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _argnums(argnums, num_args):
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise errors.runtime("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise errors.runtime(f"argnums elements must be unique, got {argnums}")
        return tuple(_wrap_argnum(a, num_args) for a in argnums)
    if type(argnums) is int:
        return _wrap_argnum(argnums, num_args)
    raise errors.runtime(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _flatten(tree, out):
    """The tensors of a (nested) tuple/list/dict of tensors, in functorch's order (pytree's)."""
    if isinstance(tree, Tensor):
        out.append(tree)
    elif isinstance(tree, (tuple, list)):
        for x in tree:
            _flatten(x, out)
    elif isinstance(tree, dict):
        for k in tree:
            _flatten(tree[k], out)
    else:
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(tree)}")
    return out


def _rebuild(tree, it):
    if isinstance(tree, Tensor):
        return next(it)
    if isinstance(tree, tuple):
        return tuple(_rebuild(x, it) for x in tree)
    if isinstance(tree, list):
        return [_rebuild(x, it) for x in tree]
    return {k: _rebuild(tree[k], it) for k in tree}


def _differentiable(t):
    """The input as functorch's wrapper sees it: differentiable at this level."""
    if t.requires_grad:  # an outer transform's input, or a tensor requiring grad: differentiable as it is
        return t
    return t.detach().requires_grad_(True)


def _undo(tree, keep):
    if isinstance(tree, Tensor):
        return tree if keep else tree.detach()
    if isinstance(tree, tuple):
        return tuple(_undo(x, keep) for x in tree)
    if isinstance(tree, list):
        return [_undo(x, keep) for x in tree]
    if isinstance(tree, dict):
        return {k: _undo(v, keep) for k, v in tree.items()}
    return tree


def _prepare(args, argnums):
    """(new args, the differentiable part as argnums selects it, its tensors, whether an outer graph exists)."""
    nums = _argnums(argnums, len(args))
    args = list(args)
    outer = False
    for i in (nums if isinstance(nums, tuple) else (nums,)):
        flat = _flatten(args[i], [])
        outer = outer or any(t.requires_grad for t in flat)
        args[i] = _rebuild(args[i], iter([_differentiable(t) for t in flat]))
    diff = tuple(args[i] for i in nums) if isinstance(nums, tuple) else args[nums]
    return args, diff, _flatten(diff, []), outer


def _split_aux(output, has_aux, api):
    """(output, aux) of f's result: with has_aux f returns the pair (aux None without)."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise errors.runtime(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def _call_prepared(func, args, kwargs, argnums, has_aux, api):
    """func called on args made differentiable where argnums selects (under enable_grad, by the caller):
    (args, the differentiable part, its tensors, whether an outer graph exists, output, aux)."""
    args, diff, flat, outer = _prepare(args, argnums)
    output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
    return args, diff, flat, outer, output, aux


def _grads(outputs, inputs, grad_outputs=None):
    if not any(o.requires_grad for o in outputs):  # f did not use its inputs: zero gradients (functorch's)
        return [_zeros_like(x) for x in inputs]
    res = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True, allow_unused=True)
    return [(_zeros_like(x) if g is None else g) for g, x in zip(res, inputs)]


def grad_and_value(func, argnums=0, has_aux=False):
    """torch.func.grad_and_value."""
    def wrapper(*args, **kwargs):
        with enable_grad():
            _, diff, flat, outer, output, aux = _call_prepared(func, args, kwargs, argnums, has_aux,
                                                               "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise errors.runtime(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                     f"{type(output)}")
            if output.dim() != 0:
                raise errors.runtime("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                     f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                                     "APIs instead?")
            g = _rebuild(diff, iter(_grads((output,), flat)))
            g, output, aux = _undo(g, outer), _undo(output, outer), _undo(aux, outer)
        return (g, (output, aux)) if has_aux else (g, output)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """torch.func.grad."""
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = inner(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """torch.func.vjp: (func(*primals), vjp_fn) (and aux)."""
    with enable_grad():
        args, _, flat, outer, output, aux = _call_prepared(func, primals, {}, tuple(range(len(primals))),
                                                           has_aux, "vjp(f, *primals)")
        flat_out = _flatten(output, [])

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot = _flatten(cotangents, [])
        if len(flat_cot) != len(flat_out):
            raise errors.runtime("Expected pytree structure of cotangents to be the same as pytree structure of "
                                 "outputs to the function.")
        with enable_grad():
            res = _grads(flat_out, flat, flat_cot)
        return _undo(_rebuild(tuple(args), iter(res)), outer)

    out = _undo(output, outer)
    return (out, vjp_fn, _undo(aux, outer)) if has_aux else (out, vjp_fn)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """torch.func.jacrev: the Jacobian of each output with respect to the inputs argnums selects."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    def wrapper(*args, **kwargs):
        with enable_grad():
            _, diff, flat, outer, output, aux = _call_prepared(func, args, kwargs, argnums, has_aux,
                                                               "jacrev(f, ...)(*args)")
            flat_out = _flatten(output, [])
            jacs = []
            for o in flat_out:
                n = o.numel()
                for x in flat:  # --max-elements: each block of the result, before the rows are made
                    check_shape(tuple(o.shape) + tuple(x.shape))
                rows = []
                with gelu_kernel.batched_over_basis():
                    for k in range(n):
                        basis = _zeros_like(o).reshape(-1)
                        basis[k] = 1
                        rows.append(_grads((o,), flat, (basis.reshape(o.shape),)))
                per_input = []
                for j, x in enumerate(flat):
                    if n:
                        per_input.append(_stack([r[j] for r in rows]).reshape(tuple(o.shape) + tuple(x.shape)))
                    else:
                        per_input.append(_zeros_like(x).reshape(-1)[:0].reshape(tuple(o.shape) + tuple(x.shape)))
                jacs.append(_rebuild(diff, iter(per_input)))
            jac = _rebuild(output, iter(jacs))
            jac, aux = _undo(jac, outer), _undo(aux, outer)
        return (jac, aux) if has_aux else jac
    return wrapper


def _pushforward(outs, x, tangents_of_x):
    """J v for each v of tangents_of_x (x's shape), the output tensors' tangents: the double-vjp trick
    (the gradient of J^T u with respect to a dummy cotangent u, along v), whose products have forward
    mode's shape (the tangent's element on each output, its signed zeros included)."""
    if not any(o.requires_grad for o in outs):  # f did not use its inputs: zero tangents
        return [[_zeros_like(o) for o in outs] for _ in tangents_of_x]
    us = [_zeros_like(o).requires_grad_(True) for o in outs]
    (gx,) = _autograd_grad(outs, (x,), us, create_graph=True, allow_unused=True)
    cols = []
    for v in tangents_of_x:
        if gx is None or not gx.requires_grad:
            cols.append([_zeros_like(o) for o in outs])
            continue
        res = _autograd_grad((gx,), us, (v,), create_graph=True, allow_unused=True)
        cols.append([_zeros_like(o) if r is None else r for r, o in zip(res, outs)])
    return cols


def _walk_columns(rec, x, basis, outs):
    """J v for each v of the basis by the forward walk (None when the graph cannot be walked)."""
    cols = []
    for v in basis:
        col = walk(rec, [x], [v], outs)
        if col is None:
            return None
        cols.append([_zeros_like(o) if t is None else t for t, o in zip(col, outs)])
    return cols


def _check_outputs(output, api):
    if isinstance(output, Tensor):
        return
    if not isinstance(output, tuple):
        raise errors.runtime(f"{api}: Expected output of f to be a Tensor or Tensors, got {type(output)}")
    if len(output) == 0:
        raise errors.runtime(f"{api}: Expected output of f to be a non-empty tuple of Tensors.")
    for out in output:
        if not isinstance(out, Tensor):
            raise errors.runtime(f"{api}: Expected output of f to be a Tensor or Tensors, got {type(out)} as an "
                                 "output")


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """torch.func.jvp: (func(*primals), its Jacobian times tangents)."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise errors.runtime(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, flat_t = _flatten(primals, []), _flatten(tangents, [])
    if len(flat_p) != len(flat_t):
        raise errors.runtime(f"{api}: Expected primals and tangents to have the same python structure. For "
                             "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
                             f"with structure {len(flat_p)} tensors and tangents with structure {len(flat_t)}")
    for p_, t_ in zip(flat_p, flat_t):
        if tuple(p_.shape) != tuple(t_.shape):
            raise errors.runtime(f"{api}: Expected primals and tangents to have the same shape. Got "
                                 f"primal of shape {tuple(p_.shape)} and tangent of shape {tuple(t_.shape)}")
    with enable_grad():
        with Recording() as rec:
            _, _, flat, outer, output, aux = _call_prepared(func, primals, {}, tuple(range(len(primals))), has_aux,
                                                            api)
        _check_outputs(output, api)
        outs = _flatten(output, [])
        total = walk(rec, flat, flat_t, outs)
        if total is not None:
            total = [_zeros_like(o) if t is None else t for t, o in zip(total, outs)]
        else:
            total = [None] * len(outs)
            for x, t in zip(flat, flat_t):
                (col,) = _pushforward(outs, x, (t,))
                total = [c if s is None else s + c for s, c in zip(total, col)]
        tangent_out = _rebuild(output, iter(total))
        res = (_undo(output, outer), _undo(tangent_out, outer))
    return res + (_undo(aux, outer),) if has_aux else res


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """torch.func.jacfwd: the Jacobian column by column (one tangent per input element)."""
    del randomness  # vmap's randomness mode: no vmap here, the function runs once per call

    def wrapper(*args, **kwargs):
        with enable_grad():
            with Recording() as rec:
                _, diff, flat, outer, output, aux = _call_prepared(func, args, kwargs, argnums, has_aux,
                                                                   "jacfwd(f, ...)(*args)")
            _check_outputs(output, "jacfwd(f, ...)(*args)")
            outs = _flatten(output, [])
            per_out = [[] for _ in outs]
            for x in flat:
                check_numel(x.numel() * x.numel())  # the basis (torch's vmap over an identity of that size)
                for o in outs:
                    check_shape(tuple(o.shape) + tuple(x.shape))
                basis = []
                for k in range(x.numel()):
                    e = _zeros_like(x).reshape(-1)
                    e[k] = 1
                    basis.append(e.reshape(x.shape))
                with gelu_kernel.batched_over_basis():
                    cols = _walk_columns(rec, x, basis, outs)
                    if cols is None:
                        cols = _pushforward(outs, x, basis)
                for i, o in enumerate(outs):
                    shape = tuple(o.shape) + tuple(x.shape)
                    if cols:
                        per_out[i].append(_stack([c[i] for c in cols], -1).reshape(shape))
                    else:
                        per_out[i].append(_zeros_like(o).reshape(-1)[:0].reshape(shape))
            jac = _rebuild(output, iter([_rebuild(diff, iter(p)) for p in per_out]))
            jac, aux = _undo(jac, outer), _undo(aux, outer)
        return (jac, aux) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """torch.func.hessian: jacfwd(jacrev(func))."""
    return jacfwd(jacrev(func, argnums), argnums)

