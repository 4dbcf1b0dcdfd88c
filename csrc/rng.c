/* gradcli._native_rng: PyTorch's CPU random kernels where NumPy passes are too slow, bit for bit with
 * their NumPy references in gradcli/engine (tests/test_native.py, tests/test_rng_kernels.py and
 * tools/check_rng_math.py compare them).
 *
 * randperm_swaps: randperm's swap loop (rng_factory.randperm_swaps).
 * normal_fill_f32: the float32 Box-Muller of ATen's normal_fill (16-value blocks), per CPU capability:
 *   - fused (AVX2/AVX512 builds of torch: normal_fill_16_AVX2 with avx_mathfun.h's log256_ps and
 *     sincos256_ps, fused multiply-adds where gcc contracts them there, exactly where
 *     gradcli/engine/rng_math.py's reference log256/sincos256 call _fm): AVX2+FMA intrinsics where the
 *     CPU has them, else the same arithmetic lane by lane with fmaf (an emulated capability);
 *   - default (torch's DEFAULT build: the C library's logf, sinf, cosf per element, as
 *     rng_math._box_muller's DEFAULT branch calls them through rng_libm).
 * uniform_f32: uniform_'s float32 kernel (rng_math.uniform_transform and uniform_'s `to` -> `from`).
 * Built with -ffp-contract=off: every fused multiply-add below is written as one. */
#include "native_buffer.h"

#include <math.h>
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

/* randperm_swaps(perm: int64[n], targets: int64[m]) with m < n: for i in 0..m-1, swap perm[i] and
 * perm[targets[i]], in order; each target must lie in [i, n) (ValueError otherwise, before any swap). */
