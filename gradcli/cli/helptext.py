"""`gradcli --help` and `gradcli COMMAND --help`: gradcli's own help text.

Typer's Rich help shows a `<bool>` metavar for every flag, repeats one example list under every
command and wraps example comments mid-phrase. This renderer lays out the same words (each
command's docstring and its options' ``help=``, read from the Typer command in app.py: one
source) as plain text that fits the terminal (40 to 120 columns): paragraphs wrapped at spaces,
options in two columns with their values (``--device cpu|cuda``) and defaults, then each
command's own examples (here), a comment going to the next line when it does not fit.
"""
from __future__ import annotations

import shutil
import textwrap
from enum import Enum

__all__ = ["EXAMPLES", "render", "help_request", "width"]

# each command's own examples: (command line, comment or None); None is gradcli itself
EXAMPLES: dict[str | None, list[tuple[str, str | None]]] = {
    None: [
        ('gradcli run samples/seed00_linear_backward.grad', None),
        ('gradcli grad "w*x + b" w=4 x=3 b=5', 'value and gradients'),
        ('gradcli graph a.grad --var loss', 'the grad_fn graph'),
        ('gradcli repl', 'an interactive session'),
        ('gradcli COMMAND --help', "a command's options and examples"),
    ],
    'run': [
        ('gradcli run samples/seed00_linear_backward.grad', None),
        ('gradcli run a.grad b.grad --summary', 'several files, tensor tables'),
        ('gradcli run -e "x = torch.ones(2)" -e "print(x * 3)"', 'inline code, in order'),
        ('cat a.grad | gradcli run -', 'the script on stdin'),
        ('gradcli run a.grad --json', 'one JSON document'),
        ('gradcli run a.grad --explain', 'the chain rule at every backward()'),
        ('gradcli run a.grad --check', 'backward checked by finite differences'),
    ],
    'grad': [
        ('gradcli grad "w*x + b" w=4 x=3 b=5', 'value and gradients'),
        ('gradcli grad "x**2" "x=[1,2,3]"', 'a Jacobian'),
        ('gradcli grad "x**2 * y" x=1 y=2 --order 2', 'and the Hessian'),
        ('gradcli grad "torch.sin(x) * y" x=0.5 y=2 --wrt x', 'only d/dx'),
        ('gradcli grad "x**2" x=3 --json', 'one JSON document'),
    ],
    'graph': [
        ('gradcli graph a.grad --var loss', 'a tree on the terminal'),
        ('gradcli graph a.grad --var loss -f dot', 'Graphviz text'),
        ('gradcli graph a.grad --var loss -f svg -o loss.svg', 'a picture (needs Graphviz)'),
        ('gradcli graph a.grad --var loss --json', 'nodes and edges as JSON'),
    ],
    'repl': [
        ('gradcli repl', 'the interactive editor'),
        ('gradcli repl --explain', 'the chain rule at every backward()'),
        ('gradcli repl < session.grad', 'statements from a file, no prompts'),
    ],
    'test': [
        ('gradcli test samples', 'every NAME.grad with its NAME.out / NAME.err'),
        ('gradcli test samples -j 4', 'four scripts at a time'),
        ('gradcli test course/ --update', 'write the expectation files'),
        ('gradcli test --junit report.xml -f github', 'for CI'),
    ],
}

# the REPL's help also lists its meta-commands (its :help text is the one source)
_WITH_META = {"repl"}

_NBSP = "\x00"  # a space that wrapping must not break at ([default: N])
_EXIT_CODES = "Exit codes: 0 ok, 1 the script raised, 2 usage error, 3 internal error, 130 interrupted."



def width() -> int:
    """The terminal's width (COLUMNS first), kept between 40 and 120 columns."""
    return max(40, min(120, shutil.get_terminal_size((80, 24)).columns))


def _click_command():
    import typer  # noqa: PLC0415 - loaded already: help goes through app.main

    from .app import app  # noqa: PLC0415

    return typer.main.get_command(app)


def help_request(args: list[str], root=None) -> tuple[bool, str | None]:
    """(whether the command line asks for help, the command it asks about: None for gradcli's own).
    ``-h`` right after an option that takes a value is that value, not a help request."""
    root = root if root is not None else _click_command()
    commands = getattr(root, "commands", {})
    command, valued, previous = None, _valued(root), None
    for arg in args:
        if arg == "--":
            break
        if arg in ("-h", "--help") and previous not in valued:
            return True, command
        if command is None and previous not in valued and arg in commands:
            command = arg
            valued = _valued(commands[arg])
        previous = arg
    return False, command


def _valued(command) -> set:
    return {opt for p in command.params if not getattr(p, "is_flag", False) for opt in getattr(p, "opts", ())
            if opt.startswith("-")}


def _wrap(text: str, cols: int, indent: str) -> list[str]:
    return [indent + line for line in textwrap.wrap(text, max(20, cols - len(indent)), break_long_words=False,
                                                    break_on_hyphens=False)]


def _paragraphs(text: str) -> list[str]:
    """A docstring's paragraphs, each one line (a docstring's own line breaks are not the reader's)."""
    out = []
    for block in (text or "").strip().split("\n\n"):
        line = " ".join(part.strip() for part in block.splitlines() if part.strip())
        if line:
            out.append(line)
    return out


