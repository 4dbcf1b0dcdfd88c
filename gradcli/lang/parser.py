"""GradScript front end: source text -> Lark LALR(1) parser -> ``gradcli.lang.ast`` nodes.

Public API
----------
``parse(source, filename="<string>") -> ast.Module``
    Parse a whole script.  Raises :class:`ScriptSyntaxError` (``type_name`` "SyntaxError",
    "IndentationError" or "TabError") with a location inside the source for every bad
    input; no Lark exception ever escapes.
``parse_expression(source, filename="<string>") -> ast.Expr``
    Parse one expression (newlines are ignored, as inside brackets); for the calculator.

The Lark parser is built once per process, on first use, from ``grammar/gradscript.lark``
and cached on disk (``$XDG_CACHE_HOME/gradcli/``, else a temporary folder), so later
start-ups load the parse table instead of rebuilding it.  The AST is built by an in-parser
transformer (no parse tree is made) and spans come straight from the tokens.
"""

from __future__ import annotations

import contextvars
import gc
import hashlib
import marshal
import os
import re
import sys
import tempfile
import unicodedata
from typing import TYPE_CHECKING, Any, Iterator, Optional

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter
from lark.lexer import BasicLexer

from . import ast
from .errors import GradScriptError, ScriptSyntaxError
from . import lalr, tokenizer
from .lalr import Driver, table_data
from .tokenizer import (CLOSERS, OPENERS, ParseState, ScanTables, error, error_at, scan_data,
                        tokenize, tokenizer_error)

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["parse", "parse_expression", "check_statement_context", "grammar_path", "ScriptSyntaxError"]

# Python keywords that GradScript does not have (the grammar reserves them, see `reserved`).
_UNSUPPORTED_KEYWORDS = {
    "try": "exception handling (try/except/finally)",
    "except": "exception handling (try/except/finally)",
    "finally": "exception handling (try/except/finally)",
    "raise": "raising exceptions",
    "yield": "generators (yield)",
    "async": "async code",
    "await": "async code",
}

# ============================================================================ grammar & Lark


def _grammar_file() -> str:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../gradcli
    for candidate in (os.path.join(here, "grammar", "gradscript.lark"),
                      os.path.join(os.path.dirname(here), "grammar", "gradscript.lark")):
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError("gradscript.lark not found next to the gradcli package")


def grammar_path() -> Path:
    """Where the grammar is: next to the package in a wheel, else in the repository."""
    from pathlib import Path

    return Path(_grammar_file())


def _cache_file(grammar_text: str) -> Optional[str]:
    """A writable cache file path keyed by the grammar, Lark and Python versions, or None."""
    import lark

    key = hashlib.sha256(grammar_text.encode("utf-8")).hexdigest()[:20]
    name = "gradscript-%s-lark%s-py%d%d.cache" % (key, lark.__version__, *sys.version_info[:2])
    folders = []
    if os.environ.get("XDG_CACHE_HOME"):
        folders.append(os.path.join(os.environ["XDG_CACHE_HOME"], "gradcli"))
    home = os.path.expanduser("~")
    if home != "~":
        folders.append(os.path.join(home, ".cache", "gradcli"))
    try:
        uid = os.getuid() if hasattr(os, "getuid") else "user"
        folders.append(os.path.join(tempfile.gettempdir(), "gradcli-%s" % uid))
    except OSError:
        pass
    for folder in folders:
        path = os.path.join(folder, name)
        try:
            if os.path.isfile(path) and os.access(path, os.R_OK | os.W_OK):
                return path
            os.makedirs(folder, exist_ok=True)
            if os.access(folder, os.W_OK | os.X_OK):
                return path
        except OSError:
            continue
    return None


_LARK: Optional[Lark] = None


def _lark() -> Lark:
    global _LARK
    if _LARK is None:
        with open(_grammar_file(), encoding="utf-8") as f:
            text = f.read()
        options = dict(parser="lalr", lexer=GradLexer, start=["module", "eval_input"],
                       postlex=GradIndenter(), transformer=_BUILDER,
                       maybe_placeholders=False, propagate_positions=False)
        # Lark checks the cached table against the grammar and rebuilds (quietly) when the
        # file is missing, stale or unreadable; it also ignores a failure to write it.
        _LARK = Lark(text, cache=_cache_file(text) or False, **options)
    return _LARK


_DRIVER: Optional[Driver] = None
_TABLES: Optional[ScanTables] = None


def _fast() -> tuple[Driver, ScanTables]:
    """The LALR driver and the scanner tables, on first use.

    Both come from Lark's parser, as plain data that is cached next to Lark's own cache: a
    start-up that finds it loads neither Lark's parser nor its table (Lark is loaded when a
    syntax error needs it).  The cache is keyed by the grammar and by the code that makes
    and reads the data (lalr.py, tokenizer.py), so an edit there rebuilds it.
    """
    global _DRIVER, _TABLES
    if _DRIVER is None:
        with open(_grammar_file(), encoding="utf-8") as f:
            text = f.read()
        path = _tables_file(text)
        data = _read_tables(path) if path else None
        if data is None:
            lark = _lark()
            data = _plain({"scan": scan_data(lark.parser.lexer.lexer),
                           "lalr": table_data(lark.parser.parser.parser, _BUILDER)})
            if path:
                _write_tables(path, data)
        _TABLES = ScanTables(data["scan"])
        _DRIVER = Driver(data["lalr"], _BUILDER)
    return _DRIVER, _TABLES  # type: ignore[return-value]


def _plain(obj: Any) -> Any:
    """`obj` with Lark's str subclasses (Token names of a freshly built grammar) made str,
    so that marshal can write it."""
    t = type(obj)
    if t is dict:
        return {_plain(k): _plain(v) for k, v in obj.items()}
    if t is list or t is tuple:
        return t(_plain(x) for x in obj)
    if isinstance(obj, str):
        return str(obj)
    return obj


def _tables_file(grammar_text: str) -> Optional[str]:
    lark_cache = _cache_file(grammar_text)
    if lark_cache is None:
        return None
    digest = hashlib.sha256(grammar_text.encode("utf-8"))
    for module in (lalr, tokenizer):
        try:
            with open(module.__file__, "rb") as f:  # type: ignore[arg-type]
                digest.update(f.read())
        except (OSError, TypeError):
            return None
    return "%s-tables-%s.marshal" % (lark_cache[:-len(".cache")], digest.hexdigest()[:16])


