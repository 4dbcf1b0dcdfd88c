/* gradcli._native_gemm: MKL 2024.2's AVX2 float32 sgemm summation order (as torch runs it on an AVX2
 * CPU without AVX-512), bit for bit with its NumPy reference gradcli/engine/gemm_avx2.py
 * (fused_chain_reference; tests/test_gemm_avx2.py compares the two).
 *
 * sgemm_chain: C = A @ B with every element one chain of float32 fused multiply-adds in k's order from
 *   +0, or two such chains (k's terms before and after `split`) added; with `accumulate` 1, C's own value
 *   (addmm's beta * input) is added to the first chain's result before the second chain is; with 2, the
 *   first chain starts from C's value instead of +0 (oneDNN's AVX2 convolution, from its bias): the
 *   orders gemm_avx2.py's docstring says where they were measured. The code that decides when this order is torch's stays in
 *   Python (gemm_avx2.sgemm); this file only computes it, vectorised across the output's columns with
 *   AVX2+FMA where the CPU has them (each lane its own element's chain: the same bits as one fmaf per
 *   term), else element by element with the C library's fmaf.
 * Built with -ffp-contract=off: every fused multiply-add below is written as one. */
#include "native_buffer.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

/* The operands as the kernels read them: A[i, kk] = a[i * sa_i + kk * sa_k], B[kk, j] = b[kk * n + j]
 * (B is row-major here: a transposed B is copied into that layout first). */
typedef struct {
    const float *a, *b;
    float *c;
    Py_ssize_t m, k, n, sa_i, sa_k, split;
    int accumulate;
} Gemm;

/* one element's chains, lane by lane (the reference's arithmetic, the C library's fmaf) */
static float element_scalar(const Gemm *g, Py_ssize_t i, Py_ssize_t j) {
    float acc = g->accumulate == 2 ? g->c[i * g->n + j] : 0.0f, acc2 = 0.0f;
    const float *ai = g->a + i * g->sa_i;
    for (Py_ssize_t kk = 0; kk < g->split; kk++) acc = fmaf(ai[kk * g->sa_k], g->b[kk * g->n + j], acc);
    if (g->accumulate == 1) acc = acc + g->c[i * g->n + j];
    if (g->split == g->k) return acc;
    for (Py_ssize_t kk = g->split; kk < g->k; kk++) acc2 = fmaf(ai[kk * g->sa_k], g->b[kk * g->n + j], acc2);
    return acc + acc2;
}

static void gemm_scalar(const Gemm *g) {
    for (Py_ssize_t i = 0; i < g->m; i++)
        for (Py_ssize_t j = 0; j < g->n; j++) g->c[i * g->n + j] = element_scalar(g, i, j);
}

#ifdef HAVE_X86
#define AVX2 __attribute__((target("avx2,fma")))

/* rows i0..i0+R-1 (R <= 4), columns j..j+15: R x 2 vectors of eight chains, over kk in [lo, hi) */
#define CHAINS(R, lo, hi, acc)                                                              \
    for (Py_ssize_t kk = (lo); kk < (hi); kk++) {                                           \
        const __m256 b0 = _mm256_loadu_ps(g->b + kk * g->n + j);                            \
        const __m256 b1 = _mm256_loadu_ps(g->b + kk * g->n + j + 8);                        \
        for (int r = 0; r < (R); r++) {                                                     \
            const __m256 av = _mm256_set1_ps(g->a[(i0 + r) * g->sa_i + kk * g->sa_k]);      \
            acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);                                 \
            acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);                                 \
        }                                                                                   \
    }

AVX2 static inline __attribute__((always_inline)) void block16(const Gemm *g, Py_ssize_t i0, Py_ssize_t j, const int R) {
    __m256 acc[4][2], acc2[4][2];
    for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = acc2[r][0] = acc2[r][1] = _mm256_setzero_ps();
    if (g->accumulate == 2)
        for (int r = 0; r < R; r++) {
            acc[r][0] = _mm256_loadu_ps(g->c + (i0 + r) * g->n + j);
            acc[r][1] = _mm256_loadu_ps(g->c + (i0 + r) * g->n + j + 8);
        }
    CHAINS(R, 0, g->split, acc)
    if (g->accumulate == 1)
        for (int r = 0; r < R; r++) {
            acc[r][0] = _mm256_add_ps(acc[r][0], _mm256_loadu_ps(g->c + (i0 + r) * g->n + j));
            acc[r][1] = _mm256_add_ps(acc[r][1], _mm256_loadu_ps(g->c + (i0 + r) * g->n + j + 8));
        }
    if (g->split < g->k) {
        CHAINS(R, g->split, g->k, acc2)
        for (int r = 0; r < R; r++) {
            acc[r][0] = _mm256_add_ps(acc[r][0], acc2[r][0]);
            acc[r][1] = _mm256_add_ps(acc[r][1], acc2[r][1]);
        }
    }
    for (int r = 0; r < R; r++) {
        _mm256_storeu_ps(g->c + (i0 + r) * g->n + j, acc[r][0]);
        _mm256_storeu_ps(g->c + (i0 + r) * g->n + j + 8, acc[r][1]);
    }
}

