"""ATen's CPU pow kernels for float32/float64, bit for bit: which element goes through SLEEF and which
through the C library is decided by TensorIterator's loop shape.

``pow_tensor_tensor_kernel`` and ``pow_tensor_scalar_kernel`` (aten/src/ATen/native/cpu/PowKernel.cpp) run
``cpu_kernel_vec``: each call of the 2-d loop over an inner run of n elements whose operands are all
contiguous (or contiguous but for one stride-0 input) computes the first ``n // (2*V) * 2*V`` elements with
``Vectorized<T>::pow`` (SLEEF's ``powf``/``pow`` u10 on AVX2/AVX512, V = 8/16 floats or 4/8 doubles; the
DEFAULT build maps ``std::pow`` over the vector) and the rest with the scalar lambda; a non-contiguous
inner run is all scalar (``basic_loop``). The runs come from TensorIterator's geometry (dims sorted by
stride, coalesced) and, above 32768 elements, from at::parallel_for's split between the threads
(``numerics.NUM_THREADS``). The scalar lambdas: ``std::pow(float, float)`` is glibc's ``powf`` (not
correctly rounded), ``std::pow(float, double)`` (a Python-number exponent) is glibc's double ``pow``
rounded to float, ``std::pow(double, double)`` is glibc's ``pow``; Python's ``math.pow`` is that same C
function. NumPy's own float64 power (SIMD, not glibc) serves as a first guess where it provably rounds
the same way, so the C library is called only near float32 rounding boundaries.
"""
from __future__ import annotations

import math

import numpy as np

from . import device, numerics, sleef, tensoriter
from .rng_math import capability, libm_f32

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


# ---------------------------------------------------------------------------- which elements are vectorised

def _vec_bytes():
    return 64 if capability() == "avx512" else 32


def vector_plan(shape, in_strides, itemsize, out_strides=None, grain=None):
    """(perm, vec): the iteration order (fastest dim first) and a bool array over the elements in that
    order, True where Vectorized<T>::pow computes the element. ``in_strides``: the inputs' element
    strides broadcast to ``shape`` (0 on broadcast dims); ``out_strides``: a given output's element
    strides (None: a new output, laid out in the iteration order as TensorIterator allocates it);
    ``grain``: the kernel's parallel grain size (None: at::internal::GRAIN_SIZE)."""
    nd = len(shape)
    ops = ([(list(out_strides), True)] if out_strides is not None else []) + [(list(s), False) for s in in_strides]
    perm = tensoriter.iter_permutation(list(shape), ops) if nd > 1 else list(range(nd))
    numel = int(np.prod(shape, dtype=np.int64))
    vec = np.zeros(numel, bool)
    if numel == 0:
        return perm, vec
    psh = [shape[p] for p in perm]
    if out_strides is None:
        ost, acc = [], 1
        for s in psh:
            ost.append(acc)
            acc *= s
    else:
        ost = [out_strides[p] for p in perm]
    sh, strides = tensoriter.coalesce_dims(psh, [ost] + [[s[p] for p in perm] for s in in_strides])
    if not sh:
        sh, strides = [1], [[0] for _ in strides]
    inner = [st[0] for st in strides]
    zeros = [i for i, s in enumerate(inner) if s == 0]
    contiguous = all(s == 1 for s in inner) or (
        len(zeros) == 1 and zeros[0] > 0 and all(s == 1 for i, s in enumerate(inner) if i != zeros[0]))
    if not contiguous:
        return perm, vec
    block = 2 * _vec_bytes() // itemsize
    sh2 = sh + [1] if len(sh) == 1 else sh
    s0 = sh2[0]
    blk = s0 * sh2[1]
    for b, e in numerics.omp_ranges(0, numel, numerics.GRAIN_SIZE if grain is None else grain):
        for outer, cnt, v1, n1, v0, n0 in tensoriter.loop_calls(sh2, b, e):
            k = n0 // block * block       # each loop call: n1 runs of n0 elements (cnt whole blocks)
            if k == 0:
                continue
            start = outer * blk + v1 * s0 + v0
            if cnt > 1 or n1 > 1:         # whole rows (v0 == 0, n0 == s0)
                vec[start:start + (cnt - 1) * blk + n1 * s0].reshape(-1, s0)[:, :k] = True
            else:
                vec[start:start + k] = True
    return perm, vec


