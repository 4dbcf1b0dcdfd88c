"""The random-number cases: each is a function of a torch-like namespace (real torch, or
gradcli.engine.api) returning the tensors it drew; tools/gen_random_goldens.py records what torch
2.13 returns (the bytes, under each CPU capability), tests/test_random.py checks gradcli bit for bit.

Every case seeds first and ends with the generator's 5,056 state bytes, so the count of words each
function consumes is checked as well as its values."""
from __future__ import annotations

import hashlib

SIZES = (1, 5, 15, 16, 17, 31, 33, 100)
FLOATS = ("float32", "float64", "float16")


def observe(torch, values, full=False):
    """Each tensor as (dtype, shape, sha256 of its bytes, first bytes in hex: all of them when full);
    other values as repr."""
    out = []
    for v in values:
        if hasattr(v, "numpy") and hasattr(v, "dtype"):
            a = v.detach().cpu().contiguous().numpy() if hasattr(v, "detach") else v.numpy()
            raw = a.tobytes()
            out.append([str(v.dtype), list(a.shape), hashlib.sha256(raw).hexdigest()[:24], (raw if full else raw[:64]).hex()])
        else:
            out.append(repr(v))
    return out


def run_case(torch, fn, full=False):
    torch.manual_seed(0)
    try:
        values = list(fn(torch))
    except Exception as e:  # noqa: BLE001 - the error text is an observation
        return [f"raised: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"]
    values.append(torch.get_rng_state())
    return observe(torch, values, full)


CASES = {}


def case(name):
    def deco(fn):
        CASES[name] = fn
        return fn
    return deco


def _dt(torch, name):
    return getattr(torch, name)


def _layouts(torch, dtype, n):
    """A tensor of n elements (or about) as contiguous, transposed and strided views."""
    base = torch.zeros(2, n, dtype=dtype)
    return {"contig": torch.zeros(n, dtype=dtype), "transposed": base.t(), "strided": base[:, ::2]}


def _family():
    for dname in FLOATS:
        for n in SIZES:
            CASES[f"randn_{dname}_{n}"] = (lambda d, k: lambda t: [t.randn(k, dtype=_dt(t, d))])(dname, n)
            CASES[f"rand_{dname}_{n}"] = (lambda d, k: lambda t: [t.rand(k, dtype=_dt(t, d))])(dname, n)
            for layout in ("contig", "transposed", "strided"):
                CASES[f"normal__{layout}_{dname}_{n}"] = (lambda d, k, lay: lambda t: [
                    _layouts(t, _dt(t, d), k)[lay].normal_(0.5, 2.0)])(dname, n, layout)
                CASES[f"uniform__{layout}_{dname}_{n}"] = (lambda d, k, lay: lambda t: [
                    _layouts(t, _dt(t, d), k)[lay].uniform_(-0.3, 0.7),
                    _layouts(t, _dt(t, d), k)[lay].uniform_(-0.41, 0.41),
                    _layouts(t, _dt(t, d), k)[lay].uniform_(2.0, 5.5)])(dname, n, layout)
    for n in (1, 7, 40):
        for lo, hi in ((0, 10), (-5, 5), (0, 1 << 28), (3, 1 << 40), (-(1 << 62), 1 << 62)):
            CASES[f"randint_{lo}_{hi}_{n}"] = (lambda a, b, k: lambda t: [t.randint(a, b, (k,))])(lo, hi, n)
        for dname in ("int32", "float32", "float64", "uint8"):
            CASES[f"randint_{dname}_{n}"] = (lambda d, k: lambda t: [t.randint(0, 200, (k,), dtype=_dt(t, d))])(
                dname, n)
    for dname in ("int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64", "float16"):
        CASES[f"random__{dname}"] = (lambda d: lambda t: [t.zeros(20, dtype=_dt(t, d)).random_()])(dname)
        if dname != "bool":
            CASES[f"random_to_{dname}"] = (lambda d: lambda t: [t.zeros(20, dtype=_dt(t, d)).random_(100)])(dname)
            CASES[f"random_from_to_{dname}"] = (lambda d: lambda t: [
                t.zeros(3, 7, dtype=_dt(t, d)).t().random_(3, 90)])(dname)
    for n in (0, 1, 2, 5, 17, 300):
        CASES[f"randperm_{n}"] = (lambda k: lambda t: [t.randperm(k)])(n)


