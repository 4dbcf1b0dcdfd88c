"""One declaration per op (issue 22): everything gradcli knows about an op is said once.

The node class (one per PyTorch node, `function.py`) carries what belongs to a node: its kernel
(`forward`), its backward, its grad_fn name (the class name), the words of `--explain`
(`explain`: a template, or one per input) and the replay of `--check` (its `forward`, or
`replay(xs, kw, outs)` when the forward is not a plain array function). The op's declaration,
`op(...)`, next to its function in the family module, carries the rest: its Python names (Tensor
method, `torch.X`, `torch.special.X`, `torch.nn.functional.X`, the in-place form `x.X_()` and
`torch.X_`, the Python operator: `operator="+"`, or indexing: `"[]"`, `"[]="`; a property:
`prop=True`), the node classes it records, and how the gradient checks call it (`Sample`: input
shapes and domain) or why it has none (`no_grad`).

From the declarations a family hands to `tables()` come its registration tables (METHODS,
INPLACE, TORCH, SPECIAL, FUNCTIONAL: what `methods.py`, `api.py` and `nn` bind), and `REGISTRY`
(name -> OpSpec) is what the graph tools and the tests read: the gradcheck list of
tests/test_gradcheck.py is made of the declared samples, and tests/test_opdecl.py checks that every declared
node has its grad_fn name, words and replay.

Adding an op: its node class (with `explain`) and its function in a family module, one `op(...)`
in that module's declaration list, and its golden (docs/architecture.md, "How to add an op").
"""
from __future__ import annotations

from dataclasses import field

from ...records import record

# the input shapes of the gradient checks, by name: a list of variants, one tuple of shapes each
SHAPES = {
    "unary": [((),), ((3,),), ((2, 3),)],
    "binary": [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2, 2)), ((2, 1), (1, 3))],  # with broadcasting
    "reduce": [((3,),), ((2, 3),), ((2, 2, 2),)],                                # reductions, scans
}


@record(frozen=True)  # a frozen dataclass, made for less start-up time (gradcli/records.py)
class Sample:
    """How the gradient checks call an op: on float64 inputs of `shapes` (a SHAPES name, which op()
    replaces by its list, or a list of variants) drawn from `domain` (one per input, the last one repeats: "any", "pos", "unit",
    "gt1", "prob", ...), followed by `args` and `kwargs`; `call(torch, *inputs)` instead when the
    plain call does not suit. second: also check the second order."""
    shapes: object = "unary"
    domain: tuple = ("any",)
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    call: object = None
    eps: float = 1e-6
    atol: float = 1e-5
    rtol: float = 1e-3
    second: bool = True


class V:
    """The fixed inputs of the declared regression cases (`case`): values chosen to reach an op's
    interesting places (both sides of an activation's bends, a zero in a product, ...)."""
    A = [0.3, -0.7, 1.2, -1.9, 0.45]
    B = [0.9, 0.4, -0.6, 1.5, -0.2]
    P = [0.15, 0.45, 0.6, 0.85, 0.3]
    Q = [0.3, -0.7, 0.9, -0.05, 0.5]
    M23 = [[0.3, -0.7, 1.2], [-1.9, 0.45, 0.8]]
    M33 = [[2.0, 0.5, -0.3], [0.4, 1.5, 0.2], [-0.1, 0.3, 1.8]]
    W = [1.3, 2.7, 1.05, 4.0]
    WIDE = [-3.5, -2.2, -0.8, 0.4, 1.7, 2.6, 3.9]


@record(frozen=True)  # a frozen dataclass, made for less start-up time (gradcli/records.py)
class Case:
    """A regression gradient check of an op at fixed inputs (tests/test_ops_breadth.py): call(torch,
    *tensors) on float64 tensors of `inputs` (nested lists), first and (second) second order."""
    call: object
    inputs: tuple
    second: bool = True


def case(call, *inputs, second=True):
    """A declaration's regression case (OpSpec.cases): call(torch, *tensors) at these inputs."""
    return Case(call, inputs, second)


def sample1(domain="any", *args, **kwargs):
    """The Sample of a unary elementwise op (kwargs: the op's keyword arguments, or Sample's fields)."""
    return _sample("unary", (domain,), args, kwargs)


