"""torch.optim.lr_scheduler: LambdaLR, MultiplicativeLR, StepLR, MultiStepLR, ConstantLR, LinearLR,
ExponentialLR, CosineAnnealingLR and ReduceLROnPlateau, ported from torch/optim/lr_scheduler.py (the chainable
form for step(), the closed form for step(epoch)), with torch's warnings about the call order."""
from __future__ import annotations

import math
import warnings
from bisect import bisect_right
from collections import Counter

from . import errors
from .optim import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _lrs(optimizer, key="lr"):
    return [g[key] for g in optimizer.param_groups]


def checked_state(scheduler, state_dict):
    """A scheduler's state_dict as load_state_dict may put it in its ``__dict__`` (torch updates the
    ``__dict__`` with it): a key starting with '_' must be one the scheduler has already (its own
    ``_step_count``, ``_last_lr``, ...), never a new private or protocol name."""
    state = dict(state_dict)
    own = scheduler.__dict__
    for key in state:
        if isinstance(key, str) and key.startswith("_") and (key not in own or key.startswith("__")):
            raise KeyError(f"state_dict key {key!r} is not an attribute of {type(scheduler).__name__}: a key "
                           "starting with '_' must be one of its own state_dict's in GradScript")
    return state


class LRScheduler:
    _is_initial = False
    _get_lr_called_within_step = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise errors.type_error(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                                   "scheduler with last_epoch >= 0.")
        self.base_lrs = _lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        optimizer._lr_sched_wrapped = True  # optimizer.step() now records that it was called
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def __repr__(self):
        return f"<torch.optim.lr_scheduler.{type(self).__name__} object at {hex(id(self))}>"

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(checked_state(self, state_dict))

    def get_last_lr(self):
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
                          "later, you should call them in the opposite order: `optimizer.step()` before "
                          "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
                          "value of the learning rate schedule. See more details at "
                          "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning,
                          stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True  # torch's _enable_get_lr_call: the attribute is in state_dict()
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


def _lambdas(optimizer, lr_lambda):
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise errors.value(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


def lambdas_state(scheduler):
    """LambdaLR's and MultiplicativeLR's state_dict: lr_lambdas last, None for each function (torch keeps only
    the __dict__ of a callable object that is not a function; a script's callables are all functions)."""
    state = {k: v for k, v in scheduler.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
    state["lr_lambdas"] = [None] * len(scheduler.lr_lambdas)
    return state


def load_lambdas_state(scheduler, state_dict):
    state = dict(state_dict)
    state.pop("lr_lambdas", None)
    scheduler.__dict__.update(checked_state(scheduler, state))


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * lmbda(self.last_epoch) for lmbda, base in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self):
        return lambdas_state(self)

    def load_state_dict(self, state_dict):
        load_lambdas_state(self, state_dict)


class MultiplicativeLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise errors.type_error(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return _lrs(self.optimizer)
        return [g["lr"] * lmbda(self.last_epoch) for lmbda, g in zip(self.lr_lambdas, self.optimizer.param_groups)]

    def state_dict(self):
        return lambdas_state(self)

    def load_state_dict(self, state_dict):
        load_lambdas_state(self, state_dict)


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch] for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(milestones, self.last_epoch) for base in self.base_lrs]


class ConstantLR(LRScheduler):
    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise errors.value("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise errors.value("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise errors.value("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        return [g["lr"] * (1.0 + (self.end_factor - self.start_factor)
                           / (self.total_iters * self.start_factor
                              + (self.last_epoch - 1) * (self.end_factor - self.start_factor)))
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (self.start_factor + (self.end_factor - self.start_factor)
                        * min(self.total_iters, self.last_epoch) / self.total_iters) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803 - torch's name
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _lrs(self.optimizer)
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [g["lr"] + (base - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)) * (g["lr"] - self.eta_min)
                + self.eta_min for g in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class ReduceLROnPlateau(LRScheduler):
    """Reduce the learning rate when a metric has stopped improving (step(metric) after validation)."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise errors.value("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise errors.type_error(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise errors.value(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _lrs(self.optimizer)
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self, epoch):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise errors.runtime(
                    f"The number of param groups in the `optimizer` ({len(self.optimizer.param_groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new "
                    "param group being added to the optimizer. Please modify the `min_lrs` field to match the "
                    "length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, param_group in enumerate(self.optimizer.param_groups):
            old_lr = float(param_group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                param_group["lr"] = new_lr

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise errors.value("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise errors.value("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(checked_state(self, state_dict))
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)


NAMES = ("LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
         "ExponentialLR", "CosineAnnealingLR", "ReduceLROnPlateau")

for _n in NAMES:
    globals()[_n].__module__ = "torch.optim.lr_scheduler"
