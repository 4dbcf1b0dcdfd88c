"""The built-in namespaces of GradScript: facades for torch (the engine's api and its
sub-namespaces), numpy (a whitelist over real NumPy) and math, the Python builtins a script
may use (pybuiltins.py), and import resolution.

Facades are ``pyvalues.Namespace`` objects holding only engine objects (functions, classes,
dtypes, ...), never a Python module, so nothing outside the listed names can be reached.
"""
from __future__ import annotations

import collections
import functools
import math
import types

import numpy as np

from . import npguard, pyops, pyvalues
from .pybuiltins import ScriptType, TypeBuiltin, python_builtins
from .pyitertools import functools_module, itertools_module, time_module
from .pyrandom import random_module
from ..pycompat import OrderedDict
from .pyvalues import Namespace
from .runtime import LimitError

# names a script may neither use nor define: the sandbox (checked at compile time)
FORBIDDEN_NAMES = frozenset(
    "eval exec compile open globals locals vars breakpoint input __import__ "
    "dir help memoryview classmethod staticmethod property exit quit copyright credits license "
    "__builtins__ __loader__ __spec__".split())

SUPPORTED_IMPORTS = ("torch, torch.nn, torch.nn.functional, torch.nn.utils (rnn, parametrize, parametrizations, "
                     "prune), torch.optim (lr_scheduler, swa_utils), torch.autograd, "
                     "torch.utils.data, torch.utils.checkpoint, "
                     "torch.autograd.functional, torch.autograd.graph, torch.autograd.forward_ad, torch.func, "
                     "torch.distributions, torch.testing, numpy, math, random, "
                     "itertools, time, collections (OrderedDict, defaultdict, deque, Counter), "
                     "dataclasses (dataclass), functools (reduce, partial, wraps, update_wrapper), warnings")

_ENGINE = "gradcli.engine"

# torch constructors that take device=; wrapped when the run's default device is not cpu
_DEVICE_CTORS = ("tensor", "as_tensor", "asarray", "zeros", "ones", "empty", "full", "eye", "arange",
                 "linspace", "logspace", "randn", "rand", "randint", "randperm", "normal")


def _engine_value(value):
    """May this attribute of an engine namespace be shown to scripts?"""
    if isinstance(value, (bool, int, float, str, complex)) or value is None:
        return True
    if isinstance(value, functools.partial):
        return _engine_value(value.func)
    if isinstance(value, type):
        return pyvalues.is_engine_type(value)
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return pyvalues.is_engine_function(value)
    return pyvalues.is_engine_type(type(value))


def _facade(name, obj, seen):
    """A Namespace over an engine module or SimpleNamespace, recursively."""
    key = id(obj)
    if key in seen:
        return seen[key]
    from ..engine.api import BACKEND_FLAGS
    flags = BACKEND_FLAGS.get(name)
    ns = Namespace(name, {})
    seen[key] = ns
    object.__setattr__(ns, "_members", _facade_members(name, obj, seen))
    if flags is not None:
        ns.allow_flags(flags)
    return ns


def _facade_members(name, obj, seen):
    members = {}
    src = obj.__dict__ if hasattr(obj, "__dict__") else {}
    lazy = src.get("_lazy") or {}  # engine namespaces loaded on first use (engine/api.py)
    lazy_ops = src.get("_lazy_ops") or {}  # functions of the op families loaded on first use (engine/op_names.py)
    from ..engine.api import NOT_TORCH_NAMES
    hidden = NOT_TORCH_NAMES if name == "torch" else ()  # the engine's helpers that torch has no torch.X for
    pending = []
    for attr in sorted(set(dir(obj)) | set(lazy)):
        if attr.startswith("_") or attr in hidden:
            continue
        if attr in lazy_ops and attr not in src:
            pending.append(attr)
            continue
        if attr in lazy and attr not in src:
            members[attr] = _lazy_facade(f"{name}.{attr}", obj, attr, seen)
            continue
        try:
            value = src[attr] if attr in src else getattr(obj, attr)
        except Exception:  # noqa: BLE001 - a lazy attribute that fails: leave it out
            continue
        if isinstance(value, types.ModuleType):
            if not value.__name__.startswith(_ENGINE):
                continue
            value = _facade(f"{name}.{attr}", value, seen)
        elif isinstance(value, types.SimpleNamespace):
            if not type(value).__module__.startswith(_ENGINE):
                continue
            value = _facade(f"{name}.{attr}", value, seen)
        elif not _engine_value(value):
            continue
        members[attr] = value
    if pending:
        def resolve(attr):
            value = getattr(obj, attr)  # loads its family
            if not _engine_value(value):
                raise KeyError(attr)
            return value
        return OnDemand(members, resolve, pending)
    return members