def _read_tables(path: str) -> Optional[dict]:
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
        if type(data) is dict and set(data) == {"scan", "lalr"}:
            return data
    except (OSError, EOFError, ValueError, TypeError):
        pass
    return None


def _write_tables(path: str, data: dict) -> None:
    """Write atomically (another process may be reading it); a failure is ignored."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(marshal.dumps(data))
        os.replace(tmp, path)
    except (OSError, ValueError):  # ValueError: marshal met an object it cannot write
        try:
            os.remove(tmp)
        except OSError:
            pass


# ============================================================================ Lark's lexer

# parse() runs gradcli.lang.tokenizer and gradcli.lang.lalr itself; these two classes make
# Lark's own pipeline (Lark.lex, Lark.parse) read the same tokens.

_STATE: contextvars.ContextVar[ParseState] = contextvars.ContextVar("gradscript_parse_state")


class GradLexer(BasicLexer):
    """Lark's lexer interface over gradcli.lang.tokenize (which makes the _INDENT/_DEDENT
    tokens too, for the parse state set in _STATE)."""

    __future_interface__ = 2  # lex(lexer_state, parser_state), like Lark's own lexers

    def lex(self, state: Any, parser_state: Any) -> Iterator[Token]:
        text = state.text
        if type(text) is not str:  # a lark.utils.TextSlice (Lark >= 1.3)
            text = text.text
        return tokenize(text, _STATE.get(None) or ParseState(), _fast()[1])


class GradIndenter(Indenter):
    """Python's INDENT/DEDENT post-lexer: GradLexer's tokens already have them."""

    NL_type = "_NEWLINE"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        return stream


_OPENERS = OPENERS
_CLOSERS = CLOSERS
_error = error
_error_at = error_at
_tokenizer_error = tokenizer_error
_ParseState = ParseState


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


def _pos_in_token(tok: Any, index: int) -> tuple[int, int]:
    """(line, column) of character `index` of a token's text."""
    text = tok.value
    nl = text.count("\n", 0, index)
    if not nl:
        return tok.line, tok.column + index
    return tok.line + nl, index - text.rfind("\n", 0, index)


def _number(tok: Token) -> Any:
    s = tok.value
    try:
        if s[-1] in "jJ":
            raise _error_at("imaginary numbers are not supported in GradScript", tok,
                            hint="use real numbers (complex tensors are not supported)")
        if len(s) > 1 and s[0] == "0" and s[1] in "xXoObB":
            return int(s, 0)
        if "." in s or "e" in s or "E" in s:
            return float(s)
        return int(s, 0)
    except ValueError as exc:
        if s[0] == "0" and s.strip("0_"):
            raise _error_at("leading zeros in decimal integer literals are not permitted; "
                            "use an 0o prefix for octal integers", tok) from None
        raise _error_at(str(exc), tok) from None


# ============================================================================ spans


_new_node = object.__new__  # a node without its __init__: the builder sets every slot


def _span(node: Any, first: Any, last: Any) -> Any:
    node.line = first.line
    node.column = first.column
    node.end_line = last.end_line
    node.end_column = last.end_column
    return node


def _shift(node: ast.Node, line: int, column: int) -> None:
    """Move the spans of a sub-parse that started at (1, 1) to start at (line, column)."""
    for n in ast.walk(node):
        if n.line == 1:
            n.column += column - 1
        if n.end_line == 1:
            n.end_column += column - 1
        n.line += line - 1
        n.end_line += line - 1


# ============================================================================ targets

_EXPR_NAMES = {
    ast.Attribute: "attribute", ast.Subscript: "subscript", ast.Starred: "starred",
    ast.Name: "name", ast.List: "list", ast.Tuple: "tuple", ast.Lambda: "lambda",
    ast.Call: "function call", ast.BoolOp: "expression", ast.BinOp: "expression",
    ast.UnaryOp: "expression", ast.GeneratorExp: "generator expression",
    ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension", ast.Dict: "dict literal", ast.Set: "set display",
    ast.JoinedStr: "f-string expression", ast.FormattedValue: "f-string expression",
    ast.Compare: "comparison", ast.IfExp: "conditional expression", ast.Slice: "slice",
}


def _expr_name(node: Any) -> str:
    if type(node) is ast.Constant:
        v = node.value
        if v is None or v is True or v is False:
            return str(v)
        if v is Ellipsis:
            return "ellipsis"
        return "literal"
    return _EXPR_NAMES.get(type(node), "expression")


_SIMPLE_TARGETS = (ast.Name, ast.Attribute, ast.Subscript)


def _check_target(node: Any, verb: str = "assign to", hint_eq: bool = False,
                  nested: bool = False) -> None:
    """Raise the CPython error for a node that cannot be assigned to (or deleted)."""
    t = type(node)
    if t in _SIMPLE_TARGETS:
        return
    if t is ast.Tuple or t is ast.List:
        starred = 0
        for elt in node.elts:
            if type(elt) is ast.Starred:
                if verb == "delete":
                    raise _error_at("cannot delete starred", elt)
                starred += 1
                if starred > 1:
                    raise _error_at("multiple starred expressions in assignment", node)
                _check_target(elt.value, verb, nested=True)
            else:
                _check_target(elt, verb, nested=True)
        return
    if t is ast.Starred:
        if verb == "delete":
            raise _error_at("cannot delete starred", node)
        raise _error_at("starred assignment target must be in a list or tuple", node)
    name = _expr_name(node)
    message = "cannot %s %s" % (verb, name)
    hint = None
    if hint_eq and not nested and t in (ast.Constant, ast.Call, ast.BinOp, ast.UnaryOp) \
            and name not in ("True", "False", "None"):
        message += " here. Maybe you meant '==' instead of '='?"
    elif verb == "assign to":
        hint = "only names, attributes (x.a), items (x[i]) and tuples of them can be assigned to"
    raise _error_at(message, node, hint=hint)


def _check_not_starred(node: Any) -> None:
    if type(node) is ast.Starred:
        raise _error_at("can't use starred expression here", node)


# ============================================================================ operators

