"""The views generator of tools/fuzz_programs.py (``--views``): the interplay of views and in-place ops,
where autograd keeps the most state. Each block makes a leaf, a non-leaf base computed from it, and then
walks: views of the base and of earlier views (slices, ``select``, ``t``/``transpose``/``permute``/``mT``,
``unsqueeze``/``squeeze``, ``diagonal``, ``expand``, ``as_strided``, ``unfold``, ``narrow``, ``movedim``,
``unflatten``, ``split``/``chunk``/``unbind`` outputs, ``detach``, views made under ``no_grad``), in-place ops
on any of them (arithmetic, setitem, ``copy_`` of another leaf's values, in-place view ops such as ``t_`` and
``unsqueeze_``, ``detach_``, ``requires_grad_``, ``retain_grad``), some under ``torch.no_grad`` (also on the leaf
itself), results that save a tensor for backward (so a later in-place change is the version-counter error
with its version numbers and shape), and prints of each tensor's ``_version``, ``grad_fn`` name, ``is_leaf``,
``requires_grad`` and values. The block ends with a backward through the base and its views and prints the
leaves' and the retained gradients. Steps that may fail sit in ``try``/``except`` printing torch's message.
Sizes are small: the point is the bookkeeping (CopySlices, AsStridedBackward0, the regenerated ``grad_fn`` of
each view after an in-place op), not the numbers.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_wide import Wide, numel  # noqa: E402

SHAPES = [(3, 4), (2, 3), (4, 4), (2, 3, 2), (4,), (6,), (3, 3), (1, 4), (2, 2, 2), (5, 2)]
BASES = ["{x} * 1", "{x}.clone()", "{x} + 0", "{x}.exp()", "{x}.mul(2)", "{x} * {x}", "torch.sin({x})",
         "{x}.double()", "{x}.tanh()", "{x}.view_as({x}) * 1"]
INPLACE = ["mul_(2)", "add_(1)", "zero_()", "fill_(1.5)", "exp_()", "sigmoid_()", "clamp_(min=0)", "neg_()",
           "tanh_()", "relu_()", "pow_(2)", "div_(3)", "abs_()", "sin_()", "add_({y}.mean())", "mul_({y}.sum())",
           "copy_(torch.ones_like({t}) * {y}.sum())", "masked_fill_({t} > 0, 0.)", "logical_not_()", "floor_()",
           "round_()", "nan_to_num_()", "lerp_(torch.zeros_like({t}), 0.5)", "addcmul_({t}, {t})", "sub_({t})",
           "clamp_(max={y}.mean())", "normal_()", "uniform_(-1, 1)", "sqrt_()", "copy_({t}.detach() * 2)",
           "mul_({t})", "add_({t}.exp())", "add_(1, alpha=2)", "square_()", "reciprocal_()"]
AUGMENTED = ["+= 1", "*= 2", "-= {y}.sum()", "/= 4", "**= 2"]
SAVING = ["{t}.sin()", "{t} * {t}", "{t}.exp()", "{t}.pow(2)", "torch.sigmoid({t})", "{t}.tanh()", "{t}.relu()",
          "{t}.abs()", "{t}.prod()", "{t}.norm()", "{t}.max()", "{t}.cumprod(0)", "{t} * {y}.sum()",
          "{t}.sum()", "{t}.log_softmax(0)", "{t}.sqrt()", "{t} / ({t}.abs() + 1)", "{t}.clone()", "{t}.mean()"]


class Views(Wide):
    def __init__(self, r):
        super().__init__(r)
        self.live = {}  # name -> shape, of the base and its views (and of the leaf's views)
        self.outs = []  # results that saved something, summed into the loss
        self.retained = []

    # ------------------------------------------------------------------ helpers
    def view_of(self, t):
        """A view expression of t and its shape, or None."""
        r, s = self.r, self.live[t]
        d = len(s)
        c = []
        if d >= 1 and s[0]:
            i = r.randrange(-s[0], s[0])
            c += [(f"{t}[{i}]", s[1:]), (f"{t}.select(0, {i})", s[1:]), (f"{t}.unbind()[{i}]", s[1:])]
            a, b = r.randrange(0, s[0]), r.choice([None, s[0], s[0] - 1])
            step = r.choice([1, 1, 2])
            key = f"{a}:{'' if b is None else b}" + ("" if step == 1 else f":{step}")
            c.append((f"{t}[{key}]", (len(range(s[0])[a:b:step]),) + s[1:]))
            n = r.randint(1, s[0] - a) if s[0] - a >= 1 else 0
            c.append((f"{t}.narrow(0, {a}, {n})", (n,) + s[1:]))
            c.append((f"{t}.split(1)[0]", (1,) + s[1:]))
            c.append((f"{t}.chunk(2)[0]", ((s[0] + 1) // 2,) + s[1:]))
            c.append((f"{t}.unflatten(0, (1, {s[0]}))", (1,) + s))
            if s[0] >= 2:
                c.append((f"{t}.unfold(0, 2, 1)", (s[0] - 1,) + s[1:] + (2,)))
        if d >= 2:
            j = r.randrange(s[1]) if s[1] else 0
            c += [(f"{t}[:, {j}]", s[:1] + s[2:]), (f"{t}.transpose(0, 1)", (s[1], s[0]) + s[2:]),
                  (f"{t}.diagonal()", s[2:] + (min(s[0], s[1]),)),
                  (f"{t}.diagonal(1)", s[2:] + (max(0, min(s[0], s[1] - 1)),)),
                  (f"{t}.permute({', '.join(map(str, reversed(range(d))))})", tuple(reversed(s))),
                  (f"{t}.mT", s[:-2] + (s[-1], s[-2])), (f"{t}[..., 1:]", s[:-1] + (max(0, s[-1] - 1),)),
                  (f"{t}.movedim(0, -1)", s[1:] + s[:1]), (f"{t}[:, None]", s[:1] + (1,) + s[1:])]
        if d <= 2:
            c.append((f"{t}.t()", tuple(reversed(s))))
        c += [(f"{t}.unsqueeze({r.randrange(-d - 1, d + 1)})", None), (f"{t}.squeeze()", tuple(k for k in s if k != 1)),
              (f"{t}.view(-1)", (numel(s),)), (f"{t}.reshape(-1)", (numel(s),)), (f"{t}.flatten()", (numel(s),)),
              (f"{t}.expand(2, {', '.join(map(str, s))})" if s else f"{t}.expand(2)", (2,) + s),
              (f"{t}.detach()", s), (f"{t}[None]", (1,) + s), (f"{t}.view_as({t})", s), (f"{t}[...]", s)]
        if numel(s) >= 4:
            off = self.r.randrange(0, 2)
            c.append((f"{t}.as_strided((2,), (2,), {off})", (2,)))
            c.append((f"{t}.as_strided((2, 2), (1, 2))", (2, 2)))
        e, shape = r.choice(c)
        if shape is None:  # unsqueeze
            k = int(e[e.rindex("(") + 1:-1])
            k = k if k >= 0 else d + 1 + k
            shape = s[:k] + (1,) + s[k:]
        return e, shape

    def fact(self, t):
        r = self.r
        k = r.random()
        if k < 0.45:
            return (f"print('{t}', {t}._version, {t}.grad_fn.name() if {t}.grad_fn else None, {t}.is_leaf, "
                    f"{t}.requires_grad)")
        if k < 0.6:
            return f"print({t})"
        if k < 0.7:
            return f"print({t}.grad_fn)"
        if k < 0.8:
            return f"print([(f.name() if f else None, i) for f, i in {t}.grad_fn.next_functions] if {t}.grad_fn else [])"
        if k < 0.9:
            return f"print({t}.shape, {t}.stride(), {t}.storage_offset(), {t}.is_contiguous())"
        return f"{t}._version"

    # ------------------------------------------------------------------ steps
    def step_view(self):
        t = self.r.choice(list(self.live))
        e, shape = self.view_of(t)
        n = self.name("v")
        if self.r.random() < 0.12:
            lines = ["with torch.no_grad():", f"    {n} = {e}"]
        else:
            lines = [f"{n} = {e}"]
        self.guarded(*lines, self.fact(n))
        self.live[n] = shape

    def step_inplace(self, leaf, other):
        r = self.r
        t = r.choice(list(self.live) + [leaf] * (1 if r.random() < 0.15 else 0))
        s = self.live.get(t, ())
        k = r.random()
        if k < 0.55:
            stmt = f"{t}.{r.choice(INPLACE).format(t=t, y=other)}"
        elif k < 0.7:
            stmt = f"{t} {r.choice(AUGMENTED).format(y=other)}"
        elif k < 0.85:
            key = r.choice(["0", "...", "-1", ":1", "[0]", f"{t} > 0"] if s else ["...", "()", "None"])
            if len(s) >= 2:
                key = r.choice([key, ":, 0", "..., -1", "1:, :1"])
            stmt = f"{t}[{key}] = {r.choice(['5.', '0', f'{other}.sum()', f'{other}.mean() * 2', 'float(1)'])}"
        else:
            m = r.choice(["t_()", "unsqueeze_(0)", "squeeze_()", "transpose_(0, -1)", "detach_()",
                          "requires_grad_()", "requires_grad_(False)", "retain_grad()", "resize_(1)" if r.random() < 0.1
                          else "retain_grad()", "as_strided_((1,), (1,))", "swapdims_(0, -1)"])
            stmt = f"{t}.{m}"
            if m == "retain_grad()":
                self.retained.append(t)
            self.shape_after(t, m)
        lines = ["with torch.no_grad():", f"    {stmt}"] if r.random() < 0.2 else [stmt]
        self.guarded(*lines, self.fact(t if r.random() < 0.6 else r.choice(list(self.live))))

    def shape_after(self, t, m):
        """What an in-place view op leaves as t's shape (when it succeeds; else the walk's guess is off)."""
        s = self.live.get(t)
        if s is None:
            return
        if m == "t_()" and len(s) <= 2:
            s = tuple(reversed(s))
        elif m == "unsqueeze_(0)":
            s = (1,) + s
        elif m == "squeeze_()":
            s = tuple(k for k in s if k != 1)
        elif m in ("transpose_(0, -1)", "swapdims_(0, -1)") and s:
            s = s[-1:] + s[1:-1] + s[:1] if len(s) > 1 else s
        elif m in ("resize_(1)", "as_strided_((1,), (1,))"):
            s = (1,)
        self.live[t] = s

    def step_save(self, other):
        t = self.r.choice(list(self.live))
        e = self.r.choice(SAVING).format(t=t, y=other)
        n = self.name("s")
        self.guarded(f"{n} = {e}", self.fact(n) if self.r.random() < 0.5 else f"print({n}.grad_fn)")
        self.outs.append(n)

    def step_fact(self):
        self.emit(self.fact(self.r.choice(list(self.live))))

    def step_leaf_nograd(self, leaf):
        r = self.r
        op = r.choice([f"{leaf}.mul_(2)", f"{leaf}[0] = 1", f"{leaf}.view(-1)[0] = 3", f"{leaf}.zero_()",
                       f"{leaf}.add_(1)", f"{leaf}.data.mul_(2)", f"{leaf}.copy_(torch.ones_like({leaf}))",
                       f"{leaf}.requires_grad_(False)", f"{leaf}.detach_()", f"{leaf}.t_()" if r.random() < 0.2
                       else f"{leaf}.sub_(1)", f"{leaf}.detach().add_(1)", f"{leaf}.data = {leaf}.data * 2"])
        if "data" in op or "detach()" in op:
            self.guarded(op, self.fact(leaf))
        else:
            self.guarded("with torch.no_grad():", f"    {op}", self.fact(leaf))

    # ------------------------------------------------------------------ a block
    def block(self):
        r = self.r
        shape = r.choice(SHAPES)
        dt = r.choice(["", "", "", ", dtype=torch.float64"])
        x = self.name("x")
        y = self.name("y")
        self.emit(f"{x} = torch.randn({', '.join(map(str, shape)) or '()'}{dt}, requires_grad=True)",
                  f"{y} = torch.randn({r.choice(['3', '2, 2', '()'])}, requires_grad=True)")
        b = self.name("b")
        self.emit(f"{b} = {r.choice(BASES).format(x=x)}")
        self.live = {b: shape}
        self.outs, self.retained = [], []
        if r.random() < 0.3:  # views of the leaf itself: in-place on them is torch's leaf error
            v = self.name("lv")
            e, s = (f"{x}[0]", shape[1:]) if r.random() < 0.5 else (f"{x}.view(-1)", (numel(shape),))
            self.emit(f"{v} = {e}")
            self.live[v] = s
        steps = {"view": 5, "inplace": 5, "save": 2, "fact": 2, "leaf": 1}
        names = list(steps)
        for _ in range(r.randint(3, 10)):
            k = r.choices(names, [steps[n] for n in names])[0]
            if k == "view":
                self.step_view()
            elif k == "inplace":
                self.step_inplace(x, y)
            elif k == "save":
                self.step_save(y)
            elif k == "fact":
                self.step_fact()
            else:
                self.step_leaf_nograd(x)
        self.ending(x, y)

    def ending(self, x, y):
        r = self.r
        parts = r.sample(list(self.live), k=min(len(self.live), r.randint(1, 3))) + self.outs[-2:]
        terms = " + ".join(f"({p} * torch.arange({p}.numel(), dtype={p}.dtype).reshape({p}.shape)).sum()"
                           if r.random() < 0.5 else f"{p}.float().sum()" for p in parts)
        lines = [f"loss = {terms}", "loss.backward()" if r.random() < 0.8 else "loss.backward(retain_graph=True)",
                 f"print({x}.grad)", f"print({y}.grad)"]
        lines += [f"print('{t}', {t}.grad)" for t in self.retained]
        if r.random() < 0.3:
            lines.append("loss.backward()")  # twice: freed buffers, or not (nothing saved)
            lines.append(f"print({x}.grad)")
        self.guarded(*lines)


def generate_views(seed: int, index: int) -> str:
    r = random.Random(f"views:{seed}:{index}")
    w = Views(r)
    for _ in range(r.randint(1, 3)):
        w.block()
    return "\n".join(w.lines) + "\n"
