"""Run-time support of compiled GradScript: the per-run state (limits, output, current
location), frames, user functions, control-flow signals and the tagging of exceptions with
the source node that raised them.

Compiled code (see compiler.py) is a tree of Python closures ``f(frame)``. A frame is a dict
of variables with a ``parent`` link to the frame the function was defined in (closures); the
module frame is the globals dict itself.
"""
from __future__ import annotations

import os
import time
import types

from .errors import GradScriptError

_LANG_DIR = os.path.dirname(os.path.abspath(__file__))
_PKG_DIR = os.path.dirname(_LANG_DIR)
_ENGINE_DIR = os.path.join(_PKG_DIR, "engine")

CHUNK = 256  # steps between two checks of the step total and the wall clock
MAX_SAFE_DEPTH = 2000  # deeper user recursion could overflow the C stack (through nn.Module calls)


class Frame(dict):
    """Variables of one scope; ``parent`` is the enclosing function's frame (or None)."""

    __slots__ = ("parent",)


# control-flow signals returned by statement closures (a Return is a 1-tuple (value,))
class _Signal:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


BREAK = _Signal("BREAK")
CONTINUE = _Signal("CONTINUE")


class LimitError(BaseException):
    """A resource limit of the run was reached; ``type_name`` is what the user sees.

    Not an ``Exception``: like Python's KeyboardInterrupt it goes through every handler of the
    script (``except Exception`` and a bare ``except`` included, see ``catchable``), and through
    code of gradcli that handles ``Exception``. It carries the statement that was running
    (``_gs_node``), since the handlers that tag exceptions on their way out do not see it."""

    def __init__(self, type_name, message, hint=None, node=None):
        super().__init__(message)
        self.type_name = type_name
        self.gradcli_hint = hint
        self._gs_node = node
        self._gs_internal = False


def timeout_text(timeout):
    return f"the script ran longer than {timeout:g} second{'' if timeout == 1 else 's'} (--timeout)"


class Runtime:
    """The mutable state of one run: limits, counters, output sink, current statement."""

    def __init__(self, write, max_steps=10_000_000, max_depth=200, timeout=None, max_elements=100_000_000,
                 filename="<string>"):
        self.write = write                # write(text, line)
        self.max_steps = max_steps
        self.max_depth = max(1, min(max_depth, MAX_SAFE_DEPTH))
        self.timeout = timeout
        self.max_elements = max_elements
        self.filename = filename
        self.loc = [None]                 # the statement node being executed
        self.site = None                  # a finer node for warnings (x.grad), else None
        self.depth = 0
        self.reset()

    def reset(self):
        self.handling = []                # the exceptions whose handlers run (innermost last): bare raise
        self.spent = 0
        self.chunk = min(CHUNK, self.max_steps)
        self.budget = self.chunk
        self.deadline = None if self.timeout is None else time.monotonic() + self.timeout
        self.depth = 0
        self.deferred = None              # a limit reached where it could not be raised (see defer)

    def defer(self, exc):
        """A LimitError raised where Python cannot pass it on (a generator closed by the garbage
        collector): the script's next step raises it (``refill``), or the runner after the statement."""
        if self.deferred is None:
            self.deferred = exc
        self.budget = -1

    def raise_deferred(self):
        exc, self.deferred = self.deferred, None
        if exc is not None:
            raise exc

    def refill(self):
        """Called when ``budget`` went below zero: account, check the limits, grant a new chunk."""
        if self.deferred is not None:
            self.raise_deferred()
        self.spent += self.chunk
        if self.spent >= self.max_steps:
            self.budget = 0
            raise LimitError("RuntimeError", f"step limit of {self.max_steps} exceeded (--max-steps)",
                             hint="max_steps", node=self.loc[0])
        self.check_time()
        self.chunk = min(CHUNK, self.max_steps - self.spent)
        self.budget = self.chunk - 1

    def step(self):
        """One step counted by code that is not the script's (the engine's loops: ``limits.STEP_HOOK``)."""
        self.budget -= 1
        if self.budget < 0:
            self.refill()

    def check_time(self):
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise LimitError("TimeoutError", timeout_text(self.timeout), hint="timeout", node=self.loc[0])

    def line(self):
        node = self.loc[0]
        return node.line if node is not None else None

    def print(self, *args, sep=" ", end="\n", file=None, flush=False, **extra):
        if extra:
            raise TypeError(f"'{next(iter(extra))}' is an invalid keyword argument for print()")
        if file is not None:
            raise TypeError("print(): file= is not supported in GradScript (no file access)")
        if sep is None:
            sep = " "
        elif not isinstance(sep, str):
            raise TypeError(f"sep must be None or a string, not {type(sep).__name__}")
        if end is None:
            end = "\n"
        elif not isinstance(end, str):
            raise TypeError(f"end must be None or a string, not {type(end).__name__}")
        pieces = [str(a) for a in args]
        text = sep.join(pieces) + end
        if not text.isascii():
            self._check_encodable(pieces, sep, end)
        self.write(text, self.line())

    def _check_encodable(self, pieces, sep, end):
        """Python's print to a UTF-8 stdout: a lone surrogate is a UnicodeEncodeError at the piece
        (argument, sep or end) that holds it, after the pieces before it were written."""
        try:
            (sep.join(pieces) + end).encode("utf-8")
            return
        except UnicodeEncodeError:
            pass
        parts = []
        for i, piece in enumerate(pieces):
            parts.extend((sep, piece) if i else (piece,))
        parts.append(end)
        for k, part in enumerate(parts):
            try:
                part.encode("utf-8")
            except UnicodeEncodeError as exc:
                if k:
                    self.write("".join(parts[:k]), self.line())
                exc._gs_user = True
                raise exc.with_traceback(None) from None

    def echo(self, value):
        if value is not None:
            self.write(repr(value) + "\n", self.line())


