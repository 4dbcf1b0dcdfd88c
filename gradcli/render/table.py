"""The tables of ``--summary`` and of the calculator, drawn without Rich where that is simple.

A :class:`Table` holds the title, the columns and the cells (plain text). On a terminal (colour)
it becomes a Rich table (:meth:`Table.rich`), which fits the terminal's width. Plain output (a pipe,
a file, NO_COLOR) is Rich's box.SQUARE table at its natural width, no cell wrapped, lines without
trailing spaces; :meth:`Table.plain_text` draws exactly that itself when every cell is printable
ASCII and the title fits on one line, and gives None otherwise (Rich draws it then). Importing Rich
costs ~25-30 ms, more than the rest of a small calculation (start-up time is part of the product);
tests/test_render.py compares this drawing with Rich's on many tables.
"""
from __future__ import annotations

_TOP, _HEAD_RULE, _BOTTOM = ("┌", "─", "┬", "┐"), ("├", "─", "┼", "┤"), ("└", "─", "┴", "┘")
_BAR = "│"


def _simple(text: str) -> bool:
    """Printable ASCII, lines split by '\\n' only: one character is one cell of width."""
    return text.isascii() and text.replace("\n", "").isprintable() and not text.endswith("\n")


class Table:
    """columns: [(header, style or None, no_wrap)]; rows: lists of str, one per column."""

    def __init__(self, title, columns, color: bool) -> None:
        self.title, self.columns, self.color = title, list(columns), color
        self.rows: list[list[str]] = []

    def add_row(self, *cells: str) -> None:
        self.rows.append(list(cells))

    def rich(self):
        """The same table as a Rich renderable (colour, a terminal's width)."""
        from rich import box  # noqa: PLC0415
        from rich.table import Table as RichTable  # noqa: PLC0415

        color = self.color
        table = RichTable(title=self.title, box=box.ROUNDED if color else box.SQUARE,
                          header_style="bold" if color else None, title_style="bold" if color else None,
                          title_justify="left")
        for header, style, no_wrap in self.columns:
            table.add_column(header, style=style, no_wrap=no_wrap)
        for row in self.rows:
            table.add_row(*row)
        return table

    def plain_text(self) -> str | None:
        """Rich's plain drawing of the table (see the module's text), or None when it is not simple."""
        headers = [header for header, _, _ in self.columns]
        texts = [*headers, *(cell for row in self.rows for cell in row)]
        if self.title is not None:
            texts.append(self.title)
        if not all(type(t) is str and _simple(t) for t in texts):
            return None
        cells = [[cell.split("\n") for cell in row] for row in self.rows]
        widths = [len(h) for h in headers]
        for row in cells:
            for i, lines in enumerate(row):
                widths[i] = max(widths[i], *map(len, lines))
        table_width = sum(widths) + 3 * len(widths) + 1
        out = []
        if self.title is not None:
            if len(self.title) > table_width or "\n" in self.title:
                return None  # Rich wraps it to the table's width
            out.append(self.title.rstrip())

        def rule(parts):
            left, line, cross, right = parts
            return left + cross.join(line * (w + 2) for w in widths) + right

        def row_lines(row):
            height = max(len(lines) for lines in row)
            for k in range(height):
                out.append(_BAR + _BAR.join(" " + (lines[k] if k < len(lines) else "").ljust(w) + " "
                                            for lines, w in zip(row, widths)) + _BAR)
        out.append(rule(_TOP))
        row_lines([[h] for h in headers])
        out.append(rule(_HEAD_RULE))
        for row in cells:
            row_lines(row)
        out.append(rule(_BOTTOM))
        return "".join(line.rstrip() + "\n" for line in out)
