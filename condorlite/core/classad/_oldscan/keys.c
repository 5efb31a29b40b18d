/* entry_key: the identities of an ad's entries for a few names, as one bytes object;
 * find_split: the first of a list of splits whose records hold an ad's entries and
 * whose literal names it binds to literals, with their values (see
 * condorlite/core/entry_keys.py). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <structmember.h>

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

/* The value of member descriptor `descr` on `obj` (a new reference, NULL with an
 * exception): read at the member's offset where `obj` is exactly of the descriptor's
 * type and the member an object slot that is set, else through the descriptor's get
 * (which raises as Python would). */
static PyObject *
member_of(PyObject *descr, PyObject *obj)
{
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *def = ((PyMemberDescrObject *)descr)->d_member;
        if (Py_TYPE(obj) == PyDescr_TYPE(descr) && def->type == T_OBJECT_EX
                && !(def->flags & READ_RESTRICTED)) {
            PyObject *value = *(PyObject **)((char *)obj + def->offset);
            if (value != NULL)
                return Py_NewRef(value);
        }
    }
    descrgetfunc get = Py_TYPE(descr)->tp_descr_get;
    if (get == NULL) {
        PyErr_SetString(PyExc_TypeError, "find_split: member is not a descriptor");
        return NULL;
    }
    return get(descr, obj, (PyObject *)Py_TYPE(obj));
}

/* The values (member `member` of item 1) of `table`'s entries for `names`, as a new
 * tuple, when each is bound to an entry (a pair) whose item 1 is exactly of type
 * `kind`; Py_None (a new reference) at the first that is not; NULL with an
 * exception. */
static PyObject *
bound_values(PyObject *table, PyObject *names, PyTypeObject *kind, PyObject *member)
{
    if (!PyTuple_Check(names)) {
        PyErr_SetString(PyExc_TypeError, "find_split: a split's literal names must be a tuple");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    PyObject *values = PyTuple_New(n);
    if (values == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = PyDict_GetItemWithError(table, PyTuple_GET_ITEM(names, i));
        if (entry == NULL && PyErr_Occurred()) {
            Py_DECREF(values);
            return NULL;
        }
        if (entry == NULL || !PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 2
                || Py_TYPE(PyTuple_GET_ITEM(entry, 1)) != kind) {
            Py_DECREF(values);
            Py_RETURN_NONE;
        }
        /* (the entry is borrowed: the value is read before any other Python code runs) */
        PyObject *value = member_of(member, PyTuple_GET_ITEM(entry, 1));
        if (value == NULL) {
            Py_DECREF(values);
            return NULL;
        }
        PyTuple_SET_ITEM(values, i, value);
    }
    return values;
}

PyObject *
oldscan_find_split(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyDict_CheckExact(args[0]) || !PyList_Check(args[1])
            || !PyType_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError,
                        "find_split(table: dict, splits: list, kind, literal: type, member)");
        return NULL;
    }
    PyObject *table = args[0], *splits = args[1], *kind = args[2], *member = args[4];
    PyTypeObject *literal = (PyTypeObject *)args[3];
    for (Py_ssize_t at = 0; at < PyList_GET_SIZE(splits); at++) {
        /* (borrowed: nothing below runs Python code that could change the list) */
        PyObject *split = PyList_GET_ITEM(splits, at);
        if (!PyTuple_Check(split) || PyTuple_GET_SIZE(split) < 3
                || !PyDict_Check(PyTuple_GET_ITEM(split, 2))) {
            PyErr_SetString(PyExc_TypeError,
                            "find_split: a split is (keyed, literal, records: dict, ...)");
            return NULL;
        }
        PyObject *records = PyDict_GetItemWithError(PyTuple_GET_ITEM(split, 2), kind);
        if (records == NULL) {
            if (PyErr_Occurred())
                return NULL;
            continue;
        }
        if (!PyDict_Check(records)) {
            PyErr_SetString(PyExc_TypeError, "find_split: a kind's records must be a dict");
            return NULL;
        }
        PyObject *keyed[2] = {table, PyTuple_GET_ITEM(split, 0)};
        PyObject *key = oldscan_entry_key(module, keyed, 2);
        if (key == NULL)
            return NULL;
        PyObject *record = PyDict_GetItemWithError(records, key);
        Py_DECREF(key);
        if (record == NULL) {
            if (PyErr_Occurred())
                return NULL;
            continue;
        }
        Py_INCREF(record);  /* (held while the values are read) */
        PyObject *values = bound_values(table, PyTuple_GET_ITEM(split, 1), literal, member);
        if (values == NULL) {
            Py_DECREF(record);
            return NULL;
        }
        if (values == Py_None) {
            Py_DECREF(values);
            Py_DECREF(record);
            continue;
        }
        PyObject *found = PyTuple_New(3);
        PyObject *where = PyLong_FromSsize_t(at);
        if (found == NULL || where == NULL) {
            Py_XDECREF(found);
            Py_XDECREF(where);
            Py_DECREF(values);
            Py_DECREF(record);
            return NULL;
        }
        PyTuple_SET_ITEM(found, 0, where);
        PyTuple_SET_ITEM(found, 1, record);
        PyTuple_SET_ITEM(found, 2, values);
        return found;
    }
    Py_RETURN_NONE;
}
