"""GradScript literals and spans: numbers, strings and f-strings (escapes decoded without
eval, CPython's error messages), and the span helpers the AST builders use."""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from typing import Any

from .tokens import Token

from . import ast
from .errors import ScriptSyntaxError, python_message
from .tokenizer import ParseState, error as _error, error_at as _error_at

# ============================================================================ spans


new_node = object.__new__  # a node without its __init__: the builder sets every slot


def set_span(node: Any, first: Any, last: Any) -> Any:
    node.line = first.line
    node.column = first.column
    node.end_line = last.end_line
    node.end_column = last.end_column
    return node


def ident(tok: Token) -> str:
    """A NAME token's identifier, NFKC-normalised as Python's are."""
    value = tok.value
    return value if value.isascii() else unicodedata.normalize("NFKC", value)


def _shift(node: ast.Node, line: int, column: int) -> None:
    """Move the spans of a sub-parse that started at (1, 1) to start at (line, column)."""
    for n in ast.walk(node):
        if n.line == 1:
            n.column += column - 1
        if n.end_line == 1:
            n.end_column += column - 1
        n.line += line - 1
        n.end_line += line - 1


# ============================================================================ literals

_ESCAPE = re.compile(r"\\(\n|[\\'\"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{0,2}|N(?:\{[^}\n]*\}?)?"
                     r"|u[0-9a-fA-F]{0,4}|U[0-9a-fA-F]{0,8}|.)", re.S)
