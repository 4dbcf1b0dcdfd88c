"""The fused closures of the common calls (callables.e_call's): ``obj.name()``, ``obj.name(x)``, ``f(x)`` and
``f(x, y)`` without starred or keyword arguments, each one closure.

What each saves a script's loop (issue 21, case 3: one Python frame is ~600 instructions):
- a name (the object, the function, an argument) is read inline from the frame or the globals; a miss runs
  its closure, which finds the builtin or raises the NameError / UnboundLocalError;
- obj.name's read is pyvalues.read_attribute's (the one attribute-read policy, exprs.e_attribute's too);
- a call of an nn.Module runs the forward pyvalues.FORWARD_OF answers (Module.__call__ without hooks)
  directly, and a script function (or a script forward) is called through its ``__call__`` as a method:
  no Module.__call__ frame, no bound method, no slot call;
- a sink (``Sink``) makes the closure a statement: ``name = call`` stores the result, an expression
  statement echoes it (the REPL's top level) or drops it, and the closure returns None as a statement's
  does, so the statement's own closure is not run.
Errors are tagged as the unfused closures tag them: the attribute node for the read, the call node for
the call.
"""
from __future__ import annotations

from .pyops import checked_int
from .pyvalues import FORWARD_OF, read_attribute
from .runtime import function, tag

_MISSING = object()
_NO_NAME = (False, None)


class Sink:
    """Where a statement's call puts its result: ``store`` (local: bool, name) for ``name = call``, else
    ``echo`` (the runtime's, at an echoing top level) or nothing."""

    __slots__ = ("local", "name", "echo")

    def __init__(self, store=None, echo=None):
        self.local, self.name = store if store is not None else _NO_NAME
        self.echo = echo


def _sink_parts(sink):
    if sink is None:
        return True, False, None, None
    return False, sink.local, sink.name, sink.echo


def _statement(closure, sink):
    """The closure, marked as a statement's (gs_statement) when it has a sink."""
    if sink is not None:
        closure.gs_statement = True
    return closure


def method_call(method, args, anode, node, G, sink=None):
    """obj.name() and obj.name(x) as one closure: exprs.e_attribute's attr (pyvalues.read_attribute, errors
    tagged with the attribute node) then the call (tagged with the call node)."""
    value, name = method
    local, oname = getattr(value, "gs_name", _NO_NAME)
    plain, slocal, sname, echo = _sink_parts(sink)
    if not args:
        def mcall0(frame):
            if oname is None:
                obj = value(frame)
            else:
                obj = (frame if local else G).get(oname, _MISSING)
                if obj is _MISSING:
                    obj = value(frame)
            try:
                f = read_attribute(obj, name)
            except Exception as e:
                tag(e, anode)
                raise
            try:
                r = f()
            except Exception as e:
                tag(e, node)
                raise
            if plain:
                return r
            if sname is not None:
                (frame if slocal else G)[sname] = r
            elif echo is not None and r is not None:
                echo(r)
            return None
        return _statement(mcall0, sink)
    a0, = args
    alocal, aname = getattr(a0, "gs_name", _NO_NAME)

    def mcall1(frame):
        if oname is None:
            obj = value(frame)
        else:
            obj = (frame if local else G).get(oname, _MISSING)
            if obj is _MISSING:
                obj = value(frame)
        try:
            f = read_attribute(obj, name)
        except Exception as e:
            tag(e, anode)
            raise
        if aname is None:
            x = a0(frame)
        else:
            x = (frame if alocal else G).get(aname, _MISSING)
            if x is _MISSING:
                x = a0(frame)
        try:
            fwd = FORWARD_OF[0]
            if fwd is not None and (fwd := fwd(f)) is not None:  # self.fc1(x)
                r = fwd.__call__(f, x) if type(fwd) is function else fwd(f, x)
            else:
                r = f(x)
        except Exception as e:
            tag(e, node)
            raise
        if plain:
            return r
        if sname is not None:
            (frame if slocal else G)[sname] = r
        elif echo is not None and r is not None:
            echo(r)
        return None
    return _statement(mcall1, sink)


def call_positional(func, args, node, G, sink=None):
    """f(x) and f(x, y) as one closure (the function's and the arguments' names read inline); int(s, 16)
    calls checked_int, as every call of int with two arguments does. None for other arities."""
    flocal, fname = getattr(func, "gs_name", _NO_NAME)
    names = [getattr(a, "gs_name", _NO_NAME) for a in args]
    plain, slocal, sname, echo = _sink_parts(sink)
    if len(args) == 1:
        a0, = args
        (l0, n0), = names

        def call1(frame):
            if fname is None:
                f = func(frame)
            else:
                f = (frame if flocal else G).get(fname, _MISSING)
                if f is _MISSING:
                    f = func(frame)
            if n0 is None:
                x = a0(frame)
            else:
                x = (frame if l0 else G).get(n0, _MISSING)
                if x is _MISSING:
                    x = a0(frame)
            try:
                if type(f) is function:  # a script function: its __call__ as a method, no slot call
                    r = f.__call__(x)
                elif (fwd := FORWARD_OF[0]) is not None and (fwd := fwd(f)) is not None:  # model(x)
                    r = fwd.__call__(f, x) if type(fwd) is function else fwd(f, x)
                else:
                    r = f(x)
            except Exception as e:
                tag(e, node)
                raise
            if plain:
                return r
            if sname is not None:
                (frame if slocal else G)[sname] = r
            elif echo is not None and r is not None:
                echo(r)
            return None
        return _statement(call1, sink)
    if len(args) != 2:
        return None
    a0, a1 = args
    (l0, n0), (l1, n1) = names

    def call2(frame):
        if fname is None:
            f = func(frame)
        else:
            f = (frame if flocal else G).get(fname, _MISSING)
            if f is _MISSING:
                f = func(frame)
        if n0 is None:
            x = a0(frame)
        else:
            x = (frame if l0 else G).get(n0, _MISSING)
            if x is _MISSING:
                x = a0(frame)
        if n1 is None:
            y = a1(frame)
        else:
            y = (frame if l1 else G).get(n1, _MISSING)
            if y is _MISSING:
                y = a1(frame)
        if f is int:  # int(s, 16): its result held to the integer limit
            f = checked_int
        try:
            if type(f) is function:
                r = f.__call__(x, y)
            elif (fwd := FORWARD_OF[0]) is not None and (fwd := fwd(f)) is not None:  # loss_function(out, y)
                r = fwd.__call__(f, x, y) if type(fwd) is function else fwd(f, x, y)
            else:
                r = f(x, y)
        except Exception as e:
            tag(e, node)
            raise
        if plain:
            return r
        if sname is not None:
            (frame if slocal else G)[sname] = r
        elif echo is not None and r is not None:
            echo(r)
        return None
    return _statement(call2, sink)


__all__ = ["Sink", "call_positional", "method_call"]
