"""A script's own classes (plain ones, `class A(object)`, Dataset subclasses, and the protocol methods
they may define) as doors of the sandbox: what they print is held to PyTorch by the goldens
(tests/golden/scripts/script_classes_*.grad, tensor_from_sequences.grad); here each way through them
that Python would open is tried and must end in a located error of the script's (or gradcli's
limit), never a success, an internal error or a traceback."""
from __future__ import annotations

from functools import partial
import pytest

from gradcli.lang.pyvalues import public_attributes
from gradcli.lang.runner import RunOptions, Session

from case_support import refused_script, run_script

run = partial(run_script, "", "classes.grad", timeout=20)
refused = partial(refused_script, "", "classes.grad", timeout=20)


# ---------------------------------------------------------------- what a class may define

HOOKS = ["__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__del__", "__init_subclass__",
         "__class_getitem__", "__reduce__", "__reduce_ex__", "__hash__", "__get__", "__set__", "__set_name__",
         "__index__", "__format__", "__new__", "__instancecheck__", "__subclasscheck__", "__dir__", "__bool__",
         "__add__", "__contains__", "__setitem__", "__copy__", "__deepcopy__", "__getstate__", "__prepare__",
         "__mro_entries__"]


@pytest.mark.parametrize("name", HOOKS)
@pytest.mark.parametrize("base", ["", "(object)", "(nn.Module)", "(Dataset)"])
def test_other_python_hooks_cannot_be_defined(name, base):
    src = ("import torch.nn as nn\nfrom torch.utils.data import Dataset\nprint('ran')\n"
           f"class A{base}:\n    def {name}(self, *args):\n        return 1\n")
    r = refused(src, "NameError", "a class may define these Python protocols only: __init__, __len__")
    assert r.error.line == 5


@pytest.mark.parametrize("name", ["__slots__", "__dict__", "__getattr__", "__hash__", "__class__", "__module__"])
def test_class_attributes_starting_with_underscore_are_refused(name):
    refused(f"class A:\n    {name} = 1\n", "NameError", "reserved in GradScript")


@pytest.mark.parametrize("body", ["def __str__(self):\n        return 'x'", "def __repr__(self):\n        return 'x'",
                                  "def __eq__(self, o):\n        return True", "def __len__(self):\n        return 1"])
def test_an_exception_class_keeps_pythons_protocols(body):
    # gradcli renders an uncaught exception after the run: no script code may run there
    r = refused(f"print('a')\nclass E(ValueError):\n    {body}\nprint('b')\n", "NameError",
                "not allowed in an exception class")
    assert r.stdout == "a\n" and r.error.line == 3


@pytest.mark.parametrize("src", [
    "class A(metaclass=type):\n    pass",
    "class A(object, metaclass=type):\n    pass",
    "class A:\n    pass\nclass B:\n    pass\nclass C(A, B):\n    pass",
])
def test_metaclasses_and_several_bases_are_syntax_errors(src):
    refused(src, "SyntaxError")


@pytest.mark.parametrize("base", ["type", "int", "str", "list", "dict", "tuple", "super", "range", "torch.Tensor",
                                  "torch.nn.Parameter", "torch.Size", "torch.utils.data.DataLoader",
                                  "torch.optim.SGD", "type(print)", "type(iter([]))", "type(None)",
                                  "(lambda: 1)", "3", "torch", "torch.autograd.graph.Node"])
def test_other_bases_are_refused(base):
    refused(f"import torch\nclass A({base}):\n    pass\n", "TypeError",
            "GradScript classes must derive from object (or no base), another class of the script")


def test_the_refused_base_type_is_named_as_python_names_it():
    r = refused("class A(type):\n    pass\n", "TypeError")
    assert r.error.message.endswith("(got type)")


# ---------------------------------------------------------------- what a script can reach of one

SETUP = ("import torch\nclass A:\n    k = 1\n    def __init__(self):\n        self.x = 1\n"
         "    def m(self):\n        return 1\n    @property\n    def p(self):\n        return 2\n"
         "    @classmethod\n    def c(cls):\n        return 3\n    @staticmethod\n    def s():\n        return 4\n"
         "    def __len__(self):\n        return 1\n    def __repr__(self):\n        return 'A()'\n"
         "a = A()\n")


