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

/* sgemm_dot(a, w, out, m, k, n, first=0): out (float32[m * n]) = a (float32[m * k], row-major) @ w
 * (float32[n * k], row-major).T in the order above, where a's first element lies `first` floats (0 to 3) past
 * 16 bytes (row i: (first + i * k) % 4, its peel the floats to the next 16 bytes). out may share no byte with
 * a or w. */
static PyObject *sgemm_dot(PyObject *self, PyObject *args) {
    PyObject *a_obj, *w_obj, *out_obj;
    Py_ssize_t m, k, n, first = 0;
    if (!PyArg_ParseTuple(args, "OOOnnn|n:sgemm_dot", &a_obj, &w_obj, &out_obj, &m, &k, &n, &first)) return NULL;
    if (m < 1 || k < 1 || n < 1 || first < 0 || first > 3 || m > PY_SSIZE_T_MAX / k || k > PY_SSIZE_T_MAX / n ||
        m > PY_SSIZE_T_MAX / n) {
        PyErr_Format(PyExc_ValueError, "sgemm_dot: bad sizes m=%zd k=%zd n=%zd first=%zd", m, k, n, first);
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
    Py_ssize_t n4 = n - n % 4;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t peel = (4 - (first + i % 4 * (k % 4)) % 4) % 4;
        if (peel > k) peel = k;
        for (Py_ssize_t j = 0; j < n4; j += 4) dot4_columns(ap + i * k, wp + j * k, k, peel, op + i * n + j, 4);
        for (Py_ssize_t j = n4; j < n; j++) op[i * n + j] = dot8(ap + i * k, wp + j * k, k, peel);
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&a);
    PyBuffer_Release(&w);
    PyBuffer_Release(&out);
    return result;
}

static PyObject *vector_path(PyObject *self, PyObject *noargs) {
    return PyUnicode_FromString(have_avx2_fma() ? "avx2" : "scalar");
}

static PyMethodDef methods[] = {
    {"sgemm_chain", sgemm_chain, METH_VARARGS, "a float32 product in MKL's AVX2 chained order."},
    {"sgemm_dot", sgemm_dot, METH_VARARGS, "a narrow float32 product in MKL's AVX2 dot-product kernel's order."},
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
