"""A tight LALR(1) loop over Lark's parse table.

Lark's own loop (``ParserState.feed_token``) looks each reduction's callback up in a dict
keyed by ``Rule`` objects (whose ``__hash__``/``__eq__`` are Python code) and runs every
callback through one or two wrapper objects (``ChildFilterLALR_NoPlaceholders``,
``ExpandSingleChild``).  Here the table is Lark's (same states, same actions), as plain data
that can be cached, each action one int, and each rule has one plain function that does what
Lark's wrapper chain did, specialised for the rule's shape.  The stacks hold what Lark's
would; a syntax error is Lark's ``UnexpectedToken`` whose ``state`` (a ``Stacks``) has them,
and can try other tokens there.  Once the data is made, no Lark parser object is needed.
"""

from __future__ import annotations

from functools import partial
from operator import itemgetter
from typing import Any, Callable, Iterable, Optional

from .tokens import Token, Tree, lark_errors

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
    from lark.parsers.lalr_analysis import Shift  # noqa: PLC0415 - a cold cache: Lark is loaded

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
    from lark.parse_tree_builder import ChildFilterLALR_NoPlaceholders, ExpandSingleChild  # noqa: PLC0415
    from lark.tree import Tree as LarkTree  # noqa: PLC0415

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
    # (Lark's callback for a rule without a method makes Lark's Tree; the driver makes tokens.Tree)
    same = f == made if type(f) is not partial else \
        (f.func is LarkTree and made.func is Tree and f.args == made.args and not f.keywords)
    if not same:
        raise ValueError("unexpected callback for rule %s" % rule)
    expansion = rule.expansion
    # the first symbol is the rule's own nonterminal (its value: a tree of the same name when
    # all the nonterminal's rules have this callback; see _reducer)
    left_recursive = bool(expansion) and expansion[0].name == rule.origin.name
    return (len(expansion), rule.origin.name, name, keep, expand1, left_recursive)


def _callback(builder: Any, name: str) -> Callable:
    """The transformer callback Lark makes for a rule's name: the method, else a Tree.

    The names come from the table cache, a file: a name starting with ``_`` (Lark's own
    ``__expr_star_20`` rules, or ``__init__``/``__setattr__`` in a poisoned file) never binds an
    attribute of the builder, so a cache file can only name the builder's public reducers."""
    method = getattr(builder, name, None) if isinstance(name, str) and not name.startswith("_") else None
    return method if method is not None else partial(Tree, name)


class Driver:
    """An LALR(1) parser over table_data's tables, with one reducer per rule.

    ``rules[r]``: (number of symbols, the rule's nonterminal, reducer or None when the value
    is the only child's).
    """

    def __init__(self, data: dict, builder: Any) -> None:
        self.actions = data["actions"]
        names: dict = {}  # nonterminal -> the callback names of its rules
        for _, origin, name, *_ in data["rules"]:
            names.setdefault(origin, set()).add(name)
        self.rules = [(size, origin, _reducer(_callback(builder, name), keep, expand1, size,
                                              left and names[origin] == {name}))
                      for size, origin, name, keep, expand1, left in data["rules"]]
        self.start_states = data["start"]
        self.end_states = data["end"]

    def parse(self, tokens: Iterable[Token], start: str) -> Any:
        """Parse the token stream from the start symbol `start`; the start rule's value.

        A list (tokenizer.stream's, for a long text) runs csrc/lalr.c's loop when it is built: the
        same actions and reducer calls, in C."""
        if type(tokens) is list and tokens:
            drive = _native_drive()
            if drive is not None:
                states, values, stop = drive(tokens, self.actions, self.rules, self.start_states[start])
                if stop < len(tokens):
                    raise self._unexpected(tokens[stop], states, values, start)
                return self._end(tokens[-1], states, values, start)
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
                try:
                    code = row[ttype]
                except KeyError:
                    raise self._unexpected(token, states, values, start) from None
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
        return self._end(token, states, values, start)

    def _end(self, token: Optional[Token], states: list, values: list, start: str) -> Any:
        """The end of the input after the last token `token`: reduce until the start rule is complete."""
        actions = self.actions
        rules = self.rules
        push_state = states.append
        push_value = values.append
        row = actions[states[-1]]
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

    def _unexpected(self, token: Token, states: list, values: list, start: str) -> Any:
        """Lark's error type, with the stacks (error reporting reads them)."""
        expected = {s for s in self.actions[states[-1]] if s.isupper()}
        return lark_errors().UnexpectedToken(token, expected, state=Stacks(self, start, states, values),
                               interactive_parser=None)

    def accepts(self, stacks: "Stacks", ttype: str) -> bool:
        """Would the parser take a token of type `ttype` where `stacks` stopped?  (LALR
        tables list more than that: merged states.)  Runs the reductions on copies, as
        Lark's InteractiveParser.accepts does; a reducer's error means no."""
        actions, rules = self.actions, self.rules
        states = list(stacks.state_stack)
        # the trees of inlined rules are extended in place by later reductions: copied
        values = [Tree(v.data, list(v.children)) if type(v) is Tree else v
                  for v in stacks.value_stack]
        end_state = self.end_states[stacks.start]
        try:
            while True:
                code = actions[states[-1]].get(ttype)
                if code is None:
                    return False
                if code >= 0:
                    return ttype != "$END"
                size, origin, reduce = rules[~code]
                children = values[len(values) - size:]
                del values[len(values) - size:]
                del states[len(states) - size:]
                values.append(children[0] if reduce is None else reduce(children))
                states.append(actions[states[-1]][origin])
                if ttype == "$END" and states[-1] == end_state:
                    return True
        except Exception:  # a reducer refusing what it was given (a syntax error)
            return False


