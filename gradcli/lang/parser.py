"""GradScript front end: source text -> Lark LALR(1) parser -> ``gradcli.lang.ast`` nodes.

Public API
----------
``parse(source, filename="<string>") -> ast.Module``
    Parse a whole script.  Raises :class:`ScriptSyntaxError` (``type_name`` "SyntaxError",
    "IndentationError" or "TabError") with a location inside the source for every bad
    input; no Lark exception ever escapes.
``parse_expression(source, filename="<string>") -> ast.Expr``
    Parse one expression (newlines are ignored, as inside brackets); for the calculator.

The grammar (``grammar/gradscript.lark``) is Lark LALR(1).  Lark analyses it once; the table and
the scanner are then kept as plain data in a cache file (``marshal``, never a pickle:
``$XDG_CACHE_HOME/gradcli/``, ``~/.cache/gradcli/``, else a temporary folder, each used only when
it is the user's own and no one else may write in it), and a parse runs on them without Lark's
parser objects, and without importing Lark at all (start-up time: tokens.py has the token type;
Lark's exception types are loaded when a syntax error needs them).  Lark's own cache is not used:
it is a pickle, which runs code when it is loaded, so a planted cache file would run it.

* ``tokenizer.py``: text -> tokens (Lark's terminals and master regex; line counting,
  _INDENT/_DEDENT, brackets and CPython's tokenizer errors in the same pass);
* ``lalr.py``: the LALR(1) loop over Lark's table, one reducer per rule;
* ``builder.py``: the in-parser transformer, rule -> ``gradcli.lang.ast`` node (no parse
  tree is made; spans come straight from the tokens); ``literals.py``: numbers, strings,
  f-strings;
* ``syntax_errors.py``: CPython-worded errors; this module: the caches, statement context
  checks and the entry points.
"""

from __future__ import annotations

import contextvars
import marshal
import os
import stat
import sys
import tempfile
from typing import TYPE_CHECKING, Any, Iterator, Optional

from ..gcpolicy import paused
from . import ast, grammar, keywords, lalr, tokenizer
from .builder import BUILDER
from .errors import GradScriptError, ScriptSyntaxError
from .lalr import Driver, table_data
from .syntax_errors import (from_unexpected_characters, from_unexpected_token, Replay,
                            tokenizer_first)
from .tokenizer import ParseState, ScanTables, error, error_at, scan_data, stream, tokenize
from .statements import STATEMENTS
from .tokens import Token

if TYPE_CHECKING:
    from pathlib import Path

    from lark import Lark

__all__ = ["parse", "parse_expression", "check_statement_context", "grammar_path", "prepare", "keyword_tables", "tables_file",
           "ScriptSyntaxError"]

# ============================================================================ grammar & Lark


def grammar_path() -> Path:
    """Where the grammar is: next to the package in a wheel, else in the repository."""
    from pathlib import Path

    return Path(grammar.path())


def _lark_version() -> str:
    """Lark's ``__version__``, read from its ``__init__.py`` without importing Lark (the module
    itself when it is loaded, or when its file does not say it in the usual form)."""
    module = sys.modules.get("lark")
    if module is None:
        try:
            from importlib.util import find_spec  # noqa: PLC0415

            spec = find_spec("lark")
            with open(spec.origin, encoding="utf-8") as f:  # type: ignore[union-attr,arg-type]
                for line in f:
                    if line.startswith("__version__"):
                        name, _, value = line.partition("=")
                        value = value.strip()
                        if name.split(":")[0].strip() == "__version__" and len(value) > 2 and value[0] == value[-1] \
                                and value[0] in "'\"" and value.count(value[0]) == 2:
                            return value[1:-1]
                        break
        except (OSError, ImportError, AttributeError, TypeError, ValueError):
            pass
        import lark as module  # noqa: PLC0415
    return module.__version__


