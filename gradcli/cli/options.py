"""The command-line options that more than one reader reads, declared once: the Typer app (app.py)
builds its options from these declarations, and the fast entry path (entry.py) reads a plain
`gradcli run` command line with the same names, readers and choices. Imports nothing (start-up)."""
from __future__ import annotations


class Opt:
    """One option: ``field`` is its Flags field (or the command's parameter), ``names`` its spellings.
    ``reader``: None for a flag; "text" for any text; "choice" for one of ``choices`` (Typer also
    takes them in any case, the entry path only as written); otherwise the name of its parser in
    common.PARSERS, whose ValueError is a usage error. ``repeat``: it may be given several times (a
    list, in order)."""
    __slots__ = ("field", "names", "reader", "help", "default", "metavar", "choices", "repeat", "show_default")

    def __init__(self, field, names, reader, help, default=None, metavar=None, choices=(), repeat=False,  # noqa: A002
                 show_default=True):
        self.field, self.names, self.reader, self.help, self.default = field, names, reader, help, default
        self.metavar, self.choices, self.repeat, self.show_default = metavar, choices, repeat, show_default


# every command's shared options, in the order `--help` lists them (app.shared_options adds them)
SHARED = (
    Opt("device", ("--device",), "choice", "Default device for tensors (cuda needs CuPy and a GPU: "
        "pip install 'gradcli\\[cuda]').", "cpu", choices=("cpu", "cuda")),
    Opt("dtype", ("--dtype",), "choice", "Default floating-point dtype.", "float32", choices=("float32", "float64")),
    Opt("seed", ("--seed",), "seed", "torch.manual_seed(N) before running (0 <= N < 2**64).", metavar="N",
        show_default=False),
    Opt("json", ("--json",), None, "Print one JSON document (schema gradcli/1) instead of text.", False),
    Opt("no_color", ("--no-color",), None, "No colour (also when NO_COLOR is set or output is not a terminal).",
        False),
    Opt("max_elements", ("--max-elements",), "count", "Largest tensor allowed, in elements.", 100_000_000,
        metavar="N"),
    Opt("max_steps", ("--max-steps",), "count", "Loop iterations plus calls allowed.", 10_000_000, metavar="N"),
    Opt("timeout", ("--timeout",), "timeout", "Stop the script after this many seconds.", metavar="SECONDS",
        show_default=False),
    Opt("debug", ("--debug",), None, "Show Python tracebacks of gradcli's own errors.", False),
)

# run, grad, repl and test: the memory cap of the process that runs the code
MAX_MEMORY = Opt("max_memory", ("--max-memory",), "size", "Memory a run may allocate (4G, 512M; default the "
                 "smaller of 4 GiB and half the machine's).", metavar="SIZE", show_default=False)

# `gradcli run`'s own options (besides SHARED and MAX_MEMORY)
RUN = (
    Opt("expr", ("-e", "--expr"), "text", "Run this code (before any FILE); several -e run in order, as one "
        "script. torch, np, nn, F and math need no import.", metavar="CODE", repeat=True, show_default=False),
    Opt("summary", ("--summary",), None, "After each script, a table of its named tensors (shape, dtype, "
        "requires_grad, grad_fn, grad).", False),
    Opt("explain", ("--explain",), None, "At every backward pass, the chain rule step by step (on stderr; with "
        "--json, an 'explain' list).", False),
    Opt("check", ("--check",), None, "Check every backward pass against float64 central differences; a mismatch "
        "is an error at the line that made the node, and a pass that cannot be checked (a NaN gradient) says so "
        "and exits 1.", False),
    Opt("detect_anomaly", ("--detect-anomaly",), None, "Turn on torch.autograd.set_detect_anomaly(True) for the "
        "run: a backward that returns NaN is an error at the line that made the node.", False),
)

# every option `gradcli run` takes
RUN_ALL = SHARED + (MAX_MEMORY,) + RUN
