"""The torch-shaped namespace of the engine: `from gradcli.engine import api as torch` gives
torch.tensor, torch.float32, torch.no_grad, torch.autograd.grad, ... over gradcli's own engine."""
from __future__ import annotations

import builtins as _builtins
import types

from . import autograd_modes as _modes
from . import autograd_api as _autograd_api
from . import device as _device
from . import dtypes as _dtypes
from . import factory as _factory
from . import formatting as _formatting
from . import methods as _methods
from . import op_names as _op_names
from .size import Size
from .tensor import Tensor
from .torch_version import __version__  # noqa: F401 - torch.__version__, a TorchVersion
from .argcheck import torch_typename as typename  # noqa: F401 - torch.typename

# dtypes and their aliases
bool = _dtypes.bool_
uint8, int8, int16, int32, int64 = _dtypes.uint8, _dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64
float16, float32, float64 = _dtypes.float16, _dtypes.float32, _dtypes.float64
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
dtype = _dtypes.dtype
layout, strided, sparse_coo = _dtypes.layout, _dtypes.strided, _dtypes.sparse_coo
from .layouts import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format  # noqa: E402, F401, I001
from .typeinfo import finfo, iinfo  # noqa: E402, F401 - torch.finfo, torch.iinfo
get_default_dtype = _dtypes.get_default_dtype
set_default_dtype = _dtypes.set_default_dtype
promote_types = _dtypes.promote_types


def result_type(tensor, other):
    return _dtypes.result_type((tensor, other))


def can_cast(from_, to):
    return _dtypes.promote_types(from_, to) is to or from_.category <= to.category


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_inference(input):
    return input.is_inference()


def is_floating_point(input):
    return input.dtype.is_floating_point


device = _device.device
no_grad = _modes.no_grad
enable_grad = _modes.enable_grad
set_grad_enabled = _modes.set_grad_enabled
is_grad_enabled = _modes.is_grad_enabled
inference_mode = _modes.inference_mode
is_inference_mode_enabled = _modes.is_inference_mode_enabled
set_printoptions = _formatting.set_printoptions

# constructors
for _name in ("tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like",
              "ones_like", "empty_like", "full_like", "eye", "arange", "linspace", "logspace", "manual_seed",
              "seed", "initial_seed", "randn", "rand", "randint", "randperm", "normal", "randn_like", "rand_like",
              "randint_like", "bernoulli", "multinomial", "Generator", "default_generator", "get_rng_state",
              "set_rng_state"):
    globals()[_name] = getattr(_factory, _name)

# every op, by its torch name
for _name, _fn in _methods.METHODS.items():
    if _name not in _methods.METHOD_ONLY:  # x.float(), x.to(), ...: no torch.float
        globals()[_name] = _fn
# torch.X only (torch.where, torch.cat, torch.detach, ...) and torch.X_(t), the in-place functions torch also
# offers at the top level (torch.sin_(a)): the families', from their declarations
globals().update(_methods.TORCH)
from . import threads as _threads  # noqa: E402
from .rng_samplers import binomial, poisson  # noqa: E402, F401 - torch.binomial, torch.poisson
globals().update(_threads.TORCH)


