"""``from __future__ import feature``, as the oracle runs it: torch-echo compiles each top-level statement on
its own (Python's 'single' mode), so such an import is valid anywhere at the top level and changes nothing
for the statements after it (not even ``annotations``: a later class body still evaluates its annotations);
inside a def, class or block it is not at the beginning of its compile unit, a SyntaxError. Python 3 has
every other feature on, so the statement does nothing when it runs. Python binds each name to a
``__future__._Feature``; GradScript binds nothing (printing one is all a script could do with it).
"""
from __future__ import annotations

__all__ = ["FEATURES", "check_future"]

# Python 3.11's __future__.all_feature_names but barry_as_FLUFL (it changes the tokenizer: `<>` for `!=`)
FEATURES = frozenset({"nested_scopes", "generators", "division", "absolute_import", "with_statement",
                      "print_function", "unicode_literals", "generator_stop", "annotations"})


def check_future(compiler, node, scope):
    """Raises the SyntaxError Python's compiler raises for this ``from __future__`` statement. Returns
    None: the statement does nothing when it runs."""
    if scope.kind != "module" or compiler.nesting:
        raise compiler.error(node, "SyntaxError", "from __future__ imports must occur at the beginning of the file")
    for alias in node.names:
        if alias.name == "braces":
            raise compiler.error(alias, "SyntaxError", "not a chance")
        if alias.name == "barry_as_FLUFL":
            raise compiler.error(alias, "SyntaxError", "future feature barry_as_FLUFL is not supported by GradScript")
        if alias.name not in FEATURES:
            raise compiler.error(alias, "SyntaxError", f"future feature {alias.name} is not defined")
    return None