class OnDemand(dict):
    """The members of a namespace some of which load on first use (the op families' functions,
    engine/op_names.py): a plain dict of those there so far, so a read of one is a dict lookup;
    a read of one not there yet (`__missing__`, `get`) makes it a member; every view of the whole
    (iteration, keys, values, items, len) makes them all members first. `loaded_members` gives
    the members there so far without loading any."""

    __slots__ = ("_resolve", "_pending")

    def __init__(self, members, resolve, pending):
        super().__init__(members)
        self._resolve = resolve     # name -> value (KeyError or AttributeError: not a member after all)
        self._pending = set(pending)

    def __missing__(self, key):
        if key not in self._pending:
            raise KeyError(key)
        self._pending.discard(key)
        try:
            value = self._resolve(key)
        except AttributeError:
            raise KeyError(key) from None
        self[key] = value
        return value

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def load_all(self):
        for key in sorted(self._pending):
            self.get(key)
        return self

    def __iter__(self):
        return dict.__iter__(self.load_all())

    def __len__(self):
        return dict.__len__(self.load_all())

    def keys(self):
        return dict.keys(self.load_all())

    def values(self):
        return dict.values(self.load_all())

    def items(self):
        return dict.items(self.load_all())


def loaded_members(ns):
    """(name, value) of the members of the facade ns there so far, loading nothing: those a script
    can hold (a namespace loaded on first use and not loaded yet has none)."""
    return dict.items(ns._members)


class _LazyMembers(dict):
    """The members of the facade of an engine namespace that is imported when a script first uses
    it (torch.nn, torch.optim, torch.autograd.functional: start-up time, see engine/api.py). Empty
    until the first read that needs them, which loads them; reading a member that is there is a
    plain dict lookup."""

    __slots__ = ("_load", "early")

    def __init__(self, load):
        super().__init__()
        self._load = load
        self.early = {}  # attr -> the facade of a member handed out before the load (lazy_child)

    @property
    def pending(self):
        return self._load is not None

    def loaded(self):
        if self._load is not None:
            self.update(self._load())
            self._load = None
        return self

    def __missing__(self, key):
        if self._load is None:
            raise KeyError(key)
        return self.loaded()[key]

    def __contains__(self, key):
        return dict.__contains__(self.loaded(), key)

    def __iter__(self):
        return dict.__iter__(self.loaded())

    def __len__(self):
        return dict.__len__(self.loaded())

    def get(self, key, default=None):
        return dict.get(self.loaded(), key, default)

    def keys(self):
        return dict.keys(self.loaded())

    def values(self):
        return dict.values(self.loaded())

    def items(self):
        return dict.items(self.loaded())


def _lazy_facade(name, owner, attr, seen):
    """The facade of owner.attr, an engine namespace loaded on first use: the Namespace is there
    now, its members (and the engine's import) come with the first read."""
    ns = Namespace(name, {})

    def load():
        value = getattr(owner, attr)  # imports it
        seen.setdefault(id(value), ns)
        early = [(child, getattr(value, sub)) for sub, child in members.early.items()]
        for child, obj in early:  # the members handed out already stay the objects the load gives
            seen.setdefault(id(obj), child)
        loaded = _facade_members(name, value, seen)
        for child, obj in early:
            object.__setattr__(child, "_members", _facade_members(child._name, obj, seen))
        return loaded
    members = _LazyMembers(load)
    object.__setattr__(ns, "_members", members)
    return ns


# the engine namespaces a script may import, or the calculator and the REPL predefine (F), before the
# namespace that holds them is loaded: their facade is handed out first, and loads that namespace at
# its first read (`import torch.nn.functional as F` alone imports nothing of the engine's torch.nn)
EARLY_MEMBERS = frozenset({"torch.nn.functional"})


def _lazy_child(ns, attr):
    """The facade of ns.attr, ns a facade not loaded yet, without loading it: ns's load makes it the
    member attr (the same object, as `F is nn.functional` needs) and fills its members."""
    members = ns._members
    child = members.early.get(attr)
    if child is None:
        child = Namespace(f"{ns._name}.{attr}", {})
        object.__setattr__(child, "_members", _LazyMembers(lambda: (members.loaded(), child._members)[1]))
        members.early[attr] = child
    return child


def _pending(ns):
    """Is this the facade of an engine namespace not loaded yet?"""
    members = ns._members
    return isinstance(members, _LazyMembers) and members.pending


