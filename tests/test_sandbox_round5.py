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


# ---------------------------------------------------------------- --max-elements: ops that grew past it

GROWING = [
    # a size argument
    "torch.histc(torch.ones(3), bins=10 ** 9)",
    "F.interpolate(torch.ones(1, 1, 4), scale_factor=1e9)",
    "F.interpolate(torch.ones(1, 1, 4), size=10 ** 12)",
    "nn.Upsample(scale_factor=1e5)(torch.ones(1, 1, 4, 4))",
    "F.conv_transpose1d(torch.ones(1, 1, 3), torch.ones(1, 1, 1), stride=10 ** 9)",
    "nn.ConvTranspose2d(1, 1, 3, stride=10 ** 5)(torch.ones(1, 1, 3, 3))",
    "F.conv1d(torch.ones(1, 1, 3), torch.ones(1, 1, 1), padding=10 ** 9)",
    "F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 1, 1), padding=10 ** 5)",
    "F.adaptive_avg_pool1d(torch.ones(1, 1, 3), 10 ** 9)",
    "F.adaptive_max_pool2d(torch.ones(1, 1, 3, 3), (10 ** 5, 10 ** 5))",
    "nn.AdaptiveAvgPool2d(10 ** 5)(torch.ones(1, 3, 3))",
    # a tensor of indices times the rows it picks
    "nn.Embedding(1, 10 ** 4)(torch.zeros(10 ** 5, dtype=torch.long))",
    "F.embedding(torch.zeros(10 ** 5, dtype=torch.long), torch.ones(1, 10 ** 4))",
    # broadcasting outside the binary operators
    "torch.masked_select(torch.ones(10 ** 4, 1), torch.ones(1, 10 ** 5, dtype=torch.bool))",
    "torch.take_along_dim(torch.ones(10 ** 4, 1), torch.zeros(1, 10 ** 5, dtype=torch.long), 1)",
    "torch.addcmul(torch.ones(10 ** 4, 1, 1), torch.ones(1, 10 ** 4, 1), torch.ones(1, 1, 10))",
    "torch.addcdiv(torch.ones(10 ** 4, 1, 1), torch.ones(1, 10 ** 4, 1), torch.ones(1, 1, 10))",
    "torch.clamp(torch.ones(10 ** 4, 1), min=torch.zeros(1, 10 ** 5))",
    "torch.ones(10 ** 4, 1).clamp(max=torch.zeros(1, 10 ** 5))",
    "torch.lerp(torch.ones(10 ** 4, 1), torch.ones(1, 10 ** 5), 0.5)",
    "torch.lerp(torch.ones(10 ** 4, 1), torch.ones(1), torch.ones(1, 10 ** 5))",
    "torch.cross(torch.ones(10 ** 5, 1, 3), torch.ones(1, 10 ** 4, 3), dim=-1)",
    "torch.block_diag(*[torch.ones(1000, 1000)] * 100)",
    "torch.block_diag(torch.ones(1, 10 ** 5), torch.ones(10 ** 5, 1))",
    "F.max_unpool2d(torch.ones(1, 1, 1, 1), torch.zeros(1, 1, 1, 1, dtype=torch.long), 10 ** 5)",
    "nn.MaxUnpool1d(10 ** 9)(torch.ones(1, 1, 1), torch.zeros(1, 1, 1, dtype=torch.long))",
    # a view that later ops copy (as expand's)
    "torch.ones(10 ** 5).unfold(0, 5 * 10 ** 4, 1)",
    # Jacobians: output x input elements, each row a backward pass (the rows were kept until the
    # last, 40 GB, before the stack's check)
    "torch.func.jacrev(lambda t: t * 2)(torch.ones(10 ** 5))",
    "torch.func.jacfwd(lambda t: t.sum())(torch.ones(10 ** 5))",
    "torch.func.hessian(lambda t: (t * t).sum())(torch.ones(10 ** 5))",
    "torch.autograd.functional.jacobian(lambda t: t * 2, torch.ones(10 ** 5))",
    "torch.autograd.functional.hessian(lambda t: (t * t).sum(), torch.ones(10 ** 5))",
]


