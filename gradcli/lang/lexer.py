"""A Pygments lexer for GradScript, for the REPL's syntax highlighting and for source lines in
error panels.

Only Pygments is needed (Rich depends on it, so it is always installed); prompt_toolkit is not.
The token classes are the standard Pygments ones, so any Pygments style (and Rich's
``Syntax``) colours GradScript like Python, with the torch-shaped namespaces and ``grad_fn``
node names picked out:

    >>> from gradcli.lang.lexer import GradScriptLexer
    >>> from pygments import lex
    >>> [t for t in lex("y = x ** 2", GradScriptLexer()) if t[1].strip()][:3]  # doctest: +SKIP
"""
from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String, Text,
                            Whitespace)

from .parser import keyword_tables

__all__ = ["GradScriptLexer", "KEYWORDS", "BUILTINS", "NAMESPACES"]

BUILTINS = (
    "abs", "all", "any", "bool", "enumerate", "float", "int", "isinstance", "len", "list", "max", "min",
    "print", "range", "reversed", "round", "sorted", "str", "sum", "super", "tuple", "zip", "dict", "set",
    "map", "filter", "type", "callable", "divmod", "pow",
)
# the grammar's keywords (lang/keywords.py) and constants
KEYWORDS = keyword_tables().keywords
_CONSTANTS = keyword_tables().constants
# the namespaces a script binds with `import torch`, `import torch.nn as nn`, ...
NAMESPACES = ("torch", "nn", "F", "np", "optim", "autograd", "functional")

_NUMBER = (r"(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|"
           r"(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][-+]?\d(?:_?\d)*)?[jJ]?)")


class GradScriptLexer(RegexLexer):
    """GradScript: a safe, PyTorch-flavoured subset of Python (``.grad`` files)."""

    name = "GradScript"
    aliases = ["gradscript", "grad"]
    filenames = ["*.grad"]
    mimetypes = ["text/x-gradscript"]
    url = "https://github.com/gradcli/gradcli"

    tokens = {
        "root": [
            (r"\n", Whitespace),
            (r"[^\S\n]+", Whitespace),
            (r"\\\n", Text),
            (r"#.*$", Comment.Single),
            include("strings"),
            (words(("def",), suffix=r"\b"), Keyword, "funcname"),
            (words(("class",), suffix=r"\b"), Keyword, "classname"),
            (words(("import", "from"), suffix=r"\b"), Keyword.Namespace),
            (words(KEYWORDS, suffix=r"\b"), Keyword),
            (words(_CONSTANTS, suffix=r"\b"), Keyword.Constant),
            # grad_fn node names as they print: <MulBackward0 object at 0x...>
            (r"\b(?:[A-Z]\w*Backward\d*|AccumulateGrad)\b", Name.Class),
            # attribute access: .requires_grad, .backward
            (r"(\.)([^\W\d]\w*)", bygroups(Operator, Name.Attribute)),
            (words(NAMESPACES, prefix=r"(?<![\w.])", suffix=r"\b"), Name.Namespace),
            (words(BUILTINS, prefix=r"(?<![\w.])", suffix=r"\b"), Name.Builtin),
            (r"\bself\b", Name.Builtin.Pseudo),
            (_NUMBER, Number),
            (r"\.\.\.", Keyword.Constant),
            (r"\*\*=?|//=?|->|:=|<<=?|>>=?|[-+*/%@&|^]=?|[<>]=?|[!=]=|~", Operator),
            (r"=", Operator),
            (r"[()\[\]{},:;.]", Punctuation),
            (r"[^\W\d]\w*", Name),
            (r".", Text),
        ],
        "funcname": [
            (r"[^\S\n]+", Whitespace),
            (r"[^\W\d]\w*", Name.Function, "#pop"),
            (r"", Text, "#pop"),
        ],
        "classname": [
            (r"[^\S\n]+", Whitespace),
            (r"[^\W\d]\w*", Name.Class, "#pop"),
            (r"", Text, "#pop"),
        ],
        "strings": [
            (r'(?i)(?:[rubf]|rb|br|rf|fr)?"""(?:[^"\\]|\\.|"(?!""))*(?:"""|\Z)', String.Doc),
            (r"(?i)(?:[rubf]|rb|br|rf|fr)?'''(?:[^'\\]|\\.|'(?!''))*(?:'''|\Z)", String.Doc),
            (r'(?i)(?:[rubf]|rb|br|rf|fr)?"(?:[^"\\\n]|\\.)*"?', String.Double),
            (r"(?i)(?:[rubf]|rb|br|rf|fr)?'(?:[^'\\\n]|\\.)*'?", String.Single),
        ],
    }

    def analyse_text(text):  # noqa: N805 - Pygments calls it unbound
        score = 0.0
        if "import torch" in text:
            score += 0.3
        if ".backward(" in text or "requires_grad" in text:
            score += 0.2
        return score
