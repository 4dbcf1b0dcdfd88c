"""Lowering of exception handling: ``try``/``except``/``else``/``finally`` and ``raise`` (a mixin
of compiler.Compiler), and the built-in exception classes a script can name.

The script's exceptions are Python's own (the engine raises built-in types with PyTorch's
message), so ``except RuntimeError as e: print(e)`` prints torch's text. A handler catches only
what ``runtime.catchable`` allows: gradcli's limits, internal failures and Ctrl-C go through
every ``except``, whatever the clause names; ``finally`` blocks run on their way (as for Python's
KeyboardInterrupt), but nothing they do (return, break, raise) stops them.
"""
from __future__ import annotations

from .pybuiltins import ScriptType
from .runtime import catchable, tag, user_raiser

# Python's built-in exception classes that a script may name (raise, except, isinstance)
EXCEPTION_NAMES = """BaseException Exception ArithmeticError AssertionError AttributeError FloatingPointError
GeneratorExit ImportError IndexError KeyError LookupError MemoryError NameError NotImplementedError OverflowError
RecursionError RuntimeError StopIteration TimeoutError TypeError UnboundLocalError ValueError
ZeroDivisionError Warning UserWarning DeprecationWarning PendingDeprecationWarning SyntaxWarning RuntimeWarning
FutureWarning ImportWarning UnicodeWarning BytesWarning ResourceWarning EncodingWarning""".split()


def exception_builtins():
    import builtins  # noqa: PLC0415 - the classes themselves, nothing else of the module
    return {name: getattr(builtins, name) for name in EXCEPTION_NAMES}


_NOT_EXCEPTION = "catching classes that do not inherit from BaseException is not allowed"


@user_raiser
def matches(exc, spec):
    """Does ``except spec`` catch exc? Python's rules: a class or a tuple of classes (not nested),
    each deriving from BaseException, else TypeError (every item is checked before the answer)."""
    items = spec if type(spec) is tuple else (spec,)
    classes = []
    for item in items:
        if isinstance(item, ScriptType):  # type(e) of a class the script cannot name otherwise
            item = item.cls
        if not (isinstance(item, type) and issubclass(item, BaseException)):
            raise TypeError(_NOT_EXCEPTION)
        classes.append(item)
    return isinstance(exc, tuple(classes))


@user_raiser
def exception_of(value, what="exceptions must derive from BaseException"):
    """The exception that ``raise value`` raises: a class is instantiated without arguments."""
    if isinstance(value, ScriptType):
        value = value.cls
    if isinstance(value, type) and issubclass(value, BaseException):
        value = value()
        if not isinstance(value, BaseException):  # pragma: no cover - Python's own classes always are
            raise TypeError(f"calling {value!r} should have returned an instance of BaseException")
        return value
    if isinstance(value, BaseException):
        return value
    raise TypeError(what)


class TryCompiler:
    """Mixin of Compiler: try statements and raise. Needs self.rt, self.expr, self.block,
    self.name_store, self.delete_name."""

    def s_try(self, node, scope):
        body = self.block(node.body, scope)
        handlers = [self.except_clause(h, scope, self.block) for h in node.handlers]
        orelse = self.block(node.orelse, scope) if node.orelse else None
        final = self.block(node.finalbody, scope) if node.finalbody else None
        handling = self.rt.handling

        def try_(frame):
            try:
                try:
                    r = body(frame)
                except BaseException as e:  # noqa: BLE001 - what no handler takes goes on
                    if not handlers or not catchable(e):
                        raise
                    store, clear, run = select(handlers, frame, e)
                    handling.append(e)
                    try:
                        if store is None:
                            r = run(frame)
                        else:
                            store(frame, e)
                            try:
                                r = run(frame)
                            finally:  # Python's `e = None; del e` at the end of `except E as e:`
                                store(frame, None)
                                clear(frame)
                    finally:
                        pop(handling, e)
                else:
                    if r is None and orelse is not None:  # else: only when the body ran to its end
                        r = orelse(frame)
            except BaseException as e:  # noqa: BLE001 - finally runs, then the exception goes on
                if final is None:
                    raise
                if not catchable(e):  # gradcli's: finally runs (bounded: the limit holds) and cannot stop it
                    quietly(final, frame)
                    raise
                f = final(frame)
                if f is not None:  # return/break/continue in finally: Python drops the exception
                    return f
                raise
            if final is not None:
                f = final(frame)
                if f is not None:
                    return f
            return r
        return try_

    def except_clause(self, h, scope, block):
        """(spec closure or None, its node, store or None, clear or None, body) of one handler."""
        spec = self.expr(h.type, scope) if h.type is not None else None
        store = clear = None
        if h.name is not None:
            store = self.name_store(h.name, scope)
            clear = self.delete_name(h.name, h, scope)
        return spec, h.type, store, clear, block(h.body, scope)

    def s_raise(self, node, scope):
        if node.exc is None:
            handling = self.rt.handling

            def reraise(frame):
                if not handling:
                    err = RuntimeError("No active exception to reraise")
                    tag(err, node)
                    raise err
                raise handling[-1]
            return reraise
        exc = self.expr(node.exc, scope)
        cause = self.expr(node.cause, scope) if node.cause is not None else None

        def raise_(frame):
            value = exc(frame)
            try:
                err = exception_of(value)
                if cause is not None:
                    c = cause(frame)
                    err.__cause__ = None if c is None else exception_of(
                        c, "exception causes must derive from BaseException")
            except Exception as e:  # noqa: BLE001 - raising a non-exception: TypeError here
                tag(e, node)
                raise
            err._gs_user = True  # the script's own raise: never taken for a bug of gradcli
            err._gs_raised = True  # nor for one of its limits (raise MemoryError)
            tag(err, node)
            raise err
        return raise_


def quietly(final, frame):
    """Run a finally block while one of gradcli's own exceptions (a limit, Ctrl-C) goes through it:
    whatever the block does (return, break, raise), that exception goes on afterwards. With a
    generator's block (a Python generator), it stops at its first yield."""
    try:
        r = final(frame)
        if hasattr(r, "__next__"):
            try:
                next(r)
            finally:
                r.close()
    except BaseException:  # noqa: BLE001, S110 - the pending exception wins, as documented
        pass


def select(handlers, frame, e):
    """(store, clear, body) of the first handler whose clause matches e; else e is raised again."""
    for spec, snode, store, clear, run in handlers:
        if spec is not None:
            try:
                if not matches(e, spec(frame)):
                    continue
            except Exception as err:  # noqa: BLE001 - the clause's own error (raised while handling e)
                tag(err, snode)
                raise
        return store, clear, run
    raise e


def pop(stack, item):
    """Remove the last occurrence of item (a generator may leave its handler after others)."""
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is item:
            del stack[i]
            return


__all__ = ["TryCompiler", "EXCEPTION_NAMES", "exception_builtins", "matches", "exception_of", "select", "pop",
           "quietly"]