_NATIVE: list = []


def _native_drive() -> Optional[Callable]:
    """csrc/lalr.c's drive, or None (not built, GRADCLI_NATIVE=0); loaded at a long text's first parse."""
    if not _NATIVE:
        from .. import native  # noqa: PLC0415 - never at start-up: a short text's tokens are no list
        module = native.load("lalr", needs=("drive",))
        _NATIVE.append(module.drive if module is not None else None)
    return _NATIVE[0]


class Stacks:
    """Where a parse stopped (UnexpectedToken.state): the state and value stacks, as Lark's
    ParserState has them, and the driver to try other tokens there."""

    __slots__ = ("driver", "start", "state_stack", "value_stack")

    def __init__(self, driver: Driver, start: str, state_stack: list, value_stack: list) -> None:
        self.driver = driver
        self.start = start
        self.state_stack = state_stack
        self.value_stack = value_stack

    def accepts(self, ttype: str) -> bool:
        return self.driver.accepts(self, ttype)


def _reducer(f: Callable, keep: Optional[tuple], expand1: bool, size: int,
             left_recursive: bool) -> Optional[Callable]:
    """One function doing what Lark's wrapper chain does for a rule, with less overhead.

    Lark chains ChildFilterLALR_NoPlaceholders (keep the `keep` children, inline `_rule`s)
    around ExpandSingleChild (`?rule`: one child is passed through) around the callback `f`.
    None for a `?rule` of one symbol: its value is its child's.
    """
    if left_recursive and type(f) is partial and f.func is Tree and keep and keep[0] == (0, True) \
            and not expand1 and not any(inline for _, inline in keep[1:]):
        # `_items: _items "," item`, the repetitions Lark makes for `(...)*`: Lark would make
        # a new tree around the first child's list of children, extended; extending the first
        # child's list in place and keeping that tree gives the same value, one tree less.
        rest = [i for i, _ in keep[1:]]
        if len(rest) == 1:
            k = rest[0]

            def extend_one(c: list) -> Any:
                tree = c[0]
                tree.children.append(c[k])
                return tree
            return extend_one

        def extend(c: list) -> Any:
            tree = c[0]
            tree.children += [c[i] for i in rest]
            return tree
        return extend
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

    if len(kept) == 2:  # `primary "." NAME`, `NAME "=" test`: no list comprehension
        a, b = kept

        def reduce_two(c: list) -> Any:
            return f([c[a], c[b]])
        return reduce_two

    def reduce_some(c: list) -> Any:
        return f([c[i] for i in kept])
    return reduce_some