static PyObject *randperm_swaps(PyObject *self, PyObject *args) {
    PyObject *perm_obj, *targets_obj;
    Py_buffer perm, targets;
    if (!PyArg_ParseTuple(args, "OO:randperm_swaps", &perm_obj, &targets_obj)) return NULL;
    if (get_buffer(perm_obj, &perm, 'q', 8, 1, "randperm_swaps perm") < 0) return NULL;
    if (get_buffer(targets_obj, &targets, 'q', 8, 0, "randperm_swaps targets") < 0) {
        PyBuffer_Release(&perm);
        return NULL;
    }
    Py_ssize_t n = items(&perm), m = items(&targets);
    int64_t *p = (int64_t *)perm.buf;
    const int64_t *t = (const int64_t *)targets.buf;
    PyObject *result = NULL;
    if (check_disjoint(&perm, &targets, "randperm_swaps") < 0) goto done;
    if (m >= n && !(m == 0 && n == 0)) {
        PyErr_Format(PyExc_ValueError, "randperm_swaps: %zd targets for %zd values", m, n);
        goto done;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        if (t[i] < (int64_t)i || t[i] >= (int64_t)n) {
            PyErr_Format(PyExc_ValueError, "randperm_swaps: target %lld at %zd outside [%zd, %zd)",
                         (long long)t[i], i, i, n);
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < m; i++) {
        int64_t j = t[i], v = p[i];
        p[i] = p[j];
        p[j] = v;
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&perm);
    PyBuffer_Release(&targets);
    return result;
}

/* ------------------------------------------------------------------ normal_fill_f32 */

/* avx_mathfun.h's Cephes constants (float32) */
#define LOG_P0 7.0376836292E-2f
#define LOG_P1 -1.1514610310E-1f
#define LOG_P2 1.1676998740E-1f
#define LOG_P3 -1.2420140846E-1f
#define LOG_P4 1.4249322787E-1f
#define LOG_P5 -1.6668057665E-1f
#define LOG_P6 2.0000714765E-1f
#define LOG_P7 -2.4999993993E-1f
#define LOG_P8 3.3333331174E-1f
#define LOG_Q1 -2.12194440e-4f
#define LOG_Q2 0.693359375f
#define SQRTHF 0.707106781186547524f
#define FOPI 1.27323954473516f
#define DP1 -0.78515625f
#define DP2 -2.4187564849853515625e-4f
#define DP3 -3.77489497744594108e-8f
#define SIN_P0 -1.9515295891E-4f
#define SIN_P1 8.3321608736E-3f
#define SIN_P2 -1.6666654611E-1f
#define COS_P0 2.443315711809948E-005f
#define COS_P1 -1.388731625493765E-003f
#define COS_P2 4.166664568298827E-002f
#define TWO_PI_F 6.28318530717958647692f /* float32(2 pi), as the kernel's constant */
#define TWO_M24 5.9604644775390625e-08f  /* 2**-24 */

static inline float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* log256_ps, one lane (rng_math.log256), for u in [2**-24, 1] */
static inline float log256_lane(float x) {
    if (x < 1.17549435e-38f) x = 1.17549435e-38f;
    int32_t bits = (int32_t)u_of(x);
    float e = (float)((bits >> 23) - 0x7F) + 1.0f;
    x = f_of(((uint32_t)bits & ~0x7F800000u) | 0x3F000000u);
    int mask = x < SQRTHF;
    float tmp = mask ? x : 0.0f;
    x = x - 1.0f;
    e = e - (mask ? 1.0f : 0.0f);
    x = x + tmp;
    float z = x * x;
    float y = fmaf(LOG_P0, x, LOG_P1);
    y = fmaf(y, x, LOG_P2);
    y = fmaf(y, x, LOG_P3);
    y = fmaf(y, x, LOG_P4);
    y = fmaf(y, x, LOG_P5);
    y = fmaf(y, x, LOG_P6);
    y = fmaf(y, x, LOG_P7);
    y = fmaf(y, x, LOG_P8);
    y = y * x;
    y = fmaf(y, z, e * LOG_Q1);
    y = y - z * 0.5f;
    x = x + y;
    return fmaf(e, LOG_Q2, x);
}

/* sincos256_ps, one lane (rng_math.sincos256), for x >= 0 */
static inline void sincos256_lane(float x, float *s_out, float *c_out) {
    float y = x * FOPI;
    int32_t j = (int32_t)y;
    j = (j + 1) & ~1;
    y = (float)j;
    int sin_neg = (j & 4) != 0, poly = (j & 2) == 0, cos_neg = (~(j - 2) & 4) != 0;
    x = fmaf(y, DP1, x);
    x = fmaf(y, DP2, x);
    x = fmaf(y, DP3, x);
    float z = x * x;
    float c = fmaf(COS_P0, z, COS_P1);
    c = fmaf(c, z, COS_P2);
    c = c * z;
    c = fmaf(c, z, -(z * 0.5f));
    c = c + 1.0f;
    float s = fmaf(SIN_P0, z, SIN_P1);
    s = fmaf(s, z, SIN_P2);
    s = s * z;
    s = fmaf(s, x, x);
    float sn = poly ? s : c, cs = poly ? c : s;
    *s_out = sin_neg ? -sn : sn;
    *c_out = cos_neg ? -cs : cs;
}

/* word i of the block's logical order: the words come as uint32 with each pair's two words in the
 * other order when swapped (the halves of 64-bit draws: rng_ops.words24_pairs) */
#define WORD(w, i, swapped) ((w)[(i) ^ (swapped)] & 0xFFFFFFu)

static void fill_fused_scalar(const uint32_t *w, float *out, Py_ssize_t n, float mean, float std, int swapped) {
    for (Py_ssize_t b = 0; b < n; b += 16) {
        for (int l = 0; l < 8; l++) {
            float u1 = 1.0f - (float)WORD(w, b + l, swapped) * TWO_M24;
            float u2 = (float)WORD(w, b + 8 + l, swapped) * TWO_M24;
            float radius = sqrtf(-2.0f * log256_lane(u1));
            float s, c;
            sincos256_lane(TWO_PI_F * u2, &s, &c);
            out[b + l] = fmaf(radius * c, std, mean);
            out[b + 8 + l] = fmaf(radius * s, std, mean);
        }
    }
}

static void fill_default(const uint32_t *w, float *out, Py_ssize_t n, float mean, float std, int swapped) {
    for (Py_ssize_t b = 0; b < n; b += 16) {
        for (int l = 0; l < 8; l++) {
            float u1 = 1.0f - (float)WORD(w, b + l, swapped) * TWO_M24;
            float u2 = (float)WORD(w, b + 8 + l, swapped) * TWO_M24;
            float radius = sqrtf(logf(u1) * -2.0f);
            float theta = (float)((double)u2 * (2.0 * 3.14159265358979323846));
            /* fma(v, std, mean): what the reference computes for every std (a sum alone for 1, an
             * exact product and a sum for a power of two, else the fused form) */
            out[b + l] = fmaf(radius * cosf(theta), std, mean);
            out[b + 8 + l] = fmaf(radius * sinf(theta), std, mean);
        }
    }
}

#ifdef HAVE_X86
#define AVX2 __attribute__((target("avx2,fma")))

AVX2 static inline __m256 log256_avx2(__m256 x) {
    const __m256 one = _mm256_set1_ps(1.0f);
    x = _mm256_max_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x00800000)));
    __m256i imm0 = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
    x = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(~0x7F800000)));
    x = _mm256_or_ps(x, _mm256_set1_ps(0.5f));
    imm0 = _mm256_sub_epi32(imm0, _mm256_set1_epi32(0x7F));
    __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(imm0), one);
    __m256 mask = _mm256_cmp_ps(x, _mm256_set1_ps(SQRTHF), _CMP_LT_OS);
    __m256 tmp = _mm256_and_ps(x, mask);
    x = _mm256_sub_ps(x, one);
    e = _mm256_sub_ps(e, _mm256_and_ps(one, mask));
    x = _mm256_add_ps(x, tmp);
    __m256 z = _mm256_mul_ps(x, x);
    __m256 y = _mm256_fmadd_ps(_mm256_set1_ps(LOG_P0), x, _mm256_set1_ps(LOG_P1));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(LOG_P2));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(LOG_P3));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(LOG_P4));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(LOG_P5));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(LOG_P6));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(LOG_P7));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(LOG_P8));
    y = _mm256_mul_ps(y, x);
    y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, _mm256_set1_ps(LOG_Q1)));
    y = _mm256_sub_ps(y, _mm256_mul_ps(z, _mm256_set1_ps(0.5f)));
    x = _mm256_add_ps(x, y);
    return _mm256_fmadd_ps(e, _mm256_set1_ps(LOG_Q2), x);
}

