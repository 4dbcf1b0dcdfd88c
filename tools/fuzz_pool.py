"""The pool generator of tools/fuzz_programs.py (``--pool``): a random walk over a pool of live variables,
as a seeded program generator written by someone else draws it, where the other generators draw blocks
that each make their own inputs. Every step takes one or two tensors already in the pool (of any dtype
and shape, made by earlier steps, so results of views, in-place ops, casts, reductions and layers feed
each other) and applies an action drawn from one table: elementwise and binary math (with tensors,
0-d tensors and Python numbers of every kind), reductions, scans, sort/topk/unique, views and in-place
ops (on leaves, views and results), indexing and setitem, casts (``to``/``type``/``half``/...),
factories and random draws (``rand``/``randint``/``normal``/``multinomial``/``randperm``/``bernoulli``,
``torch.Generator``), tensor facts (``stride``/``is_contiguous``/``element_size``/``type()``/
``storage_offset``/``dim``/``numel``), every way of printing (``print``, echo, ``str``/``repr``,
f-strings with format specs, ``.item()``/``.tolist()``, ``set_printoptions`` profiles), autograd steps
(``backward`` with ``retain_graph``, ``autograd.grad`` with ``create_graph``, hooks, ``retain_grad``,
``requires_grad_``, ``detach``/``detach_``, ``no_grad``/``enable_grad``/``inference_mode``), ``torch.finfo``/
``iinfo``, and small modules and optimizers (their reprs, ``state_dict``, a step). Most steps sit inside
``try``/``except`` printing torch's message, so an error leaves the rest of the walk compared.

It reuses fuzz_wide's Wide (names, ``guarded``, ``show``, ``tensor``).
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_wide import FLOAT_DTYPES, INT_DTYPES, Wide, st  # noqa: E402

DTYPES = FLOAT_DTYPES + INT_DTYPES + ["torch.bool"]
SCALARS = ["2", "-3", "0.5", "1e-3", "True", "False", "-0.0", "1e20", "3.75", "0", "7", "float('inf')", "-2.5"]
UNARY = ["abs", "neg", "exp", "log", "sqrt", "sin", "tanh", "sigmoid", "relu", "floor", "ceil", "round", "trunc",
         "frac", "sign", "sgn", "reciprocal", "rsqrt", "square", "log1p", "expm1", "erf", "atan", "logical_not",
         "isnan", "isinf", "isfinite", "signbit", "nan_to_num", "bitwise_not", "positive", "deg2rad", "exp2",
         "log2", "log10", "cos", "asinh", "sinc", "angle", "fix", "float_power(2)", "clamp(-1, 1)",
         "clamp(min=0)", "clip(max=0.5)", "pow(2)", "pow(0.5)", "pow(-1)", "mul(2)", "div(3)", "add(1, alpha=2)",
         "remainder(2)", "fmod(-1.5)", "logit()", "softmax(0)", "cumsum(0)",
         "cumprod(0)", "logcumsumexp(0)", "cummax(0)", "flip(0)", "roll(1)", "diff()", "argsort()", "msort()",
         "sort(descending=True)", "unique()", "unique(return_counts=True)", "count_nonzero()", "nonzero()",
         "t()", "T", "mT", "flatten()", "ravel()", "squeeze()", "unsqueeze(-1)", "contiguous()", "clone()",
         "detach()", "float()", "double()", "half()", "long()", "int()", "bool()", "short()", "char()", "byte()",
         "to(torch.float64)", "type(torch.int32)", "new_ones(2)", "new_zeros((1, 2))", "new_full((2,), 3)",
         "new_tensor([1, 2])", "new_empty(0)", "sum()", "mean()", "prod()", "amax()", "max()", "min()",
         "std()", "var(correction=0)", "norm()", "median()", "mode()", "logsumexp(0)", "all()", "any()",
         "argmax()", "argmin()", "aminmax()", "nansum()", "nanmean()", "sum(0, keepdim=True)", "mean(-1)",
         "max(0)", "min(-1)", "topk(1)", "kthvalue(1)", "cummin(0)", "std(0, unbiased=False)",
         "sum(dtype=torch.float64)", "prod(dtype=torch.int64)", "histc(4)", "bincount()", "trace()",
         "diagonal()", "diag()", "tril()", "triu(1)", "fliplr()", "rot90()", "repeat(2)", "tile((2,))",
         "expand(2, *{x}.shape)", "view(-1)", "reshape(-1, 1)", "view(torch.int32)", "chunk(2)", "split(1)",
         "unbind()", "tolist()", "item()", "numel()", "dim()", "size()", "stride()", "is_contiguous()",
         "element_size()", "type()", "storage_offset()", "data_ptr() == 0", "is_floating_point()", "nelement()",
         "ndimension()", "is_leaf", "requires_grad", "grad_fn", "dtype", "shape", "device", "layout", "ndim",
         "itemsize", "nbytes", "is_signed()"]
ATTRIBUTES = ("T", "mT", "is_leaf", "requires_grad", "grad_fn", "dtype", "shape", "device", "layout", "ndim",
              "itemsize", "nbytes")
BINARY = ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>", "<", "<=", "==", "!=", ">", ">="]
FUNCS = ["torch.maximum", "torch.minimum", "torch.fmax", "torch.atan2", "torch.hypot", "torch.copysign",
         "torch.logaddexp", "torch.xlogy", "torch.lerp({a}, {b}, 0.3)", "torch.where({a} > 0, {a}, {b})",
         "torch.addcmul({a}, {a}, {b}, value=0.5)", "torch.dist", "torch.isclose",
         "torch.eq", "torch.ne", "torch.logical_and", "torch.logical_xor", "torch.bitwise_and", "torch.gcd",
         "torch.floor_divide", "torch.true_divide", "torch.remainder", "torch.fmod", "torch.mul", "torch.sub",
         "torch.rsub", "torch.outer", "torch.inner", "torch.dot", "torch.matmul", "torch.kron", "torch.cross",
         "torch.cat(({a}, {b}))", "torch.stack(({a}, {b}))",
         "torch.hstack(({a}, {b}))", "torch.equal", "torch.allclose",
         "torch.searchsorted({a}.flatten().sort().values, {b})",
         "torch.bucketize({b}, {a}.flatten().sort().values)",
         "torch.take_along_dim({a}, {b}.long().abs() % 2)",
         "torch.masked_fill({a}, {b} > 0, -1.5)", "torch.heaviside",
         "torch.nextafter", "torch.ldexp", "torch.clamp({a}, {b}, None)",
         "torch.tensordot({a}, {b}, dims=0)", "torch.result_type",
         "torch.promote_types({a}.dtype, {b}.dtype)", "torch.broadcast_tensors",
         "torch.cartesian_prod({a}.flatten(), {b}.flatten())",
         "torch.block_diag", "torch.cdist({a}.reshape(-1, 1).float(), {b}.reshape(-1, 1).float())"]
INPLACE = ["add_(1)", "mul_(-2)", "sub_({b})", "div_(2)", "clamp_(min=0)", "zero_()", "fill_(0.25)", "neg_()",
           "abs_()", "exp_()", "sqrt_()", "floor_()", "pow_(2)", "copy_({b})", "masked_fill_({x} > 0, 9)",
           "index_fill_(0, torch.tensor([0]), -1)", "fill_diagonal_(5)", "t_()", "unsqueeze_(0)", "squeeze_()",
           "transpose_(0, -1)", "requires_grad_()", "requires_grad_(False)", "detach_()", "retain_grad()",
           "uniform_(-1, 1)", "normal_(0, 2)", "random_(0, 5)", "bernoulli_(0.5)", "add_({b}, alpha=3)",
           "addcmul_({b}, {b})", "lerp_({b}, 0.5)", "mul_({b})", "remainder_(3)", "bitwise_xor_({b})",
           "logical_not_()", "sigmoid_()", "relu_()", "clamp_({b}, None)", "cumsum_(0)", "baddbmm_({b}, {b})",
           "scatter_(0, torch.zeros_like({x}, dtype=torch.long), {b})", "index_add_(0, torch.tensor([0]), {b}[:1])",
           "put_(torch.tensor([0]), torch.tensor([7.]))", "masked_scatter_({x} > 0, {b})", "swapdims_(0, -1)", "renorm_(2, 0, 1.)", "nan_to_num_()", "round_(decimals=1)"]
SHAPES = [(), (1,), (3,), (4,), (2, 3), (3, 2), (2, 2), (1, 3), (2, 1, 3), (2, 2, 2), (0,), (3, 0), (5, 4),
          (40, 30), (1200,), (2, 3, 4)]


class Pool(Wide):
    def __init__(self, r):
        super().__init__(r)
        self.pool = []  # names of the tensors made so far (some may have failed to be made)

    def pick(self):
        return self.r.choice(self.pool)

    def leaf(self):
        r = self.r
        dt = r.choice(DTYPES + ["torch.float32"] * 4)
        shape = r.choice(SHAPES[:12] if r.random() < 0.9 else SHAPES)
        rg = dt in ("torch.float32", "torch.float64", "torch.float16") and r.random() < 0.5
        k = r.random()
        n = self.name("t")
        s = st(shape) if shape else "()"
        if k < 0.6:
            self.emit(f"{n} = {self.tensor(shape, dt, rg)}")
        elif k < 0.7:
            vals = r.choice(["[1., -0., float('nan'), 2.5]", "[[1, 2], [3, 4]]", "[True, False, True]",
                             "[1e-8, 1e8, -3.14159, 0.1]", "3.5", "[[0.5], [-1.5]]", "[float('inf'), -2., 1e-40]",
                             "[2**31, -5, 7]", "[65504., 1e-5, 7.]", "[]"])
            d = r.choice(["", f", dtype={dt}"])
            self.emit(f"{n} = torch.tensor({vals}{d}" + (", requires_grad=True)" if rg and vals != "[]" and "nan"
                                                         not in vals and d.endswith(("32", "64")) else ")"))
        elif k < 0.8:
            g = self.name("g")
            self.emit(f"{g} = torch.Generator().manual_seed({r.randrange(100)})",
                      f"{n} = " + r.choice([f"torch.rand({s}, generator={g})", f"torch.randn({s}, generator={g})",
                                            f"torch.randint(-9, 9, {s}, generator={g})",
                                            f"torch.randperm({r.randint(1, 9)}, generator={g})",
                                            f"torch.empty({s}).normal_(generator={g})"]))
        elif k < 0.9:
            self.emit(f"{n} = " + r.choice([f"torch.normal(2., 3., {s})", f"torch.full({s}, {r.choice(SCALARS)})",
                                            f"torch.linspace(-1, 1, {r.randint(1, 7)})",
                                            f"torch.arange({r.choice(['5', '-2, 3', '0, 1, 0.25', '1., 0., -0.3'])})",
                                            f"torch.logspace(0, 2, {r.randint(1, 5)})", f"torch.eye({r.randint(1, 4)})",
                                            f"torch.ones({s}, dtype={dt})", f"torch.zeros_like(torch.empty({s}))",
                                            f"torch.multinomial(torch.tensor([0.1, 0.5, 0.4]), {r.randint(1, 3)})",
                                            "torch.multinomial(torch.tensor([1., 2., 3.]), 5, replacement=True)",
                                            f"torch.bernoulli(torch.full({s}, 0.3))",
                                            f"torch.rand({s}, dtype=torch.float64) * 1e-5",
                                            f"torch.randint(3, {s}, dtype={dt if dt != 'torch.bool' else 'torch.int8'})"]))
        else:
            self.emit(f"{n} = torch.randn({s}).requires_grad_() * {r.choice(SCALARS[:4])}")
        self.pool.append(n)

    # ------------------------------------------------------------------ steps
    def unary(self):
        r = self.r
        x = self.pick()
        m = r.choice(UNARY).format(x=x)
        n = self.name("u")
        call = f"{x}.{m}"
        if "(" not in m and m not in ATTRIBUTES:  # a method without arguments: Tensor's or torch's
            call = f"{x}.{m}()" if r.random() < 0.7 else f"torch.{m}({x})"
        self.guarded(f"{n} = {call}", self.printing(n))
        self.pool.append(n)

    def binary(self):
        r = self.r
        a, b = self.pick(), self.pick()
        k = r.random()
        n = self.name("b")
        if k < 0.45:
            op = r.choice(BINARY)
            lhs, rhs = (a, b) if r.random() < 0.7 else ((a, r.choice(SCALARS)) if r.random() < 0.5
                                                         else (r.choice(SCALARS), a))
            e = f"{lhs} {op} {rhs}"
        else:
            f = r.choice(FUNCS)
            e = f.format(a=a, b=b) if "{a}" in f else f"{f}({a}, {b})"
        self.guarded(f"{n} = {e}", self.printing(n))
        self.pool.append(n)

    def inplace(self):
        r = self.r
        x, b = self.pick(), self.pick()
        op = r.choice(INPLACE).format(x=x, b=b)
        target = r.choice([x, x, f"{x}[0]", f"{x}.view(-1)", f"{x}[..., :1]", f"{x}.t()" if r.random() < 0.2 else x])
        if r.random() < 0.25:
            self.guarded("with torch.no_grad():", f"    {target}.{op}", self.printing(x))
        elif r.random() < 0.15:
            self.guarded(f"{target} {r.choice(['+=', '-=', '*=', '/=', '//=', '%=', '**=', '&=', '|=', '@='])} "
                         f"{r.choice([b] + SCALARS)}", self.printing(x))
        else:
            self.guarded(f"{target}.{op}", self.printing(x))

    def index(self):
        r = self.r
        x, b = self.pick(), self.pick()
        key = r.choice(["0", "-1", "1:", "::2", "..., 0", "None", ":, None", f"{b} > 0", f"{b}.long()",
                        "[0, 0]", "torch.tensor([True])", "[]", "1, 1", ":, -1", "..., None, 0", "5", f"{x} != {x}",
                        f"{b}.bool()", "torch.tensor(0)", "[[0], [0]]", "-1::-1" if r.random() < 0.05 else "0:0"])
        n = self.name("i")
        if r.random() < 0.6:
            self.guarded(f"{n} = {x}[{key}]", self.printing(n))
            self.pool.append(n)
        else:
            val = r.choice(SCALARS + [b, f"{b}.sum()", "torch.tensor([1., 2.])", "float('nan')"])
            self.guarded(f"{x}[{key}] = {val}", self.printing(x))

    def printing(self, n):
        r = self.r
        k = r.random()
        if k < 0.35:
            return f"print({n})"
        if k < 0.45:
            return f"print(repr({n}), str({n}) == repr({n}))"
        if k < 0.6:
            spec = r.choice(["", ":.3f", ":>12", ":.2e", ":g", "!r", ":10.4f", ":+.1f", ":.0%" if r.random() < 0.1 else ""])
            return f"print(f'{{{n}{spec}}}')"
        if k < 0.7:
            return f"print({n}.tolist() if isinstance({n}, torch.Tensor) else {n})"
        if k < 0.8:
            return (f"print({n}.item() if isinstance({n}, torch.Tensor) and {n}.numel() == 1 else "
                    f"type({n}).__name__)")
        if k < 0.9:
            return (f"print({n}.dtype, {n}.shape, {n}.requires_grad, {n}.grad_fn) if isinstance({n}, torch.Tensor) "
                    f"else print({n})")
        return f"{n}" if r.random() < 0.5 else f"print({n}, end=' | '); print('x', {n}, sep=':')"

    def options(self):
        r = self.r
        opt = r.choice(["profile='short'", "profile='full'", "profile='default'", "precision=2", "precision=8",
                        "sci_mode=True", "sci_mode=False", "threshold=5", "edgeitems=1", "linewidth=40",
                        "precision=0", "threshold=5, edgeitems=2, linewidth=30, precision=3"])
        self.emit(f"torch.set_printoptions({opt})")
        self.emit(self.printing(self.pick()))
        if r.random() < 0.6:
            self.emit("torch.set_printoptions(profile='default')")

    def autograd(self):
        r = self.r
        x = self.pick()
        y = self.name("y")
        k = r.random()
        lines = [f"{y} = ({x}.float() * {x}.float()).sum() if {x}.numel() else {x}.float().sum()"]
        if k < 0.3:
            lines += [f"{y}.backward(retain_graph=True)", f"print({x}.grad)", f"{y}.backward()",
                      f"print({x}.grad)"]
        elif k < 0.55:
            lines += [f"g, = torch.autograd.grad({y}, {x}, create_graph=True)", "print(g, g.grad_fn)",
                      f"print(torch.autograd.grad(g.sum(), {x}, allow_unused=True))"]
        elif k < 0.7:
            lines = [f"h = {x}.register_hook(lambda g: g * 2)", lines[0], f"{y}.backward()", f"print({x}.grad)",
                     "h.remove()"]
        elif k < 0.8:
            lines = [f"z = {x} * 2", "z.retain_grad()", f"{y} = z.sum()", f"{y}.backward()", "print(z.grad, z.is_leaf)"]
        elif k < 0.9:
            lines = ["with torch.no_grad():", f"    {y} = {x} * 2", f"print({y}.requires_grad)",
                     "with torch.enable_grad():", f"    print(({x} + 1).requires_grad)",
                     "with torch.inference_mode():", f"    print(({x} * 1).is_inference())"]
        else:
            lines = [f"d = {x}.detach()", "d.zero_()" if r.random() < 0.5 else "d.add_(1)", f"print({x})",
                     f"print({x}.grad, {x}.is_leaf, {x}.requires_grad)"]
        self.guarded(*lines)

    def info(self):
        r = self.r
        dt = r.choice(DTYPES)
        e = r.choice([f"torch.finfo({dt})" if dt in FLOAT_DTYPES else f"torch.iinfo({dt})",
                      f"torch.finfo({dt}).eps" if dt in FLOAT_DTYPES else f"torch.iinfo({dt}).max",
                      f"torch.finfo({dt}).tiny" if dt in FLOAT_DTYPES else f"torch.iinfo({dt}).min",
                      f"{dt}.is_floating_point", f"{dt}.itemsize", f"torch.tensor(1, dtype={dt}).element_size()",
                      "torch.get_default_dtype()", f"torch.is_tensor({self.pick()})", f"torch.numel({self.pick()})",
                      "torch.initial_seed()", "torch.get_rng_state().sum()", f"torch.can_cast({dt}, torch.int32)"])
        self.guarded(self.printing(e) if r.random() < 0.5 else f"print({e})")

    def module(self):
        r = self.r
        i, o = r.randint(1, 4), r.randint(1, 3)
        m = self.name("m")
        layers = r.choice([f"torch.nn.Linear({i}, {o})", f"torch.nn.Sequential(torch.nn.Linear({i}, 3), torch.nn.ReLU(), "
                                                          f"torch.nn.Linear(3, {o}))",
                           f"torch.nn.Sequential(torch.nn.Linear({i}, {o}), torch.nn.Dropout(0.5), torch.nn.Tanh())",
                           f"torch.nn.Sequential(torch.nn.LayerNorm({i}), torch.nn.Linear({i}, {o}, bias=False))",
                           f"torch.nn.Sequential(torch.nn.BatchNorm1d({i}), torch.nn.Linear({i}, {o}))"])
        opt = r.choice(["torch.optim.SGD({m}.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)",
                        "torch.optim.Adam({m}.parameters(), lr=0.01)", "torch.optim.AdamW({m}.parameters())",
                        "torch.optim.RMSprop({m}.parameters(), lr=0.01)", "torch.optim.Adagrad({m}.parameters(), lr=0.1)"]
                       ).format(m=m)
        x = self.name("x")
        self.emit(f"{m} = {layers}", f"{x} = torch.randn({r.randint(2, 4)}, {i})")
        lines = [f"opt = {opt}", f"out = {m}({x})", "loss = " + r.choice(["out.pow(2).mean()",
                                                                          "torch.nn.functional.mse_loss(out, torch.zeros_like(out))",
                                                                          "out.abs().sum()"]),
                 "opt.zero_grad()", "loss.backward()", "opt.step()", f"print(loss, {m}(({x})).sum())"]
        extra = r.choice(["print(opt)", f"print({m})", f"print({m}.state_dict())", "print(opt.state_dict()['param_groups'])",
                          f"print(sum(p.numel() for p in {m}.parameters()))", f"print([n for n, _ in {m}.named_parameters()])",
                          f"{m}.eval()", f"print({m}.training)", f"print(list({m}.children()))",
                          f"print(torch.nn.utils.clip_grad_norm_({m}.parameters(), 0.1))",
                          f"print(torch.nn.utils.parameters_to_vector({m}.parameters()))", f"{m}.requires_grad_(False)",
                          f"print(next({m}.parameters()).grad)"])
        self.guarded(*lines, extra, f"print({m}({x}))")
        self.pool.append(x)


STEPS = {"unary": 5, "binary": 4, "inplace": 2, "index": 2, "options": 1, "autograd": 2, "info": 1, "module": 1}


def generate_pool(seed: int, index: int) -> str:
    r = random.Random(f"pool:{seed}:{index}")
    w = Pool(r)
    for _ in range(r.randint(2, 4)):
        w.leaf()
    names = list(STEPS)
    weights = [STEPS[n] for n in names]
    for _ in range(r.randint(6, 14)):
        if r.random() < 0.12:
            w.leaf()
        getattr(w, r.choices(names, weights)[0])()
    return "\n".join(w.lines) + "\n"
