"""`import warnings` in GradScript (gradcli/lang/pywarnings.py, safe_regex.py): Python 3.11's semantics
over the run's warnings (the goldens warnings_*.grad hold stdout against torch), and each door the
module opens tried with an attack: patterns that backtrack for ever, categories that are no classes,
hostile or huge messages, recursion inside catch_warnings, warnings from hooks and collected
generators, what a WarningMessage or the module gives away, the filters' reach outside the session."""
from __future__ import annotations

import random
import re
import sys
import time
import warnings as py_warnings

import pytest

from gradcli.lang.runner import InternalError, RunOptions, Session, run_source
from gradcli.lang.safe_regex import MAX_STATES, LinearPattern, UnsupportedPattern

NONLEAF = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"


def run(src, **options):
    return run_source(src, "t.grad", RunOptions(**{"seed": 0, **options}))


def out(src, **options):
    result = run(src, **options)
    assert result.error is None, f"{result.error.type_name}: {result.error.message} (line {result.error.line})"
    return result.stdout


def err(src, **options):
    result = run(src, **options)
    assert result.error is not None, "expected an error"
    assert not isinstance(result.error, InternalError), result.error.traceback_text
    return result.error


# ----------------------------------------------------------------------------- the matcher

@pytest.mark.parametrize("flags", [0, re.I])
def test_linear_pattern_answers_as_re_match(flags):
    patterns = [".*TypedStorage.*", "ignore", "a|b", "(a+)+$", "^x\\b", "[a-c]{2,4}d", "(?i:AB)c", "\\w+\\s\\d*$",
                "a*?b", "", "x{0,3}y", "(ab|a)*c\\Z", "\\Bb", "ß", "(?m)^b", ".*\n", "a$", "(?-i:A)b", "[^a]+", "\\AA",
                "(?s).+1", "(a|ab)(c|bcd)d"]
    alphabet = "abcdxyAB \n1_ßTypedStorage"
    rng = random.Random(7)
    for pattern in patterns:
        linear, real = LinearPattern(pattern, flags), re.compile(pattern, flags)
        for _ in range(200):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9)))
            assert linear.match(text) == bool(real.match(text)), (pattern, flags, text)


# atomic groups and possessive repeats are Python 3.11's: 3.10's re refuses them itself (re.error)
_NEW_IN_311 = () if sys.version_info >= (3, 11) else ("(?>a)", "a*+")


@pytest.mark.parametrize("pattern", ["(a)\\1", "(?=a)b", "(?<!a)b", "(?>a)", "a*+", "(a)?(?(1)b)"])
def test_backtracking_constructs_are_refused(pattern):
    if pattern in _NEW_IN_311:
        with pytest.raises(re.error):
            LinearPattern(pattern)
        return
    with pytest.raises(UnsupportedPattern):
        LinearPattern(pattern)
    e = err(f"import warnings\nwarnings.filterwarnings('ignore', message={pattern!r})")
    assert e.type_name == "NotImplementedError" and "linear time" in e.message
    assert out(f"import warnings\ntry:\n    warnings.filterwarnings('ignore', message={pattern!r})\n"
               "except NotImplementedError:\n    print('refused')\n") == "refused\n"


def test_pattern_with_too_many_states_is_refused():
    with pytest.raises(UnsupportedPattern, match=f"{MAX_STATES:,}"):
        LinearPattern("(?:a{1,200}){200}")


def test_malformed_pattern_is_res_error_where_the_filter_is_made():
    e = err("import warnings\nwarnings.filterwarnings('ignore', message='(')")
    assert (e.type_name, e.message, e.line) == ("error", "missing ), unterminated subpattern at position 0", 2)


def test_pathological_pattern_cannot_hang_the_run():
    """(a+)+$ against 'aaa...b' is exponential for Python's re (C code no limit can stop); here it is
    linear, and each character is a step of the run."""
    src = ("import warnings\nwarnings.filterwarnings('ignore', message='(a+)+$')\n"
           "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('a' * {n} + 'b')\nprint(len(w))\n")
    start = time.monotonic()
    assert out(src.format(n=3000)) == "1\n"  # no match: recorded (re would need 2**3000 steps)
    assert time.monotonic() - start < 30
    start = time.monotonic()
    e = err(src.format(n=10**6), max_steps=50_000)
    assert e.type_name == "RuntimeError" and "step limit" in e.message
    assert time.monotonic() - start < 30


