"""torch.nn / torch.optim / torch.autograd.functional cases, run once with real PyTorch 2.13
(tools/gen_nn_goldens.py writes tests/golden/nn_cases.json) and once with gradcli's engine
(tests/test_nn.py and tests/test_optim.py).

Every case is a function `case_NAME(torch)` taking a torch-like module and returning a list of
observations (strings, numbers, bools, None and nested lists). Random initialisation differs
between torch and gradcli, so a case that compares values sets its weights explicitly (or only
observes shapes, dtypes and bounds). Cases whose name starts with `optim_` belong to
tests/test_optim.py, the others to tests/test_nn.py.
"""
from __future__ import annotations

import math


from case_support import collect_cases, err, fname, grad_of, info, normalise, run_case, vals  # noqa: F401
from case_support import graph as _graph


def graph(fn, depth=4):
    """'AddmmBackward0(AccumulateGrad:0, TBackward0(AccumulateGrad:0):0)' down to depth."""
    return _graph(fn, depth, short_names=True)

# ---------------------------------------------------------------------------- helpers


def leaf(torch, data, dtype=None):
    return torch.tensor(data, dtype=dtype or torch.float32, requires_grad=True)


def weights_for(torch, shape, dtype=None):
    """A fixed, non-symmetric weighting for `(out * w).sum()`: every output gets its own gradient."""
    n = 1
    for s in shape:
        n *= s
    w = (torch.arange(n, dtype=torch.float64) % 7 - 2.5) / 3
    return w.reshape(tuple(shape)).to(dtype or torch.float32)


def run_grad(torch, out, inputs):
    """Backward of a weighted sum of out; the inputs' grads (values)."""
    if out.dim() == 0:
        out.backward()
    else:
        (out * weights_for(torch, out.shape, out.dtype)).sum().backward()
    return [vals(grad_of(x)) if x is not None else None for x in inputs]


CASES = {}


def all_cases():
    return collect_cases(globals(), CASES)


# ---------------------------------------------------------------------------- inputs

X34 = [[-3.5, -1.25, -0.5, 0.0], [0.25, 0.75, 1.5, 3.0], [-2.0, 2.5, -0.1, 4.5]]
T34 = [[0.1, 0.9, 0.3, 0.5], [0.7, 0.2, 0.6, 0.05], [0.4, 0.8, 0.15, 0.95]]


def _x(torch, dtype=None):
    return leaf(torch, X34, dtype)


# ---------------------------------------------------------------------------- activations

def _activation_case(call):
    def case(torch):
        obs = []
        for dt in (torch.float32, torch.float64):
            x = _x(torch, dt)
            out = call(torch.nn.functional, x)
            obs += [info(out), graph(out.grad_fn, 2)] + run_grad(torch, out, [x])
        return obs
    return case


_ACTIVATIONS = {
    "relu": lambda F, x: F.relu(x),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "elu": lambda F, x: F.elu(x),
    "elu_alpha": lambda F, x: F.elu(x, alpha=0.5),
    "leaky_relu": lambda F, x: F.leaky_relu(x),
    "leaky_relu_slope": lambda F, x: F.leaky_relu(x, 0.2),
    "softplus": lambda F, x: F.softplus(x),
    "softplus_beta_threshold": lambda F, x: F.softplus(x, beta=2, threshold=1.5),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "tanh": lambda F, x: F.tanh(x),
    "hardtanh": lambda F, x: F.hardtanh(x),
    "hardtanh_bounds": lambda F, x: F.hardtanh(x, -2.0, 2.5),
    "relu6": lambda F, x: F.relu6(x),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "mish": lambda F, x: F.mish(x),
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x, alpha=0.7),
    "softsign": lambda F, x: F.softsign(x),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "tanhshrink": lambda F, x: F.tanhshrink(x),
    "softmax_dim1": lambda F, x: F.softmax(x, dim=1),
    "softmax_dim0": lambda F, x: F.softmax(x, 0),
    "log_softmax_dim1": lambda F, x: F.log_softmax(x, dim=1),
    "log_softmax_neg": lambda F, x: F.log_softmax(x, dim=-2),
    "softmin": lambda F, x: F.softmin(x, dim=1),
}
for _name, _call in _ACTIVATIONS.items():
    CASES["act_" + _name] = _activation_case(_call)


def case_softmax_implicit_dim(torch):
    F = torch.nn.functional
    x2 = _x(torch)
    x1 = leaf(torch, [1.0, 2.0, 3.0])
    x3 = leaf(torch, [[[1.0, 2.0], [0.5, -1.0]], [[0.0, 3.0], [2.0, 2.0]]])
    return [info(F.softmax(x2)), info(F.softmax(x1)), info(F.log_softmax(x3)), info(F.softmin(x1))]


def case_softmax_dtype_arg(torch):
    F = torch.nn.functional
    x = _x(torch)
    out = F.softmax(x, dim=1, dtype=torch.float64)
    return [info(out), graph(out.grad_fn, 2)] + run_grad(torch, out, [x])


def case_torch_level_functions(torch):
    x = _x(torch)
    return [info(torch.relu(x)), info(torch.sigmoid(x)), info(torch.tanh(x)), info(torch.softmax(x, 1)),
            info(torch.log_softmax(x, dim=0)), info(x.relu()), info(x.softmax(-1)), info(torch.selu(x)),
            info(torch.celu(x)), info(torch.dropout(x, 0.5, False)), info(torch.dropout(x, 0.0, True))]


def case_inplace_activations(torch):
    F = torch.nn.functional
    a = _x(torch) * 1
    r = F.relu(a, inplace=True)
    b = _x(torch) * 1
    l = F.leaky_relu(b, 0.1, inplace=True)
    c = _x(torch) * 1
    e = F.elu(c, inplace=True)
    leafx = _x(torch)
    return [r is a, info(r), l is b, info(l), e is c, info(e),
            err(lambda: F.relu(leafx, inplace=True)), err(lambda: F.gelu(leafx, approximate="foo")),
            err(lambda: F.gelu(torch.tensor([1, 2])))]


# ---------------------------------------------------------------------------- linear

def case_linear_shapes_and_nodes(torch):
    F = torch.nn.functional
    w = leaf(torch, [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 1.0]])
    b = leaf(torch, [0.1, -0.2])
    obs = []
    for shape in ((4,), (3, 4), (2, 3, 4), (2, 1, 3, 4)):
        n = 1
        for s in shape:
            n *= s
        x = (torch.arange(n, dtype=torch.float32) / 7 - 1).reshape(shape).requires_grad_()
        for bias in (b, None):
            out = F.linear(x, w, bias)
            obs += [info(out), graph(out.grad_fn, 3)] + run_grad(torch, out, [x, w, b])
            for t in (x, w, b):
                t.grad = None
    return obs


def case_linear_noncontiguous_input(torch):
    F = torch.nn.functional
    w = leaf(torch, [[0.5, -1.0], [1.5, 0.0], [0.25, 2.0]])
    b = leaf(torch, [0.1, -0.2, 0.3])
    x = (torch.arange(12, dtype=torch.float32) / 5).reshape(3, 2, 2).transpose(0, 1).requires_grad_()
    out = F.linear(x, w, b)
    return [info(out), fname(out)] + run_grad(torch, out, [w, b])


def case_linear_errors(torch):
    F = torch.nn.functional
    return [err(lambda: F.linear(torch.ones(3, 5), torch.ones(2, 4))),
            err(lambda: F.linear(torch.ones(3, 5), torch.ones(2, 5), torch.ones(3))),
            err(lambda: F.linear(torch.ones(3, 4, dtype=torch.float64), torch.ones(2, 4))),
            err(lambda: torch.nn.Linear(3, 2)(torch.ones(4, 2)))]


# ---------------------------------------------------------------------------- losses

def _pair(torch, dtype=None):
    return _x(torch, dtype), leaf(torch, T34, dtype)


def _loss_case(call, target_grad=True):
    def case(torch):
        obs = []
        for red in ("mean", "sum", "none"):
            x, t = _pair(torch)
            out = call(torch.nn.functional, x, t, red)
            obs += [info(out), graph(out.grad_fn, 2)] + run_grad(torch, out, [x, t if target_grad else None])
        return obs
    return case


