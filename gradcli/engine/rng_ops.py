"""PyTorch's CPU random functions, bit for bit (ATen/native/cpu/DistributionTemplates.h,
core/DistributionsHelper.h, core/TransformationHelper.h): the in-place kernels (uniform_, normal_,
random_, exponential_, bernoulli_, geometric_, log_normal_, cauchy_), the generators and the stream's
words; rng_factory.py builds torch's random constructors on them (rand, randn, randint, randperm, normal,
bernoulli, multinomial and the _like forms).

Every kernel consumes the generator's words strictly in call order, in the order TensorIterator
visits the elements (memory order: dims by decreasing stride), vectorised over the whole tensor."""
from __future__ import annotations

import builtins
import math

import numpy as np

from . import errors
from . import rng_math as M
from .autograd import make_node
from .autograd_modes import grad_mode
from .device import DEFAULT_DEVICE, canonical, host, like, overlaps
from .function import Function
from .ops.elementwise_common import c10_name, zero_grad
from .ops.indexing import check_inplace as _check_leaf
from .ops.inplace import apply_inplace_graph, move_retain
from .ops.inplace_checks import OVERLAP_MESSAGE
from .rng import Generator, nondeterministic_seed
from .tensor import Tensor

_F32, _F64 = np.float32, np.float64
_CHUNK = 1 << 16

# ---------------------------------------------------------------------------- generators

# torch.default_generator: seeded from /dev/urandom at start-up, as torch's is
default_generator = Generator()
default_generator.seed()

# The GPU's default generator (torch.cuda.default_generators[0]): not torch's Philox; the same MT19937
# algorithm drawn on the host and copied, so a seed gives the same values on every machine. Made on
# first use, seeded with the last torch.manual_seed / torch.cuda.manual_seed; never shares the CPU stream.
_cuda = {"generator": None, "seed": None}


def check_inplace(self):
    """torch's checks before a random fill draws anything: the leaf's, then TensorIterator's
    (an expanded tensor repeats elements: no fill)."""
    _check_leaf(self)
    if overlaps(self._data):
        raise errors.runtime(OVERLAP_MESSAGE)

def cuda_generator():
    g = _cuda["generator"]
    if g is None:
        g = Generator(canonical("cuda"))
        g.manual_seed(_cuda["seed"] if _cuda["seed"] is not None else nondeterministic_seed())
        _cuda["generator"] = g
    return g


def cuda_manual_seed(seed):
    """torch.cuda.manual_seed / manual_seed_all (one GPU)."""
    seed = builtins.int(seed)
    _cuda["seed"] = seed
    if _cuda["generator"] is not None:
        _cuda["generator"].manual_seed(seed)


def cuda_initial_seed():
    return cuda_generator().initial_seed()


def manual_seed(seed):
    seed = builtins.int(seed)  # torch.manual_seed: int(seed) first (1.5 -> 1, True -> 1)
    default_generator.manual_seed(seed)
    cuda_manual_seed(seed)
    return default_generator


def seed():
    s = default_generator.seed()
    cuda_manual_seed(s)
    return s


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


def gen_for(generator, device=None, fn=None):
    """The generator's stream; without one, the default generator of the device the numbers go to.
    fn: the function's name for torch's argument error."""
    if generator is not None:
        if not isinstance(generator, Generator):
            raise errors.type_error(f"{fn or 'random'}(): argument 'generator' must be torch.Generator, not "
                                    f"{type(generator).__name__}")
        return generator
    if device is None:
        device = DEFAULT_DEVICE[0]
        if device is None:
            return default_generator
    if device == "cpu" or getattr(device, "type", None) == "cpu" or canonical(device).type == "cpu":
        return default_generator
    return cuda_generator()


# ---------------------------------------------------------------------------- uniform words

def words24(g, n):
    """n words' low 24 bits (random() & 0xFFFFFF), as int32."""
    k = g.words32(n).view(np.int32)  # signed: NumPy converts int32 to float faster than uint32
    k &= 0xFFFFFF
    return k


_LOW24_PAIRS = np.array(0x00FFFFFF00FFFFFF, np.uint64)


