"""MKL 2024.2's float32 sgemm as torch runs it on an AVX2 CPU without AVX-512 (measured on an AMD EPYC),
for the engine without the mkl extra: the summation order of small products, where it is known.

torch's mm/addmm/F.linear call MKL's sgemm (docs/numerics.md, "The MKL backend"); MKL picks its kernel
by CPU, so the last bits of a product depend on the machine. On this AVX2 machine, measured against
torch 2.13 with a product of m rows, k terms and n columns (m x k @ k x n, both operands row-major or
one of them a transposed row-major matrix, as a Linear layer's weight.t() and its gradients' g.t()):

* k >= 2 (ATen multiplies a contraction of length 1 itself, keeping -0.0), n >= 12, m a multiple of 4
  or m >= 12: each element is one chain of float32 fused multiply-adds in k's order, from +0 (MKL's
  rows in groups of four; past 12 rows, the rest too); small products (k <= 16 with n <= 16, or k <= 4
  with n <= 100: gemm_dot.small_chains) chain every row whatever m;
* 192 < k <= 384, k even: the two halves of k are two such chains from +0, then added;
* addmm(input, m1, m2, beta=, alpha=): MKL's C is beta * input (rounded; input is not read when beta is
  0), added to the first chain's result before the second chain's; alpha multiplies m2's elements
  (rounded) before the chains;
* bmm (matmul of 3-D batches) from 400 multiply-adds a matrix: each matrix as mm;
* m = 2 or 3, n < 12, and the rows past the last group of four when m < 12 (gemm_dot.py): for a @ b.t()
  (F.linear's input @ weight.t(); each row peeled up to a's next 16 bytes) MKL's dot-product kernel, plain
  float32 products and sums in four or eight lanes; for a row-major b plain float32 products summed in
  k's order from C (n a multiple of 4, or the one row past the groups);
* torch.dot (sdot, the dot slot): gemm_dot.sdot;
* m = 1 or n = 1: MKL's sgemv (_gemv: gemm_dot.gemv_rows for the groups of four rows, gemm_dot.gemv_tail for
  the rest, gemm_dot.gemv_columns for a column-major matrix).

Everything else keeps NumPy's product: sgemv's operands off 16 bytes, its alpha, the narrow
and last rows' other cases (n not a multiple of 4 with a row-major b:
MKL aligns each output row to 16 bytes and peels otherwise, not followed), alpha with a row-major b there;
longer or odd k; float64: `gemm` answers None there, as the MKL backend's kernel does for what it does not take. The engine calls this
only where the CPU is such a machine (`rng_math.detected()` is "avx2": MKL's AVX-512 kernels, on the
Intel machine of the goldens, order otherwise), and never when the mkl extra runs (its kernel is
torch's own). tests/test_gemm_avx2.py compares it with torch on random shapes of the domain.
"""
from __future__ import annotations

import numpy as np

from . import gemm_dot, rng_math

_F32 = np.dtype(np.float32)
_F64 = np.float64
MIN_COLUMNS = 12     # n below it (or m < 4): MKL's dot-product kernel (gemm_dot.py), else the chains
MAX_WORK = 1 << 18   # m * n * k: past it NumPy's product (the chain costs k passes of ~7 NumPy calls over the output)
MAX_WORK_NATIVE = 1 << 24  # the same in C (csrc/gemm.c: about 1 ns a multiply-add's eight lanes)
_TIE = np.int64(0x10000000)
_LOW = np.int64(0x1FFFFFFF)


def active() -> bool:
    """Whether MKL's AVX2 kernels are the ones torch runs here (an AVX2 CPU without AVX-512)."""
    return rng_math.detected() == "avx2"


def _layout(x):
    """'N' for a row-major matrix, 'T' for a transposed row-major one (column-major), else None."""
    if x.flags.c_contiguous:
        return "N"
    if x.flags.f_contiguous:
        return "T"
    return None


