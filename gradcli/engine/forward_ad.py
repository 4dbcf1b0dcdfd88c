"""torch.autograd.forward_ad: dual tensors, forward-mode AD computed eagerly, op by op.

A dual tensor is a Tensor that carries a tangent for the live level (its `_fwt`: the level and the
tangent). While a level is entered, the recorders of function.py hand every op to `Level.push` before
their own checks (autograd.forward_level); where an input carries a tangent, the op's node is recorded
once more on a shadow of its inputs (the tangent-carrying ones as leaves that require grad, the others
as they are, detached) and the node's Jacobian-vector product gives the output's tangent: the same
forward formulas as torch.func.jvp's walk (forward_walk.node_tangents: RULES, else the double-vjp trick
on that node), so each op's derivative is still written once. The shadow graph is dropped; a tangent is
a plain tensor (it does not carry a reverse-mode graph of its own, as torch's may where a primal
requires grad). Exiting the level forgets every tangent made in it. Custom Functions give their
outputs' tangents by their `jvp` staticmethod (custom_function.py).

Only one level at a time, as torch ("Nested forward mode AD is not supported at the moment").
"""
from __future__ import annotations

from typing import NamedTuple

from . import errors
from .autograd import forward_level, set_node_observer
from .autograd_modes import grad_mode
from .dtypes import FLOAT
from .tensor import Tensor

NAMES = ("UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level")

_current = [-1]   # torch's _current_level
_levels = []      # the live Level (at most one)


class Level:
    """A live forward-AD level: the tangents made in it are valid while it is entered."""

    def __init__(self, index):
        self.index = index
        self.alive = True
        self.prev_observer = None

    def observe(self, node, inputs, outputs):
        """The node observer while the level is entered: a recorded op's tangents (the ops that record no
        node call push themselves)."""
        from .function import Function  # noqa: PLC0415
        if isinstance(node, Function) and forward_level[0] is self:  # not a custom Function's (push_custom), nor
            # an op of a tangent's own computation (the level paused)
            self.push(type(node), inputs, outputs, node._kw)
        if self.prev_observer is not None:
            self.prev_observer(node, inputs, outputs)

    def push(self, cls, inputs, outs, kw):
        """Record op `cls` applied to inputs (a recorder's arguments) once more on their shadows when some
        input carries a tangent: outs' tangents are that node's Jacobian-vector product, computed when
        first read (an op function may complete its node's kw after recording it: shadow_nodes)."""
        tans = [tangent_of(x) if isinstance(x, Tensor) else None for x in inputs]
        if all(t is None for t in tans) or not any(o.dtype.category == FLOAT for o in outs):
            return
        with _Paused():
            shadows = [_shadow(x, t) for x, t in zip(inputs, tans)]
            aliases = [o.detach() for o in outs]
            from .function import MultiOutputFunction, record, record_multi  # noqa: PLC0415
            if issubclass(cls, MultiOutputFunction):
                record_multi(cls, shadows, aliases, kw)
            else:
                record(cls, shadows, aliases[0], kw)
        node = next((a.grad_fn for a in aliases if a.grad_fn is not None), None)
        if node is None:
            return
        pending = _Pending(cls, node, shadows, aliases, tans, [_is_view(o, inputs) for o in outs])
        if not getattr(cls, "kw_completed_later", False):
            pending.resolve()  # now, before a later in-place op changes what the node saved
        for i, o in enumerate(outs):
            if o.dtype.category == FLOAT:
                o.__dict__["_fwt"] = (self, pending, i)


class _Paused:
    """Inside: no tangents pushed, no node observer told, grad mode on (the shadow nodes' and the
    tangents' own ops)."""

    def __enter__(self):
        self.level = forward_level[0]
        forward_level[0] = None
        self.observer = set_node_observer(None)
        self.mode = grad_mode.enabled
        grad_mode.enabled = True

    def __exit__(self, *exc):
        grad_mode.enabled = self.mode
        set_node_observer(self.observer)
        forward_level[0] = self.level if self.level is not None and self.level.alive else None
        return False


class _Pending:
    """The output tangents of one op, not computed yet: its shadow node and what node_tangents needs."""

    def __init__(self, cls, node, shadows, aliases, tans, views):
        self.cls, self.node, self.shadows, self.aliases, self.tans = cls, node, shadows, aliases, tans
        self.views = views
        self.result = None

    def resolve(self):
        if self.result is None:
            from .forward_walk import node_tangents  # noqa: PLC0415
            try:
                with _Paused():
                    res = node_tangents(self.node, self.shadows, self.aliases, self.tans)
            except RuntimeError as e:
                text = str(e)
                if text.startswith("derivative for ") and text.endswith(" is not implemented"):
                    raise unsupported(text[len("derivative for "):-len(" is not implemented")]) from None
                raise
            self.result = [None if t is None else t.detach() if view else _own(t, self.tans)
                           for t, view in zip(res, self.views)]
            self.node = self.shadows = self.aliases = self.tans = None
        return self.result


