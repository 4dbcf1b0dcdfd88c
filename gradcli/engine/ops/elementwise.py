"""Elementwise ops: arithmetic, unary math, comparisons, where/clamp. One class per PyTorch
node: its forward on arrays and its backward on Tensors (so it differentiates again).

Over ~600 lines (issue 22), not split yet: its hot paths (binary, the scalar operators, relu) are
being reworked; the seams are its sections (arithmetic; unary math and rounding; min/max/clamp/where;
comparison and logic), once the shared plumbing's users name it directly."""
from __future__ import annotations

import math
import sys

import numpy as np

from .. import dtypes, errors, numerics
from ...backend import vml
from ..autograd import ZERO_NRS, NotImplementedNode, node_observer, SavedValue, sequence_numbers, site_hook, grad_mode, make_node
from ..device import asarray as _asarray
from ..device import check_same, is_device_array, xp_of
from ..function import Function, record1, record, record2
from ..limits import LIMITS as _LIMITS
from ..limits import check_broadcast
from ..pow_kernel import pow_tensor_scalar, pow_tensor_tensor
from ..tensor import Tensor, wrap
from . import replays, words
from .registry import V, case, op, sample1, sample2
from .shape import sum_to

# ---------------------------------------------------------------------------- shared plumbing


def _check_devices(a, b):
    """TensorIterator's rule: a CPU 0-d tensor may join a cuda one (as a scalar); any other mix of
    devices is PyTorch's error, naming the cuda device first."""
    if type(a._data) is not type(b._data) and a.device != b.device:
        check_same((a, b))


def _on_one_device(x, y):
    """Operands of a CPU 0-d tensor and a cuda tensor: the CPU value goes as a NumPy scalar."""
    if type(x) is np.ndarray and x.ndim == 0 and is_device_array(y):
        return x[()], y
    if type(y) is np.ndarray and y.ndim == 0 and is_device_array(x):
        return x, y[()]
    return x, y


def broadcast_error(a, b):
    sa = getattr(a, "shape", ())
    sb = getattr(b, "shape", ())
    return errors.runtime(errors.broadcast_mismatch(tuple(sa), tuple(sb)), hint="broadcast")


def binary_operands(a, b, dtype):
    """The arrays (or weak Python scalars) to compute on, each cast to the compute dtype."""
    if isinstance(a, Tensor):
        x = a._data if a.dtype is dtype else a._data.astype(dtype.np)
    else:
        x = a if a.__class__ is not int or dtype.category != dtypes.INT else cast_int(a, dtype)
    if isinstance(b, Tensor):
        y = b._data if b.dtype is dtype else b._data.astype(dtype.np)
    else:
        y = b if b.__class__ is not int or dtype.category != dtypes.INT else cast_int(b, dtype)
    return x, y


def cast_int(v, dt):
    """A Python int as torch converts it to an integer dtype: wrapped modulo 2**bits (-3 -> 253 for uint8)."""
    bits = dt.itemsize * 8
    if bits == 64:
        return v
    v &= (1 << bits) - 1
    if dt.is_signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def coerce(other):
    """The other operand of a binary op: a Tensor, or a Python number kept weak."""
    c = other.__class__
    if c is float or c is int or c is Tensor:
        return other
    if isinstance(other, Tensor) or isinstance(other, (bool, int, float)):
        return other
    if isinstance(other, np.ndarray):
        from ..factory import tensor_from_numpy_value  # noqa: PLC0415
        return tensor_from_numpy_value(other)
    if isinstance(other, np.generic):
        return other.item()
    return NotImplemented


_FLOAT, _INT = dtypes.FLOAT, dtypes.INT


_SCALARS = {}


def _scalar_array(v, dt):
    """A Python number as a 0-d array of dt, converted as torch converts it (integers wrapped to the
    dtype's width). Cached: NumPy computes an array with a 0-d array of its own dtype much faster
    than with a Python number, with the same result."""
    key = (v, dt)
    r = _SCALARS.get(key)
    if r is None:
        w = cast_int(v, dt) if dt.category == _INT else v
        if v == 0 or v != v:  # keep -0.0 and nan out of the cache (0.0 == -0.0, nan != nan)
            return np.asarray(w, dt.np)
        if len(_SCALARS) > 512:
            _SCALARS.clear()
        r = _SCALARS[key] = np.asarray(w, dt.np)
        r.flags.writeable = False
    return r


def _check_size(x, y):
    """--max-elements for the broadcast result of x and y, before computing it."""
    xs, ys = getattr(x, "shape", ()), getattr(y, "shape", ())
    if xs != ys and xs and ys:
        check_broadcast(xs, ys)


def binary(cls, a, b, out_dtype=None, compute_dtype=None, kw=None):
    """Apply a broadcasting binary op. a or b may be a Python scalar; the result dtype follows
    torch's promotion (computed on that dtype), or out_dtype for comparisons."""
    dt = None
    if a.__class__ is Tensor:  # the hot cases: a Python float/int, or a Tensor of the same dtype
        ad = a.dtype
        bc = b.__class__
        if bc is float or bc is int:
            cat = ad.category
            if cat == _FLOAT or (cat == _INT and bc is int):
                x = a._data
                if type(x) is np.ndarray and ad.itemsize != 2:
                    y = _SCALARS.get((b, ad))
                    if y is None:
                        y = _scalar_array(b, ad)
                else:
                    y = cast_int(b, ad) if cat == _INT else b
                dt = ad
        elif bc is Tensor and b.dtype is ad:
            x, y = a._data, b._data
            if type(x) is not type(y):
                _check_devices(a, b)
                x, y = _on_one_device(x, y)
            dt = ad
        if dt is not None and compute_dtype is not None and compute_dtype(dt) is not dt:
            dt = None
    if dt is None:
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            _check_devices(a, b)
            dt = a.dtype if a.dtype is b.dtype else dtypes.result_type((a, b))
        else:
            dt = dtypes.result_type((a, b))
        if compute_dtype is not None:
            dt = compute_dtype(dt)
        x, y = binary_operands(a, b, dt)
        if type(x) is not type(y):
            x, y = _on_one_device(x, y)
    if _LIMITS["max_elements"] is not None:
        _check_size(x, y)
    try:
        r = cls.forward(x, y, **kw) if kw else cls.forward(x, y)
    except ValueError:
        raise broadcast_error(a, b) from None
    if dt is dtypes.float16 and cls in _HALF_SCALAR_KERNELS and isinstance(r, (np.ndarray, np.generic)):
        r = _half_by_scalar(cls, x, b, r)
    rd = out_dtype or dt
    if r.__class__ is not np.ndarray and isinstance(r, (np.generic, float, int, bool)):
        r = np.asarray(r)  # a 0-d result comes back as a NumPy scalar (CuPy arrays stay as they are)
    if r.dtype is not rd.np and r.dtype != rd.np:
        r = r.astype(rd.np)
    out = _new(Tensor)  # wrap(), inlined
    out._data = r
    out.dtype = rd
    out._rg = False
    out.grad_fn = None
    out._version = [0]
    out._base = None
    if not grad_mode.enabled or (out_dtype is not None and not out_dtype.is_floating_point):
        return out
    return record2(cls, a, b, out, kw)


_new = object.__new__
_ZERO_NRS2 = ZERO_NRS[(0, 0)]


def _half_by_scalar(cls, x, b, r):
    """ATen's mul and true-division kernels for float16 with a one-element second operand (a Python
    number, a 0-d or any one-element tensor): `float(a) op b` with b's original value as a float, not b
    rounded to half first (`half * 1e5` is 0 at 1e-10, not nan), then rounded to half."""
    if isinstance(b, Tensor):
        if b._data.size != 1 or type(b._data) is not np.ndarray:
            return r
        bf = b._data.reshape(()).astype(np.float32)
    elif isinstance(b, (int, float)):
        bf = np.float32(b)
    else:
        return r
    with np.errstate(all="ignore"):
        v = np.asarray(_HALF_SCALAR_KERNELS[cls](np.asarray(x, np.float32), bf)).astype(np.float16)
    return np.array(np.broadcast_to(v, np.shape(r))) if v.shape != np.shape(r) else v


# 0-d float32/float64 CPU tensors with a number or a 0-d tensor of the same dtype: the arithmetic of
# the scalar chains (`y * 1.01 + b`), computed on Python floats. A 0-d NumPy operation costs about a
# microsecond (it goes through the scalar machinery and comes back as a NumPy scalar); the Python
# operation is exact for float64 and, for float32, bit-identical to NumPy's: the operands are float32
# values, and rounding their double-precision sum, difference, product or quotient to float32 gives the
# correctly rounded float32 result (double has at least 2 * 24 + 2 bits: no double-rounding error).
# dtype -> (a 0-d array to copy for results, number -> the number as an operand of the dtype, a Python float)
_PROTO0 = {dtypes.float32: (np.zeros((), np.float32), {}), dtypes.float64: (np.zeros((), np.float64), {})}


