"""Syntax errors in CPython's words: what the parser expected, the special messages CPython
gives (missing ':', unclosed brackets, 'Perhaps you forgot a comma?', ...), and which error
wins when the tokenizer also found one."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Optional

from .precedence import FLAT_OPERATORS, OPERATOR_TERMINALS, walrus_statement_error
from .targets import unsupported_error
from .errors import ScriptSyntaxError
from .tokenizer import CLOSERS as _CLOSERS, OPENERS as _OPENERS, ParseState, tokenize
from .tokenizer import error as _error, error_at as _error_at
from .tokens import Token, lark_errors

if TYPE_CHECKING:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

# ============================================================================ errors

# how CPython names the statement a block header opens where it is not "'if' statement"
# ("expected an indented block after function definition on line 3")
_STATEMENT_NAMES = {"def": "function definition", "class": "class definition"}
_EXPR_END = {"NAME", "NUMBER", "STRING", "RPAR", "RSQB", "RBRACE", "NONE", "TRUE", "FALSE",
             "ELLIPSIS"}
# what may follow an operand besides an operator; left out of hints after an operand
_CONTINUATIONS = {"DOT", "LPAR", "LSQB", "FOR", "IF", "ELSE", "EQUAL", "AUGOP", "COLONEQUAL"}
_CLOSING = {"_NEWLINE", "$END", "RPAR", "RSQB", "RBRACE", "COMMA", "COLON", "SEMICOLON"}
_WORD_ORDER = {"COLON": 0, "RPAR": 1, "RSQB": 2, "RBRACE": 3, "COMMA": 4, "EQUAL": 5}
_TERMINAL_WORDS = {
    "_NEWLINE": "the end of the line", "_INDENT": "an indented block",
    "$END": "the end of the input", "NAME": "a name", "NUMBER": "a number", "STRING": "a string",
    "AUGOP": "'+=' or a similar operator", "BINOP": "an operator", "SEMICOLON": "';'",
    "EQUAL": "'='",
}


def _keywords() -> Any:
    """The grammar's keyword tables (lang/keywords.py; loaded by now: errors come from parsing)."""
    from .parser import keyword_tables  # noqa: PLC0415 - the parser imports this module

    return keyword_tables()


def _block_headers() -> dict:
    """{terminal of a block header: how CPython names its statement}."""
    kw = _keywords()
    return {kw.words[w]: _STATEMENT_NAMES.get(w, "'%s' statement" % w) for w in kw.block_headers}


def _describe_expected(expected: set) -> str:
    """What the parser could have taken, in words: "expected ':' or an operator"."""
    words: list[str] = []
    if "PASS" in expected:
        words.append("a statement")
        expected = expected - _keywords().statement_start - _keywords().expression_start
    if expected & {"NUMBER", "STRING"}:
        words.append("an expression")
    elif "NAME" in expected:
        words.append("a name")
    after_operand = "BINOP" in expected
    skip = _keywords().expression_start | OPERATOR_TERMINALS | {"_NEWLINE", "SEMICOLON", "_DEDENT", "$END",
                                                "AUGOP"}
    if after_operand:
        skip = skip | _CONTINUATIONS
    for name in sorted(expected - skip, key=lambda n: (_WORD_ORDER.get(n, 50), n)):
        word = _TERMINAL_WORDS.get(name) or _terminal_text(name)
        if word and word not in words:
            words.append(word)
    if after_operand and "an expression" not in words:
        words.insert(0, "an operator")
    if "_NEWLINE" in expected:
        words.append("the end of the line")
    elif "$END" in expected:
        words.append("the end of the expression")
    if not words:
        return ""
    if len(words) > 5:
        return "expected " + ", ".join(words[:4]) + ", ..."
    if len(words) == 1:
        return "expected " + words[0]
    return "expected " + ", ".join(words[:-1]) + " or " + words[-1]


def _tables() -> Any:
    from .parser import fast_parser  # loaded by now: errors come from parsing

    return fast_parser()[1]


def _terminal_text(name: str) -> str:
    """A terminal's literal text, quoted ("':'"), or "" for a pattern."""
    text = _tables().literals.get(name)
    return "" if text is None else "'%s'" % text


