"""The reachability argument of docs/robustness.md ("The language wall"), checked by a walk.

Starting from every value a script can name (the importable namespaces, the builtins) and from one
instance of each kind of object a script can make, the walk follows every public attribute the
attribute policy (gradcli/lang/pyvalues.py) gives, calls every method that takes no argument, takes
a few items of what iterates, and asserts of every object it reaches:

- the policy refuses each of its '_' names (``get_attr`` raises AttributeError, ``hasattr`` is False but for
  the protocol names PROTOCOL_NAMES, where it says whether the type has them, and a tensor's ``_version``,
  which a script reads through lang/private.py);
- it is no Python module, frame, code object, traceback, mapping proxy, globals dict, builtin with
  power (open, eval, exec, ...), nor a function or class of the standard library's system modules;
- engine objects that take string keys refuse private keys.

A new engine API whose attribute or result reaches something else fails here, so a new API cannot
silently reopen a door. A hypothesis strategy then builds scripts from the names the walk found.
"""
from __future__ import annotations

import builtins
import types

import numpy as np
import pytest

from gradcli.lang.errors import GradScriptError
from gradcli.engine.tensor import Tensor
from gradcli.lang.pyvalues import PROTOCOL_NAMES, Namespace, get_attr, has_attr
from gradcli.engine.private_names import is_script_class, opened
from gradcli.lang.runner import InternalError, RunOptions, Session


def _extension_point(value, name):
    """An extension point an engine class opens to the script's subclasses (nn.Module's _get_name), on one."""
    mro = (value if isinstance(value, type) else type(value)).__mro__
    return any(is_script_class(c) for c in mro) and any(opened(c, name) for c in mro)


SEED = """
import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np
import math
x = torch.ones(2, 3, requires_grad=True)
y = (x * 2).sum()
y.backward()
p = nn.Parameter(torch.zeros(2))
lin = nn.Linear(3, 2)
seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
pd = nn.ParameterDict({"a": nn.Parameter(torch.ones(1))})
md = nn.ModuleDict({"lin": nn.Linear(1, 1)})
pl = nn.ParameterList([nn.Parameter(torch.ones(1))])
opt = torch.optim.Adam(lin.parameters(), lr=0.1)
sgd = torch.optim.SGD(seq.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, 2)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(sgd)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
    def forward(self, v):
        return self.fc(v)
net = Net()
handle = lin.register_forward_hook(lambda m, i, o: None)
def fn(a, b=1):
    return a + b
gen = (i for i in range(3))
big = range(10 ** 6)
arr = np.ones((2, 2))
npscalar = np.float32(1.5)
mx = torch.ones(2, 3).max(dim=1)
sd = lin.state_dict()
finfo = torch.finfo(torch.float32)
size = x.shape
dev = x.device
dt = x.dtype
nograd = torch.no_grad()
gr = torch.autograd.grad((x * x).sum(), x, create_graph=True)[0]
node = gr.grad_fn
s = "text"
d = {"k": [1, 2.5, (3, None)]}
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        ctx.factor = 2
        return v * 2
    @staticmethod
    def backward(ctx, g):
        return g * ctx.factor
dbl = Double.apply(torch.ones(2, requires_grad=True))
def counter(n):
    for i in range(n):
        yield i
made = counter(3)
import torch.utils.data as tud
ds = tud.TensorDataset(torch.ones(4, 2), torch.zeros(4))
dl = tud.DataLoader(ds, batch_size=2, shuffle=True, collate_fn=lambda b: b)
dli = iter(dl)
split = tud.random_split(ds, [2, 2])[0]
concat = tud.ConcatDataset([ds, split])
rsampler = tud.RandomSampler(ds)
bsampler = tud.BatchSampler(rsampler, 2, False)
lazy = nn.LazyLinear(2)
lazyw = lazy.weight
adadelta = torch.optim.Adadelta(seq.parameters())
lam = torch.optim.lr_scheduler.LambdaLR(adadelta, lambda e: 0.5)
seqlr = torch.optim.lr_scheduler.SequentialLR(adadelta, [torch.optim.lr_scheduler.ConstantLR(adadelta),
                                                         torch.optim.lr_scheduler.ExponentialLR(adadelta, 0.9)], [2])
cycle = torch.optim.lr_scheduler.OneCycleLR(sgd, max_lr=1.0, total_steps=10)
errors = []
for attempt in [lambda: pd["__dict__"], lambda: x.foo, lambda: 1 / 0, lambda: np.asarray(lin),
                lambda: torch.ones(2) @ torch.ones(3), lambda: next(iter([]))]:
    try:
        attempt()
    except Exception as e:
        errors.append(e)
"""

