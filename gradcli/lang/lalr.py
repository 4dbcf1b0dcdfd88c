"""A tight LALR(1) loop over Lark's parse table.

Lark's own loop (``ParserState.feed_token``) looks each reduction's callback up in a dict
keyed by ``Rule`` objects (whose ``__hash__``/``__eq__`` are Python code) and runs every
callback through one or two wrapper objects (``ChildFilterLALR_NoPlaceholders``,
``ExpandSingleChild``).  Here the table is the same (same state numbers, same actions), but
each action is one int and each rule has one plain function that does what Lark's wrapper
chain did, specialised for the rule's shape.  The value and state stacks hold exactly what
Lark's would, so on a syntax error the stacks are handed to Lark's ``ParserState`` and the
error is Lark's ``UnexpectedToken``: the error reporting reads them as before.
"""

from __future__ import annotations

from functools import partial
from operator import itemgetter
from typing import Any, Callable, Iterable, Optional

from lark.exceptions import UnexpectedToken
from lark.lexer import Token
from lark.parse_tree_builder import ChildFilterLALR_NoPlaceholders, ExpandSingleChild
from lark.parsers.lalr_analysis import Shift
from lark.parsers.lalr_parser_state import ParseConf, ParserState
from lark.tree import Tree

__all__ = ["Driver", "table_data"]


def table_data(lalr_parser: Any, builder: Any) -> dict:
    """The parse table of Lark's ``lalr_parser._Parser`` as plain data (for a cache).

    ``actions[state][symbol]``: a shift (or goto) to state n is n >= 0, a reduction by rule r
    is ~r (< 0).  ``rules[r]``: (number of symbols, the rule's nonterminal, the transformer's
    callback name, the children kept (Lark's ``to_include``: (index, inline it)) or None for
    all, whether one kept child is passed through (``?rule``)).
    Raises ValueError where Lark's callbacks are not of the shapes made for `builder` (an
    LALR parser without placeholders, whose transformer is a plain object).
    """
    table = lalr_parser.parse_table
    callbacks = lalr_parser.callbacks
    if any(type(key) is str for key in callbacks):
        raise ValueError("terminal callbacks are not supported")
    index: dict = {}
    rules: list = []
    actions: list = [None] * (max(table.states) + 1)
    for state, row in table.states.items():
        out = {}
        for symbol, (action, arg) in row.items():
            if action is Shift:
                out[symbol] = arg
            else:
                r = index.get(id(arg))
                if r is None:
                    r = index[id(arg)] = len(rules)
                    rules.append(_rule_data(arg, callbacks[arg], builder))
                out[symbol] = ~r
        actions[state] = out
    return {"actions": actions, "rules": rules, "start": dict(table.start_states),
            "end": dict(table.end_states)}


def _rule_data(rule: Any, callback: Any, builder: Any) -> tuple:
    """Take Lark's wrapper chain of one rule apart (see table_data)."""
    f = callback
    keep = None
    if type(f) is ChildFilterLALR_NoPlaceholders:
        keep = tuple((i, bool(inline)) for i, inline in f.to_include)
        f = f.node_builder
    expand1 = type(f) is ExpandSingleChild
    if expand1:
        f = f.node_builder
    name = rule.alias or rule.options.template_source or rule.origin.name
    made = _callback(builder, name)
    same = f == made if type(f) is not partial else \
        (f.func is made.func and f.args == made.args and not f.keywords)
    if not same:
        raise ValueError("unexpected callback for rule %s" % rule)
    return (len(rule.expansion), rule.origin.name, name, keep, expand1)


def _callback(builder: Any, name: str) -> Callable:
    """The transformer callback Lark makes for a rule's name: the method, else a Tree."""
    method = getattr(builder, name, None)
    return method if method is not None else partial(Tree, name)