class _Module(types.SimpleNamespace):
    """A namespace that prints like the module it stands for. `_lazy` (name -> loader) lists members
    made on first access (see "Loaded on first use" below); `_lazy_ops` (name -> family) the functions
    of the breadth families not loaded yet (op_names.py), which their family's load binds here."""

    def __init__(self, name, _lazy=None, _lazy_ops=None, **members):
        super().__init__(**members)
        object.__setattr__(self, "_modname", name)
        object.__setattr__(self, "_lazy", dict(_lazy or {}))
        object.__setattr__(self, "_lazy_ops", dict(_lazy_ops or {}))

    def __getattr__(self, name):  # only for an attribute not there: a lazy member's first use
        lazy = self.__dict__.get("_lazy")
        if lazy and name in lazy:
            value = lazy[name]()
            setattr(self, name, value)
            del lazy[name]
            return value
        family = self.__dict__.get("_lazy_ops", {}).get(name)
        if family is not None:
            _methods.load_family(family)
            if name in self.__dict__:
                return self.__dict__[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        return sorted({*self.__dict__, *self.__dict__.get("_lazy_ops", ())})

    def __repr__(self):
        return f"<module '{self._modname}'>"


autograd = _Module(
    "torch.autograd",
    grad=_autograd_api.grad,
    backward=_autograd_api.backward,
    Variable=None,  # set below
    no_grad=no_grad,
    enable_grad=enable_grad,
    set_grad_enabled=set_grad_enabled,
    inference_mode=inference_mode,
)


def Variable(data, requires_grad=False, volatile=False):
    """The legacy torch.autograd.Variable: since 0.4 it returns a Tensor."""
    if not isinstance(data, Tensor):
        raise TypeError("Variable data has to be a tensor, but got " + type(data).__name__)
    if requires_grad:
        return data.detach().requires_grad_(True) if data.grad_fn is not None else data.requires_grad_(True)
    return data


autograd.Variable = Variable
from . import gradcheck as _gradcheck  # noqa: E402

autograd.gradcheck = _gradcheck.gradcheck
autograd.gradgradcheck = _gradcheck.gradgradcheck
autograd.detect_anomaly = _modes.detect_anomaly
from . import autograd_graph as _autograd_graph  # noqa: E402
from . import custom_function as _custom_function  # noqa: E402

autograd.Function = _custom_function.Function
autograd.function = _Module("torch.autograd.function", Function=_custom_function.Function,
                            FunctionCtx=_custom_function.FunctionCtx,
                            BackwardCFunction=_custom_function.BackwardCFunction,
                            once_differentiable=_custom_function.once_differentiable)
from . import saved_hooks as _saved_hooks  # noqa: E402
from .vmap import vmap  # noqa: E402, F401 - torch.vmap, torch.func.vmap

autograd.graph = _Module("torch.autograd.graph", Node=_autograd_graph.Node,
                         register_multi_grad_hook=_autograd_graph.register_multi_grad_hook,
                         saved_tensors_hooks=_saved_hooks.saved_tensors_hooks,
                         save_on_cpu=_saved_hooks.save_on_cpu,
                         disable_saved_tensors_hooks=_saved_hooks.disable_saved_tensors_hooks)


def _load_forward_ad():
    from . import forward_ad as _fwad
    return _Module("torch.autograd.forward_ad", **{name: getattr(_fwad, name) for name in _fwad.NAMES})


autograd._lazy["forward_ad"] = _load_forward_ad
autograd.set_detect_anomaly = _modes.set_detect_anomaly
is_anomaly_enabled = _modes.is_anomaly_enabled
is_anomaly_check_nan_enabled = _modes.is_anomaly_check_nan_enabled

def _cuda_current_device():
    _device.cupy()
    return 0


def _cuda_get_device_name(device=None):
    _device.canonical("cuda" if device is None else device)
    props = _device.cupy().cuda.runtime.getDeviceProperties(0)
    name = props.get("name", b"") if isinstance(props, dict) else b""
    return name.decode() if isinstance(name, bytes) else str(name)


def _cuda_synchronize(device=None):
    if _device.cuda_is_available():
        _device.cupy().cuda.Device(0).synchronize()


cuda = _Module(
    "torch.cuda",
    is_available=_device.cuda_is_available,
    device_count=_device.cuda_device_count,
    current_device=_cuda_current_device,
    get_device_name=_cuda_get_device_name,
    synchronize=_cuda_synchronize,
    manual_seed=_factory.cuda_manual_seed,
    manual_seed_all=_factory.cuda_manual_seed,
    initial_seed=_factory.cuda_initial_seed,
)
set_default_device = _device.set_default_device


def _false():
    return False


# torch.backends as a CPU-only PyTorch build answers it: tutorials pick a device with
# `"mps" if torch.backends.mps.is_available() else ...` and read cudnn's flags
backends = _Module(
    "torch.backends",
    mps=_Module("torch.backends.mps", is_available=_false, is_built=_false),
    cudnn=_Module("torch.backends.cudnn", is_available=_false, enabled=True, benchmark=False, deterministic=False,
                  allow_tf32=True),
)
# the flags a script may set (`torch.backends.cudnn.deterministic = True`, the reproducibility set-up of many
# tutorials), with the name of torch's setter that words the error of a value that is not a bool; each run
# starts from the values above (lang/namespaces.py)
BACKEND_FLAGS = {"torch.backends.cudnn": {"enabled": "set_enabled_cudnn", "benchmark": "set_benchmark_cudnn",
                                          "deterministic": "set_deterministic_cudnn",
                                          "allow_tf32": "set_allow_tf32_cublas"}}


def _accelerator_current(check_available=False):
    return device("cuda") if _device.cuda_is_available() else None


def _accelerator_index():
    if not _device.cuda_is_available():
        raise RuntimeError(_autograd_graph.NO_ACCELERATOR)
    return 0


# torch.accelerator: the CUDA device when CuPy has one, else what PyTorch's CPU build answers
accelerator = _Module(
    "torch.accelerator",
    is_available=_device.cuda_is_available,
    current_accelerator=_accelerator_current,
    device_count=_device.cuda_device_count,
    current_device_index=_accelerator_index,
    current_device_idx=_accelerator_index,
    synchronize=_cuda_synchronize,
)
# constants (not bare names in GradScript: lang/namespaces.py keeps them under torch. only)
nan, inf, pi, e, newaxis = _builtins.float("nan"), _builtins.float("inf"), 3.141592653589793, 2.718281828459045, None
CONSTANTS = ("nan", "inf", "pi", "e", "newaxis")
get_default_device = _device.get_default_device

# matmul, ...; norm, vector_norm, ...: the breadth families' LINALG, bound when their family loads (_bind_family)
linalg = _Module("torch.linalg", _lazy_ops=_op_names.LINALG, **_methods.LINALG)

Size = Size
Tensor = Tensor


# public here for the engine, no torch.X of torch's: the script facade (lang/namespaces.py) leaves them out
NOT_TORCH_NAMES = frozenset({"legacy_dtype_of", "Variable"})  # (Variable is torch.autograd.Variable)


def legacy_dtype_of(value):
    """The dtype of torch.LongTensor & co (x.type(torch.LongTensor)), None for anything else."""
    return value._legacy_dtype if isinstance(value, _LegacyTensorType) else None


class _LegacyTensorType:
    """torch.FloatTensor & co: legacy constructors (FloatTensor([1, 2]), FloatTensor(2, 3)) that print as
    classes, answer isinstance(x, torch.FloatTensor) and work as x.type(torch.LongTensor)."""

    __slots__ = ("_legacy_dtype", "_name")

    def __init__(self, dt, name):
        self._legacy_dtype = dt
        self._name = name

    def __call__(self, *args, **kwargs):
        dt = self._legacy_dtype
        if args and _builtins.all(isinstance(a, _builtins.int) and not isinstance(a, _builtins.bool) for a in args):
            return zeros(*args, dtype=dt, **kwargs)  # noqa: F821 - zeros and tensor: bound by the loop over _factory above
        if not args:
            return zeros(0, dtype=dt, **kwargs)  # noqa: F821
        return tensor(args[0], dtype=dt, **kwargs)  # noqa: F821

    def __repr__(self):
        return f"<class 'torch.{self._name}'>"

    def __instancecheck__(self, obj):
        return isinstance(obj, Tensor) and obj.dtype is self._legacy_dtype and obj.device.type == "cpu"


FloatTensor = _LegacyTensorType(float32, "FloatTensor")
DoubleTensor = _LegacyTensorType(float64, "DoubleTensor")
HalfTensor = _LegacyTensorType(float16, "HalfTensor")
LongTensor = _LegacyTensorType(int64, "LongTensor")
IntTensor = _LegacyTensorType(int32, "IntTensor")
ShortTensor = _LegacyTensorType(int16, "ShortTensor")
CharTensor = _LegacyTensorType(int8, "CharTensor")
ByteTensor = _LegacyTensorType(uint8, "ByteTensor")
BoolTensor = _LegacyTensorType(bool, "BoolTensor")

random = _Module(  # torch.random: the generator functions under their module's name
    "torch.random", manual_seed=_factory.manual_seed, seed=_factory.seed, initial_seed=_factory.initial_seed,
    get_rng_state=_factory.get_rng_state, set_rng_state=_factory.set_rng_state, Generator=_factory.Generator,
    default_generator=_factory.default_generator,
)

special = _Module("torch.special", _lazy_ops=_op_names.SPECIAL, **_methods.SPECIAL)  # and the breadth families'


# `out=` for every torch.X function (constructors included), as torch accepts it (outarg.py); torch's
# TypeError for a first argument of the wrong type (torch.exp(3)), see argcheck.py
_OUT_SKIP = {"no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "manual_seed", "seed", "initial_seed",
             "set_default_dtype", "get_default_dtype", "set_default_device", "get_default_device",
             "set_printoptions", "get_num_threads", "set_num_threads", "is_tensor", "is_floating_point",
             "numel", "is_grad_enabled", "is_nonzero", "promote_types", "result_type", "can_cast", "Variable",
             "from_numpy", "equal", "allclose", "detach", "is_complex"}
from . import torch_signatures as _sig  # noqa: E402
from .argcheck import PARSER_NAMES as _PARSER_NAMES  # noqa: E402
from .argcheck import TENSOR_OTHER as _TENSOR_OTHER  # noqa: E402
from .argcheck import OPERAND_METHODS as _OPERAND_METHODS  # noqa: E402
from .argcheck import with_input_check as _with_input_check  # noqa: E402
from .argcheck import with_operand_check as _with_operand_check  # noqa: E402
from .arg_single import with_keywords as _with_keywords  # noqa: E402
from .argcheck import with_other_check as _with_other_check  # noqa: E402
from .outarg import with_out as _with_out  # noqa: E402


def _as_torch_function(name, fn):
    """fn as torch.<name>: taking out=, and checking its first argument as torch does."""
    texts = getattr(_sig, "KEYWORDS", {}).get(name)
    if texts is not None and isinstance(fn, types.FunctionType):
        fn = _with_keywords(fn, texts)
    if (isinstance(fn, types.FunctionType) and not name.startswith("_") and name not in _OUT_SKIP
            and fn.__module__.startswith("gradcli.engine")):
        fn = _with_out(fn, name)
    sigs = _sig.SIGNATURES.get(name)
    if sigs is not None and isinstance(fn, types.FunctionType) and fn.__module__.startswith("gradcli.engine"):
        numbers_first = getattr(_sig, "NUMBER_FIRST", frozenset())  # (absent while the generator runs)
        single = getattr(_sig, "SINGLE_SIGNATURES", {}).get(name)
        fn = _with_input_check(fn, _PARSER_NAMES.get(name, name), sigs, name in numbers_first, single)
    elif name in _OPERAND_METHODS and isinstance(fn, types.FunctionType):  # torch.add(x, obj)
        fn = _with_operand_check(fn, name)
    if name in _TENSOR_OTHER and name not in getattr(_sig, "SINGLE_SIGNATURES", {}) and isinstance(
            fn, types.FunctionType):
        fn = _with_other_check(fn, name, 2)
    return fn


for _name, _fn in list(globals().items()):
    globals()[_name] = _as_torch_function(_name, _fn)


def _as_namespace_function(namespace, name, fn):
    """fn as torch.<namespace>.<name> (linalg, special): its first argument checked as torch's parser
    does, which names it <namespace>_<name>()."""
    texts = getattr(_sig, "KEYWORDS", {}).get(f"{namespace}.{name}")
    if texts is not None and isinstance(fn, types.FunctionType):
        fn = _with_keywords(fn, texts)
    sigs = _sig.NAMESPACE_SIGNATURES.get(f"{namespace}.{name}")
    if sigs is not None and isinstance(fn, types.FunctionType) and fn.__module__.startswith("gradcli.engine"):
        single = getattr(_sig, "SINGLE_SIGNATURES", {}).get(f"{namespace}.{name}")
        fn = _with_input_check(fn, f"{namespace}_{name}", sigs, single=single)
    return fn


for _namespace in (linalg, special):
    _prefix = _namespace._modname.rpartition(".")[2]
    for _name, _fn in list(vars(_namespace).items()):
        if not _name.startswith("_"):
            setattr(_namespace, _name, _as_namespace_function(_prefix, _name, _fn))


# ----------------------------------------------------------------------------- Loaded on first use
# torch.nn, torch.optim and torch.autograd.functional are imported when first used, not with torch:
# they are a large part of the engine's code, most scripts never touch them, and start-up time is
# part of the product. `_lazy` (name -> loader) lists them; __getattr__ (PEP 562) and
# _Module.__getattr__ run a loader once, and lang/namespaces.py makes their facades on first use
# too. The torch.X functions that nn.functional provides (torch.conv2d, ...) are stand-ins that
# load torch.nn at their first call (_nn_function).

def _load_nn():
    from . import nn as _nn
    for name, fn in _nn.functional.TORCH_NAMES.items():
        if name in _NN_TORCH_FUNCTIONS:
            _NN_FUNCTIONS[name] = _as_torch_function(name, fn)
        elif name not in globals() and name not in _lazy_ops:  # one the table below lacks (tests/test_entry.py)
            globals()[name] = _as_torch_function(name, fn)
    return _nn.build(_Module)


def _load_optim():
    from . import optim as _optim
    return _optim.build(_Module)


def _load_autograd_functional():
    from . import autograd_functional as _AF
    return _Module("torch.autograd.functional", **{name: getattr(_AF, name) for name in _AF.NAMES})


# torch.utils.data's submodules that code imports from (minGPT: `from torch.utils.data.dataloader import
# DataLoader`): the members of torch.utils.data that torch defines there
_DATA_SUBMODULES = {
    "dataloader": ("DataLoader", "Dataset", "default_collate", "default_convert", "get_worker_info",
                   "BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "IterableDataset"),
    "dataset": ("Dataset", "TensorDataset", "ConcatDataset", "ChainDataset", "StackDataset", "Subset",
                "IterableDataset", "random_split"),
    "sampler": ("Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
                "WeightedRandomSampler", "BatchSampler"),
}


def _load_utils():
    from . import data as _data
    members = {name: getattr(_data, name) for name in _data.NAMES}
    for sub, names in _DATA_SUBMODULES.items():
        members[sub] = _Module(f"torch.utils.data.{sub}", **{n: members[n] for n in names if n in members})
    from .checkpoint import checkpoint, checkpoint_sequential
    return _Module("torch.utils", data=_Module("torch.utils.data", **members),
                   checkpoint=_Module("torch.utils.checkpoint", checkpoint=checkpoint,
                                      checkpoint_sequential=checkpoint_sequential))


def _load_func():
    from . import func as _func
    return _Module("torch.func", **{name: getattr(_func, name) for name in _func.NAMES})


def _load_distributions():
    from . import distributions as _d, distributions_gamma as _dg, distributions_more as _dm, distributions_mvn as _dmvn
    from . import distributions_beta as _db, distributions_cauchy as _dc, distributions_multinomial as _dmn
    from . import distributions_mixture as _dmx, distributions_transformed as _dt, distributions_transforms as _dtr
    from . import distributions_cbernoulli as _dcb, distributions_gamma_more as _dgm, distributions_relaxed as _drx
    from . import distributions_constraints as _dcs, distributions_registry as _dreg, distributions_vonmises as _dvm
    from .distributions_kl import kl_divergence
    more = {name: getattr(module, name)
            for module in (_dm, _dmvn, _dg, _dmn, _dc, _db, _dt, _dmx, _dgm, _drx, _dcb, _dvm) for name in module.NAMES}
    by_module: dict = {}
    for cls in more.values():
        by_module.setdefault(cls.__module__, {})[cls.__name__] = cls
    submodules = {module.rsplit(".", 1)[1]: _Module(module, **classes) for module, classes in by_module.items()}
    for name in _drx.SUBMODULE_ONLY:  # torch.distributions does not export these two bases
        del more[name]
    transforms = {name: getattr(module, name) for module in (_dtr, _dreg) for name in module.NAMES}
    submodules["transforms"] = _Module("torch.distributions.transforms", **transforms,
                                       identity_transform=_dreg.identity_transform)
    registries = {"biject_to": _dreg.biject_to, "transform_to": _dreg.transform_to}
    submodules["constraint_registry"] = _Module("torch.distributions.constraint_registry", **registries,
                                                ConstraintRegistry=_dreg.ConstraintRegistry)
    submodules["constraints"] = _Module("torch.distributions.constraints",
                                        **{name: getattr(_dcs, name) for name in _dcs.NAMES})
    return _Module("torch.distributions", **{name: getattr(_d, name) for name in _d.NAMES}, **more, **submodules,
                   **transforms, **registries,
                   kl_divergence=kl_divergence,
                   categorical=_Module("torch.distributions.categorical", Categorical=_d.Categorical),
                   normal=_Module("torch.distributions.normal", Normal=_d.Normal),
                   bernoulli=_Module("torch.distributions.bernoulli", Bernoulli=_d.Bernoulli),
                   kl=_Module("torch.distributions.kl", kl_divergence=kl_divergence))


def _load_testing():
    from . import testing as _testing
    return _Module("torch.testing", assert_close=_testing.assert_close)


_lazy = {"nn": _load_nn, "optim": _load_optim, "utils": _load_utils, "func": _load_func,
         "distributions": _load_distributions, "testing": _load_testing}
autograd._lazy["functional"] = _load_autograd_functional


def _load(name):
    """The lazy member `name`, loaded now if it is not yet."""
    if name in _lazy:
        globals()[name] = _lazy[name]()
        del _lazy[name]
    return globals()[name]


def __getattr__(name):
    if name in _lazy:
        return _load(name)
    family = _lazy_ops.get(name)
    if family is not None:
        _methods.load_family(family)
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted({*globals(), *_lazy, *_lazy_ops})


# the torch.X functions of the breadth families (methods.BREADTH), bound when their family loads (the first use
# of one of its names: __getattr__ above, a Tensor method, torch.linalg.X, ...), as the start-up ones are
_lazy_ops = _op_names.TORCH


def _bind_family(module):
    """torch.X, torch.linalg.X, torch.special.X (and torch.functional.X) of a breadth family: its Tensor
    methods but those that are no torch.X (METHOD_ONLY), and its TORCH."""
    method_only = set(getattr(module, "METHOD_ONLY", ()))
    functions = {name: fn for name, fn in module.METHODS.items() if name not in method_only}
    functions.update((name, fn) for name, fn in getattr(module, "TORCH", {}).items() if name not in method_only)
    for name, fn in functions.items():
        globals()[name] = _as_torch_function(name, fn)
        if name in functional._lazy_ops:
            setattr(functional, name, globals()[name])
    for name, fn in getattr(module, "LINALG", {}).items():
        setattr(linalg, name, _as_namespace_function("linalg", name, fn))
    for name, fn in getattr(module, "SPECIAL", {}).items():
        setattr(special, name, _as_namespace_function("special", name, fn))


# nn.functional's TORCH_NAMES: torch.X -> (__module__, __qualname__) of nn's function, which the stand-in takes so
# that it prints and is named in errors as that function (generated from nn/functional.py's declarations, so that
# torch's namespace has these names before torch.nn is imported)
from .torch_nn_names import TORCH_NAMES as _NN_TORCH_FUNCTIONS  # noqa: E402
_NN_FUNCTIONS = {}  # torch.X -> nn's function as torch.X (_as_torch_function), once torch.nn is loaded


def _nn_function(name, module, qualname):
    def function(*args, **kwargs):
        fn = _NN_FUNCTIONS.get(name)
        if fn is None:
            _load("nn")
            fn = _NN_FUNCTIONS[name]
        return fn(*args, **kwargs)
    function.__module__, function.__name__, function.__qualname__ = module, qualname, qualname
    return function


for _name, (_module, _qualname) in _NN_TORCH_FUNCTIONS.items():
    if _name not in globals() and _name not in _lazy_ops:
        globals()[_name] = _nn_function(_name, _module, _qualname)

# torch.functional, the module torch's tensor functions come from (`import torch.functional as F` in
# "Building Models with PyTorch"): its __all__ in torch 2.13, the members gradcli has, which are torch.X
_FUNCTIONAL = ("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
               "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank",
               "split", "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index")
functional = _Module("torch.functional", _lazy_ops={_name: _lazy_ops[_name] for _name in _FUNCTIONAL
                                                    if _name not in globals() and _name in _lazy_ops},
                     **{_name: globals()[_name] for _name in _FUNCTIONAL if _name in globals()})
_methods.on_load(_bind_family)  # (the families bound before this module was imported, then each one that loads)
