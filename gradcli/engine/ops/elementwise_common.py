"""What the elementwise families share (arithmetic.py, unary_math.py, clamp_where.py, comparison.py, and
the elementwise ops of the other families): the operands of a binary op (Python numbers kept weak,
torch's integer wrapping), the device and broadcast checks, `binary`, `unary` and `scalar_op`, which
compute an op and record its node, the 0-d fast path of the Python operators (`scalar_operator`),
torch's kernel errors, the backward helpers (`shaped`, `needs_input_grad`, `zero_grad`) and the Scalar
overloads that backward formulas record (`mul_scalar` & co.). It imports no family, so each family
imports it and the families import each other without a cycle (arithmetic uses unary_math's log and
reciprocal and clamp_where's where; unary_math's backwards use backward_ops, imported at its end)."""
from __future__ import annotations

import sys

import numpy as np

from .. import dtypes, errors
from ..autograd import ZERO_NRS, NotImplementedNode, forward_level, node_observer, SavedValue, sequence_numbers, site_hook, make_node
from ..autograd_modes import NO_VERSION, grad_mode
from ..device import asarray as _asarray
from ..device import check_same, is_device_array
from ..function import Function, all_inference, record, record2
from ..limits import LIMITS as _LIMITS
from ..limits import check_broadcast
from ..tensor import Tensor, check_view_grad_fn, wrap
from .shape import sum_to

# ---------------------------------------------------------------------------- operands, devices, broadcast


def check_devices(a, b):
    """TensorIterator's rule: a CPU 0-d tensor may join a cuda one (as a scalar); any other mix of
    devices is PyTorch's error, naming the cuda device first."""
    if type(a._data) is not type(b._data) and a.device != b.device:
        check_same((a, b))


def on_one_device(x, y):
    """Operands of a CPU 0-d tensor and a cuda tensor: the CPU value goes as a NumPy scalar."""
    if type(x) is np.ndarray and x.ndim == 0 and is_device_array(y):
        return x[()], y
    if type(y) is np.ndarray and y.ndim == 0 and is_device_array(x):
        return x, y[()]
    return x, y


def broadcast_error(a, b, *more):
    """The error of operands that do not broadcast; three or more (addcmul's self, tensor1, tensor2) are
    folded in order, as TensorIterator does. None and Python numbers take no part."""
    if more:
        shapes = [tuple(t.shape) for t in (a, b, *more) if hasattr(t, "shape")]
        return errors.runtime(errors.broadcast_fold_mismatch(shapes), hint="broadcast")
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
    """A Python int as torch converts it to an integer dtype: wrapped modulo 2**bits (-3 -> 253 for uint8; a
    Scalar of 2**63 or more is a uint64, 2**63 an int64 of -2**63)."""
    bits = dt.itemsize * 8
    if bits == 64:
        return v if -(1 << 63) <= v < (1 << 63) else dtypes.scalar_int(v) - (1 << 64)
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


def operand(other):
    """coerce for an op's argument (x.add(obj), torch.eq(x, 'a')): one that is no Tensor or number is a
    TypeError that the binding tells as torch's parser does under its own name (argcheck.operand_error);
    the operators (x + obj) coerce first and return NotImplemented, as Python wants."""
    c = other.__class__
    if c is float or c is int or c is Tensor:
        return other
    r = coerce(other)
    if r is NotImplemented:
        from ..argcheck import not_operand  # noqa: PLC0415 - only for the error
        raise not_operand(other)
    return r


_FLOAT, _INT = dtypes.FLOAT, dtypes.INT


_SCALARS = {}


def _scalar_array(v, dt):
    """A Python number as a 0-d array of dt, converted as torch converts it (integers wrapped to the
    dtype's width). Cached: NumPy computes an array with a 0-d array of its own dtype much faster
    than with a Python number, with the same result."""
    key = (v, dt)
    r = _SCALARS.get(key)
    if r is None:
        w = cast_int(v, dt) if dt.category == _INT else dtypes.scalar_int(v) if v.__class__ is int else v
        if v == 0 or v != v:  # keep -0.0 and nan out of the cache (0.0 == -0.0, nan != nan)
            return np.asarray(w, dt.np)
        if len(_SCALARS) > 512:
            _SCALARS.clear()
        r = _SCALARS[key] = np.asarray(w, dt.np)
        r.flags.writeable = False
    return r


def check_size(x, y):
    """--max-elements for the broadcast result of x and y, before computing it."""
    xs, ys = getattr(x, "shape", ()), getattr(y, "shape", ())
    if xs != ys and xs and ys:
        check_broadcast(xs, ys)