def _describe_token(tok: Token) -> str:
    t = tok.type
    if t == "NAME":
        return "the name '%s'" % tok.value
    if t == "NUMBER":
        return "the number %s" % tok.value
    if t == "STRING":
        return "a string"
    if t in _TERMINAL_WORDS and t.startswith(("_", "$")):
        return {"_INDENT": "an indent", "_DEDENT": "the end of the block"}.get(
            t, _TERMINAL_WORDS[t])
    return "'%s'" % tok.value


def _header_keyword(value_stack: list) -> Optional[Token]:
    headers = _block_headers()
    for item in reversed(value_stack):
        if type(item) is Token and item.type in headers:
            return item
    return None


class Replay:
    """The token stream again, up to the failing token (errors only): what came before it."""

    __slots__ = ("prev", "brackets", "error")

    def __init__(self, text: str, expr_mode: bool, stop: Optional[Token]) -> None:
        self.prev: Optional[Token] = None       # the token before `stop`
        self.brackets: list[Token] = []         # brackets open at `stop`
        self.error: Optional[ScriptSyntaxError] = None  # a tokenizer error anywhere
        state = ParseState(expr_mode=expr_mode)
        found = stop is None or stop.type == "$END"
        last = None
        open_before: list = []
        try:
            for tok in tokenize(text, state, _tables()):
                if last is not None and last.type == "NUMBER" and last.end_pos == tok.start_pos:
                    bad = _bad_number(last, tok)  # CPython's tokenizer rejects `1abc`
                    if bad is not None:
                        self.error = bad
                        break
                if not found:
                    if tok.start_pos == stop.start_pos and tok.type == stop.type:
                        found = True
                        self.prev = last
                        self.brackets = open_before
                    else:
                        open_before = list(state.brackets)
                last = tok
        except ScriptSyntaxError as exc:
            self.error = exc
        except lark_errors().UnexpectedCharacters as exc:  # (an error path: Lark may be loaded)
            self.error = from_unexpected_characters(exc, text)
        except Exception:  # pragma: no cover - keep the parser's own error
            pass
        if stop is not None and stop.type == "$END":
            self.prev = last


def from_unexpected_token(exc: UnexpectedToken, text: str, expr_mode: bool) -> ScriptSyntaxError:
    replay = Replay(text, expr_mode, exc.token)
    try:
        error = _parser_error(exc, replay, expr_mode)
    except Exception:  # pragma: no cover - a bug in a special message must not hide the error
        tok = exc.token
        error = _error("invalid syntax", tok.line or 1, tok.column or 1)
    if error.type_name == "IndentationError" and error.message == "unexpected indent":
        return error
    return tokenizer_first(error, replay, exc.token.line or error.line)


def tokenizer_first(error: ScriptSyntaxError, replay: "Replay",
                     line: Optional[int]) -> ScriptSyntaxError:
    """CPython reads the rest of the file after a parser error: a tokenizer error found
    there wins, and an unclosed bracket wins when it was opened on a line before `line`
    (the line the parser had reached)."""
    found = replay.error
    if found is None:
        return error
    if found.message.endswith("was never closed") and (line or 0) <= (found.line or 0):
        return error
    return found