def _float0(v, dt, cache):
    """float(_scalar_array(v, dt)), kept in cache (a dict per dtype, keyed by the number alone: no key
    tuple to build and hash) under _scalar_array's rules: no zeros (0.0 == -0.0), no nan."""
    r = float(_scalar_array(v, dt))
    if v != 0 and v == v:
        if len(cache) > 512:
            cache.clear()
        cache[v] = r
    return r


def scalar_operator(name, cls, op, slow, kw_number=None, kw_tensor=None):
    """The Python operator (Tensor.__mul__ & co.) for cls: `a op b` for a 0-d float32/float64 CPU tensor a
    and a number or a 0-d tensor of a's dtype, computed on Python floats and recorded as binary() records
    it (kw_number / kw_tensor: the node's kw); slow(a, b) for everything else.

    Written as one function per operator, with record2() inlined for a number operand, because it is
    the whole cost of a scalar chain (`y = y * 1.01 + 1e-3`): every call and attribute lookup counts."""
    if cls.save_output:
        raise TypeError(f"{cls.__name__}: the 0-d fast path records no output")
    save_inputs = cls.save_inputs
    save_a = save_inputs and (cls.save_when is None or 0 in cls.save_when[0])  # needed with a number b
    shared = {}  # number -> the saved ((), number) of its nodes when a is not saved (see below)

    def operator(a, b):
        x = a._data
        if x.__class__ is np.ndarray and not x.ndim:
            ad = a.dtype
            proto = _PROTO0.get(ad)
            bc = b.__class__
            if proto is None:
                y = None
            elif bc is float or bc is int:
                proto, floats = proto
                y = floats.get(b)
                if y is None:
                    y = _float0(b, ad, floats)
            elif bc is Tensor and b.dtype is ad and b._data.__class__ is np.ndarray and not b._data.ndim:
                proto = proto[0]
                y = float(b._data)
            else:
                y = None
            if y is not None:
                try:
                    v = op(float(x), y)
                except ZeroDivisionError:  # x / 0: NumPy's inf or nan, from the slow path
                    return slow(a, b)
                r = proto.copy()
                r[()] = v
                out = _new(Tensor)  # wrap(), inlined
                out._data = r
                out.dtype = ad
                out._rg = False
                out.grad_fn = None
                out._version = [0]
                out._base = None
                if not grad_mode.enabled:
                    return out
                if bc is Tensor:
                    return record2(cls, a, b, out, kw_tensor)
                if not a._rg:
                    return out
                # record2(cls, a, b, out, kw_number), inlined: b is a number (no edge, saved as itself)
                node = _new(cls)
                fn = a.grad_fn
                if fn is not None:
                    node._fns = (fn, None)
                    node._nrs = _ZERO_NRS2 if a._output_nr == 0 else (a._output_nr, 0)
                else:
                    fn, nr = a._edge()
                    node._fns = (fn, None)
                    node._nrs = _ZERO_NRS2 if nr == 0 else (nr, 0)
                if not save_inputs:
                    node._saved = ()
                elif save_a:
                    node._saved = (SavedValue(a), b)
                else:
                    # ((), b) (a's shape and the number), one tuple shared by the nodes of one number object:
                    # a chain multiplies by the same few constants, and a tuple per node is one more
                    # object for the garbage collector to count and walk
                    saved = shared.get(b)
                    if saved is None or saved[1] is not b:
                        if len(shared) > 64:
                            shared.clear()
                        saved = shared[b] = ((), b)
                    node._saved = saved
                node._kw = kw_number
                node._seq = next(sequence_numbers)
                node._out_dtype = ad
                node._x = None
                hook = site_hook[0]
                node._site = hook() if hook is not None else None
                out._rg = True
                out.grad_fn = node
                if node_observer[0] is not None:
                    node_observer[0](node, (a, b), (out,))
                return out
        return slow(a, b)

    operator.__name__ = operator.__qualname__ = name
    operator.__module__ = slow.__module__  # where the operators were defined before (names in messages)
    # A code object of its own per operator: CPython specializes attribute access per code object
    # (inline caches), and shared code would see MulBackward0 and AddBackward0 nodes in turn in a chain
    # (a miss at every access); one per operator, each sees its own node class.
    # (co_qualname is a field of code objects from Python 3.11; 3.10 has co_name only)
    names = {"co_name": name, "co_qualname": name} if sys.version_info >= (3, 11) else {"co_name": name}
    operator.__code__ = operator.__code__.replace(**names)
    return operator


def unary(cls, x, float_only=True, kw=None):
    """Apply a unary op; integer inputs go to the default float dtype when the op needs floats."""
    d = x.dtype
    data = x._data
    if float_only and d.category != _FLOAT:
        d = dtypes.defaults.float
        data = data.astype(d.np)
    r = cls.forward(data, **kw) if kw else cls.forward(data)
    if r.dtype is not d.np and r.dtype != d.np:
        r = r.astype(d.np)
    out = wrap(r, d)
    if not grad_mode.enabled or not x._rg:
        return out
    return record(cls, (x,), out, kw)


def scalar_op(cls, x, s, kw, compute_dtype=None):
    """An op of a Tensor and a Python number that torch records with one edge: the number is an
    argument of the node (in kw), not an input (`x ** 2`, `x % 2`, `1 - x`, `clamp(x, 0, 1)`)."""
    dt = dtypes.result_type((x, s))
    if compute_dtype is not None:
        dt = compute_dtype(dt)
    data = x._data if x.dtype is dt else x._data.astype(dt.np)
    if s.__class__ is int and dt.category == dtypes.INT:
        s = cast_int(s, dt)
    r = cls.forward(data, s)
    if getattr(r, "dtype", None) != dt.np:
        r = _asarray(r).astype(dt.np)
    return record(cls, (x,), wrap(r, dt), kw)


def float_division(dt):
    return dt if dt.is_floating_point else dtypes.defaults.float


# ---------------------------------------------------------------------------- arithmetic

_F32, _F64, _F16 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)


def add_alpha(a, b, alpha):
    """ATen's add/sub with alpha (ufunc add: `vec::fmadd(other, alpha, self)`): float32 and float64 as
    one fused multiply-add (AVX2/AVX512 builds), b (a number converted to the dtype first) times alpha
    plus a; float16 with b and alpha rounded to half; integers as they are."""
    dt = getattr(a, "dtype", None)
    if type(a) is not np.ndarray or dt not in (_F32, _F64, _F16):
        return a + alpha * b
    bb = b if isinstance(b, np.ndarray) else np.asarray(b, dt)
    al = dt.type(alpha)
    with np.errstate(all="ignore"):
        plain = a + al * bb
        if dt == _F16:
            return plain
        from ..rng_math import capability, fma32, fma64  # noqa: PLC0415 - only alpha != 1 needs them
        if capability() == "default":  # the DEFAULT build's Vectorized fmadd is a * b + c, rounded twice
            return plain
        shape = plain.shape  # the kernels take flat arrays of one shape
        number = np.size(bb) == 1  # a number or a one-element tensor: a stride-0 operand in ATen's loop
        bb, aa = np.broadcast_to(bb, shape).reshape(-1), np.broadcast_to(a, shape).reshape(-1)
        r = np.asarray(fma32(bb, al, aa) if dt == _F32 else fma64(bb, al, aa), dt).reshape(shape)
        if number and r.size <= _GRAIN and a.shape == shape and a.flags.c_contiguous:
            unfused = _scalar_tail_unfused(r.size, dt.itemsize, capability())
            if unfused is not None:
                r.reshape(-1)[unfused] = plain.reshape(-1)[unfused]
    bad = ~np.isfinite(r)
    if bad.any():  # the exact product's splitting overflows near the range's end, or inputs are not finite
        r = np.where(bad, plain, r)
    return r


_GRAIN = 32768  # at::internal::GRAIN_SIZE: one loop over the whole tensor below it


def _scalar_tail_unfused(n, itemsize, cap):
    """With a number (a stride-0 `other`) ATen's vectorized_loop fuses every 2 * Vec::size() block, and
    (AVX512 only) one more Vec; the rest goes to basic_loop, which the compiler vectorizes with
    `alpha * other` hoisted out of the loop: its first element fused, then blocks of 16 bytes rounded
    twice, the last few fused again. Measured against torch 2.13 for every tail length, AVX2 and AVX512.
    The slice of the flat result that is rounded twice, or None."""
    lanes = (64 if cap == "avx512" else 32) // itemsize
    start = n - n % (2 * lanes)
    if cap == "avx512" and n - start >= lanes:
        start += lanes
    block = 16 // itemsize
    count = (n - start - 1) // block * block
    return slice(start + 1, start + 1 + count) if count > 0 else None


class AddBackward0(Function):
    """a + alpha * b. kw is (shape of a, shape of b or None for a number, alpha)."""
    __slots__ = ()
    explain = staticmethod(words.add)
    expression = "{0} + {1}"

    @staticmethod
    def forward(a, b, alpha=None):
        return a + b if alpha is None else add_alpha(a, b, alpha)

    def backward(self, g):
        sa, sb, alpha = self._kw
        ga = g if g._data.shape == sa else sum_to(g, sa)
        if sb is None or self._fns[1] is None:
            return ga, None
        gb = g if alpha == 1 else g * alpha
        return ga, (gb if gb._data.shape == sb else sum_to(gb, sb))


