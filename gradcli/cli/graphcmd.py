"""`gradcli graph FILE.grad --var NAME`: run a script, then draw the backward graph of one tensor.

stdout is the graph only (the script's own output goes to stderr); -o writes it to a file.
Formats: tree (Rich, the default), dot, mermaid, json, and svg/png through Graphviz's `dot`.
Exit codes: 0 drawn; 1 the script raised; 2 usage (no such file or name, not a tensor, svg/png
without Graphviz, png to a terminal); 3 internal error.
"""
from __future__ import annotations

import sys

from .common import (EXIT_INTERNAL, EXIT_OK, EXIT_SCRIPT, EXIT_USAGE, INTERNAL_HINT, UsageProblem, check_device, internal_error, say,
                     say_usage, usage_hint)
from .runcmd import read_sources


def _find(variables, var):
    """The tensor the script calls `var`: a top-level name, a module parameter (model.fc1.weight) or
    an item (params[0])."""
    from gradcli.graph.model import is_tensor, tensor_names  # noqa: PLC0415

    value = variables.get(var)
    if value is not None:
        return value
    names = tensor_names(variables)
    by_id = {}
    for name, v in variables.items():
        if is_tensor(v):
            by_id[id(v)] = v
        elif isinstance(v, (list, tuple)):
            for item in v:
                if is_tensor(item):
                    by_id[id(item)] = item
        elif isinstance(v, dict):
            for item in v.values():
                if is_tensor(item):
                    by_id[id(item)] = item
        else:
            try:
                for _, p in v.named_parameters():
                    by_id[id(p)] = p
            except Exception:  # noqa: BLE001 - not a module
                pass
    for key, labels in names.items():
        if var in labels and key in by_id:
            return by_id[key]
    return None


def usage_doc(error: dict) -> dict:
    """The JSON document of a usage error found before the command ran (no file, no --var yet)."""
    from gradcli.graph.writers import to_json_doc  # noqa: PLC0415

    d = to_json_doc(None, filename=None, exit_code=EXIT_USAGE, error=error, warnings=[])
    d["var"] = None
    d["outputs"] = []
    return d


def graph_command(file: str, var: str, fmt: str, output: str | None, saved: bool, flags,
                  show_output: bool = False) -> int:
    """Run FILE and draw VAR's graph. The script's own output and warnings are shown (on stderr)
    only with ``show_output``: stdout and stderr are the graph's (and an error's)."""
    from gradcli.render.jsonout import dumps, simple_error  # noqa: PLC0415

    def doc(exit_code, graph=None, error=None, outputs=(), warnings=()):
        from gradcli.graph.writers import to_json_doc  # noqa: PLC0415

        d = to_json_doc(graph, filename=file, exit_code=exit_code, error=error, warnings=warnings)
        d["var"] = var
        d["outputs"] = [{"text": t, "line": ln} for t, ln in outputs]
        return d

    def usage(message):
        if fmt == "json":
            sys.stdout.write(dumps(doc(EXIT_USAGE, error=simple_error("UsageError", message, file,
                                                                      hint=usage_hint("graph")))) + "\n")
        say_usage(message, "graph", flags.color_err())
        return EXIT_USAGE

    try:
        check_device(flags.device)
        (src,) = read_sources([file], None)
        if fmt == "png" and output is None and sys.stdout.isatty():
            raise UsageProblem("png is binary: give -o FILE.png (or use --format svg)")
        if fmt in ("svg", "png"):
            from gradcli.graph.writers import GRAPHVIZ_HINT, dot_program  # noqa: PLC0415

            if dot_program() is None:
                raise UsageProblem(f"--format {fmt} needs Graphviz's 'dot' program, which is not installed: "
                                   f"{GRAPHVIZ_HINT}")
    except UsageProblem as exc:
        return usage(str(exc))
    try:
        return _draw(src, file, var, fmt, output, saved, flags, doc, usage, show_output)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - nothing of gradcli's may escape as a traceback
        if flags.debug:
            raise
        internal_error(exc, False)
        return EXIT_INTERNAL