_family()


@case("randperm_float32")
def _(t):
    return [t.randperm(9, dtype=t.float32)]


@case("randint_forms")
def _(t):
    return [t.randint(7, (3,)), t.randint(2, 9, (2, 3)), t.randint(5, size=(4,)), t.randint_like(t.zeros(5), 10),
            t.randint_like(t.zeros(2, 2), 3, 8)]


@case("like_forms")
def _(t):
    x = t.zeros(4, 5)
    return [t.randn_like(x), t.rand_like(x), t.randn_like(x, dtype=t.float64), t.rand_like(t.zeros(20).double())]


@case("normal_overloads")
def _(t):
    m = t.arange(20.0)
    s = t.linspace(0.1, 2.0, 20)
    return [t.normal(m, s), t.normal(m, 0.5), t.normal(2.0, s), t.normal(1.0, 3.0, (5,)), t.normal(1.0, 3.0, (2, 9)),
            t.normal(t.zeros(3), t.ones(3)), t.normal(m.double(), 2.0)]


@case("normal_errors")
def _(t):
    return [t.zeros(3).normal_(0, -1.0)]


@case("uniform_error")
def _(t):
    return [t.zeros(3).uniform_(2.0, 1.0)]


@case("large_chunks")
def _(t):
    # past the engine's chunk sizes (16,384 and 65,536 values), ragged ends, and normal_ with a std and
    # mean whose fused multiply-add often lands on a float32 tie
    return [t.randn(70003), t.randn(70003, dtype=t.float64), t.zeros(70000).normal_(0.5, 2.0),
            t.zeros(66000).normal_(-1e-3, 0.02), t.zeros(70001).uniform_(-0.3, 0.7), t.zeros(70000).uniform_(0.0, 2.0),
            t.rand(70000, dtype=t.float64), t.zeros(70000, dtype=t.float64).uniform_(-1.5, 2.5),
            t.zeros(70000, dtype=t.float64).normal_(1.0, 3.0), t.randn(70000, dtype=t.float16),
            t.zeros(70000, dtype=t.float16).uniform_(-2.0, 2.0), t.nn.Linear(300, 256).weight.detach()]


@case("normal_cache_mixed_order")
def _(t):
    # randn(3) leaves a cached sample; randn(20) (the block path) leaves it; randn(1) uses it
    return [t.randn(3), t.randn(20), t.randn(1), t.randn(2), t.rand(3), t.randn(5, dtype=t.float64), t.randn(1)]


@case("cache_cleared_by_seed")
def _(t):
    t.randn(1)
    t.manual_seed(0)
    return [t.randn(1)]


@case("bernoulli_forms")
def _(t):
    p32 = t.linspace(0.0, 1.0, 21)
    return [t.bernoulli(p32), t.bernoulli(p32.double()), t.bernoulli(t.zeros(3, 4), 0.3),
            t.zeros(5, 4).bernoulli_(0.6), t.zeros(4, 5).t().bernoulli_(0.6), t.zeros(21).bernoulli_(p32),
            t.zeros(4, 5).t().bernoulli_(t.linspace(0.05, 0.95, 20).reshape(5, 4)),
            t.bernoulli(p32.half())]


@case("multinomial_forms")
def _(t):
    p = t.tensor([0.1, 0.5, 0.05, 0.35])
    p2 = t.tensor([[1.0, 2.0, 3.0, 4.0, 0.0], [0.5, 0.0, 0.2, 0.2, 0.1]])
    return [t.multinomial(p, 1), t.multinomial(p, 3), t.multinomial(p, 10, replacement=True),
            t.multinomial(p2, 2), t.multinomial(p2, 6, replacement=True), t.multinomial(p2.double(), 3),
            t.multinomial(p2.double(), 7, True), t.multinomial(p, 1, replacement=True)]


@case("multinomial_many_rows")
def _(t):
    w = t.rand(300, 50) * (t.rand(300, 50) > 0.3)  # zero entries too
    w[:, 0] += 1e-3
    out = [t.multinomial(w, 20, replacement=True), t.multinomial(w.double(), 7, True),
           t.multinomial(t.ones(2, 1), 4, True)]
    bad = t.ones(5, 3)
    bad[3, 1] = -1.0
    try:
        t.multinomial(bad, 4, True)
    except Exception as e:  # noqa: BLE001 - the rows before the bad one drew: the state shows it
        out.append(str(e).splitlines()[0])
    zero = t.ones(4, 3)
    zero[2] = 0.0
    try:
        t.multinomial(zero, 2, True)
    except Exception as e:  # noqa: BLE001
        out.append(str(e).splitlines()[0])
    return out + [t.rand(3)]


