"""The op library: each op's forward and backward, declared once (see function.py)."""
from . import (arithmetic, clamp_where, comparison, conversion, indexing, inplace, linalg, reduction,  # noqa: F401
               shape, unary_math)