CASES["loss_mse"] = _loss_case(lambda F, x, t, r: F.mse_loss(x, t, reduction=r))
CASES["loss_l1"] = _loss_case(lambda F, x, t, r: F.l1_loss(x, t, reduction=r))
CASES["loss_smooth_l1"] = _loss_case(lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r))
CASES["loss_smooth_l1_beta"] = _loss_case(lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.5))
CASES["loss_smooth_l1_beta0"] = _loss_case(lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.0))
CASES["loss_huber"] = _loss_case(lambda F, x, t, r: F.huber_loss(x, t, reduction=r))
CASES["loss_huber_delta"] = _loss_case(lambda F, x, t, r: F.huber_loss(x, t, reduction=r, delta=2.0))
CASES["loss_bce_with_logits"] = _loss_case(
    lambda F, x, t, r: F.binary_cross_entropy_with_logits(x, t, reduction=r))
CASES["loss_bce_with_logits_pos_weight"] = _loss_case(
    lambda F, x, t, r: F.binary_cross_entropy_with_logits(
        x, t, reduction=r, pos_weight=x.new_tensor([1.0, 2.0, 0.5, 3.0]),
        weight=x.new_tensor([[1.0], [0.5], [2.0]])))
CASES["loss_bce"] = _loss_case(lambda F, x, t, r: F.binary_cross_entropy(x.sigmoid(), t, reduction=r))
CASES["loss_bce_weight"] = _loss_case(
    lambda F, x, t, r: F.binary_cross_entropy(x.sigmoid(), t, reduction=r, weight=x.new_tensor([1.0, 2.0, 0.5, 3.0])))
CASES["loss_kl_div"] = _loss_case(lambda F, x, t, r: F.kl_div(x.log_softmax(1), t, reduction=r))
CASES["loss_kl_div_log_target"] = _loss_case(
    lambda F, x, t, r: F.kl_div(x.log_softmax(1), t.log(), reduction=r, log_target=True))


def case_loss_kl_div_batchmean_and_warning(torch):
    F = torch.nn.functional
    x, t = _pair(torch)
    a = F.kl_div(x.log_softmax(1), t.detach(), reduction="batchmean")
    b = F.kl_div(x.log_softmax(1), t.detach())
    return [info(a), graph(a.grad_fn, 2), info(b)] + run_grad(torch, a, [x])


def case_loss_broadcast_warning(torch):
    F = torch.nn.functional
    x = leaf(torch, [[1.0], [2.0], [4.0]])
    t = torch.tensor([0.5, 1.5])
    out = F.mse_loss(x, t)
    l1 = F.l1_loss(x, t)
    return [info(out), graph(out.grad_fn, 2), info(l1)] + run_grad(torch, out, [x]) + [
        err(lambda: F.mse_loss(torch.ones(3), torch.ones(4))),
        info(F.mse_loss(torch.ones(3, dtype=torch.float64), torch.zeros(3))),
        info(F.huber_loss(x, t)), info(F.smooth_l1_loss(x, t))]


def case_loss_weighted_elementwise(torch):
    F = torch.nn.functional
    x, t = _pair(torch)
    w = torch.tensor(T34) * 2
    return [info(F.mse_loss(x, t, weight=w)), info(F.l1_loss(x, t, weight=w, reduction="sum")),
            info(F.huber_loss(x, t, weight=w, reduction="none")),
            err(lambda: F.mse_loss(x, t, weight=torch.ones(4)))]


def case_loss_reduction_errors_and_legacy(torch):
    F = torch.nn.functional
    x, t = _pair(torch)
    return [err(lambda: F.mse_loss(x, t, reduction="foo")), err(lambda: F.kl_div(x, t, reduction="foo")),
            err(lambda: F.cross_entropy(x, torch.tensor([0, 1, 2]), reduction="bar")),
            info(F.mse_loss(x, t, size_average=False)), info(F.l1_loss(x, t, reduce=False)),
            info(F.nll_loss(x, torch.tensor([0, 1, 2]), size_average=True))]


def case_loss_bce_errors(torch):
    F = torch.nn.functional
    return [err(lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))),
            err(lambda: F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([[1.0]]))),
            err(lambda: F.binary_cross_entropy_with_logits(torch.tensor([0.5]), torch.tensor([[1.0]]))),
            info(F.binary_cross_entropy(torch.tensor([0.0, 1.0, 0.5]), torch.tensor([1.0, 0.0, 0.5])))]


TARGET3 = [0, 3, 1]


def _nll_case(**kw):
    def case(torch):
        F = torch.nn.functional
        obs = []
        for red in ("mean", "sum", "none"):
            x = _x(torch)
            extra = dict(kw)
            if "weight" in extra:
                extra["weight"] = torch.tensor(extra["weight"])
            out = F.nll_loss(x.log_softmax(1), torch.tensor(TARGET3), reduction=red, **extra)
            obs += [info(out), graph(out.grad_fn, 2)] + run_grad(torch, out, [x])
        return obs
    return case


CASES["loss_nll"] = _nll_case()
CASES["loss_nll_weight"] = _nll_case(weight=[1.0, 0.5, 2.0, 3.0])
CASES["loss_nll_ignore_index"] = _nll_case(ignore_index=3)
CASES["loss_nll_ignore_weight"] = _nll_case(ignore_index=1, weight=[1.0, 0.5, 2.0, 3.0])


def _ce_case(**kw):
    def case(torch):
        F = torch.nn.functional
        obs = []
        for red in ("mean", "sum", "none"):
            x = _x(torch)
            extra = dict(kw)
            if "weight" in extra:
                extra["weight"] = torch.tensor(extra["weight"])
            target = torch.tensor(extra.pop("target", TARGET3))
            out = F.cross_entropy(x, target, reduction=red, **extra)
            obs += [info(out), graph(out.grad_fn, 3)] + run_grad(torch, out, [x])
        return obs
    return case


CASES["loss_ce_indices"] = _ce_case()
CASES["loss_ce_weight"] = _ce_case(weight=[1.0, 0.5, 2.0, 3.0])
CASES["loss_ce_ignore_index"] = _ce_case(ignore_index=1)
CASES["loss_ce_label_smoothing"] = _ce_case(label_smoothing=0.1)
CASES["loss_ce_label_smoothing_weight_ignore"] = _ce_case(label_smoothing=0.2, weight=[1.0, 0.5, 2.0, 3.0],
                                                          ignore_index=3)
CASES["loss_ce_probabilities"] = _ce_case(target=T34)
CASES["loss_ce_probabilities_weight_smoothing"] = _ce_case(target=T34, weight=[1.0, 0.5, 2.0, 3.0],
                                                           label_smoothing=0.3)


def case_loss_ce_other_ranks(torch):
    F = torch.nn.functional
    x1 = leaf(torch, [0.5, -1.0, 2.0])
    a = F.cross_entropy(x1, torch.tensor(2))
    x3 = (torch.arange(24, dtype=torch.float32) / 5 - 2).reshape(2, 3, 4).requires_grad_()
    t3 = torch.tensor([[0, 1, 2, 1], [2, 2, 0, 1]])
    b = F.cross_entropy(x3, t3)
    c = F.cross_entropy(x3, t3, reduction="none")
    x4 = (torch.arange(24, dtype=torch.float32) / 5 - 2).reshape(2, 3, 2, 2).requires_grad_()
    t4 = torch.tensor([[[0, 1], [2, 1]], [[2, 2], [0, 1]]])
    d = F.cross_entropy(x4, t4)
    return [info(a), graph(a.grad_fn, 2)] + run_grad(torch, a, [x1]) + [info(b), graph(b.grad_fn, 2), info(c),
                                                                         graph(c.grad_fn, 2)] + \
        run_grad(torch, b, [x3]) + [info(d), graph(d.grad_fn, 2)] + run_grad(torch, d, [x4])


def case_loss_nll_ce_errors(torch):
    F = torch.nn.functional
    x = torch.ones(3, 4)
    return [err(lambda: F.nll_loss(x, torch.tensor([0, 1, 5]))),
            err(lambda: F.nll_loss(x, torch.tensor([0.0, 1, 2]))),
            err(lambda: F.cross_entropy(x, torch.tensor([0, 1]))),
            err(lambda: F.cross_entropy(x, torch.tensor([0, 1, 9]))),
            err(lambda: F.cross_entropy(x, torch.tensor([0.0, 1, 2]))),
            err(lambda: F.nll_loss(x, torch.tensor([0, 1, 2]), weight=torch.ones(3))),
            err(lambda: F.nll_loss(x, torch.tensor([[0, 1, 2]]))),
            err(lambda: F.cross_entropy(x, torch.tensor([0, 1, 2]), label_smoothing=1.5)),
            err(lambda: F.nll_loss(x, torch.tensor([0, -1, 2]))),
            info(F.nll_loss(x, torch.tensor([-100, -100, -100])))]