class SubBackward0(Function):
    """a - alpha * b. kw is (shape of a, shape of b or None for a number, alpha)."""
    __slots__ = ()
    explain = staticmethod(words.sub)
    expression = "{0} - {1}"

    @staticmethod
    def forward(a, b, alpha=None):
        return a - b if alpha is None else add_alpha(a, b, -alpha)

    def backward(self, g):
        sa, sb, alpha = self._kw
        ga = g if g._data.shape == sa else sum_to(g, sa)
        if sb is None or self._fns[1] is None:
            return ga, None
        gb = -g if alpha == 1 else g * -alpha
        return ga, (gb if gb._data.shape == sb else sum_to(gb, sb))


class RsubBackward1(Function):
    """other - alpha * self with a number other, as torch.rsub(self, other) records it (`1 - a`)."""
    __slots__ = ()
    explain = staticmethod(words.rsub1)
    expression = "c - {0}"

    @staticmethod
    def forward(a, b):
        return b - a

    def backward(self, g):
        alpha = self._kw.get("alpha", 1) if self._kw else 1
        return (-g if alpha == 1 else g * -alpha,)


class RsubBackward0(Function):
    """torch.rsub(self, other) with two tensors: other - alpha * self."""
    __slots__ = ()
    explain = staticmethod(words.rsub0)

    @staticmethod
    def forward(a, b, alpha=None):
        return b - a if alpha is None else b - alpha * a

    def backward(self, g):
        a_shape, b_shape = self._kw["_shapes"]
        alpha = self._kw.get("alpha")
        return sum_to(-g if alpha is None else g * -alpha, a_shape), sum_to(g, b_shape)


class MulBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((1,), (0,))
    explain = staticmethod(words.mul)
    expression = "{0} * {1}"

    @staticmethod
    def forward(a, b):
        return a * b

    def backward(self, g):
        saved = self._saved
        if saved is None or saved[0].__class__ is SavedValue or saved[1].__class__ is SavedValue:
            a, b = self.saved  # checks the saved tensors' versions (or raises: freed)
        else:
            a, b = saved  # shapes and numbers (`y * 1.01`): nothing to check, no call (scalar chains)
        nf = self._fns
        ga = gb = None
        if nf[0] is not None:
            ga = g * b
            sa = a if a.__class__ is tuple else a._data.shape
            if ga._data.shape != sa:
                ga = sum_to(ga, sa)
        if nf[1] is not None:
            gb = g * a
            sb = b if b.__class__ is tuple else b._data.shape
            if gb._data.shape != sb:
                gb = sum_to(gb, sb)
        return ga, gb


class DivBackward0(Function):
    __slots__ = ()
    save_inputs = True
    save_when = ((1,), (0, 1))
    explain = staticmethod(words.div)
    expression = "{0} / {1}"

    @staticmethod
    def forward(a, b):
        return a / b

    def backward(self, g):
        a, b = self.saved
        ga = g / b if needs_input_grad(self, 0) else None
        gb = -g * ((a / b) / b) if needs_input_grad(self, 1) else None  # torch's div_tensor_other_backward, in its order
        return shaped(ga, a), shaped(gb, b)


class DivBackward2(Function):
    """div with rounding_mode ('floor' or 'trunc'): piecewise constant, zero gradients."""
    __slots__ = ()
    explain = ("0 (rounded division is flat between its steps)", "0")

    @staticmethod
    def forward(a, b, mode):
        if mode == "floor":
            if np.result_type(a, b).kind in "iub":
                _check_int_zero_division(a, b)
            return np.floor_divide(a, b)
        if np.result_type(a, b).kind in "iub":
            _check_int_zero_division(a, b)
            q = np.floor_divide(a, b)
            return q + ((np.remainder(a, b) != 0) & (np.less(a, 0) != np.less(b, 0)))
        return np.trunc(np.true_divide(a, b))

    def backward(self, g):
        a, b = self._kw["shapes"]
        return sum_to(zero_grad(g), a), (sum_to(zero_grad(g), b) if needs_input_grad(self, 1) else None)


def kernel_error(kernel, dt):
    """torch's error for a dtype a kernel does not support: NotImplementedError "kernel" not implemented for 'Bool'."""
    e = NotImplementedError(f'"{kernel}" not implemented for \'{c10_name(dt)}\'')
    e.gradcli_hint = None
    return e


def _check_int_zero_division(a, b):
    """torch's integer division by zero; shapes that do not broadcast are reported first (NumPy's
    ValueError, which the callers turn into torch's broadcast message)."""
    np.broadcast_shapes(np.shape(a), np.shape(b))
    if np.any(_asarray(b) == 0):
        raise errors.runtime("ZeroDivisionError")


def _scalar_tensor(value, like):
    from ..factory import tensor  # noqa: PLC0415
    return tensor(value, device=like.device if isinstance(like, Tensor) else None)


class NegBackward0(Function):
    __slots__ = ()
    explain = staticmethod(words.neg)
    expression = "-{0}"
    forward = staticmethod(np.negative)

    def backward(self, g):
        return (-g,)


def _pow_scalar(x, p):
    """x ** p computed as ATen does for floats: x*x, x*x*x, sqrt, rsqrt, 1/x, 1/(x*x) for those
    exponents, otherwise std::pow (correctly rounded: computed in float64 for narrower floats)."""
    if x.dtype.kind != "f":
        return x ** p
    if p == 2:
        return x * x
    if p == 3:
        return x * x * x
    if p == 0.5:
        return _vml_sqrt(x)  # ATen's pow_tensor_scalar_kernel: sqrt_kernel (MKL's VML with gradcli[mkl])
    if p == -0.5:
        return 1 / np.sqrt(x)
    if p == -1:
        return 1 / x
    if p == -2:
        return 1 / (x * x)
    if p == 0:
        return np.ones_like(x)
    if p == 1:
        return x.copy()
    if type(x) is not np.ndarray or x.dtype.itemsize < 4:
        return (x.astype(np.float64) ** p).astype(x.dtype) if x.dtype.itemsize < 8 else x ** p
    return pow_tensor_scalar(x, p)  # SLEEF's pow on the vector body, the C library's on the tail


_vml_sqrt = vml("sqrt", np.sqrt)


class PowBackward0(Function):
    """x ** exponent (a Python number, in kw)."""
    __slots__ = ()
    save_inputs = True
    explain = staticmethod(words.pow0)
    expression = staticmethod(words.pow_expression)
    forward = staticmethod(_pow_scalar)

    def backward(self, g):
        (x,) = self.saved
        p = self._kw["exponent"]
        if p == 0:
            return (zero_grad(g),)
        return (g * mul_scalar(x ** (p - 1), p),)  # torch's pow_backward: grad * (exponent * self.pow(exponent - 1))


class PowBackward1(Function):
    """x ** y, both tensors."""
    __slots__ = ()
    save_inputs = True
    save_output = True
    explain = staticmethod(words.pow1)

    @staticmethod
    def forward(x, y):
        return pow_tensor_tensor(x, y)

    def backward(self, g):
        x, y, out = self.saved
        gx = gy = None
        if needs_input_grad(self, 0):
            gx = where(y == 0, 0.0, g * (y * x ** (y - 1)))  # torch: grad * (exponent * self.pow(exponent - 1))
        if needs_input_grad(self, 1):
            gy = g * where((x == 0) & (y >= 0), 0.0, out * log(x))  # torch's pow_backward_exponent
        return shaped(gx, x), shaped(gy, y)


class PowBackward2(Function):
    """number ** tensor (`2 ** a`): the input is the exponent, the base is in kw."""
    __slots__ = ()
    save_inputs = True
    save_output = True
    explain = staticmethod(words.pow2)

    @staticmethod
    def forward(y, base):
        if y.dtype.kind in "iu":  # ATen's powi: a negative exponent gives 0 but for a base of 1 or -1
            return pow_tensor_tensor(xp_of(y).asarray(base, y.dtype), y)
        if base == 1 or y.dtype.kind != "f" or is_device_array(y):  # CuPy computes its own pow
            return base ** y
        # torch.pow(number, tensor): a new contiguous output, then the tensor-tensor kernel
        return pow_tensor_tensor(np.asarray(base, y.dtype), y, contiguous_out=True)

    def backward(self, g):
        y, out = self.saved
        base = self._kw["base"]
        if base == 0:
            return (g * where(y >= 0, 0.0, mul_scalar(out, float("-inf"))),)  # torch's pow_backward_exponent
        # Scalar::log() of a negative base: NaN (the grad comes out with a clear sign bit, as measured)
        return (g * mul_scalar(out, math.log(base) if base > 0 else math.nan),)


def _remainder(a, b):
    """torch's remainder: fmod, moved into the divisor's sign (so 3 % -3 is +0.0, not NumPy's -0.0)."""
    if np.result_type(a, b).kind != "f":
        return np.remainder(a, b)
    m = np.fmod(a, b)
    return np.where((m != 0) & (np.less(b, 0) != (m < 0)), m + b, m)


