"""torch.func (engine/func.py): what scripts print is checked against torch by
tests/golden/scripts/func_transforms.grad and the corpus snippets docs_func_*.grad; here the transforms
as doors of the sandbox (they call script callables: limits, recursion, results checked); vmap and
functional_call: tests/test_func_vmap.py."""
from __future__ import annotations

import pytest

from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions, run_source

HEAD = "import torch\nfrom torch.func import grad, jacrev, jacfwd, jvp, vjp, hessian, vmap\na = torch.ones(3)\n"


def run(body, **options):
    options.setdefault("timeout", 20)
    return run_source(HEAD + body, "func.grad", RunOptions(**options))


def refused(body, type_name, message, **options):
    error = run(body, **options).error
    assert isinstance(error, GradScriptError) and not isinstance(error, InternalError), error
    assert error.type_name == type_name, (error.type_name, error.message)
    assert message in error.message, error.message
    assert error.line is not None


@pytest.mark.parametrize("transform", ["grad(f)(a.sum())", "jacrev(f)(a)", "jacfwd(f)(a)", "jvp(f, (a,), (a,))",
                                       "vjp(f, a)", "hessian(f)(a)"])
def test_a_function_that_never_ends_meets_the_step_limit(transform):
    refused(f"def f(x):\n    while True:\n        pass\n{transform}\n", "RuntimeError", "step limit of 10000 exceeded",
            max_steps=10_000)


@pytest.mark.parametrize("transform", ["grad(f)(a.sum())", "jacrev(f)(a)", "jacfwd(f)(a)"])
def test_a_recursive_function_is_a_recursion_error(transform):
    refused(f"def f(x):\n    return f(x)\n{transform}\n", "RecursionError", "maximum recursion depth exceeded")


def test_a_transform_of_itself_nests_until_the_depth_limit():
    refused("def f(x):\n    return grad(f)(x)\nf(a.sum())\n", "RecursionError", "maximum recursion depth exceeded")


@pytest.mark.parametrize(("body", "message"), [
    ("grad(lambda x: 'text')(a)", "Expected f(*args) to return a Tensor, got <class 'str'>"),
    ("grad(lambda x: x)(a)", "Expected f(*args) to return a scalar Tensor, got tensor with 1 dims"),
    ("grad(lambda x: x.sum(), has_aux=True)(a)", "output of function f should be a tuple: (output, aux)"),
    ("jacfwd(lambda x: [x])(a)", "Expected output of f to be a Tensor or Tensors, got <class 'list'>"),
    ("grad(lambda x, y: x.sum(), argnums=2)(a, a)", "Got argnum=2, but only 2 positional inputs"),
    ("grad(lambda x, y: x.sum(), argnums=(0, 0))(a, a)", "argnums elements must be unique, got (0, 0)"),
    ("grad(lambda x, y: x.sum(), argnums='0')(a, a)", "argnums must be int or Tuple[int, ...], got: <class 'str'>"),
    ("jvp(torch.sin, (a,), (torch.ones(2),))", "Expected primals and tangents to have the same shape"),
])
def test_what_a_function_returns_and_the_arguments_are_checked(body, message):
    refused(body + "\n", "RuntimeError", message)


def test_a_non_tensor_input_is_refused():
    refused("grad(lambda x: x)(print)\n", "ValueError", "Thing passed to transform API must be Tensor")


def test_results_are_detached_unless_an_input_required_grad():
    result = run("print(grad(lambda x: x.sin().sum())(a).requires_grad)\n"
                 "b = torch.ones(3, requires_grad=True)\n"
                 "g = grad(lambda x: x.sin().sum())(b)\nprint(g.requires_grad)\ng.sum().backward()\nprint(b.grad)\n")
    assert result.error is None, result.error
    assert result.stdout == "False\nTrue\ntensor([-0.8415, -0.8415, -0.8415])\n"