POWER = {open, eval, exec, compile, getattr, setattr, delattr, globals, locals, vars, __import__, input,
         breakpoint, help, memoryview, type.__call__}
SYSTEM_MODULES = ("os", "posix", "sys", "subprocess", "io", "_io", "importlib", "pickle", "_pickle", "shutil",
                  "socket", "_socket", "ctypes", "_ctypes", "pathlib", "runpy", "code", "pdb", "marshal", "gc",
                  "inspect", "threading", "multiprocessing", "signal", "tempfile", "glob", "zipfile", "mmap")
BAD_TYPES = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType, types.MappingProxyType,
             types.CellType)
PRIVATE_KEYS = ("__dict__", "__class__", "_parameters", "__array_interface__", "__init__")
DEPTH = 3
ITEMS = 3


def _module_root(value):
    module = getattr(value, "__module__", None)
    return module.split(".")[0] if isinstance(module, str) else None


def assert_harmless(value, path):
    assert not isinstance(value, BAD_TYPES), path
    assert not any(value is f for f in POWER), path
    if isinstance(value, dict):
        assert "__builtins__" not in value and "__name__" not in value, path  # no module's globals
    if isinstance(value, types.BuiltinFunctionType):
        owner = getattr(value, "__self__", None)
        assert not isinstance(owner, types.ModuleType) or owner.__name__ not in SYSTEM_MODULES, path
    if callable(value) or isinstance(value, type):
        assert _module_root(value) not in SYSTEM_MODULES, (path, getattr(value, "__module__", None))


def _items(value):
    """A few items of what a script could iterate (generators, dict views, containers)."""
    if isinstance(value, (str, bytes, range)) or isinstance(value, np.ndarray):
        return []
    if isinstance(value, (types.GeneratorType, map, filter, zip)) or type(value).__name__.endswith("iterator"):
        out = []
        for _ in range(ITEMS):
            try:
                out.append(next(value))
            except Exception:  # noqa: BLE001
                break
        return out
    if isinstance(value, dict):
        return list(value.items())[:ITEMS]
    if isinstance(value, (list, tuple, set, frozenset)) or type(value).__name__.startswith(("odict_", "dict_")):
        return list(value)[:ITEMS]
    return []


# zero-argument methods not called by the walk: they mutate shared engine state for later tests
NO_CALL = {"set_default_dtype", "manual_seed", "seed", "set_grad_enabled", "set_printoptions",
           "use_deterministic_algorithms", "set_num_threads", "enable_grad", "set_detect_anomaly",
           "backward", "clear", "popitem", "pop", "reverse", "sort", "__call__"}


class Walk:
    def __init__(self):
        self.session = Session(RunOptions(seed=0, timeout=60))
        result = self.session.run(SEED, "seed.grad")
        assert result.error is None, result.error.message
        self.seen = set()
        self.names = {}      # type name -> public names the policy gives
        self.per_type = {}
        self.count = 0

    def roots(self):
        ns = self.session.namespaces
        for name, module in ns.modules.items():
            yield name, module
        for name, value in ns.builtins.items():
            yield name, value
        for name, value in self.session.globals.items():
            yield name, value

    def visit(self, value, path, depth):
        if id(value) in self.seen or isinstance(value, (int, float, bool, str, bytes, type(None))):
            return
        self.seen.add(id(value))
        self._keep.append(value)  # ids stay unique while the walk runs
        self.count += 1
        assert_harmless(value, path)
        t = type(value)
        if not isinstance(value, (type, Namespace)):
            # two instances of a type show what its attributes and methods give (a tensor's methods
            # give tensors, whose methods give tensors, ...)
            self.per_type[t] = self.per_type.get(t, 0) + 1
            if self.per_type[t] > 2:
                return
        try:
            names = dir(value)
        except Exception:  # noqa: BLE001
            names = []
        if isinstance(value, Namespace):
            names = list(value._members)
        public = []
        for name in names:
            if name.startswith("_"):
                with pytest.raises(AttributeError):
                    get_attr(value, name)
                # hasattr answers only whether the type has a protocol (7fae417: a bool, never the attribute),
                # and, as get_private reads it, a tensor's _version (the one engine '_' name scripts read)
                # and nn.Module's extension points on a script's module or class (private_names.opens)
                # (__name__/__version__: what obj.__name__ reads, a str, since 76203fd)
                assert not has_attr(value, name) or name in PROTOCOL_NAMES or name in ("__name__", "__version__") or (
                    name == "_version" and isinstance(value, Tensor)) or _extension_point(value, name), \
                    f"{path}.{name}"
                continue
            try:
                attr = get_attr(value, name)
            except Exception:  # noqa: BLE001 - refused or failing: not reachable
                continue
            public.append(name)
            assert_harmless(attr, f"{path}.{name}")
            if depth < DEPTH:
                self.visit(attr, f"{path}.{name}", depth + 1)
                if callable(attr) and not isinstance(attr, type) and not isinstance(value, Namespace) \
                        and name not in NO_CALL and depth < DEPTH - 1:
                    try:
                        result = attr()
                    except Exception:  # noqa: BLE001
                        continue
                    assert_harmless(result, f"{path}.{name}()")
                    self.visit(result, f"{path}.{name}()", depth + 1)
        self.names.setdefault(type(value).__name__, set()).update(public)
        if hasattr(type(value), "__getitem__") and not isinstance(value, (dict, list, tuple, np.ndarray, type)):
            for key in PRIVATE_KEYS:
                try:
                    item = value[key]
                except Exception:  # noqa: BLE001
                    continue
                pytest.fail(f"{path}[{key!r}] gave {type(item).__name__}")
        if depth < DEPTH:
            for i, item in enumerate(_items(value)):
                assert_harmless(item, f"{path}[{i}]")
                self.visit(item, f"{path}[{i}]", depth + 1)

    def run(self):
        self._keep = []
        for name, value in self.roots():
            self.visit(value, name, 0)
        return self


