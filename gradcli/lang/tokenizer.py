"""GradScript tokens: the text -> the token stream the LALR parser reads.

One loop does what Lark's basic lexer and a Python INDENT/DEDENT post-lexer would do one
after the other: it runs the grammar's terminals (Lark's own master regex, in Lark's order,
with its keyword table), counts lines, drops newlines inside brackets, makes the _INDENT and
_DEDENT tokens and reports CPython's tokenizer errors (unmatched brackets, bad dedents, tabs).
The tokens are ``Token`` objects (tokens.py: Lark's Token, without importing Lark) with full positions, exactly as the two stages made
them; doing it in one pass only saves the per-token cost of a second generator.

Errors are raised when the stream reaches them, so a parser error on an earlier token still
comes first, as it did with the two stages.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional

from .tokens import Token, lark_errors

from .errors import ScriptSyntaxError

__all__ = ["ParseState", "ScanTables", "native_scan", "scan_data", "stream", "tokenize"]

MAX_NESTING = 200  # brackets, like CPython's "too many nested parentheses"

OPENERS = {"LPAR": ")", "LSQB": "]", "LBRACE": "}"}
CLOSERS = {"RPAR", "RSQB", "RBRACE"}


class ParseState:
    """Per-parse state: whether the text is one expression (newlines ignored, no indentation),
    and the open brackets (innermost last; error messages read them)."""

    __slots__ = ("expr_mode", "brackets")

    def __init__(self, expr_mode: bool = False) -> None:
        self.expr_mode = expr_mode
        self.brackets: list[Token] = []


# ---------------------------------------------------------------------------- errors

def error(message: str, line: int, column: int, end_line: Optional[int] = None,
          end_column: Optional[int] = None, *, type_name: str = "SyntaxError",
          hint: Optional[str] = None) -> ScriptSyntaxError:
    return ScriptSyntaxError(message, type_name=type_name, line=line, column=column,
                             end_line=end_line, end_column=end_column, hint=hint)


def error_at(message: str, first: Any, last: Any = None, **kw: Any) -> ScriptSyntaxError:
    """An error spanning from `first` to `last` (tokens or nodes)."""
    last = first if last is None else last
    return error(message, first.line, first.column, last.end_line, last.end_column, **kw)


def tokenizer_error(exc: ScriptSyntaxError) -> ScriptSyntaxError:
    """Mark an error found while reading tokens (it takes precedence, as in CPython)."""
    exc.from_tokenizer = True  # type: ignore[attr-defined]
    return exc


def tab_error(line: int, column: int) -> ScriptSyntaxError:
    return error("inconsistent use of tabs and spaces in indentation", line, column,
                 type_name="TabError", hint="indent with spaces only")


def indent_widths(indent: str) -> tuple[int, int]:
    """(width with tabs to multiples of 8, width counting a tab as 1), as CPython compares."""
    if "\t" not in indent and "\f" not in indent:
        return len(indent), len(indent)
    col = alt = 0
    for ch in indent:
        if ch == "\t":
            col = (col // 8 + 1) * 8
            alt += 1
        elif ch == "\f":
            col = alt = 0
        else:
            col += 1
            alt += 1
    return col, alt


# ---------------------------------------------------------------------------- tables

# The grammar's blanks (`%ignore /[\t \f]+/`).  No other terminal can start with one, so the
# scanner may skip them in front of a token (a third of all matches otherwise).
_BLANK_CHARS = {" ", "\t", "\f"}
_SOME_CHARS = [chr(i) for i in range(256)] + ["\u2028", "\u3000", "\ufeff"]


def _is_blanks(regexp: str) -> bool:
    """Does the terminal's regexp match one or more of exactly the blank characters?"""
    import re

    try:
        pattern = re.compile(regexp)
    except re.error:
        return False
    return pattern.fullmatch(" \t\f  ") is not None and \
        {c for c in _SOME_CHARS if pattern.match(c)} == _BLANK_CHARS


