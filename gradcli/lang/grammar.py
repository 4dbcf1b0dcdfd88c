"""The grammar file (grammar/gradscript.lark): where it is, its text (read once), and the statements it
declares.

The grammar is the one description of GradScript's syntax, and an ordinary statement is described
there too, on the line above its rule::

    // @statement While(test, body, orelse=[]) blocks=body,orelse loop
    while_stmt: WHILE namedexpr_test ":" suite else_clause?

``ast.py`` makes the node class ``While`` of it (a ``Stmt`` with those fields, in order: the rule's
children as the builder's generic reducer passes them, keywords and punctuation left out, a NAME as
its identifier; a default ``None`` or ``[]`` for a child the rule may leave out; ``*names`` last
for the list of the rule's remaining children, as in ``Global(*names)``) with its
description (``ast.Statement``) built from the words after it:

- ``blocks=a,b``: the fields that hold statement lists in its scope; ``loop``: its ``body`` is a
  loop body; ``scope=function|class``: its ``body`` is a new scope;
- ``binds=a,b``: the fields whose names it binds; ``declares=global|nonlocal``;
- ``only_in=function|loop error="..." hint="..."``: where it may stand, CPython's error elsewhere;
- ``lower=`` / ``gen=``: the compiler's lowering methods, by default ``s_NAME`` and (for a
  statement with blocks) ``g_NAME``, NAME the class name in lower case.

The declarations are read from the text with one regular expression (no Lark: a start-up reads
them whatever the cache holds; ~0.1 ms); ``check`` holds them against the rules Lark makes of the
grammar when the parse tables are built (parser.fast_parser), so a declaration that does not fit its
rule fails there, once, and never reaches a parse. The statements that need a reducer of their own
(CPython's errors on what the grammar lets through, several node shapes of one rule) keep a class
in ``ast.py`` and a reducer in ``builder.py``.
"""
from __future__ import annotations

import os

from .keywords import STATEMENT_RULES

__all__ = ["Declaration", "DEFAULTS", "path", "text", "declarations", "check", "GrammarDeclarationError"]

_TEXT: list = []

_MARK = "\n// @statement "  # then `Name(fields) options`, and on the next line the rule
_LISTS = ("blocks", "binds")
_WORDS = {  # the values ast.Statement takes (scope kinds, not keyword tables)
    "scope": ("function", "class"),
    "declares": ("global", "nonlocal"),
    "only_in": ("function", "loop"),
}
_TEXTS = ("error", "hint", "lower", "gen")
DEFAULTS = {"None": None, "[]": list}  # a field's default: None, or a new list (a default factory)


class GrammarDeclarationError(ValueError):
    """A statement declaration of the grammar that cannot be read or does not fit its rule."""


class Declaration:
    """One ``// @statement`` line: the class name, its rule, its fields as (name, default word or
    None when required), and the options as ``ast.Statement``'s keywords."""

    __slots__ = ("name", "rule", "fields", "options")

    def __init__(self, name: str, rule: str, fields: tuple, options: dict) -> None:
        self.name, self.rule, self.fields, self.options = name, rule, fields, options

    def __repr__(self) -> str:
        return "Declaration(%s, %s)" % (self.name, self.rule)


