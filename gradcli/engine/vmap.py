"""torch.func.vmap as a loop: the function runs once per index of the mapped dimension, on each mapped
input's slice there (`select`, a view, as functorch's BatchedTensor is), and each output's slices are
stacked at its out_dim. The arguments' checks and messages are torch/_functorch/vmap.py's.

Where the loop is not functorch's batching (docs/language.md, "torch.func"): the values are the
per-sample computation's, which are the batched kernel's for elementwise ops and can differ from it in
the last bits where torch batches a product or a reduction; the outputs' grad_fn is StackBackward0
(functorch's: the last batched op's node); inside the function a tensor prints as a plain tensor (not
functorch's BatchedTensor), `.item()` and data-dependent control flow work instead of raising; a
random op under randomness='error' raises when the function returns (torch: at the op), under 'same'
every sample draws the same numbers as torch's, and under 'different' it is refused (torch draws the
batch's numbers in one call, which a loop cannot reproduce).
"""
from __future__ import annotations

from . import errors
from .limits import check_shape
from .tensor import Tensor

_RANDOMNESS = ("error", "different", "same")


def _name(func):
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) else repr(func)


def _leaves(tree, out):
    if isinstance(tree, (tuple, list)):
        for x in tree:
            _leaves(x, out)
    elif isinstance(tree, dict):
        for k in tree:
            _leaves(tree[k], out)
    else:
        out.append(tree)
    return out


def _rebuild(tree, it):
    if isinstance(tree, tuple):
        return tuple(_rebuild(x, it) for x in tree)
    if isinstance(tree, list):
        return [_rebuild(x, it) for x in tree]
    if isinstance(tree, dict):
        return {k: _rebuild(tree[k], it) for k in tree}
    return next(it)


def _broadcast(dims, tree, out):
    """pytree's _broadcast_to_and_flatten: dims (a prefix of tree's structure) for each leaf of tree;
    False where the structures do not fit."""
    if dims is None or not isinstance(dims, (tuple, list, dict)):
        out.extend([dims] * len(_leaves(tree, [])))
        return True
    if type(dims) is not type(tree) or len(dims) != len(tree):
        return False
    if isinstance(dims, dict):
        if set(dims) != set(tree):
            return False
        return all(_broadcast(dims[k], tree[k], out) for k in tree)
    return all(_broadcast(d, t, out) for d, t in zip(dims, tree))


def _spec(tree, indent=0):
    """repr of pytree's TreeSpec of tree (its errors show the structures)."""
    if isinstance(tree, (tuple, list, dict)):
        children = [tree[k] for k in tree] if isinstance(tree, dict) else list(tree)
        context = repr(list(tree)) if isinstance(tree, dict) else "None"
        inner = ""
        if children:
            indent += 2
            inner = _spec(children[0], indent) + ("," if len(children) > 1 else "")
            inner += ",".join("\n" + " " * indent + _spec(c, indent) for c in children[1:])
        return f"TreeSpec({type(tree).__name__}, {context}, [{inner}])"
    return "*"


def _check_out_dims(out_dims, func):
    for d in _leaves(out_dims, []) if isinstance(out_dims, (tuple, list, dict)) else [out_dims]:
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             "python collection of ints representing where in the outputs the vmapped dimension "
                             "should appear.")