class RemainderBackward0(Function):
    """remainder(x, number): one edge."""
    __slots__ = ()
    explain = "1"
    forward = staticmethod(_remainder)

    def backward(self, g):
        return (g,)


class RemainderBackward1(Function):
    __slots__ = ()
    explain = ("1", "-floor({pa} / {pb})")
    save_inputs = True
    forward = staticmethod(_remainder)

    def backward(self, g):
        a, b = self.saved
        gb = -g * div(a, b, rounding_mode="floor") if needs_input_grad(self, 1) else None
        return shaped(g, a), shaped(gb, b)


def needs_input_grad(node, i):
    return node._fns[i] is not None


def shaped(g, like):
    """g reduced to the shape of an input (a Tensor, or the shape of one not saved); None for a number."""
    if g is None:
        return None
    if isinstance(like, Tensor):
        return sum_to(g, like._data.shape)
    if type(like) is tuple:
        return sum_to(g, like)
    return None


def _alpha_check(a, b, alpha):
    """ATen's alpha_check on the result dtype of add/sub/rsub with alpha."""
    if alpha.__class__ is int:
        return
    try:  # TensorIterator's shape check comes first (the op's broadcast error)
        np.broadcast_shapes(np.shape(getattr(a, "_data", a)), np.shape(getattr(b, "_data", b)))
    except ValueError:
        return
    dt = dtypes.result_type((a, b))
    if isinstance(alpha, bool):
        if dt is not dtypes.bool_:
            raise errors.runtime("Boolean alpha only supported for Boolean results.")
    elif not dt.is_floating_point and isinstance(alpha, float):
        raise errors.runtime("For integral input tensors, argument alpha must not be a floating point number.")


def add(input, other, *, alpha=1, out=None):
    other = coerce(other)
    if not isinstance(input, Tensor):
        input, other = other, input
    if alpha.__class__ is not int:
        _alpha_check(input, other, alpha)
    r = binary(AddBackward0, input, other, kw=None if alpha == 1 else {"alpha": alpha})
    node = r.grad_fn
    if node is not None:
        node._kw = (input._data.shape, other._data.shape if other.__class__ is Tensor or isinstance(other, Tensor)
                    else None, alpha)
    return r


def sub(input, other, *, alpha=1, out=None):
    other = coerce(other)
    if not isinstance(input, Tensor):
        return rsub(other, input)
    if input.dtype is dtypes.bool_ or other.__class__ is bool or getattr(other, "dtype", None) is dtypes.bool_:
        _check_sub_bool(input, other)
    if alpha.__class__ is not int:
        _alpha_check(input, other, alpha)
    r = binary(SubBackward0, input, other, kw=None if alpha == 1 else {"alpha": alpha})
    node = r.grad_fn
    if node is not None:
        node._kw = (input._data.shape, other._data.shape if other.__class__ is Tensor or isinstance(other, Tensor)
                    else None, alpha)
    return r


subtract = sub


