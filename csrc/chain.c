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

  collect_plain(root, accumulate_type, x_slot, fns_slot)
      autograd_engine._collect_plain's walk in C where it finds nothing to decide (see below).

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

/* collect_plain(root, accumulate_type, x_slot, fns_slot): autograd_engine._collect_plain's walk, for the
   graphs it finds nothing in: no node with its rarely used state (_x not None), every node of one output,
   no leaf with post-accumulate hooks. Returns (deps, the function nodes in the order found) as the
   Python walk builds them (the same dict order, the same list), or NotImplemented where the Python walk
   must decide (any of those, a root that is a leaf, an object that is not a node). */
static PyObject *str_n_outputs = NULL, *str_variable = NULL, *str_post_acc_hooks = NULL;

static PyObject *collect_plain(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "collect_plain takes 4 arguments");
        return NULL;
    }
    if (str_n_outputs == NULL) {
        /* interned once: PyObject_GetAttrString made a new string a read, which also missed the type
           attribute cache (keyed by the name's address): ~1.1K instructions a read, 14 reads a step */
        str_n_outputs = PyUnicode_InternFromString("n_outputs");
        str_variable = PyUnicode_InternFromString("variable");
        str_post_acc_hooks = PyUnicode_InternFromString("_post_acc_hooks");
        if (str_n_outputs == NULL || str_variable == NULL || str_post_acc_hooks == NULL) {
            Py_CLEAR(str_n_outputs);
            Py_CLEAR(str_variable);
            Py_CLEAR(str_post_acc_hooks);
            return NULL;
        }
    }
    PyObject *root = args[0], *acc = args[1];
    Py_ssize_t off[2];
    PyTypeObject *owner = NULL;
    for (int i = 0; i < 2; ++i) {
        PyObject *d = args[2 + i];
        if (!Py_IS_TYPE(d, &PyMemberDescr_Type) || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX ||
            (owner != NULL && PyDescr_TYPE(d) != owner)) {
            PyErr_SetString(PyExc_TypeError, "collect_plain: x_slot and fns_slot must be object slots of one class");
            return NULL;
        }
        owner = PyDescr_TYPE(d);
        off[i] = ((PyMemberDescrObject *)d)->d_member->offset;
    }
    if (!PyType_Check(acc) || !PyType_IsSubtype((PyTypeObject *)acc, owner)) {
        PyErr_SetString(PyExc_TypeError, "collect_plain: accumulate_type must be a subclass of the slots' class");
        return NULL;
    }
    if (!PyType_IsSubtype(Py_TYPE(root), owner) || Py_TYPE(root) == (PyTypeObject *)acc)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *deps = PyDict_New(), *functions = PyList_New(0), *stack = PyList_New(0), *result = NULL, *held = NULL;
    PyObject *zero = PyLong_FromLong(0), *one = PyLong_FromLong(1);
    if (deps == NULL || functions == NULL || stack == NULL || zero == NULL || one == NULL ||
        PyDict_SetItem(deps, root, zero) < 0)
        goto done;
    PyObject *node = root; /* borrowed: deps holds every node found */
    for (;;) {
        PyObject *x = *(PyObject **)((char *)node + off[0]);
        PyObject *fns = *(PyObject **)((char *)node + off[1]);
        if (x != Py_None || fns == NULL || !PyTuple_CheckExact(fns))
            goto not_implemented;
        PyObject *n_out = PyObject_GetAttr(node, str_n_outputs);
        if (n_out == NULL)
            goto done;
        int single = n_out == one; /* (1 is one of CPython's cached small ints) */
        Py_DECREF(n_out);
        if (!single)
            goto not_implemented;
        if (PyList_Append(functions, node) < 0)
            goto done;
        PyObject *next_node = NULL;
        Py_INCREF(fns);
        Py_XSETREF(held, fns); /* held while a leaf's attributes are read */
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fns); ++i) {
            PyObject *nxt = PyTuple_GET_ITEM(fns, i);
            if (nxt == Py_None)
                continue;
            if (!PyType_IsSubtype(Py_TYPE(nxt), owner))
                goto not_implemented;
            PyObject *count = PyDict_GetItemWithError(deps, nxt);
            if (count != NULL) {
                PyObject *more = PyNumber_Add(count, one);
                if (more == NULL)
                    goto done;
                int bad = PyDict_SetItem(deps, nxt, more);
                Py_DECREF(more);
                if (bad < 0)
                    goto done;
                continue;
            }
            if (PyErr_Occurred() || PyDict_SetItem(deps, nxt, one) < 0)
                goto done;
            if (Py_TYPE(nxt) == (PyTypeObject *)acc) {
                if (*(PyObject **)((char *)nxt + off[0]) != Py_None)
                    goto not_implemented;
                PyObject *var = PyObject_GetAttr(nxt, str_variable);
                if (var == NULL)
                    goto done;
                PyObject *hooks = PyObject_GetAttr(var, str_post_acc_hooks);
                Py_DECREF(var);
                if (hooks == NULL)
                    goto done;
                int some = PyObject_IsTrue(hooks);
                Py_DECREF(hooks);
                if (some)
                    goto not_implemented;
            } else if (next_node == NULL) {
                next_node = nxt;
            } else if (PyList_Append(stack, nxt) < 0) {
                goto done;
            }
        }
        if (next_node != NULL) {
            node = next_node;
        } else {
            Py_ssize_t n = PyList_GET_SIZE(stack);
            if (n == 0)
                break;
            node = PyList_GET_ITEM(stack, n - 1); /* deps holds it */
            if (PyList_SetSlice(stack, n - 1, n, NULL) < 0)
                goto done;
        }
    }
    result = PyTuple_Pack(2, deps, functions);
    goto done;
not_implemented:
    result = Py_NewRef(Py_NotImplemented);
done:
    Py_XDECREF(deps);
    Py_XDECREF(functions);
    Py_XDECREF(stack);
    Py_XDECREF(zero);
    Py_XDECREF(one);
    Py_XDECREF(held);
    return result;
}


static PyMethodDef methods[] = {
    {"scalar_walk", (PyCFunction)(void (*)(void))scalar_walk, METH_FASTCALL, NULL},
    {"collect_plain", (PyCFunction)(void (*)(void))collect_plain, METH_FASTCALL, NULL},
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