def _with_device(fn, dev):
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if kwargs.get("device") is None:
            kwargs["device"] = dev
        return fn(*args, **kwargs)
    return wrapped


_engine_cache = {}


def engine_modules(device="cpu"):
    """{'torch': Namespace, 'torch.nn': Namespace, ...} for the engine (cached per device)."""
    if device in _engine_cache:
        return _engine_cache[device]
    from ..engine import api
    torch_ns = _facade("torch", api, {})
    members = torch_ns._members
    if device not in (None, "cpu"):
        for name in _DEVICE_CTORS:
            if name in members:
                members[name] = _with_device(members[name], device)
    modules = {}

    def collect(path, ns):  # (a namespace loaded on first use is found by Namespaces.module)
        modules[path] = ns
        for attr, value in loaded_members(ns):
            sub = f"{path}.{attr}"
            if isinstance(value, Namespace) and sub not in modules and not _pending(value):
                collect(sub, value)
    collect("torch", torch_ns)
    _engine_cache[device] = modules
    return modules


# ----------------------------------------------------------------------------- numpy

_NP_FUNCS = """array asarray zeros_like ones_like full_like empty_like
exp log log2 log10 log1p expm1 sqrt square power sin cos tan arcsin arccos arctan arctan2 sinh cosh tanh
abs absolute sign floor ceil round around trunc rint clip maximum minimum fmax fmin
sum mean std var min max amin amax argmin argmax prod cumsum cumprod median average ptp
dot matmul inner outer vdot cross einsum tensordot transpose reshape ravel squeeze expand_dims
concatenate stack vstack hstack column_stack split array_split flip fliplr flipud roll rot90 moveaxis swapaxes
where nonzero argwhere sort argsort unique count_nonzero diag diagonal trace tril triu
allclose isclose array_equal isnan isinf isfinite any all logical_and logical_or logical_not logical_xor
add subtract multiply divide true_divide floor_divide mod remainder negative reciprocal
equal not_equal less less_equal greater greater_equal shape ndim size copy astype
float16 float32 float64 int8 int16 int32 int64 uint8 bool_ ndarray dtype
pi e inf nan newaxis""".split()

_NP_SIZED = {"zeros", "ones", "empty", "full", "eye", "identity", "arange", "linspace", "tile", "repeat",
             "broadcast_to", "meshgrid", "kron", "outer"}


def _np_type_arg(dtype, what):
    """np.finfo/np.iinfo take a NumPy dtype, a NumPy or Python number type, an array or a type name,
    never an arbitrary object (np.dtype(obj) would read obj.dtype)."""
    if isinstance(dtype, (np.ndarray, np.generic)):
        return dtype.dtype
    if isinstance(dtype, (np.dtype, str)) or (isinstance(dtype, type) and issubclass(dtype, (np.generic, int, float))):
        return dtype
    raise ValueError(f"data type {type(dtype).__name__!r} not {what}")


def _np_finfo(dtype):
    return np.finfo(_np_type_arg(dtype, "inexact"))


def _np_iinfo(int_type):
    return np.iinfo(_np_type_arg(int_type, "an integer type"))


def _np_checked(fn, rt):
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        result = fn(*args, **kwargs)
        if isinstance(result, np.ndarray):
            pyops.check_limit(result.size, rt.max_elements, "array")
        return result
    return wrapped


