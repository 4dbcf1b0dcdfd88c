"""Tab completion for the REPL: names in scope, `torch.` / `nn.` / `F.` members, tensor methods and
attributes.  Only public names (never one starting with '_'); nothing is evaluated: a dotted
prefix is resolved by looking names up and reading attributes, never by calling anything.

The session's own ``Session.complete(prefix)`` is asked first when it exists; this module's
lookup over the session's variables and the engine's namespaces fills in (and stands in while
the session has none).  prompt_toolkit is imported only by :func:`make_completer`.
"""
from __future__ import annotations

import re
import types
import warnings
from typing import Any, Callable, Iterable, Mapping


__all__ = ["complete", "split_prefix", "public_attributes", "make_completer"]

_DOTTED = re.compile(r"((?:[^\W\d]\w*\s*\.\s*)*)([^\W\d]\w*)?$")
_CONSTANTS = ("True", "False", "None")
_ROOT_ALIASES = {
    "torch": ("torch",),
    "nn": ("torch", "nn"),
    "F": ("torch", "nn", "functional"),
    "optim": ("torch", "optim"),
    "autograd": ("torch", "autograd"),
}


def split_prefix(text: str) -> tuple[list[str], str]:
    """The dotted expression being typed at the end of ``text``: (['x', 'grad'], 'ze') for
    'y = x.grad.ze'.  An empty partial means "everything"."""
    match = _DOTTED.search(text)
    if match is None:
        return [], ""
    path = [p.strip() for p in match.group(1).split(".") if p.strip()]
    partial = match.group(2) or ""
    start = match.start()
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.'\")]}"):
        # after a call, an index or a string: `f(x).re` - not something we can resolve without running it
        if path or text[start - 1] == ".":
            return ["<unresolvable>"], partial
    return path, partial


def _engine_root(name: str) -> Any:
    """A namespace of the engine by the name scripts give it (`torch`, `nn`, `F`, ...), or None."""
    try:
        from ..engine import api as torch  # noqa: PLC0415
    except Exception:  # pragma: no cover - the engine is part of the package
        return None
    obj: Any = torch
    for part in _ROOT_ALIASES.get(name, (None,))[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj if name in _ROOT_ALIASES else None


# grad_fn objects: the attributes PyTorch's nodes have (the engine's own methods stay hidden)
_NODE_ATTRIBUTES = ("name", "next_functions", "metadata", "register_hook", "register_prehook", "variable")


def public_attributes(obj: Any) -> list[str]:
    """The public attribute names of an object, as a user of the namespace would see them."""
    names = set()
    try:
        from ..engine.autograd import Node  # noqa: PLC0415
    except Exception:  # pragma: no cover
        Node = ()  # noqa: N806
    if Node and isinstance(obj, Node):
        return sorted(n for n in _NODE_ATTRIBUTES if hasattr(obj, n))
    try:
        candidates = dir(obj)
    except Exception:
        return []
    is_namespace = isinstance(obj, (types.ModuleType, types.SimpleNamespace))
    for name in candidates:
        if name.startswith("_"):
            continue
        if is_namespace:
            try:
                value = getattr(obj, name)
            except Exception:
                continue
            # a module's own imports (`types`, `annotations`) are not torch's members
            if isinstance(value, types.ModuleType) or type(value).__name__ == "_Feature":
                continue
            if value is None and name[0].isupper():
                continue  # placeholders such as FloatTensor = None
        names.add(name)
    return sorted(names)


def _is_node(obj: Any) -> bool:
    try:
        from ..engine.autograd import Node  # noqa: PLC0415
    except Exception:  # pragma: no cover
        return False
    return isinstance(obj, Node)


def _resolve(path: list[str], scope: Mapping[str, Any]) -> Any:
    if not path or path[0] == "<unresolvable>":
        raise LookupError
    head = path[0]
    if head in scope:
        obj = scope[head]
    else:
        obj = _engine_root(head)
        if obj is None:
            raise LookupError(head)
    for part in path[1:]:
        if part.startswith("_"):
            raise LookupError(part)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                obj = getattr(obj, part)
            except Exception as exc:
                raise LookupError(part) from exc
    return obj


def complete(text: str, scope: Mapping[str, Any], session_complete: Callable[[str], Iterable[str]] | None = None
             ) -> tuple[str, list[str]]:
    """Completions for the end of ``text`` (the input up to the cursor).

    Returns ``(partial, candidates)``: the word being completed (what the candidates replace)
    and the full replacement words, sorted, public only.
    """
    path, partial = split_prefix(text)
    found: set[str] = set()
    if session_complete is not None:
        dotted = ".".join(path + [partial]) if path else partial
        try:
            for item in session_complete(dotted) or ():
                item = str(item)
                word = item.rsplit(".", 1)[-1] if "." in item else item
                if word.startswith(partial) and not word.startswith("_"):
                    found.add(word)
        except Exception:
            pass
    if path:
        try:
            obj = _resolve(path, scope)
        except LookupError:
            pass
        else:
            mine = [n for n in public_attributes(obj) if n.startswith(partial)]
            if _is_node(obj):   # a grad_fn: torch's attributes only, not the engine's methods
                found = set(mine)
            else:
                found.update(mine)
    else:
        from ..lang.lexer import BUILTINS, KEYWORDS  # noqa: PLC0415 - Pygments' (not before the first prompt)

        pool = set(scope) | set(KEYWORDS) | set(BUILTINS) | set(_CONSTANTS) | set(_ROOT_ALIASES)
        if partial:
            torch = _engine_root("torch")
            if torch is not None:   # every torch.X is reachable by its bare name
                pool.update(public_attributes(torch))
        # a script's own names may start with '_' (`_grad_out`): offered once the prefix does
        found.update(n for n in pool if n.startswith(partial) and (partial.startswith("_") or not n.startswith("_")))
    return partial, sorted(found, key=lambda n: (n.lower(), n))


def make_completer(scope_getter: Callable[[], Mapping[str, Any]],
                   session_complete_getter: Callable[[], Callable[[str], Iterable[str]] | None],
                   ask: Callable[[str], tuple[str, list[str]]] | None = None):
    """A prompt_toolkit Completer over :func:`complete` (imports prompt_toolkit); ``ask(text)``,
    where given, answers instead (the REPL's child process, which holds the values)."""
    from prompt_toolkit.completion import Completer, Completion  # noqa: PLC0415

    class GradScriptCompleter(Completer):
        def get_completions(self, document, complete_event):
            before = document.text_before_cursor
            if not before.strip() or before.lstrip().startswith(":") or _in_string_or_comment(before):
                return
            if ask is not None:
                partial, words = ask(before)
            else:
                partial, words = complete(before, scope_getter(), session_complete_getter())
            for word in words:
                yield Completion(word, start_position=-len(partial))

    return GradScriptCompleter()


def _in_string_or_comment(text: str) -> bool:
    """Whether the end of ``text`` (the current line) is inside a string or a comment."""
    line = text.rsplit("\n", 1)[-1]
    quote = None
    k = 0
    while k < len(line):
        ch = line[k]
        if quote:
            if ch == "\\":
                k += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return True
        k += 1
    return quote is not None
