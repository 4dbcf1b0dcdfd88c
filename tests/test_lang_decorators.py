"""User decorators (gradcli/lang/classes.py: decorate, _decorate_class): any expression, evaluated top-down
before the def or class runs, applied bottom-up, the name bound to what the last returns; errors at the
decorator's line as Python reports them. tests/golden/scripts/lang_user_decorators.grad holds the oracle's
output of the common forms; these check the rest, against torch (tools/make_goldens.py's run_one), skipped without it."""
from __future__ import annotations

import pytest

from case_support import seeded_error, seeded_out, seeded_run
from gradcli.testing.golden import error_text, normalized_error_text
from tool_modules import load_tool

AGREE = [
    # a callable class as decorator (memoisation), a decorator defined in the class body, a class decorator
    # returning a subclass (super() inside names the class the statement made)
    "class Memo:\n    def __init__(self, fn):\n        self.fn = fn\n        self.cache = {}\n"
    "    def __call__(self, n):\n        if n not in self.cache:\n            self.cache[n] = self.fn(n)\n"
    "        return self.cache[n]\n@Memo\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
    "print(fib(60), type(fib).__name__)\n",
    "class K:\n    def twice(fn):\n        def w(self, x):\n            return 2 * fn(self, x)\n        return w\n"
    "    @twice\n    def m(self, x):\n        return x + 1\nprint(K().m(3))\n",
    "def m(f):\n    print('global m')\n    return f\nclass A:\n    @m\n    def m(self):\n        return 1\nprint(A().m())\n",
    "def sub(cls):\n    class S(cls):\n        def hi(self):\n            return 'sub ' + super().hi()\n    return S\n"
    "@sub\nclass Base:\n    def hi(self):\n        return 'base'\nprint(Base().hi(), Base.__name__)\n",
    "from dataclasses import dataclass\ndef ident(c):\n    return c\n@dataclass\n@ident\nclass Cfg:\n    n: int = 3\n"
    "print(Cfg(), Cfg(4))\n",
    "x = lambda f: f\n@x\ndef g():\n    return 5\nprint(g())\n@(lambda f: f)\n@[x][0]\ndef h():\n    return 6\nprint(h())\n",
    # functools.wraps: a timing wrapper, a method's logging wrapper, update_wrapper, a builtin wrapped
    'import functools\nfrom functools import wraps\nimport time\nimport torch\n\n\ndef timer(func):\n    @functools.wraps(func)\n    def wrapper(*args, **kwargs):\n        start = time.perf_counter()\n        value = func(*args, **kwargs)\n        elapsed = time.perf_counter() - start\n        print(f"Finished {func.__name__!r} in {\'some\' if elapsed >= 0 else \'no\'} secs")\n        return value\n    return wrapper\n\n\n@timer\ndef train(n):\n    return torch.ones(n).sum()\n\n\nprint(train(3), train.__name__)\n\n\ndef log(f):\n    @wraps(f)\n    def inner(x):\n        return f(x)\n    return inner\n\n\nclass M:\n    @log\n    def step(self):\n        return 1\n\n\nprint(M.step.__name__, M().step())\ng = functools.update_wrapper(lambda y: y, train)\nprint(g.__name__, g(2))\nprint(wraps(len)(lambda: 0).__name__)\ntry:\n    inner_of_bad = log(train)(1, 2)\nexcept TypeError as e:\n    print(e)\n',
    # torch's grad-mode decorators on a class: a lambda calling it, with torch's FutureWarning
    "import torch\n@torch.no_grad()\nclass C:\n    def __init__(self, x):\n        self.g = torch.is_grad_enabled()\n"
    "        self.x = x\nc = C(3)\nprint(C.__name__, c.g, c.x, type(c).__name__)\n@torch.inference_mode()\nclass D:\n"
    "    pass\nprint(D.__name__, type(D()).__name__, torch.is_inference_mode_enabled())\n",
    # errors: where Python reports them
    "def deco(fn):\n    raise ValueError('no ' + fn.__name__)\n@deco\ndef f():\n    pass\n",
    "def deco():\n    pass\n@deco\ndef f():\n    pass\n",
    "@5\ndef f():\n    pass\n",
    "def d(f):\n    return 3\n@d\ndef f():\n    pass\nprint(f)\nf()\n",
    "@undefined_name\ndef f():\n    pass\n",
    "def d(f):\n    return 3\n@d\nclass C:\n    pass\nprint(C)\nC()\n",
    "import torch\n@torch.exp\ndef f(x):\n    return x\n",
    "def e(tag):\n    print('eval', tag)\n    return lambda f: (print('apply', tag), f)[1]\n"
    "class A:\n    @staticmethod\n    @e(1)\n    @e(2)\n    def s(x=print('default')):\n        return x\nprint(A.s(4))\n",
]


