"""`gradcli --help` and `gradcli COMMAND --help`: gradcli's own help text, one source for every
option's words (app.py's Typer options take their help from :data:`OPTIONS`).

Typer's Rich help shows a `<bool>` metavar for every flag, repeats one example list under every
command and wraps example comments mid-phrase; this renderer prints plain text that fits the
terminal's width (40 to 120 columns): paragraphs wrapped at spaces, options in two columns,
and each command's own examples, a comment going to the next line when it does not fit.
Nothing heavy is imported (it runs before Typer would).
"""
from __future__ import annotations

import shutil
import textwrap

__all__ = ["OPTIONS", "COMMANDS", "render", "help_request", "width"]

# name -> (flags, metavar or None for a flag, help text, default shown or None)
OPTIONS: dict[str, tuple[str, str | None, str, str | None]] = {
    "expr": ("-e, --expr", "CODE", "Run this code (before any FILE); repeat -e to run several pieces in order, "
                                   "as one script. torch, np, nn, F and math need no import.", None),
    "device": ("--device", "cpu|cuda", "Default device for tensors (cuda needs CuPy and a GPU: "
                                       "pip install 'gradcli[cuda]').", "cpu"),
    "dtype": ("--dtype", "float32|float64", "Default floating-point dtype.", "float32"),
    "seed": ("--seed", "N", "torch.manual_seed(N) before running.", None),
    "json": ("--json", None, "Print one JSON document (schema gradcli/1) instead of text.", None),
    "no_color": ("--no-color", None, "No colour (also when NO_COLOR is set or output is not a terminal).", None),
    "summary": ("--summary", None, "After each script, a table of its named tensors (shape, dtype, requires_grad, "
                                   "grad_fn, grad).", None),
    "max_elements": ("--max-elements", "N", "Largest tensor allowed, in elements.", "100000000"),
    "max_steps": ("--max-steps", "N", "Loop iterations plus calls allowed.", "10000000"),
    "timeout": ("--timeout", "SECONDS", "Stop the script after this many seconds.", None),
    "debug": ("--debug", None, "Show Python tracebacks of gradcli's own errors.", None),
    "explain": ("--explain", None, "At every backward pass, the chain rule step by step (on stderr; with --json, "
                                   "an 'explain' list).", None),
    "repl_explain": ("--explain", None, "Start with the chain-rule walkthrough on (:explain toggles it).", None),
    "check": ("--check", None, "Check every backward pass against float64 central differences; a mismatch is "
                               "an error at the line that made the node, a pass that cannot be checked (a NaN "
                               "gradient) exits 1.", None),
    "detect_anomaly": ("--detect-anomaly", None, "Turn on torch.autograd.set_detect_anomaly(True) for the run: "
                                                 "a backward that returns NaN is an error at the line that made "
                                                 "the node.", None),
    "var": ("-v, --var", "NAME", "The tensor whose backward graph to draw (a top-level name).", None),
    "format": ("-f, --format", "FORMAT", "tree (the terminal), dot (Graphviz text), mermaid, svg or png (need "
                                         "Graphviz's dot program), json.", "tree"),
    "output": ("-o, --output", "OUT", "Write the graph to this file instead of stdout.", None),
    "saved": ("--saved", None, "Show the tensors each node saved for its backward (freed ones are marked).", None),
    "show_output": ("--show-output", None, "Also show what the script prints (on stderr), which is hidden by "
                                           "default so that the output is the graph only.", None),
    "max_memory": ("--max-memory", "SIZE", "Memory the run may allocate (4G, 512M; default the smaller of 4 GiB "
                                           "and half the machine's).", None),
    "jobs": ("-j, --jobs", "N", "Scripts run at once, each in its own process (default: the number of cores).",
             None),
    "update": ("--update", None, "Write NAME.out (and NAME.err) from the current output instead of failing.", None),
    "strict": ("--strict", None, "A script without NAME.out or NAME.err fails (otherwise a warning).", None),
    "junit": ("--junit", "FILE", "Also write a JUnit XML report to FILE.", None),
    "report_format": ("-f, --format", "text|github", "text, or github: also GitHub Actions annotations "
                                                     "(::error file=...,line=...::).", "text"),
    "test_timeout": ("--timeout", "SECONDS", "Stop a script after this many seconds.", "60"),
    "wrt": ("--wrt", "NAME,...", "Differentiate only with respect to these variables.", None),
    "order": ("--order", "1|2", "1: gradient (Jacobian for a non-scalar EXPR); 2: also the Hessian.", "1"),
    "version": ("-V, --version", None, "Show the version and exit.", None),
    "install_completion": ("--install-completion", None, "Install shell completion for gradcli.", None),
    "show_completion": ("--show-completion", None, "Show the shell completion script, to install it by hand.",
                        None),
    "help": ("-h, --help", None, "Show this help and exit.", None),
}

_COMMON = ["device", "dtype", "seed", "json", "no_color", "max_elements", "max_steps", "timeout", "debug"]