# ---------------------------------------------------------------------------- computing and recording

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
                    y = cast_int(b, ad) if cat == _INT else dtypes.scalar_int(b) if bc is int else b
                dt = ad
        elif bc is Tensor and b.dtype is ad:
            x, y = a._data, b._data
            if type(x) is not type(y):
                check_devices(a, b)
                x, y = on_one_device(x, y)
            dt = ad
        if dt is not None and compute_dtype is not None and compute_dtype(dt) is not dt:
            dt = None
    if dt is None:
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            check_devices(a, b)
            dt = a.dtype if a.dtype is b.dtype else dtypes.result_type((a, b))
        else:
            dt = dtypes.result_type((a, b))
        if compute_dtype is not None:
            dt = compute_dtype(dt)
        x, y = binary_operands(a, b, dt)
        if type(x) is not type(y):
            x, y = on_one_device(x, y)
    if _LIMITS["max_elements"] is not None:
        check_size(x, y)
    try:
        r = cls.forward(x, y, **kw) if kw else cls.forward(x, y)
    except ValueError:
        raise broadcast_error(a, b) from None
    if dt is dtypes.float16 and cls.half_scalar is not None and isinstance(r, (np.ndarray, np.generic)):
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
    if (not grad_mode.enabled and forward_level[0] is None) or (out_dtype is not None and not out_dtype.is_floating_point):
        if grad_mode.inference:  # (grad mode is off there): an inference tensor, wrap's rule
            out._version = NO_VERSION
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
        v = np.asarray(cls.half_scalar(np.asarray(x, np.float32), bf)).astype(np.float16)
    return np.array(np.broadcast_to(v, np.shape(r))) if v.shape != np.shape(r) else v


# 0-d float32/float64 CPU tensors with a number or a 0-d tensor of the same dtype: the arithmetic of
# the scalar chains (`y * 1.01 + b`), computed on Python floats. A 0-d NumPy operation costs about a
# microsecond (it goes through the scalar machinery and comes back as a NumPy scalar); the Python
# operation is exact for float64 and, for float32, bit-identical to NumPy's: the operands are float32
# values, and rounding their double-precision sum, difference, product or quotient to float32 gives the
# correctly rounded float32 result (double has at least 2 * 24 + 2 bits: no double-rounding error).
# dtype -> (its NumPy dtype for the results, number -> the number as an operand of the dtype, a Python float).
# The result is np.array(v, dtype): a new 0-d array rounded from the double as `r[()] = v` rounds it, in
# fewer instructions than a copy of a 0-d array and an item assignment (~450 fewer an op, callgrind).
_PROTO0 = {dtypes.float32: (np.dtype(np.float32), {}), dtypes.float64: (np.dtype(np.float64), {})}
_array = np.array


def _float0(v, dt, cache):
    """float(_scalar_array(v, dt)), kept in cache (a dict per dtype, keyed by the number alone: no key
    tuple to build and hash) under _scalar_array's rules: no zeros (0.0 == -0.0), no nan."""
    r = float(_scalar_array(v, dt))
    if v != 0 and v == v:
        if len(cache) > 512:
            cache.clear()
        cache[v] = r
    return r


def number_operand(v, dt):
    """A Python number as the 0-d operator below computes with it for dt (float32 or float64): a Python
    float of dt's value (scalar_chain.py's products use it, to give the operator's bits)."""
    floats = _PROTO0[dt][1]
    y = floats.get(v)
    return _float0(v, dt, floats) if y is None else y


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
    # [number, dtype, the number as an operand of the dtype] of the last call with a number: a chain
    # multiplies by one constant object again and again, and `is` costs less than hashing the float
    # for floats.get (the same object is the same value: no 0.0 / -0.0 or nan question)
    last = [None, None, None]

    def operator(a, b):
        x = a._data
        if x.__class__ is np.ndarray and not x.ndim:
            ad = a.dtype
            npd = _PROTO0.get(ad)
            bc = b.__class__
            if npd is None:
                y = None
            elif bc is float or bc is int:
                if b is last[0] and ad is last[1]:  # the same number object as the last call's (a chain's constant)
                    npd = npd[0]
                    y = last[2]
                else:
                    npd, floats = npd
                    y = floats.get(b)
                    if y is None:
                        y = _float0(b, ad, floats)
                    last[0] = b
                    last[1] = ad
                    last[2] = y
            elif bc is Tensor and b.dtype is ad and b._data.__class__ is np.ndarray and not b._data.ndim:
                npd = npd[0]
                y = float(b._data)
            else:
                y = None
            if y is not None:
                try:
                    v = op(float(x), y)
                except ZeroDivisionError:  # x / 0: NumPy's inf or nan, from the slow path
                    return slow(a, b)
                out = _new(Tensor)  # wrap(), inlined
                out._data = _array(v, npd)
                out.dtype = ad
                out._rg = False
                out.grad_fn = None
                out._version = [0]
                out._base = None
                if not grad_mode.enabled:
                    if grad_mode.inference:  # an inference tensor, wrap's rule
                        out._version = NO_VERSION
                    if forward_level[0] is not None:  # a forward-AD level: record2 gives the tangent
                        return record2(cls, a, b, out, kw_tensor if bc is Tensor else kw_number)
                    return out
                if bc is Tensor:
                    return record2(cls, a, b, out, kw_tensor)
                if not a._rg:
                    if forward_level[0] is not None:
                        return record2(cls, a, b, out, kw_number)
                    return out
                # record2(cls, a, b, out, kw_number), inlined: b is a number (no edge, saved as itself)
                node = _new(cls)
                fn = a.grad_fn
                if fn is not None:
                    if a._creation is not None:
                        check_view_grad_fn(a)
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
    if (not grad_mode.enabled or not x._rg) and forward_level[0] is None:
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