def test_module_pattern_matches_main_only():
    src = ("import warnings\nwarnings.filterwarnings('error', module='torch')\nwarnings.warn('a')\n"
           "warnings.filterwarnings('error', module='__ma')\ntry:\n    warnings.warn('b')\n"
           "except UserWarning as e:\n    print('caught', e)\n")
    result = run(src)
    assert result.error is None and result.stdout == "caught b\n"
    assert [(w.category, w.message, w.line) for w in result.warnings] == [("UserWarning", "a", 3)]


# ----------------------------------------------------------------------------- categories

def test_warning_classes_are_builtins_and_exceptions():
    assert out("print(issubclass(UserWarning, Warning), issubclass(Warning, Exception), "
               "[c.__name__ for c in (DeprecationWarning, FutureWarning, RuntimeWarning, ResourceWarning)])\n"
               "try:\n    raise FutureWarning('f')\nexcept Warning as e:\n    print(repr(e))\n") == \
        "True True ['DeprecationWarning', 'FutureWarning', 'RuntimeWarning', 'ResourceWarning']\nFutureWarning('f')\n"


@pytest.mark.parametrize("category, message", [("5", "category must be a class"),
                                               ("ValueError", "category must be a Warning subclass"),
                                               ("'UserWarning'", "category must be a class")])
def test_filter_category_must_be_a_warning_class(category, message):
    e = err(f"import warnings\nwarnings.filterwarnings('ignore', category={category})")
    assert (e.type_name, e.message) == ("AssertionError", message)


def test_simplefilter_category_not_a_class_fails_at_the_warning_as_python():
    e = err("import warnings\nwarnings.simplefilter('ignore', 'x')\nwarnings.warn('w')\n")
    assert (e.type_name, e.line) == ("TypeError", 3)
    assert e.message == "issubclass() arg 2 must be a class, a tuple of classes, or a union"
    # the engine's warning meets the same filter: the script's error, at the site, never gradcli's
    e = err(NONLEAF + "import warnings\nwarnings.simplefilter('ignore', 5)\ny.grad\n")
    assert (e.type_name, e.line) == ("TypeError", 6)


@pytest.mark.parametrize("body", ["def __subclasscheck__(cls, sub):\n        return True",
                                  "def __instancecheck__(self, x):\n        return True"])
def test_script_class_cannot_hook_subclass_checks(body):
    e = err(f"class Sneaky(UserWarning):\n    {body}\n")
    assert e.type_name == "NameError" and "__" in e.message


def test_metaclass_is_refused():
    assert err("class Meta(UserWarning, metaclass=type):\n    pass\n").type_name in ("SyntaxError", "TypeError",
                                                                                      "NameError")


def test_script_subclass_categories_match_by_issubclass():
    src = ("import warnings\nclass A(UserWarning):\n    pass\nclass B(A):\n    pass\n"
           "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('ignore', A)\n"
           "    warnings.warn('b', B)\n    warnings.warn('u')\n    warnings.warn(B('inst'))\n"
           "print([(m.category.__name__, str(m.message)) for m in w])\n")
    assert out(src) == "[('UserWarning', 'u')]\n"


# ----------------------------------------------------------------------------- messages

def test_message_whose_str_raises_or_loops():
    src = ("import warnings\nclass M:\n    def __str__(self):\n        {body}\n"
           "try:\n    warnings.warn(M())\nexcept ValueError as e:\n    print('caught', e)\n")
    assert out(src.format(body="raise ValueError('no str')")) == "caught no str\n"
    e = err(src.format(body="while True:\n            pass"), max_steps=20_000)
    assert e.type_name == "RuntimeError" and "step limit" in e.message