def _fused_chain(a, b, lo, hi, start=None):
    """fma(a[:, kk], b[kk], acc) for kk in [lo, hi), from +0 (or from start), each rounded once to float32: the float64
    sum of the exact product and the float32 accumulator rounded to float32, nudged where that float64
    lands on a float32 tie (rng_math's exact fma32, per step)."""
    m, n = a.shape[0], b.shape[1]
    a64 = a.astype(_F64)
    b64 = b.astype(_F64)
    acc = np.zeros((m, n), _F64) if start is None else start.astype(_F64)
    s = np.empty((m, n), _F64)
    bits = s.view(np.int64)
    for kk in range(lo, hi):
        np.multiply(a64[:, kk:kk + 1], b64[kk], out=s)
        s += acc
        if ((bits & _LOW) == _TIE).any():
            r = rng_math.fma32(a[:, kk:kk + 1], b[kk], acc.astype(np.float32))
        else:
            r = s.astype(np.float32)
        acc = r.astype(_F64)
    return acc.astype(np.float32)


def chain_reference(a, b, split, c=None, accumulate=1):
    """The chained product in NumPy (the readable reference, and the code that runs without the C
    extension): one chain over k's terms when split == k, else the chains over [0, split) and
    [split, k); c (float32 (m, n)), when given, is added to the first chain's result before the second
    chain's is, each addition rounded to float32 (accumulate 1: addmm's beta * input), or is where the
    first chain starts (accumulate 2: oneDNN's convolution from its bias)."""
    k = a.shape[1]
    r = _fused_chain(a, b, 0, split, c if c is not None and accumulate == 2 else None)
    if c is not None and accumulate == 1:
        r = r + c
    if split < k:
        r = r + _fused_chain(a, b, split, k)
    return r


def chain_native(module, a, b, split, c=None, scalar=False, accumulate=1):
    """The same product through csrc/gemm.c's sgemm_chain (a, b row-major or transposed row-major)."""
    m, k = a.shape
    n = b.shape[1]
    out = np.empty((m, n), _F32)
    if c is not None:
        out[...] = c
    a_t, b_t = not a.flags.c_contiguous, not b.flags.c_contiguous
    module.sgemm_chain(a.T if a_t else a, b.T if b_t else b, out, m, k, n, a_t, b_t, split, scalar,
                       accumulate if c is not None else 0)
    return out


def _native():
    if _module[0] is False:
        from .. import native  # noqa: PLC0415 - the C kernels load at the first emulated product

        _module[0] = native.load("gemm", needs=("sgemm_chain", "sgemm_dot"))
    return _module[0]


_module = [False]   # gradcli._native_gemm once looked up (None: not built, or GRADCLI_NATIVE=0)


def _auto():
    """csrc/gemm.c's sgemm_auto of the module _native() gives (None without it)."""
    module = _native()
    if module is not _auto_of[0]:
        _auto_of[:] = module, getattr(module, "sgemm_auto", None)
    return _auto_of[1]


_auto_of = [False, None]  # the module last seen, and its sgemm_auto


def sgemm(a, b, c=None, alpha=1):
    """alpha * a @ b (2-D float32 NumPy arrays) in MKL's AVX2 order, or None outside the measured domain;
    with c (float32 (m, n)), MKL's C added to it (chain_reference, dot_rows)."""
    m, k = a.shape
    n = b.shape[1]
    if m < 1 or k < 2 or n < 1:  # m = 0: nothing to compute; k = 1: ATen's own product
        return None
    if m == 1 or n == 1:
        return _gemv(a, b, c, alpha)
    la, lb = _layout(a), _layout(b)
    if la is None or lb is None or (la == "T" and lb == "T"):
        return None
    if n < MIN_COLUMNS or m < 4:
        # every row when m < 4, else every row when n < 12: MKL's dot-product kernel (gemm_dot.py) for a @ b.t(),
        # plain float32 sums in k's order from C for a row-major b with n a multiple of 4
        if lb == "N":
            if n % 4 or alpha != 1 or m * n * k > gemm_dot.MAX_WORK or k > gemm_dot.MAX_STEPS:
                return None
            return gemm_dot.plain_rows(a, b, c)
        module = _native()
        if module is None and k > 4 * gemm_dot.MAX_STEPS:
            return None
        if not gemm_dot.takes(a, b, la, lb, gemm_dot.MAX_WORK_NATIVE if module is not None else gemm_dot.MAX_WORK):
            return None
        return gemm_dot.dot_rows(a, b, c, alpha, module)
    if k > 384 or (k > 192 and k % 2):
        return None
    if m % 4 and m < 12 and not gemm_dot.small_chains(k, n):
        # the rows past the last group of four: MKL's dot-product kernel (a @ b.t()) or plain float32 sums in
        # k's order (with n a multiple of 4 or one such row); the groups: the chains
        if lb == "T":
            if not gemm_dot.takes(a, b, la, lb):
                return None
        elif n % 4 and m % 4 != 1 or m * n * k > gemm_dot.MAX_WORK or alpha != 1 or k > gemm_dot.MAX_STEPS:
            return None
        out = _chains(a, b, c, alpha)  # every row's chains (each element's is its own), then the last rows'
        if out is not None:
            m4 = m - m % 4
            cc = None if c is None else c[m4:]
            out[m4:] = gemm_dot.dot_rows(a[m4:], b, cc, alpha, _native()) if lb == "T" else \
                gemm_dot.plain_rows(a[m4:], b, cc)
        return out
    return _chains(a, b, c, alpha)


