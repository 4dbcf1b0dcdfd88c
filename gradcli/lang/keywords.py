"""GradScript's keywords, read from the grammar: the syntax errors (block headers, statement starts,
reserved words), the highlighter, completion and the REPL's continuation rule read these tables,
and no other module spells a keyword list.

``derive(rules, words)`` runs once, when the parse tables are built from the grammar (Lark's rules
and the scanner's keyword terminals); its result is cached with the tables
(``parser.keyword_tables()`` reads it), so a start-up with a warm cache neither imports Lark nor
walks the grammar. What each table is, in the grammar's terms:

- ``words``: every keyword, mapped to its terminal ({"if": "IF", "else": "ELSE", ...}): the string
  terminals that the NAME pattern matches, named (``IF: "if"``) or quoted in a rule (``"else"``);
- ``block_headers``: the words that start a rule holding a ``suite`` (``if``, ``def``, ``else``...);
- ``continuation_headers``: those of them whose rule is not itself a statement (``elif``, ``else``,
  ``except``, ``finally``: the clause of the statement above it);
- ``statement_start``: the terminals that can start a statement (``small_stmt``/``compound_stmt``)
  but not an expression (IF, PASS, ..., and AT of a decorator); ``expression_start`` those that
  can start an expression (``test``), the reserved words' left out;
- ``reserved``: the words of the ``reserved`` rule (Python keywords GradScript lacks);
- ``constants``: ``True``, ``False``, ``None`` (a keyword that starts with a capital, as in Python);
- ``keywords``: every word but the reserved ones and the constants (highlighting, completion).

What the grammar cannot say is here too, once: what each of Python's words that GradScript lacks
stands for (the reserved words' error hint); the REPL reads a block after each of them as a header.
"""
from __future__ import annotations

# Python's words that GradScript lacks, and what the subset leaves out with them: the grammar's
# `reserved` rule makes async/await an error that names it; `match x:` (a soft keyword in Python, a
# plain name in GradScript) opens a block in the REPL as the others' headers do, and the parser then
# says what is wrong with it
PYTHON_ONLY = {"async": "async code", "await": "async code", "match": "match statements"}

# the grammar's statement rules, and its statement-level expression
STATEMENT_RULES = ("small_stmt", "compound_stmt")
_EXPRESSION_RULE = "testlist_star_expr"
_OPERAND_RULE = "test"
_BLOCK_RULE = "suite"
_RESERVED_ALIAS = "reserved"


def derive(rules: list, words: dict) -> dict:
    """The keyword tables (plain data, for the cache) of a grammar: ``rules`` are its rules as
    (nonterminal, [symbol names], alias or None), Lark's expansion; ``words`` maps each keyword to
    its terminal (the scanner's NAME keyword table)."""
    terminal_of = dict(words)
    word_of = {t: w for w, t in terminal_of.items()}
    by_origin: dict = {}
    for origin, expansion, _alias in rules:
        by_origin.setdefault(origin, []).append(expansion)
    statements = {e[0] for name in STATEMENT_RULES for e in by_origin.get(name, ()) if len(e) == 1}
    header_rules = {origin: e[0] for origin, expansion_list in by_origin.items() for e in expansion_list
                    if e and e[0] in word_of and _BLOCK_RULE in e}
    first = _first_sets(by_origin)
    starts = set().union(*(first.get(name, set()) for name in STATEMENT_RULES)) - first.get(_EXPRESSION_RULE, set())
    reserved = {e[0] for origin, e, alias in rules if alias == _RESERVED_ALIAS and len(e) == 1}
    expression_start = first.get(_OPERAND_RULE, set()) - reserved
    headers = sorted({word_of[t] for t in header_rules.values()})
    constants = sorted(w for w in terminal_of if w[:1].isupper())
    reserved_words = sorted(word_of[t] for t in reserved if t in word_of)
    return {
        "words": terminal_of,
        "block_headers": headers,
        "continuation_headers": sorted({word_of[t] for origin, t in header_rules.items() if origin not in statements}),
        "statement_start": sorted(starts),
        "expression_start": sorted(expression_start),
        "reserved": reserved_words,
        "constants": constants,
        "keywords": sorted(set(terminal_of) - set(reserved_words) - set(constants)),
    }


def _first_sets(by_origin: dict) -> dict:
    """FIRST(nonterminal): the terminals its text can start with (the textbook fixpoint)."""
    nullable: set = set()
    first: dict = {name: set() for name in by_origin}
    changed = True
    while changed:
        changed = False
        for name, expansions in by_origin.items():
            out = first[name]
            size = len(out)
            for expansion in expansions:
                for symbol in expansion:
                    if symbol in by_origin:
                        out |= first[symbol]
                        if symbol in nullable:
                            continue
                    else:
                        out.add(symbol)
                    break
                else:
                    if name not in nullable:
                        nullable.add(name)
                        changed = True
            changed = changed or len(out) != size
    return first


class Keywords:
    """The keyword tables (see the module docstring), from ``derive``'s data."""

    __slots__ = ("words", "block_headers", "continuation_headers", "statement_start", "expression_start",
                 "reserved", "constants", "keywords")

    def __init__(self, data: dict) -> None:
        self.words: dict = data["words"]
        self.block_headers = tuple(data["block_headers"])
        self.continuation_headers = tuple(data["continuation_headers"])
        self.statement_start = frozenset(data["statement_start"])
        self.expression_start = frozenset(data["expression_start"])
        self.reserved = tuple(data["reserved"])
        self.constants = tuple(data["constants"])
        self.keywords = tuple(data["keywords"])

    def terminals(self, words) -> frozenset:
        """The grammar's terminals of these keywords."""
        return frozenset(self.words[w] for w in words)


__all__ = ["PYTHON_ONLY", "STATEMENT_RULES", "derive", "Keywords"]