def _check_sub_bool(a, b):
    a_bool = getattr(a, "dtype", None) is dtypes.bool_ or isinstance(a, bool)
    b_bool = getattr(b, "dtype", None) is dtypes.bool_ or isinstance(b, bool)
    if a_bool and b_bool:
        raise errors.runtime("Subtraction, the `-` operator, with two bool tensors is not supported. "
                             "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise errors.runtime("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                             "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def rsub(input, other, alpha=1):
    """other - alpha * input; the node torch records for `number - tensor`."""
    other = coerce(other)
    if alpha.__class__ is not int:
        _alpha_check(input, other, alpha)
    if isinstance(other, Tensor):
        kw = None if alpha == 1 else {"alpha": alpha}
        r = binary(RsubBackward0, input, other, kw=kw)
        _keep_shapes(r, RsubBackward0, input, other)
        return r
    _check_sub_bool(input, other)
    if alpha == 1:
        return scalar_op(RsubBackward1, input, other, None)
    dt = dtypes.result_type((input, other, alpha))
    r = wrap(_asarray(other - alpha * input._data.astype(dt.np)).astype(dt.np), dt)
    return record(RsubBackward1, (input,), r, {"alpha": alpha})


def _keep_shapes(r, cls, a, b):
    node = r.grad_fn
    if node is not None and type(node) is cls:
        node._kw = dict(node._kw or {})
        node._kw["_shapes"] = (tuple(getattr(a, "shape", ())), tuple(getattr(b, "shape", ())))


def _rsub_backward(self, g):
    return (-g, None)


RsubBackward1.backward = _rsub_backward


def mul(input, other, *, out=None):
    c = other.__class__
    if c is not float and c is not int and c is not Tensor:
        other = coerce(other)
    if not isinstance(input, Tensor):
        input, other = other, input
    return binary(MulBackward0, input, other)


multiply = mul


_NO_MODE = object()


class _DivModeNone(DivBackward0):
    """torch.div(a, b, rounding_mode=None) spelled out: true division, recorded as DivBackward2."""
    __slots__ = ()


_DivModeNone.__name__ = _DivModeNone.__qualname__ = "DivBackward2"
_HALF_SCALAR_KERNELS = {MulBackward0: np.multiply, DivBackward0: np.true_divide, _DivModeNone: np.true_divide}


def div(input, other, *, rounding_mode=_NO_MODE, out=None):
    other = coerce(other)
    if rounding_mode is None:
        if not isinstance(input, Tensor):
            input = _scalar_tensor(input, other)
        return binary(_DivModeNone, input, other, compute_dtype=float_division)
    if rounding_mode is not _NO_MODE:
        if rounding_mode not in ("floor", "trunc"):
            raise errors.value(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                               f"'{rounding_mode}'")
        if not isinstance(input, Tensor):
            input = _scalar_tensor(input, other)
        r = binary(DivBackward2, input, other, kw={"mode": rounding_mode})
        if r.grad_fn is not None:
            r.grad_fn._kw = {"mode": rounding_mode, "shapes": (input._data.shape, tuple(getattr(other, "shape", ())))}
        return r
    if not isinstance(input, Tensor):
        return mul(reciprocal(other), input)
    return binary(DivBackward0, input, other, compute_dtype=float_division)


divide = true_divide = div


def neg(input):
    if input.dtype is dtypes.bool_:
        raise errors.runtime("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                             "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return unary(NegBackward0, input, float_only=False)


negative = neg


def pow(input, exponent):
    exponent = coerce(exponent)
    if not isinstance(input, Tensor):
        if dtypes.result_type((exponent, input)) is dtypes.bool_:
            raise kernel_error("pow", dtypes.bool_)
        return scalar_op(PowBackward2, exponent, input, {"base": input})
    if isinstance(exponent, Tensor):
        return binary(PowBackward1, input, exponent)
    if (isinstance(exponent, int) and not isinstance(exponent, bool) and exponent < 0
            and not input.dtype.is_floating_point):
        raise errors.runtime("Integers to negative integer powers are not allowed.")
    return scalar_op(PowBackward0, input, exponent, {"exponent": exponent})


def square(input):
    return pow(input, 2)


def floor_divide(input, other):
    other = coerce(other)
    dt = dtypes.result_type((input, other))
    if dt is dtypes.bool_:
        raise kernel_error("div_floor_cpu", dt)
    x, y = binary_operands(input, other, dt)
    try:
        if dt.category != dtypes.FLOAT:
            _check_int_zero_division(x, y)
        r = np.floor_divide(x, y)
    except ValueError:
        raise broadcast_error(input, other) from None
    return not_implemented(wrap(_asarray(r).astype(dt.np), dt), (input, other), "aten::floor_divide")


def not_implemented(out, inputs, opname):
    """Attach torch's NotImplemented node (an op without a derivative) when an input requires grad."""
    tensors = [t for t in inputs if isinstance(t, Tensor) and t._rg]  # only those requiring grad
    if grad_mode.enabled and tensors:
        node = make_node(NotImplementedNode, tensors, out.dtype)
        node._opname = opname
        out._rg = True
        out.grad_fn = node
    return out


def remainder(input, other):
    other = coerce(other)
    if isinstance(other, Tensor):
        _check_remainder_int(input, other)
        if not isinstance(input, Tensor):
            dt = dtypes.result_type((input, other))
            x, y = binary_operands(input, other, dt)
            try:
                r = _remainder(x, y)
            except ValueError:
                raise broadcast_error(input, other) from None
            return not_implemented(wrap(_asarray(r).astype(dt.np), dt), (other,),
                                   "aten::remainder")
        return binary(RemainderBackward1, input, other)
    _check_remainder_int(input, other)
    return scalar_op(RemainderBackward0, input, other, None)


def _check_remainder_int(a, b):
    dt = dtypes.result_type((a, b))
    if dt is dtypes.bool_:
        raise kernel_error("remainder_cpu", dt)
    if dt.category != dtypes.FLOAT:
        try:
            _check_int_zero_division(a._data if isinstance(a, Tensor) else a, b._data if isinstance(b, Tensor) else b)
        except ValueError:
            raise broadcast_error(a, b) from None


# ---------------------------------------------------------------------------- unary math

def _positive_nan(fn):
    """fn (a function undefined below 0: sqrt, log), giving torch's NaN there: NumPy's is the CPU's
    default NaN, whose sign bit is set on x86; torch's kernels give +NaN (signbit and copysign see it)."""
    def run(x):
        r = fn(x)
        if r.dtype.kind == "f":
            negative = x < 0
            if negative.any():
                r = np.where(negative, np.abs(r), r)
        return r
    return run


class ExpBackward0(Function):
    __slots__ = ()
    expression = "exp({0})"
    explain = "exp({a})"
    save_output = True
    forward = staticmethod(vml("exp", numerics.ufunc(np.exp)))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (g * result,)


class LogBackward0(Function):
    __slots__ = ()
    expression = "log({0})"
    explain = "1 / {pa}"
    save_inputs = True
    forward = staticmethod(vml("log", _positive_nan(numerics.ufunc(np.log))))

    def backward(self, g):
        (x,) = self.saved
        return (g / x,)


class Log2Backward0(Function):
    __slots__ = ()
    explain = "1 / ({pa} * ln 2)"
    save_inputs = True
    forward = staticmethod(vml("log2", _positive_nan(numerics.ufunc(np.log2))))

    def backward(self, g):
        (x,) = self.saved
        return (g / mul_scalar(x, 0.6931471805599453),)


class Log10Backward0(Function):
    __slots__ = ()
    explain = "1 / ({pa} * ln 10)"
    save_inputs = True
    forward = staticmethod(vml("log10", _positive_nan(numerics.ufunc(np.log10))))

    def backward(self, g):
        (x,) = self.saved
        return (g / mul_scalar(x, 2.302585092994046),)


class SqrtBackward0(Function):
    __slots__ = ()
    expression = "sqrt({0})"
    explain = "1 / (2 * sqrt({a}))"
    save_output = True
    forward = staticmethod(vml("sqrt", _positive_nan(np.sqrt)))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (g / mul_scalar(result, 2),)


class RsqrtBackward0(Function):
    __slots__ = ()
    explain = "-0.5 * {pa}**(-1.5)"
    save_output = True

    @staticmethod
    def forward(x):
        return 1 / np.sqrt(x)

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (mul_scalar(g, -0.5) * result ** 3,)


class SinBackward0(Function):
    __slots__ = ()
    expression = "sin({0})"
    explain = "cos({a})"
    save_inputs = True
    forward = staticmethod(vml("sin", numerics.ufunc(np.sin)))

    def backward(self, g):
        (x,) = self.saved
        return (g * cos(x),)


class CosBackward0(Function):
    __slots__ = ()
    expression = "cos({0})"
    explain = "-sin({a})"
    save_inputs = True
    forward = staticmethod(vml("cos", numerics.ufunc(np.cos)))

    def backward(self, g):
        (x,) = self.saved
        return (g * -sin(x),)


class TanBackward0(Function):
    __slots__ = ()
    explain = "1 + tan({a})**2"
    save_output = True
    forward = staticmethod(vml("tan", numerics.ufunc(np.tan)))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (g * add_scalar(result ** 2, 1),)  # torch: grad * (1 + result.pow(2))


class TanhBackward0(Function):
    __slots__ = ()
    expression = "tanh({0})"
    explain = "1 - tanh({a})**2"
    save_output = True
    forward = staticmethod(vml("tanh", numerics.ufunc(np.tanh)))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (B.tanh_backward(g, result),)


class SigmoidBackward0(Function):
    __slots__ = ()
    expression = "sigmoid({0})"
    explain = "sigmoid({a}) * (1 - sigmoid({a}))"
    save_output = True

    @staticmethod
    def forward(x):
        return numerics.sigmoid(x)  # ATen's 1 / (1 + exp(-x))

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (B.sigmoid_backward(g, result),)


_INT_OF_SIZE = {2: np.int16, 4: np.int32, 8: np.int64}
_ZERO_OF = {}  # dtype -> its 0-d zero (where() takes a 0-d array faster than a scalar)


def _zero_where(x, mask):
    """np.where(mask, +0.0, x) for a float array x (new array, x's dtype), without where's branch per
    element (slow on a random mask): x's bits ANDed with 0 where mask holds, all ones elsewhere."""
    if x.size <= 2048:  # where's branch per element costs less than two more ufunc calls here
        zero = _ZERO_OF.get(x.dtype)
        if zero is None:
            zero = _ZERO_OF[x.dtype] = np.zeros((), x.dtype)
        return np.where(mask, zero, x)
    it = _INT_OF_SIZE[x.dtype.itemsize]
    keep = np.subtract(mask, 1, dtype=it)  # True -> 0, False -> -1 (all bits set)
    return np.bitwise_and(x.view(it), keep, out=keep).view(x.dtype)


def _maximum_is_clamp_min(dt):
    """Does np.maximum(0, x) give exactly torch's clamp_min(x, 0) (x where not x < 0, else +0: NaN
    and -0. kept) for arrays of dtype dt? It does where NumPy's SIMD loop computes max(a, b) as
    a > b ? a : b (x86's max_ps), not where a scalar loop returns +0 for max(0, -0) (float16, and
    other builds): probed once per dtype on every value kind at every offset of a vector and tail."""
    zero = np.zeros((), dt)
    kinds = np.array([-0.0, np.nan, -1.0, 2.0, 0.0, -np.inf, np.inf, -np.nan, 1e-40, -1e-40, -2.5]).astype(dt)
    for n in (*range(1, 18), 31, 32, 33, 63, 64, 65, 4099):
        for off in (0, 5):
            x = kinds[(np.arange(n) + off) % len(kinds)]
            for probe in (x, x[::2]):
                if not np.array_equal(np.maximum(zero, probe).view(np.uint8), _zero_where(probe, probe < 0).view(np.uint8)):
                    return False
    return True


_MAX_OK = {}   # dtype -> _maximum_is_clamp_min(dtype)


def relu_array(x):
    """torch's relu (clamp_min(x, 0)) of a float NumPy array: one np.maximum where it is exact."""
    ok = _MAX_OK.get(x.dtype)
    if ok is None:
        ok = _MAX_OK[x.dtype] = _maximum_is_clamp_min(x.dtype)
    if ok:
        zero = _ZERO_OF.get(x.dtype)
        if zero is None:
            zero = _ZERO_OF[x.dtype] = np.zeros((), x.dtype)
        return np.maximum(zero, x)
    return _zero_where(x, x < 0)


class ReluBackward0(Function):
    __slots__ = ()
    expression = "relu({0})"
    explain = "1 where {a} > 0, else 0"
    save_output = True

    @staticmethod
    def forward(x):
        # torch's clamp_min(x, 0): NaN stays NaN, -0. stays -0. (only x < 0 becomes 0)
        if x.dtype.kind != "f":
            return np.maximum(x, 0)
        if type(x) is np.ndarray and x.ndim:
            return relu_array(x)
        return np.where(x < 0, x.dtype.type(0), x)

    def backward(self, g):
        saved = self._saved
        sv = saved[-1] if saved else None
        if sv.__class__ is SavedValue and sv.tensor._version[0] == sv.version:
            result = sv.tensor  # self.saved's check, inline
        else:
            result = self.saved[-1]  # (raises: freed, or modified in place)
        G, R = g._data, result._data
        if not grad_mode.enabled and type(G) is np.ndarray and type(R) is np.ndarray and g.dtype.category == _FLOAT:
            # no graph to build: where(result <= 0, 0.0, g) on the arrays, as where() computes it
            if G.ndim and G.shape == R.shape and G.dtype.kind == "f":
                if G.size > 2048 and R.dtype == G.dtype:
                    # R is relu's result (never negative), so R <= 0 is R == 0: G's bits times R != 0
                    it = _INT_OF_SIZE[G.dtype.itemsize]
                    return (wrap(np.multiply(G.view(it), R != 0, dtype=it).view(G.dtype), g.dtype),)
                return (wrap(_zero_where(G, R <= 0), g.dtype),)
            r = np.where(R <= 0, 0.0, G)
            return (wrap(r if r.dtype == g.dtype.np else r.astype(g.dtype.np), g.dtype),)
        return (B.threshold_backward(g, result, 0),)  # +0 where the input was <= 0 (NaN passes g)


class AbsBackward0(Function):
    __slots__ = ()
    expression = "abs({0})"
    explain = "sign({a})"
    save_inputs = True
    forward = staticmethod(np.abs)

    def backward(self, g):
        (x,) = self.saved
        return (g * sgn(x),)


class ReciprocalBackward0(Function):
    __slots__ = ()
    explain = "-1 / {pa}**2"
    save_output = True

    @staticmethod
    def forward(x):
        return 1 / x

    def backward(self, g):
        (result,) = self.saved[-1:]
        return (-g * (result * result),)  # torch: -grad * (result * result)


def zero_grad(g):
    """zeros_like(grad): the derivative of a piecewise-constant op (floor, sign, rounding division,
    ...) as torch computes it: no graph, and no NaN or -0. from the incoming gradient."""
    from ..factory import zeros_like  # noqa: PLC0415
    return zeros_like(g)


def _sign(x):
    """torch.sign: 0 for NaN (NumPy gives NaN); a bool tensor is its own sign."""
    if x.dtype.kind == "b":
        return x.copy()
    r = np.sign(x)
    return np.where(np.isnan(x), r.dtype.type(0), r) if x.dtype.kind == "f" else r


class SignBackward0(Function):
    __slots__ = ()
    explain = "0 (the function is flat between its steps)"
    forward = staticmethod(_sign)

    def backward(self, g):
        return (zero_grad(g),)


class SgnBackward0(SignBackward0):
    """sgn of a real tensor: sign (0 for NaN); its gradient is zero (torch's abs and norm formulas use it):
    torch's efficient zero tensor, which adds to another gradient as nothing (a -0. there stays -0.)."""
    __slots__ = ()

    def backward(self, g):
        z = zero_grad(g)
        z.__dict__["efficient_zero"] = True  # autograd.sum_grads skips it
        return (z,)


def exp(input):
    return unary(ExpBackward0, input)


def log(input):
    return unary(LogBackward0, input)


def log2(input):
    return unary(Log2Backward0, input)


def log10(input):
    return unary(Log10Backward0, input)


def sqrt(input):
    return unary(SqrtBackward0, input)


def rsqrt(input):
    return unary(RsqrtBackward0, input)


def sin(input):
    return unary(SinBackward0, input)


def cos(input):
    return unary(CosBackward0, input)


def tan(input):
    return unary(TanBackward0, input)


def tanh(input):
    return unary(TanhBackward0, input)


def sigmoid(input):
    return unary(SigmoidBackward0, input)


def relu(input, inplace=False):
    x = getattr(input, "_data", None)
    if type(x) is np.ndarray and x.ndim and x.dtype.kind == "f":  # unary()'s work for a float array, inline
        out = wrap(relu_array(x), input.dtype)
        if input._rg and grad_mode.enabled:
            record1(ReluBackward0, (input,), out, None)
        return out
    return unary(ReluBackward0, input, float_only=False)


def abs(input):
    if input.dtype is dtypes.bool_:
        raise kernel_error("abs_cpu", input.dtype)
    return unary(AbsBackward0, input, float_only=False)


absolute = abs


def reciprocal(input):
    return unary(ReciprocalBackward0, input)


def sign(input):
    return unary(SignBackward0, input, float_only=False)


def sgn(input):
    return unary(SgnBackward0, input, float_only=False)


# ---------------------------------------------------------------------------- Scalar overloads

# A C++ formula that multiplies or divides by a Scalar (`grad / numel` in mean's backward, `x * 0.9` inside
# ATen) records the Scalar overloads, MulBackward1 and DivBackward1; a Python number in a script is a
# wrapped tensor in torch, recorded as MulBackward0 and DivBackward0 (binary() above).
class AddBackward1(Function):
    __slots__ = ()
    explain = "1"
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(xs[0] + kw["other"]).reshape(outs[0])])

    def backward(self, g):
        return (g,)


