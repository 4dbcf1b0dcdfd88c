"""`import warnings` in GradScript: CPython 3.11's warnings module (Lib/warnings.py) over the
warnings of one session, the script's own (``warnings.warn``) and the engine's (torch's messages,
which the runner's ``Session._showwarning`` receives from Python's machinery and hands here).

The filters are the session's state, never Python's ``warnings.filters``: the engine keeps warning
through Python's module under the runner's ``catch_warnings`` (always, shown by the runner), and
what a script's filter decides happens here, at the warning's site. They start as the oracle's
(tools/make_goldens.py, torch-echo: ``simplefilter("always")``), so a warning the script did not
filter is shown (stderr: once per site, as gradcli shows the engine's) and recorded every time.

Doors, each closed: a message or module pattern is matched by safe_regex (linear time, metered);
a category must be a class (a script's class cannot define __subclasscheck__ or a metaclass);
``warnings.filters`` reads the filters but refuses a change (FiltersList: the script changes filters
through the functions, never with tuples of its own that the matching would call); ``showwarning``
and the module's other attributes cannot be assigned (Namespace); ``formatwarning`` reads no file
but the script's own source; a WarningMessage shows its seven fields only.
"""
from __future__ import annotations

import builtins
import operator
import sys

from .generators import DRIVE_CODE
from .pybuiltins import ScriptType
from .runtime import function, user_raiser
from .safe_regex import LinearPattern, UnsupportedPattern

ACTIONS = ("error", "ignore", "always", "default", "module", "once")
MODULE = "__main__"  # every line of a script is __main__'s, as in Python
_FRAME_CODES = (function.__call__.__code__, DRIVE_CODE)  # a call of the script's function, a generator's step


def _user(exc):
    exc._gs_user = True  # the script's mistake, never taken for a bug of gradcli
    return exc


def _class(value):
    return value.cls if isinstance(value, ScriptType) else value


class FilterPattern:
    """A filter's compiled message/module pattern as ``warnings.filters`` shows it (re.compile(...))."""

    __slots__ = ("linear", "pattern", "flags")
    __gradscript_attrs__ = frozenset(("pattern", "flags"))
    __module__ = "re"  # type(p) prints as Python's compiled pattern's: <class 're.Pattern'>

    def __init__(self, pattern, flags):
        try:
            self.linear = LinearPattern(pattern, flags)
        except UnsupportedPattern as e:
            raise _user(NotImplementedError(
                f"GradScript's warnings filters match patterns in linear time: {e} ({pattern[:80]!r})")) from None
        self.pattern, self.flags = pattern, self.linear.compiled.flags

    def __repr__(self):
        return repr(self.linear.compiled)

    def __eq__(self, other):
        return isinstance(other, FilterPattern) and (self.pattern, self.flags) == (other.pattern, other.flags)

    def __hash__(self):
        return hash((self.pattern, self.flags))


class FiltersList(list):
    """``warnings.filters`` as a script sees it: Python's list of the filter tuples, kept up to date in place
    by the functions (filterwarnings, simplefilter, resetwarnings) and swapped by catch_warnings, as Python's
    is; a change through the list itself is refused (its items would be the script's, not the patterns and
    classes that the matching trusts)."""

    __slots__ = ()
    __gradscript_attrs__ = frozenset(name for name in dir(list) if name[:1] != "_")  # a list's methods

    def _refuse(self, *args, **kwargs):
        raise _user(TypeError("warnings.filters cannot be changed in GradScript: change the filters with "
                              "warnings.filterwarnings, warnings.simplefilter or warnings.resetwarnings"))

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse


user_raiser(FiltersList._refuse)
FiltersList.__name__ = FiltersList.__qualname__ = "list"  # type(warnings.filters) is <class 'list'>
FiltersList.__module__ = "builtins"


class WarningMessage:
    """Python's warnings.WarningMessage: what catch_warnings(record=True) lists."""

    __slots__ = ("message", "category", "filename", "lineno", "file", "line", "source", "_category_name")
    __gradscript_attrs__ = frozenset(("message", "category", "filename", "lineno", "file", "line", "source"))
    __module__ = "warnings"  # <class 'warnings.WarningMessage'>, as Python prints it

    def __init__(self, message, category, filename, lineno, file=None, line=None, source=None):
        self.message, self.category, self.filename, self.lineno = message, _class(category), filename, lineno
        self.file, self.line, self.source = file, line, source
        self._category_name = self.category.__name__ if self.category else None

    def __str__(self):
        return ("{message : %r, category : %r, filename : %r, lineno : %s, line : %r}"
                % (self.message, self._category_name, self.filename, self.lineno, self.line))


user_raiser(WarningMessage.__init__)
user_raiser(WarningMessage.__str__)


