"""Views: a tensor that shares its base's memory and version counter (view_of), the live views an
in-place change of their base gives a new grad_fn (live_views, ops/inplace.py), and torch's
message for an in-place change a view's CreationMeta forbids (view_rebase_message)."""
from __future__ import annotations

import weakref

from . import errors
from .autograd_modes import NO_VERSION, InferenceCounter, grad_mode
from .tensor import wrap


def view_of(base, data, dtype=None):
    """A Tensor sharing base's version counter (its data is a view of base's). A view of a tensor that
    requires grad requires grad too, even made under no_grad (then as a leaf), as in torch."""
    t = wrap(data, dtype or base.dtype)
    v = base._version
    # a view of an inference tensor's alias (detach(), .data: an InferenceCounter of its own) has no counter,
    # as the inference tensor's views: torch gives the view the ADInplaceOrView key, whose bump then raises
    t._version = v if v.__class__ is not InferenceCounter else NO_VERSION
    t._rg = base._rg
    root = t._base = base if base._base is None else base._base
    if grad_mode.enabled:  # the views an in-place op of root (or of one of them) gives a new grad_fn
        views = root.__dict__.get("_gs_views")
        if views is None:
            views = root.__dict__["_gs_views"] = []
        elif len(views) >= 32 and not len(views) & (len(views) - 1):  # now and then: drop the dead ones
            views[:] = [r for r in views if r() is not None]
        views.append(weakref.ref(t))
    if t._rg:
        if base._version.__class__ is not list:  # a view of an inference tensor: it has no autograd meta
            t._rg = False
            return t
        # torch's CreationMeta: a view made under no_grad may not be modified in place with grad mode on;
        # a view of such a view (or of an output of split/unbind, marked by record_multi) inherits it.
        # (kind, version at creation): once the base changed in place, the view's grad_fn cannot be redone
        if not grad_mode.enabled:
            t._creation = ("inference" if grad_mode.inference else "no_grad", base._version[0])
            # it requires grad through its base only: no AccumulateGrad of its own (torch's grad_accumulator is
            # null without requires_grad_ set on it), so an op of it records an edge to nothing (Tensor._edge)
            t.__dict__["_gs_no_accumulator"] = True
        elif base._creation is not None:
            if base._creation[1] != base._version[0]:  # (torch: regenerating base's grad_fn)
                raise errors.runtime(view_rebase_message(base, indirect=True))
            t._creation = (base._creation[0], base._version[0])
    return t


def live_views(root):
    """The views of root made in grad mode that are still alive (view_of registers them)."""
    refs = root.__dict__.get("_gs_views")
    if not refs:
        return ()
    views = [r() for r in refs]
    return [v for v in views if v is not None]


def view_rebase_message(t, name=None, indirect=False):
    """torch's handle_view_on_rebase (autograd/variable.cpp) for a view whose CreationMeta forbids an
    in-place change: of the view itself, or (indirect) of its base since the view was made.
    name: the op of a view taken of t (in grad mode) and modified instead, as x[0] = v does (Select)."""
    kind = t._creation[0]
    nr = 0 if name is not None else t._output_nr
    if name is None and t.grad_fn is not None:
        name = t.grad_fn.name()
        name = name[:name.rindex("Backward")] if "Backward" in name else name
    what = "its base or another view of its base has been" if indirect else "is being"
    if kind == "inference":  # (torch asserts such a view has no grad_fn: it is made without one)
        return (f"A view was created in inference mode and {what} modified inplace in normal mode. Given that this "
                "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the "
                "view and the inplace either both inside the inference_mode block (if you don't want the inplace to "
                "be tracked) or both outside (if you want the inplace to be tracked).")
    if kind == "no_grad" or name is None:
        prefix = (f"Output {nr} of {name} is a view of a view which was created in" if name is not None
                  else "A view was created in")
        msg = f"{prefix} no_grad mode and {what} modified inplace with grad mode enabled."
    else:
        msg = f"Output {nr} of {name} is a view and {what} modified inplace."
    if kind == "custom":
        return msg + (" This view was created inside a custom Function (or because an input was returned as-is) and "
                      "the autograd logic to handle view+inplace would override the custom backward associated with "
                      "the custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
                      "this by cloning the output of the custom Function.")
    if kind == "multi":
        return msg + (" This view is the output of a function that returns multiple views. Such functions do not "
                      "allow the output views to be modified inplace. You should replace the inplace operation by "
                      "an out-of-place one.")
    return msg + (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
                  "by moving both the view and the inplace either both inside the no_grad block (if you don't want "
                  "the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
