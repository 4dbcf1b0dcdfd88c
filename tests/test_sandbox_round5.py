"""Red team, fifth round (docs/robustness.md, "The sandbox"): what reaches gradcli from outside the
script (its parse-table cache on disk, which a shared temporary folder or a restored CI cache can
hold another's file in), and what a script reaches by the newer doors. Each attack ends in a clean
located error of the script (exit 1), in what Python with PyTorch prints, or in nothing at all
(a planted file's code never runs); never a traceback, an internal error or a lost limit."""
from __future__ import annotations

import marshal
import os
import pickle
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from case_support import refused_script, run_script

from gradcli.lang import grammar, lalr, parser
from gradcli.lang.builder import BUILDER

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import torch\nimport torch.nn as nn\n"

run = partial(run_script, HEAD, "round5.grad")
refused = partial(refused_script, HEAD, "round5.grad")


def fresh_python(code, env, cwd=ROOT):
    full = {**os.environ, **env, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, cwd=cwd,
                          timeout=300)


# ---------------------------------------------------------------- the parse-table cache on disk

class _Planted:
    """What a planted pickle does when it is loaded: make a folder (a stand-in for any code)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


PARSE = "import sys\nfrom gradcli.lang.parser import parse\nprint(parse('x = 1\\n').body[0].targets[0].id)\n"


def test_a_planted_pickle_in_the_cache_folder_runs_no_code(tmp_path, monkeypatch):
    # Lark's own cache (cache=PATH) is `pickle.load`ed before any check: a file at that path in
    # $XDG_CACHE_HOME/gradcli (or a temporary folder's gradcli-UID) ran its code at the next start-up
    # whose table cache was cold. gradcli no longer uses Lark's cache at all.
    cache = tmp_path / "xdg"
    (cache / "gradcli").mkdir(parents=True, mode=0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    stem = parser.tables_file(grammar.text()).split("-tables-")[0]
    assert stem.startswith(str(cache / "gradcli" / "gradscript-")), stem
    marker = tmp_path / "ran"
    Path(stem + ".cache").write_bytes(b"x\n" + pickle.dumps(_Planted(str(marker))))  # Lark's cache's name
    result = fresh_python(PARSE, {"XDG_CACHE_HOME": str(cache)})
    assert result.stdout.split() == ["x"], result.stderr
    assert not marker.exists()
    assert list((cache / "gradcli").glob("*-tables-*.marshal"))  # gradcli's own cache: written


def test_a_cache_folder_others_may_write_in_is_not_used(tmp_path, monkeypatch):
    # /tmp/gradcli-UID made first by another user (or a group-writable cache folder): a file they
    # put there would be this user's parse tables
    shared = tmp_path / "shared"
    (shared / "gradcli").mkdir(parents=True)
    os.chmod(shared / "gradcli", 0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    name = parser.tables_file(grammar.text())
    assert name is None or not name.startswith(str(shared)), name
    os.chmod(shared / "gradcli", 0o700)
    assert parser.tables_file(grammar.text()).startswith(str(shared / "gradcli"))


@pytest.mark.parametrize("name", ["__init__", "__setattr__", "__class__", "__reduce_ex__", "_private"])
def test_cached_callback_names_bind_no_private_attribute_of_the_builder(name):
    # the table file names each rule's callback; getattr(BUILDER, name) of a poisoned file's
    # '__setattr__' made every reduction of that rule set attributes of the builder
    made = lalr._callback(BUILDER, name)
    assert made.func.__name__ == "Tree" and made.args == (name,)
    assert lalr._callback(BUILDER, "pass_stmt") == BUILDER.pass_stmt


@pytest.mark.parametrize("content", [
    marshal.dumps({"scan": {}, "lalr": {"rules": [(1, "x", "__setattr__", None, False, False)]}, "keywords": {}}),
    b"\xe3garbage",
], ids=["hostile-callback", "garbage"])
def test_a_damaged_or_hostile_table_file_is_built_again(tmp_path, monkeypatch, content):
    cache = tmp_path / "xdg"
    (cache / "gradcli").mkdir(parents=True, mode=0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    name = parser.tables_file(grammar.text())
    Path(name).write_bytes(content)
    result = fresh_python(PARSE, {"XDG_CACHE_HOME": str(cache)})
    assert result.stdout.split() == ["x"] and result.stderr == "", result.stderr
    assert Path(name).read_bytes() != content  # written again, good