# ----------------------------------------------------------------------------- functions

def _plural(n, word):
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _names_list(names):
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


class function:  # noqa: N801 - named like Python's, so C-level messages say "'function' object"
    """A user function (def or lambda): called like a Python function, binds as a method."""

    # __name__ / __qualname__ are slots (for reprs of bound methods, errors), not a __getattr__:
    # a class with __getattr__ makes every attribute read of its instances take the slow path.
    __slots__ = ("name", "qualname", "params", "defaults", "vararg", "kwarg", "kwonly", "kw_defaults",
                 "body", "closure", "rt", "nparams", "simple", "is_lambda", "__weakref__",
                 "__name__", "__qualname__")
    # A script's functions live in __main__, as Python's do: torch.typename and nn's messages name one
    # '__main__.f' (a class attribute, so that instances read it; type(f) is shown as 'function').
    __module__ = "__main__"

    def __init__(self, rt, name, qualname, params, defaults, vararg, kwarg, kwonly, kw_defaults, body,
                 closure, is_lambda):
        self.rt = rt
        self.name = self.__name__ = name
        self.qualname = self.__qualname__ = qualname
        self.params = tuple(params)
        self.defaults = tuple(defaults)
        self.vararg = vararg
        self.kwarg = kwarg
        self.kwonly = tuple(kwonly)
        self.kw_defaults = dict(kw_defaults)  # name -> value (only those with a default)
        self.body = body
        self.closure = closure
        self.nparams = len(self.params)
        self.simple = vararg is None and kwarg is None and not self.kwonly
        self.is_lambda = is_lambda

    def __repr__(self):
        return f"<function {self.qualname} at {hex(id(self))}>"

    def __get__(self, obj, cls=None):
        return self if obj is None else types.MethodType(self, obj)

    def __call__(self, *args, **kwargs):
        rt = self.rt
        rt.budget -= 1
        if rt.budget < 0:
            rt.refill()
        depth = rt.depth
        if depth >= rt.max_depth:
            raise LimitError("RecursionError", "maximum recursion depth exceeded", hint="recursion", node=rt.loc[0])
        n = len(args)
        if kwargs or not self.simple or n != self.nparams:
            frame = self._bind(args, kwargs)
        else:  # item stores: Frame(zip(...)) takes the slow generic path (4x the time)
            frame = Frame()
            if n == 2:  # a method's (self, x)
                p = self.params
                frame[p[0]] = args[0]
                frame[p[1]] = args[1]
            elif n == 1:
                frame[self.params[0]] = args[0]
            elif n:
                for p, a in zip(self.params, args):
                    frame[p] = a
        frame.parent = self.closure
        loc = rt.loc
        saved = loc[0]
        rt.depth = depth + 1
        try:
            result = self.body(frame)
        finally:
            rt.depth = depth
            loc[0] = saved
        if self.is_lambda:
            return result
        if type(result) is tuple:
            return result[0]
        return None

    def bind_positional(self, args, kwargs):
        """The values of the positional parameters (defaults filled in) for a call with these
        arguments (torch.autograd.Function.apply's binding in the setup_context form)."""
        frame = self._bind(args, kwargs)
        values = [frame[p] for p in self.params]
        if self.vararg is not None:
            values.extend(frame[self.vararg])
        return tuple(values)

    def _bind(self, args, kwargs):
        """Python's argument binding, with CPython 3.11's error texts."""
        params, n = self.params, self.nparams
        frame = Frame()
        name = self.qualname
        if len(args) > n:
            if self.vararg is None:
                ndef = len(self.defaults)
                if ndef:
                    takes = f"from {n - ndef} to {n} positional arguments"
                else:
                    takes = _plural(n, "positional argument")
                given = len(args)
                kwonly_given = [k for k in kwargs if k in self.kwonly]
                if kwonly_given:
                    raise TypeError(f"{name}() takes {takes} but {_plural(given, 'positional argument')} "
                                    f"(and {_plural(len(kwonly_given), 'keyword-only argument')}) were given")
                raise TypeError(f"{name}() takes {takes} but {given} {'was' if given == 1 else 'were'} given")
            frame[self.vararg] = tuple(args[n:])
            args = args[:n]
        elif self.vararg is not None:
            frame[self.vararg] = ()
        for p, a in zip(params, args):
            frame[p] = a
        extra = {} if self.kwarg is not None else None
        for k, v in kwargs.items():
            if k in params or k in self.kwonly:
                if k in frame:
                    raise TypeError(f"{name}() got multiple values for argument '{k}'")
                frame[k] = v
            elif extra is not None:
                extra[k] = v
            else:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        ndef = len(self.defaults)
        first_default = n - ndef
        missing = []
        for i, p in enumerate(params):
            if p not in frame:
                if i >= first_default:
                    frame[p] = self.defaults[i - first_default]
                else:
                    missing.append(p)
        if missing:
            raise TypeError(f"{name}() missing {len(missing)} required positional argument"
                            f"{'s' if len(missing) > 1 else ''}: {_names_list(missing)}")
        missing = []
        for p in self.kwonly:
            if p not in frame:
                if p in self.kw_defaults:
                    frame[p] = self.kw_defaults[p]
                else:
                    missing.append(p)
        if missing:
            raise TypeError(f"{name}() missing {len(missing)} required keyword-only argument"
                            f"{'s' if len(missing) > 1 else ''}: {_names_list(missing)}")
        if extra is not None:
            frame[self.kwarg] = extra
        return frame


