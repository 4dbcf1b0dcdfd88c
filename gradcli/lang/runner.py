"""The API the CLI, the REPL and the calculator use to run GradScript (docs/architecture.md).

    result = run_source(text, "train.grad", RunOptions(seed=0), write=lambda text, line: ...)
    result.ok, result.outputs, result.error, result.warnings, result.variables

Errors of the script come back as ``RunResult.error``, a ``GradScriptError`` (type name,
message, location, hint). A failure of gradcli itself comes back as an ``InternalError``
(a GradScriptError subclass whose ``type_name`` is "InternalError", with ``original`` and
``traceback_text``): the CLI exits 3 for it. Nothing else escapes ``Session.run`` except
KeyboardInterrupt/SystemExit.
"""
from __future__ import annotations

import contextlib
import functools
import keyword
import operator
import re
import sys
import time
import warnings as _warnings
from dataclasses import field

from ..gcpolicy import paused
from ..records import record
from . import ast as A
from .errors import GradScriptError, python_message
from .namespaces import Namespaces, loaded_members
from .options import MAX_SOURCE_CHARS, RunOptions
from .private import private_attributes
from .pyvalues import Namespace, public_attributes, get_attr
from .runtime import MAX_DIMS_MESSAGE, Frame, LimitError, Runtime, is_internal, too_many_dims

# One table of hint texts, keyed by the engine's `gradcli_hint` names and the runner's limits.
HINTS = {
    "non_scalar": "call .sum() or .mean() first, or pass gradient=torch.ones_like(z)",
    "retain_graph": "pass retain_graph=True to the first backward() if you need to backward twice",
    "float_dtype": "only floating point tensors can require gradients: write 1. instead of 1, "
                   "or pass dtype=torch.float32",
    "leaf_inplace": "change a leaf that requires grad inside `with torch.no_grad():`, or work on a clone()",
    "retain_grad": "call .retain_grad() on the non-leaf tensor before backward() to keep its .grad",
    "nonleaf_grad": "call .retain_grad() on the non-leaf tensor before backward() to keep its .grad",
    "detach_numpy": "call .detach().numpy() instead",
    "detach": "use .detach() to get a tensor that is cut from the graph",
    "inference": "tensors made under torch.inference_mode() are for inference only: use .clone() of them "
                 "outside it, or torch.no_grad() instead",
    "broadcast": "shapes must be equal or 1 in every dimension, compared from the right",
    "matmul_shape": "the inner dimensions must agree: (n x k) @ (k x m)",
    "allow_unused": "pass allow_unused=True to get None for inputs the output does not depend on",
    "no_grad_fn": "the output does not depend on any tensor with requires_grad=True",
    "inplace": "an in-place operation changed a tensor that backward needs: use the out-of-place form "
               "(x = x * 2 instead of x *= 2)",
    "index_range": "indices count from 0 to size-1 (negative ones from the end)",
    "zero_dim_index": "a 0-dim tensor has no dimension to index: use .item() to get its number",
    "device": "move both tensors to one device with .to(device)",
    "dtype_mismatch": "convert one operand first, e.g. .float() or .double()",
    "max_elements": "raise the limit with --max-elements if you really need a tensor this large",
    "max_steps": "a loop that never ends? raise the limit with --max-steps N",
    "max_dims": "gradcli's tensors have at most 64 dimensions",
    "timeout": "raise the limit with --timeout SECONDS",
    "recursion": "a function that calls itself without end?",
    "source_size": "a .grad script is code, not data: build large tensors in the script (torch.randn, "
                   "torch.arange, ...) instead of writing them out",
    "json_output": "a JSON document holds all that the script prints: print less, or run without --json",
}

@record  # a dataclass, made for less start-up time (gradcli/records.py)
class Output:
    text: str
    line: int | None


@record  # a dataclass, made for less start-up time (gradcli/records.py)
class Warning:  # noqa: A001 - the name the architecture gives it
    category: str
    message: str
    line: int | None
    column: int | None


@record  # a dataclass, made for less start-up time (gradcli/records.py)
class RunResult:
    ok: bool
    outputs: list = field(default_factory=list)
    error: GradScriptError | None = None
    warnings: list = field(default_factory=list)
    variables: dict = field(default_factory=dict)
    explain: list = field(default_factory=list)     # --explain: gradcli.graph.explain.Pass per backward pass
    checks: list = field(default_factory=list)      # --check: gradcli.graph.check.Result per backward pass

    @property
    def stdout(self):
        return "".join(o.text for o in self.outputs)


