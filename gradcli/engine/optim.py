"""torch.optim: Optimizer with param_groups and state, and SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta
(Adamax, NAdam, RAdam, ASGD and Rprop are in optim_more.py, over the kernels below).

The updates follow torch's single-tensor (CPU) code paths operation for operation, in the
parameter's dtype with Python-number arguments rounded to that dtype the way ATen's kernels
do (`add(alpha=)`, `addcmul`, `addcdiv`, `lerp`), so results match PyTorch step for step."""
from __future__ import annotations

import warnings
from collections import defaultdict

import numpy as np

from ..backend import vml
from . import errors, numerics
from .autograd_modes import enable_grad, grad_mode
from .tensor import Tensor


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(value):
    from .argcheck import torch_typename as typename  # noqa: PLC0415
    return typename(value)


# ---------------------------------------------------------------------------- array kernels (ATen order)

_np_add, _np_multiply = np.add, np.multiply
_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)
_LOW_FLOATS = (np.dtype(np.float32), np.dtype(np.float16))
_RATES = {}   # (lr, dtype) -> -lr rounded to the dtype, as a 0-d float64 array: SGD's factor, made once


sqrt = vml("sqrt", np.sqrt)  # Tensor.sqrt() in torch's optimizers: MKL's VML with gradcli[mkl]


def scalar(x, dt):
    """A Python scalar as the kernel sees it: rounded to the tensor's dtype."""
    return dt.type(x)


def fma(x, y, z):
    """x * y + z rounded once, as ATen's vectorized float32 kernels compute it (fused multiply-add).
    Exact through float64 for float32 operands; float64 tensors use plain arithmetic."""
    if z.dtype == np.float32 or z.dtype == np.float16:
        return (_f64(x) * _f64(y) + z.astype(np.float64)).astype(z.dtype)
    return x * y + z


def _f64(x):
    """x in float64, on its device (a NumPy scalar stays a scalar, an array an array)."""
    return x.astype(np.float64) if hasattr(x, "astype") else np.float64(x)


def add_scaled(a, b, alpha=1):
    """a + alpha * b (ATen add with alpha)."""
    if alpha == 1:
        return a + b
    return fma(scalar(alpha, a.dtype), b, a)


def addcmul(a, t1, t2, value=1):
    return fma(scalar(value, a.dtype) * t1, t2, a)


def addcdiv(a, t1, t2, value=1):
    return a + scalar(value, a.dtype) * t1 / t2


def lerp(a, end, weight):
    w = scalar(weight, a.dtype)
    diff = end - a
    if abs(w) < 0.5:
        return fma(w, diff, a)
    return fma(-diff, scalar(1, a.dtype) - w, end)


def set_data(t, arr):
    """Write arr into tensor t in place (as an in-place op under no_grad does)."""
    t._data[...] = arr
    t._version[0] += 1


def state_tensor(value, method):
    """A state entry (opt.state[p][key]) as torch's step uses it: a value that is no Tensor (a script may
    put anything there) fails at the first method torch's step calls on it (its AttributeError)."""
    if isinstance(value, Tensor):
        return value
    raise AttributeError(f"'{type(value).__name__}' object has no attribute '{method}'")


def zeros_state(p):
    from .factory import zeros_like  # noqa: PLC0415
    return zeros_like(p.detach())


def scalar_dtype():
    """torch.optim's _get_scalar_dtype(): the dtype of the state's scalar tensors (step, NAdam's mu_product,
    ASGD's eta and mu), float64 while the default dtype is float64, else float32."""
    from . import dtypes  # noqa: PLC0415
    return dtypes.float64 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32


def step_tensor():
    from .factory import tensor  # noqa: PLC0415
    return tensor(0.0, dtype=scalar_dtype())


def value_of(x):
    if isinstance(x, Tensor):
        return x.item()
    return x


# ---------------------------------------------------------------------------- Optimizer