class ScanTables:
    """What the scan needs, compiled: see scan_data for the fields."""

    __slots__ = ("match", "types", "punctuation", "keywords", "ignore", "multiline", "allowed",
                 "literals", "terminals_by_name", "plain")

    def __init__(self, data: dict, terminals_by_name: Optional[dict] = None) -> None:
        import re

        self.match = re.compile(data["pattern"], data["flags"]).match
        self.types: list = data["types"]
        self.punctuation: dict = data["punctuation"]
        self.keywords: dict = data["keywords"]
        self.ignore = frozenset(data["ignore"])
        self.multiline = frozenset(data["multiline"])
        self.allowed = set(data["allowed"])
        self.literals: dict = data["literals"]  # the text of each terminal that is a string
        self.terminals_by_name = terminals_by_name  # only for Lark's error text
        # the terminals whose token needs nothing but making (NUMBER, the operators): on
        # one line, not ignored, never a keyword, no newline or bracket to track
        self.plain = frozenset(t for t in self.types if t is not None) - self.multiline \
            - self.ignore - set(self.keywords) - {"_NEWLINE"} - set(OPENERS) - CLOSERS


def scan_data(lexer: Any) -> dict:
    """The scanner of Lark's BasicLexer `lexer` as plain data (for a cache): the master regex
    (pattern, flags), the terminal of each of its groups (types; None: the punctuation group,
    whose characters map to terminals in punctuation), the keyword tables of terminals
    (NAME: {"if": "IF", ...}), the ignored terminals, those that may span lines, the
    terminals an UnexpectedCharacters error lists, and the text of the string terminals."""
    import re

    from lark.lexer import UnlessCallback  # noqa: PLC0415 - a cold cache: Lark is loaded

    scanner = lexer.scanner  # builds lexer.callback (the keyword "unless" tables) too
    if len(scanner._mres) != 1 or lexer.use_bytes:
        raise ValueError("one master regex over str expected")
    master = scanner._mres[0]
    keywords: dict = {}
    for name, callback in lexer.callback.items():
        if not isinstance(callback, UnlessCallback):
            raise ValueError("only keyword callbacks expected")
        table = {}
        for term in callback.scanner.terminals:
            if term.pattern.type != "str" or term.pattern.flags:
                raise ValueError("keywords must be plain strings")
            table[term.pattern.value] = term.name
        keywords[name] = table
    by_name = {t.name: t for t in lexer.terminals}
    blanks = [name for name in lexer.ignore_types if _is_blanks(by_name[name].pattern.to_regexp())]
    # skip blanks before a token inside the same match; if nothing follows them, the
    # regex backtracks and the blank terminal itself matches, as before
    prefix = "[\\t \\f]*" if blanks else ""
    front, punctuation = _front_alternatives(scanner.terminals)
    front += _front_operators(master)
    pattern = "%s(?:%s%s)" % (prefix, front, master.pattern)
    groups = re.compile(pattern, master.flags).groupindex
    types: list = [None] * (max(groups.values()) + 1)  # group number -> terminal name
    for name, index in groups.items():
        types[index] = None if name == _PUNCT else name.replace(_FAST, "")
    # terminals whose text may hold a line end (NAME's pattern cannot)
    multiline = [t for t in lexer.newline_types
                 if not (t == "NAME" and by_name[t].pattern.value == r"[^\W\d]\w*")]
    return {"pattern": pattern, "flags": master.flags, "types": types,
            "punctuation": punctuation, "keywords": keywords,
            "ignore": sorted(lexer.ignore_types), "multiline": sorted(multiline),
            "allowed": sorted(scanner.allowed_types - set(lexer.ignore_types)),
            "literals": {t.name: t.pattern.value for t in lexer.terminals if t.pattern.type == "str"}}