_CMP_PREC = 4
_PREC = {
    "or": 1, "and": 2,
    "<": 4, ">": 4, "==": 4, ">=": 4, "<=": 4, "!=": 4, "in": 4, "not in": 4, "is": 4,
    "is not": 4,
    "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8, "+": 9, "-": 9,
    "*": 10, "/": 10, "//": 10, "%": 10, "@": 10, "**": 12,
}
_UNARY_PREC = 11
_NOT_PREC = 3


def _apply_binary(op: str, prec: int, out: list, open_nodes: set) -> None:
    right = out.pop()
    left = out[-1]
    if prec == _CMP_PREC:
        if id(left) in open_nodes and type(left) is ast.Compare:
            left.ops.append(op)
            left.comparators.append(right)
            left.end_line = right.end_line
            left.end_column = right.end_column
            return
        node = ast.Compare(left, [op], [right])
    elif prec <= 2:
        if id(left) in open_nodes and type(left) is ast.BoolOp and left.op == op:
            left.values.append(right)
            left.end_line = right.end_line
            left.end_column = right.end_column
            return
        node = ast.BoolOp(op, [left, right])
    else:
        node = ast.BinOp(op, left, right)
        out[-1] = _span(node, left, right)
        return
    open_nodes.add(id(node))
    out[-1] = _span(node, left, right)


_BINARY_OPS = frozenset(("+", "-", "*", "/", "@", "//", "%", "**", "|", "&", "^", "<<", ">>"))


def _operators(c: list) -> Any:
    """Build the tree of a flat operand/operator sequence (shunting-yard, no recursion)."""
    n = len(c)
    if n == 3 and type(c[1]) is Token and type(c[0]) is not Token:
        # `a OP b`: the common case
        op_tok = c[1]
        op = op_tok.value
        left, right = c[0], c[2]
        if op in _BINARY_OPS:
            node = _new_node(ast.BinOp)
            node.op, node.left, node.right = op, left, right
            node.line, node.column = left.line, left.column
            node.end_line, node.end_column = right.end_line, right.end_column
            return node
        if op in ("and", "or"):
            return _span(ast.BoolOp(op, [left, right]), left, right)
        return _span(ast.Compare(left, [op], [right]), left, right)
    ops: list = []     # (prec, op, token or None for binary)
    out: list = []
    open_nodes: set = set()
    i = 0
    expect_operand = True
    while i < n:
        item = c[i]
        if expect_operand:
            if type(item) is Token:
                if item.type == "NOT":
                    ops.append((_NOT_PREC, "not", item))
                else:
                    ops.append((_UNARY_PREC, item.value, item))
            else:
                out.append(item)
                expect_operand = False
            i += 1
            continue
        ttype = item.type
        if ttype == "NOT":          # NOT IN
            op = "not in"
            i += 2
        elif ttype == "IS" and i + 1 < n and type(c[i + 1]) is Token and c[i + 1].type == "NOT":
            op = "is not"
            i += 2
        else:
            op = item.value
            i += 1
        prec = _PREC[op]
        right_assoc = prec == 12
        while ops:
            top = ops[-1]
            if top[0] > prec or (top[0] == prec and not right_assoc):
                ops.pop()
                if top[2] is None:
                    _apply_binary(top[1], top[0], out, open_nodes)
                else:
                    operand = out[-1]
                    out[-1] = _span(ast.UnaryOp(top[1], operand), top[2], operand)
            else:
                break
        ops.append((prec, op, None))
        expect_operand = True
    while ops:
        top = ops.pop()
        if top[2] is None:
            _apply_binary(top[1], top[0], out, open_nodes)
        else:
            operand = out[-1]
            out[-1] = _span(ast.UnaryOp(top[1], operand), top[2], operand)
    return out[0]


# ============================================================================ transformer


class _Params:
    """Parameters of a def or lambda while they are being parsed."""

    __slots__ = ("params", "defaults", "vararg", "kwarg", "kwonly", "kw_defaults", "annotations")

    def __init__(self) -> None:
        self.params: list[str] = []
        self.defaults: list = []
        self.vararg: Optional[str] = None
        self.kwarg: Optional[str] = None
        self.kwonly: list[str] = []
        self.kw_defaults: list = []
        self.annotations: dict = {}


class _Args:
    __slots__ = ("args", "keywords")

    def __init__(self, args: list, keywords: list) -> None:
        self.args = args
        self.keywords = keywords


def _ident(tok: Token) -> str:
    value = tok.value
    return value if value.isascii() else unicodedata.normalize("NFKC", value)


def _flatten(items: list) -> list:
    out = []
    for item in items:
        if type(item) is list:
            out.extend(item)
        else:
            out.append(item)
    return out


def _comprehensions(c: list) -> list:
    """[FOR, target, iter, (FOR, target, iter | IF, cond)*] -> [Comprehension]."""
    gens = []
    i, n = 0, len(c)
    while i < n:
        kw = c[i]
        if kw.type == "FOR":
            target, it = c[i + 1], c[i + 2]
            _check_target(target)
            gens.append(_span(ast.Comprehension(target, it, []), kw, it))
            i += 3
        else:
            cond = c[i + 1]
            gen = gens[-1]
            gen.ifs.append(cond)
            gen.end_line, gen.end_column = cond.end_line, cond.end_column
            i += 2
    return gens


