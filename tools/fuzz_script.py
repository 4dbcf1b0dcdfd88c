"""The script generator of tools/fuzz_programs.py (``--script``): the Python around the tensors that
seeded tutorial-like programs write and the other generators never draw. Script classes (a plain
``class`` with ``__init__``, methods, ``@property``, ``__repr__``/``__len__``/``__call__``; ``nn.Module``
subclasses with submodules, ``nn.ModuleList``/``nn.Sequential``/``nn.Parameter``, trained a few steps;
``torch.utils.data.Dataset`` subclasses under ``DataLoader``; ``torch.autograd.Function`` subclasses),
list/dict/generator comprehensions over tensors, ``while`` loops with ``break``/``continue``/``else``,
``try``/``except`` of torch's errors printing the message (``type(e).__name__``, ``finally``), f-strings
(``{x.item():.4f}``, ``{t}``, ``{t!r}``, ``{loss:.3f}`` on a 0-d tensor, a format spec on a 1-d one),
integer and bool tensors in arithmetic and Python's builtins (``sum``, ``max``, ``sorted``, ``int()``,
``float()``, ``bool()`` of tensors), float16 arithmetic and in-place ops on views.

It reuses fuzz_tutorial's Tutorial (and so fuzz_wide's ``guarded``, ``show``); every block makes its
own inputs.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_tutorial import Tutorial  # noqa: E402
from fuzz_wide import st  # noqa: E402

ACTS = ["torch.relu", "torch.tanh", "torch.sigmoid", "F.gelu", "F.silu", "F.leaky_relu"]
FMTS = ["{v:.4f}", "{v:.2e}", "{v:8.3f}", "{v:+.1f}", "{v}", "{v:g}", "{v:.0f}", "{v:>10.5f}", "{v:.3%}"]


class Script(Tutorial):
    def body(self, lines, indent="    "):
        return [indent + ln for ln in lines]

    # ------------------------------------------------------------------ blocks
    def plain_class(self):
        r = self.r
        c = self.name("Acc")
        shape = r.choice([(3,), (2, 2), ()])
        self.emit(f"class {c}:",
                  "    def __init__(self, scale=1.0):",
                  "        self.total = None",
                  "        self.count = 0",
                  "        self.scale = scale",
                  "    def add(self, t):",
                  "        t = t * self.scale",
                  "        self.total = t if self.total is None else self.total + t",
                  "        self.count += 1",
                  "        return self",
                  "    @property",
                  "    def mean(self):",
                  "        return self.total / self.count",
                  "    def __len__(self):",
                  "        return self.count",
                  "    def __repr__(self):",
                  f"        return f'{c}(count={{self.count}}, total={{self.total}})'",
                  "    def __call__(self, t):",
                  "        return (t - self.mean).abs().sum()")
        a = self.name("a")
        scale = r.choice(["", "0.5", "2", "-1"])
        self.emit(f"{a} = {c}({scale})")
        w = self.floats(shape, rg=r.random() < 0.6, p="w")
        n = r.randint(1, 4)
        self.emit(f"for i in range({n}):", f"    {a}.add({w} * (i + 1))")
        self.show(a)
        self.show(f"len({a}), {a}.mean")
        if r.random() < 0.6:
            self.guarded(f"v = {a}({w}.detach() + 1)", "print(v, v.requires_grad)")
        if r.random() < 0.5:
            self.guarded(f"{a}.mean.sum().backward()", f"print({w}.grad)")
        if r.random() < 0.3:
            self.guarded(f"{a}.mean = 3", f"print({a}.mean)")

    def module_subclass(self):
        r = self.r
        m = self.name("Net")
        h = r.choice([2, 3, 4])
        act = r.choice(ACTS)
        kind = r.choice(["seq", "list", "param", "plain"])
        init = [f"class {m}(nn.Module):", "    def __init__(self, n_in, n_out):",
                r.choice(["        super().__init__()", f"        super({m}, self).__init__()"])]
        if kind == "seq":
            init += [f"        self.body = nn.Sequential(nn.Linear(n_in, {h}), nn.{r.choice(['ReLU', 'Tanh', 'Sigmoid'])}())",
                     f"        self.head = nn.Linear({h}, n_out)",
                     "    def forward(self, x):", "        return self.head(self.body(x))"]
        elif kind == "list":
            init += [f"        self.layers = nn.ModuleList([nn.Linear(n_in, {h})] + [nn.Linear({h}, {h}) for _ in range({r.randint(0, 2)})])",
                     f"        self.out = nn.Linear({h}, n_out)",
                     "    def forward(self, x):", "        for layer in self.layers:",
                     f"            x = {act}(layer(x))", "        return self.out(x)"]
        elif kind == "param":
            init += ["        self.w = nn.Parameter(torch.randn(n_in, n_out) * 0.1)",
                     "        self.b = nn.Parameter(torch.zeros(n_out))",
                     "        self.register_buffer('steps', torch.tensor(0))",
                     "    def forward(self, x):", "        self.steps += 1", f"        return {act}(x @ self.w + self.b)"]
        else:
            init += [f"        self.fc1 = nn.Linear(n_in, {h}, bias={r.choice(['True', 'False'])})",
                     f"        self.fc2 = nn.Linear({h}, n_out)", f"        self.drop = nn.Dropout({r.choice(['0.0', '0.5'])})",
                     "    def forward(self, x):", f"        return self.fc2(self.drop({act}(self.fc1(x))))"]
        if "import torch.nn as nn" not in self.lines:
            self.emit("import torch.nn as nn")
        self.emit(*init)
        n_in, n_out = r.choice([3, 4]), r.choice([1, 2])
        self.emit(f"torch.manual_seed({r.randrange(100)})", f"model = {m}({n_in}, {n_out})")
        k = r.random()
        if k < 0.3:
            self.emit("print(model)")
        elif k < 0.6:
            self.emit("print([(n, tuple(p.shape)) for n, p in model.named_parameters()])")
        else:
            self.emit("print(sum(p.numel() for p in model.parameters() if p.requires_grad))")
        opt = r.choice(["torch.optim.SGD(model.parameters(), lr=0.1)", "torch.optim.Adam(model.parameters(), lr=0.01)",
                        "torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)"])
        loss = r.choice(["F.mse_loss(out, yb)", "((out - yb) ** 2).mean()", "F.l1_loss(out, yb)"])
        fmt = r.choice(["{loss.item():.4f}", "{loss:.6f}", "{loss}", "{loss.item()}"])
        self.emit(f"xb = torch.randn(6, {n_in})", f"yb = torch.randn(6, {n_out})", f"opt = {opt}",
                  f"for epoch in range({r.randint(1, 4)}):", "    opt.zero_grad()", "    out = model(xb)",
                  f"    loss = {loss}", "    loss.backward()", "    opt.step()", f"    print(f'epoch {{epoch}}: {fmt}')")
        k = r.random()
        if k < 0.3:
            self.emit("model.eval()", "with torch.no_grad():", "    print(model(xb[:2]))")
        elif k < 0.5:
            self.emit("sd = model.state_dict()", "print(list(sd.keys()))", "print({k: v.shape for k, v in sd.items()})")
        elif k < 0.7:
            self.emit("print([type(c).__name__ for c in model.children()], model.training)")
        elif k < 0.85:
            self.guarded(f"model(torch.randn(2, {n_in + 1}))")

    def dataset(self):
        r = self.r
        d = self.name("Data")
        n = r.choice([5, 6, 8])
        self.emit("from torch.utils.data import Dataset, DataLoader",
                  f"class {d}(Dataset):", "    def __init__(self, n):",
                  "        self.x = torch.linspace(-1, 1, n).unsqueeze(1)",
                  f"        self.y = {r.choice(['3 * self.x + 1', '(self.x > 0).float()', 'self.x ** 2'])}",
                  "    def __len__(self):", "        return len(self.x)",
                  "    def __getitem__(self, i):", "        return self.x[i], self.y[i]")
        self.emit(f"ds = {d}({n})", "print(len(ds), ds[0])")
        bs = r.choice([2, 3, 4])
        sh = r.choice(["True", "False"])
        dl = r.choice(["", ", drop_last=True"])
        self.emit(f"torch.manual_seed({r.randrange(100)})", f"loader = DataLoader(ds, batch_size={bs}, shuffle={sh}{dl})",
                  "print(len(loader))")
        if r.random() < 0.5:
            self.emit("for i, (xb, yb) in enumerate(loader):", "    print(i, xb.shape, yb.view(-1))")
        else:
            self.emit("w = torch.zeros(1, requires_grad=True)", "b = torch.zeros(1, requires_grad=True)",
                      f"for epoch in range({r.randint(1, 2)}):", "    total = 0.0", "    for xb, yb in loader:",
                      "        loss = ((xb * w + b - yb) ** 2).mean()", "        loss.backward()",
                      "        with torch.no_grad():", "            w -= 0.1 * w.grad", "            b -= 0.1 * b.grad",
                      "            w.grad.zero_()", "            b.grad.zero_()", "        total += loss.item()",
                      "    print(f'{epoch} {total:.5f} {w.item():.4f} {b.item():.4f}')")

    def custom_function(self):
        r = self.r
        f = self.name("Fn")
        fwd, bwd = r.choice([("i.clamp(min=0)", "g * (i > 0).float()"), ("i.exp()", "g * out"),
                             ("i ** 3", "3 * g * i ** 2"), ("torch.sin(i)", "g * torch.cos(i)")])
        self.emit(f"class {f}(torch.autograd.Function):", "    @staticmethod", "    def forward(ctx, i):",
                  f"        out = {fwd}", "        ctx.save_for_backward(i, out)", "        return out",
                  "    @staticmethod", "    def backward(ctx, g):", "        i, out = ctx.saved_tensors",
                  f"        return {bwd}")
        x = self.floats(r.choice([(3,), (2, 2)]), rg=True)
        self.emit(f"y = {f}.apply({x})", "print(y, y.grad_fn.__class__.__name__)")
        self.guarded("y.sum().backward()" if r.random() < 0.7 else "y.backward()", f"print({x}.grad)")

    def comprehensions(self):
        r = self.r
        x = self.floats((3, 4), rg=r.random() < 0.5)
        es = [f"[round(v.item(), 4) for v in {x}.sum(1)]", f"[row.argmax().item() for row in {x}]",
              f"{{i: {x}[i].max().item() for i in range({x}.shape[0]) if i != 1}}",
              f"torch.stack([{x}[i] * i for i in range(3)])", f"torch.cat([c.mean(1, keepdim=True) for c in {x}.chunk(2, 1)], 1)",
              f"[t.shape for t in {x}.split([1, 3], dim=1)]", f"sum({x}[i, i] for i in range(3))",
              f"max([{x}[i].sum() for i in range(3)])", f"sorted({x}[0].tolist())",
              f"[[round(v, 2) for v in row] for row in {x}.tolist()]", f"{{k: v for k, v in zip('abc', {x}.mean(1))}}",
              f"list(map(lambda t: t.norm().item() > 1, {x}))", f"[v for v in {x}.flatten() if v > 0]",
              f"any(v > 2 for v in {x}.flatten()), all({x}.abs() < 5)", f"tuple(i for i, v in enumerate({x}[:, 0]) if v < 0)",
              f"min({x}.unbind(1), key=lambda c: c.sum().item())"]
        for e in r.sample(es, k=r.randint(2, 4)):
            self.guarded(f"r = {e}", "print(r)")
        if r.random() < 0.4 and x in self.lines[-1] or r.random() < 0.3:
            self.guarded(f"total = sum([({x}[i] ** 2).sum() for i in range(3)])", "print(total)",
                         "total.backward()" if r.random() < 0.8 else "total.backward(); total.backward()",
                         f"print({x}.grad)")

    def while_loop(self):
        r = self.r
        x = self.name("x")
        start = r.choice(["2.0", "-3.0", "0.5", "5.0"])
        self.emit(f"{x} = torch.tensor({start}, requires_grad=True)", "step = 0")
        f = r.choice(["({x} - 1) ** 2", "{x} ** 2 + {x}.sin()", "({x} ** 2 - 2).abs()", "torch.cosh({x})"]).format(x=x)
        lr = r.choice(["0.1", "0.3", "0.05"])
        thr = r.choice(["1e-3", "0.01", "0.5"])
        cont = r.random() < 0.3
        body = [f"loss = {f}", f"if loss.item() < {thr}:", "    break", "loss.backward()", "with torch.no_grad():",
                f"    {x} -= {lr} * {x}.grad", f"{x}.grad.zero_()", "step += 1"]
        if cont:
            body += ["if step % 2:", "    continue"]
        body.append(r.choice([f"print(step, f'{{loss.item():.4f}}', f'{{{x}.item():.5f}}')", f"print(step, loss, {x})",
                              f"print(f'{{step:3d}} {{loss:.3e}} {{{x}}}')"]))
        self.emit(f"while step < {r.randint(2, 8)}:", *self.body(body))
        if r.random() < 0.5:
            self.emit("else:", "    print('no break', step)")
        self.emit(f"print(step, {x})")

    def try_errors(self):
        r = self.r
        errs = ["torch.randn(2, 3) @ torch.randn(2, 3)", "torch.tensor([1, 2]).float().mean(1)",
                "torch.arange(4).mean()", "torch.ones(2, requires_grad=True).backward()",
                "torch.zeros(3)[5]", "torch.tensor([1., 2.]).view(3)", "torch.ones(2, 2).item()",
                "torch.ones(3, requires_grad=True).add_(1)", "torch.tensor([1, 2], dtype=torch.int64).requires_grad_()",
                "torch.tensor(2.).backward()", "int(torch.ones(2))", "float(torch.tensor([]))",
                "torch.randn(3, requires_grad=True).numpy()",
                "bool(torch.tensor([True, False]))", "torch.cat([torch.ones(2), torch.ones(2, 1)])",
                "torch.randn(2).grad.zero_()", "torch.tensor([[1, 2], [3]])", "torch.ones(2) + torch.ones(3)",
                "torch.randn(2, 3).transpose(0, 3)", "torch.ones(2, dtype=torch.long) / torch.zeros(2, dtype=torch.long)",
                "torch.ones(2, dtype=torch.long) // 0", "torch.randint(0, 3, (2,)).exp()",
                "torch.nn.Linear(2, 2)(torch.ones(2, dtype=torch.float64))"]
        handler = r.choice(["except RuntimeError as e:", "except Exception as e:", "except (RuntimeError, TypeError) as e:",
                            "except (IndexError, ValueError, RuntimeError, TypeError, ZeroDivisionError) as e:"])
        msg = r.choice(["print(type(e).__name__, e)", "print(f'Error: {e}')", "print(repr(e))",
                        "print(str(e).split(chr(10))[0])", "print(e.args)"])
        for e in r.sample(errs, k=r.randint(1, 3)):
            lines = ["try:", f"    v = {e}", "    print('ok', v)", handler, f"    {msg}"]
            if r.random() < 0.3:
                lines += ["finally:", "    print('done')"]
            self.emit(*lines)

    def fstrings(self):
        r = self.r
        x = self.floats(r.choice([(), (3,), (2, 2)]), rg=r.random() < 0.5)
        s = self.name("s")
        self.emit(f"{s} = {x}.sum()")
        es = [f"f'{{{s}.item():.4f}}'", f"f'{{{x}}}'", f"f'{{{x}!r}}'", f"f'{{{s}:.3f}}'", f"f'{{{x}.shape}} {{{x}.dtype}}'",
              f"f'{{{s}}}'", f"f'{{{x}:.2f}}'", f"f'{{{s}.item():>12.6e}}'", f"f'value={{{s}!s:>30}}'",
              f"'{{:.3f}}'.format({s})", f"'%.4f' % {s}", f"'%s' % ({x},)", f"f'{{{x}.tolist()}}'",
              f"f'{{{s}.grad_fn}}'[:16]", f"str({x}.dtype)", f"f'{{int({s} > 0)}} {{bool({s} < 0)}} {{float({s}):.3f}}'",
              f"f'{{{x}.numel():03d}} {{len({x}.shape)}}'", f"f'{{{s}.requires_grad=}}'"]
        for fmt in r.sample(FMTS, k=2):
            es.append("f'" + fmt.replace("v", f"{s}.item()") + "'")
            es.append("f'" + fmt.replace("v", s) + "'")
        for e in r.sample(es, k=r.randint(2, 5)):
            self.guarded(f"print({e})")

    def int_bool(self):
        r = self.r
        a = self.name("a")
        self.emit(f"{a} = torch.{r.choice(['randint(-3, 4, (2, 3))', 'arange(6).view(2, 3)', 'tensor([[1, 0, 2], [3, 3, 0]], dtype=torch.int32)', 'randint(0, 9, (2, 3), dtype=torch.uint8)'])}")
        m = self.name("m")
        self.emit(f"{m} = {a} > 1")
        es = [f"{m}.sum()", f"{m}.float().mean()", f"{a}[{m}]", f"{a} * {m}", f"{a} / 2", f"{a} // 2", f"{a} % 2",
              f"({a} + 0.5).dtype", f"{a}.sum(0, dtype=torch.float32)", f"torch.where({m}, {a}, -1)", f"{m} & ({a} < 3)",
              f"~{m}", f"{m}.any(), {m}.all()", f"{a}.max(), {a}.argmax()", f"{a}.float().std()", f"{a}.to(torch.float16) / 3",
              f"{a}.double().softmax(-1)", f"sum({a}.tolist(), [])", f"{a}.bool().int()", f"({a} == {a}.T.T).all().item()",
              f"{a}.float().requires_grad_().sum()", f"{a}.abs().sqrt()", f"{a} ** 2", f"2 ** {a}.clamp(min=0)",
              f"{a}.clamp(0, 2).bincount()", f"{a}.unique(return_counts=True)", f"{m}.nonzero()", f"{a}.cumsum(1)",
              f"int({a}.sum()), float({a}.float().mean()), {a}.sum().item()", f"{a}.mean()", f"{a}.float().half() * 1e4",
              "torch.tensor(True) + torch.tensor(2)", f"{a}.sum().dtype, ({a} * 1.0).dtype, ({a} * True).dtype"]
        for e in r.sample(es, k=r.randint(2, 5)):
            self.guarded(f"r = {e}", "print(r)")

    def half(self):
        r = self.r
        h = self.name("h")
        self.emit(f"{h} = torch.randn({st(r.choice([(4,), (2, 3)]))}).half()" if r.random() < 0.6 else
                  f"{h} = (torch.rand(3) * 100).to(torch.float16)")
        es = [f"{h} * 3.3", f"{h} + {h}.float()", f"{h}.sum()", f"{h}.mean()", f"{h}.exp()", f"{h}.softmax(-1)",
              f"{h}.cumsum(0)", f"{h}.sigmoid()", f"{h} / 7", f"{h}.sqrt()", f"{h}.to(torch.float64)", f"{h}.tolist()",
              f"{h}.max()", f"{h}.norm()", f"{h} @ {h}.T if {h}.dim() == 2 else {h}.dot({h})", f"{h}.item() if {h}.numel() == 1 else {h}[0].item()",
              f"{h}.clone().requires_grad_().pow(2).sum()", "torch.tensor(65504., dtype=torch.float16) * 2",
              f"{h}.var()", f"{h}.double().half() == {h}"]
        for e in r.sample(es, k=r.randint(2, 4)):
            self.guarded(f"r = {e}", "print(r)")
        if r.random() < 0.4:
            self.guarded(f"w = {h}.float().requires_grad_()", "(w.half() * 2).sum().backward()", "print(w.grad)")

    def views_inplace(self):
        r = self.r
        x = self.floats((2, 3), rg=True)
        y = self.name("y")
        self.emit(f"{y} = {x} * 1")
        v = r.choice(["{y}[0]", "{y}[:, 1]", "{y}.view(6)", "{y}.t()", "{y}.transpose(0, 1)[1:]", "{y}.unsqueeze(0)",
                      "{y}.narrow(1, 0, 2)", "{y}.select(1, 2)", "{y}.detach()", "{y}.diagonal()"]).format(y=y)
        op = r.choice(["mul_(2)", "add_(1)", "exp_()", "zero_()", "clamp_(min=0)", "copy_(torch.ones(1))", "sub_(0.5)",
                       "masked_fill_(torch.tensor(True), 0.)"])
        self.emit(f"v = {v}")
        self.guarded(f"v.{op}", f"print({y}.grad_fn, v.grad_fn, {y}.shape)",
                     f"{y}.sum().backward()" if r.random() < 0.7 else f"(v * {y}.sum()).sum().backward()",
                     f"print({x}.grad)")
        if r.random() < 0.3:
            self.guarded(f"{x}[0].add_(1)")
        if r.random() < 0.3:
            self.guarded(f"with torch.no_grad():\n    {x}[0, 0] = 5.", f"print({x})")


BLOCKS = ["plain_class", "module_subclass", "dataset", "custom_function", "comprehensions", "while_loop", "try_errors",
          "fstrings", "int_bool", "half", "views_inplace"]


def generate_script(seed: int, index: int) -> str:
    r = random.Random(f"script:{seed}:{index}")
    w = Script(r)
    w.emit("import torch.nn as nn")
    for _ in range(r.randint(1, 3)):
        getattr(w, r.choice(BLOCKS))()
    return "\n".join(w.lines) + "\n"