def _gemv(a, b, c, alpha):
    """A product of one row or one column: MKL's sgemv (gemm_dot.gemv_rows over a's rows or b's columns in
    groups of four, gemm_dot.gemv_tail over the rest, then + C; gemm_dot.gemv_columns for a column-major
    matrix, without C), or None (one row and one column, the vector or the groups' matrix off 16 bytes,
    alpha, a C there)."""
    m, n = a.shape[0], b.shape[1]
    if alpha != 1 or (m == 1) == (n == 1) or m * n * a.shape[1] > gemm_dot.MAX_WORK or a.shape[1] > gemm_dot.MAX_STEPS:
        return None
    mat, vec = (a, b[:, 0]) if n == 1 else (b.T, a[0])
    if mat.flags.c_contiguous and mat.shape[0] > 1:
        rows = mat.shape[0]
        m4 = rows - rows % 4
        if gemm_dot.offset16(vec) or vec.strides[0] != 4 or (m4 and gemm_dot.offset16(mat)):
            return None  # x or (with groups of four) the matrix off 16 bytes: MKL peels otherwise (not followed)
        out = np.empty(rows, _F32)
        if m4:
            out[:m4] = gemm_dot.gemv_rows(mat[:m4], vec)
        if m4 < rows:
            out[m4:] = gemm_dot.gemv_tail(mat[m4:], vec)
        if c is not None:
            out = out + c.reshape(-1)
    elif mat.flags.f_contiguous and c is None:
        out = gemm_dot.gemv_columns(mat, vec)
    else:
        return None
    return out.reshape(m, n)


def mv(a, x):
    """The mv slot's kernel: torch.mv (and matmul of a matrix and a vector) of float32 arrays as MKL's AVX2
    sgemv (_gemv), or None (NumPy's)."""
    if not _float32_arrays(a, x) or a.ndim != 2 or x.ndim != 1 or a.shape[1] != x.shape[0] or a.shape[0] < 2 \
            or a.shape[1] < 2 or x.strides[0] != 4 or not active():
        return None
    return None if (r := _gemv(a, x[:, None], None, 1)) is None else r[:, 0]


def _chains(a, b, c, alpha):
    """sgemm's chains (C if built, else NumPy's), or None past the work limit."""
    m, k = a.shape
    n = b.shape[1]
    if alpha != 1:
        b = np.multiply(b, _F32.type(alpha), order="K")  # keeps b's layout
    split = k if k <= 192 else k // 2
    module = _native()
    if module is not None:
        if m * n * k > MAX_WORK_NATIVE:
            return None
        return chain_native(module, a, b, split, c)
    if m * n * k > MAX_WORK:
        return None
    return chain_reference(a, b, split, c)


def _float32_arrays(*xs):
    return all(x.__class__ is np.ndarray and x.dtype == _F32 for x in xs)


def _refused(a, b):
    """A cheap early no for the narrow products sgemm leaves to NumPy by their shapes alone (before gemm
    builds MKL's C): k = 1, and n < 12 or m < 4 (but not one row or column) with n not a multiple of 4
    for a row-major b."""
    m, k = a.shape
    n = b.shape[1]
    if k < 2:
        return True
    if m == 1 or n == 1 or (n >= MIN_COLUMNS and m >= 4):
        return False
    return b.strides[1] == 4 and n % 4 != 0  # b row-major


