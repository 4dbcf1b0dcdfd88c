"""torch's autograd modes: grad mode (no_grad, enable_grad, set_grad_enabled: `grad_mode.enabled`, read by
every op that records a node), inference mode and anomaly mode (`anomaly_mode`: the backward engine's NaN
check of every backward function's outputs). Global flags, no dependence on the graph (autograd.py) or the
engine (autograd_engine.py)."""
from __future__ import annotations

import functools
import warnings

from . import errors


class _GradMode:
    # enabled: whether ops record (read by every op); inference: torch.inference_mode is on, and then
    # enabled stays False whatever grad mode says (torch excludes the Autograd keys there), the grad mode
    # a script set inside (enable_grad in inference_mode) being `shadow`, what is_grad_enabled() reports
    __slots__ = ("enabled", "inference", "shadow")

    def __init__(self):
        self.enabled = True
        self.inference = False
        self.shadow = False


grad_mode = _GradMode()


def is_grad_enabled():
    return grad_mode.shadow if grad_mode.inference else grad_mode.enabled


def swap_grad(value):
    """Set grad mode to value (inside inference mode: the mode is_grad_enabled reports, ops still do not
    record); returns the previous value, for swap_grad(prev)."""
    if grad_mode.inference:
        prev = grad_mode.shadow
        grad_mode.shadow = value
    else:
        prev = grad_mode.enabled
        grad_mode.enabled = value
    return prev


_CLASS_DECORATION = ("Decorating classes is deprecated and will be disabled in future versions. You should only "
                     "decorate functions or methods. To preserve the current behavior of class decoration, you can "
                     "directly decorate the `__init__` method and nothing else.")


def _callable_of(fn):
    """torch's _DecoratorContextManager.__call__: a class is decorated as a lambda that calls it, with torch's
    FutureWarning (the result prints as that lambda: <function _DecoratorContextManager.__call__.<locals>...>)."""
    if not isinstance(fn, type):
        return fn
    warnings.warn(_CLASS_DECORATION, FutureWarning, stacklevel=3)

    def func(*args, **kwargs):
        return fn(*args, **kwargs)
    func.__name__, func.__qualname__ = "<lambda>", "_DecoratorContextManager.__call__.<locals>.<lambda>"
    return func


class _GradModeContext:
    """Base of no_grad / enable_grad / set_grad_enabled: a context manager and a decorator."""

    _target = True

    def __enter__(self):
        self._prev = swap_grad(self._target)
        return None

    def __exit__(self, *exc):
        swap_grad(self._prev)
        return False

    def __call__(self, fn):
        target = self._target
        fn = _callable_of(fn)

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            prev = swap_grad(target)
            try:
                return fn(*args, **kwargs)
            finally:
                swap_grad(prev)

        return wrapped


GradModeDecorator = _GradModeContext  # what a decorator of grad mode is (the language checks decorators)


class no_grad(_GradModeContext):
    _target = False

    def __repr__(self):
        return f"<torch.autograd.grad_mode.no_grad object at {hex(id(self))}>"


class enable_grad(_GradModeContext):
    _target = True

    def __repr__(self):
        return f"<torch.autograd.grad_mode.enable_grad object at {hex(id(self))}>"


class set_grad_enabled(_GradModeContext):
    def __init__(self, mode):
        if type(mode) is not bool:  # torch takes exactly a bool (not 1, None or a tensor)
            from .argcheck import typename  # noqa: PLC0415
            raise errors.type_error(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                                    f"not {typename(mode)}")
        self._target = mode
        # like torch, the call itself already switches the mode (usable as a plain function)
        self._prev = swap_grad(mode)

    def __enter__(self):
        return None

    def __call__(self, fn):
        swap_grad(self._prev)  # as a decorator: the mode comes back, the function gets it
        return super().__call__(fn)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self._target})"


for _cls in (no_grad, enable_grad, set_grad_enabled):  # <class 'torch.autograd.grad_mode.no_grad'>
    _cls.__module__ = "torch.autograd.grad_mode"

def is_inference_mode_enabled():
    return grad_mode.inference


def _enter_inference(mode):
    """torch's InferenceMode(mode): grad mode becomes `not mode` (inference_mode(False) turns it on again);
    returns the state to give back to _leave_inference."""
    prev = (grad_mode.enabled, grad_mode.inference, grad_mode.shadow)
    grad_mode.inference = mode
    grad_mode.enabled = grad_mode.shadow = not mode
    return prev


def _leave_inference(prev):
    grad_mode.enabled, grad_mode.inference, grad_mode.shadow = prev