_SIMPLE_ESCAPES = {"\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b",
                   "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class _LiteralError(Exception):
    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset  # index in the text where it happened


def _unescape(body: str, is_bytes: bool) -> str:
    """Decode backslash escapes (no eval).  For bytes, the result holds chars < 256."""
    def replace(m: re.Match) -> str:
        esc = m.group(1)
        head = esc[0]
        simple = _SIMPLE_ESCAPES.get(esc)
        if simple is not None:
            return simple
        if head in "01234567":
            value = int(esc, 8)
            return chr(value & 0xFF if is_bytes else value)
        span = "position %d-%d" % (m.start(), m.end() - 1)
        codec = "unicodeescape"
        if head == "x":
            if len(esc) != 3:
                raise _LiteralError("(%s error) '%s' codec can't decode bytes in %s: truncated "
                                    "\\xXX escape" % ("value" if is_bytes else "unicode",
                                                      codec, span), m.start())
            return chr(int(esc[1:], 16))
        if is_bytes:
            return m.group(0)  # \u, \U, \N and unknown escapes stay as they are in bytes
        if head in "uU":
            need = 5 if head == "u" else 9
            if len(esc) != need:
                raise _LiteralError("(unicode error) '%s' codec can't decode bytes in %s: "
                                    "truncated \\%sXXXX%s escape"
                                    % (codec, span, head, "XXXX" if head == "U" else ""),
                                    m.start())
            value = int(esc[1:], 16)
            if value > 0x10FFFF:
                raise _LiteralError("(unicode error) '%s' codec can't decode bytes in %s: "
                                    "illegal Unicode character" % (codec, span), m.start())
            return chr(value)
        if head == "N":
            if len(esc) < 3 or not esc.endswith("}"):
                raise _LiteralError("(unicode error) '%s' codec can't decode bytes in %s: "
                                    "malformed \\N character escape" % (codec, span), m.start())
            try:
                return unicodedata.lookup(esc[2:-1])
            except KeyError:
                raise _LiteralError("(unicode error) '%s' codec can't decode bytes in %s: "
                                    "unknown Unicode character name" % (codec, span),
                                    m.start()) from None
        return m.group(0)  # unknown escape: kept, as Python does
    return _ESCAPE.sub(replace, body)


def _split_string(text: str) -> tuple[str, str, int]:
    """(lower-case prefix, body, index of the body in the token)."""
    i = 0
    while text[i] not in "'\"":
        i += 1
    q = text[i]
    if text.startswith(q * 3, i) and len(text) - i >= 6:
        return text[:i].lower(), text[i + 3:-3], i + 3
    return text[:i].lower(), text[i + 1:-1], i + 1


@functools.lru_cache(maxsize=4)
def _newlines(text: str) -> list:
    """The offsets of the newlines of a token's text (the f-string being split asks for many positions)."""
    out, i = [], text.find("\n")
    while i >= 0:
        out.append(i)
        i = text.find("\n", i + 1)
    return out


def _pos_in_token(tok: Any, index: int) -> tuple[int, int]:
    """(line, column) of character `index` of a token's text. From the token's newline offsets, found
    once: counting them again for each of an f-string's fields took a time quadratic in its length
    (100,000 ``{1}`` fields, 300 KB of source, parsed for minutes)."""
    offsets = _newlines(tok.value)
    nl = bisect.bisect_left(offsets, index)
    if not nl:
        return tok.line, tok.column + index
    return tok.line + nl, index - offsets[nl - 1]


def number_constant(tok: Token) -> Any:
    s = tok.value
    try:
        if s[-1] in "jJ":
            raise _error_at("imaginary numbers are not supported in GradScript", tok,
                            hint="use real numbers (complex tensors are not supported)")
        if len(s) > 1 and s[0] == "0" and s[1] in "xXoObB":
            value = int(s, 0)
            if len(s) > 25_000:  # 0x and 25,000 digits: past 100,000 bits, which no operator makes
                from .pyops import MAX_INT_BITS  # noqa: PLC0415 - the parser needs it for long literals only
                if value.bit_length() > MAX_INT_BITS:
                    raise _error_at(f"integer literal of {value.bit_length()} bits exceeds the limit of "
                                    f"{MAX_INT_BITS} bits (GradScript limit)", tok)
            return value
        if "." in s or "e" in s or "E" in s:
            return float(s)
        return int(s, 0)
    except ValueError as exc:
        if s[0] == "0" and s.strip("0_"):
            raise _error_at("leading zeros in decimal integer literals are not permitted; "
                            "use an 0o prefix for octal integers", tok) from None
        raise _error_at(python_message(exc), tok) from None


# ============================================================================ strings


def string_constant(toks: list) -> Any:
    """Adjacent string literals -> one Constant (str/bytes) or a JoinedStr (f-strings)."""
    first, last = toks[0], toks[-1]
    if len(toks) == 1:
        tok = first
        text = tok.value
        if text[0] in "'\"":  # no prefix: the usual case
            body = text[3:-3] if text[:3] in ("'''", '"""') and len(text) >= 6 else text[1:-1]
            if "\\" in body:
                body = _decode(tok, body, (len(text) - len(body)) // 2, False)
            return set_span(ast.Constant(body), tok, tok)
    parts: list = []     # str pieces and FormattedValue nodes
    kinds = set()
    for tok in toks:
        prefix, body, offset = _split_string(tok.value)
        is_bytes = "b" in prefix
        kinds.add(is_bytes)
        if len(kinds) > 1:
            raise _error_at("cannot mix bytes and nonbytes literals", first, tok)
        raw = "r" in prefix
        if "f" in prefix:
            parts.extend(_fstring(tok, body, offset, raw, 0))
        else:
            if is_bytes and not body.isascii():
                raise _error_at("bytes can only contain ASCII literal characters", tok)
            if not raw and "\\" in body:
                body = _decode(tok, body, offset, is_bytes)
            parts.append(body)
    if True in kinds:
        return set_span(ast.Constant("".join(parts).encode("latin-1")), first, last)
    if all(type(p) is str for p in parts):
        return set_span(ast.Constant("".join(parts)), first, last)
    values: list = []
    pending: list = []
    for p in parts:
        if type(p) is str:
            pending.append(p)
        else:
            if pending:
                text = "".join(pending)
                if text:
                    values.append(set_span(ast.Constant(text), first, last))
                pending = []
            values.append(p)
    text = "".join(pending)
    if text:
        values.append(set_span(ast.Constant(text), first, last))
    return set_span(ast.JoinedStr(values), first, last)


def _decode(tok: Token, body: str, offset: int, is_bytes: bool) -> str:
    try:
        return _unescape(body, is_bytes)
    except _LiteralError as exc:
        line, col = _pos_in_token(tok, offset + exc.offset)
        raise _error(exc.message, line, col, line, col + 2) from None


def _fstring(tok: Token, body: str, offset: int, raw: bool, depth: int,
             stop_at_brace: bool = False) -> list:
    """Split an f-string body into str pieces and FormattedValue nodes.

    `offset` is the index of `body` in the token text (for error and node positions).
    With stop_at_brace (a format spec), the scan stops before an unmatched '}'.
    """
    parts: list = []
    lit: list = []      # the literal text since `lit_start`, escapes still undecoded
    lit_start = 0
    i, n = 0, len(body)

    def fail(message: str, index: int) -> ScriptSyntaxError:
        line, col = _pos_in_token(tok, offset + index)
        return _error(message, line, col, line, col + 1)

    def flush() -> None:
        if lit:
            text = "".join(lit)
            if not raw and "\\" in text:
                text = _decode(tok, text, offset + lit_start, False)
            parts.append(text)
            lit.clear()

    while i < n:
        if not lit:
            lit_start = i
        ch = body[i]
        if ch == "\\" and not raw:
            if body.startswith("N{", i + 1):
                j = body.find("}", i)
                j = n - 1 if j < 0 else j
                lit.append(body[i:j + 1])
                i = j + 1
            else:
                lit.append(body[i:i + 2])
                i += 2
            continue
        if ch == "{":
            if body.startswith("{", i + 1) and not stop_at_brace:
                lit.append("{")
                i += 2
                continue
            flush()
            node, i = _fstring_field(tok, body, offset, i, raw, depth)
            if type(node) is _SelfDoc:
                parts.append(node.text)
                node = node.node
            parts.append(node)
            continue
        if ch == "}":
            if stop_at_brace:
                break
            if body.startswith("}", i + 1):
                lit.append("}")
                i += 2
                continue
            raise fail("f-string: single '}' is not allowed", i)
        lit.append(ch)
        i += 1
    flush()
    if stop_at_brace:
        parts.append(i)  # where the spec ended
    return parts


def _fstring_field(tok: Token, body: str, offset: int, start: int, raw: bool,
                   depth: int) -> tuple[ast.FormattedValue, int]:
    """Parse the replacement field whose '{' is at body[start]; return (node, next index)."""
    n = len(body)

    def fail(message: str, index: int) -> ScriptSyntaxError:
        line, col = _pos_in_token(tok, offset + min(index, n))
        return _error(message, line, col, line, col + 1)

    if depth >= 2:
        raise fail("f-string: expressions nested too deeply", start)
    k = start + 1
    nesting = 0
    quote = ""
    selfdoc = False
    while k < n:
        ch = body[k]
        if quote:
            if body.startswith(quote, k):
                k += len(quote)
                quote = ""
                continue
            if ch == "\\":
                raise fail("f-string expression part cannot include a backslash", k)
            k += 1
            continue
        if ch in "'\"":
            quote = ch * 3 if body.startswith(ch * 3, k) else ch
            k += len(quote)
            continue
        if ch == "\\":
            raise fail("f-string expression part cannot include a backslash", k)
        if ch == "#":
            raise fail("f-string expression part cannot include '#'", k)
        if ch in "([{":
            nesting += 1
        elif ch in ")]}":
            if nesting == 0:
                if ch == "}":
                    break
                raise fail("f-string: unmatched '%s'" % ch, k)
            nesting -= 1
        elif nesting == 0:
            nxt = body[k + 1] if k + 1 < n else ""
            if ch == "!" and nxt != "=":
                break
            if ch == ":":
                break
            if ch == "=" and nxt != "=" and body[k - 1] not in "=!<>":
                selfdoc = True
                break
        k += 1
    if k >= n:
        raise fail("f-string: expecting '}'", k)
    expr_text = body[start + 1:k]
    if not expr_text.strip():
        raise fail("f-string: empty expression not allowed", k)
    line, col = _pos_in_token(tok, offset + start + 1)
    value = _parse_fexpr(expr_text, line, col)
    conversion = None
    spec = None
    if selfdoc:
        k += 1
        while k < n and body[k] in " \t\n":
            k += 1
        doc_text = body[start + 1:k]
    if k < n and body[k] == "!":
        conv = body[k + 1] if k + 1 < n else ""
        if conv not in ("r", "s", "a"):
            raise fail("f-string: invalid conversion character: expected 's', 'r', or 'a'", k + 1)
        conversion = conv
        k += 2
    if k < n and body[k] == ":":
        spec_parts = _fstring(tok, body[k + 1:], offset + k + 1, raw, depth + 1,
                              stop_at_brace=True)
        k = k + 1 + spec_parts.pop()
        values = []
        for p in spec_parts:
            if type(p) is str:
                if p:
                    values.append(set_span(ast.Constant(p), tok, tok))
            else:
                values.append(p)
        spec = set_span(ast.JoinedStr(values), tok, tok)
    if k >= n or body[k] != "}":
        raise fail("f-string: expecting '}'", k)
    if selfdoc and conversion is None and spec is None:
        conversion = "r"
    node = ast.FormattedValue(value, conversion, spec)
    l1, c1 = _pos_in_token(tok, offset + start)
    l2, c2 = _pos_in_token(tok, offset + k)
    node.line, node.column, node.end_line, node.end_column = l1, c1, l2, c2 + 1
    if selfdoc:
        return _SelfDoc(doc_text, node), k + 1  # type: ignore[return-value]
    return node, k + 1


class _SelfDoc:
    """f'{x=}' yields the text 'x=' and then the value; expanded by the caller."""

    __slots__ = ("text", "node")

    def __init__(self, text: str, node: ast.FormattedValue) -> None:
        self.text = text
        self.node = node


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _parse_fexpr(text: str, line: int, column: int) -> Any:
    from .parser import fast_parser, parse_with_state  # the field is parsed as an expression

    if _PLAIN_NAME.match(text) and text not in fast_parser()[1].keywords.get("NAME", ()):
        # `{i}`, the most common field: the Name a parse would give, without one
        node = new_node(ast.Name)
        node.id = text
        node.line = node.end_line = line
        node.column = column
        node.end_column = column + len(text)
        return node
    try:
        node = parse_with_state(text, "eval_input", ParseState(expr_mode=True))
    except ScriptSyntaxError as exc:
        if exc.line is not None:
            if exc.line == 1:
                exc.column = (exc.column or 1) + column - 1
                if exc.end_line == 1 and exc.end_column is not None:
                    exc.end_column += column - 1
            exc.line += line - 1
            if exc.end_line is not None:
                exc.end_line += line - 1
        if not exc.message.startswith("f-string"):
            exc.message = "f-string: " + exc.message
            exc.args = (exc.message,)
        raise
    _shift(node, line, column)
    return node