class _Builder:
    """In-parser callbacks: one method per grammar rule or alias, children in, node out."""

    # ---------------------------------------------------------------- module & statements

    def module(self, c: list) -> ast.Module:
        return ast.Module(_flatten(c))

    def eval_input(self, c: list) -> Any:
        _check_not_starred(c[0])
        return c[0]

    def simple_stmt(self, c: list) -> list:
        return c

    def suite(self, c: list) -> list:
        if len(c) == 1 and type(c[0]) is list:
            return c[0]
        return _flatten(c)

    def expr_stmt(self, c: list) -> ast.ExprStmt:
        value = c[0]
        _check_not_starred(value)
        return _span(ast.ExprStmt(value), value, value)

    def assign(self, c: list) -> ast.Assign:
        value = c[-1]
        targets = c[:-1]
        single = len(targets) == 1
        for target in targets:
            _check_target(target, hint_eq=single)
        _check_not_starred(value)
        return _span(ast.Assign(targets, value), targets[0], value)

    def augassign(self, c: list) -> ast.AugAssign:
        target, op, value = c
        if type(target) not in _SIMPLE_TARGETS:
            raise _error_at("'%s' is an illegal expression for augmented assignment"
                            % _expr_name(target), target,
                            hint="only a name, an attribute or an item can be updated in place")
        return _span(ast.AugAssign(target, op.value[:-1], value), target, value)

    def annassign(self, c: list) -> ast.AnnAssign:
        target, annotation = c[0], c[1]
        value = c[2] if len(c) > 2 else None
        t = type(target)
        if t is ast.Tuple or t is ast.List:
            raise _error_at("only single target (not %s) can be annotated"
                            % ("tuple" if t is ast.Tuple else "list"), target)
        if t not in _SIMPLE_TARGETS:
            raise _error_at("illegal target for annotation", target)
        if value is not None:
            _check_not_starred(value)
        return _span(ast.AnnAssign(target, annotation, value), target,
                     value if value is not None else annotation)

    def pass_stmt(self, c: list) -> ast.Pass:
        return _span(ast.Pass(), c[0], c[0])

    def break_stmt(self, c: list) -> ast.Break:
        return _span(ast.Break(), c[0], c[0])

    def continue_stmt(self, c: list) -> ast.Continue:
        return _span(ast.Continue(), c[0], c[0])

    def return_stmt(self, c: list) -> ast.Return:
        if len(c) == 1:
            return _span(ast.Return(None), c[0], c[0])
        _check_not_starred(c[1])
        return _span(ast.Return(c[1]), c[0], c[1])

    def global_stmt(self, c: list) -> ast.Global:
        return _span(ast.Global([_ident(t) for t in c[1:]]), c[0], c[-1])

    def nonlocal_stmt(self, c: list) -> ast.Nonlocal:
        return _span(ast.Nonlocal([_ident(t) for t in c[1:]]), c[0], c[-1])

    def assert_stmt(self, c: list) -> ast.Assert:
        msg = c[2] if len(c) > 2 else None
        return _span(ast.Assert(c[1], msg), c[0], c[-1])

    def del_stmt(self, c: list) -> ast.Delete:
        target = c[1]
        # an unparenthesised `del a, b` deletes each; `del (a, b)` keeps the tuple
        if type(target) is ast.Tuple and target.elts and \
                (target.line, target.column) == (target.elts[0].line, target.elts[0].column):
            targets = target.elts
        else:
            targets = [target]
        for t in targets:
            _check_target(t, "delete")
        return _span(ast.Delete(targets), c[0], c[1])

    def import_stmt(self, c: list) -> ast.Import:
        return _span(ast.Import(c[1:]), c[0], c[-1])

    def dotted_name(self, c: list) -> list:
        return c

    def dotted_as_name(self, c: list) -> ast.Alias:
        names = c[0]
        dotted = ".".join(_ident(t) for t in names)
        if len(c) > 1:
            return _span(ast.Alias(dotted, _ident(c[1])), names[0], c[1])
        return _span(ast.Alias(dotted, None), names[0], names[-1])

    def import_as_names(self, c: list) -> list:
        return c

    def import_as_name(self, c: list) -> ast.Alias:
        asname = _ident(c[1]) if len(c) > 1 else None
        return _span(ast.Alias(_ident(c[0]), asname), c[0], c[-1])

    def from_stmt(self, c: list) -> ast.ImportFrom:
        names_tok = c[1]
        module = ".".join(_ident(t) for t in names_tok)
        what = c[2]
        if type(what) is Token:  # STAR
            names = [_span(ast.Alias("*", None), what, what)]
            end = what
        else:
            names = [n for n in what if type(n) is ast.Alias]
            end = c[3] if len(c) > 3 else names[-1]
            if type(what[-1]) is Token and len(c) == 3:
                raise _error_at("trailing comma not allowed without surrounding parentheses",
                                what[-1], hint="remove the ',' or put the names in parentheses")
        return _span(ast.ImportFrom(module, names), c[0], end)

    # ---------------------------------------------------------------- compound statements

    def if_stmt(self, c: list) -> ast.If:
        node = ast.If(c[1], c[2], [])
        _span(node, c[0], c[2][-1])
        last = node
        for item in c[3:]:
            if type(item) is list:      # else
                last.orelse = item
            else:                       # elif
                last.orelse = [item]
                last = item
        end = last.orelse[-1] if last.orelse else last.body[-1]
        current = node
        while True:  # every If in the chain ends where the whole statement ends
            current.end_line, current.end_column = end.end_line, end.end_column
            if len(current.orelse) == 1 and type(current.orelse[0]) is ast.If and \
                    current.orelse[0] is not end:
                current = current.orelse[0]
            else:
                break
        return node

    def elif_clause(self, c: list) -> ast.If:
        return _span(ast.If(c[1], c[2], []), c[0], c[2][-1])

    def else_clause(self, c: list) -> list:
        return c[0]

    def while_stmt(self, c: list) -> ast.While:
        orelse = c[3] if len(c) > 3 else []
        return _span(ast.While(c[1], c[2], orelse), c[0], (orelse or c[2])[-1])

    def for_stmt(self, c: list) -> ast.For:
        target = c[1]
        _check_target(target)
        orelse = c[4] if len(c) > 4 else []
        return _span(ast.For(target, c[2], c[3], orelse), c[0], (orelse or c[3])[-1])

    def with_stmt(self, c: list) -> ast.With:
        body = c[-1]
        return _span(ast.With(c[1:-1], body), c[0], body[-1])

    def with_item(self, c: list) -> ast.WithItem:
        if len(c) == 1:
            return _span(ast.WithItem(c[0], None), c[0], c[0])
        _check_target(c[1])
        return _span(ast.WithItem(c[0], c[1]), c[0], c[1])

    def funcdef(self, c: list) -> ast.FunctionDef:
        i = 2
        params = _Params()
        if type(c[i]) is _Params:
            params = c[i]
            i += 1
        returns = None
        if type(c[i]) is Token:  # RARROW
            returns = c[i + 1]
            i += 2
        body = c[i]
        node = ast.FunctionDef(_ident(c[1]), params.params, params.defaults, params.vararg,
                               params.kwarg, body, params.kwonly, params.kw_defaults, [],
                               returns, params.annotations)
        return _span(node, c[0], body[-1])

    def parameters(self, c: list) -> _Params:
        p = _Params()
        seen: set = set()
        after_star = False
        bare_star: Optional[Token] = None
        for kind, tok, annotation, default in c:
            if p.kwarg is not None:
                raise _error_at("arguments cannot follow var-keyword argument", tok)
            if kind == "*":
                if after_star:
                    raise _error_at("* argument may appear only once", tok)
                after_star = True
                if tok.type == "STAR":
                    bare_star = tok
                    continue
            name = _ident(tok)
            if name in seen:
                raise _error_at("duplicate argument '%s' in function definition" % name, tok)
            seen.add(name)
            if annotation is not None:
                p.annotations[name] = annotation
            if kind == "*":
                p.vararg = name
            elif kind == "**":
                if bare_star is not None and not p.kwonly:
                    raise _error_at("named arguments must follow bare *", bare_star)
                p.kwarg = name
            elif after_star:
                p.kwonly.append(name)
                p.kw_defaults.append(default)
            else:
                if default is None and p.defaults:
                    raise _error_at("non-default argument follows default argument", tok)
                p.params.append(name)
                if default is not None:
                    p.defaults.append(default)
        if bare_star is not None and not p.kwonly:
            raise _error_at("named arguments must follow bare *", bare_star)
        return p

    lambda_params = parameters

    def param(self, c: list) -> tuple:
        return ("", c[0], None, None)

    def param_default(self, c: list) -> tuple:
        return ("", c[0], None, c[1])

    def param_ann(self, c: list) -> tuple:
        return ("", c[0], c[1], None)

    def param_ann_default(self, c: list) -> tuple:
        return ("", c[0], c[1], c[2])

    def star_param(self, c: list) -> tuple:
        if len(c) == 1:
            return ("*", c[0], None, None)
        return ("*", c[1], c[2] if len(c) > 2 else None, None)

    def kw_param(self, c: list) -> tuple:
        return ("**", c[1], c[2] if len(c) > 2 else None, None)

    def classdef(self, c: list) -> ast.ClassDef:
        body = c[-1]
        bases, keywords = ([], [])
        if len(c) > 3:
            bases, keywords = c[2].args, c[2].keywords
        return _span(ast.ClassDef(_ident(c[1]), bases, body, keywords, []), c[0], body[-1])

    def decorated(self, c: list) -> Any:
        node = c[-1]
        node.decorators = [d[1] for d in c[:-1]]  # the node keeps its own span, as in CPython
        return node

    def decorator(self, c: list) -> tuple:
        return (c[0], c[1])

    # ---------------------------------------------------------------- expressions

    def tuple(self, c: list) -> ast.Tuple:
        return _span(ast.Tuple(c), c[0], c[-1])

    def star_expr(self, c: list) -> ast.Starred:
        return _span(ast.Starred(c[1]), c[0], c[1])

    def ifexp(self, c: list) -> ast.IfExp:
        body, test, orelse = c
        return _span(ast.IfExp(test, body, orelse), body, orelse)

    def lambdef(self, c: list) -> ast.Lambda:
        body = c[-1]
        p = c[1] if len(c) > 2 else _Params()
        node = ast.Lambda(p.params, p.defaults, p.vararg, p.kwarg, body, p.kwonly, p.kw_defaults)
        return _span(node, c[0], body)

    def or_test(self, c: list) -> Any:
        return _operators(c)

    test = expr = or_test

    def name(self, c: list) -> ast.Name:
        # the most common node: made without __init__ (every slot is set here)
        t = c[0]
        node = _new_node(ast.Name)
        value = t.value
        node.id = value if value.isascii() else unicodedata.normalize("NFKC", value)
        node.line = t.line
        node.column = t.column
        node.end_line = t.end_line
        node.end_column = t.end_column
        return node

    def number(self, c: list) -> ast.Constant:
        t = c[0]
        node = _new_node(ast.Constant)
        node.value = _number(t)
        node.line = t.line
        node.column = t.column
        node.end_line = t.end_line
        node.end_column = t.end_column
        return node

    def ellipsis(self, c: list) -> ast.Constant:
        return _span(ast.Constant(Ellipsis), c[0], c[0])

    def const_none(self, c: list) -> ast.Constant:
        return _span(ast.Constant(None), c[0], c[0])

    def const_true(self, c: list) -> ast.Constant:
        return _span(ast.Constant(True), c[0], c[0])

    def const_false(self, c: list) -> ast.Constant:
        return _span(ast.Constant(False), c[0], c[0])

    def reserved(self, c: list) -> Any:
        raise _unsupported(c[0])

    def string(self, c: list) -> Any:
        return _strings(c)

    def tuple_display(self, c: list) -> ast.Tuple:
        return _span(ast.Tuple([]), c[0], c[-1])

    def paren(self, c: list) -> Any:
        inner = c[1]
        if type(inner) is ast.Starred:
            raise _error_at("cannot use starred expression here", inner)
        return _span(inner, c[0], c[2])

    def genexp(self, c: list) -> ast.GeneratorExp:
        _check_not_starred(c[1])
        return _span(ast.GeneratorExp(c[1], c[2]), c[0], c[-1])

    def list_display(self, c: list) -> ast.List:
        return _span(ast.List(c[1:-1]), c[0], c[-1])

    def listcomp(self, c: list) -> ast.ListComp:
        _check_not_starred(c[1])
        return _span(ast.ListComp(c[1], c[2]), c[0], c[-1])

    def dict_display(self, c: list) -> ast.Dict:
        keys, values = [], []
        i, n = 1, len(c) - 1
        while i < n:
            item = c[i]
            if type(item) is Token:  # ** mapping
                keys.append(None)
            else:
                keys.append(item)
            values.append(c[i + 1])
            i += 2
        return _span(ast.Dict(keys, values), c[0], c[-1])

    def dictcomp(self, c: list) -> ast.DictComp:
        return _span(ast.DictComp(c[1], c[2], c[3]), c[0], c[-1])

    def set_display(self, c: list) -> ast.Set:
        return _span(ast.Set(c[1:-1]), c[0], c[-1])

    def setcomp(self, c: list) -> ast.SetComp:
        _check_not_starred(c[1])
        return _span(ast.SetComp(c[1], c[2]), c[0], c[-1])

    def getattr(self, c: list) -> ast.Attribute:
        value, attr = c
        node = _new_node(ast.Attribute)
        node.value = value
        name = attr.value
        node.attr = name if name.isascii() else unicodedata.normalize("NFKC", name)
        node.line = value.line
        node.column = value.column
        node.end_line = attr.end_line
        node.end_column = attr.end_column
        return node

    def call(self, c: list) -> ast.Call:
        func = c[0]
        node = _new_node(ast.Call)
        node.func = func
        if len(c) == 2:
            node.args, node.keywords = [], []
            end = c[1]
        else:
            args = c[1]
            node.args, node.keywords = args.args, args.keywords
            end = c[2]
        node.line = func.line
        node.column = func.column
        node.end_line = end.end_line
        node.end_column = end.end_column
        return node

    def getitem(self, c: list) -> ast.Subscript:
        return _span(ast.Subscript(c[0], c[1]), c[0], c[2])

    def getitem_tuple(self, c: list) -> ast.Subscript:
        index = _span(ast.Tuple(c[1:-1]), c[1], c[-2])
        return _span(ast.Subscript(c[0], index), c[0], c[-1])

    def comp_for(self, c: list) -> list:
        return _comprehensions(c)

    def arguments(self, c: list) -> _Args:
        args: list = []
        keywords: list = []
        seen: set = set()
        dstar = False
        for item in c:
            t = type(item)
            if t is ast.Keyword:
                if item.arg is None:
                    dstar = True
                else:
                    if item.arg in seen:
                        raise _error_at("keyword argument repeated: %s" % item.arg, item)
                    seen.add(item.arg)
                keywords.append(item)
            elif t is ast.Starred:
                if dstar:
                    raise _error_at("iterable argument unpacking follows keyword argument "
                                    "unpacking", item)
                args.append(item)
            else:
                if dstar:
                    raise _error_at("positional argument follows keyword argument unpacking",
                                    item)
                if keywords:
                    raise _error_at("positional argument follows keyword argument", item,
                                    hint="put positional arguments before name=value ones")
                args.append(item)
        return _Args(args, keywords)

    def genexp_arg(self, c: list) -> _Args:
        _check_not_starred(c[0])
        gens = c[1]
        return _Args([_span(ast.GeneratorExp(c[0], gens), c[0], gens[-1])], [])

    def kwarg(self, c: list) -> ast.Keyword:
        return _span(ast.Keyword(_ident(c[0]), c[1]), c[0], c[1])

    def star_arg(self, c: list) -> ast.Starred:
        return _span(ast.Starred(c[1]), c[0], c[1])

    def dstar_arg(self, c: list) -> ast.Keyword:
        return _span(ast.Keyword(None, c[1]), c[0], c[1])

    def slice(self, c: list) -> ast.Slice:
        parts: list = [None, None, None]
        k = 0
        for item in c:
            if type(item) is Token:
                k += 1
            else:
                parts[k] = item
        return _span(ast.Slice(*parts), c[0], c[-1])