# ---------------------------------------------------------------------------- similarity, one_hot, pad

def case_cosine_similarity(torch):
    F = torch.nn.functional
    a = _x(torch)
    b = leaf(torch, T34)
    out = F.cosine_similarity(a, b)
    out0 = F.cosine_similarity(a, b, dim=0)
    c = leaf(torch, [1.0, 2.0, 3.0, 4.0])
    out_b = F.cosine_similarity(a, c, dim=-1)
    z = F.cosine_similarity(torch.zeros(2, 3), torch.ones(2, 3))
    return [info(out), graph(out.grad_fn, 3), info(out0), info(out_b), info(z)] + run_grad(torch, out, [a, b]) + \
        [err(lambda: F.cosine_similarity(torch.ones(3, 4), torch.ones(2, 4)))]


def case_normalize(torch):
    F = torch.nn.functional
    x = _x(torch)
    out = F.normalize(x)
    out0 = F.normalize(x, p=1.0, dim=0)
    return [info(out), graph(out.grad_fn, 3), info(out0), info(F.normalize(torch.zeros(2, 2)))] + \
        run_grad(torch, out, [x])


def case_one_hot(torch):
    F = torch.nn.functional
    t = torch.tensor([0, 2, 1, 2])
    return [info(F.one_hot(t)), info(F.one_hot(t, 5)), info(F.one_hot(torch.tensor([[1, 0], [2, 1]]))),
            err(lambda: F.one_hot(torch.tensor([1, 5]), 3)), err(lambda: F.one_hot(torch.tensor([1.0, 2]))),
            err(lambda: F.one_hot(torch.tensor([-1, 2])))]


def case_pad_constant(torch):
    F = torch.nn.functional
    x = _x(torch)
    a = F.pad(x, (1, 2))
    b = F.pad(x, (1, 1, 2, 0), value=-1.5)
    c = F.pad(x, (-1, 1))
    obs = [info(a), graph(a.grad_fn, 2), info(b), info(c)]
    obs += run_grad(torch, a + 0, [x])
    x.grad = None
    obs += run_grad(torch, c, [x])
    return obs + [err(lambda: F.pad(x, (1, 2, 3))), err(lambda: F.pad(torch.ones(3), (1, 1, 1, 1)))]


def case_pad_modes(torch):
    F = torch.nn.functional
    obs = []
    for mode in ("reflect", "replicate", "circular"):
        x = (torch.arange(12, dtype=torch.float32) / 3).reshape(1, 3, 4).requires_grad_()
        a = F.pad(x, (2, 1), mode=mode)
        obs += [info(a), fname(a)] + run_grad(torch, a, [x])
        y = (torch.arange(18, dtype=torch.float32) / 3).reshape(1, 2, 3, 3).requires_grad_()
        b = F.pad(y, (1, 2, 2, 1), mode=mode)
        obs += [info(b), fname(b)] + run_grad(torch, b, [y])
    return obs + [err(lambda: F.pad(torch.ones(3), (1, 1), mode="reflect")),
                  err(lambda: F.pad(torch.ones(1, 3), (3, 3), mode="reflect")),
                  err(lambda: F.pad(torch.ones(1, 3), (1, 1), mode="reflect", value=2.0)),
                  err(lambda: F.pad(torch.ones(1, 3), (1, 1), mode="foo"))]


# ---------------------------------------------------------------------------- dropout

def case_dropout(torch):
    F = torch.nn.functional
    x = _x(torch)
    ev = F.dropout(x, 0.5, training=False)
    z = F.dropout(x, 0.0)
    one = F.dropout(x, 1.0)
    d = F.dropout(x, 0.25)
    kept = ((d == 0) | ((d - x / 0.75).abs() < 1e-6)).all().item()
    m = torch.nn.Dropout(0.3)
    m.eval()
    e2 = m(x)
    y = torch.ones(1000)
    frac = (F.dropout(y, 0.3) == 0).float().mean().item()
    return [ev is x, z is x, info(one), graph(one.grad_fn, 1), fname(d), kept, list(d.shape), e2 is x,
            0.2 < frac < 0.4, err(lambda: F.dropout(x, 1.5)), err(lambda: torch.nn.Dropout(-0.1)),
            info(F.dropout(x, 0.5, False))]


# ---------------------------------------------------------------------------- conv / pool

def _img(torch, shape, scale=7.0, dtype=None):
    n = 1
    for s in shape:
        n *= s
    t = ((torch.arange(n, dtype=torch.float64) * 37 % 23) / scale - 1.5).reshape(shape)
    return t.to(dtype or torch.float32).requires_grad_()


def _conv_case(nd, xshape, wshape, bias=True, **kw):
    def case(torch):
        F = torch.nn.functional
        x = _img(torch, xshape)
        w = _img(torch, wshape, scale=11.0)
        b = (torch.arange(wshape[0], dtype=torch.float32) / 4 - 0.3).requires_grad_() if bias else None
        fn = F.conv1d if nd == 1 else F.conv2d
        out = fn(x, w, b, **kw)
        return [info(out), graph(out.grad_fn, 1)] + run_grad(torch, out, [x, w, b])
    return case


CASES["conv2d_basic"] = _conv_case(2, (1, 2, 5, 5), (3, 2, 3, 3))
CASES["conv2d_no_bias_batch"] = _conv_case(2, (2, 2, 4, 5), (3, 2, 2, 3), bias=False)
CASES["conv2d_stride_padding"] = _conv_case(2, (1, 2, 6, 5), (2, 2, 3, 3), stride=2, padding=1)
CASES["conv2d_stride_tuple_dilation"] = _conv_case(2, (2, 1, 7, 6), (2, 1, 2, 2), stride=(1, 2), padding=(2, 1),
                                                   dilation=2)
CASES["conv2d_groups"] = _conv_case(2, (1, 4, 4, 4), (6, 2, 3, 3), groups=2, padding=1)
CASES["conv2d_padding_same"] = _conv_case(2, (1, 2, 5, 4), (2, 2, 2, 3), padding="same")
CASES["conv2d_padding_valid"] = _conv_case(2, (1, 2, 5, 4), (2, 2, 2, 3), padding="valid")
CASES["conv2d_unbatched"] = _conv_case(2, (2, 5, 5), (3, 2, 3, 3))
CASES["conv1d_basic"] = _conv_case(1, (2, 3, 7), (4, 3, 3))
CASES["conv1d_stride_padding_dilation"] = _conv_case(1, (1, 2, 9), (2, 2, 3), stride=2, padding=2, dilation=2)
CASES["conv1d_groups_same"] = _conv_case(1, (1, 4, 6), (4, 1, 3), groups=4, padding="same")


def case_conv_errors(torch):
    F = torch.nn.functional
    return [err(lambda: F.conv2d(torch.ones(1, 4, 5, 5), torch.ones(3, 2, 3, 3))),
            err(lambda: F.conv2d(torch.ones(1, 2, 2, 2), torch.ones(3, 2, 3, 3))),
            err(lambda: F.conv2d(torch.ones(5, 5), torch.ones(3, 2, 3, 3))),
            err(lambda: F.conv1d(torch.ones(1, 1, 2), torch.ones(1, 1, 3))),
            err(lambda: F.conv1d(torch.ones(1, 1, 2), torch.ones(1, 1, 1), stride=2, padding="same")),
            err(lambda: F.conv2d(torch.ones(1, 4, 5, 5), torch.ones(4, 2, 3, 3), groups=3)),
            err(lambda: F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2), torch.ones(2))),
            err(lambda: F.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.float64), torch.ones(1, 1, 2, 2)))]


def _pool_case(kind, xshape, *args, **kw):
    def case(torch):
        F = torch.nn.functional
        x = _img(torch, xshape)
        fn = F.max_pool2d if kind == "max" else F.avg_pool2d
        out = fn(x, *args, **kw)
        return [info(out), graph(out.grad_fn, 1)] + run_grad(torch, out, [x])
    return case


CASES["max_pool2d_basic"] = _pool_case("max", (1, 2, 4, 4), 2)
CASES["max_pool2d_stride_padding"] = _pool_case("max", (2, 1, 5, 5), 3, 2, 1)
CASES["max_pool2d_dilation_ceil"] = _pool_case("max", (1, 1, 7, 6), 2, stride=2, dilation=2, ceil_mode=True)
CASES["max_pool2d_rect_unbatched"] = _pool_case("max", (2, 5, 4), (2, 3), stride=(1, 1))
CASES["avg_pool2d_basic"] = _pool_case("avg", (1, 2, 4, 4), 2)
CASES["avg_pool2d_padding"] = _pool_case("avg", (1, 1, 5, 5), 3, 2, 1)
CASES["avg_pool2d_no_pad_count"] = _pool_case("avg", (1, 1, 5, 5), 3, 2, 1, count_include_pad=False)
CASES["avg_pool2d_ceil"] = _pool_case("avg", (1, 1, 5, 5), 2, ceil_mode=True)
CASES["avg_pool2d_divisor"] = _pool_case("avg", (2, 1, 4, 4), 2, divisor_override=3)