def gemm(m1, m2, bias=None, beta=1, alpha=1):
    """The gemm slot's kernel (ops/linalg.py, as mkl_backend.gemm): addmm(bias, m1, m2, beta=, alpha=) or
    mm, or None for NumPy's product (another dtype or device, alpha 0, a shape outside sgemm's domain).
    MKL's C = alpha * A @ B + beta * C as measured here: alpha scales m2 (MKL's first operand, torch
    swaps them) before the chains, each element rounded to float32; beta * bias (rounded; not read when
    beta is 0) is MKL's C, added after the first chain (sgemm). A Linear layer's product (beta and alpha 1)
    is decided and computed by one C call where it can be (csrc/gemm.c's sgemm_auto: the same answers)."""
    if beta == 1 and alpha == 1:
        auto = _auto()
        if auto is not None and active():
            r = auto(m1, m2, bias)
            if r is not None:
                return r
    if not _float32_arrays(m1, m2) or m1.ndim != 2 or m2.ndim != 2 or alpha == 0 or _refused(m1, m2) or not active():
        return None
    if bias is None or beta == 0:
        return sgemm(m1, m2, None, alpha)
    if not _float32_arrays(bias):
        return None
    c = np.empty((m1.shape[0], m2.shape[1]), _F32)
    try:
        if beta == 1:
            c[...] = bias
        else:
            np.multiply(bias, _F32.type(beta), out=c)
    except ValueError:  # a bias that does not broadcast to the product: addmm's own error path
        return None
    return sgemm(m1, m2, c, alpha)


def _direct(m1, m2, bias):
    """gemm(m1, m2, bias) where one C call decides it (sgemm_auto: a Linear layer's layouts), else None (then
    gemm's own code decides)."""
    auto = _auto_of[1]
    if auto is None or _module[0] is not _auto_of[0]:  # else _auto() would answer it: two calls a product saved
        auto = _auto()
    return auto(m1, m2, bias) if auto is not None and active() else None


gemm.refuses = _refused  # ops/linalg.py's fast paths skip the call where it says so
gemm.direct = _direct  # ops/linalg.py's linear_2d asks it first
gemm.numpy_below = 1  # no product is left to NumPy by its width alone (ops/linalg.py's fast paths skip the call below it)


def bmm(b1, b2):
    """The bmm slot's kernel: torch.bmm (and matmul of 3-D batches) of float32 arrays, each matrix through
    sgemm (MKL's gemm_batch, and the addmm per matrix of other layouts, measured in the same order), or
    None: below 400 multiply-adds a matrix (ATen's own loop: ops/linalg.small_bmm), a matrix outside
    sgemm's domain, a batch past the work limit."""
    if not _float32_arrays(b1, b2) or b1.ndim != 3 or b2.ndim != 3 or not active():
        return None
    bs, m, k = b1.shape
    n = b2.shape[2]
    if b2.shape[:2] != (bs, k) or bs == 0 or m * k * n < 400:
        return None
    if bs * m * n * k > (MAX_WORK_NATIVE if _native() is not None else MAX_WORK):
        return None
    out = np.empty((bs, m, n), _F32)
    for i in range(bs):
        r = sgemm(b1[i], b2[i])
        if r is None:
            return None
        out[i] = r
    return out


def _chain(a, b, c, accumulate):
    """One chain over all of k (C if built, else NumPy's within MAX_WORK), or None past the limit."""
    m, k = a.shape
    n = b.shape[1]
    module = _native()
    if m * n * k > (MAX_WORK_NATIVE if module is not None else MAX_WORK):
        return None
    if module is not None:
        return chain_native(module, a, b, k, c, accumulate=accumulate)
    return chain_reference(a, b, k, c, accumulate)


