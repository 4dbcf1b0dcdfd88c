"""Binds the ops to Tensor as methods and Python operators (operators.py), so `torch.f(x, ...)` and `x.f(...)`
are one function. Importing this module completes the Tensor class."""
from __future__ import annotations

from .ops import arithmetic as AR
from .ops import clamp_where as CW
from .ops import comparison as CP
from .ops import conversion as C
from .ops import gather_scatter as GS
from .ops import inplace as P
from .ops import indexing as I
from .ops import join_split as JS
from .ops import linalg as L
from .ops import matmul as MM
from .ops import reduction as R
from .ops import shape as S
from .ops import softmax as SM
from .ops import unary_math as UM
from .arg_single import with_keywords, with_method_check, with_method_only_check
from .argcheck import METHOD_FORM, TENSOR_OTHER, as_method, tells_again, with_other_check
from .torch_signatures import KEYWORDS, METHOD_ONLY_SIGNATURES, SINGLE_METHOD_SIGNATURES
from .tensor import Tensor
from . import rng_factory as _rng_factory  # noqa: I001

from .ops import registry  # noqa: E402
from . import operators  # noqa: E402

# the ops of the core families (the elementwise ones: arithmetic.py, unary_math.py, clamp_where.py, comparison.py;
# reduction.py, softmax.py, shape.py, join_split.py, linalg.py, matmul.py, gather_scatter.py, conversion.py,
# indexing.py, inplace.py), derived from their declarations (ops/registry.py), with inplace.py's in-place wrappers
CORE = (AR, UM, CW, CP, R, SM, S, JS, L, MM, GS, C, I, P)
_DECLARED = [registry.tables(m.OPS, lambda fn, name, node: P.inplace(fn, name)) for m in CORE]
TORCH = {k: v for t in _DECLARED for k, v in t["TORCH"].items()}          # torch.X_ of some of them
SPECIAL = {k: v for t in _DECLARED for k, v in t["SPECIAL"].items()}      # torch.special.X
LINALG = {k: v for t in _DECLARED for k, v in t["LINALG"].items()}        # torch.linalg.X
METHOD_ONLY = frozenset(n for t in _DECLARED for n in t["METHOD_ONLY"])  # Tensor methods that are no torch.X

# name -> function taking the tensor first; the same objects are torch.<name>
METHODS = {k: v for t in _DECLARED for k, v in t["METHODS"].items()}


# the breadth ops (issue 5): each family (ops/<name>.py, its OPS) derives its own tables (Tensor methods, in-place
# forms and, for api.py, TORCH, METHOD_ONLY, LINALG, SPECIAL) from its declarations. They load on first use (issue
# 21, start-up time): op_names.py, generated from them (tools/gen_op_names.py), says which family binds each name;
# Tensor holds a stand-in for each of its attributes (OnFirstUse), api.py's namespaces look names up in the table.
# A new family goes in tools/gen_op_names.py's FAMILIES (the generated BREADTH keeps its order).
from .op_names import FAMILIES as BREADTH  # noqa: E402
from .op_names import TENSOR as _LAZY_TENSOR  # noqa: E402

_BOUND = {}     # family name -> its module, once bound
_BINDERS = []   # what else binds a family's names when it loads (api.py: torch.X, torch.linalg, torch.special)


def _method(name, fn):
    """The Tensor method `name` (an in-place one too: x.gcd_(y)): fn taking torch's keywords
    (arg_single.with_keywords), its arguments checked as its only signature's (torch_signatures'
    SINGLE_METHOD_SIGNATURES) under its own name, or a second argument that must be a Tensor
    (argcheck.TENSOR_OTHER); its argument errors told as the method's (argcheck.METHOD_FORM, and the methods
    whose signatures torch_signatures knows: argcheck.tells_again)."""
    texts = KEYWORDS.get("Tensor." + name)
    if texts is not None:
        fn = with_keywords(fn, texts, method=True)
    if name in METHOD_FORM:
        return as_method(fn, name)
    single = SINGLE_METHOD_SIGNATURES.get(name)
    if single is not None:
        fn = with_method_check(fn, name, single)
    elif name in TENSOR_OTHER:
        fn = with_other_check(fn, name, 1)
    elif name in METHOD_ONLY_SIGNATURES:
        fn = with_method_only_check(fn, name, METHOD_ONLY_SIGNATURES[name])
    spec = registry.REGISTRY.get(name)
    if (spec is not None and spec.python_method) or not tells_again(name):  # torch/_tensor.py's: no C++ parser
        return fn
    return as_method(fn, name)


