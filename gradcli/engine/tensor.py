"""Tensor: the user-facing object. Data lives in a NumPy (or CuPy) array; ops live in ops/ and
are bound here as methods, so `torch.exp(x)` and `x.exp()` are the same function. (A little over
600 lines: the class and the construction helpers every op calls stay together, on the hot path;
torch.Size is size.py's.)"""
from __future__ import annotations

import warnings
import weakref
from sys import getrefcount as _getrefcount

import numpy as np

from . import dtypes, errors
from .autograd import AccumulateGrad, backward_observer
from .autograd_engine import run_general, current_pass, run_plain
from .autograd_modes import REQUIRES_GRAD_INFERENCE, NO_VERSION, grad_mode, inference_alias_version
from .device import CPU, device_of, to_device
from .size import Size
from .warnonce import warn_once

np.seterr(all="ignore")  # torch computes inf/nan silently; NumPy would print warnings


class Tensor:
    # The fields every tensor sets are slots; the rarely set ones (a leaf's grad and AccumulateGrad,
    # retain_grad, the output number of a multi-output node) are class defaults, overridden in the
    # instance dict only when set, so creating a tensor stays cheap.
    __slots__ = ("_data", "dtype", "_rg", "grad_fn", "_version", "_base", "__dict__", "__weakref__")
    _grad = None
    _output_nr = 0
    _accum = None
    _retains = False
    _hooks = None
    _post_acc_hooks = None
    _creation = None  # a view's CreationMeta when not the default: ("no_grad" | "multi", version) (view_of)
    _grad_dtype = _SAME_DTYPE = "same"  # grad_dtype: the tensor's dtype until set (to a dtype, or None: any)
    __array_priority__ = 1000
    is_sparse = False
    is_quantized = False
    layout = dtypes.strided

    # ------------------------------------------------------------------ identity and metadata
    def __init__(self, *args, **kwargs):
        from .factory import legacy_tensor  # noqa: PLC0415 - circular: factory builds Tensors
        t = legacy_tensor(*args, **kwargs)
        init_from(self, t._data, t.dtype)

    @property
    def data(self):
        """Same memory, no graph, and (unlike detach) a version counter of its own (an inference
        tensor's stays one: it has none)."""
        t = wrap(self._data, self.dtype)
        v = self._version
        t._version = [0] if v.__class__ is list else inference_alias_version()  # (wrap's, in inference mode)
        return t

    @data.setter
    def data(self, value):
        # torch's set_data: a leaf's gradient accumulator made for another dtype or device is dropped
        # (its gradients then come in the new dtype: a module's .double() after a forward)
        if not isinstance(value, Tensor):  # THPVariable_set_data
            from .argcheck import typename  # noqa: PLC0415
            raise errors.type_error(f"Variable data has to be a tensor, but got {typename(value)}")
        if value.dtype is not self.dtype or type(value._data) is not type(self._data):
            self._accum = None
        self._data = value._data
        self.dtype = value.dtype

    @property
    def shape(self):
        return tuple.__new__(Size, self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return tuple.__new__(Size, self._data.shape)
        return self._data.shape[wrap_dim(dim, self._data.ndim)]

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return int(self._data.size)

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def device(self):
        return device_of(self._data)

    @property
    def is_cuda(self):
        return type(self._data) is not np.ndarray

    @property
    def is_cpu(self):
        return type(self._data) is np.ndarray

    def get_device(self):
        return -1 if type(self._data) is np.ndarray else 0

    @property
    def is_leaf(self):
        if self._creation is not None:
            check_view_grad_fn(self)
        return self.grad_fn is None

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return False

    def is_contiguous(self, *args, memory_format=None):
        if memory_format is None and not args:
            return bool(self._data.flags.c_contiguous) if hasattr(self._data, "flags") else True
        from .layouts import check_format, is_contiguous_as  # noqa: PLC0415 - rare: off the start-up path
        check_format("is_contiguous", memory_format, args)
        return is_contiguous_as(self._data, memory_format)

    def data_ptr(self):
        """Address of the first element (views of one array share or offset it, as in torch)."""
        d = self._data
        if type(d) is np.ndarray:
            return d.__array_interface__["data"][0] if d.size else 0
        return int(d.data.ptr)

    def storage_offset(self):
        """Elements from the start of the storage (the view root's memory, as strided.py reads it) to this
        tensor's first element: x[1].storage_offset() is 2 for a 3x2 x, 0 for a tensor that owns its memory."""
        root = self._base if self._base is not None else self
        d, r = self._data, root._data
        if type(d) is np.ndarray:
            if type(r) is not np.ndarray:
                return 0
            here, start = d.__array_interface__["data"][0], r.__array_interface__["data"][0]
        else:
            here, start = int(d.data.ptr), int(r.data.ptr)
        return max(here - start, 0) // d.itemsize

    def stride(self, dim=None):
        item = self._data.itemsize
        st = tuple(s // item for s in self._data.strides)
        if not self._data.size and st and not any(st):  # NumPy zeroes an empty array's strides, torch does not
            from .tensoriter import contig_strides  # noqa: PLC0415
            st = tuple(contig_strides(self._data.shape))
        if dim is None:
            return st
        return st[wrap_dim(dim, self._data.ndim)]

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.dtype.itemsize * int(self._data.size)

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self):
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag):
        if type(flag) is not bool:  # THPVariable_set_requires_grad: PyBool_Check, before anything else
            raise errors.runtime("requires_grad must be a bool")
        if self.grad_fn is not None:
            if flag:
                raise errors.runtime("you can only change requires_grad flags of leaf variables.", hint="detach")
            raise errors.runtime(errors.NON_LEAF_REQUIRES_GRAD, hint="detach")
        if flag and not self.dtype.is_floating_point:
            raise errors.runtime(errors.FLOAT_ONLY, hint="float_dtype")
        if flag and self._version.__class__ is not list and not grad_mode.inference:
            raise errors.runtime(REQUIRES_GRAD_INFERENCE, hint="inference")
        self._rg = flag
        self.__dict__.pop("_gs_no_accumulator", None)  # requires grad on its own now (or not at all)

    def requires_grad_(self, requires_grad=True):
        if self.grad_fn is not None and not requires_grad:
            raise errors.runtime(errors.NON_LEAF_REQUIRES_GRAD, hint="detach")
        if requires_grad and not self.dtype.is_floating_point:
            raise errors.runtime(errors.FLOAT_ONLY_METHOD, hint="float_dtype")
        if requires_grad and self._version.__class__ is not list and not grad_mode.inference:
            raise errors.runtime(REQUIRES_GRAD_INFERENCE, hint="inference")
        if self.grad_fn is None:
            self._rg = bool(requires_grad)
            self.__dict__.pop("_gs_no_accumulator", None)  # requires grad on its own now (or not at all)
        return self

    def is_inference(self):
        """Made inside torch.inference_mode (or a view or detach() of such a tensor): its version counter
        is none (autograd_modes.InferenceVersion) or an InferenceCounter, a normal tensor's is a list."""
        return self._version.__class__ is not list

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains and self._grad is None:  # TensorBody.h: undefined only
            warnings.warn(errors.NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @property
    def grad_dtype(self):
        gd = self._grad_dtype
        return self.dtype if gd is Tensor._SAME_DTYPE else gd

    @grad_dtype.setter
    def grad_dtype(self, value):
        if self.grad_fn is not None:
            raise errors.runtime("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, dtypes.dtype):
            raise errors.type_error(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
        self._grad_dtype = value

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise errors.type_error(f"assigned grad expected to be a Tensor or None but got grad of type "
                                        f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise errors.runtime(f"attempting to assign a gradient of size '[{', '.join(map(str, value.shape))}]' "
                                     f"to a tensor of size '[{', '.join(map(str, self.shape))}]'. Please ensure that "
                                     "the gradient and the tensor are the same size")
            gd = self.grad_dtype
            if gd is not None and value.dtype is not gd:
                from .ops.linalg import c10_low  # noqa: PLC0415
                from .ops.elementwise_common import c10_name  # noqa: PLC0415
                raise errors.runtime(f"attempting to assign a gradient with dtype '{c10_low(value.dtype)}' to a tensor "
                                     f"with grad_dtype '{c10_name(gd)}'. The gradient must match the tensor's "
                                     "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                                     "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
                                     "caution. Diverging the dtypes of a tensor and its gradient may break downstream "
                                     "systems that assume they match.")
        self._grad = value

    @property
    def retains_grad(self):
        return bool(self._retains)

    def retain_grad(self):
        if self.grad_fn is None:
            if not self._rg:
                raise errors.runtime("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains:
            return
        self._retains = True
        node = self.grad_fn
        if node._retained is None:
            node._retained = {}
        node._retained[self._output_nr] = weakref.ref(self)

    def _retain_accumulate(self, g, create_graph):
        if self._grad is None:
            self._grad = g if create_graph else detached_copy(g)
        else:
            self._grad = self._grad + g

    def _edge(self):
        if self._creation is not None:
            check_view_grad_fn(self)  # (torch's gradient_edge reads grad_fn())
        if self.grad_fn is not None:
            return (self.grad_fn, self._output_nr)
        if self._rg:
            acc = self._accum
            if acc is None:
                if "_gs_no_accumulator" in self.__dict__:  # a view made under no_grad (views.view_of)
                    return (None, 0)
                acc = self._accum = AccumulateGrad(self)
            return (acc, 0)
        return (None, 0)

    def _accumulate(self, g, create_graph, steal=False):
        """AccumulateGrad: the first gradient is stored (a copy, never an alias, unless nothing else
        holds it: `steal`, the engine's say for the tensor g, and _stealable for its array, as torch
        keeps a gradient whose use count is 1), later ones are added in place, or out of place when
        building a graph (create_graph). A leaf whose requires_grad was turned off after the graph was
        built takes nothing (accumulate_grad.cpp returns when the variable no longer requires grad; the
        engine still calls its post-accumulate hooks)."""
        if not self._rg:
            self._post_accumulate()
            return
        if g._data.shape != self._data.shape:
            from .ops.shape import sum_to  # noqa: PLC0415
            g = sum_to(g, self._data.shape)
        gd = self._grad_dtype
        if gd is not _SAME_DTYPE and gd is not None and g.dtype is not gd:
            g = g.to(gd)
        if type(g._data) is not type(self._data):  # a CPU 0-d tensor used with cuda ones: grad comes back
            g = wrap(to_device(g._data, device_of(self._data)), g.dtype)
        zero = "efficient_zero" in g.__dict__  # sgn's zero gradient: it adds as nothing (autograd_engine.sum_grads)
        grad = self._grad
        if grad is not None:
            if zero:
                if self._post_acc_hooks:
                    self._post_accumulate()
                return
            if "efficient_zero" in grad.__dict__:
                grad = self._grad = None  # what a zero gradient left: the next one replaces it
        if grad is None:
            if create_graph and g._rg:
                from .ops.inplace import copy_of  # noqa: PLC0415
                self._grad = copy_of(g, self)
            elif steal and not create_graph and not grad_mode.enabled and _stealable(g):
                # g itself when it is a plain fresh tensor (what wrap would make of its array), else a
                # tensor of its own around the array
                self._grad = g if (g._base is None and not g._rg and g._version[0] == 0 and not g.__dict__) \
                    else wrap(g._data, g.dtype)
            else:
                self._grad = detached_copy(g)
        elif create_graph or grad_mode.enabled:
            self._grad = grad + g
        else:
            grad._data += g._data
            grad._version[0] += 1
        if zero:
            self._grad.__dict__["efficient_zero"] = True
        if self._post_acc_hooks:
            self._post_accumulate()

    def _post_accumulate(self):
        if self._post_acc_hooks:
            for hook in list(self._post_acc_hooks):
                hook(self)

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor), called after backward has accumulated into this leaf's .grad."""
        if not self._rg:
            raise errors.runtime("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise errors.runtime("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = []
        self._post_acc_hooks.append(hook)
        from .autograd import RemovableHandle  # noqa: PLC0415
        return RemovableHandle(self._post_acc_hooks, hook)

    def register_hook(self, hook):
        if not self._rg:
            raise errors.runtime("cannot register a hook on a tensor that doesn't require gradient")
        node, nr = self._edge()
        if node._pre_hooks is None:
            node._pre_hooks = {}
        hooks = node._pre_hooks.setdefault(nr, [])
        hooks.append(hook)
        from .autograd import RemovableHandle  # noqa: PLC0415
        return RemovableHandle(hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        data = self._data
        if gradient is None and inputs is None and not create_graph and self._rg and data.size == 1 \
                and type(data) is np.ndarray and backward_observer[0] is None:
            # the common `loss.backward()`: the checks below cannot fail, skip them
            g = wrap(np.array(1, data.dtype) if not data.ndim else np.ones(data.shape, data.dtype), self.dtype)
            prev = grad_mode.enabled
            grad_mode.enabled = False
            try:
                if not run_plain(self._edge()[0], g, retain_graph):
                    prev_pass = current_pass[0]
                    try:
                        run_general((self,), (g,), bool(retain_graph), False, None, True, True)
                    finally:
                        current_pass[0] = prev_pass
            finally:
                grad_mode.enabled = prev
            return
        from .autograd_api import backward  # noqa: PLC0415
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        return _alias(self)

    def detach_(self):
        if self._base is not None:  # any view, whether or not its base requires grad
            raise errors.runtime("Can't detach views in-place. Use detach() instead. If you are using "
                                 "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view "
                                 "is set as True, gradients are views of DDP buckets, and hence detach_() "
                                 "cannot be called on these gradients. To fix this error, please refer to "
                                 "the Optimizer.zero_grad() function in torch/optim/optimizer.py as the "
                                 "solution.")
        self.grad_fn = None
        self._rg = False
        return self

    # ------------------------------------------------------------------ conversion to Python
    def item(self):
        if self._data.size != 1:
            raise errors.runtime(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return to_host(self._data).reshape(()).item()

    def tolist(self):
        return to_host(self._data).tolist()

    def numpy(self, force=False):
        if type(self._data) is not np.ndarray:
            if not force:
                raise errors.type_error(f"can't convert {self.device} device type tensor to numpy. Use "
                                        "Tensor.cpu() to copy the tensor to host memory first.")
            return to_host(self._data)
        if self._rg and not force and grad_mode.enabled:  # under no_grad torch allows it
            raise errors.runtime(errors.NUMPY_REQUIRES_GRAD, hint="detach_numpy")
        return self._data if not force else self._data.copy()

    def __array__(self, dtype=None, copy=None):
        a = self.numpy() if not self._rg else self.detach().numpy()
        return a if dtype is None else a.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        # torch: a NumPy function of a tensor gives a tensor back (np.exp(t)); bools become uint8
        if array.dtype == bool:
            array = array.astype("uint8")
        from .factory import from_numpy  # noqa: PLC0415
        array = np.asarray(array)
        return from_numpy(array if array.flags.c_contiguous else array.copy())

    def __float__(self):
        if self._rg:  # torch warns for float() only (not int(), bool() or item())
            warn_once(errors.SCALAR_OF_REQUIRES_GRAD_WARNING, UserWarning, stacklevel=2)  # TORCH_WARN_ONCE
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def __bool__(self):
        if self._data.size != 1:
            raise errors.runtime("Boolean value of Tensor with more than one value is ambiguous")
        return bool(to_host(self._data).reshape(()).item())

    def __index__(self):
        if self.dtype.is_floating_point or self._data.size != 1:
            raise errors.type_error("only integer tensors of a single element can be converted to an index")
        return int(to_host(self._data).reshape(()).item())

    def __complex__(self):
        return complex(self._scalar("complex"))

    def _scalar(self, what):
        if self._data.size != 1:
            raise errors.value("only one element tensors can be converted to Python scalars")
        return to_host(self._data).reshape(()).item()

    def __len__(self):
        if self._data.ndim == 0:
            raise errors.type_error("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise errors.type_error("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):  # torch's Tensor.__reversed__: reversed(x) is x.flip(0), a 0-d x itself
        return self if self._data.ndim == 0 else self.flip(0)

    def __hash__(self):
        return id(self)

    def __contains__(self, element):
        import numbers  # noqa: PLC0415

        from .ops.comparison import eq  # noqa: PLC0415
        if not isinstance(element, (Tensor, numbers.Number)):
            raise errors.runtime(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                                 f"{type(element)}.")
        return bool((eq(self, element)).any().item())

    def __format__(self, spec):
        # torch: a 0-dim plain Tensor formats its number (f"{loss}" -> 0.25), anything else as object does
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __repr__(self, *, tensor_contents=None):
        from .formatting import format_tensor  # noqa: PLC0415 - keeps start-up light
        d = self.device
        return format_tensor(
            to_host(self._data), dtype_name=self.dtype.name, default_dtype_name=dtypes.defaults.float.name,
            device="cpu" if d.type == "cpu" else str(d), requires_grad=self._rg,
            grad_fn_name="Invalid" if stale_view(self) else type(self.grad_fn).__name__ if self.grad_fn is not None
            else None, is_leaf=self.grad_fn is None, tangent=_tangent_text(self))

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        raise errors.type_error("cannot pickle 'Tensor' object")

    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise errors.runtime("Only Tensors created explicitly by the user (graph leaves) support the "
                                 "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                                 "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                                 "https://github.com/pytorch/pytorch/pull/103001")
        t = detached_copy(self)
        t._rg = self._rg
        return t

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """python_variable_methods.cpp's THPVariable_type: a dtype, a legacy tensor type
        (torch.LongTensor), or a type's or a string's name read by torch::utils::type_from_string
        ('torch.FloatTensor', 'torch.cuda.FloatTensor', 'torch.Tensor' for the default dtype)."""
        if dtype is None:
            return errors.type_string(self)
        from .api import legacy_dtype_of  # noqa: PLC0415
        from .ops.conversion import to  # noqa: PLC0415
        legacy = legacy_dtype_of(dtype)  # x.type(torch.LongTensor)
        if legacy is not None:
            return to(self, legacy)
        if isinstance(dtype, dtypes.dtype):
            return to(self, dtype)
        if dtype is Tensor:
            name = "torch.Tensor"
        elif isinstance(dtype, type):
            name = dtype.__name__  # the type's tp_name: float, bool, a script's class
        elif isinstance(dtype, str):
            name = dtype
        else:
            raise errors.type_error("dtype must be a type, str, or dtype object")
        if name == "torch.Tensor":
            return to(self, dtypes.get_default_dtype())
        cuda = name.startswith("torch.cuda.")
        wanted = "torch." + name[len("torch.cuda."):] if cuda else name
        for d in dtypes.ALL:
            if d.legacy and "torch." + d.legacy == wanted:
                return to(self, "cuda", d) if cuda else to(self, d)
        raise errors.value(f"invalid type: '{name}'")


_SAME_DTYPE = Tensor._SAME_DTYPE

# ---------------------------------------------------------------------- construction helpers

def init_from(t, data, dtype):
    t._data = data
    t.dtype = dtype
    t._rg = False
    t.grad_fn = None
    t._version = NO_VERSION if grad_mode.inference else [0]
    t._base = None


def wrap(data, dtype):
    """A new leaf Tensor around `data` (an ndarray already of dtype's type)."""
    t = _new(Tensor)
    if type(data) is not np.ndarray:
        data = _as_array(data)
    t._data = data
    t.dtype = dtype
    t._rg = False
    t.grad_fn = None
    t._version = NO_VERSION if grad_mode.inference else [0]  # made in inference mode: an inference tensor
    t._base = None
    return t


_new = object.__new__


def _as_array(data):
    if isinstance(data, np.generic):
        return np.asarray(data)
    return data  # a CuPy array


def _tangent_text(t):
    """What torch's repr appends for a dual tensor's tangent (f"tangent={tangent}": a 0-dim one as its number)."""
    if "_fwt" not in t.__dict__:
        return None
    from .forward_ad import tangent_of  # noqa: PLC0415 - only dual tensors need it
    tangent = tangent_of(t)
    return None if tangent is None else format(tangent, "")


def _alias(t):
    """detach(): same data and version counter, no graph."""
    r = wrap(t._data, t.dtype)
    v = t._version
    r._version = v if v.__class__ is list else inference_alias_version()  # shares data and version counter,
    # but no autograd view relation (an inference tensor's: autograd_modes.inference_alias_version); an in-place
    # change through r regenerates the grad_fn of t's root's views (ops/indexing.check_inplace)
    root = t if t._base is None else t._base
    r.__dict__["_gs_alias"] = root.__dict__.get("_gs_alias", root)
    return r


def detached_copy(t):
    return wrap(t._data.copy(), t.dtype)


def _stealable(g):
    """Can gradient g's array become .grad as it is? A writeable C-contiguous NumPy array (what the
    copy would be) that no other object holds: only g (and this call), or, for a view, the sole
    view of a base array of the same size, with at most g's own view base (a tensor nothing else
    holds, as in the weight's gradient g.t().mm(mat1).t(), a view of the transposed product)."""
    d = g._data
    if type(d) is not np.ndarray:
        return False
    flags = d.flags
    ok = flags.c_contiguous and flags.writeable
    flags = None  # the flags object holds a reference to d (which the count below must not see)
    if not ok:
        return False
    if _getrefcount(d) != 3:  # g._data, d, the argument
        return False
    base = d.base
    if base is None:
        return True
    if type(base) is not np.ndarray or base.base is not None or base.nbytes != d.nbytes:
        return False
    holders = 3  # d.base, base, the argument
    tb = g._base
    if tb is not None:
        if _getrefcount(tb) != 3:  # g._base, tb, the argument
            return False
        td = tb._data
        if td is base:
            holders += 2  # tb._data, td
        elif type(td) is np.ndarray and td.base is base and _getrefcount(td) == 3:  # tb._data, td, the argument
            holders += 1  # td.base
        else:
            return False
    return _getrefcount(base) == holders


def to_host(array):
    if type(array) is np.ndarray:
        return array
    return to_device(array, CPU)


def wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        if dim.__class__ is int and not -(1 << 63) <= dim < (1 << 63):  # torch's parser refuses it first
            raise errors.value("Overflow when unpacking long long")
        raise errors.index(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


# the name PyTorch prints for the class: <class 'torch.Tensor'>
Tensor.__module__ = "torch"


def stale_view(t):
    """A view whose CreationMeta is not the default (made under no_grad from a tensor that requires
    grad, an output of split/unbind or of a custom Function) changed in place, itself or through its
    base, since it was made (its version moved): torch cannot regenerate its grad_fn
    (VariableHooks::grad_fn, handle_view_on_rebase), so reading it raises; the repr shows
    ``grad_fn=<Invalid>`` (torch's _tensor_str catches the error)."""
    c = t._creation
    return c is not None and c[1] != t._version[0]


def check_view_grad_fn(t):
    """Raise torch's error where reading t's grad_fn does (grad_fn, is_leaf, grad, an op's edge)."""
    if stale_view(t):
        from .views import view_rebase_message  # noqa: PLC0415 - views imports this module
        raise errors.runtime(view_rebase_message(t, indirect=True))
