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

  run_plain_loop(order, deps, buffers, free, accumulate_type, shapes_type, scalar_walks, sum_grads, slots)
      autograd_engine.run_plain's loop over the sorted function nodes, its Python form the reference (see below).

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


/* ------------------------------------------------------------------ run_plain's loop */

enum { R_FNS, R_SAVED, R_SEQ, R_OUT_DTYPE, R_NSLOTS };
static const char *const slot_names[R_NSLOTS] = {"_fns", "_saved", "_seq", "_out_dtype"};

typedef struct {
    Py_ssize_t off[R_NSLOTS];
    PyTypeObject *owner;  /* Node: the slots' class */
    PyObject *acc, *shapes_type, *sum_grads, *buffers, *deps;
} Loop;

static PyObject *str_fuses = NULL, *str_fused_backward = NULL, *str_backward = NULL, *str_dtype = NULL,
                *str_to = NULL, *str_accumulate = NULL, *str_slot[R_NSLOTS];

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
        if (str_variable == NULL && (str_variable = PyUnicode_InternFromString("variable")) == NULL)
            return NULL;
        for (int k = 0; k < R_NSLOTS; ++k)
            if ((str_slot[k] = PyUnicode_InternFromString(slot_names[k])) == NULL)
                return NULL;
        if (str_fuses == NULL || str_fused_backward == NULL || str_backward == NULL || str_dtype == NULL ||
            str_to == NULL || str_accumulate == NULL) {
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
    {"scalar_walk", (PyCFunction)(void (*)(void))scalar_walk, METH_FASTCALL, NULL},
    {"collect_plain", (PyCFunction)(void (*)(void))collect_plain, METH_FASTCALL, NULL},
    {"run_plain_loop", (PyCFunction)(void (*)(void))run_plain_loop, METH_FASTCALL, NULL},
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
