/* gradcli._native_lang: the script interpreter's attribute read of an nn.Module's parameter, buffer or
 * submodule (self.fc1 in a forward) without the failed lookup before Module.__getattr__.
 *
 * Python finds self.fc1 by the type's lookup (nothing), the instance's __dict__ (nothing), and only then
 * Module.__getattr__, which reads the three stores; on Python 3.11 the failed generic lookup first raises and
 * formats an AttributeError that the hook then clears: ~11K instructions a read, twenty times a plain
 * attribute's. read_attr(obj, name) answers the same value as getattr(obj, name) in one call: where obj's type
 * has Module.__getattr__ (handed to setup) and object's own __getattribute__, name is no attribute of the type
 * (no descriptor or class value) and not in the instance's dict, and name does not start with "__", it is what
 * Module.__getattr__ returns: the first of __dict__'s "_parameters", "_buffers", "_modules" (plain dicts)
 * holding it. Anything else, and a name none of them holds, is getattr(obj, name) itself (its value or its
 * error). gradcli/lang/pyvalues.py uses it for CHECKED reads; tests/test_native_lang.py compares it with
 * getattr.
 *
 * forward_of(obj) answers, for a script's call of an nn.Module, the `forward` Module.__call__ would run: where obj's
 * type has Module.__call__ (handed to setup_call) and object's own __getattribute__, its `forward` (found on the
 * type) is a Python function or a script function (the type handed to setup_call), the instance's dict holds no
 * `forward` and none of the hooks Module.__call__ looks for (a non-empty _forward_pre_hooks or _forward_hooks; a
 * _backward_hooks, _backward_pre_hooks or _non_full_backward_hooks at all: engine/nn/module.py's test), it is that
 * function, which the caller runs as forward(obj, *args): Module.__call__'s plain branch without its frame and
 * the bound method (tests/test_module_call_fast.py). Anything else is None: the caller calls obj. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

static PyObject *module_getattr = NULL, *generic_getattribute = NULL;
static PyObject *str_getattr = NULL, *str_getattribute = NULL, *stores[3] = {NULL, NULL, NULL};
static PyObject *module_call = NULL, *script_function = NULL, *str_call = NULL, *str_forward = NULL;
/* Module.__call__'s hooks: those that count when non-empty, then those that count when present */
static PyObject *hooks_nonempty[2] = {NULL, NULL}, *hooks_present[3] = {NULL, NULL, NULL};

/* setup(Module.__getattr__, object.__getattribute__) */
static PyObject *setup(PyObject *self, PyObject *args) {
    PyObject *hook, *generic;
    if (!PyArg_ParseTuple(args, "OO", &hook, &generic)) return NULL;
    if (str_getattr == NULL) {
        str_getattr = PyUnicode_InternFromString("__getattr__");
        str_getattribute = PyUnicode_InternFromString("__getattribute__");
        stores[0] = PyUnicode_InternFromString("_parameters");
        stores[1] = PyUnicode_InternFromString("_buffers");
        stores[2] = PyUnicode_InternFromString("_modules");
        if (str_getattr == NULL || str_getattribute == NULL || stores[0] == NULL || stores[1] == NULL ||
            stores[2] == NULL)
            return NULL;
    }
    Py_XSETREF(module_getattr, Py_NewRef(hook));
    Py_XSETREF(generic_getattribute, Py_NewRef(generic));
    Py_RETURN_NONE;
}

/* the value Module.__getattr__ would return for a name nobody else answers, a new reference, or NULL with no
 * error set (the caller then runs getattr) */