def test_huge_message_repeats_within_a_bound_and_is_filtered_in_bounded_steps():
    # each time, as torch-echo's "always", while the repeats' text stays under MAX_REPEATED_WARNING_TEXT
    result = run("import warnings\nfor i in range(30):\n    warnings.warn('x' * 1_000_000)\n")
    assert result.error is None and len(result.warnings) == 5 and len(result.warnings[0].message) == 10**6
    result = run("import warnings\nfor i in range(1100):\n    warnings.warn('x')\n")
    assert result.error is None and len(result.warnings) == 1001
    e = err("import warnings\nwarnings.filterwarnings('ignore', message='.*y')\nwarnings.warn('x' * 1_000_000)\n",
            max_steps=100_000)
    assert "step limit" in e.message


def test_error_action_on_the_engines_warning_is_the_scripts_error():
    e = err(NONLEAF + "import warnings\nwarnings.simplefilter('error')\nprint(y.grad)\n")
    assert (e.type_name, e.line) == ("UserWarning", 6) and e.message.startswith("The .grad attribute")


# ----------------------------------------------------------------------------- catch_warnings

def test_recursion_inside_catch_warnings_restores_the_filters():
    session = Session(RunOptions(max_depth=50))
    first = session.run("import warnings\ndef r(n):\n    with warnings.catch_warnings():\n"
                        "        warnings.simplefilter('ignore')\n        r(n + 1)\nr(0)\n", "t.grad")
    assert first.error is not None and first.error.type_name == "RecursionError"
    second = session.run("print(warnings.filters)\nwarnings.warn('still shown')\n", "t.grad")
    assert second.error is None and second.stdout == "[('always', None, <class 'Warning'>, None, 0)]\n"
    assert [w.message for w in second.warnings] == ["still shown"]


def test_catch_warnings_exits_on_a_limit_and_on_an_error():
    session = Session(RunOptions(max_steps=10_000))
    assert session.run("import warnings\nwith warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n"
                       "    while True:\n        pass\n", "t.grad").error is not None
    assert session.run("with warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n    1 / 0\n",
                       "t.grad").error.type_name == "ZeroDivisionError"
    again = session.run("warnings.warn('visible')\n", "t.grad")
    assert [w.message for w in again.warnings] == ["visible"]


def test_warnings_from_a_hook_and_a_collected_generator():
    src = (NONLEAF + "import warnings\ndef hook(g):\n    warnings.warn('in hook')\n    return g\n"
           "h = x.register_hook(hook)\ndef gen():\n    try:\n        yield 1\n    finally:\n        warnings.warn('closing')\n"
           "with warnings.catch_warnings(record=True) as w:\n    y.sum().backward()\n    g = gen()\n    first = next(g)\n"
           "    del g\nprint([(str(m.message), m.lineno) for m in w])\n")
    assert out(src) == "[('in hook', 6), ('closing', 13)]\n"


def test_generator_collected_after_the_run_warns_quietly():
    session = Session(RunOptions())
    result = session.run("import warnings\ndef gen():\n    try:\n        yield 1\n    finally:\n"
                         "        warnings.warn('late')\ng = gen()\nnext(g)\n", "t.grad")
    assert result.error is None
    del session.globals["g"]  # collected outside any run: no traceback, no exception
    assert session.run("print('next run')\n", "t.grad").stdout == "next run\n"


# ----------------------------------------------------------------------------- what the script can reach

@pytest.mark.parametrize("expr", ["m.__dict__", "m._category_name", "m.message.__traceback__", "m.__class__.__init__",
                                  "warnings.warn.__globals__", "m.category.__subclasses__", "warnings.filters[0][1].linear",
                                  "warnings.catch_warnings().__enter__", "warnings.filters[0][1].match"])
def test_warning_message_and_module_expose_no_internals(expr):
    src = ("import warnings\nwarnings.filterwarnings('ignore', message='zz')\n"
           "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('hi')\nm = w[0]\n"
           f"print({expr})\n")
    e = err(src)
    assert e.type_name in ("AttributeError", "SyntaxError", "NameError"), (e.type_name, e.message)


def test_warning_message_fields():
    src = ("import warnings\nwith warnings.catch_warnings(record=True) as w:\n    warnings.warn('hi')\n"
           "m = w[0]\nprint(m.message, m.category.__name__, m.filename, m.lineno, m.file, m.line, m.source)\nprint(m)\n")
    assert out(src) == ("hi UserWarning t.grad 3 None None None\n{message : UserWarning('hi'), category : "
                        "'UserWarning', filename : 't.grad', lineno : 3, line : None}\n")