/* one element with the FMA instruction (the columns past the last block of 16) */
AVX2 static float element_fma(const Gemm *g, Py_ssize_t i, Py_ssize_t j) {
    __m128 acc = g->accumulate == 2 ? _mm_set_ss(g->c[i * g->n + j]) : _mm_setzero_ps(), acc2 = _mm_setzero_ps();
    const float *ai = g->a + i * g->sa_i;
    for (Py_ssize_t kk = 0; kk < g->split; kk++)
        acc = _mm_fmadd_ss(_mm_set_ss(ai[kk * g->sa_k]), _mm_set_ss(g->b[kk * g->n + j]), acc);
    if (g->accumulate == 1) acc = _mm_add_ss(acc, _mm_set_ss(g->c[i * g->n + j]));
    if (g->split < g->k) {
        for (Py_ssize_t kk = g->split; kk < g->k; kk++)
            acc2 = _mm_fmadd_ss(_mm_set_ss(ai[kk * g->sa_k]), _mm_set_ss(g->b[kk * g->n + j]), acc2);
        acc = _mm_add_ss(acc, acc2);
    }
    return _mm_cvtss_f32(acc);
}

AVX2 static void gemm_avx2(const Gemm *g) {
    Py_ssize_t n16 = g->n - g->n % 16;
    Py_ssize_t i0 = 0;
    for (; i0 + 4 <= g->m; i0 += 4)
        for (Py_ssize_t j = 0; j < n16; j += 16) block16(g, i0, j, 4);
    for (; i0 < g->m; i0++)
        for (Py_ssize_t j = 0; j < n16; j += 16) block16(g, i0, j, 1);
    for (Py_ssize_t i = 0; i < g->m; i++)
        for (Py_ssize_t j = n16; j < g->n; j++) g->c[i * g->n + j] = element_fma(g, i, j);
}

static int have_avx2_fma(void) {
    static int known = -1;
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return known;
}
#else
static int have_avx2_fma(void) { return 0; }
#endif

/* sgemm_chain(a, b, out, m, k, n, a_t, b_t, split, scalar, accumulate): out (float32[m * n], row-major)
 * = A @ B in the chained order above (accumulate 1: out's value on entry added after the first chain; 2:
 * the first chain starts from it). a: float32[m * k], A row-major (a_t false) or A's transpose row-major (a_t
 * true: A[i, kk] = a[kk * m + i]); b: float32[k * n], likewise (b_t true: B[kk, j] = b[j * k + kk]).
 * split in [1, k]: one chain when split == k. scalar: the element-by-element code even where the CPU
 * has AVX2+FMA (the tests compare both paths). out may share no byte with a or b. */