@pytest.mark.parametrize("expr", [
    "a.__dict__", "a.__class__", "a.__class__.__mro__", "A.__mro__", "A.__bases__", "A.__subclasses__()",
    "A.__dict__", "a.__init__.__func__", "A.__init__.__globals__", "a.__len__.__self__", "A.__len__.__code__",
    "A.mro()", "A.__init__(1)",
    "A.p.fget", "A.p.__get__", "a.m.__func__", "a.m.__self__", "a.m.__globals__", "A.c.__func__", "A.c.__self__",
    "A.s.__globals__", "A.s.closure", "A.s.rt", "a.m.im_func", "type(a).__mro__", "type(a).mro()",
    "object.__subclasses__()", "object.mro()", "object().__class__", "object().__reduce__()",
    "'{0.__class__}'.format(a)", "'{0.m.__func__}'.format(a)", "f'{a.__dict__}'", "A._gradscript_class",
    "a._gradscript_class", "A.__qualname__", "A.__module__",
])
def test_a_class_and_its_objects_expose_no_internals(expr):
    r = refused(SETUP + f"print('reached', {expr})\n")
    assert "reached" not in r.stdout


def test_what_a_plain_object_gives_is_its_own():
    r = run(SETUP + "print(a.x, a.k, a.m(), a.p, A.c(), a.c(), A.s(), a.s(), len(a), a, [a], type(a) is A)\n"
                    "b = type(a)()\nprint(b, isinstance(b, A), type(a).__name__, a.__class__.__name__)\n")
    assert r.error is None, r.error.message
    assert r.stdout == "1 1 1 2 3 3 4 4 1 A() [A()] True\nA() True A A\n"
    # its protocol methods read explicitly, as Python reads them (gradcli/lang/dunders.py)
    r = run(SETUP + "print(a.__len__(), a.__repr__(), A.__len__(a), A.__init__(a), a.x)\n")
    assert r.error is None, r.error.message
    assert r.stdout == "1 A() 1 None 1\n"


def test_super_reaches_init_and_the_protocol_methods_only():
    r = run("class A:\n    def __repr__(self):\n        return 'A:' + super().__repr__()[:10]\nprint(A())\n")
    assert r.stdout == "A:<__main__.\n"
    r = refused("class A:\n    def f(self):\n        return super().__class__\nprint(A().f())\n", "AttributeError")
    assert r.error.line == 3
    r = run("class A:\n    def __init__(self):\n        super().__init__()\n        self.v = 1\nclass B(A):\n"
            "    def __init__(self):\n        super().__init__()\n        self.w = 2\nb = B()\nprint(b.v, b.w)\n")
    assert r.stdout == "1 2\n"


def test_method_markers_and_the_script_decorators_inside_classes():
    for name in ("property", "classmethod", "staticmethod"):
        refused(f"@{name}\ndef f(x):\n    return x\n", "SyntaxError", "decorates a method")
        refused(f"f = {name}(len)\n", "NameError")
    assert run("def deco(f):\n    return f\nclass A:\n    @deco\n    def m(self):\n        return 1\nprint(A().m())\n"
               ).stdout == "1\n"
    refused("class A:\n    @q.setter\n    def q(self, v):\n        pass\n", "NameError", "name 'q' is not defined")
    refused("class A:\n    def q(self):\n        return 1\n    @q.setter\n    def q(self, v):\n        pass\n",
            "AttributeError", "'function' object has no attribute 'setter'")
    r = run("class A:\n    @property\n    def p(self):\n        return 1\na = A()\na.p = 2\n")
    assert r.error.type_name == "AttributeError" and r.error.message == "property 'p' of 'A' object has no setter"


def test_completion_lists_a_property_without_running_it():
    session = Session(RunOptions())
    r = session.run("class A:\n    def __init__(self):\n        self.x = 1\n    @property\n    def p(self):\n"
                    "        print('ran')\n        return 1\na = A()\n")
    assert r.error is None
    names = public_attributes(r.variables["a"])
    assert "p" in names and "x" in names
    assert session.complete("a.") and r.stdout == ""


# ---------------------------------------------------------------- limits through protocol methods