def words24_pairs(g, n):
    """The same n words' low 24 bits (n even) with each pair's two words in the other order: n // 2
    `random64()` draws (first << 32 | second: NumPy's full-range uint64, a faster loop than its uint32
    one), seen as int32."""
    k = g.words64(n // 2)
    k &= _LOW24_PAIRS
    return k.view(np.int32)


def uniform24(g, n):
    """n float uniforms: (random() & 0xFFFFFF) * 2**-24, as float32."""
    out = words24(g, n).astype(_F32)
    out *= _F32(2.0 ** -24)
    return out


def uniform53(g, n):
    """n double uniforms: (random64() & (2**53 - 1)) * 2**-53."""
    k = g.words64(n).view(np.int64)
    k &= (1 << 53) - 1
    out = k.astype(_F64)
    out *= 2.0 ** -53
    return out


def opmath_uniform(g, n, np_dtype):
    return uniform53(g, n) if np_dtype == _F64 else uniform24(g, n)


# ---------------------------------------------------------------------------- writing in TensorIterator order

def _order_view(arr):
    """A view of arr whose C-order flattening is the order TensorIterator visits its elements."""
    if arr.ndim <= 1 or arr.flags.c_contiguous:
        return arr
    perm = sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d]) if arr.shape[d] > 1 else 0)
    return arr.transpose(perm)


def fill_in_order(arr, values):
    """Write values (flat, in TensorIterator order) into the NumPy array arr."""
    target = _order_view(arr)
    target[...] = values.reshape(target.shape)


class _RandomBackward(Function):
    """An in-place random fill: no gradient flows to the old value."""
    __slots__ = ()

    def backward(self, g):
        return (zero_grad(g),)


_NODES = {}


def node_class(name, base=_RandomBackward):
    """The subclass of `base` named `name` (the grad_fn name torch prints), made once."""
    cls = _NODES.get((name, base))
    if cls is None:
        cls = _NODES[name, base] = type(name, (base,), {"__slots__": ()})
    return cls


def direct_target(self):
    """self's memory as a flat NumPy array a kernel can fill in place (a C-contiguous NumPy tensor:
    memory order is TensorIterator's order), after torch's in-place checks; else None."""
    data = self._data
    check_inplace(self)
    if type(data) is np.ndarray and data.flags.c_contiguous and data.flags.writeable:
        return data.reshape(-1)
    return None


def write_values(self, values, node_name, written=False):
    """Fill self (values flat, in iteration order; written: they are in it already, filled through
    direct_target), bump its version, and give it node_name's node when it is part of a graph (torch:
    grad_fn=<UniformBackward0> etc.)."""
    check_inplace(self)
    data = self._data
    target = _order_view(data) if type(data) is np.ndarray else None
    if written:
        pass
    elif target is not None:
        target[...] = values.reshape(target.shape)
    else:  # a CuPy tensor: the host values in the same order
        tmp = _order_view(np.empty(data.shape, data.dtype))
        tmp[...] = values.reshape(tmp.shape)
        data[...] = like(data, tmp.base if tmp.base is not None else tmp)
    self._version[0] += 1
    if grad_mode.enabled and self._rg:
        old, old_nr = self.grad_fn, self._output_nr
        apply_inplace_graph(self, make_node(node_class(node_name), (self,), self.dtype))
        if self._retains:
            move_retain(self, old, old_nr)
    return self


def _float_kernel_check(self, name):
    if not self.dtype.is_floating_point:
        from .ops.elementwise_common import kernel_error  # noqa: PLC0415
        raise kernel_error(name, self.dtype)


# ---------------------------------------------------------------------------- uniform_