def sample2(d1="any", d2="any", *args, **kwargs):
    """The Sample of a binary elementwise op (with broadcasting, and a 0-d operand)."""
    return _sample("binary", (d1, d2), args, kwargs)


def _sample(shapes, domain, args, kwargs):
    own = {k: kwargs.pop(k) for k in ("call", "eps", "atol", "rtol", "second") if k in kwargs}
    return Sample(shapes, domain, args, kwargs, **own)


@record(frozen=True)  # a frozen dataclass, made for less start-up time (gradcli/records.py)
class OpSpec:
    name: str
    fn: object                   # the function, taking the tensor first
    nodes: tuple = ()            # the node classes it records (their names are its grad_fn names)
    method: bool = True          # Tensor.name (and torch.name unless torch=False)
    torch: bool = True           # torch.name
    aliases: tuple = ()          # other names of the same function, bound wherever name is
    inplace: object = False      # x.name_(): the op on x's original value, written back into x, by the
    #                              family's wrapper (True) or by one of INPLACE_KINDS (another family's op)
    inplace_node: object = None  # the node class x.name_() records instead (torch's XBackward1)
    torch_inplace: bool = False  # torch.name_(x, ...) is x.name_(...)
    special: tuple = ()          # its names under torch.special
    linalg: tuple = ()           # its names under torch.linalg
    functional: bool = False     # torch.nn.functional.name
    sample: Sample | None = None  # how the gradient checks call it
    no_grad: str = ""            # why it has no gradient check (integer or bool results, ...)
    key: str = ""                # its REGISTRY key when not its name ("F.relu": torch.relu is another op)
    cases: tuple = ()            # (name, Case) pairs: regression gradchecks at fixed inputs (op(cases={...}))
    operator: str = ""           # the Python operator it is on Tensor ("+", "@", "<", "-x", "abs", "~", "[]"): its
    #                              dunders (x + y, y + x, x += y; x[k]) follow (engine/operators.py)
    reflected: object = None     # `y OP x` when it is not the op with its operands swapped: f(x, y), or
    #                              True when the op commutes
    prop: bool = False           # Tensor.name is a property (x.T), not a method
    python_method: bool = False  # torch/_tensor.py defines Tensor.name in Python: its TypeErrors say Tensor.name()
    #                              (methods.py binds a copy of fn under that qualname)

    @property
    def names(self):
        return (self.name, *self.aliases)

    def call(self, torch, inputs, name=None):
        """The op called as the gradient checks call it, on `torch` (gradcli's api or PyTorch)."""
        s = self.sample
        if s.call is not None:
            return s.call(torch, *inputs)
        name = name if name in self.names else self.name
        if self.torch:
            fn = getattr(torch, name)
        elif self.method:
            return getattr(inputs[0], name)(*inputs[1:], *s.args, **s.kwargs)
        elif self.special:
            fn = getattr(torch.special, self.special[0])
        elif self.linalg:
            fn = getattr(torch.linalg, self.linalg[0])
        else:
            fn = getattr(torch.nn.functional, name)
        return fn(*inputs, *s.args, **s.kwargs)


REGISTRY: dict[str, OpSpec] = {}
CASES: dict[str, Case] = {}  # every declaration's regression cases, by name (tests/test_ops_breadth.py)

# in-place wrappers a declaration may name instead of its family's (inplace="copy"), in ops/inplace_kinds.py
# (special_common.py's for copy):
# copy: the op computed on a copy of x's original value (what the node saves), written back;
# compare: x.eq_(y) ... (x gets 0/1 in its own dtype, EqBackward0/1 ...); logical: x.logical_and_(y) ... (no node)
INPLACE_KINDS = ("copy", "compare", "logical")


def python_methods():
    """Names of the Tensor methods torch/_tensor.py defines in Python (declared python_method=True)."""
    return {spec.name for spec in REGISTRY.values() if spec.python_method}


def inplace_wrapper(kind):
    from . import inplace_kinds, special_common  # noqa: PLC0415 - they import the families that name them
    return {"copy": special_common.inplace_method, "compare": inplace_kinds.compare_inplace,
            "logical": inplace_kinds.logical_inplace}[kind]