@case("inplace_on_leaf_draws_nothing")
def _(t):
    # torch's autograd layer refuses before the kernel runs: the stream does not move
    out = []
    for dt in (t.float32, t.float64):
        for n in (40, 5):
            for op in (lambda w: w.uniform_(), lambda w: w.normal_(), lambda w: w.normal_(0.5, 2.0),
                       lambda w: w.exponential_(), lambda w: w.bernoulli_(0.3), lambda w: w.random_(0, 10),
                       lambda w: w.geometric_(0.3), lambda w: w.log_normal_(), lambda w: w.cauchy_(),
                       lambda w: w.exponential_(-1.0)):
                try:
                    op(t.zeros(n, dtype=dt, requires_grad=True))
                except Exception as e:  # noqa: BLE001 - the message is an observation
                    out.append(str(e).splitlines()[0][:60])
    return out + [t.rand(3)]


@case("distribution_methods")
def _(t):
    return [t.zeros(17).exponential_(), t.zeros(5).exponential_(2.5), t.zeros(6).double().exponential_(0.5),
            t.zeros(9).geometric_(0.3), t.zeros(4, 5).t().geometric_(0.7), t.zeros(9).log_normal_(),
            t.zeros(20).log_normal_(0.5, 0.25), t.zeros(9).cauchy_(), t.zeros(9).double().cauchy_(1.0, 2.0)]


@case("generator_objects")
def _(t):
    g = t.Generator()
    a = t.randn(4, generator=g)
    g.manual_seed(7)
    b = t.rand(20, generator=g)
    c = t.randn(3)  # the default stream is untouched by g
    s = g.get_state()
    d = t.randn(17, generator=g)
    g.set_state(s)
    e = t.randn(17, generator=g)
    return [a, b, c, d, e, s, t.randint(0, 9, (5,), generator=g), t.randperm(6, generator=g),
            t.zeros(5).uniform_(generator=g), t.zeros(5).normal_(generator=g), t.multinomial(t.ones(4), 2, generator=g),
            t.bernoulli(t.full((4,), 0.5), generator=g), g.initial_seed(), t.Generator().initial_seed()]


@case("seeds_wrap")
def _(t):
    out = []
    for s in (-1, -(1 << 63), (1 << 64) - 1, 1 << 32, 123456789012345):
        t.manual_seed(s)
        out += [t.initial_seed(), t.randn(2), t.get_rng_state()]
    return out


@case("state_roundtrip")
def _(t):
    t.randn(5)
    s = t.get_rng_state()
    a = t.randn(30)
    t.set_rng_state(s)
    return [s, a, t.randn(30)]


@case("nn_default_init")
def _(t):
    nn = t.nn
    lin = nn.Linear(5, 3)
    big = nn.Linear(40, 30)
    nob = nn.Linear(6, 4, bias=False)
    c1 = nn.Conv1d(3, 4, 3)
    c2 = nn.Conv2d(2, 3, (3, 2), groups=1)
    c2g = nn.Conv2d(4, 4, 3, groups=2)
    bil = nn.Bilinear(3, 4, 2)
    emb = nn.Embedding(10, 3, padding_idx=1)
    return [lin.weight, lin.bias, big.weight, big.bias, nob.weight, c1.weight, c1.bias, c2.weight, c2.bias,
            c2g.weight, bil.weight, bil.bias, emb.weight]


@case("nn_double_init")
def _(t):
    lin = t.nn.Linear(20, 3, dtype=t.float64)
    return [lin.weight, lin.bias]


@case("nn_init_functions")
def _(t):
    init = t.nn.init
    w = t.zeros(6, 7)
    return [init.uniform_(t.zeros(20), -2.0, 3.0), init.normal_(t.zeros(20), 0.5, 2.0), init.xavier_uniform_(w),
            init.xavier_normal_(w, gain=2.0), init.kaiming_uniform_(w, a=0.1), init.kaiming_normal_(w, mode="fan_out"),
            init.kaiming_uniform_(t.zeros(3, 4, 2, 2), nonlinearity="relu"), init.trunc_normal_(t.zeros(30)),
            init.trunc_normal_(t.zeros(30), mean=1.0, std=0.5, a=-0.5, b=0.5), init.sparse_(t.zeros(5, 3), 0.4)]