@pytest.fixture(scope="module")
def make_goldens():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13."):
        pytest.skip(f"the oracle is torch 2.13, this is {torch.__version__}")
    return load_tool("make_goldens")


@pytest.mark.parametrize("src", AGREE)
def test_decorators_agree_with_python(src, make_goldens, tmp_path):
    script = tmp_path / "t.grad"
    script.write_text(src, encoding="utf-8")
    oracle = make_goldens.run_one(script)
    result = seeded_run(src)
    assert result.error is None or result.error.type_name != "InternalError", result.error.traceback_text
    assert result.stdout.encode("utf-8") == oracle.out
    if oracle.err is None:
        assert result.error is None, (result.error.type_name, result.error.message)
    else:
        assert result.error is not None, f"torch raised {oracle.err.splitlines()[0]}"
        assert f"{error_text(result.error.type_name, result.error.message)}\nline {result.error.line}" == \
            f"{normalized_error_text(oracle.err.splitlines()[0])}\n{oracle.err.splitlines()[1]}"


@pytest.mark.parametrize("src, line", [
    ("def deco(fn):\n    raise ValueError('no')\n@deco\ndef f():\n    pass\n", 2),
    ("def deco():\n    pass\n\n@deco\ndef f():\n    pass\n", 4),
    ("@5\ndef f():\n    pass\n", 1),
    ("def d(c):\n    return c.missing\n@d\nclass C:\n    pass\n", 2),
    ("def d():\n    pass\n@d\nclass C:\n    pass\n", 3),
])
def test_errors_are_located_where_python_locates_them(src, line):
    assert seeded_error(src).line == line


def test_the_markers_keep_their_rules():
    assert seeded_error("@staticmethod\ndef f(x):\n    return x\n").type_name == "SyntaxError"
    assert seeded_error("f = property(len)\n").type_name == "NameError"
    assert seeded_out("import torch\nfrom torch.autograd.function import once_differentiable as od\n"
                      "class F(torch.autograd.Function):\n    @staticmethod\n    @od\n    def backward(ctx, g):\n"
                      "        return g\nprint(F.backward(None, 2))\n") == "2\n"


def test_a_decorator_call_counts_as_a_step_and_recursion_stops():
    result = seeded_run("def d(f):\n    return d(f)\n@d\ndef g():\n    pass\n")
    assert result.error is not None and result.error.type_name == "RecursionError"


@pytest.mark.parametrize("src, message", [
    ("import functools\nclass W:\n    pass\nfunctools.update_wrapper(W(), len)\n",
     "functools.wraps updates a function of the script in GradScript, not a 'W' object"),
    ("import functools\nfunctools.wraps(len)(print)\n", "not a 'builtin_function_or_method' object"),
    ("import functools\nfunctools.wraps(len, assigned=())\n", "update_wrapper(assigned=..., updated=...) is not"),
])
def test_wraps_updates_the_scripts_functions_only(src, message):
    e = seeded_error(src)
    assert e.type_name == "TypeError" and message in e.message and e.line == src.count("\n")