AVX2 static inline void sincos256_avx2(__m256 x, __m256 *s_out, __m256 *c_out) {
    __m256 y = _mm256_mul_ps(x, _mm256_set1_ps(FOPI));
    __m256i j = _mm256_cvttps_epi32(y);
    j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
    y = _mm256_cvtepi32_ps(j);
    __m256i four = _mm256_set1_epi32(4), two = _mm256_set1_epi32(2);
    __m256 sin_sign = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, four), 29));
    __m256 poly = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, two), _mm256_setzero_si256()));
    __m256 cos_sign = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_andnot_si256(_mm256_sub_epi32(j, two), four), 29));
    x = _mm256_fmadd_ps(y, _mm256_set1_ps(DP1), x);
    x = _mm256_fmadd_ps(y, _mm256_set1_ps(DP2), x);
    x = _mm256_fmadd_ps(y, _mm256_set1_ps(DP3), x);
    __m256 z = _mm256_mul_ps(x, x);
    __m256 c = _mm256_fmadd_ps(_mm256_set1_ps(COS_P0), z, _mm256_set1_ps(COS_P1));
    c = _mm256_fmadd_ps(c, z, _mm256_set1_ps(COS_P2));
    c = _mm256_mul_ps(c, z);
    c = _mm256_fmsub_ps(c, z, _mm256_mul_ps(z, _mm256_set1_ps(0.5f)));
    c = _mm256_add_ps(c, _mm256_set1_ps(1.0f));
    __m256 s = _mm256_fmadd_ps(_mm256_set1_ps(SIN_P0), z, _mm256_set1_ps(SIN_P1));
    s = _mm256_fmadd_ps(s, z, _mm256_set1_ps(SIN_P2));
    s = _mm256_mul_ps(s, z);
    s = _mm256_fmadd_ps(s, x, x);
    __m256 sn = _mm256_blendv_ps(c, s, poly), cs = _mm256_blendv_ps(s, c, poly);
    *s_out = _mm256_xor_ps(sn, sin_sign);
    *c_out = _mm256_xor_ps(cs, cos_sign);
}