class inference_mode(no_grad):
    """torch.inference_mode(mode=True): a context manager and a decorator. Tensors made inside are
    inference tensors (InferenceVersion: no version counter); views of normal tensors stay normal."""

    def __new__(cls, mode=True):
        if mode is not None and mode.__class__ is not bool:  # torch: anything else is the function to decorate
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self._mode = bool(mode)

    def __enter__(self):
        self._prev_state = _enter_inference(self._mode)
        return None

    def __exit__(self, *exc):
        _leave_inference(self._prev_state)
        return False

    def __call__(self, fn):
        mode = self._mode
        fn = _callable_of(fn)

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            prev = _enter_inference(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                _leave_inference(prev)

        return wrapped

    def __repr__(self):
        return f"<torch.autograd.grad_mode.inference_mode object at {hex(id(self))}>"


INPLACE_INFERENCE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
                     "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 "
                     "for more details.")
SAVED_INFERENCE = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                   "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                   "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                   "`torch.inference_mode()`.")
REQUIRES_GRAD_INFERENCE = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."


class InferenceVersion:
    """The version counter of an inference tensor, which has none (c10's VariableVersion without one):
    NO_VERSION, shared by every inference tensor (and by their views and detach(), which share it as
    they share a counter). Inside inference mode it reads 0 and ignores a bump; outside, reading it
    raises torch's in-place error (VariableVersion::bump: every in-place op bumps after its kernel ran,
    `t._version[0] += 1`). So the flag costs nothing where torch does not check it: a tensor's creation
    inside the mode, SavedValue (saved for backward) and requires_grad look at the counter's class."""
    __slots__ = ()

    def __getitem__(self, i):
        if grad_mode.inference:
            return 0
        raise errors.runtime(INPLACE_INFERENCE, hint="inference")

    def __setitem__(self, i, value):
        if not grad_mode.inference:
            raise errors.runtime(INPLACE_INFERENCE, hint="inference")


NO_VERSION = InferenceVersion()


def version_count(t):
    """``t._version``: how many in-place changes its data has had (torch's version counter; an inference
    tensor has none)."""
    v = t._version
    if v is NO_VERSION:
        raise errors.runtime("Inference tensors do not track version counter.")
    return v[0]


class InferenceCounter(list):
    """The version counter of a detach() or .data of an inference tensor made outside inference mode:
    still an inference tensor (no requires_grad, never saved for backward), but torch gives it a
    counter of its own, so it may be changed in place."""
    __slots__ = ()


def inference_alias_version():
    """The version counter of an alias (detach(), .data, nn.Parameter) of an inference tensor: none inside
    the mode, one of its own outside."""
    return NO_VERSION if grad_mode.inference else InferenceCounter((0,))


inference_mode.__module__ = "torch.autograd.grad_mode"


# ----------------------------------------------------------------------------- anomaly mode
# ----------------------------------------------------------------------------- anomaly mode
class _AnomalyMode:
    __slots__ = ("enabled", "check_nan")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


anomaly_mode = _AnomalyMode()

ANOMALY_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                   "enabled for debugging.")


def is_anomaly_enabled():
    return anomaly_mode.enabled


def is_anomaly_check_nan_enabled():
    return anomaly_mode.check_nan


class detect_anomaly:
    """torch.autograd.detect_anomaly(check_nan=True): a context manager (and decorator) under which a
    backward function that returns NaN raises "Function 'XBackward0' returned nan values in its 0th output."."""

    def __init__(self, check_nan=True):
        import warnings  # noqa: PLC0415

        self.prev = anomaly_mode.enabled
        self.check_nan = bool(check_nan)
        self.prev_check_nan = anomaly_mode.check_nan
        warnings.warn(ANOMALY_WARNING, UserWarning, stacklevel=2)

    def __enter__(self):
        anomaly_mode.enabled, anomaly_mode.check_nan = True, self.check_nan
        return None

    def __exit__(self, *exc):
        anomaly_mode.enabled, anomaly_mode.check_nan = self.prev, self.prev_check_nan
        return False

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapped

    def __repr__(self):
        return f"<torch.autograd.anomaly_mode.detect_anomaly object at {hex(id(self))}>"


class set_detect_anomaly:
    """torch.autograd.set_detect_anomaly(mode, check_nan=True): sets the mode at once; as a context
    manager, the previous mode comes back at the end of the block."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = anomaly_mode.enabled, anomaly_mode.check_nan
        anomaly_mode.enabled, anomaly_mode.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        anomaly_mode.enabled, anomaly_mode.check_nan = self.prev, self.prev_check_nan
        return False

    def __repr__(self):
        return f"<torch.autograd.anomaly_mode.set_detect_anomaly object at {hex(id(self))}>"