def _inputs(func, in_dims, args):
    """(batch size, flat in_dims, flat args) of _process_batched_inputs."""
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or "
                         f"a (potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         "trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args = _leaves(args, [])
    flat_dims = []
    if not _broadcast(in_dims, args, flat_dims):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {_spec(in_dims)} but inputs has structure "
                         f"{_spec(args)}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                             "but in_dim must be either an integer dimension or None.")
        if d is not None and not isinstance(arg, Tensor):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                             f"but the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, "
                             "please use None as the respective in_dim")
        if d is not None and (d < -arg.dim() or d >= arg.dim()):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                             f"but that input is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                             f"-{arg.dim()} <= in_dim < {arg.dim()}.")
        if d is not None and d < 0:
            flat_dims[i] = d % arg.dim()
    sizes = [arg.shape[d] for arg, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args


class _Randomness:
    """The default generator's state around each sample: 'error' refuses a draw, 'same' gives every sample
    the first one's numbers (the state after the loop is after one draw, as torch's), 'different' refuses."""

    def __init__(self, mode):
        from .rng_ops import default_generator  # noqa: PLC0415 - random numbers load on first use
        self.gen = default_generator
        self.mode = mode
        self.start = default_generator.get_state_bytes()

    def before(self):
        if self.mode == "same":
            self.gen.set_state_bytes(self.start)

    def after(self):
        if self.mode == "same" or self.gen.get_state_bytes() == self.start:
            return
        self.gen.set_state_bytes(self.start)  # torch refuses the op before it draws
        if self.mode == "error":
            raise errors.runtime("vmap: called random operation while in randomness error mode. Please either use "
                                 "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                 "operation out of vmap")
        if self.mode == "different":
            raise NotImplementedError("vmap(randomness='different') with a random operation inside is not "
                                      "implemented in gradcli (torch draws the whole batch's numbers in one call)")


def _assemble(func, outputs, out_dims):
    """_unwrap_batched over the per-sample outputs: each output leaf's samples stacked at its out_dim."""
    from .ops.join_split import stack  # noqa: PLC0415
    first = outputs[0]
    flat = [_leaves(o, []) for o in outputs]
    if isinstance(first, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            dims = list(out_dims)
        else:
            dims = None
    else:
        dims = []
        if not _broadcast(out_dims, first, dims):
            dims = None
    if dims is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`. out_dims has structure {_spec(out_dims)} but outputs has "
                         f"structure {_spec(first)}.")
    results = []
    for j, d in enumerate(dims):
        column = [f[j] if j < len(f) else None for f in flat]
        if d is None:
            if isinstance(column[0], Tensor) and any(c is not column[0] for c in column):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor when "
                                 "out_dim is None")
            results.append(column[0])
            continue
        for c in column:
            if not isinstance(c, Tensor):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                                 f"{type(c)}. Did you mean to set out_dims= to None for output?")
        results.append(stack(column, d))
    return _rebuild(first, iter(results))


def _structure(tree):
    if isinstance(tree, (tuple, list)):
        return (type(tree), tuple(_structure(x) for x in tree))
    if isinstance(tree, dict):
        return (dict, tuple((k, _structure(v)) for k, v in tree.items()))
    return None


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.func.vmap (torch.vmap): func mapped over a dimension of its inputs."""
    if randomness not in _RANDOMNESS:
        raise errors.runtime(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                             f"{randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        size, flat_dims, flat_args = _inputs(func, in_dims, args)
        if size == 0:
            raise NotImplementedError("vmap over a dimension of size 0 is not implemented in gradcli")
        rand = _Randomness(randomness)
        outputs = []
        for b in range(size):
            sample = [a if d is None else a.select(d, b) for a, d in zip(flat_args, flat_dims)]
            rand.before()
            outputs.append(func(*_rebuild(args, iter(sample)), **kwargs))
            rand.after()
            if b == 0:  # --max-elements: the stacked results, before the other samples are computed
                for leaf in _leaves(outputs[0], []):
                    if isinstance(leaf, Tensor):
                        check_shape((size,) + tuple(leaf.shape))
            if _structure(outputs[-1]) != _structure(outputs[0]):
                raise errors.runtime(f"vmap({_name(func)}, ...): the function returned outputs of another "
                                     "structure for another sample")
        return _assemble(func, outputs, out_dims)
    name = getattr(func, "__name__", None)
    if isinstance(name, str):  # functools.wraps, as torch's: a vmap of a vmap names the function in its errors
        wrapped.__name__ = wrapped.__qualname__ = name
    return wrapped
