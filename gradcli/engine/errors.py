"""PyTorch's exception texts, written once. Errors are the built-in exception types PyTorch
raises (RuntimeError, IndexError, TypeError, ValueError) with PyTorch's message verbatim; a
`gradcli_hint` attribute names the well-known mistake so that a renderer can explain it."""
from __future__ import annotations


def _make(cls, message, hint=None):
    err = cls(message)
    err.gradcli_hint = hint
    return err


def runtime(message, hint=None):
    return _make(RuntimeError, message, hint)


def index(message, hint=None):
    return _make(IndexError, message, hint)


def type_error(message, hint=None):
    return _make(TypeError, message, hint)


def missing_arguments(name, *params):
    """torch's argument parser for a call without its required arguments (its plural is as it words it:
    'missing 1 required positional arguments: "shape"', 'missing 2 required positional argument: "a", "b"')."""
    listed = ", ".join(f'"{p}"' for p in params)
    return type_error(f"{name}() missing {len(params)} required positional argument{'s' if len(params) == 1 else ''}: "
                      f"{listed}")


def value(message, hint=None):
    return _make(ValueError, message, hint)


def assertion(message):
    """An AssertionError that torch's Python code raises on bad arguments (the script's, not a bug)."""
    return _make(AssertionError, message)


FREED_GRAPH = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
    "or if you need to access saved tensors after calling backward."
)
NOT_SCALAR = "grad can be implicitly created only for scalar outputs"
NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"
DOES_NOT_REQUIRE_GRAD_INPUT = "One of the differentiated Tensors does not require grad"
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
FLOAT_ONLY_CTOR = "Only Tensors of floating point and complex dtype can require gradients"
FLOAT_ONLY = "only Tensors of floating point and complex dtype can require gradients"
FLOAT_ONLY_METHOD = "only Tensors of floating point dtype can require gradients"
NON_LEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
    "in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
NUMPY_REQUIRES_GRAD = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
SCALAR_OF_REQUIRES_GRAD_WARNING = (  # float(t): torch's THPVariable_float_scalar
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)"
)

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't "
    "be populated during autograd.backward(). If you indeed want the .grad field to be populated for a "
    "non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
    "mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
    "more information. (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)


def unused_input(i):
    return (f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
            "Set allow_unused=True if this is the desired behavior.")


def type_string(t):
    """The legacy type name PyTorch uses in some messages: torch.FloatTensor, torch.cuda.FloatTensor."""
    dev = "cuda." if t.device.type == "cuda" else ""
    return f"torch.{dev}{t.dtype.legacy}"


def _op_name(node):
    """The op name torch's version-counter error shows: the node name without `Backward0`, and
    without `Backward` before another overload number (MaxBackward1 -> Max1, PowBackward1 -> Pow1)."""
    import re  # noqa: PLC0415
    return re.sub(r"Backward(0$|(?=\d|$))", "", node.name())  # (torch::autograd::CopyBackwards stays)


def modified_inplace(t, expected_version, output_of, saved_shape=None):
    """torch's SavedVariable::unpack error; saved_shape: an output's shape when it was saved."""
    shape = ", ".join(str(s) for s in (t.shape if saved_shape is None else saved_shape))
    what = f"[{type_string(t)} [{shape}]]"
    if output_of:
        what += f", which is output {t._output_nr} of {_op_name(output_of)},"
    elif t.grad_fn is not None and t._base is not None and t._creation is None:
        # a view whose base changed in place since it was saved: torch regenerates the view's
        # grad_fn (as_strided replay) when it unpacks it, and names that node
        what += ", which is output 0 of AsStrided,"
    elif t.grad_fn is not None:
        what += f", which is output {t._output_nr} of {_op_name(t.grad_fn)},"
    return (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"{what} is at version {t._version[0]}; expected version {expected_version} instead. Hint: enable "
        "anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def broadcast_mismatch(a_shape, b_shape):
    """PyTorch's text for two shapes that do not broadcast (compares from the right)."""
    na, nb = len(a_shape), len(b_shape)
    n = max(na, nb)
    for i in range(n - 1, -1, -1):
        da = a_shape[i - (n - na)] if i - (n - na) >= 0 else 1
        db = b_shape[i - (n - nb)] if i - (n - nb) >= 0 else 1
        if da != db and da != 1 and db != 1:
            return (f"The size of tensor a ({da}) must match the size of tensor b ({db}) "
                    f"at non-singleton dimension {i}")
    return "shapes cannot be broadcast"


def broadcast_fold_mismatch(shapes):
    """TensorIterator's message for operands broadcast in order: the shape so far is tensor a, the
    next operand tensor b (infer_size), at the first operand that does not fit."""
    so_far = ()
    for s in shapes:
        n = max(len(so_far), len(s))
        a = (1,) * (n - len(so_far)) + tuple(so_far)
        b = (1,) * (n - len(s)) + tuple(s)
        if any(x != y and x != 1 and y != 1 for x, y in zip(a, b)):
            return broadcast_mismatch(tuple(so_far), tuple(s))
        so_far = tuple(y if x == 1 else x for x, y in zip(a, b))
    return "shapes cannot be broadcast"