def case_max_pool_indices_ties_and_errors(torch):
    F = torch.nn.functional
    x = torch.tensor([[[[1.0, 1.0, 2.0, 0.0], [1.0, 0.5, 2.0, 2.0], [0.0, 0.0, -1.0, -1.0],
                        [0.0, 0.0, -1.0, -2.0]]]], requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    return [info(out), info(idx)] + run_grad(torch, out, [x]) + [
        err(lambda: F.max_pool2d(torch.ones(1, 1, 4, 4), 2, padding=2)),
        err(lambda: F.max_pool2d(torch.ones(1, 1, 1, 1), 2)),
        err(lambda: F.avg_pool2d(torch.ones(1, 1, 4, 4), 2, padding=2))]


def case_unfold(torch):
    F = torch.nn.functional
    x = _img(torch, (1, 2, 4, 4))
    out = F.unfold(x, 2, stride=2)
    out2 = F.unfold(x, (2, 3), padding=1)
    return [info(out), graph(out.grad_fn, 1), info(out2)] + run_grad(torch, out2, [x])


# ---------------------------------------------------------------------------- normalisation

def case_layer_norm(torch):
    F = torch.nn.functional
    x = _x(torch)
    w = leaf(torch, [1.0, 0.5, -1.0, 2.0])
    b = leaf(torch, [0.0, 0.1, 0.2, -0.3])
    a = F.layer_norm(x, (4,), w, b)
    obs = [info(a), graph(a.grad_fn, 1)] + run_grad(torch, a, [x, w, b])
    x.grad = None
    c = F.layer_norm(x, (3, 4), eps=1e-3)
    obs += [info(c), graph(c.grad_fn, 1)] + run_grad(torch, c, [x])
    return obs + [err(lambda: F.layer_norm(torch.ones(3, 5), (4,))),
                  err(lambda: F.layer_norm(torch.ones(3, 4), (4,), torch.ones(3)))]


def case_batch_norm_training(torch):
    F = torch.nn.functional
    x = _x(torch)
    rm = torch.tensor([0.5, 0.0, -0.5, 1.0])
    rv = torch.tensor([1.0, 2.0, 0.5, 1.5])
    w = leaf(torch, [1.0, 0.5, -1.0, 2.0])
    b = leaf(torch, [0.0, 0.1, 0.2, -0.3])
    out = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2)
    obs = [info(out), graph(out.grad_fn, 1), vals(rm), vals(rv)] + run_grad(torch, out, [x, w, b])
    y = (torch.arange(24, dtype=torch.float32) / 5 - 2).reshape(2, 3, 4).requires_grad_()
    out3 = F.batch_norm(y, None, None, training=True)
    obs += [info(out3), graph(out3.grad_fn, 1)] + run_grad(torch, out3, [y])
    return obs + [err(lambda: F.batch_norm(torch.ones(1, 3), None, None, training=True)),
                  err(lambda: F.batch_norm(torch.ones(4, 3), None, None))]


def case_batch_norm_eval(torch):
    F = torch.nn.functional
    x = _x(torch)
    rm = torch.tensor([0.5, 0.0, -0.5, 1.0])
    rv = torch.tensor([1.0, 2.0, 0.5, 1.5])
    w = leaf(torch, [1.0, 0.5, -1.0, 2.0])
    b = leaf(torch, [0.0, 0.1, 0.2, -0.3])
    out = F.batch_norm(x, rm, rv, w, b)
    return [info(out), graph(out.grad_fn, 1), vals(rm), vals(rv)] + run_grad(torch, out, [x, w, b])


def case_embedding(torch):
    F = torch.nn.functional
    w = (torch.arange(15, dtype=torch.float32) / 4 - 1).reshape(5, 3).requires_grad_()
    idx = torch.tensor([[0, 2, 2], [4, 1, 0]])
    out = F.embedding(idx, w)
    obs = [info(out), graph(out.grad_fn, 1)] + run_grad(torch, out, [w])
    w.grad = None
    out2 = F.embedding(idx, w, padding_idx=2)
    obs += [info(out2)] + run_grad(torch, out2, [w])
    return obs + [err(lambda: F.embedding(torch.tensor([5]), w)),
                  err(lambda: F.embedding(torch.tensor([1.0]), w)),
                  info(torch.embedding(w, torch.tensor([1, 3])))]


# ---------------------------------------------------------------------------- modules

def case_module_reprs(torch):
    nn = torch.nn
    mods = [nn.Linear(3, 2), nn.Linear(2, 2, bias=False), nn.ReLU(), nn.ReLU(inplace=True), nn.Tanh(), nn.Sigmoid(),
            nn.Softmax(dim=1), nn.Softmax(), nn.LogSoftmax(1), nn.GELU(), nn.GELU("tanh"), nn.LeakyReLU(),
            nn.LeakyReLU(0.2, inplace=True), nn.Dropout(), nn.Dropout(0.2), nn.Flatten(), nn.Flatten(0, 2),
            nn.Identity(), nn.Conv1d(2, 4, 3, stride=2, padding=1, bias=False), nn.Conv2d(1, 2, 3),
            nn.Conv2d(2, 4, (3, 2), stride=(2, 1), padding=1, dilation=2, groups=2, padding_mode="reflect"),
            nn.Conv2d(2, 2, 3, padding="same"), nn.MaxPool2d(2), nn.MaxPool2d(3, stride=1, padding=1, ceil_mode=True),
            nn.AvgPool2d(2), nn.AvgPool2d(3, 2, 1), nn.LayerNorm(4), nn.LayerNorm((2, 3), elementwise_affine=False),
            nn.LayerNorm(4, bias=False), nn.BatchNorm1d(3), nn.BatchNorm1d(3, affine=False, track_running_stats=False),
            nn.BatchNorm2d(2, momentum=None), nn.Embedding(5, 3), nn.Embedding(5, 3, padding_idx=0),
            nn.MSELoss(), nn.MSELoss(reduction="sum"), nn.L1Loss(), nn.CrossEntropyLoss(),
            nn.CrossEntropyLoss(label_smoothing=0.1), nn.NLLLoss(), nn.BCELoss(), nn.BCEWithLogitsLoss(),
            nn.HuberLoss(), nn.SmoothL1Loss(), nn.KLDivLoss(), nn.ELU(), nn.ELU(alpha=2.0), nn.SiLU(),
            nn.Softplus(), nn.Softplus(beta=2, threshold=10), nn.Hardtanh(), nn.Hardtanh(-2, 2), nn.ReLU6(),
            nn.Mish(), nn.SELU(), nn.CELU(0.5), nn.Softsign(), nn.Hardsigmoid(), nn.Hardswish(), nn.Tanhshrink(),
            nn.LogSigmoid(), nn.Unflatten(1, (2, 2)), nn.Module()]
    return [repr(m) for m in mods] + [str(nn.Linear(1, 1))]


def case_container_reprs(torch):
    nn = torch.nn
    seq = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Sequential(nn.Linear(2, 2), nn.Tanh()), nn.Linear(2, 1))
    ml = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)])
    return [repr(seq), repr(nn.Sequential()), repr(nn.ModuleList()), repr(ml), repr(seq[0]), repr(seq[-1]),
            repr(seq[1:3]), len(seq), [type(m).__name__ for m in seq], len(ml), repr(ml[1]),
            err(lambda: seq[7]), err(lambda: ml[4]), repr(type(seq[0])), repr(type(seq))]


def _net_class(torch):
    nn = torch.nn
    F = torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(10, 5)
            self.fc2 = nn.Linear(5, 2)

        def forward(self, x):
            x = F.relu(self.fc1(x))
            return self.fc2(x)

    return Net


def _set_seed_weights(torch, model):
    with torch.no_grad():
        model.fc1.weight.copy_((torch.arange(50.0) / 25 - 1).view(5, 10))
        model.fc1.bias.copy_(torch.tensor([0.1, -0.1, 0.2, -0.2, 0.0]))
        model.fc2.weight.copy_((torch.arange(10.0) / 10 - 0.45).view(2, 5))
        model.fc2.bias.copy_(torch.tensor([0.05, -0.05]))