AVX2 static void fill_fused_avx2(const uint32_t *w, float *out, Py_ssize_t n, float mean, float std, int swapped) {
    const __m256i low24 = _mm256_set1_epi32(0xFFFFFF);
    const __m256 m24 = _mm256_set1_ps(TWO_M24), one = _mm256_set1_ps(1.0f), two_pi = _mm256_set1_ps(TWO_PI_F);
    const __m256 vstd = _mm256_set1_ps(std), vmean = _mm256_set1_ps(mean), m2 = _mm256_set1_ps(-2.0f);
    for (Py_ssize_t b = 0; b < n; b += 16) {
        __m256i k1 = _mm256_loadu_si256((const __m256i *)(w + b));
        __m256i k2 = _mm256_loadu_si256((const __m256i *)(w + b + 8));
        if (swapped) {  /* each pair's words in the other order */
            k1 = _mm256_shuffle_epi32(k1, 0xB1);
            k2 = _mm256_shuffle_epi32(k2, 0xB1);
        }
        __m256 u1 = _mm256_sub_ps(one, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(k1, low24)), m24));
        __m256 u2 = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(k2, low24)), m24);
        __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(m2, log256_avx2(u1)));
        __m256 s, c;
        sincos256_avx2(_mm256_mul_ps(two_pi, u2), &s, &c);
        _mm256_storeu_ps(out + b, _mm256_fmadd_ps(_mm256_mul_ps(radius, c), vstd, vmean));
        _mm256_storeu_ps(out + b + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, s), vstd, vmean));
    }
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

enum { KIND_DEFAULT = 0, KIND_FUSED = 1, KIND_FUSED_SCALAR = 2 };

/* normal_fill_f32(words: uint32[n], out: float32[n], mean, std, swapped, kind), n a multiple of 16:
 * out gets normal_fill's values of the uniforms (words & 0xFFFFFF) * 2**-24 (slots 0-7 of each block
 * r cos theta, 8-15 r sin theta, u1 = 1 - u[0:8], u2 = u[8:16]), then fma(v, std, mean). kind: 0 the
 * DEFAULT build, 1 the fused build (AVX2 where the CPU has it), 2 the fused build lane by lane. */
static PyObject *normal_fill_f32(PyObject *self, PyObject *args) {
    PyObject *w_obj, *out_obj;
    double mean, std;
    int swapped, kind;
    if (!PyArg_ParseTuple(args, "OOddpi:normal_fill_f32", &w_obj, &out_obj, &mean, &std, &swapped, &kind))
        return NULL;
    if (kind < KIND_DEFAULT || kind > KIND_FUSED_SCALAR) {
        PyErr_Format(PyExc_ValueError, "normal_fill_f32: unknown kind %d", kind);
        return NULL;
    }
    Py_buffer w, out;
    if (get_buffer(w_obj, &w, 'I', 4, 0, "normal_fill_f32 words") < 0) return NULL;
    if (get_buffer(out_obj, &out, 'f', 4, 1, "normal_fill_f32 out") < 0) {
        PyBuffer_Release(&w);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t n = items(&out);
    if (check_length(&w, n, "normal_fill_f32 words") < 0) goto done;
    if (check_disjoint(&w, &out, "normal_fill_f32") < 0) goto done;
    if (n % 16) {
        PyErr_Format(PyExc_ValueError, "normal_fill_f32: %zd values, not a multiple of 16", n);
        goto done;
    }
    const uint32_t *wp = (const uint32_t *)w.buf;
    float *op = (float *)out.buf, fm = (float)mean, fs = (float)std;
    Py_BEGIN_ALLOW_THREADS
    if (kind == KIND_DEFAULT)
        fill_default(wp, op, n, fm, fs, swapped);
#ifdef HAVE_X86
    else if (kind == KIND_FUSED && have_avx2_fma())
        fill_fused_avx2(wp, op, n, fm, fs, swapped);
#endif
    else
        fill_fused_scalar(wp, op, n, fm, fs, swapped);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&w);
    PyBuffer_Release(&out);
    return result;
}

