"""The layers generator of tools/fuzz_programs.py (``--layers``): what a seeded random program
generator written by someone else draws and the other generators never do. Random inputs made in
place (``normal_``/``uniform_``/``bernoulli_``/``exponential_``/``random_``/``fill_``, ``torch.normal``,
the ``*_like`` and ``nn.init`` functions) after ``torch.manual_seed``; the tutorials' layers one at a
time (``Conv1d``/``Conv2d`` with stride/padding/dilation/groups, ``ConvTranspose2d``, ``BatchNorm1d``/
``BatchNorm2d`` in train and eval mode with their running stats, ``LayerNorm``, ``GroupNorm``,
``Dropout`` in train and eval, ``Embedding`` with ``padding_idx``, pooling, ``Flatten``) forward and
backward, their parameters' gradients; small models of those layers trained a few steps by optimizers
with weight decay (SGD momentum, Adam, AdamW, RMSprop, Adagrad) then evaluated; prints past the
summarisation threshold (more than 1000 elements) of every dtype under ``set_printoptions``;
``.item()``/``.tolist()``/f-strings of tensors and items; the autograd calls of a training script
(``retain_graph``, gradients accumulated then zeroed, ``detach``/``clone``, ``no_grad``); dtype
promotion of results; and the layers' errors (wrong channels, indices out of range, batch of one in
BatchNorm training).

It reuses fuzz_wide's Wide (names, ``guarded``, ``show``); every block makes its own inputs.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_wide import Wide, st  # noqa: E402

INITS = ["normal_()", "normal_(0., 0.02)", "normal_(mean=1., std=3.)", "uniform_()", "uniform_(-1, 1)",
         "uniform_(a=-0.1, b=0.1)", "bernoulli_(0.3)", "exponential_()", "exponential_(2.)", "random_(0, 10)",
         "fill_(0.5)", "zero_()", "log_normal_()", "cauchy_()", "geometric_(0.5)"]
NN_INITS = ["xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "zeros_",
            "ones_", "uniform_", "normal_", "trunc_normal_", "constant_({t}, 0.3)", "eye_"]
OPTIMS = ["torch.optim.SGD({p}, lr=0.1, momentum=0.9)", "torch.optim.SGD({p}, lr=0.05, weight_decay=1e-2)",
          "torch.optim.Adam({p}, lr=0.01, weight_decay=1e-3)", "torch.optim.AdamW({p}, lr=0.01)",
          "torch.optim.AdamW({p}, lr=0.02, weight_decay=0.1)", "torch.optim.RMSprop({p}, lr=0.01, weight_decay=0.01)",
          "torch.optim.Adagrad({p}, lr=0.1, weight_decay=0.05)", "torch.optim.Adam({p}, lr=1e-3)",
          "torch.optim.SGD({p}, lr=0.01, momentum=0.9, nesterov=True, weight_decay=5e-4)",
          "torch.optim.RMSprop({p}, lr=0.005, momentum=0.5)", "torch.optim.Adagrad({p}, lr=0.05)"]
DTYPES = ["torch.float32", "torch.float64", "torch.float16", "torch.int64", "torch.int32", "torch.int16",
          "torch.int8", "torch.uint8", "torch.bool"]


class Layers(Wide):
    def floats(self, shape, rg=False, p="x", dtype=""):
        n = self.name(p)
        d = f", dtype={dtype}" if dtype else ""
        self.emit(f"{n} = torch.randn({st(shape) if shape else '()'}{d})" + (".requires_grad_()" if rg else ""))
        return n

    # ------------------------------------------------------------------ blocks
    def random_init(self):
        r = self.r
        self.emit(f"torch.manual_seed({r.randrange(10000)})")
        for _ in range(r.randint(1, 3)):
            shape = r.choice([(3,), (2, 3), (4, 4), (2, 2, 3), (5,), (3, 5), (1,), ()])
            t = self.name("t")
            k = r.random()
            dtype = r.choice(["", "", ", dtype=torch.float64", ", dtype=torch.float16"])
            s = st(shape) if shape else "()"
            if k < 0.45:
                init = r.choice(INITS)
                if init.startswith(("random_", "geometric_")) and r.random() < 0.5:
                    dtype = r.choice([", dtype=torch.int64", ", dtype=torch.int32", ""])
                self.emit(f"{t} = torch.empty({s}{dtype}).{init}")
            elif k < 0.6:
                self.emit(f"{t} = torch.normal({r.choice(['0.', '2.', '-1.'])}, {r.choice(['1.', '0.5', '3.'])}, "
                          f"size={s})")
            elif k < 0.75:
                base = self.name("b")
                self.emit(f"{base} = torch.ones({s}{dtype})")
                self.emit(f"{t} = " + r.choice([f"torch.randn_like({base})", f"torch.rand_like({base})",
                                                f"torch.randint_like({base}, 0, 7)", f"torch.empty_like({base}).normal_()",
                                                f"torch.bernoulli(torch.full_like({base}, 0.4))",
                                                f"torch.normal(torch.zeros_like({base}), torch.ones_like({base}))"]))
            elif k < 0.9 and len(shape) >= 2:
                init = r.choice(NN_INITS)
                call = f"torch.nn.init.{init.format(t=t)}" if "{t}" in init else f"torch.nn.init.{init}({t})"
                self.emit(f"{t} = torch.empty({s}{dtype})", call)
            else:
                self.emit(f"{t} = " + r.choice([f"torch.randperm({r.randint(1, 8)})",
                                                f"torch.randint(-3, 4, {s})", f"torch.rand({s}) * 2 - 1",
                                                f"torch.multinomial(torch.tensor([0.1, 0.5, 0.4]), {r.randint(1, 3)})",
                                                f"torch.randn({s}).mul_(0.1).add_(1)"]))
            self.show(r.choice([t, f"{t}.dtype", f"{t}.sum()", f"{t}.mean()" if "int" not in dtype else f"{t}.max()",
                                f"{t}.tolist()", f"({t}.shape, {t}.dtype)"]))

    def conv(self):
        r = self.r
        two = r.random() < 0.6
        groups = r.choice([1, 1, 2])
        cin, cout = 2 * r.randint(1, 2), 2 * r.randint(1, 2)
        k, stride, pad, dil = r.choice([1, 2, 3]), r.choice([1, 1, 2]), r.choice([0, 1, 2]), r.choice([1, 1, 2])
        size = r.randint(5, 8)
        bias = r.choice(["", ", bias=False"])
        opts = f"kernel_size={k}, stride={stride}, padding={pad}, dilation={dil}, groups={groups}{bias}"
        if r.random() < 0.2:
            opts = f"{k}, padding='same'{bias}" if stride == 1 else f"{k}{bias}"
        if r.random() < 0.15 and two:
            kind, opts = "ConvTranspose2d", f"{k}, stride={stride}, padding={min(pad, k - 1)}{bias}"
        else:
            kind = "Conv2d" if two else "Conv1d"
        self.emit(f"torch.manual_seed({r.randrange(1000)})", f"m = torch.nn.{kind}({cin}, {cout}, {opts})")
        shape = (r.randint(1, 2), cin, size, size) if two else (r.randint(1, 2), cin, size)
        if r.random() < 0.1:  # a wrong channel count
            shape = (shape[0], cin + 1) + shape[2:]
        x = self.floats(shape, rg=r.random() < 0.5)
        self.guarded(f"y = m({x})", "print(y.shape)", "print(y)" if r.random() < 0.5 else "print(y.sum(), y.mean())",
                     "y.pow(2).sum().backward()", "print(m.weight.grad)",
                     r.choice(["print(m.bias.grad)" if not bias else "print(m.bias)", f"print({x}.grad)"]))

    def norm(self):
        r = self.r
        kind = r.choice(["BatchNorm1d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "InstanceNorm1d"])
        c, n = r.choice([2, 3, 4]), r.choice([1, 2, 4, 5])
        if kind == "BatchNorm1d":
            shape = r.choice([(n, c), (n, c, 3)])
            m = f"torch.nn.BatchNorm1d({c}{r.choice(['', ', momentum=0.5', ', affine=False', ', eps=1e-3', ', track_running_stats=False'])})"
        elif kind == "BatchNorm2d":
            shape = (n, c, 2, 3)
            m = f"torch.nn.BatchNorm2d({c}{r.choice(['', ', momentum=None', ', affine=False'])})"
        elif kind == "LayerNorm":
            shape = r.choice([(n, c), (n, 2, c)])
            m = f"torch.nn.LayerNorm({r.choice([str(c), f'[2, {c}]' if len(shape) == 3 else str(c)])}" \
                f"{r.choice(['', ', elementwise_affine=False', ', eps=1e-6', ', bias=False'])})"
        elif kind == "GroupNorm":
            shape = (n, 4, 3)
            m = f"torch.nn.GroupNorm({r.choice([1, 2, 4])}, 4{r.choice(['', ', affine=False'])})"
        else:
            shape = (n, c, 4)
            m = f"torch.nn.InstanceNorm1d({c}{r.choice(['', ', affine=True', ', track_running_stats=True'])})"
        x = self.floats(shape, rg=True)
        lines = [f"m = {m}"]
        if r.random() < 0.4:
            lines += ["m.eval()"] if r.random() < 0.5 else ["m(" + x + " * 2 + 1)", "m.eval()"]
        lines += [f"y = m({x})", "print(y)", "y[0].sum().backward()" if r.random() < 0.5 else "(y * y).mean().backward()",
                  f"print({x}.grad)"]
        if kind.startswith("Batch"):
            lines.append(r.choice(["print(m.running_mean, m.running_var)", "print(m.num_batches_tracked)",
                                   "print(list(m.state_dict().keys()))", "print(m)"]))
        elif r.random() < 0.5:
            lines.append(r.choice(["print(m)", "print([p.grad for p in m.parameters()])"]))
        self.guarded(*lines)

    def dropout(self):
        r = self.r
        p = r.choice(["0.5", "0.2", "0.", "1.", "0.9"])
        self.emit(f"torch.manual_seed({r.randrange(1000)})")
        x = self.floats(r.choice([(4,), (2, 5), (3, 3)]), rg=True)
        k = r.random()
        if k < 0.4:
            self.emit(f"d = torch.nn.Dropout({p})")
            if r.random() < 0.5:
                self.emit("d.eval()" if r.random() < 0.5 else "d.train()")
            self.emit(f"y = d({x})")
        elif k < 0.7:
            self.emit(f"y = F.dropout({x}, p={p}, training={r.choice(['True', 'False'])})")
        else:
            self.emit(f"y = F.{r.choice(['dropout1d', 'alpha_dropout', 'dropout'])}({x}, {p}, True)"
                      if k < 0.85 else f"y = torch.dropout({x}, {p}, True)")
        self.guarded("print(y)", "y.sum().backward()", f"print({x}.grad)")

    def embedding(self):
        r = self.r
        num, dim = r.randint(3, 8), r.randint(1, 4)
        pad = r.choice(["", "", ", padding_idx=0", ", padding_idx=-1", ", max_norm=1.0"])
        self.emit(f"torch.manual_seed({r.randrange(1000)})", f"emb = torch.nn.Embedding({num}, {dim}{pad})")
        hi = num + (1 if r.random() < 0.1 else 0)
        idx = self.name("i")
        self.emit(f"{idx} = torch.randint(0, {hi}, {r.choice(['(4,)', '(2, 3)', '()'])})")
        lines = [f"e = emb({idx})", "print(e)", "e.sum().backward()" if r.random() < 0.5 else "(e * e).sum().backward()",
                 "print(emb.weight.grad)"]
        if r.random() < 0.3:
            lines.append(f"print(F.embedding({idx}, emb.weight.detach() * 2))")
        self.guarded(*lines)

    def pooling(self):
        r = self.r
        x = self.floats((1, 2, r.randint(4, 6), r.randint(4, 6)), rg=True)
        f = r.choice(["F.max_pool2d({x}, 2)", "F.avg_pool2d({x}, 2, stride=1)", "F.adaptive_avg_pool2d({x}, (2, 2))",
                      "F.adaptive_max_pool2d({x}, 1)", "torch.nn.MaxPool2d(3, stride=2, padding=1)({x})",
                      "torch.nn.AvgPool2d(2, ceil_mode=True)({x})", "torch.nn.Flatten()({x})",
                      "F.max_pool2d({x}, 2, return_indices=True)[1]", "F.avg_pool2d({x}, 3, padding=1, count_include_pad=False)",
                      "F.interpolate({x}, scale_factor=2)", "F.pad({x}, (1, 1, 0, 2))", "F.lp_pool2d({x}, 2, 2)"])
        self.guarded(f"y = {f.format(x=x)}", "print(y)",
                     "y.float().sum().backward()" if "indices" not in f else "print(y.dtype)",
                     f"print({x}.grad)")

    def model(self):
        r = self.r
        self.emit(f"torch.manual_seed({r.randrange(1000)})")
        kind = r.choice(["cnn", "mlp", "emb"])
        if kind == "cnn":
            norm = r.choice(["torch.nn.BatchNorm2d(4), ", "", "torch.nn.GroupNorm(2, 4), "])
            self.emit(f"model = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), {norm}torch.nn.ReLU(), "
                      f"torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Dropout({r.choice(['0.25', '0.'])}), "
                      "torch.nn.Linear(16, 3))", "xb = torch.randn(4, 1, 4, 4)")
        elif kind == "mlp":
            norm = r.choice(["torch.nn.BatchNorm1d(6), ", "torch.nn.LayerNorm(6), ", ""])
            self.emit(f"model = torch.nn.Sequential(torch.nn.Linear(5, 6), {norm}torch.nn.{r.choice(['ReLU', 'Tanh', 'GELU'])}(), "
                      f"torch.nn.Dropout({r.choice(['0.5', '0.1'])}), torch.nn.Linear(6, 3))", "xb = torch.randn(4, 5)")
        else:
            self.emit("model = torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.Flatten(), torch.nn.Linear(12, 3))",
                      "xb = torch.randint(0, 10, (4, 3))")
        self.emit("yb = torch.randint(0, 3, (4,))")
        loss = r.choice(["F.cross_entropy(out, yb)", "F.nll_loss(F.log_softmax(out, 1), yb)",
                         "F.mse_loss(out, F.one_hot(yb, 3).float())", "torch.nn.CrossEntropyLoss(label_smoothing=0.1)(out, yb)"])
        self.emit(f"opt = {r.choice(OPTIMS).format(p='model.parameters()')}")
        pr = r.choice(["    print(f'{step} {loss.item():.4f}')", "    print(step, loss)", "    print(f'loss={loss:.5f}')",
                       "    print(step, round(loss.item(), 5))"])
        self.emit(f"for step in range({r.randint(1, 4)}):", "    model.train()", "    opt.zero_grad()", "    out = model(xb)",
                  f"    loss = {loss}", "    loss.backward()", "    opt.step()", pr)
        self.emit("model.eval()")
        tail = r.choice(["with torch.no_grad():\n    print(model(xb))", "print(model(xb).argmax(1))",
                         "print((model(xb).argmax(1) == yb).float().mean().item())",
                         "print(sum(p.numel() for p in model.parameters() if p.requires_grad))",
                         "print({k: tuple(v.shape) for k, v in model.state_dict().items()})",
                         "print(model[0].weight.grad.abs().sum())", "print(opt.state_dict()['param_groups'][0])"])
        self.emit(*tail.split("\n"))

    def big_print(self):
        r = self.r
        if r.random() < 0.4:
            opts = r.choice(["threshold=50", "edgeitems=2", "precision=2", "linewidth=60", "sci_mode=True",
                             "profile='short'", "threshold=2000, edgeitems=1", "precision=6, sci_mode=False",
                             "profile='full'"])
            self.emit(f"torch.set_printoptions({opts})")
        shape = r.choice([(1001,), (40, 30), (10, 11, 12), (2, 600), (1200, 1), (33, 33), (7, 8, 9, 3), (1000,)])
        dtype = r.choice(DTYPES)
        self.emit(f"torch.manual_seed({r.randrange(1000)})")
        t = self.name("big")
        s = st(shape)
        if dtype == "torch.bool":
            e = f"torch.rand({s}) > 0.5"
        elif "int" in dtype:
            e = f"torch.randint({0 if 'uint' in dtype else -100}, 100, {s}, dtype={dtype})"
        else:
            e = f"torch.randn({s}, dtype={dtype}){r.choice(['', ' * 1000', ' * 1e-5', '.abs().round()'])}"
        self.emit(f"{t} = {e}")
        self.show(r.choice([t, f"{t}[:3]", f"{t}.reshape(-1)", f"{t}.t()" if len(shape) == 2 else t,
                            f"{t} * 2", f"{t}.sum(0)"]), echo=r.random() < 0.3)
        if r.random() < 0.3:
            self.emit("torch.set_printoptions(profile='default')")

    def formats(self):
        r = self.r
        x = self.floats(r.choice([(), (3,), (2, 2)]), dtype=r.choice(["", "torch.float64", "torch.float16"]))
        s = f"{x}.sum()"
        e = r.choice([f"f'{{{s}.item():.4f}}'", f"f'{{{s}:.3f}}'", f"f'{{{x}}}'", f"f'{{{x}!r}}'", f"f'{{{s}.item()}}'",
                      f"f'{{{s}.item():e}}'", f"f'{{{s}.item():10.2f}}|'", f"{x}.tolist()", f"{s}.item()",
                      f"str({x})", f"repr({s})", f"'{{:.2e}}'.format({s}.item())", f"float({s})", f"int({s})",
                      f"round({s}.item(), 3)", f"{x}.mean().item() * 2", f"f'{{{s}.int().item():+d}}'",
                      f"f'{{{x}.shape}}'", f"f'{{{x}.dtype}} {{{x}.ndim}}'", f"[round(v, 3) for v in {x}.flatten().tolist()]"])
        self.guarded(f"print({e})")

    def autograd(self):
        r = self.r
        w = self.floats((3,), rg=True, p="w")
        x = self.floats((2, 3), p="x")
        self.emit(f"y = ({x} @ {w}).tanh()", "loss = y.sum()")
        k = r.random()
        if k < 0.3:
            self.emit("loss.backward(retain_graph=True)", f"print({w}.grad)", "loss.backward()", f"print({w}.grad)")
        elif k < 0.5:
            self.emit("loss.backward()", f"print({w}.grad)", f"{w}.grad.zero_()", f"print({w}.grad)",
                      f"({x} @ {w}).sum().backward()", f"print({w}.grad)")
        elif k < 0.65:
            self.emit(f"g, = torch.autograd.grad(loss, {w}, create_graph=True)", "print(g)",
                      "g.sum().backward()", f"print({w}.grad)")
        elif k < 0.8:
            self.emit(f"d = {w}.detach()", "d.add_(1)", f"print({w})", f"c = {w}.clone()", "print(c.grad_fn, c.requires_grad)",
                      "loss.backward()", f"print({w}.grad)")
        else:
            self.emit("with torch.no_grad():", f"    {w} -= 0.1 * {w}", f"    z = {w} * 2", "print(z.requires_grad)")
            self.guarded("loss.backward()", f"print({w}.grad)")

    def promotion(self):
        r = self.r
        a, b = r.choice(DTYPES), r.choice(DTYPES)
        x, y = self.new((2, 2), a, p="a")[0], self.new(r.choice([(2, 2), (), (2,)]), b, p="b")[0]
        op = r.choice(["+", "*", "-", "/", "//", "%", "**", "<", "==", "&", "max"])
        e = f"torch.maximum({x}, {y})" if op == "max" else f"{x} {op} {y}"
        if r.random() < 0.3:
            e = f"{x} {op if op != 'max' else '+'} {r.choice(['2', '2.5', 'True', '-3', '1e10'])}"
        self.guarded(f"z = {e}", "print(z.dtype)", "print(z)")

    def layer_errors(self):
        r = self.r
        es = ["torch.nn.BatchNorm1d(3)(torch.randn(1, 3))", "torch.nn.Embedding(4, 2)(torch.tensor([4]))",
              "torch.nn.Embedding(4, 2)(torch.tensor([0.5]))", "torch.nn.Conv2d(3, 4, 3)(torch.randn(1, 2, 5, 5))",
              "torch.nn.Conv2d(1, 1, 5)(torch.randn(1, 1, 3, 3))", "torch.nn.LayerNorm(4)(torch.randn(2, 3))",
              "torch.nn.Linear(3, 2)(torch.randn(2, 3, dtype=torch.float64))", "torch.nn.Conv1d(2, 2, 3)(torch.randn(2, 5))",
              "torch.nn.GroupNorm(3, 4)", "torch.nn.Dropout(1.5)", "torch.nn.MaxPool2d(2)(torch.randn(1, 1, 1, 1))",
              "torch.nn.BatchNorm2d(2)(torch.randn(2, 2, 3))", "F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))",
              "torch.nn.Conv2d(4, 4, 3, groups=3)", "torch.nn.Linear(2, 2)(torch.tensor([[1, 2]]))",
              "torch.empty(3).normal_(0, -1)", "torch.empty(3).uniform_(2, 1)", "torch.randint(5, 2, (3,))",
              "torch.multinomial(torch.tensor([0., 0.]), 1)", "torch.empty(2, dtype=torch.int64).normal_()"]
        for e in r.sample(es, k=r.randint(1, 3)):
            self.guarded(f"print({e})")


BLOCKS = ["random_init", "conv", "norm", "dropout", "embedding", "pooling", "model", "big_print", "formats",
          "autograd", "promotion", "layer_errors"]


def generate_layers(seed: int, index: int) -> str:
    r = random.Random(f"layers:{seed}:{index}")
    w = Layers(r)
    for _ in range(r.randint(1, 3)):
        getattr(w, r.choice(BLOCKS))()
    return "\n".join(w.lines) + "\n"