def conv2d_input_grad(g, w, padding, size):
    """oneDNN's AVX2 backward-data convolution (jit:avx2, where the forward was oneDNN's: conv2d's onednn)
    of float32 g (N, O, OH, OW) and w (O, C, KH, KW), stride 1, no dilation, one group: the input's
    gradient (N, C, H, W) = size[0], size[1], each element one chain of fused multiply-adds from +0 over
    the output channels in blocks of eight, each block by kernel row, kernel column (ascending), then
    channel (past 16 output channels oneDNN splits them into chains whose results it adds, 32 channels
    each in the shapes measured in 2-D, 16 in 1-D: not followed); None as conv2d and past 16 output
    channels."""
    if not _float32_arrays(g, w) or g.ndim != 4 or w.ndim != 4 or not active():
        return None
    n, o, oh, ow = g.shape
    _, c, kh, kw = w.shape
    ph, pw = padding
    h, wd = size
    if (kh, kw) == (1, 1) or min(n, o, c) == 0 or kh - 1 - ph < 0 or kw - 1 - pw < 0 or o > 16 \
            or (oh + kh - 1 - 2 * ph, ow + kw - 1 - 2 * pw) != (h, wd) or o * c * kh * kw * n * h * wd > MAX_WORK_NATIVE:
        return None
    gp = np.pad(g, ((0, 0), (0, 0), (kh - 1 - ph, kh - 1 - ph), (kw - 1 - pw, kw - 1 - pw)))
    win = np.lib.stride_tricks.sliding_window_view(gp, (kh, kw), axis=(2, 3))[..., ::-1, ::-1]
    flat = win.transpose(1, 4, 5, 0, 2, 3).reshape(o * kh * kw, n * h * wd)
    wm = w.transpose(1, 0, 2, 3).reshape(c, o * kh * kw)
    out = None
    for c0 in range(0, o, 32):  # (one chain: o <= 16)
        order = np.array([(oc * kh + i) * kw + j for o0 in range(c0, min(o, c0 + 32), 8) for i in range(kh)
                          for j in range(kw) for oc in range(o0, min(o, o0 + 8))], np.intp)
        part = _chain(np.ascontiguousarray(wm[:, order]), flat[order], None, 0)
        if part is None:
            return None
        out = part if out is None else out + part
    return np.ascontiguousarray(out.reshape(c, n, h, wd).transpose(1, 0, 2, 3))


def conv2d_weight_grad(x, g, kernel, padding, threads):
    """oneDNN's AVX2 backward-weights convolution (jit:avx2, where the forward was oneDNN's) of float32 x
    (N, C, H, W) and g (N, O, OH, OW), stride 1, no dilation, one group: the weight's gradient (O, C, KH,
    KW), each element one chain of fused multiply-adds from +0 over the images, output rows and columns
    in order, except with one block of eight input and of eight output channels on two threads, where
    the threads split the images (the first ceil(N / 2)) and their two chains are added. None as conv2d,
    and for one block on another thread count (not measured)."""
    if not _float32_arrays(x, g) or x.ndim != 4 or g.ndim != 4 or not active():
        return None
    n, c, h, wd = x.shape
    o, oh, ow = g.shape[1], g.shape[2], g.shape[3]
    kh, kw = kernel
    ph, pw = padding
    if (kh, kw) == (1, 1) or min(n, o, c) == 0 or (h + 2 * ph - kh + 1, wd + 2 * pw - kw + 1) != (oh, ow) \
            or o * c * kh * kw * n * oh * ow > MAX_WORK_NATIVE:
        return None
    split = n * oh * ow
    if o <= 8 and c <= 8 and n > 1:
        if threads != 2:
            return None
        split = (n + 1) // 2 * oh * ow
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # (N, C, OH, OW, KH, KW)
    cols = np.ascontiguousarray(win.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw))
    a = np.ascontiguousarray(g.transpose(1, 0, 2, 3).reshape(o, n * oh * ow))
    module = _native()
    if module is not None:
        out = chain_native(module, a, cols, split)
    elif o * c * kh * kw * n * oh * ow <= MAX_WORK:
        out = chain_reference(a, cols, split)
    else:
        return None
    return out.reshape(o, c, kh, kw)


