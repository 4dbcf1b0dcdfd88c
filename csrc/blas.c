/* gradcli._native_blas: NumPy's own matrix product a @ b of two 2-D float32 or float64 arrays in one C call,
 * for the engine's small products (a Linear layer's backward: grad_input = g @ W, grad_weight = g.T @ x),
 * where NumPy's matmul ufunc spends several times the product's arithmetic on its dispatch.
 *
 * The same bits as NumPy's `@` because it is the same call: NumPy's matmul loop (numpy/_core/src/umath/
 * matmul.c.src, FLOAT/DOUBLE_matmul) hands a product of two "blasable" matrices with no dimension of 1 or 0
 * to its BLAS as cblas_?gemm(RowMajor, trans1, trans2, M, P, N, 1, a, lda, b, ldb, 0, out, ldc), each
 * operand NoTrans when its rows are contiguous (lda its row stride) else Trans (a transposed row-major
 * matrix), into a new C-contiguous result (ldc = P); a matrix times its own transpose goes to ?syrk instead.
 * mm() makes exactly that call, with the function NumPy itself calls: setup() is handed the path of the
 * BLAS library NumPy loaded (its wheel's scipy-openblas) and the symbols' names, and looks them up with
 * RTLD_NOLOAD (only that library, already in the process). Everything else answers None (the caller
 * runs NumPy's `@`): another dtype, class or byte order, a dimension below 2, a layout NumPy would copy or
 * hand to another routine (syrk, gemv, its own loop), a size past the BLAS integer, no library set up.
 * tests/test_native_blas.py compares mm with `@` on many shapes, layouts and seeds. */
#include "native_buffer.h"

#include <dlfcn.h>
#include <stdint.h>

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };  /* cblas.h's CBLAS_ORDER / CBLAS_TRANSPOSE values */

/* cblas_?gemm with 64-bit (ILP64, NumPy's scipy-openblas64) or 32-bit integers */
typedef void (*sgemm64_t)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *,
                          int64_t, float, float *, int64_t);
typedef void (*dgemm64_t)(int, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t,
                          const double *, int64_t, double, double *, int64_t);
typedef void (*sgemm32_t)(int, int, int, int32_t, int32_t, int32_t, float, const float *, int32_t, const float *,
                          int32_t, float, float *, int32_t);
typedef void (*dgemm32_t)(int, int, int, int32_t, int32_t, int32_t, double, const double *, int32_t,
                          const double *, int32_t, double, double *, int32_t);

static void *sgemm_fn = NULL, *dgemm_fn = NULL;
static int ilp64 = 0;
static PyObject *np_empty = NULL, *f32_dtype = NULL, *f64_dtype = NULL;

/* setup(path, sgemm_name, dgemm_name, ilp64): True when both symbols were found in that already loaded library */
static PyObject *setup(PyObject *self, PyObject *args) {
    const char *path, *sname, *dname;
    int wide;
    if (!PyArg_ParseTuple(args, "sssp", &path, &sname, &dname, &wide)) return NULL;
    sgemm_fn = dgemm_fn = NULL;
    void *lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL) Py_RETURN_FALSE;
    void *s = dlsym(lib, sname), *d = dlsym(lib, dname);
    dlclose(lib);  /* NumPy holds its own reference: the library stays loaded */
    if (s == NULL || d == NULL) Py_RETURN_FALSE;
    if (np_empty == NULL) {
        PyObject *np = PyImport_ImportModule("numpy");
        if (np == NULL) return NULL;
        np_empty = PyObject_GetAttrString(np, "empty");
        f32_dtype = PyObject_CallMethod(np, "dtype", "s", "float32");
        f64_dtype = PyObject_CallMethod(np, "dtype", "s", "float64");
        Py_DECREF(np);
        if (np_empty == NULL || f32_dtype == NULL || f64_dtype == NULL) {
            Py_CLEAR(np_empty);
            Py_CLEAR(f32_dtype);
            Py_CLEAR(f64_dtype);
            return NULL;
        }
    }
    sgemm_fn = s;
    dgemm_fn = d;
    ilp64 = wide;
    Py_RETURN_TRUE;
}

/* NumPy's is_blasable2d: the faster axis contiguous, the slower one's stride a whole number of items at least
 * the faster dimension and within the BLAS integer */
static int blasable(Py_ssize_t stride1, Py_ssize_t stride2, Py_ssize_t d2, Py_ssize_t itemsize) {
    if (stride2 != itemsize || stride1 % itemsize) return 0;
    Py_ssize_t unit = stride1 / itemsize;
    return unit >= d2 && (ilp64 ? 1 : unit <= INT32_MAX - 1);
}

/* x's strided buffer when x is a native float32/float64 numpy.ndarray of 2 dims, its address and strides
 * aligned to its items; 'f' or 'd' (the caller releases), else 0 (nothing held) */