def _np_precheck(name, fn, rt):
    def count(shape):
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            return int(shape)
        if isinstance(shape, (tuple, list)):
            n = 1
            for s in shape:
                n *= int(s) if isinstance(s, (int, np.integer)) else 1
            return n
        return 0

    def weight(spec):  # items of a dtype wider than 8 bytes count as that many 8-byte elements
        return 1 if spec is None else max(1, -(-npguard.item_bytes(spec) // 8))

    dtype_at = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "eye": 3, "identity": 1}.get(name)

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        limit = rt.max_elements
        if dtype_at is not None:
            w = weight(kwargs.get("dtype", args[dtype_at] if len(args) > dtype_at else None))
            what = "array" if w == 1 else "array (in 8-byte elements)"
        if name in ("zeros", "ones", "empty", "full") and (args or "shape" in kwargs):
            pyops.check_limit(count(args[0] if args else kwargs["shape"]) * w, limit, what)
        elif name in ("eye", "identity") and (args or "N" in kwargs or "n" in kwargs):
            n = count(args[0] if args else kwargs.get("N", kwargs.get("n")))
            m = args[1] if len(args) > 1 else kwargs.get("M")
            pyops.check_limit(n * (n if m is None else count(m)) * w, limit, what)
        elif name in ("meshgrid", "kron", "outer"):
            n = 1
            for a in args:
                n *= max(1, int(np.size(a)))
            pyops.check_limit(n * (len(args) if name == "meshgrid" else 1), limit, "array")
        elif name == "arange" and args and all(isinstance(a, (int, float)) for a in args):
            start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
            if step:
                pyops.check_limit(max(0, math.ceil((stop - start) / step)), limit, "array")
        elif name == "linspace":
            num = kwargs.get("num", args[2] if len(args) > 2 else 50)
            pyops.check_limit(count(num), limit, "array")
        elif name in ("tile", "repeat") and len(args) > 1:
            pyops.check_limit(np.size(args[0]) * max(1, count(args[1])), limit, "array")
        return _np_checked(fn, rt)(*args, **kwargs)
    return wrapped


_NP_RANDOM = ("seed", "rand", "randn", "randint", "random", "random_sample", "uniform", "normal", "choice",
              "shuffle", "permutation", "binomial", "poisson", "exponential", "standard_normal")
_NP_LINALG = ("norm", "inv", "det", "solve", "eig", "eigh", "eigvals", "svd", "matrix_rank", "pinv", "qr",
              "cholesky", "lstsq", "matrix_power")


def numpy_modules(rt, seed=None):
    members = {}
    for name in _NP_FUNCS:
        if hasattr(np, name):
            value = getattr(np, name)
            members[name] = value if isinstance(value, type) or not callable(value) else npguard.guarded(value, name)
    for name in _NP_SIZED:
        if hasattr(np, name):
            members[name] = npguard.guarded(_np_precheck(name, getattr(np, name), rt), name)
    # np.ndarray(shape, dtype, buffer, ...) would build arrays NumPy functions never do (objects,
    # views of any buffer): the class only prints, compares and checks instances
    members["ndarray"] = ScriptType(np.ndarray)
    members["finfo"], members["iinfo"] = _np_finfo, _np_iinfo
    # np.random.X draws from the session's own RandomState, made at the first call: importing
    # numpy.random costs start-up time that a script which never draws from it need not pay
    states = []

    def state():
        if not states:
            states.append(np.random.RandomState(seed))
        return states[0]

    def sized(name):
        def wrapped(*args, **kwargs):
            size = kwargs.get("size")
            n = 1
            dims = args if name in ("rand", "randn") else ((size,) if size is not None else ())
            for d in dims:
                if isinstance(d, (tuple, list)):
                    for x in d:
                        n *= int(x) if isinstance(x, (int, np.integer)) else 1
                elif isinstance(d, (int, np.integer)):
                    n *= int(d)
            pyops.check_limit(n, rt.max_elements, "array")
            return getattr(state(), name)(*args, **kwargs)
        wrapped.__name__, wrapped.__qualname__ = name, f"RandomState.{name}"
        return wrapped
    random_ns = Namespace("numpy.random", {n: npguard.guarded(sized(n), "random." + n) for n in _NP_RANDOM})
    linalg_ns = Namespace("numpy.linalg", {n: npguard.guarded(getattr(np.linalg, n), "linalg." + n)
                                           for n in _NP_LINALG if hasattr(np.linalg, n)})
    members["random"] = random_ns
    members["linalg"] = linalg_ns
    numpy_ns = Namespace("numpy", members)
    return {"numpy": numpy_ns, "numpy.random": random_ns, "numpy.linalg": linalg_ns}


# ----------------------------------------------------------------------------- math

_MATH_NAMES = """pi e tau inf nan sqrt exp expm1 log log2 log10 log1p sin cos tan asin acos atan atan2 sinh cosh
tanh asinh acosh atanh floor ceil fabs trunc isnan isinf isfinite isclose hypot erf erfc gamma lgamma degrees
radians copysign fsum fmod gcd isqrt dist prod""".split()


def _math_factorial(n):
    if isinstance(n, int) and n > 5000:
        raise LimitError("OverflowError", "factorial() argument too large for GradScript (limit 5000)")
    return math.factorial(n)


def _math_pow(x, y):
    return math.pow(x, y)


def math_module():
    members = {name: getattr(math, name) for name in _MATH_NAMES if hasattr(math, name)}
    members["factorial"] = _math_factorial
    members["pow"] = _math_pow
    if "prod" in members:
        def prod(iterable, *, start=1):
            result = start
            for item in iterable:
                result = pyops.g_mul(result, item)
            return result
        members["prod"] = prod
    return {"math": Namespace("math", members)}


def collections_module():
    """`collections`, for the containers PyTorch code builds models and tables with
    (nn.Sequential(OrderedDict([...])), defaultdict(list), the returns deque of pytorch/examples'
    REINFORCE, a Counter of tokens): the real classes, which run no code of the script's but its
    own callables (defaultdict's factory, a key function) and hold only values; the sequence
    guards of pyops cover deque's `*`. Nothing else of the module (namedtuple builds a class
    from text with exec)."""
    return {"collections": Namespace("collections", {"OrderedDict": OrderedDict,
                                                     "defaultdict": collections.defaultdict,
                                                     "deque": collections.deque,
                                                     "Counter": collections.Counter})}


def dataclasses_module():
    """`dataclasses`, for the configuration classes of GPT-style code (nanoGPT's `@dataclass class
    GPTConfig: n_layer: int = 12 ...`): `dataclass` only, a marker that the class statement
    recognises as its decorator (classes.py); nothing else of the module (field's default_factory,
    replace, asdict, make_dataclass, which builds a class from names)."""
    from .classes import DATACLASS
    return {"dataclasses": Namespace("dataclasses", {"dataclass": DATACLASS})}


class Namespaces:
    """The built-in names of one session: importable modules and the builtins dict."""

    def __init__(self, rt, device="cpu", seed=None):
        self.modules = dict(engine_modules(device))
        for ns in self.modules.values():  # torch.backends.cudnn's flags: each run starts from torch's defaults
            ns.reset_flags()
        self.modules.update(numpy_modules(rt, seed))
        self.modules.update(math_module())
        self.modules.update(random_module())
        self.modules.update(collections_module())
        self.modules.update(dataclasses_module())
        self.modules.update(itertools_module(rt))
        self.modules.update(functools_module(rt))
        self.modules.update(time_module(rt))
        # `warnings`: the session's own filters (pywarnings.py), made at the script's first use of the module;
        # the runner sets warning_hooks (show, source_line) and hands the engine's warnings to warnings_state
        self.warnings_state = None
        self.warning_hooks = None
        self.modules["warnings"] = ns = Namespace("warnings", {})
        object.__setattr__(ns, "_members", _LazyMembers(lambda: self._warnings_members(rt, ns)))
        torch_ns = self.modules["torch"]
        from ..engine.api import CONSTANTS  # torch.pi, torch.e, ...: torch. only (a bare `e` stays undefined)
        bare = {k: v for k, v in loaded_members(torch_ns) if not isinstance(v, Namespace) and k not in CONSTANTS}
        bare.update(python_builtins(rt))
        # torch's functions whose family loads on first use are builtins too: a name the script reads that is
        # neither global nor builtin so far is looked up there (the compiled name's NameError path)
        pending = getattr(torch_ns._members, "_pending", ())
        bare = OnDemand(bare, torch_ns._members.__getitem__, [k for k in pending if k not in bare])
        scripted = [bare[name] for name in ("print", "range", "pow", "hasattr", "iter", "super", "format")]
        bare["type"] = TypeBuiltin((lambda: self.modules.values(), lambda: self.builtins.values()), scripted)
        self.builtins = bare

    def _warnings_members(self, rt, ns):
        from .pywarnings import WarningsState, warnings_members
        show, source_line = self.warning_hooks or (lambda *args: None, lambda filename, lineno: None)
        state = WarningsState(rt, show, source_line)
        state.on_change = functools.partial(dict.__setitem__, ns._members, "filters")
        self.warnings_state = state
        return warnings_members(state)

    def module(self, path):
        """The facade for an import path, or None. The path of an engine namespace loaded on first
        use (torch.nn, ...) is found here, through its parent's members."""
        ns = self.modules.get(path)
        if ns is None and "." in path:
            parent, _, name = path.rpartition(".")
            owner = self.module(parent)
            if owner is not None and path in EARLY_MEMBERS and _pending(owner):
                value = _lazy_child(owner, name)
            else:
                value = owner._members.get(name) if owner is not None else None
            if isinstance(value, Namespace):
                ns = self.modules[path] = value
        return ns

    def loaded_modules(self):
        """Every namespace whose members a script may hold: the known modules, and the engine
        namespaces under them that have been loaded (one not loaded yet has given nothing)."""
        found = {}

        def visit(ns):
            if id(ns) in found or _pending(ns):
                return
            found[id(ns)] = ns
            for _, value in loaded_members(ns):
                if isinstance(value, Namespace):
                    visit(value)
        for ns in self.modules.values():
            visit(ns)
        return list(found.values())

    def import_from(self, path, name):
        """``from path import name``: a submodule or a member; None when unknown."""
        sub = self.module(f"{path}.{name}")
        if sub is not None:
            return sub
        ns = self.module(path)
        if ns is None:
            return None
        return ns._members.get(name)
