"""The optional MKL backend (gradcli[mkl], gradcli/backend.py, gradcli/engine/mkl_backend.py).

Without the extra (CI) only the start-up, fallback and golden-marking tests run; the rest skip.
With it, the goldens of tests/golden/mkl/ (real torch, every digit printed; tools/gen_mkl_goldens.py)
must come out bit for bit on the CPU they were recorded on and within their ulps elsewhere (their
NAME.cpu markings, gradcli/testing/cpu.py), and wherever torch is installed the covered ops are
compared with torch itself on this CPU.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gradcli import backend

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "mkl"
SCRIPTS = sorted(GOLDEN.glob("*.grad"))
HAVE_TORCH = importlib.util.find_spec("torch") is not None
VML_OPS = ["sin", "cos", "tan", "exp", "log", "log10", "log2", "tanh", "erf", "erfc", "erfinv", "sqrt", "asin",
           "acos", "atan"]


def _mkl_ready():
    if backend.disabled_by_env():
        return False
    backend.reset()
    return backend.active()


needs_mkl = pytest.mark.skipif(not _mkl_ready(), reason="the mkl extra is not installed (pip install 'gradcli[mkl]')")


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(extra)
    return env


def _imported(code, **env):
    """The gradcli modules and shared libraries a process has loaded after running CODE through the
    runner (the process where the engine runs; the CLI may run it in a child of its own)."""
    probe = ("import sys\n"
             "from gradcli.lang.runner import run_source\n"
             "r = run_source('import torch\\n' + sys.argv[1], '<probe>')\n"
             "assert r.ok, r.error\n"
             "sys.stdout.write(r.stdout)\n"
             "maps = open('/proc/self/maps').read() if sys.platform.startswith('linux') else ''\n"
             "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(m for m in sys.modules if m.startswith('gradcli')))"
             " + '\\nMKL ' + str('libmkl_rt' in maps) + '\\n')\n")
    proc = subprocess.run([sys.executable, "-c", probe, code], capture_output=True, text=True, cwd=ROOT,
                          env=_env(**env), timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in proc.stderr.splitlines() if line.startswith(("MODULES", "MKL")))
    return proc.stdout, set(lines["MODULES"].split()), lines["MKL"] == "True"


# ------------------------------------------------------------------------------------ start-up

def test_a_run_without_covered_ops_loads_nothing_of_mkl():
    out, modules, mapped = _imported("x = torch.tensor([1., 2.]) * 3 + 1\nprint(x.relu().sum().item())")
    assert out == "11.0\n"
    assert "gradcli.engine.mkl_backend" not in modules and not mapped


def test_gradcli_mkl_0_keeps_numpy_even_for_covered_ops():
    out, modules, mapped = _imported("print(torch.sin(torch.tensor(1.)).item())", GRADCLI_MKL="0")
    assert out == "0.8414709568023682\n"
    assert "gradcli.engine.mkl_backend" not in modules and not mapped


@needs_mkl
def test_the_first_covered_op_loads_mkl():
    _, modules, mapped = _imported("print(torch.sin(torch.tensor(1.)).item())")
    assert "gradcli.engine.mkl_backend" in modules and mapped


def test_describe_says_which_backend(monkeypatch):
    monkeypatch.setenv(backend.ENV, "0")
    backend.reset()
    try:
        assert backend.describe() == "backend: NumPy (GRADCLI_MKL=0)"
        assert not backend.active()
    finally:
        monkeypatch.delenv(backend.ENV)
        backend.reset()
    text = backend.describe()
    assert text.startswith("backend: MKL 2024.2") if _mkl_ready() else text.startswith("backend: NumPy (")


def test_version_and_debug_name_the_backend():
    proc = subprocess.run([sys.executable, "-m", "gradcli", "--version"], capture_output=True, text=True, cwd=ROOT,
                          env=_env(GRADCLI_MKL="0"), timeout=60)
    assert "backend: NumPy (GRADCLI_MKL=0)" in proc.stdout.splitlines()[1:]
    proc = subprocess.run([sys.executable, "-m", "gradcli", "run", "--debug", "-e", "print(torch.exp(torch.ones(2)))"],
                          capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=60)
    assert proc.returncode == 0 and proc.stdout == "tensor([2.7183, 2.7183])\n"
    expected = "backend: MKL 2024.2" if _mkl_ready() else "backend: NumPy ("
    assert any(line.startswith(f"gradcli: {expected}") for line in proc.stderr.splitlines()), proc.stderr


# -------------------------------------------------------------------------- kernels and fallbacks

@needs_mkl
def test_kernels_leave_what_they_do_not_take_to_numpy():
    from gradcli.engine import mkl_backend as M

    sin = M.vml("sin")
    assert sin(np.ones(3, np.float16)) is None and sin(np.ones(3, np.int64)) is None
    assert sin(np.ones(0, np.float32)) is None and sin([1.0]) is None
    gemm = M.gemm()
    assert gemm(np.ones((2, 2), np.float32), np.ones((2, 2), np.float64)) is None
    assert gemm(np.ones((2, 2), np.int64), np.ones((2, 2), np.int64)) is None
    assert gemm(np.ones((2, 0), np.float32), np.ones((0, 3), np.float32)).tolist() == [[0.0] * 3] * 2
    r = gemm(np.ones((2, 0)), np.ones((0, 3)), np.array([1.0, 2.0, 3.0]), 2, 1)
    assert r.tolist() == [[2.0, 4.0, 6.0]] * 2


@needs_mkl
def test_gemm_call_plans_read_each_calls_operands():
    """gemm plans its call once per operand layout (dtype, shapes, strides): a later call of the same
    layout must read its own operands (new data, read-only arrays, offset views, rows wider than the
    matrix) and give the bits of a first call; with torch, the bits of torch.mm on the same views."""
    from gradcli.engine import mkl_backend as M

    rng = np.random.default_rng(7)
    for dtype in (np.float32, np.float64):
        views = {
            "row-major": lambda w: (w[:32, :10], w[32:42, :5]),
            "weight.t()": lambda w: (w[:32, :10], w[:5, 10:20].T),
            "wide rows, offset": lambda w: (w[1:33, 3:13], w[40:50, 7:12]),
            "both transposed": lambda w: (w[:10, :32].T, w[:5, :10].T),
        }
        for name, view in views.items():
            gemm = M.gemm()
            bases = [rng.standard_normal((64, 24)).astype(dtype) for _ in range(3)]
            firsts = [M.gemm()(*view(b)) for b in bases]  # each from a kernel that never saw the layout
            for base, first in zip(bases, firsts):
                a, b = view(base)
                assert gemm(a, b).tobytes() == first.tobytes(), name
                frozen = base.copy()
                frozen.flags.writeable = False
                assert gemm(*view(frozen)).tobytes() == first.tobytes(), name
                np.testing.assert_allclose(first, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-5)
                bias = rng.standard_normal(5).astype(dtype)
                with_bias = gemm(a, b, bias)
                assert with_bias.tobytes() == M.gemm()(a, b, bias).tobytes(), name
                if HAVE_TORCH:
                    import torch as T

                    tb = T.from_numpy(base)
                    ta_, tb_ = view(tb)
                    assert first.tobytes() == T.mm(ta_, tb_).contiguous().numpy().tobytes(), name
                    assert with_bias.tobytes() == T.addmm(T.from_numpy(bias), ta_, tb_).numpy().tobytes(), name


@needs_mkl
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "0-d"])
def test_vml_output_keeps_numpy_layout_and_values(layout):
    from gradcli.engine import api as torch

    base = torch.linspace(0.1, 0.9, 60).reshape(6, 10)
    x = {"contiguous": base, "transposed": base.t(), "strided": base[::2, 1::3], "0-d": base[2, 3]}[layout]
    for name in VML_OPS:
        y = getattr(torch, name)(x)
        ref = getattr(np, {"asin": "arcsin", "acos": "arccos", "atan": "arctan"}.get(name, name), None)
        if ref is not None:
            np.testing.assert_allclose(y.numpy(), ref(x.numpy().astype(np.float64)), rtol=1e-6)
        assert y.stride() == tuple(np.empty_like(x.numpy()).strides[i] // 4 for i in range(x.dim()))


# ------------------------------------------------------------------------------- the goldens

@needs_mkl
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_mkl_golden_bit_for_bit(script):
    """Byte for byte on the CPU the golden came from (its NAME.cpu marking), within the marking's
    ulps on another CPU class (MKL dispatches per CPU, in torch too)."""
    from gradcli.lang.runner import RunOptions, run_source
    from gradcli.testing.cpu import compare_with_golden, read_marking

    assert read_marking(script) is not None, f"{script.name}: MKL's digits depend on the CPU; mark the golden"
    result = run_source(script.read_text(encoding="utf-8"), str(script), RunOptions(seed=0))
    assert result.error is None, result.error
    comparison = compare_with_golden(result.stdout, script.with_suffix(".out"))
    assert comparison.ok, comparison.message


def _nudged(text, index, ulps=None):
    """text with its index-th decimal number moved by ulps float32 ulps (printed as Python does), or
    with its sign flipped (ulps None: farther than any tolerance in ulps of the larger magnitude)."""
    from gradcli.testing.cpu import spacing

    parts = re.split(r"(-?\d+\.\d+(?:e[-+]\d+)?)", text)
    i = list(range(1, len(parts), 2))[index]
    value = float(parts[i])
    parts[i] = repr(-value) if ulps is None else repr(float(np.float32(value + ulps * spacing(value))))
    return "".join(parts)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_mkl_goldens_markings_hold_exactly_at_home_and_only_within_ulps_elsewhere(script):
    """A marked golden compares exactly on the CPU it came from (one ulp off fails there), within
    its ulps on another class (one ulp passes; changed text, or a number beyond the tolerance, fails):
    the mkl goldens use the project's one marking. (A chaotic loop such as RMSprop's sine fit can
    need 2**26 ulps elsewhere: its near-zero coefficients differ wholly between CPU classes.)"""
    from gradcli.testing.cpu import compare_text, read_marking

    marking = read_marking(script)
    assert marking is not None and marking.cpu and marking.differs_under, script.name
    golden = script.with_suffix(".out").read_text(encoding="utf-8")
    home = marking.cpu
    others = [c for c, _ in marking.ulp_by_capability if c != home.split()[1]] or [c for c, _ in marking.ulp_by_capability]
    elsewhere = f"AuthenticAMD {others[0]}"  # a CPU class whose kernels the generator saw differ
    assert marking.tolerance(elsewhere) >= 1
    assert compare_text(golden, golden, marking, home).ok
    one_off = _nudged(golden, -1, 1)
    assert one_off != golden
    assert not compare_text(one_off, golden, marking, home).ok
    assert compare_text(one_off, golden, marking, elsewhere).ok
    assert not compare_text(golden.replace("\n", " \n", 1), golden, marking, elsewhere).ok  # text, not digits
    if marking.tolerance(elsewhere) < 2 ** 25:  # a flipped sign is 2**25 float32 ulps of the magnitude
        assert not compare_text(_nudged(golden, -1), golden, marking, elsewhere).ok


# ------------------------------------------------------------------- live against torch, any CPU

@needs_mkl
@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vml_ops_match_torch_here(dtype):
    import torch as T

    from gradcli.engine import api as G

    rng = np.random.default_rng(5)
    wide = rng.standard_normal(20000) * np.exp(rng.uniform(-12, 12, 20000))
    values = np.concatenate([np.linspace(-3, 3, 3001), rng.uniform(-1, 1, 5000), wide,
                             [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-40]]).astype(dtype)
    for name in VML_OPS:
        for view in (lambda a: a, lambda a: a[:28000].reshape(140, 200).T, lambda a: a[1::7]):
            v = view(values)
            ours = getattr(G, name)(G.from_numpy(v)).numpy()
            theirs = getattr(T, name)(T.from_numpy(np.ascontiguousarray(v))).numpy()
            assert ours.tobytes() == np.ascontiguousarray(theirs).reshape(ours.shape).tobytes(), (name, v.shape)


@needs_mkl
@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_products_match_torch_here(dtype):
    import torch as T

    from gradcli.engine import api as G

    rng = np.random.default_rng(6)

    def pair(shape, transposed=False):
        a = rng.standard_normal(shape[::-1] if transposed else shape).astype(dtype)
        g, t = G.from_numpy(a), T.from_numpy(a.copy())
        return (g.t(), t.t()) if transposed else (g, t)

    def same(ours, theirs):
        assert ours.detach().numpy().tobytes() == theirs.detach().contiguous().numpy().tobytes()

    for m, k, n in [(4, 3, 2), (1, 5, 7), (5, 1, 7), (5, 7, 1), (1, 1, 1), (2000, 3, 1), (33, 65, 17),
                    (128, 256, 64)]:
        for ta in (False, True):
            for tb in (False, True):
                (ga, ta_), (gb, tb_) = pair((m, k), ta), pair((k, n), tb)
                same(G.mm(ga, gb), T.mm(ta_, tb_))
                gbias, tbias = pair((n,))
                same(G.addmm(gbias, ga, gb), T.addmm(tbias, ta_, tb_))
                same(G.addmm(gbias, ga, gb, beta=0.5, alpha=2.0), T.addmm(tbias, ta_, tb_, beta=0.5, alpha=2.0))
        (gx, tx), (gw, tw), (gb, tb_) = pair((m, k)), pair((n, k)), pair((n,))
        for t in (gx, gw, gb, tx, tw, tb_):
            t.requires_grad_(True)
        gy, ty = G.nn.functional.linear(gx, gw, gb), T.nn.functional.linear(tx, tw, tb_)
        same(gy, ty)
        (gg, tg) = pair((m, n))
        gy.backward(gg)
        ty.backward(tg)
        for ours, theirs in ((gx, tx), (gw, tw), (gb, tb_)):
            same(ours.grad, theirs.grad)
    for b, m, k, n in [(2, 3, 4, 5), (3, 20, 30, 10), (1, 20, 30, 10), (5, 1, 64, 64), (7, 64, 64, 1)]:
        for transposed in (False, True):
            a = rng.standard_normal((b, k, m) if transposed else (b, m, k)).astype(dtype)
            c = rng.standard_normal((b, k, n)).astype(dtype)
            ga, ta_ = G.from_numpy(a), T.from_numpy(a.copy())
            if transposed:
                ga, ta_ = ga.transpose(1, 2), ta_.transpose(1, 2)
            same(G.bmm(ga, G.from_numpy(c)), T.bmm(ta_, T.from_numpy(c.copy())))
            same(G.matmul(ga.unsqueeze(0), G.from_numpy(c)), T.matmul(ta_.unsqueeze(0), T.from_numpy(c.copy())))
    for m, n in [(5, 3), (64, 100), (3, 2000), (1, 7), (7, 1), (0, 3), (3, 0)]:
        for transposed in (False, True):
            (ga, ta_), (gv, tv) = pair((m, n), transposed), pair((2 * n,))
            same(G.mv(ga, gv[::2]), T.mv(ta_, tv[::2]))
            same(G.matmul(ga, gv[:n]), T.matmul(ta_, tv[:n]))
    for n in (0, 1, 2, 100, 4097):
        (gx, tx), (gy, ty) = pair((2 * n,)), pair((n,))
        same(G.dot(gx[::2], gy), T.dot(tx[::2], ty))
        same(G.matmul(gx[:n], gy), T.matmul(tx[:n], ty))


# ------------------------------------------------------------- threads and MKL_CBWR as torch

THREAD_ENVS = [{}, {"OMP_NUM_THREADS": "1"}, {"MKL_NUM_THREADS": "3"}, {"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "1"},
               {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "4"}, {"OMP_NUM_THREADS": "4", "MKL_DYNAMIC": "FALSE"},
               {"OMP_NUM_THREADS": "0"}, {"OMP_NUM_THREADS": "two"}]


def _clean_env(**extra):
    env = {k: v for k, v in _env().items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_DYNAMIC", "MKL_CBWR")}
    env.update(extra)
    return env


def _python(code, env):
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@needs_mkl
@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")
@pytest.mark.parametrize("extra", THREAD_ENVS, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()) or "unset")
def test_mkl_threads_are_torchs(extra):
    """MKL's thread count (mkl_get_max_threads after gradcli loads it) is torch's MKL's and
    torch.get_num_threads() under the same OMP_NUM_THREADS / MKL_NUM_THREADS / MKL_DYNAMIC (ATen's
    init_num_threads takes MKL's default, capped at the cores unless MKL_DYNAMIC=FALSE); VML's is 1."""
    env = _clean_env(**extra)
    theirs = _python("import torch\nn = torch.get_num_threads()\n"
                     "mkl = [line for line in torch.__config__.parallel_info().splitlines() if 'mkl_get_max' in line]\n"
                     "print(n, mkl[0].split(':')[1].strip())", env).split()
    ours = json.loads(_python("import json\nfrom gradcli import backend\nassert backend.active()\n"
                              "from gradcli.engine import mkl_backend\nprint(json.dumps(mkl_backend.in_effect()))",
                              env))
    assert [str(ours["threads"])] * 2 == theirs and ours["vml_threads"] == 1


CBWR_PROBE = """import torch
_ = torch.manual_seed(0)
a = torch.randn(64, 300)
b = torch.randn(300, 50)
print((a @ b)[3].tolist())
print(torch.nn.functional.linear(a[:5], b.t()[:7], b[0, :7]).tolist())
print(torch.sin(a[0] * 3).tolist()[:30])
print(torch.exp(a[1].double()).tolist()[:30])
"""


@needs_mkl
@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")
@pytest.mark.parametrize("cbwr", ["", "AVX2", "COMPATIBLE"])
def test_mkl_cbwr_is_left_to_mkl_as_torch_leaves_it(cbwr, tmp_path):
    """MKL_CBWR reaches gradcli's MKL as it reaches torch's: products and VML print torch's digits
    unset and under branches that change them (AVX2 here changes the products' bits)."""
    script = tmp_path / "probe.grad"
    script.write_text(CBWR_PROBE, encoding="utf-8")
    env = _clean_env(MKL_CBWR=cbwr) if cbwr else _clean_env()
    theirs = _python(f"exec(open({str(script)!r}).read())", env)
    proc = subprocess.run([sys.executable, "-m", "gradcli", "run", str(script)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == theirs
