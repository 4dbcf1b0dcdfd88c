"""Custom autograd functions (class X(torch.autograd.Function)) and decorators: the sandbox around
them, the REPL, and gradchecks (first and second order) of Functions written the tutorials' way, on
the engine alone and, where torch is installed, against torch's own gradients. What scripts print is
checked byte for byte by the goldens (tests/golden/scripts/custom_function_*.grad, tutorial_*)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from gradcli.engine import api
from gradcli.engine.gradcheck import gradcheck, gradgradcheck
from case_support import seeded_error, seeded_out, seeded_run

from gradcli.lang.runner import RunOptions, Session

HAS_TORCH = importlib.util.find_spec("torch") is not None

HEADER = "import torch\nfrom torch.autograd import Function\n"
CUBE = HEADER + """
class MyCube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2
"""


run, out, err = seeded_run, seeded_out, seeded_error


# ---------------------------------------------------------------- the language's side

def test_function_class_runs_and_names_its_node():
    text = out(CUBE + "x = torch.tensor([1., 2.], requires_grad=True)\ny = MyCube.apply(x)\nprint(y)\n"
                      "print(y.grad_fn.name())\ny.sum().backward()\nprint(x.grad)\n")
    assert text == "tensor([1., 8.], grad_fn=<MyCubeBackward>)\nMyCubeBackward\ntensor([ 3., 12.])\n"


def test_grad_fn_repr_and_apply_repr_are_torchs():
    text = out(CUBE + "y = MyCube.apply(torch.ones(1, requires_grad=True))\nprint(y.grad_fn)\nprint(MyCube.apply)\n")
    first, second = text.splitlines()
    assert first.startswith("<torch.autograd.function.MyCubeBackward object at 0x")
    assert second == "<bound method Function.apply of <class '__main__.MyCube'>>"


@pytest.mark.parametrize("decorator, message", [
    ("@len", "object of type 'function' has no len()"),
    ("@torch.exp", "exp(): argument 'input' (position 1) must be Tensor, not function"),
    ("@5", "'int' object is not callable")])
def test_other_decorators_are_called_as_python_calls_them(decorator, message):
    # any decorator value is called with the function, as `f = deco(f)` calls it: its error at the decorator
    e = err(f"import torch\n{decorator}\ndef f(x):\n    return x\n")
    assert (e.type_name, e.message, e.line) == ("TypeError", message, 2)


def test_staticmethod_outside_a_class_and_as_a_value_are_refused():
    assert err("@staticmethod\ndef f(x):\n    return x\n").type_name == "SyntaxError"
    assert err("f = staticmethod(len)\n").type_name == "NameError"


@pytest.mark.parametrize("base", ["torch.autograd.graph.Node", "torch.autograd.function.FunctionCtx",
                                  "torch.autograd.function.BackwardCFunction", "torch.Tensor", "int"])
def test_other_bases_are_refused(base):
    e = err(f"import torch\nclass X({base}):\n    pass\n")
    assert e.type_name == "TypeError" and "must derive from object (or no base), another class of the script, " \
        "nn.Module, torch.autograd.Function, torch.utils.data.Dataset or an exception class" in e.message


def test_two_bases_are_refused():
    assert err("import torch\nimport torch.nn as nn\nclass X(torch.autograd.Function, nn.Module):\n    pass\n"
               ).type_name == "SyntaxError"


@pytest.mark.parametrize("field", ["n_outputs", "needs_input_grad", "saved_tensors", "next_functions", "backward",
                                   "materialize", "name", "apply", "save_for_backward", "metadata"])
def test_ctx_keeps_what_the_engine_reads(field):
    e = err(HEADER + f"""
