"""The MKL kernels (optional extra `gradcli[mkl]`): VML and gemm called the way ATen calls them.

Imported by :mod:`gradcli.engine.backend` at the first op that needs it, and only when
libmkl_rt is installed and ``GRADCLI_MKL`` is not 0. What is copied from ATen (PyTorch 2.13):
- ``aten/src/ATen/cpu/vml.h``: ``vms<Op>``/``vmd<Op>`` with mode VML_HA | VML_FTZDAZ_OFF |
  VML_ERRMODE_IGNORE on contiguous data (a strided input is copied first; VML's result per element
  does not depend on the length or the offset).
- ``addmm_impl_cpu_`` (aten/src/ATen/native/LinearAlgebra.cpp): which operand is "a", the
  transposes and leading dimensions read from the strides, a bias copied into the output and
  added by the gemm itself (beta); ``cpublas::gemm`` and ``normalize_last_dims`` (CPUBlas.cpp).
- ``addmv_out_cpu`` and ``dot`` (Blas.cpp), ``gemv``/``dot_impl`` (BlasKernel.cpp): cblas_?gemv, ?dot.
- ``bmm_out_or_baddbmm_``: ATen's own loop below 400 multiply-adds per matrix, MKL's batched gemm
  for contiguous or transposed batches, else one addmm per batch item.
- Threads: MKL's own default, as ATen's ``init_num_threads`` leaves it (torch.get_num_threads()
  is then mkl_get_max_threads(); gemm's bits change from 4 threads on) until a script's
  torch.set_num_threads (:func:`set_threads`, through engine/threads.py); VML runs on one thread (its
  bits do not depend on the split); GNU OpenMP (libgomp) as torch's, where the system has it.
  MKL_CBWR is left to MKL, as torch leaves it.
Every kernel returns None for what it does not take (its caller then runs NumPy's code).
"""
from __future__ import annotations

import ctypes
import os

import numpy as np

from ..backend import WANTED

MODE = 0x2 | 0x140000 | 0x100  # VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE = 0x140102
_COL_MAJOR, _NO_TRANS, _TRANS = 102, 111, 112
_INT_MAX = 2 ** 31 - 1
_DOMAIN_VML = 3  # MKL_DOMAIN_VML in mkl_service.h
_THREADING_GNU = 3  # MKL_THREADING_GNU

VML_NAMES = {"sin": "Sin", "cos": "Cos", "tan": "Tan", "exp": "Exp", "log": "Ln", "log10": "Log10",
             "log2": "Log2", "tanh": "Tanh", "erf": "Erf", "erfc": "Erfc", "erfinv": "ErfInv", "sqrt": "Sqrt",
             "asin": "Asin", "acos": "Acos", "atan": "Atan"}

_lib = None
_info = {"version": "", "threads": 1, "dynamic": 1}
_ndarray, _empty = np.ndarray, np.empty
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_from_buffer, _addressof = ctypes.c_char.from_buffer, ctypes.addressof
_c_int, _c_void_p, _c_float, _c_double = ctypes.c_int, ctypes.c_void_p, ctypes.c_float, ctypes.c_double


def _have_gnu_openmp():
    try:
        ctypes.CDLL("libgomp.so.1")
    except OSError:
        return False
    return True


