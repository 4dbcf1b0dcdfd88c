"""The corners generator of tools/fuzz_programs.py (``--corners``): blocks that ``--wide`` never draws.
Integer division and remainder with negatives (operators, ``div`` rounding modes, ``fmod``,
``floor_divide``), bitwise ops and shifts (operators, methods, in-place forms, counts out of range),
integer overflow (wrapping arithmetic, sums and products of small ints), promotion with 0-d tensors
and Python scalars of each kind, float16 reductions, nan/inf in prints, comparisons and reductions,
prod/cumprod with zeros and their gradients, norm/dist/var/std with dims and correction,
min/max/median/mode/kthvalue with dims and ties, unique/bincount/histc/bucketize,
repeat_interleave/roll/flip/rot90/tril/triu/diagonal/diag_embed/narrow/unfold with gradients,
index_add/index_copy/index_put/scatter_add/scatter_reduce/take_along_dim/masked_scatter,
masked ops on views, expand + in-place errors, and prints of 0-size, 0-d and huge tensors under
``torch.set_printoptions``; grad modes (no_grad, enable_grad, set_grad_enabled, inference_mode, requires_grad_
toggles) with retain_graph and grad of grad; in-place ops on views and broadcasting with 0-size dims.

It reuses fuzz_wide's Wide (inputs, ``guarded``, ``show``); every block makes its own inputs.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_wide import FLOAT_DTYPES, INT_DTYPES, Wide, numel, st  # noqa: E402

ALL_DTYPES = INT_DTYPES + FLOAT_DTYPES + ["torch.bool"]
SMALL = [(3,), (2, 3), (4,), (3, 1), (2, 2), (), (1,), (2, 3, 2)]


class Corners(Wide):
    def ints(self, shape, dtype, lo=-9, hi=10, p="i"):
        n = self.name(p)
        if dtype == "torch.uint8":
            lo = max(lo, 0)
        if dtype == "torch.bool":
            self.emit(f"{n} = torch.randint(0, 2, {st(shape) if shape else '()'}).bool()")
        else:
            self.emit(f"{n} = torch.randint({lo}, {hi}, {st(shape) if shape else '()'}, dtype={dtype})")
        return n

    def floats(self, shape, dtype="torch.float32", rg=False, p="x", special=False):
        n = self.name(p)
        r = self.r
        s = st(shape) if shape else "()"
        if special:
            vals = ["float('nan')", "float('inf')", "float('-inf')", "0.", "-0.", "1.", "-2.5", "1e30", "3."]
            k = numel(shape)
            lit = ", ".join(r.choice(vals) for _ in range(k))
            e = f"torch.tensor([{lit}], dtype={dtype})" + (f".reshape({s})" if shape != (k,) else "")
        elif r.random() < 0.3:
            e = f"torch.randint(-3, 4, {s}).to({dtype})"
        else:
            e = f"torch.randn({s}, dtype={dtype})"
        if rg:
            e += ".requires_grad_()"
        self.emit(f"{n} = {e}")
        return n

    def out(self, expr):
        if self.r.random() < 0.5:
            self.guarded(f"print({expr})")
        else:
            self.guarded(f"r = {expr}", "print(r, r.dtype if isinstance(r, torch.Tensor) else type(r))")

    def backward_of(self, expr, x):
        self.guarded(f"o = {expr}", "print(o.grad_fn.name() if o.grad_fn else None)",
                     "(o.float() * torch.arange(1, o.numel() + 1).reshape(o.shape)).sum().backward()", f"print({x}.grad)")

    # ------------------------------------------------------------------ blocks
    def int_division(self):
        r = self.r
        s = r.choice(SMALL)
        dt = r.choice(INT_DTYPES + ["torch.float32", "torch.float64", "torch.float16"])
        a = self.ints(s, dt) if dt in INT_DTYPES else self.floats(s, dt)
        b = self.ints(r.choice([s, ()]), r.choice(INT_DTYPES + ["torch.float32"]), lo=-4, hi=5)
        sc = r.choice(["-3", "3", "-2.5", "0.5", "-1", "True", "7", "-0.0", "0"])
        exprs = [f"{a} // {b}", f"{a} % {b}", f"{a} // {sc}", f"{a} % {sc}", f"{sc} // {a}", f"{sc} % {a}",
                 f"torch.floor_divide({a}, {b})", f"torch.div({a}, {b}, rounding_mode='trunc')",
                 f"torch.div({a}, {sc}, rounding_mode='floor')", f"torch.fmod({a}, {sc})", f"torch.remainder({a}, {b})",
                 f"{a}.fmod({b})", f"{a}.remainder({sc})", f"{a}.div({b})", f"{a} / {sc}", f"torch.true_divide({a}, {b})",
                 f"{a}.floor_divide({sc})", f"torch.div({a}, {b}, rounding_mode=None)", f"({a} // {b}).dtype",
                 f"{a}.float().div({b}, rounding_mode='floor')"]
        for e in r.sample(exprs, k=r.randint(2, 4)):
            self.out(e)
        if r.random() < 0.4:
            op = r.choice(["//=", "%=", "/="])
            self.guarded(f"{a} {op} {r.choice([sc, b])}", f"print({a})")
        if r.random() < 0.3:
            x = self.floats(r.choice([(3,), (2, 2)]), r.choice(["torch.float32", "torch.float64"]), rg=True)
            self.backward_of(r.choice([f"{x} % {sc}", f"torch.fmod({x}, 1.5)", f"torch.remainder({x}, -2)",
                                       f"{x} // 2", f"torch.div({x}, 3, rounding_mode='floor')"]), x)

    def bitwise(self):
        r = self.r
        s = r.choice(SMALL)
        dt = r.choice(INT_DTYPES + ["torch.bool"])
        a = self.ints(s, dt, lo=-100, hi=100)
        b = self.ints(r.choice([s, (), s[-1:] if s else ()]), r.choice(INT_DTYPES + ["torch.bool"]), lo=-3, hi=9)
        sc = r.choice(["1", "-1", "3", "True", "7", "64", "0", "255", "2.5"])
        exprs = [f"{a} & {b}", f"{a} | {b}", f"{a} ^ {b}", f"~{a}", f"{a} << {b}", f"{a} >> {b}", f"{a} << {sc}",
                 f"{a} >> {sc}", f"{sc} << {a}", f"{sc} & {a}", f"{a} ^ {sc}", f"torch.bitwise_and({a}, {b})",
                 f"torch.bitwise_or({a}, {sc})", f"{a}.bitwise_xor({b})", f"torch.bitwise_not({a})",
                 f"{a}.bitwise_left_shift({b})", f"torch.bitwise_right_shift({a}, {sc})", f"{a}.bitwise_not()",
                 f"({a} & {b}).dtype", f"torch.logical_xor({a}, {b})"]
        for e in r.sample(exprs, k=r.randint(2, 4)):
            self.out(e)
        m = r.choice(["bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_", "bitwise_right_shift_"])
        k = r.random()
        if k < 0.3:
            self.guarded(f"{a}.{m}({r.choice([b, sc])})", f"print({a})")
        elif k < 0.45:
            self.guarded(f"{a}.bitwise_not_()", f"print({a})")
        elif k < 0.65:
            self.guarded(f"{a} {r.choice(['&=', '|=', '^=', '<<=', '>>='])} {r.choice([b, sc])}", f"print({a})")

    def overflow(self):
        r = self.r
        dt = r.choice(INT_DTYPES)
        lim = {"torch.int64": "9223372036854775807", "torch.int32": "2147483647", "torch.int16": "32767",
               "torch.int8": "127", "torch.uint8": "255"}[dt]
        low = {"torch.uint8": "0"}.get(dt, f"-{lim} - 1")
        n = self.name("v")
        self.emit(f"{n} = torch.tensor([{lim}, {low}, 1, -1 if {lim} != 255 else 2], dtype={dt})")
        exprs = [f"{n} + 1", f"{n} - 1", f"{n} * 2", f"{n} * {n}", f"-{n}", f"{n}.abs()", f"{n}.sum()", f"{n}.prod()",
                 f"{n}.cumsum(0)", f"{n}.sum(dtype={dt})", f"{n}.to(torch.int8)", f"{n}.to(torch.uint8)",
                 f"{n}.float()", f"{n}.half()", f"{n} // -1", f"{n} % -1", f"{n} + 1.5", f"{n} * 2.0",
                 f"{n}.cumprod(0)", f"{n} ** 2", f"{n}.mean(dtype=torch.float64)", f"{n}.max() + {n}.min()",
                 f"torch.tensor([300, -200]).to({dt})", f"torch.tensor([1e10, -1e10, 3.7, -3.7]).to({dt})",
                 f"{n}.sum(0, keepdim=True).dtype", f"torch.tensor({lim}) + 1"]
        for e in r.sample(exprs, k=r.randint(2, 5)):
            self.out(e)
        if r.random() < 0.3:
            self.guarded(f"{n} += {r.choice(['100', '1', '-1', lim])}", f"print({n})")

    def scalars(self):
        r = self.r
        dta = r.choice(ALL_DTYPES)
        dtb = r.choice(ALL_DTYPES)
        s = r.choice([(3,), (2, 2), (2, 3)])
        a = self.ints(s, dta, lo=-3, hi=4) if dta in INT_DTYPES or dta == "torch.bool" else self.floats(s, dta)
        z = self.name("z")
        zv = r.choice(["2", "-1", "2.5", "True", "0"])
        self.emit(f"{z} = torch.tensor({zv}, dtype={dtb})")
        sc = r.choice(["2", "2.5", "True", "-3", "1e-3", "0", "False", "3.0"])
        op = r.choice(["+", "-", "*", "/", "**", "//", "%", "<", "==", "&", "max"])
        if op == "max":
            exprs = [f"torch.maximum({a}, {z})", f"torch.max({a}, {z})", f"torch.clamp({a}, {z})",
                     f"torch.where({a} > 0, {a}, {z})", f"torch.where({a} > 0, {a}, {sc})",
                     f"torch.where({a} > 0, {sc}, {z})", f"torch.min({z}, {a})"]
        else:
            exprs = [f"{a} {op} {z}", f"{z} {op} {a}", f"{a} {op} {sc}", f"{sc} {op} {a}", f"{z} {op} {sc}",
                     f"{z} {op} {z}", f"({a} {op} {z}).dtype", f"torch.result_type({a}, {sc})",
                     f"torch.result_type({z}, {a})", f"torch.result_type({sc}, {z})",
                     f"{a}.{r.choice(['add', 'mul', 'sub', 'div'])}({z})", f"torch.add({a}, {z}, alpha={r.choice(['2', '0.5', 'True'])})"]
        for e in r.sample(exprs, k=r.randint(2, 4)):
            self.out(e)
        if r.random() < 0.3:
            self.guarded(f"{a} {r.choice(['+=', '*=', '-=', '/='])} {r.choice([z, sc])}", f"print({a})")

    def half_reductions(self):
        r = self.r
        s = r.choice([(3,), (2, 3), (4, 5), (100,), (3, 40), (2, 2, 3)])
        x = self.floats(s, "torch.float16")
        sc = r.choice(["", " * 100", " * 1000", " * 1e-3", " + 10"])
        if sc:
            self.emit(f"{x} = ({x}{sc}).half()")
        d = r.randrange(-len(s), len(s))
        exprs = [f"{x}.sum()", f"{x}.mean()", f"{x}.prod()", f"{x}.sum({d})", f"{x}.mean({d})", f"{x}.var()",
                 f"{x}.std({d})", f"{x}.norm()", f"{x}.cumsum({d})", f"{x}.softmax({d})", f"{x}.log_softmax({d})",
                 f"{x}.logsumexp({d})", f"{x}.max({d})", f"{x}.amin()", f"{x}.median()", f"{x}.sum(dtype=torch.float32)",
                 f"{x}.cumprod({d})", f"torch.linalg.vector_norm({x}, 1)", f"{x}.nansum()", f"{x}.exp().sum({d})",
                 f"{x}.float().sum() - {x}.sum()", f"{x}.mean(dtype=torch.float32)", f"{x} @ {x}.T" if len(s) == 2 else f"{x}.dot({x})" if len(s) == 1 else f"{x}.sum()"]
        for e in r.sample(exprs, k=r.randint(2, 4)):
            self.out(e)

    def nonfinite(self):
        r = self.r
        s = r.choice([(3,), (5,), (2, 3), (4,)])
        dt = r.choice(["torch.float32", "torch.float64", "torch.float16"])
        x = self.floats(s, dt, special=True)
        y = self.floats(s, dt, special=True)
        d = r.randrange(-len(s), len(s))
        exprs = [x, f"{x} == {y}", f"{x} < {y}", f"{x} != {x}", f"{x}.max()", f"{x}.min({d})", f"{x}.argmax()",
                 f"{x}.sort({d})", f"torch.maximum({x}, {y})", f"torch.fmax({x}, {y})", f"{x}.clamp(-1, 1)",
                 f"{x}.sum()", f"{x}.mean({d})", f"{x}.nan_to_num()", f"{x}.isnan()", f"{x}.isinf().any()",
                 f"torch.isclose({x}, {y}, equal_nan=True)", f"{x} * 0", f"{x}.sign()", f"{x}.exp()", f"{x}.log()",
                 f"{x}.long()" if r.random() < 0.1 else f"{x}.abs()", f"{x}.topk(1, {d})", f"{x}.cumsum({d})",
                 f"{x}.unique()", f"{x}.median()", f"{x}.nanmedian()", f"{x}.amax({d})", f"{x}.softmax({d})",
                 f"{x}.floor()", f"{x}.round()", f"{x}.sigmoid()", f"{x}.tanh()", f"torch.minimum({x}, {y})",
                 f"{x}.nansum()", f"{x}.nanmean()", f"{x}.eq({x}).all()", f"{x}.tolist()", f"{x}.max().item()",
                 f"{x} / 0", f"{x}.reciprocal()", f"torch.atan2({x}, {y})", f"{x}.frac()", f"{x}.sqrt()"]
        for e in r.sample(exprs, k=r.randint(2, 5)):
            self.out(e)

    def prod_zeros(self):
        r = self.r
        s = r.choice([(4,), (2, 3), (3, 3), (2, 2, 2)])
        dt = r.choice(["torch.float32", "torch.float64"])
        x = self.name("x")
        n = numel(s)
        zeros = r.sample(range(n), k=r.choice([1, 1, 2, 0]))
        vals = [("0." if i in zeros else f"{r.choice([1.5, -2., 0.5, 3., -1.])}") for i in range(n)]
        self.emit(f"{x} = torch.tensor([{', '.join(vals)}], dtype={dt}).reshape({st(s)}).requires_grad_()")
        d = r.randrange(-len(s), len(s))
        e = r.choice([f"{x}.prod()", f"{x}.prod({d})", f"{x}.prod({d}, keepdim=True)", f"{x}.cumprod({d})",
                      f"torch.cumprod({x}, {d}).flip({d})", f"{x}.prod(dtype=torch.float64)", f"{x}.abs().prod({d})"])
        self.guarded(f"p = {e}", "print(p)")
        if r.random() < 0.5:
            self.guarded("p.sum().backward()", f"print({x}.grad)")
        else:
            self.guarded(f"g, = torch.autograd.grad(p.sum(), {x}, create_graph=True)", "print(g)",
                         f"print(torch.autograd.grad(g.sum(), {x})[0])")

    def norms(self):
        r = self.r
        s = r.choice([(3,), (2, 3), (4, 5), (2, 3, 4), (1, 4), (7,)])
        dt = r.choice(["torch.float32", "torch.float32", "torch.float64"])
        rg = r.random() < 0.6
        x = self.floats(s, dt, rg=rg)
        nd = len(s)
        d = r.randrange(-nd, nd)
        dims = f"({d},)" if nd == 1 else f"(0, {nd - 1})"
        p = r.choice(["1", "2", "3", "0.5", "float('inf')", "-float('inf')", "0", "'fro'", "1.5"])
        kd = r.choice(["True", "False"])
        c = r.choice(["0", "1", "2", "True", "False"])
        y = self.floats(s, dt)
        exprs = [f"{x}.norm(p={p})", f"{x}.norm({p}, {d})" if p != "'fro'" else f"{x}.norm('fro', {dims})",
                 f"{x}.norm(dim={dims}, keepdim={kd})", f"torch.dist({x}, {y}, {p})" if p != "'fro'" else f"torch.dist({x}, {y})",
                 f"{x}.var({d}, correction={c})" if c not in ("True", "False") else f"{x}.var({d}, {c})",
                 f"{x}.std(dim={dims}, correction={c}, keepdim={kd})" if c not in ("True", "False") else f"{x}.std({c})",
                 f"torch.var_mean({x}, {d}, correction={c})" if c not in ("True", "False") else f"torch.std_mean({x}, unbiased={c})",
                 f"torch.linalg.vector_norm({x}, ord={p if p != chr(39) + 'fro' + chr(39) else 2}, dim={d}, keepdim={kd})",
                 f"torch.linalg.norm({x}, dim={d})", f"{x}.std(unbiased=False)", f"torch.cdist({x}.reshape(-1, {s[-1]}), {y}.reshape(-1, {s[-1]}))",
                 f"torch.nn.functional.pairwise_distance({x}, {y})", f"{x}.renorm({p if p in ('1', '2', '3') else 2}, 0, 1.)" if nd >= 2 else f"{x}.var()"]
        chosen = r.sample(exprs, k=r.randint(1, 3))
        for e in chosen:
            self.out(e)
        if rg:
            self.guarded(f"o = {chosen[0]}", "o = o[0] if isinstance(o, tuple) else o", "o.sum().backward()",
                         f"print({x}.grad)")

    def selections(self):
        r = self.r
        s = r.choice([(5,), (2, 3), (3, 4), (2, 3, 2), (4, 1)])
        dt = r.choice(["torch.float32", "torch.float64", "torch.int64", "torch.float16", "torch.int32"])
        rg = dt in ("torch.float32", "torch.float64") and r.random() < 0.6
        x = self.name("x")
        e = f"torch.randint(0, {r.choice([2, 3, 10])}, {st(s)}).to({dt})"
        self.emit(f"{x} = {e}" + (".requires_grad_()" if rg else ""))
        d = r.randrange(-len(s), len(s))
        kd = r.choice(["True", "False"])
        k = r.randint(1, s[d])
        exprs = [f"{x}.max({d})", f"{x}.min(dim={d}, keepdim={kd})", f"{x}.median({d})", f"{x}.mode({d})",
                 f"{x}.kthvalue({k}, {d})", f"{x}.nanmedian({d}, keepdim={kd})", f"torch.max({x})", f"{x}.argmin({d})",
                 f"{x}.median()", f"{x}.mode()", f"torch.aminmax({x}, dim={d})", f"{x}.topk({k}, {d})",
                 f"{x}.sort({d}, stable=True)", f"{x}.argsort({d}, descending=True)", f"{x}.msort()",
                 f"{x}.cummax({d})", f"{x}.max({d}).indices", f"torch.median({x}, {d}, True)"]
        chosen = r.sample(exprs, k=r.randint(1, 3))
        for e in chosen:
            self.out(e)
        if rg:
            self.guarded(f"o = {chosen[0]}", "o = o[0] if isinstance(o, tuple) else o",
                         "(o * torch.arange(1., o.numel() + 1).reshape(o.shape)).sum().backward()", f"print({x}.grad)")

    def counting(self):
        r = self.r
        s = r.choice([(6,), (2, 3), (8,), (3, 3)])
        i = self.ints(s, r.choice(["torch.int64", "torch.int64", "torch.int32", "torch.uint8", "torch.int8"]), lo=0, hi=5)
        x = self.floats(s, r.choice(["torch.float32", "torch.float64"]))
        exprs = [f"torch.unique({i})", f"{i}.unique(return_counts=True)", f"torch.unique({i}, sorted=True, return_inverse=True)",
                 f"torch.unique({i}, dim=0)" if len(s) > 1 else f"{i}.unique_consecutive()",
                 f"torch.unique_consecutive({i}, return_counts=True, return_inverse=True)",
                 f"torch.bincount({i}.flatten().long())", f"{i}.flatten().long().bincount(minlength=7)",
                 f"torch.bincount({i}.flatten().long(), weights={x}.flatten())", f"torch.histc({x}, bins=4)",
                 f"torch.histc({x}, bins=5, min=-1, max=1)", f"torch.bucketize({x}, torch.tensor([-1., 0., 1.]))",
                 f"torch.searchsorted(torch.tensor([-1., 0., 1.]), {x}, right=True)", f"{i}.count_nonzero()",
                 f"torch.unique({x}.round())", f"{x}.round().unique(return_inverse=True, return_counts=True)",
                 f"torch.histc({i}.float(), bins=3)", "torch.bincount(torch.tensor([], dtype=torch.long))"]
        for e in r.sample(exprs, k=r.randint(2, 4)):
            self.out(e)

    def rearrange(self):
        r = self.r
        s = r.choice([(4,), (2, 3), (3, 3), (2, 3, 2), (3, 4)])
        rg = r.random() < 0.7
        x = self.floats(s, r.choice(["torch.float32", "torch.float64"]), rg=rg)
        nd = len(s)
        d = r.randrange(-nd, nd)
        k = r.randint(-2, 2)
        exprs = [f"{x}.repeat_interleave(2)", f"{x}.repeat_interleave(torch.tensor([{', '.join(str(r.randint(0, 3)) for _ in range(s[d]))}]), dim={d})",
                 f"{x}.repeat_interleave(3, dim={d})", f"torch.roll({x}, {k})", f"{x}.roll({k}, {d})",
                 f"{x}.flip({d})", f"torch.flip({x}, (0, {nd - 1}))", f"{x}.narrow({d}, 1, {s[d] - 1})",
                 f"{x}.unfold({d}, 2, 1)", f"{x}.unfold({d}, {s[d]}, 2)", f"{x}.movedim(0, -1)", f"torch.diag_embed({x})",
                 f"{x}.diag_embed(offset={k})"]
        if nd >= 2:
            exprs += [f"{x}.tril({k})", f"torch.triu({x}, {k})", f"{x}.diagonal({k})", f"{x}.diagonal(offset={k}, dim1=-1, dim2=0)",
                      f"torch.rot90({x}, {k}, (0, 1))", f"{x}.fliplr()", f"{x}.flipud()", f"{x}.roll((1, -1), (0, 1))",
                      f"torch.diag({x}, {k})" if nd == 2 else f"{x}.diagonal(0, 1, 2)", f"{x}.trace()" if nd == 2 else f"{x}.tril()"]
        else:
            exprs += [f"torch.diag({x}, {k})", f"{x}.diagflat()", f"{x}.unfold(0, 1, 1)"]
        e = r.choice(exprs)
        self.guarded(f"o = {e}", "print(o)")
        if rg:
            self.guarded("print(o.grad_fn)" if r.random() < 0.3 else "print(o.grad_fn.name())",
                         "(o * torch.arange(1., o.numel() + 1).reshape(o.shape)).sum().backward()", f"print({x}.grad)")

    def index_ops(self):
        r = self.r
        s = r.choice([(3, 4), (4,), (2, 3), (3, 2, 2)])
        dt = r.choice(["torch.float32", "torch.float64"])
        x = self.floats(s, dt, rg=r.random() < 0.6)
        d = r.randrange(len(s))
        m = r.randint(1, 3)
        idx = f"torch.tensor([{', '.join(str(r.randrange(s[d])) for _ in range(m))}])"
        src_shape = tuple(m if i == d else n for i, n in enumerate(s))
        src = self.floats(src_shape, dt,
                          rg=r.random() < 0.4, p="s")
        full = f"torch.randint(0, {s[d]}, {st(s)})"
        red = r.choice(["'sum'", "'prod'", "'mean'", "'amax'", "'amin'"])
        exprs = [f"{x}.index_add({d}, {idx}, {src})", f"{x}.index_add({d}, {idx}, {src}, alpha=-2)",
                 f"{x}.index_copy({d}, {idx}, {src})", f"torch.index_copy({x}, {d}, {idx}, {src})",
                 f"{x}.scatter_add({d}, {full}, {x})", f"{x}.scatter_reduce({d}, {full}, {x}, {red})",
                 f"{x}.scatter_reduce({d}, {full}, {x} * 2, {red}, include_self=False)",
                 f"torch.take_along_dim({x}, {full}, {d})", f"torch.take_along_dim({x}, {x}.argsort({d}), dim={d})",
                 f"{x}.take_along_dim({x}.argmax({d}, keepdim=True), {d})",
                 f"{x}.index_put(({idx},), torch.tensor(5.))" if d == 0 else f"{x}.index_put(({idx},), {src}[0], accumulate=True)",
                 f"torch.index_put({x}, ({idx},), torch.tensor(-1.), accumulate=True)",
                 f"{x}.masked_scatter({x} > 0, torch.arange(100.)[:{numel(s)}].reshape({st(s)}))",
                 f"{x}.index_fill({d}, {idx}, -1)", f"{x}.index_select({d}, {idx})",
                 f"{x}.scatter({d}, {full}, {x}, reduce='add')", f"{x}.scatter({d}, {full}, 2.0, reduce='multiply')"]
        e = r.choice(exprs)
        self.guarded(f"o = {e}", "print(o)")
        if r.random() < 0.6:
            self.guarded("(o * torch.arange(1., o.numel() + 1).reshape(o.shape)).sum().backward()",
                         f"print({x}.grad)", f"print({src}.grad)")
        if r.random() < 0.3:  # the in-place forms on a non-leaf copy
            y = self.name("y")
            self.emit(f"{y} = {x}.detach().clone()")
            f = r.choice([f"{y}.index_add_({d}, {idx}, {src}.detach())", f"{y}.index_put_(({idx},), torch.tensor(9.), accumulate=True)",
                          f"{y}.masked_scatter_({y} < 0, torch.zeros({numel(s)}))", f"{y}.scatter_reduce_({d}, {full}, {y}, {red})",
                          f"{y}.index_copy_({d}, {idx}, {src}.detach())", f"{y}[{idx}] += 1"])
            self.guarded(f, f"print({y})")

    def masked_views(self):
        r = self.r
        s = r.choice([(3, 4), (2, 3), (4, 4)])
        x = self.floats(s, rg=True)
        y = self.name("y")
        self.emit(f"{y} = {x} * 2")
        v = r.choice([f"{y}[0]", f"{y}[:, 1:]", f"{y}.t()", f"{y}.diagonal()", f"{y}[::2]", f"{y}.view(-1)[1:]"])
        op = r.choice(["masked_fill_({v} > 0, 0.)", "masked_fill_({v} < 0, float('nan'))", "masked_scatter_({v} > 0, torch.ones({n}) * 7)",
                       "clamp_(min=0)", "index_fill_(0, torch.tensor([0]), 1.)", "masked_fill_(torch.tensor(True), 2.)"])
        self.emit(f"v = {v}")
        self.guarded(f"v.{op.format(v='v', n=numel(s))}", "print(v.grad_fn.name())", f"print({y})",
                     f"{y}.sum().backward()", f"print({x}.grad)")
        if r.random() < 0.5:
            e = self.name("e")
            self.emit(f"{e} = torch.zeros({s[-1]}).expand({st(s)})")
            self.guarded(r.choice([f"{e}.add_(1)", f"{e}.masked_fill_({e} == 0, 1.)", f"{e}[0, 0] = 5",
                                   f"{e}.mul_(2)", f"{e}.copy_(torch.ones({st(s)}))", f"{e}.zero_()",
                                   f"{e}.index_put_((torch.tensor([0]),), torch.tensor(1.))"]), f"print({e})")

    def printing_sizes(self):
        r = self.r
        k = r.random()
        if k < 0.35:
            opts = r.sample(["precision=2", "precision=8", "threshold=5", "edgeitems=1", "linewidth=40", "sci_mode=True",
                             "sci_mode=False", "profile='short'", "profile='full'", "edgeitems=2"], k=r.randint(1, 2))
            opts = list({o.split("=")[0]: o for o in opts}.values())  # a keyword once (else a SyntaxError)
            self.emit(f"torch.set_printoptions({', '.join(opts)})")
        shape = r.choice([(0,), (2, 0), (0, 3), (), (1001,), (30, 40), (2, 3, 200), (5, 0, 2), (40,), (3, 700), (1, 1, 1)])
        dt = r.choice(["torch.float32", "torch.float64", "torch.int64", "torch.bool", "torch.float16", "torch.int8"])
        s = st(shape) if shape else "()"
        if dt in ("torch.int64", "torch.int8"):
            e = f"torch.randint(-100, 100, {s}, dtype={dt})"
        elif dt == "torch.bool":
            e = f"(torch.rand({s}) > 0.5)"
        else:
            e = f"(torch.randn({s}) * {r.choice(['1', '1e4', '1e-4', '123.456', '1e9'])}).to({dt})"
        x = self.name("p")
        self.emit(f"{x} = {e}")
        self.show(r.choice([x, x, f"{x}.requires_grad_()" if dt in FLOAT_DTYPES[:2] else x, f"{x}.shape", f"{x}.sum()",
                            f"{x}.reshape(-1)[:{r.randint(0, 3)}]", f"{x}[None]", f"str({x})[:300]"]))
        if k < 0.35:
            self.emit("torch.set_printoptions(profile='default')")
            if r.random() < 0.5:
                self.show(x)

    def grad_modes(self):
        """no_grad / enable_grad / set_grad_enabled / inference_mode blocks and requires_grad_ toggles around
        a small graph, then backward (retain_graph, twice) and grad of grad."""
        r = self.r
        x = self.floats(r.choice(SMALL[:5]), dtype=r.choice(["torch.float32", "torch.float64"]), rg=True)
        y = self.name("y")
        mode = r.choice(["torch.no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(False)",
                         "torch.set_grad_enabled(True)", "torch.inference_mode()", "torch.inference_mode(False)"])
        self.emit(f"with {mode}:", f"    {y} = ({x} * 3).sin()", f"    print({y}.requires_grad, torch.is_grad_enabled())")
        self.show(f"{y}.grad_fn.name() if {y}.grad_fn else None")
        if r.random() < 0.4:
            self.emit("with torch.no_grad():", "    with torch.enable_grad():", f"        {y} = {x}.exp() * {x}",
                      f"    print({y}.requires_grad)")
        if r.random() < 0.3:
            self.guarded(f"{x}.requires_grad_(False)", f"print({x}.requires_grad, {y}.requires_grad)",
                         f"{x}.requires_grad_()")
        z = self.name("z")
        self.emit(f"{z} = ({x} ** 2 * {x}.cos()).sum()")
        k = r.random()
        if k < 0.35:
            self.guarded(f"{z}.backward(retain_graph=True)", f"{z}.backward()", f"print({x}.grad)")
        elif k < 0.7:
            self.guarded(f"g, = torch.autograd.grad({z}, {x}, create_graph=True)", "print(g.grad_fn.name())",
                         f"g2, = torch.autograd.grad(g.sum(), {x})", "print(g2)")
        else:
            self.guarded(f"{z}.backward()", f"{z}.backward()", f"print({x}.grad)")

    def view_inplace_broadcast(self):
        """In-place ops on a view of a non-leaf (its base's graph after), a leaf's view written under no_grad,
        and broadcasting with 0-size dims (mixed dtypes). (Metadata ops on views, t_/unsqueeze_/transpose_,
        left out: torch's gradients through them print grad_fn=<Invalid>, a known difference.)"""
        r = self.r
        if r.random() < 0.5:
            x = self.floats((2, 3), rg=r.random() < 0.5)
            y = self.name("y")
            self.emit(f"{y} = {x} * 1")
            op = r.choice(["mul_(2)", "add_(1)", "clamp_(min=0)", "zero_()", "exp_()", "copy_(torch.ones(2, 2))"])
            self.guarded(f"v = {y}[:, :2]", f"v.{op}", "print(v.shape, v.grad_fn.name() if v.grad_fn else None)",
                         f"print({y}.grad_fn.name() if {y}.grad_fn else None)")
            self.guarded("with torch.no_grad():", f"    {x}[0].mul_(2)", f"print({x})",
                         f"{y}.sum().backward() if {y}.requires_grad else None", f"print({x}.grad)")
        else:
            a_shape = r.choice([(0,), (2, 0), (0, 3), (1, 0), (3, 1), (1,)])
            b_shape = r.choice([(0,), (3,), (1,), (2, 1), (0, 1), ()])
            a = self.floats(a_shape, dtype=r.choice(["torch.float32", "torch.float64", "torch.float16"]), rg=r.random() < 0.5)
            b = self.ints(b_shape, r.choice(["torch.int64", "torch.int32", "torch.uint8", "torch.bool"]))
            e = r.choice([f"{a} + {b}", f"{a} * {b}", f"torch.where({b} > 0, {a}, 0.)", f"{a} - {b}.float()",
                          f"torch.maximum({a}, {b}.to({a}.dtype))", f"({a} * {b}).sum(0)", f"{a}.expand_as({a} + {b})"])
            self.out(e)


BLOCKS = ["int_division", "bitwise", "overflow", "scalars", "half_reductions", "nonfinite", "prod_zeros", "norms",
          "selections", "counting", "rearrange", "index_ops", "masked_views", "printing_sizes", "grad_modes",
          "view_inplace_broadcast"]


def generate_corners(seed: int, index: int) -> str:
    r = random.Random(f"corners:{seed}:{index}")
    w = Corners(r)
    for _ in range(r.randint(1, 3)):
        getattr(w, r.choice(BLOCKS))()
    return "\n".join(w.lines) + "\n"
