/* gradcli._native_scan: gradcli/lang/tokenizer.py's tokenize() in C, for long texts.

  scan(text, expr_mode, slots, keywords)
      The whole token stream of `text` (which ends with a newline) as a list of tokens, exactly as
      tokenizer.tokenize yields them (the reference: tests/test_native_scan.py runs both over every
      .grad file of the repository and over fuzzed texts): the same terminals (the master regex's
      alternatives, first match wins), the same _NEWLINE handling (dropped inside brackets and in
      expr_mode), _INDENT/_DEDENT tokens, types, values and positions. Returns None where the
      Python tokenizer would raise (an unexpected character, an unmatched or mismatched bracket, a
      bad dedent, a tab error, too many levels, a backslash before the end) or where this scan meets
      what it does not implement: the caller then runs the Python tokenizer, which raises in its
      place in the stream.
      slots: the member descriptors of Token's slots type, value, start_pos, line, column, end_line,
      end_column, end_pos (a str subclass): each token is made as str.__new__(Token, value) with
      its slots set at their offsets (as member_set does). keywords: NAME's keyword table (text ->
      terminal), as tokenizer.ScanTables has it.

  PATTERN: the master regex this scan implements (tokenizer.scan_data's, for the grammar of this
  checkout); the caller uses scan() only when its tables' regex is this one.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

static const char PATTERN[] =
    "[\\t \\f]*(?:(?P<NAME__fast>(?!(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])['\"])[^\\W\\d]\\w*)|(?P<PUNC"
    "T__fast>[,\\{\\(\\[\\}\\)\\];])|(?P<DOT__fast>\\.(?!\\d|\\.\\.))|(?P<EQUAL__fast>=(?!=))|(?P<STA"
    "R__fast>\\*(?![*=]))|(?P<PLUS__fast>\\+(?!=))|(?P<MINUS__fast>-(?![=>]))|(?P<NUMBER>(?:0[xX](?:_"
    "?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:\\d(?:_?\\d)*(?:\\.(?:\\d(?:_?\\d)*)?)?|\\."
    "\\d(?:_?\\d)*)(?:[eE][-+]?\\d(?:_?\\d)*)?[jJ]?))|(?P<STRING>(?s:(?:[rRuUbBfF]|[rR][bBfF]|[bBfF]["
    "rR])?(?:'''(?:[^'\\\\]|\\\\.|'(?!''))*'''|\"\"\"(?:[^\"\\\\]|\\\\.|\"(?!\"\"))*\"\"\"|'(?:[^'\\\\"
    "\n]|\\\\.)*'|\"(?:[^\"\\\\\n]|\\\\.)*\")))|(?P<_NEWLINE>(?:\n[\t \f]*|#[^\n]*)+)|(?P<NAME>[^\\W\\"
    "d]\\w*)|(?P<__IGNORE_0>[\t \f]+)|(?P<AUGOP>(?:\\/\\/|\\*\\*|<<|>>|[-+*\\/%@&|^])=)|(?P<ELLIPSIS>"
    "\\.\\.\\.)|(?P<BINOP>\\/\\/|<<|>>|<=|>=|==|!=|[\\/%|^&<>])|(?P<__IGNORE_1>\\\\\n)|(?P<COLONEQUAL"
    ">:=)|(?P<POW>\\*\\*)|(?P<RARROW>\\->)|(?P<AT>@)|(?P<COLON>:)|(?P<COMMA>,)|(?P<DOT>\\.)|(?P<EQUAL"
    ">=)|(?P<LBRACE>\\{)|(?P<LPAR>\\()|(?P<LSQB>\\[)|(?P<MINUS>\\-)|(?P<PLUS>\\+)|(?P<RBRACE>\\})|(?P"
    "<RPAR>\\))|(?P<RSQB>\\])|(?P<SEMICOLON>;)|(?P<STAR>\\*)|(?P<TILDE>\\~))";

enum {
    K_NAME, K_NUMBER, K_STRING, K_NEWLINE, K_AUGOP, K_ELLIPSIS, K_BINOP, K_COLONEQUAL, K_POW, K_RARROW,
    K_AT, K_COLON, K_COMMA, K_DOT, K_EQUAL, K_LBRACE, K_LPAR, K_LSQB, K_MINUS, K_PLUS, K_RBRACE, K_RPAR,
    K_RSQB, K_SEMICOLON, K_STAR, K_TILDE, K_INDENT, K_DEDENT, NTYPES,
    K_IGNORE = -2, K_NONE = -1  /* a backslash-newline (skipped); no terminal matches (the scan stops) */
};
static const char *const TYPE_NAMES[NTYPES] = {
    "NAME", "NUMBER", "STRING", "_NEWLINE", "AUGOP", "ELLIPSIS", "BINOP", "COLONEQUAL", "POW", "RARROW",
    "AT", "COLON", "COMMA", "DOT", "EQUAL", "LBRACE", "LPAR", "LSQB", "MINUS", "PLUS", "RBRACE", "RPAR",
    "RSQB", "SEMICOLON", "STAR", "TILDE", "_INDENT", "_DEDENT"};