def case_net_module_basics(torch):
    Net = _net_class(torch)
    model = Net()
    _set_seed_weights(torch, model)
    x = (torch.arange(30.0) / 15 - 1).view(3, 10)
    out = model(x)
    names = [(n, list(p.shape), p.requires_grad, type(p).__name__) for n, p in model.named_parameters()]
    sd = model.state_dict()
    return [repr(model), info(out), graph(out.grad_fn, 3), names, len(list(model.parameters())),
            [type(m).__name__ for m in model.children()], [n for n, _ in model.named_modules()],
            list(sd.keys()), repr(sd["fc2.bias"]), repr(model.fc2.bias), isinstance(model.fc1.weight, torch.Tensor),
            isinstance(model.fc1.weight, torch.nn.Parameter), isinstance(model, torch.nn.Module), model.training,
            err(lambda: model.fc3), repr(model.fc1.weight.data), repr(model.fc2.weight.detach())]


def case_state_dict_repr(torch):
    nn = torch.nn
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    with torch.no_grad():
        m[0].weight.copy_(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))
        m[0].bias.fill_(0.25)
    sd = m.state_dict()
    m2 = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    res = m2.load_state_dict(sd)
    return [repr(sd), list(sd.keys()), repr(res), repr(m2[0].weight),
            err(lambda: m2.load_state_dict({"0.weight": torch.ones(2, 2)})),
            [n for n, _ in m.named_buffers()], repr(m[1].num_batches_tracked)]


def case_module_train_eval_grad_modes(torch):
    nn = torch.nn
    m = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.Sequential(nn.BatchNorm1d(2)))
    obs = [m.training, m[1].training, m[2][0].training]
    r = m.eval()
    obs += [r is m, m.training, m[1].training, m[2][0].training]
    m.train()
    obs += [m[2][0].training, m.train(False) is m, m[1].training]
    r = m.requires_grad_(False)
    obs += [r is m, [p.requires_grad for p in m.parameters()]]
    m.requires_grad_()
    obs += [[p.requires_grad for p in m.parameters()]]
    return obs + [err(lambda: m.train("yes"))]


def case_module_zero_grad(torch):
    nn = torch.nn
    m = nn.Linear(3, 2)
    with torch.no_grad():
        m.weight.fill_(0.5)
        m.bias.fill_(-1.0)
    m(torch.ones(4, 3)).sum().backward()
    g1 = [vals(m.weight.grad), vals(m.bias.grad)]
    m.zero_grad(set_to_none=False)
    g2 = [vals(m.weight.grad), vals(m.bias.grad)]
    m.zero_grad()
    return [g1, g2, m.weight.grad is None, m.bias.grad is None]


def case_module_to_dtype(torch):
    nn = torch.nn
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    r = m.double()
    obs = [r is m, [str(p.dtype) for p in m.parameters()], [str(b.dtype) for b in m.buffers()]]
    m.float()
    obs += [[str(p.dtype) for p in m.parameters()]]
    m.to(torch.float64)
    obs += [[str(p.dtype) for p in m.parameters()], type(m[0].weight).__name__]
    m.to(dtype=torch.float32)
    p = m[0].weight
    m.to("cpu")
    return obs + [[str(p.dtype) for p in m.parameters()], m[0].weight is p, str(m[0].weight.device),
                  err(lambda: m.to(torch.int64))]


def case_module_attribute_rules(torch):
    nn = torch.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(2))
            self.scale = 3
            self.register_buffer("buf", torch.zeros(2))

        def forward(self, x):
            return x * self.w * self.scale + self.buf

    m = M()
    out = m(torch.tensor([1.0, 2.0]))
    obs = [info(out), [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()], m.scale,
           repr(m), list(m.state_dict().keys())]
    obs.append(err(lambda: setattr(m, "w", torch.ones(2))))
    m.w = None
    obs.append([n for n, _ in m.named_parameters()])
    m.w = nn.Parameter(torch.zeros(3))
    obs.append([n for n, _ in m.named_parameters()])
    obs.append(err(lambda: nn.Module()(torch.ones(1))))

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(torch.ones(1))
            super().__init__()

    obs.append(err(Early))

    class EarlyMod(nn.Module):
        def __init__(self):
            self.l = nn.Linear(1, 1)
            super().__init__()

    obs.append(err(EarlyMod))
    obs.append(err(lambda: nn.Linear(2, 2).missing))
    return obs


def case_parameter(torch):
    nn = torch.nn
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    q = nn.Parameter(torch.ones(2, dtype=torch.float64))
    r = nn.Parameter(torch.ones(2), requires_grad=False)
    y = p * 2
    return [repr(p), str(p), repr(q), repr(r), p.requires_grad, p.is_leaf, type(y).__name__, info(y),
            isinstance(p, torch.Tensor), isinstance(y, nn.Parameter), type(p.detach()).__name__,
            repr(nn.parameter.Parameter(torch.zeros(1))), err(lambda: nn.Parameter(torch.tensor([1, 2]))),
            repr(nn.Parameter())]


def case_sequential_ops(torch):
    nn = torch.nn
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    seq.append(nn.Linear(3, 1))
    with torch.no_grad():
        for i, p in enumerate(seq.parameters()):
            p.copy_((torch.arange(p.numel(), dtype=torch.float32) / 4 - 0.5 + i / 10).view(p.shape))
    out = seq(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))
    names = [n for n, _ in seq.named_parameters()]
    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml.append(nn.ReLU())
    ml.extend([nn.Tanh()])
    return [info(out), graph(out.grad_fn, 2), names, len(seq), repr(seq), len(ml), repr(ml),
            [type(m).__name__ for m in ml], err(lambda: ml(torch.ones(1)))]


def case_default_init_bounds(torch):
    nn = torch.nn
    obs = []
    for m, fan_in in ((nn.Linear(10, 5), 10), (nn.Linear(3, 7), 3), (nn.Conv2d(2, 4, 3), 18),
                      (nn.Conv1d(3, 2, 5), 15)):
        bound = 1 / math.sqrt(fan_in)
        obs.append([list(m.weight.shape), m.weight.abs().max().item() <= bound + 1e-7,
                    m.bias.abs().max().item() <= bound + 1e-7, m.weight.std().item() > bound / 4,
                    str(m.weight.dtype), m.weight.requires_grad, m.weight.is_leaf])
    e = nn.Embedding(50, 4, padding_idx=1)
    ln = nn.LayerNorm(3)
    bn = nn.BatchNorm1d(3)
    obs += [vals(e.weight[1]), 0.5 < e.weight.std().item() < 1.5, vals(ln.weight), vals(ln.bias), vals(bn.weight),
            vals(bn.bias), vals(bn.running_mean), vals(bn.running_var), repr(bn.num_batches_tracked)]
    d = nn.Linear(2, 3, dtype=torch.float64)
    return obs + [str(d.weight.dtype), str(d.bias.dtype)]


def _set_params(torch, m, offset=0.0):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            n = p.numel()
            p.copy_(((torch.arange(n, dtype=torch.float64) * 7 % 11) / 10 - 0.5 + offset + i / 20)
                    .view(p.shape).to(p.dtype))


def case_modules_forward(torch):
    nn = torch.nn
    x = _x(torch)
    obs = []
    for m in (nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.Softmax(dim=1), nn.LogSoftmax(dim=1), nn.GELU(),
              nn.GELU("tanh"), nn.LeakyReLU(0.1), nn.ELU(), nn.SiLU(), nn.Softplus(), nn.Hardtanh(), nn.ReLU6(),
              nn.Mish(), nn.SELU(), nn.CELU(), nn.Softsign(), nn.Hardsigmoid(), nn.Hardswish(), nn.Tanhshrink(),
              nn.LogSigmoid(), nn.Identity(), nn.Flatten(0), nn.Unflatten(1, (2, 2))):
        out = m(x)
        obs.append([type(m).__name__, info(out)])
    return obs


