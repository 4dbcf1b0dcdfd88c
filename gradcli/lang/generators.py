"""Generator functions (a def whose body holds ``yield``): a mixin of compiler.Compiler.

Such a body is lowered to a real Python generator function instead of a statement closure:
each statement that holds a ``yield`` (the yield itself, or an if/for/while/with/try around one)
becomes a closure ``g(frame)`` that is a Python generator, run with ``yield from``, whose return
value is the statement's signal (None, BREAK, CONTINUE or ``(value,)``); the other statements
are the ordinary closures. So the body runs lazily, as Python runs it: up to the next ``yield``
each time the consumer asks for a value. ``drive`` wraps the body's generator into the object the
script holds: each step runs at one more call depth (the recursion limit) and gives the
consumer's statement location back when it yields.
"""
from __future__ import annotations

from . import ast as A
from .handlers import pop, quietly, select
from .statements import contains_yield
from .runtime import BREAK, CONTINUE, LimitError, catchable, enter_context, exit_context, iter_of, tag


CLOSING = [None]  # id() of the generator whose close() the script called (its errors then propagate)


def drive(rt, inner, name, qualname):
    """The generator object of one call of a generator function."""
    me = []
    gen = _drive(rt, inner, me)
    me.append(id(gen))  # an id, not the object: no reference cycle (the collector closes it at once)
    gen.__name__, gen.__qualname__ = name, qualname  # its repr: <generator object data_iter at 0x...>
    return gen


def close_method(gen):
    """A script's ``gen.close()``: Python's, whose errors (a finally block's exception, 'generator
    ignored GeneratorExit', a limit) reach the script, unlike those of a close by the collector."""
    def close():
        previous, CLOSING[0] = CLOSING[0], id(gen)
        try:
            return gen.close()
        finally:
            CLOSING[0] = previous
    return close


def _drive(rt, inner, me):
    loc = rt.loc
    while True:
        depth = rt.depth
        if depth >= rt.max_depth:
            raise LimitError("RecursionError", "maximum recursion depth exceeded", hint="recursion", node=loc[0])
        saved = loc[0]
        rt.depth = depth + 1
        try:
            value = next(inner)
        except StopIteration as stop:  # the body ended: `return value` is the StopIteration's value
            r = stop.value
            return r[0] if type(r) is tuple else None
        finally:
            rt.depth = depth
            loc[0] = saved
        try:
            yield value
        except GeneratorExit:  # closed (collected, or close()) while suspended: the body's finally blocks run
            explicit = me and CLOSING[0] == me[0]
            try:
                inner.close()
            except LimitError as e:
                if explicit:
                    raise
                if e.type_name != "RecursionError":  # Python, too, only reports a RecursionError here
                    rt.defer(e)  # a step or time limit, where Python would hang: the run stops
            except Exception:  # noqa: BLE001 - collected: Python too only reports it ("Exception ignored")
                if explicit:
                    raise
            raise