_WALK = []
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def walk():
    if not _WALK:
        _WALK.append(Walk().run())
    return _WALK[0]


def test_walk_reaches_nothing_outside_the_wall():
    w = walk()
    assert w.count > 1500  # the walk really covers the API (namespaces, instances, methods' results)
    assert {"Linear", "Tensor", "Adam", "StepLR", "ParameterDict", "ndarray"} <= set(w.names)


def test_walk_would_catch_an_opened_door():
    # the checks fire on what a leaking API would give
    for leak in (builtins, open, types.SimpleNamespace.__dict__, (lambda: 0).__code__, globals()):
        with pytest.raises(AssertionError):
            assert_harmless(leak, "leak")
    import os
    with pytest.raises(AssertionError):
        assert_harmless(os.system, "leak")


# ---------------------------------------------------------------- scripts from the walk's names

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

STARTS = ["torch", "nn", "F", "np", "math", "x", "lin", "seq", "pd", "md", "opt", "sched", "net", "fn", "arr",
          "gr", "node", "mx", "sd", "size", "dt", "s", "d", "handle", "finfo", "plateau", "npscalar"]
ARGS = ["", "0", "1", "'a'", "x", "2, 3", "'__dict__'", "'_parameters'", "lin", "[1, 2]", "dim=0", "torch.ones(2)",
        "'{__class__}'", "{'__class__': 1}", "None", "arr"]
KEYS = ["0", "'a'", "'__dict__'", "'__class__'", "'_keys'", "'__array_interface__'", "-1", ":"]


@st.composite
def chains(draw):
    names = sorted(set().union(*walk().names.values()))
    text = draw(st.sampled_from(STARTS))
    for _ in range(draw(st.integers(1, 5))):
        step = draw(st.sampled_from(["attr", "attr", "call", "item", "setitem"]))
        if step == "attr":
            text += "." + draw(st.sampled_from(names))
        elif step == "call":
            text += "(" + draw(st.sampled_from(ARGS)) + ")"
        elif step == "item":
            text += "[" + draw(st.sampled_from(KEYS)) + "]"
        else:
            return f"{text}[{draw(st.sampled_from(KEYS))}] = {draw(st.sampled_from(ARGS) .filter(bool))}\nv = {text}"
    return f"v = {text}"


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(chains())
def test_scripts_from_reachable_names_stay_inside(tmp_path_factory, source):
    import os
    where = tmp_path_factory.mktemp("chain")
    old = os.getcwd()
    os.chdir(where)
    try:
        session = Session(RunOptions(seed=0, timeout=5, max_steps=20_000, max_elements=100_000))
        assert session.run(SEED, "seed.grad").error is None
        result = session.run(source, "chain.grad")
    finally:
        os.chdir(old)
    assert os.listdir(where) == []
    if result.error is not None:
        assert isinstance(result.error, GradScriptError)
        if isinstance(result.error, InternalError):
            assert "gradcli/lang/" not in result.error.traceback_text.splitlines()[-3:][0]
        return
    value = session.globals.get("v")
    assert_harmless(value, source)
    for item in _items(value):
        assert_harmless(item, source)