# Python's regex engine tries the alternatives of the master regex one after the other, and
# in Lark's order a name comes after NUMBER, STRING and _NEWLINE, a bracket after a dozen
# operators.  Two alternatives put in front take the common tokens at once; each matches only
# where no terminal before it in Lark's order can, so the tokens are the same:
# * a name, unless a string prefix and a quote start there (`r'...'` is a STRING; when that
#   string is unterminated, Lark's NAME alternative, still in its place, takes the `r`);
# * one of the brackets and separators that start no other terminal.
_FAST = "__fast"
_PUNCT = "PUNCT__fast"
_NAME = r"[^\W\d]\w*"
_STRING_PREFIX = "(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])?"
_SINGLE = "()[]{},;:"
_PROBES = ["", " ", "x", "0", "=", "\n", ".", "'", "*", "/", ">", "(", ")", ":"]


def _front_alternatives(terminals: list) -> tuple[str, dict]:
    """The regex text of the fast alternatives ("" or ending with '|') and, for the
    punctuation group, the terminal of each character."""
    import re

    def can_start(term: Any, ch: str) -> bool:  # can `term` match at a text starting with ch?
        if term.pattern.type == "str":
            return term.pattern.value.startswith(ch)
        regexp = re.compile(term.pattern.to_regexp(), re.S)
        return any(regexp.match(ch + probe) for probe in _PROBES + [ch])

    order = [t.name for t in terminals]
    by_name = {t.name: t for t in terminals}
    front = []
    name, string = by_name.get("NAME"), by_name.get("STRING")
    if name is not None and string is not None and name.pattern.to_regexp() == _NAME and \
            re.sub(r"^\(\?s:", "", string.pattern.to_regexp()).startswith(_STRING_PREFIX) and \
            not any(can_start(t, ch) for t in terminals[:order.index("NAME")] if t is not string
                    for ch in "aZ_\xe9"):
        front.append("(?P<NAME%s>(?!%s['\"])%s)" % (_FAST, _STRING_PREFIX[:-1], _NAME))
    punctuation = {}
    for term in terminals:
        pattern = term.pattern
        if pattern.type == "str" and len(pattern.value) == 1 and pattern.value in _SINGLE and \
                not any(can_start(t, pattern.value) for t in terminals if t is not term):
            punctuation[pattern.value] = term.name
    if punctuation:
        front.append("(?P<%s>[%s])" % (_PUNCT, re.escape("".join(punctuation))))
    return "".join(alt + "|" for alt in front), punctuation


# The commonest operators come after a dozen alternatives in Lark's order (NUMBER, STRING,
# _NEWLINE, AUGOP, BINOP, ...), each tried and failed in turn.  In front, each with the
# lookahead that leaves to those alternatives every text they would take: `.5` is a NUMBER,
# `...` an ELLIPSIS, `==` and `+=` are BINOP and AUGOP, `**` POW, `->` RARROW.  Each is
# checked against the master regex (_front_operators) and left out if it would differ.
_OPERATORS = [("DOT", r"\.(?!\d|\.\.)"), ("EQUAL", r"=(?!=)"), ("STAR", r"\*(?![*=])"),
              ("PLUS", r"\+(?!=)"), ("MINUS", r"-(?![=>])")]
_OPERATOR_PROBES = "0a.=*+->/ \n'(\\"


def _front_operators(master: Any) -> str:
    """The regex text of _OPERATORS' alternatives ("" or ending with '|') that give the
    master regex's token wherever they match (probed on every text of up to 3 characters
    from _OPERATOR_PROBES after the operator's own)."""
    import re

    front = []
    for name, regexp in _OPERATORS:
        if name not in master.groupindex:
            continue
        fast = re.compile(regexp)
        ok = True
        for first in "+-*=.":
            for a in _OPERATOR_PROBES:
                for b in _OPERATOR_PROBES:
                    text = first + a + b
                    m = fast.match(text)
                    if m is None:
                        continue
                    full = master.match(text)
                    if full is None or full.lastgroup != name or full.span() != m.span():
                        ok = False
        if ok:
            front.append("(?P<%s%s>%s)|" % (name, _FAST, regexp))
    return "".join(front)


