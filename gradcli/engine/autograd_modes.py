"""torch's autograd modes: grad mode (no_grad, enable_grad, set_grad_enabled: `grad_mode.enabled`, read by
every op that records a node), inference mode and anomaly mode (`anomaly_mode`: the backward engine's NaN
check of every backward function's outputs). Global flags, no dependence on the graph (autograd.py) or the
engine (autograd_engine.py)."""
from __future__ import annotations

import functools

from . import errors


class _GradMode:
    __slots__ = ("enabled",)

    def __init__(self):
        self.enabled = True


grad_mode = _GradMode()


def is_grad_enabled():
    return grad_mode.enabled


class _GradModeContext:
    """Base of no_grad / enable_grad / set_grad_enabled: a context manager and a decorator."""

    _target = True

    def __enter__(self):
        self._prev = grad_mode.enabled
        grad_mode.enabled = self._target
        return None

    def __exit__(self, *exc):
        grad_mode.enabled = self._prev
        return False

    def __call__(self, fn):
        target = self._target

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            prev = grad_mode.enabled
            grad_mode.enabled = target
            try:
                return fn(*args, **kwargs)
            finally:
                grad_mode.enabled = prev

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
        self._prev = grad_mode.enabled
        grad_mode.enabled = self._target

    def __enter__(self):
        return None

    def __call__(self, fn):
        grad_mode.enabled = self._prev  # as a decorator: the mode comes back, the function gets it
        return super().__call__(fn)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self._target})"


for _cls in (no_grad, enable_grad, set_grad_enabled):  # <class 'torch.autograd.grad_mode.no_grad'>
    _cls.__module__ = "torch.autograd.grad_mode"

_inference_mode = [False]


def is_inference_mode_enabled():
    return _inference_mode[0]


class inference_mode(no_grad):
    def __init__(self, mode=True):
        self._target = not mode
        self._mode = bool(mode)

    def __enter__(self):
        self._prev_inference = _inference_mode[0]
        _inference_mode[0] = self._mode
        return super().__enter__()

    def __exit__(self, *exc):
        _inference_mode[0] = self._prev_inference
        return super().__exit__(*exc)

    def __call__(self, fn):
        mode, target = self._mode, self._target

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            prev, prev_inference = grad_mode.enabled, _inference_mode[0]
            grad_mode.enabled, _inference_mode[0] = target, mode
            try:
                return fn(*args, **kwargs)
            finally:
                grad_mode.enabled, _inference_mode[0] = prev, prev_inference

        return wrapped

    def __repr__(self):
        return f"<torch.autograd.grad_mode.inference_mode object at {hex(id(self))}>"


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