def case_modules_layers_forward_backward(torch):
    nn = torch.nn
    obs = []
    img = _img(torch, (2, 2, 5, 5))
    layers = [(nn.Conv2d(2, 3, 3, padding=1), img), (nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect"), img),
              (nn.Conv2d(2, 2, 3, padding=1, padding_mode="replicate", bias=False), img),
              (nn.Conv1d(2, 2, 3, stride=2), _img(torch, (1, 2, 7))), (nn.MaxPool2d(2), img),
              (nn.AvgPool2d(3, stride=2, padding=1), img), (nn.Flatten(), img), (nn.LayerNorm(5), img),
              (nn.LayerNorm((5, 5)), img), (nn.BatchNorm2d(2), img), (nn.Linear(5, 3), img)]
    for m, inp in layers:
        _set_params(torch, m)
        inp.grad = None
        out = m(inp)
        obs.append([repr(m), info(out), graph(out.grad_fn, 1)] + run_grad(torch, out, [inp]) +
                   [[vals(p.grad) for p in m.parameters()]])
    return obs


def case_batchnorm1d_module_running_stats(torch):
    nn = torch.nn
    bn = nn.BatchNorm1d(3)
    _set_params(torch, bn)
    x = (torch.arange(12, dtype=torch.float32) / 3 - 1).view(4, 3)
    obs = []
    for _ in range(3):
        out = bn(x * 1.5 + 0.5)
        obs.append([info(out), vals(bn.running_mean), vals(bn.running_var), bn.num_batches_tracked.item()])
    bn.eval()
    out = bn(x)
    obs.append([info(out), vals(bn.running_mean), bn.num_batches_tracked.item()])
    cma = nn.BatchNorm1d(3, momentum=None)
    cma(x)
    cma(x * 2)
    obs.append([vals(cma.running_mean), vals(cma.running_var)])
    nt = nn.BatchNorm1d(3, track_running_stats=False)
    nt.eval()
    obs.append(info(nt(x)))
    return obs + [err(lambda: bn(torch.ones(2, 3, 4, 5))), err(lambda: nn.BatchNorm1d(3)(torch.ones(1, 3)))]


def case_embedding_module(torch):
    nn = torch.nn
    e = nn.Embedding(6, 3, padding_idx=0)
    _set_params(torch, e)
    out = e(torch.tensor([[0, 1], [5, 0]]))
    return [info(out), graph(out.grad_fn, 1)] + run_grad(torch, out, [e.weight]) + [repr(e)]


def _loss_modules(torch):
    nn = torch.nn
    return [nn.MSELoss(), nn.MSELoss(reduction="sum"), nn.L1Loss(), nn.L1Loss(reduction="none"), nn.HuberLoss(),
            nn.HuberLoss(delta=0.5), nn.SmoothL1Loss(beta=0.3), nn.BCEWithLogitsLoss(),
            nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 1.0, 0.5, 1.0]))]


def case_loss_modules(torch):
    nn = torch.nn
    obs = []
    for m in _loss_modules(torch):
        x, t = _pair(torch)
        out = m(x, t)
        obs.append([repr(m), info(out)] + run_grad(torch, out, [x]))
    x, t = _pair(torch)
    obs.append(info(nn.BCELoss()(x.sigmoid(), t)))
    obs.append(info(nn.BCELoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0]))(x.sigmoid(), t)))
    obs.append(info(nn.CrossEntropyLoss()(x, torch.tensor(TARGET3))))
    obs.append(info(nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0]), label_smoothing=0.05,
                                        ignore_index=0)(x, torch.tensor(TARGET3))))
    obs.append(info(nn.NLLLoss(reduction="none")(x.log_softmax(1), torch.tensor(TARGET3))))
    obs.append(info(nn.KLDivLoss(reduction="batchmean")(x.log_softmax(1), t)))
    obs.append(info(nn.KLDivLoss()(x.log_softmax(1), t)))
    obs.append(repr(nn.CrossEntropyLoss(weight=torch.ones(2))))
    obs.append(repr(nn.MSELoss(size_average=False)))
    return obs


# ---------------------------------------------------------------------------- init

def case_init_functions(torch):
    init = torch.nn.init
    w = torch.empty(3, 5)
    obs = [init.constant_(w, 0.5) is w, vals(w)]
    init.zeros_(w)
    obs.append(vals(w))
    init.ones_(w)
    obs.append(vals(w))
    init.eye_(w)
    obs.append(vals(w))
    a = torch.empty(30, 20)
    init.uniform_(a, -0.5, 0.25)
    obs.append([a.min().item() >= -0.5, a.max().item() <= 0.25])
    init.normal_(a, 2.0, 0.1)
    obs.append(1.9 < a.mean().item() < 2.1)
    init.xavier_uniform_(a)
    bound = math.sqrt(6 / 50)
    obs.append([a.abs().max().item() <= bound, a.abs().max().item() > bound / 2])
    init.xavier_normal_(a, gain=2.0)
    obs.append(0.3 < a.std().item() < 0.5)
    init.kaiming_uniform_(a, a=math.sqrt(5))
    obs.append([a.abs().max().item() <= 1 / math.sqrt(20) + 1e-7, a.abs().max().item() > 0.1])
    init.kaiming_normal_(a, mode="fan_out", nonlinearity="relu")
    obs.append(0.2 < a.std().item() < 0.35)
    p = torch.nn.Parameter(torch.zeros(2, 2))
    init.ones_(p)
    obs += [repr(p), p.is_leaf, p.grad_fn is None]
    obs += [init.calculate_gain("relu"), init.calculate_gain("tanh"), init.calculate_gain("leaky_relu", 0.2),
            init.calculate_gain("linear"), init.calculate_gain("selu"), init.calculate_gain("conv2d"),
            err(lambda: init.calculate_gain("foo")), err(lambda: init.xavier_uniform_(torch.ones(3))),
            err(lambda: init.eye_(torch.ones(2, 2, 2))),
            err(lambda: init.kaiming_uniform_(torch.ones(2, 2), mode="fan_middle"))]
    return obs


# ---------------------------------------------------------------------------- training (the seeds' model)

def case_train_two_layer_sgd(torch):
    """The seeds' Net (Linear(10,5) -> relu -> Linear(5,2)), MSE, SGD lr 0.01, fixed data."""
    Net = _net_class(torch)
    model = Net()
    _set_seed_weights(torch, model)
    x = (torch.arange(40.0) % 9 / 4 - 1).view(4, 10)
    y = (torch.arange(8.0) % 3 - 1).view(4, 2)
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for _ in range(8):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(repr(loss))
    return [repr(optimizer), losses, vals(model.fc1.weight), vals(model.fc2.bias), repr(model(x))]


def case_train_classifier_adam(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    _set_params(torch, model)
    x = (torch.arange(24.0) * 5 % 13 / 6 - 1).view(6, 4)
    y = torch.tensor([0, 1, 2, 1, 0, 2])
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(10):
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    pred = model(x).argmax(dim=1)
    return [losses, vals(pred), repr(opt), sorted(opt.state[model[0].weight].keys()),
            repr(opt.state[model[0].weight]["step"])]


# ---------------------------------------------------------------------------- optimizers

def _opt_problem(torch, dtype=None):
    w = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=dtype or torch.float32, requires_grad=True)
    b = torch.tensor([0.1, -0.2], dtype=dtype or torch.float32, requires_grad=True)
    return w, b


def _opt_loss(torch, w, b):
    x = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0], [2.0, 0.0, 1.0], [-1.0, 1.0, 0.5]], dtype=w.dtype)
    y = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0], [0.5, 0.5]], dtype=w.dtype)
    out = torch.tanh(x @ w.t() + b)
    return ((out - y) ** 2).mean() + (w ** 2).sum() * 0.01


def _opt_case(cls_name, steps=6, dtype=None, **kw):
    def case(torch):
        w, b = _opt_problem(torch, getattr(torch, dtype) if dtype else None)
        opt = getattr(torch.optim, cls_name)([w, b], **kw)
        obs = [repr(opt)]
        for _ in range(steps):
            opt.zero_grad()
            loss = _opt_loss(torch, w, b)
            loss.backward()
            opt.step()
            obs.append([loss.item(), vals(w), vals(b)])
        st = opt.state[w]
        obs.append(sorted(st.keys()))
        obs.append([repr(v) if not isinstance(v, (int, float)) else v for _, v in sorted(st.items())])
        return obs
    return case


