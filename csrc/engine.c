/* gradcli._native_engine: the training step's small kernels in torch's exact orders.

Each function is the C form of a NumPy path of the engine, bit for bit (tests/test_native_engine.py
compares the two on random shapes, dtypes and values, zeros, infinities and NaNs included):

  sum_all(a, vec_bytes, mean)      numerics._sum_all_small: ATen cascade_sum's sum of every item of a
                                   C-contiguous float32/float64 array, as a float (mean: / the count)
  sum_rows(a, out, m, vec_bytes)   numerics._sum0_small / the small (n, m) sums of dim 0 (a Linear
                                   layer's bias gradient), into out (m items)
  mse_mean(x, t, vec_bytes)        mse_loss(x, t)'s 'mean': ((x - t) ** 2).mean(), torch's sum order
  mse_backward(x, t, norm, g, out) MseLossBackwardBackward0.forward: (norm * (x - t)) * g
  sgd(p, g, c)                     SGD's plain step on float32: p = float(double(p) + double(g) * c)
  sgd_params(params, c)            sgd over a parameter list's tensors (their _grad, _data, _version)
  bias_add(r, b)                   r += b over the rows of r (Linear's forward after its product)
  relu(x, out), relu_backward(g, r, out)
                                   clamp_min(x, 0) (x where not x < 0, else +0) and its backward
                                   (g where not r <= 0, else +0)

The arrays come through the buffer protocol (no NumPy headers): take() checks each one with
csrc/native_buffer.h (format 'f' or 'd', contiguity, writability), their lengths, and that an array a
kernel writes shares no byte with another argument; anything else raises ValueError before any
memory is touched. The arithmetic is plain C on float and double; the build passes
-ffp-contract=off, so no product and sum are fused into an FMA that NumPy does not make. */
#include "native_buffer.h"

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

/* ------------------------------------------------------------------ ATen's cascade_sum pieces */

