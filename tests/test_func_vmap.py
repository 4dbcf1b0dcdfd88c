"""torch.func.vmap, functional_call and stack_module_state (engine/vmap.py, engine/func_call.py): what
scripts print is checked against torch by tests/golden/scripts/func_vmap.grad, func_functional_call.grad,
func_stack_module_state.grad and the corpus snippets tutorial_per_sample_grads.grad and
tutorial_ensembling.grad; here they are doors of the sandbox: they take script callables, modules and
dicts of names, and none of those reaches an internal (crafted keys, built-ins, limits, recursion), and
a module is given its own tensors back whatever happens in the call."""
from __future__ import annotations

import pytest

from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions, run_source

HEAD = ("import torch\nimport torch.nn as nn\nfrom torch.func import vmap, grad, functional_call, stack_module_state\n"
        "a = torch.ones(3, 2)\nm = nn.Linear(2, 2)\nw0 = m.weight\n")


def run(body, **options):
    options.setdefault("timeout", 20)
    return run_source(HEAD + body, "vmap.grad", RunOptions(**options))


def ok(body, **options):
    result = run(body, **options)
    assert result.error is None, result.error
    return result.stdout


def refused(body, type_name, message, **options):
    error = run(body, **options).error
    assert isinstance(error, GradScriptError) and not isinstance(error, InternalError), error
    assert error.type_name == type_name, (error.type_name, error.message)
    assert message in error.message, error.message
    assert error.line is not None


@pytest.mark.parametrize("key", ["__class__", "_parameters", "weight._version", "__dict__", "a._b", "_modules.x",
                                 "weight.__class__"])
def test_a_private_name_in_a_key_is_refused_and_the_module_keeps_its_tensors(key):
    body = (f"try:\n    functional_call(m, {{{key!r}: torch.zeros(2, 2)}}, a)\nexcept KeyError as e:\n    print('no')\n"
            "print(m.weight is w0, type(m).__name__, sorted(k for k, v in m.named_parameters()))\n")
    assert ok(body) == "no\nTrue Linear ['bias', 'weight']\n"


@pytest.mark.parametrize("value", ["print", "'text'", "lambda x: x", "3", "m", "[torch.ones(2, 2)]"])
def test_a_value_that_is_no_tensor_is_refused(value):
    refused(f"functional_call(m, {{'weight': {value}}}, a)\n", "TypeError", "is not an instance of torch.Tensor")
    assert ok(f"try:\n    functional_call(m, {{'weight': {value}}}, a)\nexcept TypeError:\n    pass\n"
              "print(m.weight is w0)\n") == "True\n"


@pytest.mark.parametrize("key", ["forward", "training", "extra_repr", "named_parameters"])
def test_a_key_naming_a_method_or_a_flag_is_refused(key):
    refused(f"functional_call(m, {{{key!r}: torch.ones(1)}}, a)\n", "TypeError", "is not an instance of torch.Tensor")
    assert ok(f"try:\n    functional_call(m, {{{key!r}: torch.ones(1)}}, a)\nexcept TypeError:\n    pass\n"
              "print(m(a).shape, m.training)\n") == "torch.Size([3, 2]) True\n"


def test_an_unknown_name_is_an_attribute_only_during_the_call():
    body = ("class M(nn.Module):\n    def forward(self, x):\n        return x * self.scale\n"
            "k = M()\nprint(functional_call(k, {'scale': torch.tensor(3.)}, torch.ones(2)))\n"
            "print(hasattr(k, 'scale'))\n")
    assert ok(body) == "tensor([3., 3.])\nFalse\n"


def test_the_module_gets_its_tensors_back_when_the_call_raises():
    body = ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.lin = nn.Linear(2, 2)\n    def forward(self, x):\n        raise ValueError('inside')\n"
            "k = M()\nw = k.lin.weight\ntry:\n    functional_call(k, {'lin.weight': torch.zeros(2, 2)}, a)\n"
            "except ValueError as e:\n    print(e)\nprint(k.lin.weight is w)\n")
    assert ok(body) == "inside\nTrue\n"


@pytest.mark.parametrize(("module", "type_name"), [("print", "AttributeError"), ("torch.sin", "AttributeError"),
                                                    ("lambda x: x", "AttributeError"), ("a", "AttributeError")])
def test_what_is_no_module_is_refused(module, type_name):
    refused(f"functional_call({module}, {{}}, a)\n", type_name, "has no attribute 'named_parameters'")


def test_the_dicts_must_be_dicts():
    refused("functional_call(m, [1], a)\n", "ValueError", "Expected all elements of parameter_and_buffer_dicts")
    refused("functional_call(m, 'weight', a)\n", "ValueError", "Expected parameter_and_buffer_dicts to be a dict")
    refused("functional_call(m, {1: a}, a)\n", "TypeError", "expected a str key")


@pytest.mark.parametrize("fn", ["print", "len", "lambda x: print", "type", "lambda x: x.shape"])
def test_vmap_of_a_builtin_or_a_function_returning_no_tensor_is_an_error(fn):
    refused(f"vmap({fn})(a)\n", "ValueError", "must only return Tensors")


def test_vmap_of_a_function_that_never_ends_meets_the_step_limit():
    refused("def f(x):\n    while True:\n        pass\nvmap(f)(a)\n", "RuntimeError", "step limit of 10000 exceeded",
            max_steps=10_000)


def test_vmap_of_itself_nests_until_the_depth_limit():
    refused("def f(x):\n    return vmap(f)(x.unsqueeze(0))\nf(a)\n", "RecursionError",
            "maximum recursion depth exceeded")


def test_vmap_results_are_checked_against_max_elements():
    refused("vmap(lambda x: x.expand(1000, 2), out_dims=1)(torch.ones(3000, 2))\n", "RuntimeError",
            "exceeds the limit", max_elements=1_000_000)


def test_vmap_refuses_a_result_too_large_after_the_first_sample():
    result = run("def f(x):\n    print('sample')\n    return x.expand(400, 2)\nvmap(f)(torch.ones(3000, 2))\n",
                 max_elements=1_000_000)
    assert result.stdout == "sample\n"
    assert "tensor of 2400000 elements exceeds the limit" in result.error.message


def test_vmap_output_structure_must_not_change():
    refused("vmap(lambda x: x if x.sum() > 0 else (x, x))(torch.tensor([[1.], [-1.]]))\n", "RuntimeError",
            "another structure")


def test_randomness_different_is_refused_only_when_the_function_draws():
    assert ok("print(vmap(torch.sin, randomness='different')(torch.zeros(2)))\n") == "tensor([0., 0.])\n"
    refused("vmap(lambda x: x + torch.rand(()), randomness='different')(torch.zeros(2))\n", "NotImplementedError",
            "randomness='different'")


def test_a_random_op_refused_under_error_leaves_the_generator_as_it_was():
    body = ("_ = torch.manual_seed(0)\ntry:\n    vmap(lambda x: x + torch.rand(()))(torch.zeros(2))\n"
            "except RuntimeError as e:\n    print(e)\nprint(torch.rand(()))\n_ = torch.manual_seed(0)\nprint(torch.rand(()))\n")
    out = ok(body).splitlines()
    assert out[0].startswith("vmap: called random operation while in randomness error mode")
    assert out[1] == out[2]


def test_stack_module_state_gives_new_leaves():
    body = ("ms = [nn.Linear(2, 2), nn.Linear(2, 2)]\np, b = stack_module_state(ms)\n"
            "p['weight'].sum().backward()\nprint(p['weight'].grad.shape, ms[0].weight.grad)\n")
    assert ok(body) == "torch.Size([2, 2, 2]) None\n"