static PyObject *sgemm_chain(PyObject *self, PyObject *args) {
    PyObject *a_obj, *b_obj, *out_obj;
    Py_ssize_t m, k, n, split;
    int a_t, b_t, scalar, accumulate;
    if (!PyArg_ParseTuple(args, "OOOnnnppnpi:sgemm_chain", &a_obj, &b_obj, &out_obj, &m, &k, &n, &a_t, &b_t,
                          &split, &scalar, &accumulate))
        return NULL;
    if (accumulate < 0 || accumulate > 2) {
        PyErr_Format(PyExc_ValueError, "sgemm_chain: accumulate %d is not 0, 1 or 2", accumulate);
        return NULL;
    }
    if (m < 1 || k < 1 || n < 1 || split < 1 || split > k || m > PY_SSIZE_T_MAX / k ||
        k > PY_SSIZE_T_MAX / n || m > PY_SSIZE_T_MAX / n) {
        PyErr_Format(PyExc_ValueError, "sgemm_chain: bad sizes m=%zd k=%zd n=%zd split=%zd", m, k, n, split);
        return NULL;
    }
    Py_buffer a, b, out;
    if (get_buffer(a_obj, &a, 'f', 4, 0, "sgemm_chain a") < 0) return NULL;
    if (get_buffer(b_obj, &b, 'f', 4, 0, "sgemm_chain b") < 0) {
        PyBuffer_Release(&a);
        return NULL;
    }
    if (get_buffer(out_obj, &out, 'f', 4, 1, "sgemm_chain out") < 0) {
        PyBuffer_Release(&a);
        PyBuffer_Release(&b);
        return NULL;
    }
    PyObject *result = NULL;
    float *packed = NULL;
    if (check_length(&a, m * k, "sgemm_chain a") < 0 || check_length(&b, k * n, "sgemm_chain b") < 0 ||
        check_length(&out, m * n, "sgemm_chain out") < 0 || check_disjoint(&out, &a, "sgemm_chain out, a") < 0 ||
        check_disjoint(&out, &b, "sgemm_chain out, b") < 0)
        goto done;
    const float *bp = (const float *)b.buf;
    if (b_t) {
        packed = (float *)malloc((size_t)(k * n) * sizeof(float));
        if (packed == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    Gemm g = {(const float *)a.buf, bp, (float *)out.buf, m, k, n, a_t ? 1 : k, a_t ? m : 1, split, accumulate};
    int vector = !scalar && have_avx2_fma();
    Py_BEGIN_ALLOW_THREADS
    if (packed != NULL) {  /* B's transpose, row-major: B[kk, j] = bp[j * k + kk] */
        for (Py_ssize_t j = 0; j < n; j++)
            for (Py_ssize_t kk = 0; kk < k; kk++) packed[kk * n + j] = bp[j * k + kk];
        g.b = packed;
    }
#ifdef HAVE_X86
    if (vector)
        gemm_avx2(&g);
    else
#endif
        gemm_scalar(&g);
    Py_END_ALLOW_THREADS
    (void)vector;
    result = Py_NewRef(Py_None);
done:
    free(packed);
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    PyBuffer_Release(&out);
    return result;
}

/* MKL's AVX2 dot-product kernel (gradcli/engine/gemm_dot.py, dot_rows): out[i, j] = the dot product of
 * row i of a (m x k) and row j of w (n x k), plain float32 products and sums (no fused multiply-add): the
 * row's first `peel` products (up to a's next 16 bytes: 0 to 3) in order from +0 into lane 0, then the first
 * n - n % 4 columns in four lanes over the next (k - peel) - (k - peel) % 4 terms, (l0 + l2) + (l1 + l3),
 * the rest in eight lanes over (k - peel) - (k - peel) % 8 terms, ((l0 + l4) + (l2 + l6)) + ((l1 + l5) +
 * (l3 + l7)); then the last products one by one. Four columns at a time (independent lanes). */
#if defined(HAVE_X86) && defined(__SSE__)
/* the lanes as SSE vectors (x86-64's baseline): each lane's products and sums are the same float32 operations
 * in the same order as the scalar code below (no fused multiply-add), four lanes an instruction */
static void dot4_columns(const float *x, const float *w, Py_ssize_t k, Py_ssize_t peel, float *out,
                         Py_ssize_t cols) {
    __m128 lanes[4];
    Py_ssize_t k4 = peel + (k - peel) / 4 * 4;
    for (Py_ssize_t c = 0; c < cols; c++) {
        float s = 0.0f;
        for (Py_ssize_t kk = 0; kk < peel; kk++) s = s + x[kk] * w[c * k + kk];
        lanes[c] = _mm_set_ps(0.0f, 0.0f, 0.0f, s);
    }
    for (Py_ssize_t kk = peel; kk < k4; kk += 4) {
        const __m128 xv = _mm_loadu_ps(x + kk);
        for (Py_ssize_t c = 0; c < cols; c++)
            lanes[c] = _mm_add_ps(lanes[c], _mm_mul_ps(xv, _mm_loadu_ps(w + c * k + kk)));
    }
    for (Py_ssize_t c = 0; c < cols; c++) {
        float l[4];
        _mm_storeu_ps(l, lanes[c]);
        float r = (l[0] + l[2]) + (l[1] + l[3]);
        for (Py_ssize_t kk = k4; kk < k; kk++) r = r + x[kk] * w[c * k + kk];
        out[c] = r;
    }
}

static float dot8(const float *x, const float *y, Py_ssize_t k, Py_ssize_t peel) {
    float s = 0.0f;
    for (Py_ssize_t kk = 0; kk < peel; kk++) s = s + x[kk] * y[kk];
    __m128 lo = _mm_set_ps(0.0f, 0.0f, 0.0f, s), hi = _mm_setzero_ps();
    Py_ssize_t k8 = peel + (k - peel) / 8 * 8;
    for (Py_ssize_t kk = peel; kk < k8; kk += 8) {
        lo = _mm_add_ps(lo, _mm_mul_ps(_mm_loadu_ps(x + kk), _mm_loadu_ps(y + kk)));
        hi = _mm_add_ps(hi, _mm_mul_ps(_mm_loadu_ps(x + kk + 4), _mm_loadu_ps(y + kk + 4)));
    }
    float l[8];
    _mm_storeu_ps(l, lo);
    _mm_storeu_ps(l + 4, hi);
    float r = ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
    for (Py_ssize_t kk = k8; kk < k; kk++) r = r + x[kk] * y[kk];
    return r;
}
#else
static void dot4_columns(const float *x, const float *w, Py_ssize_t k, Py_ssize_t peel, float *out,
                         Py_ssize_t cols) {
    float lanes[4][4] = {{0.0f}};
    Py_ssize_t k4 = peel + (k - peel) / 4 * 4;
    for (Py_ssize_t c = 0; c < cols; c++)
        for (Py_ssize_t kk = 0; kk < peel; kk++) lanes[c][0] = lanes[c][0] + x[kk] * w[c * k + kk];
    for (Py_ssize_t kk = peel; kk < k4; kk += 4)
        for (Py_ssize_t c = 0; c < cols; c++) {
            const float *y = w + c * k + kk;
            for (int l = 0; l < 4; l++) lanes[c][l] = lanes[c][l] + x[kk + l] * y[l];
        }
    for (Py_ssize_t c = 0; c < cols; c++) {
        float r = (lanes[c][0] + lanes[c][2]) + (lanes[c][1] + lanes[c][3]);
        for (Py_ssize_t kk = k4; kk < k; kk++) r = r + x[kk] * w[c * k + kk];
        out[c] = r;
    }
}

static float dot8(const float *x, const float *y, Py_ssize_t k, Py_ssize_t peel) {
    float l[8] = {0.0f};
    for (Py_ssize_t kk = 0; kk < peel; kk++) l[0] = l[0] + x[kk] * y[kk];
    Py_ssize_t k8 = peel + (k - peel) / 8 * 8;
    for (Py_ssize_t kk = peel; kk < k8; kk += 8)
        for (int j = 0; j < 8; j++) l[j] = l[j] + x[kk + j] * y[kk + j];
    float r = ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
    for (Py_ssize_t kk = k8; kk < k; kk++) r = r + x[kk] * y[kk];
    return r;
}
#endif

/* rows r0..m-1 of the order above: out[i, j] for a (m x k) whose first element lies `first` floats past 16
 * bytes (row i's peel: the floats from (first + i * k) % 4 to the next 16 bytes) */
static void dot_kernel(const float *ap, const float *wp, float *op, Py_ssize_t r0, Py_ssize_t m, Py_ssize_t k,
                       Py_ssize_t n, Py_ssize_t first) {
    Py_ssize_t n4 = n - n % 4;
    for (Py_ssize_t i = r0; i < m; i++) {
        Py_ssize_t peel = (4 - (first + i % 4 * (k % 4)) % 4) % 4;
        if (peel > k) peel = k;
        for (Py_ssize_t j = 0; j < n4; j += 4) dot4_columns(ap + i * k, wp + j * k, k, peel, op + i * n + j, 4);
        for (Py_ssize_t j = n4; j < n; j++) op[i * n + j] = dot8(ap + i * k, wp + j * k, k, peel);
    }
}

/* the output's shape (m, n) as a tuple, the last SHAPES kept (a training loop asks for the same few shapes, one a layer:
 * Py_BuildValue cost about a thousand instructions a call); a borrowed reference, NULL with an error set */
#define SHAPES 8
static PyObject *shapes[SHAPES];
static Py_ssize_t shape_m[SHAPES], shape_n[SHAPES];
static int shape_next = 0;
static PyObject *out_shape(Py_ssize_t m, Py_ssize_t n) {
    for (int s = 0; s < SHAPES; s++)
        if (shapes[s] != NULL && shape_m[s] == m && shape_n[s] == n) return shapes[s];
    PyObject *shape = PyTuple_New(2), *pm = PyLong_FromSsize_t(m), *pn = PyLong_FromSsize_t(n);
    if (shape == NULL || pm == NULL || pn == NULL) {
        Py_XDECREF(shape);
        Py_XDECREF(pm);
        Py_XDECREF(pn);
        return NULL;
    }
    PyTuple_SET_ITEM(shape, 0, pm);
    PyTuple_SET_ITEM(shape, 1, pn);
    const int s = shape_next;
    shape_next = (shape_next + 1) % SHAPES;
    Py_XSETREF(shapes[s], shape);
    shape_m[s] = m;
    shape_n[s] = n;
    return shape;
}

/* out's rows r0..m-1 += c (c: n floats, every row's, or m x n) */
static void add_c(float *out, const float *c, int c_rows, Py_ssize_t r0, Py_ssize_t m, Py_ssize_t n) {
    for (Py_ssize_t i = r0; i < m; i++) {
        const float *ci = c_rows ? c + i * n : c;
        for (Py_ssize_t j = 0; j < n; j++) out[i * n + j] = out[i * n + j] + ci[j];
    }
}

/* dot_kernel's order, vectorised across the output's columns instead of along k (SSE, x86-64's baseline): each
 * lane holds one column's lane of the order above, so every output element gets the same float32 products and sums
 * in the same order as dot_kernel's (the reference: tests/test_gemm_auto.py compares the two over many shapes),
 * with the peel, the lanes' sum and the last products four columns an instruction, and c (n floats, every row's,
 * or m x n; NULL for none) added to each element after its product, as add_c adds it. For short rows (k below
 * COLUMNS_MAX_K), where dot_kernel's per-column set-up and lane sums cost more than the products. wt: k * np
 * floats of scratch, np = n rounded up to a multiple of 4 (W's transpose, zero-padded). */
#define COLUMNS_MAX_K 32
#if defined(HAVE_X86) && defined(__SSE__)
#define HAVE_COLUMNS 1
/* acc + x[kk] * (the four columns' w[kk]): one term of four columns' lanes (wt's rows are 16-byte aligned) */
#define TERM(acc, kk) _mm_add_ps((acc), _mm_mul_ps(_mm_set1_ps(x[kk]), _mm_load_ps(w + (kk) * np)))

static inline __attribute__((always_inline)) void columns_body(
    const float *ap, const float *wp, float *op, const float *cp, int c_rows, Py_ssize_t r0, Py_ssize_t m,
    Py_ssize_t k, Py_ssize_t n, Py_ssize_t first, float *wt) {
    const Py_ssize_t n4 = n - n % 4, np = (n + 3) / 4 * 4;
    for (Py_ssize_t j = n; j < np; j++)  /* the padding columns: zeros (their lanes are never stored) */
        for (Py_ssize_t kk = 0; kk < k; kk++) wt[kk * np + j] = 0.0f;
    for (Py_ssize_t j = 0; j < n; j++) {
        const float *wj = wp + j * k;
        for (Py_ssize_t kk = 0; kk < k; kk++) wt[kk * np + j] = wj[kk];
    }
    /* a row's peel and its lanes' ends depend only on i % 4 */
    Py_ssize_t peels[4], k4s[4], k8s[4];
    for (int q = 0; q < 4; q++) {
        Py_ssize_t peel = (4 - (first + q * (k % 4)) % 4) % 4;
        if (peel > k) peel = k;
        peels[q] = peel;
        k4s[q] = peel + (k - peel) / 4 * 4;
        k8s[q] = peel + (k - peel) / 8 * 8;
    }
    const __m128 zero = _mm_setzero_ps();
    for (Py_ssize_t i = r0; i < m; i++) {
        const int q = (int)(i & 3);
        const Py_ssize_t peel = peels[q], k4 = k4s[q], k8 = k8s[q];
        const float *x = ap + i * k, *ci = cp == NULL ? NULL : c_rows ? cp + i * n : cp;
        float *oi = op + i * n;
        for (Py_ssize_t j = 0; j < n4; j += 4) {  /* four lanes a column */
            const float *w = wt + j;
            __m128 l0 = zero, l1 = zero, l2 = zero, l3 = zero;
            for (Py_ssize_t kk = 0; kk < peel; kk++) l0 = TERM(l0, kk);
            for (Py_ssize_t kk = peel; kk < k4; kk += 4) {
                l0 = TERM(l0, kk);
                l1 = TERM(l1, kk + 1);
                l2 = TERM(l2, kk + 2);
                l3 = TERM(l3, kk + 3);
            }
            __m128 r = _mm_add_ps(_mm_add_ps(l0, l2), _mm_add_ps(l1, l3));
            for (Py_ssize_t kk = k4; kk < k; kk++) r = TERM(r, kk);
            if (ci != NULL) r = _mm_add_ps(r, _mm_loadu_ps(ci + j));
            _mm_storeu_ps(oi + j, r);
        }
        if (n4 < n) {  /* the last n % 4 columns: eight lanes a column (the padded lanes are not stored) */
            const float *w = wt + n4;
            __m128 l0 = zero, l1 = zero, l2 = zero, l3 = zero, l4 = zero, l5 = zero, l6 = zero, l7 = zero;
            for (Py_ssize_t kk = 0; kk < peel; kk++) l0 = TERM(l0, kk);
            for (Py_ssize_t kk = peel; kk < k8; kk += 8) {
                l0 = TERM(l0, kk);
                l1 = TERM(l1, kk + 1);
                l2 = TERM(l2, kk + 2);
                l3 = TERM(l3, kk + 3);
                l4 = TERM(l4, kk + 4);
                l5 = TERM(l5, kk + 5);
                l6 = TERM(l6, kk + 6);
                l7 = TERM(l7, kk + 7);
            }
            __m128 r = _mm_add_ps(_mm_add_ps(_mm_add_ps(l0, l4), _mm_add_ps(l2, l6)),
                                  _mm_add_ps(_mm_add_ps(l1, l5), _mm_add_ps(l3, l7)));
            for (Py_ssize_t kk = k8; kk < k; kk++) r = TERM(r, kk);
            float rest[4];
            _mm_storeu_ps(rest, r);
            for (Py_ssize_t j = n4; j < n; j++) oi[j] = ci != NULL ? rest[j - n4] + ci[j] : rest[j - n4];
        }
    }
}
#undef TERM

static void columns_sse(const float *ap, const float *wp, float *op, const float *cp, int c_rows, Py_ssize_t r0,
                        Py_ssize_t m, Py_ssize_t k, Py_ssize_t n, Py_ssize_t first, float *wt) {
    columns_body(ap, wp, op, cp, c_rows, r0, m, k, n, first, wt);
}

/* the same code with AVX's encodings (a broadcast load, unaligned memory operands): fewer instructions, the same
 * operations (no fused multiply-add: -ffp-contract=off) */
AVX2 static void columns_avx(const float *ap, const float *wp, float *op, const float *cp, int c_rows, Py_ssize_t r0,
                             Py_ssize_t m, Py_ssize_t k, Py_ssize_t n, Py_ssize_t first, float *wt) {
    columns_body(ap, wp, op, cp, c_rows, r0, m, k, n, first, wt);
}
#endif

/* rows r0..m-1 of dot_kernel's order, then + c (add_c): the column kernel where it applies (k below COLUMNS_MAX_K and
 * its scratch at hand), else dot_kernel's. path (for the tests, which compare them): PATH_BEST, PATH_REFERENCE
 * (dot_kernel's always) or PATH_SSE (the column kernel without AVX's encodings where it applies) */
enum { PATH_BEST, PATH_REFERENCE, PATH_SSE };
static void dot_rows(const float *ap, const float *wp, float *op, const float *cp, int c_rows, Py_ssize_t r0,
                     Py_ssize_t m, Py_ssize_t k, Py_ssize_t n, Py_ssize_t first, int path) {
#ifdef HAVE_COLUMNS
    if (path != PATH_REFERENCE && k < COLUMNS_MAX_K && r0 < m) {
        float stack[COLUMNS_MAX_K * 64] __attribute__((aligned(16))), *wt = stack;
        const Py_ssize_t np = (n + 3) / 4 * 4;
        if (k * np > (Py_ssize_t)(sizeof stack / sizeof stack[0]))  /* (malloc's blocks are 16-byte aligned here) */
            wt = (float *)malloc((size_t)(k * np) * sizeof(float));
        if (wt != NULL) {
            if (path == PATH_BEST && have_avx2_fma())
                columns_avx(ap, wp, op, cp, c_rows, r0, m, k, n, first, wt);
            else
                columns_sse(ap, wp, op, cp, c_rows, r0, m, k, n, first, wt);
            if (wt != stack) free(wt);
            return;
        }
    }
#endif
    (void)path;
    dot_kernel(ap, wp, op, r0, m, k, n, first);
    if (cp != NULL) add_c(op, cp, c_rows, r0, m, n);
}

/* sgemm_dot(a, w, out, m, k, n, first=0, path=0): out (float32[m * n]) = a (float32[m * k], row-major) @ w
 * (float32[n * k], row-major).T in the order above, where a's first element lies `first` floats (0 to 3) past
 * 16 bytes (row i: (first + i * k) % 4, its peel the floats to the next 16 bytes). out may share no byte with
 * a or w. path: which code computes it (dot_rows: 0 the fastest, 1 dot_kernel's, 2 the columns' without AVX;
 * the same bits, the tests compare them). */
static PyObject *sgemm_dot(PyObject *self, PyObject *args) {
    PyObject *a_obj, *w_obj, *out_obj;
    Py_ssize_t m, k, n, first = 0;
    int path = PATH_BEST;
    if (!PyArg_ParseTuple(args, "OOOnnn|ni:sgemm_dot", &a_obj, &w_obj, &out_obj, &m, &k, &n, &first, &path))
        return NULL;
    if (m < 1 || k < 1 || n < 1 || first < 0 || first > 3 || m > PY_SSIZE_T_MAX / k || k > PY_SSIZE_T_MAX / n ||
        m > PY_SSIZE_T_MAX / n) {
        PyErr_Format(PyExc_ValueError, "sgemm_dot: bad sizes m=%zd k=%zd n=%zd first=%zd", m, k, n, first);
        return NULL;
    }
    if (path < PATH_BEST || path > PATH_SSE) {
        PyErr_Format(PyExc_ValueError, "sgemm_dot: path %d is not 0, 1 or 2", path);
        return NULL;
    }
    Py_buffer a, w, out;
    if (get_buffer(a_obj, &a, 'f', 4, 0, "sgemm_dot a") < 0) return NULL;
    if (get_buffer(w_obj, &w, 'f', 4, 0, "sgemm_dot w") < 0) {
        PyBuffer_Release(&a);
        return NULL;
    }
    if (get_buffer(out_obj, &out, 'f', 4, 1, "sgemm_dot out") < 0) {
        PyBuffer_Release(&a);
        PyBuffer_Release(&w);
        return NULL;
    }
    PyObject *result = NULL;
    if (check_length(&a, m * k, "sgemm_dot a") < 0 || check_length(&w, k * n, "sgemm_dot w") < 0 ||
        check_length(&out, m * n, "sgemm_dot out") < 0 || check_disjoint(&out, &a, "sgemm_dot out, a") < 0 ||
        check_disjoint(&out, &w, "sgemm_dot out, w") < 0)
        goto done;
    const float *ap = (const float *)a.buf, *wp = (const float *)w.buf;
    float *op = (float *)out.buf;
    Py_BEGIN_ALLOW_THREADS
    dot_rows(ap, wp, op, NULL, 0, 0, m, k, n, first, path);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&a);
    PyBuffer_Release(&w);
    PyBuffer_Release(&out);
    return result;
}

/* ---- sgemm_auto: gemm_avx2.gemm's decision and product in one call, for the layouts a Linear layer's forward
 * has (a row-major, b a transposed row-major matrix: input @ weight.t()). */

#define AUTO_MIN_COLUMNS 12         /* gemm_avx2.MIN_COLUMNS */
#define AUTO_CHAIN_WORK (1 << 24)   /* gemm_avx2.MAX_WORK_NATIVE */
#define AUTO_DOT_WORK (1 << 23)     /* gemm_dot.MAX_WORK_NATIVE: takes()' limit for the narrow products */
#define AUTO_TAKES_WORK (1 << 20)   /* gemm_dot.MAX_WORK: takes()' default limit (the rows past the groups) */

static PyObject *nd_type = NULL, *np_empty = NULL, *f32_dtype = NULL, *str_base = NULL;

static int auto_setup(void) {
    PyObject *np = PyImport_ImportModule("numpy");
    if (np == NULL) return -1;
    nd_type = PyObject_GetAttrString(np, "ndarray");
    np_empty = PyObject_GetAttrString(np, "empty");
    f32_dtype = PyObject_CallMethod(np, "dtype", "s", "float32");
    str_base = PyUnicode_InternFromString("base");
    Py_DECREF(np);
    if (nd_type == NULL || np_empty == NULL || f32_dtype == NULL || str_base == NULL || !PyType_Check(nd_type)) {
        Py_CLEAR(nd_type);
        Py_CLEAR(np_empty);
        Py_CLEAR(f32_dtype);
        Py_CLEAR(str_base);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "sgemm_auto: numpy.ndarray is not a type");
        return -1;
    }
    return 0;
}