def conv2d_bias_grad(g, threads):
    """oneDNN's AVX2 bias gradient (its backward-weights pass, where the forward was oneDNN's) of float32 g
    (N, O, OH, OW): per output channel, float32 additions from +0 over the images, rows and columns in
    order; with one block of eight output channels on two threads, the first ceil(N / 2) images' sum and
    the rest's, added. None: another dtype or CPU, one block on another thread count, more than 8 images
    (not measured or not followed)."""
    if not _float32_arrays(g) or g.ndim != 4 or not active():
        return None
    n, o = g.shape[0], g.shape[1]
    if n > 8:  # measured up to 8 images; with 33 the threads split the sums otherwise (not followed)
        return None
    parts = [(0, n)]
    if o <= 8 and n > 1:
        if threads != 2:
            return None
        parts = [(0, (n + 1) // 2), ((n + 1) // 2, n)]
    total = None
    for lo, hi in parts:
        terms = g[lo:hi].transpose(0, 2, 3, 1).reshape(-1, o)
        s = np.add.accumulate(terms, axis=0, dtype=_F32)[-1] + _F32.type(0)  # in order (not pairwise), from +0
        total = s if total is None else total + s
    return total


def conv2d(x, w, bias, padding, onednn):
    """torch's CPU conv2d of float32 x (N, C, H, W) and w (O, C, KH, KW), stride 1, no dilation, one group,
    zero padding (ph, pw) on both sides, as this CPU's kernels order it, or None (another dtype or CPU, a
    1x1 kernel, past the work limit, a product outside sgemm's domain). onednn: ATen's use_mkldnn chose
    oneDNN (the caller decides: engine/nn/functional_conv.py), whose AVX2 direct convolution (jit:avx2)
    makes each output element one chain of float32 fused multiply-adds from its bias (or +0), over the
    input channels in blocks of eight, each block's taps by kernel row, kernel column, then channel;
    else ATen's slow_conv2d: per image, output (bias, or zeros) += weight (O, C*KH*KW) @ the unfolded
    input (C*KH*KW, OH*OW), one MKL sgemm with beta 1 (gemm)."""
    if not _float32_arrays(x, w) or (bias is not None and not _float32_arrays(bias)) or x.ndim != 4 \
            or w.ndim != 4 or not active():
        return None
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    ph, pw = padding
    if (kh, kw) == (1, 1) or n == 0 or o == 0 or c == 0:
        return None
    oh, ow = h + 2 * ph - kh + 1, wd + 2 * pw - kw + 1
    if oh < 1 or ow < 1 or o * c * kh * kw * n * oh * ow > MAX_WORK_NATIVE:
        return None
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # (N, C, OH, OW, KH, KW)
    start = np.empty((o, oh * ow if not onednn else n * oh * ow), _F32)
    start[...] = 0 if bias is None else bias[:, None]
    if not onednn:
        wm = np.ascontiguousarray(w.reshape(o, c * kh * kw))
        out = np.empty((n, o, oh, ow), _F32)
        for i in range(n):
            cols = np.ascontiguousarray(win[i].transpose(0, 3, 4, 1, 2).reshape(c * kh * kw, oh * ow))
            r = gemm(wm, cols, start)
            if r is None:
                return None
            out[i] = r.reshape(o, oh, ow)
        return out
    order = np.array([(ic * kh + i) * kw + j for c0 in range(0, c, 8) for i in range(kh) for j in range(kw)
                      for ic in range(c0, min(c, c0 + 8))], np.intp)
    cols = win.transpose(1, 4, 5, 0, 2, 3).reshape(c * kh * kw, n * oh * ow)[order]
    a = np.ascontiguousarray(w.reshape(o, c * kh * kw)[:, order])
    out = _chain(a, cols, start, 2)
    if out is None:
        return None
    return np.ascontiguousarray(out.reshape(o, n, oh, ow).transpose(1, 0, 2, 3))


def kernel(kind="gemm"):
    """The gemm (or bmm) slot's kernel when the mkl extra does not run: this emulation on MKL's AVX2
    machines."""
    return {"gemm": gemm, "bmm": bmm, "dot": dot, "mv": mv}.get(kind) if active() else None


def dot(x, y):
    """The dot slot's kernel: torch.dot (and matmul of two vectors) of float32 arrays in MKL's AVX2 sdot
    order (gemm_dot.sdot), or None (NumPy's)."""
    if not _float32_arrays(x, y) or x.ndim != 1 or x.shape != y.shape or not active():
        return None
    return gemm_dot.sdot(x, y)