# QR through LAPACK: NumPy's and torch's may round the last bits differently (compared within 1e-5)
TOLERANT = {"nn_init_orthogonal"}


@case("nn_init_orthogonal")
def _(t):
    init = t.nn.init
    return [init.orthogonal_(t.zeros(3, 5)), init.orthogonal_(t.zeros(6, 4), gain=2.0),
            init.orthogonal_(t.zeros(4, 2, 3))]


@case("dropout_forms")
def _(t):
    nn, F = t.nn, t.nn.functional
    d = nn.Dropout(0.3)
    x = t.ones(4, 5)
    out = [d(x), F.dropout(t.ones(3, 4).t(), 0.5), F.dropout(t.ones(20, dtype=t.float64), 0.2),
           F.dropout(t.ones(10), 0.5, training=False), F.dropout(t.ones(5), 1.0), F.dropout(t.ones(6) * 3, 0.1),
           F.dropout(t.ones(40, dtype=t.float16), 0.18577770618460315), F.dropout(t.ones(9, dtype=t.float16), 0.3)]
    d.eval()
    out.append(d(x))
    return out


@case("alpha_dropout")
def _(t):
    F = t.nn.functional
    x = t.randn(4, 5, requires_grad=True)
    y = F.alpha_dropout(x, 0.3, training=True)
    y.sum().backward()
    return [y, x.grad, F.alpha_dropout(t.ones(20, dtype=t.float64), 0.5, True), F.alpha_dropout(t.ones(3), 0.5),
            F.alpha_dropout(t.ones(4, 3).t(), 0.2, True)]


@case("feature_dropouts")
def _(t):
    nn, F = t.nn, t.nn.functional
    x = t.ones(2, 3, 2, 2)
    return [nn.Dropout2d(0.5)(x), F.dropout1d(t.ones(3, 4), 0.5), F.dropout1d(t.ones(2, 3, 4), 0.3),
            nn.Dropout3d(0.4)(t.ones(2, 2, 1, 2, 2)), F.dropout3d(t.ones(2, 1, 2, 2), 0.4),
            nn.AlphaDropout(0.2)(t.ones(6)), nn.FeatureAlphaDropout(0.3)(t.ones(2, 3, 2)),
            F.dropout2d(t.ones(4, 3, 2, dtype=t.float64), 0.25)]


@case("graph_nodes")
def _(t):
    m, s = t.zeros(3, requires_grad=True), t.ones(3, requires_grad=True)
    a, b, c = t.normal(m, 1.0), t.normal(0.0, s), t.normal(m, s)
    (a.sum() + b.sum() + c.sum()).backward()
    out = [a, b, c, a.grad_fn.name(), b.grad_fn.name(), c.grad_fn.name(), m.grad, s.grad]
    x = t.zeros(3, requires_grad=True).clone()
    for call in (lambda: x.uniform_(), lambda: x.normal_(), lambda: x.bernoulli_(0.5),
                 lambda: x.bernoulli_(t.full((3,), 0.3)), lambda: x.random_(3), lambda: x.random_(),
                 lambda: x.random_(1, 4), lambda: x.exponential_(), lambda: x.cauchy_(), lambda: x.log_normal_(),
                 lambda: x.geometric_(0.5)):
        call()
        out += [x.grad_fn.name(), x.detach().clone()]
    return out


@case("leaf_inplace_error")
def _(t):
    return [t.zeros(2, requires_grad=True).normal_()]


@case("torch_random_module")
def _(t):
    t.random.manual_seed(3)
    a = t.randn(2)
    s = t.random.get_rng_state()
    b = t.rand(3)
    t.random.set_rng_state(s)
    return [a, b, t.rand(3), t.random.initial_seed(), t.random.default_generator.initial_seed()]


def state_draws(t):
    """What the state-bytes goldens draw after loading a state saved by torch."""
    return [t.randn(1), t.randn(5), t.randn(20), t.rand(3), t.randint(0, 100, (4,)), t.randn(2, dtype=t.float64)]


def all_cases():
    return dict(CASES)
