/* gradcli._native_rng: the sequential parts of PyTorch's CPU random kernels, bit for bit with their
 * NumPy references in gradcli/engine (each compared by tests/test_native.py).
 *
 * randperm_swaps: randperm's swap loop (rng_factory.randperm). */
#include "native_buffer.h"

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

static PyMethodDef methods[] = {
    {"randperm_swaps", randperm_swaps, METH_VARARGS, "randperm's sequential swaps, in place."},
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
