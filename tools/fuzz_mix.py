"""The mix generator of tools/fuzz_programs.py (``--mix``): random expression trees where the other
generators draw fixed templates. Each tree is built from leaves of every dtype (int8..int64, uint8,
bool, float16, float32, float64; some with ``requires_grad``), broadcastable shapes (0-d, size-1
and size-0 dims included), Python ints, floats and bools, and nodes from tables of operators and
functions (arithmetic, integer division and modulo, powers, bitwise ops and shifts, comparisons,
unary math, reductions with dim/keepdim/dtype, views, casts), one to three deep, so promotion,
broadcasting and their errors meet in combinations no template lists. Other blocks: chains of
views changed in place (then backward through them), indexing keys built from parts (ints,
negative ints, slices with steps, None, ..., lists, index and mask tensors; read, written and
differentiated), random ``torch.set_printoptions`` before prints of big/small/inf/nan values of
every dtype, Python scalars mixed with 0-d tensors through Python's builtins (int/float/bool/
round/abs/divmod/min/max/sum, f-strings), and the autograd errors in random places.

It reuses fuzz_wide's Wide (names, ``guarded``, ``show``); every block makes its own inputs.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_wide import Wide, numel, st  # noqa: E402

DTYPES = ["torch.int64", "torch.int32", "torch.int16", "torch.int8", "torch.uint8", "torch.bool",
          "torch.float16", "torch.float32", "torch.float32", "torch.float64"]
FLOATS = ["torch.float16", "torch.float32", "torch.float64"]
BASES = [(3,), (2, 3), (2, 1, 3), (4,), (2, 2), (3, 1), (), (1,), (2, 0), (0,), (1, 3), (2, 3, 2)]
PY = ["2", "-3", "0", "1.5", "-0.5", "True", "False", "1e10", "3.", "-7", "255", "1e-3", "float('inf')",
      "float('nan')", "2 ** 40", "-1.0"]
BIN = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "<", "<=", "==", "!=", ">", ">="]
BINF = ["torch.add({a}, {b})", "torch.sub({a}, {b}, alpha=2)", "torch.mul({a}, {b})", "torch.div({a}, {b})",
        "torch.div({a}, {b}, rounding_mode='floor')", "torch.div({a}, {b}, rounding_mode='trunc')",
        "torch.true_divide({a}, {b})", "torch.floor_divide({a}, {b})", "torch.remainder({a}, {b})",
        "torch.fmod({a}, {b})", "torch.pow({a}, {b})", "torch.atan2({a}, {b})", "torch.hypot({a}, {b})",
        "torch.maximum({a}, {b})", "torch.minimum({a}, {b})", "torch.fmax({a}, {b})", "torch.fmin({a}, {b})",
        "torch.logical_and({a}, {b})", "torch.logical_xor({a}, {b})", "torch.eq({a}, {b})", "torch.gt({a}, {b})",
        "torch.copysign({a}, {b})", "torch.xlogy({a}, {b})", "torch.where({a} > 0, {a}, {b})",
        "torch.bitwise_and({a}, {b})", "torch.bitwise_left_shift({a}, {b})", "torch.nextafter({a}, {b})",
        "torch.lerp({a}, {b}, 0.5)", "torch.clamp({a}, max={b})", "torch.isclose({a}, {b})",
        "torch.ldexp({a}, {b})", "torch.float_power({a}, {b})", "torch.heaviside({a}, {b})",
        "{a}.add({b}, alpha=-1)", "{a}.sub({b})", "{a}.mul({b})", "{a}.div({b})", "{a}.remainder({b})",
        "{a}.fmod({b})", "{a}.pow({b})", "{a}.eq({b})", "{a}.lt({b})", "{a}.bitwise_or({b})",
        "{a}.bitwise_xor({b})", "{a}.logical_or({b})", "torch.gcd({a}, {b})", "torch.lcm({a}, {b})"]
UN = ["-{a}", "~{a}", "abs({a})", "+{a}", "{a}.abs()", "{a}.neg()", "{a}.sign()", "{a}.sqrt()", "{a}.exp()",
      "{a}.log()", "{a}.reciprocal()", "{a}.floor()", "{a}.ceil()", "{a}.round()", "{a}.round(decimals=1)",
      "{a}.trunc()", "{a}.frac()", "{a}.sigmoid()", "{a}.tanh()", "{a}.relu()", "{a}.square()", "{a}.float()",
      "{a}.double()", "{a}.half()", "{a}.long()", "{a}.int()", "{a}.bool()", "{a}.to(torch.int8)",
      "{a}.to(torch.uint8)", "{a}.logical_not()", "{a}.bitwise_not()", "{a}.isnan()", "{a}.isinf()",
      "{a}.isfinite()", "{a}.signbit()", "{a}.nan_to_num()", "{a}.clamp(min=0)", "{a}.clamp(-1, 1)",
      "{a}.erf()", "{a}.log1p()", "{a}.expm1()", "{a}.sin()", "{a}.atan()", "{a}.rsqrt()", "{a}.exp2()",
      "{a}.log2()", "{a}.sgn()", "{a}.positive()", "{a}.deg2rad()", "{a}.fix()",
      "torch.clamp({a}, min=-2.5)", "{a}.sinc()", "{a}.logit()", "{a}.digamma()", "{a}.lgamma()"]
RED = ["{a}.sum()", "{a}.sum({d})", "{a}.sum({d}, keepdim=True)", "{a}.sum(dtype=torch.int8)", "{a}.mean()",
       "{a}.mean({d}, keepdim=True)", "{a}.prod({d})", "{a}.amax({d})", "{a}.amin({d}, keepdim=True)",
       "{a}.max()", "{a}.min({d})[0]", "{a}.max({d}, True).values", "{a}.argmax({d})", "{a}.argmin()",
       "{a}.all({d})", "{a}.any()", "{a}.std({d})", "{a}.var(correction=0)", "{a}.norm()",
       "{a}.logsumexp({d})", "{a}.nansum()", "{a}.nanmean({d})", "{a}.count_nonzero()", "{a}.cumsum({d})",
       "{a}.cumprod({d})", "{a}.cummax({d}).values", "{a}.median()", "{a}.sum(({d},))", "{a}.mean(dim=[])",
       "{a}.sum(dim=())", "{a}.prod(dtype=torch.float64)", "{a}.aminmax().max", "{a}.std_mean()"]
VIEW = ["{a}.t()", "{a}.T", "{a}.mT", "{a}.unsqueeze(0)", "{a}.unsqueeze(-1)", "{a}.squeeze()", "{a}.flatten()",
        "{a}.reshape(-1)", "{a}.view(-1)", "{a}.transpose(0, -1)", "{a}.flip(0)", "{a}.expand(2, *{a}.shape)",
        "{a}.repeat(2, 1)", "{a}.contiguous()", "{a}.clone()", "{a}.detach()", "{a}[..., None]", "{a}.movedim(0, -1)",
        "{a}.view({a}.dtype)", "{a}.diagonal()", "{a}.tril()", "{a}.roll(1)", "{a}.narrow(0, 0, 1)"]


class Mix(Wide):
    def leaf(self, shape, dtype, rg=None, p="a"):
        r = self.r
        n = self.name(p)
        s = st(shape) if shape else "()"
        k = r.random()
        if dtype == "torch.bool":
            e = f"torch.randint(0, 2, {s}).bool()"
        elif dtype in ("torch.int64", "torch.int32", "torch.int16", "torch.int8", "torch.uint8"):
            lo, hi = r.choice([(-5, 6), (0, 4), (-128, 128), (-3, 3), (1, 9)])
            if dtype == "torch.uint8":
                lo = max(lo, 0)
            e = f"torch.randint({lo}, {max(hi, lo + 1)}, {s}, dtype={dtype})"
        elif k < 0.15 and numel(shape) > 0:
            vals = ["float('nan')", "float('inf')", "float('-inf')", "0.", "-0.", "1.", "-2.5", "1e30", "3.",
                    "1e-8", "65504.", "-1e5", "0.5", "7."]
            lit = ", ".join(r.choice(vals) for _ in range(numel(shape)))
            e = f"torch.tensor([{lit}], dtype={dtype}).reshape({s})"
        elif k < 0.4:
            e = f"torch.randint(-4, 5, {s}).to({dtype})"
        else:
            e = f"(torch.randn({s}, dtype={dtype}){r.choice(['', '', ' * 3', ' * 1e4', ' * 1e-4', ' + 1'])})"
        if rg is None:
            rg = dtype in FLOATS and dtype != "torch.float16" and r.random() < 0.5
        if rg:
            e += ".requires_grad_()"
        self.emit(f"{n} = {e}")
        return n

    def shapes(self):
        """A base shape and a few shapes that broadcast with it (mostly)."""
        r = self.r
        base = r.choice(BASES)
        out = [base]
        for _ in range(3):
            k = r.random()
            if k < 0.4:
                out.append(base)
            elif k < 0.6:
                out.append(base[1:] if base else ())
            elif k < 0.75:
                out.append(tuple(1 if r.random() < 0.5 else d for d in base))
            elif k < 0.85:
                out.append(())
            else:
                out.append(r.choice(BASES))  # may not broadcast: torch's message
        return out

    def expr(self, names, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            return r.choice(names) if r.random() < 0.85 else r.choice(PY)
        k = r.random()
        a = self.expr(names, depth - 1)
        if k < 0.35:
            b = self.expr(names, depth - 1)
            return f"({a} {r.choice(BIN)} {b})"
        if k < 0.55:
            b = self.expr(names, depth - 1)
            if a in PY and b in PY:
                b = r.choice(names)
            return r.choice(BINF).format(a=a, b=b)
        if a in PY:
            a = f"torch.tensor({a})"
        if k < 0.75:
            return r.choice(UN).format(a=a)
        if k < 0.9:
            return r.choice(RED).format(a=a, d=r.choice(["0", "-1", "1"]))
        return r.choice(VIEW).format(a=a)

    # ------------------------------------------------------------------ blocks
    def trees(self):
        r = self.r
        shapes = self.shapes()
        names = [self.leaf(shapes[i], r.choice(DTYPES)) for i in range(r.randint(1, 3))]
        for _ in range(r.randint(2, 5)):
            e = self.expr(names, r.randint(1, 3))
            v = self.name("r")
            shown = r.choice([f"print({v})", f"print({v}, {v}.dtype, {v}.shape)", v,
                              f"print({v}.dtype, {v}.requires_grad, {v}.grad_fn)"])
            self.guarded(f"{v} = {e}", shown)
        if r.random() < 0.6:
            g = [n for n in names if "requires_grad_" in "\n".join(self.lines)]
            if g:
                e = self.expr(names, 2)
                self.guarded(f"o = {e}", "o.float().sum().backward()",
                             "print(" + ", ".join(f"{n}.grad" for n in names) + ")")

    def views_inplace(self):
        r = self.r
        shape = r.choice([(2, 3), (3, 4), (2, 2, 3), (4,), (3, 3)])
        dt = r.choice(["torch.float32", "torch.float32", "torch.float64", "torch.int64", "torch.float16"])
        rg = dt in ("torch.float32", "torch.float64") and r.random() < 0.7
        x = self.leaf(shape, dt, rg=rg, p="x")
        b = self.name("b")
        self.emit(f"{b} = {x} * 1" if rg else f"{b} = {x}.clone()")
        cur = b
        chain = []
        for _ in range(r.randint(1, 3)):
            nd = len(shape) if not chain else None
            op = r.choice(["[0]", "[:, 1:]" if (nd or 2) >= 2 else "[1:]", "[::2]", "[..., -1]", ".t()" if nd == 2 else ".flatten()",
                           ".transpose(0, -1)", ".unsqueeze(1)", ".view(-1)", ".diagonal()", ".narrow(0, 0, 1)",
                           ".select(0, -1)", ".expand(2, *{c}.shape)", ".unbind(0)[0]", ".split(1)[0]", ".chunk(2)[-1]",
                           ".squeeze()", ".T", ".movedim(0, -1)", ".unflatten(0, (1, -1))",
                           ".detach()", "[None]", "[[0]]"])
            v = self.name("v")
            chain.append(v)
            self.guarded(f"{v} = {cur}{op.format(c=cur)}", f"print({v}.shape)")
            cur = v
        ops = ["add_(1)", "mul_(-2)", "zero_()", "fill_(0.5)", "clamp_(max=0.)", "copy_(torch.ones(1))", "neg_()",
               "exp_()", "sub_(1, alpha=3)", "div_(2, rounding_mode='floor')", "masked_fill_({c} > 0, -1)",
               "index_fill_(0, torch.tensor([0]), 9)", "abs_()", "pow_(2)", "floor_()", "sigmoid_()", "t_()",
               "unsqueeze_(0)", "squeeze_()", "requires_grad_()", "sqrt_()", "round_()", "add_(1.5)",
               "mul_(True)", "bitwise_left_shift_(1)", "remainder_(2)", "floor_divide_(2)"]
        for _ in range(r.randint(1, 2)):
            tgt = r.choice(chain + [b])
            op = r.choice(ops).format(c=tgt)
            if r.random() < 0.2:
                self.emit("with torch.no_grad():", "    try:", f"        {tgt}.{op}",
                          "    except Exception as e:", "        print(type(e), e)")
            else:
                self.guarded(f"{tgt}.{op}")
            if r.random() < 0.5:
                self.guarded(f"print({tgt}, {tgt}.grad_fn)")
        self.guarded(f"print({b}, {b}.grad_fn)")
        for v in r.sample(chain, k=min(len(chain), 2)):
            self.guarded(f"print({v}.grad_fn, {v}.is_leaf, {v}.is_contiguous())")
        if rg:
            self.guarded(f"({b}.float() * torch.arange({numel(shape)}).reshape({st(shape)})).sum().backward()",
                         f"print({x}.grad)")

    def index_forms(self):
        r = self.r
        shape = r.choice([(4,), (3, 4), (2, 3, 4), (5, 2), (3, 1, 2)])
        dt = r.choice(DTYPES)
        rg = dt in ("torch.float32", "torch.float64") and r.random() < 0.6
        x = self.leaf(shape, dt, rg=rg, p="x")
        parts = []
        for i, d in enumerate(shape):
            parts.append([str(r.randrange(-d, d)), str(d), f"{r.randrange(d)}:", f":{r.randint(-d, d)}", "::2",
                          f"{r.randrange(d)}::{r.randint(1, 3)}", ":", "None", "...",
                          f"[{r.randrange(d)}, {r.randrange(-d, d)}]", f"torch.tensor([{r.randrange(d)}])",
                          f"torch.tensor({r.randrange(d)})", f"torch.randint(0, {d}, (2, 2))",
                          f"torch.tensor([{', '.join(r.choice(['True', 'False']) for _ in range(d))}])",
                          "[]", f"torch.tensor([-1, {d - 1}])", "True", "False", "0",
                          f"[[0], [{d - 1}]]", f"{x} > 0" if i == 0 else ":"])
        for _ in range(r.randint(1, 3)):
            k = r.randint(1, len(shape) + 1)
            key = ", ".join(r.choice(parts[min(i, len(parts) - 1)]) for i in range(k))
            y = self.name("y")
            mode = r.random()
            if mode < 0.5:
                self.guarded(f"{y} = {x}[{key}]", f"print({y}, {y}.shape, {y}.dtype)")
            elif mode < 0.8:
                val = r.choice(["0", "-1.5", "True", "torch.tensor(5)", "torch.arange(2)", "float('nan')", "300",
                                f"torch.ones({shape[-1]})", "torch.tensor([1., 2.], requires_grad=True)"])
                c = self.name("c")
                self.guarded(f"{c} = {x}.clone()" if not rg else f"{c} = {x} * 1", f"{c}[{key}] = {val}",
                             f"print({c}, {c}.grad_fn)")
            else:
                self.guarded(f"{y} = {x}[{key}]", f"{y}.float().sum().backward()" if rg else f"print({y}.sum())",
                             f"print({x}.grad)" if rg else "pass")

    def printopts(self):
        r = self.r
        opts = []
        for k, vs in [("precision", ["0", "1", "2", "4", "6", "8", "10"]), ("sci_mode", ["True", "False", "None"]),
                      ("linewidth", ["20", "40", "80", "120"]), ("threshold", ["5", "10", "1000"]),
                      ("edgeitems", ["1", "2", "3"])]:
            if r.random() < 0.4:
                opts.append(f"{k}={r.choice(vs)}")
        if r.random() < 0.2:
            opts = [f"profile='{r.choice(['short', 'full', 'default'])}'"] + opts[:1]
        self.emit(f"torch.set_printoptions({', '.join(opts)})")
        vals = ["1e10", "1e-5", "3.", "0.1", "123456.7", "1e-10", "float('inf')", "float('-inf')", "float('nan')",
                "-0.", "0.", "1e20", "2.5e-8", "65504.", "1234.5678", "-7.", "100000.", "99999.99", "1e8", "0.0001",
                "1.", "-1.", "0.5", "1e-300", "1e300", "12.25", "3.14159265358979", "-123.456", "1e16", "8e-4"]
        for _ in range(r.randint(1, 4)):
            n = r.choice([1, 2, 3, 5, 8, 12, 25])
            lit = ", ".join(r.choice(vals) for _ in range(n))
            dt = r.choice(["torch.float32", "torch.float64", "torch.float16", "torch.int64", "torch.int32",
                           "torch.bool", "torch.uint8"])
            shape = r.choice([f"({n},)", "(-1, 1)" if n > 1 else "(1, 1)", f"(1, {n})", "()" if n == 1 else f"({n},)"])
            e = f"torch.tensor([{lit}]).reshape{shape}"
            if dt in ("torch.int64", "torch.int32", "torch.uint8", "torch.bool"):
                e = f"torch.tensor([{lit}]).nan_to_num(0., 1e6, -1e6).reshape{shape}.to({dt})"
            elif dt != "torch.float32":
                e = e.replace("])", f"], dtype={dt})")
            if r.random() < 0.2:
                e = f"({e}).requires_grad_()" if dt in ("torch.float32", "torch.float64") else e
            self.show(r.choice([e, f"{e} * 3", f"-{e}", f"[{e}]", f"({e}, 1)", f"{e}.tolist()"]))
        if r.random() < 0.3:
            self.show(r.choice(["torch.randn(30, 30)", "torch.arange(2000).reshape(40, 50)", "torch.randn(3, 1000) * 1e3",
                                "torch.rand(2, 2, 600)", "torch.zeros(0, 1000)", "torch.ones(1001, dtype=torch.float64)"]))
        if r.random() < 0.7:
            self.emit("torch.set_printoptions(profile='default')")

    def scalars(self):
        r = self.r
        dt = r.choice(DTYPES)
        t = self.leaf(r.choice([(), (), (1,), (1, 1), (2,)]), dt, p="s")
        exprs = [f"int({t})", f"float({t})", f"bool({t})", f"{t}.item()", f"round({t})", f"round({t}, 1)",
                 f"abs({t})", f"divmod({t}, 2)", f"min({t}, 1)", f"max(2.5, {t})", f"sum([{t}, {t}])",
                 f"{t} + {r.choice(PY)}", f"{r.choice(PY)} - {t}", f"{r.choice(PY)} // {t}", f"{r.choice(PY)} % {t}",
                 f"{r.choice(PY)} ** {t}", f"{t} ** {r.choice(PY)}", f"{t} / {r.choice(PY)}", f"{r.choice(PY)} / {t}",
                 f"f'{{{t}:.3f}}'", f"f'{{{t}}}'", f"'%s' % {t}", f"'{{:>8}}'.format({t})", f"{t} == {r.choice(PY)}",
                 f"{t} in [1, 2]", f"[1, 2, 3][{t}]", f"range({t})", f"{t}.tolist()", f"str({t})", f"len({t})",
                 f"hash({t}) is not None", f"{t} and 1", f"not {t}", f"{t}.int().item() << 2",
                 f"{t}.floor()", f"float({t}) * 2",
                 f"torch.tensor([{t}, 2])", f"torch.full((2,), {t})", f"torch.arange({t})", f"torch.zeros({t})",
                 f"{t}.item() // 0", f"{t}.sum().item() % 3", f"-{t}.item()", f"type({t}.item())"]
        for e in r.sample(exprs, k=r.randint(2, 6)):
            self.guarded(f"print({e})")

    def autograd_errors(self):
        r = self.r
        x = self.leaf(r.choice([(3,), (2, 2), ()]), r.choice(["torch.float32", "torch.float64"]), rg=True, p="x")
        y = self.name("y")
        self.emit(f"{y} = ({x} * {r.choice(['2', x, '1.5'])}).{r.choice(['exp()', 'sin()', 'pow(2)', 'sigmoid()', 'relu()'])}")
        for _ in range(r.randint(1, 3)):
            st_ = r.choice([f"{y}.backward()", f"{y}.sum().backward()", f"{y}.sum().backward(retain_graph=True)",
                            f"{y}.backward(torch.ones_like({y}))", f"{x}.add_(1)", f"{x}.data.mul_(2)", f"{x}.grad.zero_()",
                            f"{x}.grad = None", f"print(torch.autograd.grad({y}.sum(), {x}))",
                            f"print(torch.autograd.grad({y}.sum(), {x}, create_graph=True))",
                            f"{y}.add_(1)", f"{y}.retain_grad()", f"print({y}.grad)", f"{x}.requires_grad_(False)",
                            f"{x}.detach_()", f"{y}.detach_()", f"print({x}.grad_fn, {y}.grad_fn.next_functions)",
                            f"{y}.sum().backward(inputs=[{x}])", f"{y}.mean().backward(gradient=torch.tensor(2.))",
                            f"torch.autograd.backward([{y}.sum()], retain_graph=True)", f"print({y}.requires_grad, {y}.is_leaf)",
                            f"{x}.grad.add_(1)", f"print({x}.grad)", f"{y}.backward(torch.ones(5))",
                            f"{y}.int().sum().backward()", f"print({y}.long().requires_grad)"])
            self.guarded(st_)
        self.guarded(f"print({x}.grad)")


BLOCKS = ["trees", "trees", "trees", "views_inplace", "index_forms", "printopts", "scalars", "autograd_errors"]


def generate_mix(seed: int, index: int) -> str:
    r = random.Random(f"mix:{seed}:{index}")
    w = Mix(r)
    for _ in range(r.randint(1, 3)):
        getattr(w, r.choice(BLOCKS))()
    return "\n".join(w.lines) + "\n"
