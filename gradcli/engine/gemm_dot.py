"""MKL 2024.2's AVX2 dot-product kernels as torch 2.13 runs them on an AVX2 CPU without AVX-512 (measured on
the 2-core AMD EPYC against torch itself): sgemm's narrow products and sdot, for engine/gemm_avx2.py.

Measured with triplet queries (a product of ones and a vector of 2**25, -2**25 and 1 at three places tells
whether the 1 joins a partial sum holding exactly one of the big values: that recovers each element's
addition tree) and then random float32 inputs (0 differing elements):

* sgemm with a row-major first operand a (m, k) and a transposed row-major second one b (k, n) (F.linear's
  input @ weight.t()): when n < 12 (every row), m is 2 or 3 (every row, any n), or the rows past the last
  group of four when m < 12, each element is a dot product in plain float32 products and sums, no fused
  multiply-add. Each row's products up to a's row's next 16 bytes (row_peels: 0 to 3) are summed in order
  from +0 into lane 0 first; then over the next k' terms the first n - n % 4 columns: four lanes, lane l
  summing the products of terms l, l + 4, l + 8, ... in order, then (l0 + l2) + (l1 + l3); the last n % 4
  columns: eight lanes over the first k' - k' % 8 terms, then ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 +
  l7)); then the last products added one by one. alpha multiplies the result (rounded), then MKL's C (beta *
  input) is added. b's offset does not matter. Small products chain every row (small_chains).
* the same rows with a row-major b (F.linear's gradients: grad_out.t() @ input, grad_out @ weight), n a
  multiple of 4 (each output row then starts on 16 bytes; the first row past the groups always does): plain
  float32 products summed in k's order, from MKL's C (beta * input) or +0 (plain_rows; alpha not measured).
* sdot (torch.dot, matmul of two vectors) of n < 8192 (from 8192 MKL's two threads split it) with both
  vectors at the same offset modulo 16 bytes: the products of the first terms up to that boundary (0-3)
  summed into lane 0, then sixteen lanes over blocks of 16, a block of 8 into lanes 0-7 and of 4 into lanes
  0-3 where they remain, the last 0-3 products into lane 0, then the lanes' four quarters added in order
  and (q0 + q2) + (q1 + q3); plain float32 products and sums. With other offsets MKL peels otherwise.

Where torch's tensor starts is its storage's start (64-byte aligned) plus its offset; the engine's arrays
carry the same offsets from their base arrays (views), which is what offset16 reads.
"""
from __future__ import annotations

import numpy as np

_F32 = np.dtype(np.float32)
MAX_WORK = 1 << 20   # m * n * k: past it NumPy's product (two passes of that many float32 values)
MAX_WORK_NATIVE = 1 << 23  # the same for csrc/gemm.c's sgemm_dot (about 2 ms at 2**23 against OpenBLAS's
# fraction of one: bench case 4's last layer, (512, 2048) @ (2048, 10), 2**23.3, keeps NumPy's product)
DOT_MAX = 8192       # sdot from this length: MKL's threads split it (not followed)
MAX_STEPS = 4096     # k past it: NumPy's product where the NumPy code below would loop over k (_in_order)


def offset16(x):
    """Where x's data starts modulo 16 bytes, counted from its outermost base array's start (torch's
    storage offset in bytes; storages start on 64 bytes)."""
    root = x.base
    if root is None:
        return 0  # x is its own outermost array (the common case: __array_interface__ costs microseconds)
    root = x
    while isinstance(root.base, np.ndarray):
        root = root.base
    return (x.__array_interface__["data"][0] - root.__array_interface__["data"][0]) % 16


def takes(a, b, la, lb, limit=MAX_WORK):
    """Whether dot_rows computes a @ b (layouts la, lb as gemm_avx2's _layout gives them) in MKL's order,
    within limit multiply-adds."""
    k = a.shape[1]
    return la == "N" and lb == "T" and b.shape[1] > 1 and a.shape[0] * b.shape[1] * k <= limit \
        and offset16(a) % 4 == 0


