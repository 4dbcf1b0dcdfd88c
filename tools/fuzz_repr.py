"""The repr generator of tools/fuzz_programs.py (``--repr``): what a tutorial prints, with the values
that make torch's formatter change its mind. Tensors of many shapes (0-d, empty, 1-d to 4-d, past
the summarisation threshold) and dtypes (float16/32/64, the integer types, bool), filled with
values drawn to sit on the formatter's borders: nan, inf, -inf, -0.0, whole numbers stored as
floats, large and small exponents (the sci-mode switch at a max/min ratio of 1000, at 1e8 and
1e-4), mixed signs; results of arithmetic that moves them across those borders; printed under
random ``torch.set_printoptions`` (precision, sci_mode, linewidth, threshold, edgeitems, profiles)
by every route: ``print``, ``repr``, ``str``, f-strings with and without format specs, ``tolist``,
``item``, containers of tensors, ``nn.Parameter``, tensors that require grad or carry a
``grad_fn``, a leaf's ``.grad``.

Each program is a few independent blocks (fuzz_wide's Wide: names and ``guarded``).
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_wide import Wide  # noqa: E402

FLOATS = ["torch.float32", "torch.float64", "torch.float16"]
INTS = ["torch.int64", "torch.int32", "torch.int16", "torch.int8", "torch.uint8"]
SPECIAL = ["float('nan')", "float('inf')", "-float('inf')", "-0.0", "0.0"]
SHAPES = [(), (0,), (1,), (3,), (7,), (2, 3), (4, 1), (1, 5), (3, 0), (2, 2, 2), (2, 1, 3), (1, 2, 2, 2),
          (12,), (4, 9), (2, 3, 4)]
BIG_SHAPES = [(1001,), (40, 30), (5, 300), (3, 20, 20), (2001,), (11, 11, 11)]
PROFILES = ["'default'", "'short'", "'full'"]


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class Repr(Wide):
    def number(self):
        r = self.r
        k = r.random()
        if k < 0.15:
            return r.choice(SPECIAL)
        if k < 0.35:
            return str(float(r.randint(-1000, 1000)))
        if k < 0.5:
            return repr(r.choice([1e-4, 9.9999e-5, 1e8, 99999999.0, 1e-5, 0.0001234, 123456789.0, 1e16, 1e-16,
                                  65504.0, 6e-5, 1e38, 3.4e38, 1e-38, 0.5, 0.1, 1 / 3]) * r.choice([1, -1]))
        m = round(r.uniform(-10, 10), r.randint(0, 6))
        return f"{m}e{r.randint(-12, 12)}"

    def literal(self, shape, dtype):
        """torch.tensor(nested list) of border values, or a factory for the shapes past the threshold."""
        r = self.r
        if numel(shape) > 60:
            n = self.name("t")
            scale = self.number() if r.random() < 0.5 else "1"
            k = r.random()
            sh = ", ".join(map(str, shape))
            if k < 0.4:
                self.emit(f"{n} = torch.arange({numel(shape)}, dtype=torch.float64).reshape({sh}) * {scale}")
            elif k < 0.7:
                self.emit(f"torch.manual_seed({r.randrange(1000)})", f"{n} = torch.randn({sh}, dtype=torch.float64) * {scale}")
            else:
                self.emit(f"{n} = torch.linspace(-{r.randint(1, 10 ** 6)}, {r.randint(1, 10 ** 6)}, {numel(shape)},"
                          f" dtype=torch.float64).reshape({sh})")
            if r.random() < 0.4:
                self.emit(f"{n}.view(-1)[{r.randrange(numel(shape))}] = {r.choice(SPECIAL)}")
            self.emit(f"{n} = {n}.to({dtype})")
            return n

        def nest(dims):
            if not dims:
                return self.number() if dtype not in INTS + ["torch.bool"] else \
                    (str(r.randint(-130, 300)) if dtype != "torch.bool" else r.choice(["True", "False"]))
            return "[" + ", ".join(nest(dims[1:]) for _ in range(dims[0])) + "]"
        n = self.name("t")
        if 0 in shape:
            self.emit(f"{n} = torch.empty({', '.join(map(str, shape))}, dtype={dtype})")
        else:
            data = nest(list(shape))
            if dtype in INTS and dtype != "torch.int64":  # out-of-range literals: made in int64 then cast
                self.emit(f"{n} = torch.tensor({data}).to({dtype})")
            else:
                self.emit(f"{n} = torch.tensor({data}, dtype={dtype})")
        return n

    def options(self):
        r = self.r
        if r.random() < 0.25:
            self.emit(f"torch.set_printoptions(profile={r.choice(PROFILES)})")
            return
        parts = []
        for key, val in [("precision", lambda: str(r.randint(0, 10))),
                         ("sci_mode", lambda: r.choice(["True", "False", "None"])),
                         ("linewidth", lambda: str(r.choice([10, 20, 40, 60, 80, 120, 200]))),
                         ("threshold", lambda: str(r.choice([3, 5, 10, 50, 1000, 5000]))),
                         ("edgeitems", lambda: str(r.randint(1, 5)))]:
            if r.random() < 0.4:
                parts.append(f"{key}={val()}")
        self.emit(f"torch.set_printoptions({', '.join(parts)})")

    def shown(self, t, floating):
        """One print route for tensor t."""
        r = self.r
        forms = [f"print({t})", f"print(repr({t}))", f"print(str({t}))", f"print(f'{{{t}}}')", f"{t}",
                 f"print([{t}, {t}])", f"print({{'a': {t}}})", f"print(({t},))", f"print({t}.tolist())",
                 f"print({t}.shape, {t}.dtype)"]
        if floating:
            forms += [f"print({t} * 1e10)", f"print({t} / 3)", f"print({t} * 1e-10)", f"print({t}.exp())",
                      f"print({t}.abs().sqrt())", f"print({t}.round())", f"print({t}.half())", f"print({t}.double())",
                      f"print({t}.clone().requires_grad_())", f"print({t}.clone().requires_grad_() * 2)",
                      f"print(torch.nn.Parameter({t}.float()))", f"print({t}.float().mean())"]
        else:
            forms += [f"print({t} * 1000)", f"print({t} // 7)", f"print({t}.float() / 7)", f"print({t}.sum())"]
        self.guarded(r.choice(forms))

    def scalar_forms(self, t, floating):
        r = self.r
        specs = [":.3f", ":.2e", ":g", ":10.4f", ":+.1f", ":>12", ":.0f", ":e", ":%", ":.3g"]
        e = f"{t}.reshape(-1)[0]" if r.random() < 0.7 else f"{t}.sum()"
        forms = [f"print({e}.item())", f"print(f'{{{e}.item(){r.choice(specs)}}}')", f"print(f'{{{e}{r.choice(specs)}}}')",
                 f"print(float({e}), int({e}) if {e}.isfinite() else None)", f"print({e})", f"print(repr({e}))",
                 f"print(format({e}, '{r.choice(specs)[1:]}'))"]
        self.guarded(r.choice(forms))

    # ------------------------------------------------------------------ blocks
    def block_values(self):
        r = self.r
        if r.random() < 0.6:
            self.options()
        floating = r.random() < 0.7
        dtype = r.choice(FLOATS) if floating else r.choice(INTS + ["torch.bool"])
        shape = r.choice(BIG_SHAPES) if r.random() < 0.15 else r.choice(SHAPES)
        t = self.literal(shape, dtype)
        for _ in range(r.randint(1, 3)):
            self.shown(t, floating)
        if numel(shape):
            self.scalar_forms(t, floating and dtype != "torch.bool")

    def block_grad(self):
        r = self.r
        if r.random() < 0.5:
            self.options()
        x = self.literal(r.choice([(3,), (2, 3), (), (1,)]), r.choice(["torch.float32", "torch.float64"]))
        self.emit(f"{x}.requires_grad_()")
        y = self.name("y")
        op = r.choice([f"({x} * 1e6).sum()", f"({x} ** 2).sum()", f"({x}.exp() * 1e-7).sum()",
                       f"({x} / 1e-9).mean()", f"{x}.abs().sum()", f"({x} * {x}.detach() * 1e20).sum()"])
        self.guarded(f"{y} = {op}", f"print({y})", f"{y}.backward()", f"print({x}.grad)",
                     f"print(f'{{{x}.grad}}')", f"print({x})")

    def block_reset(self):
        self.emit("torch.set_printoptions(profile='default', sci_mode=None)")
        self.block_values()


BLOCKS = ["block_values", "block_values", "block_values", "block_grad", "block_reset"]


def generate_repr(seed: int, index: int) -> str:
    r = random.Random(f"repr:{seed}:{index}")
    w = Repr(r)
    for _ in range(r.randint(2, 5)):
        getattr(w, r.choice(BLOCKS))()
    return "\n".join(w.lines) + "\n"