class MulBackward1(Function):
    __slots__ = ()
    explain = "{kw[other]}"
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(xs[0] * kw["other"]).reshape(outs[0])])

    def backward(self, g):
        return (mul_scalar(g, self._kw["other"]),)


class DivBackward1(Function):
    __slots__ = ()
    explain = "1 / {kw[other]}"
    replay = staticmethod(lambda xs, kw, outs: [np.asarray(xs[0] / kw["other"]).reshape(outs[0])])

    def backward(self, g):
        return (div_scalar(g, self._kw["other"]),)


def add_scalar(t, s):
    return record(AddBackward1, (t,), wrap(_asarray(t._data + s, t.dtype.np), t.dtype), {"other": s})


def mul_scalar(t, s):
    return record(MulBackward1, (t,), wrap(_asarray(t._data * s, t.dtype.np), t.dtype), {"other": s})


def div_scalar(t, s):
    return record(DivBackward1, (t,), wrap(_asarray(t._data / s, t.dtype.np), t.dtype), {"other": s})


# ---------------------------------------------------------------------------- rounding (zero grad)

class FloorBackward0(Function):
    __slots__ = ()
    explain = "0 (the function is flat between its steps)"
    forward = staticmethod(np.floor)

    def backward(self, g):
        return (zero_grad(g),)


class CeilBackward0(FloorBackward0):
    __slots__ = ()
    forward = staticmethod(np.ceil)


class RoundBackward0(FloorBackward0):
    __slots__ = ()
    forward = staticmethod(np.round)


class TruncBackward0(FloorBackward0):
    __slots__ = ()
    forward = staticmethod(np.trunc)


def floor(input):
    return unary(FloorBackward0, input, float_only=False)


def ceil(input):
    return unary(CeilBackward0, input, float_only=False)


def round(input, decimals=0):
    if decimals:
        s = 10.0 ** decimals
        return round(input * s) / s
    return unary(RoundBackward0, input, float_only=False)


def trunc(input):
    return unary(TruncBackward0, input, float_only=False)


# ---------------------------------------------------------------------------- min/max/clamp/where

class MaximumBackward0(Function):
    __slots__ = ()
    explain = ("1 where {a} > {b} (1/2 where equal), else 0", "1 where {b} > {a} (1/2 where equal), else 0")
    save_inputs = True
    forward = staticmethod(np.maximum)

    def backward(self, g):
        a, b = self.saved
        # ties split the gradient in half, as torch does; the strictly smaller side gets exactly 0
        # (masked, even where g is inf or NaN); where a NaN takes part both get all of it
        tie = where(a == b, g * 0.5, g)
        return shaped(where(a < b, 0.0, tie), a), shaped(where(b < a, 0.0, tie), b)


class MinimumBackward0(Function):
    __slots__ = ()
    explain = ("1 where {a} < {b} (1/2 where equal), else 0", "1 where {b} < {a} (1/2 where equal), else 0")
    save_inputs = True
    forward = staticmethod(np.minimum)

    def backward(self, g):
        a, b = self.saved
        tie = where(a == b, g * 0.5, g)
        return shaped(where(a > b, 0.0, tie), a), shaped(where(b > a, 0.0, tie), b)


def maximum(input, other):
    return binary(MaximumBackward0, input, coerce(other))


def minimum(input, other):
    return binary(MinimumBackward0, input, coerce(other))


class WhereBackward0(Function):
    """where(cond, a, b): edges a and b (a number is an edge (None, 0)); cond is in kw."""
    __slots__ = ()
    explain = ("1 where the condition holds, else 0", "1 where the condition does not hold, else 0")
    replay = staticmethod(lambda xs, kw, outs: [np.broadcast_to(np.where(replays.as_array(kw["cond"]).astype(bool), xs[0], xs[1]),
                                                                 outs[0]).copy()])

    @staticmethod
    def forward(cond, a, b):
        return np.where(cond, a, b)

    def backward(self, g):
        cond = self._kw["cond"]
        a_shape, b_shape = self._kw["shapes"]
        za = sum_to(where(cond, g, 0.0), a_shape) if needs_input_grad(self, 0) else None
        zb = sum_to(where(cond, 0.0, g), b_shape) if needs_input_grad(self, 1) else None
        return za, zb


def where(condition, input=None, other=None):
    if input is None and other is None:
        from .gather_scatter import nonzero  # noqa: PLC0415
        return nonzero(condition, as_tuple=True)
    input, other = coerce(input), coerce(other)
    dt = dtypes.result_type([x for x in (input, other)])
    x, y = binary_operands(input, other, dt)
    c = condition._data if isinstance(condition, Tensor) else condition
    if isinstance(condition, Tensor) and condition.dtype is not dtypes.bool_:
        raise errors.runtime(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                             f"{c10_name(condition.dtype)}")
    if not (type(c) is type(x) is type(y)):
        ts = [t for t in (condition, input, other) if isinstance(t, Tensor)]
        if len({type(t._data) for t in ts}) > 1:
            check_same(ts)  # CPU 0-d tensors may join cuda ones, as scalars
            c, x, y = (v[()] if type(v) is np.ndarray and v.ndim == 0 else v for v in (c, x, y))
    if _LIMITS["max_elements"] is not None:
        check_broadcast(*(s for s in (np.shape(c), np.shape(x), np.shape(y)) if s))
    try:
        r = np.where(c, x, y)
    except ValueError:  # TensorIterator broadcasts condition, self, other in that order
        raise errors.runtime(errors.broadcast_fold_mismatch([tuple(np.shape(v)) for v in (c, x, y)]),
                             hint="broadcast") from None
    out = wrap(_asarray(r).astype(dt.np, copy=False), dt)
    if not grad_mode.enabled or not (getattr(input, "_rg", False) or getattr(other, "_rg", False)):
        return out
    shapes = (tuple(getattr(input, "shape", ())), tuple(getattr(other, "shape", ())))
    return record(WhereBackward0, (input, other), out, {"cond": condition, "shapes": shapes})