class InternalError(GradScriptError):
    """gradcli itself failed (not the script): exit status 3."""

    default_type_name = "InternalError"

    def __init__(self, message, *, original=None, traceback_text="", **kw):
        super().__init__(message, **kw)
        self.original = original
        self.traceback_text = traceback_text


def _internal(exc, filename, node=None):
    import traceback  # noqa: PLC0415 - only for gradcli's own failures (start-up time)

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    kw = _span(node)
    return InternalError(f"internal error: {type(exc).__name__}: {exc}", original=exc, traceback_text=text,
                         filename=filename, **kw)


def _span(node):
    if node is None:
        return {}
    return dict(line=node.line, column=node.column, end_line=node.end_line, end_column=node.end_column)


def source_too_large(filename=None):
    """The error for a script over MAX_SOURCE_CHARS characters (refused before it is parsed)."""
    return GradScriptError(f"the script is larger than the limit of {MAX_SOURCE_CHARS:,} characters",
                           type_name="MemoryError", filename=filename, line=1, column=1, end_line=1, end_column=2,
                           hint=HINTS["source_size"])


@contextlib.contextmanager
def _watch_clock(rt):
    """--timeout for scripts whose steps are few and slow: the runner looks at the clock only when
    a chunk of steps is used up (Runtime.refill), so a short loop of big matmuls would run on past
    the deadline. Once the deadline has passed, a watchdog thread empties the step budget (again
    and again: the running code may write back a stale value), so the next step checks the clock."""
    deadline = rt.deadline
    if deadline is None:
        yield
        return
    import threading  # noqa: PLC0415 - only with --timeout (start-up time)

    done = threading.Event()

    def watch():
        if done.wait(max(0.0, deadline - time.monotonic()) + 0.001):
            return
        while True:
            rt.budget = -1
            if done.wait(0.02):
                return

    thread = threading.Thread(target=watch, name="gradcli-timeout", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()


# the modules a script may use under a conventional name, and the import that binds it
_IMPORTS = {"torch": "import torch", "np": "import numpy as np", "numpy": "import numpy",
            "nn": "import torch.nn as nn", "F": "import torch.nn.functional as F", "math": "import math",
            "optim": "import torch.optim as optim"}


def missing_import_hint(message):
    """The hint for Python's NameError of a module used without its import (`torch`, `np`, `nn`,
    `F`, ...): the script runs by Python's rules, so the name needs its import line."""
    match = re.fullmatch(r"name '(\w+)' is not defined", message or "")
    line = _IMPORTS.get(match.group(1)) if match else None
    return f'add "{line}" at the top (gradcli runs Python\'s rules)' if line else None


def hint_text(key):
    return HINTS.get(key) if isinstance(key, str) else None


# torch-echo's "always" shows a warning in a loop every time; a run shows one site's same warning again only
# this many times, and while the repeats shown hold less text than this (stderr, the result's list and the
# executor's messages stay bounded: a repeat adds nothing the first showing did not say)
MAX_WARNING_REPEATS = 1000
MAX_REPEATED_WARNING_TEXT = 1 << 22
_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
           "float16": "float16", "half": "float16"}