def _sha256(data: bytes):
    """hashlib.sha256(data) from the interpreter's own module when there is one: hashlib starts
    OpenSSL, ~2 ms of every start-up, for a key of a few kilobytes."""
    for name in ("_sha2", "_sha256"):  # Python 3.12+, 3.11 and before
        try:
            return __import__(name).sha256(data)
        except (ImportError, AttributeError):
            continue
    import hashlib  # noqa: PLC0415

    return hashlib.sha256(data)


def _own_folder(folder: str) -> bool:
    """Whether `folder` is a folder of this user that no one else may write in (a cache there
    cannot have been planted by another user: a shared temporary folder's `gradcli-UID` made
    first by someone else, or group-writable)."""
    info = os.stat(folder)
    if not stat.S_ISDIR(info.st_mode):
        return False
    if not hasattr(os, "getuid"):
        return True
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _cache_stem(grammar_text: str) -> Optional[str]:
    """A writable cache path, without its ending, keyed by the grammar, Lark and Python versions,
    or None: the stem of the table cache's name (tables_file). Only in a folder of this user's own."""
    key = _sha256(grammar_text.encode("utf-8")).hexdigest()[:20]
    name = "gradscript-%s-lark%s-py%d%d" % (key, _lark_version(), *sys.version_info[:2])
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
            os.makedirs(folder, mode=0o700, exist_ok=True)
            if _own_folder(folder) and os.access(folder, os.R_OK | os.W_OK | os.X_OK):
                return path
        except OSError:
            continue
    return None


_LARK: Optional[Lark] = None


def _lark() -> Lark:
    global _LARK
    if _LARK is None:
        from lark import Lark  # noqa: PLC0415 - a cold table cache (or a caller that wants Lark)

        text = grammar.text()
        lexer, indenter = _lark_classes()
        options = dict(parser="lalr", lexer=lexer, start=["module", "eval_input"],
                       postlex=indenter(), transformer=BUILDER,
                       maybe_placeholders=False, propagate_positions=False)
        # no cache=: Lark's cache is a pickle (see the module docstring); the tables gradcli
        # needs are cached by fast_parser, as plain data
        _LARK = Lark(text, **options)
    return _LARK


_DRIVER: Optional[Driver] = None
_TABLES: Optional[ScanTables] = None
_KEYWORD_DATA: Optional[dict] = None
_KEYWORD_TABLES: Optional[keywords.Keywords] = None


def fast_parser() -> tuple[Driver, ScanTables]:
    """The LALR driver and the scanner tables, on first use.

    Both come from Lark's parser, as plain data that is cached on disk (tables_file): a
    start-up that finds it loads neither Lark's parser nor its table (Lark is loaded when a
    syntax error needs it).  The cache is keyed by the grammar and by the code that makes
    and reads the data (lalr.py, tokenizer.py, keywords.py), so an edit there rebuilds it.
    The builder's reducers are not in it: the data names each rule's callback (the rule's
    name or alias), and the driver binds the builder's method or generic reducer of that name
    when it loads, so a reducer written or a description's ``rule`` added needs no rebuild.
    """
    if _DRIVER is None:
        text = grammar.text()
        path = tables_file(text)
        data = _read_tables(path) if path else None
        if data is not None:
            try:
                _load_tables(data)
            except Exception:  # noqa: BLE001 - a damaged (or hostile) file: built again below
                data = None
        if data is None:
            lark = _lark()
            grammar.check(grammar.declarations(text), lark.rules)  # (the node classes were made of them)
            scan = scan_data(lark.parser.lexer.lexer)
            rules = [(r.origin.name, [s.name for s in r.expansion], r.alias) for r in lark.rules]
            data = _plain({"scan": scan, "lalr": table_data(lark.parser.parser.parser, BUILDER),
                           "keywords": keywords.derive(rules, scan["keywords"].get("NAME", {}))})
            if path:
                _write_tables(path, data)
            _load_tables(data)
    return _DRIVER, _TABLES  # type: ignore[return-value]


