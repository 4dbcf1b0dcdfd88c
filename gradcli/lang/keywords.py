"""GradScript's keywords, once: the syntax errors (block headers, statement starts, reserved words),
the builder (what an unsupported keyword is), the highlighter, completion and the REPL's
continuation rule all read these tables. The grammar's terminal of a keyword is its upper-case
spelling (IF, TRY, ...)."""
from __future__ import annotations

# the words that open a block, and how CPython names the statement in its errors
# ("expected an indented block after 'try' statement on line 3")
BLOCK_HEADERS = {
    "if": "'if' statement", "elif": "'elif' statement", "else": "'else' statement",
    "while": "'while' statement", "for": "'for' statement", "with": "'with' statement",
    "def": "function definition", "class": "class definition", "try": "'try' statement",
    "except": "'except' statement", "finally": "'finally' statement",
}
# block headers that continue the statement above them instead of starting one
CONTINUATION_HEADERS = ("elif", "else", "except", "finally")
# the words that start a simple or compound statement
STATEMENT_KEYWORDS = ("if", "for", "while", "with", "def", "class", "try", "return", "pass", "break",
                      "continue", "import", "from", "assert", "del", "global", "nonlocal", "raise", "yield")
# Python keywords that GradScript does not have: the grammar reserves them (a clear error instead
# of a confusing one); the value says what the subset leaves out
RESERVED = {"async": "async code", "await": "async code"}
OPERATOR_KEYWORDS = ("and", "as", "in", "is", "lambda", "not", "or")
CONSTANTS = ("True", "False", "None")
# every keyword of the language (highlighting, completion)
KEYWORDS = tuple(sorted(set(BLOCK_HEADERS) | set(STATEMENT_KEYWORDS) | set(OPERATOR_KEYWORDS)))


def terminals(words):
    """The grammar's terminal names of these keywords."""
    return {w.upper() for w in words}


__all__ = ["BLOCK_HEADERS", "CONTINUATION_HEADERS", "STATEMENT_KEYWORDS", "RESERVED", "OPERATOR_KEYWORDS",
           "CONSTANTS", "KEYWORDS", "terminals"]