# name -> usage, description paragraphs, arguments, options, examples (command, comment), notes
COMMANDS: dict[str | None, dict] = {
    None: {
        "usage": "gradcli [OPTIONS] COMMAND [ARGS]...",
        "about": ["gradcli: a gradient calculator and GradScript, a PyTorch-flavoured language for autograd. "
                  "It prints what Python with PyTorch 2.13 would print, without PyTorch.",
                  "With no command: the REPL when stdin is a terminal, otherwise the script on stdin is run."],
        "arguments": [],
        "options": ["version", "install_completion", "show_completion", "help"],
        "commands": [("run", "Run .grad scripts, stdin or -e CODE, printing what Python with PyTorch prints."),
                     ("grad", "The gradient calculator: the value of an expression and its derivatives."),
                     ("graph", "Draw the backward (grad_fn) graph of a tensor of a script."),
                     ("repl", "An interactive GradScript session."),
                     ("test", "Check scripts against their expected output (NAME.out, NAME.err), for CI.")],
        "examples": [("gradcli run samples/seed00_linear_backward.grad", None),
                     ('gradcli grad "w*x + b" w=4 x=3 b=5', "value and gradients"),
                     ("gradcli graph a.grad --var loss", "the grad_fn graph"),
                     ("gradcli repl", "an interactive session"),
                     ("gradcli COMMAND --help", "a command's options and examples")],
    },
    "run": {
        "usage": "gradcli run [OPTIONS] [FILE.grad ...]",
        "about": ["Run GradScript files (.grad), stdin or -e CODE, printing what Python with PyTorch prints.",
                  "Each file runs in a fresh scope. Errors go to stderr with the line, a caret and a hint; the "
                  "exit code is the worst of the files."],
        "arguments": [("FILE.grad ...", "Scripts to run, one after another, each in a fresh scope; '-' reads "
                                        "stdin.")],
        "options": ["expr", *_COMMON[:5], "summary", *_COMMON[5:], "max_memory", "explain", "check",
                    "detect_anomaly", "help"],
        "examples": [("gradcli run samples/seed00_linear_backward.grad", None),
                     ("gradcli run a.grad b.grad --summary", "several files, tensor tables"),
                     ('gradcli run -e "x = torch.ones(2)" -e "print(x * 3)"', "inline code, in order"),
                     ("cat a.grad | gradcli run -", "the script on stdin"),
                     ("gradcli run a.grad --json", "one JSON document"),
                     ("gradcli run a.grad --explain", "the chain rule at every backward()"),
                     ("gradcli run a.grad --check", "backward checked by finite differences")],
    },
    "grad": {
        "usage": "gradcli grad [OPTIONS] EXPR [NAME=VALUE ...]",
        "about": ["The gradient calculator: the value of EXPR and its derivative with respect to every variable.",
                  "A non-scalar EXPR gives its Jacobian; --order 2 gives the Hessian. An EXPR that starts with "
                  "'-' works as it is (gradcli grad -x**2 x=3). torch, np, nn, F and math need no import."],
        "arguments": [("EXPR", "A GradScript expression, e.g. 'w*x + b' or 'torch.sin(x).sum()'."),
                      ("NAME=VALUE ...", "Variables: a number (x=3, x=-1.5, x=1e-3) or a nested list (x=[1,2,3], "
                                         "x=[[1,2],[3,4]]); each becomes a leaf tensor with requires_grad.")],
        "options": ["wrt", "order", *_COMMON, "help"],
        "examples": [('gradcli grad "w*x + b" w=4 x=3 b=5', "value and gradients"),
                     ('gradcli grad "x**2" "x=[1,2,3]"', "a Jacobian"),
                     ('gradcli grad "x**2 * y" x=1 y=2 --order 2', "and the Hessian"),
                     ('gradcli grad "torch.sin(x) * y" x=0.5 y=2 --wrt x', "only d/dx"),
                     ('gradcli grad "x**2" x=3 --json', "one JSON document")],
    },
    "graph": {
        "usage": "gradcli graph [OPTIONS] FILE.grad --var NAME",
        "about": ["Run a script, then draw the backward (grad_fn) graph of the tensor NAME as PyTorch built it.",
                  "grad_fn nodes carry the line that created them; AccumulateGrad leaves carry the script's "
                  "names. The output is the graph only: what the script prints is not shown unless "
                  "--show-output is given."],
        "arguments": [("FILE.grad", "The script to run ('-' reads stdin).")],
        "options": ["var", "format", "output", "saved", "show_output", *_COMMON, "help"],
        "examples": [("gradcli graph a.grad --var loss", "a tree on the terminal"),
                     ("gradcli graph a.grad --var loss -f dot", "Graphviz text"),
                     ("gradcli graph a.grad --var loss -f svg -o loss.svg", "a picture (needs Graphviz)"),
                     ("gradcli graph a.grad --var loss --json", "nodes and edges as JSON")],
    },
    "repl": {
        "usage": "gradcli repl [OPTIONS]",
        "about": ["An interactive GradScript session; torch, np, nn, F and math are ready without imports. "
                  "With stdin not a terminal, statements are read from stdin without prompts.",
                  "An open bracket or a block header continues on a '...' line; a blank line ends a block."],
        "arguments": [],
        "options": ["device", "dtype", "seed", "no_color", "max_elements", "max_steps", "timeout", "debug",
                    "repl_explain", "help"],
        "examples": [("gradcli repl", "the interactive editor"),
                     ("gradcli repl --explain", "the chain rule at every backward()"),
                     ("gradcli repl < session.grad", "statements from a file, no prompts")],
        "meta": True,
    },
    "test": {
        "usage": "gradcli test [OPTIONS] [PATH ...]",
        "about": ["Check scripts against their expected output: NAME.grad against NAME.out (stdout, byte for byte) "
                  "and NAME.err (the error's 'Type: message' and line).",
                  "One line per script, a diff per failure, a summary; exit 0 when all pass, 1 when any fails. "
                  "Each script runs after torch.manual_seed(0) (--seed N to change), with --timeout 60 by "
                  "default."],
        "arguments": [("PATH ...", "Scripts and folders (searched for *.grad); default: the current folder.")],
        "options": ["jobs", "update", "strict", "junit", "report_format", "device", "dtype", "seed", "json",
                    "no_color", "max_elements", "max_steps", "test_timeout", "debug", "help"],
        "examples": [("gradcli test samples", "every NAME.grad with its NAME.out / NAME.err"),
                     ("gradcli test samples -j 4", "four scripts at a time"),
                     ("gradcli test course/ --update", "write the expectation files"),
                     ("gradcli test --junit report.xml -f github", "for CI")],
    },
}

