/* gradcli._native_record: the engine's smallest hot helpers in C, called several times by every op.

Each function is the C form of a Python function of gradcli/engine, which stays the reference (it runs
under GRADCLI_NATIVE=0, until the process has run a training loop's worth of backward passes, and for
every argument the C form does not take): gradcli/engine/native_record.py installs these in its place,
and tests/test_native_record.py compares the two.

  setup(tensor_type, tensor_slots, ndarray, grad_mode, inference_slot, no_version, node_type, node_slots,
        sequence_numbers, site_hook, saved_type, saved_slots, python, node_observer)
      the objects and member descriptors the helpers use (checked: object slots of the classes named),
      python: the reference functions (wrap, stamp, saved_value, attach), called for what C does not take.
  wrap(data, dtype)                 tensor.wrap: a new leaf Tensor around a NumPy array
  stamp(node, out_dtype, kw)        autograd.stamp: a new node's kw, sequence number, output dtype, _x, site
  saved_value(tensor, is_output)    autograd.saved_value: a SavedValue of a tensor and its version
  attach(node, out, inputs)         function.attach: out becomes node's output (the node observer told)

Nothing is read or written but through the member descriptors setup() was given, on objects whose class
is (a subclass of) the descriptors' class; an object is made as `object.__new__(cls)` makes it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

enum { T_DATA, T_DTYPE, T_RG, T_GRAD_FN, T_VERSION, T_BASE, T_N };
enum { N_KW, N_SEQ, N_OUT_DTYPE, N_X, N_SITE, N_N };
enum { S_TENSOR, S_VERSION, S_IS_OUTPUT, S_SHAPE, S_N };
enum { PY_WRAP, PY_STAMP, PY_SAVED_VALUE, PY_ATTACH, PY_N };

static struct {
    int ready;
    PyTypeObject *tensor, *ndarray, *node, *saved;
    PyObject *grad_mode, *no_version, *sequence_numbers, *site_hook, *node_observer, *python[PY_N];
    Py_ssize_t t_off[T_N], inference_off, n_off[N_N], s_off[S_N];
} R;

/* the offsets of `count` member descriptors (a tuple) of one class, which is (a subclass of) want */
static int offsets(PyObject *slots, int count, PyTypeObject *want, Py_ssize_t *off)
{
    if (!PyTuple_CheckExact(slots) || PyTuple_GET_SIZE(slots) != count) {
        PyErr_Format(PyExc_TypeError, "setup: a tuple of %d member descriptors expected", count);
        return -1;
    }
    for (int i = 0; i < count; ++i) {
        PyObject *d = PyTuple_GET_ITEM(slots, i);
        if (!Py_IS_TYPE(d, &PyMemberDescr_Type) || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX ||
            (((PyMemberDescrObject *)d)->d_member->flags & READONLY) || !PyType_IsSubtype(want, PyDescr_TYPE(d))) {
            PyErr_SetString(PyExc_TypeError, "setup: writable object slots of the class given expected");
            return -1;
        }
        off[i] = ((PyMemberDescrObject *)d)->d_member->offset;
    }
    return 0;
}

#define AT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static void set_at(PyObject *obj, Py_ssize_t off, PyObject *value)  /* member_set's store (value: new reference) */
{
    Py_XSETREF(AT(obj, off), value);
}

