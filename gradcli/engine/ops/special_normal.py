"""The normal distribution's functions of torch.special: ndtr (ATen's composite, (1 + erf(x / sqrt(2))) * 0.5,
recorded as torch records it: MulBackward1 <- AddBackward1 <- ErfBackward0 <- MulBackward1).
"""
from __future__ import annotations

import math

from .. import errors
from ..argcheck import typename
from ..tensor import Tensor
from . import arithmetic as AR
from . import elementwise_common as EC
from .registry import V, case, sample1
from .registry import op as declare
from .special_unary import erf

M_SQRT1_2 = math.sqrt(0.5)


def _tensor(name, input):
    """PyTorch's argument parser on a non-Tensor input (torch.special.X's names: special_X())."""
    if not isinstance(input, Tensor):
        raise errors.type_error(f"{name}(): argument 'input' (position 1) must be Tensor, not {typename(input)}")


def ndtr(input):
    """ATen's special_ndtr: a composite of Tensor ops (an integer input is promoted by the first product)."""
    _tensor("special_ndtr", input)
    # Tensor * Scalar in C++ is MulBackward1; an integer input (no gradient) takes the promoting product
    t = EC.mul_scalar(input, M_SQRT1_2) if input.dtype.is_floating_point else AR.mul(input, M_SQRT1_2)
    return EC.mul_scalar(EC.add_scalar(erf(t), 1), 0.5)


OPS = [
    declare("special_ndtr", ndtr, method=False, torch=False, special="ndtr", sample=sample1(),
            cases={"ndtr": case(lambda torch, x: torch.special.ndtr(x), V.A)}),
]