_OPT_VARIANTS = {
    "SGD": [{"lr": 0.1}, {"lr": 0.1, "momentum": 0.9}, {"lr": 0.1, "momentum": 0.9, "dampening": 0.5},
            {"lr": 0.05, "momentum": 0.8, "nesterov": True}, {"lr": 0.1, "weight_decay": 0.1},
            {"lr": 0.1, "maximize": True}, {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.05, "maximize": True}, {}],
    "Adam": [{}, {"lr": 0.1}, {"lr": 0.05, "betas": (0.8, 0.9)}, {"lr": 0.05, "amsgrad": True},
             {"lr": 0.05, "weight_decay": 0.1}, {"lr": 0.05, "maximize": True}, {"lr": 0.05, "eps": 0.1}],
    "AdamW": [{}, {"lr": 0.1}, {"lr": 0.05, "amsgrad": True}, {"lr": 0.05, "weight_decay": 0.5},
              {"lr": 0.05, "betas": (0.5, 0.6), "maximize": True}],
    "RMSprop": [{}, {"lr": 0.05, "alpha": 0.9}, {"lr": 0.02, "momentum": 0.9}, {"lr": 0.02, "centered": True},
                {"lr": 0.02, "centered": True, "momentum": 0.5, "weight_decay": 0.1}, {"lr": 0.02, "maximize": True}],
    "Adagrad": [{}, {"lr": 0.1}, {"lr": 0.1, "lr_decay": 0.1}, {"lr": 0.1, "initial_accumulator_value": 0.5},
                {"lr": 0.1, "weight_decay": 0.1, "eps": 1e-3}, {"lr": 0.1, "maximize": True}],
}
for _cls, _variants in _OPT_VARIANTS.items():
    for _i, _kw in enumerate(_variants):
        CASES[f"optim_{_cls}_{_i}"] = _opt_case(_cls, **_kw)
CASES["optim_SGD_float64"] = _opt_case("SGD", dtype="float64", lr=0.1, momentum=0.9, nesterov=True)
CASES["optim_Adam_float64"] = _opt_case("Adam", dtype="float64", lr=0.1, amsgrad=True, weight_decay=0.01)


def case_optim_param_groups_and_lr_change(torch):
    w, b = _opt_problem(torch)
    opt = torch.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5, "momentum": 0.9}], lr=0.1)
    obs = [repr(opt), len(opt.param_groups), sorted(opt.param_groups[0].keys()), opt.param_groups[1]["lr"],
           repr(opt.defaults)]
    for step in range(4):
        opt.zero_grad()
        _opt_loss(torch, w, b).backward()
        opt.step()
        if step == 1:
            for g in opt.param_groups:
                g["lr"] = g["lr"] / 10
        obs.append([vals(w), vals(b)])
    sd = opt.state_dict()
    obs += [repr(sd["param_groups"]), sorted(sd["state"].keys()), repr(opt)]
    return obs


def case_optim_zero_grad_and_skips(torch):
    w, b = _opt_problem(torch)
    c = torch.tensor([1.0], requires_grad=True)
    opt = torch.optim.Adam([w, b, c], lr=0.1)
    _opt_loss(torch, w, b).backward()
    opt.step()
    obs = [c.grad is None, vals(c), len(opt.state), c in opt.state]
    opt.zero_grad(set_to_none=False)
    obs += [vals(w.grad), w.grad is not None]
    opt.zero_grad()
    obs += [w.grad is None, b.grad is None]
    opt.step()
    obs.append(vals(w))
    return obs


def case_optim_closure_and_add_param_group(torch):
    w, b = _opt_problem(torch)
    opt = torch.optim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = _opt_loss(torch, w, b)
        loss.backward()
        return loss

    loss = opt.step(closure)
    opt.add_param_group({"params": b, "lr": 0.01})
    opt.step(closure)
    return [repr(loss), vals(w), vals(b), repr(opt), len(opt.param_groups)]


def case_optim_errors(torch):
    optim = torch.optim
    w, b = _opt_problem(torch)
    y = w * 2
    return [err(lambda: optim.SGD(w, lr=0.1)), err(lambda: optim.SGD([], lr=0.1)),
            err(lambda: optim.SGD([w], lr=-1)), err(lambda: optim.SGD([w], lr=0.1, momentum=-0.5)),
            err(lambda: optim.SGD([w], lr=0.1, nesterov=True)), err(lambda: optim.SGD([y], lr=0.1)),
            err(lambda: optim.SGD([1.0], lr=0.1)), err(lambda: optim.Adam([w], betas=(1.0, 0.9))),
            err(lambda: optim.Adam([w], betas=(0.9, 1.5))), err(lambda: optim.Adam([w], eps=-1.0)),
            err(lambda: optim.Adam([w], weight_decay=-1.0)), err(lambda: optim.RMSprop([w], alpha=-1.0)),
            err(lambda: optim.Adagrad([w], lr_decay=-1.0)), err(lambda: optim.Adam([w], betas=(0, 0.9))),
            err(lambda: optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)),
            err(lambda: optim.SGD([w, w], lr=0.1)), err(lambda: optim.SGD([w], lr=0.1, weight_decay=-0.1))]


def case_optim_default_reprs(torch):
    w, b = _opt_problem(torch)
    o = torch.optim
    return [repr(o.SGD([w])), repr(o.Adam([w])), repr(o.AdamW([w])), repr(o.RMSprop([w])), repr(o.Adagrad([w])),
            repr(o.SGD([w], 0.1, 0.9, 0, 0.01, True)), repr(o.Adam([w], 0.01, (0.8, 0.9), 1e-6, 0.1, True)),
            str(o.RMSprop([w], lr=0.1, momentum=0.5, centered=True)), repr(type(o.SGD([w]))),
            repr(o.Adagrad([w]).state[w])]


def case_optim_adagrad_state_from_start(torch):
    w, b = _opt_problem(torch)
    opt = torch.optim.Adagrad([w, b], initial_accumulator_value=0.25)
    return [sorted(opt.state[w].keys()), repr(opt.state[b]["sum"]), repr(opt.state[b]["step"]), len(opt.state)]


# ---------------------------------------------------------------------------- autograd.functional

def _f_poly(torch):
    def f(x):
        return x ** 3 + x.sin() * 2
    return f


def case_af_jacobian(torch):
    AF = torch.autograd.functional
    x = torch.tensor([0.5, -1.0, 2.0])
    J = AF.jacobian(lambda t: t ** 2 * 3 + t.sum(), x)
    y = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    J2 = AF.jacobian(lambda a, b: (a * b.sum(), a.exp()), (x, y))
    J3 = AF.jacobian(lambda t: (t ** 2).sum(), x, create_graph=True)
    J4 = AF.jacobian(lambda t: t.sum(), x)
    return [info(J), [[info(j) for j in row] for row in J2], info(J3), info(J4),
            info(AF.jacobian(lambda t: torch.stack([t[0] * t[1], t[2].exp()]), x)),
            info(AF.jacobian(lambda a, b: a * 2, (x, torch.ones(2)))[1]),
            err(lambda: AF.jacobian(lambda a, b: a * 2, (x, torch.ones(2)), strict=True)),
            err(lambda: AF.jacobian(lambda t: t, [x])), err(lambda: AF.jacobian(lambda t: 3.0, x)),
            err(lambda: AF.jacobian(lambda t: torch.ones(2), x, strict=True))]


def case_af_hessian(torch):
    AF = torch.autograd.functional
    x = torch.tensor([0.5, -1.0, 2.0])
    H = AF.hessian(lambda t: (t ** 3).sum() + t[0] * t[1], x)
    a = torch.tensor([1.0, 2.0])
    b = torch.tensor(0.5)
    H2 = AF.hessian(lambda p, q: (p ** 2 * q).sum() + q ** 3, (a, b))
    H3 = AF.hessian(lambda t: (t.exp() * t).sum(), x, create_graph=True)
    return [info(H), [[info(h) for h in row] for row in H2], info(H3),
            err(lambda: AF.hessian(lambda t: t * 2, x)),
            err(lambda: AF.hessian(lambda t: (t * 2).sum(), x, strict=True))]


def case_af_vjp_jvp(torch):
    AF = torch.autograd.functional
    x = torch.tensor([0.5, -1.0, 2.0])
    v = torch.tensor([1.0, 0.5, -2.0])
    f = _f_poly(torch)
    out, g = AF.vjp(f, x, v)
    out2, g2 = AF.jvp(f, x, v)
    s, gs = AF.vjp(lambda t: (t ** 2).sum(), x)
    o3, t3 = AF.jvp(lambda a, b: a * b, (x, v), (v, x))
    o4, g4 = AF.vjp(f, x, v, create_graph=True)
    return [info(out), info(g), info(out2), info(g2), info(s), info(gs), info(o3), info(t3), info(g4),
            err(lambda: AF.vjp(f, x)), err(lambda: AF.vjp(f, x, torch.ones(2))),
            err(lambda: AF.jvp(f, x)), err(lambda: AF.vjp(lambda t: t * 0 + 1, x, v, strict=True)),
            err(lambda: AF.jvp(f, (x, v), (v,)))]