def _is_view(out, inputs):
    """Is out a view of an input (its tangent may then be a view of that input's tangent, as torch's)?"""
    from .device import xp_of  # noqa: PLC0415
    xp = xp_of(out._data)
    return any(isinstance(x, Tensor) and xp.may_share_memory(out._data, x._data) for x in inputs)


def _own(t, tans):
    """t detached, copied where it shares memory with an input's tangent (an op that passes its input's
    tangent on, `x + 0`: a later in-place change of one tangent must not reach the other)."""
    from .device import xp_of  # noqa: PLC0415
    xp = xp_of(t._data)
    if any(s is not None and xp.may_share_memory(t._data, s._data) for s in tans):
        from .tensor import detached_copy  # noqa: PLC0415
        return detached_copy(t)
    return t.detach()


def shadow_nodes(t):
    """The shadow node whose tangent t waits for (a list: empty when none), for the op functions that
    complete a node's kw after recording it (their node classes say kw_completed_later; settle(t) after)."""
    v = t.__dict__.get("_fwt")
    if v is None or len(v) != 3 or v[1].node is None:
        return []
    return [v[1].node]


def settle(t):
    """Compute t's tangent now (its op has completed its node's kw)."""
    if "_fwt" in t.__dict__:
        tangent_of(t)


def inplace_result(self, r):
    """self became r's value in place (inplace.rebase): self's tangent becomes r's, written into self's own
    tangent where it has one (the tangent given to make_dual changes with it, as in torch)."""
    new = tangent_of(r) if "_fwt" in r.__dict__ else None
    old = tangent_of(self) if "_fwt" in self.__dict__ else None
    if new is None:
        if old is not None:
            old._data[...] = 0
            old._version[0] += 1
        return
    if old is not None and old.dtype is new.dtype and old._data.flags.writeable:
        old._data[...] = new._data
        old._version[0] += 1
    else:
        from .tensor import detached_copy  # noqa: PLC0415
        set_tangent(self, detached_copy(new))


def push_custom(cls, ctx, args, output):
    """The tangents of a custom Function's outputs: its jvp(ctx, *input tangents), zeros for a tensor input
    without one, None for the other arguments (torch's custom_function_jvp); nothing without a tangent."""
    tans = [tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tans):
        return
    from .factory import zeros_like  # noqa: PLC0415
    tans = [zeros_like(a) if t is None and isinstance(a, Tensor) else t for a, t in zip(args, tans)]
    level = forward_level[0]
    forward_level[0] = None
    try:
        res = cls.jvp(ctx, *tans)
    finally:
        forward_level[0] = level
    outs = output if isinstance(output, tuple) else (output,)
    res = res if isinstance(res, tuple) else (res,)
    for o, t in zip(outs, res):
        if isinstance(o, Tensor) and isinstance(t, Tensor) and o.dtype.category == FLOAT:
            set_tangent(o, t)


def setitem_tangent(input, key, value):
    """input[key] = value inside a level: input's tangent at key becomes value's (zeros for a value without
    one; input without a tangent gets a zero one first, as torch's index_put_ makes it a dual tensor)."""
    new = tangent_of(value) if isinstance(value, Tensor) else None
    old = tangent_of(input)
    if new is None and old is None:
        return
    if input.dtype.category != FLOAT:
        return
    if old is None:
        from .factory import zeros_like  # noqa: PLC0415
        old = zeros_like(input)
        set_tangent(input, old)
    v = 0 if new is None else new._data
    if new is not None and v.ndim > 0 and v.shape[0] == 1:  # as setitem: the value's leading 1s dropped
        v = v.reshape(v.shape[next((i for i, n in enumerate(v.shape) if n != 1), v.ndim):])
    old._data[key] = v
    old._version[0] += 1


def unsupported(opname):
    """torch's error for an op without a derivative (derivatives.yaml's not_implemented) given a tangent."""
    e = NotImplementedError(f"Trying to use forward AD with {opname} that does not support it.")
    e.gradcli_hint = None
    return e


def carries_tangent(inputs):
    """Does one of inputs carry a tangent at the live level?"""
    return any(isinstance(x, Tensor) and tangent_of(x) is not None for x in inputs)