def _in_order(terms, start=None):
    """terms[0] + terms[1] + ... along the first axis, each addition rounded to float32, from start (or +0:
    a sum of -0.0 terms is +0.0), as one in-place addition per term (NumPy's add.accumulate takes
    milliseconds for what this does in tens of microseconds; add.reduce may sum pairwise)."""
    acc = np.zeros(terms.shape[1:], _F32)
    if start is not None:
        acc += start
    for term in terms:
        acc += term
    return acc


def small_chains(k, n):
    """Whether MKL chains every row of a small product (n >= 12, 4 < m < 12 not a multiple of 4): k <= 16
    with n <= 16, or k <= 4 with n <= 100; else the rows past the last group of four are dot_rows' (a @
    b.t()) or plain_rows' (b row-major)."""
    return (k <= 16 and n <= 16) or (k <= 4 and n <= 100)


def row_peels(a):
    """Each row's first products MKL's dot-product kernel sums apart (into lane 0), up to a's next 16 bytes:
    (m,) ints from 0 to 3 (at most k)."""
    m, k = a.shape
    return np.minimum((4 - (offset16(a) // 4 + np.arange(m) * k) % 4) % 4, k)


def _dot_products(p, peel):
    """p (r, n, k) products, each row's first peel summed apart -> (r, n) in the dot-product kernel's order."""
    r, n, k = p.shape
    n4 = n - n % 4
    start = _in_order(p[:, :, :peel].transpose(2, 0, 1))
    rest = p[:, :, peel:]
    out = np.empty((r, n), _F32)
    for cols, width in ((slice(0, n4), 4), (slice(n4, n), 8)):
        q = rest[:, cols]
        nc, blocks = q.shape[1], (k - peel) // width
        if nc == 0:
            continue
        lanes = np.zeros((r, nc, width), _F32)
        lanes[..., 0] = start[:, cols]
        if blocks:
            lanes = _in_order(q[..., :blocks * width].reshape(r, nc, blocks, width).transpose(2, 0, 1, 3), lanes)
        if width == 8:
            lanes = lanes[..., :4] + lanes[..., 4:]
        summed = (lanes[..., 0] + lanes[..., 2]) + (lanes[..., 1] + lanes[..., 3])
        out[:, cols] = _in_order(q[..., blocks * width:].transpose(2, 0, 1), summed)
    return out


def dot_rows(a, b, c=None, alpha=1, module=None):
    """alpha * a @ b (+ c) in MKL's AVX2 dot-product kernel's order (where takes() says so); module: the
    built csrc/gemm.c (its sgemm_dot, the same bits), else NumPy's passes."""
    m, k = a.shape
    n = b.shape[1]
    out = np.empty((m, n), _F32)
    if module is not None:
        module.sgemm_dot(a, b.T, out, m, k, n, offset16(a) // 4)
        return _scaled(out, c, alpha)
    p = np.multiply(a[:, None, :], b.T[None, :, :])  # (m, n, k): each product rounded to float32
    peels = row_peels(a)
    for peel in np.unique(peels):
        rows = np.flatnonzero(peels == peel)
        out[rows] = _dot_products(p[rows], int(peel))
    return _scaled(out, c, alpha)


def plain_rows(a, b, c=None):
    """a @ b as plain float32 products summed in k's order from +0, or from c (float32 (m, n)) where given
    (MKL's rows past the last group of four with a row-major b: gemm_avx2.sgemm; alpha 1 only)."""
    p = np.multiply(a.T[:, :, None], b[:, None, :])  # (k, m, n): accumulated along the first axis
    if c is None:
        return _in_order(p)
    return _in_order(p, c)


def _scaled(out, c, alpha):
    """alpha * out (rounded), then + c: MKL's C = alpha * A @ B + beta * C after the dot kernel."""
    if alpha != 1:
        out *= _F32.type(alpha)
    if c is not None:
        out += c
    return out


def sdot(x, y):
    """torch.dot of two float32 vectors in MKL's AVX2 sdot order (a float32 0-d array), or None outside the
    measured domain (see the module's note)."""
    k = x.shape[0]
    if k == 0 or k >= DOT_MAX:
        return None
    ox, oy = offset16(x), offset16(y)
    if ox != oy or ox % 4 or x.strides[0] != 4 or y.strides[0] != 4:
        return None
    p = x * y
    peel = min((16 - ox) % 16 // 4, k)
    lanes = np.zeros(16, _F32)
    for i in range(peel):
        lanes[0] += p[i]
    i = peel
    blocks = (k - i) // 16
    if blocks:  # the lanes so far, then each block of 16, added in order
        lanes = _in_order(p[i:i + 16 * blocks].reshape(blocks, 16), lanes)
        i += 16 * blocks
    for w in (8, 4):
        if k - i >= w:
            lanes[:w] += p[i:i + w]
            i += w
    for j in range(i, k):
        lanes[0] += p[j]
    q = ((lanes[0:4] + lanes[4:8]) + lanes[8:12]) + lanes[12:16]
    return np.array((q[0] + q[2]) + (q[1] + q[3]), _F32)


def gemv_rows(a, x):
    """MKL's AVX2 sgemv over rows ('t': torch.mv of a row-major matrix, input @ weight.t() with one output
    or one input row), for rows in groups of four (the caller's): each row's first k - 4 * ((k - 1) // 4)
    products (1 to 4) summed into lane 0 from +0, then four lanes over the rest, (l0 + l2) + (l1 + l3);
    plain float32 products and sums. a (m, k) float32, x (k,)."""
    m, k = a.shape
    p = np.multiply(a, x[None, :])
    peel = k - 4 * ((k - 1) // 4)
    rows = np.zeros((k // 4 + 2, m, 4), _F32)  # +0, the peeled sum, then each block of four
    rows[1, :, 0] = _in_order(p[:, :peel].T)
    blocks = (k - peel) // 4
    rows[2:2 + blocks] = p[:, peel:].reshape(m, blocks, 4).transpose(1, 0, 2)
    lanes = _in_order(rows[1:2 + blocks])
    return (lanes[:, 0] + lanes[:, 2]) + (lanes[:, 1] + lanes[:, 3])


def gemv_tail(a, x):
    """MKL's AVX2 sgemv over rows for the rows past the last group of four (1 to 3 rows, the caller's), x on
    16 bytes: each row's first min(k, 4) products summed in order from +0, then 8 * ((k - 4) // 8) products in
    lanes (eight lanes, ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)), for the first and third row; four,
    (l0 + l2) + (l1 + l3), for the second), the first lane starting from the first sum, then the last
    products one by one; plain float32 products and sums (the row's own alignment does not matter). a (r,
    k) float32, x (k,)."""
    r, k = a.shape
    p = np.multiply(a, x[None, :])
    peel = min(k, 4)
    acc = _in_order(p[:, :peel].T)
    blocks = (k - 4) // 8 if k >= 12 else 0
    if blocks:
        main = p[:, 4:4 + 8 * blocks]
        for j in range(r):
            width = 4 if j == 1 else 8
            lanes = np.zeros(width, _F32)
            lanes[0] = acc[j]
            lanes = _in_order(main[j].reshape(-1, width), lanes)
            if width == 8:
                lanes = lanes[0:4] + lanes[4:8]
            acc[j] = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])
    return _in_order(p[:, 4 + 8 * blocks:].T, acc) if k > 4 + 8 * blocks else acc


def gemv_columns(a, x):
    """MKL's AVX2 sgemv over columns ('n': torch.mv of a column-major matrix, a vector @ a row-major
    matrix): out = sum over kk of a[:, kk] * x[kk], plain float32, in k's order from +0."""
    return _in_order(np.multiply(a.T, x[:, None]))