static int ceil_log2(Py_ssize_t x)
{
    if (x <= 2)
        return 1;
    unsigned long long v = (unsigned long long)(x - 1);
    int b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* multi_row_sum of one lane: `size` items `st` apart, in four levels of 2**p (ATen SumKernel.cpp);
   a vectorised multi_row_sum is this, lane by lane. row_sum: four interleaved multi_row_sums over
   size / 4 items (4 * st apart), the tail items into the first, then ((p0 + p1) + p2) + p3. */
#define CASCADE(T, NAME)                                                                         \
    static T NAME##_mrs(const T *x, Py_ssize_t st, Py_ssize_t size)                              \
    {                                                                                            \
        int p = ceil_log2(size) / 4;                                                             \
        if (p < 4)                                                                               \
            p = 4;                                                                               \
        const Py_ssize_t step = (Py_ssize_t)1 << p, mask = step - 1;                             \
        T acc[4] = {0, 0, 0, 0};                                                                 \
        Py_ssize_t i = 0;                                                                        \
        while (i + step <= size) {                                                               \
            for (Py_ssize_t j = 0; j < step; ++j, ++i)                                           \
                acc[0] += x[i * st];                                                             \
            for (int j = 1; j < 4; ++j) {                                                        \
                acc[j] += acc[j - 1];                                                            \
                acc[j - 1] = 0;                                                                  \
                if ((i & (mask << (j * p))) != 0)                                                \
                    break;                                                                       \
            }                                                                                    \
        }                                                                                        \
        for (; i < size; ++i)                                                                    \
            acc[0] += x[i * st];                                                                 \
        for (int j = 1; j < 4; ++j)                                                              \
            acc[0] += acc[j];                                                                    \
        return acc[0];                                                                           \
    }                                                                                            \
    static T NAME##_row_sum(const T *x, Py_ssize_t st, Py_ssize_t size)                          \
    {                                                                                            \
        const Py_ssize_t s = size / 4;                                                           \
        T p0 = NAME##_mrs(x, 4 * st, s), p1 = NAME##_mrs(x + st, 4 * st, s);                     \
        T p2 = NAME##_mrs(x + 2 * st, 4 * st, s), p3 = NAME##_mrs(x + 3 * st, 4 * st, s);        \
        for (Py_ssize_t i = 4 * s; i < size; ++i)                                                \
            p0 += x[i * st];                                                                     \
        p0 += p1;                                                                                \
        p0 += p2;                                                                                \
        p0 += p3;                                                                                \
        return p0;                                                                               \
    }                                                                                            \
    /* the sum of n contiguous items as one loop call of the iterator: the vectorised inner sum  \
       (w lanes: row_sum over the n / w vectors, then 0 + the tail items + the lanes, in order) or, \
       below one vector, the scalar inner sum (row_sum); then out = 0 + that, + 0 */              \
    static T NAME##_sum_all(const T *x, Py_ssize_t n, Py_ssize_t w)                              \
    {                                                                                            \
        T r;                                                                                     \
        const Py_ssize_t nv = n / w;                                                             \
        if (nv == 0) {                                                                           \
            r = NAME##_row_sum(x, 1, n);                                                         \
        }                                                                                        \
        else {                                                                                   \
            r = 0;                                                                               \
            for (Py_ssize_t k = nv * w; k < n; ++k)                                              \
                r += x[k];                                                                       \
            for (Py_ssize_t l = 0; l < w; ++l)                                                   \
                r += NAME##_row_sum(x + l, w, nv);                                               \
        }                                                                                        \
        T out = 0;                                                                               \
        out += r;                                                                                \
        return out + (T)0;                                                                       \
    }                                                                                            \
    /* the sum over dim 0 of a C-contiguous (n, m) array as one loop call (m >= 2): the first cut \
       columns by multi_row_sum (the vectorised outer sum's blocks of 4 * wacc columns, or the   \
       scalar outer sum's groups of 4 below one vector), the others by row_sum */                \
    static void NAME##_sum_rows(const T *x, Py_ssize_t n, Py_ssize_t m, Py_ssize_t w, T *out)    \
    {                                                                                            \
        const Py_ssize_t cut = m >= w ? (m / (4 * w)) * (4 * w) : (m / 4) * 4;                   \
        for (Py_ssize_t c = 0; c < m; ++c) {                                                     \
            T v = c < cut ? NAME##_mrs(x + c, m, n) : NAME##_row_sum(x + c, m, n);               \
            T o = 0;                                                                             \
            o += v;                                                                              \
            out[c] = o + (T)0;                                                                   \
        }                                                                                        \
    }

CASCADE(float, f32)
CASCADE(double, f64)

/* ------------------------------------------------------------------ arguments, checked */

#define MAX_ARRAYS 3

/* A kernel's array arguments, taken by take(): each a C-contiguous float32 ('f') or float64 ('d')
   buffer of native order (native_buffer.h's known_kind, else acquire_buffer and has_format), all of one kind. */
typedef struct {
    Py_buffer view[MAX_ARRAYS];
    Py_ssize_t n[MAX_ARRAYS]; /* items */
    int written[MAX_ARRAYS];
    int count;
    char kind;
} Arrays;

static void release_all(Arrays *a)
{
    while (a->count > 0)
        PyBuffer_Release(&a->view[--a->count]);
}

/* The arguments of the kernel `what`: spec has one character a positional argument, 'r' for an array
   it reads, 'w' for one it writes, '-' for another value (the kernel parses those itself). Checks the
   count, each array's buffer, one kind for all, the same length for all when same_length, and that a
   written array shares no byte with any other (check_disjoint: a kernel reads its inputs while it
   writes, where NumPy's path, whose bits it gives, never reads a half-written input). Returns 0 (the
   caller calls release_all), or -1 with TypeError or ValueError set and nothing held. */
static int take(PyObject *const *args, Py_ssize_t nargs, const char *spec, const char *what, int same_length,
                Arrays *a)
{
    const Py_ssize_t want = (Py_ssize_t)strlen(spec);
    a->count = 0;
    a->kind = 0;
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", what, want, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < want; ++i) {
        if (spec[i] != 'r' && spec[i] != 'w')
            continue;
        Py_buffer *v = &a->view[a->count];
        const char known = known_kind(args[i]);  /* without NumPy's format string where the dtype tells */
        if (acquire_buffer_as(args[i], v, spec[i] == 'w', known == 0, what) < 0)
            goto fail;
        const char kind = known == 'f' && v->itemsize == 4 ? 'f' : known == 'd' && v->itemsize == 8 ? 'd'
                          : known ? 0 : has_format(v, 'f', 4) ? 'f' : has_format(v, 'd', 8) ? 'd' : 0;
        a->n[a->count] = v->len / (v->itemsize > 0 ? v->itemsize : 1);
        a->written[a->count++] = spec[i] == 'w';
        if (kind == 0) {
            PyErr_Format(PyExc_ValueError, "%s: a float32 or float64 array is expected", what);
            goto fail;
        }
        if (a->kind != 0 && kind != a->kind) {
            PyErr_Format(PyExc_ValueError, "%s: the arrays differ in dtype", what);
            goto fail;
        }
        a->kind = kind;
        if (same_length && a->n[a->count - 1] != a->n[0]) {
            PyErr_Format(PyExc_ValueError, "%s: the arrays differ in length", what);
            goto fail;
        }
    }
    for (int i = 0; i < a->count; ++i)
        for (int j = 0; j < a->count; ++j)
            if (i != j && a->written[i] && check_disjoint(&a->view[i], &a->view[j], what) < 0)
                goto fail;
    return 0;
fail:
    release_all(a);
    return -1;
}

