#!/usr/bin/env python3
"""Seeded random autograd programs, run by gradcli and by real PyTorch: stdout and the error
(type, message, line) must agree. Each program is what a tutorial reader writes, at random:
``torch.manual_seed``, leaves from the random and factory functions (float32, float64, integer
dtypes, requires_grad or not), elementwise ops, broadcasting with tensors and Python scalars,
reductions, shape ops, indexing, matmul, in-place ops, echoes and prints of values, ``grad_fn``
names, ``is_leaf``/``requires_grad``, then ``backward`` (sometimes twice, sometimes of a non-scalar),
``retain_grad``, ``torch.autograd.grad`` and the leaves' gradients.

    python tools/fuzz_programs.py                       # 200 programs from a random seed
    python tools/fuzz_programs.py --seed 5 --count 1000 --show 3
    python tools/fuzz_programs.py --seed 5 --only 17    # program 17 of seed 5: print it and its verdict
    python tools/fuzz_programs.py --seed 5 --only 17 --minimise   # and the smallest prefix/subset that differs
    python tools/fuzz_programs.py --nn --count 100      # small training loops: layers, losses, optimizers
    python tools/fuzz_programs.py --wide --count 300    # tools/fuzz_wide.py: dtypes, views, indexing, errors
    python tools/fuzz_programs.py --corners --count 300 # tools/fuzz_corners.py: what --wide never draws
    python tools/fuzz_programs.py --tutorial --count 300 # tools/fuzz_tutorial.py: optimizers, losses, hooks, ...
    python tools/fuzz_programs.py --script --count 300   # tools/fuzz_script.py: classes, comprehensions, f-strings, ...
    python tools/fuzz_programs.py --mix --count 300      # tools/fuzz_mix.py: expression trees over every dtype, ...
    python tools/fuzz_programs.py --layers --count 300   # tools/fuzz_layers.py: conv/norm/dropout/embedding, inits, ...
    python tools/fuzz_programs.py --pool --count 300     # tools/fuzz_pool.py: a random walk over live variables
    python tools/fuzz_programs.py --repr --count 100     # tools/fuzz_repr.py: prints on the formatter's borders
    python tools/fuzz_programs.py --train --count 100    # tools/fuzz_train.py: nn.Module training loops, schedulers, ...
    python tools/fuzz_programs.py --views --count 100    # tools/fuzz_views.py: views changed in place, versions, ...

Needs torch ('.[oracle]'): programs run under real Python through tools/make_goldens.py's runner
(a fork per program). Divergences are grouped by kind (numbers stripped) and each kind is shown
with its shortest program; a fixed one becomes a golden script (tests/golden/scripts/fuzz_*.grad,
tools/make_goldens.py). Exit status 1 when something differed.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

UNARY = ["{x}.exp()", "torch.sin({x})", "{x}.cos()", "torch.tanh({x})", "{x}.sigmoid()", "{x}.relu()",
         "{x}.abs()", "-{x}", "{x}.abs().sqrt()", "torch.log({x}.abs() + 1)", "{x} ** 2", "{x}.pow(3)",
         "{x}.clamp(min=-0.5, max=0.5)", "F.softplus({x})", "torch.erf({x})", "{x}.sign()", "torch.atan({x})",
         "{x}.square()", "torch.exp(-{x})", "1 / ({x}.abs() + 1)", "{x}.floor()", "{x}.round()",
         "F.gelu({x})", "F.leaky_relu({x}, 0.1)", "torch.clamp({x}, 0)", "{x}.log1p().nan_to_num()",
         "{x}.exp().log()", "{x}.sinh()", "torch.rsqrt({x}.abs() + 0.5)", "F.silu({x})", "F.elu({x})",
         "{x}.frac()", "torch.trunc({x} * 3)", "{x}.expm1()", "{x}.log_softmax(-1)" , "{x}.softmax(0)"]
BINOPS = ["+", "-", "*", "/"]
SCALARS = ["2", "3", "0.5", "-1.5", "2.", "1e-3", "True", "10"]
REDUCE_ALL = ["{x}.sum()", "{x}.mean()", "{x}.max()", "{x}.min()", "{x}.prod()", "{x}.norm()", "{x}.std()",
              "{x}.var()", "{x}.abs().sum()", "{x}.amax()", "torch.logsumexp({x}.flatten(), 0)", "{x}.median()"]
REDUCE_DIM = ["{x}.sum({d})", "{x}.mean({d}, keepdim=True)", "{x}.max({d})[0]", "{x}.max(dim={d}).values",
              "{x}.min({d}).values", "{x}.prod({d})", "{x}.std({d})", "{x}.var({d}, unbiased=False)",
              "{x}.logsumexp({d})", "torch.softmax({x}, {d})", "F.log_softmax({x}, dim={d})", "{x}.cumsum({d})",
              "{x}.argmax({d})", "{x}.norm(dim={d})", "{x}.amin({d}, keepdim=True)", "{x}.cumprod({d})",
              "torch.sort({x}, {d})[0]", "{x}.topk(1, {d}).values", "{x}.median({d}).values"]
SHAPES = [(3,), (4,), (2, 3), (3, 2), (2, 2), (1, 3), (3, 1), (2, 3, 2), (2, 1, 3), (1,), (), (5,), (2, 4)]


class Var:
    def __init__(self, name, shape, dtype, leaf=False, rg=False):
        self.name, self.shape, self.dtype, self.leaf, self.rg = name, tuple(shape), dtype, leaf, rg

    @property
    def floating(self):
        return self.dtype in ("float32", "float64")


def broadcast(a, b):
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            return None
        out.append(max(x, y))
    return tuple(reversed(out))


class Program:
    def __init__(self, rng: random.Random):
        self.r = rng
        self.lines = ["import torch", "import torch.nn.functional as F"]
        self.vars: list[Var] = []
        self.n = 0

    def fresh(self):
        self.n += 1
        return f"v{self.n}"

    def shape_text(self, shape):
        return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"

    # --------------------------------------------------------------- leaves
    def leaf(self):
        r, name = self.r, self.fresh()
        shape = r.choice(SHAPES)
        kind = r.random()
        dtype = "float32"
        rg = r.random() < 0.7
        st = self.shape_text(shape)
        if kind < 0.35:
            dt = r.random() < 0.2
            dtype = "float64" if dt else "float32"
            expr = f"torch.randn{st if shape else '(())'}" if not dt else f"torch.randn({st[1:-1] or '()'}" \
                f"{', ' if shape else ', '}dtype=torch.float64)"
            if not shape:
                expr = "torch.randn((), dtype=torch.float64)" if dt else "torch.randn(())"
        elif kind < 0.5:
            expr = f"torch.rand{st}" if shape else "torch.rand(())"
        elif kind < 0.62:
            n = 1
            for s in shape:
                n *= s
            expr = f"torch.arange({n}.).reshape({st})" if r.random() < 0.5 else \
                f"torch.linspace(-1, 1, {n}).reshape({st})"
        elif kind < 0.8:
            vals = self.literal(shape)
            expr = f"torch.tensor({vals})"
            if "." not in vals:
                expr = f"torch.tensor({vals}, dtype=torch.float32)"
        else:  # an integer tensor: no grad, but type promotion with the floats
            n = 1
            for s in shape:
                n *= s
            dtype, rg = "int64", False
            expr = r.choice([f"torch.randint(-3, 5, {st})", f"torch.arange({n}).reshape({st})",
                             f"torch.tensor({self.literal(shape, ints=True)})"])
        if rg:
            expr = expr[:-1] + ", requires_grad=True)" if r.random() < 0.6 and "reshape" not in expr else \
                f"{expr}.requires_grad_()"
        self.lines.append(f"{name} = {expr}")
        v = Var(name, shape, dtype, leaf=True, rg=rg)
        self.vars.append(v)
        return v

    def literal(self, shape, ints=False):
        r = self.r
        if not shape:
            return str(r.randint(-4, 4)) if ints else repr(round(r.uniform(-3, 3), r.choice([0, 1, 2, 4])))
        return "[" + ", ".join(self.literal(shape[1:], ints) for _ in range(shape[0])) + "]"

    # --------------------------------------------------------------- ops
    def pick(self, floating=None):
        cands = [v for v in self.vars if floating is None or v.floating == floating]
        return self.r.choice(cands) if cands else None

    def op(self):
        r = self.r
        x = self.pick()
        kind = r.random()
        name = self.fresh()
        if kind < 0.25 and x.floating:
            expr = r.choice(UNARY).format(x=x.name)
            shape, dtype = x.shape, x.dtype
            if "argmax" in expr:
                dtype = "int64"
        elif kind < 0.5:
            y = self.pick()
            op = r.choice(BINOPS)
            if r.random() < 0.3:
                s = r.choice(SCALARS)
                expr = f"{x.name} {op} {s}" if r.random() < 0.6 else f"{s} {op} {x.name}"
                shape = x.shape
                dtype = x.dtype if x.floating or ("." not in s and "e" not in s) else "float32"
                if op == "/" and not x.floating:
                    dtype = "float32"
            else:
                shape = broadcast(x.shape, y.shape)
                if shape is None and r.random() < 0.9:
                    return
                expr = f"{x.name} {op} {y.name}"
                shape = shape or ()
                dtype = "float64" if "float64" in (x.dtype, y.dtype) else (
                    "float32" if x.floating or y.floating or op == "/" else "int64")
        elif kind < 0.62:
            expr = r.choice(REDUCE_ALL).format(x=x.name)
            shape, dtype = (), x.dtype
            if not x.floating and any(k in expr for k in ("mean", "norm", "std", "var", "logsumexp")):
                dtype = "float32"
                if r.random() < 0.8:
                    return
        elif kind < 0.75 and x.shape:
            d = r.randrange(-len(x.shape), len(x.shape))
            expr = r.choice(REDUCE_DIM).format(x=x.name, d=d)
            shape = list(x.shape)
            if "keepdim" in expr:
                shape[d] = 1
            elif not any(k in expr for k in ("softmax", "cumsum", "cumprod", "sort", "topk")):
                del shape[d]
            elif "topk" in expr:
                shape[d] = 1
            dtype = "int64" if "argmax" in expr else x.dtype
            if not x.floating and r.random() < 0.8:
                return
        elif kind < 0.9:
            expr, shape = self.shape_op(x)
            if expr is None:
                return
            dtype = x.dtype
        else:
            y = self.pick(floating=True)
            if y is None or not x.shape or not y.shape:
                return
            if len(x.shape) == 2 and len(y.shape) >= 1 and x.shape[1] == y.shape[0]:
                expr, shape = f"{x.name} @ {y.name}", (x.shape[0],) + tuple(y.shape[1:2])
            elif len(x.shape) == 1 and len(y.shape) == 1 and x.shape == y.shape:
                expr, shape = f"torch.dot({x.name}, {y.name})" if r.random() < 0.5 else f"{x.name} @ {y.name}", ()
            elif len(x.shape) == 2 and len(y.shape) == 2 and r.random() < 0.3:
                expr, shape = f"{x.name} @ {y.name}", None  # shapes may not fit: torch's error
            else:
                return
            if shape is None:
                if x.shape[1] != y.shape[0]:
                    shape = ()
                else:
                    shape = (x.shape[0], y.shape[1])
            dtype = "float64" if "float64" in (x.dtype, y.dtype) else x.dtype
        rg = any(v.rg and v.name in re.findall(r"v\d+", expr) for v in self.vars) and dtype != "int64" \
            and "detach" not in expr and "argmax" not in expr
        self.lines.append(f"{name} = {expr}")
        self.vars.append(Var(name, shape, dtype, rg=rg))

    def shape_op(self, x):
        r, s, n = self.r, x.shape, x.name
        choices = []
        if s:
            choices += [(f"{n}.reshape(-1)", (prod(s),)), (f"{n}.unsqueeze(0)", (1,) + s),
                        (f"{n}[0]", s[1:]), (f"{n}.flip(0)", s), (f"{n}[-1:]", (1,) + s[1:] if s[0] else s),
                        (f"torch.cat([{n}, {n}], 0)", (2 * s[0],) + s[1:]), (f"torch.stack([{n}, {n}])", (2,) + s),
                        (f"{n}[::2]", ((s[0] + 1) // 2,) + s[1:]), (f"{n}[{n} > 0]", None),
                        (f"{n}.repeat(2{', 1' * (len(s) - 1)})", (2 * s[0],) + s[1:]),
                        (f"{n}[[0, -1]]", (2,) + s[1:]), (f"{n}.clone()", s), (f"{n}.detach()", s),
                        (f"{n}.squeeze()", tuple(d for d in s if d != 1)), (f"{n}.view({s[0]}, -1)", (s[0], prod(s[1:])))]
        if len(s) >= 2:
            choices += [(f"{n}.t()", (s[1], s[0]) + s[2:]) if len(s) == 2 else (f"{n}.transpose(0, 1)", (s[1], s[0]) + s[2:]),
                        (f"{n}[:, 1:]", (s[0], max(s[1] - 1, 0)) + s[2:]), (f"{n}[..., 0]", s[:-1]),
                        (f"{n}.permute({', '.join(map(str, reversed(range(len(s)))))})", tuple(reversed(s))),
                        (f"{n}.sum(0, keepdim=True).expand({', '.join(map(str, s))})", s), (f"{n}.T", tuple(reversed(s)))]
        else:
            choices += [(f"{n}.expand(2, {', '.join(map(str, s)) or '1'})", (2,) + (s or (1,))),
                        (f"{n}.unsqueeze(-1)", s + (1,))]
        expr, shape = r.choice(choices)
        if shape is None:  # a boolean mask: a 1-d tensor of unknown length
            shape = (-1,)
        if "detach" in expr:
            return expr, shape
        return expr, shape

    def inplace(self):
        x = self.pick(floating=True)
        if x is None:
            return
        op = self.r.choice(["add_(1)", "mul_(2)", "clamp_(min=0)", "zero_()", "exp_()", "sub_(0.5)", "neg_()",
                            "copy_(torch.ones_like({n}))"]).format(n=x.name)
        stmt = f"{x.name}.{op}" if self.r.random() < 0.7 else f"{x.name} += 1"
        if self.r.random() < 0.4:
            self.lines.append("with torch.no_grad():")
            self.lines.append("    " + stmt)
        else:
            self.lines.append(stmt)

    def show(self):
        r = self.r
        v = r.choice(self.vars)
        n = v.name
        form = r.random()
        if form < 0.3:
            self.lines.append(n)
        elif form < 0.5:
            self.lines.append(f"print({n})")
        elif form < 0.6:
            self.lines.append(f"print({n}.shape, {n}.dtype, {n}.requires_grad, {n}.is_leaf)")
        elif form < 0.7:
            self.lines.append(f"print({n}.grad_fn)" if r.random() < 0.5 else f"{n}.grad_fn")
        elif form < 0.8:
            self.lines.append(f"print({n}.sum().item() if {n}.numel() else 0)" if v.dtype != "int64" else f"{n}.tolist()")
        elif form < 0.9:
            self.lines.append(f"print({n}.detach().numpy())" if r.random() < 0.3 else f"print(repr({n}.detach()))")
        else:
            self.lines.append(f"print({n}.size(), {n}.dim(), {n}.numel())")

    def ending(self):
        r = self.r
        outs = [v for v in self.vars if v.rg]
        if not outs:
            return
        y = r.choice(outs)
        kind = r.random()
        if kind < 0.55:
            red = r.choice(["sum()", "mean()", "pow(2).sum()", "abs().max()"])
            if y.shape and r.random() < 0.15:
                self.lines.append(f"{y.name}.backward()")  # a non-scalar: torch's error (unless one element)
            else:
                retain = r.random() < 0.3
                self.lines.append(f"out = {y.name}.{red}")
                self.lines.append("out.backward(retain_graph=True)" if retain else "out.backward()")
                if r.random() < 0.25:
                    self.lines.append("out.backward()")  # twice: an error without retain_graph
        elif kind < 0.75:
            leaves = [v for v in self.vars if v.leaf and v.rg]
            pick = r.sample(leaves, k=min(len(leaves), r.randint(1, 2)))
            self.lines.append(f"gs = torch.autograd.grad({y.name}.sum(), [{', '.join(v.name for v in pick)}], "
                              f"allow_unused={r.random() < 0.5}, create_graph={r.random() < 0.3})")
            self.lines.append("print(gs)")
        elif kind < 0.9:
            self.lines.append(f"{y.name}.retain_grad()")
            self.lines.append(f"{y.name}.sum().backward()")
            self.lines.append(f"print({y.name}.grad)")
        else:
            self.lines.append(f"{y.name}.backward(torch.ones_like({y.name}))")
        for v in self.vars:
            if v.leaf and (v.rg or r.random() < 0.2):
                self.lines.append(f"print({v.name}.grad)" if r.random() < 0.7 else f"{v.name}.grad")


NN_LAYERS = ["nn.Linear({i}, {o})", "nn.Linear({i}, {o}, bias=False)"]
ACTS = ["nn.ReLU()", "nn.Tanh()", "nn.Sigmoid()", "nn.LeakyReLU(0.2)", "nn.GELU()", "nn.Softplus()", "nn.ELU()",
        "nn.Identity()", "nn.Dropout(0.5)"]
LOSSES = [("nn.MSELoss()", "float"), ("nn.L1Loss()", "float"), ("nn.SmoothL1Loss()", "float"),
          ("nn.HuberLoss(delta=0.5)", "float"), ("nn.CrossEntropyLoss()", "class"),
          ("nn.BCEWithLogitsLoss()", "prob"), ("nn.MSELoss(reduction='sum')", "float"),
          ("nn.CrossEntropyLoss(label_smoothing=0.1)", "class"), ("nn.NLLLoss()", "logclass"),
          ("nn.SoftMarginLoss()", "sign")]
OPTIMS = ["torch.optim.SGD(model.parameters(), lr=0.1)", "torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)",
          "torch.optim.Adam(model.parameters(), lr=0.01)", "torch.optim.AdamW(model.parameters(), lr=0.01)",
          "torch.optim.RMSprop(model.parameters(), lr=0.01)", "torch.optim.Adagrad(model.parameters(), lr=0.1)",
          "torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=0.01, nesterov=True, momentum=0.5)"]


def generate_nn(seed: int, index: int) -> str:
    """A small model trained for a few steps: layers, activations, a loss, an optimizer, prints of the
    loss, the parameters' gradients, named_parameters, state_dict keys, the model's repr."""
    r = random.Random(f"nn:{seed}:{index}")
    n_in, n_hidden, n_out, batch = r.randint(1, 5), r.randint(1, 6), r.randint(1, 4), r.randint(1, 5)
    loss, kind = r.choice(LOSSES)
    if kind in ("class", "logclass"):
        n_out = max(n_out, 2)
    layers = [r.choice(NN_LAYERS).format(i=n_in, o=n_hidden), r.choice(ACTS),
              r.choice(NN_LAYERS).format(i=n_hidden, o=n_out)]
    if kind == "logclass":
        layers.append("nn.LogSoftmax(dim=1)")
    lines = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F",
             f"torch.manual_seed({r.randrange(1000)})", "model = nn.Sequential(" + ", ".join(layers) + ")"]
    if r.random() < 0.5:
        lines.append("print(model)")
    lines.append(f"x = torch.randn({batch}, {n_in})")
    target = {"float": f"torch.randn({batch}, {n_out})", "class": f"torch.randint(0, {n_out}, ({batch},))",
              "logclass": f"torch.randint(0, {n_out}, ({batch},))", "prob": f"torch.rand({batch}, {n_out})",
              "sign": f"torch.randint(0, 2, ({batch}, {n_out})).float() * 2 - 1"}[kind]
    lines.append(f"y = {target}")
    lines.append(f"loss_fn = {loss}")
    lines.append(f"opt = {r.choice(OPTIMS)}")
    if r.random() < 0.3:
        lines.append("model.eval()" if r.random() < 0.5 else "model.train()")
    steps = r.randint(1, 4)
    lines.append(f"for step in range({steps}):")
    lines.append("    opt.zero_grad()")
    lines.append("    out = model(x)")
    lines.append("    loss = loss_fn(out, y)")
    lines.append("    loss.backward()")
    lines.append("    opt.step()")
    lines.append("    print(step, loss)" if r.random() < 0.5 else "    print(step, round(loss.item(), 4))")
    for _ in range(r.randint(1, 3)):
        k = r.random()
        if k < 0.3:
            lines.append("for name, p in model.named_parameters():\n    print(name, p.shape, p.grad is None)")
        elif k < 0.5:
            lines.append("print(list(model.state_dict().keys()))")
        elif k < 0.7:
            lines.append("print(model[0].weight.grad)")
        elif k < 0.85:
            lines.append("with torch.no_grad():\n    print(model(x).argmax(dim=1))")
        else:
            lines.append("print(sum(p.numel() for p in model.parameters()))")
    return "\n".join(lines) + "\n"


def prod(s):
    p = 1
    for d in s:
        p *= d
    return p


def generate(seed: int, index: int) -> str:
    r = random.Random(f"{seed}:{index}")
    p = Program(r)
    p.lines.append(f"torch.manual_seed({r.randrange(1000)})")
    for _ in range(r.randint(1, 3)):
        p.leaf()
    for _ in range(r.randint(2, 9)):
        k = r.random()
        if k < 0.65:
            p.op()
        elif k < 0.72:
            p.inplace()
        else:
            p.show()
        if r.random() < 0.15:
            p.leaf()
    p.ending()
    return "\n".join(p.lines) + "\n"


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def minimise(check, source):
    """Drop lines (not the imports) while the program still differs in the same kind."""
    lines = source.splitlines()
    kind = check(source)
    changed = True
    while changed:
        changed = False
        for i in range(len(lines) - 1, 1, -1):
            if lines[i].startswith("    "):
                continue
            trial = lines[:i] + lines[i + 1:]
            if i + 1 < len(lines) and lines[i].endswith(":"):
                trial = lines[:i] + lines[i + 2:]
            text = "\n".join(trial) + "\n"
            if check(text) is not None and kind_of(check(text)) == kind_of(kind):
                lines, changed = trial, True
    return "\n".join(lines) + "\n"


def kind_of(diff: str) -> str:
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", diff)[:160]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--only", type=int, default=None, help="run program number N of the seed only")
    parser.add_argument("--minimise", action="store_true")
    parser.add_argument("--show", type=int, default=1, help="programs shown per kind")
    parser.add_argument("--nn", action="store_true", help="small training loops (layers, losses, optimizers)")
    parser.add_argument("--wide", action="store_true",
                        help="the wide generator (tools/fuzz_wide.py): dtypes, views, indexing, errors, ...")
    parser.add_argument("--corners", action="store_true",
                        help="the corners generator (tools/fuzz_corners.py): int division, bitwise, overflow, "
                             "nan/inf, index ops, printing options, ...")
    parser.add_argument("--tutorial", action="store_true",
                        help="the tutorial generator (tools/fuzz_tutorial.py): optimizers and schedulers, losses, "
                             "autograd.grad options, hooks, print options, promotion, shape errors, ...")
    parser.add_argument("--script", action="store_true",
                        help="the script generator (tools/fuzz_script.py): script classes, nn.Module and Dataset "
                             "subclasses, comprehensions, while/break, try/except, f-strings, int/bool/float16, ...")
    parser.add_argument("--mix", action="store_true",
                        help="the mix generator (tools/fuzz_mix.py): random expression trees over every dtype, "
                             "view chains changed in place, composed indexing keys, print options, Python scalars")
    parser.add_argument("--layers", action="store_true",
                        help="the layers generator (tools/fuzz_layers.py): in-place random inits, conv/norm/dropout/"
                             "embedding layers, small models with weight decay, prints past the threshold, f-strings")
    parser.add_argument("--pool", action="store_true",
                        help="the pool generator (tools/fuzz_pool.py): a random walk over live variables of every "
                             "dtype, each step an op, view, in-place op, print, autograd call or module on them")
    parser.add_argument("--repr", action="store_true",
                        help="the repr generator (tools/fuzz_repr.py): prints of tensors of every shape and dtype "
                             "with values on the formatter's borders (nan/inf/-0., exponents, sci-mode switch, "
                             "summarisation) under random print options, by every print route")
    parser.add_argument("--train", action="store_true",
                        help="the train generator (tools/fuzz_train.py): nn.Module subclasses trained over a "
                             "DataLoader, every loss, optimizer and lr scheduler, clipping, eval, state_dict round trips")
    parser.add_argument("--views", action="store_true",
                        help="the views generator (tools/fuzz_views.py): views of views changed in place, their "
                             "grad_fn and _version, saved tensors changed after use, no_grad, detach_, retain_grad")
    args = parser.parse_args(argv)
    import torch  # noqa: F401,PLC0415 - once, so that every forked run has it
    FL = load(ROOT / "tools" / "fuzz_long.py", "fuzz_long")
    MG = load(ROOT / "tools" / "make_goldens.py", "make_goldens")
    seed = args.seed if args.seed is not None else random.randrange(2 ** 31)

    def check(source):
        return FL.vs_torch(None, MG, source)

    make = generate_nn if args.nn else generate
    if args.wide:
        make = load(ROOT / "tools" / "fuzz_wide.py", "fuzz_wide").generate_wide
    if args.corners:
        make = load(ROOT / "tools" / "fuzz_corners.py", "fuzz_corners").generate_corners
    if args.tutorial:
        make = load(ROOT / "tools" / "fuzz_tutorial.py", "fuzz_tutorial").generate_tutorial
    if args.script:
        make = load(ROOT / "tools" / "fuzz_script.py", "fuzz_script").generate_script
    if args.mix:
        make = load(ROOT / "tools" / "fuzz_mix.py", "fuzz_mix").generate_mix
    if args.layers:
        make = load(ROOT / "tools" / "fuzz_layers.py", "fuzz_layers").generate_layers
    if args.pool:
        make = load(ROOT / "tools" / "fuzz_pool.py", "fuzz_pool").generate_pool
    if args.repr:
        make = load(ROOT / "tools" / "fuzz_repr.py", "fuzz_repr").generate_repr
    if args.train:
        make = load(ROOT / "tools" / "fuzz_train.py", "fuzz_train").generate_train
    if args.views:
        make = load(ROOT / "tools" / "fuzz_views.py", "fuzz_views").generate_views
    if args.only is not None:
        source = make(seed, args.only)
        print(source)
        diff = check(source)
        print("agrees" if diff is None else diff)
        if diff and args.minimise:
            print("--- minimised:")
            print(minimise(check, source))
        return 0 if diff is None else 1
    kinds = collections.defaultdict(list)
    for i in range(args.start, args.start + args.count):
        source = make(seed, i)
        try:
            diff = check(source)
        except Exception as e:  # noqa: BLE001 - a crash of the harness is a finding too
            diff = f"harness: {type(e).__name__}: {e}"
        if diff:
            kinds[kind_of(diff)].append((len(source), i, diff))
    print(f"fuzz_programs: seed {seed}, {args.count} programs, {sum(map(len, kinds.values()))} differ, "
          f"{len(kinds)} kinds")
    for kind, items in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        items.sort()
        print(f"=== {len(items)} x {kind}")
        for _, i, diff in items[:args.show]:
            print(f"--- program {i} (--seed {seed} --only {i}): {diff}")
    return 1 if kinds else 0


if __name__ == "__main__":
    sys.exit(main())