/* x's buffer when x is a NumPy array (that very class) of native float32 and `ndim` dims (1 or 2 for ndim 0):
 * 0 (the caller releases), else -1 (no error set, nothing held) */
static int float32_array(PyObject *x, Py_buffer *v, int ndim) {
    if (Py_TYPE(x) != (PyTypeObject *)nd_type) return -1;
    const int known = known_kind(x) == 'f';  /* then no format string (native_buffer.h) */
    if (PyObject_GetBuffer(x, v, known ? PyBUF_STRIDES : PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return -1;
    }
    if ((ndim ? v->ndim != ndim : (v->ndim != 1 && v->ndim != 2)) ||
        !(known ? v->itemsize == 4 && v->len % 4 == 0 : has_format(v, 'f', 4))) {
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

/* gemm_dot.offset16(x) // 4 (x's start past 16 bytes from its outermost base array's, in floats), or -1 where
 * it is not a whole number of floats or not known here (the Python path then decides) */
static Py_ssize_t first_float(PyObject *x, const char *buf) {
    PyObject *base = PyObject_GetAttr(x, str_base);
    if (base == NULL) {
        PyErr_Clear();
        return -1;
    }
    if (base == Py_None) {  /* its own outermost array: offset 0 */
        Py_DECREF(base);
        return 0;
    }
    PyObject *root = Py_NewRef(x);
    while (PyObject_TypeCheck(base, (PyTypeObject *)nd_type)) {
        Py_SETREF(root, base);
        base = PyObject_GetAttr(root, str_base);
        if (base == NULL) {
            PyErr_Clear();
            Py_DECREF(root);
            return -1;
        }
    }
    Py_DECREF(base);
    Py_buffer r;
    int got = PyObject_GetBuffer(root, &r, PyBUF_STRIDES);  /* its address only: no format */
    Py_DECREF(root);
    if (got < 0) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t d = (Py_ssize_t)(((intptr_t)buf - (intptr_t)r.buf) % 16 + 16) % 16;
    PyBuffer_Release(&r);
    return d % 4 ? -1 : d / 4;
}

/* sgemm_auto(a, b, c): what gemm_avx2.gemm(a, b, c) (beta 1, alpha 1) answers, decided and computed in one
 * call, where a is a row-major and b a transposed row-major float32 matrix (F.linear's input @ weight.t()),
 * m, k, n >= 2, and c is None, a float32 (n,) with unit stride or a row-major float32 (m, n): MKL's
 * dot-product kernel's order (n < 12 or m < 4; sgemm_dot) or the chains (sgemm_chain; with the rows past the
 * last group of four in the dot-product order where gemm_avx2.sgemm puts them there), plus c as MKL's C. A new
 * float32 (m, n) array, or None for anything else: NumPy's product by the same rules (a shape outside
 * the measured domain, past the work limits) or a case only gemm_avx2.gemm decides (other layouts, dtypes,
 * shapes of c, an offset this call does not read): the caller then runs gemm_avx2.gemm's own code, which
 * answers the same for what this computes (tests/test_gemm_avx2.py compares them). */
static PyObject *sgemm_auto(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "sgemm_auto(a, b, c) takes 3 arguments");
        return NULL;
    }
    if (nd_type == NULL && auto_setup() < 0) return NULL;
    PyObject *c_obj = args[2], *result = NULL;
    Py_buffer a, b, c;
    if (float32_array(args[0], &a, 2) < 0) Py_RETURN_NONE;
    if (float32_array(args[1], &b, 2) < 0) {
        PyBuffer_Release(&a);
        Py_RETURN_NONE;
    }
    int have_c = c_obj != Py_None;
    if (have_c && float32_array(c_obj, &c, 0) < 0) {
        PyBuffer_Release(&a);
        PyBuffer_Release(&b);
        Py_RETURN_NONE;
    }
    const Py_ssize_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
    int c_rows = have_c && c.ndim == 2;
    if (m < 2 || k < 2 || n < 2 || b.shape[0] != k || a.strides[0] != 4 * k || a.strides[1] != 4 ||
        b.strides[0] != 4 || b.strides[1] != 4 * k ||
        (have_c && (c_rows ? c.shape[0] != m || c.shape[1] != n || c.strides[0] != 4 * n || c.strides[1] != 4
                           : c.shape[0] != n || c.strides[0] != 4)))
        goto decline;
    const double work = (double)m * (double)n * (double)k;
    const int narrow = n < AUTO_MIN_COLUMNS || m < 4;
    Py_ssize_t split = k, first = 0;
    int mixed = 0;
    if (narrow) {
        if (work > AUTO_DOT_WORK) goto decline;
    } else {
        if (k > 384 || (k > 192 && k % 2)) goto decline;
        if (k > 192) split = k / 2;
        mixed = m % 4 && m < 12 && !((k <= 16 && n <= 16) || (k <= 4 && n <= 100));
        if (work > (mixed ? AUTO_TAKES_WORK : AUTO_CHAIN_WORK)) goto decline;
    }
    if ((narrow || mixed) && (first = first_float(args[0], (const char *)a.buf)) < 0) goto decline;
    {
        PyObject *shape = out_shape(m, n);
        if (shape == NULL) goto done;
        PyObject *call[2] = {shape, f32_dtype};
        PyObject *out_obj = PyObject_Vectorcall(np_empty, call, 2, NULL);
        if (out_obj == NULL) goto done;
        Py_buffer out;
        if (get_buffer(out_obj, &out, 'f', 4, 1, "sgemm_auto out") < 0) {
            Py_DECREF(out_obj);
            goto done;
        }
        if (check_length(&out, m * n, "sgemm_auto out") < 0) {
            PyBuffer_Release(&out);
            Py_DECREF(out_obj);
            goto done;
        }
        const float *ap = (const float *)a.buf, *bp = (const float *)b.buf, *cp = have_c ? (const float *)c.buf : NULL;
        float *op = (float *)out.buf, *packed = NULL;
        if (!narrow) {
            packed = (float *)malloc((size_t)(k * n) * sizeof(float));
            if (packed == NULL) {
                PyBuffer_Release(&out);
                Py_DECREF(out_obj);
                PyErr_NoMemory();
                goto done;
            }
        }
        const int release = work > (1 << 16);
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        if (narrow) {
            dot_rows(ap, bp, op, cp, c_rows, 0, m, k, n, first, PATH_BEST);
        } else {
            if (have_c)  /* MKL's C, added after the first chain */
                for (Py_ssize_t i = 0; i < m; i++) memcpy(op + i * n, c_rows ? cp + i * n : cp, (size_t)n * sizeof(float));
            for (Py_ssize_t j = 0; j < n; j++)  /* B[kk, j] = bp[j * k + kk], row-major */
                for (Py_ssize_t kk = 0; kk < k; kk++) packed[kk * n + j] = bp[j * k + kk];
            Gemm g = {ap, packed, op, m, k, n, k, 1, split, have_c ? 1 : 0};
#ifdef HAVE_X86
            if (have_avx2_fma())
                gemm_avx2(&g);
            else
#endif
                gemm_scalar(&g);
            if (mixed) {  /* the rows past the last group of four: the dot-product kernel's, then + C */
                Py_ssize_t m4 = m - m % 4;
                dot_rows(ap, bp, op, cp, c_rows, m4, m, k, n, first, PATH_BEST);
            }
        }
        if (release) PyEval_RestoreThread(ts);
        free(packed);
        PyBuffer_Release(&out);
        result = out_obj;
    }
    goto done;
decline:
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    if (have_c) PyBuffer_Release(&c);
    return result;
}

/* the limits sgemm_auto decides by, for the tests to compare with gemm_avx2's and gemm_dot's */
static PyObject *auto_limits(PyObject *self, PyObject *noargs) {
    return Py_BuildValue("{s:i,s:i,s:i,s:i}", "MIN_COLUMNS", AUTO_MIN_COLUMNS, "MAX_WORK_NATIVE", AUTO_CHAIN_WORK,
                         "DOT_MAX_WORK_NATIVE", AUTO_DOT_WORK, "DOT_MAX_WORK", AUTO_TAKES_WORK);
}

static PyObject *vector_path(PyObject *self, PyObject *noargs) {
    return PyUnicode_FromString(have_avx2_fma() ? "avx2" : "scalar");
}

static PyMethodDef methods[] = {
    {"sgemm_chain", sgemm_chain, METH_VARARGS, "a float32 product in MKL's AVX2 chained order."},
    {"sgemm_dot", sgemm_dot, METH_VARARGS, "a narrow float32 product in MKL's AVX2 dot-product kernel's order."},
    {"sgemm_auto", (PyCFunction)(void (*)(void))sgemm_auto, METH_FASTCALL,
     "gemm_avx2.gemm(a, b, c) of a Linear layer's layouts in one call, or None (its Python code decides)."},
    {"auto_limits", auto_limits, METH_NOARGS, "the limits sgemm_auto decides by."},
    {"vector_path", vector_path, METH_NOARGS, "which code sgemm_chain runs on this CPU: avx2 or scalar."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "gradcli._native_gemm", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_gemm(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