def _draw(src, file, var, fmt, output, saved, flags, doc, usage, show_output=False) -> int:
    from gradcli.engine import autograd  # noqa: PLC0415
    from gradcli.graph import model, writers  # noqa: PLC0415
    from gradcli.render.diagnostics import WarningPrinter, print_error  # noqa: PLC0415
    from gradcli.render.jsonout import dumps  # noqa: PLC0415

    from . import executor  # noqa: PLC0415

    color_err = flags.color_err()
    if src.decode_error is not None:
        return usage(src.decode_error["message"])
    outputs, warnings = [], []
    shown = show_output and fmt != "json"
    printer = WarningPrinter(sys.stderr, color_err, src.name) if shown else None

    def write(text, line=None):
        outputs.append((text, line))
        if shown:
            sys.stderr.write(text)

    def warn(w):
        warnings.append({"category": w["category"], "message": w["message"], "file": src.name, "line": w["line"],
                         "column": w["column"]})
        if printer is not None:
            printer.show(w["category"], w["message"], w["line"], w["column"])

    prev = autograd.set_node_observer(model.record_meta)
    try:  # debug: gradcli's own failure raised out of the run reaches graph_command's handler
        outcome = executor.execute(src.text, flags.run_options(), name=src.name, write=write, warn=warn, debug=True)
    finally:
        autograd.set_node_observer(prev)
    sys.stderr.flush()
    if outcome.kind != "ok":
        if outcome.raised:  # CUDA unavailable, found outside the script: as graph_command reports an exception
            text = outcome.message.strip().splitlines()
            say(f"internal error: CudaUnavailable{': ' + text[0] if text else ''} {INTERNAL_HINT}")
            return EXIT_INTERNAL
        if outcome.kind == "internal":
            if flags.debug and outcome.traceback:
                sys.stderr.write(outcome.traceback)
            say(f"internal error: {outcome.internal_text} {INTERNAL_HINT}")
            code = EXIT_INTERNAL
        else:
            code = EXIT_SCRIPT
            if fmt != "json":
                print_error(executor.Located.from_json(outcome.error), sys.stderr, color_err, source=src.text,
                            filename=src.name)
        if fmt == "json":
            sys.stdout.write(dumps(doc(code, error=outcome.error, outputs=outputs, warnings=warnings)) + "\n")
        return code
    variables = outcome.variables
    tensor = _find(variables, var)
    if tensor is None or not model.is_tensor(tensor):
        tensors = [n for n, v in variables.items() if model.is_tensor(v)]
        if tensor is None and var not in variables:
            listed = ", ".join(tensors[:20]) + (" ..." if len(tensors) > 20 else "")
            return usage(f"no tensor named '{var}' at the end of {src.name}"
                         + (f" (its tensors: {listed})" if tensors else " (it defines no tensors)"))
        return usage(f"'{var}' is a {type(variables.get(var)).__name__}, not a tensor: the graph is drawn for a "
                     "tensor")
    graph = model.build_graph(tensor, var, variables, src.text, saved=saved)
    if graph.root is None and fmt != "json":
        say(f"note: {var} does not require grad, so it has no backward graph (requires_grad=False, grad_fn=None)",
            color_err)
    if fmt == "json":
        text = dumps(doc(EXIT_OK, graph=graph, outputs=outputs, warnings=warnings)) + "\n"
        return _emit(text.encode("utf-8"), output)
    if fmt == "tree":
        return _emit_tree(writers.to_tree(graph), output, flags)
    if fmt == "dot":
        return _emit(writers.to_dot(graph).encode("utf-8"), output)
    if fmt == "mermaid":
        return _emit(writers.to_mermaid(graph).encode("utf-8"), output)
    try:
        data = writers.render_dot(writers.to_dot(graph), fmt)
    except writers.DotMissing as exc:
        return usage(str(exc))
    return _emit(data, output)


def _emit(data: bytes, output: str | None) -> int:
    if output is None or output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data) if hasattr(sys.stdout, "buffer") else sys.stdout.write(data.decode("utf-8"))
        sys.stdout.flush()
        return EXIT_OK
    try:
        with open(output, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        say(f"cannot write '{output}': {exc.strerror or exc}")
        return EXIT_USAGE
    return EXIT_OK


def _emit_tree(tree, output, flags) -> int:
    from gradcli.render.style import rich_console  # noqa: PLC0415

    if output is None or output == "-":
        color = flags.color_out()
        console = rich_console(sys.stdout, color) if color else rich_console(sys.stdout, False, width=_width())
        console.print(tree)
        sys.stdout.flush()
        return EXIT_OK
    try:
        with open(output, "w", encoding="utf-8") as fh:
            rich_console(fh, False, width=_width()).print(tree)
    except OSError as exc:
        say(f"cannot write '{output}': {exc.strerror or exc}")
        return EXIT_USAGE
    return EXIT_OK


def _width() -> int:
    """Plain text is not wrapped at 100 columns: a tree line stays one line up to 240."""
    import os  # noqa: PLC0415

    cols = os.environ.get("COLUMNS", "")
    return int(cols) if cols.isascii() and cols.isdigit() and len(cols) <= 5 and int(cols) > 20 else 240