@pytest.mark.parametrize("stmt", ["warnings.showwarning = print", "warnings.filters = []",
                                  "warnings.formatwarning = str", "del warnings.warn"])
def test_module_attributes_cannot_be_assigned(stmt):
    assert err(f"import warnings\n{stmt}\n").type_name == "AttributeError"


@pytest.mark.parametrize("change", ["clear()", "append(('error', None, Warning, None, 0))", "insert(0, 1)", "pop()",
                                    "remove(warnings.filters[0])", "sort()", "reverse()", "extend([])",
                                    ])
def test_filters_list_refuses_a_change_and_pythons_filters_are_untouched(change):
    before = list(py_warnings.filters)
    e = err(f"import warnings\nwarnings.filters.{change}\n")
    assert (e.type_name, e.line) == ("TypeError", 2) and "warnings.filters cannot be changed in GradScript" in e.message
    for stmt in ("warnings.filters[0] = 1", "del warnings.filters[:]", "warnings.filters += []", "warnings.filters *= 2"):
        e = err(f"import warnings\n{stmt}\n")
        assert e.type_name == "TypeError" and "warnings.filters cannot be changed" in e.message, stmt
    assert py_warnings.filters == before
    with py_warnings.catch_warnings(record=True) as caught:  # gradcli's own warnings handling, after the run
        py_warnings.simplefilter("always")
        py_warnings.warn("gradcli's own", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["gradcli's own"]


def test_filters_list_is_the_live_list_that_catch_warnings_swaps():
    src = ("import warnings\nf = warnings.filters\nwarnings.simplefilter('ignore', DeprecationWarning)\n"
           "print(f is warnings.filters, len(f), type(f), f[0][0], isinstance(f, list), f + [] == f)\n"
           "with warnings.catch_warnings():\n    warnings.simplefilter('error')\n"
           "    print(len(warnings.filters), f is warnings.filters, len(f))\n"
           "print(len(warnings.filters), f is warnings.filters)\nwarnings.resetwarnings()\nprint(f)\n")
    assert out(src) == "True 2 <class 'list'> ignore True True\n3 False 2\n2 True\n[]\n"


def test_warn_explicit_is_pythons():
    src = ("import warnings\nwith warnings.catch_warnings(record=True) as log:\n"
           "    warnings.warn_explicit('explicit', UserWarning, 'mod.py', 7)\n"
           "    warnings.warn_explicit(UserWarning('inst'), None, 'other.py', 3, module='m')\n"
           "    warnings.simplefilter('default')\n    reg = {}\n"
           "    warnings.warn_explicit('once?', RuntimeWarning, 'x.py', 1, registry=reg)\n"
           "    warnings.warn_explicit('once?', RuntimeWarning, 'x.py', 1, registry=reg)\n"
           "    warnings.warn_explicit('twice', RuntimeWarning, 'x.py', 1)\n"
           "    warnings.warn_explicit('twice', RuntimeWarning, 'x.py', 1)\n"
           "    warnings.filterwarnings('ignore', module='skip')\n"
           "    warnings.warn_explicit('skipped', UserWarning, 'skip.py', 1)\n"
           "for m in log:\n    print(m.message, m.category.__name__, m.filename, m.lineno)\n"
           "print(sorted(k for k in reg if k != 'version'))\n")
    assert out(src) == ("explicit UserWarning mod.py 7\ninst UserWarning other.py 3\nonce? RuntimeWarning x.py 1\n"
                        "twice RuntimeWarning x.py 1\ntwice RuntimeWarning x.py 1\n"
                        "[('once?', <class 'RuntimeWarning'>, 1)]\n")
    assert err("import warnings\nwarnings.warn_explicit('m', UserWarning, 'x.py', 1, registry=[])\n").message == \
        "'registry' must be a dict or None, not 'list'"
    assert err("import warnings\nwarnings.simplefilter('error')\nwarnings.warn_explicit('m', UserWarning, 'x', 1)\n"
               ).type_name == "UserWarning"


def test_filters_belong_to_the_session():
    one, two = Session(RunOptions()), Session(RunOptions())
    assert one.run("import warnings\nwarnings.simplefilter('ignore')\nwarnings.warn('a')\n", "t.grad").warnings == []
    assert [w.message for w in two.run("import warnings\nwarnings.warn('b')\n", "t.grad").warnings] == ["b"]
    assert one.run("warnings.warn('c')\n", "t.grad").warnings == []  # the REPL's next input: Python keeps them


def test_formatwarning_reads_only_the_scripts_own_source(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    src = (f"import warnings\nprint(repr(warnings.formatwarning('m', UserWarning, {str(secret)!r}, 1)))\n"
           "print(repr(warnings.formatwarning('m', UserWarning, 't.grad', 1)))\n")
    assert out(src) == (f"'{secret}:1: UserWarning: m\\n'\n't.grad:1: UserWarning: m\\n  import warnings\\n'\n")


def test_showwarning_goes_to_stderr_and_refuses_a_file():
    result = run("import warnings\nwarnings.showwarning('shown', RuntimeWarning, 'x.py', 7)\n")
    assert result.error is None and [(w.category, w.message, w.line) for w in result.warnings] == \
        [("RuntimeWarning", "shown", 7)]
    assert err("import warnings\nwarnings.showwarning('m', UserWarning, 'x', 1, file=[])\n").type_name == "TypeError"


def test_catch_warnings_module_argument_is_refused():
    assert err("import warnings\nwarnings.catch_warnings(module=warnings)\n").type_name == "TypeError"


def test_import_alone_loads_nothing():
    session = Session(RunOptions())
    assert session.run("import warnings\n", "t.grad").error is None
    assert session.namespaces.warnings_state is None
    assert session.run("from warnings import warn\nwarn('w')\n", "t.grad").warnings[0].message == "w"
    assert session.namespaces.warnings_state is not None


# ----------------------------------------------------------------------------- through the CLI

def _cli(*args, cwd=None):
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def test_run_ignore_silences_torchs_warning_and_error_exits_1(tmp_path):
    script = tmp_path / "w.grad"
    script.write_text(NONLEAF + "import warnings\nprint(y.grad)\nwarnings.filterwarnings('ignore', "
                      "message='the .grad attribute')\nprint(y.grad)\nwarnings.simplefilter('error')\nprint(y.grad)\n")
    done = _cli("run", str(script))
    assert done.returncode == 1 and done.stdout == "None\nNone\n"
    lines = done.stderr.splitlines()
    assert lines[0].startswith(f"{script}:5:7: UserWarning: The .grad attribute")  # line 7's: ignored
    assert sum("UserWarning: The .grad attribute" in line for line in lines) == 2  # 5's warning, 9's error
    assert any(line.startswith(f"{script}:9:7") for line in lines)


def test_gradcli_test_files_do_not_share_filters(tmp_path):
    (tmp_path / "a.grad").write_text("import warnings\nwarnings.simplefilter('error')\nprint('a')\n")
    (tmp_path / "a.out").write_text("a\n")
    (tmp_path / "b.grad").write_text(NONLEAF + "print(y.grad)\n")
    (tmp_path / "b.out").write_text("None\n")
    done = _cli("test", "-j", "1", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("flags", [{"check": True}, {"explain": True}, {"check": True, "explain": True}])
def test_check_and_explain_replays_warn_nothing_into_the_script(flags):
    """--check replays each op in float64 (var's degrees-of-freedom warning again): torch computes no
    replay, so the script's record list and its "error" filter never see those warnings."""
    src = ("import torch\nimport warnings\nx = torch.tensor([1., 2.], requires_grad=True)\n"
           "with warnings.catch_warnings(record=True) as w:\n    v = x.var(correction=5)\nprint(len(w))\n"
           "warnings.simplefilter('error')\nv.backward()\nprint(x.grad)\n")
    result = run(src, **flags)
    assert result.error is None and result.stdout == "1\ntensor([inf, inf])\n"


def test_types_print_as_pythons():
    src = ("import warnings\nwarnings.filterwarnings('ignore', 'x')\n"
           "print(type(warnings.catch_warnings()), type(warnings.WarningMessage('a', UserWarning, 'f', 1)), "
           "type(warnings.filters[0][1]))\n")
    assert out(src) == "<class 'warnings.catch_warnings'> <class 'warnings.WarningMessage'> <class 're.Pattern'>\n"
