"""Lowering of the loop statements (while, for): a mixin of compiler.Compiler."""
from __future__ import annotations

from . import ast as A
from .runtime import BREAK, CONTINUE, iter_of, tag


class LoopCompiler:
    """Mixin of Compiler: while and for. Needs self.rt, self.expr, self.block, self.target, self.check_name."""

    def s_while(self, node, scope):
        test = self.expr(node.test, scope)
        body = self.block(node.body, scope)
        orelse = self.block(node.orelse, scope) if node.orelse else None
        rt, tnode = self.rt, node.test

        def while_(frame):
            while True:
                rt.budget -= 1
                if rt.budget < 0:
                    rt.refill()
                v = test(frame)
                try:
                    v = True if v else False
                except Exception as e:
                    tag(e, tnode)
                    raise
                if not v:
                    break
                r = body(frame)
                if r is not None:
                    if r is BREAK:
                        return None
                    if r is CONTINUE:
                        continue
                    return r
            if orelse is not None:
                return orelse(frame)
            return None
        return while_

    def s_for(self, node, scope):
        iterable = self.expr(node.iter, scope)
        target = node.target
        fast_name = None
        if type(target) is A.Name:
            self.check_name(target.id, target)
            if scope.kind == "module" or (target.id in scope.locals and target.id not in scope.nonlocals
                                          and target.id not in scope.globals):
                fast_name = target.id
        store = self.target(target, scope)
        body = self.block(node.body, scope)
        orelse = self.block(node.orelse, scope) if node.orelse else None
        return self._for_statements(iterable, node.iter, fast_name, store, body.gs_pairs, orelse)

    def _for_statements(self, iterable, inode, fast_name, store, pairs, orelse):
        """s_for's loop, the body's statements (block's pairs) run here: one call less a turn."""
        rt = self.rt
        loc = rt.loc

        def for_block(frame):
            for item in iter_of(iterable(frame), inode):
                rt.budget -= 1
                if rt.budget < 0:
                    rt.refill()
                if fast_name is not None:
                    frame[fast_name] = item
                else:
                    store(frame, item)
                for node, f in pairs:
                    loc[0] = node
                    try:
                        r = f(frame)
                    except Exception as e:
                        tag(e, node)
                        raise
                    if r is not None:
                        break
                else:
                    continue
                if r is BREAK:
                    return None
                if r is CONTINUE:
                    continue
                return r
            if orelse is not None:
                return orelse(frame)
            return None
        return for_block
