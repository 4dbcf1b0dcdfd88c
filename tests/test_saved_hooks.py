"""torch.autograd.graph.saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks (engine/saved_hooks.py).
What scripts print is checked against torch by tests/golden/scripts/saved_tensors_hooks.grad and the corpus
snippet notes_autograd_saved_tensors_hooks.grad; here the hooks as doors of the sandbox (script callables
the engine calls: limits, recursion, results checked, no state left behind) and the engine alone."""
from __future__ import annotations

import pytest

from gradcli.engine import api as torch
from gradcli.engine import autograd, saved_hooks
from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions, run_source

HEAD = "import torch\nfrom torch.autograd.graph import saved_tensors_hooks\na = torch.ones(3, requires_grad=True)\n"


def run(body, **options):
    options.setdefault("timeout", 20)
    return run_source(HEAD + body, "hooks.grad", RunOptions(**options))


def refused(body, type_name, message, **options):
    result = run(body, **options)
    error = result.error
    assert isinstance(error, GradScriptError) and not isinstance(error, InternalError), error
    assert error.type_name == type_name, (error.type_name, error.message)
    assert message in error.message, error.message
    assert error.line is not None
    assert not saved_hooks._stack and autograd.node_observer[0] is None  # nothing left set
    return result


def test_a_pack_hook_that_never_ends_meets_the_step_limit():
    refused("def pack(t):\n    while True:\n        pass\n"
            "with saved_tensors_hooks(pack, lambda t: t):\n    y = a.exp()\n",
            "RuntimeError", "step limit of 10000 exceeded", max_steps=10_000)


def test_an_unpack_hook_that_never_ends_meets_the_step_limit_and_no_handler_catches_it():
    refused("def unpack(t):\n    while True:\n        pass\n"
            "with saved_tensors_hooks(lambda t: t, unpack):\n    y = a.exp()\n"
            "try:\n    y.sum().backward()\nexcept BaseException:\n    print('caught')\n",
            "RuntimeError", "step limit of 10000 exceeded", max_steps=10_000)


def test_a_recursive_hook_is_a_recursion_error():
    refused("def pack(t):\n    return pack(t)\n"
            "with saved_tensors_hooks(pack, lambda t: t):\n    y = a.exp()\n",
            "RecursionError", "maximum recursion depth exceeded")


def test_grad_mode_is_off_in_a_pack_hook_and_an_unpack_hook_may_run_a_backward():
    # the pack hook records no node (grad mode is off in it), so packing does not recurse
    result = run("def pack(t):\n    u = t * 2\n    print(u.requires_grad)\n    return t\n"
                 "with saved_tensors_hooks(pack, lambda t: t):\n    y = a.exp()\n"
                 "y.sum().backward()\nprint(a.grad)\n")
    assert result.error is None, result.error
    assert result.stdout == "False\ntensor([2.7183, 2.7183, 2.7183])\n"
    # a backward inside an unpack hook (reentrant): torch-echo prints tensor([12., 12., 12.]) too
    result = run("def unpack(t):\n    with torch.enable_grad():\n        b = (a * a).sum()\n        b.backward()\n"
                 "    return t\nwith saved_tensors_hooks(lambda t: t, unpack):\n    y = a * a\n    z = y * y\n"
                 "z.sum().backward()\nprint(a.grad)\n")
    assert result.error is None, result.error
    assert result.stdout == "tensor([12., 12., 12.])\n"


@pytest.mark.parametrize(("value", "name"), [("'a string'", "str"), ("[t]", "list"), ("print", "builtin_function_or_method"),
                                             ("None", "NoneType")])
def test_what_an_unpack_hook_returns_is_checked(value, name):
    refused(f"with saved_tensors_hooks(lambda t: t, lambda t: {value}):\n    y = a.exp()\ny.sum().backward()\n",
            "TypeError", f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {name}")


def test_an_error_in_a_hook_is_the_scripts_and_leaves_no_hooks_set():
    result = run("def pack(t):\n    return 1 / 0\n"
                 "try:\n    with saved_tensors_hooks(pack, lambda t: t):\n        y = a.exp()\n"
                 "except ZeroDivisionError as e:\n    print('caught', e)\n"
                 "y = a.exp()\ny.sum().backward()\nprint(a.grad)\n")
    assert result.error is None, result.error
    assert result.stdout == "caught division by zero\ntensor([2.7183, 2.7183, 2.7183])\n"
    assert not saved_hooks._stack and autograd.node_observer[0] is None


def test_a_packed_object_of_any_kind_is_kept_and_handed_back():
    result = run("with saved_tensors_hooks(lambda t: {'t': t.detach(), 'n': [1, 2]}, lambda d: d['t'] * d['n'][1]):\n"
                 "    y = a.exp()\ny.sum().backward()\nprint(a.grad)\n")
    assert result.error is None, result.error
    assert result.stdout == "tensor([5.4366, 5.4366, 5.4366])\n"


def test_the_run_ends_with_no_hooks_set_whatever_the_script_left():
    saved_hooks.push(lambda t: t, lambda t: t)
    disabled = saved_hooks.disable_saved_tensors_hooks("no")
    disabled.__enter__()
    result = run("y = a.exp()\nprint(y.grad_fn is not None)\n")
    assert result.stdout == "True\n"
    assert not saved_hooks._stack and saved_hooks._disabled[0] is None and autograd.node_observer[0] is None


def test_the_engine_alone_innermost_pair_applies_and_unpacked_tensor_keeps_its_place_in_the_graph():
    seen = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with saved_hooks.saved_tensors_hooks(lambda t: seen.append("outer") or t.detach(), lambda t: t):
        with saved_hooks.saved_tensors_hooks(lambda t: seen.append("inner") or t.detach(), lambda t: t):
            y = x.pow(3)
        z = x.sin()
    assert seen == ["inner", "outer"]
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)   # 3x^2, through the unpacked x
    (gg,) = torch.autograd.grad(g.sum(), x)                        # 6x
    assert gg.tolist() == [6.0, 12.0]
    z.sum().backward()
    assert not saved_hooks._stack and autograd.node_observer[0] is None


def test_graph_tools_observer_is_chained_and_restored():
    calls = []
    prev = autograd.set_node_observer(lambda node, ins, outs: calls.append(type(node).__name__))
    try:
        x = torch.ones(2, requires_grad=True)
        with saved_hooks.saved_tensors_hooks(lambda t: t, lambda t: t):
            x.exp()
        assert calls == ["ExpBackward0"]
        assert autograd.node_observer[0] is not None and autograd.node_observer[0] is not saved_hooks._pack_node
    finally:
        autograd.set_node_observer(prev)