def _two_columns(rows: list[tuple[str, str]], cols: int) -> list[str]:
    """`  left   help...` rows; the help column starts at most 28 columns in, and a left part too
    long for it puts its help on the next line."""
    left_width = min(28, max((len(left) for left, _ in rows), default=0) + 4)
    out = []
    for left, text in rows:
        first = f"  {left}"
        body = textwrap.wrap(text, max(20, cols - left_width), break_long_words=False,
                             break_on_hyphens=False) or [""]
        if len(first) + 2 > left_width:
            out.append(first)
            out.extend(" " * left_width + line for line in body if line)
            continue
        for i, line in enumerate(body):
            out.append(((first.ljust(left_width) if i == 0 else " " * left_width) + line).rstrip())
    return out


def _option_row(param) -> tuple[str, str]:
    opts = sorted(getattr(param, "opts", []) + list(getattr(param, "secondary_opts", []) or []),
                  key=lambda o: (o.startswith("--"), o))
    default = getattr(param, "default", None)
    metavar = None
    if not getattr(param, "is_flag", False):
        if isinstance(default, Enum):
            metavar = "|".join(str(m.value) for m in type(default))
        else:
            metavar = getattr(param, "metavar", None) or "VALUE"
    left = ", ".join(opts) + (f" {metavar}" if metavar else "")
    text = _plain(getattr(param, "help", None) or "")
    shown = getattr(param, "show_default", None)
    if shown and not getattr(param, "is_flag", False) and default is not None and not callable(default):
        value = default.value if isinstance(default, Enum) else default
        text = f"{text} [default:{_NBSP}{value}]"
    return left, text


def _plain(text: str) -> str:
    """Help written for Typer's Rich markup: its escaped brackets (gradcli\\[cuda]) as plain text."""
    return text.replace("\\[", "[")


def _meta_commands() -> list[tuple[str, str]]:
    from ..repl.core import HELP  # noqa: PLC0415 - the REPL's own :help text is the one source

    rows = []
    for line in HELP.split("Meta-commands:", 1)[1].splitlines():
        if not line.strip():
            continue
        name, _, text = line.strip().partition("  ")
        rows.append((name.strip(), text.strip()))
    return rows


def render(name: str | None, cols: int | None = None, root=None) -> str:
    """The help text of the command ``name`` (None: gradcli itself) for a terminal ``cols`` wide."""
    cols = cols or width()
    root = root if root is not None else _click_command()
    command = root if name is None else root.commands[name]
    params = list(command.params)
    arguments = [p for p in params if not any(o.startswith("-") for o in getattr(p, "opts", ()))]
    options = [p for p in params if p not in arguments]
    usage = f"gradcli {name + ' ' if name else ''}[OPTIONS]"
    if name is None:
        usage += " COMMAND [ARGS]..."
    for p in arguments:
        metavar = getattr(p, "metavar", None) or p.name.upper()
        usage += f" {metavar}" if getattr(p, "required", False) else f" [{metavar}]"
    for p in options:
        if getattr(p, "required", False):
            usage += f" {max(p.opts, key=len)} {getattr(p, 'metavar', None) or 'VALUE'}"
    out = [f"Usage: {usage}", ""]
    for paragraph in _paragraphs(_plain(command.help or "")):
        out.extend(_wrap(paragraph, cols, "  "))
        out.append("")
    if name is None:
        out.append("Commands:")
        out.extend(_two_columns([(n, (_paragraphs(c.help) or [""])[0]) for n, c in root.commands.items()
                                 if not getattr(c, "hidden", False)], cols))
        out.append("")
    if arguments:
        out.append("Arguments:")
        out.extend(_two_columns([(getattr(p, "metavar", None) or p.name.upper(), _plain(getattr(p, "help", None) or ""))
                                 for p in arguments], cols))
        out.append("")
    out.append("Options:")
    out.extend(_two_columns([_option_row(p) for p in options] + [("-h, --help", "Show this help and exit.")], cols))
    out.append("")
    if name in _WITH_META:
        out.append("Meta-commands (type them at the prompt):")
        out.extend(_two_columns(_meta_commands(), cols))
        out.append("")
    if EXAMPLES.get(name):
        out.append("Examples:")
        out.extend(_examples(EXAMPLES[name], cols))
        out.append("")
    out.extend(_wrap(_EXIT_CODES, cols, ""))
    return "\n".join(out).replace(_NBSP, " ") + "\n"


def _examples(examples: list[tuple[str, str | None]], cols: int) -> list[str]:
    """Examples with their comments in one column where they all fit, else each comment after its
    example or, when that does not fit either, on the next line: never wrapped mid-phrase."""
    commented = [f"  {e}" for e, c in examples if c]
    column = max(map(len, commented), default=0) + 2
    aligned = all(column + len(c) + 2 <= cols for e, c in examples if c)
    out = []
    for example, comment in examples:
        line = f"  {example}"
        if comment is None:
            out.append(line)
        elif aligned:
            out.append(f"{line.ljust(column)}# {comment}")
        elif len(line) + len(comment) + 4 <= cols:
            out.append(f"{line}  # {comment}")
        else:
            out.extend([line, f"      # {comment}"])
    return out
