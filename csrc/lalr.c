/* gradcli._native_lalr: the token loop of gradcli/lang/lalr.py's Driver.parse in C.

  drive(tokens, actions, rules, state)
      Driver.parse's loop over the list `tokens` (tokenizer.stream's, a long text's) from the parser
      state `state`, as its Python form does it (the reference: tests/test_native_scan.py parses
      with both): actions[state] is a dict from a token's type to a shift (>= 0: the next state) or a
      reduction (~r < 0), goto entries by a nonterminal's name; rules[r] is (number of symbols, the
      nonterminal, its reducer or None: the one child passed through). A reduction of one symbol
      replaces the values' top by reducer([top]), one of n symbols pops n values and pushes
      reducer(those n in a new list). The reducers are the builder's Python functions; an exception
      of theirs ends the loop as it is raised.
      Returns (states, values, stop): the stacks (lists) where the loop ended and the index of the
      token no action takes (len(tokens) when all were shifted); Driver.parse then raises Lark's
      UnexpectedToken there, or reduces the end of the input.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef SOURCE_DIGEST
#error "SOURCE_DIGEST: setup.py passes the sha256 of this file and csrc/*.h"
#endif

typedef struct {
    Py_ssize_t *items;
    Py_ssize_t n, cap;
} Stack;

static int push(Stack *s, Py_ssize_t v)
{
    if (s->n == s->cap) {
        Py_ssize_t cap = s->cap ? 2 * s->cap : 256;
        Py_ssize_t *items = PyMem_Realloc(s->items, (size_t)cap * sizeof(Py_ssize_t));
        if (items == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->items = items;
        s->cap = cap;
    }
    s->items[s->n++] = v;
    return 0;
}

typedef struct {
    Py_ssize_t size;
    PyObject *origin, *reduce;  /* borrowed from rules */
} Rule;

/* actions[state][key] as a C integer; *found 0 when the row has no such key. -1 and an exception on
   a table that is not of the shape described */
static int action(PyObject *actions, Py_ssize_t state, PyObject *key, Py_ssize_t *code, int *found)
{
    if (state < 0 || state >= PyList_GET_SIZE(actions)) {
        PyErr_SetString(PyExc_ValueError, "drive: a state out of the table");
        return -1;
    }
    PyObject *row = PyList_GET_ITEM(actions, state);
    if (!PyDict_CheckExact(row)) {
        PyErr_SetString(PyExc_TypeError, "drive: actions must be a list of dicts");
        return -1;
    }
    PyObject *v = PyDict_GetItemWithError(row, key);
    if (v == NULL) {
        *found = 0;
        return PyErr_Occurred() ? -1 : 0;
    }
    if (!PyLong_CheckExact(v)) {
        PyErr_SetString(PyExc_TypeError, "drive: actions must be ints");
        return -1;
    }
    *code = PyLong_AsSsize_t(v);
    if (*code == -1 && PyErr_Occurred())
        return -1;
    *found = 1;
    return 0;
}

/* the goto after a reduction to `origin` from the state below: pushed (or, replace, the top set) */
static int go(PyObject *actions, Stack *states, PyObject *origin, int replace)
{
    Py_ssize_t code;
    int found;
    Py_ssize_t below = states->items[states->n - 1 - replace];
    if (action(actions, below, origin, &code, &found) < 0)
        return -1;
    if (!found || code < 0) {
        PyErr_SetString(PyExc_ValueError, "drive: no goto for a reduction");
        return -1;
    }
    if (replace) {
        states->items[states->n - 1] = code;
        return 0;
    }
    return push(states, code);
}

