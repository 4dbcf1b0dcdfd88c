"""ruff, configured in pyproject.toml ([tool.ruff]: target-version py310, the rule families and the
3.11+ standard-library APIs banned without a fallback), finds nothing; vulture ([tool.vulture], with
tools/vulture_whitelist.py for the names reached by name) finds no dead code. .ci/run runs both
too, before the tests; here they run with the suite wherever they are installed
(`pip install '.[dev]'`)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff():
    try:
        import ruff  # noqa: F401 - the wheel's package, which finds its binary
    except ImportError:
        return [shutil.which("ruff")] if shutil.which("ruff") else None
    return [sys.executable, "-m", "ruff"]


def test_ruff_finds_nothing():
    command = _ruff()
    if command is None:
        pytest.skip("ruff is not installed (pip install '.[dev]')")
    proc = subprocess.run([*command, "check", "--output-format", "concise", "--no-cache", str(ROOT)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_reports_a_311_only_api(tmp_path):
    """The check catches what it is there for: tomllib without a fallback, except*, ExceptionGroup."""
    command = _ruff()
    if command is None:
        pytest.skip("ruff is not installed (pip install '.[dev]')")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "new.py").write_text("import tomllib\n\ntry:\n    pass\nexcept* ValueError:\n    raise ExceptionGroup('x', [])\n")
    proc = subprocess.run([*command, "check", "--output-format", "concise", "--no-cache", "new.py"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1
    assert "TID251" in proc.stdout and "except*" in proc.stdout and "ExceptionGroup" in proc.stdout, proc.stdout


def _vulture():
    try:
        import vulture  # noqa: F401 - only whether it is installed
    except ImportError:
        return None
    return [sys.executable, "-m", "vulture"]


def test_vulture_finds_no_dead_code():
    command = _vulture()
    if command is None:
        pytest.skip("vulture is not installed (pip install '.[dev]')")
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, ("dead code: remove it, or list it in tools/vulture_whitelist.py (with why) if "
                                  "something reaches it by name\n" + proc.stdout + proc.stderr)


def test_vulture_reports_a_dead_function(tmp_path):
    """The configuration catches what it is there for: a function nothing calls, an unused import."""
    command = _vulture()
    if command is None:
        pytest.skip("vulture is not installed (pip install '.[dev]')")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "vulture_whitelist.py").write_text("")
    (tmp_path / "gradcli").mkdir()
    (tmp_path / "gradcli" / "m.py").write_text("import os\n\n\ndef dead():\n    return 1\n\n\n"
                                               "def s_lowered():\n    return 2\n")
    proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "unused function 'dead'" in proc.stdout and "unused import 'os'" in proc.stdout, proc.stdout
    assert "s_lowered" not in proc.stdout  # the compiler's lowerings are ignored by pattern


def test_vulture_whitelist_names_exist():
    """Every name tools/vulture_whitelist.py keeps is still defined somewhere in gradcli/: a stale
    entry would hide the next dead definition of that name."""
    import re  # noqa: PLC0415

    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "gradcli").rglob("*.py"))
    whitelist = (ROOT / "tools" / "vulture_whitelist.py").read_text(encoding="utf-8")
    names = re.findall(r"^(?:_\.)?(\w+)$", whitelist, re.M)
    assert len(names) > 100
    missing = [n for n in names if not re.search(r"(?:def |class |\b)%s\b\s*[=(:,)]" % re.escape(n), source)]
    assert not missing, f"names no longer in gradcli/, to remove from the whitelist: {missing}"