@pytest.mark.parametrize("expr", GROWING)
def test_ops_whose_result_outgrows_their_inputs_check_the_element_limit_first(expr):
    # each one allocated (NumPy's own MemoryError, gigabytes, or minutes of backward passes) before
    # any check; now gradcli's limit error, before the work
    refused("import torch.nn.functional as F\nx = " + expr, "RuntimeError",
            "exceeds the limit of 100000000 elements (--max-elements)")


WITHIN = [
    "torch.histc(torch.tensor([1., 2., 2., 3.]), bins=3)",
    "F.interpolate(torch.arange(4.).view(1, 1, 4), scale_factor=2)",
    "F.conv_transpose1d(torch.ones(1, 1, 3), torch.ones(1, 1, 2), stride=3)",
    "F.conv1d(torch.ones(1, 1, 3), torch.ones(1, 1, 2), padding=2)",
    "F.adaptive_avg_pool1d(torch.arange(6.).view(1, 1, 6), 4)",
    "F.adaptive_max_pool2d(torch.arange(9.).view(1, 3, 3), 2)",
    "F.embedding(torch.tensor([[0, 1]]), torch.arange(6.).view(3, 2))",
    "torch.masked_select(torch.arange(4.).view(2, 2), torch.tensor([True, False]))",
    "torch.take_along_dim(torch.arange(6.).view(2, 3), torch.tensor([[2], [0]]), 1)",
    "torch.addcmul(torch.ones(2, 1), torch.ones(1, 3), torch.full((3,), 2.))",
    "torch.clamp(torch.arange(4.).view(4, 1), min=torch.tensor([1., 2.]))",
    "torch.lerp(torch.zeros(2, 1), torch.ones(3), torch.tensor(0.25))",
    "torch.cross(torch.eye(3), torch.ones(1, 3), dim=1)",
    "torch.ones(5).unfold(0, 2, 2)",
    "torch.block_diag(torch.ones(1, 2), torch.tensor(3.), torch.arange(2.))",
    "F.max_unpool1d(torch.tensor([[[5., 7.]]]), torch.tensor([[[1, 4]]]), 3)",
    "torch.func.jacrev(lambda t: t * t)(torch.tensor([1., 2.]))",
    "torch.func.hessian(lambda t: (t ** 3).sum())(torch.tensor([1., 2.]))",
    "torch.autograd.functional.jacobian(lambda t: t.exp(), torch.zeros(2))",
]


def test_the_same_ops_within_the_limit_print_what_torch_prints():
    pytest.importorskip("torch")
    src = "import torch.nn.functional as F\n" + "".join(f"print({expr})\n" for expr in WITHIN)
    result = run(src)
    assert result.error is None, result.error.message
    expected = subprocess.run([sys.executable, "-c", HEAD + src], capture_output=True, text=True, timeout=300)
    assert expected.returncode == 0, expected.stderr
    assert result.stdout == expected.stdout


# ---------------------------------------------------------------- the C kernels' buffers

ALIASED = """
import numpy as np
import gradcli._native_rng as m
a = np.array([10 ** 12, 1, 2, 3, 5, 5, 6, 7, 8, 9], dtype=np.int64)
for call in (lambda: m.randperm_swaps(a, a[4:6]),  # targets inside perm: a swap rewrote a later target
             lambda: m.randperm_swaps(a[2:], a[:3]),
             lambda: m.normal_fill_f32(np.zeros(32, np.uint32), np.zeros(32, np.uint32).view(np.float32), 0., 1., False, 0),
             lambda: (lambda w: m.normal_fill_f32(w, w.view(np.float32), 0., 1., False, 0))(np.zeros(32, np.uint32)),
             lambda: (lambda w: m.uniform_f32(w, w.view(np.float32), 1., 0., 1., False, False))(np.zeros(32, np.uint32))):
    try:
        call()
        print("ran")
    except ValueError as e:
        print(e)
"""


