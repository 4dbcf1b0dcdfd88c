"""The modified Bessel functions of the first kind: torch.i0 (torch.special.i0, i0_), torch.special.i0e, i1,
i1e, as ATen's CPU kernels compute them (ATen/native/Math.h: calc_i0, calc_i0e, calc_i1, calc_i1e, Cephes'
Chebyshev expansions over [0, 8] and (8, inf), with float's shorter coefficient tables for i1 and i1e),
step for step in the tensor's dtype: chbevl's `x * b1 - b2` contracted into one fused multiply-add (the AVX2
build's code; without it a quarter of the float32 values differ), the C library's exp (expf for float32).
Bit-equal to torch over 40,000 points of [-30, 30] and the edges (0, inf, nan, exp's overflow) in float32 and
float64 (tests/test_special_bessel.py). float16 is computed in float32 and rounded, as ATen upcasts it. The gradients are torch's formulas (derivatives.yaml: grad * i1(x) for i0, i1e(x) - sgn(x) i0e(x)
for i0e; FunctionsManual.cpp's i1_backward and i1e_backward, their 0.5 at |x| <= eps) on Tensors, so they
differentiate again.
"""
from __future__ import annotations

import numpy as np

from .. import errors
from ..argcheck import typename
from ..function import Function
from ..tensor import Tensor
from ..rng_math import fma32, fma64
from . import clamp_where as CW
from . import unary_math as UM
from .elementwise_common import unary
from .registry import V, case, sample1
from .registry import op as declare
from .special_common import TIP

# Cephes' coefficients (ATen's Math.h, chebyshev_coefficients_*): exp(-x) I0(x) on [0, 8], exp(-x) sqrt(x) I0(x)
# on (8, inf); the same for I1 (exp(-x) I1(x) / x on [0, 8]); float's I1 tables are the last 17 and 7 of these
_I0_A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
         1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
         -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
         9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
         -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
         1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
         -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
         1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
         -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
         1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
         3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
         1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
         -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
         7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
         -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
         3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
         2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
         8.04490411014108831608E-1)
_I1_A = (2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
         -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
         3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
         -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
         9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
         -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
         4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
         -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
         2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
         -1.76416518357834055153E-1, 2.52587186443633654823E-1)
_I1_B = (7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
         -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
         -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
         4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
         -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
         3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
         -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
         -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
         7.78576235018280120474E-1)


def _chbevl(x, coeffs):
    """Cephes' chbevl in x's dtype, `x * b1 - b2` fused."""
    t = x.dtype.type
    fma = fma32 if x.dtype == np.float32 else fma64
    b0 = np.full_like(x, t(coeffs[0]))
    b1 = np.zeros_like(x)
    b2 = b1
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = fma(x, b1, -b2) + t(c)
    return t(0.5) * (b0 - b2)


def _exp(x):
    from .. import rng_libm  # noqa: PLC0415
    return rng_libm.libm_f32("expf", x) if x.dtype == np.float32 else rng_libm.libm("exp", x)


def _host_float(kernel):
    """kernel over a float32/float64 array; float16 through float32 (ATen's upcast)."""
    def run(x):
        x = np.asarray(x)
        if x.dtype not in (np.float32, np.float64):
            return kernel(x.astype(np.float32)).astype(x.dtype)
        return kernel(x)
    return run


def _bessel(x, order, scaled):
    t = x.dtype.type
    ax = np.abs(x)
    small = ax <= 8
    if order == 0:
        a_coef, b_coef = _I0_A, _I0_B
    elif x.dtype == np.float32:
        a_coef, b_coef = _I1_A[12:], _I1_B[18:]
    else:
        a_coef, b_coef = _I1_A, _I1_B
    with np.errstate(all="ignore"):
        a = _chbevl(ax / t(2) - t(2), a_coef)
        b = _chbevl(t(32) / ax - t(2), b_coef)
        if order == 0:
            out = np.where(small, a, b / np.sqrt(ax)) if scaled else \
                np.where(small, _exp(ax) * a, _exp(ax) * b / np.sqrt(ax))
            return out
        if scaled:
            out = np.where(small, a * ax, b / np.sqrt(ax))
        else:
            out = np.where(small, _exp(ax) * ax * a, (_exp(ax) * b) / np.sqrt(ax))
    return np.where(x < 0, -out, out)