# ---------------------------------------------------------------------------- the scan

# A text of this many characters or more is scanned by csrc/scan.c when it is built (the same tokens,
# made a few times faster); a shorter one loads no C module (start-up: tests/test_startup.py).
NATIVE_FROM = 20_000
_TOKEN_SLOTS = tuple(Token.__dict__[name] for name in (
    "type", "value", "start_pos", "line", "column", "end_line", "end_column", "end_pos"))
_NATIVE: list = []


def native_scan(tables: ScanTables) -> Optional[Any]:
    """csrc/scan.c's scan(text, expr_mode, slots, keywords) when it is built and written for the
    master regex of `tables` (a grammar whose terminals changed has another), else None."""
    if not _NATIVE:
        from .. import native  # noqa: PLC0415 - a long text's first scan
        _NATIVE.append(native.load("scan", needs=("scan",)))
    module = _NATIVE[0]
    pattern = tables.match.__self__  # type: ignore[attr-defined]
    if module is None or pattern.pattern != module.PATTERN or pattern.flags != 32:  # re.UNICODE alone
        return None
    return module.scan


def stream(text: str, state: ParseState, tables: ScanTables) -> Iterable[Token]:
    """tokenize's tokens of `text`: from the C scan (a list) for a long text, else (or where the C
    scan stops: an error, which the Python scan raises where it belongs) from tokenize itself."""
    if len(text) >= NATIVE_FROM:
        scan = native_scan(tables)
        if scan is not None:
            found = scan(text, state.expr_mode, _TOKEN_SLOTS, tables.keywords.get("NAME", {}))
            if found is not None:
                return found
    return tokenize(text, state, tables)


def tokenize(text: str, state: ParseState, tables: ScanTables) -> Iterator[Token]:
    """The tokens of `text` (which ends with a newline), indentation tokens included."""
    match = tables.match
    types = tables.types
    punctuation = tables.punctuation
    keywords = tables.keywords
    name_keywords = keywords.get("NAME", {}).get
    ignore = tables.ignore
    multiline = tables.multiline
    plain = tables.plain
    brackets = state.brackets
    expr_mode = state.expr_mode
    new_token = str.__new__
    end = len(text)
    pos = 0
    line = 1
    line_start = 0          # index of the first character of `line`
    indents = [(0, 0)]      # open indentation levels (see indent_widths)
    last = None             # the last token scanned (newlines inside brackets included)
    while pos < end:
        m = match(text, pos)
        if m is None:
            raise lark_errors().UnexpectedCharacters(text, pos, line, pos - line_start + 1,
                                       allowed=tables.allowed,
                                       terminals_by_name=tables.terminals_by_name)
        index = m.lastindex
        ttype = types[index]
        start, end_pos = m.span(index)
        value = text[start:end_pos]
        if ttype is None or ttype == "NAME" or ttype in plain:
            # one-line tokens made at once: the fast punctuation group (one character), a name or
            # keyword (the most common token), NUMBER and the operators (ScanTables.plain)
            if ttype is None:
                ttype = punctuation[value]
            elif ttype == "NAME":
                ttype = name_keywords(value, "NAME")
            tok = new_token(Token, value)
            tok.type = ttype
            tok.value = value
            tok.start_pos = start
            tok.line = tok.end_line = line
            tok.column = start - line_start + 1
            tok.end_column = end_pos - line_start + 1
            tok.end_pos = end_pos
            pos = end_pos
            last = tok
            if ttype in OPENERS:
                brackets.append(tok)
                if len(brackets) > MAX_NESTING:
                    raise tokenizer_error(error_at("too many nested parentheses", tok))
            elif ttype in CLOSERS:
                _close(tok, brackets)
            yield tok
            continue
        end_line, end_start = line, line_start
        if ttype in multiline:
            newlines = value.count("\n")
            if newlines:
                end_line = line + newlines
                end_start = start + value.rindex("\n") + 1
        if ttype in ignore:
            pos, line, line_start = end_pos, end_line, end_start
            continue
        table = keywords.get(ttype)
        tok = new_token(Token, value)
        tok.type = ttype if table is None else table.get(value, ttype)
        tok.value = value
        tok.start_pos = start
        tok.line = line
        tok.column = start - line_start + 1
        tok.end_line = end_line
        tok.end_column = end_pos - end_start + 1
        tok.end_pos = end_pos
        pos, line, line_start = end_pos, end_line, end_start
        last = tok
        if ttype == "_NEWLINE":
            if brackets or expr_mode:
                continue  # implicit line joining
            yield tok
            yield from _indentation(tok, indents)
        elif ttype in OPENERS:
            brackets.append(tok)
            if len(brackets) > MAX_NESTING:
                raise tokenizer_error(error_at("too many nested parentheses", tok))
            yield tok
        elif ttype in CLOSERS:
            _close(tok, brackets)
            yield tok
        else:
            yield tok
    if brackets:
        opener = brackets[-1]
        raise tokenizer_error(error_at(
            "'%s' was never closed" % opener.value, opener,
            hint="add the missing '%s'" % OPENERS[opener.type]))
    if last is not None and not expr_mode and last.type != "_NEWLINE":
        # Only a backslash continuation at the very end can swallow the last newline.
        raise tokenizer_error(error(
            "unexpected EOF while parsing", last.end_line, last.end_column,
            hint="remove the '\\' at the end of the file"))
    if len(indents) > 1 and last is not None:
        line = last.end_line
        for _ in range(len(indents) - 1):
            yield Token("_DEDENT", "", last.end_pos, line, 1, line, 1, last.end_pos)