static char take2d(PyObject *x, Py_buffer *v) {
    char kind = known_kind(x);
    if (kind == 0) return 0;
    if (PyObject_GetBuffer(x, v, PyBUF_STRIDES) < 0) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t size = kind == 'f' ? 4 : 8;
    if (v->ndim != 2 || v->itemsize != size || (uintptr_t)v->buf % size || v->strides[0] % size ||
        v->strides[1] % size) {
        PyBuffer_Release(v);
        return 0;
    }
    return kind;
}

/* mm(a, b): a @ b as NumPy computes it (a new C-contiguous array), or None where NumPy would do otherwise */
static PyObject *mm(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "mm(a, b) takes 2 arguments");
        return NULL;
    }
    if (sgemm_fn == NULL) Py_RETURN_NONE;
    Py_buffer a, b;
    char ka = take2d(args[0], &a);
    if (ka == 0) Py_RETURN_NONE;
    char kb = take2d(args[1], &b);
    if (kb == 0) {
        PyBuffer_Release(&a);
        Py_RETURN_NONE;
    }
    PyObject *result = NULL;
    const Py_ssize_t sz = ka == 'f' ? 4 : 8;
    const Py_ssize_t m = a.shape[0], n = a.shape[1], p = b.shape[1];
    const Py_ssize_t is1_m = a.strides[0], is1_n = a.strides[1], is2_n = b.strides[0], is2_p = b.strides[1];
    if (ka != kb || b.shape[0] != n || m < 2 || n < 2 || p < 2 ||
        (!ilp64 && (m > INT32_MAX - 1 || n > INT32_MAX - 1 || p > INT32_MAX - 1)))
        goto decline;
    /* NumPy's trans1/lda and trans2/ldb; neither layout: NumPy copies first (declined) */
    int t1, t2;
    Py_ssize_t lda, ldb;
    if (blasable(is1_m, is1_n, n, sz)) {
        t1 = NO_TRANS;
        lda = is1_m / sz;
    } else if (blasable(is1_n, is1_m, m, sz)) {
        t1 = TRANS;
        lda = is1_n / sz;
    } else
        goto decline;
    if (blasable(is2_n, is2_p, p, sz)) {
        t2 = NO_TRANS;
        ldb = is2_n / sz;
    } else if (blasable(is2_p, is2_n, n, sz)) {
        t2 = TRANS;
        ldb = is2_p / sz;
    } else
        goto decline;
    if (a.buf == b.buf && m == p && is1_m == is2_p && is1_n == is2_n && t1 != t2) goto decline;  /* NumPy's syrk */
    {
        PyObject *shape = Py_BuildValue("(nn)", m, p);
        if (shape == NULL) goto done;
        PyObject *call[2] = {shape, ka == 'f' ? f32_dtype : f64_dtype};
        PyObject *out_obj = PyObject_Vectorcall(np_empty, call, 2, NULL);
        Py_DECREF(shape);
        if (out_obj == NULL) goto done;
        Py_buffer out;
        if (get_buffer(out_obj, &out, ka, sz, 1, "mm out") < 0) {
            Py_DECREF(out_obj);
            goto done;
        }
        if (check_length(&out, m * p, "mm out") < 0) {
            PyBuffer_Release(&out);
            Py_DECREF(out_obj);
            goto done;
        }
        const int release = (double)m * (double)n * (double)p > (1 << 16);
        PyThreadState *ts = release ? PyEval_SaveThread() : NULL;
        if (ka == 'f') {
            if (ilp64)
                ((sgemm64_t)sgemm_fn)(ROW_MAJOR, t1, t2, m, p, n, 1.0f, (const float *)a.buf, lda,
                                      (const float *)b.buf, ldb, 0.0f, (float *)out.buf, p);
            else
                ((sgemm32_t)sgemm_fn)(ROW_MAJOR, t1, t2, (int32_t)m, (int32_t)p, (int32_t)n, 1.0f,
                                      (const float *)a.buf, (int32_t)lda, (const float *)b.buf, (int32_t)ldb, 0.0f,
                                      (float *)out.buf, (int32_t)p);
        } else {
            if (ilp64)
                ((dgemm64_t)dgemm_fn)(ROW_MAJOR, t1, t2, m, p, n, 1.0, (const double *)a.buf, lda,
                                      (const double *)b.buf, ldb, 0.0, (double *)out.buf, p);
            else
                ((dgemm32_t)dgemm_fn)(ROW_MAJOR, t1, t2, (int32_t)m, (int32_t)p, (int32_t)n, 1.0,
                                      (const double *)a.buf, (int32_t)lda, (const double *)b.buf, (int32_t)ldb, 0.0,
                                      (double *)out.buf, (int32_t)p);
        }
        if (release) PyEval_RestoreThread(ts);
        PyBuffer_Release(&out);
        result = out_obj;
    }
    goto done;
decline:
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    return result;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, "setup(path, sgemm_name, dgemm_name, ilp64): NumPy's BLAS, looked up."},
    {"mm", (PyCFunction)(void (*)(void))mm, METH_FASTCALL, "a @ b as NumPy's matmul computes it, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "gradcli._native_blas", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_blas(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
