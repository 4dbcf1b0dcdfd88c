"""The gradient calculator behind ``gradcli grad EXPR NAME=VALUE ...``.

Every NAME=VALUE becomes a leaf tensor with requires_grad (in the --dtype float dtype), EXPR
is evaluated by the GradScript runner, and the derivatives come from the engine's
``torch.autograd.grad``: the gradient of a scalar EXPR, the Jacobian (one backward pass per
output element) of a non-scalar one, and with order 2 the Hessian blocks d2 EXPR / da db.
"""
from __future__ import annotations

from dataclasses import field

from gradcli.records import record

MAX_OUTPUT_ELEMENTS = 100_000  # backward passes for a Jacobian


@record  # a dataclass, made for less start-up time (gradcli/records.py)
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
    independent: list = field(default_factory=list)  # wrt names EXPR has no gradient path to (zero gradient)

    def notes(self) -> list:
        """What a zero gradient means when EXPR has no gradient path to a variable (x.item(), a
        comparison, a detached value): said, not left as a silent 0."""
        if not self.independent:
            return []
        who = ", ".join(self.independent)
        return [f"{self.expr} does not depend on {who} through the gradient graph (no gradient path: a Python "
                f"number such as .item(), a comparison or a detached value), so the gradient is 0"]


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


def independent_of(y, xs, names) -> list:
    """The names of the xs that ``y`` has no gradient path to."""
    if not y.requires_grad or not y.dtype.is_floating_point:
        return list(names)
    from gradcli.engine.autograd_api import grad  # noqa: PLC0415

    probe = y.sum() if y.ndim else y
    try:
        gs = grad(probe, xs, retain_graph=True, allow_unused=True)
    except Exception:  # noqa: BLE001 - only a note depends on it
        return []
    return [n for n, g in zip(names, gs) if g is None]


def teaching_hint(type_name, message, expr, names, options):
    """A hint for the calculator's usual slips: `x^2` (xor, not a power), a misspelt function
    (`sine` -> torch.sin), an undefined variable (add NAME=VALUE)."""
    import difflib  # noqa: PLC0415
    import re  # noqa: PLC0415

    if "^" in expr and ("xor" in message.lower() or "^" in message):
        return "^ is Python's bitwise xor; a power is written ** (x**2)"
    from gradcli.lang.runner import evaluate_expression  # noqa: PLC0415

    attr = re.fullmatch(r"'Tensor' object has no attribute '(\w+)'", message or "")
    if type_name == "AttributeError" and attr:
        methods = [m for m in dir(evaluate_expression("torch.zeros(1)", {}, options)) if not m.startswith("_")]
        close = difflib.get_close_matches(attr.group(1), methods, n=1, cutoff=0.75)
        return f"did you mean .{close[0]}?" if close else None
    match = re.fullmatch(r"name '(\w+)' is not defined", message or "") if type_name == "NameError" else None
    if match is None:
        return None
    name = match.group(1)

    members = [m for m in dir(evaluate_expression("torch", {}, options)) if not m.startswith("_")]
    if name in members:
        return f"{name} is torch.{name}: write torch.{name}(...)"
    close = difflib.get_close_matches(name, members + list(names), n=1, cutoff=0.75)
    if close:
        suggestion = close[0]
        if suggestion not in names:
            try:  # a name the calculator knows bare (sin, exp), else torch's member
                evaluate_expression(suggestion, {}, options)
            except Exception:  # noqa: BLE001 - not bare: torch.NAME
                suggestion = f"torch.{suggestion}"
        return f"did you mean {suggestion}?"
    return f"'{name}' is not defined: add {name}=VALUE (e.g. {name}=1.5 or {name}=[1,2,3])"


def calculate(expr: str, assignments, wrt, order: int, options) -> CalcResult:
    """Evaluate and differentiate; raises CalcError / GradScriptError for the user's mistakes."""
    from gradcli.engine import api as torch  # noqa: PLC0415
    from gradcli.engine.tensor import Tensor  # noqa: PLC0415
    from gradcli.lang.runner import evaluate_expression  # noqa: PLC0415

    variables = make_variables(assignments, options.dtype, options.device)
    names = [name for name, _ in assignments]
    wrt = list(wrt) if wrt else list(names)
    try:
        value = evaluate_expression(expr, dict(variables), options)
    except Exception as exc:
        if getattr(exc, "hint", "") is None and hasattr(exc, "type_name"):
            exc.hint = teaching_hint(exc.type_name, getattr(exc, "message", str(exc)), expr, names, options)
        raise
    if isinstance(value, bool) or (isinstance(value, (int, float)) and not isinstance(value, Tensor)):
        value = torch.tensor(value, dtype=torch.float64 if options.dtype == "float64" else torch.float32,
                             device=options.device)
    if not isinstance(value, Tensor):
        what = repr(value) if repr(value).startswith("<module ") else f"a {type(value).__name__}"
        raise CalcError("TypeError", f"the expression must give a tensor or a number, not {what}",
                        hint="an expression must give a tensor to differentiate, e.g. torch.sin(x) or x**2")
    if not names:
        raise CalcError("ValueError", f"there is no variable in {expr!r} to differentiate with respect to",
                        hint='give each variable as NAME=VALUE, e.g. gradcli grad "x**3" x=2')
    xs = [variables[n] for n in wrt]
    scalar = value.ndim == 0
    first = jacobian(value, xs, create_graph=order >= 2, max_elements=options.max_elements)
    result = CalcResult(expr=expr, names=names, variables=variables, wrt=wrt, order=order, value=value,
                        scalar=scalar, gradients={n: g.detach() for n, g in zip(wrt, first)},
                        independent=independent_of(value, xs, wrt))
    if order >= 2:
        result.hessian = {}
        for a, g in zip(wrt, first):
            blocks = jacobian(g, xs, max_elements=options.max_elements, what="Hessian block")
            result.hessian[a] = {b: h.detach() for b, h in zip(wrt, blocks)}
    return result