def vector_mask(x, y):
    """A bool array of the broadcast shape of NumPy arrays x and y, True where cpu_kernel_vec's
    vectorised body computes the element of a new output (``vector_plan``), False where its scalar
    lambda does."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    x, y = np.asarray(x), np.asarray(y)
    perm, vec = vector_plan(shape, [_estrides(x, shape), _estrides(y, shape)], np.result_type(x, y).itemsize)
    return _from_order(vec, shape, perm)


def _in_order(a, shape, perm):
    """a broadcast to shape, its elements in iteration order (a flat copy)."""
    b = np.broadcast_to(a, shape)
    return np.ascontiguousarray(b.transpose(perm[::-1])).reshape(-1)


def _from_order(flat, shape, perm):
    """The result laid out as torch allocates it (contiguous in iteration order), viewed in shape."""
    inv = np.argsort(perm[::-1])
    return flat.reshape([shape[p] for p in perm[::-1]]).transpose(inv)


def _estrides(a, shape):
    b = np.broadcast_to(a, shape)
    return [st // b.itemsize if n > 1 else 0 for st, n in zip(b.strides, b.shape)]


# ---------------------------------------------------------------------------- the C library's pow

_LIBM = []


def _c_powf():
    if not _LIBM:
        try:
            import ctypes  # noqa: PLC0415
            f = ctypes.CDLL("libm.so.6").powf
            f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
            _LIBM.append(np.frompyfunc(f, 2, 1))
        except (OSError, AttributeError):
            _LIBM.append(None)
    return _LIBM[0]


def _pow1(a, b):
    try:
        return math.pow(a, b)
    except OverflowError:   # glibc returns a signed infinity
        return -math.inf if a < 0 and b == int(b) and int(b) % 2 else math.inf
    except ValueError:      # a negative base to a non-integer power, or 0 to a negative power
        if a == 0:
            return math.copysign(math.inf, a) if b == int(b) and int(b) % 2 else math.inf
        return -math.nan    # glibc's (x - x) / (x - x): the x86 default NaN, sign bit set


_POW = np.frompyfunc(_pow1, 2, 1)


def pow64(x, y):
    """glibc's double pow, element by element (Python's math.pow calls it)."""
    x, y = np.broadcast_arrays(np.asarray(x, _F64), np.asarray(y, _F64))
    if x.size == 0:
        return np.empty(x.shape, _F64)
    return np.asarray(_POW(x, y), _F64).reshape(x.shape)


def _near_boundary(ref, tol):
    """True where the float32 rounding of a value within relative ``tol`` of ``ref`` may differ from
    ``ref``'s own (or where ref is not a normal float32 result)."""
    with np.errstate(all="ignore"):
        r = ref.astype(_F32)
        up = np.nextafter(r, np.float32(np.inf)).astype(_F64)
        dn = np.nextafter(r, np.float32(-np.inf)).astype(_F64)
        r64 = r.astype(_F64)
        margin = np.minimum(np.abs(ref - (r64 + dn) / 2), np.abs((r64 + up) / 2 - ref))
        bad = ~np.isfinite(margin) | (np.abs(r) < np.finfo(np.float32).tiny) | ~np.isfinite(r)
        return bad | (margin <= tol * np.abs(ref))


def pow32_double(x, p):
    """float32 x to a double exponent: ``(float)pow((double)x, p)``, glibc's pow rounded to float."""
    x64 = np.asarray(x, _F32).astype(_F64)
    with np.errstate(all="ignore"):
        ref = np.power(x64, p)
    out = ref.astype(_F32)
    hard = _near_boundary(ref, 2.0 ** -44)
    if hard.any():
        out[hard] = pow64(x64[hard], np.broadcast_to(p, ref.shape)[hard]).astype(_F32)
    return out