def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    if "from" in kw:
        from_ = kw.pop("from")
    if kw:
        raise errors.type_error(f"uniform_() got an unexpected keyword argument '{next(iter(kw))}'")
    check_inplace(self)  # torch's autograd layer checks before the kernel: no word drawn when it raises
    _float_kernel_check(self, "check_uniform_bounds")
    from_, to = float(from_), float(to)
    dt = self.dtype.np
    top = float(np.finfo(dt).max)
    cname = {"float32": "float", "float64": "double", "float16": "c10::Half"}[self.dtype.name]
    for label, v in (("from", from_), ("to", to)):
        if not -top <= v <= top:
            raise errors.runtime(f"{label} is out of bounds for {cname}")
    if not from_ <= to:
        raise errors.runtime(f"uniform_ expects to return a [from, to) range, but found from={_num(from_)} > "
                             f"to={_num(to)}")
    if to - from_ > top:
        kind = {"float32": "Float", "float64": "Double", "float16": "Half"}[self.dtype.name]
        raise errors.runtime(f"uniform_ expects to-from <= std::numeric_limits<{kind}>::max(), but found to={to:g} "
                             f"and from={from_:g} which result in to-from to exceed the limit")
    g = gen_for(generator, self.device, "uniform_")
    n = self.numel()
    dt = self.dtype.np
    flat = direct_target(self)  # filled in place where the memory allows: no second copy of the values
    if dt == _F64:
        vals = flat if flat is not None else np.empty(n, _F64)
        for i in range(0, n, _CHUNK):  # the words in order, a cache-sized piece at a time
            u = uniform53(g, min(_CHUNK, n - i))
            if from_ != 0 or to != 1:
                u = u * (to - from_) if from_ == 0 else M.mul_add(u, to - from_, from_, _F64)
            vals[i:i + u.size] = u
        if vals.size and vals.max() >= to:
            vals[vals == to] = from_
        return write_values(self, vals, "UniformBackward0", written=flat is not None)
    f, t = _F32(from_), _F32(to)
    top, bottom = dt.type(to), dt.type(from_)
    vals = flat if flat is not None else np.empty(n, dt)
    if dt == _F32:
        from .. import native  # noqa: PLC0415
        kernels = native.load("rng")
        if kernels is not None:  # csrc/rng.c: the transform and the `to` -> `from` in one pass, same bits
            for i in range(0, n, _CHUNK):
                c = min(_CHUNK, n - i)
                w = g.words64(c // 2).view(np.uint32) if c % 2 == 0 else g.words32(c)  # as words24_pairs
                kernels.uniform_f32(w, vals[i:i + c], t - f, f, top, c % 2 == 0, M.fused())
            return write_values(self, vals, "UniformBackward0", written=flat is not None)
    m = min(_CHUNK, n)
    v32, scratch = np.empty(m, _F32), np.empty(m, _F64)
    for i in range(0, n, _CHUNK):  # in cache-sized pieces: the words are drawn in order either way
        c = min(_CHUNK, n - i)
        v = M.uniform_transform(words24(g, c), t - f, f, vals[i:i + c] if dt == _F32 else v32[:c], scratch[:c])
        if dt != _F32:
            vals[i:i + c] = v
            v = vals[i:i + c]
        if v.max() >= top:  # a value rounded up to `to` becomes `from`
            v[v == top] = bottom
    return write_values(self, vals, "UniformBackward0", written=flat is not None)


def _num(x):
    return repr(x) if x != int(x) else str(int(x)) if math.isfinite(x) else repr(x)


# ---------------------------------------------------------------------------- normal_

def normal_serial(g, n, mean, std):
    """at::normal_distribution<double> per element: Box-Muller over pairs of 53-bit uniforms, r*cos
    returned, r*sin cached in the generator (and used first when cached)."""
    out = np.empty(n, _F64)
    k = 0
    if n and g.normal_double is not None:
        out[0] = g.normal_double
        g.normal_double = None
        k = 1
    m = n - k
    if m:
        pairs = (m + 1) // 2
        u = uniform53(g, 2 * pairs)
        r = np.sqrt(-2.0 * M.libm("log1p", -u[1::2]))
        theta = 2.0 * math.pi * u[0::2]
        both = np.empty(2 * pairs, _F64)
        both[0::2] = r * M.libm("cos", theta)
        both[1::2] = r * M.libm("sin", theta)
        out[k:] = both[:m]
        if m % 2:
            g.normal_double = builtins.float(both[-1])
    return M.mul_add(out, float(std), float(mean), _F64)


def normal_fill(g, n, mean, std, np_dtype, out=None):
    """normal_fill: n >= 16 contiguous elements, Box-Muller on blocks of 16 uniforms; a ragged end
    draws 16 more and recomputes the last 16 slots. out: where values of the opmath dtype (float32 for
    float, float64 for double) may go directly (the tensor's own memory)."""
    op = _F64 if np_dtype == _F64 else _F32
    whole = n - n % 16
    if op == _F32 and M.fast_avx[0]:
        from .. import native  # noqa: PLC0415
        kernels = native.load("rng")
        if kernels is not None:
            return _normal_fill_native(kernels, g, n, mean, std, np_dtype, out)
    if op == _F32 and M.fused() and M.fast_avx[0]:  # the AVX2 kernel, its uniforms drawn a chunk at a time
        from .rng_avx import normal_words  # noqa: PLC0415 - only the float32 normal needs it
        if out is None or out.dtype != _F32:
            out = np.empty(n, _F32)
        normal_words(lambda count: words24_pairs(g, count), whole, mean, std, out=out[:whole], swapped=True)
        if n % 16:
            if np_dtype == op:  # float draws all n into the output first: the last n % 16 are overwritten
                g.words32(n - whole)
            normal_words(lambda count: words24_pairs(g, count), 16, mean, std, out=out[n - 16:], swapped=True)
        return out.astype(np_dtype, copy=False)
    # float and double draw all n uniforms into the output first; float16 (opmath float) only 16 a block
    d = opmath_uniform(g, n if np_dtype == op else whole, op)
    if out is None or out.dtype != op:
        out = np.empty(n, op)
    M.box_muller_blocks(d[:whole], mean, std, op, out=out[:whole])
    if n % 16:
        M.box_muller_blocks(opmath_uniform(g, 16, op), mean, std, op, out=out[n - 16:])
    return out.astype(np_dtype, copy=False)


_NATIVE_CHUNK = 1 << 16  # values a call of the C kernel: its words (256 KiB) stay in the CPU's cache


def _normal_fill_native(kernels, g, n, mean, std, np_dtype, out):
    """normal_fill's float32 blocks in C (csrc/rng.c normal_fill_f32: the fused build's arithmetic where
    the capability fuses, else the DEFAULT build's libm calls), the words drawn as the NumPy path draws
    them (words24_pairs' 64-bit draws, each pair's words in the other order)."""
    kind = 1 if M.fused() else 0
    whole = n - n % 16
    if out is None or out.dtype != _F32:
        out = np.empty(n, _F32)
    for i in range(0, whole, _NATIVE_CHUNK):
        m = min(_NATIVE_CHUNK, whole - i)
        kernels.normal_fill_f32(g.words64(m // 2).view(np.uint32), out[i:i + m], mean, std, True, kind)
    if n % 16:
        if np_dtype == _F32:  # float draws all n into the output first: the last n % 16 are overwritten
            g.words32(n - whole)
        kernels.normal_fill_f32(g.words64(8).view(np.uint32), out[n - 16:], mean, std, True, kind)
    return out.astype(np_dtype, copy=False)


def normal_values(g, shape_numel, contiguous, mean, std, np_dtype, out=None):
    """The values of normal_ (flat, in iteration order); the block kernels write float32 and float64
    values into out (the tensor's own memory, when given) and return it."""
    if shape_numel >= 16 and contiguous:
        return normal_fill(g, shape_numel, mean, std, np_dtype, out)
    return normal_serial(g, shape_numel, mean, std).astype(np_dtype)


def check_std(std, name="normal"):
    if not std >= 0.0:
        raise errors.runtime(f"{name} expects std >= 0.0, but found std {_num(float(std))}")


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    check_inplace(self)
    _float_kernel_check(self, "normal_kernel_cpu")
    check_std(std)
    g = gen_for(generator, self.device, "normal_")
    flat = direct_target(self)
    vals = normal_values(g, self.numel(), _contiguous(self), float(mean), float(std), self.dtype.np, out=flat)
    return write_values(self, vals, "NormalBackward0", written=vals is flat)


def _contiguous(t):
    return t.is_contiguous()


# ---------------------------------------------------------------------------- integers

def int_values(g, n, low, high):
    """random_from_to: (random() or random64()) % (high - low) + low, with torch's 2**28 switch."""
    rng = (high - low) & 0xFFFFFFFFFFFFFFFF
    w = g.words64(n) if rng >= (1 << 28) else g.words(n)
    v = (w % np.uint64(rng)) + np.uint64(low & 0xFFFFFFFFFFFFFFFF)
    return v.view(np.int64)


_DIGITS = {"float16": 11, "float32": 24, "float64": 53}
# the C++ type names ATen's random_ bounds errors print (caffe2::TypeMeta)
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short", "int32": "int",
              "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
              "float64": "double"}
_NO_TO = object()  # random_(from, None) (to the dtype's top) is not random_(to)


def _check_random_bounds(dtype, from_, to_inc):
    """ATen's check_from_to_in_range: from and to - 1 within the dtype's values."""
    name = dtype.name
    if name == "bool":
        low, high = 0, 1
    elif dtype.is_floating_point:
        info = np.finfo(dtype.np) if name != "bfloat16" else None
        high = float(info.max) if info is not None else 3.3895313892515355e38
        low = -high
    else:
        info = np.iinfo(dtype.np)
        low, high = int(info.min), int(info.max)
    cpp = _CPP_NAMES.get(name, name)
    for value, what in ((from_, "from"), (to_inc, "to - 1")):
        if not low <= value <= high:
            raise errors.runtime(f"{what} is out of bounds for {cpp}")
    if dtype.is_floating_point:  # WARN_OUT_OF_BOUNDS: past 2**digits not every integer is a value
        digits = _DIGITS.get(name, 8)
        for value, what in ((from_, "from"), (to_inc, "to - 1")):
            if not -(1 << digits) <= value <= 1 << digits:
                import warnings  # noqa: PLC0415 - only for the warning
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations {cpp} "
                              "can support discrete uniform distribution only within this range. This warning will "
                              "become an error in version 1.7 release, please fix the code in advance (Triggered "
                              "internally at /__w/pytorch/pytorch/aten/src/ATen/native/DistributionTemplates.h:111.)",
                              UserWarning, stacklevel=3)


def random_(self, from_=None, to=_NO_TO, *, generator=None, **kw):
    if "from" in kw:
        from_ = kw.pop("from")
    if kw:
        raise errors.type_error(f"random_() got an unexpected keyword argument '{next(iter(kw))}'")
    check_inplace(self)
    g = gen_for(generator, self.device, "random_")
    n = self.numel()
    name = self.dtype.name
    if from_ is None and to in (None, _NO_TO):  # uniform_int_distribution
        if name == "bool":
            vals = (g.words(n) & np.uint64(1)).astype(bool)
        elif name in ("int64", "float64"):
            mod = (1 << 63) if name == "int64" else (1 << 53) + 1
            vals = (g.words64(n) % np.uint64(mod)).astype(self.dtype.np)
        else:
            mod = (1 << _DIGITS[name]) + 1 if name in _DIGITS else int(np.iinfo(self.dtype.np).max) + 1
            vals = (g.words(n) % np.uint64(mod)).astype(self.dtype.np)
        return write_values(self, vals, "RandomBackward2")
    node = "RandomBackward0"  # random_(from, to)
    if from_ is None:  # random_(to=...)
        from_ = to
        to = _NO_TO
    if to is _NO_TO:
        from_, to = 0, from_
        node = "RandomBackward1"  # random_(to)
    from_ = builtins.int(from_)
    if to is None:  # [from, the dtype's top]: ATen's to_inc
        if self.dtype.is_floating_point:
            to_inc = 1 << _DIGITS.get(name, 8)
            if not from_ < to_inc:
                raise errors.runtime(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                                     f"casted to dtype, but got from={from_} > to_inc={to_inc}")
        else:
            to_inc = 1 if name == "bool" else int(np.iinfo(self.dtype.np).max)
        _check_random_bounds(self.dtype, from_, to_inc)
        vals = int_values(g, n, from_, to_inc + 1).astype(self.dtype.np)
        return write_values(self, vals, node)
    to = builtins.int(to)
    if not from_ < to:
        raise errors.runtime(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    _check_random_bounds(self.dtype, from_, to - 1)
    vals = int_values(g, n, from_, to).astype(self.dtype.np)
    return write_values(self, vals, node)


# ---------------------------------------------------------------------------- other distributions

def _serial_double(self, generator, name, fn):
    _float_kernel_check(self, name)
    g = gen_for(generator, self.device)
    return fn(g, self.numel())


def exponential_values(g, n, lambd):
    return (-1.0 / lambd) * M.libm("log1p", -uniform53(g, n))


def exponential_(self, lambd=1.0, *, generator=None):
    check_inplace(self)
    if not lambd > 0.0:
        raise errors.runtime(f"exponential_ expects lambda > 0.0, but found lambda={_num(float(lambd))}")
    if not self.dtype.is_floating_point:
        raise errors.runtime("Exponential distribution is a continuous probability distribution. dtype must be a "
                             f"floating point but you specified {c10_name(self.dtype)}")
    vals = exponential_values(gen_for(generator, self.device), self.numel(), float(lambd))
    return write_values(self, vals.astype(self.dtype.np), "ExponentialBackward0")


def geometric_(self, p, *, generator=None):
    check_inplace(self)
    if not 0 < p < 1:
        raise errors.runtime(f"geometric_ expects p to be in (0, 1), but got p={_num(float(p))}")
    g = gen_for(generator, self.device)
    u = uniform53(g, self.numel())
    vals = np.ceil(M.libm("log", u) / math.log1p(-float(p)))
    return write_values(self, vals.astype(self.dtype.np), "GeometricBackward0")


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    check_inplace(self)
    if not std > 0.0:
        raise errors.runtime(f"log_normal_ expects std > 0.0, but found std={_num(float(std))}")
    vals = _serial_double(self, generator, "log_normal_cpu",
                          lambda g, n: M.libm("exp", normal_serial(g, n, float(mean), float(std))))
    return write_values(self, vals.astype(self.dtype.np), "LogNormalBackward0")


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    check_inplace(self)
    if not sigma > 0.0:
        raise errors.runtime(f"cauchy_ expects sigma > 0.0, but found sigma={_num(float(sigma))}")
    vals = _serial_double(self, generator, "cauchy_cpu", lambda g, n: float(median) + float(sigma) * M.libm(
        "tan", math.pi * (uniform53(g, n) - 0.5)))
    return write_values(self, vals.astype(self.dtype.np), "CauchyBackward0")


def bernoulli_values(g, n, p):
    """bernoulli_distribution: p an array (float32/16: 24-bit float uniforms; float64: 53-bit) or a
    Python float (53-bit)."""
    if isinstance(p, np.ndarray) and p.dtype != _F64:
        return uniform24(g, n) < p.astype(_F32).reshape(-1)
    return uniform53(g, n) < (p.reshape(-1) if isinstance(p, np.ndarray) else p)


def bernoulli_(self, p=0.5, *, generator=None):
    check_inplace(self)
    g = gen_for(generator, self.device)
    if isinstance(p, Tensor):
        probs = host(p._data)
        if not bool(np.all((probs >= 0) & (probs <= 1))):
            raise errors.runtime("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                                 "message be improved?  If so, please report an enhancement request to PyTorch.)")
        perm_p = np.broadcast_to(probs, self._data.shape)  # p alongside self, in self's iteration order
        if self._data.ndim > 1 and not self._data.flags.c_contiguous:
            perm_p = perm_p.transpose(_perm_of(self._data))
        vals = bernoulli_values(g, self.numel(), np.ascontiguousarray(perm_p))
    else:
        if not 0 <= p <= 1:
            raise errors.runtime(f"bernoulli_ expects p to be in [0, 1], but got p={_num(float(p))}")
        vals = bernoulli_values(g, self.numel(), float(p))
    return write_values(self, vals.astype(self.dtype.np),
                        "BernoulliBackward1" if isinstance(p, Tensor) else "BernoulliBackward2")


def _perm_of(arr):
    return sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d]) if arr.shape[d] > 1 else 0)
