/* gradcli._native_backward: autograd_engine.run_plain's loop in C.

  run_plain_loop(order, deps, buffers, free, accumulate_type, shapes_type, scalar_walks, sum_grads, slots)
      run_plain's loop over the sorted function nodes (the graph csrc/chain.c's collect_plain found), its Python
      form the reference (tests/test_native_backward_loop.py compares the two); see run_plain_loop below.

Nothing is read or written but through the member descriptors of Node given (on objects of a subclass of their
class; anything else is read by name, as Python reads it), the dicts and the calls Python makes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

enum { R_FNS, R_SAVED, R_SEQ, R_OUT_DTYPE, R_NSLOTS };
static const char *const slot_names[R_NSLOTS] = {"_fns", "_saved", "_seq", "_out_dtype"};

typedef struct {
    Py_ssize_t off[R_NSLOTS];
    PyTypeObject *owner;  /* Node: the slots' class */
    PyObject *acc, *shapes_type, *sum_grads, *buffers, *deps;
} Loop;

static PyObject *str_fuses = NULL, *str_fused_backward = NULL, *str_backward = NULL, *str_dtype = NULL,
                *str_to = NULL, *str_accumulate = NULL, *str_variable = NULL, *str_slot[R_NSLOTS];

/* obj's slot k (new reference): read at its offset for a Node, by name for anything else (as Python reads it) */
static PyObject *slot_get(const Loop *L, PyObject *obj, int k)
{
    if (!PyType_IsSubtype(Py_TYPE(obj), L->owner))
        return PyObject_GetAttr(obj, str_slot[k]);
    PyObject *v = *(PyObject **)((char *)obj + L->off[k]);
    if (v == NULL) {
        PyErr_Format(PyExc_AttributeError, "'%.100s' object has no attribute '%s'", Py_TYPE(obj)->tp_name,
                     slot_names[k]);
        return NULL;
    }
    return Py_NewRef(v);
}

/* `if free and node._saved.__class__ is not SavedShapes: node._saved = None` */
static int free_saved(const Loop *L, PyObject *node)
{
    PyObject *saved = slot_get(L, node, R_SAVED);
    if (saved == NULL)
        return -1;
    const int keep = Py_TYPE(saved) == (PyTypeObject *)L->shapes_type;
    Py_DECREF(saved);
    return keep ? 0 : PyObject_SetAttr(node, str_slot[R_SAVED], Py_None);
}

