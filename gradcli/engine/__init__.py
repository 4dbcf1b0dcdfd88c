"""gradcli's autograd engine: Tensors on NumPy (CuPy for cuda) with PyTorch 2.13 semantics.

It knows nothing of GradScript. Use it from Python through its torch-shaped namespace:

    from gradcli.engine import api as torch
    w = torch.tensor(4., requires_grad=True)
    (w * 3 + 5).backward()
    w.grad   # tensor(3.)
"""
from . import methods as _methods  # noqa: F401 - completes the Tensor class
from .size import Size
from .tensor import Tensor

__all__ = ["Tensor", "Size"]