class GeneratorCompiler:
    """Mixin of Compiler: generator function bodies. Needs self.rt, self.expr, self.stmt,
    self.target, self.check_name, self.except_clause, self.nesting."""

    def generator_body(self, node, scope):
        """The body closure of a generator function: it returns ``(generator,)`` at once."""
        run = self.gen_block(node.body, scope)
        rt, name, qualname = self.rt, node.name, scope.qualname

        def start(frame):
            return (drive(rt, run(frame), name, qualname),)
        return start

    def gen_block(self, body, scope):
        """A block of a generator body as a Python generator function of the frame."""
        self.nesting += 1
        try:
            pairs = []
            for s in body:
                if contains_yield([s]):
                    pairs.append((s, self._GEN_STMT[type(s)](self, s, scope), True))
                else:
                    f = self.stmt(s, scope)
                    if f is not None:
                        pairs.append((s, f, False))
        finally:
            self.nesting -= 1
        loc = self.rt.loc

        def run(frame):
            for node, f, suspends in pairs:
                loc[0] = node
                try:
                    r = (yield from f(frame)) if suspends else f(frame)
                except Exception as e:
                    tag(e, node)
                    raise
                if r is not None:
                    return r
            return None
        return run

    def g_yield(self, node, scope):
        value = self.expr(node.value, scope) if node.value is not None else None
        if node.is_from:
            vnode = node.value

            def yield_from(frame):
                yield from iter_of(value(frame), vnode)
                return None
            return yield_from

        def yield_(frame):
            yield None if value is None else value(frame)  # a sent value is never used: no send()
            return None
        return yield_

    def g_if(self, node, scope):
        test, tnode = self.expr(node.test, scope), node.test
        body, orelse = self.gen_block(node.body, scope), self.gen_block(node.orelse, scope)

        def if_(frame):
            try:
                v = True if test(frame) else False
            except Exception as e:
                tag(e, tnode)
                raise
            return (yield from (body if v else orelse)(frame))
        return if_

    def g_while(self, node, scope):
        test, tnode = self.expr(node.test, scope), node.test
        body = self.gen_block(node.body, scope)
        orelse = self.gen_block(node.orelse, scope)
        rt = self.rt

        def while_(frame):
            while True:
                rt.budget -= 1
                if rt.budget < 0:
                    rt.refill()
                try:
                    v = True if test(frame) else False
                except Exception as e:
                    tag(e, tnode)
                    raise
                if not v:
                    break
                r = yield from body(frame)
                if r is BREAK:
                    return None
                if r is not None and r is not CONTINUE:
                    return r
            return (yield from orelse(frame))
        return while_

    def g_for(self, node, scope):
        iterable, inode = self.expr(node.iter, scope), node.iter
        if type(node.target) is A.Name:
            self.check_name(node.target.id, node.target)
        store = self.target(node.target, scope)
        body = self.gen_block(node.body, scope)
        orelse = self.gen_block(node.orelse, scope)
        rt = self.rt

        def for_(frame):
            for item in iter_of(iterable(frame), inode):
                rt.budget -= 1
                if rt.budget < 0:
                    rt.refill()
                store(frame, item)
                r = yield from body(frame)
                if r is BREAK:
                    return None
                if r is not None and r is not CONTINUE:
                    return r
            return (yield from orelse(frame))
        return for_

    def g_with(self, node, scope):
        body = self.gen_block(node.body, scope)
        for item in reversed(node.items):
            body = self._g_with_item(item, body, scope)
        return body

    def _g_with_item(self, item, body, scope):
        ctx, cnode = self.expr(item.context_expr, scope), item.context_expr
        store = self.target(item.optional_vars, scope) if item.optional_vars is not None else None

        def with_(frame):
            mgr = ctx(frame)
            value, exit_ = enter_context(mgr, cnode)
            try:
                if store is not None:
                    store(frame, value)
                r = yield from body(frame)
            except BaseException as e:  # noqa: BLE001 - the manager decides, as in Python
                if not exit_context(mgr, exit_, e):
                    raise
                return None
            exit_(mgr, None, None, None)
            return r
        return with_

    def g_try(self, node, scope):
        body = self.gen_block(node.body, scope)
        handlers = [self.except_clause(h, scope, self.gen_block) for h in node.handlers]
        orelse = self.gen_block(node.orelse, scope)
        final = self.gen_block(node.finalbody, scope) if node.finalbody else None
        handling = self.rt.handling

        def try_(frame):  # handlers.s_try's statement, each part run with `yield from`
            try:
                try:
                    r = yield from body(frame)
                except BaseException as e:  # noqa: BLE001
                    if not handlers or not catchable(e):
                        raise
                    store, clear, run = select(handlers, frame, e)
                    handling.append(e)
                    try:
                        if store is not None:
                            store(frame, e)
                        r = yield from run(frame)
                    finally:
                        if store is not None:
                            store(frame, None)
                            clear(frame)
                        pop(handling, e)
                else:
                    if r is None:
                        r = yield from orelse(frame)
            except BaseException as e:  # noqa: BLE001
                if final is None:
                    raise
                if not catchable(e):
                    quietly(final, frame)
                    raise
                f = yield from final(frame)
                if f is not None:
                    return f
                raise
            if final is not None:
                f = yield from final(frame)
                if f is not None:
                    return f
            return r
        return try_


# the code of a generator's step: its frame holds the consumer's statement (`saved`), as a call's does
# (warnings.warn's stacklevel counts both: pywarnings.py)
DRIVE_CODE = _drive.__code__

__all__ = ["GeneratorCompiler", "drive", "close_method", "DRIVE_CODE"]
