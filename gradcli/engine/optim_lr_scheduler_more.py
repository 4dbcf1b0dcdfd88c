"""More of torch.optim.lr_scheduler: PolynomialLR, CosineAnnealingWarmRestarts, OneCycleLR, CyclicLR, SequentialLR and
ChainedScheduler, ported from torch/optim/lr_scheduler.py (2.13) onto optim_lr_scheduler.LRScheduler, so
that learning rates, momentum cycling and state_dict() print as torch's."""
from __future__ import annotations

import math
from bisect import bisect_right

from . import errors
from .optim import Optimizer
from .optim_lr_scheduler import LRScheduler, ReduceLROnPlateau, checked_state


def _lrs(optimizer, key="lr"):
    return [g[key] for g in optimizer.param_groups]


class PolynomialLR(LRScheduler):
    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        decay_factor = ((1.0 - self.last_epoch / self.total_iters)
                        / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [g["lr"] * decay_factor for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):  # noqa: N803 - torch's names
        if T_0 <= 0 or not isinstance(T_0, int):
            raise errors.value(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise errors.value(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise errors.value(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise errors.value(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


def format_param(name, optimizer, param):
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise errors.value(f"{name} must have the same length as optimizer.param_groups. "
                               f"{name} has {len(param)} values, param_groups has {len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


def _cycle_momentum(scheduler, optimizer, first, second, last_epoch):
    """OneCycleLR's and CyclicLR's momentum set-up, as torch orders it: the optimizer must have momentum
    or betas (use_beta1), the two (name, value) pairs are formatted per group in the order given, and a
    fresh schedule starts each group at its max_momentum. Returns {name: list}."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise errors.value("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    scheduler.use_beta1 = "betas" in optimizer.defaults
    formatted = {name: format_param(name, optimizer, value) for name, value in (first, second)}
    if last_epoch == -1:
        for m_momentum, b_momentum, group in zip(formatted["max_momentum"], formatted["base_momentum"],
                                                 optimizer.param_groups):
            if scheduler.use_beta1:
                group["betas"] = (m_momentum, *group["betas"][1:])
            else:
                group["momentum"] = m_momentum
            group["max_momentum"] = m_momentum
            group["base_momentum"] = b_momentum
    return formatted


def _annealing_cos(start, end, pct):
    cos_out = math.cos(math.pi * pct) + 1
    return end + (start - end) / 2.0 * cos_out


def _annealing_linear(start, end, pct):
    return (end - start) * pct + start


class OneCycleLR(LRScheduler):
    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise errors.type_error(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise errors.value(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise errors.value(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise errors.value(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise errors.value("You must define either total_steps OR (epochs AND steps_per_epoch)")
        up = {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
              "start_momentum": "max_momentum", "end_momentum": "base_momentum"}
        if three_phase:
            self._schedule_phases = [
                up,
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"}]
        else:
            self._schedule_phases = [
                up,
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"}]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise errors.value(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise errors.value(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = format_param("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(self.optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            _cycle_momentum(self, optimizer, ("max_momentum", max_momentum), ("base_momentum", base_momentum),
                            last_epoch)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        anneal = _annealing_cos if self._anneal_func_type == "cos" else _annealing_linear
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise errors.value(f"Tried to step {step_num} times. The specified number of total steps is "
                               f"{self.total_steps}")
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    computed_lr = anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        computed_momentum = anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(computed_lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (computed_momentum, *group["betas"][1:])
                else:
                    group["momentum"] = computed_momentum
        return lrs



class CyclicLR(LRScheduler):
    """torch's CyclicLR: the learning rate (and momentum, or Adam's beta1) cycles between base and max;
    mode triangular, triangular2 or exp_range, or the script's scale_fn (called with the cycle or
    the iteration number, as scale_mode says)."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise errors.type_error(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise errors.value("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            formatted = _cycle_momentum(self, optimizer, ("base_momentum", base_momentum),
                                        ("max_momentum", max_momentum), last_epoch)
            self.base_momentums, self.max_momentums = formatted["base_momentum"], formatted["max_momentum"]
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is None and self.mode in ("triangular", "triangular2"):
            self.scale_mode = "cycle"
        elif self._scale_fn_custom is None and self.mode == "exp_range":
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * self.scale_fn(at)
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            momentums = [max_m - (max_m - base_m) * scale_factor * self.scale_fn(at)
                         for base_m, max_m in zip(self.base_momentums, self.max_momentums)]
            for group, momentum in zip(self.optimizer.param_groups, momentums):
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_scale_fn_custom")}
        state["_scale_fn_custom"] = None  # torch keeps a function's place, not the function
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        state.pop("_scale_fn_custom", None)
        self.__dict__.update(checked_state(self, state))
        self._init_scale_fn()

def _check_schedulers(kind, optimizer, schedulers):
    for idx, scheduler in enumerate(schedulers):
        if not isinstance(scheduler, LRScheduler):
            raise errors.type_error(f"{kind} at index {idx} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise errors.value(f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                               "kwargs to be specified when calling `step`, but got one at index "
                               f"{idx} in the given schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise errors.value(f"{kind} expects all schedulers to belong to the same optimizer, but got scheduler "
                               f"{type(scheduler).__name__} at index {idx} has {scheduler.optimizer}, which is "
                               f"different from {type(optimizer).__name__}.")


def _nested_state(scheduler):
    state = {k: v for k, v in scheduler.__dict__.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in scheduler._schedulers]
    return state


def _load_nested_state(scheduler, state_dict):
    state = dict(state_dict)
    inner = state.pop("_schedulers")
    scheduler.__dict__.update(checked_state(scheduler, state))
    for idx, s in enumerate(inner):
        scheduler._schedulers[idx].load_state_dict(s)


class SequentialLR(LRScheduler):
    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise errors.value("SequentialLR expects at least one scheduler, but got no scheduler.")
        _check_schedulers("SequentialLR", optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise errors.value("Sequential Schedulers expects number of schedulers provided to be one more than the "
                               f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                               f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in self.optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        scheds = self if sched is None else sched
        if isinstance(scheds, (SequentialLR, ChainedScheduler)):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif isinstance(scheds, LRScheduler):
            scheds.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        return _nested_state(self)

    def load_state_dict(self, state_dict):
        _load_nested_state(self, state_dict)


class ChainedScheduler(LRScheduler):
    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise errors.value("ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers("ChainedScheduler", optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _lrs(self._schedulers[-1].optimizer)

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _lrs(self._schedulers[-1].optimizer)

    def state_dict(self):
        return _nested_state(self)

    def load_state_dict(self, state_dict):
        _load_nested_state(self, state_dict)


NAMES = ("PolynomialLR", "CosineAnnealingWarmRestarts", "OneCycleLR", "CyclicLR", "SequentialLR", "ChainedScheduler")


for _n in NAMES:
    globals()[_n].__module__ = "torch.optim.lr_scheduler"
