/* Buffer checks shared by gradcli's extension modules (csrc/NAME.c -> gradcli._native_NAME).
 *
 * A kernel takes NumPy arrays through the buffer protocol (no NumPy headers): get_buffer checks the
 * format, the item size, C-contiguity and (for outputs) writability, and raises ValueError otherwise,
 * so no argument can make a kernel read or write outside the memory it was handed. Every caller
 * still checks the lengths it relies on (check_length) and releases what it took (PyBuffer_Release). */
#ifndef GRADCLI_NATIVE_BUFFER_H
#define GRADCLI_NATIVE_BUFFER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* ---- the item kind of a NumPy array from its dtype object, without the format string
 *
 * NumPy builds a buffer's format string anew at every request with PyBUF_FORMAT (~400 instructions an
 * array, more than a small kernel's arithmetic). known_kind() reads obj.dtype instead: for an array of
 * exactly numpy.ndarray whose dtype object IS numpy's native float32 or float64 descriptor it answers 'f'
 * or 'd', and the buffer is then asked for without a format; anything else (another class, dtype, byte
 * order, a descriptor instance of its own, numpy missing) answers 0 and the caller asks for the format
 * and checks it as before. Each extension module keeps its own copies of these objects. */
static PyObject *nb_ndarray = NULL, *nb_f32 = NULL, *nb_f64 = NULL, *nb_dtype_name = NULL;
static int nb_state = 0;  /* 0: not looked up yet, 1: ready, -1: unavailable (the format path only) */

static inline int nb_setup(void) {
    PyObject *np = PyImport_ImportModule("numpy");
    if (np != NULL) {
        nb_ndarray = PyObject_GetAttrString(np, "ndarray");
        nb_f32 = PyObject_CallMethod(np, "dtype", "s", "float32");
        nb_f64 = PyObject_CallMethod(np, "dtype", "s", "float64");
        Py_DECREF(np);
    }
    nb_dtype_name = PyUnicode_InternFromString("dtype");
    if (nb_ndarray == NULL || nb_f32 == NULL || nb_f64 == NULL || nb_dtype_name == NULL || !PyType_Check(nb_ndarray)) {
        PyErr_Clear();
        Py_CLEAR(nb_ndarray);
        Py_CLEAR(nb_f32);
        Py_CLEAR(nb_f64);
        Py_CLEAR(nb_dtype_name);
        return nb_state = -1;
    }
    return nb_state = 1;
}

/* 'f' or 'd' when obj is a numpy.ndarray whose dtype is numpy's own native float32 / float64 descriptor,
 * else 0 (no error set: the caller's format check decides) */
static inline char known_kind(PyObject *obj) {
    if (nb_state <= 0 && (nb_state < 0 || nb_setup() < 0)) return 0;
    if (Py_TYPE(obj) != (PyTypeObject *)nb_ndarray) return 0;
    PyObject *dt = PyObject_GetAttr(obj, nb_dtype_name);
    if (dt == NULL) {
        PyErr_Clear();
        return 0;
    }
    char kind = dt == nb_f32 ? 'f' : dt == nb_f64 ? 'd' : 0;
    Py_DECREF(dt);
    return kind;
}

/* Takes obj's C-contiguous buffer (writable if asked). Returns 0 (the caller releases), or -1 with
 * ValueError set (nothing to release). With format_too 0 the buffer may come without a format (the
 * caller knows the kind from known_kind). */
static inline int acquire_buffer_as(PyObject *obj, Py_buffer *view, int writable, int format_too, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | (format_too ? PyBUF_FORMAT : 0) | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: expected a C-contiguous%s buffer", what,
                     writable ? " writable" : "");
        return -1;
    }
    return 0;
}

static inline int acquire_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what) {
    return acquire_buffer_as(obj, view, writable, 1, what);
}

/* 1 when a held buffer's items are of that struct format and size, else 0. format: one struct
 * character ('f', 'd', 'i', 'I', 'q', 'Q', ...); '=' '<' '@' prefixes are accepted for native
 * little-endian order. */
static inline int has_format(const Py_buffer *view, char format, Py_ssize_t itemsize) {
    const char *f = view->format ? view->format : "B";
    if (*f == '=' || *f == '<' || *f == '@') f++;
    /* 'q'/'l' (and 'Q'/'L') are both 8 bytes on LP64: the item size decides */
    int same = (f[0] == format) || (format == 'q' && f[0] == 'l') || (format == 'Q' && f[0] == 'L') ||
               (format == 'i' && f[0] == 'l' && view->itemsize == 4);
    return same && f[1] == '\0' && view->itemsize == itemsize && view->len % itemsize == 0;
}

/* acquire_buffer, then has_format. Returns 0, or -1 with ValueError set (nothing to release). */
static inline int get_buffer(PyObject *obj, Py_buffer *view, char format, Py_ssize_t itemsize, int writable,
                      const char *what) {
    if ((format == 'f' || format == 'd') && known_kind(obj) == format) {  /* its itemsize and length still checked */
        if (acquire_buffer_as(obj, view, writable, 0, what) < 0) return -1;
        if (view->itemsize == itemsize && view->len % itemsize == 0) return 0;
        PyBuffer_Release(view);
    }
    if (acquire_buffer(obj, view, writable, what) < 0) return -1;
    if (!has_format(view, format, itemsize)) {
        PyErr_Format(PyExc_ValueError, "%s: expected items of format '%c' and size %zd, got '%s' of size %zd",
                     what, format, itemsize, view->format ? view->format : "B", view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static inline Py_ssize_t items(const Py_buffer *view) { return view->len / view->itemsize; }

/* Returns 0 when the buffer holds exactly n items, else -1 with ValueError set (the caller releases). */
static inline int check_length(const Py_buffer *view, Py_ssize_t n, const char *what) {
    if (items(view) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items, got %zd", what, n, items(view));
        return -1;
    }
    return 0;
}

/* Returns 0 when the two buffers share no byte, else -1 with ValueError set (the caller releases): a
 * kernel that reads one while it writes the other (randperm_swaps reads targets while it swaps perm:
 * a target overwritten by a swap sent a later swap outside the buffer) takes them apart. */
static inline int check_disjoint(const Py_buffer *a, const Py_buffer *b, const char *what) {
    const char *a0 = (const char *)a->buf, *b0 = (const char *)b->buf;
    if (a->len > 0 && b->len > 0 && a0 < b0 + b->len && b0 < a0 + a->len) {
        PyErr_Format(PyExc_ValueError, "%s: the buffers overlap", what);
        return -1;
    }
    return 0;
}

#endif