def path() -> str:
    """Where the grammar is: next to the package in a wheel, else in the repository."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../gradcli
    for candidate in (os.path.join(here, "grammar", "gradscript.lark"),
                      os.path.join(os.path.dirname(here), "grammar", "gradscript.lark")):
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError("gradscript.lark not found next to the gradcli package")


def text() -> str:
    """The grammar's text, read once (the node classes and the parse tables' cache key read it)."""
    if not _TEXT:
        with open(path(), encoding="utf-8") as f:
            _TEXT.append(f.read())
    return _TEXT[0]


def declarations(grammar: str) -> list:
    """The statements a grammar's text declares (``// @statement`` lines), in the text's order.
    (Read with str methods: a regular expression's compilation cost more than the whole read.)"""
    out = []
    pos = grammar.find(_MARK)
    while pos >= 0:
        start = pos + len(_MARK)
        end = grammar.find("\n", start)
        line = grammar[start:end]
        rule, colon, _ = grammar[end + 1:grammar.find("\n", end + 1)].partition(":")
        name, paren, rest = line.partition("(")
        fields, close, options = rest.partition(")")
        if not (colon and rule.isidentifier() and paren and close and name.isidentifier()):
            raise GrammarDeclarationError("cannot read `// @statement %s` (Name(fields) options, above its rule)"
                                          % line)
        out.append(Declaration(name, rule, _fields(name, fields), _options(name, options)))
        pos = grammar.find(_MARK, end)
    return out


def _fields(name: str, spec: str) -> tuple:
    out: list = []
    for item in filter(None, (s.strip() for s in spec.split(","))):
        field, eq, default = (s.strip() for s in item.partition("="))
        rest = field.startswith("*") and not eq
        if rest:
            field, default = field[1:], "*"
        if not field.isidentifier() or (eq and default not in DEFAULTS) or \
                (out and (out[-1][1] == "*" or (out[-1][1] and not eq and not rest))):
            raise GrammarDeclarationError("@statement %s: field %r (a name, then =None or =[] for one the "
                                          "rule may leave out, after the required ones; *name last)" % (name, item))
        out.append((field, default if eq or rest else None))
    return tuple(out)


def _options(name: str, spec: str) -> dict:
    options: dict = {}
    words: list = []
    for i, part in enumerate(spec.split('"')):  # the odd parts are quoted
        if i % 2:
            if not (words and words[-1][1] == ""):
                raise GrammarDeclarationError("@statement %s: a quoted text is an option's value (key=\"...\")"
                                              % name)
            words[-1] = (words[-1][0], part)
        else:
            words.extend((key, value if eq else None) for key, eq, value in (w.partition("=") for w in part.split()))
    for key, value in words:
        if key == "loop" and value is None:
            options[key] = True
        elif key in _LISTS and value:
            options[key] = tuple(value.split(","))
        elif key in _WORDS and value in _WORDS[key] or key in _TEXTS and value:
            options[key] = value
        else:
            raise GrammarDeclarationError("@statement %s: unknown option %s%s"
                                          % (name, key, "" if value is None else "=" + value))
    if ("error" in options or "hint" in options) and "only_in" not in options:
        raise GrammarDeclarationError("@statement %s: error= and hint= go with only_in=" % name)
    if "only_in" in options:  # ast.Statement's only_in: (where, CPython's error, hint)
        if "error" not in options:
            raise GrammarDeclarationError("@statement %s: only_in= needs error=" % name)
        options["only_in"] = (options["only_in"], options.pop("error"), options.pop("hint", None))
    return options


def check(decls: list, rules: list) -> None:
    """Hold the declarations against the grammar's rules, as Lark made them (``Lark.rules``, the rules
    reached from the start symbols): each names a rule that is a statement (an alternative of small_stmt
    or compound_stmt), and each of the rule's expansions gives the generic reducer no fewer children than
    the required fields and no more than all of them. Raises GrammarDeclarationError."""
    by_origin: dict = {}
    for rule in rules:
        by_origin.setdefault(rule.origin.name, []).append(rule.expansion)
    statements = {e[0].name for name in STATEMENT_RULES for e in by_origin.get(name, ()) if len(e) == 1}
    for d in decls:
        if d.rule not in statements:  # (Lark's rules leave out a rule nothing reaches)
            raise GrammarDeclarationError("@statement %s: %s is not a statement (a rule of the grammar, and an "
                                          "alternative of %s)" % (d.name, d.rule, " or ".join(STATEMENT_RULES)))
        rest = bool(d.fields) and d.fields[-1][1] == "*"
        required = sum(1 for _, default in d.fields if default is None)
        most = float("inf") if rest else len(d.fields)
        for expansion in by_origin[d.rule]:
            if any(not s.is_term and s.name.startswith("_") for s in expansion):
                continue  # (an inlined rule, such as a repetition's: its children are not counted here)
            kept = sum(1 for s in expansion if (not s.is_term) or (s.name == "NAME" and not s.filter_out))
            if not required <= kept <= most:
                raise GrammarDeclarationError(
                    "@statement %s: %s gives %d children (%s), the fields are %s"
                    % (d.name, d.rule, kept, " ".join(s.name for s in expansion),
                       ", ".join(f for f, _ in d.fields) or "none"))
