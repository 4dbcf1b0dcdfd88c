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
 * getattr. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

static PyObject *module_getattr = NULL, *generic_getattribute = NULL;
static PyObject *str_getattr = NULL, *str_getattribute = NULL, *stores[3] = {NULL, NULL, NULL};

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