/* fused_path(): "avx2" where kind 1 runs the AVX2 intrinsics on this CPU, else "scalar" (tests, tools) */
static PyObject *fused_path(PyObject *self, PyObject *noargs) {
    return PyUnicode_FromString(have_avx2_fma() ? "avx2" : "scalar");
}

/* ------------------------------------------------------------------ uniform_f32 */

static void uniform_loop(const uint32_t *wp, float *op, Py_ssize_t n, float width, float start, float top,
                         int swapped, int fused) {
    for (Py_ssize_t i = 0; i < n; i++) {
        float u = (float)WORD(wp, i, swapped) * TWO_M24;
        float v = fused ? fmaf(u, width, start) : u * width + start;
        op[i] = v == top ? start : v;
    }
}

#ifdef HAVE_X86
/* the same fused loop where the CPU has FMA: fmaf becomes the instruction (same bits, no libm call) */
AVX2 static void uniform_loop_fma(const uint32_t *wp, float *op, Py_ssize_t n, float width, float start,
                                  float top, int swapped) {
    for (Py_ssize_t i = 0; i < n; i++) {
        float u = (float)WORD(wp, i, swapped) * TWO_M24;
        float v = fmaf(u, width, start);
        op[i] = v == top ? start : v;
    }
}
#endif

/* uniform_f32(words: uint32[n], out: float32[n], width, start, swapped, fused): u = (word & 0xFFFFFF)
 * * 2**-24, out = fma(u, width, start) where the build fuses (fused true), else u * width + start
 * (two roundings); a value equal to float32(start + width's `to`) becomes start (uniform_'s [from, to)).
 * width, start and top arrive as float32 values (the caller's float32(to - from), float32(from),
 * float32(to)). */
static PyObject *uniform_f32(PyObject *self, PyObject *args) {
    PyObject *w_obj, *out_obj;
    float width, start, top;
    int swapped, fused;
    if (!PyArg_ParseTuple(args, "OOfffpp:uniform_f32", &w_obj, &out_obj, &width, &start, &top, &swapped, &fused))
        return NULL;
    Py_buffer w, out;
    if (get_buffer(w_obj, &w, 'I', 4, 0, "uniform_f32 words") < 0) return NULL;
    if (get_buffer(out_obj, &out, 'f', 4, 1, "uniform_f32 out") < 0) {
        PyBuffer_Release(&w);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t n = items(&out);
    if (check_length(&w, n, "uniform_f32 words") < 0) goto done;
    if (check_disjoint(&w, &out, "uniform_f32") < 0) goto done;
    if (swapped && n % 2) {
        PyErr_Format(PyExc_ValueError, "uniform_f32: %zd words cannot be swapped pairs", n);
        goto done;
    }
    const uint32_t *wp = (const uint32_t *)w.buf;
    float *op = (float *)out.buf;
    Py_BEGIN_ALLOW_THREADS
#ifdef HAVE_X86
    if (fused && have_avx2_fma())
        uniform_loop_fma(wp, op, n, width, start, top, swapped);
    else
#endif
        uniform_loop(wp, op, n, width, start, top, swapped, fused);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&w);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"randperm_swaps", randperm_swaps, METH_VARARGS, "randperm's sequential swaps, in place."},
    {"normal_fill_f32", normal_fill_f32, METH_VARARGS, "normal_fill's float32 Box-Muller blocks."},
    {"uniform_f32", uniform_f32, METH_VARARGS, "uniform_'s float32 kernel."},
    {"fused_path", fused_path, METH_NOARGS, "which code the fused kind runs on this CPU: avx2 or scalar."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "gradcli._native_rng", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_rng(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