/* gk, or `gk.to(want)` where gk.dtype is not want (new reference) */
static PyObject *to_dtype(PyObject *gk, PyObject *want)
{
    PyObject *dt = PyObject_GetAttr(gk, str_dtype);
    if (dt == NULL)
        return NULL;
    const int same = dt == want;
    Py_DECREF(dt);
    if (same)
        return Py_NewRef(gk);
    PyObject *args[2] = {gk, want};
    return PyObject_VectorcallMethod(str_to, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

/* run_plain's routing of node's input gradients (in_grads: a sequence, or NULL for none): each one not None
   (converted to its edge's dtype) to its edge's buffer, added by sum_grads to one already there; every
   AccumulateGrad edge counted down in deps, a leaf whose count reaches 0 appended to *done (made when first
   needed). */
static int route(const Loop *L, PyObject *node, PyObject *in_grads, PyObject **done)
{
    PyObject *fns_obj = slot_get(L, node, R_FNS), *fns = NULL, *grads = NULL;
    int status = -1;
    if (fns_obj == NULL)
        return -1;
    fns = PySequence_Fast(fns_obj, "a node's _fns must be a sequence");
    Py_DECREF(fns_obj);
    if (fns == NULL)
        return -1;
    Py_ssize_t n_in = 0;
    if (in_grads != NULL) {
        grads = PySequence_Fast(in_grads, "a node's backward must return a sequence");
        if (grads == NULL)
            goto done;
        n_in = PySequence_Fast_GET_SIZE(grads);
    }
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(fns); ++k) {
        PyObject *nxt = PySequence_Fast_GET_ITEM(fns, k);
        if (nxt == Py_None)
            continue;
        Py_INCREF(nxt);  /* held: the calls below may run any code */
        if (k < n_in) {
            PyObject *gk = PySequence_Fast_GET_ITEM(grads, k);
            if (gk != Py_None) {
                PyObject *want = slot_get(L, nxt, R_OUT_DTYPE);
                PyObject *conv = want != NULL ? to_dtype(gk, want) : NULL;
                Py_XDECREF(want);
                if (conv == NULL)
                    goto fail;
                PyObject *prev = PyDict_GetItemWithError(L->buffers, nxt);  /* borrowed */
                if (prev == NULL && PyErr_Occurred()) {
                    Py_DECREF(conv);
                    goto fail;
                }
                if (prev != NULL && prev != Py_None) {
                    PyObject *sum = PyObject_CallFunctionObjArgs(L->sum_grads, prev, conv, NULL);
                    Py_SETREF(conv, sum);
                    if (conv == NULL)
                        goto fail;
                }
                const int bad = PyDict_SetItem(L->buffers, nxt, conv);
                Py_DECREF(conv);
                if (bad < 0)
                    goto fail;
            }
        }
        if (Py_TYPE(nxt) == (PyTypeObject *)L->acc) {
            PyObject *d = PyDict_GetItemWithError(L->deps, nxt);  /* borrowed */
            if (d == NULL) {
                if (!PyErr_Occurred())
                    PyErr_SetObject(PyExc_KeyError, nxt);
                goto fail;
            }
            const long c = PyLong_AsLong(d);  /* (collect_plain's counts: ints) */
            if (c == -1 && PyErr_Occurred())
                goto fail;
            PyObject *less = PyLong_FromLong(c - 1);
            if (less == NULL)
                goto fail;
            const int bad = PyDict_SetItem(L->deps, nxt, less);
            Py_DECREF(less);
            if (bad < 0)
                goto fail;
            if (c == 1) {
                if (*done == NULL && (*done = PyList_New(0)) == NULL)
                    goto fail;
                if (PyList_Append(*done, nxt) < 0)
                    goto fail;
            }
        }
        Py_DECREF(nxt);
        continue;
    fail:
        Py_DECREF(nxt);
        goto done;
    }
    status = 0;
done:
    Py_XDECREF(grads);
    Py_DECREF(fns);
    return status;
}

/* The fused pair's edge, `ch = node._fns[fz[0]]`, when ch is of class fz[1], the next node to run (sequence
   number one lower) and fed by node alone (deps[ch] == 1); else NULL (new reference; NULL with an error set on
   failure) */
static PyObject *fused_child(const Loop *L, PyObject *node, PyObject *fz)
{
    if (!PyTuple_CheckExact(fz) || PyTuple_GET_SIZE(fz) != 2) {
        PyErr_SetString(PyExc_TypeError, "a node class's fuses must be (edge index, node class)");
        return NULL;
    }
    PyObject *fns = slot_get(L, node, R_FNS);
    if (fns == NULL)
        return NULL;
    PyObject *ch = PyObject_GetItem(fns, PyTuple_GET_ITEM(fz, 0));
    Py_DECREF(fns);
    if (ch == NULL)
        return NULL;
    if (ch == Py_None || (PyObject *)Py_TYPE(ch) != PyTuple_GET_ITEM(fz, 1)) {
        Py_DECREF(ch);
        return NULL;
    }
    PyObject *a = slot_get(L, ch, R_SEQ), *b = a != NULL ? slot_get(L, node, R_SEQ) : NULL;
    PyObject *one = b != NULL ? PyLong_FromLong(1) : NULL;
    PyObject *lower = one != NULL ? PyNumber_Subtract(b, one) : NULL;
    int next = lower != NULL ? PyObject_RichCompareBool(a, lower, Py_EQ) : -1;
    Py_XDECREF(lower);
    Py_XDECREF(one);
    Py_XDECREF(b);
    Py_XDECREF(a);
    if (next > 0) {
        PyObject *d = PyDict_GetItemWithError(L->deps, ch);  /* borrowed */
        if (d == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, ch);
            next = -1;
        } else {
            PyObject *one1 = PyLong_FromLong(1);
            next = one1 != NULL ? PyObject_RichCompareBool(d, one1, Py_EQ) : -1;
            Py_XDECREF(one1);
        }
    }
    if (next <= 0) {
        Py_DECREF(ch);
        return NULL;
    }
    return ch;
}

