"""torch.optim's Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop, each following torch's single-tensor (CPU)
update (`_single_tensor_<name>` in torch/optim/<name>.py: the path torch takes for CPU parameters,
where foreach defaults to off) operation for operation, with optim.py's ATen-order kernels, so the
parameters match PyTorch's bit for bit, step after step."""
from __future__ import annotations

import numpy as np

from . import errors
from .optim import (Optimizer, add_scaled, addcdiv, addcmul, check_betas_eps, check_lr, lerp, scalar, set_data,
                    scalar_dtype, sqrt, state_tensor, step_tensor, value_of, zeros_state)


def _scalar_state(value):
    """torch.tensor(value, dtype=_get_scalar_dtype()): NAdam's mu_product, ASGD's eta and mu."""
    from .factory import tensor  # noqa: PLC0415
    return tensor(value, dtype=scalar_dtype())


def _begin(optimizer, p, zeros, scalars=None):
    """p's state, made at its first step as torch's _init_group makes it (step, then the float32 scalars
    given (scalar_dtype), then a zero tensor per name of `zeros`), with its step counted: (state, step as a float)."""
    state = optimizer.state[p]
    if len(state) == 0:
        state["step"] = step_tensor()
        for name, value in (scalars or {}).items():
            state[name] = _scalar_state(value)
        for name in zeros:
            state[name] = zeros_state(p)
    step_t = state["step"]
    set_data(step_t, step_t._data + 1)
    return state, step_t.item()


def _grad(g, maximize):
    return g._data if not maximize else -g._data


def _decay(p, grad, lr, wd, decoupled):
    """weight decay: p *= 1 - lr * wd (decoupled) or grad + wd * p."""
    if wd == 0:
        return grad
    if decoupled:
        set_data(p, p._data * scalar(1 - lr * wd, p._data.dtype))
        return grad
    return add_scaled(grad, p._data, wd)