# ---------------------------------------------------------------------------- errors, backward helpers

def kernel_error(kernel, dt):
    """torch's error for a dtype a kernel does not support: NotImplementedError "kernel" not implemented for 'Bool'."""
    e = NotImplementedError(f'"{kernel}" not implemented for \'{c10_name(dt)}\'')
    e.gradcli_hint = None
    return e


def bool_kernel_error(kernel, a, b):
    """kernel_error for Bool, after TensorIterator's broadcast check (torch reports a shape mismatch first)."""
    try:
        np.broadcast_shapes(tuple(getattr(a, "shape", ())), tuple(getattr(b, "shape", ())))
    except ValueError:
        return broadcast_error(a, b)
    return kernel_error(kernel, dtypes.bool_)


def c10_name(dt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}[dt.name]


def scalar_tensor(value, like):
    from ..factory import tensor  # noqa: PLC0415
    return tensor(value, device=like.device if isinstance(like, Tensor) else None)


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


def zero_grad(g):
    """zeros_like(grad): the derivative of a piecewise-constant op (floor, sign, rounding division,
    ...) as torch computes it: no graph, and no NaN or -0. from the incoming gradient."""
    from ..factory import zeros_like  # noqa: PLC0415
    return zeros_like(g)


def not_implemented(out, inputs, opname):
    """Attach torch's NotImplemented node (an op without a derivative) when an input requires grad."""
    if forward_level[0] is not None:
        from ..forward_ad import carries_tangent, unsupported  # noqa: PLC0415 - only inside a forward-AD level
        if carries_tangent(inputs):
            raise unsupported(opname)
    tensors = [t for t in inputs if isinstance(t, Tensor) and t._rg]  # only those requiring grad
    if grad_mode.enabled and tensors and not all_inference(inputs):  # (inference tensors alone: no Autograd key)
        node = make_node(NotImplementedNode, tensors, out.dtype)
        node._opname = opname
        out._rg = True
        out.grad_fn = node
    return out


# ---------------------------------------------------------------------------- Scalar overloads

# A C++ formula that multiplies or divides by a Scalar (`grad / numel` in mean's backward, `x * 0.9` inside
# ATen) records the Scalar overloads, MulBackward1 and DivBackward1; a Python number in a script is a
# wrapped tensor in torch, recorded as MulBackward0 and DivBackward0 (arithmetic.py, through binary() above).
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


def _half_opmath(data, s):
    """A float16 array and a Python number as ATen's Half kernels take them: both in float (opmath), so
    that the number is rounded to float, not to half as NumPy would."""
    if data.dtype == np.float16 and isinstance(s, float):
        return data.astype(np.float32), np.float32(s)
    return data, s


def add_scalar(t, s):
    d, v = _half_opmath(t._data, s)
    return record(AddBackward1, (t,), wrap(_asarray(d + v, t.dtype.np), t.dtype), {"other": s})


def mul_scalar(t, s):
    d, v = _half_opmath(t._data, s)
    return record(MulBackward1, (t,), wrap(_asarray(d * v, t.dtype.np), t.dtype), {"other": s})


def div_scalar(t, s):
    d, v = _half_opmath(t._data, s)
    return record(DivBackward1, (t,), wrap(_asarray(d / v, t.dtype.np), t.dtype), {"other": s})