class WarningsState:
    """One session's warnings: the filters, the registries of 'default'/'module'/'once', the list
    that the innermost catch_warnings(record=True) fills. ``show(category_name, text, line,
    column)`` shows a warning (the runner's stderr path); ``source_line(filename, lineno)`` is a
    line of the script's source or None; ``rt`` meters the pattern matching."""

    def __init__(self, rt, show, source_line):
        self.rt, self.show, self.source_line = rt, show, source_line
        self.filters = [("always", None, builtins.Warning, None, 0)]
        self.version = 1        # Python's _filters_version: a change clears the registry
        self.registry = {}      # __main__'s __warningregistry__
        self.onceregistry = {}
        self.log = None         # the innermost catch_warnings(record=True)'s list
        self.on_change = None   # told a new view of the filters (the facade's `filters` member)
        self.view = FiltersList(self.filters)

    def mutated(self):
        self.version += 1
        list.__setitem__(self.view, slice(None), self.filters)

    def new_view(self, view=None):
        """catch_warnings gives the module a new filters list on entry and the saved one back on exit."""
        self.view = FiltersList(self.filters) if view is None else view
        self.mutated()
        if self.on_change is not None:
            self.on_change(self.view)

    def add_filter(self, item, append):
        if not append:
            try:
                self.filters.remove(item)
            except ValueError:
                pass
            self.filters.insert(0, item)
        elif item not in self.filters:
            self.filters.append(item)
        self.mutated()

    def _matches(self, pattern, text):
        return pattern is None or pattern.linear.match(text, self.rt.step)

    def warn_explicit(self, message, category, filename, lineno, column=None, source=None, module=MODULE,
                      registry=None):
        """Lib/warnings.py's warn_explicit (for the module __main__ and its registry unless told); a warning
        shown goes to the record list or to ``show``. "error" raises the warning."""
        if registry is None:
            registry = self.registry
        if registry.get("version", 0) != self.version:
            registry.clear()
            registry["version"] = self.version
        if isinstance(message, builtins.Warning):
            text = str(message)
            category = message.__class__
        else:
            text = message
            message = category(message)
        key = (text, category, lineno)
        if registry.get(key):
            return
        for action, msg, cat, mod, ln in self.filters:
            if (self._matches(msg, text) and issubclass(category, cat) and self._matches(mod, module)
                    and (ln == 0 or lineno == ln)):
                break
        else:
            action = "default"
        if action == "ignore":
            return
        if action == "error":
            raise _user(message)
        if action == "once":
            registry[key] = 1
            oncekey = (text, category)
            if self.onceregistry.get(oncekey):
                return
            self.onceregistry[oncekey] = 1
        elif action == "module":
            registry[key] = 1
            altkey = (text, category, 0)
            if registry.get(altkey):
                return
            registry[altkey] = 1
        elif action == "default":
            registry[key] = 1
        if self.log is not None:
            self.log.append(WarningMessage(message, category, filename, lineno, source=source))
        else:
            self.show(category.__name__, str(message), lineno or None, column)


# their errors (issubclass of a filter's category that is no class, re's TypeError for a message that is
# no string) are the script's
user_raiser(WarningsState.warn_explicit)
user_raiser(WarningsState._matches)
user_raiser(LinearPattern.match)


def _site(rt, stacklevel):
    """(line, column) of the statement stacklevel frames up: 1 is the warn() call's statement, 2 the
    call of the function (or the step of the generator) that holds it, ...; None past the outermost (Python's 'sys', line 1)."""
    node = rt.loc[0]
    if stacklevel > 1:
        frame = sys._getframe(1)
        left = stacklevel - 1
        while frame is not None and left:
            if frame.f_code in _FRAME_CODES:  # a script function's call or generator's step: the caller's statement
                node = frame.f_locals.get("saved")
                left -= 1
            frame = frame.f_back
        if left:
            return None
    return (node.line, node.column) if node is not None else (None, None)


class catch_warnings:  # noqa: N801 - Python's name
    """warnings.catch_warnings: the filters (and the record list) saved on entry, given back on
    exit; record=True lists the warnings shown inside instead of showing them."""

    __slots__ = ("_state", "_record", "_filter", "_entered", "_saved")
    __gradscript_attrs__ = frozenset()
    __module__ = "warnings"

    def __init__(self, *, record=False, module=None, action=None, category=builtins.Warning, lineno=0,
                 append=False):
        if module is not None:
            raise _user(TypeError("catch_warnings(module=...) is not available in GradScript: it saves the "
                                  "warnings module's own state"))
        self._state = None
        self._record = record
        self._filter = None if action is None else (action, category, lineno, append)
        self._entered = False

    def __repr__(self):
        return f"{type(self).__name__}({'record=True' if self._record else ''})"

    def __enter__(self):
        if self._entered:
            raise _user(RuntimeError(f"Cannot enter {self!r} twice"))
        state = self._state
        self._entered = True
        self._saved = (state.filters, state.log, state.view)
        state.filters = state.filters[:]
        state.new_view()
        if self._filter is not None:
            simplefilter_on(state, *self._filter)
        if self._record:
            state.log = []
            return state.log
        return None

    def __exit__(self, *exc):
        if not self._entered:
            raise _user(RuntimeError(f"Cannot exit {self!r} without entering first"))
        state = self._state
        state.filters, state.log, view = self._saved
        state.new_view(view)