class Driver:
    """An LALR(1) parser over table_data's tables, with one reducer per rule.

    ``rules[r]``: (number of symbols, the rule's nonterminal, reducer or None when the value
    is the only child's).
    """

    def __init__(self, data: dict, builder: Any, lark_parser: Callable[[], Any]) -> None:
        """`lark_parser`: gives Lark's ``_Parser`` of the same table, for syntax errors."""
        self.actions = data["actions"]
        self.rules = [(size, origin, _reducer(_callback(builder, name), keep, expand1, size))
                      for size, origin, name, keep, expand1 in data["rules"]]
        self.start_states = data["start"]
        self.end_states = data["end"]
        self._lark_parser = lark_parser

    def parse(self, tokens: Iterable[Token], start: str) -> Any:
        """Parse the token stream from the start symbol `start`; the start rule's value."""
        actions = self.actions
        rules = self.rules
        state = self.start_states[start]
        states = [state]
        values: list = []
        push_state = states.append
        push_value = values.append
        row = actions[state]
        token = None
        for token in tokens:
            ttype = token.type
            while True:
                code = row.get(ttype)
                if code is None:
                    raise self._unexpected(token, states, values, start)
                if code >= 0:  # shift
                    push_state(code)
                    push_value(token)
                    row = actions[code]
                    break
                size, origin, reduce = rules[~code]
                if size == 1:  # a third of all reductions: the stacks' tops are replaced
                    if reduce is not None:  # (None: `?rule` of one child, passed through)
                        values[-1] = reduce([values[-1]])
                    state = states[-1] = actions[states[-2]][origin]
                else:
                    if size:
                        children = values[-size:]
                        del values[-size:]
                        del states[-size:]
                    else:
                        children = []
                    push_value(reduce(children))
                    state = actions[states[-1]][origin]
                    push_state(state)
                row = actions[state]
        # the end of the input: reduce until the start rule is complete
        end = Token.new_borrow_pos("$END", "", token) if token else Token("$END", "", 0, 1, 1)
        end_state = self.end_states[start]
        while True:
            code = row.get("$END")
            if code is None:
                raise self._unexpected(end, states, values, start)
            if code >= 0:  # cannot happen in a table Lark made (it asserts so too)
                raise AssertionError("shift of $END")
            size, origin, reduce = rules[~code]
            children = values[-size:] if size else []
            del values[len(values) - size:]
            del states[len(states) - size:]
            value = children[0] if reduce is None else reduce(children)
            state = actions[states[-1]][origin]
            push_state(state)
            push_value(value)
            if state == end_state:
                return value
            row = actions[state]

    def _unexpected(self, token: Token, states: list, values: list, start: str) -> UnexpectedToken:
        """Lark's own error, with a ParserState over these stacks (error reporting reads it)."""
        parser = self._lark_parser()
        conf = ParseConf(parser.parse_table, parser.callbacks, start)
        row = conf.states[states[-1]]
        expected = {s for s in row.keys() if s.isupper()}
        return UnexpectedToken(token, expected, state=ParserState(conf, None, states, values),
                               interactive_parser=None)


def _reducer(f: Callable, keep: Optional[tuple], expand1: bool, size: int) -> Optional[Callable]:
    """One function doing what Lark's wrapper chain does for a rule, with less overhead.

    Lark chains ChildFilterLALR_NoPlaceholders (keep the `keep` children, inline `_rule`s)
    around ExpandSingleChild (`?rule`: one child is passed through) around the callback `f`.
    None for a `?rule` of one symbol: its value is its child's.
    """
    if keep is None:  # every child kept
        if expand1 and size == 1:
            return None
        if not expand1:
            return f

        def reduce_expand1(c: list) -> Any:
            return c[0] if len(c) == 1 else f(c)
        return reduce_expand1
    if any(to_expand for _, to_expand in keep):
        def reduce_inline(c: list) -> Any:  # Lark's ChildFilterLALR_NoPlaceholders, verbatim
            filtered = []
            for i, to_expand in keep:
                if to_expand:
                    if filtered:
                        filtered += c[i].children
                    else:   # left recursion: reuse the list
                        filtered = c[i].children
                else:
                    filtered.append(c[i])
            if expand1 and len(filtered) == 1:
                return filtered[0]
            return f(filtered)
        return reduce_inline
    kept = [i for i, _ in keep]
    if not kept:
        def reduce_none(c: list) -> Any:
            return f([])
        return reduce_none
    if len(kept) == 1:
        k = kept[0]
        if expand1:  # one child left: passed through, the method is never called
            return itemgetter(k)

        def reduce_one(c: list) -> Any:
            return f([c[k]])
        return reduce_one
    # more than one child: ExpandSingleChild never applies
    if kept == list(range(kept[0], kept[-1] + 1)):
        a, b = kept[0], kept[-1] + 1

        def reduce_slice(c: list) -> Any:
            return f(c[a:b])
        return reduce_slice

    def reduce_some(c: list) -> Any:
        return f([c[i] for i in kept])
    return reduce_some