def _load_tables(data: dict) -> None:
    """Make the scanner, keyword tables and driver of table data (all three or none)."""
    global _DRIVER, _TABLES, _KEYWORD_DATA
    tables = ScanTables(data["scan"])
    keywords.Keywords(data["keywords"])  # (checks its shape; keyword_tables makes the one kept)
    driver = Driver(data["lalr"], BUILDER)
    _TABLES, _KEYWORD_DATA, _DRIVER = tables, data["keywords"], driver


def keyword_tables() -> keywords.Keywords:
    """The grammar's keyword tables (lang/keywords.py), cached with the parse tables."""
    global _KEYWORD_TABLES
    if _KEYWORD_TABLES is None:
        fast_parser()
        _KEYWORD_TABLES = keywords.Keywords(_KEYWORD_DATA)  # type: ignore[arg-type]
    return _KEYWORD_TABLES


def prepare() -> None:
    """Load the parse tables now (building and caching them if they are not cached yet).

    `gradcli run` calls this before it forks a run's child: the child cannot write files (the
    process wall), so a cache it filled would be lost, and every run would build the tables again
    with Lark. A failure here is left for the parse itself to report."""
    try:
        fast_parser()
    except Exception:  # noqa: BLE001 - the parse reports it, in its own words
        pass


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


def tables_file(grammar_text: str) -> Optional[str]:
    stem = _cache_stem(grammar_text)
    if stem is None:
        return None
    digest = _sha256(grammar_text.encode("utf-8"))
    for module in (lalr, tokenizer, keywords, grammar):  # the code that makes (and checks) the cached data
        try:
            with open(module.__file__, "rb") as f:  # type: ignore[arg-type]
                digest.update(f.read())
        except (OSError, TypeError):
            return None
    return "%s-tables-%s.marshal" % (stem, digest.hexdigest()[:16])


def _read_tables(path: str) -> Optional[dict]:
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
        if type(data) is dict and set(data) == {"scan", "lalr", "keywords"}:
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
        # the files of earlier versions of the code, for the same grammar, are stale
        folder, name = os.path.split(path)
        stem = name[:name.index("-tables-") + len("-tables-")]
        for other in os.listdir(folder):
            if other.startswith(stem) and other.endswith(".marshal") and other != name:
                os.remove(os.path.join(folder, other))
    except (OSError, ValueError):  # ValueError: marshal met an object it cannot write
        try:
            os.remove(tmp)
        except OSError:
            pass


# ============================================================================ Lark's lexer

# parse() runs gradcli.lang.tokenizer and gradcli.lang.lalr itself; these two classes make
# Lark's own pipeline (Lark.lex, Lark.parse) read the same tokens.

_STATE: contextvars.ContextVar[ParseState] = contextvars.ContextVar("gradscript_parse_state")


_LARK_CLASSES: list = []


def _lark_classes() -> tuple:
    """(GradLexer, GradIndenter), made on first use: they are Lark subclasses, and a start-up
    with a warm cache does not import Lark."""
    if _LARK_CLASSES:
        return _LARK_CLASSES[0]
    from lark.indenter import Indenter  # noqa: PLC0415
    from lark.lexer import BasicLexer  # noqa: PLC0415

    class GradLexer(BasicLexer):
        """Lark's lexer interface over gradcli.lang.tokenize (which makes the _INDENT/_DEDENT
        tokens too, for the parse state set in _STATE)."""

        __future_interface__ = 2  # lex(lexer_state, parser_state), like Lark's own lexers

        def lex(self, state: Any, parser_state: Any) -> Iterator[Token]:
            text = state.text
            if type(text) is not str:  # a lark.utils.TextSlice (Lark >= 1.3)
                text = text.text
            return tokenize(text, _STATE.get(None) or ParseState(), fast_parser()[1])

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

    for cls in (GradLexer, GradIndenter):  # module attributes, as Lark's cache pickles them by name
        cls.__qualname__ = cls.__name__
        globals()[cls.__name__] = cls
    _LARK_CLASSES.append((GradLexer, GradIndenter))
    return _LARK_CLASSES[0]


def __getattr__(name: str) -> Any:
    """GradLexer and GradIndenter (made on first use, see _lark_classes)."""
    if name in ("GradLexer", "GradIndenter"):
        _lark_classes()
        return globals()[name]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