_BUILDER = _Builder()  # the one transformer: Lark's and the LALR driver's


# ============================================================================ strings


def _strings(toks: list) -> Any:
    """Adjacent string literals -> one Constant (str/bytes) or a JoinedStr (f-strings)."""
    first, last = toks[0], toks[-1]
    if len(toks) == 1:
        tok = first
        text = tok.value
        if text[0] in "'\"":  # no prefix: the usual case
            body = text[3:-3] if text[:3] in ("'''", '"""') and len(text) >= 6 else text[1:-1]
            if "\\" in body:
                body = _decode(tok, body, (len(text) - len(body)) // 2, False)
            return _span(ast.Constant(body), tok, tok)
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
        return _span(ast.Constant("".join(parts).encode("latin-1")), first, last)
    if all(type(p) is str for p in parts):
        return _span(ast.Constant("".join(parts)), first, last)
    values: list = []
    pending: list = []
    for p in parts:
        if type(p) is str:
            pending.append(p)
        else:
            if pending:
                text = "".join(pending)
                if text:
                    values.append(_span(ast.Constant(text), first, last))
                pending = []
            values.append(p)
    text = "".join(pending)
    if text:
        values.append(_span(ast.Constant(text), first, last))
    return _span(ast.JoinedStr(values), first, last)


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
                    values.append(_span(ast.Constant(p), tok, tok))
            else:
                values.append(p)
        spec = _span(ast.JoinedStr(values), tok, tok)
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


def _parse_fexpr(text: str, line: int, column: int) -> Any:
    try:
        node = _parse_with_state(text, "eval_input", _ParseState(expr_mode=True))
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


# ============================================================================ errors

_BLOCK_HEADERS = {
    "IF": "'if' statement", "ELIF": "'elif' statement", "ELSE": "'else' statement",
    "WHILE": "'while' statement", "FOR": "'for' statement", "WITH": "'with' statement",
    "DEF": "function definition", "CLASS": "class definition",
}
_EXPR_START = {"NAME", "NUMBER", "STRING", "LPAR", "LSQB", "LBRACE", "MINUS", "PLUS", "TILDE",
               "NOT", "LAMBDA", "NONE", "TRUE", "FALSE", "ELLIPSIS"}
_EXPR_END = {"NAME", "NUMBER", "STRING", "RPAR", "RSQB", "RBRACE", "NONE", "TRUE", "FALSE",
             "ELLIPSIS"}
_OPERATOR_TERMINALS = {"BINOP", "PLUS", "MINUS", "STAR", "POW", "AT", "IN", "NOT", "IS",
                       "AND", "OR"}
_STATEMENT_START = {"IF", "FOR", "WHILE", "WITH", "DEF", "CLASS", "RETURN", "PASS", "BREAK",
                    "CONTINUE", "IMPORT", "FROM", "ASSERT", "DEL", "GLOBAL", "NONLOCAL", "AT"}
# what may follow an operand besides an operator; left out of hints after an operand
_CONTINUATIONS = {"DOT", "LPAR", "LSQB", "FOR", "IF", "ELSE", "EQUAL", "AUGOP"}
_CLOSING = {"_NEWLINE", "$END", "RPAR", "RSQB", "RBRACE", "COMMA", "COLON", "SEMICOLON"}
_RESERVED_TYPES = {"TRY", "EXCEPT", "FINALLY", "RAISE", "YIELD", "ASYNC", "AWAIT"}
_WORD_ORDER = {"COLON": 0, "RPAR": 1, "RSQB": 2, "RBRACE": 3, "COMMA": 4, "EQUAL": 5}
_TERMINAL_WORDS = {
    "_NEWLINE": "the end of the line", "_INDENT": "an indented block",
    "$END": "the end of the input", "NAME": "a name", "NUMBER": "a number", "STRING": "a string",
    "AUGOP": "'+=' or a similar operator", "BINOP": "an operator", "SEMICOLON": "';'",
    "EQUAL": "'='",
}


def _describe_expected(expected: set) -> str:
    """What the parser could have taken, in words: "expected ':' or an operator"."""
    words: list[str] = []
    if "PASS" in expected:
        words.append("a statement")
        expected = expected - _STATEMENT_START - _EXPR_START
    if expected & {"NUMBER", "STRING"}:
        words.append("an expression")
    elif "NAME" in expected:
        words.append("a name")
    after_operand = "BINOP" in expected
    skip = _EXPR_START | _OPERATOR_TERMINALS | {"_NEWLINE", "SEMICOLON", "_DEDENT", "$END",
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


def _terminal_text(name: str) -> str:
    """A terminal's literal text, quoted ("':'"), or "" for a pattern."""
    text = _fast()[1].literals.get(name)
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
    for item in reversed(value_stack):
        if type(item) is Token and item.type in _BLOCK_HEADERS:
            return item
    return None


class _Replay:
    """The token stream again, up to the failing token (errors only): what came before it."""

    __slots__ = ("prev", "brackets", "error")

    def __init__(self, text: str, expr_mode: bool, stop: Optional[Token]) -> None:
        self.prev: Optional[Token] = None       # the token before `stop`
        self.brackets: list[Token] = []         # brackets open at `stop`
        self.error: Optional[ScriptSyntaxError] = None  # a tokenizer error anywhere
        state = _ParseState(expr_mode=expr_mode)
        ctx = _STATE.set(state)
        found = stop is None or stop.type == "$END"
        last = None
        open_before: list = []
        try:
            for tok in tokenize(text, state, _fast()[1]):
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
        except UnexpectedCharacters as exc:
            self.error = _from_unexpected_characters(exc, text)
        except Exception:  # pragma: no cover - keep the parser's own error
            pass
        finally:
            _STATE.reset(ctx)
        if stop is not None and stop.type == "$END":
            self.prev = last


def _from_unexpected_token(exc: UnexpectedToken, text: str, expr_mode: bool) -> ScriptSyntaxError:
    replay = _Replay(text, expr_mode, exc.token)
    try:
        error = _parser_error(exc, replay, expr_mode)
    except Exception:  # pragma: no cover - a bug in a special message must not hide the error
        tok = exc.token
        error = _error("invalid syntax", tok.line or 1, tok.column or 1)
    if error.type_name == "IndentationError" and error.message == "unexpected indent":
        return error
    return _tokenizer_first(error, replay, exc.token.line or error.line)


def _tokenizer_first(error: ScriptSyntaxError, replay: "_Replay",
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


def _parser_error(exc: UnexpectedToken, replay: "_Replay", expr_mode: bool) -> ScriptSyntaxError:
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
        what = _BLOCK_HEADERS[header.type] if header is not None else "':'"
        where = " on line %d" % header.line if header is not None else ""
        return _error("expected an indented block after %s%s" % (what, where),
                      tok.line, tok.column, tok.end_line, max(tok.end_column, tok.column + 1),
                      type_name="IndentationError",
                      hint="indent the body of the block (4 spaces is usual), or write "
                           "'pass' for an empty one")
    for word in (tok, prev):
        if word is not None and word.type in _RESERVED_TYPES:
            return _unsupported(word)
    if ttype == "BINOP" and tok.value == "/" and "NAME" in expected and \
            any(type(x) is Token and x.type in ("DEF", "LAMBDA") for x in stack[-40:]):
        return _error_at("positional-only parameters ('/') are not supported in GradScript", tok,
                         hint="remove the '/'; every parameter can be passed by position")
    if ttype in ("_NEWLINE", "$END") and "COLON" in expected:
        header = _header_keyword(stack)
        if header is not None:
            return _error("expected ':'", tok.line, tok.column, tok.line, tok.column + 1,
                          hint="end the %s header with ':'" % _BLOCK_HEADERS[header.type])
    if "ELSE" in expected and ttype in _CLOSING and len(stack) >= 3 and \
            type(stack[-2]) is Token and stack[-2].type == "IF":
        return _error_at("expected 'else' after 'if' expression", stack[-3], stack[-1],
                         hint="a conditional expression is 'A if CONDITION else B'")
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
            ttype in _EXPR_START and _statement_start(stack, prev):
        return _error_at("Missing parentheses in call to 'print'. Did you mean print(...)?",
                         prev, tok, hint="print is a function: print(...)")

    hint = _describe_expected(expected)
    if hint:
        hint += ", found " + _describe_token(tok)
    message = "invalid syntax"
    first = tok
    if (replay.brackets or expr_mode) and prev is not None and ttype in _EXPR_START and \
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
    candidates = set(exc.expected or ()) - _RESERVED_TYPES
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


def _unsupported(tok: Token) -> ScriptSyntaxError:
    return _error_at("'%s' is not supported in GradScript" % tok.value, tok,
                     hint="GradScript is a subset of Python without %s"
                     % _UNSUPPORTED_KEYWORDS[tok.value])


def _from_unexpected_characters(exc: UnexpectedCharacters, text: str) -> ScriptSyntaxError:
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


# ============================================================================ statement context


def _check_context(module: ast.Module) -> None:
    """CPython's compile-time checks: return/break/continue/nonlocal where they may be."""
    _check_statements(module.body)


# the statements _check_statements looks at (the others hold no statements and are allowed)
_CONTEXT_TYPES = frozenset((ast.Return, ast.Break, ast.Continue, ast.Nonlocal, ast.FunctionDef,
                            ast.ClassDef, ast.For, ast.While, ast.If, ast.With))


def _check_statements(body: list) -> None:
    todo: list = [(s, False, False) for s in reversed(body)]
    while todo:
        stmt, in_func, in_loop = todo.pop()
        t = type(stmt)
        if t is ast.Return and not in_func:
            raise _error_at("'return' outside function", stmt,
                            hint="return can only be used in the body of a def")
        if t is ast.Break and not in_loop:
            raise _error_at("'break' outside loop", stmt,
                            hint="break can only be used in the body of a for or while loop")
        if t is ast.Continue and not in_loop:
            raise _error_at("'continue' not properly in loop", stmt,
                            hint="continue can only be used in the body of a for or while loop")
        if t is ast.Nonlocal and not in_func:
            raise _error_at("nonlocal declaration not allowed at module level", stmt)
        if t is ast.FunctionDef:
            blocks = [(stmt.body, True, False)]
        elif t is ast.ClassDef:
            blocks = [(stmt.body, False, False)]
        elif t is ast.For or t is ast.While:
            blocks = [(stmt.body, in_func, True), (stmt.orelse, in_func, in_loop)]
        elif t is ast.If:
            blocks = [(stmt.body, in_func, in_loop), (stmt.orelse, in_func, in_loop)]
        elif t is ast.With:
            blocks = [(stmt.body, in_func, in_loop)]
        else:
            continue
        for body, f, lp in reversed(blocks):
            todo.extend((s, f, lp) for s in reversed(body))


def check_statement_context(stmt: Any, filename: str = "<string>") -> None:
    """The compile-time checks of one top-level statement (raises ScriptSyntaxError)."""
    if type(stmt) not in _CONTEXT_TYPES:  # most statements: an expression, an assignment
        return
    try:
        _check_statements([stmt])
    except GradScriptError as exc:
        exc.filename = filename
        raise


# ============================================================================ entry points


def _normalize(source: str) -> str:
    if source.startswith("\ufeff"):
        source = source[1:]
    if "\r" in source:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    if not source.endswith("\n"):
        source += "\n"
    return source


def _parse_with_state(text: str, start: str, state: _ParseState) -> Any:
    token = _STATE.set(state)
    try:
        driver, tables = _fast()
        return driver.parse(tokenize(text, state, tables), start)
    except UnexpectedToken as exc:
        raise _from_unexpected_token(exc, text, state.expr_mode) from None
    except ScriptSyntaxError as exc:
        if getattr(exc, "from_tokenizer", False):
            if exc.message == "unexpected EOF while parsing":  # point after the final '\\'
                lines = text.split("\n")
                exc.line, exc.column = len(lines) - 1, len(lines[-2]) + 1
                exc.end_line, exc.end_column = exc.line, exc.column + 1
            raise
        # raised by a transformer callback: the tokenizer may still have the last word
        raise _tokenizer_first(exc, _Replay(text, state.expr_mode, None), exc.end_line) from None
    except UnexpectedCharacters as exc:
        raise _from_unexpected_characters(exc, text) from None
    except UnexpectedInput as exc:  # pragma: no cover - other Lark input errors
        line = getattr(exc, "line", None) or 1
        column = getattr(exc, "column", None) or 1
        raise _error("invalid syntax", line, column) from None
    finally:
        _STATE.reset(token)


def _finish_error(exc: GradScriptError, filename: str, text: str) -> GradScriptError:
    exc.filename = filename
    # keep the location inside the source, whatever happened
    nlines = text.count("\n") + 1
    if exc.line is None or exc.line < 1:
        exc.line, exc.column = 1, 1
    if exc.line > nlines:
        exc.line = nlines
    if exc.column is None or exc.column < 1:
        exc.column = 1
    if exc.end_line is None or exc.end_line < exc.line:
        exc.end_line = exc.line
    if exc.end_column is None or (exc.end_line == exc.line and exc.end_column <= exc.column):
        exc.end_column = exc.column + 1
    return exc


def _check_first_line(text: str) -> None:
    """The lexer skips leading blanks, so an indented first statement is caught here."""
    if text[:1] in (" ", "\t", "\f"):
        i = len(text) - len(text.lstrip(" \t\f"))
        if text[i] not in "\n#" and not text.startswith("\\\n", i):
            raise _error("unexpected indent", 1, i + 1, type_name="IndentationError",
                         hint="the first statement must start at the beginning of the line")


def _run(source: str, filename: str, expr_mode: bool, check_context: bool = True) -> tuple[str, Any]:
    """Parse `source` as a module or (expr_mode) one expression: (normalised text, result)."""
    if not isinstance(source, str):
        raise TypeError("GradScript source must be str, not %s" % type(source).__name__)
    text = _normalize(source)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a parse only allocates; collecting meanwhile just costs time
    try:
        if expr_mode:
            result = _parse_with_state(text, "eval_input", _ParseState(expr_mode=True))
        else:
            _check_first_line(text)
            result = _parse_with_state(text, "module", _ParseState())
            if check_context:
                _check_context(result)
    except GradScriptError as exc:
        raise _finish_error(exc, filename, text) from None
    except RecursionError:
        raise _finish_error(_error("too many nested expressions", 1, 1), filename, text) from None
    except LarkError as exc:  # pragma: no cover - never expected; keep the promise anyway
        raise _finish_error(_error("invalid syntax (%s)" % type(exc).__name__, 1, 1),
                            filename, text) from None
    finally:
        if gc_was_enabled:
            gc.enable()
    return text, result


def parse(source: str, filename: str = "<string>", check_context: bool = True) -> ast.Module:
    """Parse a GradScript program into an :class:`ast.Module` (see gradcli.lang.ast).

    Raises ScriptSyntaxError (a GradScriptError) located in the source for any bad text.
    With ``check_context=False`` the checks CPython makes when it compiles a statement, not when
    it parses the file (return/break/continue/nonlocal out of place), are left to the caller:
    ``check_statement_context`` runs them on one statement.
    """
    text, module = _run(source, filename, False, check_context)
    lines = text.split("\n")  # the text ends with a newline: the last item is ""
    module.line, module.column = 1, 1
    module.end_line = max(len(lines) - 1, 1)
    module.end_column = len(lines[-2]) + 1 if len(lines) > 1 else 1
    return module


def parse_expression(source: str, filename: str = "<string>") -> ast.Expr:
    """Parse a single expression (line breaks allowed anywhere, as inside brackets)."""
    return _run(source, filename, True)[1]