def powf(x, y):
    """glibc's powf over float32 arrays (one shape). Its double-precision core is within
    (|y*log2 x| * ln2 * 1.83 * 2**-33 + 1.69 * 2**-34) of the exact value (glibc's e_powf.c), so where
    the exact value (NumPy's double power) lies farther than four times that from a float32 rounding
    boundary, powf returns its correctly rounded value; elsewhere the C function is called."""
    x = np.asarray(x, _F32)
    y = np.asarray(y, _F32)
    f = _c_powf()
    x64, y64 = x.astype(_F64), y.astype(_F64)
    with np.errstate(all="ignore"):
        ref = np.power(x64, y64)
        if f is None:
            return ref.astype(_F32)
        tol = 4 * (np.abs(y64 * np.log2(np.abs(x64))) * (math.log(2) * 1.83 * 2.0 ** -33) + 1.69 * 2.0 ** -34) \
            + 2.0 ** -44
        hard = _near_boundary(ref, tol) | ~np.isfinite(x64) | ~np.isfinite(y64) | (x64 <= 0) | (y64 == 0)
    out = ref.astype(_F32)
    if hard.any():
        out[hard] = np.asarray(f(x64[hard], y64[hard]), _F64).astype(_F32)
    return out


# ---------------------------------------------------------------------------- the kernels

def _vector_pow(x, y, dt):
    """Vectorized<T>::pow of flat arrays under the current capability."""
    cap = capability()
    if cap == "default":        # the generic Vectorized maps std::pow(T, T) over the lanes
        return powf(x, y) if dt == _F32 else pow64(x, y)
    if dt == _F32:
        return sleef.powf(x, y, cap == "avx512")
    return sleef.powd(x, y, cap == "avx512")


def _supported(*arrays):
    return all(type(a) is np.ndarray and a.dtype in (_F32, _F64) for a in arrays)


def pow_tensor_tensor(x, y, contiguous_out=False):
    """torch.pow(x, y) of two float32 or float64 NumPy arrays of one dtype (broadcast), as ATen computes
    it; ``contiguous_out``: the output is a new contiguous tensor (torch.pow(number, tensor) allocates it
    so before the tensor-tensor kernel runs)."""
    if not _supported(x, y) or x.dtype != y.dtype:
        if getattr(x, "dtype", None) is not None and x.dtype.kind in "iu" and device.asarray(y).dtype.kind in "iu":
            return int_pow(x, y)
        return x ** y
    shape = np.broadcast_shapes(x.shape, y.shape)
    dt = x.dtype
    out_strides = None
    if contiguous_out:
        out_strides = _estrides(np.empty(shape, dt), shape) if shape else []
    perm, vec = vector_plan(shape, [_estrides(x, shape), _estrides(y, shape)], dt.itemsize, out_strides)
    xs, ys = _in_order(x, shape, perm), _in_order(y, shape, perm)
    out = np.empty(xs.size, dt)
    if vec.any():
        out[vec] = _vector_pow(xs[vec], ys[vec], dt)
    sc = ~vec
    if sc.any():
        out[sc] = powf(xs[sc], ys[sc]) if dt == _F32 else pow64(xs[sc], ys[sc])
    res = _from_order(out, shape, perm)
    return res.copy(order="C") if contiguous_out and not res.flags.c_contiguous else res


def int_pow(x, y):
    """ATen's integer powi for tensor exponents: a negative exponent gives 1 for a base of 1, +-1 for -1
    (by the exponent's parity) and 0 otherwise, where NumPy refuses negative integer powers."""
    y = device.asarray(y)
    xp = device.xp_of(x)  # a GPU tensor's arrays stay on the GPU
    if not bool((y < 0).any()):
        return x ** y
    with np.errstate(all="ignore"):
        pos = x ** xp.where(y < 0, 0, y)
        neg = xp.where(x == 1, 1, xp.where(x == -1, xp.where(y % 2 == 0, 1, -1), 0)).astype(pos.dtype)
    return xp.where(y < 0, neg, pos)


