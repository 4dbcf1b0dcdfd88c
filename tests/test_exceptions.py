"""try/except/finally and raise: a script's handlers catch the script's own errors and nothing of
gradcli's (limits, internal failures, Ctrl-C); exception objects expose nothing but their args.
What scripts print is checked against PyTorch by the goldens (tests/golden/scripts/try_*,
raise_*, except_*); these tests are about what a golden cannot show."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.lang.errors import GradScriptError
from gradcli.lang.runner import InternalError, RunOptions, run_source
from gradcli.lang.runtime import LimitError, Runtime

ROOT = Path(__file__).resolve().parent.parent

HANDLERS = ["except:", "except BaseException:", "except Exception:", "except (RuntimeError, BaseException):"]


def run(src, **options):
    return run_source(src, "t.grad", RunOptions(**options))


def test_limit_error_is_not_an_exception():
    assert not issubclass(LimitError, Exception)


@pytest.mark.parametrize("handler", HANDLERS)
def test_step_limit_goes_through_every_handler(handler):
    src = f"while True:\n    try:\n        pass\n    {handler}\n        pass\n"
    r = run(src, max_steps=5000)
    assert not r.ok
    assert (r.error.type_name, r.error.message) == ("RuntimeError", "step limit of 5000 exceeded (--max-steps)")


@pytest.mark.parametrize("handler", HANDLERS)
def test_step_limit_of_a_loop_in_the_handler_goes_on(handler):
    src = f"for i in range(3):\n    try:\n        while True:\n            pass\n    {handler}\n        print('caught')\n"
    r = run(src, max_steps=5000)
    assert not r.ok and r.stdout == "" and "step limit" in r.error.message


@pytest.mark.parametrize("handler", HANDLERS)
def test_recursion_limit_goes_through_handlers_and_runs_finally(handler):
    src = ("def f(n):\n    try:\n        return f(n + 1)\n"
           f"    {handler}\n        return 'caught'\n    finally:\n        print('finally', n)\nprint(f(0))\n")
    r = run(src, max_depth=50)
    assert not r.ok
    assert (r.error.type_name, r.error.message) == ("RecursionError", "maximum recursion depth exceeded")
    assert r.stdout == "".join(f"finally {n}\n" for n in reversed(range(50)))  # as Ctrl-C in Python


@pytest.mark.parametrize("final", ["return 1", "break", "continue", "raise ValueError('replaced')",
                                   "while True: pass", "f()", "x = 1"])
def test_nothing_in_a_finally_block_stops_a_limit(final):
    src = f"""def f():
    return f()
def g():
    for i in range(3):
        try:
            try:
                while True:
                    pass
            finally:
                {final}
        except:
            print('caught')
