/* gradcli._native_chain: the backward walk of a scalar chain (gradcli/engine/ops/scalar_chain.py) in C.

  scalar_walk(node, v, f32, dt, free, buffers, operand, slots, scale_types, pass_types)
      scalar_chain.walk's loop, node by node, as its Python form (the reference: tests compare the two):
      a node of scale_types (MulBackward0) multiplies the gradient v by its saved number, as operand(number,
      dt) gives it (a Python float; rounded to float32 by a C cast when f32, as NumPy's assignment casts),
      one of pass_types (AddBackward0, SubBackward0) passes it on. The walk goes on to the node's first edge
      while that node is the next to run (sequence number one lower), not in buffers (fed by no other node),
      of output dtype dt, with no second edge and a number saved (scale) or a 0-d first input (pass); it
      stops before a node that is not, and before a float32 product that would round to infinity.
      slots: the member descriptors of Node's slots _seq, _out_dtype, _fns, _saved, _kw (read and, with
      free, _saved set to None, at their offsets: the same as member_get and member_set).
      Returns (last node run, v, whether a node scaled v, how many nodes ran after the first), or None
      when the first node cannot run (nothing done).

Nothing here reads memory but through the slots of the node types given, each checked to be a subclass
of the slots' class; an unset slot or an object of an unexpected type ends the walk (the Python engine
then takes the node). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <structmember.h>

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

enum { SEQ, OUT_DTYPE, FNS, SAVED, KW, NSLOTS };

static int slot_offsets(PyObject *slots, Py_ssize_t *off, PyTypeObject **owner)
{
    if (!PyTuple_CheckExact(slots) || PyTuple_GET_SIZE(slots) != NSLOTS) {
        PyErr_SetString(PyExc_TypeError, "scalar_walk: slots must be a tuple of 5 member descriptors");
        return -1;
    }
    for (int i = 0; i < NSLOTS; ++i) {
        PyObject *d = PyTuple_GET_ITEM(slots, i);
        if (!Py_IS_TYPE(d, &PyMemberDescr_Type)) {
            PyErr_SetString(PyExc_TypeError, "scalar_walk: slots must be member descriptors");
            return -1;
        }
        PyMemberDescrObject *md = (PyMemberDescrObject *)d;
        if (md->d_member->type != T_OBJECT_EX || (md->d_member->flags & READONLY)) {
            PyErr_SetString(PyExc_TypeError, "scalar_walk: slots must be writable object slots");
            return -1;
        }
        PyTypeObject *t = PyDescr_TYPE(d);
        if (i == 0)
            *owner = t;
        else if (t != *owner) {
            PyErr_SetString(PyExc_TypeError, "scalar_walk: slots of one class");
            return -1;
        }
        off[i] = md->d_member->offset;
    }
    return 0;
}

static int check_types(PyObject *types, PyTypeObject *owner)
{
    if (!PyTuple_CheckExact(types)) {
        PyErr_SetString(PyExc_TypeError, "scalar_walk: node types must be a tuple");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(types); ++i) {
        PyObject *t = PyTuple_GET_ITEM(types, i);
        if (!PyType_Check(t) || !PyType_IsSubtype((PyTypeObject *)t, owner)) {
            PyErr_SetString(PyExc_TypeError, "scalar_walk: node types must be subclasses of the slots' class");
            return -1;
        }
    }
    return 0;
}

static int type_in(PyTypeObject *tp, PyObject *types)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(types); ++i)
        if ((PyObject *)tp == PyTuple_GET_ITEM(types, i))
            return 1;
    return 0;
}

#define SLOT(obj, k) (*(PyObject **)((char *)(obj) + off[k]))

static PyObject *scalar_walk(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "scalar_walk takes 10 arguments");
        return NULL;
    }
    PyObject *node = args[0], *dt = args[3], *buffers = args[5], *operand = args[6];
    PyObject *scale = args[8], *pass = args[9];
    double v = PyFloat_AsDouble(args[1]);
    if (v == -1.0 && PyErr_Occurred())
        return NULL;
    int f32 = PyObject_IsTrue(args[2]), free_saved = PyObject_IsTrue(args[4]);
    if (f32 < 0 || free_saved < 0)
        return NULL;
    if (!PyDict_CheckExact(buffers)) {
        PyErr_SetString(PyExc_TypeError, "scalar_walk: buffers must be a dict");
        return NULL;
    }
    Py_ssize_t off[NSLOTS];
    PyTypeObject *owner;
    if (slot_offsets(args[7], off, &owner) < 0 || check_types(scale, owner) < 0 || check_types(pass, owner) < 0)
        return NULL;

    PyObject *last = NULL, *last_b = NULL, *result = NULL;
    double last_y = 0.0;
    int scaled = 0;
    long long first = 0, want = 0;
    Py_INCREF(node);
    for (;;) {
        PyTypeObject *tp = Py_TYPE(node);
        int is_scale = type_in(tp, scale);
        if (!is_scale && !type_in(tp, pass))
            break;
        PyObject *seq = SLOT(node, SEQ), *fns = SLOT(node, FNS);
        if (seq == NULL || !PyLong_CheckExact(seq) || SLOT(node, OUT_DTYPE) != dt || fns == NULL ||
            !PyTuple_CheckExact(fns) || PyTuple_GET_SIZE(fns) != 2 || PyTuple_GET_ITEM(fns, 1) != Py_None)
            break;
        int overflow = 0;
        long long s = PyLong_AsLongLongAndOverflow(seq, &overflow);
        if (overflow || (s == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            break;
        }
        if (last == NULL)
            first = want = s;
        else if (s != want)
            break;
        if (PyDict_GET_SIZE(buffers)) {
            int c = PyDict_Contains(buffers, node);
            if (c < 0)
                goto error;
            if (c)
                break;
        }
        if (is_scale) {
            PyObject *saved = SLOT(node, SAVED);
            if (saved == NULL || !PyTuple_CheckExact(saved) || PyTuple_GET_SIZE(saved) != 2)
                break;
            PyObject *s0 = PyTuple_GET_ITEM(saved, 0), *b = PyTuple_GET_ITEM(saved, 1);
            if (!PyTuple_CheckExact(s0) || PyTuple_GET_SIZE(s0) != 0 || !(PyFloat_CheckExact(b) || PyLong_CheckExact(b)))
                break;
            if (b != last_b) {
                PyObject *y = PyObject_CallFunctionObjArgs(operand, b, dt, NULL);
                if (y == NULL) {
                    if (PyErr_ExceptionMatches(PyExc_OverflowError) || PyErr_ExceptionMatches(PyExc_ValueError)) {
                        PyErr_Clear();
                        break;
                    }
                    goto error;
                }
                if (!PyFloat_CheckExact(y)) {
                    Py_DECREF(y);
                    break;
                }
                last_y = PyFloat_AS_DOUBLE(y);
                Py_DECREF(y);
                Py_INCREF(b);
                Py_XSETREF(last_b, b);
            }
            double w = v * last_y;
            if (f32) {
                float r = (float)w;
                if (isinf(r) && !isinf(w))
                    break; /* rounds to infinity: the general step (NumPy's cast warns) */
                w = (double)r;
            }
            v = w;
            scaled = 1;
        } else {
            PyObject *kw = SLOT(node, KW);
            if (kw == NULL || !PyTuple_Check(kw) || PyTuple_GET_SIZE(kw) < 1)
                break;
            PyObject *k0 = PyTuple_GET_ITEM(kw, 0);
            if (!PyTuple_Check(k0) || PyTuple_GET_SIZE(k0) != 0)
                break;
        }
        PyObject *next = PyTuple_GET_ITEM(fns, 0);
        Py_INCREF(next);
        if (free_saved) {
            PyObject *old = SLOT(node, SAVED);
            Py_INCREF(Py_None);
            SLOT(node, SAVED) = Py_None;
            Py_XDECREF(old);
        }
        Py_XSETREF(last, node);
        node = next;
        want--;
    }
    if (last == NULL) {
        result = Py_NewRef(Py_None);
    } else {
        result = Py_BuildValue("(Odil)", last, v, scaled, (long)(first - want - 1));
    }
error:
    Py_DECREF(node);
    Py_XDECREF(last);
    Py_XDECREF(last_b);
    return result;
}

static PyMethodDef methods[] = {
    {"scalar_walk", (PyCFunction)(void (*)(void))scalar_walk, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native_chain", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_chain(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