_error = error
_error_at = error_at
_ParseState = ParseState


# ============================================================================ statement context


def _check_context(module: ast.Module) -> None:
    """CPython's compile-time checks: return/break/continue/nonlocal where they may be."""
    _check_statements(module.body)


def _check_statements(body: list) -> None:
    """Where each statement may stand and how its blocks nest: the statements' descriptions
    (statements.STATEMENTS: only_in, scope, loop, blocks)."""
    todo: list = [(s, False, False) for s in reversed(body)]
    while todo:
        stmt, in_func, in_loop = todo.pop()
        d = STATEMENTS[type(stmt)]
        if d.only_in is not None:
            where, message, hint = d.only_in
            if not (in_func if where == "function" else in_loop):
                raise _error_at(message, stmt, hint=hint)
        if d.scope is not None:  # a def's body is in a function; a class's is not (and in no loop)
            blocks = [(stmt.body, d.scope == "function", False)]
        elif d.get_blocks:  # a loop's body is in the loop; every other block is where the statement is
            blocks = [(b, in_func, in_loop or (d.loop and b is stmt.body)) for b in d.sub_blocks(stmt)]
        else:
            continue
        for body, f, lp in reversed(blocks):
            todo.extend((s, f, lp) for s in reversed(body))


def check_statement_context(stmt: Any, filename: str = "<string>") -> None:
    """The compile-time checks of one top-level statement (raises ScriptSyntaxError)."""
    if not STATEMENTS[type(stmt)].checked:  # most statements: an expression, an assignment
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


def parse_with_state(text: str, start: str, state: _ParseState) -> Any:
    token = _STATE.set(state)
    try:
        driver, tables = fast_parser()
        return driver.parse(stream(text, state, tables), start)
    except ScriptSyntaxError as exc:
        if getattr(exc, "from_tokenizer", False):
            if exc.message == "unexpected EOF while parsing":  # point after the final '\\'
                lines = text.split("\n")
                exc.line, exc.column = len(lines) - 1, len(lines[-2]) + 1
                exc.end_line, exc.end_column = exc.line, exc.column + 1
            raise
        # raised by a transformer callback: the tokenizer may still have the last word
        raise tokenizer_first(exc, Replay(text, state.expr_mode, None), exc.end_line) from None
    except Exception as exc:  # Lark's error types: loaded by then (tokens.lark_errors), else not Lark's
        errors = sys.modules.get("lark.exceptions")
        if errors is None:
            raise
        if isinstance(exc, errors.UnexpectedToken):
            raise from_unexpected_token(exc, text, state.expr_mode) from None
        if isinstance(exc, errors.UnexpectedCharacters):
            raise from_unexpected_characters(exc, text) from None
        if isinstance(exc, errors.UnexpectedInput):  # pragma: no cover - other Lark input errors
            line = getattr(exc, "line", None) or 1
            column = getattr(exc, "column", None) or 1
            raise _error("invalid syntax", line, column) from None
        raise
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
    try:
        with paused():  # a parse only allocates; collecting meanwhile just costs time
            result = _parse_text(text, expr_mode, check_context)
    except GradScriptError as exc:
        raise _finish_error(exc, filename, text) from None
    except RecursionError:
        raise _finish_error(_error("too many nested expressions", 1, 1), filename, text) from None
    except Exception as exc:
        errors = sys.modules.get("lark.exceptions")
        if errors is None or not isinstance(exc, errors.LarkError):
            raise
        # pragma: no cover - a Lark error is never expected here; keep the promise anyway
        raise _finish_error(_error("invalid syntax (%s)" % type(exc).__name__, 1, 1),
                            filename, text) from None
    return text, result


def _parse_text(text: str, expr_mode: bool, check_context: bool):
    if expr_mode:
        return parse_with_state(text, "eval_input", _ParseState(expr_mode=True))
    _check_first_line(text)
    result = parse_with_state(text, "module", _ParseState())
    if check_context:
        _check_context(result)
    return result


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