def expf(x):
    """glibc's expf over a float32 array: its result is within 0.502 ulp of e**x (e_expf.c), so where
    the float64 exp lies farther than 2**-30 (relative) from a float32 rounding boundary it rounds the
    same; elsewhere the C function is called (``rng_math.libm_f32``)."""
    x = np.asarray(x, _F32)
    with np.errstate(all="ignore"):
        ref = np.exp(x.astype(_F64))
    out = ref.astype(_F32)
    hard = _near_boundary(ref, 2.0 ** -30) & np.isfinite(x)
    if hard.any():
        out[hard] = libm_f32("expf", x[hard])
    return out


def unary_kernel(x, vector_fn, scalar_fn, grain=None):
    """cpu_kernel_vec of a unary float op over a NumPy array: vector_fn on the elements the vectorised
    loop computes, scalar_fn on the rest (flat float arrays in, same out); the result laid out as
    TensorIterator allocates it. grain: the kernel's grain size (vector_plan)."""
    return nary_kernel((x,), vector_fn, scalar_fn, grain)


def nary_kernel(arrays, vector_fn, scalar_fn, grain=None):
    """cpu_kernel_vec of an elementwise float op of several same-dtype NumPy arrays (broadcast): as
    unary_kernel, the functions taking one flat array per operand."""
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    perm, vec = vector_plan(shape, [_estrides(a, shape) for a in arrays], arrays[0].dtype.itemsize, grain=grain)
    xs = [_in_order(a, shape, perm) for a in arrays]
    out = np.empty(xs[0].size, arrays[0].dtype)
    if vec.any():
        out[vec] = vector_fn(*(a[vec] for a in xs))
    sc = ~vec
    if sc.any():
        out[sc] = scalar_fn(*(a[sc] for a in xs))
    return _from_order(out, shape, perm)


def pow_tensor_scalar(x, p):
    """x ** p for a float32/float64 array and a Python number other than ATen's special exponents
    (0, 1, 2, 3, 0.5, -0.5, -1, -2): Vectorized<T>::pow(x, T(p)) in the vector body, std::pow(x, double p)
    on the scalar tail."""
    if not _supported(x):
        return x ** p
    dt = x.dtype
    pv = float(p)
    return unary_kernel(x, lambda v: _vector_pow(v, np.full(v.shape, pv, dt), dt),
                        lambda v: pow32_double(v, pv) if dt == _F32 else pow64(v, pv))


# ---------------------------------------------------------------------------- sigmoid, silu (float32)

def _vec_exp_neg(v):
    """Vectorized<float>::exp of -v (SLEEF's expf; glibc's lane by lane under DEFAULT). sigmoid's
    `0 - x` leaves a NaN with its sign flipped in torch's build, as a negation does (measured)."""
    return expf(-v) if capability() == "default" else sleef.expf(-v)


def sigmoid32(x):
    """ATen's float32 sigmoid: ((0 - x).exp() + 1).reciprocal() on the vector body, 1 / (1 + std::exp(-x))
    on the tail, both in float."""
    one = np.float32(1)
    with np.errstate(all="ignore"):
        return unary_kernel(x, lambda v: one / (_vec_exp_neg(v) + one), lambda v: one / (one + expf(-v)))


def silu32(x):
    """ATen's float32 silu: x / (1 + x.neg().exp()) on the vector body, x / (1 + std::exp(-x)) on the tail."""
    one = np.float32(1)
    with np.errstate(all="ignore"):
        return unary_kernel(x, lambda v: v / (one + _vec_exp_neg(v)), lambda v: v / (one + expf(-v)))