/* releases the arrays and returns None, or NULL (the error set) when !ok */
static PyObject *finish(Arrays *a, int ok)
{
    release_all(a);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

/* the vector width in items of the kind, from VEC_BYTES (16, 32 or 64) */
static int lanes_of(PyObject *obj, char kind, Py_ssize_t *w)
{
    long vb = PyLong_AsLong(obj);
    if (vb == -1 && PyErr_Occurred())
        return -1;
    if (vb != 16 && vb != 32 && vb != 64) {
        PyErr_SetString(PyExc_ValueError, "vec_bytes must be 16, 32 or 64");
        return -1;
    }
    *w = vb / (kind == 'f' ? 4 : 8);
    return 0;
}

/* ------------------------------------------------------------------ the functions */

static PyObject *sum_all(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    Arrays a;
    Py_ssize_t w;
    if (take(args, n, "r--", "sum_all", 0, &a) < 0)
        return NULL;
    const int mean = PyObject_IsTrue(args[2]);
    if (mean < 0 || lanes_of(args[1], a.kind, &w) < 0)
        return finish(&a, 0);
    const Py_ssize_t len = a.n[0];
    if (len < 1) {
        PyErr_SetString(PyExc_ValueError, "sum_all: an empty array");
        return finish(&a, 0);
    }
    double r;
    if (a.kind == 'f') {
        float v = f32_sum_all(a.view[0].buf, len, w);
        r = mean ? (double)(v / (float)len) : (double)v;
    }
    else {
        double v = f64_sum_all(a.view[0].buf, len, w);
        r = mean ? v / (double)len : v;
    }
    release_all(&a);
    return PyFloat_FromDouble(r);
}

static PyObject *sum_rows(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    Arrays a;
    Py_ssize_t w;
    if (take(args, n, "rw--", "sum_rows", 0, &a) < 0)
        return NULL;
    const Py_ssize_t m = PyLong_AsSsize_t(args[2]), len = a.n[0];
    if (m == -1 && PyErr_Occurred())
        return finish(&a, 0);
    if (m < 2 || a.n[1] != m || len % m != 0 || len / m < 2) {
        PyErr_SetString(PyExc_ValueError, "sum_rows: a C-contiguous (n, m) array, n, m >= 2, and m outputs");
        return finish(&a, 0);
    }
    if (lanes_of(args[3], a.kind, &w) < 0)
        return finish(&a, 0);
    if (a.kind == 'f')
        f32_sum_rows(a.view[0].buf, len / m, m, w, a.view[1].buf);
    else
        f64_sum_rows(a.view[0].buf, len / m, m, w, a.view[1].buf);
    return finish(&a, 1);
}

/* ((x - t) ** 2) summed in torch's order over a scratch array of the squares, divided by n */
static PyObject *mse_mean(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    Arrays a;
    Py_ssize_t w;
    if (take(args, n, "rr-", "mse_mean", 1, &a) < 0)
        return NULL;
    const Py_ssize_t len = a.n[0];
    if (lanes_of(args[2], a.kind, &w) < 0)
        return finish(&a, 0);
    if (len < 1) {
        PyErr_SetString(PyExc_ValueError, "mse_mean: empty arrays");
        return finish(&a, 0);
    }
    void *buf = PyMem_Malloc((size_t)a.view[0].len);
    if (buf == NULL) {
        PyErr_NoMemory();
        return finish(&a, 0);
    }
    double r;
    if (a.kind == 'f') {
        const float *x = a.view[0].buf, *t = a.view[1].buf;
        float *d = buf;
        for (Py_ssize_t i = 0; i < len; ++i) {
            float v = x[i] - t[i];
            d[i] = v * v;
        }
        r = (double)(f32_sum_all(d, len, w) / (float)len);
    }
    else {
        const double *x = a.view[0].buf, *t = a.view[1].buf;
        double *d = buf;
        for (Py_ssize_t i = 0; i < len; ++i) {
            double v = x[i] - t[i];
            d[i] = v * v;
        }
        r = f64_sum_all(d, len, w) / (double)len;
    }
    PyMem_Free(buf);
    release_all(&a);
    return PyFloat_FromDouble(r);
}

/* out = (norm * (x - t)) * g, norm and g rounded to the arrays' dtype (exact for the float32 values
   the caller passes) */
static PyObject *mse_backward(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    Arrays a;
    if (take(args, n, "rr--w", "mse_backward", 1, &a) < 0)
        return NULL;
    const double norm = PyFloat_AsDouble(args[2]), g = PyFloat_AsDouble(args[3]);
    if (PyErr_Occurred())
        return finish(&a, 0);
    const Py_ssize_t len = a.n[0];
    if (a.kind == 'f') {
        const float *x = a.view[0].buf, *t = a.view[1].buf, nf = (float)norm, gf = (float)g;
        float *d = a.view[2].buf;
        for (Py_ssize_t i = 0; i < len; ++i)
            d[i] = (nf * (x[i] - t[i])) * gf;
    }
    else {
        const double *x = a.view[0].buf, *t = a.view[1].buf;
        double *d = a.view[2].buf;
        for (Py_ssize_t i = 0; i < len; ++i)
            d[i] = (norm * (x[i] - t[i])) * g;
    }
    return finish(&a, 1);
}

/* SGD's plain float32 step: each item in float64, p + g * c (c: -lr rounded to float32, so the
   product is exact), rounded once into p */
static PyObject *sgd(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    Arrays a;
    if (take(args, n, "wr-", "sgd", 1, &a) < 0)
        return NULL;
    const double c = PyFloat_AsDouble(args[2]);
    if (c == -1.0 && PyErr_Occurred())
        return finish(&a, 0);
    if (a.kind != 'f') {
        PyErr_SetString(PyExc_ValueError, "sgd: float32 arrays are expected");
        return finish(&a, 0);
    }
    float *d = a.view[0].buf;
    const float *s = a.view[1].buf;
    for (Py_ssize_t i = 0; i < a.n[0]; ++i)
        d[i] = (float)((double)d[i] + (double)s[i] * c);
    return finish(&a, 1);
}

/* r (n, m), C-contiguous, += b (m) on every row */
static PyObject *bias_add(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    Arrays a;
    if (take(args, n, "wr", "bias_add", 0, &a) < 0)
        return NULL;
    const Py_ssize_t m = a.n[1];
    if (m < 1 || a.n[0] % m != 0) {
        PyErr_SetString(PyExc_ValueError, "bias_add: an (n, m) array and m items of its dtype are expected");
        return finish(&a, 0);
    }
    const Py_ssize_t rows = a.n[0] / m;
    if (a.kind == 'f') {
        float *d = a.view[0].buf;
        const float *s = a.view[1].buf;
        for (Py_ssize_t i = 0; i < rows; ++i, d += m)
            for (Py_ssize_t j = 0; j < m; ++j)
                d[j] += s[j];
    }
    else {
        double *d = a.view[0].buf;
        const double *s = a.view[1].buf;
        for (Py_ssize_t i = 0; i < rows; ++i, d += m)
            for (Py_ssize_t j = 0; j < m; ++j)
                d[j] += s[j];
    }
    return finish(&a, 1);
}

/* out = x where not x < 0, else +0 (NaN and -0 kept): torch's clamp_min(x, 0) */
static PyObject *relu(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    Arrays a;
    if (take(args, n, "rw", "relu", 1, &a) < 0)
        return NULL;
    if (a.kind == 'f') {
        const float *s = a.view[0].buf;
        float *d = a.view[1].buf;
        for (Py_ssize_t i = 0; i < a.n[0]; ++i)
            d[i] = s[i] < 0 ? 0.0f : s[i];
    }
    else {
        const double *s = a.view[0].buf;
        double *d = a.view[1].buf;
        for (Py_ssize_t i = 0; i < a.n[0]; ++i)
            d[i] = s[i] < 0 ? 0.0 : s[i];
    }
    return finish(&a, 1);
}

/* out = g where not r <= 0, else +0 (r: relu's result; NaN passes g) */
static PyObject *relu_backward(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    Arrays a;
    if (take(args, n, "rrw", "relu_backward", 1, &a) < 0)
        return NULL;
    if (a.kind == 'f') {
        const float *s = a.view[0].buf, *q = a.view[1].buf;
        float *d = a.view[2].buf;
        for (Py_ssize_t i = 0; i < a.n[0]; ++i)
            d[i] = q[i] <= 0 ? 0.0f : s[i];
    }
    else {
        const double *s = a.view[0].buf, *q = a.view[1].buf;
        double *d = a.view[2].buf;
        for (Py_ssize_t i = 0; i < a.n[0]; ++i)
            d[i] = q[i] <= 0 ? 0.0 : s[i];
    }
    return finish(&a, 1);
}

#define FN(name) {#name, (PyCFunction)(void (*)(void))name, METH_FASTCALL, NULL}
/* sgd_params(params, c): sgd(p._data, p._grad._data, c) and then p._version[0] += 1 for each parameter of the list
   in turn (one without a gradient skipped), SGD's plain float32 step for a whole group in one call; it stops at
   the first parameter it cannot take as it is (no float32 ndarray of NumPy's own descriptor, a gradient of
   another length or sharing the parameter's memory, not contiguous or writable, an attribute missing) and
   returns that parameter's index (len(params) when all are done): optim.SGD runs the rest through its Python
   loop, which gives the same bits (kern.sgd, else NumPy) and raises what it raises. */
static PyObject *str_grad = NULL, *str_data = NULL, *str_version = NULL, *int_zero = NULL, *int_one = NULL;

static PyObject *sgd_params(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    if (n != 2 || !PyList_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "sgd_params(params: list, c: float)");
        return NULL;
    }
    if (str_grad == NULL) {
        str_grad = PyUnicode_InternFromString("_grad");
        str_data = PyUnicode_InternFromString("_data");
        str_version = PyUnicode_InternFromString("_version");
        int_zero = PyLong_FromLong(0);
        int_one = PyLong_FromLong(1);
        if (str_grad == NULL || str_data == NULL || str_version == NULL || int_zero == NULL || int_one == NULL) {
            Py_CLEAR(str_grad);
            return NULL;
        }
    }
    const double c = PyFloat_AsDouble(args[1]);
    if (c == -1.0 && PyErr_Occurred())
        return NULL;
    PyObject *params = args[0];
    Py_ssize_t i = 0;
    for (; i < PyList_GET_SIZE(params); ++i) {
        PyObject *p = PyList_GET_ITEM(params, i);
        Py_INCREF(p);  /* the list may change under a callback (a property, an __index__) */
        PyObject *g = PyObject_GetAttr(p, str_grad), *d = NULL, *gd = NULL;
        if (g == NULL)
            goto stop;
        if (g == Py_None) {
            Py_DECREF(g);
            Py_DECREF(p);
            continue;
        }
        d = PyObject_GetAttr(p, str_data);
        gd = d != NULL ? PyObject_GetAttr(g, str_data) : NULL;
        if (gd == NULL || known_kind(d) != 'f' || known_kind(gd) != 'f')
            goto stop;
        Py_buffer pv, gv;
        if (PyObject_GetBuffer(d, &pv, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
            goto stop;
        if (PyObject_GetBuffer(gd, &gv, PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&pv);
            goto stop;
        }
        const char *p0 = pv.buf, *g0 = gv.buf;
        if (pv.itemsize != 4 || gv.itemsize != 4 || pv.len != gv.len || pv.len % 4 ||
            (pv.len > 0 && p0 < g0 + gv.len && g0 < p0 + pv.len)) {
            PyBuffer_Release(&gv);
            PyBuffer_Release(&pv);
            goto stop;
        }
        float *dp = pv.buf;
        const float *sp = gv.buf;
        for (Py_ssize_t j = 0; j < pv.len / 4; ++j)  /* sgd's loop */
            dp[j] = (float)((double)dp[j] + (double)sp[j] * c);
        PyBuffer_Release(&gv);
        PyBuffer_Release(&pv);
        Py_DECREF(gd);
        Py_DECREF(d);
        Py_DECREF(g);
        /* p._version[0] += 1, as the Python statement does it (an error is raised as there) */
        PyObject *ver = PyObject_GetAttr(p, str_version), *v0 = NULL, *v1 = NULL;
        Py_DECREF(p);
        if (ver == NULL)
            return NULL;
        v0 = PyObject_GetItem(ver, int_zero);
        v1 = v0 != NULL ? PyNumber_InPlaceAdd(v0, int_one) : NULL;
        const int bad = v1 == NULL || PyObject_SetItem(ver, int_zero, v1) < 0;
        Py_XDECREF(v1);
        Py_XDECREF(v0);
        Py_DECREF(ver);
        if (bad)
            return NULL;
        continue;
    stop:  /* this parameter is the Python loop's, from its first step */
        PyErr_Clear();
        Py_XDECREF(gd);
        Py_XDECREF(d);
        Py_XDECREF(g);
        Py_DECREF(p);
        break;
    }
    return PyLong_FromSsize_t(i);
}

static PyMethodDef methods[] = {
    FN(sum_all), FN(sum_rows), FN(mse_mean), FN(mse_backward), FN(sgd), FN(sgd_params),
    FN(bias_add), FN(relu), FN(relu_backward), {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native_engine", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_engine(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