for _method in (catch_warnings.__init__, catch_warnings.__enter__, catch_warnings.__exit__):
    user_raiser(_method)


def _check_action(action):
    if action not in ACTIONS:
        raise _user(AssertionError(f"invalid action: {action!r}"))


@user_raiser
def simplefilter_on(state, action, category=builtins.Warning, lineno=0, append=False):
    _check_action(action)
    if not (isinstance(lineno, int) and lineno >= 0):
        raise _user(AssertionError("lineno must be an int >= 0"))
    state.add_filter((action, None, _class(category), None, lineno), append)


def warnings_members(state):
    """The members of the module `warnings` over one session's WarningsState (its `filters`, the state's
    FiltersList, is set again by ``state.on_change`` when catch_warnings swaps it)."""

    @user_raiser
    def filterwarnings(action, message="", category=builtins.Warning, module="", lineno=0, append=False):
        _check_action(action)
        category = _class(category)
        for ok, text in ((isinstance(message, str), "message must be a string"),
                         (isinstance(category, type), "category must be a class"),
                         (isinstance(category, type) and issubclass(category, builtins.Warning),
                          "category must be a Warning subclass"),
                         (isinstance(module, str), "module must be a string"),
                         (isinstance(lineno, int) and lineno >= 0, "lineno must be an int >= 0")):
            if not ok:
                raise _user(AssertionError(text))
        msg = FilterPattern(message, 2) if message else None  # re.I
        mod = FilterPattern(module, 0) if module else None
        state.add_filter((action, msg, category, mod, lineno), append)

    @user_raiser
    def simplefilter(action, category=builtins.Warning, lineno=0, append=False):
        simplefilter_on(state, action, category, lineno, append)

    @user_raiser
    def resetwarnings():
        state.filters[:] = []
        state.mutated()

    @user_raiser
    def warn(message, category=None, stacklevel=1, source=None):
        if isinstance(message, builtins.Warning):
            category = message.__class__
        if category is None:
            category = builtins.UserWarning
        category = _class(category)
        if not (isinstance(category, type) and issubclass(category, builtins.Warning)):
            raise _user(TypeError(f"category must be a Warning subclass, not '{type(category).__name__}'"))
        site = _site(state.rt, operator.index(stacklevel))
        if site is None:
            filename, lineno, column = "sys", 1, None
        else:
            filename, (lineno, column) = state.rt.filename or "<string>", site
        state.warn_explicit(message, category, filename, lineno or 0, column, source)

    @user_raiser
    def warn_explicit(message, category, filename, lineno, module=None, registry=None, module_globals=None,
                      source=None):
        lineno = int(lineno)
        if module is None:
            module = filename or "<unknown>"
            if module[-3:].lower() == ".py":
                module = module[:-3]
        if registry is not None and type(registry) is not dict:
            raise _user(TypeError(f"'registry' must be a dict or None, not '{type(registry).__name__}'"))
        if module_globals is not None and type(module_globals) is not dict:
            raise _user(TypeError(f"'module_globals' must be a dict or None, not '{type(module_globals).__name__}'"))
        if not isinstance(message, builtins.Warning):
            category = builtins.UserWarning if category is None else _class(category)
            if not (isinstance(category, type) and issubclass(category, builtins.Warning)):
                raise _user(TypeError(f"category must be a Warning subclass, not '{type(category).__name__}'"))
        state.warn_explicit(message, category, filename, lineno, None, source, str(module),
                            {} if registry is None else registry)

    @user_raiser
    def formatwarning(message, category, filename, lineno, line=None):
        if line is None:
            line = state.source_line(filename, lineno)
        s = f"{filename}:{lineno}: {_class(category).__name__}: {message}\n"
        if line:
            s += f"  {line.strip()}\n"
        return s

    @user_raiser
    def showwarning(message, category, filename, lineno, file=None, line=None):
        if file is not None:
            raise _user(TypeError("showwarning(file=...) is not available in GradScript: warnings go to stderr"))
        state.show(_class(category).__name__, str(message), lineno, None)

    def make_catch_warnings(*args, **kwargs):
        if args:
            raise _user(TypeError(f"catch_warnings.__init__() takes 1 positional argument but {len(args) + 1} "
                                  "were given"))
        manager = catch_warnings(**kwargs)
        manager._state = state
        return manager
    user_raiser(make_catch_warnings)
    make_catch_warnings.__name__ = make_catch_warnings.__qualname__ = "catch_warnings"

    return {"warn": warn, "warn_explicit": warn_explicit, "filterwarnings": filterwarnings, "simplefilter": simplefilter,
            "resetwarnings": resetwarnings, "catch_warnings": make_catch_warnings,
            "WarningMessage": WarningMessage, "formatwarning": formatwarning, "showwarning": showwarning,
            "filters": state.view}


__all__ = ["WarningsState", "WarningMessage", "FiltersList", "FilterPattern", "catch_warnings", "warnings_members", "ACTIONS",
           "simplefilter_on"]

FilterPattern.__name__ = FilterPattern.__qualname__ = "Pattern"
