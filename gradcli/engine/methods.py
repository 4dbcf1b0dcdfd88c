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


# the breadth ops (issue 5): each of these families derives its own tables (Tensor methods, in-place forms and,
# for api.py, TORCH, METHOD_ONLY, LINALG, SPECIAL) from its declarations; a new family goes in BREADTH
from .ops import linalg_extra as _LX  # noqa: E402
from .ops import linalg_products as _LP  # noqa: E402
from .ops import linalg_svd as _LV  # noqa: E402
from .ops import einsum as _EI  # noqa: E402
from .ops import scan as _SC  # noqa: E402
from .ops import selection as _SEL  # noqa: E402
from .ops import norms as _NO  # noqa: E402
from .ops import index_ops as _IX  # noqa: E402
from .ops import misc_ops as _MX  # noqa: E402
from .ops import numeric_extra as _NX  # noqa: E402
from .ops import shape_extra as _SX  # noqa: E402
from .ops import special as _SP  # noqa: E402

BREADTH = (_SP, _SC, _SEL, _NO, _LX, _LP, _LV, _EI, _SX, _IX, _MX, _NX)
for _m in BREADTH:
    METHODS.update(_m.METHODS)
_BREADTH_INPLACE = {name: fn for _m in BREADTH for name, fn in _m.INPLACE.items()}


def _install():
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, fn in (item for t in _DECLARED for item in t["INPLACE"].items()):  # x.name_()
        setattr(Tensor, name, fn)
    # x + y, y + x, x += y, x[k], x[k] = v ...: every family's
    operators.install({id(s): s for s in registry.REGISTRY.values()}.values())


_install()
Tensor.real = property(I.real, I.set_real)  # getset descriptors in torch (no function of torch.Tensor)
Tensor.imag = property(I.imag, I.imag)
for _name, _fn in _rng_factory.TENSOR_METHODS.items():  # x.uniform_(), x.normal_(), ...: torch's random kernels
    setattr(Tensor, _name, _fn)
for _name, _fn in _BREADTH_INPLACE.items():  # x.name_() of the breadth ops: their own in-place wrappers
    setattr(Tensor, _name, _fn)


def _python_level_methods():
    """torch/_tensor.py defines some Tensor methods in Python (declared python_method=True), so their TypeErrors
    name them Tensor.split() where torch.split's say split(). The method is a copy of the same function (same
    code and defaults, no wrapper) under that qualname."""
    import types  # noqa: PLC0415
    for name in sorted(registry.python_methods()):
        fn = Tensor.__dict__.get(name)
        if isinstance(fn, types.FunctionType) and fn.__qualname__ == name:
            method = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
            method.__kwdefaults__ = fn.__kwdefaults__
            method.__dict__.update(fn.__dict__)
            method.__qualname__ = "Tensor." + name
            setattr(Tensor, name, method)


_python_level_methods()