/* buffers.pop(key, None) (new reference, or NULL: absent, or an error set) */
static PyObject *dict_pop(PyObject *d, PyObject *key)
{
    PyObject *v = PyDict_GetItemWithError(d, key);
    if (v == NULL)
        return NULL;
    Py_INCREF(v);
    if (PyDict_DelItem(d, key) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

/* run_plain_loop(order, deps, buffers, free, accumulate_type, shapes_type, scalar_walks, sum_grads, slots):
   autograd_engine.run_plain's loop from `buffers = {root: g}` on (buffers: that dict, used as the loop's), over order (the function nodes sorted by
   decreasing sequence number) with deps (collect_plain's counts), the same calls in the same order (each node's
   backward or fused_backward, a scalar walker, sum_grads, Tensor.to, each leaf's variable._accumulate) and the
   same gradients handed on. slots: Node's member descriptors _fns, _saved, _seq, _out_dtype. A leaf's gradient is
   `sole` when nothing but the loop holds it (run_plain's refcount test, here with no reference of the loop's
   own but the one taken from buffers). Returns True, or NotImplemented (nothing done) when an item of order is
   not a Node. */
static PyObject *run_plain_loop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9 || !PyList_CheckExact(args[0]) || !PyDict_CheckExact(args[1]) || !PyDict_CheckExact(args[2]) ||
        !PyDict_CheckExact(args[6]) || !PyTuple_CheckExact(args[8]) || PyTuple_GET_SIZE(args[8]) != R_NSLOTS) {
        PyErr_SetString(PyExc_TypeError, "run_plain_loop(order: list, deps: dict, buffers: dict, free, accumulate_type, "
                                         "shapes_type, scalar_walks: dict, sum_grads, slots: 4 descriptors)");
        return NULL;
    }
    if (str_fuses == NULL) {
        str_fuses = PyUnicode_InternFromString("fuses");
        str_fused_backward = PyUnicode_InternFromString("fused_backward");
        str_backward = PyUnicode_InternFromString("backward");
        str_dtype = PyUnicode_InternFromString("dtype");
        str_to = PyUnicode_InternFromString("to");
        str_accumulate = PyUnicode_InternFromString("_accumulate");
        str_variable = PyUnicode_InternFromString("variable");
        for (int k = 0; k < R_NSLOTS; ++k)
            if ((str_slot[k] = PyUnicode_InternFromString(slot_names[k])) == NULL)
                return NULL;
        if (str_fuses == NULL || str_fused_backward == NULL || str_backward == NULL || str_dtype == NULL ||
            str_to == NULL || str_accumulate == NULL || str_variable == NULL) {
            Py_CLEAR(str_fuses);
            return NULL;
        }
    }
    Loop L;
    L.owner = NULL;
    for (int k = 0; k < R_NSLOTS; ++k) {
        PyObject *d = PyTuple_GET_ITEM(args[8], k);
        if (!Py_IS_TYPE(d, &PyMemberDescr_Type) || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX ||
            (((PyMemberDescrObject *)d)->d_member->flags & READONLY) || (L.owner != NULL && PyDescr_TYPE(d) != L.owner)) {
            PyErr_SetString(PyExc_TypeError, "run_plain_loop: slots must be writable object slots of one class");
            return NULL;
        }
        L.owner = PyDescr_TYPE(d);
        L.off[k] = ((PyMemberDescrObject *)d)->d_member->offset;
    }
    PyObject *order = args[0], *walks = args[6];
    L.deps = args[1];
    L.buffers = args[2];
    L.acc = args[4];
    L.shapes_type = args[5];
    L.sum_grads = args[7];
    const int free = PyObject_IsTrue(args[3]);
    if (free < 0)
        return NULL;
    if (!PyType_Check(L.acc) || !PyType_Check(L.shapes_type)) {
        PyErr_SetString(PyExc_TypeError, "run_plain_loop: accumulate_type and shapes_type must be classes");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(order); ++i)
        if (!PyType_IsSubtype(Py_TYPE(PyList_GET_ITEM(order, i)), L.owner))
            Py_RETURN_NOTIMPLEMENTED;
    order = PySequence_Tuple(order);  /* (a copy: nothing a backward does can change the loop's items) */
    if (order == NULL)
        return NULL;
    PyObject *result = NULL, *node = NULL, *gn = NULL, *in_grads = NULL, *ch = NULL, *gt = NULL, *done = NULL;
    const Py_ssize_t n = PyTuple_GET_SIZE(order);
    PyObject *n_obj = PyLong_FromSsize_t(n);
    if (n_obj == NULL)
        goto finish;
    for (Py_ssize_t i = 0; i < n; ++i) {
        node = Py_NewRef(PyTuple_GET_ITEM(order, i));
        gn = dict_pop(L.buffers, node);
        if (gn == NULL && PyErr_Occurred())
            goto fail;
        if (gn == Py_None)  /* (buffers.pop(node, None) is None) */
            Py_CLEAR(gn);
        int walked = 0;
        if (gn != NULL) {
            PyObject *walk = PyDict_GetItemWithError(walks, (PyObject *)Py_TYPE(node));  /* borrowed */
            if (walk == NULL && PyErr_Occurred())
                goto fail;
            if (walk != NULL) {
                PyObject *wargs[5] = {node, gn, free ? Py_True : Py_False, L.buffers, n_obj};
                PyObject *run = PyObject_Vectorcall(walk, wargs, 5, NULL);
                if (run == NULL)
                    goto fail;
                const int ran = PyObject_IsTrue(run);
                if (ran < 0) {
                    Py_DECREF(run);
                    goto fail;
                }
                if (ran) {  /* m, node, gk = run: the chain's last node run and its first input's gradient */
                    PyObject *t = PySequence_Tuple(run);
                    Py_DECREF(run);
                    if (t == NULL)
                        goto fail;
                    if (PyTuple_GET_SIZE(t) != 3) {
                        PyErr_SetString(PyExc_ValueError, "a scalar walk returns (m, node, gk)");
                        Py_DECREF(t);
                        goto fail;
                    }
                    const Py_ssize_t m = PyNumber_AsSsize_t(PyTuple_GET_ITEM(t, 0), PyExc_OverflowError);
                    if (m == -1 && PyErr_Occurred()) {
                        Py_DECREF(t);
                        goto fail;
                    }
                    if (m > 0)
                        i = m < n - i ? i + m : n;  /* the nodes run: each was the next in order */
                    Py_SETREF(node, Py_NewRef(PyTuple_GET_ITEM(t, 1)));
                    in_grads = PyTuple_Pack(1, PyTuple_GET_ITEM(t, 2));
                    Py_DECREF(t);
                    if (in_grads == NULL)
                        goto fail;
                    walked = 1;
                } else {
                    Py_DECREF(run);
                }
            }
            if (!walked) {
                PyObject *fz = PyObject_GetAttr(node, str_fuses);
                if (fz == NULL)
                    goto fail;
                if (fz != Py_None) {
                    ch = fused_child(&L, node, fz);
                    if (ch == NULL && PyErr_Occurred()) {
                        Py_DECREF(fz);
                        goto fail;
                    }
                }
                Py_DECREF(fz);
                if (ch != NULL) {
                    PyObject *fargs[3] = {node, gn, ch};
                    PyObject *fused = PyObject_VectorcallMethod(str_fused_backward, fargs,
                                                                3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
                    if (fused == NULL)
                        goto fail;
                    if (fused != Py_None) {  /* in_grads, gt = fused; the child is done in this step */
                        PyObject *t = PySequence_Tuple(fused);
                        Py_DECREF(fused);
                        if (t == NULL)
                            goto fail;
                        if (PyTuple_GET_SIZE(t) != 2) {
                            PyErr_SetString(PyExc_ValueError, "fused_backward returns (in_grads, gt)");
                            Py_DECREF(t);
                            goto fail;
                        }
                        in_grads = Py_NewRef(PyTuple_GET_ITEM(t, 0));
                        gt = Py_NewRef(PyTuple_GET_ITEM(t, 1));
                        Py_DECREF(t);
                        i += 1;
                    } else {
                        Py_DECREF(fused);
                        Py_CLEAR(ch);
                    }
                }
                if (ch == NULL) {
                    PyObject *bargs[2] = {node, gn};
                    in_grads = PyObject_VectorcallMethod(str_backward, bargs, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
                    if (in_grads == NULL)
                        goto fail;
                }
            }
        }
        if (free && free_saved(&L, node) < 0)
            goto fail;
        if (route(&L, node, in_grads == Py_None ? NULL : in_grads, &done) < 0)
            goto fail;
        if (ch != NULL) {  /* the fused child's step: its gradient to its edge */
            if (free && free_saved(&L, ch) < 0)
                goto fail;
            Py_CLEAR(in_grads);
            if (gt != NULL && gt != Py_None) {
                PyObject *want = slot_get(&L, ch, R_OUT_DTYPE);
                PyObject *conv = want != NULL ? to_dtype(gt, want) : NULL;
                Py_XDECREF(want);
                Py_SETREF(gt, conv);
                if (gt == NULL)
                    goto fail;
                in_grads = PyTuple_Pack(1, gt);
                if (in_grads == NULL)
                    goto fail;
            }
            Py_CLEAR(gt);
            if (route(&L, ch, in_grads, &done) < 0)
                goto fail;
        }
        Py_CLEAR(in_grads);
        Py_CLEAR(gt);
        Py_CLEAR(ch);
        Py_CLEAR(gn);
        if (done != NULL) {
            for (Py_ssize_t j = 0; j < PyList_GET_SIZE(done); ++j) {
                PyObject *leaf = PyList_GET_ITEM(done, j);  /* (done holds it) */
                PyObject *lg = dict_pop(L.buffers, leaf);
                if (lg == NULL && PyErr_Occurred())
                    goto fail;
                if (lg == NULL || lg == Py_None) {
                    Py_XDECREF(lg);
                    continue;
                }
                const int sole = Py_REFCNT(lg) == 1;  /* run_plain's getrefcount(g) == 2 */
                PyObject *var = PyObject_GetAttr(leaf, str_variable);
                if (var == NULL) {
                    Py_DECREF(lg);
                    goto fail;
                }
                PyObject *aargs[4] = {var, lg, Py_False, sole ? Py_True : Py_False};
                PyObject *r = PyObject_VectorcallMethod(str_accumulate, aargs, 4 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
                Py_DECREF(var);
                Py_DECREF(lg);
                if (r == NULL)
                    goto fail;
                Py_DECREF(r);
            }
            Py_CLEAR(done);
        }
        Py_CLEAR(node);
    }
    result = Py_NewRef(Py_True);
fail:
    Py_XDECREF(n_obj);
    Py_XDECREF(node);
    Py_XDECREF(gn);
    Py_XDECREF(in_grads);
    Py_XDECREF(ch);
    Py_XDECREF(gt);
    Py_XDECREF(done);
finish:
    Py_DECREF(order);
    return result;
}

static PyMethodDef methods[] = {
    {"run_plain_loop", (PyCFunction)(void (*)(void))run_plain_loop, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native_backward", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_backward(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