i0_np = _host_float(lambda x: _bessel(x, 0, False))
i0e_np = _host_float(lambda x: _bessel(x, 0, True))
i1_np = _host_float(lambda x: _bessel(x, 1, False))
i1e_np = _host_float(lambda x: _bessel(x, 1, True))


def _eps(x):
    return float(np.finfo(x.dtype.np).eps)


def _i1_grad(g, x, result, scaled):
    """FunctionsManual.cpp's i1_backward / i1e_backward: 0.5 where |x| <= eps (the formula's 0/0 there)."""
    eps = _eps(x)
    not_tiny = UM.abs(x) > eps
    safe = CW.where(not_tiny, x, eps)
    if scaled:
        gradx = i0e(safe) - result * (UM.sgn(safe) + UM.reciprocal(safe))
    else:
        gradx = i0(safe) - result * UM.reciprocal(safe)
    return g * CW.where(not_tiny, gradx, 0.5)


class I0Backward0(Function):
    __slots__ = ()
    explain = "i1({a})"
    save_inputs = True
    forward = staticmethod(i0_np)

    def backward(self, g):
        (x,) = self.saved
        return (g * i1(x),)


class SpecialI0EBackward0(Function):
    __slots__ = ()
    explain = "i1e({a}) - sgn({a}) i0e({a})"
    save_inputs = True
    save_output = True
    forward = staticmethod(i0e_np)

    def backward(self, g):
        x, result = self.saved
        return (g * (i1e(x) - UM.sgn(x) * result),)


class SpecialI1Backward0(Function):
    __slots__ = ()
    explain = "i0({a}) - i1({a}) / {a} (1/2 at 0)"
    save_inputs = True
    save_output = True
    forward = staticmethod(i1_np)

    def backward(self, g):
        x, result = self.saved
        return (_i1_grad(g, x, result, False),)


class SpecialI1EBackward0(Function):
    __slots__ = ()
    explain = "i0e({a}) - i1e({a}) (sgn({a}) + 1 / {a}) (1/2 at 0)"
    save_inputs = True
    save_output = True
    forward = staticmethod(i1e_np)

    def backward(self, g):
        x, result = self.saved
        return (_i1_grad(g, x, result, True),)


def _tensor(name, input):
    """PyTorch's argument parser on a non-Tensor input (torch.special.X's names: special_X(); torch.i0's own
    check, torch_signatures', comes first and says i0())."""
    if not isinstance(input, Tensor):
        raise errors.type_error(f"{name}(): argument 'input' (position 1) must be Tensor, not {typename(input)}")


def i0(input):
    _tensor("special_i0", input)
    return unary(I0Backward0, input)


def i0e(input):
    _tensor("special_i0e", input)
    return unary(SpecialI0EBackward0, input)


def i1(input):
    _tensor("special_i1", input)
    return unary(SpecialI1Backward0, input)


def i1e(input):
    _tensor("special_i1e", input)
    return unary(SpecialI1EBackward0, input)


_WIDE = [-9.5, -3.2, -0.4, 0.7, 2.5, 7.9, 12.0]  # both expansions; no 0 (i0e has a kink there)
OPS = [
    declare("i0", i0, I0Backward0, special=True, sample=sample1(), **TIP,
            cases={"i0": case(lambda torch, x: torch.i0(x), _WIDE)}),
    declare("special_i0e", i0e, SpecialI0EBackward0, method=False, torch=False, special="i0e", sample=sample1(),
            cases={"i0e": case(lambda torch, x: torch.special.i0e(x), _WIDE)}),
    declare("special_i1", i1, SpecialI1Backward0, method=False, torch=False, special="i1", sample=sample1(),
            cases={"i1": case(lambda torch, x: torch.special.i1(x), _WIDE + V.A)}),
    declare("special_i1e", i1e, SpecialI1EBackward0, method=False, torch=False, special="i1e", sample=sample1(),
            cases={"i1e": case(lambda torch, x: torch.special.i1e(x), _WIDE + V.A)}),
]