MAX_INDENT = 100


def _indentation(tok: Token, indents: list) -> Iterator[Token]:
    """The _INDENT/_DEDENT tokens after the newline `tok` (its text ends with the indentation
    of the next line); `indents` is updated.  A bad dedent fails after the good _DEDENTs."""
    value = tok.value
    indent = value[value.rfind("\n") + 1:]
    line = tok.end_line
    col = len(indent) + 1
    width = indent_widths(indent) if indent else (0, 0)
    top = indents[-1]
    if width[0] > top[0]:
        if width[1] <= top[1]:
            raise tokenizer_error(tab_error(line, col))
        if len(indents) >= MAX_INDENT:  # CPython's tokenizer holds 100 levels (its stack, level 0 included)
            raise tokenizer_error(error("too many levels of indentation", line, 1, type_name="IndentationError",
                                        hint="move the innermost blocks into functions"))
        indents.append(width)
        yield Token("_INDENT", indent, tok.end_pos, line, col, line, col, tok.end_pos)
    elif width[0] < top[0]:
        while width[0] < indents[-1][0]:
            indents.pop()
            yield Token("_DEDENT", "", tok.end_pos, line, col, line, col, tok.end_pos)
        if width[0] != indents[-1][0]:
            raise tokenizer_error(error(
                "unindent does not match any outer indentation level", line, col,
                type_name="IndentationError",
                hint="indent this line exactly as far as an enclosing block"))
        if width[1] != indents[-1][1]:
            raise tokenizer_error(tab_error(line, col))
    elif width[1] != top[1]:
        raise tokenizer_error(tab_error(line, col))


def _close(tok: Token, brackets: list) -> None:
    """Check the closing bracket `tok` against the innermost open one (popped)."""
    if not brackets:
        raise tokenizer_error(error_at(
            "unmatched '%s'" % tok.value, tok,
            hint="remove it, or add the opening bracket it closes"))
    opener = brackets.pop()
    if OPENERS[opener.type] != tok.value:
        msg = "closing parenthesis '%s' does not match opening parenthesis '%s'" % (
            tok.value, opener.value)
        if opener.line != tok.line:
            msg += " on line %d" % opener.line
        raise tokenizer_error(error_at(
            msg, tok, hint="close '%s' with '%s'" % (opener.value, OPENERS[opener.type])))
