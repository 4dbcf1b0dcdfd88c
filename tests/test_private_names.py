"""No private name crosses a module boundary inside gradcli/: a name one module uses from another
is public (no leading underscore), except the few listed in ALLOWED, each with why. An AST walk of
every module finds `from M import _x` and `M._x` (M a gradcli module) in any module other than M."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (module, name): why it stays private although another module uses it (at most about ten)
ALLOWED = {
    ("gradcli.engine.nn.init", "_calculate_fan_in_and_fan_out"):
        "torch's own private helper, which nn.Linear and nn.Bilinear call as torch does; nn.init is "
        "a module scripts see (torch.nn.init), where a public name would be one torch does not have",
    ("gradcli.engine.nn.modules_layers", "_BatchNorm"):
        "torch's own private base class (torch.nn.modules.batchnorm._BatchNorm), which _InstanceNorm subclasses "
        "as in torch; its name is what a class's __mro__ shows",
}


def module_name(path: Path, root: Path) -> str:
    """gradcli/engine/ops/shape.py -> gradcli.engine.ops.shape (a package: its own name). tests/test_layers.py too."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def resolve(current: str, is_package: bool, level: int, module: str | None) -> str:
    """The module a `from ... import` names, relative levels resolved from the current module."""
    if level == 0:
        return module or ""
    base = current.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def cross_module_private_uses(root: Path) -> set:
    """{(user module, (module, name))} for every private name a gradcli module takes from another."""
    paths = sorted((root / "gradcli").rglob("*.py"))
    modules = {module_name(p, root) for p in paths}
    found = set()
    for path in paths:
        current, is_package = module_name(path, root), path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {}  # local name -> the gradcli module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = resolve(current, is_package, node.level, node.module)
                if not source.startswith("gradcli"):
                    continue
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:
                        aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                    elif _private(alias.name) and source != current:
                        found.add((current, (source, alias.name)))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("gradcli") and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _private(node.attr):
                source = aliases.get(node.value.id)
                if source is not None and source != current:
                    found.add((current, (source, node.attr)))
    return found


def test_no_private_name_crosses_a_module_boundary():
    uses = cross_module_private_uses(ROOT)
    unexplained = sorted(f"{user}: {module}.{name}" for user, (module, name) in uses
                         if (module, name) not in ALLOWED)
    assert not unexplained, ("private names used across modules (give them a public name, or move the "
                             "code; ALLOWED lists the few exceptions with why):\n" + "\n".join(unexplained))


def test_the_allowed_set_is_small_and_used():
    assert len(ALLOWED) <= 10
    used = {pair for _, pair in cross_module_private_uses(ROOT)}
    assert set(ALLOWED) <= used, "an ALLOWED entry no module needs any more: remove it"
    assert all(why.strip() for why in ALLOWED.values())


def test_the_walk_finds_both_forms(tmp_path):
    pkg = tmp_path / "gradcli"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("_hidden = 1\n_other = 2\nshown = _hidden\n")
    (pkg / "sub" / "b.py").write_text("from .a import _hidden, shown\nfrom . import a as A\n"
                                      "from ..sub import a\nx = A._other + a._other + a.__name__.__len__()\n")
    (pkg / "c.py").write_text("import gradcli.sub.a as deep\ny = deep._hidden\n")
    assert cross_module_private_uses(tmp_path) == {
        ("gradcli.sub.b", ("gradcli.sub.a", "_hidden")), ("gradcli.sub.b", ("gradcli.sub.a", "_other")),
        ("gradcli.c", ("gradcli.sub.a", "_hidden"))}
