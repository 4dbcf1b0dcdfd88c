"""The gradient calculator behind ``gradcli grad EXPR NAME=VALUE ...``.

Every NAME=VALUE becomes a leaf tensor with requires_grad (in the --dtype float dtype), EXPR
is evaluated by the GradScript runner, and the derivatives come from the engine's
``torch.autograd.grad``: the gradient of a scalar EXPR, the Jacobian (one backward pass per
output element) of a non-scalar one, and with order 2 the Hessian blocks d2 EXPR / da db.
"""
from __future__ import annotations

from dataclasses import dataclass, field

MAX_OUTPUT_ELEMENTS = 100_000  # backward passes for a Jacobian


@dataclass
class CalcResult:
    expr: str
    names: list                 # every variable, in command-line order
    variables: dict             # name -> leaf tensor
    wrt: list                   # names differentiated against
    order: int
    value: object               # the tensor EXPR evaluated to
    scalar: bool                # EXPR is a 0-d tensor: a gradient, not a Jacobian
    gradients: dict = field(default_factory=dict)   # name -> gradient / Jacobian
    hessian: dict | None = None                      # a -> b -> d2/da db


class CalcError(Exception):
    """An error of EXPR's evaluation or differentiation, shaped like a GradScriptError."""

    def __init__(self, type_name, message, hint=None, filename="<expr>", line=None, column=None,
                 end_line=None, end_column=None):
        super().__init__(message)
        self.type_name, self.message, self.hint = type_name, message, hint
        self.filename, self.line, self.column = filename, line, column
        self.end_line, self.end_column = end_line, end_column


def is_user_error(exc) -> bool:
    """Engine errors (PyTorch's exception types with PyTorch's text) carry ``gradcli_hint``."""
    return hasattr(exc, "gradcli_hint") or exc.__class__.__name__ == "GradScriptError" or \
        hasattr(exc, "type_name")


def make_variables(assignments, dtype: str, device: str):
    from gradcli.engine import api as torch  # noqa: PLC0415

    dt = torch.float64 if dtype == "float64" else torch.float32
    return {name: torch.tensor(value, dtype=dt, device=device, requires_grad=True) for name, value in assignments}


def _zeros(shape, like):
    from gradcli.engine import api as torch  # noqa: PLC0415

    return torch.zeros(tuple(shape), dtype=like.dtype, device=like.device)


def jacobian(y, xs, create_graph=False, max_elements=None, what="Jacobian"):
    """[dy/dx for x in xs], each of shape y.shape + x.shape (zeros where y does not depend on x).
    Each block's size is checked against max_elements before any is computed."""
    from gradcli.engine import api as torch  # noqa: PLC0415
    from gradcli.engine.autograd_api import grad  # noqa: PLC0415

    yshape = tuple(y.shape)
    if not xs:
        return []
    for x in xs:
        size = y.numel() * x.numel()
        if max_elements is not None and size > max_elements:
            raise CalcError("RuntimeError", f"{what} of {size} elements exceeds the limit of {max_elements} elements "
                            "(--max-elements)", hint="raise the limit with --max-elements if you really need it")
    if not y.requires_grad or not y.dtype.is_floating_point:
        return [_zeros(yshape + tuple(x.shape), x) for x in xs]
    n = y.numel()
    if n > MAX_OUTPUT_ELEMENTS:
        raise CalcError("ValueError", f"the expression has {n} elements; the calculator differentiates at most "
                        f"{MAX_OUTPUT_ELEMENTS} (one backward pass each)",
                        hint="reduce it first, e.g. with .sum() or .mean()")
    if y.ndim == 0:
        gs = grad(y, xs, retain_graph=True, create_graph=create_graph, allow_unused=True)
        return [g if g is not None else _zeros(x.shape, x) for g, x in zip(gs, xs)]
    rows = [[] for _ in xs]
    for k in range(n):
        onehot = torch.zeros(n, dtype=y.dtype, device=y.device)
        onehot[k] = 1.0
        gs = grad(y, xs, grad_outputs=onehot.reshape(yshape), retain_graph=True, create_graph=create_graph,
                  allow_unused=True)
        for i, (g, x) in enumerate(zip(gs, xs)):
            rows[i].append(g if g is not None else _zeros(x.shape, x))
    return [torch.stack(r).reshape(yshape + tuple(x.shape)) for r, x in zip(rows, xs)]


def calculate(expr: str, assignments, wrt, order: int, options) -> CalcResult:
    """Evaluate and differentiate; raises CalcError / GradScriptError for the user's mistakes."""
    from gradcli.engine import api as torch  # noqa: PLC0415
    from gradcli.engine.tensor import Tensor  # noqa: PLC0415
    from gradcli.lang.runner import evaluate_expression  # noqa: PLC0415

    variables = make_variables(assignments, options.dtype, options.device)
    names = [name for name, _ in assignments]
    wrt = list(wrt) if wrt else list(names)
    value = evaluate_expression(expr, dict(variables), options)
    if isinstance(value, bool) or (isinstance(value, (int, float)) and not isinstance(value, Tensor)):
        value = torch.tensor(value, dtype=torch.float64 if options.dtype == "float64" else torch.float32,
                             device=options.device)
    if not isinstance(value, Tensor):
        raise CalcError("TypeError", f"the expression must give a tensor or a number, not {type(value).__name__}",
                        hint="the calculator differentiates one tensor-valued expression")
    xs = [variables[n] for n in wrt]
    scalar = value.ndim == 0
    first = jacobian(value, xs, create_graph=order >= 2, max_elements=options.max_elements)
    result = CalcResult(expr=expr, names=names, variables=variables, wrt=wrt, order=order, value=value,
                        scalar=scalar, gradients={n: g.detach() for n, g in zip(wrt, first)})
    if order >= 2:
        result.hessian = {}
        for a, g in zip(wrt, first):
            blocks = jacobian(g, xs, max_elements=options.max_elements, what="Hessian block")
            result.hessian[a] = {b: h.detach() for b, h in zip(wrt, blocks)}
    return result
