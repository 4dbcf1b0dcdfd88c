"""The '_' names a script's own classes may use, as the engine sees them (gradcli/lang/private.py is the
language's side: which attribute reads and writes of a script reach them).

A class the script defined carries ``_gradscript_class`` in its namespace. A ``_name`` is the
engine's when a class of the MRO that is not the script's defines it or keeps it in its instances
(``keeps``) and does not open it to subclasses (``opens``: nn.Module's _load_from_state_dict), or when
it is one of ``ENGINE_PRIVATE`` or starts with a reserved prefix; any other ``_name`` on an instance of a script's
class is the script's (nn.Module's register_parameter, register_buffer and add_module take it, as torch
does).
An instance records the '_names' the script gave it (``RECORD``, a dunder key of its ``__dict__``: no script
reaches it, copy.deepcopy copies it), so that what an engine base stored in it (nn.RNN's
``_flat_weights_names``, nn.MultiheadAttention's ``_qkv_same_embed_dim``) stays the engine's.
"""
from __future__ import annotations

# the '_' names reserved on every object of the script, each with why: engine code reads them by string on
# objects it is handed without asking their type first (tests/test_script_private.py scans gradcli's source for
# getattr/hasattr/__dict__ uses of '_' names: each is one of these, one an engine class keeps (``keeps``), or
# one the test lists as read only on gradcli's own objects)
ENGINE_PRIVATE = {
    "_rg": "the ops read getattr(operand, '_rg', False) on their operands in the hot path (does it require grad?)",
}
RESERVED_PREFIXES = ("_gs_", "_gradcli", "_gradscript")


def is_script_class(cls):
    return "_gradscript_class" in getattr(cls, "__dict__", {})


# engine class -> the '_' names its code keeps in its instances (or its class) by string: reserved on a script
# class that derives from it (nn.Module's stores and the hook dicts it makes lazily, ParameterList's _size)
_KEPT = {}


def keeps(*names):
    """Class decorator: the engine class keeps ``names`` in its instances (a script subclass may not use them,
    not even before ``super().__init__()`` made them)."""
    def mark(cls):
        _KEPT[cls] = frozenset(names)
        return cls
    return mark


# engine class -> its '_' methods and class attributes that torch calls on a subclass, which a subclass
# overrides (nn.Module's _save_to_state_dict, _load_from_state_dict, _get_name, _version): a script's may too
_OPEN = {}


def opens(*names):
    """Class decorator: ``names`` are extension points of the engine class (a script's subclass defines,
    reads and calls them, ``super()._load_from_state_dict(...)`` included)."""
    def mark(cls):
        _OPEN[cls] = frozenset(names)
        return cls
    return mark


def opened(cls, name):
    """Whether ``name`` is an extension point the engine class ``cls`` opens to the script's subclasses."""
    return name in _OPEN.get(cls, ())


def kept_names():
    """Every name an engine class keeps (for the test that scans the engine's string lookups)."""
    return frozenset().union(*_KEPT.values())


def engine_owner(cls, name):
    """The class outside the script that defines or keeps ``name`` along cls's MRO, True for gradcli's
    reserved names, or None (the name may be the script's)."""
    for c in cls.__mro__:
        if (name in c.__dict__ or name in _KEPT.get(c, ())) and not is_script_class(c):
            return None if opened(c, name) else c
    if name in ENGINE_PRIVATE or name.startswith(RESERVED_PREFIXES):
        return True
    return None


RECORD = "__gradscript_private__"
_STORES = ("_parameters", "_buffers", "_modules")  # nn.Module's: its __getattr__ answers from them


def engine_holds(obj, name):
    """Whether the instance holds ``name`` without the script having given it (an engine base's own)."""
    d = getattr(obj, "__dict__", {})
    if name in d.get(RECORD, ()):
        return False
    if name in d:
        return True
    return any(isinstance(d.get(store), dict) and name in d[store] for store in _STORES)


def script_owns(obj, name):
    """Whether ``name`` ('_name', no dunder) may be a name of ``obj``, an instance of a script's class."""
    cls = type(obj)
    return (name[:2] != "__" or name[-2:] != "__") and any(is_script_class(c) for c in cls.__mro__) \
        and engine_owner(cls, name) is None and not engine_holds(obj, name)


def claim(obj, name):
    """Give ``name`` to the script on ``obj`` (it sets it, registers a parameter, buffer or module under
    it) when script_owns allows it; whether it did."""
    if not script_owns(obj, name):
        return False
    d = obj.__dict__
    names = d.get(RECORD)
    if names is None:
        names = d[RECORD] = set()
    names.add(name)
    return True


__all__ = ["ENGINE_PRIVATE", "RESERVED_PREFIXES", "RECORD", "is_script_class", "keeps", "kept_names", "opens",
           "opened", "engine_owner", "engine_holds", "script_owns", "claim"]
