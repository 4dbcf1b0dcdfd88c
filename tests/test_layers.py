"""The layers of the package (docs/architecture.md): each subpackage of gradcli/ imports only the
layers below it, so the stages stay one way (parser -> AST -> compiler -> engine -> renderer) and the
engine knows nothing of the language, the graph tools, the renderers or the command line. An AST
walk of every module finds every import, those inside functions (the lazy ones) included."""
from __future__ import annotations

import ast
from pathlib import Path

from test_private_names import module_name, resolve

ROOT = Path(__file__).resolve().parent.parent

# The modules at the top of the package that every layer may use: no layer of their own (native: the
# optional C extensions' loader, gradcli/native.py; record_inits: records.py's generated __init__s).
SHARED = {"records", "record_inits", "pycompat", "gcpolicy", "native"}

# subpackage (or top-level module) -> the layers it may import, with why
ALLOWED = {
    # the engine and the optional MKL slots it asks (backend.py loads engine/mkl_backend.py on first use)
    "engine": {"backend"},
    "backend": {"engine"},
    # how values, errors and tables look: reads the engine's tensors, nothing of the language
    "render": {"engine"},
    # the engine's instrumentation (graph views, --explain, --check, anomaly mode): observers of the
    # engine, drawn with render's helpers; nothing of the language (a node's site is an opaque handle)
    "graph": {"engine", "render", "backend"},
    # the language: compiles onto the engine; its runner attaches graph's observers when RunOptions
    # ask for --explain/--check/--detect-anomaly (graph.hooks); it renders nothing itself
    "lang": {"engine", "graph", "backend"},
    # the front ends: the command line, the REPL and `gradcli test` drive everything below; they share
    # the process wall (cli/isolate.py, cli/common.py) and the REPL's help text, so they may import
    # each other
    "repl": {"engine", "graph", "lang", "render", "cli", "backend"},
    "testing": {"engine", "graph", "lang", "render", "cli", "backend"},
    "cli": {"engine", "graph", "lang", "render", "repl", "testing", "backend"},
    "__main__": {"cli"},
}


def layer_of(module: str) -> str | None:
    """gradcli.engine.ops.shape -> 'engine'; gradcli.records -> 'records'; gradcli itself -> None."""
    parts = module.split(".")
    if parts[0] != "gradcli" or len(parts) < 2:
        return None
    return parts[1]


def imports_between_layers(root: Path) -> set:
    """{(importing module, imported module)} for every import of one gradcli layer by another (a name
    that is no module, such as `from gradcli import __version__`, is the package's, of no layer)."""
    paths = sorted((root / "gradcli").rglob("*.py"))
    modules = {module_name(p, root) for p in paths}
    found = set()
    for path in paths:
        current, is_package = module_name(path, root), path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                source = resolve(current, is_package, node.level, node.module)
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                theirs = layer_of(target)
                if theirs is not None and theirs != layer_of(current):
                    found.add((current, target))
    return found


def test_each_layer_imports_only_the_layers_below_it():
    wrong = []
    for user, target in sorted(imports_between_layers(ROOT)):
        mine, theirs = layer_of(user), layer_of(target)
        if theirs in SHARED:
            continue
        if mine in SHARED:
            wrong.append(f"{user} -> {target} (the shared modules import no layer)")
        elif theirs not in ALLOWED.get(mine, set()):
            wrong.append(f"{user} -> {target}")
    assert not wrong, "imports against the layering (tests/test_layers.py ALLOWED says who may import whom):\n" + \
        "\n".join(wrong)


def test_every_layer_is_known():
    layers = {layer_of(module_name(p, ROOT)) for p in (ROOT / "gradcli").rglob("*.py")} - {None}
    assert layers <= set(ALLOWED) | SHARED, layers - set(ALLOWED) - SHARED


def test_the_engine_knows_nothing_of_the_language():
    engine = {t for u, t in imports_between_layers(ROOT) if layer_of(u) == "engine"}
    assert not {layer_of(t) for t in engine} & {"lang", "graph", "render", "cli", "repl", "testing"}


def test_the_walk_finds_every_form(tmp_path):
    pkg = tmp_path / "gradcli"
    for sub in ("engine", "lang"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "lang" / "a.py").write_text("x = 1\n")
    (pkg / "engine" / "b.py").write_text(
        "from ..lang import a\nfrom gradcli.lang.a import x\nimport gradcli.lang.a\n"
        "def f():\n    from .. import lang\n    from . import c\n")
    assert imports_between_layers(tmp_path) == {
        ("gradcli.engine.b", "gradcli.lang"), ("gradcli.engine.b", "gradcli.lang.a")}