static PyObject *type_str[NTYPES];  /* interned */

enum { S_TYPE, S_VALUE, S_START, S_LINE, S_COLUMN, S_END_LINE, S_END_COLUMN, S_END_POS, NSLOTS };

#define MAX_NESTING 200  /* tokenizer.MAX_NESTING */
#define MAX_INDENT 100   /* tokenizer.MAX_INDENT */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} Text;

/* the character at i, or 0 past the end (the text ends with a newline: no terminal reads a 0) */
static inline Py_UCS4 at(const Text *t, Py_ssize_t i)
{
    return i < t->n ? PyUnicode_READ(t->kind, t->data, i) : 0;
}

/* the regex module's \w and \d on str (sre: Py_UNICODE_ISALNUM or '_', Py_UNICODE_ISDECIMAL) */
static inline int is_word(Py_UCS4 c)
{
    if (c < 128)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    return Py_UNICODE_ISALNUM(c);
}

static inline int is_digit(Py_UCS4 c)
{
    return c < 128 ? (c >= '0' && c <= '9') : Py_UNICODE_ISDECIMAL(c);
}

static inline int is_hex(Py_UCS4 c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int is_blank(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == '\f';
}

static inline int in_set(Py_UCS4 c, const char *set)
{
    return c != 0 && c < 128 && strchr(set, (int)c) != NULL;
}

/* `\d(?:_?\d)*` from i (at(i) is a digit): the end */
static Py_ssize_t digits(const Text *t, Py_ssize_t i)
{
    i++;
    for (;;) {
        Py_UCS4 c = at(t, i);
        if (c == '_' && is_digit(at(t, i + 1)))
            i += 2;
        else if (is_digit(c))
            i++;
        else
            return i;
    }
}

/* `0[xX](?:_?[0-9a-fA-F])+` and its octal and binary forms from i (after the 0 and the letter):
   the end, or -1 (no digit) */
static Py_ssize_t radix_digits(const Text *t, Py_ssize_t i, int radix)
{
    Py_ssize_t start = i;
    for (;;) {
        Py_UCS4 c = at(t, i), d = at(t, i + 1);
        int ok_c = radix == 16 ? is_hex(c) : (c >= '0' && c < (Py_UCS4)('0' + radix));
        int ok_d = radix == 16 ? is_hex(d) : (d >= '0' && d < (Py_UCS4)('0' + radix));
        if (c == '_' && ok_d)
            i += 2;
        else if (ok_c)
            i++;
        else
            return i > start ? i : -1;
    }
}

/* NUMBER from i, or -1: its regex's alternatives in their order (the decimal one with its optional
   exponent and j) */
static Py_ssize_t number(const Text *t, Py_ssize_t i)
{
    Py_ssize_t e = -1;
    Py_UCS4 c = at(t, i), c1 = at(t, i + 1);
    if (c == '0' && (c1 == 'x' || c1 == 'X'))
        e = radix_digits(t, i + 2, 16);
    if (e < 0 && c == '0' && (c1 == 'o' || c1 == 'O'))
        e = radix_digits(t, i + 2, 8);
    if (e < 0 && c == '0' && (c1 == 'b' || c1 == 'B'))
        e = radix_digits(t, i + 2, 2);
    if (e >= 0)
        return e;  /* (the exponent and j belong to the decimal alternative) */
    if (is_digit(c)) {
        e = digits(t, i);
        if (at(t, e) == '.') {
            e++;
            if (is_digit(at(t, e)))
                e = digits(t, e);
        }
    }
    else if (c == '.' && is_digit(c1))
        e = digits(t, i + 1);
    else
        return -1;
    c = at(t, e);
    if (c == 'e' || c == 'E') {
        Py_ssize_t q = e + 1;
        if (at(t, q) == '-' || at(t, q) == '+')
            q++;
        if (is_digit(at(t, q)))
            e = digits(t, q);
    }
    c = at(t, e);
    if (c == 'j' || c == 'J')
        e++;
    return e;
}

/* STRING's body (after the prefix) from i, or -1: the four quote alternatives in their order */
static Py_ssize_t string_body(const Text *t, Py_ssize_t i)
{
    Py_UCS4 q = at(t, i);
    if (q != '\'' && q != '"')
        return -1;
    if (at(t, i + 1) == q && at(t, i + 2) == q) {  /* '''...''' (?:[^'\\]|\\.|'(?!''))* */
        Py_ssize_t r = i + 3;
        while (r < t->n) {
            Py_UCS4 c = at(t, r);
            if (c == '\\') {
                if (r + 1 >= t->n)
                    break;
                r += 2;
            }
            else if (c == q && at(t, r + 1) == q && at(t, r + 2) == q)
                break;
            else
                r++;
        }
        if (r + 2 < t->n && at(t, r) == q && at(t, r + 1) == q && at(t, r + 2) == q)
            return r + 3;
    }
    /* '...' (?:[^'\\\n]|\\.)* (also where an unterminated '''... starts with '') */
    Py_ssize_t r = i + 1;
    while (r < t->n) {
        Py_UCS4 c = at(t, r);
        if (c == '\\') {
            if (r + 1 >= t->n)
                break;
            r += 2;
        }
        else if (c == q || c == '\n')
            break;
        else
            r++;
    }
    return r < t->n && at(t, r) == q ? r + 1 : -1;
}

/* STRING from i, or -1: the optional prefix tried first, in the regex's order of its alternatives */
static Py_ssize_t string(const Text *t, Py_ssize_t i)
{
    Py_UCS4 c = at(t, i), c1 = at(t, i + 1);
    Py_ssize_t e;
    if (in_set(c, "rRuUbBfF") && (e = string_body(t, i + 1)) >= 0)
        return e;
    if (in_set(c, "rR") && in_set(c1, "bBfF") && (e = string_body(t, i + 2)) >= 0)
        return e;
    if (in_set(c, "bBfF") && in_set(c1, "rR") && (e = string_body(t, i + 2)) >= 0)
        return e;
    return string_body(t, i);
}

/* NAME__fast's lookahead: a string prefix and a quote start at i */
static int string_start(const Text *t, Py_ssize_t i)
{
    Py_UCS4 c = at(t, i), c1 = at(t, i + 1), c2 = at(t, i + 2);
    if (in_set(c, "rRuUbBfF") && (c1 == '\'' || c1 == '"'))
        return 1;
    return ((in_set(c, "rR") && in_set(c1, "bBfF")) || (in_set(c, "bBfF") && in_set(c1, "rR"))) &&
           (c2 == '\'' || c2 == '"');
}

/* The terminal of the master regex's first alternative that matches at i (no blank there), its end
   in *end; K_NONE when none does, or where only an alternative this scan leaves to Python would */
static int terminal(const Text *t, Py_ssize_t i, Py_ssize_t *end)
{
    Py_UCS4 c = at(t, i), c1 = at(t, i + 1), c2 = at(t, i + 2);
    Py_ssize_t e;
    if (is_word(c) && !is_digit(c)) {
        if (!string_start(t, i)) {  /* NAME__fast */
            e = i + 1;
            while (is_word(at(t, e)))
                e++;
            *end = e;
            return K_NAME;
        }
        if ((e = string(t, i)) < 0)
            return K_NONE;  /* an unterminated string: Lark's NAME takes the prefix, then an error */
        *end = e;
        return K_STRING;
    }
    *end = i + 1;
    switch (c) {
    case ',': return K_COMMA;
    case '{': return K_LBRACE;
    case '(': return K_LPAR;
    case '[': return K_LSQB;
    case '}': return K_RBRACE;
    case ')': return K_RPAR;
    case ']': return K_RSQB;
    case ';': return K_SEMICOLON;
    case '~': return K_TILDE;
    case '.':
        if (is_digit(c1))
            break;  /* NUMBER */
        if (c1 == '.' && c2 == '.') {
            *end = i + 3;
            return K_ELLIPSIS;
        }
        return K_DOT;
    case '=':
        if (c1 == '=') {
            *end = i + 2;
            return K_BINOP;
        }
        return K_EQUAL;
    case '*':
        if (c1 == '*') {
            *end = i + (c2 == '=' ? 3 : 2);
            return c2 == '=' ? K_AUGOP : K_POW;
        }
        if (c1 == '=') {
            *end = i + 2;
            return K_AUGOP;
        }
        return K_STAR;
    case '+':
        if (c1 == '=') {
            *end = i + 2;
            return K_AUGOP;
        }
        return K_PLUS;
    case '-':
        if (c1 == '=' || c1 == '>') {
            *end = i + 2;
            return c1 == '=' ? K_AUGOP : K_RARROW;
        }
        return K_MINUS;
    case '\'': case '"':
        if ((e = string_body(t, i)) < 0)
            return K_NONE;
        *end = e;
        return K_STRING;
    case '\n': case '#':  /* (?:\n[\t \f]*|#[^\n]*)+ */
        e = i;
        for (;;) {
            Py_UCS4 d = at(t, e);
            if (d == '\n') {
                e++;
                while (is_blank(at(t, e)))
                    e++;
            }
            else if (d == '#') {
                e++;
                while (e < t->n && at(t, e) != '\n')
                    e++;
            }
            else
                break;
        }
        *end = e;
        return K_NEWLINE;
    case '/': case '<': case '>':  /* AUGOP //= <<= >>=, then BINOP // << >> <= >= and the one character */
        if (c1 == c) {
            *end = i + (c2 == '=' ? 3 : 2);
            return c2 == '=' ? K_AUGOP : K_BINOP;
        }
        if (c1 == '=') {
            *end = i + 2;
            return c == '/' ? K_AUGOP : K_BINOP;
        }
        return K_BINOP;
    case '%': case '&': case '|': case '^': case '@':
        if (c1 == '=') {
            *end = i + 2;
            return K_AUGOP;
        }
        return c == '@' ? K_AT : K_BINOP;
    case '!':
        if (c1 == '=') {
            *end = i + 2;
            return K_BINOP;
        }
        return K_NONE;
    case '\\':
        if (c1 == '\n') {
            *end = i + 2;
            return K_IGNORE;
        }
        return K_NONE;
    case ':':
        if (c1 == '=') {
            *end = i + 2;
            return K_COLONEQUAL;
        }
        return K_COLON;
    default:
        break;
    }
    if ((e = number(t, i)) >= 0) {
        *end = e;
        return K_NUMBER;
    }
    return K_NONE;
}

typedef struct {
    PyTypeObject *token_type;
    Py_ssize_t off[NSLOTS];
    PyObject *list;
    PyObject *line_obj;  /* the current line's number (shared by its tokens) */
    Py_ssize_t line_of_obj;
} Out;

static PyObject *line_number(Out *o, Py_ssize_t line)
{
    if (o->line_obj == NULL || o->line_of_obj != line) {
        PyObject *v = PyLong_FromSsize_t(line);
        if (v == NULL)
            return NULL;
        Py_XSETREF(o->line_obj, v);
        o->line_of_obj = line;
    }
    Py_INCREF(o->line_obj);
    return o->line_obj;
}

/* str.__new__(Token, value) with its slots set; appended to the list. Steals value. 0, or -1 */
static int emit(Out *o, PyObject *type, PyObject *value, Py_ssize_t start, Py_ssize_t line, Py_ssize_t column,
                Py_ssize_t end_line, Py_ssize_t end_column, Py_ssize_t end_pos)
{
    if (value == NULL)
        return -1;
    PyObject *args = PyTuple_Pack(1, value);
    if (args == NULL) {
        Py_DECREF(value);
        return -1;
    }
    PyObject *tok = PyUnicode_Type.tp_new(o->token_type, args, NULL);
    Py_DECREF(args);
    if (tok == NULL) {
        Py_DECREF(value);
        return -1;
    }
    PyObject *v[NSLOTS];
    v[S_TYPE] = Py_NewRef(type);
    v[S_VALUE] = value;
    v[S_START] = PyLong_FromSsize_t(start);
    v[S_LINE] = line_number(o, line);
    v[S_COLUMN] = PyLong_FromSsize_t(column);
    v[S_END_LINE] = end_line == line ? Py_NewRef(v[S_LINE]) : PyLong_FromSsize_t(end_line);
    v[S_END_COLUMN] = PyLong_FromSsize_t(end_column);
    v[S_END_POS] = PyLong_FromSsize_t(end_pos);
    int failed = 0;
    for (int k = 0; k < NSLOTS; ++k) {
        PyObject **slot = (PyObject **)((char *)tok + o->off[k]);
        if (v[k] == NULL)
            failed = 1;
        Py_XSETREF(*slot, v[k]);
    }
    if (failed || PyList_Append(o->list, tok) < 0) {
        Py_DECREF(tok);
        return -1;
    }
    Py_DECREF(tok);
    return 0;
}

static int slot_offsets(PyObject *slots, Out *o)
{
    if (!PyTuple_CheckExact(slots) || PyTuple_GET_SIZE(slots) != NSLOTS) {
        PyErr_SetString(PyExc_TypeError, "scan: slots must be a tuple of 8 member descriptors");
        return -1;
    }
    for (int i = 0; i < NSLOTS; ++i) {
        PyObject *d = PyTuple_GET_ITEM(slots, i);
        if (!Py_IS_TYPE(d, &PyMemberDescr_Type)) {
            PyErr_SetString(PyExc_TypeError, "scan: slots must be member descriptors");
            return -1;
        }
        PyMemberDescrObject *md = (PyMemberDescrObject *)d;
        if (md->d_member->type != T_OBJECT_EX || (md->d_member->flags & READONLY)) {
            PyErr_SetString(PyExc_TypeError, "scan: slots must be writable object slots");
            return -1;
        }
        PyTypeObject *t = PyDescr_TYPE(d);
        if (i == 0)
            o->token_type = t;
        else if (t != o->token_type) {
            PyErr_SetString(PyExc_TypeError, "scan: slots of one class");
            return -1;
        }
        o->off[i] = md->d_member->offset;
    }
    if (!PyType_IsSubtype(o->token_type, &PyUnicode_Type)) {
        PyErr_SetString(PyExc_TypeError, "scan: the token class must be a str subclass");
        return -1;
    }
    return 0;
}

/* tokenizer.indent_widths */
static void indent_widths(const Text *t, Py_ssize_t a, Py_ssize_t b, Py_ssize_t *col, Py_ssize_t *alt)
{
    Py_ssize_t c = 0, d = 0;
    for (Py_ssize_t i = a; i < b; ++i) {
        Py_UCS4 ch = at(t, i);
        if (ch == '\t') {
            c = (c / 8 + 1) * 8;
            d++;
        }
        else if (ch == '\f')
            c = d = 0;
        else {
            c++;
            d++;
        }
    }
    *col = c;
    *alt = d;
}

typedef struct { Py_ssize_t col, alt; } Width;

/* 1: the token stream is in o->list; 0: the Python tokenizer must scan (an error or what this scan
   leaves to it); -1: a Python exception */
static int scan_text(PyObject *text, int expr_mode, PyObject *keywords, Out *o)
{
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    Py_ssize_t pos = 0, line = 1, line_start = 0;
    int brackets[MAX_NESTING + 1];
    int nbrackets = 0;
    Width indents[MAX_INDENT + 1];
    int nindents = 1;
    indents[0].col = indents[0].alt = 0;
    int have_last = 0, last_newline = 0;
    Py_ssize_t last_end_line = 0, last_end_pos = 0;
    while (pos < t.n) {
        Py_ssize_t start = pos, end;
        while (start < t.n && is_blank(at(&t, start)))
            start++;
        if (start >= t.n)
            return 0;
        int type = terminal(&t, start, &end);
        if (type == K_NONE)
            return 0;
        if (type == K_IGNORE) {  /* a backslash and newline: the next line */
            pos = line_start = end;
            line++;
            continue;
        }
        Py_ssize_t end_line = line, end_start = line_start;
        if (type == K_STRING || type == K_NEWLINE) {  /* may span lines */
            for (Py_ssize_t k = start; k < end; ++k)
                if (at(&t, k) == '\n') {
                    end_line++;
                    end_start = k + 1;
                }
        }
        PyObject *value = PyUnicode_Substring(text, start, end);
        PyObject *ttype = type_str[type];  /* borrowed */
        if (type == K_NAME && value != NULL) {
            PyObject *kw = PyDict_GetItemWithError(keywords, value);  /* a keyword: its terminal */
            if (kw != NULL) {
                if (!PyUnicode_CheckExact(kw)) {
                    Py_DECREF(value);
                    return 0;
                }
                ttype = kw;
            }
            else if (PyErr_Occurred()) {
                Py_DECREF(value);
                return -1;
            }
        }
        have_last = 1;
        last_newline = type == K_NEWLINE;
        last_end_line = end_line;
        last_end_pos = end;
        Py_ssize_t tok_line = line, column = start - line_start + 1, end_column = end - end_start + 1;
        pos = end;
        line = end_line;
        line_start = end_start;
        if (type == K_NEWLINE && (nbrackets || expr_mode)) {  /* implicit line joining */
            Py_XDECREF(value);
            continue;
        }
        if (emit(o, ttype, value, start, tok_line, column, end_line, end_column, end) < 0)
            return -1;
        if (type == K_LPAR || type == K_LSQB || type == K_LBRACE) {
            if (nbrackets >= MAX_NESTING)
                return 0;  /* too many nested parentheses */
            brackets[nbrackets++] = type;
        }
        else if (type == K_RPAR || type == K_RSQB || type == K_RBRACE) {
            if (nbrackets == 0)
                return 0;  /* unmatched */
            int opener = brackets[--nbrackets];
            if (opener != (type == K_RPAR ? K_LPAR : type == K_RSQB ? K_LSQB : K_LBRACE))
                return 0;  /* mismatched */
        }
        else if (type == K_NEWLINE) {  /* tokenizer._indentation */
            Py_ssize_t a = end;
            while (a > start && at(&t, a - 1) != '\n')
                a--;
            Width w;
            indent_widths(&t, a, end, &w.col, &w.alt);
            Py_ssize_t col = end - a + 1;
            Width top = indents[nindents - 1];
            if (w.col > top.col) {
                if (w.alt <= top.alt || nindents >= MAX_INDENT)
                    return 0;  /* a tab error, too many levels */
                indents[nindents++] = w;
                if (emit(o, type_str[K_INDENT], PyUnicode_Substring(text, a, end), end, line, col, line, col, end) < 0)
                    return -1;
            }
            else if (w.col < top.col) {
                while (w.col < indents[nindents - 1].col) {
                    nindents--;
                    if (emit(o, type_str[K_DEDENT], PyUnicode_New(0, 0), end, line, col, line, col, end) < 0)
                        return -1;
                }
                if (w.col != indents[nindents - 1].col || w.alt != indents[nindents - 1].alt)
                    return 0;  /* a dedent to no level, a tab error */
            }
            else if (w.alt != top.alt)
                return 0;  /* a tab error */
        }
    }
    if (nbrackets)
        return 0;  /* never closed */
    if (have_last && !expr_mode && !last_newline)
        return 0;  /* a backslash before the end */
    if (have_last)
        for (int k = 1; k < nindents; ++k)
            if (emit(o, type_str[K_DEDENT], PyUnicode_New(0, 0), last_end_pos, last_end_line, 1, last_end_line, 1,
                     last_end_pos) < 0)
                return -1;
    return 1;
}

static PyObject *scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "scan(text, expr_mode, slots, keywords)");
        return NULL;
    }
    PyObject *text = args[0], *keywords = args[3];
    if (!PyUnicode_CheckExact(text) || !PyDict_CheckExact(keywords)) {
        PyErr_SetString(PyExc_TypeError, "scan: text must be a str and keywords a dict");
        return NULL;
    }
    int expr_mode = PyObject_IsTrue(args[1]);
    if (expr_mode < 0)
        return NULL;
    Out o = {0};
    if (slot_offsets(args[2], &o) < 0)
        return NULL;
    o.list = PyList_New(0);
    if (o.list == NULL)
        return NULL;
    int r = scan_text(text, expr_mode, keywords, &o);
    Py_XDECREF(o.line_obj);
    if (r <= 0) {
        Py_DECREF(o.list);
        if (r < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    return o.list;
}

static PyMethodDef methods[] = {
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native_scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_scan(void)
{
    for (int k = 0; k < NTYPES; ++k)
        if (type_str[k] == NULL && (type_str[k] = PyUnicode_InternFromString(TYPE_NAMES[k])) == NULL)
            return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0 ||
                      PyModule_AddStringConstant(m, "PATTERN", PATTERN) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