def load(path):
    """Load libmkl_rt and set it up as torch does; ValueError for an MKL that is not 2024.2."""
    global _lib
    # OpenMP threads that spin 200 ms after each parallel region (Intel's default) would take the
    # cores from the single-threaded Python around them; blocking at once changes no result
    os.environ.setdefault("KMP_BLOCKTIME", "0")
    lib = ctypes.CDLL(path)
    lib.MKL_Set_Interface_Layer(0)  # LP64: 32-bit integers, whatever MKL_INTERFACE_LAYER says
    if "MKL_THREADING_LAYER" not in os.environ and _have_gnu_openmp():
        # torch's MKL runs on GNU OpenMP; Intel's runtime (the wheel's default) also prints
        # "OMP: Warning #179" on every run under the run's seccomp filter (its /dev/shm registration)
        lib.MKL_Set_Threading_Layer(_THREADING_GNU)
    buf = ctypes.create_string_buffer(256)
    lib.MKL_Get_Version_String(buf, 256)
    text = buf.value.decode("ascii", "replace")
    marker = "Version "
    version = text.split(marker, 1)[1].split("-", 1)[0].strip() if marker in text else text
    if not version.startswith(WANTED):
        raise ValueError(f"MKL {version} is installed; torch 2.13's bits need {WANTED}.x")
    # torch leaves MKL's thread count at MKL's own default (at::init_num_threads sets OpenMP's to
    # mkl_get_max_threads(): MKL_NUM_THREADS, else OMP_NUM_THREADS, at most the physical cores
    # while MKL_DYNAMIC is true) and MKL's dynamic mode on; only torch.set_num_threads changes them
    threads = lib.MKL_Get_Max_Threads()
    # VML's result per element does not depend on how the array is split, and ATen calls it from
    # inside its own parallel_for (grain 2048): one thread, no OpenMP start-up per call
    lib.MKL_Domain_Set_Num_Threads(1, _DOMAIN_VML)
    _info["version"], _info["threads"] = version, threads
    _info["dynamic"] = lib.MKL_Get_Dynamic()  # MKL_DYNAMIC's (true unless it says FALSE), as torch keeps it
    _lib = lib
    from .threads import apply_to_mkl
    apply_to_mkl()  # a torch.set_num_threads before MKL was loaded


def version() -> str:
    return _info["version"]


def threads() -> int:
    return _info["threads"]


def set_threads(n) -> None:
    """torch.set_num_threads(n) for MKL: mkl_set_num_threads_local(n) and mkl_set_dynamic(false), as
    ATen's set_num_threads; None undoes both (MKL's own count, the dynamic mode MKL_DYNAMIC gave it at
    load: torch's with MKL_DYNAMIC=FALSE and OMP_NUM_THREADS above the cores) for a new run."""
    if _lib is None:
        return
    _lib.MKL_Set_Num_Threads_Local(0 if n is None else n)
    _lib.MKL_Set_Dynamic(_info["dynamic"] if n is None else 0)


def in_effect() -> dict:
    """What MKL itself reports after load: its thread count for BLAS, for VML, and its CBWR branch
    (mkl_cbwr_get(MKL_CBWR_BRANCH): 1 for unset, 2 AUTO, 3 COMPATIBLE, ...)."""
    return {"threads": _lib.MKL_Get_Max_Threads(), "vml_threads": _lib.MKL_Domain_Get_Max_Threads(_DOMAIN_VML),
            "cbwr": _lib.MKL_CBWR_Get(1)}  # MKL_CBWR_BRANCH


def _function(name, restype, *argtypes):
    address = ctypes.cast(getattr(_lib, name), _c_void_p).value
    return ctypes.CFUNCTYPE(restype, *argtypes)(address)