def _clamp_forward(x, lo, hi):
    # torch's clamp keeps x where it equals the bound (std::max(x, lo): -0. stays -0. under min=0);
    # NumPy's maximum may return the bound's zero. NaN (of x or of a bound) propagates in both.
    if lo is not None:
        r = np.maximum(x, lo)
        x = np.where(r == x, x, r)
    if hi is not None:
        r = np.minimum(x, hi)
        x = np.where(r == x, x, r)
    return x


class ClampBackward1(Function):
    """clamp with number bounds (in kw): one edge."""
    __slots__ = ()
    explain = "1 where {a} is inside the bounds, else 0"
    save_inputs = True

    @staticmethod
    def forward(x, bounds):
        return _clamp_forward(x, *bounds)

    def backward(self, g):
        (x,) = self.saved
        lo, hi = self._kw["bounds"]
        if lo is None:
            mask = x <= hi
        elif hi is None:
            mask = x >= lo
        else:
            mask = (x >= lo) & (x <= hi)
        return (where(mask, g, 0.0),)


class ClampMinBackward0(ClampBackward1):
    __slots__ = ()
    explain = "1 where {a} is above the bound, else 0"


class ClampMaxBackward0(ClampBackward1):
    __slots__ = ()
    explain = "1 where {a} is below the bound, else 0"


class ClampBackward0(Function):
    """clamp with tensor bounds: edges (self, min, max), a missing bound is (None, 0)."""
    __slots__ = ()
    explain = ("1 where {a} is inside the bounds, else 0", "1 where the lower bound is taken, else 0",
               "1 where the upper bound is taken, else 0")
    save_inputs = True

    @staticmethod
    def forward(x, lo, hi):
        return _clamp_forward(x, lo, hi)

    def backward(self, g):
        x, lo, hi = self.saved
        glo = ghi = None
        if lo is not None and hi is not None:
            gx = where((x >= lo) & (x <= hi), g, 0.0)
            if needs_input_grad(self, 1):
                glo = shaped(where((x < lo) & (lo < hi), g, 0.0), lo)
            if needs_input_grad(self, 2):
                ghi = shaped(where((x > hi) | (hi < lo), g, 0.0), hi)
        elif lo is not None:
            mask = x >= lo
            gx = where(mask, g, 0.0)
            if needs_input_grad(self, 1):
                glo = shaped(where(mask, 0.0, g), lo)
        else:
            mask = x <= hi
            gx = where(mask, g, 0.0)
            if needs_input_grad(self, 2):
                ghi = shaped(where(mask, 0.0, g), hi)
        return (shaped(gx, x), glo, ghi)


class ClampMinBackward1(Function):
    """clamp_min(x, tensor)."""
    __slots__ = ()
    explain = ("1 where {a} >= {b}, else 0", "1 where {b} > {a}, else 0")
    save_inputs = True

    @staticmethod
    def forward(x, lo):
        return np.maximum(x, lo)

    def backward(self, g):
        x, lo = self.saved
        mask = x >= lo
        return (shaped(where(mask, g, 0.0), x),
                shaped(where(mask, 0.0, g), lo) if needs_input_grad(self, 1) else None)


class ClampMaxBackward1(Function):
    """clamp_max(x, tensor)."""
    __slots__ = ()
    explain = ("1 where {a} <= {b}, else 0", "1 where {b} < {a}, else 0")
    save_inputs = True

    @staticmethod
    def forward(x, hi):
        return np.minimum(x, hi)

    def backward(self, g):
        x, hi = self.saved
        mask = x <= hi
        return (shaped(where(mask, g, 0.0), x),
                shaped(where(mask, 0.0, g), hi) if needs_input_grad(self, 1) else None)