static PyObject *stacks(Stack *states, PyObject *values, Py_ssize_t stop)
{
    PyObject *list = PyList_New(states->n);
    if (list == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < states->n; ++i) {
        PyObject *v = PyLong_FromSsize_t(states->items[i]);
        if (v == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return Py_BuildValue("(NOn)", list, values, stop);
}

static PyObject *drive(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[1]) || !PyList_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "drive(tokens: list, actions: list, rules: list, state: int)");
        return NULL;
    }
    PyObject *tokens = args[0], *actions = args[1], *rule_list = args[2];
    Py_ssize_t start = PyLong_AsSsize_t(args[3]);
    if (start == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t nrules = PyList_GET_SIZE(rule_list);
    Rule *rules = PyMem_Malloc((size_t)(nrules ? nrules : 1) * sizeof(Rule));
    if (rules == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t r = 0; r < nrules; ++r) {
        PyObject *t = PyList_GET_ITEM(rule_list, r);  /* (checked here, held below) */
        if (!PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != 3 || !PyLong_CheckExact(PyTuple_GET_ITEM(t, 0))) {
            PyMem_Free(rules);
            PyErr_SetString(PyExc_TypeError, "drive: rules must be (size, origin, reducer) tuples");
            return NULL;
        }
        rules[r].size = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 0));
        rules[r].origin = PyTuple_GET_ITEM(t, 1);
        rules[r].reduce = PyTuple_GET_ITEM(t, 2);
        if (rules[r].size < 0) {
            PyMem_Free(rules);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "drive: a rule of a negative size");
            return NULL;
        }
    }
    /* the tables are only read; held (the rules as a tuple of their own) so that no reducer frees them */
    Py_INCREF(tokens);
    Py_INCREF(actions);
    rule_list = PyList_AsTuple(rule_list);
    if (rule_list == NULL) {
        PyMem_Free(rules);
        Py_DECREF(tokens);
        Py_DECREF(actions);
        return NULL;
    }
    PyObject *result = NULL, *type_name = PyUnicode_InternFromString("type");
    PyObject *values = PyList_New(0);
    Stack states = {NULL, 0, 0};
    Py_ssize_t i = 0, ntokens;
    if (type_name == NULL || values == NULL || push(&states, start) < 0)
        goto done;
    for (i = 0; i < (ntokens = PyList_GET_SIZE(tokens)); ++i) {
        PyObject *token = PyList_GET_ITEM(tokens, i);
        Py_INCREF(token);
        PyObject *ttype = PyObject_GetAttr(token, type_name);
        if (ttype == NULL) {
            Py_DECREF(token);
            goto done;
        }
        for (;;) {
            Py_ssize_t code;
            int found;
            if (action(actions, states.items[states.n - 1], ttype, &code, &found) < 0)
                goto fail_token;
            if (!found) {  /* Driver.parse raises UnexpectedToken at this token */
                Py_DECREF(ttype);
                Py_DECREF(token);
                result = stacks(&states, values, i);
                goto done;
            }
            if (code >= 0) {  /* shift */
                if (code >= PyList_GET_SIZE(actions)) {
                    PyErr_SetString(PyExc_ValueError, "drive: a shift out of the table");
                    goto fail_token;
                }
                if (push(&states, code) < 0 || PyList_Append(values, token) < 0)
                    goto fail_token;
                break;
            }
            Py_ssize_t r = ~code;
            if (r >= nrules) {
                PyErr_SetString(PyExc_ValueError, "drive: a reduction by no rule");
                goto fail_token;
            }
            Rule rule = rules[r];
            Py_ssize_t nvalues = PyList_GET_SIZE(values);
            if (rule.size > nvalues || rule.size >= states.n) {
                PyErr_SetString(PyExc_ValueError, "drive: a reduction deeper than the stacks");
                goto fail_token;
            }
            if (rule.size == 1) {  /* the tops replaced */
                if (rule.reduce != Py_None) {
                    PyObject *children = PyList_New(1);
                    if (children == NULL)
                        goto fail_token;
                    PyObject *top = PyList_GET_ITEM(values, nvalues - 1);
                    Py_INCREF(top);
                    PyList_SET_ITEM(children, 0, top);
                    PyObject *v = PyObject_CallOneArg(rule.reduce, children);
                    Py_DECREF(children);
                    if (v == NULL)
                        goto fail_token;
                    if (PyList_GET_SIZE(values) != nvalues) {  /* a reducer that touched the stack */
                        Py_DECREF(v);
                        PyErr_SetString(PyExc_RuntimeError, "drive: the value stack changed in a reducer");
                        goto fail_token;
                    }
                    PyList_SetItem(values, nvalues - 1, v);  /* steals v */
                }
                if (go(actions, &states, rule.origin, 1) < 0)
                    goto fail_token;
            }
            else {
                PyObject *children = PyList_GetSlice(values, nvalues - rule.size, nvalues);
                if (children == NULL)
                    goto fail_token;
                if (PyList_SetSlice(values, nvalues - rule.size, nvalues, NULL) < 0) {
                    Py_DECREF(children);
                    goto fail_token;
                }
                states.n -= rule.size;
                PyObject *v = PyObject_CallOneArg(rule.reduce, children);
                Py_DECREF(children);
                if (v == NULL)
                    goto fail_token;
                int bad = PyList_Append(values, v) < 0;
                Py_DECREF(v);
                if (bad || go(actions, &states, rule.origin, 0) < 0)
                    goto fail_token;
            }
        }
        Py_DECREF(ttype);
        Py_DECREF(token);
        continue;
    fail_token:
        Py_DECREF(ttype);
        Py_DECREF(token);
        goto done;
    }
    result = stacks(&states, values, i);
done:
    PyMem_Free(states.items);
    PyMem_Free(rules);
    Py_XDECREF(values);
    Py_XDECREF(type_name);
    Py_DECREF(tokens);
    Py_DECREF(actions);
    Py_DECREF(rule_list);
    return result;
}

static PyMethodDef methods[] = {
    {"drive", (PyCFunction)(void (*)(void))drive, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native_lalr", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native_lalr(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