def _parser_error(exc: UnexpectedToken, replay: "Replay", expr_mode: bool) -> ScriptSyntaxError:
    tok = exc.token
    ttype = tok.type
    stack = exc.state.value_stack if exc.state is not None else []
    expected = _acceptable(exc)
    prev = replay.prev
    if tok.line is None:  # an end token without a position: point after the last token
        line, col = (prev.end_line, prev.end_column) if prev is not None else (1, 1)
        tok = Token(ttype, "", 0, line, col, line, col, 0)

    if ttype == "_INDENT":
        return _error("unexpected indent", tok.line, tok.column, tok.line, tok.column + 1,
                      type_name="IndentationError",
                      hint="this line is indented more than the block it belongs to")
    if "_INDENT" in expected:
        header = _header_keyword(stack)
        what = _block_headers()[header.type] if header is not None else "':'"
        where = " on line %d" % header.line if header is not None else ""
        return _error("expected an indented block after %s%s" % (what, where),
                      tok.line, tok.column, tok.end_line, max(tok.end_column, tok.column + 1),
                      type_name="IndentationError",
                      hint="indent the body of the block (4 spaces is usual), or write "
                           "'pass' for an empty one")
    reserved = _keywords().terminals(_keywords().reserved)
    for word in (tok, prev):
        if word is not None and word.type in reserved:
            return unsupported_error(word)
    if "EXCEPT" in expected and "FINALLY" in expected and ttype not in ("EXCEPT", "FINALLY"):
        return _error_at("expected 'except' or 'finally' block", tok,
                         hint="a try block needs an 'except' or a 'finally' block after it")
    if ttype == "YIELD":
        return _error_at("'yield' is a statement in GradScript", tok,
                         hint="write 'yield value' on a line of its own (a generator's caller cannot send values)")
    if ttype == "COMMA" and "COLON" in expected and _header_keyword(stack) is not None and \
            _header_keyword(stack).type == "EXCEPT":
        return _error_at("multiple exception types must be parenthesized", tok,
                         hint="except (A, B): catches either")
    if ttype == "BINOP" and tok.value == "/" and "NAME" in expected and \
            any(type(x) is Token and x.type in ("DEF", "LAMBDA") for x in stack[-40:]):
        return _error_at("positional-only parameters ('/') are not supported in GradScript", tok,
                         hint="remove the '/'; every parameter can be passed by position")
    if ttype in ("_NEWLINE", "$END") and "COLON" in expected:
        header = _header_keyword(stack)
        if header is not None:
            return _error("expected ':'", tok.line, tok.column, tok.line, tok.column + 1,
                          hint="end the %s header with ':'" % _block_headers()[header.type])
    if "ELSE" in expected and ttype in _CLOSING and len(stack) >= 3 and \
            type(stack[-2]) is Token and stack[-2].type == "IF":
        return _error_at("expected 'else' after 'if' expression", stack[-3], stack[-1],
                         hint="a conditional expression is 'A if CONDITION else B'")
    if ttype == "COLONEQUAL":  # `a.b := 1` as a statement: CPython names what `a.b` is
        start = len(stack)
        while start and (type(stack[start - 1]) is not Token or stack[start - 1].type in FLAT_OPERATORS):
            start -= 1
        if start == 0 or stack[start - 1].type in ("_NEWLINE", "_INDENT", "_DEDENT", "SEMICOLON"):
            error = walrus_statement_error(stack[start:])
            if error is not None:
                return error
    genexp = _unparenthesized_genexp(stack, ttype) if ttype in ("COMMA", "FOR") else None
    if genexp is not None:
        return _error_at("Generator expression must be parenthesized", genexp, stack[-1],
                         hint="put the generator in its own parentheses: f((x for x in y), z)")
    if "COLON" in expected and ttype in ("RBRACE", "COMMA") and replay.brackets and \
            replay.brackets[-1].type == "LBRACE" and stack and type(stack[-1]) is not Token:
        return _error_at("':' expected after dictionary key", stack[-1])
    if prev is not None and prev.type == "NUMBER" and prev.end_pos == tok.start_pos:
        bad = _bad_number(prev, tok)
        if bad is not None:
            return bad
    if prev is not None and prev.type == "NAME" and prev.value == "print" and \
            ttype in _keywords().expression_start and _statement_start(stack, prev):
        return _error_at("Missing parentheses in call to 'print'. Did you mean print(...)?",
                         prev, tok, hint="print is a function: print(...)")

    hint = _describe_expected(expected)
    if hint:
        hint += ", found " + _describe_token(tok)
    message = "invalid syntax"
    first = tok
    if (replay.brackets or expr_mode) and prev is not None and ttype in _keywords().expression_start and \
            prev.type in _EXPR_END and not (prev.type == "NAME" and ttype == "STRING") and \
            "BINOP" in expected and "COMMA" in expected:
        message = "invalid syntax. Perhaps you forgot a comma?"
        first = prev
    return _error(message, first.line, first.column, tok.end_line,
                  max(tok.end_column, tok.column + 1) if tok.end_line == tok.line
                  else tok.end_column, hint=hint or None)


def _acceptable(exc: UnexpectedToken) -> set:
    """The terminals the parser would really have taken where it failed.

    The table row of the failing state over-approximates (LALR merges states), so each
    candidate is tried on copies of the parser stacks (lalr.Driver.accepts).  Error path only.
    """
    kw = _keywords()
    candidates = set(exc.expected or ()) - kw.terminals(kw.reserved)
    state = exc.state
    if state is None:
        return candidates
    return {name for name in candidates if state.accepts(name)}