class Optimizer:
    _lr_sched_wrapped = False  # an lr_scheduler sets it on the instance
    # the state entries that torch's __setstate__ (so load_state_dict) makes scalar tensors of (scalar_dtype)
    # when a loaded state holds something else: Adam's `step` (float(step)), ASGD's `eta` and `mu`, ...
    _tensor_state: tuple = ()

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise errors.type_error("params argument given to the optimizer should be an iterable of Tensors or "
                                    "dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise errors.value("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n"
            s += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise errors.type_error(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise errors.type_error("optimizer parameters need to be organized in ordered collections, but the "
                                    "ordering of tensors in sets will change between runs. Please use a list "
                                    "instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise errors.value("all optimizer params should be with/without names. Some param names are missing")
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise errors.type_error("optimizer can only optimize Tensors, but one of the params is "
                                        + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise errors.value("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise errors.value(f"parameter group didn't specify a value of required optimization parameter "
                                   f"{name}")
            param_group.setdefault(name, default)
        ps = param_group["params"]
        if len(ps) != len({id(p) for p in ps}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
        if any(id(p) in seen for p in ps):
            raise errors.value("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            _check_params(group)
            for p in group["params"]:
                if p._grad is not None:
                    if set_to_none:
                        p._grad = None
                    else:
                        g = p._grad
                        if g.grad_fn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g.zero_()

    def step(self, closure=None):
        if self._lr_sched_wrapped:
            self._opt_called = True  # an lr_scheduler checks the call order
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        prev = grad_mode.enabled  # no_grad(), without the context object
        grad_mode.enabled = False
        try:
            for group in self.param_groups:
                _check_params(group)
                self._group_step(group)
        finally:
            grad_mode.enabled = prev
        return loss

    def _group_step(self, group):
        raise NotImplementedError

    def state_dict(self):
        index = {}
        start = 0
        groups = []
        for g in self.param_groups:
            ids = list(range(start, start + len(g["params"])))
            for p, i in zip(g["params"], ids):
                index.setdefault(id(p), i)
            packed = {k: v for k, v in g.items() if k != "params"}
            packed["params"] = ids
            groups.append(packed)
            start += len(ids)
        state = {}
        for g in self.param_groups:
            for p in g["params"]:
                if p in self.state and id(p) in index:
                    state[index[id(p)]] = self.state[p]
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise errors.value("loaded state dict has a different number of parameter groups")
        ids = {}
        for g, saved in zip(self.param_groups, groups):
            if len(g["params"]) != len(saved["params"]):
                raise errors.value("loaded state dict contains a parameter group that doesn't match the size of "
                                   "optimizer's group")
            for p, i in zip(g["params"], saved["params"]):
                ids[i] = p
        self.state = defaultdict(dict)
        for i, s in state_dict["state"].items():
            if i in ids:
                self.state[ids[i]] = {k: (v.clone() if isinstance(v, Tensor) else v) for k, v in s.items()}
        for g, saved in zip(self.param_groups, groups):
            for k, v in saved.items():
                if k != "params":
                    g[k] = v
        if self._tensor_state:
            from .factory import tensor  # noqa: PLC0415
            for g in self.param_groups:
                for p in g["params"]:
                    p_state = self.state.get(p, ())
                    for key in self._tensor_state if len(p_state) else ():
                        value = p_state[key]  # (torch's KeyError when a loaded state lacks it)
                        if not isinstance(value, Tensor):
                            p_state[key] = tensor(float(value) if key == "step" else value, dtype=scalar_dtype())

    @staticmethod
    def _grads(group):
        return [(p, p._grad) for p in group["params"] if p._grad is not None]


def _check_params(group):
    """A script may put anything in param_groups[i]["params"]: torch's error where it reads p.grad."""
    for p in group["params"]:
        if not isinstance(p, Tensor):
            from .argcheck import typename  # noqa: PLC0415
            raise AttributeError(f"'{typename(p)}' object has no attribute 'grad'")


def check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise errors.value("Tensor lr must be 1-element")
    if not 0.0 <= value_of(lr):
        raise errors.value(f"Invalid learning rate: {lr}")


def check_betas_eps(betas, eps, weight_decay):
    """The Adam family's argument checks, in torch's order."""
    if not 0.0 <= eps:
        raise errors.value(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise errors.value(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise errors.value(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise errors.value(f"Invalid weight_decay value: {weight_decay}")


# ---------------------------------------------------------------------------- SGD

def _rate(lr, dt):
    """SGD's factor: -lr rounded to the parameters' dtype, as a 0-d float64 array (the same float64 loop as a
    scalar, no conversion per call), made once per (lr, dtype)."""
    c = _RATES.get((lr, dt)) if lr else None  # (0.0 and -0.0 are equal keys: not cached)
    if c is None:
        if len(_RATES) > 64:
            _RATES.clear()
        c = _RATES[lr, dt] = np.asarray(np.float64(dt.type(-lr)))  # (read only, shared)
    return c


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_lr(lr)
        if momentum < 0.0:
            raise errors.value(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise errors.value(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise errors.value("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _group_step(self, group):
        lr, momentum, dampening = value_of(group["lr"]), group["momentum"], group["dampening"]
        wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        if momentum == 0 and wd == 0 and not maximize:
            # plain SGD: p.add_(grad, alpha=-lr), i.e. set_data(p, fma(-lr, grad, p)) with the float64
            # products and sums done in place (the same values: every conversion to float64 is exact)
            kern = numerics.kernels()
            params = group["params"]
            if kern is not None and type(params) is list and params and type(d := params[0]._data) is np.ndarray \
                    and d.dtype is _F32:
                # csrc/engine.c's sgd_params: the loop below for the float32 parameters (kern.sgd and the version),
                # in one call; it stops at the first parameter it does not take, which the loop then runs
                done = kern.sgd_params(params, float(_rate(lr, _F32)))
                if done:
                    params = params[done:]
            for p in params:
                g = p._grad
                if g is None:
                    continue
                d, gd = p._data, g._data
                dt = d.dtype
                if dt in _LOW_FLOATS and gd.dtype == dt and type(d) is np.ndarray and type(gd) is np.ndarray:
                    c = _rate(lr, dt)
                    if kern is not None:
                        try:  # csrc/engine.c's sgd: the same float64 arithmetic, one call (float32 only)
                            kern.sgd(d, gd, float(c))
                            p._version[0] += 1
                            continue
                        except ValueError:  # float16, or not C-contiguous
                            pass
                    # float64 product (exact: c is -lr rounded to p's dtype), float64 sum with p, rounded
                    # into p; each step on float64 copies (plain casts and float64 loops cost NumPy less
                    # than one mixed-dtype ufunc, which casts through buffers)
                    g64 = gd.astype(_F64)
                    _np_multiply(g64, c, out=g64)
                    p64 = d.astype(_F64)
                    _np_add(p64, g64, out=p64)
                    d[...] = p64
                    p._version[0] += 1
                else:
                    set_data(p, add_scaled(d, gd, -lr))
            return
        for p, g in self._grads(group):
            grad = g._data if not maximize else -g._data
            if wd != 0:
                grad = add_scaled(grad, p._data, wd)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is not None:
                    buf = state_tensor(buf, "mul_")
                if buf is None:
                    from .tensor import wrap  # noqa: PLC0415
                    buf = wrap(grad.copy(), p.dtype)
                    state["momentum_buffer"] = buf
                else:
                    set_data(buf, add_scaled(buf._data * scalar(momentum, buf._data.dtype), grad, 1 - dampening))
                grad = add_scaled(grad, buf._data, momentum) if nesterov else buf._data
            set_data(p, add_scaled(p._data, grad, -lr))


# ---------------------------------------------------------------------------- Adam / AdamW

class Adam(Optimizer):
    _tensor_state = ("step",)
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_lr(lr)
        check_betas_eps(betas, eps, weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise errors.value("betas must be either both floats or both Tensors")
        betas = tuple(value_of(b) for b in betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _group_step(self, group):
        lr = value_of(group["lr"])
        beta1, beta2 = group["betas"]
        eps, wd, amsgrad = group["eps"], group["weight_decay"], group["amsgrad"]
        maximize, decoupled = group["maximize"], group["decoupled_weight_decay"]
        for p, g in self._grads(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = step_tensor()
                state["exp_avg"] = zeros_state(p)
                state["exp_avg_sq"] = zeros_state(p)
                if amsgrad:
                    state["max_exp_avg_sq"] = zeros_state(p)
            grad = g._data if not maximize else -g._data
            exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
            if not isinstance(step_t, Tensor):
                raise errors.runtime("API has changed, `state_steps` argument must contain a list of singleton tensors")
            exp_avg, exp_avg_sq = state_tensor(exp_avg, "lerp_"), state_tensor(exp_avg_sq, "mul_")
            set_data(step_t, step_t._data + 1)
            dt = p._data.dtype
            if wd != 0:
                if decoupled:
                    set_data(p, p._data * scalar(1 - lr * wd, dt))
                else:
                    grad = add_scaled(grad, p._data, wd)
            set_data(exp_avg, lerp(exp_avg._data, grad, 1 - beta1))
            set_data(exp_avg_sq, addcmul(exp_avg_sq._data * scalar(beta2, dt), grad, grad, 1 - beta2))
            step = step_t.item()
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bc2_sqrt = bias_correction2 ** 0.5
            if amsgrad:
                mx = state["max_exp_avg_sq"]
                if not isinstance(mx, Tensor):
                    raise errors.type_error(f"maximum(): argument 'input' (position 1) must be Tensor, not "
                                            f"{type(mx).__name__}")
                set_data(mx, np.maximum(mx._data, exp_avg_sq._data))
                denom = sqrt(mx._data) / scalar(bc2_sqrt, dt) + scalar(eps, dt)
            else:
                denom = sqrt(exp_avg_sq._data) / scalar(bc2_sqrt, dt) + scalar(eps, dt)
            set_data(p, addcdiv(p._data, exp_avg._data, denom, -step_size))


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


# ---------------------------------------------------------------------------- RMSprop

class RMSprop(Optimizer):
    _tensor_state = ("step",)
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise errors.value(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise errors.value(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise errors.value(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise errors.value(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _group_step(self, group):
        lr = value_of(group["lr"])
        alpha, eps, wd = group["alpha"], group["eps"], group["weight_decay"]
        momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
        for p, g in self._grads(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = step_tensor()
                state["square_avg"] = zeros_state(p)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_state(p)
                if centered:
                    state["grad_avg"] = zeros_state(p)
            grad = g._data if not maximize else -g._data
            sq = state_tensor(state["square_avg"], "mul_")
            set_data(state["step"], state["step"]._data + 1)
            dt = p._data.dtype
            if wd != 0:
                grad = add_scaled(grad, p._data, wd)
            set_data(sq, addcmul(sq._data * scalar(alpha, dt), grad, grad, 1 - alpha))
            if centered:
                ga = state_tensor(state["grad_avg"], "lerp_")
                set_data(ga, lerp(ga._data, grad, 1 - alpha))
                avg = sqrt(addcmul(sq._data, ga._data, ga._data, -1))
            else:
                avg = sqrt(sq._data)
            avg = avg + scalar(eps, dt)
            if momentum > 0:
                buf = state_tensor(state["momentum_buffer"], "mul_")
                set_data(buf, addcdiv(buf._data * scalar(momentum, dt), grad, avg))
                set_data(p, add_scaled(p._data, buf._data, -lr))
            else:
                set_data(p, addcdiv(p._data, grad, avg, -lr))


NAMES = ("Optimizer", "SGD", "Adam", "AdamW", "RMSprop")


def _load_swa(namespace):
    from . import optim_swa  # noqa: PLC0415 - torch.optim.swa_utils loads on first use
    return namespace("torch.optim.swa_utils", **{n: getattr(optim_swa, n) for n in optim_swa.NAMES})


def build(namespace):
    """The torch.optim namespace (with torch.optim.lr_scheduler), made with api.py's module-like class."""
    from . import optim_lr_scheduler as sched  # noqa: PLC0415 - it imports this module
    from . import optim_lr_scheduler_more as more  # noqa: PLC0415
    from . import optim_more  # noqa: PLC0415 - it imports this module
    lr_scheduler = namespace("torch.optim.lr_scheduler", **{n: getattr(sched, n) for n in sched.NAMES},
                             **{n: getattr(more, n) for n in more.NAMES})
    from .optim_lbfgs import LBFGS  # noqa: PLC0415 - it imports this module
    return namespace("torch.optim", lr_scheduler=lr_scheduler, _lazy={"swa_utils": lambda: _load_swa(namespace)},
                     **{n: globals()[n] for n in NAMES},
                     **{n: getattr(optim_more, n) for n in optim_more.NAMES}, LBFGS=LBFGS)

for _n, _path in (("Optimizer", "optimizer"), ("SGD", "sgd"), ("Adam", "adam"), ("AdamW", "adamw"),
                  ("RMSprop", "rmsprop")):
    globals()[_n].__module__ = "torch.optim." + _path
