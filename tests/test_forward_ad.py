"""torch.autograd.forward_ad (engine/forward_ad.py): dual tensors' tangents pushed op by op, checked against
finite differences (float64) and, where torch is installed, against PyTorch's forward AD; the API's errors;
what a script may hand to make_dual."""
from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api as gt
from gradcli.engine import forward_ad as fw
from gradcli.lang.runner import RunOptions, run_source

# op name -> (function of the dual input x (3x4) and a plain tensor y (3x4)); the same code runs on torch
OPS = {
    "mul_add": lambda m, x, y: x * y + x,
    "pow_sub": lambda m, x, y: x ** 2 - y / x,
    "div": lambda m, x, y: y / (x + 3),
    "exp_sin": lambda m, x, y: m.exp(x).sin() * m.tanh(x),
    "sigmoid_relu": lambda m, x, y: m.sigmoid(x) + m.relu(x - 0.2),
    "sum": lambda m, x, y: (x * y).sum(),
    "sum_dim": lambda m, x, y: x.sum(1, keepdim=True) * y,
    "mean": lambda m, x, y: x.mean(0),
    "matmul": lambda m, x, y: x @ y.T,
    "mm_dual_right": lambda m, x, y: y.T @ x,
    "view_t": lambda m, x, y: x.t().reshape(12)[2:9] * 2,
    "index": lambda m, x, y: x[1] + x[:, 2].sum(),
    "softmax": lambda m, x, y: m.softmax(x, 1),
    "log_softmax": lambda m, x, y: m.log_softmax(x, 0),
    "linear": lambda m, x, y: m.nn.functional.linear(y, x, x[0, :3]),
    "where_clamp": lambda m, x, y: m.where(y > 0, x, x * 2).clamp(-0.5, 0.5),
    "norm": lambda m, x, y: x.norm(),
    "cat_stack": lambda m, x, y: m.cat([x, y]).sum(0) + m.stack([x, x]).mean(0).sum(0),
}

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4))
T = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((3, 4))


def _gradcli_jvp(fn, x, t, y):
    with fw.dual_level():
        d = fw.make_dual(gt.tensor(x), gt.tensor(t))
        out = fn(gt, d, gt.tensor(y))
        primal, tangent = fw.unpack_dual(out)
    return primal.numpy(), tangent.numpy()


@pytest.mark.parametrize("name", sorted(OPS))
def test_tangent_against_finite_differences(name):
    fn = OPS[name]
    _, tangent = _gradcli_jvp(fn, X, T, Y)
    eps = 1e-6
    hi = fn(gt, gt.tensor(X + eps * T), gt.tensor(Y)).numpy()
    lo = fn(gt, gt.tensor(X - eps * T), gt.tensor(Y)).numpy()
    np.testing.assert_allclose(tangent, (hi - lo) / (2 * eps), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(OPS))
def test_tangent_against_torch(name):
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tfw
    fn = OPS[name]
    primal, tangent = _gradcli_jvp(fn, X, T, Y)
    with tfw.dual_level():
        d = tfw.make_dual(torch.tensor(X), torch.tensor(T))
        out = fn(torch, d, torch.tensor(Y))
        tp, tt = tfw.unpack_dual(out)
    np.testing.assert_allclose(primal, tp.numpy(), rtol=1e-13, atol=1e-15)  # the BLAS's order aside
    np.testing.assert_allclose(tangent, tt.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(OPS))
def test_primal_bits_unchanged_by_the_level(name):
    fn = OPS[name]
    primal, _ = _gradcli_jvp(fn, X, T, Y)
    np.testing.assert_array_equal(primal, fn(gt, gt.tensor(X), gt.tensor(Y)).numpy())


def test_tangent_forgotten_with_its_level_and_plain_tensors_have_none():
    with fw.dual_level() as level:
        assert level == 0
        t = gt.ones(3)
        d = fw.make_dual(gt.zeros(3), t)
        assert fw.unpack_dual(d).tangent is t  # same layout: the tangent itself
        assert fw.unpack_dual(fw.make_dual(gt.zeros(3, 2), gt.ones(2, 3).T)).tangent is not None
        out = (d * 2).exp()
        assert fw.unpack_dual(gt.ones(3)).tangent is None
        assert "tangent=tensor([2., 2., 2.])" in repr(out)
    assert fw.unpack_dual(out).tangent is None
    assert "tangent" not in repr(out)
    assert not out.requires_grad and out.grad_fn is None


def test_api_errors_are_torchs():
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fw.make_dual(gt.ones(2), gt.ones(2))
    with fw.dual_level():
        with pytest.raises(RuntimeError, match="^Nested forward mode AD is not supported at the moment$"):
            fw.enter_dual_level()
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[3\] while the given forward gradient is of "
                                               r"size \[4\]\.$"):
            fw.make_dual(gt.ones(3), gt.ones(4))
        with pytest.raises(ValueError, match="^Expected primal to be floating point or complex, but got: "
                                             "torch.int64$"):
            fw.make_dual(gt.arange(3), gt.ones(3))
        with pytest.raises(AttributeError, match="'int' object has no attribute 'is_floating_point'"):
            fw.make_dual(gt.ones(3), 3)
        d = fw.make_dual(gt.ones(3), gt.ones(3))
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level 0"):
            fw.make_dual(d, gt.ones(3))
        with pytest.raises(TypeError, match=r"^_unpack_dual\(\): argument 'dual' \(position 1\) must be Tensor, "
                                            "not str$"):
            fw.unpack_dual("x")
    with pytest.raises(RuntimeError, match="Trying to exit a forward AD level that was not the last one"):
        fw.exit_dual_level(level=3)
    assert fw.unpack_dual(5) == (5, None)  # outside a level, as it is