def _bad_number(number: Token, tok: Token) -> Optional[ScriptSyntaxError]:
    """CPython's error for a number immediately followed by `tok` (`1abc`, `0x`, `0b12`)."""
    value = number.value.lower()
    kind = {"0x": "hexadecimal", "0o": "octal", "0b": "binary"}.get(value[:2], "decimal")
    if tok.type == "NUMBER" and kind in ("octal", "binary"):
        return _error_at("invalid digit '%s' in %s literal" % (tok.value[0], kind), tok)
    if tok.type != "NAME":
        return None
    if value == "0" and tok.value[:1].lower() in "xob":
        kind = {"x": "hexadecimal", "o": "octal", "b": "binary"}[tok.value[0].lower()]
    return _error_at("invalid %s literal" % kind, number, tok)


def _unparenthesized_genexp(stack: list, ttype: str) -> Any:
    """In call arguments, the first item of a generator that is not the only argument."""
    for i in range(len(stack) - 1, 0, -1):
        item = stack[i]
        if type(item) is Token and (item.type in _OPENERS or item.type in _CLOSERS):
            if item.type != "LPAR" or type(stack[i - 1]) is Token:
                return None  # not the parentheses of a call
            after = stack[i + 1:]
            fors = [j for j, x in enumerate(after) if type(x) is Token and x.type == "FOR"]
            if ttype == "FOR":  # f(a, b for ...): the generator starts after the last comma
                fors.append(len(after))
            elif not fors:  # f(b for b in c, d): the comma ends a generator
                return None
            commas = [j for j, x in enumerate(after[:fors[0]])
                      if type(x) is Token and x.type == "COMMA"]
            if ttype == "FOR" and not commas:
                return None
            first = commas[-1] + 1 if commas else 0
            start = after[first] if first < len(after) else None
            return None if start is None or type(start) is Token else start
    return None


def _statement_start(stack: list, tok: Token) -> bool:
    """Was `tok` (on top of the value stack) the first token of a statement?"""
    if not stack or type(stack[-1]) is not Token or stack[-1].start_pos != tok.start_pos:
        return False
    if len(stack) == 1:
        return True
    before = stack[-2]
    return type(before) is not Token or before.type in ("_NEWLINE", "_INDENT", "_DEDENT",
                                                           "SEMICOLON")




def from_unexpected_characters(exc: UnexpectedCharacters, text: str) -> ScriptSyntaxError:
    pos = exc.pos_in_stream
    ch = text[pos] if pos < len(text) else ""
    line, col = exc.line, exc.column
    if ch in "'\"":
        triple = text.startswith(ch * 3, pos)
        if not triple and pos >= 2 and text[pos - 2:pos] == ch * 2:
            # the lexer took the first two quotes of an unclosed triple quote for ''
            triple = True
            pos -= 2
            col -= 2
        # back up over a string prefix that the lexer read as a name
        start_col = col
        j = pos
        while j > 0 and text[j - 1] in "rRbBuUfF" and pos - j < 2:
            j -= 1
        if j < pos and (j == 0 or not (text[j - 1].isalnum() or text[j - 1] == "_")):
            start_col = col - (pos - j)
        if triple:
            detected = text.count("\n")
            return _error("unterminated triple-quoted string literal (detected at line %d)"
                          % detected, line, start_col, line, start_col + 1,
                          hint="close the string with %s" % (ch * 3))
        m = re.compile(r"%s(?:[^%s\\\n]|\\.)*" % (ch, ch), re.S).match(text, pos)
        detected = line + (m.group(0).count("\n") if m else 0)
        return _error("unterminated string literal (detected at line %d)" % detected,
                      line, start_col, line, start_col + 1,
                      hint="close the string with %s on the same line" % ch)
    if ch == "\\":
        return _error("unexpected character after line continuation character", line, col,
                      line, col + 1,
                      hint="a '\\' that continues a line must be the last character on it")
    if ch == "\x00":
        return _error("source code string cannot contain null bytes", line, col, line, col + 1)
    if ch and not ch.isprintable() and ch not in "\t\n\f":
        return _error("invalid non-printable character U+%04X" % ord(ch), line, col,
                      line, col + 1)
    if ch and ord(ch) > 127:
        return _error("invalid character '%s' (U+%04X)" % (ch, ord(ch)), line, col,
                      line, col + 1, hint="only ASCII operators and punctuation are allowed "
                                          "outside strings and comments")
    return _error("invalid syntax", line, col, line, col + 1,
                  hint="'%s' is not a GradScript operator or punctuation" % ch if ch else None)