class F(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.{field} = 5
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g
F.apply(torch.ones(2, requires_grad=True)).sum().backward()
""")
    assert e.type_name == "AttributeError" and e.line == 7


def test_private_names_of_ctx_and_function_stay_out_of_reach():
    for expr in ("ctx._saved", "ctx._forward_cls", "ctx.__dict__", "ctx.__class__"):
        src = HEADER + f"class F(Function):\n    @staticmethod\n    def forward(ctx, x):\n        v = {expr}\n" \
                       "        return x\nF.apply(torch.ones(1))\n"
        assert err(src).type_name == "AttributeError"
    assert err(CUBE + "MyCube._backward_cls\n").type_name == "AttributeError"


def test_ctx_holds_any_value_of_the_script_and_keeps_it_after_backward():
    text = out(HEADER + """
class F(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.note = {"a": [1, 2]}
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None
y = F.apply(torch.ones(2, requires_grad=True), 3.0)
y.sum().backward()
print(y.grad_fn.k, y.grad_fn.note)
""")
    assert text == "3.0 {'a': [1, 2]}\n"


def test_engine_node_attributes_a_script_can_read_are_harmless():
    # what get_attr lets a script read of the node: nothing that is a module or a Python object of gradcli
    text = out(CUBE + "y = MyCube.apply(torch.ones(1, requires_grad=True))\nprint(y.grad_fn.metadata, "
                      "y.grad_fn.needs_input_grad, len(y.grad_fn.next_functions))\n")
    assert text == "{} (True,) 1\n"


def test_the_class_form_works_in_the_repl_across_inputs():
    session = Session(RunOptions(seed=0))
    first = session.run(CUBE)
    assert first.ok
    second = session.run("x = torch.tensor([2.], requires_grad=True)\ny = MyCube.apply(x)\ny.backward()\nx.grad\n")
    assert second.ok and second.stdout == "tensor([12.])\n"


def test_decorated_function_prints_like_torchs():
    text = out("import torch\n@torch.no_grad()\ndef f(x):\n    return x * 2\nprint(f)\n")
    assert text.startswith("<function f at 0x")


def test_backward_error_inside_backward_points_at_its_line():
    e = err(HEADER + """
class F(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g @ g.t() @ g
F.apply(torch.ones(2, requires_grad=True)).sum().backward()
""")
    assert e.type_name == "RuntimeError" and e.line == 10


# ---------------------------------------------------------------- gradchecks of tutorial-style Functions

def _functions():
    """Functions written as the tutorials write them, defined by a script (the language's callables)."""
    session = Session(RunOptions(seed=0))
    result = session.run(HEADER + """
class Legendre3(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)

class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return result * grad_out

class Linear(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output
    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias

class CubeWithDx(Function):
    @staticmethod
    def forward(x):
        return x ** 3, 3 * x ** 2
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_output * dx + grad_dx * 6 * x

class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return CubeBackward.apply(grad_out, x)

class CubeBackward(Function):
    @staticmethod
    def forward(ctx, grad_out, x):
        ctx.save_for_backward(x, grad_out)
        return grad_out * 3 * x ** 2
    @staticmethod
    def backward(ctx, grad_out):
        x, sav_grad_out = ctx.saved_tensors
        return grad_out * 3 * x ** 2, grad_out * sav_grad_out * 6 * x
""")
    assert result.ok, result.error and result.error.message
    g = session.globals
    return {
        "legendre": (lambda x: g["Legendre3"].apply(x), [(3, 4)]),
        "exp": (lambda x: g["Exp"].apply(x), [(5,)]),
        "linear": (lambda i, w, b: g["Linear"].apply(i, w, b), [(4, 3), (2, 3), (2,)]),
        "cube_dx": (lambda x: g["CubeWithDx"].apply(x)[0], [(2, 3)]),
        "cube_two_functions": (lambda x: g["Cube"].apply(x), [(3,)]),
    }


FUNCTIONS = ["legendre", "exp", "linear", "cube_dx", "cube_two_functions"]


def _inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    return [api.tensor(rng.uniform(-1.5, 1.5, s), dtype=api.float64, requires_grad=True) for s in shapes]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_first_and_second_order_gradcheck(name):
    fn, shapes = _functions()[name]
    inputs = _inputs(shapes, 1)
    assert gradcheck(fn, tuple(inputs))
    assert gradgradcheck(fn, tuple(inputs))


def test_gradcheck_finds_a_wrong_backward():
    session = Session(RunOptions(seed=0))
    assert session.run(HEADER + "class Bad(Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                                "        return x ** 2\n    @staticmethod\n    def backward(ctx, g):\n"
                                "        return g * 3\n").ok
    bad = session.globals["Bad"]
    x = _inputs([(3,)], 2)[0]
    assert not gradcheck(lambda t: bad.apply(t), (x,), raise_exception=False)


def test_once_differentiable_second_order_is_cut_off_as_in_torch():
    # torch's gradgradcheck of such a Function fails on a zero analytical Jacobian (the Error node hangs
    # off detached copies), and a backward through the gradient reaches the Error node and raises
    session = Session(RunOptions(seed=0))
    assert session.run(HEADER + "from torch.autograd.function import once_differentiable\n"
                                "class Sq(Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                                "        ctx.save_for_backward(x)\n        return x ** 2\n    @staticmethod\n"
                                "    @once_differentiable\n    def backward(ctx, g):\n"
                                "        x, = ctx.saved_tensors\n        return 2 * x * g\n").ok
    sq = session.globals["Sq"]
    x = _inputs([(3,)], 3)[0]
    assert gradcheck(lambda t: sq.apply(t), (x,))
    assert not gradgradcheck(lambda t: sq.apply(t), (x,), raise_exception=False)
    go = api.ones(3, dtype=api.float64, requires_grad=True)
    g, = api.autograd.grad(sq.apply(x), x, go, create_graph=True)
    assert g.grad_fn.name() == "torch::autograd::Error"
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        g.sum().backward()


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
@pytest.mark.parametrize("name", FUNCTIONS)
def test_first_and_second_order_gradients_match_torch(name):
    import torch  # noqa: PLC0415
    fn, shapes = _functions()[name]
    ours = _inputs(shapes, 4)
    theirs = [torch.tensor(t._data, dtype=torch.float64, requires_grad=True) for t in ours]
    reference = {
        "legendre": lambda x: 0.5 * (5 * x ** 3 - 3 * x),
        "exp": torch.exp,
        "linear": lambda i, w, b: i.mm(w.t()) + b,
        "cube_dx": lambda x: x ** 3,
        "cube_two_functions": lambda x: x ** 3,
    }[name]
    y, ty = fn(*ours), reference(*theirs)
    w = np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape))
    g = api.autograd.grad((y * api.tensor(w)).sum(), ours, create_graph=True)
    tg = torch.autograd.grad((ty * torch.tensor(w)).sum(), theirs, create_graph=True)
    for a, b in zip(g, tg):
        np.testing.assert_allclose(a._data, b.detach().numpy(), rtol=1e-12, atol=1e-12)
    gg = api.autograd.grad(sum((a * a).sum() for a in g), ours, allow_unused=True)
    tgg = torch.autograd.grad(sum((a * a).sum() for a in tg), theirs, allow_unused=True)
    for a, b in zip(gg, tgg):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a._data, b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["__repr__", "__del__", "__getattr__", "_backward_cls", "__init__"])
def test_class_attributes_starting_with_underscore_are_refused(name):
    # a class-level dunder would hook Python's protocols; _backward_cls would hand the engine a fake node class
    e = err(f"import torch\nclass F(torch.autograd.Function):\n    {name} = print\n")
    assert e.type_name == "NameError" and e.line == 3


def test_a_functions_own_underscore_names_are_the_scripts():
    # lang/private.py: a '_name' the engine neither defines nor reserves is the script's class attribute
    assert out("import torch\nclass F(torch.autograd.Function):\n    _k = 3\n    @staticmethod\n"
               "    def _twice(x):\n        return x * 2\n    @staticmethod\n    def forward(ctx, x):\n"
               "        return F._twice(x) * F._k\n    @staticmethod\n    def backward(ctx, g):\n        return g * 6\n"
               "x = torch.ones(2, requires_grad=True)\nF.apply(x).sum().backward()\nprint(x.grad)\n") \
        == "tensor([6., 6.])\n"


def test_class_attributes_are_plain_values():
    assert out("import torch\nclass F(torch.autograd.Function):\n    generate_vmap_rule = True\n    k = m = 2 * 3\n"
               "print(F.generate_vmap_rule, F.k, F.m)\n") == "True 6 6\n"
    assert err("import torch\nclass F(torch.autograd.Function):\n    x.y = 1\n").type_name == "SyntaxError"