def _install():
    for name, fn in METHODS.items():
        setattr(Tensor, name, _method(name, fn))
    for name, fn in (item for t in _DECLARED for item in t["INPLACE"].items()):  # x.name_()
        setattr(Tensor, name, _method(name, fn))
    # x + y, y + x, x += y, x[k], x[k] = v ...: the core families'
    operators.install({id(s): s for s in registry.REGISTRY.values()}.values())


_install()
Tensor.real = property(I.real, I.set_real)  # getset descriptors in torch (no function of torch.Tensor)
Tensor.imag = property(I.imag, I.imag)
for _name, _fn in _rng_factory.TENSOR_METHODS.items():  # x.uniform_(), x.normal_(), ...: torch's random kernels
    setattr(Tensor, _name, _fn)


def _python_level_methods(names):
    """torch/_tensor.py defines some Tensor methods in Python (declared python_method=True), so their TypeErrors
    name them Tensor.split() where torch.split's say split(). The method is a copy of the same function (same
    code and defaults, no wrapper) under that qualname."""
    import types  # noqa: PLC0415
    for name in sorted(names):
        fn = Tensor.__dict__.get(name)
        if isinstance(fn, types.FunctionType) and fn.__qualname__ == name:
            method = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
            method.__kwdefaults__ = fn.__kwdefaults__
            method.__dict__.update(fn.__dict__)
            method.__qualname__ = "Tensor." + name
            setattr(Tensor, name, method)


_python_level_methods(registry.python_methods())


def load_family(name):
    """The breadth family `name` (ops/<name>.py), imported and bound now if it is not yet: its Tensor
    methods, in-place forms and operators, and (_BINDERS) its torch.X, torch.linalg.X, torch.special.X."""
    module = _BOUND.get(name)
    if module is None:
        import importlib  # noqa: PLC0415
        module = importlib.import_module(f"{__package__}.ops.{name}")
        METHODS.update(module.METHODS)
        for attr, fn in module.METHODS.items():
            setattr(Tensor, attr, _method(attr, fn))
        for attr, fn in module.INPLACE.items():
            setattr(Tensor, attr, _method(attr, fn))
        operators.install(module.OPS)
        _python_level_methods(spec.name for spec in module.OPS if spec.python_method)
        _BOUND[name] = module
        for bind in _BINDERS:
            bind(module)
    return module


def load_all():
    """Every breadth family, bound (the tests and tools that walk every op; a script loads what it uses)."""
    for name in BREADTH:
        load_family(name)


def on_load(bind):
    """bind(module) for every breadth family bound so far, and for each one bound from now on."""
    _BINDERS.append(bind)
    for module in list(_BOUND.values()):
        bind(module)


class OnFirstUse:
    """Tensor's attribute `name` (a method, an in-place form, an operator) of a family not loaded yet: its
    first read loads the family, which puts the real attribute in its place (so `x.cumsum`,
    `Tensor.cumsum`, `hasattr`, `dir(x)` and `+x` answer as if it had been bound at start-up)."""

    __slots__ = ("name", "family")

    def __init__(self, name, family):
        self.name, self.family = name, family

    def __get__(self, obj, cls=None):
        load_family(self.family)
        if Tensor.__dict__.get(self.name) is self:  # (op_names.py is stale: tools/gen_op_names.py)
            raise AttributeError(f"'Tensor' object has no attribute '{self.name}'")
        return getattr(cls if obj is None else obj, self.name)


for _name, _family in _LAZY_TENSOR.items():
    setattr(Tensor, _name, OnFirstUse(_name, _family))