static PyObject *from_stores(PyObject *obj, PyObject *name) {
    PyTypeObject *tp = Py_TYPE(obj);
    if (module_getattr == NULL || _PyType_Lookup(tp, str_getattr) != module_getattr ||
        _PyType_Lookup(tp, str_getattribute) != generic_getattribute || _PyType_Lookup(tp, name) != NULL)
        return NULL;
    if (PyUnicode_GET_LENGTH(name) >= 2 && PyUnicode_READ_CHAR(name, 0) == '_' && PyUnicode_READ_CHAR(name, 1) == '_')
        return NULL;  /* Module.__getattr__ raises for a protocol name */
    PyObject *d = PyObject_GenericGetDict(obj, NULL);
    if (d == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *found = NULL;
    if (PyDict_CheckExact(d) && PyDict_GetItemWithError(d, name) == NULL && !PyErr_Occurred()) {
        for (int i = 0; i < 3 && found == NULL; i++) {
            PyObject *store = PyDict_GetItemWithError(d, stores[i]);  /* borrowed */
            if (store == NULL) {
                if (PyErr_Occurred()) break;
                continue;
            }
            if (store == Py_None) continue;
            if (!PyDict_CheckExact(store)) break;  /* a store of another class: its own `in` */
            PyObject *v = PyDict_GetItemWithError(store, name);
            if (v != NULL)
                found = Py_NewRef(v);
            else if (PyErr_Occurred())
                break;
        }
    }
    PyErr_Clear();
    Py_DECREF(d);
    return found;
}

/* setup_call(Module.__call__, the script function type) */
static PyObject *setup_call(PyObject *self, PyObject *args) {
    PyObject *call, *function;
    if (!PyArg_ParseTuple(args, "OO", &call, &function)) return NULL;
    if (str_call == NULL) {
        str_call = PyUnicode_InternFromString("__call__");
        str_forward = PyUnicode_InternFromString("forward");
        hooks_nonempty[0] = PyUnicode_InternFromString("_forward_pre_hooks");
        hooks_nonempty[1] = PyUnicode_InternFromString("_forward_hooks");
        hooks_present[0] = PyUnicode_InternFromString("_backward_hooks");
        hooks_present[1] = PyUnicode_InternFromString("_backward_pre_hooks");
        hooks_present[2] = PyUnicode_InternFromString("_non_full_backward_hooks");
        if (str_call == NULL || str_forward == NULL || hooks_nonempty[0] == NULL || hooks_nonempty[1] == NULL ||
            hooks_present[0] == NULL || hooks_present[1] == NULL || hooks_present[2] == NULL)
            return NULL;
    }
    if (str_getattribute == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_call needs setup first");
        return NULL;
    }
    Py_XSETREF(module_call, Py_NewRef(call));
    Py_XSETREF(script_function, Py_NewRef(function));
    Py_RETURN_NONE;
}

/* forward_of(obj): the forward a hook-free Module.__call__ runs, or None (above) */
static PyObject *forward_of(PyObject *self, PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    if (module_call == NULL || _PyType_Lookup(tp, str_call) != module_call ||
        _PyType_Lookup(tp, str_getattribute) != generic_getattribute)
        Py_RETURN_NONE;
    PyObject *raw = _PyType_Lookup(tp, str_forward);  /* borrowed */
    if (raw == NULL || !(PyFunction_Check(raw) || (PyObject *)Py_TYPE(raw) == script_function))
        Py_RETURN_NONE;
    Py_INCREF(raw);  /* a hook's __bool__ below could change the type */
    PyObject *d = PyObject_GenericGetDict(obj, NULL);
    if (d == NULL) {
        PyErr_Clear();
        Py_DECREF(raw);
        Py_RETURN_NONE;
    }
    int plain = PyDict_CheckExact(d);
    if (plain) {
        int in = PyDict_Contains(d, str_forward);
        plain = in == 0;
        if (in < 0) goto error;
    }
    for (int i = 0; i < 3 && plain; i++) {
        int in = PyDict_Contains(d, hooks_present[i]);
        if (in < 0) goto error;
        plain = in == 0;
    }
    for (int i = 0; i < 2 && plain; i++) {
        PyObject *hooks = PyDict_GetItemWithError(d, hooks_nonempty[i]);  /* borrowed */
        if (hooks == NULL) {
            if (PyErr_Occurred()) goto error;
            continue;
        }
        Py_INCREF(hooks);
        int truth = PyObject_IsTrue(hooks);
        Py_DECREF(hooks);
        if (truth < 0) goto error;
        plain = truth == 0;
    }
    Py_DECREF(d);
    if (plain) return raw;
    Py_DECREF(raw);
    Py_RETURN_NONE;
error:  /* a store that fails to answer: the caller's call of obj meets it where Module.__call__ does */
    PyErr_Clear();
    Py_DECREF(d);
    Py_DECREF(raw);
    Py_RETURN_NONE;
}

/* read_attr(obj, name): getattr(obj, name), a Module's stores read directly (above) */
static PyObject *read_attr(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "read_attr(obj, name) takes 2 arguments");
        return NULL;
    }
    PyObject *obj = args[0], *name = args[1];
    if (PyUnicode_CheckExact(name)) {
        PyObject *v = from_stores(obj, name);
        if (v != NULL) return v;
    }
    return PyObject_GetAttr(obj, name);
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, "setup(Module.__getattr__, object.__getattribute__)."},
    {"read_attr", (PyCFunction)(void (*)(void))read_attr, METH_FASTCALL,
     "getattr(obj, name), an nn.Module's parameters, buffers and submodules read without the failed lookup."},
    {"setup_call", setup_call, METH_VARARGS, "setup_call(Module.__call__, the script function type)."},
    {"forward_of", forward_of, METH_O, "The forward a hook-free Module.__call__ of obj runs, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "gradcli._native_lang", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_lang(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