def _shadow(x, tangent):
    if not isinstance(x, Tensor):
        return x
    if tangent is None:
        return x.detach() if x._rg else x
    s = x.detach()
    s._rg = True
    return s


def tangent_of(t):
    """t's tangent at the live level, or None."""
    v = t.__dict__.get("_fwt")
    if v is None:
        return None
    if not v[0].alive:
        del t.__dict__["_fwt"]
        return None
    if len(v) == 3:  # computed now
        tangent = v[1].resolve()[v[2]]
        t.__dict__["_fwt"] = (v[0], tangent)
        return tangent
    return v[1]


def set_tangent(t, tangent):
    t.__dict__["_fwt"] = (_levels[-1], tangent)


# ----------------------------------------------------------------------------- the API

def enter_dual_level():
    """Enter a new forward grad level (torch.autograd.forward_ad.enter_dual_level)."""
    if _levels:
        raise errors.runtime("Nested forward mode AD is not supported at the moment")
    level = Level(_current[0] + 1)
    _levels.append(level)
    _current[0] = level.index
    forward_level[0] = level
    level.prev_observer = set_node_observer(level.observe)
    return level.index


def exit_dual_level(*, level=None):
    """Exit the forward grad level: every tangent made in it is forgotten."""
    if level is None:
        level = _current[0]
    if level < 0:
        raise errors.runtime("Dual level must be a positive number.")
    if level != _current[0]:
        raise errors.runtime("Trying to exit a forward AD level that was not the last one that was created. "
                             "This is not supported.")
    if not _levels:
        raise errors.runtime("Trying to exit a forward AD level that was not the last one that was created. "
                             "This is not supported.")
    done = _levels.pop()
    done.alive = False
    set_node_observer(done.prev_observer)
    forward_level[0] = None
    _current[0] = level - 1


def _type_name(x):
    return type(x).__name__


def _check_level(level):
    if level is None:
        level = _current[0]
    if level < 0 or not _levels:
        raise errors.runtime("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                             "enter_dual_level() first.")
    return level


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: a view of `tensor` carrying `tangent` (as it is when its layout is tensor's, else
    a copy in tensor's layout)."""
    level = _check_level(level)
    for what, x in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(x, Tensor):
            raise AttributeError(f"'{_type_name(x)}' object has no attribute 'is_floating_point'")
        if not (x.is_floating_point() or x.is_complex()):
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {x.dtype}")
    if tangent_of(tensor) is not None:
        raise errors.runtime(f"Making a dual Tensor based on a Tensor that already has a forward gradient at the "
                             f"same level {level} is not supported.")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise errors.runtime("Trying to set a forward gradient that has a different size than that of the original "
                             f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                             f"forward gradient is of size {list(tangent.shape)}.")
    if tangent.dtype is not tensor.dtype or tangent._data.strides != tensor._data.strides:
        tangent = _in_layout_of(tangent, tensor)
    from .ops.shape import view  # noqa: PLC0415
    dual = view(tensor, tuple(tensor.shape))
    set_tangent(dual, tangent)
    return dual


def _in_layout_of(tangent, primal):
    """A copy of tangent's values with primal's dtype and strides (torch's new_empty_strided + copy_)."""
    from .device import xp_of  # noqa: PLC0415
    from .tensor import wrap  # noqa: PLC0415
    xp = xp_of(primal._data)
    arr = xp.empty_like(primal._data)
    arr[...] = tangent._data
    return wrap(arr, primal.dtype)


class UnpackedDualTensor(NamedTuple):
    """Namedtuple returned by unpack_dual containing the primal and tangent components of the dual tensor."""
    primal: Tensor
    tangent: Tensor | None


UnpackedDualTensor.__module__ = "torch.autograd.forward_ad"
UnpackedDualTensor.__gradcli_engine__ = True  # an engine class without code of its own (lang/pyvalues.py)


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of a dual tensor: the primal a view of it without the tangent, the tangent as it is
    (None for a tensor without one; both as given outside a level)."""
    if level is None:
        level = _current[0]
    if level < 0 or not _levels:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {_type_name(tensor)}")
    tangent = tangent_of(tensor)
    level_now = forward_level[0]
    forward_level[0] = None
    try:
        from .ops.shape import view  # noqa: PLC0415
        primal = view(tensor, tuple(tensor.shape))
    finally:
        forward_level[0] = level_now
    return UnpackedDualTensor(primal, tangent)


class dual_level:
    """Context-manager for forward AD: all forward AD computation happens inside a dual_level context."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)
        return wrapped


dual_level.__module__ = "torch.autograd.forward_ad"