def op(name, fn, *nodes, aliases=(), special=(), linalg=(), **kw):
    """Declare the op `name` (see OpSpec); special=True: torch.special.name (linalg alike)."""
    special, linalg = (((name,) if n is True else (n,) if isinstance(n, str) else tuple(n)) for n in (special, linalg))
    if kw.get("inplace", False) not in (False, True, *INPLACE_KINDS):
        raise ValueError(f"op {name}: inplace is True, False or one of {INPLACE_KINDS}")
    kw["cases"] = tuple(kw.get("cases", {}).items())
    s = kw.get("sample")
    if s is not None and isinstance(s.shapes, str):  # a SHAPES name: its variants (a typo fails here)
        if s.shapes not in SHAPES:
            raise ValueError(f"op {name}: no input shapes named {s.shapes!r} (registry.SHAPES)")
        kw["sample"] = Sample(SHAPES[s.shapes], s.domain, s.args, s.kwargs, s.call, s.eps, s.atol, s.rtol, s.second)
    spec = OpSpec(name, fn, tuple(nodes), aliases=tuple(aliases), special=special, linalg=linalg, **kw)
    if (spec.sample is None) == (not spec.no_grad):
        raise ValueError(f"op {name}: an op needs a gradient-check sample, or why it has none (no_grad), not both")
    return spec


def lazy_inplace(fn, name, node):
    """The in-place wrapper of a family loaded on first use (special_common.inplace_method), imported at the
    first in-place binding: a family module imports no other family at its own import."""
    from .special_common import inplace_method  # noqa: PLC0415
    return inplace_method(fn, name, node)


def tables(specs, inplace_method):
    """Register a family's declarations; its binding tables, derived from them:
    METHODS (Tensor.X, also torch.X), INPLACE (x.X_()), TORCH (torch.X only, torch.X_),
    SPECIAL (torch.special.X), LINALG (torch.linalg.X), FUNCTIONAL (torch.nn.functional.X,
    bound by nn) and METHOD_ONLY (the METHODS that are no torch.X). inplace_method(fn, name, node):
    the in-place wrapper of the family (a declaration's inplace="copy"... names another)."""
    out = {"METHODS": {}, "INPLACE": {}, "TORCH": {}, "SPECIAL": {}, "LINALG": {}, "FUNCTIONAL": {}, "METHOD_ONLY": []}
    for spec in specs:
        for name in spec.names:
            key = spec.key if spec.key and name == spec.name else name
            if key in REGISTRY and REGISTRY[key] is not spec:
                raise ValueError(f"op {key} declared twice")
            REGISTRY[key] = spec
            if spec.method:
                out["METHODS"][name] = property(spec.fn) if spec.prop else spec.fn
                if not spec.torch:
                    out["METHOD_ONLY"].append(name)
            elif spec.torch:
                out["TORCH"][name] = spec.fn
            if spec.functional:
                out["FUNCTIONAL"][name] = spec.fn
            if spec.inplace:
                wrap = inplace_method if spec.inplace is True else inplace_wrapper(spec.inplace)
                wrapper = wrap(spec.fn, name + "_", spec.inplace_node)
                out["INPLACE"][name + "_"] = wrapper
                if spec.torch_inplace:
                    out["TORCH"][name + "_"] = _torch_inplace(wrapper, name + "_")
        for name in spec.special:
            out["SPECIAL"][name] = spec.fn
        for name in spec.linalg:
            out["LINALG"][name] = spec.fn
        for case_name, c in spec.cases:
            if CASES.get(case_name, c) is not c:
                raise ValueError(f"case {case_name} declared twice")
            CASES[case_name] = c
    return out


def _torch_inplace(method, name):
    """torch.name_(input, ...): x.name_(...) called as torch calls it (input may be a keyword)."""
    def fn(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    return fn


def nodes():
    """Every declared node class, with the op that records it."""
    return {cls: spec for spec in REGISTRY.values() for cls in (*spec.nodes, *_opt(spec.inplace_node))}


def _opt(x):
    return () if x is None else (x,)