def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise errors.runtime("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        min = _as_bound(min, input)
        max = _as_bound(max, input)
        dt = dtypes.result_type([t for t in (input, min, max) if t is not None])
        if dt is dtypes.bool_ and min is not None and max is not None:
            raise kernel_error("clamp_cpu", dt)  # one bound alone goes through clamp_min/max, which take Bool
        data = input._data.astype(dt.np, copy=False)
        lo = min._data if min is not None else None
        hi = max._data if max is not None else None
        try:
            r = _clamp_forward(data, lo, hi)
        except ValueError:
            raise broadcast_error(input, min if min is not None else max) from None
        out = wrap(_asarray(r).astype(dt.np, copy=False), dt)
        return record(ClampBackward0, (input, min, max), out)
    dt = dtypes.result_type([t for t in (input, min, max) if t is not None])
    _check_scalar_clamp(dt, min, max)
    data = input._data.astype(dt.np, copy=False)
    out = wrap(_asarray(_clamp_forward(data, min, max)).astype(dt.np, copy=False), dt)
    return record(ClampBackward1, (input,), out, {"bounds": (min, max)})


def _check_scalar_clamp(dt, lo, hi):
    """ATen's clamp kernels with number bounds take every type but Bool (the result type: bool bounds
    of a bool tensor); the kernel's name says which bounds were given."""
    if dt is dtypes.bool_:
        which = "clamp" if lo is not None and hi is not None else "clamp_min" if lo is not None else "clamp_max"
        raise kernel_error(f"{which}_scalar_cpu", dt)


def _as_bound(b, like):
    if b is None or isinstance(b, Tensor):
        return b
    return _scalar_tensor(b, like)


clip = clamp


def clamp_min(input, min):
    if isinstance(min, Tensor):
        return binary(ClampMinBackward1, input, min)
    dt = dtypes.result_type((input, min))
    _check_scalar_clamp(dt, min, None)
    data = input._data.astype(dt.np, copy=False)
    out = wrap(_asarray(_clamp_forward(data, min, None)).astype(dt.np, copy=False), dt)
    return record(ClampMinBackward0, (input,), out, {"bounds": (min, None)})


def clamp_max(input, max):
    if isinstance(max, Tensor):
        return binary(ClampMaxBackward1, input, max)
    dt = dtypes.result_type((input, max))
    _check_scalar_clamp(dt, None, max)
    data = input._data.astype(dt.np, copy=False)
    out = wrap(_asarray(_clamp_forward(data, None, max)).astype(dt.np, copy=False), dt)
    return record(ClampMaxBackward0, (input,), out, {"bounds": (None, max)})


# ---------------------------------------------------------------------------- comparison and logic

def _compare(ufunc, a, b):
    b = coerce(b)
    if b is NotImplemented:
        return NotImplemented
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        _check_devices(a, b)
    dt = dtypes.result_type((a, b))
    x, y = binary_operands(a, b, dt)
    if type(x) is not type(y):
        x, y = _on_one_device(x, y)
    _check_size(x, y)
    try:
        r = ufunc(x, y)
    except ValueError:
        raise broadcast_error(a, b) from None
    return wrap(r, dtypes.bool_)


def eq(input, other):
    return _compare(np.equal, input, other)


def ne(input, other):
    return _compare(np.not_equal, input, other)


def lt(input, other):
    return _compare(np.less, input, other)


def le(input, other):
    return _compare(np.less_equal, input, other)


def gt(input, other):
    return _compare(np.greater, input, other)


def ge(input, other):
    return _compare(np.greater_equal, input, other)


less, less_equal, greater, greater_equal, not_equal = lt, le, gt, ge, ne


def _bitwise(ufunc, a, b, name):
    b = coerce(b)
    if b is NotImplemented:
        return NotImplemented
    dt = dtypes.result_type((a, b))
    if dt.is_floating_point:
        try:  # TensorIterator's broadcast comes before the kernel's dtype error
            np.broadcast_shapes(np.shape(getattr(a, "_data", a)), np.shape(getattr(b, "_data", b)))
        except ValueError:
            raise broadcast_error(a, b) from None
        raise kernel_error(f"{name}_cpu", dt)
    x, y = binary_operands(a, b, dt)
    _check_size(x, y)
    try:
        r = ufunc(x, y)
    except ValueError:
        raise broadcast_error(a, b) from None
    return wrap(_asarray(r).astype(dt.np, copy=False), dt)


def c10_name(dt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}[dt.name]




def bitwise_and(input, other):
    return _bitwise(np.bitwise_and, input, other, "bitwise_and")


def bitwise_or(input, other):
    return _bitwise(np.bitwise_or, input, other, "bitwise_or")


def bitwise_xor(input, other):
    return _bitwise(np.bitwise_xor, input, other, "bitwise_xor")


def _shift(a, b, name, left):
    """torch's << and >> on integer tensors: a count outside [0, bits) gives 0 (<<) or the sign (>>)."""
    b = coerce(b)
    if b is NotImplemented:
        return NotImplemented
    dt = dtypes.result_type((a, b))
    if dt.is_floating_point or dt is dtypes.bool_:
        raise kernel_error(name, dt)
    x, y = binary_operands(a, b, dt)
    try:
        np.broadcast_shapes(np.shape(x), np.shape(y))
    except ValueError:
        raise broadcast_error(a, b) from None
    _check_size(x, y)
    out_of_range = (y < 0) | (y >= dt.np.itemsize * 8)
    count = np.where(out_of_range, 0, y).astype(dt.np, copy=False)
    if left:
        r = np.where(out_of_range, 0, np.left_shift(x, count))
    else:
        r = np.where(out_of_range, np.where(x < 0, -1, 0), np.right_shift(x, count))
    return wrap(_asarray(r).astype(dt.np, copy=False), dt)


def bitwise_left_shift(input, other):
    return _shift(input, other, "lshift_cpu", True)


def bitwise_right_shift(input, other):
    return _shift(input, other, "rshift_cpu", False)


def bitwise_not(input):
    if input.dtype.is_floating_point:
        raise kernel_error("bitwise_not_cpu", input.dtype)
    return wrap(_asarray(np.invert(input._data)), input.dtype)


def logical_not(input):
    return wrap(_asarray(np.logical_not(input._data)), dtypes.bool_)


def logical_and(input, other):
    return _compare(np.logical_and, input, other)


def logical_or(input, other):
    return _compare(np.logical_or, input, other)


def logical_xor(input, other):
    return _compare(np.logical_xor, input, other)


def isnan(input):
    return wrap(_asarray(np.isnan(input._data)), dtypes.bool_)


def isinf(input):
    return wrap(_asarray(np.isinf(input._data)), dtypes.bool_)


def isfinite(input):
    return wrap(_asarray(np.isfinite(input._data)), dtypes.bool_)


def equal(input, other):
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return wrap(_asarray(np.isclose(input._data, coerce(other)._data if isinstance(other, Tensor) else other,
                                      rtol=rtol, atol=atol, equal_nan=equal_nan)), dtypes.bool_)


# the aten *_backward functions of tanh, sigmoid and relu's formulas (ops of their own, which use this module)
from . import backward_ops as B  # noqa: E402


# ---------------------------------------------------------------------------- declarations

_BOOL = "a bool or integer result"
_ip = {"inplace": True}
_tip = {"inplace": True, "torch_inplace": True}
# One declaration per op (registry.py): its names, in-place forms, nodes and gradient-check sample. The
# in-place wrappers are inplace.py's (methods.py derives the tables: inplace.py imports this module).
OPS = [
    op("add", add, AddBackward0, AddBackward1, sample=sample2(alpha=2), operator="+", reflected=True, **_ip),
    op("sub", sub, SubBackward0, aliases=("subtract",), sample=sample2(alpha=0.5), operator="-", reflected=rsub, **_ip),
    op("mul", mul, MulBackward0, MulBackward1, aliases=("multiply",), sample=sample2(), operator="*", reflected=True,
       **_ip),
    op("div", div, DivBackward0, DivBackward1, DivBackward2, aliases=("divide", "true_divide"),
       sample=sample2("any", "pos"), operator="/", reflected=lambda x, y: mul(reciprocal(x), y), **_ip),
    op("neg", neg, NegBackward0, sample=sample1(), operator="-x", **_tip),
    op("negative", neg, NegBackward0, sample=sample1()),
    op("pow", pow, PowBackward0, PowBackward1, PowBackward2, sample=sample2("pos", "any"), operator="**", **_ip,
       cases={"pow_tensor": case(lambda torch, x0, x1: torch.pow(x0, x1), V.P, V.B)}),
    op("square", square, PowBackward0, sample=sample1(), **_tip),
    op("floor_divide", floor_divide, no_grad="torch records NotImplemented (no derivative for floor_divide)", operator="//",
       **_ip),
    op("remainder", remainder, RemainderBackward0, RemainderBackward1, sample=sample2("any", "pos"), operator="%",
       **_ip),
    op("exp", exp, ExpBackward0, sample=sample1(), **_tip),
    op("log", log, LogBackward0, sample=sample1("pos"), **_tip),
    op("log2", log2, Log2Backward0, sample=sample1("pos"), **_tip),
    op("log10", log10, Log10Backward0, sample=sample1("pos"), **_tip),
    op("sqrt", sqrt, SqrtBackward0, sample=sample1("pos"), **_tip),
    op("rsqrt", rsqrt, RsqrtBackward0, sample=sample1("pos"), **_tip),
    op("sin", sin, SinBackward0, sample=sample1(), **_tip),
    op("cos", cos, CosBackward0, sample=sample1(), **_tip),
    op("tan", tan, TanBackward0, sample=sample1("unit"), **_tip),
    op("tanh", tanh, TanhBackward0, sample=sample1(), **_tip),
    op("sigmoid", sigmoid, SigmoidBackward0, sample=sample1(), **_tip),
    op("relu", relu, ReluBackward0, sample=sample1(), **_tip),
    op("abs", abs, AbsBackward0, sample=sample1(), operator="abs", **_tip),
    op("absolute", abs, AbsBackward0, sample=sample1()),
    op("reciprocal", reciprocal, ReciprocalBackward0, sample=sample1("pos"), **_tip),
    op("sign", sign, SignBackward0, sample=sample1(), **_ip),
    op("floor", floor, FloorBackward0, sample=sample1(), **_tip),
    op("ceil", ceil, CeilBackward0, sample=sample1(), **_tip),
    op("trunc", trunc, TruncBackward0, sample=sample1(), **_tip),
    op("clamp", clamp, ClampBackward0, ClampBackward1, sample=sample1("any", -1.0, 1.0), **_tip,
       cases={"clamp_tensor": case(lambda torch, x0, x1, x2: torch.clamp(x0, x1, x2), V.A, [0.0] * 5, [0.5] * 5)}),
    op("clip", clamp, ClampBackward0, ClampBackward1, sample=sample2(call=lambda torch, x, y: torch.clip(x, min=y)),
       **_tip),
    op("clamp_min", clamp_min, ClampMinBackward0, ClampMinBackward1, sample=sample2(), **_tip),
    op("clamp_max", clamp_max, ClampMaxBackward0, ClampMaxBackward1, sample=sample1("any", 0.5), **_tip),
    op("maximum", maximum, MaximumBackward0, sample=sample2()),
    op("minimum", minimum, MinimumBackward0, sample=sample2()),
    # x.where(cond, y), and torch.where(cond, x, y): two functions of one name (the condition comes first in torch's)
    op("where", lambda self, cond, other: where(cond, self, other), WhereBackward0, torch=False,
       sample=sample2(call=lambda torch, x, y: x.where(x > y, y))),
    op("where", where, WhereBackward0, method=False, key="torch.where",
       sample=sample2(call=lambda torch, x, y: torch.where(x > y, x, y)),
       cases={"where_scalar": case(lambda torch, x: torch.where(x > 0, x, 0.5), V.M23)}),
    op("rsub", rsub, RsubBackward0, RsubBackward1, method=False, sample=sample2(alpha=2)),  # torch.rsub: y - alpha * x
    # x.eq_(y) ...: x gets 0/1 in its own dtype (special.py's wrappers: registry.INPLACE_KINDS)
    op("eq", eq, no_grad=_BOOL, inplace="compare", operator="=="),
    op("ne", ne, aliases=("not_equal",), no_grad=_BOOL, inplace="compare", operator="!="),
    op("lt", lt, aliases=("less",), no_grad=_BOOL, inplace="compare", operator="<"),
    op("le", le, aliases=("less_equal",), no_grad=_BOOL, inplace="compare", operator="<="),
    op("gt", gt, aliases=("greater",), no_grad=_BOOL, inplace="compare", operator=">"),
    op("ge", ge, aliases=("greater_equal",), no_grad=_BOOL, inplace="compare", operator=">="),
    op("logical_not", logical_not, no_grad=_BOOL, inplace="logical"),
    op("logical_and", logical_and, no_grad=_BOOL, inplace="logical"),
    op("logical_or", logical_or, no_grad=_BOOL, inplace="logical"),
    op("logical_xor", logical_xor, no_grad=_BOOL, inplace="logical"),
    # x.bitwise_and_(y)...: TensorIterator's output checks first (inplace.py's wrapper), then the kernel
    op("bitwise_not", bitwise_not, no_grad=_BOOL, operator="~", **_ip),
    op("bitwise_and", bitwise_and, no_grad=_BOOL, operator="&", reflected=True, **_ip),
    op("bitwise_or", bitwise_or, no_grad=_BOOL, operator="|", reflected=True, **_ip),
    op("bitwise_xor", bitwise_xor, no_grad=_BOOL, operator="^", reflected=True, **_ip),
    op("bitwise_left_shift", bitwise_left_shift, no_grad=_BOOL, operator="<<", **_ip),
    op("bitwise_right_shift", bitwise_right_shift, no_grad=_BOOL, operator=">>", **_ip),
    op("isnan", isnan, no_grad=_BOOL), op("isinf", isinf, no_grad=_BOOL), op("isfinite", isfinite, no_grad=_BOOL),
    op("equal", equal, no_grad=_BOOL), op("allclose", allclose, no_grad=_BOOL), op("isclose", isclose, no_grad=_BOOL),
]