Function = function

# ----------------------------------------------------------------------------- error tagging

# Exception types that, raised from inside gradcli's own code (not by the script's operation
# itself), mean a bug of gradcli rather than a mistake of the script. The engine models torch, whose
# errors include AttributeError/KeyError/TypeError for bad arguments, so there only the types no
# torch function raises count as bugs.
BUG_TYPES = (AttributeError, KeyError, NameError, AssertionError, ImportError, SystemError, UnboundLocalError)
ENGINE_BUG_TYPES = (NameError, AssertionError, ImportError, SystemError, UnboundLocalError)

USER_RAISERS = set()  # code objects of helpers whose exceptions are the script's (see user_raiser)


def user_raiser(fn):
    """Mark a helper whose exceptions are always the script's own fault."""
    code = getattr(fn, "__code__", None)
    if code is not None:
        USER_RAISERS.add(code)
    return fn


def is_internal(exc):
    if isinstance(exc, LimitError) or getattr(exc, "_gs_user", False):
        return False
    if not isinstance(exc, BUG_TYPES) or hasattr(exc, "gradcli_hint"):
        return False
    tb = exc.__traceback__
    if tb is None or tb.tb_next is None:
        return False  # raised by the operation of the node itself (C code or a deliberate raise)
    root = tb.tb_frame.f_code
    last_ours = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.startswith(_PKG_DIR):
            last_ours = code
        tb = tb.tb_next
    if last_ours is None or last_ours is root or last_ours in USER_RAISERS:
        return False
    if last_ours.co_filename.startswith(_ENGINE_DIR):
        return isinstance(exc, ENGINE_BUG_TYPES)
    return True


