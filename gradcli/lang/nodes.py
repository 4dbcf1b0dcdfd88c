"""The base of the syntax tree's node classes (``ast.py`` declares the statements, ``expr_nodes.py``
the expressions; ``ast`` has them all).

Spans
-----
Every node has ``line``, ``column``, ``end_line``, ``end_column`` (keyword-only fields,
left out of ``==`` and ``repr``).  Lines and columns are 1-based and count characters
(code points), as Lark and CPython's ``SyntaxError.offset`` do; ``end_column`` is one past
the last character, so a name ``x`` in column 1 spans columns 1..2.  Spans are CPython's
(``lineno``, ``col_offset + 1``, ...) except that a parenthesised expression's span
includes its parentheses, a generator that is a call's only argument does not include the
call's, and the Constant parts of an f-string span the whole literal.  A def or class starts
at ``def``/``class`` (not at its decorators); a compound statement ends where its last body
statement ends.  Equality ignores spans, so tests can compare shapes:
``parse("x = 1").body[0] == Assign([Name("x")], Constant(1))``.

Every class has ``_fields``: the names of its non-span fields, in order.
``walk(node)`` yields a node and all nodes below it; ``iter_child_nodes(node)`` the direct ones.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Iterator

from ..records import field_specs, first_init

__all__ = ["NodeType", "Node", "Stmt", "Expr", "span_field", "walk", "iter_child_nodes"]

_SPAN_NAMES = ("line", "column", "end_line", "end_column")


def span_field() -> Any:
    return field(default=0, kw_only=True)


# The node classes are declared as dataclasses are, but made by NodeType, not by
# dataclass(slots=True, eq=False, repr=False): importing the syntax tree is part of every start-up,
# and dataclass's machinery (each class made twice, a compiled __init__ per class) cost ~10 ms for
# these ~55 classes. NodeType gives each node class of the package __slots__ for its own fields as
# it makes it and records them (_specs, _fields); a class's __init__, as dataclass writes it, is
# compiled at its first instantiation (gradcli/records.py), so a run compiles only the ones its
# script uses. == and repr come from Node (by `_fields`, so spans take no part in them).


class NodeType(type):
    def __new__(mcls, name, bases, namespace):
        if not namespace.get("__module__", "").startswith("gradcli.lang."):  # a test's subclass keeps its __dict__
            return super().__new__(mcls, name, bases, namespace)
        specs = field_specs(namespace, pop=True)
        namespace["__slots__"] = tuple(spec[0] for spec in specs)
        cls = super().__new__(mcls, name, bases, namespace)
        cls._specs = tuple(getattr(bases[0], "_specs", ()) if bases else ()) + tuple(specs)
        cls._fields = tuple(spec[0] for spec in cls._specs if spec[0] not in _SPAN_NAMES)
        cls.__init__ = first_init(cls)
        return cls


class Node(metaclass=NodeType):
    """Base of every node: the source span (see the module docstring)."""

    line: int = span_field()
    column: int = span_field()
    end_line: int = span_field()
    end_column: int = span_field()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value, like a dataclass

    def __repr__(self) -> str:
        args = ", ".join("%s=%r" % (f, getattr(self, f)) for f in self._fields)
        return "%s(%s)" % (type(self).__name__, args)


class Stmt(Node):
    """Base of statements; each statement class describes itself (``statement``, ast.Statement)."""


class Expr(Node):
    """Base of expressions."""


def iter_child_nodes(node: Node) -> Iterator[Node]:
    """Yield the nodes directly below ``node``, in field order."""
    for name in node._fields:
        value = getattr(node, name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Node):
                    yield item
        elif isinstance(value, dict):
            for item in value.values():
                if isinstance(item, Node):
                    yield item


def walk(node: Node) -> Iterator[Node]:
    """Yield ``node`` and every node below it (pre-order, without recursion)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        children = list(iter_child_nodes(current))
        children.reverse()
        todo.extend(children)
