/* entry_key: the identities of an ad's entries for a few names, as one bytes object;
 * bound_to: whether an ad binds each of a few names to an expression of one type
 * (see condorlite/core/entry_keys.py). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "keys.h"

PyObject *
oldscan_entry_key(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyDict_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "entry_key(table: dict, names: sequence)");
        return NULL;
    }
    PyObject *table = args[0];
    PyObject *names = PySequence_Fast(args[1], "entry_key: names must be a sequence");
    if (names == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(names);
    PyObject **items = PySequence_Fast_ITEMS(names);
    PyObject *key = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(void *));
    if (key == NULL) {
        Py_DECREF(names);
        return NULL;
    }
    char *out = PyBytes_AS_STRING(key);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = PyDict_GetItemWithError(table, items[i]);
        if (entry == NULL && PyErr_Occurred()) {
            Py_DECREF(key);
            Py_DECREF(names);
            return NULL;
        }
        /* the entry's address (NULL when absent): the caller holds the entries of
         * every key it keeps, so an address stays that entry's */
        memcpy(out + i * (Py_ssize_t)sizeof(void *), &entry, sizeof(void *));
    }
    Py_DECREF(names);
    return key;
}

PyObject *
oldscan_bound_to(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyDict_CheckExact(args[0]) || !PyType_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "bound_to(table: dict, names: sequence, kind: type)");
        return NULL;
    }
    PyObject *table = args[0];
    PyTypeObject *kind = (PyTypeObject *)args[2];
    PyObject *names = PySequence_Fast(args[1], "bound_to: names must be a sequence");
    if (names == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(names);
    PyObject **items = PySequence_Fast_ITEMS(names);
    PyObject *result = Py_True;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* (a borrowed entry, read before any other Python code runs) */
        PyObject *entry = PyDict_GetItemWithError(table, items[i]);
        if (entry == NULL && PyErr_Occurred()) {
            Py_DECREF(names);
            return NULL;
        }
        /* an entry is a (spelling, expression) pair; anything else (which no reader
         * stores) is no binding of that kind */
        if (entry == NULL || !PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 2
                || Py_TYPE(PyTuple_GET_ITEM(entry, 1)) != kind) {
            result = Py_False;
            break;
        }
    }
    Py_DECREF(names);
    return Py_NewRef(result);
}