def test_native_kernels_refuse_buffers_that_overlap(native_module):
    # randperm_swaps checked each target before the swaps, but a target that lies inside perm is
    # rewritten by an earlier swap: the next swap wrote 8 TB past the buffer (SIGSEGV)
    native_module("rng")
    result = fresh_python(ALIASED, {"GRADCLI_NATIVE": "1"})
    assert result.returncode == 0, (result.returncode, result.stderr)
    assert result.stdout.splitlines() == ["randperm_swaps: the buffers overlap", "randperm_swaps: the buffers overlap",
                                          "ran", "normal_fill_f32: the buffers overlap",
                                          "uniform_f32: the buffers overlap"], result.stdout


# ---------------------------------------------------------------- script values in an optimizer's loaded state

LOADED_STATE = """\
g = torch.manual_seed(0)
for name, cls in [("Adam", torch.optim.Adam), ("AdamW", torch.optim.AdamW), ("RMSprop", torch.optim.RMSprop), ("Adagrad", torch.optim.Adagrad), ("Adadelta", torch.optim.Adadelta), ("Adamax", torch.optim.Adamax), ("NAdam", torch.optim.NAdam), ("RAdam", torch.optim.RAdam), ("ASGD", torch.optim.ASGD), ("Rprop", torch.optim.Rprop)]:
    m = nn.Linear(2, 1)
    o = cls(m.parameters(), lr=0.1)
    m(torch.ones(2)).sum().backward()
    o.step()
    s = o.state_dict()
    for k in list(s["state"][0]):
        v = s["state"][0][k]
        if isinstance(v, torch.Tensor) and v.dim() == 0:
            s["state"][0][k] = 3
    o.load_state_dict(s)
    print(name, {k: v for k, v in o.state_dict()["state"][0].items() if not isinstance(v, torch.Tensor) or v.dim() == 0})
    o.step()
    print(m.weight)
    s = o.state_dict()
    if "step" in s["state"][0]:
        s["state"][0]["step"] = print
    try:
        o.load_state_dict(s)
        print("loaded")
    except Exception as e:
        print(type(e).__name__, e)
    s = o.state_dict()
    if "step" in s["state"][0]:
        del s["state"][0]["step"]
    try:
        o.load_state_dict(s)
        print("loaded")
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_an_optimizers_loaded_state_is_made_tensors_as_torchs_setstate_does():
    # torch's __setstate__ (so load_state_dict) makes a float32 tensor of a loaded `step` (float(step)),
    # NAdam's mu_product and ASGD's eta and mu; gradcli kept the script's value, and the next step()
    # failed with an error naming its internals ("'int' object has no attribute '_data'")
    pytest.importorskip("torch")
    result = run(LOADED_STATE)
    expected = subprocess.run([sys.executable, "-c", HEAD + LOADED_STATE], capture_output=True, text=True, timeout=300)
    assert expected.returncode == 0, expected.stderr
    assert result.error is None, result.error.message
    assert result.stdout == expected.stdout
    assert "KeyError 'step'" in result.stdout and "float() argument must be" in result.stdout


# ---------------------------------------------------------------- a tensor's setters given script values

SETTERS = """\
for what in ["data", "requires_grad", "requires_grad on a parameter"]:
    for value in [print, 1, None, 2.0, torch.tensor(True), "yes", [1], True]:
        x = torch.ones(2)
        m = nn.Linear(2, 2)
        try:
            if what == "data":
                x.data = value
            elif what == "requires_grad":
                x.requires_grad = value
            else:
                m.weight.requires_grad = value
            print(what, "took", type(value).__name__, x.requires_grad, m.weight.requires_grad)
        except Exception as e:
            print(what, type(e).__name__, e)