def _aligned(n, dt):
    """(a new 1-D array of n elements starting on a 64-byte boundary, its address). NumPy's buffers
    start on 16 bytes at least, so such a start lies 0 to 48 bytes in."""
    buf = _empty(n + 64 // dt.itemsize, dt)
    address = _addressof(_from_buffer(buf))
    start = (-address % 64) // dt.itemsize
    return buf[start:start + n], address + start * dt.itemsize


def aligned_empty(shape, dt):
    """A new C-contiguous array on a 64-byte boundary, as torch's CPU allocator places every tensor
    (MKL's threaded gemv splits its output by cache lines: its sums depend on where it starts)."""
    n = 1
    for d in shape:
        n *= d
    return _aligned(n, dt)[0].reshape(shape)


def _ptr(a):
    """The address of a's first element: through the buffer protocol for a writable C-contiguous
    array (or the transpose of a Fortran one), much cheaper than __array_interface__."""
    flags = a.flags
    if flags.writeable:
        if flags.c_contiguous:
            return _addressof(_from_buffer(a))
        if flags.f_contiguous:
            return _addressof(_from_buffer(a.T))
    return a.__array_interface__["data"][0]


# ------------------------------------------------------------------------------------------ VML

def vml(name):
    """The VML kernel of torch.<name> for float32/float64 NumPy arrays (None for anything else)."""
    mkl_name = VML_NAMES[name]
    sig = (None, ctypes.c_int64, _c_void_p, _c_void_p, ctypes.c_int64)
    fs = _function("vms" + mkl_name, *sig)
    fd = _function("vmd" + mkl_name, *sig)

    def run(x):
        if x.__class__ is not _ndarray:
            return None
        dt = x.dtype
        if dt == _F32:
            f = fs
        elif dt == _F64:
            f = fd
        else:
            return None
        n = x.size
        if n == 0:
            return None
        flags = x.flags
        if flags.c_contiguous:
            out = _empty(x.shape, dt)
            f(n, _ptr(x), _addressof(_from_buffer(out)), MODE)
            return out
        if flags.f_contiguous:  # torch's output keeps the input's layout
            out = _empty(x.shape[::-1], dt).T
            f(n, _ptr(x), _addressof(_from_buffer(out.T)), MODE)
            return out
        src = np.ascontiguousarray(x)  # ATen copies strided input into a contiguous buffer too
        r = _empty(x.shape, dt)
        f(n, _ptr(src), _addressof(_from_buffer(r)), MODE)
        out = np.empty_like(x)  # the layout NumPy's ufunc (the fallback) would give
        out[...] = r
        return out

    return run


# ----------------------------------------------------------------------------------------- gemm

# Fortran ?gemm_ (what ATen's cpublas::gemm calls) takes every argument by address. Integers below
# _POOL_SIZE and the scalars 0 and 1 point into constant tables built once, so a small product
# costs one foreign call and no ctypes objects; anything else gets a fresh buffer for its call.
_POOL_SIZE = 8192
_tables = {}


def _gemm_functions():
    """{dtype: (gemm_, its scalar ctype, address of its 0, address of its 1)} and the tables."""
    if not _tables:
        pool = (_c_int * _POOL_SIZE)(*range(_POOL_SIZE))
        chars = ctypes.create_string_buffer(b"NT")
        zero_one = {_F32: (_c_float * 2)(0.0, 1.0), _F64: (_c_double * 2)(0.0, 1.0)}
        _tables.update(pool=pool, base=_addressof(pool), chars=chars, N=_addressof(chars),
                       T=_addressof(chars) + 1, zero_one=zero_one)
    p = _c_void_p
    fns = {}
    for dt, name, ctype in ((_F32, "sgemm_", _c_float), (_F64, "dgemm_", _c_double)):
        f = _function(name, None, p, p, p, p, p, p, p, p, p, p, p, p, p)
        table = _addressof(_tables["zero_one"][dt])
        fns[dt] = (f, ctype, table, table + ctypes.sizeof(ctype))
    return fns


def _estrides(a):
    isz = a.itemsize
    return [s // isz for s in a.strides]


def _int_address(v, keep):
    if 0 <= v < _POOL_SIZE:
        return _tables["base"] + 4 * v
    box = (_c_int * 1)(v)
    keep.append(box)
    return _addressof(box)


def _scalar_address(value, entry, keep):
    if value == 1:
        return entry[3]
    if value == 0:
        return entry[2]
    box = (entry[1] * 1)(value)
    keep.append(box)
    return _addressof(box)


def _gemm_into(result, m1, m2, alpha, beta, fns):
    """ATen's addmm_impl_cpu_ from its transpose choice on: result (2-D, already holding the bias
    when beta != 0) = beta * result + alpha * m1 @ m2 through MKL. False where ATen would not call
    BLAS (its own kernel then; the caller falls back)."""
    M, N = result.shape
    isz = result.itemsize
    r0, r1 = result.strides
    r0 //= isz
    r1 //= isz
    if r0 == 1 and (N == 1 or r1 >= max(1, M)):
        tc, c = False, result
    elif r1 == 1 and (M == 1 or r0 >= max(1, N)):
        m1, m2 = m2, m1
        tc, c = True, result
    else:
        tc, c = False, np.asfortranarray(result)
    if tc:
        m, n, k = N, M, m1.shape[0]
        s1, s0 = m1.strides
        t1, t0 = m2.strides
    else:
        m, n, k = M, N, m1.shape[1]
        s0, s1 = m1.strides
        t0, t1 = m2.strides
    s0 //= isz
    s1 //= isz
    t0 //= isz
    t1 //= isz
    if s0 == 1 and s1 >= max(1, m):
        ta, a, lda = False, m1, s1
    elif s1 == 1 and s0 >= max(1, k):
        ta, a, lda = True, m1, s0
    else:  # a contiguous copy: ATen's a.contiguous() read transposed (or not) to match c
        ta, a = not tc, np.ascontiguousarray(m1)
        lda = a.shape[1]
    if t0 == 1 and t1 >= max(1, k):
        tb, b, ldb = False, m2, t1
    elif t1 == 1 and t0 >= max(1, n):
        tb, b, ldb = True, m2, t0
    else:
        tb, b = not tc, np.ascontiguousarray(m2)
        ldb = b.shape[1]
    if c is result:
        ldc = r0 if tc else r1
    else:
        ldc = c.strides[1] // isz
    ok = _blas_call(fns, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
    if ok and c is not result:
        result[...] = c
    return ok


def _normalize(ta, tb, m, n, k, lda, ldb, ldc):
    """cpublas::internal::normalize_last_dims, then use_blas_gemm's test (None: not BLAS)."""
    if n == 1:
        ldc = m
    if ta:
        if m == 1:
            lda = k
    elif k == 1:
        lda = m
    if tb:
        if k == 1:
            ldb = n
    elif n == 1:
        ldb = k
    if max(m, n, k, lda, ldb, ldc) > _INT_MAX or lda < max(1, k if ta else m) \
            or ldb < max(1, n if tb else k) or ldc < max(1, m):
        return None
    return lda, ldb, ldc


def _blas_call(fns, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    lds = _normalize(ta, tb, m, n, k, lda, ldb, ldc)
    if lds is None:
        return False
    lda, ldb, ldc = lds
    entry = fns[c.dtype]
    keep = []
    if m < _POOL_SIZE and n < _POOL_SIZE and k < _POOL_SIZE and lda < _POOL_SIZE and ldb < _POOL_SIZE \
            and ldc < _POOL_SIZE:
        base = _tables["base"]
        pm, pn, pk, pa, pb, pc = base + 4 * m, base + 4 * n, base + 4 * k, base + 4 * lda, base + 4 * ldb, \
            base + 4 * ldc
    else:
        pm, pn, pk, pa, pb, pc = (_int_address(v, keep) for v in (m, n, k, lda, ldb, ldc))
    chars = _tables["N"]
    entry[0](chars + ta, chars + tb, pm, pn, pk, _scalar_address(alpha, entry, keep), _ptr(a), pa, _ptr(b), pb,
             _scalar_address(beta, entry, keep), _ptr(c), pc)
    return True


def _float_pair(a, b):
    return a.__class__ is _ndarray and b.__class__ is _ndarray and a.dtype == b.dtype \
        and (a.dtype == _F32 or a.dtype == _F64)


def _address_of(x, how):
    """x's data address: how 0 for a C-contiguous x, 1 for the transpose of one, 2 otherwise."""
    if how < 2:
        try:
            return _addressof(_from_buffer(x.T if how else x))
        except TypeError:  # read-only
            pass
    return x.__array_interface__["data"][0]


def _major(x, isz):
    """(0, leading dimension) for a row-major 2-D x, (1, leading dimension) for a column-major one
    (BLAS's transpose flag in the swapped call), None for another layout."""
    (rows, cols), (s0, s1) = x.shape, x.strides
    if s1 == isz and s0 >= cols * isz:
        return 0, s0 // isz
    if s0 == isz and s1 >= rows * isz:
        return 1, s1 // isz
    return None


def _plan(m1, m2, M, N, K, beta, entry):
    """The call of the usual case, fixed for the operands' layout: _gemm_into's choice for a fresh
    C-contiguous result of more than one row and column (ATen swaps the operands: c = result^T,
    m = N, n = M, a = m2, b = m1) and row- or column-major operands (no copy, no ld change). None
    for anything else."""
    if not (1 < M < _POOL_SIZE and 1 < N < _POOL_SIZE and 1 < K < _POOL_SIZE):
        return None
    isz = m1.itemsize
    a, b = _major(m2, isz), _major(m1, isz)
    if a is None or b is None:
        return None
    (ta, lda), (tb, ldb) = a, b
    if lda >= _POOL_SIZE or ldb >= _POOL_SIZE:
        return None
    # 0: C-contiguous, 1: the transpose of a C-contiguous array, 2: neither (a wider row)
    how_a = 0 if m2.flags.c_contiguous else 1 if m2.flags.f_contiguous else 2
    how_b = 0 if m1.flags.c_contiguous else 1 if m1.flags.f_contiguous else 2
    pool, chars = _tables["base"], _tables["N"]
    return (entry[0], chars + ta, chars + tb, pool + 4 * N, pool + 4 * M, pool + 4 * K, entry[3], pool + 4 * lda,
            pool + 4 * ldb, entry[3] if beta else entry[2], pool + 4 * N, how_a, how_b, M * N, 64 // isz, isz, (M, N))


def gemm():
    """addmm(bias, m1, m2, beta, alpha) on 2-D arrays as torch's CPU addmm/mm computes it: the
    result array (C-contiguous, as torch allocates it), or None. bias None is mm (beta 0)."""
    fns = _gemm_functions()
    plans = {}
    copyto = np.copyto

    def run(m1, m2, bias=None, beta=1, alpha=1):
        if m1.__class__ is not _ndarray or m2.__class__ is not _ndarray:
            return None
        dt = m1.dtype
        if bias is None:
            beta = 0
        elif bias.__class__ is not _ndarray or bias.dtype != dt:
            return None
        key = (dt, m1.shape, m1.strides, m2.dtype, m2.shape, m2.strides, beta, alpha)
        plan = plans.get(key)
        if plan is None:
            entry = fns.get(dt)
            if entry is None or m2.dtype != dt:
                return None
            M, K = m1.shape
            N = m2.shape[1]
            if alpha == 1 and (beta == 0 or beta == 1):
                plan = _plan(m1, m2, M, N, K, beta, entry)
                if plan is not None:
                    if len(plans) >= 512:
                        plans.clear()
                    plans[key] = plan
            if plan is None:
                return _gemm_general(m1, m2, bias, beta, alpha, M, N, K, dt, fns)
        f, ta, tb, pm, pn, pk, palpha, plda, pldb, pbeta, pldc, how_a, how_b, n, pad, isz, shape = plan
        try:  # the operands' addresses through the buffer protocol (the cheapest way from Python)
            pa = _addressof(_from_buffer(m2.T if how_a else m2))
            pb = _addressof(_from_buffer(m1.T if how_b else m1))
        except TypeError:  # read-only, or neither layout contiguous
            pa, pb = _address_of(m2, how_a), _address_of(m1, how_b)
        buf = _empty(n + pad, dt)  # aligned_empty's work, inline
        address = _addressof(_from_buffer(buf))
        start = (-address % 64) // isz
        result = buf[start:start + n].reshape(shape)
        if beta:
            copyto(result, bias)
        f(ta, tb, pm, pn, pk, palpha, pa, plda, pb, pldb, pbeta, address + start * isz, pldc)
        return result

    return run


def _gemm_general(m1, m2, bias, beta, alpha, M, N, K, dt, fns):
    if M == 0 or N == 0:
        return _empty((M, N), dt)
    if K == 0:
        if beta == 0:
            return np.zeros((M, N), dt)
        return np.broadcast_to(bias, (M, N)) * dt.type(beta)
    result = aligned_empty((M, N), dt)
    if beta != 0:
        result[...] = bias
    if not _gemm_into(result, m1, m2, alpha, beta, fns):
        return None
    return result


# ------------------------------------------------------------------------------------------ bmm

def _contiguous_or_transposed(t):
    s = _estrides(t)
    sizes = t.shape
    return (s[2] == 1 and (sizes[1] == 1 or s[1] >= sizes[2])) or (s[1] == 1 and (sizes[2] == 1 or s[2] >= sizes[1]))


def _batch_functions():
    i, p = _c_int, _c_void_p
    fs = _function("cblas_sgemm_batch", None, i, p, p, p, p, p, p, p, p, p, p, p, p, p, i, p)
    fd = _function("cblas_dgemm_batch", None, i, p, p, p, p, p, p, p, p, p, p, p, p, p, i, p)
    return fs, fd


def bmm():
    """torch.bmm's CPU kernel (bmm_out_or_baddbmm_ with beta 0, alpha 1) on 3-D arrays, or None."""
    fns = _gemm_functions()
    batch_fns = _batch_functions()

    def run(b1, b2):
        if not _float_pair(b1, b2):
            return None
        dt = b1.dtype
        bs, n, k = b1.shape
        m = b2.shape[2]
        if bs * n * m == 0:
            return _empty((bs, n, m), dt)
        if k == 0:
            return np.zeros((bs, n, m), dt)
        if k * n * m < 400:
            from .ops.linalg import small_bmm  # noqa: PLC0415 - the engine's, with or without MKL
            return small_bmm(b1, b2)
        result = aligned_empty((bs, n, m), dt)
        if _contiguous_or_transposed(b1) and _contiguous_or_transposed(b2):
            if _batched(result, b1, b2, fns, batch_fns):
                return result
            return None
        for i in range(bs):
            if not _gemm_into(result[i], b1[i], b2[i], 1, 0, fns):
                return None
        return result

    return run


def _batched(result, mat1, mat2, fns, batch_fns):
    """baddbmm_with_gemm_ and cpublas::gemm_batched_with_stride (beta 0, alpha 1)."""
    s1, s2, rs = _estrides(mat1), _estrides(mat2), _estrides(result)

    def transposed(s, sizes):
        return s[1] == 1 and s[2] >= sizes[1]

    ta, tb = transposed(s2, mat2.shape), transposed(s1, mat1.shape)
    bs, m, n, k = mat1.shape[0], result.shape[2], result.shape[1], mat2.shape[1]
    lda, ldb, ldc = s2[2 if ta else 1], s1[2 if tb else 1], rs[1]
    if bs == 1:
        return _blas_call(fns, ta, tb, m, n, k, 1, mat2[0], lda, mat1[0], ldb, 0, result[0], ldc)
    lds = _normalize(ta, tb, m, n, k, lda, ldb, ldc)
    if lds is None:  # gemm_batched_with_stride_generic: one gemm per item
        return all(_blas_call(fns, ta, tb, m, n, k, 1, mat2[i], lda, mat1[i], ldb, 0, result[i], ldc)
                   for i in range(bs))
    lda, ldb, ldc = lds
    isz = result.itemsize
    index = np.arange(bs, dtype=np.uint64)
    a_ptrs = np.uint64(mat2.__array_interface__["data"][0]) + index * np.uint64(s2[0] * isz)
    b_ptrs = np.uint64(mat1.__array_interface__["data"][0]) + index * np.uint64(s1[0] * isz)
    c_ptrs = np.uint64(_ptr(result)) + index * np.uint64(rs[0] * isz)
    ints = np.array([_TRANS if ta else _NO_TRANS, _TRANS if tb else _NO_TRANS, m, n, k, lda, ldb, ldc, bs],
                    dtype=np.int32)
    scalars = np.array([1, 0], dtype=result.dtype)
    f = batch_fns[0] if result.dtype == _F32 else batch_fns[1]
    ip, sp = ints.ctypes.data, scalars.ctypes.data
    i4, s1z = ints.itemsize, scalars.itemsize
    f(_COL_MAJOR, ip, ip + i4, ip + 2 * i4, ip + 3 * i4, ip + 4 * i4, sp, a_ptrs.ctypes.data, ip + 5 * i4,
      b_ptrs.ctypes.data, ip + 6 * i4, sp + s1z, c_ptrs.ctypes.data, ip + 7 * i4, 1, ip + 8 * i4)
    return True


# ---------------------------------------------------------------------------------- mv and dot

def _pointer_stride(v):
    """(element stride, address) of a 1-D array for BLAS, or None for a stride BLAS does not take
    (ATen's fast-path tests: incx > 0)."""
    s = v.strides[0] // v.itemsize
    if s <= 0:
        return None
    return s, _ptr(v)


def mv():
    """torch.mv on the CPU: addmv_out_cpu (beta 0) choosing 'n' or 't' from the matrix's strides
    (a contiguous copy where neither fits), then gemv<scalar_t> (n == 1 makes lda = m) and
    cblas_?gemv; None where ATen would run its own loop."""
    i, p = _c_int, _c_void_p
    fs = _function("cblas_sgemv", None, i, i, i, i, _c_float, p, i, p, i, _c_float, p, i)
    fd = _function("cblas_dgemv", None, i, i, i, i, _c_double, p, i, p, i, _c_double, p, i)

    def run(mat, vec):
        if not _float_pair(mat, vec) or mat.ndim != 2 or vec.ndim != 1:
            return None
        dt = mat.dtype
        rows, cols = mat.shape
        if mat.size == 0:
            return np.zeros(rows, dt)  # beta 0: result.zero_()
        s = _estrides(mat)
        if s[0] == 1 and (cols == 1 or s[1] >= max(1, rows)):
            trans, m, n, a, lda = _NO_TRANS, rows, cols, mat, s[1]
        elif s[1] == 1 and (rows == 1 or s[0] >= max(1, cols)):
            trans, m, n, a, lda = _TRANS, cols, rows, mat, s[0]
        else:
            a = np.ascontiguousarray(mat)
            trans, m, n, lda = _TRANS, cols, rows, _estrides(a)[0]
        if n == 1:
            lda = m
        x = _pointer_stride(vec)
        if x is None or max(m, n, lda, x[0]) > _INT_MAX or lda < max(1, m):
            return None
        y = aligned_empty((rows,), dt)
        f = fs if dt == _F32 else fd
        f(_COL_MAJOR, trans, m, n, 1, _ptr(a), lda, x[1], x[0], 0, _addressof(_from_buffer(y)), 1)
        return y

    return run


def dot():
    """torch.dot on the CPU: dot_impl (n == 1 makes both increments 1), cblas_?dot."""
    i, p = _c_int, _c_void_p
    fs = _function("cblas_sdot", _c_float, i, p, i, p, i)
    fd = _function("cblas_ddot", _c_double, i, p, i, p, i)

    def run(a, b):
        if not _float_pair(a, b) or a.ndim != 1 or b.ndim != 1 or a.shape != b.shape:
            return None
        n = a.shape[0]
        dt = a.dtype
        if n == 0:
            return np.zeros((), dt)
        x, y = _pointer_stride(a), _pointer_stride(b)
        if x is None or y is None or max(n, x[0], y[0]) > _INT_MAX:
            return None
        incx, incy = (1, 1) if n == 1 else (x[0], y[0])
        f = fs if dt == _F32 else fd
        return np.array(f(n, x[1], incx, y[1], incy), dt)

    return run
