"""The special family: elementwise extras and the activations, declared in its theme modules
(`special_unary.py`: erf family, exp/log variants, trig, sign and rounding; `special_binary.py`:
atan2, hypot, lerp, addcmul, ..., nan_to_num, logit; `special_xlog.py`: xlogy, xlog1py; `special_bessel.py`: i0, i0e, i1, i1e; `special_igamma.py`: igamma, igammac (gammainc, gammaincc); `special_normal.py`: ndtr, erfcx;
`activations.py`: the piecewise ones, elu, leaky_relu, hardtanh, ..., threshold;
`activations_smooth.py`: softplus, gelu, silu, mish, ..., glu; `special_common.py`: what they share), each with its declarations (OPS). This module joins
them into the family's OPS and derives its binding tables (the in-place wrappers that declarations of
other families name, `inplace="compare"`, `"logical"`, are inplace_kinds.py's).
"""
from __future__ import annotations

from . import activations, activations_smooth, special_bessel, special_binary, special_gamma, special_igamma, special_unary
from . import special_normal, special_xlog
from . import unary_math as UM
from .registry import op, sample1, tables
from .special_common import inplace_method

# ---------------------------------------------------------------------------- declarations

# One declaration per op (registry.py), in its theme module
OPS = [
    *special_unary.OPS,
    *special_binary.OPS,
    *special_xlog.OPS,
    *special_gamma.OPS,
    *special_bessel.OPS,
    *special_igamma.OPS,
    *special_normal.OPS,
    *activations.OPS,
    *activations_smooth.OPS,
    op("expit", UM.sigmoid, UM.SigmoidBackward0, method=False, torch=False, special=True, sample=sample1()),
]
_TABLES = tables(OPS, inplace_method)
METHODS = _TABLES["METHODS"]     # Tensor methods (and torch.<name>): name -> function taking the tensor first
INPLACE = _TABLES["INPLACE"]     # x.name_() (the out-of-place op on x's original value, written back into x)
TORCH = _TABLES["TORCH"]         # torch.<name> only (not Tensor methods); torch.name_(x, ...) is x.name_(...)
FUNCTIONAL = _TABLES["FUNCTIONAL"]  # torch.nn.functional.<name>, for the nn package to bind (it owns F)
SPECIAL = _TABLES["SPECIAL"]     # torch.special.<name>