class Adamax(Optimizer):
    _tensor_state = ("step",)
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_betas_eps(betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _group_step(self, group):
        lr, (beta1, beta2) = value_of(group["lr"]), group["betas"]
        eps, wd = group["eps"], group["weight_decay"]
        for p, g in self._grads(group):
            state, step = _begin(self, p, ("exp_avg", "exp_inf"))
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            grad = _grad(g, group["maximize"])
            if wd != 0:
                grad = add_scaled(grad, p._data, wd)
            dt = p._data.dtype
            set_data(exp_avg, lerp(exp_avg._data, grad, 1 - beta1))
            set_data(exp_inf, np.maximum(exp_inf._data * scalar(beta2, dt), np.abs(grad) + scalar(eps, dt)))
            clr = lr / (1 - beta1 ** step)
            set_data(p, addcdiv(p._data, exp_avg._data, exp_inf._data, -clr))


class NAdam(Optimizer):
    _tensor_state = ("step", "mu_product")
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_lr(lr)
        check_betas_eps(betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise errors.value(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _group_step(self, group):
        lr, (beta1, beta2) = value_of(group["lr"]), group["betas"]
        eps, wd, momentum_decay = group["eps"], group["weight_decay"], group["momentum_decay"]
        for p, g in self._grads(group):
            state, step = _begin(self, p, ("exp_avg", "exp_avg_sq"), {"mu_product": 1.0})
            exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
            dt = p._data.dtype
            bias_correction2 = 1 - beta2 ** step
            grad = _decay(p, _grad(g, group["maximize"]), lr, wd, group["decoupled_weight_decay"])
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            set_data(mu_product, mu_product._data * mu_product._data.dtype.type(mu))
            set_data(exp_avg, lerp(exp_avg._data, grad, 1 - beta1))
            set_data(exp_avg_sq, addcmul(exp_avg_sq._data * scalar(beta2, dt), grad, grad, 1 - beta2))
            denom = sqrt(exp_avg_sq._data / scalar(bias_correction2, dt)) + scalar(eps, dt)
            mu_product_value = mu_product.item()
            mu_product_next = mu_product_value * mu_next
            set_data(p, addcdiv(p._data, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product_value)))
            set_data(p, addcdiv(p._data, exp_avg._data, denom, (-lr * mu_next) / (1.0 - mu_product_next)))


class RAdam(Optimizer):
    _tensor_state = ("step",)
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_lr(lr)
        check_betas_eps(betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _group_step(self, group):
        lr, (beta1, beta2) = value_of(group["lr"]), group["betas"]
        eps, wd = group["eps"], group["weight_decay"]
        for p, g in self._grads(group):
            state, step = _begin(self, p, ("exp_avg", "exp_avg_sq"))
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            dt = p._data.dtype
            grad = _decay(p, _grad(g, group["maximize"]), lr, wd, group["decoupled_weight_decay"])
            set_data(exp_avg, lerp(exp_avg._data, grad, 1 - beta1))
            set_data(exp_avg_sq, addcmul(exp_avg_sq._data * scalar(beta2, dt), grad, grad, 1 - beta2))
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            update = exp_avg._data / scalar(bias_correction1, dt) * scalar(lr, dt)
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                # (bias_correction2 ** 0.5) / t is torch's Tensor.__rtruediv__: t.reciprocal() * number
                adaptive_lr = (scalar(1, dt) / (sqrt(exp_avg_sq._data) + scalar(eps, dt))) * scalar(
                    bias_correction2 ** 0.5, dt)
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                update = update * adaptive_lr * scalar(rect, dt)
            set_data(p, add_scaled(p._data, update, -1.0))


class ASGD(Optimizer):
    _tensor_state = ("step", "eta", "mu")
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise errors.value(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _group_step(self, group):
        lr, lambd, alpha, t0 = value_of(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        wd = group["weight_decay"]
        for p, g in self._grads(group):
            state, step = _begin(self, p, ("ax",), {"eta": lr, "mu": 1.0})
            mu, ax, eta = state["mu"], state["ax"], state["eta"]
            grad = _grad(g, group["maximize"])
            if wd != 0:
                grad = add_scaled(grad, p._data, wd)
            dt = p._data.dtype
            eta_value = eta.item()
            set_data(p, p._data * scalar(1 - lambd * eta_value, dt))
            set_data(p, add_scaled(p._data, grad, -eta_value))
            if mu.item() != 1:
                set_data(ax, ax._data + (p._data - ax._data) * mu._data.astype(dt))
            else:
                set_data(ax, p._data.copy())
            set_data(eta, eta._data.dtype.type(lr / ((1 + lambd * lr * step) ** alpha)))
            set_data(mu, mu._data.dtype.type(1 / max(1, step - t0)))


class Rprop(Optimizer):
    _tensor_state = ("step",)
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise errors.value(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _group_step(self, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p, g in self._grads(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = step_tensor()
                state["prev"] = zeros_state(p)
                step_size = zeros_state(g)
                set_data(step_size, np.full_like(g._data, value_of(group["lr"])))
                step_size._version[0] = 0
                state["step_size"] = step_size
            prev, step_size, step_t = state["prev"], state["step_size"], state["step"]
            set_data(step_t, step_t._data + 1)
            grad = _grad(g, group["maximize"])
            dt = grad.dtype
            sign = np.sign(grad * prev._data)
            sign = np.where(sign > 0, scalar(etaplus, dt), np.where(sign < 0, scalar(etaminus, dt), sign))
            sign = np.where(sign == 0, scalar(1, dt), sign).astype(dt)
            set_data(step_size, np.clip(step_size._data * sign, scalar(step_size_min, dt), scalar(step_size_max, dt)))
            grad = np.where(sign == scalar(etaminus, dt), scalar(0, dt), grad).astype(dt)
            set_data(p, addcmul(p._data, np.sign(grad), step_size._data, -1))
            set_data(prev, grad)


# ---------------------------------------------------------------------------- Adagrad

class Adagrad(Optimizer):
    _tensor_state = ("step",)
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        if not 0.0 <= lr_decay:
            raise errors.value(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise errors.value(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise errors.value(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise errors.value(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        from .factory import full_like  # noqa: PLC0415
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = step_tensor()
                state["sum"] = full_like(p.detach(), initial_accumulator_value)

    def _group_step(self, group):
        lr = value_of(group["lr"])
        wd, lr_decay, eps, maximize = group["weight_decay"], group["lr_decay"], group["eps"], group["maximize"]
        for p, g in self._grads(group):
            state = self.state[p]
            step_t, ssum = state["step"], state_tensor(state["sum"], "addcmul_")
            set_data(step_t, step_t._data + 1)
            step = step_t.item()
            grad = g._data if not maximize else -g._data
            dt = p._data.dtype
            if wd != 0:
                grad = add_scaled(grad, p._data, wd)
            clr = lr / (1 + (step - 1) * lr_decay)
            set_data(ssum, addcmul(ssum._data, grad, grad, 1))
            std = sqrt(ssum._data) + scalar(eps, dt)
            set_data(p, addcdiv(p._data, grad, std, -clr))


# ---------------------------------------------------------------------------- Adadelta

class Adadelta(Optimizer):
    _tensor_state = ("step",)
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise errors.value(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise errors.value(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise errors.value(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _group_step(self, group):
        """torch's _single_tensor_adadelta, operation for operation."""
        lr = value_of(group["lr"])
        rho, eps, wd, maximize = group["rho"], group["eps"], group["weight_decay"], group["maximize"]
        for p, g in self._grads(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = step_tensor()
                state["square_avg"] = zeros_state(p)
                state["acc_delta"] = zeros_state(p)
            sq, acc = state["square_avg"], state["acc_delta"]
            set_data(state["step"], state["step"]._data + 1)
            grad = g._data if not maximize else -g._data
            dt = p._data.dtype
            if wd != 0:
                grad = add_scaled(grad, p._data, wd)
            set_data(sq, addcmul(sq._data * scalar(rho, dt), grad, grad, 1 - rho))
            std = sqrt(sq._data + scalar(eps, dt))
            delta = sqrt(acc._data + scalar(eps, dt)) / std * grad
            set_data(acc, addcmul(acc._data * scalar(rho, dt), delta, delta, 1 - rho))
            set_data(p, add_scaled(p._data, delta, -lr))


NAMES = ("Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop")

for _n in NAMES:
    globals()[_n].__module__ = "torch.optim." + _n.lower()
