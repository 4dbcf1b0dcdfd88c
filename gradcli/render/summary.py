"""The tables of ``--summary`` (the named tensors of a run) and of the calculator's result
(table.Table: Rich draws them on a terminal; plain output is drawn without importing Rich)."""
from __future__ import annotations

from .diagnostics import visible
from .table import Table
from .tensors import is_tensor, shape_text, value_repr


def _table(title, columns, color):
    return Table(title, [(name, kwargs.get("style"), kwargs.get("no_wrap", False)) for name, kwargs in columns],
                 color)


def _dtype(t) -> str:
    return repr(t.dtype)


def _grad_fn(t) -> str:
    return t.grad_fn.name() if t.grad_fn is not None else ""


def summary_table(variables: dict, color: bool, title: str = "tensors"):
    """The named tensors of a run: name, shape, dtype, requires_grad, grad_fn, value, grad;
    None when there is none."""
    rows = [(name, v) for name, v in (variables or {}).items() if is_tensor(v)]
    if not rows:
        return None
    value_style = "cyan" if color else None
    fixed = {"no_wrap": True}
    table = _table(title, [("name", {"style": "bold" if color else None, **fixed}), ("shape", fixed),
                           ("dtype", fixed), ("requires_grad", fixed),
                           ("grad_fn", {"style": "yellow" if color else None, **fixed}),
                           ("value", {"style": value_style}), ("grad", {"style": value_style})], color)
    for name, t in rows:
        table.add_row(name, shape_text(t), _dtype(t), str(bool(t.requires_grad)), _grad_fn(t),
                      value_repr(t), value_repr(t._grad))
    return table


def print_renderable(renderable, stream, color: bool) -> None:
    """On a terminal, Rich fits the table to its width; plain, the table keeps its natural width
    (cells never wrap a tensor's lines) and lines carry no trailing spaces."""
    if isinstance(renderable, Table):
        text = None if color else renderable.plain_text()
        if text is not None:
            stream.write(text)
            stream.flush()
            return
        renderable = renderable.rich()
    from .style import rich_console  # noqa: PLC0415

    if color:
        rich_console(stream, True).print(renderable)
    else:
        import io  # noqa: PLC0415

        buf = io.StringIO()
        rich_console(buf, False, width=100_000).print(renderable)
        stream.write("".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines()))
    stream.flush()


def calculator_tables(calc, color: bool):
    """The calculator's gradient (or Jacobian) table, and for --order 2 a heading line (a str) and
    the Hessian table."""
    value_style = "cyan" if color else None
    kind = "gradient" if calc.scalar else "Jacobian"
    out = []
    fixed = {"no_wrap": True}
    expr = visible(calc.expr)  # the user's EXPR may hold raw control characters (in a string literal, a comment)
    table = _table(None, [("name", {"style": "bold" if color else None, **fixed}), ("value", {"style": value_style}),
                          ("shape", fixed), ("dtype", fixed), (f"{kind} d({expr})/d(name)", {"style": value_style})],
                   color)
    for name in calc.names:
        t = calc.variables[name]
        g = calc.gradients.get(name)
        table.add_row(name, value_repr(t, 10_000), shape_text(t), _dtype(t),
                      value_repr(g, 10_000) if g is not None else "(not asked: --wrt)")
    out.append(table)
    if calc.hessian is not None:
        wrt = list(calc.hessian)
        out.append(f"Hessian: d2({expr})/d(row) d(column)" if calc.scalar else
                   f"Hessian: d2({expr})/d(row) d(column), for every element of {expr}")
        h = _table(None,
                   [("", {"style": "bold" if color else None})] + [(f"d/d{n}", {"style": value_style}) for n in wrt],
                   color)
        for a in wrt:
            h.add_row(f"d/d{a}", *[value_repr(calc.hessian[a][b], 10_000) for b in wrt])
        out.append(h)
    return out