def case_af_hvp_vhp(torch):
    AF = torch.autograd.functional
    x = torch.tensor([0.5, -1.0, 2.0])
    v = torch.tensor([1.0, 0.5, -2.0])

    def f(t):
        return (t ** 3).sum() + t[0] * t[2]

    o, h = AF.hvp(f, x, v)
    o2, h2 = AF.vhp(f, x, v)
    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([0.5, -0.5])
    o3, h3 = AF.vhp(lambda p, q: (p * q * p).sum(), (a, b), (b, a))
    return [info(o), info(h), info(o2), info(h2), info(o3), [info(t) for t in h3],
            err(lambda: AF.hvp(lambda t: t * 2, x, v)), err(lambda: AF.vhp(f, x)),
            err(lambda: AF.hvp(lambda t: (t * 2).sum(), x, v, strict=True))]


def case_nn_utils_clip(torch):
    m = torch.nn.Linear(3, 2)
    with torch.no_grad():
        m.weight.copy_(torch.tensor([[1.0, -2.0, 0.5], [0.25, 1.0, -1.0]]))
        m.bias.fill_(0.5)
    m(torch.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    total = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    g = [vals(m.weight.grad), vals(m.bias.grad)]
    torch.nn.utils.clip_grad_value_(m.parameters(), 0.1)
    return [info(total), g, vals(m.weight.grad), vals(m.bias.grad),
            info(torch.nn.utils.parameters_to_vector(m.parameters()))]


def case_module_hooks_apply_generators(torch):
    nn = torch.nn
    m = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    seen = []

    def init_fn(mod):
        seen.append(type(mod).__name__)
        if isinstance(mod, nn.Linear):
            nn.init.constant_(mod.weight, 0.5)
            nn.init.zeros_(mod.bias)

    r = m.apply(init_fn)
    calls = []

    def hook(mod, inp, out):
        calls.append([type(mod).__name__, vals(inp[0]), vals(out)])
        return out * 2

    def pre(mod, inp):
        calls.append(["pre", vals(inp[0])])

    h = m[0].register_forward_hook(hook)
    hp = m[2].register_forward_pre_hook(pre)
    out = m(torch.tensor([[1.0, -2.0]]))
    h.remove()
    hp.remove()
    out2 = m(torch.tensor([[1.0, -2.0]]))
    return [r is m, seen, calls, info(out), info(out2), repr(m.parameters()), repr(m.named_parameters()),
            repr(m.children()), [vals(p) for p in m.parameters()]]


def case_af_jacobian_strategies(torch):
    AF = torch.autograd.functional
    x = torch.tensor([1.0, 2.0])
    # (vectorize=True works too, but torch's vmap path emits internal jit DeprecationWarnings)
    return [err(lambda: AF.jacobian(lambda t: t ** 2, x, strategy="forward-mode")),
            err(lambda: AF.jacobian(lambda t: t ** 2, x, strategy="sideways")),
            info(AF.jacobian(lambda t: t ** 2, x, strategy="reverse-mode"))]


def case_more_errors(torch):
    F = torch.nn.functional
    nn = torch.nn
    x = torch.ones(3, 4)
    return [err(lambda: F.conv1d(torch.ones(5), torch.ones(1, 1, 3))),
            err(lambda: F.max_pool2d(torch.ones(4, 4), 2)),
            err(lambda: F.avg_pool2d(torch.ones(4), 2)),
            err(lambda: F.layer_norm(x, (3, 4), torch.ones(4))),
            err(lambda: F.batch_norm(x, torch.zeros(3), torch.ones(4))),
            err(lambda: F.embedding(torch.tensor([1]), torch.ones(3, 2), padding_idx=5)),
            err(lambda: nn.Embedding(3, 2, padding_idx=-4)),
            err(lambda: nn.Conv2d(3, 4, 3, groups=2)),
            err(lambda: nn.Conv2d(2, 3, 3, groups=2)),
            err(lambda: nn.Conv2d(2, 2, 3, padding_mode="foo")).split("{")[0],  # a set: its order varies
            err(lambda: nn.Conv2d(2, 2, 3, padding="full")).split("{")[0],
            err(lambda: nn.Conv2d(2, 2, 3, stride=2, padding="same")),
            err(lambda: nn.BatchNorm1d(3)(torch.ones(2, 4))),
            err(lambda: nn.LayerNorm(4)(torch.ones(2, 3))),
            err(lambda: nn.Linear(3, 2)(torch.ones(2, 3, dtype=torch.float64))),
            err(lambda: nn.Sequential(nn.Linear(2, 2))(torch.ones(2, 2), torch.ones(1))),
            err(lambda: F.one_hot(torch.tensor([], dtype=torch.int64))),
            err(lambda: F.kl_div(x, x, reduction="batchmean", log_target=True) + "x"),
            err(lambda: F.cross_entropy(x, torch.ones(3, 4), ignore_index=1)),
            err(lambda: F.binary_cross_entropy(x * 0.5, x, weight=torch.ones(2))),
            err(lambda: F.huber_loss(x, x, delta=0.0)),
            err(lambda: F.smooth_l1_loss(x, x, beta=-1.0)),
            err(lambda: F.cosine_similarity(x, x, dim=2)),
            err(lambda: F.normalize(x, dim=3))]


# ---------------------------------------------------------------------------- lr_scheduler

def _sched_case(name, *args, steps=8, **kw):
    def case(torch):
        w, b = _opt_problem(torch)
        opt = torch.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
        sched = getattr(torch.optim.lr_scheduler, name)(opt, *args, **kw)
        obs = [repr(sched), sched.get_last_lr(), sorted(opt.param_groups[0].keys()), repr(opt)]
        for _ in range(steps):
            opt.zero_grad()
            _opt_loss(torch, w, b).backward()
            opt.step()
            sched.step()
            obs.append([sched.get_last_lr(), [g["lr"] for g in opt.param_groups], sched.last_epoch, vals(b)])
        return obs
    return case


CASES["optim_sched_StepLR"] = _sched_case("StepLR", 3, gamma=0.5)
CASES["optim_sched_MultiStepLR"] = _sched_case("MultiStepLR", [2, 5, 5], gamma=0.3)
CASES["optim_sched_ExponentialLR"] = _sched_case("ExponentialLR", 0.9)
CASES["optim_sched_LambdaLR"] = _sched_case("LambdaLR", lambda epoch: 1 / (epoch + 1))
CASES["optim_sched_MultiplicativeLR"] = _sched_case("MultiplicativeLR", lambda epoch: 0.8)
CASES["optim_sched_ConstantLR"] = _sched_case("ConstantLR", factor=0.5, total_iters=3)
CASES["optim_sched_LinearLR"] = _sched_case("LinearLR", start_factor=0.25, total_iters=4)
CASES["optim_sched_CosineAnnealingLR"] = _sched_case("CosineAnnealingLR", T_max=3, eta_min=0.01)


def case_optim_sched_order_warning_and_epoch(torch):
    w, b = _opt_problem(torch)
    opt = torch.optim.SGD([w, b], lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2)
    sched.step()
    sched.step(5)
    obs = [sched.get_last_lr(), sched.last_epoch]
    opt2 = torch.optim.Adam([w], lr=0.01)
    s2 = torch.optim.lr_scheduler.ExponentialLR(opt2, 0.5)
    opt2.step()
    s2.step()
    return obs + [s2.get_last_lr(), err(lambda: torch.optim.lr_scheduler.StepLR("opt", 2)),
                  err(lambda: torch.optim.lr_scheduler.ConstantLR(opt, factor=2.0)),
                  err(lambda: torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0, lambda e: 2.0]))]


def case_loss_dtype_rules(torch):
    F = torch.nn.functional
    x = leaf(torch, [0.2, 0.7])
    t = torch.tensor([0, 1])
    return [err(lambda: F.binary_cross_entropy(x, t)), err(lambda: F.binary_cross_entropy_with_logits(x, t)),
            err(lambda: F.binary_cross_entropy(x, t.double())),
            info(F.binary_cross_entropy_with_logits(x, t.double())), info(F.mse_loss(x, t)),
            info(F.mse_loss(x, t.double())), info(F.l1_loss(x, t)), info(F.huber_loss(x, t)),
            info(F.smooth_l1_loss(x, t.double())),
            info(F.cross_entropy(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64))),
            err(lambda: F.kl_div(x, t, reduction="sum")),
            err(lambda: F.nll_loss(torch.ones(2, 3, dtype=torch.float64), t, weight=torch.ones(3))),
            info(F.binary_cross_entropy(x, x.detach(), weight=torch.ones(2, dtype=torch.float64)))]