static PyObject *setup(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    if (n != 14) {
        PyErr_SetString(PyExc_TypeError, "setup takes 14 arguments");
        return NULL;
    }
    for (int i = 0; i < 13; i += 1)
        if ((i == 0 || i == 2 || i == 6 || i == 10) && !PyType_Check(args[i])) {
            PyErr_SetString(PyExc_TypeError, "setup: a class expected");
            return NULL;
        }
    PyTypeObject *tensor = (PyTypeObject *)args[0], *node = (PyTypeObject *)args[6], *saved = (PyTypeObject *)args[10];
    PyObject *inference[1] = {args[4]};
    PyObject *inference_slot = PyTuple_Pack(1, inference[0]);
    if (inference_slot == NULL)
        return NULL;
    Py_ssize_t t_off[T_N], n_off[N_N], s_off[S_N], inf_off[1];
    int bad = offsets(args[1], T_N, tensor, t_off) < 0 || offsets(inference_slot, 1, Py_TYPE(args[3]), inf_off) < 0 ||
              offsets(args[7], N_N, node, n_off) < 0 || offsets(args[11], S_N, saved, s_off) < 0;
    Py_DECREF(inference_slot);
    if (bad)
        return NULL;
    if (!PyList_CheckExact(args[9]) || PyList_GET_SIZE(args[9]) != 1 || !PyIter_Check(args[8]) ||
        !PyTuple_CheckExact(args[12]) || PyTuple_GET_SIZE(args[12]) != PY_N || !PyList_CheckExact(args[13]) ||
        PyList_GET_SIZE(args[13]) != 1) {
        PyErr_SetString(PyExc_TypeError, "setup: site_hook and node_observer must be lists of one item, sequence_numbers "
                                         "an iterator, python a tuple of the 4 reference functions");
        return NULL;
    }
    R.ready = 0;
    Py_XSETREF(R.tensor, (PyTypeObject *)Py_NewRef(args[0]));
    Py_XSETREF(R.ndarray, (PyTypeObject *)Py_NewRef(args[2]));
    Py_XSETREF(R.grad_mode, Py_NewRef(args[3]));
    Py_XSETREF(R.no_version, Py_NewRef(args[5]));
    Py_XSETREF(R.node, (PyTypeObject *)Py_NewRef(args[6]));
    Py_XSETREF(R.sequence_numbers, Py_NewRef(args[8]));
    Py_XSETREF(R.site_hook, Py_NewRef(args[9]));
    Py_XSETREF(R.saved, (PyTypeObject *)Py_NewRef(args[10]));
    Py_XSETREF(R.node_observer, Py_NewRef(args[13]));
    for (int i = 0; i < PY_N; ++i)
        Py_XSETREF(R.python[i], Py_NewRef(PyTuple_GET_ITEM(args[12], i)));
    memcpy(R.t_off, t_off, sizeof t_off);
    memcpy(R.n_off, n_off, sizeof n_off);
    memcpy(R.s_off, s_off, sizeof s_off);
    R.inference_off = inf_off[0];
    R.ready = 1;
    Py_RETURN_NONE;
}

static int ready(void)
{
    if (!R.ready)
        PyErr_SetString(PyExc_RuntimeError, "gradcli._native_record: setup() has not run");
    return R.ready;
}

/* object.__new__(tp) */
static PyObject *new_object(PyTypeObject *tp)
{
    static PyObject *no_args = NULL;
    if (no_args == NULL && (no_args = PyTuple_New(0)) == NULL)
        return NULL;
    return PyBaseObject_Type.tp_new(tp, no_args, NULL);
}

/* wrap(data, dtype): tensor.wrap for data of exactly numpy.ndarray (anything else: the Python wrap) */
static PyObject *wrap(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    if (n != 2) {
        PyErr_SetString(PyExc_TypeError, "wrap(data, dtype)");
        return NULL;
    }
    if (!ready())
        return NULL;
    if (Py_TYPE(args[0]) != R.ndarray)
        return PyObject_Vectorcall(R.python[PY_WRAP], args, 2, NULL);
    PyObject *inference = AT(R.grad_mode, R.inference_off);
    int inf = inference == NULL ? -1 : PyObject_IsTrue(inference);
    if (inf < 0) {
        if (inference == NULL)
            PyErr_SetString(PyExc_AttributeError, "'_GradMode' object has no attribute 'inference'");
        return NULL;
    }
    PyObject *version;
    if (inf) {
        version = Py_NewRef(R.no_version);
    } else {
        version = PyList_New(1);
        if (version == NULL)
            return NULL;
        PyList_SET_ITEM(version, 0, PyLong_FromLong(0));
    }
    PyObject *t = new_object(R.tensor);
    if (t == NULL) {
        Py_DECREF(version);
        return NULL;
    }
    set_at(t, R.t_off[T_DATA], Py_NewRef(args[0]));
    set_at(t, R.t_off[T_DTYPE], Py_NewRef(args[1]));
    set_at(t, R.t_off[T_RG], Py_NewRef(Py_False));
    set_at(t, R.t_off[T_GRAD_FN], Py_NewRef(Py_None));
    set_at(t, R.t_off[T_VERSION], version);
    set_at(t, R.t_off[T_BASE], Py_NewRef(Py_None));
    return t;
}