g()
"""
    r = run(src, max_steps=5000)
    assert not r.ok and "step limit of 5000 exceeded" in r.error.message
    assert "caught" not in r.stdout


def test_finally_in_a_generator_cannot_yield_past_a_limit():
    src = ("def g():\n    try:\n        while True:\n            pass\n        yield 0\n    finally:\n"
           "        print('finally')\n        yield 1\n        print('not after the yield')\n"
           "for v in g():\n    print('got', v)\n")
    r = run(src, max_steps=5000)
    assert not r.ok and "step limit" in r.error.message
    assert r.stdout == "finally\n"


@pytest.mark.parametrize("body, type_name", [
    ("x = torch.zeros(10 ** 9)", "RuntimeError"),        # the engine's --max-elements
    ("s = 'ab' * 10 ** 8", "MemoryError"),               # sequence size
    ("n = 3 ** 10 ** 7", "OverflowError"),               # integer size
    ("a = np.zeros(10 ** 9)", "RuntimeError"),           # NumPy's --max-elements
])
@pytest.mark.parametrize("handler", HANDLERS + ["except (MemoryError, OverflowError, RuntimeError):"])
def test_size_limits_go_through_every_handler(body, type_name, handler):
    src = f"import torch\nimport numpy as np\ntry:\n    {body}\n{handler}\n    print('caught')\n"
    r = run(src)
    assert not r.ok and r.stdout == ""
    assert r.error.type_name == type_name


def test_timeout_goes_through_handlers():
    src = "while True:\n    try:\n        pass\n    except:\n        pass\n"
    r = run(src, timeout=0.3, max_steps=10 ** 12)
    assert not r.ok and r.error.type_name == "TimeoutError"


def test_cli_exits_non_zero_on_a_caught_looking_step_limit(tmp_path):
    script = tmp_path / "loop.grad"
    script.write_text("while True:\n    try:\n        pass\n    except:\n        pass\n")
    proc = subprocess.run([sys.executable, "-m", "gradcli", "run", "--max-steps", "2000", str(script)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1
    assert "step limit of 2000 exceeded" in proc.stderr


def test_internal_error_is_not_caught(monkeypatch):
    def broken_print(self, *args, **kwargs):
        return {}["gradcli bug"]  # a KeyError inside gradcli's own code
    monkeypatch.setattr(Runtime, "print", broken_print)
    r = run("try:\n    print(1)\nexcept Exception:\n    pass\nprint('after')\n")
    assert isinstance(r.error, InternalError)
    assert r.stdout == ""


def test_keyboard_interrupt_is_not_caught(monkeypatch):
    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(Runtime, "print", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run("try:\n    print(1)\nexcept:\n    pass\nfinally:\n    pass\n")


def test_script_errors_are_caught_and_the_run_goes_on():
    r = run("import torch\nx = torch.ones(2, requires_grad=True)\ntry:\n    x.add_(1)\n"
            "except RuntimeError as e:\n    print('caught')\nprint('after')\n")
    assert r.ok, r.error
    assert r.stdout == "caught\nafter\n"


def test_handler_name_is_unbound_after_the_handler():
    r = run("try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    pass\ne\n")
    assert r.error.type_name == "NameError" and r.error.line == 5


def test_bare_raise_inside_a_function_called_from_a_handler():
    r = run("def again():\n    raise\ntry:\n    try:\n        [][0]\n    except IndexError:\n        again()\n"
            "except IndexError as e:\n    print('outer', e)\n")
    assert r.ok, r.error
    assert r.stdout == "outer list index out of range\n"


# ----------------------------------------------------------------------------- sandbox

@pytest.mark.parametrize("expr", [
    "e.__traceback__", "e.__context__", "e.__cause__", "e.__class__", "e.__dict__", "e.__suppress_context__",
    "e.with_traceback", "e.add_note", "e.gradcli_hint", "e.tb_frame", "ValueError.mro", "ValueError.__subclasses__",
    "RuntimeError.with_traceback", "'{0.__traceback__}'.format(e)", "'{0.args.__class__}'.format(e)",
    "'{e.__traceback__.tb_frame}'.format(e=e)", "format(e, '__traceback__')",
])
def test_exception_objects_expose_nothing_but_args(expr):
    src = ("import torch\nx = torch.ones(1, requires_grad=True)\ntry:\n    x.add_(1)\n"
           f"except RuntimeError as e:\n    v = {expr}\n    print('reached', v)\n")
    r = run(src)
    assert not r.ok, f"{expr} gave {r.stdout!r}"
    assert isinstance(r.error, GradScriptError) and not isinstance(r.error, InternalError)
    assert "reached" not in r.stdout


def test_exception_args_are_reachable():
    r = run("try:\n    raise ValueError('a', 2)\nexcept ValueError as e:\n    print(e.args, str(e), repr(e))\n"
            "    print('{0.args[1]}'.format(e))\n")
    assert r.stdout == "('a', 2) ('a', 2) ValueError('a', 2)\n2\n"


def test_memory_error_is_a_limit(monkeypatch):
    def out_of_memory(self, *args, **kwargs):
        raise MemoryError("Unable to allocate 8.00 GiB")  # what NumPy says under an address-space limit
    monkeypatch.setattr(Runtime, "print", out_of_memory)
    r = run("try:\n    print(1)\nexcept MemoryError:\n    pass\nexcept:\n    pass\n")
    assert not r.ok and r.error.type_name == "MemoryError"


@pytest.mark.parametrize("stmt", ["e.args = ()", "e.gradcli_hint = 'max_steps'", "del e.args", "e.note = 1"])
def test_exception_objects_are_read_only(stmt):
    r = run(f"try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    {stmt}\n    print('reached')\n")
    assert not r.ok and r.error.type_name == "AttributeError" and "reached" not in r.stdout


USER_EXC = ("class E(ValueError):\n    kind = 'mine'\n    def __init__(self, msg):\n        super().__init__(msg)\n"
            "        self.msg = msg\n")


def test_a_scripts_own_exception_class_is_raised_caught_and_read():
    r = run(USER_EXC + "try:\n    raise E('boom')\nexcept ValueError as e:\n"
            "    print(type(e), e, repr(e), e.args, e.msg, e.kind, isinstance(e, Exception))\n")
    assert r.stdout == "<class '__main__.E'> boom E('boom') ('boom',) boom mine True\n"
    r = run(USER_EXC + "print('before')\nraise E('out')\n")
    assert r.stdout == "before\n" and r.error.type_name == "E" and r.error.message == "out"


@pytest.mark.parametrize("expr", [
    "e.__traceback__", "e.__dict__", "e.with_traceback", "e.add_note", "E.with_traceback", "E.mro",
    "E.__subclasses__", "e.gradcli_hint", "'{0.__traceback__}'.format(e)", "E.args.__get__",
])
def test_a_scripts_exception_class_exposes_only_its_own_names(expr):
    r = run(USER_EXC + f"try:\n    raise E('x')\nexcept E as e:\n    e.gradcli_hint_text = 1\n    v = {expr}\n"
            "    print('reached', v)\n")
    assert not r.ok and "reached" not in r.stdout
    assert isinstance(r.error, GradScriptError) and not isinstance(r.error, InternalError)


@pytest.mark.parametrize("body", ["def __str__(self):\n        return 'x'", "__repr__ = None",
                                  "def __getattr__(self, n):\n        return 1"])
def test_a_scripts_exception_class_cannot_hook_protocols(body):
    r = run(f"print('a')\nclass E(Exception):\n    {body}\nprint('b')\n")
    assert not r.ok and r.stdout == "a\n" and r.error.type_name == "NameError"


def test_a_scripts_exception_class_stays_catchable_when_it_imitates_a_limit():
    r = run("class E(RecursionError):\n    pass\ntry:\n    raise E('mine')\nexcept E as e:\n    print('caught', e)\n")
    assert r.ok and r.stdout == "caught mine\n"


@pytest.mark.parametrize("name", ["MemoryError", "RecursionError", "TimeoutError", "OverflowError"])
def test_the_scripts_own_raise_of_a_limit_like_type_is_caught(name):
    r = run(f"try:\n    raise {name}('mine')\nexcept {name} as e:\n    print('caught', e)\n")
    assert r.ok and r.stdout == "caught mine\n"


def test_module_backward_hook_of_a_script_misbehaving_is_a_script_error():
    # register_backward_hook takes a script's callable: a non-callable, a hook that raises and a hook
    # returning the wrong number of gradients are the script's errors (torch's messages), never gradcli's
    pre = "import torch\nm = torch.nn.Linear(2, 1)\n"
    go = "m(torch.ones(1, 2)).sum().backward()\n"
    r = run(pre + "m.register_backward_hook(3)\n" + go)
    assert r.error.type_name == "TypeError" and r.error.message == "'int' object is not callable"
    r = run(pre + "def h(mod, gi, go):\n    raise ValueError('from hook')\nm.register_backward_hook(h)\n"
            "try:\n    " + go + "except ValueError as e:\n    print('caught', e)\n")
    assert r.ok and r.stdout.endswith("caught from hook\n")
    r = run(pre + "m.register_backward_hook(lambda mod, gi, go: (1, 2, 3, 4))\n" + go)
    assert r.error.type_name == "RuntimeError" and "got 4, but expected 3" in r.error.message
    for e in (r.error,):
        assert not isinstance(e, InternalError)