class Session:
    """State kept across runs (the REPL uses one): variables, engine settings, warnings seen."""

    def __init__(self, options: RunOptions | None = None, write=None, warn=None):
        self.options = options or RunOptions()
        from ..engine.warnonce import reset_warn_once  # noqa: PLC0415 - the engine loads with the language
        reset_warn_once()  # a session is torch's process: its TORCH_WARN_ONCE warnings start afresh
        self._write_cb = write
        self._warn_cb = warn
        self._outputs = []
        self.keep_outputs = True   # False: what the script prints goes to `write` only (run streams it)
        self._warnings = []
        self._warned = {}
        self._repeated_text = 0
        o = self.options
        self.rt = Runtime(self._write, max_steps=o.max_steps, max_depth=o.max_depth, timeout=o.timeout,
                          max_elements=o.max_elements)
        self.namespaces = Namespaces(self.rt, device=o.device or "cpu", seed=o.seed)
        self.namespaces.warning_hooks = (self._show_warning, self._source_line)
        self.globals = Frame()
        self.globals.parent = None
        self._engine_state = None  # (default dtype, grad enabled, print options, threads) between runs
        self.on_pass = None        # on_pass(kind, record) after each backward pass under explain/check
        self._anomaly = (False, True)  # anomaly mode (enabled, check_nan) between runs
        self._hooks = None
        self._source = None

    # ------------------------------------------------------------------ output and warnings
    def _write(self, text, line):
        if self.keep_outputs:
            self._outputs.append(Output(text, line))
        if self._write_cb is not None:
            self._write_cb(text, line)

    def _showwarning(self, message, category, filename=None, lineno=None, file=None, line=None):
        """Python's showwarning for the engine's warnings during a run (all of them: the run's filter
        is "always"), at the script's site; the script's warnings filters decide when it has any."""
        rt = self.rt
        site = rt.site if rt.site is not None else rt.loc[0]
        line_no = site.line if site is not None else None
        column = site.column if site is not None else None
        state = self.namespaces.warnings_state
        if state is not None:  # the script read its `warnings` module: its filters, its record lists
            state.warn_explicit(message, category, rt.filename or "<string>", line_no or 0, column)
            return
        self._show_warning(category.__name__, str(message), line_no, column)

    def _show_warning(self, category_name, text, line_no, column):
        """A warning shown on stderr (the callback's dict, the result's list): each one the filters let
        through, as torch-echo's "always" shows it, the one place that decides (the printers show what
        they are given); past MAX_WARNING_REPEATS of one site and text in a run (a loop's), no more."""
        key = (line_no, column, category_name, text)
        seen = self._warned.get(key, 0)
        if seen:
            if seen > MAX_WARNING_REPEATS or self._repeated_text + len(text) > MAX_REPEATED_WARNING_TEXT:
                return
            self._repeated_text += len(text)
        self._warned[key] = seen + 1
        w = Warning(category_name, text, line_no, column)
        self._warnings.append(w)
        if self._warn_cb is not None:
            self._warn_cb(w)

    def _source_line(self, filename, lineno):
        """Line lineno of the script when filename is its name (warnings.formatwarning reads no file)."""
        if filename != (self.rt.filename or "<string>") or not isinstance(lineno, int) or lineno < 1:
            return None
        lines = (self._source or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
        return lines[lineno - 1] if lineno <= len(lines) else None

    # ------------------------------------------------------------------ engine state
    def engine_settings(self, filename="<string>"):
        """The engine's settings of this session's runs (dtype, grad mode, limits, the site hook, ...) as a
        context, for Python code that drives the engine as a run would (bench.count's `engine` loop)."""
        return self._engine(filename)

    @contextlib.contextmanager
    def _engine(self, filename):
        from ..engine import api, autograd, autograd_modes, dtypes, factory, formatting, saved_hooks, threads
        from ..engine import device as engine_device
        from ..engine.limits import LIMITS, STEP_HOOK, set_step_hook
        saved = (dtypes.get_default_dtype(), autograd_modes.grad_mode.enabled, formatting.get_printoptions(),
                 LIMITS["max_elements"], autograd.site_hook[0], sys.getrecursionlimit(), STEP_HOOK[0])
        saved_device = engine_device.DEFAULT_DEVICE[0]
        saved_threads = threads.snapshot()
        # --device / :device is torch.set_default_device for the run: constructors and nn modules alike
        engine_device.set_default_device(getattr(self.options, "device", None) or None)
        rt = self.rt
        rt.filename = filename
        if self._engine_state is None:
            name = _DTYPES.get(str(self.options.dtype).replace("torch.", ""), None)
            if name is None:
                raise GradScriptError(f"unknown dtype '{self.options.dtype}' (use float32 or float64)",
                                      type_name="ValueError")
            self._engine_state = (getattr(api, name), True, formatting.get_printoptions(),
                                  (threads.DEFAULT, threads.DEFAULT))  # torch's default, whatever ran before
            if self.options.seed is not None:
                api.manual_seed(self.options.seed)
        dt, enabled, popts, nthreads = self._engine_state
        if threads.snapshot() != nthreads:
            threads.restore(nthreads)
        dtypes.set_default_dtype(dt)
        autograd_modes.grad_mode.enabled = enabled
        formatting.set_printoptions(**popts)
        factory.set_max_elements(self.options.max_elements)
        set_step_hook(rt.step)
        loc = rt.loc
        # the statement's syntax node itself (a C-level call, no tuple per recorded op): site_pair reads it
        autograd.set_site_hook(functools.partial(operator.getitem, loc, 0))
        sys.setrecursionlimit(max(saved[5], 4000 + 12 * rt.max_depth))
        saved_anomaly = (autograd_modes.anomaly_mode.enabled, autograd_modes.anomaly_mode.check_nan)
        autograd_modes.anomaly_mode.enabled, autograd_modes.anomaly_mode.check_nan = self._anomaly
        hooks = self._hooks = None
        o = self.options
        if o.explain or o.check or o.detect_anomaly:
            from ..graph.hooks import RunHooks
            hooks = self._hooks = RunHooks(self, o, self._source).__enter__()
        try:
            with _warnings.catch_warnings():
                _warnings.simplefilter("always")
                _warnings.showwarning = self._showwarning
                yield
        finally:
            self._engine_state = (dtypes.get_default_dtype(), autograd_modes.grad_mode.enabled,
                                  formatting.get_printoptions(), threads.snapshot())
            dtypes.set_default_dtype(saved[0])
            engine_device.DEFAULT_DEVICE[0] = saved_device
            engine_device.leave_device_blocks()
            autograd_modes.grad_mode.enabled = saved[1]
            formatting.set_printoptions(**saved[2])
            factory.set_max_elements(saved[3])
            set_step_hook(saved[6])
            autograd.set_site_hook(saved[4])
            sys.setrecursionlimit(saved[5])
            if threads.snapshot() != saved_threads:
                threads.restore(saved_threads)
            saved_hooks.reset()  # saved tensors' hooks a script left set end with its run
            if hooks is not None:
                hooks.__exit__(None, None, None)
            self._anomaly = (autograd_modes.anomaly_mode.enabled, autograd_modes.anomaly_mode.check_nan)
            autograd_modes.anomaly_mode.enabled, autograd_modes.anomaly_mode.check_nan = saved_anomaly

    # ------------------------------------------------------------------ errors
    def _convert(self, exc, node, filename):
        if isinstance(exc, GradScriptError):
            if exc.filename is None:
                exc.filename = filename
            return exc
        tagged = getattr(exc, "_gs_node", None)
        if too_many_dims(exc):
            return self._convert(LimitError("RuntimeError", MAX_DIMS_MESSAGE, hint="max_dims", node=tagged), node,
                                 filename)
        internal = getattr(exc, "_gs_internal", None) if tagged is not None else None
        if internal is None:
            internal = is_internal(exc)
        node = tagged or node
        if internal:
            return _internal(exc, filename, node)
        type_name = exc.type_name if isinstance(exc, LimitError) else type(exc).__name__
        try:
            message = python_message(exc)
        except LimitError as limit:  # its text ran the script's code (a module's extra_repr) into a limit
            return self._convert(limit, node, filename)
        except Exception:  # noqa: BLE001 - an exception whose text fails: still report it
            message = "<exception str() failed>"
        hint = hint_text(getattr(exc, "gradcli_hint", None)) or getattr(exc, "gradcli_hint_text", None)
        if hint is None and type_name == "NameError":
            hint = missing_import_hint(message)
        span = _span(node)
        site = getattr(exc, "gradcli_site", None)  # anomaly mode, --check: where the node was created
        if site is not None:
            from ..engine.autograd import site_pair  # noqa: PLC0415 - the engine is loaded by then
            site = site_pair(site)
        if site is not None:
            called = f"; backward was called at line {span['line']}" if span.get("line") else ""
            hint = (getattr(exc, "gradcli_hint_text", None) or
                    f"this line created {getattr(exc, 'gradcli_node', 'the node')}, whose backward produced NaN") + called
            lines = (self._source or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
            end = len(lines[site[0] - 1].rstrip()) + 1 if 0 < site[0] <= len(lines) else None
            span = dict(line=site[0], column=site[1], end_line=site[0], end_column=end)
        error = GradScriptError(message, type_name=type_name, filename=filename, hint=hint, **span)
        # `raise MemoryError('...')` is the script's own error, never the memory cap's (cli.common.cap_memory_error)
        error.raised_by_script = bool(getattr(exc, "_gs_raised", False))
        return error

    # ------------------------------------------------------------------ running
    def _parse(self, source, filename):
        from .parser import parse
        if len(source) > MAX_SOURCE_CHARS:
            return None, source_too_large(filename)
        try:
            with paused():
                # return/break/continue out of place are found statement by statement, when the
                # compiler reaches them, as Python's interactive mode compiles them (compile_module)
                return parse(source, filename, check_context=False), None
        except GradScriptError as e:
            if e.filename is None:
                e.filename = filename
            return None, e
        except RecursionError:
            return None, GradScriptError("maximum recursion depth exceeded during compilation (source nested "
                                         "too deeply)", type_name="RecursionError", filename=filename,
                                         line=1, column=1)
        except Exception as e:  # noqa: BLE001 - the parser failed: gradcli's fault
            return None, _internal(e, filename)

    def run(self, source: str, filename: str = "<string>") -> RunResult:
        self._outputs = []
        self._warnings = []
        self._warned = {}  # the repeats of each site and text in this run (a REPL's inputs all start at line 1)
        self._repeated_text = 0
        self.rt.reset()
        self._source = self._session_source(source)
        self._hooks = None
        with _watch_clock(self.rt):
            module, error = self._parse(source, filename)
            if error is None:
                error = self._execute(module, filename)
        hooks = self._hooks
        return RunResult(ok=error is None, outputs=self._outputs, error=error, warnings=self._warnings,
                         variables=self.variables(), explain=list(hooks.explain) if hooks else [],
                         checks=list(hooks.checks) if hooks else [])

    def _session_source(self, source):
        """The session's source so far: this run's lines over the earlier runs' (a REPL numbers its
        inputs on, padding each with blank lines), so an earlier input's line keeps its text."""
        if not self._source or "\n" not in self._source or len(source) > MAX_SOURCE_CHARS:
            return source   # a first run (every `gradcli run`), or one refused for its size anyway
        earlier, lines = self._source.split("\n"), source.split("\n")
        merged = [new if new.strip() or i >= len(earlier) else earlier[i] for i, new in enumerate(lines)]
        return "\n".join(merged + earlier[len(lines):])

    def _execute(self, module, filename):
        from .compiler import Compiler
        rt = self.rt
        try:
            with self._engine(filename):
                try:
                    with paused():  # many new long-lived objects: the collector would rescan them all
                        compiled = Compiler(rt, self.namespaces, self.globals, filename).compile_module(module)
                except GradScriptError as e:
                    return self._convert(e, None, filename)
                except RecursionError:
                    return GradScriptError("maximum recursion depth exceeded during compilation (source nested "
                                           "too deeply)", type_name="RecursionError", filename=filename,
                                           line=1, column=1)
                G, loc = self.globals, rt.loc
                for node, f in compiled:
                    loc[0] = node
                    try:
                        if rt.budget < 0:  # emptied by _watch_clock: past the --timeout deadline
                            rt.refill()
                        f(G)
                        if rt.deferred is not None:  # a limit reached as a generator was collected
                            rt.raise_deferred()
                    except (Exception, LimitError) as e:  # noqa: BLE001 - the script's error (or ours): reported
                        return self._convert(e, loc[0] or node, filename)
                    except BaseException as e:  # raise GeneratorExit, class E(BaseException): the script's
                        if not getattr(e, "_gs_raised", False):
                            raise  # Ctrl-C
                        return self._convert(e, loc[0] or node, filename)
                    finally:
                        rt.site = None
                        rt.depth = 0
        except GradScriptError as e:
            return self._convert(e, None, filename)
        except Exception as e:  # noqa: BLE001 - anything left is gradcli's own failure
            return _internal(e, filename, rt.loc[0])
        return None

    def evaluate(self, expr: str, filename: str = "<expr>"):
        """The value of one expression in this session (raises GradScriptError)."""
        module, error = self._parse(expr, filename)
        if error is not None:
            raise error
        if len(module.body) != 1 or type(module.body[0]) is not A.ExprStmt:
            raise GradScriptError("expected a single expression", type_name="SyntaxError", filename=filename,
                                  **_span(module.body[0] if module.body else None))
        from .compiler import Compiler
        rt = self.rt
        rt.reset()
        node = module.body[0]
        result = []
        with self._engine(filename), _watch_clock(rt):
            try:
                fn = Compiler(rt, self.namespaces, self.globals, filename).compile_expression(node.value)
                rt.loc[0] = node
                result.append(fn(self.globals))
            except GradScriptError as e:
                raise self._convert(e, node, filename) from None
            except (Exception, LimitError) as e:  # noqa: BLE001
                raise self._convert(e, node, filename) from None
            except BaseException as e:  # a BaseException the script raised itself (not Ctrl-C)
                if not getattr(e, "_gs_raised", False):
                    raise
                raise self._convert(e, node, filename) from None
            finally:
                rt.site = None
        return result[0]

    def variables(self):
        """The script's top-level names (user values, not the imported namespaces)."""
        out = {}
        imported = self._imported_values()
        for k, v in self.globals.items():
            if isinstance(v, Namespace) or id(v) in imported:
                continue
            out[k] = v
        return out

    def _imported_values(self):
        ids = set()
        for ns in self.namespaces.loaded_modules():
            ids.update(id(v) for _, v in loaded_members(ns) if not isinstance(v, (int, float, str, bool)))
        return ids

    def set_device(self, device: str):
        """Change the default device of constructors; imported names are re-bound, values kept."""
        old = self.namespaces
        new = Namespaces(self.rt, device=device or "cpu", seed=self.options.seed)
        for path, ns in old.modules.items():  # keep numpy and math (and their RNG state) as they are
            if not path.startswith("torch"):
                new.modules[path] = ns
        remap = {}
        for path, ns in old.modules.items():
            target = new.module(path)
            remap[id(ns)] = target or ns
            for name, value in loaded_members(ns):
                if target is not None and name in target._members:
                    remap.setdefault(id(value), target._members[name])
        for key, value in list(self.globals.items()):
            if id(value) in remap:
                self.globals[key] = remap[id(value)]
        self.namespaces = new
        self.options.device = device

    def predefine_modules(self):
        """Bind torch, np, nn, F, math, as a calculator or REPL may want without imports."""
        for name, path in (("torch", "torch"), ("np", "numpy"), ("nn", "torch.nn"),
                           ("F", "torch.nn.functional"), ("math", "math")):
            ns = self.namespaces.module(path)
            if ns is not None and name not in self.globals:
                self.globals[name] = ns

    # ------------------------------------------------------------------ completion
    def complete(self, prefix: str) -> list:
        try:
            return self._complete(prefix)
        except Exception:  # noqa: BLE001 - completion never fails
            return []

    def _complete(self, prefix):
        if "." in prefix:
            head, _, tail = prefix.rpartition(".")
            parts = head.split(".")
            if not all(p.isidentifier() and not p.startswith("_") for p in parts):
                return []
            first = parts[0]
            if first in self.globals:
                obj = self.globals[first]
            elif first in self.namespaces.builtins:
                obj = self.namespaces.builtins[first]
            else:
                return []
            with _warnings.catch_warnings():
                _warnings.simplefilter("ignore")
                for p in parts[1:]:
                    obj = get_attr(obj, p)
                names = public_attributes(obj)
                if tail.startswith("_"):  # the script's own '_names' (lang/private.py), as Python completes them
                    names = names + private_attributes(obj)
            return sorted(f"{head}.{n}" for n in names if n.startswith(tail))
        pool = set(self.globals) | set(self.namespaces.builtins) | set(keyword.kwlist)
        return sorted(n for n in pool if n.startswith(prefix) and (prefix.startswith("_") or not n.startswith("_")))


def run_source(source, filename="<string>", options=None, write=None, warn=None) -> RunResult:
    """Run a whole script in a fresh session."""
    return Session(options or RunOptions(), write=write, warn=warn).run(source, filename)


def evaluate_expression(expr: str, variables: dict, options=None):
    """The calculator: the value of one expression with the given variables bound
    (torch, np, nn, F and math are predefined). Raises GradScriptError on failure."""
    session = Session(options or RunOptions())
    session.predefine_modules()
    session.globals.update(variables)
    return session.evaluate(expr)


__all__ = ["RunOptions", "Output", "Warning", "RunResult", "Session", "run_source", "evaluate_expression",
           "InternalError", "HINTS", "hint_text", "missing_import_hint", "MAX_SOURCE_CHARS", "source_too_large"]
