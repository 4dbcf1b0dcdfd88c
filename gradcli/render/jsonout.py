"""The ``--json`` document (schema ``gradcli/1``, described by ``schema.json`` next to this file).

One document per invocation, always strict JSON (``allow_nan=False``): NaN and infinities are
the strings "NaN", "Infinity" and "-Infinity".

A run of one input (``run FILE``, ``run -``, ``run -e CODE``, ``grad``)::

    {"schema": "gradcli/1", "command": "run", "file": "x.grad", "ok": true, "exit_code": 0,
     "outputs": [{"text": "tensor(17., grad_fn=<AddBackward0>)\\n", "line": 9}],
     "tensors": {"w": {"shape": [], "dtype": "float32", "device": "cpu", "requires_grad": true,
                       "is_leaf": true, "grad_fn": null, "value": 4.0, "grad": 3.0}},
     "error": null, "warnings": []}

Several files: ``{"schema": "gradcli/1", "command": "run", "ok": ..., "exit_code": ..., "runs": [...]}``
with one run document per file, in order.
"""
from __future__ import annotations

import math

from .tensors import NAN, NEG_INF, POS_INF

# `json` is imported where a document is written: a run without --json only builds error records
# here, and start-up time is part of the product

SCHEMA_VERSION = "gradcli/1"


def sanitize(obj):
    """A copy of obj where every non-finite float is a string and tuples are lists."""
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        return NAN if math.isnan(obj) else (POS_INF if obj > 0 else NEG_INF)
    if isinstance(obj, dict):
        return {str(k): sanitize(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [sanitize(v) for v in obj]
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    return str(obj)


def dumps(doc) -> str:
    """Strict JSON, indented by object; lists without objects inside (shapes, tensor values) stay
    on one line."""
    import json  # noqa: PLC0415 - see above

    text = _format(sanitize(doc), 0, json)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _escape_surrogates(text)
    return text


def _escape_surrogates(text: str) -> str:
    """Lone surrogates (a script's '\\ud800', a file name's undecodable bytes) as JSON escapes: the
    document stays valid UTF-8 and strict JSON, and says which code unit it was."""
    return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def _format(obj, level: int, json) -> str:
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_format(v, level + 1, json)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and any(isinstance(v, (dict, list)) and _has_dict(v) for v in obj):
        items = [f"{inner}{_format(v, level + 1, json)}" for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def _has_dict(obj) -> bool:
    if isinstance(obj, dict):
        return True
    return isinstance(obj, list) and any(_has_dict(v) for v in obj)


def error_json(err, filename=None):
    """A located error (a GradScriptError or an error in its shape, as print_error takes) as JSON."""
    if err is None:
        return None
    return {"type": err.type_name, "message": str(err.message), "file": err.filename or filename, "line": err.line,
            "column": err.column, "end_line": err.end_line, "end_column": err.end_column, "hint": err.hint}


def simple_error(type_name, message, filename=None, hint=None):
    """An error without a source location (usage, internal, interrupt)."""
    return {"type": type_name, "message": message, "file": filename, "line": None, "column": None,
            "end_line": None, "end_column": None, "hint": hint}


def output_json(o):
    if isinstance(o, dict):
        return {"text": str(o.get("text", "")), "line": o.get("line")}
    if isinstance(o, tuple):
        return {"text": str(o[0]), "line": o[1] if len(o) > 1 else None}
    return {"text": getattr(o, "text", str(o)), "line": getattr(o, "line", None)}


def run_doc(*, command="run", filename=None, exit_code=0, outputs=(), tensors=None, error=None, warnings=(),
            extra=None):
    """A run document from already-converted parts (error: a dict from error_json/simple_error)."""
    doc = {
        "schema": SCHEMA_VERSION,
        "command": command,
        "file": filename,
        "ok": exit_code == 0,
        "exit_code": exit_code,
        "outputs": [output_json(o) for o in outputs],
        "tensors": tensors or {},
        "error": error,
        "warnings": list(warnings),
    }
    if extra:
        doc.update(extra)
    return doc


def multi_doc(runs, exit_code, command="run"):
    return {"schema": SCHEMA_VERSION, "command": command, "ok": exit_code == 0, "exit_code": exit_code,
            "runs": list(runs)}


DOCUMENTS = {"gradcli/1": "gradcli-1", "gradcli-test/1": "gradcli-test-1", "graph": "gradcli-graph-1"}


def schema(document: str | None = "gradcli/1"):
    """The JSON Schema (draft 2020-12) of one of gradcli's documents, from the one schema file
    (``schema.json``, one ``$defs`` entry per document, each with its own ``$id``): ``"gradcli/1"``
    (`run`/`grad --json`), ``"gradcli-test/1"`` (`test --json`), ``"graph"`` (`graph --format json`);
    None: the whole file (any of them)."""
    import json  # noqa: PLC0415
    from importlib import resources  # noqa: PLC0415

    whole = json.loads(resources.files(__package__).joinpath("schema.json").read_text(encoding="utf-8"))
    if document is None:
        return whole
    return {"$schema": whole["$schema"], **whole["$defs"][DOCUMENTS[document]]}