@pytest.mark.parametrize("body, use", [
    ("def __repr__(self):\n        return repr(self)", "repr(A())"),
    ("def __repr__(self):\n        return repr(self)", "print(A())"),
    ("def __str__(self):\n        return f'{self}'", "str(A())"),
    ("def __eq__(self, o):\n        return self == o", "A() == 1"),
    ("def __len__(self):\n        return len(self)", "len(A())"),
    ("def __len__(self):\n        return len(self)", "bool(A())"),
    ("def __getitem__(self, i):\n        return self[i]", "A()[0]"),
    ("def __call__(self):\n        return self()", "A()()"),
    ("def __iter__(self):\n        return iter(self)", "iter(A())"),
    ("def __init__(self):\n        A()", "A()"),
])
def test_recursion_through_a_protocol_method_is_the_depth_limit(body, use):
    src = f"class A:\n    {body}\ntry:\n    {use}\nexcept Exception:\n    print('caught')\n"
    r = refused(src, "RecursionError", "maximum recursion depth exceeded")
    assert "caught" not in r.stdout


@pytest.mark.parametrize("body, use", [
    ("def __iter__(self):\n        return self\n    def __next__(self):\n        return 1", "for v in A():\n        pass"),
    ("def __iter__(self):\n        return self\n    def __next__(self):\n        return 1", "list(A())"),
    ("def __getitem__(self, i):\n        return i", "list(A())"),
    ("def __getitem__(self, i):\n        return i", "0.5 in A()"),
    ("def __len__(self):\n        while True:\n            pass", "len(A())"),
])
def test_protocol_methods_without_end_are_the_step_limit(body, use):
    src = f"class A:\n    {body}\ntry:\n    {use}\nexcept Exception:\n    print('caught')\n"
    r = refused(src, "RuntimeError", "step limit", max_steps=20_000)
    assert "caught" not in r.stdout


def test_a_huge_len_is_cpythons_error_and_torch_tensor_checks_it_against_the_limit():
    refused("class A:\n    def __len__(self):\n        return 10 ** 30\nlen(A())\n", "OverflowError",
            "cannot fit 'int' into an index-sized integer")
    src = ("import torch\nclass A:\n    def __len__(self):\n        return 10 ** 12\n"
           "    def __getitem__(self, i):\n        return 1.0\ntorch.tensor(A())\n")
    refused(src, "RuntimeError", "exceeds the limit")
    src = ("import torch\nclass Deep:\n    def __len__(self):\n        return 1\n"
           "    def __getitem__(self, i):\n        return Deep()\ntorch.tensor(Deep())\n")
    refused(src, "ValueError", "too many dimensions 'Deep'")


# ---------------------------------------------------------------- with: __exit__ and gradcli's stops

EXIT = ("class T:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, e, tb):\n"
        "        print('exit', t, e, tb)\n        return True\n")


def test_exit_swallows_the_scripts_own_errors_as_python_does():
    r = run(EXIT + "with T():\n    raise ValueError('v')\nprint('after')\n")
    assert r.error is None and r.stdout.startswith("exit <class 'ValueError'> v <traceback object at 0x")
    assert r.stdout.endswith(">\nafter\n")


@pytest.mark.parametrize("body, type_name", [
    ("while True:\n        pass", "RuntimeError"),
    ("def f():\n        return f()\n    f()", "RecursionError"),
    ("import torch\n    torch.ones(10 ** 10)", "RuntimeError"),
])
def test_exit_never_swallows_a_limit_nor_sees_it(body, type_name):
    r = refused(EXIT + f"with T():\n    {body}\nprint('after')\n", type_name, max_steps=20_000)
    assert "after" not in r.stdout
    assert "exit" not in r.stdout or r.stdout == "exit None None None\n"


@pytest.mark.parametrize("expr", ["tb.tb_frame", "tb.tb_next", "tb.__class__", "e.__traceback__",
                                  "e.with_traceback", "t.__subclasses__()", "t.mro()"])
def test_what_exit_is_given_exposes_nothing(expr):
    src = ("class T:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, e, tb):\n"
           f"        print('reached', {expr})\n        return True\nwith T():\n    1 / 0\n")
    r = refused(src)
    assert "reached" not in r.stdout


# ---------------------------------------------------------------- Dataset subclasses

def test_a_dataset_subclass_reaches_nothing_of_the_engines_dataset():
    head = ("from torch.utils.data import Dataset\nclass D(Dataset):\n    def __len__(self):\n        return 2\n"
            "    def __getitem__(self, i):\n        return i\nd = D()\n")
    for expr in ("d.__add__", "D.__getitem__.__globals__", "D.__mro__", "d.__dict__", "D.__module__",
                 "Dataset.__getitem__", "Dataset.__add__"):
        refused(head + f"print({expr})\n")
    r = run(head + "print(len(d), d[1], [d[i] for i in range(len(d))], len(d + d))\n")
    assert r.stdout == "2 1 [0, 1] 4\n"
