"""The wide program generator of tools/fuzz_programs.py (``--wide``): where ``generate`` draws
float32 chains, this one draws the corners a seeded hidden test reaches: integer, bool, float16,
and float64 tensors mixed (type promotion, casts), views and in-place ops on views,
advanced indexing (index tensors, masks, lists) and setitem, reductions with dim tuples and
keepdim, cumulative ops, sort/topk/max/min/kthvalue with indices, where/clamp/masked_fill,
matmul of every rank (1-d, batched, broadcast batches), einsum, cat/stack/split/chunk/unbind,
expand/repeat, ``torch.autograd.grad`` with ``create_graph`` and second derivatives, hooks,
``retain_grad``, the classic errors (shape mismatch, dtype mismatch, backward twice, in-place on a
leaf, a view changed after use) inside ``try``/``except`` (the message printed) or raw, and prints
of big, tiny, mixed and non-finite numbers.

Each program is a few independent blocks; every block makes its own inputs from the seeded
stream, so a block's error (caught or not) still leaves the earlier blocks compared.
"""
from __future__ import annotations

import random

INT_DTYPES = ["torch.int64", "torch.int32", "torch.int16", "torch.int8", "torch.uint8"]
FLOAT_DTYPES = ["torch.float32", "torch.float64", "torch.float16"]  # bfloat16: not in gradcli (docs/coverage.md)
SHAPES = [(3,), (4,), (2, 3), (3, 2), (2, 2), (1, 3), (3, 1), (2, 3, 2), (2, 1, 3), (1,), (), (5,), (2, 4),
          (3, 4), (2, 2, 2), (4, 1), (0,), (2, 0)]