def _error(src):
    r = run_source(src, "t.grad", RunOptions())
    assert not r.ok
    return r.error.type_name, r.error.message


HEAD = "import torch\nimport torch.autograd.forward_ad as fwAD\n"


@pytest.mark.parametrize("arg, shown", [("Box()", "Box"), ("lambda: 1", "function"), ("[1.0]", "list"),
                                        ("'x'", "str"), ("None", "NoneType")])
def test_script_objects_given_to_make_dual_get_torchs_errors(arg, shown):
    src = HEAD + "class Box:\n    pass\nwith fwAD.dual_level():\n    fwAD.make_dual({}, torch.ones(2))\n"
    kind, text = _error(src.format(arg))
    assert (kind, text) == ("AttributeError", f"'{shown}' object has no attribute 'is_floating_point'")
    kind, text = _error(src.replace("({}, torch.ones(2))", "(torch.ones(2), {})").format(arg))
    assert (kind, text) == ("AttributeError", f"'{shown}' object has no attribute 'is_floating_point'")


def test_the_module_and_its_results_keep_the_sandbox():
    kind, _ = _error(HEAD + "fwAD._levels\n")
    assert kind in ("AttributeError", "SyntaxError", "NameError")
    kind, _ = _error(HEAD + "with fwAD.dual_level():\n    d = fwAD.make_dual(torch.ones(2), torch.ones(2))\n"
                            "    d._fwt\n")
    assert kind in ("AttributeError", "SyntaxError", "NameError")
    r = run_source(HEAD + "with fwAD.dual_level():\n    u = fwAD.unpack_dual(fwAD.make_dual(torch.ones(2), torch.ones(2)))\n"
                          "print(u.primal, u[1], len(u), u)\n", "t.grad", RunOptions())
    assert r.ok, r.error
    assert r.stdout == ("tensor([1., 1.]) tensor([1., 1.]) 2 UnpackedDualTensor(primal=tensor([1., 1.]), "
                        "tangent=tensor([1., 1.]))\n")


def test_custom_function_without_jvp_raises_torchs_error():
    src = (HEAD + "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x * 2\n"
           "    @staticmethod\n    def backward(ctx, g):\n        return g * 2\n"
           "with fwAD.dual_level():\n    F.apply(fwAD.make_dual(torch.ones(2), torch.ones(2)))\n")
    assert _error(src) == ("NotImplementedError", "You must implement the jvp function for custom autograd.Function "
                                                  "to use it with forward mode AD.")


def test_gradcheck_checks_forward_ad_with_torchs_message():
    src = (HEAD + "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
           "        ctx.x = x\n        return x * x\n"
           "    @staticmethod\n    def jvp(ctx, t):\n        return t * ctx.x * {}\n"
           "x = torch.randn(3, dtype=torch.double, requires_grad=True)\n"
           "print(torch.autograd.gradcheck(F.apply, (x,), check_forward_ad=True, check_backward_ad=False, "
           "check_undefined_grad=False, raise_exception=False))\n"
           "torch.autograd.gradcheck(F.apply, (x,), check_forward_ad=True, check_backward_ad=False)\n")
    r = run_source(src.format(2), "t.grad", RunOptions())
    assert r.ok and r.stdout == "True\nTrue\n", r.error
    r = run_source(src.format(3), "t.grad", RunOptions())
    assert r.stdout == "False\n"
    assert r.error.type_name == "GradcheckError"
    assert r.error.message.startswith("Jacobian computed with forward mode mismatch for output 0 with respect to "
                                      "input 0,\nnumerical:")
    assert _error(HEAD + "torch.autograd.gradcheck(torch.sin, (torch.ones(1, dtype=torch.double),), "
                         "check_backward_ad=False)\n") == (
        "AssertionError", "Expected at least one of check_forward_ad or check_backward_ad to be True")


def _inplace_steps(m, fw_):
    p = m.tensor([1., 2., 3.], dtype=m.float64)
    t = m.tensor([1., 1., 1.], dtype=m.float64)
    seen = []
    with fw_.dual_level():
        d = fw_.make_dual(p.clone(), t)
        d.mul_(2)
        seen.append(t.clone())  # the tangent given to make_dual changes with d, as torch's
        d.sin_()
        d += m.tensor([1., 0., 0.], dtype=m.float64)
        seen.append(fw_.unpack_dual(d).tangent.clone())
        e = fw_.make_dual(p.clone(), m.ones(3, dtype=m.float64))
        v = e[1:]
        v.mul_(3)  # through a view: e's tangent changes too
        seen.append(fw_.unpack_dual(e).tangent.clone())
        q = m.zeros(3, dtype=m.float64)
        q.add_(e)
        q[0] = e[2] * 5
        seen.append(fw_.unpack_dual(q).tangent.clone())
        seen.append(fw_.unpack_dual(e).tangent.clone())  # q's in-place changes leave e's tangent alone
        y = e + 0
        y[1] = 0.0
        seen.append(fw_.unpack_dual(y).tangent.clone())
        seen.append(fw_.unpack_dual(e).tangent.clone())
        seen.append(fw_.unpack_dual(e.sort().values).tangent.clone())
    return [s.numpy() for s in seen]


def test_inplace_ops_update_tangents_as_torch():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tfw
    ours = _inplace_steps(gt, fw)
    theirs = _inplace_steps(torch, tfw)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-15, atol=0)