# the engine's own limit errors (a RuntimeError whose gradcli_hint is one of these) are gradcli's too
_LIMIT_HINTS = frozenset(("max_elements", "max_steps", "timeout", "recursion"))


def too_many_dims(exc):
    """NumPy's error for an array of more than 64 dims (NPY_MAXDIMS; from nested lists: torch.tensor of a list
    65 deep): PyTorch has no such limit, so it
    is gradcli's, a limit of the run, never an error of the script's to catch. NumPy's error holds one
    str; ``str(exc)`` of another would run a script's ``__str__`` (``raise ValueError(obj)``: gradcli's
    code, after the run, outside the script's limits)."""
    if not isinstance(exc, ValueError) or getattr(exc, "_gs_raised", False):
        return False
    args = exc.args
    return (len(args) == 1 and type(args[0]) is str
            and (args[0].startswith("maximum supported dimension for an ndarray")
                 or args[0].endswith("The requested array would exceed the maximum number of dimension of 64.")))


MAX_DIMS_MESSAGE = "tensors of more than 64 dimensions are beyond gradcli: NumPy's limit, not PyTorch's (GradScript limit)"


def catchable(exc):
    """May a handler of the script (try/except) catch this exception? Only the script's own
    errors: never gradcli's limits (LimitError, the engine's --max-elements error, Python's own
    RecursionError and MemoryError), its internal failures (a bug of gradcli, a deferred syntax error), Ctrl-C or
    SystemExit, whatever the except clause names."""
    if isinstance(exc, _CONTROL_TYPES):
        return False
    if getattr(exc, "_gs_raised", False):  # the script's own `raise RecursionError(...)` is its own
        return True
    if isinstance(exc, _LIMIT_TYPES) or too_many_dims(exc):
        return False
    if getattr(exc, "gradcli_hint", None) in _LIMIT_HINTS:
        return False
    internal = getattr(exc, "_gs_internal", None) if getattr(exc, "_gs_node", None) is not None else None
    if internal is None:
        internal = is_internal(exc)
    return not internal


_CONTROL_TYPES = (LimitError, GradScriptError, KeyboardInterrupt, SystemExit)
# Python's own RecursionError (the interpreter's stack) and MemoryError (under --max-memory, an
# address-space limit, a failed allocation) are gradcli's limits too, unless the script raised them
_LIMIT_TYPES = (RecursionError, MemoryError)


def iter_of(value, node):
    """iter(value), its error tagged with the iterable's node (for loops, yield from)."""
    try:
        return iter(value)
    except Exception as e:
        tag(e, node)
        raise


def enter_context(mgr, node):
    """A with statement's start: (what __enter__ gave, the manager's __exit__), errors tagged with
    the context expression's node, as Python words them."""
    t = type(mgr)
    try:
        enter, exit_ = t.__enter__, t.__exit__
    except AttributeError:
        err = TypeError(f"'{t.__name__}' object does not support the context manager protocol")
        tag(err, node)
        raise err from None
    try:
        return enter(mgr), exit_
    except Exception as e:
        tag(e, node)
        raise


def exit_context(mgr, exit_, exc):
    """A with statement's end by the exception exc: does the manager swallow it? gradcli's own stops
    (limits, internal errors, Ctrl-C: not ``catchable``) are never swallowed, and a manager of the
    script's own class does not see them: its ``__exit__`` runs as for a normal end, as a ``finally``
    block runs without seeing what stops the run (the engine's managers get the exception)."""
    if catchable(exc):
        return bool(exit_(mgr, type(exc), exc, exc.__traceback__))
    if any("_gradscript_class" in c.__dict__ for c in type(mgr).__mro__):
        exit_(mgr, None, None, None)
    else:
        exit_(mgr, type(exc), exc, exc.__traceback__)
    return False


def tag(exc, node):
    """Record the innermost source node an exception passed through (first one wins)."""
    try:
        if getattr(exc, "_gs_node", None) is None:
            exc._gs_node = node
            if type(exc) is TypeError:  # a Tensor method taking no arguments, as torch words it (method_arity.py)
                from .method_arity import reworded  # noqa: PLC0415 - only for the error
                text = reworded(exc, node)
                if text is not None:
                    exc.args = (text,)
            exc._gs_internal = is_internal(exc)
    except Exception:  # noqa: BLE001 - an exception object that refuses attributes: leave it
        pass
