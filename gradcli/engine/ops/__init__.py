"""The op library: each op's forward and backward, declared once (see function.py)."""
from . import conversion, elementwise, indexing, inplace, linalg, reduction, shape  # noqa: F401