def st(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class Wide:
    def __init__(self, r: random.Random):
        self.r = r
        self.lines = ["import torch", "import torch.nn.functional as F", f"torch.manual_seed({r.randrange(1000)})"]
        self.n = 0

    def name(self, p="t"):
        self.n += 1
        return f"{p}{self.n}"

    def emit(self, *lines):
        self.lines.extend(lines)

    # ------------------------------------------------------------------ inputs
    def shape(self, nonempty=True, min_dim=0):
        cands = [s for s in SHAPES if len(s) >= min_dim and (not nonempty or numel(s) > 0)]
        return self.r.choice(cands)

    def tensor(self, shape, dtype="torch.float32", rg=False):
        """An expression for a random tensor of this shape and dtype."""
        r = self.r
        s = st(shape) if shape else "()"
        if dtype in INT_DTYPES:
            lo = 0 if dtype == "torch.uint8" else r.choice([-5, -3, 0])
            e = f"torch.randint({lo}, {r.choice([3, 5, 10])}, {s}, dtype={dtype})"
        elif dtype == "torch.bool":
            e = f"(torch.rand({s}) > 0.5)" if r.random() < 0.7 else f"torch.randint(0, 2, {s}).bool()"
        else:
            k = r.random()
            scale = r.choice(["", "", " * 10", " * 1e-3", " * 1e5", " * 100", " + 1"])
            if k < 0.5:
                e = f"torch.randn({s}, dtype={dtype})"
            elif k < 0.7:
                e = f"torch.rand({s}, dtype={dtype})"
            elif k < 0.85:
                n = numel(shape)
                e = f"torch.arange({n}, dtype={dtype}).reshape({s})" if n else f"torch.zeros({s}, dtype={dtype})"
                scale = r.choice(["", " - 2", " / 3"])
            else:
                e = f"torch.randint(-4, 5, {s}).to({dtype})"
                scale = ""
            if scale:
                e = f"({e}{scale})"
            if rg:
                e = f"{e}.requires_grad_()"
        return e

    def new(self, shape=None, dtype="torch.float32", rg=False, p="t"):
        shape = self.shape() if shape is None else shape
        n = self.name(p)
        self.emit(f"{n} = {self.tensor(shape, dtype, rg)}")
        return n, shape

    def show(self, expr, echo=None):
        r = self.r
        if echo is None:
            echo = r.random() < 0.4
        if echo:
            self.emit(expr)
        else:
            self.emit(f"print({expr})")

    def guarded(self, *lines):
        """Lines that may raise: inside try/except printing torch's message, or raw (the last block)."""
        lines = [part for ln in lines for part in ln.split("\n")]
        if self.r.random() < 0.75:
            self.emit("try:", *("    " + ln for ln in lines), "except Exception as e:",
                      "    print(type(e), e)")
            return True
        self.emit(*lines)
        return False

    # ------------------------------------------------------------------ blocks
    def promotion(self):
        r = self.r
        dts = INT_DTYPES + FLOAT_DTYPES + ["torch.bool"]
        a, sa = self.new(dtype=r.choice(dts), p="a")
        b, _ = self.new(shape=r.choice([sa, sa[1:] if sa else (), (1,), ()]), dtype=r.choice(dts), p="b")
        op = r.choice(["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<", ">=", "==", "!="])
        scal = r.choice(["2", "2.5", "True", "-1", "0.1", "3", "1e-2"])
        exprs = [f"{a} {op} {b}", f"{a} {op} {scal}", f"{scal} {op} {a}", f"torch.result_type({a}, {b})",
                 f"torch.promote_types({a}.dtype, {b}.dtype)", f"({a} {op} {b}).dtype",
                 f"torch.add({a}, {b}, alpha=2)", f"torch.div({a}, {b}, rounding_mode='floor')",
                 f"torch.div({a}, {b}, rounding_mode='trunc')", f"torch.maximum({a}, {b})", f"torch.fmod({a}, {b})",
                 f"torch.remainder({a}, {b})", f"torch.where({a} > 0, {a}, {b})", f"{a}.to({r.choice(dts)})",
                 f"{a}.float()", f"{a}.double()", f"{a}.half()", f"{a}.long()", f"{a}.int()", f"{a}.bool()",
                 f"{a}.sum()", f"{a}.sum().dtype", f"{a}.mean(dtype=torch.float64)",
                 f"{a}.prod()", f"{a}.cumsum(0)" if sa else f"{a}.abs()", f"torch.sqrt({a})", f"{a}.sigmoid()",
                 f"-{a}", f"~{a}", f"{a}.abs()", f"torch.exp({a})", f"{a}.max()", f"{a}.argmax()",
                 f"{a}.clamp(0, 2)", f"{a}.sign()", f"{a} == {a}.flip(0)" if sa else f"{a} == {a}",
                 f"torch.tensor([1, 2, 3], dtype={r.choice(dts)}) * {scal}"]
        for e in r.sample(exprs, k=r.randint(2, 5)):
            if r.random() < 0.6:
                self.guarded(f"print({e})")
            else:
                self.guarded(f"r = {e}", "print(r, r.dtype if isinstance(r, torch.Tensor) else type(r))")

    def views(self):
        r = self.r
        x, s = self.new(shape=self.shape(min_dim=1), rg=True, p="x")
        y = self.name("y")
        self.emit(f"{y} = {x} * 1")
        vs = [f"{y}[0]", f"{y}.view(-1)", f"{y}.unsqueeze(0)", f"{y}.flatten()", f"{y}[..., :1]"]
        if len(s) >= 2:
            vs += [f"{y}.t()" if len(s) == 2 else f"{y}.transpose(0, 1)", f"{y}[:, 0]", f"{y}.diagonal()",
                   f"{y}.narrow(1, 0, 1)", f"{y}.select(1, -1)", f"{y}.permute({', '.join(map(str, reversed(range(len(s)))))})"]
        v = self.name("v")
        self.emit(f"{v} = {r.choice(vs)}")
        op = r.choice(["mul_(2)", "add_(1)", "zero_()", "fill_(3.5)", "clamp_(max=0.1)", "sub_(torch.ones_like({v}))",
                       "exp_()", "sigmoid_()", "copy_({v} * 3)", "masked_fill_({v} > 0, 0.)", "div_(2)",
                       "pow_(2)", "tanh_()", "relu_()"]).format(v=v)
        if r.random() < 0.2:
            self.emit("with torch.no_grad():", f"    {v}.{op}")
        else:
            self.emit(f"{v}.{op}" if r.random() < 0.8 else f"{v} += 2")
        self.show(f"{v}.grad_fn.name() if {v}.grad_fn else None", echo=False)
        self.show(f"{y}.grad_fn.name()", echo=False)
        self.show(y)
        self.emit(f"({y} * torch.arange({numel(s)}.).reshape({st(s)})).sum().backward()")
        self.show(f"{x}.grad")
        if r.random() < 0.3:  # in-place on the leaf itself: torch's error
            self.guarded(f"{x}{r.choice(['[0]', '', '.view(-1)'])}.add_(1)")

    def indexing(self):
        r = self.r
        x, s = self.new(shape=self.shape(min_dim=1), rg=r.random() < 0.6, p="x")
        d0 = s[0]
        keys = [f"torch.tensor([{r.randrange(d0)}, {r.randrange(d0)}])", f"[{r.randrange(d0)}, -1]",
                f"{x} > 0", f"torch.tensor({r.randrange(d0)})", f"torch.tensor([[0], [{d0 - 1}]])",
                "None", "...", f"{r.randrange(-d0, d0)}", f"{r.randrange(d0)}:", "::-1" if r.random() < 0.1 else "::2",
                f"torch.tensor([True] * {d0})", f"torch.randint(0, {d0}, (4,))", "[]", f"{d0}"]
        if len(s) >= 2:
            d1 = s[1]
            keys += [f":, [{r.randrange(d1)}, 0]", f"[0, {d0 - 1}], [{r.randrange(d1)}, 0]",
                     f"..., torch.tensor([{d1 - 1}])", f"{x}[:, 0] > 0", "1:, None",
                     f"torch.tensor([0, {d0 - 1}]), :{d1}", f"None, ..., {r.randrange(d1)}",
                     f"torch.arange({d0}), torch.arange({d0}) % {d1}"]
        for _ in range(r.randint(1, 3)):
            k = r.choice(keys)
            y = self.name("y")
            if self.guarded(f"{y} = {x}[{k}]", f"print({y}, {y}.shape)"):
                continue
        if r.random() < 0.5:
            dim = r.randrange(len(s))
            idx = f"torch.randint(0, {s[dim]}, ({r.randint(1, 4)},))"
            e = r.choice([f"torch.index_select({x}, {dim}, {idx})", f"{x}.masked_select({x} > 0.5)",
                          f"torch.gather({x}, {dim}, torch.zeros_like({x}, dtype=torch.long))",
                          f"{x}.take(torch.tensor([0, -1]))", f"{x}.nonzero()", f"torch.nonzero({x} > 0, as_tuple=True)",
                          f"{x}.argwhere()" if r.random() < 0.2 else f"{x}.unique()"])
            self.guarded(f"print({e})")
        if "requires_grad" in self.lines[-1] or r.random() < 0.5:
            self.guarded(f"{x}[{r.choice(keys)}].sum().backward()", f"print({x}.grad)")

    def setitem(self):
        r = self.r
        s = self.shape(min_dim=1)
        dt = r.choice(["torch.float32", "torch.float32", "torch.int64", "torch.float64", "torch.bool", "torch.float16"])
        x, _ = self.new(shape=s, dtype=dt, p="x")
        y = self.name("y")
        rg = dt in ("torch.float32", "torch.float64") and r.random() < 0.6
        if rg:
            w, _ = self.new(shape=s, dtype=dt, rg=True, p="w")
            self.emit(f"{y} = {x} * {w}")
        else:
            self.emit(f"{y} = {x}.clone()")
        d0 = s[0]
        keys = [f"{y} > 0", "0", "-1", f"[0, {d0 - 1}]", f"torch.tensor([{r.randrange(d0)}])", "...", ":",
                f"{r.randrange(d0)}:", f"{y} != {y}"]
        if len(s) >= 2:
            keys += [":, 0", f"0, {s[1] - 1}", "..., -1", "[0], [0]", f"{y}[:, 0] > 0"]
        vals = ["0", "1.5", "-2", "float('nan')", "float('inf')", "True", "torch.tensor(7.)", "torch.tensor([1., 2.])",
                f"torch.arange({s[-1]}.)", "1e10", "torch.tensor(3, dtype=torch.int32)"]
        if rg and r.random() < 0.5:
            vals.append("w2")
            self.emit(f"w2 = torch.tensor({r.choice(['2.', '[1.]', '-0.5'])}, requires_grad=True)")
        for _ in range(r.randint(1, 3)):
            self.guarded(f"{y}[{r.choice(keys)}] = {r.choice(vals)}")
        self.show(y)
        if r.random() < 0.3:
            self.guarded(f"{y}.index_fill_(0, torch.tensor([0]), -1)", f"print({y})")
        if rg:
            self.emit(f"{y}.sum().backward()" if r.random() < 0.8 else f"{y}.backward(torch.ones_like({y}))")
            self.show(f"{w}.grad")
            if "w2" in vals:
                self.show("w2.grad")

    def reductions(self):
        r = self.r
        s = self.shape(min_dim=1, nonempty=r.random() < 0.9)
        dt = r.choice(["torch.float32"] * 3 + ["torch.float64", "torch.int64", "torch.bool", "torch.float16", "torch.int32"])
        rg = dt in ("torch.float32", "torch.float64") and r.random() < 0.6
        x, _ = self.new(shape=s, dtype=dt, rg=rg, p="x")
        nd = len(s)
        d = r.randrange(-nd, nd)
        dims = f"({d},)" if nd == 1 else f"({0}, {nd - 1})"
        kd = r.choice(["True", "False"])
        ordv = r.choice(["2", "1", "float('inf')", "3", "0"])
        ops = [f"{x}.sum(dim={dims}, keepdim={kd})", f"{x}.sum({d}, keepdim={kd})", f"{x}.mean({dims})",
               f"{x}.amax({dims}, keepdim={kd})", f"{x}.amin({d})", f"{x}.std({d}, correction=0)", f"{x}.var({dims})",
               f"{x}.prod({d}, keepdim={kd})", f"{x}.all({d})", f"{x}.any()", f"{x}.count_nonzero({d})",
               f"{x}.argmin({d}, keepdim={kd})", f"{x}.argmax()", f"{x}.logsumexp({dims})", f"{x}.norm(p=1, dim={d})",
               f"torch.linalg.vector_norm({x}, ord={ordv}, dim={d})",
               f"{x}.nansum({d})", f"{x}.mean()", f"{x}.sum(dtype=torch.float64)", f"{x}.median({d})",
               f"{x}.aminmax(dim={d})", f"torch.var_mean({x}, {d})", f"torch.std_mean({x})", f"{x}.nanmean()",
               f"{x}.max({d}, keepdim={kd})", f"torch.min({x}, {d})", f"{x}.mode({d})" if r.random() < 0.2 else f"{x}.sum()"]
        outs = []
        for e in r.sample(ops, k=r.randint(2, 4)):
            n = self.name("r")
            self.guarded(f"{n} = {e}", f"print({n})")
            outs.append(n)
        if rg:
            e = r.choice([f"{x}.sum({d})", f"{x}.mean({dims}, keepdim=True)", f"{x}.amax({d})", f"{x}.prod({d})",
                          f"{x}.std({d})", f"{x}.norm(dim={d})", f"{x}.max({d})[0]", f"{x}.logsumexp({d})",
                          f"{x}.var()", f"{x}.median()", f"{x}.min()"])
            self.guarded(f"o = {e}", "print(o.grad_fn.name())", "o.sum().backward()", f"print({x}.grad)")

    def cumulative(self):
        r = self.r
        s = self.shape(min_dim=1)
        dt = r.choice(["torch.float32", "torch.float32", "torch.float64", "torch.int64", "torch.bool", "torch.int32"])
        rg = dt in ("torch.float32", "torch.float64") and r.random() < 0.7
        x, _ = self.new(shape=s, dtype=dt, rg=rg, p="x")
        d = r.randrange(-len(s), len(s))
        e = r.choice([f"{x}.cumsum({d})", f"torch.cumprod({x}, dim={d})", f"{x}.cummax({d})", f"{x}.cummin({d})",
                      f"torch.logcumsumexp({x}, {d})", f"{x}.cumsum({d}, dtype=torch.float64)", f"{x}.diff(dim={d})",
                      f"{x}.cumsum(dim={d}).flip({d})"])
        self.guarded(f"c = {e}", "print(c)")
        if rg:
            self.guarded("(c[0] if isinstance(c, tuple) else c).pow(2).sum().backward()", f"print({x}.grad)")

    def sorting(self):
        r = self.r
        s = self.shape(min_dim=1)
        dt = r.choice(["torch.float32", "torch.float32", "torch.float64", "torch.int64", "torch.float16"])
        rg = dt in ("torch.float32", "torch.float64") and r.random() < 0.7
        if r.random() < 0.3:  # ties
            x = self.name("x")
            self.emit(f"{x} = torch.randint(0, 3, {st(s)}).to({dt})" + (".requires_grad_()" if rg else ""))
        else:
            x, _ = self.new(shape=s, dtype=dt, rg=rg, p="x")
        d = r.randrange(-len(s), len(s))
        k = r.randint(1, max(1, s[d]))
        e = r.choice([f"torch.sort({x}, dim={d}, descending={r.random() < 0.5})", f"{x}.sort(stable=True)",
                      f"{x}.topk({k}, dim={d}, largest={r.random() < 0.6})", f"{x}.max(dim={d})",
                      f"torch.min({x}, {d}, keepdim=True)", f"{x}.kthvalue({k}, {d})", f"{x}.argsort({d})",
                      f"torch.msort({x})", f"{x}.topk({k + 1})"])
        echo = r.random() < 0.5
        self.guarded("res = " + e, "res" if echo else "print(res)")
        if r.random() < 0.5:
            self.guarded("vals, idx = res", "print(vals, idx, idx.dtype)")
        if rg:
            self.guarded("(res[0] if isinstance(res, tuple) else res.float()).sum().backward()", f"print({x}.grad)")

    def where_clamp(self):
        r = self.r
        s = self.shape()
        rg = r.random() < 0.6
        x, _ = self.new(shape=s, rg=rg, p="x")
        y, _ = self.new(shape=r.choice([s, (), s[-1:] if s else ()]), dtype=r.choice(["torch.float32", "torch.float64", "torch.int64"]), p="y")
        fill = r.choice(["0.", "float('-inf')", "1", "torch.tensor(2.)"])
        e = r.choice([f"torch.where({x} > 0, {x}, {y})", f"torch.where({x} > 0, {x}, 0.)", f"torch.where({x} < 0)",
                      f"{x}.masked_fill({x} > 0.5, {fill})",
                      f"{x}.clamp(min={y})", f"torch.clamp({x}, -0.5, {r.choice(['0.5', 'None', '-1.'])})",
                      f"{x}.clamp(max={y}.float())", f"{x}.where({x} > {y}, {y})", f"torch.where({x} > 0, 1., -1.)",
                      f"{x}.clip(0, 1)", f"{x}.clamp_min(0.2)", f"torch.where({x} != {x}, 0, {x})",
                      f"{x}.masked_fill(torch.tensor(True), 5)"])
        self.guarded(f"w = {e}", "print(w)")
        if rg:
            self.guarded("w.sum().backward()", f"print({x}.grad)")

    def matmul(self):
        r = self.r
        n, m, k, b = r.randint(1, 4), r.randint(1, 4), r.randint(1, 4), r.randint(1, 3)
        pairs = [((k,), (k,)), ((k,), (k, m)), ((n, k), (k,)), ((n, k), (k, m)), ((b, n, k), (k, m)),
                 ((b, n, k), (b, k, m)), ((1, n, k), (b, k, m)), ((k,), (b, k, m)), ((b, n, k), (k,)),
                 ((2, 1, n, k), (b, k, m)), ((n, k), (n + 1, m)), ((k,), (k + 1,)), ((), (k,))]
        sa, sb = r.choice(pairs)
        da = r.choice(["torch.float32"] * 4 + ["torch.float64", "torch.int64"])
        db = da if r.random() < 0.85 else r.choice(["torch.float32", "torch.float64", "torch.int64"])
        a, _ = self.new(shape=sa, dtype=da, rg=da != "torch.int64" and r.random() < 0.7, p="a")
        b_, _ = self.new(shape=sb, dtype=db, rg=db != "torch.int64" and r.random() < 0.5, p="b")
        e = r.choice([f"{a} @ {b_}", f"torch.matmul({a}, {b_})", f"{a}.matmul({b_})", f"torch.mm({a}, {b_})",
                      f"torch.bmm({a}, {b_})", f"torch.mv({a}, {b_})", f"torch.dot({a}, {b_})",
                      f"torch.outer({a}, {b_})", f"torch.inner({a}, {b_})", f"{a} @ {b_}"])
        if self.guarded(f"p = {e}", "print(p, p.shape)"):
            self.guarded("p.sum().backward()", f"print({a}.grad, {b_}.grad)")
        else:
            self.guarded("p.sum().backward()", f"print({a}.grad, {b_}.grad)")

    def einsum(self):
        r = self.r
        i, j, k, b = r.randint(1, 4), r.randint(1, 4), r.randint(1, 3), r.randint(1, 3)
        cases = [("ij,jk->ik", [(i, j), (j, k)]), ("i,i->", [(i,), (i,)]), ("bij,bjk->bik", [(b, i, j), (b, j, k)]),
                 ("ii->i", [(i, i)]), ("ij->ji", [(i, j)]), ("i,j->ij", [(i,), (j,)]), ("ij->", [(i, j)]),
                 ("ij,ij->i", [(i, j), (i, j)]), ("...ij,...jk->...ik", [(b, i, j), (j, k)]), ("ii", [(i, i)]),
                 ("ij,j", [(i, j), (j,)]), ("bi,bi->b", [(b, i), (b, i)]), ("ij,kj->ik", [(i, j), (k, j)]),
                 ("i,i->i", [(i,), (j,)])]
        eq, shapes = r.choice(cases)
        names = []
        for s in shapes:
            n, _ = self.new(shape=s, rg=r.random() < 0.6, p="e")
            names.append(n)
        args = ", ".join(names) if r.random() < 0.8 else "[" + ", ".join(names) + "]"
        if self.guarded(f"z = torch.einsum('{eq}', {args})", "print(z)"):
            self.guarded("z.sum().backward()", *(f"print({n}.grad)" for n in names))

    def joining(self):
        r = self.r
        s = self.shape(min_dim=1)
        a, _ = self.new(shape=s, rg=r.random() < 0.6, p="a")
        b_, _ = self.new(shape=r.choice([s, s, s[1:] or (2,), tuple(d + 1 for d in s)]),
                         dtype=r.choice(["torch.float32"] * 3 + ["torch.float64", "torch.int64"]), p="b")
        d = r.randrange(-len(s), len(s))
        e = r.choice([f"torch.cat([{a}, {b_}], dim={d})", f"torch.stack(({a}, {b_}), {d})", f"torch.cat(({a}, {a}))",
                      f"torch.hstack([{a}, {b_}])", f"torch.vstack([{a}, {b_}])", f"torch.split({a}, {r.randint(1, 3)}, {d})",
                      f"{a}.chunk({r.randint(1, 4)}, {d})", f"{a}.unbind({d})", f"torch.split({a}, [1, {s[d] - 1}], {d})",
                      f"{a}.tensor_split(2)", f"torch.cat([{a}, torch.tensor([])])", f"torch.concat([{a}], {d})"])
        self.guarded(f"j = {e}", "print(j)")
        if r.random() < 0.6:
            self.guarded("(j if not isinstance(j, tuple) else j[-1]).sum().backward()", f"print({a}.grad)")

    def expanding(self):
        r = self.r
        s = r.choice([(3,), (1, 3), (2, 1), (1,), (), (2, 1, 2)])
        x, _ = self.new(shape=s, rg=r.random() < 0.7, p="x")
        tgt = {(3,): "(2, 3)", (1, 3): "(4, 3)", (2, 1): "(2, 5)", (1,): "(3,)", (): "(2, 2)", (2, 1, 2): "(3, 2, 4, 2)"}[s]
        e = r.choice([f"{x}.expand{tgt}", f"{x}.expand(-1, 2)" if len(s) == 1 else f"{x}.expand({tgt[1:-1]})",
                      f"{x}.repeat(2, 1)", f"{x}.repeat({', '.join(['2'] * max(1, len(s)))})",
                      f"{x}.expand_as(torch.zeros({tgt}))", f"{x}.repeat_interleave(2)", f"{x}.tile((2,))",
                      f"torch.broadcast_to({x}, {tgt})", f"{x}.expand(3, 3, 3)", f"{x}.repeat(2)"])
        if self.guarded(f"ex = {e}", "print(ex, ex.shape)"):
            if r.random() < 0.3:
                self.guarded("ex.add_(1)")
            self.guarded("(ex * torch.arange(ex.numel()).reshape(ex.shape)).sum().backward()", f"print({x}.grad)")

    def higher(self):
        r = self.r
        x, s = self.new(shape=r.choice([(), (3,), (2, 2)]), dtype=r.choice(["torch.float32", "torch.float64"]),
                        rg=True, p="x")
        f = r.choice([f"({x} ** 3).sum()", f"{x}.sin().sum()", f"({x}.exp() * {x}).sum()", f"({x} * {x}.tanh()).sum()",
                      f"{x}.sigmoid().prod()", f"({x}.pow(2) + 2 * {x}).mean()", f"{x}.norm()", f"{x}.softmax(-1)[0]" if s else f"{x}.exp()",
                      f"torch.log({x}.abs() + 1).sum()", f"({x}.relu() ** 2).sum()", f"{x}.cos().sum() * {x}.sum()"])
        self.emit(f"y = {f}")
        k = r.random()
        if k < 0.5:
            self.emit(f"g, = torch.autograd.grad(y, {x}, create_graph=True)", "print(g)",
                      "print(g.requires_grad, g.grad_fn is not None)")
            tail = r.choice(["g.sum().backward()", f"g2, = torch.autograd.grad(g.sum(), {x})\nprint(g2)",
                             f"g2, = torch.autograd.grad(g.sum(), {x}, create_graph=True)\nprint(g2)\ng2.sum().backward()",
                             "(g * g).sum().backward()"])
            self.emit(*tail.split("\n"))
            self.show(f"{x}.grad")
        elif k < 0.75:
            self.emit("y.backward(create_graph=True)", f"print({x}.grad)", f"gg = {x}.grad.sum()",
                      f"{x}.grad = None" if r.random() < 0.5 else "pass")
            self.guarded("gg.backward()", f"print({x}.grad)")
        else:
            self.emit(f"g, = torch.autograd.grad(y, {x})", "print(g, g.requires_grad)")
            self.guarded("g.sum().backward()")
            self.guarded("y.backward()", f"print({x}.grad)")

    def hooks(self):
        r = self.r
        x, s = self.new(shape=r.choice([(3,), (2, 2), ()]), rg=True, p="x")
        self.emit(f"h = {x}.register_hook(lambda g: {r.choice(['g * 2', 'print(g)', 'None', 'g.clamp(max=0.1)', 'g + 1'])})")
        self.emit(f"m = {x} * 3")
        if r.random() < 0.6:
            self.emit("m.retain_grad()")
        if r.random() < 0.5:
            body = r.choice(["g * -1", "print('hook', g)", "g / 2"])
            self.emit(f"hm = m.register_hook(lambda g: {body})")
        self.emit(f"o = (m * m.detach() + {x}).sum()")
        if r.random() < 0.3:
            self.emit("h.remove()")
        self.emit("o.backward()", f"print({x}.grad)", "print(m.grad, m.is_leaf, m.requires_grad)")
        if r.random() < 0.3:
            self.guarded("print(o.grad)")

    def errors(self):
        r = self.r
        k = r.randrange(10)
        if k == 0:
            self.emit("a = torch.randn(2, 3)", "b = torch.randn(3, 2)")
            self.guarded(r.choice(["print(a + b)", "print(a * b.t() @ a)", "a.add_(b)", "print(torch.cat([a, b]))",
                                   "print(a.view(4))", "print(a.reshape(5))", "print(a @ a)", "print(a.expand(3, 3))"]))
        elif k == 1:
            self.emit("a = torch.randn(2, 3)", "i = torch.tensor([1, 2])")
            self.guarded(r.choice(["print(a @ i.reshape(2, 1).t().t().expand(3, 2))", "print(torch.mm(a, torch.ones(3, 2, dtype=torch.float64)))",
                                   "print(torch.dot(torch.ones(2), i))", "a[0] = i", "print(a.index_select(0, i.float()))",
                                   "print(a[i.float()])", "print(a.masked_fill(i, 0))", "print(torch.where(i > 0, a, i))"]))
        elif k == 2:
            self.emit("x = torch.randn(3, requires_grad=True)", "y = (x * 2).sum()", "y.backward()")
            self.guarded("y.backward()", "print(x.grad)")
        elif k == 3:
            self.emit("x = torch.ones(3, requires_grad=True)")
            self.guarded(r.choice(["x.add_(1)", "x += 1", "x[0] = 2.", "x.zero_()", "x.data.add_(1)\nprint(x)",
                                   "x.view(3).mul_(2)", "x.detach().zero_()\nprint(x)"]))
        elif k == 4:
            self.emit("x = torch.randn(3, requires_grad=True)", "y = x.exp()", f"y.{r.choice(['add_(1)', 'mul_(2)', 'zero_()'])}")
            self.guarded("y.sum().backward()", "print(x.grad)")
        elif k == 5:
            self.emit("x = torch.randn(3, requires_grad=True)", "y = x * 2")
            self.guarded(r.choice(["y.backward()", "torch.autograd.grad(y, x)", "print(torch.autograd.grad(y.sum(), [x, torch.ones(1)]))",
                                   "torch.tensor([1, 2], requires_grad=True)", "print(torch.autograd.grad(y.sum(), x, allow_unused=True))",
                                   "x.detach().sum().backward()", "y.numpy()", "print(y.sum().item(), y.item())"]))
        elif k == 6:
            self.emit("x = torch.randn(2, 2, requires_grad=True)", "v = x[0]", "w = x.sigmoid()")
            self.emit("with torch.no_grad():", "    x.mul_(2)" if r.random() < 0.5 else "    v.add_(1)")
            self.guarded("w.sum().backward()", "print(x.grad, v)")
        elif k == 7:
            self.emit("a = torch.arange(6).reshape(2, 3)")
            self.guarded(r.choice(["print(a.mean())", "print(a.float().mean().long())", "print(a / 0)", "print(a // 0)",
                                   "print(a.std())", "print(a.sqrt())", "a.requires_grad_()", "print(a[2])", "print(a[:, 3])",
                                   "print(a.sum(2))", "print(a.transpose(0, 2))", "print(a.squeeze(5))"]))
        elif k == 8:
            self.emit("x = torch.tensor([1., 2., 3.], requires_grad=True)", "y = x ** 2", "z = y.sum()",
                      "z.backward(retain_graph=True)", "z.backward()", "print(x.grad)")
            self.guarded("z.backward()")
        else:
            self.emit("x = torch.randn(4, requires_grad=True)", "y = x.view(2, 2)", "y2 = y.t()")
            self.guarded(r.choice(["y2.view(4)", "y2.add_(1)", "print(y2.is_contiguous(), y2.contiguous().view(4))",
                                   "print(torch.zeros(2, 2).view(-1, -1))", "print(x.view(3, -1))"]))

    def printing(self):
        r = self.r
        vals = ["1e10", "1e-5", "3.", "0.1", "123456.7", "1e-10", "float('inf')", "float('-inf')", "float('nan')",
                "-0.", "0.", "1e20", "2.5e-8", "65504.", "1234.5678", "-7.", "100000.", "99999.99", "1e8", "0.0001"]
        k = r.randint(1, 6)
        lit = "[" + ", ".join(r.choice(vals) for _ in range(k)) + "]"
        dt = r.choice(["", "", ", dtype=torch.float64", ", dtype=torch.float16"])
        x = self.name("p")
        self.emit(f"{x} = torch.tensor({lit}{dt})")
        self.show(x)
        e = r.choice([f"{x} * 1e5", f"{x} / 3", f"{x}.reshape(-1, 1)" if k else f"{x}", f"{x}.exp()",
                      f"torch.randn(3, 4) * {r.choice(['1e6', '1e-6', '1000', '0.01', '1e-9'])}",
                      f"torch.randn({r.randint(1, 30)}) * 1e3", f"{x}.long()" if "nan" not in lit and "inf" not in lit else f"{x}",
                      f"torch.full((2, 3), {r.choice(vals)})", f"{x}.tolist()", f"{x}.sum().item()", "torch.randn(2, 3, dtype=torch.float64) * 1e-4"])
        self.show(e)


    def inplace_dtypes(self):
        r = self.r
        dt = r.choice(INT_DTYPES + ["torch.float16", "torch.float32", "torch.bool"])
        x, s = self.new(dtype=dt, p="x")
        other = r.choice(["1.5", "2", "True", "torch.tensor(2.5)", "torch.ones(1, dtype=torch.float64)", "-3",
                          "torch.tensor([1, 2])", "x2"])
        if other == "x2":
            self.emit(f"x2 = {self.tensor(s, r.choice(INT_DTYPES + ['torch.float32']))}")
        op = r.choice(["add_", "mul_", "sub_", "div_", "floor_divide_", "remainder_", "pow_", "clamp_", "copy_",
                       "fill_", "masked_fill_", "bitwise_and_", "lerp_"])
        if op == "clamp_":
            stmt = f"{x}.clamp_(min={other})"
        elif op == "masked_fill_":
            stmt = f"{x}.masked_fill_({x} > 0, {other})"
        elif op == "lerp_":
            stmt = f"{x}.lerp_(torch.ones_like({x}), 0.5)"
        else:
            stmt = f"{x}.{op}({other})"
        if r.random() < 0.3:
            stmt = f"{x} {r.choice(['+=', '-=', '*=', '/=', '//=', '%=', '**=', '&=', '|='])} {other}"
        self.guarded(stmt, f"print({x})")

    def int_math(self):
        r = self.r
        x, s = self.new(dtype=r.choice(INT_DTYPES), p="x")
        y, _ = self.new(shape=r.choice([s, ()]), dtype=r.choice(INT_DTYPES), p="y")
        e = r.choice([f"{x} // {y}", f"{x} % {y}", f"{x} ** {y}", f"{x} ** -1", f"{x} // 0", f"{x} % 0",
                      f"{x} / 0", f"{x} << 2", f"{x} >> 1", f"torch.div({x}, -2, rounding_mode='floor')",
                      f"torch.fmod({x}, -3)", f"torch.remainder(-7, {x})", f"{x}.float() // 0",
                      f"-{x}.float() % 0.", f"torch.pow(2, {x})", f"{x}.abs().sqrt()", f"{x}.sum(dtype=torch.int8)",
                      f"{x}.prod()", f"{x}.cumprod(0)" if s else f"{x}.neg()", f"torch.bitwise_not({x})"])
        self.guarded(f"print({e})")

    def creation(self):
        r = self.r
        e = r.choice(["torch.tensor([1, 2.5, True])", "torch.tensor([[1, 2], [3, 4]], dtype=torch.float16)",
                      "torch.tensor([])", "torch.tensor([[]])", "torch.zeros(2, 0, 3)", "torch.tensor(3)",
                      "torch.tensor([True, False])", "torch.arange(0, 1, 0.1)", "torch.arange(5, 0, -1.5)",
                      "torch.linspace(0, 1, 7)", "torch.linspace(-1e5, 1e5, 5)", "torch.eye(3, 2)",
                      "torch.full((2, 2), 7)", "torch.full((2,), 1.5, dtype=torch.float64)", "torch.ones(2, 3).int()",
                      "torch.zeros_like(torch.ones(2), dtype=torch.int32)", "torch.empty(0)", "torch.tensor([1e-8, 1.])",
                      "torch.tensor([[1, 2], [3]])", "torch.tensor([1, 2], dtype=torch.bool)", "torch.arange(10).view(2, 5).T",
                      "torch.tensor([[0.1, 100.], [1e-4, 1e4]])", "torch.tensor([123456789.])", "torch.tensor([1e-20])",
                      "torch.tensor([0.1, 0.25], dtype=torch.float64) * 3", "torch.randn(2, 3).numpy().shape",
                      "torch.tensor(float('nan')).item()", "torch.tensor([2**40, -1])", "torch.tensor([[True], [False]]).shape",
                      "torch.ones(3).new_zeros(2)", "torch.ones(3, dtype=torch.int16).new_tensor([1.5])",
                      "torch.randn(4, 4).tril()", "torch.triu(torch.ones(3, 3), 1)", "torch.diag(torch.tensor([1., 2.]))"])
        self.guarded(f"print({e})")

    def gather_scatter(self):
        r = self.r
        x, s = self.new(shape=r.choice([(3, 4), (2, 3), (4,)]), rg=r.random() < 0.6, p="x")
        d = r.randrange(len(s))
        idx = f"torch.randint(0, {s[d]}, {st(s)})"
        e = r.choice([f"torch.gather({x}, {d}, {idx})", f"{x}.scatter({d}, {idx}, 0.5)",
                      f"torch.zeros_like({x}).scatter_add({d}, {idx}, {x})", f"{x}.index_add({d}, torch.tensor([0]), "
                      f"{x}.narrow({d}, 0, 1))", f"{x}.scatter({d}, {idx}, {x} * 2)", f"torch.take({x}, torch.tensor([0, -1]))",
                      f"{x}.index_select({d}, torch.tensor([{s[d] - 1}, 0]))", f"{x}.masked_scatter({x} > 0, {x} * 10)",
                      f"{x}.index_fill({d}, torch.tensor([0]), -1.)", "F.one_hot(torch.tensor([0, 2, 1]), 3)",
                      f"torch.gather({x}, {d}, torch.tensor([[0]]))"])
        if self.guarded(f"z = {e}", "print(z)"):
            self.guarded("z.float().sum().backward()", f"print({x}.grad)")

    def functional(self):
        r = self.r
        x, s = self.new(shape=r.choice([(2, 3), (3,), (2, 2, 3), (4, 5)]), rg=r.random() < 0.7, p="x")
        d = r.randrange(-len(s), len(s))
        e = r.choice([f"F.softmax({x}, dim={d})", f"F.log_softmax({x}, {d})", f"F.normalize({x}, dim={d})",
                      f"F.pad({x}, (1, 2))", f"F.pad({x}, (1, 1), value=-1.)", f"F.relu6({x} * 4)", f"F.hardtanh({x})",
                      f"F.softsign({x})", f"F.logsigmoid({x})", f"F.mse_loss({x}, torch.zeros_like({x}))",
                      f"F.l1_loss({x}, torch.ones_like({x}), reduction='sum')", f"F.smooth_l1_loss({x}, {x} * 0)",
                      f"F.cosine_similarity({x}, {x}.flip({d}), dim={d})", f"F.dropout({x}, 0.5, training=False)",
                      f"F.glu(torch.cat([{x}, {x}], {d}), {d})", f"torch.softmax({x}.double(), {d})",
                      f"F.binary_cross_entropy(torch.sigmoid({x}), torch.rand_like({x}))", f"F.silu({x})",
                      f"F.mish({x})", f"F.hardswish({x})", f"F.celu({x})", f"F.selu({x})", f"F.gelu({x}, approximate='tanh')",
                      f"F.cross_entropy({x}.reshape(-1, {s[-1]}), torch.zeros({numel(s) // s[-1]}, dtype=torch.long))",
                      f"torch.nn.functional.log_softmax({x}, dim={d}).exp().sum({d})"])
        if self.guarded(f"f = {e}", "print(f)"):
            self.guarded("f.sum().backward()", f"print({x}.grad)")


BLOCKS = ["inplace_dtypes", "int_math", "creation", "gather_scatter", "functional", "promotion", "views", "indexing", "setitem", "reductions", "cumulative", "sorting", "where_clamp",
          "matmul", "einsum", "joining", "expanding", "higher", "hooks", "errors", "printing"]


def generate_wide(seed: int, index: int) -> str:
    r = random.Random(f"wide:{seed}:{index}")
    w = Wide(r)
    for _ in range(r.randint(1, 3)):
        getattr(w, r.choice(BLOCKS))()
    return "\n".join(w.lines) + "\n"
