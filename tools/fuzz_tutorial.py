"""The tutorial generator of tools/fuzz_programs.py (``--tutorial``): blocks of what seeded tutorial-like
programs do that ``--wide`` and ``--corners`` never draw. Optimizers with their options (SGD
momentum/dampening/nesterov/weight_decay/maximize, Adam/AdamW amsgrad, RMSprop centered/momentum,
Adagrad lr_decay, Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD) under lr schedulers for a few steps
(``get_last_lr``, ``param_groups``, the state's keys and values); nn.functional losses with every
``reduction`` and their options (weights, ignore_index, label_smoothing, class probabilities, pos_weight,
log_target, margins) and their gradients; ``torch.autograd.grad`` with ``grad_outputs``,
``allow_unused``, ``materialize_grads``, ``retain_graph``/``create_graph`` and ``backward(gradient=,
inputs=)``; saved tensors changed in place (the version-counter errors); tensor and module hooks;
``torch.set_printoptions`` (precision, sci_mode, threshold, edgeitems, linewidth) over big, small, mixed,
integer, bool and float16 values; mixed integer/bool/float promotion through ``where``/``clamp`` with
numbers and tensors; reductions with dim tuples and ``keepdim``; advanced indexing mixed with slices and
``index_put_`` with ``accumulate``; and the messages of shape mismatches (matmul, broadcasting, view,
cat, Linear, losses).

It reuses fuzz_wide's Wide (inputs, ``guarded``, ``show``); every block makes its own inputs.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_wide import Wide, st  # noqa: E402

OPTIMS = [
    "torch.optim.SGD({p}, lr=0.1)", "torch.optim.SGD({p}, lr=0.05, momentum=0.9)",
    "torch.optim.SGD({p}, lr=0.05, momentum=0.9, nesterov=True)",
    "torch.optim.SGD({p}, lr=0.1, momentum=0.5, dampening=0.3, weight_decay=0.01)",
    "torch.optim.SGD({p}, lr=0.1, maximize=True)", "torch.optim.Adam({p}, lr=0.01)",
    "torch.optim.Adam({p}, lr=0.05, amsgrad=True)", "torch.optim.Adam({p}, lr=0.01, weight_decay=0.1)",
    "torch.optim.Adam({p}, lr=0.02, betas=(0.8, 0.99), eps=1e-6, maximize=True)",
    "torch.optim.AdamW({p}, lr=0.01)", "torch.optim.AdamW({p}, lr=0.05, amsgrad=True, weight_decay=0.1)",
    "torch.optim.RMSprop({p}, lr=0.01)", "torch.optim.RMSprop({p}, lr=0.01, momentum=0.9, centered=True)",
    "torch.optim.RMSprop({p}, lr=0.01, alpha=0.9, weight_decay=0.1)", "torch.optim.Adagrad({p}, lr=0.1)",
    "torch.optim.Adagrad({p}, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)",
    "torch.optim.Adadelta({p})", "torch.optim.Adamax({p}, lr=0.02)", "torch.optim.NAdam({p}, lr=0.02)",
    "torch.optim.RAdam({p}, lr=0.02)", "torch.optim.Rprop({p}, lr=0.01)", "torch.optim.ASGD({p}, lr=0.05)",
]
SCHEDS = [
    None, "torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)",
    "torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1)",
    "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)",
    "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)",
    "torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1))",
    "torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=3)",
    "torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)",
    "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=6)",
    "torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)",
    "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)",
    "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)",
]
REDUCTIONS = ["'none'", "'mean'", "'sum'"]


class Tutorial(Wide):
    def floats(self, shape, rg=False, p="x", dtype="torch.float32", scale=""):
        n = self.name(p)
        e = f"torch.randn({st(shape) if shape else '()'}, dtype={dtype}){scale}"
        self.emit(f"{n} = {e}" + (".requires_grad_()" if rg else ""))
        return n

    # ------------------------------------------------------------------ blocks
    def optimizers(self):
        r = self.r
        o = r.choice(OPTIMS)
        s = r.choice(SCHEDS) if not o.startswith(("torch.optim.Rprop", "torch.optim.ASGD")) else None
        if s and "OneCycleLR" in s and "SGD" not in o:
            s = None
        if r.random() < 0.5:
            h = r.choice([2, 4])
            act = r.choice(["ReLU", "Tanh", "Sigmoid"])
            self.emit(f"torch.manual_seed({r.randrange(100)})",
                      f"model = torch.nn.Sequential(torch.nn.Linear(3, {h}), torch.nn.{act}(), torch.nn.Linear({h}, 1))",
                      "xb = torch.randn(5, 3)", "yb = torch.randn(5)")
            params, fwd = "model.parameters()", "model(xb).squeeze(-1)"
        else:
            w = self.floats((3,), rg=True, p="w")
            b = self.name("b")
            self.emit(f"{b} = torch.zeros(1, requires_grad=True)", "xb = torch.randn(5, 3)", "yb = torch.randn(5)")
            params, fwd = (f"[{w}, {b}]" if r.random() < 0.6 else
                           f"[{{'params': [{w}]}}, {{'params': [{b}], 'lr': 0.5}}]"), f"xb @ {w} + {b}"
        self.emit(f"opt = {o.format(p=params)}")
        if s:
            self.emit(f"sched = {s}")
        loss = r.choice(["((out - yb) ** 2).mean()", "F.mse_loss(out, yb)", "F.l1_loss(out, yb)",
                         "F.smooth_l1_loss(out, yb, beta=0.5)", "F.huber_loss(out, yb)"])
        steps = r.randint(2, 5)
        zero = r.choice(["opt.zero_grad()", "opt.zero_grad(set_to_none=False)", "opt.zero_grad()"])
        body = [f"    {zero}", f"    out = {fwd}", f"    loss = {loss}", "    loss.backward()", "    opt.step()"]
        if s:
            body.append("    sched.step(loss.item())" if "Plateau" in s else "    sched.step()")
            body.append("    print(step, round(loss.item(), 6), opt.param_groups[0]['lr'])"
                        if r.random() < 0.5 or "Plateau" in s else "    print(step, loss, sched.get_last_lr())")
        else:
            body.append("    print(step, loss.item())")
        self.emit(f"for step in range({steps}):", *body)
        k = r.random()
        if k < 0.3:
            self.emit("for p in opt.param_groups[0]['params']:", "    print(sorted(opt.state[p].keys()))")
        elif k < 0.6:
            self.emit("st = opt.state_dict()", "print(st['param_groups'][0]['lr'], len(st['state']))")
            self.emit("for key, val in st['state'][0].items():", "    print(key, val)")
        else:
            self.show("opt.param_groups[0]['params'][0]")

    def losses(self):
        r = self.r
        red = r.choice(REDUCTIONS)
        n, c = r.choice([2, 3, 4]), r.choice([3, 4])
        kind = r.choice(["pair", "class", "bce", "kl", "margin", "nll", "poisson"])
        shape = (n, c) if kind in ("class", "nll", "kl") or r.random() < 0.5 else (n,)
        x = self.floats(shape, rg=True)
        if kind == "pair":
            y = self.floats(shape, p="y")
            f = r.choice([f"F.mse_loss({x}, {y}, reduction={red})", f"F.l1_loss({x}, {y}, reduction={red})",
                          f"F.smooth_l1_loss({x}, {y}, reduction={red}, beta={r.choice(['1.0', '0.5', '0.0'])})",
                          f"F.huber_loss({x}, {y}, reduction={red}, delta={r.choice(['1.0', '0.3'])})",
                          f"F.soft_margin_loss({x}, {y}.sign(), reduction={red})",
                          f"F.gaussian_nll_loss({x}, {y}, torch.ones_like({y}) * 0.5, reduction={red})",
                          f"torch.nn.MSELoss(reduction={red})({x}, {y})", f"torch.nn.L1Loss()({x}, {y})"])
        elif kind == "class":
            t = self.name("t")
            if r.random() < 0.3:
                self.emit(f"{t} = torch.softmax(torch.randn({n}, {c}), 1)")
            else:
                self.emit(f"{t} = torch.randint(0, {c}, ({n},))")
            opts = r.choice(["", ", label_smoothing=0.1", f", weight=torch.arange(1., {c + 1})", ", ignore_index=1"])
            if "ignore_index" in opts and "softmax" in self.lines[-1]:
                opts = ""
            f = f"F.cross_entropy({x}, {t}, reduction={red}{opts})"
            if r.random() < 0.3:
                f = f"torch.nn.CrossEntropyLoss(reduction={red}{opts})({x}, {t})"
        elif kind == "nll":
            t = self.name("t")
            self.emit(f"{t} = torch.randint(0, {c}, ({n},))")
            opts = r.choice(["", f", weight=torch.ones({c}) * 0.5", ", ignore_index=0"])
            f = f"F.nll_loss(F.log_softmax({x}, 1), {t}, reduction={red}{opts})"
        elif kind == "bce":
            t = self.name("t")
            self.emit(f"{t} = torch.rand({x}.shape)")
            f = r.choice([f"F.binary_cross_entropy(torch.sigmoid({x}), {t}, reduction={red})",
                          f"F.binary_cross_entropy_with_logits({x}, {t}, reduction={red})",
                          f"F.binary_cross_entropy_with_logits({x}, {t}, pos_weight=torch.tensor(2.), reduction={red})",
                          f"torch.nn.BCEWithLogitsLoss(reduction={red})({x}, ({t} > 0.5).float())"])
        elif kind == "kl":
            t = self.name("t")
            self.emit(f"{t} = torch.softmax(torch.randn({n}, {c}), 1)")
            red2 = r.choice(REDUCTIONS + ["'batchmean'"])
            f = r.choice([f"F.kl_div(F.log_softmax({x}, 1), {t}, reduction={red2})",
                          f"F.kl_div(F.log_softmax({x}, 1), {t}.log(), reduction={red2}, log_target=True)"])
        elif kind == "margin":
            y = self.floats(shape, p="y")
            sgn = f"torch.randint(0, 2, {st(shape)}) * 2 - 1"
            f = r.choice([f"F.margin_ranking_loss({x}, {y}, {sgn}, margin={r.choice(['0.0', '0.5'])}, reduction={red})",
                          f"F.hinge_embedding_loss({x}, {sgn}, reduction={red})",
                          f"F.cosine_embedding_loss({x}.reshape(1, -1), {y}.reshape(1, -1), torch.tensor([-1]), reduction={red})"])
        else:
            t = self.name("t")
            self.emit(f"{t} = torch.randint(0, 5, {x}.shape).float()")
            f = f"F.poisson_nll_loss({x}, {t}, reduction={red}, log_input={r.choice(['True', 'False'])})"
            if "False" in f:
                f = f.replace(f"F.poisson_nll_loss({x},", f"F.poisson_nll_loss({x}.abs(),")
        self.guarded(f"loss = {f}", "print(loss)", "loss.sum().backward()", f"print({x}.grad)")

    def autograd_grad(self):
        r = self.r
        x = self.floats((3,), rg=True)
        y = self.floats((2, 3), rg=True, p="y")
        u = self.floats((2,), rg=True, p="u")
        out = self.name("o")
        self.emit(f"{out} = ({x} * {y}).sin() + {x} ** 2")
        k = r.random()
        if k < 0.25:
            self.guarded(f"g = torch.autograd.grad({out}, [{x}, {y}], grad_outputs=torch.ones_like({out}) * 2)",
                         "print(g)")
        elif k < 0.45:
            au = r.choice(["True", "False"])
            mg = r.choice(["", ", materialize_grads=True"])
            self.guarded(f"g = torch.autograd.grad({out}.sum(), [{x}, {u}], allow_unused={au}{mg})", "print(g)")
        elif k < 0.6:
            self.guarded(f"g, = torch.autograd.grad({out}.sum(), {x}, create_graph=True)", "print(g)",
                         f"h, = torch.autograd.grad(g.sum(), {x}, retain_graph={r.choice(['True', 'False'])})",
                         "print(h)", "g.sum().backward()", f"print({x}.grad)")
        elif k < 0.75:
            self.guarded(f"{out}.backward(gradient=torch.full_like({out}, 0.5), inputs=[{y}])",
                         f"print({x}.grad, {y}.grad)")
        elif k < 0.9:
            self.guarded(f"{out}.sum().backward(retain_graph=True)", f"{out}.mean().backward()",
                         f"print({x}.grad)", f"print({y}.grad)")
        else:
            self.guarded(f"g = torch.autograd.grad([{out}.sum(), ({x} ** 3).sum()], [{x}], grad_outputs=[None, torch.tensor(2.)])",
                         "print(g)")
        if r.random() < 0.3:
            self.guarded(f"torch.autograd.grad({out}.sum(), {x})")

    def version_errors(self):
        r = self.r
        x = self.floats((2, 3), rg=True)
        y = self.name("y")
        f = r.choice(["{x}.exp()", "{x}.sigmoid()", "{x}.tanh()", "{x} * 2", "{x}.pow(2)", "{x}.relu()",
                      "{x} + 1", "{x}.sin()", "{x}[0]", "{x}.t()"])
        self.emit(f"{y} = {f.format(x=x)}")
        z = self.name("z")
        g = r.choice(["{y}.exp()", "{y} * {y}", "{y}.sigmoid()", "{y}.sum()", "{y}.pow(3)", "{y}.log1p().abs()",
                      "{y} / 2", "{y}.tanh()"])
        self.emit(f"{z} = {g.format(y=y)}")
        op = r.choice(["mul_(2)", "add_(1)", "zero_()", "exp_()", "sigmoid_()", "clamp_(0, 1)", "fill_(1)",
                       "data.mul_(2)", "detach().add_(1)", "copy_(torch.ones_like({y}))"]).format(y=y)
        self.guarded(f"{y}.{op}", f"print({y}.shape)", f"{z}.sum().backward()",
                     f"print({x}.grad)")

    def hooks(self):
        r = self.r
        x = self.floats((3,), rg=True)
        y = self.name("y")
        self.emit(f"{y} = {x} * 2")
        h = r.choice(["lambda g: g * 2", "lambda g: None", "lambda g: g.clamp(max=0.5)", "lambda g: print('hook', g)"])
        self.emit(f"h1 = {y}.register_hook({h})")
        if r.random() < 0.4:
            self.emit(f"h2 = {x}.register_hook(lambda g: g + 1)")
        if r.random() < 0.3:
            self.emit(f"{x}.register_post_accumulate_grad_hook(lambda p: print('acc', p.grad))")
        if r.random() < 0.3:
            self.emit("h1.remove()")
        self.emit(f"{y}.retain_grad()")
        self.guarded(f"({y} ** 2).sum().backward()", f"print({x}.grad, {y}.grad)")
        if r.random() < 0.4:
            self.emit("lin = torch.nn.Linear(3, 2)",
                      "hd = lin.register_forward_hook(lambda m, i, o: print('fwd', i[0].shape, o.shape))",
                      "hb = lin.register_full_backward_hook(lambda m, gi, go: print('bwd', [g.shape for g in go]))",
                      f"lin({x}.detach().unsqueeze(0).requires_grad_()).sum().backward()", "hd.remove()", "hb.remove()")

    def printing(self):
        r = self.r
        opts = r.choice(["precision=2", "precision=6", "sci_mode=True", "sci_mode=False", "threshold=5",
                         "threshold=5, edgeitems=1", "linewidth=40", "precision=3, sci_mode=False", "profile='short'",
                         "profile='full'"])
        self.emit(f"torch.set_printoptions({opts})")
        vals = r.choice(["torch.randn(4) * 1e5", "torch.randn(3) * 1e-5", "torch.tensor([1e-8, 1., 1e8])",
                         "torch.tensor([0.1, 12345.678, -3.])", "torch.randn(3, 4) * 100",
                         "torch.arange(12).reshape(3, 4)", "torch.randn(2, 3) > 0", "torch.randn(5).half() * 1000",
                         "torch.tensor([float('inf'), -0.0, float('nan'), 2.5])", "torch.randn(10, 3)",
                         "torch.randn(3, dtype=torch.float64) * 1e10", "torch.tensor([123456789, -5])",
                         "torch.randn(2, 2).half()", "torch.tensor([1.5, 2.25]).requires_grad_() * 2",
                         "torch.tensor(3.14159)", "torch.randn(20)"])
        v = self.name("p")
        self.emit(f"{v} = {vals}")
        self.show(v)
        if r.random() < 0.4:
            self.show(f"{v}.tolist()" if r.random() < 0.5 else f"str({v}.sum())")
        self.emit("torch.set_printoptions(profile='default')")
        if r.random() < 0.4:
            self.emit("torch.set_printoptions(sci_mode=None)")

    def promote_where_clamp(self):
        r = self.r
        a = self.name("a")
        self.emit(f"{a} = torch.{r.choice(['randint(-5, 6, (2, 3))', 'randint(0, 3, (3,), dtype=torch.int32)', 'arange(6).reshape(2, 3)', 'tensor([True, False, True])', 'randint(0, 200, (3,), dtype=torch.uint8)'])}")
        f = self.floats((3,), dtype=r.choice(["torch.float32", "torch.float64", "torch.float16"]), p="f")
        es = [f"torch.where({a} > 1, {a}, 2.5)", f"torch.where({a} > 1, 0, {a})", f"torch.where({a} > 0, {f}, {a})",
              f"torch.where({a} > 0, 1, 0.5)", f"torch.clamp({a}, min=0.5)", f"torch.clamp({a}, 0, 3)",
              f"{a}.clamp(max=2)", f"torch.clamp({f}, min={a}.float())", f"{a} + {f}", f"{a} * 1.5",
              f"({a} > 0) + {a}", f"{a}.float().mean(dtype=torch.float64)", f"{a} / 2", f"{a} // 2",
              f"torch.clamp({a}, min=torch.tensor(1))", f"({a} + True).dtype", f"{a}.sum(), {a}.sum().dtype",
              f"torch.where({f} > 0, {f}, torch.tensor(0.))", f"{f}.clamp(-0.5, 0.5)", f"{a}.mean()",
              f"torch.maximum({a}, torch.tensor(2))", f"{a}.to(torch.float16) * {f}", f"{a}.double() + {f}"]
        for e in r.sample(es, k=r.randint(2, 4)):
            self.guarded(f"r = {e}", "print(r, r.dtype if isinstance(r, torch.Tensor) else r)")

    def reduce_dims(self):
        r = self.r
        x = self.floats((2, 3, 4), rg=r.random() < 0.5)
        d = r.choice(["(0, 2)", "(-1, 0)", "(1,)", "1", "-1", "(0, 1, 2)", "[0, 1]", "()"])
        kd = r.choice(["True", "False"])
        es = [f"{x}.sum(dim={d}, keepdim={kd})", f"{x}.mean({d}, keepdim={kd})", f"{x}.amax({d}, keepdim={kd})",
              f"{x}.amin(dim={d})", f"torch.std({x}, dim={d}, keepdim={kd})", f"{x}.var({d}, correction=0)",
              f"{x}.logsumexp({d}, keepdim={kd})", f"{x}.norm(dim={d}, keepdim={kd})", f"{x}.nansum({d})",
              f"torch.count_nonzero({x} > 0, dim={d})", f"{x}.prod(1, keepdim={kd})", f"{x}.max(dim=-1, keepdim={kd})",
              f"{x}.std_mean({d})", f"{x}.var_mean({d}, keepdim={kd})", f"{x}.all(dim=1)", f"({x} > 0).any(-1, keepdim={kd})"]
        for e in r.sample(es, k=r.randint(2, 3)):
            self.guarded(f"r = {e}", "print(r)")
        if r.random() < 0.5:
            self.guarded(f"r = {x}.sum(dim={d}, keepdim={kd}) * 2", "r.sum().backward() if r.requires_grad else None",
                         f"print(r.shape, {x}.grad)")

    def index_mixed(self):
        r = self.r
        x = self.floats((3, 4), rg=r.random() < 0.5)
        idx = r.choice(["[0, 2]", "torch.tensor([2, 0, 2])", "torch.tensor([[0], [1]])", "[True, False, True]"])
        es = [f"{x}[{idx}, 1:]", f"{x}[1:, {idx}]" if "True" not in idx else f"{x}[:, :2]", f"{x}[..., {idx}]" if "True" not in idx else f"{x}[{idx}]",
              f"{x}[{idx}, ::2]", f"{x}[{x} > 0]", f"{x}[:, None, 1]", f"{x}[{idx}][:, -1]", f"{x}[-1, {idx}]" if "True" not in idx else f"{x}[{idx}, -1]"]
        for e in r.sample(es, k=r.randint(1, 3)):
            self.guarded(f"r = {e}", "print(r)")
        t = self.name("t")
        self.emit(f"{t} = torch.zeros(5)")
        acc = r.choice(["True", "False"])
        v = r.choice(["torch.tensor([1., 2., 3.])", "torch.tensor(1.5)", "torch.ones(3, dtype=torch.float64)",
                      "torch.tensor([1, 2, 3])"])
        self.guarded(f"{t}.index_put_((torch.tensor([0, 2, 0]),), {v}, accumulate={acc})", f"print({t})")
        if r.random() < 0.5:
            w = self.floats((5,), rg=True, p="w")
            self.guarded(f"o = ({w} * 1).index_put((torch.tensor([1, 1, 3]),), {w}[:3] * 2, accumulate={acc})",
                         "print(o)", "o.sum().backward()", f"print({w}.grad)")

    def shape_errors(self):
        r = self.r
        es = ["torch.randn(2, 3) @ torch.randn(2, 3)", "torch.randn(3) + torch.randn(4)",
              "torch.randn(2, 3).view(4)", "torch.cat([torch.randn(2, 3), torch.randn(3, 2)])",
              "torch.nn.Linear(3, 2)(torch.randn(4, 5))", "F.mse_loss(torch.randn(3), torch.randn(4))",
              "F.cross_entropy(torch.randn(3, 4), torch.randint(0, 4, (2,)))", "torch.randn(2, 3).reshape(5, -1)",
              "torch.mm(torch.randn(2, 3), torch.randn(4, 2))", "torch.randn(3).expand(2, 4)",
              "torch.stack([torch.randn(2), torch.randn(3)])", "torch.randn(2, 3, 4).permute(0, 1)",
              "torch.randn(2, 3).sum(dim=2)", "torch.bmm(torch.randn(2, 3, 4), torch.randn(3, 4, 5))",
              "torch.randn(2, 2).squeeze(3)", "torch.matmul(torch.randn(3), torch.randn(4))",
              "torch.randn(3, 4).transpose(0, 2)", "F.linear(torch.randn(2, 3), torch.randn(4, 2))",
              "torch.randn(2, 3) * torch.randn(3, 2)", "torch.randn(4).view(2, -1, -1)",
              "torch.nn.functional.conv2d(torch.randn(1, 2, 5, 5), torch.randn(3, 1, 3, 3))",
              "torch.randn(2, 3)[2]", "torch.randn(3).dot(torch.randn(3, 1))", "torch.randn(2, 3).mv(torch.randn(2))",
              "F.binary_cross_entropy(torch.rand(3), torch.rand(2))", "torch.randn(2, 3).split([1, 1])"]
        for e in r.sample(es, k=r.randint(1, 3)):
            self.guarded(f"print({e})")


BLOCKS = ["optimizers", "losses", "autograd_grad", "version_errors", "hooks", "printing", "promote_where_clamp",
          "reduce_dims", "index_mixed", "shape_errors"]


def generate_tutorial(seed: int, index: int) -> str:
    r = random.Random(f"tutorial:{seed}:{index}")
    w = Tutorial(r)
    for _ in range(r.randint(1, 3)):
        getattr(w, r.choice(BLOCKS))()
    return "\n".join(w.lines) + "\n"