_NBSP = "\x00"  # a space that wrapping must not break at ([default: N])
_EXIT_CODES = "Exit codes: 0 ok, 1 the script raised, 2 usage error, 3 internal error, 130 interrupted."

# options that take a value, per command: `-h` right after one of them is that value, not help
_VALUED = {"-e", "--expr", "--device", "--dtype", "--seed", "--max-elements", "--max-steps", "--timeout",
           "-v", "--var", "-f", "--format", "-o", "--output", "--wrt", "--order", "--max-memory", "-j", "--jobs",
           "--junit"}


def width() -> int:
    """The terminal's width (COLUMNS first), kept between 40 and 120 columns."""
    return max(40, min(120, shutil.get_terminal_size((80, 24)).columns))


def help_request(args: list[str]) -> tuple[bool, str | None]:
    """(whether the command line asks for help, the command it asks about: None for gradcli's own)."""
    command = None
    previous = None
    for arg in args:
        if arg == "--":
            break
        if arg in ("-h", "--help") and previous not in _VALUED:
            return True, command
        if command is None and previous not in _VALUED and arg in COMMANDS:
            command = arg
        previous = arg
    return False, command


def _wrap(text: str, cols: int, indent: str) -> list[str]:
    return [indent + line for line in textwrap.wrap(text, max(20, cols - len(indent)), break_long_words=False,
                                                    break_on_hyphens=False)]


def _two_columns(rows: list[tuple[str, str]], cols: int) -> list[str]:
    """`  left   help...` rows; the help column starts at most 28 columns in, and a left part too
    long for it puts its help on the next line."""
    left_width = min(28, max((len(left) for left, _ in rows), default=0) + 4)
    out = []
    for left, text in rows:
        first = f"  {left}"
        body = textwrap.wrap(text, max(20, cols - left_width), break_long_words=False, break_on_hyphens=False)
        if len(first) + 2 > left_width:
            out.append(first)
            out.extend(" " * left_width + line for line in body)
            continue
        for i, line in enumerate(body):
            out.append((first.ljust(left_width) if i == 0 else " " * left_width) + line)
    return out


def _meta_commands() -> list[tuple[str, str]]:
    from ..repl.core import HELP  # noqa: PLC0415 - the REPL's own :help text is the one source

    rows = []
    for line in HELP.split("Meta-commands:", 1)[1].splitlines():
        if not line.strip():
            continue
        name, _, text = line.strip().partition("  ")
        rows.append((name.strip(), text.strip()))
    return rows


def render(command: str | None, cols: int | None = None) -> str:
    """The help text of ``command`` (None: gradcli itself) for a terminal ``cols`` wide."""
    cols = cols or width()
    spec = COMMANDS[command]
    out = [f"Usage: {spec['usage']}", ""]
    for paragraph in spec["about"]:
        out.extend(_wrap(paragraph, cols, "  "))
        out.append("")
    if spec.get("commands"):
        out.append("Commands:")
        out.extend(_two_columns(spec["commands"], cols))
        out.append("")
    if spec["arguments"]:
        out.append("Arguments:")
        out.extend(_two_columns(spec["arguments"], cols))
        out.append("")
    rows = []
    for name in spec["options"]:
        flags, metavar, text, default = OPTIONS[name]
        left = f"{flags} {metavar}" if metavar else flags
        rows.append((left, f"{text} [default:{_NBSP}{default}]" if default else text))
    out.append("Options:")
    out.extend(_two_columns(rows, cols))
    out.append("")
    if spec.get("meta"):
        out.append("Meta-commands (type them at the prompt):")
        out.extend(_two_columns(_meta_commands(), cols))
        out.append("")
    out.append("Examples:")
    out.extend(_examples(spec["examples"], cols))
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