/* stamp(node, out_dtype, kw): autograd.stamp for a Node (anything else: the Python stamp) */
static PyObject *stamp(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    if (n != 3) {
        PyErr_SetString(PyExc_TypeError, "stamp(node, out_dtype, kw)");
        return NULL;
    }
    if (!ready())
        return NULL;
    PyObject *node = args[0];
    if (!PyType_IsSubtype(Py_TYPE(node), R.node))
        return PyObject_Vectorcall(R.python[PY_STAMP], args, 3, NULL);
    set_at(node, R.n_off[N_KW], Py_NewRef(args[2]));
    PyObject *seq = PyIter_Next(R.sequence_numbers);
    if (seq == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetNone(PyExc_StopIteration);
        return NULL;
    }
    set_at(node, R.n_off[N_SEQ], seq);
    set_at(node, R.n_off[N_OUT_DTYPE], Py_NewRef(args[1]));
    set_at(node, R.n_off[N_X], Py_NewRef(Py_None));
    if (PyList_GET_SIZE(R.site_hook) < 1) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return NULL;
    }
    PyObject *hook = PyList_GET_ITEM(R.site_hook, 0);
    PyObject *site;
    if (hook == Py_None) {
        site = Py_NewRef(Py_None);
    } else {
        Py_INCREF(hook);
        site = PyObject_CallNoArgs(hook);
        Py_DECREF(hook);
        if (site == NULL)
            return NULL;
    }
    set_at(node, R.n_off[N_SITE], site);
    Py_RETURN_NONE;
}

/* saved_value(tensor, is_output=False): autograd.saved_value for a Tensor whose version counter is a list (anything
   else, and the error of an inference tensor: the Python saved_value); an output's keeps its array's shape */
static PyObject *saved_value(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    if (n != 1 && n != 2) {
        PyErr_SetString(PyExc_TypeError, "saved_value(tensor, is_output=False)");
        return NULL;
    }
    if (!ready())
        return NULL;
    PyObject *t = args[0];
    const int tensor = PyType_IsSubtype(Py_TYPE(t), R.tensor);
    PyObject *v = tensor ? AT(t, R.t_off[T_VERSION]) : NULL, *data = tensor ? AT(t, R.t_off[T_DATA]) : NULL;
    if (v == NULL || data == NULL || !PyList_CheckExact(v) || PyList_GET_SIZE(v) < 1)
        return PyObject_Vectorcall(R.python[PY_SAVED_VALUE], args, n, NULL);
    PyObject *is_output = n == 2 ? args[1] : Py_False;
    const int out = PyObject_IsTrue(is_output);
    if (out < 0)
        return NULL;
    PyObject *version = Py_NewRef(PyList_GET_ITEM(v, 0));  /* (read before anything else may run) */
    PyObject *shape = out ? PyObject_GetAttrString(data, "shape") : Py_NewRef(Py_None);
    PyObject *s = shape != NULL ? new_object(R.saved) : NULL;
    if (s == NULL) {
        Py_DECREF(version);
        Py_XDECREF(shape);
        return NULL;
    }
    set_at(s, R.s_off[S_TENSOR], Py_NewRef(t));
    set_at(s, R.s_off[S_VERSION], version);
    set_at(s, R.s_off[S_IS_OUTPUT], Py_NewRef(is_output));
    set_at(s, R.s_off[S_SHAPE], shape);
    return s;
}

/* attach(node, out, inputs): function.attach for a Tensor out (anything else: the Python attach) */
static PyObject *attach(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    if (n != 3) {
        PyErr_SetString(PyExc_TypeError, "attach(node, out, inputs)");
        return NULL;
    }
    if (!ready())
        return NULL;
    PyObject *node = args[0], *out = args[1];
    if (!PyType_IsSubtype(Py_TYPE(out), R.tensor))
        return PyObject_Vectorcall(R.python[PY_ATTACH], args, 3, NULL);
    set_at(out, R.t_off[T_RG], Py_NewRef(Py_True));
    set_at(out, R.t_off[T_GRAD_FN], Py_NewRef(node));
    if (PyList_GET_SIZE(R.node_observer) < 1) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return NULL;
    }
    PyObject *obs = PyList_GET_ITEM(R.node_observer, 0);
    if (obs != Py_None) {
        PyObject *outs = PyTuple_Pack(1, out);
        if (outs == NULL)
            return NULL;
        Py_INCREF(obs);
        PyObject *r = PyObject_CallFunctionObjArgs(obs, node, args[2], outs, NULL);
        Py_DECREF(obs);
        Py_DECREF(outs);
        if (r == NULL)
            return NULL;
        Py_DECREF(r);
    }
    return Py_NewRef(out);
}

#define FN(name) {#name, (PyCFunction)(void (*)(void))name, METH_FASTCALL, NULL}

static PyMethodDef methods[] = {FN(setup), FN(wrap), FN(stamp), FN(saved_value), FN(attach), {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native_record", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_record(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