"""


def test_a_tensors_setters_check_the_value_as_torch_does():
    # x.requires_grad = print was taken (as truthy: bool(value)), and x.data = print failed with an
    # AttributeError naming the engine's fields; torch: 'requires_grad must be a bool', and
    # 'Variable data has to be a tensor, but got builtin_function_or_method'
    pytest.importorskip("torch")
    result = run(SETTERS)
    expected = subprocess.run([sys.executable, "-c", HEAD + SETTERS], capture_output=True, text=True, timeout=300)
    assert expected.returncode == 0, expected.stderr
    assert result.error is None, result.error.message
    assert result.stdout == expected.stdout
    assert "requires_grad RuntimeError requires_grad must be a bool" in result.stdout


# ---------------------------------------------------------------- the REPL's :save

@pytest.mark.parametrize("name", ["bashrc", ".profile", "notes.txt", "x.grad.sh", ".grad"])
def test_repl_save_writes_only_a_grad_file(tmp_path, name):
    # :save is written by the REPL's parent (the child may not write): a snippet pasted into the REPL
    # with a `:save ~/.bashrc` line replaced the user's shell start-up file with the session's inputs
    from gradcli.repl.core import save_inputs

    said = []
    target = tmp_path / name
    target.write_text("kept\n")
    save_inputs(["x = 1"], [str(target)], lambda text, error=False: said.append((text, error)))
    assert target.read_text() == "kept\n"
    assert said and said[0][1] and "ends in .grad" in said[0][0]
    save_inputs(["x = 1"], [str(tmp_path / "ok.grad")], lambda text, error=False: said.append((text, error)))
    assert (tmp_path / "ok.grad").read_text() == "x = 1\n" and said[-1] == ("Saved 1 input to " + str(tmp_path / "ok.grad") + ".", False)


# ---------------------------------------------------------------- the environment gradcli reads

GRAPH_SCRIPT = "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n"


@pytest.mark.parametrize("columns", ["\u00b2", "9" * 5000], ids=["superscript-two", "5000-digits"])
def test_a_hostile_columns_variable_is_ignored(tmp_path, columns):
    # '²'.isdigit() is true and int('²') fails; 5000 digits pass isdigit() and fail int(): the width
    # helpers raised ValueError, an internal error of `gradcli graph` and, under `run --explain`, an
    # error blamed on the script's backward() line
    script = tmp_path / "g.grad"
    script.write_text(GRAPH_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", COLUMNS=columns, PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    for args in (["run", "--explain", str(script)], ["graph", str(script), "--var", "y"]):
        proc = subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, env=env,
                              timeout=180)
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        assert "ValueError" not in proc.stdout + proc.stderr and "internal error" not in proc.stderr
        assert "AccumulateGrad" in proc.stdout + proc.stderr, (args, proc.stdout)


# ---------------------------------------------------------------- gradcli test on a repository's links

@pytest.mark.parametrize("link", ["hw.out", "hw.err", "hw.grad"])
def test_gradcli_test_shows_no_pseudo_file_a_link_leads_to(tmp_path, link):
    # a student's repository, tested by a course's CI, holding `hw.out -> /proc/self/environ`: the diff
    # of the expected text (the CI's environment, its secrets included) went into the public log; a
    # `hw.grad` link showed its first line as a syntax error's source line
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "hw.grad").write_text("print(1)\n")
    if link == "hw.grad":
        (folder / "hw.out").write_text("1\n")
    (folder / link).unlink(missing_ok=True)
    (folder / link).symlink_to("/proc/self/environ")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", S5_SECRET_TOKEN="hunter2-s5", PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    for extra in ([], ["--json"]):
        proc = subprocess.run([sys.executable, "-m", "gradcli", "test", *extra, str(folder)], capture_output=True,
                              text=True, env=env, timeout=180)
        shown = proc.stdout + proc.stderr
        assert "hunter2-s5" not in shown and "S5_SECRET_TOKEN" not in shown, shown
        assert proc.returncode == 1 and "/proc/" in shown, (proc.returncode, shown)
